/* lessontext.c - a lesson page's text with its {expressions} filled in from
 * the run of the page's configuration (lessonvar.c evaluates them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "content/lesson.h"

void lesson_text_free(LessonPageText *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->blocks[i]);
        if (t->shapes) free(t->shapes[i]);
    }
    free(t->blocks);
    free(t->shapes);
    free(t->question);
    free(t->answer);
    free(t->expect);
    free(t->notice);
    free(t->hint);
    free(t->stmt);
    free(t->ref);
    free(t->result);
    memset(t, 0, sizeof *t);
}

/* Expands one string into a new buffer; NULL with err = "file:line: ...". */
static char *expand_one(const Lesson *l, int line, const char *text, const Mha *m,
                        const PresetList *presets, char *err, size_t errlen)
{
    char *buf = malloc(LESSON_EXPANDED_MAX);
    char e[300];
    if (!buf) {
        err_at(err, errlen, l->path, line, "out of memory");
        return NULL;
    }
    if (lesson_expand(text, m, presets, buf, LESSON_EXPANDED_MAX, e, sizeof e) != 0) {
        err_at(err, errlen, l->path, line, "%s", e);
        free(buf);
        return NULL;
    }
    char *shrunk = realloc(buf, strlen(buf) + 1);
    return shrunk ? shrunk : buf;
}

/* A page's answer; a @do heads/kv_heads/seq page's confirms what the learner
 * did, so it is expanded against the configuration the @do asks for. */
static char *expand_answer(const Lesson *l, const LessonPage *pg, const Mha *m,
                           const PresetList *presets, char *err, size_t errlen)
{
    MhaConfig target;
    if (lesson_do_target(pg, &target) != 0)
        return expand_one(l, pg->answer_line, pg->answer, m, presets, err, errlen);
    char e[300];
    Mha *done = mha_run(&target, e, sizeof e);
    if (!done) {
        err_at(err, errlen, l->path, pg->do_line, "@do: %s", e);
        return NULL;
    }
    char *s = expand_one(l, pg->answer_line, pg->answer, done, presets, err, errlen);
    mha_free(done);
    return s;
}

/* "" or the configuration change page p makes, from the page before it (the
 * first page: from the defaults every lesson starts from). */
static char *config_notice(const Lesson *l, int p)
{
    MhaConfig before = p > 0 ? l->pages[p - 1].cfg : mha_config_default();
    char diff[200], buf[260] = "";
    if (lesson_config_diff(&before, &l->pages[p].cfg, diff, sizeof diff)[0])
        snprintf(buf, sizeof buf, "This page's configuration: %s.", diff);
    size_t n = strlen(buf) + 1;
    char *s = malloc(n);
    if (s) memcpy(s, buf, n);
    return s;
}

/* A @predict page: its lines expanded and run by the engine.  1, or 0 with
 * err set. */
static int predict_text(const Lesson *l, const LessonPage *pg, const Mha *m,
                        const PresetList *presets, LessonPageText *t, char *err, size_t errlen)
{
    t->stmt = expand_one(l, pg->predict_line, pg->predict_stmt, m, presets, err, errlen);
    if (!t->stmt) return 0;
    if (pg->predict_ref &&
        !(t->ref = expand_one(l, pg->predict_line, pg->predict_ref, m, presets, err, errlen)))
        return 0;
    char shown[600];
    t->outcome = lesson_predict_run(t->stmt, t->ref, m, shown, sizeof shown);
    size_t n = strlen(shown) + 1;
    if (!(t->result = malloc(n))) {
        err_at(err, errlen, l->path, pg->predict_line, "out of memory");
        return 0;
    }
    memcpy(t->result, shown, n);
    return 1;
}

/* A "which cell moves" page: its statement expanded and followed by the
 * engine; its typed answer is what the engine found.  1, or 0 with err. */
static int moves_text(const Lesson *l, const LessonPage *pg, const Mha *m,
                      const PresetList *presets, LessonPageText *t, char *err, size_t errlen)
{
    char *from = expand_one(l, pg->predict_line, pg->moves_from, m, presets, err, errlen);
    t->stmt = expand_one(l, pg->predict_line, pg->predict_stmt, m, presets, err, errlen);
    char shown[600], answer[96];
    int r = from && t->stmt ? lesson_moves_run(t->stmt, from, pg->expect, m, answer, sizeof answer,
                                               shown, sizeof shown)
                            : -2;
    free(from);
    if (r == -2) return 0;
    if (r < 0) {
        err_at(err, errlen, l->path, pg->predict_line, "@predict %s: %s",
               pg->expect == LE_INDEX ? "index" : "offset", shown);
        return 0;
    }
    t->result = malloc(strlen(shown) + 1);
    t->expect = malloc(strlen(answer) + 1);
    if (!t->result || !t->expect) {
        err_at(err, errlen, l->path, pg->predict_line, "out of memory");
        return 0;
    }
    memcpy(t->result, shown, strlen(shown) + 1);
    memcpy(t->expect, answer, strlen(answer) + 1);
    return 1;
}

