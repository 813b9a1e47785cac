/* check_quiz_listings.c - the code a learner sees is the code that ran: every
 * listing of 2,000 generated questions (the topics that show one) is run
 * again from its text, line by line, in a fresh playground of the
 * question's configuration, and each line gives the shape, strides and
 * copied bytes its "The engine ran:" line claims (a views question's own
 * line too, or the error it claims, word for word); every bugs program of
 * 200 questions runs again from its text, right and buggy.  Until the interpreter
 * has the numeric ops, a line with @, softmax or sqrt takes a run tensor of
 * the claimed geometry instead. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "content/quiz.h"
#include "engine/play.h"
#include "engine/tensor.h"

/* "(2, 8, 64) strides (512, 64, 1)" of t */
static void geometry(const Tensor *t, char *buf, size_t n)
{
    char sh[96], st[96];
    tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
    tensor_fmt_strides(st, sizeof st, t);
    snprintf(buf, n, "%s strides %s", sh, st);
}

static int numeric(const char *code)
{
    return strchr(code, '@') || strstr(code, "softmax") || strstr(code, "sqrt");
}

/* A numeric line the interpreter cannot run yet: VAR bound to a tensor of
 * the run with the claimed geometry.  0, or -1 when the run has none. */
static int bind_from_run(Play *p, const Mha *m, const char *code, const char *claim)
{
    char var[PLAY_NAME_MAX], g[200];
    if (sscanf(code, "%31[A-Za-z_0-9] =", var) != 1) return -1;
    for (int i = 0; i < MT_COUNT; i++) {
        if (!m->t[i]) continue;
        geometry(m->t[i], g, sizeof g);
        if (!strncmp(claim, g, strlen(g)) && claim[strlen(g)] == ',') {
            Tensor *t = tensor_restride(m->t[i], m->t[i]->offset, m->t[i]->ndim, m->t[i]->shape,
                                        m->t[i]->strides);
            return play_set_tensor(p, var, t, PD_FLOAT32);
        }
    }
    return -1;
}

/* Runs the working's "The engine ran:" lines of q; the number checked, or
 * fails the test naming the question and the line. */
static int replay(const QuizQuestion *q, int has_matmul)
{
    char err[300];
    const char *w = strstr(q->working, "The engine ran:\n");
    if (!w) return 0;
    Mha *m = mha_run(&q->cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s: %s", q->id, err);
    Play *p = mha_play_new(m);
    ck_assert_ptr_nonnull(p);
    PlayResult r = {0};
    r.error_col = -1;
    int checked = 0;
    for (const char *s = strchr(w, '\n') + 1; *s == ' ' && s[1] == ' ';) {
        const char *end = strchr(s, '\n');
        char line[400], code[400], g[200];
        size_t len = end ? (size_t)(end - s) : strlen(s);
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        s = end ? end + 1 : s + len;
        char *arrow = strstr(line, " -> ");
        if (!arrow) break; /* the trace is over */
        const char *claim = arrow + 4;
        *arrow = 0;
        char *c = line;
        while (*c == ' ')
            c++;
        snprintf(code, sizeof code, "%s", c);
        for (size_t k = strlen(code); k > 0 && code[k - 1] == ' ';)
            code[--k] = 0;
        if (numeric(code) && !has_matmul) {
            ck_assert_msg(bind_from_run(p, m, code, claim) == 0, "%s: no run tensor is %s", q->id,
                          claim);
            continue;
        }
        PlayKind k = play_eval(p, code, &r);
        if (!strncmp(claim, "error: ", 7)) {
            ck_assert_msg(k == PR_ERROR && !strcmp(r.error, claim + 7),
                          "%s: `%s` claims %s\n  the interpreter: %s", q->id, code, claim,
                          k == PR_ERROR ? r.error : "no error");
        } else {
            ck_assert_msg(k == PR_TENSOR, "%s: `%s` does not run: %s", q->id, code, r.error);
            geometry(r.t, g, sizeof g);
            ck_assert_msg(!strncmp(claim, g, strlen(g)),
                          "%s: `%s` claims %s\n  the interpreter: %s", q->id, code, claim, g);
            const char *cp = strstr(claim, "copy: "), *nb = strstr(claim, "new storage: ");
            long bytes = cp ? atol(cp + 6) : nb ? atol(nb + 13) : 0;
            if (cp || nb || strstr(claim, "view: ") || strstr(claim, "same storage"))
                ck_assert_msg((long)r.copied_bytes == bytes, "%s: `%s` claims %s, copied %zu",
                              q->id, code, claim, r.copied_bytes);
        }
        checked++;
    }
    play_result_clear(&r);
    play_free(p);
    mha_free(m);
    return checked;
}

/* A bugs question: both programs run again from their text; the right one
 * gives the run's y, the buggy one raises the words the working shows or
 * gives another y. */
static int replay_bug(const QuizQuestion *q)
{
    char bad[20][QUIZ_BUG_LINE], good[20][QUIZ_BUG_LINE], err[640] = "";
    int nb = quiz_bug_lines(q, 0, bad, 20), ng = quiz_bug_lines(q, 1, good, 20);
    int seq_first = strstr(q->prompt, "sequence first") != NULL;
    Mha *m = mha_run(&q->cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s: %s", q->id, err);
    Tensor *y = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])good, ng, seq_first, err, sizeof err);
    ck_assert_msg(y && quiz_bug_diff(m, y) < 1e-4, "%s: the right program: %s", q->id, err);
    tensor_free(y);
    y = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])bad, nb, seq_first, err, sizeof err);
    if (!y) {
        char want[700];
        snprintf(want, sizeof want, "buggy: RuntimeError: %s\n", err);
        ck_assert_msg(strstr(q->working, want) != NULL, "%s: raises %s\n  the working: %s", q->id,
                      err, q->working);
    } else
        ck_assert_msg(quiz_bug_diff(m, y) > 1e-4 && strstr(q->working, "buggy: y["),
                      "%s: the buggy program changes nothing", q->id);
    tensor_free(y);
    mha_free(m);
    return nb + ng;
}

