/* check_variants.c - MHA | GQA | MQA side by side (draw/variants.c): which
 * kv_heads each column gets, and that the panel's shapes, strides and query
 * head -> kv head map are the runs' own; MHA repeats nothing. */
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/variants.h"
#include "engine/mha.h"
#include "scene_util.h"

START_TEST(next_gqa_walks_the_divisors)
{
    /* 8 query heads: GQA can have 2 or 4 kv heads, wrapping both ways */
    ck_assert_int_eq(variants_next_gqa(8, 2, 1), 4);
    ck_assert_int_eq(variants_next_gqa(8, 4, 1), 2);
    ck_assert_int_eq(variants_next_gqa(8, 2, -1), 4);
    ck_assert_int_eq(variants_next_gqa(6, 2, 1), 3);
    ck_assert_int_eq(variants_next_gqa(12, 6, 1), 2);
    /* no divisor strictly between 1 and heads: no GQA */
    const int none[] = {1, 2, 3, 5, 7, 11};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(variants_next_gqa(none[i], none[i], 1), 0);
}
END_TEST

START_TEST(runs_are_mha_gqa_mqa)
{
    MhaConfig cfg = mha_config_default();
    cfg.d_model = 16, cfg.heads = 4, cfg.kv_heads = 4;
    VariantRuns v = {{NULL, NULL, NULL}, 0};
    variants_run(&v, &cfg, 2);
    ck_assert_ptr_nonnull(v.run[0]);
    ck_assert_ptr_nonnull(v.run[1]);
    ck_assert_ptr_nonnull(v.run[2]);
    ck_assert_int_eq(v.run[0]->cfg.kv_heads, 4);
    ck_assert_int_eq(v.run[1]->cfg.kv_heads, 2);
    ck_assert_int_eq(v.gqa_kv, 2);
    ck_assert_int_eq(v.run[2]->cfg.kv_heads, 1);
    /* an asked kv_heads that does not divide heads: the config's own, if GQA */
    cfg.kv_heads = 2;
    variants_run(&v, &cfg, 3);
    ck_assert_int_eq(v.run[1]->cfg.kv_heads, 2);
    variants_free_runs(&v);
    /* one query head: no GQA column, MQA is MHA */
    cfg.heads = 1, cfg.kv_heads = 1, cfg.d_model = 8;
    variants_run(&v, &cfg, 0);
    ck_assert_ptr_nonnull(v.run[0]);
    ck_assert_ptr_null(v.run[1]);
    variants_free_runs(&v);
}
END_TEST

/* At 80x24 with M's MLA strip below, a column too short for its whole K
 * strip still names the storage: the title was cut to "storage S..." (the
 * id lost) on MQA's. */
START_TEST(narrow_column_keeps_the_storage_id)
{
    MhaConfig cfg = mha_config_default(); /* 2 heads: MHA and MQA columns */
    VariantRuns v = {{NULL, NULL, NULL}, 0};
    variants_run(&v, &cfg, 0);
    Canvas *c = canvas_new(80, 24);
    ck_assert_ptr_nonnull(c);
    variants_draw_panel(c, 0, 1, 80, 17, &v); /* the height M's MLA strip leaves */
    ck_assert(!canvas_contains(c, "S..."));
    for (int i = 0; i < 3; i++) {
        if (!v.run[i]) continue;
        char want[32];
        snprintf(want, sizeof want, "S%d: ", v.run[i]->t[MT_K]->st->id);
        ck_assert_msg(canvas_contains(c, want), "column %d lacks '%s'", i, want);
    }
    canvas_free(c);
    variants_free_runs(&v);
}
END_TEST

START_TEST(panel_reads_the_runs)
{
    MhaConfig cfg = mha_config_default();
    cfg.d_model = 16, cfg.heads = 4, cfg.kv_heads = 4;
    VariantRuns v = {{NULL, NULL, NULL}, 0};
    variants_run(&v, &cfg, 2);
    Canvas *c = canvas_new(120, 40);
    ck_assert_ptr_nonnull(c);
    variants_draw_panel(c, 0, 0, 120, 40, &v);
    for (int i = 0; i < 3; i++) {
        const Tensor *K = v.run[i]->t[MT_K_HEADS], *Ke = v.run[i]->t[MT_K_EXPAND];
        char dims[64], want[96], strides[64];
        snprintf(want, sizeof want, "K heads %s",
                 tensor_fmt_dims(dims, sizeof dims, K->ndim, K->shape));
        ck_assert_msg(canvas_contains(c, want), "column %d lacks '%s'", i, want);
        ck_assert_msg(canvas_contains(c, tensor_fmt_strides(strides, sizeof strides, Ke)),
                      "column %d lacks the expand strides %s", i, strides);
    }
    /* the GQA column's map, as the engine groups heads: q0 q1 -> kv0 */
    ck_assert(canvas_contains(c, "q0 q1 -> kv0"));
    ck_assert(canvas_contains(c, "q2 q3 -> kv1"));
    ck_assert(canvas_contains(c, "q0 q1 q2 q3 -> kv0")); /* MQA */
    canvas_free(c);
    variants_free_runs(&v);
}
END_TEST

