/* bodies.c - the body of a frame, under the top rows: a step's candy bar
 * over its logical view (step 8: the source bar, the new buffer filling up),
 * the softmax heatmaps, and the view-without-transpose failure.
 */
#include "draw/scenectx.h"

#include "base/textutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The float in flight of step 8's animation, drawn only where it covers
 * no text: its source cell and its new slot are lit (style only, the text
 * stays), and the cell itself is drawn on its straight way from one to
 * the other wherever all of its columns, and one beside each end, are free:
 * it never touches a label, so no word reads run into a number. */
static void copy_flight(Ctx *x, const Bar *src, const Bar *bar, const HeadMap *hm, long landed)
{
    const Tensor *t = x->m->t[MT_MERGED_CONTIG], *from = x->m->t[MT_MERGED];
    int idx[TENSOR_MAXDIM] = {0}, ax, ay, zx, zy, px, py;
    double f = x->s.anim * (double)t->st->n - (double)landed;
    long k = landed;
    for (int i = t->ndim - 1; i >= 0; i--) { /* row-major: the landed-th element of t */
        idx[i] = (int)(k % t->shape[i]);
        k /= t->shape[i];
    }
    if (!bar_pos(src, (long)tensor_offset_of(from, idx), &ax, &ay) ||
        !bar_pos(bar, landed, &zx, &zy))
        return;
    canvas_style(x->c, ax, ay, src->cw - 1, src->pitch, ST_CURSOR);
    canvas_style(x->c, zx, zy, bar->cw - 1, bar->pitch, ST_CURSOR);
    px = sc_round(ax + (zx - ax) * f), py = sc_round(ay + (zy - ay) * f);
    if (!x->s.still && sc_area_free(x->c, px, py, bar->cw - 1, bar->pitch))
        bar_cell(x, bar, landed, px, py, ST_CURSOR, 0, hm_head(hm, landed));
}

/* The titles of the body's sections, each written by one function, so the
 * wide plan (layout.c) can give each column the width of its titles. */
static void title_from(const Ctx *x, const Bar *src, char *buf, size_t n)
{
    const Tensor *from = x->m->t[MT_MERGED];
    int cells = src && src->tagt && src->tagfmt == 2;
    snprintf(buf, n, "from: storage S%d%s, heads first%s", from->st->id, cells ? "" : " (head_out)",
             cells ? (src->tagt->shape[0] > 1 ? ", cells: batch,head,token" : ", cells: head,token")
                   : "");
}

static void title_to(const Ctx *x, char *buf, size_t n)
{
    const Tensor *t = x->m->t[MT_MERGED_CONTIG];
    char nf[48], nb[48];
    snprintf(buf, n, "to: new storage S%d, %s, %s", t->st->id,
             text_fmt_count(nf, sizeof nf, (unsigned long long)t->st->n, "float"),
             text_fmt_count(nb, sizeof nb, (unsigned long long)t->st->n * sizeof(float), "byte"));
}

static void title_memory(const Ctx *x, char *buf, size_t n)
{
    const Tensor *t = x->m->t[mha_steps[x->s.step].output];
    const char *what = x->m->steps[x->s.step].is_view ? "the same bytes" : "a new buffer";
    char nf[48], nb[48];
    if (x->s.step == MS_INPUT) what = "the input";
    snprintf(buf, n, "memory S%d: %s, %s, %s", t->st->id,
             text_fmt_count(nf, sizeof nf, (unsigned long long)t->st->n, "float"),
             text_fmt_count(nb, sizeof nb, (unsigned long long)t->st->n * sizeof(float), "byte"),
             what);
}

/* Steps 4 and 6 under GQA/MQA: the title of the shared K (V) buffer, long
 * ("stride 0, the same bytes of K") or short. */
static void title_kv(const Ctx *x, int shortform, char *buf, size_t n)
{
    const Mha *m = x->m;
    int v = x->s.step == MS_WEIGHTED;
    const Tensor *buf_t = m->t[v ? MT_V : MT_K], *ex = m->t[v ? MT_V_EXPAND : MT_K_EXPAND];
    char d[64], st[64];
    tensor_fmt_dims(d, sizeof d, ex->ndim, ex->shape);
    tensor_fmt_strides(st, sizeof st, ex);
    if (!shortform)
        snprintf(buf, n, "%s_expand %s, strides %s: stride 0, the same bytes of %c (S%d)",
                 v ? "V" : "K", d, st, v ? 'V' : 'K', buf_t->st->id);
    else
        snprintf(buf, n, "%s_expand %s, strides %s: %c's S%d, no copy", v ? "V" : "K", d, st,
                 v ? 'V' : 'K', buf_t->st->id);
}

