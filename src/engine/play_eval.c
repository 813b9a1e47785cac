/* play_eval.c - the playground's evaluator (its names are play_session.c's): a parsed statement
 * (play_parse.c) walked into values (play_val.h), methods dispatched to
 * play_methods.c, the result described in a PlayResult. */
#include "engine/play.h"

#include "base/errbuf.h"
#include "engine/play_val.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *play_dtype_name(PlayDtype d)
{
    return d == PD_INT64 ? "torch.int64" : d == PD_BOOL ? "torch.bool" : "torch.float32";
}

size_t play_dtype_size(PlayDtype d)
{
    return d == PD_INT64 ? 8 : d == PD_BOOL ? 1 : 4;
}

void val_free(Val *v)
{
    if (v->k == V_TENSOR) tensor_free(v->t);
    for (int i = 0; v->k == V_TENSORS && i < v->n; i++)
        tensor_free(v->ts[i]);
    v->k = V_NONE;
    v->t = NULL;
}

const char *val_type_name(const Val *v)
{
    switch (v->k) {
    case V_NONE:
        return "NoneType";
    case V_INT:
        return "int";
    case V_BOOL:
        return "bool";
    case V_TENSOR:
        return "Tensor";
    case V_SEQ:
        return v->is_size ? "torch.Size" : "tuple";
    case V_TENSORS:
        return "tuple";
    case V_STR:
        return v->str[0] == '<' ? "torch._C.Generator" : "torch.dtype";
    case V_TORCH:
    case V_MODULE:
        return "module";
    case V_FLOAT:
        return "float";
    case V_TEXT:
        return "str";
    }
    return "object";
}

/* ---- evaluation ------------------------------------------------------------------ */

static int eval(Eval *e, int node, Val *out);

static int eval_int(Eval *e, int node, long *v, const char *what)
{
    Val x = {0};
    if (eval(e, node, &x) < 0) return -1;
    if (x.k != V_INT) {
        int r = EFAIL(e, "%s must be an integer, not %s", what, val_type_name(&x));
        val_free(&x);
        return r;
    }
    *v = x.i;
    return 0;
}

/* t[...] as torch's applySlicing: ints select, slices slice, None adds a
 * dim, one ... stands for the dims not named. */
static int eval_index(Eval *e, const PlayNode *n, Val *obj, Val *out)
{
    const PlayAst *a = e->ast;
    int nsub = n->nkids - 1, specified = 0, ellipses = 0;
    for (int i = 1; i <= nsub; i++) {
        PlayNodeKind k = a->nodes[n->kids[i]].kind;
        if (k == PN_ELLIPSIS)
            ellipses++;
        else if (k != PN_NONE)
            specified++;
    }
    if (obj->k == V_SEQ) { /* t.shape[0] */
        long i;
        if (nsub != 1 || eval_int(e, n->kids[1], &i, "index") < 0)
            return nsub != 1 ? EFAIL(e, "tuple indices must be integers") : -1;
        if (i < -obj->n || i >= obj->n) return EFAIL(e, "tuple index out of range");
        *out = (Val){.k = V_INT, .i = obj->seq[i < 0 ? i + obj->n : i]};
        return 0;
    }
    if (obj->k == V_TENSORS) { /* x.chunk(3)[-1] */
        long i;
        if (nsub != 1 || eval_int(e, n->kids[1], &i, "index") < 0)
            return nsub != 1 ? EFAIL(e, "tuple indices must be integers or slices, not tuple") : -1;
        if (i < -obj->n || i >= obj->n) return EFAIL(e, "tuple index out of range");
        int k = (int)(i < 0 ? i + obj->n : i);
        Tensor *t = tensorops_alias(obj->ts[k]);
        if (!t) return EFAIL(e, "out of memory");
        *out = (Val){.k = V_TENSOR, .t = t, .dtype = obj->tdt[k]};
        return 0;
    }
    if (obj->k != V_TENSOR) return EFAIL(e, "'%s' object is not subscriptable", val_type_name(obj));
    Tensor *t = tensorops_alias(obj->t);
    if (!t) return EFAIL(e, "out of memory");
    int ndim0 = t->ndim;
    if (specified > ndim0 && !(nsub == 1 && ndim0 == 0)) {
        tensor_free(t);
        return EFAIL(e, "too many indices for tensor of dimension %d", ndim0);
    }
    int dim = 0;
    for (int i = 1; i <= nsub; i++) {
        const PlayNode *s = &a->nodes[n->kids[i]];
        Tensor *r = NULL;
        if (s->kind == PN_ELLIPSIS) {
            dim += ndim0 - specified;
            continue;
        } else if (s->kind == PN_NONE) {
            r = tensorops_unsqueeze(t, dim, &e->ops);
            dim++;
        } else if (s->kind == PN_SLICE) {
            long v[3] = {0, 0, 1};
            int has[3] = {0, 0, 0};
            for (int k = 0; k < 3; k++) {
                if (s->kids[k] < 0 || a->nodes[s->kids[k]].kind == PN_NONE) continue;
                if (eval_int(e, s->kids[k], &v[k], "slice indices") < 0) goto fail;
                has[k] = 1;
            }
            r = tensorops_slice(t, dim, has[0], v[0], has[1], v[1], has[2] ? v[2] : 1, &e->ops);
            dim++;
        } else {
            long v;
            if (eval_int(e, n->kids[i], &v, "index") < 0) goto fail;
            r = tensorops_select(t, dim, v, i - 1, &e->ops);
        }
        if (!r) goto fail;
        tensor_free(t);
        t = r;
    }
    *out = (Val){.k = V_TENSOR, .t = t, .dtype = obj->dtype};
    return 0;
fail:
    tensor_free(t);
    return -1;
}

