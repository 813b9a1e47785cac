/* flash.h - the Tiles frame: FlashAttention-2's loop drawn as memory.  The
 * head's S x S scores as a map of tiles (the one on chip now lit, the ones
 * streamed past, to come, skipped by causal), the tile's own scores, m, l and
 * O of its rows after it, and the HBM bytes naive against flash, toy and real
 * sizes.  Pure drawing on a canvas; the Tiles screen (ui/flash_screen.c) and
 * tests use it. */
#ifndef MHAVIZ_DRAW_FLASH_H
#define MHAVIZ_DRAW_FLASH_H

#include "draw/canvas.h"
#include "engine/flash.h"

/* Draws the whole frame of f's current tile (before the first tile and after
 * the last too) into rows 0 .. c->h - 2 (the status line is the caller's).
 * c is at least 80x24.  large (--large): large print for a projector, the
 * map's tiles twice as wide. */
void flash_draw(Canvas *c, const Flash *f, int large);

#endif
