/* quiz_gen_gqa.c - grouped-query attention: K and V shapes when kv heads are
 * shared, which kv head a query head reads, what repeat_interleave copies. */
#include <stdio.h>
#include <string.h>

#include "content/presets.h"
#include "content/quiz_gen.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

int quiz_gen_kvshape(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_K,        MT_K_HEADS,  MT_V_HEADS,
                                  MT_K_EXPAND, MT_K_REPEAT, MT_V_SPLIT};
    int target = qc_pick(&g->r, targets, NELEM(targets));
    MhaConfig c = qcfg_real(&g->r, 1, 2.2e6);
    QBuild b;
    if (qb_begin(g, &b, &c, target, QT_GQA)) return -1;
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "W_K and W_V are (d_model, kv_heads x d_head).\n");
    qb_code_lines(&b, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "What is the shape of %s after the last line?",
           mha_tensor_names[target]);
    const Tensor *t = qb_t(&b, target);
    q->kind = QK_TUPLE;
    q->n_tuple = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        q->tuple[i] = t->shape[i];
    quiz_shape_choices(q, &g->r, &b);
    snprintf(q->explain, sizeof q->explain,
             "%s  With GQA/MQA only kv_heads K and V heads are projected: K is (B, S, kv_heads x "
             "d_head) and (B, kv_heads, S, d_head) after the split.  To line them up with the "
             "query heads, expand adds a group axis with stride 0 (a view), repeat_interleave "
             "copies each kv head G = heads / kv_heads times (B, heads, S, d_head).",
             qt_step_note(target));
    if (qb_working(&b, q->working, sizeof q->working) < 0) return qb_refuse(g, &b);
    qb_free(&b);
    return 0;
}

/* The kv head each query head reads, as the engine's repeat_interleave of kv
 * heads that hold their own index lays them out.  -1 on failure. */
static int served_by(const MhaConfig *c, int h, Tensor **rep_out, char *err, size_t errlen)
{
    int sh[4] = {1, c->kv_heads, 1, 1}; /* (B, KV, S, dh) with kv head j holding j */
    Engine *eng = engine_new(NULL);     /* the question's own */
    Tensor *k = tensor_zeros(eng, 4, sh);
    engine_release(eng); /* k and rep hold it */
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int j = 0; j < c->kv_heads; j++)
        k->st->data[j] = (float)j;
    Tensor *rep = tensor_repeat_interleave(k, c->heads / c->kv_heads, 1, err, errlen);
    tensor_free(k);
    if (!rep) return -1;
    int idx[4] = {0, h, 0, 0};
    *rep_out = rep;
    return (int)tensor_get(rep, idx);
}

int quiz_gen_kvhead(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int Hs[] = {4, 8, 12, 16, 32, 64};
    MhaConfig c = mha_config_default();
    c.heads = qc_pick(&g->r, Hs, NELEM(Hs));
    /* GQA proper: with one kv head (MQA) or one per query head (MHA) the
     * answer is 0 or h, no question */
    int divs[16] = {2}, nd = 0;
    for (int k = 2; k < c.heads && nd < 16; k++)
        if (c.heads % k == 0) divs[nd++] = k;
    c.kv_heads = divs[quiz_rng_below(&g->r, nd)];
    c.d_model = c.heads * 2;
    c.seq = 1;
    int h = quiz_rng_below(&g->r, c.heads), G = c.heads / c.kv_heads;
    Tensor *rep = NULL;
    int served = served_by(&c, h, &rep, g->err, g->errlen);
    if (served < 0) return -1;
    if (served != mha_kv_head_of(&c, h)) {
        snprintf(g->err, g->errlen,
                 "kv head of %d: repeat_interleave says %d, mha_kv_head_of says %d", h, served,
                 mha_kv_head_of(&c, h));
        tensor_free(rep);
        return -1;
    }
    q->topic = QT_GQA;
    q->cfg = c;
    q->aux = h;
    q->kind = QK_NUMBER;
    q->number = served;
    qt_cat(q->prompt, sizeof q->prompt,
           "%d query heads share %d kv head%s (%s), grouped as Llama's repeat_kv does\n"
           "(K = K.repeat_interleave(heads // kv_heads, dim=1)).  Heads count from 0.\n"
           "Which kv head does query head %d read?",
           c.heads, c.kv_heads, text_s(c.kv_heads), c.kv_heads == 1 ? "MQA" : "GQA", h);
    snprintf(q->explain, sizeof q->explain,
             "Each kv head serves a block of G = heads / kv_heads consecutive query heads, so "
             "query head h reads kv head h / G (integer division).  A tiled .repeat() would give "
             "h %% kv_heads instead: the wrong grouping for weights trained with repeat_kv.");
    qt_cat(q->working, sizeof q->working,
           "G = %d / %d = %d query head%s per kv head; kv head = %d / %d = %d.\n", c.heads,
           c.kv_heads, G, text_s(G), h, G, served);
    qt_cat(q->working, sizeof q->working,
           "The engine repeated kv heads 0..%d with repeat_interleave(%d, dim=1): query heads "
           "0..%d read kv heads (",
           c.kv_heads - 1, G, c.heads - 1);
    for (int j = 0; j < c.heads; j++) {
        int ix[4] = {0, j, 0, 0};
        qt_cat(q->working, sizeof q->working, "%s%d", j ? ", " : "", (int)tensor_get(rep, ix));
    }
    qt_cat(q->working, sizeof q->working, ").\n");
    tensor_free(rep);
    return 0;
}

