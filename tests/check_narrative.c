/* check_narrative.c - every sentence under the walkthrough's pictures states
 * facts the engine agrees with: contiguous or not, bytes copied, view or
 * copy, how many heads, whether the big head differs; singular and plural
 * right.  Walks every step and picture, with and without `m` and inspect,
 * over a grid of configurations. */
#include <check.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "draw/canvas.h"
#include "draw/scene.h"
#include "engine/mha.h"

/* batch, seq, d_model, heads, kv_heads, causal */
static const int grid[][6] = {
    {1, 4, 8, 2, 2, 0},  /* the default */
    {1, 4, 8, 1, 1, 0},  /* one head */
    {1, 1, 8, 2, 2, 0},  /* one token */
    {1, 1, 8, 1, 1, 0},  /* one head, one token */
    {3, 4, 8, 2, 2, 0},  /* batch 3 */
    {1, 4, 8, 4, 1, 0},  /* MQA */
    {1, 4, 8, 4, 2, 0},  /* GQA */
    {1, 5, 8, 2, 2, 1},  /* causal */
    {1, 4, 4, 4, 4, 0},  /* d_head 1 */
    {2, 3, 12, 6, 3, 1}, /* all at once */
};
#define NGRID (int)(sizeof grid / sizeof *grid)

static Mha *run_row(int i)
{
    MhaConfig c = mha_config_default();
    char err[256];
    c.batch = grid[i][0], c.seq = grid[i][1], c.d_model = grid[i][2];
    c.heads = grid[i][3], c.kv_heads = grid[i][4], c.causal = grid[i][5];
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    return m;
}

/* Words counted in the sentences, each said "1 word" or "N words". */
static const char *const counted[] = {"head", "token", "row", "float", "number", "key", "dim"};

/* Every "N word" agrees in number; returns 0 and says where otherwise. */
static int plurals_right(const char *text, char *why, size_t n)
{
    for (const char *p = text; *p; p++) {
        char *end;
        if (!isdigit((unsigned char)*p) ||
            (p > text && (isalnum((unsigned char)p[-1]) || strchr("._", p[-1]))))
            continue;
        long v = strtol(p, &end, 10);
        if (*end != ' ') continue;
        for (size_t w = 0; w < sizeof counted / sizeof *counted; w++) {
            size_t len = strlen(counted[w]);
            const char *after = end + 1 + len;
            int plural;
            if (strncmp(end + 1, counted[w], len)) continue;
            if (*after == 's' && !isalpha((unsigned char)after[1]))
                plural = 1;
            else if (!isalpha((unsigned char)*after))
                plural = 0;
            else
                continue; /* another word ("heads-first", "keyed") */
            if (plural != (v != 1))
                return snprintf(why, n, "'%.*s' is wrong in number", (int)(after + plural - p), p),
                       0;
        }
    }
    return 1;
}

/* Every "N head(s)" not about kv heads says the number of query heads. */
static int head_counts_right(const Mha *m, const char *text, char *why, size_t n)
{
    for (const char *p = strstr(text, " head"); p; p = strstr(p + 1, " head")) {
        const char *q = p;
        while (q > text && isdigit((unsigned char)q[-1]))
            q--;
        if (q == p) continue;
        if (atoi(q) != m->cfg.heads)
            return snprintf(why, n, "'%.12s' but the run has %d heads", q, m->cfg.heads), 0;
    }
    return 1;
}

/* The sentence's claims about step `step`, checked against the run. */
static void check_facts(const Mha *m, const SceneState *s, const char *text, const char *where)
{
    char why[160];
    int step = s->step;
    const Tensor *t = m->t[mha_steps[step].output];
    ck_assert_msg(plurals_right(text, why, sizeof why), "%s: %s in: %s", where, why, text);
    ck_assert_msg(head_counts_right(m, text, why, sizeof why), "%s: %s in: %s", where, why, text);
    if (s->view == MV_STEP) {
        const char *p = strstr(text, " bytes copied");
        if (p) {
            while (p > text && isdigit((unsigned char)p[-1]))
                p--;
            ck_assert_msg(strtol(p, NULL, 10) == (long)m->steps[step].bytes_copied,
                          "%s: says %ld bytes copied, the engine %zu: %s", where,
                          strtol(p, NULL, 10), m->steps[step].bytes_copied, text);
        }
        if (step == MS_CONTIG) t = m->t[MT_MERGED]; /* "already contiguous": its input */
        if (strstr(text, "no longer contiguous") || strstr(text, "not contiguous"))
            ck_assert_msg(!tensor_is_contiguous(t), "%s: says not contiguous: %s", where, text);
        if (strstr(text, "still contiguous") || strstr(text, "already contiguous"))
            ck_assert_msg(tensor_is_contiguous(t), "%s: says contiguous: %s", where, text);
        if (strstr(text, "the one real copy")) {
            int copies = 0;
            for (int i = 0; i < MS_COUNT; i++)
                copies += m->steps[i].bytes_copied > 0;
            ck_assert_msg(copies == 1 && m->steps[step].bytes_copied > 0, "%s: %s", where, text);
        }
        if (strstr(text, "all of them in .contiguous()"))
            ck_assert(m->bytes_copied_total == m->steps[MS_CONTIG].bytes_copied);
    }
    if (strstr(text, "They are the same"))
        ck_assert_msg(m->cfg.heads == 1 || m->cfg.seq == 1, "%s: %s", where, text);
    if (strstr(text, "They are the same: with one head")) ck_assert_int_eq(m->cfg.heads, 1);
    if (strstr(text, "They are the same: with one token")) ck_assert_int_eq(m->cfg.seq, 1);
    if (strstr(text, "Why they differ"))
        ck_assert_msg(m->cfg.heads > 1 && m->cfg.seq > 1, "%s: %s", where, text);
    if (s->view == MV_WRONG_VIEW)
        ck_assert_msg(!strstr(text, "wrong numbers") || (m->cfg.heads > 1 && m->cfg.seq > 1),
                      "%s: wrong numbers, yet Q_wrong equals Q_heads: %s", where, text);
}

