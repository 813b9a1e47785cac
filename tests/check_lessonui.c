/* check_lessonui.c - the lesson screens (src/ui/lessons.c, page_screen.c,
 * variants_screen.c, kvcalc.c) driven without a terminal: keys in, flags and
 * canvases out. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "store/progress.h"
#include "ui/help.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

/* The screen the last key opened (the test's to screen_close), or NULL. */
static Screen *pushed;

static char tmpdir[256];
static Ui ui;

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mhaviz-lessonui-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setenv("XDG_STATE_HOME", tmpdir, 1);
    unsetenv("MHAVIZ_LESSONS");
    memset(&ui, 0, sizeof ui);
    ui.cfg = mha_config_default();
    char err[200];
    ui.mha = mha_run(&ui.cfg, err, sizeof err);
    ck_assert_ptr_nonnull(ui.mha);
}

static void teardown(void)
{
    mha_free(ui.mha);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    unsetenv("MHAVIZ_LESSONS");
}

static int shows(Screen *s, int w, int h, const char *text)
{
    Canvas *c = canvas_new(w, h);
    screen_tick(s, &ui, 0.0); /* as the screen stack: tick, then draw */
    screen_draw(s, &ui, c);
    int r = canvas_contains(c, text);
    canvas_free(c);
    return r;
}

/* As the screen stack does: the status lasts until the next key. */
static int press(Screen *s, int key)
{
    ui.status[0] = 0;
    return screenstack_send(s, &ui, key, &pushed);
}

START_TEST(menu_opens_lessons_and_marks_progress)
{
    Screen *m = lessons_open(&ui);
    ck_assert_ptr_nonnull(m);
    ck_assert(shows(m, 80, 24, "1. The pipeline end to end"));
    ck_assert(shows(m, 80, 24, "7. Failure modes"));
    ck_assert(shows(m, 80, 24, "0/7"));
    ck_assert(shows(m, 60, 20, "enlarge to 80x24"));
    /* 0 opens the tenth lesson: 1-9 alone could not reach "10." */
    ck_assert(shows(m, 80, 24, "10. The cache in production"));
    ck_assert_int_eq(press(m, '0'), UI_PUSH | UI_REDRAW);
    ck_assert(shows(pushed, 80, 24, "10. The cache in production  1/"));
    screen_close(pushed);
    ck_assert_int_eq(press(m, '2'), UI_PUSH | UI_REDRAW);
    Screen *p = pushed;
    ck_assert_ptr_nonnull(p);
    ck_assert(shows(p, 80, 24, "2. Heads are views  1/7  The candy bar"));
    ck_assert(shows(p, 120, 40, "The candy bar"));
    ck_assert(shows(p, 120, 40, "step 1/10")); /* the scene beside the text */
    ck_assert_int_eq(press(p, ' '), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "2/7  d_model = heads x d_head"));
    /* The menu sees the finished page, and so does the next run. */
    ck_assert(shows(m, 80, 24, "1/7"));
    Progress pr;
    screen_tick(p, &ui, 1.0); /* the save comes in a tick after the frame */
    progress_load(&pr, 0);
    ck_assert(progress_done(&pr, "02-heads", 0));
    /* The question waits for a typed answer (issue 17: it was reveal-only);
     * a wrong one gets the page's hint, never "too low". */
    ck_assert(shows(p, 80, 24, "Type your answer, then Enter."));
    press(p, '6');
    press(p, '5');
    ck_assert_int_eq(press(p, UI_K_ENTER), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "Not yet: 65 is not it. Every head gets an equal slice"));
    ck_assert(shows(p, 80, 24, "token's row."));   /* the hint's own full stop, */
    ck_assert(!shows(p, 80, 24, "token's row..")); /* not a second one after it */
    press(p, UI_K_BACKSPACE);
    press(p, '4');
    ck_assert_int_eq(press(p, UI_K_ENTER), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "Right: 64."));
    ck_assert(shows(p, 80, 24, "d_model / heads"));
    ck_assert_int_eq(press(p, UI_K_PGDN), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "3/7"));
    ck_assert_int_eq(press(p, UI_K_PGUP), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "2/7"));
    /* Narrow: Tab shows the picture alone. */
    ck_assert_int_eq(press(p, UI_K_TAB), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "Tab text"));
    ck_assert(!shows(p, 80, 24, "d_model = heads x d_head"));
    press(p, UI_K_TAB);
    for (int i = 0; i < 3; i++) /* what waits, the answer, page 3: ? is not typed there */
        press(p, UI_K_PGDN);
    ck_assert(shows(p, 80, 24, "3/7"));
    /* ? opens the one help (keys.c's table) at the lesson page's keys. */
    ck_assert_int_eq(press(p, '?'), UI_HELP | UI_REDRAW); /* the stack opens it, here: */
    Screen *h = help_open_at(&ui, p->ops->help);
    ck_assert(shows(h, 80, 24, "Lesson page"));
    ck_assert(shows(h, 80, 24, "reload (the lesson file, from disk)"));
    ck_assert(shows(h, 80, 24, "Space PgDn Right Enter l"));
    ck_assert(shows(h, 80, 24, "next (answer first; last page: next lesson)"));
    ck_assert_int_eq(press(h, 'q'), UI_BACK | UI_REDRAW);
    screen_close(h);
    /* To the end: the last page goes on to the next lesson, in its place. */
    ck_assert_int_eq(press(p, 'G'), UI_REDRAW);
    ck_assert_int_eq(press(p, ' '), UI_REDRAW); /* its typed question: what it waits for */
    ck_assert_int_eq(press(p, ' '), UI_REDRAW); /* then the answer */
    ck_assert_int_eq(press(p, ' '), UI_BACK | UI_PUSH | UI_REDRAW);
    /* Issue 17: pages skipped and answers revealed do not finish a lesson. */
    ck_assert_msg(strstr(ui.status, "end of 2. Heads are views: 2 solved, 1 revealed, 4 not done. "
                                    "Next: 3.") != NULL,
                  "%s", ui.status);
    Screen *p3 = pushed;
    ck_assert_ptr_nonnull(p3);
    ck_assert(shows(p3, 80, 24, "3. "));
    screen_close(p);
    /* q from lesson 3 comes back to the menu on lesson 3. */
    ck_assert_int_eq(press(p3, 'q'), UI_BACK | UI_REDRAW);
    screen_close(p3);
    ck_assert_int_eq(press(m, UI_K_ENTER), UI_PUSH | UI_REDRAW);
    ck_assert(shows(pushed, 80, 24, "3. "));
    screen_close(pushed);
    ck_assert_int_eq(press(m, 'q'), UI_BACK | UI_REDRAW);
    screen_close(m);
}
END_TEST

