/* layout.c - the layout planners: how the body's rows are shared between
 * the candy bar, the logical view and the heatmaps, tallest cells first on
 * frames taller than 80x24, and the compact plan at 80x24.
 */
#include "draw/scenectx.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pitches tried on a frame taller than the minimum, the tallest first: a
 * bar cell can be 4 rows (offset, value, head, and a row of its colour). */
#define PITCH_MAX 3

#define BAR_PITCH_MAX 4

/* Plans the bar of the step's own tensor t: on the rope step it reserves
 * the rows of the pair marks (bar_mark_pairs) inside h: one under each line
 * one token's floats take (up to 4), and in large print one more for their
 * legend (its wide cells leave no room beside the marks). */
static void plan_bar(const Ctx *x, Bar *b, const Tensor *t, int bx, int y, int w, int h, int pitch)
{
    int on = x->s.step == MS_ROPE && x->s.view == MV_STEP && t == x->m->t[MT_Q_ROPE] &&
             t->ndim == 4 && h > 2;
    int dh = on ? t->shape[3] : 0, span = 1, legend, need;
    if (!on) {
        bar_plan_s(x, b, t, sc_storage_row(x->m, t), bx, y, w, h, pitch);
        return;
    }
    bar_plan_whole(x, b, t, sc_storage_row(x->m, t), bx, y, w, h - 1, pitch);
    if (b->wrap && b->wrap < dh && dh % b->wrap == 0) span = dh / b->wrap < 4 ? dh / b->wrap : 4;
    /* the legend's own row: in large print, or when the token fills its lines */
    legend = x->s.large || (b->wrap && b->wrap <= dh);
    if (1 + 2 * span + legend > h) span = 1; /* each marked line and its marks, the title */
    if (1 + 2 * span + legend > h) legend = 0;
    need = span + legend;
    if (need > 1) bar_plan_whole(x, b, t, sc_storage_row(x->m, t), bx, y, w, h - need, pitch);
    b->nmark = b->wrap && b->wrap < dh && dh / b->wrap < span ? dh / b->wrap : span;
    b->marks = need; /* rows reserved: nmark under the marked lines, the rest the legend's */
    b->markr = -1;
    b->h = h;
}

/* `spare` rows as n gaps between sections, as even as they go; the inner
 * gaps get the remainder (n >= 1).  The last gap counts the blank row the
 * frame keeps above the narrative (for the inspect line) as one of its own. */
void plan_spread(const Ctx *x, int spare, int n, int *gap)
{
    int tail = x->s.narrative && x->h >= TALL_NARRATIVE_H;
    spare += tail;
    for (int i = 0; i < n; i++)
        gap[i] = spare / n;
    for (int i = 0, r = spare % n; r > 0; i = (i + 1) % n)
        if (n < 3 || (i > 0 && i < n - 1) || r > n - 2) gap[i]++, r--;
    gap[n - 1] -= tail; /* >= 0: spare was at least n - 1 */
}

/* Plans body_step on a tall frame: the tallest cells (bar and grid pitches)
 * that show every row of the bars and the grid, the rows left spread evenly
 * between the sections.  Returns 0 when nothing taller than the compact
 * plan fits. */
