/* lessonui.c - the lesson menu, a lesson page, the variants screen and the
 * KV calculator: ui.h Screens (draw from state, keys return UI_* flags, no
 * curses).  Their keys are in app.c's one table (KC_LESSONS, KC_PAGE,
 * KC_VARIANTS, KC_KV), looked up with app_action; `?` opens app.c's help,
 * generated from that table. */
#include "ui/lessonui.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/keys.h"
#include "ui/help.h"
#include "ui/screen.h"
#include "content/kv.h"
#include "content/lesson.h"
#include "draw/lessonpage.h"
#include "content/presets.h"
#include "store/progress.h"
#include "draw/scene.h"
#include "draw/variants.h"

/* The `?` screen (app.c, from the one key table), at ctx's section; UI_PUSH,
 * or UI_REDRAW with the reason. */
static int push_help(Ui *ui, unsigned ctx)
{
    ui->push = help_open_at(ui, ctx);
    if (!ui->push) {
        snprintf(ui->status, sizeof ui->status, "out of memory");
        return UI_REDRAW;
    }
    return UI_PUSH | UI_REDRAW;
}

/* ---- progress shared by the menu and the pages it opens ------------------------ */

/* The menu owns one Progress; a page opened from it points at it, a page
 * opened alone (`mhaviz lesson 2`) loads its own.  sel is the menu's
 * selection: a finished lesson that goes on to the next one moves it there,
 * so q from any lesson comes back to the menu on that lesson. */
typedef struct SharedProgress {
    Progress p;
    int refs;
    int sel; /* index in lesson_list() order */
} SharedProgress;

static SharedProgress *progress_open(Ui *ui)
{
    SharedProgress *sp = malloc(sizeof *sp);
    if (!sp) return NULL;
    progress_load(&sp->p, ui->no_save);
    sp->refs = 1;
    sp->sel = 0;
    if (sp->p.warning[0]) { /* reported once */
        snprintf(ui->status, sizeof ui->status, "%.199s", sp->p.warning);
        sp->p.warning[0] = 0;
    }
    return sp;
}

static void progress_release(SharedProgress *sp)
{
    if (sp && --sp->refs == 0) {
        progress_save(&sp->p); /* the last page turns, at exit */
        free(sp);
    }
}

/* ---- a lesson page ------------------------------------------------------------- */

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
    double save_at; /* when the pages marked done are saved; 0 = none pending */
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

/* Reads and parses src; the new lesson, or NULL with the first error in msg. */
static Lesson *lesson_read(const char *src, char *path, size_t pathn, char *msg, size_t msgn)
{
    char *text = NULL, err[400];
    size_t len = 0;
    if (lesson_load_text(src, &text, &len, path, pathn, err, sizeof err) != 0) {
        snprintf(msg, msgn, "%s", err);
        return NULL;
    }
    LessonErrors e = {0};
    Lesson *l = lesson_parse(path, text, len, &e);
    free(text);
    if (!l)
        snprintf(msg, msgn, "%s%s", e.msg[0],
                 e.n + e.dropped > 1 ? " (and more: mhaviz lesson --check)" : "");
    return l;
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

/* Marks the page done in memory; page_tick saves it after the frame. */
static void page_mark(PageScreen *ps, Ui *ui)
{
    (void)ui;
    if (ps->prog) progress_set(&ps->prog->p, ps->l->name, ps->page);
}

/* A page turn never waits for the disk: the tick before the frame only asks
 * for more ticks (UI_ANIMATE), the save comes PAGE_SAVE_SEC later, after the
 * frame is out, and holds every page turned meanwhile (one save, not one per
 * key).  The rest is saved when the screen closes (progress_release). */
#define PAGE_SAVE_SEC 0.5
static int page_tick(Screen *s, Ui *ui, double now)
{
    PageScreen *ps = s->st;
    if (!ps->prog || !ps->prog->p.dirty || ps->prog->p.no_save) return UI_NONE;
    if (ps->save_at == 0) ps->save_at = now + PAGE_SAVE_SEC;
    if (now < ps->save_at) return UI_ANIMATE;
    ps->save_at = 0;
    if (progress_save(&ps->prog->p) != 0 && ps->prog->p.warning[0]) {
        snprintf(ui->status, sizeof ui->status, "%.199s", ps->prog->p.warning);
        ps->prog->p.warning[0] = 0;
        return UI_REDRAW;
    }
    return UI_NONE;
}

static Screen *page_open(Ui *ui, const char *src, SharedProgress *prog);

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
        ui->push = page_open(ui, path, ps->prog);
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
        Lesson *nl = lesson_read(ps->src, path, sizeof path, msg, sizeof msg);
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
        return push_help(ui, KC_PAGE);
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
        if (ps->prog) progress_save(&ps->prog->p); /* back at the menu: saved */
        progress_release(ps->prog);
    }
    app_screen_free(s);
}

