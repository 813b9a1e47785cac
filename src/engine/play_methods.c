/* play_methods.c - the tensor methods, attributes and torch.* functions the
 * playground knows, each bound to its arguments the way Python binds them
 * (positional, then keywords) and run with engine/tensorops.h. */
#include "base/errbuf.h"
#include "engine/play_val.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EFAIL(e, ...) (err_set((e)->ops.err, sizeof(e)->ops.err, __VA_ARGS__), -1)

typedef char Kw[PLAY_NAME_MAX];

/* ---- argument binding ---------------------------------------------------------- */

/* Binds args to params[0..np-1] (the first nreq required); slot[i] is the
 * argument of params[i] or NULL when omitted. */
static int bind(Eval *e, const char *fn, const char *const *params, int np, int nreq, Val *args,
                Kw *kw, int n, Val **slot)
{
    for (int i = 0; i < np; i++)
        slot[i] = NULL;
    int pos = 0;
    for (int i = 0; i < n; i++) {
        if (!kw[i][0]) {
            if (pos >= np)
                return EFAIL(e, "%s() takes %d argument%s but %d were given", fn, np,
                             np == 1 ? "" : "s", n);
            slot[pos++] = &args[i];
            continue;
        }
        int k = 0;
        while (k < np && strcmp(params[k], kw[i]))
            k++;
        if (k == np) return EFAIL(e, "%s() got an unexpected keyword argument '%s'", fn, kw[i]);
        if (slot[k]) return EFAIL(e, "%s() got multiple values for argument '%s'", fn, kw[i]);
        slot[k] = &args[i];
    }
    for (int i = 0; i < nreq; i++)
        if (!slot[i]) return EFAIL(e, "%s() missing required argument '%s'", fn, params[i]);
    return 0;
}

int play_bind(Eval *e, const char *fn, const char *const *params, int np, int nreq, Val *args,
              Kw *kw, int n, Val **slot)
{
    return bind(e, fn, params, np, nreq, args, kw, n, slot);
}

static int as_int(Eval *e, const char *fn, const char *param, const Val *v, long *out)
{
    if (v->k != V_INT)
        return EFAIL(e, "%s(): argument '%s' must be int, not %s", fn, param, val_type_name(v));
    *out = v->i;
    return 0;
}

/* An optional int: 1 and *out set, 0 when omitted or None, -1 on error. */
static int opt_int(Eval *e, const char *fn, const char *param, const Val *v, long *out)
{
    if (!v || v->k == V_NONE) return 0;
    return as_int(e, fn, param, v, out) < 0 ? -1 : 1;
}

/* *sizes: several ints, or one tuple/list/torch.Size. */
static int get_sizes(Eval *e, const char *fn, Val *args, Kw *kw, int n, long *out, int *count)
{
    for (int i = 0; i < n; i++)
        if (kw[i][0]) return EFAIL(e, "%s() got an unexpected keyword argument '%s'", fn, kw[i]);
    if (n == 0) {
        static const char *const need[][2] = {{"permute", "dims"},
                                              {"repeat", "repeats"},
                                              {"expand", "size"},
                                              {"reshape", "shape"},
                                              {"flip", "dims"}};
        for (size_t i = 0; i < sizeof need / sizeof *need; i++)
            if (!strcmp(fn, need[i][0]))
                return EFAIL(e, "%s() missing 1 required positional arguments: \"%s\"", fn,
                             need[i][1]);
        return EFAIL(e,
                     "%s() received an invalid combination of arguments - got (), but expected "
                     "(tuple of ints %s)",
                     fn, fn[0] == 'v' ? "shape" : "size");
    }
    if (n == 1 && args[0].k == V_SEQ) {
        *count = args[0].n;
        memcpy(out, args[0].seq, sizeof(long) * (size_t)args[0].n);
        return 0;
    }
    for (int i = 0; i < n; i++)
        if (args[i].k != V_INT)
            return EFAIL(e,
                         "%s(): argument 'size' must be tuple of ints, but found element of "
                         "type %s at pos %d",
                         fn, val_type_name(&args[i]), i);
        else
            out[i] = args[i].i;
    *count = n;
    return 0;
}

static int no_args(Eval *e, const char *fn, int n)
{
    return n ? EFAIL(e, "%s() takes no arguments (%d given)", fn, n) : 0;
}

/* The op's result into out; the copies it made (the session engine's count
 * since before, in float32 bytes) are counted in bytes of dt. */
static int ret(Eval *e, Tensor *t, PlayDtype dt, size_t before, Val *out)
{
    if (!t) return -1;
    e->copied_bytes += (e->ops.eng->bytes_copied - before) / sizeof(float) * play_dtype_size(dt);
    *out = (Val){.k = V_TENSOR, .t = t, .dtype = dt};
    return 0;
}

static void ret_int(Val *out, long v)
{
    *out = (Val){.k = V_INT, .i = v};
}

static void ret_seq(Val *out, int n, const long *v, int is_size)
{
    *out = (Val){.k = V_SEQ, .n = n, .is_size = is_size};
    memcpy(out->seq, v, sizeof(long) * (size_t)n);
}

