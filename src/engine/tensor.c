/* tensor.c - storages in their engine, element access, and the few kernels
 * the attention pipeline needs.  Strides are in elements, as in PyTorch.  The
 * shape operations (view ... repeat_interleave) are tensor_shape.c's: thin
 * callers of engine/tensorops.h, the one set of stride rules. */
#include "engine/tensor.h"

#include "base/errbuf.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A new zeroed storage of n floats in engine e: the next id, its bytes live. */
static Storage *storage_new(Engine *e, size_t n)
{
    if (!e || !engine_has_room(e, n)) return NULL;
    Storage *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->data = calloc(n ? n : 1, sizeof *s->data);
    if (!s->data) {
        free(s);
        return NULL;
    }
    s->n = n;
    s->refs = 1;
    s->eng = e;
    engine_retain(e);
    s->id = e->next_id++;
    e->live += n * sizeof *s->data;
    return s;
}

static void storage_release(Storage *s)
{
    if (s && --s->refs == 0) {
        s->eng->live -= s->n * sizeof *s->data;
        engine_release(s->eng);
        free(s->data);
        free(s);
    }
}

/* A new tensor object on storage st (takes a reference). */
static Tensor *tensor_on(Storage *st, size_t offset, int ndim, const int *shape,
                         const long *strides)
{
    Tensor *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->st = st;
    st->refs++;
    t->offset = offset;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = strides[i];
    }
    return t;
}

static void contiguous_strides(int ndim, const int *shape, long *strides)
{
    long s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i];
    }
}

static int shape_ok(int ndim, const int *shape)
{
    if (ndim < 1 || ndim > TENSOR_MAXDIM) return 0;
    for (int i = 0; i < ndim; i++)
        if (shape[i] < 1) return 0;
    return 1;
}

static size_t shape_numel(int ndim, const int *shape)
{
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= (size_t)shape[i];
    return n;
}

Tensor *tensor_zeros(Engine *e, int ndim, const int *shape)
{
    if (!shape_ok(ndim, shape)) return NULL;
    Storage *st = storage_new(e, shape_numel(ndim, shape));
    if (!st) return NULL;
    long strides[TENSOR_MAXDIM];
    contiguous_strides(ndim, shape, strides);
    Tensor *t = tensor_on(st, 0, ndim, shape, strides);
    storage_release(st); /* the tensor holds the only reference */
    return t;
}

Tensor *tensor_from_data(Engine *e, int ndim, const int *shape, const float *data)
{
    Tensor *t = tensor_zeros(e, ndim, shape);
    if (t) memcpy(t->st->data, data, t->st->n * sizeof *data);
    return t;
}

void tensor_free(Tensor *t)
{
    if (!t) return;
    storage_release(t->st);
    free(t);
}

size_t tensor_numel(const Tensor *t)
{
    return shape_numel(t->ndim, t->shape);
}

int tensor_is_contiguous(const Tensor *t)
{
    long expect = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->shape[i] == 1) continue;
        if (t->strides[i] != expect) return 0;
        expect *= t->shape[i];
    }
    return 1;
}

int tensor_same_storage(const Tensor *a, const Tensor *b)
{
    return a->st == b->st;
}

size_t tensor_offset_of(const Tensor *t, const int *idx)
{
    long off = (long)t->offset;
    for (int i = 0; i < t->ndim; i++)
        off += (long)idx[i] * t->strides[i];
    return (size_t)off;
}

float tensor_get(const Tensor *t, const int *idx)
{
    return t->st->data[tensor_offset_of(t, idx)];
}

void tensor_set(Tensor *t, const int *idx, float v)
{
    t->st->data[tensor_offset_of(t, idx)] = v;
}

/* Advances idx (row-major over shape, last axis fastest); 0 when it wraps. */
static int next_index(int *idx, int ndim, const int *shape)
{
    for (int i = ndim - 1; i >= 0; i--) {
        if (++idx[i] < shape[i]) return 1;
        idx[i] = 0;
    }
    return 0;
}

