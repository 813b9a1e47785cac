/* play_math.c - the interpreter's numbers and the operations attention is
 * written in: Python's float arithmetic, + - * / @ and the comparisons on
 * tensors with PyTorch 1.13's type promotion and error words, softmax,
 * masked_fill, matmul, the dtype conversions, ** and cos sin exp sqrt rsqrt,
 * torch.outer, and the bare names a program
 * imports (sqrt, softmax, math, F) beside Python's float().  The tensor
 * arithmetic itself is engine/tensormath.h: each result a new storage,
 * nothing counted as copied. */
#include "base/errbuf.h"
#include "engine/play_val.h"
#include "engine/rope.h"
#include "engine/tensormath.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int is_num(const Val *v)
{
    return v->k == V_INT || v->k == V_BOOL || v->k == V_FLOAT;
}

static double num(const Val *v)
{
    return v->k == V_FLOAT ? v->f : (double)v->i;
}

/* PyTorch's promotion over the three dtypes is their order: bool < int64 < float32. */
static int rank(PlayDtype d)
{
    return d == PD_BOOL ? 0 : d == PD_INT64 ? 1 : 2;
}

static PlayDtype dtype_of(const Val *v)
{
    return v->k == V_TENSOR ? v->dtype
           : v->k == V_BOOL ? PD_BOOL
           : v->k == V_INT  ? PD_INT64
                            : PD_FLOAT32;
}

static TmType tm_of(PlayDtype d)
{
    return d == PD_BOOL ? TM_BOOL : d == PD_INT64 ? TM_INT : TM_FLOAT;
}

/* c10's ScalarType names, as PyTorch's messages print them. */
static const char *scalar_name(PlayDtype d)
{
    return d == PD_BOOL ? "Bool" : d == PD_INT64 ? "Long" : "Float";
}

static int is_cmp(const char *op)
{
    return strchr("=!<>", op[0]) != NULL;
}

static int fail_operands(Eval *e, const char *op, const Val *a, const Val *b)
{
    return EFAIL(e, "unsupported operand type(s) for %s: '%s' and '%s'", op, val_type_name(a),
                 val_type_name(b));
}

/* Python's float arithmetic (an int or a bool is widened), and int / int. */
static int num_binop(Eval *e, const char *op, const Val *a, const Val *b, Val *out)
{
    double x = num(a), y = num(b), v;
    if (is_cmp(op)) {
        int r;
        if (a->k != V_FLOAT && b->k != V_FLOAT) { /* exact for every int64 */
            long p = a->i, q = b->i;
            r = op[0] == '='   ? p == q
                : op[0] == '!' ? p != q
                : op[0] == '<' ? (op[1] ? p <= q : p < q)
                               : (op[1] ? p >= q : p > q);
        } else
            r = op[0] == '='   ? x == y
                : op[0] == '!' ? x != y
                : op[0] == '<' ? (op[1] ? x <= y : x < y)
                               : (op[1] ? x >= y : x > y);
        *out = (Val){.k = V_BOOL, .i = r};
        return 0;
    }
    int ints = a->k != V_FLOAT && b->k != V_FLOAT;
    if (!strcmp(op, "**")) { /* the ints with y >= 0 are exact in play_eval.c */
        if (x == 0 && y < 0) return EFAIL(e, "0.0 cannot be raised to a negative power");
        if (x < 0 && y != floor(y))
            return EFAIL(e, "`**` with a complex result is not in the playground yet");
        v = pow(x, y);
        if (isinf(v) && isfinite(x) && isfinite(y))
            return EFAIL(e, "(34, 'Numerical result out of range')");
        *out = (Val){.k = V_FLOAT, .f = v};
        return 0;
    }
    switch (op[0]) {
    case '+':
        v = x + y;
        break;
    case '-':
        v = x - y;
        break;
    case '*':
        v = x * y;
        break;
    case '@':
        return fail_operands(e, op, a, b);
    case '/':
        if (y == 0)
            return EFAIL(e, ints    ? "division by zero"
                            : op[1] ? "float floor division by zero"
                                    : "float division by zero");
        v = op[1] ? floor(x / y) : x / y;
        break;
    default: /* % */
        if (y == 0) return EFAIL(e, "float modulo");
        v = fmod(x, y);
        if (v != 0 && (v < 0) != (y < 0)) v += y;
    }
    *out = (Val){.k = V_FLOAT, .f = v};
    return 0;
}

