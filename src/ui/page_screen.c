/* page_screen.c - a lesson page: the narrative beside the scene, drawn by
 * draw/lessonpage.c.  A ui.h Screen: draws from state, keys return UI_*
 * flags; its keys are KC_PAGE in keys.c's one table (KC_INSPECT while the
 * cursor is on, KC_PAGE_TYPE while an @expect answer is typed).  Space goes
 * through every page of every lesson in order; progress marks each page
 * finished.  A page's exercise waits: a typed answer checked by the engine's
 * numbers (@expect), or an action on the picture (@do: H, K, S change the
 * page's configuration, i and the arrows move the inspect cursor). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/textutil.h"
#include "content/presets.h"
#include "draw/lessonpage.h"
#include "ui/field.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"

typedef struct PageScreen {
    char src[4096]; /* what `r` reloads: the lesson's path */
    Lesson *l;
    PresetList presets;
    int page;
    Mha *m;        /* run of the page's configuration: its text, and its picture... */
    Mha *live;     /* ...unless a @do changed the configuration: then this run's */
    MhaConfig cfg; /* the configuration on screen */
    LessonPageText t;
    int have_text;
    char error[400]; /* the page cannot be shown: why (file:line: ...) */
    int pane, revealed;
    int inspecting, cur[4]; /* the live inspect cursor */
    LineEdit typed;         /* @expect: the answer being typed (ui/field.h) */
    int verdict;            /* 1 right, -1 wrong, 0 not checked */
    int picked;             /* @predict: the outcome picked last (LP_*) */
    char why[160];
    int scroll; /* the picture's hidden rows scrolled into view (Down/Up): rows past the first */
    int scroll_max;         /* the largest scroll the last frame could use (its drawing says) */
    int values;             /* n: the heatmaps' weights as numbers (kept from page to page) */
    const char *values_key; /* its name, from the key table at open, for its status line */
    int did;                /* @do: reached once (stays done if the learner goes on pressing) */
    int nagged;             /* Space on an unfinished exercise once: the next shows the answer */
    SharedProgress *prog;
    double save_at; /* when the pages marked done are saved; 0 = none pending */
} PageScreen;

static LessonPage *cur_page(PageScreen *ps)
{
    return &ps->l->pages[ps->page];
}

/* The run the picture shows. */
static const Mha *picture(const PageScreen *ps)
{
    return ps->live ? ps->live : ps->m;
}

/* Runs the current page's configuration and expands its text; the exercise
 * starts afresh. */
static void page_load(PageScreen *ps)
{
    LessonPage *pg = cur_page(ps);
    mha_free(ps->m);
    mha_free(ps->live);
    ps->m = ps->live = NULL;
    if (ps->have_text) lesson_text_free(&ps->t);
    ps->have_text = 0;
    ps->error[0] = 0;
    ps->revealed = ps->verdict = ps->did = ps->nagged = ps->inspecting = ps->picked = 0;
    ps->why[0] = 0;
    lineedit_init(&ps->typed, 95);
    ps->scroll = 0;
    ps->cfg = pg->cfg;
    memcpy(ps->cur, pg->cur, sizeof ps->cur);
    char err[400];
    ps->m = mha_run(&pg->cfg, err, sizeof err);
    if (!ps->m) {
        err_at(ps->error, sizeof ps->error, ps->l->path, pg->line, "%.300s", err);
        return;
    }
    if (lesson_page_text(ps->l, ps->page, ps->m, &ps->presets, &ps->t, ps->error,
                         sizeof ps->error) == 0)
        ps->have_text = 1;
}

/* ---- the exercise ------------------------------------------------------------ */

/* Is the page's exercise still waiting (its answer not shown yet)? */
static int pending(const PageScreen *ps)
{
    const LessonPage *pg = &ps->l->pages[ps->page];
    if (!ps->have_text || ps->revealed) return 0;
    if (pg->expect || pg->predict) return ps->verdict != 1;
    return pg->todo && !ps->did;
}

/* Was the page's exercise solved (answered right or done), not revealed?
 * A page without a question has nothing to reveal: solved when read. */
static int solved(const PageScreen *ps)
{
    const LessonPage *pg = &ps->l->pages[ps->page];
    if (!pg->question) return 1;
    if (ps->revealed) return 0;
    return pg->todo ? ps->did : ps->verdict == 1;
}

static void page_mark(PageScreen *ps, Ui *ui); /* the page done, in memory */

static int typing(const PageScreen *ps)
{
    return pending(ps) && ps->l->pages[ps->page].expect;
}

