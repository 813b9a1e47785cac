/* mha_prog.c - the pipeline as one PyTorch program, run by the interpreter
 * (engine/play.h) in the run's own engine: every tensor of the run after
 * x and the weights is what a statement below computed, and each step of
 * the trace is recorded from what its statements did (the tensors they
 * read, view or not, the bytes the engine counted as copied).
 *
 * The one tensor not made here is the no-scale failure's: the panel's own
 * lines make it (run_bug), as the walkthrough shows them.
 *
 * The statements are written over the run's tensor names (mha_tensor_names:
 * what `mhaviz export` and the playground call them) and its sizes (B S D H
 * KV G dh, W the window).  MHA's scores and weighted sum are head by head;
 * for GQA and MQA the query heads are grouped G to a kv head and its K and V
 * expanded to them with stride 0 (no copy).  The tensors no step shows
 * (mask, the grouped views) are the program's temporaries.
 */
#include "engine/mha.h"

#include "base/errbuf.h"
#include "engine/tensorops.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* When a statement runs: always (ON_ALL), or when every condition of its
 * bits holds.  MHA (one query head a kv head) writes the scores and the
 * weighted sum as plain head-by-head products; GQA and MQA group the query
 * heads over their kv head's K and V, expanded with stride 0. */
enum {
    ON_ALL = 0,
    ON_ROPE = 1 << 0,
    ON_NOROPE = 1 << 1,
    ON_MASK = 1 << 2,
    ON_NOMASK = 1 << 3,
    ON_WINDOW = 1 << 4,
    ON_NOWINDOW = 1 << 7,
    ON_MHA = 1 << 5,
    ON_GQA = 1 << 6,
};

#define TEACH -1 /* not a step: the teaching tensors, after the trace */

