/* quiz_gen_decode.c - decode shapes: one new token against a KV cache of T
 * tokens.  The engine runs the new token (mha_run with S = 1), appends its K
 * and V to cache tensors of T tokens and runs the listing the question shows:
 * with GQA/MQA each kv head repeated to its G query heads (repeat_interleave,
 * so the listing runs in PyTorch as written), then q against the cache.
 * Every shape asked is read off those tensors. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

typedef struct Decode {
    Mha *m;              /* the new token: x (B, 1, D) */
    Tensor *cache;       /* (B, KV, T + 1, dh): T cached keys, then the new one */
    Tensor *vcache;      /* (B, KV, T + 1, dh): the same for the values */
    Tensor *scores;      /* (B, H, 1, T + 1) */
    Tensor *out;         /* (B, H, 1, dh): scores @ V (the softmax changes no shape) */
    size_t repeat_bytes; /* what one repeat_interleave of a cache copied; 0 for MHA */
    int T;
} Decode;

static void decode_free(Decode *d)
{
    tensor_free(d->out);
    tensor_free(d->scores);
    tensor_free(d->vcache);
    tensor_free(d->cache);
    mha_free(d->m);
}

/* torch.cat([cache of T tokens, kv], dim=2): the T cached rows (zeros: their
 * values do not matter) and the new token's kv (B, KV, 1, dh) last. */
static Tensor *cat_new(const Tensor *kv, int T)
{
    int sh[4] = {kv->shape[0], kv->shape[1], T + 1, kv->shape[3]};
    Tensor *c = tensor_zeros(kv->st->eng, 4, sh);
    if (!c) return NULL;
    for (int b = 0; b < sh[0]; b++)
        for (int h = 0; h < sh[1]; h++)
            for (int j = 0; j < sh[3]; j++) {
                int from[4] = {b, h, 0, j}, to[4] = {b, h, T, j};
                tensor_set(c, to, tensor_get(kv, from));
            }
    return c;
}

/* The listing: K_cache, V_cache = cat; K_e, V_e = repeat_interleave(G) when
 * G > 1; scores = q @ K_e^T; o = scores @ V_e. */
static int decode_run(Decode *d, const MhaConfig *c, char *err, size_t errlen)
{
    d->m = mha_run(c, err, errlen);
    if (!d->m) return -1;
    int G = d->m->groups;
    d->cache = cat_new(d->m->t[MT_K_HEADS], d->T);
    d->vcache = cat_new(d->m->t[MT_V_HEADS], d->T);
    if (!d->cache || !d->vcache) return snprintf(err, errlen, "out of memory"), -1;
    Tensor *t[3] = {0}, *ke = d->cache, *ve = d->vcache;
    int ok = 1;
    if (G > 1) {
        ok = (t[0] = tensor_repeat_interleave(d->cache, G, 1, err, errlen)) &&
             (t[1] = tensor_repeat_interleave(d->vcache, G, 1, err, errlen)); /* (B, H, T+1, dh) */
        ke = t[0], ve = t[1];
        if (ok) d->repeat_bytes = t[0]->st->bytes_copied;
    }
    ok = ok && (t[2] = tensor_transpose(ke, -2, -1, err, errlen)) &&
         (d->scores = tensor_matmul(d->m->t[MT_Q_HEADS], t[2], err, errlen)) && /* (B,H,1,T+1) */
         (d->out = tensor_matmul(d->scores, ve, err, errlen));                  /* (B,H,1,dh) */
    for (int i = 0; i < 3; i++)
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
    static const char *const what[4] = {"q", "K_cache after the cat", "scores", "o"};
    int dh = d.m->d_head;
    q->topic = QT_DECODE, q->cfg = c, q->aux = target, q->idx[0] = d.T;
    qt_cat(q->prompt, sizeof q->prompt,
           "Decoding: %d token%s %s cached; token %d arrives, x is (B, 1, D) = (%d, 1, %d).\n"
           "H = %d query head%s, KV = %d kv head%s, dh = %d.\n",
           d.T, text_s(d.T), d.T == 1 ? "is" : "are", d.T, c.batch, c.d_model, c.heads,
           text_s(c.heads), c.kv_heads, text_s(c.kv_heads), dh);
    int G = d.m->groups;
    qt_cat(q->prompt, sizeof q->prompt,
           "    q = (x @ W_q).view(%d, 1, %d, %d).transpose(1, 2)\n"
           "    k = (x @ W_k).view(%d, 1, %d, %d).transpose(1, 2)\n"
           "    v = (x @ W_v).view(%d, 1, %d, %d).transpose(1, 2)\n"
           "    K_cache = torch.cat([K_cache, k], dim=2)   # K_cache was (%d, %d, %d, %d)\n"
           "    V_cache = torch.cat([V_cache, v], dim=2)   # V_cache too\n",
           c.batch, c.heads, dh, c.batch, c.kv_heads, dh, c.batch, c.kv_heads, dh, c.batch,
           c.kv_heads, d.T, dh);
    if (G > 1) /* GQA/MQA: each kv head for the G query heads that read it */
        qt_cat(q->prompt, sizeof q->prompt,
               "    K_e = K_cache.repeat_interleave(%d, dim=1)\n"
               "    V_e = V_cache.repeat_interleave(%d, dim=1)\n",
               G, G);
    const char *kn = G > 1 ? "K_e" : "K_cache", *vn = G > 1 ? "V_e" : "V_cache";
    qt_cat(q->prompt, sizeof q->prompt,
           "    scores = q @ %s.transpose(-2, -1) / math.sqrt(%d)\n"
           "    o = torch.softmax(scores, dim=-1) @ %s\n",
           kn, dh, vn);
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
    if (G > 1)
        qt_cat(q->working, sizeof q->working,
               "  K_e and V_e repeat each kv head for its %d query heads: %zu bytes copied "
               "each\n  (an expand, stride 0 on a group axis, would share them for 0 bytes).\n",
               G, d.repeat_bytes);
    decode_free(&d);
    return 0;
}
