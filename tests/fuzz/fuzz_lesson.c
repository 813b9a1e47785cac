/* fuzz_lesson.c - lesson files (lesson_parse), then every page whose
 * configuration is small filled in against a run of the engine
 * (lesson_page_text: the {expressions}); then the partial parse of
 * `lesson --check` and every expression error of its pages.  The input is not NUL-terminated,
 * as a file read into memory need not be. */
#include "fuzz.h"

#include "content/lesson.h"

/* Pages with bigger runs are parsed but not expanded: the engine's time is
 * not the parser's, and fuzz_expand covers the expressions. */
static int lesson_small(const MhaConfig *c)
{
    long tokens = (long)c->batch * c->seq;
    return tokens * c->d_model <= 4096 && tokens * c->seq * c->heads <= 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static PresetList presets;
    static int have_presets = -1;
    char err[320];
    if (have_presets < 0) have_presets = presets_builtin(&presets, err, sizeof err) == 0;
    LessonErrors *errs = calloc(1, sizeof *errs);
    if (!errs) abort();
    Lesson *l = lesson_parse("fuzz.lesson", (const char *)data, size, errs);
    FUZZ_ASSERT((l == NULL) == (errs->n > 0));
    for (int i = 0; i < errs->n && i < LESSON_MAX_ERRORS; i++)
        FUZZ_ASSERT(!strncmp(errs->msg[i], "fuzz.lesson:", 12) &&
                    fuzz_one_line(errs->msg[i], sizeof errs->msg[i]));
    for (int p = 0; l && p < l->npages; p++) {
        FUZZ_ASSERT(l->pages[p].title != NULL);
        if (!lesson_small(&l->pages[p].cfg)) continue;
        Mha *m = mha_run(&l->pages[p].cfg, err, sizeof err);
        if (!m) continue;
        LessonPageText t;
        if (lesson_page_text(l, p, m, have_presets ? &presets : NULL, &t, err, sizeof err) == 0) {
            FUZZ_ASSERT(t.n == l->pages[p].nblocks);
            lesson_text_free(&t);
        } else {
            FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
        }
        mha_free(m);
    }
    lesson_free(l);
    /* The partial parse `lesson --check` runs: the same errors, and what did
     * parse is checked page by page without a crash. */
    LessonErrors *all = calloc(1, sizeof *all);
    if (!all) abort();
    Lesson *pl = lesson_parse_partial("fuzz.lesson", (const char *)data, size, all);
    FUZZ_ASSERT(all->n == errs->n && all->dropped == errs->dropped);
    for (int p = 0; pl && p < pl->npages; p++) {
        if (!lesson_small(&pl->pages[p].cfg)) continue;
        Mha *m = mha_run(&pl->pages[p].cfg, err, sizeof err);
        if (!m) continue;
        int before = all->n + all->dropped;
        FUZZ_ASSERT(lesson_page_errors(pl, p, m, have_presets ? &presets : NULL, all) ==
                    all->n + all->dropped - before);
        mha_free(m);
    }
    lesson_free(pl);
    free(all);
    free(errs);
    return 0;
}
