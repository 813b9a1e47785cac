/* check_quiz_screen.c - the quiz Screen without a terminal: picker, a
 * question with its candy bar, typed answers, feedback, summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "check_main.h"
#include "store/quiz_history.h"
#include "ui/form.h"
#include "ui/help.h"
#include "ui/home.h"
#include "ui/keys.h"
#include "ui/quiz_body.h"
#include "ui/quiz_screen.h"
#include "ui/screen.h"
#include "ui/screenstack.h"
#include "ui/walk.h"

/* The screen the last key opened (the test's to screen_close), or NULL. */
static Screen *pushed;

static char tmpdir[256];
static Ui ui;
static Canvas *cv;

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mhaviz-qscreen-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setenv("XDG_STATE_HOME", tmpdir, 1);
    memset(&ui, 0, sizeof ui);
    MhaConfig c = mha_config_default();
    ck_assert_int_eq(ui_set_config(&ui, &c), 0);
    cv = canvas_new(80, 24);
    ck_assert_ptr_nonnull(cv);
}

static void teardown(void)
{
    canvas_free(cv);
    ui_free(&ui);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static void draw(Screen *s)
{
    canvas_clear(cv);
    screen_draw(s, &ui, cv);
}

static int type(Screen *s, const char *text)
{
    int f = 0;
    for (const char *p = text; *p; p++)
        f |= screenstack_send(s, &ui, (unsigned char)*p, &pushed);
    return f;
}

/* The number the question asks for, read back through the public API the
 * screen uses (the same seed gives the same session). */
START_TEST(picker_question_feedback_summary)
{
    Screen *s = quiz_open_with(&ui, NULL, 0, QT_OFFSETS, 3, 7, 1, 0);
    ck_assert_ptr_nonnull(s);
    draw(s);
    ck_assert(canvas_contains(cv, "Quiz: interview prep"));
    ck_assert(canvas_contains(cv, "offsets"));
    ck_assert(canvas_contains(cv, "[x] a clock per question"));
    ck_assert(canvas_contains(cv, "  3 ")); /* --count 3 became a length choice */
    ck_assert(canvas_contains(cv, "Enter start"));
    ck_assert_int_eq(screenstack_send(s, &ui, UI_K_ENTER, &pushed) & UI_REDRAW, UI_REDRAW);
    draw(s);
    ck_assert(canvas_contains(cv, "Quiz  1/3  offsets"));
    ck_assert(canvas_contains(cv, "Which storage offset"));
    ck_assert(canvas_contains(cv, "storage S")); /* the candy bar */
    ck_assert(canvas_contains(cv, "answer>"));
    ck_assert_int_eq(screen_tick(s, &ui, 1e9) & UI_ANIMATE,
                     UI_ANIMATE); /* timed: the clock ticks */

    /* garbage is refused with what to type; nothing counted */
    type(s, "(1,");
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "type a whole number"));
    ck_assert(canvas_contains(cv, "score 0/0"));
    for (int i = 0; i < 3; i++)
        screenstack_send(s, &ui, UI_K_BACKSPACE, &pushed);

    QuizBank bank = {0};
    char err[300], num[32];
    ck_assert_int_eq(quiz_bank_load_builtin(&bank, err, sizeof err), 0);
    QuizQuestion qs[3];
    ck_assert_int_eq(quiz_session(&bank, QT_OFFSETS, 3, 7, qs, err, sizeof err), 3);
    snprintf(num, sizeof num, "%lld", qs[0].number);
    type(s, num);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Right: "));
    ck_assert(canvas_contains(cv, "score 1/1"));
    ck_assert(canvas_contains(cv, "Engine working:"));

    /* next question, answered wrong */
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Quiz  2/3"));
    snprintf(num, sizeof num, "%lld", qs[1].number + 1);
    type(s, num);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Wrong: you typed"));
    ck_assert(canvas_contains(cv, "score 1/2"));

    /* q ends the quiz: the summary by topic, then back */
    screenstack_send(s, &ui, 'q', &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Score: 1/2 (50%)"));
    ck_assert(canvas_contains(cv, "To revisit:"));
    ck_assert(canvas_contains(cv, "reread mhaviz lesson 2"));
    ck_assert_int_eq(screenstack_send(s, &ui, UI_K_ENTER, &pushed) & UI_BACK, UI_BACK);
    screen_close(s);
    quiz_bank_free(&bank);

    /* the scores were saved */
    QuizHistory h;
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_OFFSETS], 2);
    ck_assert_int_eq(h.total.right[QT_OFFSETS], 1);
    quiz_history_free(&h);
}
END_TEST

