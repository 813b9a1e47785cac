/* check_kvcalc.c - the KV-cache calculator screen (src/ui/kvcalc.c) drawn
 * on a Canvas at 80x24 and 120x40: the detail of the selected model sits
 * beside that model's row, and each preset's note is shown whole. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "content/presets.h"
#include "draw/canvas.h"
#include "ui/lessonui.h"

static Ui ui;

static void setup(void)
{
    memset(&ui, 0, sizeof ui);
    ui.cfg = mha_config_default();
}

static Canvas *draw_at(Screen *s, int w, int h)
{
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    s->draw(s, &ui, c);
    return c;
}

/* The canvas as one line of words: rows joined, runs of spaces made one. */
static void words_of(const Canvas *c, char *out, size_t n)
{
    char row[512];
    size_t k = 0;
    for (int y = 0; y < c->h && k + 1 < n; y++) {
        canvas_row(c, y, 1, row, sizeof row);
        for (const char *r = row; *r && k + 1 < n; r++)
            if (*r != ' ' || (k > 0 && out[k - 1] != ' ')) out[k++] = *r;
        if (k > 0 && out[k - 1] != ' ' && k + 1 < n) out[k++] = ' ';
    }
    out[k] = 0;
}

static void squeeze(const char *in, char *out, size_t n)
{
    size_t k = 0;
    for (; *in && k + 1 < n; in++)
        if (*in != ' ' || (k > 0 && out[k - 1] != ' ')) out[k++] = *in;
    out[k] = 0;
}

/* First row holding text, or -1. */
static int row_of(const Canvas *c, const char *text)
{
    char row[512];
    for (int y = 0; y < c->h; y++)
        if (strstr(canvas_row(c, y, 1, row, sizeof row), text)) return y;
    return -1;
}

/* Every model in turn, at 80x24 and 120x40: its title and figures start
 * below the whole list, so no list row reads on into them ("gpt2-small
 * 6 layers, 8 query heads" was transformer-base's detail beside the next
 * name); the selected name is the marked one. */
START_TEST(detail_sits_below_the_list)
{
    static const int size[][2] = {{80, 24}, {120, 40}};
    PresetList pl;
    char err[200], want[64];
    ck_assert_int_eq(presets_builtin(&pl, err, sizeof err), 0);
    Screen *k = kvcalc_open(&ui);
    for (int i = 0; i < pl.n; i++, k->key(k, &ui, 'j'))
        for (int z = 0; z < 2; z++) {
            Canvas *c = draw_at(k, size[z][0], size[z][1]);
            int title = row_of(c, pl.v[i].title);
            ck_assert_msg(title > 0, "%s: no title at %dx%d", pl.v[i].name, size[z][0], size[z][1]);
            snprintf(want, sizeof want, ">%s", pl.v[i].name);
            int marked = row_of(c, want);
            ck_assert_msg(marked > 0 && marked < title, "%s: not marked above its detail",
                          pl.v[i].name);
            for (int j = 0; j < pl.n; j++) { /* each list name above the detail */
                snprintf(want, sizeof want, "%s ", pl.v[j].name);
                int y = row_of(c, want);
                ck_assert_msg(y > 0 && y < title, "%s's row beside %s's detail at %dx%d",
                              pl.v[j].name, pl.v[i].name, size[z][0], size[z][1]);
            }
            canvas_free(c);
        }
    k->free(k);
    presets_free(&pl);
}
END_TEST

/* Each note is shown whole (Falcon's num_kv_heads trap was cut with "..."),
 * and nothing on the screen is cut. */
START_TEST(notes_are_whole)
{
    static const int size[][2] = {{80, 24}, {120, 40}};
    PresetList pl;
    char err[200], screen[8192], note[1024];
    ck_assert_int_eq(presets_builtin(&pl, err, sizeof err), 0);
    Screen *k = kvcalc_open(&ui);
    for (int i = 0; i < pl.n; i++, k->key(k, &ui, 'j'))
        for (int z = 0; z < 2; z++) {
            const char *text = pl.v[i].note[0] ? pl.v[i].note : pl.v[i].source;
            Canvas *c = draw_at(k, size[z][0], size[z][1]);
            words_of(c, screen, sizeof screen);
            squeeze(text, note, sizeof note);
            ck_assert_msg(strstr(screen, note) != NULL, "%s's note cut at %dx%d", pl.v[i].name,
                          size[z][0], size[z][1]);
            ck_assert_msg(!canvas_contains(c, "..."), "%s: \"...\" at %dx%d", pl.v[i].name,
                          size[z][0], size[z][1]);
            if (size[z][1] >= 40) { /* tall: the source too */
                squeeze(pl.v[i].source, note, sizeof note);
                ck_assert_msg(strstr(screen, note) != NULL, "%s's source cut", pl.v[i].name);
            }
            canvas_free(c);
        }
    k->free(k);
    presets_free(&pl);
}
END_TEST

static Suite *kvcalc_suite(void)
{
    Suite *s = suite_create("kvcalc");
    TCase *tc = tcase_create("screen");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, detail_sits_below_the_list);
    tcase_add_test(tc, notes_are_whole);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(kvcalc_suite)
