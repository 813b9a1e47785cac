/* flash_screen.h - the Tiles screen: FlashAttention-2's loop over the current
 * configuration, one tile per key press (engine/flash.h), drawn by
 * draw/flash.c.  Space runs the next tile, Left goes back one, b and B change
 * the blocks, C the causal mask, K the kv heads, S the sequence. */
#ifndef MHAVIZ_UI_FLASH_SCREEN_H
#define MHAVIZ_UI_FLASH_SCREEN_H

#include "ui/ui.h"

/* A new Tiles screen on ui->cfg with blocks of FLASH_BLOCK_DEFAULT; NULL when
 * out of memory.  A configuration the engine refuses shows its error. */
Screen *flash_open(Ui *ui);

/* The same with these blocks (each >= 1; larger than seq is one tile). */
Screen *flash_open_with(Ui *ui, int block_q, int block_k);

#endif