int play_write(Eval *e, Tensor *dst, PlayDtype dt, const Val *v, int setitem)
{
    int int64 = dt == PD_INT64 ? 1 : dt == PD_BOOL ? 2 : 0; /* the cast to dst's dtype */
    long n;
    if (v->k == V_TENSOR) {
        e->ops.type_name = v->dtype == PD_INT64 ? "torch.LongTensor" : "torch.FloatTensor";
        n = setitem ? tensorops_copy_to(dst, v->t, int64, &e->ops)
                    : tensorops_copy_into(dst, v->t, int64, &e->ops);
    } else if (v->k == V_INT || v->k == V_BOOL || v->k == V_FLOAT) {
        /* a number is a 0-dim tensor: setitem fills, copy_ broadcasts it
         * (with copy_'s check of the written-to tensor) */
        float x = v->k == V_FLOAT ? (float)v->f : (float)v->i;
        Storage one = {.data = (float[1]){x}, .n = 1, .refs = 1, .eng = e->ops.eng};
        Tensor scalar = {.st = &one};
        n = setitem ? tensorops_fill(dst, x, int64, &e->ops)
                    : tensorops_copy_into(dst, &scalar, int64, &e->ops);
    } else if (setitem)
        return EFAIL(e, "can't assign a %s to a %s", val_type_name(v),
                     int64 == 1   ? "torch.LongTensor"
                     : int64 == 2 ? "torch.BoolTensor"
                                  : "torch.FloatTensor");
    else
        return EFAIL(e, "copy_(): argument 'src' must be Tensor, not %s", val_type_name(v));
    if (n < 0) return -1;
    e->copied_bytes += (size_t)n * play_dtype_size(dt);
    e->wrote = 1;
    return 0;
}

/* OBJ[subs] = EXPR: Python evaluates EXPR first, then OBJ and the
 * subscripts; the view they name is written (play_write) and is the
 * result.  No name is bound. */
