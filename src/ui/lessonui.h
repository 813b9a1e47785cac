/* lessonui.h - the lesson screens of the TUI (ui.h Screens, no curses), one
 * file each: the lesson menu (lessons.c: finished pages marked), a lesson
 * page (page_screen.c: narrative beside the scene), the variants screen
 * (variants_screen.c: MHA | GQA | MQA) and the KV calculator (kvcalc.c).
 * Progress is kept with progress.h; ui->no_save turns saving off. */
#ifndef MHAVIZ_LESSONUI_H
#define MHAVIZ_LESSONUI_H

#include <stddef.h>

#include "content/lesson.h"
#include "store/progress.h"
#include "ui/ui.h"

/* The home menu's entries: each returns a new Screen (NULL on out of memory). */
Screen *lessons_open(Ui *ui);  /* the lesson menu */
Screen *variants_open(Ui *ui); /* MHA | GQA | MQA side by side */
Screen *kvcalc_open(Ui *ui);   /* the KV-cache calculator */
/* The lesson where the learner left off (from the progress file), at its
 * first unfinished page; the lesson menu when every lesson is finished. */
Screen *lessons_continue(Ui *ui);

/* A lesson page screen at lesson `name` (path, built-in name or number),
 * page 0; NULL with the reason in ui->status. */
Screen *lesson_open(Ui *ui, const char *name);

/* The key hint of a lesson page with no exercise waiting, from the key table
 * (wide: the text beside the picture, no Tab); `lesson --frames` prints it. */
void lessonui_page_hint(int wide, char *buf, size_t n);

/* ---- shared by the lesson screens (lessons.c defines them) ---------------- */

/* The menu owns one Progress; a page opened from it points at it, a page
 * opened alone (`mhaviz lesson 2`) loads its own.  sel is the menu's
 * selection: a finished lesson that goes on to the next one moves it there,
 * so q from any lesson comes back to the menu on that lesson. */
typedef struct SharedProgress {
    Progress p;
    int refs;
    int sel; /* index in lesson_list() order */
} SharedProgress;

/* Loads the progress (its warning, once, into ui->status), refs 1; NULL when
 * out of memory.  Release drops one reference and frees at zero. */
SharedProgress *lessonui_progress_open(Ui *ui);
void lessonui_progress_release(SharedProgress *sp);

/* Where page (0-based) of lesson name stands: 0 not finished, 1 solved,
 * 2 finished with its answer revealed.  asks: the page has a question (a
 * page without one is solved once read, also in a file written before
 * solved pages were kept). */
enum { LESSONUI_TODO, LESSONUI_SOLVED, LESSONUI_REVEALED };
int lessonui_page_state(const Progress *p, const char *name, int page, int asks);

/* Reads and parses src; the new lesson (lesson_free it) and its display path
 * in path, or NULL with the first error in msg. */
Lesson *lessonui_read(const char *src, char *path, size_t pathn, char *msg, size_t msgn);

/* A page screen for lesson src, sharing prog (NULL: its own progress); NULL
 * with the reason in ui->status (page_screen.c). */
Screen *lessonui_page_open(Ui *ui, const char *src, SharedProgress *prog);

#endif
