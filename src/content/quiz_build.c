/* quiz_build.c - a question's tensors, from the engine.
 *
 * qb_run() runs mha_run() on the question's configuration; qb_need() marks
 * the tensors a question shows, each after the ones it is made from, with
 * the code line that made it.  Pipeline lines are the engine's step table
 * (mha_steps[i].code) with the sizes written in and, for K and V, the
 * variable and head count swapped; the GQA sharing lines (expand,
 * repeat_interleave) and the wrong view are the quiz's own, since the trace
 * keeps those tensors outside its ten steps.  Every listing runs in PyTorch
 * as written (tests/ref_listings.py): with GQA/MQA the scores and the
 * weighted sum read K and V repeated to the query heads' (B, H, S, dh). */
#include <ctype.h>
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
    for (int i = 0; i < MT_COUNT; i++) {
        tensor_free(b->ran[i]);
        b->ran[i] = NULL;
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

/* clang-format off */
const char *qb_var(int id)
{
    switch (id) {
    case MT_Q: case MT_Q_SPLIT: case MT_Q_HEADS: return "Q";
    case MT_K: case MT_K_SPLIT: case MT_K_HEADS: case MT_K_REPEAT: return "K";
    case MT_V: case MT_V_SPLIT: case MT_V_HEADS: case MT_V_REPEAT: return "V";
    case MT_K_EXPAND: return "K_e";
    case MT_V_EXPAND: return "V_e";
    case MT_SCORES: return "scores";
    case MT_ATTN: return "attn";
    case MT_HEAD_OUT: case MT_MERGED: case MT_MERGED_CONTIG: case MT_CONCAT: return "out";
    case MT_OUT: return "y";
    case MT_Q_WRONG: return "Q_bad";
    case MT_X: return "x";
    default: return mha_tensor_names[id];
    }
}
/* clang-format on */

/* The value of a size symbol of the step table (B, S, D, H, KV, dh, G), or
 * -1.  kv: the line is about K or V, whose head count is KV. */
static int symbol(const QBuild *b, const char *s, size_t n, int kv)
{
    static const char *const names[] = {"B", "S", "D", "H", "KV", "dh", "G"};
    const int vals[] = {b->B, b->S, b->D, kv ? b->KV : b->H, b->KV, b->dh, b->G};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == n && !strncmp(names[i], s, n)) return vals[i];
    return -1;
}

/* Writes the engine's line for step with the sizes in; var renames the
 * step's "Q" (K, V), and a line of several statements ("Q = x @ W_Q; K = ...")
 * keeps only the one that assigns var. */
static void step_line(const QBuild *b, int step, const char *var, char *out, size_t n)
{
    const char *code = mha_steps[step].code, *end = code + strlen(code);
    char head[8];
    snprintf(head, sizeof head, "%s = ", var ? var : "");
    for (const char *p = code; var && p < end;) { /* the statement that assigns var */
        const char *semi = strstr(p, "; ");
        if (!strncmp(p, head, strlen(head))) {
            code = p, end = semi ? semi : end;
            var = NULL; /* found: nothing to rename */
            break;
        }
        if (!semi) break;
        p = semi + 2;
    }
    int kv = var && strcmp(var, "Q");
    size_t k = 0;
    for (const char *p = code; p < end && k + 12 < n;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
                p++;
            int v = symbol(b, s, (size_t)(p - s), kv);
            if (v >= 0)
                k += (size_t)snprintf(out + k, n - k, "%d", v);
            else if (var && p - s == 1 && *s == 'Q')
                k += (size_t)snprintf(out + k, n - k, "%s", var);
            else
                k += (size_t)snprintf(out + k, n - k, "%.*s", (int)(p - s), s);
        } else
            out[k++] = *p++;
    }
    out[k] = 0;
}

/* What id is made from (-1 ends), and the step whose line makes it (-1: a
 * line of the quiz's own). */
