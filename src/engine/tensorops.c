/* tensorops.c - PyTorch's shape operations on the strided engine (see the
 * header).  Each function works on a Geo (sizes, strides, offset as int64,
 * as ATen keeps them), then makes the result a view of the same storage
 * (geo_view) or a copy into a new one (geo_copy, engine/geo.c); the copies
 * and element picks are tensorops_copy.c. */
#include "engine/tensorops.h"
#include "engine/geo.h"

#include "base/errbuf.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

size_t tensorops_numel(const Tensor *t)
{
    size_t p = 1;
    for (int i = 0; i < t->ndim; i++)
        p *= (size_t)t->shape[i];
    return p;
}

Tensor *tensorops_alias(const Tensor *t)
{
    return tensor_restride(t, t->offset, t->ndim, t->shape, t->strides);
}

/* ---- queries -------------------------------------------------------------- */

int tensorops_is_contiguous(const Tensor *t)
{
    Geo g;
    geo_of(t, &g);
    return geo_contiguous(&g);
}

int tensorops_is_dense(const Tensor *t)
{
    Geo g;
    geo_of(t, &g);
    return geo_contiguous(&g) || geo_dense(&g);
}

int tensorops_wrap_dim(long dim, int ndim, OpCtx *ctx)
{
    return geo_wrap_dim(dim, ndim, ctx);
}

/* ---- view and reshape ------------------------------------------------------------ */

/* ATen's infer_size: one -1 is inferred from numel. */
static int infer_size(int n, const long *shape, long numel, long *out, OpCtx *ctx)
{
    long newsize = 1;
    int infer = -1;
    char b[200];
    for (int d = 0; d < n; d++) {
        out[d] = shape[d];
        if (shape[d] == -1) {
            if (infer >= 0) {
                err_set(ctx->err, sizeof ctx->err, "only one dimension can be inferred");
                return -1;
            }
            infer = d;
        } else if (shape[d] >= 0) {
            newsize =
                newsize > LONG_MAX / (shape[d] ? shape[d] : 1) ? LONG_MAX : newsize * shape[d];
        } else {
            err_set(ctx->err, sizeof ctx->err, "invalid shape dimension %ld", shape[d]);
            return -1;
        }
    }
    if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
        if (infer >= 0) {
            if (newsize == 0) {
                err_set(ctx->err, sizeof ctx->err,
                        "cannot reshape tensor of 0 elements into shape %s because the "
                        "unspecified dimension size -1 can be any value and is ambiguous",
                        geo_fmt_list(b, sizeof b, n, shape));
                return -1;
            }
            out[infer] = numel / newsize;
        }
        return 0;
    }
    err_set(ctx->err, sizeof ctx->err, "shape '%s' is invalid for input of size %ld",
            geo_fmt_list(b, sizeof b, n, shape), numel);
    return -1;
}

/* ATen's computeStride (TensorUtils.cpp): strides for viewing (old) as the
 * sizes in shape[0..n-1] without a copy; 0 when that cannot be done, -1 when
 * a stride would overflow int64. */
