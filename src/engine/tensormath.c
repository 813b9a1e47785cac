/* tensormath.c - see tensormath.h.  The layout of an elementwise result is
 * TensorIterator's (aten/src/ATen/TensorIterator.cpp: compute_shape,
 * fast_set_up, reorder_dimensions, allocate_or_resize_outputs). */
#include "engine/tensormath.h"

#include "engine/tensorops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define NMAX TENSOR_MAXDIM

/* A new storage holding exactly the elements of geometry g (dense strides,
 * offset 0), seen as g; NULL with ctx->err set. */
static Tensor *new_result(Geo *g, OpCtx *ctx)
{
    if (!geo_fits(g, ctx)) return NULL;
    Tensor *base = geo_new_storage(geo_numel(g->n, g->size), ctx);
    if (!base) return NULL;
    g->offset = 0;
    Tensor *r = geo_view(base, g, ctx);
    tensor_free(base);
    return r;
}

static Tensor *new_contiguous(int n, const long *size, OpCtx *ctx)
{
    Geo g = {.n = n};
    memcpy(g.size, size, sizeof(long) * (size_t)n);
    if (geo_contiguous_strides(&g, ctx) < 0) return NULL;
    return new_result(&g, ctx);
}

/* infer_size: the broadcast of two shapes into out (its rank returned), or
 * -1 with PyTorch's words. */
static int broadcast(int na, const long *a, int nb, const long *b, long *out, OpCtx *ctx)
{
    int n = na > nb ? na : nb;
    if (n > NMAX) {
        err_set(ctx->err, sizeof ctx->err,
                "mhaviz play keeps at most %d dimensions (this result has %d)", NMAX, n);
        return -1;
    }
    for (int i = n - 1; i >= 0; i--) {
        int off = n - 1 - i, ia = na - 1 - off, ib = nb - 1 - off;
        long sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            err_set(ctx->err, sizeof ctx->err,
                    "The size of tensor a (%ld) must match the size of tensor b (%ld) at "
                    "non-singleton dimension %d",
                    sa, sb, i);
            return -1;
        }
        out[i] = sa == 1 ? sb : sa;
    }
    return n;
}

static void sizes_of(const Tensor *t, long *v)
{
    for (int i = 0; i < t->ndim; i++)
        v[i] = t->shape[i];
}

/* t's strides seen at the broadcast shape (n dims): 0 on a dim it lacks or
 * broadcasts (compute_strides). */
static void broadcast_strides(const Tensor *t, int n, const long *shape, long *st)
{
    for (int i = 0; i < n; i++) {
        int k = i - (n - t->ndim);
        st[i] = k < 0 || (t->shape[k] == 1 && shape[i] != 1) ? 0 : t->strides[k];
    }
}

static void broadcast_geo(const Geo *g, int n, const long *shape, long *st)
{
    for (int i = 0; i < n; i++) {
        int k = i - (n - g->n);
        st[i] = k < 0 || (g->size[k] == 1 && shape[i] != 1) ? 0 : g->stride[k];
    }
}

/* The layout an input shows TensorIterator: its own, or (cast: a CPU input
 * of another dtype than the common one, converted first with .to()) the
 * one .to() gives it, clone's.  present 0: a Python scalar. */
typedef struct Layout {
    int present;
    Geo g;
} Layout;

static int layout_of(const TmArg *a, Layout *l, OpCtx *ctx)
{
    l->present = a->t != NULL;
    if (!a->t) return 0;
    if (a->cast) return tensorops_clone_geo(a->t, &l->g, ctx);
    geo_of(a->t, &l->g);
    return 0;
}

/* The output strides TensorIterator gives nin inputs broadcast to shape (n
 * dims; st[i]: input i's layout strides at that shape). */
