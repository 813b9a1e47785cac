/* lessonparse.h - what the lesson parser's two files share: the Parser
 * (content/lesson.c reads the lines, content/lessondir.c runs the
 * directives) and the few functions each gives the other.  Private to them;
 * everything outside parses through content/lesson.h.
 *
 * It names the lesson types by their struct tags, without content/lesson.h,
 * so lesson.c can include it and no two modules include each other
 * (tests/layers.sh).
 */
#ifndef MHAVIZ_LESSONPARSE_H
#define MHAVIZ_LESSONPARSE_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/mha.h"

struct Lesson;
struct LessonPage;
struct LessonErrors;

/* One parse: where it is in the file and what it has built so far. */
typedef struct Parser {
    const char *file;
    struct LessonErrors *errs;
    struct Lesson *l;
    MhaConfig base; /* lesson-wide config (directives before the first @page) */
    int base_line;
    struct LessonPage *page; /* current page or NULL */
    char *para;              /* paragraph being gathered, or NULL */
    size_t para_len;
    int para_line;
    char *code; /* @code block being gathered, or NULL */
    size_t code_len;
    int code_line;
    int code_run; /* opened `@code run` */
    int oom;
} Parser;

/* Records "file:line: message" in e (content/lesson.c); past
 * LESSON_MAX_ERRORS it only counts it as dropped. */
void lessonparse_error(struct LessonErrors *e, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Appends a block of kind (a LessonBlockKind) to p->page, which must be
 * there, and takes text; when the page cannot grow, frees text and sets
 * p->oom (the parse then fails with "out of memory"). */
void lessonparse_add_block(Parser *p, int kind, int line, char *text);

/* Ends the paragraph being gathered: a block of the page, or dropped before
 * the first page. */
void lessonparse_flush_para(Parser *p);

/* Handles one "@name args" line (content/lessondir.c): the directive's row
 * of the table, its checks, its handler; every problem recorded with
 * lessonparse_error. */
void lessonparse_directive(Parser *p, int line, char *name, char *args);

/* A copy of s the caller frees, or NULL out of memory. */
static inline char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p) memcpy(p, s, n);
    return p;
}

#endif
