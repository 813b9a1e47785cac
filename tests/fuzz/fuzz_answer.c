/* fuzz_answer.c - a typed quiz answer (quiz_answer.c): read on its own, then
 * checked against one question of every generated kind and every curated
 * question (choices, numbers, shapes, words). */
#include "fuzz.h"

#include "content/quiz.h"

static QuizQuestion *answer_questions(int *n)
{
    static QuizBank bank;
    static int ready;
    char err[320];
    if (!ready) {
        if (quiz_bank_load_builtin(&bank, err, sizeof err)) abort();
        for (int k = 0; k < QG_COUNT; k++) {
            if (bank.n == bank.cap) {
                bank.cap = bank.cap ? 2 * bank.cap : 16;
                bank.q = realloc(bank.q, sizeof *bank.q * (size_t)bank.cap);
                if (!bank.q) abort();
            }
            if (quiz_generate_kind(k, 7 + (uint64_t)k, &bank.q[bank.n], err, sizeof err)) abort();
            bank.n++;
        }
        ready = 1;
    }
    *n = bank.n;
    return bank.q;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int n;
    QuizQuestion *qs = answer_questions(&n);
    char *s = fuzz_cstr(data, size);
    QuizAnswer a;
    if (quiz_parse_answer(s, &a) == 0) {
        FUZZ_ASSERT(a.kind >= QA_EMPTY && a.kind <= QA_TEXT);
        FUZZ_ASSERT(strlen(a.text) < sizeof a.text);
        if (a.kind == QA_TUPLE) FUZZ_ASSERT(a.n >= 0 && a.n <= QUIZ_MAX_TUPLE);
        if (a.kind == QA_LETTER) FUZZ_ASSERT(a.letter >= 0 && a.letter < 26);
    }
    for (int i = 0; i < n; i++) {
        int chosen = -2;
        char why[200];
        why[0] = 0;
        int r = quiz_check(&qs[i], s, &chosen, why, sizeof why);
        FUZZ_ASSERT(r >= -1 && r <= 1);
        FUZZ_ASSERT(chosen >= -1 && chosen < (qs[i].n_choices ? qs[i].n_choices : 1));
        if (r < 0) FUZZ_ASSERT(fuzz_one_line(why, sizeof why));
    }
    free(s);
    return 0;
}
