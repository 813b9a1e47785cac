/* scenectx.h - what the scene's files share: the drawing context, the
 * sections' plans (Bar, Grid, Heat) and the functions each file gives the
 * others.  Private to src/draw/scene*.c and the files scene.c is split into;
 * everything outside draws through draw/scene.h.
 *
 * A frame is drawn top to bottom: scene.c (draw_all) lays out the top rows
 * (toprows.c), the narrative (narrative.c) and the body (bodies.c), whose
 * sections are planned by layout.c and drawn by candybar.c, grid.c and
 * heatmap.c with the helpers of scenefmt.c.
 */
#ifndef MHAVIZ_SCENECTX_H
#define MHAVIZ_SCENECTX_H

#include <stddef.h>

#include "draw/canvas.h"
#include "draw/scenestate.h"
#include "engine/mha.h"

/* How the logical view lays a tensor out. */
enum {
    LV_FLAT, /* (B, S, D): rows = tokens, columns = D (split into head groups when coloured) */
    LV_TOK,  /* (B, S, H, X): rows = tokens, column groups = heads */
    LV_HEAD  /* (B, H, S, X): a block of token rows per head */
};

/* How a step's logical tensor (mha_steps[step].output) is drawn. */
typedef struct StepView {
    int layout; /* LV_* */
    int colour; /* colour cells by head */
} StepView;

#define PROGRAM_ROWS 6    /* the program's rows (a window on a longer one); the panel's too */
#define PROGRAM_FULL_H 50 /* frames this tall show the whole program (Ctx.prog_rows) */
#define CODE_ROWS_MAX 3   /* the code line wrapped: its rows at most (Ctx.code_rows) */
#define PROGRAM_W (5 + MHA_PANEL_W) /* " 12  " + a program line; then a gap, a rule, the panel */
#define RIGHT_MARGIN 1              /* never draw in the last column: nothing ends flush right */
#define NARRATIVE_MAX_W 100         /* the narrative's widest line, on any frame */
#define LARGE_NARRATIVE_W 60        /* ... and in large print: short lines read from the back row */
#define LARGE_NARRATIVE_ROWS 8      /* large print: the narrative's rows at most, on a tall frame */

/* Wide frames (a body at least WIDE_MIN_W columns): the logical view beside
 * the memory strip, WIDE_GAP apart, cells up to WIDE_CELL_MAX columns. */
#define WIDE_MIN_W 150
#define WIDE_GAP 4
#define WIDE_CELL_MAX 16
#define WIDE_LEAD_MAX 3 /* blank rows between two rows of cells, at most */
#define WIDE_TOP_GAP 2  /* blank rows above the picture, and under it before the narrative */

/* Frame heights (rows) from which a taller frame gets more room: */
#define TALL_NARRATIVE_H 30 /* a 4-line narrative, a blank row above it for the inspect line */
#define TALL_GAP1_H 36      /* one blank row under the title and one over the code line (Ctx.tg) */
#define TALL_GAP2_H 50      /* two of each */

/* Drawing context: the canvas, the run, the state (cursor clamped), and an
 * optional hit test (scene_click) filled by the cell drawers. */
typedef struct Ctx {
    Canvas *c;
    const Mha *m;
    SceneState s;
    int x0, y0, w, h;
    int tg;        /* tall frames: blank rows under the title and over the code line */
    int code_rows; /* rows of the code line, the same for every step of the run (top_code_rows) */
    int prog_rows; /* rows of the program, the same for every step (top_program_rows) */
    int hx, hy;    /* point to hit-test; -1: none */
    int hit;       /* 0 none, 1 a logical cell, 2 a storage cell */
    int hidx[4];   /* logical index hit */
    long hoff;     /* storage offset hit */
} Ctx;

/* Which head a storage offset belongs to: axis `axis` of t is the head index,
 * or (axis -1) the last axis divided by dh.  When wrap > 0 the formula
 * (offset % wrap) / dh % heads is used instead (scene_candy_bar). */