START_TEST(choice_letters_and_small_terminal)
{
    QuizQuestion q;
    char err[300];
    ck_assert_int_eq(quiz_generate_kind(QG_VIEWCOPY, 5, &q, err, sizeof err), 0);
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    ck_assert_ptr_nonnull(s);
    draw(s);
    ck_assert(canvas_contains(cv, ") a view: same storage, 0 bytes copied"));
    ck_assert(canvas_contains(cv, ") an error"));
    screenstack_send(s, &ui, 'z', &pushed);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "type a letter a-c"));
    screenstack_send(s, &ui, UI_K_BACKSPACE, &pushed);
    screenstack_send(s, &ui, 'a' + q.correct, &pushed);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Right: "));
    ck_assert(canvas_contains(cv, "Enter: the summary"));
    ck_assert_int_eq(screen_tick(s, &ui, 5.0), UI_NONE); /* untimed: no clock */
    Canvas *small = canvas_new(60, 20);
    screen_draw(s, &ui, small);
    ck_assert(canvas_contains(small, "enlarge"));
    canvas_free(small);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Score: 1/1 (100%)"));
    screen_close(s);
    /* no_save: nothing written */
    QuizHistory h;
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_VIEWS], 0);
    quiz_history_free(&h);
}
END_TEST

/* A long question at 80x24: the asking line stays in view, the code scrolls. */
START_TEST(long_question_scrolls)
{
    QuizQuestion q;
    char err[300];
    uint64_t seed = 1;
    do
        ck_assert_int_eq(quiz_generate_kind(QG_SHAPE, seed++, &q, err, sizeof err), 0);
    while (q.tensor != MT_OUT || q.cfg.kv_heads == q.cfg.heads); /* the longest listing */
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    ck_assert_ptr_nonnull(s);
    draw(s);
    ck_assert(canvas_contains(cv, "What is the shape of out after the last line?"));
    ck_assert(canvas_contains(cv, "-- lines 1-"));
    ck_assert(canvas_contains(cv, "x is ("));
    ck_assert(!canvas_contains(cv, "out = concat @ W_O"));
    for (int i = 0; i < 40; i++)
        screenstack_send(s, &ui, UI_K_DOWN, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "out = concat @ W_O")); /* scrolled to the end */
    ck_assert(!canvas_contains(cv, "x is ("));
    ck_assert(canvas_contains(cv, "What is the shape of out after the last line?"));
    screenstack_send(s, &ui, UI_K_PGUP, &pushed);
    screenstack_send(s, &ui, UI_K_PGUP, &pushed);
    screenstack_send(s, &ui, UI_K_PGUP, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "x is ("));
    screen_close(s);
}
END_TEST

/* Nothing drawn reaches the last column: every text of the screen is wrapped
 * or fitted with a margin, so a mark there is a line cut at the edge.
 * Returns the first such row, or -1. */
static int cut_row(const Canvas *c)
{
    for (int y = 0; y < c->h; y++) {
        const Cell *e = canvas_at(c, c->w - 1, y);
        if (e && e->ch != ' ') return y;
    }
    return -1;
}

static void assert_fits(Screen *s, int w, int h, const char *what)
{
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    screen_draw(s, &ui, c);
    int y = cut_row(c);
    char row[1024] = "";
    if (y >= 0) canvas_row(c, y, 1, row, sizeof row);
    ck_assert_msg(y < 0, "%s at %dx%d: row %d is cut: %s", what, w, h, y, row);
    canvas_free(c);
}

static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}};

static void assert_fits_all(Screen *s, const char *what)
{
    for (int i = 0; i < 3; i++)
        assert_fits(s, sizes[i][0], sizes[i][1], what);
}

