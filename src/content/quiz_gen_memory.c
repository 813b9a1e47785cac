/* quiz_gen_memory.c - memory at real sizes: what the (B, H, S, S) scores of
 * one layer would take if they were written out (why FlashAttention never
 * does), and the context at which a model's KV cache outgrows its weights.
 * Model shapes come from assets/models.presets; the byte counts from kv.h's
 * overflow-checked arithmetic; the shape of the scores from an engine run. */
#include <stdio.h>
#include <string.h>

#include "content/kv.h"
#include "content/presets.h"
#include "content/quiz_gen.h"

/* a*b*c*d*e in 64 bits, or -1 when it overflows */
static long long mul5(long long a, long long b, long long c, long long d, long long e)
{
    long long f[5] = {a, b, c, d, e}, r = 1;
    for (int i = 0; i < 5; i++) {
        if (f[i] <= 0 || r > 4000000000000000000LL / f[i]) return -1;
        r *= f[i];
    }
    return r;
}

static void size_choice(char *buf, size_t n, long long v)
{
    char a[40], b[40];
    snprintf(buf, n, "%s (%s bytes)", kv_fmt_size(a, sizeof a, (uint64_t)v),
             kv_fmt_int(b, sizeof b, (uint64_t)v));
}

static const Preset *draw_preset(QuizRng *r, PresetList *pl, char *err, size_t errlen)
{
    if (presets_builtin(pl, err, errlen) || pl->n < 1) {
        if (pl->n < 1) snprintf(err, errlen, "no model presets");
        return NULL;
    }
    return &pl->v[quiz_rng_below(r, pl->n)];
}

/* The head count of the scores as the engine makes them for the preset's
 * grouping (d_head 1, two tokens: only the shape matters): query heads,
 * whatever the kv heads.  -1 on failure. */
static int scores_heads(const Preset *p, char *err, size_t errlen)
{
    MhaConfig c = mha_config_default();
    c.seq = 2, c.d_model = (int)p->heads, c.heads = (int)p->heads, c.kv_heads = (int)p->kv_heads;
    Mha *m = mha_run(&c, err, errlen);
    if (!m) return -1;
    int h = m->t[MT_SCORES]->shape[1];
    mha_free(m);
    return h;
}

