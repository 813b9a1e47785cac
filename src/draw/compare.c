/* compare.c - two runs at the same step (compare.h).
 *
 * Side by side (CMP_SIDE) or stacked (CMP_STACK), each run is the whole
 * scene (scene_draw) under a label row, and the rows under both list the
 * step's tensors that differ.  Short of room (CMP_COMPACT: 80x24 up to a
 * frame too narrow for two scenes), each run is a block: its label and the
 * bytes it copied, one row per tensor of the step (shape, strides, storage
 * and its bytes, view or new), a field that differs from the other run's
 * marked, then the step's storage as a candy bar in the rows left.
 */
#include "draw/compare.h"

#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
#include "draw/scene.h"

#define DIFF_MAX 10 /* tensors a step names: inputs (at most 4), what it made */

static const char *kind_of(const MhaConfig *c)
{
    return c->kv_heads == c->heads ? "MHA" : c->kv_heads == 1 ? "MQA" : "GQA";
}

void compare_label(char *buf, size_t n, const MhaConfig *c)
{
    snprintf(buf, n, "B%d S%d D%d H%d KV%d (%s)%s", c->batch, c->seq, c->d_model, c->heads,
             c->kv_heads, kind_of(c), c->causal ? " causal" : "");
}

CompareLayout compare_layout(int w, int h)
{
    /* a label row over each scene, the differences (DIFF_MAX rows at most)
     * and the status under them */
    if (w >= 2 * SCENE_MIN_W + 1 && h >= SCENE_MIN_H + 2 + DIFF_MAX) return CMP_SIDE;
    if (h >= 2 * (SCENE_MIN_H + 1) + DIFF_MAX + 1) return CMP_STACK;
    return CMP_COMPACT;
}

/* The tensors of a step in either run, each once (a GQA run's scores step
 * makes K_expand, an MHA run's does not). */
static int step_tensors(const Mha *a, const Mha *b, int step, int *ts)
{
    return mha_step_tensors(a, b, step, ts, DIFF_MAX);
}

enum { D_SHAPE = CMP_D_SHAPE, D_STRIDES = CMP_D_STRIDES, D_STORAGE = CMP_D_STORAGE };
#define tensor_diff compare_tensor_diff

int compare_tensor_diff(const Tensor *p, const Tensor *q)
{
    int d = 0;
    if (p->ndim != q->ndim || memcmp(p->shape, q->shape, (size_t)p->ndim * sizeof *p->shape))
        d |= D_SHAPE;
    if (p->ndim != q->ndim || memcmp(p->strides, q->strides, (size_t)p->ndim * sizeof *p->strides))
        d |= D_STRIDES;
    if (p->st->n != q->st->n) d |= D_STORAGE;
    return d;
}

static size_t pass_bytes(const Mha *m, int step)
{
    size_t total = 0;
    for (int i = 0; i <= step; i++)
        total += m->steps[i].bytes_copied;
    return total;
}

int compare_step_diffs(const Mha *a, const Mha *b, int step, int *bytes)
{
    int ts[DIFF_MAX], n, k = 0;
    if (step < 0 || step >= MS_COUNT) return 0;
    n = step_tensors(a, b, step, ts);
    for (int i = 0; i < n; i++)
        k += tensor_diff(a->t[ts[i]], b->t[ts[i]]) != 0;
    if (bytes)
        *bytes = a->steps[step].bytes_copied != b->steps[step].bytes_copied ||
                 pass_bytes(a, step) != pass_bytes(b, step);
    return k;
}

/* Text at (x, y) no wider than the room to xmax; returns the columns used. */
static int put(Canvas *c, int x, int y, int xmax, const char *s, Style st)
{
    char buf[256];
    int w = canvas_text_width(s);
    if (x >= xmax) return 0;
    if (w <= xmax - x) return canvas_text(c, x, y, s, st);
    snprintf(buf, sizeof buf, "%s", s);
    while (buf[0] && canvas_text_width(buf) > xmax - x)
        buf[strlen(buf) - 1] = 0;
    return canvas_text(c, x, y, buf, st);
}

static void fmt_bytes(char *buf, size_t n, size_t v)
{
    char num[32];
    snprintf(buf, n, "%s B", text_fmt_int(num, sizeof num, v));
}

