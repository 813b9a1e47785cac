/* interactive.h - the commands that open the TUI (`mhaviz`, `mhaviz walk`,
 * `mhaviz lesson [NAME]`, the quiz screen): their shared flags, and the one
 * entry point that runs any first screen and dies of the signal that ended it.
 */
#ifndef MHAVIZ_INTERACTIVE_H
#define MHAVIZ_INTERACTIVE_H
#include "ui/ui.h"

/* Options of the interactive commands (`mhaviz`, `mhaviz walk`). */
typedef struct InteractiveOptions {
    ColorMode color;
    int ascii; /* --ascii */
    int step;  /* --step NAME|N for walk; 0 by default */
} InteractiveOptions;

/* Fills ui with defaults (config of mha_config_default, animation on, speed 1)
 * and parses argv[first..argc-1]: the shared configuration flags, --color=,
 * --ascii, --no-animation, --autoplay SECONDS, --no-save, and --step when
 * allow_step.  Runs the configuration (ui->mha, freed by ui_free).
 * Returns -1 to go on, or an exit code (0 after --help, 2 after printing a
 * one-line "mhaviz: --flag ..." error). */
int interactive_setup(Ui *ui, InteractiveOptions *o, int argc, char **argv, int first,
                      int allow_step, const char *usage);
/* --color=WHEN or --ascii at argv[*i] (advancing *i past a value): 1 when
 * it was one (o updated), 0 when not, -1 after printing a one-line usage error. */
int interactive_display_flag(int argc, char **argv, int *i, InteractiveOptions *o);

/* Runs first (owned; NULL: out of memory, exit 1) on the terminal with the
 * options o, frees ui, and returns the exit code; when a signal ended it
 * (terminal restored) it dies of that signal, as the shell expects. */
int interactive_run(Ui *ui, Screen *first, const InteractiveOptions *o);

/* `mhaviz lesson [NAME] [OPTIONS]`: the TUI at the lesson menu, or at NAME. */
int interactive_lesson(int argc, char **argv, const char *name);

#endif
