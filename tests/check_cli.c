/* check_cli.c - the shared flag parser: "--flag value" and "--flag=value",
 * whole numbers in range, one-line errors that name the flag. */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cmd/cli.h"
#include "engine/mha.h"

static char err[256];

/* Parses argv (NULL-terminated) the way every command does; returns the
 * first non-zero result of cli_config_flag, or 0 when all were flags. */
static int parse(MhaConfig *c, int *kv_set, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    *c = mha_config_default();
    *kv_set = 0;
    for (int i = 0; i < argc; i++) {
        int r = cli_config_flag(argc, argv, &i, c, kv_set, err, sizeof err);
        if (r <= 0) return r == 0 ? 2 : -1;
    }
    return 0;
}
#define ARGV(...) ((char *[]){__VA_ARGS__, NULL})

START_TEST(test_match_forms)
{
    char *argv[] = {"--heads", "4", "--heads=6", "--headsx", "--heads", "--causal", "--causal=1"};
    const char *val = NULL;
    int i = 0;
    ck_assert_int_eq(cli_match(7, argv, &i, "--heads", &val, err, sizeof err), 1);
    ck_assert_str_eq(val, "4");
    ck_assert_int_eq(i, 1); /* advanced past the separate value */
    i = 2;
    ck_assert_int_eq(cli_match(7, argv, &i, "--heads", &val, err, sizeof err), 1);
    ck_assert_str_eq(val, "6");
    ck_assert_int_eq(i, 2);
    i = 3;
    ck_assert_int_eq(cli_match(7, argv, &i, "--heads", &val, err, sizeof err), 0);
    i = 4; /* "--heads" followed by another flag: takes it as the value */
    ck_assert_int_eq(cli_match(7, argv, &i, "--heads", &val, err, sizeof err), 1);
    ck_assert_str_eq(val, "--causal");
    i = 5;
    ck_assert_int_eq(cli_match(7, argv, &i, "--causal", NULL, err, sizeof err), 1);
    i = 6;
    ck_assert_int_eq(cli_match(7, argv, &i, "--causal", NULL, err, sizeof err), -1);
    ck_assert_str_eq(err, "--causal takes no value");
    char *last[] = {"--seq"};
    i = 0;
    ck_assert_int_eq(cli_match(1, last, &i, "--seq", &val, err, sizeof err), -1);
    ck_assert_str_eq(err, "--seq needs a value");
}
END_TEST