/* The key of action a on a page, from the table ("H"). */
static void key_name(Action a, char *buf, size_t n)
{
    keys_hint_pick(KC_PAGE, &a, 1, 1, buf, n);
    char *sp = strchr(buf, ' ');
    if (sp) *sp = 0;
}

/* The action that does each kind of @do. */
static const Action do_action[LD_COUNT] = {ACT_NONE, ACT_HEADS, ACT_KV_HEADS, ACT_SEQ, ACT_INSPECT};

/* "press H until heads is 4 (now 2)", "press i, then move the cursor to
 * Q_heads[0,1,2,3]", "move the cursor to Q_heads[0,1,2,3] (now [0,0,0,0])". */
static void doing_text(const PageScreen *ps, char *buf, size_t n)
{
    const LessonPage *pg = &ps->l->pages[ps->page];
    char key[32];
    key_name(do_action[pg->todo], key, sizeof key);
    if (pg->todo != LD_INSPECT) {
        snprintf(buf, n, "press %s until %s is %d (now %d)", key, lesson_do_names[pg->todo],
                 pg->do_arg[0], lesson_do_value(pg, &ps->cfg));
        return;
    }
    LessonView v = {.inspecting = ps->inspecting};
    memcpy(v.cur, ps->cur, sizeof v.cur);
    SceneState ss = lesson_scene_state(pg, &v);
    int ti = scene_inspect_tensor(&ss);
    const Tensor *t = picture(ps)->t[ti];
    char want[48], now[48];
    size_t a = 0, b = 0;
    for (int i = 0; i < t->ndim; i++) {
        a += (size_t)snprintf(want + a, sizeof want - a, "%s%d", i ? "," : "", pg->do_arg[i]);
        b += (size_t)snprintf(now + b, sizeof now - b, "%s%d", i ? "," : "", ps->cur[i]);
    }
    if (ps->inspecting)
        snprintf(buf, n, "move the cursor to %s[%s] (now [%s])", mha_tensor_names[ti], want, now);
    else
        snprintf(buf, n, "press %s, then move the cursor to %s[%s]", key, mha_tensor_names[ti],
                 want);
}

/* After a change on the picture: is the @do done now? */
static void check_done(PageScreen *ps, Ui *ui)
{
    const LessonPage *pg = cur_page(ps);
    if (ps->did || !pg->todo) return;
    if (lesson_do_reached(pg, &ps->cfg, ps->inspecting ? ps->cur : NULL)) {
        ps->did = 1;
        ui_status(ui, "Done: %s %s. Space goes on.", lesson_do_names[pg->todo],
                  pg->todo == LD_INSPECT ? "found" : "reached");
        page_mark(ps, ui);
    }
}

/* H, K or S on a @do page: the page's configuration moves on; the picture
 * follows (its own run), the text stays the page's. */
static int turn_knob(PageScreen *ps, Ui *ui, LessonDo knob)
{
    const LessonPage *pg = cur_page(ps);
    if (!pg->todo || pg->todo == LD_INSPECT) {
        ui_status(ui, "this page keeps its configuration (the walkthrough's keys change it)");
        return UI_REDRAW;
    }
    MhaConfig c = ps->cfg;
    char err[300];
    lesson_config_next(&c, knob);
    Mha *r = mha_run(&c, err, sizeof err);
    if (!r) {
        ui_status(ui, "%.199s", err);
        return UI_REDRAW;
    }
    mha_free(ps->live);
    ps->live = r;
    ps->cfg = c;
    char diff[160];
    ui_status(ui, "now %s", lesson_config_diff(&pg->cfg, &c, diff, sizeof diff));
    if (!diff[0]) ui_status(ui, "back to the page's configuration");
    check_done(ps, ui);
    return UI_REDRAW;
}

/* Space on a waiting exercise: first says what it waits for, then shows the
 * answer (a @do is then done for the learner: the picture shows it). */
static int skip(PageScreen *ps, Ui *ui)
{
    const LessonPage *pg = cur_page(ps);
    if (!ps->nagged) {
        char what[200];
        if (pg->expect)
            snprintf(what, sizeof what, "type the answer and Enter");
        else if (pg->predict)
            snprintf(what, sizeof what, "press 1-%d for what the line does", LP_COUNT - 1);
        else
            doing_text(ps, what, sizeof what);
        ui_status(ui, "Not yet: %.150s. Space again shows the answer.", what);
        ps->nagged = 1;
        return UI_REDRAW;
    }
    ps->revealed = 1;
    MhaConfig target;
    char err[300];
    if (lesson_do_target(pg, &target) == 0) {
        Mha *r = mha_run(&target, err, sizeof err);
        if (r) {
            mha_free(ps->live);
            ps->live = r;
            ps->cfg = target;
        }
    } else if (pg->todo == LD_INSPECT) {
        ps->inspecting = 1;
        memcpy(ps->cur, pg->do_arg, sizeof ps->cur);
    }
    return UI_REDRAW;
}