/* Review finding: the picker's key hint was cut mid-word at 80x24. */
START_TEST(picker_hint_whole_at_80)
{
    Screen *s = quiz_open_with(&ui, NULL, 0, -1, 10, 1, 1, 0);
    ck_assert_ptr_nonnull(s);
    draw(s);
    char row[256];
    canvas_row(cv, 23, 1, row, sizeof row);
    ck_assert_msg(strstr(row, "Enter start") && strstr(row, "t timed") && strstr(row, "q/Esc back"),
                  "%s", row);
    assert_fits_all(s, "picker");
    screen_close(s);
}
END_TEST

/* Issue #19 brought the topics to fifteen: at 80x24 the picker still shows
 * every one of them and all of its lines above the hint row. */
START_TEST(picker_lists_every_topic_at_80)
{
    Screen *s = quiz_open_with(&ui, NULL, 0, -1, 10, 1, 1, 0);
    ck_assert_ptr_nonnull(s);
    draw(s);
    char row[256];
    for (int t = 0; t < QT_COUNT; t++) {
        int seen = 0;
        for (int y = 0; y < 23 && !seen; y++) {
            canvas_row(cv, y, 1, row, sizeof row);
            char word[40];
            snprintf(word, sizeof word, " %s ", quiz_topic_names[t]);
            seen = strstr(row, word) != NULL;
        }
        ck_assert_msg(seen, "topic %s not on the picker at 80x24", quiz_topic_names[t]);
    }
    int last = -1;
    for (int y = 0; y < 24; y++) {
        canvas_row(cv, y, 1, row, sizeof row);
        if (strstr(row, "An answer that cannot be read")) last = y;
    }
    ck_assert_msg(last >= 0 && last < 23, "the picker's last line is at row %d", last);
    screen_close(s);
}
END_TEST

/* Every phase of every kind of question, at 80x24, 120x40 and 200x60:
 * nothing cut at the right edge; Esc is named while a question is asked. */
START_TEST(every_screen_fits)
{
    char err[300], what[160];
    for (int k = 0; k < QG_COUNT; k++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            QuizQuestion q;
            ck_assert_int_eq(quiz_generate_kind(k, seed, &q, err, sizeof err), 0);
            Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 1, 1);
            ck_assert_ptr_nonnull(s);
            snprintf(what, sizeof what, "kind %d seed %d asked", k, (int)seed);
            assert_fits_all(s, what);
            draw(s);
            ck_assert(canvas_contains(cv, "Esc end quiz"));
            type(s, seed % 2 ? "b" : "12"); /* a letter or a number: wrong or refused */
            screenstack_send(s, &ui, UI_K_ENTER, &pushed);
            snprintf(what, sizeof what, "kind %d seed %d answered", k, (int)seed);
            assert_fits_all(s, what);
            screenstack_send(s, &ui, UI_K_ESC, &pushed);
            snprintf(what, sizeof what, "kind %d seed %d summary", k, (int)seed);
            assert_fits_all(s, what);
            screen_close(s);
        }
    QuizBank bank = {0};
    ck_assert_int_eq(quiz_bank_load_builtin(&bank, err, sizeof err), 0);
    for (int i = 0; i < bank.n; i++) {
        Screen *s = quiz_open_with(&ui, &bank.q[i], 1, -1, 1, 1, 0, 1);
        ck_assert_ptr_nonnull(s);
        snprintf(what, sizeof what, "%s asked", bank.q[i].source);
        assert_fits_all(s, what);
        type(s, "a");
        screenstack_send(s, &ui, UI_K_ENTER, &pushed);
        snprintf(what, sizeof what, "%s answered", bank.q[i].source);
        assert_fits_all(s, what);
        screen_close(s);
    }
    quiz_bank_free(&bank);
}
END_TEST

/* A long typed answer shows its end, not a line cut at the edge. */
START_TEST(long_answer_shows_its_end)
{
    QuizQuestion q;
    char err[300];
    ck_assert_int_eq(quiz_generate_kind(QG_SHAPE, 1, &q, err, sizeof err), 0);
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < 10; i++)
        type(s, "(1, 2, 3) ");
    type(s, "END");
    assert_fits_all(s, "long answer");
    draw(s);
    ck_assert(canvas_contains(cv, "answer> ..."));
    ck_assert(canvas_contains(cv, "(1, 2, 3) END"));
    screen_close(s);
}
END_TEST

