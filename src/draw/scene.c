/* scene.c - one step of the pipeline, drawn from a finished Mha run.
 *
 * Frame layout (w x h, at least 80x24; rows from the top):
 *   0        title: step n/10 and its name; on the right the bytes this step
 *            copied and the pass's total so far
 *   1..6     the six-line program, current statement highlighted | shape,
 *            strides before -> after, contiguous, storage id
 *   7        the step's own code line (from the trace) and what it did to memory
 *   8..      body: the candy bar (the storage, one cell per float, offsets),
 *            then the logical view (tokens x heads x d_head, or heads x tokens),
 *            or the heatmaps on the softmax step
 *   bottom   narrative (2-4 lines; the inspect formula takes the first), status
 *
 * Which tensor each step shows and inspects (its "logical tensor"):
 *   input x, project Q, split Q_split, heads Q_heads, scores scores,
 *   softmax attn, weighted head_out, back merged, contiguous merged_contig,
 *   concat concat, output out; MV_WRONG_VIEW Q_wrong; MV_NO_SCALE attn.
 * The candy bar is always that tensor's storage, so the inspect cursor's
 * storage offset (tensor_offset_of) is the cell that lights up.
 *
 * Every number drawn is read from the run: shapes and strides through
 * tensor_fmt_dims / tensor_fmt_strides, bytes from the trace, sums computed
 * from the tensors.
 */
#include "draw/scene.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How the logical view lays a tensor out. */
enum {
    LV_FLAT, /* (B, S, D): rows = tokens, columns = D (split into head groups when coloured) */
    LV_TOK,  /* (B, S, H, X): rows = tokens, column groups = heads */
    LV_HEAD  /* (B, H, S, X): a block of token rows per head */
};

typedef struct StepView {
    int tensor;       /* MT_*: the logical tensor, inspected */
    int layout;       /* LV_* */
    int colour;       /* colour cells by head */
    int line;         /* line of the program listing; -1: none (the input) */
    const char *span; /* the part of that line this step runs; NULL: the whole line */
} StepView;

static const StepView step_view[MS_COUNT] = {
    [MS_INPUT] = {MT_X, LV_FLAT, 0, -1, NULL}, /* x comes before the program */
    [MS_PROJECT] = {MT_Q, LV_FLAT, 0, 0, NULL},
    [MS_SPLIT] = {MT_Q_SPLIT, LV_TOK, 1, 1, ".view(B, S, H, dh)"},
    [MS_HEADS] = {MT_Q_HEADS, LV_HEAD, 1, 1, ".transpose(1, 2)"},
    [MS_SCORES] = {MT_SCORES, LV_HEAD, 1, 2, NULL},
    [MS_SOFTMAX] = {MT_ATTN, LV_HEAD, 1, 3, NULL},
    [MS_WEIGHTED] = {MT_HEAD_OUT, LV_HEAD, 1, 4, "(attn @ V)"},
    [MS_BACK] = {MT_MERGED, LV_TOK, 1, 4, ".transpose(1, 2)"},
    [MS_CONTIG] = {MT_MERGED_CONTIG, LV_TOK, 1, 4, ".contiguous()"},
    [MS_CONCAT] = {MT_CONCAT, LV_FLAT, 1, 5, "out.view(B, S, D)"},
    [MS_OUT] = {MT_OUT, LV_FLAT, 0, 5, NULL},
};

/* The whole program, as the walkthrough steps through it (DESIGN's table). */
#define PROGRAM_LINES 6
static const char *const program[PROGRAM_LINES] = {
    "Q = x @ W_Q; K = x @ W_K; V = x @ W_V",         "Q = Q.view(B, S, H, dh).transpose(1, 2)",
    "scores = Q @ K.transpose(-2, -1) / sqrt(dh)",   "attn = softmax(scores, dim=-1)",
    "out = (attn @ V).transpose(1, 2).contiguous()", "y = out.view(B, S, D) @ W_O",
};

#define TOP_ROWS 8     /* title, program (6), code line */
#define PROGRAM_W 50   /* "  1  " + the longest program line, and a gap */
#define RIGHT_MARGIN 1 /* never draw in the last column: nothing ends flush right */
#define NARRATIVE_MAX_W 100 /* the narrative's widest line, on any frame */

/* Drawing context: the canvas, the run, the state (cursor clamped), and an
 * optional hit test (scene_click) filled by the cell drawers. */
typedef struct Ctx {
    Canvas *c;
    const Mha *m;
    SceneState s;
    int x0, y0, w, h;
    int tg;      /* tall frames: blank rows under the title and over the code line */
    int hx, hy;  /* point to hit-test; -1: none */
    int hit;     /* 0 none, 1 a logical cell, 2 a storage cell */
    int hidx[4]; /* logical index hit */
    long hoff;   /* storage offset hit */
} Ctx;

/* ---- small helpers -------------------------------------------------------- */

/* Nearest integer (halves away from zero), for animation positions. */
static int round_int(double v)
{
    return (int)(v < 0 ? v - 0.5 : v + 0.5);
}

static int digits(long v)
{
    int d = 1;
    if (v < 0) v = -v, d++;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

/* Text at (x, y) in at most maxw columns; longer text ends in "..." so a word
 * is never cut without saying so.  Returns the columns used. */
static int text_fit(Canvas *c, int x, int y, int maxw, const char *str, Style st)
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
        memcpy(buf, str, k);
        memcpy(buf + k, "...", 4);
        return canvas_text(c, x, y, buf, st);
    }
}

static int fitf(Canvas *c, int x, int y, int maxw, Style st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int fitf(Canvas *c, int x, int y, int maxw, Style st, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return text_fit(c, x, y, maxw, buf, st);
}

/* v with `dec` decimals (fewer if it does not fit width); never "-0.00". */
static void fmt_num_dec(char *buf, size_t n, double v, int width, int dec)
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

static void fmt_num(char *buf, size_t n, double v, int width)
{
    fmt_num_dec(buf, n, v, width, 2);
}

/* The most decimals (2, 1 or 0) with which v fits in width. */
static int dec_fit(double v, int width)
{
    char buf[64];
    for (int dec = 2; dec > 0; dec--) {
        fmt_num_dec(buf, sizeof buf, v, 64, dec);
        if ((int)strlen(buf) <= width) return dec;
    }
    return 0;
}

static const char *yes_no(int b)
{
    return b ? "yes" : "no";
}

/* Longest token word among the first n. */
static int word_w(int n)
{
    int w = 1;
    for (int s = 0; s < n; s++) {
        int k = (int)strlen(mha_token_word(s));
        if (k > w) w = k;
    }
    return w;
}

static void hit_test(Ctx *x, int cx, int cy, int cw, int kind, const int *idx, long off)
{
    if (x->hy != cy || x->hx < cx || x->hx >= cx + cw) return;
    x->hit = kind;
    x->hoff = off;
    if (idx) memcpy(x->hidx, idx, sizeof x->hidx);
}

/* Which head a storage offset belongs to: axis `axis` of t is the head index,
 * or (axis -1) the last axis divided by dh.  When wrap > 0 the formula
 * (offset % wrap) / dh % heads is used instead (scene_candy_bar). */
typedef struct HeadMap {
    const Tensor *t; /* NULL and wrap 0: no colour */
    int axis, dh;
    long wrap;
    int heads;
} HeadMap;

static HeadMap headmap_of(const Tensor *t, int axis, int dh)
{
    HeadMap h = {t, axis, dh > 0 ? dh : 1, 0, 0};
    return h;
}

/* The index of t that storage offset off holds, into idx; 0 where t does not
 * reach.  Our views are permutations of a row-major buffer, so the index comes
 * back by dividing by the strides from the largest down (and is checked). */
static int offset_index(const Tensor *t, long off, int *idx)
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
static int hm_head(const HeadMap *h, long off)
{
    int idx[TENSOR_MAXDIM];
    if (!h) return -1;
    if (h->wrap > 0) return (int)(((off % h->wrap) / h->dh) % (h->heads > 0 ? h->heads : 1));
    if (!offset_index(h->t, off, idx)) return -1;
    return h->axis >= 0 ? idx[h->axis] : idx[h->t->ndim - 1] / h->dh;
}

static HeadMap step_headmap(const Mha *m, int tensor, int layout, int colour)
{
    HeadMap none = {NULL, 0, 1, 0, 0};
    if (!colour) return none;
    return headmap_of(m->t[tensor], layout == LV_TOK ? 2 : layout == LV_HEAD ? 1 : -1, m->d_head);
}

/* ---- the candy bar -------------------------------------------------------- */

typedef struct Bar {
    const Tensor *t; /* whose storage */
    int x, y, w, h;  /* area, header row included */
    long n;          /* floats in the storage */
    int wrap, cw, offw, rows, rows_shown, values;
    int dec; /* decimals, the same for every cell shown */
    int r0;  /* first row shown (scrolled to keep the lit cell visible) */
    /* Tags (bar_tag): each run of d_head cells says which element it holds,
     * "h0 the", instead of offsets; the row's first offset sits in a margin
     * left of x.  tagt (B, S, H, dh) is read through: NULL = no tags. */
    const Tensor *tagt;
    int margin;
    int tagfmt; /* 0 "h0 the", 1 "h0 t3", 2 "0,3": the first that fits every run */
    /* Rows per storage row (1: "off value" on one line; 2: offset above
     * value; 3: and the cell's head below, "h1"), chosen on tall frames. */
    int pitch;
    /* A click on a cell selects the element of this tensor stored there (a
     * logical hit) instead of the storage offset of the inspected tensor:
     * step 8's source bar, whose storage is not the inspected one's. */
    const Tensor *hit_t;
    int tokens; /* (B, S, D) with no heads: a tall cell names its token instead */
} Bar;

/* The tensor that owns t's storage as a plain row-major array (offset 0,
 * contiguous, every float): its last dim is a "row" (a token for (B, S, D)). */
static int storage_row(const Mha *m, const Tensor *t)
{
    for (int i = 0; m && i < MT_COUNT; i++) {
        const Tensor *o = m->t[i];
        if (o && o->st == t->st && o->offset == 0 && tensor_numel(o) == o->st->n &&
            tensor_is_contiguous(o))
            return o->shape[o->ndim - 1];
    }
    return t->shape[t->ndim - 1];
}

/* Picks the wrap: whole rows (`base` floats, a token) per line when they fit,
 * as few lines as the height allows, cells as wide as the width allows. */
static void bar_plan_p(Bar *b, const Tensor *t, int base, int x, int y, int w, int h, int pitch)
{
    long cand[64];
    int nc = 0, maxcells, minw, avail = (h - 1) / pitch;
    memset(b, 0, sizeof *b);
    b->pitch = pitch;
    b->t = t;
    b->x = x, b->y = y, b->w = w, b->h = h;
    b->n = (long)t->st->n;
    b->offw = digits(b->n - 1);
    minw = b->offw + 1;
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
        int cap = (b->offw > 5 ? b->offw : 5) + 4;
        if (b->cw > cap) b->cw = cap;
        b->values = b->cw - 1 >= 5;
        return;
    }
    if (b->cw > b->offw + 9) b->cw = b->offw + 9;
    b->values = b->cw - 1 >= b->offw + 1 + 4;
}

static void bar_plan(Bar *b, const Tensor *t, int base, int x, int y, int w, int h)
{
    bar_plan_p(b, t, base, x, y, w, h, 1);
}

/* The tag of head h, token s in format fmt (Bar.tagfmt). */
static void tag_text(char *buf, size_t n, int fmt, int h, int s)
{
    if (fmt == 0)
        snprintf(buf, n, "h%d %s", h, mha_token_word(s));
    else if (fmt == 1)
        snprintf(buf, n, "h%d t%d", h, s);
    else
        snprintf(buf, n, "%d,%d", h, s);
}

/* Without room for values, step 8's bars say which element each cell holds
 * instead (bar_tag): t is (B, S, H, dh) and runs of dh cells must not straddle
 * a row.  Re-plans b narrower by a margin for the row offsets; leaves b as it
 * was when tags would not help. */
static void bar_plan_tags(Bar *b, const Tensor *t, int base)
{
    Bar n;
    int margin = b->offw + 1;
    if (t->ndim != 4 || b->pitch > 1) return;
    char tag[48];
    bar_plan(&n, t, base, b->x + margin, b->y, b->w - margin, b->h);
    if (n.wrap == 0 || n.wrap % t->shape[3] != 0 || n.rows_shown < b->rows_shown) return;
    for (n.tagfmt = 0; n.tagfmt < 3; n.tagfmt++) {
        int ok = 1; /* the widest head number with every token */
        for (int s = 0; s < t->shape[1] && ok; s++) {
            tag_text(tag, sizeof tag, n.tagfmt, t->shape[2] - 1, s);
            ok = (int)strlen(tag) <= t->shape[3] * n.cw - 1;
        }
        if (ok) break;
    }
    if (n.tagfmt == 3) return;
    n.tagt = t;
    n.margin = margin;
    *b = n;
}

