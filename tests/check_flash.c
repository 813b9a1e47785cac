/* check_flash.c - FlashAttention-2's loop (engine/flash.c): every tile's m, l
 * and O against the definitions recomputed from the pipeline's own scores
 * (not from the loop's running update), the final O against head_out, the
 * loop order, the causal skips, a block larger than S, and the byte counts
 * (counted as tiles load and store) against the formulas, worked out by hand
 * for the toy run and for real sizes. */
#include "check_main.h"
#include <math.h>
#include <string.h>

#include "app_fixture.h"
#include "draw/flash.h"
#include "engine/flash.h"
#include "ui/flash_screen.h"

static Mha *run(int batch, int seq, int d_model, int heads, int kv_heads, int causal, int seed)
{
    char err[200];
    MhaConfig c = mha_config_default();
    c.batch = batch, c.seq = seq, c.d_model = d_model, c.heads = heads, c.kv_heads = kv_heads;
    c.causal = causal, c.seed = (uint32_t)seed, c.rope_theta = 0;
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

static Flash *flash(const Mha *m, int bq, int bk)
{
    char err[200];
    Flash *f = flash_new(m, bq, bk, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    return f;
}

/* The definitions of flash.h for row r of (b, h) over keys 0 .. c1 - 1, from
 * the pipeline's scores (B, H, S, S), masked by hand, in double. */
static void expect_row(const Mha *m, int b, int h, int r, int c1, double *em, double *el,
                       double *eO)
{
    int dh = m->d_head, kv = h / m->groups;
    double mx = -INFINITY;
    for (int c = 0; c < c1; c++) {
        double s = tensor_get(m->t[MT_SCORES], (int[]){b, h, r, c});
        if (!(m->cfg.causal && c > r) && s > mx) mx = s;
    }
    double l = 0;
    for (int i = 0; i < dh; i++)
        eO[i] = 0;
    for (int c = 0; c < c1; c++) {
        if (m->cfg.causal && c > r) continue;
        double p = exp(tensor_get(m->t[MT_SCORES], (int[]){b, h, r, c}) - mx);
        l += p;
        for (int i = 0; i < dh; i++)
            eO[i] += p * tensor_get(m->t[MT_V_HEADS], (int[]){b, kv, c, i});
    }
    for (int i = 0; i < dh; i++)
        eO[i] /= l;
    *em = mx;
    *el = l;
}

/* Runs the whole loop, checking order, spans, skips and every tile's state;
 * returns the number of tiles visited. */
static long check_loop(const Mha *m, int bq, int bk)
{
    Flash *f = flash(m, bq, bk);
    const MhaConfig *c = &m->cfg;
    int S = c->seq, BQ = bq < S ? bq : S, BK = bk < S ? bk : S;
    int nq = (S + BQ - 1) / BQ, nk = (S + BK - 1) / BK;
    double em, el, eO[1024];
    long n = 0;
    /* the loop order written out: every (b, h, qtile, ktile) not skipped, in turn */
    for (int b = 0; b < c->batch; b++)
        for (int h = 0; h < c->heads; h++)
            for (int qt = 0; qt < nq; qt++)
                for (int kt = 0; kt < nk; kt++) {
                    int r0 = qt * BQ, r1 = r0 + BQ < S ? r0 + BQ : S;
                    int c0 = kt * BK, c1 = c0 + BK < S ? c0 + BK : S;
                    if (c->causal && c0 > r1 - 1) {
                        ck_assert(flash_skips(S, BQ, BK, 1, qt, kt));
                        continue;
                    }
                    ck_assert(!flash_skips(S, BQ, BK, c->causal, qt, kt));
                    ck_assert_int_eq(flash_step(f), 1);
                    n++;
                    ck_assert_msg(f->b == b && f->h == h && f->qtile == qt && f->ktile == kt,
                                  "tile %ld is (%d %d %d %d), expected (%d %d %d %d)", n, f->b,
                                  f->h, f->qtile, f->ktile, b, h, qt, kt);
                    ck_assert_int_eq(f->kv, h / (c->heads / c->kv_heads));
                    ck_assert(f->r0 == r0 && f->r1 == r1 && f->c0 == c0 && f->c1 == c1);
                    for (int r = r0; r < r1; r++) {
                        expect_row(m, b, h, r, c1, &em, &el, eO);
                        ck_assert_msg(fabs(f->tm[r - r0] - em) < 1e-6, "m %g vs %g",
                                      (double)f->tm[r - r0], em);
                        ck_assert_msg(fabs(f->tl[r - r0] - el) < 1e-5 * el, "l %g vs %g",
                                      (double)f->tl[r - r0], el);
                        for (int i = 0; i < m->d_head; i++)
                            ck_assert(fabs(f->tO[(r - r0) * m->d_head + i] - eO[i]) < 1e-6);
                    }
                }
    ck_assert_int_eq(flash_step(f), 0);
    ck_assert(f->done);
    ck_assert_int_eq(f->visited, n);
    ck_assert_int_eq(f->visited + f->skipped, (long)c->batch * c->heads * nq * nk);
    ck_assert_msg(flash_check(f) < 1e-6f, "final O vs head_out: %g", (double)flash_check(f));
    /* the traffic the loop counted is the formula's */
    ck_assert_uint_eq(f->bytes_read + f->bytes_written, f->bytes.flash);
    FlashBytes want = flash_bytes(c->batch, c->heads, S, m->d_head, bq, bk, c->causal);
    ck_assert_uint_eq(f->bytes.flash, want.flash);
    ck_assert_uint_eq(f->bytes.naive, want.naive);
    flash_free(f);
    return n;
}

START_TEST(test_default_tiles)
{
    Mha *m = run(1, 4, 8, 2, 2, 0, 1);
    ck_assert_int_eq(check_loop(m, 2, 2), 2 * 2 * 2); /* 2 heads x 2 q tiles x 2 k tiles */
    mha_free(m);
}
END_TEST

/* A block larger than S is one tile a head: all rows, all keys. */
START_TEST(test_block_larger_than_seq_is_one_tile)
{
    Mha *m = run(2, 5, 8, 4, 2, 1, 3);
    Flash *f = flash(m, 64, 9);
    ck_assert_int_eq(f->n_qtiles, 1);
    ck_assert_int_eq(f->n_ktiles, 1);
    long n = 0;
    while (flash_step(f)) {
        ck_assert(f->r0 == 0 && f->r1 == 5 && f->c0 == 0 && f->c1 == 5 && f->last);
        n++;
    }
    ck_assert_int_eq(n, 2 * 4);
    ck_assert_int_eq(f->skipped, 0);
    ck_assert(flash_check(f) < 1e-6f);
    flash_free(f);
    ck_assert_int_eq(check_loop(m, 64, 9), 8);
    mha_free(m);
}
END_TEST

/* Skipped exactly when the first column is greater than the last row. */
START_TEST(test_causal_skips)
{
    /* seq 5, blocks 2 x 2: q tiles rows [0,2) [2,4) [4,5); k tiles cols [0,2) [2,4) [4,5) */
    ck_assert(!flash_skips(5, 2, 2, 1, 0, 0));
    ck_assert(flash_skips(5, 2, 2, 1, 0, 1));  /* col 2 > row 1 */
    ck_assert(!flash_skips(5, 2, 2, 1, 1, 1)); /* col 2 <= row 3: partly masked, visited */
    ck_assert(flash_skips(5, 2, 2, 1, 1, 2));  /* col 4 > row 3 */
    ck_assert(!flash_skips(5, 2, 2, 1, 2, 2)); /* col 4 <= row 4 */
    ck_assert(!flash_skips(5, 2, 2, 0, 0, 2)); /* not causal: nothing skipped */
    /* blocks 3 x 2: q tile 0 rows [0,3) visits cols [2,4) (2 <= 2), not [4,5) */
    ck_assert(!flash_skips(5, 3, 2, 1, 0, 1));
    ck_assert(flash_skips(5, 3, 2, 1, 0, 2));
    Mha *m = run(1, 5, 8, 2, 1, 1, 2);
    ck_assert_int_eq(check_loop(m, 2, 2), 2 * (1 + 2 + 3));
    Flash *f = flash(m, 2, 2);
    int masked = 0;
    while (flash_step(f))
        if (f->qtile == 1 && f->ktile == 1) {
            masked = flash_tile_masked(f); /* rows 2,3 x cols 2,3: (2,3) is masked */
            ck_assert_float_eq(f->s[0 * 2 + 1], -INFINITY);
            ck_assert(isfinite(f->s[1 * 2 + 0]));
        }
    ck_assert_int_eq(masked, 1);
    ck_assert_int_eq(f->skipped, 2 * 3);
    flash_free(f);
    mha_free(m);
}
END_TEST

/* Random sizes, blocks that do not divide S, GQA and MQA, batch > 1, causal. */
START_TEST(test_random_configs)
{
    MhaRng rng;
    mha_rng_seed(&rng, 18);
    for (int k = 0; k < 40; k++) {
        int heads = 1 << (mha_rng_next(&rng) % 3); /* 1, 2, 4 */
        int kv = heads >> (mha_rng_next(&rng) % 3);
        kv = kv < 1 ? 1 : kv;
        int dh = 1 + (int)(mha_rng_next(&rng) % 4);
        int seq = 1 + (int)(mha_rng_next(&rng) % 9);
        int batch = 1 + (int)(mha_rng_next(&rng) % 2);
        int causal = (int)(mha_rng_next(&rng) % 2);
        int bq = 1 + (int)(mha_rng_next(&rng) % 5), bk = 1 + (int)(mha_rng_next(&rng) % 5);
        Mha *m = run(batch, seq, heads * dh, heads, kv, causal, 100 + k);
        check_loop(m, bq, bk);
        mha_free(m);
    }
}
END_TEST

/* The formulas by hand.  Default run (B 1, H 2, S 4, dh 4), blocks 2 x 2:
 *   naive per head 4 (4*4*4 + 4*16) = 512, x 2 = 1,024
 *   flash per head 4 (16 + 2 * (4 + 4) * 4 + 16 + 4) = 400, x 2 = 800
 *   causal: q tile 0 visits 2 keys, q tile 1 all 4: 4 (16 + 2*6*4 + 16 + 4) = 336, x 2 = 672 */
START_TEST(test_bytes_by_hand)
{
    FlashBytes a = flash_bytes(1, 2, 4, 4, 2, 2, 0), b = flash_bytes(1, 2, 4, 4, 2, 2, 1);
    ck_assert_uint_eq(a.naive, 1024);
    ck_assert_uint_eq(a.flash, 800);
    ck_assert_uint_eq(b.naive, 1024);
    ck_assert_uint_eq(b.flash, 672);
    /* a short last tile counts its real rows: S 5, block_k 2, causal, block_q 5:
     * one q tile, every key (5 rows, not 6) */
    ck_assert_uint_eq(flash_bytes(1, 1, 5, 1, 5, 2, 1).flash, 4 * (5 + 2 * 5 + 5 + 5));
    /* Real sizes: S 8192, dh 128, 64 heads, flash-attn's 128 x 64 blocks.
     * naive per head 4 (4*8192*128 + 4*8192^2) = 1,090,519,040, x 64 = 69,793,218,560;
     * the scores alone at fp16: 64 * 8192^2 * 2 = 8 GiB.
     * flash: 64 q tiles, each all 8192 keys: 4 (2 * 8192*128 + 2*64*8192*128 + 8192)
     * = 545,292,288 per head, x 64 = 34,898,706,432. */
    FlashBytes r = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 0);
    ck_assert_uint_eq(r.naive, 69793218560ULL);
    ck_assert_uint_eq(r.flash, 34898706432ULL);
    ck_assert_uint_eq(64ULL * 8192 * 8192 * 2, 8ULL << 30);
    /* causal: q tile i visits keys [0, 128 (i + 1)): sum = 128 * 64 * 65 / 2 = 266,240 */
    FlashBytes rc = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 1);
    ck_assert_uint_eq(rc.naive, r.naive);
    ck_assert_uint_eq(rc.flash, 64ULL * 4 * (2 * 8192 * 128 + 2ULL * 266240 * 128 + 8192));
}
END_TEST