/* A runnable block's shapes (lesson_code_run on its expanded text), or
 * NULL with "file:line: NameError: ..." in err: the line inside the file. */
static char *run_code(const Lesson *l, const LessonBlock *b, const char *code, const Mha *m,
                      char *err, size_t errlen)
{
    char why[400];
    size_t n = strlen(code) + 64 * 64; /* a shape a line, each short */
    char *shapes = malloc(n);
    if (!shapes) {
        err_at(err, errlen, l->path, b->line, "out of memory");
        return NULL;
    }
    int bad = lesson_code_run(code, m, shapes, n, why, sizeof why);
    if (bad) {
        err_at(err, errlen, l->path, b->line + bad, "%s", why);
        free(shapes);
        return NULL;
    }
    return shapes;
}

int lesson_page_errors(const Lesson *l, int p, const Mha *m, const PresetList *presets,
                       LessonErrors *errs)
{
    const LessonPage *pg = &l->pages[p];
    int n = 0;
    for (int i = 0; i < pg->nblocks; i++)
        n +=
            lesson_expand_errors(pg->blocks[i].text, m, presets, l->path, pg->blocks[i].line, errs);
    if (pg->question)
        n += lesson_expand_errors(pg->question, m, presets, l->path, pg->question_line, errs);
    if (pg->expect && !pg->moves)
        n += lesson_expand_errors(pg->expect_value, m, presets, l->path, pg->expect_line, errs);
    if (pg->moves) {
        n += lesson_expand_errors(pg->predict_stmt, m, presets, l->path, pg->predict_line, errs);
        n += lesson_expand_errors(pg->moves_from, m, presets, l->path, pg->predict_line, errs);
    }
    if (pg->hint) n += lesson_expand_errors(pg->hint, m, presets, l->path, pg->hint_line, errs);
    if (pg->predict) {
        n += lesson_expand_errors(pg->predict_stmt, m, presets, l->path, pg->predict_line, errs);
        if (pg->predict_ref)
            n += lesson_expand_errors(pg->predict_ref, m, presets, l->path, pg->predict_line, errs);
    }
    if (pg->answer) { /* against the run expand_answer uses */
        MhaConfig target;
        char e[300];
        Mha *done = lesson_do_target(pg, &target) == 0 ? mha_run(&target, e, sizeof e) : NULL;
        if (lesson_do_target(pg, &target) == 0 && !done) {
            char msg[sizeof errs->msg[0]];
            err_at(msg, sizeof msg, l->path, pg->do_line, "@do: %s", e);
            lesson_error_add(errs, msg);
            n++;
        } else
            n += lesson_expand_errors(pg->answer, done ? done : m, presets, l->path,
                                      pg->answer_line, errs);
        mha_free(done);
    }
    return n;
}

int lesson_page_text(const Lesson *l, int p, const Mha *m, const PresetList *presets,
                     LessonPageText *t, char *err, size_t errlen)
{
    const LessonPage *pg = &l->pages[p];
    memset(t, 0, sizeof *t);
    t->blocks = calloc((size_t)pg->nblocks + 1, sizeof *t->blocks);
    if (!t->blocks) {
        err_at(err, errlen, l->path, pg->line, "out of memory");
        return -1;
    }
    t->shapes = calloc((size_t)pg->nblocks + 1, sizeof *t->shapes);
    if (!t->shapes) {
        err_at(err, errlen, l->path, pg->line, "out of memory");
        goto fail;
    }
    for (int i = 0; i < pg->nblocks; i++) {
        t->blocks[i] =
            expand_one(l, pg->blocks[i].line, pg->blocks[i].text, m, presets, err, errlen);
        if (!t->blocks[i]) goto fail;
        t->n++;
        if (pg->blocks[i].run &&
            !(t->shapes[i] = run_code(l, &pg->blocks[i], t->blocks[i], m, err, errlen)))
            goto fail;
    }
    if (pg->question &&
        !(t->question = expand_one(l, pg->question_line, pg->question, m, presets, err, errlen)))
        goto fail;
    if (pg->answer && !(t->answer = expand_answer(l, pg, m, presets, err, errlen))) goto fail;
    if (pg->expect && !pg->moves &&
        !(t->expect = expand_one(l, pg->expect_line, pg->expect_value, m, presets, err, errlen)))
        goto fail;
    if (pg->moves && !moves_text(l, pg, m, presets, t, err, errlen)) goto fail;
    if (pg->hint && !(t->hint = expand_one(l, pg->hint_line, pg->hint, m, presets, err, errlen)))
        goto fail;
    if (pg->predict && !predict_text(l, pg, m, presets, t, err, errlen)) goto fail;
    if (!(t->notice = config_notice(l, p))) {
        err_at(err, errlen, l->path, pg->line, "out of memory");
        goto fail;
    }
    return 0;
fail:
    lesson_text_free(t);
    return -1;
}
