/* quiz_gen_layout.c - the layout topics: the shape after a step, the
 * strides, contiguity, and the storage offset of an element. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Distractors for a shape: the answer with two dims swapped, the shapes of
 * the other tensors the program made, and the usual confusions. */
static void tuple_distractors(const QBuild *b, const long long *ans, int n,
                              char (*cand)[QUIZ_CHOICE_MAX], int *nc, int maxc)
{
    char buf[QUIZ_CHOICE_MAX];
    long long v[QUIZ_MAX_TUPLE];
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n && *nc < maxc; j++) {
            memcpy(v, ans, sizeof(long long) * (size_t)n);
            long long t = v[i];
            v[i] = v[j], v[j] = t;
            snprintf(cand[(*nc)++], QUIZ_CHOICE_MAX, "%s", qt_fmt_tuple(buf, sizeof buf, n, v));
        }
    for (int k = 0; k < b->n && *nc < maxc; k++) {
        if (b->made[k] < 0) continue; /* a temporary (Q_groups): not a tensor of the run */
        const Tensor *t = qb_t(b, b->made[k]);
        for (int i = 0; i < t->ndim; i++)
            v[i] = t->shape[i];
        snprintf(cand[(*nc)++], QUIZ_CHOICE_MAX, "%s", qt_fmt_tuple(buf, sizeof buf, t->ndim, v));
    }
    const long long B = b->B, S = b->S, D = b->D, H = b->H, KV = b->KV, dh = b->dh;
    const long long usual[][4] = {{B, S, D, 0}, {B, H, S, dh}, {B, S, H, dh},      {B, KV, S, dh},
                                  {B, H, S, S}, {B, H, dh, S}, {B, S, KV * dh, 0}, {B, S, S, 0}};
    for (int u = 0; u < NELEM(usual) && *nc < maxc; u++) {
        int k = usual[u][3] ? 4 : 3;
        snprintf(cand[(*nc)++], QUIZ_CHOICE_MAX, "%s", qt_fmt_tuple(buf, sizeof buf, k, usual[u]));
    }
}

/* Half the shape questions are multiple choice: the answer among three
 * distractors built from it; the others take a typed shape. */
void quiz_shape_choices(QuizQuestion *q, QuizRng *r, const QBuild *b)
{
    if (!quiz_rng_below(r, 2)) return;
    char cand[48][QUIZ_CHOICE_MAX], ans[QUIZ_CHOICE_MAX];
    int nc = 0;
    tuple_distractors(b, q->tuple, q->n_tuple, cand, &nc, 48);
    qt_fmt_tuple(ans, sizeof ans, q->n_tuple, q->tuple);
    qc_make(q, r, ans, cand, nc, 3);
}

static void set_tuple(QuizQuestion *q, const Tensor *t, int strides)
{
    q->kind = QK_TUPLE;
    q->n_tuple = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        q->tuple[i] = strides ? t->strides[i] : t->shape[i];
}

int quiz_gen_shape(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q,      MT_K,    MT_Q_SPLIT,  MT_Q_HEADS, MT_K_HEADS,
                                  MT_SCORES, MT_ATTN, MT_HEAD_OUT, MT_MERGED,  MT_MERGED_CONTIG,
                                  MT_CONCAT, MT_OUT};
    MhaConfig c = qcfg_real(&g->r, 0, 8.5e6);
    int target = qc_pick(&g->r, targets, NELEM(targets));
    QBuild b;
    if (qb_begin(g, &b, &c, target, QT_SHAPES)) return -1;
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qb_code_lines(&b, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "What is the shape of %s after the last line?",
           mha_tensor_names[target]);
    set_tuple(q, qb_t(&b, target), 0);
    quiz_shape_choices(q, &g->r, &b);
    snprintf(q->explain, sizeof q->explain,
             "%s  The whole path: x (B, S, D) -> view (B, S, H, dh) -> transpose(1, 2) (B, H, "
             "S, dh) -> scores (B, H, S, S) -> attn @ V (B, H, S, dh) -> transpose(1, 2), "
             "contiguous(), view -> (B, S, D) -> @ W_O (B, S, D).",
             qt_step_note(target));
    if (qb_working(&b, q->working, sizeof q->working) < 0) return qb_refuse(g, &b);
    qb_free(&b);
    return 0;
}

