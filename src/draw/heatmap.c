/* heatmap.c - the softmax heatmaps: one S x S block per head, shaded by
 * weight, rows summing to 1, planned to fit many heads.
 */
#include "draw/scenectx.h"

#include "base/textutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shades' lower bounds: a weight of at least heat_from[i] is level i. */
static const double heat_from[5] = {0, 0.05, 0.2, 0.4, 0.7};
static const char *const heat_from_text[5] = {"0", "0.05", "0.2", "0.4", "0.7"};

static int heat_level(double v)
{
    int l = 0;
    while (l < 4 && v >= heat_from[l + 1])
        l++;
    return l;
}

static const uint32_t heat_glyph[5] = {' ', 0x2591, 0x2592, 0x2593, 0x2588};

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
void heat_plan_p(Heat *p, int H, int S, int b, int x, int y, int w, int h, int pitch)
{
    memset(p, 0, sizeof *p);
    p->x = x, p->y = y, p->w = w, p->h = h;
    p->H = H, p->S = S, p->b = b;
    p->pitch = pitch;
    p->labelw = sc_word_w(S) + 1;
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

void heat_values(Heat *p)
{
    if (p->hw >= 6 || p->pitch > 1) return; /* every cell has its value already */
    Heat best = *p;
    best.per_row = 0;
    for (int bare = 0; bare < 2; bare++) { /* glyph and value, or the value alone */
        Heat q = *p;
        q.hw = bare ? 5 : 6, q.bare = bare, q.lead = 0, q.sumw = bare ? 0 : SUM_W, q.gap = 2;
        q.cols = q.S;
        if (q.labelw + q.S * q.hw + q.sumw > q.w)
            q.cols = (q.w - q.labelw - q.sumw) / q.hw > 1 ? (q.w - q.labelw - q.sumw) / q.hw : 1;
        q.blockw = q.labelw + q.cols * q.hw + q.sumw;
        q.per_row = (q.w + 2) / (q.blockw + 2);
        if (q.per_row < 1) q.per_row = 1;
        heat_fit_rows(&q);
        if (heat_rows_used(&q) > q.h && q.h > 1) { /* the "hidden" note needs its row too */
            q.h--;
            heat_fit_rows(&q);
            q.h++;
        }
        if (q.heads_shown > best.heads_shown || !best.per_row) best = q;
    }
    *p = best;
}

int heat_scroll_by(Heat *p, int scroll, int slots)
{
    int last = 0, heads = slots > 0 && slots < p->H;
    if (heads) /* whole heads hidden: a row of blocks at a time */
        last = (p->H - slots + p->per_row - 1) / p->per_row;
    else if (p->rows_shown > 0 && p->rows_shown < p->S)
        last = p->S - p->rows_shown;
    if (scroll <= 0) return last;
    int k = scroll < last ? scroll : last;
    if (heads) {
        int h0 = k * p->per_row;
        p->h0 = h0 < p->H - slots ? h0 : p->H - slots;
    } else {
        p->s0 = k;
    }
    return last;
}

void heat_plan(Heat *p, int H, int S, int b, int x, int y, int w, int h)
{
    heat_plan_p(p, H, S, b, x, y, w, h, 1);
}

int heat_rows_used(const Heat *p)
{
    int brows = (p->heads_shown + p->per_row - 1) / p->per_row;
    int used = brows * (1 + p->rows_shown * p->pitch);
    if (p->rows_shown < p->S || p->heads_shown < p->H || p->cols < p->S) used++;
    return used;
}

/* Row s of head h, batch b, into row[S]. */
void heat_row(const HeatSrc *src, int b, int h, int s, float *row)
{
    int S = src->t->shape[3];
    for (int k = 0; k < S; k++) {
        int idx[4] = {b, h, s, k};
        row[k] = tensor_get(src->t, idx);
    }
}

/* The key tokens over the columns of a block whose cells start at (kx, y):
 * the words where every shown one fits its column, else their first
 * letters where those tell them apart, else the key numbers.  Returns 0
 * (nothing drawn) when not even those fit. */
static int heat_keys(Ctx *x, const Heat *p, int kx, int y)
{
    int cw = p->hw - (p->hw > 1), words = 1, initials = 1, numbers = 1;
    char seen[128] = {0};
    for (int k = p->k0; k < p->k0 + p->cols && k < p->S; k++) {
        const char *w = mha_token_word(k);
        unsigned char c0 = (unsigned char)w[0];
        words = words && (int)strlen(w) <= cw;
        initials = initials && c0 < 128 && !seen[c0];
        if (c0 < 128) seen[c0] = 1;
        numbers = numbers && sc_digits(k) <= cw;
    }
    if (!words && !initials && !numbers) return 0;
    for (int k = p->k0; k < p->k0 + p->cols && k < p->S; k++) {
        const char *w = mha_token_word(k);
        int px = kx + (k - p->k0) * p->hw + p->bare; /* over a bare value's digits */
        if (words)
            canvas_text(x->c, px, y, w, ST_DIM);
        else if (initials)
            canvas_put(x->c, px, y, (unsigned char)w[0], ST_DIM);
        else
            canvas_printf(x->c, px, y, ST_DIM, "%d", k);
    }
    return 1;
}

/* One heatmap block in slot `slot` of the plan: head `head` of src.
 * title NULL: "head h" in the head's colour. */
void heat_block(Ctx *x, const Heat *p, int slot, const HeatSrc *src, int head, const char *title,
                const int *cur, int hit_kind)
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
        sc_text_fit(x->c, bx, by, tw, title, ST_BOLD);
    } else if (!p->lead && p->labelw - 1 >= 1 + sc_digits(head) &&
               heat_keys(x, p, bx + p->labelw, by)) {
        /* the head's name left, where the row words go; the keys over their columns */
        sc_fitf(x->c, bx, by, p->labelw - 1, ST_HEAD(head), "h%d", head);
    } else {
        sc_fitf(x->c, bx, by, tw, ST_HEAD(head), tw >= 6 + sc_digits(head) ? "head %d" : "h%d",
                head);
    }
    if (p->sumw) sc_text_fit(x->c, bx + p->blockw - 4, by, 4, "sum", ST_DIM);
    for (int s = p->s0; s < p->s0 + p->rows_shown; s++) {
        double sum = 0;
        char buf[16];
        int py = by + 1 + (s - p->s0) * p->pitch;
        heat_row(src, p->b, head, s, a);
        if (!p->lead)
            sc_text_fit(x->c, bx, py + vl, p->labelw - 1, mha_token_word(s), ST_DIM);
        else if (slot % p->per_row == 0) /* tight: the words once, left of the row of blocks */
            sc_text_fit(x->c, bx - p->lead, py + vl, p->lead - 1, mha_token_word(s), ST_DIM);
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
                    sc_fmt_num(buf, sizeof buf, v, cw - 2);
                len = canvas_text_width(buf);
                canvas_put(x->c, px + (cw - len) / 2 - 1, py + vl, ' ', st);
                canvas_text(x->c, px + (cw - len) / 2, py + vl, buf, st);
                canvas_put(x->c, px + (cw - len) / 2 + len, py + vl, ' ', st);
            } else if (masked) {
                canvas_put(x->c, px + (p->bare ? p->hw : cw) - 1, py, 0x00D7,
                           st); /* ×: 0, masked */
            } else if (p->hw >= 6) {
                canvas_put(x->c, px, py, heat_glyph[heat_level(v)], st);
                sc_fmt_num(buf, sizeof buf, v, p->hw - 2);
                canvas_text(x->c, px + p->hw - 1 - (int)strlen(buf), py, buf, st);
            } else if (p->bare) { /* the value alone, its level in the style */
                sc_fmt_num(buf, sizeof buf, v, p->hw - 1);
                canvas_text(x->c, px + p->hw - (int)strlen(buf), py, buf, st);
            } else {
                canvas_fill(x->c, px, py, cw, 1, heat_glyph[heat_level(v)], st);
            }
        hit:
            for (int ln = 0; hit_kind && ln < p->pitch; ln++)
                sc_hit_test(x, px, py + ln, cw, hit_kind, idx, -1); /* what is drawn */
        }
        if (!p->sumw) continue;
        sc_fmt_num(buf, sizeof buf, sum, 4);
        sc_text_fit(x->c, bx + p->blockw - 4, py + vl, 4, buf, ST_GOOD);
    }
    free(a);
}

