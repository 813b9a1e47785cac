/* narrative.c - the sentences under the picture, one builder per step,
 * and the inspect line with the offset arithmetic written out.
 */
#include "draw/scenectx.h"

#include "base/textutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "1 head", "16,384 floats": text_fmt_count's text.  Each call gets its
 * own buffer of a ring of 8, so one sentence can hold several. */
static char ring[8][48];
static int ring_next;

static const char *count(long n, const char *word)
{
    /* counts, >= 0 */
    return text_fmt_count(ring[ring_next++ % 8], sizeof ring[0],
                          (unsigned long long)(n > 0 ? n : 0), word);
}

/* "65,536": a byte count as every count on screen is written. */
static const char *num(size_t n)
{
    return text_fmt_int(ring[ring_next++ % 8], sizeof ring[0], (unsigned long long)n);
}

/* Why a view changed no order, when it did not: one head, one token. */
static const char *why_same(const MhaConfig *c)
{
    if (c->heads == 1 && c->seq == 1) return "one head and one token";
    return c->heads == 1 ? "one head" : "one token";
}

/* The largest |a - b| over two tensors of one shape (0: the same numbers). */
static double max_diff(const Tensor *a, const Tensor *b)
{
    int idx[TENSOR_MAXDIM] = {0};
    double d = 0;
    for (size_t k = 0, n = tensor_numel(a); k < n; k++) {
        double e = fabs((double)tensor_get(a, idx) - (double)tensor_get(b, idx));
        if (e > d) d = e;
        for (int i = a->ndim - 1; i >= 0 && ++idx[i] >= a->shape[i]; i--)
            idx[i] = 0;
    }
    return d;
}

/* Steps whose bytes_copied is not 0, and the first of them (-1: none). */
static int copy_steps(const Mha *m, int *first)
{
    int k = 0;
    *first = -1;
    for (int o = 0, i; (i = mha_step_at(&m->cfg, o)) >= 0; o++)
        if (m->steps[i].bytes_copied) {
            if (*first < 0) *first = i;
            k++;
        }
    return k;
}

/* Which tokens' rows head 0's block of Q_wrong holds, read off the tensors:
 * every element Q_wrong[0, 0, s, d] is a float of Q's storage, and the row of
 * Q it sits in is its token.  "the whole row of 'the'", "the whole rows of
 * 'the' and 'cat'", "the first 4 floats of 'the'", or whole rows and part of
 * the next, as the config cuts them. */
static void wrong_block_tokens(const Mha *m, char *buf, size_t n)
{
    const Tensor *w = m->t[MT_Q_WRONG], *q = m->t[MT_Q];
    int per[MHA_MAX_SEQ] = {0}, idx[TENSOR_MAXDIM] = {0}, first = -1, last = -1;
    for (idx[2] = 0; idx[2] < w->shape[2]; idx[2]++)
        for (idx[3] = 0; idx[3] < w->shape[3]; idx[3]++) {
            int tok = (int)((tensor_offset_of(w, idx) - q->offset) / (size_t)q->strides[1]);
            if (tok < 0 || tok >= MHA_MAX_SEQ) continue;
            per[tok]++;
            if (first < 0 || tok < first) first = tok;
            if (tok > last) last = tok;
        }
    int row = q->shape[2], whole = 0;
    while (first + whole <= last && per[first + whole] == row)
        whole++;
    size_t l = 0;
    buf[0] = 0;
    if (whole == 1)
        l = (size_t)snprintf(buf, n, "the whole row of '%s'", mha_token_word(first));
    else if (whole == 2)
        l = (size_t)snprintf(buf, n, "the whole rows of '%s' and '%s'", mha_token_word(first),
                             mha_token_word(first + 1));
    else if (whole > 2)
        l = (size_t)snprintf(buf, n, "the whole rows of '%s' to '%s'", mha_token_word(first),
                             mha_token_word(first + whole - 1));
    if (l >= n) return;
    if (first + whole <= last) /* a part row: the block ends inside it */
        snprintf(buf + l, n - l, "%sthe first %s of '%s'", whole ? " and " : "",
                 count(per[first + whole], "float"), mha_token_word(first + whole));
}

/* MV_WRONG_VIEW: no error; wrong numbers unless the two views agree (one
 * head or one token), which the engine's tensors say. */
