/* check_screenstack.c - the screen stack (ui/screenstack.c) driven key by
 * key with no terminal: screens pushed and popped by their keys, ticks that
 * move an animation and say how long the backend may wait, Ctrl-L, a
 * resize, the status line cleared by the next key, quit; a key looked up
 * once, here, and handed to the screen as its Action. */
#include <string.h>

#include "app_fixture.h"
#include "check_main.h"
#include "ui/decode.h"
#include "ui/help.h"
#include "ui/lessonui.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

/* The top screen's frame at 80x24 holds text. */
static int top_shows(ScreenStack *st, const Ui *ui, const char *text)
{
    Canvas *c = canvas_new(80, 24);
    ck_assert_ptr_nonnull(c);
    screenstack_draw(st, ui, c);
    int r = canvas_contains(c, text);
    canvas_free(c);
    return r;
}

START_TEST(test_home_walk_back_quit)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ScreenStack st;
    screenstack_init(&st);
    ck_assert_int_eq(screenstack_live(&st), 0); /* nothing open: nothing runs */
    ck_assert_int_eq(screenstack_push(&st, home_open(&ui)), 0);
    ck_assert_int_eq(screenstack_live(&st), 1);
    ck_assert_int_eq(screenstack_tick(&st, &ui, 1.0), 1); /* the first frame is due */
    ck_assert(top_shows(&st, &ui, "multi-head attention"));
    ck_assert_int_eq(st.redraw, 0);
    ck_assert_int_eq(screenstack_tick(&st, &ui, 1.1), 0);      /* idle: no frame */
    ck_assert_int_eq(screenstack_wait_ms(&st, &ui, 1.1), -1);  /* and no wake-up */
    ck_assert_int_eq(screenstack_key(&st, &ui, UI_K_DOWN), 0); /* the menu's cursor moves */
    ck_assert_int_eq(st.redraw, 1);
    ck_assert_int_eq(screenstack_key(&st, &ui, '1'), 0); /* 1: the walkthrough */
    ck_assert_int_eq(screenstack_depth(&st), 2);
    ck_assert_str_eq(screenstack_top(&st)->title, "Walkthrough");
    ck_assert(top_shows(&st, &ui, "step 0/10"));
    screenstack_key(&st, &ui, '?'); /* the help on top of it */
    ck_assert_int_eq(screenstack_depth(&st), 3);
    ck_assert(top_shows(&st, &ui, "mhaviz keys"));
    screenstack_key(&st, &ui, 'q'); /* closes the help */
    ck_assert_int_eq(screenstack_depth(&st), 2);
    ck_assert(top_shows(&st, &ui, "step 0/10"));
    screenstack_key(&st, &ui, 'q'); /* back to the menu */
    ck_assert_int_eq(screenstack_depth(&st), 1);
    ck_assert_str_eq(screenstack_top(&st)->title, "Home");
    screenstack_key(&st, &ui, 'q'); /* q on the menu quits */
    ck_assert_int_eq(screenstack_depth(&st), 0);
    ck_assert_int_eq(screenstack_live(&st), 0);
    ck_assert_int_eq(screenstack_key(&st, &ui, 'q'), 0); /* nothing left to take it */
    screenstack_free(&st);
    ui_free(&ui);
}
END_TEST

START_TEST(test_ticks_move_an_animation)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ScreenStack st;
    screenstack_init(&st);
    screenstack_push(&st, walk_open(&ui));
    screenstack_tick(&st, &ui, 10.0);
    ck_assert(top_shows(&st, &ui, "step 0/10"));
    screenstack_key(&st, &ui, ' '); /* to step 1: no animation there */
    screenstack_tick(&st, &ui, 10.1);
    ck_assert(top_shows(&st, &ui, "step 1/10"));
    ck_assert_int_eq(screenstack_wait_ms(&st, &ui, 10.1), -1);
    screenstack_key(&st, &ui, ' '); /* to step 2, split heads: it animates */
    ck_assert_int_eq(screenstack_tick(&st, &ui, 20.0), 1);
    ck_assert_int_eq(st.animating, 1);
    int w = screenstack_wait_ms(&st, &ui, 20.0); /* the next frame within 1/30 s */
    ck_assert_int_ge(w, 1);
    ck_assert_int_le(w, 35);
    ck_assert_int_eq(screenstack_wait_ms(&st, &ui, 20.5), 0); /* late: at once */
    ck_assert_int_eq(screenstack_tick(&st, &ui, 20.4), 1);    /* the phase moved: a frame */
    ck_assert_int_eq(st.animating, 1);
    ck_assert_int_eq(screenstack_tick(&st, &ui, 21.3), 1); /* over: the last frame */
    ck_assert_int_eq(st.animating, 0);
    ck_assert_int_eq(screenstack_wait_ms(&st, &ui, 21.3), -1);
    ck_assert(top_shows(&st, &ui, "step 2/10"));
    screenstack_free(&st);
    ck_assert_int_eq(screenstack_depth(&st), 0);
    ui_free(&ui);
}
END_TEST