static void iter_strides(int nin, const Layout *in, long st[][NMAX], int n, const long *shape,
                         long *out)
{
    int same = 1, contig = 1, dense = 1;
    for (int i = 0; i < nin; i++) {
        if (!in[i].present) {
            same = 0; /* a scalar is a 0-dim tensor: not the same shape */
            continue;
        }
        same &= in[i].g.n == n && !memcmp(in[i].g.size, shape, sizeof(long) * (size_t)n);
        contig &= geo_contiguous(&in[i].g);
        dense &= geo_dense(&in[i].g);
    }
    if (same && !contig && dense) { /* NON_OVERLAPPING_DENSE: the inputs' strides, if one */
        int equal = 1;
        for (int i = 1; i < nin; i++)
            equal &= !memcmp(in[i].g.stride, in[0].g.stride, sizeof(long) * (size_t)n);
        if (equal) {
            memcpy(out, in[0].g.stride, sizeof(long) * (size_t)n);
            return;
        }
    }
    int perm[NMAX]; /* perm[0]: the fastest-moving dim */
    for (int i = 0; i < n; i++)
        perm[i] = n - 1 - i;
    if (!(same && contig)) /* reorder_dimensions' insertion sort */
        for (int i = 1; i < n; i++) {
            int d1 = i;
            for (int d0 = i - 1; d0 >= 0; d0--) {
                int cmp = 0, x = perm[d0], y = perm[d1];
                for (int a = 0; a < nin && !cmp; a++) {
                    long s0 = st[a][x], s1 = st[a][y];
                    if (!in[a].present || s0 == 0 || s1 == 0) continue;
                    if (s0 != s1)
                        cmp = s0 < s1 ? -1 : 1;
                    else if (shape[x] > shape[y])
                        cmp = 1;
                }
                if (cmp > 0) {
                    int t = perm[d0];
                    perm[d0] = perm[d1], perm[d1] = t;
                    d1 = d0;
                } else if (cmp < 0)
                    break;
            }
        }
    int inverted = 1;
    for (int i = 0; i < n; i++)
        inverted &= perm[i] == n - 1 - i;
    if (inverted) {
        Geo g = {.n = n};
        memcpy(g.size, shape, sizeof(long) * (size_t)n);
        OpCtx quiet = {0};
        geo_contiguous_strides(&g, &quiet);
        memcpy(out, g.stride, sizeof(long) * (size_t)n);
        return;
    }
    long next = 1; /* compatible_stride, in perm order */
    for (int i = 0; i < n; i++) {
        out[perm[i]] = next;
        next *= shape[perm[i]];
    }
}

/* The storage offset of the row-major logical index idx through strides st. */
static size_t at(const Tensor *t, const long *st, const int *idx, int n)
{
    long o = (long)t->offset;
    for (int i = 0; i < n; i++)
        o += idx[i] * st[i];
    return (size_t)o;
}

static int next_idx(int *idx, int n, const long *shape)
{
    for (int i = n - 1; i >= 0; i--) {
        if (++idx[i] < shape[i]) return 1;
        idx[i] = 0;
    }
    return 0;
}

/* t is numel elements laid out row-major from its offset (its own shape). */
static int flat(const Tensor *t, size_t numel)
{
    return tensorops_numel(t) == numel && tensorops_is_contiguous(t);
}

/* float32 a ** b as ATen's pow kernels compute it: the exponents they
 * special-case (Pow.cpp, PowKernel.cpp: 0, 1, 2, 3, 0.5, -0.5, -1, -2) by
 * their formulas, the rest as pow rounded to float32 (ATen's Sleef pow is
 * within 1 ulp of it). */
static float powf_aten(float a, float b)
{
    if (b == 0) return 1;
    if (b == 1) return a;
    if (b == 2) return a * a;
    if (b == 3) return a * a * a;
    if (b == 0.5f) return sqrtf(a);
    if (b == -0.5f) return 1.0f / sqrtf(a);
    if (b == -1) return 1.0f / a;
    if (b == -2) return 1.0f / (a * a);
    return (float)pow((double)a, (double)b);
}

/* int64 a ** b as ATen's powi: by squaring, wrapping as int64 does; a
 * negative b gives 1 for a 1, +-1 for a -1, else 0. */
static long long powi_aten(long long a, long long b)
{
    if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
    unsigned long long r = 1, base = (unsigned long long)a;
    for (; b; b >>= 1, base *= base)
        if (b & 1) r *= base;
    return (long long)r;
}

/* A comparison (E == N != < L <= > G >=) from a's order against b: lt, eq
 * and gt all 0 for a NaN, so only != holds, as IEEE says. */
