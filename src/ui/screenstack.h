/* screenstack.h - the screen stack and its loop decisions, apart from the
 * terminal (htop's ScreenManager.c beside CRT.c).
 *
 * The stack owns the open screens (ui.h), the bottom one first.  It turns
 * what the backend saw (a key, a moment passing, a resize) into the state
 * change and the decision: whether the top screen's frame must be drawn
 * again, how long the backend may wait for the next key, whether the program
 * is over.  It never touches the terminal, so a test drives it key by key
 * with no terminal at all; ui/tui.c reads keys, waits and blits the canvas
 * screenstack_draw paints.
 */
#ifndef MHAVIZ_SCREENSTACK_H
#define MHAVIZ_SCREENSTACK_H

#include "draw/canvas.h"
#include "ui/ui.h"

#define SCREENSTACK_MAX 16
#define SCREENSTACK_FRAME_SEC (1.0 / 30.0) /* animations: at most 30 frames a second */
#define SCREENSTACK_RUN_POLL_MS 50         /* a run computing aside: looked at 20 times a second */

typedef struct ScreenStack {
    Screen *s[SCREENSTACK_MAX]; /* owned; s[n - 1] is on top */
    int n;
    int quit;           /* a screen returned UI_QUIT */
    int redraw;         /* the top's frame is out of date */
    int animating;      /* the top's last tick() asked for UI_ANIMATE */
    double last_tick;   /* clock of that tick */
    char run_line[160]; /* the "computing ..." line last drawn */
} ScreenStack;

/* What screenstack_key asks of the backend besides a redraw. */
enum { SS_REPAINT = 1 /* Ctrl-L: every cell again, not only the changed ones */ };

/* An empty stack. */
void screenstack_init(ScreenStack *st);

/* Puts s on top and takes it (freed by the stack from now on, whatever the
 * result).  0, or -1 when s is NULL or the stack is full (s freed). */
int screenstack_push(ScreenStack *st, Screen *s);

/* The top screen, NULL when none is left; the number open. */
Screen *screenstack_top(const ScreenStack *st);
int screenstack_depth(const ScreenStack *st);

/* 1 while the program runs: a screen is open and none asked to quit. */
int screenstack_live(const ScreenStack *st);

/* A moment passed (now: clock_now() seconds): the top's tick(), then the
 * run computing aside (ui_poll_run, the seconds of its "computing" line).
 * Sets st->redraw when the frame changed.  Returns st->redraw. */
int screenstack_tick(ScreenStack *st, Ui *ui, double now);

/* How long the backend may wait for a key, in ms: -1 without limit (nothing
 * moves), else until the next animation frame or the next look at a run
 * computing aside. */
int screenstack_wait_ms(const ScreenStack *st, const Ui *ui, double now);

/* A key arrived (a code point or UI_K_*): UI_K_RESIZE goes to the top
 * screen and redraws; Ctrl-L (ACT_REDRAW) returns SS_REPAINT; Esc while a
 * run computes aside cancels it.  Any other key clears the status line
 * (a message lasts until the next key) and goes to the top through
 * screenstack_send; the stack then pushes (the screen key() opened, or for
 * UI_HELP the help at the top's ScreenOps.help section), pops or quits as
 * its UI_* flags say.  Returns SS_* bits for the backend. */
int screenstack_key(ScreenStack *st, Ui *ui, int key);

/* The action of key in ctx (KC_* bits): the first binding of keys_table
 * (ui/keys.c) whose ctx has a bit of ctx and whose key or range holds key;
 * ACT_NONE when none does. */
Action screenstack_action(unsigned ctx, int key);

/* One key to screen s, as the stack sends it to its top: looked up once in
 * s's contexts (ScreenOps.keys, or keys_now's list in order), then s's
 * key() with the Action and the key.  An ACT_HELP or ACT_BACK that key()
 * leaves (UI_NONE) gives UI_HELP or UI_BACK (with UI_REDRAW): what `?` and q / Esc do on
 * every screen.  Returns key()'s UI_* flags.  *push gets the screen the key
 * opened (the caller's; NULL when none), or with push NULL that screen is
 * freed.  UI_K_RESIZE goes with ACT_NONE. */
int screenstack_send(Screen *s, Ui *ui, int key, Screen **push);

/* The top screen's whole frame on c (cleared first), with the "computing
 * ..." line over its bottom row while a run computes aside; clears
 * st->redraw.  Nothing when the stack is empty. */
void screenstack_draw(ScreenStack *st, const Ui *ui, Canvas *c);

/* Frees every screen left, top first. */
void screenstack_free(ScreenStack *st);

#endif
