/* play_methods.c - the tensor methods and attributes the playground knows
 * (the torch.* functions are play_torch.c's), each bound to its arguments the way Python binds them
 * (positional, then keywords) and run with engine/tensorops.h. */
#include "base/errbuf.h"
#include "engine/play_val.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- small argument helpers (the shared ones are play_session.c's) -------------- */

/* An optional int: 1 and *out set, 0 when omitted or None, -1 on error. */
static int opt_int(Eval *e, const char *fn, const char *param, const Val *v, long *out)
{
    if (!v || v->k == V_NONE) return 0;
    return play_arg_int(e, fn, param, v, out) < 0 ? -1 : 1;
}

static int no_args(Eval *e, const char *fn, int n)
{
    return n ? EFAIL(e, "%s() takes no arguments (%d given)", fn, n) : 0;
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
    if (play_bind(e, fn, params, 1, 0, args, kw, n, s) < 0) return -1;
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
    return play_ret(e, tensorops_numpy_T(t, &e->ops), self->dtype, before, out);
}

static int a_mT(Eval *e, const Val *self, Val *out)
{
    size_t before = e->ops.eng->bytes_copied;
    if (self->t->ndim == 0)
        snprintf(e->warning, sizeof e->warning,
                 "UserWarning: Tensor.mT is deprecated on 0-D tensors. This function is the "
                 "identity in these cases.");
    if (play_ret(e, tensorops_mT(self->t, &e->ops), self->dtype, before, out) < 0) return -1;
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
    if (play_bind(e, fn, params, 2, 2, args, kw, n, s) < 0 ||
        play_arg_int(e, fn, params[0], s[0], &a) < 0 ||
        play_arg_int(e, fn, params[1], s[1], &b) < 0)
        return -1;
    return play_ret(e, tensorops_transpose(self->t, a, b, &e->ops), self->dtype, before, out);
}

/* view / reshape / expand / repeat / permute: (*sizes) */
static int m_sizes(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    long v[PLAY_MAX_KIDS];
    int k;
    size_t before = e->ops.eng->bytes_copied;
    const Tensor *t = self->t;
    if (play_arg_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    e->ops.type_name = self->dtype == PD_INT64  ? "torch.LongTensor"
                       : self->dtype == PD_BOOL ? "torch.BoolTensor"
                                                : "torch.FloatTensor";
    Tensor *r = !strcmp(fn, "view")      ? tensorops_view(t, k, v, &e->ops)
                : !strcmp(fn, "reshape") ? tensorops_reshape(t, k, v, &e->ops)
                : !strcmp(fn, "expand")  ? tensorops_expand(t, k, v, &e->ops)
                : !strcmp(fn, "repeat")  ? tensorops_repeat(t, k, v, &e->ops)
                                         : tensorops_permute(t, k, v, &e->ops);
    return play_ret(e, r, self->dtype, before, out);
}

/* view_as / reshape_as / expand_as (other) */
static int m_as(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"other"};
    Val *s[1], sz = {0};
    if (play_bind(e, fn, params, 1, 1, args, kw, n, s) < 0) return -1;
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
    if (play_bind(e, "unsqueeze", params, 1, 1, args, kw, n, s) < 0 ||
        play_arg_int(e, "unsqueeze", "dim", s[0], &d) < 0)
        return -1;
    return play_ret(e, tensorops_unsqueeze(self->t, d, &e->ops), self->dtype, before, out);
}

static int m_squeeze(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"dim"};
    Val *s[1];
    size_t before = e->ops.eng->bytes_copied;
    if (play_bind(e, "squeeze", params, 1, 0, args, kw, n, s) < 0) return -1;
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
    return play_ret(e, r, self->dtype, before, out);
}

static int m_flatten(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"start_dim", "end_dim"};
    Val *s[2];
    long a = 0, b = -1;
    size_t before = e->ops.eng->bytes_copied;
    if (play_bind(e, "flatten", params, 2, 0, args, kw, n, s) < 0 ||
        (s[0] && play_arg_int(e, "flatten", "start_dim", s[0], &a) < 0) ||
        (s[1] && play_arg_int(e, "flatten", "end_dim", s[1], &b) < 0))
        return -1;
    if (play_ret(e, tensorops_flatten(self->t, a, b, &e->ops), self->dtype, before, out) < 0)
        return -1;
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
    if (play_bind(e, "unflatten", params, 2, 2, args, kw, n, s) < 0 ||
        play_arg_int(e, "unflatten", "dim", s[0], &d) < 0)
        return -1;
    if (s[1]->k != V_SEQ)
        return EFAIL(e, "unflatten(): argument 'sizes' must be tuple of ints, not %s",
                     val_type_name(s[1]));
    return play_ret(e, tensorops_unflatten(self->t, d, s[1]->n, s[1]->seq, &e->ops), self->dtype,
                    before, out);
}

static int m_narrow(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)fn;
    static const char *const params[] = {"dim", "start", "length"};
    Val *s[3];
    long d = 0, st = 0, len = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (play_bind(e, "narrow", params, 3, 3, args, kw, n, s) < 0 ||
        play_arg_int(e, "narrow", "dim", s[0], &d) < 0 ||
        play_arg_int(e, "narrow", "start", s[1], &st) < 0 ||
        play_arg_int(e, "narrow", "length", s[2], &len) < 0)
        return -1;
    return play_ret(e, tensorops_narrow(self->t, d, st, len, &e->ops), self->dtype, before, out);
}

