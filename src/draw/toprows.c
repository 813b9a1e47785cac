/* toprows.c - the rows above the body: the title with the copy counter,
 * program (engine/mha_panel.c) with what the step runs lit, and the shape /
 * strides panel beside it.
 */
#include "draw/scenectx.h"

#include "base/linebreak.h"
#include "base/textutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *yes_no(int b)
{
    return b ? "yes" : "no";
}

/* The first of pn's lines the panel shows in its rows: all of them when
 * they fit, else a window that holds the lines the step lights with a line
 * of context above them, or when they are more than the rows, the last of
 * them (the one that makes the step's tensor) and as many before it. */
static int program_top(const MhaPanel *pn, int step, int rows)
{
    int last, first = mha_panel_first_lit(pn, step, &last), top;
    if (pn->n <= rows || first < 0) return 0; /* the input: the program's start */
    top = last - first + 1 < rows ? first - 1 : last - rows + 1;
    if (top + rows > pn->n) top = pn->n - rows;
    return top < 0 ? 0 : top;
}

int top_program_rows(const Ctx *x)
{
    MhaPanel pn;
    mha_panel(&x->m->cfg, MV_STEP, &pn);
    return x->h >= PROGRAM_FULL_H && pn.n > PROGRAM_ROWS ? pn.n : PROGRAM_ROWS;
}

/* The program the step (or the failure picture) runs, its lines numbered,
 * the part the step runs lit.  A window of x->prog_rows lines when the
 * program is longer: the rule beside it turns into an arrow, dim, at the
 * end that has lines out of sight. */
void top_program(Ctx *x)
{
    MhaPanel pn;
    mha_panel(&x->m->cfg, x->s.view, &pn);
    int step = x->s.view == MV_STEP ? x->s.step : -1;
    /* a failure's panel lights its bug whatever the step: the bug in sight */
    int rows = x->prog_rows, top = program_top(&pn, step, rows);
    for (int r = 0; r < rows; r++) {
        int i = top + r, py = x->y0 + 1 + x->tg + r, px = x->x0, len;
        /* a rule between the program and the panel beside it, so the
         * panel's "->" rows do not read as the program's lines */
        int rule = r == 0 && top > 0 ? 0x25B2 : r == rows - 1 && i < pn.n - 1 ? 0x25BC : 0x2502;
        canvas_put(x->c, px + PROGRAM_W + 1, py, rule, ST_DIM); /* │, or ▲ ▼ */
        if (i >= pn.n) continue;
        const char *at = mha_panel_lit(&pn, i, step, &len);
        canvas_printf(x->c, px, py, ST_DIM, "  %2d ", i + 1);
        canvas_text(x->c, px + 5, py, pn.line[i], ST_CODE);
        if (at) {
            canvas_style(x->c, px + 5 + (int)(at - pn.line[i]), py, len, 1, ST_CODE_HI);
            canvas_put(x->c, px, py, 0x25B6, ST_CODE_HI); /* ▶ */
        }
    }
}

/* Shape, strides, contiguity and storage, before -> after.  The arrow is
 * "->", two ASCII cells, so it reads the same in the ASCII backend. */
