/* play_run.c - a program for the playground: several statements, one a
 * line, run in order in one Play (see play.h, play_run). */
#include "engine/play.h"

#include "base/errbuf.h"

#include <stdio.h>
#include <string.h>

int play_run(Play *p, const char *text, const char *file, PlayStepFn *each, void *ctx, char *err,
             size_t errlen)
{
    static char stmt[PLAY_LINE_MAX + 2]; /* one past the limit: play_parse refuses it */
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
