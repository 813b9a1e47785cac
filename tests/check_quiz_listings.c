/* check_quiz_listings.c - the code a learner sees is the code that ran: every
 * listing of 2,000 generated questions (the topics that show one) is run
 * again from its text, line by line, in a fresh playground that holds only
 * x and the weights of the question's configuration, and each line gives
 * the shape, strides and copied bytes its "The engine ran:" line claims (a
 * views question's own line too, or the error it claims, word for word);
 * every line of those listings is a statement of the pipeline's own
 * program (engine/mha_prog.c), character for character but its sizes, in
 * the program's order (issue 16: written once), for MHA, GQA, MQA, causal,
 * windowed and RoPE configurations alike; every bugs program of 200
 * questions runs again from its text, right and buggy; and every statement
 * of PyTorch any topic's prompt shows is a line of its trace, run again
 * here (a listing that makes its own K or cache in an empty playground). */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "content/quiz.h"
#include "engine/play.h"
#include "engine/tensor.h"
#include "engine/tensorops.h"

/* "(2, 8, 64) strides (512, 64, 1)" of t */
static void geometry(const Tensor *t, char *buf, size_t n)
{
    char sh[96], st[96];
    tensor_fmt_dims(sh, sizeof sh, t->ndim, t->shape);
    tensor_fmt_strides(st, sizeof st, t);
    snprintf(buf, n, "%s strides %s", sh, st);
}

/* ---- the program's statements, sizes aside ------------------------------ */

/* The value of size symbol name (len bytes) for c, or -1. */
static long size_value(const MhaConfig *c, const char *name, size_t len)
{
    static const char *const syms[] = {"B", "S", "D", "H", "KV", "G", "dh", "W"};
    const long vals[] = {c->batch,
                         c->seq,
                         c->d_model,
                         c->heads,
                         c->kv_heads,
                         c->heads / c->kv_heads,
                         c->d_model / c->heads,
                         c->window};
    for (int i = 0; i < 8; i++)
        if (strlen(syms[i]) == len && !strncmp(syms[i], name, len)) return vals[i];
    return -1;
}

/* Is line stmt, character for character, but with each size symbol (a
 * whole name, not after a '.') written as c's number?  Written here apart
 * from the engine's mha_program_sized, so the two cannot share a mistake. */