int quiz_gen_strides(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q,       MT_Q_SPLIT,  MT_Q_HEADS,
                                  MT_K_HEADS, MT_MERGED,   MT_MERGED_CONTIG,
                                  MT_CONCAT,  MT_K_EXPAND, MT_Q_WRONG};
    int target = qc_pick(&g->r, targets, NELEM(targets));
    int kv_target = target == MT_K_EXPAND || target == MT_K_HEADS;
    MhaConfig c = qcfg_real(&g->r, target == MT_K_EXPAND, 1.1e6);
    if (kv_target && c.kv_heads == 1 && c.heads >= 4) c.kv_heads = 2; /* a kv axis of size > 1 */
    QBuild b;
    if (qb_begin(g, &b, &c, target, QT_STRIDES)) return -1;
    const Tensor *t = qb_t(&b, target);
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qb_code_lines(&b, q->prompt, sizeof q->prompt);
    char sh[64], rm[64], have[64];
    tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
    qt_cat(q->prompt, sizeof q->prompt, "%s is now %s.  What are its strides (in elements)?",
           mha_tensor_names[target], sh);
    set_tuple(q, t, 1);
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] == 1) q->tuple_free |= 1u << i;
    qt_rowmajor(rm, sizeof rm, t);
    tensor_fmt_strides(have, sizeof have, t);
    snprintf(q->explain, sizeof q->explain,
             "%s  Only a fresh buffer (a matmul output, a copy) has row-major strides: last "
             "stride 1, each one the product of the sizes after it.  view re-reads the strides "
             "for the new shape, transpose swaps two, expand gives stride 0, contiguous() copies "
             "into a row-major buffer.",
             qt_step_note(target));
    if (strcmp(rm, have))
        qt_cat(q->explain, sizeof q->explain,
               "  %s are the row-major strides for this shape, what a copy would have; this "
               "tensor has not been copied.",
               rm);
    if (qb_working(&b, q->working, sizeof q->working) < 0) return qb_refuse(g, &b);
    if (q->tuple_free)
        qt_cat(q->working, sizeof q->working,
               "A size-1 axis never moves the offset, so its stride is never used: any value is "
               "accepted there.\n");
    qb_free(&b);
    return 0;
}

int quiz_gen_contig(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q_SPLIT, MT_Q_HEADS,  MT_MERGED,  MT_MERGED_CONTIG,
                                  MT_CONCAT,  MT_K_EXPAND, MT_Q_WRONG, MT_K_HEADS};
    /* "yes" and "no" equally often: the answer is drawn first, then cases
     * until one has it (each case a real run) */
    int want_yes = quiz_rng_below(&g->r, 2), target = MT_Q;
    MhaConfig c;
    QBuild b;
    for (int tries = 0;; tries++) {
        target = qc_pick(&g->r, targets, NELEM(targets));
        c = qcfg_toy(&g->r, 0);
        if (quiz_rng_below(&g->r, 5) == 0) c.seq = 1; /* the edge case: size-1 dims do not count */
        if (target == MT_K_EXPAND && c.kv_heads == c.heads) c.kv_heads = 1;
        if (qb_begin(g, &b, &c, target, QT_STRIDES)) return -1;
        if (tensor_is_contiguous(qb_t(&b, target)) == want_yes || tries == 40) break;
        qb_free(&b);
    }
    const Tensor *t = qb_t(&b, target);
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qb_code_lines(&b, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "Is %s contiguous after the last line?",
           mha_tensor_names[target]);
    int yes = tensor_is_contiguous(t);
    qc_yes_no(q, yes); /* the answer itself is balanced */
    snprintf(q->explain, sizeof q->explain,
             "Contiguous means the strides are the row-major ones for the shape (each stride = "
             "product of the sizes after it), ignoring dims of size 1 as PyTorch does.  A view of "
             "a contiguous tensor that only splits or merges adjacent dims stays contiguous; a "
             "transpose of two dims of size > 1 does not; expand (stride 0) does not; "
             "contiguous() always gives a contiguous tensor.");
    char st[64], rm[64], sh[64];
    if (qb_working(&b, q->working, sizeof q->working) < 0) return qb_refuse(g, &b);
    tensor_fmt_strides(st, sizeof st, t);
    qt_rowmajor(rm, sizeof rm, t);
    qt_cat(q->working, sizeof q->working,
           "%s has shape %s and strides %s; row-major strides would be %s -> %s%s.\n",
           mha_tensor_names[target], tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape), st, rm,
           yes ? "contiguous" : "not contiguous",
           yes && strcmp(st, rm) ? " (they differ only on size-1 axes, which PyTorch ignores)"
                                 : "");
    qb_free(&b);
    return 0;
}

