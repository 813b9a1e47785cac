/* mha_panel.c - the walkthrough's program panel: attention as a learner
 * writes it in PyTorch, a short line a statement, over the run's names (x
 * W_Q W_K W_V W_O) and sizes (B S D H KV G dh, W the window), the names
 * mha_play_new preloads.  The program of a configuration computes the
 * run's out: tests/check_mha_panel.c runs it with the interpreter,
 * tests/ref_mha_ran.py (from the export's "program") with PyTorch.
 *
 * One table: each row is a line, when it is in the program, and the part
 * of it each step lights (src/README.md, The pipeline).  A failure picture
 * replaces the row it is about with its bug (mha_views[v].code).
 */
#include "engine/mha.h"

#include <string.h>

/* When a line is in the program. */
typedef enum { IN_ALL, IN_ROPE, IN_MHA, IN_GQA, IN_MASK, IN_CAUSAL, IN_WINDOW } In;

#define LIGHTS 3 /* steps that light one line, at most */

/* clang-format off */
static const struct {
    In in;
    const char *text;
    int bug;                                         /* the failure picture that replaces it */
    struct { int step; const char *span; } lit[LIGHTS]; /* span NULL: the whole line */
} rows[] = {
    {IN_ALL, "Q, K, V = x @ W_Q, x @ W_K, x @ W_V", MV_STEP, {{MS_PROJECT, NULL}}},
    {IN_ALL, "Q = Q.view(B, S, H, dh).transpose(1, 2)", MV_WRONG_VIEW,
     {{MS_SPLIT, ".view(B, S, H, dh)"}, {MS_HEADS, ".transpose(1, 2)"}}},
    {IN_ALL, "K = K.view(B, S, KV, dh).transpose(1, 2)", MV_STEP,
     {{MS_SPLIT, ".view(B, S, KV, dh)"}, {MS_HEADS, ".transpose(1, 2)"}}},
    {IN_ALL, "V = V.view(B, S, KV, dh).transpose(1, 2)", MV_STEP,
     {{MS_SPLIT, ".view(B, S, KV, dh)"}, {MS_HEADS, ".transpose(1, 2)"}}},
    /* V is not rotated */
    {IN_ROPE, "Q, K = rope(Q), rope(K)", MV_STEP, {{MS_ROPE, NULL}}},
    /* GQA and MQA: the G query heads of a group share its kv head's K and
     * V.  Q is viewed as (B, KV, G, S, dh) and K, V get a size-1 group
     * axis, which @ broadcasts with stride 0, as the run expands them: the
     * engine's matmul reads that axis in place, so the panel copies what
     * the run copies (PyTorch 1.13's matmul makes its own contiguous copy
     * inside the call; a repeat_interleave line would copy K and V G times
     * over, a copy of the program's own) */
    {IN_GQA, "Q = Q.view(B, KV, G, S, dh)", MV_STEP, {{MS_SCORES, NULL}}},
    {IN_GQA, "K, V = K.unsqueeze(2), V.unsqueeze(2)", MV_STEP,
     {{MS_SCORES, "K.unsqueeze(2)"}, {MS_WEIGHTED, "V.unsqueeze(2)"}}},
    {IN_ALL, "scores = Q @ K.transpose(-2, -1) / sqrt(dh)", MV_NO_SCALE, {{MS_SCORES, NULL}}},
    {IN_GQA, "scores = scores.view(B, H, S, S)", MV_STEP, {{MS_SCORES, NULL}}},
    /* query i sees key j iff j <= i (and i - j < W): the rest is hidden */
    {IN_MASK, "i = torch.arange(S).view(S, 1)", MV_STEP, {{MS_SOFTMAX, NULL}}},
    {IN_MASK, "j = torch.arange(S)", MV_STEP, {{MS_SOFTMAX, NULL}}},
    {IN_CAUSAL, "hide = j > i", MV_STEP, {{MS_SOFTMAX, NULL}}},
    {IN_WINDOW, "hide = (j > i) + (i - j >= W)", MV_STEP, {{MS_SOFTMAX, NULL}}},
    {IN_MASK, "scores = scores.masked_fill(hide, -math.inf)", MV_STEP, {{MS_SOFTMAX, NULL}}},
    {IN_ALL, "attn = softmax(scores, dim=-1)", MV_STEP, {{MS_SOFTMAX, NULL}}},
    {IN_MHA, "y = (attn @ V).transpose(1, 2).contiguous()", MV_STEP,
     {{MS_WEIGHTED, "(attn @ V)"}, {MS_BACK, ".transpose(1, 2)"}, {MS_CONTIG, ".contiguous()"}}},
    {IN_GQA, "y = attn.view(B, KV, G, S, S) @ V", MV_STEP, {{MS_WEIGHTED, NULL}}},
    {IN_GQA, "y = y.view(B, H, S, dh)", MV_STEP, {{MS_WEIGHTED, NULL}}},
    {IN_GQA, "y = y.transpose(1, 2).contiguous()", MV_STEP,
     {{MS_BACK, ".transpose(1, 2)"}, {MS_CONTIG, ".contiguous()"}}},
    /* y as nanoGPT names the heads put back; out, as the run and export do */
    {IN_ALL, "out = y.view(B, S, D) @ W_O", MV_STEP,
     {{MS_CONCAT, "y.view(B, S, D)"}, {MS_OUT, "@ W_O"}}},
};
/* clang-format on */
#define N_ROWS (int)(sizeof rows / sizeof rows[0])

static int in_program(const MhaConfig *c, In in)
{
    switch (in) {
    case IN_ROPE:
        return c->rope != ROPE_OFF;
    case IN_MHA:
        return c->kv_heads == c->heads;
    case IN_GQA:
        return c->kv_heads != c->heads;
    case IN_MASK:
        return c->causal;
    case IN_CAUSAL:
        return c->causal && !c->window;
    case IN_WINDOW:
        return c->causal && c->window > 0;
    default:
        return 1;
    }
}

void mha_panel(const MhaConfig *c, MhaView v, MhaPanel *p)
{
    memset(p, 0, sizeof *p);
    p->bug = -1;
    for (int r = 0; r < N_ROWS && p->n < MHA_PANEL_MAX; r++) {
        if (!in_program(c, rows[r].in)) continue;
        p->row[p->n] = r;
        p->line[p->n] = rows[r].text;
        if (v != MV_STEP && rows[r].bug == (int)v) {
            p->bug = p->n;
            p->line[p->n] = mha_views[v].code;
        }
        p->n++;
    }
}

const char *mha_panel_lit(const MhaPanel *p, int i, int step, int *len)
{
    *len = 0;
    if (i < 0 || i >= p->n) return NULL;
    const char *l = p->line[i], *at = NULL;
    if (p->bug >= 0) { /* a failure picture: its bug, whole */
        at = i == p->bug ? l : NULL;
        *len = at ? (int)strlen(l) : 0;
        return at;
    }
    if (step == MS_INPUT) return NULL; /* x is no statement (and lit[]'s unused rows are 0) */
    for (int k = 0; k < LIGHTS && !at; k++) {
        const char *span = rows[p->row[i]].lit[k].span;
        if (rows[p->row[i]].lit[k].step != step) continue;
        at = span ? strstr(l, span) : l;
        *len = at ? (int)strlen(span ? span : l) : 0;
    }
    return at;
}

int mha_panel_first_lit(const MhaPanel *p, int step, int *last)
{
    int first = -1, len;
    *last = -1;
    for (int i = 0; i < p->n; i++)
        if (mha_panel_lit(p, i, step, &len)) {
            if (first < 0) first = i;
            *last = i;
        }
    return first;
}
