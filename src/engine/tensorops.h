/* tensorops.h - PyTorch's shape operations, exactly, on the strided engine.
 *
 * The playground (mhaviz play) types PyTorch statements; these functions give
 * each one the geometry PyTorch gives: the same sizes, strides and storage
 * offset, a view where PyTorch makes a view and a copy (a new storage, laid
 * out as PyTorch lays it out) where PyTorch copies.  Unlike tensor.h they
 * accept 0-dim tensors and size-0 dimensions, and their errors are PyTorch's
 * own words (aten/src/ATen/native/TensorShape.cpp, TensorUtils.cpp's
 * computeStride, ATen/TensorIndexing.h, c10/core/WrapDimMinimal.h).
 *
 * Every function returns a new Tensor the caller frees with tensor_free(), or
 * NULL with a one-line reason in ctx->err.  A new storage (a source, or a
 * copy) is made in ctx->eng within its budget (geo_new_storage); a copy is
 * counted there (tensor_count_copy).  Sizes and dims arrive as long
 * (PyTorch's int64) so a bad value is reported, never truncated.
 */
#ifndef MHAVIZ_TENSOROPS_H
#define MHAVIZ_TENSOROPS_H

#include <stddef.h>

#include "engine/geo.h"
#include "engine/tensor.h"

/* Queries.  numel is the product of the sizes (1 for a 0-dim tensor). */
size_t tensorops_numel(const Tensor *t);
int tensorops_is_contiguous(const Tensor *t); /* c10's compute_contiguous */
int tensorops_is_dense(const Tensor *t);      /* is_non_overlapping_and_dense */
/* maybe_wrap_dim: a dim in [-n, n-1] (a 0-dim tensor counts as n = 1) into
 * [0, n-1]; -1 with "Dimension out of range (...)" in ctx->err otherwise. */
int tensorops_wrap_dim(long dim, int ndim, OpCtx *ctx);

/* Sources: new storages.  arange(n): (n,) with values 0..n-1; zeros(sizes). */
Tensor *tensorops_arange(long n, OpCtx *ctx);
Tensor *tensorops_zeros(int n, const long *sizes, OpCtx *ctx);

/* Views (0 elements copied).  sizes may hold one -1 where PyTorch allows it. */
Tensor *tensorops_alias(const Tensor *t);
Tensor *tensorops_view(const Tensor *t, int n, const long *sizes, OpCtx *ctx);
Tensor *tensorops_transpose(const Tensor *t, long d0, long d1, OpCtx *ctx);
Tensor *tensorops_permute(const Tensor *t, int n, const long *dims, OpCtx *ctx);
Tensor *tensorops_t(const Tensor *t, OpCtx *ctx);       /* .t(): at most 2-D */
Tensor *tensorops_numpy_T(const Tensor *t, OpCtx *ctx); /* .T: every dim reversed */
Tensor *tensorops_mT(const Tensor *t, OpCtx *ctx);      /* .mT: the last two swapped */
Tensor *tensorops_expand(const Tensor *t, int n, const long *sizes, OpCtx *ctx);
Tensor *tensorops_unsqueeze(const Tensor *t, long dim, OpCtx *ctx);
/* squeeze(): n < 0 removes every size-1 dim; else only those of dims[0..n-1]. */
Tensor *tensorops_squeeze(const Tensor *t, int n, const long *dims, OpCtx *ctx);
Tensor *tensorops_unflatten(const Tensor *t, long dim, int n, const long *sizes, OpCtx *ctx);
Tensor *tensorops_narrow(const Tensor *t, long dim, long start, long length, OpCtx *ctx);

/* Indexing, as t[...] does it: an integer (select) and a slice.  real_dim is
 * the position in the index tuple, which PyTorch's message names. */
Tensor *tensorops_select(const Tensor *t, int dim, long index, int real_dim, OpCtx *ctx);
/* start/stop: has_* = 0 for an omitted bound (0 and the end). */
Tensor *tensorops_slice(const Tensor *t, int dim, int has_start, long start, int has_stop,
                        long stop, long step, OpCtx *ctx);

/* View when PyTorch's rule allows it, else a copy: reshape and flatten. */
Tensor *tensorops_reshape(const Tensor *t, int n, const long *sizes, OpCtx *ctx);
Tensor *tensorops_flatten(const Tensor *t, long start, long end, OpCtx *ctx);
/* contiguous(): t itself (an alias) when contiguous, else a row-major copy. */
Tensor *tensorops_contiguous(const Tensor *t, OpCtx *ctx);