static void narr_wrong(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    if (max_diff(t[MT_Q_WRONG], t[MT_Q_HEADS]) == 0) {
        snprintf(buf, n,
                 "With %s, Q.view(B, H, S, dh) holds the same numbers as view(B, S, H, "
                 "dh).transpose(1, 2): blocks of %s of storage S%d. With more heads and tokens "
                 "head 0 would get whole tokens, not a slice of each.",
                 why_same(c), count((long)c->seq * m->d_head, "float"), t[MT_Q]->st->id);
        return;
    }
    char holds[160];
    wrong_block_tokens(m, holds, sizeof holds);
    snprintf(buf, n,
             "No error, wrong numbers: Q.view(B, H, S, dh) cuts S%d into blocks of %s: head "
             "0 gets %s, not a %d-wide slice of each token. Fix: view(B, S, H, "
             "dh).transpose(1, 2).",
             t[MT_Q]->st->id, count((long)c->seq * m->d_head, "float"), holds, m->d_head);
}

/* MV_NO_SCALE: the softmax saturates. */
static void narr_noscale(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    if (m->d_head == 1) {
        snprintf(buf, n,
                 "With d_head 1 the scale is 1 / sqrt(1) = 1: dividing changes nothing, so both "
                 "maps are the same. With wider heads the scores grow with d_head and, unscaled, "
                 "saturate softmax.");
        return;
    }
    if (m->cfg.seq == 1) {
        snprintf(buf, n,
                 "Without the division by sqrt(%d) = %.2f the scores grow with d_head, but with "
                 "one token each row is a single weight of 1 either way. With more tokens softmax "
                 "saturates: nearly all the weight on one token, and its gradient vanishes.",
                 m->d_head, (1.0 / m->scale));
        return;
    }
    snprintf(buf, n,
             "Without the division by sqrt(%d) = %.2f, scores grow with d_head and softmax "
             "saturates: each row puts more of its weight on one token, and its gradient "
             "vanishes. Same scores, same heads; only the scale differs.",
             m->d_head, (1.0 / m->scale));
}

/* Step 0: what x holds. */
static void narr_input(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    const Tensor *t = m->t[MT_X];
    size_t floats = tensor_numel(t);
    int k = snprintf(
        buf, n, "x holds %s of %s%s, batch %d: one storage S%d of %s (%s bytes), row after row. ",
        count(c->seq, "token"), count(c->d_model, "number"), c->seq > 1 ? " each" : "", c->batch,
        t->st->id, count((long)floats, "float"), num(floats * sizeof(float)));
    if (k < 0 || (size_t)k >= n) return;
    if (!mha_weights_scaled(c))
        snprintf(buf + k, n - (size_t)k,
                 "Values are multiples of 0.1 drawn from seed %lu, so a dot product can be "
                 "checked by hand.",
                 (unsigned long)c->seed);
    else /* engine/mha.h: past MHA_TENTHS_MAX_D the weights are scaled */
        snprintf(buf + k, n - (size_t)k,
                 "Weights scaled by 1/sqrt(%d) = %.4g (too big to check by hand), so softmax rows "
                 "stay distributions; x: multiples of 0.1 from seed %lu.",
                 c->d_model, 1.0 / sqrt((double)c->d_model), (unsigned long)c->seed);
}

/* Step 1: three new buffers. */
static void narr_project(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    snprintf(buf, n,
             "Three matmuls write three new buffers: Q in S%d, K in S%d, V in S%d. Q is still "
             "%s per token; nothing knows about heads yet. K and V are %d wide "
             "(kv_heads %d x d_head %d).",
             t[MT_Q]->st->id, t[MT_K]->st->id, t[MT_V]->st->id, count(c->d_model, "number"),
             t[MT_K]->shape[2], c->kv_heads, m->d_head);
}

