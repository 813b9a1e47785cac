/* sanitize.c - control characters kept off the terminal (see sanitize.h). */
#include "base/sanitize.h"

#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

int sanitize_is_control(uint32_t c)
{
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0) || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

char *sanitize_text(const char *s, char *out, size_t n)
{
    return sanitize_bytes(s, strlen(s), out, n);
}

char *sanitize_bytes(const char *s, size_t len, char *out, size_t n)
{
    size_t k = 0;
    if (n == 0) return out;
    for (size_t i = 0; i < len;) {
        int cl;
        uint32_t c = utf8_decode(s + i, len - i, &cl);
        char esc[8];
        const char *piece = s + i;
        size_t plen = (size_t)cl;
        if (c == UTF8_INVALID || c < 0x20 || c == 0x7F)
            plen = (size_t)snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)s[i]), piece = esc;
        else if (sanitize_is_control(c))
            plen = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c), piece = esc;
        if (k + plen >= n) break;
        memcpy(out + k, piece, plen);
        k += plen;
        i += (size_t)cl;
    }
    out[k] = 0;
    return out;
}

size_t sanitize_control_at(const char *s, size_t len, uint32_t *cp)
{
    for (size_t i = 0; i < len;) {
        int cl;
        uint32_t c = utf8_decode(s + i, len - i, &cl);
        if (c != UTF8_INVALID && c != '\t' && sanitize_is_control(c)) {
            if (cp) *cp = c;
            return i + 1;
        }
        i += (size_t)cl;
    }
    return 0;
}
