/* tensorops.c - PyTorch's shape operations on the strided engine (see the
 * header).  Each function works on a Geo (sizes, strides, offset as int64,
 * as ATen keeps them), then makes the result a view of the same storage
 * (make_view) or a copy into a new one (make_copy). */
#include "engine/tensorops.h"

#include "base/errbuf.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define GEO_MAX 16 /* room for a result that is then refused for its ndim */

typedef struct Geo {
    int n;
    long size[GEO_MAX];
    long stride[GEO_MAX];
    long offset;
} Geo;

#define FAIL(ctx, ...) (err_set((ctx)->err, sizeof(ctx)->err, __VA_ARGS__), (Tensor *)NULL)

static void geo_of(const Tensor *t, Geo *g)
{
    g->n = t->ndim;
    g->offset = (long)t->offset;
    for (int i = 0; i < t->ndim; i++) {
        g->size[i] = t->shape[i];
        g->stride[i] = t->strides[i];
    }
}

char *tensorops_fmt_list(char *buf, size_t n, int count, const long *v)
{
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < count && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%ld", i ? ", " : "", v[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

/* Product of sizes, saturating at LONG_MAX (an expand can name any size). */
static long geo_numel(int n, const long *size)
{
    long p = 1;
    for (int i = 0; i < n; i++) {
        if (size[i] == 0) return 0;
        if (p > LONG_MAX / size[i])
            p = LONG_MAX;
        else
            p *= size[i];
    }
    return p;
}

size_t tensorops_numel(const Tensor *t)
{
    size_t p = 1;
    for (int i = 0; i < t->ndim; i++)
        p *= (size_t)t->shape[i];
    return p;
}

/* The result must fit the engine's Tensor: at most TENSOR_MAXDIM dims of
 * int sizes. */
static int geo_fits(const Geo *g, OpCtx *ctx)
{
    if (g->n > TENSOR_MAXDIM) {
        err_set(ctx->err, sizeof ctx->err,
                "mhaviz play keeps at most %d dimensions (this result has %d)", TENSOR_MAXDIM,
                g->n);
        return 0;
    }
    for (int i = 0; i < g->n; i++)
        if (g->size[i] < 0) {
            char b[200];
            err_set(ctx->err, sizeof ctx->err,
                    "Trying to create tensor with negative dimension %ld: %s", g->size[i],
                    tensorops_fmt_list(b, sizeof b, g->n, g->size));
            return 0;
        } else if (g->size[i] > INT_MAX) {
            err_set(ctx->err, sizeof ctx->err, "mhaviz play: size %ld is too large (at most %d)",
                    g->size[i], INT_MAX);
            return 0;
        }
    return 1;
}

static Tensor *make_view(const Tensor *t, const Geo *g, OpCtx *ctx)
{
    if (!geo_fits(g, ctx)) return NULL;
    int shape[TENSOR_MAXDIM];
    for (int i = 0; i < g->n; i++)
        shape[i] = (int)g->size[i];
    Tensor *r = tensor_restride(t, (size_t)g->offset, g->n, shape, g->stride);
    return r ? r : FAIL(ctx, "out of memory");
}

Tensor *tensorops_alias(const Tensor *t)
{
    return tensor_restride(t, t->offset, t->ndim, t->shape, t->strides);
}

/* Row-major strides as at::empty gives them: stride[i] = stride[i+1] *
 * max(size[i+1], 1). */
static void contiguous_strides(Geo *g)
{
    long s = 1;
    for (int i = g->n - 1; i >= 0; i--) {
        g->stride[i] = s;
        s *= g->size[i] > 1 ? g->size[i] : 1;
    }
}

/* ---- queries -------------------------------------------------------------- */

static int geo_contiguous(const Geo *g)
{
    if (geo_numel(g->n, g->size) == 0) return 1;
    long expect = 1;
    for (int i = g->n - 1; i >= 0; i--) {
        if (g->size[i] == 1) continue;
        if (g->stride[i] != expect) return 0;
        expect *= g->size[i];
    }
    return 1;
}

int tensorops_is_contiguous(const Tensor *t)
{
    Geo g;
    geo_of(t, &g);
    return geo_contiguous(&g);
}

/* c10's _compute_non_overlapping_and_dense: the dims sorted by stride (size
 * 0 and 1 dims last) must tile the storage exactly. */
static int geo_dense(const Geo *g)
{
    if (g->n == 1) return g->size[0] < 2 || g->stride[0] == 1;
    int perm[GEO_MAX];
    for (int i = 0; i < g->n; i++)
        perm[i] = i;
    for (int i = 1; i < g->n; i++) /* insertion sort: stable, same order as std::sort here */
        for (int j = i; j > 0; j--) {
            int a = perm[j], b = perm[j - 1];
            int less = g->size[a] < 2 ? 0 : g->size[b] < 2 ? 1 : g->stride[a] < g->stride[b];
            if (!less) break;
            perm[j] = b, perm[j - 1] = a;
        }
    long require = 1;
    for (int i = 0; i < g->n; i++) {
        long size = g->size[perm[i]];
        if (size < 2) return 1;
        if (g->stride[perm[i]] != require) return 0;
        require *= size;
    }
    return 1;
}

int tensorops_is_dense(const Tensor *t)
{
    Geo g;
    geo_of(t, &g);
    return geo_contiguous(&g) || geo_dense(&g);
}

static int wrap_dim(long dim, int ndim, OpCtx *ctx)
{
    int n = ndim > 0 ? ndim : 1; /* a scalar wraps as if 1-D */
    if (dim < -n || dim > n - 1) {
        err_set(ctx->err, sizeof ctx->err,
                "Dimension out of range (expected to be in range of [%d, %d], but got %ld)", -n,
                n - 1, dim);
        return -1;
    }
    return (int)(dim < 0 ? dim + n : dim);
}

int tensorops_wrap_dim(long dim, int ndim, OpCtx *ctx)
{
    return wrap_dim(dim, ndim, ctx);
}

/* ---- copies ---------------------------------------------------------------- */

/* A new storage for geometry g (offset 0), filled from src in logical order
 * (src has g's sizes).  Storage size: the largest offset reached, plus one. */
static Tensor *make_copy(const Tensor *src, Geo *g, OpCtx *ctx)
{
    if (!geo_fits(g, ctx)) return NULL;
    long numel = geo_numel(g->n, g->size), need = numel ? 1 : 0;
    for (int i = 0; i < g->n && numel; i++)
        need += (g->size[i] - 1) * g->stride[i];
    if (numel > TENSOROPS_MAX_STORAGE || need > TENSOROPS_MAX_STORAGE)
        return FAIL(ctx, "mhaviz play: a new storage of %ld elements is over the limit of %ld",
                    numel > need ? numel : need, TENSOROPS_MAX_STORAGE);
    Tensor *base = tensor_new_storage((size_t)need);
    if (!base) return FAIL(ctx, "out of memory");
    g->offset = 0;
    Tensor *r = make_view(base, g, ctx);
    tensor_free(base);
    if (!r || numel == 0) return r;
    int idx[TENSOR_MAXDIM] = {0};
    for (long k = 0; k < numel; k++) {
        r->st->data[tensor_offset_of(r, idx)] = tensor_get(src, idx);
        for (int i = r->ndim - 1; i >= 0; i--) {
            if (++idx[i] < r->shape[i]) break;
            idx[i] = 0;
        }
    }
    ctx->copied += (size_t)numel;
    r->st->bytes_copied += (size_t)numel * sizeof(float);
    return r;
}

static Tensor *copy_contiguous(const Tensor *t, OpCtx *ctx)
{
    Geo g;
    geo_of(t, &g);
    contiguous_strides(&g);
    return make_copy(t, &g, ctx);
}

/* ATen's infer_dense_strides (what empty_like gives a strided tensor that
 * is not dense): the dims ordered by stride as TensorIterator orders them
 * (an insertion sort; a stride-0 dim stays put; equal strides put the
 * smaller size first), then packed densely in that order. */
static void infer_dense_strides(Geo *g)
{
    int n = g->n, perm[GEO_MAX];
    long out[GEO_MAX], cur = 1;
    if (n == 0) return;
    if (n == 1) {
        g->stride[0] = 1;
        return;
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
        if (g->size[perm[i]] > 1) cur *= g->size[perm[i]];
    }
    for (int i = 0; i < n; i++)
        g->stride[i] = out[i];
}

Tensor *tensorops_clone(const Tensor *t, OpCtx *ctx)
{
    Geo g;
    geo_of(t, &g);
    /* is_non_overlapping_and_dense (is_contiguous || ... || computed): the
     * same strides; otherwise empty_like's inferred dense strides */
    if (!geo_contiguous(&g) && !geo_dense(&g)) infer_dense_strides(&g);
    return make_copy(t, &g, ctx);
}

Tensor *tensorops_contiguous(const Tensor *t, OpCtx *ctx)
{
    if (tensorops_is_contiguous(t)) return tensorops_alias(t);
    return copy_contiguous(t, ctx);
}

/* ---- sources ------------------------------------------------------------------ */

Tensor *tensorops_arange(long n, OpCtx *ctx)
{
    if (n < 0) return FAIL(ctx, "upper bound and larger bound inconsistent with step sign");
    long one = n;
    Geo g = {.n = 1, .size = {n}, .stride = {1}};
    if (n > TENSOROPS_MAX_STORAGE)
        return FAIL(ctx, "mhaviz play: a new storage of %ld elements is over the limit of %ld", one,
                    TENSOROPS_MAX_STORAGE);
    Tensor *base = tensor_new_storage((size_t)n);
    if (!base) return FAIL(ctx, "out of memory");
    for (long i = 0; i < n; i++)
        base->st->data[i] = (float)i;
    Tensor *r = make_view(base, &g, ctx);
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
                        tensorops_fmt_list(b, sizeof b, n, sizes));
        }
    if (!geo_fits(&g, ctx)) return NULL;
    long numel = geo_numel(n, g.size);
    if (numel > TENSOROPS_MAX_STORAGE)
        return FAIL(ctx, "mhaviz play: a new storage of %ld elements is over the limit of %ld",
                    numel, TENSOROPS_MAX_STORAGE);
    contiguous_strides(&g);
    Tensor *base = tensor_new_storage((size_t)numel);
    if (!base) return FAIL(ctx, "out of memory");
    Tensor *r = make_view(base, &g, ctx);
    tensor_free(base);
    return r;
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
                        tensorops_fmt_list(b, sizeof b, n, shape));
                return -1;
            }
            out[infer] = numel / newsize;
        }
        return 0;
    }
    err_set(ctx->err, sizeof ctx->err, "shape '%s' is invalid for input of size %ld",
            tensorops_fmt_list(b, sizeof b, n, shape), numel);
    return -1;
}

