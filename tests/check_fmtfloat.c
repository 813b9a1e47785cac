/* check_fmtfloat.c - the shortest round-trip float text (src/base/fmtfloat.c):
 * its layout, every edge of float32, and a few million random bit patterns
 * read back with strtof.  `make fmtfloat-all` checks all 2^32 of them. */
#include <check.h>
#include <float.h>
#include <stdint.h>

#include "check_main.h"
#include "fmtfloat_oracle.h"

static const char *fmt(float v)
{
    static char buf[FMTFLOAT_SIZE];
    fmtfloat_write(buf, v);
    return buf;
}

static void assert_right(uint32_t bits)
{
    char why[160];
    if (oracle_check(bits, why, sizeof why)) ck_abort_msg("%s", why);
}

static float from_bits(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

START_TEST(writes_the_shortest_text)
{
    ck_assert_str_eq(fmt(0.1f), "0.1");
    ck_assert_str_eq(fmt(1.0f), "1");
    ck_assert_str_eq(fmt(-2.5f), "-2.5");
    ck_assert_str_eq(fmt(0.0f), "0");
    ck_assert_str_eq(fmt(-0.0f), "-0");
    ck_assert_str_eq(fmt(123.456f), "123.456");
    ck_assert_str_eq(fmt(1.0f / 3.0f), "0.33333334");
    ck_assert_str_eq(fmt(0.0001f), "0.0001");
    ck_assert_str_eq(fmt(0.00001f), "1e-05");
    ck_assert_str_eq(fmt(100000000.0f), "100000000");
    ck_assert_str_eq(fmt(1e9f), "1e+09");
    ck_assert_str_eq(fmt(16777216.0f), "16777216");
    ck_assert_str_eq(fmt(16777217.0f), "16777216"); /* 2^24 + 1 is not a float */
    ck_assert_str_eq(fmt(FLT_MAX), "3.4028235e+38");
    ck_assert_str_eq(fmt(FLT_MIN), "1.1754944e-38");
    ck_assert_str_eq(fmt(FLT_TRUE_MIN), "1e-45");
    ck_assert_str_eq(fmt(-FLT_TRUE_MIN), "-1e-45");
    ck_assert_str_eq(fmt(from_bits(0x7f800000u)), "inf");
    ck_assert_str_eq(fmt(from_bits(0xff800000u)), "-inf");
    ck_assert_str_eq(fmt(from_bits(0x7fc00000u)), "nan");
    ck_assert_str_eq(fmt(from_bits(0xffc00001u)), "nan");
}
END_TEST

START_TEST(reads_back_at_every_edge)
{
    static const float edges[] = {
        0.0f,        FLT_MIN,    FLT_MAX, FLT_TRUE_MIN,  FLT_EPSILON, 16777215.0f, 16777216.0f,
        16777218.0f, 8388607.5f, 0.5f,    0.25f,         3.0f,        1e-38f,      9.999999e-39f,
        1e38f,       2e-45f,     3e-45f,  7.038531e-26f, 33554432.0f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        assert_right(oracle_bits(edges[i]));
        assert_right(oracle_bits(-edges[i]));
        assert_right(oracle_bits(edges[i]) + 1); /* the neighbours too */
        if (edges[i] != 0) assert_right(oracle_bits(edges[i]) - 1);
    }
    /* every subnormal near both ends, every power of two, every power of ten
     * and its neighbours, inf and a few nans */
    for (uint32_t b = 0; b < 5000; b++) {
        assert_right(b);
        assert_right(0x00800000u - b);
    }
    for (uint32_t e = 0; e < 255; e++)
        for (uint32_t f = 0; f < 3; f++) {
            assert_right(e << 23 | f);
            assert_right((e << 23 | 0x7fffffu) - f);
        }
    for (int p = -45; p <= 38; p++) {
        char t[16];
        snprintf(t, sizeof t, "1e%d", p);
        uint32_t b = oracle_bits(strtof(t, NULL));
        for (uint32_t d = 0; d < 3; d++) {
            assert_right(b + d);
            if (b > d) assert_right(b - d);
        }
    }
    for (uint32_t b = 0x7f800000u; b < 0x7f800010u; b++) {
        assert_right(b);
        assert_right(b | 0x80000000u);
    }
}
END_TEST

/* xorshift64*, fixed seed: the same patterns on every run */
static uint32_t next_bits(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return (uint32_t)((*s * 2685821657736338717ull) >> 32);
}

START_TEST(reads_back_for_random_bit_patterns)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000000; i++)
        assert_right(next_bits(&s));
}
END_TEST

START_TEST(reads_back_for_random_values_near_one)
{
    /* the values export prints most: |x| in [1e-4, 1e3), every exponent */
    uint64_t s = 12345;
    for (int i = 0; i < 1000000; i++) {
        uint32_t b = next_bits(&s);
        assert_right((b & 0x807fffffu) | (uint32_t)(113 + (b >> 23) % 24) << 23);
    }
}
END_TEST

static Suite *fmtfloat_suite(void)
{
    Suite *s = suite_create("fmtfloat");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, writes_the_shortest_text);
    tcase_add_test(tc, reads_back_at_every_edge);
    tcase_add_test(tc, reads_back_for_random_bit_patterns);
    tcase_add_test(tc, reads_back_for_random_values_near_one);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(fmtfloat_suite)
