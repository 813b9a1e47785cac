/* page_screen.c - a lesson page: the narrative beside the scene, drawn by
 * draw/lessonpage.c.  A ui.h Screen: draws from state, keys return UI_*
 * flags; its keys are KC_PAGE in keys.c's one table.  Space goes through
 * every page of every lesson in order; progress marks each page finished. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/presets.h"
#include "draw/lessonpage.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"

typedef struct PageScreen {
    char src[4096]; /* what `r` reloads: the lesson's path */
    Lesson *l;
    PresetList presets;
    int page;
    Mha *m; /* run of the page's configuration */
    LessonPageText t;
    int have_text;
    char error[400]; /* the page cannot be shown: why (file:line: ...) */
    int pane, revealed;
    SharedProgress *prog;
} PageScreen;

/* Runs the current page's configuration and expands its text. */
static void page_load(PageScreen *ps)
{
    mha_free(ps->m);
    ps->m = NULL;
    if (ps->have_text) lesson_text_free(&ps->t);
    ps->have_text = 0;
    ps->error[0] = 0;
    ps->revealed = 0;
    char err[400];
    ps->m = mha_run(&ps->l->pages[ps->page].cfg, err, sizeof err);
    if (!ps->m) {
        snprintf(ps->error, sizeof ps->error, "%s:%d: %.300s", ps->l->path,
                 ps->l->pages[ps->page].line, err);
        return;
    }
    if (lesson_page_text(ps->l, ps->page, ps->m, &ps->presets, &ps->t, ps->error,
                         sizeof ps->error) == 0)
        ps->have_text = 1;
}

static void page_draw(Screen *s, const Ui *ui, Canvas *c)
{
    PageScreen *ps = s->st;
    canvas_clear(c);
    if (app_draw_enlarge(c)) return;
    const char *hint = ui->status[0] ? ui->status : NULL;
    if (!ps->have_text) {
        canvas_text(c, 1, 0, ps->l->title, ST_TITLE);
        canvas_wrap(c, 1, 2, c->w - 2, c->h - 4, ps->error, ST_BAD);
        canvas_wrap(c, 1, c->h - 4, c->w - 2, 2,
                    "Fix the lesson file and press r to reload, or PgUp/PgDn for another page.",
                    ST_DIM);
        app_draw_status(c, ui, "r reload  PgUp back  PgDn next  q lessons");
        return;
    }
    LessonView v = {.pane = ps->pane,
                    .revealed = ps->revealed,
                    .done = ps->prog && progress_done(&ps->prog->p, ps->l->name, ps->page),
                    .ascii = ui->ascii,
                    .hint = hint};
    lesson_draw(c, ps->l, ps->page, &ps->t, ps->m, &v);
}

static void page_mark(PageScreen *ps, Ui *ui)
{
    if (!ps->prog) return;
    if (progress_mark(&ps->prog->p, ps->l->name, ps->page) != 0 && ps->prog->p.warning[0]) {
        snprintf(ui->status, sizeof ui->status, "%.199s", ps->prog->p.warning);
        ps->prog->p.warning[0] = 0;
    }
}

/* The lesson after the one named name in lesson_list() order: its path in
 * path and its index returned; -1 when name is the last, -2 when it is not
 * listed (a file opened by path). */
static int lesson_after(const char *name, char *path, size_t n)
{
    char **paths, err[300];
    int np = lesson_list(&paths, err, sizeof err), next = -2;
    for (int i = 0; i < np && next == -2; i++) {
        const char *b = strrchr(paths[i], '/');
        b = b ? b + 1 : paths[i];
        size_t k = strlen(b);
        if (k > 7 && !strcmp(b + k - 7, ".lesson")) k -= 7;
        if (k == strlen(name) && !strncmp(b, name, k)) {
            next = i + 1 < np ? i + 1 : -1;
            if (next > 0) snprintf(path, n, "%s", paths[next]);
        }
    }
    if (np >= 0) lesson_list_free(paths, np);
    return next;
}

/* The last page is done: on to the next lesson in place of this one (Space
 * goes through all of them in order), or back to the menu after the last. */