START_TEST(every_bug_program_runs_from_its_text)
{
    char err[300];
    QuizQuestion q;
    long lines = 0;
    for (int i = 0; i < 200; i++) {
        ck_assert_msg(quiz_generate(QT_BUGS, 0xb0650000ULL + (uint64_t)i, &q, err, sizeof err) == 0,
                      "%s", err);
        lines += replay_bug(&q);
    }
    fprintf(stderr, "bugs: 200 questions, %ld program lines run from their text\n", lines);
}
END_TEST

START_TEST(every_listing_runs_as_shown)
{
    static const int topics[] = {QT_SHAPES, QT_STRIDES, QT_OFFSETS, QT_VIEWS, QT_GQA};
    enum { N = sizeof topics / sizeof *topics };
    char err[300];
    long lines = 0, with[N] = {0};
    QuizQuestion q;
    /* does the interpreter compute yet? (the numeric ops) */
    Play *probe = play_new(NULL);
    PlayResult r = {0};
    r.error_col = -1;
    play_eval(probe, "torch.zeros(2, 2) @ torch.zeros(2, 2)", &r);
    int has_matmul = r.kind == PR_TENSOR;
    play_result_clear(&r);
    play_free(probe);
    for (int i = 0; i < 2000; i++) {
        int t = i % N;
        ck_assert_msg(quiz_generate(topics[t], 0x5eed0000ULL + (uint64_t)i, &q, err, sizeof err) ==
                          0,
                      "%s", err);
        int k = replay(&q, has_matmul);
        with[t] += k > 0;
        lines += k;
    }
    for (int t = 0; t < N; t++) /* each topic shows listings, and they were run */
        ck_assert_msg(with[t] > 150, "topic %s: %ld questions with a listing",
                      quiz_topic_names[topics[t]], with[t]);
    fprintf(stderr, "listings: 2000 questions, %ld lines run from their text%s\n", lines,
            has_matmul ? "" : " (@/softmax/sqrt lines bound from the run)");
}
END_TEST

static Suite *quiz_listings_suite(void)
{
    Suite *s = suite_create("quiz_listings");
    TCase *tc = tcase_create("quiz_listings");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_listing_runs_as_shown);
    tcase_add_test(tc, every_bug_program_runs_from_its_text);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(quiz_listings_suite)