/* ---- queries ------------------------------------------------------------------ */

static void sizes_of(const Tensor *t, long *v)
{
    for (int i = 0; i < t->ndim; i++)
        v[i] = t->shape[i];
}

/* size(dim=None) and stride(dim=None) */
static int query_dim(Eval *e, const Tensor *t, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"dim"};
    Val *s[1];
    long d, v[TENSOR_MAXDIM];
    int is_size = fn[1] == 'i';
    if (bind(e, fn, params, 1, 0, args, kw, n, s) < 0) return -1;
    int has = opt_int(e, fn, "dim", s[0], &d);
    if (has < 0) return -1;
    if (!has) {
        for (int i = 0; i < t->ndim; i++)
            v[i] = is_size ? t->shape[i] : t->strides[i];
        ret_seq(out, t->ndim, v, is_size);
        return 0;
    }
    if (t->ndim == 0) return EFAIL(e, "Dimension specified as %ld but tensor has no dimensions", d);
    int w = tensorops_wrap_dim(d, t->ndim, &e->ops);
    if (w < 0) return -1;
    ret_int(out, is_size ? t->shape[w] : t->strides[w]);
    return 0;
}

/* ---- attributes ----------------------------------------------------------------- */

static int a_shape(Eval *e, const Val *self, Val *out)
{
    long v[TENSOR_MAXDIM];
    (void)e;
    sizes_of(self->t, v);
    ret_seq(out, self->t->ndim, v, 1);
    return 0;
}

static int a_ndim(Eval *e, const Val *self, Val *out)
{
    (void)e;
    ret_int(out, self->t->ndim);
    return 0;
}

static int a_dtype(Eval *e, const Val *self, Val *out)
{
    (void)e;
    *out = (Val){.k = V_STR, .str = play_dtype_name(self->dtype)};
    return 0;
}

static int a_T(Eval *e, const Val *self, Val *out)
{
    const Tensor *t = self->t;
    size_t before = e->ops.eng->bytes_copied;
    if (t->ndim != 2 && t->ndim != 0)
        snprintf(e->warning, sizeof e->warning,
                 "UserWarning: The use of `x.T` on tensors of dimension other than 2 to "
                 "reverse their shape is deprecated and it will throw an error in a future "
                 "release. Consider `x.mT` to transpose batches of matrices or "
                 "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions "
                 "of a tensor.");
    return ret(e, tensorops_numpy_T(t, &e->ops), self->dtype, before, out);
}

static int a_mT(Eval *e, const Val *self, Val *out)
{
    size_t before = e->ops.eng->bytes_copied;
    if (self->t->ndim == 0)
        snprintf(e->warning, sizeof e->warning,
                 "UserWarning: Tensor.mT is deprecated on 0-D tensors. This function is the "
                 "identity in these cases.");
    if (ret(e, tensorops_mT(self->t, &e->ops), self->dtype, before, out) < 0) return -1;
    if (self->t->ndim == 0) out->name = self->name; /* the identity: PyTorch returns self */
    return 0;
}

/* ---- methods ------------------------------------------------------------------- */

/* transpose(dim0, dim1) and its aliases */
static int m_transpose(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const dims[] = {"dim0", "dim1"}, *const axes[] = {"axis0", "axis1"};
    Val *s[2];
    long a = 0, b = 0;
    size_t before = e->ops.eng->bytes_copied;
    const char *const *params = !strcmp(fn, "swapaxes") ? axes : dims;
    if (bind(e, fn, params, 2, 2, args, kw, n, s) < 0 || as_int(e, fn, params[0], s[0], &a) < 0 ||
        as_int(e, fn, params[1], s[1], &b) < 0)
        return -1;
    return ret(e, tensorops_transpose(self->t, a, b, &e->ops), self->dtype, before, out);
}

/* view / reshape / expand / repeat / permute: (*sizes) */
static int m_sizes(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    long v[PLAY_MAX_KIDS];
    int k;
    size_t before = e->ops.eng->bytes_copied;
    const Tensor *t = self->t;
    if (get_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    e->ops.type_name = self->dtype == PD_INT64  ? "torch.LongTensor"
                       : self->dtype == PD_BOOL ? "torch.BoolTensor"
                                                : "torch.FloatTensor";
    Tensor *r = !strcmp(fn, "view")      ? tensorops_view(t, k, v, &e->ops)
                : !strcmp(fn, "reshape") ? tensorops_reshape(t, k, v, &e->ops)
                : !strcmp(fn, "expand")  ? tensorops_expand(t, k, v, &e->ops)
                : !strcmp(fn, "repeat")  ? tensorops_repeat(t, k, v, &e->ops)
                                         : tensorops_permute(t, k, v, &e->ops);
    return ret(e, r, self->dtype, before, out);
}

/* view_as / reshape_as / expand_as (other) */
static int m_as(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"other"};
    Val *s[1], sz = {0};
    if (bind(e, fn, params, 1, 1, args, kw, n, s) < 0) return -1;
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "%s(): argument 'other' must be Tensor, not %s", fn, val_type_name(s[0]));
    sz.k = V_SEQ;
    sz.n = s[0]->t->ndim;
    sizes_of(s[0]->t, sz.seq);
    Kw none = "";
    char base[16];
    snprintf(base, sizeof base, "%.*s", (int)(strlen(fn) - 3), fn);
    return m_sizes(e, self, base, &sz, &none, 1, out);
}

