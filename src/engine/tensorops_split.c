/* tensorops_split.c - PyTorch's ops that cut a tensor into pieces (split,
 * split_with_sizes, chunk, unbind: views of the same storage) or move its
 * dims (movedim: a view; flip: a copy), with ATen 1.13's checks and words
 * (aten/src/ATen/native/TensorShape.cpp, TensorTransformations.cpp). */
#include "engine/geo.h"
#include "engine/tensorops.h"

#include "base/errbuf.h"

#include <stdio.h>
#include <string.h>

static int fail(OpCtx *ctx, const char *msg, long a, long b)
{
    err_set(ctx->err, sizeof ctx->err, msg, a, b);
    return -1;
}

static void free_pieces(Tensor **out, int n)
{
    for (int i = 0; i < n; i++) {
        tensor_free(out[i]);
        out[i] = NULL;
    }
}

/* The pieces of lengths len[0..n-1] along dim d (already wrapped) as
 * narrow views; the lengths are checked by the caller. */
static int cut(const Tensor *t, int d, int n, const long *len, Tensor **out, int max, OpCtx *ctx)
{
    if (n > max)
        return fail(ctx, "mhaviz play: a tuple holds at most %ld tensors (this one would be %ld)",
                    max, n);
    long start = 0;
    for (int i = 0; i < n; i++) {
        long l = len[i] < t->shape[d] - start ? len[i] : t->shape[d] - start; /* slice clamps */
        if (!(out[i] = tensorops_narrow(t, d, start, l, ctx))) {
            free_pieces(out, i);
            return -1;
        }
        start += l;
    }
    return n;
}

int tensorops_split(const Tensor *t, long split_size, long dim, Tensor **out, int max, OpCtx *ctx)
{
    if (max > TENSOROPS_MAX_PIECES) max = TENSOROPS_MAX_PIECES;
    if (t->ndim == 0) return fail(ctx, "split expects at least a 1-dimensional tensor", 0, 0);
    if (split_size < 0)
        return fail(ctx, "split expects split_size be non-negative, but got split_size=%ld",
                    split_size, 0);
    int d = geo_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return -1;
    long size = t->shape[d], n = 1;
    if (split_size == 0 && size != 0)
        return fail(
            ctx, "split_size can only be 0 if dimension size is 0, but got dimension size of %ld",
            size, 0);
    if (split_size != 0)
        n = (size + split_size - 1) / split_size > 1 ? (size + split_size - 1) / split_size : 1;
    if (n > max)
        return fail(ctx, "mhaviz play: a tuple holds at most %ld tensors (this one would be %ld)",
                    max, n);
    long len[TENSOROPS_MAX_PIECES];
    for (long i = 0; i < n; i++)
        len[i] = split_size;
    len[n - 1] = split_size - (split_size * n - size);
    return cut(t, d, (int)n, len, out, max, ctx);
}

int tensorops_split_sizes(const Tensor *t, int n, const long *sizes, long dim, Tensor **out,
                          int max, OpCtx *ctx)
{
    char list[160];
    if (t->ndim == 0) return fail(ctx, "split expects at least a 1-dimensional tensor", 0, 0);
    int d = geo_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return -1;
    long sum = 0;
    geo_fmt_list(list, sizeof list, n, sizes);
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            err_set(ctx->err, sizeof ctx->err,
                    "split_with_sizes expects split_sizes have only non-negative entries, but "
                    "got split_sizes=%s",
                    list);
            return -1;
        }
        if (geo_add(sum, sizes[i], &sum) < 0)
            return fail(ctx, "mhaviz play: too large: the sum of split_sizes overflows int64", 0,
                        0);
    }
    if (sum != t->shape[d]) {
        err_set(ctx->err, sizeof ctx->err,
                "split_with_sizes expects split_sizes to sum exactly to %ld (input tensor's size "
                "at dimension %ld), but got split_sizes=%s",
                (long)t->shape[d], dim, list);
        return -1;
    }
    return cut(t, d, n, sizes, out, max, ctx);
}

int tensorops_chunk(const Tensor *t, long chunks, long dim, Tensor **out, int max, OpCtx *ctx)
{
    if (max > TENSOROPS_MAX_PIECES) max = TENSOROPS_MAX_PIECES;
    if (t->ndim == 0) return fail(ctx, "chunk expects at least a 1-dimensional tensor", 0, 0);
    if (chunks <= 0)
        return fail(ctx, "chunk expects `chunks` to be greater than 0, got: %ld", chunks, 0);
    int d = geo_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return -1;
    long size = t->shape[d], split_size = size / chunks + (size % chunks != 0);
    if (split_size == 0 && size == 0) { /* chunks empty pieces */
        if (chunks > max)
            return fail(ctx,
                        "mhaviz play: a tuple holds at most %ld tensors (this one would be %ld)",
                        max, chunks);
        long len[TENSOROPS_MAX_PIECES] = {0};
        return cut(t, d, (int)chunks, len, out, max, ctx);
    }
    return tensorops_split(t, split_size, d, out, max, ctx);
}