/* clang-format off */
static const struct {
    int step;
    unsigned when; /* ON_* bits */
    const char *stmt;
} program[] = {
    {MS_PROJECT, ON_ALL, "Q = x @ W_Q"},
    {MS_PROJECT, ON_ALL, "K = x @ W_K"},
    {MS_PROJECT, ON_ALL, "V = x @ W_V"},
    {MS_SPLIT, ON_ALL, "Q_split = Q.view(B, S, H, dh)"},
    {MS_SPLIT, ON_ALL, "K_split = K.view(B, S, KV, dh)"},
    {MS_SPLIT, ON_ALL, "V_split = V.view(B, S, KV, dh)"},
    {MS_HEADS, ON_ALL, "Q_heads = Q_split.transpose(1, 2)"},
    {MS_HEADS, ON_ALL, "K_heads = K_split.transpose(1, 2)"},
    {MS_HEADS, ON_ALL, "V_heads = V_split.transpose(1, 2)"},
    {MS_ROPE, ON_ROPE, "Q_rope = rope(Q_heads)"},
    {MS_ROPE, ON_ROPE, "K_rope = rope(K_heads)"},
    /* short statements, so each one reads whole on the ▶ line at 80 columns */
    {MS_SCORES, ON_MHA | ON_NOROPE, "scores = Q_heads @ K_heads.transpose(-2, -1) / sqrt(dh)"},
    {MS_SCORES, ON_MHA | ON_ROPE, "scores = Q_rope @ K_rope.transpose(-2, -1) / sqrt(dh)"},
    {MS_SCORES, ON_GQA | ON_NOROPE, "Q_groups = Q_heads.view(B, KV, G, S, dh)"},
    {MS_SCORES, ON_GQA | ON_ROPE, "Q_groups = Q_rope.view(B, KV, G, S, dh)"},
    {MS_SCORES, ON_GQA | ON_NOROPE, "K_expand = K_heads.unsqueeze(2).expand(B, KV, G, S, dh)"},
    {MS_SCORES, ON_GQA | ON_ROPE, "K_expand = K_rope.unsqueeze(2).expand(B, KV, G, S, dh)"},
    {MS_SCORES, ON_GQA, "scores = (Q_groups @ K_expand.transpose(-2, -1) / sqrt(dh)).view(B, H, S, S)"},
    /* query i sees key j iff j <= i (and i - j < W): computed, not copied */
    {MS_SOFTMAX, ON_MASK, "i = torch.arange(S).view(S, 1)"},
    {MS_SOFTMAX, ON_MASK, "j = torch.arange(S)"},
    {MS_SOFTMAX, ON_MASK | ON_NOWINDOW, "hide = j > i"},
    {MS_SOFTMAX, ON_WINDOW, "hide = (j > i) + (i - j >= W)"},
    {MS_SOFTMAX, ON_MASK, "attn = softmax(scores.masked_fill(hide, -math.inf), dim=-1)"},
    {MS_SOFTMAX, ON_NOMASK, "attn = softmax(scores, dim=-1)"},
    {MS_WEIGHTED, ON_MHA, "head_out = attn @ V_heads"},
    {MS_WEIGHTED, ON_GQA, "V_expand = V_heads.unsqueeze(2).expand(B, KV, G, S, dh)"},
    {MS_WEIGHTED, ON_GQA, "head_out = (attn.view(B, KV, G, S, S) @ V_expand).view(B, H, S, dh)"},
    {MS_BACK, ON_ALL, "merged = head_out.transpose(1, 2)"},
    {MS_CONTIG, ON_ALL, "merged_contig = merged.contiguous()"},
    {MS_CONCAT, ON_ALL, "concat = merged_contig.view(B, S, D)"},
    {MS_OUT, ON_ALL, "out = concat @ W_O"},
    /* for teaching, outside the trace: the wrong view, GQA by copying and
     * one big head over the full width (the scores without / sqrt(dh): run_bug) */
    {TEACH, ON_ALL, MHA_WRONG_VIEW_CODE}, /* the wrong view's bug, as the panel shows it */
    /* MHA's K and V as GQA shares them (G = 1), for the variants' picture */
    {TEACH, ON_MHA | ON_NOROPE, "K_expand = K_heads.unsqueeze(2).expand(B, KV, G, S, dh)"},
    {TEACH, ON_MHA | ON_ROPE, "K_expand = K_rope.unsqueeze(2).expand(B, KV, G, S, dh)"},
    {TEACH, ON_MHA, "V_expand = V_heads.unsqueeze(2).expand(B, KV, G, S, dh)"},
    {TEACH, ON_NOROPE, "K_repeat = K_heads.repeat_interleave(G, dim=1)"},
    {TEACH, ON_ROPE, "K_repeat = K_rope.repeat_interleave(G, dim=1)"},
    {TEACH, ON_ALL, "V_repeat = V_heads.repeat_interleave(G, dim=1)"},
    {TEACH, ON_NOROPE, "Q_full = Q.view(B, 1, S, D)"},
    {TEACH, ON_ROPE, "Q_full = Q_rope.transpose(1, 2).contiguous().view(B, 1, S, D)"},
    {TEACH, ON_ALL, "big = Q_full @ K_repeat.transpose(1, 2).contiguous().view(B, 1, S, D).transpose(-2, -1) / sqrt(D)"},
    {TEACH, ON_MASK, "attn_single = softmax(big.masked_fill(hide, -math.inf), dim=-1)"},
    {TEACH, ON_NOMASK, "attn_single = softmax(big, dim=-1)"},
};
/* clang-format on */
#define N_PROGRAM (int)(sizeof program / sizeof program[0])

static int runs(const MhaConfig *c, unsigned when)
{
    const unsigned holds =
        (c->rope != ROPE_OFF ? ON_ROPE : ON_NOROPE) | (c->causal ? ON_MASK : ON_NOMASK) |
        (c->window > 0 ? ON_WINDOW : ON_NOWINDOW) | (c->kv_heads == c->heads ? ON_MHA : ON_GQA);
    return (when & holds) == when;
}

/* The size names the statements are written over, and their values for c
 * (what mha_program_run binds and mha_program_sized writes in). */
static const char *const size_names[] = {"B", "S", "D", "H", "KV", "G", "dh", "W"};
#define N_SIZES (int)(sizeof size_names / sizeof size_names[0])