void top_panel(Ctx *x, const Tensor *before, const Tensor *after, int swap_hi)
{
    int px = x->x0 + PROGRAM_W + 3, py = x->y0 + 1 + x->tg;
    int pw = x->x0 + x->w - RIGHT_MARGIN - px;
    char a[128], b[128];
    if (pw < 10) return;
    tensor_fmt_dims(b, sizeof b, after->ndim, after->shape);
    if (before) {
        tensor_fmt_dims(a, sizeof a, before->ndim, before->shape);
        sc_fitf(x->c, px, py, pw, ST_NORMAL, "shape   %s", a);
        sc_fitf(x->c, px, py + 1, pw, ST_BOLD, "   ->   %s", b);
    } else {
        sc_fitf(x->c, px, py, pw, ST_BOLD, "shape   %s", b);
    }
    tensor_fmt_strides(b, sizeof b, after);
    if (before) {
        tensor_fmt_strides(a, sizeof a, before);
        sc_fitf(x->c, px, py + 2, pw, ST_NORMAL, "strides %s", a);
        sc_fitf(x->c, px, py + 3, pw, swap_hi ? ST_WARN : ST_BOLD, "   ->   %s", b);
        sc_fitf(x->c, px, py + 4, pw, ST_NORMAL, "contiguous %s -> %s",
                yes_no(tensor_is_contiguous(before)), yes_no(tensor_is_contiguous(after)));
        if (tensor_same_storage(before, after))
            sc_fitf(x->c, px, py + 5, pw, ST_GOOD, "storage S%d -> S%d (view)", before->st->id,
                    after->st->id);
        else
            sc_fitf(x->c, px, py + 5, pw, ST_WARN, "storage S%d -> S%d (new)", before->st->id,
                    after->st->id);
    } else {
        sc_fitf(x->c, px, py + 1, pw, ST_BOLD, "strides %s", b);
        sc_fitf(x->c, px, py + 2, pw, ST_NORMAL, "contiguous %s",
                yes_no(tensor_is_contiguous(after)));
        sc_fitf(x->c, px, py + 3, pw, ST_NORMAL, "storage S%d (own buffer)", after->st->id);
    }
}

/* Bytes copied this step, as the counter shows it now (climbing in step 8's
 * animation, float by float; the engine's number otherwise). */
static size_t shown_bytes(const Ctx *x)
{
    const MhaStep *ms = &x->m->steps[x->s.step];
    long landed = sc_copy_landed(x);
    if (landed < 0) return ms->bytes_copied;
    /* whole floats only: the bytes of the floats the picture shows landed */
    return (size_t)landed * (ms->bytes_copied / tensor_numel(x->m->t[ms->output]));
}

/* Bytes copied by the pass up to and including this step, from the engine's
 * per-step counts (this step's as shown_bytes climbs it). */
static size_t pass_bytes(const Ctx *x)
{
    size_t total = shown_bytes(x);
    const MhaConfig *c = &x->m->cfg;
    for (int k = 0; k < mha_step_number(c, x->s.step); k++) /* the run's order */
        total += x->m->steps[mha_step_at(c, k)].bytes_copied;
    return total;
}

void top_title(Ctx *x, const char *left)
{
    char right[128], sb[32], pb[32];
    int rw;
    text_fmt_int(sb, sizeof sb, shown_bytes(x));
    text_fmt_int(pb, sizeof pb, pass_bytes(x));
    snprintf(right, sizeof right, "this step: %s B copied, pass so far: %s B", sb, pb);
    if (canvas_text_width(left) + 3 + canvas_text_width(right) > x->w - RIGHT_MARGIN)
        /* a big run beside a long step name: the short form */
        snprintf(right, sizeof right, "this step: %s B copied, pass: %s B", sb, pb);
    if (canvas_text_width(left) + 3 + canvas_text_width(right) > x->w - RIGHT_MARGIN)
        snprintf(right, sizeof right, "this step: %s B copied", sb);
    rw = canvas_text_width(right);
    canvas_fill(x->c, x->x0, x->y0, x->w, 1, ' ', ST_TITLE);
    sc_text_fit(x->c, x->x0, x->y0, x->w - rw - 3, left, ST_TITLE);
    canvas_text(x->c, x->x0 + x->w - RIGHT_MARGIN - rw, x->y0, right,
                shown_bytes(x) ? ST_WARN : ST_GOOD);
}

/* The statement of those the step ran that assigns its output ("Q_split =
 * ..."); its last when none does. */
static const char *made_by(const MhaStep *ms)
{
    const char *name = mha_tensor_names[ms->output];
    size_t n = strlen(name);
    for (int i = 0; i < ms->n_ran; i++)
        if (!strncmp(ms->ran[i], name, n) && !strncmp(ms->ran[i] + n, " = ", 3)) return ms->ran[i];
    return ms->n_ran ? ms->ran[ms->n_ran - 1] : ms->code;
}

