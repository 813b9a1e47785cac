/* quiz_bugs.c - spot the wrong line: an attention program in one of several
 * code shapes with one of QUIZ_BUG_COUNT - 1 bugs, the wrong line wherever
 * that shape puts it.  The interpreter runs both programs from their text
 * (quiz_bug_run.c); the generator refuses a right program that does not give
 * the engine's y and a buggy one that does not differ from it, so every
 * question's bug is a real one for its configuration. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

#define MAXL 16

static const struct {
    const char *name, *why;
} kinds[QUIZ_BUG_COUNT] = {
    [QUIZ_BUG_NONE] = {"none", ""},
    [QUIZ_BUG_MASK_DIAG] = {"causal mask off by one",
                            "triu(..., diagonal=0) hides the diagonal too: a token cannot see "
                            "itself, and the first token sees nothing (a row of -inf, NaN after "
                            "the softmax).  The causal mask is triu(..., diagonal=1)."},
    [QUIZ_BUG_MASK_SIDE] = {"causal mask on the wrong side",
                            "tril(..., diagonal=-1) hides the past instead of the future: every "
                            "token attends to the tokens after it.  Mask above the diagonal: "
                            "triu(..., diagonal=1)."},
    [QUIZ_BUG_MASK_AFTER] = {"mask applied after the softmax",
                             "Zeroing weights after the softmax leaves rows that no longer sum "
                             "to 1 (and the future already took its share).  Mask the scores "
                             "with -inf before the softmax."},
    [QUIZ_BUG_SCALE_DMODEL] = {"scaled by sqrt(d_model)",
                               "The scores are dot products over d_head features, so the scale "
                               "is 1/sqrt(d_head); sqrt(d_model) over-flattens every head's "
                               "softmax."},
    [QUIZ_BUG_SCALE_DH] = {"scaled by d_head, not its square root",
                           "Dividing by dh instead of sqrt(dh) shrinks the scores' spread too "
                           "much: the softmax drifts towards uniform weights."},
    [QUIZ_BUG_SOFTMAX_DIM] = {"softmax over dim -2",
                              "dim=-2 normalises over the queries: each column sums to 1, but "
                              "a query's weights over the keys (its row) do not.  Softmax goes "
                              "over the last dim, the keys."},
    [QUIZ_BUG_TRANSPOSE_23] = {"transpose(2, 3) for transpose(1, 2)",
                               "transpose(2, 3) swaps heads and d_head, giving (B, S, dh, "
                               "heads): the heads never come first.  Heads first is "
                               "transpose(1, 2)."},
    [QUIZ_BUG_VIEW] = {"view(B, H, S, dh) without the transpose",
                       "view(B, heads, S, dh) straight from (B, S, D) relabels consecutive "
                       "chunks of the token-major buffer: a 'head' row mixes the features of "
                       "several tokens.  Split with view(B, S, heads, dh), then transpose(1, "
                       "2)."},
    [QUIZ_BUG_CONTIG] = {"view after transpose without contiguous",
                         "After transpose(1, 2) the strides cannot express (B, S, D), and view "
                         "never copies, so PyTorch raises.  Call .contiguous() first (the one "
                         "real copy), or .reshape()."},
    [QUIZ_BUG_GQA_MOD] = {"GQA kv index h % KV for h // G",
                          "Query head h reads kv head h // (H // KV): blocks of consecutive "
                          "heads share one, as repeat_kv lays them out.  h % KV interleaves "
                          "them: the shapes match, the heads read the wrong keys."},
    [QUIZ_BUG_REPEAT] = {".repeat for .repeat_interleave",
                         ".repeat tiles the kv heads (0, 1, 0, 1, ...) instead of repeating "
                         "each in place (0, 0, 1, 1, ...): same shape, wrong kv head for most "
                         "query heads."},
    [QUIZ_BUG_K_NOT_T] = {"K not transposed",
                          "q (B, H, S, dh) @ k (B, H, S, dh) pairs dh against S: an error unless "
                          "S == dh, and when they are equal it silently multiplies the wrong "
                          "axes.  The scores need k.transpose(-2, -1), (B, H, dh, S)."},
    [QUIZ_BUG_WO_PER_HEAD] = {"W_O applied per head before the concat",
                              "W_O is (D, D): it mixes the concatenated heads.  Applied to "
                              "(B, H, S, dh) before the merge the shapes do not even match.  "
                              "Concatenate first, then @ W_o."},
    [QUIZ_BUG_CONCAT_ORDER] = {"heads concatenated in the wrong order",
                               "permute(0, 2, 3, 1) puts d_head before the heads: each token's "
                               "features come out interleaved (feature 0 of every head, then "
                               "feature 1 ...), not head after head as W_O was trained on."},
    [QUIZ_BUG_NO_BACK] = {"merge without transposing back",
                          "(B, H, S, dh) viewed as (B, S, D) without transpose(1, 2) cuts the "
                          "heads-first buffer into rows: a 'token' row holds pieces of one "
                          "head for several tokens."},
    [QUIZ_BUG_BATCH_FIRST] = {"batch_first confusion",
                              "x arrives sequence first, (S, B, D).  view(B, S, D) keeps the "
                              "bytes in (S, B) order and relabels them, mixing the batch's "
                              "sequences; transpose(0, 1) swaps the axes."},
    [QUIZ_BUG_KV_AS_H] = {"the MHA head count for K/V in a GQA model",
                          "K and V have KV x dh features, not H x dh: view(B, S, H, dh) asks "
                          "for more elements than the tensor has, and PyTorch raises."},
};

const char *quiz_bug_name(int bug)
{
    return bug >= 0 && bug < QUIZ_BUG_COUNT ? kinds[bug].name : "?";
}

/* The code shape: which lines are fused, in which order q, k, v come. */
typedef struct Shape {
    int order[3];  /* q, k, v in this order */
    int proj;      /* 0: all projections, then all splits; 1: fused; 2: pairs */
    int share;     /* GQA: 0 separate lines, 1 one line, 2 an index list */
    int fuse_sm;   /* softmax of the scores in one line (no mask) */
    int merge;     /* 0: o, merge, y; 1: o, y = merge @ W_o; 2: o = merge(a @ v), y */
    int mask_top;  /* the mask line first */
    int seq_first; /* x arrives (S, B, D) */
} Shape;

