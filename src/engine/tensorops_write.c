/* tensorops_write.c - writes into a tensor's own memory: copy_ and
 * t[idx] = value, with ATen's broadcasting, its memory-overlap checks and
 * its words (aten/src/ATen/native/Copy.cpp, TensorIterator.cpp's
 * compute_mem_overlaps and compute_shape, ATen/MemoryOverlap.cpp,
 * ATen/TensorIndexing.h's copy_to). */
#include "engine/tensorops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FAILI(ctx, ...) (err_set((ctx)->err, sizeof(ctx)->err, __VA_ARGS__), -1L)

/* the first element's storage offset and one past the last: a dense
 * tensor's span of memory (MemoryOverlap.cpp compares these) */
static void span_of(const Tensor *t, size_t *begin, size_t *end)
{
    *begin = t->offset;
    *end = t->offset + tensorops_numel(t);
}

static int same_geometry(const Tensor *a, const Tensor *b)
{
    if (a->st != b->st || a->offset != b->offset || a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i]) return 0;
    return 1;
}

/* has_internal_overlap == Yes: a dim of size > 1 with stride 0 (only
 * that is detected; other overlaps are "too hard" and pass, as in ATen) */
static int internal_overlap(const Tensor *t)
{
    if (tensorops_is_dense(t)) return 0;
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] > 1 && t->strides[i] == 0) return 1;
    return 0;
}

/* get_overlap_status == Partial: both dense, on one storage, their spans
 * meet but are not the same span with the same strides */
static int partial_overlap(const Tensor *a, const Tensor *b)
{
    if (!tensorops_numel(a) || !tensorops_numel(b) || a->st != b->st) return 0;
    if (!tensorops_is_dense(a) || !tensorops_is_dense(b)) return 0;
    size_t ab, ae, bb, be;
    span_of(a, &ab, &ae);
    span_of(b, &bb, &be);
    if (ab == bb && ae == be) {
        for (int i = 0; i < a->ndim && a->ndim == b->ndim; i++)
            if (a->strides[i] != b->strides[i]) return 1;
        return a->ndim != b->ndim;
    }
    return ab < be && bb < ae;
}

/* TensorIterator's shape for (dst, src): infer_size, then the output must
 * have it (resize_outputs is off for copy_) */
static int broadcast_ok(const Tensor *dst, const Tensor *src, OpCtx *ctx)
{
    long shape[TENSOR_MAXDIM + 1];
    int n = dst->ndim;
    for (int i = 0; i < n; i++)
        shape[i] = dst->shape[i];
    if (n == 0) { /* an empty shape so far takes the next operand's */
        n = src->ndim;
        for (int i = 0; i < n; i++)
            shape[i] = src->shape[i];
    } else {
        int m = n > src->ndim ? n : src->ndim;
        long out[TENSOR_MAXDIM + 1];
        for (int i = m - 1; i >= 0; i--) {
            int da = i - (m - n), db = i - (m - src->ndim);
            long a = da >= 0 ? shape[da] : 1, b = db >= 0 ? src->shape[db] : 1;
            if (a != b && a != 1 && b != 1)
                return (int)FAILI(ctx,
                                  "The size of tensor a (%ld) must match the size of tensor b "
                                  "(%ld) at non-singleton dimension %d",
                                  a, b, i);
            out[i] = a == 1 ? b : a;
        }
        n = m;
        memcpy(shape, out, sizeof(long) * (size_t)m);
    }
    int same = n == dst->ndim;
    for (int i = 0; same && i < n; i++)
        same = shape[i] == dst->shape[i];
    if (!same) {
        char a[200], b[200];
        long dsz[TENSOR_MAXDIM];
        for (int i = 0; i < dst->ndim; i++)
            dsz[i] = dst->shape[i];
        return (int)FAILI(ctx, "output with shape %s doesn't match the broadcast shape %s",
                          geo_fmt_list(a, sizeof a, dst->ndim, dsz),
                          geo_fmt_list(b, sizeof b, n, shape));
    }
    return 1;
}