static float compare(int op, int lt, int eq, int gt)
{
    switch (op) {
    case 'E':
        return eq;
    case 'N':
        return !eq;
    case '<':
        return lt;
    case 'L':
        return lt || eq;
    case '>':
        return gt;
    default:
        return gt || eq;
    }
}

static float apply(int op, double x, double y, TmType type)
{
    if (type == TM_FLOAT) {
        float a = (float)x, b = (float)y;
        switch (op) {
        case '+':
            return a + b;
        case '-':
            return a - b;
        case '*':
            return a * b;
        case '/':
            return a / b;
        case 'r':
            return (1.0f / b) * a;
        case 'P':
            return powf_aten(a, b);
        default:
            return compare(op, a<b, a == b, a> b);
        }
    }
    if (type == TM_BOOL && (op == '+' || op == '*'))
        return op == '+' ? (x != 0 || y != 0) : (x != 0 && y != 0);
    long long a = (long long)x, b = (long long)y;
    switch (op) {
    case 'P':
        return (float)powi_aten(a, b);
    case '+':
        return (float)(long long)((unsigned long long)a + (unsigned long long)b);
    case '-':
        return (float)(long long)((unsigned long long)a - (unsigned long long)b);
    case '*':
        return (float)(long long)((unsigned long long)a * (unsigned long long)b);
    default:
        return compare(op, a<b, a == b, a> b);
    }
}

Tensor *tensormath_binary(int op, TmArg a, TmArg b, TmType type, OpCtx *ctx)
{
    long sa[NMAX] = {0}, sb[NMAX] = {0}, shape[NMAX], st[2][NMAX] = {{0}}, ost[NMAX];
    int na = a.t ? a.t->ndim : 0, nb = b.t ? b.t->ndim : 0;
    if (a.t) sizes_of(a.t, sa);
    if (b.t) sizes_of(b.t, sb);
    int n = broadcast(na, sa, nb, sb, shape, ctx);
    if (n < 0) return NULL;
    Layout in[2];
    if (layout_of(&a, &in[0], ctx) < 0 || layout_of(&b, &in[1], ctx) < 0) return NULL;
    if (op == '/' && !a.t) { /* s / t is t.reciprocal() * s (torch/_tensor.py's __rdiv__) */
        long u[1][NMAX];
        broadcast_geo(&in[1].g, in[1].g.n, in[1].g.size, u[0]);
        iter_strides(1, &in[1], u, in[1].g.n, in[1].g.size, in[1].g.stride);
        op = 'r';
    }
    for (int i = 0; i < 2; i++) {
        if (in[i].present) broadcast_geo(&in[i].g, n, shape, st[i]);
    }
    iter_strides(2, in, st, n, shape, ost);
    if (a.t) broadcast_strides(a.t, n, shape, st[0]); /* now where the values are read */
    if (b.t) broadcast_strides(b.t, n, shape, st[1]);
    Geo g = {.n = n};
    memcpy(g.size, shape, sizeof(long) * (size_t)n);
    memcpy(g.stride, ost, sizeof(long) * (size_t)n);
    Tensor *r = new_result(&g, ctx);
    if (!r || geo_numel(n, shape) == 0) return r;
    int idx[NMAX] = {0};
    float *o = r->st->data;
    const float *da = a.t ? a.t->st->data : NULL, *db = b.t ? b.t->st->data : NULL;
    size_t numel = (size_t)geo_numel(n, shape);
    if (flat(r, numel) && (!a.t || flat(a.t, numel)) && (!b.t || flat(b.t, numel))) {
        da = da ? da + a.t->offset : NULL, db = db ? db + b.t->offset : NULL;
        for (size_t i = 0; i < numel; i++) /* the same values, in storage order */
            o[i] = apply(op, da ? da[i] : a.s, db ? db[i] : b.s, type);
        return r;
    }
    do {
        double x = da ? da[at(a.t, st[0], idx, n)] : a.s, y = db ? db[at(b.t, st[1], idx, n)] : b.s;
        o[at(r, ost, idx, n)] = apply(op, x, y, type);
    } while (next_idx(idx, n, shape));
    return r;
}