/* 1 when t has an axis and no empty one: it can be walked a row (the last
 * axis) at a time. */
static int has_rows(const Tensor *t)
{
    return t->ndim >= 1 && tensor_numel(t) > 0;
}

size_t tensor_to_array(const Tensor *t, float *out)
{
    int idx[TENSOR_MAXDIM] = {0};
    size_t n = 0;
    if (!has_rows(t)) { /* a 0-d tensor (the playground's): one element */
        do
            out[n++] = tensor_get(t, idx);
        while (next_index(idx, t->ndim, t->shape));
        return n;
    }
    if (tensor_is_contiguous(t)) { /* row-major already: one copy */
        n = tensor_numel(t);
        memcpy(out, t->st->data + t->offset, n * sizeof *out);
        return n;
    }
    int nd = t->ndim, len = t->shape[nd - 1];
    long st = t->strides[nd - 1];
    do { /* a row of the last axis per index of the others (idx[nd-1] stays 0) */
        const float *row = t->st->data + tensor_offset_of(t, idx);
        for (int j = 0; j < len; j++)
            out[n++] = row[j * st];
    } while (nd > 1 && next_index(idx, nd - 1, t->shape));
    return n;
}

char *tensor_fmt_dims(char *buf, size_t n, int ndim, const int *dims)
{
    size_t k = 0;
    k += (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? ", " : "", dims[i]);
    if (k < n) snprintf(buf + k, n - k, ndim == 1 ? ",)" : ")");
    return buf;
}

