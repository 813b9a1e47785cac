/* check_mha_panel.c - the walkthrough's program panel is a program that
 * runs (issue 16): for each configuration its lines (engine/mha_panel.c),
 * typed one by one into a playground from mha_play_new, give the run's
 * out, bit for bit; each failure picture's program, its line replaced by
 * the bug, gives the run's Q_wrong or attn_noscale; every step lights a
 * line of it, and every line fits the panel. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "engine/mha.h"
#include "engine/play.h"
#include "engine/tensorops.h"
#include "engine_testutil.h"

/* batch seq d_model heads kv_heads causal window rope */
static const char *const configs[] = {
    "1 4 8 2 2 0 0 0",   /* MHA, the default */
    "1 6 16 4 2 0 0 0",  /* GQA */
    "1 5 8 4 1 0 0 0",   /* MQA */
    "1 6 16 4 2 1 0 0",  /* GQA, causal */
    "1 8 8 2 2 1 3 0",   /* a window */
    "1 6 16 4 2 1 0 1",  /* RoPE half, GQA, causal */
    "1 5 8 2 1 0 0 2",   /* RoPE interleaved, MQA */
    "2 5 12 4 2 0 0 0",  /* batch 2, an odd d_head */
    "2 7 16 4 2 1 2 1",  /* all of it, batch 2 */
    "1 20 32 4 2 1 0 0", /* past the tenths: scaled weights */
};
#define N_CONFIGS (int)(sizeof configs / sizeof configs[0])

/* Runs pn's lines in a new playground of run m until one at line `from`
 * or after assigns name; returns that result's tensor
 * (an alias, the caller frees it). */
static Tensor *run_panel(const Mha *m, const MhaPanel *pn, int from, const char *name,
                         const char *what)
{
    Play *p = mha_play_new(m);
    ck_assert_ptr_nonnull(p);
    PlayResult r;
    memset(&r, 0, sizeof r);
    Tensor *got = NULL;
    for (int i = 0; i < pn->n && !got; i++) {
        PlayKind k = play_eval(p, pn->line[i], &r); /* a tensor, or a, b = a tuple */
        ck_assert_msg(k == PR_TENSOR || k == PR_TUPLE, "%s: line %d `%s`: %s", what, i + 1,
                      pn->line[i], r.error);
        if (k == PR_TENSOR && i >= from && !strcmp(r.name, name)) got = tensorops_alias(r.t);
    }
    ck_assert_msg(got != NULL, "%s: no line makes %s", what, name);
    play_result_clear(&r);
    play_free(p);
    return got;
}

START_TEST(the_panel_program_computes_out)
{
    for (int ci = 0; ci < N_CONFIGS; ci++) {
        Mha *m = tu_run_flags(configs[ci]);
        MhaPanel pn;
        mha_panel(&m->cfg, MV_STEP, &pn);
        ck_assert_int_eq(pn.bug, -1);
        ck_assert_int_ge(pn.n, 8);
        ck_assert(!strncmp(pn.line[pn.n - 1], "out = ", 6)); /* out is its last line's */
        Tensor *y = run_panel(m, &pn, pn.n - 1, "out", configs[ci]);
        tu_same_bits(y, m->t[MT_OUT], configs[ci]);
        tensor_free(y);
        mha_free(m);
    }
}
END_TEST

/* The panel copies what the run copies, byte for byte: GQA's K and V are
 * shared with stride 0 as in the run, never repeated (a copy the run does
 * not make, under its "0 B copied"). */
START_TEST(the_panel_copies_what_the_run_copies)
{
    for (int ci = 0; ci < N_CONFIGS; ci++) {
        Mha *m = tu_run_flags(configs[ci]);
        MhaPanel pn;
        mha_panel(&m->cfg, MV_STEP, &pn);
        Play *p = mha_play_new(m);
        PlayResult r;
        memset(&r, 0, sizeof r);
        size_t panel = 0, ran = 0;
        for (int i = 0; i < pn.n; i++) {
            PlayKind k = play_eval(p, pn.line[i], &r);
            ck_assert_msg(k == PR_TENSOR || k == PR_TUPLE, "%s: %s", configs[ci], r.error);
            panel += r.copied_bytes;
        }
        for (int s = 0; s < MS_ALL; s++)
            ran += m->steps[s].bytes_copied;
        ck_assert_msg(panel == ran, "%s: the panel copies %zu bytes, the run %zu", configs[ci],
                      panel, ran);
        play_result_clear(&r);
        play_free(p);
        mha_free(m);
    }
}
END_TEST

/* Each line is the config's: RoPE's only with RoPE on, K and V shared only
 * when KV < H, the mask's only with causal, the band only with a window;
 * and every line fits the panel. */
