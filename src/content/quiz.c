/* quiz.c - the question generators.  Every expected answer is read off real
 * tensors built with the tensor API for the question's configuration; the
 * "working" shown after an answer is the list of engine steps that led to it,
 * with the shapes, strides and byte counts the engine reported. */
#include "content/quiz.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/kv.h"
#include "content/presets.h"

const char *const quiz_topic_names[QT_COUNT] = {
    "shapes", "strides", "offsets", "views", "gqa", "kvcache", "bugs", "concepts",
};

int quiz_topic_index(const char *name)
{
    for (int i = 0; name && i < QT_COUNT; i++)
        if (!strcmp(name, quiz_topic_names[i])) return i;
    return -1;
}

/* The generated kinds of each topic. */
static const int topic_kinds[QT_COUNT][4] = {
    [QT_SHAPES] = {QG_SHAPE, -1},
    [QT_STRIDES] = {QG_STRIDES, QG_CONTIG, -1},
    [QT_OFFSETS] = {QG_OFFSET, -1},
    [QT_VIEWS] = {QG_VIEWCOPY, -1},
    [QT_GQA] = {QG_KVSHAPE, QG_KVHEAD, QG_REPEAT_BYTES, -1},
    [QT_KVCACHE] = {QG_KVCACHE, -1},
    [QT_BUGS] = {QG_BUG, -1},
    [QT_CONCEPTS] = {-1},
};

int quiz_topic_generated(int topic)
{
    return topic >= 0 && topic < QT_COUNT && topic_kinds[topic][0] >= 0;
}

/* ---- the generator's own random stream --------------------------------- */

void quiz_rng_seed(QuizRng *r, uint64_t seed)
{
    r->s = seed ^ 0x6d68617669717a31ULL; /* "mhaviqz1": a stream apart from the weights */
}

uint64_t quiz_rng_next(QuizRng *r)
{
    return mha_rng_next(r);
}

int quiz_rng_below(QuizRng *r, int n)
{
    return n <= 1 ? 0 : (int)(quiz_rng_next(r) % (uint64_t)n);
}

static int pick(QuizRng *r, const int *v, int n)
{
    return v[quiz_rng_below(r, n)];
}

/* ---- small text helpers ------------------------------------------------- */

static void cat(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t l = strlen(buf);
    if (l + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + l, n - l, fmt, ap);
    va_end(ap);
}

static char *fmt_ll(char *buf, size_t n, int k, const long long *v)
{
    buf[0] = 0;
    cat(buf, n, "(");
    for (int i = 0; i < k; i++) cat(buf, n, "%s%lld", i ? ", " : "", v[i]);
    cat(buf, n, k == 1 ? ",)" : ")");
    return buf;
}

static void set_tuple_shape(QuizQuestion *q, const Tensor *t)
{
    q->kind = QK_TUPLE;
    q->n_tuple = t->ndim;
    for (int i = 0; i < t->ndim; i++) q->tuple[i] = t->shape[i];
}

static void set_tuple_strides(QuizQuestion *q, const Tensor *t)
{
    q->kind = QK_TUPLE;
    q->n_tuple = t->ndim;
    for (int i = 0; i < t->ndim; i++) q->tuple[i] = t->strides[i];
}

/* Adds choice text s unless it repeats one (choices stay unique). */
static int add_choice(QuizQuestion *q, const char *s)
{
    if (q->n_choices >= QUIZ_MAX_CHOICES) return 0;
    for (int i = 0; i < q->n_choices; i++)
        if (!strcmp(q->choices[i], s)) return 0;
    snprintf(q->choices[q->n_choices++], QUIZ_CHOICE_MAX, "%s", s);
    return 1;
}

/* Turns q into multiple choice: the correct text plus up to `want` distinct
 * distractors from cand (already without the correct one or not: repeats
 * are dropped), in an order drawn from r. */
static void make_choices(QuizQuestion *q, QuizRng *r, const char *correct, char (*cand)[QUIZ_CHOICE_MAX],
                         int ncand, int want)
{
    q->kind = QK_CHOICE;
    q->n_choices = 0;
    add_choice(q, correct);
    /* shuffle the candidates, then take the first distinct ones */
    for (int i = ncand - 1; i > 0; i--) {
        int j = quiz_rng_below(r, i + 1);
        char tmp[QUIZ_CHOICE_MAX];
        memcpy(tmp, cand[i], sizeof tmp);
        memcpy(cand[i], cand[j], sizeof tmp);
        memcpy(cand[j], tmp, sizeof tmp);
    }
    for (int i = 0; i < ncand && q->n_choices < want + 1; i++) add_choice(q, cand[i]);
    /* move the correct one (at 0) to a random place */
    int pos = quiz_rng_below(r, q->n_choices);
    char tmp[QUIZ_CHOICE_MAX];
    memcpy(tmp, q->choices[pos], sizeof tmp);
    memcpy(q->choices[pos], q->choices[0], sizeof tmp);
    memcpy(q->choices[0], tmp, sizeof tmp);
    q->correct = pos;
}

/* ---- building the pipeline's tensors on demand ---------------------------- */

typedef struct Build {
    MhaConfig c;
    int B, S, D, H, KV, dh, G;
    Tensor *t[MT_COUNT];
    char line[MT_COUNT][96]; /* the code that made t[i]; "" for inputs */
    size_t copied[MT_COUNT]; /* bytes the engine counted while making t[i] */
    int order[MT_COUNT], n;  /* creation order */
    char err[240];
} Build;

static void build_init(Build *b, const MhaConfig *c)
{
    memset(b, 0, sizeof *b);
    b->c = *c;
    b->B = c->batch, b->S = c->seq, b->D = c->d_model, b->H = c->heads, b->KV = c->kv_heads;
    b->dh = c->d_model / c->heads;
    b->G = c->heads / c->kv_heads;
}

static void build_free(Build *b)
{
    for (int i = 0; i < MT_COUNT; i++) tensor_free(b->t[i]);
    memset(b->t, 0, sizeof b->t);
}

static int made(Build *b, int id, Tensor *t, size_t before, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static int made(Build *b, int id, Tensor *t, size_t before, const char *fmt, ...)
{
    if (!t) {
        if (!b->err[0]) snprintf(b->err, sizeof b->err, "out of memory building %s", mha_tensor_names[id]);
        return -1;
    }
    b->t[id] = t;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->line[id], sizeof b->line[id], fmt, ap);
    va_end(ap);
    b->copied[id] = tensor_bytes_copied() - before;
    b->order[b->n++] = id;
    return 0;
}

/* The variable a code line assigns (what the learner calls the tensor). */
static const char *var_of(int id)
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

static int need(Build *b, int id);

/* An input of the given shape whose values do not matter (the question is
 * about shapes and strides): one zero float expanded with stride 0, so a
 * (768, 768) weight costs 4 bytes, not 2.3 MB.  Its matmul output is real. */
static Tensor *zeros_expanded(int ndim, const int *shape)
{
    int one[TENSOR_MAXDIM] = {1, 1, 1, 1, 1, 1};
    Tensor *z = tensor_zeros(ndim, one);
    Tensor *e = z ? tensor_expand(z, ndim, shape, NULL, 0) : NULL;
    tensor_free(z);
    return e;
}

/* K or V as the query heads read it: repeated when kv heads are shared. */
static int kv_for_heads(Build *b, int heads_id, int repeat_id)
{
    int want = b->G > 1 ? repeat_id : heads_id;
    return need(b, want) ? -1 : want;
}