/* A page screen for lesson src; NULL with the reason in ui->status. */
static Screen *page_open(Ui *ui, const char *src, SharedProgress *prog)
{
    char path[4096], msg[400];
    Lesson *l = lesson_read(src, path, sizeof path, msg, sizeof msg);
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
    s->tick = page_tick;
    s->free = page_free;
    ps->l = l;
    snprintf(ps->src, sizeof ps->src, "%s", path);
    if (presets_builtin(&ps->presets, msg, sizeof msg) != 0)
        ps->presets.n = 0; /* {kv ...} expressions then say "unknown preset" */
    if (prog) {
        prog->refs++;
        ps->prog = prog;
    } else {
        ps->prog = progress_open(ui);
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
    return page_open(ui, name, NULL);
}

/* ---- the lesson menu --------------------------------------------------------------- */

typedef struct MenuItem {
    char path[512], name[64], title[120], summary[200];
    int npages;
    char error[320]; /* "" or why it does not parse */
} MenuItem;

typedef struct Menu {
    MenuItem *items;
    int n, own_sel; /* own_sel: the selection when there is no shared progress */
    SharedProgress *prog;
} Menu;

/* The selected lesson: shared with the pages, which move it on. */
static int *menu_sel(Menu *mn)
{
    int *sel = mn->prog ? &mn->prog->sel : &mn->own_sel;
    if (*sel < 0 || *sel >= mn->n) *sel = 0;
    return sel;
}

static void menu_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Menu *mn = s->st;
    int sel = *menu_sel(mn);
    canvas_clear(c);
    if (app_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "Lessons", ST_TITLE);
    canvas_text(c, 10, 0, "go through them in order; finished pages are marked", ST_DIM);
    int y = 2;
    for (int i = 0; i < mn->n && y < c->h - 3; i++) {
        MenuItem *it = &mn->items[i];
        Style st = i == sel ? ST_CURSOR : ST_NORMAL;
        canvas_fill(c, 1, y, c->w - 2, 1, ' ', st);
        canvas_printf(c, 2, y, st, "%-44.44s", it->title);
        if (it->error[0]) {
            canvas_text(c, 48, y, "cannot be opened", ST_BAD);
        } else {
            int done = mn->prog ? progress_count(&mn->prog->p, it->name) : 0;
            int x = 48;
            for (int p = 0; p < it->npages && x < c->w - 8; p++, x++)
                canvas_put(c, x, y,
                           mn->prog && progress_done(&mn->prog->p, it->name, p)
                               ? (ui->ascii ? '#' : 0x25A0)
                               : (ui->ascii ? '.' : 0x00B7),
                           done == it->npages ? ST_GOOD : ST_HEAD0); /* ■ done, · not yet */
            canvas_printf(c, x + 1, y, done == it->npages ? ST_GOOD : ST_DIM, "%d/%d", done,
                          it->npages);
        }
        y++;
    }
    if (mn->n == 0) {
        canvas_text(c, 2, 2, "No lessons found.", ST_WARN);
    } else {
        MenuItem *it = &mn->items[sel];
        canvas_wrap(c, 2, c->h - 4, c->w - 4, 2, it->error[0] ? it->error : it->summary,
                    it->error[0] ? ST_BAD : ST_NORMAL);
    }
    app_draw_status(c, ui, "Up/Down choose  Enter open  1-9 open lesson N  ? keys  q back");
}