static int inputs_of(const QBuild *b, int id, int in[3])
{
    in[0] = in[1] = in[2] = -1;
    switch (id) {
    case MT_Q:
    case MT_K:
    case MT_V:
        in[0] = MT_X;
        return MS_PROJECT;
    case MT_Q_SPLIT:
        in[0] = MT_Q;
        return MS_SPLIT;
    case MT_K_SPLIT:
        in[0] = MT_K;
        return MS_SPLIT;
    case MT_V_SPLIT:
        in[0] = MT_V;
        return MS_SPLIT;
    case MT_Q_HEADS:
        in[0] = MT_Q_SPLIT;
        return MS_HEADS;
    case MT_K_HEADS:
        in[0] = MT_K_SPLIT;
        return MS_HEADS;
    case MT_V_HEADS:
        in[0] = MT_V_SPLIT;
        return MS_HEADS;
    case MT_K_EXPAND:
    case MT_K_REPEAT:
        in[0] = MT_K_HEADS;
        return -1;
    case MT_V_EXPAND:
    case MT_V_REPEAT:
        in[0] = MT_V_HEADS;
        return -1;
    case MT_Q_WRONG:
        in[0] = MT_Q;
        return -1;
    case MT_SCORES: /* with G > 1, K repeated to (B, H, S, dh) first: the line then runs in
                     * PyTorch as written (an expanded (B, KV, G, S, dh) K would not match Q) */
        in[0] = MT_Q_HEADS, in[1] = MT_K_HEADS, in[2] = b->G > 1 ? MT_K_REPEAT : -1;
        return MS_SCORES;
    case MT_ATTN:
        in[0] = MT_SCORES;
        return MS_SOFTMAX;
    case MT_HEAD_OUT:
        in[0] = MT_ATTN, in[1] = MT_V_HEADS, in[2] = b->G > 1 ? MT_V_REPEAT : -1;
        return MS_WEIGHTED;
    case MT_MERGED:
        in[0] = MT_HEAD_OUT;
        return MS_BACK;
    case MT_MERGED_CONTIG:
        in[0] = MT_MERGED;
        return MS_CONTIG;
    case MT_CONCAT:
        in[0] = MT_MERGED_CONTIG;
        return MS_CONCAT;
    case MT_OUT:
        in[0] = MT_CONCAT;
        return MS_OUT;
    default:
        return -2; /* an input: x and the weights */
    }
}

/* The quiz's own line for the tensors the trace keeps outside its steps. */
static void own_line(const QBuild *b, int id, char *out, size_t n)
{
    const char *v = qb_var(id);
    if (id == MT_K_EXPAND || id == MT_V_EXPAND)
        snprintf(out, n, "%s = %s.unsqueeze(2).expand(%d, %d, %d, %d, %d)", v,
                 id == MT_K_EXPAND ? "K" : "V", b->B, b->KV, b->G, b->S, b->dh);
    else if (id == MT_K_REPEAT || id == MT_V_REPEAT)
        snprintf(out, n, "%s = %s.repeat_interleave(%d, dim=1)", v, v, b->G);
    else
        snprintf(out, n, "Q_bad = Q.view(%d, %d, %d, %d)", b->B, b->H, b->S, b->dh);
}

