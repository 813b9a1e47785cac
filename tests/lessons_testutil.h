/* lessons_testutil.h - helpers for the lessons/kv/state tests: run the binary. */
#ifndef MHAVIZ_LESSONS_TESTUTIL_H
#define MHAVIZ_LESSONS_TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Runs "$MHAVIZ_BIN args" through the shell; returns its exit code (-1 when
 * killed by a signal) with stdout+stderr in out (truncated to n-1 bytes). */
static inline int tu_run(const char *args, char *out, size_t n)
{
    const char *bin = getenv("MHAVIZ_BIN");
    ck_assert_msg(bin != NULL, "MHAVIZ_BIN not set");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
    FILE *f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(out, 1, n - 1, f);
    out[got] = 0;
    while (fgetc(f) != EOF) { /* drain the rest so the child never blocks */
    }
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
