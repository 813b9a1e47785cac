/* lesson.h - lesson files: parsed, checked against the engine, expanded.
 *
 * The format is documented in lessons/README.md.  In short: "@directive args"
 * lines set the title, start pages and pick what the picture shows; other lines
 * are narrative (blank line = new paragraph) with `code`, **emphasis** and
 * {expressions} that the engine fills in at run time ({strides Q_split}).
 *
 *   Lesson (file) -> LessonPage[] -> LessonBlock[] (paragraph, code, highlight)
 *
 * Pure: no terminal, no file system (the caller reads the file).  Errors are
 * "file:line: message", collected in a LessonErrors so --check lists them all.
 */
#ifndef MHAVIZ_LESSON_H
#define MHAVIZ_LESSON_H

#include <stddef.h>

#include "engine/mha.h"
#include "content/presets.h"

#define LESSON_MAX_LINE 4096 /* bytes per line, newline excluded */
#define LESSON_MAX_PAGES 64
#define LESSON_MAX_ERRORS 32 /* --check lists at most this many, then "..." */

typedef enum { LB_PARA, LB_CODE, LB_HIGHLIGHT } LessonBlockKind;

typedef struct LessonBlock {
    LessonBlockKind kind;
    int line;   /* where it starts in the file */
    char *text; /* as written (expressions not expanded); code keeps its newlines */
} LessonBlock;

typedef struct LessonPage {
    char *title;
    int line;      /* its @page line */
    MhaConfig cfg; /* lesson-wide @config, then this page's */
    int cfg_line;  /* line of the @config that last changed cfg (0: defaults) */
    int step;      /* MS_*: the picture's pipeline step */
    MhaView view;
    int variants; /* @view variants: the MHA | GQA | MQA panel instead of the scene */
    int inspect, cur[4], inspect_line; /* @inspect i,j,k,l */
    int single;                        /* @single: big-head softmax beside the per-head ones */
    char *question;                    /* NULL when none; the page pauses on it */
    int question_line;
    char *answer; /* revealed on the next key press; may be NULL */
    int answer_line;
    LessonBlock *blocks;
    int nblocks;
} LessonPage;

typedef struct Lesson {
    char *path; /* as given ("lessons/02-heads.lesson") */
    char *name; /* basename without .lesson: "02-heads" (progress key) */
    char *title;
    char *summary; /* "" when none */
    LessonPage *pages;
    int npages;
} Lesson;

typedef struct LessonErrors {
    char msg[LESSON_MAX_ERRORS][320]; /* "file:line: message" */
    int n;
    int dropped; /* errors past LESSON_MAX_ERRORS */
} LessonErrors;

/* Appends one message (truncated to fit; counted in dropped when full). */
void lesson_error_add(LessonErrors *e, const char *msg);

/* Parses text (len bytes, may hold NULs: reported as binary data).  Returns a
 * new Lesson, or NULL when errs->n > 0 after parsing (every error found is in
 * errs).  path is used in messages and to name the lesson.  Free with
 * lesson_free(). */
Lesson *lesson_parse(const char *path, const char *text, size_t len, LessonErrors *errs);
void lesson_free(Lesson *l);

/* Expands {expressions} in text against the run m (for page p's config) and
 * the presets.  Writes at most n-1 bytes to out.  0, or -1 with a message
 * (without file:line) in err. */
int lesson_expand(const char *text, const Mha *m, const PresetList *presets, char *out, size_t n,
                  char *err, size_t errlen);

/* A page's text with every {expression} filled in from the run of its
 * configuration: what the screen and `lesson --frames` draw. */
typedef struct LessonPageText {
    char **blocks; /* one per LessonBlock, same order */
    int n;
    char *question, *answer; /* NULL when the page has none */
} LessonPageText;

/* Expands page p of l against m (a run of that page's cfg).  0, or -1 with
 * "file:line: message" in err (*t left empty).  Free with lesson_text_free. */
int lesson_page_text(const Lesson *l, int p, const Mha *m, const PresetList *presets,
                     LessonPageText *t, char *err, size_t errlen);
void lesson_text_free(LessonPageText *t);

/* The closest of candidates[0..nc) to word by edit distance, or NULL when none
 * is close enough to be a plausible typo. */
const char *lesson_suggest(const char *word, const char *const *candidates, int nc);

/* Reads a lesson: a compiled-in one by name ("02-heads" or
 * "lessons/02-heads.lesson"), a file path, or NAME inside $MHAVIZ_LESSONS.
 * On success *text is a new buffer (free it) and *path its display path.
 * 0, or -1 with err set. */
int lesson_load_text(const char *name, char **text, size_t *len, char *path, size_t pathn,
                     char *err, size_t errlen);

/* The lessons to list: every *.lesson in $MHAVIZ_LESSONS when it is set,
 * otherwise the compiled-in ones, sorted by path.  *paths is a new array of
 * new strings (free with lesson_list_free).  Returns the count, -1 on error. */
int lesson_list(char ***paths, char *err, size_t errlen);
void lesson_list_free(char **paths, int n);

#endif
