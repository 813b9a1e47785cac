/* lessonex.c - the checked exercises of a lesson page: "@expect KIND VALUE"
 * (a typed answer, read and checked by the quiz's answer reader) and
 * "@do WHAT ARG" (an action on the page's picture, confirmed when done);
 * and the configuration notice of a page that changes the configuration.
 * Format: lessons/README.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/lesson.h"
#include "content/quiz.h"

const char *const lesson_expect_names[LE_COUNT] = {"", "shape", "strides", "number"};
const char *const lesson_do_names[LD_COUNT] = {"", "heads", "kv_heads", "seq", "inspect"};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

/* The first word of args (up to a blank) into w; returns what follows it. */
static const char *first_word(const char *args, char *w, size_t n)
{
    size_t k = 0;
    while (*args && *args != ' ' && *args != '\t') {
        if (k + 1 < n) w[k++] = *args;
        args++;
    }
    w[k] = 0;
    while (*args == ' ' || *args == '\t')
        args++;
    return args;
}

static int name_index(const char *w, const char *const *names, int n)
{
    for (int i = 1; i < n; i++)
        if (!strcmp(w, names[i])) return i;
    return 0;
}

int lesson_parse_expect(LessonPage *pg, const char *args, char *err, size_t errlen)
{
    char w[32];
    const char *value = first_word(args, w, sizeof w);
    int k = name_index(w, lesson_expect_names, LE_COUNT);
    if (!k || !*value) {
        snprintf(err, errlen,
                 "@expect: expected 'shape|strides|number VALUE', e.g. @expect shape "
                 "{shape Q_heads}; got '%.40s'",
                 args);
        return -1;
    }
    free(pg->expect_value);
    pg->expect_value = dup_str(value);
    pg->expect = (LessonExpect)k;
    return pg->expect_value ? 0 : (snprintf(err, errlen, "out of memory"), -1);
}

/* "0,1,2,3" -> idx (up to 4 numbers); 0 or -1. */
static int parse_index(const char *s, int *idx)
{
    int n = 0;
    memset(idx, 0, 4 * sizeof *idx);
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 0 || v > 100000 || n == 4) return -1;
        idx[n++] = (int)v;
        s = end;
        if (!*s) return 0;
        if (*s++ != ',') return -1;
    }
}

int lesson_parse_do(LessonPage *pg, const char *args, char *err, size_t errlen)
{
    char w[32];
    const char *arg = first_word(args, w, sizeof w);
    int k = name_index(w, lesson_do_names, LD_COUNT);
    int idx[4];
    if (!k || parse_index(arg, idx) != 0 || (k != LD_INSPECT && strchr(arg, ','))) {
        snprintf(err, errlen,
                 "@do: expected 'heads N', 'kv_heads N', 'seq N' or 'inspect i,j,k,l'; got "
                 "'%.40s'",
                 args);
        return -1;
    }
    pg->todo = (LessonDo)k;
    memcpy(pg->do_arg, idx, sizeof idx);
    return 0;
}

int lesson_config_next(MhaConfig *c, LessonDo knob)
{
    switch (knob) {
    case LD_HEADS:
        mha_config_next(c, MHA_NEXT_HEADS);
        return 0;
    case LD_KV_HEADS:
        mha_config_next(c, MHA_NEXT_KV_HEADS);
        return 0;
    case LD_SEQ:
        mha_config_next(c, MHA_NEXT_SEQ);
        return 0;
    default:
        return -1;
    }
}

int lesson_do_value(const LessonPage *pg, const MhaConfig *c)
{
    return pg->todo == LD_HEADS ? c->heads : pg->todo == LD_KV_HEADS ? c->kv_heads : c->seq;
}

int lesson_do_target(const LessonPage *pg, MhaConfig *target)
{
    if (pg->todo == LD_NONE || pg->todo == LD_INSPECT) return -1;
    /* What the learner reaches by pressing the key: at most a full cycle. */
    MhaConfig c = pg->cfg;
    for (int i = 0; i < 1000 && lesson_do_value(pg, &c) != pg->do_arg[0]; i++)
        lesson_config_next(&c, pg->todo);
    if (lesson_do_value(pg, &c) != pg->do_arg[0]) return -1;
    *target = c;
    return 0;
}

int lesson_do_reached(const LessonPage *pg, const MhaConfig *live, const int *cur)
{
    if (pg->todo == LD_INSPECT) return cur && !memcmp(cur, pg->do_arg, sizeof pg->do_arg);
    return pg->todo != LD_NONE && lesson_do_value(pg, live) == pg->do_arg[0];
}

/* The expected value as a quiz question of the kind, for quiz_check.  The
 * engine writes big numbers with commas ("524,288"): read as one number. */
