/* linebreak.h - the one line-break finder: where a line of text ends in a
 * column of a given width.  Every word wrapper calls it (the canvas, the
 * lesson page's rich text, the quiz screen's body, quiz --plain's printout).
 *
 * The rules:
 * - A column is one code point (the canvas holds one code point per cell);
 *   an invalid byte counts one column (the canvas draws it as U+FFFD).  A
 *   break is never inside a UTF-8 sequence.
 * - '\n' always ends a line.  Elsewhere a line breaks at a space (' ' or
 *   '\t'); the spaces at a break belong to neither line, so a line never
 *   ends in a space and the next one never starts with one.  Spaces at the
 *   start of a paragraph are kept (they are its indent).
 * - A word wider than the column starts a line of its own and is cut: after
 *   its last '/' that fits (a URL or a path breaks between names:
 *   "blob/main/" + "config.json", never "blob/mai" + "n/config.json"), else
 *   at the column's width.  A '/' is a break only in such a word, so
 *   "a/b" that fits is never split.
 */
#ifndef MHAVIZ_LINEBREAK_H
#define MHAVIZ_LINEBREAK_H

#include <stddef.h>

typedef struct LineBreak {
    size_t len;  /* bytes of the line, trailing spaces left out */
    size_t next; /* bytes to the next line: past the spaces and one '\n' */
    int cols;    /* columns of those len bytes */
} LineBreak;

/* The line that starts at s, of the n bytes s holds (no NUL needed), in a
 * column width wide (less than 1 counts as 1).  Returns 0 when n is 0 (no
 * line left), else 1 with *lb filled; lb->next > 0 always, so a loop
 * `s += lb.next, n -= lb.next` ends. */
int linebreak_next(const char *s, size_t n, int width, LineBreak *lb);

/* The columns of the n bytes at s, under the rules above. */
int linebreak_cols(const char *s, size_t n);

#endif
