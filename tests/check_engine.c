/* check_engine.c - the engine context (engine/tensor.h, Engine): storage
 * labels and copied bytes are per run, so two runs alive at once (the app's
 * and a lesson page's) never hand one label to two storages, and a
 * playground session labels its new storages after the run it preloads. */
#include <check.h>
#include <string.h>

#include "app_fixture.h"
#include "check_main.h"
#include "engine/mha.h"
#include "engine/play.h"
#include "ui/decode.h"
#include "ui/flash_screen.h"
#include "ui/lessonui.h"
#include "ui/play.h"
#include "ui/quiz_screen.h"

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
    Play *p = mha_play_new(app);
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

/* The storages of run m (NULL: none): no two share a label, and every label
 * is one its engine gave (below next_id). */
static void assert_labels_unique(const Mha *m, const char *when)
{
    if (!m) return;
    for (int i = 0; i < MT_COUNT; i++) {
        if (!m->t[i]) continue;
        const Storage *a = m->t[i]->st;
        ck_assert_ptr_eq(a->eng, m->eng);
        ck_assert_msg(a->id >= 1 && a->id < m->eng->next_id, "%s: %s is S%d, next is S%d", when,
                      mha_tensor_names[i], a->id, m->eng->next_id);
        for (int j = 0; j < i; j++)
            if (m->t[j] && m->t[j]->st != a)
                ck_assert_msg(m->t[j]->st->id != a->id, "%s: %s and %s are both S%d", when,
                              mha_tensor_names[j], mha_tensor_names[i], a->id);
    }
}

static void show(Screen *s, Ui *ui)
{
    screen_tick(s, ui, 0.0); /* as the screen stack: tick, then draw */
    canvas_free(draw(s, ui, 120, 40));
}

/* Every screen of the home menu opened in turn and kept open (each makes its
 * runs: lesson 7's page, the quiz's picture, decode, tiles, variants), then
 * Explore: the app's run still has one label per storage, and the statement
 * typed in Explore gets the first label after the run's. */
START_TEST(every_screen_in_turn_keeps_labels_unique)
{
    state_dir_setup();
    Ui ui;
    ui_with(&ui, NULL, NULL);
    ui.no_save = 1;
    Screen *(*const opens[])(Ui *) = {walk_open,         lessons_open,  quiz_open,   play_open,
                                      walk_open_explore, variants_open, kvcalc_open, decode_open,
                                      lessons_continue,  flash_open,    help_open,   home_open};
    enum { N = sizeof opens / sizeof *opens };
    Screen *open[N + 2];
    int n = 0;
    for (int i = 0; i < N; i++) {
        Screen *s = opens[i](&ui);
        ck_assert_ptr_nonnull(s);
        show(s, &ui);
        open[n++] = s;
        assert_labels_unique(ui.mha, s->title);
    }
    /* lesson 7, on to its page with @config heads=1 seq=6 */
    ck_assert_int_eq(press(open[1], &ui, '7'), UI_PUSH | UI_REDRAW);
    Screen *page = pushed;
    open[n++] = page;
    int k = 0;
    while (!shows(page, &ui, 120, 40, "Forgetting 1/sqrt(d_head)")) {
        ck_assert_int_lt(++k, 60);
        press(page, &ui, UI_K_PGDN);
        show(page, &ui);
    }
    assert_labels_unique(ui.mha, "lesson 7");
    /* Explore again, after all of them */
    Screen *play = play_open(&ui);
    open[n++] = play;
    int fresh = ui.mha->eng->next_id;
    for (const char *c = "torch.arange(24)"; *c; c++)
        press(play, &ui, (unsigned char)*c);
    press(play, &ui, UI_K_ENTER);
    char want[48];
    snprintf(want, sizeof want, "storage S%d: ", fresh);
    ck_assert_msg(shows(play, &ui, 120, 40, want), "Explore's torch.arange(24) is not S%d", fresh);
    assert_labels_unique(ui.mha, "Explore");
    while (n > 0)
        n--, screen_close(open[n]);
    ui_free(&ui);
    state_dir_teardown();
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, lesson7_then_explore_gets_a_fresh_label);
    tcase_add_test(tc, runs_number_and_count_on_their_own);
    tcase_add_test(tc, every_screen_in_turn_keeps_labels_unique);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(engine_suite)
