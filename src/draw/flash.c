/* flash.c - the Tiles frame (see draw/flash.h).
 *
 *   title       where the loop is: batch, head (its kv head), q tile, K/V tile
 *   the map     the head's S x S scores by tile: the one that exists now lit,
 *               the ones already streamed past, the ones to come, the skipped
 *   on chip     this tile's scores s (masked ones -inf), then m, l and O of
 *               each row of the q tile after it
 *   the bytes   HBM traffic so far and of the whole loop, naive against flash,
 *               and at real sizes; the proof line: O against head_out
 */
#include "draw/flash.h"

#include <math.h> /* INFINITY */
#include <stdio.h>

#include "base/textutil.h"
#include "content/kv.h" /* kv_fmt_int, kv_fmt_size: the numbers as kv and decode print them */

#define MAP_X 1 /* the tile map's left edge */
#define TOP 4   /* first row under the header */

static double ratio(FlashBytes b)
{
    return b.flash ? (double)b.naive / (double)b.flash : 0;
}

/* The state of tile (qt, kt) of the current head, as the map shows it. */
typedef enum { T_TODO, T_DONE, T_NOW, T_SKIP } TileState;

static TileState tile_state(const Flash *f, int qt, int kt)
{
    const MhaConfig *c = &f->m->cfg;
    if (flash_skips(c->seq, f->block_q, f->block_k, c->causal, qt, kt)) return T_SKIP;
    if (!f->started || f->done) return f->done ? T_DONE : T_TODO;
    if (qt < f->qtile || (qt == f->qtile && kt < f->ktile)) return T_DONE;
    return qt == f->qtile && kt == f->ktile ? T_NOW : T_TODO;
}

/* The map: one 2-column cell per tile (large: 4), rows [r0, r1) down, keys
 * across, at most xmax wide.  Returns the column right of it. */
static int draw_map(Canvas *c, const Flash *f, int y, int ymax, int xmax, int large)
{
    static const uint32_t glyph[] = {0x00B7, 0x2592, 0x2588, 0x00D7}; /* · ▒ █ × */
    static const Style style[] = {ST_DIM, ST_HEAD0, ST_LIT, ST_DIM};
    static const char *const legend[] = {"\u00B7 to come", "\u2592 streamed past",
                                         "\u2588 on chip now", "\u00D7 skipped"};
    int S = f->m->cfg.seq, top = y;
    canvas_printf(c, MAP_X, y++, ST_BOLD, "scores (%d, %d)", S, S);
    int gw = large ? 4 : 2, pitch = gw + 1; /* a tile's glyphs, and the column to the next */
    int cols = f->n_ktiles, rows = f->n_qtiles, room = (xmax - MAP_X - 6) / pitch;
    if (cols > room) cols = room;
    if (rows > ymax - y - 5) rows = ymax - y - 5 > 1 ? ymax - y - 5 : 1;
    for (int qt = 0; qt < rows; qt++, y++) {
        canvas_printf(c, MAP_X, y, qt == f->qtile ? ST_BOLD : ST_DIM, "q%-3d", qt);
        for (int kt = 0; kt < cols; kt++) {
            TileState t = tile_state(f, qt, kt);
            for (int g = 0; g < gw; g++)
                canvas_put(c, MAP_X + 5 + pitch * kt + g, y, glyph[t], style[t]);
        }
        if (cols < f->n_ktiles) canvas_text(c, MAP_X + 5 + pitch * cols, y, "+", ST_DIM);
    }
    if (rows < f->n_qtiles) canvas_printf(c, MAP_X, y++, ST_DIM, "+%d more", f->n_qtiles - rows);
    for (int k = 0; k < 4 && y < ymax; k++)
        canvas_text(c, MAP_X, y++, legend[k], k == T_NOW ? ST_LIT : ST_DIM);
    (void)top;
    int right = MAP_X + 5 + pitch * cols + 1;
    return right > MAP_X + 17 ? right : MAP_X + 17;
}

/* A number for the screen in at most 7 columns, right-aligned: as many
 * significant digits as fit, 4 at most (JSON and --plain have them all). */
static void num(Canvas *c, int x, int y, Style st, float v)
{
    char b[32];
    if (v == -INFINITY) {
        canvas_text(c, x, y, "   -inf", ST_DIM);
        return;
    }
    for (int p = 4; p >= 1; p--)
        if (snprintf(b, sizeof b, "%7.*g", p, (double)v) <= 7) break;
    canvas_text(c, x, y, b, st);
}