static int need(Build *b, int id)
{
    if (b->t[id]) return 0;
    const int B = b->B, S = b->S, D = b->D, H = b->H, KV = b->KV, dh = b->dh, G = b->G;
    char *e = b->err;
    size_t el = sizeof b->err, before = tensor_bytes_copied();
    switch (id) {
    case MT_X: {
        int sh[3] = {B, S, D}; /* (B, S, D) */
        return made(b, id, zeros_expanded(3, sh), before, "%s", "");
    }
    case MT_W_Q: case MT_W_O: {
        int sh[2] = {D, D}; /* (D, D) */
        return made(b, id, zeros_expanded(2, sh), before, "%s", "");
    }
    case MT_W_K: case MT_W_V: {
        int sh[2] = {D, KV * dh}; /* (D, KV*dh) */
        return made(b, id, zeros_expanded(2, sh), before, "%s", "");
    }
    case MT_Q: case MT_K: case MT_V: {
        int w = id == MT_Q ? MT_W_Q : id == MT_K ? MT_W_K : MT_W_V;
        if (need(b, MT_X) || need(b, w)) return -1;
        before = tensor_bytes_copied();
        return made(b, id, tensor_matmul(b->t[MT_X], b->t[w], e, el), before, "%s = x @ %s", var_of(id),
                    mha_tensor_names[w]);
    }
    case MT_Q_SPLIT: case MT_K_SPLIT: case MT_V_SPLIT: {
        int src = id == MT_Q_SPLIT ? MT_Q : id == MT_K_SPLIT ? MT_K : MT_V;
        int n = id == MT_Q_SPLIT ? H : KV;
        if (need(b, src)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        int sh[4] = {B, S, n, dh}; /* (B, S, n, dh) */
        return made(b, id, tensor_view(b->t[src], 4, sh, e, el), before, "%s = %s.view(%d, %d, %d, %d)",
                    var_of(id), var_of(id), B, S, n, dh);
    }
    case MT_Q_HEADS: case MT_K_HEADS: case MT_V_HEADS: {
        int src = id == MT_Q_HEADS ? MT_Q_SPLIT : id == MT_K_HEADS ? MT_K_SPLIT : MT_V_SPLIT;
        if (need(b, src)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        return made(b, id, tensor_transpose(b->t[src], 1, 2, e, el), before, "%s = %s.transpose(1, 2)",
                    var_of(id), var_of(id));
    }
    case MT_K_EXPAND: case MT_V_EXPAND: {
        int src = id == MT_K_EXPAND ? MT_K_HEADS : MT_V_HEADS;
        if (need(b, src)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        Tensor *u = tensor_unsqueeze(b->t[src], 2, e, el); /* (B, KV, 1, S, dh) */
        int sh[5] = {B, KV, G, S, dh};                     /* (B, KV, G, S, dh), stride 0 on G */
        Tensor *x = u ? tensor_expand(u, 5, sh, e, el) : NULL;
        tensor_free(u);
        return made(b, id, x, before, "%s = %s.unsqueeze(2).expand(%d, %d, %d, %d, %d)", var_of(id),
                    var_of(src), B, KV, G, S, dh);
    }
    case MT_K_REPEAT: case MT_V_REPEAT: {
        int src = id == MT_K_REPEAT ? MT_K_HEADS : MT_V_HEADS;
        if (need(b, src)) return -1;
        before = tensor_bytes_copied();
        return made(b, id, tensor_repeat_interleave(b->t[src], G, 1, e, el), before,
                    "%s = %s.repeat_interleave(%d, dim=1)", var_of(id), var_of(id), G);
    }
    case MT_SCORES: {
        if (need(b, MT_Q_HEADS)) return -1;
        int k = kv_for_heads(b, MT_K_HEADS, MT_K_REPEAT);
        if (k < 0) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        Tensor *kt = tensor_transpose(b->t[k], -2, -1, e, el); /* (B, H, dh, S) */
        Tensor *s = kt ? tensor_matmul(b->t[MT_Q_HEADS], kt, e, el) : NULL;
        tensor_free(kt);
        if (s) tensor_scale_(s, 1.0f / sqrtf((float)dh));
        return made(b, id, s, before, "scores = Q @ K.transpose(-2, -1) / sqrt(%d)", dh);
    }
    case MT_ATTN: {
        if (need(b, MT_SCORES)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        /* softmax writes a new (B, H, S, S) buffer, as torch.softmax does */
        Tensor *a = tensor_zeros(b->t[MT_SCORES]->ndim, b->t[MT_SCORES]->shape);
        if (a) {
            tensor_to_array(b->t[MT_SCORES], a->st->data);
            tensor_softmax_lastdim_(a);
        }
        return made(b, id, a, before, "attn = softmax(scores, dim=-1)");
    }
    case MT_HEAD_OUT: {
        if (need(b, MT_ATTN)) return -1;
        int v = kv_for_heads(b, MT_V_HEADS, MT_V_REPEAT);
        if (v < 0) return -1;
        before = tensor_bytes_copied();
        return made(b, id, tensor_matmul(b->t[MT_ATTN], b->t[v], e, el), before, "out = attn @ V");
    }
    case MT_MERGED:
        if (need(b, MT_HEAD_OUT)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        return made(b, id, tensor_transpose(b->t[MT_HEAD_OUT], 1, 2, e, el), before, "out = out.transpose(1, 2)");
    case MT_MERGED_CONTIG:
        if (need(b, MT_MERGED)) return -1;
        before = tensor_bytes_copied();
        return made(b, id, tensor_contiguous(b->t[MT_MERGED]), before, "out = out.contiguous()");
    case MT_CONCAT: {
        if (need(b, MT_MERGED_CONTIG)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        int sh[3] = {B, S, D}; /* (B, S, D) */
        return made(b, id, tensor_view(b->t[MT_MERGED_CONTIG], 3, sh, e, el), before, "out = out.view(%d, %d, %d)",
                    B, S, D);
    }
    case MT_OUT:
        if (need(b, MT_CONCAT) || need(b, MT_W_O)) return -1;
        before = tensor_bytes_copied();
        return made(b, id, tensor_matmul(b->t[MT_CONCAT], b->t[MT_W_O], e, el), before, "y = out @ W_O");
    case MT_Q_WRONG: {
        if (need(b, MT_Q)) return -1;
        before = tensor_bytes_copied(); /* what this step copies, not its inputs */
        int sh[4] = {B, H, S, dh}; /* the bug: (B, H, S, dh) straight from (B, S, D) */
        return made(b, id, tensor_view(b->t[MT_Q], 4, sh, e, el), before, "Q_bad = Q.view(%d, %d, %d, %d)", B,
                    H, S, dh);
    }
    default:
        snprintf(e, el, "no builder for %s", mha_tensor_names[id]);
        return -1;
    }
}

/* Does t share its storage with a tensor made before it? */
static int shares_earlier(const Build *b, int id)
{
    for (int k = 0; k < b->n && b->order[k] != id; k++)
        if (tensor_same_storage(b->t[b->order[k]], b->t[id])) return 1;
    return 0;
}

/* The code lines the build ran, one per line, indented. */
static void code_lines(const Build *b, char *buf, size_t n)
{
    for (int k = 0; k < b->n; k++)
        if (b->line[b->order[k]][0]) cat(buf, n, "    %s\n", b->line[b->order[k]]);
}

/* The engine's working: each step with the shape and strides it produced,
 * and whether it was a view or a copy (bytes as counted). */
static void working_lines(const Build *b, char *buf, size_t n)
{
    for (int k = 0; k < b->n; k++) {
        int id = b->order[k];
        if (!b->line[id][0]) continue;
        const Tensor *t = b->t[id];
        char sh[64], st[64];
        tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
        tensor_fmt_strides(st, sizeof st, t);
        cat(buf, n, "  %-44s -> %s strides %s, ", b->line[id], sh, st);
        if (b->copied[id]) cat(buf, n, "copy: %zu bytes\n", b->copied[id]);
        else if (shares_earlier(b, id)) cat(buf, n, "view: %zu bytes\n", b->copied[id]);
        else cat(buf, n, "new buffer\n");
    }
}

static void config_line(const MhaConfig *c, char *buf, size_t n)
{
    int dh = c->d_model / c->heads;
    cat(buf, n, "x is (%d, %d, %d): batch %d, %d token%s, d_model %d; %d head%s (d_head %d)", c->batch, c->seq,
        c->d_model, c->batch, c->seq, c->seq == 1 ? "" : "s", c->d_model, c->heads, c->heads == 1 ? "" : "s", dh);
    if (c->kv_heads != c->heads)
        cat(buf, n, ", %d kv head%s (%s)", c->kv_heads, c->kv_heads == 1 ? "" : "s",
            c->kv_heads == 1 ? "MQA" : "GQA");
    cat(buf, n, ".\n");
}

/* ---- configurations ------------------------------------------------------ */

/* A realistic config whose tensors stay small: numel(x) and the matmul work
 * are bounded (work_cap multiply-adds per D x D projection). */
static MhaConfig draw_config(QuizRng *r, int kv_mode, double work_cap)
{
    static const int Ds[] = {64, 128, 256, 384, 512, 768};
    static const int dhs[] = {16, 32, 64, 128};
    static const int Bs[] = {1, 2, 4};
    static const int Ss[] = {4, 8, 16, 32};
    MhaConfig c = mha_config_default();
    for (int tries = 0; tries < 200; tries++) {
        c.d_model = pick(r, Ds, 6);
        int dh = pick(r, dhs, 4);
        /* at least 2 heads: a stride on a size-1 axis is arbitrary, not a question */
        if (c.d_model % dh || c.d_model / dh > 64 || c.d_model / dh < 2) continue;
        c.heads = c.d_model / dh;
        c.batch = pick(r, Bs, 3);
        c.seq = pick(r, Ss, 4);
        if ((double)c.batch * c.seq * c.d_model * c.d_model > work_cap) continue;
        /* distinct sizes, so a swapped pair of dims is a visibly wrong answer */
        if (tries < 150 && (c.seq == dh || c.seq == c.heads || c.heads == dh || c.batch == c.seq ||
                            c.batch == c.heads))
            continue;
        break;
    }
    /* kv_mode: 0 any, 1 shared (GQA or MQA) */
    int mode = kv_mode ? 1 + quiz_rng_below(r, 2) : quiz_rng_below(r, 4); /* 0,3 MHA 1 GQA 2 MQA */
    c.kv_heads = c.heads;
    if (mode == 2 || (mode == 1 && c.heads < 4)) c.kv_heads = 1;
    else if (mode == 1) {
        int divs[8], nd = 0;
        for (int k = 2; k < c.heads && nd < 8; k++)
            if (c.heads % k == 0) divs[nd++] = k;
        c.kv_heads = nd ? divs[quiz_rng_below(r, nd)] : 1;
    }
    c.seed = (uint32_t)(quiz_rng_next(r) % 1000) + 1;
    return c;
}

/* A toy config the candy bar can draw: B <= 2, S <= 6, D <= 16. */
static MhaConfig draw_toy(QuizRng *r, int need_heads2)
{
    static const int Ds[] = {8, 12, 16};
    MhaConfig c = mha_config_default();
    c.batch = 1 + quiz_rng_below(r, 2);
    c.seq = 2 + quiz_rng_below(r, 5);
    c.d_model = Ds[quiz_rng_below(r, 3)];
    int hs[4], nh = 0;
    for (int h = need_heads2 ? 2 : 1; h <= c.d_model / 2 && nh < 4; h++)
        if (c.d_model % h == 0 && c.d_model / h >= 2) hs[nh++] = h;
    c.heads = hs[quiz_rng_below(r, nh)];
    int kvs[8], nk = 0;
    for (int k = 1; k <= c.heads; k++)
        if (c.heads % k == 0) kvs[nk++] = k;
    c.kv_heads = quiz_rng_below(r, 2) ? c.heads : kvs[quiz_rng_below(r, nk)];
    c.seed = (uint32_t)(quiz_rng_next(r) % 1000) + 1;
    return c;
}

/* ---- the generated kinds ------------------------------------------------- */

typedef struct Gen {
    QuizQuestion *q;
    QuizRng r;
    char *err;
    size_t errlen;
} Gen;

/* Builds c's tensors up to target for the question of topic: 0, or -1 with
 * the reason in g->err (b is then already freed). */
static int begin(Gen *g, Build *b, const MhaConfig *c, int target, int topic)
{
    build_init(b, c);
    if (need(b, target)) {
        snprintf(g->err, g->errlen, "%s", b->err);
        build_free(b);
        return -1;
    }
    g->q->topic = topic;
    g->q->cfg = *c;
    g->q->tensor = target;
    return 0;
}

static void fill_tuple_distractors(Build *b, const long long *ans, int n, char (*cand)[QUIZ_CHOICE_MAX], int *nc,
                                   int maxc)
{
    char buf[QUIZ_CHOICE_MAX];
    long long v[QUIZ_MAX_TUPLE];
    /* the answer with two dims swapped */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n && *nc < maxc; j++) {
            memcpy(v, ans, sizeof(long long) * (size_t)n);
            long long t = v[i];
            v[i] = v[j], v[j] = t;
            snprintf(cand[(*nc)++], QUIZ_CHOICE_MAX, "%s", fmt_ll(buf, sizeof buf, n, v));
        }
    /* the shapes of the pipeline's other tensors (not the weights) */
    for (int k = 0; k < b->n && *nc < maxc; k++) {
        if (!b->line[b->order[k]][0]) continue;
        const Tensor *t = b->t[b->order[k]];
        for (int i = 0; i < t->ndim; i++) v[i] = t->shape[i];
        snprintf(cand[(*nc)++], QUIZ_CHOICE_MAX, "%s", fmt_ll(buf, sizeof buf, t->ndim, v));
    }
    /* the usual confusions */
    const long long B = b->B, S = b->S, D = b->D, H = b->H, KV = b->KV, dh = b->dh;
    const long long usual[][4] = {{B, S, D, 0}, {B, H, S, dh}, {B, S, H, dh}, {B, KV, S, dh},
                                  {B, H, S, S}, {B, H, dh, S}, {B, S, KV * dh, 0}, {B, S, S, 0}};
    for (size_t u = 0; u < sizeof usual / sizeof usual[0] && *nc < maxc; u++) {
        int k = usual[u][3] ? 4 : 3;
        snprintf(cand[(*nc)++], QUIZ_CHOICE_MAX, "%s", fmt_ll(buf, sizeof buf, k, usual[u]));
    }
}

/* Half the shape questions are multiple choice: the answer among three
 * distractors built from it; the others take a typed shape. */
static void maybe_shape_choices(QuizQuestion *q, QuizRng *r, Build *b)
{
    if (!quiz_rng_below(r, 2)) return;
    char cand[48][QUIZ_CHOICE_MAX], ans[QUIZ_CHOICE_MAX];
    int nc = 0;
    fill_tuple_distractors(b, q->tuple, q->n_tuple, cand, &nc, 48);
    fmt_ll(ans, sizeof ans, q->n_tuple, q->tuple);
    make_choices(q, r, ans, cand, nc, 3);
}

static void finish_working(QuizQuestion *q, const Build *b)
{
    cat(q->working, sizeof q->working, "The engine ran:\n");
    working_lines(b, q->working, sizeof q->working);
}

/* What the last step did to the tensor asked about, in one sentence. */
static const char *step_note(int id)
{
    switch (id) {
    case MT_Q: case MT_K: case MT_V:
        return "x @ W keeps (B, S) and takes W's output width: d_model for Q, kv_heads x d_head for K and V. "
               "A matmul writes a new contiguous buffer.";
    case MT_Q_SPLIT: case MT_K_SPLIT: case MT_V_SPLIT:
        return "view splits each token's row into (heads, d_head): same buffer, strides (S*W, W, d_head, 1) "
               "for a row of width W.";
    case MT_Q_HEADS: case MT_K_HEADS: case MT_V_HEADS:
        return "transpose(1, 2) swaps the token and head axes and their two strides: no byte moves, and the "
               "tensor is no longer contiguous (with more than one head and token).";
    case MT_SCORES:
        return "Q (B, H, S, dh) @ K^T (B, H, dh, S) gives (B, H, S, S): one S x S score matrix per head, in a new "
               "buffer.";
    case MT_ATTN: return "softmax over the last dim keeps the (B, H, S, S) shape; each row sums to 1.";
    case MT_HEAD_OUT:
        return "attn (B, H, S, S) @ V (B, H, S, dh) gives (B, H, S, dh): a new buffer, heads first.";
    case MT_MERGED:
        return "transpose(1, 2) brings tokens first again, (B, S, H, dh), but only as a view: its strides "
               "still walk the heads-first buffer.";
    case MT_MERGED_CONTIG:
        return "contiguous() copies the view into a token-major buffer: the one real copy, row-major strides.";
    case MT_CONCAT: return "view(B, S, D) of the contiguous copy joins the heads side by side: free.";
    case MT_OUT: return "@ W_O (D, D) keeps (B, S, D) and mixes the heads.";
    case MT_K_EXPAND: case MT_V_EXPAND:
        return "unsqueeze(2) adds a size-1 group axis; expand stretches it to G = heads / kv_heads with stride "
               "0: every query head of a group reads the same bytes.";
    case MT_K_REPEAT: case MT_V_REPEAT:
        return "repeat_interleave copies each kv head G times: (B, heads, S, dh), a new contiguous buffer.";
    case MT_Q_WRONG:
        return "view(B, H, S, dh) straight from (B, S, D) is a legal view with the wrong grouping: it cuts the "
               "buffer into H blocks of S*dh consecutive floats, so a 'head' holds pieces of several tokens.";
    default: return "";
    }
}

/* shapes: the shape after any step of the pipeline. */
static int gen_shape(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q,      MT_K,       MT_Q_SPLIT, MT_Q_HEADS,       MT_K_HEADS, MT_SCORES,
                                  MT_ATTN,   MT_HEAD_OUT, MT_MERGED, MT_MERGED_CONTIG, MT_CONCAT,  MT_OUT};
    MhaConfig c = draw_config(&g->r, 0, 8.5e6);
    int target = pick(&g->r, targets, (int)(sizeof targets / sizeof targets[0]));
    Build b;
    if (begin(g, &b, &c, target, QT_SHAPES)) return -1;
    const Tensor *t = b.t[target];
    config_line(&c, q->prompt, sizeof q->prompt);
    code_lines(&b, q->prompt, sizeof q->prompt);
    cat(q->prompt, sizeof q->prompt, "What is the shape of %s after the last line?", var_of(target));
    set_tuple_shape(q, t);
    maybe_shape_choices(q, &g->r, &b);
    snprintf(q->explain, sizeof q->explain,
             "%s  The whole path: x (B, S, D) -> view (B, S, H, dh) -> transpose(1, 2) (B, H, S, dh) -> "
             "scores (B, H, S, S) -> attn @ V (B, H, S, dh) -> transpose(1, 2), contiguous(), view -> (B, S, D) "
             "-> @ W_O (B, S, D).",
             step_note(target));
    finish_working(q, &b);
    build_free(&b);
    return 0;
}

/* Row-major strides for t's shape, as a string: what "contiguous" means. */
static char *rowmajor(char *buf, size_t n, const Tensor *t)
{
    long long v[TENSOR_MAXDIM], s = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        v[i] = s;
        s *= t->shape[i];
    }
    return fmt_ll(buf, n, t->ndim, v);
}

/* strides: the strides after view / transpose / contiguous / expand. */
static int gen_strides(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q,      MT_Q_SPLIT,       MT_Q_HEADS, MT_K_HEADS, MT_MERGED,
                                  MT_MERGED_CONTIG, MT_CONCAT, MT_K_EXPAND, MT_Q_WRONG};
    int target = pick(&g->r, targets, (int)(sizeof targets / sizeof targets[0]));
    int kv_target = target == MT_K_EXPAND || target == MT_K_HEADS;
    MhaConfig c = draw_config(&g->r, target == MT_K_EXPAND, 1.1e6);
    if (kv_target && c.kv_heads == 1 && c.heads >= 4) c.kv_heads = 2; /* a kv axis of size > 1 */
    Build b;
    if (begin(g, &b, &c, target, QT_STRIDES)) return -1;
    config_line(&c, q->prompt, sizeof q->prompt);
    code_lines(&b, q->prompt, sizeof q->prompt);
    char sh[64];
    tensor_fmt_dims(sh, sizeof sh, b.t[target]->ndim, b.t[target]->shape);
    cat(q->prompt, sizeof q->prompt, "%s is now %s.  What are its strides (in elements)?", var_of(target), sh);
    set_tuple_strides(q, b.t[target]);
    const Tensor *tt = b.t[target];
    for (int i = 0; i < tt->ndim; i++)
        if (tt->shape[i] == 1) q->tuple_free |= 1u << i;
    char rm[64], have[64];
    rowmajor(rm, sizeof rm, tt);
    tensor_fmt_strides(have, sizeof have, tt);
    snprintf(q->explain, sizeof q->explain,
             "%s  Only a fresh buffer (a matmul output, a copy) has row-major strides: last stride 1, each one "
             "the product of the sizes after it.  view re-reads the strides for the new shape, transpose swaps "
             "two, expand gives stride 0, contiguous() copies into a row-major buffer.",
             step_note(target));
    if (strcmp(rm, have))
        cat(q->explain, sizeof q->explain, "  %s are the row-major strides for this shape, what a copy would "
            "have; this tensor has not been copied.", rm);
    finish_working(q, &b);
    if (q->tuple_free)
        cat(q->working, sizeof q->working,
            "A size-1 axis never moves the offset, so its stride is never used: any value is accepted there.\n");
    build_free(&b);
    return 0;
}

/* strides: is it contiguous? */
static int gen_contig(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q_SPLIT, MT_Q_HEADS, MT_MERGED, MT_MERGED_CONTIG, MT_CONCAT,
                                  MT_K_EXPAND, MT_Q_WRONG, MT_K_HEADS};
    int target = pick(&g->r, targets, (int)(sizeof targets / sizeof targets[0]));
    MhaConfig c = draw_toy(&g->r, 0);
    if (quiz_rng_below(&g->r, 5) == 0) c.seq = 1; /* the edge case: size-1 dims do not count */
    if (target == MT_K_EXPAND && c.kv_heads == c.heads) c.kv_heads = 1;
    Build b;
    if (begin(g, &b, &c, target, QT_STRIDES)) return -1;
    const Tensor *t = b.t[target];
    config_line(&c, q->prompt, sizeof q->prompt);
    code_lines(&b, q->prompt, sizeof q->prompt);
    cat(q->prompt, sizeof q->prompt, "Is %s contiguous after the last line?", var_of(target));
    int yes = tensor_is_contiguous(t);
    q->kind = QK_CHOICE;
    q->n_choices = 2;
    snprintf(q->choices[0], QUIZ_CHOICE_MAX, "yes");
    snprintf(q->choices[1], QUIZ_CHOICE_MAX, "no");
    q->correct = yes ? 0 : 1;
    snprintf(q->explain, sizeof q->explain,
             "Contiguous means the strides are the row-major ones for the shape (each stride = product of "
             "the sizes after it), ignoring dims of size 1 as PyTorch does.  A view of a contiguous tensor "
             "that only splits or merges adjacent dims stays contiguous; a transpose of two dims of size > 1 "
             "does not; expand (stride 0) does not; contiguous() always gives a contiguous tensor.");
    char st[64], rm[64], sh[64];
    finish_working(q, &b);
    tensor_fmt_strides(st, sizeof st, t);
    rowmajor(rm, sizeof rm, t);
    cat(q->working, sizeof q->working, "%s has shape %s and strides %s; row-major strides would be %s -> %s%s.\n",
        var_of(target), tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape), st, rm,
        yes ? "contiguous" : "not contiguous",
        yes && strcmp(st, rm) ? " (they differ only on size-1 axes, which PyTorch ignores)" : "");
    build_free(&b);
    return 0;
}