static int same_but_sizes(const char *line, const char *stmt, const MhaConfig *c)
{
    const char *a = line, *b = stmt;
    while (*a && *b) {
        int start = (isalpha((unsigned char)*b) || *b == '_') &&
                    (b == stmt || !(isalnum((unsigned char)b[-1]) || b[-1] == '_' || b[-1] == '.'));
        size_t n = strspn(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
        long v = start ? size_value(c, b, n) : -1;
        if (v >= 0) {
            char *end;
            if (strtol(a, &end, 10) != v || end == a) return 0;
            a = end, b += n;
        } else if (*a++ != *b++)
            return 0;
    }
    return !*a && !*b;
}

/* The row of c's program that line is, from row `from` on; -1 if none. */
static int program_row(const char *line, const MhaConfig *c, int from)
{
    for (int i = from; i < mha_program_count(); i++) {
        const char *stmt = mha_program_stmt(c, i, NULL);
        if (stmt && same_but_sizes(line, stmt, c)) return i;
    }
    return -1;
}

/* lines[0..n) are rows of c's program in its order; fails naming id. */
static void assert_program_rows(const char *id, const MhaConfig *c, char (*lines)[200], int n)
{
    for (int k = 0, row = 0; k < n; k++) {
        int r = program_row(lines[k], c, row);
        ck_assert_msg(r >= 0, "%s: `%s` is no statement of the pipeline's program (after row %d)",
                      id, lines[k], row);
        row = r + 1;
    }
}

/* The assignments of a listing: text's lines that start with indent
 * spaces and NAME = (a more indented line continues the one before: a
 * statement too wide for the screen, broken inside its parentheses), up to
 * " -> " in a working's trace. */
static int assignments(const char *text, int indent, char (*lines)[200], int max)
{
    int n = 0, open = 0;
    for (const char *p = text; *p;) {
        int len = (int)strcspn(p, "\n"), sp = (int)strspn(p, " ");
        const char *arrow = strstr(p, " -> ");
        if (arrow && arrow < p + len) len = (int)(arrow - p);
        while (len > 0 && p[len - 1] == ' ')
            len--;
        char name[PLAY_NAME_MAX];
        if (open && sp > indent && n > 0) { /* the rest of the statement before */
            size_t k = strlen(lines[n - 1]);
            snprintf(lines[n - 1] + k, 200 - k, " %.*s", len - sp, p + sp);
        } else if (sp == indent && n < max && sscanf(p + sp, "%31[A-Za-z0-9_] = ", name) == 1 &&
                   !strncmp(p + sp + strlen(name), " = ", 3)) {
            snprintf(lines[n++], 200, "%.*s", len - sp, p + sp);
            open = 1;
        } else
            open = 0;
        p += strcspn(p, "\n");
        if (*p) p++;
    }
    return n;
}

/* A Play in m's engine that holds only x and the weights (and RoPE's
 * layout), so a listing that reads what it does not make cannot run. */
static Play *inputs_play(const Mha *m)
{
    Play *p = play_new(m->eng);
    ck_assert_ptr_nonnull(p);
    for (int i = MT_X; i <= MT_W_O; i++)
        ck_assert_int_eq(
            play_set_tensor(p, mha_tensor_names[i], tensorops_alias(m->t[i]), PD_FLOAT32), 0);
    p->rope_layout = m->cfg.rope;
    p->rope_theta = m->cfg.rope_theta;
    return p;
}

/* Does the trace from "The engine ran:" read the run's x or a weight (a
 * whole name before " -> ")?  A listing that makes its own tensors
 * (torch.zeros, torch.arange) does not, and runs with no run behind it. */
static int reads_run(const char *w)
{
    static const char *const inputs[] = {"x", "W_Q", "W_K", "W_V", "W_O"};
    for (const char *s = w; *s; s += strcspn(s, "\n"), s += !!*s) {
        const char *arrow = strstr(s, " -> "), *eol = s + strcspn(s, "\n");
        if (!arrow || arrow > eol) continue;
        for (const char *c = s; c < arrow; c++)
            for (int i = 0; i < 5; i++) {
                size_t n = strlen(inputs[i]);
                if (!strncmp(c, inputs[i], n) &&
                    (c == s || !(isalnum((unsigned char)c[-1]) || c[-1] == '_' || c[-1] == '.')) &&
                    !(isalnum((unsigned char)c[n]) || c[n] == '_'))
                    return 1;
            }
    }
    return 0;
}

/* Runs the working's "The engine ran:" lines of q; the number checked, or
 * fails the test naming the question and the line.  A listing that reads
 * x or the weights runs in a playground holding only those of q's run; one
 * that makes its own tensors runs in an empty one. */
static int replay(const QuizQuestion *q)
{
    char err[300];
    const char *w = strstr(q->working, "The engine ran:\n");
    if (!w) return 0;
    Mha *m = NULL;
    Play *p = NULL;
    if (reads_run(w)) {
        m = mha_run(&q->cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s: %s", q->id, err);
        p = inputs_play(m);
    } else
        ck_assert_ptr_nonnull(p = play_new(NULL));
    PlayResult r = {0};
    r.error_col = -1;
    int checked = 0;
    for (const char *s = strchr(w, '\n') + 1; *s == ' ' && s[1] == ' ';) {
        const char *end = strchr(s, '\n');
        char line[400], code[400], g[200];
        size_t len = end ? (size_t)(end - s) : strlen(s);
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        s = end ? end + 1 : s + len;
        char *arrow = strstr(line, " -> ");
        if (!arrow) break; /* the trace is over */
        const char *claim = arrow + 4;
        *arrow = 0;
        char *c = line;
        while (*c == ' ')
            c++;
        snprintf(code, sizeof code, "%s", c);
        for (size_t k = strlen(code); k > 0 && code[k - 1] == ' ';)
            code[--k] = 0;
        PlayKind k = play_eval(p, code, &r);
        if (!strncmp(claim, "error: ", 7)) {
            ck_assert_msg(k == PR_ERROR && !strcmp(r.error, claim + 7),
                          "%s: `%s` claims %s\n  the interpreter: %s", q->id, code, claim,
                          k == PR_ERROR ? r.error : "no error");
        } else {
            ck_assert_msg(k == PR_TENSOR, "%s: `%s` does not run: %s", q->id, code, r.error);
            geometry(r.t, g, sizeof g);
            ck_assert_msg(!strncmp(claim, g, strlen(g)),
                          "%s: `%s` claims %s\n  the interpreter: %s", q->id, code, claim, g);
            const char *cp = strstr(claim, "copy: "), *nb = strstr(claim, "new storage: ");
            long bytes = cp ? atol(cp + 6) : nb ? atol(nb + 13) : 0;
            if (cp || nb || strstr(claim, "view: ") || strstr(claim, "same storage"))
                ck_assert_msg((long)r.copied_bytes == bytes, "%s: `%s` claims %s, copied %zu",
                              q->id, code, claim, r.copied_bytes);
            /* a computed result: a storage of its own, nothing counted as copied */
            if (strstr(claim, "new buffer"))
                ck_assert_msg(r.copied_bytes == 0 && r.memory != PM_VIEW && r.memory != PM_SAME,
                              "%s: `%s` claims %s, but it is a %s that copied %zu bytes", q->id,
                              code, claim, play_memory_word(&r), r.copied_bytes);
        }
        checked++;
    }
    play_result_clear(&r);
    play_free(p);
    mha_free(m);
    return checked;
}

/* A bugs question: both programs run again from their text; the right one
 * gives the run's y, the buggy one raises the words the working shows or
 * gives another y. */
static int replay_bug(const QuizQuestion *q)
{
    char bad[20][QUIZ_BUG_LINE], good[20][QUIZ_BUG_LINE], err[640] = "";
    int nb = quiz_bug_lines(q, 0, bad, 20), ng = quiz_bug_lines(q, 1, good, 20);
    int seq_first = strstr(q->prompt, "sequence first") != NULL;
    Mha *m = mha_run(&q->cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s: %s", q->id, err);
    Tensor *y = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])good, ng, seq_first, err, sizeof err);
    ck_assert_msg(y && quiz_bug_diff(m, y) < 1e-4, "%s: the right program: %s", q->id, err);
    tensor_free(y);
    y = quiz_bug_run(m, (const char(*)[QUIZ_BUG_LINE])bad, nb, seq_first, err, sizeof err);
    if (!y) {
        char want[700];
        snprintf(want, sizeof want, "buggy: RuntimeError: %s\n", err);
        ck_assert_msg(strstr(q->working, want) != NULL, "%s: raises %s\n  the working: %s", q->id,
                      err, q->working);
    } else
        ck_assert_msg(quiz_bug_diff(m, y) > 1e-4 && strstr(q->working, "buggy: y["),
                      "%s: the buggy program changes nothing", q->id);
    tensor_free(y);
    mha_free(m);
    return nb + ng;
}

