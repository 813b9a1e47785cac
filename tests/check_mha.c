/* check_mha.c - the attention pipeline and the claims the lessons make about it:
 * one big projection then a split equals per-head projections; MHA, GQA and MQA
 * equal a per-head loop written out by hand; expand and repeat_interleave give
 * the same scores but only the second copies; many heads are not one big head;
 * the trace says what src/README.md's table says; bad configurations are refused
 * with a message naming the flag.  Plus a 2-token example worked out by hand.
 *
 * Shapes: B batch, S seq, D d_model, H heads, KV kv_heads, G = H/KV, dh = D/H.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "engine/mha.h"
#include "engine/tensor.h"
#include "engine_testutil.h"

static char err[256];
static Engine *E; /* for the tensors the tests make by hand */

static MhaConfig cfg_of(int B, int S, int D, int H, int KV, int causal, uint32_t seed)
{
    MhaConfig c = {.batch = B,
                   .seq = S,
                   .d_model = D,
                   .heads = H,
                   .kv_heads = KV,
                   .causal = causal,
                   .seed = seed};
    return c;
}

/* The configurations every claim is checked on: MHA, GQA, MQA, causal, batch 2. */
static const MhaConfig *configs(int *n)
{
    static MhaConfig c[7];
    c[0] = mha_config_default();          /* MHA, 2 heads */
    c[1] = cfg_of(1, 5, 12, 6, 2, 1, 3);  /* GQA, causal: the example */
    c[2] = cfg_of(2, 4, 8, 4, 1, 0, 7);   /* MQA, batch 2 */
    c[3] = cfg_of(2, 3, 12, 4, 2, 0, 11); /* GQA, batch 2 */
    c[4] = cfg_of(1, 6, 16, 4, 4, 1, 42); /* MHA, causal */
    c[5] = cfg_of(3, 2, 6, 3, 1, 1, 0);   /* MQA, causal, seed 0 */
    c[6] = cfg_of(1, 3, 4, 1, 1, 0, 5);   /* one head */
    *n = 7;
    return c;
}

static Mha *run_ok(const MhaConfig *c)
{
    Mha *m = mha_run(c, err, sizeof err);
    ck_assert_msg(m != NULL, "mha_run: %s", err);
    return m;
}

static float at(const Mha *m, int name, const int *idx)
{
    return tensor_get(m->t[name], idx);
}

/* The same (name, index) in the weights: W[i][j] through the engine. */
static float w_at(const Mha *m, int name, int i, int j)
{
    return tensor_get(m->t[name], IDX(i, j));
}

/* A narrow() view: elements [start, start+len) of the last axis of t. */
static Tensor *cols_of(const Tensor *t, int start, int len)
{
    Tensor *v = tensor_view(t, t->ndim, t->shape, err, sizeof err); /* same storage */
    ck_assert_ptr_nonnull(v);
    v->offset += (size_t)((long)start * t->strides[t->ndim - 1]);
    v->shape[t->ndim - 1] = len;
    return v;
}

/* ------------------------------------------------ a worked tiny example --- */

/* S = 2 tokens, D = 2, H = 1 (dh = 2), every number by hand:
 *
 *   x   = [[1, 0],      W_Q = W_K = I     W_V = [[1, 2],     W_O = [[0, 1],
 *          [1, 1]]                               [3, 4]]            [1, 0]]  (swap)
 *
 *   Q = K = x @ I = [[1, 0], [1, 1]]      V = x @ W_V = [[1, 2], [4, 6]]
 *   Q K^T = [[1*1 + 0*0, 1*1 + 0*1],  = [[1, 1],
 *            [1*1 + 1*0, 1*1 + 1*1]]     [1, 2]]
 *   scores = Q K^T / sqrt(2) = [[0.707107, 0.707107], [0.707107, 1.414214]]
 *   softmax row 0: equal scores -> [0.5, 0.5]
 *   softmax row 1: e^0.707107 = 2.028115, so [1, 2.028115] / 3.028115
 *                = [0.330238, 0.669762]
 *   A V row 0 = 0.5 [1, 2] + 0.5 [4, 6]                 = [2.5, 4]
 *   A V row 1 = 0.330238 [1, 2] + 0.669762 [4, 6]       = [3.009285, 4.679046]
 *   y = (A V) @ W_O swaps the columns: [[4, 2.5], [4.679046, 3.009285]]
 *
 * Causal: row 0 can only see token 0: softmax [1, 0], A V row 0 = [1, 2], y row 0 = [2, 1];
 * row 1 sees both, unchanged. */
static Tensor *tiny_attention(int causal, Tensor **attn_out)
{
    Tensor *x = tensor_from_data(E, DIMS(1, 2, 2), (float[]){1, 0, 1, 1});
    Tensor *wq = tensor_from_data(E, DIMS(2, 2), (float[]){1, 0, 0, 1});
    Tensor *wk = tensor_from_data(E, DIMS(2, 2), (float[]){1, 0, 0, 1});
    Tensor *wv = tensor_from_data(E, DIMS(2, 2), (float[]){1, 2, 3, 4});
    Tensor *wo = tensor_from_data(E, DIMS(2, 2), (float[]){0, 1, 1, 0});
    Tensor *q = tensor_matmul(x, wq, err, sizeof err), *k = tensor_matmul(x, wk, err, sizeof err);
    Tensor *v = tensor_matmul(x, wv, err, sizeof err);
    Tensor *qs = tensor_view(q, DIMS(1, 2, 1, 2), err, sizeof err); /* (B,S,H,dh) */
    Tensor *ks = tensor_view(k, DIMS(1, 2, 1, 2), err, sizeof err);
    Tensor *vs = tensor_view(v, DIMS(1, 2, 1, 2), err, sizeof err);
    Tensor *qh = tensor_transpose(qs, 1, 2, err, sizeof err); /* (B,H,S,dh) */
    Tensor *kh = tensor_transpose(ks, 1, 2, err, sizeof err);
    Tensor *vh = tensor_transpose(vs, 1, 2, err, sizeof err);
    Tensor *kt = tensor_transpose(kh, -2, -1, err, sizeof err);
    Tensor *sc = tensor_matmul(qh, kt, err, sizeof err); /* (1,1,2,2) */
    tensor_scale_(sc, 1.0f / sqrtf(2.0f));
    ck_assert_float_eq_tol(sc->st->data[0], 0.707107f, 1e-6);
    ck_assert_float_eq_tol(sc->st->data[1], 0.707107f, 1e-6);
    ck_assert_float_eq_tol(sc->st->data[2], 0.707107f, 1e-6);
    ck_assert_float_eq_tol(sc->st->data[3], 1.414214f, 1e-6);
    if (causal) tensor_causal_mask_(sc);
    tensor_softmax_lastdim_(sc);
    Tensor *ho = tensor_matmul(sc, vh, err, sizeof err);      /* (B,H,S,dh) */
    Tensor *mg = tensor_transpose(ho, 1, 2, err, sizeof err); /* (B,S,H,dh) */
    Tensor *mc = tensor_contiguous(mg);
    Tensor *cat = tensor_view(mc, DIMS(1, 2, 2), err, sizeof err); /* (B,S,D) */
    Tensor *y = tensor_matmul(cat, wo, err, sizeof err);
    ck_assert_ptr_nonnull(y);
    *attn_out = sc;
    Tensor *all[] = {x, wq, wk, wv, wo, q, k, v, qs, ks, vs, qh, kh, vh, kt, ho, mg, mc, cat};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        tensor_free(all[i]);
    return y;
}

