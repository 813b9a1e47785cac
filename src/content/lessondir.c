/* lessondir.c - the lesson directives: one table of rows (name, whether it
 * needs a @page, what value it takes, its handler) and the handlers (@config
 * through content/config_kv.c).  content/lesson.c hands each "@name args" line
 * to lessonparse_directive; the "unknown directive" suggestion and
 * lessons/README.md's table follow the table.
 */
#include "content/lesson.h"
#include "content/lessonparse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "content/config_kv.h"

/* The directives (their table is after their handlers). */
enum {
    D_TITLE,
    D_SUMMARY,
    D_PAGE,
    D_CONFIG,
    D_STEP,
    D_VIEW,
    D_INSPECT,
    D_SINGLE,
    D_QUESTION,
    D_ANSWER,
    D_HIGHLIGHT,
    D_CODE,
    D_END,
    D_SHOW,
    D_EXPECT,
    D_DO,
    D_PREDICT,
    D_HINT,
    D_COUNT
};

/* Step keys as mha.c names them; only used to suggest a spelling (the engine's
 * mha_step_index decides what is valid). */
static const char *const step_keys[] = {"input",      "project", "split",    "heads",
                                        "scores",     "softmax", "weighted", "back",
                                        "contiguous", "concat",  "output",   "rope"};

/* The scene's views, then our own picture: the variants panel. */
static const char *const view_names[MV_COUNT + 1] = {"step", "wrong_view", "no_scale", "variants"};

/* "@config heads=4 kv_heads=2": updates *cfg (content/config_kv.c reads
 * each word); errors name the line, every bad word its own. */
static void parse_config(Parser *p, int line, char *args, MhaConfig *cfg)
{
    MhaConfig c = *cfg;
    int kv_given = 0, any = 0, bad = 0;
    char *save = NULL, err[300], keys[200];
    for (char *tok = strtok_r(args, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        any = 1;
        if (config_kv_set(&c, tok, &kv_given, err, sizeof err) != 0) {
            lessonparse_error(p->errs, p->file, line, "@config: %s", err);
            bad = 1;
        }
    }
    if (!any) {
        lessonparse_error(p->errs, p->file, line, "@config needs key=value pairs (keys: %s)",
                          config_kv_keys(keys, sizeof keys));
        return;
    }
    config_kv_finish(&c, cfg, kv_given);
    if (bad) return;
    if (mha_config_check(&c, err, sizeof err) != 0) {
        lessonparse_error(p->errs, p->file, line, "@config: %s", err);
        return;
    }
    *cfg = c;
}

static void new_page(Parser *p, int line, const char *title)
{
    Lesson *l = p->l;
    if (l->npages >= LESSON_MAX_PAGES) {
        lessonparse_error(p->errs, p->file, line, "more than %d pages", LESSON_MAX_PAGES);
        p->page = NULL;
        return;
    }
    LessonPage *np = realloc(l->pages, (size_t)(l->npages + 1) * sizeof *np);
    if (!np) {
        p->oom = 1;
        return;
    }
    l->pages = np;
    LessonPage *pg = &l->pages[l->npages++];
    memset(pg, 0, sizeof *pg);
    pg->title = xstrdup(title);
    pg->line = line;
    pg->cfg = p->base;
    pg->cfg_line = p->base_line;
    pg->step = MS_INPUT;
    pg->view = MV_STEP;
    p->page = pg;
    if (!pg->title) p->oom = 1;
}

/* "@inspect i,j,k,l": the page's inspect cursor. */
static void set_inspect(Parser *p, int line, const char *args)
{
    LessonPage *pg = p->page;
    int idx[4] = {0, 0, 0, 0}, n = 0;
    const char *s = args;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || v < 0 || v > 100000 || n == 4) {
            lessonparse_error(p->errs, p->file, line,
                              "@inspect: expected up to 4 indices like 0,1,2,3, got '%.40s'", args);
            return;
        }
        idx[n++] = (int)v;
        s = end;
        while (*s == ' ')
            s++;
        if (!*s) break;
        if (*s != ',') {
            lessonparse_error(p->errs, p->file, line,
                              "@inspect: expected up to 4 indices like 0,1,2,3, got '%.40s'", args);
            return;
        }
        s++;
    }
    pg->inspect = 1;
    memcpy(pg->cur, idx, sizeof idx);
    pg->inspect_line = line;
}

/* "@question TEXT" (once per page) or "@answer TEXT" (after it, once). */
static void question_answer(Parser *p, int line, int is_answer, const char *args)
{
    LessonPage *pg = p->page;
    if (!is_answer) {
        if (pg->question) {
            lessonparse_error(p->errs, p->file, line,
                              "a page has one @question (this page's is on line %d)",
                              pg->question_line);
            return;
        }
        pg->question = xstrdup(args);
        pg->question_line = line;
        return;
    }
    if (!pg->question) {
        lessonparse_error(p->errs, p->file, line,
                          "@answer without a @question before it on this page");
        return;
    }
    if (pg->answer) {
        lessonparse_error(p->errs, p->file, line, "@answer given twice on this page");
        return;
    }
    pg->answer = xstrdup(args);
    pg->answer_line = line;
}

