/* candybar.c - the candy bar: a tensor's storage drawn as one strip of
 * cells (offset, value; on tall frames head and index too), wrapped a token
 * per line where it fits, scrolled to the lit cell; step 8's tagged runs.
 */
#include "draw/scenectx.h"

#include "base/textutil.h"
#include "engine/rope.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bar_plan_p, in large print when `large` (1, or 2: see bar_plan_whole):
 * cells at least twice as wide as bar_plan_p would make them (half as many
 * to a line, or fewer) and never too narrow for a value. */
static void bar_plan_big(Bar *b, const Tensor *t, int base, int x, int y, int w, int h, int pitch,
                         int large)
{
    long cand[64];
    int nc = 0, maxcells, minw, avail = (h - 1) / pitch, big = large ? 2 : 1, normal_cw = 0;
    if (large) { /* the cells this bar would have, to double */
        bar_plan_big(b, t, base, x, y, w, h, pitch, 0);
        normal_cw = b->cw;
    }
    memset(b, 0, sizeof *b);
    b->pitch = pitch;
    b->large = large;
    b->t = t;
    b->x = x, b->y = y, b->w = w, b->h = h;
    b->n = (long)t->st->n;
    b->offw = sc_digits(b->n - 1);
    minw = b->offw + 1;
    if (large) { /* twice as wide as without, and wide enough for a value */
        int vw = pitch > 1 ? 6 : b->offw + 6;
        minw = 2 * normal_cw > vw ? 2 * normal_cw : vw;
        /* large 2: but a whole row (one token's floats of a head) stays on
         * one line when it fits there with its values */
        if (large == 2 && base > 1 && w / base >= vw && minw > w / base) minw = w / base;
    }
    maxcells = w / minw;
    if (maxcells < 1 || avail < 1 || b->n < 1) return;
    if (base < 1) base = 1;
    if (base <= maxcells) {
        for (long k = base; k <= maxcells && nc < 64; k += base) {
            cand[nc++] = k;
            if (k >= b->n) break;
        }
    } else {
        for (long d = 1; d <= maxcells && nc < 64; d++)
            if (base % d == 0) cand[nc++] = d;
        if (nc == 0 || cand[nc - 1] < maxcells / 2)
            cand[nc++] = maxcells; /* no useful divisor: fill the line */
    }
    b->wrap = (int)cand[nc - 1];
    /* one row shown: a wrap that divides the storage, so scrolling to the
     * end never shows a short tail of it without the floats before (when
     * one of them is at least half as wide as the widest) */
    for (int i = nc - 1; i >= 0 && avail == 1 && 2 * cand[i] >= cand[nc - 1]; i--)
        if (b->n % cand[i] == 0) {
            b->wrap = (int)cand[i];
            break;
        }
    for (int i = 0; i < nc; i++)
        if ((b->n + cand[i] - 1) / cand[i] <= avail) {
            b->wrap = (int)cand[i];
            break;
        }
    b->rows = (int)((b->n + b->wrap - 1) / b->wrap);
    b->rows_shown = b->rows <= avail ? b->rows : avail; /* the title says how many hide */
    b->cw = w / b->wrap;
    if (pitch > 1) {
        /* the value has a line of its own: cells as wide as a value and some air */
        int cap = big * ((b->offw > 5 ? b->offw : 5) + 4);
        if (b->cw > cap) b->cw = cap;
        b->values = b->cw - 1 >= 5;
        return;
    }
    if (b->cw > big * (b->offw + 9)) b->cw = big * (b->offw + 9);
    b->values = b->cw - 1 >= b->offw + 1 + 4;
}

/* Picks the wrap: whole rows (`base` floats, a token) per line when they fit,
 * as few lines as the height allows, cells as wide as the width allows. */
void bar_plan_p(Bar *b, const Tensor *t, int base, int x, int y, int w, int h, int pitch)
{
    bar_plan_big(b, t, base, x, y, w, h, pitch, 0);
}

void bar_plan(Bar *b, const Tensor *t, int base, int x, int y, int w, int h)
{
    bar_plan_p(b, t, base, x, y, w, h, 1);
}