/* The code line's "a view" / "a copy" on a drawn frame agrees with the trace. */
static void check_code_line(const Mha *m, const SceneState *s, const char *where)
{
    Canvas *c = canvas_new(200, 60);
    const MhaStep *ms = &m->steps[s->step];
    ck_assert_ptr_nonnull(c);
    scene_draw(c, 0, 0, 200, 60, m, s);
    if (s->view == MV_STEP) {
        ck_assert_msg(!canvas_contains(c, "a view: storage") == !ms->is_view, "%s", where);
        ck_assert_msg(!canvas_contains(c, "a copy: ") == !ms->bytes_copied, "%s", where);
    }
    canvas_free(c);
    /* at 80x24 the sentences fit their rows: no row is cut with "..." */
    c = canvas_new(80, 24);
    ck_assert_ptr_nonnull(c);
    scene_draw(c, 0, 0, 80, 24, m, s);
    for (int y = 0; y < 24; y++) {
        char row[512];
        size_t k = strlen(canvas_row(c, y, 1, row, sizeof row));
        while (k > 0 && row[k - 1] == ' ')
            row[--k] = 0;
        ck_assert_msg(k < 3 || strcmp(row + k - 3, "..."), "%s: row %d cut: %s", where, y, row);
    }
    canvas_free(c);
}

START_TEST(test_every_sentence_agrees_with_the_engine)
{
    char text[2048], where[96];
    int walked = 0;
    for (int i = 0; i < NGRID; i++) {
        Mha *m = run_row(i);
        for (int v = 0; v < MV_COUNT; v++)
            for (int step = 0; step < MS_COUNT; step++)
                for (int mode = 0; mode < 3; mode++) { /* plain, m, inspect */
                    SceneState s = scene_state_default();
                    s.step = step;
                    s.view = (MhaView)v;
                    s.show_single = mode == 1;
                    s.inspect = mode == 2;
                    if (v != MV_STEP && step > 0) break; /* a failure view has one picture */
                    snprintf(where, sizeof where, "config %d, view %d, step %d, mode %d", i, v,
                             step, mode);
                    scene_narrative(m, &s, text, sizeof text);
                    ck_assert_msg(strlen(text) > 40, "%s: no narrative", where);
                    check_facts(m, &s, text, where);
                    check_code_line(m, &s, where);
                    walked++;
                }
        mha_free(m);
    }
    ck_assert_int_ge(walked, NGRID * (MS_COUNT * 3 + 2));
}
END_TEST

/* The checks catch what they claim: the old sentences fail them. */
/* With d_head 1 the split sentence reads as prose, not a filled template. */
START_TEST(test_d_head_1_reads_as_prose)
{
    MhaConfig c = mha_config_default();
    c.seq = 4, c.d_model = 4, c.heads = 4, c.kv_heads = 4;
    char e[300], text[2048];
    Mha *m = mha_run(&c, e, sizeof e);
    ck_assert_ptr_nonnull(m);
    SceneState s = scene_state_default();
    s.step = MS_SPLIT;
    scene_narrative(m, &s, text, sizeof text);
    ck_assert_msg(strstr(text, "head h is column h of the row") != NULL, "%s", text);
    ck_assert_msg(!strstr(text, "+0") && !strstr(text, "groups of 1"), "%s", text);
    mha_free(m);
}
END_TEST

/* The wrong-view sentence names the tokens head 0's block really holds, read
 * off the engine's Q_wrong: with H = 4 a block of S x dh = 8 floats is the
 * one row of 'the', not rows of 'the' and 'cat'. */
static void wrong_view_text(int seq, int d_model, int heads, char *text, size_t n)
{
    MhaConfig c = mha_config_default();
    char e[300];
    c.seq = seq, c.d_model = d_model, c.heads = heads, c.kv_heads = heads;
    Mha *m = mha_run(&c, e, sizeof e);
    ck_assert_msg(m != NULL, "%s", e);
    SceneState s = scene_state_default();
    s.view = MV_WRONG_VIEW;
    scene_narrative(m, &s, text, n);
    mha_free(m);
}