START_TEST(test_repaint_resize_status)
{
    Ui ui;
    ui_with(&ui, "--no-animation", NULL);
    ScreenStack st;
    screenstack_init(&st);
    screenstack_push(&st, walk_open(&ui));
    Canvas *c = canvas_new(80, 24);
    screenstack_draw(&st, &ui, c);
    ck_assert_int_eq(screenstack_key(&st, &ui, UI_K_CTRL_L), SS_REPAINT);
    ck_assert_int_eq(st.redraw, 1);
    screenstack_draw(&st, &ui, c);
    ck_assert_int_eq(screenstack_key(&st, &ui, UI_K_RESIZE), 0);
    ck_assert_int_eq(st.redraw, 1);
    screenstack_draw(&st, &ui, c);
    screenstack_key(&st, &ui, 'm'); /* a message in the status line */
    ck_assert_ptr_nonnull(strstr(ui.status, "softmax"));
    screenstack_draw(&st, &ui, c);
    ck_assert(canvas_contains(c, "softmax is on"));
    screenstack_key(&st, &ui, 'i'); /* the next key clears it */
    ck_assert_ptr_null(strstr(ui.status, "softmax"));
    screenstack_draw(&st, &ui, c);
    ck_assert(!canvas_contains(c, "softmax is on"));
    canvas_free(c);
    screenstack_free(&st);
    ui_free(&ui);
}
END_TEST

/* ? from any screen is one way: the key returns UI_HELP and the stack opens
 * the help at the screen's own section (ScreenOps.help). */
START_TEST(test_help_opens_at_the_screens_section)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ScreenStack st;
    screenstack_init(&st);
    screenstack_push(&st, decode_open(&ui));
    ck_assert(!top_shows(&st, &ui, "mhaviz keys"));
    screenstack_key(&st, &ui, '?');
    ck_assert_int_eq(screenstack_depth(&st), 2);
    ck_assert_str_eq(screenstack_top(&st)->title, "Help");
    ck_assert(top_shows(&st, &ui, "Decode: prefill, then one token at a time"));
    ck_assert(!top_shows(&st, &ui, "Walkthrough")); /* scrolled to decode, not the top */
    screenstack_key(&st, &ui, 'q');
    ck_assert_str_eq(screenstack_top(&st)->title, "Decode");
    screenstack_free(&st);
    ui_free(&ui);
}
END_TEST

/* The one status setter: printf-like, and text from outside comes out with
 * its control characters escaped (sanitize_text), never as the raw bytes:
 * before it, a lesson path with ESC in it reached ui->status as it was. */
START_TEST(test_status_is_one_sanitised_line)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ui_status(&ui, "reloaded %s: %d pages", "a\x1b]2;owned\x07.lesson", 3);
    ck_assert_str_eq(ui.status, "reloaded a\\x1b]2;owned\\x07.lesson: 3 pages");
    char longer[400];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = 0;
    ui_status(&ui, "%s", longer); /* cut to fit, terminated */
    ck_assert_uint_eq(strlen(ui.status), sizeof ui.status - 1);
    ui.status[0] = 0;
    ck_assert_ptr_null(lessonui_page_open(&ui, "/nonexistent/\x1b[2J.lesson", NULL));
    ck_assert_ptr_nonnull(strstr(ui.status, "\\x1b[2J"));
    ck_assert_ptr_null(strchr(ui.status, 0x1b));
    ui_free(&ui);
}
END_TEST

