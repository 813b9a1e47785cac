/* fuzz_answer.c - a typed quiz answer (quiz_answer.c): read on its own, then
 * checked against one question of every generated kind and curated ones of
 * every answer kind (choices, numbers, shapes, words). */
#include "fuzz.h"

#include "content/quiz.h"

#define ANSWER_CURATED 3 /* curated questions kept of each kind: enough to vary the choices */

/* One question of every generated kind, and the first few curated ones of
 * every answer kind (checking all 47 curated ones made each input 4x slower
 * and reached no new code). */
static QuizQuestion *answer_questions(int *n)
{
    static QuizQuestion qs[QG_COUNT + 4 * ANSWER_CURATED];
    static int count = -1;
    char err[320];
    if (count < 0) {
        QuizBank bank = {0};
        int per_kind[4] = {0};
        count = 0;
        if (quiz_bank_load_builtin(&bank, err, sizeof err)) abort();
        for (int i = 0; i < bank.n; i++)
            if (per_kind[bank.q[i].kind]++ < ANSWER_CURATED) qs[count++] = bank.q[i];
        quiz_bank_free(&bank);
        for (int k = 0; k < QG_COUNT; k++)
            if (quiz_generate_kind(k, 7 + (uint64_t)k, &qs[count++], err, sizeof err)) abort();
    }
    *n = count;
    return qs;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int n;
    QuizQuestion *qs = answer_questions(&n);
    char *s = fuzz_cstr(data, size);
    QuizAnswer a;
    if (quiz_parse_answer(s, &a) == 0) {
        FUZZ_ASSERT(a.kind >= QA_EMPTY && a.kind < QA_COUNT);
        FUZZ_ASSERT(strlen(a.text) < sizeof a.text);
        if (a.kind == QA_TUPLE) FUZZ_ASSERT(a.n >= 0 && a.n <= QUIZ_MAX_TUPLE);
        if (a.kind == QA_LETTER) FUZZ_ASSERT(a.letter >= 0 && a.letter < 26);
        if (a.kind == QA_SIZE) FUZZ_ASSERT(a.size >= 0 && a.size_unit >= 0 && a.size_unit < 6);
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