/* Scrolls rows, columns and heads so the cursor (b, h, s, k) is shown;

 * `slots` blocks are for per-head maps. */
void heat_scroll(Heat *p, const int *cur, int slots)
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
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %d row%s", p->S - p->rows_shown,
                              text_s(p->S - p->rows_shown));
    if (p->cols < p->S && k < sizeof buf)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %d col%s", p->S - p->cols,
                              text_s(p->S - p->cols));
    if (p->heads_shown < heads && k < sizeof buf)
        k += (size_t)snprintf(buf + k, sizeof buf - k, ", %d head%s", heads - p->heads_shown,
                              text_s(heads - p->heads_shown));
    if (p->h0 > 0 && k < sizeof buf) /* scrolled: which heads are these */
        k += (size_t)snprintf(buf + k, sizeof buf - k, "; heads %d-%d shown", p->h0,
                              p->h0 + p->heads_shown - 1);
    if (k && x->s.scroll_key && k < sizeof buf)
        k += (size_t)snprintf(buf + k, sizeof buf - k, " (%s scrolls)", x->s.scroll_key);
    if (k)
        sc_fitf(x->c, p->x, p->y + brows * (1 + p->rows_shown * p->pitch), p->w, ST_DIM,
                "hidden:%s", buf + 1);
}

/* Per-head heatmaps of src (B, H, S, S) in a plan of H slots (+1 for
 * `single`, the one big head, drawn in the last visible slot). */
void heat_set(Ctx *x, const Heat *p, const HeatSrc *src, int H, const HeatSrc *single,
              const int *cur, int hit_kind)
{
    int slots = p->heads_shown - (single ? 1 : 0);
    for (int i = 0; i < slots && p->h0 + i < H; i++)
        heat_block(x, p, i, src, p->h0 + i, NULL, cur, hit_kind);
    if (single) heat_block(x, p, p->heads_shown - 1, single, 0, "one big head", NULL, 0);
    heat_more(x, p, H + (single ? 1 : 0));
}

#define LEGEND_LEAD "weights: "

/* Columns heat_legend takes. */
int heat_legend_w(void)
{
    int w = (int)strlen(LEGEND_LEAD);
    for (int i = 1; i < 5; i++)
        w += 1 + (int)strlen(heat_from_text[i]) + 1 + (i < 4);
    return w;
}

/* The shade scale, "weights: ░0.05+ ▒0.2+ ▓0.4+ █0.7+", at (x, y), each glyph
 * in its own style as the cells draw it (so the ASCII backend maps it the
 * same way).  Returns the columns used. */
int heat_legend(Ctx *x, int px, int y)
{
    int at = px + canvas_text(x->c, px, y, LEGEND_LEAD, ST_DIM);
    for (int i = 1; i < 5; i++) {
        canvas_put(x->c, at++, y, heat_glyph[i], ST_HEAT(i));
        at += canvas_text(x->c, at, y, heat_from_text[i], ST_DIM);
        at += canvas_text(x->c, at, y, i < 4 ? "+ " : "+", ST_DIM);
    }
    return at - px;
}
