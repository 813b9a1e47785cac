/* quiz_gen_flash.c - FlashAttention-2's tile loop (engine/flash.h): the
 * running m and l of a row after a K/V tile, O after a tile that raised m
 * (the rescale), which tiles causal skips and how many are visited, and the
 * HBM bytes of the naive kernel against flash at real sizes.  Every answer
 * is read off a Flash over an engine run (its tm, tl, tO after the tile, its
 * visited tiles) or off flash_bytes; the distractors are the real mistakes:
 * forgetting to rescale O (or l) when m grows, the tile's own max or sum for
 * the running one, counting a partly masked tile as skipped, K and V read
 * once, the scores alone. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "content/kv.h"
#include "content/quiz_gen.h"
#include "engine/flash.h"

#define FT_MAX 16 /* tiles of a row of tiles; rows of a tile; floats of a head */

/* The states of q tile `qtile` of (batch 0, head 0) after each of its K/V
 * tiles, as the Flash left them. */
typedef struct Row {
    int n; /* K/V tiles visited */
    int r0, r1, c0[FT_MAX], c1[FT_MAX];
    float s[FT_MAX][FT_MAX]; /* [row - r0][key]: the scaled scores the tiles computed */
    float m[FT_MAX][FT_MAX]; /* [ktile][row - r0] */
    float l[FT_MAX][FT_MAX];
    float O[FT_MAX][FT_MAX][FT_MAX]; /* [ktile][row - r0][i] */
} Row;

/* Runs the loop to the end, keeping q tile qtile's states (visited[i][j]:
 * tile (i, j) of head (0, 0) ran).  0, or -1 with err set. */
static int run_tiles(const Mha *m, int bq, int bk, int qtile, Row *row, int visited[FT_MAX][FT_MAX],
                     long *per_head, char *err, size_t errlen)
{
    Flash *f = flash_new(m, bq, bk, err, errlen);
    if (!f) return -1;
    if (f->n_qtiles > FT_MAX || f->n_ktiles > FT_MAX || m->d_head > FT_MAX) {
        flash_free(f);
        return snprintf(err, errlen, "flash: too many tiles for a question"), -1;
    }
    memset(row, 0, sizeof *row);
    if (visited) memset(visited, 0, sizeof(int[FT_MAX][FT_MAX]));
    while (flash_step(f)) {
        if (f->b || f->h) continue;
        if (visited) visited[f->qtile][f->ktile] = 1;
        if (f->qtile != qtile) continue;
        int j = f->ktile, nr = f->r1 - f->r0, nc = f->c1 - f->c0;
        row->n = j + 1, row->r0 = f->r0, row->r1 = f->r1, row->c0[j] = f->c0, row->c1[j] = f->c1;
        for (int r = 0; r < nr; r++) {
            for (int c = 0; c < nc; c++)
                row->s[r][f->c0 + c] = f->s[(size_t)r * nc + c];
            row->m[j][r] = f->tm[r], row->l[j][r] = f->tl[r];
            for (int i = 0; i < m->d_head; i++)
                row->O[j][r][i] = f->tO[(size_t)r * m->d_head + i];
        }
    }
    if (per_head) *per_head = f->visited / ((long)m->cfg.batch * m->cfg.heads);
    flash_free(f);
    return 0;
}

/* A toy run for tiles: one batch, one or two heads, S tokens, d_head dh. */
static MhaConfig toy(QuizRng *r, int S, int dh, int causal)
{
    MhaConfig c = mha_config_default();
    c.seq = S, c.heads = c.kv_heads = 1 + quiz_rng_below(r, 2), c.d_model = c.heads * dh;
    c.causal = causal;
    c.seed = (uint32_t)(quiz_rng_next(r) % 1000) + 1;
    return c;
}

static void scores_line(char *buf, size_t n, const Row *w, int r, int c0, int c1)
{
    for (int c = c0; c < c1; c++)
        qt_cat(buf, n, " %.4f", (double)w->s[r - w->r0][c]);
}

static float spread(const Row *w, int r, int S)
{
    float lo = w->s[r - w->r0][0], hi = lo;
    for (int k = 1; k < S; k++)
        lo = fminf(lo, w->s[r - w->r0][k]), hi = fmaxf(hi, w->s[r - w->r0][k]);
    return hi - lo;
}

