/* check_app.c - the key table, the generated help, and what the screens'
 * key handlers return (flags and state), with no terminal: the screens draw
 * on a Canvas and tui.c is not involved. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_fixture.h"
#include "check_main.h"
#include "cmd/interactive.h"
#include "content/lesson.h"
#include "draw/scene.h"
#include "scene_util.h"
#include "ui/decode.h"
#include "ui/flash_screen.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/play.h"
#include "ui/quiz_screen.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

/* ---- the key table -------------------------------------------------------- */

START_TEST(test_navigation_keys)
{
    const int next[] = {' ', UI_K_RIGHT, 'l', 'j', UI_K_PGDN, UI_K_ENTER};
    const int back[] = {UI_K_LEFT, 'h', 'k', UI_K_PGUP, UI_K_BACKSPACE};
    for (size_t i = 0; i < sizeof next / sizeof *next; i++)
        ck_assert_int_eq(screenstack_action(KC_WALK, next[i]), ACT_NEXT);
    for (size_t i = 0; i < sizeof back / sizeof *back; i++)
        ck_assert_int_eq(screenstack_action(KC_WALK, back[i]), ACT_PREV);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'g'), ACT_GOTO);
    ck_assert_int_eq(screenstack_action(KC_WALK, UI_K_HOME), ACT_FIRST);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'G'), ACT_LAST);
    ck_assert_int_eq(screenstack_action(KC_WALK, UI_K_END), ACT_LAST);
    for (int d = '0'; d <= '9'; d++)
        ck_assert_int_eq(screenstack_action(KC_WALK, d), ACT_DIGIT);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'p'), ACT_AUTOPLAY);
    ck_assert_int_eq(screenstack_action(KC_WALK, '+'), ACT_FASTER);
    ck_assert_int_eq(screenstack_action(KC_WALK, '-'), ACT_SLOWER);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'a'), ACT_ANIM);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'i'), ACT_INSPECT);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'm'), ACT_SINGLE);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'c'), ACT_CONFIG);
    ck_assert_int_eq(screenstack_action(KC_WALK, '?'), ACT_HELP);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'q'), ACT_BACK);
    ck_assert_int_eq(screenstack_action(KC_WALK, UI_K_ESC), ACT_BACK);
    ck_assert_int_eq(screenstack_action(KC_WALK, UI_K_CTRL_L), ACT_REDRAW);
    ck_assert_int_eq(screenstack_action(KC_HOME, UI_K_CTRL_L), ACT_REDRAW);
    ck_assert_int_eq(screenstack_action(KC_WALK, 'Z'), ACT_NONE);
    /* inspect mode takes the arrows and hjkl */
    ck_assert_int_eq(screenstack_action(KC_INSPECT, UI_K_LEFT), ACT_LEFT);
    ck_assert_int_eq(screenstack_action(KC_INSPECT, 'l'), ACT_RIGHT);
    ck_assert_int_eq(screenstack_action(KC_INSPECT, 'k'), ACT_UP);
    ck_assert_int_eq(screenstack_action(KC_INSPECT, UI_K_DOWN), ACT_DOWN);
    ck_assert_int_eq(screenstack_action(KC_INSPECT, ' '), ACT_NONE); /* Space still steps */
}
END_TEST

START_TEST(test_no_key_bound_twice)
{
    /* No (context, key) pair is bound twice: a second binding of a key in a
     * context could never fire.  KC_ALL (Ctrl-L) counts in every context. */
    for (int bit = 0; bit < KC_COUNT; bit++) {
        unsigned ctx = 1u << bit;
        for (const KeyBinding *a = keys_table; a->key; a++)
            for (const KeyBinding *b = a + 1; b->key && (a->ctx & ctx); b++) {
                if (!(b->ctx & ctx)) continue;
                int alast = a->last ? a->last : a->key, blast = b->last ? b->last : b->key;
                if (a->key <= blast && b->key <= alast)
                    ck_abort_msg("context %u: key %s (%s) is bound twice", ctx, b->name,
                                 b->help ? b->help : "");
            }
    }
}
END_TEST

/* The lines of help section ctx (its title to the blank line after it),
 * joined into buf. */
static void help_section(unsigned ctx, char *buf, size_t n)
{
    char line[200];
    int i = keys_help_section(ctx);
    ck_assert_msg(i >= 0, "context %u has no help section", ctx);
    buf[0] = 0;
    for (const char *l; (l = keys_help_line(i, line, sizeof line)) && l[0]; i++) {
        strncat(buf, l, n - strlen(buf) - 2);
        strcat(buf, "\n");
    }
}

