/* home.c - the home menu: one entry per screen (the only file that knows
 * them all). */
#include "ui/home.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "content/lesson.h"
#include "ui/decode.h"
#include "ui/flash_screen.h"
#include "ui/form.h"
#include "ui/help.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/play.h"
#include "ui/quiz_screen.h"
#include "ui/screen.h"
#include "ui/walk.h"

/* ---- the home menu --------------------------------------------------------- */

/* One line per screen that exists; new screens go above Help. */
static const struct {
    const char *label, *about;
    Screen *(*open)(Ui *ui);
} home_entries[] = {
    {"Walkthrough", "the pipeline, one step per screen, as it runs in memory", walk_continue},
    {"Lessons", NULL, lessons_open}, /* Home.lessons_about: the count lesson_list gives */
    {"Quiz", "interview prep: shapes, strides, views, GQA, KV cache", quiz_open},
    {"Explore", "the stride playground: type PyTorch ops, see the memory", play_open},
    {"Inspect", "inspect any element: its offset and the stride arithmetic", walk_open_explore},
    {"Variants", "MHA | GQA | MQA side by side: who shares which K/V head", variants_open},
    {"KV calculator", "KV-cache bytes of real models: MHA vs GQA vs MQA", kvcalc_open},
    {"Decode", "prefill, then one token at a time: the KV cache as memory", decode_open},
    {"Continue", "the lesson and page where you left off", lessons_continue},
    {"Tiles", "FlashAttention-2 tile by tile: the scores never written", flash_open},
    {"Help", "every key, in one table", help_open}, /* stays last */
};
#define HOME_N ((int)(sizeof home_entries / sizeof *home_entries))

typedef struct Home {
    int sel;
    char lessons_about[64]; /* "a guided course in N lessons, ...", N read at open */
} Home;

static void home_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Home *h = s->st;
    if (screen_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "mhaviz", ST_TITLE);
    canvas_text(c, 8, 0, "multi-head attention, the way it runs in memory", ST_BOLD);
    char line[160];
    screen_cfg_line(line, sizeof line, &ui->cfg);
    canvas_text(c, 1, 2, "config:", ST_DIM);
    canvas_wrap(c, 9, 2, c->w - 10, 2, line, ST_NORMAL); /* row 3 is free for a long one */
    int gap = 4 + 2 * (HOME_N - 1) < c->h - 1 ? 2 : 1;   /* every line above the status */
    for (int i = 0; i < HOME_N; i++) {
        int y = 4 + gap * i;
        Style st = i == h->sel ? ST_CURSOR : ST_NORMAL;
        canvas_fill(c, 2, y, 18, 1, ' ', st);
        canvas_printf(c, 3, y, st, "%*d  %s", HOME_N > 9 ? 2 : 1, i + 1, home_entries[i].label);
        const char *about = home_entries[i].about ? home_entries[i].about : h->lessons_about;
        canvas_text(c, 22, y, about, ST_DIM);
    }
    static const Action picks[] = {ACT_UP, ACT_OPEN, ACT_CONFIG, ACT_HELP, ACT_BACK};
    screen_draw_hint(c, ui, KC_HOME, picks, 5, 2);
}

static int home_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    Home *h = s->st;
    switch (a) {
    case ACT_UP:
    case ACT_DOWN:
        return screen_menu_move(&h->sel, HOME_N, a);
    case ACT_DIGIT:
        if ((key == '0' ? 9 : key - '1') >= HOME_N) return UI_NONE;
        h->sel = key == '0' ? 9 : key - '1'; /* 0: the tenth, as on a keyboard's row */
        /* fall through */
    case ACT_OPEN:
        return screen_open(push, home_entries[h->sel].open(ui), ui);
    default: /* q / Esc: the stack closes the menu, and so quits */
        return form_shared_action(ui, a, push);
    }
}

static const ScreenOps home_ops = {
    .draw = home_draw,
    .key = home_key,
    .help = 0,
    .keys = KC_HOME,
};

Screen *home_open(Ui *ui)
{
    (void)ui;
    Screen *s = screen_new(&home_ops, "Home", sizeof(Home));
    if (!s) return NULL;
    /* the count the lesson menu will list: the built-in ones or $MHAVIZ_LESSONS' */
    Home *h = s->st;
    char **paths, err[256];
    int n = lesson_list(&paths, err, sizeof err);
    if (n > 0) {
        lesson_list_free(paths, n);
        snprintf(h->lessons_about, sizeof h->lessons_about,
                 "a guided course in %d lesson%s, progress remembered", n, text_s(n));
    } else { /* the menu says why when it opens */
        snprintf(h->lessons_about, sizeof h->lessons_about, "a guided course, progress remembered");
    }
    return s;
}
