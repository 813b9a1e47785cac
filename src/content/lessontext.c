/* lessontext.c - a lesson page's text with its {expressions} filled in from
 * the run of the page's configuration (lessonvar.c evaluates them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/lesson.h"

/* Expanded text can be longer than what was written ({groupmap}); a page
 * never holds more than a screen, so this is plenty. */
#define EXPANDED_MAX 8192

void lesson_text_free(LessonPageText *t)
{
    for (int i = 0; i < t->n; i++)
        free(t->blocks[i]);
    free(t->blocks);
    free(t->question);
    free(t->answer);
    memset(t, 0, sizeof *t);
}

/* Expands one string into a new buffer; NULL with err = "file:line: ...". */
static char *expand_one(const Lesson *l, int line, const char *text, const Mha *m,
                        const PresetList *presets, char *err, size_t errlen)
{
    char *buf = malloc(EXPANDED_MAX);
    char e[300];
    if (!buf) {
        snprintf(err, errlen, "%s:%d: out of memory", l->path, line);
        return NULL;
    }
    if (lesson_expand(text, m, presets, buf, EXPANDED_MAX, e, sizeof e) != 0) {
        snprintf(err, errlen, "%s:%d: %s", l->path, line, e);
        free(buf);
        return NULL;
    }
    char *shrunk = realloc(buf, strlen(buf) + 1);
    return shrunk ? shrunk : buf;
}

int lesson_page_text(const Lesson *l, int p, const Mha *m, const PresetList *presets,
                     LessonPageText *t, char *err, size_t errlen)
{
    const LessonPage *pg = &l->pages[p];
    memset(t, 0, sizeof *t);
    t->blocks = calloc((size_t)pg->nblocks + 1, sizeof *t->blocks);
    if (!t->blocks) {
        snprintf(err, errlen, "%s:%d: out of memory", l->path, pg->line);
        return -1;
    }
    for (int i = 0; i < pg->nblocks; i++) {
        t->blocks[i] =
            expand_one(l, pg->blocks[i].line, pg->blocks[i].text, m, presets, err, errlen);
        if (!t->blocks[i]) goto fail;
        t->n++;
    }
    if (pg->question &&
        !(t->question = expand_one(l, pg->question_line, pg->question, m, presets, err, errlen)))
        goto fail;
    if (pg->answer &&
        !(t->answer = expand_one(l, pg->answer_line, pg->answer, m, presets, err, errlen)))
        goto fail;
    return 0;
fail:
    lesson_text_free(t);
    return -1;
}
