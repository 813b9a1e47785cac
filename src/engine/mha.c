/* mha.c - the multi-head attention forward pass on the tensor engine,
 * recording a trace of the steps 0..10 and, with RoPE on, the rope step
 * between heads first and scores (src/README.md, The pipeline).
 *
 * Shapes (B batch, S seq, D d_model, H heads, KV kv_heads, G = H/KV, dh = D/H):
 *   x (B,S,D)  W_Q (D,D)  W_K, W_V (D,KV*dh)  W_O (D,D)
 *   Q_rope (B,H,S,dh)  K_rope (B,KV,S,dh): new buffers, V never rotated
 */
#include "engine/mha.h"

#include "base/errbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off: grouped by step, as in src/README.md */
const char *const mha_tensor_names[MT_COUNT] = {
    "x",       "W_Q",         "W_K",      "W_V",      "W_O",           "Q",
    "K",       "V",           "Q_split",  "K_split",  "V_split",       "Q_heads",
    "K_heads", "V_heads",     "Q_rope",   "K_rope",   "K_expand",      "V_expand",
    "scores",  "attn",        "head_out", "merged",   "merged_contig", "concat",
    "out",     "attn_single", "Q_wrong",  "K_repeat", "V_repeat",      "attn_noscale",
};
/* clang-format on */

/* One row per step, as in src/README.md, The pipeline. */
/* clang-format off */
const MhaStepInfo mha_steps[MS_ALL] = {
    /* name, key, reads all, shape, output, var */
    {"input", "input", 0, "(B, S, D)", MT_X, "x"},
    {"project", "project", 1, "(B, S, D)", MT_Q, "Q"},
    {"split heads", "split", 0, "(B, S, H, dh)", MT_Q_SPLIT, "Q"},
    {"heads first", "heads", 0, "(B, H, S, dh)", MT_Q_HEADS, "Q"},
    {"scores", "scores", 0, "(B, H, S, S)", MT_SCORES, "scores"},
    {"softmax", "softmax", 0, "(B, H, S, S)", MT_ATTN, "attn"},
    {"weighted sum", "weighted", 0, "(B, H, S, dh)", MT_HEAD_OUT, "y"},
    {"back to tokens", "back", 0, "(B, S, H, dh)", MT_MERGED, "y"},
    {"make contiguous", "contiguous", 0, "(B, S, H, dh)", MT_MERGED_CONTIG, "y"},
    {"concat", "concat", 0, "(B, S, D)", MT_CONCAT, "y"},
    {"output projection", "output", 0, "(B, S, D)", MT_OUT, "out"},
    /* only with RoPE on, after heads first: V is not rotated */
    {"rope", "rope", 1, "(B, H, S, dh)", MT_Q_ROPE, "Q"},
};

/* The bugs, as the run executes them (engine/mha_prog.c) and the panel
 * shows them in place of its line (engine/mha_panel.c). */
const MhaViewInfo mha_views[MV_COUNT] = {
    [MV_WRONG_VIEW] = {"wrong", "Q.view(B, H, S, dh) without the transpose",
                       MHA_WRONG_VIEW_CODE, "Q_wrong", MT_Q_WRONG},
    [MV_NO_SCALE] = {"noscale", "softmax without / sqrt(dh)",
                     "scores = Q @ K.transpose(-2, -1)", "attn", MT_ATTN_NOSCALE},
};
/* clang-format on */

static const char *const words[] = {"the",  "cat", "sat",   "on",  "a",   "warm", "mat", "and",
                                    "then", "it",  "slept", "all", "day", "in",   "its", "box"};

const char *mha_token_word(int s)
{
    /* "t16", "t17", ...: made once each, so two calls in one printf never
     * share a buffer */
    static char names[MHA_MAX_SEQ][8];
    if (s >= 0 && s < (int)(sizeof words / sizeof *words)) return words[s];
    static char other[16]; /* outside any run's tokens: one shared buffer */
    if (s < 0 || s >= MHA_MAX_SEQ) {
        snprintf(other, sizeof other, "t%d", s);
        return other;
    }
    if (!names[s][0]) snprintf(names[s], sizeof names[s], "t%d", s);
    return names[s];
}