static int menu_key(Screen *s, Ui *ui, int key)
{
    Menu *mn = s->st;
    int *sel = menu_sel(mn);
    Action a = app_action(KC_LESSONS, key);
    if (mn->n == 0 && a != ACT_BACK && a != ACT_HELP) return UI_NONE;
    switch (a) {
    case ACT_UP:
        *sel = (*sel + mn->n - 1) % mn->n;
        return UI_REDRAW;
    case ACT_DOWN:
        *sel = (*sel + 1) % mn->n;
        return UI_REDRAW;
    case ACT_DIGIT:
        if (key - '1' >= mn->n) return UI_NONE;
        *sel = key - '1';
        /* fall through */
    case ACT_OPEN:
        ui->push = page_open(ui, mn->items[*sel].path, mn->prog);
        return ui->push ? UI_PUSH | UI_REDRAW : UI_REDRAW;
    case ACT_HELP:
        return push_help(ui, KC_LESSONS);
    case ACT_BACK:
        return UI_BACK;
    default:
        return UI_NONE;
    }
}

static void menu_free(Screen *s)
{
    Menu *mn = s->st;
    if (mn) {
        free(mn->items);
        progress_release(mn->prog);
    }
    app_screen_free(s);
}

Screen *lessons_open(Ui *ui)
{
    Screen *s = app_screen_new("Lessons", sizeof(Menu));
    if (!s) return NULL;
    Menu *mn = s->st;
    s->draw = menu_draw;
    s->key = menu_key;
    s->free = menu_free;
    char **paths, err[300];
    int n = lesson_list(&paths, err, sizeof err);
    if (n < 0) {
        snprintf(ui->status, sizeof ui->status, "%.199s", err);
        n = 0;
        paths = NULL;
    }
    mn->items = calloc((size_t)n + 1, sizeof *mn->items);
    for (int i = 0; mn->items && i < n; i++) {
        MenuItem *it = &mn->items[mn->n++];
        char path[4096], msg[400];
        snprintf(it->path, sizeof it->path, "%s", paths[i]);
        Lesson *l = lesson_read(paths[i], path, sizeof path, msg, sizeof msg);
        if (l) {
            snprintf(it->name, sizeof it->name, "%s", l->name);
            snprintf(it->title, sizeof it->title, "%s", l->title);
            snprintf(it->summary, sizeof it->summary, "%s", l->summary);
            it->npages = l->npages;
            lesson_free(l);
        } else {
            snprintf(it->title, sizeof it->title, "%s", paths[i]);
            snprintf(it->error, sizeof it->error, "%.300s", msg);
        }
    }
    lesson_list_free(paths, n);
    mn->prog = progress_open(ui);
    /* Start on the first lesson not yet finished. */
    int *sel = menu_sel(mn);
    for (*sel = 0; mn->prog && *sel + 1 < mn->n; ++*sel)
        if (progress_count(&mn->prog->p, mn->items[*sel].name) < mn->items[*sel].npages)
            break;
    return s;
}

/* ---- variants: MHA | GQA | MQA ------------------------------------------------------- */

typedef struct Variants {
    MhaConfig base; /* ui->cfg the runs were made for */
    int valid;
    VariantRuns runs;
} Variants;

/* The three runs are a cache of ui->cfg, redone here (never in draw) when
 * the configuration changed: by a key here, or on a screen above this one. */
static int variants_tick(Screen *s, Ui *ui, double now)
{
    (void)now;
    Variants *v = s->st;
    if (v->valid && !memcmp(&v->base, &ui->cfg, sizeof v->base)) return 0;
    variants_run(&v->runs, &ui->cfg, v->runs.gqa_kv);
    v->base = ui->cfg;
    v->valid = 1;
    return UI_REDRAW;
}

static void variants_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Variants *v = s->st;
    canvas_clear(c);
    if (app_draw_enlarge(c)) return;
    canvas_printf(c, 1, 0, ST_TITLE, "MHA | GQA | MQA");
    canvas_printf(c, 18, 0, ST_DIM, "seq %d, d_model %d, %d query heads of d_head %d", ui->cfg.seq,
                  ui->cfg.d_model, ui->cfg.heads, ui->cfg.d_model / ui->cfg.heads);
    variants_draw_panel(c, 0, 1, c->w, c->h - 2, &v->runs);
    app_draw_status(c, ui,
                    v->runs.run[1] ? "K/Right/Left: GQA kv heads  H: heads  ? keys  q back"
                                   : "H: more heads, for a GQA column  ? keys  q back");
}