static int page_finish(PageScreen *ps, Ui *ui)
{
    char done[160], path[4096];
    snprintf(done, sizeof done, "lesson finished: %.120s", ps->l->title);
    int next = lesson_after(ps->l->name, path, sizeof path);
    if (next >= 0) {
        char warn[200];
        snprintf(warn, sizeof warn, "%s", ui->status); /* a progress warning, if any */
        ui->status[0] = 0;
        ui->push = lessonui_page_open(ui, path, ps->prog);
        if (ui->push) {
            if (ps->prog) ps->prog->sel = next;
            const Lesson *nl = ((PageScreen *)ui->push->st)->l;
            if (warn[0])
                snprintf(ui->status, sizeof ui->status, "%s", warn);
            else
                snprintf(ui->status, sizeof ui->status, "%.90s. Next: %.80s", done, nl->title);
            return UI_BACK | UI_PUSH | UI_REDRAW;
        }
        if (warn[0]) snprintf(ui->status, sizeof ui->status, "%s", warn);
    }
    if (!ui->status[0])
        snprintf(ui->status, sizeof ui->status, "%s%s", done,
                 next == -1 ? ": that was the last lesson" : "");
    return UI_BACK | UI_REDRAW;
}

static int page_key(Screen *s, Ui *ui, int key)
{
    PageScreen *ps = s->st;
    LessonPage *pg = &ps->l->pages[ps->page];
    switch (app_action(KC_PAGE, key)) {
    case ACT_NEXT:
        if (ps->have_text && pg->question && pg->answer && !ps->revealed) {
            ps->revealed = 1; /* pause on the question: the first press shows the answer */
            return UI_REDRAW;
        }
        page_mark(ps, ui);
        if (ps->page + 1 >= ps->l->npages) return page_finish(ps, ui);
        ps->page++;
        page_load(ps);
        return UI_REDRAW;
    case ACT_PREV:
        if (ps->page == 0) {
            snprintf(ui->status, sizeof ui->status, "the first page (Space goes on)");
            return UI_REDRAW;
        }
        ps->page--;
        page_load(ps);
        return UI_REDRAW;
    case ACT_FIRST:
        ps->page = 0;
        page_load(ps);
        return UI_REDRAW;
    case ACT_LAST:
        ps->page = ps->l->npages - 1;
        page_load(ps);
        return UI_REDRAW;
    case ACT_PANE:
        ps->pane = !ps->pane;
        return UI_REDRAW;
    case ACT_RELOAD: {
        char path[4096], msg[400];
        Lesson *nl = lessonui_read(ps->src, path, sizeof path, msg, sizeof msg);
        if (!nl) {
            snprintf(ui->status, sizeof ui->status, "not reloaded: %.180s", msg);
            return UI_REDRAW;
        }
        lesson_free(ps->l);
        ps->l = nl;
        if (ps->page >= nl->npages) ps->page = nl->npages - 1;
        page_load(ps);
        snprintf(ui->status, sizeof ui->status, "reloaded %.150s: %d pages", path, nl->npages);
        return UI_REDRAW;
    }
    case ACT_HELP:
        return lessonui_help(ui, KC_PAGE);
    case ACT_BACK:
        return UI_BACK;
    default:
        return UI_NONE;
    }
}

static void page_free(Screen *s)
{
    PageScreen *ps = s->st;
    if (ps) {
        lesson_free(ps->l);
        mha_free(ps->m);
        if (ps->have_text) lesson_text_free(&ps->t);
        presets_free(&ps->presets);
        lessonui_progress_release(ps->prog);
    }
    app_screen_free(s);
}

/* A page screen for lesson src; NULL with the reason in ui->status. */
Screen *lessonui_page_open(Ui *ui, const char *src, SharedProgress *prog)
{
    char path[4096], msg[400];
    Lesson *l = lessonui_read(src, path, sizeof path, msg, sizeof msg);
    if (!l) {
        snprintf(ui->status, sizeof ui->status, "%.199s", msg);
        return NULL;
    }
    Screen *s = app_screen_new("Lesson", sizeof(PageScreen));
    if (!s) {
        lesson_free(l);
        snprintf(ui->status, sizeof ui->status, "out of memory");
        return NULL;
    }
    PageScreen *ps = s->st;
    s->draw = page_draw;
    s->key = page_key;
    s->free = page_free;
    ps->l = l;
    snprintf(ps->src, sizeof ps->src, "%s", path);
    if (presets_builtin(&ps->presets, msg, sizeof msg) != 0)
        ps->presets.n = 0; /* {kv ...} expressions then say "unknown preset" */
    if (prog) {
        prog->refs++;
        ps->prog = prog;
    } else {
        ps->prog = lessonui_progress_open(ui);
    }
    /* Start at the first unfinished page, as a bookmark. */
    while (ps->prog && ps->page + 1 < l->npages && progress_done(&ps->prog->p, l->name, ps->page))
        ps->page++;
    if (ps->prog && progress_count(&ps->prog->p, l->name) >= l->npages)
        ps->page = 0; /* finished before: start again from the top */
    page_load(ps);
    return s;
}

Screen *lesson_open(Ui *ui, const char *name)
{
    return lessonui_page_open(ui, name, NULL);
}