static void sizes_of(const MhaConfig *c, long *vals)
{
    int H = c->heads > 0 ? c->heads : 1, KV = c->kv_heads > 0 ? c->kv_heads : 1;
    const long v[N_SIZES] = {c->batch,    c->seq, c->d_model,     c->heads,
                             c->kv_heads, H / KV, c->d_model / H, c->window};
    memcpy(vals, v, sizeof v);
}

int mha_program_count(void)
{
    return N_PROGRAM;
}

const char *mha_program_stmt(const MhaConfig *c, int i, int *step)
{
    if (i < 0 || i >= N_PROGRAM || !runs(c, program[i].when)) return NULL;
    if (step) *step = program[i].step;
    return program[i].stmt;
}

/* A temporary of the program (Q_groups): made in a step, by what it read. */
typedef struct Tmp {
    char name[PLAY_NAME_MAX];
    unsigned long long reads; /* MT_* bits */
} Tmp;

/* Adds to in[] the run's tensors stmt reads (names of mha_tensor_names not
 * after a '.'), a tensor made earlier in the same step by the tensors it
 * read (made[]: MT_* -> its statement's reads, as a bit set), and so a
 * temporary of the step (tmp[0..ntmp)). */
static void reads_of(const char *stmt, int *in, int *n, const unsigned long long *made,
                     const Tmp *tmp, int ntmp)
{
    const char *p = strchr(stmt, '=');
    for (p = p ? p + 1 : stmt; *p;) {
        if (!(isalpha((unsigned char)*p) || *p == '_')) {
            p++;
            continue;
        }
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        char name[PLAY_NAME_MAX];
        snprintf(name, sizeof name, "%.*s", (int)(p - s), s);
        int t = s > stmt && s[-1] == '.' ? -1 : mha_tensor_index(name);
        unsigned long long bits = t >= 0 ? made[t] : 0;
        for (int j = 0; t < 0 && j < ntmp; j++)
            if (!strcmp(tmp[j].name, name)) bits = tmp[j].reads;
        for (int k = 0; bits && k < MT_COUNT; k++) /* made in this step: what it read */
            if (bits >> k & 1) {
                int seen = 0;
                for (int j = 0; j < *n; j++)
                    seen |= in[j] == k;
                if (!seen && *n < MHA_STEP_INPUTS) in[(*n)++] = k;
            }
        if (t < 0) continue;
        int seen = made[t] != 0;
        for (int j = 0; j < *n; j++)
            seen |= in[j] == t;
        if (!seen && *n < MHA_STEP_INPUTS) in[(*n)++] = t;
    }
}

static void record(Mha *m, int step, size_t before, const int *in, int n)
{
    MhaStep *s = &m->steps[step];
    s->name = mha_steps[step].name;
    s->key = mha_steps[step].key;
    size_t k = 0; /* the statements it ran, as one line */
    s->code[0] = 0;
    for (int i = 0; i < s->n_ran && k < sizeof s->code; i++)
        k += (size_t)snprintf(s->code + k, sizeof s->code - k, "%s%s", i ? "; " : "", s->ran[i]);
    s->output = mha_steps[step].output;
    s->n_inputs = n;
    for (int i = 0; i < n; i++)
        s->inputs[i] = in[i];
    s->is_view = n > 0 && tensor_same_storage(m->t[s->output], m->t[in[0]]);
    s->bytes_copied = m->eng->bytes_copied - before;
}

/* Runs statement stmt in p; a tensor the run keeps goes to m->t.  0, or -1
 * with the reason. */
