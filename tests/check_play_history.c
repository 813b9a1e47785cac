/* check_play_history.c - the playground's history in the state dir
 * (src/store/play_history.c): merged, bounded, never lost to a busy lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "engine/play.h"
#include "store/play_history.h"
#include "store/state.h"

/* The file's lines into lines (at most max), their count. */
static int file_lines(char lines[][64], int max)
{
    char *text = NULL, err[300];
    size_t len;
    int n = 0;
    if (state_read(PLAY_HISTORY_FILE, &text, &len, err, sizeof err) != 0 || !text) return 0;
    for (char *s = text, *nl; *s && n < max; s = nl + 1) {
        nl = strchr(s, '\n');
        if (nl) *nl = 0;
        snprintf(lines[n++], 64, "%s", s);
        if (!nl) break;
    }
    free(text);
    return n;
}

/* Two sessions loaded at the same moment, saving in turn: the file has all
 * six statements in the order they were saved (it used to keep the last
 * writer's three). */
START_TEST(two_sessions_keep_both)
{
    PlayHistory a, b;
    char err[300], stmt[64], got[8][64];
    play_history_load(&a);
    play_history_load(&b);
    for (int i = 1; i <= 3; i++) {
        snprintf(stmt, sizeof stmt, "a%d = torch.arange(%d)", i, i);
        ck_assert_int_eq(play_history_add(&a, stmt), 1);
        ck_assert_int_eq(play_history_save(&a, err, sizeof err), 0);
        snprintf(stmt, sizeof stmt, "b%d = torch.arange(%d)", i, i);
        ck_assert_int_eq(play_history_add(&b, stmt), 1);
        ck_assert_int_eq(play_history_save(&b, err, sizeof err), 0);
    }
    ck_assert_int_eq(file_lines(got, 8), 6);
    ck_assert_str_eq(got[0], "a1 = torch.arange(1)");
    ck_assert_str_eq(got[1], "b1 = torch.arange(1)");
    ck_assert_str_eq(got[5], "b3 = torch.arange(3)");
    ck_assert_int_eq(a.n, 3); /* Up recalls this session's own */
    play_history_free(&a);
    play_history_free(&b);
    PlayHistory c;
    play_history_load(&c);
    ck_assert_int_eq(c.n, 6);
    ck_assert_int_eq(c.unsaved, 0);
    play_history_free(&c);
}
END_TEST

/* Empty lines, repeats of the last, line ends and overlong ones are not kept;
 * the file holds the newest PLAY_HISTORY_MAX. */
START_TEST(bounded_and_filtered)
{
    PlayHistory h;
    char err[300], stmt[64], big[PLAY_LINE_MAX + 2];
    play_history_load(&h);
    ck_assert_int_eq(play_history_add(&h, ""), 0);
    ck_assert_int_eq(play_history_add(&h, "x = 1\ny = 2"), 0);
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ck_assert_int_eq(play_history_add(&h, big), 0);
    ck_assert_int_eq(play_history_add(&h, "x.t()"), 1);
    ck_assert_int_eq(play_history_add(&h, "x.t()"), 0);
    for (int i = 0; i < PLAY_HISTORY_MAX + 20; i++) {
        snprintf(stmt, sizeof stmt, "s%d", i);
        play_history_add(&h, stmt);
        if (i % 100 == 0) ck_assert_int_eq(play_history_save(&h, err, sizeof err), 0);
    }
    ck_assert_int_eq(h.n, PLAY_HISTORY_MAX);
    ck_assert_int_eq(play_history_save(&h, err, sizeof err), 0);
    play_history_free(&h);
    play_history_load(&h);
    ck_assert_int_eq(h.n, PLAY_HISTORY_MAX);
    ck_assert_str_eq(h.line[0], "s20");
    ck_assert_str_eq(h.line[PLAY_HISTORY_MAX - 1], "s519");
    play_history_free(&h);
}
END_TEST

/* A lock held by another process: the save gives up quickly, the statement
 * stays unsaved and goes with the next save. */
START_TEST(busy_lock_keeps_the_line_for_later)
{
    PlayHistory h;
    char err[300], got[4][64];
    int fd = state_lock(err, sizeof err);
    ck_assert_int_ge(fd, 0);
    play_history_load(&h);
    play_history_add(&h, "q = Q.view(2, 4)");
    /* flock is per open file: our own second open waits like another mhaviz */
    ck_assert_int_eq(play_history_save(&h, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/mhaviz/lock: held by another mhaviz"), "%s", err);
    ck_assert_int_eq(h.unsaved, 1);
    state_unlock(fd);
    play_history_add(&h, "q.stride()");
    ck_assert_int_eq(h.unsaved, 2);
    ck_assert_int_eq(play_history_save(&h, err, sizeof err), 0);
    ck_assert_int_eq(file_lines(got, 4), 2);
    ck_assert_str_eq(got[0], "q = Q.view(2, 4)");
    play_history_free(&h);
}
END_TEST

/* A file it did not write (a NUL byte) is kept as .bad before the merge
 * replaces it; its readable lines stay. */
START_TEST(foreign_file_is_kept_as_bad)
{
    char err[300], dir[512], path[600];
    ck_assert_int_eq(state_dir(dir, sizeof dir, 1, err, sizeof err), 0);
    ck_assert_int_eq(state_write(PLAY_HISTORY_FILE, "old\n\0junk\n", 10, err, sizeof err), 0);
    PlayHistory h;
    play_history_load(&h);
    ck_assert_int_eq(h.n, 1);
    play_history_add(&h, "new");
    ck_assert_int_eq(play_history_save(&h, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/" PLAY_HISTORY_FILE ".bad", dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    char got[4][64];
    ck_assert_int_eq(file_lines(got, 4), 2);
    ck_assert_str_eq(got[1], "new");
    play_history_free(&h);
}
END_TEST

static Suite *play_history_suite(void)
{
    Suite *s = suite_create("play_history");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, state_dir_setup, state_dir_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, two_sessions_keep_both);
    tcase_add_test(tc, bounded_and_filtered);
    tcase_add_test(tc, busy_lock_keeps_the_line_for_later);
    tcase_add_test(tc, foreign_file_is_kept_as_bad);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(play_history_suite)