/* The tensor whose storage a target lives in (what the candy bar draws). */
static int storage_owner(int id)
{
    switch (id) {
    case MT_Q_SPLIT: case MT_Q_HEADS: case MT_Q_WRONG: return MT_Q;
    case MT_K_SPLIT: case MT_K_HEADS: return MT_K;
    case MT_MERGED: return MT_HEAD_OUT;
    default: return id;
    }
}

/* offsets: which storage offset holds T[i, j, k, l]? */
static int gen_offset(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_Q_HEADS, MT_Q_HEADS, MT_Q_SPLIT, MT_K_HEADS, MT_MERGED, MT_Q_WRONG};
    int target = pick(&g->r, targets, (int)(sizeof targets / sizeof targets[0]));
    MhaConfig c = draw_toy(&g->r, 1);
    /* at most 96 floats: the whole buffer fits the candy bar at 80x24 */
    for (int tries = 0; tries < 50 && c.batch * c.seq * c.d_model > 96; tries++) c = draw_toy(&g->r, 1);
    Build b;
    if (begin(g, &b, &c, target, QT_OFFSETS)) return -1;
    const Tensor *t = b.t[target];
    for (int i = 0; i < 4; i++) q->idx[i] = quiz_rng_below(&g->r, t->shape[i]);
    size_t off = tensor_offset_of(t, q->idx);
    q->kind = QK_NUMBER;
    q->number = (long long)off;
    const char *name = target == MT_MERGED ? "out" : var_of(target);
    config_line(&c, q->prompt, sizeof q->prompt);
    cat(q->prompt, sizeof q->prompt, "%s",
        target == MT_MERGED ? "out = attn @ V is a new contiguous (B, H, S, dh) buffer; then\n"
                            : "The projection is one contiguous buffer; then\n");
    code_lines(&b, q->prompt, sizeof q->prompt);
    char sh[64];
    cat(q->prompt, sizeof q->prompt, "%s is %s.  Which storage offset (in floats, from the buffer's start) "
        "holds %s[%d, %d, %d, %d]?",
        name, tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape), name, q->idx[0], q->idx[1], q->idx[2], q->idx[3]);
    snprintf(q->explain, sizeof q->explain,
             "offset = storage offset + sum of index x stride over the dims.  Work out the strides first: "
             "the buffer is row-major for its own shape; a view re-reads those strides for the new shape; "
             "a transpose swaps two of them.  No byte moved, so the element is still where the projection "
             "wrote it.");
    finish_working(q, &b);
    cat(q->working, sizeof q->working, "offset = %zu", t->offset);
    for (int i = 0; i < 4; i++) cat(q->working, sizeof q->working, " + %d*%ld", q->idx[i], t->strides[i]);
    cat(q->working, sizeof q->working, " = %zu\n", off);
    q->pic.on = 1;
    q->pic.cfg = c;
    q->pic.tensor = storage_owner(target);
    q->pic.lit = (long)off;
    build_free(&b);
    return 0;
}

