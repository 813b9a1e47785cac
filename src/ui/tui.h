/* tui.h - the terminal backend: the only module that includes <curses.h>.
 *
 * tui_run() owns the terminal for the life of the interactive program (htop's
 * CRT): it checks that stdin and stdout are terminals, opens the terminal
 * with newterm (our own message for a bad TERM), picks colour or monochrome
 * and Unicode or ASCII glyphs, runs the screen stack (ui.h) until the last
 * screen closes or a signal arrives, and always restores the terminal.
 */
#ifndef MHAVIZ_TUI_H
#define MHAVIZ_TUI_H

#include <stddef.h>

#include "ui/ui.h"

/* Runs the interactive program with first as the bottom screen.  Takes
 * ownership of first (and of every screen pushed): all are freed before it
 * returns.  Sets ui->color and ui->ascii from the terminal, the locale,
 * NO_COLOR, color and force_ascii.
 * Returns 0 when the last screen closed; 2 (the reason in err, terminal
 * untouched) when stdin/stdout is not a terminal or TERM is unusable; 1 on a
 * runtime failure (the reason in err, terminal restored); 128 + N
 * when signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ended it, terminal restored. */
int tui_run(Ui *ui, Screen *first, ColorMode color, int force_ascii, char *err, size_t errlen);

#endif