static int m_unsqueeze(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"dim"};
    Val *s[1];
    long d = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, "unsqueeze", params, 1, 1, args, kw, n, s) < 0 ||
        as_int(e, "unsqueeze", "dim", s[0], &d) < 0)
        return -1;
    return ret(e, tensorops_unsqueeze(self->t, d, &e->ops), self->dtype, before, out);
}

static int m_squeeze(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"dim"};
    Val *s[1];
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, "squeeze", params, 1, 0, args, kw, n, s) < 0) return -1;
    Tensor *r;
    if (!s[0] || s[0]->k == V_NONE)
        r = tensorops_squeeze(self->t, -1, NULL, &e->ops);
    else if (s[0]->k == V_SEQ)
        r = tensorops_squeeze(self->t, s[0]->n, s[0]->seq, &e->ops);
    else if (s[0]->k == V_INT)
        r = tensorops_squeeze(self->t, 1, &s[0]->i, &e->ops);
    else
        return EFAIL(e, "squeeze(): argument 'dim' must be int or tuple of ints, not %s",
                     val_type_name(s[0]));
    return ret(e, r, self->dtype, before, out);
}

static int m_flatten(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"start_dim", "end_dim"};
    Val *s[2];
    long a = 0, b = -1;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, "flatten", params, 2, 0, args, kw, n, s) < 0 ||
        (s[0] && as_int(e, "flatten", "start_dim", s[0], &a) < 0) ||
        (s[1] && as_int(e, "flatten", "end_dim", s[1], &b) < 0))
        return -1;
    if (ret(e, tensorops_flatten(self->t, a, b, &e->ops), self->dtype, before, out) < 0) return -1;
    /* ATen's flatten returns self when start_dim == end_dim (a 0-dim tensor is reshaped) */
    if (self->t->ndim > 0 && tensorops_wrap_dim(a, self->t->ndim, &e->ops) ==
                                 tensorops_wrap_dim(b, self->t->ndim, &e->ops))
        out->name = self->name;
    return 0;
}

static int m_unflatten(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"dim", "sizes"};
    Val *s[2];
    long d = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, "unflatten", params, 2, 2, args, kw, n, s) < 0 ||
        as_int(e, "unflatten", "dim", s[0], &d) < 0)
        return -1;
    if (s[1]->k != V_SEQ)
        return EFAIL(e, "unflatten(): argument 'sizes' must be tuple of ints, not %s",
                     val_type_name(s[1]));
    return ret(e, tensorops_unflatten(self->t, d, s[1]->n, s[1]->seq, &e->ops), self->dtype, before,
               out);
}

static int m_narrow(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"dim", "start", "length"};
    Val *s[3];
    long d = 0, st = 0, len = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, "narrow", params, 3, 3, args, kw, n, s) < 0 ||
        as_int(e, "narrow", "dim", s[0], &d) < 0 || as_int(e, "narrow", "start", s[1], &st) < 0 ||
        as_int(e, "narrow", "length", s[2], &len) < 0)
        return -1;
    return ret(e, tensorops_narrow(self->t, d, st, len, &e->ops), self->dtype, before, out);
}

static int m_repeat_interleave(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n,
                               Val *out)
{
    (void)fn;
    static const char *const params[] = {"repeats", "dim"};
    Val *s[2];
    long reps = 0, d = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, "repeat_interleave", params, 2, 1, args, kw, n, s) < 0 ||
        as_int(e, "repeat_interleave", "repeats", s[0], &reps) < 0)
        return -1;
    int has = opt_int(e, "repeat_interleave", "dim", s[1], &d);
    if (has < 0) return -1;
    return ret(e, tensorops_repeat_interleave(self->t, reps, has, d, &e->ops), self->dtype, before,
               out);
}

/* t() contiguous() clone(): no arguments.  contiguous() of a contiguous
 * tensor returns the tensor itself, as PyTorch does (a.contiguous() is a;
 * so do flatten(d, d) and a 0-dim .mT, checked by tests/ref_play.py --torch). */
static int m_noargs(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    const Tensor *t = self->t;
    size_t before = e->ops.eng->bytes_copied;
    (void)args;
    (void)kw;
    if (no_args(e, fn, n) < 0) return -1;
    if (fn[0] == 't') return ret(e, tensorops_t(t, &e->ops), self->dtype, before, out);
    if (fn[0] == 'c' && fn[1] == 'l')
        return ret(e, tensorops_clone(t, &e->ops), self->dtype, before, out);
    int same = tensorops_is_contiguous(t);
    if (ret(e, tensorops_contiguous(t, &e->ops), self->dtype, before, out) < 0) return -1;
    if (same) out->name = self->name;
    return 0;
}

