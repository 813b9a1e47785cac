/* check_quiz_session.c - one quiz session, whatever asks the questions: the
 * same typed answers give the same verdicts, the same score and the same
 * saved history in the TUI screen (driven key by key) and in quiz --plain
 * (the real binary, $MHAVIZ_BIN, fed through a pipe). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "check_main.h"
#include "content/quiz.h"
#include "ui/keys.h"
#include "ui/quiz_screen.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

#define N 12
#define SEED 11

/* A line that answers q right ("b", "23", "(2, 8, 16, 64)", the first
 * spelling), or wrong but readable (another letter, the number + 1, the
 * tuple with one asked value changed, words that are no spelling). */
static void typed_answer(const QuizQuestion *q, int right, char *buf, size_t n)
{
    switch (q->kind) {
    case QK_CHOICE:
        snprintf(buf, n, "%c", 'a' + (right ? q->correct : (q->correct + 1) % q->n_choices));
        return;
    case QK_NUMBER:
        snprintf(buf, n, "%lld", q->number + !right);
        return;
    case QK_TUPLE: {
        int bump = -1;
        for (int i = 0; i < q->n_tuple && bump < 0 && !right; i++)
            if (!((q->tuple_free >> i) & 1u)) bump = i;
        size_t l = (size_t)snprintf(buf, n, "(");
        for (int i = 0; i < q->n_tuple; i++)
            l += (size_t)snprintf(buf + l, n - l, "%s%lld", i ? ", " : "",
                                  q->tuple[i] + (i == bump));
        snprintf(buf + l, n - l, q->n_tuple == 1 ? ",)" : ")");
        return;
    }
    default:
        if (right)
            snprintf(buf, n, "%.*s", (int)strcspn(q->text, "|"), q->text);
        else
            snprintf(buf, n, "no such words at all");
    }
}

/* The answers typed: right, wrong, skipped (an empty line), right, ... */
static void answers(const QuizQuestion *qs, char (*lines)[200])
{
    for (int i = 0; i < N; i++)
        if (i % 3 == 2)
            lines[i][0] = 0;
        else
            typed_answer(&qs[i], i % 3 == 0, lines[i], sizeof lines[i]);
}

/* The line of text starting with "Score: " in s, into out. */
static void score_line(const char *s, char *out, size_t n)
{
    const char *p = strstr(s, "Score: ");
    ck_assert_ptr_nonnull(p);
    snprintf(out, n, "%.*s", (int)strcspn(p, "\n"), p);
}

/* The canvas's rows, joined by newlines, right-trimmed. */
static void canvas_rows(const Canvas *c, char *out, size_t n)
{
    size_t l = 0;
    for (int y = 0; y < c->h; y++) {
        char row[512];
        canvas_row(c, y, 1, row, sizeof row);
        size_t k = strlen(row);
        while (k && row[k - 1] == ' ')
            row[--k] = 0;
        l += (size_t)snprintf(out + l, n - l, "%s\n", row);
        if (l >= n) break;
    }
}

static char *read_history(void)
{
    char path[300], err[300], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/mhaviz/quiz-history", getenv("XDG_STATE_HOME"));
    ck_assert_msg(file_read(path, 1 << 20, &text, &len, err, sizeof err) == 0, "%s", err);
    return text;
}

/* The TUI: its verdicts (R, W, S), the summary's score line, the history. */
static char *run_tui(char (*lines)[200], char *verdicts, char *score, size_t sn)
{
    Ui ui;
    memset(&ui, 0, sizeof ui);
    MhaConfig c = mha_config_default();
    ck_assert_int_eq(ui_set_config(&ui, &c), 0);
    Canvas *cv = canvas_new(120, 60);
    ck_assert_ptr_nonnull(cv);
    static char text[120 * 61 * 4];
    Screen *s = quiz_open_with(&ui, NULL, 0, -1, N, SEED, 0, 0);
    ck_assert_ptr_nonnull(s);
    screenstack_send(s, &ui, UI_K_ENTER, NULL); /* start */
    for (int i = 0; i < N; i++) {
        for (const char *p = lines[i]; *p; p++)
            screenstack_send(s, &ui, (unsigned char)*p, NULL);
        screenstack_send(s, &ui, UI_K_ENTER, NULL);
        canvas_clear(cv);
        screen_draw(s, &ui, cv);
        verdicts[i] = canvas_contains(cv, "Right: ")     ? 'R'
                      : canvas_contains(cv, "Wrong: ")   ? 'W'
                      : canvas_contains(cv, "Skipped: ") ? 'S'
                                                         : '?';
        screenstack_send(s, &ui, UI_K_ENTER,
                         NULL); /* the next question; after the last, the summary */
    }
    verdicts[N] = 0;
    canvas_clear(cv);
    screen_draw(s, &ui, cv);
    canvas_rows(cv, text, sizeof text);
    score_line(text, score, sn);
    ck_assert_msg(canvas_contains(cv, "Scores saved"), "%s", text);
    ck_assert_int_eq(screenstack_send(s, &ui, UI_K_ENTER, NULL) & UI_BACK, UI_BACK);
    screen_close(s);
    canvas_free(cv);
    ui_free(&ui);
    return read_history();
}

