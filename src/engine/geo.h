/* geo.h - a tensor's geometry as ATen keeps it (int64 sizes, strides,
 * offset), the context every shape operation reports to (OpCtx), and the
 * steps each operation ends in: a view of the same storage, or a copy into a
 * new one (engine/tensorops*.c build PyTorch's operations on these). */
#ifndef MHAVIZ_GEO_H
#define MHAVIZ_GEO_H

#include <stddef.h>

#include "base/errbuf.h"
#include "engine/tensor.h"

typedef struct OpCtx {
    char err[800];         /* the reason of the last failure */
    const char *type_name; /* "torch.FloatTensor" or "torch.LongTensor": expand's message */
    /* The engine the new storages come from (its budget, its copy count):
     * the playground session's, or for the int-shape callers in tensor.c
     * their source's. */
    Engine *eng;
} OpCtx;

/* The playground's limit on one storage (its Engine's max_storage). */
#define TENSOROPS_MAX_STORAGE 1000000L

#define GEO_MAX 16 /* room for a result that is then refused for its ndim */

typedef struct Geo {
    int n;
    long size[GEO_MAX];
    long stride[GEO_MAX];
    long offset;
} Geo;

#define FAIL(ctx, ...) (err_set((ctx)->err, sizeof(ctx)->err, __VA_ARGS__), (Tensor *)NULL)

void geo_of(const Tensor *t, Geo *g);
/* Checked int64 arithmetic for every size, stride and offset: *r = a * b
 * (a + b, a - b); 0, or -1 when the exact result does not fit in int64.  On -1, *r
 * holds the two's-complement wrap, which is what ATen's unchecked int64
 * arithmetic computes: the ops that copy PyTorch's answer there use it. */
int geo_mul(long a, long b, long *r);
int geo_add(long a, long b, long *r);
int geo_sub(long a, long b, long *r);
/* "mhaviz play: too large: WHAT overflows int64"; returns NULL. */
Tensor *geo_too_large(OpCtx *ctx, const char *what);
/* Product of sizes, saturating at LONG_MAX (an expand can name any size). */
long geo_numel(int n, const long *size);
/* The result fits the engine's Tensor (TENSOR_MAXDIM dims of int sizes); 0 with ctx->err set if
 * not.  In this order: the number of dims, a negative size (at::empty's words), a numel
 * past int64 (c10's safe_compute_numel: "numel: integer multiplication overflow"), a
 * size past INT_MAX. */
int geo_fits(const Geo *g, OpCtx *ctx);
/* A view of t's storage with geometry g; NULL with ctx->err set. */
Tensor *geo_view(const Tensor *t, const Geo *g, OpCtx *ctx);
/* Row-major strides as at::empty gives them; -1 with ctx->err set when one
 * overflows int64 (a tensor with a size-0 dim can name any other sizes). */
int geo_contiguous_strides(Geo *g, OpCtx *ctx);
int geo_contiguous(const Geo *g);
int geo_dense(const Geo *g);
/* dim wrapped into [0, ndim) as PyTorch does; -1 with ctx->err set. */
int geo_wrap_dim(long dim, int ndim, OpCtx *ctx);
/* A new zeroed storage of n floats in ctx->eng, seen as (n,): NULL with
 * ctx->err set when n is over the engine's max_storage, when it would take
 * the engine past its budget, or out of memory.  Every op of tensorops.h
 * that makes a storage makes it here. */
Tensor *geo_new_storage(long n, OpCtx *ctx);
/* A copy: src's elements written into a new storage (geo_new_storage)
 * laid out as g, counted (tensor_count_copy). */
Tensor *geo_copy(const Tensor *src, Geo *g, OpCtx *ctx);
Tensor *geo_copy_contiguous(const Tensor *t, OpCtx *ctx);
/* At most GEO_MAX sizes in a shape; 0 with ctx->err set if more. */
int geo_sizes_ok(int n, OpCtx *ctx);

/* "[2, 3]" as PyTorch prints an IntArrayRef in its messages. */
char *geo_fmt_list(char *buf, size_t n, int count, const long *v);

#endif
