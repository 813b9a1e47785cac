/* check_sanitize.c - the one sanitiser (src/base/sanitize.c) and the canvas
 * cells it keeps clean: every control character a hostile file or line can
 * carry, alone and inside the escape sequences that drive a terminal. */
#include <stdint.h>
#include <string.h>

#include "base/sanitize.h"
#include "base/utf8.h"
#include "check_main.h"
#include "draw/canvas.h"

/* Every control character the sanitiser knows: C0 (32), DEL, C1 (32) and
 * the nine bidi controls: 74 in all. */
static int all_controls(uint32_t *out)
{
    int n = 0;
    for (uint32_t c = 0; c < 0x20; c++)
        out[n++] = c;
    out[n++] = 0x7F;
    for (uint32_t c = 0x80; c < 0xA0; c++)
        out[n++] = c;
    for (uint32_t c = 0x202A; c <= 0x202E; c++)
        out[n++] = c;
    for (uint32_t c = 0x2066; c <= 0x2069; c++)
        out[n++] = c;
    return n;
}

/* Does s hold a byte or character that can drive a terminal? */
static int has_control(const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        int k;
        uint32_t c = utf8_decode(s + i, len - i, &k);
        if (c == UTF8_INVALID || sanitize_is_control(c)) return 1;
        i += (size_t)k;
    }
    return 0;
}

START_TEST(every_control_is_escaped)
{
    uint32_t cs[80];
    int n = all_controls(cs);
    ck_assert_int_eq(n, 74);
    for (int i = 1; i < n; i++) { /* 0 ends a C string: sanitize_control_at sees it below */
        char in[16], out[64];
        int k = utf8_encode(cs[i], in + 1);
        in[0] = 'a';
        in[1 + k] = 'b';
        in[2 + k] = 0;
        ck_assert(sanitize_is_control(cs[i]));
        sanitize_text(in, out, sizeof out);
        ck_assert_msg(!has_control(out), "U+%04X left in '%s'", (unsigned)cs[i], out);
        ck_assert_int_eq(out[0], 'a');
        ck_assert_int_eq(out[strlen(out) - 1], 'b');
        ck_assert_uint_eq(sanitize_control_at(in, strlen(in), NULL), cs[i] == '\t' ? 0 : 2);
    }
    ck_assert_uint_eq(sanitize_control_at("ab\0c", 4, NULL), 3);
}
END_TEST

START_TEST(escapes_read_as_what_they_are)
{
    char out[128];
    ck_assert_str_eq(sanitize_text("hi \033]2;PWNED\007!", out, sizeof out),
                     "hi \\x1b]2;PWNED\\x07!");
    ck_assert_str_eq(sanitize_text("\033[2J\x7f", out, sizeof out), "\\x1b[2J\\x7f");
    ck_assert_str_eq(sanitize_text("\xc2\x9b"
                                   "31m",
                                   out, sizeof out),
                     "\\u009b31m"); /* 8-bit CSI */
    ck_assert_str_eq(sanitize_text("a\xe2\x80\xae"
                                   "b",
                                   out, sizeof out),
                     "a\\u202eb"); /* RLO */
    ck_assert_str_eq(sanitize_text("bad \xff\xc3(", out, sizeof out), "bad \\xff\\xc3(");
    ck_assert_str_eq(sanitize_text("caf\xc3\xa9 \xe2\x96\x88 C:\\x", out, sizeof out),
                     "caf\xc3\xa9 \xe2\x96\x88 C:\\x"); /* text stays text */
    ck_assert_str_eq(sanitize_text("tab\there", out, sizeof out), "tab\\x09here");
}
END_TEST

START_TEST(output_is_cut_whole)
{
    char out[8];
    ck_assert_str_eq(sanitize_text("ab\033cdef", out, sizeof out), "ab\\x1bc");
    ck_assert_str_eq(sanitize_text("\033\033", out, 6), "\\x1b"); /* never half an escape */
    ck_assert_str_eq(sanitize_text("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", out, sizeof out),
                     "\xc3\xa9\xc3\xa9\xc3\xa9"); /* never half a character */
    ck_assert_str_eq(sanitize_text("x", out, 1), "");
}
END_TEST

/* The sequences of ECMA-48 a hostile string would use: CSI, OSC (title,
 * clipboard), DCS, APC, PM, SOS, in their 7-bit and 8-bit forms. */
static const char *const sequences[] = {
    "\033[2J\033[H",
    "\033[31mred\033[0m",
    "\033]2;PWNED\007",
    "\033]52;c;cHduZWQ=\007",
    "\033]8;;http://x\033\\",
    "\033P+q544e\033\\",
    "\033_apc\033\\",
    "\033^pm\033\\",
    "\033Xsos\033\\",
    "\xc2\x9b"
    "2J",
    "\xc2\x9d"
    "0;t\xc2\x9c",
    "\xc2\x90q\xc2\x9c",
    "\033c",
    "\r\033[K",
    "\b\b\bxyz",
};

START_TEST(sequences_never_survive)
{
    for (size_t i = 0; i < sizeof sequences / sizeof *sequences; i++) {
        char out[256];
        sanitize_text(sequences[i], out, sizeof out);
        ck_assert_msg(!has_control(out), "sequence %zu left a control", i);
        ck_assert(sanitize_control_at(sequences[i], strlen(sequences[i]), NULL) > 0);
    }
}
END_TEST

/* The canvas is the other way text reaches the terminal: no cell ever
 * holds a control character, however it was written. */
START_TEST(canvas_cells_hold_no_control)
{
    Canvas *c = canvas_new(60, 3);
    uint32_t cs[80];
    int n = all_controls(cs);
    for (int i = 0; i < n; i++)
        canvas_put(c, i % 60, 0, cs[i], ST_NORMAL);
    for (size_t i = 0; i < sizeof sequences / sizeof *sequences; i++)
        canvas_text(c, 0, 1, sequences[i], ST_NORMAL), canvas_wrap(c, 0, 2, 60, 1, sequences[i], 0);
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 60; x++)
            ck_assert_msg(!sanitize_is_control(canvas_at(c, x, y)->ch), "cell %d,%d: U+%04X", x, y,
                          (unsigned)canvas_at(c, x, y)->ch);
    canvas_free(c);
}
END_TEST

static Suite *sanitize_suite(void)
{
    Suite *s = suite_create("sanitize");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_control_is_escaped);
    tcase_add_test(tc, escapes_read_as_what_they_are);
    tcase_add_test(tc, output_is_cut_whole);
    tcase_add_test(tc, sequences_never_survive);
    tcase_add_test(tc, canvas_cells_hold_no_control);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(sanitize_suite)