/* src's elements (src has dst's shape, or is broadcast to it: its dims
 * the trailing ones, size 1 or stride 0 where it repeats; NULL: *scalar
 * everywhere) read first, then written into dst: well defined whatever the
 * two share.  int64 1 truncates toward zero as a cast does, 2 casts to
 * bool (0 or 1). */
static long write_all(Tensor *dst, const Tensor *src, const float *scalar, int int64, OpCtx *ctx)
{
    size_t n = tensorops_numel(dst);
    float *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) return FAILI(ctx, "out of memory");
    int idx[TENSOR_MAXDIM] = {0}, off = src ? dst->ndim - src->ndim : 0;
    for (size_t k = 0; k < n; k++) {
        float v = scalar ? *scalar : 0;
        if (src) {
            size_t o = src->offset;
            for (int i = 0; i < src->ndim; i++)
                if (src->shape[i] > 1) o += (size_t)((long)idx[i + off] * src->strides[i]);
            v = src->st->data[o];
        }
        tmp[k] = int64 == 2 ? (float)(v != 0) : int64 ? truncf(v) : v;
        for (int i = dst->ndim - 1; i >= 0; i--) {
            if (++idx[i] < dst->shape[i]) break;
            idx[i] = 0;
        }
    }
    memset(idx, 0, sizeof idx);
    for (size_t k = 0; k < n; k++) {
        dst->st->data[tensor_offset_of(dst, idx)] = tmp[k];
        for (int i = dst->ndim - 1; i >= 0; i--) {
            if (++idx[i] < dst->shape[i]) break;
            idx[i] = 0;
        }
    }
    free(tmp);
    tensor_count_copy(dst, n);
    return (long)n;
}

long tensorops_copy_into(Tensor *dst, const Tensor *src, int int64, OpCtx *ctx)
{
    if (same_geometry(dst, src)) return 0; /* self.copy_(self): ATen returns early */
    if (internal_overlap(dst))
        return FAILI(ctx, "unsupported operation: more than one element of the written-to "
                          "tensor refers to a single memory location. Please clone() the "
                          "tensor before performing the operation.");
    if (partial_overlap(dst, src))
        return FAILI(ctx, "unsupported operation: some elements of the input tensor and the "
                          "written-to tensor refer to a single memory location. Please clone() "
                          "the tensor before performing the operation.");
    if (broadcast_ok(dst, src, ctx) < 0) return -1;
    return write_all(dst, src, NULL, int64, ctx);
}

long tensorops_fill(Tensor *dst, float v, int int64, OpCtx *ctx)
{
    return write_all(dst, NULL, &v, int64, ctx);
}

long tensorops_copy_to(Tensor *dst, const Tensor *src, int int64, OpCtx *ctx)
{
    int same = dst->ndim == src->ndim;
    for (int i = 0; same && i < dst->ndim; i++)
        same = dst->shape[i] == src->shape[i];
    if (same) return tensorops_copy_into(dst, src, int64, ctx);
    if (src->ndim == 0) return write_all(dst, src, NULL, int64, ctx); /* fill_: no overlap check */
    /* src.view(slicePrefix1sSize(src.sizes())), then expand_inplace(dst, it) */
    Tensor view = *src;
    int lead = 0;
    while (lead < src->ndim && src->shape[lead] == 1)
        lead++;
    view.ndim = src->ndim - lead;
    memmove(view.shape, src->shape + lead, sizeof(int) * (size_t)view.ndim);
    memmove(view.strides, src->strides + lead, sizeof(long) * (size_t)view.ndim);
    long sizes[TENSOR_MAXDIM];
    for (int i = 0; i < dst->ndim; i++)
        sizes[i] = dst->shape[i];
    Tensor *b = tensorops_expand(&view, dst->ndim, sizes, ctx);
    if (!b) return -1;
    long n = tensorops_copy_into(dst, b, int64, ctx);
    tensor_free(b);
    return n;
}
