/* quiz_bank.c - the curated questions of lessons/NAME.quiz: parser and
 * validator.  The format is documented in lessons/README.md ("Quiz files"):
 *
 *   @topic concepts              topic of the questions that follow
 *   @q Why is the head split free?
 *   a) ...                       choices a) .. f) (none: a short answer)
 *   b) ...
 *   @answer b                    one letter, or the short answer(s): 128 | (2, 8) | words | other
 * words
 *   @explain Because ...         required; continues on the next lines
 *   @config heads=8 kv_heads=2   optional, per question: the run {expressions} read
 *
 * Text may hold the lessons' {expressions} (lesson.h): they are filled in from
 * a run of the question's configuration and the model presets when the file
 * is loaded, so no number the engine can compute is typed by hand.
 * Blank lines end a field; '#' starts a comment line.
 *
 * Two passes: quiz_bank_read checks what the text says on its own and keeps
 * each question as written (a QuizDraft); quiz_bank_add runs the engine for
 * the questions that have {expressions}, fills them in and checks what
 * depends on them.  The first pass is fast enough to fuzz (no engine). */
#include "content/quiz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/sanitize.h"
#include "base/textutil.h"
#include "content/config_kv.h"
#include "content/content.h"
#include "content/lesson.h"
#include "content/presets.h"

enum { F_NONE, F_PROMPT, F_CHOICE, F_EXPLAIN };

typedef struct Parser {
    const char *path;
    char *err;
    size_t errlen;
    int topic;
    QuizDraft cur; /* the open question */
    int open, field;
    QuizDraft *drafts; /* the questions closed so far */
    int n, cap;
    PresetList presets; /* quiz_bank_add: loaded with the first expression */
    int have_presets;
} Parser;

static int fail(Parser *p, int line, const char *fmt, const char *a, const char *b)
{
    char msg[400];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    err_at(p->err, p->errlen, p->path, line, "%s", msg);
    return -1;
}

