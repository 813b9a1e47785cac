/* decode.h - the decode step drawn: the KV cache as its storage filling up,
 * the new token's cells landing, the read view and its GQA expand, one
 * scores row per query head, and the bytes written and read.  Pure drawing
 * on a canvas; the Decode screen (ui/decode.c) and tests use it. */
#ifndef MHAVIZ_DRAW_DECODE_H
#define MHAVIZ_DRAW_DECODE_H

#include "draw/canvas.h"
#include "engine/decode.h"

/* Draws the whole frame of d's last step into rows 0 .. c->h - 2 (the status
 * line is the caller's).  check is the largest difference between this
 * step's output rows and the full causal pass (shown as the proof line);
 * a negative check leaves that line out.  large (--large): large print for
 * a projector, the cache's cells twice as wide where the width has room. */
void decode_draw(Canvas *c, const Decode *d, double check, int large);

/* The same frame with MLA's latent cache strip (rank, rope_dim) in place of
 * the scores: one token's c_kv + k_pe beside the per-head K/V it replaces,
 * and the cache of d's tokens in each form (draw/variants.h). */
void decode_draw_mla(Canvas *c, const Decode *d, double check, int rank, int rope_dim, int large);

#endif