/* Space alone goes through all seven lessons in order, then back to the menu. */
START_TEST(space_goes_through_every_lesson)
{
    ui.no_save = 1;
    Screen *m = lessons_open(&ui);
    ck_assert_int_eq(press(m, UI_K_ENTER), UI_PUSH | UI_REDRAW);
    Screen *p = pushed;
    ck_assert(shows(p, 80, 24, " 1. The pipeline end to end  1/"));
    int lessons = 1, presses = 0, f;
    while ((f = press(p, ' ')) != (UI_BACK | UI_REDRAW)) {
        ck_assert_int_lt(++presses, 500);
        if (f & UI_BACK) {
            ck_assert_int_eq(f, UI_BACK | UI_PUSH | UI_REDRAW);
            screen_close(p);
            p = pushed;
            lessons++;
            char head[16];
            snprintf(head, sizeof head, " %d. ", lessons);
            ck_assert_msg(shows(p, 80, 24, head), "lesson %d did not open", lessons);
            ck_assert(shows(p, 80, 24, "1/")); /* at its first page */
        } else {
            ck_assert_int_eq(f, UI_REDRAW);
        }
    }
    ck_assert_int_eq(lessons, 10);
    ck_assert_msg(strstr(ui.status, "that was the last lesson") != NULL, "%s", ui.status);
    screen_close(p);
    screen_close(m);
}
END_TEST

START_TEST(reload_picks_up_edits)
{
    char file[400];
    snprintf(file, sizeof file, "%s/teach.lesson", tmpdir);
    FILE *f = fopen(file, "w");
    fputs("@title Mine\n@page First\nOld words, {d_head}.\n", f);
    fclose(f);
    Screen *p = lesson_open(&ui, file);
    ck_assert_ptr_nonnull(p);
    ck_assert(shows(p, 80, 24, "Old words, 4."));
    f = fopen(file, "w");
    fputs("@title Mine\n@page First\n@config d_model=16 heads=2\nNew words, {d_head}.\n", f);
    fclose(f);
    ck_assert_int_eq(press(p, 'r'), UI_REDRAW);
    ck_assert(strstr(ui.status, "reloaded") != NULL);
    /* A lesson file outside the list ends alone: no "last lesson", no next. */
    ck_assert_int_eq(press(p, ' '), UI_BACK | UI_REDRAW);
    ck_assert_str_eq(ui.status, "lesson finished: Mine");
    ck_assert(shows(p, 80, 24, "New words, 8."));
    /* A broken edit keeps the page and says where. */
    f = fopen(file, "w");
    fputs("@title Mine\n@page First\n@shwo split\n", f);
    fclose(f);
    press(p, 'r');
    ck_assert_msg(strstr(ui.status, "not reloaded:") && strstr(ui.status, "teach.lesson:3:"), "%s",
                  ui.status);
    ck_assert(shows(p, 80, 24, "New words, 8."));
    /* An expression that fails after an edit: shown on the page, no crash. */
    f = fopen(file, "w");
    fputs("@title Mine\n@page First\nBad {shape nope}.\n", f);
    fclose(f);
    press(p, 'r');
    ck_assert(shows(p, 80, 24, "teach.lesson:3: unknown tensor 'nope'"));
    screen_close(p);
    /* Opening a lesson that cannot be read: NULL and the reason. */
    ck_assert_ptr_null(lesson_open(&ui, "/nonexistent.lesson"));
    ck_assert(strstr(ui.status, "nonexistent") != NULL);
}
END_TEST

START_TEST(mhaviz_lessons_dir_replaces_the_list)
{
    char file[400];
    snprintf(file, sizeof file, "%s/01-own.lesson", tmpdir);
    FILE *f = fopen(file, "w");
    fputs("@title A teacher's lesson\n@page P\nHello.\n", f);
    fclose(f);
    snprintf(file, sizeof file, "%s/02-broken.lesson", tmpdir);
    f = fopen(file, "w");
    fputs("@title Broken\n@pgae P\n", f);
    fclose(f);
    setenv("MHAVIZ_LESSONS", tmpdir, 1);
    Screen *m = lessons_open(&ui);
    ck_assert(shows(m, 80, 24, "A teacher's lesson"));
    ck_assert(!shows(m, 80, 24, "Heads are views"));
    ck_assert(shows(m, 80, 24, "cannot be opened"));
    press(m, 'j');
    ck_assert(shows(m, 80, 24, "02-broken.lesson:2: unknown directive '@pgae'"));
    ck_assert_int_eq(press(m, UI_K_ENTER), UI_REDRAW); /* refused, reason in the status */
    ck_assert(strstr(ui.status, "02-broken.lesson:2:") != NULL);
    screen_close(m);
}
END_TEST