/* "@expect KIND VALUE", "@do WHAT ARG" or "@predict OUTCOME STATEMENT":
 * after the page's @question, one exercise per page. */
static void exercise(Parser *p, int line, int d, const char *args)
{
    LessonPage *pg = p->page;
    const char *name = d == D_DO ? "@do" : d == D_PREDICT ? "@predict" : "@expect";
    char err[240];
    if (!pg->question) {
        lessonparse_error(p->errs, p->file, line, "%s without a @question before it on this page",
                          name);
        return;
    }
    if (pg->expect || pg->todo || pg->predict) {
        lessonparse_error(p->errs, p->file, line, "a page has one exercise (@%s on line %d)",
                          pg->expect ? "expect"
                          : pg->todo ? "do"
                                     : "predict",
                          pg->expect ? pg->expect_line
                          : pg->todo ? pg->do_line
                                     : pg->predict_line);
        return;
    }
    int r = d == D_DO        ? lesson_parse_do(pg, args, err, sizeof err)
            : d == D_PREDICT ? lesson_parse_predict(pg, args, err, sizeof err)
                             : lesson_parse_expect(pg, args, err, sizeof err);
    if (r != 0) {
        lessonparse_error(p->errs, p->file, line, "%s", err);
        return;
    }
    if (d == D_DO)
        pg->do_line = line;
    else if (d == D_PREDICT)
        pg->predict_line = pg->expect_line = line; /* index|offset: typed as well */
    else
        pg->expect_line = line;
}

/* One handler a directive: the page (p->page) is there when the table says
 * the directive needs one, and args is what the table allows. */
static void d_title(Parser *p, int line, int d, char *args)
{
    (void)d;
    if (p->l->title) {
        lessonparse_error(p->errs, p->file, line, "@title given twice");
        return;
    }
    if (p->page) {
        lessonparse_error(p->errs, p->file, line, "@title must come before the first @page");
        return;
    }
    p->l->title = xstrdup(args);
}

static void d_summary(Parser *p, int line, int d, char *args)
{
    (void)d;
    if (p->page) {
        lessonparse_error(p->errs, p->file, line, "@summary must come before the first @page");
        return;
    }
    free(p->l->summary);
    p->l->summary = xstrdup(args);
}

static void d_page(Parser *p, int line, int d, char *args)
{
    (void)d;
    new_page(p, line, args);
}

static void d_config(Parser *p, int line, int d, char *args)
{
    (void)d;
    if (p->page) {
        parse_config(p, line, args, &p->page->cfg);
        p->page->cfg_line = line;
    } else {
        parse_config(p, line, args, &p->base);
        p->base_line = line;
    }
}

static void d_step(Parser *p, int line, int d, char *args)
{
    (void)d;
    int s = mha_step_index(args);
    if (s < 0) {
        char h[300];
        lessonparse_error(p->errs, p->file, line, "@step: unknown step '%.40s'%s", args,
                          text_hint(h, sizeof h, "", args, step_keys, MS_ALL));
        return;
    }
    p->page->step = s;
    p->page->step_line = line;
}

static void d_view(Parser *p, int line, int d, char *args)
{
    (void)d;
    int v;
    for (v = 0; v <= MV_COUNT; v++)
        if (!strcmp(args, view_names[v])) break;
    if (v > MV_COUNT) {
        char h[200];
        lessonparse_error(p->errs, p->file, line, "@view: unknown view '%.40s'%s", args,
                          text_hint(h, sizeof h, "", args, view_names, MV_COUNT + 1));
        return;
    }
    p->page->variants = v == MV_COUNT;
    p->page->view = v == MV_COUNT ? MV_STEP : (MhaView)v;
}

static void d_inspect(Parser *p, int line, int d, char *args)
{
    (void)d;
    set_inspect(p, line, args);
}

static void d_single(Parser *p, int line, int d, char *args)
{
    (void)d, (void)line;
    p->page->single = strcmp(args, "off") != 0;
}

static void d_question(Parser *p, int line, int d, char *args)
{
    question_answer(p, line, d == D_ANSWER, args);
}

static void d_exercise(Parser *p, int line, int d, char *args)
{
    exercise(p, line, d, args);
}

static void d_hint(Parser *p, int line, int d, char *args)
{
    (void)d;
    LessonPage *pg = p->page;
    if (pg->hint) {
        lessonparse_error(p->errs, p->file, line,
                          "a page has one @hint (this page's is on line %d)", pg->hint_line);
        return;
    }
    pg->hint = xstrdup(args);
    pg->hint_line = line;
}

static void d_highlight(Parser *p, int line, int d, char *args)
{
    (void)d;
    lessonparse_add_block(p, LB_HIGHLIGHT, line, xstrdup(args));
}

