/* decode.c - the decode frame (see draw/decode.h).
 *
 *   title      layout, MHA/GQA/MQA
 *   the step   prefill or token t, its shapes, where RoPE acts, the cache write
 *   the cache  K's storage, one row per cap*dh floats: each cell shows the token
 *              it holds (coloured by kv head), empty slots dotted, this step's lit
 *   the read   the (B, KV, T, dh) view and its stride-0 expand: GQA after reading
 *   scores     one row per query head over the T cached tokens
 *   bytes      written and read this step and since the prefill
 */
#include "draw/decode.h"

#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
#include "draw/variants.h"

/* Heat level of a softmax weight (the scene's scale: 0.05 0.2 0.4 0.7). */
static int level(double v)
{
    return v < 0.05 ? 0 : v < 0.2 ? 1 : v < 0.4 ? 2 : v < 0.7 ? 3 : 4;
}

static const char *kind(const MhaConfig *c)
{
    return c->kv_heads == c->heads ? "MHA" : c->kv_heads == 1 ? "MQA" : "GQA";
}

static int draw_step_lines(Canvas *c, const Decode *d, int y)
{
    char a[64], b[64], s[160];
    const MhaConfig *cfg = &d->m->cfg;
    if (d->n > 1)
        canvas_printf(c, 1, y++, ST_BOLD, "prefill: the %d prompt tokens in one block (%s .. %s)",
                      d->n, mha_token_word(0), mha_token_word(d->n - 1));
    else
        canvas_printf(c, 1, y++, ST_BOLD, "decode: token %d \"%s\", one query row", d->start,
                      mha_token_word(d->start));
    canvas_printf(c, 1, y++, ST_NORMAL, "q %s over K, V %s",
                  tensor_fmt_dims(a, sizeof a, d->q->ndim, d->q->shape),
                  tensor_fmt_dims(b, sizeof b, d->k_read->ndim, d->k_read->shape));
    if (cfg->rope != ROPE_OFF) {
        snprintf(s, sizeof s, "q, k = rope(q, pos), rope(k, pos)  # %s, pos %d..%d",
                 rope_layout_name(cfg->rope), d->start, d->start + d->n - 1);
        canvas_text(c, 1, y++, s, ST_CODE);
    } else {
        canvas_text(c, 1, y, "k = k", ST_CODE);
        canvas_text(c, 19, y++, "# no RoPE here (--rope half|interleaved rotates k first)", ST_DIM);
    }
    if (d->block_size) { /* the pool: through the table, new blocks as sequences grow */
        /* the last write the interpreter ran: one token of one sequence */
        canvas_text(c, 1, y, d->write_code, ST_CODE_HI);
        int x = (int)strlen(d->write_code) + 3;
        snprintf(s, sizeof s, "# table[b][t // %d], t %% %d", d->block_size, d->block_size);
        x += canvas_text(c, x, y, s, ST_DIM) + 2;
        if (d->n_new_blocks) {
            x += canvas_printf(c, x, y, ST_WARN, "new block%s", text_s(d->n_new_blocks));
            for (int i = 0; i < d->n_new_blocks && i < 64 && x < c->w - 4; i++)
                x += canvas_printf(c, x, y, ST_WARN, " %d", d->new_blocks[i]);
        } else {
            canvas_text(c, x, y, "no new block", ST_DIM);
        }
        y++;
        if (d->prefix) { /* the copy-on-write line, there at every step so rows stay put */
            int tail = d->prefix % d->block_size;
            if (!d->n_cow) {
                canvas_text(c, 1, y++,
                            tail ? "copy-on-write: none this step"
                                 : "copy-on-write: no partial "
                                   "prefix block to copy",
                            ST_DIM);
            } else {
                x = 1 + canvas_text(c, 1, y, "copy-on-write:", ST_WARN);
                for (int i = 0; i < d->n_cow && x < c->w - 30; i++)
                    x += canvas_printf(c, x, y, ST_WARN, " blk %d -> %d", d->cow_src[i],
                                       d->cow_dst[i]);
                canvas_printf(c, x, y++, ST_WARN, " (%d prefix token%s each, %s B)", tail,
                              text_s(tail), text_fmt_int(s, sizeof s, d->copied_step));
            }
        }
    } else if (d->window) { /* the rolling buffer: the last token's slot, and what it overwrote */
        int last = d->start + d->n - 1;
        snprintf(s, sizeof s, "%s  # slot = %d mod %d", d->write_code, last, d->window);
        canvas_text(c, 1, y, s, ST_CODE_HI);
        if (d->evicted >= 0) { /* beside it, or under it on a narrow screen */
            char o[64];
            snprintf(o, sizeof o, "overwrote token %d \"%s\"", d->evicted,
                     mha_token_word(d->evicted));
            int x = (int)strlen(s) + 3;
            if (x + (int)strlen(o) > c->w) x = 3, y++;
            canvas_text(c, x, y, o, ST_WARN);
        }
        y++;
    } else { /* the write the interpreter ran, as it ran */
        canvas_text(c, 1, y++, d->write_code, ST_CODE_HI);
    }
    (void)cfg;
    return y;
}