START_TEST(variants_side_by_side)
{
    Screen *v = variants_open(&ui);
    ck_assert(shows(v, 80, 24, "MHA  kv_heads 2"));
    /* heads 2: no GQA in between, said plainly, with the way to get one. */
    ck_assert(shows(v, 80, 24, "2 query heads: no GQA."));
    ck_assert(shows(v, 80, 24, "4 query"));
    ck_assert(shows(v, 80, 24, "no GQA column for these heads:  H heads"));
    ck_assert_int_eq(press(v, 'K'), UI_REDRAW);
    ck_assert(strstr(ui.status, "press H for more") != NULL);
    ck_assert_int_eq(press(v, 'H'), UI_REDRAW);
    ck_assert_int_eq(ui.cfg.heads, 4);
    ck_assert(shows(v, 80, 24, "GQA  kv_heads 2"));
    ck_assert(shows(v, 80, 24, "q0 q1 -> kv0"));
    ck_assert(shows(v, 80, 24, "q0 q1 q2 q3 -> kv0")); /* MQA */
    ck_assert(shows(v, 80, 24, "0 bytes copied"));
    /* Each K buffer's size fits its column (no "..."), and all three bars
     * show offsets alone, one row per token: MQA's 8 floats are 4 rows of 2. */
    ck_assert(shows(v, 80, 24, "S7: 32 floats, 128 B"));
    ck_assert(shows(v, 80, 24, "S7: 16 floats, 64 B"));
    ck_assert(shows(v, 80, 24, "S7: 8 floats, 32 B"));
    ck_assert(!shows(v, 80, 24, "floats..."));
    ck_assert(!shows(v, 80, 24, "floats,..."));
    ck_assert(shows(v, 80, 24,
                    "\xE2\x94\x82"
                    "0  1   ")); /* MQA: offsets 0 1, no values */
    ck_assert(shows(v, 120, 40, "S7: 32 floats, 128 B"));
    MhaConfig c = ui.cfg;
    c.d_model = 24, c.heads = 12, c.kv_heads = 12;
    ck_assert_int_eq(ui_set_config(&ui, &c), 0);
    ck_assert(shows(v, 80, 24, "GQA  kv_heads 2")); /* still a divisor of 12: kept */
    ck_assert_int_eq(press(v, 'K'), UI_REDRAW);
    ck_assert(shows(v, 80, 24, "GQA  kv_heads 3"));
    ck_assert_int_eq(ui.cfg.kv_heads, 3); /* live: the configuration follows */
    ck_assert_int_eq(press(v, UI_K_LEFT), UI_REDRAW);
    ck_assert_int_eq(press(v, UI_K_LEFT), UI_REDRAW); /* wraps: 2 -> 6 */
    ck_assert(shows(v, 80, 24, "GQA  kv_heads 6"));
    ck_assert(shows(v, 80, 24, "... "));
    ck_assert_int_eq(press(v, 'q'), UI_BACK | UI_REDRAW);
    screen_close(v);
}
END_TEST

START_TEST(kv_calculator_screen)
{
    Screen *k = kvcalc_open(&ui);
    ck_assert(shows(k, 80, 24, "Transformer base"));
    for (int i = 0; i < 3; i++)
        press(k, 'j');
    ck_assert(shows(k, 80, 24, "Llama 2 70B"));
    ck_assert(shows(k, 80, 24, "2 x 80 x 8 x 128 x 16/8 = 327,680 B/token"));
    ck_assert(shows(k, 80, 24, "2,621,440")); /* MHA: 8x */
    ck_assert(shows(k, 80, 24, "context 4,096"));
    press(k, '+');
    ck_assert(shows(k, 80, 24, "context 8,192"));
    press(k, 'd'); /* bf16 */
    press(k, 'd'); /* fp8 */
    ck_assert(shows(k, 80, 24, "dtype fp8"));
    ck_assert(shows(k, 80, 24, "163,840 B/token"));
    press(k, 'B');
    ck_assert(shows(k, 80, 24, "batch 2"));
    /* up (wrapping) to llama-4-maverick, wherever the list puts it: its
     * chunked layers capped */
    for (int i = 0; i < 64 && !shows(k, 80, 24, "Llama 4 Maverick"); i++)
        press(k, 'k');
    ck_assert(shows(k, 80, 24, "Llama 4 Maverick"));
    ck_assert(shows(k, 80, 24, "36 of 48 layers keep 8,192 tokens (chunk)"));
    press(k, 'k');
    ck_assert(shows(k, 80, 24, "Falcon 7B"));
    ck_assert(shows(k, 80, 24, "num_kv_heads trap"));
    press(k, 'k'); /* mistral-7b at 8192: its 4096-token window halves the cache */
    ck_assert(shows(k, 80, 24, "Mistral 7B v0.1"));
    ck_assert(shows(k, 80, 24, "32 of 32 layers keep 4,096 tokens (window)"));
    ck_assert(shows(k, 80, 24, "512.0 MiB"));
    ck_assert_int_eq(press(k, 'q'), UI_BACK | UI_REDRAW);
    screen_close(k);
}
END_TEST