/* The float32 function op ('c' cos, 's' sin, 'e' exp, 'q' sqrt, 'r' rsqrt)
 * of v: libm's float functions (within ATen's 1 ulp of the exact value);
 * rsqrt is ATen's 1 / sqrt. */
static float unary(int op, float v)
{
    switch (op) {
    case 'c':
        return cosf(v);
    case 's':
        return sinf(v);
    case 'e':
        return expf(v);
    case 'q':
        return sqrtf(v);
    default:
        return 1.0f / sqrtf(v);
    }
}

Tensor *tensormath_unary(int op, const Tensor *t, int cast, OpCtx *ctx)
{
    int n = t->ndim;
    long shape[NMAX], st[1][NMAX], ost[NMAX];
    sizes_of(t, shape);
    TmArg a = {t, 0, cast};
    Layout in[1];
    if (layout_of(&a, &in[0], ctx) < 0) return NULL;
    broadcast_geo(&in[0].g, n, shape, st[0]);
    iter_strides(1, in, st, n, shape, ost);
    Geo g = {.n = n};
    memcpy(g.size, shape, sizeof(long) * (size_t)n);
    memcpy(g.stride, ost, sizeof(long) * (size_t)n);
    Tensor *r = new_result(&g, ctx);
    size_t numel = (size_t)geo_numel(n, shape);
    if (!r || numel == 0) return r;
    int idx[NMAX] = {0};
    do
        r->st->data[at(r, ost, idx, n)] = unary(op, t->st->data[at(t, t->strides, idx, n)]);
    while (next_idx(idx, n, shape));
    return r;
}

Tensor *tensormath_masked_fill(const Tensor *self, const Tensor *mask, int is_bool, double value,
                               OpCtx *ctx)
{
    long ss[NMAX], sm[NMAX], shape[NMAX], st_s[NMAX], st_m[NMAX];
    sizes_of(self, ss);
    sizes_of(mask, sm);
    int n = broadcast(mask->ndim, sm, self->ndim, ss, shape, ctx);
    if (n < 0) return NULL;
    broadcast_strides(self, n, shape, st_s);
    broadcast_strides(mask, n, shape, st_m);
    Tensor *r = new_contiguous(n, shape, ctx);
    if (!r || geo_numel(n, shape) == 0) return r;
    long ost[NMAX];
    for (int i = 0; i < n; i++)
        ost[i] = r->strides[i];
    int idx[NMAX] = {0};
    do {
        float m = mask->st->data[at(mask, st_m, idx, n)];
        if (!is_bool && m != 0 && m != 1) {
            tensor_free(r);
            err_set(ctx->err, sizeof ctx->err, "Mask tensor can take 0 and 1 values only");
            return NULL;
        }
        r->st->data[at(r, ost, idx, n)] =
            m != 0 ? (float)value : self->st->data[at(self, st_s, idx, n)];
    } while (next_idx(idx, n, shape));
    return r;
}

Tensor *tensormath_softmax(const Tensor *t, long dim, OpCtx *ctx)
{
    int d = tensorops_wrap_dim(dim, t->ndim, ctx);
    if (d < 0) return NULL;
    long shape[NMAX];
    sizes_of(t, shape);
    Tensor *r = new_contiguous(t->ndim, shape, ctx);
    size_t numel = tensorops_numel(t);
    if (!r || numel == 0) return r;
    if (t->ndim == 0) {
        r->st->data[0] = 1;
        return r;
    }
    long ost[NMAX];
    int idx[NMAX] = {0};
    for (int i = 0; i < t->ndim; i++)
        ost[i] = r->strides[i];
    if (tensorops_is_contiguous(t) && t->offset == 0 && t->st->n == numel)
        memcpy(r->st->data, t->st->data, numel * sizeof(float));
    else
        do
            r->st->data[at(r, ost, idx, t->ndim)] = t->st->data[at(t, t->strides, idx, t->ndim)];
        while (next_idx(idx, t->ndim, shape));
    /* the rows along d: r with d moved last (a view), softmaxed in place */
    Tensor *v = d == t->ndim - 1 ? tensorops_alias(r) : tensorops_transpose(r, d, -1, ctx);
    if (!v) {
        tensor_free(r);
        return NULL;
    }
    tensor_softmax_lastdim_(v);
    tensor_free(v);
    return r;
}

