/* scene.c - one step of the pipeline, drawn from a finished Mha run.
 *
 * Frame layout (w x h, at least 80x24; rows from the top):
 *   0        title: step n/10 and its name; on the right the bytes this step
 *            copied and the pass's total so far
 *   1..6     the run's program (engine/mha_panel.c), what the step runs lit:
 *            a window of six lines, or all of them from PROGRAM_FULL_H rows |
 *            shape, strides before -> after, contiguous, storage id
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
#include "draw/scenectx.h"

#include <stdlib.h>
#include <string.h>

const StepView scene_views[MS_ALL] = {
    [MS_INPUT] = {LV_FLAT, 0},    [MS_PROJECT] = {LV_FLAT, 0}, [MS_SPLIT] = {LV_TOK, 1},
    [MS_HEADS] = {LV_HEAD, 1},    [MS_SCORES] = {LV_HEAD, 1},  [MS_SOFTMAX] = {LV_HEAD, 1},
    [MS_WEIGHTED] = {LV_HEAD, 1}, [MS_BACK] = {LV_TOK, 1},     [MS_CONTIG] = {LV_TOK, 1},
    [MS_CONCAT] = {LV_FLAT, 1},   [MS_OUT] = {LV_FLAT, 0},     [MS_ROPE] = {LV_HEAD, 1},
};

static int inspect_tensor(const SceneState *s)
{
    if (s->view == MV_WRONG_VIEW) return MT_Q_WRONG;
    if (s->view == MV_NO_SCALE) return MT_ATTN;
    return mha_steps[s->step].output;
}

void scene_draw_enlarge(Canvas *c, int x, int y, int w, int h, const char *below)
{
    char buf[96];
    int n;
    snprintf(buf, sizeof buf, "enlarge to %dx%d (now %dx%d)", SCENE_MIN_W, SCENE_MIN_H, w, h);
    n = canvas_text_width(buf);
    if (n <= w)
        canvas_text(c, x + (w - n) / 2, y + h / 2, buf, ST_WARN);
    else
        canvas_wrap(c, x, y, w, h, buf, ST_WARN);
    if (below && h > 2) {
        n = canvas_text_width(below);
        canvas_text(c, x + (w > n ? (w - n) / 2 : 0), y + h / 2 + 1, below, ST_DIM);
    }
}

static void clamp_cursor(const Mha *m, SceneState *s)
{
    const Tensor *t = m->t[inspect_tensor(s)];
    for (int i = 0; i < 4; i++) {
        int lim = i < t->ndim ? t->shape[i] - 1 : 0;
        if (s->cur[i] > lim) s->cur[i] = lim;
        if (s->cur[i] < 0) s->cur[i] = 0;
    }
}

/* The narrative's rows on a tall frame: 4, or in large print the rows its
 * short lines take, up to LARGE_NARRATIVE_ROWS (a frame of 40 rows or more;
 * 5 below), so a projector's text is not cut where there is room for it. */
static int narr_large_rows(const Ctx *x, char *buf, size_t n)
{
    int cap = x->h >= 40 ? LARGE_NARRATIVE_ROWS : 5, rows;
    Canvas *c;
    if (!x->s.large) return 4;
    c = canvas_new(LARGE_NARRATIVE_W, cap + 1);
    if (!c) return 4;
    narr_text(x, buf, n);
    rows = canvas_wrap(c, 0, 0, LARGE_NARRATIVE_W, cap + 1, buf, ST_NORMAL);
    canvas_free(c);
    return rows < 4 ? 4 : rows > cap ? cap : rows;
}