/* Scrolls so storage offset lit (if any) is on a shown row, then picks the
 * decimals every shown value fits in. */
static void bar_scroll(Bar *b, long lit)
{
    long first, last;
    if (b->wrap == 0) return;
    if (lit >= 0 && lit < b->n && lit / b->wrap >= b->rows_shown)
        b->r0 = (int)(lit / b->wrap) - b->rows_shown + 1;
    first = (long)b->r0 * b->wrap;
    last = first + (long)b->rows_shown * b->wrap;
    b->dec = 2;
    for (long o = first; b->values && o < b->n && o < last; o++) {
        int d = dec_fit(b->t->st->data[o], b->cw - 1 - (b->pitch > 1 ? 0 : b->offw + 1));
        if (d < b->dec) b->dec = d;
    }
}

static int bar_rows_used(const Bar *b)
{
    if (b->wrap == 0) return b->h > 0 ? 1 : 0;
    return 1 + b->rows_shown * b->pitch;
}

/* Position of storage offset o; 0 if hidden. */
static int bar_pos(const Bar *b, long o, int *px, int *py)
{
    if (b->wrap == 0 || o < 0 || o >= b->n || o / b->wrap < b->r0 ||
        o / b->wrap >= b->r0 + b->rows_shown)
        return 0;
    *px = b->x + (int)(o % b->wrap) * b->cw;
    *py = b->y + 1 + ((int)(o / b->wrap) - b->r0) * b->pitch;
    return 1;
}

/* One storage cell: offset (and value when wide enough) in cw-1 columns. */
static void bar_cell(Ctx *x, const Bar *b, long o, int px, int py, Style st, int empty, int head)
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
            fmt_num_dec(num, sizeof num, b->t->st->data[o], inner, b->dec);
            canvas_text(x->c, px + inner - (int)strlen(num), py + 1, num, st);
        }
        {
            /* the rows under it: the head (when coloured) or the token, then
             * the logical index */
            int line = 2, idx[TENSOR_MAXDIM], held = offset_index(b->t, o, idx);
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
        fmt_num_dec(num, sizeof num, b->t->st->data[o], vw, b->dec);
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
    if (!offset_index(b->tagt, o, idx)) {
        canvas_fill(x->c, px, py, b->cw - 1, 1, ' ', st);
        return;
    }
    if (idx[3] != 0 && o % b->wrap != 0) return; /* inside a run: its start drew it */
    while (idx[3] + cells < dh && (o + cells) / b->wrap == o / b->wrap &&
           (filled < 0 || o + cells < filled))
        cells++;
    tw = cells * b->cw - 1;
    canvas_fill(x->c, px, py, tw, 1, ' ', st);
    tag_text(tag, sizeof tag, b->tagfmt, idx[2], idx[1]);
    if (lit >= o && lit < o + cells) {
        int before = (int)(lit - o), after = cells - before - 1;
        if ((int)strlen(tag) <= before * b->cw - 1)
            tw = before * b->cw - 1;
        else
            at = (before + 1) * b->cw, tw = after * b->cw - 1;
    }
    if ((int)strlen(tag) <= tw) canvas_text(x->c, px + at, py, tag, st);
}

/* Draws the bar under its title.  hm: head of each offset (NULL: uncoloured);
 * lit: offset to light (-1 none); sweep in [0,1): only offsets below sweep*n
 * are coloured yet; filled >= 0: offsets from `filled` on are still empty. */
static void bar_draw(Ctx *x, const Bar *b, const char *title, const HeadMap *hm, long lit,
                     double sweep, long filled)
{
    char full[300];
    long first = (long)b->r0 * b->wrap, end = first + (long)b->rows_shown * b->wrap;
    if (end > b->n) end = b->n;
    if (b->wrap && b->rows_shown < b->rows) {
        snprintf(full, sizeof full, "%s; showing offsets %ld..%ld", title, first, end - 1);
        title = full;
    }
    text_fit(x->c, b->x - b->margin, b->y, b->w + b->margin, title, ST_BOLD);
    if (b->wrap == 0) return;
    for (long o = first; o < end; o++) {
        int px, py, head, empty = filled >= 0 && o >= filled;
        Style st = ST_NORMAL;
        if (!bar_pos(b, o, &px, &py)) continue;
        head = hm_head(hm, o);
        if (head >= 0 && (sweep < 0 || o < (long)(sweep * (double)b->n))) st = ST_HEAD(head);
        if (b->tagt && o % b->wrap == 0)
            fitf(x->c, b->x - b->margin, py, b->margin - 1, ST_DIM, "%*ld", b->offw, o);
        if (b->tagt && !empty)
            bar_tag(x, b, o, px, py, st, filled, lit);
        else
            bar_cell(x, b, o, px, py, o == lit ? ST_LIT : st, empty, st == ST_NORMAL ? -1 : head);
        for (int k = 0; k < b->pitch; k++) {
            int idx[TENSOR_MAXDIM];
            if (!b->hit_t)
                hit_test(x, px, py + k, b->cw - 1, 2, NULL, o);
            else if (offset_index(b->hit_t, o, idx))
                hit_test(x, px, py + k, b->cw - 1, 1, idx, o);
        }
    }
    if (b->tagt && lit >= first && lit < end && !(filled >= 0 && lit >= filled)) {
        int px, py; /* over the tags: the lit cell, with its offset */
        if (bar_pos(b, lit, &px, &py)) bar_cell(x, b, lit, px, py, ST_LIT, 0, -1);
    }
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
    snprintf(title, sizeof title, "storage S%d: %ld floats, %ld bytes", t->st->id, b.n,
             b.n * (long)sizeof(float));
    bar_draw(&ctx, &b, title, &hm, lit, -1, -1);
    return bar_rows_used(&b);
}

/* ---- the logical view ----------------------------------------------------- */

typedef struct Grid {
    const Tensor *t;
    int layout, b, stacked;
    int groups, R, C;
    int x, y, w, h;
    int labelw, vw, gap, head_rows;
    int rows_shown, vcols_shown, hidden_rows, hidden_cols;
    int src_labels; /* label rows by the token their storage row came from (the bug view) */
    int dec;        /* decimals, the same for every value shown */
    int d_model, seq;
    int r0, c0; /* first visual row and column shown (scrolled to the cursor) */
    /* Stacked: each head's block shows tokens t0..t0+tok_rows-1 (all R unless
     * every head would not fit; then `windowed`, the same tokens for each). */
    int tok_rows, t0, windowed;
    int pitch; /* rows per visual row: 1, or 2 with each value's storage offset under it */
    int nohit; /* a picture to compare with, not the inspected tensor: clicks pass through */
    /* Stacked, short of rows: head blocks `bcols` to a row of blocks, each w
     * wide (labels and all), BLOCK_GAP apart, every head and token shown. */
    int bcols, fullw;
} Grid;

#define BLOCK_GAP 2

/* Rows of head blocks in a grid of bcols blocks to a row. */
static int grid_block_rows(const Grid *g)
{
    return (g->groups + g->bcols - 1) / g->bcols;
}

/* Where visual row vr (shown, so r0 <= vr) sits: columns right of g->x and
 * rows below the grid's header. */
static void grid_vxy(const Grid *g, int vr, int *dx, int *dy)
{
    if (g->bcols > 1) {
        int gi = vr / g->tok_rows;
        *dx = (gi % g->bcols) * (g->w + BLOCK_GAP);
        *dy = ((gi / g->bcols) * g->tok_rows + vr % g->tok_rows) * g->pitch;
    } else {
        *dx = 0;
        *dy = (vr - g->r0) * g->pitch;
    }
}

/* The head block and row of visual row vr (stacked), or (0, vr). */
static void grid_vrow(const Grid *g, int vr, int *gi, int *r)
{
    if (g->stacked)
        *gi = vr / g->tok_rows, *r = g->t0 + vr % g->tok_rows;
    else
        *gi = 0, *r = vr;
}

/* Rows the grid wants with `pitch` rows per visual row. */
static int grid_need_p(const Tensor *t, int layout, int dh, int stacked, int pitch)
{
    int groups, R;
    if (layout == LV_FLAT) {
        groups = dh > 0 ? t->shape[2] / dh : 1;
        R = t->shape[1];
        return 1 + (groups > 1) + R * pitch;
    }
    groups = layout == LV_TOK ? t->shape[2] : t->shape[1];
    R = layout == LV_TOK ? t->shape[1] : t->shape[2];
    if (layout == LV_HEAD && stacked) return 1 + groups * R * pitch;
    return 1 + (groups > 1) + R * pitch;
}

static int grid_need(const Tensor *t, int layout, int dh, int stacked)
{
    return grid_need_p(t, layout, dh, stacked, 1);
}

/* Column of visual column vc, relative to the grid, given the scroll. */
static int grid_xrel(const Grid *g, int vc)
{
    return g->labelw + (vc - g->c0) * g->vw +
           (g->stacked ? 0 : (vc / g->C - g->c0 / g->C) * g->gap);
}

static int grid_count_cols(const Grid *g, int VC)
{
    int n = 0;
    while (g->c0 + n < VC && grid_xrel(g, g->c0 + n) + g->vw <= g->w)
        n++;
    return n;
}

static void grid_idx(const Grid *g, int gi, int r, int c, int *idx);

/* dh > 0 splits an LV_FLAT tensor's columns into head groups. */
static void grid_plan_p(Grid *g, const Tensor *t, int layout, int dh, int b, int x, int y, int w,
                        int h, int stacked, int pitch)
{
    int VC, VR, ngaps, avail;
    memset(g, 0, sizeof *g);
    g->pitch = pitch;
    g->t = t;
    g->layout = layout;
    g->b = b;
    g->x = x, g->y = y, g->w = w, g->h = h;
    if (layout == LV_FLAT) {
        g->groups = dh > 0 && t->shape[2] % dh == 0 ? t->shape[2] / dh : 1;
        g->R = t->shape[1];
        g->C = t->shape[2] / g->groups;
    } else if (layout == LV_TOK) {
        g->R = t->shape[1], g->groups = t->shape[2], g->C = t->shape[3];
    } else {
        g->groups = t->shape[1], g->R = t->shape[2], g->C = t->shape[3];
    }
    g->stacked = layout == LV_HEAD && stacked;
    g->labelw = word_w(g->R) + 1 + (g->stacked ? 2 + digits(g->groups - 1) : 0);
    g->head_rows = 1 + (!g->stacked && g->groups > 1);
    g->gap = (!g->stacked && g->groups > 1) ? 2 : 0;
    VC = g->stacked ? g->C : g->groups * g->C;
    ngaps = g->stacked ? 0 : g->groups - 1;
    g->vw = VC > 0 ? (w - g->labelw - ngaps * g->gap) / VC : 0;
    if (g->vw > (pitch > 1 ? 10 : 8)) g->vw = pitch > 1 ? 10 : 8;
    if (g->vw < 2) g->vw = 6; /* too many columns: show some, with values, and say how many hide */
    g->vcols_shown = grid_count_cols(g, VC);
    g->hidden_cols = VC - g->vcols_shown;
    g->tok_rows = g->R;
    g->bcols = 1;
    g->fullw = w;
    VR = g->stacked ? g->groups * g->R : g->R;
    if (g->head_rows == 2 && VR * pitch + 2 > h)
        g->head_rows = 1; /* one row short: every token rather than the head names */
    avail = (h - g->head_rows) / pitch;
    for (int bc = 2; g->stacked && VR > avail && bc <= g->groups; bc++) {
        /* head blocks side by side: the fewest columns of blocks that show
         * every head's every token, with values and every column */
        int bw = (w - (bc - 1) * BLOCK_GAP) / bc;
        int vw = (bw - g->labelw) / VC;
        if (vw > (pitch > 1 ? 10 : 8)) vw = pitch > 1 ? 10 : 8;
        if (vw < 5) break; /* narrower still with more columns */
        if ((g->groups + bc - 1) / bc * g->R > avail) continue;
        g->bcols = bc, g->w = bw, g->vw = vw;
        g->vcols_shown = VC, g->hidden_cols = 0;
        g->rows_shown = VR, g->hidden_rows = 0;
        return;
    }
    if (g->stacked && VR > avail && (avail - 1) / g->groups >= 1) {
        /* every head, each with the same window of tokens, and a note */
        g->tok_rows = (avail - 1) / g->groups;
        g->windowed = 1;
        VR = g->groups * g->tok_rows;
    }
    if (avail < 1) {
        g->rows_shown = 0;
    } else if (VR <= avail) {
        g->rows_shown = VR;
    } else {
        g->rows_shown = avail - 1;
    }
    g->hidden_rows = g->windowed ? g->groups * (g->R - g->tok_rows) : VR - g->rows_shown;
}

