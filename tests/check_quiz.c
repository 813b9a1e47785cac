/* check_quiz.c - the quiz: generated answers against independent oracles,
 * the curated bank, the bad-bank corpus, the answer parser, the history. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "content/kv.h"
#include "content/presets.h"
#include "content/quiz.h"
#include "content/quiz_gen.h"
#include "engine/tensor.h"
#include "store/quiz_history.h"

#define SEEDS 200 /* per kind: each question is a full mha_run of its configuration */

/* ---- oracles: what the answer must be, derived here, not by quiz.c ---- */

typedef struct Dims {
    int n;
    long long v[6];
} Dims;

static Dims dims(int n, long long a, long long b, long long c, long long d, long long e)
{
    Dims x = {n, {a, b, c, d, e, 0}};
    return x;
}

/* The shape of a pipeline tensor for cfg, by the pipeline table of src/README.md. */
static Dims oracle_shape(const MhaConfig *c, int t)
{
    long long B = c->batch, S = c->seq, D = c->d_model, H = c->heads, KV = c->kv_heads, dh = D / H,
              G = H / KV;
    switch (t) {
    case MT_Q:
    case MT_CONCAT:
    case MT_OUT:
        return dims(3, B, S, D, 0, 0);
    case MT_K:
    case MT_V:
        return dims(3, B, S, KV * dh, 0, 0);
    case MT_Q_SPLIT:
        return dims(4, B, S, H, dh, 0);
    case MT_K_SPLIT:
    case MT_V_SPLIT:
        return dims(4, B, S, KV, dh, 0);
    case MT_Q_HEADS:
    case MT_HEAD_OUT:
    case MT_K_REPEAT:
    case MT_V_REPEAT:
    case MT_Q_WRONG:
        return dims(4, B, H, S, dh, 0);
    case MT_K_HEADS:
    case MT_V_HEADS:
        return dims(4, B, KV, S, dh, 0);
    case MT_K_EXPAND:
    case MT_V_EXPAND:
        return dims(5, B, KV, G, S, dh);
    case MT_SCORES:
    case MT_ATTN:
        return dims(4, B, H, S, S, 0);
    case MT_MERGED:
    case MT_MERGED_CONTIG:
        return dims(4, B, S, H, dh, 0);
    default:
        ck_abort_msg("no oracle shape for %s", mha_tensor_names[t]);
    }
    return dims(0, 0, 0, 0, 0, 0);
}

/* Strides, derived by hand from which buffer each tensor lives in. */
static Dims oracle_strides(const MhaConfig *c, int t)
{
    long long S = c->seq, D = c->d_model, H = c->heads, KV = c->kv_heads, dh = D / H;
    switch (t) {
    case MT_Q:
    case MT_CONCAT:
        return dims(3, S * D, D, 1, 0, 0);
    case MT_Q_SPLIT:
        return dims(4, S * D, D, dh, 1, 0);
    case MT_Q_HEADS:
        return dims(4, S * D, dh, D, 1, 0); /* view of (B, S, D), dims 1 and 2 swapped */
    case MT_K_HEADS:
        return dims(4, S * KV * dh, dh, KV * dh, 1, 0);
    case MT_MERGED:
        return dims(4, H * S * dh, dh, S * dh, 1, 0); /* head_out (B, H, S, dh), transposed */
    case MT_MERGED_CONTIG:
        return dims(4, S * H * dh, H * dh, dh, 1, 0);
    case MT_K_EXPAND:
        return dims(5, S * KV * dh, dh, 0, KV * dh, 1);
    case MT_Q_WRONG:
        return dims(4, S * D, S * dh, dh, 1, 0);
    default:
        ck_abort_msg("no oracle strides for %s", mha_tensor_names[t]);
    }
    return dims(0, 0, 0, 0, 0, 0);
}

/* PyTorch's contiguity rule, written out here: size-1 dims ignored. */
static int oracle_contiguous(Dims shape, Dims strides)
{
    long long expect = 1;
    for (int i = shape.n - 1; i >= 0; i--) {
        if (shape.v[i] == 1) continue;
        if (strides.v[i] != expect) return 0;
        expect *= shape.v[i];
    }
    return 1;
}

static void assert_tuple(const QuizQuestion *q, Dims want, const char *what)
{
    ck_assert_msg(q->n_tuple == want.n, "%s: %d dims, want %d (%s)", what, q->n_tuple, want.n,
                  q->id);
    for (int i = 0; i < want.n; i++)
        ck_assert_msg(q->tuple[i] == want.v[i] || ((q->tuple_free >> i) & 1u),
                      "%s dim %d: %lld, want %lld (%s)", what, i, q->tuple[i], want.v[i], q->id);
}

/* Strides questions leave exactly the size-1 axes free. */
static void assert_free_axes(const QuizQuestion *q)
{
    Dims shape = oracle_shape(&q->cfg, q->tensor);
    unsigned want = 0;
    for (int i = 0; i < shape.n; i++)
        if (shape.v[i] == 1) want |= 1u << i;
    ck_assert_uint_eq(q->tuple_free, want);
    char buf[200] = "(", v[32];
    for (int i = 0; i < q->n_tuple; i++) { /* any value on a free axis is right */
        snprintf(v, sizeof v, "%s%lld", i ? ", " : "", (want >> i) & 1u ? 12345LL : q->tuple[i]);
        strcat(buf, v);
    }
    strcat(buf, ")");
    ck_assert_int_eq(quiz_check(q, buf, NULL, NULL, 0), 1);
    for (int i = 0; i < q->n_tuple; i++) { /* a wrong value on any other axis is wrong */
        if ((want >> i) & 1u) continue;
        QuizQuestion t = *q;
        t.tuple[i] += 1;
        char typed[200] = "(";
        for (int k = 0; k < q->n_tuple; k++) {
            snprintf(v, sizeof v, "%s%lld", k ? ", " : "", q->tuple[k]);
            strcat(typed, v);
        }
        strcat(typed, ")");
        ck_assert_int_eq(quiz_check(&t, typed, NULL, NULL, 0), 0);
    }
}

/* Every multiple-choice question: choices distinct, the correct one once. */
static void assert_choices(const QuizQuestion *q)
{
    ck_assert_int_ge(q->n_choices, 2);
    ck_assert_int_le(q->n_choices, QUIZ_MAX_CHOICES);
    ck_assert_int_ge(q->correct, 0);
    ck_assert_int_lt(q->correct, q->n_choices);
    for (int i = 0; i < q->n_choices; i++) {
        ck_assert_msg(q->choices[i][0], "empty choice in %s", q->id);
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(q->choices[i], q->choices[j]), "repeated choice in %s", q->id);
    }
}

/* A tuple MC question: the correct choice parses to want, no other does. */
static void assert_tuple_choice(const QuizQuestion *q, Dims want)
{
    assert_choices(q);
    int hits = 0;
    for (int i = 0; i < q->n_choices; i++) {
        QuizAnswer a;
        ck_assert_int_eq(quiz_parse_answer(q->choices[i], &a), 0);
        int same = a.kind == QA_TUPLE && a.n == want.n;
        for (int k = 0; same && k < want.n; k++)
            same = a.v[k] == want.v[k];
        if (same) {
            hits++;
            ck_assert_int_eq(i, q->correct);
        }
    }
    ck_assert_msg(hits == 1, "%s: the right shape appears %d times", q->id, hits);
}

/* Offsets by walking the storage: number every float of the run's buffer
 * with its own index, then read the element the question names. */
static void assert_offset(const QuizQuestion *q)
{
    char err[300];
    Mha *m = mha_run(&q->cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    Tensor *t = m->t[q->tensor];
    for (size_t i = 0; i < t->st->n; i++)
        t->st->data[i] = (float)i;
    float at = tensor_get(t, q->idx);
    ck_assert_msg((long long)at == q->number, "%s: storage walk finds %g, question says %lld",
                  q->id, at, q->number);
    /* the picture lights the same cell of the same buffer */
    ck_assert(q->pic.on);
    ck_assert(tensor_same_storage(m->t[q->pic.tensor], t));
    ck_assert_int_eq(q->pic.lit, (long)q->number);
    mha_free(m);
}

/* The bugs program: the line the question names is the one that differs
 * from the right program in the same code shape (a mask moved past the
 * softmax shifts one more), and the engine's run of it differs from the
 * right output, which the right program reproduces. */
static int q_line_of(const int *lines)
{
    for (int i = 0; i < 20; i++)
        if (lines[i]) return i;
    return 0;
}

static void assert_bug(const QuizQuestion *q)
{
    char bad[20][QUIZ_BUG_LINE], good[20][QUIZ_BUG_LINE], err[300];
    int nb = quiz_bug_lines(q, 0, bad, 20), ng = quiz_bug_lines(q, 1, good, 20);
    ck_assert_int_eq(nb, ng);
    ck_assert_int_ge(q->number, 1);
    ck_assert_int_le(q->number, nb);
    ck_assert_str_ne(bad[q->number - 1], good[q->number - 1]);
    int differ = 0;
    for (int i = 0; i < nb; i++) {
        differ += strcmp(bad[i], good[i]) != 0;
        char numbered[QUIZ_BUG_LINE + 16];
        snprintf(numbered, sizeof numbered, "%3d  %.119s\n", i + 1, bad[i]);
        ck_assert_msg(strstr(q->prompt, numbered) != NULL, "%s: line %d not shown", q->id, i + 1);
    }
    ck_assert_int_le(differ, (q->aux == QUIZ_BUG_MASK_AFTER ? 2 : 1));
    ck_assert_int_le(nb, 14); /* the whole program fits 80x24 beside its feedback */
    Mha *m = mha_run(&q->cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    int seq_first = strstr(q->prompt, "sequence first") != NULL;
    Tensor *right =
        quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])good, ng, seq_first, err, sizeof err);
    ck_assert_msg(right != NULL, "%s: the right program fails: %s", q->id, err);
    ck_assert_msg(quiz_bug_diff(m, right) < 1e-4, "%s: the right program is off", q->id);
    Tensor *y = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])bad, nb, seq_first, err, sizeof err);
    ck_assert_msg(quiz_bug_diff(m, y) > 1e-4, "%s: bug %s changes nothing", q->id,
                  quiz_bug_name(q->aux));
    tensor_free(y);
    tensor_free(right);
    mha_free(m);
    ck_assert(q->working[0]);
}

