/* quiz_history.c - quiz scores kept between runs, beside the lesson progress.
 *
 * File "quiz-history" in the state dir (state.h: atomic replace), text:
 *   # mhaviz quiz history v1
 *   topic shapes 17 12          asked, right over all sessions
 *   miss 3 g:bugs:0123456789abcdef   times missed (net of later right answers), id
 */
#include "content/quiz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/state.h"

#define HISTORY_FILE "quiz-history"
#define HISTORY_MAX_COUNT 100000000 /* larger counts in the file are a hand edit: ignored */

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

static QuizMiss *find_miss(QuizHistory *h, const char *id)
{
    for (int i = 0; i < h->n; i++)
        if (!strcmp(h->miss[i].id, id)) return &h->miss[i];
    return NULL;
}

static QuizMiss *add_miss(QuizHistory *h, const char *id)
{
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 32;
        QuizMiss *v = realloc(h->miss, sizeof *v * (size_t)cap);
        if (!v) return NULL;
        h->miss = v;
        h->cap = cap;
    }
    QuizMiss *m = &h->miss[h->n++];
    snprintf(m->id, sizeof m->id, "%s", id);
    m->count = 0;
    return m;
}

int quiz_history_load(QuizHistory *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    char *text = NULL;
    size_t len = 0;
    int rc = state_read(HISTORY_FILE, &text, &len, err, errlen);
    if (rc < 0) return -1;
    if (rc == 1 || !text) return 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[32], id[64];
        int a, r, c;
        if (sscanf(line, "topic %31s %d %d", name, &a, &r) == 3) {
            int t = quiz_topic_index(name);
            if (t >= 0 && a >= 0 && r >= 0 && r <= a && a <= HISTORY_MAX_COUNT) /* room to add to */
                h->total.asked[t] = a, h->total.right[t] = r;
        } else if (sscanf(line, "miss %d %63s", &c, id) == 2 && c > 0 && c <= HISTORY_MAX_COUNT &&
                   !find_miss(h, id)) {
            QuizMiss *m = add_miss(h, id);
            if (m) m->count = c;
        }
    }
    free(text);
    return 0;
}

void quiz_history_record(QuizHistory *h, const QuizQuestion *q, int right)
{
    quiz_score_add(&h->total, q->topic, right);
    QuizMiss *m = find_miss(h, q->id);
    if (!right) {
        if (!m) m = add_miss(h, q->id);
        if (m) m->count++;
    } else if (m && --m->count <= 0) {
        *m = h->miss[--h->n];
    }
}

void quiz_history_skip(QuizHistory *h, const QuizQuestion *q)
{
    QuizMiss *m = find_miss(h, q->id);
    if (!m) m = add_miss(h, q->id);
    if (m) m->count++;
}

int quiz_history_save(const QuizHistory *h, char *err, size_t errlen)
{
    size_t cap = 256 + (size_t)QT_COUNT * 64 + (size_t)h->n * 96, l = 0;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "quiz history: out of memory");
        return -1;
    }
    l += (size_t)snprintf(buf + l, cap - l, "# mhaviz quiz history v1\n");
    for (int t = 0; t < QT_COUNT; t++)
        if (h->total.asked[t])
            l += (size_t)snprintf(buf + l, cap - l, "topic %s %d %d\n", quiz_topic_names[t], h->total.asked[t],
                                  h->total.right[t]);
    for (int i = 0; i < h->n; i++)
        if (h->miss[i].count > 0) l += (size_t)snprintf(buf + l, cap - l, "miss %d %s\n", h->miss[i].count, h->miss[i].id);
    int rc = state_write(HISTORY_FILE, buf, l, err, errlen);
    free(buf);
    return rc;
}

void quiz_history_free(QuizHistory *h)
{
    free(h->miss);
    memset(h, 0, sizeof *h);
}

int quiz_history_review(const QuizHistory *h, char (*ids)[64], int max)
{
    int n = 0;
    char *taken = h->n ? calloc((size_t)h->n, 1) : NULL;
    if (h->n && !taken) return 0;
    while (n < max) {
        int best = -1;
        for (int i = 0; i < h->n; i++)
            if (!taken[i] && h->miss[i].count > 0 && (best < 0 || h->miss[i].count > h->miss[best].count)) best = i;
        if (best < 0) break;
        taken[best] = 1;
        snprintf(ids[n++], 64, "%s", h->miss[best].id);
    }
    free(taken);
    return n;
}

static int pct(int right, int asked)
{
    return asked ? (int)((100LL * right + asked / 2) / asked) : 0; /* 100 * 1e8 > INT_MAX */
}

void quiz_summary(const QuizScore *s, const QuizHistory *h, char *buf, size_t n)
{
    int asked = 0, right = 0, skipped = 0;
    size_t l = 0;
#define PUT(...)                                                                                                      \
    do {                                                                                                              \
        if (l < n) l += (size_t)snprintf(buf + l, n - l, __VA_ARGS__);                                                \
    } while (0)
    buf[0] = 0;
    for (int t = 0; t < QT_COUNT; t++) asked += s->asked[t], right += s->right[t], skipped += s->skipped[t];
    if (!asked && !skipped) {
        PUT("No questions answered.\n");
        return;
    }
    if (!asked) PUT("No questions answered, %d skipped.\n", skipped);
    else if (skipped) PUT("Score: %d/%d (%d%%), %d skipped\n", right, asked, pct(right, asked), skipped);
    else PUT("Score: %d/%d (%d%%)\n", right, asked, pct(right, asked));
    for (int t = 0; t < QT_COUNT; t++) {
        if (!s->asked[t] && !s->skipped[t]) continue;
        PUT("  %-9s %d/%d", quiz_topic_names[t], s->right[t], s->asked[t]);
        if (s->skipped[t]) PUT(", %d skipped", s->skipped[t]);
        if (h && h->total.asked[t])
            PUT("   (all sessions: %d/%d, %d%%)", h->total.right[t], h->total.asked[t],
                pct(h->total.right[t], h->total.asked[t]));
        PUT("\n");
    }
    /* weak: under 70% of the answers this session (a skip is no answer, so
     * it never makes a topic weak), or over all sessions; a topic only
     * skipped is named apart */
    char rev[200] = "", skp[200] = "";
    size_t rl = 0, kl = 0;
    for (int t = 0; t < QT_COUNT; t++) {
        int weak = s->asked[t] && pct(s->right[t], s->asked[t]) < 70;
        if (h && h->total.asked[t] >= 3 && pct(h->total.right[t], h->total.asked[t]) < 70) weak = 1;
        if (weak && rl < sizeof rev)
            rl += (size_t)snprintf(rev + rl, sizeof rev - rl, "%s%s", rl ? ", " : "", quiz_topic_names[t]);
        else if (!weak && s->skipped[t] && kl < sizeof skp)
            kl += (size_t)snprintf(skp + kl, sizeof skp - kl, "%s%s", kl ? ", " : "", quiz_topic_names[t]);
    }
    if (rev[0]) PUT("Revisit: %s  (mhaviz quiz --topic NAME; --review asks the ones you missed)\n", rev);
    else if (asked) PUT("Nothing to revisit: every topic answered at 70%% or better.\n");
    if (skp[0]) PUT("Skipped, not scored: %s  (skips do not count as weak)\n", skp);
#undef PUT
}