/* Scrolls so the cursor (an index into t, or NULL) is shown, then picks the
 * decimals every shown value fits in. */
static void grid_scroll(Grid *g, const int *cur)
{
    int VC = g->stacked ? g->C : g->groups * g->C;
    if (cur) {
        int vr, vc;
        if (g->layout == LV_FLAT)
            vr = cur[1], vc = cur[2];
        else if (g->layout == LV_TOK)
            vr = cur[1], vc = cur[2] * g->C + cur[3];
        else if (g->stacked) {
            if (cur[2] < g->t0) g->t0 = cur[2];
            if (cur[2] >= g->t0 + g->tok_rows) g->t0 = cur[2] - g->tok_rows + 1;
            vr = cur[1] * g->tok_rows + cur[2] - g->t0, vc = cur[3];
        } else
            vr = cur[2], vc = cur[1] * g->C + cur[3];
        if (g->rows_shown > 0 && vr >= g->rows_shown) g->r0 = vr - g->rows_shown + 1;
        while (g->vcols_shown > 0 && vc >= g->c0 + g->vcols_shown && g->c0 < VC) {
            g->c0 = vc - g->vcols_shown + 1 > g->c0 + 1 ? vc - g->vcols_shown + 1 : g->c0 + 1;
            g->vcols_shown = grid_count_cols(g, VC);
        }
    }
    g->dec = 2;
    for (int vr = g->r0; g->vw >= 5 && vr < g->r0 + g->rows_shown; vr++)
        for (int vc = g->c0; vc < g->c0 + g->vcols_shown; vc++) {
            int gi = vc / g->C, idx[4], r, c = g->stacked ? vc : vc % g->C;
            int d;
            if (g->stacked)
                grid_vrow(g, vr, &gi, &r);
            else
                r = vr;
            grid_idx(g, gi, r, c, idx);
            d = dec_fit(tensor_get(g->t, idx), g->vw - 1);
            if (d < g->dec) g->dec = d;
        }
}

static int grid_pos(const Grid *g, int gi, int r, int c, int *px, int *py)
{
    int vr = g->stacked ? gi * g->tok_rows + r - g->t0 : r;
    int vc = g->stacked ? c : gi * g->C + c;
    if (g->stacked && (r < g->t0 || r >= g->t0 + g->tok_rows)) return 0;
    int dx, dy;
    if (vr < g->r0 || vr >= g->r0 + g->rows_shown || vc < g->c0 || vc >= g->c0 + g->vcols_shown)
        return 0;
    grid_vxy(g, vr, &dx, &dy);
    *px = g->x + dx + grid_xrel(g, vc);
    *py = g->y + g->head_rows + dy;
    return 1;
}

static void grid_idx(const Grid *g, int gi, int r, int c, int *idx)
{
    memset(idx, 0, 4 * sizeof *idx);
    idx[0] = g->b;
    if (g->layout == LV_FLAT)
        idx[1] = r, idx[2] = gi * g->C + c;
    else if (g->layout == LV_TOK)
        idx[1] = r, idx[2] = gi, idx[3] = c;
    else
        idx[1] = gi, idx[2] = r, idx[3] = c;
}

static void grid_value(const Grid *g, char *buf, size_t n, const int *idx)
{
    if (g->vw >= 5) {
        fmt_num_dec(buf, n, tensor_get(g->t, idx), g->vw - 1, g->dec);
    } else {
        int k = 0;
        for (; k < g->vw - 1 && k + 3 < (int)n; k += 3)
            memcpy(buf + k, "\xe2\x96\x88", 3); /* a block per column */
        buf[k] = '\0';
    }
}

static Style cell_style(const Grid *g, const HeadMap *hm, const int *idx)
{
    int head = hm_head(hm, (long)tensor_offset_of(g->t, idx));
    return head >= 0 ? ST_HEAD(head) : ST_NORMAL;
}

/* Row label: the token word, or for the bug view the token whose storage row
 * this row was cut from. */
static const char *row_word(const Grid *g, int gi, int r)
{
    if (g->src_labels && g->d_model > 0) {
        int idx[4];
        grid_idx(g, gi, r, 0, idx);
        return mha_token_word((int)((tensor_offset_of(g->t, idx) / (size_t)g->d_model) %
                                    (size_t)(g->seq > 0 ? g->seq : 1)));
    }
    return mha_token_word(r);
}

static void grid_labels(Ctx *x, const Grid *g, const char *title)
{
    char buf[300], more[48] = "";
    if (g->hidden_cols) snprintf(more, sizeof more, " +%d cols hidden", g->hidden_cols);
    snprintf(buf, sizeof buf, "logical view: %s%s", title, more);
    if (canvas_text_width(buf) > g->fullw) snprintf(buf, sizeof buf, "%s%s", title, more);
    text_fit(x->c, g->x, g->y, g->fullw, buf, ST_BOLD);
    if (g->head_rows > 1) {
        int end = g->c0 + g->vcols_shown;
        for (int gi = g->c0 / g->C; gi < g->groups; gi++) {
            int vc = gi * g->C > g->c0 ? gi * g->C : g->c0;
            int last = (gi + 1) * g->C < end ? (gi + 1) * g->C : end;
            int bw = (last - vc) * g->vw - 1;
            if (vc >= end) break;
            fitf(x->c, g->x + grid_xrel(g, vc), g->y + 1, bw, ST_HEAD(gi),
                 bw >= 6 ? "head %d" : "h%d", gi);
        }
    }
    for (int vr = g->r0; vr < g->r0 + g->rows_shown; vr++) {
        int gi, r, dx, dy, py, lx;
        grid_vrow(g, vr, &gi, &r);
        grid_vxy(g, vr, &dx, &dy);
        py = g->y + g->head_rows + dy, lx = g->x + dx;
        if (g->stacked) {
            if (r == g->t0 || vr == g->r0)
                fitf(x->c, lx, py, g->labelw - 1, ST_HEAD(gi), "h%d", gi);
            text_fit(x->c, lx + 2 + digits(g->groups - 1), py, g->labelw - 3, row_word(g, gi, r),
                     ST_DIM);
        } else {
            text_fit(x->c, lx, py, g->labelw - 1, row_word(g, gi, r), ST_DIM);
        }
    }
    if (g->windowed && g->h > g->head_rows) {
        char toks[32];
        if (g->tok_rows == 1)
            snprintf(toks, sizeof toks, "token %d", g->t0);
        else
            snprintf(toks, sizeof toks, "tokens %d-%d", g->t0, g->t0 + g->tok_rows - 1);
        fitf(x->c, g->x, g->y + g->head_rows + g->rows_shown * g->pitch, g->w, ST_DIM,
             "each head shows %s of %d (%d rows hidden)", toks, g->R, g->hidden_rows);
    } else if (g->hidden_rows > 0 && g->h > g->head_rows)
        fitf(x->c, g->x, g->y + g->head_rows + g->rows_shown * g->pitch, g->w, ST_DIM,
             "... %d more rows hidden", g->hidden_rows);
}

/* One logical cell at (px, py), vw - 1 wide and pitch rows tall: the value,
 * and on a tall cell the storage offset it is read from ("@23") under it. */
static void grid_cell(Ctx *x, const Grid *g, int px, int py, int vw, const int *idx, Style st)
{
    char buf[32];
    grid_value(g, buf, sizeof buf, idx);
    canvas_fill(x->c, px, py, vw - 1, g->pitch, ' ', st);
    canvas_text(x->c, px + vw - 1 - canvas_text_width(buf), py, buf, st);
    if (g->pitch > 1) {
        snprintf(buf, sizeof buf, "@%zu", tensor_offset_of(g->t, idx));
        if ((int)strlen(buf) <= vw - 1)
            canvas_text(x->c, px + vw - 1 - (int)strlen(buf), py + 1, buf, st);
    }
}

/* Draws the grid; cur (or NULL) is the inspect cursor. */
static void grid_draw(Ctx *x, const Grid *g, const char *title, const HeadMap *hm, const int *cur)
{
    grid_labels(x, g, title);
    /* only what is visible: a big tensor costs what the screen shows */
    for (int vr = g->r0; vr < g->r0 + g->rows_shown; vr++)
        for (int vc = g->c0; vc < g->c0 + g->vcols_shown; vc++) {
            int gi = vc / g->C, r = vr, c = g->stacked ? vc : vc % g->C;
            int idx[4], px, py;
            Style st;
            if (g->stacked) grid_vrow(g, vr, &gi, &r);
            if (!grid_pos(g, gi, r, c, &px, &py)) continue;
            grid_idx(g, gi, r, c, idx);
            st = cell_style(g, hm, idx);
            if (cur && !memcmp(cur, idx, (size_t)g->t->ndim * sizeof *idx)) st = ST_CURSOR;
            grid_cell(x, g, px, py, g->vw, idx, st);
            for (int k = 0; k < g->pitch && !g->nohit; k++)
                hit_test(x, px, py + k, g->vw - 1, 1, idx, (long)tensor_offset_of(g->t, idx));
        }
}

/* Step 3's animation: each value moves from where the tokens-first grid `a`
 * draws it to where the heads-first grid `b` does; same (head, token, d). */
static void grid_draw_regroup(Ctx *x, const Grid *a, const Grid *b, const char *title_a,
                              const char *title_b, const HeadMap *hm, double t)
{
    double e = t * t * (3 - 2 * t); /* ease in and out */
    grid_labels(x, t < 0.5 ? a : b, t < 0.5 ? title_a : title_b);
    for (int vr = 0; vr < b->rows_shown; vr++)
        for (int vc = 0; vc < b->vcols_shown; vc++) {
            int gi = vc / b->C, r = vr, c = b->stacked ? vc : vc % b->C;
            int idx[4], ax, ay, bx, by;
            Style st;
            if (b->stacked) grid_vrow(b, vr, &gi, &r);
            if (!grid_pos(a, gi, r, c, &ax, &ay) || !grid_pos(b, gi, r, c, &bx, &by)) continue;
            grid_idx(b, gi, r, c, idx);
            st = cell_style(b, hm, idx);
            {
                int px = round_int(ax + (bx - ax) * e), py = round_int(ay + (by - ay) * e);
                int vw = b->vw < a->vw ? b->vw : a->vw;
                grid_cell(x, b, px, py, vw, idx, st);
            }
        }
}

/* ---- heatmaps ------------------------------------------------------------- */

static int heat_level(double v)
{
    return v < 0.05 ? 0 : v < 0.2 ? 1 : v < 0.4 ? 2 : v < 0.7 ? 3 : 4;
}

static const uint32_t heat_glyph[5] = {' ', 0x2591, 0x2592, 0x2593, 0x2588};

typedef struct Heat {
    int x, y, w, h;
    int H, S, b; /* heads in data, tokens, batch shown */
    int hw, labelw, blockw, per_row, rows_shown, heads_shown;
    int cols;       /* key columns shown (all S unless S is wider than the screen) */
    int s0, k0, h0; /* first row, column and head shown (scrolled to the cursor) */
    int pitch;      /* rows per query row: tall cells on tall frames, value inside */
    /* Tight (many heads): the token words once, left of the first block of a
     * row (lead columns), no sum column, blocks a column apart. */
    int lead, sumw, gap;
} Heat;

#define SUM_W 5 /* " 1.00" */

static int heat_blockw(int S, int hw, int labelw)
{
    return labelw + S * hw + SUM_W;
}

/* Rows of the plan: every token row of as many rows of blocks as fit h. */
static void heat_fit_rows(Heat *p)
{
    int brows = (p->H + p->per_row - 1) / p->per_row;
    int fit_brows = p->h / (1 + p->S * p->pitch);
    if (fit_brows < 1) {
        fit_brows = 1;
        p->rows_shown = (p->h - 2) / p->pitch > 0 ? (p->h - 2) / p->pitch : 0;
    } else {
        p->rows_shown = p->S;
    }
    if (fit_brows > brows) fit_brows = brows;
    p->heads_shown = fit_brows * p->per_row;
    if (p->heads_shown > p->H) p->heads_shown = p->H;
}

/* Plans blocks of H heatmaps (S x S) in w x h: cells as wide as fit (values
 * at 6), and with pitch > 1 up to 10 wide and pitch rows tall. */
