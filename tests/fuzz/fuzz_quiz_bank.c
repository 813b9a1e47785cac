/* fuzz_quiz_bank.c - a quiz bank's text, both passes (quiz_bank_read, then
 * quiz_bank_add: {expressions} filled in from the engine), for questions
 * whose @config is small; every question it accepts then takes its own
 * expected answer (the letter of a multiple-choice one) and each spelling of
 * a short answer, typed as written, as right. */
#include "fuzz.h"

#include "content/quiz.h"

static int quiz_small(const MhaConfig *c)
{
    long tokens = (long)c->batch * c->seq;
    return tokens * c->d_model <= 4096 && tokens * c->seq * c->heads <= 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    char err[320];
    QuizDraft *d;
    int n = quiz_bank_read("fuzz.quiz", s, &d, err, sizeof err);
    int small = 1;
    for (int i = 0; i < n; i++)
        small &= quiz_small(&d[i].cfg);
    if (n > 0 && small) {
        QuizBank bank = {0};
        int added = quiz_bank_add(&bank, "fuzz.quiz", d, n, err, sizeof err);
        FUZZ_ASSERT(added == -1 || added == n);
        FUZZ_ASSERT(bank.n == (added < 0 ? 0 : n));
        if (added < 0)
            FUZZ_ASSERT(!strncmp(err, "fuzz.quiz:", 10) && fuzz_one_line(err, sizeof err));
        for (int i = 0; i < bank.n; i++) { /* the letter, or the answer as shown */
            const QuizQuestion *q = &bank.q[i];
            char answer[QUIZ_ANSWER_MAX + 64], why[200];
            quiz_answer_text(q, answer, sizeof answer);
            if (q->kind == QK_CHOICE) answer[0] = (char)('a' + q->correct), answer[1] = 0;
            int chosen;
            FUZZ_ASSERT(quiz_check(q, answer, &chosen, why, sizeof why) == 1);
            FUZZ_ASSERT(q->kind != QK_CHOICE || chosen == q->correct);
            for (const char *t = q->text, *bar; q->kind == QK_TEXT; t = bar + 1) {
                bar = strchr(t, '|'); /* and every other spelling, typed as written */
                snprintf(answer, sizeof answer, "%.*s", (int)(bar ? (size_t)(bar - t) : strlen(t)),
                         t);
                FUZZ_ASSERT(quiz_check(q, answer, NULL, why, sizeof why) == 1);
                if (!bar) break;
            }
        }
        quiz_bank_free(&bank);
    }
    free(d);
    free(s);
    return 0;
}