/* An empty answer is a skip: not counted as answered, nor as wrong; the
 * history keeps it for --review but not in the score. */
START_TEST(skip_is_not_wrong)
{
    Screen *s = quiz_open_with(&ui, NULL, 0, QT_OFFSETS, 2, 7, 0, 0);
    ck_assert_ptr_nonnull(s);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed); /* empty: skip */
    draw(s);
    ck_assert(canvas_contains(cv, "Skipped: the answer is"));
    ck_assert(canvas_contains(cv, "score 0/0, 1 skipped"));
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    type(s, "0");
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed); /* the summary */
    draw(s);
    ck_assert_msg(canvas_contains(cv, ", 1 skipped"), "no skip in the summary");
    ck_assert(!canvas_contains(cv, "Score: 0/2"));
    screen_close(s);
    QuizHistory h;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_OFFSETS], 1);
    char ids[4][64];
    ck_assert_int_ge(quiz_history_review(&h, ids, 4), 1); /* the skipped one comes back */
    quiz_history_free(&h);
}
END_TEST

/* A wrapped choice continues under its text, not under its letter. */
START_TEST(wrapped_choice_hangs_under_its_text)
{
    QuizQuestion q;
    memset(&q, 0, sizeof q);
    q.topic = QT_CONCEPTS;
    q.kind = QK_CHOICE;
    snprintf(q.id, sizeof q.id, "c:test");
    snprintf(q.source, sizeof q.source, "test");
    snprintf(q.prompt, sizeof q.prompt, "Where does RoPE apply?");
    q.n_choices = 2;
    snprintf(q.choices[0], sizeof q.choices[0], "To the input embeddings.");
    snprintf(q.choices[1], sizeof q.choices[1],
             "To Q and K in every attention layer, after the projections and head split, before "
             "the scores "
             "(and before K goes into the cache).");
    q.correct = 1;
    snprintf(q.explain, sizeof q.explain, "RoPE rotates Q and K.");
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    ck_assert_ptr_nonnull(s);
    draw(s);
    char row[1024];
    int found = 0;
    for (int y = 0; y + 1 < cv->h && !found; y++) {
        canvas_row(cv, y, 1, row, sizeof row);
        char *b = strstr(row, "b) To Q and K");
        if (!b) continue;
        found = 1;
        size_t text_col = (size_t)(b - row) + 3;
        canvas_row(cv, y + 1, 1, row, sizeof row);
        size_t next_col = strspn(row, " ");
        ck_assert_msg(next_col == text_col,
                      "continuation at column %zu, the choice text at %zu: '%s'", next_col,
                      text_col, row);
    }
    ck_assert_msg(found, "choice b not drawn");
    screen_close(s);
}
END_TEST

/* The screen takes a choice's number, as --plain does: typing the bytes of a
 * KV-cache choice answers with it; an unreadable answer is asked again. */
START_TEST(choice_by_its_number)
{
    QuizQuestion q;
    char err[300];
    ck_assert_int_eq(quiz_generate_kind(QG_KVCACHE, 3, &q, err, sizeof err), 0);
    ck_assert_int_eq(q.kind, QK_CHOICE);
    char digits[40];
    size_t k = 0;
    for (const char *p = strchr(q.choices[q.correct], '(') + 1;
         *p && *p != ' ' && k + 1 < sizeof digits; p++)
        if (*p != ',') digits[k++] = *p;
    digits[k] = 0;
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    ck_assert_ptr_nonnull(s);
    type(s, "12345");
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "not one of the choices")); /* asked again */
    ck_assert(canvas_contains(cv, "score 0/0"));
    for (int i = 0; i < 5; i++)
        screenstack_send(s, &ui, UI_K_BACKSPACE, &pushed);
    type(s, digits);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert_msg(canvas_contains(cv, "Right: "), "'%s' not taken for '%s'", digits,
                  q.choices[q.correct]);
    ck_assert(canvas_contains(cv, "score 1/1"));
    screen_close(s);

    /* the picker says so */
    s = quiz_open_with(&ui, NULL, 0, -1, 5, 1, 0, 1);
    ck_assert_ptr_nonnull(s);
    draw(s);
    ck_assert(canvas_contains(cv, "a choice's text, number or shape"));
    ck_assert(canvas_contains(cv, "asked again (--plain counts it wrong)"));
    screen_close(s);
}
END_TEST