START_TEST(test_tiny_by_hand)
{
    Tensor *a, *y = tiny_attention(0, &a);
    static const float want_a[4] = {0.5f, 0.5f, 0.330238f, 0.669762f};
    static const float want_y[4] = {4.0f, 2.5f, 4.679046f, 3.009285f};
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq_tol(a->st->data[i], want_a[i], 2e-6);
        ck_assert_float_eq_tol(y->st->data[i], want_y[i], 2e-5);
    }
    tensor_free(a);
    tensor_free(y);

    y = tiny_attention(1, &a);
    static const float want_ca[4] = {1.0f, 0.0f, 0.330238f, 0.669762f};
    static const float want_cy[4] = {2.0f, 1.0f, 4.679046f, 3.009285f};
    for (int i = 0; i < 4; i++) {
        ck_assert_float_eq_tol(a->st->data[i], want_ca[i], 2e-6);
        ck_assert_float_eq_tol(y->st->data[i], want_cy[i], 2e-5);
    }
    ck_assert_float_eq(a->st->data[1], 0.0f); /* exactly zero above the diagonal */
    tensor_free(a);
    tensor_free(y);
}
END_TEST

/* ------------------------------------------------------ the seed claims --- */

/* Claim: one big projection then a split equals per-head projections with the
 * column slices of W_Q (and of W_K / W_V for the kv heads). */
START_TEST(test_split_equals_per_head_projection)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        Mha *m = run_ok(&cs[ci]);
        const int B = cs[ci].batch, S = cs[ci].seq, H = cs[ci].heads, KV = cs[ci].kv_heads,
                  dh = m->d_head;
        const int proj[3][3] = {
            {MT_W_Q, MT_Q_HEADS, H}, {MT_W_K, MT_K_HEADS, KV}, {MT_W_V, MT_V_HEADS, KV}};
        for (int p = 0; p < 3; p++)
            for (int h = 0; h < proj[p][2]; h++) {
                /* x @ W[:, h*dh:(h+1)*dh]: (B,S,D) @ (D,dh), with the engine */
                Tensor *w = cols_of(m->t[proj[p][0]], h * dh, dh);
                Tensor *qh = tensor_matmul(m->t[MT_X], w, err, sizeof err);
                ck_assert_msg(qh != NULL, "%s", err);
                for (int b = 0; b < B; b++)
                    for (int s = 0; s < S; s++)
                        for (int d = 0; d < dh; d++)
                            ck_assert_msg(fabsf(tensor_get(qh, IDX(b, s, d)) -
                                                at(m, proj[p][1], IDX(b, h, s, d))) < 1e-5,
                                          "config %d, %s head %d, (%d,%d,%d)", ci,
                                          mha_tensor_names[proj[p][1]], h, b, s, d);
                tensor_free(qh);
                tensor_free(w);
            }
        mha_free(m);
    }
}
END_TEST

/* The whole attention, written as the per-head loop of a textbook, in double,
 * from the run's own x and weights; query head h reads kv head h / G. */
static void assert_matches_per_head_loop(const Mha *m, int ci)
{
    const MhaConfig *c = &m->cfg;
    const int B = c->batch, S = c->seq, D = c->d_model, H = c->heads, KV = c->kv_heads;
    const int dh = D / H, G = H / KV;
    double *q = calloc((size_t)S * D, sizeof *q), *k = calloc((size_t)S * KV * dh, sizeof *k);
    double *v = calloc((size_t)S * KV * dh, sizeof *v), *cat = calloc((size_t)S * D, sizeof *cat);
    double *a = calloc((size_t)S, sizeof *a);
    for (int b = 0; b < B; b++) {
        for (int s = 0; s < S; s++) {
            for (int j = 0; j < D; j++) {
                q[s * D + j] = 0;
                for (int i = 0; i < D; i++)
                    q[s * D + j] += (double)at(m, MT_X, IDX(b, s, i)) * w_at(m, MT_W_Q, i, j);
            }
            for (int j = 0; j < KV * dh; j++) {
                k[s * KV * dh + j] = v[s * KV * dh + j] = 0;
                for (int i = 0; i < D; i++) {
                    k[s * KV * dh + j] += (double)at(m, MT_X, IDX(b, s, i)) * w_at(m, MT_W_K, i, j);
                    v[s * KV * dh + j] += (double)at(m, MT_X, IDX(b, s, i)) * w_at(m, MT_W_V, i, j);
                }
            }
        }
        for (int h = 0; h < H; h++) {
            int kvh = h / G;
            ck_assert_int_eq(mha_kv_head_of(c, h), kvh);
            for (int i = 0; i < S; i++) {
                double mx = -INFINITY, sum = 0;
                for (int j = 0; j < S; j++) {
                    double dot = 0;
                    for (int d = 0; d < dh; d++)
                        dot += q[i * D + h * dh + d] * k[j * KV * dh + kvh * dh + d];
                    a[j] = dot / sqrt((double)dh);
                    ck_assert_msg(fabs(at(m, MT_SCORES, IDX(b, h, i, j)) - a[j]) < 1e-4,
                                  "config %d scores[%d,%d,%d,%d] = %g, by hand %g", ci, b, h, i, j,
                                  (double)at(m, MT_SCORES, IDX(b, h, i, j)), a[j]);
                    if (c->causal && j > i) a[j] = -INFINITY;
                    if (a[j] > mx) mx = a[j];
                }
                for (int j = 0; j < S; j++)
                    sum += a[j] = exp(a[j] - mx);
                for (int d = 0; d < dh; d++)
                    cat[i * D + h * dh + d] = 0;
                for (int j = 0; j < S; j++) {
                    a[j] /= sum;
                    ck_assert_msg(fabs(at(m, MT_ATTN, IDX(b, h, i, j)) - a[j]) < 1e-5,
                                  "config %d attn[%d,%d,%d,%d]", ci, b, h, i, j);
                    for (int d = 0; d < dh; d++)
                        cat[i * D + h * dh + d] += a[j] * v[j * KV * dh + kvh * dh + d];
                }
                for (int d = 0; d < dh; d++)
                    ck_assert_msg(
                        fabs(at(m, MT_HEAD_OUT, IDX(b, h, i, d)) - cat[i * D + h * dh + d]) < 1e-4,
                        "config %d head_out[%d,%d,%d,%d]", ci, b, h, i, d);
            }
        }
        for (int s = 0; s < S; s++)
            for (int j = 0; j < D; j++) {
                double y = 0;
                for (int i = 0; i < D; i++)
                    y += cat[s * D + i] * w_at(m, MT_W_O, i, j);
                ck_assert_msg(fabs(at(m, MT_CONCAT, IDX(b, s, j)) - cat[s * D + j]) < 1e-4,
                              "concat");
                ck_assert_msg(fabs(at(m, MT_OUT, IDX(b, s, j)) - y) < 1e-4,
                              "config %d out[%d,%d,%d] = %g, by hand %g", ci, b, s, j,
                              (double)at(m, MT_OUT, IDX(b, s, j)), y);
            }
    }
    free(a);
    free(cat);
    free(v);
    free(k);
    free(q);
}

