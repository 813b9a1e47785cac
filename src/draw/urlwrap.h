/* urlwrap.h - word wrap for text that holds URLs and paths (a preset's
 * source): like canvas_wrap, but a word wider than the column breaks only
 * after a '/', never inside a name ("blob/mai" + "n/config.json" was the
 * bug).  A word with no '/' that fits is split as canvas_wrap splits it. */
#ifndef MHAVIZ_DRAW_URLWRAP_H
#define MHAVIZ_DRAW_URLWRAP_H

#include "draw/canvas.h"

/* Draws text wrapped in the w-wide column at (x, y), at most maxh lines
 * (the last ends in "..." when more were needed); returns the lines used. */
int urlwrap_draw(Canvas *c, int x, int y, int w, int maxh, const char *text, Style st);

/* The lines urlwrap_draw takes for text at width w, at most maxh (measured
 * on a scratch canvas); 1 when out of memory. */
int urlwrap_lines(const char *text, int w, int maxh);

#endif