MhaConfig mha_config_default(void)
{
    MhaConfig c = {.batch = 1,
                   .seq = 4,
                   .d_model = 8,
                   .heads = 2,
                   .kv_heads = 2,
                   .causal = 0,
                   .seed = 1,
                   .rope = ROPE_OFF,
                   .rope_theta = ROPE_THETA_DEFAULT};
    return c;
}

int mha_config_same(const MhaConfig *a, const MhaConfig *b)
{
    return a->batch == b->batch && a->seq == b->seq && a->d_model == b->d_model &&
           a->heads == b->heads && a->kv_heads == b->kv_heads && a->causal == b->causal &&
           a->seed == b->seed && a->rope == b->rope && a->rope_theta == b->rope_theta &&
           a->window == b->window && a->shared_prefix == b->shared_prefix;
}

/* "1, 2, 4 or 8": the divisors of n (at most 12 of them, then "..."). */
static void divisors(int n, char *buf, size_t len)
{
    int d[64], k = 0;
    for (int i = 1; i <= n && k < 64; i++)
        if (n % i == 0) d[k++] = i;
    size_t o = 0;
    buf[0] = 0;
    int shown = k > 12 ? 12 : k;
    for (int i = 0; i < shown && o < len; i++) {
        const char *sep = i == 0 ? "" : (i == shown - 1 && shown == k) ? " or " : ", ";
        o += (size_t)snprintf(buf + o, len - o, "%s%d", sep, d[i]);
    }
    if (shown < k && o < len) snprintf(buf + o, len - o, ", ...");
}

/* Floats a run keeps alive, roughly: activations, weights, two (B,H,S,S). */
static double run_floats(const MhaConfig *c)
{
    double B = c->batch, S = c->seq, D = c->d_model, H = c->heads;
    return 12 * B * S * D + 4 * D * D + (2 * H + 2) * B * S * S;
}
#define MHA_MAX_FLOATS (32.0 * 1024 * 1024) /* 128 MB: keeps export under ~15 s */

int mha_config_check(const MhaConfig *c, char *err, size_t errlen)
{
    char d[128];
    if (c->batch < 1 || c->batch > MHA_MAX_BATCH) {
        err_set(err, errlen, "--batch %d: must be between 1 and %d", c->batch, MHA_MAX_BATCH);
        return -1;
    }
    if (c->seq < 1 || c->seq > MHA_MAX_SEQ) {
        err_set(err, errlen, "--seq %d: must be between 1 and %d", c->seq, MHA_MAX_SEQ);
        return -1;
    }
    if (c->d_model < 1 || c->d_model > MHA_MAX_DMODEL) {
        err_set(err, errlen, "--d-model %d: must be between 1 and %d", c->d_model, MHA_MAX_DMODEL);
        return -1;
    }
    if (c->heads < 1 || c->heads > c->d_model) {
        err_set(err, errlen, "--heads %d: must be between 1 and d_model (%d)", c->heads,
                c->d_model);
        return -1;
    }
    if (c->d_model % c->heads) {
        divisors(c->d_model, d, sizeof d);
        err_set(err, errlen, "--heads %d: d_model %d is not divisible by %d (try %s)", c->heads,
                c->d_model, c->heads, d);
        return -1;
    }
    if (c->kv_heads < 1 || c->kv_heads > c->heads) {
        err_set(err, errlen, "--kv-heads %d: must be between 1 and heads (%d)", c->kv_heads,
                c->heads);
        return -1;
    }
    if (c->heads % c->kv_heads) {
        divisors(c->heads, d, sizeof d);
        err_set(err, errlen, "--kv-heads %d: heads %d is not divisible by %d (try %s)", c->kv_heads,
                c->heads, c->kv_heads, d);
        return -1;
    }
    if (c->rope != ROPE_OFF && (c->rope < 0 || c->rope >= ROPE_LAYOUTS)) {
        err_set(err, errlen, "--rope: unknown layout (use half or interleaved)");
        return -1;
    }
    if (c->rope != ROPE_OFF && (c->d_model / c->heads) % 2) {
        err_set(err, errlen,
                "--rope %s: d_head %d (--d-model %d / --heads %d) is odd; RoPE turns pairs of "
                "floats, it needs an even d_head",
                rope_layout_name(c->rope), c->d_model / c->heads, c->d_model, c->heads);
        return -1;
    }
    if (c->rope != ROPE_OFF && !(c->rope_theta > 0 && c->rope_theta <= ROPE_THETA_MAX)) {
        err_set(err, errlen, "--rope-theta %g: must be a positive number up to %g", c->rope_theta,
                ROPE_THETA_MAX);
        return -1;
    }
    if (c->window < 0 || c->window > MHA_MAX_SEQ) {
        err_set(err, errlen, "--window %d: must be between 1 and %d", c->window, MHA_MAX_SEQ);
        return -1;
    }
    if (c->window && !c->causal) {
        err_set(err, errlen,
                "--window %d: needs --causal (the window is a band of the causal mask)", c->window);
        return -1;
    }
    if (c->shared_prefix < 0 || c->shared_prefix > c->seq) {
        err_set(err, errlen, "--shared-prefix %d: must be 0 to --seq %d", c->shared_prefix, c->seq);
        return -1;
    }
    if (run_floats(c) > MHA_MAX_FLOATS) {
        err_set(err, errlen,
                "--batch %d --seq %d --d-model %d --heads %d: needs about %.0f MB, over the %.0f "
                "MB limit",
                c->batch, c->seq, c->d_model, c->heads, run_floats(c) * 4 / 1048576.0,
                MHA_MAX_FLOATS * 4 / 1048576.0);
        return -1;
    }
    return 0;
}

