/* check_man.c - the man page's KEYS section against the key table (keys.c):
 * every section title and every key name of the `?` help is in it, bold, so
 * a key added to the table without a line in assets/mhaviz.1 fails here.
 * Run from the source tree (make does); MHAVIZ_MAN names another page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "content/content.h"
#include "ui/keys.h"

/* The page's KEYS section (from ".SH KEYS" to the next ".SH"), malloc'd. */
static char *keys_section(void)
{
    const char *path = getenv("MHAVIZ_MAN") ? getenv("MHAVIZ_MAN") : "assets/mhaviz.1";
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (run from the source tree)", path);
    static char page[1 << 17];
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[n] = 0;
    char *start = strstr(page, "\n.SH KEYS\n");
    ck_assert_msg(start != NULL, "%s has no KEYS section", path);
    char *end = strstr(start + 1, "\n.SH ");
    size_t len = end ? (size_t)(end - start) : strlen(start);
    char *sec = malloc(len + 1);
    ck_assert_ptr_nonnull(sec);
    memcpy(sec, start, len);
    sec[len] = 0;
    return sec;
}

/* s as roff source: - is \-, \ is \e; prefixed with pre, suffixed with post. */
static void roff(char *out, size_t n, const char *pre, const char *s, size_t len, const char *post)
{
    size_t o = (size_t)snprintf(out, n, "%s", pre);
    for (size_t i = 0; i < len && o + 3 < n; i++) {
        if (s[i] == '-' || s[i] == '\\') {
            out[o++] = '\\';
            out[o++] = s[i] == '-' ? '-' : 'e';
        } else {
            out[o++] = s[i];
        }
    }
    snprintf(out + o, n - o, "%s", post);
}

START_TEST(test_every_help_key_in_the_man_page)
{
    char *sec = keys_section();
    static char sub[16384]; /* the subsection of the current title */
    char keys[80], want[200];
    const char *what, *title = "";
    int sec_no, kind, names = 0;
    for (int i = 0; (kind = keys_help_entry(i, keys, sizeof keys, &what, &sec_no)) >= 0; i++) {
        if (kind == 1) {
            title = what;
            roff(want, sizeof want, ".SS ", what, strlen(what), "\n");
            const char *start = strstr(sec, want);
            ck_assert_msg(start != NULL, "man page KEYS: no subsection '%s'", what);
            const char *end = strstr(start + 1, "\n.SS ");
            size_t len = end ? (size_t)(end - start) : strlen(start);
            ck_assert_uint_lt(len, sizeof sub);
            memcpy(sub, start, len);
            sub[len] = 0;
        }
        if (kind != 2) continue;
        /* the names of one line are joined by spaces; "0-9 Enter" is one name */
        for (const char *p = keys; *p;) {
            size_t len = strncmp(p, "0-9 Enter", 9) ? strcspn(p, " ") : 9;
            roff(want, sizeof want, "\\fB", p, len, "\\fR");
            ck_assert_msg(strstr(sub, want) != NULL, "man page KEYS, %s: key '%.*s' (%s) missing",
                          title, (int)len, p, what);
            names++;
            p += len;
            p += strspn(p, " ");
        }
    }
    ck_assert_int_gt(names, 50);
    free(sec);
}
END_TEST

/* The whole file at path, in a static buffer ("" when it cannot be read). */
static const char *slurp(const char *path)
{
    static char text[1 << 17];
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (run from the source tree)", path);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    return text;
}

/* The man page and the README count the lessons the binary has built in
 * (lessons/NN-*.lesson), in words: "The guided course (eight lessons)". */
START_TEST(test_lesson_count_matches_the_lesson_list)
{
    static const char *const words[] = {"no",    "one",   "two",  "three", "four",   "five",  "six",
                                        "seven", "eight", "nine", "ten",   "eleven", "twelve"};
    int n = 0;
    for (const ContentFile *f = content_files; f->path; f++) {
        size_t l = strlen(f->path);
        n += !strncmp(f->path, "lessons/", 8) && l > 7 && !strcmp(f->path + l - 7, ".lesson");
    }
    ck_assert_int_ge(n, 1);
    ck_assert_int_lt(n, (int)(sizeof words / sizeof *words));
    char want[64];
    const char *man = getenv("MHAVIZ_MAN") ? getenv("MHAVIZ_MAN") : "assets/mhaviz.1";
    snprintf(want, sizeof want, "The guided course (%s lessons)", words[n]);
    ck_assert_msg(strstr(slurp(man), want) != NULL, "%s does not say '%s'", man, want);
    snprintf(want, sizeof want, "the %s lessons (menu", words[n]);
    ck_assert_msg(strstr(slurp("README.md"), want) != NULL, "README.md does not say '%s'", want);
}
END_TEST

static Suite *man_suite(void)
{
    Suite *s = suite_create("man");
    TCase *tc = tcase_create("keys");
    tcase_add_test(tc, test_every_help_key_in_the_man_page);
    tcase_add_test(tc, test_lesson_count_matches_the_lesson_list);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(man_suite)
