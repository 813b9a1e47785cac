/* quiz_screen.c - the quiz Screen (ui.h): a picker (topic, length, timed),
 * one question per screen with a candy bar where it helps, immediate feedback
 * with the explanation and the engine's working, a summary by topic.
 *
 * Phases: PICK -> ASK <-> FEEDBACK -> SUMMARY.  draw() paints the whole frame
 * from the state; key() changes the state and returns UI_* flags. */
#include "ui/quiz_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/keys.h"
#include "ui/help.h"
#include "ui/screen.h"
#include "draw/scene.h"
#include "base/clock.h"

enum { PH_PICK, PH_ASK, PH_FEEDBACK, PH_SUMMARY };

/* The quiz's command keys are in app.c's one table, one context per phase
 * (KC_QUIZ_PICK ...), looked up with app_action; the hint line is generated
 * from the same table (app_hint), so the two cannot drift.  While a question
 * is asked, every other printable key is typed into the answer (qs_key). */
static const unsigned phase_ctx[] = {KC_QUIZ_PICK, KC_QUIZ_ASK, KC_QUIZ_FEEDBACK, KC_QUIZ_SUMMARY};

static const int default_lengths[] = {5, 10, 20, 50};
#define NLEN_MAX 5

typedef struct Qs {
    int phase;
    int topic_sel;              /* 0 = all topics, 1 + QT_* */
    int lengths[NLEN_MAX], nlen;  /* the length choices: 5 10 20 50, and --count N */
    int len_sel, timed, no_save, from_home;
    uint64_t seed;
    QuizBank bank;
    QuizQuestion *qs;           /* owned */
    int n, i;
    char input[120];
    int ilen;
    char why[120];
    int right, chosen, skipped; /* the last answer */
    int scroll;
    int max_scroll;             /* layout cache written by draw: how far the body can scroll */
    double t0, last_secs, total_secs;
    int shown_sec;
    QuizScore score;
    QuizHistory hist;
    int have_hist, saved;
    Mha *pic;                   /* the run behind the current question's picture */
    char err[200];
} Qs;

/* ---- state changes --------------------------------------------------------- */

static void show_question(Qs *q, double now)
{
    mha_free(q->pic);
    q->pic = NULL;
    q->ilen = 0;
    q->input[0] = 0;
    q->why[0] = 0;
    q->scroll = 0;
    q->t0 = now;
    q->shown_sec = -1;
    if (q->i < q->n && q->qs[q->i].pic.on) q->pic = mha_run(&q->qs[q->i].pic.cfg, NULL, 0);
    q->phase = PH_ASK;
}

static void save_history(Qs *q)
{
    if (q->have_hist && !q->no_save && !q->saved && q->i > 0) {
        q->saved = 1;
        quiz_history_save(&q->hist, q->err, sizeof q->err);
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
        snprintf(ui->status, sizeof ui->status, "out of memory");
        return UI_REDRAW;
    }
    char err[300];
    q->n = quiz_session(&q->bank, q->topic_sel - 1, count, q->seed, q->qs, err, sizeof err);
    if (q->n <= 0) {
        snprintf(ui->status, sizeof ui->status, "%.190s", q->n < 0 ? err : "no questions for this topic");
        q->n = 0;
        return UI_REDRAW;
    }
    q->i = 0;
    memset(&q->score, 0, sizeof q->score);
    show_question(q, clock_now());
    return UI_REDRAW;
}

