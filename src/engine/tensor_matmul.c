/* tensor_matmul.c - the matmul of tensor.h: tensor_matmul and
 * tensor_matmul_into, on the blocked kernel (packed B, register tiles, SIMD
 * where the CPU has it, the work items shared out by engine/parallel.h) or on
 * the simple loop it replaced, kept as the reference (tensor_matmul_mode).
 * Both give the same bits. */
#include "engine/parallel.h"
#include "engine/tensor.h"
#include "engine/tensorctx.h"

#include "base/errbuf.h"

#include <stdlib.h>
#include <string.h>

/*
 * Every C[i][j] is one float sum over p in order, 0 to k-1, starting from +0:
 * sum = 0; sum += A[i][p] * B[p][j].  Both kernels below keep that order, so
 * they give the same bits, whatever the blocking, the SIMD width or the
 * number of threads: the blocks are over i and j, never over p.
 */

/* c[j] += a * b[j] for j < n, eight at a time (one SIMD multiply and add
 * where the compiler has them; each c[j] is still one rounding step). */
static void axpy(float *restrict c, float a, const float *restrict b, int n)
{
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        c[j + 0] += a * b[j + 0], c[j + 1] += a * b[j + 1];
        c[j + 2] += a * b[j + 2], c[j + 3] += a * b[j + 3];
        c[j + 4] += a * b[j + 4], c[j + 5] += a * b[j + 5];
        c[j + 6] += a * b[j + 6], c[j + 7] += a * b[j + 7];
    }
    for (; j < n; j++)
        c[j] += a * b[j];
}

/* The simple kernel, as the engine had it before the blocked one: C (m, n) =
 * A (m, k) @ B (k, n), A and B strided, C contiguous and zero.  The branch
 * only changes how memory is walked, never a bit of the result.  Kept as the
 * reference the blocked kernel is checked and timed against
 * (tensor_matmul_mode). */
static void matmul_simple(float *restrict C, const float *A, long am, long ak, const float *B,
                          long bk, long bn, int m, int k, int n)
{
    if (bn == 1) { /* rows of B contiguous (x @ W, P @ V): i-p-j streams B and C */
        for (int i = 0; i < m; i++, C += n)
            for (int p = 0; p < k; p++)
                axpy(C, A[i * am + p * ak], B + p * bk, n);
    } else if (bk == 1 && ak == 1) { /* columns of B contiguous (Q @ K^T): dot products */
        for (int i = 0; i < m; i++, C += n)
            for (int j = 0; j < n; j++) {
                const float *arow = A + i * am, *bcol = B + j * bn;
                float sum = 0;
                for (int p = 0; p < k; p++)
                    sum += arow[p] * bcol[p];
                C[j] = sum;
            }
    } else { /* any strides */
        for (int i = 0; i < m; i++, C += n)
            for (int p = 0; p < k; p++) {
                float av = A[i * am + p * ak];
                for (int j = 0; j < n; j++)
                    C[j] += av * B[p * bk + j * bn];
            }
    }
}

/* The blocked kernel (the GotoBLAS/BLIS layout, without their split of the k
 * sum).  B is packed into panels of w columns, k rows of w floats each,
 * zero past n; a tile of MR rows by w columns of C is summed in registers
 * over the whole k and stored once.  The sums are in GCC and clang vector
 * extensions: lane-wise IEEE multiply and add, never fused (no FMA is
 * enabled), so a lane computes exactly what the simple kernel's scalar does. */
#define MR 6  /* rows of a tile; its columns, w: 8 (SSE, NEON, AVX) or 16 (AVX-512) */
#define MC 48 /* rows of a work item: MC x k floats of A stay in cache over all panels */

static int matmul_use_simple, matmul_narrow;
static _Thread_local const atomic_int *matmul_cancel; /* tensor_set_cancel: this thread's */

void tensor_matmul_mode(int threads, int kernel)
{
    parallel_set_threads(threads); /* the softmax shares the count */
    matmul_use_simple = kernel == TENSOR_MATMUL_SIMPLE;
    matmul_narrow = kernel == TENSOR_MATMUL_NARROW;
}

/* Bp (panels of w columns, each k x w) = B (k, n) strided. */
static void pack_b(float *restrict Bp, const float *B, long bk, long bn, int k, int n, int w)
{
    for (int j0 = 0; j0 < n; j0 += w) {
        int nr = n - j0 < w ? n - j0 : w;
        for (int p = 0; p < k; p++, Bp += w)
            for (int j = 0; j < w; j++)
                Bp[j] = j < nr ? B[p * bk + (j0 + j) * bn] : 0.0f;
    }
}

/* TILE defines name(): C (mr, nr) with row stride ldc = A (mr rows, strided)
 * @ one packed panel of NR columns, a tile row being NR / lanes of V vectors
 * (the MR x NV sums stay in registers: GCC keeps them in memory unless both
 * loops are unrolled).  Rows past mr repeat the last row of A and are not
 * stored.  Written once, compiled for 4 floats (SSE, NEON) and, where the CPU
 * has them, for AVX's 8 and AVX-512's 16. */
