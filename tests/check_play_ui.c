/* check_play_ui.c - the play screen without a terminal: typing, Enter, the
 * result drawn, history with Up/Down (kept in the state dir), Tab completion,
 * the line-editing keys, and q/Esc/? only acting on an empty line. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "app_fixture.h"
#include "check_main.h"
#include "ui/play.h"

static void type(Screen *s, Ui *ui, const char *text)
{
    for (; *text; text++)
        ck_assert_int_eq(press(s, ui, (unsigned char)*text), UI_REDRAW);
}

START_TEST(type_run_and_draw)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s = play_open(&ui);
    ck_assert_ptr_nonnull(s);
    ck_assert(shows(s, &ui, 80, 24, "Type a PyTorch statement"));
    type(s, &ui, "b = Q.view(1, 4, 2, 4).transpose(1, 2)");
    ck_assert(shows(s, &ui, 80, 24, ">>> b = Q.view(1, 4, 2, 4)"));
    ck_assert_int_eq(press(s, &ui, UI_K_ENTER), UI_REDRAW);
    ck_assert(shows(s, &ui, 80, 24, "shape (1, 2, 4, 4)   strides (32, 4, 8, 1)   offset 0"));
    ck_assert(shows(s, &ui, 80, 24, "view: same storage, 0 bytes copied"));
    ck_assert(shows(s, &ui, 80, 24, "shares its storage with: Q, Q_split, Q_heads"));
    type(s, &ui, "b.view(8, 4)");
    press(s, &ui, UI_K_ENTER);
    ck_assert(shows(s, &ui, 80, 24, "view size is not compatible"));
    ck_assert(
        shows(s, &ui, 80, 24, "(1, 2, 4, 4) (32, 4, 8, 1) +0 S")); /* the earlier one, listed */
    type(s, &ui, "b.dim()"); /* the error, listed, keeps its words (it said only "error") */
    press(s, &ui, UI_K_ENTER);
    ck_assert(shows(s, &ui, 80, 24, ">>> b.view(8, 4)   error: view size is not compatible"));
    /* Up recalls, Up again goes further back, Down comes back */
    press(s, &ui, UI_K_UP);
    ck_assert(shows(s, &ui, 80, 24, ">>> b.view(8, 4) "));
    press(s, &ui, UI_K_UP);
    press(s, &ui, UI_K_DOWN);
    ck_assert(shows(s, &ui, 80, 24, ">>> b.view(8, 4) "));
    /* the history is in the state dir: a new screen has it */
    screen_close(s);
    s = play_open(&ui);
    press(s, &ui, UI_K_UP);
    ck_assert(shows(s, &ui, 80, 24, ">>> b.dim() "));
    screen_close(s);
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

START_TEST(editing_keys_and_completion)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s = play_open(&ui);
    type(s, &ui, "x = Q_he");
    press(s, &ui, UI_K_TAB);
    ck_assert(shows(s, &ui, 80, 24, ">>> x = Q_heads "));
    type(s, &ui, ".trans");
    press(s, &ui, UI_K_TAB);
    ck_assert(shows(s, &ui, 80, 24, ">>> x = Q_heads.transpose "));
    type(s, &ui, ".s");
    press(s, &ui, UI_K_TAB); /* several: they are listed on the status line */
    ck_assert(shows(s, &ui, 80, 24, "select shape sin size softmax split sqrt squeeze"));
    press(s, &ui, 23); /* Ctrl-W: back to the space */
    type(s, &ui, "Z");
    ck_assert(shows(s, &ui, 80, 24, ">>> x = Z "));
    press(s, &ui, 1); /* Ctrl-A, then Ctrl-K: all gone */
    press(s, &ui, 11);
    ck_assert(shows(s, &ui, 80, 24, ">>>   "));
    type(s, &ui, "ab");
    press(s, &ui, UI_K_LEFT);
    type(s, &ui, "X");
    ck_assert(shows(s, &ui, 80, 24, ">>> aXb"));
    press(s, &ui, 21); /* Ctrl-U: to the start */
    ck_assert(shows(s, &ui, 80, 24, ">>> b "));
    press(s, &ui, 5); /* Ctrl-E */
    press(s, &ui, UI_K_BACKSPACE);
    /* q and ? only act on an empty line; Esc always leaves */
    type(s, &ui, "xq");
    ck_assert(shows(s, &ui, 80, 24, ">>> xq"));
    press(s, &ui, 21);
    screen_close(press_help(s, &ui));
    ck_assert_int_eq(press(s, &ui, 'q'), UI_BACK);
    ck_assert_int_eq(press(s, &ui, UI_K_ESC), UI_BACK);
    screen_close(s);
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

