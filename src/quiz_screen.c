/* quiz_screen.c - the quiz Screen (work in progress: waits for the TUI). */
#include "quiz_screen.h"

#include "cli.h"

int quiz_tui(const QuizQuestion *qs, int n, const char *what, int timed, int no_save)
{
    (void)qs, (void)n, (void)what, (void)timed, (void)no_save;
    return cli_usage("quiz: the quiz screen is not in this build yet; use mhaviz quiz --plain");
}