START_TEST(every_bug_program_runs_from_its_text)
{
    char err[300];
    QuizQuestion q;
    long lines = 0;
    for (int i = 0; i < 200; i++) {
        ck_assert_msg(quiz_generate(QT_BUGS, 0xb0650000ULL + (uint64_t)i, &q, err, sizeof err) == 0,
                      "%s", err);
        lines += replay_bug(&q);
    }
    fprintf(stderr, "bugs: 200 questions, %ld program lines run from their text\n", lines);
}
END_TEST

/* The listing q shows (its prompt's code) and the one its working ran are
 * statements of the program q's configuration ran, in its order, the
 * working's ending with what was asked; with GQA or MQA the scores read the
 * program's stride-0 K_expand, never a repeat_interleave copy the pipeline
 * did not make (unless the question is what that copy costs). */
static int assert_listing_is_the_program(const QuizQuestion *q)
{
    char shown[40][200], ran[40][200];
    const char *w = strstr(q->working, "The engine ran:\n");
    if (!w) return 0;
    int ns = assignments(q->prompt, 4, shown, 40), nr = assignments(w, 2, ran, 40);
    if (!nr) return 0;           /* W_Q.T: a views question on a weight, no listing */
    if (!reads_run(w)) return 0; /* its own K (torch.arange): no pipeline row, replay ran it */
    assert_program_rows(q->id, &q->cfg, shown, ns);
    assert_program_rows(q->id, &q->cfg, ran, nr);
    int scores = 0, expand = 0, repeat = 0;
    for (int k = 0; k < nr; k++) {
        scores |= !strncmp(ran[k], "scores = ", 9);
        expand |= !strncmp(ran[k], "K_expand = ", 11); /* of K_heads, or K_rope with RoPE */
        repeat |= strstr(ran[k], "repeat_interleave") != NULL;
    }
    /* GQA's scores read the stride-0 K_expand; MHA's are head by head */
    int gqa = q->cfg.kv_heads != q->cfg.heads;
    if (scores)
        ck_assert_msg(expand == gqa, "%s: the scores %s K_expand:\n%s", q->id,
                      gqa ? "without" : "with", q->working);
    if (q->gen != QG_REPEAT_BYTES + 1 && q->tensor != MT_K_REPEAT && q->tensor != MT_V_REPEAT)
        ck_assert_msg(!repeat, "%s: a copy the pipeline never made:\n%s", q->id, q->working);
    return nr;
}