int top_code_rows(const Ctx *x, int bw)
{
    int rows = 1;
    if (x->h < TALL_NARRATIVE_H) return 1; /* 80x24: the body needs every row */
    for (int k = 0; k < mha_step_total(&x->m->cfg); k++) {
        int n =
            canvas_wrap_lines(x->m->steps[mha_step_at(&x->m->cfg, k)].code, bw - 2, CODE_ROWS_MAX);
        if (n > rows) rows = n;
    }
    return rows;
}

/* The code line under the program: what the step ran (its statements,
 * wrapped in x->code_rows rows; in one row too narrow for them, the one
 * that made the step's tensor) and what it did to memory, or the failure
 * picture's line of code marked as the bug. */
static void top_code_line(Ctx *x, int bw, const Tensor *after)
{
    const MhaStep *ms = &x->m->steps[x->s.step];
    int cy = x->y0 + 1 + x->prog_rows + 2 * x->tg, used = 2;
    char code[MHA_STEP_CODE + 16], buf[160], nb[32];
    if (x->s.view != MV_STEP)
        snprintf(code, sizeof code, "%s  # the bug", mha_views[x->s.view].code);
    else if (x->code_rows > 1 || canvas_text_width(ms->code) <= bw - 2)
        snprintf(code, sizeof code, "%s", ms->code);
    else /* one row, too narrow for all it ran: the statement that made its tensor */
        snprintf(code, sizeof code, "%s", made_by(ms));
    canvas_text(x->c, x->x0, cy, "\xe2\x96\xb6 ", ST_CODE_HI);
    if (x->s.view != MV_STEP) {
        sc_text_fit(x->c, x->x0 + 2, cy, bw - 2, code, ST_CODE_HI);
        return;
    }
    /* the rows as canvas_wrap breaks them; the last one's width places the note */
    int rows = canvas_wrap(x->c, x->x0 + 2, cy, bw - 2, x->code_rows, code, ST_CODE_HI);
    LineBreak lb = {0};
    size_t at = 0, n = strlen(code);
    for (int r = 0; r < rows && linebreak_next(code + at, n - at, bw - 2, &lb); r++)
        at += lb.next;
    cy += rows > 0 ? rows - 1 : 0;
    used += lb.cols;
    text_fmt_int(nb, sizeof nb, ms->bytes_copied);
    if (ms->is_view)
        snprintf(buf, sizeof buf, "a view: storage S%d kept, %s bytes copied", after->st->id, nb);
    else if (ms->bytes_copied)
        snprintf(buf, sizeof buf, "a copy: %s bytes into storage S%d", nb, after->st->id);
    else if (x->s.step == MS_INPUT)
        snprintf(buf, sizeof buf, "the input: storage S%d", after->st->id);
    else
        snprintf(buf, sizeof buf, "computed into a new storage S%d", after->st->id);
    if (used + 3 + canvas_text_width(buf) <= bw)
        canvas_text(x->c, x->x0 + used + 3, cy, buf, ms->is_view ? ST_GOOD : ST_NORMAL);
}

/* The rows above the body: title, program, panel, code line.  A step shows
 * its input -> output; a failure picture what the bug reads -> makes:
 * Q -> Q_wrong, scores -> attn_noscale. */
void top_rows(Ctx *x, int bw)
{
    const Mha *m = x->m;
    const MhaStep *ms = &m->steps[x->s.step];
    const Tensor *before = ms->n_inputs > 0 ? m->t[ms->inputs[0]] : NULL;
    const Tensor *after = m->t[ms->output];
    char buf[160];
    if (x->s.view != MV_STEP) {
        const MhaViewInfo *v = &mha_views[x->s.view];
        snprintf(buf, sizeof buf, "failure mode: %s", v->title);
        top_title(x, buf);
        top_program(x);
        before = m->t[x->s.view == MV_WRONG_VIEW ? MT_Q : MT_SCORES];
        after = m->t[v->tensor];
    } else {
        snprintf(buf, sizeof buf, "step %d/%d  %s", mha_step_number(&m->cfg, x->s.step),
                 mha_step_total(&m->cfg) - 1, ms->name);
        top_title(x, buf);
        top_program(x);
    }
    top_panel(x, before, after,
              x->s.view == MV_STEP && x->s.step == MS_HEADS && x->s.anim >= 0 && x->s.anim < 1);
    top_code_line(x, bw, after);
}