typedef void TileFn(float *C, long ldc, const float *A, long am, long ak, const float *Bp, int k,
                    int mr, int nr);
#define TILE(name, V, NR, attr)                                                                    \
    attr static void name(float *C, long ldc, const float *A, long am, long ak, const float *Bp,   \
                          int k, int mr, int nr)                                                   \
    {                                                                                              \
        enum { NV = NR * sizeof(float) / sizeof(V) };                                              \
        const float *a[MR];                                                                        \
        for (int r = 0; r < MR; r++)                                                               \
            a[r] = A + (r < mr ? r : mr - 1) * am;                                                 \
        V acc[MR][NV];                                                                             \
        memset(acc, 0, sizeof acc); /* +0: the sum starts where the simple kernel's does */        \
        for (int p = 0; p < k; p++, Bp += NR) {                                                    \
            V b[NV];                                                                               \
            memcpy(b, Bp, sizeof b);                                                               \
            _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++)                                   \
            {                                                                                      \
                float av = a[r][p * ak];                                                           \
                _Pragma("GCC unroll 2") for (int v = 0; v < NV; v++) acc[r][v] += av * b[v];       \
            }                                                                                      \
        }                                                                                          \
        for (int r = 0; r < mr; r++) {                                                             \
            float row[NR];                                                                         \
            memcpy(row, acc[r], sizeof row);                                                       \
            if (nr == NR) /* a whole row: one store, no call */                                    \
                memcpy(C + r * ldc, row, sizeof row);                                              \
            else                                                                                   \
                memcpy(C + r * ldc, row, (size_t)nr * sizeof *row);                                \
        }                                                                                          \
    }

#ifdef __clang__
#pragma clang fp contract(off) /* clang fuses a * b + c where the CPU can: not here */
#endif
typedef float f4 __attribute__((vector_size(16)));
TILE(tile4, f4, 8, )
#if defined(__x86_64__) && defined(__GNUC__)
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));
TILE(tile8, f8, 8, __attribute__((target("avx"))))
TILE(tile16, f16, 16, __attribute__((target("avx512f"))))
#endif

/* The tile for this CPU and its panel width: the same bits either way. */
typedef struct Tile {
    TileFn *fn;
    int w;
} Tile;

static Tile tile_for_cpu(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (matmul_narrow) return (Tile){tile4, 8};
    if (__builtin_cpu_supports("avx512f")) return (Tile){tile16, 16};
    if (__builtin_cpu_supports("avx")) return (Tile){tile8, 8};
#endif
    return (Tile){tile4, 8};
}

/* One tensor_matmul call: nb products C_b (m, n) = A_b (m, k) @ B_b, cut
 * into work items of MC rows (parallel_run shares them out). */
typedef struct MatmulJob {
    float *C;
    const float *A;
    const long *aoff; /* nb offsets into A */
    long am, ak;
    const float *Bp;  /* nb packed B (one when shared) */
    size_t bp_stride; /* floats between two packed B; 0 when shared */
    int m, k, n, items_per_b;
    long to;                  /* the number of work items */
    const atomic_int *cancel; /* the caller's flag (tensor_set_cancel), or NULL */
    Tile tile;
} MatmulJob;

static void matmul_items(void *arg, long from, long to)
{
    const MatmulJob *j = arg;
    for (long item = from; item < to; item++) {
        if (j->cancel && atomic_load_explicit(j->cancel, memory_order_relaxed)) return;
        long b = item / j->items_per_b;
        int i0 = (int)(item % j->items_per_b) * MC, i1 = i0 + MC < j->m ? i0 + MC : j->m;
        const float *A = j->A + j->aoff[b], *Bp = j->Bp + b * j->bp_stride;
        float *C = j->C + (size_t)b * j->m * j->n;
        int w = j->tile.w;
        for (int j0 = 0; j0 < j->n; j0 += w, Bp += (size_t)j->k * w)
            for (int i = i0; i < i1; i += MR)
                j->tile.fn(C + (size_t)i * j->n + j0, j->n, A + i * j->am, j->am, j->ak, Bp, j->k,
                           i1 - i < MR ? i1 - i : MR, j->n - j0 < w ? j->n - j0 : w);
    }
}

void tensor_set_cancel(const atomic_int *flag)
{
    matmul_cancel = flag;
}

/* The shapes a @ b needs (see tensor_matmul); 0, or -1 with the reason. */
static int matmul_check(const Tensor *a, const Tensor *b, char *err, size_t errlen)
{
    char sa[96], sb[96];
    int nd = a->ndim;
    /* b is either batched like a, or a 2-D matrix shared by every batch index
     * (x @ W): then its batch strides are 0, as PyTorch broadcasts it. */
    int shared = b->ndim == 2 && nd > 2;
    int ok = nd >= 2 && (b->ndim == nd || shared) && a->shape[nd - 1] == b->shape[b->ndim - 2];
    for (int i = 0; ok && !shared && i < nd - 2; i++)
        ok = a->shape[i] == b->shape[i];
    if (!ok) {
        err_set(err, errlen, "matmul: shapes %s and %s cannot be multiplied",
                tensor_fmt_dims(sa, sizeof sa, nd, a->shape),
                tensor_fmt_dims(sb, sizeof sb, b->ndim, b->shape));
        return -1;
    }
    return 0;
}

