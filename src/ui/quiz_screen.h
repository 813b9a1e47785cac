/* quiz_screen.h - the quiz as a TUI Screen (ui.h): topic and length picker,
 * one question per screen, feedback with the explanation and the engine's
 * working, a summary by topic at the end. */
#ifndef MHAVIZ_QUIZ_SCREEN_H
#define MHAVIZ_QUIZ_SCREEN_H

#include "content/quiz.h"
#include "ui/ui.h"

/* The quiz from the home menu: the picker with defaults (all topics, 10
 * questions, a seed from the clock).  NULL when out of memory. */
Screen *quiz_open(Ui *ui);

/* The picker preset to topic (-1 all), count and seed; or, with qs != NULL,
 * straight to the questions qs[0..n) (copied; --review).  Scores go to the
 * history unless no_save or ui->no_save. */
Screen *quiz_open_with(Ui *ui, const QuizQuestion *qs, int n, int topic, int count, uint64_t seed,
                       int timed, int no_save);

/* --timed N: each question counts down from seconds (shown in the title);
 * at 0 it counts as wrong and the feedback says so.  0 turns it off (the
 * stopwatch of `timed` stays). */
void quiz_set_limit(Screen *s, int seconds);

#endif
