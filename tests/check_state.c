/* check_state.c - state directory resolution and atomic writes (src/state.c). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "store/state.h"

static char tmpdir[256];

/* A fresh XDG_STATE_HOME for each test. */
static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mhaviz-state-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setenv("XDG_STATE_HOME", tmpdir, 1);
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(dir_follows_xdg_then_home)
{
    char buf[512], err[200], want[512];
    ck_assert_int_eq(state_dir(buf, sizeof buf, 0, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/mhaviz", tmpdir);
    ck_assert_str_eq(buf, want);

    /* A relative XDG_STATE_HOME is invalid by the spec: HOME is used. */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    setenv("XDG_STATE_HOME", "relative/dir", 1);
    setenv("HOME", "/home/someone", 1);
    ck_assert_int_eq(state_dir(buf, sizeof buf, 0, err, sizeof err), 0);
    ck_assert_str_eq(buf, "/home/someone/.local/state/mhaviz");

    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    ck_assert_int_eq(state_dir(buf, sizeof buf, 0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "HOME"));
    if (home) {
        setenv("HOME", home, 1);
        free(home);
    }
    setenv("XDG_STATE_HOME", tmpdir, 1);
}
END_TEST

START_TEST(dir_is_created_with_parents)
{
    char deep[400], buf[512], err[200];
    snprintf(deep, sizeof deep, "%s/a/b", tmpdir);
    setenv("XDG_STATE_HOME", deep, 1);
    ck_assert_int_eq(state_dir(buf, sizeof buf, 1, err, sizeof err), 0);
    struct stat sb;
    ck_assert_int_eq(stat(buf, &sb), 0);
    ck_assert(S_ISDIR(sb.st_mode));
}
END_TEST

START_TEST(read_missing_is_not_an_error)
{
    char *out = (char *)1, err[200];
    size_t len = 99;
    ck_assert_int_eq(state_read("progress", &out, &len, err, sizeof err), 1);
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(len, 0);
}
END_TEST

START_TEST(write_then_read_round_trips)
{
    char err[200], *out = NULL;
    size_t len = 0;
    const char data[] = "line one\nline two\n";
    ck_assert_int_eq(state_write("progress", data, strlen(data), err, sizeof err), 0);
    ck_assert_int_eq(state_read("progress", &out, &len, err, sizeof err), 0);
    ck_assert_uint_eq(len, strlen(data));
    ck_assert_str_eq(out, data);
    free(out);
    /* Overwrite with something shorter: no leftover tail. */
    ck_assert_int_eq(state_write("progress", "x\n", 2, err, sizeof err), 0);
    ck_assert_int_eq(state_read("progress", &out, &len, err, sizeof err), 0);
    ck_assert_str_eq(out, "x\n");
    free(out);
    /* No temp file is left behind. */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s/mhaviz' | grep -q tmp", tmpdir);
    ck_assert_int_ne(system(cmd), 0);
}
END_TEST

START_TEST(bad_names_are_refused)
{
    char err[200], *out;
    ck_assert_int_eq(state_write("../escape", "x", 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "bad state file name"));
    ck_assert_int_eq(state_write(".hidden", "x", 1, err, sizeof err), -1);
    ck_assert_int_eq(state_read("a/b", &out, NULL, err, sizeof err), -1);
    ck_assert_int_eq(state_write("", "x", 1, err, sizeof err), -1);
}
END_TEST

START_TEST(unusable_dir_is_an_error_not_a_crash)
{
    /* XDG_STATE_HOME is a regular file: mkdir below it fails. */
    char file[400], err[200];
    snprintf(file, sizeof file, "%s/plainfile", tmpdir);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    setenv("XDG_STATE_HOME", file, 1);
    ck_assert_int_eq(state_write("progress", "x", 1, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "plainfile"));
}
END_TEST

/* The file is one of two known contents, written whole. */
static int whole_a_or_b(const char *s, size_t len, size_t n)
{
    if (len != n) return 0;
    for (size_t i = 1; i < n; i++)
        if (s[i] != s[0]) return 0;
    return s[0] == 'a' || s[0] == 'b';
}

START_TEST(kill_during_save_leaves_old_or_new)
{
    enum { N = 256 * 1024 };
    char *a = malloc(N), *b = malloc(N), err[200];
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    memset(a, 'a', N);
    memset(b, 'b', N);
    ck_assert_int_eq(state_write("progress", a, N, err, sizeof err), 0);

    for (int round = 0; round < 8; round++) {
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            for (unsigned i = 0;; i++)
                if (state_write("progress", (i & 1) ? a : b, N, err, sizeof err) != 0) _exit(3);
        }
        /* Let it get into the loop, at a different point each round. */
        struct timespec ts = {0, 2000000L + round * 1300000L};
        nanosleep(&ts, NULL);
        ck_assert_int_eq(kill(pid, SIGKILL), 0);
        int status = 0;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        char *out = NULL;
        size_t len = 0;
        ck_assert_int_eq(state_read("progress", &out, &len, err, sizeof err), 0);
        ck_assert_msg(whole_a_or_b(out, len, N), "round %d: torn file of %zu bytes", round, len);
        free(out);
    }
    free(a);
    free(b);
}
END_TEST

static Suite *state_suite(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, dir_follows_xdg_then_home);
    tcase_add_test(tc, dir_is_created_with_parents);
    tcase_add_test(tc, read_missing_is_not_an_error);
    tcase_add_test(tc, write_then_read_round_trips);
    tcase_add_test(tc, bad_names_are_refused);
    tcase_add_test(tc, unusable_dir_is_an_error_not_a_crash);
    tcase_add_test(tc, kill_during_save_leaves_old_or_new);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(state_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