void body_grid_title(const Ctx *x, char *buf, size_t n)
{
    const Mha *m = x->m;
    const Tensor *t = m->t[mha_steps[x->s.step].output];
    char d[64], st[64];
    tensor_fmt_dims(d, sizeof d, t->ndim, t->shape);
    tensor_fmt_strides(st, sizeof st, t);
    snprintf(buf, n, "%s %s, strides %s%s", sc_tensor_label(x->s.step), d, st,
             m->cfg.batch > 1 ? ", batch shown:" : "");
    if (m->cfg.batch > 1) {
        size_t k = strlen(buf);
        snprintf(buf + k, n - k, " %d of %d", (x->s.inspect ? x->s.cur[0] : 0) + 1, m->cfg.batch);
    }
}

/* Steps 4 and 6 under GQA/MQA (not while inspecting) draw the shared K or V
 * buffer in the bar's place (body_kv_share): that tensor, or NULL. */
const Tensor *body_kv_tensor(const Ctx *x)
{
    int v = x->s.step == MS_WEIGHTED;
    if (x->m->groups < 2 || x->s.inspect || x->s.view != MV_STEP || (x->s.step != MS_SCORES && !v))
        return NULL;
    return x->m->t[v ? MT_V : MT_K];
}

int body_bar_min_w(const Ctx *x)
{
    char buf[200];
    int w;
    if (x->s.step == MS_CONTIG) {
        title_from(x, NULL, buf, sizeof buf);
        w = canvas_text_width(buf);
        title_to(x, buf, sizeof buf);
        return canvas_text_width(buf) > w ? canvas_text_width(buf) : w;
    }
    title_memory(x, buf, sizeof buf);
    w = canvas_text_width(buf);
    if (body_kv_tensor(x)) {
        title_kv(x, 1, buf, sizeof buf);
        if (canvas_text_width(buf) > w) w = canvas_text_width(buf);
    }
    return w;
}

/* Step 8: the non-contiguous source, then the new buffer filling up, one
 * float at a time (sc_copy_landed: as many as the counter has counted). */
static void body_copy(Ctx *x, StepPlan *p, const HeadMap *hm, long lit)
{
    const Mha *m = x->m;
    const Tensor *t = m->t[MT_MERGED_CONTIG], *from = m->t[MT_MERGED];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    HeadMap hm_src = hm_of(from, 2, m->d_head);
    long n = (long)t->st->n, landed = sc_copy_landed(x);
    long lit_src = cur ? (long)tensor_offset_of(from, cur) : -1;
    Bar *src = &p->src, *bar = &p->bar;
    char title[160];
    src->hit_t = from; /* same shape as t: its index selects t's element */
    bar_scroll(src, lit_src);
    title_from(x, src, title, sizeof title);
    bar_draw(x, src, title, &hm_src, lit_src, -1, -1);
    bar_scroll(bar, lit);
    title_to(x, title, sizeof title);
    bar_draw(x, bar, title, hm, lit, -1, landed);
    if (landed >= 0 && landed < n) copy_flight(x, src, bar, hm, landed);
}

/* GQA/MQA at steps 4 and 6: instead of the new buffer's cells, the K (or V)
 * buffer that the query heads share, coloured by kv head, under the title of
 * its expand view with the stride 0 on the group axis, and which query
 * heads read which kv head.  Not while inspecting (the bar then shows the
 * inspected tensor's storage).  Returns 0 when it does not apply or fit. */
