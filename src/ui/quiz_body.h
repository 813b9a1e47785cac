/* quiz_body.h - a scrolling block of wrapped text on a canvas, for the quiz
 * screen: what is asked, the feedback and the engine's working. */
#ifndef MHAVIZ_QUIZ_BODY_H
#define MHAVIZ_QUIZ_BODY_H

#include "draw/canvas.h"

/* Text drawn from logical row `scroll` on, into rows y .. y+h-1 at x, w wide.
 * With h == 0 nothing is drawn: `line` counts the rows the text needs. */
typedef struct Body {
    Canvas *c;
    int x, y, w, h, scroll, line; /* line: next logical row */
} Body;

/* One row: len bytes of text after indent spaces. */
void body_put(Body *b, const char *text, int len, int indent, Style st);
/* One paragraph line, word-wrapped; continuation lines hang under a list
 * item's text ("  b) To Q ..."), else keep the indent + 2. */
void body_wrap(Body *b, const char *s, int len, Style st);
/* Every line of text ('\n'-separated), wrapped. */
void body_text(Body *b, const char *text, Style st);
/* The engine's working: padding runs squeezed, wrapped, in the code style. */
void body_working(Body *b, const char *w);

#endif
