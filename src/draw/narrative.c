/* narrative.c - the sentences under the picture, one builder per step,
 * and the inspect line with the offset arithmetic written out.
 */
#include "draw/scenectx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MV_WRONG_VIEW: no error, wrong numbers. */
static void narr_wrong(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    snprintf(buf, n,
             "No error, wrong numbers: Q.view(B, H, S, dh) cuts storage S%d into blocks of "
             "%d floats, so head 0 gets whole rows of '%s' and '%s', not a %d-wide slice of "
             "every token. Fix: view(B, S, H, dh), then transpose(1, 2).",
             t[MT_Q]->st->id, c->seq * m->d_head, mha_token_word(0),
             mha_token_word(c->seq > 1 ? 1 : 0), m->d_head);
}

/* MV_NO_SCALE: the softmax saturates. */
static void narr_noscale(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    snprintf(buf, n,
             "Without the division by sqrt(%d) = %.2f, scores grow with d_head and softmax "
             "saturates: each row puts nearly all its weight on one token, and its gradient "
             "vanishes. Same scores, same heads; only the scale differs.",
             m->d_head, (1.0 / m->scale));
}

/* Step 0: what x holds. */
static void narr_input(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    size_t floats = tensor_numel(t[mha_steps[x->s.step].output]);
    snprintf(buf, n,
             "x holds %d token%s of %d numbers each, batch %d: one storage S%d of %zu floats "
             "(%zu bytes), row after row. Values are multiples of 0.1 drawn from seed %lu, so a "
             "dot product can be checked by hand.",
             c->seq, c->seq == 1 ? "" : "s", c->d_model, c->batch, t[MT_X]->st->id, floats,
             floats * sizeof(float), (unsigned long)c->seed);
}

/* Step 1: three new buffers. */
static void narr_project(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    snprintf(buf, n,
             "Three matmuls write three new buffers: Q in S%d, K in S%d, V in S%d. Q is still "
             "%d numbers per token; nothing knows about heads yet. K and V are %d wide "
             "(kv_heads %d x d_head %d).",
             t[MT_Q]->st->id, t[MT_K]->st->id, t[MT_V]->st->id, c->d_model, t[MT_K]->shape[2],
             c->kv_heads, m->d_head);
}

/* Step 2: the view relabels. */
static void narr_split(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    snprintf(buf, n,
             "view() only relabels the same storage S%d: %zu bytes copied. Each token's %d "
             "numbers now read as %d heads of %d; head h is columns h*%d to h*%d+%d of the "
             "row. No cell moves: the same floats are only read in groups of %d.",
             t[MT_Q_SPLIT]->st->id, st->bytes_copied, c->d_model, c->heads, m->d_head, m->d_head,
             m->d_head, m->d_head - 1, m->d_head);
}

/* Step 3: the transpose swaps strides. */
static void narr_heads(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    char a[96];
    char b[96];
    tensor_fmt_strides(a, sizeof a, t[MT_Q_SPLIT]);
    tensor_fmt_strides(b, sizeof b, t[MT_Q_HEADS]);
    snprintf(buf, n,
             "transpose(1, 2) swaps two strides, %s becomes %s: still storage S%d, %zu bytes "
             "copied. Reading one head's tokens now jumps %ld floats per token, so the tensor "
             "is no longer contiguous.",
             a, b, t[MT_Q_HEADS]->st->id, st->bytes_copied, t[MT_Q_HEADS]->strides[2]);
}

/* Step 4: one score per query and key, per head. */
static void narr_scores(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    if (m->groups > 1) {
        snprintf(buf, n,
                 "Each query head scores against its kv head (kv_heads %d): query heads 0..%d "
                 "share kv head 0 through expand (stride %ld on the group axis, "
                 "%zu bytes copied). %d heads x %d x %d scores, divided by sqrt(%d) = %.2f.",
                 c->kv_heads, m->groups - 1, t[MT_K_EXPAND]->strides[2], st->bytes_copied, c->heads,
                 c->seq, c->seq, m->d_head, (1.0 / m->scale));
        return;
    }
    snprintf(buf, n,
             "Each head compares every query token with every key token: %d heads x %d x %d "
             "scores in a new buffer S%d. Dividing by sqrt(%d) = %.2f keeps them small enough "
             "for softmax to stay soft.",
             c->heads, c->seq, c->seq, t[MT_SCORES]->st->id, m->d_head, (1.0 / m->scale));
}