/* An @expect page: the answer is typed and checked by the engine's numbers;
 * a wrong one says why and waits, a right one shows the explanation. */
START_TEST(typed_exercise_is_checked)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "1");
    ck_assert_ptr_nonnull(p);
    press(p, ' ');
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "3/7  The first reshape: split"));
    ck_assert(shows(p, 80, 24, "Type your answer, then Enter."));
    ck_assert(shows(p, 80, 24, "Enter check  Backspace erase")); /* the hint, from the table */
    const char *wrong = "(1, 4, 2, 4)";                          /* Q_split's shape, not Q_heads' */
    for (const char *k = wrong; *k; k++)
        ck_assert_int_eq(press(p, *k), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "> (1, 4, 2, 4)_"));
    ck_assert_int_eq(press(p, UI_K_ENTER), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "Not yet: off at positions 2 and 3."));
    ck_assert(!shows(p, 80, 24, "the transpose swapped S and H"));
    ck_assert(shows(p, 80, 24, "3/7")); /* q was typed, h and l too: still here */
    for (size_t i = 0; i < strlen(wrong); i++)
        press(p, UI_K_BACKSPACE);
    /* the answer is a text field (ui/field.h): any character, shown as
     * typed (a backquote once vanished as markup, an 'é' was refused), and
     * Left moves in it rather than turning the page */
    ck_assert_int_eq(press(p, '`'), UI_REDRAW);
    ck_assert_int_eq(press(p, 0xE9), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "> `\xc3\xa9_"));
    ck_assert_int_eq(press(p, UI_K_LEFT), UI_REDRAW);
    ck_assert_int_eq(press(p, UI_K_DELETE), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "3/7"));
    ck_assert(shows(p, 80, 24, "> `_"));
    ck_assert_int_eq(press(p, UI_K_BACKSPACE), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "> _"));
    for (const char *k = "1,2,4,4"; *k; k++) /* the quiz's spellings are accepted */
        press(p, *k);
    ck_assert_int_eq(press(p, UI_K_ENTER), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "Right: (1, 2, 4, 4)."));
    ck_assert(shows(p, 80, 24, "the transpose swapped S and H"));
    ck_assert(strstr(ui.status, "Right.") != NULL);
    ui.status[0] = 0;
    ck_assert(shows(p, 80, 24, "Space next")); /* the page's keys again */
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "4/7"));
    /* Enter on an empty answer shows it (a skip); Space first says what waits. */
    press(p, 'G');
    ck_assert(shows(p, 80, 24, "7/7"));
    ck_assert_int_eq(press(p, ' '), UI_REDRAW);
    ck_assert(strstr(ui.status, "Not yet: type the answer") != NULL);
    ck_assert_int_eq(press(p, UI_K_ENTER), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "The answer: 128."));
    screen_close(p);
}
END_TEST

/* A right answer counts when it is judged: q straight after it keeps the
 * page solved (it was recorded only when Space turned the page). */
START_TEST(a_right_answer_is_kept_on_q)
{
    Screen *p = lesson_open(&ui, "1");
    ck_assert_ptr_nonnull(p);
    press(p, ' ');
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "3/7  The first reshape: split"));
    for (const char *k = "1,2,4,4"; *k; k++)
        press(p, *k);
    ck_assert_int_eq(press(p, UI_K_ENTER), UI_REDRAW);
    ck_assert(strstr(ui.status, "Right.") != NULL);
    press(p, 'q');
    screen_close(p);
    Progress pr;
    progress_load(&pr, 0);
    ck_assert(progress_solved(&pr, "01-pipeline", 2));
}
END_TEST

/* A @do page waits for H, says where the learner is, and confirms. */
START_TEST(do_exercise_waits_for_the_key)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "02-heads");
    for (int i = 0; i < 12 && !shows(p, 80, 24, "5/7"); i++)
        press(p, ' ');
    ck_assert(shows(p, 80, 24, "5/7  Same bytes, more heads"));
    ck_assert(shows(p, 80, 24, "Waiting for you: press H until heads is 4 (now 2)."));
    ck_assert(shows(p, 80, 24, "H heads  "));
    ck_assert(!shows(p, 80, 24, "Q_split is (1, 4, 4, 2)"));
    ck_assert_int_eq(press(p, 'H'), UI_REDRAW);
    ck_assert(strstr(ui.status, "Done: heads reached") != NULL);
    ck_assert(shows(p, 80, 24, "Done."));
    ck_assert(shows(p, 80, 24, "4 heads: Q_split is (1, 4, 4, 2), strides (32, 8, 2, 1)"));
    press(p, 'H'); /* on to 8 heads: still done, the picture follows */
    ck_assert(shows(p, 80, 24, "Done."));
    ck_assert(strstr(ui.status, "heads 2 -> 8") != NULL);
    press(p, UI_K_PGUP); /* another page keeps its configuration */
    ck_assert_int_eq(press(p, 'H'), UI_REDRAW);
    ck_assert(strstr(ui.status, "keeps its configuration") != NULL);
    screen_close(p);
}
END_TEST