START_TEST(test_every_context_in_help)
{
    /* Every context's section lists every key bound in it with its group's
     * help: the `?` screen from any screen names all of them, by screen. */
    static char sec[16384];
    for (int bit = 0; bit <= KC_COUNT; bit++) {
        unsigned ctx = bit < KC_COUNT ? 1u << bit : (unsigned)KC_ALL;
        help_section(ctx, sec, sizeof sec);
        int keys = 0;
        const char *help = NULL;
        for (const KeyBinding *b = keys_table; b->key; b++) {
            if (b->help) help = b->help;
            int in = ctx == KC_ALL ? b->ctx == KC_ALL : (b->ctx & ctx) && b->ctx != KC_ALL;
            if (!in) continue;
            keys++;
            char want[120];
            snprintf(want, sizeof want, "%s", b->name);
            ck_assert_msg(strstr(sec, want) != NULL, "context %u: help lacks key %s", ctx, b->name);
            ck_assert_msg(help && strstr(sec, help) != NULL, "context %u: help lacks '%s'", ctx,
                          help ? help : "?");
        }
        ck_assert_msg(keys > 0, "context %u binds no key", ctx);
    }
    /* The sections have their titles, and the lesson and quiz screens are in. */
    char line[200];
    ck_assert_str_eq(keys_help_line(keys_help_section(KC_ALL), line, sizeof line), "Everywhere");
    ck_assert_str_eq(keys_help_line(keys_help_section(KC_PAGE), line, sizeof line), "Lesson page");
    help_section(KC_KV, sec, sizeof sec);
    ck_assert_ptr_nonnull(strstr(sec, "Up Down k j "));
    ck_assert_ptr_nonnull(strstr(sec, "batch (double or halve it)"));
    help_section(KC_QUIZ_ASK, sec, sizeof sec);
    ck_assert_ptr_nonnull(strstr(sec, "Esc "));
    ck_assert_ptr_nonnull(strstr(sec, "end quiz"));
    ck_assert_ptr_null(strstr(sec, "q ")); /* q is typed into the answer */
    ck_assert_int_eq(keys_help_section(KC_WALK | KC_HOME), -1);
}
END_TEST

START_TEST(test_hints_from_the_table)
{
    char hint[240];
    size_t l = keys_hint(KC_QUIZ_PICK, 0, hint, sizeof hint);
    ck_assert_str_eq(hint,
                     "Enter start  Up/Down/k/j topic  Left/Right/h/l length  t timed  q/Esc back");
    ck_assert_uint_eq(l, strlen(hint));
    size_t terse = keys_hint(KC_QUIZ_PICK, 1, hint, sizeof hint);
    ck_assert_str_eq(hint, "Enter start  Up/Down topic  Left/Right length  t timed  q/Esc back");
    keys_hint(KC_QUIZ_ASK, 0, hint, sizeof hint);
    ck_assert_str_eq(
        hint, "Enter answer (empty: skip)  Bksp erase  Up/Down/PgUp/PgDn scroll  Esc end quiz");
    /* a short buffer still gets a terminated prefix and the whole length back */
    char small[8];
    ck_assert_uint_eq(keys_hint(KC_QUIZ_PICK, 1, small, sizeof small), terse);
    ck_assert_str_eq(small, "Enter s");
    /* the quiz's generated hints fit an 80-column status line whole, terse */
    const unsigned quiz[] = {KC_QUIZ_PICK, KC_QUIZ_ASK, KC_QUIZ_FEEDBACK, KC_QUIZ_SUMMARY};
    for (int i = 0; i < 4; i++)
        ck_assert_int_le((int)keys_hint(quiz[i], 1, hint, sizeof hint), 78);
    ck_assert_int_eq(screenstack_action(KC_QUIZ_ASK, 'q'), ACT_NONE);
    ck_assert_int_eq(screenstack_action(KC_QUIZ_FEEDBACK, 'q'), ACT_BACK);
    ck_assert_int_eq(screenstack_action(KC_LESSONS, '9'), ACT_DIGIT);
    ck_assert_int_eq(screenstack_action(KC_LESSONS, '0'), ACT_DIGIT); /* lesson 10 */
    ck_assert_int_eq(screenstack_action(KC_VARIANTS, 'H'), ACT_HEADS);
    ck_assert_int_eq(screenstack_action(KC_KV, UI_K_RIGHT), ACT_DTYPE);
}
END_TEST

/* The home menu and the form draw hints picked from the key table: each
 * group's first names and its help up to " (", and the line fits. */
START_TEST(test_picked_hints_fit)
{
    static const Action home[] = {ACT_UP, ACT_OPEN, ACT_CONFIG, ACT_HELP, ACT_BACK};
    char hint[400];
    keys_hint_pick(KC_HOME, home, 5, 2, hint, sizeof hint);
    ck_assert_str_eq(hint, "Up/Down choose  Enter/Space open  c config  ? keys  q/Esc quit");
    ck_assert_int_le((int)strlen(hint), 78);
    Ui fu;
    ui_with(&fu, NULL, NULL);
    Screen *f = form_open(&fu);
    ck_assert(shows(f, &fu, 80, 24,
                    "Up/Down field  Right/Left change  0-9 type  Enter apply  Esc cancel  ? keys"));
    screen_close(f);
    ui_free(&fu);
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *h = home_open(&ui);
    keys_hint_pick(KC_HOME, home, 5, 2, hint, sizeof hint);
    ck_assert(shows(h, &ui, 80, 24, hint));
    screen_close(h);
    ui_free(&ui);
}
END_TEST