/* Claims: kv_heads == heads is MHA, kv_heads == 1 is MQA, and between is GQA:
 * each equals the hand-written loop. */
START_TEST(test_pipeline_equals_per_head_loop)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        Mha *m = run_ok(&cs[ci]);
        assert_matches_per_head_loop(m, ci);
        mha_free(m);
    }
}
END_TEST

/* Claim: with kv_heads == 1 every query head's scores use K_heads[:, 0]. */
START_TEST(test_mqa_one_kv_head)
{
    MhaConfig c = cfg_of(2, 5, 16, 8, 1, 0, 9);
    Mha *m = run_ok(&c);
    SHAPE(m->t[MT_K_HEADS], 2, 1, 5, 2);
    SHAPE(m->t[MT_V_HEADS], 2, 1, 5, 2);
    SHAPE(m->t[MT_W_K], 16, 2);
    SHAPE(m->t[MT_K_EXPAND], 2, 1, 8, 5, 2);
    ck_assert_int_eq(m->t[MT_K_EXPAND]->strides[2], 0); /* 8 query heads, one K in memory */
    for (int b = 0; b < 2; b++)
        for (int h = 0; h < 8; h++) {
            ck_assert_int_eq(mha_kv_head_of(&c, h), 0);
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) {
                    double dot = 0;
                    for (int d = 0; d < 2; d++)
                        dot += (double)at(m, MT_Q_HEADS, IDX(b, h, i, d)) *
                               at(m, MT_K_HEADS, IDX(b, 0, j, d));
                    ck_assert(fabs(at(m, MT_SCORES, IDX(b, h, i, j)) - dot / sqrt(2.0)) < 1e-5);
                }
        }
    mha_free(m);
}
END_TEST

/* Claim: GQA by expand (a view) equals GQA by repeat_interleave (a copy), and
 * only the second copies. */
START_TEST(test_expand_equals_repeat_interleave)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        const MhaConfig *c = &cs[ci];
        Mha *m = run_ok(c);
        const int B = c->batch, S = c->seq, H = c->heads, KV = c->kv_heads, dh = m->d_head,
                  G = H / KV;
        /* the kept tensors: K_expand is a stride-0 view of K, K_repeat a copy */
        SHAPE(m->t[MT_K_EXPAND], B, KV, G, S, dh);
        if (G > 1) ck_assert_int_eq(m->t[MT_K_EXPAND]->strides[2], 0);
        ck_assert(tensor_same_storage(m->t[MT_K_EXPAND], m->t[MT_K]));
        ck_assert(tensor_same_storage(m->t[MT_V_EXPAND], m->t[MT_V]));
        SHAPE(m->t[MT_K_REPEAT], B, H, S, dh);
        ck_assert(!tensor_same_storage(m->t[MT_K_REPEAT], m->t[MT_K]));

        /* doing it again, counting: expand copies nothing ... */
        size_t before = m->eng->bytes_copied;
        Tensor *un = tensor_unsqueeze(m->t[MT_K_HEADS], 2, err, sizeof err);
        Tensor *ex = tensor_expand(un, DIMS(B, KV, G, S, dh), err, sizeof err);
        ck_assert_ptr_nonnull(ex);
        ck_assert_uint_eq(m->eng->bytes_copied - before, 0);
        /* ... repeat_interleave copies B*H*S*dh floats */
        Tensor *rep = tensor_repeat_interleave(m->t[MT_K_HEADS], G, 1, err, sizeof err);
        ck_assert_ptr_nonnull(rep);
        ck_assert_uint_eq(m->eng->bytes_copied - before, (size_t)B * H * S * dh * 4);
        ck_assert_uint_eq(rep->st->bytes_copied, (size_t)B * H * S * dh * 4);

        /* scores with the copy: Q_heads @ K_repeat^T / sqrt(dh) == scores (via expand) */
        Tensor *kt = tensor_transpose(m->t[MT_K_REPEAT], -2, -1, err, sizeof err);
        Tensor *sc = tensor_matmul(m->t[MT_Q_HEADS], kt, err, sizeof err);
        ck_assert_msg(sc != NULL, "%s", err);
        tensor_scale_(sc, 1.0f / sqrtf((float)dh));
        /* and the weighted sum: attn @ V_repeat == head_out */
        Tensor *ho = tensor_matmul(m->t[MT_ATTN], m->t[MT_V_REPEAT], err, sizeof err);
        ck_assert_msg(ho != NULL, "%s", err);
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++)
                for (int i = 0; i < S; i++) {
                    for (int j = 0; j < S; j++)
                        ck_assert_float_eq_tol(tensor_get(sc, IDX(b, h, i, j)),
                                               at(m, MT_SCORES, IDX(b, h, i, j)), 1e-5);
                    for (int d = 0; d < dh; d++) {
                        ck_assert_float_eq_tol(tensor_get(ho, IDX(b, h, i, d)),
                                               at(m, MT_HEAD_OUT, IDX(b, h, i, d)), 1e-5);
                        /* the expanded view and the copy hold the same values */
                        ck_assert_float_eq(tensor_get(ex, IDX(b, h / G, h % G, i, d)),
                                           tensor_get(rep, IDX(b, h, i, d)));
                        ck_assert_float_eq(at(m, MT_K_REPEAT, IDX(b, h, i, d)),
                                           at(m, MT_K_HEADS, IDX(b, h / G, i, d)));
                    }
                }
        Tensor *all[] = {un, ex, rep, kt, sc, ho};
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            tensor_free(all[i]);
        mha_free(m);
    }
}
END_TEST

/* Claim: multi-head attention is not one big head: the per-head softmax
 * differs from attn_single, the softmax of Q K_full^T / sqrt(D). */
START_TEST(test_heads_differ_from_one_big_head)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        const MhaConfig *c = &cs[ci];
        Mha *m = run_ok(c);
        const int B = c->batch, S = c->seq, D = c->d_model, H = c->heads, G = m->groups;
        SHAPE(m->t[MT_ATTN_SINGLE], B, 1, S, S);
        double maxdiff = 0, *row = calloc((size_t)S, sizeof *row);
        for (int b = 0; b < B; b++)
            for (int i = 0; i < S; i++) {
                /* by hand: Q row i (D wide) . K_full row j, where K_full[j] puts the kv
                 * head of every query head side by side: [K head h/G of token j, h < H] */
                double mx = -INFINITY, sum = 0;
                for (int j = 0; j < S; j++) {
                    double dot = 0;
                    for (int h = 0; h < H; h++)
                        for (int d = 0; d < m->d_head; d++)
                            dot += (double)at(m, MT_Q, IDX(b, i, h * m->d_head + d)) *
                                   at(m, MT_K_HEADS, IDX(b, h / G, j, d));
                    row[j] = c->causal && j > i ? -INFINITY : dot / sqrt((double)D);
                    if (row[j] > mx) mx = row[j];
                }
                for (int j = 0; j < S; j++)
                    sum += row[j] = exp(row[j] - mx);
                double total = 0;
                for (int j = 0; j < S; j++) {
                    float s1 = at(m, MT_ATTN_SINGLE, IDX(b, 0, i, j));
                    ck_assert_msg(fabs(s1 - row[j] / sum) < 1e-5,
                                  "config %d attn_single[%d,0,%d,%d] = %g, by hand %g", ci, b, i, j,
                                  (double)s1, row[j] / sum);
                    if (c->causal && j > i) ck_assert_float_eq(s1, 0.0f);
                    total += s1;
                    for (int h = 0; h < H; h++) {
                        double d = fabs(s1 - at(m, MT_ATTN, IDX(b, h, i, j)));
                        if (d > maxdiff) maxdiff = d;
                    }
                }
                ck_assert_double_eq_tol(total, 1.0, 1e-6);
            }
        free(row);
        /* one head over the full width is the same thing as one big head */
        if (H == 1)
            ck_assert_double_le(maxdiff, 1e-6);
        else if (S > 1)
            ck_assert_msg(maxdiff > 1e-3, "config %d: attn_single equals attn (max diff %g)", ci,
                          maxdiff);
        mha_free(m);
    }
}
END_TEST