/* @do inspect: i, then the cursor keys, to the element asked for. */
START_TEST(do_inspect_exercise)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "3");
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "2/7  Walking a head"));
    ck_assert(shows(p, 80, 24, "press i, then move the cursor to Q_heads[0,1,2,3]"));
    ck_assert_int_eq(press(p, 'i'), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "move the cursor to Q_heads[0,1,2,3] (now [0,0,0,0])"));
    ck_assert(shows(p, 80, 24, "Left/Right/Up/Down move  i leave  Space next  q back"));
    for (int i = 0; i < 6; i++)
        press(p, 'j');
    for (int i = 0; i < 2; i++)
        press(p, 'l');
    ck_assert(shows(p, 80, 24, "(now [0,1,2,2])"));
    ck_assert(shows(p, 80, 24, "the cursor's float: offset 22 of the storage"));
    press(p, 'l');
    ck_assert(strstr(ui.status, "Done: inspect found") != NULL);
    ck_assert(shows(p, 80, 24, "0 + 0*32 + 1*4 + 2*8 + 3*1 = 23"));
    ck_assert_int_eq(press(p, 'i'), UI_REDRAW); /* leaves inspect mode */
    ck_assert(shows(p, 80, 24, "Space next  PgUp previous"));
    screen_close(p);
}
END_TEST

/* Space on a waiting @do: says what it waits for, then does it for the
 * learner (the picture moves there), then goes on. */
START_TEST(space_skips_a_do_exercise)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "6");
    press(p, ' ');
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "3/12  Who shares which kv head"));
    ck_assert_int_eq(press(p, ' '), UI_REDRAW);
    ck_assert(strstr(ui.status, "press K until kv_heads is 1 (now 2)") != NULL);
    ck_assert_int_eq(press(p, ' '), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "q0 q1 q2 q3 -> kv0"));
    press(p, UI_K_TAB); /* the picture is the one the answer talks about */
    ck_assert(shows(p, 80, 24, "MQA  kv_heads 1"));
    press(p, UI_K_TAB);
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "4/12"));
    screen_close(p);
}
END_TEST

/* The bottom lines of the lesson screens are the key table's. */
START_TEST(hints_come_from_the_key_table)
{
    char hint[200];
    Screen *m = lessons_open(&ui);
    static const Action keys[] = {ACT_UP, ACT_OPEN, ACT_DIGIT, ACT_HELP, ACT_BACK};
    keys_hint_pick(KC_LESSONS, keys, 5, 2, hint, sizeof hint);
    ck_assert_str_eq(hint, "Up/Down choose  Enter/Space open  1-9/0 open  ? keys  q/Esc back");
    ck_assert(shows(m, 80, 24, hint));
    screen_close(m);
    lessonui_page_hint(0, hint, sizeof hint);
    ck_assert_str_eq(hint, "Space next  PgUp previous  Tab text/picture  r reload  q back  ? keys");
    Screen *k = kvcalc_open(&ui);
    ck_assert(shows(k, 80, 24, "Up/Down model  d/Right dtype  +/- context  B/b batch"));
    screen_close(k);
}
END_TEST

/* Home's "Continue": the last lesson with progress, at its first unfinished
 * page; the next lesson once that one is finished. */
START_TEST(continue_where_you_left_off)
{
    Screen *s = lessons_continue(&ui);
    ck_assert(shows(s, 80, 24, "1. The pipeline end to end  1/7"));
    screen_close(s);
    Progress pr;
    progress_load(&pr, 0);
    progress_mark(&pr, "03-transpose", 0);
    progress_mark(&pr, "03-transpose", 1);
    s = lessons_continue(&ui);
    ck_assert(shows(s, 80, 24, "3. Transpose and contiguity  3/7"));
    screen_close(s);
    for (int p = 2; p < 7; p++)
        progress_mark(&pr, "03-transpose", p);
    s = lessons_continue(&ui);
    ck_assert(shows(s, 80, 24, "4. Per-head softmax  1/5"));
    screen_close(s);
}
END_TEST

/* ---- issue 17: every exercise of every lesson, as a learner does it ---------- */

/* Is word on the frame as a whole word (not "32" inside "320")? */
static int frame_has_word(const Canvas *c, const char *word)
{
    int n = (int)strlen(word);
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x + n <= c->w; x++) {
            const Cell *row = &c->cells[y * c->w];
            int k = 0;
            while (k < n && row[x + k].ch == (unsigned char)word[k])
                k++;
            if (k < n) continue;
            uint32_t before = x > 0 ? row[x - 1].ch : ' ',
                     after = x + n < c->w ? row[x + n].ch : ' ';
            int wb = before < 128 && (isalnum((int)before) || before == '.'),
                wa = after < 128 && (isalnum((int)after) || after == '.');
            if (!wb && !wa) return 1;
        }
    return 0;
}

/* The first words of an expanded answer as drawn (markup removed). */
static void answer_start(const char *answer, char *out, size_t n)
{
    size_t k = 0;
    for (const char *s = answer; *s && k + 1 < n && k < 18; s++)
        if (*s != '`' && *s != '*') out[k++] = *s;
    out[k] = 0;
}

/* What a learner can read at 80x24 on either pane (text, then Tab: the
 * picture) does not give the page's answer away. */