typedef struct Prog {
    char line[MAXL][QUIZ_BUG_LINE];
    int n, wrong;
} Prog;

static void add(Prog *p, int wrong, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void add(Prog *p, int wrong, const char *fmt, ...)
{
    if (p->n >= MAXL) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->line[p->n], sizeof p->line[0], fmt, ap);
    va_end(ap);
    p->n++;
    if (wrong) p->wrong = p->n;
}

/* The split of tensor i ("view(B, S, H, dh).transpose(1, 2)") into buf;
 * returns 1 when the bug is on it. */
static int split_expr(int bug, int which, int i, int gqa, char *buf, size_t n)
{
    const char *heads = i && gqa ? "KV" : "H";
    int on = which == i;
    if (on && bug == QUIZ_BUG_VIEW)
        snprintf(buf, n, "view(B, %s, S, dh)", heads);
    else if (on && bug == QUIZ_BUG_TRANSPOSE_23)
        snprintf(buf, n, "view(B, S, %s, dh).transpose(2, 3)", heads);
    else if (on && bug == QUIZ_BUG_KV_AS_H)
        snprintf(buf, n, "view(B, S, H, dh).transpose(1, 2)");
    else
        snprintf(buf, n, "view(B, S, %s, dh).transpose(1, 2)", heads);
    return on && (bug == QUIZ_BUG_VIEW || bug == QUIZ_BUG_TRANSPOSE_23 || bug == QUIZ_BUG_KV_AS_H);
}

