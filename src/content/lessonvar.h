/* lessonvar.h - what the {expression} handlers share (content/lessonvar.c
 * evaluates the pipeline's, lessonvar_models.c the real models' and the
 * decode step's, lessonvar_flash.c lesson 9's, lessonvar_cache.c lesson 10's).
 * Private to those files. */
#ifndef MHAVIZ_LESSONVAR_H
#define MHAVIZ_LESSONVAR_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "content/lesson.h"

typedef struct Out {
    char *buf;
    size_t n, len;
} Out;

static inline void put(Out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline void put(Out *o, const char *fmt, ...)
{
    if (o->len + 1 >= o->n) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf + o->len, o->n - o->len, fmt, ap);
    va_end(ap);
    if (k > 0) o->len += (size_t)k < o->n - o->len ? (size_t)k : o->n - o->len - 1;
}

/* One {expression} being evaluated: where its text goes and what it reads. */
typedef struct Eval {
    Out *o;
    const Mha *m;
    const MhaConfig *c;
    const PresetList *presets;
    char *err;
    size_t errlen;
} Eval;

/* A handler: argv[0] is the expression's name.  0, -1 with e->err set, or
 * WRONG_ARGS when the arguments do not fit (the caller says so). */
#define WRONG_ARGS (-2)
typedef int (*ExprFn)(Eval *e, int argc, char **argv);

/* A whole decimal number in [lo, hi] (no sign, no spaces: "{cols x}" is an
 * error, not head 0); -1 with err naming the expression otherwise. */
static inline int int_arg(Eval *e, const char *expr, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = (*s >= '0' && *s <= '9') ? strtol(s, &end, 10) : -1;
    if (*s < '0' || *s > '9' || *end || v < lo || v > hi) {
        snprintf(e->err, e->errlen, "{%s %.40s}: '%.40s' is not a number in %ld..%ld", expr, s, s,
                 lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

/* The handlers of lessonvar_models.c: {preset NAME FIELD}, {ratio NAME},
 * {kv|kvctx NAME DTYPE [..]}, {decode ...}, {decodetoy ...}. */
int lessonvar_preset(Eval *e, int argc, char **argv);
int lessonvar_ratio(Eval *e, int argc, char **argv);
int lessonvar_kv(Eval *e, int argc, char **argv);
int lessonvar_decode(Eval *e, int argc, char **argv);
int lessonvar_decodetoy(Eval *e, int argc, char **argv);

/* The handlers of lessonvar_flash.c: {rope FIELD ...} (the page's RoPE:
 * pairs, angles, HF's permutation) and {flash FIELD ...} (the tile loop of
 * `mhaviz flash` over the page's run, and its bytes). */
int lessonvar_rope(Eval *e, int argc, char **argv);
int lessonvar_flash(Eval *e, int argc, char **argv);

/* The handlers of lessonvar_cache.c: {paged ...} (kv_paged's blocks and
 * waste), {window ...} (decode's rolling buffer on the page's run) and
 * {mla ...} (a preset's latent cache against its config's kv heads). */
int lessonvar_paged(Eval *e, int argc, char **argv);
int lessonvar_window(Eval *e, int argc, char **argv);
int lessonvar_mla(Eval *e, int argc, char **argv);

#endif
