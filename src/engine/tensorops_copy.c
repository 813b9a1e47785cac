/* tensorops_copy.c - the shape operations that make new storage (clone,
 * contiguous, arange, zeros, repeat, repeat_interleave) and the ones that
 * pick elements (narrow, select, slice); tensorops.c holds the views.  The
 * copies here (clone and contiguous through geo_copy, repeat and
 * repeat_interleave themselves) count what they write with
 * tensor_count_copy, in ctx->eng. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"
#include "engine/geo.h"
#include "engine/tensorops.h"

/* ---- copies ---------------------------------------------------------------- */

/* ATen's infer_dense_strides (what empty_like gives a strided tensor that
 * is not dense): the dims ordered by stride as TensorIterator orders them
 * (an insertion sort; a stride-0 dim stays put; equal strides put the
 * smaller size first), then packed densely in that order. */
static int infer_dense_strides(Geo *g, OpCtx *ctx)
{
    int n = g->n, perm[GEO_MAX];
    long out[GEO_MAX], cur = 1;
    if (n == 0) return 0;
    if (n == 1) {
        g->stride[0] = 1;
        return 0;
    }
    for (int i = 0; i < n; i++)
        perm[i] = n - 1 - i;
    for (int i = 1; i < n; i++) {
        int d1 = i;
        for (int j = 1; j <= i; j++) {
            int d0 = i - j, a = perm[d0], b = perm[d1], cmp;
            long s0 = g->stride[a], s1 = g->stride[b];
            if (s0 == 0 || s1 == 0)
                cmp = 0;
            else if (s0 != s1)
                cmp = s0 < s1 ? -1 : 1;
            else
                cmp = g->size[a] > g->size[b] ? 1 : 0;
            if (cmp > 0) {
                perm[d0] = b, perm[d1] = a;
                d1 = d0;
            } else if (cmp < 0)
                break;
        }
    }
    for (int i = 0; i < n; i++) {
        out[perm[i]] = cur;
        if (g->size[perm[i]] > 1 && i + 1 < n && geo_mul(cur, g->size[perm[i]], &cur) < 0) {
            geo_too_large(ctx, "a stride");
            return -1;
        }
    }
    for (int i = 0; i < n; i++)
        g->stride[i] = out[i];
    return 0;
}

int tensorops_clone_geo(const Tensor *t, Geo *g, OpCtx *ctx)
{
    geo_of(t, g);
    /* is_non_overlapping_and_dense (is_contiguous || ... || computed): the
     * same strides; otherwise empty_like's inferred dense strides */
    if (!geo_contiguous(g) && !geo_dense(g) && infer_dense_strides(g, ctx) < 0) return -1;
    return 0;
}

Tensor *tensorops_clone(const Tensor *t, OpCtx *ctx)
{
    Geo g;
    if (tensorops_clone_geo(t, &g, ctx) < 0) return NULL;
    return geo_copy(t, &g, ctx);
}

Tensor *tensorops_contiguous(const Tensor *t, OpCtx *ctx)
{
    if (tensorops_is_contiguous(t)) return tensorops_alias(t);
    return geo_copy_contiguous(t, ctx);
}

/* ---- sources ------------------------------------------------------------------ */

Tensor *tensorops_arange(long n, OpCtx *ctx)
{
    if (n < 0) return FAIL(ctx, "upper bound and larger bound inconsistent with step sign");
    Geo g = {.n = 1, .size = {n}, .stride = {1}};
    Tensor *base = geo_new_storage(n, ctx);
    if (!base) return NULL;
    for (long i = 0; i < n; i++)
        base->st->data[i] = (float)i;
    Tensor *r = geo_view(base, &g, ctx);
    tensor_free(base);
    return r;
}

Tensor *tensorops_zeros(int n, const long *sizes, OpCtx *ctx)
{
    Geo g = {.n = n};
    for (int i = 0; i < n && i < GEO_MAX; i++)
        g.size[i] = sizes[i];
    for (int i = 0; i < n; i++)
        if (sizes[i] < 0) {
            char b[200];
            return FAIL(ctx, "Trying to create tensor with negative dimension %ld: %s", sizes[i],
                        geo_fmt_list(b, sizeof b, n, sizes));
        }
    if (!geo_fits(&g, ctx)) return NULL;
    long numel = geo_numel(n, g.size);

    if (geo_contiguous_strides(&g, ctx) < 0) return NULL;
    Tensor *base = geo_new_storage(numel, ctx);
    if (!base) return NULL;
    Tensor *r = geo_view(base, &g, ctx);
    tensor_free(base);
    return r;
}

