/* check_compare.c - two runs at the same step (draw/compare.c), and the
 * --compare flags (cli_compare): issue 20's "Compare". */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "cmd/cli.h"
#include "draw/compare.h"
#include "draw/scene.h"
#include "scene_util.h"

static Mha *run_kv(int kv_heads)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    cfg.kv_heads = kv_heads;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

/* The strides of tensor ti in m, as the frame writes them. */
static void strides_of(const Mha *m, int ti, char *buf, size_t n)
{
    tensor_fmt_strides(buf, n, m->t[ti]);
}

/* Nothing outside the frame, the last column blank (check_scene's rule). */
static void check_inside(const Canvas *c, int w, int h, int step)
{
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++)
            if ((x >= w - 1 || y >= h) && canvas_at(c, x, y)->ch != ' ')
                ck_abort_msg("step %d %dx%d: '%c' at %d,%d outside", step, w, h,
                             canvas_ascii(canvas_at(c, x, y)->ch), x, y);
}

/* walk --compare "--kv-heads 1": both runs at every step, at 80x24 (one
 * compact block each) and 200x60 (two scenes side by side), and at step 4
 * both K_heads strides, MHA's and MQA's, on the frame. */
START_TEST(test_both_runs_every_step)
{
    static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}, {200, 60}};
    Mha *a = run_kv(2), *b = run_kv(1);
    char sa[64], sb[64];
    strides_of(a, MT_K_HEADS, sa, sizeof sa);
    strides_of(b, MT_K_HEADS, sb, sizeof sb);
    ck_assert_str_ne(sa, sb); /* the test means something */
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        int w = sizes[z][0], h = sizes[z][1];
        for (int step = 0; step < MS_COUNT; step++) {
            SceneState s = scene_state_default();
            Canvas *c = canvas_new(w + 10, h + 2);
            s.step = step;
            s.status = "status";
            compare_draw(c, 0, 0, w, h, a, b, &s);
            ck_assert_msg(canvas_contains(c, "H2 KV2 (MHA)") && canvas_contains(c, "H2 KV1 (MQA)"),
                          "%dx%d step %d: a run's label is missing", w, h, step);
            if (step == MS_SCORES)
                ck_assert_msg(canvas_contains(c, sa) && canvas_contains(c, sb),
                              "%dx%d: K_heads strides %s and %s", w, h, sa, sb);
            check_inside(c, w, h, step);
            canvas_free(c);
        }
    }
    ck_assert_int_eq(compare_layout(80, 24), CMP_COMPACT);
    ck_assert_int_eq(compare_layout(200, 60), CMP_SIDE);
    mha_free(a);
    mha_free(b);
}
END_TEST

/* Side by side, each half is the scene itself: A's step title twice, and
 * B's (MQA) shared-K picture in its half only. */
START_TEST(test_side_by_side_is_two_scenes)
{
    Mha *a = run_kv(2), *b = run_kv(1);
    SceneState s = scene_state_default();
    Canvas *c = canvas_new(200, 60);
    char buf[1024];
    int y;
    s.step = MS_SCORES;
    compare_draw(c, 0, 0, 200, 60, a, b, &s);
    y = su_find_row(c, "step 4/10  scores", 0);
    ck_assert_int_ge(y, 0);
    su_row(c, y, buf, sizeof buf);
    ck_assert_ptr_nonnull(strstr(strstr(buf, "step 4/10") + 1, "step 4/10")); /* both halves */
    y = su_find_row(c, "K_expand (", 0); /* the picture's line, not the code's */
    ck_assert_int_ge(y, 0);
    ck_assert_int_ge(su_find_col(c, y, "K_expand ("), 100); /* B's half */
    ck_assert(canvas_contains(c, "* K_heads"));             /* the difference, marked */
    canvas_free(c);
    mha_free(a);
    mha_free(b);
}
END_TEST

START_TEST(test_step_diffs)
{
    Mha *a = run_kv(2), *b = run_kv(1), *c = run_kv(2);
    int bytes = -1;
    /* every tensor a step's statements make, in either run: K_heads, and
     * the MQA run's stride-0 K_expand (the MHA run's is a teaching tensor) */
    ck_assert_int_eq(compare_step_diffs(a, b, MS_SCORES, &bytes), 2);
    ck_assert_int_eq(bytes, 0);
    ck_assert_int_eq(compare_step_diffs(a, b, MS_PROJECT, NULL), 4); /* W_K, W_V, K, V */
    /* split and heads first make K's and V's views too ("no difference" was said) */
    ck_assert_int_eq(compare_step_diffs(a, b, MS_SPLIT, NULL), 2);
    ck_assert_int_eq(compare_step_diffs(a, b, MS_HEADS, NULL), 2);
    ck_assert_int_eq(compare_step_diffs(a, c, MS_SCORES, &bytes), 0);
    mha_free(a);
    mha_free(b);
    mha_free(c);
}
END_TEST