int qb_need(QBuild *b, int id)
{
    if (b->shown[id]) return 0;
    int in[3], step = inputs_of(b, id, in);
    for (int i = 0; i < 3; i++)
        if (in[i] >= 0 && qb_need(b, in[i])) return -1;
    const Tensor *t = b->m->t[id];
    if (!t) {
        snprintf(b->err, sizeof b->err, "the engine made no %s", mha_tensor_names[id]);
        return -1;
    }
    if (step >= 0) {
        const char *v = id == MT_Q || id == MT_K || id == MT_V ? qb_var(id) : NULL;
        if (id == MT_K_SPLIT || id == MT_K_HEADS) v = "K";
        if (id == MT_V_SPLIT || id == MT_V_HEADS) v = "V";
        step_line(b, step, v, b->line[id], sizeof b->line[id]);
    } else if (step == -1)
        own_line(b, id, b->line[id], sizeof b->line[id]);
    /* a copy op's bytes are counted on its storage; a view copies none */
    int view = in[0] >= 0 && tensor_same_storage(t, b->m->t[in[0]]);
    b->copied[id] = view ? 0 : t->st->bytes_copied;
    b->shown[id] = 1;
    b->order[b->n++] = id;
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

int qb_storage_owner(int id)
{
    switch (id) {
    case MT_Q_SPLIT:
    case MT_Q_HEADS:
    case MT_Q_WRONG:
        return MT_Q;
    case MT_K_SPLIT:
    case MT_K_HEADS:
        return MT_K;
    case MT_MERGED:
        return MT_HEAD_OUT;
    default:
        return id;
    }
}

/* Does id share its storage with a tensor shown before it? */
static int shares_earlier(const QBuild *b, int id)
{
    for (int k = 0; k < b->n && b->order[k] != id; k++)
        if (tensor_same_storage(b->m->t[b->order[k]], b->m->t[id])) return 1;
    return 0;
}

/* A line that computes numbers (@, softmax, sqrt) rather than moves them. */
static int numeric(const char *line)
{
    return strchr(line, '@') || strstr(line, "softmax") || strstr(line, "sqrt");
}

/* A line the interpreter cannot run yet: numeric, and the interpreter has
 * no matmul (probed once per Play). */
static int numeric_missing(Play *p, const char *line, int *probe)
{
    if (!numeric(line)) return 0;
    if (*probe < 0) {
        PlayResult r = {0};
        r.error_col = -1;
        *probe = play_eval(p, "x @ x.mT", &r) == PR_ERROR;
        play_result_clear(&r);
    }
    return *probe;
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

int qb_play(QBuild *b)
{
    if (b->play) return 0;
    if (!(b->play = mha_play_new(b->m))) {
        snprintf(b->err, sizeof b->err, "out of memory");
        return -1;
    }
    int probe = -1;
    PlayResult r = {0};
    r.error_col = -1;
    for (int k = 0; k < b->n; k++) {
        int id = b->order[k];
        const char *line = b->line[id], *var = qb_var(id);
        const Tensor *want = b->m->t[id];
        if (!line[0]) continue; /* an input: preloaded by its name */
        if (numeric_missing(b->play, line, &probe)) {
            Tensor *t = tensorops_alias(want);
            if (!t || play_set_tensor(b->play, var, t, PD_FLOAT32) < 0) goto oom;
            continue;
        }
        if (play_eval(b->play, line, &r) != PR_TENSOR) {
            snprintf(b->err, sizeof b->err, "the listing line `%.60s` does not run: %.120s", line,
                     r.kind == PR_ERROR ? r.error : "it names no tensor");
            goto fail;
        }
        char a[64], c[64];
        /* the bytes a shape op copies are the run's; a computed result is a new buffer */
        if (!same_geometry(r.t, want) || (!numeric(line) && r.copied_bytes != b->copied[id])) {
            snprintf(b->err, sizeof b->err,
                     "the listing line `%.60s` gives strides %s and copies %zu bytes; the run's %s "
                     "has %s and %zu",
                     line, tensor_fmt_strides(a, sizeof a, r.t), r.copied_bytes,
                     mha_tensor_names[id], tensor_fmt_strides(c, sizeof c, want), b->copied[id]);
            goto fail;
        }
        tensor_free(b->ran[id]);
        b->ran[id] = r.t; /* the trace shows what the interpreter made */
        r.t = NULL;
    }
    play_result_clear(&r);
    return 0;
oom:
    snprintf(b->err, sizeof b->err, "out of memory");
fail:
    play_result_clear(&r);
    return -1;
}

void qb_code_lines(const QBuild *b, char *buf, size_t n)
{
    for (int k = 0; k < b->n; k++)
        if (b->line[b->order[k]][0]) qt_cat(buf, n, "    %s\n", b->line[b->order[k]]);
}

int qb_working(QBuild *b, char *buf, size_t n)
{
    if (qb_play(b) < 0) return -1;
    qt_cat(buf, n, "The engine ran:\n");
    for (int k = 0; k < b->n; k++) {
        int id = b->order[k];
        if (!b->line[id][0]) continue;
        const Tensor *t = b->ran[id] ? b->ran[id] : b->m->t[id];
        char sh[64], st[64];
        tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
        tensor_fmt_strides(st, sizeof st, t);
        qt_cat(buf, n, "  %-44s -> %s strides %s, ", b->line[id], sh, st);
        if (b->copied[id])
            qt_cat(buf, n, "copy: %zu bytes\n", b->copied[id]);
        else if (shares_earlier(b, id))
            qt_cat(buf, n, "view: %zu bytes\n", b->copied[id]);
        else
            qt_cat(buf, n, "new buffer\n");
    }
    return 0;
}