/* Step 5: a softmax per row per head. */
static void narr_softmax(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    snprintf(buf, n,
             "softmax runs on each row of each head on its own, so every row sums to 1 and each "
             "of the %d heads can attend to different tokens.%s",
             c->heads,
             c->causal
                 ? " Causal mask: a token never sees later tokens (\xc3\x97 = masked, weight 0)."
             : x->s.show_single ? " Beside them, one big head over all the dims (m hides it)."
                                : " Press m to compare with one big head.");
}

/* Step 6: attn @ V. */
static void narr_weighted(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    snprintf(buf, n,
             "Each head mixes the value vectors with its own weights: attn @ V gives head_out, "
             "a new buffer S%d laid out head after head, %d rows of %d per head.%s",
             t[MT_HEAD_OUT]->st->id, c->seq, m->d_head,
             m->groups > 1 ? " V is shared like K: each group of query heads reads one kv head."
                           : "");
}

/* Step 7: tokens first again. */
static void narr_back(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    char a[96];
    tensor_fmt_strides(a, sizeof a, t[MT_MERGED]);
    if (tensor_is_contiguous(t[MT_MERGED]))
        snprintf(buf, n,
                 "transpose(1, 2) puts tokens first again, strides %s, still storage S%d with "
                 "%zu bytes copied. With %d head%s and %d token%s nothing actually changed "
                 "places: the view is still contiguous.",
                 a, t[MT_MERGED]->st->id, st->bytes_copied, c->heads, c->heads == 1 ? "" : "s",
                 c->seq, c->seq == 1 ? "" : "s");
    else
        snprintf(buf, n,
                 "transpose(1, 2) puts tokens first again, strides %s, still storage S%d with "
                 "%zu bytes copied. But one token's heads now lie %ld floats apart: not "
                 "contiguous, so view(B, S, D) would fail.",
                 a, t[MT_MERGED]->st->id, st->bytes_copied, t[MT_MERGED]->strides[2]);
}

/* Step 8: the copy. */
static void narr_contig(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    size_t floats = tensor_numel(t[mha_steps[x->s.step].output]);
    if (st->bytes_copied == 0)
        snprintf(buf, n,
                 ".contiguous() found the tensor already contiguous and returned it as it is: "
                 "same storage S%d, 0 bytes copied. With more than one head and token it "
                 "would copy every float into a new buffer.",
                 t[MT_MERGED_CONTIG]->st->id);
    else
        snprintf(buf, n,
                 ".contiguous() is the one real copy of the pass: %zu floats (%zu bytes) move "
                 "into a new storage S%d, token by token, so each token's heads sit side by "
                 "side. Total copied in the whole pass: %zu bytes.",
                 floats, st->bytes_copied, t[MT_MERGED_CONTIG]->st->id, m->bytes_copied_total);
}

/* Step 9: the heads read as one row. */
static void narr_concat(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    snprintf(buf, n,
             "view(B, S, D) on the copy is free again: same storage S%d, %zu bytes copied. "
             "Concatenating the heads is just reading each token's row as %d numbers.",
             t[MT_CONCAT]->st->id, st->bytes_copied, c->d_model);
}

/* Step 10: W_O mixes the heads. */
static void narr_output(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    Tensor *const *t = m->t;
    char a[96];
    tensor_fmt_dims(a, sizeof a, t[MT_W_O]->ndim, t[MT_W_O]->shape);
    snprintf(buf, n,
             "W_O %s mixes the heads back together: y = out @ W_O, a new buffer S%d. In the "
             "whole pass the engine copied %zu bytes%s.",
             a, t[MT_OUT]->st->id, m->bytes_copied_total,
             m->bytes_copied_total ? ", all of them in .contiguous()" : "");
}

typedef void NarrFn(const Ctx *x, char *buf, size_t n);

static NarrFn *const narr_step[MS_COUNT] = {
    [MS_INPUT] = narr_input,       [MS_PROJECT] = narr_project, [MS_SPLIT] = narr_split,
    [MS_HEADS] = narr_heads,       [MS_SCORES] = narr_scores,   [MS_SOFTMAX] = narr_softmax,
    [MS_WEIGHTED] = narr_weighted, [MS_BACK] = narr_back,       [MS_CONTIG] = narr_contig,
    [MS_CONCAT] = narr_concat,     [MS_OUT] = narr_output,
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