static int viewcopy_oracle(const QuizQuestion *q)
{
    int H = q->cfg.heads, S = q->cfg.seq;
    int trivial = H == 1 || S == 1; /* the transposed dims: one of size 1 */
    switch (q->aux) {
    case QUIZ_OP_VIEW_SPLIT:
    case QUIZ_OP_TRANSPOSE:
    case QUIZ_OP_PERMUTE:
    case QUIZ_OP_CONTIG_SPLIT:
    case QUIZ_OP_RESHAPE_SPLIT:
    case QUIZ_OP_EXPAND:
    case QUIZ_OP_DOT_T:
        return 0; /* view */
    case QUIZ_OP_VIEW_MERGED:
        return trivial ? 0 : 2;
    case QUIZ_OP_CONTIG_HEADS:
    case QUIZ_OP_RESHAPE_HEADS:
    case QUIZ_OP_RESHAPE_MERGED:
        return trivial ? 0 : 1;
    default:
        return 1; /* repeat_interleave: always a copy */
    }
}

/* The right choice names the exact byte count (in its parentheses), the
 * others do not. */
static void assert_bytes_key(const QuizQuestion *q, const char *digits)
{
    for (int i = 0; i < q->n_choices; i++) {
        char plain[QUIZ_CHOICE_MAX];
        size_t k = 0;
        const char *paren = strchr(q->choices[i], '(');
        for (const char *s = paren; s && *s && k + 1 < sizeof plain; s++)
            if (*s >= '0' && *s <= '9') plain[k++] = *s;
        plain[k] = 0;
        ck_assert_msg((strcmp(plain, digits) == 0) == (i == q->correct), "%s choice %d", q->id, i);
    }
}

/* QG_CACHE_WEIGHTS: the weights as the prompt gives them, 2 bytes each; the
 * cache of aux sequences from the shape, every layer capped at the preset's
 * sliding window: the first context where the cache is bigger, or "never"
 * when the window stops it below the weights.  A context past the one the
 * model was trained for is said to be hypothetical (as `decode` says). */
static void assert_cache_weights(const QuizQuestion *q)
{
    PresetList pl;
    char err[300];
    ck_assert_int_eq(presets_builtin(&pl, err, sizeof err), 0);
    const Preset *m = NULL;
    for (int i = 0; i < pl.n; i++)
        if (!strncmp(q->prompt, pl.v[i].title, strlen(pl.v[i].title)) &&
            q->prompt[strlen(pl.v[i].title)] == ':')
            m = &pl.v[i];
    ck_assert_msg(m != NULL, "%s: no preset", q->id);
    ck_assert_msg(!m->chunk && (!m->window || !m->global_every), "%s: oracle for %s", q->id,
                  m->name);
    long long params = 0;
    for (const char *p = strstr(q->prompt, ": "); p && *p && *p != 'p'; p++)
        if (*p >= '0' && *p <= '9') params = params * 10 + (*p - '0');
    ck_assert_int_eq(params, m->params);
    long long B = q->aux, W = 2 * params;
    long long per = 2LL * q->idx[0] * q->cfg.kv_heads * q->idx[1] * 2; /* one token, one seq */
    long long want = W / (per * B) + 1; /* (want - 1) B per <= W < want B per */
    ck_assert(want * per * B > W && (want - 1) * per * B <= W);
    int never = m->window && want > m->window; /* the cache stops at window tokens */
    const char *key = q->choices[q->correct];
    if (never) {
        ck_assert_msg(!strncmp(key, "never", 5), "%s: %s B=%lld keys '%s'", q->id, m->name, B, key);
        ck_assert_int_eq(q->number, 0);
    } else {
        ck_assert_msg(q->number == want, "%s: %s B=%lld keys %lld, want %lld", q->id, m->name, B,
                      q->number, want);
        int past = m->context && want > m->context;
        ck_assert_msg(!!strstr(key, "past its trained context") == past, "%s: key '%s'", q->id,
                      key);
        ck_assert_msg(!past || strstr(q->working, "hypothetical: "), "%s: %s", q->id, q->working);
    }
    if (B == 1) { /* what `decode --plain --preset` prints for the model's own layout */
        KvDecodeCost k;
        ck_assert_int_eq(kv_decode_cost(m, 16, 1, &k, err, sizeof err), 0);
        for (int i = 0; i < k.n; i++)
            if (k.rows[i].is_model) ck_assert_int_eq(q->number, k.outgrows[i]);
    }
    /* a choice past the trained context says so, every one of them alike */
    for (int i = 0; i < q->n_choices; i++) {
        long long v = 0;
        for (const char *p = q->choices[i]; (*p >= '0' && *p <= '9') || *p == ','; p++)
            if (*p != ',') v = v * 10 + (*p - '0');
        ck_assert_msg(!!strstr(q->choices[i], "past its trained context") ==
                          (m->context && v > m->context),
                      "%s: choice '%s'", q->id, q->choices[i]);
    }
    presets_free(&pl);
}

/* Does line read the identifier name (a whole word, not the name it assigns)? */
static int reads_name(const char *line, const char *name)
{
    size_t n = strlen(name);
    const char *rhs = strstr(line, " = ");
    for (const char *p = rhs ? rhs + 3 : line; (p = strstr(p, name)); p += n) {
        int before = p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after) return 1;
    }
    return 0;
}

/* The listing of a question (its code lines, indented by four spaces; a
 * more indented line continues the one before) uses what it makes: every
 * NAME = ... but the last is read by a later line before NAME is assigned
 * again.  A line whose result nothing reads (K_expand made, then the scores
 * made from K_heads) is a listing that does not do what it shows (in
 * PyTorch the scores line then raises). */
static void assert_listing_uses_what_it_makes(const QuizQuestion *q)
{
    char lines[40][160];
    int n = 0;
    for (const char *p = q->prompt, *prev = NULL; *p && n < 40;) {
        int len = (int)strcspn(p, "\n"), sp = (int)strspn(p, " ");
        if (len > 4 && sp == 4)
            snprintf(lines[n++], sizeof lines[0], "%.*s", len - 4, p + 4);
        else if (sp > 4 && sp < len && n && prev) /* a statement broken inside its parentheses */
            snprintf(lines[n - 1] + strlen(lines[n - 1]), sizeof lines[0] - strlen(lines[n - 1]),
                     " %.*s", len - sp, p + sp);
        prev = len > 4 && sp >= 4 ? p : NULL;
        p += len;
        if (*p) p++;
    }
    for (int i = 0; i + 1 < n; i++) {
        char name[40];
        if (sscanf(lines[i], "%39[A-Za-z0-9_] = ", name) != 1 || !strstr(lines[i], " = ")) continue;
        int used = 0;
        for (int j = i + 1; j < n && !used; j++) {
            used = reads_name(lines[j], name);
            char again[40];
            if (!used && sscanf(lines[j], "%39[A-Za-z0-9_] = ", again) == 1 && !strcmp(again, name))
                break; /* assigned again, unread */
        }
        ck_assert_msg(used, "%s: '%s' is made and never used:\n%s", q->id, lines[i], q->prompt);
    }
}

/* ---- RoPE and FlashAttention, recomputed here in double from the run ---- */

/* The number a choice starts with ("0.4411 rad", "(0.46, -0.80)" -> 0.46). */
static double lead(const char *s)
{
    while (*s == '(')
        s++;
    return atof(s);
}

/* The pair partner and the pair index of float j, from the formulas. */
static int oracle_partner(RopeLayout l, int j, int dh)
{
    return l == ROPE_HALF ? (j + dh / 2) % dh : (j % 2 ? j - 1 : j + 1);
}

static int oracle_pair(RopeLayout l, int j, int dh)
{
    return l == ROPE_HALF ? j % (dh / 2) : j / 2;
}

/* v rotated in double as the token at position p. */
static void oracle_rotate(double *v, int dh, int p, RopeLayout l, double theta)
{
    for (int i = 0; i < dh / 2; i++) {
        int a = l == ROPE_HALF ? i : 2 * i, b = l == ROPE_HALF ? i + dh / 2 : 2 * i + 1;
        double ang = p * pow(theta, -2.0 * i / dh), x = v[a], y = v[b];
        v[a] = x * cos(ang) - y * sin(ang);
        v[b] = y * cos(ang) + x * sin(ang);
    }
}

