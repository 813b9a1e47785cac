/* help.h - the `?` screen, generated from the key table (keys.h). */
#ifndef MHAVIZ_HELP_H
#define MHAVIZ_HELP_H
#include "ui/ui.h"

/* Screen constructors: a new Screen the caller owns (push it with UI_PUSH or
 * pass it to tui_run; screen_close releases it), or NULL when out of memory.
 * The help screen is generated from keys_table: every context's keys, one
 * section each.  help_open shows it from the top (the home menu's entry),
 * help_open_at from the section of ctx (one KC_* bit).  A screen's `?`
 * returns UI_HELP instead: the screen stack opens help_open_at its
 * ScreenOps.help, the one way from every screen. */
Screen *help_open(Ui *ui);
Screen *help_open_at(Ui *ui, unsigned ctx);

#endif