static int eval_store(Eval *e, Val *out)
{
    const PlayNode *n = &e->ast->nodes[e->ast->store];
    Val v = {0}, obj = {0};
    int r = -1;
    if (eval(e, e->ast->root, &v) < 0) return -1;
    if (eval(e, n->kids[0], &obj) < 0) goto out;
    if (obj.k != V_TENSOR) {
        r = EFAIL(e, "'%s' object does not support item assignment", val_type_name(&obj));
        goto out;
    }
    if (eval_index(e, n, &obj, out) < 0) goto out;
    r = play_write(e, out->t, out->dtype, &v, 1);
    if (r < 0) val_free(out);
out:
    val_free(&v);
    val_free(&obj);
    return r;
}

static int eval_call(Eval *e, const PlayNode *n, Val *out)
{
    const PlayAst *a = e->ast;
    const PlayNode *callee = &a->nodes[n->kids[0]];
    Val args[PLAY_MAX_KIDS] = {{0}}, self = {0};
    char kw[PLAY_MAX_KIDS][PLAY_NAME_MAX];
    int nargs = 0, r = -1;
    if (callee->kind == PN_NAME && play_builtin_known(callee->name) &&
        !play_var(e->p, callee->name) && !play_int(e->p, callee->name)) {
        for (int i = 1; i < n->nkids; i++, nargs++) {
            snprintf(kw[nargs], sizeof kw[nargs], "%s", a->nodes[n->kids[i]].kw);
            if (eval(e, n->kids[i], &args[nargs]) < 0) goto out;
        }
        r = play_call_builtin(e, callee->name, args, kw, nargs, out);
        goto out;
    }
    if (callee->kind != PN_ATTR) {
        Val f = {0};
        if (eval(e, n->kids[0], &f) < 0) return -1;
        r = EFAIL(e, "'%s' object is not callable", val_type_name(&f));
        val_free(&f);
        return r;
    }
    if (eval(e, callee->kids[0], &self) < 0) return -1;
    for (int i = 1; i < n->nkids; i++, nargs++) {
        snprintf(kw[nargs], sizeof kw[nargs], "%s", a->nodes[n->kids[i]].kw);
        if (eval(e, n->kids[i], &args[nargs]) < 0) goto out;
    }
    if (self.k == V_TORCH)
        r = play_call_torch(e, callee->name, args, kw, nargs, out);
    else if (self.k == V_MODULE)
        r = play_call_module(e, &self, callee->name, args, kw, nargs, out);
    else if (self.k == V_TENSOR)
        r = play_call_method(e, &self, callee->name, args, kw, nargs, out);
    else
        r = EFAIL(e, "'%s' object has no attribute '%s'", val_type_name(&self), callee->name);
out:
    for (int i = 0; i < nargs; i++)
        val_free(&args[i]);
    val_free(&self);
    return r;
}

/* (a, b, ...) or [a, b, ...]: of ints (a shape) or, when the first item is a
 * tensor, of tensors (torch.cat's argument). */
static int eval_seq(Eval *e, const PlayNode *n, Val *out)
{
    *out = (Val){.k = V_SEQ, .n = n->nkids};
    for (int i = 0; i < n->nkids; i++) {
        Val x = {0};
        if (eval(e, n->kids[i], &x) < 0) {
            out->n = i; /* the tensors so far */
            val_free(out);
            return -1;
        }
        if (i == 0 && x.k == V_TENSOR) out->k = V_TENSORS;
        if (out->k == V_TENSORS && x.k == V_TENSOR) {
            out->ts[i] = x.t;
            out->tdt[i] = x.dtype;
            continue;
        }
        if (out->k == V_SEQ && x.k == V_INT) {
            out->seq[i] = x.i;
            continue;
        }
        int r = EFAIL(e, "expected a tuple of %s, but found element of type %s at pos %d",
                      out->k == V_TENSORS ? "Tensors" : "ints", val_type_name(&x), i);
        val_free(&x);
        out->n = i; /* the tensors so far */
        val_free(out);
        return r;
    }
    return 0;
}

/* Python's int arithmetic, in int64 (checked: past it, an error, not a wrap);
 * everything else (floats, tensors, /, @, the comparisons) is play_math.c's. */