/* Enter on a typed answer: checked against the engine's value. */
static int check_typed(PageScreen *ps, Ui *ui)
{
    const LessonPage *pg = cur_page(ps);
    if (!ps->typed.len) {
        ps->revealed = 1; /* empty: show the answer */
        return UI_REDRAW;
    }
    int r = lesson_expect_check(pg->expect, ps->t.expect, ps->typed.buf, ps->why, sizeof ps->why);
    ps->verdict = r == 1 ? 1 : -1;
    if (r != 1 && !ps->why[0])
        snprintf(ps->why, sizeof ps->why, "'%.60s' is not it", ps->typed.buf);
    if (r != 1 && ps->t.hint) { /* what to look at, from the page */
        size_t k = strlen(ps->why);
        snprintf(ps->why + k, sizeof ps->why - k, ". %s", ps->t.hint);
    }
    ui_status(ui, "%s", r == 1 ? "Right. Space goes on." : "Not yet.");
    if (r == 1) page_mark(ps, ui); /* solved now: q straight after keeps it */
    return UI_REDRAW;
}

/* 1-4 on a @predict page: the outcome the learner expects, before the line
 * runs.  Wrong: the page's @hint says what to look at, and it waits. */
static int pick(PageScreen *ps, Ui *ui, int k)
{
    const LessonPage *pg = cur_page(ps);
    if (!pending(ps) || !pg->predict || k < 1 || k >= LP_COUNT) return UI_NONE;
    ps->picked = k;
    ps->verdict = k == (int)pg->predict ? 1 : -1;
    snprintf(ps->why, sizeof ps->why, "%.150s", ps->t.hint ? ps->t.hint : "");
    ui_status(ui, "%s",
              ps->verdict == 1 ? "Right: the engine ran it. Space goes on." : "Not that one.");
    if (ps->verdict == 1) page_mark(ps, ui);
    return UI_REDRAW;
}

/* A key while an answer is typed: Enter checks it, the editing keys and
 * any character edit it (ui/field.h); -1 for the page's keys. */
static int type_key(PageScreen *ps, Ui *ui, int key, Action a)
{
    if (a == ACT_APPLY) return check_typed(ps, ui);
    int r = field_key(&ps->typed, a, key);
    if (r == UI_NONE) return -1;
    if (a == ACT_NONE) ps->verdict = 0; /* a character: a new answer is being typed */
    return r;
}

/* The cursor keys of inspect mode over the picture's tensor. */
static int move_cursor(PageScreen *ps, Ui *ui, int dx, int dy)
{
    LessonView v = {.inspecting = 1};
    memcpy(v.cur, ps->cur, sizeof v.cur);
    SceneState ss = lesson_scene_state(cur_page(ps), &v);
    if (!scene_cursor_move(picture(ps), &ss, dx, dy)) return UI_HANDLED;
    memcpy(ps->cur, ss.cur, sizeof ps->cur);
    check_done(ps, ui);
    return UI_REDRAW;
}

/* ---- drawing ------------------------------------------------------------------ */

/* Appends the groups picked (one key name each) to the hint in buf, which
 * holds *k bytes, two spaces apart. */
static void hint_more(char *buf, size_t n, size_t *k, unsigned ctx, const Action *picks, int npicks)
{
    if (*k + 2 >= n) return;
    memcpy(buf + *k, "  ", 3);
    *k += 2;
    *k += keys_hint_pick(ctx, picks, npicks, 1, buf + *k, n - *k);
}