static void assert_hidden(Screen *s, const LessonPage *pg, const LessonPageText *t,
                          const char *where)
{
    char start[32] = "";
    if (t->answer) answer_start(t->answer, start, sizeof start);
    for (int pane = 0; pane < 2; pane++) {
        Canvas *c = canvas_new(80, 24);
        screen_draw(s, &ui, c);
        if (pg->expect && strlen(t->expect) > 1)
            ck_assert_msg(!frame_has_word(c, t->expect), "%s: the answer %s is on screen (pane %d)",
                          where, t->expect, pane);
        if (start[0] && strlen(start) >= 8)
            ck_assert_msg(!canvas_contains(c, start), "%s: the answer '%s' is on screen (pane %d)",
                          where, start, pane);
        if (pg->predict || pg->moves) /* which cell moves: the run says where it went */
            ck_assert_msg(!canvas_contains(c, "The engine ran it"), "%s: the run is shown", where);
        if (pg->predict) /* the picture of a failure names it: held back too */
            for (const char *const *g =
                     (const char *const[]){"the bug", "bug: ", "failure mode", "Q_wrong", NULL};
                 *g; g++)
                ck_assert_msg(!canvas_contains(c, *g),
                              "%s: '%s' on screen before the prediction (pane %d)", where, *g,
                              pane);
        canvas_free(c);
        press(s, UI_K_TAB);
    }
}

static void type_text(Screen *s, const char *text)
{
    for (const char *k = text; *k; k++)
        press(s, *k);
}

/* Answers page p's exercise wrongly, checks it still waits with the answer
 * held back, then answers it rightly. */
static void answer_wrong_then_right(Screen *s, const LessonPage *pg, const LessonPageText *t,
                                    const char *where)
{
    assert_hidden(s, pg, t, where);
    if (pg->expect) {
        const char *wrong = "(99, 99)"; /* no answer of the course */
        char num[32];
        if (pg->expect == LE_NUMBER) {
            long long v = 0;
            for (const char *d = t->expect; *d; d++)
                if (*d >= '0' && *d <= '9') v = v * 10 + (*d - '0');
            snprintf(num, sizeof num, "%lld", v + 1);
            wrong = num;
        }
        type_text(s, wrong);
        press(s, UI_K_ENTER);
        ck_assert_msg(shows(s, 80, 24, "Not yet: "), "%s: a wrong answer was not refused", where);
        assert_hidden(s, pg, t, where);
        for (size_t i = 0; i < strlen(wrong); i++)
            press(s, UI_K_BACKSPACE);
        type_text(s, t->expect);
        press(s, UI_K_ENTER);
        char right[160];
        snprintf(right, sizeof right, "Right: %s.", t->expect);
        ck_assert_msg(shows(s, 80, 24, right), "%s: '%s' not on screen", where, right);
    } else if (pg->predict) {
        /* the outcomes stand 3 columns apart (the rich text once read the
         * gap as one space: "wrong 2 raises") */
        ck_assert_msg(shows(s, 80, 24, "1 runs, silently wrong   2 raises"), "%s: outcomes", where);
        press(s, '0' + (int)pg->predict % (LP_COUNT - 1) + 1); /* another outcome */
        ck_assert_msg(shows(s, 80, 24, "Not \""), "%s: a wrong prediction was not refused", where);
        if (t->hint) ck_assert(strstr(ui.status, "Not that one") != NULL);
        assert_hidden(s, pg, t, where);
        press(s, '0' + (int)pg->predict);
        ck_assert_msg(shows(s, 80, 24, "The engine ran it"), "%s: the run is not shown", where);
    } else if (pg->todo == LD_INSPECT) {
        press(s, 'i'); /* the cursor starts elsewhere (--check): not done */
        ck_assert_msg(shows(s, 80, 24, "Waiting for you: move the cursor"), "%s", where);
        assert_hidden(s, pg, t, where);
        int done = 0; /* walk every cell, row by row */
        for (int row = 0; row < 64 && !done; row++) {
            for (int col = 0; col < 64 && !done; col++) {
                press(s, row % 2 ? UI_K_LEFT : UI_K_RIGHT);
                done = strstr(ui.status, "Done:") != NULL;
            }
            if (!done) press(s, UI_K_DOWN);
            done = done || strstr(ui.status, "Done:") != NULL;
        }
        ck_assert_msg(done, "%s: the cell was never found", where);
    } else {
        static const int key[LD_COUNT] = {0, 'H', 'K', 'S', 0};
        int other = pg->todo == LD_SEQ ? 'H' : 'S';
        if (pg->todo == LD_HEADS) other = 'S';
        press(s, other); /* the wrong knob: not done */
        ck_assert_msg(shows(s, 80, 24, "Waiting for you: press"), "%s", where);
        assert_hidden(s, pg, t, where);
        int done = 0;
        for (int i = 0; i < 40 && !done; i++) {
            press(s, key[pg->todo]);
            done = strstr(ui.status, "Done:") != NULL;
        }
        ck_assert_msg(done, "%s: never reached", where);
    }
    if (t->answer && !pg->todo) {
        char start[32];
        answer_start(t->answer, start, sizeof start);
        if (strlen(start) >= 8)
            ck_assert_msg(shows(s, 80, 24, start), "%s: the answer '%s' is not shown", where,
                          start);
    }
}

/* Goes through every lesson of the list: solve (answers wrongly then
 * rightly) or reveal (Space) each exercise; returns the exercises met. */
