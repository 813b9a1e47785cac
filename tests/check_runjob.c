/* check_runjob.c - a big configuration computed beside the loop (ui/runjob.c
 * through ui_set_config): the previous run stays until the new one is in,
 * Esc's ui_cancel_run keeps it, the newest request wins, and the run made in
 * the worker is the run made inline, ids and byte counts included. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app_fixture.h"
#include "check_main.h"
#include "ui/runjob.h"

/* A config over runjob_worth's bar that ASan still runs in about a second. */
static MhaConfig big(uint32_t seed)
{
    MhaConfig c = mha_config_default();
    c.seq = 256, c.d_model = 512, c.heads = c.kv_heads = 8, c.seed = seed;
    return c;
}

static void bg_ui(Ui *ui)
{
    memset(ui, 0, sizeof *ui);
    ui->background = 1;
    MhaConfig c = mha_config_default();
    ck_assert_int_eq(ui_set_config(ui, &c), 0); /* small: inline */
}

/* Polls as the screen stack does until the run is in (at most two minutes, for ASan). */
static void wait_run(Ui *ui)
{
    for (int i = 0; i < 120000 && !ui_poll_run(ui); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    ck_assert_ptr_null(ui->job);
}

START_TEST(test_worth)
{
    MhaConfig c = mha_config_default();
    ck_assert(!runjob_worth(&c));
    c.seq = 8, c.d_model = 64; /* what the quick keys reach */
    ck_assert(!runjob_worth(&c));
    c.seq = c.d_model = 512;
    ck_assert(runjob_worth(&c));
    c.seq = c.d_model = 1024;
    ck_assert(runjob_worth(&c));
}
END_TEST

START_TEST(test_aside_then_in)
{
    Ui ui;
    bg_ui(&ui);
    Mha *before = ui.mha;
    MhaConfig want = big(3);
    ck_assert_int_eq(ui_set_config(&ui, &want), 1);
    ck_assert_ptr_nonnull(ui.job);
    ck_assert_ptr_eq(ui.mha, before); /* the old run is drawn meanwhile */
    ck_assert_int_eq(ui.cfg.seq, 4);
    char line[160];
    ck_assert_int_eq(ui_run_line(&ui, line, sizeof line), 1);
    ck_assert_msg(strstr(line, "computing seq 256, d_model 512") && strstr(line, "Esc cancels"),
                  "%s", line);
    wait_run(&ui);
    ck_assert_int_eq(ui_run_line(&ui, line, sizeof line), 0);
    ck_assert(mha_config_same(&ui.cfg, &want));
    ck_assert(mha_config_same(&ui.mha->cfg, &want));
    ck_assert_msg(!strncmp(ui.status, "now seq 256, d_model 512", 24), "%s", ui.status);

    /* the same run as inline: values, storage ids and the copy counts */
    Mha *inl = mha_run(&want, NULL, 0);
    ck_assert_ptr_nonnull(inl);
    for (int i = 0; i < MT_COUNT; i++) {
        const Tensor *a = ui.mha->t[i], *b = inl->t[i];
        ck_assert((a == NULL) == (b == NULL)); /* the RoPE tensors: absent in both */
        if (!a) continue;
        ck_assert_int_eq(a->st->id, b->st->id);
        ck_assert_uint_eq(a->st->n, b->st->n);
        ck_assert_msg(!memcmp(a->st->data, b->st->data, a->st->n * sizeof(float)), "%s differs",
                      mha_tensor_names[i]);
    }
    for (int s = 0; s < MS_COUNT; s++)
        ck_assert_uint_eq(ui.mha->steps[s].bytes_copied, inl->steps[s].bytes_copied);
    ck_assert_uint_eq(ui.mha->bytes_copied_total, inl->bytes_copied_total);
    mha_free(inl);
    ui_free(&ui);
}
END_TEST

START_TEST(test_cancel_keeps_the_last_run)
{
    Ui ui;
    bg_ui(&ui);
    Mha *before = ui.mha;
    MhaConfig want = big(4), was = ui.cfg;
    ck_assert_int_eq(ui_set_config(&ui, &want), 1);
    ck_assert_int_eq(ui_cancel_run(&ui), 1);
    ck_assert_ptr_null(ui.job);
    ck_assert_ptr_eq(ui.mha, before);
    ck_assert(mha_config_same(&ui.cfg, &was));
    ck_assert_msg(!strncmp(ui.status, "cancelled: still seq 4, d_model 8", 33), "%s", ui.status);
    ck_assert_int_eq(ui_cancel_run(&ui), 0); /* nothing left to cancel */
    ck_assert_int_eq(ui_poll_run(&ui), 0);
    ui_free(&ui);
}
END_TEST

START_TEST(test_newest_request_wins)
{
    Ui ui;
    bg_ui(&ui);
    MhaConfig a = big(5), b = big(6), small = mha_config_default();
    ck_assert_int_eq(ui_set_config(&ui, &a), 1);
    ck_assert_int_eq(ui_set_config(&ui, &b), 1); /* a is cancelled */
    wait_run(&ui);
    ck_assert_uint_eq(ui.cfg.seed, 6);
    /* a small one while a big one computes: the big one is dropped */
    ck_assert_int_eq(ui_set_config(&ui, &a), 1);
    small.seed = 9;
    ck_assert_int_eq(ui_set_config(&ui, &small), 0);
    ck_assert_ptr_null(ui.job);
    ck_assert_uint_eq(ui.cfg.seed, 9);
    /* an invalid one is refused and leaves the computing run alone */
    ck_assert_int_eq(ui_set_config(&ui, &a), 1);
    MhaConfig bad = a;
    bad.heads = 3;
    ck_assert_int_eq(ui_set_config(&ui, &bad), -1);
    ck_assert_ptr_nonnull(ui.job);
    ui_free(&ui); /* cancels it: nothing leaks (ASan) */
    ck_assert_ptr_null(ui.job);
}
END_TEST

START_TEST(test_not_aside_without_background)
{
    Ui ui;
    memset(&ui, 0, sizeof ui);
    MhaConfig want = big(7);
    ck_assert_int_eq(ui_set_config(&ui, &want), 0); /* quiz --plain and the tests: inline */
    ck_assert_ptr_null(ui.job);
    ck_assert_uint_eq(ui.cfg.seed, 7);
    ui_free(&ui);
}
END_TEST

static Suite *runjob_suite(void)
{
    Suite *s = suite_create("runjob");
    TCase *t = tcase_create("aside");
    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_worth);
    tcase_add_test(t, test_aside_then_in);
    tcase_add_test(t, test_cancel_keeps_the_last_run);
    tcase_add_test(t, test_newest_request_wins);
    tcase_add_test(t, test_not_aside_without_background);
    suite_add_tcase(s, t);
    return s;
}

CHECK_MAIN(runjob_suite)
