/* play_session.c - a playground session and the calls it makes: its
 * engine, its names (tensors and the integer sizes), which names share a
 * storage and the bytes its own storages hold; binding a call's arguments
 * as Python binds them (positional, then keywords), reading ints and sizes,
 * and handing an op's result back with its copied bytes (for play_methods.c,
 * play_math.c and play_torch.c; contracts in play_val.h); and a program,
 * several statements one a line, run in order in one Play (play_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/textutil.h"
#include "engine/play_val.h"

PlayVar *play_var(const Play *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->vars[i].name, name)) return (PlayVar *)&p->vars[i];
    return NULL;
}

/* Binds name to t (takes t); replaces an existing binding. */
int play_var_set(Play *p, const char *name, Tensor *t, PlayDtype dt)
{
    PlayVar *v = play_var(p, name);
    if (!v) {
        if (p->n >= PLAY_MAX_VARS) return -1;
        v = &p->vars[p->n++];
        snprintf(v->name, sizeof v->name, "%s", name);
    } else
        tensor_free(v->t);
    v->t = t;
    v->dtype = dt;
    return 0;
}

int play_set_int(Play *p, const char *name, long v)
{
    int i = 0;
    while (i < p->nints && strcmp(p->ints[i].name, name))
        i++;
    if (strlen(name) >= PLAY_NAME_MAX || (i == p->nints && p->nints >= PLAY_MAX_INTS)) return -1;
    if (i == p->nints) snprintf(p->ints[p->nints++].name, PLAY_NAME_MAX, "%s", name);
    p->ints[i].v = v;
    return 0;
}

int play_set_tensor(Play *p, const char *name, Tensor *t, PlayDtype dt)
{
    if (strlen(name) >= PLAY_NAME_MAX || play_var_set(p, name, t, dt) < 0) {
        tensor_free(t);
        return -1;
    }
    return 0;
}

const long *play_int(const Play *p, const char *name)
{
    for (int i = 0; i < p->nints; i++)
        if (!strcmp(p->ints[i].name, name)) return &p->ints[i].v;
    return NULL;
}

Play *play_new(const Engine *after)
{
    Play *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    if (!(p->eng = engine_new(after))) {
        free(p);
        return NULL;
    }
    p->eng->budget = (size_t)PLAY_BUDGET_MB << 20;
    p->eng->max_storage = TENSOROPS_MAX_STORAGE;
    return p;
}

Play *play_new_in(Engine *e)
{
    Play *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    engine_retain(e);
    p->eng = e;
    return p;
}

void play_free(Play *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++)
        tensor_free(p->vars[i].t);
    engine_release(p->eng);
    free(p);
}

void play_shares(const Play *p, const Tensor *t, const char *skip, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < p->n && k < n; i++) {
        if (p->vars[i].t->st != t->st || (skip && !strcmp(skip, p->vars[i].name))) continue;
        k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", p->vars[i].name);
    }
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const Storage *const *)a,
              y = (uintptr_t) * (const Storage *const *)b;
    return x < y ? -1 : x > y;
}

size_t play_live_bytes(const Play *p)
{
    const Storage **st = malloc(((size_t)p->n + 1) * sizeof *st); /* no static: one Play a thread */
    size_t bytes = 0;
    if (!st) return 0;
    for (int i = 0; i < p->n; i++)
        st[i] = p->vars[i].t->st;
    qsort(st, (size_t)p->n, sizeof *st, cmp_ptr);
    for (int i = 0; i < p->n; i++)
        if (i == 0 || st[i] != st[i - 1]) bytes += st[i]->n * sizeof *st[i]->data;
    free(st);
    return bytes;
}

/* ---- a call's arguments ---------------------------------------------------- */

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

/* ---- a program, one statement a line ------------------------------------------ */

int play_run(Play *p, const char *text, const char *file, PlayStepFn *each, void *ctx, char *err,
             size_t errlen)
{
    char stmt[PLAY_LINE_MAX + 2]; /* one past the limit: play_parse refuses it; on the
                                   * stack, so a callback may run a program of its own */
    PlayResult r = {0};
    int line = 0, failed = 0;
    r.error_col = -1;
    err[0] = 0;
    for (const char *s = text; s && *s && !failed; line++) {
        const char *end = strchr(s, '\n');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        size_t keep = len < sizeof stmt - 1 ? len : sizeof stmt - 1;
        memcpy(stmt, s, keep);
        stmt[keep] = 0;
        if (keep && stmt[keep - 1] == '\r') stmt[keep - 1] = 0; /* a CRLF file */
        s = end ? end + 1 : NULL;
        PlayStep step = {.line = line + 1, .stmt = stmt, .r = &r};
        if (play_eval(p, stmt, &r) == PR_EMPTY) continue;
        if (r.kind == PR_ERROR) {
            failed = line + 1;
            if (file)
                err_at(err, errlen, file, failed, "%s", r.error);
            else
                err_set(err, errlen, "line %d: %s", failed, r.error);
        }
        if (each && each(ctx, &step) != 0 && !failed) {
            failed = -(line + 1);
            err_set(err, errlen, "line %d: stopped", line + 1);
        }
    }
    play_result_clear(&r);
    return failed < 0 ? -failed : failed;
}
