/* mla.c - multi-head latent attention, expanded and absorbed (see mla.h).
 *
 * Checked at the source (2026-12): deepseek-ai/DeepSeek-V3 inference/model.py
 * class MLA: kv = wkv_a(x) split into kv (kv_lora_rank) and k_pe
 * (qk_rope_head_dim), k_pe = apply_rotary_emb(k_pe.unsqueeze(2)), one k_pe
 * for every head; attn_impl "naive" expands k and v with wkv_b, "absorb"
 * folds wkv_b's K half into q (einsum "bshd,hdc->bshc") and dots it with the
 * cached kv, scores scaled by softmax_scale = qk_head_dim ** -0.5 with
 * qk_head_dim = qk_nope_head_dim + qk_rope_head_dim.  The toy leaves out the
 * norms and q's low-rank path (q_lora_rank), as DeepSeek-V2-Lite does for q.
 */
#include "engine/mla.h"

#include "base/errbuf.h"

#include <math.h>
#include <stdlib.h>

const char *const mla_tensor_names[ML_COUNT] = {
    "W_DKV", "W_UK",   "W_UV", "W_KR",   "W_QR", "c_kv", "k_pe",       "q_nope",
    "q_pe",  "k_nope", "v",    "scores", "attn", "out",  "q_absorbed", "scores_absorbed",
};

int mla_rope_dim_default(int d_head)
{
    int dr = d_head / 2;
    dr -= dr % 2;
    return dr < 2 ? 2 : dr;
}

size_t mla_cache_bytes_per_token(int rank, int rope_dim)
{
    return ((size_t)rank + (size_t)rope_dim) * sizeof(float);
}

size_t mla_mha_bytes_per_token(const MhaConfig *c)
{
    return 2 * (size_t)c->d_model * sizeof(float); /* 2 x H x dh x 4 */
}

int mla_check(const MhaConfig *c, int rank, int rope_dim, char *err, size_t errlen)
{
    (void)c;
    if (rank < 1 || rank > MLA_MAX_RANK) {
        err_set(err, errlen, "--mla %d: the latent rank must be between 1 and %d", rank,
                MLA_MAX_RANK);
        return -1;
    }
    if (rope_dim < 2 || rope_dim > MLA_MAX_RANK) {
        err_set(err, errlen, "--rope-dim %d: must be between 2 and %d", rope_dim, MLA_MAX_RANK);
        return -1;
    }
    if (rope_dim % 2) {
        err_set(err, errlen, "--rope-dim %d: must be even (RoPE turns pairs of floats)", rope_dim);
        return -1;
    }
    return 0;
}

void mla_free(Mla *a)
{
    if (!a) return;
    for (int i = 0; i < ML_COUNT; i++)
        tensor_free(a->t[i]);
    free(a);
}

static Tensor *draw(Engine *e, MhaRng *r, int rows, int cols)
{
    Tensor *t = tensor_zeros(e, 2, (int[]){rows, cols});
    if (t)
        for (size_t i = 0; i < t->st->n; i++)
            t->st->data[i] = mha_rng_tenth(r);
    return t;
}

/* (B, S, n*w) -> (B, n, S, w): split into n heads of w, heads first (views). */
static Tensor *heads_of(const Tensor *t, int n, int w, char *e, size_t el)
{
    Tensor *v = tensor_view(t, 4, (int[]){t->shape[0], t->shape[1], n, w}, e, el);
    Tensor *r = v ? tensor_transpose(v, 1, 2, e, el) : NULL;
    tensor_free(v);
    return r;
}

/* a (..., m, k) @ b (..., n, k)^T */
static Tensor *matmul_t(const Tensor *a, const Tensor *b, char *e, size_t el)
{
    Tensor *bt = tensor_transpose(b, -2, -1, e, el);
    Tensor *r = bt ? tensor_matmul(a, bt, e, el) : NULL;
    tensor_free(bt);
    return r;
}