/* This tile's scores and the rows' state after it, from column x. */
static void draw_chip(Canvas *c, const Flash *f, int x, int y, int ymax)
{
    int dh = f->m->d_head, nr = f->r1 - f->r0, nc = f->c1 - f->c0, xmax = c->w - 1;
    if (!f->started || f->done) {
        canvas_text(c, x, y,
                    f->done ? "the loop is done: every O row written once"
                            : "nothing on chip yet: Space runs the first tile",
                    ST_BOLD);
        return;
    }
    int masked = flash_tile_masked(f);
    canvas_printf(c, x, y++, ST_BOLD, "on chip: Q rows [%d, %d), K and V keys [%d, %d)", f->r0,
                  f->r1, f->c0, f->c1);
    if (masked)
        canvas_printf(c, x, y++, ST_WARN, "s = Q K^T * %.4g (%d of %d above the diagonal: -inf)",
                      (double)f->m->scale, masked, nr * nc);
    else
        canvas_printf(c, x, y++, ST_NORMAL, "s = Q K^T * %.4g, this tile only",
                      (double)f->m->scale);
    int shown = nr, half = (ymax - y - 2) / 2;
    if (shown > half) shown = half < 1 ? 1 : half;
    for (int r = 0; r < shown; r++, y++) {
        canvas_printf(c, x, y, ST_DIM, "r%d", f->r0 + r);
        int k = 0;
        for (; k < nc && x + 5 + 8 * (k + 1) + 4 <= xmax; k++)
            num(c, x + 5 + 8 * k, y, ST_NORMAL, f->s[(size_t)r * nc + k]);
        if (k < nc) canvas_printf(c, x + 5 + 8 * k + 1, y, ST_DIM, "+%d", nc - k);
    }
    if (shown < nr) canvas_printf(c, x, y++, ST_DIM, "(+%d row%s)", nr - shown, text_s(nr - shown));
    canvas_text(c, x, y++,
                f->last ? "after this tile, final (O written to HBM):"
                        : "after this tile:  m, l, O = acc / l",
                ST_BOLD);
    for (int r = 0; r < nr && y < ymax; r++, y++) {
        if (y == ymax - 1 && r < nr - 1) {
            canvas_printf(c, x, y, ST_DIM, "(+%d rows: a taller terminal shows them)", nr - r);
            break;
        }
        canvas_printf(c, x, y, ST_DIM, "r%d", f->r0 + r);
        canvas_text(c, x + 4, y, "m", ST_DIM);
        num(c, x + 5, y, ST_NORMAL, f->tm[r]);
        canvas_text(c, x + 13, y, "l", ST_DIM);
        num(c, x + 14, y, ST_NORMAL, f->tl[r]);
        canvas_text(c, x + 22, y, "O", ST_DIM);
        int i = 0;
        for (; i < dh && x + 24 + 8 * (i + 1) + 3 <= xmax; i++)
            num(c, x + 24 + 8 * i, y, f->last ? ST_GOOD : ST_NORMAL, f->tO[(size_t)r * dh + i]);
        if (i < dh) canvas_printf(c, x + 24 + 8 * i + 1, y, ST_DIM, "+%d", dh - i);
    }
}

void flash_draw(Canvas *c, const Flash *f, int large)
{
    const MhaConfig *cfg = &f->m->cfg;
    char a[40], b[40], d[40], line[200];
    if (f->started && !f->done)
        canvas_printf(c, 1, 0, ST_TITLE,
                      "Tiles: batch %d, head %d (kv head %d), q tile %d, K/V tile %d", f->b, f->h,
                      f->kv, f->qtile, f->ktile);
    else
        canvas_text(c, 1, 0, "Tiles: FlashAttention-2's loop, one tile at a time", ST_TITLE);
    canvas_printf(c, 1, 1, ST_NORMAL,
                  "B %d, S %d, H %d, KV %d, dh %d%s; block_q %d, block_k %d: %d x %d tiles a head",
                  cfg->batch, cfg->seq, cfg->heads, cfg->kv_heads, f->m->d_head,
                  cfg->causal ? ", causal" : "", f->block_q, f->block_k, f->n_qtiles, f->n_ktiles);
    canvas_text(c, 1, 2,
                "a q tile on chip, K/V tiles streaming past: the S x S scores are never written",
                ST_DIM);
    int ymax = c->h - 6;
    int x = draw_map(c, f, TOP, ymax, c->w / 3, large);
    draw_chip(c, f, x + 1, TOP, ymax);

    int y = c->h - 6;
    canvas_printf(c, 1, y++, ST_NORMAL,
                  "HBM so far: read %s B, wrote %s B; tiles run %ld, skipped %ld",
                  kv_fmt_int(a, sizeof a, f->bytes_read), kv_fmt_int(b, sizeof b, f->bytes_written),
                  f->visited, f->skipped);
    canvas_printf(c, 1, y++, ST_NORMAL, "whole loop: naive %s B, flash %s B: naive / flash = %.2fx",
                  kv_fmt_int(a, sizeof a, f->bytes.naive), kv_fmt_int(b, sizeof b, f->bytes.flash),
                  ratio(f->bytes));
    FlashBytes r = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 0);
    int n =
        snprintf(line, sizeof line, "S 8192, dh 128, 64 heads: naive %s, flash %s (%.2fx)",
                 kv_fmt_size(a, sizeof a, r.naive), kv_fmt_size(b, sizeof b, r.flash), ratio(r));
    snprintf(line + n, sizeof line - (size_t)n, "; the scores alone %s at fp16",
             kv_fmt_size(d, sizeof d, 64ULL * 8192 * 8192 * 2));
    if (canvas_text_width(line) > c->w - 2) line[n] = 0;
    canvas_text(c, 1, y++, line, ST_NORMAL);
    canvas_text(c, 1, y++,
                c->w >= 100
                    ? "no attention map to return: it is never formed.  flash-attn takes q as "
                      "(B, S, H, dh): no transpose"
                    : "the attention map is never formed; flash-attn takes q (B, S, H, dh)",
                ST_DIM);
    if (f->rows_done) {
        long all = (long)cfg->batch * cfg->heads * cfg->seq;
        float e = flash_check(f);
        snprintf(a, sizeof a, "%.3g", (double)e);
        canvas_printf(c, 1, y, e < 1e-5f ? ST_GOOD : ST_BAD,
                      "%ld of %ld O rows written once: = head_out (largest difference %s)",
                      f->rows_done, all, a);
    }
}