int quiz_gen_scores_mem(Gen *g)
{
    QuizQuestion *q = g->q;
    PresetList pl;
    const Preset *p = draw_preset(&g->r, &pl, g->err, g->errlen);
    int H = p ? scores_heads(p, g->err, g->errlen) : -1;
    if (H < 0) {
        if (p) presets_free(&pl);
        return -1;
    }
    static const long Ss[] = {2048, 4096, 8192, 16384, 32768};
    long S = Ss[quiz_rng_below(&g->r, 5)], B = quiz_rng_below(&g->r, 2) ? 1 : 8;
    int bytes = quiz_rng_below(&g->r, 2) ? 2 : 4;
    long long want = mul5(B, H, S, S, bytes);
    long long dv[5] = {
        mul5(B, 1, S, S, bytes),              /* one head */
        mul5(B, p->kv_heads, S, S, bytes),    /* kv heads for query heads */
        mul5(B, H, S, p->d_head, bytes),      /* S x d_head: the size of Q */
        mul5(B, H, S, S, bytes * 8),          /* bits for bytes */
        mul5(B, H, S, S, bytes == 2 ? 4 : 2), /* the other dtype */
    };
    q->topic = QT_MEMORY, q->number = want, q->aux = (int)S;
    q->cfg = mha_config_default();
    q->cfg.heads = (int)p->heads, q->cfg.kv_heads = (int)p->kv_heads;
    q->idx[0] = bytes, q->idx[1] = (int)B;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %ld query heads, %ld kv heads, d_head %ld.\nA prefill of %ld sequence%s of %ld "
           "tokens in %s.\nIf one layer wrote its attention scores out as a (B, H, S, S) "
           "tensor,\nhow much memory would they take?",
           p->title, p->heads, p->kv_heads, p->d_head, B, B == 1 ? "" : "s", S,
           bytes == 2 ? "bf16 (2 bytes)" : "fp32 (4 bytes)");
    char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
    int nc = 0;
    size_choice(ans, sizeof ans, want);
    for (int i = 0; i < 5; i++)
        if (dv[i] > 0 && dv[i] != want) size_choice(cand[nc++], QUIZ_CHOICE_MAX, dv[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    snprintf(q->explain, sizeof q->explain,
             "Every query head has its own S x S scores (GQA shares K and V, not the scores): B x "
             "H x S x S x bytes, quadratic in the context.  FlashAttention computes the same exact "
             "attention without ever writing this tensor to GPU memory: it works on tiles in "
             "on-chip SRAM with a running max and sum per query row, so the extra memory is O(S) "
             "instead of O(S^2) (the FLOPs stay O(S^2 d)).");
    char a[40], b2[40], c2[40];
    qt_cat(q->working, sizeof q->working,
           "the engine's scores for this grouping are (B, %d, S, S): query heads.\n"
           "%ld x %d heads x %ld x %ld x %d bytes = %s bytes = %s.\nQ for the same tokens is (B, "
           "S, H x d_head): %s.\n(source: %s)\n",
           H, B, H, S, S, bytes, kv_fmt_int(a, sizeof a, (uint64_t)want),
           kv_fmt_size(b2, sizeof b2, (uint64_t)want), kv_fmt_size(c2, sizeof c2, (uint64_t)dv[2]),
           p->source);
    presets_free(&pl);
    return 0;
}

/* Parameter counts from the configs (q, k, v, o, the SwiGLU MLP, norms,
 * embeddings and head; /tmp/facts.md section 3, counted from config.json). */
static const struct {
    const char *preset;
    long long params;
} weights[] = {
    {"llama-2-7b", 6738415616LL},   {"llama-2-70b", 68976648192LL}, {"llama-3-8b", 8030261248LL},
    {"llama-3-70b", 70553706496LL}, {"mistral-7b", 7241732096LL},
};

int quiz_gen_cache_weights(Gen *g)
{
    QuizQuestion *q = g->q;
    PresetList pl;
    char err[300];
    if (presets_builtin(&pl, err, sizeof err)) return snprintf(g->err, g->errlen, "%s", err), -1;
    int w = quiz_rng_below(&g->r, (int)(sizeof weights / sizeof weights[0]));
    const Preset *p = presets_find(&pl, weights[w].preset);
    if (!p) {
        presets_free(&pl);
        return snprintf(g->err, g->errlen, "no preset %s", weights[w].preset), -1;
    }
    static const long Bs[] = {1, 8, 32};
    long B = Bs[quiz_rng_below(&g->r, 3)];
    uint64_t per = 0, mha = 0;
    long long wbytes = weights[w].params * 2;
    kv_bytes_per_token(p->layers, p->kv_heads, p->d_head, 16, &per);
    kv_bytes_per_token(p->layers, p->heads, p->d_head, 16, &mha);
    /* the first context at which B sequences' caches hold more bytes than the weights */
    long long want = wbytes / (long long)(per * (uint64_t)B) + 1;
    long long dv[4] = {
        wbytes / (long long)(mha * (uint64_t)B) + 1,     /* the MHA cache for a GQA model */
        wbytes / (long long)(per / 2 * (uint64_t)B) + 1, /* K only */
        wbytes / (long long)per + 1,                     /* one sequence, not B */
        wbytes / (long long)(per * (uint64_t)B) / 2 + 1, /* weights in 1 byte */
    };
    q->topic = QT_MEMORY, q->number = want, q->aux = (int)B;
    q->cfg = mha_config_default();
    q->cfg.heads = (int)p->heads, q->cfg.kv_heads = (int)p->kv_heads;
    q->idx[0] = (int)p->layers, q->idx[1] = (int)p->d_head;
    char ans[QUIZ_CHOICE_MAX], cand[4][QUIZ_CHOICE_MAX], a[40], b2[40], c2[40], pn[40];
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %s parameters, %ld layers,\n%ld query heads, %ld kv heads, d_head %ld, all in "
           "bf16.\nServing %ld sequence%s at once: from how many tokens per sequence does\nthe "
           "KV cache take more memory than the weights?",
           p->title, kv_fmt_int(pn, sizeof pn, (uint64_t)weights[w].params), p->layers, p->heads,
           p->kv_heads, p->d_head, B, B == 1 ? "" : "s");
    int nc = 0;
    snprintf(ans, sizeof ans, "%s tokens", kv_fmt_int(a, sizeof a, (uint64_t)want));
    for (int i = 0; i < 4; i++)
        if (dv[i] > 0 && dv[i] != want)
            snprintf(cand[nc++], QUIZ_CHOICE_MAX, "%s tokens",
                     kv_fmt_int(a, sizeof a, (uint64_t)dv[i]));
    qc_make(q, &g->r, ans, cand, nc, 3);
    snprintf(q->explain, sizeof q->explain,
             "The weights are fixed: params x 2 bytes, shared by every sequence.  The cache grows "
             "by 2 x layers x kv_heads x d_head x 2 bytes per token, per sequence.  Divide one by "
             "the other: with a batch of sequences (or a long context) the cache passes the "
             "weights, which is why serving is memory-bound and why GQA/MQA cut kv heads.");
    qt_cat(q->working, sizeof q->working,
           "weights: %lld x 2 = %s bytes (%s)\ncache: 2 x %ld x %ld x %ld x 2 = %s bytes per "
           "token per sequence",
           weights[w].params, kv_fmt_int(a, sizeof a, (uint64_t)wbytes),
           kv_fmt_size(b2, sizeof b2, (uint64_t)wbytes), p->layers, p->kv_heads, p->d_head,
           kv_fmt_int(c2, sizeof c2, per));
    qt_cat(q->working, sizeof q->working,
           "; x %ld sequence%s\n%lld / (%llu x %ld) = %lld, so "
           "from token %lld on.\n",
           B, B == 1 ? "" : "s", wbytes, (unsigned long long)per, B, want - 1, want);
    presets_free(&pl);
    return 0;
}