static int run_course(int solve)
{
    char **paths, err[400];
    int np = lesson_list(&paths, err, sizeof err), exercises = 0;
    ck_assert_int_gt(np, 7);
    PresetList presets;
    ck_assert_int_eq(presets_builtin(&presets, err, sizeof err), 0);
    for (int i = 0; i < np; i++) {
        char path[4096];
        Lesson *l = lessonui_read(paths[i], path, sizeof path, err, sizeof err);
        ck_assert_msg(l != NULL, "%s", err);
        Screen *s = lesson_open(&ui, paths[i]);
        ck_assert_ptr_nonnull(s);
        for (int p = 0; p < l->npages; p++) {
            const LessonPage *pg = &l->pages[p];
            char where[200], at[64];
            snprintf(where, sizeof where, "%s page %d", l->name, p + 1);
            snprintf(at, sizeof at, "%d/%d  ", p + 1, l->npages);
            if (!shows(s, 80, 24, at)) {
                Canvas *c = canvas_new(80, 24);
                screen_draw(s, &ui, c);
                canvas_write(c, stderr, 0, 0);
                canvas_free(c);
            }
            ck_assert_msg(shows(s, 80, 24, at), "%s: not on screen", where);
            Mha *m = mha_run(&pg->cfg, err, sizeof err);
            LessonPageText t;
            ck_assert_int_eq(lesson_page_text(l, p, m, &presets, &t, err, sizeof err), 0);
            if (pg->question) {
                exercises++;
                if (solve) {
                    answer_wrong_then_right(s, pg, &t, where);
                } else {
                    assert_hidden(s, pg, &t, where);
                    press(s, ' '); /* says what it waits for */
                    assert_hidden(s, pg, &t, where);
                    press(s, ' '); /* shows the answer */
                }
            }
            int r = press(s, ' ');
            if (p + 1 == l->npages) {
                ck_assert(r & UI_BACK);
                int finished = strstr(ui.status, "lesson finished") != NULL;
                ck_assert_msg(finished == solve, "%s: %s", l->name, ui.status);
                if (pushed) screen_close(pushed);
                pushed = NULL;
            }
            lesson_text_free(&t);
            mha_free(m);
        }
        screen_close(s); /* saves the progress */
        Progress pr;
        progress_load(&pr, 0);
        for (int p = 0; p < l->npages; p++) {
            int st = lessonui_page_state(&pr, l->name, p, l->pages[p].question != NULL);
            ck_assert_msg(
                st == (solve || !l->pages[p].question ? LESSONUI_SOLVED : LESSONUI_REVEALED),
                "%s page %d: state %d", l->name, p + 1, st);
        }
        lesson_free(l);
    }
    presets_free(&presets);
    lesson_list_free(paths, np);
    return exercises;
}

START_TEST(every_exercise_answered_wrongly_then_rightly)
{
    int n = run_course(1);
    ck_assert_int_ge(n, LESSON_COURSE_CHECKED);
    /* The menu: every lesson solved, ■ on every page. */
    Screen *m = lessons_open(&ui);
    ck_assert(shows(m, 80, 24, "\xE2\x96\xA0\xE2\x96\xA0\xE2\x96\xA0\xE2\x96\xA0\xE2\x96\xA0 5/5"));
    ck_assert(!shows(m, 80, 24, " solved ")); /* "1/7 solved": some only revealed */
    screen_close(m);
}
END_TEST

START_TEST(every_exercise_revealed_is_not_solved)
{
    ck_assert_int_ge(run_course(0), LESSON_COURSE_CHECKED);
    Screen *m = lessons_open(&ui);
    ck_assert(shows(m, 80, 24, "\xE2\x96\xA1")); /* □ revealed */
    ck_assert(shows(m, 80, 24, " solved "));
    screen_close(m);
}
END_TEST

/* The course keeps its promises, whatever lessons are added (issue 17). */
START_TEST(every_lesson_has_checked_exercises)
{
    char **paths, err[400];
    int np = lesson_list(&paths, err, sizeof err);
    LessonCount sum = {0, 0, 0, 0};
    for (int i = 0; i < np; i++) {
        char path[4096];
        Lesson *l = lessonui_read(paths[i], path, sizeof path, err, sizeof err);
        ck_assert_msg(l != NULL, "%s", err);
        LessonCount c = lesson_count(l);
        ck_assert_msg(lesson_checked(c) >= LESSON_MIN_CHECKED, "%s: %d checked", l->name,
                      lesson_checked(c));
        ck_assert_msg(c.reveal == 0, "%s: %d reveal-only", l->name, c.reveal);
        sum.typed += c.typed, sum.todo += c.todo, sum.predict += c.predict;
        lesson_free(l);
    }
    ck_assert_int_ge(lesson_checked(sum), LESSON_COURSE_CHECKED);
    ck_assert_int_ge(sum.predict, LESSON_COURSE_PREDICT);
    lesson_list_free(paths, np);
}
END_TEST

/* Issue 17: at 80x24 the inspect exercise of lesson 3 was done blind, the
 * logical view behind Tab.  The text pane now shows it, with the cursor. */
START_TEST(inspect_exercise_shows_the_logical_view)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "03-transpose");
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "2/7  Walking a head"));
    ck_assert(shows(p, 80, 24, "logical view: Q_heads (1, 2, 4, 4), strides (32, 4, 8, 1)"));
    ck_assert(shows(p, 80, 24, "h1 the"));
    ck_assert(shows(p, 80, 24, "i: the cursor"));
    press(p, 'i');
    ck_assert(shows(p, 80, 24, "the cursor's float: offset 0 of the storage"));
    press(p, UI_K_DOWN);
    ck_assert(shows(p, 80, 24, "the cursor's float: offset 8 of the storage"));
    screen_close(p);
}
END_TEST

/* Issue 17: lesson 6 said "watch the groups" while 80x24 showed only a
 * line about Tab.  The text pane draws the groups of the configuration on
 * screen, and they follow K. */