static int matmul_compute(Tensor *c, const Tensor *a, const Tensor *b, char *err, size_t errlen);

Tensor *tensor_matmul(const Tensor *a, const Tensor *b, char *err, size_t errlen)
{
    if (matmul_check(a, b, err, errlen) < 0) return NULL;
    int nd = a->ndim, shape[TENSOR_MAXDIM];
    for (int i = 0; i < nd - 1; i++)
        shape[i] = a->shape[i];
    shape[nd - 1] = b->shape[b->ndim - 1];
    Tensor *c = tensor_zeros(a->st->eng, nd, shape);
    if (!c) {
        err_set(err, errlen, "matmul: out of memory");
        return NULL;
    }
    if (matmul_compute(c, a, b, err, errlen) < 0) {
        tensor_free(c);
        return NULL;
    }
    return c;
}

int tensor_matmul_into(Tensor *c, const Tensor *a, const Tensor *b, char *err, size_t errlen)
{
    int nd = a->ndim, ok = c->ndim == nd && tensor_is_contiguous(c) && c->offset == 0;
    for (int i = 0; ok && i < nd; i++)
        ok = c->shape[i] == (i < nd - 1 ? a->shape[i] : b->shape[b->ndim - 1]) && c->shape[i] > 0;
    if (matmul_check(a, b, err, errlen) < 0) return -1;
    if (!ok) {
        err_set(err, errlen, "matmul: the output has the wrong shape");
        return -1;
    }
    memset(c->st->data, 0, tensor_numel(c) * sizeof *c->st->data);
    return matmul_compute(c, a, b, err, errlen);
}

/* c = a @ b, c contiguous of the right shape and zeroed. */
static int matmul_compute(Tensor *c, const Tensor *a, const Tensor *b, char *err, size_t errlen)
{
    int nd = a->ndim, shared = b->ndim == 2 && nd > 2;
    int m = a->shape[nd - 2], k = a->shape[nd - 1], n = b->shape[b->ndim - 1];
    const int *shape = c->shape;
    size_t nb = shape_numel(nd - 2, shape); /* the batch: 1 for 2-D */
    Tile tile = tile_for_cpu();
    size_t panels = (size_t)(n + tile.w - 1) / tile.w, bp_stride = shared ? 0 : panels * tile.w * k;
    size_t bp_floats =
        (shared ? 1 : nb) * panels * tile.w * k; /* 0 when k is (a playground shape) */
    long *aoff = malloc(nb * sizeof *aoff);
    float *Bp = aoff ? malloc((bp_floats ? bp_floats : 1) * sizeof *Bp) : NULL;
    if (!Bp) {
        free(aoff);
        err_set(err, errlen, "matmul: out of memory");
        return -1;
    }
    const float *A = a->st->data, *Bd = b->st->data;
    long am = a->strides[nd - 2], ak = a->strides[nd - 1];
    long bk = b->strides[b->ndim - 2], bn = b->strides[b->ndim - 1];
    int idx[TENSOR_MAXDIM] = {0}; /* over the leading (batch) dims */
    size_t bi = 0;
    do {
        long ao = (long)a->offset, bo = (long)b->offset;
        for (int i = 0; i < nd - 2; i++) {
            ao += idx[i] * a->strides[i];
            if (!shared) bo += idx[i] * b->strides[i];
        }
        if (matmul_use_simple)
            matmul_simple(c->st->data + bi * m * n, A + ao, am, ak, Bd + bo, bk, bn, m, k, n);
        else if (!shared || bi == 0)
            pack_b(Bp + bi * bp_stride, Bd + bo, bk, bn, k, n, tile.w);
        aoff[bi++] = ao;
    } while (nd > 2 && next_index(idx, nd - 2, a->shape));
    int items_per_b = (m + MC - 1) / MC;
    MatmulJob job = {.C = c->st->data,
                     .A = A,
                     .aoff = aoff,
                     .am = am,
                     .ak = ak,
                     .Bp = Bp,
                     .bp_stride = bp_stride,
                     .m = m,
                     .k = k,
                     .n = n,
                     .items_per_b = items_per_b,
                     .to = (long)nb * items_per_b,
                     .cancel = matmul_cancel,
                     .tile = tile};
    if (!matmul_use_simple) parallel_run(matmul_items, &job, job.to, (double)nb * m * n * k);
    free(aoff);
    free(Bp);
    if (matmul_cancel && atomic_load(matmul_cancel)) {
        err_set(err, errlen, "cancelled");
        return -1;
    }
    return 0;
}