/* Every screen of the home menu, opened at 80x24: its bottom line (the keys
 * from the table) is whole, down to the last key, the way back.
 * Decode's was "... L layout HF/Me", its "? keys  q back" gone. */
START_TEST(test_every_hint_fits_80)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ui.no_save = 1;
    Screen *(*const opens[])(Ui *) = {walk_open,     lessons_open, quiz_open,   play_open,
                                      variants_open, kvcalc_open,  decode_open, flash_open,
                                      help_open,     home_open};
    for (size_t i = 0; i < sizeof opens / sizeof *opens; i++) {
        Screen *s = opens[i](&ui);
        ck_assert_ptr_nonnull(s);
        Canvas *c = draw(s, &ui, 80, 24);
        char row[512];
        su_row(c, c->h - 1, row, sizeof row);
        size_t len = strlen(row);
        while (len && row[len - 1] == ' ')
            row[--len] = 0;
        static const char *outs[] = {" back", " quit", " closes"}; /* the way out, last */
        int whole = 0;
        for (size_t k = 0; k < sizeof outs / sizeof *outs; k++)
            whole |= len >= strlen(outs[k]) && !strcmp(row + len - strlen(outs[k]), outs[k]);
        ck_assert_msg(whole, "%s: the hint is cut before its way back: '%s'", s->title, row);
        canvas_free(c);
        screen_close(s);
    }
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

START_TEST(test_every_action_is_bound)
{
    for (int act = ACT_NONE + 1; act < ACT_COUNT; act++) {
        int found = 0;
        for (const KeyBinding *b = keys_table; b->key; b++)
            found |= b->action == (Action)act;
        ck_assert_msg(found, "action %d has no key", act);
    }
}
END_TEST

START_TEST(test_help_is_generated_from_the_table)
{
    char all[8192] = "", line[200];
    int n = 0;
    for (const char *l; (l = keys_help_line(n, line, sizeof line)); n++) {
        ck_assert_int_le((int)strlen(l), 78); /* fits an 80-column help screen */
        strncat(all, l, sizeof all - strlen(all) - 2);
        strcat(all, "\n");
    }
    ck_assert_int_gt(n, 20);
    for (const KeyBinding *b = keys_table; b->key; b++) {
        ck_assert_msg(strstr(all, b->name) != NULL, "help lacks key %s", b->name);
        if (b->help) ck_assert_msg(strstr(all, b->help) != NULL, "help lacks '%s'", b->help);
    }
    ck_assert_ptr_nonnull(strstr(all, "Space Right l j PgDn Enter"));
    ck_assert_ptr_nonnull(strstr(all, "Inspect mode"));
    ck_assert_ptr_null(keys_help_line(n, line, sizeof line));
}
END_TEST

/* ---- options -------------------------------------------------------------- */

START_TEST(test_setup_flags)
{
    Ui ui;
    InteractiveOptions o;
    char *argv[] = {
        "walk", "--heads",       "4",       "--kv-heads", "2",     "--no-animation", "--autoplay",
        "3",    "--color=never", "--ascii", "--step",     "split", "--no-save",      NULL};
    ck_assert_int_eq(interactive_setup(&ui, &o, 13, argv, 1, 1, "u"), -1);
    ck_assert_int_eq(ui.cfg.heads, 4);
    ck_assert_int_eq(ui.cfg.kv_heads, 2);
    ck_assert_int_eq(ui.animation, 0);
    ck_assert(ui.autoplay == 3.0);
    ck_assert_int_eq(o.color, COLOR_NEVER);
    ck_assert_int_eq(o.ascii, 1);
    ck_assert_int_eq(o.step, MS_SPLIT);
    ck_assert_int_eq(ui.no_save, 1);
    ui_free(&ui);

    char *bad1[] = {"walk", "--heads", "3", NULL};
    ck_assert_int_eq(interactive_setup(&ui, &o, 3, bad1, 1, 1, "u"), 2);
    ui_free(&ui);
    char *bad2[] = {"walk", "--color=sometimes", NULL};
    ck_assert_int_eq(interactive_setup(&ui, &o, 2, bad2, 1, 1, "u"), 2);
    ui_free(&ui);
    char *bad3[] = {"", "--step", "split", NULL}; /* home takes no --step */
    ck_assert_int_eq(interactive_setup(&ui, &o, 3, bad3, 1, 0, "u"), 2);
    ui_free(&ui);
    char *bad4[] = {"walk", "--autoplay", "0", NULL};
    ck_assert_int_eq(interactive_setup(&ui, &o, 3, bad4, 1, 1, "u"), 2);
    ui_free(&ui);
    char *heads[] = {"walk", "--heads", "4", NULL}; /* kv_heads follows heads */
    ck_assert_int_eq(interactive_setup(&ui, &o, 3, heads, 1, 1, "u"), -1);
    ck_assert_int_eq(ui.cfg.kv_heads, 4);
    ui_free(&ui);
}
END_TEST