/* Appends text to a field, joined by sep; -1 if it would not fit. */
static int append(char *dst, size_t n, const char *sep, const char *text)
{
    size_t l = strlen(dst), need = (l ? strlen(sep) : 0) + strlen(text);
    if (l + need + 1 > n) return -1;
    if (l) strcat(dst, sep);
    strcat(dst, text);
    return 0;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int has_braces(const char *s)
{
    return strchr(s, '{') || strchr(s, '}');
}

/* Does any field of d hold an {expression}? */
static int draft_has_expressions(const QuizDraft *d)
{
    int any = has_braces(d->q.prompt) || has_braces(d->answer) || has_braces(d->q.explain);
    for (int i = 0; !any && i < d->q.n_choices; i++)
        any = has_braces(d->q.choices[i]);
    return any;
}

/* Fills the {expressions} of one field in place; -1 with the error at line. */
static int expand_field(Parser *p, const Mha *m, char *field, size_t n, int line)
{
    if (!has_braces(field)) return 0;
    char out[QUIZ_PROMPT_MAX > QUIZ_EXPLAIN_MAX ? QUIZ_PROMPT_MAX : QUIZ_EXPLAIN_MAX], err[300];
    if (lesson_expand(field, m, p->have_presets ? &p->presets : NULL, out, sizeof out, err,
                      sizeof err))
        return fail(p, line, "%s", err, 0);
    if (strlen(out) >= n)
        return fail(p, line, "text too long once {expressions} are filled in", 0, 0);
    snprintf(field, n, "%s", out);
    return 0;
}

/* Every field of d, against a run of its configuration (the engine runs only
 * when a field has an expression). */
static int expand_all(Parser *p, QuizDraft *d)
{
    QuizQuestion *q = &d->q;
    char err[300];
    if (!draft_has_expressions(d)) return 0;
    if (!p->have_presets) p->have_presets = presets_builtin(&p->presets, err, sizeof err) == 0;
    Mha *m = mha_run(&d->cfg, err, sizeof err);
    if (!m) return fail(p, d->config_line ? d->config_line : d->q_line, "%s", err, 0);
    int rc = expand_field(p, m, q->prompt, sizeof q->prompt, d->q_line);
    for (int i = 0; !rc && i < q->n_choices; i++)
        rc = expand_field(p, m, q->choices[i], QUIZ_CHOICE_MAX, d->q_line);
    if (!rc) rc = expand_field(p, m, d->answer, sizeof d->answer, d->answer_line);
    if (!rc) rc = expand_field(p, m, q->explain, sizeof q->explain, d->q_line);
    mha_free(m);
    return rc;
}

/* "@config heads=8 kv_heads=2": the question's configuration. */
static int parse_config(Parser *p, int ln, const char *arg)
{
    MhaConfig base = mha_config_default(), c = base;
    int kv_set = 0;
    char buf[256], why[300];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t"))
        if (config_kv_set(&c, tok, &kv_set, why, sizeof why) != 0)
            return fail(p, ln, "@config: %s", why, 0);
    config_kv_finish(&c, &base, kv_set);
    if (mha_config_check(&c, why, sizeof why)) return fail(p, ln, "@config: %s", why, 0);
    p->cur.cfg = c;
    p->cur.config_line = ln;
    return 0;
}

/* The checks on a question's answer and choices: on the text as written when
 * it has no expressions, and again once they are filled in.  Sets the kind
 * and the expected answer of d->q. */
static int check_answer(Parser *p, QuizDraft *d)
{
    QuizQuestion *q = &d->q;
    for (int i = 0; i < q->n_choices; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(q->choices[i], q->choices[j])) {
                char a[8], b[8];
                snprintf(a, sizeof a, "%c)", 'a' + i);
                snprintf(b, sizeof b, "%c)", 'a' + j);
                return fail(p, d->q_line, "choice %s repeats choice %s", a, b);
            }
    QuizAnswer a;
    if (quiz_parse_answer(d->answer, &a) || a.kind == QA_EMPTY)
        return fail(p, d->answer_line, "@answer '%s' is not a letter, number, shape or words",
                    d->answer, 0);
    if (q->n_choices) {
        if (a.kind != QA_LETTER) {
            /* "a, c" / "a c": more than one letter */
            int letters = 0, other = 0;
            for (const char *s = d->answer; *s; s++) {
                if (isalpha((unsigned char)*s) && !isalpha((unsigned char)s[1]) &&
                    (s == d->answer || !isalpha((unsigned char)s[-1])))
                    letters++;
                else if (isalnum((unsigned char)*s))
                    other = 1;
            }
            if (letters > 1 && !other)
                return fail(p, d->answer_line,
                            "@answer '%s' names more than one choice: exactly one is correct",
                            d->answer, 0);
            return fail(p, d->answer_line,
                        "@answer '%s' must be one letter for a multiple-choice question", d->answer,
                        0);
        }
        if (a.letter >= q->n_choices) {
            char n[40];
            snprintf(n, sizeof n, "%d choices (a-%c)", q->n_choices, 'a' + q->n_choices - 1);
            return fail(p, d->answer_line, "@answer %s is out of range: the question has %s",
                        d->answer, n);
        }
        q->kind = QK_CHOICE;
        q->correct = a.letter;
    } else if (a.kind == QA_NUMBER) {
        q->kind = QK_NUMBER;
        q->number = a.number;
    } else if (a.kind == QA_TUPLE && a.number >= 0) { /* "524,288": a number with separators */
        q->kind = QK_NUMBER;
        q->number = a.number;
    } else if (a.kind == QA_TUPLE) {
        q->kind = QK_TUPLE;
        q->n_tuple = a.n;
        memcpy(q->tuple, a.v, sizeof a.v);
    } else if (a.kind == QA_LETTER) {
        return fail(p, d->answer_line,
                    "@answer %s is a letter, but the question has no choices a) b) ...", d->answer,
                    0);
    } else {
        q->kind = QK_TEXT;
        snprintf(q->text, sizeof q->text, "%s", d->answer);
        /* each spelling, typed as written, must be judged right by the one
         * answer reader: "(1" or a 22-digit number never would be */
        for (const char *s = d->answer, *bar;; s = bar + 1) {
            bar = strchr(s, '|');
            char alt[QUIZ_ANSWER_MAX];
            snprintf(alt, sizeof alt, "%.*s", (int)(bar ? (size_t)(bar - s) : strlen(s)), s);
            int words = 0;
            for (const char *t = alt; *t; t++)
                words |= !isspace((unsigned char)*t);
            if (!words)
                return fail(p, d->answer_line, "@answer has an empty alternative between '|'", 0,
                            0);
            if (quiz_check(q, alt, NULL, NULL, 0) != 1)
                return fail(p, d->answer_line,
                            "@answer '%s' cannot be typed as an answer (a number, a shape in "
                            "balanced brackets, or words)",
                            text_trim(alt), 0);
            if (!bar) break;
        }
    }
    return 0;
}

/* Checks the open question as written and keeps it as a draft. */
static int close_question(Parser *p)
{
    if (!p->open) return 0;
    QuizDraft *d = &p->cur;
    p->open = 0;
    p->field = F_NONE;
    if (!d->q.prompt[0]) return fail(p, d->q_line, "@q has no question text", 0, 0);
    if (!d->answer_line) return fail(p, d->q_line, "question has no @answer", 0, 0);
    if (!d->q.explain[0])
        return fail(p, d->q_line, "question has no @explain (every question teaches)", 0, 0);
    if (d->q.n_choices == 1)
        return fail(p, d->q_line, "a multiple-choice question needs at least 2 choices", 0, 0);
    if (!draft_has_expressions(d) && check_answer(p, d)) return -1;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        QuizDraft *v = realloc(p->drafts, sizeof *v * (size_t)cap);
        if (!v) return fail(p, d->q_line, "out of memory", 0, 0);
        p->drafts = v;
        p->cap = cap;
    }
    p->drafts[p->n++] = *d;
    return 0;
}