/* ATen's computeStride (TensorUtils.cpp): strides for viewing (old) as the
 * sizes in shape[0..n-1] without a copy; 0 when that cannot be done. */
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
            out[d] = d == n - 1 ? 1 : (shape[d + 1] > 1 ? shape[d + 1] : 1) * out[d + 1];
        return 1;
    }
    int view_d = n - 1;
    long chunk_base = old->stride[old->n - 1], tensor_numel = 1, view_numel = 1;
    for (int td = old->n - 1; td >= 0; td--) {
        tensor_numel *= old->size[td];
        if (td == 0 ||
            (old->size[td - 1] != 1 && old->stride[td - 1] != tensor_numel * chunk_base)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                out[view_d] = view_numel * chunk_base;
                view_numel *= shape[view_d];
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

static int sizes_ok(int n, OpCtx *ctx)
{
    if (n > GEO_MAX) {
        err_set(ctx->err, sizeof ctx->err, "mhaviz play: at most %d sizes", GEO_MAX);
        return 0;
    }
    return 1;
}

/* The shared start of view and reshape: the inferred shape in g (sizes), the
 * strides of a view in g->stride when one exists.  -1 on a bad shape, 0 when
 * only a copy can do it, 1 when a view can. */
static int plan_view(const Tensor *t, int n, const long *sizes, Geo *g, OpCtx *ctx)
{
    Geo old;
    geo_of(t, &old);
    if (!sizes_ok(n, ctx)) return -1;
    if (infer_size(n, sizes, geo_numel(old.n, old.size), g->size, ctx) < 0) return -1;
    g->n = n;
    g->offset = old.offset;
    return compute_stride(&old, n, g->size, g->stride);
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
    return make_view(t, &g, ctx);
}

Tensor *tensorops_reshape(const Tensor *t, int n, const long *sizes, OpCtx *ctx)
{
    Geo g;
    int r = plan_view(t, n, sizes, &g, ctx);
    if (r < 0) return NULL;
    if (r == 1) return make_view(t, &g, ctx);
    /* _unsafe_view(self.clone(at::MemoryFormat::Contiguous), shape) */
    if (!geo_fits(&g, ctx)) return NULL;
    Tensor *c = copy_contiguous(t, ctx);
    if (!c) return NULL;
    contiguous_strides(&g);
    g.offset = 0;
    Tensor *v = make_view(c, &g, ctx);
    tensor_free(c);
    return v;
}

Tensor *tensorops_flatten(const Tensor *t, long start, long end, OpCtx *ctx)
{
    int s = wrap_dim(start, t->ndim, ctx);
    if (s < 0) return NULL;
    int e = wrap_dim(end, t->ndim, ctx);
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
        slice *= t->shape[i];
    shape[n++] = slice;
    for (int i = e + 1; i < t->ndim; i++)
        shape[n++] = t->shape[i];
    return tensorops_reshape(t, n, shape, ctx);
}

Tensor *tensorops_unflatten(const Tensor *t, long dim, int n, const long *sizes, OpCtx *ctx)
{
    int d = wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return NULL;
    if (n == 0) return FAIL(ctx, "unflatten: sizes must be non-empty");
    if (t->ndim == 0) /* self.size(d) after the scalar wrap */
        return FAIL(ctx, "Dimension specified as %d but tensor has no dimensions", d);
    if (!sizes_ok(n + t->ndim, ctx)) return NULL;
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
                    tensorops_fmt_list(b, sizeof b, n, sizes), d, t->shape[d]);
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
    int a = wrap_dim(d0, t->ndim, ctx);
    if (a < 0) return NULL;
    int b = wrap_dim(d1, t->ndim, ctx);
    if (b < 0) return NULL;
    Geo g;
    geo_of(t, &g);
    if (t->ndim == 0 || a == b) return tensorops_alias(t);
    long s = g.size[a], st = g.stride[a];
    g.size[a] = g.size[b], g.stride[a] = g.stride[b];
    g.size[b] = s, g.stride[b] = st;
    return make_view(t, &g, ctx);
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
        int d = wrap_dim(dims[i], t->ndim, ctx);
        if (d < 0) return NULL;
        if (seen[d]) return FAIL(ctx, "permute(): duplicate dims are not allowed.");
        seen[d] = 1;
        g.size[i] = t->shape[d];
        g.stride[i] = t->strides[d];
    }
    return make_view(t, &g, ctx);
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
                    tensorops_fmt_list(a, sizeof a, t->ndim, tsz),
                    tensorops_fmt_list(b, sizeof b, n, sizes), n, t->ndim);
    if (!sizes_ok(n, ctx)) return NULL;
    Geo g = {.n = n, .offset = (long)t->offset};
    if (t->ndim == 0) { /* a scalar: every dim new, every stride 0 */
        for (int i = 0; i < n; i++)
            g.size[i] = sizes[i], g.stride[i] = 0;
        return make_view(t, &g, ctx);
    }
    for (int i = n - 1; i >= 0; i--) {
        int dim = t->ndim - 1 - (n - 1 - i);
        long size = dim >= 0 ? t->shape[dim] : 1;
        long stride = dim >= 0 ? t->strides[dim] : g.size[i + 1] * g.stride[i + 1];
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
                            target, size, i, tensorops_fmt_list(a, sizeof a, n, sizes),
                            tensorops_fmt_list(b, sizeof b, t->ndim, tsz));
            size = target;
            stride = 0;
        }
        g.size[i] = size;
        g.stride[i] = stride;
    }
    return make_view(t, &g, ctx);
}