/* size(dim=None), stride(dim=None) */
static int m_size_stride(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n,
                         Val *out)
{
    return query_dim(e, self->t, fn, args, kw, n, out);
}

/* The queries without arguments: storage_offset() is_contiguous() dim()
 * ndimension() numel() nelement() element_size() */
static int m_query(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    const Tensor *t = self->t;
    (void)args;
    (void)kw;
    if (no_args(e, fn, n) < 0) return -1;
    if (!strcmp(fn, "storage_offset"))
        ret_int(out, (long)t->offset);
    else if (!strcmp(fn, "is_contiguous"))
        *out = (Val){.k = V_BOOL, .i = tensorops_is_contiguous(t)};
    else if (!strcmp(fn, "dim") || !strcmp(fn, "ndimension"))
        ret_int(out, t->ndim);
    else if (!strcmp(fn, "numel") || !strcmp(fn, "nelement"))
        ret_int(out, (long)tensorops_numel(t));
    else
        ret_int(out, (long)play_dtype_size(self->dtype));
    return 0;
}

/* neg(), tril(diagonal=0), triu(diagonal=0): new tensors, counted as written */
static int m_elementwise(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n,
                         Val *out)
{
    static const char *const params[] = {"diagonal"};
    Val *s[1];
    long diag = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (fn[0] == 'n') {
        if (no_args(e, fn, n) < 0) return -1;
        return ret(e, tensorops_neg(self->t, &e->ops), self->dtype, before, out);
    }
    if (bind(e, fn, params, 1, 0, args, kw, n, s) < 0 ||
        (s[0] && as_int(e, fn, "diagonal", s[0], &diag) < 0))
        return -1;
    return ret(e, tensorops_tri(self->t, diag, fn[1] == 'r' && fn[3] == 'u', &e->ops), self->dtype,
               before, out);
}

/* ---- pieces and moved dims ------------------------------------------------------- */

/* The pieces (views) into a tuple of tensors of self's dtype. */
static int ret_pieces(Eval *e, int k, Tensor **ts, PlayDtype dt, Val *out)
{
    if (k < 0) return -1;
    *out = (Val){.k = V_TENSORS, .n = k};
    for (int i = 0; i < k; i++) {
        out->ts[i] = ts[i];
        out->tdt[i] = dt;
    }
    (void)e;
    return 0;
}

/* chunk(chunks, dim=0), split(split_size, dim=0) (an int or a list of
 * sizes: split_with_sizes), unbind(dim=0): a tuple of views */
static int m_pieces(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const chunk[] = {"chunks", "dim"}, *const split[] = {"split_size", "dim"},
                             *const unbind[] = {"dim"};
    Tensor *ts[PLAY_MAX_KIDS];
    Val *s[2];
    long a = 0, d = 0;
    int k;
    if (fn[0] == 'u') {
        if (bind(e, fn, unbind, 1, 0, args, kw, n, s) < 0 ||
            (s[0] && as_int(e, fn, "dim", s[0], &d) < 0))
            return -1;
        k = tensorops_unbind(self->t, d, ts, PLAY_MAX_KIDS, &e->ops);
        return ret_pieces(e, k, ts, self->dtype, out);
    }
    const char *const *params = fn[0] == 'c' ? chunk : split;
    if (bind(e, fn, params, 2, 1, args, kw, n, s) < 0 ||
        (s[1] && as_int(e, fn, "dim", s[1], &d) < 0))
        return -1;
    if (fn[0] == 's' && s[0]->k == V_SEQ)
        k = tensorops_split_sizes(self->t, s[0]->n, s[0]->seq, d, ts, PLAY_MAX_KIDS, &e->ops);
    else if (fn[0] == 's' && s[0]->k != V_INT)
        return EFAIL(e,
                     "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of "
                     "ints, not %s",
                     val_type_name(s[0]));
    else if (as_int(e, fn, params[0], s[0], &a) < 0)
        return -1;
    else
        k = fn[0] == 'c' ? tensorops_chunk(self->t, a, d, ts, PLAY_MAX_KIDS, &e->ops)
                         : tensorops_split(self->t, a, d, ts, PLAY_MAX_KIDS, &e->ops);
    return ret_pieces(e, k, ts, self->dtype, out);
}

static int m_select(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"dim", "index"};
    Val *s[2];
    long d = 0, i = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, fn, params, 2, 2, args, kw, n, s) < 0 || as_int(e, fn, "dim", s[0], &d) < 0 ||
        as_int(e, fn, "index", s[1], &i) < 0)
        return -1;
    return ret(e, tensorops_select_dim(self->t, d, i, &e->ops), self->dtype, before, out);
}

