/* check_fuzz.c - replays, without clang, every input the fuzzers must keep
 * passing: the past findings (tests/fuzz/regress/NAME/), the hand-written
 * seeds (tests/fuzz/seeds/NAME/) and the real and bad files each reader is
 * seeded with, through the very targets `make fuzz` runs (tests/fuzz/).  A
 * crash, a sanitizer report (in the ASan build) or a broken invariant stops
 * the suite with the target's message. */
#include <check.h>
#include <glob.h>

/* Each target defines LLVMFuzzerTestOneInput: one name each here. */
#define LLVMFuzzerTestOneInput fuzz_one_cli
#include "fuzz/fuzz_cli.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_lesson
#include "fuzz/fuzz_lesson.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_expand
#include "fuzz/fuzz_expand.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_answer
#include "fuzz/fuzz_answer.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_progress
#include "fuzz/fuzz_progress.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_presets
#include "fuzz/fuzz_presets.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_history
#include "fuzz/fuzz_history.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_quiz_read
#include "fuzz/fuzz_quiz_read.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_quiz_bank
#include "fuzz/fuzz_quiz_bank.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_one_play
#include "fuzz/fuzz_play.c"
#undef LLVMFuzzerTestOneInput

static const struct {
    const char *name;
    int (*one)(const uint8_t *data, size_t size);
    const char *real[3]; /* the files the reader is seeded with, as in tests/fuzz/run.sh */
} targets[] = {
    {"cli", fuzz_one_cli, {0}},
    {"lesson", fuzz_one_lesson, {"lessons/*.lesson", "tests/lessons-bad/*"}},
    {"expand", fuzz_one_expand, {"lessons/*.lesson"}},
    {"answer", fuzz_one_answer, {0}},
    {"progress", fuzz_one_progress, {0}},
    {"presets", fuzz_one_presets, {"assets/*.presets"}},
    {"history", fuzz_one_history, {0}},
    {"quiz_read", fuzz_one_quiz_read, {"lessons/*.quiz", "tests/quiz-bad/*"}},
    {"quiz_bank", fuzz_one_quiz_bank, {"lessons/*.quiz", "tests/quiz-bad/*"}},
    {"play", fuzz_one_play, {0}},
};
#define N_TARGETS (int)(sizeof targets / sizeof targets[0])

/* Runs target t on every file matching pattern; returns how many. */
static int replay(int t, const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g)) return 0;
    int n = 0;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        FILE *f = fopen(g.gl_pathv[i], "rb");
        ck_assert_msg(f != NULL, "cannot open %s", g.gl_pathv[i]);
        static uint8_t buf[1 << 20];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        uint8_t *copy = malloc(len ? len : 1); /* exactly len bytes: ASan sees overreads */
        ck_assert_ptr_nonnull(copy);
        memcpy(copy, buf, len);
        ck_assert_int_eq(targets[t].one(copy, len), 0);
        free(copy);
        n++;
    }
    globfree(&g);
    return n;
}

START_TEST(every_seed_and_finding_passes)
{
    char pattern[128];
    int seeds = 0, found = 0;
    snprintf(pattern, sizeof pattern, "tests/fuzz/seeds/%s/*", targets[_i].name);
    seeds += replay(_i, pattern);
    for (int k = 0; k < 3 && targets[_i].real[k]; k++)
        seeds += replay(_i, targets[_i].real[k]);
    snprintf(pattern, sizeof pattern, "tests/fuzz/regress/%s/*", targets[_i].name);
    found = replay(_i, pattern);
    ck_assert_msg(seeds > 0, "fuzz target %s has no seed (run from the repo root)",
                  targets[_i].name);
    printf("fuzz %-9s: %3d seeds and %2d past findings replayed\n", targets[_i].name, seeds, found);
}
END_TEST

START_TEST(empty_input_passes)
{
    for (int t = 0; t < N_TARGETS; t++)
        ck_assert_int_eq(targets[t].one((const uint8_t *)"", 0), 0);
}
END_TEST

static Suite *fuzz_suite(void)
{
    Suite *s = suite_create("fuzz replay");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_seed_and_finding_passes, 0, N_TARGETS);
    tcase_add_test(tc, empty_input_passes);
    suite_add_tcase(s, tc);
    return s;
}

/* CHECK_MAIN's main, written out: check_main.h's state_dir fixture has the
 * name of the state_dir() that fuzz_history.c calls. */
int main(void)
{
    SRunner *sr = srunner_create(fuzz_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
