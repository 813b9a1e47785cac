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
 * Blank lines end a field; '#' starts a comment line. */
#include "content/quiz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "content/content.h"
#include "content/lesson.h"
#include "content/presets.h"

enum { F_NONE, F_PROMPT, F_CHOICE, F_EXPLAIN };

typedef struct Parser {
    const char *path;
    char *err;
    size_t errlen;
    int topic;
    QuizQuestion cur;
    int open, q_line, answer_line, field;
    char answer[QUIZ_ANSWER_MAX];
    MhaConfig cfg; /* the question's @config (default otherwise) */
    int config_line;
    PresetList presets;
    int have_presets;
    QuizBank *bank;
    int first; /* bank->n before this file */
} Parser;

static int fail(Parser *p, int line, const char *fmt, const char *a, const char *b)
{
    char msg[400];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    snprintf(p->err, p->errlen, "%s:%d: %s", p->path, line, msg);
    return -1;
}

static const char *const directives[] = {"@topic", "@q", "@answer", "@explain", "@config"};

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

/* Fills the {expressions} of one field in place; -1 with the error at line. */
static int expand_field(Parser *p, const Mha *m, char *field, size_t n, int line)
{
    if (!strchr(field, '{') && !strchr(field, '}')) return 0;
    char out[QUIZ_PROMPT_MAX > QUIZ_EXPLAIN_MAX ? QUIZ_PROMPT_MAX : QUIZ_EXPLAIN_MAX], err[300];
    if (lesson_expand(field, m, p->have_presets ? &p->presets : NULL, out, sizeof out, err,
                      sizeof err))
        return fail(p, line, "%s", err, 0);
    if (strlen(out) >= n)
        return fail(p, line, "text too long once {expressions} are filled in", 0, 0);
    snprintf(field, n, "%s", out);
    return 0;
}

/* Every field of the open question, against a run of its configuration. */
static int expand_all(Parser *p)
{
    QuizQuestion *q = &p->cur;
    char err[300];
    Mha *m = mha_run(&p->cfg, err, sizeof err);
    if (!m) return fail(p, p->config_line ? p->config_line : p->q_line, "%s", err, 0);
    int rc = expand_field(p, m, q->prompt, sizeof q->prompt, p->q_line);
    for (int i = 0; !rc && i < q->n_choices; i++)
        rc = expand_field(p, m, q->choices[i], QUIZ_CHOICE_MAX, p->q_line);
    if (!rc && p->answer_line) rc = expand_field(p, m, p->answer, sizeof p->answer, p->answer_line);
    if (!rc) rc = expand_field(p, m, q->explain, sizeof q->explain, p->q_line);
    mha_free(m);
    return rc;
}

/* "@config heads=8 kv_heads=2": the question's configuration. */
static int parse_config(Parser *p, int ln, const char *arg)
{
    static const char *const keys[] = {"batch",    "seq",  "d_model", "heads",
                                       "kv_heads", "seed", "causal"};
    MhaConfig c = mha_config_default();
    int kv_set = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *tok = strtok(buf, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *eq = strchr(tok, '=');
        if (!eq) return fail(p, ln, "@config: expected key=value, got '%s'", tok, 0);
        *eq = 0;
        char *end;
        long v = strtol(eq + 1, &end, 10);
        if (!eq[1] || *end || v < 0 || v > 1000000)
            return fail(p, ln, "@config: %s '%s' is not a whole number", tok, eq + 1);
        int k = -1;
        for (int i = 0; i < 7; i++)
            if (!strcmp(tok, keys[i])) k = i;
        switch (k) {
        case 0:
            c.batch = (int)v;
            break;
        case 1:
            c.seq = (int)v;
            break;
        case 2:
            c.d_model = (int)v;
            break;
        case 3:
            c.heads = (int)v;
            break;
        case 4:
            c.kv_heads = (int)v, kv_set = 1;
            break;
        case 5:
            c.seed = (uint32_t)v;
            break;
        case 6:
            c.causal = v != 0;
            break;
        default:
            return fail(p, ln,
                        "@config: unknown key '%s' (batch seq d_model heads kv_heads seed causal)",
                        tok, 0);
        }
    }
    if (!kv_set) c.kv_heads = c.heads;
    char err[300];
    if (mha_config_check(&c, err, sizeof err)) return fail(p, ln, "@config: %s", err, 0);
    p->cfg = c;
    p->config_line = ln;
    return 0;
}

