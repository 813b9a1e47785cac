/* check_lineedit.c - the one line editor (src/base/lineedit.c). */
#include <string.h>

#include "base/lineedit.h"
#include "check_main.h"

static void type(LineEdit *e, const char *utf8)
{
    ck_assert_int_eq(lineedit_insert_text(e, utf8, strlen(utf8)), 0);
}

START_TEST(types_and_erases_by_code_point)
{
    LineEdit e;
    lineedit_init(&e, 0);
    ck_assert_int_eq(e.max, LINEEDIT_MAX);
    ck_assert_int_eq(lineedit_insert(&e, 'h'), 0);
    ck_assert_int_eq(lineedit_insert(&e, 0xE9), 0); /* é: 2 bytes */
    type(&e, "llo");
    ck_assert_str_eq(e.buf, "h\xc3\xa9llo");
    ck_assert_int_eq(lineedit_cols(&e), 5);
    ck_assert_int_eq(lineedit_do(&e, LE_BACKSPACE), 1);
    ck_assert_str_eq(e.buf, "h\xc3\xa9ll");
    lineedit_do(&e, LE_BACKSPACE);
    lineedit_do(&e, LE_BACKSPACE);
    ck_assert_int_eq(lineedit_cursor_col(&e), 2);
    lineedit_do(&e, LE_BACKSPACE); /* the whole é, never one byte of it */
    ck_assert_str_eq(e.buf, "h");
    ck_assert_int_eq(e.len, 1);
    lineedit_do(&e, LE_BACKSPACE);
    ck_assert_int_eq(lineedit_do(&e, LE_BACKSPACE), 0); /* empty: nothing */
    ck_assert_int_eq(lineedit_insert(&e, 0x1F600), 0);  /* 4 bytes */
    ck_assert_int_eq(lineedit_insert(&e, 0x2500), 0);   /* 3 bytes */
    ck_assert_int_eq(e.len, 7);
    lineedit_do(&e, LE_HOME);
    ck_assert_int_eq(lineedit_do(&e, LE_DELETE), 1); /* the emoji, all 4 bytes */
    ck_assert_str_eq(e.buf, "\xe2\x94\x80");
    ck_assert_int_eq(e.cur, 0);
    lineedit_do(&e, LE_END);
    ck_assert_int_eq(lineedit_do(&e, LE_DELETE), 0); /* at the end: nothing */
}
END_TEST

START_TEST(moves_by_code_point)
{
    LineEdit e;
    lineedit_init(&e, 64);
    type(&e, "a\xc3\xa9\xe2\x94\x80z");
    ck_assert_int_eq(lineedit_cursor_col(&e), 4);
    ck_assert_int_eq(lineedit_do(&e, LE_LEFT), 1);
    ck_assert_int_eq(e.cur, 6);
    lineedit_do(&e, LE_LEFT);
    ck_assert_int_eq(e.cur, 3); /* before the 3-byte code point */
    lineedit_do(&e, LE_LEFT);
    ck_assert_int_eq(e.cur, 1);
    lineedit_do(&e, LE_LEFT);
    ck_assert_int_eq(lineedit_do(&e, LE_LEFT), 0); /* at the start: nothing */
    lineedit_do(&e, LE_RIGHT);
    lineedit_do(&e, LE_RIGHT);
    ck_assert_int_eq(e.cur, 3);
    ck_assert_int_eq(lineedit_cursor_col(&e), 2);
    ck_assert_int_eq(lineedit_insert(&e, 'X'), 0); /* inserts at the cursor */
    ck_assert_str_eq(e.buf, "a\xc3\xa9X\xe2\x94\x80z");
    lineedit_do(&e, LE_END);
    ck_assert_int_eq(lineedit_do(&e, LE_RIGHT), 0);
    ck_assert_int_eq(lineedit_do(&e, LE_END), 0);
    lineedit_do(&e, LE_HOME);
    ck_assert_int_eq(e.cur, 0);
}
END_TEST

