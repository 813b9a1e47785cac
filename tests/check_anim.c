/* check_anim.c - the walkthrough's animations, drawn at every phase and read
 * back: no label is ever overdrawn, and step 8's counter counts exactly the
 * floats the picture shows landed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/scene.h"
#include "engine/mha.h"
#include "scene_util.h"

static const int sizes[][2] = {{80, 24}, {120, 40}, {200, 60}};
#define NSIZES (int)(sizeof sizes / sizeof *sizes)
#define DOT 0x00B7 /* an empty slot of a bar: a float still to land */

static Mha *run_cfg(int heads, int seq)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    cfg.heads = cfg.kv_heads = heads;
    cfg.seq = seq;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

static Canvas *draw_at(const Mha *m, int step, double anim, int w, int h)
{
    SceneState s = scene_state_default();
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    s.step = step;
    s.anim = anim;
    scene_draw(c, 0, 0, w, h, m, &s);
    return c;
}

/* "this step: N B copied" of the title row. */
static long counter(const Canvas *c)
{
    char buf[1024];
    char *p = strstr(su_row(c, 0, buf, sizeof buf), "this step: ");
    ck_assert_ptr_nonnull(p);
    return strtol(p + strlen("this step: "), NULL, 10);
}

/* Every label character of the final frame f (anything not blank) is still
 * there in p, outside rows [y0, y1) (the region that fills up) and the title
 * row (the counter).  A cell of p may differ from f only where f is blank and
 * p draws the moving cell (ST_CURSOR).  Returns the first bad cell as text. */
static int labels_intact(const Canvas *f, const Canvas *p, int y0, int y1, char *why, size_t n)
{
    for (int y = 1; y < f->h; y++) {
        if (y >= y0 && y < y1) continue;
        for (int x = 0; x < f->w; x++) {
            const Cell *a = canvas_at(f, x, y), *b = canvas_at(p, x, y);
            if (a->ch == b->ch) continue;
            if (a->ch == ' ' && b->style == ST_CURSOR) continue; /* in flight, on a blank */
            snprintf(why, n, "cell (%d, %d): U+%04X became U+%04X", x, y, (unsigned)a->ch,
                     (unsigned)b->ch);
            return 0;
        }
    }
    return 1;
}

/* Step 8 at every phase 0..1 by 0.05: labels intact, the new buffer's cells
 * either as in the final frame or still empty, and the counter 4 bytes (the
 * engine's bytes per float) for each cell drawn landed. */
static void check_copy(const Mha *m, int w, int h)
{
    const Tensor *t = m->t[MT_MERGED_CONTIG];
    long n = (long)tensor_numel(t);
    long per = (long)(m->steps[MS_CONTIG].bytes_copied / (size_t)n);
    Canvas *f = draw_at(m, MS_CONTIG, -1, w, h);
    int ty = su_find_row(f, "to: new storage", 0), ly = su_find_row(f, "logical view:", ty);
    if (ly < 0) /* a wide frame (200x60): the logical view beside, the narrative below */
        ly = su_find_row(f, ".contiguous() is", ty);
    char why[128];
    ck_assert_int_eq(per, (long)sizeof(float));
    ck_assert_msg(ty > 0 && ly > ty, "%dx%d: no target bar", w, h);
    ck_assert_int_eq(su_find_row(f, "showing offsets", 0), -1); /* every slot on screen */
    for (int k = 0; k <= 20; k++) {
        double ph = k * 0.05;
        Canvas *p = draw_at(m, MS_CONTIG, ph, w, h);
        long dots = 0;
        ck_assert_msg(labels_intact(f, p, ty + 1, ly, why, sizeof why), "%dx%d phase %.2f: %s", w,
                      h, ph, why);
        for (int y = ty + 1; y < ly; y++)
            for (int x = 0; x < w; x++) {
                const Cell *a = canvas_at(f, x, y), *b = canvas_at(p, x, y);
                dots += b->ch == DOT;
                ck_assert_msg(a->ch == b->ch || b->ch == ' ' || b->ch == DOT ||
                                  b->style == ST_CURSOR,
                              "%dx%d phase %.2f: target cell (%d, %d) U+%04X, final U+%04X", w, h,
                              ph, x, y, (unsigned)b->ch, (unsigned)a->ch);
            }
        ck_assert_msg(counter(p) == per * (n - dots),
                      "%dx%d phase %.2f: counter %ld B, %ld floats drawn landed", w, h, ph,
                      counter(p), n - dots);
        ck_assert_int_eq(counter(p) % per, 0);
        canvas_free(p);
    }
    canvas_free(f);
}

START_TEST(test_copy_animation_every_phase)
{
    Mha *m = run_cfg(2, 4);
    for (int i = 0; i < NSIZES; i++)
        check_copy(m, sizes[i][0], sizes[i][1]);
    mha_free(m);
}
END_TEST