/* an int or a tuple of ints, as movedim's source and destination */
static int int_or_ints(Eval *e, const char *fn, const char *param, const Val *v, long *out, int *n)
{
    if (v->k == V_INT) {
        out[0] = v->i;
        *n = 1;
        return 0;
    }
    if (v->k != V_SEQ)
        return EFAIL(e, "%s(): argument '%s' must be tuple of ints, not %s", fn, param,
                     val_type_name(v));
    memcpy(out, v->seq, sizeof(long) * (size_t)v->n);
    *n = v->n;
    return 0;
}

static int m_movedim(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"source", "destination"};
    Val *s[2];
    long src[PLAY_MAX_KIDS], dst[PLAY_MAX_KIDS];
    int ns = 0, nd = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, fn, params, 2, 2, args, kw, n, s) < 0 ||
        int_or_ints(e, fn, "source", s[0], src, &ns) < 0 ||
        int_or_ints(e, fn, "destination", s[1], dst, &nd) < 0)
        return -1;
    if (ns != nd) {
        char a[160], b[160];
        return EFAIL(e,
                     "movedim: Invalid source or destination dims: source (%s dims) should "
                     "contain the same number of dims as destination (%s dims)",
                     geo_fmt_list(a, sizeof a, ns, src), geo_fmt_list(b, sizeof b, nd, dst));
    }
    return ret(e, tensorops_movedim(self->t, ns, src, dst, &e->ops), self->dtype, before, out);
}

/* index_select(dim, index): index an int64 tensor of at most 1 dim; a copy */
static int m_index_select(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n,
                          Val *out)
{
    static const char *const params[] = {"dim", "index"};
    Val *s[2];
    long d = 0, ix[TENSOROPS_MAX_STORAGE < 4096 ? TENSOROPS_MAX_STORAGE : 4096];
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, fn, params, 2, 2, args, kw, n, s) < 0 || as_int(e, fn, "dim", s[0], &d) < 0)
        return -1;
    if (s[1]->k != V_TENSOR)
        return EFAIL(e, "index_select(): argument 'index' (position 2) must be Tensor, not %s",
                     val_type_name(s[1]));
    const Tensor *it = s[1]->t;
    if (s[1]->dtype != PD_INT64)
        return EFAIL(e, "index_select(): Expected dtype int32 or int64 for index");
    if (it->ndim > 1) return EFAIL(e, "index_select(): Index is supposed to be a vector");
    int k = it->ndim ? it->shape[0] : 1;
    if ((size_t)k > sizeof ix / sizeof *ix)
        return EFAIL(e, "mhaviz play: an index of at most %zu entries", sizeof ix / sizeof *ix);
    for (int i = 0; i < k; i++)
        ix[i] =
            (long)it->st->data[it->offset + (size_t)i * (size_t)(it->ndim ? it->strides[0] : 0)];
    return ret(e, tensorops_index_select(self->t, d, k, ix, &e->ops), self->dtype, before, out);
}

/* flip(*dims): a copy, counted */
static int m_flip(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    long v[PLAY_MAX_KIDS];
    int k;
    size_t before = e->ops.eng->bytes_copied;
    if (get_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    return ret(e, tensorops_flip(self->t, k, v, &e->ops), self->dtype, before, out);
}

/* data_ptr(): the address of the first element, as a model a learner can
 * compare: each storage has its own base, PLAY_PTR_BASE + id * 2^32 (ids
 * are unique in a session), plus offset * element_size.  Not a real address. */
#define PLAY_PTR_BASE 0x7f0000000000L
/* copy_(src, non_blocking=False): src written into self in place
 * (play_write); returns self */
static int m_copy(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"src", "non_blocking"};
    Val *s[2];
    if (bind(e, fn, params, 2, 1, args, kw, n, s) < 0 ||
        play_write(e, self->t, self->dtype, s[0], 0) < 0)
        return -1;
    *out = (Val){
        .k = V_TENSOR, .t = tensorops_alias(self->t), .dtype = self->dtype, .name = self->name};
    return out->t ? 0 : EFAIL(e, "out of memory");
}

static int m_data_ptr(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)args;
    (void)kw;
    if (no_args(e, fn, n) < 0) return -1;
    const Tensor *t = self->t;
    ret_int(out, PLAY_PTR_BASE + ((long)t->st->id << 32) +
                     (long)t->offset * (long)play_dtype_size(self->dtype));
    return 0;
}

typedef int MethodFn(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out);
typedef int AttrFn(Eval *e, const Val *self, Val *out);

/* The one table of what a tensor has in the playground: each member is a
 * method (call) or an attribute (get).  The dispatch, tab completion and
 * the "supported: ..." list of the not-yet error all read it. */