START_TEST(test_long)
{
    long v = 0;
    ck_assert_int_eq(cli_long("--seq", "12", 1, 1024, &v, err, sizeof err), 0);
    ck_assert_int_eq(v, 12);
    ck_assert_int_eq(cli_long("--seq", "1024", 1, 1024, &v, err, sizeof err), 0);
    ck_assert_int_eq(cli_long("--seq", "1025", 1, 1024, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, "--seq 1025: must be between 1 and 1024");
    ck_assert_int_eq(cli_long("--seq", "0", 1, 1024, &v, err, sizeof err), -1);
    ck_assert_str_eq(err, "--seq 0: must be between 1 and 1024");
    ck_assert_int_eq(cli_long("--seq", "-4", 1, 1024, &v, err, sizeof err), -1);
    ck_assert_int_eq(cli_long("--seq", "99999999999999999999999", 1, 1024, &v, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "--seq 99999999999999999999999: must be between 1 and 1024");
    /* one rule for every number flag: digits only (" 5" and "+5" used to pass) */
    static const char *nan[] = {"abc", "", "4x", "1.5", "0x10", "4 ", " 4", "+4", "\t4", "-"};
    for (size_t k = 0; k < sizeof nan / sizeof *nan; k++) {
        ck_assert_int_eq(cli_long("--heads", nan[k], 1, 8, &v, err, sizeof err), -1);
        ck_assert_ptr_nonnull(strstr(err, "--heads: '"));
        ck_assert_ptr_nonnull(strstr(err, "is not a whole number"));
    }
    ck_assert_int_eq(v, 1024); /* untouched by the failures */
    /* a long junk value is cut, the message stays one short line */
    char junk[300];
    memset(junk, 'z', sizeof junk - 1);
    junk[sizeof junk - 1] = 0;
    ck_assert_int_eq(cli_long("--seed", junk, 0, 10, &v, err, sizeof err), -1);
    ck_assert_uint_lt(strlen(err), 80);
}
END_TEST

START_TEST(test_config_flags)
{
    MhaConfig c;
    int kv;
    ck_assert_int_eq(parse(&c, &kv,
                           ARGV("--batch", "2", "--seq=5", "--d-model", "12", "--heads", "6",
                                "--kv-heads", "2", "--seed", "3", "--causal")),
                     0);
    ck_assert_int_eq(c.batch, 2);
    ck_assert_int_eq(c.seq, 5);
    ck_assert_int_eq(c.d_model, 12);
    ck_assert_int_eq(c.heads, 6);
    ck_assert_int_eq(c.kv_heads, 2);
    ck_assert_uint_eq(c.seed, 3);
    ck_assert_int_eq(c.causal, 1);
    ck_assert_int_eq(kv, 1);
    ck_assert_int_eq(parse(&c, &kv, ARGV("--heads", "4")), 0);
    ck_assert_int_eq(kv, 0); /* the command then sets kv_heads = heads */
    ck_assert_int_eq(parse(&c, &kv, ARGV("--seed", "4294967295")), 0);
    ck_assert_uint_eq(c.seed, 4294967295u);
    ck_assert_int_eq(parse(&c, &kv, ARGV("--seed", "0")), 0);
    ck_assert_uint_eq(c.seed, 0);

    ck_assert_int_eq(parse(&c, &kv, ARGV("--bogus")), 2); /* not ours: the command says so */
    ck_assert_int_eq(parse(&c, &kv, ARGV("--heads", "x")), -1);
    ck_assert_str_eq(err, "--heads: 'x' is not a whole number");
    ck_assert_int_eq(parse(&c, &kv, ARGV("--kv-heads")), -1);
    ck_assert_str_eq(err, "--kv-heads needs a value");
    ck_assert_int_eq(parse(&c, &kv, ARGV("--seed", "-1")), -1);
    ck_assert_str_eq(err, "--seed -1: must be between 0 and 4294967295");
    ck_assert_int_eq(parse(&c, &kv, ARGV("--seed", "4294967296")), -1);
    ck_assert_int_eq(parse(&c, &kv, ARGV("--batch", "65")), -1);
    ck_assert_str_eq(err, "--batch 65: must be between 1 and 64");
    ck_assert_int_eq(parse(&c, &kv, ARGV("--d-model", "0")), -1);
    ck_assert_str_eq(err, "--d-model 0: must be between 1 and 1024");
    ck_assert_int_eq(parse(&c, &kv, ARGV("--causal=yes")), -1);
    ck_assert_ptr_nonnull(strstr(cli_config_help, "--kv-heads"));
}
END_TEST

START_TEST(test_rope_flags)
{
    MhaConfig c;
    int kv;
    ck_assert_int_eq(parse(&c, &kv, ARGV("--heads", "4")), 0);
    ck_assert_int_eq(c.rope, ROPE_OFF); /* off by default, theta 10000 */
    ck_assert(c.rope_theta == 10000);
    ck_assert_int_eq(parse(&c, &kv, ARGV("--rope", "half", "--rope-theta", "500000")), 0);
    ck_assert_int_eq(c.rope, ROPE_HALF);
    ck_assert(c.rope_theta == 500000);
    ck_assert_int_eq(parse(&c, &kv, ARGV("--rope=interleaved", "--rope-theta=0.5")), 0);
    ck_assert_int_eq(c.rope, ROPE_INTERLEAVED);
    ck_assert(c.rope_theta == 0.5);
    const char *bad[][2] = {{"--rope", "neox"},     {"--rope", ""},          {"--rope-theta", "0"},
                            {"--rope-theta", "-1"}, {"--rope-theta", "1e4"}, {"--rope-theta", "x"},
                            {"--rope-theta", "1."}, {"--rope-theta", " 5"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(parse(&c, &kv, ARGV((char *)bad[i][0], (char *)bad[i][1])), -1);
        ck_assert_msg(!strncmp(err, bad[i][0], strlen(bad[i][0])), "%s %s: %s", bad[i][0],
                      bad[i][1], err);
        ck_assert_ptr_nonnull(strchr(err, '\'')); /* the value, quoted */
    }
    ck_assert_int_eq(parse(&c, &kv, ARGV("--rope")), -1);
    ck_assert_ptr_nonnull(strstr(err, "--rope needs a value"));
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("flags");
    tcase_add_test(tc, test_match_forms);
    tcase_add_test(tc, test_long);
    tcase_add_test(tc, test_config_flags);
    tcase_add_test(tc, test_rope_flags);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(cli_suite)