static void heat_plan_p(Heat *p, int H, int S, int b, int x, int y, int w, int h, int pitch)
{
    memset(p, 0, sizeof *p);
    p->x = x, p->y = y, p->w = w, p->h = h;
    p->H = H, p->S = S, p->b = b;
    p->pitch = pitch;
    p->labelw = word_w(S) + 1;
    p->hw = 0;
    for (int hw = pitch > 1 ? 10 : 6; hw >= 1 && !p->hw; hw--)
        if (H * heat_blockw(S, hw, p->labelw) + (H - 1) * 2 <= w)
            p->hw = hw; /* every head side by side */
    if (!p->hw)         /* in rows of blocks, or one block clipped to the width */
        p->hw = heat_blockw(S, 2, p->labelw) <= w ? 2 : 1;
    p->cols = S;
    if (heat_blockw(S, p->hw, p->labelw) > w)
        p->cols = (w - p->labelw - SUM_W) / p->hw > 1 ? (w - p->labelw - SUM_W) / p->hw : 1;
    p->blockw = heat_blockw(p->cols, p->hw, p->labelw);
    p->sumw = SUM_W, p->gap = 2;
    p->per_row = (w + 2) / (p->blockw + 2);
    if (p->per_row < 1) p->per_row = 1;
    heat_fit_rows(p);
    if (p->heads_shown < H && p->rows_shown == S) {
        /* more heads, smaller: the widest cells with which a tight plan
         * shows more of them (at 1 column, shade only) */
        for (int hw = 6; hw >= 1; hw--) {
            Heat q = *p;
            q.hw = hw, q.cols = S;
            q.lead = p->labelw, q.sumw = 0, q.gap = 1;
            q.blockw = S * hw;
            q.per_row = (w - q.lead + q.gap) / (q.blockw + q.gap);
            if (q.per_row < 1) continue;
            heat_fit_rows(&q);
            if (q.heads_shown > p->heads_shown && (q.heads_shown == H || hw == 1)) {
                *p = q;
                break;
            }
        }
    }
}

static void heat_plan(Heat *p, int H, int S, int b, int x, int y, int w, int h)
{
    heat_plan_p(p, H, S, b, x, y, w, h, 1);
}

static int heat_rows_used(const Heat *p)
{
    int brows = (p->heads_shown + p->per_row - 1) / p->per_row;
    int used = brows * (1 + p->rows_shown * p->pitch);
    if (p->rows_shown < p->S || p->heads_shown < p->H || p->cols < p->S) used++;
    return used;
}

/* Where a heatmap's weights come from: a (B, Hd, S, S) tensor of weights.
 * Rows are read one at a time, so a big run costs only what is drawn. */
typedef struct HeatSrc {
    const Tensor *t;
    int causal;
} HeatSrc;

/* Row s of head h, batch b, into row[S]. */
static void heat_row(const HeatSrc *src, int b, int h, int s, float *row)
{
    int S = src->t->shape[3];
    for (int k = 0; k < S; k++) {
        int idx[4] = {b, h, s, k};
        row[k] = tensor_get(src->t, idx);
    }
}

/* One heatmap block in slot `slot` of the plan: head `head` of src.
 * title NULL: "head h" in the head's colour. */
static void heat_block(Ctx *x, const Heat *p, int slot, const HeatSrc *src, int head,
                       const char *title, const int *cur, int hit_kind)
{
    int bx = p->x + p->lead + (slot % p->per_row) * (p->blockw + p->gap);
    int by = p->y + (slot / p->per_row) * (1 + p->rows_shown * p->pitch);
    int vl = (p->pitch - 1) / 2; /* the line of a tall cell with the value */
    int labelw = p->lead ? 0 : p->labelw, tw = p->blockw - p->sumw;
    float *a = malloc((size_t)p->S * sizeof *a);
    if (!a) return;
    if (title) {
        /* "one big head", or as much of it as reads whole: "big head", "big" */
        const char *t2 = strstr(title, "big head");
        if (canvas_text_width(title) > tw && t2) title = canvas_text_width(t2) <= tw ? t2 : "big";
        text_fit(x->c, bx, by, tw, title, ST_BOLD);
    } else {
        fitf(x->c, bx, by, tw, ST_HEAD(head), tw >= 6 + digits(head) ? "head %d" : "h%d", head);
    }
    if (p->sumw) text_fit(x->c, bx + p->blockw - 4, by, 4, "sum", ST_DIM);
    for (int s = p->s0; s < p->s0 + p->rows_shown; s++) {
        double sum = 0;
        char buf[16];
        int py = by + 1 + (s - p->s0) * p->pitch;
        heat_row(src, p->b, head, s, a);
        if (!p->lead)
            text_fit(x->c, bx, py + vl, p->labelw - 1, mha_token_word(s), ST_DIM);
        else if (slot % p->per_row == 0) /* tight: the words once, left of the row of blocks */
            text_fit(x->c, bx - p->lead, py + vl, p->lead - 1, mha_token_word(s), ST_DIM);
        for (int k = 0; k < p->S; k++) {
            double v = a[k];
            int px = bx + labelw + (k - p->k0) * p->hw;
            int masked = src->causal && k > s;
            int idx[4] = {p->b, head, s, k};
            int cw = p->hw - (p->hw > 1); /* a gap column when there is room */
            Style st = masked ? ST_DIM : ST_HEAT(heat_level(v));
            sum += v;
            if (k < p->k0 || k >= p->k0 + p->cols) continue; /* off screen: still summed */
            if (cur && cur[1] == head && cur[2] == s && cur[3] == k) st = ST_CURSOR;
            if (p->pitch > 1) {
                /* a tall block of shade with the weight inside it */
                int len;
                canvas_fill(x->c, px, py, cw, p->pitch, masked ? ' ' : heat_glyph[heat_level(v)],
                            st);
                if (cw < 6 && !masked) goto hit; /* too narrow for " 0.25 ": shade only */
                if (masked)
                    snprintf(buf, sizeof buf, "\xc3\x97");
                else
                    fmt_num(buf, sizeof buf, v, cw - 2);
                len = canvas_text_width(buf);
                canvas_put(x->c, px + (cw - len) / 2 - 1, py + vl, ' ', st);
                canvas_text(x->c, px + (cw - len) / 2, py + vl, buf, st);
                canvas_put(x->c, px + (cw - len) / 2 + len, py + vl, ' ', st);
            } else if (masked) {
                canvas_put(x->c, px + cw - 1, py, 0x00D7, st); /* ×: weight 0 by the mask */
            } else if (p->hw >= 6) {
                canvas_put(x->c, px, py, heat_glyph[heat_level(v)], st);
                fmt_num(buf, sizeof buf, v, p->hw - 2);
                canvas_text(x->c, px + p->hw - 1 - (int)strlen(buf), py, buf, st);
            } else {
                canvas_fill(x->c, px, py, cw, 1, heat_glyph[heat_level(v)], st);
            }
        hit:
            for (int ln = 0; hit_kind && ln < p->pitch; ln++)
                hit_test(x, px, py + ln, cw, hit_kind, idx, -1); /* what is drawn */
        }
        if (!p->sumw) continue;
        fmt_num(buf, sizeof buf, sum, 4);
        text_fit(x->c, bx + p->blockw - 4, py + vl, 4, buf, ST_GOOD);
    }
    free(a);
}

/* Scrolls rows, columns and heads so the cursor (b, h, s, k) is shown;
 * `slots` blocks are for per-head maps. */
static void heat_scroll(Heat *p, const int *cur, int slots)
{
    if (!cur) return;
    if (p->rows_shown > 0 && cur[2] >= p->rows_shown) p->s0 = cur[2] - p->rows_shown + 1;
    if (p->cols > 0 && cur[3] >= p->cols) p->k0 = cur[3] - p->cols + 1;
    if (slots > 0 && cur[1] >= slots) p->h0 = cur[1] - slots + 1;
}

/* The "hidden" note under a plan, for `heads` blocks wanted. */
static void heat_more(Ctx *x, const Heat *p, int heads)
{
    int brows = (p->heads_shown + p->per_row - 1) / p->per_row;
    char buf[96];
    size_t k = 0;
    if (p->rows_shown < p->S)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %d rows", p->S - p->rows_shown);
    if (p->cols < p->S && k < sizeof buf)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %d cols", p->S - p->cols);
    if (p->heads_shown < heads && k < sizeof buf)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %d heads", heads - p->heads_shown);
    if (k)
        fitf(x->c, p->x, p->y + brows * (1 + p->rows_shown * p->pitch), p->w, ST_DIM, "hidden:%s",
             buf + 1);
}

/* Per-head heatmaps of src (B, H, S, S) in a plan of H slots (+1 for
 * `single`, the one big head, drawn in the last visible slot). */
static void heat_set(Ctx *x, const Heat *p, const HeatSrc *src, int H, const HeatSrc *single,
                     const int *cur, int hit_kind)
{
    int slots = p->heads_shown - (single ? 1 : 0);
    for (int i = 0; i < slots && p->h0 + i < H; i++)
        heat_block(x, p, i, src, p->h0 + i, NULL, cur, hit_kind);
    if (single) heat_block(x, p, p->heads_shown - 1, single, 0, "one big head", NULL, 0);
    heat_more(x, p, H + (single ? 1 : 0));
}

/* ---- top of the frame ----------------------------------------------------- */

static void draw_program(Ctx *x, int line, const char *span)
{
    for (int i = 0; i < PROGRAM_LINES; i++) {
        int py = x->y0 + 1 + x->tg + i, px = x->x0;
        const char *l = program[i];
        canvas_printf(x->c, px, py, ST_DIM, "%c%2d  ", i == line ? '>' : ' ', i + 1);
        canvas_text(x->c, px + 5, py, l, ST_CODE);
        if (i == line) {
            const char *at = span ? strstr(l, span) : l;
            int len = span ? (int)strlen(span) : (int)strlen(l);
            if (at) canvas_style(x->c, px + 5 + (int)(at - l), py, len, 1, ST_CODE_HI);
            canvas_put(x->c, px, py, 0x25B6, ST_CODE_HI); /* ▶ */
        }
    }
}

/* Shape, strides, contiguity and storage, before -> after.  The arrow is
 * "->", two ASCII cells, so it reads the same in the ASCII backend. */
static void draw_panel(Ctx *x, const Tensor *before, const Tensor *after, int swap_hi)
{
    int px = x->x0 + PROGRAM_W + 2, py = x->y0 + 1 + x->tg;
    int pw = x->x0 + x->w - RIGHT_MARGIN - px;
    char a[128], b[128];
    if (pw < 10) return;
    tensor_fmt_dims(b, sizeof b, after->ndim, after->shape);
    if (before) {
        tensor_fmt_dims(a, sizeof a, before->ndim, before->shape);
        fitf(x->c, px, py, pw, ST_NORMAL, "shape   %s", a);
        fitf(x->c, px, py + 1, pw, ST_BOLD, "   ->   %s", b);
    } else {
        fitf(x->c, px, py, pw, ST_BOLD, "shape   %s", b);
    }
    tensor_fmt_strides(b, sizeof b, after);
    if (before) {
        tensor_fmt_strides(a, sizeof a, before);
        fitf(x->c, px, py + 2, pw, ST_NORMAL, "strides %s", a);
        fitf(x->c, px, py + 3, pw, swap_hi ? ST_WARN : ST_BOLD, "   ->   %s", b);
        fitf(x->c, px, py + 4, pw, ST_NORMAL, "contiguous %s -> %s",
             yes_no(tensor_is_contiguous(before)), yes_no(tensor_is_contiguous(after)));
        if (tensor_same_storage(before, after))
            fitf(x->c, px, py + 5, pw, ST_GOOD, "storage S%d -> S%d (view)", before->st->id,
                 after->st->id);
        else
            fitf(x->c, px, py + 5, pw, ST_WARN, "storage S%d -> S%d (new)", before->st->id,
                 after->st->id);
    } else {
        fitf(x->c, px, py + 1, pw, ST_BOLD, "strides %s", b);
        fitf(x->c, px, py + 2, pw, ST_NORMAL, "contiguous %s", yes_no(tensor_is_contiguous(after)));
        fitf(x->c, px, py + 3, pw, ST_NORMAL, "storage S%d (own buffer)", after->st->id);
    }
}

/* Bytes copied this step, as the counter shows it now (climbing in step 8's
 * animation, the engine's number otherwise). */
static size_t shown_bytes(const Ctx *x)
{
    size_t bytes = x->m->steps[x->s.step].bytes_copied;
    if (x->s.view == MV_STEP && x->s.step == MS_CONTIG && x->s.anim >= 0 && x->s.anim < 1)
        return (size_t)(x->s.anim * (double)bytes);
    return bytes;
}

/* Bytes copied by the pass up to and including this step, from the engine's
 * per-step counts (this step's as shown_bytes climbs it). */