/* ---- narrow, select, slice ----------------------------------------------------------- */

static Tensor *slice_dim(const Tensor *t, int d, long start, long end, long step, OpCtx *ctx)
{
    Geo g;
    geo_of(t, &g);
    long size = g.size[d];
    if (start < 0) start += size;
    if (end < 0) end += size;
    if (start < 0)
        start = 0;
    else if (start >= size)
        start = size;
    if (end < start)
        end = start;
    else if (end >= size)
        end = size;
    long shift, size_step, size_out, stride_out;
    if (geo_mul(start, g.stride[d], &shift) < 0 || geo_add(g.offset, shift, &g.offset) < 0)
        return geo_too_large(ctx, "the storage offset");
    /* ATen: sizes[dim] = (len + step - 1) / step; strides[dim] *= step, in
     * int64 that wraps for a step near INT64_MAX: its answer is what it
     * wrapped to (a[::M] is empty), and as_strided then refuses what that
     * made negative */
    geo_add(end - start, step - 1, &size_step);
    size_out = size_step / step;
    geo_mul(g.stride[d], step, &stride_out);
    g.size[d] = size_out;
    g.stride[d] = stride_out;
    char a[200], b[200];
    for (int i = 0; i < g.n; i++)
        if (g.stride[i] < 0)
            return FAIL(ctx,
                        "as_strided: Negative strides are not supported at the moment, got "
                        "strides: %s",
                        geo_fmt_list(a, sizeof a, g.n, g.stride));
    if (size_out < 0)
        return FAIL(ctx, "Storage size calculation overflowed with sizes=%s and strides=%s",
                    geo_fmt_list(a, sizeof a, g.n, g.size),
                    geo_fmt_list(b, sizeof b, g.n, g.stride));
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_narrow(const Tensor *t, long dim, long start, long length, OpCtx *ctx)
{
    if (t->ndim == 0) return FAIL(ctx, "narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0) return FAIL(ctx, "narrow(): length must be non-negative.");
    int d = geo_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return NULL;
    long cur = t->shape[d];
    if (start < -cur || start > cur)
        return FAIL(ctx, "start out of range (expected to be in range of [%ld, %ld], but got %ld)",
                    -cur, cur, start);
    if (start < 0) start += cur;
    if (start > cur - length)
        return FAIL(ctx, "start (%ld) + length (%ld) exceeds dimension size (%ld).", start, length,
                    cur);
    return slice_dim(t, d, start, start + length, 1, ctx);
}

Tensor *tensorops_select(const Tensor *t, int dim, long index, int real_dim, OpCtx *ctx)
{
    if (t->ndim == 0 && index == 0 && dim == 0)
        return FAIL(ctx, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    long size = dim < t->ndim ? t->shape[dim] : 0; /* a dim past the end (two ...) reads as 0 */
    if (index < -size || index >= size)
        return FAIL(ctx, "index %ld is out of bounds for dimension %d with size %ld", index,
                    real_dim, size);
    if (index < 0) index += size;
    Geo g;
    geo_of(t, &g);
    long shift;
    if (geo_mul(index, g.stride[dim], &shift) < 0 || geo_add(g.offset, shift, &g.offset) < 0)
        return geo_too_large(ctx, "the storage offset");
    for (int i = dim; i + 1 < g.n; i++)
        g.size[i] = g.size[i + 1], g.stride[i] = g.stride[i + 1];
    g.n--;
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_slice(const Tensor *t, int dim, int has_start, long start, int has_stop,
                        long stop, long step, OpCtx *ctx)
{
    if (step == 0) return FAIL(ctx, "slice step cannot be zero");
    if (step < 0) return FAIL(ctx, "step must be greater than zero");
    if (t->ndim == 0) return FAIL(ctx, "slice() cannot be applied to a 0-dim tensor.");
    if (geo_wrap_dim(dim, t->ndim, ctx) < 0) return NULL;
    return slice_dim(t, dim, has_start ? start : 0, has_stop ? stop : LONG_MAX, step, ctx);
}

/* ---- repeat ------------------------------------------------------------------------- */

Tensor *tensorops_repeat(const Tensor *t, int n, const long *reps, OpCtx *ctx)
{
    if (n < t->ndim)
        return FAIL(ctx, "Number of dimensions of repeat dims can not be smaller than number of "
                         "dimensions of tensor");
    if (!geo_sizes_ok(n, ctx)) return NULL;
    Geo g = {.n = n};
    long pad[GEO_MAX];
    int lead = n - t->ndim;
    int over = 0;
    for (int i = 0; i < n; i++) {
        pad[i] = i < lead ? 1 : t->shape[i - lead];
        over |= geo_mul(pad[i], reps[i], &g.size[i]) < 0;
    }
    /* ATen multiplies in int64 that wraps, then at::empty refuses a negative
     * size: a.repeat(INT64_MAX) says -24.  A wrap that is not negative is ours. */
    int negative = 0;
    for (int i = 0; i < n; i++)
        negative |= g.size[i] < 0;
    if (over && !negative) return geo_too_large(ctx, "a repeated size");
    if (!geo_fits(&g, ctx) || geo_contiguous_strides(&g, ctx) < 0) return NULL;
    /* the source seen as (reps[0], pad[0], reps[1], pad[1], ...) is too many
     * dims for a Tensor, so the copy walks the result and reads modulo */
    long numel = geo_numel(n, g.size);

    Tensor *base = geo_new_storage(numel, ctx);
    if (!base) return NULL;
    Tensor *r = geo_view(base, &g, ctx);
    tensor_free(base);
    if (!r) return NULL;
    int idx[TENSOR_MAXDIM] = {0}, src[TENSOR_MAXDIM];
    for (long k = 0; k < numel; k++) {
        for (int i = lead; i < n; i++)
            src[i - lead] = (int)(idx[i] % pad[i]);
        r->st->data[k] = tensor_get(t, src);
        for (int i = n - 1; i >= 0; i--) {
            if (++idx[i] < r->shape[i]) break;
            idx[i] = 0;
        }
    }
    tensor_count_copy(r, (size_t)numel);
    return r;
}

Tensor *tensorops_repeat_interleave(const Tensor *t, long reps, int has_dim, long dim, OpCtx *ctx)
{
    Tensor *in = has_dim ? tensorops_alias(t) : tensorops_flatten(t, 0, -1, ctx);
    if (!in) return NULL;
    Tensor *r = NULL;
    if (in->ndim == 0) { /* input.size(dim), unwrapped */
        r = FAIL(ctx, "Dimension specified as %ld but tensor has no dimensions", dim);
        goto out;
    }
    int d = has_dim ? geo_wrap_dim(dim, in->ndim, ctx) : 0;
    if (d < 0) goto out;
    if (reps < 0) {
        r = FAIL(ctx, "repeats can not be negative");
        goto out;
    }
    Geo g;
    geo_of(in, &g);
    /* ATen sums the repeats in int64 that wraps, then at::empty refuses a
     * negative total: a.repeat_interleave(INT64_MAX) says -24 */
    if (geo_mul(g.size[d], reps, &g.size[d]) < 0) {
        if (g.size[d] < 0)
            r = FAIL(ctx, "Trying to create tensor with negative dimension %ld: [%ld]", g.size[d],
                     g.size[d]);
        else
            r = geo_too_large(ctx, "the repeated size");
        goto out;
    }
    if (!geo_fits(&g, ctx) || geo_contiguous_strides(&g, ctx) < 0) goto out;
    /* index_select(dim, [0]*reps + [1]*reps + ...): a view of in with dim
     * read at i / reps gives the values; it is built index by index */
    long numel = geo_numel(g.n, g.size);
    Tensor *base = geo_new_storage(numel, ctx);
    if (!base) goto out;
    g.offset = 0;
    r = geo_view(base, &g, ctx);
    tensor_free(base);
    if (!r) goto out;
    int idx[TENSOR_MAXDIM] = {0}, src[TENSOR_MAXDIM];
    for (long k = 0; k < numel; k++) {
        for (int i = 0; i < r->ndim; i++)
            src[i] = i == d ? (int)(idx[i] / reps) : idx[i];
        r->st->data[k] = tensor_get(in, src);
        for (int i = r->ndim - 1; i >= 0; i--) {
            if (++idx[i] < r->shape[i]) break;
            idx[i] = 0;
        }
    }
    tensor_count_copy(r, (size_t)numel);
out:
    tensor_free(in);
    return r;
}

/* ---- elementwise and joining copies (for the puzzles: rotate_half, a causal
 * mask, appending to a KV cache) ------------------------------------------------ */

Tensor *tensorops_neg(const Tensor *t, OpCtx *ctx)
{
    Tensor *r = tensorops_clone(t, ctx); /* empty_like: clone's strides */
    for (size_t i = 0; r && i < r->st->n; i++)
        r->st->data[i] = r->st->data[i] == 0 ? 0 : -r->st->data[i];
    return r;
}

Tensor *tensorops_tri(const Tensor *t, long diagonal, int upper, OpCtx *ctx)
{
    if (tensorops_wrap_dim(-2, t->ndim, ctx) < 0) return NULL; /* ATen: at least 2 dims */
    Tensor *r = geo_copy_contiguous(t, ctx);
    if (!r) return NULL;
    long rows = r->shape[r->ndim - 2], cols = r->shape[r->ndim - 1];
    size_t n = tensorops_numel(r);
    for (size_t k = 0; rows && cols && k < n; k++) {
        long j = (long)(k % (size_t)cols), i = (long)(k / (size_t)cols % (size_t)rows), d;
        geo_sub(j, i, &d); /* |d| < 2^31: sizes are at most TENSOROPS_MAX_STORAGE */
        if (upper ? d < diagonal : d > diagonal) r->st->data[r->offset + k] = 0;
    }
    return r;
}

Tensor *tensorops_cat(int n, const Tensor *const *ts, long dim, OpCtx *ctx)
{
    if (n == 0) return FAIL(ctx, "torch.cat(): expected a non-empty list of Tensors");
    const Tensor *ref = NULL; /* the first that is not a legacy 1-D empty tensor */
    for (int i = 0; i < n && !ref; i++)
        if (!(ts[i]->ndim == 1 && ts[i]->shape[0] == 0)) ref = ts[i];
    if (!ref) return tensorops_clone(ts[0], ctx);
    for (int i = 0; i < n; i++)
        if (ts[i]->ndim == 0)
            return FAIL(ctx, "zero-dimensional tensor (at position %d) cannot be concatenated", i);
    int d = tensorops_wrap_dim(dim, ref->ndim, ctx);
    if (d < 0) return NULL;
    Geo g;
    geo_of(ref, &g);
    g.size[d] = 0;
    for (int i = 0; i < n; i++) {
        const Tensor *t = ts[i];
        if (t->ndim == 1 && t->shape[0] == 0) continue;
        if (t->ndim != ref->ndim)
            return FAIL(ctx, "Tensors must have same number of dimensions: got %d and %d",
                        ref->ndim, t->ndim);
        for (int k = 0; k < t->ndim; k++)
            if (k != d && t->shape[k] != ref->shape[k])
                return FAIL(ctx,
                            "Sizes of tensors must match except in dimension %d. Expected size "
                            "%d but got size %d for tensor number %d in the list.",
                            d, ref->shape[k], t->shape[k], i);
        if (geo_add(g.size[d], t->shape[d], &g.size[d]) < 0) return geo_too_large(ctx, "the size");
    }
    if (geo_contiguous_strides(&g, ctx) < 0 || !geo_fits(&g, ctx)) return NULL;
    long numel = geo_numel(g.n, g.size);
    Tensor *base = geo_new_storage(numel, ctx);
    if (!base) return NULL;
    g.offset = 0;
    Tensor *r = geo_view(base, &g, ctx);
    tensor_free(base);
    if (!r) return NULL;
    long at = 0; /* where the next input starts along d */
    for (int i = 0; i < n; i++) {
        const Tensor *t = ts[i];
        long m = (long)tensorops_numel(t);
        if (m == 0) {
            if (t->ndim == ref->ndim) at += t->shape[d];
            continue;
        }
        int idx[TENSOR_MAXDIM] = {0}, out[TENSOR_MAXDIM];
        for (long k = 0; k < m; k++) {
            memcpy(out, idx, sizeof out);
            out[d] += (int)at;
            r->st->data[tensor_offset_of(r, out)] = tensor_get(t, idx);
            for (int j = t->ndim - 1; j >= 0; j--) {
                if (++idx[j] < t->shape[j]) break;
                idx[j] = 0;
            }
        }
        at += t->shape[d];
    }
    tensor_count_copy(r, (size_t)numel);
    return r;
}
