/* screen.h - what every screen is built from: a new Screen with its state
 * block, the "enlarge" frame, the status line, and the run of the
 * configuration that every screen shares (Ui.cfg, Ui.mha).
 */
#ifndef MHAVIZ_SCREEN_H
#define MHAVIZ_SCREEN_H
#include <stddef.h>

#include "ui/keys.h"
#include "ui/ui.h"

/* "enlarge to 80x24 (now WxH)" on the whole canvas; returns 1 if it drew it
 * (the canvas is smaller than 80x24), 0 if the caller should draw normally. */
int screen_draw_enlarge(Canvas *c);

/* The bottom status line: ui->status if set, else hint.  Row c->h - 1. */
void screen_draw_status(Canvas *c, const Ui *ui, const char *hint);

/* The bottom status line with the key hint of the groups picked in ctx
 * (keys_hint_pick: at most maxnames key names each) when ui->status is
 * empty. */
void screen_draw_hint(Canvas *c, const Ui *ui, unsigned ctx, const Action *picks, int npicks,
                      int maxnames);

/* A menu's cursor over n entries (n > 0): ACT_UP or ACT_LEFT moves *sel to
 * the entry before, ACT_DOWN or ACT_RIGHT to the one after, round from the
 * last to the first and back.  UI_REDRAW, or UI_NONE (*sel as it was) for
 * any other action. */
int screen_menu_move(int *sel, int n, Action a);

/* A new Screen of the kind ops (a static const table) with a zeroed state of
 * st_size bytes in s->st.  NULL when out of memory.  screen_free frees s->st
 * and s: the default ops->free, and the last call of a free() that releases
 * its own parts first. */
Screen *screen_new(const ScreenOps *ops, const char *title, size_t st_size);
void screen_free(Screen *s);

/* The ops of s, called (a key goes through screenstack_send,
 * ui/screenstack.h, where it is looked up).  screen_tick: 0 for a screen
 * without tick().  screen_close: s's free(); NULL is a no-op. */
void screen_draw(Screen *s, const Ui *ui, Canvas *c);
int screen_tick(Screen *s, Ui *ui, double now_sec);
void screen_close(Screen *s);

/* For a key handler that opens child: child in *push and UI_PUSH |
 * UI_REDRAW; a NULL child (its constructor failed) gives UI_REDRAW and "out
 * of memory" in the status line unless the constructor put its reason
 * there. */
int screen_open(Screen **push, Screen *child, Ui *ui);

/* Quick configuration keys (H, K, S, C, R), shared by home and walk: change
 * one field of ui->cfg to its next sensible value through ui_set_config.
 * Returns UI_REDRAW (applied or refused: the status line says which). */
int screen_quick_config(Ui *ui, Action a);

/* "seq 4, d_model 8, heads 2 (d_head 4), kv_heads 2 (MHA), seed 1" */
void screen_cfg_line(char *buf, size_t n, const MhaConfig *c);

#endif