/* Same seed -> the same numbers (bit for bit); another seed -> other numbers;
 * every input and weight a multiple of 0.1 in [-1, 1]. */
START_TEST(test_seed_determinism_and_tenths)
{
    MhaConfig c = cfg_of(2, 5, 12, 6, 2, 1, 3);
    Mha *a = run_ok(&c), *b = run_ok(&c);
    c.seed = 4;
    Mha *o = run_ok(&c);
    for (int i = 0; i < MT_COUNT; i++) {
        if (!a->t[i]) continue; /* Q_rope, K_rope: RoPE is off */
        size_t n = tensor_numel(a->t[i]);
        ck_assert_uint_eq(n, tensor_numel(b->t[i]));
        float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        tensor_to_array(a->t[i], x);
        tensor_to_array(b->t[i], y);
        ck_assert_msg(memcmp(x, y, n * sizeof *x) == 0, "%s differs between two runs of seed 3",
                      mha_tensor_names[i]);
        free(y);
        free(x);
    }
    const int drawn[] = {MT_X, MT_W_Q, MT_W_K, MT_W_V, MT_W_O};
    int seen[21] = {0};
    for (size_t k = 0; k < sizeof drawn / sizeof *drawn; k++) {
        const Tensor *t = a->t[drawn[k]], *u = o->t[drawn[k]];
        size_t n = tensor_numel(t), same = 0;
        for (size_t i = 0; i < n; i++) {
            float v = t->st->data[t->offset + i];
            float tenths = v * 10.0f;
            ck_assert_msg(v >= -1.0f && v <= 1.0f && fabsf(tenths - roundf(tenths)) < 1e-5f,
                          "%s[%zu] = %.9g is not a multiple of 0.1 in [-1, 1]",
                          mha_tensor_names[drawn[k]], i, (double)v);
            seen[(int)lroundf(tenths) + 10]++;
            same += v == u->st->data[u->offset + i];
        }
        /* another seed: most values differ (a match is a 1-in-21 chance each) */
        ck_assert_msg(same < n / 2, "%s: seed 3 and 4 agree on %zu of %zu values",
                      mha_tensor_names[drawn[k]], same, n);
    }
    for (int v = 0; v < 21; v++)
        ck_assert_msg(seen[v] > 0, "the value %d/10 was never drawn", v - 10);
    mha_free(o);
    mha_free(b);
    mha_free(a);
}
END_TEST

/* The blocked, threaded matmul gives the run the simple kernel gives, bit for
 * bit, in every tensor (sizes past the tile edges and the threading
 * threshold, GQA so that K and V are expanded views). */
START_TEST(test_blocked_kernel_same_run)
{
    MhaConfig c = cfg_of(2, 131, 200, 8, 2, 1, 5); /* x @ W_Q: 2*131*200*200 > 4M */
    tensor_matmul_mode(1, TENSOR_MATMUL_SIMPLE);
    Mha *a = run_ok(&c);
    tensor_matmul_mode(2, TENSOR_MATMUL_WIDEST);
    Mha *b = run_ok(&c);
    tensor_matmul_mode(0, TENSOR_MATMUL_WIDEST);
    for (int i = 0; i < MT_COUNT; i++) {
        ck_assert((a->t[i] == NULL) == (b->t[i] == NULL));
        if (!a->t[i]) continue; /* the RoPE tensors of a run without RoPE */
        size_t n = tensor_numel(a->t[i]);
        ck_assert_uint_eq(n, tensor_numel(b->t[i]));
        float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        tensor_to_array(a->t[i], x);
        tensor_to_array(b->t[i], y);
        ck_assert_msg(memcmp(x, y, n * sizeof *x) == 0, "%s: the blocked kernel differs",
                      mha_tensor_names[i]);
        free(y);
        free(x);
    }
    mha_free(b);
    mha_free(a);
}
END_TEST

/* The draws are the same on every machine: the first numbers of seed 1, which
 * tests/ref_mha.py reproduces independently in Python. */
START_TEST(test_seed1_golden_values)
{
    MhaRng r;
    mha_rng_seed(&r, 1);
    static const float first[8] = {-0.8f, -0.3f, 0.5f, 0.4f, 0.2f, -0.8f, -1.0f, -0.7f};
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(mha_rng_tenth(&r), first[i]);
    Mha *m = run_ok(
        &(MhaConfig){.batch = 1, .seq = 4, .d_model = 8, .heads = 2, .kv_heads = 2, .seed = 1});
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(m->t[MT_X]->st->data[i], first[i]);
    /* x takes the first B*S*D draws; W_Q starts right after */
    mha_rng_seed(&r, 1);
    for (int i = 0; i < 32; i++)
        mha_rng_tenth(&r);
    ck_assert_float_eq(w_at(m, MT_W_Q, 0, 0), mha_rng_tenth(&r));
    mha_free(m);
}
END_TEST

/* ---------------------------------------------------------------- trace --- */

