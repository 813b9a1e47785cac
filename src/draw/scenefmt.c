/* scenefmt.c - the small helpers every part of the scene uses: text cut to a
 * width with "...", numbers in a width, the hit test of scene_click, and
 * which head a storage offset belongs to (HeadMap).
 */
#include "draw/scenectx.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nearest integer (halves away from zero), for animation positions. */
int sc_round(double v)
{
    return (int)(v < 0 ? v - 0.5 : v + 0.5);
}

int sc_digits(long v)
{
    int d = 1;
    if (v < 0) v = -v, d++;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

/* Text at (x, y) in at most maxw columns; longer text ends in "..." so a word
 * is never cut without saying so.  Returns the columns used. */
int sc_text_fit(Canvas *c, int x, int y, int maxw, const char *str, Style st)
{
    int n = canvas_text_width(str);
    if (maxw <= 0) return 0;
    if (n <= maxw) return canvas_text(c, x, y, str, st);
    if (maxw <= 3) {
        for (int i = 0; i < maxw; i++)
            canvas_put(c, x + i, y, '.', st);
        return maxw;
    }
    {
        char buf[512];
        size_t k = 0;
        int cps = 0;
        const unsigned char *p = (const unsigned char *)str;
        for (; p[k] && k < sizeof buf - 4; k++) {
            if ((p[k] & 0xC0) != 0x80) {
                if (cps == maxw - 3) break;
                cps++;
            }
        }
        while (k > 0 && k < sizeof buf - 4 && (p[k] & 0xC0) == 0x80)
            k--; /* stay on a character boundary */
        /* Never end on a digit: "(262144, 64, 32..." hides whether 32 is
         * 32 or 32768.  Back off to before the number (and the blank before
         * it), unless the text starts with it. */
        size_t cut = k;
        while (cut > 0 && isdigit(p[cut - 1]))
            cut--;
        if (cut > 0 && cut < k) {
            while (cut > 0 && p[cut - 1] == ' ')
                cut--;
            k = cut;
        }
        memcpy(buf, str, k);
        memcpy(buf + k, "...", 4);
        return canvas_text(c, x, y, buf, st);
    }
}

int sc_fitf(Canvas *c, int x, int y, int maxw, Style st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

int sc_fitf(Canvas *c, int x, int y, int maxw, Style st, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return sc_text_fit(c, x, y, maxw, buf, st);
}

/* v with `dec` decimals (fewer if it does not fit width); never "-0.00". */
void sc_fmt_num_dec(char *buf, size_t n, double v, int width, int dec)
{
    if (isnan(v)) {
        snprintf(buf, n, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, n, v < 0 ? "-inf" : "inf");
        return;
    }
    for (; dec >= 0; dec--) {
        snprintf(buf, n, "%.*f", dec, v);
        if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
            memmove(buf, buf + 1, strlen(buf)); /* "-0.00" -> "0.00" */
        if ((int)strlen(buf) <= width) return;
    }
    snprintf(buf, n, "%s", width >= 1 ? "#" : "");
}

void sc_fmt_num(char *buf, size_t n, double v, int width)
{
    sc_fmt_num_dec(buf, n, v, width, 2);
}

/* The most decimals (2, 1 or 0) with which v fits in width. */
int sc_dec_fit(double v, int width)
{
    char buf[64];
    for (int dec = 2; dec > 0; dec--) {
        sc_fmt_num_dec(buf, sizeof buf, v, 64, dec);
        if ((int)strlen(buf) <= width) return dec;
    }
    return 0;
}

/* Longest token word among the first n. */
int sc_word_w(int n)
{
    int w = 1;
    for (int s = 0; s < n; s++) {
        int k = (int)strlen(mha_token_word(s));
        if (k > w) w = k;
    }
    return w;
}

void sc_hit_test(Ctx *x, int cx, int cy, int cw, int kind, const int *idx, long off)
{
    if (x->hy != cy || x->hx < cx || x->hx >= cx + cw) return;
    x->hit = kind;
    x->hoff = off;
    if (idx) memcpy(x->hidx, idx, sizeof x->hidx);
}

HeadMap hm_of(const Tensor *t, int axis, int dh)
{
    HeadMap h = {t, axis, dh > 0 ? dh : 1, 0, 0};
    return h;
}

/* The index of t that storage offset off holds, into idx; 0 where t does not
 * reach.  Our views are permutations of a row-major buffer, so the index comes
 * back by dividing by the strides from the largest down (and is checked). */
int sc_offset_index(const Tensor *t, long off, int *idx)
{
    int used[TENSOR_MAXDIM] = {0};
    long rem;
    memset(idx, 0, TENSOR_MAXDIM * sizeof *idx);
    if (!t || off < (long)t->offset) return 0;
    rem = off - (long)t->offset;
    for (int k = 0; k < t->ndim; k++) {
        int a = -1;
        for (int i = 0; i < t->ndim; i++)
            if (!used[i] && t->shape[i] > 1 && t->strides[i] > 0 &&
                (a < 0 || t->strides[i] > t->strides[a]))
                a = i;
        if (a < 0) break;
        used[a] = 1;
        idx[a] = (int)(rem / t->strides[a]);
        if (idx[a] >= t->shape[a]) idx[a] = t->shape[a] - 1;
        rem -= (long)idx[a] * t->strides[a];
    }
    return rem == 0 && (long)tensor_offset_of(t, idx) == off;
}

/* The head of storage offset off, or -1 where t does not reach. */
int hm_head(const HeadMap *h, long off)
{
    int idx[TENSOR_MAXDIM];
    if (!h) return -1;
    if (h->wrap > 0) return (int)(((off % h->wrap) / h->dh) % (h->heads > 0 ? h->heads : 1));
    if (!sc_offset_index(h->t, off, idx)) return -1;
    return h->axis >= 0 ? idx[h->axis] : idx[h->t->ndim - 1] / h->dh;
}

HeadMap hm_step(const Mha *m, int tensor, int layout, int colour)
{
    HeadMap none = {NULL, 0, 1, 0, 0};
    if (!colour) return none;
    return hm_of(m->t[tensor], layout == LV_TOK ? 2 : layout == LV_HEAD ? 1 : -1, m->d_head);
}

/* The tensor that owns t's storage as a plain row-major array (offset 0,
 * contiguous, every float): its last dim is a "row" (a token for (B, S, D)). */
int sc_storage_row(const Mha *m, const Tensor *t)
{
    for (int i = 0; m && i < MT_COUNT; i++) {
        const Tensor *o = m->t[i];
        if (o && o->st == t->st && o->offset == 0 && tensor_numel(o) == o->st->n &&
            tensor_is_contiguous(o))
            return o->shape[o->ndim - 1];
    }
    return t->shape[t->ndim - 1];
}

/* Step 8's animation: how many floats of the copy have landed at the
 * state's phase (0..numel), or -1 when nothing is animating (another step,
 * no phase, or a .contiguous() that copied nothing).  The counter and the
 * picture both count from it, so they always agree. */
long sc_copy_landed(const Ctx *x)
{
    const MhaStep *ms = &x->m->steps[MS_CONTIG];
    if (x->s.view != MV_STEP || x->s.step != MS_CONTIG || !(x->s.anim >= 0 && x->s.anim < 1) ||
        ms->bytes_copied == 0)
        return -1;
    return (long)(x->s.anim * (double)tensor_numel(x->m->t[ms->output]));
}

/* Is the w x h area at (x, y) blank, and the column each side of it too?
 * Blank is a space in the plain style: a head's run of a bar, a lit cell or
 * a value's padding is spaces on a background colour, and is drawn on.  A
 * moving cell is drawn only there: never over a label, a run, a bar's empty
 * slot (its dot counts a float still to land) or another cell, and never
 * run into one.  Outside the canvas counts as not blank. */
int sc_area_free(const Canvas *c, int x, int y, int w, int h)
{
    for (int r = 0; r < h; r++)
        for (int k = -1; k <= w; k++) {
            const Cell *cell = canvas_at(c, x + k, y + r);
            if (!cell || cell->ch != ' ' || cell->style != ST_NORMAL) return 0;
        }
    return 1;
}

/* The name the picture gives step `step`'s tensor: its export name
 * ("Q_split", "merged"), unless that name is what the code calls another
 * step's tensor: step 10's "out" is the code's y (out is steps 6-9's). */
const char *sc_tensor_label(int step)
{
    const char *name = mha_tensor_names[mha_steps[step].output];
    for (int i = 0; i < MS_COUNT; i++)
        if (i != step && !strcmp(mha_steps[i].var, name) && strcmp(mha_steps[step].var, name))
            return mha_steps[step].var;
    return name;
}