START_TEST(home_opens_the_playground)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *h = home_open(&ui);
    ck_assert(shows(h, &ui, 80, 24, "4  Explore"));
    ck_assert(shows(h, &ui, 80, 24, "the stride playground: type PyTorch ops"));
    ck_assert(shows(h, &ui, 80, 24, "5  Inspect"));
    ck_assert_int_eq(press(h, &ui, '4'), UI_PUSH | UI_REDRAW);
    ck_assert(shows(pushed, &ui, 80, 24, "Explore: the stride playground"));
    screen_close(pushed);
    screen_close(h);
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

/* Dumps the frame on a failure, so the layout can be seen. */
static int shows_dump(Screen *s, Ui *ui, const char *text)
{
    if (shows(s, ui, 80, 24, text)) return 1;
    Canvas *c = draw(s, ui, 80, 24);
    for (int y = 0; y < c->h; y++) {
        char row[400];
        canvas_row(c, y, 0, row, sizeof row);
        fprintf(stderr, "|%s\n", row);
    }
    canvas_free(c);
    return 0;
}

/* Issue 17's puzzles in Explore: PgDn opens the first, at 80x24 the goal,
 * the given tensors and the sizes show; a wrong answer says where it failed
 * and gives a hint, the right one says solved and the best is kept (a new
 * screen shows it); PgUp from the first goes back to the playground. */
START_TEST(puzzles_in_explore)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s = play_open(&ui);
    ck_assert(shows_dump(s, &ui, "PgDn/PgUp puzzles"));
    ck_assert_int_eq(press(s, &ui, UI_K_PGDN), UI_REDRAW);
    ck_assert(shows_dump(s, &ui, "Puzzle 1/14  split_heads: Split Q into heads"));
    ck_assert(shows_dump(s, &ui, "given: Q (B, S, D) (2, 3, 8)"));
    ck_assert(shows_dump(s, &ui, "sizes B=2 S=3 H=4 KV=2 G=2 dh=2 D=8  |  not solved yet"));
    type(s, &ui, "Q.view(B, H, S, dh)");
    press(s, &ui, UI_K_ENTER);
    ck_assert(shows_dump(s, &ui, "not yet: the puzzle's tensors"));
    ck_assert(shows_dump(s, &ui, "hint: Look at what your head 0 holds"));
    ck_assert(shows_dump(s, &ui, "shape (2, 4, 3, 2)")); /* the line's result is drawn too */
    type(s, &ui, "Q.view(B, S, H, dh).transpose(1, 2)");
    press(s, &ui, UI_K_ENTER);
    ck_assert(shows_dump(s, &ui, "solved on 6 configurations: 0 bytes copied"));
    ck_assert(shows_dump(s, &ui, "best: 0 bytes copied"));
    ck_assert(!shows(s, &ui, 80, 24, "hint:"));
    press(s, &ui, UI_K_PGDN);
    ck_assert(shows_dump(s, &ui, "Puzzle 2/14  merge_heads"));
    press(s, &ui, UI_K_PGUP);
    press(s, &ui, UI_K_PGUP);
    ck_assert(shows_dump(s, &ui, "Explore: the stride playground"));
    ck_assert_int_eq(press(s, &ui, UI_K_PGUP), UI_NONE);
    screen_close(s);
    s = play_open_puzzle(&ui, 0); /* the best was saved */
    ck_assert(shows_dump(s, &ui, "best: 0 bytes copied"));
    screen_close(s);
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

/* The line is a text field (ui/field.h): code points, not bytes.  A long
 * line scrolls with "..." and the cursor in sight; Up/Down still recall. */
START_TEST(multibyte_line_and_scrolling)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s = play_open(&ui);
    ck_assert_int_eq(press(s, &ui, 'h'), UI_REDRAW);
    ck_assert_int_eq(press(s, &ui, 0xE9), UI_REDRAW); /* was refused: ASCII only */
    type(s, &ui, "llo");
    press(s, &ui, UI_K_BACKSPACE);
    ck_assert(shows(s, &ui, 80, 24, ">>> h\xc3\xa9ll "));
    press(s, &ui, UI_K_LEFT);
    press(s, &ui, UI_K_LEFT);
    ck_assert_int_eq(press(s, &ui, UI_K_BACKSPACE), UI_REDRAW); /* all of the '\xc3\xa9' */
    ck_assert(shows(s, &ui, 80, 24, ">>> hll "));
    press(s, &ui, 21); /* Ctrl-U */
    press(s, &ui, 11); /* Ctrl-K */
    for (int i = 0; i < 100; i++)
        press(s, &ui, i % 10 ? 'a' : 0x2500);
    ck_assert(shows(s, &ui, 80, 24, ">>> ...")); /* scrolled: the end shows */
    screen_close(s);
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

static Suite *play_ui_suite(void)
{
    Suite *s = suite_create("play_ui");
    TCase *tc = tcase_create("play_ui");
    tcase_add_test(tc, type_run_and_draw);
    tcase_add_test(tc, editing_keys_and_completion);
    tcase_add_test(tc, multibyte_line_and_scrolling);
    tcase_add_test(tc, home_opens_the_playground);
    tcase_add_test(tc, puzzles_in_explore);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(play_ui_suite)