static void assert_rope(const QuizQuestion *q, int kind)
{
    const MhaConfig *c = &q->cfg;
    int dh = c->d_model / c->heads;
    assert_choices(q);
    ck_assert(c->rope == ROPE_HALF || c->rope == ROPE_INTERLEAVED);
    const char *key = q->choices[q->correct];
    if (kind == QG_ROPE_PARTNER) {
        int want = oracle_partner(c->rope, q->idx[0], dh);
        ck_assert_msg(atoi(key) == want, "%s: key %s, want %d", q->id, key, want);
        /* the HF (half) layout's partner is never the neighbour, Meta's always is */
        ck_assert_int_eq(abs(want - q->idx[0]) == 1, c->rope == ROPE_INTERLEAVED);
        int neighbour = 0; /* the neighbour is a distractor in the HF layout */
        for (int i = 0; i < q->n_choices; i++)
            neighbour |= abs(atoi(q->choices[i]) - q->idx[0]) == 1;
        ck_assert(neighbour || c->rope == ROPE_INTERLEAVED);
    } else if (kind == QG_ROPE_WHICH) {
        ck_assert_str_eq(
            key, "Q and K are rotated; the cache holds K after the rotation, V as projected");
        ck_assert_int_eq(q->n_choices, 4);
    } else if (kind == QG_ROPE_ANGLE) {
        int i = oracle_pair(c->rope, q->idx[0], dh);
        double want = q->idx[1] * pow(c->rope_theta, -2.0 * i / dh);
        ck_assert_msg(fabs(lead(key) - want) <= 1e-3 * want, "%s: key %s, want %.6g", q->id, key,
                      want);
        for (int k = 0; k < q->n_choices; k++)
            ck_assert(k == q->correct || fabs(lead(q->choices[k]) - want) > 1e-3 * want);
    } else { /* QG_ROPE_DOT: row 0 of head 0 of Q_heads, K_heads, rotated here */
        char err[300];
        MhaConfig off = *c;
        off.rope = ROPE_OFF;
        Mha *m = mha_run(&off, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        double qv[16], kv[16], dot = 0;
        for (int i = 0; i < dh; i++) {
            int idx[4] = {0, 0, 0, i};
            qv[i] = tensor_get(m->t[MT_Q_HEADS], idx), kv[i] = tensor_get(m->t[MT_K_HEADS], idx);
        }
        mha_free(m);
        ck_assert_int_eq(q->idx[0] - q->idx[1], q->idx[2] - q->idx[3]); /* the same distance */
        oracle_rotate(qv, dh, q->idx[2], c->rope, c->rope_theta);
        oracle_rotate(kv, dh, q->idx[3], c->rope, c->rope_theta);
        for (int i = 0; i < dh; i++)
            dot += qv[i] * kv[i];
        ck_assert_msg(fabs(lead(key) - dot) <= 1.5e-3, "%s: key %s, want %.6f", q->id, key, dot);
        char shown[40];
        snprintf(shown, sizeof shown, "is %s.", key); /* the first dot product, as given */
        ck_assert_msg(strstr(q->prompt, shown) != NULL, "%s: %s", q->id, q->prompt);
    }
}

/* Row r of head (0, 0): its scaled scores over keys 0..n-1 (unmasked). */
static void oracle_scores(const Mha *m, int r, int n, double *s)
{
    for (int k = 0; k < n; k++) {
        double dot = 0;
        for (int i = 0; i < m->d_head; i++) {
            int qi[4] = {0, 0, r, i}, ki[4] = {0, 0, k, i};
            dot += (double)tensor_get(m->t[MT_Q_HEADS], qi) * tensor_get(m->t[MT_K_HEADS], ki);
        }
        s[k] = dot / sqrt((double)m->d_head);
    }
}

static void assert_flash(const QuizQuestion *q, int kind)
{
    const MhaConfig *c = &q->cfg;
    assert_choices(q);
    const char *key = q->choices[q->correct];
    int bq = q->idx[0], bk = q->idx[1];
    if (kind == QG_FLASH_BYTES) { /* the formulas, per (batch, head), x B x H */
        long long S = c->seq, dh = c->d_model / c->heads, n = (long long)c->batch * c->heads,
                  rows = 0;
        for (long long i = 0; i * bq < S; i++) {
            long long last = (i + 1) * bq < S ? (i + 1) * bq - 1 : S - 1;
            for (long long j = 0; j * bk < S; j++)
                if (!c->causal || j * bk <= last) rows += (j + 1) * bk < S ? bk : S - j * bk;
        }
        long long want = q->aux ? 4 * (S * dh + 2 * rows * dh + S * dh + S) * n
                                : 4 * (4 * S * dh + 4 * S * S) * n;
        ck_assert_msg(q->number == want, "%s: %lld, want %lld", q->id, q->number, want);
        char digits[40];
        snprintf(digits, sizeof digits, "%lld", want);
        assert_bytes_key(q, digits);
        return;
    }
    if (kind == QG_FLASH_SKIP) {
        ck_assert(c->causal);
        int S = c->seq, visited = 0;
        for (int i = 0; i * bq < S; i++)
            for (int j = 0; j * bk < S; j++) {
                int last = (i + 1) * bq < S ? (i + 1) * bq - 1 : S - 1, skip = j * bk > last;
                visited += !skip;
                if (!q->aux && i == q->idx[2] && j == q->idx[3])
                    ck_assert_str_eq(key, skip ? "yes" : "no");
            }
        if (q->aux) ck_assert_msg(atoi(key) == visited, "%s: %s, want %d", q->id, key, visited);
        return;
    }
    /* QG_FLASH_ML, QG_FLASH_RESCALE: the definitions over keys 0..c1-1 */
    char err[300];
    ck_assert(!c->causal);
    Mha *m = mha_run(c, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    int r = q->idx[2], j = q->idx[3], c1 = (j + 1) * bk < c->seq ? (j + 1) * bk : c->seq;
    double s[64], mx = -INFINITY, l = 0, o[16] = {0};
    oracle_scores(m, r, c1, s);
    for (int k = 0; k < c1; k++)
        mx = fmax(mx, s[k]);
    for (int k = 0; k < c1; k++) {
        double p = exp(s[k] - mx);
        l += p;
        for (int i = 0; i < m->d_head; i++) {
            int vi[4] = {0, 0, k, i};
            o[i] += p * tensor_get(m->t[MT_V_HEADS], vi);
        }
    }
    if (kind == QG_FLASH_ML) {
        double want = q->aux ? l : mx;
        ck_assert_msg(fabs(lead(key) - want) <= 2e-3, "%s: key %s, want %.5f", q->id, key, want);
    } else {
        double o0 = o[0] / l, o1;
        const char *comma = strchr(key, ',');
        ck_assert_ptr_nonnull(comma);
        o1 = atof(comma + 1);
        ck_assert_msg(fabs(lead(key) - o0) <= 2e-4 && fabs(o1 - o[1] / l) <= 2e-4,
                      "%s: key %s, want (%.5f, %.5f)", q->id, key, o0, o[1] / l);
        /* m grew at this tile: the max of keys 0..c1-1 is in tile j */
        double before = -INFINITY;
        for (int k = 0; k < j * bk; k++)
            before = fmax(before, s[k]);
        ck_assert_msg(mx > before, "%s: m did not grow", q->id);
    }
    mha_free(m);
}

/* QG_PAGED, recomputed from the formulas of issue #19 alone: a table holds
 * ceil(L/N) blocks; the pool floor(P/N) + sum(ceil(L_i/N) - floor(P/N)).
 * The mistakes are among the choices: the prefix per sequence, and its
 * partial block taken as shared. */
static void assert_paged(const QuizQuestion *q)
{
    long long N = q->cfg.seq, P = q->idx[3], n = q->cfg.batch;
    ck_assert(N >= 1 && n >= 1 && n <= 3);
    if (q->aux == 0) {
        ck_assert_int_eq(q->kind, QK_NUMBER);
        ck_assert_int_eq(q->number, (q->idx[0] + N - 1) / N);
        ck_assert_int_ne(q->idx[0] % N, 0); /* floor would be wrong */
        return;
    }
    assert_choices(q);
    long long want = P / N, noshare = 0;
    for (int i = 0; i < n; i++) {
        long long b = (q->idx[i] + N - 1) / N;
        ck_assert_int_ge(q->idx[i], P);
        want += b - P / N, noshare += b;
    }
    ck_assert_int_eq(q->number, want);
    char text[40];
    snprintf(text, sizeof text, "%lld blocks", want);
    ck_assert_str_eq(q->choices[q->correct], text);
    int found_noshare = 0, found_cow = 0;
    for (int i = 0; i < q->n_choices; i++) {
        long long v = atoll(q->choices[i]);
        found_noshare += v == noshare;
        found_cow += v == want - (n - 1);
    }
    ck_assert_msg(found_noshare && found_cow, "%s: the real mistakes are missing", q->id);
}

/* QG_WINDOW: slot t mod W, over token t - W, min(t + 1, W) keys. */
static void assert_window(const QuizQuestion *q)
{
    int t = q->idx[0], W = q->cfg.window;
    ck_assert(W >= 1 && t > W && q->cfg.causal);
    assert_choices(q);
    long long want = q->aux == 0 ? t % W : q->aux == 1 ? t - W : (t + 1 < W ? t + 1 : W);
    ck_assert_int_eq(q->number, want);
    static const char *const fmt[3] = {"slot %lld", "token %lld", "%lld keys"};
    char text[40];
    snprintf(text, sizeof text, fmt[q->aux], want);
    ck_assert_str_eq(q->choices[q->correct], text);
    if (q->aux == 0) { /* slot t, the mistake of no ring, is offered */
        snprintf(text, sizeof text, "slot %d", t);
        int found = 0;
        for (int i = 0; i < q->n_choices; i++)
            found += !strcmp(q->choices[i], text);
        ck_assert(found);
    }
}

/* QG_MLA: layers x (kv_lora_rank + qk_rope_head_dim) x bits / 8 (one layer
 * with idx[3]), from the config the prompt quotes; the presets' values are
 * DeepSeek-V3's (61, 512, 64) or V2-Lite's (27, 512, 64), as cited. */
static void assert_mla(const QuizQuestion *q)
{
    long long L = q->aux, R = q->idx[0], dr = q->idx[1], bits = q->idx[2];
    ck_assert(R == 512 && dr == 64 && (L == 61 || L == 27));
    long long want = (q->idx[3] ? 1 : L) * (R + dr) * bits / 8;
    ck_assert_int_eq(q->number, want);
    if (L == 61 && bits == 16 && !q->idx[3]) ck_assert_int_eq(want, 70272);
    assert_choices(q);
    char digits[40];
    snprintf(digits, sizeof digits, "%lld", want);
    assert_bytes_key(q, digits);
    /* the trap is offered: K and V of every num_key_value_heads */
    long long dh = q->cfg.d_model / q->cfg.heads,
              trap = 2 * (q->idx[3] ? 1 : L) * q->cfg.kv_heads * dh * bits / 8;
    snprintf(digits, sizeof digits, "%lld", trap);
    int found = 0;
    for (int i = 0; i < q->n_choices; i++) {
        char plain[QUIZ_CHOICE_MAX];
        size_t k = 0;
        for (const char *c = strchr(q->choices[i], '('); c && *c && k + 1 < sizeof plain; c++)
            if (*c >= '0' && *c <= '9') plain[k++] = *c;
        plain[k] = 0;
        found += !strcmp(plain, digits);
    }
    ck_assert_msg(found == 1, "%s: num_key_value_heads' %s not offered", q->id, digits);
}

/* Fails when text counts one of something in the plural ("1 keys", "= 1 full
 * blocks"), as the window and paged questions did. */
static void assert_no_one_plural(const char *id, const char *text)
{
    static const char *nouns[] = {"keys",     "blocks",      "full blocks", "tokens",   "slots",
                                  "heads",    "layers",      "tiles",       "rows",     "pairs",
                                  "kv heads", "query heads", "floats",      "sequences"};
    for (const char *p = strstr(text, "1 "); p; p = strstr(p + 1, "1 ")) {
        if (p > text && (isdigit((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == ',')) continue;
        if (p > text + 1 && (p[-2] == '+' || p[-2] == '-')) continue; /* "T + 1 keys" */
        for (size_t i = 0; i < sizeof nouns / sizeof *nouns; i++) {
            size_t n = strlen(nouns[i]);
            ck_assert_msg(strncmp(p + 2, nouns[i], n) || isalpha((unsigned char)p[2 + n]),
                          "%s: '1 %s' in: %.80s", id, nouns[i], p > text + 20 ? p - 20 : text);
        }
    }
}

static void check_one(int kind, uint64_t seed)
{
    QuizQuestion q;
    char err[300], ans[300];
    ck_assert_msg(quiz_generate_kind(kind, seed, &q, err, sizeof err) == 0, "kind %d seed %llu: %s",
                  kind, (unsigned long long)seed, err);
    ck_assert_int_eq(q.gen, kind + 1);
    ck_assert(q.prompt[0] && q.explain[0] && q.working[0]);
    const MhaConfig *c = &q.cfg;
    if (kind != QG_KVCACHE && kind != QG_SCORES_MEM && kind != QG_CACHE_WEIGHTS &&
        kind != QG_GROUPS && kind != QG_FLASH_BYTES && kind != QG_PAGED && kind != QG_MLA)
        ck_assert_msg(mha_config_check(c, err, sizeof err) == 0, "%s: %s", q.id, err);
    switch (kind) {
    case QG_SHAPE:
    case QG_KVSHAPE: {
        Dims want = oracle_shape(c, q.tensor);
        if (q.kind == QK_CHOICE)
            assert_tuple_choice(&q, want);
        else
            assert_tuple(&q, want, "shape");
        if (kind == QG_KVSHAPE) ck_assert_int_lt(c->kv_heads, c->heads);
        break;
    }
    case QG_STRIDES:
        assert_tuple(&q, oracle_strides(c, q.tensor), "strides");
        assert_free_axes(&q);
        break;
    case QG_CONTIG: {
        assert_choices(&q);
        ck_assert_int_eq(q.n_choices, 2);
        int yes = oracle_contiguous(oracle_shape(c, q.tensor), oracle_strides(c, q.tensor));
        ck_assert_msg(q.correct == (yes ? 0 : 1), "%s: contiguous %d", q.id, yes);
        break;
    }
    case QG_OFFSET:
        assert_offset(&q);
        break;
    case QG_VIEWCOPY: {
        static const char *const outcome[3] = {"a view", "a copy", "an error"};
        assert_choices(&q);
        int want = viewcopy_oracle(&q);
        ck_assert_msg(!strncmp(q.choices[q.correct], outcome[want], strlen(outcome[want])),
                      "%s op %d: key '%s', want %s", q.id, q.aux, q.choices[q.correct],
                      outcome[want]);
        break;
    }
    case QG_KVHEAD:
        ck_assert_int_eq(q.number, q.aux / (c->heads / c->kv_heads));
        break;
    case QG_REPEAT_BYTES: {
        long long want = q.tensor == MT_K_EXPAND
                             ? 0
                             : 4LL * c->batch * c->heads * c->seq * (c->d_model / c->heads);
        ck_assert_int_eq(q.number, want);
        break;
    }
    case QG_KVCACHE: {
        long long dh = c->d_model / c->heads;
        long long want = 2LL * q.aux * c->kv_heads * dh * q.idx[0] / 8 * c->seq * c->batch;
        ck_assert_int_eq(q.number, want);
        assert_choices(&q);
        /* the right choice names the exact byte count, the others do not */
        char digits[40];
        snprintf(digits, sizeof digits, "%lld", want);
        assert_bytes_key(&q, digits);
        break;
    }
    case QG_BUG:
        assert_bug(&q);
        break;
    case QG_DECODE: {
        long long B = c->batch, H = c->heads, KV = c->kv_heads, dh = c->d_model / c->heads,
                  T = q.idx[0];
        Dims want[4] = {dims(4, B, H, 1, dh, 0), dims(4, B, KV, T + 1, dh, 0),
                        dims(4, B, H, 1, T + 1, 0), dims(4, B, H, 1, dh, 0)};
        ck_assert_int_eq(c->seq, 1);
        assert_tuple_choice(&q, want[q.aux]);
        break;
    }
    case QG_SCORES_MEM: {
        assert_choices(&q);
        long long want = (long long)q.idx[1] * c->heads * q.aux * q.aux * q.idx[0];
        ck_assert_int_eq(q.number, want);
        char digits[40];
        snprintf(digits, sizeof digits, "%lld", want);
        assert_bytes_key(&q, digits);
        break;
    }
    case QG_CACHE_WEIGHTS:
        assert_choices(&q);
        assert_cache_weights(&q);
        break;
    case QG_GROUPS:
        if (q.kind == QK_NUMBER) {
            ck_assert_int_eq(q.number, q.aux / (c->heads / c->kv_heads));
            ck_assert_int_ne(q.number, q.aux % c->kv_heads);
        } else
            assert_tuple_choice(&q, dims(4, c->batch, c->heads, c->seq, c->d_model / c->heads, 0));
        ck_assert_int_ne(c->heads / c->kv_heads & (c->heads / c->kv_heads - 1),
                         0); /* no power of two */
        break;
    case QG_ROPE_PARTNER:
    case QG_ROPE_WHICH:
    case QG_ROPE_ANGLE:
    case QG_ROPE_DOT:
        ck_assert_int_eq(q.topic, QT_ROPE);
        assert_rope(&q, kind);
        break;
    case QG_FLASH_ML:
    case QG_FLASH_SKIP:
    case QG_FLASH_BYTES:
    case QG_FLASH_RESCALE:
        ck_assert_int_eq(q.topic, QT_FLASH);
        assert_flash(&q, kind);
        break;
    case QG_PAGED:
        ck_assert_int_eq(q.topic, QT_PAGED);
        assert_paged(&q);
        break;
    case QG_WINDOW:
        ck_assert_int_eq(q.topic, QT_WINDOW);
        assert_window(&q);
        break;
    case QG_MLA:
        ck_assert_int_eq(q.topic, QT_MLA);
        assert_mla(&q);
        break;
    default:
        ck_abort_msg("kind %d", kind);
    }
    assert_listing_uses_what_it_makes(&q);
    assert_no_one_plural(q.id, q.prompt);
    assert_no_one_plural(q.id, q.working);
    assert_no_one_plural(q.id, q.explain);
    for (int i = 0; i < q.n_choices; i++)
        assert_no_one_plural(q.id, q.choices[i]);
    /* code lines fit an 80-column screen whole (prose may wrap, code must not) */
    for (const char *p = q.prompt; *p;) {
        int len = (int)strcspn(p, "\n");
        ck_assert_msg(*p != ' ' || len <= 78, "%s: a code line of %d columns", q.id, len);
        p += len;
        if (*p) p++;
    }
    /* the expected answer, typed back, is right; the question rebuilds from its id */
    quiz_answer_text(&q, ans, sizeof ans);
    const char *typed = ans;
    char letter[2] = {0, 0};
    if (q.kind == QK_CHOICE) letter[0] = (char)('a' + q.correct), typed = letter;
    ck_assert_msg(quiz_check(&q, typed, NULL, err, sizeof err) == 1, "%s: '%s' not right (%s)",
                  q.id, typed, err);
    QuizQuestion again;
    ck_assert_int_eq(quiz_from_id(NULL, q.id, &again), 0);
    ck_assert_str_eq(again.prompt, q.prompt);
}

START_TEST(generated_match_engine)
{
    int kind = _i;
    for (uint64_t s = 1; s <= SEEDS; s++)
        check_one(kind, s * 2654435761ULL + (uint64_t)kind);
}
END_TEST

/* Every bug kind, several seeds: a real bug, the wrong line at different
 * places across code shapes. */
START_TEST(every_bug_kind_differs)
{
    int bug = _i, lines[20] = {0};
    char err[300];
    for (uint64_t s = 1; s <= 12; s++) {
        QuizQuestion q;
        ck_assert_msg(quiz_generate_bug(bug, s * 7919, &q, err, sizeof err) == 0, "%s: %s",
                      quiz_bug_name(bug), err);
        ck_assert_int_eq(q.aux, bug);
        assert_bug(&q);
        lines[q.number]++;
        QuizQuestion again;
        ck_assert_int_eq(quiz_from_id(NULL, q.id, &again), 0);
        ck_assert_str_eq(again.prompt, q.prompt);
    }
    int places = 0;
    for (int i = 0; i < 20; i++)
        places += lines[i] > 0;
    ck_assert_msg(places >= 2, "%s: the wrong line is always %d", quiz_bug_name(bug),
                  q_line_of(lines));
}
END_TEST

/* Over 4,000 generated multiple-choice questions each key position holds
 * its fair share within 5% (of that share); yes/no keys are balanced too;
 * the bugs topic's wrong line is not one favourite. */
START_TEST(keys_are_uniform)
{
    static const int topics[] = {QT_SHAPES, QT_STRIDES, QT_VIEWS, QT_GQA,    QT_KVCACHE,
                                 QT_ROPE,   QT_FLASH,   QT_PAGED, QT_WINDOW, QT_MLA};
    const int ntopics = (int)(sizeof topics / sizeof *topics);
    long pos[QUIZ_MAX_CHOICES + 1][QUIZ_MAX_CHOICES] = {{0}};
    long per_n[QUIZ_MAX_CHOICES + 1] = {0}, yes = 0, yesno = 0, mc = 0;
    char err[300];
    QuizQuestion q;
    for (uint64_t s = 1; mc < 4000; s++) {
        int t = topics[s % (uint64_t)ntopics];
        ck_assert_msg(quiz_generate(t, s * 0x9e3779b97f4a7c15ULL, &q, err, sizeof err) == 0, "%s",
                      err);
        if (q.kind != QK_CHOICE) continue;
        mc++;
        per_n[q.n_choices]++;
        pos[q.n_choices][q.correct]++;
        if (q.n_choices == 2 && !strcmp(q.choices[0], "yes")) yesno++, yes += q.correct == 0;
    }
    for (int n = 2; n <= QUIZ_MAX_CHOICES; n++) {
        if (per_n[n] < 100) continue; /* too few to judge */
        for (int k = 0; k < n; k++) { /* the share within 5 points of 1/n */
            double share = (double)pos[n][k] / per_n[n];
            fprintf(stderr, "keys: %d choices, position %c: %ld of %ld\n", n, 'a' + k, pos[n][k],
                    per_n[n]);
            ck_assert_msg(fabs(share - 1.0 / n) <= 0.05,
                          "%d choices: key at %c %.1f%%, fair %.1f%%", n, 'a' + k, 100 * share,
                          100.0 / n);
        }
    }
    fprintf(stderr, "keys: yes %ld of %ld yes/no questions\n", yes, yesno);
    ck_assert(yesno >= 100);
    ck_assert_msg(fabs((double)yes / yesno - 0.5) <= 0.05, "yes %ld of %ld", yes, yesno);
}
END_TEST

START_TEST(generated_topics_and_sessions)
{
    QuizBank bank = {0};
    char err[300];
    ck_assert_int_eq(quiz_bank_load_builtin(&bank, err, sizeof err), 0);
    /* topics are drawn at random: with 15 topics 90 questions leave one out
     * with odds of (14/15)^90 = 0.2%, so a change to the bank (which shifts
     * the draws) does not fail this by chance, as 60 (1.6%) did */
    static QuizQuestion a[90], b[90];
    int na = quiz_session(&bank, -1, 90, 1, a, err, sizeof err);
    int nb = quiz_session(&bank, -1, 90, 1, b, err, sizeof err);
    ck_assert_int_eq(na, 90);
    ck_assert_int_eq(nb, 90);
    int topics[QT_COUNT] = {0};
    for (int i = 0; i < na; i++) {
        ck_assert_str_eq(a[i].id, b[i].id);
        ck_assert_str_eq(a[i].prompt, b[i].prompt);
        topics[a[i].topic]++;
    }
    for (int t = 0; t < QT_COUNT; t++)
        ck_assert_msg(topics[t] > 0, "topic %s never asked", quiz_topic_names[t]);
    /* another seed, other questions */
    nb = quiz_session(&bank, -1, 60, 2, b, err, sizeof err);
    int same = 0;
    for (int i = 0; i < 60; i++)
        same += !strcmp(a[i].prompt, b[i].prompt);
    ck_assert_int_lt(same, 15);
    /* one topic only */
    for (int t = 0; t < QT_COUNT; t++) {
        int n = quiz_session(&bank, t, 5, 9, a, err, sizeof err);
        ck_assert_int_eq(n, 5);
        for (int i = 0; i < n; i++)
            ck_assert_int_eq(a[i].topic, t);
    }
    /* a curated-only topic runs out instead of repeating */
    static QuizQuestion many[200];
    int n = quiz_session(&bank, QT_CONCEPTS, 200, 3, many, err, sizeof err);
    ck_assert_int_gt(n, 0);
    ck_assert_int_lt(n, 200);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(many[i].id, many[j].id);
    ck_assert_int_eq(quiz_generate(QT_CONCEPTS, 1, a, err, sizeof err), -1);
    ck_assert_int_eq(quiz_generate_kind(QG_COUNT, 1, a, err, sizeof err), -1);
    ck_assert_int_eq(quiz_from_id(&bank, "nonsense", a), -1);
    quiz_bank_free(&bank);
}
END_TEST

/* ---- the curated bank ---- */

START_TEST(curated_bank_valid)
{
    QuizBank bank = {0};
    char err[300], ans[300];
    ck_assert_msg(quiz_bank_load_builtin(&bank, err, sizeof err) == 0, "%s", err);
    ck_assert_int_ge(bank.n, 40);
    int topics[QT_COUNT] = {0};
    for (int i = 0; i < bank.n; i++) {
        const QuizQuestion *q = &bank.q[i];
        topics[q->topic]++;
        ck_assert(q->prompt[0] && q->explain[0]);
        ck_assert_int_eq(q->gen, 0);
        ck_assert(strstr(q->source, "lessons/") == q->source);
        if (q->kind == QK_CHOICE)
            assert_choices(q);
        else
            ck_assert_int_eq(q->n_choices, 0);
        /* exactly one correct answer: the key is right, every other letter wrong */
        quiz_answer_text(q, ans, sizeof ans);
        if (q->kind == QK_CHOICE) {
            for (int c = 0; c < q->n_choices; c++) {
                char l[2] = {(char)('a' + c), 0};
                ck_assert_int_eq(quiz_check(q, l, NULL, NULL, 0), c == q->correct);
            }
        } else
            ck_assert_msg(quiz_check(q, ans, NULL, err, sizeof err) == 1, "%s: '%s'", q->source,
                          ans);
        QuizQuestion again;
        ck_assert_int_eq(quiz_from_id(&bank, q->id, &again), 0);
        ck_assert_str_eq(again.source, q->source);
    }
    ck_assert_int_ge(topics[QT_CONCEPTS], 25);
    quiz_bank_free(&bank);
}
END_TEST

START_TEST(bad_bank_corpus)
{
    DIR *d = opendir("tests/quiz-bad");
    ck_assert_msg(d != NULL, "tests/quiz-bad (run from the repo root)");
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".quiz")) continue;
        char path[512], text[8192], want[200] = "no questions";
        int want_line = 1;
        snprintf(path, sizeof path, "tests/quiz-bad/%s", e->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = 0;
        sscanf(text, "# expect %d: %199[^\n]", &want_line, want);
        QuizBank bank = {0};
        char err[400], prefix[600];
        ck_assert_msg(quiz_bank_parse(&bank, path, text, err, sizeof err) == -1, "%s parsed", path);
        ck_assert_int_eq(bank.n, 0);
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, want_line);
        ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "%s: got '%s', want prefix '%s'",
                      path, err, prefix);
        ck_assert_msg(strstr(err, want) != NULL, "%s: '%s' lacks '%s'", path, err, want);
        quiz_bank_free(&bank);
        files++;
    }
    closedir(d);
    ck_assert_int_ge(files, 4);
}
END_TEST