/* The bottom line, from the key table: what the keys do in this state. */
static void page_hint(const PageScreen *ps, int wide, char *buf, size_t n)
{
    const LessonPage *pg = &ps->l->pages[ps->page];
    if (typing(ps)) {
        static const Action a[] = {ACT_APPLY, ACT_ERASE, ACT_NEXT, ACT_PREV, ACT_BACK},
                            pane[] = {ACT_PANE};
        size_t k = keys_hint_pick(KC_PAGE_TYPE, a, 5, 1, buf, n);
        if (!wide) hint_more(buf, n, &k, KC_PAGE, pane, 1); /* the picture, while typing */
    } else if (ps->inspecting) {
        static const Action move[] = {ACT_LEFT}, leave[] = {ACT_INSPECT},
                            page[] = {ACT_NEXT, ACT_BACK};
        size_t k = keys_hint_pick(KC_INSPECT, move, 1, 4, buf, n);
        hint_more(buf, n, &k, KC_INSPECT, leave, 1);
        hint_more(buf, n, &k, KC_PAGE, page, 2);
    } else if (pg->todo && pending(ps)) {
        Action a[] = {do_action[pg->todo], ACT_NEXT, ACT_PREV, ACT_BACK, ACT_HELP};
        keys_hint_pick(KC_PAGE, a, 5, 1, buf, n);
    } else if (pg->predict && pending(ps)) {
        static const Action a[] = {ACT_DIGIT, ACT_NEXT, ACT_PREV, ACT_PANE, ACT_BACK, ACT_HELP};
        keys_hint_pick(KC_PAGE, a, wide ? 5 : 6, 1, buf, n);
    } else if (pg->step == MS_SOFTMAX && !pg->variants && (wide || ps->pane == 1)) {
        /* heatmaps on screen: n writes their weights (r reload stays in ? help) */
        static const Action a[] = {ACT_NEXT, ACT_PREV, ACT_PANE, ACT_VALUES, ACT_BACK, ACT_HELP};
        keys_hint_pick(KC_PAGE, a, 6, 1, buf, n);
    } else {
        lessonui_page_hint(wide, buf, n);
    }
}

void lessonui_page_hint(int wide, char *buf, size_t n)
{
    static const Action narrow[] = {ACT_NEXT, ACT_PREV, ACT_PANE, ACT_RELOAD, ACT_BACK, ACT_HELP},
                        widea[] = {ACT_NEXT, ACT_PREV, ACT_RELOAD, ACT_BACK, ACT_HELP};
    if (wide)
        keys_hint_pick(KC_PAGE, widea, 5, 1, buf, n);
    else
        keys_hint_pick(KC_PAGE, narrow, 6, 1, buf, n);
}

static void page_draw(Screen *s, const Ui *ui, Canvas *c)
{
    PageScreen *ps = s->st;
    canvas_clear(c);
    if (screen_draw_enlarge(c)) return;
    char hint[200], doing[200] = "";
    page_hint(ps, c->w >= LESSON_WIDE_W && c->h >= LESSON_WIDE_H, hint, sizeof hint);
    if (!ps->have_text) {
        static const Action a[] = {ACT_RELOAD, ACT_PREV, ACT_NEXT, ACT_BACK};
        canvas_text(c, 1, 0, ps->l->title, ST_TITLE);
        canvas_wrap(c, 1, 2, c->w - 2, c->h - 4, ps->error, ST_BAD);
        canvas_wrap(c, 1, c->h - 4, c->w - 2, 2,
                    "Fix the lesson file and press r to reload, or PgUp/PgDn for another page.",
                    ST_DIM);
        keys_hint_pick(KC_PAGE, a, 4, 1, hint, sizeof hint);
        screen_draw_status(c, ui, hint);
        return;
    }
    const LessonPage *pg = cur_page(ps);
    if (pg->todo) doing_text(ps, doing, sizeof doing);
    LessonView v = {.pane = ps->pane,
                    .revealed = ps->revealed,
                    .finished = ps->prog ? lessonui_page_state(&ps->prog->p, ps->l->name, ps->page,
                                                               pg->question != NULL)
                                         : 0,
                    .picked = ps->picked,
                    .ascii = ui->ascii,
                    .large = ui->large,
                    .hint = ui->status[0] ? ui->status : hint,
                    .typed = ps->typed.buf,
                    .typed_after = ps->typed.len - ps->typed.cur,
                    .verdict = ps->verdict,
                    .why = ps->why,
                    .done = ps->did,
                    .doing = doing,
                    .inspecting = ps->inspecting,
                    .scroll = ps->scroll,
                    .values = ps->values,
                    .scroll_key = keys_name(KC_PAGE, ACT_SCROLL),
                    .values_key = keys_name(KC_PAGE, ACT_VALUES),
                    .scroll_limit = &ps->scroll_max};
    ps->scroll_max = 0; /* the frame raises it: the limit of what it shows now */
    memcpy(v.cur, ps->cur, sizeof v.cur);
    lesson_draw(c, ps->l, ps->page, &ps->t, picture(ps), &v);
}

