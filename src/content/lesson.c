/* lesson.c - the lesson file parser (format: lessons/README.md): the lines.
 *
 * One pass over the lines.  Narrative lines gather into a paragraph until a
 * blank line or a directive; "@code" ... "@end" keeps lines verbatim; a
 * directive line goes to its handler (content/lessondir.c, the table).
 * Every problem is recorded as "file:line: message" and parsing goes on, so
 * `mhaviz lesson --check` can list them all at once.
 */
#include "content/lesson.h"
#include "content/lessonparse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/sanitize.h"
#include "base/textutil.h"
#include "base/utf8.h"

/* --- errors ----------------------------------------------------------------- */

void lessonparse_error(struct LessonErrors *e, const char *file, int line, const char *fmt, ...)
{
    if (e->n >= LESSON_MAX_ERRORS) {
        e->dropped++;
        return;
    }
    char reason[sizeof e->msg[0]];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    err_at(e->msg[e->n++], sizeof e->msg[0], file, line, "%s", reason);
}

void lesson_error_add(LessonErrors *e, const char *msg)
{
    if (e->n >= LESSON_MAX_ERRORS) {
        e->dropped++;
        return;
    }
    size_t k = strlen(msg);
    if (k >= sizeof e->msg[0]) k = sizeof e->msg[0] - 1;
    memcpy(e->msg[e->n], msg, k);
    e->msg[e->n++][k] = 0;
}

/* --- the parser ---------------------------------------------------------------- */

static void append(Parser *p, char **buf, size_t *len, const char *s, const char *sep)
{
    size_t add = strlen(s) + strlen(sep);
    char *nb = realloc(*buf, *len + add + 1);
    if (!nb) {
        p->oom = 1;
        return;
    }
    if (*len)
        memcpy(nb + *len, sep, strlen(sep)), *len += strlen(sep);
    else if (!*buf)
        nb[0] = 0;
    memcpy(nb + *len, s, strlen(s) + 1);
    *len += strlen(s);
    *buf = nb;
}

void lessonparse_add_block(Parser *p, int kind, int line, char *text)
{
    LessonPage *pg = p->page;
    LessonBlock *nb = realloc(pg->blocks, (size_t)(pg->nblocks + 1) * sizeof *nb);
    if (!nb) {
        free(text);
        p->oom = 1;
        return;
    }
    pg->blocks = nb;
    pg->blocks[pg->nblocks++] = (LessonBlock){(LessonBlockKind)kind, line, text, 0};
}

void lessonparse_flush_para(Parser *p)
{
    if (!p->para) return;
    if (p->page)
        lessonparse_add_block(p, LB_PARA, p->para_line, p->para);
    else
        free(p->para);
    p->para = NULL;
    p->para_len = 0;
}

static void parse_line(Parser *p, int lineno, char *line)
{
    if (p->code) {
        if (!strcmp(text_trim(line), "@end")) {
            if (p->code_len == 0)
                lessonparse_error(p->errs, p->file, p->code_line, "empty @code block");
            lessonparse_add_block(p, LB_CODE, p->code_line, p->code);
            if (p->code_len && p->page->nblocks)
                p->page->blocks[p->page->nblocks - 1].run = p->code_run;
            p->code = NULL;
            return;
        }
        if (!p->code_len && !*line) { /* a leading blank line is dropped: the */
            p->code_line = lineno;    /* block's line + k stays its k-th line */
            return;
        }
        append(p, &p->code, &p->code_len, line, "\n");
        return;
    }
    char *t = text_trim(line);
    if (!*t) {
        lessonparse_flush_para(p);
        return;
    }
    if (t[0] == '#' && (t[1] == ' ' || t[1] == 0 || t[1] == '#')) return; /* comment */
    if (t[0] == '@') {
        char *name = t + 1, *args = name;
        while (*args && !isspace((unsigned char)*args))
            args++;
        if (*args) *args++ = 0;
        lessonparse_directive(p, lineno, name, text_trim(args));
        return;
    }
    if (t[0] == '\\' && t[1] == '@') t++; /* "\@" starts a narrative line with a literal @ */
    if (!p->page) {
        lessonparse_error(p->errs, p->file, lineno, "text before the first @page: '%.40s'", t);
        return;
    }
    if (!p->para) p->para_line = lineno;
    append(p, &p->para, &p->para_len, t, " ");
}

void lesson_free(Lesson *l)
{
    if (!l) return;
    for (int i = 0; i < l->npages; i++) {
        LessonPage *pg = &l->pages[i];
        for (int b = 0; b < pg->nblocks; b++)
            free(pg->blocks[b].text);
        free(pg->blocks);
        free(pg->title);
        free(pg->question);
        free(pg->answer);
        free(pg->expect_value);
        free(pg->predict_stmt);
        free(pg->moves_from);
        free(pg->predict_ref);
        free(pg->hint);
    }
    free(l->pages);
    free(l->path);
    free(l->name);
    free(l->title);
    free(l->summary);
    free(l);
}

/* "lessons/02-heads.lesson" -> "02-heads". */
static char *lesson_name(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 7 && !strcmp(b + n - 7, ".lesson")) n -= 7;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = 0;
    }
    return s;
}