static void draw_all(Ctx *x)
{
    const Mha *m = x->m;
    const SceneState *s = &x->s;
    int step = s->step;
    char buf[1024];
    int narr_rows = 0, narr_lines, status_rows = s->status ? 1 : 0;
    int bw = x->w - RIGHT_MARGIN,
        top = 1 + (x->prog_rows = top_program_rows(x)) + (x->code_rows = top_code_rows(x, bw));
    int bx = x->x0, by = x->y0 + top, bh;

    /* the rows the body gets; on a tall frame the top block takes its share
     * of the rows to spare: blank rows under the title and over the code
     * line, as many as between the body's sections */
    if (s->narrative)
        narr_rows = x->h >= TALL_NARRATIVE_H ? narr_large_rows(x, buf, sizeof buf) : 3;
    narr_lines = narr_rows;
    if (s->inspect) narr_rows++; /* the offset arithmetic, above the narrative */
    if (s->narrative && x->h >= TALL_NARRATIVE_H)
        /* a blank row above the narrative, where the offset arithmetic goes:
         * the body keeps its place when inspect turns on (a click does) */
        bh = x->h - top - narr_lines - 1 - status_rows;
    else
        bh = x->h - top - narr_rows - status_rows - (narr_rows && x->h >= TALL_NARRATIVE_H ? 1 : 0);
    if (x->h > SCENE_MIN_H && bh >= 3) {
        /* by the frame's height alone, so the program stays put from step to
         * step; none when that would cost the body its tall cells */
        int n, tg = x->h >= TALL_GAP2_H ? 2 : x->h >= TALL_GAP1_H ? 1 : 0;
        if (tg && !plan_body_spare(x, bx, by + 2 * tg, bw, bh - 2 * tg, &n) &&
            plan_body_spare(x, bx, by, bw, bh, &n))
            tg = 0;
        x->tg = tg;
        by += 2 * x->tg, bh -= 2 * x->tg;
    }

    top_rows(x, bw);

    /* bottom: narrative (the inspect line first) and status; under a wide
     * body that leaves rows blank, the narrative follows it up */
    if (narr_rows) {
        int ny = x->y0 + x->h - status_rows - narr_rows;
        if (bh >= 3) ny -= plan_body_lift(x, bx, by, bw, bh);
        if (s->inspect) {
            int ti = inspect_tensor(s);
            narr_inspect_line(m->t[ti],
                              s->view == MV_STEP ? sc_tensor_label(step) : mha_tensor_names[ti],
                              s->cur, buf, sizeof buf);
            sc_text_fit(x->c, bx, ny, bw, buf, ST_LIT);
            ny++;
        }
        if (s->narrative) {
            narr_text(x, buf, sizeof buf);
            /* a paragraph no wider than NARRATIVE_MAX_W reads as text on a big screen */
            /* large print: short lines, where the frame has the rows for them */
            int nw = s->large && x->h >= TALL_NARRATIVE_H ? LARGE_NARRATIVE_W : NARRATIVE_MAX_W;
            canvas_wrap(x->c, bx, ny, bw < nw ? bw : nw, x->y0 + x->h - status_rows - ny, buf,
                        ST_NORMAL);
        }
    }
    if (status_rows) /* the one status line, as every screen draws it */
        canvas_status_at(x->c, x->x0, x->y0 + x->h - 1, x->w, s->status, ST_STATUS);

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
    if (x->s.step >= MS_ALL || !mha_step_on(&m->cfg, x->s.step)) x->s.step = MS_COUNT - 1;
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
        scene_draw_enlarge(c, x, y, w, h, NULL);
        return;
    }
    ctx_init(&ctx, c, x, y, w, h, m, s);
    draw_all(&ctx);
}

void scene_narrative(const Mha *m, const SceneState *s, char *buf, size_t n)
{
    Ctx ctx;
    size_t k;
    if (!buf || n == 0) return;
    buf[0] = 0;
    if (!m || !s) return;
    ctx_init(&ctx, NULL, 0, 0, SCENE_MIN_W, SCENE_MIN_H, m, s);
    narr_text(&ctx, buf, n);
    k = strlen(buf);
    if (ctx.s.view == MV_STEP && ctx.s.step == MS_SOFTMAX && ctx.s.show_single && k + 2 < n) {
        buf[k++] = ' ';
        narr_single_why(&ctx, buf + k, n - k);
    }
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
    if (!mha_step_on(&m->cfg, s->step)) return 0;
    ti = inspect_tensor(s);
    t = m->t[ti];
    clamp_cursor(m, s);
    layout = s->view != MV_STEP ? LV_HEAD : scene_views[s->step].layout;
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