int quiz_gen_repeat_bytes(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = qcfg_real(&g->r, 1, 1.1e6);
    QBuild b;
    if (qb_run(&b, &c) || qb_need(&b, MT_K_HEADS)) {
        snprintf(g->err, g->errlen, "%s", b.err);
        qb_free(&b);
        return -1;
    }
    int expand = quiz_rng_below(&g->r, 3) == 0;
    int target = expand ? MT_K_EXPAND : MT_K_REPEAT;
    /* both ways, so the working compares them */
    if (qb_need(&b, MT_K_EXPAND) || qb_need(&b, MT_K_REPEAT)) return qb_refuse(g, &b);
    int line = qb_line_of(&b, target);
    q->topic = QT_GQA;
    q->cfg = c;
    q->tensor = target;
    q->kind = QK_NUMBER;
    q->number = (long long)b.copied[line];
    char sh[64];
    const Tensor *kh = qb_t(&b, MT_K_HEADS);
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "K is float32, split into kv heads: %s.\n    %s\n",
           tensor_fmt_dims(sh, sizeof sh, kh->ndim, kh->shape), b.line[line]);
    qt_cat(q->prompt, sizeof q->prompt, "How many bytes does that line copy?");
    snprintf(q->explain, sizeof q->explain,
             "repeat_interleave writes a new buffer of B x heads x S x d_head floats (4 bytes "
             "each); expand only adds a stride-0 axis, so it copies nothing.  Both give every "
             "query head its K; only one pays for it in memory.");
    if (qb_working(&b, q->working, sizeof q->working) < 0) return qb_refuse(g, &b);
    qb_free(&b);
    return 0;
}

/* Which kv head query head h reads, for a group size that is no power of
 * two (h drawn so that h // G and h % KV differ: the two readings part). */
static int groups_kvhead(Gen *g, const char *name, int H, int KV)
{
    QuizQuestion *q = g->q;
    MhaConfig c = mha_config_default();
    c.heads = H, c.kv_heads = KV, c.d_model = H * 2, c.seq = 1;
    int h = 0, G = H / KV;
    do
        h = quiz_rng_below(&g->r, H);
    while (h / G == h % KV);
    Tensor *rep = NULL;
    int served = served_by(&c, h, &rep, g->err, g->errlen);
    if (served < 0) return -1;
    tensor_free(rep);
    q->topic = QT_GQA, q->cfg = c, q->aux = h, q->kind = QK_NUMBER, q->number = served;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %d query heads share %d kv heads, grouped as repeat_kv does.\n"
           "Heads count from 0.  Which kv head does query head %d read?",
           name, H, KV, h);
    snprintf(q->explain, sizeof q->explain,
             "G = %d / %d = %d: no power of two, and nothing needs one.  Query heads %d*j .. "
             "%d*j+%d read kv head j, so head h reads h // %d.  h %% %d (a tiled .repeat) "
             "would be the wrong head.",
             H, KV, G, G, G, G - 1, G, KV);
    qt_cat(q->working, sizeof q->working,
           "The engine's repeat_interleave(%d, dim=1) puts kv head %d at query head %d "
           "(%d // %d = %d; %d %% %d = %d).\n",
           G, served, h, h, G, h / G, h, KV, h % KV);
    return 0;
}

