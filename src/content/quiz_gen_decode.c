/* quiz_gen_decode.c - decode shapes: one new token against a KV cache of T
 * tokens.  The engine runs the new token (mha_run with S = 1), appends its K
 * to a cache tensor of T tokens and multiplies the query heads against it,
 * kv heads shared by a stride-0 expand as in the pipeline; every shape asked
 * is read off those tensors. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

typedef struct Decode {
    Mha *m;         /* the new token: x (B, 1, D) */
    Tensor *cache;  /* (B, KV, T + 1, dh): T cached keys, then the new one */
    Tensor *scores; /* (B, H, 1, T + 1) */
    Tensor *out;    /* (B, H, 1, dh): attn @ V with V = the cache (values do not matter) */
    int T;
} Decode;

static void decode_free(Decode *d)
{
    tensor_free(d->out);
    tensor_free(d->scores);
    tensor_free(d->cache);
    mha_free(d->m);
}

/* cache = torch.cat([K_cache, k], dim=2), then the grouped matmuls. */
static int decode_run(Decode *d, const MhaConfig *c, char *err, size_t errlen)
{
    d->m = mha_run(c, err, errlen);
    if (!d->m) return -1;
    const Tensor *k = d->m->t[MT_K_HEADS]; /* (B, KV, 1, dh) */
    int B = c->batch, KV = c->kv_heads, G = d->m->groups, dh = d->m->d_head, T = d->T;
    int sh[4] = {B, KV, T + 1, dh};
    d->cache = tensor_zeros(4, sh);
    if (!d->cache) return snprintf(err, errlen, "out of memory"), -1;
    for (int b = 0; b < B; b++)
        for (int h = 0; h < KV; h++)
            for (int j = 0; j < dh; j++) {
                int from[4] = {b, h, 0, j}, to[4] = {b, h, T, j};
                tensor_set(d->cache, to, tensor_get(k, from));
            }
    Tensor *t[6] = {0};
    int q5[5] = {B, KV, G, 1, dh}, k5[5] = {B, KV, G, T + 1, dh}, s4[4] = {B, c->heads, 1, T + 1};
    int o4[4] = {B, c->heads, 1, dh};
    int ok = (t[0] = tensor_view(d->m->t[MT_Q_HEADS], 5, q5, err, errlen)) &&
             (t[1] = tensor_unsqueeze(d->cache, 2, err, errlen)) &&
             (t[2] = tensor_expand(t[1], 5, k5, err, errlen)) &&
             (t[3] = tensor_transpose(t[2], -2, -1, err, errlen)) &&
             (t[4] = tensor_matmul(t[0], t[3], err, errlen)) && /* (B, KV, G, 1, T+1) */
             (d->scores = tensor_view(t[4], 4, s4, err, errlen)) &&
             (t[5] = tensor_matmul(t[4], t[2], err, errlen)) && /* (B, KV, G, 1, dh) */
             (d->out = tensor_view(t[5], 4, o4, err, errlen));
    for (int i = 0; i < 6; i++)
        tensor_free(t[i]);
    return ok ? 0 : -1;
}

static void shape_text(char *buf, size_t n, const Tensor *t)
{
    long long v[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++)
        v[i] = t->shape[i];
    qt_fmt_tuple(buf, n, t->ndim, v);
}

/* The mistakes of decode shapes: the prefill shapes, the cache without the
 * new token, kv heads where query heads belong, two dims swapped. */
static int decode_distractors(const Decode *d, const MhaConfig *c, char (*cand)[QUIZ_CHOICE_MAX])
{
    long long B = c->batch, H = c->heads, KV = c->kv_heads, dh = d->m->d_head, T = d->T;
    const long long v[][4] = {{B, H, T + 1, dh}, {B, H, T + 1, T + 1}, {B, H, 1, T},
                              {B, KV, 1, T + 1}, {B, H, T + 1, 1},     {B, KV, T, dh},
                              {B, H, T + 1, dh}, {B, 1, H, dh},        {B, KV, 1, dh},
                              {B, H, 1, dh},     {B, KV, T + 1, dh},   {B, H, 1, T + 1}};
    int n = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        qt_fmt_tuple(cand[n++], QUIZ_CHOICE_MAX, 4, v[i]);
    return n;
}

