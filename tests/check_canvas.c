/* check_canvas.c - the cell grid: text, UTF-8, clipping, wrap, ASCII, writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/canvas_export.h"

static char *row(const Canvas *c, int y)
{
    static char buf[4096];
    return canvas_row(c, y, 0, buf, sizeof buf);
}

/* Row y without trailing spaces. */
static char *trimmed(const Canvas *c, int y)
{
    char *r = row(c, y);
    size_t n = strlen(r);
    while (n > 0 && r[n - 1] == ' ')
        r[--n] = '\0';
    return r;
}

START_TEST(test_new_rejects_bad_sizes)
{
    ck_assert_ptr_null(canvas_new(0, 5));
    ck_assert_ptr_null(canvas_new(5, 0));
    ck_assert_ptr_null(canvas_new(-3, 2));
    Canvas *c = canvas_new(3, 2);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(canvas_at(c, 2, 1)->ch, ' ');
    ck_assert_int_eq(canvas_at(c, 2, 1)->style, ST_NORMAL);
    ck_assert_ptr_null(canvas_at(c, 3, 0));
    ck_assert_ptr_null(canvas_at(c, 0, -1));
    canvas_free(c);
    canvas_free(NULL);
}
END_TEST

START_TEST(test_text_and_clip)
{
    Canvas *c = canvas_new(10, 3);
    ck_assert_int_eq(canvas_text(c, 2, 0, "hello", ST_BOLD), 5);
    ck_assert_str_eq(row(c, 0), "  hello   ");
    ck_assert_int_eq(canvas_at(c, 2, 0)->style, ST_BOLD);
    ck_assert_int_eq(canvas_at(c, 1, 0)->style, ST_NORMAL);
    /* clipped at the right edge: only the columns that fit count */
    ck_assert_int_eq(canvas_text(c, 7, 1, "abcdef", ST_NORMAL), 3);
    ck_assert_str_eq(row(c, 1), "       abc");
    /* starting left of the canvas: the visible tail is drawn */
    ck_assert_int_eq(canvas_text(c, -2, 2, "xyz", ST_NORMAL), 1);
    ck_assert_str_eq(trimmed(c, 2), "z");
    /* off the canvas vertically: nothing, no crash */
    ck_assert_int_eq(canvas_text(c, 0, 3, "no", ST_NORMAL), 0);
    ck_assert_int_eq(canvas_text(c, 0, -1, "no", ST_NORMAL), 0);
    canvas_put(c, 99, 99, 'x', ST_NORMAL);
    canvas_clear(c);
    ck_assert_str_eq(trimmed(c, 0), "");
    canvas_free(c);
}
END_TEST

START_TEST(test_utf8_decode)
{
    Canvas *c = canvas_new(12, 2);
    /* "aé→░" is four code points, four cells */
    ck_assert_int_eq(canvas_text(c, 0, 0, "a\xc3\xa9\xe2\x86\x92\xe2\x96\x91", ST_NORMAL), 4);
    ck_assert_uint_eq(canvas_at(c, 0, 0)->ch, 'a');
    ck_assert_uint_eq(canvas_at(c, 1, 0)->ch, 0xE9);
    ck_assert_uint_eq(canvas_at(c, 2, 0)->ch, 0x2192);
    ck_assert_uint_eq(canvas_at(c, 3, 0)->ch, 0x2591);
    ck_assert_int_eq(canvas_text_width("a\xc3\xa9\xe2\x86\x92"), 3);
    /* invalid: lone continuation, truncated sequence, overlong '/', surrogate,
     * a control character: each becomes U+FFFD, nothing is skipped silently */
    ck_assert_int_eq(canvas_text(c, 0, 1,
                                 "\x80"
                                 "x"
                                 "\xe2\x86"
                                 "\xc0\xaf"
                                 "\xed\xa0\x80"
                                 "\x1b",
                                 ST_NORMAL),
                     10);
    ck_assert_uint_eq(canvas_at(c, 0, 1)->ch, 0xFFFD);
    ck_assert_uint_eq(canvas_at(c, 1, 1)->ch, 'x');
    ck_assert_uint_eq(canvas_at(c, 2, 1)->ch, 0xFFFD);
    ck_assert_uint_eq(canvas_at(c, 9, 1)->ch, 0xFFFD);
    for (int x = 0; x < 10; x++)
        ck_assert_uint_ne(canvas_at(c, x, 1)->ch, 0x1b);
    /* a string cut in the middle of a sequence at the NUL */
    ck_assert_int_eq(canvas_text_width("ab\xe2"), 3);
    canvas_free(c);
}
END_TEST