static void answer(Qs *q)
{
    const QuizQuestion *qq = &q->qs[q->i];
    QuizAnswer a;
    int rc;
    q->chosen = -1;
    q->skipped = !quiz_parse_answer(q->input, &a) && a.kind == QA_EMPTY;
    if (q->skipped) rc = 0;
    else {
        rc = quiz_check(qq, q->input, &q->chosen, q->why, sizeof q->why);
        if (rc < 0) return; /* stays: the why line says what to type */
    }
    q->why[0] = 0;
    q->right = rc == 1;
    q->last_secs = clock_now() - q->t0;
    q->total_secs += q->last_secs;
    if (q->skipped) { /* not an answer: counted apart, kept for --review */
        quiz_score_skip(&q->score, qq->topic);
        if (q->have_hist) quiz_history_skip(&q->hist, qq);
    } else {
        quiz_score_add(&q->score, qq->topic, q->right);
        if (q->have_hist) quiz_history_record(&q->hist, qq, q->right);
    }
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

static int qs_key(Screen *s, Ui *ui, int key)
{
    Qs *q = s->st;
    if (key == UI_K_RESIZE) return UI_REDRAW;
    Action act = app_action(phase_ctx[q->phase], key);
    switch (q->phase) {
    case PH_PICK:
        switch (act) {
        case ACT_UP: q->topic_sel = (q->topic_sel + QT_COUNT) % (QT_COUNT + 1); return UI_REDRAW;
        case ACT_DOWN: q->topic_sel = (q->topic_sel + 1) % (QT_COUNT + 1); return UI_REDRAW;
        case ACT_LEFT: q->len_sel = (q->len_sel + q->nlen - 1) % q->nlen; return UI_REDRAW;
        case ACT_RIGHT: q->len_sel = (q->len_sel + 1) % q->nlen; return UI_REDRAW;
        case ACT_TIMED: q->timed = !q->timed; return UI_REDRAW;
        case ACT_APPLY: return start(q, ui);
        case ACT_BACK: return UI_BACK;
        default: return UI_NONE;
        }
    case PH_ASK:
        switch (act) {
        case ACT_APPLY: answer(q); return UI_REDRAW;
        case ACT_ERASE:
            if (q->ilen > 0) q->input[--q->ilen] = 0;
            return UI_REDRAW;
        case ACT_UP: case ACT_PAGE_UP: case ACT_DOWN: case ACT_PAGE_DOWN: return scroll_by(q, act);
        case ACT_BACK: finish(q); return UI_REDRAW;
        default:
            if (key >= 0x20 && key < 0x7f && q->ilen + 1 < (int)sizeof q->input) {
                q->input[q->ilen++] = (char)key;
                q->input[q->ilen] = 0;
                q->why[0] = 0;
                return UI_REDRAW;
            }
            return UI_NONE;
        }
    case PH_FEEDBACK:
        switch (act) {
        case ACT_NEXT:
            if (++q->i >= q->n) finish(q);
            else show_question(q, clock_now());
            return UI_REDRAW;
        case ACT_UP: case ACT_PAGE_UP: case ACT_DOWN: case ACT_PAGE_DOWN: return scroll_by(q, act);
        case ACT_BACK: q->i++; finish(q); return UI_REDRAW;
        default: return UI_NONE;
        }
    default:
        return act == ACT_BACK ? UI_BACK : UI_NONE;
    }
}

static int qs_tick(Screen *s, Ui *ui, double now)
{
    (void)ui;
    Qs *q = s->st;
    if (!q->timed || q->phase != PH_ASK) return UI_NONE;
    int sec = (int)(now - q->t0);
    if (sec != q->shown_sec) {
        q->shown_sec = sec;
        return UI_ANIMATE | UI_REDRAW;
    }
    return UI_ANIMATE;
}

/* ---- drawing ------------------------------------------------------------------ */

/* The body: lines of text with a style, wrapped to the width, scrolled. */
typedef struct Body {
    Canvas *c;
    int x, y, w, h, scroll, line; /* line: next logical row */
} Body;

static void body_put(Body *b, const char *text, int len, int indent, Style st)
{
    int row = b->line - b->scroll;
    if (row >= 0 && row < b->h) {
        char buf[512];
        snprintf(buf, sizeof buf, "%*s%.*s", indent, "", len, text);
        canvas_text(b->c, b->x, b->y + row, buf, st);
    }
    b->line++;
}

/* One paragraph line, word-wrapped.  Continuation lines hang under the text
 * of a list item ("  b) To Q and K ..." continues under "To"), else keep the
 * line's indent + 2 (an indented line) or none. */
static void body_wrap(Body *b, const char *s, int len, Style st)
{
    int indent = 0;
    while (indent < len && s[indent] == ' ') indent++;
    s += indent, len -= indent;
    int hang = indent ? indent + 2 : 0;
    if (len > 3 && s[0] >= 'a' && s[0] <= 'z' && s[1] == ')' && s[2] == ' ') hang = indent + 3;
    int first = 1;
    if (len == 0) body_put(b, "", 0, 0, st);
    while (len > 0) {
        int ind = first ? indent : hang, avail = b->w - ind;
        if (avail < 10) avail = 10;
        int cut = len;
        if (len > avail) {
            cut = avail;
            while (cut > 0 && s[cut] != ' ') cut--;
            if (cut == 0) cut = avail;
        }
        body_put(b, s, cut, ind, st);
        s += cut, len -= cut;
        while (len > 0 && *s == ' ') s++, len--;
        first = 0;
    }
}

static void body_text(Body *b, const char *text, Style st)
{
    while (*text) {
        int len = (int)strcspn(text, "\n");
        body_wrap(b, text, len, st);
        text += len;
        if (*text) text++;
    }
}

/* The working with runs of padding spaces squeezed (plain mode aligns the
 * arrows in columns; a narrower screen wraps instead). */
static void body_working(Body *b, const char *w)
{
    char line[600];
    while (*w) {
        int len = (int)strcspn(w, "\n"), k = 0, i = 0;
        while (i < len && w[i] == ' ' && k < (int)sizeof line - 1) line[k++] = w[i++];
        for (; i < len && k < (int)sizeof line - 1; i++)
            if (!(w[i] == ' ' && i > 0 && w[i - 1] == ' ' && i + 1 < len && w[i + 1] == ' ')) line[k++] = w[i];
        body_wrap(b, line, k, ST_CODE);
        w += len;
        if (*w) w++;
    }
}

/* The key hint on the status line, in the screen's width: the one-letter
 * aliases go first, then whole groups from the end (never a cut word). */
static void draw_hint(Canvas *c, const Ui *ui, int phase)
{
    char hint[240];
    int room = c->w - 2;
    size_t l = app_hint(phase_ctx[phase], 0, hint, sizeof hint);
    if ((int)l > room) l = app_hint(phase_ctx[phase], 1, hint, sizeof hint);
    while ((int)l > room) {
        char *gap = NULL;
        for (char *p = strstr(hint, "  "); p && p - hint <= room; p = strstr(p + 2, "  ")) gap = p;
        if (!gap) break;
        *gap = 0;
        l = (size_t)(gap - hint);
    }
    app_draw_status(c, ui, hint);
}

static void draw_pic(const Qs *q, Canvas *c, int y, int rows, int lit)
{
    const QuizQuestion *qq = &q->qs[q->i];
    const Tensor *t = q->pic->t[qq->pic.tensor];
    int dh = q->pic->d_head, wrap, heads;
    switch (qq->pic.tensor) {
    case MT_K: wrap = q->pic->cfg.kv_heads * dh, heads = q->pic->cfg.kv_heads; break;
    case MT_HEAD_OUT: wrap = dh, heads = 0; break; /* head-major: rows are (head, token) */
    default: wrap = q->pic->cfg.d_model, heads = q->pic->cfg.heads; break;
    }
    scene_candy_bar(c, 1, y, c->w - 2, rows, t, wrap, heads, dh, lit ? qq->pic.lit : -1);
}

/* Rows the candy bar takes below the text (0 without a picture): measured by
 * drawing it on a scratch canvas, at most a third of the screen. */
static int pic_rows(const Qs *q, const Canvas *c)
{
    if (!q->pic || (q->phase != PH_ASK && q->phase != PH_FEEDBACK)) return 0;
    int cap = c->h / 3 > 9 ? c->h / 3 : 9;
    Canvas *scratch = canvas_new(c->w, cap);
    if (!scratch) return 0;
    draw_pic(q, scratch, 0, cap, 0);
    int used = 0;
    char row[1024];
    for (int y = 0; y < cap; y++)
        if (strspn(canvas_row(scratch, y, 1, row, sizeof row), " ") < strlen(row)) used = y + 1;
    canvas_free(scratch);
    return used;
}

static void draw_picker(const Qs *q, Canvas *c)
{
    canvas_text(c, 2, 2, "Topic", ST_BOLD);
    for (int i = 0; i <= QT_COUNT; i++) {
        int y = 3 + i;
        Style st = i == q->topic_sel ? ST_CURSOR : ST_NORMAL;
        canvas_fill(c, 2, y, 14, 1, ' ', st);
        canvas_text(c, 3, y, i == 0 ? "all topics" : quiz_topic_names[i - 1], st);
        if (i > 0 && q->have_hist && q->hist.total.asked[i - 1])
            canvas_printf(c, 18, y, ST_DIM, "%d/%d right so far", q->hist.total.right[i - 1],
                          q->hist.total.asked[i - 1]);
        else if (i > 0) {
            int curated = 0;
            for (int k = 0; k < q->bank.n; k++) curated += q->bank.q[k].topic == i - 1;
            canvas_printf(c, 18, y, ST_DIM, "%s%s", quiz_topic_generated(i - 1) ? "generated" : "",
                          !curated ? "" : quiz_topic_generated(i - 1) ? " + curated" : "curated");
        }
    }
    int y = 5 + QT_COUNT;
    canvas_text(c, 2, y, "Length", ST_BOLD);
    for (int i = 0; i < q->nlen; i++)
        canvas_printf(c, 10 + 6 * i, y, i == q->len_sel ? ST_CURSOR : ST_NORMAL, " %3d ", q->lengths[i]);
    canvas_text(c, 2, y + 1, "Timed", ST_BOLD);
    canvas_text(c, 10, y + 1, q->timed ? "[x] a clock per question" : "[ ] no clock", ST_NORMAL);
    canvas_printf(c, 2, y + 2, ST_DIM, "seed %llu: the same seed asks the same questions (mhaviz quiz --seed N)",
                  (unsigned long long)q->seed);
    /* the same rules as --plain (quiz_check), except that an answer that
     * cannot be read is asked again here */
    canvas_text(c, 2, y + 4, "Answer by letter, or type a choice's text, number or shape;", ST_NORMAL);
    canvas_text(c, 2, y + 5, "with no choices, a number or a shape: (2, 8, 16, 64) or 2,8,16,64.", ST_NORMAL);
    canvas_text(c, 2, y + 6, "An answer that cannot be read is asked again (--plain counts it wrong).", ST_NORMAL);
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
    char ans[QUIZ_CHOICE_MAX + 8], verdict[QUIZ_CHOICE_MAX + 400];
    quiz_answer_text(qq, ans, sizeof ans);
    if (q->right) snprintf(verdict, sizeof verdict, "Right: %s", ans);
    else if (q->skipped) snprintf(verdict, sizeof verdict, "Skipped: the answer is %s", ans);
    else if (q->chosen >= 0)
        snprintf(verdict, sizeof verdict, "Wrong: you chose %c); the answer is %s", 'a' + q->chosen, ans);
    else snprintf(verdict, sizeof verdict, "Wrong: you typed %s; the answer is %s", q->input, ans);
    body_text(b, verdict, q->right ? ST_GOOD : ST_BAD);
    body_put(b, "", 0, 0, ST_NORMAL);
    body_text(b, qq->explain, ST_NORMAL);
    if (qq->working[0]) {
        body_put(b, "", 0, 0, ST_NORMAL);
        body_text(b, "Engine working:", ST_BOLD);
        body_working(b, qq->working);
    }
    if (!qq->gen) body_text(b, qq->source, ST_DIM);
}

static void qs_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Qs *q = s->st;
    if (app_draw_enlarge(c)) return;
    char title[160];
    const QuizQuestion *qq = q->i < q->n ? &q->qs[q->i] : NULL;
    if (q->phase == PH_PICK) snprintf(title, sizeof title, "Quiz: interview prep");
    else if (q->phase == PH_SUMMARY) snprintf(title, sizeof title, "Quiz: summary");
    else snprintf(title, sizeof title, "Quiz  %d/%d  %s%s", q->i + 1, q->n, quiz_topic_names[qq->topic],
                  qq->gen ? "" : " (curated)");
    canvas_fill(c, 0, 0, c->w, 1, ' ', ST_TITLE);
    canvas_text(c, 1, 0, title, ST_TITLE);
    if (q->phase == PH_ASK || q->phase == PH_FEEDBACK) {
        int asked = 0, right = 0, skipped = 0;
        for (int t = 0; t < QT_COUNT; t++)
            asked += q->score.asked[t], right += q->score.right[t], skipped += q->score.skipped[t];
        char sc[80];
        int secs = q->phase == PH_ASK ? q->shown_sec : (int)q->last_secs;
        size_t l = (size_t)snprintf(sc, sizeof sc, "score %d/%d", right, asked);
        if (skipped) l += (size_t)snprintf(sc + l, sizeof sc - l, ", %d skipped", skipped);
        if (q->timed && secs >= 0) snprintf(sc + l, sizeof sc - l, "  %d:%02d", secs / 60, secs % 60);
        canvas_text(c, c->w - (int)strlen(sc) - 1, 0, sc, ST_TITLE);
    }
    if (q->phase == PH_PICK) {
        draw_picker(q, c);
        draw_hint(c, ui, q->phase);
        return;
    }
    int prow = pic_rows(q, c);
    /* the question's last line (what is asked) and the choices stay pinned
     * above the answer line; the text above them scrolls */
    int pinned = 0;
    const char *ask = qq ? strrchr(qq->prompt, '\n') : NULL; /* the line that asks */
    ask = ask ? ask + 1 : qq ? qq->prompt : "";
    if (q->phase == PH_ASK) {
        Body m = {c, 1, 0, c->w - 2, 0, 0, 0};
        body_text(&m, ask, ST_NORMAL);
        pinned += m.line;
    }
    if (q->phase == PH_ASK)
        for (int i = 0; i < qq->n_choices; i++) {
            Body m = {c, 1, 0, c->w - 2, 0, 0, 0};
            char line[QUIZ_CHOICE_MAX + 8];
            snprintf(line, sizeof line, "  %c) %s", 'a' + i, qq->choices[i]);
            body_text(&m, line, ST_BOLD); /* h = 0: counts rows, draws nothing */
            pinned += m.line;
        }
    if (q->phase == PH_SUMMARY) {
        Body b = {c, 1, 2, c->w - 2, c->h - 5, 0, 0};
        char sum[2000];
        quiz_summary(&q->score, q->have_hist && !q->no_save ? &q->hist : NULL, sum, sizeof sum);
        body_text(&b, sum, ST_NORMAL);
        if (q->timed) {
            int asked = 0;
            for (int t = 0; t < QT_COUNT; t++) asked += q->score.asked[t] + q->score.skipped[t];
            char tl[80];
            snprintf(tl, sizeof tl, "Time: %.0f s in all, %.1f s per question", q->total_secs,
                     asked ? q->total_secs / asked : 0.0);
            body_text(&b, tl, ST_NORMAL);
        }
        if (q->err[0]) body_text(&b, q->err, ST_WARN);
        else if (q->saved) body_text(&b, "Scores saved with your lesson progress.", ST_DIM);
        draw_hint(c, ui, q->phase);
        return;
    }
    /* the scrolling part: counted first, so an overflow gets its own "more" line */
    int avail = c->h - 5 - prow - pinned;
    Body cnt = {c, 1, 0, c->w - 2, 0, 0, 0};
    fill_body(q, qq, ask, &cnt);
    int total = cnt.line, over = total > avail;
    int bh = over ? avail - 1 : total;
    if (bh < 0) bh = 0;
    q->max_scroll = total > bh ? total - bh : 0;
    int scroll = q->scroll > q->max_scroll ? q->max_scroll : q->scroll;
    Body b = {c, 1, 2, c->w - 2, bh, scroll, 0};
    fill_body(q, qq, ask, &b);
    int y = 2 + bh;
    if (over) {
        canvas_printf(c, 1, y, ST_DIM, "-- lines %d-%d of %d: Up/Down to scroll --", scroll + 1, scroll + bh, total);
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
    if (prow) draw_pic(q, c, y + pinned, prow, q->phase == PH_FEEDBACK);
    int iy = c->h - 3;
    if (q->phase == PH_ASK) {
        canvas_text(c, 1, iy, "answer> ", ST_BOLD);
        int room = c->w - 11; /* "answer> ", the cursor and a margin */
        const char *shown = q->input;
        if (q->ilen > room) { /* a long answer: its end, where the typing is */
            shown = q->input + q->ilen - (room - 3);
            canvas_text(c, 9, iy, "...", ST_DIM);
        }
        int x = 9 + (shown != q->input ? 3 : 0);
        x += canvas_text(c, x, iy, shown, ST_NORMAL);
        canvas_put(c, x, iy, ' ', ST_CURSOR);
        if (q->why[0]) canvas_text(c, 1, iy + 1, q->why, ST_WARN);
    } else {
        canvas_printf(c, 1, iy, ST_DIM, "%s", q->i + 1 < q->n ? "Enter: next question" : "Enter: the summary");
    }
    draw_hint(c, ui, q->phase);
}

static void qs_free(Screen *s)
{
    Qs *q = s->st;
    if (q) {
        if (q->phase == PH_ASK || q->phase == PH_FEEDBACK) save_history(q);
        mha_free(q->pic);
        free(q->qs);
        quiz_bank_free(&q->bank);
        if (q->have_hist) quiz_history_free(&q->hist);
        free(q);
    }
    free(s);
}

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
    s->draw = qs_draw;
    s->key = qs_key;
    s->tick = qs_tick;
    s->free = qs_free;
    q->no_save = no_save || (ui && ui->no_save);
    q->nlen = 0;
    for (int i = 0; i < 4; i++) q->lengths[q->nlen++] = default_lengths[i];
    q->len_sel = 1;
    q->seed = (uint64_t)time(NULL) % 100000;
    char err[300];
    if (quiz_bank_load_builtin(&q->bank, err, sizeof err) && ui) snprintf(ui->status, sizeof ui->status, "%.190s", err);
    q->have_hist = quiz_history_load(&q->hist, q->err, sizeof q->err) == 0;
    if (q->have_hist && q->hist.warning[0] && ui)
        snprintf(ui->status, sizeof ui->status, "%.190s", q->hist.warning);
    return s;
}

Screen *quiz_open(Ui *ui)
{
    Screen *s = qs_new(ui, 0);
    if (s) ((Qs *)s->st)->from_home = 1;
    return s;
}

Screen *quiz_open_with(Ui *ui, const QuizQuestion *qs, int n, int topic, int count, uint64_t seed, int timed,
                       int no_save)
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
        while (at < q->nlen && q->lengths[at] < count) at++;
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
        show_question(q, clock_now());
    }
    return s;
}