START_TEST(test_restart_and_errors)
{
    char err[200] = "";
    Mha *m = run(1, 4, 8, 2, 2, 1, 1);
    ck_assert_ptr_null(flash_new(m, 0, 2, err, sizeof err));
    ck_assert_str_eq(err, "--block-q 0: must be a positive number of rows");
    ck_assert_ptr_null(flash_new(m, 2, 0, err, sizeof err));
    ck_assert_str_eq(err, "--block-k 0: must be a positive number of rows");
    Flash *f = flash(m, 3, 1);
    while (flash_step(f))
        ;
    float first = flash_check(f);
    long v = f->visited;
    uint64_t bytes = f->bytes_read;
    flash_restart(f);
    ck_assert_int_eq(f->visited, 0);
    ck_assert_float_eq(flash_check(f), 0.0f); /* no row written yet */
    while (flash_step(f))
        ;
    ck_assert_float_eq(flash_check(f), first);
    ck_assert_int_eq(f->visited, v);
    ck_assert_uint_eq(f->bytes_read, bytes);
    /* the logsumexp written with O: m + ln l of the last tile */
    mha_free(m);
    flash_free(f);
}
END_TEST

/* lse = m + ln l against libm's log, through the rows of one run. */
START_TEST(test_logsumexp)
{
    Mha *m = run(1, 7, 12, 3, 1, 0, 9);
    Flash *f = flash(m, 3, 2);
    while (flash_step(f)) {
        if (!f->last) continue;
        for (int r = f->r0; r < f->r1; r++) {
            double want = (double)f->tm[r - f->r0] + log((double)f->tl[r - f->r0]);
            float got = tensor_get(f->lse, (int[]){f->b, f->h, r});
            ck_assert_msg(fabs(got - want) < 1e-6, "lse %g vs %g", (double)got, want);
        }
    }
    flash_free(f);
    mha_free(m);
}
END_TEST