static size_t pass_bytes(const Ctx *x)
{
    size_t total = shown_bytes(x);
    for (int i = 0; i < x->s.step; i++)
        total += x->m->steps[i].bytes_copied;
    return total;
}

static void draw_title(Ctx *x, const char *left)
{
    char right[96];
    int rw;
    snprintf(right, sizeof right, "this step: %zu B copied, pass so far: %zu B", shown_bytes(x),
             pass_bytes(x));
    if (canvas_text_width(left) + 3 + canvas_text_width(right) > x->w - RIGHT_MARGIN)
        /* a big run beside a long step name: the short form */
        snprintf(right, sizeof right, "this step: %zu B copied, pass: %zu B", shown_bytes(x),
                 pass_bytes(x));
    if (canvas_text_width(left) + 3 + canvas_text_width(right) > x->w - RIGHT_MARGIN)
        snprintf(right, sizeof right, "this step: %zu B copied", shown_bytes(x));
    rw = canvas_text_width(right);
    canvas_fill(x->c, x->x0, x->y0, x->w, 1, ' ', ST_TITLE);
    text_fit(x->c, x->x0, x->y0, x->w - rw - 3, left, ST_TITLE);
    canvas_text(x->c, x->x0 + x->w - RIGHT_MARGIN - rw, x->y0, right,
                shown_bytes(x) ? ST_WARN : ST_GOOD);
}

/* ---- narrative ------------------------------------------------------------ */

static void narrative(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const MhaConfig *c = &m->cfg;
    Tensor *const *t = m->t;
    const MhaStep *st = &m->steps[x->s.step];
    char a[96], b[96];
    size_t floats = tensor_numel(t[step_view[x->s.step].tensor]);
    if (x->s.view == MV_WRONG_VIEW) {
        snprintf(buf, n,
                 "No error, wrong numbers: Q.view(B, H, S, dh) cuts storage S%d into blocks of "
                 "%d floats, so head 0 gets whole rows of '%s' and '%s', not a %d-wide slice of "
                 "every token. Fix: view(B, S, H, dh), then transpose(1, 2).",
                 t[MT_Q]->st->id, c->seq * m->d_head, mha_token_word(0),
                 mha_token_word(c->seq > 1 ? 1 : 0), m->d_head);
        return;
    }
    if (x->s.view == MV_NO_SCALE) {
        snprintf(buf, n,
                 "Without the division by sqrt(%d) = %.2f, scores grow with d_head and softmax "
                 "saturates: each row puts nearly all its weight on one token, and its gradient "
                 "vanishes. Same scores, same heads; only the scale differs.",
                 m->d_head, (1.0 / m->scale));
        return;
    }
    switch (x->s.step) {
    case MS_INPUT:
        snprintf(
            buf, n,
            "x holds %d token%s of %d numbers each, batch %d: one storage S%d of %zu floats "
            "(%zu bytes), row after row. Values are multiples of 0.1 drawn from seed %lu, so a "
            "dot product can be checked by hand.",
            c->seq, c->seq == 1 ? "" : "s", c->d_model, c->batch, t[MT_X]->st->id, floats,
            floats * sizeof(float), (unsigned long)c->seed);
        break;
    case MS_PROJECT:
        snprintf(buf, n,
                 "Three matmuls write three new buffers: Q in S%d, K in S%d, V in S%d. Q is still "
                 "%d numbers per token; nothing knows about heads yet. K and V are %d wide "
                 "(kv_heads %d x d_head %d).",
                 t[MT_Q]->st->id, t[MT_K]->st->id, t[MT_V]->st->id, c->d_model, t[MT_K]->shape[2],
                 c->kv_heads, m->d_head);
        break;
    case MS_SPLIT:
        snprintf(buf, n,
                 "view() only relabels the same storage S%d: %zu bytes copied. Each token's %d "
                 "numbers now read as %d heads of %d; head h is columns h*%d to h*%d+%d of the "
                 "row. No cell moves: the same floats are only read in groups of %d.",
                 t[MT_Q_SPLIT]->st->id, st->bytes_copied, c->d_model, c->heads, m->d_head,
                 m->d_head, m->d_head, m->d_head - 1, m->d_head);
        break;
    case MS_HEADS:
        tensor_fmt_strides(a, sizeof a, t[MT_Q_SPLIT]);
        tensor_fmt_strides(b, sizeof b, t[MT_Q_HEADS]);
        snprintf(buf, n,
                 "transpose(1, 2) swaps two strides, %s becomes %s: still storage S%d, %zu bytes "
                 "copied. Reading one head's tokens now jumps %ld floats per token, so the tensor "
                 "is no longer contiguous.",
                 a, b, t[MT_Q_HEADS]->st->id, st->bytes_copied, t[MT_Q_HEADS]->strides[2]);
        break;
    case MS_SCORES:
        if (m->groups > 1) {
            snprintf(buf, n,
                     "Each query head scores against its kv head (kv_heads %d): query heads 0..%d "
                     "share kv head 0 through expand (stride %ld on the group axis, "
                     "%zu bytes copied). %d heads x %d x %d scores, divided by sqrt(%d) = %.2f.",
                     c->kv_heads, m->groups - 1, t[MT_K_EXPAND]->strides[2], st->bytes_copied,
                     c->heads, c->seq, c->seq, m->d_head, (1.0 / m->scale));
            break;
        }
        snprintf(buf, n,
                 "Each head compares every query token with every key token: %d heads x %d x %d "
                 "scores in a new buffer S%d. Dividing by sqrt(%d) = %.2f keeps them small enough "
                 "for softmax to stay soft.",
                 c->heads, c->seq, c->seq, t[MT_SCORES]->st->id, m->d_head,
                 (1.0 / m->scale));
        break;
    case MS_SOFTMAX:
        snprintf(
            buf, n,
            "softmax runs on each row of each head on its own, so every row sums to 1 and each "
            "of the %d heads can attend to different tokens.%s",
            c->heads,
            c->causal
                ? " Causal mask: a token never sees later tokens (\xc3\x97 = masked, weight 0)."
            : x->s.show_single ? " Beside them, one big head over all the dims (m hides it)."
                               : " Press m to compare with one big head.");
        break;
    case MS_WEIGHTED:
        snprintf(buf, n,
                 "Each head mixes the value vectors with its own weights: attn @ V gives head_out, "
                 "a new buffer S%d laid out head after head, %d rows of %d per head.%s",
                 t[MT_HEAD_OUT]->st->id, c->seq, m->d_head,
                 m->groups > 1 ? " V is shared like K: each group of query heads reads one kv head."
                               : "");
        break;
    case MS_BACK:
        tensor_fmt_strides(a, sizeof a, t[MT_MERGED]);
        if (tensor_is_contiguous(t[MT_MERGED]))
            snprintf(buf, n,
                     "transpose(1, 2) puts tokens first again, strides %s, still storage S%d with "
                     "%zu bytes copied. With %d head%s and %d token%s nothing actually changed "
                     "places: the view is still contiguous.",
                     a, t[MT_MERGED]->st->id, st->bytes_copied, c->heads, c->heads == 1 ? "" : "s",
                     c->seq, c->seq == 1 ? "" : "s");
        else
            snprintf(buf, n,
                     "transpose(1, 2) puts tokens first again, strides %s, still storage S%d with "
                     "%zu bytes copied. But one token's heads now lie %ld floats apart: not "
                     "contiguous, so view(B, S, D) would fail.",
                     a, t[MT_MERGED]->st->id, st->bytes_copied, t[MT_MERGED]->strides[2]);
        break;
    case MS_CONTIG:
        if (st->bytes_copied == 0)
            snprintf(buf, n,
                     ".contiguous() found the tensor already contiguous and returned it as it is: "
                     "same storage S%d, 0 bytes copied. With more than one head and token it "
                     "would copy every float into a new buffer.",
                     t[MT_MERGED_CONTIG]->st->id);
        else
            snprintf(buf, n,
                     ".contiguous() is the one real copy of the pass: %zu floats (%zu bytes) move "
                     "into a new storage S%d, token by token, so each token's heads sit side by "
                     "side. Total copied in the whole pass: %zu bytes.",
                     floats, st->bytes_copied, t[MT_MERGED_CONTIG]->st->id, m->bytes_copied_total);
        break;
    case MS_CONCAT:
        snprintf(buf, n,
                 "view(B, S, D) on the copy is free again: same storage S%d, %zu bytes copied. "
                 "Concatenating the heads is just reading each token's row as %d numbers.",
                 t[MT_CONCAT]->st->id, st->bytes_copied, c->d_model);
        break;
    default:
        tensor_fmt_dims(a, sizeof a, t[MT_W_O]->ndim, t[MT_W_O]->shape);
        snprintf(buf, n,
                 "W_O %s mixes the heads back together: y = out @ W_O, a new buffer S%d. In the "
                 "whole pass the engine copied %zu bytes%s.",
                 a, t[MT_OUT]->st->id, m->bytes_copied_total,
                 m->bytes_copied_total ? ", all of them in .contiguous()" : "");
        break;
    }
}

/* "Q_split[0, 2, 1, 3] = 0.86, offset = 0·32 + 2·8 + 1·4 + 3·1 = 23": the
 * value first, so a long line cut at the edge still shows it. */
static void inspect_line(const Tensor *t, const char *name, const int *cur, char *buf, size_t n)
{
    char val[32];
    size_t k = (size_t)snprintf(buf, n, "%s[", name);
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d", i ? ", " : "", cur[i]);
    fmt_num(val, sizeof val, tensor_get(t, cur), 16);
    if (k < n) k += (size_t)snprintf(buf + k, n - k, "] = %s, offset = ", val);
    if (t->offset && k < n) k += (size_t)snprintf(buf + k, n - k, "%zu + ", t->offset);
    for (int i = 0; i < t->ndim && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d\xc2\xb7%ld", i ? " + " : "", cur[i],
                              t->strides[i]);
    if (k < n) snprintf(buf + k, n - k, " = %zu", tensor_offset_of(t, cur));
}

/* ---- bodies --------------------------------------------------------------- */

static int inspect_tensor(const SceneState *s)
{
    if (s->view == MV_WRONG_VIEW) return MT_Q_WRONG;
    if (s->view == MV_NO_SCALE) return MT_ATTN;
    return step_view[s->step].tensor;
}

/* ---- tall frames ---------------------------------------------------------- */

/* Pitches tried on a frame taller than the minimum, the tallest first: a
 * bar cell can be 4 rows (offset, value, head, and a row of its colour). */
#define PITCH_MAX 3
#define BAR_PITCH_MAX 4

/* `spare` rows as n gaps between sections, as even as they go; the inner
 * gaps get the remainder (n >= 1).  The last gap counts the blank row the
 * frame keeps above the narrative (for the inspect line) as one of its own. */
static void spread(const Ctx *x, int spare, int n, int *gap)
{
    int tail = x->s.narrative && x->h >= 30;
    spare += tail;
    for (int i = 0; i < n; i++)
        gap[i] = spare / n;
    for (int i = 0, r = spare % n; r > 0; i = (i + 1) % n)
        if (n < 3 || (i > 0 && i < n - 1) || r > n - 2) gap[i]++, r--;
    gap[n - 1] -= tail; /* >= 0: spare was at least n - 1 */
}

/* The step's sections, planned: the candy bar (and step 8's source bar),
 * then the logical grid at gy, need rows, its cells gpitch rows tall. */
typedef struct StepPlan {
    Bar src, bar;
    int gy, need, gpitch;
    int spare, ngaps; /* tall: the blank rows spread over ngaps gaps */
} StepPlan;

/* Plans body_step on a tall frame: the tallest cells (bar and grid pitches)
 * that show every row of the bars and the grid, the rows left spread evenly
 * between the sections.  Returns 0 when nothing taller than the compact
 * plan fits. */