static int eval_binop(Eval *e, const PlayNode *n, Val *out)
{
    Val a = {0}, b = {0};
    int r = -1;
    const char *op = n->name;
    if (eval(e, n->kids[0], &a) < 0) return -1;
    if (eval(e, n->kids[1], &b) < 0) goto out;
    int pow = !strcmp(op, "**");
    if ((a.k != V_INT && a.k != V_BOOL) || (b.k != V_INT && b.k != V_BOOL) ||
        !strchr("+-*/%", op[0]) || !strcmp(op, "/") || (pow && b.i < 0)) {
        /* floats, tensors, /, the comparisons and int ** negative int (a float) */
        r = play_binop(e, op, &a, &b, out);
        goto out;
    }
    long x = a.i, y = b.i, v = 0;
    int over = 0;
    if (pow) { /* Python's int ** int (y >= 0), within int64 */
        v = 1;
        if (x == 0 || x == 1 || x == -1)
            v = x == 0 ? y == 0 : x == 1 ? 1 : y % 2 ? -1 : 1;
        else
            for (long k = 0; k < y && !over; k++)
                over = geo_mul(v, x, &v);
    } else if (op[0] == '+')
        over = geo_add(x, y, &v);
    else if (op[0] == '-')
        over = geo_sub(x, y, &v);
    else if (op[0] == '*')
        over = geo_mul(x, y, &v);
    else if (y == 0) {
        r = EFAIL(e, "integer division or modulo by zero");
        goto out;
    } else if (x == LONG_MIN && y == -1)
        over = op[0] == '/' ? -1 : 0; /* LONG_MIN % -1 is 0 */
    else {
        long q = x / y, m = x % y;
        if (m != 0 && (m < 0) != (y < 0)) q--, m += y; /* floor, as Python */
        v = op[0] == '/' ? q : m;
    }
    if (over) {
        r = EFAIL(e, "mhaviz play: too large: %ld %s %ld overflows int64", x, op, y);
        goto out;
    }
    *out = (Val){.k = V_INT, .i = v};
    r = 0;
out:
    val_free(&a);
    val_free(&b);
    return r;
}

