/* check_scene.c - every walkthrough frame, drawn from a real run and read back. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/scene.h"
#include "engine/mha.h"
#include "scene_util.h"

static Mha *run_default(void)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

static Canvas *draw(const Mha *m, const SceneState *s, int w, int h)
{
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    scene_draw(c, 0, 0, w, h, m, s);
    return c;
}

static Canvas *draw_step(const Mha *m, int step, int w, int h)
{
    SceneState s = scene_state_default();
    s.step = step;
    return draw(m, &s, w, h);
}

/* Whitespace-separated words of an ASCII row, with their columns. */
typedef struct Tok {
    int col;
    char text[32];
} Tok;

static int tokens(const char *row, Tok *out, int max)
{
    int n = 0;
    for (int i = 0; row[i] && n < max;) {
        if (row[i] == ' ') {
            i++;
            continue;
        }
        int j = i;
        while (row[j] && row[j] != ' ')
            j++;
        out[n].col = i;
        snprintf(out[n].text, sizeof out[n].text, "%.*s", j - i, row + i);
        n++;
        i = j;
    }
    return n;
}

static int is_int(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* The candy bar under the "memory S" title: the offsets in drawing order,
 * each with the style of its cell.  Returns how many. */
static int candy_offsets(const Canvas *c, long *off, int *style, int max)
{
    char buf[1024];
    int y = su_find_row(c, "memory S", 0), n = 0;
    ck_assert_int_ge(y, 0);
    for (y++; y < c->h; y++) {
        Tok t[128];
        int k = tokens(su_row(c, y, buf, sizeof buf), t, 128);
        if (k == 0 || !is_int(t[0].text)) break;
        for (int i = 0; i < k && n < max; i++) {
            if (!is_int(t[i].text)) continue; /* a value (has a '.') */
            off[n] = strtol(t[i].text, NULL, 10);
            style[n] = canvas_at(c, t[i].col, y)->style;
            n++;
        }
    }
    return n;
}

/* Every row of c as ASCII, joined with single spaces (runs of spaces squeezed),
 * so a wrapped sentence can be searched as one line.  Caller frees. */
static char *flat_text(const Canvas *c)
{
    size_t n = (size_t)c->h * ((size_t)c->w + 1) + 1, k = 0;
    char *out = malloc(n), row[1024];
    ck_assert_ptr_nonnull(out);
    for (int y = 0; y < c->h; y++) {
        su_row(c, y, row, sizeof row);
        for (const char *p = row; *p; p++)
            if (*p != ' ' || (k > 0 && out[k - 1] != ' ')) out[k++] = *p;
        if (k > 0 && out[k - 1] != ' ') out[k++] = ' ';
    }
    out[k] = '\0';
    return out;
}

static int flat_contains(const Canvas *c, const char *s)
{
    char *t = flat_text(c);
    int found = strstr(t, s) != NULL;
    free(t);
    return found;
}

/* ---- each step shows its code, shape and strides ----------------------- */

START_TEST(test_steps_show_code_shape_strides)
{
    Mha *m = run_default();
    for (int i = 0; i < MS_COUNT; i++) {
        Canvas *c = draw_step(m, i, 80, 24);
        const MhaStep *st = &m->steps[i];
        const Tensor *out = m->t[st->output];
        char want[128];
        /* at 80x24 the code line is one row: all the step ran, or the
         * statement that made its tensor */
        const char *made = st->code;
        for (int k = 0; k < st->n_ran; k++)
            if (!strncmp(st->ran[k], mha_tensor_names[st->output],
                         strlen(mha_tensor_names[st->output])))
                made = st->ran[k];
        ck_assert_msg(canvas_contains(c, st->code) || canvas_contains(c, made),
                      "step %d: code '%s'", i, st->code);
        tensor_fmt_dims(want, sizeof want, out->ndim, out->shape);
        ck_assert_msg(canvas_contains(c, want), "step %d: shape %s", i, want);
        tensor_fmt_strides(want, sizeof want, out);
        ck_assert_msg(canvas_contains(c, want), "step %d: strides %s", i, want);
        if (st->n_inputs > 0) {
            const Tensor *in = m->t[st->inputs[0]];
            tensor_fmt_dims(want, sizeof want, in->ndim, in->shape);
            ck_assert_msg(canvas_contains(c, want), "step %d: shape before %s", i, want);
            tensor_fmt_strides(want, sizeof want, in);
            ck_assert_msg(canvas_contains(c, want), "step %d: strides before %s", i, want);
            /* "->", not an arrow glyph the ASCII backend would turn into '>' */
            snprintf(want, sizeof want, "S%d -> S%d", in->st->id, out->st->id);
            ck_assert_msg(canvas_contains(c, want), "step %d: storage %s", i, want);
            snprintf(want, sizeof want, "contiguous %s -> %s",
                     tensor_is_contiguous(in) ? "yes" : "no",
                     tensor_is_contiguous(out) ? "yes" : "no");
            ck_assert_msg(canvas_contains(c, want), "step %d: %s", i, want);
            ck_assert_msg(!canvas_contains(c, "\xe2\x86\x92"), "step %d: arrow glyph", i);
        }
        snprintf(want, sizeof want, "step %d/%d", i, MS_COUNT - 1);
        ck_assert(canvas_contains(c, want));
        /* the program lines the step runs are marked, and only those (the
         * default's program is 8 lines, a step's lit ones in its 6 rows); the
         * input comes before the program, so step 0 marks none */
        MhaPanel pn;
        int marked = 0, lit = 0, len;
        mha_panel(&m->cfg, MV_STEP, &pn);
        for (int k = 0; k < pn.n; k++)
            lit += mha_panel_lit(&pn, k, i, &len) != NULL;
        for (int y = 1; y <= 6; y++)
            marked += canvas_at(c, 0, y)->ch == 0x25B6;
        ck_assert_int_eq(marked, lit);
        ck_assert_int_eq(lit > 0, i != MS_INPUT);
        ck_assert_int_gt(su_count_style(c, ST_CODE_HI, NULL, NULL), 0);
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

/* ---- the candy bar: Q's storage, offsets 0..31, coloured by head ---------- */

START_TEST(test_candy_bar_offsets_and_heads)
{
    Mha *m = run_default();
    const int steps[] = {MS_PROJECT, MS_SPLIT, MS_HEADS};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        Canvas *c = draw_step(m, steps[k], 80, 24);
        long off[64];
        int style[64];
        int n = candy_offsets(c, off, style, 64);
        const Tensor *q = m->t[MT_Q];
        ck_assert_int_eq(n, (int)q->st->n); /* 32: every float of Q's storage */
        ck_assert_int_eq(n, 32);
        ck_assert(canvas_contains(c, "memory S"));
        for (int i = 0; i < n; i++) {
            ck_assert_int_eq(off[i], i);
            if (steps[k] == MS_PROJECT) {
                ck_assert_int_eq(style[i], ST_NORMAL); /* no heads yet */
            } else {
                int head = (int)((off[i] % m->cfg.d_model) / m->d_head);
                ck_assert_msg(style[i] == (int)ST_HEAD(head), "step %d offset %ld: style %d",
                              steps[k], off[i], style[i]);
            }
        }
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

START_TEST(test_candy_bar_values_are_the_storage)
{
    Mha *m = run_default();
    Canvas *c = draw_step(m, MS_SPLIT, 80, 24);
    char buf[1024], want[32];
    int y = su_find_row(c, "memory S", 0);
    /* at 80 columns the bar is one token per row, offset then value */
    for (int r = 0; r < m->cfg.seq; r++) {
        Tok t[64];
        int k = tokens(su_row(c, y + 1 + r, buf, sizeof buf), t, 64);
        ck_assert_int_eq(k, 2 * m->cfg.d_model);
        for (int i = 0; i < m->cfg.d_model; i++) {
            long o = (long)r * m->cfg.d_model + i;
            ck_assert_int_eq(strtol(t[2 * i].text, NULL, 10), o);
            snprintf(want, sizeof want, "%.2f", m->t[MT_Q]->st->data[o]);
            if (!strcmp(want, "-0.00")) strcpy(want, "0.00");
            ck_assert_str_eq(t[2 * i + 1].text, want);
        }
    }
    canvas_free(c);
    mha_free(m);
}
END_TEST

START_TEST(test_public_candy_bar)
{
    Mha *m = run_default();
    Canvas *c = canvas_new(80, 10);
    int rows = scene_candy_bar(c, 0, 0, 79, 10, m->t[MT_Q], 8, 2, 4, 5);
    ck_assert_int_eq(rows, 5); /* title + 4 tokens */
    int lx, ly;
    ck_assert_int_gt(su_count_style(c, ST_LIT, &lx, &ly), 0);
    char buf[256];
    Tok t[64];
    su_row(c, ly, buf, sizeof buf);
    int k = tokens(buf + lx, t, 1);
    ck_assert_int_eq(k, 1);
    ck_assert_str_eq(t[0].text, "5");
    /* offset 4 is head 1's first float */
    int c4 = su_find_col(c, 1, " 4 ");
    ck_assert_int_ge(c4, 0);
    ck_assert_int_eq(canvas_at(c, c4 + 1, 1)->style, ST_HEAD1);
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* ---- the copy counter ------------------------------------------------------ */

START_TEST(test_bytes_copied_from_engine)
{
    Mha *m = run_default();
    for (int i = 0; i < MS_COUNT; i++) {
        Canvas *c = draw_step(m, i, 80, 24);
        char want[64];
        size_t pass = 0;
        for (int k = 0; k <= i; k++)
            pass += m->steps[k].bytes_copied;
        /* this step's bytes, and the pass's so far, each labelled as such */
        snprintf(want, sizeof want, "this step: %zu B copied, pass so far: %zu B",
                 m->steps[i].bytes_copied, pass);
        ck_assert_msg(canvas_contains(c, want), "step %d: '%s'", i, want);
        canvas_free(c);
    }
    /* step 10 says 0 this step but the pass's 128-odd bytes, as its narrative does */
    {
        Canvas *c = draw_step(m, MS_OUT, 80, 24);
        char want[64];
        snprintf(want, sizeof want, "pass so far: %zu B", m->bytes_copied_total);
        ck_assert(canvas_contains(c, want));
        ck_assert(canvas_contains(c, "this step: 0 B copied"));
        canvas_free(c);
    }
    /* the one real copy is step 8, and the engine counted it */
    ck_assert_uint_gt(m->steps[MS_CONTIG].bytes_copied, 0);
    ck_assert_uint_eq(m->steps[MS_SPLIT].bytes_copied, 0);
    mha_free(m);
}
END_TEST

START_TEST(test_contiguous_animation_counter_climbs)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    size_t bytes = m->steps[MS_CONTIG].bytes_copied;
    char buf[1024];
    s.step = MS_CONTIG;
    ck_assert(scene_step_animates(MS_CONTIG));
    s.anim = 0.5;
    Canvas *c = draw(m, &s, 80, 24);
    su_row(c, 0, buf, sizeof buf);
    char *p = strstr(buf, "this step: ");
    ck_assert_ptr_nonnull(p);
    long shown = strtol(p + strlen("this step: "), NULL, 10);
    ck_assert_int_gt(shown, 0);
    ck_assert_int_lt(shown, (long)bytes);
    /* the new buffer is half filled: empty cells are drawn as a dim dot */
    ck_assert(canvas_contains(c, "\xc2\xb7"));
    canvas_free(c);
    s.anim = 0.0;
    c = draw(m, &s, 80, 24);
    ck_assert(canvas_contains(c, "this step: 0 B copied"));
    canvas_free(c);
    s.anim = 1.0; /* outside [0, 1): the final frame */
    c = draw(m, &s, 80, 24);
    snprintf(buf, sizeof buf, "this step: %zu B copied", bytes);
    ck_assert(canvas_contains(c, buf));
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* The logical index of t that storage offset off holds (brute force). */
static void held_at(const Tensor *t, long off, int *idx)
{
    int i[4] = {0};
    for (i[0] = 0; i[0] < t->shape[0]; i[0]++)
        for (i[1] = 0; i[1] < t->shape[1]; i[1]++)
            for (i[2] = 0; i[2] < t->shape[2]; i[2]++)
                for (i[3] = 0; i[3] < t->shape[3]; i[3]++)
                    if ((long)tensor_offset_of(t, i) == off) {
                        memcpy(idx, i, sizeof i);
                        return;
                    }
    ck_abort_msg("offset %ld not held", off);
}

/* The tags of the bar under the title row `title`: each word pair "h0 the"
 * or "0,3" in drawing order, as "head,token" (token as the word or number
 * the scene writes).  Returns how many. */
static int bar_tags(const Canvas *c, const char *title, char tags[][32], int max)
{
    char buf[1024];
    int y = su_find_row(c, title, 0), n = 0;
    ck_assert_int_ge(y, 0);
    for (y++; y < c->h; y++) {
        Tok t[64];
        int k = tokens(su_row(c, y, buf, sizeof buf), t, 64);
        if (k == 0 || !is_int(t[0].text)) break; /* the row's first offset */
        for (int i = 1; i < k && n < max; i++) {
            if (t[i].text[0] == 'h' && i + 1 < k) /* "h0" "the" */
                snprintf(tags[n++], 32, "%s,%s", t[i].text + 1, t[i + 1].text), i++;
            else if (strchr(t[i].text, ','))
                snprintf(tags[n++], 32, "%s", t[i].text);
        }
    }
    return n;
}

/* Step 8 without colour: both bars say which element each run of cells
 * holds, so the reorder reads in plain text: heads first, then tokens first. */
START_TEST(test_contiguous_bars_show_elements)
{
    const int cfgs[][3] = {{2, 2, 4}, {4, 2, 12}, {8, 8, 4}}; /* heads, kv_heads, seq */
    for (size_t k = 0; k < 3; k++) {
        MhaConfig cfg = mha_config_default();
        char err[256], tags[256][32];
        cfg.heads = cfgs[k][0], cfg.kv_heads = cfgs[k][1], cfg.seq = cfgs[k][2];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        Canvas *c = draw_step(m, MS_CONTIG, 80, 24);
        const Tensor *bars[2] = {m->t[MT_MERGED], m->t[MT_MERGED_CONTIG]};
        const char *titles[2] = {"from: storage S", "to: new storage S"};
        int dh = m->d_head, counts[2];
        char second[2][32];
        for (int b = 0; b < 2; b++) {
            int n = counts[b] = bar_tags(c, titles[b], tags, 256);
            ck_assert_msg(n >= 4, "config %zu bar %d: %d tags", k, b, n);
            for (int i = 0; i < n; i++) {
                int idx[4], ok = 0;
                char w[3][32];
                held_at(bars[b], (long)i * dh, idx);
                snprintf(w[0], 32, "%d,%s", idx[2], mha_token_word(idx[1])); /* h0 the */
                snprintf(w[1], 32, "%d,t%d", idx[2], idx[1]);                /* h0 t3 */
                snprintf(w[2], 32, "%d,%d", idx[2], idx[1]);                 /* 0,3 */
                for (int f = 0; f < 3; f++)
                    ok |= !strcmp(tags[i], w[f]);
                ck_assert_msg(ok, "config %zu bar %d run %d: '%s', want '%s'", k, b, i, tags[i],
                              w[2]);
            }
            snprintf(second[b], 32, "%s", tags[1]);
        }
        ck_assert_int_eq(counts[0], counts[1]);
        /* the reorder itself: the source's second run is head 0's next token,
         * the copy's is head 1 of the first token */
        ck_assert_msg(strcmp(second[0], second[1]) != 0, "config %zu: %s", k, second[0]);
        ck_assert_int_eq(second[1][0], '1');
        canvas_free(c);
        mha_free(m);
    }
}
END_TEST

START_TEST(test_split_animation_sweeps_colour_not_cells)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    long off[64], off2[64];
    int style[64], style2[64];
    s.step = MS_SPLIT;
    s.anim = 0.5;
    Canvas *c = draw(m, &s, 80, 24);
    int n = candy_offsets(c, off, style, 64);
    ck_assert(canvas_contains(c, "this step: 0 B copied"));
    canvas_free(c);
    s.anim = -1;
    c = draw(m, &s, 80, 24);
    int n2 = candy_offsets(c, off2, style2, 64);
    canvas_free(c);
    ck_assert_int_eq(n, n2);
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(off[i], off2[i]);     /* the cells do not move */
    ck_assert_int_eq(style[0], ST_HEAD0);      /* swept */
    ck_assert_int_eq(style[n - 1], ST_NORMAL); /* not yet */
    ck_assert_int_eq(style2[n - 1], ST_HEAD(1));
    ck_assert(scene_step_animates(MS_SPLIT) && scene_step_animates(MS_HEADS));
    ck_assert(!scene_step_animates(MS_SOFTMAX));
    mha_free(m);
}
END_TEST

START_TEST(test_heads_animation_draws_every_value)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    s.step = MS_HEADS;
    for (double a = 0; a < 1; a += 0.25) {
        s.anim = a;
        Canvas *c = draw(m, &s, 80, 24);
        /* a value of the last head, last token, last dim is on screen */
        int idx[4] = {0, m->cfg.heads - 1, m->cfg.seq - 1, m->d_head - 1};
        char want[32];
        snprintf(want, sizeof want, "%.2f", tensor_get(m->t[MT_Q_HEADS], idx));
        ck_assert_msg(canvas_contains(c, want), "phase %.2f: %s", a, want);
        ck_assert(canvas_contains(c, "this step: 0 B copied"));
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

/* ---- layout: nothing clipped ----------------------------------------------- */

/* What is wrong with a w x h frame drawn at the top left of the larger canvas
 * c, written to why; 0 when nothing: nothing lands outside the frame, the
 * frame's last column stays blank (a word that runs into the edge would be cut
 * there) but on its status row, the one status line of every screen
 * (canvas_status, which ends a cut text with "..." there), and, unless
 * allow_dots, no text is shortened with "...". */
static int clip_problem(const Canvas *c, int w, int h, int allow_dots, char *why, size_t n)
{
    char buf[2048];
    for (int y = 0; y < c->h; y++) {
        for (int x = 0; x < c->w; x++) {
            const Cell *cell = canvas_at(c, x, y);
            int edge = x >= w - 1 && !(x == w - 1 && y == h - 1 && cell->style == ST_STATUS);
            if ((edge || x >= w || y >= h) && cell->ch != ' ') {
                snprintf(why, n, "'%c' at %d,%d outside", canvas_ascii(cell->ch), x, y);
                return 1;
            }
        }
        canvas_row(c, y, 0, buf, sizeof buf); /* UTF-8: a shade is not a '.' here */
        if (!allow_dots && strstr(buf, "...")) {
            snprintf(why, n, "row %d shortened: %s", y, buf);
            return 1;
        }
    }
    return 0;
}

/* Draws s into a canvas wider and taller than the frame and asks
 * clip_problem; test_clip_check_can_fail shows that it can say no. */
static void check_unclipped(const Mha *m, const SceneState *s, int w, int h, int allow_dots)
{
    Canvas *c = canvas_new(w + 10, h + 2);
    char why[2200] = "";
    scene_draw(c, 0, 0, w, h, m, s);
    ck_assert_msg(!clip_problem(c, w, h, allow_dots, why, sizeof why), "step %d view %d %dx%d: %s",
                  s->step, s->view, w, h, why);
    canvas_free(c);
}

START_TEST(test_nothing_clipped_default)
{
    Mha *m = run_default();
    const int sizes[][2] = {{80, 24}, {200, 60}, {120, 40}};
    for (size_t k = 0; k < 3; k++)
        for (int i = 0; i < MS_COUNT; i++) {
            SceneState s = scene_state_default();
            s.step = i;
            check_unclipped(m, &s, sizes[k][0], sizes[k][1], 0);
            s.inspect = 1;
            s.cur[1] = 1, s.cur[2] = 1, s.cur[3] = 1;
            check_unclipped(m, &s, sizes[k][0], sizes[k][1], 0);
            s.status = "q quit  ? help  i inspect";
            check_unclipped(m, &s, sizes[k][0], sizes[k][1], 0);
        }
    for (size_t k = 0; k < 3; k++) {
        SceneState s = scene_state_default();
        s.step = MS_SOFTMAX;
        s.show_single = 1;
        check_unclipped(m, &s, sizes[k][0], sizes[k][1], 0);
        s.view = MV_WRONG_VIEW;
        check_unclipped(m, &s, sizes[k][0], sizes[k][1], 0);
        s.view = MV_NO_SCALE;
        check_unclipped(m, &s, sizes[k][0], sizes[k][1], 0);
    }
    mha_free(m);
}
END_TEST

/* GQA and MQA runs and a causal one: same promise at 80x24 and 200x60. */
START_TEST(test_nothing_clipped_variants)
{
    const int cfgs[][3] = {{2, 1, 0}, {4, 2, 1}, {8, 2, 0}}; /* heads, kv_heads, causal */
    for (size_t k = 0; k < 3; k++) {
        MhaConfig cfg = mha_config_default();
        char err[256];
        cfg.heads = cfgs[k][0], cfg.kv_heads = cfgs[k][1], cfg.causal = cfgs[k][2];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        for (int i = 0; i < MS_COUNT; i++) {
            SceneState s = scene_state_default();
            s.step = i;
            check_unclipped(m, &s, 80, 24, 0);
            check_unclipped(m, &s, 200, 60, 0);
        }
        mha_free(m);
    }
}
END_TEST

/* The check the tests above rely on must be able to fail: a clean frame
 * passes, and each way of clipping planted in it is caught: a word running
 * into the last column, text below the frame, a status the frame had to
 * shorten with "...". */
START_TEST(test_clip_check_can_fail)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    char why[2200];
    Canvas *c = canvas_new(90, 26);
    scene_draw(c, 0, 0, 80, 24, m, &s);
    ck_assert_msg(!clip_problem(c, 80, 24, 0, why, sizeof why), "%s", why);
    canvas_text(c, 76, 5, "edge", ST_NORMAL); /* its 'e' in column 79 */
    ck_assert(clip_problem(c, 80, 24, 0, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "'e' at 79,5 outside"));
    canvas_clear(c);
    scene_draw(c, 0, 0, 80, 24, m, &s);
    canvas_text(c, 1, 24, "below", ST_NORMAL);
    ck_assert(clip_problem(c, 80, 24, 0, why, sizeof why));
    canvas_free(c);
    c = canvas_new(90, 26);
    s.status = "a status line far too long for eighty columns, so the frame has to shorten "
               "it somewhere";
    scene_draw(c, 0, 0, 80, 24, m, &s);
    ck_assert(clip_problem(c, 80, 24, 0, why, sizeof why)); /* shortened, and it says so */
    ck_assert_ptr_nonnull(strstr(why, "row 23 shortened"));
    ck_assert(!clip_problem(c, 80, 24, 1, why, sizeof why)); /* allowed, still inside */
    canvas_free(c);
    mha_free(m);
}
END_TEST

START_TEST(test_big_config_clips_gracefully)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    cfg.seq = 16, cfg.d_model = 64, cfg.heads = 8, cfg.kv_heads = 2, cfg.batch = 2;
    cfg.causal = 1;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    const int sizes[][2] = {{80, 24}, {200, 60}, {81, 25}};
    for (size_t k = 0; k < 3; k++)
        for (int i = 0; i < MS_COUNT; i++)
            for (int v = 0; v < MV_COUNT; v++) {
                SceneState s = scene_state_default();
                s.step = i;
                s.view = (MhaView)v;
                s.inspect = 1;
                s.show_single = 1;
                for (int d = 0; d < 4; d++)
                    s.cur[d] = 1000; /* clamped to the last element */
                check_unclipped(m, &s, sizes[k][0], sizes[k][1], 1);
            }
    /* at 80x24 the heads-first view of 1024 floats says what it hides */
    Canvas *c = draw_step(m, MS_HEADS, 80, 24);
    ck_assert(canvas_contains(c, "hidden"));
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* Narrow value cells drop decimals for the whole grid, never cell by cell. */
START_TEST(test_values_share_decimals)
{
    MhaConfig cfg = mha_config_default();
    char err[256], buf[1024];
    cfg.batch = 3, cfg.seq = 7, cfg.d_model = 12, cfg.heads = 3, cfg.kv_heads = 3;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    Canvas *c = draw_step(m, MS_BACK, 80, 24);
    int y = su_find_row(c, "head 0", 0), rows = 0;
    ck_assert_int_ge(y, 0);
    for (int r = y + 1; r < y + 1 + cfg.seq; r++) {
        Tok t[64];
        int k = tokens(su_row(c, r, buf, sizeof buf), t, 64), dec = -1;
        ck_assert_int_eq(k, 1 + cfg.d_model); /* the word and every value */
        for (int i = 1; i < k; i++) {
            const char *dot = strchr(t[i].text, '.');
            int d = dot ? (int)strlen(dot + 1) : 0;
            if (dec < 0) dec = d;
            ck_assert_int_eq(d, dec);
        }
        rows++;
    }
    ck_assert_int_eq(rows, cfg.seq);
    canvas_free(c);
    mha_free(m);
}
END_TEST

START_TEST(test_enlarge_screen)
{
    Mha *m = run_default();
    const int sizes[][2] = {{40, 10}, {79, 24}, {80, 23}, {12, 3}, {1, 1}};
    for (size_t k = 0; k < 5; k++) {
        char want[64];
        Canvas *c = draw_step(m, MS_SPLIT, sizes[k][0], sizes[k][1]);
        snprintf(want, sizeof want, "enlarge to 80x24 (now %dx%d)", sizes[k][0], sizes[k][1]);
        if (sizes[k][0] >= 40) ck_assert_msg(canvas_contains(c, want), "%s", want);
        ck_assert(!canvas_contains(c, "step 2/10"));
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

/* ---- inspect ----------------------------------------------------------------- */

/* The "offset = ..." line for t at cur, written as the scene must. */
static void offset_line(const Tensor *t, const int *cur, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "offset = ");
    for (int i = 0; i < t->ndim; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%d\xc2\xb7%ld", i ? " + " : "", cur[i],
                              t->strides[i]);
    snprintf(buf + k, n - k, " = %zu", tensor_offset_of(t, cur));
}

/* Does a lit storage cell show offset `off`? */
static int lit_shows(const Canvas *c, long off)
{
    char buf[1024];
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            Tok tk[1];
            if (canvas_at(c, x, y)->style != ST_LIT ||
                (x > 0 && canvas_at(c, x - 1, y)->style == ST_LIT))
                continue;
            su_row(c, y, buf, sizeof buf);
            if (tokens(buf + x, tk, 1) == 1 && is_int(tk[0].text) &&
                strtol(tk[0].text, NULL, 10) == off)
                return 1;
        }
    return 0;
}

START_TEST(test_inspect_offset_and_lit_cell)
{
    Mha *m = run_default();
    const int steps[] = {MS_SPLIT, MS_HEADS, MS_BACK, MS_CONTIG, MS_SCORES, MS_SOFTMAX};
    const int curs[][4] = {{0, 2, 1, 3}, {0, 1, 2, 3}, {0, 3, 0, 0}, {0, 0, 1, 2}};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
        for (size_t j = 0; j < 4; j++) {
            SceneState s = scene_state_default();
            s.step = steps[k];
            s.inspect = 1;
            memcpy(s.cur, curs[j], sizeof s.cur);
            const Tensor *t = m->t[scene_inspect_tensor(&s)];
            for (int d = 0; d < t->ndim; d++) /* the scene clamps to the shape */
                if (s.cur[d] >= t->shape[d]) s.cur[d] = t->shape[d] - 1;
            char want[256];
            Canvas *c = draw(m, &s, 80, 24);
            offset_line(t, s.cur, want, sizeof want);
            ck_assert_msg(canvas_contains(c, want), "step %d: %s", steps[k], want);
            /* and the value held there, read from the tensor */
            {
                char head[256];
                size_t hk = (size_t)snprintf(head, sizeof head, "%s[",
                                             mha_tensor_names[scene_inspect_tensor(&s)]);
                for (int d = 0; d < t->ndim; d++)
                    hk += (size_t)snprintf(head + hk, sizeof head - hk, "%s%d", d ? ", " : "",
                                           s.cur[d]);
                snprintf(head + hk, sizeof head - hk,
                         "] = %.2f, offset = ", (double)tensor_get(t, s.cur));
                if (!strncmp(head + hk, "] = -0.00", 9)) /* the scene never writes -0.00 */
                    memmove(head + hk + 4, head + hk + 5, strlen(head + hk + 5) + 1);
                ck_assert_msg(canvas_contains(c, head), "step %d: %s", steps[k], head);
            }
            /* the cursor is drawn, and the lit storage cell shows that offset */
            ck_assert_int_gt(su_count_style(c, ST_CURSOR, NULL, NULL), 0);
            ck_assert_int_gt(su_count_style(c, ST_LIT, NULL, NULL), 0);
            ck_assert_msg(lit_shows(c, (long)tensor_offset_of(t, s.cur)), "step %d", steps[k]);
            if (steps[k] == MS_CONTIG) /* and where it is read from in the old storage */
                ck_assert(lit_shows(c, (long)tensor_offset_of(m->t[MT_MERGED], s.cur)));
            canvas_free(c);
        }
    /* the example of the brief: Q_split[0, 2, 1, 3] is offset 23 */
    {
        SceneState s = scene_state_default();
        s.step = MS_SPLIT;
        s.inspect = 1;
        s.cur[1] = 2, s.cur[2] = 1, s.cur[3] = 3;
        Canvas *c = draw(m, &s, 80, 24);
        ck_assert(canvas_contains(c, "offset = 0\xc2\xb7"
                                     "32 + 2\xc2\xb7"
                                     "8 + 1\xc2\xb7"
                                     "4 + 3\xc2\xb7"
                                     "1 = 23"));
        char buf[1024];
        int y = su_find_row(c, "offset = ", 0);
        canvas_row(c, y, 1, buf, sizeof buf); /* ASCII: the dot becomes '*' */
        ck_assert_ptr_nonnull(strstr(buf, "offset = 0*32 + 2*8 + 1*4 + 3*1 = 23"));
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

/* On a run too big for the screen, the views scroll so the cursor and its
 * storage cell stay visible. */
START_TEST(test_inspect_scrolls_big_runs)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    cfg.seq = 16, cfg.d_model = 64, cfg.heads = 8, cfg.kv_heads = 8;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    const int steps[] = {MS_INPUT, MS_SPLIT,  MS_HEADS,  MS_SCORES, MS_SOFTMAX,
                         MS_BACK,  MS_CONTIG, MS_CONCAT, MS_OUT};
    const int curs[][4] = {{0, 15, 7, 7}, {0, 12, 6, 5}, {0, 15, 63, 0}};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++)
        for (size_t j = 0; j < 3; j++) {
            SceneState s = scene_state_default();
            s.step = steps[k];
            s.inspect = 1;
            memcpy(s.cur, curs[j], sizeof s.cur);
            const Tensor *t = m->t[scene_inspect_tensor(&s)];
            for (int d = 0; d < t->ndim; d++)
                if (s.cur[d] >= t->shape[d]) s.cur[d] = t->shape[d] - 1;
            Canvas *c = draw(m, &s, 80, 24);
            ck_assert_msg(su_count_style(c, ST_CURSOR, NULL, NULL) > 0,
                          "step %d cur %zu: no cursor", steps[k], j);
            ck_assert_msg(lit_shows(c, (long)tensor_offset_of(t, s.cur)), "step %d cur %zu: no lit",
                          steps[k], j);
            canvas_free(c);
        }
    mha_free(m);
}
END_TEST

START_TEST(test_inspect_tensor_per_step)
{
    SceneState s = scene_state_default();
    const int want[MS_COUNT] = {MT_X,    MT_Q,        MT_Q_SPLIT, MT_Q_HEADS,       MT_SCORES,
                                MT_ATTN, MT_HEAD_OUT, MT_MERGED,  MT_MERGED_CONTIG, MT_CONCAT,
                                MT_OUT};
    for (int i = 0; i < MS_COUNT; i++) {
        s.step = i;
        ck_assert_int_eq(scene_inspect_tensor(&s), want[i]);
    }
    s.view = MV_WRONG_VIEW;
    ck_assert_int_eq(scene_inspect_tensor(&s), MT_Q_WRONG);
    s.view = MV_NO_SCALE;
    ck_assert_int_eq(scene_inspect_tensor(&s), MT_ATTN);
}
END_TEST

START_TEST(test_cursor_move_clamps)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    s.step = MS_SPLIT; /* (1, 4, 2, 4): rows tokens, columns head x d */
    s.inspect = 1;
    ck_assert_int_eq(scene_cursor_move(m, &s, -1, 0), 0);
    ck_assert_int_eq(scene_cursor_move(m, &s, 0, -1), 0);
    ck_assert_int_eq(scene_cursor_move(m, &s, 5, 2), 1);
    ck_assert_int_eq(s.cur[1], 2);
    ck_assert_int_eq(s.cur[2], 1); /* column 5 = head 1, d 1 */
    ck_assert_int_eq(s.cur[3], 1);
    ck_assert_int_eq(scene_cursor_move(m, &s, 100, 100), 1);
    ck_assert_int_eq(s.cur[1], 3);
    ck_assert_int_eq(s.cur[2], 1);
    ck_assert_int_eq(s.cur[3], 3);
    ck_assert_int_eq(scene_cursor_move(m, &s, 1, 1), 0);
    /* heads first: rows walk head by head */
    s.step = MS_HEADS;
    memset(s.cur, 0, sizeof s.cur);
    ck_assert_int_eq(scene_cursor_move(m, &s, 0, 5), 1);
    ck_assert_int_eq(s.cur[1], 1);
    ck_assert_int_eq(s.cur[2], 1);
    /* 3-D: (1, 4, 8) */
    s.step = MS_INPUT;
    memset(s.cur, 0, sizeof s.cur);
    ck_assert_int_eq(scene_cursor_move(m, &s, 7, 3), 1);
    ck_assert_int_eq(s.cur[1], 3);
    ck_assert_int_eq(s.cur[2], 7);
    mha_free(m);
}
END_TEST

START_TEST(test_click_selects_cells)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    int cx, cy, lx, ly;
    s.step = MS_HEADS;
    s.inspect = 1;
    s.cur[1] = 1, s.cur[2] = 2, s.cur[3] = 3;
    Canvas *c = draw(m, &s, 80, 24);
    ck_assert_int_gt(su_count_style(c, ST_CURSOR, &cx, &cy), 0);
    ck_assert_int_gt(su_count_style(c, ST_LIT, &lx, &ly), 0);
    canvas_free(c);
    /* a click on the cursor's cell selects that element */
    memset(s.cur, 0, sizeof s.cur);
    ck_assert_int_eq(scene_click(m, &s, 80, 24, cx, cy), 1);
    ck_assert_int_eq(s.cur[1], 1);
    ck_assert_int_eq(s.cur[2], 2);
    ck_assert_int_eq(s.cur[3], 3);
    /* a click on the storage cell selects the element stored there */
    memset(s.cur, 0, sizeof s.cur);
    ck_assert_int_eq(scene_click(m, &s, 80, 24, lx, ly), 1);
    int want[4] = {0, 1, 2, 3};
    ck_assert_uint_eq(tensor_offset_of(m->t[MT_Q_HEADS], s.cur),
                      tensor_offset_of(m->t[MT_Q_HEADS], want));
    /* not inspecting yet: the frame as drawn is what is hit */
    s.inspect = 0;
    memset(s.cur, 0, sizeof s.cur);
    s.step = MS_SPLIT;
    c = draw(m, &s, 80, 24);
    int gy = su_find_row(c, "logical view", 0);
    ck_assert_int_ge(gy, 0);
    int cy2 = su_find_row(c, "cat ", gy), cx2 = su_find_col(c, cy2, "cat ") + 6;
    canvas_free(c);
    ck_assert_int_eq(scene_click(m, &s, 80, 24, cx2, cy2), 1);
    ck_assert_int_eq(s.cur[1], 1); /* cat */
    ck_assert_int_eq(s.cur[2], 0); /* head 0 */
    ck_assert_int_eq(s.cur[3], 0); /* first dim */
    /* the title row is not a cell */
    ck_assert_int_eq(scene_click(m, &s, 80, 24, 3, 0), 0);
    ck_assert_int_eq(scene_click(m, &s, 40, 10, 3, 3), 0);
    mha_free(m);
}
END_TEST

/* ---- softmax ------------------------------------------------------------------ */

/* Sums of each heatmap row as printed, compared with the tensor's. */
START_TEST(test_softmax_heatmaps_rows_sum_to_one)
{
    for (int causal = 0; causal <= 1; causal++) {
        MhaConfig cfg = mha_config_default();
        char err[256], buf[1024];
        cfg.causal = causal;
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_ptr_nonnull(m);
        Canvas *c = draw_step(m, MS_SOFTMAX, 80, 24);
        int y = su_find_row(c, "rows sum to 1", 0), rows = 0;
        ck_assert_int_ge(y, 0);
        ck_assert(canvas_contains(c, "h0  the") && canvas_contains(c, "h1  the"));
        for (int r = y + 2; r < y + 2 + cfg.seq; r++) {
            Tok t[64];
            int k = tokens(su_row(c, r, buf, sizeof buf), t, 64);
            for (int i = 0; i < k; i++)
                if (!strcmp(t[i].text, "1.00")) rows++;
        }
        ck_assert_int_eq(rows, cfg.heads * cfg.seq);
        /* and the tensor agrees */
        const Tensor *a = m->t[MT_ATTN];
        for (int h = 0; h < cfg.heads; h++)
            for (int s = 0; s < cfg.seq; s++) {
                double sum = 0;
                for (int k = 0; k < cfg.seq; k++) {
                    int idx[4] = {0, h, s, k};
                    sum += tensor_get(a, idx);
                }
                ck_assert_double_eq_tol(sum, 1.0, 1e-5);
            }
        /* the mask: drawn as x above the diagonal, dim, only when causal */
        int masked = 0;
        for (int yy = 0; yy < c->h; yy++)
            for (int xx = 0; xx < c->w; xx++)
                if (canvas_at(c, xx, yy)->ch == 0x00D7 && canvas_at(c, xx, yy)->style == ST_DIM)
                    masked++;
        ck_assert_int_eq(masked, causal ? cfg.heads * cfg.seq * (cfg.seq - 1) / 2 : 0);
        canvas_free(c);
        mha_free(m);
    }
}
END_TEST

/* Who attends to whom can be read: each heatmap's key columns are labelled
 * with their token over the column, and the shades have a scale, also when
 * eight heads leave no room for the numbers. */
START_TEST(test_heatmap_keys_and_legend)
{
    Mha *m = run_default();
    char buf[1024];
    Canvas *c = draw_step(m, MS_SOFTMAX, 80, 24);
    int y = su_find_row(c, "h0  the", 0);
    ck_assert_int_gt(y, 0);
    ck_assert(canvas_contains(c, "weights: "));
    for (int k = 0; k < m->cfg.seq; k++) {
        /* the key's word sits over its column: the weight of row 0, key k */
        int idx[4] = {0, 0, 0, k}, col = su_find_col(c, y, mha_token_word(k));
        char want[16];
        snprintf(want, sizeof want, "%.2f", tensor_get(m->t[MT_ATTN], idx));
        ck_assert_int_ge(col, 0);
        ck_assert_msg(!strncmp(su_row(c, y + 1, buf, sizeof buf) + col + 1, want, strlen(want)),
                      "key %d '%s' at col %d over '%s'", k, mha_token_word(k), col, buf + col);
    }
    canvas_free(c);
    mha_free(m);
    MhaConfig cfg = mha_config_default();
    char err[256];
    cfg.heads = cfg.kv_heads = 8;
    m = mha_run(&cfg, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    c = draw_step(m, MS_SOFTMAX, 80, 24);
    ck_assert(canvas_contains(c, "weights: "));
    ck_assert(canvas_contains(c, "h7  t c s o")); /* initials where words do not fit */
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* Inspect at step 3 in the walkthrough (status line, one bar row): past
 * offset 24 the bar still shows the cell one token back (stride 8), so the
 * "jumps 8 floats per token" can be seen, not only the last 8 cells. */
START_TEST(test_inspect_keeps_jump_context)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    s.step = MS_HEADS, s.inspect = 1, s.status = "status";
    s.cur[1] = 1, s.cur[2] = 3, s.cur[3] = 2; /* offset 4 + 24 + 2 = 30 */
    Canvas *c = draw(m, &s, 80, 24);
    long off = (long)tensor_offset_of(m->t[MT_Q_HEADS], s.cur);
    int y = su_find_row(c, "memory S", 0);
    char want[32], buf[1024];
    ck_assert_int_eq(off, 30);
    ck_assert_int_gt(y, 0);
    su_row(c, y + 1, buf, sizeof buf);
    snprintf(want, sizeof want, " %ld ", off - m->t[MT_Q_HEADS]->strides[2]);
    ck_assert_msg(strstr(buf, want) != NULL, "no offset %s in '%s'", want, buf);
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* The panel's text on row y: what is right of the rule beside the program,
 * runs of spaces made one, "" when the row has no rule. */
static char *panel_text(const Canvas *c, int y, char *out, size_t n)
{
    char row[1024];
    size_t k = 0;
    int rule = -1;
    for (int x = 0; x < c->w && rule < 0; x++)
        if (canvas_at(c, x, y)->ch == 0x2502) rule = x;
    out[0] = '\0';
    if (rule < 0) return out;
    su_row(c, y, row, sizeof row);
    for (const char *p = row + rule + 1; *p && k + 1 < n; p++)
        if (*p != ' ' || (k > 0 && out[k - 1] != ' ')) out[k++] = *p;
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
    return out;
}

/* The panel's strides rows hold the engine's strides, in their places: the
 * step's input on the "strides" row, then exactly the step's output on the
 * "->" row below it (a panel showing the previous step's strides there was
 * missed while the narrative printed the right ones elsewhere on screen). */
START_TEST(test_panel_arrow_row_holds_this_steps_strides)
{
    Mha *m = run_default();
    for (int i = 0; i < MS_COUNT; i++) {
        Canvas *c = draw_step(m, i, 80, 24);
        const MhaStep *st = &m->steps[i];
        char got[256], want[256], s[128];
        int y = 1;
        while (y < c->h && strncmp(panel_text(c, y, got, sizeof got), "strides ", 8) != 0)
            y++;
        ck_assert_msg(y < c->h, "step %d: no strides row", i);
        if (st->n_inputs == 0) { /* the input: one strides row, its own */
            tensor_fmt_strides(s, sizeof s, m->t[st->output]);
            snprintf(want, sizeof want, "strides %s", s);
            ck_assert_str_eq(got, want);
        } else {
            tensor_fmt_strides(s, sizeof s, m->t[st->inputs[0]]);
            snprintf(want, sizeof want, "strides %s", s);
            ck_assert_msg(strcmp(got, want) == 0, "step %d: '%s', not '%s'", i, got, want);
            tensor_fmt_strides(s, sizeof s, m->t[st->output]);
            snprintf(want, sizeof want, "-> %s", s);
            panel_text(c, y + 1, got, sizeof got);
            ck_assert_msg(strcmp(got, want) == 0, "step %d: '->' row '%s', not '%s'", i, got, want);
        }
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

/* Panels that read as what they are: a rule between the program and the
 * shape/strides panel on every program row; tall cells' index rows say
 * their axes ((s, h, d) for merged, the bars of step 8); step 10's grid is
 * named y, as the code names it. */
START_TEST(test_panels_read_right)
{
    Mha *m = run_default();
    for (int step = 0; step < MS_COUNT; step++) {
        Canvas *c = draw_step(m, step, 80, 24);
        for (int y = 1; y <= 6; y++) { /* ▲ or ▼ where the program goes on out of sight */
            uint32_t ch = canvas_at(c, 51, y)->ch;
            ck_assert(ch == 0x2502 || (y == 1 && ch == 0x25B2) || (y == 6 && ch == 0x25BC));
        }
        if (step == MS_OUT) ck_assert(canvas_contains(c, "logical view: out (1, 4, 8)"));
        canvas_free(c);
    }
    Canvas *c = draw_step(m, MS_CONTIG, 200, 60);
    ck_assert(canvas_contains(c, "from: storage S12 (head_out), heads first; each cell: offset, "
                                 "value, head, index (s, h, d)"));
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* GQA and MQA are drawn, not only narrated: at steps 4 and 6 the shared K
 * (V) buffer under its expand view's strides, the 0 read from the engine,
 * and which query heads read which kv head.  MHA keeps the scores' bar. */
START_TEST(test_gqa_draws_the_expand)
{
    static const int kvs[] = {2, 1, 4}; /* GQA, MQA, MHA of 4 heads */
    for (int i = 0; i < 3; i++) {
        MhaConfig cfg = mha_config_default();
        char err[256], want[96], st[64];
        cfg.heads = 4, cfg.kv_heads = kvs[i];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_ptr_nonnull(m);
        for (int v = 0; v < 2; v++) {
            const Tensor *ex = m->t[v ? MT_V_EXPAND : MT_K_EXPAND];
            Canvas *c = draw_step(m, v ? MS_WEIGHTED : MS_SCORES, 80, 24);
            tensor_fmt_strides(st, sizeof st, ex);
            snprintf(want, sizeof want, "%s_expand (", v ? "V" : "K"); /* the picture's line */
            ck_assert_int_eq(canvas_contains(c, want), m->groups > 1);
            ck_assert_int_eq(canvas_contains(c, st), m->groups > 1);
            if (m->groups > 1) ck_assert_int_eq(ex->strides[2], 0);
            if (m->groups > 1) {
                snprintf(want, sizeof want, "q%d -> kv0", m->groups - 1);
                ck_assert_msg(canvas_contains(c, want), "no '%s'", want);
            }
            canvas_free(c);
        }
        mha_free(m);
    }
}
END_TEST

START_TEST(test_softmax_single_head_beside)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    s.step = MS_SOFTMAX;
    Canvas *c = draw(m, &s, 80, 24);
    ck_assert(!canvas_contains(c, "one big head "));
    ck_assert(flat_contains(c, "Press m to compare with one big head."));
    canvas_free(c);
    s.show_single = 1;
    c = draw(m, &s, 80, 24);
    /* the narrative no longer offers what is already on screen */
    ck_assert(!flat_contains(c, "Press m to compare"));
    ck_assert(flat_contains(c, "(m hides it)"));
    ck_assert(canvas_contains(c, "one big head"));
    ck_assert(canvas_contains(c, "Why they differ"));
    ck_assert(canvas_contains(c, "h1  the"));
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* The big head's title is never cut mid-word (review 2, finding 5): with four
 * heads, or three heads of six tokens in a batch, the block is too narrow for
 * "one big head" and says "big head" whole. */
START_TEST(test_big_head_title_whole)
{
    static const int cfgs[][4] = {{1, 4, 8, 4}, {2, 6, 24, 3}}; /* batch, seq, d_model, heads */
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        MhaConfig cfg = mha_config_default();
        char err[256];
        cfg.batch = cfgs[i][0], cfg.seq = cfgs[i][1], cfg.d_model = cfgs[i][2];
        cfg.heads = cfg.kv_heads = cfgs[i][3];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        SceneState s = scene_state_default();
        s.step = MS_SOFTMAX;
        s.show_single = 1;
        Canvas *c = draw(m, &s, 80, 24);
        ck_assert_msg(canvas_contains(c, "big head"), "config %zu", i);
        ck_assert_msg(!canvas_contains(c, "one b...") && !canvas_contains(c, "one big ..."),
                      "config %zu: title cut", i);
        canvas_free(c);
        mha_free(m);
    }
}
END_TEST

/* On a wide frame the narrative wraps at 100 columns, like text (finding 1b). */
START_TEST(test_narrative_width_capped)
{
    Mha *m = run_default();
    Canvas *c = draw_step(m, MS_OUT, 200, 60);
    char buf[1024];
    int y = su_find_row(c, "mixes the heads back", 0), lines = 0;
    ck_assert_int_ge(y, 0);
    for (; y < c->h; y++) {
        size_t n = strlen(su_row(c, y, buf, sizeof buf));
        while (n > 0 && buf[n - 1] == ' ')
            n--;
        if (n == 0) break;
        ck_assert_msg(n <= 100, "row %d is %zu wide: %s", y, n, buf);
        lines++;
    }
    ck_assert_int_ge(lines, 2);                      /* it wrapped */
    ck_assert(flat_contains(c, "in .contiguous()")); /* and all of it is there */
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* Review 2, finding 4: with four heads of four tokens at 80x24 the heads-first
 * steps show every head's every token (head blocks side by side), clicks land
 * on what is drawn; eight heads of eight tokens get eight heatmaps. */
START_TEST(test_many_heads_all_shown_80x24)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    const int steps[] = {MS_HEADS, MS_SCORES, MS_WEIGHTED};
    cfg.heads = 4, cfg.kv_heads = 2, cfg.d_model = 16, cfg.seq = 4;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    for (size_t i = 0; i < 3; i++) {
        const Tensor *t = m->t[scene_inspect_tensor(&(SceneState){.step = steps[i]})];
        SceneState s = scene_state_default();
        s.step = steps[i];
        Canvas *c = draw(m, &s, 80, 24);
        ck_assert_msg(!canvas_contains(c, "hidden"), "step %d hides rows", steps[i]);
        for (int h = 0; h < t->shape[1]; h++)
            for (int r = 0; r < t->shape[2]; r++)
                for (int k = 0; k < t->shape[3]; k++) {
                    int idx[4] = {0, h, r, k};
                    char want[32];
                    snprintf(want, sizeof want, "%.2f", tensor_get(t, idx));
                    if (!strcmp(want, "-0.00")) strcpy(want, "0.00");
                    ck_assert_msg(canvas_contains(c, want), "step %d [%d,%d,%d]: %s", steps[i], h,
                                  r, k, want);
                }
        canvas_free(c);
        check_unclipped(m, &s, 80, 24, 0);
        /* the last head's last value: drawn with the cursor, and a click there selects it */
        s.inspect = 1;
        s.cur[1] = t->shape[1] - 1, s.cur[2] = t->shape[2] - 1, s.cur[3] = t->shape[3] - 1;
        c = draw(m, &s, 80, 24);
        int fx, fy;
        ck_assert_int_gt(su_count_style(c, ST_CURSOR, &fx, &fy), 0);
        canvas_free(c);
        SceneState s2 = s;
        memset(s2.cur, 0, sizeof s2.cur);
        ck_assert(scene_click(m, &s2, 80, 24, fx, fy));
        ck_assert(!memcmp(s2.cur, s.cur, sizeof s.cur));
    }
    mha_free(m);

    cfg = mha_config_default();
    cfg.heads = 8, cfg.kv_heads = 2, cfg.d_model = 16, cfg.seq = 8;
    m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    SceneState s = scene_state_default();
    s.step = MS_SOFTMAX;
    Canvas *c = draw(m, &s, 80, 24);
    ck_assert(canvas_contains(c, "head 0") && canvas_contains(c, "head 7"));
    ck_assert(!canvas_contains(c, "hidden"));
    ck_assert(canvas_contains(c, mha_token_word(7))); /* every token row */
    canvas_free(c);
    check_unclipped(m, &s, 80, 24, 0);
    mha_free(m);
}
END_TEST

START_TEST(test_failure_views)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    char buf[1024];
    s.view = MV_WRONG_VIEW;
    Canvas *c = draw(m, &s, 80, 24);
    ck_assert(canvas_contains(c, "Q.view(B, H, S, dh)"));
    /* the bug's head 0 holds the second row of storage: token 0's second half */
    int y = su_find_row(c, "bug:", 0);
    ck_assert_int_ge(y, 0);
    su_row(c, y + 2, buf, sizeof buf);
    const Tensor *w = m->t[MT_Q_WRONG];
    int idx[4] = {0, 0, 1, 0};
    size_t off = tensor_offset_of(w, idx);
    ck_assert_ptr_nonnull(strstr(buf, mha_token_word((int)(off / (size_t)m->cfg.d_model))));
    canvas_free(c);

    s.view = MV_NO_SCALE;
    c = draw(m, &s, 80, 24);
    ck_assert(canvas_contains(c, "without / sqrt(dh)"));
    ck_assert(canvas_contains(c, "largest weight in a row"));
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* A scene does not know the theme (NO_COLOR, ASCII): no text may rest on
 * colour, and the split step says in words that nothing moves. */
/* Heads-first tensors are drawn heads first at every size, inspecting or
 * not: a block of token rows per head, each head named at column 0, never the
 * tokens-first layout with "head 0" over columns (step 2's picture). */
START_TEST(test_heads_first_stays_stacked)
{
    const int cfgs[][3] = {{2, 2, 4}, {4, 2, 12}, {8, 8, 16}}; /* heads, kv_heads, seq */
    const int sizes[][2] = {{80, 24}, {120, 40}};
    const int steps[] = {MS_HEADS, MS_SCORES, MS_WEIGHTED};
    for (size_t k = 0; k < 3; k++) {
        MhaConfig cfg = mha_config_default();
        char err[256];
        cfg.heads = cfgs[k][0], cfg.kv_heads = cfgs[k][1], cfg.seq = cfgs[k][2];
        if (cfg.heads == 8) cfg.d_model = 64;
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        for (size_t z = 0; z < 2; z++)
            for (size_t i = 0; i < 3; i++)
                for (int mode = 0; mode < 2; mode++) {
                    SceneState s = scene_state_default();
                    char buf[1024];
                    s.step = steps[i];
                    if (mode) { /* the reported case: inspecting, with a status line */
                        s.inspect = 1;
                        s.cur[1] = cfg.heads - 1, s.cur[2] = cfg.seq - 1;
                        s.status = "q quit  ? help  i inspect";
                    }
                    Canvas *c = draw(m, &s, sizes[z][0], sizes[z][1]);
                    int y = su_find_row(c, "logical view:", 0), heads = 0, last = -1;
                    ck_assert_int_ge(y, 0);
                    for (int r = y + 1; r < c->h; r++) {
                        int h;
                        su_row(c, r, buf, sizeof buf);
                        ck_assert_msg(strncmp(buf, "    head 0", 10) && !strstr(buf, "  head 1  "),
                                      "cfg %zu %dx%d step %d mode %d: tokens-first row '%s'", k,
                                      sizes[z][0], sizes[z][1], steps[i], mode, buf);
                        /* a head's label starts a block: at column 0, or after a
                         * gap when the blocks sit side by side */
                        for (int p = 0; buf[p]; p++)
                            if (buf[p] == 'h' &&
                                (p == 0 || (p >= 2 && !strncmp(buf + p - 2, "  ", 2))) &&
                                sscanf(buf + p + 1, "%d", &h) == 1 &&
                                isdigit((unsigned char)buf[p + 1])) {
                                ck_assert_int_gt(h, last); /* h0, h1, ... in order */
                                last = h, heads++;
                            }
                    }
                    if (mode) { /* the cursor (last head, last token) is on screen */
                        ck_assert_int_gt(su_count_style(c, ST_CURSOR, NULL, NULL), 0);
                        ck_assert_int_eq(last, cfg.heads - 1);
                    } else if (cfg.heads <= 4) { /* every head has its block */
                        ck_assert_msg(heads == cfg.heads, "cfg %zu %dx%d step %d: %d heads", k,
                                      sizes[z][0], sizes[z][1], steps[i], heads);
                    }
                    canvas_free(c);
                }
        mha_free(m);
    }
}
END_TEST

START_TEST(test_text_holds_without_colour)
{
    Mha *m = run_default();
    for (int v = 0; v < MV_COUNT; v++)
        for (int i = 0; i < MS_COUNT; i++) {
            SceneState s = scene_state_default();
            s.step = i;
            s.view = (MhaView)v;
            Canvas *c = draw(m, &s, 80, 24);
            char *f = flat_text(c);
            ck_assert_msg(strstr(f, "colour") == NULL && strstr(f, "color") == NULL,
                          "view %d step %d: %s", v, i, f);
            if (v == MV_STEP && i == MS_SPLIT) {
                char want[64];
                snprintf(want, sizeof want, "only read in groups of %d", m->d_head);
                ck_assert_msg(strstr(f, want) != NULL, "%s", f);
            }
            free(f);
            canvas_free(c);
        }
    mha_free(m);
}
END_TEST

START_TEST(test_narrative_toggle)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    char want[64];
    s.step = MS_CONTIG;
    Canvas *c = draw(m, &s, 80, 24);
    snprintf(want, sizeof want, "(%zu bytes)", m->steps[MS_CONTIG].bytes_copied);
    ck_assert(canvas_contains(c, want));
    canvas_free(c);
    s.narrative = 0;
    c = draw(m, &s, 80, 24);
    ck_assert(!canvas_contains(c, want));
    canvas_free(c);
    /* default state */
    s = scene_state_default();
    ck_assert_int_eq(s.step, 0);
    ck_assert_int_eq(s.inspect, 0);
    ck_assert(s.anim < 0);
    ck_assert_int_eq(s.narrative, 1);
    mha_free(m);
}
END_TEST

/* ---- tall frames: bigger cells, the space spread ------------------------------ */

/* A projector's sizes: the frame uses them, it does not stretch 80x24. */
static const int tall_sizes[][2] = {{120, 40}, {200, 60}};
#define MAX_HOLE 5 /* blank rows in a row, at most, between the title and the last text */

static int row_blank(const Canvas *c, int y)
{
    for (int x = 0; x < c->w; x++)
        if (canvas_at(c, x, y)->ch != ' ') return 0;
    return 1;
}

/* The longest run of blank rows between the title and the frame's last text. */
static int longest_hole(const Canvas *c)
{
    int last = c->h - 1, run = 0, best = 0;
    while (last > 0 && row_blank(c, last))
        last--;
    for (int y = 1; y < last; y++) {
        run = row_blank(c, y) ? run + 1 : 0;
        if (run > best) best = run;
    }
    return best;
}

/* Every picture a tall frame can show: each step with inspect off and on,
 * the single big head, and both failure views (inspect off and on). */
#define TALL_VARIANTS (2 * MS_COUNT + 1 + 2 * 2)
static SceneState tall_variant(int v)
{
    SceneState s = scene_state_default();
    if (v < 2 * MS_COUNT) {
        s.step = v / 2;
        s.inspect = v % 2;
    } else if (v == 2 * MS_COUNT) {
        s.step = MS_SOFTMAX;
        s.show_single = 1;
    } else {
        v -= 2 * MS_COUNT + 1;
        s.step = MS_SOFTMAX;
        s.view = v / 2 ? MV_NO_SCALE : MV_WRONG_VIEW;
        s.inspect = v % 2;
    }
    s.cur[1] = 1, s.cur[2] = 1, s.cur[3] = 1; /* clamped where the tensor is smaller */
    return s;
}

static Mha *run_cfg(int heads, int kv_heads, int causal)
{
    MhaConfig cfg = mha_config_default();
    char err[256];
    cfg.heads = heads, cfg.kv_heads = kv_heads, cfg.causal = causal;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

START_TEST(test_tall_frames_have_no_holes)
{
    const int cfgs[][3] = {{2, 2, 0}, {4, 2, 1}}; /* heads, kv_heads, causal */
    for (size_t k = 0; k < 2; k++) {
        Mha *m = run_cfg(cfgs[k][0], cfgs[k][1], cfgs[k][2]);
        for (size_t z = 0; z < 2; z++)
            for (int v = 0; v < TALL_VARIANTS; v++) {
                SceneState s = tall_variant(v);
                int w = tall_sizes[z][0], h = tall_sizes[z][1];
                Canvas *c = draw(m, &s, w, h);
                int hole = longest_hole(c);
                ck_assert_msg(hole <= MAX_HOLE,
                              "config %zu %dx%d step %d view %d inspect %d: %d blank rows", k, w, h,
                              s.step, s.view, s.inspect, hole);
                canvas_free(c);
                check_unclipped(m, &s, w, h, 0);
            }
        mha_free(m);
    }
}
END_TEST

/* The hole check can fail: an 80x24 frame with a line of text far under it. */
START_TEST(test_hole_check_can_fail)
{
    Mha *m = run_default();
    SceneState s = scene_state_default();
    Canvas *c = canvas_new(80, 60);
    s.step = MS_SPLIT;
    scene_draw(c, 0, 0, 80, 24, m, &s);
    ck_assert_int_le(longest_hole(c), MAX_HOLE);
    canvas_text(c, 0, 59, "status", ST_NORMAL);
    ck_assert_int_gt(longest_hole(c), MAX_HOLE);
    canvas_free(c);
    mha_free(m);
}
END_TEST

/* Rows of the frame holding a cell of style st, above row `below`. */
static int style_rows(const Canvas *c, int st, int below)
{
    int n = 0;
    for (int y = 0; y < below && y < c->h; y++)
        for (int x = 0; x < c->w; x++)
            if (canvas_at(c, x, y)->style == st) {
                n++;
                break;
            }
    return n;
}

/* Bigger cells: the cursor's cell, its storage cell and a heatmap cell are
 * several rows tall on a tall frame and one row at 80x24; a tall candy bar
 * cell has its offset above its value. */
START_TEST(test_tall_frames_have_tall_cells)
{
    Mha *m = run_default();
    const int steps[] = {MS_SPLIT, MS_HEADS, MS_SOFTMAX, MS_CONTIG};
    for (size_t z = 0; z < 3; z++)
        for (size_t i = 0; i < 4; i++) {
            SceneState s = scene_state_default();
            int w = z < 2 ? tall_sizes[z][0] : 80, h = z < 2 ? tall_sizes[z][1] : 24;
            s.step = steps[i];
            s.inspect = 1;
            s.cur[1] = 1, s.cur[2] = 1, s.cur[3] = 1;
            Canvas *c = draw(m, &s, w, h);
            int iy = su_find_row(c, "offset = ", 0); /* the inspect line is ST_LIT too */
            ck_assert_int_ge(iy, 0);
            int cur_rows = style_rows(c, ST_CURSOR, iy), lit_rows = style_rows(c, ST_LIT, iy);
            if (z < 2) {
                /* step 8's two bars take the rows: its grid may stay compact */
                ck_assert_msg(s.step == MS_CONTIG || cur_rows >= 2, "%dx%d step %d: cursor %d rows",
                              w, h, s.step, cur_rows);
                ck_assert_msg(s.step == MS_SOFTMAX || lit_rows >= 2, "%dx%d step %d: lit %d rows",
                              w, h, s.step, lit_rows);
            } else {
                ck_assert_int_eq(cur_rows, 1);
            }
            if (s.step == MS_SOFTMAX) {
                /* the heat cell under the cursor prints its weight */
                char want[16], buf[1024];
                int found = 0;
                snprintf(want, sizeof want, "%.2f", tensor_get(m->t[MT_ATTN], s.cur));
                for (int y = 0; y < iy; y++) {
                    su_row(c, y, buf, sizeof buf);
                    for (char *p = strstr(buf, want); p; p = strstr(p + 1, want))
                        found |= canvas_at(c, (int)(p - buf), y)->style == ST_CURSOR;
                }
                ck_assert_msg(found, "%dx%d: no %s in the cursor's cell", w, h, want);
            }
            canvas_free(c);
        }
    /* step 0 at 120x40: the bar's first row is offsets 0.., the next their values */
    {
        char buf[1024], want[16];
        Tok t[64];
        Canvas *c = draw_step(m, MS_INPUT, 120, 40);
        int y = su_find_row(c, "memory S", 0);
        ck_assert_int_ge(y, 0);
        int n = tokens(su_row(c, y + 1, buf, sizeof buf), t, 64);
        ck_assert_int_ge(n, 4);
        for (int i = 0; i < n; i++)
            ck_assert_int_eq(atoi(t[i].text), i);
        n = tokens(su_row(c, y + 2, buf, sizeof buf), t, 64);
        for (int i = 0; i < n; i++) {
            snprintf(want, sizeof want, "%.2f", m->t[MT_X]->st->data[i]);
            ck_assert_str_eq(t[i].text, want);
        }
        canvas_free(c);
    }
    mha_free(m);
}
END_TEST

/* Clicking any cell the cursor or the lit storage cell covers selects the
 * cursor's element again (every row of a tall cell), at every tall size. */
START_TEST(test_tall_click_hits_what_is_drawn)
{
    Mha *m = run_default();
    for (size_t z = 0; z < 2; z++)
        for (int v = 0; v < TALL_VARIANTS; v++) {
            SceneState s = tall_variant(v);
            int w = tall_sizes[z][0], h = tall_sizes[z][1], ti, clicks = 0;
            if (!s.inspect) continue;
            Canvas *c = draw(m, &s, w, h);
            int iy = su_find_row(c, "offset = ", 0);
            ck_assert_int_ge(iy, 0);
            ti = scene_inspect_tensor(&s);
            SceneState drawn = s;
            scene_cursor_move(m, &drawn, 0, 0); /* clamped as drawn */
            for (int y = 0; y < iy; y++)
                for (int x = 0; x < w; x++) {
                    int st = canvas_at(c, x, y)->style;
                    SceneState t = s;
                    if (st != ST_CURSOR && st != ST_LIT) continue;
                    memset(t.cur, 0, sizeof t.cur);
                    ck_assert_msg(scene_click(m, &t, w, h, x, y) == 1,
                                  "%dx%d step %d view %d: no hit at %d,%d", w, h, s.step, s.view, x,
                                  y);
                    if (st == ST_CURSOR)
                        ck_assert_msg(!memcmp(t.cur, drawn.cur, sizeof t.cur),
                                      "%dx%d step %d view %d: cursor cell %d,%d selects another", w,
                                      h, s.step, s.view, x, y);
                    else
                        ck_assert_msg(tensor_offset_of(m->t[ti], t.cur) ==
                                          tensor_offset_of(m->t[ti], drawn.cur),
                                      "%dx%d step %d: lit cell %d,%d is another offset", w, h,
                                      s.step, x, y);
                    clicks++;
                }
            ck_assert_msg(clicks >= 2, "%dx%d step %d view %d: nothing to click", w, h, s.step,
                          s.view);
            canvas_free(c);
        }
    mha_free(m);
}
END_TEST

/* The other way round: wherever a click selects an element, the frame drawn
 * for that element has its cursor or its storage cell there. */
START_TEST(test_tall_click_then_draw_agree)
{
    Mha *m = run_default();
    const int steps[] = {MS_INPUT, MS_SPLIT, MS_HEADS, MS_SOFTMAX, MS_CONTIG};
    for (size_t i = 0; i < 5 + 2; i++) {
        SceneState s = scene_state_default();
        int w = 120, h = 40, hits = 0;
        s.step = i < 5 ? steps[i] : MS_SOFTMAX;
        if (i == 5) s.view = MV_WRONG_VIEW;
        if (i == 6) s.view = MV_NO_SCALE;
        for (int y = 1; y < h; y++)
            for (int x = 0; x < w; x += 3) {
                SceneState t = s;
                if (!scene_click(m, &t, w, h, x, y)) continue;
                t.inspect = 1;
                Canvas *c = draw(m, &t, w, h);
                int st = canvas_at(c, x, y)->style;
                ck_assert_msg(st == ST_CURSOR || st == ST_LIT,
                              "step %d view %d: click at %d,%d, cursor drawn elsewhere", s.step,
                              s.view, x, y);
                canvas_free(c);
                hits++;
            }
        ck_assert_msg(hits > 10, "step %d view %d: %d hits", s.step, s.view, hits);
    }
    mha_free(m);
}
END_TEST

/* Animations on a tall frame: step 2's colours sweep over cells that stay
 * put, step 3 keeps every value on screen, step 8's counter climbs with a
 * cell in flight. */
START_TEST(test_tall_animations)
{
    Mha *m = run_default();
    for (size_t z = 0; z < 2; z++) {
        int w = tall_sizes[z][0], h = tall_sizes[z][1];
        SceneState s = scene_state_default();
        char a[1024], b[1024];
        s.step = MS_SPLIT;
        s.anim = 0.5;
        Canvas *c = draw(m, &s, w, h);
        s.anim = -1;
        Canvas *d = draw(m, &s, w, h);
        int y = su_find_row(c, "memory S", 0);
        ck_assert_int_eq(y, su_find_row(d, "memory S", 0));
        /* offsets and values in the same places */
        for (int k = 1; k <= 2; k++)
            ck_assert_str_eq(su_row(c, y + k, a, sizeof a), su_row(d, y + k, b, sizeof b));
        /* the last offset's cell, wherever its row is */
        char last[32];
        snprintf(last, sizeof last, " %ld", (long)m->t[MT_Q_SPLIT]->st->n - 1);
        int y1 = su_find_row(c, last, y + 1), x1 = y1 < 0 ? -1 : su_find_col(c, y1, last) + 1;
        int x0 = su_find_col(c, y + 1, "0");
        ck_assert_int_ge(x1, 0);
        ck_assert_int_eq(canvas_at(c, x0, y + 1)->style, ST_HEAD0); /* swept */
        ck_assert_int_eq(canvas_at(c, x1, y1)->style, ST_NORMAL);   /* not yet */
        ck_assert_int_eq(canvas_at(d, x1, y1)->style, ST_HEAD(1));
        canvas_free(c);
        canvas_free(d);

        s.step = MS_HEADS;
        for (double ph = 0; ph < 1; ph += 0.25) {
            int idx[4] = {0, m->cfg.heads - 1, m->cfg.seq - 1, m->d_head - 1};
            char want[32];
            s.anim = ph;
            c = draw(m, &s, w, h);
            snprintf(want, sizeof want, "%.2f", tensor_get(m->t[MT_Q_HEADS], idx));
            ck_assert_msg(canvas_contains(c, want), "%dx%d phase %.2f: %s", w, h, ph, want);
            canvas_free(c);
            check_unclipped(m, &s, w, h, 1); /* its title says "regrouping by head..." */
        }

        s.step = MS_CONTIG;
        s.anim = 0.45;
        c = draw(m, &s, w, h);
        su_row(c, 0, a, sizeof a);
        char *p = strstr(a, "this step: ");
        ck_assert_ptr_nonnull(p);
        long shown = strtol(p + strlen("this step: "), NULL, 10);
        ck_assert_int_gt(shown, 0);
        ck_assert_int_lt(shown, (long)m->steps[MS_CONTIG].bytes_copied);
        ck_assert_int_gt(su_count_style(c, ST_CURSOR, NULL, NULL), 0); /* the cell in flight */
        ck_assert(canvas_contains(c, "\xc2\xb7"));                     /* still empty cells */
        canvas_free(c);
        check_unclipped(m, &s, w, h, 0);
    }
    mha_free(m);
}
END_TEST

/* Just above the minimum the layout may grow, never break: every variant
 * from 80x24 to 81x25 and a few sizes between stays unclipped. */
START_TEST(test_sizes_between)
{
    Mha *m = run_default();
    const int sizes[][2] = {{80, 25}, {81, 26}, {90, 30}, {100, 34}, {160, 48}};
    for (size_t z = 0; z < 5; z++)
        for (int v = 0; v < TALL_VARIANTS; v++) {
            SceneState s = tall_variant(v);
            check_unclipped(m, &s, sizes[z][0], sizes[z][1], 0);
        }
    mha_free(m);
}
END_TEST

/* Other shapes on tall frames: one token and one head, three heads, a
 * batch, more tokens, a big run; every picture draws inside the frame. */
START_TEST(test_tall_frames_other_configs)
{
    const int cfgs[][6] = {
        /* seq, d_model, heads, kv_heads, batch, causal */
        {1, 8, 1, 1, 1, 0},  {6, 12, 3, 3, 1, 0},  {4, 8, 2, 1, 2, 1},
        {8, 16, 4, 2, 1, 0}, {16, 64, 8, 2, 2, 1},
    };
    const int sizes[][2] = {{120, 40}, {200, 60}, {100, 30}, {160, 50}};
    for (size_t k = 0; k < 5; k++) {
        MhaConfig cfg = mha_config_default();
        char err[256];
        cfg.seq = cfgs[k][0], cfg.d_model = cfgs[k][1], cfg.heads = cfgs[k][2];
        cfg.kv_heads = cfgs[k][3], cfg.batch = cfgs[k][4], cfg.causal = cfgs[k][5];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        for (size_t z = 0; z < 4; z++)
            for (int v = 0; v < TALL_VARIANTS; v++) {
                SceneState s = tall_variant(v);
                check_unclipped(m, &s, sizes[z][0], sizes[z][1], k == 4);
            }
        mha_free(m);
    }
}
END_TEST

/* Issue 20: at 200x60 the frame fills the width, not its left half: every
 * step uses at least 80% of the columns (title and status rows left out),
 * for the configurations a lecture shows. */
START_TEST(test_wide_frames_use_the_width)
{
    const int cfgs[][4] = {{1, 2, 2, 0}, {1, 4, 4, 0}, {1, 2, 1, 0}, {2, 2, 2, 0}, {1, 4, 2, 1}};
    for (size_t k = 0; k < sizeof cfgs / sizeof *cfgs; k++) {
        MhaConfig cfg = mha_config_default();
        char err[256];
        cfg.batch = cfgs[k][0], cfg.heads = cfgs[k][1], cfg.kv_heads = cfgs[k][2];
        cfg.causal = cfgs[k][3];
        Mha *m = mha_run(&cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        for (int step = 0; step < MS_COUNT; step++) {
            SceneState s = scene_state_default();
            s.step = step;
            Canvas *c = draw(m, &s, 200, 60);
            int used = su_cols_used(c, 1, 59);
            ck_assert_msg(used * 10 >= 200 * 8, "config %zu step %d: %d of 200 columns", k, step,
                          used);
            canvas_free(c);
        }
        mha_free(m);
    }
}
END_TEST

/* Issue 17: at 80x24 a big configuration's strides were cut mid-number,
 * "strides (262144, 64, 32...".  Text that does not fit ends after a whole
 * number: the digit before "..." never belongs to a number that goes on. */
START_TEST(strides_are_never_cut_mid_number)
{
    MhaConfig cfg = mha_config_default();
    cfg.seq = 64, cfg.d_model = 256, cfg.heads = cfg.kv_heads = 16;
    char err[300];
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    Canvas *c = canvas_new(80, 24);
    int cuts = 0;
    for (int step = 0; step < MS_COUNT; step++) {
        SceneState s = scene_state_default();
        s.step = step;
        canvas_clear(c);
        scene_draw(c, 0, 0, 80, 24, m, &s);
        for (int y = 0; y < c->h; y++)
            for (int x = 1; x + 2 < c->w; x++) {
                const Cell *r = &c->cells[y * c->w];
                if (r[x].ch != '.' || r[x + 1].ch != '.' || r[x + 2].ch != '.') continue;
                cuts++;
                ck_assert_msg(!(r[x - 1].ch >= '0' && r[x - 1].ch <= '9'),
                              "step %d row %d: a number cut before '...'", step, y);
            }
    }
    ck_assert_int_gt(cuts, 0); /* the configuration does cut something */
    canvas_free(c);
    mha_free(m);
}
END_TEST

static Suite *scene_suite(void)
{
    Suite *s = suite_create("scene");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_steps_show_code_shape_strides);
    tcase_add_test(tc, strides_are_never_cut_mid_number);
    tcase_add_test(tc, test_panel_arrow_row_holds_this_steps_strides);
    tcase_add_test(tc, test_candy_bar_offsets_and_heads);
    tcase_add_test(tc, test_candy_bar_values_are_the_storage);
    tcase_add_test(tc, test_public_candy_bar);
    tcase_add_test(tc, test_bytes_copied_from_engine);
    tcase_add_test(tc, test_contiguous_animation_counter_climbs);
    tcase_add_test(tc, test_contiguous_bars_show_elements);
    tcase_add_test(tc, test_split_animation_sweeps_colour_not_cells);
    tcase_add_test(tc, test_heads_animation_draws_every_value);
    tcase_add_test(tc, test_nothing_clipped_default);
    tcase_add_test(tc, test_nothing_clipped_variants);
    tcase_add_test(tc, test_clip_check_can_fail);
    tcase_add_test(tc, test_big_config_clips_gracefully);
    tcase_add_test(tc, test_values_share_decimals);
    tcase_add_test(tc, test_enlarge_screen);
    tcase_add_test(tc, test_inspect_offset_and_lit_cell);
    tcase_add_test(tc, test_inspect_scrolls_big_runs);
    tcase_add_test(tc, test_inspect_tensor_per_step);
    tcase_add_test(tc, test_cursor_move_clamps);
    tcase_add_test(tc, test_click_selects_cells);
    tcase_add_test(tc, test_softmax_heatmaps_rows_sum_to_one);
    tcase_add_test(tc, test_softmax_single_head_beside);
    tcase_add_test(tc, test_heatmap_keys_and_legend);
    tcase_add_test(tc, test_inspect_keeps_jump_context);
    tcase_add_test(tc, test_panels_read_right);
    tcase_add_test(tc, test_gqa_draws_the_expand);
    tcase_add_test(tc, test_failure_views);
    tcase_add_test(tc, test_heads_first_stays_stacked);
    tcase_add_test(tc, test_text_holds_without_colour);
    tcase_add_test(tc, test_narrative_toggle);
    tcase_add_test(tc, test_tall_frames_have_no_holes);
    tcase_add_test(tc, test_hole_check_can_fail);
    tcase_add_test(tc, test_tall_frames_have_tall_cells);
    tcase_add_test(tc, test_tall_click_hits_what_is_drawn);
    tcase_add_test(tc, test_tall_click_then_draw_agree);
    tcase_add_test(tc, test_tall_animations);
    tcase_add_test(tc, test_sizes_between);
    tcase_add_test(tc, test_tall_frames_other_configs);
    tcase_add_test(tc, test_big_head_title_whole);
    tcase_add_test(tc, test_narrative_width_capped);
    tcase_add_test(tc, test_many_heads_all_shown_80x24);
    tcase_add_test(tc, test_wide_frames_use_the_width);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(scene_suite)
