/* quiz_text.c - the small text pieces every generator writes: appending,
 * tuples, the configuration sentence, one note per pipeline step. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

void qt_cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t l = strlen(buf);
    if (l + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, n - l, fmt, ap);
    va_end(ap);
}

char *qt_fmt_tuple(char *buf, size_t n, int k, const long long *v)
{
    buf[0] = 0;
    qt_cat(buf, n, "(");
    for (int i = 0; i < k; i++)
        qt_cat(buf, n, "%s%lld", i ? ", " : "", v[i]);
    qt_cat(buf, n, k == 1 ? ",)" : ")");
    return buf;
}

char *qt_rowmajor(char *buf, size_t n, const Tensor *t)
{
    long long v[TENSOR_MAXDIM], s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        v[i] = s;
        s *= t->shape[i];
    }
    return qt_fmt_tuple(buf, n, t->ndim, v);
}

void qt_config_line(const MhaConfig *c, char *buf, size_t n)
{
    int dh = c->d_model / c->heads;
    qt_cat(buf, n, "x is (%d, %d, %d): batch %d, %d token%s, d_model %d; %d head%s (d_head %d)",
           c->batch, c->seq, c->d_model, c->batch, c->seq, text_s(c->seq), c->d_model, c->heads,
           text_s(c->heads), dh);
    if (c->kv_heads != c->heads)
        qt_cat(buf, n, ", %d kv head%s (%s)", c->kv_heads, text_s(c->kv_heads),
               c->kv_heads == 1 ? "MQA" : "GQA");
    qt_cat(buf, n, ".\n");
}

/* clang-format off: one case per tensor reads as a table */
const char *qt_step_note(int id)
{
    switch (id) {
    case MT_Q:
    case MT_K:
    case MT_V:
        return "x @ W keeps (B, S) and takes W's output width: d_model for Q, kv_heads x d_head "
               "for K and V. A matmul writes a new contiguous buffer.";
    case MT_Q_SPLIT:
    case MT_K_SPLIT:
    case MT_V_SPLIT:
        return "view splits each token's row into (heads, d_head): same buffer, strides "
               "(S*W, W, d_head, 1) for a row of width W.";
    case MT_Q_HEADS:
    case MT_K_HEADS:
    case MT_V_HEADS:
        return "transpose(1, 2) swaps the token and head axes and their two strides: no byte "
               "moves, and the tensor is no longer contiguous (with more than one head and token).";
    case MT_SCORES:
        return "Q_groups (B, KV, G, S, dh) @ K_expand^T (B, KV, G, dh, S) gives (B, KV, G, S, "
               "S), viewed as (B, H, S, S): one S x S score matrix per query head, in a new "
               "buffer.";
    case MT_ATTN:
        return "softmax over the last dim keeps the (B, H, S, S) shape; each row sums to 1.";
    case MT_HEAD_OUT:
        return "attn viewed as (B, KV, G, S, S) @ V_expand (B, KV, G, S, dh) gives (B, KV, G, "
               "S, dh), viewed as (B, H, S, dh): a new buffer, heads first.";
    case MT_MERGED:
        return "transpose(1, 2) brings tokens first again, (B, S, H, dh), but only as a view: its "
               "strides still walk the heads-first buffer.";
    case MT_MERGED_CONTIG:
        return "contiguous() copies the view into a token-major buffer: the one real copy, "
               "row-major strides.";
    case MT_CONCAT:
        return "view(B, S, D) of the contiguous copy joins the heads side by side: free.";
    case MT_OUT:
        return "@ W_O (D, D) keeps (B, S, D) and mixes the heads.";
    case MT_K_EXPAND:
    case MT_V_EXPAND:
        return "unsqueeze(2) adds a size-1 group axis; expand stretches it to G = heads / "
               "kv_heads with stride 0: every query head of a group reads the same bytes.";
    case MT_K_REPEAT:
    case MT_V_REPEAT:
        return "repeat_interleave copies each kv head G times: (B, heads, S, dh), a new "
               "contiguous buffer.";
    case MT_Q_WRONG:
        return "view(B, H, S, dh) straight from (B, S, D) is a legal view with the wrong "
               "grouping: it cuts the buffer into H blocks of S*dh consecutive floats, so a "
               "'head' holds pieces of several tokens.";
    default:
        return "";
    }
}
/* clang-format on */
