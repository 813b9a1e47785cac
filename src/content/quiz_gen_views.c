/* quiz_gen_views.c - view, copy or error?  One operation written as the
 * line a learner reads and run by the interpreter on a tensor of the
 * pipeline (after the listing before it); the answer is what that run did. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

static const char *const reshape_note =
    "reshape() depends: it is a view when the strides allow one (as view() would), and "
    "contiguous() + view (a copy) otherwise.";

static const char *const op_explain[QUIZ_OP_COUNT] = {
    [QUIZ_OP_VIEW_SPLIT] = "view() never copies: it only computes new strides, and works when "
                           "the old strides can express the new shape (always, for a contiguous "
                           "tensor).",
    [QUIZ_OP_VIEW_MERGED] = "view() never copies, so when the strides cannot express the new "
                            "shape it refuses (the error PyTorch gives); merging heads back after "
                            "a transpose needs .contiguous() first, or .reshape().",
    [QUIZ_OP_TRANSPOSE] = "transpose() swaps two strides: a view, 0 bytes moved; the result is "
                          "usually non-contiguous.",
    [QUIZ_OP_PERMUTE] = "permute() reorders the strides: a view, 0 bytes moved (a transpose is "
                        "a permute of two dims).",
    [QUIZ_OP_CONTIG_HEADS] = "contiguous() copies only when the tensor is not already row-major; "
                             "after a transpose of two dims of size > 1 it is a real copy into a "
                             "new buffer.",
    [QUIZ_OP_CONTIG_SPLIT] = "contiguous() on a tensor that is already row-major returns it as "
                             "is: no copy.",
    [QUIZ_OP_RESHAPE_HEADS] = NULL, /* reshape_note */
    [QUIZ_OP_RESHAPE_SPLIT] = NULL,
    [QUIZ_OP_RESHAPE_MERGED] = NULL,
    [QUIZ_OP_EXPAND] = "expand() gives the new axis stride 0: every group member reads the same "
                       "bytes.  A view, 0 bytes copied; this is how GQA can share K/V without a "
                       "copy.",
    [QUIZ_OP_REPEAT] = "repeat_interleave() always writes a new buffer with each kv head "
                       "repeated G times: a copy (Llama's repeat_kv does the same with expand + "
                       "reshape, which copies too).",
    [QUIZ_OP_DOT_T] = ".T on a 2-D tensor is transpose(0, 1): a view, strides swapped, 0 bytes.",
};

/* The pipeline tensor op applies to. */
static int op_source(int op)
{
    switch (op) {
    case QUIZ_OP_VIEW_SPLIT:
    case QUIZ_OP_RESHAPE_SPLIT:
        return MT_Q;
    case QUIZ_OP_VIEW_MERGED:
    case QUIZ_OP_RESHAPE_MERGED:
        return MT_MERGED;
    case QUIZ_OP_TRANSPOSE:
    case QUIZ_OP_PERMUTE:
    case QUIZ_OP_CONTIG_SPLIT:
        return MT_Q_SPLIT;
    case QUIZ_OP_CONTIG_HEADS:
    case QUIZ_OP_RESHAPE_HEADS:
        return MT_Q_HEADS;
    case QUIZ_OP_EXPAND:
    case QUIZ_OP_REPEAT:
        return MT_K_HEADS;
    default:
        return MT_W_Q;
    }
}

/* The line that applies op to the listing's variable v, as a learner types
 * it: the only source of what the question asks; the interpreter runs it. */
static void op_code(const QBuild *b, int op, const char *v, char *code, size_t codelen)
{
    const int B = b->B, S = b->S, D = b->D, H = b->H, KV = b->KV, dh = b->dh, G = b->G;
    switch (op) {
    case QUIZ_OP_VIEW_SPLIT:
    case QUIZ_OP_RESHAPE_SPLIT:
        snprintf(code, codelen, "%s.%s(%d, %d, %d, %d)", v,
                 op == QUIZ_OP_VIEW_SPLIT ? "view" : "reshape", B, S, H, dh);
        break;
    case QUIZ_OP_VIEW_MERGED:
    case QUIZ_OP_RESHAPE_MERGED:
        snprintf(code, codelen, "%s.%s(%d, %d, %d)", v,
                 op == QUIZ_OP_VIEW_MERGED ? "view" : "reshape", B, S, D);
        break;
    case QUIZ_OP_RESHAPE_HEADS:
        snprintf(code, codelen, "%s.reshape(%d, %d, %d)", v, B, H, S * dh);
        break;
    case QUIZ_OP_TRANSPOSE:
        snprintf(code, codelen, "%s.transpose(1, 2)", v);
        break;
    case QUIZ_OP_PERMUTE:
        snprintf(code, codelen, "%s.permute(0, 2, 1, 3)", v);
        break;
    case QUIZ_OP_CONTIG_HEADS:
    case QUIZ_OP_CONTIG_SPLIT:
        snprintf(code, codelen, "%s.contiguous()", v);
        break;
    case QUIZ_OP_EXPAND:
        snprintf(code, codelen, "%s.unsqueeze(2).expand(%d, %d, %d, %d, %d)", v, B, KV, G, S, dh);
        break;
    case QUIZ_OP_REPEAT:
        snprintf(code, codelen, "%s.repeat_interleave(%d, dim=1)", v, G);
        break;
    default:
        snprintf(code, codelen, "W_Q.T");
    }
}