static void d_code(Parser *p, int line, int d, char *args)
{
    (void)d;
    p->code = xstrdup("");
    p->code_len = 0;
    p->code_line = line;
    p->code_run = !strcmp(args, "run");
}

static void d_end(Parser *p, int line, int d, char *args)
{
    (void)d, (void)args;
    lessonparse_error(p->errs, p->file, line, "@end without a @code block to close");
}

/* The directives: one row each, indexed by D_*.  page: it needs a @page
 * before it; arg: A_NEED a value, A_NONE none, or a value of words ("on off":
 * nothing or one of them); fn does the rest.  The parser, the "unknown
 * directive" suggestion and lessons/README.md's table follow it. */
enum { A_NEED, A_NONE, A_WORDS };
static const struct {
    const char *name;
    unsigned char page, arg;
    const char *words; /* A_WORDS: the values allowed besides nothing */
    void (*fn)(Parser *p, int line, int d, char *args);
} dirs[D_COUNT] = {
    [D_TITLE] = {"title", 0, A_NEED, NULL, d_title},
    [D_SUMMARY] = {"summary", 0, A_NEED, NULL, d_summary},
    [D_PAGE] = {"page", 0, A_NEED, NULL, d_page},
    [D_CONFIG] = {"config", 0, A_NEED, NULL, d_config},
    [D_STEP] = {"step", 1, A_NEED, NULL, d_step},
    [D_VIEW] = {"view", 1, A_NEED, NULL, d_view},
    [D_INSPECT] = {"inspect", 1, A_NEED, NULL, d_inspect},
    [D_SINGLE] = {"single", 1, A_WORDS, "on off", d_single},
    [D_QUESTION] = {"question", 1, A_NEED, NULL, d_question},
    [D_ANSWER] = {"answer", 1, A_NEED, NULL, d_question},
    [D_HIGHLIGHT] = {"highlight", 1, A_NEED, NULL, d_highlight},
    [D_CODE] = {"code", 1, A_WORDS, "run", d_code},
    [D_END] = {"end", 1, A_NONE, NULL, d_end},
    [D_SHOW] = {"show", 1, A_NEED, NULL, d_step}, /* "@show split" reads well too */
    [D_EXPECT] = {"expect", 1, A_NEED, NULL, d_exercise},
    [D_DO] = {"do", 1, A_NEED, NULL, d_exercise},
    [D_PREDICT] = {"predict", 1, A_NEED, NULL, d_exercise},
    [D_HINT] = {"hint", 1, A_NEED, NULL, d_hint},
};

/* Is word one of the space-separated words of list? */
static int one_of(const char *word, const char *list)
{
    size_t n = strlen(word);
    for (const char *w = list; *w; w += strspn(w, " ")) {
        size_t k = strcspn(w, " ");
        if (k == n && !strncmp(w, word, n)) return 1;
        w += k;
    }
    return 0;
}

/* "expected nothing, 'on' or 'off'": the words of list, quoted. */
static void words_text(const char *list, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "nothing");
    int count = 0, k = 0;
    for (const char *w = list; *w; w += strcspn(w, " "), w += strspn(w, " "))
        count++;
    for (const char *w = list; *w && o < n; w += strcspn(w, " "), w += strspn(w, " "), k++)
        o += (size_t)snprintf(buf + o, n - o, "%s'%.*s'", k == count - 1 ? " or " : ", ",
                              (int)strcspn(w, " "), w);
}

void lessonparse_directive(Parser *p, int line, char *name, char *args)
{
    int d;
    for (d = 0; d < D_COUNT; d++)
        if (!strcmp(name, dirs[d].name)) break;
    if (d == D_COUNT) {
        const char *names[D_COUNT];
        for (int i = 0; i < D_COUNT; i++)
            names[i] = dirs[i].name;
        char h[300];
        lessonparse_error(p->errs, p->file, line, "unknown directive '@%.40s'%s", name,
                          text_hint(h, sizeof h, "@", name, names, D_COUNT));
        return;
    }
    lessonparse_flush_para(p);
    if (dirs[d].page && !p->page) {
        lessonparse_error(p->errs, p->file, line, "@%s before the first @page", dirs[d].name);
        return;
    }
    if (dirs[d].arg == A_NEED && !*args) {
        lessonparse_error(p->errs, p->file, line, "@%s needs a value", dirs[d].name);
        return;
    }
    if (dirs[d].arg == A_NONE && *args) {
        lessonparse_error(p->errs, p->file, line, "@%s takes no value (got '%.40s')", dirs[d].name,
                          args);
        return;
    }
    if (dirs[d].arg == A_WORDS && *args && !one_of(args, dirs[d].words)) {
        char w[120];
        words_text(dirs[d].words, w, sizeof w);
        lessonparse_error(p->errs, p->file, line, "@%s: expected %s, got '%.40s'", dirs[d].name, w,
                          args);
        return;
    }
    dirs[d].fn(p, line, d == D_SHOW ? D_STEP : d, args);
}
