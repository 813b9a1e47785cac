/* quiz_screen.c - the quiz Screen (ui.h): a picker (topic, length, timed),
 * one question per screen with a candy bar where it helps, immediate feedback
 * with the explanation and the engine's working, a summary by topic.
 *
 * Phases: PICK -> ASK <-> FEEDBACK -> SUMMARY.  draw() paints the whole frame
 * from the state; key() changes the state and returns UI_* flags. */
#include "ui/quiz_screen.h"

#include "ui/quiz_body.h"
#include "ui/quiz_pic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "draw/scene.h"
#include "store/quiz_history.h"
#include "ui/field.h"
#include "ui/help.h"
#include "ui/keys.h"
#include "ui/screen.h"

enum { PH_PICK, PH_ASK, PH_FEEDBACK, PH_SUMMARY };

/* The quiz's command keys are in keys.c's one table, one context per phase
 * (KC_QUIZ_PICK ...), looked up by the screen stack (qs_keys_now); the hint
 * line is generated from the same table (keys_hint), so the two cannot
 * drift.  While a question is asked, a text field's editing keys follow its
 * own, and every other printable key is typed into the answer (qs_key). */
static const unsigned phase_keys[][3] = {
    {KC_QUIZ_PICK, 0}, {KC_QUIZ_ASK, KC_EDIT, 0}, {KC_QUIZ_FEEDBACK, 0}, {KC_QUIZ_SUMMARY, 0}};

static const int default_lengths[] = {5, 10, 20, 50};
#define NLEN_MAX 5

typedef struct Qs {
    int phase;
    int topic_sel;               /* 0 = all topics, 1 + QT_* */
    int lengths[NLEN_MAX], nlen; /* the length choices: 5 10 20 50, and --count N */
    int len_sel, timed, no_save, from_home;
    uint64_t seed;
    QuizBank bank;
    QuizQuestion *qs; /* owned */
    int n;
    QuizSession sess; /* over qs: the question asked, the verdicts, the score */
    LineEdit input;   /* the answer being typed (ui/field.h) */
    char why[120];    /* the last answer that was asked again: what to type */
    int scroll;
    int max_scroll; /* layout cache written by draw: how far the body can scroll */
    double t0;
    int shown_sec;
    int limit; /* --timed N: seconds a question (0: the stopwatch only) */
    QuizHistory hist;
    int have_hist, saved;
    Mha *pic; /* the run behind the current question's picture */
    char err[200];
} Qs;

/* ---- state changes --------------------------------------------------------- */

static void show_question(Qs *q, double now)
{
    mha_free(q->pic);
    q->pic = NULL;
    lineedit_init(&q->input, 119);
    q->why[0] = 0;
    q->scroll = 0;
    q->t0 = now;
    q->shown_sec = -1;
    const QuizSession *ss = &q->sess;
    if (ss->i < ss->n && ss->q[ss->i].pic.on) q->pic = mha_run(&ss->q[ss->i].pic.cfg, NULL, 0);
    q->phase = PH_ASK;
}

/* Saves at the summary, where an error can be shown.  A screen closed before
 * (a signal, the terminal gone) does not save: every answer is in the run's
 * journal already, and the next save adds it (store/quiz_history.h). */
static void save_history(Qs *q)
{
    if (q->have_hist && !q->no_save && !q->saved && q->sess.answered > 0) {
        q->saved = 1;
        if (quiz_history_save(&q->hist, q->err, sizeof q->err) == 0) q->err[0] = 0;
    }
}

static void finish(Qs *q)
{
    mha_free(q->pic);
    q->pic = NULL;
    q->scroll = 0;
    q->phase = PH_SUMMARY;
    save_history(q);
}

