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

/* A new Screen with a zeroed state of st_size bytes in s->st, and a free()
 * that frees both; the caller sets draw/key/tick (or replaces free() when the
 * state owns more).  NULL when out of memory.  screen_free is that
 * default free(), for screens that release their own parts first. */
Screen *screen_new(const char *title, size_t st_size);
void screen_free(Screen *s);

/* Quick configuration keys (H, K, S, C, R), shared by home and walk: change
 * one field of ui->cfg to its next sensible value through ui_set_config.
 * Returns UI_REDRAW (applied or refused: the status line says which). */
int screen_quick_config(Ui *ui, Action a);

/* "seq 4, d_model 8, heads 2 (d_head 4), kv_heads 2 (MHA), seed 1" */
void screen_cfg_line(char *buf, size_t n, const MhaConfig *c);

#endif