static int variants_key(Screen *s, Ui *ui, int key)
{
    Variants *v = s->st;
    switch (app_action(KC_VARIANTS, key)) {
    case ACT_GQA_NEXT:
    case ACT_GQA_PREV: {
        int k = variants_next_gqa(ui->cfg.heads, v->runs.gqa_kv ? v->runs.gqa_kv : ui->cfg.heads,
                                  app_action(KC_VARIANTS, key) == ACT_GQA_NEXT ? 1 : -1);
        if (!k) {
            snprintf(ui->status, sizeof ui->status,
                     "%d query heads have no GQA (no kv_heads strictly between 1 and %d divides "
                     "%d): press H for more heads",
                     ui->cfg.heads, ui->cfg.heads, ui->cfg.heads);
            return UI_REDRAW;
        }
        v->runs.gqa_kv = k;
        v->valid = 0;
        MhaConfig c = ui->cfg;
        c.kv_heads = k; /* the rest of the program follows: the walkthrough shows this GQA too */
        ui_set_config(ui, &c);
        return UI_REDRAW;
    }
    case ACT_HEADS:
        v->valid = 0;
        return app_quick_config(ui, ACT_HEADS);
    case ACT_HELP:
        return push_help(ui, KC_VARIANTS);
    case ACT_BACK:
        return UI_BACK;
    default:
        return UI_NONE;
    }
}

static void variants_free(Screen *s)
{
    Variants *v = s->st;
    if (v) variants_free_runs(&v->runs);
    app_screen_free(s);
}

Screen *variants_open(Ui *ui)
{
    (void)ui;
    Screen *s = app_screen_new("Variants", sizeof(Variants));
    if (!s) return NULL;
    s->draw = variants_draw;
    s->key = variants_key;
    s->tick = variants_tick;
    s->free = variants_free;
    return s;
}

/* ---- the KV calculator ----------------------------------------------------------------- */

typedef struct KvCalc {
    PresetList presets;
    int sel, dtype;
    long context, batch; /* context 0: the preset's own */
    char err[200];
} KvCalc;

static void kvcalc_draw(Screen *s, const Ui *ui, Canvas *c)
{
    KvCalc *k = s->st;
    canvas_clear(c);
    if (app_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "KV-cache calculator", ST_TITLE);
    canvas_text(c, 22, 0, "cached K and V bytes, per token and per sequence", ST_DIM);
    if (k->presets.n == 0) {
        canvas_text(c, 1, 2, k->err, ST_BAD);
        app_draw_status(c, ui, "q back");
        return;
    }
    int lw = 20;
    for (int i = 0; i < k->presets.n && 2 + i < c->h - 2; i++)
        canvas_printf(c, 1, 2 + i, i == k->sel ? ST_CURSOR : ST_NORMAL, "%s%-*.*s",
                      i == k->sel ? ">" : " ", lw - 3, lw - 3, k->presets.v[i].name);
    const Preset *p = &k->presets.v[k->sel];
    const KvDtype *dt = &kv_dtypes[k->dtype];
    long ctx = k->context ? k->context : p->context ? p->context : 4096;
    int x = lw + 1, y = 2, w = c->w - x - 1;
    char a[40], b[40], d[40];
    canvas_text(c, x, y++, p->title, ST_BOLD);
    canvas_printf(c, x, y++, ST_NORMAL,
                  "%ld layers, %ld query heads, %ld kv heads (%s), d_head %ld", p->layers, p->heads,
                  p->kv_heads, presets_kind(p->heads, p->kv_heads), p->d_head);
    canvas_printf(c, x, y++, ST_NORMAL, "dtype %s (%d bits)   context %s   batch %ld", dt->name,
                  dt->bits, kv_fmt_int(a, sizeof a, (uint64_t)ctx), k->batch);
    y++;
    KvModel m = {p->layers, p->heads, p->kv_heads, p->d_head};
    KvRow rows[3];
    int n = 0;
    char err[200];
    if (kv_table(&m, dt->bits, ctx, k->batch, rows, &n, err, sizeof err) != 0) {
        canvas_wrap(c, x, y, w, 2, err, ST_BAD);
        app_draw_status(c, ui, "Up/Down model  d dtype  +/- context  B/b batch  q back");
        return;
    }
    const KvRow *own = &rows[0];
    for (int i = 0; i < n; i++)
        if (rows[i].is_model) own = &rows[i];
    canvas_text(c, x, y++, "2 (K,V) x layers x kv_heads x d_head x bits/8", ST_DIM);
    canvas_printf(c, x, y++, ST_CODE, "2 x %ld x %ld x %ld x %d/8 = %s B/token", p->layers,
                  p->kv_heads, p->d_head, dt->bits, kv_fmt_int(a, sizeof a, own->per_token));
    canvas_printf(c, x, y++, ST_CODE, "x %s tokens x %ld = %s",
                  kv_fmt_int(b, sizeof b, (uint64_t)ctx), k->batch,
                  kv_fmt_size(d, sizeof d, own->total));
    y++;
    canvas_printf(c, x, y++, ST_BOLD, "%-17s %4s %11s %10s %10s", "variant", "kv", "B/token",
                  "sequence", "total");
    for (int i = 0; i < n; i++) {
        char t1[40], t2[40], t3[40];
        canvas_printf(c, x, y++, rows[i].is_model ? ST_GOOD : ST_NORMAL,
                      "%-17s %4ld %11s %10s %10s", rows[i].label, rows[i].kv_heads,
                      kv_fmt_int(t1, sizeof t1, rows[i].per_token),
                      kv_fmt_size(t2, sizeof t2, rows[i].per_context),
                      kv_fmt_size(t3, sizeof t3, rows[i].total));
    }
    y++;
    int used = canvas_wrap(c, x, y, w, c->h - 2 - y, p->note[0] ? p->note : p->source,
                           p->note[0] ? ST_WARN : ST_DIM);
    y += used + 1;
    if (p->note[0] && y < c->h - 2) canvas_wrap(c, x, y, w, c->h - 2 - y, p->source, ST_DIM);
    app_draw_status(c, ui, "Up/Down model  d dtype  +/- context  B/b batch  q back");
}