/* The scene's bars are planned through here: large print (SceneState.large)
 * or not, as the frame says. */
void bar_plan_s(const Ctx *x, Bar *b, const Tensor *t, int base, int bx, int y, int w, int h,
                int pitch)
{
    bar_plan_big(b, t, base, bx, y, w, h, pitch, x->s.large);
}

/* bar_plan_s for a bar whose rows must stay whole where they can (the rope
 * step's: the pair marks go under one token's floats). */
void bar_plan_whole(const Ctx *x, Bar *b, const Tensor *t, int base, int bx, int y, int w, int h,
                    int pitch)
{
    bar_plan_big(b, t, base, bx, y, w, h, pitch, x->s.large ? 2 : 0);
}

/* The tag of batch b, head h, token s in format fmt (Bar.tagfmt); the batch
 * is named only when there are several (B > 1): "b1 h0 the". */
static void tag_text(char *buf, size_t n, int fmt, int B, int b, int h, int s)
{
    char pre[16] = "";
    if (B > 1) snprintf(pre, sizeof pre, fmt == 2 ? "%d," : "b%d ", b);
    if (fmt == 0)
        snprintf(buf, n, "%sh%d %s", pre, h, mha_token_word(s));
    else if (fmt == 1)
        snprintf(buf, n, "%sh%d t%d", pre, h, s);
    else
        snprintf(buf, n, "%s%d,%d", pre, h, s);
}

/* Without room for values, step 8's bars say which element each cell holds
 * instead (bar_tag): t is (B, S, H, dh) and runs of dh cells must not straddle
 * a row.  Re-plans b narrower by a margin for the row offsets; leaves b as it
 * was when tags would not help. */
void bar_plan_tags(Bar *b, const Tensor *t, int base)
{
    Bar n;
    int margin = b->offw + 1;
    if (t->ndim != 4 || b->pitch > 1) return;
    char tag[48];
    bar_plan_big(&n, t, base, b->x + margin, b->y, b->w - margin, b->h, 1, b->large);
    if (n.wrap == 0 || n.wrap % t->shape[3] != 0 || n.rows_shown < b->rows_shown) return;
    for (n.tagfmt = 0; n.tagfmt < 3; n.tagfmt++) {
        int ok = 1; /* the widest head number with every token */
        for (int s = 0; s < t->shape[1] && ok; s++) {
            tag_text(tag, sizeof tag, n.tagfmt, t->shape[0], t->shape[0] - 1, t->shape[2] - 1, s);
            ok = (int)strlen(tag) <= t->shape[3] * n.cw - 1;
        }
        if (ok) break;
    }
    if (n.tagfmt == 3) return;
    n.tagt = t;
    n.margin = margin;
    *b = n;
}

/* Wide frames: cells as wide as the bar's width allows, at most maxcw
 * columns (never narrower than planned); the wrap stays. */
void bar_widen(Bar *b, int maxcw)
{
    int cw;
    if (b->wrap == 0) return;
    cw = b->w / b->wrap; /* with tags, b->w already leaves their margin out */
    if (cw > maxcw) cw = maxcw;
    if (cw <= b->cw) return;
    b->cw = cw;
    if (!b->tagt) b->values = b->pitch > 1 ? b->cw - 1 >= 5 : b->cw - 1 >= b->offw + 1 + 4;
}

/* Scrolls so storage offset lit (if any) is on a shown row, then picks the
 * decimals every shown value fits in. */
void bar_scroll(Bar *b, long lit)
{
    long first, last;
    if (b->wrap == 0) return;
    if (lit >= 0 && lit < b->n && lit / b->wrap >= b->rows_shown)
        b->r0 = (int)(lit / b->wrap) - b->rows_shown + 1;
    first = (long)b->r0 * b->wrap;
    last = first + (long)b->rows_shown * b->wrap;
    b->dec = 2;
    for (long o = first; b->values && o < b->n && o < last; o++) {
        int d = sc_dec_fit(b->t->st->data[o], b->cw - 1 - (b->pitch > 1 ? 0 : b->offw + 1));
        if (d < b->dec) b->dec = d;
    }
}

