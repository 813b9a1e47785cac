/* help.c - the `?` screen: every context's keys, generated from keys_table. */
#include "ui/help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/screen.h"

/* ---- the help screen ------------------------------------------------------- */

typedef struct Help {
    int top;   /* first line shown */
    int shown; /* lines that fit, from the last draw */
} Help;

static int help_count(void)
{
    char buf[160];
    int n = 0;
    while (keys_help_line(n, buf, sizeof buf))
        n++;
    return n;
}

static void help_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Help *h = s->st;
    if (screen_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "mhaviz keys", ST_TITLE);
    canvas_text(c, 14, 0, "(from the key table; q closes)", ST_DIM);
    int total = help_count();
    int rows = c->h - 3; /* title, blank, ..., status */
    int cols = c->w >= 170 && total > rows ? 2 : 1;
    int colw = c->w / cols;
    h->shown = rows * cols;
    if (h->top > total - h->shown) h->top = total - h->shown;
    if (h->top < 0) h->top = 0;
    for (int i = 0; i < h->shown; i++) {
        int line = h->top + i;
        char keys[80];
        const char *what = "";
        int kind = keys_help_entry(line, keys, sizeof keys, &what, NULL);
        if (kind < 0) break;
        int x = 1 + (i / rows) * colw, y = 2 + i % rows;
        if (kind == 1) {
            canvas_text(c, x, y, what, ST_BOLD);
        } else if (kind == 2) {
            canvas_text(c, x + 2, y, keys, ST_KEY);
            canvas_text(c, x + 30, y, what, ST_NORMAL);
        }
    }
    char hint[80];
    if (total > h->shown)
        snprintf(hint, sizeof hint, "lines %d-%d of %d: Down/Up/PgDn/PgUp scroll, q closes",
                 h->top + 1, h->top + h->shown < total ? h->top + h->shown : total, total);
    else
        snprintf(hint, sizeof hint, "q closes");
    screen_draw_status(c, ui, hint);
}

static int help_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen */
    (void)key;
    Help *h = s->st;
    (void)ui;
    int page = h->shown > 1 ? h->shown - 1 : 1;
    switch (a) {
    case ACT_DOWN:
        h->top++;
        return UI_REDRAW; /* clamped by draw */
    case ACT_UP:
        h->top = h->top > 0 ? h->top - 1 : 0;
        return UI_REDRAW;
    case ACT_NEXT:
        h->top += page;
        return UI_REDRAW;
    case ACT_PREV:
        h->top = h->top > page ? h->top - page : 0;
        return UI_REDRAW;
    default: /* q, Esc, ? and Enter close it: ACT_BACK, the stack's */
        return UI_NONE;
    }
}

static const ScreenOps help_ops = {
    .draw = help_draw,
    .key = help_key,
    .help = 0,
    .keys = KC_HELP,
};

Screen *help_open_at(Ui *ui, unsigned ctx)
{
    (void)ui;
    Screen *s = screen_new(&help_ops, "Help", sizeof(Help));
    if (!s) return NULL;
    int top = ctx ? keys_help_section(ctx) : 0;
    ((Help *)s->st)->top = top > 0 ? top : 0; /* clamped by draw */
    return s;
}

Screen *help_open(Ui *ui)
{
    return help_open_at(ui, 0);
}
