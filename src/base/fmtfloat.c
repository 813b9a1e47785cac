/* fmtfloat.c - shortest round-trip decimal for a float32.
 *
 * The method is the one Ryu (Adams, PLDI 2018) made fast, done here with exact
 * integer arithmetic instead of its tables.  A float is m * 2^e.  Every real in
 * the rounding interval around it, from halfway to its lower neighbour to
 * halfway to its upper one, reads back as the same float; the boundaries
 * themselves read back to it only when m is even (ties go to even).  Scale the
 * value and both boundaries by a power of ten s (1 <= s < 10 units per 2^e, so
 * the interval is at least 3 units wide and holds whole numbers), take the
 * floors exactly, then drop decimal digits while the interval still holds a
 * shorter number, rounding the value's digits as they go.
 *
 * With m < 2^26 (two extra bits for the boundaries) the scaled products fit in
 * 192 bits below the decimal point (e < 0: m * 5^k >> shift, 5^k < 2^107) and
 * in 128 bits above it (e >= 0: m * 2^e < 2^128), so no big numbers are needed.
 */
#include "base/fmtfloat.h"

#include <string.h>

__extension__ typedef unsigned __int128 u128; /* GCC and Clang, 64-bit targets */

/* 5^0 .. 5^27, the powers of five that fit in 64 bits. */
/* clang-format off */
static const uint64_t pow5_64[28] = {
    1u, 5u, 25u, 125u,
    625u, 3125u, 15625u, 78125u,
    390625u, 1953125u, 9765625u, 48828125u,
    244140625u, 1220703125u, 6103515625ull, 30517578125ull,
    152587890625ull, 762939453125ull, 3814697265625ull, 19073486328125ull,
    95367431640625ull, 476837158203125ull, 2384185791015625ull, 11920928955078125ull,
    59604644775390625ull, 298023223876953125ull, 1490116119384765625ull, 7450580596923828125ull};
/* clang-format on */

/* 5^k for 0 <= k <= 54. */
static u128 pow5(int k)
{
    return k <= 27 ? pow5_64[k] : (u128)pow5_64[27] * pow5_64[k - 27];
}

/* floor(log10(2^e)) for 0 <= e <= 1650 (78913 / 2^18 just above log10 2). */
static int log10_pow2(int e)
{
    return (int)(((uint32_t)e * 78913u) >> 18);
}

/* floor(x * 5^k / 2^shift), and whether that was exact.  x < 2^26, k <= 54,
 * 0 <= shift < 128 and the result below 2^64. */
static uint64_t mul_pow5_shift(uint64_t x, int k, int shift, int *exact)
{
    u128 p = pow5(k);
    u128 lo = (u128)x * (uint64_t)p;       /* the 192-bit product: */
    u128 mid = (lo >> 64) + x * (p >> 64); /* mid * 2^64 + low */
    uint64_t low = (uint64_t)lo;
    if (shift == 0) {
        *exact = 1;
        return low;
    }
    if (shift < 64) {
        *exact = (low & ((1ull << shift) - 1)) == 0;
        return (uint64_t)(mid << (64 - shift)) | (low >> shift);
    }
    *exact = low == 0 && (mid & (((u128)1 << (shift - 64)) - 1)) == 0;
    return (uint64_t)(mid >> (shift - 64));
}

/* floor(x * 2^e / 10^j), and whether that was exact.  x < 2^26, 0 <= j <= e <= 102. */
static uint64_t mul_pow2_div10(uint64_t x, int e, int j, int *exact)
{
    u128 num = (u128)x << (e - j), den = pow5(j); /* 2^e / 10^j = 2^(e-j) / 5^j */
    *exact = num % den == 0;
    return (uint64_t)(num / den);
}