int bar_rows_used(const Bar *b)
{
    if (b->wrap == 0) return b->h > 0 ? 1 : 0;
    return 1 + b->rows_shown * b->pitch + (b->rows_shown > 1 ? (b->rows_shown - 1) * b->lead : 0) +
           b->marks;
}

/* Position of storage offset o; 0 if hidden. */
int bar_pos(const Bar *b, long o, int *px, int *py)
{
    if (b->wrap == 0 || o < 0 || o >= b->n || o / b->wrap < b->r0 ||
        o / b->wrap >= b->r0 + b->rows_shown)
        return 0;
    *px = b->x + (int)(o % b->wrap) * b->cw;
    *py = b->y + 1 + ((int)(o / b->wrap) - b->r0) * (b->pitch + b->lead);
    if (b->marks && b->markr >= 0) { /* under the rows of marks shown above */
        long row = o / b->wrap, last = (long)b->markr + b->nmark - 1;
        long lo = b->markr > b->r0 ? b->markr : b->r0, hi = row < last + 1 ? row : last + 1;
        if (hi > lo) *py += (int)(hi - lo);
        if (last >= b->r0 && last < row) *py += b->marks - b->nmark; /* and the legend */
    }
    return 1;
}

/* One storage cell: offset (and value when wide enough) in cw-1 columns. */
void bar_cell(Ctx *x, const Bar *b, long o, int px, int py, Style st, int empty, int head)
{
    char num[32];
    int inner = b->cw - 1;
    canvas_fill(x->c, px, py, inner, b->pitch, ' ', st);
    if (empty) {
        canvas_put(x->c, px + inner - 1, py + (b->pitch > 1), 0x00B7, ST_DIM);
        return;
    }
    if (b->pitch > 1) {
        /* a tall cell: offset, value under it, then the head it belongs to */
        snprintf(num, sizeof num, "%ld", o);
        canvas_text(x->c, px + inner - (int)strlen(num), py, num, st);
        if (b->values) {
            sc_fmt_num_dec(num, sizeof num, b->t->st->data[o], inner, b->dec);
            canvas_text(x->c, px + inner - (int)strlen(num), py + 1, num, st);
        }
        {
            /* the rows under it: the head (when coloured) or the token, then
             * the logical index */
            int line = 2, idx[TENSOR_MAXDIM], held = sc_offset_index(b->t, o, idx);
            if (b->pitch > line && head >= 0) {
                snprintf(num, sizeof num, "h%d", head);
                if ((int)strlen(num) <= inner)
                    canvas_text(x->c, px + inner - (int)strlen(num), py + line, num, st);
                line++;
            } else if (b->pitch > 3 && b->tokens && held && b->t->ndim == 3) {
                const char *word = mha_token_word(idx[1]);
                int ww = canvas_text_width(word);
                if (ww <= inner) canvas_text(x->c, px + inner - ww, py + line, word, st);
                line++;
            }
            if (b->pitch > line && held) {
                size_t k = 0;
                for (int i = b->t->shape[0] == 1; i < b->t->ndim && k < sizeof num; i++)
                    k += (size_t)snprintf(num + k, sizeof num - k, "%s%d", k ? "," : "", idx[i]);
                if (k < sizeof num && (int)k <= inner)
                    canvas_text(x->c, px + inner - (int)k, py + line, num, st);
            }
        }
        return;
    }
    snprintf(num, sizeof num, "%*ld", b->offw, o);
    canvas_text(x->c, px, py, num, st);
    if (b->values) {
        int vw = inner - b->offw - 1;
        sc_fmt_num_dec(num, sizeof num, b->t->st->data[o], vw, b->dec);
        canvas_text(x->c, px + inner - (int)strlen(num), py, num, st);
    }
}

/* Tag mode: the cell o that starts a run of d_head cells (one token of one
 * head) on its row draws the run, up to `filled`, in style st with the run's
 * tag; the run's other cells draw nothing.  The lit cell (drawn later, with
 * its offset) splits a run: the tag goes where it fits beside it.  A tag that
 * does not fit is left out, never cut. */