static int matmul(Eval *e, const Val *a, const Val *b, Val *out)
{
    if (a->k != V_TENSOR || b->k != V_TENSOR) return fail_operands(e, "@", a, b);
    /* the shapes first, then the dtypes where mm/bmm meets them (a 1-D or
     * 2-D a with a batched b is folded as b.mT() @ a.t(): the names swap) */
    if (tensormath_matmul_check(a->t, b->t, &e->ops) < 0) return -1;
    int swap = a->t->ndim <= 2 && b->t->ndim >= 3;
    if (a->dtype != b->dtype && a->t->ndim == 1 && b->t->ndim == 1)
        return EFAIL(e, "dot : expected both vectors to have same dtype, but found %s and %s",
                     scalar_name(a->dtype), scalar_name(b->dtype));
    if (a->dtype != b->dtype)
        return EFAIL(e, "expected scalar type %s but found %s",
                     scalar_name(swap ? b->dtype : a->dtype),
                     scalar_name(swap ? a->dtype : b->dtype));
    if (a->dtype == PD_BOOL) return EFAIL(e, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    Tensor *r = tensormath_matmul(a->t, b->t, &e->ops);
    if (!r) return -1;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = a->dtype};
    return 0;
}

int play_binop(Eval *e, const char *op, const Val *a, const Val *b, Val *out)
{
    if (op[0] == '@') return matmul(e, a, b, out);
    if (is_num(a) && is_num(b)) return num_binop(e, op, a, b, out);
    if (!(a->k == V_TENSOR || is_num(a)) || !(b->k == V_TENSOR || is_num(b)))
        return fail_operands(e, op, a, b);
    if (op[0] == '%' || !strcmp(op, "//"))
        return EFAIL(e,
                     "`%s` on tensors is not in the playground yet (+ - * / ** @ and the "
                     "comparisons are)",
                     op);
    PlayDtype da = dtype_of(a), db = dtype_of(b);
    if (op[0] == '-' && !op[1] && (da == PD_BOOL || db == PD_BOOL))
        return EFAIL(e, da == PD_BOOL && db == PD_BOOL
                            ? "Subtraction, the `-` operator, with two bool tensors is not "
                              "supported. Use the `^` or `logical_xor()` operator instead."
                            : "Subtraction, the `-` operator, with a bool tensor is not "
                              "supported. If you are trying to invert a mask, use the `~` or "
                              "`logical_not()` operator instead.");
    PlayDtype common = rank(da) >= rank(db) ? da : db;
    if (op[0] == '/') common = PD_FLOAT32; /* true division */
    int pow = !strcmp(op, "**");
    if (pow && common == PD_BOOL) return EFAIL(e, "\"pow\" not implemented for 'Bool'");
    if (pow && common == PD_INT64 && b->k != V_TENSOR && num(b) < 0)
        return EFAIL(e, "Integers to negative integer powers are not allowed.");
    static const char ops[] = "+-*/", codes[] = "+-*/";
    int code = 0;
    if (pow)
        code = 'P';
    else if (is_cmp(op))
        code = op[0] == '=' ? 'E' : op[0] == '!' ? 'N' : op[1] ? (op[0] == '<' ? 'L' : 'G') : op[0];
    else
        code = codes[strchr(ops, op[0]) - ops];
    TmArg x = {a->k == V_TENSOR ? a->t : NULL, a->k == V_TENSOR ? 0 : num(a), da != common};
    TmArg y = {b->k == V_TENSOR ? b->t : NULL, b->k == V_TENSOR ? 0 : num(b), db != common};
    Tensor *r = tensormath_binary(code, x, y, tm_of(common), &e->ops);
    if (!r) return -1;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = is_cmp(op) ? PD_BOOL : common};
    return 0;
}

/* ---- tensor methods ---------------------------------------------------------- */

