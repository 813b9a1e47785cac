/* check_mha_prog.c - the pipeline is its PyTorch text (issue 16): every
 * statement of engine/mha_prog.c's program, replayed by the interpreter on
 * a fresh playground holding the run's tensors, gives the tensor the run
 * keeps under that name (shape, strides, offset, the same storage for a view,
 * the same bits) and each step's bytes; the trace's inputs are the names its
 * statements read. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "engine/mha.h"
#include "engine/play.h"
#include "engine/tensorops.h"
#include "engine_testutil.h"

/* The first run tensor stmt's right-hand side names, or -1. */
static int first_read(const char *stmt)
{
    for (const char *q = strchr(stmt, '=') + 1; *q; q++) {
        size_t n = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
        char name[40];
        if (n && n < sizeof name && q[-1] != '.') {
            snprintf(name, sizeof name, "%.*s", (int)n, q);
            if (mha_tensor_index(name) >= 0) return mha_tensor_index(name);
        }
        if (n) q += n - 1;
    }
    return -1;
}

/* Replays the program of m's config on a fresh Play (the run's tensors
 * preloaded, W bound): each statement that names a run tensor gives that
 * tensor, and each step copies what the trace says. */
static void replay(const char *flags)
{
    Mha *m = tu_run_flags(flags);
    Play *p = mha_play_new(m);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(play_set_int(p, "W", m->cfg.window), 0);
    PlayResult r;
    memset(&r, 0, sizeof r);
    size_t copied[MS_ALL] = {0};
    int stmts = 0;
    for (int i = 0; i < mha_program_count(); i++) {
        int step;
        const char *stmt = mha_program_stmt(&m->cfg, i, &step);
        if (!stmt) continue;
        stmts++;
        ck_assert_msg(play_eval(p, stmt, &r) == PR_TENSOR, "%s: %s: %s", flags, stmt, r.error);
        if (step >= 0) copied[step] += r.copied_bytes;
        int t = mha_tensor_index(r.name);
        if (t < 0) continue; /* a temporary of the program (mask, big, noscale) */
        const Tensor *want = m->t[t];
        ck_assert_msg(want != NULL, "%s: %s names %s, which the run lacks", flags, stmt, r.name);
        ck_assert_int_eq(r.t->ndim, want->ndim);
        for (int k = 0; k < want->ndim; k++) {
            ck_assert_int_eq(r.t->shape[k], want->shape[k]);
            ck_assert_int_eq(r.t->strides[k], want->strides[k]);
        }
        ck_assert_uint_eq(r.t->offset, want->offset);
        /* a view in the run (on its source's storage) is a view in the replay */
        int src = first_read(stmt), run_view = src >= 0 && m->t[src]->st == want->st;
        ck_assert_msg((r.memory == PM_VIEW || r.memory == PM_SAME) == run_view,
                      "%s: %s: view %d in the run, memory %s in the replay", flags, stmt, run_view,
                      play_memory_word(&r));
        tu_same_bits(r.t, want, stmt);
    }
    ck_assert_int_gt(stmts, 20);
    for (int k = 0; k < mha_step_total(&m->cfg); k++) {
        int s = mha_step_at(&m->cfg, k);
        ck_assert_msg(copied[s] == m->steps[s].bytes_copied, "%s: step %s copied %zu, run %zu",
                      flags, mha_steps[s].name, copied[s], m->steps[s].bytes_copied);
    }
    play_result_clear(&r);
    play_free(p);
    mha_free(m);
}

START_TEST(every_statement_replays_to_the_run)
{
    /* batch seq d_model heads kv_heads causal window rope */
    replay("1 4 8 2 2 0 0 0");   /* MHA, the default */
    replay("1 6 16 4 2 1 0 0");  /* GQA, causal */
    replay("2 5 12 3 1 0 0 0");  /* MQA, batch 2 */
    replay("1 8 8 2 2 1 3 0");   /* a window */
    replay("1 6 16 4 2 1 0 1");  /* RoPE half */
    replay("1 5 8 2 1 0 0 2");   /* RoPE interleaved, MQA */
    replay("1 20 32 4 2 1 0 0"); /* past the tenths: scaled weights */
}
END_TEST

/* The trace is what the statements did: the contiguous step is the run's one
 * copy (its bytes), the views copy nothing and share their input's storage,
 * and the inputs are the names the step's statement reads. */