static int start(Qs *q, Ui *ui)
{
    int count = q->lengths[q->len_sel];
    free(q->qs);
    q->qs = calloc((size_t)count, sizeof *q->qs);
    if (!q->qs) {
        ui_status(ui, "out of memory");
        return UI_REDRAW;
    }
    char err[300];
    q->n = quiz_session(&q->bank, q->topic_sel - 1, count, q->seed, q->qs, err, sizeof err);
    if (q->n <= 0) {
        ui_status(ui, "%.190s", q->n < 0 ? err : "no questions for this topic");
        q->n = 0;
        return UI_REDRAW;
    }
    q->sess.record = NULL;
    if (q->have_hist) quiz_history_follow(&q->hist, &q->sess);
    quiz_session_begin(&q->sess, q->qs, q->n, q->limit, 1);
    show_question(q, clock_now());
    return UI_REDRAW;
}

/* Enter on the answer line: judged and recorded by the session (the feedback
 * next), or asked again with the why line saying what to type (or that the
 * value is no choice). */
static void answer(Qs *q)
{
    QuizVerdict v;
    if (quiz_session_answer(&q->sess, q->input.buf, NULL, clock_now() - q->t0, &v) == QV_AGAIN) {
        snprintf(q->why, sizeof q->why, "%s", v.why);
        return;
    }
    q->why[0] = 0;
    q->scroll = 0;
    q->phase = PH_FEEDBACK;
}

/* The countdown reached 0: the question counts as wrong, like a wrong answer. */
static void time_out(Qs *q, double now)
{
    quiz_session_time_out(&q->sess, now - q->t0, NULL);
    q->why[0] = 0;
    q->scroll = 0;
    q->phase = PH_FEEDBACK;
}

/* Up/Down a line, PgUp/PgDn ten, within the text drawn last. */
static int scroll_by(Qs *q, Action act)
{
    int d = act == ACT_UP ? -1 : act == ACT_PAGE_UP ? -10 : act == ACT_DOWN ? 1 : 10;
    q->scroll += d;
    if (q->scroll > q->max_scroll) q->scroll = q->max_scroll;
    if (q->scroll < 0) q->scroll = 0;
    return UI_REDRAW;
}

static const unsigned *qs_keys_now(const Screen *s)
{
    return phase_keys[((const Qs *)s->st)->phase];
}

static int qs_key(Screen *s, Ui *ui, Action act, int key, Screen **push)
{
    (void)push; /* opens no screen */
    Qs *q = s->st;
    if (key == UI_K_RESIZE) return UI_REDRAW;
    if (q->phase == PH_ASK || q->phase == PH_FEEDBACK) { /* a question on screen */
        switch (act) {
        case ACT_UP: /* its text scrolls */
        case ACT_PAGE_UP:
        case ACT_DOWN:
        case ACT_PAGE_DOWN:
            return scroll_by(q, act);
        case ACT_BACK: /* q / Esc end the quiz: its summary */
            finish(q);
            return UI_REDRAW;
        default:
            break;
        }
    }
    switch (q->phase) {
    case PH_PICK:
        switch (act) {
        case ACT_UP: /* the topics and "all of them" */
        case ACT_DOWN:
            return screen_menu_move(&q->topic_sel, QT_COUNT + 1, act);
        case ACT_LEFT:
        case ACT_RIGHT:
            return screen_menu_move(&q->len_sel, q->nlen, act);
        case ACT_TIMED:
            q->timed = !q->timed;
            return UI_REDRAW;
        case ACT_APPLY:
            return start(q, ui);
        default: /* q / Esc: the stack's */
            return UI_NONE;
        }
    case PH_ASK:
        if (act == ACT_APPLY) {
            answer(q);
            return UI_REDRAW;
        } else { /* Backspace and the other editing keys, a character typed */
            int r = field_key(&q->input, act, key);
            if (r & UI_REDRAW) q->why[0] = 0;
            return r;
        }
    case PH_FEEDBACK:
        if (act != ACT_NEXT) return UI_NONE;
        if (!quiz_session_next(&q->sess))
            finish(q);
        else
            show_question(q, clock_now());
        return UI_REDRAW;
    default: /* the summary: q / Esc / Enter close it, the stack's */
        return UI_NONE;
    }
}