START_TEST(test_set_config_refuses_and_keeps_state)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Mha *before = ui.mha;
    MhaConfig c = ui.cfg;
    c.heads = 3;
    ck_assert_int_eq(ui_set_config(&ui, &c), -1);
    ck_assert_ptr_eq(ui.mha, before);
    ck_assert_int_eq(ui.cfg.heads, 2);
    ck_assert_ptr_nonnull(strstr(ui.status, "not divisible by 3"));
    c.heads = 4;
    c.kv_heads = 4;
    ck_assert_int_eq(ui_set_config(&ui, &c), 0);
    ck_assert_int_eq(ui.mha->cfg.heads, 4);
    ck_assert_int_eq(ui.mha->d_head, 2);
    ui_free(&ui);
}
END_TEST

START_TEST(test_quick_config_keys)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ck_assert_int_eq(screen_quick_config(&ui, ACT_HEADS), UI_REDRAW);
    ck_assert_int_eq(ui.cfg.heads, 4);    /* next divisor of 8 */
    ck_assert_int_eq(ui.cfg.kv_heads, 4); /* MHA stays MHA */
    screen_quick_config(&ui, ACT_KV_HEADS);
    ck_assert_int_eq(ui.cfg.kv_heads, 2); /* GQA */
    screen_quick_config(&ui, ACT_KV_HEADS);
    ck_assert_int_eq(ui.cfg.kv_heads, 1); /* MQA */
    screen_quick_config(&ui, ACT_KV_HEADS);
    ck_assert_int_eq(ui.cfg.kv_heads, 4); /* back to MHA */
    screen_quick_config(&ui, ACT_SEQ);
    ck_assert_int_eq(ui.cfg.seq, 5);
    screen_quick_config(&ui, ACT_CAUSAL);
    ck_assert_int_eq(ui.cfg.causal, 1);
    screen_quick_config(&ui, ACT_SEED);
    ck_assert_int_eq((int)ui.cfg.seed, 2);
    ck_assert_int_eq(ui.mha->cfg.seed, 2); /* the run follows */
    ck_assert_ptr_nonnull(strstr(ui.status, "seed 2"));
    ui_free(&ui);
}
END_TEST

/* ---- the walkthrough ------------------------------------------------------- */