static const struct {
    const char *name;
    MethodFn *call;
    AttrFn *get;
} members[] = {
    {"T", NULL, a_T},
    {"bool", play_m_convert, NULL},
    {"chunk", m_pieces, NULL},
    {"clone", m_noargs, NULL},
    {"contiguous", m_noargs, NULL},
    {"copy_", m_copy, NULL},
    {"cos", play_m_unary, NULL},
    {"data_ptr", m_data_ptr, NULL},
    {"dim", m_query, NULL},
    {"dtype", NULL, a_dtype},
    {"element_size", m_query, NULL},
    {"exp", play_m_unary, NULL},
    {"expand", m_sizes, NULL},
    {"expand_as", m_as, NULL},
    {"flatten", m_flatten, NULL},
    {"flip", m_flip, NULL},
    {"float", play_m_convert, NULL},
    {"index_select", m_index_select, NULL},
    {"is_contiguous", m_query, NULL},
    {"long", play_m_convert, NULL},
    {"mT", NULL, a_mT},
    {"masked_fill", play_m_masked_fill, NULL},
    {"matmul", play_m_matmul, NULL},
    {"movedim", m_movedim, NULL},
    {"narrow", m_narrow, NULL},
    {"ndim", NULL, a_ndim},
    {"ndimension", m_query, NULL},
    {"neg", m_elementwise, NULL},
    {"nelement", m_query, NULL},
    {"numel", m_query, NULL},
    {"permute", m_sizes, NULL},
    {"repeat", m_sizes, NULL},
    {"repeat_interleave", m_repeat_interleave, NULL},
    {"reshape", m_sizes, NULL},
    {"reshape_as", m_as, NULL},
    {"rsqrt", play_m_unary, NULL},
    {"select", m_select, NULL},
    {"shape", NULL, a_shape},
    {"sin", play_m_unary, NULL},
    {"size", m_size_stride, NULL},
    {"softmax", play_m_softmax, NULL},
    {"split", m_pieces, NULL},
    {"sqrt", play_m_unary, NULL},
    {"squeeze", m_squeeze, NULL},
    {"storage_offset", m_query, NULL},
    {"stride", m_size_stride, NULL},
    {"swapaxes", m_transpose, NULL},
    {"swapdims", m_transpose, NULL},
    {"t", m_noargs, NULL},
    {"transpose", m_transpose, NULL},
    {"tril", m_elementwise, NULL},
    {"triu", m_elementwise, NULL},
    {"unbind", m_pieces, NULL},
    {"unflatten", m_unflatten, NULL},
    {"unsqueeze", m_unsqueeze, NULL},
    {"view", m_sizes, NULL},
    {"view_as", m_as, NULL},
};
#define N_MEMBERS (int)(sizeof members / sizeof members[0])

static int member_find(const char *name)
{
    for (int i = 0; i < N_MEMBERS; i++)
        if (!strcmp(members[i].name, name)) return i;
    return -1;
}

const char *play_member_name(int i)
{
    return i >= 0 && i < N_MEMBERS ? members[i].name : NULL;
}

/* PyTorch 1.13 has prefix.name ("Tensor.chunk", "torch.randn"): the list
 * the caller gave the Play (Play.torch_names: assets/pytorch-1.13.names,
 * written by tests/torch_names.py from torch). */
static int pytorch_has(const Play *p, const char *prefix, const char *name)
{
    char needle[PLAY_NAME_MAX + 16];
    snprintf(needle, sizeof needle, "\n%s.%s\n", prefix, name);
    return p->torch_names && strstr(p->torch_names, needle) != NULL;
}

/* name is not in the playground: PyTorch's own AttributeError when PyTorch
 * has no such name either, else "`name` is not in the playground yet" with
 * the names it has, from the table (names(i): the i-th, NULL at the end). */
