/* quiz_gen_rope.c - RoPE (src/README.md, The pipeline, step "rope"): which
 * float a float is rotated with in each layout, the angle it turns by, what
 * the rotation touches and what the KV cache holds, and that q.k after the
 * rotation depends only on the distance between the positions.  Every answer
 * is read off the engine: rope_apply on a one-hot row finds the partner, a
 * run with --rope and a decode over it say what is rotated and cached,
 * rope_rotate turns the vectors whose dot products are asked.  The
 * distractors are the real mistakes: the partner one float away in the HF
 * (half) layout, the float index for the pair index, rotating V, caching K
 * before the rotation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"
#include "engine/decode.h"
#include "engine/rope.h"

static const char *layout_who(RopeLayout l)
{
    return l == ROPE_HALF ? "half: GPT-NeoX, HF's rotate_half" : "interleaved: Meta's llama, GPT-J";
}

/* The float rope_apply moves float j's value into at position 1 (pair i
 * turns by 1 * inv_freq[i] != 0): its partner, found by the engine.  -1 on
 * failure. */
static int engine_partner(RopeLayout l, int j, int dh, char *err, size_t errlen)
{
    int sh[2] = {2, dh}, at[2] = {1, j};
    Engine *eng = engine_new(NULL); /* the question's own; x and y hold it */
    Tensor *x = eng ? tensor_zeros(eng, 2, sh) : NULL;
    engine_release(eng);
    if (!x) return snprintf(err, errlen, "out of memory"), -1;
    tensor_set(x, at, 1.0f);
    Tensor *y = rope_apply(x, l, ROPE_THETA_DEFAULT, err, errlen);
    int p = -1;
    for (int i = 0; y && i < dh; i++) {
        int idx[2] = {1, i};
        if (i != j && tensor_get(y, idx) != 0.0f) p = i;
    }
    if (y && p < 0) snprintf(err, errlen, "rope: float %d moved nowhere", j);
    tensor_free(y);
    tensor_free(x);
    return p;
}

static RopeLayout draw_layout(QuizRng *r)
{
    return quiz_rng_below(r, 2) ? ROPE_HALF : ROPE_INTERLEAVED;
}