/* splitmix64 (Steele, Lea, Flood 2014): a full-period 64-bit generator whose
 * output depends only on the seed, so every machine draws the same numbers. */
void mha_rng_seed(MhaRng *r, uint32_t seed)
{
    r->s = seed;
}

uint64_t mha_rng_next(MhaRng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

float mha_rng_tenth(MhaRng *r)
{
    return (float)((int)(mha_rng_next(r) % 21) - 10) / 10.0f; /* -1.0, -0.9, ..., 1.0 */
}

int mha_weights_scaled(const MhaConfig *c)
{
    return c->d_model > MHA_TENTHS_MAX_D;
}

static Tensor *random_tensor(Engine *e, MhaRng *r, int ndim, const int *shape)
{
    Tensor *t = tensor_zeros(e, ndim, shape);
    if (t)
        for (size_t i = 0; i < t->st->n; i++)
            t->st->data[i] = mha_rng_tenth(r);
    return t;
}

/* The value of one symbol of a shape, or -1. */
static int shape_symbol(const MhaConfig *c, const char *sym, size_t len)
{
    static const char *const names[] = {"B", "S", "D", "H", "KV", "G", "dh", "KV*dh"};
    int dh = c->d_model / c->heads, G = c->heads / c->kv_heads;
    int vals[] = {c->batch, c->seq, c->d_model, c->heads, c->kv_heads, G, dh, c->kv_heads * dh};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], sym, len)) return vals[i];
    return -1;
}

int mha_shape_of(const MhaConfig *c, const char *shape, int *dims, int max)
{
    int n = 0;
    const char *p = shape;
    if (*p++ != '(') return -1;
    while (*p && *p != ')') {
        size_t len = strcspn(p, ",)");
        int v = shape_symbol(c, p, len);
        if (v < 0 || n >= max) return -1;
        dims[n++] = v;
        p += len;
        if (*p == ',') p++;
        while (*p == ' ')
            p++;
    }
    return *p == ')' ? n : -1;
}

int mha_kv_head_of(const MhaConfig *c, int query_head)
{
    return query_head / (c->heads / c->kv_heads);
}

int mha_tensor_index(const char *name)
{
    for (int i = 0; i < MT_COUNT; i++)
        if (!strcmp(name, mha_tensor_names[i])) return i;
    return -1;
}

int mha_step_total(const MhaConfig *c)
{
    return c->rope != ROPE_OFF ? MS_ALL : MS_COUNT;
}

int mha_step_on(const MhaConfig *c, int step)
{
    return step >= 0 && step < mha_step_total(c);
}