/* Is stmt PyTorch code: an assignment whose right side calls a method or
 * a function after a '.' (K.view(...), torch.zeros(...)) or multiplies with @? */
static int is_code(const char *stmt)
{
    const char *rhs = strstr(stmt, " = ");
    if (!rhs) return 0;
    if (strchr(rhs, '@')) return 1;
    for (const char *c = strchr(rhs, '.'); c; c = strchr(c + 1, '.'))
        if (isalpha((unsigned char)c[1]) && strchr(c, '(')) return 1;
    return 0;
}

/* Issue 16: every statement of PyTorch a question shows in its prompt's
 * code is one the interpreter ran for it: a line of its "The engine ran:"
 * trace, which replay() runs again from its text and checks, or a line of a
 * bugs program, which replay_bug() runs.  So a listing computed in C beside
 * the text it shows fails here, whichever topic it is in. */
START_TEST(every_shown_statement_ran)
{
    char err[300], shown[40][200], ran[40][200];
    long code = 0;
    QuizQuestion q;
    for (int t = 0; t < QT_COUNT; t++) {
        if (t == QT_CONCEPTS) continue; /* curated: no generator */
        for (int i = 0; i < 120; i++) {
            ck_assert_msg(quiz_generate(t, 0xc0de0000ULL + (uint64_t)i, &q, err, sizeof err) == 0,
                          "%s: %s", quiz_topic_names[t], err);
            if (t == QT_BUGS) {
                replay_bug(&q);
                continue;
            }
            int ns = assignments(q.prompt, 4, shown, 40), nr = 0;
            const char *w = strstr(q.working, "The engine ran:\n");
            if (w) nr = assignments(w, 2, ran, 40);
            for (int k = 0; k < ns; k++) {
                if (!is_code(shown[k])) continue;
                int found = 0;
                for (int j = 0; j < nr && !found; j++)
                    found = !strcmp(shown[k], ran[j]);
                ck_assert_msg(found, "%s: shows `%s` but the interpreter did not run it:\n%s\n%s",
                              q.id, shown[k], q.prompt, q.working);
                code++;
            }
            if (nr) replay(&q);
        }
    }
    ck_assert_int_gt(code, 1000);
    fprintf(stderr, "shown code: %ld statements of %d topics, each one the interpreter ran\n", code,
            QT_COUNT - 1);
}
END_TEST

START_TEST(every_listing_runs_as_shown)
{
    static const int topics[] = {QT_SHAPES, QT_STRIDES, QT_OFFSETS, QT_VIEWS, QT_GQA};
    enum { N = sizeof topics / sizeof *topics };
    char err[300];
    long lines = 0, stmts = 0, with[N] = {0};
    QuizQuestion q;
    for (int i = 0; i < 2000; i++) {
        int t = i % N;
        ck_assert_msg(quiz_generate(topics[t], 0x5eed0000ULL + (uint64_t)i, &q, err, sizeof err) ==
                          0,
                      "%s", err);
        int k = replay(&q);
        stmts += assert_listing_is_the_program(&q);
        with[t] += k > 0;
        lines += k;
    }
    for (int t = 0; t < N; t++) /* each topic shows listings, and they were run */
        ck_assert_msg(with[t] > 150, "topic %s: %ld questions with a listing",
                      quiz_topic_names[topics[t]], with[t]);
    ck_assert_int_gt(stmts, lines / 2);
    fprintf(stderr,
            "listings: 2000 questions, %ld lines run from their text, %ld of them "
            "statements of the pipeline's program\n",
            lines, stmts);
}
END_TEST

/* The configurations a listing is checked on: MHA, GQA, MQA, causal, a
 * window, RoPE in both layouts (the quiz's own generators draw only the
 * first three). */
static MhaConfig listing_config(int i)
{
    /* batch seq d_model heads kv_heads causal window rope */
    static const int v[][8] = {{1, 4, 8, 2, 2, 0, 0, 0},  {2, 5, 16, 4, 2, 0, 0, 0},
                               {1, 6, 12, 3, 1, 0, 0, 0}, {1, 6, 16, 4, 2, 1, 0, 0},
                               {1, 8, 8, 2, 1, 1, 3, 0},  {1, 6, 16, 4, 2, 1, 0, 1},
                               {2, 5, 8, 2, 1, 0, 0, 2}};
    MhaConfig c = mha_config_default();
    c.batch = v[i][0], c.seq = v[i][1], c.d_model = v[i][2], c.heads = v[i][3];
    c.kv_heads = v[i][4], c.causal = v[i][5], c.window = v[i][6], c.rope = (RopeLayout)v[i][7];
    return c;
}

