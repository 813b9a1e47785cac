/* fuzz_quiz_read.c - a quiz bank's text, first pass only (quiz_bank_read):
 * every check that needs no engine run.  Fast: thousands of inputs a second. */
#include "fuzz.h"

#include "content/quiz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    char err[320];
    QuizDraft *d;
    int n = quiz_bank_read("fuzz.quiz", s, &d, err, sizeof err);
    if (n < 0) {
        FUZZ_ASSERT(d == NULL);
        FUZZ_ASSERT(!strncmp(err, "fuzz.quiz:", 10) && fuzz_one_line(err, sizeof err));
    } else {
        FUZZ_ASSERT(n >= 1 && d != NULL);
        for (int i = 0; i < n; i++) {
            FUZZ_ASSERT(d[i].q.prompt[0] && d[i].answer[0] && d[i].q.explain[0]);
            FUZZ_ASSERT(d[i].q.n_choices != 1 && d[i].q.n_choices <= QUIZ_MAX_CHOICES);
            FUZZ_ASSERT(d[i].q_line >= 1 && d[i].answer_line > d[i].q_line);
        }
        free(d);
    }
    free(s);
    return 0;
}