static int eval(Eval *e, int node, Val *out)
{
    const PlayNode *n = &e->ast->nodes[node];
    Val obj = {0};
    int r;
    *out = (Val){0};
    switch (n->kind) {
    case PN_INT:
        *out = (Val){.k = V_INT, .i = n->ival};
        return 0;
    case PN_FLOAT:
        *out = (Val){.k = V_FLOAT, .f = n->fval};
        return 0;
    case PN_STR:
        *out = (Val){.k = V_TEXT, .str = n->name};
        return 0;
    case PN_NONE:
        return 0;
    case PN_TRUE:
    case PN_FALSE:
        *out = (Val){.k = V_BOOL, .i = n->kind == PN_TRUE};
        return 0;
    case PN_BINOP:
        return eval_binop(e, n, out);
    case PN_NEG:
        if (eval(e, n->kids[0], &obj) < 0) return -1;
        if (obj.k == V_TENSOR && obj.dtype == PD_BOOL) {
            val_free(&obj);
            return EFAIL(e, "Negation, the `-` operator, on a bool tensor is not supported. If you "
                            "are trying to invert a mask, use the `~` or `logical_not()` operator "
                            "instead.");
        }
        if (obj.k == V_FLOAT) {
            *out = (Val){.k = V_FLOAT, .f = -obj.f};
            return 0;
        }
        if (obj.k == V_TENSOR) { /* -t: a new tensor, counted as written */
            size_t before = e->ops.eng->bytes_copied;
            out->t = tensorops_neg(obj.t, &e->ops);
            out->k = out->t ? V_TENSOR : V_NONE;
            out->dtype = obj.dtype;
            e->copied_bytes +=
                (e->ops.eng->bytes_copied - before) / sizeof(float) * play_dtype_size(obj.dtype);
            val_free(&obj);
            return out->t ? 0 : -1;
        }
        if (obj.k != V_INT && obj.k != V_BOOL) {
            r = EFAIL(e, "bad operand type for unary -: '%s'", val_type_name(&obj));
            val_free(&obj);
            return r;
        }
        if (obj.i == LONG_MIN) return EFAIL(e, "integer too large");
        *out = (Val){.k = V_INT, .i = -obj.i};
        return 0;
    case PN_NAME: {
        if (!strcmp(n->name, "torch")) {
            out->k = V_TORCH;
            return 0;
        }
        const PlayVar *v = play_var(e->p, n->name);
        const long *iv = v ? NULL : play_int(e->p, n->name);
        if (iv) {
            *out = (Val){.k = V_INT, .i = *iv};
            return 0;
        }
        if (!v && (!strcmp(n->name, "math") || !strcmp(n->name, "F"))) {
            *out = (Val){.k = V_MODULE, .str = n->name[0] == 'm' ? "math" : "F"};
            return 0;
        }
        if (!v && play_builtin_known(n->name))
            return EFAIL(e, "%s is a function: call it, %s(...)", n->name, n->name);
        if (!v) return EFAIL(e, "name '%s' is not defined", n->name);
        out->t = tensorops_alias(v->t);
        if (!out->t) return EFAIL(e, "out of memory");
        out->k = V_TENSOR;
        out->dtype = v->dtype;
        out->name = v->name;
        return 0;
    }
    case PN_TUPLE:
    case PN_LIST:
        return eval_seq(e, n, out);
    case PN_ELLIPSIS:
    case PN_SLICE:
        return EFAIL(e, "'...' and ':' only go inside [ ]");
    case PN_ATTR:
        if (eval(e, n->kids[0], &obj) < 0) return -1;
        r = obj.k == V_MODULE ? play_module_attr(e, &obj, n->name, out)
                              : play_get_attr(e, &obj, n->name, out);
        val_free(&obj);
        return r;
    case PN_CALL:
        return eval_call(e, n, out);
    case PN_INDEX:
        if (eval(e, n->kids[0], &obj) < 0) return -1;
        r = eval_index(e, n, &obj, out);
        val_free(&obj);
        return r;
    }
    return EFAIL(e, "invalid syntax");
}

/* ---- results --------------------------------------------------------------------- */

void play_result_clear(PlayResult *r)
{
    tensor_free(r->t);
    for (int i = 0; i < r->nparts; i++)
        tensor_free(r->parts[i].t);
    memset(r, 0, sizeof *r);
    r->error_col = -1;
}

static int storage_known(const Play *p, const Storage *st)
{
    for (int i = 0; i < p->n; i++)
        if (p->vars[i].t->st == st) return 1;
    return 0;
}

static void fmt_value(const Val *v, char *text, size_t tn, char *json, size_t jn)
{
    size_t a = 0, b = 0;
    switch (v->k) {
    case V_INT:
        snprintf(text, tn, "%ld", v->i);
        snprintf(json, jn, "%ld", v->i);
        break;
    case V_BOOL:
        snprintf(text, tn, "%s", v->i ? "True" : "False");
        snprintf(json, jn, "%s", v->i ? "true" : "false");
        break;
    case V_STR:
        snprintf(text, tn, "%s", v->str);
        snprintf(json, jn, "\"%s\"", v->str);
        break;
    case V_SEQ:
        a = (size_t)snprintf(text, tn, v->is_size ? "torch.Size([" : "(");
        b = (size_t)snprintf(json, jn, "[");
        for (int i = 0; i < v->n && a < tn && b < jn; i++) {
            a += (size_t)snprintf(text + a, tn - a, "%s%ld", i ? ", " : "", v->seq[i]);
            b += (size_t)snprintf(json + b, jn - b, "%s%ld", i ? ", " : "", v->seq[i]);
        }
        if (a < tn) snprintf(text + a, tn - a, "%s", v->is_size ? "])" : v->n == 1 ? ",)" : ")");
        if (b < jn) snprintf(json + b, jn - b, "]");
        break;
    case V_TENSORS:
        snprintf(text, tn, "(a tuple of %d tensors)", v->n);
        snprintf(json, jn, "\"(a tuple of %d tensors)\"", v->n);
        break;
    case V_TORCH:
        snprintf(text, tn, "<module 'torch'>");
        snprintf(json, jn, "\"<module 'torch'>\"");
        break;
    case V_MODULE:
        snprintf(text, tn, "<module '%s'>", v->str[0] == 'm' ? "math" : "torch.nn.functional");
        snprintf(json, jn, "\"<module '%s'>\"", v->str[0] == 'm' ? "math" : "torch.nn.functional");
        break;
    case V_FLOAT:
        play_float_repr(v->f, text, tn);
        if (isfinite(v->f))
            play_float_repr(v->f, json, jn);
        else /* JSON has no inf or nan: their repr as a string */
            snprintf(json, jn, "\"%s\"", isnan(v->f) ? "nan" : v->f < 0 ? "-inf" : "inf");
        break;
    case V_TEXT:
        snprintf(text, tn, "'%s'", v->str);
        snprintf(json, jn, "\"%s\"", v->str);
        break;
    default:
        snprintf(text, tn, "None");
        snprintf(json, jn, "null");
    }
}