static int softmax_on(Eval *e, const Val *self, long dim, Val *out)
{
    int d = tensorops_wrap_dim(dim, self->t->ndim, &e->ops);
    if (d < 0) return -1;
    if (self->dtype != PD_FLOAT32)
        return EFAIL(e, "\"%s\" not implemented for '%s'",
                     d == self->t->ndim - 1 || self->t->ndim == 0 ? "softmax_lastdim_kernel_impl"
                                                                  : "softmax_kernel_impl",
                     scalar_name(self->dtype));
    Tensor *r = tensormath_softmax(self->t, dim, &e->ops);
    if (!r) return -1;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = PD_FLOAT32};
    return 0;
}

static int int_arg(Eval *e, const char *fn, const char *param, const Val *v, long *out)
{
    if (v->k != V_INT)
        return EFAIL(e, "%s(): argument '%s' must be int, not %s", fn, param, val_type_name(v));
    *out = v->i;
    return 0;
}

int play_m_softmax(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"dim"};
    Val *s[1];
    long d;
    (void)fn;
    if (play_bind(e, "softmax", params, 1, 1, args, kw, n, s) < 0 ||
        int_arg(e, "softmax", "dim", s[0], &d) < 0)
        return -1;
    return softmax_on(e, self, d, out);
}

/* F.softmax(input, dim=None): without a dim, the one PyTorch's
 * _get_softmax_dim picks, with its warning. */
static int f_softmax(Eval *e, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"input", "dim"};
    Val *s[2];
    long d;
    if (play_bind(e, "softmax", params, 2, 1, args, kw, n, s) < 0) return -1;
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "softmax(): argument 'input' (position 1) must be Tensor, not %s",
                     val_type_name(s[0]));
    if (!s[1] || s[1]->k == V_NONE) {
        int nd = s[0]->t->ndim;
        d = nd == 0 || nd == 1 || nd == 3 ? 0 : 1;
        snprintf(e->warning, sizeof e->warning,
                 "UserWarning: Implicit dimension choice for softmax has been deprecated. "
                 "Change the call to include dim=X as an argument.");
    } else if (int_arg(e, "softmax", "dim", s[1], &d) < 0)
        return -1;
    return softmax_on(e, s[0], d, out);
}

int play_m_masked_fill(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"mask", "value"};
    Val *s[2];
    (void)fn;
    if (play_bind(e, "masked_fill", params, 2, 2, args, kw, n, s) < 0) return -1;
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "masked_fill(): argument 'mask' (position 1) must be Tensor, not %s",
                     val_type_name(s[0]));
    double v;
    if (s[1]->k == V_TENSOR) {
        if (s[1]->t->ndim != 0)
            return EFAIL(e,
                         "masked_fill_ only supports a 0-dimensional value tensor, but got tensor "
                         "with %d dimension(s).",
                         s[1]->t->ndim);
        v = s[1]->t->st->data[s[1]->t->offset];
    } else if (is_num(s[1]))
        v = num(s[1]);
    else
        return EFAIL(e, "masked_fill(): argument 'value' (position 2) must be Number, not %s",
                     val_type_name(s[1]));
    if (self->dtype == PD_INT64) {
        if (!(v > -9.3e18 && v < 9.3e18)) { /* after the shapes' check */
            Tensor *t = tensormath_masked_fill(self->t, s[0]->t, 1, 0, &e->ops);
            if (!t) return -1;
            tensor_free(t);
            return EFAIL(e, "value cannot be converted to type int64_t without overflow");
        }
        v = trunc(v);
    } else if (self->dtype == PD_BOOL)
        v = v != 0;
    Tensor *r = tensormath_masked_fill(self->t, s[0]->t, s[0]->dtype == PD_BOOL, v, &e->ops);
    if (!r) return -1;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = self->dtype};
    return 0;
}

int play_m_matmul(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"other"};
    Val *s[1];
    (void)fn;
    if (play_bind(e, "matmul", params, 1, 1, args, kw, n, s) < 0) return -1;
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "matmul(): argument 'other' (position 1) must be Tensor, not %s",
                     val_type_name(s[0]));
    return matmul(e, self, s[0], out);
}

/* cos() sin() exp() sqrt() rsqrt(): float32 results in a new storage (an
 * int64 or bool self promoted to float, as PyTorch's unary float ops),
 * computed, nothing counted as copied. */