START_TEST(test_walk_steps)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    Screen *s = walk_open(&ui);
    ck_assert(step_shown(s, &ui, 0));
    ck_assert_int_eq(press(s, &ui, ' '), UI_REDRAW);
    ck_assert(step_shown(s, &ui, 1));
    ck_assert_int_eq(press(s, &ui, UI_K_PGDN) & UI_ANIMATE, 0); /* animation off */
    ck_assert(step_shown(s, &ui, 2));
    press(s, &ui, 'k');
    ck_assert(step_shown(s, &ui, 1));
    press(s, &ui, 'G');
    ck_assert(step_shown(s, &ui, MS_COUNT - 1));
    press(s, &ui, ' '); /* past the end: stays, says why */
    ck_assert(shows(s, &ui, 80, 24, "last step"));
    press(s, &ui, UI_K_HOME);
    ck_assert(step_shown(s, &ui, 0));
    press(s, &ui, UI_K_LEFT);
    ck_assert(shows(s, &ui, 80, 24, "first step"));
    /* digits + Enter jump; Enter alone is next */
    ck_assert_int_eq(press(s, &ui, '8'), UI_REDRAW);
    ck_assert(shows(s, &ui, 80, 24, "go to step 8"));
    press(s, &ui, UI_K_ENTER);
    ck_assert(step_shown(s, &ui, 8));
    press(s, &ui, '1');
    press(s, &ui, '0');
    press(s, &ui, UI_K_ENTER);
    ck_assert(step_shown(s, &ui, 10));
    press(s, &ui, '4');
    press(s, &ui, '2');
    press(s, &ui, UI_K_ENTER);
    ck_assert(step_shown(s, &ui, 10));
    ck_assert_ptr_nonnull(strstr(ui.status, "no step 42"));
    press(s, &ui, '3');
    press(s, &ui, UI_K_ESC); /* cancels the number, does not quit */
    ck_assert(step_shown(s, &ui, 10));
    press(s, &ui, UI_K_ENTER); /* at the end: next says so */
    ck_assert(step_shown(s, &ui, 10));
    ck_assert_int_eq(press(s, &ui, 'q'), UI_BACK | UI_REDRAW);
    ck_assert_int_eq(press(s, &ui, 'Z'), UI_NONE);
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_walk_inspect_takes_the_arrows)
{
    Ui ui;
    ui_with(&ui, "--no-animation", "--step=split");
    Screen *s = walk_open_at(&ui, MS_SPLIT);
    ck_assert_int_eq(press(s, &ui, 'i'), UI_REDRAW);
    ck_assert(shows(s, &ui, 80, 24, "i/Esc leave"));
    ck_assert_int_eq(press(s, &ui, 'l'), UI_REDRAW); /* the cursor, not the step */
    ck_assert_int_eq(press(s, &ui, UI_K_DOWN), UI_REDRAW);
    ck_assert_int_eq(press(s, &ui, UI_K_ESC), UI_REDRAW); /* leaves inspect, does not quit */
    ck_assert(step_shown(s, &ui, MS_SPLIT));
    ck_assert_int_eq(press(s, &ui, 'l'), UI_REDRAW); /* now l is next step again */
    ck_assert(step_shown(s, &ui, MS_SPLIT + 1));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_walk_animation_is_short_and_skippable)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s = walk_open_at(&ui, MS_SPLIT - 1);
    int f = press(s, &ui, ' ');
    ck_assert_int_eq(f, UI_REDRAW | UI_ANIMATE);
    ck_assert_int_eq(screen_tick(s, &ui, 100.0) & UI_ANIMATE, UI_ANIMATE);
    ck_assert_int_eq(screen_tick(s, &ui, 100.5) & UI_ANIMATE, UI_ANIMATE);
    ck_assert_int_eq(screen_tick(s, &ui, 101.2001) & UI_ANIMATE, 0); /* over within 1.2 s */
    ck_assert_int_eq(screen_tick(s, &ui, 101.3), 0);                 /* idle: nothing to do */
    /* slowest speed: still at most 1.2 s */
    for (int i = 0; i < 10; i++)
        press(s, &ui, '-');
    press(s, &ui, UI_K_HOME);
    press(s, &ui, ' ');
    press(s, &ui, ' ');
    ck_assert_int_eq(screen_tick(s, &ui, 200.0) & UI_ANIMATE, UI_ANIMATE);
    ck_assert_int_eq(screen_tick(s, &ui, 201.2001) & UI_ANIMATE,
                     0); /* 1.2 s, not a float ulp more */
    /* any key skips, and does only that */
    press(s, &ui, UI_K_HOME);
    press(s, &ui, ' ');
    ck_assert_int_eq(press(s, &ui, ' ') & UI_ANIMATE, UI_ANIMATE); /* onto split */
    screen_tick(s, &ui, 300.0);
    ck_assert_int_eq(press(s, &ui, 'x'), UI_REDRAW);
    ck_assert_int_eq(screen_tick(s, &ui, 300.1), 0);
    ck_assert(step_shown(s, &ui, MS_SPLIT));
    /* a step with nothing to animate does not animate */
    press(s, &ui, UI_K_HOME);
    ck_assert_int_eq(press(s, &ui, ' ') & UI_ANIMATE, 0);
    /* a: animations off */
    press(s, &ui, 'a');
    ck_assert_int_eq(ui.animation, 0);
    ck_assert_int_eq(press(s, &ui, ' ') & UI_ANIMATE, 0);
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_walk_autoplay)
{
    Ui ui;
    ui_with(&ui, "--no-animation", "--autoplay=2");
    Screen *s = walk_open(&ui);
    ck_assert_int_eq(screen_tick(s, &ui, 10.0), UI_ANIMATE); /* starts the clock */
    ck_assert_int_eq(screen_tick(s, &ui, 11.0) & UI_REDRAW, 0);
    ck_assert_int_eq(screen_tick(s, &ui, 12.1) & UI_REDRAW, UI_REDRAW);
    ck_assert(step_shown(s, &ui, 1));
    press(s, &ui, 'p'); /* off */
    ck_assert(ui.autoplay == 0);
    ck_assert_int_eq(screen_tick(s, &ui, 20.0), 0); /* no wake-ups: sleeps in getch */
    press(s, &ui, 'p');                             /* on again, same period */
    ck_assert(ui.autoplay == 2.0);
    press(s, &ui, '+');
    ck_assert(ui.anim_speed > 1.0);
    ck_assert_msg(strstr(ui.status, "autoplay every 1.3 s"), "speed line: '%s'", ui.status);
    screen_tick(s, &ui, 30.0);
    screen_tick(s, &ui, 31.5); /* 2 s / 1.5 = 1.33 s */
    ck_assert(step_shown(s, &ui, 2));
    press(s, &ui, 'G');
    screen_tick(s, &ui, 40.0);
    ck_assert_int_eq(screen_tick(s, &ui, 45.0) & UI_REDRAW, UI_REDRAW); /* the end: stops */
    ck_assert(ui.autoplay == 0);
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_walk_mouse_click_inspects)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    Screen *s = walk_open(&ui);
    Canvas *c = draw(s, &ui, 80, 24); /* the walk remembers the frame size */
    int px = -1, py = -1;
    for (int y = 0; y < c->h && py < 0; y++) { /* token 1's row of the logical view */
        char row[512];
        canvas_row(c, y, 0, row, sizeof row);
        if (!strncmp(row, mha_token_word(1), strlen(mha_token_word(1))) && strchr(row, '.')) {
            py = y;
            px = (int)(strchr(row, '.') - row);
        }
    }
    canvas_free(c);
    ck_assert_int_ge(py, 0);
    ui.mouse_x = 0;
    ui.mouse_y = 0; /* the title: nothing to inspect */
    ck_assert_int_eq(press(s, &ui, UI_K_MOUSE), UI_NONE);
    ui.mouse_x = px;
    ui.mouse_y = py;
    ck_assert_int_eq(press(s, &ui, UI_K_MOUSE), UI_REDRAW);
    ck_assert(shows(s, &ui, 80, 24, "i/Esc leave"));
    ck_assert(shows(s, &ui, 80, 24, "x[0, 1, 0]"));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