/* The paged pool, one row per block, one cell per token slot (KV x dh
 * floats): the token it holds in its sequence's colour, this step's lit,
 * free slots dotted; then each sequence's block table. */
static int draw_pool(Canvas *c, const Decode *d, int y, int large)
{
    const MhaConfig *cfg = &d->m->cfg;
    const int N = d->block_size;
    char a[64], b[64];
    canvas_printf(c, 1, y++, ST_NORMAL, "pool_k %s %s strides %s: %d/%d block%s",
                  d->layout == DECODE_META ? "NHD (blocks,N,KV,dh)" : "HND (blocks,KV,N,dh)",
                  tensor_fmt_dims(a, sizeof a, d->cache_k->ndim, d->cache_k->shape),
                  tensor_fmt_strides(b, sizeof b, d->cache_k), d->blocks_used, d->blocks,
                  text_s(d->blocks));
    int rows = d->blocks, cw = large ? 6 : 3;
    if (rows > c->h - 13 - y) rows = c->h - 13 - y;
    if (rows < 1) rows = 1;
    int shown = N;
    while (7 + shown * cw > c->w - 1 && shown > 1)
        shown--;
    for (int r = 0; r < rows; r++) {
        canvas_printf(c, 1, y + r, ST_DIM, "blk%2d", r);
        for (int k = 0; k < shown; k++)
            canvas_put(c, 7 + k * cw, y + r, 0x00B7, ST_DIM);
        int x = 7 + shown * cw;
        if (shown < N) x += canvas_printf(c, x, y + r, ST_DIM, "+%d", N - shown) + 1;
        const char *why =
            r < d->shared_blocks ? ": prefix, stored once" : ": partial prefix, copied on write";
        if ((int)strlen(why) + 6 > c->w - 1 - x) why = "";     /* no room: the count alone */
        if (d->prefix && r < d->blocks_used && d->refs[r] > 1) /* shared: its tables counted */
            canvas_printf(c, x, y + r, ST_WARN, "ref %d%s", d->refs[r], why);
        else if (d->prefix && r < d->blocks_used)
            canvas_printf(c, x, y + r, ST_DIM, "ref %d", d->refs[r]);
    }
    for (int s = 0; s < cfg->batch; s++)
        for (int t = 0; t < d->len; t++) {
            int blk = d->table[s * d->max_blocks + t / N], k = t % N;
            if (blk < 0 || blk >= rows || k >= shown) continue;
            canvas_printf(c, 7 + k * cw, y + blk, t >= d->start ? ST_LIT : ST_HEAD(s), "%d",
                          t % 10);
        }
    y += rows;
    if (rows < d->blocks)
        canvas_printf(c, 1, y++, ST_DIM, "(%d more block%s: a taller terminal shows them)",
                      d->blocks - rows, text_s(d->blocks - rows));
    int x = 1;
    for (int s = 0; s < cfg->batch && x < c->w - 8; s++) {
        x += canvas_printf(c, x, y, ST_HEAD(s), "%stable s%d [", s ? "  " : "", s);
        for (int j = 0; j < d->max_blocks && d->table[s * d->max_blocks + j] >= 0; j++)
            x += canvas_printf(c, x, y, ST_HEAD(s), "%s%d", j ? " " : "",
                               d->table[s * d->max_blocks + j]);
        x += canvas_text(c, x, y, "]", ST_HEAD(s));
    }
    y++;
    if (d->prefix)
        canvas_printf(c, 1, y++, ST_DIM,
                      "x: the %d sequences share tokens 0..%d (\"%s\" .. \"%s\")", cfg->batch,
                      d->prefix - 1, mha_token_word(0), mha_token_word(d->prefix - 1));
    else
        canvas_text(c, 1, y++,
                    "a row: one block of N token slots; a cell: the token it holds (sequence "
                    "colour)",
                    ST_DIM);
    return y;
}

