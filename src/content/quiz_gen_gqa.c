/* quiz_gen_gqa.c - grouped-query attention: K and V shapes when kv heads are
 * shared, which kv head a query head reads, what repeat_interleave copies. */
#include <stdio.h>
#include <string.h>

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
           qb_var(target));
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
    qb_working(&b, q->working, sizeof q->working);
    qb_free(&b);
    return 0;
}

/* The kv head each query head reads, as the engine's repeat_interleave of kv
 * heads that hold their own index lays them out.  -1 on failure. */
static int served_by(const MhaConfig *c, int h, Tensor **rep_out, char *err, size_t errlen)
{
    int sh[4] = {1, c->kv_heads, 1, 1}; /* (B, KV, S, dh) with kv head j holding j */
    Tensor *k = tensor_zeros(4, sh);
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
    int divs[16] = {1}, nd = 0;
    for (int k = 1; k < c.heads && nd < 16; k++)
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
           c.heads, c.kv_heads, c.kv_heads == 1 ? "" : "s", c.kv_heads == 1 ? "MQA" : "GQA", h);
    snprintf(q->explain, sizeof q->explain,
             "Each kv head serves a block of G = heads / kv_heads consecutive query heads, so "
             "query head h reads kv head h / G (integer division).  A tiled .repeat() would give "
             "h %% kv_heads instead: the wrong grouping for weights trained with repeat_kv.");
    qt_cat(q->working, sizeof q->working,
           "G = %d / %d = %d query heads per kv head; kv head = %d / %d = %d.\n", c.heads,
           c.kv_heads, G, h, G, served);
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
    qb_need(&b, MT_K_EXPAND); /* both ways, so the working compares them */
    qb_need(&b, MT_K_REPEAT);
    q->topic = QT_GQA;
    q->cfg = c;
    q->tensor = target;
    q->kind = QK_NUMBER;
    q->number = (long long)b.copied[target];
    char sh[64];
    const Tensor *kh = qb_t(&b, MT_K_HEADS);
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "K is float32, split into kv heads: %s.\n    %s\n",
           tensor_fmt_dims(sh, sizeof sh, kh->ndim, kh->shape), b.line[target]);
    qt_cat(q->prompt, sizeof q->prompt, "How many bytes does that line copy?");
    snprintf(q->explain, sizeof q->explain,
             "repeat_interleave writes a new buffer of B x heads x S x d_head floats (4 bytes "
             "each); expand only adds a stride-0 axis, so it copies nothing.  Both give every "
             "query head its K; only one pays for it in memory.");
    qb_working(&b, q->working, sizeof q->working);
    qb_free(&b);
    return 0;
}