PlayKind play_refuse(PlayResult *r, const char *why, int col)
{
    play_result_clear(r);
    snprintf(r->error, sizeof r->error, "%s", why);
    r->error_col = col;
    return r->kind = PR_ERROR;
}

static PlayMemory memory_of(const Play *p, const Tensor *t, const char *name, size_t copied)
{
    return name ? PM_SAME : storage_known(p, t->st) ? PM_VIEW : copied ? PM_COPY : PM_NEW;
}

/* v as the values `a, b, c = v` unpacks, Python's way: a tuple's items, a
 * tensor's rows (it iterates over dim 0).  v becomes a V_TENSORS; 0 or -1. */
static int unpackable(Eval *e, Val *v, int want)
{
    if (v->k == V_TENSOR) {
        if (v->t->ndim == 0) return EFAIL(e, "iteration over a 0-d tensor");
        Val rows = {.k = V_TENSORS};
        if (v->t->shape[0] > want) /* only the count matters */
            return EFAIL(e, "too many values to unpack (expected %d)", want);
        int n = tensorops_unbind(v->t, 0, rows.ts, PLAY_MAX_KIDS, &e->ops);
        if (n < 0) return -1;
        rows.n = n;
        for (int i = 0; i < n; i++)
            rows.tdt[i] = v->dtype;
        val_free(v);
        *v = rows;
    }
    if (v->k != V_TENSORS && v->k != V_SEQ)
        return EFAIL(e, "cannot unpack non-iterable %s object", val_type_name(v));
    if (v->n < want)
        return EFAIL(e, "not enough values to unpack (expected %d, got %d)", want, v->n);
    if (v->n > want) return EFAIL(e, "too many values to unpack (expected %d)", want);
    if (v->k == V_SEQ) return EFAIL(e, "mhaviz play names tensors only (these are ints)");
    return 0;
}

/* A tuple of tensors as r's parts (unpacked into names[0..n-1] when names
 * is not NULL; the Play keeps its own references then).  Takes v's tensors. */