START_TEST(trace_from_the_statements)
{
    Mha *m = tu_run_flags("1 6 16 4 2 1 0 0");
    const MhaStep *st = m->steps;
    ck_assert_uint_eq(st[MS_CONTIG].bytes_copied, 1 * 6 * 16 * 4);
    ck_assert_int_eq(st[MS_CONTIG].is_view, 0);
    for (int s = MS_SPLIT; s <= MS_HEADS; s++) {
        ck_assert_int_eq(st[s].is_view, 1);
        ck_assert_uint_eq(st[s].bytes_copied, 0);
    }
    ck_assert_uint_eq(st[MS_SOFTMAX].bytes_copied, 0); /* the mask is computed, not copied */
    ck_assert_uint_eq(m->bytes_copied_total, st[MS_CONTIG].bytes_copied);
    ck_assert_int_eq(st[MS_PROJECT].n_inputs, 4); /* x, W_Q, W_K, W_V: the line's three */
    ck_assert_int_eq(st[MS_PROJECT].inputs[3], MT_W_V);
    ck_assert_int_eq(st[MS_SCORES].n_inputs, 2);
    ck_assert_int_eq(st[MS_SCORES].inputs[0], MT_Q_HEADS);
    ck_assert_int_eq(st[MS_SCORES].inputs[1], MT_K_HEADS);
    ck_assert_int_eq(st[MS_WEIGHTED].inputs[0], MT_ATTN);
    ck_assert_int_eq(st[MS_WEIGHTED].inputs[1], MT_V_HEADS);
    /* the program's scores line, typed into a fresh playground, is the run's
     * scores; with one character changed (sqrt(D)) it is not */
    Play *p = mha_play_new(m);
    PlayResult r;
    memset(&r, 0, sizeof r);
    const char *line = NULL; /* the step's statements in order: Q_groups, K_expand, scores */
    for (int i = 0; i < mha_program_count(); i++) {
        int step;
        const char *s = mha_program_stmt(&m->cfg, i, &step);
        if (!s || step != MS_SCORES) continue;
        if (line) ck_assert_int_eq(play_eval(p, line, &r), PR_TENSOR);
        line = s;
    }
    ck_assert_ptr_nonnull(line);
    ck_assert(!strncmp(line, "scores = ", 9));
    ck_assert_int_eq(play_eval(p, line, &r), PR_TENSOR);
    tu_same_bits(r.t, m->t[MT_SCORES], line);
    char changed[300];
    snprintf(changed, sizeof changed, "%s", line);
    char *at = strstr(changed, "sqrt(dh)");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "sqrt(D) ", 8);
    ck_assert_int_eq(play_eval(p, changed, &r), PR_TENSOR);
    int idx[4] = {0, 0, 0, 0};
    ck_assert(tensor_get(r.t, idx) != tensor_get(m->t[MT_SCORES], idx));
    play_result_clear(&r);
    play_free(p);
    mha_free(m);
}
END_TEST

/* The row of c's program that assigns name (the last one), or -1. */
static int row_of(const MhaConfig *c, const char *name)
{
    int row = -1;
    for (int i = 0; i < mha_program_count(); i++) {
        const char *s = mha_program_stmt(c, i, NULL);
        size_t n = strlen(name);
        if (s && !strncmp(s, name, n) && !strncmp(s + n, " = ", 3)) row = i;
    }
    return row;
}

/* The program's dataflow, for listings: a row with its sizes written in
 * (names that only contain a size symbol, methods and keywords untouched),
 * the names it reads, and the rows a tensor needs, back to x and the
 * weights. */
START_TEST(dataflow_of_the_program)
{
    MhaConfig c = mha_config_default(); /* B 1, S 4, D 8, H 2, KV 2 */
    c.heads = 4, c.kv_heads = 2, c.causal = 1, c.window = 3;
    char buf[200], lhs[PLAY_NAME_MAX], rhs[16][PLAY_NAME_MAX];
    ck_assert_str_eq(mha_program_sized(&c, row_of(&c, "Q_split"), buf, sizeof buf),
                     "Q_split = Q.view(1, 4, 4, 2)");
    ck_assert_str_eq(mha_program_sized(&c, row_of(&c, "Q"), buf, sizeof buf), "Q = x @ W_Q");
    ck_assert_str_eq(mha_program_sized(&c, row_of(&c, "scores"), buf, sizeof buf),
                     "scores = (Q_groups @ K_expand.transpose(-2, -1) / sqrt(2)).view(1, 4, 4, 4)");
    ck_assert_str_eq(mha_program_sized(&c, row_of(&c, "K_expand"), buf, sizeof buf),
                     "K_expand = K_heads.unsqueeze(2).expand(1, 2, 2, 4, 2)");
    ck_assert_ptr_null(mha_program_sized(&c, row_of(&c, "Q_split"), buf, 10)); /* too small */
    /* attn reads scores and hide; softmax and math are bare names; not
     * masked_fill (a method), inf (an attribute) or dim (a keyword) */
    int n = mha_program_names(&c, row_of(&c, "attn"), lhs, rhs, 16);
    ck_assert_str_eq(lhs, "attn");
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(rhs[0], "softmax");
    ck_assert_str_eq(rhs[1], "scores");
    ck_assert_str_eq(rhs[2], "hide");
    ck_assert_str_eq(rhs[3], "math");
    c.causal = 0, c.window = 0; /* the masked row does not run */
    ck_assert_int_eq(mha_program_names(&c, row_of(&c, "attn") - 1, lhs, rhs, 16), -1);
    c.causal = 1, c.window = 3;
    /* attn needs the two mask rows (the window's reads the causal one), Q and
     * K's rows and their expand; not V, nor anything after attn */
    unsigned char need[128] = {0};
    ck_assert_int_lt(mha_program_count(), 128);
    ck_assert_int_eq(mha_program_need(&c, "attn", need), row_of(&c, "attn"));
    int rows = 0, masks = 0;
    for (int i = 0; i < mha_program_count(); i++) {
        if (!need[i]) continue;
        const char *s = mha_program_stmt(&c, i, NULL);
        ck_assert_ptr_nonnull(s);
        ck_assert_msg(s[0] != 'V' && i <= row_of(&c, "attn"), "attn needs %s", s);
        masks += !strncmp(s, "hide = ", 7);
        rows++;
    }
    ck_assert_int_eq(masks, 1); /* the band: one statement, as the panel writes it */
    ck_assert_int_eq(rows,
                     13); /* Q K, their split and heads, Q_groups K_expand scores, i j hide, attn */
    memset(need, 0, sizeof need);
    ck_assert_int_eq(mha_program_need(&c, "x", need), -1); /* an input: no row makes it */
    for (int i = 0; i < mha_program_count(); i++)
        ck_assert_int_eq(need[i], 0);
}
END_TEST

static Suite *mha_prog_suite(void)
{
    Suite *s = suite_create("mha_prog");
    TCase *tc = tcase_create("mha_prog");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, every_statement_replays_to_the_run);
    tcase_add_test(tc, trace_from_the_statements);
    tcase_add_test(tc, dataflow_of_the_program);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(mha_prog_suite)