/* A mid-way frame does show a partial copy: the check above has something to
 * catch (the counter strictly between 0 and the total, some slots empty). */
START_TEST(test_copy_animation_is_partial_midway)
{
    Mha *m = run_cfg(2, 4);
    Canvas *p = draw_at(m, MS_CONTIG, 0.5, 80, 24);
    long bytes = (long)m->steps[MS_CONTIG].bytes_copied;
    ck_assert_int_gt(counter(p), 0);
    ck_assert_int_lt(counter(p), bytes);
    ck_assert_int_eq(counter(p), bytes / 2);
    canvas_free(p);
    mha_free(m);
}
END_TEST

/* With one head the copy copies nothing: no animation, 0 B at every phase. */
START_TEST(test_no_copy_no_animation)
{
    Mha *m = run_cfg(1, 4);
    ck_assert_int_eq((long)m->steps[MS_CONTIG].bytes_copied, 0);
    for (int k = 0; k <= 20; k++) {
        Canvas *p = draw_at(m, MS_CONTIG, k * 0.05, 80, 24);
        ck_assert_int_eq(counter(p), 0);
        canvas_free(p);
    }
    mha_free(m);
}
END_TEST

/* The counter floors: a float counts only once it has landed, so at 0.05 one
 * float of 32 has (4 B), at 0.99 31 have (124 B, the last still in flight),
 * and at every phase p of a fine sweep it says 4 * floor(p * 32) bytes,
 * never the total before the copy is over. */
START_TEST(test_copy_counter_floors)
{
    Mha *m = run_cfg(2, 4);
    long n = (long)tensor_numel(m->t[MT_MERGED_CONTIG]);
    long bytes = (long)m->steps[MS_CONTIG].bytes_copied;
    Canvas *p = draw_at(m, MS_CONTIG, 0.05, 80, 24);
    ck_assert_int_eq(n, 32);
    ck_assert_int_eq(counter(p), 4);
    canvas_free(p);
    p = draw_at(m, MS_CONTIG, 0.99, 80, 24);
    ck_assert_int_eq(counter(p), 124);
    canvas_free(p);
    for (int k = 0; k < 100; k++) {
        double ph = k / 100.0;
        p = draw_at(m, MS_CONTIG, ph, 80, 24);
        ck_assert_msg(counter(p) == 4 * (long)(ph * (double)n), "phase %.2f: %ld B", ph,
                      counter(p));
        ck_assert_int_lt(counter(p), bytes);
        canvas_free(p);
    }
    mha_free(m);
}
END_TEST

/* A cell nothing is drawn on: a space in the plain style (a head's run or a
 * lit slot has a background colour, so its spaces are not blank). */
static int blank(const Cell *c)
{
    return c && c->ch == ' ' && c->style == ST_NORMAL;
}

/* The moving cells of frame p are its cells that differ from the still frame
 * s of the same phase (the same state with still = 1).  Each is drawn over a
 * cell that is blank in s, and each run of them has a blank cell of p on
 * either side: it covers nothing and runs into nothing.  Returns the number
 * of moving cells, or -1 with the first bad cell in why. */
static int moves_on_blanks(const Canvas *s, const Canvas *p, char *why, size_t n)
{
    int moving = 0;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++) {
            const Cell *a = canvas_at(s, x, y), *b = canvas_at(p, x, y);
            int x1 = x;
            if (a->ch == b->ch && a->style == b->style) continue;
            for (; x1 < s->w; x1++) {
                const Cell *c = canvas_at(s, x1, y), *d = canvas_at(p, x1, y);
                if (c->ch == d->ch && c->style == d->style) break;
                if (!blank(c)) {
                    char row[1024];
                    snprintf(
                        why, n,
                        "cell (%d, %d) U+%04X (style %d) drawn over U+%04X (style %d): '%.80s'", x1,
                        y, (unsigned)d->ch, d->style, (unsigned)c->ch, c->style,
                        su_row(p, y, row, sizeof row));
                    return -1;
                }
                moving++;
            }
            if (!blank(canvas_at(p, x - 1, y)) || !blank(canvas_at(p, x1, y))) {
                char row[1024];
                snprintf(why, n, "cells %d..%d of row %d run into a neighbour: '%.80s'", x, x1 - 1,
                         y, su_row(p, y, row, sizeof row));
                return -1;
            }
            x = x1;
        }
    return moving;
}

/* The two animations that move cells (step 3's regrouping, step 8's copy)
 * at every phase 0.00..0.99 by 0.01, at 80x24 and 120x40, with MHA, more
 * heads, a batch and GQA: moving cells cross only blank cells.  Step 3
 * moves values at every phase, step 8 has its float in flight on screen at
 * some (the check has something to check). */