static PlayKind tuple_result(Play *p, const Eval *e, Val *v, char (*names)[PLAY_NAME_MAX],
                             PlayResult *r)
{
    size_t k = 0;
    int fresh = 0;
    for (int i = 0; names && i < v->n; i++)
        fresh += !play_var(p, names[i]);
    if (p->n + fresh > PLAY_MAX_VARS) {
        val_free(v);
        snprintf(r->error, sizeof r->error, "too many names (at most %d)", PLAY_MAX_VARS);
        return r->kind = PR_ERROR;
    }
    r->copied_bytes = e->copied_bytes;
    for (int i = 0; i < v->n; i++) {
        PlayPart *pt = &r->parts[r->nparts++];
        pt->t = v->ts[i];
        pt->dtype = v->tdt[i];
        pt->memory = memory_of(p, pt->t, NULL, e->copied_bytes);
        if (names) snprintf(pt->name, sizeof pt->name, "%s", names[i]);
    }
    v->k = V_NONE; /* the parts own the tensors now */
    for (int i = 0; names && i < r->nparts; i++) {
        Tensor *keep = tensorops_alias(r->parts[i].t);
        if (!keep || play_var_set(p, names[i], keep, r->parts[i].dtype) < 0) tensor_free(keep);
    }
    for (int i = 0; i < r->nparts; i++) {
        const Tensor *t = r->parts[i].t;
        char sh[48];
        tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
        k += (size_t)snprintf(r->value_text + k,
                              k < sizeof r->value_text ? sizeof r->value_text - k : 0,
                              "%s%s%s%s +%zu S%d", i ? ", " : "(", r->parts[i].name,
                              r->parts[i].name[0] ? " " : "", sh, t->offset, t->st->id);
    }
    if (k < sizeof r->value_text) snprintf(r->value_text + k, sizeof r->value_text - k, ")");
    return r->kind = PR_TUPLE;
}
static PlayKind eval_ast(Play *p, const char *line, PlayAst *ast, PlayResult *r);

PlayKind play_eval(Play *p, const char *line, PlayResult *r)
{
    play_result_clear(r);
    PlayAst *ast = malloc(sizeof *ast); /* 78 KB: off the stack, and no static (threads) */
    if (!ast) return play_refuse(r, "out of memory", -1);
    PlayKind k = eval_ast(p, line, ast, r);
    free(ast);
    return k;
}

static PlayKind eval_ast(Play *p, const char *line, PlayAst *ast, PlayResult *r)
{
    if (play_parse(line, ast, r->error, sizeof r->error, &r->error_col) < 0)
        return r->kind = PR_ERROR;
    if (ast->empty) return r->kind = PR_EMPTY;
    Eval e = {.p = p, .ast = ast, .rng = &p->rng};
    e.ops.eng = p->eng;
    Val v = {0};
    if ((ast->store >= 0 ? eval_store(&e, &v) : eval(&e, ast->root, &v)) < 0 ||
        (ast->ntargets && unpackable(&e, &v, ast->ntargets) < 0)) {
        val_free(&v);
        snprintf(r->error, sizeof r->error, "%s", e.ops.err);
        return r->kind = PR_ERROR;
    }
    snprintf(r->warning, sizeof r->warning, "%s", e.warning);
    if (v.k == V_TENSORS && !ast->target[0])
        return tuple_result(p, &e, &v, ast->ntargets ? ast->targets : NULL, r);
    if (v.k != V_TENSOR) {
        if (ast->target[0]) {
            const char *type = val_type_name(&v);
            snprintf(r->error, sizeof r->error, "mhaviz play names tensors only (this is %s %s)",
                     strchr("aeiou", type[0]) ? "an" : "a", type);
            val_free(&v);
            return r->kind = PR_ERROR;
        }
        fmt_value(&v, r->value_text, sizeof r->value_text, r->value_json, sizeof r->value_json);
        val_free(&v);
        return r->kind = PR_VALUE;
    }
    r->t = v.t;
    r->dtype = v.dtype;
    r->copied_bytes = e.copied_bytes;
    r->memory = e.wrote ? PM_WRITE : memory_of(p, v.t, v.name, e.copied_bytes);
    if (v.name) snprintf(r->same_as, sizeof r->same_as, "%s", v.name);
    snprintf(r->name, sizeof r->name, "%s", ast->target);
    if (ast->target[0]) {
        Tensor *keep = tensorops_alias(v.t);
        if (!keep || play_var_set(p, ast->target, keep, v.dtype) < 0) {
            tensor_free(keep);
            snprintf(r->error, sizeof r->error, "too many names (at most %d)", PLAY_MAX_VARS);
            tensor_free(r->t);
            r->t = NULL;
            return r->kind = PR_ERROR;
        }
    }
    play_shares(p, v.t, ast->target, r->shares, sizeof r->shares);
    return r->kind = PR_TENSOR;
}