int mha_step_at(const MhaConfig *c, int k)
{
    if (k < 0 || k >= mha_step_total(c)) return -1;
    if (c->rope == ROPE_OFF || k <= MS_HEADS) return k;
    return k == MS_HEADS + 1 ? MS_ROPE : k - 1;
}

int mha_step_number(const MhaConfig *c, int step)
{
    if (!mha_step_on(c, step)) return -1;
    if (c->rope == ROPE_OFF || step <= MS_HEADS) return step;
    return step == MS_ROPE ? MS_HEADS + 1 : step + 1;
}

int mha_step_find(const MhaConfig *c, const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s && !*end) return n >= 0 && n < mha_step_total(c) ? mha_step_at(c, (int)n) : -1;
    int k = mha_step_index(s);
    return mha_step_on(c, k) ? k : -1;
}

int mha_step_index(const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s && !*end) return n >= 0 && n < MS_COUNT ? (int)n : -1;
    for (int i = 0; i < MS_ALL; i++)
        if (!strcmp(s, mha_steps[i].key) || !strcmp(s, mha_steps[i].name)) return i;
    return -1;
}

/* Row r of head hd of t (B, n, S, dh) at batch b, permuted for layout l's
 * partner and rotated by the other layout at position p, into out. */
static void hf_row(const Mha *m, const Tensor *t, int b, int hd, int p, int unpermuted, float *out)
{
    const int dh = m->d_head, half = dh / 2, inter = m->cfg.rope == ROPE_INTERLEAVED;
    for (int j = 0; j < dh; j++) {
        int src = j; /* interleaved run: new j <- old 2j, new j + dh/2 <- old 2j + 1 */
        if (!unpermuted)
            src = inter ? (j < half ? 2 * j : 2 * (j - half) + 1) : (j % 2 ? half + j / 2 : j / 2);
        out[j] = tensor_get(t, (int[]){b, hd, p, src});
    }
    rope_rotate(out, dh, p, inter ? ROPE_HALF : ROPE_INTERLEAVED, m->cfg.rope_theta);
}

float mha_rope_hf_diff(const Mha *m, int unpermuted)
{
    const MhaConfig *c = &m->cfg;
    if (c->rope == ROPE_OFF || !m->t[MT_Q_ROPE]) return -1;
    const int dh = m->d_head;
    float *q = malloc(2 * (size_t)dh * sizeof *q), worst = 0;
    if (!q) return -1;
    for (int b = 0; b < c->batch; b++)
        for (int h = 0; h < c->heads; h++)
            for (int i = 0; i < c->seq; i++) {
                hf_row(m, m->t[MT_Q_HEADS], b, h, i, unpermuted, q);
                for (int s = 0; s < c->seq; s++) {
                    hf_row(m, m->t[MT_K_HEADS], b, mha_kv_head_of(c, h), s, unpermuted, q + dh);
                    float d = 0;
                    for (int j = 0; j < dh; j++)
                        d += q[j] * q[dh + j];
                    d = fabsf(d * m->scale - tensor_get(m->t[MT_SCORES], (int[]){b, h, i, s}));
                    if (d > worst) worst = d;
                }
            }
    free(q);
    return worst;
}

void mha_free(Mha *m)
{
    if (!m) return;
    for (int i = 0; i < MT_COUNT; i++)
        tensor_free(m->t[i]);
    engine_release(m->eng);
    free(m);
}

void mha_band_mask_(Tensor *t, int window, int q0)
{
    if (window <= 0 || t->ndim < 2) return;
    int idx[TENSOR_MAXDIM] = {0}, nd = t->ndim;
    for (size_t e = 0, n = tensor_numel(t); e < n; e++) {
        if (idx[nd - 1] <= q0 + idx[nd - 2] - window) tensor_set(t, idx, -INFINITY);
        for (int a = nd - 1; a >= 0 && ++idx[a] == t->shape[a]; a--)
            idx[a] = 0;
    }
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        if (!(expr)) goto fail;                                                                    \
    } while (0)
#define DIMS(...)                                                                                  \
    (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[])                                     \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }

