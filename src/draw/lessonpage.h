/* lessonpage.h - drawing a lesson page (content/lesson.h parses it), and the
 * checks that need the engine and the drawing. */
#ifndef MHAVIZ_LESSONPAGE_H
#define MHAVIZ_LESSONPAGE_H

#include "content/lesson.h"
#include "draw/scene.h"

/* How a page is being shown. */
typedef struct LessonView {
    int pane;         /* narrow terminals: 0 the text, 1 the picture */
    int revealed;     /* the answer to the page's question is shown */
    int finished;     /* finished before: 1 solved (a mark in the header), 2 revealed */
    int ascii;        /* glyphs for a non-UTF-8 terminal (ui->ascii) */
    int large;        /* the picture in large print (--large, ui->large) */
    const char *hint; /* the bottom line (the key hint); NULL: none */
    /* The page's exercise (@expect, @do), as the page screen holds it. */
    const char *typed;  /* @expect, not yet revealed: the answer being typed */
    size_t typed_after; /* its bytes after the cursor (0: the cursor at its end) */
    int verdict;        /* 1 right, -1 wrong (why says what is off), 0 not checked */
    const char *why;    /* with verdict -1 */
    int done;           /* @do: the action is done (the answer confirms it) */
    const char *doing;  /* @do, not done: where the learner is ("heads 2, want 4") */
    int picked;         /* @predict: the outcome the learner picked last (LP_*), 0 none */
    int inspecting;     /* the live inspect cursor cur overrides the page's @inspect */
    int cur[4];
    int scroll, values;                  /* SceneState's: hidden rows scrolled, heatmap values */
    const char *scroll_key, *values_key; /* their keys, named in the picture (NULL: none) */
    int *scroll_limit; /* SceneState's: set by the drawing to the largest useful scroll */
} LessonView;

/* Side by side needs this many columns (text column + an 80-column picture). */
#define LESSON_WIDE_W 115
#define LESSON_WIDE_H 26

/* Draws page p on the whole canvas: header, the text (wide: left column,
 * narrow: pane 0), the scene picture for the page's step/view/inspect (wide:
 * right, narrow: pane 1).  Returns 0, or 1 when the text did not fit (it is
 * clipped; lesson_check reports it as an error at 80x24 and 120x40). */
int lesson_draw(Canvas *c, const Lesson *l, int p, const LessonPageText *t, const Mha *m,
                const LessonView *v);

/* The scene state a page asks for (step, view, inspect cursor, single);
 * v (may be NULL) adds the live inspect cursor. */
SceneState lesson_scene_state(const LessonPage *pg, const LessonView *v);

/* Checks what needs the engine: each page's config runs, @inspect fits the
 * step's tensor, every {expression} expands, and each page fits at 80x24 and
 * 120x40.  Appends to errs; returns the number of errors it added. */
int lesson_check(const Lesson *l, const PresetList *presets, LessonErrors *errs);

#endif
