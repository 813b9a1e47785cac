/* lessonex.c - the checked exercises of a lesson page: "@expect KIND VALUE"
 * (a typed answer, read and checked by the quiz's answer reader) and
 * "@do WHAT ARG" (an action on the page's picture, confirmed when done);
 * and the configuration notice of a page that changes the configuration.
 * Format: lessons/README.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmtfloat.h"
#include "base/textutil.h"
#include "content/content.h"
#include "content/lesson.h"
#include "content/quiz.h"
#include "engine/play.h"

const char *const lesson_expect_names[LE_COUNT] = {"", "shape", "strides", "number", "index"};
const char *const lesson_do_names[LD_COUNT] = {"", "heads", "kv_heads", "seq", "inspect"};
const char *const lesson_predict_names[LP_COUNT] = {"", "wrong", "raises", "view", "copy"};
const char *const lesson_predict_words[LP_COUNT] = {"", "runs, silently wrong", "raises an error",
                                                    "right, a view (0 bytes)",
                                                    "right, but it copies"};

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
                 "@expect: expected 'shape|strides|number|index VALUE', e.g. @expect shape "
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

/* "@predict index|offset STATEMENT <- TENSOR[i,j,...]" (lesson.h). */
static int parse_moves(LessonPage *pg, LessonExpect kind, const char *stmt, char *err,
                       size_t errlen)
{
    const char *arrow = strstr(stmt, " <- ");
    const char *from = arrow ? arrow + 4 : NULL;
    if (!arrow || arrow == stmt || !from[0] || !strchr(from, '[') ||
        from[strlen(from) - 1] != ']') {
        snprintf(err, errlen,
                 "@predict %s: expected '%s STATEMENT <- TENSOR[i,j,...]', e.g. @predict index "
                 "Q_split.transpose(1, 2) <- Q_split[0,2,1,3]",
                 kind == LE_INDEX ? "index" : "offset", kind == LE_INDEX ? "index" : "offset");
        return -1;
    }
    size_t n = (size_t)(arrow - stmt);
    char *st = malloc(n + 1), *fr = dup_str(from);
    if (!st || !fr) {
        free(st);
        free(fr);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    memcpy(st, stmt, n);
    st[n] = 0;
    free(pg->predict_stmt);
    free(pg->moves_from);
    pg->predict_stmt = st;
    pg->moves_from = fr;
    pg->moves = 1;
    pg->expect = kind; /* typed, the value found by lesson_moves_run */
    return 0;
}

int lesson_parse_predict(LessonPage *pg, const char *args, char *err, size_t errlen)
{
    char w[32];
    const char *stmt = first_word(args, w, sizeof w);
    if (!strcmp(w, "index") || !strcmp(w, "offset"))
        return parse_moves(pg, w[0] == 'i' ? LE_INDEX : LE_NUMBER, stmt, err, errlen);
    int k = name_index(w, lesson_predict_names, LP_COUNT);
    const char *eq = NULL; /* the last " == ": the reference follows it */
    for (const char *s = strstr(stmt, " == "); s; s = strstr(s + 1, " == "))
        eq = s;
    if (!k || !*stmt || stmt == eq) {
        snprintf(err, errlen,
                 "@predict: expected 'wrong|raises|view|copy STATEMENT [== REFERENCE]' or "
                 "'index|offset STATEMENT <- TENSOR[i,j,...]', e.g. "
                 "@predict wrong Q.view(1, 2, 4, 4) == Q_heads; got '%.40s'",
                 args);
        return -1;
    }
    if (k != LP_RAISES && (!eq || !eq[4])) {
        snprintf(err, errlen,
                 "@predict %s: give what it should equal, 'STATEMENT == REFERENCE' (the engine "
                 "compares their values)",
                 lesson_predict_names[k]);
        return -1;
    }
    size_t n = eq ? (size_t)(eq - stmt) : strlen(stmt);
    char *st = malloc(n + 1), *ref = eq ? dup_str(eq + 4) : NULL;
    if (!st || (eq && !ref)) {
        free(st);
        free(ref);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    memcpy(st, stmt, n);
    st[n] = 0;
    free(pg->predict_stmt);
    free(pg->predict_ref);
    pg->predict_stmt = st;
    pg->predict_ref = ref;
    pg->predict = (LessonPredict)k;
    return 0;
}

/* "shape (1, 2, 4, 4), strides (32, 16, 4, 1): a view, 0 bytes copied" */
static size_t describe(const PlayResult *r, char *buf, size_t n)
{
    char dims[80], strides[120];
    tensor_fmt_dims(dims, sizeof dims, r->t->ndim, r->t->shape);
    tensor_fmt_strides(strides, sizeof strides, r->t);
    int w = snprintf(buf, n, "shape %s, strides %s: %s, %zu bytes copied", dims, strides,
                     r->memory == PM_VIEW ? "a view" : "a copy", r->copied_bytes);
    return w < 0 ? 0 : (size_t)w < n ? (size_t)w : n - 1;
}

/* The first logical element where a and b differ (same shape), its index in
 * idx; -1 when none. */
static long first_diff(const Tensor *a, const Tensor *b, int *idx)
{
    size_t numel = tensor_numel(a);
    float *x = malloc(numel * sizeof *x), *y = malloc(numel * sizeof *y);
    long at = -1;
    if (x && y) {
        tensor_to_array(a, x);
        tensor_to_array(b, y);
        for (size_t i = 0; i < numel && at < 0; i++)
            if (x[i] != y[i]) at = (long)i;
    }
    for (int d = a->ndim - 1, rest = (int)(at < 0 ? 0 : at); d >= 0; d--) {
        idx[d] = rest % a->shape[d];
        rest /= a->shape[d];
    }
    free(x);
    free(y);
    return at;
}

LessonPredict lesson_predict_run(const char *stmt, const char *ref, const Mha *m, char *shown,
                                 size_t n)
{
    Play *pl = mha_play_new(m);
    if (pl) pl->torch_names = content_pytorch_names();
    PlayResult *r = calloc(2, sizeof *r);
    LessonPredict out = LP_NONE;
    shown[0] = 0;
    if (!pl || !r) {
        snprintf(shown, n, "out of memory");
        goto done;
    }
    play_eval(pl, stmt, &r[0]);
    if (r[0].kind == PR_ERROR) {
        if (r[0].error_col >= 0)
            snprintf(shown, n, "the playground cannot parse '%.80s': %.200s", stmt, r[0].error);
        else
            snprintf(shown, n, "raises: %.300s", r[0].error), out = LP_RAISES;
        goto done;
    }
    if (r[0].kind != PR_TENSOR) {
        snprintf(shown, n, "'%.80s' is not a tensor", stmt);
        goto done;
    }
    size_t o = describe(&r[0], shown, n);
    out = r[0].memory == PM_VIEW ? LP_VIEW : LP_COPY;
    if (!ref) goto done;
    if (play_eval(pl, ref, &r[1]) != PR_TENSOR) {
        snprintf(shown, n, "the reference '%.80s' does not run: %.200s", ref,
                 r[1].kind == PR_ERROR ? r[1].error : "not a tensor");
        out = LP_NONE;
        goto done;
    }
    const Tensor *a = r[0].t, *b = r[1].t;
    int idx[TENSOR_MAXDIM] = {0};
    long at = -1;
    if (a->ndim != b->ndim || memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof *a->shape)) {
        char want[80];
        tensor_fmt_dims(want, sizeof want, b->ndim, b->shape);
        snprintf(shown + o, n - o, "; %.60s is %s", ref, want);
        out = LP_WRONG;
    } else if ((at = first_diff(a, b, idx)) >= 0) {
        char is[32], want[32], where[64];
        size_t w = 0;
        for (int d = 0; d < a->ndim; d++)
            w += (size_t)snprintf(where + w, sizeof where - w, "%s%d", d ? "," : "", idx[d]);
        fmtfloat_write(is, tensor_get(a, idx));
        fmtfloat_write(want, tensor_get(b, idx));
        snprintf(shown + o, n - o, "; element [%s] is %s where %.60s has %s", where, is, ref, want);
        out = LP_WRONG;
    } else
        snprintf(shown + o, n - o, "; the same values as %.60s", ref);
done:
    if (r) {
        play_result_clear(&r[0]);
        play_result_clear(&r[1]);
    }
    free(r);
    play_free(pl);
    return out;
}

/* "Q_split[0,2,1,3]" -> the tensor named so in pl and the index; NULL when
 * it is not an element of one of its tensors (why says so). */
static const Tensor *element_of(const Play *pl, const char *from, int *idx, char *why, size_t n)
{
    const char *br = strchr(from, '[');
    size_t len = br ? (size_t)(br - from) : 0;
    const Tensor *t = NULL;
    for (int i = 0; i < pl->n && !t; i++)
        if (len && strlen(pl->vars[i].name) == len && !strncmp(pl->vars[i].name, from, len))
            t = pl->vars[i].t;
    if (!t) {
        snprintf(why, n, "'%.60s' is not an element of a tensor of the run", from);
        return NULL;
    }
    int k = 0;
    for (const char *s = br + 1; k < TENSOR_MAXDIM;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || (k < t->ndim && v >= t->shape[k])) break;
        idx[k++] = (int)v;
        while (*end == ' ')
            end++;
        if (*end == ']' && !end[1] && k == t->ndim) return t;
        if (*end != ',') break;
        s = end + 1;
    }
    char dims[80];
    tensor_fmt_dims(dims, sizeof dims, t->ndim, t->shape);
    snprintf(why, n, "'%.60s' is not an element of %.*s %s", from, (int)len, from, dims);
    return NULL;
}

