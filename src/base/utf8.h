/* utf8.h - the one UTF-8 decoder and encoder (the canvas, lesson files, the
 * lesson page's rich text all read text through it). */
#ifndef MHAVIZ_UTF8_H
#define MHAVIZ_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define UTF8_INVALID 0xFFFFFFFFu

/* Decodes the code point at s, reading at most avail bytes; *len gets the
 * bytes it takes.  Invalid, overlong, truncated or surrogate sequences (and a
 * NUL inside a sequence) give UTF8_INVALID with *len = 1, so a caller can
 * skip one byte and go on. */
uint32_t utf8_decode(const char *s, size_t avail, int *len);

/* Encodes c (at most U+10FFFF) into out, which has room for 4 bytes; returns
 * the byte count. */
int utf8_encode(uint32_t c, char *out);

/* Column (1-based, in bytes) of the first invalid byte of s[0..n), 0 when
 * all of it is valid UTF-8. */
size_t utf8_bad_at(const char *s, size_t n);

#endif
