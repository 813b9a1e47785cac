/* check_main.h - the main() every unit suite shares, and a temporary state
 * directory for the suites that save files.
 *
 *   static Suite *kv_suite(void) { ... }
 *   CHECK_MAIN(kv_suite)
 *
 * Each test that writes state calls state_dir_setup() (a checked fixture or
 * the first line of the test): it points XDG_STATE_HOME at a new empty
 * directory under /tmp, removed again by state_dir_teardown().
 */
#ifndef MHAVIZ_CHECK_MAIN_H
#define MHAVIZ_CHECK_MAIN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

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
