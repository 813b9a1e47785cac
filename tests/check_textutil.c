/* check_textutil.c - the shared trim and edit distance (src/textutil.c). */
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "base/utf8.h"
#include "check_main.h"

START_TEST(edit_distance_counts_edits)
{
    ck_assert_int_eq(text_edit_distance("", ""), 0);
    ck_assert_int_eq(text_edit_distance("step", "step"), 0);
    ck_assert_int_eq(text_edit_distance("stpe", "step"), 1); /* neighbours swapped */
    ck_assert_int_eq(text_edit_distance("@Q", "@q"), 0);     /* case ignored */
    ck_assert_int_eq(text_edit_distance("@qq", "@q"), 1);    /* one insertion */
    ck_assert_int_eq(text_edit_distance("kitten", "sitting"), 3);
    ck_assert_int_eq(text_edit_distance("", "abc"), 3);
    ck_assert_int_eq(text_edit_distance("abc", "ca"), 3); /* OSA, not Damerau: no edit twice */
}
END_TEST

START_TEST(edit_distance_of_long_words_is_far)
{
    char a[TEXT_DIST_MAX_LEN + 2];
    memset(a, 'x', sizeof a - 1);
    a[sizeof a - 1] = 0;
    ck_assert_int_eq(text_edit_distance(a, a), TEXT_DIST_FAR);
    a[TEXT_DIST_MAX_LEN] = 0; /* exactly the limit: computed */
    ck_assert_int_eq(text_edit_distance(a, a), 0);
}
END_TEST

START_TEST(trim_removes_space_at_both_ends)
{
    char s1[] = "  \t key = value \r\n", s2[] = "   ", s3[] = "x", s4[] = "";
    ck_assert_str_eq(text_trim(s1), "key = value");
    ck_assert_str_eq(text_trim(s2), "");
    ck_assert_str_eq(text_trim(s3), "x");
    ck_assert_str_eq(text_trim(s4), "");
}
END_TEST

/* The one decoder: valid sequences of each length, and every kind of bad one
 * (overlong, surrogate, past U+10FFFF, truncated, a stray continuation byte). */
START_TEST(fmt_int_groups_thousands)
{
    char b[32];
    ck_assert_str_eq(text_fmt_int(b, sizeof b, 0), "0");
    ck_assert_str_eq(text_fmt_int(b, sizeof b, 999), "999");
    ck_assert_str_eq(text_fmt_int(b, sizeof b, 1000), "1,000");
    ck_assert_str_eq(text_fmt_int(b, sizeof b, 1048576), "1,048,576");
    ck_assert_str_eq(text_fmt_int(b, sizeof b, 18446744073709551615ull),
                     "18,446,744,073,709,551,615");
    ck_assert_str_eq(text_fmt_int(b, 6, 1048576), "1,048"); /* cut, never a dangling comma */
    ck_assert_str_eq(text_fmt_int(b, 2, 1048576), "1");
}
END_TEST

/* A count of 1 takes the singular: "1 float", never "1 floats". */
START_TEST(counts_are_singular_at_one)
{
    char b[32];
    ck_assert_str_eq(text_s(1), "");
    ck_assert_str_eq(text_s(0), "s");
    ck_assert_str_eq(text_s(2), "s");
    ck_assert_str_eq(text_fmt_count(b, sizeof b, 1, "float"), "1 float");
    ck_assert_str_eq(text_fmt_count(b, sizeof b, 0, "token"), "0 tokens");
    ck_assert_str_eq(text_fmt_count(b, sizeof b, 16384, "float"), "16,384 floats");
    ck_assert_str_eq(text_fmt_count(b, 6, 16384, "float"), "16,38");
}
END_TEST

START_TEST(utf8_decodes_strictly)
{
    int len;
    ck_assert_uint_eq(utf8_decode("A", 1, &len), 'A');
    ck_assert_int_eq(len, 1);
    ck_assert_uint_eq(utf8_decode("\xc3\xa9", 2, &len), 0xE9);
    ck_assert_int_eq(len, 2);
    ck_assert_uint_eq(utf8_decode("\xe2\x96\x88", 3, &len), 0x2588);
    ck_assert_int_eq(len, 3);
    ck_assert_uint_eq(utf8_decode("\xf0\x9f\x98\x80", 4, &len), 0x1F600);
    ck_assert_int_eq(len, 4);
    const char *bad[] = {"\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                         "\xe2\x96", "\x80",         "\xff"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_uint_eq(utf8_decode(bad[i], strlen(bad[i]), &len), UTF8_INVALID);
        ck_assert_int_eq(len, 1);
    }
    ck_assert_uint_eq(utf8_decode("\xe2\x96\x88", 2, &len), UTF8_INVALID); /* avail cuts it */
    char out[4];
    ck_assert_int_eq(utf8_encode(0x2588, out), 3);
    ck_assert_int_eq(memcmp(out, "\xe2\x96\x88", 3), 0);
    ck_assert_uint_eq(utf8_bad_at("ok \xc3\xa9 \xc3(", 9), 7);
    ck_assert_uint_eq(utf8_bad_at("ok \xc3\xa9", 5), 0);
}
END_TEST

static Suite *textutil_suite(void)
{
    Suite *s = suite_create("textutil");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, edit_distance_counts_edits);
    tcase_add_test(tc, edit_distance_of_long_words_is_far);
    tcase_add_test(tc, trim_removes_space_at_both_ends);
    tcase_add_test(tc, utf8_decodes_strictly);
    tcase_add_test(tc, fmt_int_groups_thousands);
    tcase_add_test(tc, counts_are_singular_at_one);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(textutil_suite)