/* ---- the Tiles screen ------------------------------------------------------- */

/* Nothing drawn into the last column of any row but the status line: a line
 * that long was cut.  Prints the frame when it fails. */
static void assert_not_clipped(const Canvas *c, const char *what)
{
    char row[1024];
    for (int y = 0; y < c->h - 1; y++) {
        const Cell *e = canvas_at(c, c->w - 1, y);
        if (e->ch == ' ') continue;
        for (int k = 0; k < c->h; k++)
            fprintf(stderr, "|%s\n", canvas_row(c, k, 1, row, sizeof row));
        ck_abort_msg("%s at %dx%d: row %d reaches the last column", what, c->w, c->h, y);
    }
}

static Screen *tiles(Ui *ui, const char *a1, const char *a2, int bq, int bk)
{
    ui_with(ui, a1, a2);
    Screen *s = flash_open_with(ui, bq, bk);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* Every tile of a few runs at 80x24 through 200x60: the frame fits, says where
 * the loop is, and ends with every row equal to head_out. */
START_TEST(test_screen_sizes)
{
    static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}, {200, 60}};
    static const char *const cfgs[][2] = {
        {"--causal", NULL}, {"--seq", "8"}, {"--heads", "1"}, {"--d-model", "64"}};
    static const int blocks[][2] = {{2, 2}, {1, 3}, {3, 1}, {16, 5}};
    for (int k = 0; k < 4; k++) {
        Ui ui;
        Screen *s = tiles(&ui, cfgs[k][0], cfgs[k][1], blocks[k][0], blocks[k][1]);
        for (int t = 0; t < 200; t++) {
            for (int z = 0; z < 4; z++) {
                Canvas *c = draw(s, &ui, sizes[z][0], sizes[z][1]);
                assert_not_clipped(c, cfgs[k][0]);
                ck_assert(canvas_contains(c, "Tiles: "));
                ck_assert(canvas_contains(c, "whole loop: naive "));
                canvas_free(c);
            }
            if (shows(s, &ui, 80, 24, "the loop is done")) break;
            ck_assert_int_eq(press(s, &ui, ' '), UI_REDRAW);
        }
        ck_assert(shows(s, &ui, 80, 24, "the loop is done"));
        ck_assert(shows(s, &ui, 80, 24, "O rows written once: = head_out"));
        screen_close(s);
        ui_free(&ui);
    }
}
END_TEST

