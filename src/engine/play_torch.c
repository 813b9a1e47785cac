/* play_torch.c - the torch.* functions of the playground (arange, zeros,
 * ones, cat, randn, manual_seed, flip ...), one table that dispatches,
 * completes and lists them; the tensor methods are play_methods.c's. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"
#include "engine/play_val.h"

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
    if (play_bind(e, "arange", params, 3, 1, args, kw, n, s) < 0) return -1;
    if (!s[1]) { /* arange(end) */
        if (play_arg_int(e, "arange", "end", s[0], &b) < 0) return -1;
    } else if (play_arg_int(e, "arange", "start", s[0], &a) < 0 ||
               play_arg_int(e, "arange", "end", s[1], &b) < 0 ||
               (s[2] && play_arg_int(e, "arange", "step", s[2], &step) < 0))
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
    return play_ret(e, r, dt, before, out);
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
    if (play_arg_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    Tensor *r = tensorops_zeros(k, v, &e->ops);
    if (r && fn[0] == 'o')
        for (size_t i = 0; i < r->st->n; i++)
            r->st->data[i] = 1;
    return play_ret(e, r, dt, before, out);
}

/* torch.cat(tensors, dim=0): the inputs' dtypes promoted (bool < int64 < float32) */
static int t_cat(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"tensors", "dim"};
    Val *s[2];
    long d = 0;
    size_t before = e->ops.eng->bytes_copied;
    if (play_bind(e, fn, params, 2, 1, args, kw, n, s) < 0 ||
        (s[1] && play_arg_int(e, fn, "dim", s[1], &d) < 0))
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
    return play_ret(e, tensorops_cat(s[0]->n, (const Tensor *const *)s[0]->ts, d, &e->ops), dt,
                    before, out);
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
    if (play_arg_sizes(e, fn, args, kw, n, v, &k) < 0) return -1;
    Tensor *r = tensorops_zeros(k, v, &e->ops);
    for (size_t i = 0; r && i < r->st->n; i += 2) {
        double a = sqrt(-2.0 * log(rng_unit(e->rng))), b = 6.283185307179586 * rng_unit(e->rng);
        r->st->data[i] = (float)(a * cos(b));
        if (i + 1 < r->st->n) r->st->data[i + 1] = (float)(a * sin(b));
    }
    return play_ret(e, r, PD_FLOAT32, before, out);
}

/* torch.manual_seed(seed): reseeds the Play's generator */
static int t_manual_seed(Eval *e, const char *fn, Val *args, Kw *kw, int n, Val *out)
{
    static const char *const params[] = {"seed"};
    Val *s[1];
    long seed = 0;
    if (play_bind(e, fn, params, 1, 1, args, kw, n, s) < 0 ||
        play_arg_int(e, fn, "seed", s[0], &seed) < 0)
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
    if (play_bind(e, fn, params, 2, 1, args, kw, n, s) < 0) return -1;
    if (!s[1]) return EFAIL(e, "flip() missing 1 required positional arguments: \"dims\"");
    if (s[0]->k != V_TENSOR)
        return EFAIL(e, "flip(): argument 'input' (position 1) must be Tensor, not %s",
                     val_type_name(s[0]));
    if (s[1]->k != V_SEQ)
        return EFAIL(e, "flip(): argument 'dims' (position 2) must be tuple of ints, not %s",
                     val_type_name(s[1]));
    Kw none = "";
    return play_m_flip(e, s[0], fn, s[1], &none, 1, out);
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
    return play_not_here(e, 1, fn, play_torch_name);
}