int play_m_unary(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)args;
    (void)kw;
    if (n) return EFAIL(e, "_TensorBase.%s() takes no arguments (%d given)", fn, n);
    int op = !strcmp(fn, "rsqrt") ? 'r' : !strcmp(fn, "sqrt") ? 'q' : fn[0];
    Tensor *r = tensormath_unary(op, self->t, self->dtype != PD_FLOAT32, &e->ops);
    if (!r) return -1;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = PD_FLOAT32};
    return 0;
}

/* torch.outer(input, vec2): input.reshape(-1, 1) * vec2, as ATen writes it. */
int play_t_outer(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"input", "vec2"};
    Val *s[2];
    if (play_bind(e, fn, params, 2, 2, args, kw, n, s) < 0) return -1;
    for (int i = 0; i < 2; i++) {
        if (s[i]->k != V_TENSOR)
            return EFAIL(e, "outer(): argument '%s' (position %d) must be Tensor, not %s",
                         params[i], i + 1, val_type_name(s[i]));
        if (s[i]->t->ndim != 1)
            return EFAIL(e, "outer: Expected 1-D argument %s, but got %d-D", i ? "vec2" : "self",
                         s[i]->t->ndim);
    }
    Val col = {.k = V_TENSOR, .t = tensorops_unsqueeze(s[0]->t, 1, &e->ops), .dtype = s[0]->dtype};
    if (!col.t) return -1;
    int r = play_binop(e, "*", &col, s[1], out);
    tensor_free(col.t);
    return r;
}

/* float() long() bool(): self itself when it has that dtype (PyTorch's
 * .to returns self), else its values converted into a new storage. */
int play_m_convert(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    (void)args;
    (void)kw;
    if (n) return EFAIL(e, "%s() takes no arguments (%d given)", fn, n);
    PlayDtype to = fn[0] == 'f' ? PD_FLOAT32 : fn[0] == 'l' ? PD_INT64 : PD_BOOL;
    Tensor *r = to == self->dtype ? tensorops_alias(self->t)
                                  : tensormath_convert(self->t, tm_of(to), &e->ops);
    if (!r) return to == self->dtype ? EFAIL(e, "out of memory") : -1;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = to};
    if (to == self->dtype) out->name = self->name;
    return 0;
}

/* ---- bare names and modules ---------------------------------------------------- */

static int m_sqrt(Eval *e, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"x"};
    Val *s[1];
    if (play_bind(e, "sqrt", params, 1, 1, args, kw, n, s) < 0) return -1;
    if (!is_num(s[0])) return EFAIL(e, "must be real number, not %s", val_type_name(s[0]));
    double x = num(s[0]);
    if (x < 0) return EFAIL(e, "math domain error");
    *out = (Val){.k = V_FLOAT, .f = sqrt(x)};
    return 0;
}

/* Python's float(x): a number, a one-element tensor or a str. */
static int py_float(Eval *e, Val *args, Kw *kw, int n, Val *out)
{
    if (n > 1) return EFAIL(e, "float expected at most 1 argument, got %d", n);
    if (n == 1 && kw[0][0]) return EFAIL(e, "float() takes no keyword arguments");
    if (n == 0) {
        *out = (Val){.k = V_FLOAT, .f = 0};
        return 0;
    }
    const Val *v = &args[0];
    if (is_num(v)) {
        *out = (Val){.k = V_FLOAT, .f = num(v)};
        return 0;
    }
    if (v->k == V_TENSOR) {
        if (tensorops_numel(v->t) != 1)
            return EFAIL(e, "only one element tensors can be converted to Python scalars");
        int idx[TENSOR_MAXDIM] = {0};
        *out = (Val){.k = V_FLOAT, .f = v->t->st->data[tensor_offset_of(v->t, idx)]};
        return 0;
    }
    if (v->k != V_TEXT)
        return EFAIL(e, "float() argument must be a string or a real number, not '%s'",
                     val_type_name(v));
    const char *s = v->str;
    while (*s == ' ')
        s++;
    char *end;
    const char *word = s + (*s == '-' || *s == '+');
    double x;
    if (!strncasecmp(word, "infinity", 8) || !strncasecmp(word, "inf", 3)) {
        x = *s == '-' ? -INFINITY : INFINITY;
        end = (char *)word + (strncasecmp(word, "infinity", 8) ? 3 : 8);
    } else if (!strncasecmp(word, "nan", 3)) {
        x = NAN;
        end = (char *)word + 3;
    } else
        x = strtod(s, &end);
    while (*end == ' ')
        end++;
    if (end == s || *end) return EFAIL(e, "could not convert string to float: '%s'", v->str);
    *out = (Val){.k = V_FLOAT, .f = x};
    return 0;
}