static int body_kv_share(Ctx *x, const StepPlan *p)
{
    const Mha *m = x->m;
    int v = x->s.step == MS_WEIGHTED, rows = p->bar_room, at;
    const Tensor *buf = m->t[v ? MT_V : MT_K], *heads = m->t[v ? MT_V_HEADS : MT_K_HEADS];
    HeadMap hm = hm_of(heads, 1, 0);
    char title[200];
    Bar b;
    if (!body_kv_tensor(x)) return 0;
    if (rows < 3) return 0;
    if (p->wide && p->bar.t == buf) { /* the wide plan planned this bar */
        b = p->bar;
    } else {
        bar_plan_s(x, &b, buf, sc_storage_row(m, buf), p->bar.x, p->bar.y, p->bar.w, rows - 1,
                   p->bar.pitch);
        if (b.wrap == 0 || b.rows_shown < b.rows) return 0;
    }
    bar_scroll(&b, -1);
    title_kv(x, 0, title, sizeof title);
    if (canvas_text_width(title) > p->bar.w) title_kv(x, 1, title, sizeof title);
    bar_draw(x, &b, title, &hm, -1, -1, -1);
    at = p->bar.x;
    for (int kv = 0; kv < m->cfg.kv_heads; kv++) { /* "q0 q1 -> kv0  q2 q3 -> kv1" */
        char line[96];
        size_t o = 0;
        for (int q = 0; q < m->cfg.heads && o + 8 < sizeof line; q++)
            if (mha_kv_head_of(&m->cfg, q) == kv)
                o += (size_t)snprintf(line + o, sizeof line - o, "q%d ", q);
        snprintf(line + o, sizeof line - o, "-> kv%d", kv);
        if (at + canvas_text_width(line) > p->bar.x + p->bar.w) {
            sc_text_fit(x->c, at, b.y + bar_rows_used(&b), p->bar.x + p->bar.w - at, "...", ST_DIM);
            break;
        }
        at += canvas_text(x->c, at, b.y + bar_rows_used(&b), line, ST_HEAD(kv)) + 2;
    }
    return 1;
}

/* Candy bar over the logical grid, sharing h rows. */
void body_step(Ctx *x, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const StepView *sv = &scene_views[x->s.step];
    const Tensor *t = m->t[mha_steps[x->s.step].output];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    HeadMap hm = hm_step(m, mha_steps[x->s.step].output, sv->layout, sv->colour);
    int dh = sv->layout == LV_FLAT && sv->colour ? m->d_head : 0;
    int stacked = sv->layout == LV_HEAD;
    int anim = x->s.anim >= 0 && x->s.anim < 1;
    long lit = cur ? (long)tensor_offset_of(t, cur) : -1;
    char title[160];
    StepPlan p;
    Grid g;

    plan_step(x, &p, bx, by, bw, bh);
    if (x->s.step == MS_CONTIG) {
        body_copy(x, &p, &hm, lit);
    } else if (!body_kv_share(x, &p)) {
        int sel[3];
        long mark = p.bar.marks ? bar_pairs_row(x, &p.bar, sel) : -1;
        p.bar.tokens = !sv->colour;
        bar_scroll(&p.bar, lit >= 0 ? lit : mark);
        title_memory(x, title, sizeof title);
        bar_draw(x, &p.bar, title, &hm, lit, x->s.step == MS_SPLIT && anim ? x->s.anim : -1, -1);
        if (p.bar.marks) bar_mark_pairs(x, &p.bar, sel);
    }
    {
        int gy = p.gy, need = p.need;
        body_grid_title(x, title, sizeof title);
        grid_plan_p(&g, t, sv->layout, dh, cur ? cur[0] : 0, p.gx, gy, p.gw, need, stacked,
                    p.gpitch);
        if (p.wide)
            grid_widen(&g, WIDE_CELL_MAX * (x->s.large ? 2 : 1));
        else if (x->s.large)
            grid_widen(&g, 2 * g.vw); /* large print: the values twice as far apart */
        g.lead = p.glead;
        grid_scroll(&g, cur);
        if (!cur) scene_scroll_limit(&x->s, grid_scroll_by(&g, x->s.scroll));
        if (x->s.step == MS_HEADS && anim) {
            /* the tokens-first grid, its values under the heads-first labels */
            Grid a;
            const Tensor *ts = m->t[MT_Q_SPLIT];
            int lw;
            grid_plan_p(&a, ts, LV_TOK, 0, 0, p.gx, gy, p.gw, need, 0, p.gpitch);
            lw = g.labelw - a.labelw > 0 ? g.labelw - a.labelw : 0;
            grid_plan_p(&a, ts, LV_TOK, 0, 0, p.gx + lw, gy, p.gw - lw, need, 0, p.gpitch);
            if (p.wide) grid_widen(&a, g.vw);
            a.lead = p.glead;
            a.head_rows = g.head_rows;
            grid_scroll(&a, NULL);
            grid_draw_regroup(x, &a, &g, title, &hm, x->s.anim);
        } else {
            grid_draw(x, &g, title, &hm, cur);
        }
    }
}