/* What the explanation adds for reshape and contiguous: why here. */
static void explain_case(QuizQuestion *q, int op, const Tensor *in)
{
    char st[64];
    tensor_fmt_strides(st, sizeof st, in);
    int reshape =
        op == QUIZ_OP_RESHAPE_HEADS || op == QUIZ_OP_RESHAPE_SPLIT || op == QUIZ_OP_RESHAPE_MERGED;
    int contig = op == QUIZ_OP_CONTIG_HEADS || op == QUIZ_OP_CONTIG_SPLIT;
    snprintf(q->explain, sizeof q->explain, "%s", op_explain[op] ? op_explain[op] : reshape_note);
    if (reshape && q->correct == 0)
        qt_cat(q->explain, sizeof q->explain,
               "  Here the strides %s can express the new shape, so reshape returned a view.", st);
    else if (reshape)
        qt_cat(q->explain, sizeof q->explain,
               "  Here the strides %s cannot express the new shape (view() would raise), so "
               "reshape copied: contiguous() first, then a view of the copy.",
               st);
    else if (contig)
        qt_cat(q->explain, sizeof q->explain, "  Here the input %s contiguous (strides %s), so %s.",
               tensor_is_contiguous(in) ? "is already" : "is not", st,
               tensor_is_contiguous(in) ? "nothing moves" : "every element is copied once");
}

int quiz_gen_viewcopy(Gen *g)
{
    QuizQuestion *q = g->q;
    /* the outcome first (view, copy, error as 2:2:1 with the key on any
     * letter), then an operation that has it: guessing a kind never pays */
    static const int views[] = {QUIZ_OP_VIEW_SPLIT,   QUIZ_OP_TRANSPOSE,     QUIZ_OP_PERMUTE,
                                QUIZ_OP_CONTIG_SPLIT, QUIZ_OP_RESHAPE_SPLIT, QUIZ_OP_EXPAND,
                                QUIZ_OP_DOT_T};
    static const int copies[] = {QUIZ_OP_CONTIG_HEADS, QUIZ_OP_RESHAPE_HEADS,
                                 QUIZ_OP_RESHAPE_MERGED, QUIZ_OP_REPEAT};
    int want = quiz_rng_below(&g->r, 5);
    int op = want < 2   ? qc_pick(&g->r, views, 7)
             : want < 4 ? qc_pick(&g->r, copies, 4)
                        : QUIZ_OP_VIEW_MERGED;
    MhaConfig c = qcfg_real(&g->r, op == QUIZ_OP_EXPAND || op == QUIZ_OP_REPEAT, 1.1e6);
    int src = op_source(op);
    QBuild b;
    if (qb_begin(g, &b, &c, src, QT_VIEWS)) return -1;
    q->aux = op;
    const Tensor *in = qb_t(&b, src);
    const char *v = mha_tensor_names[src]; /* the program's name for it */
    char code[96], sh[64], st[64];
    op_code(&b, op, v, code, sizeof code);
    /* the listing, then the question's line, run by the interpreter: the
     * answer is what that run did */
    PlayResult r = {0};
    r.error_col = -1;
    if (qb_play(&b) < 0) return qb_refuse(g, &b);
    PlayKind k = play_eval(b.play, code, &r);
    int outcome = k == PR_ERROR                                                    ? 2
                  : k == PR_TENSOR && (r.memory == PM_VIEW || r.memory == PM_SAME) ? 0
                                                                                   : 1;
    if ((k != PR_TENSOR && k != PR_ERROR) || (outcome == 2 && want < 4)) {
        snprintf(b.err, sizeof b.err, "views: `%.60s` does not run as the question says: %.100s",
                 code, k == PR_ERROR ? r.error : "no tensor");
        play_result_clear(&r);
        return qb_refuse(g, &b);
    }
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qb_code_lines(&b, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt, "Now %s is %s with strides %s.  What does\n    %s\ndo?", v,
           tensor_fmt_dims(sh, sizeof sh, in->ndim, in->shape),
           tensor_fmt_strides(st, sizeof st, in), code);
    static const char *const outcomes[3] = {"a view: same storage, 0 bytes copied",
                                            "a copy into a new buffer", "an error"};
    q->correct = outcome; /* explain_case reads the outcome */
    explain_case(q, op, in);
    qc_fixed(q, &g->r, outcomes, 3, outcome); /* the key on any letter */
    if (qb_working(&b, q->working, sizeof q->working) < 0) {
        play_result_clear(&r);
        return qb_refuse(g, &b);
    }
    qt_cat(q->working, sizeof q->working, "  %-44s -> ", code);
    if (k == PR_ERROR)
        qt_cat(q->working, sizeof q->working, "error: %s\n", r.error);
    else {
        qt_cat(q->working, sizeof q->working, "%s strides %s, ",
               tensor_fmt_dims(sh, sizeof sh, r.t->ndim, r.t->shape),
               tensor_fmt_strides(st, sizeof st, r.t));
        if (outcome == 0)
            qt_cat(q->working, sizeof q->working, "same storage: 0 bytes copied\n");
        else
            qt_cat(q->working, sizeof q->working, "new storage: %zu bytes copied\n",
                   r.copied_bytes);
    }
    play_result_clear(&r);
    qb_free(&b);
    return 0;
}