static int not_here(Eval *e, int torch, const char *name, const char *(*names)(int))
{
    if (!pytorch_has(e->p, torch ? "torch" : "Tensor", name))
        return torch ? EFAIL(e, "module 'torch' has no attribute '%s'", name)
                     : EFAIL(e, "'Tensor' object has no attribute '%s'", name);
    char list[sizeof e->ops.err];
    size_t k = 0;
    list[0] = 0;
    for (int i = 0; names(i) && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", names(i));
    return EFAIL(e, "`%s%s` is not in the playground yet (supported: %s)", torch ? "torch." : "",
                 name, list);
}

int play_get_attr(Eval *e, const Val *self, const char *name, Val *out)
{
    if (self->k == V_TORCH) {
        if (!strcmp(name, "float32") || !strcmp(name, "int64") || !strcmp(name, "float") ||
            !strcmp(name, "long") || !strcmp(name, "bool")) {
            *out = (Val){.k = V_STR,
                         .str = name[0] == 'f'   ? "torch.float32"
                                : name[0] == 'b' ? "torch.bool"
                                                 : "torch.int64"};
            return 0;
        }
        if (play_torch_name_known(name))
            return EFAIL(e, "torch.%s is a function: call it, torch.%s(...)", name, name);
        return not_here(e, 1, name, play_torch_name);
    }
    if (self->k != V_TENSOR)
        return EFAIL(e, "'%s' object has no attribute '%s'", val_type_name(self), name);
    int m = member_find(name);
    if (m < 0) return not_here(e, 0, name, play_member_name);
    if (members[m].get) return members[m].get(e, self, out);
    return EFAIL(e, "%s is a method: call it, %s(...)", name, name);
}

int play_call_method(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    int m = member_find(fn);
    if (m < 0) return not_here(e, 0, fn, play_member_name);
    if (members[m].call) return members[m].call(e, self, fn, args, kw, n, out);
    Val attr = {0}; /* Python: evaluate the attribute, then call what it is */
    if (members[m].get(e, self, &attr) < 0) return -1;
    int r = EFAIL(e, "'%s' object is not callable", val_type_name(&attr));
    val_free(&attr);
    return r;
}

/* ---- torch.* ------------------------------------------------------------------------ */

/* dtype=torch.X, the last keyword of arange/zeros/ones */
static int dtype_arg(Eval *e, const char *fn, const Val *d, PlayDtype *dt)
{
    if (d->k != V_STR || d->str[0] != 't')
        return EFAIL(e, "%s(): argument 'dtype' must be torch.dtype, not %s", fn, val_type_name(d));
    *dt = !strcmp(d->str, "torch.bool")    ? PD_BOOL
          : !strcmp(d->str, "torch.int64") ? PD_INT64
                                           : PD_FLOAT32;
    return 0;
}

static int t_arange(Eval *e, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"start", "end", "step"};
    Val *s[3];
    long a = 0, b, step = 1;
    size_t before = e->ops.eng->bytes_copied;
    PlayDtype dt = PD_INT64;
    if (n > 0 && !strcmp(kw[n - 1], "dtype") && dtype_arg(e, "arange", &args[--n], &dt) < 0)
        return -1;
    if (dt == PD_BOOL) return EFAIL(e, "\"arange_cpu\" not implemented for 'Bool'");
    if (bind(e, "arange", params, 3, 1, args, kw, n, s) < 0) return -1;
    if (!s[1]) { /* arange(end) */
        if (as_int(e, "arange", "end", s[0], &b) < 0) return -1;
    } else if (as_int(e, "arange", "start", s[0], &a) < 0 ||
               as_int(e, "arange", "end", s[1], &b) < 0 ||
               (s[2] && as_int(e, "arange", "step", s[2], &step) < 0))
        return -1;
    if (step == 0) return EFAIL(e, "step must be nonzero");
    if ((step > 0 && b < a) || (step < 0 && b > a))
        return EFAIL(e, "upper bound and larger bound inconsistent with step sign");
    /* ATen's size for int64: (end - start + step - sgn) / step, in int64 that
     * wraps near INT64_MAX; PyTorch answers with what it wrapped to
     * (arange(0, M, M) is empty) and refuses a negative size in its words */
    long span, count;
    geo_sub(b, a, &span);
    geo_add(span, step - (step > 0 ? 1 : -1), &span);
    if (span == LONG_MIN && step == -1) /* 2^63 elements; ATen traps dividing */
        return EFAIL(e, "mhaviz play: too large: the length of the range overflows int64");
    count = span / step;
    if (count < 0) return EFAIL(e, "invalid size, possible overflow?");
    Tensor *r = tensorops_arange(count, &e->ops);
    for (long i = 0; r && i < count; i++) {
        long v;
        geo_mul(i, step, &v); /* within [a, b): count never exceeds the true length */
        geo_add(a, v, &v);
        r->st->data[i] = (float)v;
    }
    return ret(e, r, dt, before, out);
}

/* torch.zeros / torch.ones (*sizes, dtype=torch.float32) */
static int t_fill(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    long v[PLAY_MAX_KIDS];
    int k;
    PlayDtype dt = PD_FLOAT32;
    size_t before = e->ops.eng->bytes_copied;
    if (n > 0 && !strcmp(kw[n - 1], "dtype") && dtype_arg(e, fn, &args[--n], &dt) < 0)
        return -1; /* the one keyword: the last argument */
    if (get_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    Tensor *r = tensorops_zeros(k, v, &e->ops);
    if (r && fn[0] == 'o')
        for (size_t i = 0; i < r->st->n; i++)
            r->st->data[i] = 1;
    return ret(e, r, dt, before, out);
}

/* torch.cat(tensors, dim=0): the inputs' dtypes promoted (bool < int64 < float32) */
static int t_cat(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"tensors", "dim"};
    Val *s[2];
    long d = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (bind(e, fn, params, 2, 1, args, kw, n, s) < 0 ||
        (s[1] && as_int(e, fn, "dim", s[1], &d) < 0))
        return -1;
    if (s[0]->k == V_SEQ && s[0]->n == 0)
        return EFAIL(e, "torch.cat(): expected a non-empty list of Tensors");
    if (s[0]->k != V_TENSORS)
        return EFAIL(e, "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not %s",
                     val_type_name(s[0]));
    PlayDtype dt = PD_BOOL; /* the highest of bool < int64 < float32 */
    for (int i = 0; i < s[0]->n; i++)
        if (s[0]->tdt[i] == PD_FLOAT32 || (s[0]->tdt[i] == PD_INT64 && dt == PD_BOOL))
            dt = s[0]->tdt[i];
    return ret(e, tensorops_cat(s[0]->n, (const Tensor *const *)s[0]->ts, d, &e->ops), dt, before,
               out);
}