typedef struct HeadMap {
    const Tensor *t; /* NULL and wrap 0: no colour */
    int axis, dh;
    long wrap;
    int heads;
} HeadMap;

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
    int tagfmt; /* 0 "h0 the", 1 "h0 t3", 2 "0,3", each after "b1 " (or "1,") when
                 * B > 1: the first that fits every run */
    /* Rows per storage row (1: "off value" on one line; 2: offset above
     * value; 3: and the cell's head below, "h1"), chosen on tall frames. */
    int pitch;
    int lead; /* wide frames: blank rows between storage rows (0 elsewhere) */
    /* A click on a cell selects the element of this tensor stored there (a
     * logical hit) instead of the storage offset of the inspected tensor:
     * step 8's source bar, whose storage is not the inspected one's. */
    const Tensor *hit_t;
    int tokens; /* (B, S, D) with no heads: a tall cell names its token instead */
    /* The rope step: `marks` rows reserved for the marks of one head's
     * pairs: one under each of the nmark storage rows from markr (-1: none
     * yet, bar_pairs_row sets it) that one token's floats span, and in large
     * print one more, the legend's, under the last. */
    int marks, markr, nmark;
    int large; /* planned in large print (bar_plan_s): cells twice as wide */
} Bar;

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
    int lead;  /* wide frames: blank rows between visual rows (0 elsewhere) */
    int nohit; /* a picture to compare with, not the inspected tensor: clicks pass through */
    /* Stacked, short of rows: head blocks `bcols` to a row of blocks, each w
     * wide (labels and all), BLOCK_GAP apart, every head and token shown. */
    int bcols, fullw;
} Grid;

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
    int bare; /* values asked for (SceneState.values): 5-wide cells of the value alone, shaded
                 by colour, no sum column, so more blocks fit a row */
} Heat;

/* Where a heatmap's weights come from: a (B, Hd, S, S) tensor of weights.
 * Rows are read one at a time, so a big run costs only what is drawn. */
typedef struct HeatSrc {
    const Tensor *t;
    int causal;
} HeatSrc;

/* The step's sections, planned: the candy bar (and step 8's source bar),
 * then the logical grid at gy, need rows, its cells gpitch rows tall. */
typedef struct StepPlan {
    Bar src, bar;
    int gx, gy, gw, need, gpitch; /* the grid's column, row, width, rows and pitch */
    int glead;                    /* blank rows between the grid's rows (Grid.lead) */
    int bar_room;                 /* rows the bar's section may use (body_kv_share) */
    int wide;                     /* the grid beside the bars (plan_step_wide), cells widened */
    int lift;                     /* wide: rows left blank under the body, the narrative's */
    int spare, ngaps;             /* tall: the blank rows spread over ngaps gaps */
} StepPlan;

/* The softmax step on a tall frame: the candy bar (not on MV_NO_SCALE) at
 * bar.y, the heatmaps' title at hy, hh rows of heatmaps with cells ph rows
 * tall under it; the rows left spread between.  bar.wrap 0: no bar. */
typedef struct SoftPlan {
    Bar bar;
    int hy, hh, ph;
    int stack; /* MV_NO_SCALE: "without" under "with", each the full width */
    int spare, ngaps;
} SoftPlan;

/* What each step shows: its logical tensor, layout and program line (scene.c). */
extern const StepView scene_views[MS_ALL];