/* The causal mask (True above the diagonal: the future), or the bug's. */
static void add_mask(Prog *p, int bug)
{
    if (bug == QUIZ_BUG_MASK_SIDE)
        add(p, 1, "mask = torch.tril(torch.ones(S, S, dtype=torch.bool), diagonal=-1)");
    else
        add(p, bug == QUIZ_BUG_MASK_DIAG,
            "mask = torch.triu(torch.ones(S, S, dtype=torch.bool), diagonal=%d)",
            bug == QUIZ_BUG_MASK_DIAG ? 0 : 1);
}

static void prog_heads(Prog *p, const Shape *s, int bug, int which, int gqa)
{
    static const char *const v[3] = {"q", "k", "v"};
    if (s->seq_first)
        add(p, bug == QUIZ_BUG_BATCH_FIRST, "x = x.%s",
            bug == QUIZ_BUG_BATCH_FIRST ? "view(B, S, D)" : "transpose(0, 1)");
    char e[80];
    if (s->proj == 0)
        for (int k = 0; k < 3; k++)
            add(p, 0, "%s = x @ W_%s", v[s->order[k]], v[s->order[k]]);
    for (int k = 0; k < 3; k++) {
        int i = s->order[k], on = split_expr(bug, which, i, gqa, e, sizeof e);
        if (s->proj == 1)
            add(p, on, "%s = (x @ W_%s).%s", v[i], v[i], e);
        else {
            if (s->proj == 2) add(p, 0, "%s = x @ W_%s", v[i], v[i]);
            add(p, on, "%s = %s.%s", v[i], v[i], e);
        }
    }
}

static void prog_share(Prog *p, const Shape *s, int bug, int which)
{
    int rk = bug == QUIZ_BUG_REPEAT && which == 1, rv = bug == QUIZ_BUG_REPEAT && which == 2;
    const char *ri = "repeat_interleave(H // KV, dim=1)", *rt = "repeat(1, H // KV, 1, 1)";
    if (s->share == 2) { /* idx[h]: the kv head query head h reads, h // G (the bug: h % KV) */
        int mod = bug == QUIZ_BUG_GQA_MOD;
        add(p, mod, "idx = torch.arange(KV).%s(H // KV)", mod ? "repeat" : "repeat_interleave");
        add(p, 0, "k, v = k.index_select(1, idx), v.index_select(1, idx)");
    } else if (s->share == 1) /* never with the .repeat bug: that one hits k or v alone */
        add(p, 0, "k, v = k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1)");
    else {
        add(p, rk, "k = k.%s", rk ? rt : ri);
        add(p, rv, "v = v.%s", rv ? rt : ri);
    }
}

static void prog_attn(Prog *p, const Shape *s, int bug, int causal)
{
    const char *scale = bug == QUIZ_BUG_SCALE_DH       ? "/ dh"
                        : bug == QUIZ_BUG_SCALE_DMODEL ? "/ math.sqrt(D)"
                                                       : "/ math.sqrt(dh)";
    const char *kt = bug == QUIZ_BUG_K_NOT_T ? "k" : "k.transpose(-2, -1)";
    int on_scores =
        bug == QUIZ_BUG_SCALE_DH || bug == QUIZ_BUG_SCALE_DMODEL || bug == QUIZ_BUG_K_NOT_T;
    int on_sm = bug == QUIZ_BUG_SOFTMAX_DIM;
    const char *dim = on_sm ? "-2" : "-1";
    if (!causal && s->fuse_sm) {
        add(p, on_scores || on_sm, "a = torch.softmax(q @ %s %s, dim=%s)", kt, scale, dim);
        return;
    }
    add(p, on_scores, "scores = q @ %s %s", kt, scale);
    if (causal && !s->mask_top) add_mask(p, bug);
    if (causal && bug != QUIZ_BUG_MASK_AFTER)
        add(p, 0, "scores = scores.masked_fill(mask, float('-inf'))");
    add(p, on_sm, "a = torch.softmax(scores, dim=%s)", dim);
    if (causal && bug == QUIZ_BUG_MASK_AFTER) add(p, 1, "a = a.masked_fill(mask, 0.0)");
}

