/* lessoncode.c - a lesson's runnable @code block, executed by the
 * interpreter (engine/play.h, play_run) on the page's run: the shape each
 * line gave, or the line that failed, in Python's words. */
#include <stdio.h>
#include <string.h>

#include "base/errbuf.h"
#include "content/content.h"
#include "content/lesson.h"
#include "engine/play.h"

typedef struct CodeRun {
    char *shapes;
    size_t n, k;
    int line; /* the next line of code whose shape is due */
    char *err;
    size_t errlen;
} CodeRun;

static void put(CodeRun *c, const char *s)
{
    if (c->k < c->n) c->k += (size_t)snprintf(c->shapes + c->k, c->n - c->k, "%s", s);
}

/* One statement ran: the blank lines before it, then its shape. */
static int each_line(void *ctx, const PlayStep *st)
{
    CodeRun *c = ctx;
    const PlayResult *r = st->r;
    char dims[64];
    for (; c->line < st->line; c->line++)
        put(c, "\n");
    c->line++;
    if (r->kind == PR_ERROR) {
        err_set(c->err, c->errlen, "%s: %s", play_error_kind(r), r->error);
        return 0;
    }
    if (r->kind == PR_TENSOR) {
        tensor_fmt_dims(dims, sizeof dims, r->t->ndim, r->t->shape);
        put(c, dims);
    } else if (r->kind == PR_TUPLE) {
        for (int i = 0; i < r->nparts; i++) {
            tensor_fmt_dims(dims, sizeof dims, r->parts[i].t->ndim, r->parts[i].t->shape);
            put(c, i ? ", " : "");
            put(c, dims);
        }
    } else if (r->kind == PR_VALUE)
        put(c, r->value_text);
    put(c, "\n");
    return 0;
}

int lesson_code_run(const char *code, const Mha *m, char *shapes, size_t n, char *err,
                    size_t errlen)
{
    char ignored[64];
    CodeRun c = {shapes, n, 0, 1, err, errlen};
    shapes[0] = 0;
    err[0] = 0;
    Play *p = mha_play_new(m);
    if (!p) {
        err_set(err, errlen, "MemoryError: out of memory");
        return 1;
    }
    p->torch_names = content_pytorch_names();
    int failed = play_run(p, code, NULL, each_line, &c, ignored, sizeof ignored);
    int lines = 0; /* the comments and blank lines after the last statement */
    for (const char *s = code; *s; s++)
        lines += *s == '\n' || !s[1];
    for (; !failed && c.line <= lines; c.line++)
        put(&c, "\n");
    play_free(p);
    return failed;
}
