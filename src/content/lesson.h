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

#include "content/presets.h"
#include "engine/mha.h"

#define LESSON_MAX_LINE 4096 /* bytes per line, newline excluded */
#define LESSON_MAX_PAGES 64
#define LESSON_MAX_ERRORS 32 /* --check lists at most this many, then "..." */

typedef enum { LB_PARA, LB_CODE, LB_HIGHLIGHT } LessonBlockKind;

/* A checked exercise (lessons/README.md).  @expect KIND VALUE: the page's
 * @question takes a typed answer, checked as the quiz checks it against
 * VALUE (an {expression}).  @do WHAT ARG: the page waits for an action on
 * its picture (H, K, S change the page's configuration; i and the arrows
 * move the inspect cursor) and confirms it with the @answer. */
typedef enum { LE_NONE, LE_SHAPE, LE_STRIDES, LE_NUMBER, LE_INDEX, LE_COUNT } LessonExpect;
typedef enum { LD_NONE, LD_HEADS, LD_KV_HEADS, LD_SEQ, LD_INSPECT, LD_COUNT } LessonDo;
extern const char *const lesson_expect_names[LE_COUNT]; /* "", "shape", "strides", "number",
                                                          "index" */
extern const char *const lesson_do_names[LD_COUNT]; /* "", "heads", "kv_heads", "seq", "inspect" */

/* @predict OUTCOME STATEMENT [== REFERENCE]: the learner says what a line of
 * PyTorch does before the page runs it (in the playground, play.h, on the
 * page's tensors): wrong (it runs, the values differ from REFERENCE's),
 * raises (an error, in PyTorch's words), view (REFERENCE's values, no byte
 * copied) or copy (REFERENCE's values, bytes copied).  The engine decides:
 * `lesson --check` refuses an OUTCOME the run contradicts. */
typedef enum { LP_NONE, LP_WRONG, LP_RAISES, LP_VIEW, LP_COPY, LP_COUNT } LessonPredict;
extern const char *const lesson_predict_names[LP_COUNT]; /* "", "wrong", "raises", "view", "copy" */
/* What the learner picks from, key 1 to 4: "silently wrong", ... */
extern const char *const lesson_predict_words[LP_COUNT];

/* @predict index|offset STATEMENT <- TENSOR[i,j,...]: "which cell moves".
 * The learner types where STATEMENT puts the element TENSOR[i,j,...]: its
 * index in the result (index) or its offset in the result's storage
 * (offset).  A typed exercise (pg->expect is LE_INDEX or LE_NUMBER, its
 * value found at run time by lesson_moves_run, not written) that counts as
 * a prediction (pg->moves). */

typedef struct LessonBlock {
    LessonBlockKind kind;
    int line;   /* where it starts in the file */
    char *text; /* as written (expressions not expanded); code keeps its newlines */
    int run;    /* LB_CODE opened `@code run`: PyTorch the page's run executes */
} LessonBlock;