/* Step 2: the view relabels. */
static void narr_split(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    const MhaStep *st = &m->steps[MS_SPLIT];
    int sid = m->t[MT_Q_SPLIT]->st->id;
    if (c->heads == 1) {
        snprintf(buf, n,
                 "view() only relabels the same storage S%d: %s bytes copied. With one head, "
                 "each token's %s read as that one head of %d: the whole row. No cell moves.",
                 sid, num(st->bytes_copied), count(c->d_model, "number"), m->d_head);
        return;
    }
    char cols[64], groups[48];
    if (m->d_head == 1) { /* "columns h*1 to h*1+0" would read as a template */
        snprintf(cols, sizeof cols, "head h is column h of the row");
        snprintf(groups, sizeof groups, "one at a time, each its own head");
    } else {
        snprintf(cols, sizeof cols, "head h is columns h*%d to h*%d+%d of the row", m->d_head,
                 m->d_head, m->d_head - 1);
        snprintf(groups, sizeof groups, "in groups of %d", m->d_head);
    }
    snprintf(buf, n,
             "view() only relabels the same storage S%d: %s bytes copied. Each token's %s "
             "now read as %s of %d; %s. No cell moves: the same floats are only read %s.",
             sid, num(st->bytes_copied), count(c->d_model, "number"), count(c->heads, "head"),
             m->d_head, cols, groups);
}

/* Step 3: the transpose swaps strides; contiguous or not, as the engine says. */
static void narr_heads(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const Tensor *q = m->t[MT_Q_HEADS];
    const MhaStep *st = &m->steps[MS_HEADS];
    char a[96], b[96];
    tensor_fmt_strides(a, sizeof a, m->t[MT_Q_SPLIT]);
    tensor_fmt_strides(b, sizeof b, q);
    if (tensor_is_contiguous(q)) {
        snprintf(buf, n,
                 "transpose(1, 2) swaps two strides, %s becomes %s: still storage S%d, %s bytes "
                 "copied. With %s the order of the floats does not change, so the tensor is "
                 "still contiguous.",
                 a, b, q->st->id, num(st->bytes_copied), why_same(&m->cfg));
        return;
    }
    snprintf(buf, n,
             "transpose(1, 2) swaps two strides, %s becomes %s: still storage S%d, %s bytes "
             "copied. Reading one head's tokens now jumps %s per token, so the tensor "
             "is no longer contiguous.",
             a, b, q->st->id, num(st->bytes_copied), count(q->strides[2], "float"));
}

/* The rope step: which floats are pairs in memory and how far each turns. */
static void narr_rope(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    int dh = m->d_head, far = rope_partner(c->rope, 0, dh);
    char where[96];
    if (c->rope == ROPE_HALF)
        snprintf(where, sizeof where, "float j pairs with j+%d, %s away (HF rotate_half)", far,
                 count(far, "float"));
    else
        snprintf(where, sizeof where, "float 2i pairs with 2i+1, the next float (Meta's llama)");
    char turns[96] = "its one pair by p"; /* d_head 2: pair 0 is the last */
    if (dh / 2 > 1)
        snprintf(turns, sizeof turns, "pair 0 by p, pair %d by p x %.3g", dh / 2 - 1,
                 (double)rope_inv_freq(dh / 2 - 1, dh, c->rope_theta));
    snprintf(buf, n,
             "RoPE %s: %s. Token p turns pair i by p x %g^(-2i/%d) rad: %s. Only Q and K, into "
             "new buffers (%s B); V is never rotated. HF's permute of W_Q, W_K (view(H, dh/2, "
             "2, D).transpose(1, 2)) makes %s give these scores (largest difference %.1g; %.2g "
             "unpermuted).",
             rope_layout_name(c->rope), where, c->rope_theta, dh, turns,
             num(m->steps[MS_ROPE].bytes_copied), c->rope == ROPE_HALF ? "interleaved" : "half",
             (double)mha_rope_hf_diff(m, 0), (double)mha_rope_hf_diff(m, 1));
}

/* Step 4: one score per query and key, per head. */
static void narr_scores(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    const MhaStep *st = &m->steps[MS_SCORES];
    if (m->groups > 1) {
        snprintf(buf, n,
                 "Each query head scores against its kv head (kv_heads %d): query heads 0..%d "
                 "share kv head 0 through expand (stride %ld on the group axis, "
                 "%s bytes copied). %s x %d x %d scores, divided by sqrt(%d) = %.2f.",
                 c->kv_heads, m->groups - 1, m->t[MT_K_EXPAND]->strides[2], num(st->bytes_copied),
                 count(c->heads, "head"), c->seq, c->seq, m->d_head, (1.0 / m->scale));
        return;
    }
    snprintf(buf, n,
             "%s every query token with every key token: %s x %d x %d "
             "scores in a new buffer S%d. Dividing by sqrt(%d) = %.2f keeps them small enough "
             "for softmax to stay soft.",
             c->heads == 1 ? "The head compares" : "Each head compares", count(c->heads, "head"),
             c->seq, c->seq, m->t[MT_SCORES]->st->id, m->d_head, (1.0 / m->scale));
}

