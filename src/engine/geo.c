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

int geo_mul(long a, long b, long *r)
{
    return __builtin_mul_overflow(a, b, r) ? -1 : 0;
}

int geo_add(long a, long b, long *r)
{
    return __builtin_add_overflow(a, b, r) ? -1 : 0;
}

int geo_sub(long a, long b, long *r)
{
    return __builtin_sub_overflow(a, b, r) ? -1 : 0;
}

Tensor *geo_too_large(OpCtx *ctx, const char *what)
{
    return FAIL(ctx, "mhaviz play: too large: %s overflows int64", what);
}

/* c10's safe_compute_numel: the sizes multiplied in order as uint64, an
 * overflow anywhere (even before a 0) or a product past INT64_MAX refused. */
static int numel_overflows(const Geo *g)
{
    unsigned long long p = 1;
    int over = 0;
    for (int i = 0; i < g->n; i++)
        over |= __builtin_mul_overflow(p, (unsigned long long)g->size[i], &p);
    return over || p > (unsigned long long)LONG_MAX;
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
        }
    if (numel_overflows(g)) {
        err_set(ctx->err, sizeof ctx->err, "numel: integer multiplication overflow");
        return 0;
    }
    for (int i = 0; i < g->n; i++)
        if (g->size[i] > INT_MAX) {
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
int geo_contiguous_strides(Geo *g, OpCtx *ctx)
{
    long s = 1;
    for (int i = g->n - 1; i >= 0; i--) {
        g->stride[i] = s;
        if (i > 0 && geo_mul(s, g->size[i] > 1 ? g->size[i] : 1, &s) < 0) {
            geo_too_large(ctx, "a stride");
            return -1;
        }
    }
    return 0;
}

int geo_contiguous(const Geo *g)
{
    if (geo_numel(g->n, g->size) == 0) return 1;
    long expect = 1;
    for (int i = g->n - 1; i >= 0; i--) {
        if (g->size[i] == 1) continue;
        if (g->stride[i] != expect) return 0;
        if (geo_mul(expect, g->size[i], &expect) < 0) return 0; /* no stride is that large */
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
        if (geo_mul(require, size, &require) < 0) return 0;
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

Tensor *geo_new_storage(long n, OpCtx *ctx)
{
    const Engine *e = ctx->eng;
    if (e->max_storage && n > e->max_storage)
        return FAIL(ctx, "mhaviz play: a new storage of %ld elements is over the limit of %ld", n,
                    e->max_storage);
    size_t bytes = (size_t)n * sizeof(float), mb = 1u << 20;
    if (!engine_has_room(e, (size_t)n))
        return FAIL(ctx,
                    "mhaviz play: over the budget of %zu MB for the playground's tensors (%.1f MB "
                    "in use, this needs %.1f MB more); to free a name's, assign it a small tensor "
                    "(v = torch.zeros(0))",
                    e->budget / mb, (double)e->live / (double)mb, (double)bytes / (double)mb);
    Tensor *t = tensor_new_storage(ctx->eng, (size_t)n);
    return t ? t : FAIL(ctx, "out of memory");
}

/* A new storage for geometry g (offset 0), filled from src in logical order
 * (src has g's sizes).  Storage size: the largest offset reached, plus one. */
Tensor *geo_copy(const Tensor *src, Geo *g, OpCtx *ctx)
{
    if (!geo_fits(g, ctx)) return NULL;
    long numel = geo_numel(g->n, g->size), need = numel ? 1 : 0;
    for (int i = 0; i < g->n && numel; i++) {
        long span;
        if (geo_mul(g->size[i] - 1, g->stride[i], &span) < 0 || geo_add(need, span, &need) < 0)
            return geo_too_large(ctx, "the storage it needs");
    }
    if (numel > need && ctx->eng->max_storage && numel > ctx->eng->max_storage)
        need = numel; /* the limit names the larger */
    Tensor *base = geo_new_storage(need, ctx);
    if (!base) return NULL;
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
    tensor_count_copy(r, (size_t)numel);
    return r;
}

Tensor *geo_copy_contiguous(const Tensor *t, OpCtx *ctx)
{
    Geo g;
    geo_of(t, &g);
    if (geo_contiguous_strides(&g, ctx) < 0) return NULL;
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
