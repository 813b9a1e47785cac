/* tensor.h - a small strided-tensor engine: storage + views.
 *
 * A Storage is one refcounted float buffer.  A Tensor is a window on a storage:
 * (offset, shape, strides), strides counted in elements, as in PyTorch.  Views
 * (view, transpose, expand, unsqueeze) share the storage and never move a byte.
 * Every storage belongs to one Engine (engine/engine.h): its id, its bytes and
 * the bytes copied into it are counted there.  The functions that copy say
 * so in their contract, and each counts what it wrote with tensor_count_copy:
 * tensor_contiguous and tensor_repeat_interleave here, rope_apply
 * (engine/rope.h), geo_copy (engine/geo.h: every copy of engine/tensorops.h)
 * and tensorops_repeat / tensorops_repeat_interleave.
 *
 * Ownership: every function that returns a Tensor* returns a new object the
 * caller frees with tensor_free().  Views hold a reference on the storage, so
 * freeing the tensor a view came from is always safe.  Functions that can fail
 * return NULL and write a one-line reason into err (err may be NULL).
 */
#ifndef MHAVIZ_TENSOR_H
#define MHAVIZ_TENSOR_H

#include <stdatomic.h>
#include <stddef.h>

#include "engine/engine.h"

#define TENSOR_MAXDIM 6

typedef struct Storage {
    float *data; /* n floats, owned */
    size_t n;
    int refs;
    Engine *eng;         /* the engine it was made in (holds a reference on it) */
    int id;              /* 1, 2, 3 ... in its engine's creation order: "S1", "S2" in the UI */
    size_t bytes_copied; /* bytes written into this storage by a copy op */
} Storage;

typedef struct Tensor {
    Storage *st;
    size_t offset; /* elements from st->data[0] */
    int ndim;
    int shape[TENSOR_MAXDIM];
    long strides[TENSOR_MAXDIM]; /* elements; 0 on an expanded axis */
} Tensor;

/* Creation: a new storage in engine e, row-major (contiguous) strides;
 * tensor_from_data copies numel floats from data (a fill, not counted as a
 * copy).  NULL on a bad shape, past e's budget or out of memory. */
Tensor *tensor_zeros(Engine *e, int ndim, const int *shape);
Tensor *tensor_from_data(Engine *e, int ndim, const int *shape, const float *data);
void tensor_free(Tensor *t);

size_t tensor_numel(const Tensor *t);
int tensor_is_contiguous(const Tensor *t); /* PyTorch's rule: size-1 dims ignored */
int tensor_same_storage(const Tensor *a, const Tensor *b);

/* Storage offset of a logical index (idx has t->ndim entries, each within
 * its axis: not checked, as in an inner loop): offset + sum(idx[i] * strides[i]). */
size_t tensor_offset_of(const Tensor *t, const int *idx);
float tensor_get(const Tensor *t, const int *idx);
void tensor_set(Tensor *t, const int *idx, float v);

/* Walks the logical elements in row-major order over the shape.  Returns the
 * number of elements written to out (numel). */
size_t tensor_to_array(const Tensor *t, float *out);

/* The pipeline's shape operations, in int shapes (every size >= 1; a
 * result that would be empty or 0-dim is refused).  Thin callers of
 * engine/tensorops.h (engine/tensor_shape.c): PyTorch's strides and its
 * words on error ("view size is not compatible with input tensor's size and
 * stride ... Use .reshape(...) instead.", "Dimension out of range ...").
 *
 * Views: same storage, new (offset, shape, strides).  0 bytes copied.
 * tensor_view follows torch.Tensor.view (one -1 entry is inferred);
 * tensor_narrow is torch.narrow (indices start..start+len-1 of dim);
 * tensor_expand gives size-1 axes stride 0 (-1 keeps a size); negative dims
 * count from the end. */
Tensor *tensor_view(const Tensor *t, int ndim, const int *shape, char *err, size_t errlen);
Tensor *tensor_transpose(const Tensor *t, int d0, int d1, char *err, size_t errlen);
Tensor *tensor_unsqueeze(const Tensor *t, int dim, char *err, size_t errlen);
Tensor *tensor_narrow(const Tensor *t, int dim, int start, int len, char *err, size_t errlen);
Tensor *tensor_expand(const Tensor *t, int ndim, const int *shape, char *err, size_t errlen);