/* For every tensor a question can ask about and every configuration, the
 * listing is the program's statements in its order, ending with the one
 * that makes the tensor, and it runs from x and the weights alone (in a
 * playground of this test's) to the run's tensor; GQA's scores read the
 * stride-0 K_expand (a view: nothing copied), never a copy. */
START_TEST(listing_of_every_tensor_is_the_program)
{
    static const int asked[] = {MT_Q,       MT_K,       MT_V_SPLIT,  MT_Q_SPLIT,  MT_Q_HEADS,
                                MT_K_HEADS, MT_V_HEADS, MT_K_EXPAND, MT_K_REPEAT, MT_Q_WRONG,
                                MT_SCORES,  MT_ATTN,    MT_HEAD_OUT, MT_MERGED,   MT_MERGED_CONTIG,
                                MT_CONCAT,  MT_OUT};
    char buf[4096], err[300], lines[40][200];
    int checked = 0;
    for (int ci = 0; ci < 7; ci++) {
        MhaConfig c = listing_config(ci);
        Mha *m = mha_run(&c, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        for (size_t a = 0; a < sizeof asked / sizeof *asked; a++) {
            int id = asked[a];
            char what[80];
            snprintf(what, sizeof what, "config %d, %s", ci, mha_tensor_names[id]);
            ck_assert_msg(quiz_listing(&c, id, buf, sizeof buf, err, sizeof err) == 0, "%s: %s",
                          what, err);
            int n = assignments(buf, 0, lines, 40);
            ck_assert_int_gt(n, 0);
            assert_program_rows(what, &c, lines, n);
            char head[40];
            snprintf(head, sizeof head, "%s = ", mha_tensor_names[id]);
            ck_assert_msg(!strncmp(lines[n - 1], head, strlen(head)), "%s: ends with %s", what,
                          lines[n - 1]);
            Play *p = inputs_play(m);
            PlayResult r = {0};
            r.error_col = -1;
            for (int k = 0; k < n; k++) {
                ck_assert_msg(play_eval(p, lines[k], &r) == PR_TENSOR, "%s: `%s`: %s", what,
                              lines[k], r.error);
                if (!strncmp(lines[k], "K_expand = ", 11)) /* the program's view, never a copy */
                    ck_assert_msg(r.copied_bytes == 0 &&
                                      (c.heads == c.kv_heads || !r.t->strides[2]),
                                  "%s: %s", what, lines[k]);
            }
            char g[200], want[200];
            geometry(r.t, g, sizeof g);
            geometry(m->t[id], want, sizeof want);
            ck_assert_msg(!strcmp(g, want), "%s: the listing gives %s, the run %s", what, g, want);
            int rope = 0, mask = 0, expand = 0, repeat = 0;
            for (int k = 0; k < n; k++) {
                rope |= !strncmp(lines[k], "K_rope = rope(K_heads)", 22);
                mask += !strncmp(lines[k], "hide = ", 7);
                expand |= !strncmp(lines[k], "K_expand = ", 11);
                repeat |= strstr(lines[k], "repeat_interleave") != NULL;
            }
            if (id == MT_SCORES || id == MT_ATTN || id == MT_OUT) {
                ck_assert_msg(expand == (c.heads != c.kv_heads) && (id == MT_SCORES || !repeat),
                              "%s:\n%s", what, buf);
                ck_assert_int_eq(rope, c.rope != ROPE_OFF);
            }
            if (id == MT_ATTN) ck_assert_int_eq(mask, c.causal);
            play_result_clear(&r);
            play_free(p);
            checked += n;
        }
        mha_free(m);
    }
    /* an input has no listing: no statement makes it */
    MhaConfig c = listing_config(0);
    ck_assert_int_eq(quiz_listing(&c, MT_X, buf, sizeof buf, err, sizeof err), -1);
    fprintf(stderr, "listings: 7 configurations x 17 tensors, %d statements of the program\n",
            checked);
}
END_TEST

static Suite *quiz_listings_suite(void)
{
    Suite *s = suite_create("quiz_listings");
    TCase *tc = tcase_create("quiz_listings");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, every_listing_runs_as_shown);
    tcase_add_test(tc, listing_of_every_tensor_is_the_program);
    tcase_add_test(tc, every_bug_program_runs_from_its_text);
    tcase_add_test(tc, every_shown_statement_ran);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(quiz_listings_suite)
