/* play_draw.h - a playground result drawn on a canvas: its numbers, and the
 * candy bar of its storage with the elements the tensor reads lit in the
 * order it reads them. */
#ifndef MHAVIZ_PLAY_DRAW_H
#define MHAVIZ_PLAY_DRAW_H

#include "draw/canvas.h"
#include "engine/play.h"

/* Draws result r (of statement stmt) in the box (x, y, w, h): for a tensor,
 * shape, strides, offset, storage, dtype, contiguity, view or copy with the
 * bytes copied, the names sharing the storage, then the candy bar; for a
 * query its value; for an error the message (and a caret under a syntax
 * error's column).  Returns the rows used. */
int play_draw_result(Canvas *c, int x, int y, int w, int h, const PlayResult *r, const char *stmt);

/* The candy bar alone: t's storage from the cell that holds its first read
 * element's row, cells `cw` columns wide, two rows per line of cells (the
 * storage offset, then the order in which t reads it: 0, 1, 2 ...; '.' for
 * a cell t does not read).  Returns the rows used (at most maxh). */
int play_draw_bar(Canvas *c, int x, int y, int w, int maxh, const Tensor *t);

#endif