START_TEST(test_wrong_view_names_the_tokens_of_the_block)
{
    char text[2048];
    wrong_view_text(4, 8, 4, text, sizeof text); /* blocks of 8 = one row */
    ck_assert_msg(strstr(text, "head 0 gets the whole row of 'the',") != NULL, "%s", text);
    ck_assert_msg(!strstr(text, "'cat'"), "%s", text);
    wrong_view_text(4, 8, 2, text, sizeof text); /* blocks of 16 = two rows */
    ck_assert_msg(strstr(text, "head 0 gets the whole rows of 'the' and 'cat',") != NULL, "%s",
                  text);
    wrong_view_text(2, 8, 4, text, sizeof text); /* blocks of 4 = half a row */
    ck_assert_msg(strstr(text, "head 0 gets the first 4 floats of 'the',") != NULL, "%s", text);
    wrong_view_text(3, 8, 2, text, sizeof text); /* blocks of 12: a row and a half */
    ck_assert_msg(
        strstr(text, "head 0 gets the whole row of 'the' and the first 4 floats of 'cat',"), "%s",
        text);
    wrong_view_text(8, 8, 2, text, sizeof text); /* blocks of 32 = four rows */
    ck_assert_msg(strstr(text, "head 0 gets the whole rows of 'the' to 'on',"), "%s", text);
}
END_TEST

/* RoPE at d_head 2 has one pair: "its one pair by p", not "pair 0 by p,
 * pair 0 by p x 1" (found by a new user); at d_head 4 the first and last. */
START_TEST(test_rope_one_pair_is_said_once)
{
    MhaConfig c = mha_config_default();
    char e[300], text[2048];
    c.heads = 4, c.kv_heads = 2, c.rope = ROPE_HALF; /* d_model 8: d_head 2 */
    Mha *m = mha_run(&c, e, sizeof e);
    ck_assert_msg(m != NULL, "%s", e);
    SceneState s = scene_state_default();
    s.step = MS_ROPE;
    scene_narrative(m, &s, text, sizeof text);
    ck_assert_msg(strstr(text, "rad: its one pair by p.") != NULL, "%s", text);
    ck_assert_msg(!strstr(text, "pair 0 by p x"), "%s", text);
    mha_free(m);
    c.heads = 2, c.kv_heads = 2; /* d_head 4: pairs 0 and 1 */
    m = mha_run(&c, e, sizeof e);
    ck_assert_msg(m != NULL, "%s", e);
    scene_narrative(m, &s, text, sizeof text);
    ck_assert_msg(strstr(text, "rad: pair 0 by p, pair 1 by p x 0.01.") != NULL, "%s", text);
    mha_free(m);
}
END_TEST

/* x at --seq 1 holds "1 token of 8 numbers", not "1 token of 8 numbers each". */
START_TEST(test_one_token_input_has_no_each)
{
    MhaConfig c = mha_config_default();
    char e[300], text[2048];
    c.seq = 1;
    Mha *m = mha_run(&c, e, sizeof e);
    ck_assert_ptr_nonnull(m);
    SceneState s = scene_state_default();
    scene_narrative(m, &s, text, sizeof text);
    ck_assert_msg(strstr(text, "x holds 1 token of 8 numbers, batch 1") != NULL, "%s", text);
    mha_free(m);
    c.seq = 4;
    m = mha_run(&c, e, sizeof e);
    ck_assert_ptr_nonnull(m);
    scene_narrative(m, &s, text, sizeof text);
    ck_assert_msg(strstr(text, "x holds 4 tokens of 8 numbers each, batch 1") != NULL, "%s", text);
    mha_free(m);
}
END_TEST

START_TEST(test_checks_can_fail)
{
    char why[160];
    Mha *m = run_row(1); /* one head */
    ck_assert(!plurals_right("each of the 1 heads can attend", why, sizeof why));
    ck_assert(!plurals_right("read as 2 head of 4", why, sizeof why));
    ck_assert(plurals_right("read as 2 heads of 4 and 1 token", why, sizeof why));
    ck_assert(!head_counts_right(m, "2 heads x 4 x 4 scores", why, sizeof why));
    ck_assert(head_counts_right(m, "1 head x 4 x 4 scores", why, sizeof why));
    ck_assert(tensor_is_contiguous(m->t[MT_Q_HEADS])); /* so the old sentence was false */
    mha_free(m);
}
END_TEST

static Suite *narrative_suite(void)
{
    Suite *s = suite_create("narrative");
    TCase *tc = tcase_create("facts");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_every_sentence_agrees_with_the_engine);
    tcase_add_test(tc, test_checks_can_fail);
    tcase_add_test(tc, test_d_head_1_reads_as_prose);
    tcase_add_test(tc, test_wrong_view_names_the_tokens_of_the_block);
    tcase_add_test(tc, test_one_token_input_has_no_each);
    tcase_add_test(tc, test_rope_one_pair_is_said_once);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(narrative_suite)