START_TEST(test_trace_matches_design_table)
{
    static const struct {
        const char *name, *key;
        int output, inputs[4], n_in, is_view;
    } want[MS_COUNT] = {
        {"input", "input", MT_X, {0}, 0, 0},
        {"project", "project", MT_Q, {MT_X, MT_W_Q, MT_W_K, MT_W_V}, 4, 0},
        {"split heads", "split", MT_Q_SPLIT, {MT_Q}, 1, 1},
        {"heads first", "heads", MT_Q_HEADS, {MT_Q_SPLIT}, 1, 1},
        {"scores", "scores", MT_SCORES, {MT_Q_HEADS, MT_K_HEADS}, 2, 0},
        {"softmax", "softmax", MT_ATTN, {MT_SCORES}, 1, 0},
        {"weighted sum", "weighted", MT_HEAD_OUT, {MT_ATTN, MT_V_HEADS}, 2, 0},
        {"back to tokens", "back", MT_MERGED, {MT_HEAD_OUT}, 1, 1},
        {"make contiguous", "contiguous", MT_MERGED_CONTIG, {MT_MERGED}, 1, 0},
        {"concat", "concat", MT_CONCAT, {MT_MERGED_CONTIG}, 1, 1},
        {"output projection", "output", MT_OUT, {MT_CONCAT, MT_W_O}, 2, 0},
    };
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        const MhaConfig *c = &cs[ci];
        Mha *m = run_ok(c);
        /* with one head (or one token) the transposed heads already are
         * contiguous, so .contiguous() copies nothing, as in PyTorch */
        int copies = c->heads > 1 && c->seq > 1;
        for (int i = 0; i < MS_COUNT; i++) {
            const MhaStep *s = &m->steps[i];
            ck_assert_str_eq(s->name, want[i].name);
            ck_assert_str_eq(s->key, want[i].key);
            ck_assert_int_eq(mha_step_index(s->key), i);
            ck_assert_int_gt((int)strlen(s->code), 0);
            ck_assert_int_eq(s->output, want[i].output);
            ck_assert_int_eq(s->n_inputs, want[i].n_in);
            for (int k = 0; k < s->n_inputs; k++)
                ck_assert_int_eq(s->inputs[k], want[i].inputs[k]);
            int view = want[i].is_view || (i == MS_CONTIG && !copies);
            ck_assert_msg(s->is_view == view, "config %d step %d is_view %d", ci, i, s->is_view);
            /* is_view means: the output shares its first input's storage */
            if (s->n_inputs)
                ck_assert_int_eq(tensor_same_storage(m->t[s->output], m->t[s->inputs[0]]),
                                 s->is_view);
            size_t bytes =
                i == MS_CONTIG && copies ? (size_t)c->batch * c->seq * c->d_model * 4 : 0;
            ck_assert_msg(s->bytes_copied == bytes,
                          "config %d step %d copied %zu bytes, expected %zu", ci, i,
                          s->bytes_copied, bytes);
        }
        ck_assert_uint_eq(m->bytes_copied_total,
                          copies ? (size_t)c->batch * c->seq * c->d_model * 4 : 0);
        /* the views of step 2/3 and 7/9 live in the buffers they relabel */
        ck_assert(tensor_same_storage(m->t[MT_Q_HEADS], m->t[MT_Q]));
        ck_assert(tensor_same_storage(m->t[MT_K_HEADS], m->t[MT_K]));
        ck_assert(tensor_same_storage(m->t[MT_V_HEADS], m->t[MT_V]));
        ck_assert(tensor_same_storage(m->t[MT_MERGED], m->t[MT_HEAD_OUT]));
        ck_assert(tensor_same_storage(m->t[MT_CONCAT], m->t[MT_MERGED_CONTIG]));
        ck_assert(tensor_is_contiguous(m->t[MT_CONCAT]));
        mha_free(m);
    }
}
END_TEST

START_TEST(test_trace_strides_default)
{
    /* The default run, strides as PyTorch prints them for (1,4,8) with 2 heads of 4 */
    MhaConfig c = mha_config_default();
    Mha *m = run_ok(&c);
    STRIDES(m->t[MT_X], 32, 8, 1);
    STRIDES(m->t[MT_Q], 32, 8, 1);
    STRIDES(m->t[MT_Q_SPLIT], 32, 8, 4, 1);
    STRIDES(m->t[MT_Q_HEADS], 32, 4, 8, 1);
    ck_assert(!tensor_is_contiguous(m->t[MT_Q_HEADS]));
    STRIDES(m->t[MT_SCORES], 32, 16, 4, 1);
    STRIDES(m->t[MT_HEAD_OUT], 32, 16, 4, 1);
    STRIDES(m->t[MT_MERGED], 32, 4, 16, 1);
    ck_assert(!tensor_is_contiguous(m->t[MT_MERGED]));
    STRIDES(m->t[MT_MERGED_CONTIG], 32, 8, 4, 1);
    STRIDES(m->t[MT_CONCAT], 32, 8, 1);
    STRIDES(m->t[MT_Q_WRONG], 32, 16, 4, 1);
    ck_assert_int_eq(m->d_head, 4);
    ck_assert_int_eq(m->groups, 1);
    mha_free(m);

    /* batch 2, GQA 4 -> 2: (2,3,8), dh 2 */
    c = cfg_of(2, 3, 8, 4, 2, 0, 1);
    m = run_ok(&c);
    STRIDES(m->t[MT_Q_HEADS], 24, 2, 8, 1);
    STRIDES(m->t[MT_K], 12, 4, 1);
    STRIDES(m->t[MT_K_HEADS], 12, 2, 4, 1);
    STRIDES(m->t[MT_K_EXPAND], 12, 2, 0, 4, 1);
    STRIDES(m->t[MT_K_REPEAT], 24, 6, 2, 1);
    STRIDES(m->t[MT_MERGED], 24, 2, 6, 1);
    mha_free(m);
}
END_TEST

/* Q_wrong = Q.view(B, H, S, dh): the same bytes read as heads, so "head 0"
 * holds the first S*dh numbers of Q, tokens cut across heads. */
START_TEST(test_q_wrong_scrambles_tokens)
{
    MhaConfig c = cfg_of(1, 4, 8, 2, 2, 0, 1);
    Mha *m = run_ok(&c);
    ck_assert(tensor_same_storage(m->t[MT_Q_WRONG], m->t[MT_Q]));
    SHAPE(m->t[MT_Q_WRONG], 1, 2, 4, 4);
    int differ = 0;
    for (int h = 0; h < 2; h++)
        for (int s = 0; s < 4; s++)
            for (int d = 0; d < 4; d++) {
                int flat = (h * 4 + s) * 4 + d; /* row-major (1,2,4,4) over Q's bytes */
                ck_assert_float_eq(at(m, MT_Q_WRONG, IDX(0, h, s, d)),
                                   at(m, MT_Q, IDX(0, flat / 8, flat % 8)));
                differ += at(m, MT_Q_WRONG, IDX(0, h, s, d)) != at(m, MT_Q_HEADS, IDX(0, h, s, d));
            }
    ck_assert_int_gt(differ, 0);
    /* the honest (h=0, s=1) is Q[0, 1, 0:4]; the bug reads Q[0, 0, 4:8] there */
    ck_assert_float_eq(at(m, MT_Q_WRONG, IDX(0, 0, 1, 0)), at(m, MT_Q, IDX(0, 0, 4)));
    ck_assert_float_eq(at(m, MT_Q_HEADS, IDX(0, 0, 1, 0)), at(m, MT_Q, IDX(0, 1, 0)));
    mha_free(m);
}
END_TEST

START_TEST(test_names_and_indices)
{
    for (int i = 0; i < MT_COUNT; i++)
        ck_assert_int_eq(mha_tensor_index(mha_tensor_names[i]), i);
    ck_assert_int_eq(mha_tensor_index("Q_heads"), MT_Q_HEADS);
    ck_assert_int_eq(mha_tensor_index("nope"), -1);
    ck_assert_int_eq(mha_step_index("split"), MS_SPLIT);
    ck_assert_int_eq(mha_step_index("2"), MS_SPLIT);
    ck_assert_int_eq(mha_step_index("split heads"), MS_SPLIT);
    ck_assert_int_eq(mha_step_index("10"), MS_OUT);
    ck_assert_int_eq(mha_step_index("11"), -1);
    ck_assert_int_eq(mha_step_index("-1"), -1);
    ck_assert_int_eq(mha_step_index(""), -1);
    ck_assert_int_eq(mha_step_index("bogus"), -1);
    MhaConfig c = cfg_of(1, 4, 16, 8, 2, 0, 1);
    static const int kv[8] = {0, 0, 0, 0, 1, 1, 1, 1}; /* grouped, as Llama's repeat_kv */
    for (int h = 0; h < 8; h++)
        ck_assert_int_eq(mha_kv_head_of(&c, h), kv[h]);
    ck_assert_str_eq(mha_token_word(0), "the");
    ck_assert_str_eq(mha_token_word(1), "cat");
    ck_assert_str_eq(mha_token_word(100), "t100");
    ck_assert_str_eq(mha_token_word(-1), "t-1");
}
END_TEST