int plan_step_tall(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &scene_views[x->s.step];
    const Tensor *t = m->t[mha_steps[x->s.step].output], *from = m->t[MT_MERGED];
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
                plan_bar(x, &b1, t, bx, by, bw, hb, pb);
                if (!b1.wrap || b1.wrap == wrap || b1.n % b1.wrap) continue; /* whole rows */
                wrap = b1.wrap;
                if (!b1.values || b1.rows_shown < b1.rows) continue;
                used += bar_rows_used(&b1);
                if (two_bars) {
                    bar_plan_s(x, &b2, from, sc_storage_row(m, from), bx, by, bw, hb, pb);
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
    plan_spread(x, bh - best, n, gap);
    p->spare = bh - best, p->ngaps = n;
    y += gap[0];
    if (two_bars) {
        bar_plan_s(x, &p->src, from, sc_storage_row(m, from), bx, y, bw, bhb, bp);
        y += bar_rows_used(&p->src) + gap[1];
    }
    plan_bar(x, &p->bar, t, bx, y, bw, bhb, bp);
    p->bar.h = bar_rows_used(&p->bar);
    y += p->bar.h + gap[n - 2];
    p->gx = bx, p->gw = bw, p->gy = y;
    p->bar_room = p->gy - p->bar.y - 1;
    p->gpitch = gp;
    p->need = grid_need_p(t, sv->layout, dh, stacked, gp);
    return 1;
}

/* Plans body_step on a frame with no rows to spare (80x24): the grid at the
 * bottom, the bar above it in the rows left. */
void plan_step_compact(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &scene_views[x->s.step];
    const Tensor *t = m->t[mha_steps[x->s.step].output];
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
    if (candy_h < candy_min || (x->s.step == MS_ROPE && x->s.view == MV_STEP))
        candy_h = bh - need; /* the rope step: its pair marks take the blank row's place */
    if (two_bars) {
        /* step 8: the non-contiguous source, then the new buffer filling up */
        const Tensor *from = m->t[MT_MERGED];
        bar_plan_s(x, &p->src, from, sc_storage_row(m, from), bx, yy, bw, candy_h / 2, 1);
        if (!p->src.values) bar_plan_tags(&p->src, from, sc_storage_row(m, from));
        yy += bar_rows_used(&p->src);
        bar_plan_s(x, &p->bar, t, sc_storage_row(m, t), bx, yy, bw, candy_h - (yy - by), 1);
        if (p->src.tagt) bar_plan_tags(&p->bar, t, sc_storage_row(m, t));
    } else {
        plan_bar(x, &p->bar, t, bx, yy, bw, candy_h, 1);
    }
    yy += bar_rows_used(&p->bar);
    p->gx = bx, p->gw = bw;
    p->gy = by + bh - need > yy ? yy + 1 : by + bh - need;
    p->bar_room = p->gy - p->bar.y - 1;
    p->need = need;
}

/* Does bar b show all of its storage, values and all, in whole token rows? */
static int bar_whole(const Bar *b)
{
    return b->wrap && b->n % b->wrap == 0 && b->values && b->rows_shown == b->rows;
}

/* How the wide plan shares bw columns between the bar column (bars b1 and,
 * on step 8, b2) and the grid g: *lw for the bars, the rest after WIDE_GAP
 * for the grid.  Each column gets at least its cells and titles, then what
 * its cells can use widened (WIDE_CELL_MAX), the rest shared in proportion.
 * Returns the column where the grid's widest row ends (-1: no fit). */
static int wide_split(const Ctx *x, const Bar *b1, const Bar *b2, const Grid *g, int bw, int *lw)
{
    char title[200];
    int wrap = b2 && b2->wrap > b1->wrap ? b2->wrap : b1->wrap;
    int nb = b1->wrap * b1->cw, bmin = body_bar_min_w(x), gmin = grid_used_w(g), gt;
    int VC = g->stacked ? g->C : g->groups * g->C, ngaps = g->stacked ? 0 : g->groups - 1;
    int bwant = wrap * WIDE_CELL_MAX, gwant, avail = bw - WIDE_GAP, gw, vw;
    if (b2 && b2->wrap * b2->cw > nb) nb = b2->wrap * b2->cw;
    body_grid_title(x, title, sizeof title);
    gt = canvas_text_width(title);
    if (bmin < nb) bmin = nb;
    if (gmin < gt) gmin = gt;
    if (bmin + WIDE_GAP + gmin > bw) return -1;
    gwant = g->bcols > 1 ? gmin : g->labelw + VC * WIDE_CELL_MAX + ngaps * g->gap;
    if (bwant < bmin) bwant = bmin;
    if (gwant < gmin) gwant = gmin;
    if (bwant + gwant <= avail)
        *lw = bwant + (avail - bwant - gwant) / 2;
    else
        *lw = bmin + (int)((long)(avail - bmin - gmin) * (bwant - bmin) /
                           (bwant - bmin + gwant - gmin > 0 ? bwant - bmin + gwant - gmin : 1));
    gw = bw - *lw - WIDE_GAP;
    if (g->bcols > 1 || VC < 1) return *lw + WIDE_GAP + (gmin < gw ? gmin : gw);
    vw = (gw - g->labelw - ngaps * g->gap) / VC;
    if (vw > WIDE_CELL_MAX) vw = WIDE_CELL_MAX;
    if (vw < g->vw) vw = g->vw;
    vw = g->labelw + VC * vw + ngaps * g->gap;
    return *lw + WIDE_GAP + (vw > gt ? vw : gt);
}

/* Plans body_step on a wide frame (a body WIDE_MIN_W columns or more): the
 * memory strip (step 8: both bars) on the left, the logical view beside it,
 * each as tall as it fits whole, the columns shared by wide_split and the
 * cells widened to fill them.  Of the bar's wraps, the one that spreads the
 * picture over most of the width (up to 9/10 of it), then whose rows come
 * nearest the grid's so the columns end about level, then the wider.
 * Returns 0 when the two do not fit side by side, whole: then the tall plan,
 * whose bar can use the whole width, fits more. */
int plan_step_wide(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &scene_views[x->s.step];
    const Tensor *gt = m->t[mha_steps[x->s.step].output], *from = m->t[MT_MERGED];
    const Tensor *kv = body_kv_tensor(x), *t = kv ? kv : gt; /* the bar's tensor, the grid's */
    int dh = sv->layout == LV_FLAT && sv->colour ? m->d_head : 0;
    int stacked = sv->layout == LV_HEAD, two_bars = x->s.step == MS_CONTIG;
    int half = (bw - WIDE_GAP) / 2, hbmax = two_bars ? (bh - 1) / 2 : bh, pg = 0, need = 0;
    int lw = 0, used_l = 0, used, gap[2], y, bp = 0, bhb = 0, bestd = -1, bestend = -1;
    Bar b1, b2;
    Grid g;
    if (bw < WIDE_MIN_W || x->h <= SCENE_MIN_H) return 0;
    for (pg = PITCH_MAX; pg >= 1; pg--) { /* the tallest grid that shows every row */
        need = grid_need_p(gt, sv->layout, dh, stacked, pg);
        if (need > bh) continue;
        grid_plan_p(&g, gt, sv->layout, dh, 0, bx, by, half, need, stacked, pg);
        if (!g.hidden_rows && !g.hidden_cols) break;
    }
    if (pg < 1) return 0;
    for (int pb = BAR_PITCH_MAX; pb >= 1 && bestd < 0; pb--) { /* the tallest cells */
        int wrap = -1;
        for (int hb = hbmax; hb >= 2; hb--) {
            int u, d, end, l;
            plan_bar(x, &b1, t, bx, by, bw - WIDE_GAP, hb, pb);
            if (!bar_whole(&b1) || b1.wrap == wrap) continue;
            wrap = b1.wrap;
            u = bar_rows_used(&b1) + (kv ? 1 : 0); /* kv: the "q0 q1 -> kv0" line */
            if (two_bars) {
                bar_plan_s(x, &b2, from, sc_storage_row(m, from), bx, by, bw - WIDE_GAP, hb, pb);
                if (!bar_whole(&b2)) continue;
                u += 1 + bar_rows_used(&b2);
            }
            end = wide_split(x, &b1, two_bars ? &b2 : NULL, &g, bw, &l);
            if (u > bh || end < 0) continue;
            if (end > bw * 9 / 10) end = bw * 9 / 10;
            d = u > need ? u - need : need - u;
            if (end > bestend || (end == bestend && d <= bestd))
                bestend = end, bestd = d, bp = pb, bhb = hb, used_l = u, lw = l;
        }
    }
    if (bestd < 0) return 0;
    memset(p, 0, sizeof *p);
    p->wide = 1;
    y = by;
    if (two_bars) {
        bar_plan_s(x, &p->src, from, sc_storage_row(m, from), bx, y, lw, bhb, bp);
        bar_widen(&p->src, WIDE_CELL_MAX * (x->s.large ? 2 : 1));
    }
    plan_bar(x, &p->bar, t, bx, y, lw, bhb, bp);
    bar_widen(&p->bar, WIDE_CELL_MAX * (x->s.large ? 2 : 1));
    /* the rows to spare: blank rows between each column's rows (as many as
     * between its sections, or fewer), the rest above and below, so a short
     * tensor spreads over the height instead of leaving it blank */
    {
        int kl = p->bar.rows_shown - 1 + (two_bars ? p->src.rows_shown : 0);
        int kg = g.bcols > 1 ? 0 : g.rows_shown - 1, sl = bh - used_l, sg = bh - need, top;
        int lead_l = kl > 0 ? sl / (kl + 2) : 0, lead_g = kg > 0 ? sg / (kg + 2) : 0;
        if (lead_l > WIDE_LEAD_MAX) lead_l = WIDE_LEAD_MAX;
        if (lead_g > WIDE_LEAD_MAX) lead_g = WIDE_LEAD_MAX;
        used_l += kl * lead_l, need += kg * lead_g;
        used = used_l > need ? used_l : need;
        /* what is left: WIDE_TOP_GAP rows above, as many below, and the
         * narrative moves up under the picture (lift) instead of leaving a
         * hole between them */
        gap[0] = bh - used < 2 * WIDE_TOP_GAP ? (bh - used) / 2 : WIDE_TOP_GAP;
        gap[1] = bh - used - gap[0];
        p->lift = gap[1] > WIDE_TOP_GAP ? gap[1] - WIDE_TOP_GAP : 0;
        p->spare = bh - used - p->lift, p->ngaps = 2;
        top = by + gap[0];
        p->src.lead = p->bar.lead = lead_l;
        p->glead = lead_g;
        y = top + (used - used_l) / 2; /* the shorter column centred beside the taller */
        if (two_bars) {
            p->src.y = y;
            y += bar_rows_used(&p->src) + 1 + lead_l;
        }
        p->bar.y = y;
        p->bar.h = bar_rows_used(&p->bar);
        p->gy = top + (used - need) / 2;
    }
    p->bar_room = by + bh - p->bar.y;
    p->gx = bx + lw + WIDE_GAP, p->gw = bw - lw - WIDE_GAP;
    p->gpitch = g.pitch;
    p->need = need - (g.bcols > 1 ? 0 : (g.rows_shown - 1) * p->glead);
    return 1;
}

/* The rows the narrative moves up on this frame: those the wide plan leaves
 * blank under the body (0 on every other plan). */
int plan_body_lift(const Ctx *x, int bx, int by, int bw, int bh)
{
    StepPlan p;
    if (x->s.view != MV_STEP || x->s.step == MS_SOFTMAX) return 0;
    memset(&p, 0, sizeof p);
    return plan_step_wide(x, &p, bx, by, bw, bh) ? p.lift : 0;
}

/* Plans body_step: side by side on a wide frame, else the tallest cells
 * that fit, else the compact plan of 80x24. */
void plan_step(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh)
{
    memset(p, 0, sizeof *p);
    if (plan_step_wide(x, p, bx, by, bw, bh)) return;
    if (plan_step_tall(x, p, bx, by, bw, bh)) return;
    plan_step_compact(x, p, bx, by, bw, bh);
}

#define HEAT_PITCH_MAX 5 /* a 10 x 5 cell is about square on a terminal */

int plan_softmax_tall(const Ctx *x, SoftPlan *sp, int bx, int by, int bw, int bh, int noscale)
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
                    bar_plan_s(x, &b1, t, sc_storage_row(m, t), bx, by, bw, hb, pb);
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
                bar_plan_s(x, &b1, t, sc_storage_row(m, t), bx, by, bw, hb, 1);
                if (b1.wrap) best = heat_h + hb, hp = ph, bp = 1, bhb = hb, hh = heat_rows_used(&p);
            }
        }
    }
    if (!best) return 0;
    memset(sp, 0, sizeof *sp);
    if (noscale) best = bhb; /* the rows, without the score's bonus */
    sp->stack = stack;
    sp->spare = bh - best, sp->ngaps = n;
    plan_spread(x, bh - best, n, gap);
    sp->hy = by + gap[0];
    if (!noscale) {
        bar_plan_s(x, &sp->bar, t, sc_storage_row(m, t), bx, by + gap[0], bw, bhb, bp);
        sp->hy += bar_rows_used(&sp->bar) + gap[1];
    }
    sp->hh = hh;
    sp->ph = hp;
    return 1;
}

