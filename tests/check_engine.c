/* check_engine.c - the engine context (engine/tensor.h, Engine): storage
 * labels and copied bytes are per run, so two runs alive at once (the app's
 * and a lesson page's) never hand one label to two storages, and a
 * playground session labels its new storages after the run it preloads. */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "content/play.h"
#include "engine/mha.h"

static Mha *run(int d_model, int heads, int seq, unsigned seed)
{
    char err[200];
    MhaConfig c = mha_config_default();
    c.d_model = d_model, c.heads = heads, c.kv_heads = heads, c.seq = seq, c.seed = seed;
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

/* Issue 16, finding 2: after lesson 7's `@config heads=1 seq=6` has run (its
 * page keeps the run open), torch.arange(24) typed in Explore got a label one
 * of the app run's storages already had. */
START_TEST(lesson7_then_explore_gets_a_fresh_label)
{
    Mha *app = run(8, 2, 4, 1);
    Mha *lesson = run(12, 1, 6, 9); /* 07-failures.lesson: d_model=12 heads=1 seq=6 seed=9 */
    Play *p = play_new(app);
    ck_assert_ptr_nonnull(p);
    PlayResult r;
    memset(&r, 0, sizeof r);
    /* the sequence (the second arange), then a copy of a preloaded tensor */
    static const char *const lines[] = {"torch.arange(24)", "torch.arange(24)",
                                        "Q_heads.contiguous()"};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(play_eval(p, lines[k], &r), PR_TENSOR);
        for (int i = 0; i < p->n; i++)
            ck_assert_msg(p->vars[i].t->st->id != r.t->st->id, "%s is S%d, already %s's storage",
                          lines[k], r.t->st->id, p->vars[i].name);
    }
    play_result_clear(&r);
    play_free(p);
    mha_free(lesson);
    mha_free(app);
}
END_TEST

/* Two runs alive at once: each numbers its storages from S1 and counts only
 * its own copied bytes, whatever ran in between. */
START_TEST(runs_number_and_count_on_their_own)
{
    Mha *a = run(8, 2, 4, 1);
    Mha *b = run(12, 1, 6, 9);
    Mha *a2 = run(8, 2, 4, 1);
    ck_assert_int_eq(a->t[MT_X]->st->id, 1);
    ck_assert_int_eq(b->t[MT_X]->st->id, 1);
    for (int i = 0; i < MT_COUNT; i++)
        if (a->t[i]) ck_assert_int_eq(a->t[i]->st->id, a2->t[i]->st->id);
    ck_assert_uint_eq(a->bytes_copied_total, a2->bytes_copied_total);
    mha_free(b);
    mha_free(a2);
    mha_free(a);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, lesson7_then_explore_gets_a_fresh_label);
    tcase_add_test(tc, runs_number_and_count_on_their_own);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(engine_suite)
