/* utf8.c - UTF-8 decoding and encoding, strict (RFC 3629). */
#include "base/utf8.h"

uint32_t utf8_decode(const char *s, size_t avail, int *len)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t c = avail ? p[0] : 0, min;
    int n;
    *len = 1;
    if (c < 0x80) return c;
    if ((c & 0xE0) == 0xC0)
        n = 2, c &= 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        n = 3, c &= 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        n = 4, c &= 0x07, min = 0x10000;
    else
        return UTF8_INVALID;
    if ((size_t)n > avail) return UTF8_INVALID;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return UTF8_INVALID; /* also stops at a NUL */
        c = (c << 6) | (p[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return UTF8_INVALID;
    *len = n;
    return c;
}

int utf8_encode(uint32_t c, char *out)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

size_t utf8_bad_at(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        int k;
        if (utf8_decode(s + i, n - i, &k) == UTF8_INVALID) return i + 1;
        i += (size_t)k;
    }
    return 0;
}