/* MV_WRONG_VIEW on a tall frame: Q's storage as a candy bar, the two grids
 * (heads stacked) at *gy with cells *gp rows tall, the rows left spread.
 * Returns 0 when nothing taller than the compact plan fits. */
int plan_wrong_tall(const Ctx *x, Bar *bar, int *gy, int *gp, int bx, int by, int bw, int bh,
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
                bar_plan_s(x, &b1, q, sc_storage_row(m, q), bx, by, bw, hb, pb);
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
    plan_spread(x, bh - best, 3, gap);
    bar_plan_s(x, bar, q, sc_storage_row(m, q), bx, by + gap[0], bw, bhb, bp);
    *gy = by + gap[0] + bar_rows_used(bar) + gap[1];
    return 1;
}

/* The rows a tall plan of the body leaves blank, and over how many gaps
 * (0: the compact plan, nothing to spare). */
int plan_body_spare(const Ctx *x, int bx, int by, int bw, int bh, int *ngaps)
{
    *ngaps = 1;
    if (x->s.view == MV_WRONG_VIEW) {
        Bar bar;
        int gy, gp, spare;
        *ngaps = 3;
        return plan_wrong_tall(x, &bar, &gy, &gp, bx, by, bw, bh, &spare) ? spare : 0;
    }
    if (x->s.view == MV_NO_SCALE || x->s.step == MS_SOFTMAX) {
        SoftPlan sp;
        if (!plan_softmax_tall(x, &sp, bx, by, bw, bh, x->s.view == MV_NO_SCALE)) return 0;
        *ngaps = sp.ngaps;
        return sp.spare;
    } else {
        StepPlan p;
        if (!plan_step_wide(x, &p, bx, by, bw, bh) && !plan_step_tall(x, &p, bx, by, bw, bh))
            return 0;
        *ngaps = p.ngaps;
        return p.spare;
    }
}