START_TEST(test_moving_cells_cross_only_blanks)
{
    static const int cfgs[][4] = {{1, 2, 2, 4}, {1, 4, 4, 4}, {2, 2, 2, 4}, {1, 4, 2, 4}};
    static const int steps[] = {MS_HEADS, MS_CONTIG};
    char why[256];
    int shown8 = 0;
    for (int c = 0; c < 4; c++) {
        MhaConfig cfg = mha_config_default();
        char err[256];
        cfg.batch = cfgs[c][0], cfg.heads = cfgs[c][1], cfg.kv_heads = cfgs[c][2];
        cfg.seq = cfgs[c][3];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        for (int i = 0; i < 2; i++)
            for (int st = 0; st < 2; st++) {
                int w = sizes[i][0], h = sizes[i][1], flying = 0;
                for (int k = 0; k < 100; k++) {
                    SceneState ss = scene_state_default();
                    Canvas *s = canvas_new(w, h), *p = canvas_new(w, h);
                    int moved;
                    ss.step = steps[st];
                    ss.anim = k / 100.0;
                    scene_draw(p, 0, 0, w, h, m, &ss);
                    ss.still = 1;
                    scene_draw(s, 0, 0, w, h, m, &ss);
                    moved = moves_on_blanks(s, p, why, sizeof why);
                    ck_assert_msg(moved >= 0, "B%d H%d KV%d step %d %dx%d phase %.2f: %s",
                                  cfg.batch, cfg.heads, cfg.kv_heads, ss.step, w, h, ss.anim, why);
                    flying += moved > 0;
                    canvas_free(s);
                    canvas_free(p);
                }
                /* step 3's values all move at once; step 8's one float shows
                 * only where its path crosses blank cells (the lit source and
                 * slot show it otherwise) */
                if (st == 0)
                    ck_assert_int_eq(flying, 100);
                else
                    shown8 += flying;
            }
        mha_free(m);
    }
    ck_assert_int_gt(shown8, 0);
}
END_TEST

/* Is the word of row text `row` starting at column x a number (a value)? */
static int is_value(const char *row, int x, int len)
{
    char word[64], *end;
    if (len >= (int)sizeof word) return 0;
    if (row[x] == '@') x++, len--; /* a tall cell's storage offset, "@23" */
    memcpy(word, row + x, (size_t)len);
    word[len] = 0;
    strtod(word, &end);
    return *end == 0;
}

/* Below row gy (the logical view's title), every word of the final frame f
 * that is not a number (a token or head label, the narrative) is in p at the
 * same place with blank cells either side: no value covers or touches it.
 * Rows up to gy are identical. */
static int words_intact(const Canvas *f, const Canvas *p, int gy, char *why, size_t n)
{
    char rf[1024], rp[1024];
    for (int y = 0; y < f->h; y++) {
        su_row(f, y, rf, sizeof rf);
        su_row(p, y, rp, sizeof rp);
        if (y <= gy) {
            if (strcmp(rf, rp))
                return snprintf(why, n, "row %d: '%.80s' became '%.80s'", y, rf, rp), 0;
            continue;
        }
        for (int x = 0; rf[x];) {
            int len = 0;
            if (rf[x] == ' ') {
                x++;
                continue;
            }
            while (rf[x + len] && rf[x + len] != ' ')
                len++;
            if (!is_value(rf, x, len) &&
                (strncmp(rf + x, rp + x, (size_t)len) || (x > 0 && rp[x - 1] != ' ') ||
                 (rp[x + len] && rp[x + len] != ' ')))
                return snprintf(why, n, "row %d col %d: '%.*s' in '%.80s'", y, x, len, rf + x, rp),
                       0;
            x += len;
        }
    }
    return 1;
}

/* Step 3's regrouping at every phase 0..1 by 0.05: the heads-first frame's
 * labels (title, program, panel, head and token names, narrative) intact. */
START_TEST(test_heads_animation_keeps_labels)
{
    Mha *m = run_cfg(2, 4);
    char why[256];
    for (int i = 0; i < NSIZES; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        Canvas *f = draw_at(m, MS_HEADS, -1, w, h);
        int gy = su_find_row(f, "logical view:", 0);
        ck_assert_int_gt(gy, 0);
        for (int k = 0; k <= 20; k++) {
            double ph = k * 0.05;
            Canvas *p = draw_at(m, MS_HEADS, ph, w, h);
            ck_assert_msg(words_intact(f, p, gy, why, sizeof why), "%dx%d phase %.2f: %s", w, h, ph,
                          why);
            canvas_free(p);
        }
        canvas_free(f);
    }
    mha_free(m);
}
END_TEST

static Suite *anim_suite(void)
{
    Suite *s = suite_create("anim");
    TCase *tc = tcase_create("phases");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_copy_animation_every_phase);
    tcase_add_test(tc, test_copy_animation_is_partial_midway);
    tcase_add_test(tc, test_no_copy_no_animation);
    tcase_add_test(tc, test_copy_counter_floors);
    tcase_add_test(tc, test_moving_cells_cross_only_blanks);
    tcase_add_test(tc, test_heads_animation_keeps_labels);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(anim_suite)