static int compute_stride(const Geo *old, int n, const long *shape, long *out)
{
    if (old->n == 0) {
        for (int i = 0; i < n; i++)
            out[i] = 1;
        return 1;
    }
    long numel = geo_numel(old->n, old->size);
    if (numel == 0) {
        int same = old->n == n;
        for (int i = 0; same && i < n; i++)
            same = old->size[i] == shape[i];
        if (same) {
            for (int i = 0; i < n; i++)
                out[i] = old->stride[i];
            return 1;
        }
        for (int d = n - 1; d >= 0; d--)
            if (d == n - 1)
                out[d] = 1;
            else if (geo_mul(shape[d + 1] > 1 ? shape[d + 1] : 1, out[d + 1], &out[d]) < 0)
                return -1;
        return 1;
    }
    int view_d = n - 1;
    long chunk_base = old->stride[old->n - 1], tensor_numel = 1, view_numel = 1;
    /* the products are checked: one past int64 cannot equal a stride, and a
     * stride past int64 cannot be viewed (reshape copies instead) */
    for (int td = old->n - 1; td >= 0; td--) {
        long chunk;
        if (geo_mul(tensor_numel, old->size[td], &tensor_numel) < 0) return 0;
        if (td == 0 || (old->size[td - 1] != 1 && (geo_mul(tensor_numel, chunk_base, &chunk) < 0 ||
                                                   old->stride[td - 1] != chunk))) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                if (geo_mul(view_numel, chunk_base, &out[view_d]) < 0 ||
                    geo_mul(view_numel, shape[view_d], &view_numel) < 0)
                    return 0;
                view_d--;
            }
            if (view_numel != tensor_numel) return 0;
            if (td > 0) {
                chunk_base = old->stride[td - 1];
                tensor_numel = view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* The shared start of view and reshape: the inferred shape in g (sizes), the
 * strides of a view in g->stride when one exists.  -1 on a bad shape, 0 when
 * only a copy can do it, 1 when a view can. */
static int plan_view(const Tensor *t, int n, const long *sizes, Geo *g, OpCtx *ctx)
{
    Geo old;
    geo_of(t, &old);
    if (!geo_sizes_ok(n, ctx)) return -1;
    if (infer_size(n, sizes, geo_numel(old.n, old.size), g->size, ctx) < 0) return -1;
    g->n = n;
    g->offset = old.offset;
    int r = compute_stride(&old, n, g->size, g->stride);
    if (r < 0) geo_too_large(ctx, "a stride");
    return r;
}

Tensor *tensorops_view(const Tensor *t, int n, const long *sizes, OpCtx *ctx)
{
    Geo g;
    int r = plan_view(t, n, sizes, &g, ctx);
    if (r < 0) return NULL;
    if (r == 0)
        return FAIL(ctx, "view size is not compatible with input tensor's size and stride (at "
                         "least one dimension spans across two contiguous subspaces). Use "
                         ".reshape(...) instead.");
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_reshape(const Tensor *t, int n, const long *sizes, OpCtx *ctx)
{
    Geo g;
    int r = plan_view(t, n, sizes, &g, ctx);
    if (r < 0) return NULL;
    if (r == 1) return geo_view(t, &g, ctx);
    /* _unsafe_view(self.clone(at::MemoryFormat::Contiguous), shape) */
    if (!geo_fits(&g, ctx)) return NULL;
    Tensor *c = geo_copy_contiguous(t, ctx);
    if (!c) return NULL;
    if (geo_contiguous_strides(&g, ctx) < 0) {
        tensor_free(c);
        return NULL;
    }
    g.offset = 0;
    Tensor *v = geo_view(c, &g, ctx);
    tensor_free(c);
    return v;
}

Tensor *tensorops_flatten(const Tensor *t, long start, long end, OpCtx *ctx)
{
    int s = geo_wrap_dim(start, t->ndim, ctx);
    if (s < 0) return NULL;
    int e = geo_wrap_dim(end, t->ndim, ctx);
    if (e < 0) return NULL;
    if (s > e) return FAIL(ctx, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) {
        long one = 1;
        return tensorops_reshape(t, 1, &one, ctx);
    }
    if (s == e) return tensorops_alias(t);
    long shape[GEO_MAX];
    int n = 0;
    for (int i = 0; i < s; i++)
        shape[n++] = t->shape[i];
    long slice = 1;
    for (int i = s; i <= e; i++)
        if (geo_mul(slice, t->shape[i], &slice) < 0)
            return geo_too_large(ctx, "the flattened size");
    shape[n++] = slice;
    for (int i = e + 1; i < t->ndim; i++)
        shape[n++] = t->shape[i];
    return tensorops_reshape(t, n, shape, ctx);
}

Tensor *tensorops_unflatten(const Tensor *t, long dim, int n, const long *sizes, OpCtx *ctx)
{
    int d = geo_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return NULL;
    if (n == 0) return FAIL(ctx, "unflatten: sizes must be non-empty");
    if (t->ndim == 0) /* self.size(d) after the scalar wrap */
        return FAIL(ctx, "Dimension specified as %d but tensor has no dimensions", d);
    if (!geo_sizes_ok(n + t->ndim, ctx)) return NULL;
    long inferred[GEO_MAX];
    if (infer_size(n, sizes, t->shape[d], inferred, ctx) < 0) {
        char b[200];
        if (!strstr(ctx->err, "is invalid for input of size")) {
            char msg[sizeof ctx->err];
            snprintf(msg, sizeof msg, "%s", ctx->err);
            return FAIL(ctx, "unflatten got an unexpected error: %s", msg);
        }
        return FAIL(ctx,
                    "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%d) "
                    "in the input tensor",
                    geo_fmt_list(b, sizeof b, n, sizes), d, t->shape[d]);
    }
    long shape[GEO_MAX];
    int k = 0;
    for (int i = 0; i < d; i++)
        shape[k++] = t->shape[i];
    for (int i = 0; i < n; i++)
        shape[k++] = inferred[i];
    for (int i = d + 1; i < t->ndim; i++)
        shape[k++] = t->shape[i];
    return tensorops_view(t, k, shape, ctx);
}

/* ---- dims moved, added, removed ---------------------------------------------------- */

Tensor *tensorops_transpose(const Tensor *t, long d0, long d1, OpCtx *ctx)
{
    int a = geo_wrap_dim(d0, t->ndim, ctx);
    if (a < 0) return NULL;
    int b = geo_wrap_dim(d1, t->ndim, ctx);
    if (b < 0) return NULL;
    Geo g;
    geo_of(t, &g);
    if (t->ndim == 0 || a == b) return tensorops_alias(t);
    long s = g.size[a], st = g.stride[a];
    g.size[a] = g.size[b], g.stride[a] = g.stride[b];
    g.size[b] = s, g.stride[b] = st;
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_permute(const Tensor *t, int n, const long *dims, OpCtx *ctx)
{
    if (n != t->ndim)
        return FAIL(ctx,
                    "permute(sparse_coo): number of dimensions in the tensor input does not match "
                    "the length of the desired ordering of dimensions i.e. input.dim() = %d is not "
                    "equal to len(dims) = %d",
                    t->ndim, n);
    Geo g;
    geo_of(t, &g);
    int seen[GEO_MAX] = {0};
    for (int i = 0; i < n; i++) {
        int d = geo_wrap_dim(dims[i], t->ndim, ctx);
        if (d < 0) return NULL;
        if (seen[d]) return FAIL(ctx, "permute(): duplicate dims are not allowed.");
        seen[d] = 1;
        g.size[i] = t->shape[d];
        g.stride[i] = t->strides[d];
    }
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_t(const Tensor *t, OpCtx *ctx)
{
    if (t->ndim > 2)
        return FAIL(ctx, "t() expects a tensor with <= 2 dimensions, but self is %dD", t->ndim);
    return tensorops_transpose(t, 0, t->ndim < 2 ? 0 : 1, ctx);
}

Tensor *tensorops_numpy_T(const Tensor *t, OpCtx *ctx)
{
    long dims[TENSOR_MAXDIM];
    if (t->ndim == 0) return tensorops_alias(t);
    for (int i = 0; i < t->ndim; i++)
        dims[i] = t->ndim - 1 - i;
    return tensorops_permute(t, t->ndim, dims, ctx);
}

Tensor *tensorops_mT(const Tensor *t, OpCtx *ctx)
{
    if (t->ndim == 1)
        return FAIL(ctx, "tensor.mT is only supported on matrices or batches of matrices. Got "
                         "1-D tensor.");
    if (t->ndim == 0) return tensorops_alias(t); /* deprecated, the identity (PyTorch 2.0) */
    return tensorops_transpose(t, -2, -1, ctx);
}

/* ATen's inferExpandGeometry. */
Tensor *tensorops_expand(const Tensor *t, int n, const long *sizes, OpCtx *ctx)
{
    char a[200], b[200];
    long tsz[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++)
        tsz[i] = t->shape[i];
    if (n < t->ndim)
        return FAIL(ctx,
                    "expand(%s{%s}, size=%s): the number of sizes provided (%d) must be greater "
                    "or equal to the number of dimensions in the tensor (%d)",
                    ctx->type_name ? ctx->type_name : "torch.FloatTensor",
                    geo_fmt_list(a, sizeof a, t->ndim, tsz), geo_fmt_list(b, sizeof b, n, sizes), n,
                    t->ndim);
    if (!geo_sizes_ok(n, ctx)) return NULL;
    Geo g = {.n = n, .offset = (long)t->offset};
    if (t->ndim == 0) { /* a scalar: every dim new, every stride 0 */
        for (int i = 0; i < n; i++)
            g.size[i] = sizes[i], g.stride[i] = 0;
        return geo_view(t, &g, ctx);
    }
    for (int i = n - 1; i >= 0; i--) {
        int dim = t->ndim - 1 - (n - 1 - i);
        long size = dim >= 0 ? t->shape[dim] : 1;
        long stride = dim >= 0 ? t->strides[dim] : 0;
        if (dim < 0 && geo_mul(g.size[i + 1], g.stride[i + 1], &stride) < 0)
            return geo_too_large(ctx, "a stride");
        long target = sizes[i];
        if (target == -1) {
            if (dim < 0)
                return FAIL(ctx,
                            "The expanded size of the tensor (-1) isn't allowed in a leading, "
                            "non-existing dimension %d",
                            i);
            target = size;
        }
        if (size != target) {
            if (size != 1)
                return FAIL(ctx,
                            "The expanded size of the tensor (%ld) must match the existing size "
                            "(%ld) at non-singleton dimension %d.  Target sizes: %s.  Tensor "
                            "sizes: %s",
                            target, size, i, geo_fmt_list(a, sizeof a, n, sizes),
                            geo_fmt_list(b, sizeof b, t->ndim, tsz));
            size = target;
            stride = 0;
        }
        g.size[i] = size;
        g.stride[i] = stride;
    }
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_unsqueeze(const Tensor *t, long dim, OpCtx *ctx)
{
    int d = geo_wrap_dim(dim, t->ndim + 1, ctx);
    if (d < 0) return NULL;
    Geo g;
    geo_of(t, &g);
    long stride = 1;
    if (d < t->ndim && geo_mul(g.size[d], g.stride[d], &stride) < 0)
        return geo_too_large(ctx, "a stride");
    for (int i = g.n; i > d; i--)
        g.size[i] = g.size[i - 1], g.stride[i] = g.stride[i - 1];
    g.size[d] = 1;
    g.stride[d] = stride;
    g.n++;
    return geo_view(t, &g, ctx);
}

Tensor *tensorops_squeeze(const Tensor *t, int n, const long *dims, OpCtx *ctx)
{
    int drop[TENSOR_MAXDIM] = {0};
    if (n < 0) {
        for (int i = 0; i < t->ndim; i++)
            drop[i] = t->shape[i] == 1;
    } else {
        for (int k = 0; k < n; k++) {
            int d = geo_wrap_dim(dims[k], t->ndim, ctx);
            if (d < 0) return NULL;
            if (t->ndim > 0 && t->shape[d] == 1) drop[d] = 1;
        }
    }
    Geo g = {.n = 0, .offset = (long)t->offset};
    for (int i = 0; i < t->ndim; i++)
        if (!drop[i]) {
            g.size[g.n] = t->shape[i];
            g.stride[g.n++] = t->strides[i];
        }
    return geo_view(t, &g, ctx);
}