START_TEST(test_walk_opens_form_and_help)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    Screen *s = walk_open(&ui);
    pushed = press_help(s, &ui);
    ck_assert(shows(pushed, &ui, 80, 24, "next (step)"));
    ck_assert_int_eq(screenstack_send(pushed, &ui, 'q', NULL) & UI_BACK, UI_BACK);
    screen_close(pushed);
    ck_assert_int_eq(press(s, &ui, 'c'), UI_PUSH | UI_REDRAW);
    ck_assert_ptr_nonnull(pushed);
    screen_close(pushed);
    pushed = NULL;
    press(s, &ui, 'm');
    ck_assert_ptr_nonnull(strstr(ui.status, "softmax"));
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* ---- the form, home and help ------------------------------------------------- */

START_TEST(test_form_refuses_invalid_and_applies_valid)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *f = form_open(&ui);
    ck_assert(shows(f, &ui, 80, 24, "valid"));
    Screen *h = press_help(f, &ui);
    ck_assert(shows(h, &ui, 80, 24, "mhaviz keys"));
    screen_close(h);
    press(f, &ui, UI_K_DOWN);
    press(f, &ui, UI_K_DOWN);
    press(f, &ui, UI_K_DOWN); /* heads */
    ck_assert_int_eq(press(f, &ui, '3'), UI_REDRAW);
    ck_assert(shows(f, &ui, 80, 24, "not divisible by 3"));
    ck_assert_int_eq(press(f, &ui, UI_K_ENTER), UI_REDRAW); /* refused: the form stays */
    ck_assert_ptr_nonnull(strstr(ui.status, "not divisible by 3"));
    ck_assert(shows(f, &ui, 80, 24, "refused"));
    ck_assert_int_eq(ui.cfg.heads, 2); /* the last valid state */
    press(f, &ui, UI_K_BACKSPACE);
    press(f, &ui, '4');
    ck_assert_int_eq(press(f, &ui, UI_K_ENTER), UI_BACK | UI_REDRAW);
    ck_assert_int_eq(ui.cfg.heads, 4);
    ck_assert_int_eq(ui.cfg.kv_heads, 4); /* followed heads */
    ck_assert_int_eq(ui.mha->cfg.heads, 4);
    screen_close(f);

    f = form_open(&ui);
    press(f, &ui, UI_K_UP); /* wraps to causal */
    press(f, &ui, ' ');
    press(f, &ui, UI_K_UP); /* seed */
    press(f, &ui, '7');
    press(f, &ui, '7');
    ck_assert_int_eq(press(f, &ui, UI_K_ESC), UI_BACK | UI_REDRAW); /* cancel: nothing changes */
    ck_assert_int_eq(ui.cfg.causal, 0);
    ck_assert_int_eq((int)ui.cfg.seed, 1);
    screen_close(f);

    f = form_open(&ui); /* batch is the first field: typed, applied, refused past the cap */
    ck_assert(shows(f, &ui, 80, 24, "batch"));
    press(f, &ui, '2');
    ck_assert_int_eq(press(f, &ui, UI_K_ENTER), UI_BACK | UI_REDRAW);
    ck_assert_int_eq(ui.cfg.batch, 2);
    ck_assert_int_eq(ui.mha->cfg.batch, 2);
    screen_close(f);
    f = form_open(&ui);
    press(f, &ui, '9');
    press(f, &ui, '9'); /* 99 is past MHA_MAX_BATCH: the digit starts a new number */
    ck_assert_int_eq(press(f, &ui, UI_K_ENTER), UI_BACK | UI_REDRAW);
    ck_assert_int_eq(ui.cfg.batch, 9);
    screen_close(f);
    ui_free(&ui);
}
END_TEST

/* The form's keys as the key table binds them, and as they act: on heads
 * = 2 (the defaults), h and Left and - lower it to 1, l and Right and +
 * raise it back, and Enter applies what they did. */