int scene_logical_view(Canvas *c, int x0, int y0, int w, int maxh, const Mha *m,
                       const SceneState *s)
{
    if (!c || !m || !s || maxh < 3 || s->step < 0 || s->step >= MS_COUNT || s->view != MV_STEP)
        return 0;
    Ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.c = c;
    ctx.m = m;
    ctx.s = *s;
    ctx.hx = ctx.hy = -1;
    const StepView *sv = &scene_views[s->step];
    const Tensor *t = m->t[mha_steps[s->step].output];
    int in[4] = {0, 0, 0, 0}; /* the cursor, inside t whatever the caller asked */
    for (int i = 0; i < t->ndim && i < 4; i++)
        in[i] = s->cur[i] < 0 ? 0 : s->cur[i] >= t->shape[i] ? t->shape[i] - 1 : s->cur[i];
    const int *cur = s->inspect ? in : NULL;
    HeadMap hm = hm_step(m, mha_steps[s->step].output, sv->layout, sv->colour);
    int dh = sv->layout == LV_FLAT && sv->colour ? m->d_head : 0, stacked = sv->layout == LV_HEAD;
    int need = grid_need(t, sv->layout, dh, stacked);
    if (need > maxh) need = maxh;
    char title[160], d[64], st[64];
    tensor_fmt_dims(d, sizeof d, t->ndim, t->shape);
    tensor_fmt_strides(st, sizeof st, t);
    snprintf(title, sizeof title, "%s %s, strides %s", sc_tensor_label(s->step), d, st);
    Grid g;
    grid_plan_p(&g, t, sv->layout, dh, cur ? cur[0] : 0, x0, y0, w, need, stacked, 1);
    grid_scroll(&g, cur);
    if (!cur) scene_scroll_limit(s, grid_scroll_by(&g, s->scroll));
    grid_draw(&ctx, &g, title, &hm, cur);
    return need;
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
    HeadMap hm = hm_of(t, 1, 0);
    char title[200];
    bar_scroll(bar, cur ? (long)tensor_offset_of(t, cur) : -1);
    char nf[48], nb[48];
    snprintf(title, sizeof title, "memory S%d: %s, %s, a new buffer", t->st->id,
             text_fmt_count(nf, sizeof nf, (unsigned long long)bar->n, "float"),
             text_fmt_count(nb, sizeof nb, (unsigned long long)bar->n * sizeof(float), "byte"));
    bar_draw(x, bar, title, &hm, cur ? (long)tensor_offset_of(t, cur) : -1, -1, -1);
}

/* The heatmaps' title and, right of it, the shade scale: the title as long
 * as leaves room for the scale, the long one alone when nothing does. */
static void softmax_title(Ctx *x, int bx, int y, int bw, const char *dims)
{
    static const char *const forms[] = {"one heatmap per head, each row sums to 1",
                                        "a map per head, rows sum to 1", "rows sum to 1"};
    const char *mask = x->m->cfg.causal ? ", \xc3\x97 = masked" : "";
    char title[200];
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++) {
        snprintf(title, sizeof title, "attn %s: %s%s", dims, forms[i], mask);
        if (canvas_text_width(title) + 2 + heat_legend_w() <= bw) {
            canvas_text(x->c, bx, y, title, ST_BOLD);
            heat_legend(x, bx + bw - heat_legend_w(), y);
            return;
        }
    }
    snprintf(title, sizeof title, "attn %s: %s%s", dims, forms[0], mask);
    sc_text_fit(x->c, bx, y, bw, title, ST_BOLD);
}

/* Step 5 (and MV_NO_SCALE): heatmaps, rows summing to 1, under the candy bar
 * of attn's storage when there is room. */
