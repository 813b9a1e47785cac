/* variants.h - MHA | GQA | MQA side by side for one configuration: the K/V
 * shapes, which query heads share which kv head, expand (a view) against
 * repeat_interleave (a copy), and K's buffer as a candy bar.  Pure drawing on
 * a canvas; used by the Variants screen and by lesson pages (@view variants). */
#ifndef MHAVIZ_VARIANTS_H
#define MHAVIZ_VARIANTS_H

#include "draw/canvas.h"
#include "engine/mha.h"

typedef struct VariantRuns {
    Mha *run[3]; /* MHA, GQA, MQA; NULL where the variant does not exist */
    int gqa_kv;  /* kv heads of the GQA column; 0 when heads has no divisor in (1, heads) */
} VariantRuns;

/* The divisor of heads in (1, heads) after (dir > 0) or before (dir < 0) kv,
 * wrapping around; 0 when heads has none (1, 2, 3, 5, 7 ...). */
int variants_next_gqa(int heads, int kv, int dir);

/* Replaces v's runs with cfg as MHA, GQA and MQA.  The GQA column uses
 * gqa_kv when it divides heads strictly between 1 and heads, else cfg's own
 * kv_heads when that does, else the largest such divisor. */
void variants_run(VariantRuns *v, const MhaConfig *cfg, int gqa_kv);
void variants_free_runs(VariantRuns *v);

/* The latent rank the screens give MLA's strip: d_model / 2, at least 1
 * (export --mla R takes any).  Its rope_dim is mla_rope_dim_default's. */
int variants_mla_rank(const MhaConfig *cfg);

/* MLA's latent cache beside the per-head K/V strips it replaces, for one
 * token of cfg: MHA's K and V of every head (2 x H x dh floats, a colour a
 * head), this config's own K/V when it shares heads (GQA, MQA), and MLA's
 * c_kv (rank floats) then k_pe (rope_dim), a cell a float (or a few, said,
 * when w is short), each with its bytes (float32).  tokens > 0 adds a line
 * with the cache of that many tokens in each form.  Draws rows y .. y + 5
 * from x, w columns wide; returns the rows used. */
int variants_draw_mla_strip(Canvas *c, int x, int y, int w, const MhaConfig *cfg, int rank,
                            int rope_dim, int tokens);

/* Draws the three columns in the rectangle (x, y, w, h). */
void variants_draw_panel(Canvas *c, int x, int y, int w, int h, const VariantRuns *v);

#endif
