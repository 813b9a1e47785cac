/* screenstack.c - the screen stack: what a key, a tick or a resize does to
 * the open screens, and when the frame must be drawn again.  A key is looked
 * up in the key table here, where it is routed, and reaches the screen as
 * its Action.  No curses here: ui/tui.c is the terminal. */
#include "ui/screenstack.h"

#include <stdio.h>
#include <string.h>

#include "ui/help.h"
#include "ui/screen.h"

void screenstack_init(ScreenStack *st)
{
    memset(st, 0, sizeof *st);
    st->redraw = 1;
}

int screenstack_push(ScreenStack *st, Screen *s)
{
    if (!s) return -1;
    if (st->n >= SCREENSTACK_MAX) {
        screen_close(s);
        return -1;
    }
    st->s[st->n++] = s;
    st->redraw = 1;
    return 0;
}

Screen *screenstack_top(const ScreenStack *st)
{
    return st->n > 0 ? st->s[st->n - 1] : NULL;
}

int screenstack_depth(const ScreenStack *st)
{
    return st->n;
}

int screenstack_live(const ScreenStack *st)
{
    return st->n > 0 && !st->quit;
}

int screenstack_tick(ScreenStack *st, Ui *ui, double now)
{
    Screen *top = screenstack_top(st);
    if (top) {
        int tf = screen_tick(top, ui, now);
        if (tf & UI_REDRAW) st->redraw = 1;
        st->animating = (tf & UI_ANIMATE) != 0;
        if (st->animating) st->last_tick = now;
    } else {
        st->animating = 0;
    }
    if (ui_poll_run(ui)) st->redraw = 1; /* the run computed aside is in */
    char line[sizeof st->run_line];
    if (ui_run_line(ui, line, sizeof line) && strcmp(line, st->run_line)) st->redraw = 1;
    return st->redraw;
}

int screenstack_wait_ms(const ScreenStack *st, const Ui *ui, double now)
{
    int wait_ms = -1; /* idle: until a key, a resize or a signal */
    if (st->animating) {
        double left = st->last_tick + SCREENSTACK_FRAME_SEC - now;
        wait_ms = left > 0 ? (int)(left * 1000.0) + 1 : 0; /* round up */
    }
    if (ui->job && (wait_ms < 0 || wait_ms > SCREENSTACK_RUN_POLL_MS))
        wait_ms = SCREENSTACK_RUN_POLL_MS;
    return wait_ms;
}

Action screenstack_action(unsigned ctx, int key)
{
    for (const KeyBinding *b = keys_table; b->key; b++) {
        if (!(b->ctx & ctx)) continue;
        if (key == b->key || (b->last && key >= b->key && key <= b->last)) return b->action;
    }
    return ACT_NONE;
}

/* The action of key on s now: its contexts in their order, the first that
 * binds it. */
static Action screen_action(const Screen *s, int key)
{
    if (!s->ops->keys_now) return screenstack_action(s->ops->keys, key);
    Action a = ACT_NONE;
    for (const unsigned *c = s->ops->keys_now(s); *c && a == ACT_NONE; c++)
        a = screenstack_action(*c, key);
    return a;
}

int screenstack_send(Screen *s, Ui *ui, int key, Screen **push)
{
    Screen *p = NULL;
    Action a = key == UI_K_RESIZE ? ACT_NONE : screen_action(s, key);
    int f = s->ops->key(s, ui, a, key, &p);
    if (f == UI_NONE && a == ACT_HELP) f = UI_HELP | UI_REDRAW; /* at ScreenOps.help */
    if (f == UI_NONE && a == ACT_BACK) f = UI_BACK | UI_REDRAW;
    if (push)
        *push = p;
    else
        screen_close(p);
    return f;
}

static void pop(ScreenStack *st)
{
    Screen *top = st->s[--st->n];
    screen_close(top);
    st->redraw = 1;
}

int screenstack_key(ScreenStack *st, Ui *ui, int key)
{
    Screen *top = screenstack_top(st);
    if (!top || st->quit) return 0;
    Screen *pushed = NULL; /* what key() opens is ours, whatever the flags say */
    if (key == UI_K_RESIZE) {
        st->redraw = 1;
        screenstack_send(top, ui, key, NULL);
        return 0;
    }
    if (screenstack_action(KC_ALL, key) == ACT_REDRAW) {
        st->redraw = 1;
        return SS_REPAINT;
    }
    /* While a run computes aside, Esc is its cancel key (the computing line
     * says so); a mode of the loop, not a binding of any screen, so it is
     * not in the key table, where Esc is each screen's "back". */
    if (key == UI_K_ESC && ui_cancel_run(ui)) {
        st->redraw = 1;
        return 0;
    }
    if (ui->status[0]) st->redraw = 1;
    ui->status[0] = 0;                               /* a message lasts until the next key */
    int f = screenstack_send(top, ui, key, &pushed); /* looked up, then the screen's */
    if ((f & UI_HELP) && !pushed) { /* the one way to the help, from every screen */
        f |= screen_open(&pushed, help_open_at(ui, top->ops->help), ui);
    }
    if (pushed && (!(f & UI_PUSH) || (f & UI_QUIT))) {
        screen_close(pushed);
        pushed = NULL;
    }
    if (f & UI_REDRAW) st->redraw = 1;
    if (f & UI_QUIT) {
        st->quit = 1;
        return 0;
    }
    if (f & UI_BACK) pop(st);
    if (pushed) screenstack_push(st, pushed);
    return 0;
}

void screenstack_draw(ScreenStack *st, const Ui *ui, Canvas *c)
{
    Screen *top = screenstack_top(st);
    st->redraw = 0;
    if (!top) return;
    canvas_clear(c);
    screen_draw(top, ui, c);
    if (ui_run_line(ui, st->run_line, sizeof st->run_line)) {
        canvas_status(c, st->run_line, ST_WARN); /* over whatever status was drawn */
    } else {
        st->run_line[0] = 0;
    }
}

void screenstack_free(ScreenStack *st)
{
    while (st->n > 0)
        pop(st);
    st->redraw = 1;
}