static int expect_question(LessonExpect kind, const char *value, QuizQuestion *q, char *err,
                           size_t errlen)
{
    char plain[QUIZ_ANSWER_MAX];
    size_t k = 0;
    for (const char *s = value; *s && k + 1 < sizeof plain; s++)
        if (kind != LE_NUMBER || *s != ',') plain[k++] = *s;
    plain[k] = 0;
    QuizAnswer a;
    memset(q, 0, sizeof *q);
    int want = kind == LE_NUMBER ? QA_NUMBER : QA_TUPLE;
    if (quiz_parse_answer(plain, &a) != 0 || a.kind != want) {
        snprintf(err, errlen, "@expect %s: '%.60s' does not read as %s", lesson_expect_names[kind],
                 value, kind == LE_NUMBER ? "a whole number" : "a tuple like (1, 2, 4, 4)");
        return -1;
    }
    if (kind == LE_NUMBER) {
        q->kind = QK_NUMBER;
        q->number = a.number;
    } else {
        q->kind = QK_TUPLE;
        q->n_tuple = a.n;
        memcpy(q->tuple, a.v, sizeof q->tuple);
    }
    return 0;
}

int lesson_expect_valid(LessonExpect kind, const char *value, char *err, size_t errlen)
{
    QuizQuestion *q = malloc(sizeof *q);
    if (!q) return snprintf(err, errlen, "out of memory"), -1;
    int r = expect_question(kind, value, q, err, errlen);
    free(q);
    return r;
}

/* What is off in a wrong answer, without giving it away: the count of
 * numbers, which of them differ, or too high / too low. */
static void wrong_why(const QuizQuestion *q, const char *typed, char *why, size_t n)
{
    QuizAnswer a;
    char plain[QUIZ_ANSWER_MAX];
    size_t k = 0;
    for (const char *s = typed; *s && k + 1 < sizeof plain; s++)
        if (q->kind != QK_NUMBER || (*s != ',' && *s != '_')) plain[k++] = *s;
    plain[k] = 0;
    if (quiz_parse_answer(plain, &a) != 0) return;
    if (q->kind == QK_NUMBER && a.kind == QA_NUMBER) {
        snprintf(why, n, "%lld is too %s", a.number, a.number > q->number ? "high" : "low");
    } else if (q->kind == QK_TUPLE && a.kind == QA_TUPLE && a.n != q->n_tuple) {
        snprintf(why, n, "you typed %d numbers; the answer has %d", a.n, q->n_tuple);
    } else if (q->kind == QK_TUPLE && a.kind == QA_TUPLE) {
        int pos[QUIZ_MAX_TUPLE], np = 0;
        for (int i = 0; i < a.n; i++)
            if (a.v[i] != q->tuple[i]) pos[np++] = i + 1;
        size_t o = (size_t)snprintf(why, n, "off at position%s", np > 1 ? "s" : "");
        for (int i = 0; i < np && o < n; i++) /* "2", "2 and 3", "1, 2 and 4" */
            o += (size_t)snprintf(why + o, n - o, "%s%d",
                                  i == 0        ? " "
                                  : i == np - 1 ? " and "
                                                : ", ",
                                  pos[i]);
    }
}

int lesson_expect_check(LessonExpect kind, const char *value, const char *typed, char *why,
                        size_t whylen)
{
    QuizQuestion *q = malloc(sizeof *q);
    if (!q) return snprintf(why, whylen, "out of memory"), -1;
    int r = expect_question(kind, value, q, why, whylen);
    if (r == 0) {
        why[0] = 0;
        r = quiz_check(q, typed, NULL, why, whylen);
        if (r == 0) wrong_why(q, typed, why, whylen);
    }
    free(q);
    return r;
}

char *lesson_config_diff(const MhaConfig *a, const MhaConfig *b, char *buf, size_t n)
{
    const struct {
        const char *name;
        long x, y;
    } f[] = {
        {"batch", a->batch, b->batch},
        {"seq", a->seq, b->seq},
        {"d_model", a->d_model, b->d_model},
        {"heads", a->heads, b->heads},
        {"d_head", a->heads ? a->d_model / a->heads : 0, b->heads ? b->d_model / b->heads : 0},
        {"kv_heads", a->kv_heads, b->kv_heads},
        {"causal", a->causal, b->causal},
        {"seed", (long)a->seed, (long)b->seed},
    };
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof f / sizeof *f && o < n; i++)
        if (f[i].x != f[i].y)
            o += (size_t)snprintf(buf + o, n - o, "%s%s %ld -> %ld", o ? ", " : "", f[i].name,
                                  f[i].x, f[i].y);
    return buf;
}