START_TEST(test_printf_long)
{
    Canvas *c = canvas_new(400, 1);
    char big[350];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(canvas_printf(c, 0, 0, ST_NORMAL, "%d:%s", 42, big), 352);
    ck_assert(strncmp(row(c, 0), "42:qqq", 6) == 0);
    ck_assert_int_eq(canvas_at(c, 351, 0)->ch, 'q');
    ck_assert_int_eq(canvas_at(c, 352, 0)->ch, ' ');
    canvas_free(c);
}
END_TEST

START_TEST(test_fill_style_box)
{
    Canvas *c = canvas_new(6, 4);
    canvas_fill(c, 1, 1, 10, 10, '#', ST_DIM); /* clipped */
    ck_assert_str_eq(row(c, 0), "      ");
    ck_assert_str_eq(row(c, 3), " #####");
    canvas_style(c, 0, 3, 2, 1, ST_BAD);
    ck_assert_int_eq(canvas_at(c, 1, 3)->style, ST_BAD);
    ck_assert_int_eq(canvas_at(c, 1, 3)->ch, '#');
    ck_assert_int_eq(canvas_at(c, 2, 3)->style, ST_DIM);
    canvas_clear(c);
    canvas_box(c, 0, 0, 6, 4, ST_FRAME);
    ck_assert_str_eq(row(c, 0), "┌────┐");
    ck_assert_str_eq(row(c, 1), "│    │");
    ck_assert_str_eq(row(c, 3), "└────┘");
    char buf[64];
    ck_assert_str_eq(canvas_row(c, 0, 1, buf, sizeof buf), "+----+");
    ck_assert_str_eq(canvas_row(c, 2, 1, buf, sizeof buf), "|    |");
    canvas_free(c);
}
END_TEST

START_TEST(test_row_buffer_never_splits_a_character)
{
    Canvas *c = canvas_new(4, 1);
    char buf[6];
    canvas_text(c, 0, 0, "a→→b", ST_NORMAL); /* 1 + 3 + 3 + 1 bytes */
    canvas_row(c, 0, 0, buf, sizeof buf);    /* room for 5 bytes */
    ck_assert_str_eq(buf, "a→");
    canvas_row(c, 0, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "a>>b");
    canvas_free(c);
}
END_TEST

START_TEST(test_wrap_words)
{
    Canvas *c = canvas_new(12, 6);
    int n = canvas_wrap(c, 1, 0, 10, 6, "the cat sat on the warm mat", ST_NORMAL);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(trimmed(c, 0), " the cat");
    ck_assert_str_eq(trimmed(c, 1), " sat on the");
    ck_assert_str_eq(trimmed(c, 2), " warm mat");
    /* nothing written outside the column */
    for (int y = 0; y < 6; y++) {
        ck_assert_int_eq(canvas_at(c, 0, y)->ch, ' ');
        ck_assert_int_eq(canvas_at(c, 11, y)->ch, ' ');
    }
    canvas_free(c);
}
END_TEST

START_TEST(test_wrap_long_word_and_newline)
{
    Canvas *c = canvas_new(6, 6);
    int n = canvas_wrap(c, 0, 0, 4, 6, "ab abcdefghij\ncd", ST_NORMAL);
    ck_assert_int_eq(n, 5);
    ck_assert_str_eq(trimmed(c, 0), "ab");
    ck_assert_str_eq(trimmed(c, 1), "abcd"); /* only a word wider than the column splits */
    ck_assert_str_eq(trimmed(c, 2), "efgh");
    ck_assert_str_eq(trimmed(c, 3), "ij");
    ck_assert_str_eq(trimmed(c, 4), "cd");
    canvas_free(c);
}
END_TEST