Tensor *tensorops_unsqueeze(const Tensor *t, long dim, OpCtx *ctx)
{
    int d = wrap_dim(dim, t->ndim + 1, ctx);
    if (d < 0) return NULL;
    Geo g;
    geo_of(t, &g);
    long stride = d >= t->ndim ? 1 : g.size[d] * g.stride[d];
    for (int i = g.n; i > d; i--)
        g.size[i] = g.size[i - 1], g.stride[i] = g.stride[i - 1];
    g.size[d] = 1;
    g.stride[d] = stride;
    g.n++;
    return make_view(t, &g, ctx);
}

Tensor *tensorops_squeeze(const Tensor *t, int n, const long *dims, OpCtx *ctx)
{
    int drop[TENSOR_MAXDIM] = {0};
    if (n < 0) {
        for (int i = 0; i < t->ndim; i++)
            drop[i] = t->shape[i] == 1;
    } else {
        for (int k = 0; k < n; k++) {
            int d = wrap_dim(dims[k], t->ndim, ctx);
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
    return make_view(t, &g, ctx);
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
    g.offset += start * g.stride[d];
    g.size[d] = (end - start + step - 1) / step;
    g.stride[d] *= step;
    return make_view(t, &g, ctx);
}

Tensor *tensorops_narrow(const Tensor *t, long dim, long start, long length, OpCtx *ctx)
{
    if (t->ndim == 0) return FAIL(ctx, "narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0) return FAIL(ctx, "narrow(): length must be non-negative.");
    int d = wrap_dim(dim, t->ndim, ctx);
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
    g.offset += index * g.stride[dim];
    for (int i = dim; i + 1 < g.n; i++)
        g.size[i] = g.size[i + 1], g.stride[i] = g.stride[i + 1];
    g.n--;
    return make_view(t, &g, ctx);
}

Tensor *tensorops_slice(const Tensor *t, int dim, int has_start, long start, int has_stop,
                        long stop, long step, OpCtx *ctx)
{
    if (step == 0) return FAIL(ctx, "slice step cannot be zero");
    if (step < 0) return FAIL(ctx, "step must be greater than zero");
    if (t->ndim == 0) return FAIL(ctx, "slice() cannot be applied to a 0-dim tensor.");
    if (wrap_dim(dim, t->ndim, ctx) < 0) return NULL;
    return slice_dim(t, dim, has_start ? start : 0, has_stop ? stop : LONG_MAX, step, ctx);
}

/* ---- repeat ------------------------------------------------------------------------- */

Tensor *tensorops_repeat(const Tensor *t, int n, const long *reps, OpCtx *ctx)
{
    if (n < t->ndim)
        return FAIL(ctx, "Number of dimensions of repeat dims can not be smaller than number of "
                         "dimensions of tensor");
    if (!sizes_ok(n, ctx)) return NULL;
    Geo g = {.n = n};
    long pad[GEO_MAX];
    int lead = n - t->ndim;
    for (int i = 0; i < n; i++) {
        pad[i] = i < lead ? 1 : t->shape[i - lead];
        g.size[i] = pad[i] * reps[i];
    }
    if (!geo_fits(&g, ctx)) return NULL;
    contiguous_strides(&g);
    /* the source seen as (reps[0], pad[0], reps[1], pad[1], ...) is too many
     * dims for a Tensor, so the copy walks the result and reads modulo */
    long numel = geo_numel(n, g.size);
    if (numel > TENSOROPS_MAX_STORAGE)
        return FAIL(ctx, "mhaviz play: a new storage of %ld elements is over the limit of %ld",
                    numel, TENSOROPS_MAX_STORAGE);
    Tensor *base = tensor_new_storage((size_t)numel);
    if (!base) return FAIL(ctx, "out of memory");
    Tensor *r = make_view(base, &g, ctx);
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
    ctx->copied += (size_t)numel;
    r->st->bytes_copied += (size_t)numel * sizeof(float);
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
    int d = has_dim ? wrap_dim(dim, in->ndim, ctx) : 0;
    if (d < 0) goto out;
    if (reps < 0) {
        r = FAIL(ctx, "repeats can not be negative");
        goto out;
    }
    Geo g;
    geo_of(in, &g);
    g.size[d] *= reps;
    contiguous_strides(&g);
    if (!geo_fits(&g, ctx)) goto out;
    /* index_select(dim, [0]*reps + [1]*reps + ...): a view of in with dim
     * read at i / reps gives the values; it is built index by index */
    long numel = geo_numel(g.n, g.size);
    if (numel > TENSOROPS_MAX_STORAGE) {
        r = FAIL(ctx, "mhaviz play: a new storage of %ld elements is over the limit of %ld", numel,
                 TENSOROPS_MAX_STORAGE);
        goto out;
    }
    Tensor *base = tensor_new_storage((size_t)numel);
    if (!base) {
        r = FAIL(ctx, "out of memory");
        goto out;
    }
    g.offset = 0;
    r = make_view(base, &g, ctx);
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
    ctx->copied += (size_t)numel;
    r->st->bytes_copied += (size_t)numel * sizeof(float);
out:
    tensor_free(in);
    return r;
}
