/* textutil.h - small text helpers shared by the file parsers (lessons, quiz
 * banks, presets): trimming and typo distance for "did you mean" hints. */
#ifndef MHAVIZ_TEXTUTIL_H
#define MHAVIZ_TEXTUTIL_H

#include <stddef.h>

/* Edit distance between a and b with adjacent transpositions counted as one
 * edit (optimal string alignment), ignoring ASCII case.  Inputs longer than
 * TEXT_DIST_MAX_LEN bytes give TEXT_DIST_FAR (never a plausible typo). */
#define TEXT_DIST_MAX_LEN 40
#define TEXT_DIST_FAR 99
int text_edit_distance(const char *a, const char *b);

/* The closest of candidates[0..nc) to word by text_edit_distance, or NULL
 * when none is close enough to be a plausible typo (one edit for a word of
 * up to 3 characters, two up to 6, else three, and fewer than the word's
 * length): the "did you mean" of every error that names a choice. */
const char *text_suggest(const char *word, const char *const *candidates, int nc);

/* text_suggest's answer as an error's tail: " (did you mean 'PREFIXword'?)",
 * or, when nothing is close, " (one of: PREFIXa PREFIXb ...)", into buf;
 * returns buf. */
const char *text_hint(char *buf, size_t n, const char *prefix, const char *word,
                      const char *const *cands, int nc);

/* Removes white space (isspace) at both ends of s, in place: returns the
 * first kept character inside s, which now ends where the text does. */
char *text_trim(char *s);

/* v in decimal with thousands commas ("1,048,576") into buf, cut to n - 1
 * bytes; returns buf.  Every count of bytes or floats shown uses it. */
char *text_fmt_int(char *buf, size_t n, unsigned long long v);

/* "s" unless n is 1: the plural ending of the noun after a count, so that
 * printf("%d token%s", n, text_s(n)) reads "1 token" and "2 tokens".  Every
 * counted noun shown uses it (or text_fmt_count). */
const char *text_s(long long n);

/* "16,384 floats", "1 float": v as text_fmt_int writes it, a space and word
 * with text_s's ending, into buf, cut to n - 1 bytes; returns buf. */
char *text_fmt_count(char *buf, size_t n, unsigned long long v, const char *word);

#endif