/* A run with RoPE against one without: Q_rope and K_rope are one run's,
 * so they are not compared (reading the other run's would crash). */
START_TEST(test_step_diffs_rope_against_none)
{
    Mha *a = run_kv(2);
    MhaConfig c = a->cfg;
    c.rope = ROPE_HALF;
    char err[200];
    Mha *b = mha_run(&c, err, sizeof err);
    ck_assert_msg(b != NULL, "%s", err);
    for (int s = 0; s < MS_COUNT; s++) {
        int ts[16], n = mha_step_tensors(a, b, s, ts, 16);
        for (int i = 0; i < n; i++)
            ck_assert(a->t[ts[i]] && b->t[ts[i]]);
        compare_step_diffs(a, b, s, NULL);
        compare_step_diffs(b, a, s, NULL);
    }
    mha_free(b);
    mha_free(a);
}
END_TEST

/* --compare FLAGS: the shared flag parser, errors naming --compare. */
START_TEST(test_cli_compare)
{
    MhaConfig a = mha_config_default(), b;
    char err[300];
    ck_assert_int_eq(cli_compare("--kv-heads 1", &a, &b, err, sizeof err), 0);
    ck_assert_int_eq(b.kv_heads, 1);
    ck_assert_int_eq(b.heads, a.heads);
    ck_assert_int_eq(cli_compare("--batch=2  --causal", &a, &b, err, sizeof err), 0);
    ck_assert(b.batch == 2 && b.causal && b.kv_heads == a.kv_heads);
    a.kv_heads = 1;
    ck_assert_int_eq(cli_compare("--heads 4", &a, &b, err, sizeof err), 0);
    ck_assert_int_eq(b.kv_heads, 4); /* --heads alone: MHA, as on any command line */
    static const char *const bad[][2] = {
        {"--kv-heads x", "--compare: --kv-heads"},
        {"--foo", "--compare: '--foo' is not a configuration flag"},
        {"--kv-heads 3", "--compare: --kv-heads 3"},
        {"", "--compare: give"},
        {"--kv-heads", "--compare: "},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        ck_assert_int_eq(cli_compare(bad[i][0], &a, &b, err, sizeof err), -1);
        ck_assert_msg(!strncmp(err, bad[i][1], strlen(bad[i][1])), "'%s': %s", bad[i][0], err);
    }
}
END_TEST

/* The walkthrough's status row, alone or comparing, is the one every screen
 * draws (canvas_status): the same cells in the same styles, the text from
 * column 1, a text too long for the row ending in "...". */
START_TEST(test_status_row_is_canvas_status)
{
    static const int sizes[][2] = {{80, 24}, {200, 60}};
    static const char *const texts[] = {
        "q quit  ? help  i inspect",
        "a status line far too long for eighty columns, so it has to be cut somewhere along "
        "the row, and it says so"};
    Mha *a = run_kv(2), *b = run_kv(1);
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
        for (size_t t = 0; t < sizeof texts / sizeof *texts; t++)
            for (int cmp = 0; cmp < 2; cmp++) {
                int w = sizes[z][0], h = sizes[z][1];
                SceneState s = scene_state_default();
                Canvas *c = canvas_new(w, h), *want = canvas_new(w, h);
                s.step = MS_SCORES;
                s.status = texts[t];
                if (cmp)
                    compare_draw(c, 0, 0, w, h, a, b, &s);
                else
                    scene_draw(c, 0, 0, w, h, a, &s);
                canvas_status(want, texts[t], ST_STATUS);
                for (int x = 0; x < w; x++) {
                    const Cell *got = canvas_at(c, x, h - 1), *ok = canvas_at(want, x, h - 1);
                    ck_assert_msg(got->ch == ok->ch && got->style == ok->style,
                                  "%s %dx%d, text %zu: column %d is '%c' (style %d), the status "
                                  "line has '%c' (style %d)",
                                  cmp ? "compare" : "scene", w, h, t, x, canvas_ascii(got->ch),
                                  got->style, canvas_ascii(ok->ch), ok->style);
                }
                char row[512];
                if (t == 1 && w == 80) /* cut, and it says so */
                    ck_assert(strstr(su_row(want, h - 1, row, sizeof row), "...") != NULL);
                canvas_free(c);
                canvas_free(want);
            }
    mha_free(a);
    mha_free(b);
}
END_TEST

static Suite *compare_suite(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_both_runs_every_step);
    tcase_add_test(tc, test_side_by_side_is_two_scenes);
    tcase_add_test(tc, test_step_diffs);
    tcase_add_test(tc, test_step_diffs_rope_against_none);
    tcase_add_test(tc, test_cli_compare);
    tcase_add_test(tc, test_status_row_is_canvas_status);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(compare_suite)