static int step_plan_tall(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &step_view[x->s.step];
    const Tensor *t = m->t[sv->tensor], *from = m->t[MT_MERGED];
    int dh = sv->layout == LV_FLAT && sv->colour ? m->d_head : 0;
    int stacked = sv->layout == LV_HEAD, two_bars = x->s.step == MS_CONTIG;
    int n = two_bars ? 4 : 3, best = 0, bp = 0, gp = 0, bhb = 0, gap[4], y = by;
    if (x->h <= SCENE_MIN_H) return 0;
    for (int pb = BAR_PITCH_MAX; pb >= 1; pb--)
        for (int pg = PITCH_MAX; pg >= 1; pg--) {
            int need = grid_need_p(t, sv->layout, dh, stacked, pg), wrap = -1;
            Grid g;
            if (pb == 1 && pg == 1) continue;
            grid_plan_p(&g, t, sv->layout, dh, 0, bx, by, bw, need, stacked, pg);
            if (g.hidden_rows) continue;
            /* bar heights from all of it down: each new wrap is a candidate */
            for (int hb = bh; hb >= 2; hb--) {
                Bar b1, b2;
                int used = need;
                bar_plan_p(&b1, t, storage_row(m, t), bx, by, bw, hb, pb);
                if (!b1.wrap || b1.wrap == wrap || b1.n % b1.wrap) continue; /* whole rows */
                wrap = b1.wrap;
                if (!b1.values || b1.rows_shown < b1.rows) continue;
                used += bar_rows_used(&b1);
                if (two_bars) {
                    bar_plan_p(&b2, from, storage_row(m, from), bx, by, bw, hb, pb);
                    if (!b2.values || b2.rows_shown < b2.rows) continue;
                    used += bar_rows_used(&b2);
                }
                /* a blank row between sections, at least */
                /* the most rows; of equals, the taller grid (its offsets teach),
                 * except on step 8 where the bars (their heads) are the lesson */
                if (used + n - 1 <= bh && (used > best || (used == best && pg > gp && !two_bars)))
                    best = used, bp = pb, gp = pg, bhb = hb;
            }
        }
    if (!best) return 0;
    spread(x, bh - best, n, gap);
    p->spare = bh - best, p->ngaps = n;
    y += gap[0];
    if (two_bars) {
        bar_plan_p(&p->src, from, storage_row(m, from), bx, y, bw, bhb, bp);
        y += bar_rows_used(&p->src) + gap[1];
    }
    bar_plan_p(&p->bar, t, storage_row(m, t), bx, y, bw, bhb, bp);
    p->bar.h = bar_rows_used(&p->bar);
    y += p->bar.h + gap[n - 2];
    p->gy = y;
    p->gpitch = gp;
    p->need = grid_need_p(t, sv->layout, dh, stacked, gp);
    return 1;
}

/* Plans body_step on a frame with no rows to spare (80x24): the grid at the
 * bottom, the bar above it in the rows left. */
static void step_plan_compact(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &step_view[x->s.step];
    const Tensor *t = m->t[sv->tensor];
    int dh = sv->layout == LV_FLAT && sv->colour ? m->d_head : 0;
    int stacked = sv->layout == LV_HEAD;
    int need, candy_min = 3, two_bars = x->s.step == MS_CONTIG, candy_h, yy = by;

    p->gpitch = 1;
    if (two_bars) candy_min = 6;
    need = grid_need(t, sv->layout, dh, stacked);
    /* heads first stays heads first: short of room the candy bar gives a
     * row, then each head shows a window of its tokens (grid_plan) */
    if (stacked && need + candy_min > bh && need + 2 <= bh) candy_min = 2;
    if (need > bh - candy_min) need = bh - candy_min > 3 ? bh - candy_min : 3;
    if (stacked && need < grid_need(t, sv->layout, dh, 1)) {
        Grid g;
        grid_plan_p(&g, t, sv->layout, dh, 0, bx, by, bw, need, 1, 1);
        if (g.bcols > 1) /* head blocks side by side: title and blocks, the rest to the bar */
            need = 1 + grid_block_rows(&g) * g.R;
        else if ((need - 2) / t->shape[1] >= 1)
            need = 2 + (need - 2) / t->shape[1] * t->shape[1]; /* title, windows, note: the
                                                                   rows left go to the bar */
    }
    candy_h = bh - need - 1; /* a blank row between, when there is room */
    if (candy_h < candy_min) candy_h = bh - need;
    if (two_bars) {
        /* step 8: the non-contiguous source, then the new buffer filling up */
        const Tensor *from = m->t[MT_MERGED];
        bar_plan(&p->src, from, storage_row(m, from), bx, yy, bw, candy_h / 2);
        if (!p->src.values) bar_plan_tags(&p->src, from, storage_row(m, from));
        yy += bar_rows_used(&p->src);
        bar_plan(&p->bar, t, storage_row(m, t), bx, yy, bw, candy_h - (yy - by));
        if (p->src.tagt) bar_plan_tags(&p->bar, t, storage_row(m, t));
    } else {
        bar_plan(&p->bar, t, storage_row(m, t), bx, yy, bw, candy_h);
    }
    yy += bar_rows_used(&p->bar);
    p->gy = by + bh - need > yy ? yy + 1 : by + bh - need;
    p->need = need;
}

/* Candy bar over the logical grid, sharing h rows. */
static void body_step(Ctx *x, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &step_view[x->s.step];
    const Tensor *t = m->t[sv->tensor];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    HeadMap hm = step_headmap(m, sv->tensor, sv->layout, sv->colour);
    int dh = sv->layout == LV_FLAT && sv->colour ? m->d_head : 0;
    int stacked = sv->layout == LV_HEAD;
    int anim = x->s.anim >= 0 && x->s.anim < 1;
    long lit = cur ? (long)tensor_offset_of(t, cur) : -1;
    char title[160], d[64], st[64];
    StepPlan p;
    Grid g;

    if (!step_plan_tall(x, &p, bx, by, bw, bh)) step_plan_compact(x, &p, bx, by, bw, bh);
    if (x->s.step == MS_CONTIG) {
        /* step 8: the non-contiguous source, then the new buffer filling up */
        const Tensor *from = m->t[MT_MERGED];
        HeadMap hm_src = headmap_of(from, 2, m->d_head);
        long n = (long)t->st->n, filled = -1;
        double ph = anim ? x->s.anim * (double)n : -1;
        Bar *src = &p.src, *bar = &p.bar;
        src->hit_t = from; /* same shape as t: its index selects t's element */
        bar_scroll(src, cur ? (long)tensor_offset_of(from, cur) : -1);
        snprintf(title, sizeof title, "from: storage S%d%s, heads first%s", from->st->id,
                 src->tagt && src->tagfmt == 2 ? "" : " (head_out)",
                 src->tagt && src->tagfmt == 2 ? ", cells: head,token" : "");
        bar_draw(x, src, title, &hm_src, cur ? (long)tensor_offset_of(from, cur) : -1, -1, -1);
        bar_scroll(bar, lit);
        if (anim) filled = (long)ph;
        snprintf(title, sizeof title, "to: new storage S%d, %ld floats, %ld bytes", t->st->id, n,
                 n * (long)sizeof(float));
        bar_draw(x, bar, title, &hm, lit, -1, filled);
        if (anim && filled < n) {
            /* the cell in flight: from its place in the source to its new offset */
            int idx[TENSOR_MAXDIM] = {0}, ax, ay, zx, zy;
            long k = filled;
            for (int i = t->ndim - 1; i >= 0; i--) {
                idx[i] = (int)(k % t->shape[i]);
                k /= t->shape[i];
            }
            if (bar_pos(src, (long)tensor_offset_of(from, idx), &ax, &ay) &&
                bar_pos(bar, filled, &zx, &zy)) {
                double f = ph - (double)filled;
                int px = round_int(ax + (zx - ax) * f), py = round_int(ay + (zy - ay) * f);
                bar_cell(x, bar, filled, px, py, ST_CURSOR, 0, hm_head(&hm, filled));
            }
        }
    } else {
        const char *what = m->steps[x->s.step].is_view ? "the same bytes" : "a new buffer";
        if (x->s.step == MS_INPUT) what = "the input";
        p.bar.tokens = !sv->colour;
        bar_scroll(&p.bar, lit);
        snprintf(title, sizeof title, "memory S%d: %ld floats, %ld bytes, %s", t->st->id, p.bar.n,
                 p.bar.n * (long)sizeof(float), what);
        bar_draw(x, &p.bar, title, &hm, lit, x->s.step == MS_SPLIT && anim ? x->s.anim : -1, -1);
    }
    {
        int gy = p.gy, need = p.need;
        tensor_fmt_dims(d, sizeof d, t->ndim, t->shape);
        tensor_fmt_strides(st, sizeof st, t);
        snprintf(title, sizeof title, "%s %s, strides %s%s", mha_tensor_names[sv->tensor], d, st,
                 m->cfg.batch > 1 ? ", batch shown:" : "");
        if (m->cfg.batch > 1) {
            size_t k = strlen(title);
            snprintf(title + k, sizeof title - k, " %d of %d", (cur ? cur[0] : 0) + 1,
                     m->cfg.batch);
        }
        grid_plan_p(&g, t, sv->layout, dh, cur ? cur[0] : 0, bx, gy, bw, need, stacked, p.gpitch);
        grid_scroll(&g, cur);
        if (x->s.step == MS_HEADS && anim) {
            Grid a;
            char ta[160];
            const Tensor *ts = m->t[MT_Q_SPLIT];
            grid_plan_p(&a, ts, LV_TOK, 0, 0, bx, gy, bw, need, 0, p.gpitch);
            grid_scroll(&a, NULL);
            tensor_fmt_dims(d, sizeof d, ts->ndim, ts->shape);
            snprintf(ta, sizeof ta, "regrouping by head...");
            grid_draw_regroup(x, &a, &g, ta, title, &hm, x->s.anim);
        } else {
            grid_draw(x, &g, title, &hm, cur);
        }
    }
}

/* Mean of each row's largest weight, over the first rows of batch b (at most
 * 4096 rows, so a huge run stays quick). */
static double mean_row_max(const HeatSrc *src, int b)
{
    int H = src->t->shape[1], S = src->t->shape[2];
    long rows = (long)H * S, n = rows < 4096 ? rows : 4096;
    float *row = malloc((size_t)S * sizeof *row);
    double total = 0;
    if (!row) return 0;
    for (long r = 0; r < n; r++) {
        double mx = 0;
        heat_row(src, b, (int)(r / S), (int)(r % S), row);
        for (int k = 0; k < S; k++)
            if (row[k] > mx) mx = row[k];
        total += mx;
    }
    free(row);
    return n ? total / (double)n : 0;
}

/* attn's storage as a candy bar, coloured by head, the cursor's cell lit. */
static void softmax_bar(Ctx *x, Bar *bar)
{
    const Tensor *t = x->m->t[MT_ATTN];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    HeadMap hm = headmap_of(t, 1, 0);
    char title[200];
    bar_scroll(bar, cur ? (long)tensor_offset_of(t, cur) : -1);
    snprintf(title, sizeof title, "memory S%d: %ld floats, %ld bytes, a new buffer", t->st->id,
             bar->n, bar->n * (long)sizeof(float));
    bar_draw(x, bar, title, &hm, cur ? (long)tensor_offset_of(t, cur) : -1, -1, -1);
}

/* The softmax step on a tall frame: the candy bar (not on MV_NO_SCALE) at
 * bar.y, the heatmaps' title at hy, hh rows of heatmaps with cells ph rows
 * tall under it; the rows left spread between.  bar.wrap 0: no bar. */
typedef struct SoftPlan {
    Bar bar;
    int hy, hh, ph;
    int stack; /* MV_NO_SCALE: "without" under "with", each the full width */
    int spare, ngaps;
} SoftPlan;

#define HEAT_PITCH_MAX 5 /* a 10 x 5 cell is about square on a terminal */

