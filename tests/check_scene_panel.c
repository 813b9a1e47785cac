/* check_scene_panel.c - the walkthrough's program panel as drawn: at 80x24
 * a six-row window of the run's program (engine/mha_panel.c) that holds
 * the line making the step's tensor, its rows numbered as the program's
 * lines, ▲ / ▼ where lines are out of sight; on a frame PROGRAM_FULL_H rows
 * tall every line; a failure picture with its bug in sight and lit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/scene.h"
#include "engine/mha.h"
#include "scene_util.h"

#define ROWS 6 /* the program's rows below PROGRAM_FULL_H (draw/scenectx.h) */

/* GQA, causal with a window, RoPE: the longest program (18 lines). */
static Mha *run_long(void)
{
    MhaConfig c = mha_config_default();
    char err[256];
    c.batch = 2, c.seq = 7, c.d_model = 16, c.heads = 4, c.kv_heads = 2;
    c.causal = 1, c.window = 2, c.rope = ROPE_HALF;
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

static Canvas *draw(const Mha *m, int step, MhaView v, int w, int h)
{
    SceneState s = scene_state_default();
    s.step = step;
    s.view = v;
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    scene_draw(c, 0, 0, w, h, m, &s);
    return c;
}

/* Reads the program rows y0 .. y0+rows-1 back: each shows "  N code" (▶
 * in column 0 when lit) with code pn's line N.  Returns the first line
 * number shown; *lit the rows marked. */
static int read_rows(const Canvas *c, const MhaPanel *pn, int y0, int rows, int *lit,
                     const char *what)
{
    char buf[512];
    int first = -1;
    *lit = 0;
    for (int r = 0; r < rows; r++) {
        char *row = su_row(c, y0 + r, buf, sizeof buf);
        int num = atoi(row + 1);
        ck_assert_msg(num >= 1 && num <= pn->n, "%s: row %d `%s` has no line number", what, y0 + r,
                      row);
        if (first < 0) first = num;
        ck_assert_msg(num == first + r, "%s: row %d shows line %d, not %d", what, y0 + r, num,
                      first + r);
        const char *l = pn->line[num - 1];
        ck_assert_msg(!strncmp(row + 5, l, strlen(l)), "%s: line %d reads `%s`, not `%s`", what,
                      num, row + 5, l);
        *lit += canvas_at(c, 0, y0 + r)->ch == 0x25B6;
    }
    return first;
}

START_TEST(a_window_at_80x24_holds_the_step)
{
    Mha *m = run_long();
    const MhaConfig *cf = &m->cfg;
    MhaPanel pn;
    mha_panel(cf, MV_STEP, &pn);
    ck_assert_int_eq(pn.n, 18); /* GQA with RoPE and a window: the longest */
    for (int k = 0; k < mha_step_total(cf); k++) {
        int s = mha_step_at(cf, k), last, lit;
        int first = mha_panel_first_lit(&pn, s, &last);
        char what[64];
        snprintf(what, sizeof what, "80x24 step %s", mha_steps[s].name);
        Canvas *c = draw(m, s, MV_STEP, 80, 24);
        int top = read_rows(c, &pn, 1, ROWS, &lit, what) - 1;
        int bottom = top + ROWS - 1;
        /* the line that makes the step's tensor is in sight, lit */
        if (s != MS_INPUT) {
            ck_assert_msg(last >= top && last <= bottom, "%s: line %d out of sight", what,
                          last + 1);
            ck_assert_int_ge(lit, 1);
        } else {
            ck_assert_int_eq(first, -1);
            ck_assert_int_eq(top, 0);
        }
        /* the rule says where more lines are */
        ck_assert_int_eq(canvas_at(c, 51, 1)->ch == 0x25B2, top > 0);
        ck_assert_int_eq(canvas_at(c, 51, ROWS)->ch == 0x25BC, bottom < pn.n - 1);
        /* the ▶ code line right under the program */
        ck_assert_int_eq(canvas_at(c, 0, 1 + ROWS)->ch, 0x25B6);
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

START_TEST(a_tall_frame_shows_every_line)
{
    Mha *m = run_long();
    MhaPanel pn;
    mha_panel(&m->cfg, MV_STEP, &pn);
    Canvas *c = draw(m, MS_SOFTMAX, MV_STEP, 200, 60);
    int y0 = su_find_row(c, pn.line[0], 0), lit, want = 0, len;
    ck_assert_int_gt(y0, 0);
    ck_assert_int_eq(read_rows(c, &pn, y0, pn.n, &lit, "200x60"), 1);
    for (int i = 0; i < pn.n; i++) /* the mask's lines and softmax's */
        want += mha_panel_lit(&pn, i, MS_SOFTMAX, &len) != NULL;
    ck_assert_int_eq(want, 5);
    ck_assert_int_eq(lit, want);
    for (int y = y0; y < y0 + pn.n; y++) /* nothing out of sight */
        ck_assert_int_eq(canvas_at(c, 51, y)->ch, 0x2502);
    canvas_free(c);
    mha_free(m);
}
END_TEST

START_TEST(a_failure_shows_its_bug)
{
    Mha *m = run_long();
    for (int v = MV_WRONG_VIEW; v < MV_COUNT; v++) {
        MhaPanel pn;
        mha_panel(&m->cfg, (MhaView)v, &pn);
        Canvas *c = draw(m, v == MV_WRONG_VIEW ? MS_HEADS : MS_SOFTMAX, (MhaView)v, 80, 24);
        int lit, top = read_rows(c, &pn, 1, ROWS, &lit, mha_views[v].key) - 1;
        ck_assert_int_eq(lit, 1);
        ck_assert_int_eq(canvas_at(c, 0, 1 + pn.bug - top)->ch, 0x25B6);
        char want[128];
        snprintf(want, sizeof want, "%s  # the bug", mha_views[v].code);
        ck_assert(su_find_row(c, want, 0) == 1 + ROWS);
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

static Suite *scene_panel_suite(void)
{
    Suite *s = suite_create("scene_panel");
    TCase *tc = tcase_create("scene_panel");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_window_at_80x24_holds_the_step);
    tcase_add_test(tc, a_tall_frame_shows_every_line);
    tcase_add_test(tc, a_failure_shows_its_bug);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(scene_panel_suite)
