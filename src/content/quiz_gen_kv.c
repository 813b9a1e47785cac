/* quiz_gen_kv.c - KV-cache sizing for real model presets
 * (assets/models.presets), by the KV calculator's arithmetic (kv.h). */
#include <stdio.h>
#include <string.h>

#include "content/kv.h"
#include "content/presets.h"
#include "content/quiz_gen.h"

static long long kv_total(long layers, long kv_heads, long d_head, int bits, long ctx, long batch)
{
    uint64_t per = 0, tot = 0;
    if (kv_bytes_per_token(layers, kv_heads, d_head, bits, &per) ||
        kv_bytes_total(per, ctx, batch, &tot))
        return -1;
    return (long long)tot;
}

static void size_choice(char *buf, size_t n, long long v)
{
    char a[40], b[40];
    snprintf(buf, n, "%s (%s bytes)", kv_fmt_size(a, sizeof a, (uint64_t)v),
             kv_fmt_int(b, sizeof b, (uint64_t)v));
}

/* The working: the product written out, and what MHA would have cost. */
static void kv_working(QuizQuestion *q, const Preset *p, const KvDtype *dt, long ctx, long batch,
                       long long bytes, long long mha)
{
    char a[40], b[40], c2[40];
    uint64_t per = 0;
    kv_bytes_per_token(p->layers, p->kv_heads, p->d_head, dt->bits, &per);
    qt_cat(q->working, sizeof q->working,
           "2 (K and V) x %ld layers x %ld kv head%s x %ld d_head x %d bits / 8 = %s bytes per "
           "token;\nx %ld tokens x %ld sequence%s = %s bytes = %s.\n",
           p->layers, p->kv_heads, text_s(p->kv_heads), p->d_head, dt->bits,
           kv_fmt_int(a, sizeof a, per), ctx, batch, text_s(batch),
           kv_fmt_int(b, sizeof b, (uint64_t)bytes), kv_fmt_size(c2, sizeof c2, (uint64_t)bytes));
    if (p->kv_heads != p->heads && mha > 0)
        qt_cat(q->working, sizeof q->working,
               "With all %ld heads cached (MHA) it would be %s, %ldx more.\n", p->heads,
               kv_fmt_size(a, sizeof a, (uint64_t)mha), p->heads / p->kv_heads);
    qt_cat(q->working, sizeof q->working, "(source: %s)\n", p->source);
}

int quiz_gen_kvcache(Gen *g)
{
    QuizQuestion *q = g->q;
    PresetList pl;
    char err[300];
    if (presets_builtin(&pl, err, sizeof err) || pl.n < 1) {
        snprintf(g->err, g->errlen, "%s", pl.n < 1 ? "no model presets" : err);
        return -1;
    }
    static const long ctxs[] = {1024, 2048, 4096, 8192, 32768};
    /* the models the question's formula holds for: K and V per kv head (no
     * MLA latent), every layer keeping every token at the smallest context */
    int ok[64], nok = 0;
    for (int i = 0; i < pl.n && nok < 64; i++) {
        long w = pl.v[i].window ? pl.v[i].window : pl.v[i].chunk;
        if (!pl.v[i].kv_lora_rank && (!w || w >= ctxs[0])) ok[nok++] = i;
    }
    if (nok == 0) {
        presets_free(&pl);
        snprintf(g->err, g->errlen, "no model preset caches K and V per head");
        return -1;
    }
    const Preset *p = &pl.v[ok[quiz_rng_below(&g->r, nok)]];
    int ndt = 0;
    while (kv_dtypes[ndt].name)
        ndt++;
    const KvDtype *dt = &kv_dtypes[quiz_rng_below(&g->r, ndt)];
    /* within the trained context, and within a sliding window or chunk, where
     * every layer keeps every token and the formula below holds */
    long cap = p->context, local = p->window ? p->window : p->chunk;
    if (local && (!cap || local < cap)) cap = local;
    int nctx = 0;
    while (nctx < 5 && (!cap || ctxs[nctx] <= cap))
        nctx++;
    long ctx = ctxs[quiz_rng_below(&g->r, nctx ? nctx : 1)];
    long batch = quiz_rng_below(&g->r, 3) == 0 ? 8 : 1;
    long long bytes = kv_total(p->layers, p->kv_heads, p->d_head, dt->bits, ctx, batch);
    if (bytes < 0) {
        presets_free(&pl);
        snprintf(g->err, g->errlen, "kv bytes overflow for %s", p->name);
        return -1;
    }
    q->topic = QT_KVCACHE;
    /* what was asked, for the tests: heads, kv heads, d_model = heads x d_head,
     * batch, seq = context; aux = layers; idx[0] = bits */
    q->cfg = mha_config_default();
    q->cfg.heads = (int)p->heads, q->cfg.kv_heads = (int)p->kv_heads;
    q->cfg.d_model = (int)(p->heads * p->d_head), q->cfg.batch = (int)batch, q->cfg.seq = (int)ctx;
    q->aux = (int)p->layers;
    q->idx[0] = dt->bits;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %ld layers, %ld query heads, %ld kv head%s (%s), d_head %ld.\n"
           "How big is its KV cache for %ld sequence%s of %ld tokens, stored as %s (%d bits per "
           "number)?",
           p->title, p->layers, p->heads, p->kv_heads, text_s(p->kv_heads),
           presets_kind(p->heads, p->kv_heads), p->d_head, batch, text_s(batch), ctx, dt->name,
           dt->bits);
    /* distractors: the usual slips, each through the same arithmetic */
    long long dv[5] = {
        bytes / 2,                                                      /* K only, forgot V */
        kv_total(p->layers, p->heads, p->d_head, dt->bits, ctx, batch), /* the MHA size */
        kv_total(1, p->kv_heads, p->d_head, dt->bits, ctx, batch),      /* one layer */
        kv_total(p->layers, p->kv_heads, p->d_head, dt->bits == 32 ? 16 : 32, ctx,
                 batch), /* wrong dtype */
        kv_total(p->layers, p->kv_heads, p->d_head * p->heads, dt->bits, ctx,
                 batch), /* d_model where d_head belongs */
    };
    char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
    int nc = 0;
    size_choice(ans, sizeof ans, bytes);
    for (int i = 0; i < 5; i++)
        if (dv[i] > 0 && dv[i] != bytes) size_choice(cand[nc++], QUIZ_CHOICE_MAX, dv[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    q->number = bytes;
    snprintf(q->explain, sizeof q->explain,
             "Per token the cache holds K and V (x2) for every layer and every kv head: 2 x layers "
             "x kv_heads x d_head x bytes per number.  Multiply by tokens and sequences.  Query "
             "heads do not count: GQA/MQA shrink the cache by heads / kv_heads, and decoding "
             "reads the whole cache once per generated token, so that is memory bandwidth saved "
             "on every step.");
    kv_working(q, p, dt, ctx, batch, bytes, dv[1]);
    presets_free(&pl);
    return 0;
}
