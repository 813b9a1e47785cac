/* quiz_build.c - a question's tensors, from the engine.
 *
 * qb_run() runs mha_run() on the question's configuration; qb_need() adds to
 * the listing the statements of the run's own program (engine/mha_prog.c)
 * that make a tensor and everything it reads, back to x and the weights, in
 * program order, with the sizes written in: the quiz shows what the
 * pipeline ran, under the names the walkthrough, export and playground use
 * (Q_split, Q_heads, K_expand, merged ...).  GQA and MQA share K and V as
 * the program does, by a stride-0 expand over grouped query heads; the copy
 * (K_repeat) is the program's teaching row.  Every listing runs in the
 * interpreter from x and the weights alone (qb_play) and in PyTorch as
 * written (tests/ref_listings.py). */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"
#include "engine/tensorops.h"

int qb_run(QBuild *b, const MhaConfig *c)
{
    memset(b, 0, sizeof *b);
    b->c = *c;
    b->m = mha_run(c, b->err, sizeof b->err);
    if (!b->m) return -1;
    b->B = c->batch, b->S = c->seq, b->D = c->d_model, b->H = c->heads, b->KV = c->kv_heads;
    b->dh = b->m->d_head;
    b->G = b->m->groups;
    return 0;
}

void qb_free(QBuild *b)
{
    for (int k = 0; k < QB_LINES; k++) {
        tensor_free(b->ran[k]);
        b->ran[k] = NULL;
    }
    play_free(b->play);
    b->play = NULL;
    mha_free(b->m);
    b->m = NULL;
}

int qb_refuse(Gen *g, QBuild *b)
{
    snprintf(g->err, g->errlen, "%s", b->err);
    qb_free(b);
    return -1;
}

const Tensor *qb_t(const QBuild *b, int id)
{
    return b->m ? b->m->t[id] : NULL;
}

int qb_line_of(const QBuild *b, int id)
{
    for (int k = 0; k < b->n; k++)
        if (b->made[k] == id) return k;
    return -1;
}

/* Does the tensor of line k share its storage with a tensor its row reads? */
static int views_input(const QBuild *b, int k, const Tensor *t)
{
    char lhs[PLAY_NAME_MAX], rhs[16][PLAY_NAME_MAX];
    int n = mha_program_names(&b->c, b->row[k], lhs, rhs, 16);
    for (int j = 0; j < n; j++) {
        int in = mha_tensor_index(rhs[j]);
        if (in >= 0 && b->m->t[in] && tensor_same_storage(t, b->m->t[in])) return 1;
    }
    return 0;
}

/* Adds program row r to the listing, in program order.  0, or -1. */
static int add_row(QBuild *b, int r)
{
    int at = 0;
    while (at < b->n && b->row[at] < r)
        at++;
    if (at < b->n && b->row[at] == r) return 0;
    if (b->n == QB_LINES) {
        snprintf(b->err, sizeof b->err, "a listing of more than %d lines", QB_LINES);
        return -1;
    }
    char lhs[PLAY_NAME_MAX], rhs[1][PLAY_NAME_MAX], line[QB_LINE];
    if (mha_program_names(&b->c, r, lhs, rhs, 0) < 0 ||
        !mha_program_sized(&b->c, r, line, sizeof line)) {
        snprintf(b->err, sizeof b->err, "the program's row %d does not fit a listing", r);
        return -1;
    }
    int id = mha_tensor_index(lhs);
    const Tensor *t = id >= 0 ? b->m->t[id] : NULL;
    if (id >= 0 && !t) {
        snprintf(b->err, sizeof b->err, "the engine made no %s", lhs);
        return -1;
    }
    memmove(&b->row[at + 1], &b->row[at], sizeof *b->row * (size_t)(b->n - at));
    memmove(&b->made[at + 1], &b->made[at], sizeof *b->made * (size_t)(b->n - at));
    memmove(&b->copied[at + 1], &b->copied[at], sizeof *b->copied * (size_t)(b->n - at));
    memmove(&b->line[at + 1], &b->line[at], sizeof *b->line * (size_t)(b->n - at));
    b->n++;
    b->row[at] = r, b->made[at] = id;
    snprintf(b->line[at], sizeof b->line[at], "%s", line);
    /* a copy op's bytes are counted on its storage; a view copies none; a
     * temporary's are the interpreter's (qb_play) */
    b->copied[at] = t && !views_input(b, at, t) ? t->st->bytes_copied : 0;
    return 0;
}