void body_softmax(Ctx *x, int bx, int by, int bw, int bh, int noscale)
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
    char d[64];
    memset(&sp, 0, sizeof sp);
    if (plan_softmax_tall(x, &sp, bx, by, bw, bh, noscale)) {
        hy = sp.hy, hh = sp.hh, ph = sp.ph;
        if (sp.bar.wrap) softmax_bar(x, &sp.bar);
    } else {
        /* how many rows the heatmaps want; the candy bar gets what is left */
        heat_plan(&p, noscale ? H : H + single, S, b, 0, 0, noscale ? (bw - 2) / 2 : bw, bh);
        if (x->s.values && !noscale) heat_values(&p);
        heat_h = 1 + heat_rows_used(&p) + note_rows;
        /* inspecting: the storage row of the cursor is always shown, heatmaps give way */
        if (!noscale && (bh - heat_h - 1 >= 3 || cur)) {
            Bar bar;
            int avail = bh - heat_h - 1;
            if (avail < 2) avail = 2;
            bar_plan_s(x, &bar, t, sc_storage_row(m, t), bx, by, bw, avail > 6 ? 6 : avail, 1);
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
        sc_text_fit(x->c, bx, hy, bw, "with / sqrt(dh): attn", ST_BOLD);
        heat_plan_p(&p, H, S, b, bx, hy + 1, bw, hh, ph);
        heat_scroll(&p, cur, p.heads_shown);
        heat_set(x, &p, &attn, H, NULL, cur, 1);
        qy = hy + 1 + heat_rows_used(&p);
        sc_text_fit(x->c, bx, qy, bw, "without / sqrt(dh)", ST_BAD);
        heat_plan_p(&q, H, S, b, bx, qy + 1, bw, hh, ph);
        q.s0 = p.s0, q.k0 = p.k0, q.h0 = p.h0; /* the same rows, one under the other */
        heat_set(x, &q, &raw, H, NULL, NULL, 0);
        sc_fitf(x->c, bx, qy + 1 + heat_rows_used(&q), bw, ST_NORMAL,
                "largest weight in a row, on average: %.2f with the scale, %.2f without",
                mean_row_max(&attn, b), mean_row_max(&raw, b));
    } else if (noscale) {
        int half = (bw - 2) / 2;
        Heat q;
        sc_text_fit(x->c, bx, hy, half, "with / sqrt(dh): attn", ST_BOLD);
        sc_text_fit(x->c, bx + half + 2, hy, half, "without / sqrt(dh)", ST_BAD);
        heat_plan_p(&p, H, S, b, bx, hy + 1, half, hh, ph);
        heat_scroll(&p, cur, p.heads_shown);
        heat_set(x, &p, &attn, H, NULL, cur, 1);
        heat_plan_p(&q, H, S, b, bx + half + 2, hy + 1, half, hh, ph);
        q.s0 = p.s0, q.k0 = p.k0, q.h0 = p.h0; /* the same rows, side by side */
        heat_set(x, &q, &raw, H, NULL, NULL, 0);
        sc_fitf(x->c, bx, hy + 1 + heat_rows_used(&p), bw, ST_NORMAL,
                "largest weight in a row, on average: %.2f with the scale, %.2f without",
                mean_row_max(&attn, b), mean_row_max(&raw, b));
    } else {
        softmax_title(x, bx, hy, bw, d);
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
            if (x->s.values) heat_values(&p);
            heat_scroll(&p, cur, p.heads_shown - single);
            if (!cur)
                scene_scroll_limit(&x->s, heat_scroll_by(&p, x->s.scroll, p.heads_shown - single));
            heat_set(x, &p, &attn, H, single ? &big : NULL, cur, 1);
        }
        if (single) {
            char why[300];
            narr_single_why(x, why, sizeof why);
            canvas_wrap(x->c, bx, hy + 1 + heat_rows_used(&p), bw, 2, why, ST_NORMAL);
        }
    }
}

/* The bug next to the fix: which token's numbers each head gets. */
void body_wrong(Ctx *x, int bx, int by, int bw, int bh)
{
    const Mha *m = x->m;
    const Tensor *q = m->t[MT_Q], *wrong = m->t[MT_Q_WRONG], *right = m->t[MT_Q_HEADS];
    const int *cur = x->s.inspect ? x->s.cur : NULL;
    HeadMap hm = hm_of(m->t[MT_Q_SPLIT], 2, 0); /* each float's true head */
    int half = (bw - 2) / 2, need = grid_need(wrong, LV_HEAD, 0, 1);
    int candy_h, stacked = 1, gy, gp = 1, spare;
    Bar bar;
    Grid gw, gr;
    char title[160];
    if (plan_wrong_tall(x, &bar, &gy, &gp, bx, by, bw, bh, &spare)) {
        need = grid_need_p(wrong, LV_HEAD, 0, 1, gp);
    } else {
        if (need + 3 > bh) {
            stacked = 0;
            need = grid_need(wrong, LV_HEAD, 0, 0);
        }
        if (need > bh - 3) need = bh - 3;
        candy_h = bh - need - 1;
        if (candy_h < 3) candy_h = bh - need;
        bar_plan_s(x, &bar, q, sc_storage_row(m, q), bx, by, bw, candy_h, 1);
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
    snprintf(title, sizeof title, "bug: %s", mha_views[MV_WRONG_VIEW].code);
    grid_draw(x, &gw, title, &hm, cur);
    grid_plan_p(&gr, right, LV_HEAD, 0, cur ? cur[0] : 0, bx + half + 2, gy, half, need, stacked,
                gp);
    grid_scroll(&gr, cur); /* the same rows as the bug beside it */
    gr.src_labels = 1;
    gr.d_model = m->cfg.d_model;
    gr.seq = m->cfg.seq;
    gr.nohit = 1; /* the cursor indexes Q_wrong */
    grid_draw(x, &gr, "right: Q_heads (view, transpose)", &hm, NULL);
}