int quiz_gen_flash_ml(Gen *g)
{
    QuizQuestion *q = g->q;
    int S = 5 + quiz_rng_below(&g->r, 4), bq = 2 + quiz_rng_below(&g->r, 2);
    int bk = 2 + quiz_rng_below(&g->r, 2), ask_l = quiz_rng_below(&g->r, 2);
    MhaConfig c = toy(&g->r, S, 2 + 2 * quiz_rng_below(&g->r, 2), 0);
    Mha *m = mha_run(&c, g->err, g->errlen);
    if (!m) return -1;
    int nq = flash_tiles_of(S, bq), nk = flash_tiles_of(S, bk), qt = quiz_rng_below(&g->r, nq);
    Row w;
    int rc = run_tiles(m, bq, bk, qt, &w, NULL, NULL, g->err, g->errlen);
    mha_free(m);
    if (rc) return -1;
    int j = 1 + quiz_rng_below(&g->r, nk - 1), r = w.r0;
    for (int k = w.r0; k < w.r1; k++) /* the row whose scores spread most: exp far from 1 */
        if (spread(&w, k, S) > spread(&w, r, S)) r = k;
    int rr = r - w.r0, seen = w.c1[j];
    double mj = w.m[j][rr], lj = w.l[j][rr];
    /* the mistakes' numbers, from the same scores */
    double tile_max = -INFINITY, row_max = -INFINITY, seen_min = INFINITY;
    for (int k = w.c0[j]; k < w.c1[j]; k++)
        tile_max = fmax(tile_max, w.s[rr][k]);
    for (int k = 0; k < S; k++)
        row_max = fmax(row_max, w.s[rr][k]);
    for (int k = 0; k < seen; k++)
        seen_min = fmin(seen_min, w.s[rr][k]);
    double l_tile = 0, l_norescale = w.l[j - 1][rr], l_raw = 0, l_row = 0;
    for (int k = w.c0[j]; k < w.c1[j]; k++)
        l_tile += tensor_exp(w.s[rr][k] - tile_max), l_norescale += tensor_exp(w.s[rr][k] - mj);
    for (int k = 0; k < seen; k++)
        l_raw += tensor_exp(w.s[rr][k]);
    for (int k = 0; k < S; k++)
        l_row += tensor_exp(w.s[rr][k] - row_max);
    q->topic = QT_FLASH, q->cfg = c, q->aux = ask_l;
    q->idx[0] = bq, q->idx[1] = bk, q->idx[2] = r, q->idx[3] = j;
    qt_cat(q->prompt, sizeof q->prompt,
           "FlashAttention-2, S = %d, d_head %d, no mask, block_q %d, block_k %d.\n"
           "Query row %d (in q tile %d) has these scaled scores s over the keys 0..%d:\n   ",
           S, c.d_model / c.heads, bq, bk, r, qt, S - 1);
    scores_line(q->prompt, sizeof q->prompt, &w, r, 0, S);
    qt_cat(q->prompt, sizeof q->prompt,
           "\nThe K/V tiles stream past in order, tile %d holds keys %d..%d.\n"
           "What is the running %s\nof row %d right after K/V tile %d?",
           j, w.c0[j], w.c1[j] - 1, ask_l ? "sum l (of exp(s - m), m the running max)" : "max m", r,
           j);
    char ans[QUIZ_CHOICE_MAX], cand[6][QUIZ_CHOICE_MAX];
    const char *fmt = ask_l ? "%.3f" : "%.4f";
    snprintf(ans, sizeof ans, fmt, ask_l ? lj : mj);
    const double dm[4] = {tile_max, row_max, w.m[j - 1][rr], seen_min};
    const double dl[5] = {l_tile, l_norescale, l_raw, l_row, w.l[j - 1][rr]};
    int nc = ask_l ? 5 : 4;
    for (int k = 0; k < nc; k++)
        snprintf(cand[k], QUIZ_CHOICE_MAX, fmt, ask_l ? dl[k] : dm[k]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    snprintf(q->explain, sizeof q->explain,
             "After K/V tiles 0..j a row's state covers exactly the keys seen so far: m = their "
             "max (not the tile's own, not the row's over keys still to come) and l = sum of "
             "exp(s - m) over them.  When a tile raises m, the old l is rescaled by exp(m_old - "
             "m_new) before the tile's terms are added: l = exp(m_old - m_new) l_old + sum "
             "exp(s - m_new).  Subtracting m keeps every exp <= 1 (no overflow); it does not "
             "change the softmax.");
    qt_cat(q->working, sizeof q->working, "The engine's tile loop, row %d:\n", r);
    for (int k = 0; k <= j; k++)
        qt_cat(q->working, sizeof q->working, "  after tile %d (keys %d..%d): m %.4f  l %.4f\n", k,
               w.c0[k], w.c1[k] - 1, (double)w.m[k][rr], (double)w.l[k][rr]);
    return 0;
}

/* "(0.1234, -0.5678)" */
static void vec_text(char *buf, size_t n, const double *v, int dh)
{
    buf[0] = 0;
    qt_cat(buf, n, "(");
    for (int i = 0; i < dh; i++)
        qt_cat(buf, n, "%s%.4f", i ? ", " : "", v[i]);
    qt_cat(buf, n, ")");
}

int quiz_gen_flash_rescale(Gen *g)
{
    QuizQuestion *q = g->q;
    for (int tries = 0; tries < 100; tries++) {
        int S = 4 + quiz_rng_below(&g->r, 5), bq = 1 + quiz_rng_below(&g->r, 3);
        int bk = 2 + quiz_rng_below(&g->r, 2), dh = 2;
        if (S <= bk) continue;
        MhaConfig c = toy(&g->r, S, dh, 0);
        Mha *m = mha_run(&c, g->err, g->errlen);
        if (!m) return -1;
        int nq = flash_tiles_of(S, bq), qt = quiz_rng_below(&g->r, nq);
        Row w;
        int rc = run_tiles(m, bq, bk, qt, &w, NULL, NULL, g->err, g->errlen);
        float v[FT_MAX][2]; /* V rows of kv head 0 */
        for (int k = 0; k < S; k++)
            for (int i = 0; i < dh; i++) {
                int idx[4] = {0, 0, k, i};
                v[k][i] = tensor_get(m->t[MT_V_HEADS], idx);
            }
        mha_free(m);
        if (rc) return -1;
        /* a (row, tile) where the tile raised m visibly */
        int cands[FT_MAX * FT_MAX][2], n = 0;
        for (int j = 1; j < w.n; j++)
            for (int r = 0; r < w.r1 - w.r0; r++)
                if (w.m[j][r] > w.m[j - 1][r] + 0.1f) cands[n][0] = r, cands[n++][1] = j;
        if (!n) continue;
        int pick = quiz_rng_below(&g->r, n), rr = cands[pick][0], j = cands[pick][1];
        int r = w.r0 + rr, c0 = w.c0[j], c1 = w.c1[j];
        double mo = w.m[j - 1][rr], lo = w.l[j - 1][rr], mn = w.m[j][rr];
        double alpha = tensor_exp(mo - mn), sp = 0, pv[2] = {0, 0};
        for (int k = c0; k < c1; k++) {
            double p = tensor_exp(w.s[rr][k] - mn);
            sp += p;
            for (int i = 0; i < dh; i++)
                pv[i] += p * v[k][i];
        }
        double want[2], dv[5][2];
        for (int i = 0; i < dh; i++) {
            double oo = w.O[j - 1][rr][i];
            want[i] = w.O[j][rr][i];
            dv[0][i] = (lo * oo + pv[i]) / (lo + sp);         /* O and l not rescaled */
            dv[1][i] = (lo * oo + pv[i]) / (alpha * lo + sp); /* l rescaled, O not */
            dv[2][i] = pv[i] / sp;                            /* the tile alone */
            dv[3][i] = oo;                                    /* the tile ignored */
            dv[4][i] = alpha * lo * oo + pv[i];               /* never divided by l */
        }
        char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
        vec_text(ans, sizeof ans, want, dh);
        int nc = 0;
        for (int k = 0; k < 5; k++) {
            vec_text(cand[nc], QUIZ_CHOICE_MAX, dv[k], dh);
            nc += strcmp(cand[nc], ans) != 0;
        }
        if (nc < 4 || strcmp(ans, cand[0]) == 0) continue;
        q->topic = QT_FLASH, q->cfg = c;
        q->idx[0] = bq, q->idx[1] = bk, q->idx[2] = r, q->idx[3] = j;
        qt_cat(q->prompt, sizeof q->prompt,
               "FlashAttention-2, S = %d, d_head %d, no mask, block_k %d.  Query row %d, after\n"
               "K/V tiles 0..%d (keys 0..%d): m = %.4f, l = %.4f, O = (%.4f, %.4f)\n"
               "(O = sum exp(s - m) v / l over those keys).  K/V tile %d brings keys %d..%d:\n"
               "  scaled scores s:",
               S, dh, bk, r, j - 1, c0 - 1, mo, lo, (double)w.O[j - 1][rr][0],
               (double)w.O[j - 1][rr][1], j, c0, c1 - 1);
        scores_line(q->prompt, sizeof q->prompt, &w, r, c0, c1);
        qt_cat(q->prompt, sizeof q->prompt, "\n  V rows:");
        for (int k = c0; k < c1; k++)
            qt_cat(q->prompt, sizeof q->prompt, " (%.4f, %.4f)", (double)v[k][0], (double)v[k][1]);
        qt_cat(q->prompt, sizeof q->prompt, "\nWhat is O of row %d after tile %d?", r, j);
        qc_make(q, &g->r, ans, cand, nc, 3);
        snprintf(q->explain, sizeof q->explain,
                 "The new tile raised the row's max from %.4f to %.4f, so everything summed "
                 "against the old max is too big by exp(%.4f - %.4f) = %.4f: the old l and the "
                 "old (unnormalised) O are both multiplied by its inverse, alpha = exp(m_old - "
                 "m_new) = %.4f, before the tile's exp(s - m_new) terms are added.  O = (alpha "
                 "l_old O_old + sum exp(s - m_new) v) / (alpha l_old "
                 "+ sum exp(s - m_new)).  Forgetting the rescale weights the old keys e^(m_new - "
                 "m_old) times too much.",
                 mo, mn, mn, mo, 1 / alpha, alpha);
        qt_cat(q->working, sizeof q->working,
               "m_new = max(%.4f, tile max) = %.4f; alpha = exp(m_old - m_new) = %.6f\n"
               "tile: sum exp(s - m_new) = %.6f, sum exp(s - m_new) v = (%.6f, %.6f)\n"
               "l = %.6f x %.6f + %.6f = %.6f (the engine: %.6f)\n"
               "O = (%.6f, %.6f), as the engine's tile loop left it.\n",
               mo, mn, alpha, sp, pv[0], pv[1], alpha, lo, sp, alpha * lo + sp, (double)w.l[j][rr],
               want[0], want[1]);
        return 0;
    }
    snprintf(g->err, g->errlen, "flash: no tile raised a row's max");
    return -1;
}

int quiz_gen_flash_skip(Gen *g)
{
    QuizQuestion *q = g->q;
    int count = quiz_rng_below(&g->r, 2), want_skip = quiz_rng_below(&g->r, 2);
    for (int tries = 0; tries < 100; tries++) {
        int S = 5 + quiz_rng_below(&g->r, 8), bq = 1 + quiz_rng_below(&g->r, 4);
        int bk = 1 + quiz_rng_below(&g->r, 4);
        MhaConfig c = toy(&g->r, S, 2, 1);
        Mha *m = mha_run(&c, g->err, g->errlen);
        if (!m) return -1;
        Row w;
        int vis[FT_MAX][FT_MAX];
        long per_head;
        int rc = run_tiles(m, bq, bk, 0, &w, vis, &per_head, g->err, g->errlen);
        mha_free(m);
        if (rc) return -1;
        int nq = flash_tiles_of(S, bq), nk = flash_tiles_of(S, bk), pool[FT_MAX * FT_MAX][2];
        int n = 0, whole = 0;
        for (int i = 0; i < nq; i++)
            for (int j = 0; j < nk; j++) {
                int r0 = i * bq, c1 = (j + 1) * bk < S ? (j + 1) * bk : S;
                whole += vis[i][j] && c1 - 1 <= r0; /* no score of it masked */
                if (vis[i][j] == !want_skip) pool[n][0] = i, pool[n++][1] = j;
            }
        if (!n || per_head == (long)nq * nk) continue; /* causal skips something */
        const long dv[5] = {(long)nq * nk, whole, per_head - 1, per_head + nq,
                            (long)nq * nk - per_head};
        char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
        int nc = 0;
        snprintf(ans, sizeof ans, "%ld", per_head);
        for (int k = 0; k < 5; k++)
            if (dv[k] > 0 && dv[k] != per_head) snprintf(cand[nc++], QUIZ_CHOICE_MAX, "%ld", dv[k]);
        if (count && nc < 3) continue;
        q->topic = QT_FLASH, q->cfg = c, q->aux = count, q->idx[0] = bq, q->idx[1] = bk;
        qt_cat(q->prompt, sizeof q->prompt,
               "FlashAttention-2 with the causal mask: S = %d token%s, block_q %d, block_k %d\n"
               "(q tile i holds rows %d i .. %d i + %d, K/V tile j keys %d j .. %d j + %d, cut at "
               "S).\n",
               S, text_s(S), bq, bk, bq, bq, bq - 1, bk, bk, bk - 1);
        if (count) {
            q->number = per_head;
            qt_cat(q->prompt, sizeof q->prompt,
                   "How many (q tile, K/V tile) pairs does the loop visit for one (batch, head)?");
            qc_make(q, &g->r, ans, cand, nc, 3);
        } else {
            int pick = quiz_rng_below(&g->r, n), i = pool[pick][0], j = pool[pick][1];
            int r1 = (i + 1) * bq < S ? (i + 1) * bq : S, c1 = (j + 1) * bk < S ? (j + 1) * bk : S;
            q->idx[2] = i, q->idx[3] = j;
            qt_cat(q->prompt, sizeof q->prompt,
                   "Is K/V tile %d (keys %d..%d) skipped for q tile %d (rows %d..%d)?", j, j * bk,
                   c1 - 1, i, i * bq, r1 - 1);
            qc_yes_no(q, want_skip); /* fair: skipped is drawn 1 in 2 */
        }
        snprintf(q->explain, sizeof q->explain,
                 "Under causal a query row r sees keys 0..r.  A K/V tile is skipped exactly when "
                 "its first key is after the q tile's last row: then every score of it is "
                 "masked.  A tile the diagonal crosses is visited whole, its masked scores set to "
                 "-inf (exp gives 0).  So about half the tiles go, and with them half the K/V "
                 "reads and the FLOPs.");
        qt_cat(q->working, sizeof q->working,
               "The engine's tile loop for one head (x visited, . skipped), q tiles down:\n");
        for (int i = 0; i < nq; i++) {
            qt_cat(q->working, sizeof q->working, "  q tile %2d  ", i);
            for (int j = 0; j < nk; j++)
                qt_cat(q->working, sizeof q->working, "%c", vis[i][j] ? 'x' : '.');
            qt_cat(q->working, sizeof q->working, "\n");
        }
        qt_cat(q->working, sizeof q->working,
               "%ld of %d x %d tiles visited, %d of them unmasked.\n", per_head, nq, nk, whole);
        return 0;
    }
    snprintf(g->err, g->errlen, "flash: no causal tiling to ask about");
    return -1;
}

static void size_choice(char *buf, size_t n, uint64_t v)
{
    char a[40], b[40];
    snprintf(buf, n, "%s (%s bytes)", kv_fmt_size(a, sizeof a, v), kv_fmt_int(b, sizeof b, v));
}

int quiz_gen_flash_bytes(Gen *g)
{
    QuizQuestion *q = g->q;
    static const int Ss[] = {1024, 2048, 4096, 8192}, dhs[] = {64, 128}, Hs[] = {8, 16, 32, 64};
    long S = qc_pick(&g->r, Ss, 4), dh = qc_pick(&g->r, dhs, 2), H = qc_pick(&g->r, Hs, 4);
    long B = 1 + quiz_rng_below(&g->r, 2), bq = FLASH_REAL_BLOCK_Q, bk = FLASH_REAL_BLOCK_K;
    int causal = quiz_rng_below(&g->r, 2), ask_flash = quiz_rng_below(&g->r, 2);
    FlashBytes fb = flash_bytes(B, H, S, dh, bq, bk, causal);
    uint64_t n = (uint64_t)(B * H), uS = (uint64_t)S, udh = (uint64_t)dh;
    uint64_t want = ask_flash ? fb.flash : fb.naive;
    uint64_t dv[5];
    if (ask_flash) {
        dv[0] = 4 * (4 * uS * udh + uS) * n;                     /* K and V read once */
        dv[1] = flash_bytes(B, H, S, dh, bq, bk, !causal).flash; /* the mask the other way */
        dv[2] = fb.flash / n;                                    /* one head */
        dv[3] = fb.flash / 2;                                    /* 2 bytes a float */
        dv[4] = fb.naive;
    } else {
        dv[0] = 4 * uS * uS * n;                               /* the scores alone, written once */
        dv[1] = fb.naive / 2;                                  /* 2 bytes a float */
        dv[2] = fb.naive / n;                                  /* one head */
        dv[3] = 4 * (4 * uS * udh) * n;                        /* the S x S passes forgotten */
        dv[4] = causal ? fb.naive / 2                          /* causal halving it */
                       : 4 * (4 * uS * udh + 2 * uS * uS) * n; /* P's passes forgotten */
    }
    q->topic = QT_FLASH, q->number = (long long)want, q->aux = ask_flash;
    q->cfg = mha_config_default();
    q->cfg.batch = (int)B, q->cfg.heads = q->cfg.kv_heads = (int)H, q->cfg.seq = (int)S;
    q->cfg.d_model = (int)(H * dh), q->cfg.causal = causal;
    q->idx[0] = (int)bq, q->idx[1] = (int)bk;
    qt_cat(q->prompt, sizeof q->prompt,
           "Attention of one layer in float32: batch %ld, %ld heads, S = %ld, d_head %ld%s.\n"
           "Count the HBM traffic as the FlashAttention paper does (reads and writes of the\n"
           "big buffers, summed over the batch x heads).  ",
           B, H, S, dh, causal ? ", causal" : "");
    if (ask_flash)
        qt_cat(q->prompt, sizeof q->prompt,
               "FlashAttention-2 with block_q %ld,\nblock_k %ld (flash-attn's blocks for d_head "
               "128) reads Q once, each visited K and V\ntile once per q tile, and writes O and "
               "the row logsumexp once.  How many bytes\ndoes it move?",
               bq, bk);
    else
        qt_cat(q->prompt, sizeof q->prompt,
               "The standard kernel reads Q and K, writes the\nscores, reads them, writes P, reads "
               "P and V, and writes O.  How many bytes does it move?");
    char ans[QUIZ_CHOICE_MAX], cand[5][QUIZ_CHOICE_MAX];
    size_choice(ans, sizeof ans, want);
    int nc = 0;
    for (int k = 0; k < 5; k++)
        if (dv[k] && dv[k] != want) size_choice(cand[nc++], QUIZ_CHOICE_MAX, dv[k]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    snprintf(q->explain, sizeof q->explain,
             "Per (batch, head), in floats of 4 bytes: the standard kernel moves 4 S dh + 4 S^2 "
             "(Q, K in; S out and in; P out and in with V; O out), whatever the mask, because the "
             "S x S matrices go through HBM.  Flash moves S dh (Q) + 2 x dh x the K/V rows each q "
             "tile visits + S dh (O) + S (the logsumexp): the scores stay on chip.  It reads K "
             "and V once per q tile, so its traffic grows with S^2 dh / block_q, not S^2; causal "
             "skips the tiles above the diagonal.");
    char a[40], b[40], c[40], d[40], e[40];
    qt_cat(q->working, sizeof q->working,
           "The engine's flash_bytes: naive %s bytes (%s), flash %s bytes (%s),\n"
           "%.1fx less; the S x S scores alone would be %s per layer.\n",
           kv_fmt_int(a, sizeof a, fb.naive), kv_fmt_size(b, sizeof b, fb.naive),
           kv_fmt_int(c, sizeof c, fb.flash), kv_fmt_size(d, sizeof d, fb.flash),
           (double)fb.naive / (double)fb.flash, kv_fmt_size(e, sizeof e, 4 * uS * uS * n));
    return 0;
}