static int qs_tick(Screen *s, Ui *ui, double now)
{
    (void)ui;
    Qs *q = s->st;
    if (!q->timed || q->phase != PH_ASK) return UI_NONE;
    if (q->limit && now - q->t0 >= q->limit) {
        time_out(q, now);
        return UI_REDRAW;
    }
    int sec = (int)(now - q->t0);
    if (sec != q->shown_sec) {
        q->shown_sec = sec;
        return UI_ANIMATE | UI_REDRAW;
    }
    return UI_ANIMATE;
}

/* ---- drawing ------------------------------------------------------------------ */

/* The key hint on the status line, in the screen's width: the one-letter
 * aliases go first, then whole groups from the end (never a cut word). */
static void draw_hint(Canvas *c, const Ui *ui, int phase)
{
    char hint[240];
    int room = c->w - 2;
    size_t l = keys_hint(phase_keys[phase][0], 0, hint, sizeof hint);
    if ((int)l > room) l = keys_hint(phase_keys[phase][0], 1, hint, sizeof hint);
    while ((int)l > room) {
        char *gap = NULL;
        for (char *p = strstr(hint, "  "); p && p - hint <= room; p = strstr(p + 2, "  "))
            gap = p;
        if (!gap) break;
        *gap = 0;
        l = (size_t)(gap - hint);
    }
    screen_draw_status(c, ui, hint);
}

/* The offset the learner typed on a wrong offsets answer, else -1. */
static long wrong_offset(const Qs *q)
{
    const QuizVerdict *v = &q->sess.last;
    if (q->phase != PH_FEEDBACK || v->result != QV_WRONG || v->late || !q->qs[q->sess.i].pic.on)
        return -1;
    if (v->a.kind != QA_NUMBER || v->a.number < 0) return -1;
    return (long)v->a.number;
}

static void draw_pic(const Qs *q, Canvas *c, int y, int rows)
{
    int after = q->phase == PH_FEEDBACK;
    quiz_pic_draw(c, y, rows, &q->qs[q->sess.i], q->pic, after, after ? wrong_offset(q) : -1);
}

static int pic_rows(const Qs *q, const Canvas *c)
{
    if (!q->pic || (q->phase != PH_ASK && q->phase != PH_FEEDBACK)) return 0;
    return quiz_pic_rows(c, &q->qs[q->sess.i], q->pic);
}

static void draw_picker(const Qs *q, Canvas *c)
{
    canvas_text(c, 2, 2, "Topic", ST_BOLD);
    /* two columns, top to bottom then the next, so that every topic and the
     * lines below fit 80x24 above the hint line */
    const int rows = (QT_COUNT + 2) / 2;
    for (int i = 0; i <= QT_COUNT; i++) {
        int y = 3 + i % rows, x = 2 + (i / rows) * 38;
        Style st = i == q->topic_sel ? ST_CURSOR : ST_NORMAL;
        canvas_fill(c, x, y, 14, 1, ' ', st);
        canvas_text(c, x + 1, y, i == 0 ? "all topics" : quiz_topic_names[i - 1], st);
        if (i > 0 && q->have_hist && q->hist.total.asked[i - 1])
            canvas_printf(c, x + 16, y, ST_DIM, "%d/%d right so far", q->hist.total.right[i - 1],
                          q->hist.total.asked[i - 1]);
        else if (i > 0) {
            int curated = 0;
            for (int k = 0; k < q->bank.n; k++)
                curated += q->bank.q[k].topic == i - 1;
            canvas_printf(c, x + 16, y, ST_DIM, "%s%s",
                          quiz_topic_generated(i - 1) ? "generated" : "",
                          !curated                      ? ""
                          : quiz_topic_generated(i - 1) ? " + curated"
                                                        : "curated");
        }
    }
    int y = 4 + rows;
    canvas_text(c, 2, y, "Length", ST_BOLD);
    for (int i = 0; i < q->nlen; i++)
        canvas_printf(c, 10 + 6 * i, y, i == q->len_sel ? ST_CURSOR : ST_NORMAL, " %3d ",
                      q->lengths[i]);
    canvas_text(c, 2, y + 1, "Timed", ST_BOLD);
    canvas_text(c, 10, y + 1, q->timed ? "[x] a clock per question" : "[ ] no clock", ST_NORMAL);
    canvas_printf(c, 2, y + 2, ST_DIM,
                  "seed %llu: the same seed asks the same questions (mhaviz quiz --seed N)",
                  (unsigned long long)q->seed);
    /* the same rules as --plain (quiz_session_answer), except that an answer that
     * cannot be read is asked again here; right under the seed */
    canvas_text(c, 2, y + 3, "Answer by letter, or type a choice's text, number or shape;",
                ST_NORMAL);
    canvas_text(c, 2, y + 4, "with no choices, a number or a shape: (2, 8, 16, 64) or 2,8,16,64.",
                ST_NORMAL);
    canvas_text(c, 2, y + 5,
                "An answer that cannot be read is asked again (--plain counts it wrong).",
                ST_NORMAL);
}