START_TEST(bank_good_and_short_answers)
{
    QuizBank bank = {0};
    char err[300];
    const char *text = "@topic gqa\n"
                       "@q Shape of K_heads?\n"
                       "@answer (2, 4, 16, 64)\n"
                       "@explain because\n"
                       "and more.\n"
                       "\n"
                       "@q Group size?\n"
                       "@answer 4\n"
                       "@explain 32 / 8\n"
                       "@q Name it\n"
                       "for 1 kv head\n"
                       "@answer MQA | multi-query attention\n"
                       "@explain one kv head\n";
    ck_assert_int_eq(quiz_bank_parse(&bank, "x.quiz", text, err, sizeof err), 3);
    ck_assert_int_eq(bank.q[0].kind, QK_TUPLE);
    ck_assert_int_eq(bank.q[0].topic, QT_GQA);
    ck_assert_str_eq(bank.q[0].explain, "because and more.");
    ck_assert_int_eq(quiz_check(&bank.q[0], "[2 4 16 64]", NULL, NULL, 0), 1);
    ck_assert_int_eq(quiz_check(&bank.q[0], "2,4,64,16", NULL, NULL, 0), 0);
    ck_assert_int_eq(bank.q[1].kind, QK_NUMBER);
    ck_assert_int_eq(quiz_check(&bank.q[1], " 4 ", NULL, NULL, 0), 1);
    ck_assert_int_eq(quiz_check(&bank.q[1], "5", NULL, NULL, 0), 0);
    ck_assert_int_eq(quiz_check(&bank.q[1], "four", NULL, err, sizeof err), -1);
    ck_assert_int_eq(bank.q[2].kind, QK_TEXT);
    ck_assert_str_eq(bank.q[2].prompt, "Name it\nfor 1 kv head");
    ck_assert_int_eq(quiz_check(&bank.q[2], "mqa", NULL, NULL, 0), 1);
    ck_assert_int_eq(quiz_check(&bank.q[2], "Multi-Query   Attention", NULL, NULL, 0), 1);
    ck_assert_int_eq(quiz_check(&bank.q[2], "gqa", NULL, NULL, 0), 0);
    ck_assert_str_eq(bank.q[2].source, "x.quiz:10");
    /* {expressions} are filled from a run of the question's @config and the presets */
    const char *expr =
        "@q With {heads} heads and {kv_heads} kv heads, which kv head serves query head 5?\n"
        "@config d_model=16 heads=8 kv_heads=4\n"
        "@answer {kvhead 5}\n"
        "@explain {groupmap}\n"
        "@q Bytes per token for {preset llama-2-70b title} in fp16?\n"
        "@answer {kv llama-2-70b fp16}\n"
        "@explain {kv llama-2-70b fp16 mha} with MHA.\n";
    ck_assert_int_eq(quiz_bank_parse(&bank, "e.quiz", expr, err, sizeof err), 2);
    ck_assert_str_eq(bank.q[3].prompt,
                     "With 8 heads and 4 kv heads, which kv head serves query head 5?");
    ck_assert_int_eq(bank.q[3].kind, QK_NUMBER);
    MhaConfig c = mha_config_default();
    c.d_model = 16, c.heads = 8, c.kv_heads = 4;
    ck_assert_int_eq(bank.q[3].number, mha_kv_head_of(&c, 5));
    ck_assert_int_eq(bank.q[4].kind, QK_NUMBER); /* "327,680" is a number, not a shape */
    ck_assert_int_eq(quiz_check(&bank.q[4], "327680", NULL, NULL, 0), bank.q[4].number == 327680);
    ck_assert_int_eq(quiz_check(&bank.q[4], "327,680", NULL, NULL, 0), bank.q[4].number == 327680);
    ck_assert(strchr(bank.q[4].prompt, '{') == NULL);
    /* the same file again: duplicate questions are refused with where the first is */
    ck_assert_int_eq(quiz_bank_parse(&bank, "y.quiz", text, err, sizeof err), -1);
    ck_assert_str_eq(err, "y.quiz:2: the same question as x.quiz:2");
    ck_assert_int_eq(bank.n, 5);
    quiz_bank_free(&bank);
}
END_TEST