/* Step 5: a softmax per row per head. */
static void narr_softmax(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    const char *tail =
        c->causal ? " Causal mask: a token never sees later tokens (\xc3\x97 = masked, weight 0)."
        : x->s.show_single ? " Beside them, one big head over all the dims (m hides it)."
                           : " Press m to compare with one big head.";
    if (c->heads == 1) {
        snprintf(buf, n,
                 "softmax runs on each row on its own, over the %s, so every row sums to 1. "
                 "With one head there is one map: each token gets one mix of the tokens.%s",
                 count(c->seq, "key"), tail);
        return;
    }
    snprintf(buf, n,
             "softmax runs on each row of each head on its own, over the %s, so every row sums "
             "to 1 and each of the %s can attend to different tokens.%s",
             count(c->seq, "key"), count(c->heads, "head"), tail);
}

/* Step 6: attn @ V. */
static void narr_weighted(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    snprintf(buf, n,
             "%s the value vectors with its own weights: attn @ V gives head_out, "
             "a new buffer S%d laid out head after head, %s of %d per head.%s",
             c->heads == 1 ? "The head mixes" : "Each head mixes", m->t[MT_HEAD_OUT]->st->id,
             count(c->seq, "row"), m->d_head,
             m->groups > 1 ? " V is shared like K: each group of query heads reads one kv head."
                           : "");
}

/* Step 7: tokens first again. */
static void narr_back(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const Tensor *t = m->t[MT_MERGED];
    const MhaStep *st = &m->steps[MS_BACK];
    char a[96];
    tensor_fmt_strides(a, sizeof a, t);
    if (tensor_is_contiguous(t))
        snprintf(buf, n,
                 "transpose(1, 2) puts tokens first again, strides %s, still storage S%d with "
                 "%s bytes copied. With %s nothing actually changed places: the view is still "
                 "contiguous.",
                 a, t->st->id, num(st->bytes_copied), why_same(&m->cfg));
    else
        snprintf(buf, n,
                 "transpose(1, 2) puts tokens first again, strides %s, still storage S%d with "
                 "%s bytes copied. But one token's heads now lie %s apart: not "
                 "contiguous, so view(B, S, D) would fail.",
                 a, t->st->id, num(st->bytes_copied), count(t->strides[2], "float"));
}

/* Step 8: the copy, or none; "the one copy" only when the trace says so. */
static void narr_contig(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const Tensor *t = m->t[MT_MERGED_CONTIG];
    const MhaStep *st = &m->steps[MS_CONTIG];
    size_t floats = tensor_numel(t);
    int first, copies = copy_steps(m, &first);
    if (st->bytes_copied == 0) {
        snprintf(buf, n,
                 ".contiguous() found the tensor already contiguous (%s) and returned it as it "
                 "is: same storage S%d, 0 bytes copied. With more than one head and token it "
                 "would copy every float into a new buffer.",
                 why_same(&m->cfg), t->st->id);
        return;
    }
    snprintf(buf, n,
             ".contiguous() is %s of the pass: %s (%s bytes) move "
             "into a new storage S%d, token by token, so each token's heads sit side by "
             "side. Total copied in the whole pass: %s bytes.",
             copies == 1 ? "the one real copy" : "a real copy", count((long)floats, "float"),
             num(st->bytes_copied), t->st->id, num(m->bytes_copied_total));
}

/* Step 9: the heads read as one row. */
static void narr_concat(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaStep *st = &m->steps[MS_CONCAT];
    snprintf(buf, n,
             "view(B, S, D) on %s is free%s: same storage S%d, %s bytes copied. "
             "Concatenating the heads is just reading each token's row as %s.",
             m->steps[MS_CONTIG].bytes_copied ? "the copy" : "the contiguous tensor",
             m->steps[MS_CONTIG].bytes_copied ? " again" : "", m->t[MT_CONCAT]->st->id,
             num(st->bytes_copied), count(m->cfg.d_model, "number"));
}