/* rope(t): the engine's RoPE rotation of the run (engine/rope.h), a new
 * storage it copies into (counted, as the pipeline's rope step is). */
static int m_rope(Eval *e, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"x"};
    Val *s[1];
    if (play_bind(e, "rope", params, 1, 1, args, kw, n, s) < 0) return -1;
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "rope(): argument 'x' must be Tensor, not %s", val_type_name(s[0]));
    if (!e->p->rope_layout) return EFAIL(e, "rope(): this run has RoPE off (try --rope half)");
    if (s[0]->t->ndim != 4 || s[0]->dtype != PD_FLOAT32 || s[0]->t->shape[3] % 2)
        return EFAIL(e, "rope(): wants a float32 (B, heads, S, dh) tensor with an even dh");
    size_t before = e->ops.eng->bytes_copied;
    Tensor *r = rope_apply(s[0]->t, (RopeLayout)e->p->rope_layout, e->p->rope_theta, e->ops.err,
                           sizeof e->ops.err);
    if (!r) return -1;
    e->copied_bytes += e->ops.eng->bytes_copied - before;
    *out = (Val){.k = V_TENSOR, .t = r, .dtype = PD_FLOAT32};
    return 0;
}

static const char *const builtins[] = {"sqrt", "softmax", "float", "math", "F", "rope"};

int play_builtin_known(const char *name)
{
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (!strcmp(name, builtins[i])) return 1;
    return 0;
}

int play_call_builtin(Eval *e, const char *name, Val *args, Kw *kw, int n, Val *out)
{
    if (!strcmp(name, "sqrt")) return m_sqrt(e, args, kw, n, out);
    if (!strcmp(name, "softmax")) return f_softmax(e, args, kw, n, out);
    if (!strcmp(name, "float")) return py_float(e, args, kw, n, out);
    if (!strcmp(name, "rope")) return m_rope(e, args, kw, n, out);
    return EFAIL(e, "'module' object is not callable");
}

static int is_math(const Val *mod)
{
    return !strcmp(mod->str, "math");
}

int play_module_attr(Eval *e, const Val *mod, const char *name, Val *out)
{
    if (is_math(mod)) {
        static const struct {
            const char *name;
            double v;
        } consts[] = {
            {"inf", INFINITY}, {"nan", NAN}, {"pi", 3.141592653589793}, {"e", 2.718281828459045}};
        for (size_t i = 0; i < sizeof consts / sizeof *consts; i++)
            if (!strcmp(name, consts[i].name)) {
                *out = (Val){.k = V_FLOAT, .f = consts[i].v};
                return 0;
            }
        if (!strcmp(name, "sqrt"))
            return EFAIL(e, "math.sqrt is a function: call it, math.sqrt(...)");
        return EFAIL(e, "`math.%s` is not in the playground yet (supported: inf, nan, pi, e, sqrt)",
                     name);
    }
    if (!strcmp(name, "softmax"))
        return EFAIL(e, "F.softmax is a function: call it, F.softmax(...)");
    return EFAIL(e, "`F.%s` is not in the playground yet (supported: softmax)", name);
}

int play_call_module(Eval *e, const Val *mod, const char *name, Val *args, Kw *kw, int n, Val *out)
{
    if (is_math(mod) && !strcmp(name, "sqrt")) return m_sqrt(e, args, kw, n, out);
    if (!is_math(mod) && !strcmp(name, "softmax")) return f_softmax(e, args, kw, n, out);
    Val attr = {0};
    if (play_module_attr(e, mod, name, &attr) < 0) return -1;
    int r = EFAIL(e, "'%s' object is not callable", val_type_name(&attr));
    val_free(&attr);
    return r;
}
