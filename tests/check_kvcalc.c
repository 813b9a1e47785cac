/* check_kvcalc.c - the KV-cache calculator screen (src/ui/kvcalc.c) drawn
 * on a Canvas at 80x24 and 120x40: the detail of the selected model sits
 * beside that model's row, and each preset's note is shown whole. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "content/kv.h"
#include "content/presets.h"
#include "draw/canvas.h"
#include "ui/lessonui.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

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
    screen_draw(s, &ui, c);
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
    for (int i = 0; i < pl.n; i++, screenstack_send(k, &ui, 'j', NULL))
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
    screen_close(k);
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
    for (int i = 0; i < pl.n; i++, screenstack_send(k, &ui, 'j', NULL))
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
    screen_close(k);
    presets_free(&pl);
}
END_TEST

/* The screen on preset `name` (Down pressed until it is selected). */
static Screen *open_on(const char *name)
{
    PresetList pl;
    char err[200];
    ck_assert_int_eq(presets_builtin(&pl, err, sizeof err), 0);
    Screen *k = kvcalc_open(&ui);
    int i = 0;
    while (i < pl.n && strcmp(pl.v[i].name, name))
        i++;
    ck_assert_int_lt(i, pl.n);
    for (int j = 0; j < i; j++)
        screenstack_send(k, &ui, 'j', NULL);
    presets_free(&pl);
    return k;
}

/* Falcon 7B's one kv head reads "1 kv head (MQA)", not "1 kv heads". */
START_TEST(one_kv_head_is_singular)
{
    Screen *k = open_on("falcon-7b");
    Canvas *c = draw_at(k, 80, 24);
    ck_assert(canvas_contains(c, "1 kv head (MQA)"));
    ck_assert(!canvas_contains(c, "1 kv heads"));
    canvas_free(c);
    screen_close(k);
}
END_TEST

/* Past the trained context the screen says "hypothetical", in the words of
 * `mhaviz kv` (kv_hypothetical); it had no mark at all. */
START_TEST(hypothetical_is_marked)
{
    Screen *k = open_on("llama-3-8b");
    Canvas *c = draw_at(k, 80, 24);
    ck_assert(!canvas_contains(c, "hypothetical"));
    canvas_free(c);
    screenstack_send(k, &ui, '+', NULL); /* 8,192 -> 16,384 */
    c = draw_at(k, 80, 24);
    ck_assert(canvas_contains(
        c, "hypothetical: 16,384 tokens is beyond the 8,192 the model was trained for"));
    canvas_free(c);
    screen_close(k);
}
END_TEST

/* + and B pressed past the end stop at `mhaviz kv`'s own limits, and the
 * line with the largest numbers is whole in 80 columns (the batch was cut
 * to "104857"). */
START_TEST(largest_context_and_batch_fit)
{
    Screen *k = open_on("llama-4-maverick");
    for (int i = 0; i < 60; i++) {
        screenstack_send(k, &ui, '+', NULL);
        screenstack_send(k, &ui, 'B', NULL);
    }
    ck_assert_ptr_nonnull(strstr(ui.status, "largest"));
    for (int i = 0; i < 3; i++) /* fp16 -> bf16 -> fp8 -> int4 (the widest line) */
        screenstack_send(k, &ui, 'd', NULL);
    Canvas *c = draw_at(k, 80, 24);
    char want[120], a[40], b[40];
    snprintf(want, sizeof want, "dtype int4 (4 bits)   context %s   batch %s",
             kv_fmt_int(a, sizeof a, (uint64_t)KV_MAX_CONTEXT),
             kv_fmt_int(b, sizeof b, (uint64_t)KV_MAX_BATCH));
    ck_assert_msg(canvas_contains(c, want), "no whole line \"%s\"", want);
    ck_assert(!canvas_contains(c, "..."));
    canvas_free(c);
    screen_close(k);
}
END_TEST

/* A URL wider than the column breaks only after a '/' (canvas_wrap cut it
 * mid-name: "blob/mai" + "n/config.json"; a wrapper of its own, urlwrap,
 * made up for it); every piece but the last ends in '/', and the pieces put
 * back together are the URL. */
START_TEST(urls_break_after_a_slash)
{
    static const char url[] =
        "https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json:";
    char text[200], row[256], joined[200] = "";
    snprintf(text, sizeof text, "%s num_hidden_layers=32", url);
    for (int w = 20; w <= 60; w += 5) {
        Canvas *c = canvas_new(w, 12);
        int n = canvas_wrap(c, 0, 0, w, 12, text, ST_NORMAL);
        ck_assert_int_eq(canvas_wrap_lines(text, w, 12), n);
        joined[0] = 0;
        for (int y = 0; y < n; y++) {
            canvas_row(c, y, 1, row, sizeof row);
            size_t len = strlen(row);
            while (len && row[len - 1] == ' ')
                row[--len] = 0;
            char *sp = strchr(row, ' '); /* the URL's end, words after it */
            if (sp)
                *sp = 0;
            else
                ck_assert_msg(row[len - 1] == '/' || row[len - 1] == ':', "w %d cut: %s", w, row);
            strcat(joined, row);
            if (sp || row[len - 1] == ':') break;
        }
        ck_assert_str_eq(joined, url);
        canvas_free(c);
    }
}
END_TEST

static Suite *kvcalc_suite(void)
{
    Suite *s = suite_create("kvcalc");
    TCase *tc = tcase_create("screen");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, detail_sits_below_the_list);
    tcase_add_test(tc, notes_are_whole);
    tcase_add_test(tc, hypothetical_is_marked);
    tcase_add_test(tc, one_kv_head_is_singular);
    tcase_add_test(tc, largest_context_and_batch_fit);
    tcase_add_test(tc, urls_break_after_a_slash);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(kvcalc_suite)