START_TEST(test_form_keys)
{
    static const struct {
        int key;
        Action act;
    } want[] = {
        {UI_K_UP, ACT_UP},     {'k', ACT_UP},           {UI_K_BTAB, ACT_UP},
        {UI_K_DOWN, ACT_DOWN}, {'j', ACT_DOWN},         {UI_K_TAB, ACT_DOWN},
        {UI_K_RIGHT, ACT_INC}, {'l', ACT_INC},          {'+', ACT_INC},
        {UI_K_LEFT, ACT_DEC},  {'h', ACT_DEC},          {'-', ACT_DEC},
        {'0', ACT_DIGIT},      {'9', ACT_DIGIT},        {UI_K_BACKSPACE, ACT_ERASE},
        {' ', ACT_TOGGLE},     {UI_K_ENTER, ACT_APPLY}, {'?', ACT_HELP},
        {UI_K_ESC, ACT_BACK},  {'q', ACT_BACK},
    };
    static const int dec[] = {'h', UI_K_LEFT, '-'}, inc[] = {'l', UI_K_RIGHT, '+'};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(screenstack_action(KC_FORM, want[i].key) == want[i].act,
                      "form key %d: action %d, not %d", want[i].key,
                      screenstack_action(KC_FORM, want[i].key), want[i].act);
    ck_assert_int_eq(screenstack_action(KC_FORM, 'x'), ACT_NONE);
    for (int i = 0; i < 3; i++) {
        Ui ui;
        ui_with(&ui, NULL, NULL);
        ck_assert_int_eq(ui.cfg.heads, 2);
        Screen *f = form_open(&ui);
        press(f, &ui, UI_K_DOWN);
        press(f, &ui, UI_K_DOWN);
        press(f, &ui, UI_K_DOWN); /* heads */
        ck_assert_int_eq(press(f, &ui, dec[i]), UI_REDRAW);
        ck_assert_int_eq(press(f, &ui, UI_K_ENTER), UI_BACK | UI_REDRAW);
        ck_assert_msg(ui.cfg.heads == 1, "key %d on heads 2 gave %d", dec[i], ui.cfg.heads);
        ck_assert_int_eq(ui.cfg.kv_heads, 1); /* followed heads */
        screen_close(f);
        f = form_open(&ui);
        press(f, &ui, UI_K_DOWN);
        press(f, &ui, UI_K_DOWN);
        press(f, &ui, UI_K_DOWN);
        press(f, &ui, inc[i]);
        ck_assert_int_eq(press(f, &ui, UI_K_ENTER), UI_BACK | UI_REDRAW);
        ck_assert_msg(ui.cfg.heads == 2, "key %d on heads 1 gave %d", inc[i], ui.cfg.heads);
        screen_close(f);
        ui_free(&ui);
    }
}
END_TEST

START_TEST(test_home_menu)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *h = home_open(&ui);
    ck_assert(shows(h, &ui, 80, 24, "Walkthrough"));
    ck_assert(shows(h, &ui, 80, 24, "d_model 8"));
    ck_assert(shows(h, &ui, 50, 15, "enlarge to 80x24 (now 50x15)"));
    ck_assert(!shows(h, &ui, 50, 15, "Walkthrough"));
    ck_assert(shows(h, &ui, 200, 80, "Walkthrough"));
    { /* the Lessons entry counts the lessons the menu lists (it said eight of ten) */
        char **paths, err[256], want[64];
        int n = lesson_list(&paths, err, sizeof err);
        ck_assert_int_gt(n, 0);
        lesson_list_free(paths, n);
        snprintf(want, sizeof want, "a guided course in %d lessons", n);
        ck_assert_msg(shows(h, &ui, 80, 24, want), "home does not say '%s'", want);
    }
    { /* every entry's label starts in one column, whatever its number's width */
        Canvas *c = draw(h, &ui, 80, 40);
        int col = -1;
        char row[256];
        for (int y = 4; y < c->h; y += 2) {
            su_row(c, y, row, sizeof row);
            char *p = row + 3;
            while (*p == ' ')
                p++;
            if (*p < '1' || *p > '9') continue;
            while (*p >= '0' && *p <= '9')
                p++;
            while (*p == ' ')
                p++;
            if (col < 0) col = (int)(p - row);
            ck_assert_msg((int)(p - row) == col, "home row %d: '%s' not in column %d", y, row, col);
        }
        ck_assert_int_gt(col, 0);
        canvas_free(c);
    }
    MhaConfig big = ui.cfg; /* a long configuration line wraps instead of losing "causal" */
    big.seq = 1000, big.d_model = 1000, big.heads = 4, big.kv_heads = 4, big.seed = 4000000000u,
    big.causal = 1;
    ui.cfg = big; /* drawn only: ui.mha stays the small run */
    ck_assert(shows(h, &ui, 80, 24, "causal"));
    ui.cfg = mha_config_default();
    ck_assert_int_eq(press(h, &ui, UI_K_ENTER), UI_PUSH | UI_REDRAW);
    ck_assert_ptr_nonnull(pushed);
    ck_assert(shows(pushed, &ui, 80, 24, "step 0/10"));
    screen_close(pushed);
    ck_assert_int_eq(press(h, &ui, 'k'), UI_REDRAW); /* wraps to the last entry: Help */
    ck_assert_int_eq(press(h, &ui, UI_K_ENTER), UI_PUSH | UI_REDRAW);
    ck_assert(shows(pushed, &ui, 80, 24, "mhaviz keys"));
    screen_close(pushed);
    ck_assert_int_eq(press(h, &ui, '4'), UI_PUSH | UI_REDRAW); /* the fourth entry: Explore */
    ck_assert(shows(pushed, &ui, 80, 24, "Explore: the stride playground"));
    screen_close(pushed);
    ck_assert(shows(h, &ui, 80, 24, "10  Tiles")); /* numbered 10: 0 opens it, as 1-9 can't */
    ck_assert_int_eq(press(h, &ui, '0'), UI_PUSH | UI_REDRAW);
    ck_assert(shows(pushed, &ui, 80, 24, "Tiles: "));
    screen_close(pushed);
    ck_assert_int_eq(press(h, &ui, 'H'), UI_REDRAW);
    ck_assert(shows(h, &ui, 80, 24, "heads 4"));
    ck_assert_int_eq(press(h, &ui, 'q'), UI_BACK | UI_REDRAW); /* the stack's, as on every screen */
    screen_close(h);
    ui_free(&ui);
}
END_TEST