START_TEST(kills_as_readline_does)
{
    LineEdit e;
    lineedit_init(&e, 64);
    type(&e, "b = x.view(2,  12)  ");
    ck_assert_int_eq(lineedit_do(&e, LE_KILL_WORD), 1); /* the spaces, then "12)" */
    ck_assert_str_eq(e.buf, "b = x.view(2,  ");
    lineedit_do(&e, LE_KILL_WORD);
    ck_assert_str_eq(e.buf, "b = ");
    for (int i = 0; i < 3; i++)
        lineedit_do(&e, LE_LEFT);
    ck_assert_int_eq(lineedit_do(&e, LE_KILL_END), 1); /* Ctrl-K */
    ck_assert_str_eq(e.buf, "b");
    type(&e, " h\xc3\xa9");
    lineedit_do(&e, LE_LEFT);
    ck_assert_int_eq(lineedit_do(&e, LE_KILL_START), 1); /* Ctrl-U */
    ck_assert_str_eq(e.buf, "\xc3\xa9");
    ck_assert_int_eq(e.cur, 0);
    ck_assert_int_eq(lineedit_do(&e, LE_KILL_START), 0);
    ck_assert_int_eq(lineedit_do(&e, LE_KILL_WORD), 0);
}
END_TEST

START_TEST(a_full_line_refuses_whole_characters)
{
    LineEdit e;
    lineedit_init(&e, 5);
    type(&e, "abcd");
    ck_assert_int_eq(lineedit_insert(&e, 0xE9), -1); /* 2 bytes, room for 1: refused */
    ck_assert_str_eq(e.buf, "abcd");
    ck_assert_int_eq(lineedit_insert(&e, 'e'), 0);
    ck_assert_int_eq(lineedit_insert(&e, 'f'), -1);
    ck_assert_str_eq(e.buf, "abcde");
    ck_assert_int_eq(lineedit_insert_text(&e, "", 0), 0);
    lineedit_init(&e, 64);
    ck_assert_int_eq(lineedit_insert(&e, 0x1B), -1);            /* ESC */
    ck_assert_int_eq(lineedit_insert(&e, '\n'), -1);            /* a line end */
    ck_assert_int_eq(lineedit_insert(&e, 0x9B), -1);            /* C1 CSI */
    ck_assert_int_eq(lineedit_insert(&e, 0xD800), -1);          /* a surrogate */
    ck_assert_int_eq(lineedit_insert(&e, 0x110000), -1);        /* past Unicode */
    ck_assert_int_eq(lineedit_insert_text(&e, "a\xc3", 2), -1); /* half a sequence */
    ck_assert_int_eq(lineedit_insert_text(&e, "a\x1b[2J", 5), -1);
    ck_assert_int_eq(e.len, 0);
}
END_TEST

START_TEST(set_keeps_whole_code_points)
{
    LineEdit e;
    lineedit_init(&e, 4);
    lineedit_set(&e, "ab\xc3\xa9");
    ck_assert_str_eq(e.buf, "ab\xc3\xa9");
    ck_assert_int_eq(e.cur, 4);
    lineedit_set(&e, "abc\xc3\xa9"); /* é would need bytes 4 and 5: left out */
    ck_assert_str_eq(e.buf, "abc");
    lineedit_set(&e, "a\x1b"
                     "b"); /* a control byte ends it */
    ck_assert_str_eq(e.buf, "a");
    lineedit_set(&e, "");
    ck_assert_int_eq(e.len, 0);
    ck_assert_int_eq(e.cur, 0);
}
END_TEST

static Suite *lineedit_suite(void)
{
    Suite *s = suite_create("lineedit");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, types_and_erases_by_code_point);
    tcase_add_test(tc, moves_by_code_point);
    tcase_add_test(tc, kills_as_readline_does);
    tcase_add_test(tc, a_full_line_refuses_whole_characters);
    tcase_add_test(tc, set_keeps_whole_code_points);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(lineedit_suite)
