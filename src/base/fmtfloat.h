/* fmtfloat.h - a float32 as the shortest decimal text that reads back to it.
 *
 * fmtfloat_write(buf, 0.1f) writes "0.1" where printf("%.9g") writes
 * "0.100000001": both read back (strtof) to the same float, ours with the
 * fewest significant digits, and of those the closest to the exact value.
 * The layout is %g's with precision 9: plain digits when the decimal exponent
 * X is in -4 <= X < 9 ("123.5", "0.00015", "-0"), otherwise scientific with a
 * signed two-digit-or-more exponent ("1e+09", "1.4e-45").  Every finite value
 * is valid JSON; inf and nan are written "inf", "-inf", "nan" (not JSON: the
 * caller decides what to do with them).
 */
#ifndef MHAVIZ_FMTFLOAT_H
#define MHAVIZ_FMTFLOAT_H

#include <stdint.h>

/* Longest text, with its NUL: "-1.23456789e-38". */
#define FMTFLOAT_SIZE 16

/* Writes v into buf (FMTFLOAT_SIZE bytes), NUL-terminated; returns its length. */
int fmtfloat_write(char *buf, float v);

/* The digits and exponent underneath: v = digits * 10^exp10 with the fewest
 * digits (no trailing zero unless digits is 0).  v finite and >= 0. */
void fmtfloat_shortest(float v, uint32_t *digits, int *exp10);

#endif