static void prog_merge(Prog *p, const Shape *s, int bug)
{
    const char *m = bug == QUIZ_BUG_CONTIG         ? "transpose(1, 2).view(B, S, D)"
                    : bug == QUIZ_BUG_NO_BACK      ? "contiguous().view(B, S, D)"
                    : bug == QUIZ_BUG_CONCAT_ORDER ? "permute(0, 2, 3, 1).reshape(B, S, D)"
                                                   : "transpose(1, 2).contiguous().view(B, S, D)";
    int on = bug == QUIZ_BUG_CONTIG || bug == QUIZ_BUG_NO_BACK || bug == QUIZ_BUG_CONCAT_ORDER;
    if (bug == QUIZ_BUG_WO_PER_HEAD) {
        add(p, 0, "o = a @ v");
        add(p, 1, "y = (o @ W_o).%s", m);
    } else if (s->merge == 2) {
        add(p, on, "o = (a @ v).%s", m);
        add(p, 0, "y = o @ W_o");
    } else {
        add(p, 0, "o = a @ v");
        if (s->merge == 1)
            add(p, on, "y = o.%s @ W_o", m);
        else {
            add(p, on, "o = o.%s", m);
            add(p, 0, "y = o @ W_o");
        }
    }
}

/* The whole program for c with bug (QUIZ_BUG_NONE: the right one). */
static void program(const MhaConfig *c, const Shape *s, int bug, int which, Prog *p)
{
    memset(p, 0, sizeof *p);
    int gqa = c->kv_heads < c->heads;
    if (c->causal && s->mask_top) add_mask(p, bug);
    prog_heads(p, s, bug, which, gqa);
    if (gqa) prog_share(p, s, bug, which);
    prog_attn(p, s, bug, c->causal);
    prog_merge(p, s, bug);
}

/* The configuration and code shape a bug needs, drawn from r. */
static void draw_case(QuizRng *r, int bug, MhaConfig *c, Shape *s, int *which)
{
    int gqa_bug = bug == QUIZ_BUG_REPEAT || bug == QUIZ_BUG_GQA_MOD || bug == QUIZ_BUG_KV_AS_H;
    int mask_bug =
        bug == QUIZ_BUG_MASK_DIAG || bug == QUIZ_BUG_MASK_SIDE || bug == QUIZ_BUG_MASK_AFTER;
    *c = mha_config_default();
    c->d_model = 16;
    c->heads = gqa_bug ? 4 : (quiz_rng_below(r, 2) ? 2 : 4);
    c->kv_heads = gqa_bug ? 2 : (c->heads == 4 && quiz_rng_below(r, 2) ? 2 : c->heads);
    c->batch = bug == QUIZ_BUG_BATCH_FIRST ? 2 : 1 + quiz_rng_below(r, 2);
    c->causal = mask_bug || quiz_rng_below(r, 3) == 0;
    c->seed = (uint32_t)(quiz_rng_next(r) % 1000) + 1;
    memset(s, 0, sizeof *s);
    for (int i = 0; i < 3; i++)
        s->order[i] = i;
    for (int i = 2; i > 0; i--) {
        int j = quiz_rng_below(r, i + 1), t = s->order[i];
        s->order[i] = s->order[j], s->order[j] = t;
    }
    s->proj = quiz_rng_below(r, 3);
    s->share = bug == QUIZ_BUG_GQA_MOD  ? 2
               : bug == QUIZ_BUG_REPEAT ? 0 /* one line per tensor: the bug hits one */
                                        : quiz_rng_below(r, 3);
    s->fuse_sm = quiz_rng_below(r, 2);
    s->merge = bug == QUIZ_BUG_WO_PER_HEAD ? 1 : quiz_rng_below(r, 3);
    s->mask_top = quiz_rng_below(r, 2);
    s->seq_first = bug == QUIZ_BUG_BATCH_FIRST || (c->batch > 1 && quiz_rng_below(r, 4) == 0);
    /* the tensor a per-tensor bug hits: k or v for the kv bugs */
    *which = gqa_bug ? 1 + quiz_rng_below(r, 2) : quiz_rng_below(r, 3);
    /* at most 14 lines, so the whole program stays on an 80x24 screen with
     * its feedback: fuse the projections when a shape would be longer */
    Prog p;
    program(c, s, bug, *which, &p);
    if (p.n > 14) s->proj = 1;
}