static int softmax_plan_tall(const Ctx *x, SoftPlan *sp, int bx, int by, int bw, int bh,
                             int noscale)
{
    const Mha *m = x->m;
    const Tensor *t = m->t[MT_ATTN];
    int H = t->shape[1], S = t->shape[2], single = x->s.show_single && !noscale;
    int want = noscale ? H : H + single, note_rows = single ? 2 : noscale ? 1 : 0;
    int n = noscale ? 2 : 3, best = 0, bp = 0, hp = 0, bhb = 0, hh = 0, gap[3], stack = 0;
    if (x->h <= SCENE_MIN_H) return 0;
    /* pass 0: the whole storage in the bar; pass 1 (nothing fitted): part of it */
    for (int pass = 0; pass < 2 && !best; pass++) {
        for (int ph = HEAT_PITCH_MAX; ph >= 1; ph--) {
            Heat p;
            int heat_h, wrap = -1;
            if (noscale) {
                if (pass) break;
                /* side by side, or stacked when that gives cells wide enough for values */
                for (int st = 1; st >= 0; st--) {
                    int score;
                    heat_plan_p(&p, want, S, 0, 0, 0, st ? bw : (bw - 2) / 2, bh, ph);
                    if (p.heads_shown < want || p.rows_shown < S || p.cols < S) continue;
                    if (ph > 2 && ph > p.hw / 2) continue;
                    heat_h = (1 + heat_rows_used(&p)) * (st ? 2 : 1) + note_rows;
                    score = heat_h + (p.hw >= (ph > 1 ? 7 : 6) ? 1000 : 0);
                    if (ph > 1 && heat_h + n - 1 <= bh && score > best)
                        best = score, hp = ph, hh = heat_rows_used(&p), stack = st, bhb = heat_h;
                }
                continue;
            }
            heat_plan_p(&p, want, S, 0, 0, 0, bw, bh, ph);
            if (p.heads_shown < want || p.rows_shown < S || p.cols < S) continue;
            if (ph > 2 && ph > p.hw / 2) continue; /* cells about square, no taller */
            heat_h = 1 + heat_rows_used(&p) + note_rows;
            for (int pb = BAR_PITCH_MAX; pb >= 1 && !pass; pb--)
                for (int hb = bh; hb >= 2; hb--) {
                    Bar b1;
                    int used;
                    bar_plan_p(&b1, t, storage_row(m, t), bx, by, bw, hb, pb);
                    if (!b1.wrap || b1.wrap == wrap || b1.n % b1.wrap) continue; /* whole rows */
                    wrap = b1.wrap;
                    if (!b1.values || b1.rows_shown < b1.rows || (pb == 1 && ph == 1)) continue;
                    used = heat_h + bar_rows_used(&b1);
                    if (used + n - 1 <= bh && used > best)
                        best = used, hp = ph, bp = pb, bhb = hb, hh = heat_rows_used(&p);
                }
            if (pass && !best && ph > 1 && bh - heat_h - (n - 1) >= 2) {
                /* storage too big to show whole: a few rows of it, as on 80x24 */
                Bar b1;
                int hb = bh - heat_h - (n - 1) < 7 ? bh - heat_h - (n - 1) : 7;
                bar_plan_p(&b1, t, storage_row(m, t), bx, by, bw, hb, 1);
                if (b1.wrap) best = heat_h + hb, hp = ph, bp = 1, bhb = hb, hh = heat_rows_used(&p);
            }
        }
    }
    if (!best) return 0;
    memset(sp, 0, sizeof *sp);
    if (noscale) best = bhb; /* the rows, without the score's bonus */
    sp->stack = stack;
    sp->spare = bh - best, sp->ngaps = n;
    spread(x, bh - best, n, gap);
    sp->hy = by + gap[0];
    if (!noscale) {
        bar_plan_p(&sp->bar, t, storage_row(m, t), bx, by + gap[0], bw, bhb, bp);
        sp->hy += bar_rows_used(&sp->bar) + gap[1];
    }
    sp->hh = hh;
    sp->ph = hp;
    return 1;
}

/* Step 5 (and MV_NO_SCALE): heatmaps, rows summing to 1, under the candy bar
 * of attn's storage when there is room. */
static void body_softmax(Ctx *x, int bx, int by, int bw, int bh, int noscale)
{
    const Mha *m = x->m;
    const Tensor *t = m->t[MT_ATTN];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    int H = t->shape[1], S = t->shape[2], b = cur ? cur[0] : 0;
    int single = x->s.show_single && !noscale;
    HeatSrc attn = {t, m->cfg.causal};
    HeatSrc big = {m->t[MT_ATTN_SINGLE], m->cfg.causal};
    HeatSrc raw = {m->t[MT_ATTN_NOSCALE], m->cfg.causal};
    Heat p;
    SoftPlan sp;
    int hy = by, heat_h, note_rows = single ? 2 : noscale ? 1 : 0, hh, ph = 1;
    char title[200], d[64];
    memset(&sp, 0, sizeof sp);
    if (softmax_plan_tall(x, &sp, bx, by, bw, bh, noscale)) {
        hy = sp.hy, hh = sp.hh, ph = sp.ph;
        if (sp.bar.wrap) softmax_bar(x, &sp.bar);
    } else {
        /* how many rows the heatmaps want; the candy bar gets what is left */
        heat_plan(&p, noscale ? H : H + single, S, b, 0, 0, noscale ? (bw - 2) / 2 : bw, bh);
        heat_h = 1 + heat_rows_used(&p) + note_rows;
        /* inspecting: the storage row of the cursor is always shown, heatmaps give way */
        if (!noscale && (bh - heat_h - 1 >= 3 || cur)) {
            Bar bar;
            int avail = bh - heat_h - 1;
            if (avail < 2) avail = 2;
            bar_plan(&bar, t, storage_row(m, t), bx, by, bw, avail > 6 ? 6 : avail);
            softmax_bar(x, &bar);
            hy += bar_rows_used(&bar) + (avail >= 3);
        }
        hh = by + bh - hy - 1 - note_rows;
    }
    tensor_fmt_dims(d, sizeof d, t->ndim, t->shape);
    if (noscale && sp.stack) {
        /* tall frame: "without" under "with", both the full width */
        Heat q;
        int qy;
        text_fit(x->c, bx, hy, bw, "with / sqrt(dh): attn", ST_BOLD);
        heat_plan_p(&p, H, S, b, bx, hy + 1, bw, hh, ph);
        heat_scroll(&p, cur, p.heads_shown);
        heat_set(x, &p, &attn, H, NULL, cur, 1);
        qy = hy + 1 + heat_rows_used(&p);
        text_fit(x->c, bx, qy, bw, "without / sqrt(dh)", ST_BAD);
        heat_plan_p(&q, H, S, b, bx, qy + 1, bw, hh, ph);
        q.s0 = p.s0, q.k0 = p.k0, q.h0 = p.h0; /* the same rows, one under the other */
        heat_set(x, &q, &raw, H, NULL, NULL, 0);
        fitf(x->c, bx, qy + 1 + heat_rows_used(&q), bw, ST_NORMAL,
             "largest weight in a row, on average: %.2f with the scale, %.2f without",
             mean_row_max(&attn, b), mean_row_max(&raw, b));
    } else if (noscale) {
        int half = (bw - 2) / 2;
        Heat q;
        text_fit(x->c, bx, hy, half, "with / sqrt(dh): attn", ST_BOLD);
        text_fit(x->c, bx + half + 2, hy, half, "without / sqrt(dh)", ST_BAD);
        heat_plan_p(&p, H, S, b, bx, hy + 1, half, hh, ph);
        heat_scroll(&p, cur, p.heads_shown);
        heat_set(x, &p, &attn, H, NULL, cur, 1);
        heat_plan_p(&q, H, S, b, bx + half + 2, hy + 1, half, hh, ph);
        q.s0 = p.s0, q.k0 = p.k0, q.h0 = p.h0; /* the same rows, side by side */
        heat_set(x, &q, &raw, H, NULL, NULL, 0);
        fitf(x->c, bx, hy + 1 + heat_rows_used(&p), bw, ST_NORMAL,
             "largest weight in a row, on average: %.2f with the scale, %.2f without",
             mean_row_max(&attn, b), mean_row_max(&raw, b));
    } else {
        snprintf(title, sizeof title, "attn %s: one heatmap per head, each row sums to 1%s", d,
                 m->cfg.causal ? ", \xc3\x97 = masked" : "");
        text_fit(x->c, bx, hy, bw, title, ST_BOLD);
        heat_plan_p(&p, H + single, S, b, bx, hy + 1, bw, hh, ph);
        if (single && p.heads_shown < 2) {
            /* no room for both in one plan: per-head maps left, the big head right */
            int half = (bw - 2) / 2;
            Heat q;
            heat_plan_p(&p, H, S, b, bx, hy + 1, half, hh, ph);
            heat_scroll(&p, cur, p.heads_shown);
            heat_set(x, &p, &attn, H, NULL, cur, 1);
            heat_plan_p(&q, 1, S, b, bx + half + 2, hy + 1, half, hh, ph);
            q.s0 = p.s0, q.k0 = p.k0;
            heat_block(x, &q, 0, &big, 0, "one big head", NULL, 0);
        } else {
            heat_scroll(&p, cur, p.heads_shown - single);
            heat_set(x, &p, &attn, H, single ? &big : NULL, cur, 1);
        }
        if (single) {
            char why[300];
            snprintf(why, sizeof why,
                     "Why they differ: the big head scores all %d dims in one softmax, so each "
                     "token gets one mix; %d heads of %d dims each pick their own.",
                     m->cfg.d_model, H, m->d_head);
            canvas_wrap(x->c, bx, hy + 1 + heat_rows_used(&p), bw, 2, why, ST_NORMAL);
        }
    }
}

/* MV_WRONG_VIEW on a tall frame: Q's storage as a candy bar, the two grids
 * (heads stacked) at *gy with cells *gp rows tall, the rows left spread.
 * Returns 0 when nothing taller than the compact plan fits. */
static int wrong_plan_tall(const Ctx *x, Bar *bar, int *gy, int *gp, int bx, int by, int bw, int bh,
                           int *spare)
{
    const Mha *m = x->m;
    const Tensor *q = m->t[MT_Q], *wrong = m->t[MT_Q_WRONG];
    int best = 0, bp = 0, gbest = 0, bhb = 0, gap[3], half = (bw - 2) / 2;
    if (x->h <= SCENE_MIN_H) return 0;
    for (int pb = BAR_PITCH_MAX; pb >= 1; pb--)
        for (int pg = PITCH_MAX; pg >= 1; pg--) {
            int need = grid_need_p(wrong, LV_HEAD, 0, 1, pg), wrap = -1;
            Grid g;
            if (pb == 1 && pg == 1) continue;
            grid_plan_p(&g, wrong, LV_HEAD, 0, 0, bx, by, half, need, 1, pg);
            if (g.hidden_rows) continue;
            for (int hb = bh; hb >= 2; hb--) {
                Bar b1;
                int used;
                bar_plan_p(&b1, q, storage_row(m, q), bx, by, bw, hb, pb);
                if (!b1.wrap || b1.wrap == wrap || b1.n % b1.wrap) continue; /* whole rows */
                wrap = b1.wrap;
                if (!b1.values || b1.rows_shown < b1.rows) continue;
                used = need + bar_rows_used(&b1);
                if (used + 2 <= bh && (used > best || (used == best && pg > gbest)))
                    best = used, bp = pb, gbest = pg, bhb = hb;
            }
        }
    if (!best) return 0;
    *gp = gbest;
    *spare = bh - best;
    spread(x, bh - best, 3, gap);
    bar_plan_p(bar, q, storage_row(m, q), bx, by + gap[0], bw, bhb, bp);
    *gy = by + gap[0] + bar_rows_used(bar) + gap[1];
    return 1;
}

/* The bug next to the fix: which token's numbers each head gets. */
static void body_wrong(Ctx *x, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const Tensor *q = m->t[MT_Q], *wrong = m->t[MT_Q_WRONG], *right = m->t[MT_Q_HEADS];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    HeadMap hm = headmap_of(m->t[MT_Q_SPLIT], 2, 0); /* each float's true head */
    int half = (bw - 2) / 2, need = grid_need(wrong, LV_HEAD, 0, 1);
    int candy_h, stacked = 1, gy, gp = 1, spare;
    Bar bar;
    Grid gw, gr;
    char title[160];
    if (wrong_plan_tall(x, &bar, &gy, &gp, bx, by, bw, bh, &spare)) {
        need = grid_need_p(wrong, LV_HEAD, 0, 1, gp);
    } else {
        if (need + 3 > bh) {
            stacked = 0;
            need = grid_need(wrong, LV_HEAD, 0, 0);
        }
        if (need > bh - 3) need = bh - 3;
        candy_h = bh - need - 1;
        if (candy_h < 3) candy_h = bh - need;
        bar_plan(&bar, q, storage_row(m, q), bx, by, bw, candy_h);
        gy = by + bh - need;
    }
    bar_scroll(&bar, cur ? (long)tensor_offset_of(wrong, cur) : -1);
    snprintf(title, sizeof title, "storage S%d of Q: the one buffer both views read", q->st->id);
    bar_draw(x, &bar, title, &hm, cur ? (long)tensor_offset_of(wrong, cur) : -1, -1, -1);
    grid_plan_p(&gw, wrong, LV_HEAD, 0, cur ? cur[0] : 0, bx, gy, half, need, stacked, gp);
    grid_scroll(&gw, cur);
    gw.src_labels = 1;
    gw.d_model = m->cfg.d_model;
    gw.seq = m->cfg.seq;
    grid_draw(x, &gw, "bug: Q_wrong = Q.view(B, H, S, dh)", &hm, cur);
    grid_plan_p(&gr, right, LV_HEAD, 0, cur ? cur[0] : 0, bx + half + 2, gy, half, need, stacked,
                gp);
    grid_scroll(&gr, cur); /* the same rows as the bug beside it */
    gr.src_labels = 1;
    gr.d_model = m->cfg.d_model;
    gr.seq = m->cfg.seq;
    gr.nohit = 1; /* the cursor indexes Q_wrong */
    grid_draw(x, &gr, "right: Q_heads (view, transpose)", &hm, NULL);
}