/* Validates the open question and adds it to the bank. */
static int close_question(Parser *p)
{
    if (!p->open) return 0;
    QuizQuestion *q = &p->cur;
    p->open = 0;
    p->field = F_NONE;
    if (!q->prompt[0]) return fail(p, p->q_line, "@q has no question text", 0, 0);
    if (expand_all(p)) return -1;
    if (!p->answer_line) return fail(p, p->q_line, "question has no @answer", 0, 0);
    if (!q->explain[0])
        return fail(p, p->q_line, "question has no @explain (every question teaches)", 0, 0);
    if (q->n_choices == 1)
        return fail(p, p->q_line, "a multiple-choice question needs at least 2 choices", 0, 0);
    for (int i = 0; i < q->n_choices; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(q->choices[i], q->choices[j])) {
                char a[8], b[8];
                snprintf(a, sizeof a, "%c)", 'a' + i);
                snprintf(b, sizeof b, "%c)", 'a' + j);
                return fail(p, p->q_line, "choice %s repeats choice %s", a, b);
            }
    QuizAnswer a;
    if (quiz_parse_answer(p->answer, &a) || a.kind == QA_EMPTY)
        return fail(p, p->answer_line, "@answer '%s' is not a letter, number, shape or words",
                    p->answer, 0);
    if (q->n_choices) {
        if (a.kind != QA_LETTER) {
            /* "a, c" / "a c": more than one letter */
            int letters = 0, other = 0;
            for (const char *s = p->answer; *s; s++) {
                if (isalpha((unsigned char)*s) && !isalpha((unsigned char)s[1]) &&
                    (s == p->answer || !isalpha((unsigned char)s[-1])))
                    letters++;
                else if (isalnum((unsigned char)*s))
                    other = 1;
            }
            if (letters > 1 && !other)
                return fail(p, p->answer_line,
                            "@answer '%s' names more than one choice: exactly one is correct",
                            p->answer, 0);
            return fail(p, p->answer_line,
                        "@answer '%s' must be one letter for a multiple-choice question", p->answer,
                        0);
        }
        if (a.letter >= q->n_choices) {
            char n[40];
            snprintf(n, sizeof n, "%d choices (a-%c)", q->n_choices, 'a' + q->n_choices - 1);
            return fail(p, p->answer_line, "@answer %s is out of range: the question has %s",
                        p->answer, n);
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
        return fail(p, p->answer_line,
                    "@answer %s is a letter, but the question has no choices a) b) ...", p->answer,
                    0);
    } else {
        for (const char *s = p->answer, *bar; *s; s = bar + 1) {
            bar = strchr(s, '|');
            const char *e = bar ? bar : s + strlen(s);
            int words = 0;
            for (const char *t = s; t < e; t++)
                words |= !isspace((unsigned char)*t);
            if (!words)
                return fail(p, p->answer_line, "@answer has an empty alternative between '|'", 0,
                            0);
            if (!bar) break;
        }
        q->kind = QK_TEXT;
        snprintf(q->text, sizeof q->text, "%s", p->answer);
    }
    snprintf(q->id, sizeof q->id, "c:%08x", (unsigned)fnv1a(q->prompt));
    for (int i = 0; i < p->bank->n; i++)
        if (!strcmp(p->bank->q[i].id, q->id))
            return fail(p, p->q_line, "the same question as %s", p->bank->q[i].source, 0);
    if (p->bank->n == p->bank->cap) {
        int cap = p->bank->cap ? 2 * p->bank->cap : 64;
        QuizQuestion *v = realloc(p->bank->q, sizeof *v * (size_t)cap);
        if (!v) return fail(p, p->q_line, "out of memory", 0, 0);
        p->bank->q = v;
        p->bank->cap = cap;
    }
    p->bank->q[p->bank->n++] = *q;
    return 0;
}

static int parse_line(Parser *p, int ln, char *s)
{
    if (s[0] == '#') return 0;
    if (!s[0]) {
        p->field = F_NONE;
        return 0;
    }
    QuizQuestion *q = &p->cur;
    if (s[0] == '@') {
        char word[32];
        size_t wl = strcspn(s, " \t");
        snprintf(word, sizeof word, "%.*s", (int)(wl < 31 ? wl : 31), s);
        char *arg = s + wl;
        while (*arg == ' ' || *arg == '\t')
            arg++;
        if (!strcmp(word, "@topic")) {
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
        if (!strcmp(word, "@q")) {
            if (close_question(p)) return -1;
            memset(q, 0, sizeof *q);
            q->topic = p->topic;
            q->pic.lit = -1;
            snprintf(q->source, sizeof q->source, "%s:%d", p->path, ln);
            p->open = 1;
            p->q_line = ln;
            p->cfg = mha_config_default();
            p->config_line = 0;
            p->answer_line = 0;
            p->answer[0] = 0;
            p->field = F_PROMPT;
            if (*arg && append(q->prompt, sizeof q->prompt, "\n", arg))
                return fail(p, ln, "question text is too long (at most %s characters)", "1599", 0);
            return 0;
        }
        if (!p->open) return fail(p, ln, "%s outside a question (start one with @q)", word, 0);
        if (!strcmp(word, "@answer")) {
            if (p->answer_line) {
                char prev[16];
                snprintf(prev, sizeof prev, "%d", p->answer_line);
                return fail(
                    p, ln,
                    "second @answer (the first is on line %s): exactly one answer per question",
                    prev, 0);
            }
            if (!*arg) return fail(p, ln, "@answer is empty", 0, 0);
            if (strlen(arg) >= sizeof p->answer) return fail(p, ln, "@answer is too long", 0, 0);
            snprintf(p->answer, sizeof p->answer, "%s", arg);
            p->answer_line = ln;
            p->field = F_NONE;
            return 0;
        }
        if (!strcmp(word, "@config")) {
            if (p->config_line) return fail(p, ln, "second @config in one question", 0, 0);
            p->field = F_NONE;
            return parse_config(p, ln, arg);
        }
        if (!strcmp(word, "@explain")) {
            if (q->explain[0]) return fail(p, ln, "second @explain in one question", 0, 0);
            p->field = F_EXPLAIN;
            if (*arg && append(q->explain, sizeof q->explain, " ", arg))
                return fail(p, ln, "explanation is too long", 0, 0);
            return 0;
        }
        const char *best = NULL;
        int bd = 3;
        for (size_t i = 0; i < sizeof directives / sizeof *directives; i++) {
            int d = text_edit_distance(word, directives[i]);
            if (d < bd) bd = d, best = directives[i];
        }
        if (best) return fail(p, ln, "unknown directive '%s' (did you mean '%s'?)", word, best);
        return fail(p, ln,
                    "unknown directive '%s' (directives: @topic @q @answer @explain @config)", word,
                    0);
    }
    /* a choice: "a) text" */
    if (p->open && islower((unsigned char)s[0]) && s[0] <= 'z' && s[1] == ')' &&
        (s[2] == ' ' || !s[2]) && p->field != F_EXPLAIN) {
        if (p->answer_line)
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

int quiz_bank_parse(QuizBank *bank, const char *path, const char *text, char *err, size_t errlen)
{
    Parser p;
    memset(&p, 0, sizeof p);
    p.path = path;
    p.err = err;
    p.errlen = errlen;
    p.topic = QT_CONCEPTS;
    p.bank = bank;
    p.first = bank->n;
    p.cfg = mha_config_default();
    char perr[300];
    p.have_presets = presets_builtin(&p.presets, perr, sizeof perr) == 0;
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
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)line[i] < 0x20 && line[i] != '\t' && line[i] != '\r') {
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
    if (!rc && bank->n == p.first)
        rc = fail(&p, ln ? ln : 1, "no questions (a quiz file needs at least one @q)", 0, 0);
    if (p.have_presets) presets_free(&p.presets);
    if (rc) {
        bank->n = p.first;
        return -1;
    }
    return bank->n - p.first;
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
