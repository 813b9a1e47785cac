/* lessons.c - the lesson menu (finished pages marked), and what the lesson
 * screens share: the progress the menu and its pages hold together, reading
 * a lesson file, the `?` screen.  A ui.h Screen: draws from state, keys
 * return UI_* flags; its keys are KC_LESSONS in keys.c's one table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/help.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"

/* ---- progress shared by the menu and the pages it opens ------------------------ */

SharedProgress *lessonui_progress_open(Ui *ui)
{
    SharedProgress *sp = malloc(sizeof *sp);
    if (!sp) return NULL;
    progress_load(&sp->p, ui->no_save);
    sp->refs = 1;
    sp->sel = 0;
    if (sp->p.warning[0]) { /* reported once */
        ui_status(ui, "%.199s", sp->p.warning);
        sp->p.warning[0] = 0;
    }
    return sp;
}

void lessonui_progress_release(SharedProgress *sp)
{
    if (sp && --sp->refs == 0) {
        progress_save(&sp->p); /* the last page turns, at exit */
        free(sp);
    }
}

int lessonui_page_state(const Progress *p, const char *name, int page, int asks)
{
    if (!progress_done(p, name, page)) return LESSONUI_TODO;
    return progress_solved(p, name, page) || !asks ? LESSONUI_SOLVED : LESSONUI_REVEALED;
}

Lesson *lessonui_read(const char *src, char *path, size_t pathn, char *msg, size_t msgn)
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

/* ---- the lesson menu --------------------------------------------------------------- */