/* The scrolling text: the question above its last line (ASK), or the
 * feedback (FEEDBACK).  With b->h == 0 it only counts rows. */
static void fill_body(const Qs *q, const QuizQuestion *qq, const char *ask, Body *b)
{
    if (q->phase == PH_ASK) {
        char head[QUIZ_PROMPT_MAX];
        snprintf(head, sizeof head, "%.*s", (int)(ask - qq->prompt), qq->prompt);
        body_text(b, head, ST_NORMAL);
        return;
    }
    const QuizVerdict *v = &q->sess.last;
    char ans[QUIZ_CHOICE_MAX + 8], verdict[QUIZ_CHOICE_MAX + 400];
    quiz_answer_text(qq, ans, sizeof ans);
    if (v->late)
        snprintf(verdict, sizeof verdict, "Out of time (%d s): the answer is %s", q->limit, ans);
    else if (v->result == QV_RIGHT)
        snprintf(verdict, sizeof verdict, "Right: %s", ans);
    else if (v->result == QV_SKIPPED)
        snprintf(verdict, sizeof verdict, "Skipped: the answer is %s", ans);
    else if (v->chosen >= 0)
        snprintf(verdict, sizeof verdict, "Wrong: you chose %c); the answer is %s", 'a' + v->chosen,
                 ans);
    else
        snprintf(verdict, sizeof verdict, "Wrong: you typed %.119s; the answer is %s", q->input.buf,
                 ans);
    body_text(b, verdict, v->result == QV_RIGHT ? ST_GOOD : ST_BAD);
    long wrong = wrong_offset(q);
    if (wrong >= 0) {
        char legend[160];
        snprintf(legend, sizeof legend,
                 "In the strip: %ld (lit) is the answer, %ld (marked) is yours.", qq->pic.lit,
                 wrong);
        body_text(b, legend, ST_NORMAL);
    }
    body_put(b, "", 0, 0, ST_NORMAL);
    body_text(b, qq->explain, ST_NORMAL);
    if (qq->working[0]) {
        body_put(b, "", 0, 0, ST_NORMAL);
        body_text(b, "Engine working:", ST_BOLD);
        body_working(b, qq->working);
    }
    if (!qq->gen) body_text(b, qq->source, ST_DIM);
}

