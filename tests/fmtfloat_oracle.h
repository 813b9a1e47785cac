/* fmtfloat_oracle.h - what "right" means for fmtfloat_write, checked against
 * the C library: the text reads back (strtof) to the same bits, and no text
 * with one digit less does.  Shared by check_fmtfloat.c (edges and random
 * values) and fmtfloat_all.c (every float32 bit pattern). */
#ifndef MHAVIZ_FMTFLOAT_ORACLE_H
#define MHAVIZ_FMTFLOAT_ORACLE_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmtfloat.h"

static inline uint32_t oracle_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static inline float oracle_float(uint32_t bits)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Does "digits e exp10" read back as the positive finite float with these
 * bits?  Plain double arithmetic decides when the number is clearly inside or
 * outside the float's rounding interval (whose ends are exact in a double;
 * the product is within 1e-15 of the number); strtof decides near an end. */
static inline int oracle_reads_back(uint64_t digits, int exp10, uint32_t bits)
{
    static double p10[120]; /* 10^(i - 70), correctly rounded by strtod */
    if (!p10[0])
        for (int i = 0; i < 120; i++) {
            char t[16];
            snprintf(t, sizeof t, "1e%d", i - 70);
            p10[i] = strtod(t, NULL);
        }
    if (exp10 > 45 || exp10 < -65) return 0;
    double v = oracle_float(bits), below = bits ? oracle_float(bits - 1) : 0;
    double above = bits == 0x7f7fffffu ? v + (v - below) : oracle_float(bits + 1); /* 2^128 */
    double lo = (v + below) / 2, hi = (v + above) / 2;
    double x = (double)digits * p10[exp10 + 70], tol = 1e-12;
    if (x < lo * (1 - tol) || x > hi * (1 + tol)) return 0;
    if (x > lo * (1 + tol) && x < hi * (1 - tol)) return 1;
    char t[48];
    snprintf(t, sizeof t, "%" PRIu64 "e%d", digits, exp10);
    return oracle_bits(strtof(t, NULL)) == bits;
}

/* 0 when fmtfloat is right about the float with these bits; otherwise writes
 * what is wrong into why (n bytes) and returns -1.  Non-finite values must
 * come out as inf, -inf or nan. */
static inline int oracle_check(uint32_t bits, char *why, size_t n)
{
    float v;
    memcpy(&v, &bits, sizeof v);
    char buf[FMTFLOAT_SIZE + 8];
    memset(buf, 'X', sizeof buf);
    int len = fmtfloat_write(buf, v);
    if (len < 1 || len >= FMTFLOAT_SIZE || (int)strlen(buf) != len) {
        snprintf(why, n, "%08" PRIx32 ": length %d of '%.*s'", bits, len, FMTFLOAT_SIZE, buf);
        return -1;
    }
    if (!isfinite(v)) {
        const char *want = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
        if (strcmp(buf, want)) {
            snprintf(why, n, "%08" PRIx32 ": '%s', want '%s'", bits, buf, want);
            return -1;
        }
        return 0;
    }
    if (oracle_bits(strtof(buf, NULL)) != bits) {
        snprintf(why, n, "%08" PRIx32 " (%.9g): '%s' reads back as %.9g", bits, v, buf,
                 strtof(buf, NULL));
        return -1;
    }
    /* Shortest: the numbers with one digit less nearest the output, below and
     * above it, must not read back (any shorter one that did would make one
     * of these two read back too, the interval being an interval). */
    uint32_t d;
    int e;
    fmtfloat_shortest(fabsf(v), &d, &e);
    if (d >= 10 && d % 10 == 0) {
        snprintf(why, n, "%08" PRIx32 ": digits %" PRIu32 " end in 0", bits, d);
        return -1;
    }
    uint32_t absbits = bits & 0x7fffffffu;
    if (d >= 10 && (oracle_reads_back(d / 10, e + 1, absbits) ||
                    oracle_reads_back(d / 10 + 1, e + 1, absbits))) {
        snprintf(why, n, "%08" PRIx32 ": '%s' is not the shortest", bits, buf);
        return -1;
    }
    return 0;
}

#endif