/* ------------------------------------------------------ config checks --- */

START_TEST(test_config_messages)
{
    static const struct {
        MhaConfig c;
        const char *msg;
    } bad[] = {
        {{.batch = 1, .seq = 4, .d_model = 8, .heads = 3, .kv_heads = 3, .seed = 1},
         "--heads 3: d_model 8 is not divisible by 3 (try 1, 2, 4 or 8)"},
        {{.batch = 1, .seq = 4, .d_model = 12, .heads = 5, .kv_heads = 5, .seed = 1},
         "--heads 5: d_model 12 is not divisible by 5 (try 1, 2, 3, 4, 6 or 12)"},
        {{.batch = 1, .seq = 4, .d_model = 8, .heads = 4, .kv_heads = 3, .seed = 1},
         "--kv-heads 3: heads 4 is not divisible by 3 (try 1, 2 or 4)"},
        {{.batch = 1, .seq = 4, .d_model = 8, .heads = 2, .kv_heads = 4, .seed = 1},
         "--kv-heads 4: must be between 1 and heads (2)"},
        {{.batch = 1, .seq = 4, .d_model = 8, .heads = 2, .kv_heads = 0, .seed = 1},
         "--kv-heads 0: must be between 1 and heads (2)"},
        {{.batch = 1, .seq = 4, .d_model = 8, .heads = 16, .kv_heads = 16, .seed = 1},
         "--heads 16: must be between 1 and d_model (8)"},
        {{.batch = 1, .seq = 4, .d_model = 8, .heads = 0, .kv_heads = 1, .seed = 1},
         "--heads 0: must be between 1 and d_model (8)"},
        {{.batch = 0, .seq = 4, .d_model = 8, .heads = 2, .kv_heads = 2, .seed = 1},
         "--batch 0: must be between 1 and 64"},
        {{.batch = 65, .seq = 4, .d_model = 8, .heads = 2, .kv_heads = 2, .seed = 1},
         "--batch 65: must be between 1 and 64"},
        {{.batch = 1, .seq = -3, .d_model = 8, .heads = 2, .kv_heads = 2, .seed = 1},
         "--seq -3: must be between 1 and 1024"},
        {{.batch = 1, .seq = 1025, .d_model = 8, .heads = 2, .kv_heads = 2, .seed = 1},
         "--seq 1025: must be between 1 and 1024"},
        {{.batch = 1, .seq = 4, .d_model = 0, .heads = 2, .kv_heads = 2, .seed = 1},
         "--d-model 0: must be between 1 and 1024"},
        {{.batch = 1, .seq = 4, .d_model = 4096, .heads = 2, .kv_heads = 2, .seed = 1},
         "--d-model 4096: must be between 1 and 1024"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_int_eq(mha_config_check(&bad[i].c, err, sizeof err), -1);
        ck_assert_str_eq(err, bad[i].msg);
        ck_assert_ptr_null(strchr(err, '\n'));
        /* mha_run refuses it with the same reason */
        err[0] = 0;
        ck_assert_ptr_null(mha_run(&bad[i].c, err, sizeof err));
        ck_assert_str_eq(err, bad[i].msg);
    }
    /* too much memory: refused, naming the flags and the limit */
    MhaConfig big = cfg_of(64, 1024, 1024, 8, 8, 0, 1);
    ck_assert_int_eq(mha_config_check(&big, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "--batch 64 --seq 1024 --d-model 1024"));
    ck_assert_ptr_nonnull(strstr(err, "limit"));
    /* a long list of divisors stays one line and ends in "..." */
    MhaConfig many = cfg_of(1, 4, 840, 11, 11, 0, 1);
    ck_assert_int_eq(mha_config_check(&many, err, sizeof err), -1);
    ck_assert_ptr_nonnull(
        strstr(err, "--heads 11: d_model 840 is not divisible by 11 (try 1, 2, 3"));
    ck_assert_ptr_nonnull(strstr(err, ", ..."));
    ck_assert_ptr_null(strchr(err, '\n'));
    /* err may be NULL */
    ck_assert_int_eq(mha_config_check(&bad[0].c, NULL, 0), -1);

    /* valid: the default, the limits, MQA with many heads */
    MhaConfig ok[] = {mha_config_default(), cfg_of(1, 1, 1, 1, 1, 0, 0),
                      cfg_of(64, 1, 8, 8, 1, 1, 4294967295u), cfg_of(1, 1024, 1024, 2, 1, 0, 1),
                      cfg_of(1, 256, 256, 8, 2, 1, 1)};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        ck_assert_msg(mha_config_check(&ok[i], err, sizeof err) == 0, "config %zu refused: %s", i,
                      err);
    MhaConfig d = mha_config_default();
    ck_assert_int_eq(d.batch, 1);
    ck_assert_int_eq(d.seq, 4);
    ck_assert_int_eq(d.d_model, 8);
    ck_assert_int_eq(d.heads, 2);
    ck_assert_int_eq(d.kv_heads, 2);
    ck_assert_int_eq(d.causal, 0);
    ck_assert_uint_eq(d.seed, 1);
}
END_TEST

/* The one pipeline table: each step's symbolic shape is its output's shape
 * in every configuration, its output is the trace's, and the part of the
 * program it runs is on the line it names. */
START_TEST(test_step_table_is_the_one_source)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        Mha *m = run_ok(&cs[ci]);
        for (int i = 0; i < MS_COUNT; i++) {
            const MhaStepInfo *si = &mha_steps[i];
            const Tensor *t = m->t[si->output];
            int dims[8], k = mha_shape_of(&cs[ci], si->shape, dims, 8);
            ck_assert_int_eq(m->steps[i].output, si->output);
            char ran[MHA_STEP_CODE] = "x"; /* what the step ran, as its code says */
            for (int r = 0, o = 0; r < m->steps[i].n_ran; r++)
                o += snprintf(ran + o, sizeof ran - (size_t)o, "%s%s", r ? "; " : "",
                              m->steps[i].ran[r]);
            ck_assert_str_eq(m->steps[i].code, ran);
            ck_assert_msg(k == t->ndim, "step %d: %s is rank %d", i, si->shape, t->ndim);
            for (int d = 0; d < k; d++)
                ck_assert_msg(dims[d] == t->shape[d], "step %d: %s, dim %d is %d", i, si->shape, d,
                              t->shape[d]);
        }
        for (int v = MV_WRONG_VIEW; v < MV_COUNT; v++) /* the panel's lines: check_mha_panel.c */
            ck_assert_ptr_nonnull(mha_views[v].code);
        mha_free(m);
    }
    int dims[4];
    ck_assert_int_eq(mha_shape_of(&cs[0], "(B, Q)", dims, 4), -1);
    ck_assert_int_eq(mha_shape_of(&cs[0], "(B, S, D, H, dh)", dims, 4), -1);
}
END_TEST

/* --- RoPE (src/README.md, The pipeline, step rope) ----------------------- */

static MhaConfig rope_cfg(MhaConfig c, RopeLayout l)
{
    c.rope = l;
    c.rope_theta = 10000;
    return c;
}