/* ---- the directives: one table names them, parses them and lists them in
 * the error for an unknown one (Lua's luaL_Reg: the dispatcher is the list). */

static int dir_topic(Parser *p, int ln, char *arg)
{
    if (close_question(p)) return -1;
    int t = quiz_topic_index(arg);
    if (t < 0) {
        char list[200] = "";
        for (int i = 0; i < QT_COUNT; i++)
            append(list, sizeof list, ", ", quiz_topic_names[i]);
        return fail(p, ln, "unknown topic '%s' (topics: %s)", arg, list);
    }
    p->topic = t;
    return 0;
}

static int dir_q(Parser *p, int ln, char *arg)
{
    QuizDraft *d = &p->cur;
    QuizQuestion *q = &d->q;
    if (close_question(p)) return -1;
    memset(d, 0, sizeof *d);
    q->topic = p->topic;
    q->pic.lit = -1;
    snprintf(q->source, sizeof q->source, "%s:%d", p->path, ln);
    p->open = 1;
    d->q_line = ln;
    d->cfg = mha_config_default();
    p->field = F_PROMPT;
    if (*arg && append(q->prompt, sizeof q->prompt, "\n", arg))
        return fail(p, ln, "question text is too long (at most %s characters)", "1599", 0);
    return 0;
}

static int dir_answer(Parser *p, int ln, char *arg)
{
    QuizDraft *d = &p->cur;
    if (d->answer_line) {
        char prev[16];
        snprintf(prev, sizeof prev, "%d", d->answer_line);
        return fail(p, ln,
                    "second @answer (the first is on line %s): exactly one answer per question",
                    prev, 0);
    }
    if (!*arg) return fail(p, ln, "@answer is empty", 0, 0);
    if (strlen(arg) >= sizeof d->answer) return fail(p, ln, "@answer is too long", 0, 0);
    snprintf(d->answer, sizeof d->answer, "%s", arg);
    d->answer_line = ln;
    p->field = F_NONE;
    return 0;
}

static int dir_config(Parser *p, int ln, char *arg)
{
    if (p->cur.config_line) return fail(p, ln, "second @config in one question", 0, 0);
    p->field = F_NONE;
    return parse_config(p, ln, arg);
}

static int dir_explain(Parser *p, int ln, char *arg)
{
    QuizQuestion *q = &p->cur.q;
    if (q->explain[0]) return fail(p, ln, "second @explain in one question", 0, 0);
    p->field = F_EXPLAIN;
    if (*arg && append(q->explain, sizeof q->explain, " ", arg))
        return fail(p, ln, "explanation is too long", 0, 0);
    return 0;
}

