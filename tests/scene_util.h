/* scene_util.h - reading a drawn canvas back in tests: rows as text, where a
 * string sits, which cells carry a style. */
#ifndef MHAVIZ_SCENE_UTIL_H
#define MHAVIZ_SCENE_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "draw/canvas.h"

/* Row y as ASCII (one byte per cell, so byte index == column). */
static inline char *su_row(const Canvas *c, int y, char *buf, size_t n)
{
    return canvas_row(c, y, 1, buf, n);
}

/* First row whose ASCII text contains s, from row `from`; -1 if none. */
static inline int su_find_row(const Canvas *c, const char *s, int from)
{
    char buf[1024];
    for (int y = from; y < c->h; y++)
        if (strstr(su_row(c, y, buf, sizeof buf), s)) return y;
    return -1;
}

/* Column of s in row y (ASCII), -1 if absent. */
static inline int su_find_col(const Canvas *c, int y, const char *s)
{
    char buf[1024];
    char *p = strstr(su_row(c, y, buf, sizeof buf), s);
    return p ? (int)(p - buf) : -1;
}

/* Number of cells with style st (in the whole canvas), and the first one. */
static inline int su_count_style(const Canvas *c, int st, int *fx, int *fy)
{
    int n = 0;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++)
            if (canvas_at(c, x, y)->style == st) {
                if (n == 0 && fx) *fx = x, *fy = y;
                n++;
            }
    return n;
}

/* Columns a frame uses, as the eye sees it: each row from its first to its
 * last non-blank cell, the union over rows y0..y1-1 (a title row whose
 * counter sits flush right would count everything, so callers leave it out). */
static inline int su_cols_used(const Canvas *c, int y0, int y1)
{
    char *used = calloc((size_t)c->w, 1);
    int n = 0;
    if (!used) return 0;
    for (int y = y0; y < y1 && y < c->h; y++) {
        int a = -1, b = -1;
        for (int x = 0; x < c->w; x++)
            if (canvas_at(c, x, y)->ch != ' ') {
                if (a < 0) a = x;
                b = x;
            }
        for (int x = a; a >= 0 && x <= b; x++)
            used[x] = 1;
    }
    for (int x = 0; x < c->w; x++)
        n += used[x];
    free(used);
    return n;
}

#endif
