/* quiz_choice.c - multiple-choice questions: distinct choices, and the key
 * placed at a position drawn from the question's own random stream, so no
 * position (and no "yes" or "no") is a better guess than another. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

int qc_pick(QuizRng *r, const int *v, int n)
{
    return v[quiz_rng_below(r, n)];
}

int qc_add(QuizQuestion *q, const char *s)
{
    if (q->n_choices >= QUIZ_MAX_CHOICES) return 0;
    for (int i = 0; i < q->n_choices; i++)
        if (!strcmp(q->choices[i], s)) return 0;
    snprintf(q->choices[q->n_choices++], QUIZ_CHOICE_MAX, "%s", s);
    return 1;
}

static void swap_choice(char *a, char *b)
{
    char tmp[QUIZ_CHOICE_MAX];
    memcpy(tmp, a, sizeof tmp);
    memcpy(a, b, sizeof tmp);
    memcpy(b, tmp, sizeof tmp);
}

/* Moves the choice at 0 (the key) to a uniformly drawn position. */
static void place_key(QuizQuestion *q, QuizRng *r)
{
    int pos = quiz_rng_below(r, q->n_choices);
    swap_choice(q->choices[pos], q->choices[0]);
    q->correct = pos;
}

void qc_make(QuizQuestion *q, QuizRng *r, const char *correct, char (*cand)[QUIZ_CHOICE_MAX],
             int ncand, int want)
{
    q->kind = QK_CHOICE;
    q->n_choices = 0;
    qc_add(q, correct);
    for (int i = ncand - 1; i > 0; i--)
        swap_choice(cand[i], cand[quiz_rng_below(r, i + 1)]);
    for (int i = 0; i < ncand && q->n_choices < want + 1; i++)
        qc_add(q, cand[i]);
    place_key(q, r);
}

void qc_fixed(QuizQuestion *q, QuizRng *r, const char *const *texts, int n, int correct)
{
    q->kind = QK_CHOICE;
    q->n_choices = 0;
    qc_add(q, texts[correct]);
    /* the others in a drawn order, then the key moved to a drawn place */
    int idx[QUIZ_MAX_CHOICES], k = 0;
    for (int i = 0; i < n && k < QUIZ_MAX_CHOICES; i++)
        if (i != correct) idx[k++] = i;
    for (int i = k - 1; i > 0; i--) {
        int j = quiz_rng_below(r, i + 1), t = idx[i];
        idx[i] = idx[j], idx[j] = t;
    }
    for (int i = 0; i < k; i++)
        qc_add(q, texts[idx[i]]);
    place_key(q, r);
}

void qc_yes_no(QuizQuestion *q, int yes)
{
    q->kind = QK_CHOICE;
    q->n_choices = 0;
    qc_add(q, "yes");
    qc_add(q, "no");
    q->correct = yes ? 0 : 1;
}
