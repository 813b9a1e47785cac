/* quiz_run.c - a question's listing that is not the pipeline's rows (GQA's
 * own K, decode's cache, RoPE's inv_freq), run from its text by the
 * interpreter with the "The engine ran:" trace qb_working writes for the
 * pipeline's: the numbers a question reads come from this run, and a
 * listing that does not run as shown is refused (issue 16). */
#include <stdio.h>

#include "content/quiz_gen.h"

int qr_listing(Play *p, char (*lines)[QB_LINE], int n, size_t *copied, char *working, size_t wn,
               char *err, size_t errlen)
{
    PlayResult r = {0};
    r.error_col = -1;
    qt_cat(working, wn, "The engine ran:\n");
    for (int k = 0; k < n; k++) {
        if (play_eval(p, lines[k], &r) != PR_TENSOR) {
            snprintf(err, errlen, "the listing line `%.60s` does not run: %.120s", lines[k],
                     r.kind == PR_ERROR ? r.error : "it names no tensor");
            play_result_clear(&r);
            return -1;
        }
        if (copied) copied[k] = r.copied_bytes;
        char sh[64], st[64];
        qt_cat(working, wn, "  %-44s -> %s strides %s, ", lines[k],
               tensor_fmt_dims(sh, sizeof sh, r.t->ndim, r.t->shape),
               tensor_fmt_strides(st, sizeof st, r.t));
        /* the words qb_working uses, from what the interpreter did */
        if (r.copied_bytes)
            qt_cat(working, wn, "copy: %zu bytes\n", r.copied_bytes);
        else if (r.memory == PM_VIEW || r.memory == PM_SAME)
            qt_cat(working, wn, "view: 0 bytes\n");
        else
            qt_cat(working, wn, "new buffer\n");
    }
    play_result_clear(&r);
    return 0;
}

Tensor *qr_tensor(Play *p, const char *name, char *err, size_t errlen)
{
    PlayResult r = {0};
    r.error_col = -1;
    Tensor *t = NULL;
    if (play_eval(p, name, &r) == PR_TENSOR) {
        t = r.t; /* it keeps its storage (and engine) alive */
        r.t = NULL;
    } else
        snprintf(err, errlen, "the listing makes no %s", name);
    play_result_clear(&r);
    return t;
}
