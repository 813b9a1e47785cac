/* mla.h - DeepSeek's multi-head latent attention (MLA) as memory, on the
 * tensor engine, beside a run of the pipeline (engine/mha.h).
 *
 * MLA caches one latent per token instead of K and V per head: c_kv (R
 * floats) and the shared rotated key k_pe (dr floats).  K and V are made
 * back from the latent by W_UK and W_UV.  With dh = D / H, over the run's
 * x, W_Q and W_O, and RoPE in the run's layout (half when the run has it
 * off), at the run's theta:
 *
 *   c_kv   = x @ W_DKV                                  (B, S, R)   the cache
 *   k_pe   = rope(x @ W_KR)                             (B, S, dr)  the cache
 *   q_nope = (x @ W_Q).view(B, S, H, dh).transpose(1, 2)          (B, H, S, dh)
 *   q_pe   = rope((x @ W_QR).view(B, S, H, dr).transpose(1, 2))   (B, H, S, dr)
 *   k_nope = (c_kv @ W_UK).view(B, S, H, dh).transpose(1, 2)      (B, H, S, dh)
 *   v      = (c_kv @ W_UV).view(B, S, H, dh).transpose(1, 2)      (B, H, S, dh)
 *   scores = (q_nope @ k_nope^T + q_pe @ k_pe.unsqueeze(1)^T) / sqrt(dh + dr)
 *   attn   = softmax(scores) (the run's causal mask and window)   (B, H, S, S)
 *   out    = (attn @ v).transpose(1, 2).contiguous().view(B, S, D) @ W_O
 *
 * and the absorbed form decode kernels use, which never expands K:
 *
 *   q_absorbed      = q_nope @ W_UK.view(R, H, dh).permute(1, 2, 0)  (B, H, S, R)
 *   scores_absorbed = (q_absorbed @ c_kv.unsqueeze(1)^T + q_pe @ k_pe^T)
 *                     / sqrt(dh + dr)                                 (B, H, S, S)
 *
 * equal to scores up to rounding.  The weights W_DKV (D, R), W_UK (R, H*dh),
 * W_UV (R, H*dh), W_KR (D, dr), W_QR (D, H*dr) are drawn in that order from
 * the run's seeded stream (mha_rng_tenth) right after W_O, so the run's own
 * tensors are the same with MLA or without.
 */
#ifndef MHAVIZ_MLA_H
#define MHAVIZ_MLA_H

#include <stddef.h>

#include "engine/mha.h"

#define MLA_MAX_RANK 1024

/* clang-format off */
enum {
    ML_W_DKV, ML_W_UK, ML_W_UV, ML_W_KR, ML_W_QR,
    ML_C_KV, ML_K_PE, ML_Q_NOPE, ML_Q_PE, ML_K_NOPE, ML_V,
    ML_SCORES, ML_ATTN, ML_OUT,
    ML_Q_ABSORBED, ML_SCORES_ABSORBED,
    ML_COUNT
};
/* clang-format on */
extern const char *const mla_tensor_names[ML_COUNT]; /* "W_DKV", ..., "scores_absorbed" */

typedef struct Mla {
    int rank, rope_dim, d_head; /* R, dr, dh */
    RopeLayout rope;            /* the layout of k_pe and q_pe */
    float scale;                /* 1 / sqrt(dh + dr) */
    Tensor *t[ML_COUNT];        /* owned */
} Mla;

/* --rope-dim's default: d_head / 2 rounded down to an even number, at
 * least 2. */
int mla_rope_dim_default(int d_head);

/* 0 when rank R and rope_dim dr are valid for config c, else -1 and one line
 * naming the flag: "--mla 0: the latent rank must be between 1 and 1024",
 * "--rope-dim 3: must be even (RoPE turns pairs of floats)". */
int mla_check(const MhaConfig *c, int rank, int rope_dim, char *err, size_t errlen);

/* Runs MLA over run m (its x, W_Q, W_O, seed, mask and RoPE settings); m is
 * only read and may be freed after.  NULL with err set on a bad rank or
 * rope_dim (mla_check) or out of memory.  Free with mla_free. */
Mla *mla_run(const Mha *m, int rank, int rope_dim, char *err, size_t errlen);
void mla_free(Mla *a);

/* Bytes one token adds to the cache (float32): MLA's (R + dr) x 4 against
 * MHA's 2 x H x dh x 4 for K and V of every head. */
size_t mla_cache_bytes_per_token(int rank, int rope_dim);
size_t mla_mha_bytes_per_token(const MhaConfig *c);

#endif
