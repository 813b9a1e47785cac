/* geo.c - see geo.h. */
#include "engine/geo.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

void geo_of(const Tensor *t, Geo *g)
{
    g->n = t->ndim;
    g->offset = (long)t->offset;
    for (int i = 0; i < t->ndim; i++) {
        g->size[i] = t->shape[i];
        g->stride[i] = t->strides[i];
    }
}

/* Product of sizes, saturating at LONG_MAX (an expand can name any size). */
long geo_numel(int n, const long *size)
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

/* The result must fit the engine's Tensor: at most TENSOR_MAXDIM dims of
 * int sizes. */
int geo_fits(const Geo *g, OpCtx *ctx)
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
                    geo_fmt_list(b, sizeof b, g->n, g->size));
            return 0;
        } else if (g->size[i] > INT_MAX) {
            err_set(ctx->err, sizeof ctx->err, "mhaviz play: size %ld is too large (at most %d)",
                    g->size[i], INT_MAX);
            return 0;
        }
    return 1;
}

Tensor *geo_view(const Tensor *t, const Geo *g, OpCtx *ctx)
{
    if (!geo_fits(g, ctx)) return NULL;
    int shape[TENSOR_MAXDIM];
    for (int i = 0; i < g->n; i++)
        shape[i] = (int)g->size[i];
    Tensor *r = tensor_restride(t, (size_t)g->offset, g->n, shape, g->stride);
    return r ? r : FAIL(ctx, "out of memory");
}

/* Row-major strides as at::empty gives them: stride[i] = stride[i+1] *
 * max(size[i+1], 1). */
void geo_contiguous_strides(Geo *g)
{
    long s = 1;
    for (int i = g->n - 1; i >= 0; i--) {
        g->stride[i] = s;
        s *= g->size[i] > 1 ? g->size[i] : 1;
    }
}

int geo_contiguous(const Geo *g)
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

/* c10's _compute_non_overlapping_and_dense: the dims sorted by stride (size
 * 0 and 1 dims last) must tile the storage exactly. */
int geo_dense(const Geo *g)
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

int geo_wrap_dim(long dim, int ndim, OpCtx *ctx)
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

int geo_sizes_ok(int n, OpCtx *ctx)
{
    if (n > GEO_MAX) {
        err_set(ctx->err, sizeof ctx->err, "mhaviz play: at most %d sizes", GEO_MAX);
        return 0;
    }
    return 1;
}

/* A new storage for geometry g (offset 0), filled from src in logical order
 * (src has g's sizes).  Storage size: the largest offset reached, plus one. */
Tensor *geo_copy(const Tensor *src, Geo *g, OpCtx *ctx)
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
    Tensor *r = geo_view(base, g, ctx);
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

Tensor *geo_copy_contiguous(const Tensor *t, OpCtx *ctx)
{
    Geo g;
    geo_of(t, &g);
    geo_contiguous_strides(&g);
    return geo_copy(t, &g, ctx);
}

char *geo_fmt_list(char *buf, size_t n, int count, const long *v)
{
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < count && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%ld", i ? ", " : "", v[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}