/* views: view, copy or error? */

static const char *const op_explain[QUIZ_OP_COUNT] = {
    [QUIZ_OP_VIEW_SPLIT] = "view() never copies: it only computes new strides, and works when the old strides can "
                      "express the new shape (always, for a contiguous tensor).",
    [QUIZ_OP_VIEW_MERGED] = "view() never copies, so when the strides cannot express the new shape it refuses "
                       "(the error PyTorch gives); merging heads back after a transpose needs .contiguous() "
                       "first, or .reshape().",
    [QUIZ_OP_TRANSPOSE] = "transpose() swaps two strides: a view, 0 bytes moved; the result is usually "
                     "non-contiguous.",
    [QUIZ_OP_PERMUTE] = "permute() reorders the strides: a view, 0 bytes moved (a transpose is a permute of two dims).",
    [QUIZ_OP_CONTIG_HEADS] = "contiguous() copies only when the tensor is not already row-major; after a transpose of "
                        "two dims of size > 1 it is a real copy into a new buffer.",
    [QUIZ_OP_CONTIG_SPLIT] = "contiguous() on a tensor that is already row-major returns it as is: no copy.",
    [QUIZ_OP_RESHAPE_HEADS] = "reshape() depends: it is a view when the strides allow one (as view() would), and "
                         "contiguous() + view (a copy) otherwise.",
    [QUIZ_OP_RESHAPE_SPLIT] = "reshape() depends: it is a view when the strides allow one (as view() would), and "
                         "contiguous() + view (a copy) otherwise.",
    [QUIZ_OP_RESHAPE_MERGED] = "reshape() depends: it is a view when the strides allow one (as view() would), and "
                          "contiguous() + view (a copy) otherwise.",
    [QUIZ_OP_EXPAND] = "expand() gives the new axis stride 0: every group member reads the same bytes.  A view, "
                  "0 bytes copied; this is how GQA can share K/V without a copy.",
    [QUIZ_OP_REPEAT] = "repeat_interleave() always writes a new buffer with each kv head repeated G times: a copy "
                  "(Llama's repeat_kv does the same with expand + reshape, which copies too).",
    [QUIZ_OP_DOT_T] = ".T on a 2-D tensor is transpose(0, 1): a view, strides swapped, 0 bytes.",
};