int qb_need(QBuild *b, int id)
{
    int rows = mha_program_count();
    unsigned char need[128] = {0};
    if (rows > (int)sizeof need) {
        snprintf(b->err, sizeof b->err, "the program has more than %zu rows", sizeof need);
        return -1;
    }
    if (!b->m->t[id]) {
        snprintf(b->err, sizeof b->err, "the engine made no %s", mha_tensor_names[id]);
        return -1;
    }
    mha_program_need(&b->c, mha_tensor_names[id], need); /* none: an input */
    for (int r = 0; r < rows; r++)
        if (need[r] && add_row(b, r) < 0) return -1;
    return 0;
}

int qb_begin(Gen *g, QBuild *b, const MhaConfig *c, int target, int topic)
{
    if (qb_run(b, c) || qb_need(b, target)) {
        snprintf(g->err, g->errlen, "%s", b->err);
        qb_free(b);
        return -1;
    }
    g->q->topic = topic;
    g->q->cfg = *c;
    g->q->tensor = target;
    return 0;
}

int qb_storage_owner(const QBuild *b, int id)
{
    char lhs[PLAY_NAME_MAX], rhs[1][PLAY_NAME_MAX];
    for (int r = 0; r < mha_program_count(); r++) {
        int t = mha_program_names(&b->c, r, lhs, rhs, 0) < 0 ? -1 : mha_tensor_index(lhs);
        if (t >= 0 && b->m->t[t] && tensor_same_storage(b->m->t[t], b->m->t[id])) return t;
    }
    return id; /* an input: its own */
}

/* Does line k's tensor share its storage with an earlier line's? */
static int shares_earlier(const QBuild *b, int k)
{
    for (int j = 0; j < k; j++)
        if (tensor_same_storage(b->ran[j], b->ran[k])) return 1;
    return 0;
}

/* Does the interpreter's t agree with the run's (shape, strides, offset)? */
static int same_geometry(const Tensor *a, const Tensor *b)
{
    if (a->ndim != b->ndim || a->offset != b->offset) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || (a->shape[i] > 1 && a->strides[i] != b->strides[i]))
            return 0;
    return 1;
}

/* A Play of its own (its engine numbered after the run's) holding x and the
 * weights only, so a listing that reads a tensor it does not make cannot
 * run.  NULL: out of memory. */
static Play *inputs_play(const Mha *m)
{
    Play *p = play_new(m->eng);
    for (int i = MT_X; p && i <= MT_W_O; i++) {
        Tensor *t = tensorops_alias(m->t[i]);
        if (!t || play_set_tensor(p, mha_tensor_names[i], t, PD_FLOAT32) < 0) {
            play_free(p);
            return NULL;
        }
    }
    if (p) {
        p->preloaded = p->n;
        p->rope_layout = m->cfg.rope; /* rope(Q_heads) as the run rotated it */
        p->rope_theta = m->cfg.rope_theta;
    }
    return p;
}

int qb_play(QBuild *b)
{
    if (b->play) return 0;
    if (!(b->play = inputs_play(b->m))) {
        snprintf(b->err, sizeof b->err, "out of memory");
        return -1;
    }
    PlayResult r = {0};
    r.error_col = -1;
    for (int k = 0; k < b->n; k++) {
        const char *line = b->line[k];
        if (play_eval(b->play, line, &r) != PR_TENSOR) {
            snprintf(b->err, sizeof b->err, "the listing line `%.60s` does not run: %.120s", line,
                     r.kind == PR_ERROR ? r.error : "it names no tensor");
            goto fail;
        }
        const Tensor *want = b->made[k] >= 0 ? b->m->t[b->made[k]] : r.t;
        if (b->made[k] < 0) b->copied[k] = r.copied_bytes; /* a temporary: no run tensor */
        char a[64], c[64];
        /* the bytes a line copies are the run's; a computed result copies none */
        if (!same_geometry(r.t, want) || r.copied_bytes != b->copied[k]) {
            snprintf(b->err, sizeof b->err,
                     "the listing line `%.60s` gives strides %s and copies %zu bytes; the run's %s "
                     "has %s and %zu",
                     line, tensor_fmt_strides(a, sizeof a, r.t), r.copied_bytes,
                     b->made[k] >= 0 ? mha_tensor_names[b->made[k]] : "temporary",
                     tensor_fmt_strides(c, sizeof c, want), b->copied[k]);
            goto fail;
        }
        tensor_free(b->ran[k]);
        b->ran[k] = r.t; /* the trace shows what the interpreter made */
        r.t = NULL;
    }
    play_result_clear(&r);
    return 0;
fail:
    play_result_clear(&r);
    play_free(b->play); /* a second call runs it again, not returns 0 */
    b->play = NULL;
    return -1;
}

