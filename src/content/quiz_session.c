/* quiz_session.c - the questions of one session: generated and curated,
 * drawn from the session's seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/quiz.h"

int quiz_session(const QuizBank *bank, int topic, int count, uint64_t seed, QuizQuestion *out,
                 char *err, size_t errlen)
{
    QuizRng r;
    quiz_rng_seed(&r, seed);
    int nb = bank ? bank->n : 0;
    int *deck = nb ? malloc(sizeof *deck * (size_t)nb) : NULL;
    char *used = nb ? calloc((size_t)nb, 1) : NULL;
    if (nb && (!deck || !used)) {
        free(deck);
        free(used);
        if (err) snprintf(err, errlen, "quiz: out of memory");
        return -1;
    }
    for (int i = 0; i < nb; i++)
        deck[i] = i;
    for (int i = nb - 1; i > 0; i--) {
        int j = quiz_rng_below(&r, i + 1), t = deck[i];
        deck[i] = deck[j], deck[j] = t;
    }
    int n = 0;
    for (int i = 0; i < count; i++) {
        int t = topic >= 0 ? topic : quiz_rng_below(&r, QT_COUNT);
        uint64_t qseed = quiz_rng_next(&r);
        /* curated: always for curated-only topics, 1 in 4 otherwise */
        int want_curated = !quiz_topic_generated(t) || quiz_rng_below(&r, 4) == 0;
        int got = 0;
        for (int k = 0; want_curated && k < nb && !got; k++)
            if (!used[deck[k]] && bank->q[deck[k]].topic == t) {
                used[deck[k]] = 1;
                out[n++] = bank->q[deck[k]];
                got = 1;
            }
        if (got) continue;
        if (!quiz_topic_generated(t)) {
            if (topic >= 0) break; /* the curated questions of this topic ran out */
            t = QT_SHAPES + (int)(qseed % QT_CONCEPTS);
        }
        if (quiz_generate(t, qseed, &out[n], err, errlen)) {
            free(deck);
            free(used);
            return -1;
        }
        n++;
    }
    free(deck);
    free(used);
    return n;
}