static void fmt_index(char *buf, size_t n, int ndim, const int *idx)
{
    long v[TENSOR_MAXDIM];
    for (int d = 0; d < ndim; d++)
        v[d] = idx[d];
    size_t o = (size_t)snprintf(buf, n, "(");
    for (int d = 0; d < ndim && o < n; d++)
        o += (size_t)snprintf(buf + o, n - o, "%s%ld", d ? ", " : "", v[d]);
    if (o < n) snprintf(buf + o, n - o, ")");
}

/* The storage offset of logical element i (row-major) of t. */
static size_t offset_at(const Tensor *t, size_t i, int *idx)
{
    for (int d = t->ndim - 1; d >= 0; d--) {
        idx[d] = (int)(i % (size_t)t->shape[d]);
        i /= (size_t)t->shape[d];
    }
    return tensor_offset_of(t, idx);
}

int lesson_moves_run(const char *stmt, const char *from, LessonExpect kind, const Mha *m,
                     char *answer, size_t answern, char *shown, size_t n)
{
    Play *pl = mha_play_new(m);
    if (pl) pl->torch_names = content_pytorch_names();
    PlayResult *r = calloc(2, sizeof *r);
    float *x = NULL, *y = NULL;
    int rc = -1, idx[TENSOR_MAXDIM] = {0};
    answer[0] = shown[0] = 0;
    if (!pl || !r) {
        snprintf(shown, n, "out of memory");
        goto done;
    }
    const Tensor *src = element_of(pl, from, idx, shown, n);
    if (!src) goto done;
    size_t at = tensor_offset_of(src, idx);
    float was = src->st->data[at];
    if (play_eval(pl, stmt, &r[0]) != PR_TENSOR) {
        snprintf(shown, n, "'%.80s' %s: %.300s", stmt,
                 r[0].kind == PR_ERROR ? "does not run" : "is not a tensor",
                 r[0].kind == PR_ERROR ? r[0].error : "");
        goto done;
    }
    /* the same tensor on a copy of its storage, the element changed there */
    Tensor *st = tensor_new_storage(pl->eng, src->st->n), *marked = NULL;
    if (st) {
        memcpy(st->st->data, src->st->data, src->st->n * sizeof *st->st->data);
        st->st->data[at] = was + 1024.0f;
        marked = tensor_restride(st, src->offset, src->ndim, src->shape, src->strides);
        tensor_free(st);
    }
    char name[PLAY_NAME_MAX];
    snprintf(name, sizeof name, "%.*s", (int)(strchr(from, '[') - from), from);
    if (!marked || play_set_tensor(pl, name, marked, PD_FLOAT32) < 0 ||
        play_eval(pl, stmt, &r[1]) != PR_TENSOR) {
        snprintf(shown, n, "out of memory");
        goto done;
    }
    const Tensor *a = r[0].t, *b = r[1].t;
    size_t numel = tensor_numel(a);
    x = malloc((numel + 1) * sizeof *x);
    y = malloc((numel + 1) * sizeof *y);
    if (!x || !y) {
        snprintf(shown, n, "out of memory");
        goto done;
    }
    tensor_to_array(a, x);
    tensor_to_array(b, y);
    size_t cells = 0, first = 0, off = 0;
    int offsets = 0, cell[TENSOR_MAXDIM];
    for (size_t i = 0; i < numel; i++) {
        if (x[i] == y[i]) continue;
        size_t o = offset_at(b, i, cell);
        if (!cells++)
            first = i, off = o, offsets = 1;
        else if (o != off)
            offsets++;
    }
    char dims[80], strides[120], where[64];
    tensor_fmt_dims(dims, sizeof dims, b->ndim, b->shape);
    tensor_fmt_strides(strides, sizeof strides, b);
    if (!cells) {
        snprintf(shown, n, "no element of '%.80s' (shape %s) comes from %.60s", stmt, dims, from);
        goto done;
    }
    offset_at(b, first, cell);
    fmt_index(where, sizeof where, b->ndim, cell);
    if (kind == LE_INDEX && cells > 1) {
        snprintf(shown, n, "%.60s is in %zu cells of '%.80s' (the first %s): ask for its offset",
                 from, cells, stmt, where);
        goto done;
    }
    if (kind == LE_NUMBER && offsets > 1) {
        snprintf(shown, n, "%.60s is at %d offsets of '%.80s': ask for its index", from, offsets,
                 stmt);
        goto done;
    }
    if (kind == LE_INDEX)
        snprintf(answer, answern, "%s", where);
    else
        snprintf(answer, answern, "%zu", off);
    int view = r[1].memory == PM_VIEW || r[1].memory == PM_SAME;
    size_t o = (size_t)snprintf(shown, n, "%.60s (offset %zu) is at %s", from, at, where);
    if (cells > 1 && o < n)
        o += (size_t)snprintf(shown + o, n - o, " and %zu more cell%s", cells - 1,
                              cells > 2 ? "s" : "");
    if (o < n)
        snprintf(shown + o, n - o, " of the result, shape %s, strides %s: %s, at offset %zu%s",
                 dims, strides, view ? "a view" : "a copy", off,
                 view ? (off == at ? " (a view moves no byte)" : "") : " of the new storage");
    rc = 0;
done:
    if (r) {
        play_result_clear(&r[0]);
        play_result_clear(&r[1]);
    }
    free(r);
    free(x);
    free(y);
    play_free(pl);
    return rc;
}

