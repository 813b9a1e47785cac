/* lessonui.h - the lesson screens of the TUI (ui.h Screens, no curses):
 * the lesson menu (finished pages marked), a lesson page (narrative beside the
 * scene), the variants screen (MHA | GQA | MQA) and the KV calculator.
 * Progress is kept with progress.h; ui->no_save turns saving off. */
#ifndef MHAVIZ_LESSONUI_H
#define MHAVIZ_LESSONUI_H

#include "ui/ui.h"

/* The home menu's entries: each returns a new Screen (NULL on out of memory). */
Screen *lessons_open(Ui *ui);  /* the lesson menu */
Screen *variants_open(Ui *ui); /* MHA | GQA | MQA side by side */
Screen *kvcalc_open(Ui *ui);   /* the KV-cache calculator */

/* A lesson page screen at lesson `name` (path, built-in name or number),
 * page 0; NULL with the reason in ui->status. */
Screen *lesson_open(Ui *ui, const char *name);

#endif