void fmtfloat_shortest(float v, uint32_t *digits, int *exp10)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t frac = bits & 0x7fffffu, bexp = (bits >> 23) & 0xffu;
    if (bexp == 0 && frac == 0) {
        *digits = 0, *exp10 = 0;
        return;
    }
    /* v = m2 * 2^e2 */
    uint32_t m2 = bexp ? frac | 0x800000u : frac;
    int e2 = (bexp ? (int)bexp : 1) - 150;
    /* The interval in units of 2^(e2-2): value mv, boundaries mm and mp.  At a
     * power of two (frac 0) the lower neighbour is twice as close. */
    int accept = (m2 & 1) == 0;
    uint64_t mv = 4 * (uint64_t)m2, mp = mv + 2, mm = mv - 1 - (frac != 0 || bexp <= 1);
    e2 -= 2;

    uint64_t vr, vp, vm;
    int vr_exact, vp_exact, vm_exact, e10;
    if (e2 >= 0) {
        int j = log10_pow2(e2); /* 10^j <= 2^e2 < 10^(j+1) */
        vr = mul_pow2_div10(mv, e2, j, &vr_exact);
        vp = mul_pow2_div10(mp, e2, j, &vp_exact);
        vm = mul_pow2_div10(mm, e2, j, &vm_exact);
        e10 = j;
    } else {
        int q = -e2, k = log10_pow2(q) + 1; /* 10^(k-1) < 2^q < 10^k */
        vr = mul_pow5_shift(mv, k, q - k, &vr_exact);
        vp = mul_pow5_shift(mp, k, q - k, &vp_exact);
        vm = mul_pow5_shift(mm, k, q - k, &vm_exact);
        e10 = -k;
    }
    /* Boundaries that do not read back are left out: the largest number below
     * an exact upper boundary is vp - 1; an exact lower one counts only if m2
     * is even (vm is otherwise below the interval, as a floor always is). */
    if (!accept && vp_exact) vp--;
    int vm_zeros = accept && vm_exact; /* the digits dropped from vm are all 0 */
    int vr_zeros = vr_exact;           /* the digits dropped from vr, before the last, are 0 */
    int last = 0;                      /* the last digit dropped from vr */
    while (vp / 10 > vm / 10) {
        vm_zeros &= vm % 10 == 0;
        vr_zeros &= last == 0;
        last = (int)(vr % 10);
        vr /= 10, vp /= 10, vm /= 10, e10++;
    }
    if (vm_zeros) /* vm itself is in: drop the zeros it ends with */
        while (vm % 10 == 0) {
            vr_zeros &= last == 0;
            last = (int)(vr % 10);
            vr /= 10, vp /= 10, vm /= 10, e10++;
        }
    if (vr_zeros && last == 5 && vr % 2 == 0) last = 4; /* exactly half: to even */
    /* Round vr, and step up off vm when vm is outside the interval. */
    vr += (vr == vm && !vm_zeros) || last >= 5;
    while (vr % 10 == 0 && vr) /* 995 -> 1000 when rounding carried */
        vr /= 10, e10++;
    *digits = (uint32_t)vr;
    *exp10 = e10;
}

int fmtfloat_write(char *buf, float v)
{
    char *p = buf;
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (((bits >> 23) & 0xffu) == 0xffu) { /* as printf, but nan without its sign */
        strcpy(buf, (bits & 0x7fffffu) ? "nan" : bits >> 31 ? "-inf" : "inf");
        return (int)strlen(buf);
    }
    if (bits >> 31) *p++ = '-';
    uint32_t d;
    int e10;
    fmtfloat_shortest(v < 0 ? -v : v, &d, &e10);
    char dig[10]; /* d has at most 9 digits, most significant first */
    int n = 1;
    for (uint32_t t = d; t >= 10; t /= 10)
        n++;
    for (int i = n - 1; i >= 0; i--, d /= 10)
        dig[i] = (char)('0' + d % 10);
    int x = n - 1 + e10; /* value = d.ddd * 10^x */
    if (dig[0] == '0') x = 0;
    if (x >= -4 && x < 9) {
        if (x < 0) { /* 0.000ddd */
            *p++ = '0', *p++ = '.';
            for (int i = -1; i > x; i--)
                *p++ = '0';
            memcpy(p, dig, (size_t)n), p += n;
        } else { /* ddd[.ddd], zeros padded before the point */
            for (int i = 0; i <= x || i < n; i++) {
                if (i == x + 1) *p++ = '.';
                *p++ = i < n ? dig[i] : '0';
            }
        }
    } else { /* d[.ddd]e+XX */
        *p++ = dig[0];
        if (n > 1) *p++ = '.', memcpy(p, dig + 1, (size_t)n - 1), p += n - 1;
        *p++ = 'e', *p++ = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 10)
            *p++ = (char)('0' + ax / 10);
        else
            *p++ = '0';
        *p++ = (char)('0' + ax % 10);
    }
    *p = 0;
    return (int)(p - buf);
}