/* Applies op to its input; *res gets the result (NULL on error, err set). */
static int run_op(Build *b, int op, const Tensor **in, Tensor **res, char *code, size_t codelen, char *err,
                  size_t errlen)
{
    const int B = b->B, S = b->S, D = b->D, H = b->H, KV = b->KV, dh = b->dh, G = b->G;
    int src;
    switch (op) {
    case QUIZ_OP_VIEW_SPLIT: case QUIZ_OP_RESHAPE_SPLIT: src = MT_Q; break;
    case QUIZ_OP_VIEW_MERGED: case QUIZ_OP_RESHAPE_MERGED: src = MT_MERGED; break;
    case QUIZ_OP_TRANSPOSE: case QUIZ_OP_PERMUTE: case QUIZ_OP_CONTIG_SPLIT: src = MT_Q_SPLIT; break;
    case QUIZ_OP_CONTIG_HEADS: case QUIZ_OP_RESHAPE_HEADS: src = MT_Q_HEADS; break;
    case QUIZ_OP_EXPAND: case QUIZ_OP_REPEAT: src = MT_K_HEADS; break;
    default: src = MT_W_Q; break;
    }
    if (src == MT_W_Q && !b->t[MT_W_Q]) {
        /* asked about itself: a real row-major (D, D) weight, not the
         * stride-0 stand-in need() makes for weights only multiplied */
        int sh[2] = {D, D}; /* (D, D) */
        size_t before = tensor_bytes_copied();
        if (made(b, MT_W_Q, tensor_zeros(2, sh), before, "%s", "")) {
            snprintf(err, errlen, "%s", b->err);
            return -1;
        }
    }
    if (need(b, src)) {
        snprintf(err, errlen, "%s", b->err);
        return -1;
    }
    const Tensor *t = b->t[src];
    *in = t;
    *res = NULL;
    err[0] = 0;
    const char *v = src == MT_MERGED ? "out" : src == MT_W_Q ? "W_Q" : var_of(src);
    switch (op) {
    case QUIZ_OP_VIEW_SPLIT: case QUIZ_OP_RESHAPE_SPLIT: {
        int sh[4] = {B, S, H, dh};
        snprintf(code, codelen, "%s.%s(%d, %d, %d, %d)", v, op == QUIZ_OP_VIEW_SPLIT ? "view" : "reshape", B, S, H, dh);
        *res = tensor_view(t, 4, sh, err, errlen);
        break;
    }
    case QUIZ_OP_VIEW_MERGED: case QUIZ_OP_RESHAPE_MERGED: {
        int sh[3] = {B, S, D};
        snprintf(code, codelen, "%s.%s(%d, %d, %d)", v, op == QUIZ_OP_VIEW_MERGED ? "view" : "reshape", B, S, D);
        *res = tensor_view(t, 3, sh, err, errlen);
        if (!*res && op == QUIZ_OP_RESHAPE_MERGED) { /* reshape = contiguous() + view when view is refused */
            Tensor *cc = tensor_contiguous(t);
            *res = cc ? tensor_view(cc, 3, sh, err, errlen) : NULL;
            tensor_free(cc);
        }
        break;
    }
    case QUIZ_OP_RESHAPE_HEADS: {
        int sh[3] = {B, H, S * dh};
        snprintf(code, codelen, "%s.reshape(%d, %d, %d)", v, B, H, S * dh);
        *res = tensor_view(t, 3, sh, err, errlen);
        if (!*res) {
            Tensor *cc = tensor_contiguous(t);
            *res = cc ? tensor_view(cc, 3, sh, err, errlen) : NULL;
            tensor_free(cc);
        }
        break;
    }
    case QUIZ_OP_TRANSPOSE:
        snprintf(code, codelen, "%s.transpose(1, 2)", v);
        *res = tensor_transpose(t, 1, 2, err, errlen);
        break;
    case QUIZ_OP_PERMUTE: /* (0, 2, 1, 3) is the one swap of dims 1 and 2 */
        snprintf(code, codelen, "%s.permute(0, 2, 1, 3)", v);
        *res = tensor_transpose(t, 1, 2, err, errlen);
        break;
    case QUIZ_OP_CONTIG_HEADS: case QUIZ_OP_CONTIG_SPLIT:
        snprintf(code, codelen, "%s.contiguous()", v);
        *res = tensor_contiguous(t);
        break;
    case QUIZ_OP_EXPAND: {
        int sh[5] = {B, KV, G, S, dh};
        snprintf(code, codelen, "%s.unsqueeze(2).expand(%d, %d, %d, %d, %d)", v, B, KV, G, S, dh);
        Tensor *u = tensor_unsqueeze(t, 2, err, errlen);
        *res = u ? tensor_expand(u, 5, sh, err, errlen) : NULL;
        tensor_free(u);
        break;
    }
    case QUIZ_OP_REPEAT:
        snprintf(code, codelen, "%s.repeat_interleave(%d, dim=1)", v, G);
        *res = tensor_repeat_interleave(t, G, 1, err, errlen);
        break;
    default:
        snprintf(code, codelen, "W_Q.T");
        *res = tensor_transpose(t, 0, 1, err, errlen);
        break;
    }
    if (*res) err[0] = 0;
    return src;
}

static int gen_viewcopy(Gen *g)
{
    QuizQuestion *q = g->q;
    int op = quiz_rng_below(&g->r, QUIZ_OP_COUNT);
    MhaConfig c = draw_config(&g->r, op == QUIZ_OP_EXPAND || op == QUIZ_OP_REPEAT, 1.1e6);
    Build b;
    build_init(&b, &c);
    const Tensor *in = NULL;
    Tensor *res = NULL;
    char code[96], err[300];
    int src = run_op(&b, op, &in, &res, code, sizeof code, err, sizeof err);
    if (src < 0) {
        snprintf(g->err, g->errlen, "%s", err);
        build_free(&b);
        return -1;
    }
    q->topic = QT_VIEWS;
    q->cfg = c;
    q->aux = op;
    config_line(&c, q->prompt, sizeof q->prompt);
    code_lines(&b, q->prompt, sizeof q->prompt);
    char sh[64], st[64];
    cat(q->prompt, sizeof q->prompt, "Now %s is %s with strides %s.  What does\n    %s\ndo?",
        src == MT_W_Q ? "W_Q" : var_of(src),
        tensor_fmt_dims(sh, sizeof sh, in->ndim, in->shape), tensor_fmt_strides(st, sizeof st, in), code);
    q->kind = QK_CHOICE;
    q->n_choices = 3;
    snprintf(q->choices[0], QUIZ_CHOICE_MAX, "a view: same storage, 0 bytes copied");
    snprintf(q->choices[1], QUIZ_CHOICE_MAX, "a copy into a new buffer");
    snprintf(q->choices[2], QUIZ_CHOICE_MAX, "an error");
    size_t copied = 0;
    if (!res) q->correct = 2;
    else if (tensor_same_storage(res, in)) q->correct = 0;
    else {
        q->correct = 1;
        copied = res->st->bytes_copied;
    }
    snprintf(q->explain, sizeof q->explain, "%s", op_explain[op]);
    int reshape = op == QUIZ_OP_RESHAPE_HEADS || op == QUIZ_OP_RESHAPE_SPLIT || op == QUIZ_OP_RESHAPE_MERGED;
    int contig = op == QUIZ_OP_CONTIG_HEADS || op == QUIZ_OP_CONTIG_SPLIT;
    if (reshape && q->correct == 0)
        cat(q->explain, sizeof q->explain, "  Here the strides %s can express the new shape, so reshape returned a "
            "view.", tensor_fmt_strides(st, sizeof st, in));
    else if (reshape)
        cat(q->explain, sizeof q->explain, "  Here the strides %s cannot express the new shape (view() would "
            "raise), so reshape copied: contiguous() first, then a view of the copy.",
            tensor_fmt_strides(st, sizeof st, in));
    else if (contig)
        cat(q->explain, sizeof q->explain, "  Here the input %s contiguous (strides %s), so %s.",
            tensor_is_contiguous(in) ? "is already" : "is not", tensor_fmt_strides(st, sizeof st, in),
            tensor_is_contiguous(in) ? "nothing moves" : "every element is copied once");
    finish_working(q, &b);
    cat(q->working, sizeof q->working, "  %-44s -> ", code);
    if (!res) cat(q->working, sizeof q->working, "error: %s\n", err);
    else {
        cat(q->working, sizeof q->working, "%s strides %s, ", tensor_fmt_dims(sh, sizeof sh, res->ndim, res->shape),
            tensor_fmt_strides(st, sizeof st, res));
        if (q->correct == 0) cat(q->working, sizeof q->working, "same storage: 0 bytes copied\n");
        else cat(q->working, sizeof q->working, "new storage: %zu bytes copied\n", copied);
    }
    tensor_free(res);
    build_free(&b);
    return 0;
}

/* gqa: the shapes of K and V when kv heads are shared. */
static int gen_kvshape(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int targets[] = {MT_K, MT_K_HEADS, MT_V_HEADS, MT_K_EXPAND, MT_K_REPEAT, MT_V_SPLIT};
    int target = pick(&g->r, targets, (int)(sizeof targets / sizeof targets[0]));
    MhaConfig c = draw_config(&g->r, 1, 2.2e6);
    Build b;
    if (begin(g, &b, &c, target, QT_GQA)) return -1;
    config_line(&c, q->prompt, sizeof q->prompt);
    cat(q->prompt, sizeof q->prompt, "W_K and W_V are (d_model, kv_heads x d_head).\n");
    code_lines(&b, q->prompt, sizeof q->prompt);
    cat(q->prompt, sizeof q->prompt, "What is the shape of %s after the last line?", var_of(target));
    set_tuple_shape(q, b.t[target]);
    maybe_shape_choices(q, &g->r, &b);
    snprintf(q->explain, sizeof q->explain,
             "%s  With GQA/MQA only kv_heads K and V heads are projected: K is (B, S, kv_heads x d_head) and "
             "(B, kv_heads, S, d_head) after the split.  To line them up with the query heads, expand adds a "
             "group axis with stride 0 (a view), repeat_interleave copies each kv head G = heads / kv_heads "
             "times (B, heads, S, d_head).",
             step_note(target));
    finish_working(q, &b);
    build_free(&b);
    return 0;
}