START_TEST(test_wrap_truncates_with_ellipsis)
{
    Canvas *c = canvas_new(12, 3);
    int n = canvas_wrap(c, 0, 0, 10, 2, "one two three four five six", ST_NORMAL);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(trimmed(c, 0), "one two");
    ck_assert_str_eq(trimmed(c, 1), "three...");
    ck_assert_str_eq(trimmed(c, 2), "");
    ck_assert_int_eq(canvas_wrap(c, 0, 0, 0, 3, "x", ST_NORMAL), 0);
    ck_assert_int_eq(canvas_wrap(c, 0, 0, 5, 0, "x", ST_NORMAL), 0);
    canvas_free(c);
}
END_TEST

/* The wrap is base/linebreak.h's: an indent is no break (" abcdefgh" once
 * gave an empty line first), a path wider than the column breaks after a
 * '/' (it was cut mid-name), and a multibyte word is cut between code points. */
START_TEST(test_wrap_indent_path_and_multibyte)
{
    Canvas *c = canvas_new(12, 6);
    ck_assert_int_eq(canvas_wrap(c, 0, 0, 4, 6, " abcdefgh", ST_NORMAL), 3);
    ck_assert_str_eq(trimmed(c, 0), " abc");
    ck_assert_str_eq(trimmed(c, 1), "defg");
    canvas_clear(c);
    ck_assert_int_eq(canvas_wrap(c, 0, 0, 12, 6, "blob/main/config.json", ST_NORMAL), 2);
    ck_assert_str_eq(trimmed(c, 0), "blob/main/");
    ck_assert_str_eq(trimmed(c, 1), "config.json");
    ck_assert_int_eq(canvas_wrap_lines("blob/main/config.json", 12, 6), 2);
    canvas_clear(c);
    ck_assert_int_eq(canvas_wrap(c, 0, 0, 3, 6, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 x", ST_NORMAL),
                     2);
    ck_assert_str_eq(trimmed(c, 0), "\xc3\xa9\xc3\xa9\xc3\xa9");
    ck_assert_str_eq(trimmed(c, 1), "\xc3\xa9 x");
    canvas_free(c);
}
END_TEST

START_TEST(test_contains)
{
    Canvas *c = canvas_new(20, 3);
    canvas_text(c, 3, 2, "offset = 23", ST_NORMAL);
    ck_assert(canvas_contains(c, "offset = 23"));
    ck_assert(!canvas_contains(c, "offset = 24"));
    canvas_text(c, 0, 0, "a·b", ST_NORMAL);
    ck_assert(canvas_contains(c, "a·b"));
    canvas_free(c);
}
END_TEST

START_TEST(test_ascii_map)
{
    ck_assert_int_eq(canvas_ascii('A'), 'A');
    ck_assert_int_eq(canvas_ascii(0x2500), '-');
    ck_assert_int_eq(canvas_ascii(0x2502), '|');
    ck_assert_int_eq(canvas_ascii(0x250C), '+');
    ck_assert_int_eq(canvas_ascii(0x2699), '*'); /* the page-configuration mark is not a '?' */
    ck_assert_int_eq(canvas_ascii(0x253C), '+');
    ck_assert_int_eq(canvas_ascii(0x2591), '.');
    ck_assert_int_eq(canvas_ascii(0x2592), ':');
    ck_assert_int_eq(canvas_ascii(0x2593), '#');
    ck_assert_int_eq(canvas_ascii(0x2588), '@');
    ck_assert_int_eq(canvas_ascii(0x2192), '>');
    ck_assert_int_eq(canvas_ascii(0x2190), '<');
    ck_assert_int_eq(canvas_ascii(0x2191), '^');
    ck_assert_int_eq(canvas_ascii(0x2193), 'v');
    ck_assert_int_eq(canvas_ascii(0x00B7), '*');
    ck_assert_int_eq(canvas_ascii(0x4E2D), '?');
    ck_assert_int_eq(canvas_ascii(0xFFFD), '?');
    ck_assert_int_eq(canvas_ascii(0x1F600), '?');
    ck_assert_int_eq(canvas_ascii(7), '?');
}
END_TEST

/* The writer's output for canvas c, as a new string. */
static char *written(const Canvas *c, int ascii, int color)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(canvas_write(c, f, ascii, color), 0);
    fclose(f);
    return buf;
}