START_TEST(test_screen_keys)
{
    Ui ui;
    Screen *s = tiles(&ui, "--causal", NULL, 2, 2); /* seq 4: 2 x 2 tiles, 3 run a head */
    ck_assert(shows(s, &ui, 80, 24, "head 0 (kv head 0), q tile 0, K/V tile 0"));
    ck_assert(shows(s, &ui, 80, 24, "q0   \u2588\u2588 \u00D7\u00D7")); /* on chip, skipped */
    ck_assert(shows(s, &ui, 80, 24, "1 of 4 above the diagonal: -inf"));
    press(s, &ui, ' ');
    ck_assert(shows(s, &ui, 80, 24, "q tile 1, K/V tile 0"));
    ck_assert(shows(s, &ui, 80, 24, "q1   \u2588\u2588 \u00B7\u00B7"));
    press(s, &ui, UI_K_LEFT);
    ck_assert(shows(s, &ui, 80, 24, "q tile 0, K/V tile 0"));
    press(s, &ui, 'G');
    ck_assert(shows(s, &ui, 80, 24, "8 of 8 O rows written"));
    ck_assert(shows(s, &ui, 80, 24, "tiles run 6, skipped 2"));
    press(s, &ui, ' '); /* after the end: from the start again */
    ck_assert(shows(s, &ui, 80, 24, "nothing on chip yet"));
    press(s, &ui, 'C');
    ck_assert(!shows(s, &ui, 80, 24, ", causal;"));
    press(s, &ui, 'b');
    ck_assert(shows(s, &ui, 80, 24, "block_q 3, block_k 2: 2 x 2 tiles a head"));
    press(s, &ui, 'B');
    press(s, &ui, 'B');
    ck_assert(shows(s, &ui, 80, 24, "block_q 3, block_k 4: 2 x 1 tiles a head"));
    press(s, &ui, 'B'); /* past seq: 1 again */
    ck_assert(shows(s, &ui, 80, 24, "block_k 1: 2 x 4 tiles"));
    press(s, &ui, 'K');
    ck_assert(shows(s, &ui, 80, 24, "H 2, KV 1"));
    screen_close(press_help(s, &ui));
    ck_assert_int_eq(press(s, &ui, 'q'), UI_BACK | UI_REDRAW);
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* ASCII: every glyph of the frame has a stand-in (no '?'). */
START_TEST(test_screen_ascii)
{
    Ui ui;
    char row[256];
    Screen *s = tiles(&ui, "--causal", NULL, 1, 1);
    press(s, &ui, ' ');
    Canvas *c = draw(s, &ui, 80, 24);
    int found = 0;
    for (int y = 0; y < c->h; y++) {
        canvas_row(c, y, 1, row, sizeof row);
        ck_assert_msg(!strchr(row, '?') || y == c->h - 1, "row %d: %s", y, row);
        found += strstr(row, "q0   :: xx xx xx") != NULL;
        found += strstr(row, "q1   @@ ** xx xx") != NULL;
    }
    ck_assert_int_eq(found, 2);
    canvas_free(c);
    screen_close(s);
    ui_free(&ui);
}
END_TEST

/* The home menu has a Tiles line, and with it every line is on an 80x24 screen. */
START_TEST(test_home_lists_tiles)
{
    Ui ui;
    ui_with(&ui, NULL, NULL);
    Screen *h = home_open(&ui);
    ck_assert(shows(h, &ui, 80, 24, "Tiles"));
    ck_assert(shows(h, &ui, 80, 24, "11  Help")); /* the last line, above the status */
    for (int k = 0; k < 9; k++)                   /* Down to Tiles, the line above Help */
        press(h, &ui, UI_K_DOWN);
    ck_assert_int_eq(press(h, &ui, UI_K_ENTER) & UI_PUSH, UI_PUSH);
    ck_assert(shows(pushed, &ui, 80, 24, "Tiles: "));
    screen_close(pushed);
    screen_close(h);
    ui_free(&ui);
}
END_TEST

static Suite *flash_suite(void)
{
    Suite *s = suite_create("flash");
    TCase *tc = tcase_create("loop");
    tcase_add_test(tc, test_default_tiles);
    tcase_add_test(tc, test_block_larger_than_seq_is_one_tile);
    tcase_add_test(tc, test_causal_skips);
    tcase_add_test(tc, test_random_configs);
    tcase_add_test(tc, test_bytes_by_hand);
    tcase_add_test(tc, test_restart_and_errors);
    tcase_add_test(tc, test_logsumexp);
    suite_add_tcase(s, tc);
    TCase *ts = tcase_create("screen");
    tcase_add_test(ts, test_screen_sizes);
    tcase_add_test(ts, test_screen_keys);
    tcase_add_test(ts, test_screen_ascii);
    tcase_add_test(ts, test_home_lists_tiles);
    suite_add_tcase(s, ts);
    return s;
}

CHECK_MAIN(flash_suite)
