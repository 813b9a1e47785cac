/* check_puzzle_best.c - the puzzles' best scores (store/puzzle_best.c): the
 * fewest bytes kept, a merge with another run's file, a corrupt file kept
 * aside, --no-save never writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "store/puzzle_best.h"
#include "store/state.h"

/* A fresh XDG_STATE_HOME for each test (tests/check_main.h). */

START_TEST(keeps_the_fewest_bytes)
{
    PuzzleBests b;
    puzzle_best_load(&b, 0);
    ck_assert_int_eq(puzzle_best_get(&b, "split_heads"), -1);
    ck_assert_int_eq(puzzle_best_record(&b, "split_heads", 96), 1);
    ck_assert_int_eq(puzzle_best_record(&b, "split_heads", 192), 0); /* worse: not kept */
    ck_assert_int_eq(puzzle_best_record(&b, "split_heads", 0), 1);
    ck_assert_int_eq(puzzle_best_record(&b, "merge_heads", 192), 1);
    char *text = tu_state_slurp(PUZZLE_BEST_FILE, NULL);
    ck_assert_str_eq(text, "# mhaviz puzzle bests v1\nsplit_heads 0\nmerge_heads 192\n");
    free(text);
    PuzzleBests again;
    puzzle_best_load(&again, 0);
    ck_assert_int_eq(puzzle_best_get(&again, "split_heads"), 0);
    ck_assert_int_eq(puzzle_best_get(&again, "merge_heads"), 192);
    ck_assert_str_eq(again.warning, "");
}
END_TEST

START_TEST(merges_with_another_run)
{
    PuzzleBests a, b;
    puzzle_best_load(&a, 0);
    puzzle_best_load(&b, 0);
    puzzle_best_record(&a, "repeat_kv", 192);
    puzzle_best_record(&b, "kv_append", 128);
    puzzle_best_record(&b, "repeat_kv", 400); /* a's 192 is better: stays */
    char *text = tu_state_slurp(PUZZLE_BEST_FILE, NULL);
    ck_assert_msg(strstr(text, "repeat_kv 192\n") && strstr(text, "kv_append 128\n"), "%s", text);
    free(text);
}
END_TEST

START_TEST(corrupt_file_kept_aside)
{
    const char *planted = "# mhaviz puzzle bests v1\nsplit_heads lots\n";
    tu_state_put(PUZZLE_BEST_FILE, planted, strlen(planted));
    PuzzleBests b;
    puzzle_best_load(&b, 0);
    ck_assert_msg(strstr(b.warning, "line 2: expected 'puzzle-name BYTES'") &&
                      strstr(b.warning, "kept as puzzles.bad"),
                  "%s", b.warning);
    char *bad = tu_state_slurp(PUZZLE_BEST_FILE ".bad", NULL);
    ck_assert_str_eq(bad, "# mhaviz puzzle bests v1\nsplit_heads lots\n");
    free(bad);
    ck_assert_int_eq(puzzle_best_record(&b, "split_heads", 0), 1);
    char *text = tu_state_slurp(PUZZLE_BEST_FILE, NULL);
    ck_assert_str_eq(text, "# mhaviz puzzle bests v1\nsplit_heads 0\n");
    free(text);
    char err[200];
    PuzzleBests p;
    ck_assert_int_eq(puzzle_best_parse(&p, "", err, sizeof err), -1);
    ck_assert_int_eq(puzzle_best_parse(&p, "# mhaviz puzzle bests v1\na 1\na 2\n", err, sizeof err),
                     -1);
    ck_assert_int_eq(puzzle_best_parse(&p, "# mhaviz puzzle bests v1\nb/c 1\n", err, sizeof err),
                     -1);
    ck_assert_int_eq(puzzle_best_parse(&p, "# mhaviz puzzle bests v1\nb -1\n", err, sizeof err),
                     -1);
}
END_TEST

START_TEST(no_save_never_writes)
{
    PuzzleBests b;
    puzzle_best_load(&b, 1);
    ck_assert_int_eq(puzzle_best_record(&b, "split_heads", 0), 1);
    ck_assert_int_eq(puzzle_best_get(&b, "split_heads"), 0);
    ck_assert_ptr_null(tu_state_slurp(PUZZLE_BEST_FILE, NULL));
}
END_TEST

static Suite *puzzle_best_suite(void)
{
    Suite *s = suite_create("puzzle_best");
    TCase *t = tcase_create("bests");
    tcase_add_checked_fixture(t, state_dir_setup, state_dir_teardown);
    tcase_add_test(t, keeps_the_fewest_bytes);
    tcase_add_test(t, merges_with_another_run);
    tcase_add_test(t, corrupt_file_kept_aside);
    tcase_add_test(t, no_save_never_writes);
    suite_add_tcase(s, t);
    return s;
}

CHECK_MAIN(puzzle_best_suite)