START_TEST(test_write_plain_and_ascii)
{
    Canvas *c = canvas_new(8, 2);
    canvas_text(c, 0, 0, "ab ░█", ST_HEAT2);
    char *s = written(c, 0, 0);
    ck_assert_str_eq(s, "ab ░█\n\n"); /* trailing spaces trimmed, no escapes */
    free(s);
    s = written(c, 1, 0);
    ck_assert_str_eq(s, "ab .@\n\n");
    free(s);
    canvas_free(c);
}
END_TEST

START_TEST(test_write_color)
{
    Canvas *c = canvas_new(6, 1);
    canvas_text(c, 0, 0, "x", ST_BAD);
    canvas_put(c, 2, 0, ' ', ST_HEAD0); /* a coloured blank shows: kept */
    char *s = written(c, 0, 1);
    char want[64];
    /* ST_BAD: bold red; ST_HEAD0's background; a reset at the end of the line */
    snprintf(want, sizeof want, "\x1b[0;1;%dmx\x1b[0m \x1b[0;%d;%dm \x1b[0m\n",
             30 + canvas_styles[ST_BAD].fg, 30 + canvas_styles[ST_HEAD0].fg,
             40 + canvas_styles[ST_HEAD0].bg);
    ck_assert_str_eq(s, want);
    free(s);
    /* monochrome: attributes only, never a colour code */
    s = written(c, 0, 2);
    ck_assert_ptr_null(strstr(s, ";3"));
    ck_assert_ptr_null(strstr(s, ";4m"));
    ck_assert_ptr_nonnull(strstr(s, "\x1b[0;1;7mx")); /* ST_BAD mono: bold + reverse */
    free(s);
    canvas_free(c);
}
END_TEST

/* In the monochrome theme, styles that must be told apart have different
 * attribute mixes (the heat levels also differ by glyph in the scene). */
static int same_attrs(const CanvasStyleSpec *a, const CanvasStyleSpec *b)
{
    return a->bold == b->bold && a->reverse == b->reverse && a->underline == b->underline &&
           a->dim == b->dim;
}

/* Runs python3 on a script that parses `file` with xml.etree and checks it;
 * returns its exit status (0: well-formed and as expected). */
static int xml_check(const char *dir, const char *script, const char *file)
{
    char path[128], cmd[400];
    FILE *f;
    snprintf(path, sizeof path, "%s/check.py", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(script, f);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "python3 '%s' '%s/%s'", path, dir, file);
    return system(cmd);
}

/* SVG and HTML escape what XML reserves: a canvas holding `a<b&c>` and an
 * arrow (U+2190, '<' in ASCII mode), in runs of their own styles, and a
 * caption with the same characters, written in ASCII and in UTF-8 and
 * parsed as XML back to the same text.  No frame of the walkthrough holds
 * any of them, so without this a lost escape passes every other test. */
