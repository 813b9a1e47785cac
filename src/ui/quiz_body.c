/* quiz_body.c - wrapped, scrolled text for the quiz screen (quiz_body.h). */
#include "ui/quiz_body.h"

#include <stdio.h>
#include <string.h>

#include "base/linebreak.h"

void body_put(Body *b, const char *text, int len, int indent, Style st)
{
    int row = b->line - b->scroll;
    if (row >= 0 && row < b->h) {
        char buf[512];
        snprintf(buf, sizeof buf, "%*s%.*s", indent, "", len, text);
        canvas_text(b->c, b->x, b->y + row, buf, st);
    }
    b->line++;
}

/* One paragraph line, word-wrapped where base/linebreak.h breaks it (by
 * code points: "é" is one column and never cut in two).  Continuation lines hang under the text
 * of a list item ("  b) To Q and K ..." continues under "To"), else keep the
 * line's indent + 2 (an indented line) or none. */
void body_wrap(Body *b, const char *s, int len, Style st)
{
    int indent = 0;
    while (indent < len && s[indent] == ' ')
        indent++;
    s += indent, len -= indent;
    int hang = indent ? indent + 2 : 0;
    if (len > 3 && s[0] >= 'a' && s[0] <= 'z' && s[1] == ')' && s[2] == ' ') hang = indent + 3;
    int first = 1;
    LineBreak lb;
    if (len == 0) body_put(b, "", 0, 0, st);
    for (;;) {
        int ind = first ? indent : hang, avail = b->w - ind;
        if (avail < 10) avail = 10;
        if (!linebreak_next(s, (size_t)len, avail, &lb)) break;
        body_put(b, s, (int)lb.len, ind, st);
        s += lb.next, len -= (int)lb.next;
        first = 0;
    }
}

void body_text(Body *b, const char *text, Style st)
{
    while (*text) {
        int len = (int)strcspn(text, "\n");
        body_wrap(b, text, len, st);
        text += len;
        if (*text) text++;
    }
}

/* The working with runs of padding spaces squeezed (plain mode aligns the
 * arrows in columns; a narrower screen wraps instead). */
void body_working(Body *b, const char *w)
{
    char line[600];
    while (*w) {
        int len = (int)strcspn(w, "\n"), k = 0, i = 0;
        while (i < len && w[i] == ' ' && k < (int)sizeof line - 1)
            line[k++] = w[i++];
        for (; i < len && k < (int)sizeof line - 1; i++)
            if (!(w[i] == ' ' && i > 0 && w[i - 1] == ' ' && i + 1 < len && w[i + 1] == ' '))
                line[k++] = w[i];
        body_wrap(b, line, k, ST_CODE);
        w += len;
        if (*w) w++;
    }
}