/* mhaviz's generator (play.h, Play.rng): splitmix64 */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* a uniform in (0, 1]: 53 bits */
static double rng_unit(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 1.0) / 9007199254740992.0;
}

/* torch.randn(*sizes): normal float32 values by Box-Muller, from the Play's
 * generator (reproducible in mhaviz; not PyTorch's numbers) */
static int t_randn(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    long v[PLAY_MAX_KIDS];
    int k;
    size_t before = e->ops.eng->bytes_copied;
    if (get_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    Tensor *r = tensorops_zeros(k, v, &e->ops);
    for (size_t i = 0; r && i < r->st->n; i += 2) {
        double a = sqrt(-2.0 * log(rng_unit(e->rng))), b = 6.283185307179586 * rng_unit(e->rng);
        r->st->data[i] = (float)(a * cos(b));
        if (i + 1 < r->st->n) r->st->data[i + 1] = (float)(a * sin(b));
    }
    return ret(e, r, PD_FLOAT32, before, out);
}

/* torch.manual_seed(seed): reseeds the Play's generator */
static int t_manual_seed(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"seed"};
    Val *s[1];
    long seed = 0;
    if (bind(e, fn, params, 1, 1, args, kw, n, s) < 0 || as_int(e, fn, "seed", s[0], &seed) < 0)
        return -1;
    *e->rng = (uint64_t)seed;
    *out = (Val){.k = V_STR, .str = "<torch._C.Generator object>"};
    return 0;
}

/* torch.flip(input, dims): dims a tuple or list here (the method takes *dims) */
static int t_flip(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"input", "dims"};
    Val *s[2];
    if (bind(e, fn, params, 2, 1, args, kw, n, s) < 0) return -1;
    if (!s[1]) return EFAIL(e, "flip() missing 1 required positional arguments: \"dims\"");
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "flip(): argument 'input' (position 1) must be Tensor, not %s",
                     val_type_name(s[0]));
    if (s[1]->k != V_SEQ)
        return EFAIL(e, "flip(): argument 'dims' (position 2) must be tuple of ints, not %s",
                     val_type_name(s[1]));
    Kw none = "";
    return m_flip(e, s[0], fn, s[1], &none, 1, out);
}

typedef int TorchFn(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out);

static int t_arange_fn(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    return t_arange(e, args, kw, n, out);
}

/* The torch.* functions: a source (call), or NULL: torch.NAME(input, ...)
 * is input.NAME(...), the tensor method of the same name. */
static const struct {
    const char *name;
    TorchFn *call;
} torch_fns[] = {
    {"arange", t_arange_fn},
    {"cat", t_cat},
    {"chunk", NULL},
    {"clone", NULL},
    {"cos", NULL},
    {"exp", NULL},
    {"flatten", NULL},
    {"flip", t_flip},
    {"manual_seed", t_manual_seed},
    {"masked_fill", NULL},
    {"matmul", NULL},
    {"movedim", NULL},
    {"narrow", NULL},
    {"neg", NULL},
    {"ones", t_fill},
    {"outer", play_t_outer},
    {"permute", NULL},
    {"randn", t_randn},
    {"repeat_interleave", NULL},
    {"reshape", NULL},
    {"rsqrt", NULL},
    {"select", NULL},
    {"sin", NULL},
    {"softmax", NULL},
    {"split", NULL},
    {"sqrt", NULL},
    {"squeeze", NULL},
    {"swapaxes", NULL},
    {"swapdims", NULL},
    {"t", NULL},
    {"transpose", NULL},
    {"tril", NULL},
    {"triu", NULL},
    {"unbind", NULL},
    {"unflatten", NULL},
    {"unsqueeze", NULL},
    {"zeros", t_fill},
};
#define N_TORCH (int)(sizeof torch_fns / sizeof torch_fns[0])

const char *play_torch_name(int i)
{
    return i >= 0 && i < N_TORCH ? torch_fns[i].name : NULL;
}

int play_torch_name_known(const char *name)
{
    for (int i = 0; i < N_TORCH; i++)
        if (!strcmp(torch_fns[i].name, name)) return 1;
    return 0;
}

int play_call_torch(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    for (int i = 0; i < N_TORCH; i++) {
        if (strcmp(torch_fns[i].name, fn)) continue;
        if (torch_fns[i].call) return torch_fns[i].call(e, fn, args, kw, n, out);
        if (n >= 1 && !kw[0][0] && args[0].k != V_TENSOR)
            return EFAIL(e, "%s(): argument 'input' (position 1) must be Tensor, not %s", fn,
                         val_type_name(&args[0]));
        if (n < 1 || kw[0][0])
            return EFAIL(e, "%s(): argument 'input' (position 1) must be Tensor", fn);
        return play_call_method(e, &args[0], fn, args + 1, kw + 1, n - 1, out);
    }
    if (!strcmp(fn, "float32") || !strcmp(fn, "int64") || !strcmp(fn, "float") ||
        !strcmp(fn, "long"))
        return EFAIL(e, "'torch.dtype' object is not callable");
    return not_here(e, 1, fn, play_torch_name);
}
