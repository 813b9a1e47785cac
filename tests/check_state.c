/* check_state.c - state directory resolution and atomic writes (src/state.c). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "store/state.h"

/* A fresh XDG_STATE_HOME for each test (tests/check_main.h). */

START_TEST(dir_follows_xdg_then_home)
{
    char buf[512], err[200], want[512];
    ck_assert_int_eq(state_dir(buf, sizeof buf, 0, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/mhaviz", test_state_dir);
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
    setenv("XDG_STATE_HOME", test_state_dir, 1);
}
END_TEST

START_TEST(dir_is_created_with_parents)
{
    char deep[400], buf[512], err[200];
    snprintf(deep, sizeof deep, "%s/a/b", test_state_dir);
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
    snprintf(cmd, sizeof cmd, "ls '%s/mhaviz' | grep -q tmp", test_state_dir);
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
    snprintf(file, sizeof file, "%s/plainfile", test_state_dir);
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

/* Files in the state dir whose name starts with prefix. */
static int count_files(const char *prefix)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/mhaviz", test_state_dir);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d) closedir(d);
    return n;
}

static char *read_name(const char *name)
{
    char *out = NULL, err[200];
    size_t len;
    ck_assert_int_eq(state_read(name, &out, &len, err, sizeof err), 0);
    return out;
}

/* #8 item 6: a write that fails half way (here: RLIMIT_FSIZE below the data
 * length, so write(2) stops with EFBIG) leaves the old file and no temp. */
START_TEST(failed_write_keeps_old_file_and_no_temp)
{
    char err[200];
    ck_assert_int_eq(state_write("progress", "old\n", 4, err, sizeof err), 0);
    static char big[8192];
    memset(big, 'x', sizeof big);
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = 1000;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc = state_write("progress", big, sizeof big, err, sizeof err);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    ck_assert_int_eq(rc, -1);
    ck_assert_msg(strstr(err, "/mhaviz/progress: File too large"), "%s", err);
    char *out = read_name("progress");
    ck_assert_str_eq(out, "old\n");
    free(out);
    ck_assert_int_eq(count_files("progress.tmp."), 0);
}
END_TEST

/* The fsyncs an atomic write needs: the data before the rename (else a
 * crash can leave the new name on an empty file), the directory after it. */
static char fsync_seen[4][16];
static int nfsync;
static int record_fsync(int fd)
{
    struct stat sb;
    char *cur = NULL, err[200];
    size_t len = 0;
    if (fstat(fd, &sb) == 0 && nfsync < 4) {
        int r = state_read("progress", &cur, &len, err, sizeof err);
        snprintf(fsync_seen[nfsync++], sizeof fsync_seen[0], "%s:%s",
                 S_ISDIR(sb.st_mode)   ? "dir"
                 : S_ISREG(sb.st_mode) ? "file"
                                       : "?",
                 r == 0 ? cur : "none");
        free(cur);
    }
    return fsync(fd);
}

START_TEST(write_syncs_data_then_directory)
{
    char err[200];
    ck_assert_int_eq(state_write("progress", "old", 3, err, sizeof err), 0);
    int (*prev)(int) = state_fsync_hook;
    state_fsync_hook = record_fsync;
    nfsync = 0;
    int rc = state_write("progress", "new", 3, err, sizeof err);
    state_fsync_hook = prev;
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(nfsync, 2);
    ck_assert_str_eq(fsync_seen[0], "file:old"); /* the temp file, before the rename */
    ck_assert_str_eq(fsync_seen[1], "dir:new");  /* the directory, after it */
}
END_TEST

/* Finding 6: a writer killed between mkstemp and rename left a full copy
 * that nothing removed.  The next save removes ours (old enough), and no
 * other file. */
START_TEST(stale_temp_files_are_removed)
{
    char err[200], dir[512], path[600];
    ck_assert_int_eq(state_dir(dir, sizeof dir, 1, err, sizeof err), 0);
    static const char *names[] = {"quiz-history.tmp.AAAAAA", "quiz-history.tmp.BBBBBB",
                                  "quiz-history.tmp.CCCCCC", "quiz-history.tmpx",
                                  "notes.tmp.DDDDDD"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs("left by a kill", f);
        fclose(f);
        if (i == 2) continue; /* just written: may be a writer at work, spared */
        struct timeval tv[2] = {{time(NULL) - 60, 0}, {time(NULL) - 60, 0}};
        ck_assert_int_eq(utimes(path, tv), 0);
    }
    ck_assert_int_eq(state_write("quiz-history", "x", 1, err, sizeof err), 0);
    ck_assert_int_eq(count_files("quiz-history.tmp."), 1); /* CCCCCC */
    ck_assert_int_eq(count_files("quiz-history.tmpx"), 1);
    ck_assert_int_eq(count_files("notes.tmp."), 1);
}
END_TEST

/* Finding 4: kept copies are numbered, an earlier one is never replaced. */
START_TEST(keep_bad_never_overwrites)
{
    char err[200], kept[64];
    const char *want[] = {"progress.bad", "progress.bad.2", "progress.bad.3"};
    const char *data[] = {"one", "two", "three"};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(state_keep_bad("progress", data[i], strlen(data[i]), kept, sizeof kept,
                                        err, sizeof err),
                         0);
        ck_assert_str_eq(kept, want[i]);
    }
    for (int i = 0; i < 3; i++) {
        char *out = read_name(want[i]);
        ck_assert_str_eq(out, data[i]);
        free(out);
    }
    ck_assert_int_eq(count_files("progress.tmp."), 0);
}
END_TEST

/* The lock is exclusive: another process cannot take it while it is held. */
START_TEST(lock_is_exclusive)
{
    char err[200], path[600];
    int fd = state_lock(err, sizeof err);
    ck_assert_int_ge(fd, 0);
    snprintf(path, sizeof path, "%s/mhaviz/" STATE_LOCK_FILE, test_state_dir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int f = open(path, O_RDWR);
        _exit(f >= 0 && flock(f, LOCK_EX | LOCK_NB) != 0 ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    state_unlock(fd);
    fd = state_lock(err, sizeof err); /* free again */
    ck_assert_int_ge(fd, 0);
    state_unlock(fd);
}
END_TEST

/* Finding 5: a FIFO (or a directory) as a state file is refused at once
 * with one line; it used to block the open forever. */
START_TEST(fifo_state_file_is_refused)
{
    char err[200], path[600];
    ck_assert_int_eq(state_dir(path, sizeof path, 1, err, sizeof err), 0);
    strcat(path, "/quiz-history");
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    alarm(10); /* the old code hung here: die rather than hang the suite */
    char *out = NULL;
    size_t len;
    ck_assert_int_eq(state_read("quiz-history", &out, &len, err, sizeof err), -1);
    alarm(0);
    ck_assert_ptr_null(out);
    ck_assert_msg(strstr(err, "quiz-history: is not a regular file (a FIFO)"), "%s", err);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(state_read("quiz-history", &out, &len, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "quiz-history: is a directory"), "%s", err);
}
END_TEST

/* Item 12: a symlink planted as the lock is refused, and the message names
 * the lock, not the directory. */
START_TEST(symlinked_lock_names_the_lock)
{
    char err[300], dir[512], path[600];
    ck_assert_int_eq(state_dir(dir, sizeof dir, 1, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/" STATE_LOCK_FILE, dir);
    ck_assert_int_eq(symlink("/tmp/mhaviz-no-such-target", path), 0);
    ck_assert_int_eq(state_lock(err, sizeof err), -1);
    char want[700];
    snprintf(want, sizeof want, "%s: is a symbolic link", path);
    ck_assert_msg(strstr(err, want), "%s", err);
}
END_TEST

/* The one reader of a state file's lines: the header checked, empty lines
 * skipped, the last line without its newline, a long line refused. */
START_TEST(next_line_reads_a_state_file)
{
    const char *text = "# h v1\na 1\n\nb 2", *at = text;
    char buf[8], err[100];
    int line = 0;
    ck_assert_int_eq(state_next_line(&at, "# h v1", &line, buf, sizeof buf, err, sizeof err), 1);
    ck_assert_str_eq(buf, "a 1");
    ck_assert_int_eq(line, 2);
    ck_assert_int_eq(state_next_line(&at, "# h v1", &line, buf, sizeof buf, err, sizeof err), 1);
    ck_assert_str_eq(buf, "b 2");
    ck_assert_int_eq(line, 4);
    ck_assert_int_eq(state_next_line(&at, "# h v1", &line, buf, sizeof buf, err, sizeof err), 0);
    at = "# h v2\n", line = 0;
    ck_assert_int_eq(state_next_line(&at, "# h v1", &line, buf, sizeof buf, err, sizeof err), -1);
    ck_assert_str_eq(err, "line 1 is not '# h v1'");
    at = "# h\nabcdefgh\n", line = 0;
    ck_assert_int_eq(state_next_line(&at, "# h", &line, buf, sizeof buf, err, sizeof err), -1);
    ck_assert_str_eq(err, "line 2 is too long");
    at = "", line = 0;
    ck_assert_int_eq(state_next_line(&at, "# h", &line, buf, sizeof buf, err, sizeof err), 0);
    ck_assert_int_eq(line, 0);
}
END_TEST

/* The one rule for a state file's keys (a lesson name, a puzzle name). */
START_TEST(key_rule)
{
    ck_assert_int_eq(state_key_ok("02-heads", 8, 32, "."), 1);
    ck_assert_int_eq(state_key_ok("02-heads.solved", 15, 32, "."), 1);
    ck_assert_int_eq(state_key_ok("02-heads.solved", 15, 32, ""), 0);
    ck_assert_int_eq(state_key_ok("a b", 3, 32, "."), 0);  /* the line's separator */
    ck_assert_int_eq(state_key_ok("a/b", 3, 32, "."), 0);  /* a path */
    ck_assert_int_eq(state_key_ok("a\nb", 3, 32, "."), 0); /* a newline */
    ck_assert_int_eq(state_key_ok("", 0, 32, "."), 0);
    ck_assert_int_eq(state_key_ok("abc", 3, 4, ""), 1); /* cap - 1 fits */
    ck_assert_int_eq(state_key_ok("abcd", 4, 4, ""), 0);
    ck_assert_int_eq(state_key_ok("a\0b", 3, 32, "."), 0); /* NUL is never in also */
}
END_TEST

static Suite *state_suite(void)
{
    Suite *s = suite_create("state");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, state_dir_setup, state_dir_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, dir_follows_xdg_then_home);
    tcase_add_test(tc, dir_is_created_with_parents);
    tcase_add_test(tc, read_missing_is_not_an_error);
    tcase_add_test(tc, write_then_read_round_trips);
    tcase_add_test(tc, bad_names_are_refused);
    tcase_add_test(tc, unusable_dir_is_an_error_not_a_crash);
    tcase_add_test(tc, kill_during_save_leaves_old_or_new);
    tcase_add_test(tc, failed_write_keeps_old_file_and_no_temp);
    tcase_add_test(tc, write_syncs_data_then_directory);
    tcase_add_test(tc, stale_temp_files_are_removed);
    tcase_add_test(tc, keep_bad_never_overwrites);
    tcase_add_test(tc, lock_is_exclusive);
    tcase_add_test(tc, fifo_state_file_is_refused);
    tcase_add_test(tc, symlinked_lock_names_the_lock);
    tcase_add_test(tc, key_rule);
    tcase_add_test(tc, next_line_reads_a_state_file);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(state_suite)