static void bar_tag(Ctx *x, const Bar *b, long o, int px, int py, Style st, long filled, long lit)
{
    int idx[TENSOR_MAXDIM], dh = b->tagt->shape[3], cells = 0, tw, at = 0;
    char tag[48];
    if (!sc_offset_index(b->tagt, o, idx)) {
        canvas_fill(x->c, px, py, b->cw - 1, 1, ' ', st);
        return;
    }
    if (idx[3] != 0 && o % b->wrap != 0) return; /* inside a run: its start drew it */
    while (idx[3] + cells < dh && (o + cells) / b->wrap == o / b->wrap &&
           (filled < 0 || o + cells < filled))
        cells++;
    tw = cells * b->cw - 1;
    canvas_fill(x->c, px, py, tw, 1, ' ', st);
    tag_text(tag, sizeof tag, b->tagfmt, b->tagt->shape[0], idx[0], idx[2], idx[1]);
    if (lit >= o && lit < o + cells) {
        int before = (int)(lit - o), after = cells - before - 1;
        if ((int)strlen(tag) <= before * b->cw - 1)
            tw = before * b->cw - 1;
        else
            at = (before + 1) * b->cw, tw = after * b->cw - 1;
    }
    if ((int)strlen(tag) <= tw) canvas_text(x->c, px + at, py, tag, st);
}

/* What the rows of a tall cell hold, for the bar's title: "; each cell:
 * offset, value, head, index (h, s, d)", the index's letters the axes of the
 * tensor's shape (mha_steps), without the batch when it is 1.  0 when the
 * cells hold only offset and value, or the tensor is not a step's. */