/* K's storage as rows of cap * dh cells (large: twice as wide, as the
 * width allows). */
static int draw_cache(Canvas *c, const Decode *d, int y, int large)
{
    if (d->block_size) return draw_pool(c, d, y, large);
    const MhaConfig *cfg = &d->m->cfg;
    int dh = d->m->d_head, per_row = d->slots * dh, cw = large ? 6 : 3;
    char a[64], b[64], w[48] = "";
    if (d->window) snprintf(w, sizeof w, " slots, t mod %d", d->window);
    canvas_printf(c, 1, y++, ST_NORMAL, "cache_k %s %s strides %s: %d/%d%s",
                  d->layout == DECODE_HF ? "HF (B,KV,T,dh)" : "Meta (B,T,KV,dh)",
                  tensor_fmt_dims(a, sizeof a, d->cache_k->ndim, d->cache_k->shape),
                  tensor_fmt_strides(b, sizeof b, d->cache_k),
                  d->len < d->slots ? d->len : d->slots, d->slots, w);
    while (per_row * cw + 8 > c->w && cw > 2)
        cw--;
    /* every storage cell: a dot while empty, the token it holds once written */
    size_t n = tensor_numel(d->cache_k);
    int rows = (int)((n + (size_t)per_row - 1) / (size_t)per_row);
    if (rows > c->h - 11 - y) rows = c->h - 11 - y;
    for (int r = 0; r < rows; r++) {
        canvas_printf(c, 1, y + r, ST_DIM, "%5d", r * per_row);
        for (int k = 0; k < per_row; k++)
            canvas_put(c, 7 + k * cw, y + r, 0x00B7, ST_DIM);
    }
    for (int bb = 0; bb < cfg->batch; bb++)
        for (int kv = 0; kv < cfg->kv_heads; kv++)
            for (int t = 0; t < d->len; t++)
                for (int i = 0; i < dh; i++) {
                    size_t off = decode_cache_offset(d, bb, kv, t, i);
                    int r = (int)(off / (size_t)per_row), k = (int)(off % (size_t)per_row);
                    if (r >= rows) continue;
                    /* this step's token lit, the others in their kv head's colour */
                    Style st = t >= d->start ? ST_LIT : ST_HEAD(kv);
                    canvas_printf(c, 7 + k * cw, y + r, st, "%d", t % 10);
                }
    canvas_text(c, 1, y + rows,
                "a cell: the token whose k it holds (kv head colour; lit: this step), · empty",
                ST_DIM);
    return y + rows + 1;
}

static int draw_read(Canvas *c, const Decode *d, int y)
{
    char a[64], b[64], e[64], f[64];
    if (d->block_size)
        canvas_printf(c, 1, y++, ST_NORMAL,
                      "gather K %s through the tables: a copy, %s B of K and V read",
                      tensor_fmt_dims(a, sizeof a, d->k_read->ndim, d->k_read->shape),
                      text_fmt_int(e, sizeof e, d->read_step));
    else
        canvas_printf(c, 1, y++, ST_NORMAL, "read K %s strides %s (a view, no copy)",
                      tensor_fmt_dims(a, sizeof a, d->k_read->ndim, d->k_read->shape),
                      tensor_fmt_strides(b, sizeof b, d->k_read));
    if (d->m->groups > 1)
        canvas_printf(c, 1, y++, ST_NORMAL, "expand %s strides %s: shared after reading",
                      tensor_fmt_dims(e, sizeof e, d->k_shared->ndim, d->k_shared->shape),
                      tensor_fmt_strides(f, sizeof f, d->k_shared));
    else
        canvas_text(c, 1, y++, "MHA: each query head has its own kv head", ST_DIM);
    return y;
}