static const struct {
    const char *name;
    int (*parse)(Parser *p, int ln, char *arg);
    int in_question; /* only inside a question (after @q) */
} directives[] = {
    {"@topic", dir_topic, 0},     {"@q", dir_q, 0},           {"@answer", dir_answer, 1},
    {"@explain", dir_explain, 1}, {"@config", dir_config, 1},
};
#define N_DIRECTIVES (int)(sizeof directives / sizeof *directives)

static int unknown_directive(Parser *p, int ln, const char *word)
{
    const char *names[N_DIRECTIVES], *best;
    char list[96] = "";
    for (int i = 0; i < N_DIRECTIVES; i++)
        append(list, sizeof list, " ", names[i] = directives[i].name);
    /* a typo: within two edits */
    best = NULL;
    for (int i = 0, bd = 3; i < N_DIRECTIVES; i++) {
        int dist = text_edit_distance(word, names[i]);
        if (dist < bd) bd = dist, best = names[i];
    }
    if (best) return fail(p, ln, "unknown directive '%s' (did you mean '%s'?)", word, best);
    return fail(p, ln, "unknown directive '%s' (directives: %s)", word, list);
}

static int parse_line(Parser *p, int ln, char *s)
{
    if (s[0] == '#') return 0;
    if (!s[0]) {
        p->field = F_NONE;
        return 0;
    }
    QuizDraft *d = &p->cur;
    QuizQuestion *q = &d->q;
    if (s[0] == '@') {
        char word[32];
        size_t wl = strcspn(s, " \t");
        snprintf(word, sizeof word, "%.*s", (int)(wl < 31 ? wl : 31), s);
        char *arg = s + wl;
        while (*arg == ' ' || *arg == '\t')
            arg++;
        for (int i = 0; i < N_DIRECTIVES; i++) {
            if (strcmp(word, directives[i].name)) continue;
            if (directives[i].in_question && !p->open)
                return fail(p, ln, "%s outside a question (start one with @q)", word, 0);
            return directives[i].parse(p, ln, arg);
        }
        if (!p->open) return fail(p, ln, "%s outside a question (start one with @q)", word, 0);
        return unknown_directive(p, ln, word);
    }
    /* a choice: "a) text" */
    if (p->open && islower((unsigned char)s[0]) && s[0] <= 'z' && s[1] == ')' &&
        (s[2] == ' ' || !s[2]) && p->field != F_EXPLAIN) {
        if (d->answer_line)
            return fail(p, ln, "choice after @answer (put the choices first)", 0, 0);
        int want = q->n_choices;
        if (s[0] - 'a' != want) {
            char a[8], b[8];
            snprintf(a, sizeof a, "%c)", 'a' + want);
            snprintf(b, sizeof b, "%c)", s[0]);
            if (want >= QUIZ_MAX_CHOICES)
                return fail(p, ln, "too many choices (at most 6, a-f)", 0, 0);
            return fail(p, ln, "expected choice %s here, got %s", a, b);
        }
        if (want >= QUIZ_MAX_CHOICES) return fail(p, ln, "too many choices (at most 6, a-f)", 0, 0);
        const char *t = s + 2;
        while (*t == ' ')
            t++;
        if (!*t) return fail(p, ln, "choice %c) is empty", 0, 0);
        if (strlen(t) >= QUIZ_CHOICE_MAX)
            return fail(p, ln, "choice is too long (at most 199 characters)", 0, 0);
        snprintf(q->choices[q->n_choices++], QUIZ_CHOICE_MAX, "%s", t);
        p->field = F_CHOICE;
        return 0;
    }
    /* continuation of the current field */
    switch (p->field) {
    case F_PROMPT:
        if (append(q->prompt, sizeof q->prompt, "\n", s))
            return fail(p, ln, "question text is too long", 0, 0);
        return 0;
    case F_CHOICE:
        if (append(q->choices[q->n_choices - 1], QUIZ_CHOICE_MAX, " ", s))
            return fail(p, ln, "choice is too long (at most 199 characters)", 0, 0);
        return 0;
    case F_EXPLAIN:
        if (append(q->explain, sizeof q->explain, " ", s))
            return fail(p, ln, "explanation is too long", 0, 0);
        return 0;
    default:
        return fail(
            p, ln, "text outside a field (after a blank line or @answer; start a question with @q)",
            0, 0);
    }
}