/* gqa: which kv head serves query head h?  Read off a repeat_interleave of
 * kv heads that hold their own index, checked against mha_kv_head_of. */
static int gen_kvhead(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int Hs[] = {4, 8, 12, 16, 32, 64};
    MhaConfig c = mha_config_default();
    c.heads = pick(&g->r, Hs, 6);
    int divs[16] = {1}, nd = 0;
    for (int k = 1; k < c.heads && nd < 16; k++)
        if (c.heads % k == 0) divs[nd++] = k;
    c.kv_heads = divs[quiz_rng_below(&g->r, nd)];
    c.d_model = c.heads * 2;
    c.seq = 1;
    int h = quiz_rng_below(&g->r, c.heads), G = c.heads / c.kv_heads;
    int sh[4] = {1, c.kv_heads, 1, 1}; /* (B, KV, S, dh) with kv head j holding j */
    Tensor *k = tensor_zeros(4, sh);
    if (!k) {
        snprintf(g->err, g->errlen, "out of memory");
        return -1;
    }
    for (int j = 0; j < c.kv_heads; j++) k->st->data[j] = (float)j;
    char err[200];
    Tensor *rep = tensor_repeat_interleave(k, G, 1, err, sizeof err); /* (B, H, S, dh) */
    if (!rep) {
        tensor_free(k);
        snprintf(g->err, g->errlen, "%s", err);
        return -1;
    }
    int idx[4] = {0, h, 0, 0};
    int served = (int)tensor_get(rep, idx);
    if (served != mha_kv_head_of(&c, h)) {
        snprintf(g->err, g->errlen, "kv head of %d: repeat_interleave says %d, mha_kv_head_of says %d", h, served,
                 mha_kv_head_of(&c, h));
        tensor_free(k);
        tensor_free(rep);
        return -1;
    }
    q->topic = QT_GQA;
    q->cfg = c;
    q->aux = h;
    q->kind = QK_NUMBER;
    q->number = served;
    cat(q->prompt, sizeof q->prompt,
        "%d query heads share %d kv head%s (%s), grouped as Llama's repeat_kv does\n"
        "(K = K.repeat_interleave(heads // kv_heads, dim=1)).  Heads count from 0.\n"
        "Which kv head does query head %d read?",
        c.heads, c.kv_heads, c.kv_heads == 1 ? "" : "s", c.kv_heads == 1 ? "MQA" : "GQA", h);
    snprintf(q->explain, sizeof q->explain,
             "Each kv head serves a block of G = heads / kv_heads consecutive query heads, so query head h "
             "reads kv head h / G (integer division).  A tiled .repeat() would give h %% kv_heads instead: "
             "the wrong grouping for weights trained with repeat_kv.");
    cat(q->working, sizeof q->working, "G = %d / %d = %d query heads per kv head; kv head = %d / %d = %d.\n", c.heads,
        c.kv_heads, G, h, G, served);
    cat(q->working, sizeof q->working, "The engine repeated kv heads 0..%d with repeat_interleave(%d, dim=1): query "
        "heads 0..%d read kv heads (", c.kv_heads - 1, G, c.heads - 1);
    for (int j = 0; j < c.heads; j++) {
        int ix[4] = {0, j, 0, 0};
        cat(q->working, sizeof q->working, "%s%d", j ? ", " : "", (int)tensor_get(rep, ix));
    }
    cat(q->working, sizeof q->working, ").\n");
    tensor_free(k);
    tensor_free(rep);
    return 0;
}

/* gqa: bytes copied by repeat_interleave vs expand. */
static int gen_repeat_bytes(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = draw_config(&g->r, 1, 1.1e6);
    Build b;
    build_init(&b, &c);
    if (need(&b, MT_K_HEADS) || need(&b, MT_K_EXPAND) || need(&b, MT_K_REPEAT)) {
        snprintf(g->err, g->errlen, "%s", b.err);
        build_free(&b);
        return -1;
    }
    int expand = quiz_rng_below(&g->r, 3) == 0;
    int target = expand ? MT_K_EXPAND : MT_K_REPEAT;
    q->topic = QT_GQA;
    q->cfg = c;
    q->tensor = target;
    q->kind = QK_NUMBER;
    q->number = (long long)b.copied[target];
    char sh[64];
    config_line(&c, q->prompt, sizeof q->prompt);
    cat(q->prompt, sizeof q->prompt, "K is float32, split into kv heads: %s.\n    %s\n",
        tensor_fmt_dims(sh, sizeof sh, b.t[MT_K_HEADS]->ndim, b.t[MT_K_HEADS]->shape), b.line[target]);
    cat(q->prompt, sizeof q->prompt, "How many bytes does that line copy?");
    snprintf(q->explain, sizeof q->explain,
             "repeat_interleave writes a new buffer of B x heads x S x d_head floats (4 bytes each); expand only "
             "adds a stride-0 axis, so it copies nothing.  Both give every query head its K; only one pays "
             "for it in memory.");
    finish_working(q, &b);
    build_free(&b);
    return 0;
}

/* kvcache: bytes of the KV cache for a real model preset (assets/models.presets),
 * computed by the KV-cache calculator's arithmetic (kv.h). */
static long long kv_total(long layers, long kv_heads, long d_head, int bits, long ctx, long batch)
{
    uint64_t per = 0, tot = 0;
    if (kv_bytes_per_token(layers, kv_heads, d_head, bits, &per) ||
        kv_bytes_total(per, ctx, batch, &tot))
        return -1;
    return (long long)tot;
}

static void size_choice(char *buf, size_t n, long long v)
{
    char a[40], b[40];
    snprintf(buf, n, "%s (%s bytes)", kv_fmt_size(a, sizeof a, (uint64_t)v), kv_fmt_int(b, sizeof b, (uint64_t)v));
}

static int gen_kvcache(Gen *g)
{
    QuizQuestion *q = g->q;
    PresetList pl;
    char err[300];
    if (presets_builtin(&pl, err, sizeof err) || pl.n < 1) {
        snprintf(g->err, g->errlen, "%s", pl.n < 1 ? "no model presets" : err);
        return -1;
    }
    const Preset *p = &pl.v[quiz_rng_below(&g->r, pl.n)];
    static const long ctxs[] = {1024, 2048, 4096, 8192, 32768};
    int ndt = 0;
    while (kv_dtypes[ndt].name) ndt++;
    const KvDtype *dt = &kv_dtypes[quiz_rng_below(&g->r, ndt)];
    /* within the trained context, and within a sliding window or chunk, where
     * every layer keeps every token and the formula below holds */
    long cap = p->context, local = p->window ? p->window : p->chunk;
    if (local && (!cap || local < cap)) cap = local;
    int nctx = 0;
    while (nctx < 5 && (!cap || ctxs[nctx] <= cap)) nctx++;
    long ctx = ctxs[quiz_rng_below(&g->r, nctx ? nctx : 1)];
    long batch = quiz_rng_below(&g->r, 3) == 0 ? 8 : 1;
    long long bytes = kv_total(p->layers, p->kv_heads, p->d_head, dt->bits, ctx, batch);
    if (bytes < 0) {
        presets_free(&pl);
        snprintf(g->err, g->errlen, "kv bytes overflow for %s", p->name);
        return -1;
    }
    q->topic = QT_KVCACHE;
    /* what was asked, for the tests: heads, kv heads, d_model = heads x d_head,
     * batch, seq = context; aux = layers; idx[0] = bits */
    q->cfg = mha_config_default();
    q->cfg.heads = (int)p->heads, q->cfg.kv_heads = (int)p->kv_heads;
    q->cfg.d_model = (int)(p->heads * p->d_head), q->cfg.batch = (int)batch, q->cfg.seq = (int)ctx;
    q->aux = (int)p->layers;
    q->idx[0] = dt->bits;
    cat(q->prompt, sizeof q->prompt,
        "%s: %ld layers, %ld query heads, %ld kv heads (%s), d_head %ld.\n"
        "How big is its KV cache for %ld sequence%s of %ld tokens, stored as %s (%d bits per number)?",
        p->title, p->layers, p->heads, p->kv_heads, presets_kind(p->heads, p->kv_heads), p->d_head, batch,
        batch == 1 ? "" : "s", ctx, dt->name, dt->bits);
    /* distractors: the usual slips, each through the same arithmetic */
    long long dv[5] = {
        kv_total(p->layers, p->kv_heads, p->d_head, dt->bits, ctx, batch) / 2, /* K only, forgot V */
        kv_total(p->layers, p->heads, p->d_head, dt->bits, ctx, batch),        /* query heads instead of kv heads */
        kv_total(1, p->kv_heads, p->d_head, dt->bits, ctx, batch),             /* one layer */
        kv_total(p->layers, p->kv_heads, p->d_head, dt->bits == 32 ? 16 : 32, ctx, batch), /* wrong dtype */
        kv_total(p->layers, p->kv_heads, p->d_head * p->heads, dt->bits, ctx, batch), /* d_model per kv head */
    };
    char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
    int nc = 0;
    size_choice(ans, sizeof ans, bytes);
    for (int i = 0; i < 5; i++)
        if (dv[i] > 0 && dv[i] != bytes) size_choice(cand[nc++], QUIZ_CHOICE_MAX, dv[i]);
    make_choices(q, &g->r, ans, cand, nc, 3);
    q->number = bytes;
    snprintf(q->explain, sizeof q->explain,
             "Per token the cache holds K and V (x2) for every layer and every kv head: 2 x layers x kv_heads x "
             "d_head x bytes per number.  Multiply by tokens and sequences.  Query heads do not count: GQA/MQA "
             "shrink the cache by heads / kv_heads, and decoding reads the whole cache once per generated "
             "token, so that is memory bandwidth saved on every step.");
    char a[40], b[40], c2[40];
    uint64_t per = 0;
    kv_bytes_per_token(p->layers, p->kv_heads, p->d_head, dt->bits, &per);
    cat(q->working, sizeof q->working,
        "2 (K and V) x %ld layers x %ld kv heads x %ld d_head x %d bits / 8 = %s bytes per token;\n"
        "x %ld tokens x %ld sequence%s = %s bytes = %s.\n",
        p->layers, p->kv_heads, p->d_head, dt->bits, kv_fmt_int(a, sizeof a, per), ctx, batch,
        batch == 1 ? "" : "s", kv_fmt_int(b, sizeof b, (uint64_t)bytes), kv_fmt_size(c2, sizeof c2, (uint64_t)bytes));
    if (p->kv_heads != p->heads && dv[1] > 0)
        cat(q->working, sizeof q->working, "With all %ld heads cached (MHA) it would be %s, %ldx more.\n", p->heads,
            kv_fmt_size(a, sizeof a, (uint64_t)dv[1]), p->heads / p->kv_heads);
    cat(q->working, sizeof q->working, "(source: %s)\n", p->source);
    presets_free(&pl);
    return 0;
}