START_TEST(test_help_scrolls_and_fits)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *h = help_open(&ui);
    ck_assert(shows(h, &ui, 80, 24, "Walkthrough"));
    ck_assert(shows(h, &ui, 80, 24, "lines 1-"));
    ck_assert(shows(h, &ui, 40, 10, "enlarge to 80x24 (now 40x10)"));
    for (int i = 0; i < 20; i++)
        press(h, &ui, UI_K_PGDN);
    ck_assert(shows(h, &ui, 80, 24, "on an empty line q too")); /* the last lines */
    ck_assert(!shows(h, &ui, 80, 24, "lines 1-"));
    /* all of it fits in two columns once they are tall enough (200x90 since
     * the text fields' own section and large print's L joined) */
    ck_assert(shows(h, &ui, 200, 90, "next (step)"));
    ck_assert(shows(h, &ui, 200, 90, "close the help"));
    ck_assert(shows(h, &ui, 200, 90, "layout HF/Meta"));
    ck_assert(shows(h, &ui, 200, 90, "on an empty line q too"));
    ck_assert(shows(h, &ui, 200, 90, "block_k (keys of a K/V tile: 1 to seq)"));
    screen_close(h);
    ui_free(&ui);
}
END_TEST

/* Nothing of ours runs into the right edge at 80 columns (so nothing is cut
 * mid-word): the last column stays blank on every row but the status line's. */
static void assert_fits(Screen *s, Ui *ui)
{
    Canvas *c = draw(s, ui, 80, 24);
    for (int y = 0; y < c->h; y++) {
        char row[512];
        canvas_row(c, y, 0, row, sizeof row);
        ck_assert_msg(canvas_at(c, c->w - 1, y)->ch == ' ', "%s: row %d reaches the edge: %s",
                      s->title, y, row);
    }
    canvas_free(c);
}

START_TEST(test_screens_fit_80x24)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *s[3] = {home_open(&ui), form_open(&ui), help_open(&ui)};
    for (int i = 0; i < 3; i++) {
        assert_fits(s[i], &ui);
        if (i == 1) { /* the form with an invalid draft shows the reason, wrapped */
            press(s[i], &ui, UI_K_DOWN);
            press(s[i], &ui, UI_K_DOWN);
            press(s[i], &ui, '7');
            press(s[i], &ui, UI_K_ENTER);
            assert_fits(s[i], &ui);
        }
        if (i == 2)
            for (int k = 0; k < 5; k++) {
                press(s[i], &ui, UI_K_PGDN);
                assert_fits(s[i], &ui);
            }
        screen_close(s[i]);
    }
    ui_free(&ui);
}
END_TEST

static Suite *app_suite(void)
{
    Suite *s = suite_create("app");
    TCase *t = tcase_create("keys");
    tcase_add_test(t, test_navigation_keys);
    tcase_add_test(t, test_no_key_bound_twice);
    tcase_add_test(t, test_every_context_in_help);
    tcase_add_test(t, test_hints_from_the_table);
    tcase_add_test(t, test_every_action_is_bound);
    tcase_add_test(t, test_help_is_generated_from_the_table);
    suite_add_tcase(s, t);
    t = tcase_create("options");
    tcase_add_test(t, test_setup_flags);
    tcase_add_test(t, test_set_config_refuses_and_keeps_state);
    tcase_add_test(t, test_quick_config_keys);
    suite_add_tcase(s, t);
    t = tcase_create("walk");
    tcase_add_test(t, test_walk_steps);
    tcase_add_test(t, test_walk_inspect_takes_the_arrows);
    tcase_add_test(t, test_walk_animation_is_short_and_skippable);
    tcase_add_test(t, test_walk_autoplay);
    tcase_add_test(t, test_walk_mouse_click_inspects);
    tcase_add_test(t, test_walk_opens_form_and_help);
    suite_add_tcase(s, t);
    t = tcase_create("screens");
    tcase_add_test(t, test_form_refuses_invalid_and_applies_valid);
    tcase_add_test(t, test_form_keys);
    tcase_add_test(t, test_home_menu);
    tcase_add_test(t, test_every_hint_fits_80);
    tcase_add_test(t, test_picked_hints_fit);
    tcase_add_test(t, test_help_scrolls_and_fits);
    tcase_add_test(t, test_screens_fit_80x24);
    suite_add_tcase(s, t);
    return s;
}

CHECK_MAIN(app_suite)