/* ---- the answer parser ---- */

START_TEST(answer_spellings)
{
    QuizAnswer a;
    const char *shapes[] = {"(2, 8, 16, 64)",    "2,8,16,64",       "[2 8 16 64]",
                            " ( 2,8 , 16,64 ) ", "2 8 16 64",       "[2, 8, 16, 64,]",
                            "(2,8,16,64)\n",     "2, 8, 16, 64\r\n"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        ck_assert_msg(quiz_parse_answer(shapes[i], &a) == 0, "'%s'", shapes[i]);
        ck_assert_int_eq(a.kind, QA_TUPLE);
        ck_assert_int_eq(a.n, 4);
        ck_assert(a.v[0] == 2 && a.v[1] == 8 && a.v[2] == 16 && a.v[3] == 64);
    }
    ck_assert_int_eq(quiz_parse_answer("(4,)", &a), 0);
    ck_assert_int_eq(a.kind, QA_TUPLE);
    ck_assert_int_eq(a.n, 1);
    ck_assert_int_eq(quiz_parse_answer("4096", &a), 0);
    ck_assert_int_eq(a.kind, QA_NUMBER);
    ck_assert_int_eq(a.number, 4096);
    ck_assert_int_eq(quiz_parse_answer("1_048_576", &a), 0);
    ck_assert_int_eq(a.number, 1048576);
    ck_assert_int_eq(quiz_parse_answer("1,048,576", &a), 0);
    ck_assert_int_eq(a.kind, QA_TUPLE);
    ck_assert_int_eq(a.number, 1048576);
    const char *letters[] = {"b", "B", "b)", "B.", "  b  "};
    for (size_t i = 0; i < sizeof letters / sizeof *letters; i++) {
        ck_assert_int_eq(quiz_parse_answer(letters[i], &a), 0);
        ck_assert_int_eq(a.kind, QA_LETTER);
        ck_assert_int_eq(a.letter, 1);
    }
    ck_assert_int_eq(quiz_parse_answer("A View", &a), 0);
    ck_assert_int_eq(a.kind, QA_TEXT);
    ck_assert_str_eq(a.text, "a view");
    ck_assert_int_eq(quiz_parse_answer("", &a), 0);
    ck_assert_int_eq(a.kind, QA_EMPTY);
    ck_assert_int_eq(quiz_parse_answer(" \t\n", &a), 0);
    ck_assert_int_eq(a.kind, QA_EMPTY);
    const char *garbage[] = {"(2, 8", "2, 8)", "[2 8)",
                             "((2))", "2,,8",  "()",
                             "[]",    ",",     "99999999999999999999",
                             "1__0",  "_1",    "(1,2,3,4,5,6,7,8,9)",
                             "\x01",  "a\x7f", "???",
                             "--",    "(-)",   NULL};
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++)
        ck_assert_msg(quiz_parse_answer(garbage[i], &a) == -1, "'%s' accepted",
                      garbage[i] ? garbage[i] : "NULL");
    char longline[2000];
    memset(longline, 'x', sizeof longline - 1);
    longline[sizeof longline - 1] = 0;
    ck_assert_int_eq(quiz_parse_answer(longline, &a), -1);
}
END_TEST