/* bugs: one wrong line in six. */

/* Softmax over dim -2 instead of -1, through the engine: transpose, copy,
 * softmax over the last dim, transpose back.  Returns row 0 of head 0's sum. */
static double wrong_dim_row_sum(const Tensor *scores)
{
    Tensor *t = tensor_transpose(scores, -2, -1, NULL, 0);
    Tensor *c = t ? tensor_contiguous(t) : NULL;
    double sum = -1;
    if (c) {
        tensor_softmax_lastdim_(c);
        Tensor *back = tensor_transpose(c, -2, -1, NULL, 0);
        if (back) {
            sum = 0;
            for (int j = 0; j < back->shape[3]; j++) {
                int ix[4] = {0, 0, 0, j};
                sum += tensor_get(back, ix);
            }
        }
        tensor_free(back);
    }
    tensor_free(c);
    tensor_free(t);
    return sum;
}

static int gen_bug(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = mha_config_default();
    int bug = quiz_rng_below(&g->r, QUIZ_BUG_COUNT);
    /* toy config where the bug changes the result: H >= 2, and for the
     * grouping bug KV >= 2 with G >= 2 */
    c.d_model = 16;
    c.heads = bug == QUIZ_BUG_REPEAT ? 4 : (quiz_rng_below(&g->r, 2) ? 2 : 4);
    c.kv_heads = bug == QUIZ_BUG_REPEAT ? 2 : (c.heads == 4 && quiz_rng_below(&g->r, 2) ? 2 : c.heads);
    c.seed = (uint32_t)(quiz_rng_next(&g->r) % 1000) + 1;
    char err[300];
    Mha *m = mha_run(&c, err, sizeof err);
    if (!m) {
        snprintf(g->err, g->errlen, "%s", err);
        return -1;
    }
    /* lines 1-3 (q, k, v) in a drawn order; a view bug hits one of them */
    char lines[6][100];
    int order[3] = {0, 1, 2};
    for (int i = 2; i > 0; i--) {
        int j = quiz_rng_below(&g->r, i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    int which = quiz_rng_below(&g->r, 3); /* q, k or v for QUIZ_BUG_VIEW */
    if (bug == QUIZ_BUG_VIEW && which > 0 && c.kv_heads < 2) which = 0;
    static const char *const names[3] = {"q", "k", "v"};
    static const char *const heads[3] = {"H", "KV", "KV"};
    int bad_line = 0;
    for (int i = 0; i < 3; i++) {
        int v = order[i];
        if (bug == QUIZ_BUG_VIEW && v == which) {
            snprintf(lines[i], sizeof lines[i], "%s = (x @ W_%s).view(B, %s, S, dh)", names[v], names[v], heads[v]);
            bad_line = i + 1;
        } else
            snprintf(lines[i], sizeof lines[i], "%s = (x @ W_%s).view(B, S, %s, dh).transpose(1, 2)", names[v],
                     names[v], heads[v]);
    }
    snprintf(lines[3], sizeof lines[3], "%s",
             bug == QUIZ_BUG_REPEAT ? "k, v = k.repeat(1, H // KV, 1, 1), v.repeat(1, H // KV, 1, 1)"
                               : "k, v = k.repeat_interleave(H // KV, 1), v.repeat_interleave(H // KV, 1)");
    snprintf(lines[4], sizeof lines[4], "a = torch.softmax(q @ k.transpose(-2, -1) %s, dim=%s)",
             bug == QUIZ_BUG_SCALE ? "/ dh" : "/ math.sqrt(dh)", bug == QUIZ_BUG_SOFTMAX_DIM ? "-2" : "-1");
    snprintf(lines[5], sizeof lines[5], "y = (a @ v).transpose(1, 2)%s.view(B, S, H * dh) @ W_o",
             bug == QUIZ_BUG_CONTIG ? "" : ".contiguous()");
    if (bug == QUIZ_BUG_REPEAT) bad_line = 4;
    if (bug == QUIZ_BUG_SOFTMAX_DIM || bug == QUIZ_BUG_SCALE) bad_line = 5;
    if (bug == QUIZ_BUG_CONTIG) bad_line = 6;

    q->topic = QT_BUGS;
    q->cfg = c;
    q->aux = bug;
    q->kind = QK_NUMBER;
    q->number = bad_line;
    cat(q->prompt, sizeof q->prompt,
        "x is (B, S, D) with D = H * dh; H = %d query heads, KV = %d kv heads, dh = %d.\n"
        "One line of this attention is wrong.  Which one (1-6)?\n",
        c.heads, c.kv_heads, m->d_head);
    for (int i = 0; i < 6; i++) cat(q->prompt, sizeof q->prompt, "  %d  %s\n", i + 1, lines[i]);

    /* the explanation and what the engine shows for this toy config (B=1, S=4) */
    char *w = q->working;
    size_t wn = sizeof q->working;
    cat(w, wn, "On B=%d, S=%d, D=%d (seed %u) the engine shows:\n", c.batch, c.seq, c.d_model, (unsigned)c.seed);
    switch (bug) {
    case QUIZ_BUG_VIEW: {
        snprintf(q->explain, sizeof q->explain,
                 "Line %d views (B, S, D) straight as (B, heads, S, dh).  The buffer is token-major, so that "
                 "relabels consecutive chunks of dh floats as rows: a 'head' row mixes the features of "
                 "different tokens.  Split with view(B, S, heads, dh) and then transpose(1, 2).",
                 bad_line);
        int src = which == 0 ? MT_Q : which == 1 ? MT_K : MT_V;
        int nh = which == 0 ? c.heads : c.kv_heads;
        int sh[4] = {c.batch, nh, c.seq, m->d_head};
        Tensor *bad = tensor_view(m->t[src], 4, sh, err, sizeof err);
        const Tensor *good = m->t[which == 0 ? MT_Q_HEADS : which == 1 ? MT_K_HEADS : MT_V_HEADS];
        if (bad) {
            int ix[4] = {0, 0, 1, 0};
            size_t ob = tensor_offset_of(bad, ix), og = tensor_offset_of(good, ix);
            int width = m->t[src]->shape[2];
            cat(w, wn,
                "  right: %s[0, 0, 1, 0] is storage offset %zu = token 1 ('%s'), feature %zu.\n"
                "  buggy: %s[0, 0, 1, 0] is storage offset %zu = token %zu ('%s'), feature %zu.\n",
                names[which], og, mha_token_word(1), og % (size_t)width, names[which], ob, ob / (size_t)width,
                mha_token_word((int)(ob / (size_t)width)), ob % (size_t)width);
        }
        tensor_free(bad);
        break;
    }
    case QUIZ_BUG_REPEAT: {
        snprintf(q->explain, sizeof q->explain,
                 "Line 4 tiles the kv heads (.repeat: 0, 1, 0, 1, ...) instead of repeating each one in place "
                 "(repeat_interleave: 0, 0, 1, 1, ...).  The shapes match, so nothing fails: query head h just "
                 "reads the wrong kv head (h %% KV instead of h / (H / KV)) for weights trained with repeat_kv.");
        const Tensor *kh = m->t[MT_K_HEADS]; /* (B, KV, S, dh) */
        int G = c.heads / c.kv_heads;
        Tensor *u = tensor_unsqueeze(kh, 1, NULL, 0); /* (B, 1, KV, S, dh) */
        int sh5[5] = {c.batch, G, c.kv_heads, c.seq, m->d_head};
        Tensor *e = u ? tensor_expand(u, 5, sh5, NULL, 0) : NULL; /* (B, G, KV, S, dh) */
        Tensor *cc = e ? tensor_contiguous(e) : NULL;
        int sh4[4] = {c.batch, c.heads, c.seq, m->d_head};
        Tensor *tiled = cc ? tensor_view(cc, 4, sh4, NULL, 0) : NULL; /* (B, H, S, dh) */
        if (tiled) {
            cat(w, wn, "  query heads 0..%d read kv heads: repeat_interleave (", c.heads - 1);
            for (int h = 0; h < c.heads; h++) cat(w, wn, "%s%d", h ? ", " : "", mha_kv_head_of(&c, h));
            cat(w, wn, "), .repeat (");
            for (int h = 0; h < c.heads; h++) {
                /* find the kv head whose values the tiled head holds */
                int found = -1;
                for (int j = 0; j < c.kv_heads && found < 0; j++) {
                    int same = 1;
                    for (int s = 0; s < c.seq && same; s++)
                        for (int d = 0; d < m->d_head && same; d++) {
                            int a[4] = {0, h, s, d}, bb[4] = {0, j, s, d};
                            same = tensor_get(tiled, a) == tensor_get(kh, bb);
                        }
                    if (same) found = j;
                }
                cat(w, wn, "%s%d", h ? ", " : "", found);
            }
            cat(w, wn, ").\n");
        }
        tensor_free(tiled);
        tensor_free(cc);
        tensor_free(e);
        tensor_free(u);
        break;
    }
    case QUIZ_BUG_SOFTMAX_DIM: {
        snprintf(q->explain, sizeof q->explain,
                 "Line 5 normalises over dim=-2, the query axis: each column sums to 1, but a query's weights "
                 "over the keys (its row) no longer do.  Softmax goes over the last dim, the keys.");
        double sum = wrong_dim_row_sum(m->t[MT_SCORES]);
        cat(w, wn, "  with dim=-2, head 0's row 0 (token '%s') sums to %.3f instead of 1.\n", mha_token_word(0), sum);
        break;
    }
    case QUIZ_BUG_SCALE: {
        snprintf(q->explain, sizeof q->explain,
                 "Line 5 divides by dh instead of sqrt(dh).  The scale keeps the dot products' variance near 1 "
                 "(a sum of dh products); dividing by dh flattens the softmax towards uniform weights.");
        const Tensor *attn = m->t[MT_ATTN]; /* (B, H, S, S) */
        Tensor *raw = tensor_contiguous(m->t[MT_SCORES]);
        Tensor *cp = raw ? tensor_zeros(raw->ndim, raw->shape) : NULL;
        if (cp) {
            tensor_to_array(raw, cp->st->data);
            /* scores were divided by sqrt(dh); divide by sqrt(dh) again: / dh */
            tensor_scale_(cp, 1.0f / sqrtf((float)m->d_head));
            tensor_softmax_lastdim_(cp);
            cat(w, wn, "  head 0, row 0 weights: / sqrt(dh) (");
            for (int j = 0; j < c.seq; j++) {
                int ix[4] = {0, 0, 0, j};
                cat(w, wn, "%s%.2f", j ? ", " : "", tensor_get(attn, ix));
            }
            cat(w, wn, "), / dh (");
            for (int j = 0; j < c.seq; j++) {
                int ix[4] = {0, 0, 0, j};
                cat(w, wn, "%s%.2f", j ? ", " : "", tensor_get(cp, ix));
            }
            cat(w, wn, ").\n");
        }
        tensor_free(cp);
        tensor_free(raw);
        break;
    }
    default: {
        snprintf(q->explain, sizeof q->explain,
                 "Line 6 views the transposed (B, S, H, dh) result as (B, S, H * dh) without .contiguous(): "
                 "its strides cannot express the merged shape, and view() never copies, so PyTorch raises.  "
                 "Call .contiguous() first (the one real copy of the block), or use .reshape().");
        int sh[3] = {c.batch, c.seq, c.d_model};
        Tensor *bad = tensor_view(m->t[MT_MERGED], 3, sh, err, sizeof err);
        if (bad) cat(w, wn, "  (the view happened to work for this shape)\n");
        else cat(w, wn, "  RuntimeError: %s\n", err);
        tensor_free(bad);
        break;
    }
    }
    mha_free(m);
    return 0;
}

/* ---- entry points ---------------------------------------------------------- */

static int (*const generators[QG_COUNT])(Gen *) = {
    gen_shape, gen_strides, gen_contig, gen_offset, gen_viewcopy,
    gen_kvshape, gen_kvhead, gen_repeat_bytes, gen_kvcache, gen_bug,
};

int quiz_generate_kind(int gkind, uint64_t qseed, QuizQuestion *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    if (gkind < 0 || gkind >= QG_COUNT) {
        if (err) snprintf(err, errlen, "no generated question kind %d", gkind);
        return -1;
    }
    char e[300] = "";
    Gen g = {q, {0}, e, sizeof e};
    quiz_rng_seed(&g.r, qseed);
    q->gen = gkind + 1;
    q->pic.lit = -1;
    if (generators[gkind](&g)) {
        if (err) snprintf(err, errlen, "quiz: %s", e);
        return -1;
    }
    q->gen = gkind + 1;
    snprintf(q->id, sizeof q->id, "k:%d:%016llx", gkind, (unsigned long long)qseed);
    snprintf(q->source, sizeof q->source, "generated");
    return 0;
}

int quiz_generate(int topic, uint64_t qseed, QuizQuestion *q, char *err, size_t errlen)
{
    if (!quiz_topic_generated(topic)) {
        if (err) snprintf(err, errlen, "quiz: topic '%s' has no generator",
                          topic >= 0 && topic < QT_COUNT ? quiz_topic_names[topic] : "?");
        return -1;
    }
    QuizRng r;
    quiz_rng_seed(&r, qseed);
    int n = 0;
    while (topic_kinds[topic][n] >= 0) n++;
    int kind = topic_kinds[topic][quiz_rng_below(&r, n)];
    if (quiz_generate_kind(kind, quiz_rng_next(&r), q, err, errlen)) return -1;
    snprintf(q->id, sizeof q->id, "g:%s:%016llx", quiz_topic_names[topic], (unsigned long long)qseed);
    return 0;
}

int quiz_from_id(const QuizBank *bank, const char *id, QuizQuestion *q)
{
    char topic[32];
    unsigned long long s;
    int kind;
    if (sscanf(id, "g:%31[a-z]:%llx", topic, &s) == 2 && quiz_topic_index(topic) >= 0)
        return quiz_generate(quiz_topic_index(topic), s, q, NULL, 0);
    if (sscanf(id, "k:%d:%llx", &kind, &s) == 2) return quiz_generate_kind(kind, s, q, NULL, 0);
    for (int i = 0; bank && i < bank->n; i++)
        if (!strcmp(bank->q[i].id, id)) {
            *q = bank->q[i];
            return 0;
        }
    return -1;
}

int quiz_session(const QuizBank *bank, int topic, int count, uint64_t seed, QuizQuestion *out, char *err,
                 size_t errlen)
{
    QuizRng r;
    quiz_rng_seed(&r, seed);
    int nb = bank ? bank->n : 0;
    int *deck = nb ? malloc(sizeof *deck * (size_t)nb) : NULL;
    char *used = nb ? calloc((size_t)nb, 1) : NULL;
    if (nb && (!deck || !used)) {
        free(deck);
        free(used);
        if (err) snprintf(err, errlen, "quiz: out of memory");
        return -1;
    }
    for (int i = 0; i < nb; i++) deck[i] = i;
    for (int i = nb - 1; i > 0; i--) {
        int j = quiz_rng_below(&r, i + 1), t = deck[i];
        deck[i] = deck[j], deck[j] = t;
    }
    int n = 0;
    for (int i = 0; i < count; i++) {
        int t = topic >= 0 ? topic : quiz_rng_below(&r, QT_COUNT);
        uint64_t qseed = quiz_rng_next(&r);
        /* curated: always for curated-only topics, 1 in 4 otherwise */
        int want_curated = !quiz_topic_generated(t) || quiz_rng_below(&r, 4) == 0;
        int got = 0;
        for (int k = 0; want_curated && k < nb && !got; k++)
            if (!used[deck[k]] && bank->q[deck[k]].topic == t) {
                used[deck[k]] = 1;
                out[n++] = bank->q[deck[k]];
                got = 1;
            }
        if (got) continue;
        if (!quiz_topic_generated(t)) {
            if (topic >= 0) break; /* the curated questions of this topic ran out */
            t = QT_SHAPES + (int)(qseed % QT_CONCEPTS);
        }
        if (quiz_generate(t, qseed, &out[n], err, errlen)) {
            free(deck);
            free(used);
            return -1;
        }
        n++;
    }
    free(deck);
    free(used);
    return n;
}