/* The title row: where the quiz is, the score, the clock or the countdown. */
static void draw_title(const Qs *q, Canvas *c, const QuizQuestion *qq)
{
    char title[160];
    if (q->phase == PH_PICK)
        snprintf(title, sizeof title, "Quiz: interview prep");
    else if (q->phase == PH_SUMMARY)
        snprintf(title, sizeof title, "Quiz: summary");
    else
        snprintf(title, sizeof title, "Quiz  %d/%d  %s%s", q->sess.i + 1, q->sess.n,
                 quiz_topic_names[qq->topic], qq->gen ? "" : " (curated)");
    canvas_fill(c, 0, 0, c->w, 1, ' ', ST_TITLE);
    canvas_text(c, 1, 0, title, ST_TITLE);
    if (q->phase != PH_ASK && q->phase != PH_FEEDBACK) return;
    int asked = 0, right = 0, skipped = 0;
    for (int t = 0; t < QT_COUNT; t++)
        asked += q->sess.score.asked[t], right += q->sess.score.right[t],
            skipped += q->sess.score.skipped[t];
    char sc[80];
    int secs = q->phase == PH_ASK ? q->shown_sec : (int)q->sess.last.secs;
    size_t l = (size_t)snprintf(sc, sizeof sc, "score %d/%d", right, asked);
    if (skipped) l += (size_t)snprintf(sc + l, sizeof sc - l, ", %d skipped", skipped);
    if (q->limit && q->phase == PH_ASK && secs >= 0) { /* the countdown */
        int left = q->limit - secs > 0 ? q->limit - secs : 0;
        snprintf(sc + l, sizeof sc - l, "  %d:%02d left", left / 60, left % 60);
    } else if (q->timed && secs >= 0)
        snprintf(sc + l, sizeof sc - l, "  %d:%02d", secs / 60, secs % 60);
    canvas_text(c, c->w - (int)strlen(sc) - 1, 0, sc, ST_TITLE);
}

static void draw_summary(const Qs *q, const Ui *ui, Canvas *c)
{
    Body b = {c, 1, 2, c->w - 2, c->h - 5, 0, 0};
    char sum[2400];
    quiz_report(&q->sess.score, q->have_hist && !q->no_save ? &q->hist.total : NULL, sum,
                sizeof sum);
    body_text(&b, sum, ST_NORMAL);
    if (q->timed) {
        const QuizSession *ss = &q->sess;
        char tl[80];
        snprintf(tl, sizeof tl, "Time: %.0f s in all, %.1f s per question", ss->secs,
                 ss->answered ? ss->secs / ss->answered : 0.0);
        body_text(&b, tl, ST_NORMAL);
    }
    if (q->err[0])
        body_text(&b, q->err, ST_WARN);
    else if (q->saved && q->hist.kept[0]) {
        char kept[220];
        snprintf(kept, sizeof kept, "Scores saved; the unreadable history is kept as %s.",
                 q->hist.kept);
        body_text(&b, kept, ST_WARN);
    } else if (q->saved)
        body_text(&b, "Scores saved with your lesson progress.", ST_DIM);
    draw_hint(c, ui, q->phase);
}

/* The question's code (its indented lines), pinned above the feedback so it
 * never scrolls away; for a bugs question the wrong line is lit and the
 * line the learner named marked.  Draws at most maxh rows (0: counts). */
static int draw_code(const Qs *q, Canvas *c, int y, int maxh)
{
    const QuizQuestion *qq = &q->qs[q->sess.i];
    const QuizVerdict *v = &q->sess.last;
    long typed = v->a.kind == QA_NUMBER ? (long)v->a.number : -1;
    int bugs = qq->gen == QG_BUG + 1, n = 0;
    for (const char *p = qq->prompt; *p;) {
        int len = (int)strcspn(p, "\n");
        if (*p == ' ' && n < (maxh ? maxh : 1 << 20)) {
            Style st = ST_CODE;
            if (bugs && atol(p) == qq->number && q->phase == PH_FEEDBACK)
                st = ST_GOOD;
            else if (bugs && atol(p) == typed && v->result != QV_RIGHT)
                st = ST_BAD;
            if (maxh) {
                char line[200];
                snprintf(line, sizeof line, "%.*s", len, p);
                canvas_text(c, 1, y + n, line, st);
                if (st != ST_CODE) canvas_style(c, 1, y + n, c->w - 2, 1, st);
            }
            n++;
        }
        p += len;
        if (*p) p++;
    }
    return n;
}

