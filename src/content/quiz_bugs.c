/* quiz_bugs.c - spot the wrong line: an attention program with one bug,
 * and what the engine shows the bug does. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

/* bugs: one wrong line in six. */

/* Softmax over dim -2 instead of -1, through the engine: transpose, copy,
 * softmax over the last dim, transpose back.  Returns row 0 of head 0's sum. */
static double wrong_dim_row_sum(const Tensor *scores)
{
    Tensor *t = tensor_transpose(scores, -2, -1, NULL, 0);
    Tensor *c = t ? tensor_contiguous(t) : NULL;
    double sum = -1;
    if (c) {
        tensor_softmax_lastdim_(c);
        Tensor *back = tensor_transpose(c, -2, -1, NULL, 0);
        if (back) {
            sum = 0;
            for (int j = 0; j < back->shape[3]; j++) {
                int ix[4] = {0, 0, 0, j};
                sum += tensor_get(back, ix);
            }
        }
        tensor_free(back);
    }
    tensor_free(c);
    tensor_free(t);
    return sum;
}

int quiz_gen_bug(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = mha_config_default();
    int bug = quiz_rng_below(&g->r, QUIZ_BUG_COUNT);
    /* toy config where the bug changes the result: H >= 2, and for the
     * grouping bug KV >= 2 with G >= 2 */
    c.d_model = 16;
    c.heads = bug == QUIZ_BUG_REPEAT ? 4 : (quiz_rng_below(&g->r, 2) ? 2 : 4);
    c.kv_heads =
        bug == QUIZ_BUG_REPEAT ? 2 : (c.heads == 4 && quiz_rng_below(&g->r, 2) ? 2 : c.heads);
    c.seed = (uint32_t)(quiz_rng_next(&g->r) % 1000) + 1;
    char err[300];
    Mha *m = mha_run(&c, err, sizeof err);
    if (!m) {
        snprintf(g->err, g->errlen, "%s", err);
        return -1;
    }
    /* lines 1-3 (q, k, v) in a drawn order; a view bug hits one of them */
    char lines[6][100];
    int order[3] = {0, 1, 2};
    for (int i = 2; i > 0; i--) {
        int j = quiz_rng_below(&g->r, i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    int which = quiz_rng_below(&g->r, 3); /* q, k or v for QUIZ_BUG_VIEW */
    if (bug == QUIZ_BUG_VIEW && which > 0 && c.kv_heads < 2) which = 0;
    static const char *const names[3] = {"q", "k", "v"};
    static const char *const heads[3] = {"H", "KV", "KV"};
    int bad_line = 0;
    for (int i = 0; i < 3; i++) {
        int v = order[i];
        if (bug == QUIZ_BUG_VIEW && v == which) {
            snprintf(lines[i], sizeof lines[i], "%s = (x @ W_%s).view(B, %s, S, dh)", names[v],
                     names[v], heads[v]);
            bad_line = i + 1;
        } else
            snprintf(lines[i], sizeof lines[i],
                     "%s = (x @ W_%s).view(B, S, %s, dh).transpose(1, 2)", names[v], names[v],
                     heads[v]);
    }
    snprintf(lines[3], sizeof lines[3], "%s",
             bug == QUIZ_BUG_REPEAT
                 ? "k, v = k.repeat(1, H // KV, 1, 1), v.repeat(1, H // KV, 1, 1)"
                 : "k, v = k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1)");
    snprintf(lines[4], sizeof lines[4], "a = torch.softmax(q @ k.transpose(-2, -1) %s, dim=%s)",
             bug == QUIZ_BUG_SCALE ? "/ dh" : "/ math.sqrt(dh)",
             bug == QUIZ_BUG_SOFTMAX_DIM ? "-2" : "-1");
    snprintf(lines[5], sizeof lines[5], "y = (a @ v).transpose(1, 2)%s.view(B, S, H * dh) @ W_o",
             bug == QUIZ_BUG_CONTIG ? "" : ".contiguous()");
    if (bug == QUIZ_BUG_REPEAT) bad_line = 4;
    if (bug == QUIZ_BUG_SOFTMAX_DIM || bug == QUIZ_BUG_SCALE) bad_line = 5;
    if (bug == QUIZ_BUG_CONTIG) bad_line = 6;

    q->topic = QT_BUGS;
    q->cfg = c;
    q->aux = bug;
    q->kind = QK_NUMBER;
    q->number = bad_line;
    qt_cat(q->prompt, sizeof q->prompt,
           "x is (B, S, D) with D = H * dh; H = %d query heads, KV = %d kv heads, dh = %d.\n"
           "One line of this attention is wrong.  Which one (1-6)?\n",
           c.heads, c.kv_heads, m->d_head);
    for (int i = 0; i < 6; i++)
        qt_cat(q->prompt, sizeof q->prompt, "  %d  %s\n", i + 1, lines[i]);

    /* the explanation and what the engine shows for this toy config (B=1, S=4) */
    char *w = q->working;
    size_t wn = sizeof q->working;
    qt_cat(w, wn, "On B=%d, S=%d, D=%d (seed %u) the engine shows:\n", c.batch, c.seq, c.d_model,
           (unsigned)c.seed);
    switch (bug) {
    case QUIZ_BUG_VIEW: {
        snprintf(
            q->explain, sizeof q->explain,
            "Line %d views (B, S, D) straight as (B, heads, S, dh).  The buffer is token-major, so "
            "that "
            "relabels consecutive chunks of dh floats as rows: a 'head' row mixes the features of "
            "different tokens.  Split with view(B, S, heads, dh) and then transpose(1, 2).",
            bad_line);
        int src = which == 0 ? MT_Q : which == 1 ? MT_K : MT_V;
        int nh = which == 0 ? c.heads : c.kv_heads;
        int sh[4] = {c.batch, nh, c.seq, m->d_head};
        Tensor *bad = tensor_view(m->t[src], 4, sh, err, sizeof err);
        const Tensor *good = m->t[which == 0 ? MT_Q_HEADS : which == 1 ? MT_K_HEADS : MT_V_HEADS];
        if (bad) {
            int ix[4] = {0, 0, 1, 0};
            size_t ob = tensor_offset_of(bad, ix), og = tensor_offset_of(good, ix);
            int width = m->t[src]->shape[2];
            qt_cat(
                w, wn,
                "  right: %s[0, 0, 1, 0] is storage offset %zu = token 1 ('%s'), feature %zu.\n"
                "  buggy: %s[0, 0, 1, 0] is storage offset %zu = token %zu ('%s'), feature %zu.\n",
                names[which], og, mha_token_word(1), og % (size_t)width, names[which], ob,
                ob / (size_t)width, mha_token_word((int)(ob / (size_t)width)), ob % (size_t)width);
        }
        tensor_free(bad);
        break;
    }
    case QUIZ_BUG_REPEAT: {
        snprintf(q->explain, sizeof q->explain,
                 "Line 4 tiles the kv heads (.repeat: 0, 1, 0, 1, ...) instead of repeating each "
                 "one in place "
                 "(repeat_interleave: 0, 0, 1, 1, ...).  The shapes match, so nothing fails: query "
                 "head h just "
                 "reads the wrong kv head (h %% KV instead of h / (H / KV)) for weights trained "
                 "with repeat_kv.");
        const Tensor *kh = m->t[MT_K_HEADS]; /* (B, KV, S, dh) */
        int G = c.heads / c.kv_heads;
        Tensor *u = tensor_unsqueeze(kh, 1, NULL, 0); /* (B, 1, KV, S, dh) */
        int sh5[5] = {c.batch, G, c.kv_heads, c.seq, m->d_head};
        Tensor *e = u ? tensor_expand(u, 5, sh5, NULL, 0) : NULL; /* (B, G, KV, S, dh) */
        Tensor *cc = e ? tensor_contiguous(e) : NULL;
        int sh4[4] = {c.batch, c.heads, c.seq, m->d_head};
        Tensor *tiled = cc ? tensor_view(cc, 4, sh4, NULL, 0) : NULL; /* (B, H, S, dh) */
        if (tiled) {
            qt_cat(w, wn, "  query heads 0..%d read kv heads: repeat_interleave (", c.heads - 1);
            for (int h = 0; h < c.heads; h++)
                qt_cat(w, wn, "%s%d", h ? ", " : "", mha_kv_head_of(&c, h));
            qt_cat(w, wn, "), .repeat (");
            for (int h = 0; h < c.heads; h++) {
                /* find the kv head whose values the tiled head holds */
                int found = -1;
                for (int j = 0; j < c.kv_heads && found < 0; j++) {
                    int same = 1;
                    for (int s = 0; s < c.seq && same; s++)
                        for (int d = 0; d < m->d_head && same; d++) {
                            int a[4] = {0, h, s, d}, bb[4] = {0, j, s, d};
                            same = tensor_get(tiled, a) == tensor_get(kh, bb);
                        }
                    if (same) found = j;
                }
                qt_cat(w, wn, "%s%d", h ? ", " : "", found);
            }
            qt_cat(w, wn, ").\n");
        }
        tensor_free(tiled);
        tensor_free(cc);
        tensor_free(e);
        tensor_free(u);
        break;
    }
    case QUIZ_BUG_SOFTMAX_DIM: {
        snprintf(
            q->explain, sizeof q->explain,
            "Line 5 normalises over dim=-2, the query axis: each column sums to 1, but a query's "
            "weights "
            "over the keys (its row) no longer do.  Softmax goes over the last dim, the keys.");
        double sum = wrong_dim_row_sum(m->t[MT_SCORES]);
        qt_cat(w, wn, "  with dim=-2, head 0's row 0 (token '%s') sums to %.3f instead of 1.\n",
               mha_token_word(0), sum);
        break;
    }
    case QUIZ_BUG_SCALE: {
        snprintf(
            q->explain, sizeof q->explain,
            "Line 5 divides by dh instead of sqrt(dh).  The scale keeps the dot products' variance "
            "near 1 "
            "(a sum of dh products); dividing by dh flattens the softmax towards uniform weights.");
        const Tensor *attn = m->t[MT_ATTN]; /* (B, H, S, S) */
        Tensor *raw = tensor_contiguous(m->t[MT_SCORES]);
        Tensor *cp = raw ? tensor_zeros(raw->ndim, raw->shape) : NULL;
        if (cp) {
            tensor_to_array(raw, cp->st->data);
            /* scores were divided by sqrt(dh); divide by sqrt(dh) again: / dh */
            tensor_scale_(cp, m->scale);
            tensor_softmax_lastdim_(cp);
            qt_cat(w, wn, "  head 0, row 0 weights: / sqrt(dh) (");
            for (int j = 0; j < c.seq; j++) {
                int ix[4] = {0, 0, 0, j};
                qt_cat(w, wn, "%s%.2f", j ? ", " : "", tensor_get(attn, ix));
            }
            qt_cat(w, wn, "), / dh (");
            for (int j = 0; j < c.seq; j++) {
                int ix[4] = {0, 0, 0, j};
                qt_cat(w, wn, "%s%.2f", j ? ", " : "", tensor_get(cp, ix));
            }
            qt_cat(w, wn, ").\n");
        }
        tensor_free(cp);
        tensor_free(raw);
        break;
    }
    default: {
        snprintf(q->explain, sizeof q->explain,
                 "Line 6 views the transposed (B, S, H, dh) result as (B, S, H * dh) without "
                 ".contiguous(): "
                 "its strides cannot express the merged shape, and view() never copies, so PyTorch "
                 "raises.  "
                 "Call .contiguous() first (the one real copy of the block), or use .reshape().");
        int sh[3] = {c.batch, c.seq, c.d_model};
        Tensor *bad = tensor_view(m->t[MT_MERGED], 3, sh, err, sizeof err);
        if (bad)
            qt_cat(w, wn, "  (the view happened to work for this shape)\n");
        else
            qt_cat(w, wn, "  RuntimeError: %s\n", err);
        tensor_free(bad);
        break;
    }
    }
    mha_free(m);
    return 0;
}
