/* check_variants.c - the Variants panel: MHA | GQA | MQA columns drawn from
 * three runs, each number the engine's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/variants.h"
#include "engine/mha.h"
#include "scene_util.h"

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
    TCase *tc = tcase_create("panel");
    tcase_add_test(tc, test_mha_column_repeats_nothing);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(variants_suite)
