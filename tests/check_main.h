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
        SRunner *sr = srunner_create(suite_fn());                                                  \
        srunner_run_all(sr, CK_NORMAL);                                                            \
        int failed = srunner_ntests_failed(sr);                                                    \
        srunner_free(sr);                                                                          \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                               \
    }

/* The directory state_dir_setup made ("" before). */
static char test_state_dir[64];

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
}

#endif