/* [1, 2, 3, 4] at position 1, theta 10000: inv_freq = {1, 0.01}; worked by hand. */
START_TEST(test_rope_by_hand)
{
    const float c1 = cosf(1), s1 = sinf(1), c2 = cosf(0.01f), s2 = sinf(0.01f);
    float v[4] = {1, 2, 3, 4};
    rope_rotate(v, 4, 1, ROPE_HALF, 10000); /* pairs (0, 2) and (1, 3) */
    ck_assert_float_eq_tol(v[0], 1 * c1 - 3 * s1, 1e-6);
    ck_assert_float_eq_tol(v[2], 3 * c1 + 1 * s1, 1e-6);
    ck_assert_float_eq_tol(v[1], 2 * c2 - 4 * s2, 1e-6);
    ck_assert_float_eq_tol(v[3], 4 * c2 + 2 * s2, 1e-6);
    float w[4] = {1, 2, 3, 4};
    rope_rotate(w, 4, 1, ROPE_INTERLEAVED, 10000); /* pairs (0, 1) and (2, 3) */
    ck_assert_float_eq_tol(w[0], 1 * c1 - 2 * s1, 1e-6);
    ck_assert_float_eq_tol(w[1], 2 * c1 + 1 * s1, 1e-6);
    ck_assert_float_eq_tol(w[2], 3 * c2 - 4 * s2, 1e-6);
    ck_assert_float_eq_tol(w[3], 4 * c2 + 3 * s2, 1e-6);
    float z[4] = {1, 2, 3, 4}; /* position 0 does not turn */
    rope_rotate(z, 4, 0, ROPE_HALF, 10000);
    ck_assert(z[0] == 1 && z[1] == 2 && z[2] == 3 && z[3] == 4);
    ck_assert_float_eq_tol(rope_inv_freq(1, 4, 10000), 0.01f, 1e-9);
    ck_assert_float_eq_tol(rope_inv_freq(2, 8, 500000), 1.0f / sqrtf(500000), 1e-9);
    /* the partner: dh/2 floats away in half, the next float in interleaved */
    for (int j = 0; j < 8; j++) {
        ck_assert_int_eq(rope_partner(ROPE_HALF, j, 8), (j + 4) % 8);
        ck_assert_int_eq(rope_partner(ROPE_INTERLEAVED, j, 8), j % 2 ? j - 1 : j + 1);
        ck_assert_int_eq(rope_pair_of(ROPE_HALF, j, 8), j % 4);
        ck_assert_int_eq(rope_pair_of(ROPE_INTERLEAVED, j, 8), j / 2);
    }
}
END_TEST

START_TEST(test_rope_odd_dhead_refused)
{
    MhaConfig c = rope_cfg(cfg_of(1, 4, 6, 2, 2, 0, 1), ROPE_HALF); /* dh 3 */
    ck_assert_int_eq(mha_config_check(&c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "--rope half"));
    ck_assert_ptr_nonnull(strstr(err, "--heads 2"));
    ck_assert_ptr_null(mha_run(&c, err, sizeof err));
    c.rope = ROPE_OFF; /* the same sizes without RoPE are fine */
    ck_assert_int_eq(mha_config_check(&c, err, sizeof err), 0);
    c = rope_cfg(mha_config_default(), ROPE_INTERLEAVED);
    c.rope_theta = 0;
    ck_assert_int_eq(mha_config_check(&c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "--rope-theta"));
    Tensor *odd = tensor_zeros(E, 2, (int[]){2, 3});
    ck_assert_ptr_null(rope_apply(odd, ROPE_HALF, 10000, err, sizeof err));
    tensor_free(odd);
}
END_TEST

static double dot_rotated(const float *q, const float *k, int dh, int pq, int pk, RopeLayout l)
{
    float a[16], b[16];
    memcpy(a, q, sizeof(float) * (size_t)dh);
    memcpy(b, k, sizeof(float) * (size_t)dh);
    rope_rotate(a, dh, pq, l, 10000);
    rope_rotate(b, dh, pk, l, 10000);
    double s = 0;
    for (int i = 0; i < dh; i++)
        s += (double)a[i] * b[i];
    return s;
}

/* q at m and k at n: q.k depends on n - m only, in both layouts; and it
 * does depend on it (a rotation that did nothing would pass the first half). */
START_TEST(test_rope_relative_position)
{
    MhaRng r;
    mha_rng_seed(&r, 7);
    float q[16], k[16];
    for (int i = 0; i < 16; i++)
        q[i] = mha_rng_tenth(&r), k[i] = mha_rng_tenth(&r);
    for (int l = ROPE_HALF; l <= ROPE_INTERLEAVED; l++)
        for (int d = 0; d < 4; d++) {
            double base = dot_rotated(q, k, 16, 0, d, (RopeLayout)l);
            for (int shift = 1; shift < 40; shift += 7)
                ck_assert_double_eq_tol(dot_rotated(q, k, 16, shift, shift + d, (RopeLayout)l),
                                        base, 1e-4);
            if (d) ck_assert(fabs(base - dot_rotated(q, k, 16, 0, 0, (RopeLayout)l)) > 1e-3);
        }
}
END_TEST

/* Every configuration, both layouts: Q_rope and K_rope are Q_heads and
 * K_heads rotated row by row, new buffers; V is not; the scores, K_expand and
 * K_repeat come from the rotated K; the trace has the step after heads first. */
