/* tensor.c - storages in their engine, element access, and the few
 * elementwise kernels the attention pipeline needs (scale, mask, softmax).
 * Strides are in elements, as in PyTorch.  The shape operations (view ...
 * repeat_interleave) are tensor_shape.c's: thin callers of
 * engine/tensorops.h, the one set of stride rules; matmul is
 * tensor_matmul.c's. */
#include "engine/tensor.h"
#include "engine/parallel.h"
#include "engine/tensorctx.h"

#include <math.h>
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
    if (tensor_numel(t) == 0) return 0; /* a 0 in its shape: no element to read */
    if (!has_rows(t)) {                 /* a 0-d tensor (the playground's): one element */
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

void tensor_scale_(Tensor *t, float s)
{
    int idx[TENSOR_MAXDIM] = {0};
    if (tensor_numel(t) == 0) return;
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
    if (tensor_numel(t) == 0) return;
    do
        if (idx[t->ndim - 1] > idx[t->ndim - 2]) t->st->data[tensor_offset_of(t, idx)] = -INFINITY;
    while (next_index(idx, t->ndim, t->shape));
}

#ifdef __clang__
#pragma clang fp contract(off) /* clang fuses a * b + c where the CPU can: not here */
#endif

/* e^x for the softmax, without libm: linking libm costs half a megabyte of
 * resident memory for this one function.  x = k ln2 + r with |r| <= ln2/2,
 * e^r by its Taylor polynomial of degree 13 in Horner's form (the next term
 * is below 1e-17 of it there; the coefficients 1/i! are rounded once, by the
 * compiler), then 2^k added to the exponent bits.  Accurate to double
 * precision in the range a max-subtracted softmax uses (x <= 0); 0 below
 * -745.  No division: a row of a 512-wide softmax is 512 of these. */
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

#define EXP_DEGREE 13
/* 1/i!, highest first */
/* clang-format off */
static const double exp_coef[EXP_DEGREE + 1] = {
    1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0,
    1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0,
    1.0 / 24.0, 1.0 / 6.0, 1.0 / 2.0, 1.0, 1.0};
/* clang-format on */

double tensor_exp(double x)
{
    if (x < -745.0) return 0.0;
    if (x > 709.0) return HUGE_VAL;
    long k;
    double r = exp_reduce(x, &k), p = exp_coef[0];
    for (int i = 1; i <= EXP_DEGREE; i++)
        p = p * r + exp_coef[i];
    return exp_scale(p, k);
}

/* tensor_exp of x[0..EXP_LANES), bit for bit: the polynomials two to an
 * SSE2 (or NEON) register, lane-wise IEEE operations in the same order as
 * above.  Eight at once, because Horner's rule is a chain: each step waits
 * for the multiply and the add before it, and four chains keep the CPU's
 * pipelines full where one or two leave them waiting. */
typedef double d2 __attribute__((vector_size(16)));
#define EXP_LANES 8
static void exp_lanes(const double *x, double *e)
{
    for (int i = 0; i < EXP_LANES; i++)
        if (!(x[i] >= -745.0 && x[i] <= 709.0)) {
            for (int j = 0; j < EXP_LANES; j++)
                e[j] = tensor_exp(x[j]);
            return;
        }
    long k[EXP_LANES];
    double r[EXP_LANES];
    for (int i = 0; i < EXP_LANES; i++)
        r[i] = exp_reduce(x[i], &k[i]);
    /* four named registers, not an array: the chains stay out of memory */
    d2 r0 = {r[0], r[1]}, r1 = {r[2], r[3]}, r2 = {r[4], r[5]}, r3 = {r[6], r[7]};
    d2 p0 = {exp_coef[0], exp_coef[0]}, p1 = p0, p2 = p0, p3 = p0;
    for (int i = 1; i <= EXP_DEGREE; i++) {
        d2 c = {exp_coef[i], exp_coef[i]};
        p0 = p0 * r0 + c, p1 = p1 * r1 + c, p2 = p2 * r2 + c, p3 = p3 * r3 + c;
    }
    const double q[EXP_LANES] = {p0[0], p0[1], p1[0], p1[1], p2[0], p2[1], p3[0], p3[1]};
    for (int i = 0; i < EXP_LANES; i++)
        e[i] = exp_scale(q[i], k[i]);
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
    for (; j + EXP_LANES <= n; j += EXP_LANES) { /* e <= 1: no overflow at +-1e4 */
        double x[EXP_LANES], e[EXP_LANES];
        for (int i = 0; i < EXP_LANES; i++)
            x[i] = row[(j + i) * st] - mx;
        exp_lanes(x, e);
        for (int i = 0; i < EXP_LANES; i++) {
            row[(j + i) * st] = (float)e[i];
            sum += row[(j + i) * st];
        }
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

/* Rows [from, to) of a contiguous tensor (parallel_run). */
static void softmax_rows(void *arg, long from, long to)
{
    Tensor *t = arg;
    int n = t->shape[t->ndim - 1];
    for (long r = from; r < to; r++)
        softmax_row(t->st->data + t->offset + (size_t)r * n, n, 1);
}

void tensor_softmax_lastdim_(Tensor *t)
{
    if (tensor_numel(t) == 0) return; /* no row to normalise */
    int nd = t->ndim, n = t->shape[nd - 1];
    if (has_rows(t) && tensor_is_contiguous(t)) { /* disjoint rows: on every CPU */
        size_t numel = tensor_numel(t);
        parallel_run(softmax_rows, t, (long)(numel / n), 32.0 * numel);
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
