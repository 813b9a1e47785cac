/* check_walk.c - the walkthrough's presenter keys, driven as the loop drives
 * them: v steps through the failure pictures, b blanks the screen. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "app_fixture.h"
#include "check_main.h"

/* Is every cell of the frame blank? */
static int frame_blank(Screen *s, Ui *ui)
{
    Canvas *c = draw(s, ui, 80, 24);
    int blank = 1;
    for (int y = 0; y < c->h && blank; y++)
        for (int x = 0; x < c->w && blank; x++)
            blank = canvas_at(c, x, y)->ch == ' ';
    canvas_free(c);
    return blank;
}

/* Blank holds autoplay: the time it had left comes back after the blank. */
START_TEST(test_blank_holds_autoplay)
{
    Ui ui;
    ui_with(&ui, "--no-animation", "--autoplay=2");
    Screen *s = walk_open_at(&ui, 0);
    ck_assert_int_eq(screen_tick(s, &ui, 100.0) & UI_ANIMATE, UI_ANIMATE); /* next step at 102 */
    ck_assert_int_eq(screen_tick(s, &ui, 101.0) & UI_ANIMATE, UI_ANIMATE);
    press(s, &ui, 'b');
    ck_assert_int_eq(screen_tick(s, &ui, 101.5), 0); /* blank: holds 0.5 s left, nothing wakes */
    ck_assert_int_eq(screen_tick(s, &ui, 110.0), 0);
    ck_assert(frame_blank(s, &ui));
    ck_assert_int_eq(press(s, &ui, 'x') & UI_ANIMATE, UI_ANIMATE);
    screen_tick(s, &ui, 200.0); /* back: 0.5 s left from now */
    ck_assert(step_shown(s, &ui, 0));
    screen_tick(s, &ui, 200.4);
    ck_assert(step_shown(s, &ui, 0));
    screen_tick(s, &ui, 200.51);
    ck_assert(step_shown(s, &ui, 1));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* A clicker key during an animation ends it and steps; the phase a blank
 * interrupted comes back. */
START_TEST(test_clicker_steps_during_an_animation)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s = walk_open_at(&ui, MS_CONTIG - 1);
    ck_assert_int_eq(press(s, &ui, ' ') & UI_ANIMATE, UI_ANIMATE); /* step 8 animates */
    screen_tick(s, &ui, 10.0);
    screen_tick(s, &ui, 10.3);
    press(s, &ui, 'b');
    ck_assert_int_eq(screen_tick(s, &ui, 10.4), 0);
    press(s, &ui, 'x');
    ck_assert_int_eq(screen_tick(s, &ui, 50.0) & UI_ANIMATE, UI_ANIMATE); /* still mid-copy */
    ck_assert(step_shown(s, &ui, MS_CONTIG));
    ck_assert_int_eq(press(s, &ui, UI_K_PGDN) & UI_REDRAW, UI_REDRAW);
    ck_assert(step_shown(s, &ui, MS_CONTIG + 1));
    press(s, &ui, UI_K_PGUP);
    press(s, &ui, UI_K_PGUP);
    ck_assert_int_eq(press(s, &ui, ' ') & UI_ANIMATE, UI_ANIMATE); /* 8 again, animating */
    press(s, &ui, UI_K_LEFT);
    ck_assert(step_shown(s, &ui, MS_CONTIG - 1));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* g, the digits, Enter: a step by number; g Enter is the first step. */
START_TEST(test_g_goes_to_a_step)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    Screen *s = walk_open_at(&ui, 5);
    press(s, &ui, 'g');
    ck_assert(shows(s, &ui, 80, 24, "go to step _"));
    press(s, &ui, UI_K_ENTER);
    ck_assert(step_shown(s, &ui, 0));
    press(s, &ui, 'g');
    press(s, &ui, '1');
    press(s, &ui, '0');
    ck_assert(shows(s, &ui, 80, 24, "go to step 10_"));
    press(s, &ui, UI_K_ENTER);
    ck_assert(step_shown(s, &ui, 10));
    press(s, &ui, 'g');
    press(s, &ui, UI_K_ESC);
    ck_assert(step_shown(s, &ui, 10));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_v_shows_the_failure_pictures)
{
    Ui ui;
    ui_with(&ui, "--no-animation", "--step=heads");
    Screen *s = walk_open_at(&ui, MS_HEADS);
    ck_assert_int_eq(press(s, &ui, 'v'), UI_REDRAW);
    ck_assert(shows(s, &ui, 80, 24, "failure mode: Q.view(B, H, S, dh) without the transpose"));
    ck_assert(shows(s, &ui, 80, 24, "Q_wrong = Q.view(B, H, S, dh)  # the bug"));
    ck_assert_ptr_nonnull(strstr(ui.status, "back to step 3"));
    /* the whole line on the bottom row at 80 columns: it was cut "back to..." */
    ck_assert(shows(s, &ui, 80, 24, "(v: next, Space: back to step 3)"));
    press(s, &ui, 'v');
    ck_assert(shows(s, &ui, 80, 24, "failure mode: softmax without / sqrt(dh)"));
    ck_assert(shows(s, &ui, 80, 24, "# the bug"));
    press(s, &ui, 'v'); /* and round to the step's own picture */
    ck_assert(step_shown(s, &ui, MS_HEADS));
    press(s, &ui, 'v');
    press(s, &ui, ' '); /* from a failure picture, Space comes back to the step */
    ck_assert(step_shown(s, &ui, MS_HEADS));
    press(s, &ui, ' ');
    ck_assert(step_shown(s, &ui, MS_HEADS + 1));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_b_blanks_until_any_key)
{
    Ui ui;
    ui_with(&ui, "--no-animation", "--step=split");
    Screen *s = walk_open_at(&ui, MS_SPLIT);
    ck_assert(!frame_blank(s, &ui));
    ck_assert_int_eq(press(s, &ui, 'b'), UI_REDRAW);
    ck_assert(frame_blank(s, &ui));
    ck_assert_int_eq(press(s, &ui, ' '), UI_REDRAW); /* brings it back, nothing more */
    ck_assert(step_shown(s, &ui, MS_SPLIT));
    ck_assert_int_eq(press(s, &ui, 'b'), UI_REDRAW);
    ck_assert_int_eq(press(s, &ui, 'q'), UI_REDRAW); /* not even quit */
    ck_assert(step_shown(s, &ui, MS_SPLIT));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* The new keys are in the one key table, so `?` lists them. */
START_TEST(test_presenter_keys_in_help)
{
    static char sec[16384];
    char line[200];
    int i = keys_help_section(KC_WALK);
    ck_assert_int_ge(i, 0);
    for (const char *l; (l = keys_help_line(i, line, sizeof line)) && l[0]; i++) {
        strncat(sec, l, sizeof sec - strlen(sec) - 2);
        strcat(sec, "\n");
    }
    ck_assert_ptr_nonnull(strstr(sec, "failure pictures"));
    ck_assert_ptr_nonnull(strstr(sec, "blank the screen"));
    ck_assert_int_eq(screenstack_action(KC_WALK, 'v'), ACT_FAILURE);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'b'), ACT_BLANK);
}
END_TEST

