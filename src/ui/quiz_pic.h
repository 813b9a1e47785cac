/* quiz_pic.h - the picture beside an offsets question: the candy bar of the
 * question's buffer, the right cell lit after the answer and, when the
 * answer was wrong, the learner's cell marked beside it. */
#ifndef MHAVIZ_QUIZ_PIC_H
#define MHAVIZ_QUIZ_PIC_H

#include "content/quiz.h"
#include "draw/canvas.h"

/* Draws q's picture (m = mha_run(q->pic.cfg)) at row y, at most rows tall.
 * lit: light the right offset (q->pic.lit); wrong: an offset to mark in the
 * "bad" style (-1 none, or one outside the buffer). */
void quiz_pic_draw(Canvas *c, int y, int rows, const QuizQuestion *q, const Mha *m, int lit,
                   long wrong);

/* Rows the picture takes at c's width: measured on a scratch canvas, at most
 * a third of the screen (9 at least).  0 when it cannot be drawn. */
int quiz_pic_rows(const Canvas *c, const QuizQuestion *q, const Mha *m);

#endif
