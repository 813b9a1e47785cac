/* play.h - the stride playground's screen: an input line (history, line
 * editing, Tab completion), the last result drawn, the earlier ones listed. */
#ifndef MHAVIZ_UI_PLAY_H
#define MHAVIZ_UI_PLAY_H
#include "ui/ui.h"

/* A new play screen on ui->mha's tensors; NULL when out of memory.  History
 * is read from and written to the state dir (play_history) unless
 * ui->no_save. */
Screen *play_open(Ui *ui);

#endif