/* Copies.  clone (memory_format=torch.preserve_format) keeps t's strides
 * when t is dense and non-overlapping, else gives the dense strides that
 * keep t's order of dims in memory (empty_like's infer_dense_strides). */
Tensor *tensorops_clone(const Tensor *t, OpCtx *ctx);
/* The geometry clone gives t (offset 0), as .to(dtype) and a CPU input
 * promoted to another dtype get it too: 0, or -1 with ctx->err set. */
int tensorops_clone_geo(const Tensor *t, Geo *g, OpCtx *ctx);
Tensor *tensorops_repeat(const Tensor *t, int n, const long *reps, OpCtx *ctx);
/* has_dim 0: the flattened tensor is repeated (dim=None). */
Tensor *tensorops_repeat_interleave(const Tensor *t, long reps, int has_dim, long dim, OpCtx *ctx);

/* Elementwise and joining ops, each a new storage it writes (counted as
 * copied).  neg (-t): clone's strides.  tri: tril (upper 0) or triu (upper 1)
 * of the last two dims, contiguous; t needs at least 2 dims.  cat: ts[0..n-1]
 * joined along dim, contiguous, with ATen's checks and words (a 1-D empty
 * tensor is skipped, as the legacy rule does). */
Tensor *tensorops_neg(const Tensor *t, OpCtx *ctx);
Tensor *tensorops_tri(const Tensor *t, long diagonal, int upper, OpCtx *ctx);
Tensor *tensorops_cat(int n, const Tensor *const *ts, long dim, OpCtx *ctx);

/* The pieces of a tensor (tensorops_split.c), views of its storage written
 * into out[0..k-1] (the caller frees them); the count k, or -1 with ctx->err
 * in PyTorch's words (more than max pieces: an error of ours).  split: pieces
 * of split_size (the last shorter); split_sizes: split_with_sizes; chunk:
 * ceil(size / chunks) each; unbind: every index of dim, the dim removed. */
#define TENSOROPS_MAX_PIECES 16
int tensorops_split(const Tensor *t, long split_size, long dim, Tensor **out, int max, OpCtx *ctx);
int tensorops_split_sizes(const Tensor *t, int n, const long *sizes, long dim, Tensor **out,
                          int max, OpCtx *ctx);
int tensorops_chunk(const Tensor *t, long chunks, long dim, Tensor **out, int max, OpCtx *ctx);
int tensorops_unbind(const Tensor *t, long dim, Tensor **out, int max, OpCtx *ctx);
/* t.select(dim, index): a view, with select()'s own words (not t[i]'s). */
Tensor *tensorops_select_dim(const Tensor *t, long dim, long index, OpCtx *ctx);
/* movedim(src, dst): dims src[i] moved to dst[i], the rest in order; a view. */
Tensor *tensorops_movedim(const Tensor *t, int n, const long *src, const long *dst, OpCtx *ctx);
/* index_select(dim, index): the entries index[0..n-1] of dim, a contiguous
 * copy, counted. */
Tensor *tensorops_index_select(const Tensor *t, long dim, int n, const long *index, OpCtx *ctx);
/* flip(dims): a copy with those dims reversed (clone's strides), counted. */
Tensor *tensorops_flip(const Tensor *t, int n, const long *dims, OpCtx *ctx);

/* Writes into dst's own memory (tensorops_write.c): the elements dst views
 * are overwritten, its geometry and storage unchanged, no storage made.
 * Each returns the number of elements written (counted as copied in dst's
 * engine: tensor_count_copy), or -1 with ctx->err in PyTorch's words and
 * nothing written.  int64: 1 when dst holds int64 (a value is truncated toward 0), 2 when it holds
 * bool (nonzero is 1), else 0. copy_into: dst.copy_(src), ATen's order: nothing when src is dst's
 * very geometry; a dst with a stride-0 dim ("more than one element of the written-to tensor ...");
 * src and dst dense and partly on the same memory
 * ("some elements of the input tensor and the written-to tensor ..."); src
 * broadcast to dst's shape ("The size of tensor a ...", "output with shape
 * ... doesn't match the broadcast shape ...").  copy_to: t[idx] = src
 * (TensorIndexing.h's copy_to): copy_into when the shapes are equal, a
 * fill when src is 0-dim, else src without its leading 1s expanded to dst
 * (expand's words, ctx->type_name src's) and copied in.  fill: every
 * element v (fill_ checks no overlap). */
long tensorops_copy_into(Tensor *dst, const Tensor *src, int int64, OpCtx *ctx);
long tensorops_copy_to(Tensor *dst, const Tensor *src, int int64, OpCtx *ctx);
long tensorops_fill(Tensor *dst, float v, int int64, OpCtx *ctx);

#endif