/* MLA's strip: one token's c_kv + k_pe beside MHA's per-head K and V and
 * the config's own shared K/V, each strip as long as its floats, its bytes
 * the engine's (R + dr) x 4 against 2 x H x dh x 4; at 80 columns and with
 * heads too many for a cell a float. */
START_TEST(mla_strip_sits_beside_the_kv_it_replaces)
{
    MhaConfig cfg = mha_config_default();
    cfg.d_model = 16, cfg.heads = 4, cfg.kv_heads = 2; /* dh 4 */
    Canvas *c = canvas_new(80, 24);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(variants_mla_rank(&cfg), 8);
    int rows = variants_draw_mla_strip(c, 1, 2, 78, &cfg, 8, 2, 5);
    ck_assert_int_eq(rows, 6);
    ck_assert(
        canvas_contains(c, "MHA k|v   kkkkkkkkkkkkkkkkvvvvvvvvvvvvvvvv 128 B = 2 x 4 x 4 x 4"));
    ck_assert(canvas_contains(c, "GQA k|v   kkkkkkkkvvvvvvvv 64 B = 2 x 2 x 4 x 4"));
    ck_assert(canvas_contains(c, "MLA c|kpe ccccccccrr 40 B = (8 + 2) x 4"));
    ck_assert(canvas_contains(c, "at 5 tokens: MHA 640 B, GQA 320 B, MLA 200 B"));
    canvas_free(c);
    /* 64 heads of 16 floats: 2048 floats in about 40 cells, said */
    cfg.d_model = 1024, cfg.heads = 64, cfg.kv_heads = 64;
    c = canvas_new(80, 24);
    variants_draw_mla_strip(c, 1, 0, 78, &cfg, 512, 64, 0);
    ck_assert(canvas_contains(c, "8,192 B = 2 x 64 x 16 x 4"));
    ck_assert(canvas_contains(c, "2,304 B = (512 + 64) x 4"));
    ck_assert(canvas_contains(c, "(a cell: "));
    for (int y = 0; y < 4; y++) { /* nothing past the right edge */
        char row[512];
        su_row(c, y, row, sizeof row);
        ck_assert_msg(strlen(row) <= 80, "row %d: %s", y, row);
    }
    canvas_free(c);
}
END_TEST

/* Text of column x0..x0+w of the panel, rows joined by '\n'. */
static void column_text(const Canvas *c, int x0, int w, char *out, size_t n)
{
    char row[512];
    size_t o = 0;
    for (int y = 0; y < c->h && o + (size_t)w + 2 < n; y++) {
        su_row(c, y, row, sizeof row);
        o += (size_t)snprintf(out + o, n - o, "%.*s\n", w, row + x0);
    }
}

/* MHA repeats nothing: its column says so instead of listing
 * repeat_interleave's copy; GQA and MQA list the copy the engine counted. */
START_TEST(test_mha_column_repeats_nothing)
{
    MhaConfig cfg = mha_config_default();
    VariantRuns v = {0};
    char col[4096], want[64];
    cfg.heads = cfg.kv_heads = 4;
    variants_run(&v, &cfg, 2);
    ck_assert_ptr_nonnull(v.run[0]);
    Canvas *c = canvas_new(80, 24);
    variants_draw_panel(c, 0, 0, 80, 24, &v);
    int sep = su_find_col(c, 0, "|"); /* the rule after the first column, read as ASCII */
    ck_assert_int_gt(sep, 10);
    column_text(c, 0, sep, col, sizeof col);
    ck_assert_msg(strstr(col, "not needed") != NULL, "MHA column: %s", col);
    ck_assert_msg(!strstr(col, "repeat_interleave (copy)"), "MHA column: %s", col);
    for (int i = 1; i < 3; i++) {
        const Tensor *kr = v.run[i]->t[MT_K_REPEAT];
        snprintf(want, sizeof want, "S%d, %zu bytes copied", kr->st->id, kr->st->bytes_copied);
        ck_assert_msg(canvas_contains(c, want), "no '%s'", want);
    }
    canvas_free(c);
    variants_free_runs(&v);
}
END_TEST

static Suite *variants_suite(void)
{
    Suite *s = suite_create("variants");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, next_gqa_walks_the_divisors);
    tcase_add_test(tc, runs_are_mha_gqa_mqa);
    tcase_add_test(tc, panel_reads_the_runs);
    tcase_add_test(tc, narrow_column_keeps_the_storage_id);
    tcase_add_test(tc, test_mha_column_repeats_nothing);
    tcase_add_test(tc, mla_strip_sits_beside_the_kv_it_replaces);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(variants_suite)