/* A screen that keeps what its key() was handed: the Action and the key.
 * Its contexts are KC_HOME, or in inspect mode KC_INSPECT then KC_WALK. */
typedef struct Probe {
    Action got;
    int key, calls, inspect;
    int reply; /* what key() returns */
} Probe;

static const unsigned *probe_keys_now(const Screen *s)
{
    static const unsigned inspecting[] = {KC_INSPECT, KC_WALK, 0}, home[] = {KC_HOME, 0};
    return ((const Probe *)s->st)->inspect ? inspecting : home;
}

static int probe_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)ui;
    (void)push;
    Probe *p = s->st;
    p->got = a;
    p->key = key;
    p->calls++;
    return p->reply;
}

static void probe_draw(Screen *s, const Ui *ui, Canvas *c)
{
    (void)s;
    (void)ui;
    canvas_text(c, 0, 0, "probe", ST_NORMAL);
}

static const ScreenOps probe_ops = {
    .draw = probe_draw, .key = probe_key, .help = KC_HOME, .keys_now = probe_keys_now};
static const ScreenOps probe_home_ops = {.draw = probe_draw, .key = probe_key, .keys = KC_HOME};

/* The key is looked up once, where the stack routes it, in the top
 * screen's contexts: key() gets the Action the key table gives there, in
 * the order its contexts say, and the key itself (a digit's value). */
START_TEST(test_screen_gets_the_tables_action)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ScreenStack st;
    screenstack_init(&st);
    Screen *s = screen_new(&probe_home_ops, "Probe", sizeof(Probe));
    ck_assert_int_eq(screenstack_push(&st, s), 0);
    Probe *p = s->st;
    p->reply = UI_REDRAW;
    screenstack_key(&st, &ui, 'j');
    ck_assert_int_eq(p->got, ACT_DOWN);
    ck_assert_int_eq(p->got, screenstack_action(KC_HOME, 'j'));
    screenstack_key(&st, &ui, '7');
    ck_assert_int_eq(p->got, ACT_DIGIT);
    ck_assert_int_eq(p->key, '7');
    screenstack_key(&st, &ui, 'Z'); /* bound nowhere on the menu: handed over as it is */
    ck_assert_int_eq(p->got, ACT_NONE);
    ck_assert_int_eq(p->key, 'Z');
    screenstack_key(&st, &ui, UI_K_RESIZE);
    ck_assert_int_eq(p->got, ACT_NONE);
    ck_assert_int_eq(p->key, UI_K_RESIZE);
    int calls = p->calls;
    ck_assert_int_eq(screenstack_key(&st, &ui, UI_K_CTRL_L), SS_REPAINT); /* the stack's own */
    ck_assert_int_eq(p->calls, calls);
    screenstack_free(&st);

    screenstack_init(&st);
    s = screen_new(&probe_ops, "Probe", sizeof(Probe));
    screenstack_push(&st, s);
    p = s->st;
    p->reply = UI_REDRAW;
    p->inspect = 1;
    screenstack_key(&st, &ui, 'h'); /* inspect mode's h, not the walkthrough's */
    ck_assert_int_eq(p->got, ACT_LEFT);
    screenstack_key(&st, &ui, ' '); /* unbound in KC_INSPECT: the walkthrough's */
    ck_assert_int_eq(p->got, ACT_NEXT);
    p->inspect = 0;
    screenstack_key(&st, &ui, 'h'); /* the state changed: the contexts with it */
    ck_assert_int_eq(p->got, screenstack_action(KC_HOME, 'h'));
    screenstack_free(&st);
    ui_free(&ui);
}
END_TEST

/* ? and q / Esc are every screen's: a screen that leaves them (UI_NONE)
 * gets the help at its section and is closed by the stack; one that uses
 * its ACT_BACK (the quiz ends a question with it) keeps it. */