/* One scores row per query head: the last query row of this step. */
static int draw_scores(Canvas *c, const Decode *d, int y, int ymax)
{
    const MhaConfig *cfg = &d->m->cfg;
    int G = d->m->groups, T = d->attn->shape[4], row = d->n - 1;
    const char *word = mha_token_word(d->start + row);
    if (d->n > d->slots) /* the window's prefill: over its own tokens, the band masked */
        canvas_printf(c, 1, y++, ST_NORMAL,
                      "softmax of \"%s\" over the prefill's %d tokens, band i - %d < j <= i", word,
                      T, d->window);
    else if (d->window)
        canvas_printf(c, 1, y++, ST_NORMAL,
                      "softmax of \"%s\" over the window's %d slot%s (slot order), per query head",
                      word, T, text_s(T));
    else
        canvas_printf(c, 1, y++, ST_NORMAL,
                      "softmax of \"%s\" over the %d cached token%s, per query head", word, T,
                      text_s(T));
    for (int h = 0; h < cfg->heads && y < ymax; h++, y++) {
        int kv = h / G, g = h % G;
        if (y == ymax - 1 && h < cfg->heads - 1) { /* no room for the rest: say so */
            canvas_printf(c, 1, y++, ST_DIM, "(%d more query heads: a taller terminal shows them)",
                          cfg->heads - h);
            break;
        }
        canvas_printf(c, 1, y, ST_HEAD(kv), "q%d->kv%d", h, kv);
        for (int t = 0; t < T; t++) {
            int idx[5] = {0, kv, g, row, t};
            float v = tensor_get(d->attn, idx);
            int x = 10 + t * 5;
            if (x + 4 >= c->w - 9 && t < T - 1) { /* the rest, counted */
                canvas_printf(c, x, y, ST_DIM, "+%d more", T - t);
                break;
            }
            canvas_printf(c, x, y, ST_HEAT(level(v)), "%4.2f", (double)v);
        }
    }
    return y;
}

static void draw_frame(Canvas *c, const Decode *d, double check, int rank, int rope_dim, int large);

void decode_draw(Canvas *c, const Decode *d, double check, int large)
{
    draw_frame(c, d, check, 0, 0, large);
}

void decode_draw_mla(Canvas *c, const Decode *d, double check, int rank, int rope_dim, int large)
{
    draw_frame(c, d, check, rank, rope_dim, large);
}

static void draw_frame(Canvas *c, const Decode *d, double check, int rank, int rope_dim, int large)
{
    const MhaConfig *cfg = &d->m->cfg;
    canvas_printf(c, 1, 0, ST_TITLE, "Decode with a KV cache: %s, %d query head%s, %d kv head%s",
                  kind(cfg), cfg->heads, text_s(cfg->heads), cfg->kv_heads, text_s(cfg->kv_heads));
    int y = draw_step_lines(c, d, 1);
    y = draw_cache(c, d, y, large);
    y = draw_read(c, d, y);
    char a[40], b[40], e[40], step[128], total[128];
    snprintf(step, sizeof step, "step: wrote %s B, read %s B of cache",
             text_fmt_int(a, sizeof a, d->written_step), text_fmt_int(b, sizeof b, d->read_step));
    snprintf(total, sizeof total, "since prefill: wrote %s B, read %s B",
             text_fmt_int(a, sizeof a, d->written_total), text_fmt_int(b, sizeof b, d->read_total));
    if (d->prefix) { /* the copy-on-write copies are written bytes too: said apart */
        size_t n = strlen(total);
        snprintf(total + n, sizeof total - n, ", copied %s B",
                 text_fmt_int(e, sizeof e, d->copied_total));
    }
    int one_line = (int)(strlen(step) + 3 + strlen(total)) <= c->w - 2; /* else two rows */
    int ymax = c->h - 3 - !one_line;
    if (rank > 0) /* MLA's latent strip in place of the scores */
        y += variants_draw_mla_strip(c, 1, y, c->w - 2, cfg, rank, rope_dim, d->len);
    else
        y = draw_scores(c, d, y, ymax);
    if (one_line) {
        canvas_printf(c, 1, c->h - 3, ST_NORMAL, "%s   %s", step, total);
    } else {
        canvas_text(c, 1, c->h - 4, step, ST_NORMAL);
        canvas_text(c, 1, c->h - 3, total, ST_NORMAL);
    }
    if (check >= 0) {
        snprintf(a, sizeof a, "%g", check);
        snprintf(b, sizeof b, "%d..%d", d->start, d->start + d->n - 1);
        canvas_printf(c, 1, c->h - 2, check < 1e-5 ? ST_GOOD : ST_BAD,
                      "rows %s = the full causal pass at those rows (largest difference %s)", b, a);
    }
    (void)y;
}
