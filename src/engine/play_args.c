/* play_args.c - binding a call's arguments as Python binds them
 * (positional, then keywords), reading ints and sizes, and handing an op's
 * result back with its copied bytes: shared by play_methods.c, play_math.c
 * and play_torch.c (contracts in play_val.h). */
#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
#include "engine/play_val.h"

/* Binds args to params[0..np-1] (the first nreq required); slot[i] is the
 * argument of params[i] or NULL when omitted. */
int play_bind(Eval *e, const char *fn, const char *const *params, int np, int nreq, Val *args,
              Kw *kw, int n, Val **slot)
{
    for (int i = 0; i < np; i++)
        slot[i] = NULL;
    int pos = 0;
    for (int i = 0; i < n; i++) {
        if (!kw[i][0]) {
            if (pos >= np)
                return EFAIL(e, "%s() takes %d argument%s but %d were given", fn, np, text_s(np),
                             n);
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

int play_arg_int(Eval *e, const char *fn, const char *param, const Val *v, long *out)
{
    if (v->k != V_INT)
        return EFAIL(e, "%s(): argument '%s' must be int, not %s", fn, param, val_type_name(v));
    *out = v->i;
    return 0;
}

/* *sizes: several ints, or one tuple/list/torch.Size. */
int play_arg_sizes(Eval *e, const char *fn, Val *args, Kw *kw, int n, long *out, int *count)
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

/* The op's result into out; the copies it made (the session engine's count
 * since before, in float32 bytes) are counted in bytes of dt. */
int play_ret(Eval *e, Tensor *t, PlayDtype dt, size_t before, Val *out)
{
    if (!t) return -1;
    e->copied_bytes += (e->ops.eng->bytes_copied - before) / sizeof(float) * play_dtype_size(dt);
    *out = (Val){.k = V_TENSOR, .t = t, .dtype = dt};
    return 0;
}
