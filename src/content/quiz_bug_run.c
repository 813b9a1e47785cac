/* quiz_bug_run.c - runs a bugs question's program from its text, in the
 * interpreter, so the question shows (and a test can prove) that the buggy
 * program computes something else than the right one, or raises where
 * PyTorch would: the lines a learner reads are the lines that ran. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "content/quiz.h"
#include "engine/play.h"

/* play_run's callback: the words of the statement that failed */
static int keep_error(void *ctx, const PlayStep *s)
{
    if (s->r->kind == PR_ERROR) snprintf(ctx, sizeof s->r->error, "%s", s->r->error);
    return 0;
}

Tensor *quiz_bug_run(const Mha *m, const char (*lines)[QUIZ_BUG_LINE], int n, int seq_first,
                     char *err, size_t errlen)
{
    /* the program's inputs: m's x (sequence first when the program says so)
     * and weights under the names it uses */
    static const char prelude[] = "W_q = W_Q\nW_k = W_K\nW_v = W_V\nW_o = W_O\n";
    char text[16 * (QUIZ_BUG_LINE + 1) + 128], words[sizeof((PlayResult *)0)->error] = "",
                                                                        where[900];
    size_t k = (size_t)snprintf(text, sizeof text, "%s%s", prelude,
                                seq_first ? "x = x.transpose(0, 1).contiguous()\n" : "");
    for (int i = 0; i < n && k < sizeof text; i++)
        k += (size_t)snprintf(text + k, sizeof text - k, "%s\n", lines[i]);
    Play *p = mha_play_new(m);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    Tensor *y = NULL;
    PlayResult r = {0};
    r.error_col = -1;
    if (play_run(p, text, NULL, keep_error, words, where, sizeof where) != 0)
        snprintf(err, errlen, "%s", words[0] ? words : where);
    else if (play_eval(p, "y", &r) != PR_TENSOR)
        snprintf(err, errlen, "the program makes no y: %s", r.error);
    else {
        y = r.t; /* it keeps its storage (and engine) alive */
        r.t = NULL;
    }
    play_result_clear(&r);
    play_free(p);
    return y;
}

double quiz_bug_diff(const Mha *m, const Tensor *y)
{
    const Tensor *want = m->t[MT_OUT];
    if (!y || y->ndim != want->ndim || tensor_numel(y) != tensor_numel(want)) return INFINITY;
    double worst = 0;
    int idx[TENSOR_MAXDIM] = {0};
    for (size_t k = 0; k < tensor_numel(y); k++) {
        size_t rest = k;
        for (int d = y->ndim - 1; d >= 0; d--)
            idx[d] = (int)(rest % (size_t)y->shape[d]), rest /= (size_t)y->shape[d];
        double d = fabs((double)tensor_get(y, idx) - (double)tensor_get(want, idx));
        if (isnan(d)) return INFINITY; /* a NaN is the largest difference */
        if (d > worst) worst = d;
    }
    return worst;
}