/* a (..., m, k) @ b (..., k, n) with equal batch dims (already broadcast):
 * a new result in ctx->eng, contiguous, or (mt) laid out as PyTorch's
 * b.mT() @ a.t() fold leaves it: (..., n, m) contiguous, seen transposed,
 * when m or n is 1 (then .contiguous() keeps it), else contiguous.  (A
 * size-1 dim's stride can still differ from PyTorch's, whose fold depends on
 * b's strides: tests/ref_play_math.py compares the others.) */
static Tensor *matmul_batched(const Tensor *a, const Tensor *b, int mt, OpCtx *ctx)
{
    int nd = a->ndim;
    long shape[NMAX];
    sizes_of(a, shape);
    shape[nd - 1] = b->shape[b->ndim - 1];
    Tensor *r;
    if (mt && (shape[nd - 1] == 1 || shape[nd - 2] == 1)) {
        Geo g = {.n = nd};
        memcpy(g.size, shape, sizeof(long) * (size_t)nd);
        g.size[nd - 2] = shape[nd - 1], g.size[nd - 1] = shape[nd - 2];
        if (geo_contiguous_strides(&g, ctx) < 0) return NULL;
        long t = g.stride[nd - 1];
        g.stride[nd - 1] = g.stride[nd - 2], g.stride[nd - 2] = t;
        memcpy(g.size, shape, sizeof(long) * (size_t)nd);
        r = new_result(&g, ctx);
        if (r && geo_numel(nd, shape) > 0 && a->shape[nd - 1] > 0) { /* computed, then laid out */
            Tensor *c = new_contiguous(nd, shape, ctx);
            if (!c || tensor_matmul_into(c, a, b, ctx->err, sizeof ctx->err) < 0) {
                tensor_free(c);
                tensor_free(r);
                return NULL;
            }
            memcpy(r->st->data, c->st->data, tensor_numel(c) * sizeof(float));
            tensor_free(c); /* m or n is 1: the same order in memory */
        }
        return r;
    }
    r = new_contiguous(nd, shape, ctx);
    if (!r || geo_numel(nd, shape) == 0 || a->shape[nd - 1] == 0) return r; /* k 0: zeros */
    if (tensor_matmul_into(r, a, b, ctx->err, sizeof ctx->err) < 0) {
        tensor_free(r);
        return NULL;
    }
    return r;
}

static Tensor *matmul(const Tensor *a, const Tensor *b, int check_only, OpCtx *ctx);

int tensormath_matmul_check(const Tensor *a, const Tensor *b, OpCtx *ctx)
{
    Tensor *r = matmul(a, b, 1, ctx);
    if (!r) return ctx->err[0] ? -1 : 0;
    tensor_free(r);
    return 0;
}

Tensor *tensormath_matmul(const Tensor *a, const Tensor *b, OpCtx *ctx)
{
    return matmul(a, b, 0, ctx);
}

/* torch.matmul's checks in its order and, unless check_only (then NULL
 * with ctx->err "" when the shapes are fine), the product. */
