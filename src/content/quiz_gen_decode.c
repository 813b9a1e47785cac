/* quiz_gen_decode.c - decode shapes: one new token against a KV cache of T
 * tokens.  The engine runs the new token (mha_run with S = 1); the
 * interpreter runs the listing the question shows from its text, over that
 * run's x and weights: a cache of T tokens, the new token's q, k and v, the
 * cat, with GQA/MQA each kv head repeated to its G query heads
 * (repeat_interleave, so the listing runs in PyTorch as written), then q
 * against the cache.  Every shape asked is read off the interpreter's run. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"
#include "engine/tensorops.h"

#define DEC_LINES 11 /* the cache, q k v, the cat, the repeats, scores, o */

typedef struct Decode {
    Mha *m;              /* the new token: x (B, 1, D) */
    Tensor *cache;       /* (B, KV, T + 1, dh): T cached keys, then the new one */
    Tensor *scores;      /* (B, H, 1, T + 1) */
    Tensor *out;         /* (B, H, 1, dh): scores @ V (the softmax changes no shape) */
    Tensor *q;           /* (B, H, 1, dh) */
    size_t repeat_bytes; /* what one repeat_interleave of a cache copied; 0 for MHA */
    int T;
    char lines[DEC_LINES][QB_LINE]; /* the listing the prompt shows, as it ran */
    int n, ke_line;                 /* its lines; K_e's (-1 for MHA: no repeat) */
} Decode;

static void decode_free(Decode *d)
{
    tensor_free(d->out);
    tensor_free(d->scores);
    tensor_free(d->cache);
    tensor_free(d->q);
    mha_free(d->m);
}

/* The listing: a cache of T tokens (zeros: their values change no shape),
 * the new token's q, k, v, the cat, with GQA/MQA each kv head repeated for
 * its G query heads (repeat_interleave, as PyTorch runs it), the scores and
 * the output. */
static void decode_lines(Decode *d, const MhaConfig *c)
{
    int B = c->batch, H = c->heads, KV = c->kv_heads, dh = d->m->d_head, G = d->m->groups;
    char(*l)[QB_LINE] = d->lines;
    int n = 0;
    snprintf(l[n++], QB_LINE, "K_cache = torch.zeros(%d, %d, %d, %d)", B, KV, d->T, dh);
    snprintf(l[n++], QB_LINE, "V_cache = torch.zeros(%d, %d, %d, %d)", B, KV, d->T, dh);
    snprintf(l[n++], QB_LINE, "q = (x @ W_Q).view(%d, 1, %d, %d).transpose(1, 2)", B, H, dh);
    snprintf(l[n++], QB_LINE, "k = (x @ W_K).view(%d, 1, %d, %d).transpose(1, 2)", B, KV, dh);
    snprintf(l[n++], QB_LINE, "v = (x @ W_V).view(%d, 1, %d, %d).transpose(1, 2)", B, KV, dh);
    snprintf(l[n++], QB_LINE, "K_cache = torch.cat([K_cache, k], dim=2)");
    snprintf(l[n++], QB_LINE, "V_cache = torch.cat([V_cache, v], dim=2)");
    d->ke_line = G > 1 ? n : -1;
    if (G > 1) { /* GQA/MQA: each kv head for the G query heads that read it */
        snprintf(l[n++], QB_LINE, "K_e = K_cache.repeat_interleave(%d, dim=1)", G);
        snprintf(l[n++], QB_LINE, "V_e = V_cache.repeat_interleave(%d, dim=1)", G);
    }
    const char *kn = G > 1 ? "K_e" : "K_cache", *vn = G > 1 ? "V_e" : "V_cache";
    snprintf(l[n++], QB_LINE, "scores = q @ %s.transpose(-2, -1) / math.sqrt(%d)", kn, dh);
    snprintf(l[n++], QB_LINE, "o = torch.softmax(scores, dim=-1) @ %s", vn);
    d->n = n;
}

/* Runs the new token (mha_run, S = 1), then the listing from its text in
 * a playground holding only that run's x and weights; the working gets its
 * trace, and every tensor asked is read off the interpreter's run. */
static int decode_run(Decode *d, const MhaConfig *c, char *working, size_t wn, char *err,
                      size_t errlen)
{
    d->m = mha_run(c, err, errlen);
    if (!d->m) return -1;
    decode_lines(d, c);
    Play *p = play_new(d->m->eng);
    for (int i = MT_X; p && i <= MT_W_O; i++)
        if (play_set_tensor(p, mha_tensor_names[i], tensorops_alias(d->m->t[i]), PD_FLOAT32) < 0)
            play_free(p), p = NULL;
    if (!p) return snprintf(err, errlen, "out of memory"), -1;
    size_t copied[DEC_LINES] = {0};
    int rc = qr_listing(p, d->lines, d->n, copied, working, wn, err, errlen);
    if (!rc && !((d->q = qr_tensor(p, "q", err, errlen)) &&
                 (d->cache = qr_tensor(p, "K_cache", err, errlen)) &&
                 (d->scores = qr_tensor(p, "scores", err, errlen)) &&
                 (d->out = qr_tensor(p, "o", err, errlen))))
        rc = -1;
    if (d->ke_line >= 0) d->repeat_bytes = copied[d->ke_line];
    play_free(p);
    return rc;
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
    if (decode_run(&d, &c, q->working, sizeof q->working, g->err, g->errlen)) {
        decode_free(&d);
        return -1;
    }
    int target = quiz_rng_below(&g->r, 4); /* q, the cache, the scores, the output */
    const Tensor *t[4] = {d.q, d.cache, d.scores, d.out};
    static const char *const what[4] = {"q", "K_cache after the cat", "scores", "o"};
    int dh = d.m->d_head;
    q->topic = QT_DECODE, q->cfg = c, q->aux = target, q->idx[0] = d.T;
    qt_cat(q->prompt, sizeof q->prompt,
           "Decoding: %d token%s %s cached; token %d arrives, x is (B, 1, D) = (%d, 1, %d).\n"
           "H = %d query head%s, KV = %d kv head%s, dh = %d.\n",
           d.T, text_s(d.T), d.T == 1 ? "is" : "are", d.T, c.batch, c.d_model, c.heads,
           text_s(c.heads), c.kv_heads, text_s(c.kv_heads), dh);
    int G = d.m->groups;
    for (int k = 0; k < d.n; k++)
        qt_cat(q->prompt, sizeof q->prompt, "    %s\n", d.lines[k]);
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
    if (G > 1)
        qt_cat(q->working, sizeof q->working,
               "K_e and V_e repeat each kv head for its %d query heads: %zu bytes copied each\n"
               "(an expand, stride 0 on a group axis, would share them for 0 bytes).\n",
               G, d.repeat_bytes);
    decode_free(&d);
    return 0;
}
