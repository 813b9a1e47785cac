/* check_main.h - the main() every unit suite shares, and a temporary state
 * directory for the suites that save files.
 *
 *   static Suite *kv_suite(void) { ... }
 *   CHECK_MAIN(kv_suite)
 *
 * Each test that writes state calls state_dir_setup() (a checked fixture or
 * the first line of the test): it points XDG_STATE_HOME at a new empty
 * directory under /tmp, removed again by state_dir_teardown().  A state
 * file is read with tu_state_slurp and planted with tu_state_put;
 * tu_processes runs many processes saving at once.
 */
#ifndef MHAVIZ_CHECK_MAIN_H
#define MHAVIZ_CHECK_MAIN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/state.h"

#define CHECK_MAIN(suite_fn)                                                                       \
    int main(void)                                                                                 \
    {                                                                                              \
        suite_state_dir(1);                                                                        \
        SRunner *sr = srunner_create(suite_fn());                                                  \
        srunner_run_all(sr, CK_NORMAL);                                                            \
        int failed = srunner_ntests_failed(sr);                                                    \
        srunner_free(sr);                                                                          \
        suite_state_dir(0);                                                                        \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                               \
    }

/* The directory state_dir_setup made ("" before). */
static char test_state_dir[64];

/* The suite's own state directory, made before its first test and removed
 * after its last: a test that opens a screen which remembers something (the
 * walkthrough's place, lesson progress) never reads or writes the user's. */
static char suite_dir[64];

static inline void suite_state_dir(int make)
{
    char cmd[128];
    if (make) {
        snprintf(suite_dir, sizeof suite_dir, "/tmp/mhaviz-suite-XXXXXX");
        if (!mkdtemp(suite_dir)) {
            perror("mkdtemp");
            exit(EXIT_FAILURE);
        }
        setenv("XDG_STATE_HOME", suite_dir, 1);
        return;
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", suite_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", suite_dir);
}

static inline void state_dir_setup(void)
{
    snprintf(test_state_dir, sizeof test_state_dir, "/tmp/mhaviz-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(test_state_dir));
    setenv("XDG_STATE_HOME", test_state_dir, 1);
}

/* State file name as store/state.c reads it: a new NUL-terminated buffer
 * (free it), its length in *len (len may be NULL); NULL when it is missing
 * or cannot be read. */
static inline char *tu_state_slurp(const char *name, size_t *len)
{
    char *text = NULL, err[300];
    size_t n = 0;
    if (state_read(name, &text, &n, err, sizeof err) != 0) return NULL;
    if (len) *len = n;
    return text;
}

/* Writes len bytes of text as state file name, under the state lock as a
 * run saves (a file planted before the code under test reads it); the test
 * fails when it cannot. */
static inline void tu_state_put(const char *name, const char *text, size_t len)
{
    char err[300];
    int lock = state_lock(err, sizeof err);
    ck_assert_msg(lock >= 0, "%s", err);
    ck_assert_msg(state_write(name, text, len, err, sizeof err) == 0, "%s", err);
    state_unlock(lock);
}

/* Forks n processes at once, process i running child(i) and exiting with
 * what it returns; waits for them all.  The test fails unless each exited 0. */
static inline void tu_processes(int n, int (*child)(int i))
{
    pid_t pid[64];
    ck_assert_int_le(n, 64);
    for (int i = 0; i < n; i++) {
        pid[i] = fork();
        ck_assert_int_ge(pid[i], 0);
        if (pid[i] == 0) _exit(child(i));
    }
    for (int i = 0; i < n; i++) {
        int st;
        ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d: status %d", i, st);
    }
}

static inline void state_dir_teardown(void)
{
    char cmd[128];
    if (!test_state_dir[0]) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_state_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", test_state_dir);
    test_state_dir[0] = 0;
    if (suite_dir[0]) setenv("XDG_STATE_HOME", suite_dir, 1); /* back to the suite's */
}

#endif