/* The rows a tall plan of the body leaves blank, and over how many gaps
 * (0: the compact plan, nothing to spare). */
static int body_spare(const Ctx *x, int bx, int by, int bw, int bh, int *ngaps)
{
    *ngaps = 1;
    if (x->s.view == MV_WRONG_VIEW) {
        Bar bar;
        int gy, gp, spare;
        *ngaps = 3;
        return wrong_plan_tall(x, &bar, &gy, &gp, bx, by, bw, bh, &spare) ? spare : 0;
    }
    if (x->s.view == MV_NO_SCALE || x->s.step == MS_SOFTMAX) {
        SoftPlan sp;
        if (!softmax_plan_tall(x, &sp, bx, by, bw, bh, x->s.view == MV_NO_SCALE)) return 0;
        *ngaps = sp.ngaps;
        return sp.spare;
    } else {
        StepPlan p;
        if (!step_plan_tall(x, &p, bx, by, bw, bh)) return 0;
        *ngaps = p.ngaps;
        return p.spare;
    }
}

static void draw_enlarge(Canvas *c, int x, int y, int w, int h)
{
    char buf[96];
    int n;
    snprintf(buf, sizeof buf, "enlarge to %dx%d (now %dx%d)", SCENE_MIN_W, SCENE_MIN_H, w, h);
    n = canvas_text_width(buf);
    if (n <= w)
        canvas_text(c, x + (w - n) / 2, y + h / 2, buf, ST_WARN);
    else
        canvas_wrap(c, x, y, w, h, buf, ST_WARN);
}

/* ---- the frame ------------------------------------------------------------ */

static void clamp_cursor(const Mha *m, SceneState *s)
{
    const Tensor *t = m->t[inspect_tensor(s)];
    for (int i = 0; i < 4; i++) {
        int lim = i < t->ndim ? t->shape[i] - 1 : 0;
        if (s->cur[i] > lim) s->cur[i] = lim;
        if (s->cur[i] < 0) s->cur[i] = 0;
    }
}

static void draw_all(Ctx *x)
{
    const Mha *m = x->m;
    const SceneState *s = &x->s;
    int step = s->step;
    const StepView *sv = &step_view[step];
    const MhaStep *ms = &m->steps[step];
    char buf[1024];
    int narr_rows = 0, status_rows = s->status ? 1 : 0;
    int bx = x->x0, by = x->y0 + TOP_ROWS, bw = x->w - RIGHT_MARGIN, bh;
    const Tensor *before = ms->n_inputs > 0 ? m->t[ms->inputs[0]] : NULL;
    const Tensor *after = m->t[ms->output];

    /* the rows the body gets; on a tall frame the top block takes its share
     * of the rows to spare: blank rows under the title and over the code
     * line, as many as between the body's sections */
    if (s->narrative) narr_rows = x->h >= 30 ? 4 : 3;
    if (s->inspect) narr_rows++; /* the offset arithmetic, above the narrative */
    if (s->narrative && x->h >= 30)
        /* a blank row above the narrative, where the offset arithmetic goes:
         * the body keeps its place when inspect turns on (a click does) */
        bh = x->h - TOP_ROWS - 5 - status_rows;
    else
        bh = x->h - TOP_ROWS - narr_rows - status_rows - (narr_rows && x->h >= 30 ? 1 : 0);
    if (x->h > SCENE_MIN_H && bh >= 3) {
        /* by the frame's height alone, so the program stays put from step to
         * step; none when that would cost the body its tall cells */
        int n, tg = x->h >= 50 ? 2 : x->h >= 36 ? 1 : 0;
        if (tg && !body_spare(x, bx, by + 2 * tg, bw, bh - 2 * tg, &n) &&
            body_spare(x, bx, by, bw, bh, &n))
            tg = 0;
        x->tg = tg;
        by += 2 * x->tg, bh -= 2 * x->tg;
    }

    /* title, program, panel, code line */
    if (s->view == MV_WRONG_VIEW) {
        draw_title(x, "failure mode: Q.view(B, H, S, dh) without the transpose");
        draw_program(x, 1, NULL);
        before = m->t[MT_Q];
        after = m->t[MT_Q_WRONG];
    } else if (s->view == MV_NO_SCALE) {
        draw_title(x, "failure mode: softmax without / sqrt(dh)");
        draw_program(x, 2, "/ sqrt(dh)");
    } else {
        snprintf(buf, sizeof buf, "step %d/%d  %s", step, MS_COUNT - 1, ms->name);
        draw_title(x, buf);
        draw_program(x, sv->line, sv->span);
    }
    draw_panel(x, before, after,
               s->view == MV_STEP && step == MS_HEADS && s->anim >= 0 && s->anim < 1);
    {
        int cy = x->y0 + TOP_ROWS - 1 + 2 * x->tg, used;
        const char *code =
            s->view == MV_WRONG_VIEW ? "Q_wrong = Q.view(B, H, S, dh)  # the bug" : ms->code;
        canvas_text(x->c, x->x0, cy, "\xe2\x96\xb6 ", ST_CODE_HI);
        used = 2 + text_fit(x->c, x->x0 + 2, cy, bw - 2, code, ST_CODE_HI);
        if (s->view == MV_STEP) {
            if (ms->is_view)
                snprintf(buf, sizeof buf, "a view: storage S%d kept, %zu bytes copied",
                         after->st->id, ms->bytes_copied);
            else if (ms->bytes_copied)
                snprintf(buf, sizeof buf, "a copy: %zu bytes into storage S%d", ms->bytes_copied,
                         after->st->id);
            else if (step == MS_INPUT)
                snprintf(buf, sizeof buf, "the input: storage S%d", after->st->id);
            else
                snprintf(buf, sizeof buf, "computed into a new storage S%d", after->st->id);
            if (used + 3 + canvas_text_width(buf) <= bw)
                canvas_text(x->c, x->x0 + used + 3, cy, buf, ms->is_view ? ST_GOOD : ST_NORMAL);
        }
    }

    /* bottom: narrative (the inspect line first) and status */
    if (narr_rows) {
        int ny = x->y0 + x->h - status_rows - narr_rows;
        if (s->inspect) {
            int ti = inspect_tensor(s);
            inspect_line(m->t[ti], mha_tensor_names[ti], s->cur, buf, sizeof buf);
            text_fit(x->c, bx, ny, bw, buf, ST_LIT);
            ny++;
        }
        if (s->narrative) {
            narrative(x, buf, sizeof buf);
            /* a paragraph no wider than NARRATIVE_MAX_W reads as text on a big screen */
            canvas_wrap(x->c, bx, ny, bw < NARRATIVE_MAX_W ? bw : NARRATIVE_MAX_W,
                        x->y0 + x->h - status_rows - ny, buf, ST_NORMAL);
        }
    }
    if (status_rows) {
        canvas_fill(x->c, x->x0, x->y0 + x->h - 1, x->w, 1, ' ', ST_STATUS);
        text_fit(x->c, x->x0, x->y0 + x->h - 1, bw, s->status, ST_STATUS);
    }

    if (bh < 3) return;
    if (s->view == MV_WRONG_VIEW)
        body_wrong(x, bx, by, bw, bh);
    else if (s->view == MV_NO_SCALE)
        body_softmax(x, bx, by, bw, bh, 1);
    else if (step == MS_SOFTMAX)
        body_softmax(x, bx, by, bw, bh, 0);
    else
        body_step(x, bx, by, bw, bh);
}

static void ctx_init(Ctx *x, Canvas *c, int px, int py, int w, int h, const Mha *m,
                     const SceneState *s)
{
    memset(x, 0, sizeof *x);
    x->c = c;
    x->m = m;
    x->s = *s;
    if (x->s.step < 0) x->s.step = 0;
    if (x->s.step >= MS_COUNT) x->s.step = MS_COUNT - 1;
    if ((int)x->s.view < 0 || x->s.view >= MV_COUNT) x->s.view = MV_STEP;
    x->x0 = px, x->y0 = py, x->w = w, x->h = h;
    x->hx = x->hy = -1;
    clamp_cursor(m, &x->s);
}

SceneState scene_state_default(void)
{
    SceneState s;
    memset(&s, 0, sizeof s);
    s.step = MS_INPUT;
    s.view = MV_STEP;
    s.anim = -1;
    s.narrative = 1;
    return s;
}

void scene_draw(Canvas *c, int x, int y, int w, int h, const Mha *m, const SceneState *s)
{
    Ctx ctx;
    if (!c || w < 1 || h < 1) return;
    canvas_fill(c, x, y, w, h, ' ', ST_NORMAL);
    if (w < SCENE_MIN_W || h < SCENE_MIN_H || !m || !s) {
        draw_enlarge(c, x, y, w, h);
        return;
    }
    ctx_init(&ctx, c, x, y, w, h, m, s);
    draw_all(&ctx);
}

int scene_step_animates(int step)
{
    return step == MS_SPLIT || step == MS_HEADS || step == MS_CONTIG;
}

int scene_inspect_tensor(const SceneState *s)
{
    return inspect_tensor(s);
}

/* Rows and columns the cursor walks, in logical terms (not screen ones, so it
 * moves the same way at every size): rows are (batch, token) or, heads first,
 * (batch, head, token); columns the rest. */
int scene_cursor_move(const Mha *m, SceneState *s, int dx, int dy)
{
    int ti, layout, old[4], R, C, vr, vc, rows, cols;
    const Tensor *t;
    if (!m || !s) return 0;
    memcpy(old, s->cur, sizeof old);
    if (s->step < 0 || s->step >= MS_COUNT) return 0;
    ti = inspect_tensor(s);
    t = m->t[ti];
    clamp_cursor(m, s);
    layout = s->view != MV_STEP ? LV_HEAD : step_view[s->step].layout;
    if (t->ndim == 3) {
        R = t->shape[1], C = t->shape[2];
        vr = s->cur[0] * R + s->cur[1];
        vc = s->cur[2];
        rows = t->shape[0] * R, cols = C;
    } else if (layout == LV_TOK) {
        R = t->shape[1], C = t->shape[2] * t->shape[3];
        vr = s->cur[0] * R + s->cur[1];
        vc = s->cur[2] * t->shape[3] + s->cur[3];
        rows = t->shape[0] * R, cols = C;
    } else {
        R = t->shape[1] * t->shape[2], C = t->shape[3];
        vr = s->cur[0] * R + s->cur[1] * t->shape[2] + s->cur[2];
        vc = s->cur[3];
        rows = t->shape[0] * R, cols = C;
    }
    vr += dy, vc += dx;
    if (vr < 0) vr = 0;
    if (vr >= rows) vr = rows - 1;
    if (vc < 0) vc = 0;
    if (vc >= cols) vc = cols - 1;
    if (t->ndim == 3) {
        s->cur[0] = vr / R, s->cur[1] = vr % R, s->cur[2] = vc;
    } else if (layout == LV_TOK) {
        s->cur[0] = vr / R, s->cur[1] = vr % R;
        s->cur[2] = vc / t->shape[3], s->cur[3] = vc % t->shape[3];
    } else {
        s->cur[0] = vr / R;
        s->cur[1] = (vr % R) / t->shape[2], s->cur[2] = vr % t->shape[2];
        s->cur[3] = vc;
    }
    return memcmp(old, s->cur, sizeof old) != 0;
}

int scene_click(const Mha *m, SceneState *s, int w, int h, int px, int py)
{
    Canvas *c;
    Ctx ctx;
    const Tensor *t;
    int hit = 0;
    if (!m || !s || w < SCENE_MIN_W || h < SCENE_MIN_H) return 0;
    c = canvas_new(w, h);
    if (!c) return 0;
    ctx_init(&ctx, c, 0, 0, w, h, m, s);
    ctx.hx = px, ctx.hy = py;
    draw_all(&ctx);
    canvas_free(c);
    t = m->t[inspect_tensor(&ctx.s)];
    if (ctx.hit == 1) {
        memcpy(s->cur, ctx.hidx, sizeof s->cur);
        hit = 1;
    } else if (ctx.hit == 2) {
        /* a storage cell: the first logical element stored there */
        int idx[TENSOR_MAXDIM] = {0};
        size_t total = tensor_numel(t);
        for (size_t k = 0; k < total && !hit; k++) {
            if ((long)tensor_offset_of(t, idx) == ctx.hoff) {
                for (int i = 0; i < 4; i++)
                    s->cur[i] = i < t->ndim ? idx[i] : 0;
                hit = 1;
                break;
            }
            for (int i = t->ndim - 1; i >= 0; i--) {
                if (++idx[i] < t->shape[i]) break;
                idx[i] = 0;
            }
        }
    }
    return hit;
}
