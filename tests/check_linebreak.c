/* check_linebreak.c - the one line-break finder (src/base/linebreak.c). */
#include <string.h>

#include "base/linebreak.h"
#include "check_main.h"

/* text wrapped at width, the lines joined by '|'. */
static const char *wrap(const char *text, int width)
{
    static char out[1024];
    size_t o = 0, n = strlen(text);
    LineBreak lb;
    out[0] = 0;
    while (linebreak_next(text, n, width, &lb)) {
        ck_assert_int_le(lb.cols, width < 1 ? 1 : width);
        ck_assert_int_eq(lb.cols, linebreak_cols(text, lb.len));
        if (o) out[o++] = '|';
        memcpy(out + o, text, lb.len);
        o += lb.len;
        out[o] = 0;
        text += lb.next, n -= lb.next;
    }
    return out;
}

START_TEST(empty_text_has_no_line)
{
    LineBreak lb = {7, 7, 7};
    ck_assert_int_eq(linebreak_next("", 0, 10, &lb), 0);
    ck_assert_str_eq(wrap("", 5), "");
    ck_assert_str_eq(wrap("\n", 5), "");         /* one empty line */
    ck_assert_str_eq(wrap("a\n\nb", 5), "a||b"); /* an empty line kept */
    ck_assert_str_eq(wrap("a\n", 5), "a");       /* a final '\n' starts no line */
}
END_TEST

START_TEST(breaks_at_the_last_space_that_fits)
{
    ck_assert_str_eq(wrap("the cat sat on the warm mat", 10), "the cat|sat on the|warm mat");
    ck_assert_str_eq(wrap("abc def", 7), "abc def"); /* exactly the width */
    ck_assert_str_eq(wrap("abc def", 6), "abc|def");
    ck_assert_str_eq(wrap("abc def", 3), "abc|def"); /* the space at the cut */
    ck_assert_str_eq(wrap("ab\ncd ef", 5), "ab|cd ef");
}
END_TEST

START_TEST(spaces_at_a_break_belong_to_no_line)
{
    ck_assert_str_eq(wrap("abc   ", 10), "abc");               /* trailing spaces */
    ck_assert_str_eq(wrap("abc    def", 5), "abc|def");        /* a run at the break */
    ck_assert_str_eq(wrap("aaa  bbb ccc", 8), "aaa  bbb|ccc"); /* inside a line: kept */
    ck_assert_str_eq(wrap("aaa   \nbbb", 3), "aaa|bbb");       /* no empty line after them */
    ck_assert_str_eq(wrap("  indented text", 11), "  indented|text");
}
END_TEST

START_TEST(a_long_word_is_cut_at_the_width)
{
    ck_assert_str_eq(wrap("ab abcdefghij\ncd", 4), "ab|abcd|efgh|ij|cd");
    ck_assert_str_eq(wrap("abcdefgh", 4), "abcd|efgh");
    ck_assert_str_eq(wrap("  abcdefgh", 4), "  ab|cdef|gh"); /* an indent is no break */
}
END_TEST

START_TEST(width_one_and_below)
{
    ck_assert_str_eq(wrap("ab c", 1), "a|b|c");
    ck_assert_str_eq(wrap("ab", 0), "a|b"); /* below 1 counts as 1 */
    ck_assert_str_eq(wrap("h\xc3\xa9", 1), "h|\xc3\xa9");
}
END_TEST

START_TEST(multibyte_counts_one_column_per_code_point)
{
    /* "héllo wörld": 11 columns, 13 bytes */
    ck_assert_int_eq(linebreak_cols("h\xc3\xa9llo w\xc3\xb6rld", 13), 11);
    ck_assert_str_eq(wrap("h\xc3\xa9llo w\xc3\xb6rld", 11), "h\xc3\xa9llo w\xc3\xb6rld");
    ck_assert_str_eq(wrap("h\xc3\xa9llo w\xc3\xb6rld", 10), "h\xc3\xa9llo|w\xc3\xb6rld");
    /* a long word of 2-, 3- and 4-byte code points is cut between them */
    ck_assert_str_eq(wrap("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9|\xc3\xa9");
    ck_assert_str_eq(wrap("\xe2\x94\x80\xe2\x94\x80\xe2\x94\x80", 2),
                     "\xe2\x94\x80\xe2\x94\x80|\xe2\x94\x80");
    ck_assert_str_eq(wrap("\xf0\x9f\x98\x80\xf0\x9f\x98\x80x", 1),
                     "\xf0\x9f\x98\x80|\xf0\x9f\x98\x80|x");
    /* an invalid byte is one column of its own */
    ck_assert_int_eq(linebreak_cols("a\xff"
                                    "b",
                                    3),
                     3);
    ck_assert_str_eq(wrap("a\xff"
                          "bc",
                          2),
                     "a\xff|bc");
}
END_TEST

START_TEST(a_wide_url_breaks_after_a_slash)
{
    ck_assert_str_eq(wrap("see https://x.com/aaaaaaa/bbbbbbbb", 12),
                     "see https://|x.com/|aaaaaaa/|bbbbbbbb");
    ck_assert_str_eq(wrap("blob/main/config.json", 12), "blob/main/|config.json");
    ck_assert_str_eq(wrap("aaa/bbb", 7), "aaa/bbb");           /* it fits: not split */
    ck_assert_str_eq(wrap("x aaa/bbb", 7), "x|aaa/bbb");       /* it fits a line: moved whole */
    ck_assert_str_eq(wrap("abcdefgh/ij", 4), "abcd|efgh|/ij"); /* no '/' in reach: cut */
    ck_assert_str_eq(wrap("abcdefg/ij", 4), "abcd|efg/|ij");
}
END_TEST

static Suite *linebreak_suite(void)
{
    Suite *s = suite_create("linebreak");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, empty_text_has_no_line);
    tcase_add_test(tc, breaks_at_the_last_space_that_fits);
    tcase_add_test(tc, spaces_at_a_break_belong_to_no_line);
    tcase_add_test(tc, a_long_word_is_cut_at_the_width);
    tcase_add_test(tc, width_one_and_below);
    tcase_add_test(tc, multibyte_counts_one_column_per_code_point);
    tcase_add_test(tc, a_wide_url_breaks_after_a_slash);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(linebreak_suite)