START_TEST(test_svg_and_html_escape_parse_as_xml)
{
    static const char svg_py[] =
        "import sys, xml.etree.ElementTree as ET\n"
        "ns = '{http://www.w3.org/2000/svg}'\n"
        "for path, arrow in ((sys.argv[1], '<'), (sys.argv[1] + '.utf8', '\\u2190')):\n"
        "    rows = ET.parse(path).getroot().findall(ns + 'text')\n"
        "    got = [''.join(t.text or '' for t in r.findall(ns + 'tspan')) for r in rows]\n"
        "    assert got == ['a<b&c> ' + arrow + '>', '&&<<'], got\n";
    static const char html_py[] =
        "import sys, xml.etree.ElementTree as ET\n"
        "for path, arrow in ((sys.argv[1], '<'), (sys.argv[1] + '.utf8', '\\u2190')):\n"
        "    root = ET.parse(path).getroot()\n"
        "    assert root.tag == 'section' and root.get('data-n') == '3', root.attrib\n"
        "    assert root.find('h2').text == 'x<y & z>', root.find('h2').text\n"
        "    pre = ''.join(root.find('pre').itertext())\n"
        "    want = 'a<b&c> ' + arrow + '> \\n&&<<      \\n'\n"
        "    assert pre == want, (pre, want)\n";
    Canvas *c = canvas_new(10, 2);
    char path[128];
    FILE *f;
    ck_assert_ptr_nonnull(c);
    canvas_text(c, 0, 0, "a<b&c>", ST_NORMAL);
    canvas_put(c, 7, 0, 0x2190, ST_HEAD0);
    canvas_put(c, 8, 0, '>', ST_BOLD);
    canvas_text(c, 0, 1, "&&", ST_HEAD1);
    canvas_text(c, 2, 1, "<<", ST_CURSOR);
    state_dir_setup();
    for (int ascii = 1; ascii >= 0; ascii--) {
        snprintf(path, sizeof path, "%s/c.svg%s", test_state_dir, ascii ? "" : ".utf8");
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(canvas_write_svg(c, f, ascii, 0), 0);
        ck_assert_int_eq(fclose(f), 0);
        snprintf(path, sizeof path, "%s/c.html%s", test_state_dir, ascii ? "" : ".utf8");
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(canvas_html_slide(f, 3, "x<y & z>"), 0); /* a slide: no head */
        ck_assert_int_eq(canvas_write_html(c, f, 0, ascii, 0), 0);
        ck_assert_int_eq(canvas_html_slide_end(f), 0);
        ck_assert_int_eq(fclose(f), 0);
    }
    ck_assert_int_eq(xml_check(test_state_dir, svg_py, "c.svg"), 0);
    ck_assert_int_eq(xml_check(test_state_dir, html_py, "c.html"), 0);
    state_dir_teardown();
    canvas_free(c);
}
END_TEST

/* A whole deck is well-formed (XML parses it, so every tag closes and the
 * script cannot end early), and text from a lesson file (its title, a
 * caption) stays text: quotes, <, &, an invalid byte and a control character
 * come back as written (the last two as U+FFFD), and the page holds the one
 * script it writes.  Slides keep their frames in order: the animation's,
 * then the final one. */