START_TEST(check_choice_spellings)
{
    QuizQuestion q;
    memset(&q, 0, sizeof q);
    q.kind = QK_CHOICE;
    q.n_choices = 3;
    strcpy(q.choices[0], "(2, 8, 16, 64)");
    strcpy(q.choices[1], "(2, 16, 8, 64)");
    strcpy(q.choices[2], "an error");
    q.correct = 1;
    int chosen;
    char why[100];
    ck_assert_int_eq(quiz_check(&q, "b", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(chosen, 1);
    ck_assert_int_eq(quiz_check(&q, "[2 16 8 64]", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "2,8,16,64", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 0);
    ck_assert_int_eq(quiz_check(&q, "error", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 2);
    ck_assert_int_eq(quiz_check(&q, "d", &chosen, why, sizeof why), -1);
    ck_assert_str_eq(why, "type a letter a-c, or the text, number or shape of one choice");
    ck_assert_int_eq(quiz_check(&q, "(1, 2)", &chosen, why, sizeof why),
                     0); /* a shape, no choice */
    ck_assert_str_eq(why, "not one of the choices");
    ck_assert_int_eq(quiz_check(&q, "(2, 8", &chosen, why, sizeof why), -1);
    q.kind = QK_TUPLE;
    q.n_tuple = 2;
    q.tuple[0] = 4, q.tuple[1] = 1;
    ck_assert_int_eq(quiz_check(&q, "(4, 1)", NULL, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "4", NULL, why, sizeof why), 0);
    ck_assert_int_eq(quiz_check(&q, "b", NULL, why, sizeof why), -1);
    ck_assert_str_eq(why, "type a shape like (2, 8, 16, 64)");
    q.kind = QK_NUMBER;
    q.number = 1048576;
    ck_assert_int_eq(quiz_check(&q, "1,048,576", NULL, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "1_048_576", NULL, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "(1048576)", NULL, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "1048577", NULL, why, sizeof why), 0);
}
END_TEST

/* A typed number or shape picks the choice that states it, even inside
 * words: "1073741824" picks "1.00 GiB (1,073,741,824 bytes)". */
START_TEST(check_choice_values_in_text)
{
    QuizQuestion q;
    memset(&q, 0, sizeof q);
    q.kind = QK_CHOICE;
    q.n_choices = 4;
    strcpy(q.choices[0], "1.00 GiB (1,073,741,824 bytes)");
    strcpy(q.choices[1], "8.00 GiB (8,589,934,592 bytes)");
    strcpy(q.choices[2], "2.00 GiB (2,147,483,648 bytes)");
    strcpy(q.choices[3], "16.0 MiB (16,777,216 bytes)");
    q.correct = 2;
    int chosen;
    char why[100];
    ck_assert_int_eq(quiz_check(&q, "1073741824", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 0);
    ck_assert_int_eq(quiz_check(&q, "2147483648", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(chosen, 2);
    ck_assert_int_eq(quiz_check(&q, "2,147,483,648", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "2_147_483_648", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "16777216", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 3);
    /* no part of a decimal, a group or a word is a value */
    ck_assert_int_eq(quiz_check(&q, "1", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, -1);
    ck_assert_int_eq(quiz_check(&q, "16", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(quiz_check(&q, "741", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(quiz_check(&q, "2147483649", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, -1);
    ck_assert_str_eq(why, "not one of the choices");

    /* shapes in brackets inside a choice; a number in two choices picks none */
    q.n_choices = 3;
    strcpy(q.choices[0], "(2, 8, 16, 64): a view, 0 bytes copied");
    strcpy(q.choices[1], "[2, 16, 8, 64]: a copy of 4096 bytes");
    strcpy(q.choices[2], "dim=1, fp16, 1/sqrt(d), 4096 bytes");
    q.correct = 1;
    ck_assert_int_eq(quiz_check(&q, "2,16,8,64", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "(2, 8, 16, 64)", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 0);
    ck_assert_int_eq(quiz_check(&q, "0", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 0);
    ck_assert_int_eq(quiz_check(&q, "4096", &chosen, why, sizeof why), -1); /* in two: ask again */
    ck_assert_int_eq(quiz_check(&q, "1", &chosen, why, sizeof why), 0);     /* in none */
    ck_assert_str_eq(why, "not one of the choices");

    /* a generated KV-cache question: its bytes, as printed in the right choice */
    char err[300];
    for (uint64_t seed = 1; seed <= 20; seed++) {
        ck_assert_int_eq(quiz_generate_kind(QG_KVCACHE, seed, &q, err, sizeof err), 0);
        ck_assert_int_eq(q.kind, QK_CHOICE);
        const char *open = strchr(q.choices[q.correct], '(');
        ck_assert_ptr_nonnull(open);
        char digits[40];
        size_t k = 0;
        for (const char *p = open + 1; *p && *p != ' ' && k + 1 < sizeof digits; p++)
            if (*p != ',') digits[k++] = *p;
        digits[k] = 0;
        ck_assert_msg(quiz_check(&q, digits, &chosen, why, sizeof why) == 1,
                      "seed %llu: '%s' for '%s': %s", (unsigned long long)seed, digits,
                      q.choices[q.correct], why);
    }
}
END_TEST

/* #11.4: sizes and torch.Size as people type them; a value that is no
 * choice says so instead of "could not read". */
START_TEST(answers_as_typed)
{
    QuizAnswer a;
    ck_assert_int_eq(quiz_parse_answer("2 GiB", &a), 0);
    ck_assert_int_eq(a.kind, QA_SIZE);
    ck_assert_int_eq(a.number, 2147483648LL);
    ck_assert_int_eq(quiz_parse_answer("2GiB", &a), 0);
    ck_assert_int_eq(a.number, 2147483648LL);
    ck_assert_int_eq(quiz_parse_answer("1.5 mib", &a), 0);
    ck_assert_int_eq(a.number, 1572864);
    ck_assert_int_eq(quiz_parse_answer("torch.Size([2, 12, 4, 32])", &a), 0);
    ck_assert_int_eq(a.kind, QA_TUPLE);
    ck_assert_int_eq(a.n, 4);
    ck_assert(a.v[0] == 2 && a.v[1] == 12 && a.v[2] == 4 && a.v[3] == 32);
    ck_assert_int_eq(quiz_parse_answer("Size([7])", &a), 0);
    ck_assert_int_eq(a.kind, QA_TUPLE);

    QuizQuestion q;
    memset(&q, 0, sizeof q);
    q.kind = QK_CHOICE;
    q.n_choices = 3;
    snprintf(q.choices[0], QUIZ_CHOICE_MAX, "1.41 GiB (1,513,975,808 bytes)");
    snprintf(q.choices[1], QUIZ_CHOICE_MAX, "2.00 GiB (2,147,483,648 bytes)");
    snprintf(q.choices[2], QUIZ_CHOICE_MAX, "288.0 MiB (301,989,888 bytes)");
    q.correct = 1;
    int chosen;
    char why[120];
    ck_assert_int_eq(quiz_check(&q, "2 GiB", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "2GiB", &chosen, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "1.41 GiB", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 0);
    ck_assert_int_eq(quiz_check(&q, "288 MiB", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, 2);
    ck_assert_int_eq(quiz_check(&q, "5 GiB", &chosen, why, sizeof why), 0);
    ck_assert_int_eq(chosen, -1);
    ck_assert_str_eq(why, "not one of the choices");
    ck_assert_int_eq(quiz_check(&q, "(2, 3)", &chosen, why, sizeof why), 0);
    ck_assert_str_eq(why, "not one of the choices");

    /* a shape question takes torch.Size */
    memset(&q, 0, sizeof q);
    q.kind = QK_TUPLE;
    q.n_tuple = 4;
    long long t[4] = {2, 12, 4, 32};
    memcpy(q.tuple, t, sizeof t);
    ck_assert_int_eq(quiz_check(&q, "torch.Size([2, 12, 4, 32])", NULL, why, sizeof why), 1);
    ck_assert_int_eq(quiz_check(&q, "torch.Size([2, 4, 12, 32])", NULL, why, sizeof why), 0);
    /* a number question takes a whole size */
    memset(&q, 0, sizeof q);
    q.kind = QK_NUMBER;
    q.number = 2147483648LL;
    ck_assert_int_eq(quiz_check(&q, "2 GiB", NULL, why, sizeof why), 1);
}
END_TEST

START_TEST(answer_fuzz)
{
    QuizRng r;
    quiz_rng_seed(&r, 12345);
    QuizQuestion q[4];
    char err[300];
    ck_assert_int_eq(quiz_generate_kind(QG_SHAPE, 1, &q[0], err, sizeof err), 0);
    ck_assert_int_eq(quiz_generate_kind(QG_OFFSET, 1, &q[1], err, sizeof err), 0);
    ck_assert_int_eq(quiz_generate_kind(QG_VIEWCOPY, 1, &q[2], err, sizeof err), 0);
    q[3] = q[2];
    q[3].kind = QK_TEXT;
    strcpy(q[3].text, "a | b c|");
    const char alpha[] = "0123456789(),[] _-abcxyz\t";
    char buf[300];
    for (int it = 0; it < 200000; it++) {
        int len = quiz_rng_below(&r, 280);
        int mode = it % 3;
        for (int i = 0; i < len; i++) {
            unsigned c = (unsigned)quiz_rng_below(&r, 256);
            if (mode) c = (unsigned char)alpha[quiz_rng_below(&r, (int)sizeof alpha - 1)];
            buf[i] = (char)(c ? c : 'x');
        }
        buf[len] = 0;
        QuizAnswer a;
        int rc = quiz_parse_answer(buf, &a);
        ck_assert(rc == 0 || rc == -1);
        if (rc == 0) {
            ck_assert(a.kind >= QA_EMPTY && a.kind <= QA_SIZE);
            ck_assert(strlen(a.text) < sizeof a.text);
            if (a.kind == QA_TUPLE) ck_assert(a.n >= 1 && a.n <= QUIZ_MAX_TUPLE);
        }
        int ch = -2;
        int r2 = quiz_check(&q[it % 4], buf, &ch, err, sizeof err);
        ck_assert(r2 >= -1 && r2 <= 1);
        ck_assert(ch >= -1 && ch < QUIZ_MAX_CHOICES);
    }
}
END_TEST

/* ---- history ---- */

static char tmpdir[256];

static void hist_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mhaviz-quiz-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    setenv("XDG_STATE_HOME", tmpdir, 1);
}

static void hist_teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(history_roundtrip_and_review)
{
    QuizHistory h;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.n, 0);
    QuizQuestion a, b, c;
    ck_assert_int_eq(quiz_generate(QT_SHAPES, 11, &a, err, sizeof err), 0);
    ck_assert_int_eq(quiz_generate(QT_BUGS, 12, &b, err, sizeof err), 0);
    ck_assert_int_eq(quiz_generate(QT_GQA, 13, &c, err, sizeof err), 0);
    quiz_history_record(&h, &a, 0);
    quiz_history_record(&h, &b, 0);
    quiz_history_record(&h, &b, 0);
    quiz_history_record(&h, &b, 0);
    quiz_history_record(&h, &c, 1);
    quiz_history_record(&h, &a, 0);
    quiz_history_record(&h, &b, 1); /* b: 3 misses, one right -> 2 */
    ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
    quiz_history_free(&h);

    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_BUGS], 4);
    ck_assert_int_eq(h.total.right[QT_BUGS], 1);
    ck_assert_int_eq(h.total.asked[QT_GQA], 1);
    ck_assert_int_eq(h.total.right[QT_GQA], 1);
    char ids[5][64];
    int n = quiz_history_review(&h, ids, 5);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(ids[0], a.id); /* 2 misses, first missed */
    ck_assert_str_eq(ids[1], b.id);
    QuizQuestion again;
    ck_assert_int_eq(quiz_from_id(NULL, ids[1], &again), 0);
    ck_assert_str_eq(again.prompt, b.prompt);
    ck_assert_int_eq(again.topic, QT_BUGS);

    char sum[2000];
    QuizScore s;
    memset(&s, 0, sizeof s);
    quiz_score_add(&s, QT_SHAPES, 1);
    quiz_score_add(&s, QT_SHAPES, 1);
    quiz_score_add(&s, QT_VIEWS, 0);
    quiz_report(&s, &h.total, sum, sizeof sum);
    ck_assert_msg(strstr(sum, "Score: 2/3 (67%)"), "%s", sum);
    /* views below 100% now, bugs over all sessions: each with the lesson to reread */
    ck_assert_msg(strstr(sum, "To revisit:\n"), "%s", sum);
    ck_assert_msg(strstr(sum, "  views") && strstr(sum, "  bugs "), "%s", sum);
    ck_assert_msg(strstr(sum, "reread mhaviz lesson 3"), "%s", sum);

    /* skips are reported apart: not answers, not wrong ones */
    QuizScore k;
    memset(&k, 0, sizeof k);
    for (int i = 0; i < 8; i++)
        quiz_score_add(&k, QT_OFFSETS, i < 3);
    quiz_score_skip(&k, QT_OFFSETS);
    quiz_score_skip(&k, QT_GQA);
    ck_assert_int_eq(k.asked[QT_OFFSETS], 8);
    ck_assert_int_eq(k.asked[QT_GQA], 0);
    quiz_report(&k, NULL, sum, sizeof sum);
    ck_assert_msg(strstr(sum, "Score: 3/8 (38%), 2 skipped\n"), "%s", sum);
    ck_assert_msg(strstr(sum, "  offsets   3/8, 1 skipped\n"), "%s", sum);
    ck_assert_msg(strstr(sum, "  gqa       0/0, 1 skipped\n"), "%s", sum);
    /* a topic only skipped is not weak: named apart, never under To revisit */
    ck_assert_msg(strstr(sum, "  offsets    38%  reread"), "%s", sum);
    ck_assert_msg(strstr(sum, "Skipped, not scored: gqa  ("), "%s", sum);
    memset(&k, 0, sizeof k);
    quiz_score_skip(&k, QT_SHAPES);
    quiz_report(&k, NULL, sum, sizeof sum);
    ck_assert_msg(strstr(sum, "No questions answered, 1 skipped.\n"), "%s", sum);
    ck_assert_msg(!strstr(sum, "revisit"), "%s", sum);
    ck_assert_msg(strstr(sum, "Skipped, not scored: shapes"), "%s", sum);
    /* right answers plus a skip, and no history against it: not weak */
    memset(&k, 0, sizeof k);
    quiz_score_add(&k, QT_SHAPES, 1);
    quiz_score_skip(&k, QT_SHAPES);
    quiz_report(&k, NULL, sum, sizeof sum);
    ck_assert_msg(!strstr(sum, "To revisit"), "%s", sum);
    ck_assert_msg(strstr(sum, "Skipped, not scored: shapes"), "%s", sum);

    /* a skip is kept for --review but not in the lifetime score */
    int asked_before = h.total.asked[QT_VIEWS];
    QuizQuestion v;
    ck_assert_int_eq(quiz_generate(QT_VIEWS, 14, &v, err, sizeof err), 0);
    quiz_history_skip(&h, &v);
    ck_assert_int_eq(h.total.asked[QT_VIEWS], asked_before);
    ck_assert_int_eq(quiz_history_review(&h, ids, 5), 3);
    ck_assert_str_eq(ids[2], v.id);
    quiz_history_free(&h);

    /* a damaged file: unreadable lines are skipped, never a crash */
    char path[400];
    snprintf(path, sizeof path, "%s/mhaviz/quiz-history", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("topic shapes 3 9\ntopic nope 1 1\nmiss -4 x\nmiss 2\ngarbage\nmiss 3 "
          "g:views:00000000000000aa\n",
          f);
    fclose(f);
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_SHAPES], 0); /* right > asked: refused */
    ck_assert_int_eq(h.n, 1);
    quiz_history_free(&h);
}
END_TEST

/* W_Q.T asks about a weight as a learner has it: row-major (D, 1) strides,
 * never the stride-0 stand-in the generator multiplies with. */
START_TEST(weight_transpose_shows_real_strides)
{
    QuizQuestion q;
    char err[300], want[64];
    int found = 0;
    for (uint64_t seed = 1; seed < 2000 && found < 3; seed++) {
        ck_assert_int_eq(quiz_generate_kind(QG_VIEWCOPY, seed, &q, err, sizeof err), 0);
        if (q.aux != QUIZ_OP_DOT_T) continue;
        found++;
        int d = q.cfg.d_model;
        snprintf(want, sizeof want, "W_Q is (%d, %d) with strides (%d, 1).", d, d, d);
        ck_assert_msg(strstr(q.prompt, want), "%s", q.prompt);
        snprintf(want, sizeof want, "strides (1, %d), same storage", d);
        ck_assert_msg(strstr(q.working, want), "%s", q.working);
    }
    ck_assert_int_eq(found, 3);
}
END_TEST

/* The working shows what each line itself copied: a view, transpose or
 * expand line never reports bytes, even when building its input copied. */
START_TEST(working_views_copy_nothing)
{
    QuizQuestion q;
    char err[300];
    int views = 0;
    for (int kind = 0; kind < QG_COUNT; kind++)
        for (uint64_t seed = 1; seed <= 200; seed++) {
            ck_assert_int_eq(quiz_generate_kind(kind, seed, &q, err, sizeof err), 0);
            for (const char *l = q.working; (l = strstr(l, "\n")) != NULL; l++) {
                const char *end = strchr(l + 1, '\n');
                size_t len = end ? (size_t)(end - l - 1) : strlen(l + 1);
                char line[512];
                snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), l + 1);
                const char *arrow = strstr(line, "->");
                if (!arrow) continue;
                int is_view = (strstr(line, ".transpose(") || strstr(line, ".view(") ||
                               strstr(line, ".expand(")) &&
                              !strstr(line, "contiguous") && !strstr(line, "repeat");
                if (strncmp(line, "    scores", 10) == 0 || strstr(line, " @ ")) is_view = 0;
                if (!is_view) continue;
                views++;
                ck_assert_msg(!strstr(arrow, "copy:"),
                              "kind %d seed %llu: a view line reports a copy: %s", kind,
                              (unsigned long long)seed, line);
            }
        }
    ck_assert_int_gt(views, 100);
}
END_TEST

/* The rescale's explanation gives both numbers: the old terms are too big
 * by exp(m_new - m_old) and are multiplied by its inverse alpha (it said
 * "rescaled by it", the too-big factor). */
START_TEST(flash_rescale_says_alpha)
{
    QuizQuestion q;
    char err[300];
    for (uint64_t seed = 1; seed < 20; seed++) {
        ck_assert_int_eq(quiz_generate_kind(QG_FLASH_RESCALE, seed, &q, err, sizeof err), 0);
        const char *big = strstr(q.explain, "too big by exp("),
                   *al = strstr(q.explain, "alpha = exp(m_old - m_new) = ");
        ck_assert_msg(big && al, "%s", q.explain);
        double x = strtod(strstr(big, ") = ") + 4, NULL), a = strtod(al + 30, NULL);
        ck_assert_msg(fabs(x * a - 1) < 2e-3, "%g x %g: %s", x, a, q.explain);
    }
}
END_TEST

/* A listing that does not run is refused every time it is asked: qb_play
 * kept its Play after a failure, so a second call said 0 over tensors it
 * never made. */
START_TEST(a_failed_listing_stays_failed)
{
    QBuild b;
    MhaConfig c = mha_config_default();
    ck_assert_int_eq(qb_run(&b, &c), 0);
    ck_assert_int_eq(qb_need(&b, MT_SCORES), 0);
    ck_assert_int_gt(b.n, 1);
    snprintf(b.line[b.n - 1], sizeof b.line[0], "scores = nope(Q_heads)");
    ck_assert_int_eq(qb_play(&b), -1);
    ck_assert_msg(strstr(b.err, "does not run") != NULL, "%s", b.err);
    ck_assert_int_eq(qb_play(&b), -1);
    qb_free(&b);
}
END_TEST

static Suite *quiz_suite(void)
{
    Suite *s = suite_create("quiz");
    TCase *g = tcase_create("generated");
    tcase_set_timeout(g, 600);
    tcase_add_loop_test(g, generated_match_engine, 0, QG_COUNT);
    tcase_add_loop_test(g, every_bug_kind_differs, 1, QUIZ_BUG_COUNT);
    tcase_add_test(g, keys_are_uniform);
    tcase_add_test(g, generated_topics_and_sessions);
    tcase_add_test(g, weight_transpose_shows_real_strides);
    tcase_add_test(g, working_views_copy_nothing);
    tcase_add_test(g, a_failed_listing_stays_failed);
    tcase_add_test(g, flash_rescale_says_alpha);
    suite_add_tcase(s, g);
    TCase *b = tcase_create("bank");
    tcase_add_test(b, curated_bank_valid);
    tcase_add_test(b, bad_bank_corpus);
    tcase_add_test(b, bank_good_and_short_answers);
    suite_add_tcase(s, b);
    TCase *a = tcase_create("answers");
    tcase_set_timeout(a, 120);
    tcase_add_test(a, answers_as_typed);
    tcase_add_test(a, answer_spellings);
    tcase_add_test(a, check_choice_spellings);
    tcase_add_test(a, check_choice_values_in_text);
    tcase_add_test(a, answer_fuzz);
    suite_add_tcase(s, a);
    TCase *h = tcase_create("history");
    tcase_add_checked_fixture(h, hist_setup, hist_teardown);
    tcase_add_test(h, history_roundtrip_and_review);
    suite_add_tcase(s, h);
    return s;
}

CHECK_MAIN(quiz_suite)
