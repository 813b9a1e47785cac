/* walk.h - the walkthrough: one step of the pipeline per screen. */
#ifndef MHAVIZ_WALK_H
#define MHAVIZ_WALK_H
#include "ui/ui.h"

/* The walkthrough at step (walk.c), as `mhaviz walk FLAGS` opens it: where
 * its flags say.  When it closes, its step and the configuration of its run
 * are saved as the walkthrough's place (store/walk_place.h) unless
 * ui->no_save. */
Screen *walk_open_at(Ui *ui, int step);
Screen *walk_open(Ui *ui); /* at step 0 */
/* The home menu's entry: the walkthrough where it was left (the saved place:
 * its configuration through ui_set_config, then its step, told on the status
 * line), or at step 0 when none is saved.  A corrupt place file is kept
 * aside (".bad") and told on the status line.  NULL when out of memory. */
Screen *walk_continue(Ui *ui);
Screen *walk_open_explore(Ui *ui); /* the walkthrough at step 3 with the inspect cursor on */

#endif
