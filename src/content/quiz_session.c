/* quiz_session.c - one session: its questions (generated and curated,
 * drawn from the session's seed), and its answers as they are given, judged
 * and scored in one place for the TUI and --plain alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/quiz.h"

/* Does out[n] ask what one of out[0..n) asked? */
static int asked_before(const QuizQuestion *out, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(out[i].prompt, out[n].prompt)) return 1;
    return 0;
}

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
        /* a question already asked is drawn again, a few times: a topic with
         * few questions (MLA has 16) repeats only once they run out */
        for (int tries = 0;; tries++) {
            if (quiz_generate(t, qseed, &out[n], err, errlen)) {
                free(deck);
                free(used);
                return -1;
            }
            if (tries == 16 || !asked_before(out, n)) break;
            qseed = quiz_rng_next(&r);
        }
        n++;
    }
    free(deck);
    free(used);
    return n;
}

/* ---- the answers ---------------------------------------------------------- */

void quiz_score_add(QuizScore *s, int topic, int right)
{
    if (topic < 0 || topic >= QT_COUNT) return;
    s->asked[topic]++;
    s->right[topic] += right != 0;
}

void quiz_score_skip(QuizScore *s, int topic)
{
    if (topic < 0 || topic >= QT_COUNT) return;
    s->skipped[topic]++;
}

void quiz_session_begin(QuizSession *s, const QuizQuestion *q, int n, int limit, int ask_again)
{
    QuizRecordFn record = s->record;
    void *ctx = s->record_ctx;
    memset(s, 0, sizeof *s);
    s->q = q;
    s->n = q ? n : 0;
    s->limit = limit;
    s->ask_again = ask_again;
    s->last.chosen = -1;
    s->record = record;
    s->record_ctx = ctx;
}

/* Scores v (not QV_AGAIN) for the question asked and passes it on. */
static int record(QuizSession *s, QuizVerdict *v, QuizVerdict *out)
{
    const QuizQuestion *q = &s->q[s->i];
    if (v->result == QV_SKIPPED) /* not an answer: counted apart, kept for --review */
        quiz_score_skip(&s->score, q->topic);
    else
        quiz_score_add(&s->score, q->topic, v->result == QV_RIGHT);
    s->answered++;
    s->secs += v->secs;
    if (s->record) s->record(s->record_ctx, q, v->result);
    s->last = *v;
    if (out) *out = *v;
    return v->result;
}

static int late(QuizSession *s, double secs, QuizVerdict *v, QuizVerdict *out)
{
    v->result = QV_WRONG;
    v->late = 1;
    v->chosen = -1;
    snprintf(v->why, sizeof v->why, "out of time (%.1f s of %d)", secs, s->limit);
    return record(s, v, out);
}

int quiz_session_answer(QuizSession *s, const char *line, const char *refused, double secs,
                        QuizVerdict *out)
{
    QuizVerdict v;
    memset(&v, 0, sizeof v);
    v.chosen = -1;
    v.secs = secs;
    v.result = QV_AGAIN;
    if (s->i >= s->n) {
        if (out) *out = v;
        return QV_AGAIN;
    }
    if (s->limit && secs > s->limit) return late(s, secs, &v, out); /* whatever was typed */
    const QuizQuestion *q = &s->q[s->i];
    int rc, parsed = !refused && !quiz_parse_answer(line, &v.a);
    if (!parsed) v.a.kind = QA_EMPTY;
    if (refused) {
        snprintf(v.why, sizeof v.why, "%s", refused);
        rc = -1;
    } else if (parsed && v.a.kind == QA_EMPTY) {
        v.result = QV_SKIPPED;
        return record(s, &v, out);
    } else
        rc = quiz_check_answer(q, parsed ? &v.a : NULL, &v.chosen, v.why, sizeof v.why);
    v.unread = rc < 0;
    /* a line that is no answer, or a value that is none of the choices */
    if (s->ask_again && (rc < 0 || (rc == 0 && v.why[0]))) {
        s->last = v;
        if (out) *out = v;
        return QV_AGAIN;
    }
    v.result = rc == 1 ? QV_RIGHT : QV_WRONG;
    return record(s, &v, out);
}

int quiz_session_time_out(QuizSession *s, double secs, QuizVerdict *out)
{
    QuizVerdict v;
    memset(&v, 0, sizeof v);
    v.secs = secs;
    if (s->i >= s->n) {
        v.result = QV_AGAIN;
        v.chosen = -1;
        if (out) *out = v;
        return QV_AGAIN;
    }
    return late(s, secs, &v, out);
}

int quiz_session_next(QuizSession *s)
{
    if (s->i < s->n) s->i++;
    return s->i < s->n;
}