/* The label row of a run: "A  B1 S4 D8 H2 KV2 (MHA)" and, on the right,
 * the bytes it copied at this step and so far. */
static void label_row(Canvas *c, int x, int y, int w, char tag, const Mha *m, int step, int mark)
{
    char lab[96], buf[160], sb[40], pb[40];
    int rw;
    compare_label(lab, sizeof lab, &m->cfg);
    snprintf(buf, sizeof buf, "%c  %s", tag, lab);
    canvas_fill(c, x, y, w, 1, ' ', ST_TITLE);
    put(c, x, y, x + w - 1, buf, ST_TITLE);
    fmt_bytes(sb, sizeof sb, m->steps[step].bytes_copied);
    fmt_bytes(pb, sizeof pb, pass_bytes(m, step));
    snprintf(buf, sizeof buf, "%scopied %s, pass %s", mark ? "* " : "", sb, pb);
    rw = canvas_text_width(buf);
    if (canvas_text_width(lab) + 6 + rw <= w - 1)
        canvas_text(c, x + w - 1 - rw, y, buf, mark ? ST_WARN : ST_GOOD);
}

/* One tensor of the step in a compact block: name, shape, strides, storage
 * and its bytes; the fields in `diff` (D_*) marked. */
static void tensor_row(Canvas *c, int x, int y, int xmax, const Mha *m, int ti, int diff,
                       const Tensor *out)
{
    const Tensor *t = m->t[ti];
    char d[64], s[64], sb[40], buf[160];
    int at = x;
    tensor_fmt_dims(d, sizeof d, t->ndim, t->shape);
    tensor_fmt_strides(s, sizeof s, t);
    fmt_bytes(sb, sizeof sb, t->st->n * sizeof(float));
    at += put(c, at, y, xmax, diff ? "* " : "  ", ST_WARN);
    snprintf(buf, sizeof buf, "%-9s", mha_tensor_names[ti]);
    at += put(c, at, y, xmax, buf, t == out ? ST_BOLD : ST_NORMAL);
    at += put(c, at, y, xmax, d, diff & D_SHAPE ? ST_WARN : ST_NORMAL) + 1;
    at += put(c, at, y, xmax, "strides ", ST_DIM);
    at += put(c, at, y, xmax, s, diff & D_STRIDES ? ST_WARN : ST_NORMAL) + 1;
    snprintf(buf, sizeof buf, "S%d %s", t->st->id, sb);
    put(c, at, y, xmax, buf, diff & D_STORAGE ? ST_WARN : ST_DIM);
}

/* A run as a compact block of h rows: label, the step's tensors, the bar. */
static void compact_block(Canvas *c, int x, int y, int w, int h, char tag, const Mha *m,
                          const Mha *other, int step, int mark_bytes)
{
    int ts[DIFF_MAX], n = step_tensors(m, other, step, ts), row = y + 1;
    const Tensor *out = m->t[m->steps[step].output];
    label_row(c, x, y, w, tag, m, step, mark_bytes);
    for (int i = 0; i < n && row < y + h; i++, row++)
        tensor_row(c, x, row, x + w - 1, m, ts[i], tensor_diff(m->t[ts[i]], other->t[ts[i]]), out);
    if (y + h - row >= 2) /* the output's storage, whole rows of its last axis to a line */
        scene_candy_bar(c, x + 2, row, w - 3, y + h - row, out, out->shape[out->ndim - 1], 0, 0,
                        -1);
}