/* Every code line of the prompt is on the 80x24 screen. */
static void assert_code_on_screen(const QuizQuestion *q, const char *when)
{
    for (const char *p = q->prompt; *p;) {
        int len = (int)strcspn(p, "\n");
        if (*p == ' ') {
            char line[200];
            snprintf(line, sizeof line, "%.*s", len, p);
            ck_assert_msg(canvas_contains(cv, line + strspn(line, " ")),
                          "%s %s: '%s' not on screen", q->id, when, line);
        }
        p += len;
        if (*p) p++;
    }
}

/* At 80x24 the question's code is always on screen, asked and answered
 * (the explanation scrolls, not the code): every bug kind, several shapes. */
START_TEST(code_stays_on_screen)
{
    char err[300];
    for (int bug = 1; bug < QUIZ_BUG_COUNT; bug++)
        for (uint64_t seed = 1; seed <= 8; seed++) {
            QuizQuestion q;
            ck_assert_int_eq(quiz_generate_bug(bug, seed * 31, &q, err, sizeof err), 0);
            Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
            draw(s);
            assert_code_on_screen(&q, "asked");
            type(s, "1");
            screenstack_send(s, &ui, UI_K_ENTER, &pushed);
            draw(s);
            ck_assert(canvas_contains(cv, "Right") || canvas_contains(cv, "Wrong"));
            assert_code_on_screen(&q, "answered");
            screenstack_send(s, &ui, UI_K_PGDN, &pushed); /* the feedback scrolls, the code stays */
            draw(s);
            assert_code_on_screen(&q, "scrolled");
            screen_close(s);
        }
}
END_TEST

/* A wrong offset is marked in the strip beside the right one, and said. */
START_TEST(wrong_offset_marked)
{
    char err[300];
    QuizQuestion q;
    ck_assert_int_eq(quiz_generate_kind(QG_OFFSET, 11, &q, err, sizeof err), 0);
    long wrong = q.number > 0 ? q.number - 1 : q.number + 1;
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    char num[32];
    snprintf(num, sizeof num, "%ld", wrong);
    type(s, num);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    draw(s);
    ck_assert(canvas_contains(cv, "Wrong"));
    char legend[64];
    snprintf(legend, sizeof legend, "%ld (marked) is yours", wrong);
    ck_assert_msg(canvas_contains(cv, legend), "no legend for %ld", wrong);
    int lit = 0, bad = 0;
    for (int y = 0; y < cv->h; y++)
        for (int x = 0; x < cv->w; x++) {
            int st = canvas_at(cv, x, y)->style;
            lit += st == ST_LIT, bad += st == ST_BAD && y > 2;
        }
    ck_assert_int_gt(lit, 0);
    ck_assert_int_gt(bad, 0);
    screen_close(s);
}
END_TEST

/* --timed N: the title counts down; at 0 the question is out of time. */
START_TEST(countdown_times_out)
{
    char err[300];
    QuizQuestion q;
    ck_assert_int_eq(quiz_generate_kind(QG_SHAPE, 3, &q, err, sizeof err), 0);
    Screen *s = quiz_open_with(&ui, &q, 1, -1, 1, 1, 0, 1);
    quiz_set_limit(s, 30);
    screen_tick(s, &ui, clock_now());
    draw(s);
    ck_assert(canvas_contains(cv, "0:30 left") || canvas_contains(cv, "0:29 left"));
    screen_tick(s, &ui, clock_now() + 31);
    draw(s);
    ck_assert(canvas_contains(cv, "Out of time (30 s)"));
    ck_assert(canvas_contains(cv, "score 0/1"));
    screen_close(s);
}
END_TEST

/* A screen closed mid-quiz (a signal, the terminal gone) does not save: it
 * could not show the error.  Its answers wait in the run's journal, and the
 * next save, as the next quiz makes it, adds them. */
