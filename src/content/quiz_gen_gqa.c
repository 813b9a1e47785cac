/* quiz_gen_gqa.c - grouped-query attention: K and V shapes when kv heads are
 * shared, which kv head a query head reads, what repeat_interleave copies.
 * Every listing shown runs from its text in the interpreter: the pipeline's
 * rows through qb_working, the ones that make their own K (torch.arange,
 * torch.zeros) through qr_listing, and the answer is read off that run. */
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

/* Runs a listing that makes every tensor it reads (torch.arange,
 * torch.zeros) in a playground of its own and appends its trace to
 * working.  Returns the tensor the listing names K (the caller frees it),
 * or NULL with g->err naming the line. */
static Tensor *run_listing(Gen *g, char (*lines)[QB_LINE], int n, char *working, size_t wn)
{
    Play *p = play_new(NULL);
    if (!p) return snprintf(g->err, g->errlen, "out of memory"), NULL;
    Tensor *t = qr_listing(p, lines, n, NULL, working, wn, g->err, g->errlen) < 0
                    ? NULL
                    : qr_tensor(p, "K", g->err, g->errlen);
    play_free(p);
    return t;
}

/* The listing that groups kv heads as Llama's repeat_kv does, each kv head
 * holding its own index, run by the interpreter (the working gets its
 * trace); lines[] is what the prompt shows.  The kv head query head h reads
 * is K[0, h, 0, 0] of *rep_out.  -1 on failure (g->err). */
static int served_by(Gen *g, const MhaConfig *c, int h, char (*lines)[QB_LINE], Tensor **rep_out)
{
    snprintf(lines[0], QB_LINE, "kv = torch.arange(%d).view(1, %d, 1, 1)", c->kv_heads,
             c->kv_heads);
    snprintf(lines[1], QB_LINE, "K = kv.repeat_interleave(%d // %d, dim=1)", c->heads, c->kv_heads);
    Tensor *rep = run_listing(g, lines, 2, g->q->working, sizeof g->q->working);
    if (!rep) return -1;
    if (rep->ndim != 4 || rep->shape[1] != c->heads) {
        snprintf(g->err, g->errlen, "the listing made %d dims, %d heads", rep->ndim,
                 rep->ndim > 1 ? rep->shape[1] : 0);
        tensor_free(rep);
        return -1;
    }
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
    char lines[2][QB_LINE];
    int served = served_by(g, &c, h, lines, &rep);
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
           "%d query heads share %d kv head%s (%s), grouped as Llama's repeat_kv does;\n"
           "kv head j of kv holds the number j:\n    %s\n    %s\n"
           "Heads count from 0.  Which kv head does query head %d read?",
           c.heads, c.kv_heads, text_s(c.kv_heads), c.kv_heads == 1 ? "MQA" : "GQA", lines[0],
           lines[1], h);
    snprintf(q->explain, sizeof q->explain,
             "Each kv head serves a block of G = heads / kv_heads consecutive query heads, so "
             "query head h reads kv head h / G (integer division).  A tiled .repeat() would give "
             "h %% kv_heads instead: the wrong grouping for weights trained with repeat_kv.");
    qt_cat(q->working, sizeof q->working,
           "G = %d / %d = %d query head%s per kv head; kv head = %d / %d = %d.\n", c.heads,
           c.kv_heads, G, text_s(G), h, G, served);
    qt_cat(q->working, sizeof q->working, "Query heads 0..%d read kv heads (", c.heads - 1);
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
    char lines[2][QB_LINE];
    int served = served_by(g, &c, h, lines, &rep);
    if (served < 0) return -1;
    tensor_free(rep);
    q->topic = QT_GQA, q->cfg = c, q->aux = h, q->kind = QK_NUMBER, q->number = served;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %d query heads share %d kv heads, grouped as repeat_kv does;\n"
           "kv head j of kv holds the number j:\n    %s\n    %s\n"
           "Heads count from 0.  Which kv head does query head %d read?",
           name, H, KV, lines[0], lines[1], h);
    snprintf(q->explain, sizeof q->explain,
             "G = %d / %d = %d: no power of two, and nothing needs one.  Query heads %d*j .. "
             "%d*j+%d read kv head j, so head h reads h // %d.  h %% %d (a tiled .repeat) "
             "would be the wrong head.",
             H, KV, G, G, G, G - 1, G, KV);
    qt_cat(q->working, sizeof q->working,
           "repeat_interleave(%d, dim=1) put kv head %d at query head %d "
           "(%d // %d = %d; %d %% %d = %d).\n",
           G, served, h, h, G, h / G, h, KV, h % KV);
    return 0;
}

/* Groups that are not powers of two: Llama 4's 40 query heads over 8 kv
 * heads (groups of 5) and Falcon-7B's 71 over 1, read from their presets
 * (assets/models.presets, each cited at its config.json).  The listing
 * makes a real (B, KV, S, d_head) K and repeats it, run by the interpreter
 * from its text. */
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
    /* K made by the listing itself: the interpreter runs what is shown */
    char lines[2][QB_LINE];
    snprintf(lines[0], QB_LINE, "K = torch.zeros(%d, %d, %d, %d)", B, KV, S, dh);
    snprintf(lines[1], QB_LINE, "K = K.repeat_interleave(%d // %d, dim=1)", H, KV);
    Tensor *rep = run_listing(g, lines, 2, q->working, sizeof q->working);
    if (!rep) return -1;
    if (rep->ndim != 4) {
        snprintf(g->err, g->errlen, "groups: the listing made %d dims", rep->ndim);
        tensor_free(rep);
        return -1;
    }
    q->topic = QT_GQA;
    q->cfg = mha_config_default();
    q->cfg.batch = B, q->cfg.seq = S, q->cfg.heads = H, q->cfg.kv_heads = KV;
    q->cfg.d_model = H * dh;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s: %d query heads, %d kv head%s, d_head %d.\nK for B = %d, S = %d:\n    %s\n    "
           "%s\nWhat is the shape of K now?",
           name, H, KV, text_s(KV), dh, B, S, lines[0], lines[1]);
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
    tensor_free(rep);
    return 0;
}
