/* quiz_pic.c - the candy bar of an offsets question (quiz_pic.h). */
#include "ui/quiz_pic.h"

#include <string.h>

#include "draw/scene.h"

/* The bar as the scene draws it, lit at offset `lit` (-1 none). */
static void bar(Canvas *c, int y, int rows, const QuizQuestion *q, const Mha *m, long lit)
{
    const Tensor *t = m->t[q->pic.tensor];
    int dh = m->d_head, wrap, heads;
    switch (q->pic.tensor) {
    case MT_K:
        wrap = m->cfg.kv_heads * dh, heads = m->cfg.kv_heads;
        break;
    case MT_HEAD_OUT: /* head-major: rows are (head, token) */
        wrap = dh, heads = 0;
        break;
    default:
        wrap = m->cfg.d_model, heads = m->cfg.heads;
        break;
    }
    scene_candy_bar(c, 1, y, c->w - 2, rows, t, wrap, heads, dh, lit);
}

void quiz_pic_draw(Canvas *c, int y, int rows, const QuizQuestion *q, const Mha *m, int lit,
                   long wrong)
{
    if (!m) return;
    bar(c, y, rows, q, m, lit ? q->pic.lit : -1);
    if (wrong < 0 || wrong >= (long)m->t[q->pic.tensor]->st->n || wrong == q->pic.lit) return;
    /* the cell the scene would light for the wrong offset, found on a scratch
     * canvas of the same size, restyled here: the two cells side by side */
    Canvas *s = canvas_new(c->w, c->h);
    if (!s) return;
    bar(s, y, rows, q, m, wrong);
    for (int yy = y; yy < y + rows && yy < c->h; yy++)
        for (int x = 0; x < c->w; x++)
            if (canvas_at(s, x, yy)->style == ST_LIT) canvas_style(c, x, yy, 1, 1, ST_BAD);
    canvas_free(s);
}

int quiz_pic_rows(const Canvas *c, const QuizQuestion *q, const Mha *m)
{
    if (!m) return 0;
    int cap = c->h / 3 > 9 ? c->h / 3 : 9;
    Canvas *scratch = canvas_new(c->w, cap);
    if (!scratch) return 0;
    bar(scratch, 0, cap, q, m, -1);
    int used = 0;
    char row[1024];
    for (int y = 0; y < cap; y++)
        if (strspn(canvas_row(scratch, y, 1, row, sizeof row), " ") < strlen(row)) used = y + 1;
    canvas_free(scratch);
    return used;
}