LessonCount lesson_count(const Lesson *l)
{
    LessonCount c = {0, 0, 0, 0};
    for (int p = 0; p < l->npages; p++) {
        const LessonPage *pg = &l->pages[p];
        c.typed += pg->expect != LE_NONE && !pg->moves;
        c.todo += pg->todo != LD_NONE;
        c.predict += pg->predict != LP_NONE || pg->moves;
        c.reveal += pg->question && !pg->expect && !pg->todo && !pg->predict;
    }
    return c;
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
 * numbers or which of them differ; of a number, only that it is not it
 * ("too high" would let the learner bisect). */
static void wrong_why(const QuizQuestion *q, LessonExpect kind, const char *typed, char *why,
                      size_t n)
{
    QuizAnswer a;
    char plain[QUIZ_ANSWER_MAX];
    size_t k = 0;
    for (const char *s = typed; *s && k + 1 < sizeof plain; s++)
        if (q->kind != QK_NUMBER || (*s != ',' && *s != '_')) plain[k++] = *s;
    plain[k] = 0;
    if (quiz_parse_answer(plain, &a) != 0) return;
    if (q->kind == QK_NUMBER && a.kind == QA_NUMBER) {
        snprintf(why, n, "%lld is not it", a.number); /* never "too high": that bisects */
    } else if (q->kind == QK_TUPLE && a.kind == QA_TUPLE && a.n != q->n_tuple) {
        snprintf(why, n, "you typed %d numbers; the answer has %d", a.n, q->n_tuple);
    } else if (q->kind == QK_TUPLE && a.kind == QA_TUPLE && kind == LE_INDEX) {
        /* where an element went: which coordinates are off would give it away */
        snprintf(why, n, "not where it is");
    } else if (q->kind == QK_TUPLE && a.kind == QA_TUPLE) {
        int pos[QUIZ_MAX_TUPLE], np = 0;
        for (int i = 0; i < a.n; i++)
            if (a.v[i] != q->tuple[i]) pos[np++] = i + 1;
        size_t o = (size_t)snprintf(why, n, "off at position%s", text_s(np));
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
        if (r == 0) wrong_why(q, kind, typed, why, whylen);
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
        {"window", a->window, b->window},
        {"seed", (long)a->seed, (long)b->seed},
    };
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof f / sizeof *f && o < n; i++)
        if (f[i].x != f[i].y)
            o += (size_t)snprintf(buf + o, n - o, "%s%s %ld -> %ld", o ? ", " : "", f[i].name,
                                  f[i].x, f[i].y);
    if (a->rope != b->rope && o < n)
        o += (size_t)snprintf(buf + o, n - o, "%srope %s -> %s", o ? ", " : "",
                              rope_layout_name(a->rope), rope_layout_name(b->rope));
    if (a->rope_theta != b->rope_theta && o < n) /* a theta is read only with RoPE on */
        snprintf(buf + o, n - o, "%srope_theta %g -> %g", o ? ", " : "", a->rope_theta,
                 b->rope_theta);
    return buf;
}
