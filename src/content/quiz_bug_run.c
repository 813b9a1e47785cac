/* quiz_bug_run.c - runs an attention program with one bug on the engine, so
 * a bugs question can show (and a test can prove) that the buggy program
 * computes something else than the right one, or fails where PyTorch would.
 *
 * The program reads the right run's x and weights (m): q/k/v projections,
 * split into heads, K/V shared by repeat_interleave, scores scaled by
 * m->scale, the causal mask when m->cfg.causal, softmax, A @ V, heads
 * merged, @ W_O.  Every step is a tensor op; the bug replaces one of them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "content/quiz.h"

#define NT 24 /* temporaries a run keeps */

typedef struct Run {
    const Mha *m;
    int bug, which;
    int B, S, D, H, KV, dh, G;
    Tensor *keep[NT];
    int nk;
    char *err;
    size_t errlen;
} Run;

/* Keeps t for the end of the run; t NULL: the step failed (err set). */
static Tensor *kp(Run *r, Tensor *t)
{
    if (t && r->nk < NT)
        r->keep[r->nk++] = t;
    else if (t)
        tensor_free(t), t = NULL;
    if (!t && r->err && !r->err[0]) snprintf(r->err, r->errlen, "out of memory");
    return t;
}

/* x as the program sees it: (B, S, D); for the batch_first bug the input is
 * (S, B, D) and the program views it as (B, S, D) instead of transposing. */
static Tensor *input(Run *r)
{
    const Tensor *x = r->m->t[MT_X];
    if (r->bug != QUIZ_BUG_BATCH_FIRST)
        return kp(r, tensor_view(x, 3, x->shape, r->err, r->errlen));
    Tensor *sb = kp(r, tensor_transpose(x, 0, 1, r->err, r->errlen)); /* (S, B, D) */
    Tensor *c = sb ? kp(r, tensor_clone_compute(sb)) : NULL;          /* as given */
    int sh[3] = {r->B, r->S, r->D};
    return c ? kp(r, tensor_view(c, 3, sh, r->err, r->errlen)) : NULL;
}

/* (B, S, n*dh) -> (B, n, S, dh), or the bug on tensor `who` (0 q, 1 k, 2 v). */
static Tensor *split(Run *r, const Tensor *t, int n, int who)
{
    int bugged = r->which == who;
    int B = r->B, S = r->S, dh = r->dh;
    if (bugged && r->bug == QUIZ_BUG_VIEW) {
        int sh[4] = {B, n, S, dh}; /* view(B, n, S, dh): no transpose */
        return kp(r, tensor_view(t, 4, sh, r->err, r->errlen));
    }
    if (bugged && r->bug == QUIZ_BUG_KV_AS_H) n = r->H; /* the MHA head count */
    int sh[4] = {B, S, n, dh};
    Tensor *v = kp(r, tensor_view(t, 4, sh, r->err, r->errlen));
    if (!v) return NULL;
    int d1 = bugged && r->bug == QUIZ_BUG_TRANSPOSE_23 ? 2 : 1;
    return kp(r, tensor_transpose(v, d1, d1 + 1, r->err, r->errlen));
}

/* K or V (B, KV, S, dh) for the H query heads: repeat_interleave, or the
 * bug's tiling (kv head h % KV for query head h). */
static Tensor *share(Run *r, Tensor *t, int who)
{
    if (r->G == 1) return t;
    int tiled = r->bug == QUIZ_BUG_GQA_MOD || (r->bug == QUIZ_BUG_REPEAT && r->which == who);
    if (!tiled) return kp(r, tensor_repeat_interleave(t, r->G, 1, r->err, r->errlen));
    Tensor *u = kp(r, tensor_unsqueeze(t, 1, r->err, r->errlen)); /* (B, 1, KV, S, dh) */
    int sh5[5] = {r->B, r->G, t->shape[1], t->shape[2], t->shape[3]};
    Tensor *e = u ? kp(r, tensor_expand(u, 5, sh5, r->err, r->errlen)) : NULL;
    Tensor *c = e ? kp(r, tensor_contiguous(e)) : NULL;
    int sh4[4] = {r->B, r->G * t->shape[1], t->shape[2], t->shape[3]};
    return c ? kp(r, tensor_view(c, 4, sh4, r->err, r->errlen)) : NULL;
}

/* Sets scores[..., i, j] to v where hide(i, j). */
static void mask_where(Tensor *s, int kind, float v)
{
    int nd = s->ndim, S = s->shape[nd - 1];
    size_t rows = tensor_numel(s) / (size_t)S;
    for (size_t k = 0; k < rows; k++) {
        int idx[TENSOR_MAXDIM] = {0}, rest = (int)k;
        for (int d = nd - 2; d >= 0; d--)
            idx[d] = rest % s->shape[d], rest /= s->shape[d];
        int i = idx[nd - 2];
        for (int j = 0; j < S; j++) {
            idx[nd - 1] = j;
            int hide = kind == 0 ? j > i : kind == 1 ? j >= i : j < i;
            if (hide) tensor_set(s, idx, v);
        }
    }
}

