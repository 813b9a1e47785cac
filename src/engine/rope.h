/* rope.h - rotary position embedding (RoPE) on the tensor engine.
 *
 * The rotation of src/README.md, The pipeline, step "rope": position p is
 * the token index 0..S-1, inv_freq[i] = theta^(-2i/dh) for i = 0..dh/2-1 and
 * pair i turns by the angle p * inv_freq[i].  The two layouts differ only in
 * which two floats of a head's dh form pair i:
 *   ROPE_HALF        (x[i], x[i + dh/2])  GPT-NeoX, HF `rotate_half`
 *   ROPE_INTERLEAVED (x[2i], x[2i + 1])   Meta's llama, GPT-J
 * and both compute out_a = a cos - b sin, out_b = b cos + a sin.
 */
#ifndef MHAVIZ_ROPE_H
#define MHAVIZ_ROPE_H

#include <stddef.h>

#include "engine/tensor.h"

typedef enum { ROPE_OFF, ROPE_HALF, ROPE_INTERLEAVED, ROPE_LAYOUTS } RopeLayout;

#define ROPE_THETA_DEFAULT 10000.0
#define ROPE_THETA_MAX 1e12 /* the flag's bound: far above Llama 3's 500000 */

/* "half", "interleaved"; "off" for ROPE_OFF.  Static strings. */
const char *rope_layout_name(RopeLayout l);
/* The layout a flag value names ("half", "interleaved"), or -1. */
int rope_layout_of(const char *name);

/* inv_freq[i] = theta^(-2i/dh), computed in float32 as PyTorch does:
 * 1 / theta ** (arange(0, dh, 2).float() / dh). */
float rope_inv_freq(int i, int dh, double theta);

/* Pair i's angle at position pos: (float)pos * rope_inv_freq(i, dh, theta),
 * float32 as torch.outer(t, inv_freq) makes it.  Every rotation here turns
 * by it. */
float rope_angle(int pos, int i, int dh, double theta);

/* The table HF's rotary embedding makes (sine 0: cos, 1: sin), a new
 * contiguous (seq, dh) float32 tensor in eng: row p, float j holds
 * cos/sin(rope_angle(p, pair of j)), so each angle sits at both floats of
 * its pair: emb = cat((freqs, freqs), dim=-1) in half, each angle twice
 * (repeat_interleave(2)) in interleaved.  x * cos + rotate(x) * sin then
 * gives rope_apply's bits.  A fill, not a copy.  NULL for a bad size or
 * layout, past eng's budget or out of memory. */
Tensor *rope_table(Engine *eng, int seq, int dh, RopeLayout l, double theta, int sine);

/* The pair of float j of a head (0 <= j < dh, dh even): its pair index i
 * (the angle's i) and the index of its partner.  In half the partner sits
 * dh/2 floats away, in interleaved it is the next (or previous) float. */
int rope_pair_of(RopeLayout l, int j, int dh);
int rope_partner(RopeLayout l, int j, int dh);

/* Rotates one head vector v (dh floats, contiguous, dh even) in place as the
 * token at position pos.  For the decode loop and the tests. */
void rope_rotate(float *v, int dh, int pos, RopeLayout l, double theta);

/* A new contiguous tensor: x (..., S, dh) rotated, the position of a row being
 * its index along axis -2.  x may have any strides (the heads-first view).
 * The output is a new buffer whose bytes the engine counts as copied (it is
 * x's floats rearranged in pairs).  NULL with err set when x is not at least
 * 2-D, dh is odd, or memory runs out. */
Tensor *rope_apply(const Tensor *x, RopeLayout l, double theta, char *err, size_t errlen);

#endif
