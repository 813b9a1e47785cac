/* tensor.c - storage, strided views, the two copies, and the few kernels the
 * attention pipeline needs.  Strides are in elements, as in PyTorch. */
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

/* Per thread, so that a run computed in a worker thread (ui/runjob.c) never
 * shares a count or an id with the thread that draws. */
static _Thread_local size_t g_bytes_copied; /* every byte moved by contiguous / repeat_interleave */
static _Thread_local int g_next_id = 1;

size_t tensor_bytes_copied(void)
{
    return g_bytes_copied;
}

void tensor_reset_counters(void)
{
    g_bytes_copied = 0;
    g_next_id = 1;
}

static Storage *storage_new(size_t n)
{
    Storage *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->data = calloc(n ? n : 1, sizeof *s->data);
    if (!s->data) {
        free(s);
        return NULL;
    }
    s->n = n;
    s->refs = 1;
    s->id = g_next_id++;
    return s;
}

static void storage_release(Storage *s)
{
    if (s && --s->refs == 0) {
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

Tensor *tensor_zeros(int ndim, const int *shape)
{
    if (!shape_ok(ndim, shape)) return NULL;
    Storage *st = storage_new(shape_numel(ndim, shape));
    if (!st) return NULL;
    long strides[TENSOR_MAXDIM];
    contiguous_strides(ndim, shape, strides);
    Tensor *t = tensor_on(st, 0, ndim, shape, strides);
    storage_release(st); /* the tensor holds the only reference */
    return t;
}

Tensor *tensor_from_data(int ndim, const int *shape, const float *data)
{
    Tensor *t = tensor_zeros(ndim, shape);
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

size_t tensor_to_array(const Tensor *t, float *out)
{
    int idx[TENSOR_MAXDIM] = {0};
    size_t n = 0;
    do
        out[n++] = tensor_get(t, idx);
    while (next_index(idx, t->ndim, t->shape));
    return n;
}

static int norm_dim(int d, int ndim)
{
    if (d < 0) d += ndim;
    return d >= 0 && d < ndim ? d : -1;
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

/* "[1, 4, 3]" as PyTorch prints a shape in its errors. */
static char *fmt_list(char *buf, size_t n, int ndim, const int *dims)
{
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? ", " : "", dims[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

/* PyTorch's computeStride: walk the old dims from the back in "chunks" of dims
 * that are contiguous with each other; each chunk must be covered exactly by
 * a run of new dims, which then get strides inside the chunk.  Returns 0 when
 * the new shape would need a dimension to span two chunks (a copy). */
static int view_strides(const Tensor *t, int ndim, const int *shape, long *out)
{
    int view_d = ndim - 1;
    long chunk_base = t->strides[t->ndim - 1];
    size_t tensor_numel = 1, view_numel = 1;
    for (int td = t->ndim - 1; td >= 0; td--) {
        tensor_numel *= (size_t)t->shape[td];
        if (td == 0 ||
            (t->shape[td - 1] != 1 && t->strides[td - 1] != (long)tensor_numel * chunk_base)) {
            while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
                out[view_d] = (long)view_numel * chunk_base;
                view_numel *= (size_t)shape[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return 0;
            if (td > 0) {
                chunk_base = t->strides[td - 1];
                tensor_numel = view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

Tensor *tensor_view(const Tensor *t, int ndim, const int *shape_in, char *err, size_t errlen)
{
    int shape[TENSOR_MAXDIM];
    char a[96];
    if (ndim < 1 || ndim > TENSOR_MAXDIM) {
        err_set(err, errlen, "view: %d dimensions (at most %d)", ndim, TENSOR_MAXDIM);
        return NULL;
    }
    int infer = -1;
    size_t known = 1, numel = tensor_numel(t);
    for (int i = 0; i < ndim; i++) {
        shape[i] = shape_in[i];
        if (shape[i] == -1 && infer >= 0) {
            err_set(err, errlen, "only one dimension can be inferred");
            return NULL;
        } else if (shape[i] == -1)
            infer = i;
        else if (shape[i] < 1) {
            err_set(err, errlen, "view: invalid shape dimension %d", shape[i]);
            return NULL;
        } else
            known *= (size_t)shape[i];
    }
    if (infer >= 0) {
        if (numel % known) {
            err_set(err, errlen, "shape '%s' is invalid for input of size %zu",
                    fmt_list(a, sizeof a, ndim, shape_in), numel);
            return NULL;
        }
        shape[infer] = (int)(numel / known);
        known *= (size_t)shape[infer];
    }
    if (known != numel) {
        err_set(err, errlen, "shape '%s' is invalid for input of size %zu",
                fmt_list(a, sizeof a, ndim, shape_in), numel);
        return NULL;
    }
    long strides[TENSOR_MAXDIM];
    if (!view_strides(t, ndim, shape, strides)) {
        err_set(err, errlen,
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    return tensor_on(t->st, t->offset, ndim, shape, strides);
}

Tensor *tensor_transpose(const Tensor *t, int d0, int d1, char *err, size_t errlen)
{
    int a = norm_dim(d0, t->ndim), b = norm_dim(d1, t->ndim);
    if (a < 0 || b < 0) {
        err_set(
            err, errlen,
            "transpose: dimension out of range (expected to be in range of [%d, %d], but got %d)",
            -t->ndim, t->ndim - 1, a < 0 ? d0 : d1);
        return NULL;
    }
    int shape[TENSOR_MAXDIM];
    long strides[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++) {
        shape[i] = t->shape[i];
        strides[i] = t->strides[i];
    }
    shape[a] = t->shape[b], shape[b] = t->shape[a];
    strides[a] = t->strides[b], strides[b] = t->strides[a];
    return tensor_on(t->st, t->offset, t->ndim, shape, strides);
}

Tensor *tensor_unsqueeze(const Tensor *t, int dim, char *err, size_t errlen)
{
    int d = dim < 0 ? dim + t->ndim + 1 : dim;
    if (d < 0 || d > t->ndim || t->ndim >= TENSOR_MAXDIM) {
        err_set(err, errlen, "unsqueeze: dimension %d out of range for %d-D tensor", dim, t->ndim);
        return NULL;
    }
    int shape[TENSOR_MAXDIM];
    long strides[TENSOR_MAXDIM];
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            shape[i] = 1;
            /* any stride works on a size-1 axis; PyTorch uses size*stride of the next */
            strides[i] = d < t->ndim ? t->strides[d] * t->shape[d] : 1;
        } else {
            shape[i] = t->shape[j];
            strides[i] = t->strides[j];
            j++;
        }
    }
    return tensor_on(t->st, t->offset, t->ndim + 1, shape, strides);
}

Tensor *tensor_narrow(const Tensor *t, int dim, int start, int len, char *err, size_t errlen)
{
    int d = norm_dim(dim, t->ndim);
    if (d < 0 || start < 0 || len < 1 || start + len > (d < 0 ? 0 : t->shape[d])) {
        err_set(err, errlen, "narrow: %d..%d is outside dimension %d of size %d", start,
                start + len - 1, dim, d < 0 ? 0 : t->shape[d]);
        return NULL;
    }
    int shape[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++)
        shape[i] = t->shape[i];
    shape[d] = len;
    return tensor_on(t->st, t->offset + (size_t)((long)start * t->strides[d]), t->ndim, shape,
                     t->strides);
}

Tensor *tensor_expand(const Tensor *t, int ndim, const int *shape, char *err, size_t errlen)
{
    if (ndim != t->ndim) {
        err_set(err, errlen,
                "expand: the number of sizes provided (%d) must match the tensor's dimensions (%d)",
                ndim, t->ndim);
        return NULL;
    }
    long strides[TENSOR_MAXDIM];
    int sh[TENSOR_MAXDIM];
    for (int i = 0; i < ndim; i++) {
        sh[i] = shape[i] == -1 ? t->shape[i] : shape[i];
        if (sh[i] == t->shape[i])
            strides[i] = t->strides[i];
        else if (t->shape[i] == 1 && sh[i] >= 1)
            strides[i] = 0;
        else {
            err_set(err, errlen,
                    "The expanded size of the tensor (%d) must match the existing size (%d) at "
                    "non-singleton dimension %d",
                    sh[i], t->shape[i], i);
            return NULL;
        }
    }
    return tensor_on(t->st, t->offset, ndim, sh, strides);
}

Tensor *tensor_clone_compute(const Tensor *t)
{
    Tensor *c = tensor_zeros(t->ndim, t->shape);
    if (c) tensor_to_array(t, c->st->data);
    return c;
}

/* A new contiguous tensor with t's values; counts the bytes. */
static Tensor *copy_of(const Tensor *t)
{
    Tensor *c = tensor_clone_compute(t);
    if (!c) return NULL;
    c->st->bytes_copied += c->st->n * sizeof(float);
    g_bytes_copied += c->st->n * sizeof(float);
    return c;
}

Tensor *tensor_contiguous(const Tensor *t)
{
    if (tensor_is_contiguous(t)) return tensor_on(t->st, t->offset, t->ndim, t->shape, t->strides);
    return copy_of(t);
}

Tensor *tensor_repeat_interleave(const Tensor *t, int reps, int dim, char *err, size_t errlen)
{
    int d = norm_dim(dim, t->ndim);
    if (d < 0 || reps < 1) {
        err_set(err, errlen, "repeat_interleave: %s",
                d < 0 ? "dimension out of range" : "repeats must be >= 1");
        return NULL;
    }
    int shape[TENSOR_MAXDIM];
    for (int i = 0; i < t->ndim; i++)
        shape[i] = t->shape[i];
    shape[d] *= reps;
    Tensor *out = tensor_zeros(t->ndim, shape);
    if (!out) {
        err_set(err, errlen, "repeat_interleave: out of memory");
        return NULL;
    }
    /* out[..., j, ...] = t[..., j / reps, ...] */
    int idx[TENSOR_MAXDIM] = {0}, src[TENSOR_MAXDIM];
    size_t n = 0;
    do {
        for (int i = 0; i < t->ndim; i++)
            src[i] = idx[i];
        src[d] = idx[d] / reps;
        out->st->data[n++] = tensor_get(t, src);
    } while (next_index(idx, out->ndim, out->shape));
    out->st->bytes_copied += n * sizeof(float);
    g_bytes_copied += n * sizeof(float);
    return out;
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
 * sum).  B is packed into panels of NR columns, k rows of NR floats each,
 * zero past n; a tile of MR rows by NR columns of C is summed in registers
 * over the whole k and stored once.  Four floats is one SSE or NEON register
 * (GCC and clang vector extensions: lane-wise IEEE multiply and add, no
 * fused multiply-add), so a tile is 12 registers of sums. */
typedef float f4 __attribute__((vector_size(16)));
#define MR 6  /* rows of a tile */
#define NR 8  /* columns of a tile: two f4 */
#define MC 48 /* rows of a work item: MC x k floats of A stay in cache over all panels */
#define MATMUL_MIN_THREADED (1L << 22) /* m * n * k below this: not worth a thread */
#define MATMUL_MAX_THREADS 8

static int matmul_threads; /* 0: one per online CPU */
static int matmul_use_simple;

void tensor_matmul_mode(int threads, int simple)
{
    matmul_threads = threads < 0 ? 0 : threads;
    matmul_use_simple = simple != 0;
}

/* Bp (panels of NR columns, each k x NR) = B (k, n) strided. */
static void pack_b(float *restrict Bp, const float *B, long bk, long bn, int k, int n)
{
    for (int j0 = 0; j0 < n; j0 += NR) {
        int nr = n - j0 < NR ? n - j0 : NR;
        for (int p = 0; p < k; p++, Bp += NR)
            for (int j = 0; j < NR; j++)
                Bp[j] = j < nr ? B[p * bk + (j0 + j) * bn] : 0.0f;
    }
}

/* C (mr, nr) with row stride ldc = A (mr rows, strided) @ one packed panel.
 * Rows past mr repeat the last row of A (their sums are not stored). */
static void tile(float *C, long ldc, const float *A, long am, long ak, const float *Bp, int k,
                 int mr, int nr)
{
    const float *a[MR];
    for (int r = 0; r < MR; r++)
        a[r] = A + (r < mr ? r : mr - 1) * am;
    f4 acc[MR][2];
    memset(acc, 0, sizeof acc); /* +0: the sum starts where the simple kernel's does */
    for (int p = 0; p < k; p++, Bp += NR) {
        f4 b0, b1;
        memcpy(&b0, Bp, sizeof b0);
        memcpy(&b1, Bp + 4, sizeof b1);
#pragma GCC unroll 6 /* all MR rows in registers (GCC keeps an array in memory otherwise) */
        for (int r = 0; r < MR; r++) {
            float av = a[r][p * ak];
            acc[r][0] += av * b0;
            acc[r][1] += av * b1;
        }
    }
    for (int r = 0; r < mr; r++) {
        float row[NR];
        memcpy(row, acc[r], sizeof row);
        memcpy(C + r * ldc, row, (size_t)nr * sizeof *row);
    }
}

/* One tensor_matmul call: nb products C_b (m, n) = A_b (m, k) @ B_b, cut
 * into work items of MC rows; items [from, to) are one thread's share. */
typedef struct MatmulJob {
    float *C;
    const float *A;
    const long *aoff; /* nb offsets into A */
    long am, ak;
    const float *Bp;  /* nb packed B (one when shared) */
    size_t bp_stride; /* floats between two packed B; 0 when shared */
    int m, k, n, items_per_b;
    long from, to;
    const atomic_int *cancel; /* the caller's flag (tensor_set_cancel), or NULL */
} MatmulJob;

static void matmul_items(const MatmulJob *j)
{
    for (long w = j->from; w < j->to; w++) {
        if (j->cancel && atomic_load_explicit(j->cancel, memory_order_relaxed)) return;
        long b = w / j->items_per_b;
        int i0 = (int)(w % j->items_per_b) * MC, i1 = i0 + MC < j->m ? i0 + MC : j->m;
        const float *A = j->A + j->aoff[b], *Bp = j->Bp + b * j->bp_stride;
        float *C = j->C + (size_t)b * j->m * j->n;
        for (int j0 = 0; j0 < j->n; j0 += NR, Bp += (size_t)j->k * NR)
            for (int i = i0; i < i1; i += MR)
                tile(C + (size_t)i * j->n + j0, j->n, A + i * j->am, j->am, j->ak, Bp, j->k,
                     i1 - i < MR ? i1 - i : MR, j->n - j0 < NR ? j->n - j0 : NR);
    }
}

static void *matmul_thread(void *arg)
{
    matmul_items(arg);
    return NULL;
}

static int matmul_thread_count(long work, long items)
{
    if (work < MATMUL_MIN_THREADED) return 1;
    long t = matmul_threads ? matmul_threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (t > MATMUL_MAX_THREADS) t = MATMUL_MAX_THREADS;
    if (t > items) t = items;
    return t < 1 ? 1 : (int)t;
}

/* Runs the job's items on up to MATMUL_MAX_THREADS threads, the caller's
 * included, each a contiguous share.  The helpers block every signal (the
 * caller's thread keeps them).  A helper that cannot start leaves its share
 * to the caller: the same sums either way. */
static void matmul_run(MatmulJob *all, long items)
{
    MatmulJob part[MATMUL_MAX_THREADS];
    pthread_t tid[MATMUL_MAX_THREADS];
    int started[MATMUL_MAX_THREADS] = {0};
    int nt =
        matmul_thread_count((long)all->m * all->n * all->k * (items / all->items_per_b), items);
    sigset_t full, old;
    sigfillset(&full);
    pthread_sigmask(SIG_SETMASK, &full, &old);
    for (int t = 0; t < nt; t++) {
        part[t] = *all;
        part[t].from = items * t / nt;
        part[t].to = items * (t + 1) / nt;
        if (t > 0) started[t] = pthread_create(&tid[t], NULL, matmul_thread, &part[t]) == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (int t = 0; t < nt; t++)
        if (!started[t]) matmul_items(&part[t]);
    for (int t = 1; t < nt; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}

static _Thread_local const atomic_int *matmul_cancel;

void tensor_set_cancel(const atomic_int *flag)
{
    matmul_cancel = flag;
}

Tensor *tensor_matmul(const Tensor *a, const Tensor *b, char *err, size_t errlen)
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
        return NULL;
    }
    int m = a->shape[nd - 2], k = a->shape[nd - 1], n = b->shape[b->ndim - 1];
    int shape[TENSOR_MAXDIM];
    for (int i = 0; i < nd - 2; i++)
        shape[i] = a->shape[i];
    shape[nd - 2] = m, shape[nd - 1] = n;
    Tensor *c = tensor_zeros(nd, shape);
    size_t nb = shape_numel(nd - 2, shape); /* the batch: 1 for 2-D */
    size_t panels = (size_t)(n + NR - 1) / NR, bp_stride = shared ? 0 : panels * NR * k;
    long *aoff = c ? malloc(nb * sizeof *aoff) : NULL;
    float *Bp = aoff ? malloc((shared ? 1 : nb) * panels * NR * k * sizeof *Bp) : NULL;
    if (!Bp) {
        free(aoff);
        tensor_free(c);
        err_set(err, errlen, "matmul: out of memory");
        return NULL;
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
            pack_b(Bp + bi * bp_stride, Bd + bo, bk, bn, k, n);
        aoff[bi++] = ao;
    } while (nd > 2 && next_index(idx, nd - 2, a->shape));
    int items_per_b = (m + MC - 1) / MC;
    MatmulJob job = {c->st->data,
                     A,
                     aoff,
                     am,
                     ak,
                     Bp,
                     bp_stride,
                     m,
                     k,
                     n,
                     items_per_b,
                     0,
                     (long)nb * items_per_b,
                     matmul_cancel};
    if (!matmul_use_simple) matmul_run(&job, job.to);
    free(aoff);
    free(Bp);
    if (matmul_cancel && atomic_load(matmul_cancel)) {
        tensor_free(c);
        err_set(err, errlen, "cancelled");
        return NULL;
    }
    return c;
}

void tensor_scale_(Tensor *t, float s)
{
    int idx[TENSOR_MAXDIM] = {0};
    do
        t->st->data[tensor_offset_of(t, idx)] *= s;
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
double tensor_exp(double x)
{
    if (x < -745.0) return 0.0;
    if (x > 709.0) return HUGE_VAL;
    double kf = x * 1.4426950408889634; /* x / ln 2, rounded to nearest */
    long k = (long)(kf < 0 ? kf - 0.5 : kf + 0.5);
    double r = (x - (double)k * 0.693145751953125) - (double)k * 1.4286068203094172321e-6;
    double sum = 1.0, term = 1.0;
    for (int i = 1; i < 16; i++) {
        term *= r / i;
        sum += term;
    }
    /* sum * 2^k, in two halves so that 2^k never leaves the double range */
    long k1 = k / 2, k2 = k - k1;
    uint64_t b1 = (uint64_t)(1023 + k1) << 52, b2 = (uint64_t)(1023 + k2) << 52;
    double p1, p2;
    memcpy(&p1, &b1, sizeof p1);
    memcpy(&p2, &b2, sizeof p2);
    return sum * p1 * p2;
}

void tensor_softmax_lastdim_(Tensor *t)
{
    int nd = t->ndim, n = t->shape[nd - 1];
    long st = t->strides[nd - 1];
    int idx[TENSOR_MAXDIM] = {0};
    do { /* one row per index of the leading dims (idx[nd-1] stays 0) */
        float *row = t->st->data + tensor_offset_of(t, idx);
        float mx = -INFINITY;
        for (int j = 0; j < n; j++)
            if (row[j * st] > mx) mx = row[j * st];
        if (mx == -INFINITY) { /* a fully masked row: no weight anywhere */
            for (int j = 0; j < n; j++)
                row[j * st] = 0.0f;
            continue;
        }
        double sum = 0;
        for (int j = 0; j < n; j++) {
            float e = (float)tensor_exp(row[j * st] - mx); /* <= 1: no overflow at +-1e4 */
            row[j * st] = e;
            sum += e;
        }
        for (int j = 0; j < n; j++)
            row[j * st] = (float)(row[j * st] / sum);
    } while (nd > 1 && next_index(idx, nd - 1, t->shape));
}

Tensor *tensor_new_storage(size_t n)
{
    Storage *st = storage_new(n);
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
