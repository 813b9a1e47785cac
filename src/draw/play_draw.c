/* play_draw.c - a playground result on a canvas (see play_draw.h). */
#include "draw/play_draw.h"

#include "base/textutil.h"
#include "engine/tensorops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ORDER_CAP 200000 /* reads walked to light the cells; an expand can ask for more */

/* The first read order of each storage offset in [lo, lo + n): order[i] =
 * -1 when unread; reread[i] when read more than once (an expanded tensor). */
static void read_orders(const Tensor *t, long lo, long n, long *order, char *reread)
{
    for (long i = 0; i < n; i++)
        order[i] = -1, reread[i] = 0;
    size_t numel = tensorops_numel(t);
    if (numel > ORDER_CAP) numel = ORDER_CAP;
    int idx[TENSOR_MAXDIM] = {0};
    for (size_t k = 0; k < numel; k++) {
        long off = (long)tensor_offset_of(t, idx) - lo;
        if (off >= 0 && off < n) {
            if (order[off] < 0)
                order[off] = (long)k;
            else
                reread[off] = 1;
        }
        for (int i = t->ndim - 1; i >= 0; i--) {
            if (++idx[i] < t->shape[i]) break;
            idx[i] = 0;
        }
    }
}

int play_draw_bar(Canvas *c, int x, int y, int w, int maxh, const Tensor *t)
{
    long total = (long)t->st->n, cw = 4;
    if (total > 9999) cw = 5;
    if (total > 99999) cw = 8;
    long per_row = (w - 8) / cw;
    if (per_row < 1 || maxh < 2) return 0;
    long lo = ((long)t->offset / per_row) * per_row, rows = maxh / 2;
    long n = per_row * rows;
    if (lo + n > total) n = total - lo;
    if (n < 0) n = 0;
    long *order = malloc(sizeof *order * (size_t)(n ? n : 1));
    char *reread = malloc((size_t)(n ? n : 1));
    if (!order || !reread) {
        free(order);
        free(reread);
        return 0;
    }
    read_orders(t, lo, n, order, reread);
    int used = 0;
    long last = t->ndim ? t->shape[t->ndim - 1] : 1;
    for (long r = 0; r * per_row < n && used + 2 <= maxh; r++) {
        canvas_text(c, x, y + used, "offset", ST_DIM);
        canvas_text(c, x, y + used + 1, "reads", ST_DIM);
        for (long i = 0; i < per_row && r * per_row + i < n; i++) {
            long k = r * per_row + i, cx = x + 8 + i * cw;
            char buf[32];
            snprintf(buf, sizeof buf, "%*ld", (int)cw - 1, lo + k);
            canvas_text(c, (int)cx, y + used, buf, ST_DIM);
            if (order[k] < 0) {
                snprintf(buf, sizeof buf, "%*s", (int)cw - 1, ".");
                canvas_text(c, (int)cx, y + used + 1, buf, ST_DIM);
            } else {
                snprintf(buf, sizeof buf, "%*ld%s", (int)(cw - 1 - reread[k]) & 15,
                         order[k] % 100000000, reread[k] ? "+" : "");
                Style st = ST_HEAD(last > 0 ? order[k] / last : 0);
                canvas_text(c, (int)cx, y + used + 1, buf, st);
            }
        }
        used += 2;
    }
    if (lo + n < total && used < maxh)
        used += canvas_printf(c, x, y + used, ST_DIM, "... %ld more storage elements",
                              total - lo - n) > 0;
    else if (lo > 0 && used < maxh)
        used += canvas_printf(c, x, y + used, ST_DIM, "(elements 0..%ld not shown)", lo - 1) > 0;
    free(order);
    free(reread);
    return used;
}

static void fmt_dims(char *buf, size_t n, int nd, const int *d, const long *l)
{
    size_t k = (size_t)snprintf(buf, n, "(");
    for (int i = 0; i < nd && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%ld", i ? ", " : "", d ? (long)d[i] : l[i]);
    if (k < n) snprintf(buf + k, n - k, nd == 1 ? ",)" : ")");
}

static int draw_tensor(Canvas *c, int x, int y, int w, int h, const PlayResult *r)
{
    const Tensor *t = r->t;
    char sh[128], st[160];
    int row = 0;
    fmt_dims(sh, sizeof sh, t->ndim, t->shape, NULL);
    fmt_dims(st, sizeof st, t->ndim, NULL, t->strides);
    canvas_printf(c, x, y + row++, ST_BOLD, "shape %s   strides %s   offset %zu", sh, st,
                  t->offset);
    char nn[32], nb[32];
    canvas_printf(
        c, x, y + row++, ST_NORMAL, "storage S%d: %s x %s (%s bytes)   %s", t->st->id,
        text_fmt_int(nn, sizeof nn, t->st->n), play_dtype_name(r->dtype),
        text_fmt_int(nb, sizeof nb, (unsigned long long)t->st->n * play_dtype_size(r->dtype)),
        tensorops_is_contiguous(t) ? "contiguous" : "not contiguous");
    char mem[96];
    canvas_text(c, x, y + row, play_memory_text(r, mem, sizeof mem),
                r->memory == PM_COPY                           ? ST_WARN
                : r->memory == PM_VIEW || r->memory == PM_SAME ? ST_GOOD
                                                               : ST_NORMAL);
    row++;
    if (r->shares[0]) {
        int k = canvas_text(c, x, y + row, "shares its storage with: ", ST_DIM);
        canvas_text(c, x + k, y + row++, r->shares, ST_NORMAL);
    }
    if (r->warning[0]) row += canvas_wrap(c, x, y + row, w, 2, r->warning, ST_WARN);
    row++;
    if (row < h) row += play_draw_bar(c, x, y + row, w, h - row, t);
    return row;
}

int play_draw_result(Canvas *c, int x, int y, int w, int h, const PlayResult *r, const char *stmt)
{
    int row = 0;
    if (h < 1 || r->kind == PR_EMPTY) return 0;
    canvas_printf(c, x, y + row++, ST_CODE_HI, ">>> %s", stmt);
    if (r->kind == PR_ERROR) {
        if (r->error_col >= 0 && row < h)
            canvas_put(c, x + 4 + r->error_col, y + row++, '^', ST_BAD);
        row += canvas_wrap(c, x, y + row, w, h - row, r->error, ST_BAD);
        return row;
    }
    if (r->kind == PR_VALUE || r->kind == PR_TUPLE) {
        if (r->warning[0]) row += canvas_wrap(c, x, y + row, w, 2, r->warning, ST_WARN);
        canvas_text(c, x, y + row++, r->value_text, ST_BOLD);
        return row;
    }
    return row + draw_tensor(c, x, y + row, w, h - row, r);
}