/* quiz --plain: the same. */
static char *run_plain(char (*lines)[200], char *verdicts, char *score, size_t sn)
{
    char in[300], cmd[800];
    snprintf(in, sizeof in, "%s/answers", getenv("XDG_STATE_HOME"));
    FILE *f = fopen(in, "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < N; i++)
        fprintf(f, "%s\n", lines[i]);
    fclose(f);
    const char *bin = getenv("MHAVIZ_BIN");
    ck_assert_msg(bin != NULL, "MHAVIZ_BIN not set");
    snprintf(cmd, sizeof cmd, "%s quiz --plain --count %d --seed %d < '%s' 2>&1", bin, N, SEED, in);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    static char out[1 << 20];
    size_t got = fread(out, 1, sizeof out - 1, p);
    out[got] = 0;
    ck_assert_int_eq(pclose(p), 0);
    int k = 0;
    for (const char *s = out; *s && k < N; s += strcspn(s, "\n"), s += *s == '\n') {
        if (!strncmp(s, "Right.", 6)) verdicts[k++] = 'R';
        if (!strncmp(s, "Wrong: ", 7)) verdicts[k++] = 'W';
        if (!strncmp(s, "Skipped: ", 9)) verdicts[k++] = 'S';
    }
    verdicts[k] = 0;
    score_line(out, score, sn);
    return read_history();
}

/* Counts what the session passes on (QuizSession.record). */
static int told[4];
static void count_answer(void *ctx, const QuizQuestion *q, int result)
{
    (void)ctx;
    (void)q;
    told[result]++;
}

/* Every kind of line, judged once: in the session's score, and passed on
 * once; with ask_again (the TUI) a line that is no answer records nothing. */
START_TEST(each_kind_of_line_judged_and_recorded_once)
{
    QuizQuestion q[2];
    char err[300], num[32];
    ck_assert_int_eq(quiz_generate_kind(QG_OFFSET, 5, &q[0], err, sizeof err), 0);
    ck_assert_int_eq(quiz_generate_kind(QG_VIEWCOPY, 5, &q[1], err, sizeof err), 0);
    ck_assert_int_eq(q[0].kind, QK_NUMBER);
    ck_assert_int_eq(q[1].kind, QK_CHOICE);
    for (int again = 0; again <= 1; again++) {
        QuizSession s = {.record = count_answer};
        QuizVerdict v;
        memset(told, 0, sizeof told);
        quiz_session_begin(&s, q, 2, 30, again);
        ck_assert(s.record == count_answer); /* begin keeps it */
        int t = q[0].topic;

        /* no answer: asked again (TUI) or wrong (--plain) */
        int r = quiz_session_answer(&s, "(1,", NULL, 1, &v);
        ck_assert_int_eq(r, again ? QV_AGAIN : QV_WRONG);
        ck_assert_int_eq(v.unread, 1);
        ck_assert_str_eq(v.why, "type a whole number");
        ck_assert_int_eq(s.score.asked[t], !again);
        ck_assert_int_eq(s.answered, !again);
        /* refused by the line reader: the reason is kept */
        r = quiz_session_answer(&s, "1", "answer too long", 1, &v);
        ck_assert_int_eq(r, again ? QV_AGAIN : QV_WRONG);
        ck_assert_str_eq(v.why, "answer too long");
        /* right, parsed once: the verdict holds the number */
        snprintf(num, sizeof num, "%lld", q[0].number);
        ck_assert_int_eq(quiz_session_answer(&s, num, NULL, 2, &v), QV_RIGHT);
        ck_assert_int_eq(v.a.kind, QA_NUMBER);
        ck_assert_int_eq(v.a.number, q[0].number);
        ck_assert_int_eq(s.score.right[t], 1);
        ck_assert_int_eq(s.score.asked[t], again ? 1 : 3);
        ck_assert_int_eq(s.last.result, QV_RIGHT);
        ck_assert_int_eq(quiz_session_next(&s), 1);

        /* a value that is none of the choices */
        r = quiz_session_answer(&s, "123456789", NULL, 1, &v);
        ck_assert_int_eq(r, again ? QV_AGAIN : QV_WRONG);
        ck_assert_int_eq(v.unread, 0);
        ck_assert_str_eq(v.why, "not one of the choices");
        /* an empty line skips: not asked, skipped */
        int t1 = q[1].topic, asked1 = s.score.asked[t1];
        ck_assert_int_eq(quiz_session_answer(&s, "  ", NULL, 1, &v), QV_SKIPPED);
        ck_assert_int_eq(s.score.asked[t1], asked1);
        ck_assert_int_eq(s.score.skipped[t1], 1);
        /* after the limit, wrong whatever it says */
        char right[4] = {(char)('a' + q[1].correct), 0};
        ck_assert_int_eq(quiz_session_answer(&s, right, NULL, 31, &v), QV_WRONG);
        ck_assert_int_eq(v.late, 1);
        ck_assert_str_eq(v.why, "out of time (31.0 s of 30)");
        ck_assert_int_eq(quiz_session_time_out(&s, 30, &v), QV_WRONG);
        ck_assert_int_eq(v.late, 1);
        ck_assert_int_eq(quiz_session_next(&s), 0);
        ck_assert_int_eq(quiz_session_answer(&s, right, NULL, 1, &v), QV_AGAIN); /* none left */

        /* each recorded answer passed on once, and counted once */
        int asked = 0, skipped = 0;
        for (int k = 0; k < QT_COUNT; k++)
            asked += s.score.asked[k], skipped += s.score.skipped[k];
        ck_assert_int_eq(told[QV_RIGHT], 1);
        ck_assert_int_eq(told[QV_SKIPPED], 1);
        ck_assert_int_eq(told[QV_WRONG], again ? 2 : 5);
        ck_assert_int_eq(told[QV_AGAIN], 0);
        ck_assert_int_eq(asked, told[QV_RIGHT] + told[QV_WRONG]);
        ck_assert_int_eq(skipped + asked, s.answered);
        ck_assert_double_eq_tol(s.secs, again ? 2 + 1 + 31 + 30 : 1 + 1 + 2 + 1 + 1 + 31 + 30,
                                1e-9);
    }
}
END_TEST

/* text without its "journal NAME OFFSET" lines (each run's journal has its
 * own random name; they are bookkeeping, not scores), in place. */
static char *without_journal_records(char *text)
{
    char *w = text;
    for (char *r = text; *r;) {
        char *nl = strchr(r, '\n');
        size_t n = nl ? (size_t)(nl - r) + 1 : strlen(r);
        if (strncmp(r, "journal ", 8)) memmove(w, r, n), w += n;
        r += n;
    }
    *w = 0;
    return text;
}

START_TEST(both_front_ends_judge_score_and_save_alike)
{
    QuizBank bank = {0};
    QuizQuestion qs[N];
    char err[300], lines[N][200];
    ck_assert_int_eq(quiz_bank_load_builtin(&bank, err, sizeof err), 0);
    ck_assert_int_eq(quiz_session(&bank, -1, N, SEED, qs, err, sizeof err), N);
    quiz_bank_free(&bank);
    answers(qs, lines);

    char tv[N + 1], pv[N + 1], ts[200], ps[200], want[N + 1];
    for (int i = 0; i < N; i++)
        want[i] = "RWS"[i % 3];
    want[N] = 0;
    state_dir_setup();
    char *th = run_tui(lines, tv, ts, sizeof ts);
    state_dir_teardown();
    state_dir_setup();
    char *ph = run_plain(lines, pv, ps, sizeof ps);
    state_dir_teardown();

    ck_assert_str_eq(tv, want);
    ck_assert_str_eq(pv, want);
    ck_assert_str_eq(ts, ps);
    ck_assert_str_eq(without_journal_records(th), without_journal_records(ph));
    ck_assert_ptr_nonnull(strstr(th, "\nmiss 1 ")); /* the wrong ones and the skips */
    free(th);
    free(ph);
}
END_TEST

/* A session never asks one question twice while its topic has others: an
 * MLA session of 10 (2 models x 4 dtypes x a layer or all: 16 questions)
 * asked the same DeepSeek-V3 question twice in seeds 1, 2 and 3. */
START_TEST(no_question_twice_in_a_session)
{
    static QuizQuestion qs[10];
    char err[256];
    for (int topic = 0; topic < QT_COUNT; topic++) {
        if (!quiz_topic_generated(topic)) continue;
        for (uint64_t seed = 1; seed <= 20; seed++) {
            int n = quiz_session(NULL, topic, 10, seed, qs, err, sizeof err);
            ck_assert_msg(n == 10, "%s seed %d: %s", quiz_topic_names[topic], (int)seed, err);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < i; j++)
                    ck_assert_msg(strcmp(qs[i].prompt, qs[j].prompt) != 0,
                                  "%s seed %d: questions %d and %d are the same: %.100s",
                                  quiz_topic_names[topic], (int)seed, j + 1, i + 1, qs[i].prompt);
        }
    }
}
END_TEST

static Suite *quiz_session_suite(void)
{
    Suite *s = suite_create("quiz_session");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, each_kind_of_line_judged_and_recorded_once);
    tcase_add_test(tc, both_front_ends_judge_score_and_save_alike);
    tcase_add_test(tc, no_question_twice_in_a_session);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(quiz_session_suite)