START_TEST(its_lines_are_the_configs)
{
    for (int ci = 0; ci < N_CONFIGS; ci++) {
        Mha *m = tu_run_flags(configs[ci]);
        const MhaConfig *c = &m->cfg;
        MhaPanel pn;
        mha_panel(c, MV_STEP, &pn);
        int rope = 0, share = 0, mask = 0, band = 0;
        for (int i = 0; i < pn.n; i++) {
            const char *l = pn.line[i];
            ck_assert_msg(strlen(l) <= MHA_PANEL_W, "%s: `%s` is wider than the panel", configs[ci],
                          l);
            ck_assert(!strchr(l, '"') && !strchr(l, '\\')); /* the export prints them as they are */
            rope += strstr(l, "rope(") != NULL;
            share += strstr(l, "unsqueeze(2)") != NULL || strstr(l, "G, S, S)") != NULL;
            ck_assert_msg(!strstr(l, "repeat"), "%s: `%s` copies", configs[ci], l);
            mask += strstr(l, "masked_fill") != NULL;
            band += strstr(l, ">= W") != NULL;
        }
        ck_assert_int_eq(rope, c->rope != ROPE_OFF);
        ck_assert_int_eq(share, c->kv_heads < c->heads ? 2 : 0);
        ck_assert_int_eq(mask, c->causal);
        ck_assert_int_eq(band, c->window > 0);
        mha_free(m);
    }
}
END_TEST

/* Every step of the run lights a part of a line (the input none); the
 * steps run in the program's order. */
START_TEST(each_step_lights_its_lines)
{
    for (int ci = 0; ci < N_CONFIGS; ci++) {
        Mha *m = tu_run_flags(configs[ci]);
        const MhaConfig *c = &m->cfg;
        MhaPanel pn;
        mha_panel(c, MV_STEP, &pn);
        int prev = 0, last, len;
        ck_assert_int_eq(mha_panel_first_lit(&pn, MS_INPUT, &last), -1);
        for (int k = 1; k < mha_step_total(c); k++) {
            int s = mha_step_at(c, k), first = mha_panel_first_lit(&pn, s, &last);
            ck_assert_msg(first >= 0, "%s: step %s lights no line", configs[ci], mha_steps[s].name);
            ck_assert_msg(last >= prev, "%s: step %s lights line %d, before %d", configs[ci],
                          mha_steps[s].name, last + 1, prev + 1);
            prev = last;
            const char *at = mha_panel_lit(&pn, last, s, &len);
            ck_assert_ptr_nonnull(at);
            ck_assert_int_gt(len, 0);
            ck_assert(at + len <= pn.line[last] + strlen(pn.line[last]));
        }
        ck_assert_int_eq(prev, pn.n - 1); /* the output projection: the last line */
        mha_free(m);
    }
}
END_TEST

/* A failure picture's program is the step program with one line replaced
 * by its bug, the line the run executed as it reads: up to the name the
 * failure shows, it gives the run's tensor. */
START_TEST(the_failure_programs_compute_the_bugs)
{
    for (int ci = 0; ci < N_CONFIGS; ci++) {
        Mha *m = tu_run_flags(configs[ci]);
        MhaPanel ok;
        mha_panel(&m->cfg, MV_STEP, &ok);
        for (int v = MV_WRONG_VIEW; v < MV_COUNT; v++) {
            MhaPanel pn;
            mha_panel(&m->cfg, (MhaView)v, &pn);
            ck_assert_int_ge(pn.bug, 0);
            ck_assert_int_eq(pn.n, ok.n);
            for (int i = 0; i < pn.n; i++)
                if (i == pn.bug)
                    ck_assert_str_eq(pn.line[i], mha_views[v].code);
                else
                    ck_assert_str_eq(pn.line[i], ok.line[i]);
            ck_assert(strlen(mha_views[v].code) <= MHA_PANEL_W);
            int len;
            ck_assert_ptr_eq(mha_panel_lit(&pn, pn.bug, MS_INPUT, &len), pn.line[pn.bug]);
            ck_assert_ptr_null(mha_panel_lit(&pn, pn.n - 1, MS_OUT, &len));
            Tensor *t = run_panel(m, &pn, pn.bug, mha_views[v].name, mha_views[v].code);
            tu_same_bits(t, m->t[mha_views[v].tensor], mha_views[v].code);
            tensor_free(t);
        }
        /* the bug is a bug: the noscale picture is not the run's attn (at
         * seq 1 every softmax row is one 1) */
        if (m->cfg.seq > 1) {
            const Tensor *a = m->t[MT_ATTN], *b = m->t[MT_ATTN_NOSCALE];
            int idx[4] = {0, 0, m->cfg.seq - 1, 0}, differ = 0;
            for (; !differ && idx[3] < m->cfg.seq; idx[3]++)
                differ = tensor_get(a, idx) != tensor_get(b, idx);
            ck_assert_msg(differ, "%s: attn_noscale is attn", configs[ci]);
        }
        mha_free(m);
    }
}
END_TEST

static Suite *mha_panel_suite(void)
{
    Suite *s = suite_create("mha_panel");
    TCase *tc = tcase_create("mha_panel");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, the_panel_program_computes_out);
    tcase_add_test(tc, its_lines_are_the_configs);
    tcase_add_test(tc, each_step_lights_its_lines);
    tcase_add_test(tc, the_failure_programs_compute_the_bugs);
    tcase_add_test(tc, the_panel_copies_what_the_run_copies);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(mha_panel_suite)