/* The answer line (ASK) or what Enter does (FEEDBACK). */
static void draw_answer_line(const Qs *q, Canvas *c)
{
    int iy = c->h - 3;
    if (q->phase != PH_ASK) {
        canvas_printf(c, 1, iy, ST_DIM, "%s",
                      q->sess.i + 1 < q->sess.n ? "Enter: next question" : "Enter: the summary");
        return;
    }
    canvas_text(c, 1, iy, "answer> ", ST_BOLD);
    /* after "answer> ", up to a margin: a long answer shows where the typing is */
    canvas_field(c, 9, iy, c->w - 10, q->input.buf, q->input.cur, ST_NORMAL, ' ');
    if (q->why[0]) canvas_text(c, 1, iy + 1, q->why, ST_WARN);
}

/* Rows the pinned part takes: the asked line and the choices (ASK). */
static int pinned_rows(const QuizQuestion *qq, const char *ask, int w)
{
    Body m = {NULL, 1, 0, w, 0, 0, 0}; /* h = 0: counts rows, draws nothing */
    body_text(&m, ask, ST_NORMAL);
    for (int i = 0; i < qq->n_choices; i++) {
        char line[QUIZ_CHOICE_MAX + 8];
        snprintf(line, sizeof line, "  %c) %s", 'a' + i, qq->choices[i]);
        body_text(&m, line, ST_BOLD);
    }
    return m.line;
}

static void qs_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Qs *q = s->st;
    if (screen_draw_enlarge(c)) return;
    const QuizQuestion *qq = q->sess.i < q->sess.n ? &q->qs[q->sess.i] : NULL;
    draw_title(q, c, qq);
    if (q->phase == PH_PICK) {
        draw_picker(q, c);
        draw_hint(c, ui, q->phase);
        return;
    }
    if (q->phase == PH_SUMMARY) {
        draw_summary(q, ui, c);
        return;
    }
    int prow = pic_rows(q, c), top = 2;
    /* ASK: the question's last line (what is asked) and the choices stay
     * pinned above the answer line; the text above them scrolls.
     * FEEDBACK: the question's code stays pinned at the top; the verdict,
     * explanation and working scroll below it. */
    const char *ask = strrchr(qq->prompt, '\n'); /* the line that asks */
    ask = ask ? ask + 1 : qq->prompt;
    int pinned = q->phase == PH_ASK ? pinned_rows(qq, ask, c->w - 2) : 0;
    if (q->phase == PH_FEEDBACK) {
        int room = c->h - 5 - prow - 5, code = draw_code(q, c, 0, 0);
        if (code > room) code = room > 0 ? room : 0;
        if (code) top += draw_code(q, c, top, code) + 1;
    }
    int avail = c->h - 3 - top - prow - pinned;
    Body cnt = {c, 1, 0, c->w - 2, 0, 0, 0};
    fill_body(q, qq, ask, &cnt);
    int total = cnt.line, over = total > avail;
    int bh = over ? avail - 1 : total;
    if (bh < 0) bh = 0;
    q->max_scroll = total > bh ? total - bh : 0;
    int scroll = q->scroll > q->max_scroll ? q->max_scroll : q->scroll;
    Body b = {c, 1, top, c->w - 2, bh, scroll, 0};
    fill_body(q, qq, ask, &b);
    int y = top + bh;
    if (over) {
        canvas_printf(c, 1, y, ST_DIM, "-- lines %d-%d of %d: Up/Down to scroll --", scroll + 1,
                      scroll + bh, total);
        y++;
    }
    if (q->phase == PH_ASK) {
        Body cb = {c, 1, y, c->w - 2, pinned, 0, 0};
        body_text(&cb, ask, ST_NORMAL);
        for (int i = 0; i < qq->n_choices; i++) {
            char line[QUIZ_CHOICE_MAX + 8];
            snprintf(line, sizeof line, "  %c) %s", 'a' + i, qq->choices[i]);
            body_text(&cb, line, ST_BOLD);
        }
    }
    if (prow) draw_pic(q, c, y + pinned, prow);
    draw_answer_line(q, c);
    draw_hint(c, ui, q->phase);
}