char *tensor_fmt_strides(char *buf, size_t n, const Tensor *t)
{
    size_t k = 0;
    k += (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%ld", i ? ", " : "", t->strides[i]);
    if (k < n) snprintf(buf + k, n - k, t->ndim == 1 ? ",)" : ")");
    return buf;
}

Tensor *tensor_clone_compute(const Tensor *t)
{
    Tensor *c = tensor_zeros(t->st->eng, t->ndim, t->shape);
    if (c) tensor_to_array(t, c->st->data);
    return c;
}

void tensor_count_copy(Tensor *t, size_t n)
{
    t->st->bytes_copied += n * sizeof(float);
    t->st->eng->bytes_copied += n * sizeof(float);
}

/* ---- matmul ----------------------------------------------------------------
 *
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
#define MATMUL_MIN_THREADED (1L << 22) /* m * n * k below this: not worth a thread */
#define MATMUL_MAX_THREADS 8

static int matmul_threads; /* 0: one per online CPU */
static int matmul_use_simple, matmul_narrow;

void tensor_matmul_mode(int threads, int kernel)
{
    matmul_threads = threads < 0 ? 0 : threads;
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
 * into work items of MC rows (parallel_items shares them out). */
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

/* ---- threads: independent items on every CPU ------------------------------ */

typedef void ItemsFn(void *arg, long from, long to);
typedef struct Share {
    ItemsFn *fn;
    void *arg;
    long from, to;
} Share;

static void *share_thread(void *p)
{
    Share *s = p;
    s->fn(s->arg, s->from, s->to);
    return NULL;
}

/* fn(arg, from, to) over items [0, items), cut into one contiguous share per
 * thread, the caller's thread included (tensor_matmul_mode's count; one
 * thread when work, in multiply-adds or alike, is under
 * MATMUL_MIN_THREADED).  Items must write disjoint memory: then the result
 * is the same whatever the count.  The helpers block every signal (the
 * caller's thread keeps them); a share whose thread cannot start is run by
 * the caller. */
static void parallel_items(ItemsFn *fn, void *arg, long items, double work)
{
    long nt = work < MATMUL_MIN_THREADED ? 1
              : matmul_threads           ? matmul_threads
                                         : sysconf(_SC_NPROCESSORS_ONLN);
    if (nt > MATMUL_MAX_THREADS) nt = MATMUL_MAX_THREADS;
    if (nt > items) nt = items;
    if (nt <= 1) {
        fn(arg, 0, items);
        return;
    }
    Share part[MATMUL_MAX_THREADS];
    pthread_t tid[MATMUL_MAX_THREADS];
    int started[MATMUL_MAX_THREADS] = {0};
    sigset_t full, old;
    sigfillset(&full);
    pthread_sigmask(SIG_SETMASK, &full, &old);
    for (long t = 0; t < nt; t++) {
        part[t] = (Share){fn, arg, items * t / nt, items * (t + 1) / nt};
        if (t > 0) started[t] = pthread_create(&tid[t], NULL, share_thread, &part[t]) == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (long t = 0; t < nt; t++)
        if (!started[t]) fn(arg, part[t].from, part[t].to);
    for (long t = 1; t < nt; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}

static _Thread_local const atomic_int *matmul_cancel;

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
    if (!matmul_use_simple) parallel_items(matmul_items, &job, job.to, (double)nb * m * n * k);
    free(aoff);
    free(Bp);
    if (matmul_cancel && atomic_load(matmul_cancel)) {
        err_set(err, errlen, "cancelled");
        return -1;
    }
    return 0;
}

void tensor_scale_(Tensor *t, float s)
{
    int idx[TENSOR_MAXDIM] = {0};
    if (!has_rows(t)) {
        do
            t->st->data[tensor_offset_of(t, idx)] *= s;
        while (next_index(idx, t->ndim, t->shape));
        return;
    }
    int nd = t->ndim, len = t->shape[nd - 1];
    long st = t->strides[nd - 1];
    do { /* row by row, in the same order: an expanded element is scaled each time it is seen */
        float *row = t->st->data + tensor_offset_of(t, idx);
        for (int j = 0; j < len; j++)
            row[j * st] *= s;
    } while (nd > 1 && next_index(idx, nd - 1, t->shape));
}

void tensor_div_(Tensor *t, float s)
{
    int idx[TENSOR_MAXDIM] = {0};
    if (tensor_numel(t) == 0) return;
    do
        t->st->data[tensor_offset_of(t, idx)] /= s;
    while (next_index(idx, t->ndim, t->shape));
}

void tensor_causal_mask_(Tensor *t)
{
    int idx[TENSOR_MAXDIM] = {0};
    do
        if (idx[t->ndim - 1] > idx[t->ndim - 2]) t->st->data[tensor_offset_of(t, idx)] = -INFINITY;
    while (next_index(idx, t->ndim, t->shape));
}

/* e^x for the softmax, without libm: linking libm costs half a megabyte of
 * resident memory for this one function.  x = k ln2 + r with |r| <= ln2/2,
 * e^r by its Taylor series (16 terms: below 1e-16 relative there), then 2^k
 * added to the exponent bits.  Accurate to double precision in the range a
 * max-subtracted softmax uses (x <= 0); 0 below -745. */
static double exp_reduce(double x, long *k)
{
    double kf = x * 1.4426950408889634; /* x / ln 2, rounded to nearest */
    *k = (long)(kf < 0 ? kf - 0.5 : kf + 0.5);
    return (x - (double)*k * 0.693145751953125) - (double)*k * 1.4286068203094172321e-6;
}

/* sum * 2^k, in two halves so that 2^k never leaves the double range */
static double exp_scale(double sum, long k)
{
    long k1 = k / 2, k2 = k - k1;
    uint64_t b1 = (uint64_t)(1023 + k1) << 52, b2 = (uint64_t)(1023 + k2) << 52;
    double p1, p2;
    memcpy(&p1, &b1, sizeof p1);
    memcpy(&p2, &b2, sizeof p2);
    return sum * p1 * p2;
}

double tensor_exp(double x)
{
    if (x < -745.0) return 0.0;
    if (x > 709.0) return HUGE_VAL;
    long k;
    double r = exp_reduce(x, &k);
    double sum = 1.0, term = 1.0;
    for (int i = 1; i < 16; i++) {
        term *= r / i;
        sum += term;
    }
    return exp_scale(sum, k);
}

/* tensor_exp of x0 and x1, bit for bit, the two Taylor sums in one SSE2 (or
 * NEON) register: its 15 divisions are most of the softmax's time, and two
 * lanes divide in the time of one.  Lane-wise IEEE operations, as above. */
typedef double d2 __attribute__((vector_size(16)));
static void exp_pair(double x0, double x1, double *e0, double *e1)
{
    if (!(x0 >= -745.0 && x0 <= 709.0 && x1 >= -745.0 && x1 <= 709.0)) {
        *e0 = tensor_exp(x0), *e1 = tensor_exp(x1);
        return;
    }
    long k0, k1;
    d2 r = {exp_reduce(x0, &k0), exp_reduce(x1, &k1)}, sum = {1.0, 1.0}, term = sum;
#pragma GCC unroll 16 /* then r / 1, 2, 4 and 8 are exact multiplications, the same bits */
    for (int i = 1; i < 16; i++) {
        term *= r / (double)i;
        sum += term;
    }
    *e0 = exp_scale(sum[0], k0), *e1 = exp_scale(sum[1], k1);
}

/* One row of n floats, stride st, softmaxed in place. */
static void softmax_row(float *row, int n, long st)
{
    float mx = -INFINITY;
    for (int j = 0; j < n; j++)
        if (row[j * st] > mx) mx = row[j * st];
    if (mx == -INFINITY) { /* a fully masked row: no weight anywhere */
        for (int j = 0; j < n; j++)
            row[j * st] = 0.0f;
        return;
    }
    double sum = 0;
    int j = 0;
    for (; j + 2 <= n; j += 2) { /* e <= 1: no overflow at +-1e4 */
        double e0, e1;
        exp_pair(row[j * st] - mx, row[(j + 1) * st] - mx, &e0, &e1);
        row[j * st] = (float)e0, row[(j + 1) * st] = (float)e1;
        sum += row[j * st];
        sum += row[(j + 1) * st];
    }
    for (; j < n; j++) {
        float e = (float)tensor_exp(row[j * st] - mx);
        row[j * st] = e;
        sum += e;
    }
    d2 sums = {sum, sum};
    for (j = 0; j + 2 <= n; j += 2) { /* two IEEE divisions at once, as for the exps */
        d2 q = (d2){row[j * st], row[(j + 1) * st]} / sums;
        row[j * st] = (float)q[0], row[(j + 1) * st] = (float)q[1];
    }
    for (; j < n; j++)
        row[j * st] = (float)(row[j * st] / sum);
}

/* Rows [from, to) of a contiguous tensor (parallel_items). */
static void softmax_rows(void *arg, long from, long to)
{
    Tensor *t = arg;
    int n = t->shape[t->ndim - 1];
    for (long r = from; r < to; r++)
        softmax_row(t->st->data + t->offset + (size_t)r * n, n, 1);
}

void tensor_softmax_lastdim_(Tensor *t)
{
    int nd = t->ndim, n = t->shape[nd - 1];
    if (has_rows(t) && tensor_is_contiguous(t)) { /* disjoint rows: on every CPU */
        size_t numel = tensor_numel(t);
        parallel_items(softmax_rows, t, (long)(numel / n), 32.0 * numel);
        return;
    }
    long st = t->strides[nd - 1];
    int idx[TENSOR_MAXDIM] = {0};
    do /* one row per index of the leading dims (idx[nd-1] stays 0); a row
        * that an expanded axis repeats is softmaxed each time, in order */
        softmax_row(t->st->data + tensor_offset_of(t, idx), n, st);
    while (nd > 1 && next_index(idx, nd - 1, t->shape));
}

Tensor *tensor_new_storage(Engine *e, size_t n)
{
    Storage *st = storage_new(e, n);
    if (!st) return NULL;
    int shape[1] = {(int)n};
    long strides[1] = {1};
    Tensor *t = tensor_on(st, 0, 1, shape, strides);
    storage_release(st);
    return t;
}

Tensor *tensor_restride(const Tensor *t, size_t offset, int ndim, const int *shape,
                        const long *strides)
{
    return tensor_on(t->st, offset, ndim, shape, strides);
}