START_TEST(test_rope_in_the_pipeline)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        if ((cs[ci].d_model / cs[ci].heads) % 2) continue;
        for (int l = ROPE_HALF; l <= ROPE_INTERLEAVED; l++) {
            MhaConfig c = rope_cfg(cs[ci], (RopeLayout)l);
            Mha *m = run_ok(&c), *off = run_ok(&cs[ci]);
            const int B = c.batch, S = c.seq, H = c.heads, KV = c.kv_heads, dh = m->d_head;
            ck_assert_ptr_null(off->t[MT_Q_ROPE]);
            ck_assert_ptr_null(off->t[MT_K_ROPE]);
            ck_assert_int_eq(m->t[MT_K_ROPE]->shape[1], KV);
            ck_assert(!tensor_same_storage(m->t[MT_Q_ROPE], m->t[MT_Q_HEADS]));
            ck_assert(tensor_same_storage(m->t[MT_K_EXPAND], m->t[MT_K_ROPE]));
            for (int b = 0; b < B; b++)
                for (int h = 0; h < H; h++)
                    for (int p = 0; p < S; p++) {
                        float q[64], k[64];
                        int kh = mha_kv_head_of(&c, h);
                        for (int j = 0; j < dh; j++) {
                            q[j] = at(m, MT_Q_HEADS, IDX(b, h, p, j));
                            k[j] = at(m, MT_K_HEADS, IDX(b, kh, p, j));
                        }
                        rope_rotate(q, dh, p, c.rope, c.rope_theta);
                        rope_rotate(k, dh, p, c.rope, c.rope_theta);
                        for (int j = 0; j < dh; j++) {
                            ck_assert_float_eq_tol(at(m, MT_Q_ROPE, IDX(b, h, p, j)), q[j], 1e-6);
                            ck_assert_float_eq_tol(at(m, MT_K_ROPE, IDX(b, kh, p, j)), k[j], 1e-6);
                            ck_assert_float_eq_tol(at(m, MT_K_REPEAT, IDX(b, h, p, j)), k[j], 1e-6);
                            ck_assert(at(m, MT_V_HEADS, IDX(b, kh, p, j)) ==
                                      at(off, MT_V_HEADS, IDX(b, kh, p, j)));
                        }
                        for (int s = 0; s < S; s++) { /* scores[p, s] = q_rope . k_rope[s] */
                            double d = 0;
                            for (int j = 0; j < dh; j++)
                                d += (double)at(m, MT_Q_ROPE, IDX(b, h, p, j)) *
                                     at(m, MT_K_ROPE, IDX(b, kh, s, j));
                            ck_assert_double_eq_tol(at(m, MT_SCORES, IDX(b, h, p, s)), d * m->scale,
                                                    1e-5);
                        }
                    }
            /* the trace: the step after heads first, its buffers counted */
            ck_assert_int_eq(mha_step_total(&c), MS_COUNT + 1);
            ck_assert_int_eq(mha_step_at(&c, MS_HEADS + 1), MS_ROPE);
            ck_assert_int_eq(mha_step_at(&c, MS_HEADS + 2), MS_SCORES);
            ck_assert_int_eq(mha_step_number(&c, MS_OUT), MS_OUT + 1);
            ck_assert_int_eq(mha_step_number(&cs[ci], MS_ROPE), -1);
            ck_assert_int_eq(mha_step_find(&c, "5"), MS_SCORES);
            ck_assert_int_eq(mha_step_find(&cs[ci], "rope"), -1);
            const MhaStep *st = &m->steps[MS_ROPE];
            ck_assert_str_eq(st->key, "rope");
            ck_assert_int_eq(st->output, MT_Q_ROPE);
            ck_assert(!st->is_view);
            ck_assert_uint_eq(st->bytes_copied, (size_t)B * (H + KV) * S * dh * sizeof(float));
            ck_assert_int_eq(m->steps[MS_SCORES].inputs[0], MT_Q_ROPE);
            ck_assert_int_eq(m->steps[MS_SCORES].inputs[1], MT_K_ROPE);
            ck_assert_uint_eq(m->bytes_copied_total, off->bytes_copied_total + st->bytes_copied);
            mha_free(m);
            mha_free(off);
        }
    }
}
END_TEST

/* HF's permute of W_Q and W_K: the other layout on the permuted weights gives
 * the run's scores; without the permutation it does not (dh >= 4: with one
 * pair the two layouts are the same). */
START_TEST(test_rope_hf_permutation)
{
    int n;
    const MhaConfig *cs = configs(&n);
    for (int ci = 0; ci < n; ci++) {
        if ((cs[ci].d_model / cs[ci].heads) % 2) continue;
        for (int l = ROPE_HALF; l <= ROPE_INTERLEAVED; l++) {
            MhaConfig c = rope_cfg(cs[ci], (RopeLayout)l);
            Mha *m = run_ok(&c);
            ck_assert_float_le(mha_rope_hf_diff(m, 0), 1e-5f);
            ck_assert_float_ge(mha_rope_hf_diff(m, 0), 0);
            if (m->d_head >= 4 && c.seq > 1) ck_assert_float_gt(mha_rope_hf_diff(m, 1), 1e-3f);
            mha_free(m);
        }
        Mha *off = run_ok(&cs[ci]);
        ck_assert_float_eq(mha_rope_hf_diff(off, 0), -1);
        mha_free(off);
    }
}
END_TEST

/* Realistic numbers at every size (issue 17): at d_model 256 the toy weights
 * are scaled by 1/sqrt(D), so a softmax row is a distribution, not one-hot:
 * the median over all rows of a row's largest weight is at most 0.5.  At
 * d_model <= MHA_TENTHS_MAX_D the weights stay tenths (the test above). */
static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

START_TEST(test_big_sizes_softmax_rows_spread)
{
    MhaConfig c = cfg_of(1, 64, 256, 16, 16, 0, 1);
    Mha *m = run_ok(&c);
    ck_assert_msg(mha_weights_scaled(&c), "d_model 256 should use scaled weights");
    const Tensor *a = m->t[MT_ATTN]; /* (B, H, S, S), contiguous */
    size_t rows = tensor_numel(a) / 64;
    float *best = malloc(rows * sizeof *best);
    for (size_t r = 0; r < rows; r++) {
        best[r] = 0;
        for (int j = 0; j < 64; j++)
            if (a->st->data[a->offset + r * 64 + j] > best[r])
                best[r] = a->st->data[a->offset + r * 64 + j];
    }
    qsort(best, rows, sizeof *best, cmp_float);
    ck_assert_msg(best[rows / 2] <= 0.5f, "median row max %.3f > 0.5: attention is one-hot",
                  (double)best[rows / 2]);
    /* W_Q is the tenths times 1/sqrt(256) = 0.0625: -1/16 .. 1/16 */
    const Tensor *w = m->t[MT_W_Q];
    for (size_t i = 0; i < tensor_numel(w); i++) {
        float v = w->st->data[w->offset + i] * 16.0f * 10.0f;
        ck_assert_msg(fabsf(v - roundf(v)) < 1e-3f && fabsf(v) <= 10.001f,
                      "W_Q[%zu] = %g is not a tenth / 16", i, (double)(v / 160.0f));
    }
    ck_assert(!mha_weights_scaled(
        &(MhaConfig){.batch = 1, .seq = 4, .d_model = 16, .heads = 2, .kv_heads = 2, .seed = 1}));
    free(best);
    mha_free(m);
}
END_TEST

static Suite *mha_suite(void)
{
    E = engine_new(NULL);
    Suite *s = suite_create("mha");
    TCase *h = tcase_create("by hand");
    tcase_add_test(h, test_tiny_by_hand);
    suite_add_tcase(s, h);
    TCase *c = tcase_create("claims");
    tcase_set_timeout(c, 60); /* slow under ASan */
    tcase_add_test(c, test_split_equals_per_head_projection);
    tcase_add_test(c, test_pipeline_equals_per_head_loop);
    tcase_add_test(c, test_mqa_one_kv_head);
    tcase_add_test(c, test_expand_equals_repeat_interleave);
    tcase_add_test(c, test_heads_differ_from_one_big_head);
    tcase_add_test(c, test_seed_determinism_and_tenths);
    tcase_add_test(c, test_seed1_golden_values);
    tcase_add_test(c, test_big_sizes_softmax_rows_spread);
    tcase_add_test(c, test_blocked_kernel_same_run);
    suite_add_tcase(s, c);
    TCase *t = tcase_create("trace");
    tcase_add_test(t, test_trace_matches_design_table);
    tcase_add_test(t, test_trace_strides_default);
    tcase_add_test(t, test_q_wrong_scrambles_tokens);
    tcase_add_test(t, test_names_and_indices);
    tcase_add_test(t, test_config_messages);
    tcase_add_test(t, test_step_table_is_the_one_source);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("rope");
    tcase_set_timeout(r, 60);
    tcase_add_test(r, test_rope_by_hand);
    tcase_add_test(r, test_rope_odd_dhead_refused);
    tcase_add_test(r, test_rope_relative_position);
    tcase_add_test(r, test_rope_in_the_pipeline);
    tcase_add_test(r, test_rope_hf_permutation);
    suite_add_tcase(s, r);
    return s;
}

CHECK_MAIN(mha_suite)