int quiz_gen_rope_partner(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = qcfg_real(&g->r, 0, 1e9);
    int dh = c.d_model / c.heads; /* 16 .. 128 */
    c.rope = draw_layout(&g->r), c.rope_theta = ROPE_THETA_DEFAULT;
    int j = quiz_rng_below(&g->r, dh);
    int want = engine_partner(c.rope, j, dh, g->err, g->errlen);
    if (want < 0) return -1;
    RopeLayout other = c.rope == ROPE_HALF ? ROPE_INTERLEAVED : ROPE_HALF;
    q->topic = QT_ROPE, q->cfg = c, q->tensor = MT_Q_ROPE, q->idx[0] = j, q->number = want;
    qt_cat(q->prompt, sizeof q->prompt,
           "RoPE with the %s layout (%s), d_head %d:\n"
           "each head's vector is dh = %d contiguous floats, rotated in pairs.\n"
           "Float %d of a head is rotated together with which float (its index 0..%d)?",
           rope_layout_name(c.rope), layout_who(c.rope), dh, dh, j, dh - 1);
    /* the other layout's partner always (in half: the neighbour, one float away),
     * then two of the other slips, drawn */
    char ans[QUIZ_CHOICE_MAX], cand[3][QUIZ_CHOICE_MAX];
    int dv[6] = {rope_partner(other, j, dh), j + 1 < dh ? j + 1 : j - 1,
                 j > 0 ? j - 1 : j + 2,      dh - 1 - j,
                 (j + dh / 4) % dh,          j ^ 2};
    int nd = 0;
    for (int i = 0; i < 6; i++) { /* distinct, in range, neither j nor the answer */
        int dup = dv[i] == want || dv[i] == j || dv[i] < 0 || dv[i] >= dh;
        for (int k = 0; k < nd; k++)
            dup |= dv[k] == dv[i];
        if (!dup) dv[nd++] = dv[i];
    }
    for (int i = nd - 1; i > 1; i--) { /* shuffle dv[1..nd) */
        int k = 1 + quiz_rng_below(&g->r, i), t = dv[i];
        dv[i] = dv[k], dv[k] = t;
    }
    int nc = nd < 3 ? nd : 3;
    snprintf(ans, sizeof ans, "%d", want);
    for (int i = 0; i < nc; i++)
        snprintf(cand[i], QUIZ_CHOICE_MAX, "%d", dv[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    snprintf(q->explain, sizeof q->explain,
             "In half (HF's rotate_half) pair i is (x[i], x[i + dh/2]): a float's partner sits "
             "dh/2 floats away, in the other half of the head.  In interleaved (Meta's llama, "
             "view_as_complex) pair i is (x[2i], x[2i+1]): the partner is the next float (or the "
             "previous one).  Taking the neighbour in the HF layout, or dh/2 away in Meta's, "
             "rotates the wrong floats together: the numbers stay finite and silently wrong.  "
             "This is why HF's conversion permutes W_Q and W_K's rows.");
    qt_cat(q->working, sizeof q->working,
           "The engine rotated a one-hot head row (1 at float %d, 0 elsewhere) at position 1:\n"
           "  the only other float it moved into is float %d (%+d float%s away), pair %d,\n"
           "  turned by 1 x inv_freq[%d] = %.6g rad.\n",
           j, want, want - j, text_s(want > j ? want - j : j - want), rope_pair_of(c.rope, j, dh),
           rope_pair_of(c.rope, j, dh),
           (double)rope_inv_freq(rope_pair_of(c.rope, j, dh), dh, c.rope_theta));
    return 0;
}

/* The choices of QG_ROPE_WHICH; 0 is what the engine does. */
static const char *const which_texts[4] = {
    "Q and K are rotated; the cache holds K after the rotation, V as projected",
    "Q, K and V are rotated; the cache holds the rotated K and V",
    "Q and K are rotated; the cache holds K before the rotation, rotated at each step",
    "only Q is rotated; K and V are cached as projected",
};

/* The largest |a - b| over the first n tokens of the cache (B, KV, T, dh)
 * against a (B, KV, S, dh) tensor of the run. */
static float cache_diff(const Decode *d, const Tensor *t, int n)
{
    const MhaConfig *c = &d->m->cfg;
    float worst = 0;
    for (int b = 0; b < c->batch; b++)
        for (int h = 0; h < c->kv_heads; h++)
            for (int s = 0; s < n; s++)
                for (int i = 0; i < d->m->d_head; i++) {
                    int idx[4] = {b, h, s, i};
                    float v = d->cache_k->st->data[decode_cache_offset(d, b, h, s, i)];
                    float e = fabsf(v - tensor_get(t, idx));
                    if (e > worst) worst = e;
                }
    return worst;
}

int quiz_gen_rope_which(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = qcfg_toy(&g->r, 0);
    if ((c.d_model / c.heads) % 2) c.heads = c.kv_heads = 1; /* every toy D is even */
    c.seq = 3 + quiz_rng_below(&g->r, 4), c.causal = 1;
    c.rope = draw_layout(&g->r), c.rope_theta = ROPE_THETA_DEFAULT;
    Mha *m = mha_run(&c, g->err, g->errlen);
    if (!m) return -1;
    Decode *d = decode_new(m, DECODE_HF, decode_prompt_default(c.seq), g->err, g->errlen);
    int ok = d && !decode_prefill(d, g->err, g->errlen);
    while (ok && d->len < c.seq)
        ok = decode_step(d, g->err, g->errlen) == 0;
    if (!ok) {
        decode_free(d);
        mha_free(m);
        return -1;
    }
    /* what the engine did: the tensors the rope step made, what attn @ V read,
     * and which K the cache holds */
    const MhaStep *rs = &m->steps[MS_ROPE], *ws = &m->steps[MS_WEIGHTED];
    int v_rotated = ws->inputs[1] != MT_V_HEADS;
    for (int i = 0; i < rs->n_inputs; i++)
        v_rotated |= rs->inputs[i] == MT_V_HEADS;
    float d_rot = cache_diff(d, m->t[MT_K_ROPE], c.seq);
    float d_raw = cache_diff(d, m->t[MT_K_HEADS], c.seq);
    int key = v_rotated ? 1 : d_rot < 1e-6f && d_raw > 1e-4f ? 0 : d_raw < 1e-6f ? 2 : -1;
    if (key < 0 || !m->t[MT_Q_ROPE]) {
        snprintf(g->err, g->errlen, "rope: the engine's cache is neither K nor K rotated");
        decode_free(d);
        mha_free(m);
        return -1;
    }
    int dh = m->d_head;
    q->topic = QT_ROPE, q->cfg = c, q->tensor = MT_K_ROPE;
    qt_config_line(&c, q->prompt, sizeof q->prompt);
    qt_cat(q->prompt, sizeof q->prompt,
           "The model uses RoPE (--rope %s) and generates with a KV cache\n"
           "(prefill of %d token%s, then one token at a time).\n"
           "What does RoPE rotate, and what does the cache hold?",
           rope_layout_name(c.rope), d->prompt, text_s(d->prompt));
    qc_fixed(q, &g->r, which_texts, 4, key);
    snprintf(q->explain, sizeof q->explain,
             "RoPE encodes position in the scores q.k only: Q and K are rotated by their token's "
             "position, V never is (the weighted sum mixes values, it has no position to "
             "compare).  At decode time k is rotated by its absolute position right before it "
             "is written, so the cache holds the rotated K: each cached key was rotated once and "
             "never changes (Meta's apply_rotary_emb then cache_k; HF's LlamaAttention then "
             "cache.update).  Caching K unrotated would mean rotating the whole cache at every "
             "step.");
    char a[48], b[48];
    qt_cat(q->working, sizeof q->working,
           "The engine's rope step (%s) made Q_rope %s and K_rope %s:\n"
           "  %zu bytes written as new buffers; V_heads %s is left as projected\n"
           "  (attn @ V reads %s).\n"
           "After the decode (%d token%s, d_head %d) the cache's K differs from K_rope by %.3g\n"
           "and from the unrotated K_heads by %.3g.\n",
           rs->code, tensor_fmt_dims(a, sizeof a, 4, m->t[MT_Q_ROPE]->shape),
           tensor_fmt_dims(b, sizeof b, 4, m->t[MT_K_ROPE]->shape), rs->bytes_copied,
           tensor_fmt_dims(a, sizeof a, 4, m->t[MT_V_HEADS]->shape),
           mha_tensor_names[ws->inputs[1]], c.seq, text_s(c.seq), dh, (double)d_rot, (double)d_raw);
    decode_free(d);
    mha_free(m);
    return 0;
}

/* "%.4g rad" of an angle. */
static void angle_text(char *buf, size_t n, double a)
{
    snprintf(buf, n, "%.4g rad", a);
}

int quiz_gen_rope_angle(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int dhs[] = {16, 32, 64, 128};
    static const double thetas[] = {10000, 500000};
    MhaConfig c = mha_config_default();
    int dh = qc_pick(&g->r, dhs, 4);
    c.rope = draw_layout(&g->r), c.rope_theta = thetas[quiz_rng_below(&g->r, 2)];
    c.heads = c.kv_heads = 2, c.d_model = 2 * dh, c.seq = 2;
    int p = 1 + quiz_rng_below(&g->r, 300), j, i;
    do /* pair 0 turns by p whatever the formula: not a question */
        j = quiz_rng_below(&g->r, dh), i = rope_pair_of(c.rope, j, dh);
    while (i == 0);
    /* inv_freq as the prompt shows it, run by the interpreter from its
     * text; the engine's rotation tables must agree with it */
    char line[1][QB_LINE];
    snprintf(line[0], QB_LINE, "inv_freq = 1.0 / %.0f ** (torch.arange(0, %d, 2).float() / %d)",
             c.rope_theta, dh, dh);
    Play *pl = play_new(NULL);
    if (!pl) return snprintf(g->err, g->errlen, "out of memory"), -1;
    Tensor *inv =
        qr_listing(pl, line, 1, NULL, q->working, sizeof q->working, g->err, g->errlen) < 0
            ? NULL
            : qr_tensor(pl, "inv_freq", g->err, g->errlen);
    play_free(pl);
    if (!inv) return -1;
    int at[1] = {i};
    float inv_i = inv->ndim == 1 && inv->shape[0] == dh / 2 ? tensor_get(inv, at) : NAN;
    tensor_free(inv);
    if (inv_i != rope_inv_freq(i, dh, c.rope_theta))
        return snprintf(g->err, g->errlen, "rope: inv_freq[%d] is %.9g run, %.9g in the engine", i,
                        (double)inv_i, (double)rope_inv_freq(i, dh, c.rope_theta)),
               -1;
    /* the angle from the run's inv_freq, and the engine's rotation of (1, 0) at position p */
    double want = (double)((float)p * inv_i);
    float v[128] = {0};
    int a = c.rope == ROPE_HALF ? i : 2 * i, b = rope_partner(c.rope, a, dh);
    v[a] = 1;
    rope_rotate(v, dh, p, c.rope, c.rope_theta);
    q->topic = QT_ROPE, q->cfg = c, q->tensor = MT_Q_ROPE, q->idx[0] = j, q->idx[1] = p;
    qt_cat(q->prompt, sizeof q->prompt,
           "RoPE with the %s layout, d_head %d, theta %.0f, inv_freq as HF computes it:\n"
           "    %s\n"
           "By what angle is float %d of the head vector of the token at position %d\n"
           "rotated (positions count from 0)?",
           rope_layout_name(c.rope), dh, c.rope_theta, line[0], j, p);
    double th = c.rope_theta, D = dh;
    const double dv[5] = {
        p * pow(th, -2.0 * j / D),       /* the float index for the pair index */
        p * pow(th, -1.0 * i / D),       /* the 2 of 2i/dh forgotten */
        (p + 1) * pow(th, -2.0 * i / D), /* positions from 1 */
        p * pow(th, 2.0 * i / D),        /* theta^(+2i/dh) */
        p * pow(th, -2.0 * (i + 1) / D), /* the next pair */
    };
    char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
    angle_text(ans, sizeof ans, want);
    for (int k = 0; k < 5; k++)
        angle_text(cand[k], QUIZ_CHOICE_MAX, dv[k]);
    qc_make(q, &g->r, ans, cand, 5, 3);
    snprintf(q->explain, sizeof q->explain,
             "Float j belongs to pair i (i = j mod dh/2 in half, i = j // 2 in interleaved), and "
             "pair i turns by p x inv_freq[i] = p x theta^(-2i/dh): the first pairs spin fast, "
             "the last ones barely move, so the low pairs tell near tokens apart and the high "
             "pairs far ones.  Both floats of a pair turn by the same angle.");
    qt_cat(q->working, sizeof q->working,
           "float %d is in pair %d; inv_freq[%d] = %.9g (float32, as that line computed it);\n"
           "angle = %d x %.9g = %.9g rad.\n"
           "The engine turned (1, 0) in floats (%d, %d) at position %d: (%.6f, %.6f),\n"
           "cos and sin of that angle.\n",
           j, i, i, (double)inv_i, p, (double)inv_i, want, a, b, p, (double)v[a], (double)v[b]);
    return 0;
}

/* q.k in double after rotating copies of q (at position pq) and k (at pk). */
static double rope_dot(const float *q, const float *k, int dh, int pq, int pk, RopeLayout l,
                       double theta)
{
    float a[128], b[128];
    memcpy(a, q, (size_t)dh * sizeof *a);
    memcpy(b, k, (size_t)dh * sizeof *b);
    if (l != ROPE_OFF) {
        rope_rotate(a, dh, pq, l, theta);
        rope_rotate(b, dh, pk, l, theta);
    }
    double s = 0;
    for (int i = 0; i < dh; i++)
        s += (double)a[i] * b[i];
    return s;
}

int quiz_gen_rope_dot(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int dhs[] = {4, 8};
    MhaConfig c = mha_config_default();
    int dh = qc_pick(&g->r, dhs, 2);
    c.heads = c.kv_heads = 2, c.d_model = 2 * dh, c.seq = 2;
    c.rope = draw_layout(&g->r), c.rope_theta = ROPE_THETA_DEFAULT;
    char want[QUIZ_CHOICE_MAX], first[QUIZ_CHOICE_MAX], cand[4][QUIZ_CHOICE_MAX];
    for (int tries = 0; tries < 50; tries++) {
        c.seed = (uint32_t)(quiz_rng_next(&g->r) % 1000) + 1;
        Mha *m = mha_run(&c, g->err, g->errlen); /* q and k: row 0 of head 0, as projected */
        if (!m) return -1;
        float qv[8], kv[8];
        for (int i = 0; i < dh; i++) {
            int idx[4] = {0, 0, 0, i};
            qv[i] = tensor_get(m->t[MT_Q_HEADS], idx), kv[i] = tensor_get(m->t[MT_K_HEADS], idx);
        }
        mha_free(m);
        int d = 1 + quiz_rng_below(&g->r, 4), pk = quiz_rng_below(&g->r, 4);
        int pk2 = pk + 2 + quiz_rng_below(&g->r, 6), pq = pk + d, pq2 = pk2 + d;
        double x1 = rope_dot(qv, kv, dh, pq, pk, c.rope, c.rope_theta);
        double x2 = rope_dot(qv, kv, dh, pq2, pk2, c.rope, c.rope_theta);
        snprintf(first, sizeof first, "%.3f", x1);
        snprintf(want, sizeof want, "%.3f", x2);
        if (strcmp(first, want)) continue; /* the same to 3 decimals (float32 aside) */
        const double dv[4] = {
            rope_dot(qv, kv, dh, 0, 0, ROPE_OFF, 0),                 /* RoPE forgotten */
            rope_dot(qv, kv, dh, pq2, pk, c.rope, c.rope_theta),     /* k left where it was */
            rope_dot(qv, kv, dh, pk2, pq2, c.rope, c.rope_theta),    /* the distance reversed */
            rope_dot(qv, kv, dh, pq2, 2 * pk2, c.rope, c.rope_theta) /* a distance doubled */
        };
        int nc = 0;
        for (int k = 0; k < 4; k++) {
            snprintf(cand[nc], QUIZ_CHOICE_MAX, "%.3f", dv[k]);
            nc += strcmp(cand[nc], want) != 0;
        }
        if (nc < 3) continue;
        q->topic = QT_ROPE, q->cfg = c, q->tensor = MT_Q_ROPE;
        q->idx[0] = pq, q->idx[1] = pk, q->idx[2] = pq2, q->idx[3] = pk2;
        qt_cat(q->prompt, sizeof q->prompt,
               "RoPE (%s layout, theta 10000, d_head %d).  One query vector q and one key\n"
               "vector k, as projected.  With q at position %d and k at position %d, the\n"
               "rotated q . k is %s.  What is the rotated q . k with q at position %d and k\n"
               "at position %d?",
               rope_layout_name(c.rope), dh, pq, pk, first, pq2, pk2);
        qc_make(q, &g->r, want, cand, nc, 3);
        snprintf(q->explain, sizeof q->explain,
                 "Rotating q by angle m w and k by n w rotates each pair of the product by "
                 "(m - n) w: R(m)q . R(n)k = q . R(n - m)k.  So the rotated score depends only "
                 "on the distance m - n (here %d both times), not on where the two tokens sit: "
                 "RoPE is a relative position encoding written as an absolute rotation.  The "
                 "order matters (m - n = -%d is another rotation), and so does the distance.",
                 d, d);
        qt_cat(q->working, sizeof q->working, "q =");
        for (int i = 0; i < dh; i++)
            qt_cat(q->working, sizeof q->working, " %.4f", (double)qv[i]);
        qt_cat(q->working, sizeof q->working, "\nk =");
        for (int i = 0; i < dh; i++)
            qt_cat(q->working, sizeof q->working, " %.4f", (double)kv[i]);
        qt_cat(q->working, sizeof q->working,
               "\nThe engine rotated them (rope_rotate): positions (%d, %d): %.6f; (%d, %d): "
               "%.6f;\nunrotated %.6f; (%d, %d): %.6f.\n",
               pq, pk, x1, pq2, pk2, x2, dv[0], pq2, pk, dv[1]);
        return 0;
    }
    snprintf(g->err, g->errlen, "rope: no positions gave distinct dot products");
    return -1;
}