START_TEST(gqa_page_shows_the_groups_at_80x24)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "06-variants");
    press(p, ' ');
    press(p, ' ');
    ck_assert(shows(p, 80, 24, "3/12  Who shares which kv head"));
    ck_assert(shows(p, 80, 24, "the groups now: 4 query heads, 2 kv heads (GQA)"));
    ck_assert(shows(p, 80, 24, "kv1 <- q2 q3"));
    press(p, 'K');
    ck_assert(shows(p, 80, 24, "the groups now: 4 query heads, 1 kv head (MQA)"));
    ck_assert(shows(p, 80, 24, "kv0 <- q0 q1 q2 q3"));
    screen_close(p);
}
END_TEST

/* Issue 17: at 80x24 a page with 4 heads drew its heatmaps as shades only,
 * the weights dropped.  n (from the key table) writes every weight, all 4
 * heads on screen; n again: shades. */
START_TEST(heatmap_values_key_at_80x24)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "08-decode");
    for (int i = 0; i < 8 && !shows(p, 80, 24, "3/9  Why decode is bound by memory"); i++)
        press(p, ' ');
    ck_assert(shows(p, 80, 24, "3/9  Why decode is bound by memory"));
    press(p, UI_K_TAB); /* the picture */
    ck_assert(shows(p, 80, 24, "n numbers"));
    /* the weights of head 3, row 'cat', from a run of the page's configuration */
    MhaConfig c = mha_config_default();
    c.seq = 6, c.d_model = 8, c.heads = 4, c.kv_heads = 2, c.causal = 1;
    char err[200], w0[16], w1[16], row[64];
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    int i0[4] = {0, 3, 1, 0}, i1[4] = {0, 3, 1, 1};
    snprintf(w0, sizeof w0, "%.2f", tensor_get(m->t[MT_ATTN], i0));
    snprintf(w1, sizeof w1, "%.2f", tensor_get(m->t[MT_ATTN], i1));
    snprintf(row, sizeof row, "%s %s", w0, w1);
    ck_assert(!shows(p, 80, 24, row));
    ck_assert_int_eq(screenstack_action(KC_PAGE, 'n'), ACT_VALUES);
    ck_assert_int_eq(press(p, 'n'), UI_REDRAW);
    ck_assert_msg(shows(p, 80, 24, row), "head 3's row 'cat' (%s) not on screen", row);
    ck_assert(shows(p, 80, 24, "h3"));
    ck_assert(!shows(p, 80, 24, "hidden:")); /* every head fits */
    press(p, 'n');
    ck_assert(!shows(p, 80, 24, row));
    mha_free(m);
    screen_close(p);
}
END_TEST

/* Issue 17: "(16 rows hidden)" had no way to scroll.  Down (the key table's
 * ACT_SCROLL, named in the note and in ? help) brings the hidden rows into
 * view, Up goes back; a new page starts at the top. */
START_TEST(hidden_rows_scroll_into_view)
{
    ui.no_save = 1;
    Screen *p = lesson_open(&ui, "08-decode");
    press(p, UI_K_TAB);
    ck_assert(shows(p, 80, 24, "each head shows tokens 0-1 of 6 (16 rows hidden; Down scrolls)"));
    ck_assert_int_eq(screenstack_action(KC_PAGE, UI_K_DOWN), ACT_SCROLL);
    ck_assert_int_eq(press(p, UI_K_DOWN), UI_REDRAW);
    ck_assert(shows(p, 80, 24, "each head shows tokens 1-2 of 6"));
    for (int i = 0; i < 10; i++) /* clamped at the last rows */
        press(p, UI_K_DOWN);
    ck_assert(shows(p, 80, 24, "each head shows tokens 4-5 of 6"));
    ck_assert(shows(p, 80, 24, "h3 a "));
    press(p, UI_K_UP);
    ck_assert(shows(p, 80, 24, "each head shows tokens 3-4 of 6"));
    int found = 0;
    char line[200];
    for (int i = 0; keys_help_line(i, line, sizeof line); i++)
        found |= strstr(line, "Down") && strstr(line, "scroll (the rows a picture hides") != NULL;
    ck_assert_msg(found, "? help does not list the scroll key");
    screen_close(p);
}
END_TEST

static Suite *lessonui_suite(void)
{
    Suite *s = suite_create("lessonui");
    TCase *tc = tcase_create("screens");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, menu_opens_lessons_and_marks_progress);
    tcase_add_test(tc, space_goes_through_every_lesson);
    tcase_add_test(tc, reload_picks_up_edits);
    tcase_add_test(tc, mhaviz_lessons_dir_replaces_the_list);
    tcase_add_test(tc, variants_side_by_side);
    tcase_add_test(tc, kv_calculator_screen);
    tcase_add_test(tc, typed_exercise_is_checked);
    tcase_add_test(tc, a_right_answer_is_kept_on_q);
    tcase_add_test(tc, do_exercise_waits_for_the_key);
    tcase_add_test(tc, do_inspect_exercise);
    tcase_add_test(tc, space_skips_a_do_exercise);
    tcase_add_test(tc, hints_come_from_the_key_table);
    tcase_add_test(tc, continue_where_you_left_off);
    tcase_add_test(tc, every_exercise_answered_wrongly_then_rightly);
    tcase_add_test(tc, every_exercise_revealed_is_not_solved);
    tcase_add_test(tc, every_lesson_has_checked_exercises);
    tcase_add_test(tc, inspect_exercise_shows_the_logical_view);
    tcase_add_test(tc, gqa_page_shows_the_groups_at_80x24);
    tcase_add_test(tc, heatmap_values_key_at_80x24);
    tcase_add_test(tc, hidden_rows_scroll_into_view);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(lessonui_suite)