int tensorops_unbind(const Tensor *t, long dim, Tensor **out, int max, OpCtx *ctx)
{
    int d = geo_wrap_dim(dim, t->ndim, ctx); /* a scalar wraps as 1-D, then has no size */
    if (d < 0) return -1;
    if (t->ndim == 0)
        return fail(ctx, "Dimension specified as %ld but tensor has no dimensions", d, 0);
    long n = t->shape[d];
    if (n > max)
        return fail(ctx, "mhaviz play: a tuple holds at most %ld tensors (this one would be %ld)",
                    max, n);
    for (long i = 0; i < n; i++)
        if (!(out[i] = tensorops_select(t, d, i, d, ctx))) {
            free_pieces(out, (int)i);
            return -1;
        }
    return (int)n;
}

Tensor *tensorops_select_dim(const Tensor *t, long dim, long index, OpCtx *ctx)
{
    if (t->ndim == 0) return FAIL(ctx, "select() cannot be applied to a 0-dim tensor.");
    int d = geo_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return NULL;
    if (index < -t->shape[d] || index >= t->shape[d]) {
        char sizes[160];
        long v[TENSOR_MAXDIM];
        for (int i = 0; i < t->ndim; i++)
            v[i] = t->shape[i];
        return FAIL(ctx, "select(): index %ld out of range for tensor of size %s at dimension %d",
                    index, geo_fmt_list(sizes, sizeof sizes, t->ndim, v), d);
    }
    return tensorops_select(t, d, index, d, ctx);
}

/* the dims wrapped into w, each once (bit d of *seen set) or -1 */
static int wrap_unique(int n, const long *dims, int ndim, int *w, OpCtx *ctx)
{
    for (int i = 0; i < n; i++)
        if ((w[i] = geo_wrap_dim(dims[i], ndim, ctx)) < 0) return -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (w[i] == w[j]) return 1;
    return 0;
}

Tensor *tensorops_movedim(const Tensor *t, int n, const long *src, const long *dst, OpCtx *ctx)
{
    char a[160], b[160];
    int ws[GEO_MAX], wd[GEO_MAX];
    if (n > GEO_MAX) return FAIL(ctx, "mhaviz play: at most %d dims", GEO_MAX);
    geo_fmt_list(a, sizeof a, n, src);
    geo_fmt_list(b, sizeof b, n, dst);
    int rs = wrap_unique(n, src, t->ndim, ws, ctx);
    if (rs < 0) return NULL;
    int rd = wrap_unique(n, dst, t->ndim, wd, ctx);
    if (rd < 0) return NULL;
    if (rs) return FAIL(ctx, "movedim: repeated dim in `source` (%s)", a);
    if (rd) return FAIL(ctx, "movedim: repeated dim in `destination` (%s)", b);
    if (t->ndim == 0) return tensorops_alias(t);
    /* order[dst[i]] = src[i]; the other dims keep their order in the free places */
    long order[TENSOR_MAXDIM];
    int used_src[TENSOR_MAXDIM] = {0}, used_dst[TENSOR_MAXDIM] = {0};
    for (int i = 0; i < n; i++) {
        order[wd[i]] = ws[i];
        used_src[ws[i]] = used_dst[wd[i]] = 1;
    }
    for (int s = 0, k = 0; s < t->ndim; s++) {
        if (used_src[s]) continue;
        while (used_dst[k])
            k++;
        order[k++] = s;
    }
    return tensorops_permute(t, t->ndim, order, ctx);
}

Tensor *tensorops_flip(const Tensor *t, int n, const long *dims, OpCtx *ctx)
{
    int w[GEO_MAX], flip[TENSOR_MAXDIM] = {0};
    if (n > GEO_MAX) return FAIL(ctx, "mhaviz play: at most %d dims", GEO_MAX);
    for (int i = 0; i < n; i++) {
        if ((w[i] = geo_wrap_dim(dims[i], t->ndim, ctx)) < 0) return NULL;
        if (flip[w[i]]) return FAIL(ctx, "dim %d appears multiple times in the list of dims", w[i]);
        flip[w[i]] = 1;
    }
    Tensor *r = tensorops_clone(t, ctx); /* empty_like(preserve): clone's strides, counted */
    if (!r) return NULL;
    size_t numel = tensorops_numel(t);
    int idx[TENSOR_MAXDIM] = {0}, from[TENSOR_MAXDIM];
    for (size_t k = 0; k < numel; k++) {
        for (int i = 0; i < t->ndim; i++) /* a 0-dim tensor: nothing to reverse */
            from[i] = flip[i] ? (int)t->shape[i] - 1 - idx[i] : idx[i];
        r->st->data[tensor_offset_of(r, idx)] = t->st->data[tensor_offset_of(t, from)];
        for (int i = t->ndim - 1; i >= 0; i--) {
            if (++idx[i] < t->shape[i]) break;
            idx[i] = 0;
        }
    }
    return r;
}