/* Marks the page done in memory; page_tick saves it after the frame. */
static void page_mark(PageScreen *ps, Ui *ui)
{
    (void)ui;
    if (!ps->prog) return;
    if (solved(ps))
        progress_solve(&ps->prog->p, ps->l->name, ps->page);
    else
        progress_set(&ps->prog->p, ps->l->name, ps->page); /* finished, answer revealed */
}

/* A page turn never waits for the disk: the tick before the frame only asks
 * for more ticks (UI_ANIMATE), the save comes PAGE_SAVE_SEC later, after the
 * frame is out, and holds every page turned meanwhile (one save, not one per
 * key).  The rest is saved when the screen closes (lessonui_progress_release). */
#define PAGE_SAVE_SEC 0.5
static int page_tick(Screen *s, Ui *ui, double now)
{
    PageScreen *ps = s->st;
    if (!ps->prog || !ps->prog->p.dirty || ps->prog->p.no_save) return UI_NONE;
    if (ps->save_at == 0) ps->save_at = now + PAGE_SAVE_SEC;
    if (now < ps->save_at) return UI_ANIMATE;
    ps->save_at = 0;
    if (progress_save(&ps->prog->p) != 0 && ps->prog->p.warning[0]) {
        ui_status(ui, "%.199s", ps->prog->p.warning);
        ps->prog->p.warning[0] = 0;
        return UI_REDRAW;
    }
    return UI_NONE;
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
static int page_finish(PageScreen *ps, Ui *ui, Screen **push)
{
    char done[160], path[4096];
    int revealed = 0, todo = 0;
    for (int p = 0; ps->prog && p < ps->l->npages; p++) {
        int st =
            lessonui_page_state(&ps->prog->p, ps->l->name, p, ps->l->pages[p].question != NULL);
        revealed += st == LESSONUI_REVEALED;
        todo += st == LESSONUI_TODO;
    }
    if (revealed || todo) /* "lesson finished" means every page solved */
        snprintf(done, sizeof done, "end of %.60s: %d solved, %d revealed, %d not done",
                 ps->l->title, ps->l->npages - revealed - todo, revealed, todo);
    else
        snprintf(done, sizeof done, "lesson finished: %.120s", ps->l->title);
    int next = lesson_after(ps->l->name, path, sizeof path);
    if (next >= 0) {
        char warn[200];
        snprintf(warn, sizeof warn, "%s", ui->status); /* a progress warning, if any */
        ui->status[0] = 0;
        *push = lessonui_page_open(ui, path, ps->prog);
        if (*push) {
            if (ps->prog) ps->prog->sel = next;
            const Lesson *nl = ((PageScreen *)(*push)->st)->l;
            if (warn[0])
                ui_status(ui, "%s", warn);
            else
                ui_status(ui, "%.90s. Next: %.80s", done, nl->title);
            return UI_BACK | UI_PUSH | UI_REDRAW;
        }
        if (warn[0]) ui_status(ui, "%s", warn);
    }
    if (!ui->status[0]) ui_status(ui, "%s%s", done, next == -1 ? ": that was the last lesson" : "");
    return UI_BACK | UI_REDRAW;
}

/* ---- keys ----------------------------------------------------------------------- */

/* Its keys: while an answer is typed, the answer's, then a text field's
 * (Left edits, not turns), then the page's (PgUp, Tab); the cursor's while
 * inspecting, then the page's. */
static const unsigned *page_keys_now(const Screen *s)
{
    static const unsigned typed[] = {KC_PAGE_TYPE, KC_EDIT, KC_PAGE, 0},
                          inspect[] = {KC_INSPECT, KC_PAGE, 0}, page[] = {KC_PAGE, 0};
    const PageScreen *ps = s->st;
    return typing(ps) ? typed : ps->inspecting ? inspect : page;
}

static int page_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    PageScreen *ps = s->st;
    LessonPage *pg = cur_page(ps);
    if (typing(ps) && key >= 32 && key <= 126)
        a = ACT_NONE; /* a printable key types: the page's h, q and ? do not apply */
    if (typing(ps) && key == ' ' && !ps->typed.len)
        a = ACT_NEXT; /* no answer starts with a space: Space still turns the page */
    else if (typing(ps)) {
        int r = type_key(ps, ui, key, a);
        if (r >= 0) return r;
    }
    switch (a) {
    case ACT_NEXT:
        if (pending(ps)) return skip(ps, ui);
        if (ps->have_text && pg->question && pg->answer && !ps->revealed && !pg->todo &&
            !pg->expect && !pg->predict) {
            ps->revealed = 1; /* pause on the question: the first press shows the answer */
            return UI_REDRAW;
        }
        page_mark(ps, ui);
        if (ps->page + 1 >= ps->l->npages) return page_finish(ps, ui, push);
        ps->page++;
        page_load(ps);
        return UI_REDRAW;
    case ACT_PREV:
        if (ps->page == 0) {
            ui_status(ui, "the first page (Space goes on)");
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
    case ACT_DIGIT:
        return pick(ps, ui, key - '0');
    case ACT_HEADS:
        return turn_knob(ps, ui, LD_HEADS);
    case ACT_KV_HEADS:
        return turn_knob(ps, ui, LD_KV_HEADS);
    case ACT_SEQ:
        return turn_knob(ps, ui, LD_SEQ);
    case ACT_INSPECT:
        if (!ps->have_text || pg->variants) return UI_NONE;
        ps->inspecting = !ps->inspecting;
        if (ps->inspecting) check_done(ps, ui);
        return UI_REDRAW;
    case ACT_LEFT:
        return move_cursor(ps, ui, -1, 0);
    case ACT_RIGHT:
        return move_cursor(ps, ui, 1, 0);
    case ACT_UP:
        return move_cursor(ps, ui, 0, -1);
    case ACT_DOWN:
        return move_cursor(ps, ui, 0, 1);
    case ACT_SCROLL:
        if (ps->scroll >= ps->scroll_max) {
            ui_status(ui, "%s",
                      ps->scroll_max ? "the last rows are shown" : "nothing hidden to scroll");
            return UI_REDRAW;
        }
        ps->scroll++;
        return UI_REDRAW;
    case ACT_SCROLL_BACK:
        if (ps->scroll == 0) return UI_NONE;
        ps->scroll = (ps->scroll > ps->scroll_max ? ps->scroll_max : ps->scroll) - 1;
        if (ps->scroll < 0) ps->scroll = 0;
        return UI_REDRAW;
    case ACT_VALUES:
        ps->values = !ps->values;
        ui_status(ui, "heatmap values %s (%s: %s)", ps->values ? "on" : "off", ps->values_key,
                  ps->values ? "shades only" : "the numbers");
        return UI_REDRAW;
    case ACT_RELOAD: {
        char path[4096], msg[400];
        Lesson *nl = lessonui_read(ps->src, path, sizeof path, msg, sizeof msg);
        if (!nl) {
            ui_status(ui, "not reloaded: %.180s", msg);
            return UI_REDRAW;
        }
        lesson_free(ps->l);
        ps->l = nl;
        if (ps->page >= nl->npages) ps->page = nl->npages - 1;
        page_load(ps);
        ui_status(ui, "reloaded %.150s: %d page%s", path, nl->npages, text_s(nl->npages));
        return UI_REDRAW;
    }
    default: /* ? and q / Esc: the stack's */
        return UI_NONE;
    }
}

static void page_free(Screen *s)
{
    PageScreen *ps = s->st;
    if (ps) {
        lesson_free(ps->l);
        mha_free(ps->m);
        mha_free(ps->live);
        if (ps->have_text) lesson_text_free(&ps->t);
        presets_free(&ps->presets);
        if (ps->prog) progress_save(&ps->prog->p); /* back at the menu: saved */
        lessonui_progress_release(ps->prog);
    }
    screen_free(s);
}

static const ScreenOps page_ops = {
    .draw = page_draw,
    .key = page_key,
    .tick = page_tick,
    .free = page_free,
    .help = KC_PAGE,
    .keys_now = page_keys_now,
};

/* A page screen for lesson src; NULL with the reason in ui->status. */
Screen *lessonui_page_open(Ui *ui, const char *src, SharedProgress *prog)
{
    char path[4096], msg[400];
    Lesson *l = lessonui_read(src, path, sizeof path, msg, sizeof msg);
    if (!l) {
        ui_status(ui, "%.199s", msg);
        return NULL;
    }
    Screen *s = screen_new(&page_ops, "Lesson", sizeof(PageScreen));
    if (!s) {
        lesson_free(l);
        ui_status(ui, "out of memory");
        return NULL;
    }
    PageScreen *ps = s->st;
    ps->l = l;
    ps->values_key = keys_name(KC_PAGE, ACT_VALUES);
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