static int kvcalc_key(Screen *s, Ui *ui, int key)
{
    KvCalc *k = s->st;
    if (k->presets.n == 0) return app_action(KC_KV, key) == ACT_BACK ? UI_BACK : UI_NONE;
    const Preset *p = &k->presets.v[k->sel];
    long ctx = k->context ? k->context : p->context ? p->context : 4096;
    switch (app_action(KC_KV, key)) {
    case ACT_UP:
        k->sel = (k->sel + k->presets.n - 1) % k->presets.n;
        k->context = 0;
        return UI_REDRAW;
    case ACT_DOWN:
        k->sel = (k->sel + 1) % k->presets.n;
        k->context = 0;
        return UI_REDRAW;
    case ACT_DTYPE:
        k->dtype = kv_dtypes[k->dtype + 1].name ? k->dtype + 1 : 0;
        return UI_REDRAW;
    case ACT_CONTEXT_UP:
        if (ctx >= 1L << 30) {
            snprintf(ui->status, sizeof ui->status, "context is at its largest here");
            return UI_REDRAW;
        }
        k->context = ctx * 2;
        return UI_REDRAW;
    case ACT_CONTEXT_DOWN:
        k->context = ctx > 1 ? ctx / 2 : 1;
        return UI_REDRAW;
    case ACT_BATCH_UP:
        k->batch = k->batch < 1L << 20 ? k->batch * 2 : k->batch;
        return UI_REDRAW;
    case ACT_BATCH_DOWN:
        k->batch = k->batch > 1 ? k->batch / 2 : 1;
        return UI_REDRAW;
    case ACT_HELP:
        return push_help(ui, KC_KV);
    case ACT_BACK:
        return UI_BACK;
    default:
        return UI_NONE;
    }
}

static void kvcalc_free(Screen *s)
{
    KvCalc *k = s->st;
    if (k) presets_free(&k->presets);
    app_screen_free(s);
}

Screen *kvcalc_open(Ui *ui)
{
    (void)ui;
    Screen *s = app_screen_new("KV calculator", sizeof(KvCalc));
    if (!s) return NULL;
    KvCalc *k = s->st;
    s->draw = kvcalc_draw;
    s->key = kvcalc_key;
    s->free = kvcalc_free;
    k->batch = 1;
    k->dtype = 1; /* fp16 */
    if (presets_builtin(&k->presets, k->err, sizeof k->err) != 0) k->presets.n = 0;
    return s;
}