typedef struct MenuItem {
    char path[512], name[64], title[120], summary[200];
    int npages;
    uint64_t asks;   /* bit p: page p+1 has a question */
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
    if (screen_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "Lessons", ST_TITLE);
    canvas_text(c, 10, 0,
                ui->ascii ? "go through them in order; # solved, o answer revealed"
                          : "go through them in order; \xE2\x96\xA0 solved, \xE2\x96\xA1"
                            " answer revealed",
                ST_DIM);
    int y = 2;
    for (int i = 0; i < mn->n && y < c->h - 3; i++) {
        MenuItem *it = &mn->items[i];
        Style st = i == sel ? ST_CURSOR : ST_NORMAL;
        canvas_fill(c, 1, y, c->w - 2, 1, ' ', st);
        canvas_printf(c, 2, y, st, "%-44.44s", it->title);
        if (it->error[0]) {
            canvas_text(c, 48, y, "cannot be opened", ST_BAD);
        } else {
            int state[64], solved = 0, revealed = 0, x = 48;
            for (int p = 0; p < it->npages && p < 64; p++) {
                state[p] = mn->prog ? lessonui_page_state(&mn->prog->p, it->name, p,
                                                          (int)(it->asks >> p & 1))
                                    : LESSONUI_TODO;
                solved += state[p] == LESSONUI_SOLVED;
                revealed += state[p] == LESSONUI_REVEALED;
            }
            int finished = solved == it->npages; /* "lesson finished" means solved */
            static const uint32_t glyph[2][3] = {{0x00B7, 0x25A0, 0x25A1}, {'.', '#', 'o'}};
            for (int p = 0; p < it->npages && p < 64 && x < c->w - 8; p++, x++)
                canvas_put(c, x, y, glyph[ui->ascii != 0][state[p]], /* · ■ solved □ revealed */
                           finished                        ? ST_GOOD
                           : state[p] == LESSONUI_REVEALED ? ST_WARN
                                                           : ST_HEAD0);
            canvas_printf(c, x + 1, y, finished ? ST_GOOD : ST_DIM, "%d/%d%s", solved, it->npages,
                          revealed ? " solved" : "");
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
    static const Action keys[] = {ACT_UP, ACT_OPEN, ACT_DIGIT, ACT_HELP, ACT_BACK};
    screen_draw_hint(c, ui, KC_LESSONS, keys, 5, 2);
}

static int menu_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    Menu *mn = s->st;
    int *sel = menu_sel(mn);
    if (mn->n == 0) return UI_NONE; /* no lesson: ? and q / Esc only, the stack's */
    switch (a) {
    case ACT_UP:
    case ACT_DOWN:
        return screen_menu_move(sel, mn->n, a);
    case ACT_DIGIT:
        if ((key == '0' ? 9 : key - '1') >= mn->n) return UI_NONE;
        *sel = key == '0' ? 9 : key - '1'; /* 0: lesson 10 */
        /* fall through */
    case ACT_OPEN:
        return screen_open(push, lessonui_page_open(ui, mn->items[*sel].path, mn->prog), ui);
    default:
        return UI_NONE;
    }
}

static void menu_free(Screen *s)
{
    Menu *mn = s->st;
    if (mn) {
        free(mn->items);
        lessonui_progress_release(mn->prog);
    }
    screen_free(s);
}

static const ScreenOps menu_ops = {
    .draw = menu_draw,
    .key = menu_key,
    .free = menu_free,
    .help = KC_LESSONS,
    .keys = KC_LESSONS,
};

Screen *lessons_open(Ui *ui)
{
    Screen *s = screen_new(&menu_ops, "Lessons", sizeof(Menu));
    if (!s) return NULL;
    Menu *mn = s->st;
    char **paths, err[300];
    int n = lesson_list(&paths, err, sizeof err);
    if (n < 0) {
        ui_status(ui, "%.199s", err);
        n = 0;
        paths = NULL;
    }
    mn->items = calloc((size_t)n + 1, sizeof *mn->items);
    for (int i = 0; mn->items && i < n; i++) {
        MenuItem *it = &mn->items[mn->n++];
        char path[4096], msg[400];
        snprintf(it->path, sizeof it->path, "%s", paths[i]);
        Lesson *l = lessonui_read(paths[i], path, sizeof path, msg, sizeof msg);
        if (l) {
            snprintf(it->name, sizeof it->name, "%s", l->name);
            snprintf(it->title, sizeof it->title, "%s", l->title);
            snprintf(it->summary, sizeof it->summary, "%s", l->summary);
            it->npages = l->npages;
            for (int p = 0; p < l->npages && p < 64; p++)
                if (l->pages[p].question) it->asks |= (uint64_t)1 << p;
            lesson_free(l);
        } else {
            snprintf(it->title, sizeof it->title, "%s", paths[i]);
            snprintf(it->error, sizeof it->error, "%.300s", msg);
        }
    }
    lesson_list_free(paths, n);
    mn->prog = lessonui_progress_open(ui);
    /* Start on the first lesson not yet finished. */
    int *sel = menu_sel(mn);
    for (*sel = 0; mn->prog && *sel + 1 < mn->n; ++*sel)
        if (progress_count(&mn->prog->p, mn->items[*sel].name) < mn->items[*sel].npages) break;
    return s;
}

/* ---- continue where you left off ------------------------------------------------- */

/* The lesson to continue in lesson_list() order: the last one with a page
 * finished, or the one after it when that one is finished; the first when
 * nothing is.  Its path in path; 1 when every lesson is finished, 0, -1
 * when there is no lesson. */
static int lesson_to_continue(const Progress *pr, char *path, size_t n)
{
    char **paths, err[300];
    int np = lesson_list(&paths, err, sizeof err), at = 0, all_done = 0;
    if (np < 0) return -1;
    if (np == 0) {
        lesson_list_free(paths, np);
        return -1;
    }
    for (int i = 0; i < np; i++) {
        char p[4096], msg[400];
        Lesson *l = lessonui_read(paths[i], p, sizeof p, msg, sizeof msg);
        if (!l) continue;
        int done = progress_count(pr, l->name);
        if (done > 0) {
            at = i;
            all_done = done >= l->npages;
            if (all_done && i + 1 < np) at = i + 1, all_done = 0;
        }
        lesson_free(l);
    }
    snprintf(path, n, "%s", paths[at]);
    lesson_list_free(paths, np);
    return all_done;
}

Screen *lessons_continue(Ui *ui)
{
    SharedProgress *sp = lessonui_progress_open(ui);
    if (!sp) return NULL;
    char path[4096];
    int r = lesson_to_continue(&sp->p, path, sizeof path);
    if (r != 0) { /* all finished, or none: the menu says where things stand */
        lessonui_progress_release(sp);
        Screen *m = lessons_open(ui);
        if (m && r == 1) ui_status(ui, "every lesson is finished");
        return m;
    }
    Screen *s = lessonui_page_open(ui, path, sp); /* at its first unfinished page */
    lessonui_progress_release(sp);
    return s;
}