/* The rows under two scenes: the tensors that differ, A's | B's. */
static void diff_rows(Canvas *c, int x, int y, int w, int h, const Mha *a, const Mha *b, int step)
{
    int ts[DIFF_MAX], n = step_tensors(a, b, step, ts), row = y + 1, bytes = 0;
    int k = compare_step_diffs(a, b, step, &bytes);
    char buf[400], da[64], db[64], sa[64], sb[64], ba[40], bb[40];
    put(c, x, y, x + w - 1,
        k || bytes ? "differences at this step (A | B):"
                   : "no difference at this step in shapes, strides, storage or bytes copied",
        k || bytes ? ST_BOLD : ST_GOOD);
    for (int i = 0; i < n && row < y + h; i++) {
        const Tensor *p = a->t[ts[i]], *q = b->t[ts[i]];
        int d = tensor_diff(p, q);
        if (!d) continue;
        tensor_fmt_dims(da, sizeof da, p->ndim, p->shape);
        tensor_fmt_dims(db, sizeof db, q->ndim, q->shape);
        tensor_fmt_strides(sa, sizeof sa, p);
        tensor_fmt_strides(sb, sizeof sb, q);
        fmt_bytes(ba, sizeof ba, p->st->n * sizeof(float));
        fmt_bytes(bb, sizeof bb, q->st->n * sizeof(float));
        snprintf(buf, sizeof buf, "* %-9s shape %s | %s   strides %s | %s   storage %s | %s",
                 mha_tensor_names[ts[i]], da, db, sa, sb, ba, bb);
        put(c, x, row++, x + w - 1, buf, ST_WARN);
    }
    if (row < y + h) {
        char pa[40], pb[40];
        fmt_bytes(ba, sizeof ba, a->steps[step].bytes_copied);
        fmt_bytes(bb, sizeof bb, b->steps[step].bytes_copied);
        fmt_bytes(pa, sizeof pa, pass_bytes(a, step));
        fmt_bytes(pb, sizeof pb, pass_bytes(b, step));
        snprintf(buf, sizeof buf, "%s bytes copied this step %s | %s, pass so far %s | %s",
                 bytes ? "*" : " ", ba, bb, pa, pb);
        put(c, x, row, x + w - 1, buf, bytes ? ST_WARN : ST_NORMAL);
    }
}

void compare_draw(Canvas *c, int x, int y, int w, int h, const Mha *a, const Mha *b,
                  const SceneState *s)
{
    SceneState one;
    int step, status = s && s->status ? 1 : 0, bytes = 0;
    if (!c || w < 1 || h < 1) return;
    if (!a || !b || !s || w < SCENE_MIN_W || h < SCENE_MIN_H) {
        scene_draw(c, x, y, w, h, a, s);
        return;
    }
    canvas_fill(c, x, y, w, h, ' ', ST_NORMAL);
    one = *s;
    one.status = NULL;
    step = s->step < 0 ? 0 : s->step >= MS_COUNT ? MS_COUNT - 1 : s->step;
    compare_step_diffs(a, b, step, &bytes);
    switch (compare_layout(w, h)) {
    case CMP_SIDE: {
        int hw = (w - 1) / 2, sh = h - 1 - DIFF_MAX - status;
        label_row(c, x, y, hw, 'A', a, step, bytes);
        label_row(c, x + hw + 1, y, w - hw - 1, 'B', b, step, bytes);
        scene_draw(c, x, y + 1, hw, sh, a, &one);
        scene_draw(c, x + hw + 1, y + 1, w - hw - 1, sh, b, &one);
        diff_rows(c, x, y + 1 + sh, w, DIFF_MAX, a, b, step);
        break;
    }
    case CMP_STACK: {
        int sh = (h - 2 - DIFF_MAX - status) / 2;
        label_row(c, x, y, w, 'A', a, step, bytes);
        scene_draw(c, x, y + 1, w, sh, a, &one);
        label_row(c, x, y + 1 + sh, w, 'B', b, step, bytes);
        scene_draw(c, x, y + 2 + sh, w, sh, b, &one);
        diff_rows(c, x, y + 2 + 2 * sh, w, DIFF_MAX, a, b, step);
        break;
    }
    case CMP_COMPACT: {
        const MhaStep *ms = &a->steps[step];
        char buf[200];
        int body = h - 2 - status, bh = body / 2;
        snprintf(buf, sizeof buf, "step %d/%d  %s  compared: A | B", step, MS_COUNT - 1, ms->name);
        canvas_fill(c, x, y, w, 1, ' ', ST_TITLE);
        put(c, x, y, x + w - 1, buf, ST_TITLE);
        canvas_text(c, x, y + 1, "\xe2\x96\xb6 ", ST_CODE_HI);
        put(c, x + 2, y + 1, x + w - 1, ms->code, ST_CODE_HI);
        compact_block(c, x, y + 2, w, bh, 'A', a, b, step, bytes);
        compact_block(c, x, y + 2 + bh, w, body - bh, 'B', b, a, step, bytes);
        break;
    }
    }
    if (status) /* the one status line, as every screen draws it */
        canvas_status_at(c, x, y + h - 1, w, s->status, ST_STATUS);
}
