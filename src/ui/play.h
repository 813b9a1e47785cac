/* play.h - the stride playground's screen: an input line (history, line
 * editing, Tab completion), the last result drawn, the earlier ones listed. */
#ifndef MHAVIZ_UI_PLAY_H
#define MHAVIZ_UI_PLAY_H
#include "ui/ui.h"

/* A new play screen on ui->mha's tensors; NULL when out of memory.  History
 * is read from and written to the state dir (play_history) unless
 * ui->no_save. */
Screen *play_open(Ui *ui);

/* The play screen on puzzle index (content/puzzle.h): its given tensors and
 * sizes loaded, each Enter both runs the line and checks it as an answer
 * (the verdict, a hint after a miss, the best score kept in the state dir
 * unless ui->no_save).  PgDn/PgUp go to the next/previous puzzle; PgUp
 * from the first, and PgDn in the free playground, switch between the two.
 * NULL when out of memory. */
Screen *play_open_puzzle(Ui *ui, int index);

#endif
