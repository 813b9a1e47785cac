/* grid.c - the logical view: a tensor as rows of tokens and columns of
 * heads (LV_FLAT, LV_TOK) or a block of token rows per head (LV_HEAD),
 * scrolled to the inspect cursor; step 3's regrouping animation.
 */
#include "draw/scenectx.h"

#include "base/textutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_GAP 2

/* Rows of head blocks in a grid of bcols blocks to a row. */
int grid_block_rows(const Grid *g)
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
        *dy = ((gi / g->bcols) * g->tok_rows + vr % g->tok_rows) * (g->pitch + g->lead);
    } else {
        *dx = 0;
        *dy = (vr - g->r0) * (g->pitch + g->lead);
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
int grid_need_p(const Tensor *t, int layout, int dh, int stacked, int pitch)
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

int grid_need(const Tensor *t, int layout, int dh, int stacked)
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
void grid_plan_p(Grid *g, const Tensor *t, int layout, int dh, int b, int x, int y, int w, int h,
                 int stacked, int pitch)
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
    g->labelw = sc_word_w(g->R) + 1 + (g->stacked ? 2 + sc_digits(g->groups - 1) : 0);
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

/* Wide frames: values as wide as the grid's width allows, at most maxvw
 * columns, when every column already shows in one block per row. */
void grid_widen(Grid *g, int maxvw)
{
    int VC = g->stacked ? g->C : g->groups * g->C, ngaps = g->stacked ? 0 : g->groups - 1, vw;
    if (VC < 1 || g->bcols > 1 || g->hidden_cols) return;
    vw = (g->w - g->labelw - ngaps * g->gap) / VC;
    if (vw > maxvw) vw = maxvw;
    if (vw > g->vw) g->vw = vw;
}

/* Columns the grid's cells take (labels, values, gaps; every block). */
int grid_used_w(const Grid *g)
{
    if (g->bcols > 1) return g->bcols * g->w + (g->bcols - 1) * BLOCK_GAP;
    if (g->vcols_shown < 1) return g->labelw;
    return grid_xrel(g, g->c0 + g->vcols_shown - 1) + g->vw;
}

int grid_scroll_by(Grid *g, int scroll)
{
    int last = g->rows_shown < 1 ? 0 : g->windowed ? g->R - g->tok_rows : g->hidden_rows;
    if (scroll <= 0 || last <= 0) return last > 0 ? last : 0;
    if (g->windowed)
        g->t0 = scroll < last ? scroll : last;
    else
        g->r0 = scroll < last ? scroll : last;
    grid_scroll(g, NULL); /* the decimals of the rows now shown */
    return last;
}

/* Scrolls so the cursor (an index into t, or NULL) is shown, then picks the
 * decimals every shown value fits in. */
void grid_scroll(Grid *g, const int *cur)
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
            d = sc_dec_fit(tensor_get(g->t, idx), g->vw - 1);
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
        sc_fmt_num_dec(buf, n, tensor_get(g->t, idx), g->vw - 1, g->dec);
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
    sc_text_fit(x->c, g->x, g->y, g->fullw, buf, ST_BOLD);
    if (g->head_rows > 1) {
        int end = g->c0 + g->vcols_shown;
        for (int gi = g->c0 / g->C; gi < g->groups; gi++) {
            int vc = gi * g->C > g->c0 ? gi * g->C : g->c0;
            int last = (gi + 1) * g->C < end ? (gi + 1) * g->C : end;
            int bw = (last - vc) * g->vw - 1;
            if (vc >= end) break;
            sc_fitf(x->c, g->x + grid_xrel(g, vc), g->y + 1, bw, ST_HEAD(gi),
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
                sc_fitf(x->c, lx, py, g->labelw - 1, ST_HEAD(gi), "h%d", gi);
            sc_text_fit(x->c, lx + 2 + sc_digits(g->groups - 1), py, g->labelw - 3,
                        row_word(g, gi, r), ST_DIM);
        } else {
            sc_text_fit(x->c, lx, py, g->labelw - 1, row_word(g, gi, r), ST_DIM);
        }
    }
    if (g->windowed && g->h > g->head_rows) {
        char toks[32];
        if (g->tok_rows == 1)
            snprintf(toks, sizeof toks, "token %d", g->t0);
        else
            snprintf(toks, sizeof toks, "tokens %d-%d", g->t0, g->t0 + g->tok_rows - 1);
        sc_fitf(x->c, g->x, g->y + g->head_rows + g->rows_shown * (g->pitch + g->lead), g->w,
                ST_DIM, "each head shows %s of %d (%d row%s hidden%s%s%s)", toks, g->R,
                g->hidden_rows, text_s(g->hidden_rows), x->s.scroll_key ? "; " : "",
                x->s.scroll_key ? x->s.scroll_key : "", x->s.scroll_key ? " scrolls" : "");
    } else if (g->hidden_rows > 0 && g->h > g->head_rows)
        sc_fitf(x->c, g->x, g->y + g->head_rows + g->rows_shown * (g->pitch + g->lead), g->w,
                ST_DIM, "... %d more row%s hidden%s%s%s", g->hidden_rows - g->r0,
                text_s(g->hidden_rows - g->r0), x->s.scroll_key ? " (" : "",
                x->s.scroll_key ? x->s.scroll_key : "", x->s.scroll_key ? " scrolls)" : "");
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
void grid_draw(Ctx *x, const Grid *g, const char *title, const HeadMap *hm, const int *cur)
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
                sc_hit_test(x, px, py + k, g->vw - 1, 1, idx, (long)tensor_offset_of(g->t, idx));
        }
}

/* Step 3's animation: each value moves from where the tokens-first grid `a`
 * draws it to where the heads-first grid `b` does; same (head, token, d).
 * The labels are b's all along (a is planned with b's label column and
 * header, so head 0's columns already sit by their labels), and a value is
 * drawn only where it and a column each side of it are blank: it never
 * covers a label, another value, or runs into either. */
void grid_draw_regroup(Ctx *x, const Grid *a, const Grid *b, const char *title, const HeadMap *hm,
                       double t)
{
    double e = t * t * (3 - 2 * t); /* ease in and out */
    int vw = b->vw < a->vw ? b->vw : a->vw;
    grid_labels(x, b, title);
    for (int vr = 0; vr < b->rows_shown; vr++)
        for (int vc = 0; vc < b->vcols_shown; vc++) {
            int gi = vc / b->C, r = vr, c = b->stacked ? vc : vc % b->C;
            int idx[4], ax, ay, bx, by, px, py;
            if (b->stacked) grid_vrow(b, vr, &gi, &r);
            if (!grid_pos(a, gi, r, c, &ax, &ay) || !grid_pos(b, gi, r, c, &bx, &by)) continue;
            grid_idx(b, gi, r, c, idx);
            px = sc_round(ax + (bx - ax) * e), py = sc_round(ay + (by - ay) * e);
            if (!x->s.still && sc_area_free(x->c, px, py, vw - 1, b->pitch))
                grid_cell(x, b, px, py, vw, idx, cell_style(b, hm, idx));
        }
}