/* The bottom line's keys come from the key table, for what the walkthrough
 * is doing; each names a key that does what it says. */
START_TEST(test_hint_follows_the_mode)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    Screen *s = walk_open_at(&ui, MS_SPLIT);
    ck_assert(shows(s, &ui, 80, 24, "Space next  Left back  i inspect  c config  ? keys  q back"));
    ck_assert_int_eq(screenstack_action(KC_WALK, 'c'), ACT_CONFIG);
    press(s, &ui, 'i');
    ck_assert(shows(s, &ui, 80, 24, "Left/Right/Up/Down move  i/Esc leave  ? keys  q back"));
    press(s, &ui, 'i');
    press(s, &ui, 'p');
    ui.status[0] = 0;
    ck_assert(shows(s, &ui, 80, 24, "p stop  +/- speed  ? keys  q back"));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* L turns large print on and off at the same step (the strip's cells twice
 * as wide, their values in them); --large starts with it on. */
START_TEST(test_l_toggles_large_print)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    Screen *s = walk_open_at(&ui, MS_SPLIT);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'L'), ACT_LARGE);
    ck_assert(shows(s, &ui, 100, 30, "    0     1     2     3"));
    ck_assert_int_eq(press(s, &ui, 'L') & UI_REDRAW, UI_REDRAW);
    ck_assert_int_eq(ui.large, 1);
    ck_assert(shows(s, &ui, 100, 30, "large print on"));
    ck_assert(shows(s, &ui, 100, 30, " 0               1.18  1               0.23"));
    ck_assert(step_shown(s, &ui, MS_SPLIT));
    press(s, &ui, 'L');
    ck_assert_int_eq(ui.large, 0);
    ck_assert(shows(s, &ui, 100, 30, "    0     1     2     3"));
    screen_close(s);
    ui_free(&ui);
    ui_with(&ui, "--no-animation", "--large");
    ck_assert_int_eq(ui.large, 1);
    s = walk_open_at(&ui, MS_SPLIT);
    ck_assert(shows(s, &ui, 100, 30, " 0               1.18  1               0.23"));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

static Suite *walk_suite(void)
{
    Suite *s = suite_create("walk");
    TCase *tc = tcase_create("presenter");
    tcase_add_test(tc, test_v_shows_the_failure_pictures);
    tcase_add_test(tc, test_b_blanks_until_any_key);
    tcase_add_test(tc, test_blank_holds_autoplay);
    tcase_add_test(tc, test_clicker_steps_during_an_animation);
    tcase_add_test(tc, test_g_goes_to_a_step);
    tcase_add_test(tc, test_hint_follows_the_mode);
    tcase_add_test(tc, test_presenter_keys_in_help);
    tcase_add_test(tc, test_l_toggles_large_print);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(walk_suite)