/* The shape travels in the question (idx[1], idx[2]) so a test can print the
 * right program beside the buggy one. */
static int pack_shape(const Shape *s)
{
    return s->order[0] | s->order[1] << 2 | s->order[2] << 4 | s->proj << 6 | s->share << 8 |
           s->fuse_sm << 10 | s->merge << 11 | s->mask_top << 13 | s->seq_first << 14;
}

static Shape unpack_shape(int v)
{
    Shape s = {{v & 3, v >> 2 & 3, v >> 4 & 3},
               v >> 6 & 3,
               v >> 8 & 3,
               v >> 10 & 1,
               v >> 11 & 3,
               v >> 13 & 1,
               v >> 14 & 1};
    return s;
}

/* The token row where y differs most (0 when y is NULL). */
static int worst_row(const Mha *m, const Tensor *y, int *bb)
{
    int best = 0;
    double bd = -1;
    *bb = 0;
    for (int b = 0; y && b < m->cfg.batch; b++)
        for (int s = 0; s < m->cfg.seq; s++)
            for (int j = 0; j < m->cfg.d_model; j++) {
                int ix[3] = {b, s, j};
                double d = fabs((double)tensor_get(y, ix) - tensor_get(m->t[MT_OUT], ix));
                if (isnan(d) || d > bd) bd = isnan(d) ? INFINITY : d, best = s, *bb = b;
            }
    return best;
}

static void row_values(char *w, size_t wn, const char *label, const Tensor *t, int b, int s,
                       int cols)
{
    qt_cat(w, wn, "  %s: y[%d, %d, :%d] = (", label, b, s, cols);
    for (int j = 0; j < cols; j++) {
        int ix[3] = {b, s, j};
        qt_cat(w, wn, "%s%.3f", j ? ", " : "", tensor_get(t, ix));
    }
    qt_cat(w, wn, ")\n");
}

/* The row of y where the programs differ most, right and buggy, or the
 * engine's error: the working. */
static void bug_working(QuizQuestion *q, const Mha *m, const Tensor *y, const char *err)
{
    char *w = q->working;
    size_t wn = sizeof q->working;
    const MhaConfig *c = &m->cfg;
    int cols = c->d_model < 6 ? c->d_model : 6, b, s = worst_row(m, y, &b);
    qt_cat(w, wn, "The engine ran both programs on B=%d, S=%d, D=%d (seed %u%s):\n", c->batch,
           c->seq, c->d_model, (unsigned)c->seed, c->causal ? ", causal" : "");
    row_values(w, wn, "right", m->t[MT_OUT], b, s, cols);
    if (!y) {
        qt_cat(w, wn, "  buggy: RuntimeError: %s\n", err);
        return;
    }
    row_values(w, wn, "buggy", y, b, s, cols);
    double d = quiz_bug_diff(m, y);
    if (isinf(d))
        qt_cat(w, wn, "  (NaN in the output: a row of the softmax had no key left)\n");
    else
        qt_cat(w, wn, "  largest difference over y: %.3f\n", d);
}

static void bug_prompt(QuizQuestion *q, const MhaConfig *c, const Shape *s, const Prog *p)
{
    int dh = c->d_model / c->heads;
    if (s->seq_first)
        qt_cat(q->prompt, sizeof q->prompt,
               "x is (S, B, D) = (%d, %d, %d): sequence first (batch_first=False).\n", c->seq,
               c->batch, c->d_model);
    else
        qt_cat(q->prompt, sizeof q->prompt, "x is (B, S, D) = (%d, %d, %d).\n", c->batch, c->seq,
               c->d_model);
    qt_cat(q->prompt, sizeof q->prompt, "H = %d query head%s, KV = %d kv head%s, dh = %d%s.\n",
           c->heads, text_s(c->heads), c->kv_heads, text_s(c->kv_heads), dh,
           c->causal ? "; causal: token i sees tokens 0..i" : "");
    for (int i = 0; i < p->n; i++)
        qt_cat(q->prompt, sizeof q->prompt, "%3d  %s\n", i + 1, p->line[i]);
    qt_cat(q->prompt, sizeof q->prompt, "One line is wrong.  Which one (1-%d)?", p->n);
}

