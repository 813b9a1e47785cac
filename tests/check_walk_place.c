/* check_walk_place.c - the walkthrough's place between runs
 * (store/walk_place.c, ui/walk.c): the file's round trip, a bad file kept
 * aside, closing the walkthrough saves its step and configuration, the home
 * menu's entry continues there, `mhaviz walk FLAGS` starts where its flags
 * say, Explore and --no-save write nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "app_fixture.h"
#include "check_main.h"
#include "store/state.h"
#include "store/walk_place.h"

/* A fresh XDG_STATE_HOME for each test (tests/check_main.h). */

/* The screen API in one place (a screen closes with screen_close; the
 * screen a key opens is app_fixture.h's pushed). */
static void close_screen(Screen *s)
{
    screen_close(s);
}

static Screen *opened(const Ui *ui)
{
    (void)ui;
    return pushed;
}

static int exists(const char *name)
{
    char dir[4096], err[200], path[4200];
    struct stat st;
    ck_assert_int_eq(state_dir(dir, sizeof dir, 0, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

START_TEST(format_reads_back)
{
    WalkPlace p = {.step = 11, .cfg = mha_config_default()}, q;
    p.cfg.heads = p.cfg.kv_heads = 4;
    p.cfg.seq = 6;
    p.cfg.causal = 1;
    p.cfg.window = 3;
    p.cfg.rope = ROPE_INTERLEAVED;
    p.cfg.rope_theta = 500000;
    p.cfg.seed = 4000000000u;
    char *text = walk_place_format(&p), err[200];
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "# mhaviz walkthrough v1\nstep 11\n"));
    ck_assert_int_eq(walk_place_parse(&q, text, err, sizeof err), 0);
    ck_assert_int_eq(q.step, 11);
    ck_assert(mha_config_same(&p.cfg, &q.cfg));
    free(text);
}
END_TEST

START_TEST(bad_files_are_refused)
{
    static const char *bad[] = {
        "", "# mhaviz walkthrough v2\n",
        /* a step past the run's last (10 without RoPE) */
        "# mhaviz walkthrough v1\nstep 11\nbatch 1\nseq 4\nd_model 8\nheads 2\nkv_heads 2\n"
        "causal 0\nseed 1\nrope off\nrope_theta 10000\nwindow 0\n",
        /* heads 3 does not divide d_model 8 */
        "# mhaviz walkthrough v1\nstep 1\nbatch 1\nseq 4\nd_model 8\nheads 3\nkv_heads 3\n"
        "causal 0\nseed 1\nrope off\nrope_theta 10000\nwindow 0\n",
        /* window missing, a sign */
        "# mhaviz walkthrough v1\nstep 1\nbatch 1\nseq 4\nd_model 8\nheads 2\nkv_heads 2\n"
        "causal 0\nseed 1\nrope off\nrope_theta 10000\n",
        "# mhaviz walkthrough v1\nstep -1\nbatch 1\nseq 4\nd_model 8\nheads 2\nkv_heads 2\n"
        "causal 0\nseed 1\nrope off\nrope_theta 10000\nwindow 0\n",
        "# mhaviz walkthrough v1\nstep 1\nstep 2\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        WalkPlace p;
        char err[200] = "";
        ck_assert_msg(walk_place_parse(&p, bad[i], err, sizeof err) < 0, "accepted %zu", i);
        ck_assert_msg(err[0], "no reason for %zu", i);
    }
}
END_TEST

START_TEST(corrupt_file_kept_aside)
{
    const char *bad = "# mhaviz walkthrough v1\nstep seven\n";
    tu_state_put(WALK_PLACE_FILE, bad, strlen(bad));
    WalkPlace p;
    int no_write = 0;
    char warning[320];
    ck_assert_int_eq(walk_place_load(&p, 0, &no_write, warning, sizeof warning), 0);
    ck_assert_ptr_nonnull(strstr(warning, "kept as walk.bad"));
    ck_assert_int_eq(no_write, 0);
    char *kept = tu_state_slurp(WALK_PLACE_FILE ".bad", NULL);
    ck_assert_str_eq(kept, bad);
    free(kept);
    /* again: .bad is never overwritten */
    tu_state_put(WALK_PLACE_FILE, "garbage\n", 8);
    ck_assert_int_eq(walk_place_load(&p, 0, &no_write, warning, sizeof warning), 0);
    ck_assert_ptr_nonnull(strstr(warning, "walk.bad.2"));
    /* with --no-save nothing is written, not even the .bad copy */
    tu_state_put(WALK_PLACE_FILE, "junk\n", 5);
    ck_assert_int_eq(walk_place_load(&p, 1, &no_write, warning, sizeof warning), 0);
    ck_assert_ptr_nonnull(strstr(warning, "ignored"));
    ck_assert(!exists(WALK_PLACE_FILE ".bad.3"));
}
END_TEST

/* Quit the walkthrough at step 7 with --heads 4; the home menu's entry
 * opens it again at step 7 with heads 4. */
START_TEST(quit_at_step_then_continue)
{
    Ui ui;
    ui_with(&ui, "--heads", "4");
    Screen *s = walk_open_at(&ui, 0);
    for (int i = 0; i < 7; i++)
        press(s, &ui, ' ');
    ck_assert(step_shown(s, &ui, 7));
    close_screen(s);
    char *text = tu_state_slurp(WALK_PLACE_FILE, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "\nstep 7\n"));
    ck_assert_ptr_nonnull(strstr(text, "\nheads 4\n"));
    free(text);
    ui_free(&ui);

    ui_with(&ui, NULL, NULL); /* mhaviz: the home menu, default config */
    ck_assert_int_eq(ui.cfg.heads, 2);
    Screen *h = home_open(&ui);
    ck_assert_int_ne(press(h, &ui, '1') & UI_PUSH, 0);
    s = opened(&ui);
    ck_assert_int_eq(ui.cfg.heads, 4);
    ck_assert(step_shown(s, &ui, 7));
    ck_assert_msg(strstr(ui.status, "continued at step 7"), "%s", ui.status);
    ck_assert(shows(s, &ui, 80, 24, "continued at step 7"));
    /* on to step 9, back home: the place follows */
    press(s, &ui, ' ');
    press(s, &ui, ' ');
    close_screen(s);
    text = tu_state_slurp(WALK_PLACE_FILE, NULL);
    ck_assert_ptr_nonnull(strstr(text, "\nstep 9\n"));
    free(text);
    close_screen(h);
    ui_free(&ui);

    /* mhaviz walk FLAGS starts where its flags say, not at the place */
    ui_with(&ui, "--seq", "6");
    s = walk_open_at(&ui, 0);
    ck_assert(step_shown(s, &ui, 0));
    ck_assert_int_eq(ui.cfg.seq, 6);
    close_screen(s);
    ui_free(&ui);
}
END_TEST