/* k (B, S, w) seen by every head: (B, H, S, w), stride 0 on H (no copy). */
static Tensor *shared(const Tensor *k, int H, char *e, size_t el)
{
    Tensor *u = tensor_unsqueeze(k, 1, e, el);
    Tensor *r =
        u ? tensor_expand(u, 4, (int[]){k->shape[0], H, k->shape[1], k->shape[2]}, e, el) : NULL;
    tensor_free(u);
    return r;
}

/* a += b, both new contiguous outputs of one shape; then a *= s. */
static void add_scale(Tensor *a, const Tensor *b, float s)
{
    size_t n = tensor_numel(a);
    for (size_t i = 0; i < n; i++)
        a->st->data[i] = (a->st->data[i] + b->st->data[i]) * s;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        if (!(expr)) goto fail;                                                                    \
    } while (0)

Mla *mla_run(const Mha *m, int rank, int rope_dim, char *err, size_t errlen)
{
    const MhaConfig *c = &m->cfg;
    if (mla_check(c, rank, rope_dim, err, errlen)) return NULL;
    Mla *a = calloc(1, sizeof *a);
    if (!a) {
        err_set(err, errlen, "out of memory");
        return NULL;
    }
    char e[256] = "out of memory";
    const int B = c->batch, S = c->seq, D = c->d_model, H = c->heads, dh = m->d_head;
    const int R = rank, dr = rope_dim;
    a->rank = R, a->rope_dim = dr, a->d_head = dh;
    a->rope = c->rope != ROPE_OFF ? c->rope : ROPE_HALF;
    a->scale = 1.0f / sqrtf((float)(dh + dr));
    Tensor **t = a->t, *tmp[6] = {0};

    /* the run's stream, past x, W_Q, W_K, W_V, W_O */
    MhaRng rng;
    mha_rng_seed(&rng, c->seed);
    size_t skip = (size_t)B * S * D + 2 * (size_t)D * D + 2 * (size_t)D * c->kv_heads * dh;
    for (size_t i = 0; i < skip; i++)
        mha_rng_next(&rng);
    TRY(t[ML_W_DKV] = draw(m->eng, &rng, D, R));     /* (D, R) */
    TRY(t[ML_W_UK] = draw(m->eng, &rng, R, H * dh)); /* (R, H*dh) */
    TRY(t[ML_W_UV] = draw(m->eng, &rng, R, H * dh)); /* (R, H*dh) */
    TRY(t[ML_W_KR] = draw(m->eng, &rng, D, dr));     /* (D, dr) */
    TRY(t[ML_W_QR] = draw(m->eng, &rng, D, H * dr)); /* (D, H*dr) */
    if (mha_weights_scaled(c)) /* the run's rule for its weights: tenths / sqrt(D) */
        for (int i = ML_W_DKV; i <= ML_W_QR; i++)
            tensor_scale_(t[i], 1.0f / sqrtf((float)D));

    const Tensor *x = m->t[MT_X];
    /* the cache: one latent and one rotated key per token, for all heads */
    TRY(t[ML_C_KV] = tensor_matmul(x, t[ML_W_DKV], e, sizeof e)); /* (B, S, R) */
    TRY(tmp[0] = tensor_matmul(x, t[ML_W_KR], e, sizeof e));      /* (B, S, dr) */
    TRY(t[ML_K_PE] = rope_apply(tmp[0], a->rope, c->rope_theta, e, sizeof e));

    /* the queries: the pipeline's Q, and H rotated parts */
    TRY(tmp[1] = tensor_matmul(x, m->t[MT_W_Q], e, sizeof e)); /* (B, S, D) */
    TRY(t[ML_Q_NOPE] = heads_of(tmp[1], H, dh, e, sizeof e));  /* (B, H, S, dh) */
    TRY(tmp[2] = tensor_matmul(x, t[ML_W_QR], e, sizeof e));   /* (B, S, H*dr) */
    TRY(tmp[3] = heads_of(tmp[2], H, dr, e, sizeof e));        /* (B, H, S, dr) view */
    TRY(t[ML_Q_PE] = rope_apply(tmp[3], a->rope, c->rope_theta, e, sizeof e));
    for (int i = 0; i < 4; i++)
        tensor_free(tmp[i]), tmp[i] = NULL;

    /* expanded: K and V of every head made back from the latent */
    TRY(tmp[0] = tensor_matmul(t[ML_C_KV], t[ML_W_UK], e, sizeof e)); /* (B, S, H*dh) */
    TRY(t[ML_K_NOPE] = heads_of(tmp[0], H, dh, e, sizeof e));         /* (B, H, S, dh) */
    TRY(tmp[1] = tensor_matmul(t[ML_C_KV], t[ML_W_UV], e, sizeof e));
    TRY(t[ML_V] = heads_of(tmp[1], H, dh, e, sizeof e)); /* (B, H, S, dh) */
    TRY(tmp[2] = shared(t[ML_K_PE], H, e, sizeof e));    /* (B, H, S, dr) stride 0 */
    TRY(t[ML_SCORES] = matmul_t(t[ML_Q_NOPE], t[ML_K_NOPE], e, sizeof e)); /* (B, H, S, S) */
    TRY(tmp[3] = matmul_t(t[ML_Q_PE], tmp[2], e, sizeof e));
    add_scale(t[ML_SCORES], tmp[3], a->scale);
    TRY(t[ML_ATTN] = tensor_clone_compute(t[ML_SCORES]));
    if (c->causal) tensor_causal_mask_(t[ML_ATTN]);
    mha_band_mask_(t[ML_ATTN], c->window, 0);
    tensor_softmax_lastdim_(t[ML_ATTN]);
    tensor_free(tmp[3]), tmp[3] = NULL;
    TRY(tmp[3] = tensor_matmul(t[ML_ATTN], t[ML_V], e, sizeof e)); /* (B, H, S, dh) */
    TRY(tmp[4] = tensor_transpose(tmp[3], 1, 2, e, sizeof e));     /* (B, S, H, dh) */
    TRY(tmp[5] = tensor_contiguous(tmp[4]));
    tensor_free(tmp[4]);
    TRY(tmp[4] = tensor_view(tmp[5], 3, (int[]){B, S, D}, e, sizeof e));
    TRY(t[ML_OUT] = tensor_matmul(tmp[4], m->t[MT_W_O], e, sizeof e)); /* (B, S, D) */
    for (int i = 0; i < 6; i++)
        tensor_free(tmp[i]), tmp[i] = NULL;

    /* absorbed: W_UK's head slices folded into q, dotted with c_kv itself */
    TRY(tmp[0] = tensor_view(t[ML_W_UK], 3, (int[]){R, H, dh}, e, sizeof e));
    TRY(tmp[1] = tensor_transpose(tmp[0], 0, 1, e, sizeof e)); /* (H, R, dh) */
    TRY(tmp[2] = tensor_unsqueeze(tmp[1], 0, e, sizeof e));    /* (1, H, R, dh) */
    TRY(tmp[3] = tensor_expand(tmp[2], 4, (int[]){B, H, R, dh}, e, sizeof e));
    TRY(t[ML_Q_ABSORBED] = matmul_t(t[ML_Q_NOPE], tmp[3], e, sizeof e)); /* (B, H, S, R) */
    for (int i = 0; i < 4; i++)
        tensor_free(tmp[i]), tmp[i] = NULL;
    TRY(tmp[0] = shared(t[ML_C_KV], H, e, sizeof e)); /* (B, H, S, R) stride 0 */
    TRY(tmp[1] = shared(t[ML_K_PE], H, e, sizeof e));
    TRY(t[ML_SCORES_ABSORBED] = matmul_t(t[ML_Q_ABSORBED], tmp[0], e, sizeof e));
    TRY(tmp[2] = matmul_t(t[ML_Q_PE], tmp[1], e, sizeof e));
    add_scale(t[ML_SCORES_ABSORBED], tmp[2], a->scale);
    for (int i = 0; i < 3; i++)
        tensor_free(tmp[i]), tmp[i] = NULL;
    return a;
fail:
    for (int i = 0; i < 6; i++)
        tensor_free(tmp[i]);
    mla_free(a);
    err_set(err, errlen, "%s", e);
    return NULL;
}