START_TEST(test_help_and_back_left_to_the_stack)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ScreenStack st;
    screenstack_init(&st);
    screenstack_push(&st, help_open(&ui));
    Screen *s = screen_new(&probe_ops, "Probe", sizeof(Probe));
    screenstack_push(&st, s);
    Probe *p = s->st;
    p->reply = UI_NONE;
    screenstack_key(&st, &ui, '?');
    ck_assert_int_eq(p->got, ACT_HELP);
    ck_assert_int_eq(screenstack_depth(&st), 3);
    ck_assert_str_eq(screenstack_top(&st)->title, "Help");
    ck_assert(top_shows(&st, &ui, "Home menu")); /* at the probe's section, KC_HOME */
    screenstack_key(&st, &ui, 'q');              /* the help's q */
    ck_assert_ptr_eq(screenstack_top(&st), s);
    p->reply = UI_REDRAW; /* uses its q */
    screenstack_key(&st, &ui, 'q');
    ck_assert_int_eq(p->got, ACT_BACK);
    ck_assert_ptr_eq(screenstack_top(&st), s);
    p->reply = UI_NONE; /* leaves it: closed */
    screenstack_key(&st, &ui, UI_K_ESC);
    ck_assert_int_eq(screenstack_depth(&st), 1);
    ck_assert_str_eq(screenstack_top(&st)->title, "Help");
    Screen *opened = NULL; /* a screen on its own, as the tests drive one */
    s = screen_new(&probe_home_ops, "Probe", sizeof(Probe));
    ((Probe *)s->st)->reply = UI_NONE;
    ck_assert_int_eq(screenstack_send(s, &ui, 'q', &opened), UI_BACK | UI_REDRAW);
    ck_assert_int_eq(screenstack_send(s, &ui, '?', &opened), UI_HELP | UI_REDRAW);
    ck_assert_int_eq(screenstack_send(s, &ui, 'Z', &opened), UI_NONE);
    ck_assert_ptr_null(opened);
    screen_close(s);
    screenstack_free(&st);
    ui_free(&ui);
}
END_TEST

/* Every menu's cursor moves the one way (screen_menu_move, ui/screen.c):
 * round from the last entry to the first and back, Up and Left before, Down
 * and Right after; any other action leaves it. */
START_TEST(test_menu_move_wraps)
{
    int sel = 0;
    ck_assert_int_eq(screen_menu_move(&sel, 3, ACT_UP), UI_REDRAW);
    ck_assert_int_eq(sel, 2);
    ck_assert_int_eq(screen_menu_move(&sel, 3, ACT_DOWN), UI_REDRAW);
    ck_assert_int_eq(sel, 0);
    screen_menu_move(&sel, 3, ACT_RIGHT);
    screen_menu_move(&sel, 3, ACT_RIGHT);
    ck_assert_int_eq(sel, 2);
    screen_menu_move(&sel, 3, ACT_LEFT);
    ck_assert_int_eq(sel, 1);
    ck_assert_int_eq(screen_menu_move(&sel, 3, ACT_OPEN), UI_NONE);
    ck_assert_int_eq(sel, 1);
    ck_assert_int_eq(screen_menu_move(&sel, 1, ACT_DOWN), UI_REDRAW);
    ck_assert_int_eq(sel, 0);
}
END_TEST

START_TEST(test_full_stack_frees_the_extra)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ScreenStack st;
    screenstack_init(&st);
    for (int i = 0; i < SCREENSTACK_MAX; i++)
        ck_assert_int_eq(screenstack_push(&st, help_open(&ui)), 0);
    ck_assert_int_eq(screenstack_push(&st, help_open(&ui)), -1); /* freed, not leaked */
    ck_assert_int_eq(screenstack_push(&st, NULL), -1);
    ck_assert_int_eq(screenstack_depth(&st), SCREENSTACK_MAX);
    screenstack_free(&st);
    ui_free(&ui);
}
END_TEST

static Suite *screenstack_suite(void)
{
    Suite *s = suite_create("screenstack");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_home_walk_back_quit);
    tcase_add_test(tc, test_ticks_move_an_animation);
    tcase_add_test(tc, test_repaint_resize_status);
    tcase_add_test(tc, test_help_opens_at_the_screens_section);
    tcase_add_test(tc, test_status_is_one_sanitised_line);
    tcase_add_test(tc, test_full_stack_frees_the_extra);
    tcase_add_test(tc, test_screen_gets_the_tables_action);
    tcase_add_test(tc, test_help_and_back_left_to_the_stack);
    tcase_add_test(tc, test_menu_move_wraps);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(screenstack_suite)
