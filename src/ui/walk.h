/* walk.h - the walkthrough: one step of the pipeline per screen. */
#ifndef MHAVIZ_WALK_H
#define MHAVIZ_WALK_H
#include "ui/ui.h"

/* The walkthrough at step (walk.c). */
Screen *walk_open_at(Ui *ui, int step);
Screen *walk_open(Ui *ui);         /* at step 0: the home menu entry */
Screen *walk_open_explore(Ui *ui); /* the walkthrough at step 3 with the inspect cursor on */

#endif