static int run_stmt(Mha *m, Play *p, PlayResult *r, const char *stmt, char *err, size_t errlen)
{
    if (play_eval(p, stmt, r) != PR_TENSOR) {
        err_set(err, errlen, "mha: %s: %s", stmt, r->kind == PR_ERROR ? r->error : "not a tensor");
        return -1;
    }
    int t = mha_tensor_index(r->name);
    if (t >= 0) {
        tensor_free(m->t[t]);
        if (!(m->t[t] = tensorops_alias(r->t))) {
            err_set(err, errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

void mha_play_sizes(Play *p, const Mha *m)
{
    long vals[N_SIZES];
    sizes_of(&m->cfg, vals);
    for (int i = 0; i < N_SIZES; i++)
        if (strcmp(size_names[i], "W") || vals[i]) play_set_int(p, size_names[i], vals[i]);
}

/* A Play in the run's engine for its statements: RoPE as the run has it,
 * the sizes, and the run's tensors from..to (MT_*) by their names.  NULL
 * when memory runs out. */
static Play *run_play(Mha *m, int from, int to)
{
    Play *p = play_new_in(m->eng);
    if (!p) return NULL;
    p->rope_layout = m->cfg.rope;
    p->rope_theta = m->cfg.rope_theta;
    mha_play_sizes(p, m);
    for (int i = from; i <= to; i++) { /* the Play takes t, also when it fails */
        Tensor *t = tensorops_alias(m->t[i]);
        if (!t || play_set_tensor(p, mha_tensor_names[i], t, PD_FLOAT32) < 0) {
            play_free(p);
            return NULL;
        }
    }
    return p;
}

/* The scores without / sqrt(dh), as the panel shows the bug: the panel's
 * program (mha_panel, MV_NO_SCALE) run as it reads, in a Play of its own in
 * the run's engine, up to the line after the bug that makes attn.  Its first
 * line, the three projections, is the run's Q, K and V (the same products,
 * so the same bits: tests/check_mha_panel.c runs that line too); every line
 * after it runs.  Its attn is attn_noscale.  0, or -1 with the reason. */
static int run_bug(Mha *m, PlayResult *r, char *err, size_t errlen)
{
    const MhaViewInfo *v = &mha_views[MV_NO_SCALE];
    MhaPanel pn;
    mha_panel(&m->cfg, MV_NO_SCALE, &pn);
    if (pn.n < 2 || strcmp(pn.line[0], "Q, K, V = x @ W_Q, x @ W_K, x @ W_V")) {
        err_set(err, errlen, "mha: the panel's first line is not the projections");
        return -1;
    }
    Play *p = run_play(m, MT_Q, MT_V);
    if (!p) {
        err_set(err, errlen, "out of memory");
        return -1;
    }
    int rc = -1;
    for (int i = 1; i < pn.n; i++) {
        PlayKind k = play_eval(p, pn.line[i], r);
        if (k != PR_TENSOR && k != PR_TUPLE) {
            err_set(err, errlen, "mha: %s: %s", pn.line[i],
                    k == PR_ERROR ? r->error : "not a tensor");
            break;
        }
        if (i < pn.bug || k != PR_TENSOR || strcmp(r->name, v->name)) continue;
        tensor_free(m->t[v->tensor]);
        if (!(m->t[v->tensor] = tensorops_alias(r->t))) {
            err_set(err, errlen, "out of memory");
            break;
        }
        rc = 0;
        break;
    }
    if (rc && !err[0]) err_set(err, errlen, "mha: the panel's program makes no %s", v->name);
    play_free(p);
    return rc;
}

/* The steps after the input, in the run's order (rope after heads first). */
static const int order[] = {MS_PROJECT,  MS_SPLIT, MS_HEADS,  MS_ROPE,   MS_SCORES, MS_SOFTMAX,
                            MS_WEIGHTED, MS_BACK,  MS_CONTIG, MS_CONCAT, MS_OUT,    TEACH};

int mha_program_run(Mha *m, char *err, size_t errlen)
{
    const MhaConfig *c = &m->cfg;
    Play *p = run_play(m, MT_X, MT_W_O);
    PlayResult *r = calloc(1, sizeof *r);
    int rc = -1;
    if (!p || !r) {
        err_set(err, errlen, "out of memory");
        goto done;
    }
    r->error_col = -1;
    for (size_t o = 0; o < sizeof order / sizeof *order; o++) {
        int step = order[o], in[MHA_STEP_INPUTS], n = 0;
        unsigned long long made[MT_COUNT] = {0};
        Tmp tmp[MHA_STEP_STMTS];
        int ntmp = 0;
        if (step == MS_ROPE && c->rope == ROPE_OFF) continue;
        size_t before = m->eng->bytes_copied;
        /* the step reads what all its statements read (project, rope), or
         * what the statements that made its output read */
        int all = step != TEACH && mha_steps[step].reads_all;
        for (int i = 0; i < N_PROGRAM; i++) {
            if (program[i].step != step || !runs(c, program[i].when)) continue;
            if (run_stmt(m, p, r, program[i].stmt, err, errlen) < 0) goto done;
            if (step != TEACH && m->steps[step].n_ran == MHA_STEP_STMTS) { /* never silently */
                err_set(err, errlen, "mha: step %s runs more than %d statements",
                        mha_steps[step].name, MHA_STEP_STMTS);
                goto done;
            }
            if (step != TEACH) m->steps[step].ran[m->steps[step].n_ran++] = program[i].stmt;
            int t = mha_tensor_index(r->name), rin[MHA_STEP_INPUTS], rn = 0;
            MhaStep *ms = step != TEACH ? &m->steps[step] : NULL;
            if (ms && t >= 0 && ms->n_made < MHA_STEP_STMTS) ms->made[ms->n_made++] = t;
            reads_of(program[i].stmt, rin, &rn, made, tmp, ntmp);
            unsigned long long bits = 0;
            for (int k = 0; k < rn; k++)
                bits |= 1ULL << rin[k];
            if (t >= 0)
                made[t] |= bits;
            else if (ntmp < MHA_STEP_STMTS) { /* a temporary: Q_groups */
                snprintf(tmp[ntmp].name, sizeof tmp[ntmp].name, "%s", r->name);
                tmp[ntmp++].reads = bits;
            }
            if (step != TEACH && (all || t == mha_steps[step].output))
                for (int k = 0; k < rn; k++) {
                    int seen = 0;
                    for (int j = 0; j < n; j++)
                        seen |= in[j] == rin[k];
                    if (!seen && n < MHA_STEP_INPUTS) in[n++] = rin[k];
                }
        }
        if (step != TEACH) record(m, step, before, in, n);
        if (step == MS_OUT) m->bytes_copied_total = m->eng->bytes_copied;
    }
    if (run_bug(m, r, err, errlen) < 0) goto done;
    rc = 0;
done:
    if (r) play_result_clear(r);
    free(r);
    play_free(p);
    return rc;
}

/* ---- the program's dataflow: what a listing of it needs ------------------- */

/* The next name of stmt from p on: an identifier outside the quotes of a
 * string.  *attr: it follows a '.' (a method) or is a keyword argument
 * (dim=), so it names no variable.  Returns the end of the name, NULL at
 * the end of stmt. */
static const char *next_name(const char *stmt, const char *p, const char **name, size_t *len,
                             int *attr)
{
    for (; *p; p++) {
        if (*p == '\'' || *p == '"') { /* float('-inf'): no name inside */
            const char *q = strchr(p + 1, *p);
            if (!q) return NULL;
            p = q;
            continue;
        }
        if (!(isalpha((unsigned char)*p) || *p == '_') ||
            (p > stmt && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
            continue; /* not the start of a name (the 1 of W_1 is none) */
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        *name = s, *len = (size_t)(p - s);
        *attr = (s > stmt && s[-1] == '.') || (p[0] == '=' && p[1] != '=');
        return p;
    }
    return NULL;
}

const char *mha_program_sized(const MhaConfig *c, int i, char *buf, size_t n)
{
    const char *stmt = mha_program_stmt(c, i, NULL), *p, *s = stmt, *name;
    if (!stmt || !n) return NULL;
    long vals[N_SIZES];
    sizes_of(c, vals);
    size_t k = 0, len;
    int attr;
    for (p = stmt; (p = next_name(stmt, p, &name, &len, &attr));) {
        int sym = -1;
        for (int j = 0; !attr && j < N_SIZES; j++)
            if (strlen(size_names[j]) == len && !strncmp(size_names[j], name, len)) sym = j;
        if (sym < 0) continue; /* copied later with the text around it */
        k += (size_t)snprintf(buf + (k < n ? k : n), k < n ? n - k : 0, "%.*s%ld", (int)(name - s),
                              s, vals[sym]);
        s = p;
    }
    k += (size_t)snprintf(buf + (k < n ? k : n), k < n ? n - k : 0, "%s", s);
    return k < n ? buf : NULL;
}

int mha_program_names(const MhaConfig *c, int i, char *lhs, char (*rhs)[PLAY_NAME_MAX], int max)
{
    const char *stmt = mha_program_stmt(c, i, NULL), *eq, *p, *name;
    if (!stmt || !(eq = strstr(stmt, " = "))) return -1;
    snprintf(lhs, PLAY_NAME_MAX, "%.*s", (int)(eq - stmt), stmt);
    int n = 0, attr;
    size_t len;
    for (p = eq + 3; n < max && (p = next_name(stmt, p, &name, &len, &attr));) {
        int seen = attr || len >= PLAY_NAME_MAX;
        for (int j = 0; !seen && j < n; j++)
            seen = strlen(rhs[j]) == len && !strncmp(rhs[j], name, len);
        if (!seen) snprintf(rhs[n++], PLAY_NAME_MAX, "%.*s", (int)len, name);
    }
    return n;
}

/* The last row before `before` that c runs and that assigns name; -1. */
static int assigner(const MhaConfig *c, const char *name, int before)
{
    char lhs[PLAY_NAME_MAX], rhs[1][PLAY_NAME_MAX];
    for (int i = before - 1; i >= 0; i--)
        if (mha_program_names(c, i, lhs, rhs, 0) >= 0 && !strcmp(lhs, name)) return i;
    return -1;
}

/* Marks row i and, first, the rows that made what it reads. */
static void need_row(const MhaConfig *c, int i, unsigned char *need)
{
    char lhs[PLAY_NAME_MAX], rhs[16][PLAY_NAME_MAX];
    if (need[i]) return;
    need[i] = 1;
    int n = mha_program_names(c, i, lhs, rhs, 16);
    for (int k = 0; k < n; k++) {
        int j = assigner(c, rhs[k], i); /* mask = mask * ...: the mask before */
        if (j >= 0) need_row(c, j, need);
    }
}

int mha_program_need(const MhaConfig *c, const char *name, unsigned char *need)
{
    int i = assigner(c, name, N_PROGRAM);
    if (i >= 0) need_row(c, i, need);
    return i;
}

/* Appends to ts[0..*n) the tensors of m's step not in it yet. */
static void add_step_tensors(const Mha *m, int step, int *ts, int *n, int max)
{
    const MhaStep *ms = &m->steps[step];
    int all[MHA_STEP_INPUTS + MHA_STEP_STMTS + 1], na = 0;
    for (int i = 0; i < ms->n_inputs; i++)
        all[na++] = ms->inputs[i];
    for (int i = 0; i < ms->n_made; i++)
        all[na++] = ms->made[i];
    if (!ms->n_made) all[na++] = ms->output; /* the input: x */
    for (int i = 0; i < na && *n < max; i++) {
        int seen = 0;
        for (int j = 0; j < *n; j++)
            seen |= ts[j] == all[i];
        if (!seen) ts[(*n)++] = all[i];
    }
}

int mha_step_tensors(const Mha *a, const Mha *b, int step, int *ts, int max)
{
    int n = 0;
    if (step < 0 || step >= MS_ALL) return 0;
    add_step_tensors(a, step, ts, &n, max);
    if (b) add_step_tensors(b, step, ts, &n, max);
    int k = 0; /* only what both runs hold: RoPE's Q_rope is one run's */
    for (int i = 0; i < n; i++)
        if (a->t[ts[i]] && (!b || b->t[ts[i]])) ts[k++] = ts[i];
    return k;
}