START_TEST(closed_mid_quiz_keeps_answers_in_the_journal)
{
    char err[300], path[400];
    Screen *s = quiz_open_with(&ui, NULL, 0, QT_OFFSETS, 3, 7, 0, 0);
    ck_assert_ptr_nonnull(s);
    screenstack_send(s, &ui, UI_K_ENTER, &pushed);
    type(s, "0");
    screenstack_send(s, &ui, UI_K_ENTER, &pushed); /* one answer, then the screen goes */
    screen_close(s);
    snprintf(path, sizeof path, "%s/mhaviz/quiz-history", tmpdir);
    ck_assert_msg(access(path, F_OK) != 0, "the destructor saved");
    QuizHistory h;
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
    quiz_history_free(&h);
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_OFFSETS], 1);
    quiz_history_free(&h);
}
END_TEST

START_TEST(home_entry_opens_quiz)
{
    Screen *home = home_open(&ui);
    ck_assert_ptr_nonnull(home);
    draw(home);
    ck_assert(canvas_contains(cv, "Quiz"));
    /* one of the numbered entries opens the quiz picker */
    int found = 0;
    for (int k = '1'; k <= '9' && !found; k++) {
        int f = screenstack_send(home, &ui, k, &pushed);
        if (!(f & UI_PUSH) || !pushed) continue;
        draw(pushed);
        if (canvas_contains(cv, "Quiz: interview prep")) {
            found = 1;
            break;
        }
        screen_close(pushed);
        pushed = NULL;
    }
    ck_assert_msg(found, "no home entry opens the quiz");
    ck_assert_int_eq(screenstack_send(pushed, &ui, 'q', NULL) & UI_BACK, UI_BACK);
    screen_close(pushed);
    pushed = NULL;
    screen_close(home);
}
END_TEST

/* The body wraps by columns: "\xc3\xa9" is one column and never cut in two
 * (body_wrap counted bytes: 6 of them on a 12-column row, a long word cut
 * after a lead byte when its length was odd). */
START_TEST(body_wraps_multibyte_by_columns)
{
    Canvas *c = canvas_new(20, 6);
    Body b = {c, 0, 0, 12, 6, 0, 0};
    char text[80] = "", want[80] = "", row[128];
    for (int i = 0; i < 17; i++)
        strcat(text, "\xc3\xa9");
    strcat(text, " h\xc3\xa9llo");
    body_text(&b, text, ST_NORMAL);
    ck_assert_int_eq(b.line, 2);
    for (int i = 0; i < 12; i++)
        strcat(want, "\xc3\xa9");
    strcat(want, "        ");
    ck_assert_str_eq(canvas_row(c, 0, 0, row, sizeof row), want);
    ck_assert(canvas_contains(c, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 h\xc3\xa9llo"));
    Body odd = {c, 0, 3, 11, 3, 0, 0}; /* an odd width: no half "\xc3\xa9" anywhere */
    canvas_clear(c);
    body_text(&odd, text, ST_NORMAL);
    for (int y = 0; y < 6; y++)
        ck_assert(!strstr(canvas_row(c, y, 0, row, sizeof row), "\xef\xbf\xbd"));
    canvas_free(c);
}
END_TEST

static Suite *quiz_screen_suite(void)
{
    Suite *s = suite_create("quiz_screen");
    TCase *t = tcase_create("screen");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, picker_question_feedback_summary);
    tcase_add_test(t, choice_letters_and_small_terminal);
    tcase_add_test(t, long_question_scrolls);
    tcase_add_test(t, home_entry_opens_quiz);
    tcase_add_test(t, picker_hint_whole_at_80);
    tcase_add_test(t, picker_lists_every_topic_at_80);
    tcase_add_test(t, every_screen_fits);
    tcase_add_test(t, long_answer_shows_its_end);
    tcase_add_test(t, skip_is_not_wrong);
    tcase_add_test(t, wrapped_choice_hangs_under_its_text);
    tcase_add_test(t, choice_by_its_number);
    tcase_add_test(t, code_stays_on_screen);
    tcase_add_test(t, wrong_offset_marked);
    tcase_add_test(t, countdown_times_out);
    tcase_add_test(t, closed_mid_quiz_keeps_answers_in_the_journal);
    tcase_add_test(t, body_wraps_multibyte_by_columns);
    suite_add_tcase(s, t);
    return s;
}

CHECK_MAIN(quiz_screen_suite)