/* scenefmt.c: text in a width, numbers, the hit test, heads of offsets */
int sc_round(double v);
int sc_digits(long v);
int sc_text_fit(Canvas *c, int x, int y, int maxw, const char *str, Style st);
int sc_fitf(Canvas *c, int x, int y, int maxw, Style st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
void sc_fmt_num_dec(char *buf, size_t n, double v, int width, int dec);
void sc_fmt_num(char *buf, size_t n, double v, int width);
int sc_dec_fit(double v, int width);
int sc_word_w(int n);
void sc_hit_test(Ctx *x, int cx, int cy, int cw, int kind, const int *idx, long off);
HeadMap hm_of(const Tensor *t, int axis, int dh);
int sc_offset_index(const Tensor *t, long off, int *idx);
int hm_head(const HeadMap *h, long off);
HeadMap hm_step(const Mha *m, int tensor, int layout, int colour);
int sc_storage_row(const Mha *m, const Tensor *t);
long sc_copy_landed(const Ctx *x);
const char *sc_tensor_label(int step);
int sc_area_free(const Canvas *c, int x, int y, int w, int h);

/* candybar.c: the storage as a strip of cells */
void bar_plan_p(Bar *b, const Tensor *t, int base, int x, int y, int w, int h, int pitch);
void bar_plan(Bar *b, const Tensor *t, int base, int x, int y, int w, int h);
void bar_plan_s(const Ctx *x, Bar *b, const Tensor *t, int base, int bx, int y, int w, int h,
                int pitch);
void bar_plan_whole(const Ctx *x, Bar *b, const Tensor *t, int base, int bx, int y, int w, int h,
                    int pitch);
void bar_plan_tags(Bar *b, const Tensor *t, int base);
void bar_widen(Bar *b, int maxcw);
void bar_scroll(Bar *b, long lit);
int bar_rows_used(const Bar *b);
int bar_pos(const Bar *b, long o, int *px, int *py);
void bar_cell(Ctx *x, const Bar *b, long o, int px, int py, Style st, int empty, int head);
void bar_draw(Ctx *x, const Bar *b, const char *title, const HeadMap *hm, long lit, double sweep,
              long filled);
long bar_pairs_row(const Ctx *x, Bar *b, int *sel);
void bar_mark_pairs(Ctx *x, const Bar *b, const int *sel);

/* grid.c: the logical view */
int grid_block_rows(const Grid *g);
int grid_need_p(const Tensor *t, int layout, int dh, int stacked, int pitch);
int grid_need(const Tensor *t, int layout, int dh, int stacked);
void grid_plan_p(Grid *g, const Tensor *t, int layout, int dh, int b, int x, int y, int w, int h,
                 int stacked, int pitch);
void grid_widen(Grid *g, int maxvw);
int grid_used_w(const Grid *g);
void grid_scroll(Grid *g, const int *cur);
/* Without a cursor: the hidden rows scrolled into view, scroll rows (the
 * same tokens of every head when windowed) past the first, clamped; the
 * decimals picked again for the rows now shown.  0: unchanged.  Returns
 * the largest scroll that shows more (0: nothing hidden). */
int grid_scroll_by(Grid *g, int scroll);
/* Raises *s->scroll_limit (when set) to limit. */
static inline void scene_scroll_limit(const SceneState *s, int limit)
{
    if (s->scroll_limit && *s->scroll_limit < limit) *s->scroll_limit = limit;
}
void grid_draw(Ctx *x, const Grid *g, const char *title, const HeadMap *hm, const int *cur);
void grid_draw_regroup(Ctx *x, const Grid *a, const Grid *b, const char *title, const HeadMap *hm,
                       double t);

/* heatmap.c: one S x S block of weights per head */
void heat_plan_p(Heat *p, int H, int S, int b, int x, int y, int w, int h, int pitch);
void heat_plan(Heat *p, int H, int S, int b, int x, int y, int w, int h);
int heat_rows_used(const Heat *p);
void heat_row(const HeatSrc *src, int b, int h, int s, float *row);
void heat_block(Ctx *x, const Heat *p, int slot, const HeatSrc *src, int head, const char *title,
                const int *cur, int hit_kind);
void heat_scroll(Heat *p, const int *cur, int slots);
/* SceneState.values: a plan whose cells are shade only made again with
 * every weight written (cells 6 wide), as many heads as fit, the others
 * hidden.  SceneState.scroll without a cursor: the next rows of blocks
 * (heads hidden; `slots` of the plan's are per-head maps) or the next
 * query rows, clamped. */
void heat_values(Heat *p);
int heat_scroll_by(Heat *p, int scroll, int slots); /* returns the largest useful scroll */
int heat_legend_w(void);
int heat_legend(Ctx *x, int px, int y);
void heat_set(Ctx *x, const Heat *p, const HeatSrc *src, int H, const HeatSrc *single,
              const int *cur, int hit_kind);

/* toprows.c: title, program, shape/strides panel */
/* The rows the program takes: PROGRAM_ROWS, or on a frame PROGRAM_FULL_H
 * rows tall all of its lines, so the body keeps its place from step to step. */
int top_program_rows(const Ctx *x);
void top_program(Ctx *x);
void top_panel(Ctx *x, const Tensor *before, const Tensor *after, int swap_hi);
void top_title(Ctx *x, const char *left);
void top_rows(Ctx *x, int bw);
/* The rows the code line takes in a bw-wide body: 1 below TALL_NARRATIVE_H
 * rows, else the most any step of the run needs for what it ran, wrapped (1
 * to CODE_ROWS_MAX), so the body keeps its place from step to step. */
int top_code_rows(const Ctx *x, int bw);

/* narrative.c: the sentences under the picture */
void narr_text(const Ctx *x, char *buf, size_t n);
void narr_single_why(const Ctx *x, char *buf, size_t n);
void narr_inspect_line(const Tensor *t, const char *name, const int *cur, char *buf, size_t n);

/* layout.c: how the body's rows are shared */
void plan_spread(const Ctx *x, int spare, int n, int *gap);
void plan_step(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh);
int plan_step_wide(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh);
int plan_step_tall(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh);
void plan_step_compact(const Ctx *x, StepPlan *p, int bx, int by, int bw, int bh);
int plan_softmax_tall(const Ctx *x, SoftPlan *sp, int bx, int by, int bw, int bh, int noscale);
int plan_wrong_tall(const Ctx *x, Bar *bar, int *gy, int *gp, int bx, int by, int bw, int bh,
                    int *spare);
int plan_body_spare(const Ctx *x, int bx, int by, int bw, int bh, int *ngaps);
int plan_body_lift(const Ctx *x, int bx, int by, int bw, int bh);

/* bodies.c: the body of a frame; the titles its sections need room for */
void body_grid_title(const Ctx *x, char *buf, size_t n);
int body_bar_min_w(const Ctx *x);
const Tensor *body_kv_tensor(const Ctx *x);
void body_step(Ctx *x, int bx, int by, int bw, int bh);
void body_softmax(Ctx *x, int bx, int by, int bw, int bh, int noscale);
void body_wrong(Ctx *x, int bx, int by, int bw, int bh);

#endif