int quiz_bank_read(const char *path, const char *text, QuizDraft **drafts, char *err, size_t errlen)
{
    Parser p;
    memset(&p, 0, sizeof p);
    p.path = path;
    p.err = err;
    p.errlen = errlen;
    p.topic = QT_CONCEPTS;
    int ln = 0, rc = 0;
    const char *s = text;
    while (*s && !rc) {
        ln++;
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        char line[2048];
        if (len >= sizeof line) {
            rc = fail(&p, ln, "line is too long (at most 2047 bytes)", 0, 0);
            break;
        }
        memcpy(line, s, len);
        line[len] = 0;
        /* the one rule (base/sanitize.h): C0 but tab, DEL, C1, bidi; a CRLF's CR is the end */
        if (sanitize_control_at(line, len && line[len - 1] == '\r' ? len - 1 : len, NULL)) {
            rc = fail(&p, ln, "control character in the text", 0, 0);
            break;
        }
        while (len && isspace((unsigned char)line[len - 1]))
            line[--len] = 0;
        if (!rc) rc = parse_line(&p, ln, line);
        s = nl ? nl + 1 : s + len;
        if (!nl) break;
    }
    if (!rc) rc = close_question(&p);
    if (!rc && p.n == 0)
        rc = fail(&p, ln ? ln : 1, "no questions (a quiz file needs at least one @q)", 0, 0);
    if (rc) {
        free(p.drafts);
        *drafts = NULL;
        return -1;
    }
    *drafts = p.drafts;
    return p.n;
}

int quiz_bank_add(QuizBank *bank, const char *path, QuizDraft *drafts, int n, char *err,
                  size_t errlen)
{
    Parser p;
    memset(&p, 0, sizeof p);
    p.path = path;
    p.err = err;
    p.errlen = errlen;
    int first = bank->n, rc = 0;
    for (int k = 0; k < n && !rc; k++) {
        QuizDraft *d = &drafts[k];
        QuizQuestion *q = &d->q;
        if (expand_all(&p, d) || check_answer(&p, d)) {
            rc = -1;
            break;
        }
        snprintf(q->id, sizeof q->id, "c:%08x", (unsigned)fnv1a(q->prompt));
        for (int i = 0; i < bank->n && !rc; i++)
            if (!strcmp(bank->q[i].id, q->id))
                rc = fail(&p, d->q_line, "the same question as %s", bank->q[i].source, 0);
        if (!rc && bank->n == bank->cap) {
            int cap = bank->cap ? 2 * bank->cap : 64;
            QuizQuestion *v = realloc(bank->q, sizeof *v * (size_t)cap);
            if (!v)
                rc = fail(&p, d->q_line, "out of memory", 0, 0);
            else
                bank->q = v, bank->cap = cap;
        }
        if (!rc) bank->q[bank->n++] = *q;
    }
    if (p.have_presets) presets_free(&p.presets);
    if (rc) {
        bank->n = first;
        return -1;
    }
    return n;
}

int quiz_bank_parse(QuizBank *bank, const char *path, const char *text, char *err, size_t errlen)
{
    QuizDraft *drafts;
    int n = quiz_bank_read(path, text, &drafts, err, errlen);
    if (n < 0) return -1;
    n = quiz_bank_add(bank, path, drafts, n, err, errlen);
    free(drafts);
    return n;
}

int quiz_bank_load_builtin(QuizBank *bank, char *err, size_t errlen)
{
    for (const ContentFile *f = content_files; f->path; f++) {
        size_t l = strlen(f->path);
        if (l > 5 && !strcmp(f->path + l - 5, ".quiz") &&
            quiz_bank_parse(bank, f->path, f->text, err, errlen) < 0)
            return -1;
    }
    return 0;
}

void quiz_bank_free(QuizBank *bank)
{
    free(bank->q);
    memset(bank, 0, sizeof *bank);
}