/* The run's sizes, named as in the shape comments. */
typedef struct Sizes {
    int B, S, D, H, KV, dh, G;
} Sizes;

static Sizes sizes_of(const Mha *m)
{
    const MhaConfig *c = &m->cfg;
    return (Sizes){c->batch, c->seq, c->d_model, c->heads, c->kv_heads, m->d_head, m->groups};
}

/* 0. input, and the weights: drawn in this order from the seed */
static int draw_inputs(Mha *m, MhaRng *rng)
{
    const Sizes z = sizes_of(m);
    Tensor **t = m->t;
    size_t before = m->eng->bytes_copied;
    TRY(t[MT_X] = random_tensor(m->eng, rng, DIMS(z.B, z.S, z.D)));      /* (B, S, D) */
    TRY(t[MT_W_Q] = random_tensor(m->eng, rng, DIMS(z.D, z.D)));         /* (D, D) */
    TRY(t[MT_W_K] = random_tensor(m->eng, rng, DIMS(z.D, z.KV * z.dh))); /* (D, KV*dh) */
    TRY(t[MT_W_V] = random_tensor(m->eng, rng, DIMS(z.D, z.KV * z.dh))); /* (D, KV*dh) */
    TRY(t[MT_W_O] = random_tensor(m->eng, rng, DIMS(z.D, z.D)));         /* (D, D) */
    if (mha_weights_scaled(&m->cfg)) /* hand-checking is out of reach: a real init's scale */
        for (int i = MT_W_Q; i <= MT_W_O; i++)
            tensor_scale_(t[i], 1.0f / sqrtf((float)z.D));
    for (int b = 1; b < z.B; b++) /* a shared prompt prefix: x[b, :P] = x[0, :P] */
        for (int s = 0; s < m->cfg.shared_prefix; s++)
            for (int i = 0; i < z.D; i++)
                tensor_set(t[MT_X], (int[]){b, s, i}, tensor_get(t[MT_X], (int[]){0, s, i}));
    MhaStep *st = &m->steps[MS_INPUT]; /* the input: no statement, nothing read */
    st->name = mha_steps[MS_INPUT].name;
    st->key = mha_steps[MS_INPUT].key;
    snprintf(st->code, sizeof st->code, "x");
    st->output = MT_X;
    st->bytes_copied = m->eng->bytes_copied - before;
    return 0;
fail:
    return -1;
}

/* 1 ... 10 and the teaching tensors: engine/mha_prog.c's PyTorch program,
 * run by the interpreter in this run's engine. */

Mha *mha_run(const MhaConfig *c, char *err, size_t errlen)
{
    if (mha_config_check(c, err, errlen)) return NULL;
    Mha *m = calloc(1, sizeof *m);
    if (!m) {
        err_set(err, errlen, "out of memory");
        return NULL;
    }
    char e[256] = "out of memory";
    m->cfg = *c;
    m->d_head = c->d_model / c->heads;
    m->groups = c->heads / c->kv_heads;
    if (!(m->eng = engine_new(NULL))) {
        free(m);
        err_set(err, errlen, "out of memory");
        return NULL;
    }
    MhaRng rng;
    mha_rng_seed(&rng, c->seed);
    m->scale = 1.0f / sqrtf((float)m->d_head); /* what / sqrt(dh) divides by, as a factor */
    if (draw_inputs(m, &rng) || mha_program_run(m, e, sizeof e)) {
        mha_free(m);
        err_set(err, errlen, "%s", e);
        return NULL;
    }
    return m;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void mha_config_next(MhaConfig *c, MhaNext what)
{
    if (what == MHA_NEXT_HEADS) {
        int h = c->heads + 1;
        while (h <= c->d_model && c->d_model % h)
            h++;
        if (h > c->d_model) h = 1;
        c->kv_heads = c->kv_heads == c->heads ? h : gcd(h, c->kv_heads);
        c->heads = h;
    } else if (what == MHA_NEXT_KV_HEADS) {
        int k = c->kv_heads - 1;
        while (k >= 1 && c->heads % k)
            k--;
        c->kv_heads = k >= 1 ? k : c->heads;
    } else {
        c->seq = c->seq >= 8 ? 2 : c->seq + 1;
    }
}