static int bar_legend(const Ctx *x, const Bar *b, const HeadMap *hm, char *buf, size_t n)
{
    const char *shape = NULL;
    int head_row = b->pitch > 2 && hm && (hm->t || hm->wrap), k = 0;
    int token_row = !head_row && b->pitch > 3 && b->tokens && b->t->ndim == 3;
    size_t o;
    for (int i = 0; x->m && i < MS_ALL && !shape; i++)
        if (x->m->t[mha_steps[i].output] == b->t) shape = mha_steps[i].shape;
    if (b->pitch < 3 || !shape) return 0;
    o = (size_t)snprintf(buf, n, "; each cell: offset, value%s",
                         head_row    ? ", head"
                         : token_row ? ", token"
                                     : "");
    if (b->pitch <= 2 + head_row + token_row) return 1;
    o += (size_t)snprintf(buf + o, n - o, ", index (");
    for (const char *p = shape + 1; *p && *p != ')' && o + 4 < n; k++) {
        size_t len = strcspn(p, ",)");
        if (!(k == 0 && b->t->shape[0] == 1)) /* (B, ...) with B 1: the batch index is left out */
            o += (size_t)snprintf(buf + o, n - o, "%s%c", buf[o - 1] == '(' ? "" : ", ",
                                  (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p));
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    snprintf(buf + o, n - o, ")");
    return 1;
}

/* Draws the bar under its title.  hm: head of each offset (NULL: uncoloured);

 * lit: offset to light (-1 none); sweep in [0,1): only offsets below sweep*n
 * are coloured yet; filled >= 0: offsets from `filled` on are still empty. */
void bar_draw(Ctx *x, const Bar *b, const char *title, const HeadMap *hm, long lit, double sweep,
              long filled)
{
    char full[300], legend[96];
    long first = (long)b->r0 * b->wrap, end = first + (long)b->rows_shown * b->wrap;
    if (end > b->n) end = b->n;
    if (b->wrap && b->rows_shown < b->rows) {
        snprintf(full, sizeof full, "%s; showing offsets %ld..%ld", title, first, end - 1);
        title = full;
    }
    if (bar_legend(x, b, hm, legend, sizeof legend) &&
        canvas_text_width(title) + canvas_text_width(legend) <= b->w + b->margin) {
        if (title != full) snprintf(full, sizeof full, "%s", title);
        snprintf(full + strlen(full), sizeof full - strlen(full), "%s", legend);
        title = full;
    }
    sc_text_fit(x->c, b->x - b->margin, b->y, b->w + b->margin, title, ST_BOLD);
    if (b->wrap == 0) return;
    for (long o = first; o < end; o++) {
        int px, py, head, empty = filled >= 0 && o >= filled;
        Style st = ST_NORMAL;
        if (!bar_pos(b, o, &px, &py)) continue;
        head = hm_head(hm, o);
        if (head >= 0 && (sweep < 0 || o < (long)(sweep * (double)b->n))) st = ST_HEAD(head);
        if (b->tagt && o % b->wrap == 0)
            sc_fitf(x->c, b->x - b->margin, py, b->margin - 1, ST_DIM, "%*ld", b->offw, o);
        if (b->tagt && !empty)
            bar_tag(x, b, o, px, py, st, filled, lit);
        else
            bar_cell(x, b, o, px, py, o == lit ? ST_LIT : st, empty, st == ST_NORMAL ? -1 : head);
        for (int k = 0; k < b->pitch; k++) {
            int idx[TENSOR_MAXDIM];
            if (!b->hit_t)
                sc_hit_test(x, px, py + k, b->cw - 1, 2, NULL, o);
            else if (sc_offset_index(b->hit_t, o, idx))
                sc_hit_test(x, px, py + k, b->cw - 1, 1, idx, o);
        }
    }
    if (b->tagt && lit >= first && lit < end && !(filled >= 0 && lit >= filled)) {
        int px, py; /* over the tags: the lit cell, with its offset */
        if (bar_pos(b, lit, &px, &py)) bar_cell(x, b, lit, px, py, ST_LIT, 0, -1);
    }
}

/* The rope step: the (batch, head, token) whose pairs bar_mark_pairs marks,
 * into sel[3]: the inspect cursor's, else batch 0, head 0 and the last token
 * (position S-1, so every angle but pair 0's is not 0).  Sets b->markr, the
 * first storage row the marks go under (its floats span b->nmark rows), and
 * returns the offset to scroll to. */
long bar_pairs_row(const Ctx *x, Bar *b, int *sel)
{
    const Tensor *t = b->t;
    int idx[4] = {0, 0, t->shape[2] - 1, 0};
    long o;
    if (x->s.inspect) memcpy(idx, x->s.cur, sizeof idx);
    sel[0] = idx[0], sel[1] = idx[1], sel[2] = idx[2];
    idx[3] = 0;
    o = (long)tensor_offset_of(t, idx);
    b->markr = b->wrap ? (int)(o / b->wrap) : -1;
    if (x->s.inspect || !b->wrap || b->wrap >= t->shape[3] ||
        b->rows_shown < t->shape[3] / b->wrap || b->nmark < t->shape[3] / b->wrap)
        return o;             /* its first float: the first marked row shown */
    idx[3] = t->shape[3] - 1; /* the last float, so every marked row is shown */
    return (long)tensor_offset_of(t, idx);
}

/* Under the cells of one head's token (sel: batch, head, token of the
 * (B, H, S, dh) tensor b->t) in the row(s) the bar reserved (b->marks): "pI" under each
 * float of pair I, right under its offset, so the two floats of a pair carry
 * the same mark: dh/2 floats apart in half, neighbours in interleaved (their
 * offsets through the tensor's strides).  Beside them, what each pair turns
 * by at this position: p x inv_freq[i] radians.  Marks and pairs that do
 * not fit are left out, never cut. */
void bar_mark_pairs(Ctx *x, const Bar *b, const int *sel)
{
    const MhaConfig *c = &x->m->cfg;
    const Tensor *t = b->t;
    int dh = t->shape[3], pos = sel[2], lo = -1, hi = -1, y = -1, room, left = 0, under = 0;
    long far;
    char mk[16], leg[400];
    size_t k;
    if (!b->marks || b->markr < 0 || c->rope == ROPE_OFF || dh < 2) return;
    for (int d = 0; d < dh; d++) {
        int idx[4] = {sel[0], sel[1], sel[2], d}, px, py, w, end;
        long o = (long)tensor_offset_of(t, idx);
        long q = o / b->wrap - b->markr;
        if (q < 0 || q >= b->nmark || !bar_pos(b, o, &px, &py)) continue;
        if (py + b->pitch > y) lo = hi = -1; /* the legend goes beside the last marked row */
        snprintf(mk, sizeof mk, "p%d", rope_pair_of(c->rope, d, dh));
        w = (int)strlen(mk);
        end = b->pitch > 1 ? px + b->cw - 2 : px + b->offw - 1; /* the offset's last column */
        if (end - w + 1 < px) end = px + b->cw - 2;
        if (end - w + 1 < px) continue;
        y = py + b->pitch;
        canvas_text(x->c, end - w + 1, y, mk, ST_BOLD);
        if (lo < 0 || px < lo) lo = px;
        if (px + b->cw > hi) hi = px + b->cw;
    }
    if (y < 0) return;
    {
        int i0[4] = {sel[0], sel[1], sel[2], 0}, i1[4] = {sel[0], sel[1], sel[2], 0};
        i1[3] = rope_partner(c->rope, 0, dh);
        far = (long)tensor_offset_of(t, i1) - (long)tensor_offset_of(t, i0);
    }
    /* right of the marks when there is room, else left of them, else (with
     * a second row reserved) under them */
    room = b->x + b->w - (hi + 1);
    if (room < lo - b->x - 1) room = lo - b->x - 1, left = 1;
    if (room < 40 && b->marks > b->nmark) room = b->w, left = 0, under = 1;
    for (int form = 0; form < 2; form++) { /* with the partner's distance, then without */
        int all = 1;
        if (form == 0)
            k = (size_t)snprintf(leg, sizeof leg,
                                 "%sh%d %s, partner %+ld, pos %d:", left || under ? "" : "<- ",
                                 sel[1], mha_token_word(pos), far, pos);
        else
            k = (size_t)snprintf(leg, sizeof leg, "%sh%d %s, pos %d:", left || under ? "" : "<- ",
                                 sel[1], mha_token_word(pos), pos);
        for (int i = 0; i < dh / 2; i++) {
            char one[64];
            float ang = (float)pos * rope_inv_freq(i, dh, c->rope_theta); /* as rope.c turns */
            int n = snprintf(one, sizeof one, " p%d %.2f%s", i, (double)ang,
                             i == dh / 2 - 1 ? " rad" : ",");
            if ((int)k + n + (i == dh / 2 - 1 ? 0 : 4) + 3 * left > room) {
                if (k + 4 < sizeof leg) k += (size_t)snprintf(leg + k, sizeof leg - k, " ...");
                all = 0;
                break;
            }
            if (k + (size_t)n < sizeof leg) memcpy(leg + k, one, (size_t)n + 1), k += (size_t)n;
        }
        if (all) break;
    }
    if (left && k + 3 < sizeof leg) k += (size_t)snprintf(leg + k, sizeof leg - k, " ->");
    if ((int)k > room) return; /* not even the head and the partner: the marks alone */
    if (under)
        canvas_text(x->c, b->x, y + 1, leg, ST_DIM);
    else
        canvas_text(x->c, left ? lo - 1 - (int)k : hi + 1, y, leg, ST_DIM);
}

int scene_candy_bar(Canvas *c, int x, int y, int w, int maxh, const Tensor *t, int wrap, int heads,
                    int d_head, long lit)
{
    Ctx ctx;
    Bar b;
    HeadMap hm = {NULL, 0, 1, 0, 0};
    char title[96];
    if (!c || !t || maxh < 1 || w < 1) return 0;
    memset(&ctx, 0, sizeof ctx);
    ctx.c = c;
    ctx.hx = ctx.hy = -1;
    bar_plan(&b, t, wrap, x, y, w, maxh);
    bar_scroll(&b, lit);
    if (heads > 0 && d_head > 0 && wrap > 0) {
        hm.wrap = wrap;
        hm.dh = d_head;
        hm.heads = heads;
    }
    char nf[48], nb[48];
    snprintf(title, sizeof title, "storage S%d: %s, %s", t->st->id,
             text_fmt_count(nf, sizeof nf, (unsigned long long)b.n, "float"),
             text_fmt_count(nb, sizeof nb, (unsigned long long)b.n * sizeof(float), "byte"));
    bar_draw(&ctx, &b, title, &hm, lit, -1, -1);
    return bar_rows_used(&b);
}
