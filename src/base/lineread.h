/* lineread.h - the one reader of lines typed or piped in (the playground's
 * statements, the quiz's answers): in bounded pieces, whatever the input.
 *
 * A line of any length costs at most the caller's buffer: what does not fit
 * is read and dropped, and only counted.  White space at the end of a line
 * is dropped too, so "x = 1" and 10 MB of spaces is the statement "x = 1".
 * A NUL byte is reported with its column, never taken as the line's end.
 */
#ifndef MHAVIZ_LINEREAD_H
#define MHAVIZ_LINEREAD_H

#include <stddef.h>
#include <stdio.h>

typedef struct LineRead {
    size_t len;    /* bytes in buf, trailing white space (and CR, LF) removed */
    int too_long;  /* more than cap - 1 bytes before the trailing white space */
    size_t nul_at; /* 1-based column of the first NUL byte; 0 when none */
} LineRead;

/* Reads one line of f into buf (cap >= 2 bytes, NUL-terminated; a NUL byte
 * of the line stays in it, see nul_at) and fills *r.  Returns 0, or -1 at the
 * end of input with nothing read (ferror(f) tells a read error from the end).
 * When r->too_long, buf holds the line's first cap - 1 bytes. */
int line_read(FILE *f, char *buf, size_t cap, LineRead *r);

/* Why a line read is refused, naming what it is: "statement holds a NUL
 * byte (0x00) at column 6", "statement too long (at most 1024 characters)"
 * (max: the cap - 1 given to line_read).  Returns 1 and writes err when the
 * line is refused, else 0. */
int line_refused(const LineRead *r, const char *what, size_t max, char *err, size_t errlen);

#endif