#define CODE_COLS 78 /* a code line fits an 80-column screen whole */

/* Where line (from s on, shown from column col) breaks to fit CODE_COLS, as
 * Python's implicit line joining allows: at a space inside parentheses
 * before a binary operator (" / sqrt"), the outermost that fits, else the
 * last.  -1: it fits, or has no such space.  *open: the column its
 * innermost open parenthesis leaves the rest under (PEP 8's alignment). */
static int code_break(const char *line, int s, int col, int *open)
{
    int len = (int)strlen(line), depth = 0, best = -1, best_depth = 1 << 20, opens[16];
    if (col + len - s <= CODE_COLS) return -1;
    for (int i = 0; i < len; i++) {
        char ch = line[i];
        if (ch == '(' || ch == '[') {
            if (depth < 16) opens[depth] = i;
            depth++;
        } else if (ch == ')' || ch == ']')
            depth--;
        else if (ch == ' ' && i > s && depth > 0 && depth <= 16 && col + i - s <= CODE_COLS &&
                 line[i + 1] && strchr("@/*+-", line[i + 1]) && line[i + 2] == ' ' &&
                 depth <= best_depth) {
            best = i, best_depth = depth;
            *open = opens[depth - 1] + 1;
        }
    }
    return best;
}

/* Appends line as code, indented by four spaces; a line too wide for the
 * screen goes on under its open parenthesis, as Python reads it. */
static void cat_code(char *buf, size_t n, const char *line)
{
    int s = 0, col = 4, open = 0;
    for (int cut; (cut = code_break(line, s, col, &open)) >= 0; s = cut + 1, col = 4 + open)
        qt_cat(buf, n, "%*s%.*s\n", col, "", cut - s, line + s);
    qt_cat(buf, n, "%*s%s\n", col, "", line + s);
}

void qb_code_lines(const QBuild *b, char *buf, size_t n)
{
    for (int k = 0; k < b->n; k++)
        cat_code(buf, n, b->line[k]);
}

int qb_working(QBuild *b, char *buf, size_t n)
{
    if (qb_play(b) < 0) return -1;
    qt_cat(buf, n, "The engine ran:\n");
    for (int k = 0; k < b->n; k++) {
        const Tensor *t = b->ran[k];
        char sh[64], st[64];
        tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
        tensor_fmt_strides(st, sizeof st, t);
        qt_cat(buf, n, "  %-44s -> %s strides %s, ", b->line[k], sh, st);
        if (b->copied[k])
            qt_cat(buf, n, "copy: %zu bytes\n", b->copied[k]);
        else if (shares_earlier(b, k))
            qt_cat(buf, n, "view: %zu bytes\n", b->copied[k]);
        else
            qt_cat(buf, n, "new buffer\n");
    }
    return 0;
}

int quiz_listing(const MhaConfig *c, int tensor, char *buf, size_t n, char *err, size_t errlen)
{
    QBuild b;
    int rc = -1;
    if (!n) return -1;
    buf[0] = 0;
    if (tensor < 0 || tensor >= MT_COUNT) {
        snprintf(err, errlen, "no tensor %d", tensor);
        return -1;
    }
    if (qb_run(&b, c) || qb_need(&b, tensor) || qb_play(&b)) {
        snprintf(err, errlen, "%s", b.err);
        goto done;
    }
    if (b.n == 0) {
        snprintf(err, errlen, "%s is an input: no statement makes it", mha_tensor_names[tensor]);
        goto done;
    }
    size_t k = 0;
    for (int i = 0; i < b.n && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s\n", b.line[i]);
    if (k >= n) {
        snprintf(err, errlen, "the listing of %s is over %zu bytes", mha_tensor_names[tensor], n);
        buf[0] = 0;
        goto done;
    }
    rc = 0;
done:
    qb_free(&b);
    return rc;
}
