/* quiz_screen.h - the quiz as a TUI Screen (ui.h): topic and length picker,
 * one question per screen, feedback with the explanation and the engine's
 * working, a summary by topic at the end. */
#ifndef MHAVIZ_QUIZ_SCREEN_H
#define MHAVIZ_QUIZ_SCREEN_H

#include "quiz.h"

/* Runs the TUI quiz over qs[0..n) (copied).  Returns the process exit code. */
int quiz_tui(const QuizQuestion *qs, int n, const char *what, int timed, int no_save);

#endif