int quiz_gen_decode(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int Ts[] = {15, 37, 99, 127, 255, 383, 511};
    MhaConfig c = qcfg_real(&g->r, quiz_rng_below(&g->r, 3) != 0, 1e9);
    c.seq = 1;
    if (c.batch > 2) c.batch = 2;
    Decode d = {.T = qc_pick(&g->r, Ts, 7)};
    if (decode_run(&d, &c, g->err, g->errlen)) {
        decode_free(&d);
        return -1;
    }
    int target = quiz_rng_below(&g->r, 4); /* q, the cache, the scores, the output */
    const Tensor *t[4] = {d.m->t[MT_Q_HEADS], d.cache, d.scores, d.out};
    static const char *const what[4] = {"q", "K_cache after the cat", "scores", "o = attn @ V"};
    int dh = d.m->d_head;
    q->topic = QT_DECODE, q->cfg = c, q->aux = target, q->idx[0] = d.T;
    qt_cat(q->prompt, sizeof q->prompt,
           "Decoding: %d tokens are cached; token %d arrives, x is (B, 1, D) = (%d, 1, %d).\n"
           "H = %d query heads, KV = %d kv head%s, dh = %d.\n",
           d.T, d.T, c.batch, c.d_model, c.heads, c.kv_heads, c.kv_heads == 1 ? "" : "s", dh);
    qt_cat(q->prompt, sizeof q->prompt,
           "    q = (x @ W_q).view(%d, 1, %d, %d).transpose(1, 2)\n"
           "    k = (x @ W_k).view(%d, 1, %d, %d).transpose(1, 2)\n"
           "    K_cache = torch.cat([K_cache, k], dim=2)   # K_cache was (%d, %d, %d, %d)\n"
           "    scores = q @ K_cache.transpose(-2, -1) / math.sqrt(%d)  # grouped\n"
           "    o = torch.softmax(scores, dim=-1) @ V_cache\n",
           c.batch, c.heads, dh, c.batch, c.kv_heads, dh, c.batch, c.kv_heads, d.T, dh, dh);
    qt_cat(q->prompt, sizeof q->prompt, "What is the shape of %s?", what[target]);
    char ans[QUIZ_CHOICE_MAX], cand[16][QUIZ_CHOICE_MAX];
    shape_text(ans, sizeof ans, t[target]);
    int nc = decode_distractors(&d, &c, cand);
    qc_make(q, &g->r, ans, cand, nc, 3);
    q->n_tuple = t[target]->ndim;
    for (int i = 0; i < t[target]->ndim; i++)
        q->tuple[i] = t[target]->shape[i];
    snprintf(q->explain, sizeof q->explain,
             "At decode time only the new token is projected: q is (B, H, 1, dh), one query row "
             "per head.  The cache keeps every past key per kv head, (B, KV, T, dh), and grows by "
             "one along the token axis.  Each query head scores the T + 1 keys of its kv head: "
             "(B, H, 1, T + 1), a single row per head, not the (T + 1) x (T + 1) matrix of a "
             "prefill.  The output is again one row, (B, H, 1, dh).");
    char sh[64];
    qt_cat(q->working, sizeof q->working, "The engine ran the new token (S = 1) and the cache:\n");
    for (int i = 0; i < 4; i++)
        qt_cat(q->working, sizeof q->working, "  %-24s %s\n", what[i],
               tensor_fmt_dims(sh, sizeof sh, t[i]->ndim, t[i]->shape));
    if (c.kv_heads < c.heads)
        qt_cat(q->working, sizeof q->working,
               "  K_cache shared with %d query heads each by expand (stride 0): 0 bytes "
               "copied.\n",
               d.m->groups);
    decode_free(&d);
    return 0;
}
