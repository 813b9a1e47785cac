/* check_lineread.c - the one reader of typed and piped lines
 * (src/base/lineread.c): bounded pieces, trailing white space, NUL bytes. */
#include <stdio.h>
#include <string.h>

#include "base/lineread.h"
#include "check_main.h"

/* A stream holding the n bytes of s. */
static FILE *input(const char *s, size_t n)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(s, 1, n, f), n);
    rewind(f);
    return f;
}

START_TEST(reads_lines_and_trims_their_end)
{
    static const char in[] = "a = 1\r\n  b  \t \nlast";
    FILE *f = input(in, sizeof in - 1);
    char buf[16], err[100];
    LineRead r;
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_str_eq(buf, "a = 1");
    ck_assert_uint_eq(r.len, 5);
    ck_assert_int_eq(line_refused(&r, "statement", 15, err, sizeof err), 0);
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_str_eq(buf, "  b"); /* the start is the caller's */
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_str_eq(buf, "last"); /* no newline at the end of input */
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), -1);
    fclose(f);
}
END_TEST

/* A NUL byte is not the end of the line: it is named, with its column. */
START_TEST(nul_byte_is_named)
{
    static const char in[] = "b = a\0.view(2,12)\nnext\n";
    FILE *f = input(in, sizeof in - 1);
    char buf[64], err[100];
    LineRead r;
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_uint_eq(r.nul_at, 6);
    ck_assert_uint_eq(r.len, 17);
    ck_assert_int_eq(line_refused(&r, "statement", 63, err, sizeof err), 1);
    ck_assert_str_eq(err, "statement holds a NUL byte (0x00) at column 6");
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_str_eq(buf, "next");
    ck_assert_uint_eq(r.nul_at, 0);
    fclose(f);
}
END_TEST

/* Past the buffer, only trailing white space is allowed; what is kept is
 * bounded by the buffer however long the line. */
START_TEST(long_lines_cost_the_buffer_only)
{
    size_t big = (size_t)8 << 20; /* 8 MB of spaces after a short statement */
    char *s = malloc(big + 16);
    ck_assert_ptr_nonnull(s);
    memcpy(s, "x = 1", 5);
    memset(s + 5, ' ', big);
    memcpy(s + 5 + big, "\nyy", 3);
    FILE *f = input(s, big + 8);
    char buf[8], err[100];
    LineRead r;
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_str_eq(buf, "x = 1");
    ck_assert_int_eq(r.too_long, 0);
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_str_eq(buf, "yy");
    fclose(f);
    memset(s, 'x', big); /* 8 MB of a word: too long */
    s[big] = '\n';
    f = input(s, big + 1);
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_int_eq(r.too_long, 1);
    ck_assert_uint_eq(r.len, 7);
    ck_assert_int_eq(line_refused(&r, "answer", 7, err, sizeof err), 1);
    ck_assert_str_eq(err, "answer too long (at most 7 characters)");
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), -1);
    fclose(f);
    free(s);
    f = input("1234567 x\n", 10); /* a word after white space past the buffer */
    ck_assert_int_eq(line_read(f, buf, sizeof buf, &r), 0);
    ck_assert_int_eq(r.too_long, 1);
    fclose(f);
}
END_TEST

static Suite *lineread_suite(void)
{
    Suite *s = suite_create("lineread");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, reads_lines_and_trims_their_end);
    tcase_add_test(tc, nul_byte_is_named);
    tcase_add_test(tc, long_lines_cost_the_buffer_only);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(lineread_suite)
