/* tensor.c - storages in their engine, element access, and the few kernels
 * the attention pipeline needs.  Strides are in elements, as in PyTorch.  The
 * shape operations (view ... repeat_interleave) are tensor_shape.c's: thin
 * callers of engine/tensorops.h, the one set of stride rules. */
#include "engine/tensor.h"

#include "base/errbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

size_t tensor_to_array(const Tensor *t, float *out)
{
    int idx[TENSOR_MAXDIM] = {0};
    size_t n = 0;
    do
        out[n++] = tensor_get(t, idx);
    while (next_index(idx, t->ndim, t->shape));
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

/* C (m, n) = A (m, k) @ B (k, n), A and B strided, C contiguous and zero.
 * Every C[i][j] is summed over p in the same order, 0 to k-1, starting from
 * 0, in every branch: the branch only changes how memory is walked, never a
 * bit of the result. */
static void matmul_2d(float *restrict C, const float *A, long am, long ak, const float *B, long bk,
                      long bn, int m, int k, int n)
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
    Tensor *c = tensor_zeros(a->st->eng, nd, shape);
    if (!c) {
        err_set(err, errlen, "matmul: out of memory");
        return NULL;
    }
    const float *A = a->st->data, *Bd = b->st->data;
    long am = a->strides[nd - 2], ak = a->strides[nd - 1];
    long bk = b->strides[b->ndim - 2], bn = b->strides[b->ndim - 1];
    float *C = c->st->data;
    int idx[TENSOR_MAXDIM] = {0}; /* over the leading (batch) dims */
    do {
        long ao = (long)a->offset, bo = (long)b->offset;
        for (int i = 0; i < nd - 2; i++) {
            ao += idx[i] * a->strides[i];
            if (!shared) bo += idx[i] * b->strides[i];
        }
        matmul_2d(C, A + ao, am, ak, Bd + bo, bk, bn, m, k, n);
        C += (size_t)m * n;
    } while (nd > 2 && next_index(idx, nd - 2, a->shape));
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