/* The whole parse; keep: return the lesson even when it has errors
 * (lesson_parse_partial). */
static Lesson *parse(const char *path, const char *text, size_t len, LessonErrors *errs, int keep)
{
    Parser p;
    memset(&p, 0, sizeof p);
    p.file = path;
    p.errs = errs;
    p.base = mha_config_default();
    int errs_before = errs->n + errs->dropped;
    Lesson *l = calloc(1, sizeof *l);
    if (!l) {
        lessonparse_error(errs, path, 1, "out of memory");
        return NULL;
    }
    p.l = l;
    l->path = xstrdup(path);
    l->name = lesson_name(path);

    /* Binary data: a NUL byte anywhere means this is not a text file. */
    const char *nul = memchr(text, 0, len);
    if (nul) {
        int line = 1;
        for (const char *s = text; s < nul; s++)
            line += *s == '\n';
        lessonparse_error(errs, path, line, "binary data (a NUL byte): a lesson is UTF-8 text");
        lesson_free(l);
        return NULL;
    }

    char *buf = malloc(LESSON_MAX_LINE + 1);
    if (!buf) {
        lessonparse_error(errs, path, 1, "out of memory");
        lesson_free(l);
        return NULL;
    }
    int lineno = 0, last_line = 1;
    size_t i = 0;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) i = 3; /* a UTF-8 BOM, as editors write */
    while (i < len) {
        const char *s = text + i;
        const char *eol = memchr(s, '\n', len - i);
        size_t n = eol ? (size_t)(eol - s) : len - i;
        i += n + (eol ? 1 : 0);
        lineno++;
        last_line = lineno;
        if (n > 0 && s[n - 1] == '\r') n--;
        if (n > LESSON_MAX_LINE) {
            lessonparse_error(errs, path, lineno, "line is %zu bytes long, the limit is %d", n,
                              LESSON_MAX_LINE);
            continue;
        }
        size_t bad = utf8_bad_at(s, n);
        if (bad) {
            lessonparse_error(errs, path, lineno, "invalid UTF-8 (byte 0x%02X at column %zu)",
                              (unsigned char)s[bad - 1], bad);
            continue;
        }
        uint32_t cc;
        size_t at = sanitize_control_at(s, n, &cc);
        if (at) {
            char one[8], shown[16];
            one[utf8_encode(cc, one)] = 0;
            lessonparse_error(
                errs, path, lineno,
                "control character %s at column %zu: a lesson is plain text (use spaces)",
                sanitize_text(one, shown, sizeof shown), at);
            continue;
        }
        memcpy(buf, s, n);
        buf[n] = 0;
        parse_line(&p, lineno, buf);
    }
    free(buf);
    lessonparse_flush_para(&p);
    if (p.code) {
        lessonparse_error(errs, path, p.code_line, "@code block is not closed (add a line '@end')");
        free(p.code);
        p.code = NULL;
    }
    if (len == 0 || lineno == 0)
        lessonparse_error(errs, path, 1, "empty lesson: it needs a @title and at least one @page");
    else if (!l->title)
        lessonparse_error(errs, path, 1, "no @title (the first directive of a lesson names it)");
    if (len > 0 && l->npages == 0)
        lessonparse_error(errs, path, last_line, "no @page: a lesson needs at least one page");
    for (int k = 0; k < l->npages; k++) {
        LessonPage *pg = &l->pages[k];
        if (pg->nblocks == 0 && !pg->question)
            lessonparse_error(errs, path, pg->line, "page '%.40s' has no text", pg->title);
        if (pg->step == MS_ROPE && pg->cfg.rope == ROPE_OFF)
            lessonparse_error(errs, path, pg->step_line,
                              "@step rope: this page's configuration has RoPE off "
                              "(add @config rope=half or rope=interleaved)");
        MhaConfig target;
        if (pg->todo && pg->todo != LD_INSPECT && lesson_do_target(pg, &target) != 0)
            lessonparse_error(errs, path, pg->do_line,
                              "@do %s %d: pressing the key never gets there from this page's "
                              "configuration (%s %d)",
                              lesson_do_names[pg->todo], pg->do_arg[0], lesson_do_names[pg->todo],
                              lesson_do_value(pg, &pg->cfg));
        else if (pg->todo && lesson_do_reached(pg, &pg->cfg, pg->inspect ? pg->cur : NULL))
            lessonparse_error(errs, path, pg->do_line, "@do %s: the page starts there already",
                              lesson_do_names[pg->todo]);
    }
    if (!l->summary) l->summary = xstrdup("");
    if (keep && !l->title) l->title = xstrdup(""); /* drawn by the checks that follow */
    int oom = p.oom || !l->path || !l->name || !l->summary || (keep && !l->title);
    if (oom) lessonparse_error(errs, path, lineno ? lineno : 1, "out of memory");
    if (oom || (!keep && errs->n + errs->dropped > errs_before)) {
        lesson_free(l);
        return NULL;
    }
    return l;
}

Lesson *lesson_parse(const char *path, const char *text, size_t len, LessonErrors *errs)
{
    return parse(path, text, len, errs, 0);
}

Lesson *lesson_parse_partial(const char *path, const char *text, size_t len, LessonErrors *errs)
{
    return parse(path, text, len, errs, 1);
}