/* Groups that are not powers of two: Llama 4's 40 query heads over 8 kv
 * heads (groups of 5) and Falcon-7B's 71 over 1, read from their presets
 * (assets/models.presets, each cited at its config.json).  The engine
 * repeats a real (B, KV, S, d_head) K. */
int quiz_gen_groups(Gen *g)
{
    QuizQuestion *q = g->q;
    static const char *const names[] = {"llama-4-maverick", "falcon-7b"};
    PresetList pl;
    char err[200];
    if (presets_builtin(&pl, err, sizeof err)) return snprintf(g->err, g->errlen, "%s", err), -1;
    const Preset *models[2] = {presets_find(&pl, names[0]), presets_find(&pl, names[1])};
    if (!models[0] || !models[1]) {
        presets_free(&pl);
        return snprintf(g->err, g->errlen, "groups: no preset %s", names[!models[1]]), -1;
    }
    int k = quiz_rng_below(&g->r, 2), B = 1 + quiz_rng_below(&g->r, 2);
    if (k == 0 && quiz_rng_below(&g->r, 2)) {
        int r = groups_kvhead(g, models[0]->title, (int)models[0]->heads, (int)models[0]->kv_heads);
        presets_free(&pl);
        return r;
    }
    int S = 3 + quiz_rng_below(&g->r, 6), H = (int)models[k]->heads;
    int KV = (int)models[k]->kv_heads, G = H / KV, dh = (int)models[k]->d_head;
    char name[sizeof models[k]->title];
    snprintf(name, sizeof name, "%s", models[k]->title);
    presets_free(&pl);
    int sh[4] = {B, KV, S, dh};
    Engine *eng = engine_new(NULL); /* the question's own; kk and rep hold it */
    Tensor *kk = tensor_zeros(eng, 4, sh);
    engine_release(eng);
    Tensor *rep = kk ? tensor_repeat_interleave(kk, G, 1, err, sizeof err) : NULL;
    tensor_free(kk);
    if (!rep) return snprintf(g->err, g->errlen, "%s", kk ? err : "out of memory"), -1;
    q->topic = QT_GQA;
    q->cfg = mha_config_default();
    q->cfg.batch = B, q->cfg.seq = S, q->cfg.heads = H, q->cfg.kv_heads = KV;
    q->cfg.d_model = H * dh;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %d query heads, %d kv head%s, d_head %d.\nK for B = %d, S = %d is (%d, %d, %d, "
           "%d).\n    K = K.repeat_interleave(%d // %d, dim=1)\nWhat is the shape of K now?",
           name, H, KV, text_s(KV), dh, B, S, B, KV, S, dh, H, KV);
    long long ans[4] = {rep->shape[0], rep->shape[1], rep->shape[2], rep->shape[3]};
    long long v[][4] = {{B, KV, S, dh}, {B, 64, S, dh}, {B, KV * 8, S, dh},
                        {B, G, S, dh},  {B, S, H, dh},  {B, H * KV, S, dh}};
    char a[QUIZ_CHOICE_MAX], cand[6][QUIZ_CHOICE_MAX];
    for (int i = 0; i < 6; i++)
        qt_fmt_tuple(cand[i], QUIZ_CHOICE_MAX, 4, v[i]);
    qc_make(q, &g->r, qt_fmt_tuple(a, sizeof a, 4, ans), cand, 6, 3);
    q->n_tuple = 4;
    memcpy(q->tuple, ans, sizeof ans);
    snprintf(q->explain, sizeof q->explain,
             "Nothing in attention needs a power of two: the group is heads / kv_heads = %d, and "
             "repeat_interleave writes each kv head %d times, (B, heads, S, d_head).  Query head "
             "h reads kv head h // %d.  Rounding to 64 or to a multiple of 8 is a habit from "
             "other models, not a rule.",
             G, G, G);
    char s1[64], st[64];
    qt_cat(q->working, sizeof q->working,
           "The engine repeated K (%d, %d, %d, %d): %s strides %s, a copy of %zu bytes.\n", B, KV,
           S, dh, tensor_fmt_dims(s1, sizeof s1, rep->ndim, rep->shape),
           tensor_fmt_strides(st, sizeof st, rep), rep->st->bytes_copied);
    tensor_free(rep);
    return 0;
}