/* Copies, counted (tensor_count_copy) and made in t's engine.
 * tensor_contiguous returns a view of t's storage (no copy) when t is
 * already contiguous, otherwise a new row-major storage (numel * 4 bytes
 * counted); NULL out of memory.  tensor_repeat_interleave repeats each index
 * of `dim` `reps` times: always a new storage. */
Tensor *tensor_contiguous(const Tensor *t);
Tensor *tensor_repeat_interleave(const Tensor *t, int reps, int dim, char *err, size_t errlen);
/* Counts n elements a copy wrote into t's storage: in the storage's
 * bytes_copied and its engine's.  Every op that copies calls it once. */
void tensor_count_copy(Tensor *t, size_t n);

/* Compute.  New contiguous outputs, in the engine of the (first) input;
 * inputs may have any strides.
 * matmul: a (..., m, k) @ b (..., k, n) -> (..., m, n), leading dims equal,
 * or b a 2-D (k, n) matrix shared by every leading index (x @ W). */
Tensor *tensor_matmul(const Tensor *a, const Tensor *b, char *err, size_t errlen);
/* The same product into c, which the caller made (in the engine of its
 * choice: the playground's, engine/tensormath.c): contiguous at offset 0,
 * shape (..., m, n), every size >= 1; its floats are overwritten.  0, or -1
 * with the reason (a wrong shape, out of memory, cancelled). */
int tensor_matmul_into(Tensor *c, const Tensor *a, const Tensor *b, char *err, size_t errlen);
/* How tensor_matmul computes, for the whole process (set it before any
 * thread multiplies).  threads: 0 = one per online CPU (the default, at most
 * 8), 1 = the calling thread alone, n = at most n; products under ~4M
 * multiply-adds always run on the calling thread.  kernel: the blocked one
 * with the widest vectors this CPU has (the default), the plain triple loop
 * it replaced (the reference tests/check_tensor.c and tests/bench_mha.c
 * compare against), or the blocked one on 4-float vectors (what a CPU
 * without AVX runs).  Every mode gives the same bits: each output is one
 * float sum over k in order. */
enum { TENSOR_MATMUL_WIDEST, TENSOR_MATMUL_SIMPLE, TENSOR_MATMUL_NARROW };
void tensor_matmul_mode(int threads, int kernel);
/* While *flag is nonzero, tensor_matmul on the calling thread stops early
 * and fails with "cancelled" (the flag is polled every ~48 rows; NULL, the
 * default, never cancels).  The flag is the caller's and must outlive the
 * calls made with it; ui/runjob.c sets it in its worker thread. */
void tensor_set_cancel(const atomic_int *flag);
void tensor_scale_(Tensor *t, float s); /* in place, every logical element */
/* In place, every logical element divided by s (PyTorch's scores / sqrt(dh):
 * the pipeline's program divides, and decode matches it bit for bit). */
void tensor_div_(Tensor *t, float s);
void tensor_causal_mask_(Tensor *t);     /* last two dims (S, S): -inf above the diagonal */
void tensor_softmax_lastdim_(Tensor *t); /* in place, max-subtracted */
double tensor_exp(double x);             /* e^x to double precision, without libm */
/* Out of place: a new contiguous tensor with t's values, in t's engine
 * (compute, not a layout copy: nothing is counted as copied). */
Tensor *tensor_clone_compute(const Tensor *t);

/* "(1, 4, 2, 4)" into buf; returns buf. */
char *tensor_fmt_dims(char *buf, size_t n, int ndim, const int *dims);
char *tensor_fmt_strides(char *buf, size_t n, const Tensor *t);

/* For engines built on this one (engine/tensorops.c: the playground's ops).
 * tensor_new_storage: a new zeroed storage of n floats (n may be 0) in engine
 * e, seen as the 1-D tensor (n,); NULL past e's budget.  tensor_restride: any
 * geometry on t's storage (ndim 0..TENSOR_MAXDIM, sizes >= 0); the caller
 * keeps every element it can reach inside the storage.  Both NULL when out of
 * memory. */
Tensor *tensor_new_storage(Engine *e, size_t n);
Tensor *tensor_restride(const Tensor *t, size_t offset, int ndim, const int *shape,
                        const long *strides);

#endif