/* Step 10: W_O mixes the heads; where the pass copied, from the trace. */
static void narr_output(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    char a[96];
    int first, copies = copy_steps(m, &first);
    const char *where = copies == 1 && first == MS_CONTIG ? ", all of them in .contiguous()" : "";
    tensor_fmt_dims(a, sizeof a, m->t[MT_W_O]->ndim, m->t[MT_W_O]->shape);
    snprintf(buf, n,
             "W_O %s mixes the %s back together: out = concat @ W_O, a new buffer S%d. In the "
             "whole pass the engine copied %s bytes%s.",
             a, m->cfg.heads == 1 ? "head's dims" : "heads", m->t[MT_OUT]->st->id,
             num(m->bytes_copied_total), where);
}

/* Under the heatmaps with `m`: why the big head differs, or that it does
 * not (one head: the same dims, the same scale), from the tensors. */
void narr_single_why(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const Tensor *attn = m->t[MT_ATTN], *big = m->t[MT_ATTN_SINGLE];
    int H = attn->shape[1];
    double d = 0;
    for (int h = 0; h < H; h++) { /* each head against the big head */
        int idx[4] = {0, h, 0, 0}, j[4] = {0, 0, 0, 0};
        for (idx[0] = 0; idx[0] < attn->shape[0]; idx[0]++)
            for (idx[2] = 0; idx[2] < attn->shape[2]; idx[2]++)
                for (idx[3] = 0; idx[3] < attn->shape[3]; idx[3]++) {
                    j[0] = idx[0], j[2] = idx[2], j[3] = idx[3];
                    double e = fabs((double)tensor_get(attn, idx) - (double)tensor_get(big, j));
                    if (e > d) d = e;
                }
    }
    if (d < 1e-6 && m->cfg.heads > 1) {
        snprintf(buf, n,
                 "They are the same: with one token each row has one key, and softmax gives it "
                 "weight 1 in every head. With more tokens the heads would differ.");
        return;
    }
    if (d < 1e-6) {
        snprintf(buf, n,
                 "They are the same: with one head, the head is the big head (all %d dims, one "
                 "softmax). Heads differ from one big head only when there are several.",
                 m->cfg.d_model);
        return;
    }
    snprintf(buf, n,
             "Why they differ: the big head scores all %d dims in one softmax, so each "
             "token gets one mix; %s of %s each pick their own.",
             m->cfg.d_model, count(H, "head"), count(m->d_head, "dim"));
}

typedef void NarrFn(const Ctx *x, char *buf, size_t n);

static NarrFn *const narr_step[MS_ALL] = {
    [MS_INPUT] = narr_input,       [MS_PROJECT] = narr_project, [MS_SPLIT] = narr_split,
    [MS_HEADS] = narr_heads,       [MS_SCORES] = narr_scores,   [MS_SOFTMAX] = narr_softmax,
    [MS_WEIGHTED] = narr_weighted, [MS_BACK] = narr_back,       [MS_CONTIG] = narr_contig,
    [MS_CONCAT] = narr_concat,     [MS_OUT] = narr_output,      [MS_ROPE] = narr_rope,
};

/* The narrative of the state's picture into buf (n bytes). */
void narr_text(const Ctx *x, char *buf, size_t n)
{
    if (x->s.view == MV_WRONG_VIEW)
        narr_wrong(x, buf, n);
    else if (x->s.view == MV_NO_SCALE)
        narr_noscale(x, buf, n);
    else
        narr_step[x->s.step](x, buf, n);
}

/* "Q_split[0, 2, 1, 3] = 0.86, offset = 0·32 + 2·8 + 1·4 + 3·1 = 23": the
 * value first, so a long line cut at the edge still shows it. */
void narr_inspect_line(const Tensor *t, const char *name, const int *cur, char *buf, size_t n)
{
    char val[32];
    size_t k = (size_t)snprintf(buf, n, "%s[", name);
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? ", " : "", cur[i]);
    sc_fmt_num(val, sizeof val, tensor_get(t, cur), 16);
    if (k < n) k += (size_t)snprintf(buf + k, n - k, "] = %s, offset = ", val);
    if (t->offset && k < n) k += (size_t)snprintf(buf + k, n - k, "%zu + ", t->offset);
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d\xc2\xb7%ld", i ? " + " : "", cur[i],
                              t->strides[i]);
    if (k < n) snprintf(buf + k, n - k, " = %zu", tensor_offset_of(t, cur));
}