static void qs_free(Screen *s)
{
    Qs *q = s->st;
    if (q) {
        mha_free(q->pic); /* no save here: see save_history */
        free(q->qs);
        quiz_bank_free(&q->bank);
        if (q->have_hist) quiz_history_free(&q->hist);
        free(q);
    }
    free(s);
}

static const ScreenOps qs_ops = {
    .draw = qs_draw,
    .key = qs_key,
    .tick = qs_tick,
    .free = qs_free,
    .help = 0,
    .keys_now = qs_keys_now,
};

static Screen *qs_new(Ui *ui, int no_save)
{
    Screen *s = calloc(1, sizeof *s);
    Qs *q = calloc(1, sizeof *q);
    if (!s || !q) {
        free(s);
        free(q);
        return NULL;
    }
    s->title = "Quiz";
    s->st = q;
    s->ops = &qs_ops;
    q->no_save = no_save || (ui && ui->no_save);
    q->nlen = 0;
    for (int i = 0; i < 4; i++)
        q->lengths[q->nlen++] = default_lengths[i];
    q->len_sel = 1;
    q->seed = (uint64_t)time(NULL) % 100000;
    char err[300];
    if (quiz_bank_load_builtin(&q->bank, err, sizeof err) && ui) ui_status(ui, "%.190s", err);
    q->have_hist = quiz_history_load(&q->hist, q->err, sizeof q->err) == 0;
    if (q->have_hist && q->hist.warning[0] && ui) ui_status(ui, "%.190s", q->hist.warning);
    /* each answer to the journal as it is given: a kill or a stalled lock loses none */
    if (q->have_hist && !q->no_save && quiz_history_journal(&q->hist, err, sizeof err) && ui)
        ui_status(ui, "%.190s", err);
    return s;
}

Screen *quiz_open(Ui *ui)
{
    Screen *s = qs_new(ui, 0);
    if (s) ((Qs *)s->st)->from_home = 1;
    return s;
}

void quiz_set_limit(Screen *s, int seconds)
{
    Qs *q = s ? s->st : NULL;
    if (!q || seconds < 0) return;
    q->limit = seconds;
    q->sess.limit = seconds; /* a session begun already (--review) */
    if (seconds) q->timed = 1;
}

Screen *quiz_open_with(Ui *ui, const QuizQuestion *qs, int n, int topic, int count, uint64_t seed,
                       int timed, int no_save)
{
    Screen *s = qs_new(ui, no_save);
    if (!s) return NULL;
    Qs *q = s->st;
    q->topic_sel = topic + 1;
    q->timed = timed;
    q->seed = seed;
    int found = -1;
    for (int i = 0; i < q->nlen; i++)
        if (q->lengths[i] == count) found = i;
    if (found < 0 && count > 0) {
        /* --count N: one more choice, in order */
        int at = 0;
        while (at < q->nlen && q->lengths[at] < count)
            at++;
        memmove(&q->lengths[at + 1], &q->lengths[at], sizeof(int) * (size_t)(q->nlen - at));
        q->lengths[at] = count;
        q->nlen++;
        found = at;
    }
    if (found >= 0) q->len_sel = found;
    if (qs && n > 0) { /* --review: straight to the questions */
        q->qs = calloc((size_t)n, sizeof *q->qs);
        if (!q->qs) {
            qs_free(s);
            return NULL;
        }
        memcpy(q->qs, qs, sizeof *qs * (size_t)n);
        q->n = n;
        if (q->have_hist) quiz_history_follow(&q->hist, &q->sess);
        quiz_session_begin(&q->sess, q->qs, n, q->limit, 1);
        show_question(q, clock_now());
    }
    return s;
}