static Tensor *matmul(const Tensor *a, const Tensor *b, int check_only, OpCtx *ctx)
{
    ctx->err[0] = 0;
    int da = a->ndim, db = b->ndim;
    if (da == 0 || db == 0)
        return FAIL(ctx,
                    "both arguments to matmul need to be at least 1D, but they are %dD and %dD", da,
                    db);
    long k = a->shape[da - 1], kb = db == 1 ? b->shape[0] : b->shape[db - 2];
    if (db <= 2 && k != kb) { /* dot, mv or mm (a's batch folded into its rows) */
        long rows = 1;
        for (int i = 0; i < da - 1; i++)
            rows *= a->shape[i];
        if (da == 1 && db == 1)
            return FAIL(ctx,
                        "inconsistent tensor size, expected tensor [%ld] and src [%ld] to have "
                        "the same number of elements, but got %ld and %ld elements respectively",
                        k, kb, k, kb);
        if (db == 1) return FAIL(ctx, "size mismatch, got %ld, %ldx%ld,%ld", rows, rows, k, kb);
        return FAIL(ctx, "mat1 and mat2 shapes cannot be multiplied (%ldx%ld and %ldx%d)", rows, k,
                    kb, b->shape[1]);
    }
    if (da <= 2 && db >= 3 && k != kb) { /* folded as b.mT() @ a.t(): b's batch into its rows */
        long rows = b->shape[db - 1];
        for (int i = 0; i < db - 2; i++)
            rows *= b->shape[i];
        if (da == 1) return FAIL(ctx, "size mismatch, got %ld, %ldx%ld,%ld", rows, rows, kb, k);
        return FAIL(ctx, "mat1 and mat2 shapes cannot be multiplied (%ldx%ld and %ldx%d)", rows, kb,
                    k, a->shape[0]);
    }
    /* 1-D operands as matrices: a row (1, k), a column (k, 1); squeezed after */
    Tensor *A = da == 1 ? tensorops_unsqueeze(a, 0, ctx) : tensorops_alias(a);
    Tensor *B = db == 1 ? tensorops_unsqueeze(b, 1, ctx) : tensorops_alias(b);
    Tensor *EA = NULL, *EB = NULL, *R = NULL, *out = NULL;
    if (!A || !B) goto done;
    long ba[NMAX], bb[NMAX], batch[NMAX], s[NMAX];
    int nA = A->ndim, nB = B->ndim;
    sizes_of(A, ba);
    sizes_of(B, bb);
    int nb = broadcast(nA - 2, ba, nB - 2, bb, batch, ctx);
    if (nb < 0 || nb + 2 > NMAX) {
        if (nb >= 0) (void)FAIL(ctx, "mhaviz play keeps at most %d dimensions", NMAX);
        goto done;
    }
    if (A->shape[nA - 1] != B->shape[nB - 2]) {
        long bs = 1;
        for (int i = 0; i < nb; i++)
            bs *= batch[i];
        (void)FAIL(
            ctx,
            "Expected size for first two dimensions of batch2 tensor to be: [%ld, %d] but got: "
            "[%ld, %d].",
            bs, A->shape[nA - 1], bs, B->shape[nB - 2]);
        goto done;
    }
    memcpy(s, batch, sizeof(long) * (size_t)nb);
    s[nb] = A->shape[nA - 2], s[nb + 1] = A->shape[nA - 1];
    if (check_only) goto done;
    if (!(EA = tensorops_expand(A, nb + 2, s, ctx))) goto done;
    s[nb] = B->shape[nB - 2], s[nb + 1] = B->shape[nB - 1];
    /* a 2-D b is shared by every batch index (x @ W): tensor_matmul packs it once */
    if (!(EB = nB == 2 && nb > 0 ? tensorops_alias(B) : tensorops_expand(B, nb + 2, s, ctx)))
        goto done;
    if (!(R = matmul_batched(EA, EB, da == 2 && db >= 3, ctx))) goto done;
    if (da == 1 && db == 1)
        out = tensorops_squeeze(R, 2, (long[]){-2, -1}, ctx);
    else if (da == 1 || db == 1)
        out = tensorops_squeeze(R, 1, (long[]){da == 1 ? -2 : -1}, ctx);
    else
        out = tensorops_alias(R);
done:
    tensor_free(A);
    tensor_free(B);
    tensor_free(EA);
    tensor_free(EB);
    tensor_free(R);
    return out;
}

Tensor *tensormath_convert(const Tensor *t, TmType type, OpCtx *ctx)
{
    Geo g;
    if (tensorops_clone_geo(t, &g, ctx) < 0) return NULL;
    Tensor *r = new_result(&g, ctx);
    if (!r || tensorops_numel(t) == 0) return r;
    int idx[NMAX] = {0};
    long shape[NMAX];
    sizes_of(t, shape);
    do {
        float v = t->st->data[at(t, t->strides, idx, t->ndim)];
        r->st->data[at(r, r->strides, idx, t->ndim)] = type == TM_BOOL  ? (float)(v != 0)
                                                       : type == TM_INT ? truncf(v)
                                                                        : v;
    } while (next_idx(idx, t->ndim, shape));
    return r;
}
