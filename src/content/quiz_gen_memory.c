/* quiz_gen_memory.c - memory at real sizes: what the (B, H, S, S) scores of
 * one layer would take if they were written out (why FlashAttention never
 * does), and the context at which a model's KV cache outgrows its weights
 * (never, when a sliding window stops it first: the same kv_outgrows that
 * `decode --preset` prints).
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
           "%s: %ld query heads, %ld kv head%s, d_head %ld.\nA prefill of %ld sequence%s of %ld "
           "tokens in %s.\nIf one layer wrote its attention scores out as a (B, H, S, S) "
           "tensor,\nhow much memory would they take?",
           p->title, p->heads, p->kv_heads, text_s(p->kv_heads), p->d_head, B, text_s(B), S,
           bytes == 2 ? "bf16 (2 bytes)" : "fp32 (4 bytes)");
    char ans[QUIZ_CHOICE_MAX], cand[7][QUIZ_CHOICE_MAX];
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

/* The dense models asked about; their parameter counts, trained context and
 * sliding window come from assets/models.presets. */
static const char *const cache_models[] = {"llama-2-7b", "llama-2-70b", "llama-3-8b", "llama-3-70b",
                                           "mistral-7b"};

/* "110,501 tokens", "... (past its trained context)" beyond the context p was
 * trained for (every choice alike, so the note gives no key away), or
 * "never: ..." when the window stops the cache first (t = 0).  No number but
 * the threshold, so a typed number names one choice only. */
static void tokens_choice(char *buf, size_t n, const Preset *p, long t)
{
    char a[40];
    if (!t)
        snprintf(buf, n, "never: the window caps the cache below the weights");
    else
        snprintf(buf, n, "%s tokens%s", kv_fmt_int(a, sizeof a, (uint64_t)t),
                 p->context && t > p->context ? " (past its trained context)" : "");
}