typedef struct LessonPage {
    char *title;
    int line;      /* its @page line */
    MhaConfig cfg; /* lesson-wide @config, then this page's */
    int cfg_line;  /* line of the @config that last changed cfg (0: defaults) */
    int step;      /* MS_*: the picture's pipeline step */
    int step_line; /* line of its @step (0: none) */
    MhaView view;
    int variants; /* @view variants: the MHA | GQA | MQA panel instead of the scene */
    int inspect, cur[4], inspect_line; /* @inspect i,j,k,l */
    int single;                        /* @single: big-head softmax beside the per-head ones */
    char *question;                    /* NULL when none; the page pauses on it */
    int question_line;
    char *answer; /* revealed on the next key press; may be NULL */
    int answer_line;
    LessonExpect expect; /* LE_NONE, or the question takes a typed answer */
    char *expect_value;  /* the answer as written: "{shape Q_heads}" */
    int expect_line;
    LessonDo todo; /* LD_NONE, or what the page waits for */
    int do_arg[4]; /* LD_INSPECT: the index; else the value to reach */
    int do_line;
    LessonPredict predict; /* LP_NONE, or the learner predicts what predict_stmt does */
    char *predict_stmt;    /* as written, {expressions} not expanded */
    char *predict_ref;     /* the REFERENCE after "==", or NULL (raises) */
    int predict_line;
    int moves;        /* 1: @predict index|offset (pg->expect, predict_stmt, moves_from) */
    char *moves_from; /* the element followed, as written: "Q_split[0,{seq - 1},1,3]" */
    char *hint;       /* @hint: shown after a wrong answer (what to look at); may be NULL */
    int hint_line;
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

/* As lesson_parse, but the lesson comes back even when errs got errors, so
 * `lesson --check` can go on and check what did parse (its expressions, its
 * pages against the engine and the screen) and list every error of the file
 * in one run.  A line with an error left the lesson as it was before that
 * line.  NULL only for binary data or no memory.  Never draw or open it when
 * errs grew: only check it. */
Lesson *lesson_parse_partial(const char *path, const char *text, size_t len, LessonErrors *errs);
void lesson_free(Lesson *l);

/* Expanded text can be longer than what was written ({groupmap}); a page
 * never holds more than a screen, so this is plenty. */
#define LESSON_EXPANDED_MAX 8192

/* Expands {expressions} in text against the run m (for page p's config) and
 * the presets.  Writes at most n-1 bytes to out.  0, or -1 with a message
 * (without file:line) in err. */
int lesson_expand(const char *text, const Mha *m, const PresetList *presets, char *out, size_t n,
                  char *err, size_t errlen);

/* Every error lesson_expand meets in text, not only the first: each failing
 * expression is added to errs as "file:line: message" and the others still
 * expand (a brace out of place ends it).  Returns how many were added. */
int lesson_expand_errors(const char *text, const Mha *m, const PresetList *presets,
                         const char *file, int line, LessonErrors *errs);

/* A page's text with every {expression} filled in from the run of its
 * configuration: what the screen and `lesson --frames` draw. */
typedef struct LessonPageText {
    char **blocks; /* one per LessonBlock, same order */
    /* one per LessonBlock: a runnable code block's shapes from its run, a
     * line for each of its lines (lesson_code_run), else NULL */
    char **shapes;
    int n;
    char *question, *answer; /* NULL when the page has none; a @do page's answer is
                              * expanded against the configuration it asks for */
    char *expect;            /* @expect: the value expanded ("(1, 2, 4, 4)"), else NULL */
    char *notice;            /* "" or the configuration change this page makes, in words */
    char *hint;              /* @hint expanded, else NULL */
    char *stmt, *ref;        /* @predict: the statement and reference expanded, else NULL */
    LessonPredict outcome;   /* @predict: what the engine says the statement does */
    char *result;            /* @predict: the engine's run in words (or why it failed);
                              * index|offset: where the element went, and why */
} LessonPageText;

/* Expands page p of l against m (a run of that page's cfg).  0, or -1 with
 * "file:line: message" in err (*t left empty).  Free with lesson_text_free. */
int lesson_page_text(const Lesson *l, int p, const Mha *m, const PresetList *presets,
                     LessonPageText *t, char *err, size_t errlen);
void lesson_text_free(LessonPageText *t);

/* Every {expression} of page p that lesson_page_text cannot expand, each
 * added to errs as "file:line: message" (lesson_page_text stops at the
 * first).  Returns how many were added. */
int lesson_page_errors(const Lesson *l, int p, const Mha *m, const PresetList *presets,
                       LessonErrors *errs);

/* ---- exercises (lessonex.c) -------------------------------------------- */

/* The exercises of a lesson by kind; reveal: questions that only have an
 * @answer (Space shows it), which check nothing. */
typedef struct LessonCount {
    int typed, todo, predict, reveal;
} LessonCount;
LessonCount lesson_count(const Lesson *l);
static inline int lesson_checked(LessonCount c)
{
    return c.typed + c.todo + c.predict;
}

/* What the built-in course promises (issue 17): every lesson at least
 * LESSON_MIN_CHECKED checked exercises and no reveal-only question; the
 * course at least LESSON_COURSE_CHECKED of them, LESSON_COURSE_PREDICT of
 * them predictions.  `lesson --check` of the built-in list enforces it. */
#define LESSON_MIN_CHECKED 3
#define LESSON_COURSE_CHECKED 30
#define LESSON_COURSE_PREDICT 8

/* Parses the arguments of "@expect KIND VALUE" / "@do WHAT ARG" into pg.
 * 0, or -1 with the message (no file:line) in err. */
int lesson_parse_expect(LessonPage *pg, const char *args, char *err, size_t errlen);
int lesson_parse_do(LessonPage *pg, const char *args, char *err, size_t errlen);
int lesson_parse_predict(LessonPage *pg, const char *args, char *err, size_t errlen);

/* Runs stmt, then ref (NULL: none), in a new playground holding run m's
 * tensors, and says what stmt does: LP_RAISES, or LP_WRONG, LP_VIEW,
 * LP_COPY against ref's values (without ref: LP_VIEW or LP_COPY).  shown
 * gets the run in words, for the learner: "raises: view size is not ..." or
 * "shape (1, 2, 4, 4), strides (32, 16, 4, 1): a view, 0 bytes copied;
 * element [0,0,1,0] is 0.5 where Q_heads has 0.3".  LP_NONE with the reason
 * in shown when ref fails or a line does not parse. */
LessonPredict lesson_predict_run(const char *stmt, const char *ref, const Mha *m, char *shown,
                                 size_t n);

/* "Which cell moves": runs stmt in a new playground holding run m's
 * tensors, then again with the element from ("Q_split[0,2,1,3]") of one of
 * them changed (on a copy of its storage: m is untouched), and finds the
 * cells of the result that changed.  kind LE_INDEX: the one cell's index
 * into answer ("(0, 1, 2, 3)"); LE_NUMBER: the storage offset they all
 * have in the result's storage ("13").  shown gets the run in words.  0, or
 * -1 with the reason in shown: stmt raises or is no tensor, from is no
 * element of a tensor, no cell changed, or the answer is not one (two cells
 * for an index, two offsets). */
int lesson_moves_run(const char *stmt, const char *from, LessonExpect kind, const Mha *m,
                     char *answer, size_t answern, char *shown, size_t n);
/* Runs code (a runnable @code block, expanded: one statement a line) in a
 * new playground holding run m's tensors and sizes, as lesson_predict_run
 * does.  shapes gets one line (ended by '\n') per line of code: the shape
 * its result has, "(1, 2, 4, 4)", a tuple's shapes, a value, or "" for a
 * blank line or a comment.  0 when every line ran; else the 1-based line
 * that failed, with "NameError: name 'q' is not defined" (the Python
 * exception's name, then PyTorch's words) in err. */
int lesson_code_run(const char *code, const Mha *m, char *shapes, size_t n, char *err,
                    size_t errlen);

/* The next value of the knob a key turns, as the walkthrough's H, K, S do:
 * heads the next divisor of d_model (MHA stays MHA), kv_heads the next
 * smaller divisor of heads (MHA -> GQA -> MQA -> MHA), seq 2..8.  0, or -1
 * for a knob that is not a configuration field (LD_INSPECT, LD_NONE). */
int lesson_config_next(MhaConfig *c, LessonDo knob);

/* The configuration a @do heads/kv_heads/seq page asks for: the page's
 * with that field set (kv_heads following heads as H does).  0, or -1
 * when the page's @do is not about the configuration. */
int lesson_do_target(const LessonPage *pg, MhaConfig *target);

/* The field a config @do turns, read from c (heads, kv_heads or seq). */
int lesson_do_value(const LessonPage *pg, const MhaConfig *c);

/* Is the @do done?  live: the configuration on screen; cur: the inspect
 * cursor (NULL when not inspecting). */
int lesson_do_reached(const LessonPage *pg, const MhaConfig *live, const int *cur);

/* Checks the expanded @expect value reads as its kind (a shape, strides: a
 * tuple; a number).  0, or -1 with err. */
int lesson_expect_valid(LessonExpect kind, const char *value, char *err, size_t errlen);

/* Checks a typed answer against the expanded @expect value, with the quiz's
 * answer reader (quiz.h): 1 right, 0 wrong, -1 when the text cannot be read
 * as the kind; why says what was expected or what is off. */
int lesson_expect_check(LessonExpect kind, const char *value, const char *typed, char *why,
                        size_t whylen);

/* "d_model 8 -> 16, heads 2 -> 4" for the fields that differ from a to b;
 * "" when none.  Returns buf. */
char *lesson_config_diff(const MhaConfig *a, const MhaConfig *b, char *buf, size_t n);

/* Reads a lesson: a compiled-in one by name ("02-heads" or
 * "lessons/02-heads.lesson"), a file path, or NAME inside $MHAVIZ_LESSONS.
 * On success *text is a new buffer (free it) and *path its display path.
 * 0; -1 with err set when a file cannot be read (exit 1, cmd/cli.h); or
 * LESSON_NO_SUCH with err set when name is no path (no '/' or '.') and no
 * lesson's name or number: "11: no such lesson, the lessons are 1 to 10"
 * (a usage error, exit 2). */
#define LESSON_NO_SUCH (-2)
int lesson_load_text(const char *name, char **text, size_t *len, char *path, size_t pathn,
                     char *err, size_t errlen);

/* The lessons to list: every *.lesson in $MHAVIZ_LESSONS when it is set,
 * otherwise the compiled-in ones, sorted by path.  *paths is a new array of
 * new strings (free with lesson_list_free).  Returns the count, or -1 with
 * err set: the directory cannot be read, holds no .lesson file ("no .lesson
 * files in DIR"), or no memory; each an I/O error (exit 1). */
int lesson_list(char ***paths, char *err, size_t errlen);
void lesson_list_free(char **paths, int n);

#endif