/* softmax(q k^T * scale [+ mask]) with the bugs of the scores, mask and softmax. */
static Tensor *attention(Run *r, Tensor *q, Tensor *k)
{
    Tensor *kt =
        r->bug == QUIZ_BUG_K_NOT_T ? k : kp(r, tensor_transpose(k, -2, -1, r->err, r->errlen));
    Tensor *s = kt ? kp(r, tensor_matmul(q, kt, r->err, r->errlen)) : NULL;
    if (!s) return NULL;
    float scale = r->m->scale;
    if (r->bug == QUIZ_BUG_SCALE_DH) scale = 1.0f / (float)r->dh;
    if (r->bug == QUIZ_BUG_SCALE_DMODEL) scale = 1.0f / sqrtf((float)r->D);
    tensor_scale_(s, scale);
    int causal = r->m->cfg.causal;
    if (causal && r->bug != QUIZ_BUG_MASK_AFTER)
        mask_where(s,
                   r->bug == QUIZ_BUG_MASK_DIAG   ? 1
                   : r->bug == QUIZ_BUG_MASK_SIDE ? 2
                                                  : 0,
                   -INFINITY);
    Tensor *a = s;
    if (r->bug == QUIZ_BUG_SOFTMAX_DIM) { /* over the queries: transpose, softmax, back */
        Tensor *t = kp(r, tensor_transpose(s, -2, -1, r->err, r->errlen));
        Tensor *c = t ? kp(r, tensor_clone_compute(t)) : NULL;
        if (!c) return NULL;
        tensor_softmax_lastdim_(c);
        return kp(r, tensor_transpose(c, -2, -1, r->err, r->errlen));
    }
    tensor_softmax_lastdim_(a);
    if (causal && r->bug == QUIZ_BUG_MASK_AFTER) mask_where(a, 0, 0.0f);
    return a;
}

/* (B, H, S, dh) -> (B, S, D) and @ W_O, with the bugs of the merge. */
static Tensor *merge_out(Run *r, Tensor *o)
{
    const Tensor *wo = r->m->t[MT_W_O];
    int sh[3] = {r->B, r->S, r->D};
    Tensor *m = NULL;
    if (r->bug == QUIZ_BUG_WO_PER_HEAD) { /* o @ W_o on (B, H, S, dh): the shapes refuse */
        o = kp(r, tensor_matmul(o, wo, r->err, r->errlen));
        if (!o) return NULL;
    }
    if (r->bug == QUIZ_BUG_NO_BACK) {
        Tensor *c = kp(r, tensor_contiguous(o));
        m = c ? kp(r, tensor_view(c, 3, sh, r->err, r->errlen)) : NULL;
    } else {
        Tensor *t = kp(r, tensor_transpose(o, 1, 2, r->err, r->errlen)); /* (B, S, H, dh) */
        if (t && r->bug == QUIZ_BUG_CONCAT_ORDER)
            t = kp(r, tensor_transpose(t, 2, 3, r->err, r->errlen)); /* (B, S, dh, H) */
        Tensor *c = !t ? NULL : r->bug == QUIZ_BUG_CONTIG ? t : kp(r, tensor_contiguous(t));
        m = c ? kp(r, tensor_view(c, 3, sh, r->err, r->errlen)) : NULL;
    }
    return m ? tensor_matmul(m, wo, r->err, r->errlen) : NULL;
}

Tensor *quiz_bug_run(const Mha *m, int bug, int which, char *err, size_t errlen)
{
    char e[240] = "";
    Run r = {.m = m, .bug = bug, .which = which, .err = e, .errlen = sizeof e};
    const MhaConfig *c = &m->cfg;
    r.B = c->batch, r.S = c->seq, r.D = c->d_model, r.H = c->heads, r.KV = c->kv_heads;
    r.dh = m->d_head, r.G = m->groups;
    Tensor *y = NULL, *x = input(&r), *p[3] = {0}, *h[3] = {0};
    const int w[3] = {MT_W_Q, MT_W_K, MT_W_V};
    for (int i = 0; x && i < 3; i++) {
        p[i] = kp(&r, tensor_matmul(x, m->t[w[i]], r.err, r.errlen));
        h[i] = p[i] ? split(&r, p[i], i ? r.KV : r.H, i) : NULL;
        if (!h[i]) break;
    }
    Tensor *k = h[1] ? share(&r, h[1], 1) : NULL, *v = h[2] ? share(&r, h[2], 2) : NULL;
    Tensor *a = h[0] && k && v ? attention(&r, h[0], k) : NULL;
    Tensor *o = a ? kp(&r, tensor_matmul(a, v, r.err, r.errlen)) : NULL;
    if (o) y = merge_out(&r, o);
    for (int i = 0; i < r.nk; i++)
        tensor_free(r.keep[i]);
    if (!y && err) snprintf(err, errlen, "%s", e[0] ? e : "out of memory");
    return y;
}

double quiz_bug_diff(const Mha *m, const Tensor *y)
{
    const Tensor *want = m->t[MT_OUT];
    if (!y || y->ndim != want->ndim || tensor_numel(y) != tensor_numel(want)) return INFINITY;
    double worst = 0;
    int idx[TENSOR_MAXDIM] = {0};
    for (size_t k = 0; k < tensor_numel(y); k++) {
        size_t rest = k;
        for (int d = y->ndim - 1; d >= 0; d--)
            idx[d] = (int)(rest % (size_t)y->shape[d]), rest /= (size_t)y->shape[d];
        double d = fabs((double)tensor_get(y, idx) - (double)tensor_get(want, idx));
        if (isnan(d)) return INFINITY; /* a NaN is the largest difference */
        if (d > worst) worst = d;
    }
    return worst;
}