int quiz_gen_cache_weights(Gen *g)
{
    QuizQuestion *q = g->q;
    PresetList pl;
    char err[300];
    if (presets_builtin(&pl, err, sizeof err)) return snprintf(g->err, g->errlen, "%s", err), -1;
    int w = quiz_rng_below(&g->r, (int)(sizeof cache_models / sizeof cache_models[0]));
    const Preset *p = presets_find(&pl, cache_models[w]);
    KvDecodeCost k; /* what `decode --preset` computes: weights, window, one token's bytes */
    if (!p || !p->params || kv_decode_cost(p, 16, 1, &k, err, sizeof err)) {
        presets_free(&pl);
        return snprintf(g->err, g->errlen, "preset %s: %s", cache_models[w], p ? err : "not found"),
               -1;
    }
    const KvRow *own = &k.rows[0], *mha = &k.rows[0];
    for (int i = 0; i < k.n; i++)
        if (k.rows[i].is_model) own = &k.rows[i];
    static const long Bs[] = {1, 8, 32};
    long B = Bs[quiz_rng_below(&g->r, 3)], L = p->layers;
    uint64_t ptl = own->per_token_layer, wbytes = k.weights;
    const KvLimit *lim = &k.lim;
    /* the first context at which B sequences' caches hold more bytes than the weights */
    long want = kv_outgrows(ptl, L, lim, wbytes, B);
    long win = lim->window; /* 0: every layer keeps every token; -1 below: no such choice */
    long dv[7] = {
        kv_outgrows(mha->per_token_layer, L, lim, wbytes, B), /* the MHA cache for a GQA model */
        kv_outgrows(ptl / 2, L, lim, wbytes, B),              /* K only */
        kv_outgrows(ptl, L, lim, wbytes, 1),                  /* one sequence, not B */
        kv_outgrows(ptl, L, lim, wbytes / 2, B),              /* weights in 1 byte */
        win ? kv_outgrows(ptl, L, NULL, wbytes, B) : -1,      /* the window forgotten */
        win ? kv_outgrows(ptl / 2, L, NULL, wbytes, B) : -1,  /* ... and K only */
        win ? win : -1,                                       /* the window itself */
    };
    q->topic = QT_MEMORY, q->number = want, q->aux = (int)B;
    q->cfg = mha_config_default();
    q->cfg.heads = (int)p->heads, q->cfg.kv_heads = (int)p->kv_heads;
    q->idx[0] = (int)L, q->idx[1] = (int)p->d_head;
    char ans[QUIZ_CHOICE_MAX], cand[7][QUIZ_CHOICE_MAX], a[40], b2[40], c2[40], pn[40], hyp[120];
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %s parameters, %ld layers,\n%ld query heads, %ld kv head%s, d_head %ld, all in "
           "bf16",
           p->title, kv_fmt_int(pn, sizeof pn, (uint64_t)p->params), L, p->heads, p->kv_heads,
           text_s(p->kv_heads), p->d_head);
    if (p->context)
        qt_cat(q->prompt, sizeof q->prompt, ",\ntrained on contexts of %s tokens",
               kv_fmt_int(a, sizeof a, (uint64_t)p->context));
    if (win && lim->local_layers == L)
        qt_cat(q->prompt, sizeof q->prompt, ", a %s-token %s in every layer",
               kv_fmt_int(a, sizeof a, (uint64_t)win),
               lim->chunked ? "attention chunk" : "sliding window");
    else if (win)
        qt_cat(q->prompt, sizeof q->prompt, ", a %s-token %s in %ld of %ld layers",
               kv_fmt_int(a, sizeof a, (uint64_t)win),
               lim->chunked ? "attention chunk" : "sliding window", lim->local_layers, L);
    qt_cat(q->prompt, sizeof q->prompt,
           ".\nServing %ld sequence%s at once: from how many tokens per sequence does\nthe KV "
           "cache take more memory than the weights?",
           B, text_s(B));
    int nc = 0;
    tokens_choice(ans, sizeof ans, p, want);
    for (int i = 0; i < 7; i++)
        if (dv[i] >= 0 && dv[i] != want) tokens_choice(cand[nc++], QUIZ_CHOICE_MAX, p, dv[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    snprintf(q->explain, sizeof q->explain,
             "The weights are fixed: params x 2 bytes, shared by every sequence.  The cache grows "
             "by 2 x layers x kv_heads x d_head x 2 bytes per token, per sequence.  Divide one by "
             "the other: with a batch of sequences (or a long context) the cache passes the "
             "weights, which is why serving is memory-bound and why GQA/MQA cut kv heads.%s",
             win ? "  A sliding window caps what each of its layers keeps (a rolling "
                   "buffer of the last window tokens), so that cache stops growing and "
                   "may never pass the weights."
                 : "");
    qt_cat(q->working, sizeof q->working,
           "weights: %lld x 2 = %s bytes (%s)\ncache: 2 x %ld x %ld x %ld x 2 = %s bytes per "
           "token per sequence",
           p->params, kv_fmt_int(a, sizeof a, wbytes), kv_fmt_size(b2, sizeof b2, wbytes), L,
           p->kv_heads, p->d_head, kv_fmt_int(c2, sizeof c2, own->per_token));
    qt_cat(q->working, sizeof q->working, "; x %ld sequence%s\n", B, text_s(B));
    if (win) {
        uint64_t most = kv_layer_tokens(L, lim, win) * ptl * (uint64_t)B;
        qt_cat(q->working, sizeof q->working,
               "the window keeps at most %s tokens in %ld of %ld layers: at %s tokens the "
               "caches hold %s bytes (%s)%s\n",
               kv_fmt_int(a, sizeof a, (uint64_t)win), lim->local_layers, L, a,
               kv_fmt_int(b2, sizeof b2, most), kv_fmt_size(c2, sizeof c2, most),
               want ? "" : ", and no more after: never more than the weights");
    }
    if (want && (!win || want <= win))
        qt_cat(q->working, sizeof q->working, "%llu / (%llu x %ld) = %ld, so from token %ld on.\n",
               (unsigned long long)wbytes, (unsigned long long)own->per_token, B, want - 1, want);
    else if (want)
        qt_cat(q->working, sizeof q->working,
               "the global layers keep growing: from token %ld on.\n", want);
    if (want && kv_hypothetical(p, want, hyp, sizeof hyp))
        qt_cat(q->working, sizeof q->working, "%s.\n", hyp);
    long one = k.outgrows[own - k.rows];
    if (one) snprintf(b2, sizeof b2, "%s tokens", kv_fmt_int(a, sizeof a, (uint64_t)one));
    qt_cat(q->working, sizeof q->working,
           "One sequence's cache, as `mhaviz decode --plain --preset %s` says: %s.\n", p->name,
           one ? b2 : "never");
    presets_free(&pl);
    return 0;
}