/* Draws a case of bug until the engine shows it differs (a few seeds). */
static int build_bug(Gen *g, int bug)
{
    QuizQuestion *q = g->q;
    MhaConfig c;
    Shape s;
    int which;
    draw_case(&g->r, bug, &c, &s, &which);
    for (int tries = 0; tries < 8; tries++, c.seed++) {
        char err[240] = "";
        Mha *m = mha_run(&c, g->err, g->errlen);
        if (!m) return -1;
        /* both programs run from their text: the right one must give the
         * run's y (else the listing is refused), the buggy one must not */
        Prog p, right;
        program(&c, &s, bug, which, &p);
        program(&c, &s, QUIZ_BUG_NONE, which, &right);
        Tensor *y0 = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])right.line, right.n, s.seq_first,
                                  err, sizeof err);
        double d0 = quiz_bug_diff(m, y0);
        tensor_free(y0);
        if (d0 > 1e-4) {
            snprintf(g->err, g->errlen,
                     "bug '%s': the right program does not run as the engine: %s", kinds[bug].name,
                     y0 ? "another y" : err);
            mha_free(m);
            return -1;
        }
        Tensor *y = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])p.line, p.n, s.seq_first, err,
                                 sizeof err);
        double d = quiz_bug_diff(m, y);
        if (d > 1e-4) {
            q->topic = QT_BUGS, q->cfg = c, q->aux = bug, q->idx[0] = which;
            q->idx[1] = pack_shape(&s);
            q->kind = QK_NUMBER, q->number = p.wrong;
            bug_prompt(q, &c, &s, &p);
            snprintf(q->explain, sizeof q->explain, "Line %d (%s): %s", p.wrong, kinds[bug].name,
                     kinds[bug].why);
            bug_working(q, m, y, err);
        }
        tensor_free(y);
        mha_free(m);
        if (d > 1e-4) return 0;
    }
    snprintf(g->err, g->errlen, "bug '%s' did not change the output", kinds[bug].name);
    return -1;
}

int quiz_gen_bug(Gen *g)
{
    return build_bug(g, 1 + quiz_rng_below(&g->r, QUIZ_BUG_COUNT - 1));
}

int quiz_bug_lines(const QuizQuestion *q, int right, char (*lines)[QUIZ_BUG_LINE], int max)
{
    Prog p;
    Shape s = unpack_shape(q->idx[1]);
    program(&q->cfg, &s, right ? QUIZ_BUG_NONE : q->aux, q->idx[0], &p);
    for (int i = 0; i < p.n && i < max; i++)
        snprintf(lines[i], QUIZ_BUG_LINE, "%s", p.line[i]);
    return p.n < max ? p.n : max;
}

int quiz_generate_bug(int bug, uint64_t qseed, QuizQuestion *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    char e[300] = "";
    Gen g = {q, {0}, e, sizeof e};
    quiz_rng_seed(&g.r, qseed);
    q->gen = QG_BUG + 1;
    q->pic.lit = -1;
    if (bug <= QUIZ_BUG_NONE || bug >= QUIZ_BUG_COUNT || build_bug(&g, bug)) {
        if (err) snprintf(err, errlen, "quiz: %s", e[0] ? e : "no such bug");
        return -1;
    }
    snprintf(q->id, sizeof q->id, "b:%d:%016llx", bug, (unsigned long long)qseed);
    snprintf(q->source, sizeof q->source, "generated");
    return 0;
}