int quiz_gen_offset(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q_HEADS, MT_Q_HEADS, MT_Q_SPLIT,
                                  MT_K_HEADS, MT_MERGED,  MT_Q_WRONG};
    int target = qc_pick(&g->r, targets, NELEM(targets));
    MhaConfig c = qcfg_toy(&g->r, 1);
    /* at most 96 floats: the whole buffer fits the candy bar at 80x24 */
    for (int tries = 0; tries < 50 && c.batch * c.seq * c.d_model > 96; tries++)
        c = qcfg_toy(&g->r, 1);
    QBuild b;
    if (qb_begin(g, &b, &c, target, QT_OFFSETS)) return -1;
    const Tensor *t = qb_t(&b, target);
    /* at least two indices off 0: Q[0, 0, 0, 3] at offset 3 asks nothing */
    for (int tries = 0, nz = 0; tries < 20 && nz < 2; tries++) {
        nz = 0;
        for (int i = 0; i < 4; i++)
            q->idx[i] = quiz_rng_below(&g->r, t->shape[i]), nz += q->idx[i] > 0;
    }
    size_t off = tensor_offset_of(t, q->idx);
    q->kind = QK_NUMBER;
    q->number = (long long)off;
    const char *name = mha_tensor_names[target];
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "%s",
           target == MT_MERGED ? "head_out is a new contiguous (B, H, S, dh) buffer; then\n"
                               : "The projection is one contiguous buffer; then\n");
    qb_code_lines(&b, q->prompt, sizeof q->prompt);
    char sh[64];
    qt_cat(q->prompt, sizeof q->prompt,
           "%s is %s.  Which storage offset (in floats, from the buffer's start) holds "
           "%s[%d, %d, %d, %d]?",
           name, tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape), name, q->idx[0], q->idx[1],
           q->idx[2], q->idx[3]);
    snprintf(q->explain, sizeof q->explain,
             "offset = storage offset + sum of index x stride over the dims.  Work out the "
             "strides first: the buffer is row-major for its own shape; a view re-reads those "
             "strides for the new shape; a transpose swaps two of them.  No byte moved, so the "
             "element is still where the projection wrote it.");
    if (qb_working(&b, q->working, sizeof q->working) < 0) return qb_refuse(g, &b);
    qt_cat(q->working, sizeof q->working, "offset = %zu", t->offset);
    for (int i = 0; i < 4; i++)
        qt_cat(q->working, sizeof q->working, " + %d*%ld", q->idx[i], t->strides[i]);
    qt_cat(q->working, sizeof q->working, " = %zu\n", off);
    q->pic.on = 1;
    q->pic.cfg = c;
    q->pic.tensor = qb_storage_owner(&b, target);
    q->pic.lit = (long)off;
    qb_free(&b);
    return 0;
}