START_TEST(test_html_deck_parses_and_escapes)
{
    static const char deck_py[] =
        "import sys, xml.etree.ElementTree as ET\n"
        "root = ET.parse(sys.argv[1]).getroot()\n"
        "assert root.tag == 'html', root.tag\n"
        "want = 'a\"b\\'<script>x</script>&\\ufffd\\ufffdz'\n"
        "assert root.find('head/title').text == want, root.find('head/title').text\n"
        "body = root.find('body')\n"
        "assert body.get('data-fps') == '25', body.attrib\n"
        "slides = body.findall('section')\n"
        "assert [s.get('data-n') for s in slides] == ['7', '8'], slides\n"
        "assert slides[0].find('h2').text == want\n"
        "assert [p.get('class') for p in slides[0].findall('pre')] == ['anim', 'anim', 'frame']\n"
        "assert [p.get('class') for p in slides[1].findall('pre')] == ['frame']\n"
        "assert len(root.findall('.//script')) == 1\n"
        "assert ''.join(slides[0].findall('pre')[1].itertext()).startswith('two')\n";
    const char *hostile = "a\"b'<script>x</script>&\xff\x01z";
    Canvas *c = canvas_new(6, 2);
    char path[128];
    ck_assert_ptr_nonnull(c);
    state_dir_setup();
    snprintf(path, sizeof path, "%s/deck.html", test_state_dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(canvas_html_head(f, hostile, 6, 2, 25), 0);
    ck_assert_int_eq(canvas_html_slide(f, 7, hostile), 0);
    const char *texts[] = {"one", "two", "three"};
    for (int k = 0; k < 3; k++) {
        canvas_clear(c);
        canvas_text(c, 0, 0, texts[k], ST_HEAD0);
        ck_assert_int_eq(canvas_write_html(c, f, k < 2, 0, 0), 0);
    }
    ck_assert_int_eq(canvas_html_slide_end(f), 0);
    ck_assert_int_eq(canvas_html_slide(f, 8, "still"), 0);
    ck_assert_int_eq(canvas_write_html(c, f, 0, 0, 0), 0);
    ck_assert_int_eq(canvas_html_slide_end(f), 0);
    ck_assert_int_eq(canvas_html_tail(f), 0);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(xml_check(test_state_dir, deck_py, "deck.html"), 0);
    state_dir_teardown();
    canvas_free(c);
}
END_TEST

START_TEST(test_style_tables)
{
    for (int i = 0; i < ST_COUNT; i++) {
        ck_assert_ptr_nonnull(canvas_styles[i].name);
        ck_assert_str_eq(canvas_styles[i].name, canvas_styles_mono[i].name);
        ck_assert_int_eq(canvas_styles_mono[i].fg, -1);
        ck_assert_int_eq(canvas_styles_mono[i].bg, -1);
        ck_assert(canvas_styles[i].fg >= -1 && canvas_styles[i].fg <= 7);
        ck_assert(canvas_styles[i].bg >= -1 && canvas_styles[i].bg <= 7);
    }
    for (int a = 0; a < 8; a++)
        for (int b = a + 1; b < 8; b++) {
            ck_assert(
                !same_attrs(&canvas_styles_mono[ST_HEAD(a)], &canvas_styles_mono[ST_HEAD(b)]));
            /* in colour, the heads differ by colour */
            ck_assert(canvas_styles[ST_HEAD(a)].bg != canvas_styles[ST_HEAD(b)].bg ||
                      canvas_styles[ST_HEAD(a)].fg != canvas_styles[ST_HEAD(b)].fg);
        }
    for (int a = 0; a < 5; a++)
        for (int b = a + 1; b < 5; b++)
            ck_assert(
                !same_attrs(&canvas_styles_mono[ST_HEAT(a)], &canvas_styles_mono[ST_HEAT(b)]));
    ck_assert(!same_attrs(&canvas_styles_mono[ST_CODE], &canvas_styles_mono[ST_CODE_HI]));
    ck_assert_int_eq(ST_HEAT(-3), ST_HEAT0);
    ck_assert_int_eq(ST_HEAT(9), ST_HEAT4);
    ck_assert_int_eq(ST_HEAD(9), ST_HEAD1);
}
END_TEST

static Suite *canvas_suite(void)
{
    Suite *s = suite_create("canvas");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_new_rejects_bad_sizes);
    tcase_add_test(tc, test_text_and_clip);
    tcase_add_test(tc, test_utf8_decode);
    tcase_add_test(tc, test_printf_long);
    tcase_add_test(tc, test_fill_style_box);
    tcase_add_test(tc, test_row_buffer_never_splits_a_character);
    tcase_add_test(tc, test_wrap_words);
    tcase_add_test(tc, test_wrap_long_word_and_newline);
    tcase_add_test(tc, test_wrap_truncates_with_ellipsis);
    tcase_add_test(tc, test_wrap_indent_path_and_multibyte);
    tcase_add_test(tc, test_contains);
    tcase_add_test(tc, test_ascii_map);
    tcase_add_test(tc, test_write_plain_and_ascii);
    tcase_add_test(tc, test_write_color);
    tcase_add_test(tc, test_style_tables);
    tcase_add_test(tc, test_svg_and_html_escape_parse_as_xml);
    tcase_add_test(tc, test_html_deck_parses_and_escapes);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(canvas_suite)