static int m_repeat_interleave(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n,
                               Val *out)
{
    (void)fn;
    static const char *const params[] = {"repeats", "dim"};
    Val *s[2];
    long reps = 0, d = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (play_bind(e, "repeat_interleave", params, 2, 1, args, kw, n, s) < 0 ||
        play_arg_int(e, "repeat_interleave", "repeats", s[0], &reps) < 0)
        return -1;
    int has = opt_int(e, "repeat_interleave", "dim", s[1], &d);
    if (has < 0) return -1;
    return play_ret(e, tensorops_repeat_interleave(self->t, reps, has, d, &e->ops), self->dtype,
                    before, out);
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
    if (fn[0] == 't') return play_ret(e, tensorops_t(t, &e->ops), self->dtype, before, out);
    if (fn[0] == 'c' && fn[1] == 'l')
        return play_ret(e, tensorops_clone(t, &e->ops), self->dtype, before, out);
    int same = tensorops_is_contiguous(t);
    if (play_ret(e, tensorops_contiguous(t, &e->ops), self->dtype, before, out) < 0) return -1;
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
        return play_ret(e, tensorops_neg(self->t, &e->ops), self->dtype, before, out);
    }
    if (play_bind(e, fn, params, 1, 0, args, kw, n, s) < 0 ||
        (s[0] && play_arg_int(e, fn, "diagonal", s[0], &diag) < 0))
        return -1;
    return play_ret(e, tensorops_tri(self->t, diag, fn[1] == 'r' && fn[3] == 'u', &e->ops),
                    self->dtype, before, out);
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
        if (play_bind(e, fn, unbind, 1, 0, args, kw, n, s) < 0 ||
            (s[0] && play_arg_int(e, fn, "dim", s[0], &d) < 0))
            return -1;
        k = tensorops_unbind(self->t, d, ts, PLAY_MAX_KIDS, &e->ops);
        return ret_pieces(e, k, ts, self->dtype, out);
    }
    const char *const *params = fn[0] == 'c' ? chunk : split;
    if (play_bind(e, fn, params, 2, 1, args, kw, n, s) < 0 ||
        (s[1] && play_arg_int(e, fn, "dim", s[1], &d) < 0))
        return -1;
    if (fn[0] == 's' && s[0]->k == V_SEQ)
        k = tensorops_split_sizes(self->t, s[0]->n, s[0]->seq, d, ts, PLAY_MAX_KIDS, &e->ops);
    else if (fn[0] == 's' && s[0]->k != V_INT)
        return EFAIL(e,
                     "split_with_sizes(): argument 'split_sizes' (position 2) must be tuple of "
                     "ints, not %s",
                     val_type_name(s[0]));
    else if (play_arg_int(e, fn, params[0], s[0], &a) < 0)
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
    if (play_bind(e, fn, params, 2, 2, args, kw, n, s) < 0 ||
        play_arg_int(e, fn, "dim", s[0], &d) < 0 || play_arg_int(e, fn, "index", s[1], &i) < 0)
        return -1;
    return play_ret(e, tensorops_select_dim(self->t, d, i, &e->ops), self->dtype, before, out);
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
    if (play_bind(e, fn, params, 2, 2, args, kw, n, s) < 0 ||
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
    return play_ret(e, tensorops_movedim(self->t, ns, src, dst, &e->ops), self->dtype, before, out);
}

/* index_select(dim, index): index an int64 tensor of at most 1 dim; a copy */
static int m_index_select(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n,
                          Val *out)
{
    static const char *const params[] = {"dim", "index"};
    Val *s[2];
    long d = 0, ix[TENSOROPS_MAX_STORAGE < 4096 ? TENSOROPS_MAX_STORAGE : 4096];
    size_t before = e->ops.eng->bytes_copied;
    if (play_bind(e, fn, params, 2, 2, args, kw, n, s) < 0 ||
        play_arg_int(e, fn, "dim", s[0], &d) < 0)
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
    return play_ret(e, tensorops_index_select(self->t, d, k, ix, &e->ops), self->dtype, before,
                    out);
}

/* flip(*dims): a copy, counted */
int play_m_flip(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    long v[PLAY_MAX_KIDS];
    int k;
    size_t before = e->ops.eng->bytes_copied;
    if (play_arg_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    return play_ret(e, tensorops_flip(self->t, k, v, &e->ops), self->dtype, before, out);
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
    if (play_bind(e, fn, params, 2, 1, args, kw, n, s) < 0 ||
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
    {"flip", play_m_flip, NULL},
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
int play_not_here(Eval *e, int torch, const char *name, const char *(*names)(int))
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
        return play_not_here(e, 1, name, play_torch_name);
    }
    if (self->k != V_TENSOR)
        return EFAIL(e, "'%s' object has no attribute '%s'", val_type_name(self), name);
    int m = member_find(name);
    if (m < 0) return play_not_here(e, 0, name, play_member_name);
    if (members[m].get) return members[m].get(e, self, out);
    return EFAIL(e, "%s is a method: call it, %s(...)", name, name);
}

int play_call_method(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    int m = member_find(fn);
    if (m < 0) return play_not_here(e, 0, fn, play_member_name);
    if (members[m].call) return members[m].call(e, self, fn, args, kw, n, out);
    Val attr = {0}; /* Python: evaluate the attribute, then call what it is */
    if (members[m].get(e, self, &attr) < 0) return -1;
    int r = EFAIL(e, "'%s' object is not callable", val_type_name(&attr));
    val_free(&attr);
    return r;
}
