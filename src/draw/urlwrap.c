/* urlwrap.c - wrap text at spaces, and over-long words only after a '/'
 * (see urlwrap.h).  The breaks are '\n's put into a copy of the text, which
 * canvas_wrap then honours; a long word always starts its own line there. */
#include "draw/urlwrap.h"

#include <stdlib.h>
#include <string.h>

/* A copy of text (malloc'd; NULL when out of memory) in which every word
 * longer than w has a '\n' after the last '/' that keeps each piece within
 * w columns (bytes: URLs are ASCII). */
static char *break_long_words(const char *text, int w)
{
    size_t len = strlen(text);
    char *out = malloc(2 * len + 1), *o = out; /* at most one '\n' per byte */
    if (!out) return NULL;
    const char *p = text;
    while (*p) {
        if (*p == ' ' || *p == '\n') {
            *o++ = *p++;
            continue;
        }
        const char *end = p + strcspn(p, " \n");
        while (end - p > w) { /* too wide: cut after the last '/' that fits */
            const char *cut = NULL;
            for (const char *q = p; q < p + w; q++)
                if (*q == '/') cut = q + 1;
            if (!cut) break; /* no '/' in reach: canvas_wrap splits it */
            memcpy(o, p, (size_t)(cut - p));
            o += cut - p;
            *o++ = '\n';
            p = cut;
        }
        memcpy(o, p, (size_t)(end - p));
        o += end - p;
        p = end;
    }
    *o = 0;
    return out;
}

int urlwrap_draw(Canvas *c, int x, int y, int w, int maxh, const char *text, Style st)
{
    if (w < 1) return 0;
    char *t = break_long_words(text, w);
    int n = canvas_wrap(c, x, y, w, maxh, t ? t : text, st);
    free(t);
    return n;
}

int urlwrap_lines(const char *text, int w, int maxh)
{
    Canvas *scratch = w > 0 && maxh > 0 ? canvas_new(w, maxh) : NULL;
    int n = scratch ? urlwrap_draw(scratch, 0, 0, w, maxh, text, ST_NORMAL) : 1;
    canvas_free(scratch);
    return n;
}