START_TEST(explore_and_no_save_write_nothing)
{
    Ui ui;
    ui_with(&ui, "--no-save", NULL);
    Screen *s = walk_open_at(&ui, 5);
    close_screen(s);
    ck_assert(!exists(WALK_PLACE_FILE));
    ui_free(&ui);
    ui_with(&ui, NULL, NULL);
    s = walk_open_explore(&ui);
    press(s, &ui, ' ');
    close_screen(s);
    ck_assert(!exists(WALK_PLACE_FILE));
    /* nothing saved: the home entry opens step 0 and says nothing */
    ui.status[0] = 0;
    s = walk_continue(&ui);
    ck_assert(step_shown(s, &ui, 0));
    ck_assert_str_eq(ui.status, "");
    close_screen(s);
    ui_free(&ui);
}
END_TEST

static Suite *walk_place_suite(void)
{
    Suite *s = suite_create("walk_place");
    TCase *t = tcase_create("place");
    tcase_add_checked_fixture(t, state_dir_setup, state_dir_teardown);
    tcase_add_test(t, format_reads_back);
    tcase_add_test(t, bad_files_are_refused);
    tcase_add_test(t, corrupt_file_kept_aside);
    tcase_add_test(t, quit_at_step_then_continue);
    tcase_add_test(t, explore_and_no_save_write_nothing);
    suite_add_tcase(s, t);
    return s;
}

CHECK_MAIN(walk_place_suite)
