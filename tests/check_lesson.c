/* check_lesson.c - the lesson format (src/lesson.c, lessonvar.c, lessonview.c,
 * lessonfiles.c): parsing, errors, expressions against the engine, every
 * built-in page rendered at 80x24 and 120x40, and `mhaviz lesson` as a process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/textutil.h"
#include "check_main.h"
#include "content/config_kv.h"
#include "content/content.h"
#include "content/lesson.h"
#include "draw/lessonpage.h"
#include "engine/flash.h"
#include "lessons_testutil.h"

static PresetList P;
static void setup(void)
{
    char err[300];
    ck_assert_msg(presets_builtin(&P, err, sizeof err) == 0, "%s", err);
}
static void teardown(void)
{
    presets_free(&P);
}

static Lesson *parse(const char *text, LessonErrors *e)
{
    memset(e, 0, sizeof *e);
    return lesson_parse("t.lesson", text, strlen(text), e);
}

/* The parse fails and the first error is exactly want. */
static void fails_with(const char *text, const char *want)
{
    LessonErrors e;
    Lesson *l = parse(text, &e);
    ck_assert_ptr_null(l);
    ck_assert_int_ge(e.n, 1);
    ck_assert_str_eq(e.msg[0], want);
}

/* The directive table's rules, one row each: a page needed, a value needed
 * or refused, a value from a closed set; @show is @step. */
START_TEST(directive_table_rules)
{
    fails_with("@title T\n@step split\n", "t.lesson:2: @step before the first @page");
    fails_with("@title T\n@page A\n@step\n", "t.lesson:3: @step needs a value");
    fails_with("@title T\n@page A\n@end now\n", "t.lesson:3: @end takes no value (got 'now')");
    fails_with("@title T\n@page A\n@single maybe\n",
               "t.lesson:3: @single: expected nothing, 'on' or 'off', got 'maybe'");
    fails_with("@title T\n@page A\n@code runs\nx\n@end\n",
               "t.lesson:3: @code: expected nothing or 'run', got 'runs'");
    fails_with("@title T\n@page A\n@hints look\n",
               "t.lesson:3: unknown directive '@hints' (did you mean '@hint'?)");
    LessonErrors e;
    Lesson *l = parse("@title T\n@page A\n@show contiguous\n@single off\nText.\n", &e);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(l->pages[0].step, MS_CONTIG);
    ck_assert_int_eq(l->pages[0].single, 0);
    lesson_free(l);
}
END_TEST

START_TEST(parses_structure)
{
    LessonErrors e;
    Lesson *l = parse("# comment\n"
                      "@title Heads\n"
                      "@summary Short.\n"
                      "@config d_model=16 heads=4\n"
                      "@page One\n"
                      "@step split\n"
                      "First line\n"
                      "continues here.\n"
                      "\n"
                      "Second paragraph.\n"
                      "@code\n"
                      "  a = b\n"
                      "c = d\n"
                      "@end\n"
                      "@highlight Key point.\n"
                      "@question Why?\n"
                      "@answer Because.\n"
                      "@page Two\n"
                      "@config kv_heads=2\n"
                      "@view wrong_view\n"
                      "@inspect 0,1,2\n"
                      "@single\n"
                      "\\@literal at.\n",
                      &e);
    ck_assert_msg(l != NULL, "%s", e.n ? e.msg[0] : "?");
    ck_assert_str_eq(l->title, "Heads");
    ck_assert_str_eq(l->summary, "Short.");
    ck_assert_str_eq(l->name, "t");
    ck_assert_int_eq(l->npages, 2);
    LessonPage *a = &l->pages[0], *b = &l->pages[1];
    ck_assert_str_eq(a->title, "One");
    ck_assert_int_eq(a->line, 5);
    ck_assert_int_eq(a->step, MS_SPLIT);
    ck_assert_int_eq(a->cfg.d_model, 16);
    ck_assert_int_eq(a->cfg.heads, 4);
    ck_assert_int_eq(a->cfg.kv_heads, 4); /* follows heads: MHA stays MHA */
    ck_assert_int_eq(a->nblocks, 4);
    ck_assert_int_eq(a->blocks[0].kind, LB_PARA);
    ck_assert_str_eq(a->blocks[0].text, "First line continues here.");
    ck_assert_int_eq(a->blocks[0].line, 7);
    ck_assert_str_eq(a->blocks[1].text, "Second paragraph.");
    ck_assert_int_eq(a->blocks[2].kind, LB_CODE);
    ck_assert_str_eq(a->blocks[2].text, "  a = b\nc = d");
    ck_assert_int_eq(a->blocks[3].kind, LB_HIGHLIGHT);
    ck_assert_str_eq(a->question, "Why?");
    ck_assert_str_eq(a->answer, "Because.");
    /* Page two starts from the lesson-wide config, not from page one. */
    ck_assert_int_eq(b->step, MS_INPUT);
    ck_assert_int_eq(l->pages[0].step, MS_SPLIT);
    ck_assert_int_eq(b->cfg.heads, 4);
    ck_assert_int_eq(b->cfg.kv_heads, 2);
    ck_assert_int_eq(b->view, MV_WRONG_VIEW);
    ck_assert_int_eq(b->inspect, 1);
    ck_assert_int_eq(b->cur[1], 1);
    ck_assert_int_eq(b->cur[2], 2);
    ck_assert_int_eq(b->single, 1);
    ck_assert_str_eq(b->blocks[0].text, "@literal at.");
    lesson_free(l);
}
END_TEST

START_TEST(variants_picture)
{
    LessonErrors e;
    Lesson *l = parse("@title T\n@config d_model=16 heads=4 kv_heads=2\n@page P\n@view variants\n"
                      "Shared: {groupmap}.\n",
                      &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    ck_assert_int_eq(l->pages[0].variants, 1);
    ck_assert_int_eq(l->pages[0].view, MV_STEP);
    char err[300];
    Mha *m = mha_run(&l->pages[0].cfg, err, sizeof err);
    LessonPageText t;
    ck_assert_int_eq(lesson_page_text(l, 0, m, &P, &t, err, sizeof err), 0);
    Canvas *c = canvas_new(120, 40);
    LessonView v = {.revealed = 1};
    ck_assert_int_eq(lesson_draw(c, l, 0, &t, m, &v), 0);
    ck_assert(canvas_contains(c, "GQA  kv_heads 2"));
    ck_assert(canvas_contains(c, "q0 q1 -> kv0"));
    ck_assert(canvas_contains(c, "Shared: q0 q1 -> kv0, q2 q3 -> kv1."));
    canvas_free(c);
    c = canvas_new(80, 24);
    v.pane = 1; /* narrow: the picture alone, the caller's key hint under it */
    v.hint = "the key hint";
    lesson_draw(c, l, 0, &t, m, &v);
    ck_assert(canvas_contains(c, "MQA  kv_heads 1"));
    ck_assert(canvas_contains(c, "the key hint"));
    canvas_free(c);
    lesson_text_free(&t);
    mha_free(m);
    lesson_free(l);
}
END_TEST

START_TEST(errors_name_file_and_line)
{
    fails_with("@title T\n@page P\ntext\n@shwo split\n",
               "t.lesson:4: unknown directive '@shwo' (did you mean '@show'?)");
    fails_with("@title T\n@page P\n@stpe split\ntext\n",
               "t.lesson:3: unknown directive '@stpe' (did you mean '@step'?)");
    fails_with("@title T\n@page P\n@qeustion why\n",
               "t.lesson:3: unknown directive '@qeustion' (did you mean '@question'?)");
    fails_with("@title T\n@config heds=2\n@page P\ntext\n",
               "t.lesson:2: @config: unknown key 'heds' (did you mean 'heads'?)");
    fails_with(
        "@title T\n@page P\n@config heads=3\ntext\n",
        "t.lesson:3: @config: --heads 3: d_model 8 is not divisible by 3 (try 1, 2, 4 or 8)");
    fails_with("@title T\n@page P\n@config heads=x\ntext\n",
               "t.lesson:3: @config: heads 'x' is not a whole number");
    fails_with("@title T\n@page P\n@config causal=2\ntext\n",
               "t.lesson:3: @config: causal must be 0 or 1, got 2");
    fails_with("@title T\n@page P\n@step splt\ntext\n",
               "t.lesson:3: @step: unknown step 'splt' (did you mean 'split'?)");
    fails_with(
        "@title T\n@page P\n@view wrong\ntext\n",
        "t.lesson:3: @view: unknown view 'wrong' (one of: step wrong_view no_scale variants)");
    fails_with("@title T\n@page P\ntext\n@code\nx = 1\n",
               "t.lesson:4: @code block is not closed (add a line '@end')");
    fails_with("@title T\n@page P\ntext\n@end\n",
               "t.lesson:4: @end without a @code block to close");
    fails_with("", "t.lesson:1: empty lesson: it needs a @title and at least one @page");
    fails_with("@page P\ntext\n",
               "t.lesson:1: no @title (the first directive of a lesson names it)");
    fails_with("@title T\n", "t.lesson:1: no @page: a lesson needs at least one page");
    fails_with("hello\n@title T\n@page P\ntext\n",
               "t.lesson:1: text before the first @page: 'hello'");
    fails_with("@title T\n@page P\n@answer 4\n",
               "t.lesson:3: @answer without a @question before it on this page");
    fails_with("@title T\n@page P\n@inspect a,b\ntext\n",
               "t.lesson:3: @inspect: expected up to 4 indices like 0,1,2,3, got 'a,b'");
    fails_with("@title T\n@page P\n", "t.lesson:2: page 'P' has no text");
}
END_TEST

START_TEST(every_error_is_listed)
{
    LessonErrors e;
    Lesson *l = parse("@title T\n@page P\n@shwo\n@config heads=3\n@view nope\ntext\n", &e);
    ck_assert_ptr_null(l);
    ck_assert_int_eq(e.n, 3);
    ck_assert(!strncmp(e.msg[0], "t.lesson:3:", 11));
    ck_assert(!strncmp(e.msg[1], "t.lesson:4:", 11));
    ck_assert(!strncmp(e.msg[2], "t.lesson:5:", 11));
}
END_TEST

START_TEST(binary_utf8_and_long_lines)
{
    LessonErrors e = {0};
    static const char bin[] = "@title T\n@page P\n\x7f"
                              "ELF\x02\x01\x00\x00garbage";
    ck_assert_ptr_null(lesson_parse("b.lesson", bin, sizeof bin - 1, &e));
    ck_assert_str_eq(e.msg[0], "b.lesson:3: binary data (a NUL byte): a lesson is UTF-8 text");

    memset(&e, 0, sizeof e);
    static const char latin1[] = "@title T\n@page P\nCaf\xe9 au lait\n";
    ck_assert_ptr_null(lesson_parse("u.lesson", latin1, sizeof latin1 - 1, &e));
    ck_assert_str_eq(e.msg[0], "u.lesson:3: invalid UTF-8 (byte 0xE9 at column 4)");
    /* Overlong encodings and surrogates are invalid too. */
    memset(&e, 0, sizeof e);
    static const char overlong[] = "@title T\n@page P\nx \xc0\xaf y\n";
    ck_assert_ptr_null(lesson_parse("u.lesson", overlong, sizeof overlong - 1, &e));
    ck_assert_str_eq(e.msg[0], "u.lesson:3: invalid UTF-8 (byte 0xC0 at column 3)");

    /* A 1 MB line: refused with its line number, no crash, the rest parsed. */
    size_t n = 1 << 20;
    char *big = malloc(n + 64);
    ck_assert_ptr_nonnull(big);
    strcpy(big, "@title T\n@page P\nok\n");
    size_t k = strlen(big);
    memset(big + k, 'a', n);
    memcpy(big + k + n, "\n", 2);
    memset(&e, 0, sizeof e);
    ck_assert_ptr_null(lesson_parse("big.lesson", big, strlen(big), &e));
    ck_assert_int_eq(e.n, 1);
    ck_assert_str_eq(e.msg[0], "big.lesson:4: line is 1048576 bytes long, the limit is 4096");
    free(big);

    /* Valid UTF-8 is fine, CRLF too. */
    memset(&e, 0, sizeof e);
    Lesson *l =
        lesson_parse("ok.lesson", "@title T\r\n@page P\r\nd_model = heads \xc3\x97 d_head\r\n",
                     strlen("@title T\r\n@page P\r\nd_model = heads \xc3\x97 d_head\r\n"), &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    ck_assert_str_eq(l->pages[0].blocks[0].text, "d_model = heads \xc3\x97 d_head");
    lesson_free(l);
}
END_TEST

START_TEST(suggestions)
{
    static const char *const c[] = {"step", "page", "question", "highlight"};
    ck_assert_str_eq(text_suggest("stpe", c, 4), "step");
    ck_assert_str_eq(text_suggest("pgae", c, 4), "page");
    ck_assert_str_eq(text_suggest("higlight", c, 4), "highlight");
    ck_assert_str_eq(text_suggest("QUESTION", c, 4), "question");
    ck_assert_ptr_null(text_suggest("banana", c, 4));
    ck_assert_ptr_null(text_suggest("x", c, 4));
}
END_TEST

/* Expands text against the default run. */
static int expand(const MhaConfig *cfg, const char *text, char *out, size_t n, char *err)
{
    char e[300];
    Mha *m = mha_run(cfg, e, sizeof e);
    ck_assert_msg(m != NULL, "%s", e);
    int r = lesson_expand(text, m, &P, out, n, err, 300);
    mha_free(m);
    return r;
}

START_TEST(expressions_come_from_the_engine)
{
    MhaConfig c = mha_config_default();
    char out[1024], err[300], want[200], e[300];
    Mha *m = mha_run(&c, e, sizeof e);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(expand(&c, "{strides Q_split}|{shape Q_heads}|{d_head}", out, sizeof out, err),
                     0);
    char s1[64], s2[64];
    snprintf(want, sizeof want, "%s|%s|%d", tensor_fmt_strides(s1, sizeof s1, m->t[MT_Q_SPLIT]),
             tensor_fmt_dims(s2, sizeof s2, m->t[MT_Q_HEADS]->ndim, m->t[MT_Q_HEADS]->shape),
             m->d_head);
    ck_assert_str_eq(out, want);

    MhaConfig c2 = c;
    c2.batch = 3; /* B*H for view(B*H, S, dh) */
    ck_assert_int_eq(expand(&c2, "{batch_heads}", out, sizeof out, err), 0);
    snprintf(want, sizeof want, "%d", 3 * c.heads);
    ck_assert_str_eq(out, want);

    int idx[4] = {0, 1, 2, 3};
    ck_assert_int_eq(expand(&c, "{offset Q_heads 0,1,2,3}", out, sizeof out, err), 0);
    snprintf(want, sizeof want, "%zu", tensor_offset_of(m->t[MT_Q_HEADS], idx));
    ck_assert_str_eq(out, want);
    ck_assert_int_eq(expand(&c, "{offsetcalc Q_heads 0,1,2,3}", out, sizeof out, err), 0);
    ck_assert(strstr(out, want) && strstr(out, "1*"));

    ck_assert_int_eq(
        expand(&c, "{copied split} {copied contiguous} {copied total}", out, sizeof out, err), 0);
    snprintf(want, sizeof want, "%zu %zu %zu", m->steps[MS_SPLIT].bytes_copied,
             m->steps[MS_CONTIG].bytes_copied, m->bytes_copied_total);
    ck_assert_str_eq(out, want);
    ck_assert_str_eq(out + strlen(out) - 3, "128"); /* 32 floats: the one copy */

    ck_assert_int_eq(
        expand(&c, "{storage Q} {storage Q_heads} {contiguous Q_heads}", out, sizeof out, err), 0);
    snprintf(want, sizeof want, "S%d S%d not contiguous", m->t[MT_Q]->st->id, m->t[MT_Q]->st->id);
    ck_assert_str_eq(out, want);

    ck_assert_int_eq(
        expand(&c,
               "{{literal}} {kv llama-2-70b fp16} {kv llama-2-70b fp16 mha} {ratio llama-2-70b}",
               out, sizeof out, err),
        0);
    ck_assert_str_eq(out, "{literal} 327,680 2,621,440 8");
    ck_assert_int_eq(
        expand(
            &c,
            "{preset llama-2-7b d_model} = {preset llama-2-7b heads} x {preset llama-2-7b d_head}",
            out, sizeof out, err),
        0);
    ck_assert_str_eq(out, "4096 = 32 x 128");
    ck_assert_int_eq(expand(&c, "{sliceproof 1}", out, sizeof out, err), 0);
    ck_assert_str_eq(out, "0 over 16 numbers");
    ck_assert_int_eq(expand(&c, "{error view merged}", out, sizeof out, err), 0);
    ck_assert(strstr(out, "view size is not compatible") != NULL);
    ck_assert_int_eq(expand(&c, "{error config d_model=10 heads=4}", out, sizeof out, err), 0);
    ck_assert_str_eq(out, "--heads 4: d_model 10 is not divisible by 4 (try 1, 2, 5 or 10)");
    /* the keys of @config (content/config_kv.c), with its words for a bad one */
    ck_assert_int_eq(expand(&c, "{error config rope=half d_model=6 heads=2}", out, sizeof out, err),
                     0);
    ck_assert(strstr(out, "d_head 3") != NULL);
    ck_assert_int_eq(expand(&c, "{error config heds=4}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "{error config}: unknown key 'heds' (did you mean 'heads'?)");
    ck_assert_int_eq(expand(&c, "{row attn 0,0,0}", out, sizeof out, err), 0);
    ck_assert(strstr(out, "(sum 1)") != NULL);
    ck_assert_int_eq(expand(&c, "{wrongrow 0 1}", out, sizeof out, err), 0);
    ck_assert_str_eq(out, "features 4..7 of token 0 'the' (its head 1)");
    mha_free(m);

    MhaConfig g = c;
    g.d_model = 16, g.heads = 4, g.kv_heads = 2;
    ck_assert_int_eq(expand(&g, "{groupmap} | {tilemap} | {kvhead 3} | {strides K_expand}", out,
                            sizeof out, err),
                     0);
    ck_assert_str_eq(
        out, "q0 q1 -> kv0, q2 q3 -> kv1 | q0 q2 -> kv0, q1 q3 -> kv1 | 1 | (32, 4, 0, 8, 1)");
}
END_TEST

START_TEST(bad_expressions_are_errors)
{
    MhaConfig c = mha_config_default();
    char out[256], err[300];
    ck_assert_int_eq(expand(&c, "{shape Q_hedas}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "unknown tensor 'Q_hedas' in {shape} (did you mean 'Q_heads'?)");
    ck_assert_int_eq(expand(&c, "{strieds Q}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "unknown expression '{strieds}' (did you mean '{strides}'?)");
    ck_assert_int_eq(expand(&c, "{offset Q_heads 0,9,0,0}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "index '0,9,0,0' is outside Q_heads (1, 2, 4, 4)");
    ck_assert_int_eq(expand(&c, "{offset Q_heads 0,1}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "open {shape Q", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "close }", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{kv llama-9 fp16}", out, sizeof out, err), -1);
    ck_assert(strstr(err, "unknown preset") != NULL);
    ck_assert_int_eq(expand(&c, "{kv llama-2-70b fp64}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{error view Q}", out, sizeof out, err), -1); /* Q can be viewed */
    ck_assert_int_eq(expand(&c, "{kvhead 7}", out, sizeof out, err), -1);
    /* numbers are whole decimals: atoi read "x" as head 0 and printed "0:4" */
    ck_assert_int_eq(expand(&c, "{cols x}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "{cols x}: query heads are 0..1");
    ck_assert_int_eq(expand(&c, "{cols 1x}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{word -1}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{wrongrow 0 1.5}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{kvctx llama-2-7b fp16 4k}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{error config heads=two}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{error view Q_heads 1,4,x}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{cols 1}", out, sizeof out, err), 0);
    ck_assert_str_eq(out, "4:8");
}
END_TEST

/* {noscalerow} reads the softmax of the unscaled scores, not attn: each
 * value is the engine's attn_noscale, and differs from attn's row. */
START_TEST(noscalerow_reads_the_unscaled_softmax)
{
    MhaConfig c = mha_config_default();
    char out[256], err[300], want[256] = "", e[300];
    Mha *m = mha_run(&c, e, sizeof e);
    ck_assert_ptr_nonnull(m);
    const Tensor *t = m->t[MT_ATTN_NOSCALE];
    for (int k = 0; k < c.seq; k++) {
        int idx[4] = {0, 1, 2, k};
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%.2f", k ? " " : "",
                 (double)tensor_get(t, idx));
    }
    ck_assert_int_eq(expand(&c, "{noscalerow 0,1,2}", out, sizeof out, err), 0);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "got '%s' want '%s'", out, want);
    char scaled[256];
    ck_assert_int_eq(expand(&c, "{row attn 0,1,2}", scaled, sizeof scaled, err), 0);
    ck_assert_str_ne(out, scaled);
    mha_free(m);
}
END_TEST

/* Every page of every built-in lesson: checks clean, and draws at 80x24 and
 * 120x40 with nothing clipped, the header and some of its text on screen. */
START_TEST(every_builtin_lesson_checks_and_fits)
{
    int lessons = 0, pages = 0;
    for (const ContentFile *f = content_files; f->path; f++) {
        if (strncmp(f->path, "lessons/", 8) || !strstr(f->path, ".lesson")) continue;
        LessonErrors e = {0};
        Lesson *l = lesson_parse(f->path, f->text, f->len, &e);
        ck_assert_msg(l != NULL, "%s", e.msg[0]);
        ck_assert_msg(lesson_check(l, &P, &e) == 0, "%s", e.msg[0]);
        lessons++;
        for (int p = 0; p < l->npages; p++) {
            char err[300];
            Mha *m = mha_run(&l->pages[p].cfg, err, sizeof err);
            ck_assert_ptr_nonnull(m);
            LessonPageText t;
            ck_assert_int_eq(lesson_page_text(l, p, m, &P, &t, err, sizeof err), 0);
            static const int sz[][2] = {{80, 24}, {120, 40}};
            for (int k = 0; k < 2; k++) {
                Canvas *c = canvas_new(sz[k][0], sz[k][1]);
                LessonView v = {.revealed = 1};
                ck_assert_msg(lesson_draw(c, l, p, &t, m, &v) == 0, "%s page %d clipped at %dx%d",
                              l->path, p + 1, sz[k][0], sz[k][1]);
                ck_assert_msg(canvas_contains(c, l->pages[p].title), "%s page %d: no title",
                              l->path, p + 1);
                /* Narrow, the text pane says where the picture is (the text
                 * talks about it), under the page's memory strip if it fits. */
                if (k == 0)
                    ck_assert_msg(canvas_contains(c, "Tab: the"), "%s page %d: no Tab cue", l->path,
                                  p + 1);
                /* The picture pane of a narrow terminal draws too. */
                v.pane = 1;
                lesson_draw(c, l, p, &t, m, &v);
                canvas_free(c);
            }
            pages++;
            lesson_text_free(&t);
            mha_free(m);
        }
        lesson_free(l);
    }
    ck_assert_int_eq(lessons, 10); /* 01-pipeline .. 10-cache */
    ck_assert_int_ge(pages, 35);
}
END_TEST

START_TEST(lessons_have_no_typed_engine_numbers)
{
    /* Strides and shapes must come from {expressions}: a literal tuple of
     * three or more numbers like "(32, 8, 4, 1)" in lesson text is a shape or
     * strides typed in ("transpose(1, 2)" names dimensions: fine). */
    for (const ContentFile *f = content_files; f->path; f++) {
        if (strncmp(f->path, "lessons/", 8) || !strstr(f->path, ".lesson")) continue;
        for (const char *s = f->text; (s = strchr(s, '(')); s++) {
            int a, b, c;
            ck_assert_msg(sscanf(s, "(%d, %d, %d", &a, &b, &c) != 3, "%s: typed tuple near '%.20s'",
                          f->path, s);
        }
    }
}
END_TEST

START_TEST(load_by_name_number_and_env)
{
    char *text = NULL, path[512], err[300];
    size_t len;
    ck_assert_int_eq(lesson_load_text("2", &text, &len, path, sizeof path, err, sizeof err), 0);
    ck_assert_str_eq(path, "lessons/02-heads.lesson");
    free(text);
    ck_assert_int_eq(
        lesson_load_text("07-failures", &text, &len, path, sizeof path, err, sizeof err), 0);
    free(text);
    ck_assert_int_eq(lesson_load_text("nope", &text, &len, path, sizeof path, err, sizeof err),
                     LESSON_NO_SUCH); /* no path, no lesson: bad usage */
    ck_assert(strstr(err, "nope") != NULL);
    ck_assert_int_eq(lesson_load_text("11", &text, &len, path, sizeof path, err, sizeof err),
                     LESSON_NO_SUCH);
    ck_assert_msg(strstr(err, "11: no such lesson, the lessons are 1 to ") != NULL, "%s", err);
    ck_assert_int_eq(
        lesson_load_text("nope.lesson", &text, &len, path, sizeof path, err, sizeof err),
        -1); /* a path: the file is missing */

    char dir[] = "/tmp/mhaviz-lessons-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char file[600];
    snprintf(file, sizeof file, "%s/my.lesson", dir);
    FILE *fp = fopen(file, "w");
    fputs("@title Mine\n@page P\nHi.\n", fp);
    fclose(fp);
    setenv("MHAVIZ_LESSONS", dir, 1);
    char **paths;
    int n = lesson_list(&paths, err, sizeof err);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(paths[0], file);
    lesson_list_free(paths, n);
    ck_assert_int_eq(lesson_load_text("my", &text, &len, path, sizeof path, err, sizeof err), 0);
    ck_assert_str_eq(path, file);
    free(text);
    unsetenv("MHAVIZ_LESSONS");
    n = lesson_list(&paths, err, sizeof err);
    ck_assert_int_eq(n, 10);
    lesson_list_free(paths, n);
    unlink(file);
    rmdir(dir);
}
END_TEST

/* @expect and @do parsed into the page; the checks use the quiz's reader. */
START_TEST(exercises_parse_and_check)
{
    LessonErrors e;
    Lesson *l = parse("@title Ex\n@page A\nText.\n@question Shape?\n@expect shape {shape Q_heads}\n"
                      "@answer Because.\n"
                      "@page B\nText.\n@question Press H.\n@do heads 4\n@answer {heads} heads.\n"
                      "@page C\n@step heads\n@question Find it.\n@do inspect 0,1,2,3\n",
                      &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    ck_assert_int_eq(l->pages[0].expect, LE_SHAPE);
    ck_assert_str_eq(l->pages[0].expect_value, "{shape Q_heads}");
    ck_assert_int_eq(l->pages[0].expect_line, 5);
    ck_assert_int_eq(l->pages[1].todo, LD_HEADS);
    ck_assert_int_eq(l->pages[1].do_arg[0], 4);
    ck_assert_int_eq(l->pages[2].todo, LD_INSPECT);
    ck_assert_int_eq(l->pages[2].do_arg[3], 3);
    /* The page text: the value expanded; a @do's answer at the target. */
    char err[300], why[200];
    Mha *m = mha_run(&l->pages[0].cfg, err, sizeof err);
    LessonPageText t;
    ck_assert_int_eq(lesson_page_text(l, 0, m, &P, &t, err, sizeof err), 0);
    ck_assert_str_eq(t.expect, "(1, 2, 4, 4)");
    ck_assert_int_eq(lesson_expect_check(LE_SHAPE, t.expect, "(1, 2, 4, 4)", why, sizeof why), 1);
    ck_assert_int_eq(lesson_expect_check(LE_SHAPE, t.expect, "[1 2 4 4]", why, sizeof why), 1);
    ck_assert_int_eq(lesson_expect_check(LE_SHAPE, t.expect, "(1, 4, 2, 4)", why, sizeof why), 0);
    ck_assert_str_eq(why, "off at positions 2 and 3");
    ck_assert_int_eq(lesson_expect_check(LE_SHAPE, t.expect, "(1, 2, 4, 5)", why, sizeof why), 0);
    ck_assert_str_eq(why, "off at position 4");
    ck_assert_int_eq(lesson_expect_check(LE_SHAPE, t.expect, "(1, 2, 4)", why, sizeof why), 0);
    ck_assert_str_eq(why, "you typed 3 numbers; the answer has 4");
    ck_assert_int_eq(lesson_expect_check(LE_SHAPE, t.expect, "(1, 2", why, sizeof why), -1);
    lesson_text_free(&t);
    ck_assert_int_eq(lesson_expect_check(LE_NUMBER, "524,288", "524288", why, sizeof why), 1);
    ck_assert_int_eq(lesson_expect_check(LE_NUMBER, "524,288", "524_288", why, sizeof why), 1);
    ck_assert_int_eq(lesson_expect_check(LE_NUMBER, "128", "64", why, sizeof why), 0);
    ck_assert_str_eq(why, "64 is not it"); /* issue 17: "too low" bisects the answer */
    ck_assert_int_eq(lesson_expect_check(LE_NUMBER, "524,288", "1,048,576", why, sizeof why), 0);
    ck_assert_str_eq(why, "1048576 is not it");
    ck_assert_int_eq(lesson_page_text(l, 1, m, &P, &t, err, sizeof err), 0);
    ck_assert_str_eq(t.answer, "4 heads."); /* the page runs 2 heads: the answer is at 4 */
    lesson_text_free(&t);
    MhaConfig c = l->pages[1].cfg, target;
    ck_assert_int_eq(lesson_do_target(&l->pages[1], &target), 0);
    ck_assert_int_eq(target.heads, 4);
    ck_assert(!lesson_do_reached(&l->pages[1], &c, NULL));
    lesson_config_next(&c, LD_HEADS); /* 2 -> 4, as the walkthrough's H */
    ck_assert(lesson_do_reached(&l->pages[1], &c, NULL));
    int cur[4] = {0, 1, 2, 3};
    ck_assert(lesson_do_reached(&l->pages[2], &c, cur));
    ck_assert(!lesson_do_reached(&l->pages[2], &c, NULL)); /* not inspecting */
    mha_free(m);
    lesson_free(l);
    fails_with("@title Ex\n@page A\nText.\n@question Q?\n@do seq 1\n",
               "t.lesson:5: @do seq 1: pressing the key never gets there from this page's "
               "configuration (seq 4)");
    fails_with("@title Ex\n@page A\nText.\n@question Q?\n@do heads 2\n",
               "t.lesson:5: @do heads: the page starts there already");
    fails_with("@title Ex\n@page A\nText.\n@question Q?\n@do heads 4,1\n",
               "t.lesson:5: @do: expected 'heads N', 'kv_heads N', 'seq N' or 'inspect i,j,k,l'; "
               "got 'heads 4,1'");
}
END_TEST

/* A page that changes the configuration says so, from the change itself. */
START_TEST(config_change_notice_is_generated)
{
    LessonErrors e;
    Lesson *l = parse("@title N\n@page A\nText.\n@page B\n@config d_model=12 heads=1 seq=6\nText.\n"
                      "@page C\nText.\n",
                      &e);
    ck_assert_ptr_nonnull(l);
    char err[300];
    const char *want[] = {"",
                          "This page's configuration: seq 4 -> 6, d_model 8 -> 12, heads 2 -> "
                          "1, d_head 4 -> 12, kv_heads 2 -> 1.",
                          "This page's configuration: seq 6 -> 4, d_model 12 -> 8, heads 1 -> "
                          "2, d_head 12 -> 4, kv_heads 1 -> 2."};
    for (int p = 0; p < 3; p++) {
        Mha *m = mha_run(&l->pages[p].cfg, err, sizeof err);
        LessonPageText t;
        ck_assert_int_eq(lesson_page_text(l, p, m, &P, &t, err, sizeof err), 0);
        ck_assert_str_eq(t.notice, want[p]);
        lesson_text_free(&t);
        mha_free(m);
    }
    lesson_free(l);
}
END_TEST

/* With MHAVIZ_LESSONS, a number or a name is one of that folder's lessons,
 * as the menu lists them, never a built-in one. */
START_TEST(numbers_resolve_against_the_menus_list)
{
    char dir[] = "/tmp/mhaviz-lessons-XXXXXX", file[600], *text = NULL, path[600], err[300];
    size_t len;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/01-mine.lesson", dir);
    FILE *fp = fopen(file, "w");
    fputs("@title Mine\n@page P\nHi.\n", fp);
    fclose(fp);
    setenv("MHAVIZ_LESSONS", dir, 1);
    ck_assert_int_eq(lesson_load_text("1", &text, &len, path, sizeof path, err, sizeof err), 0);
    ck_assert_str_eq(path, file);
    free(text);
    ck_assert_int_eq(lesson_load_text("01", &text, &len, path, sizeof path, err, sizeof err), 0);
    ck_assert_str_eq(path, file);
    free(text);
    ck_assert_int_eq(lesson_load_text("01-mine", &text, &len, path, sizeof path, err, sizeof err),
                     0);
    free(text);
    /* no lesson of that name or number: a usage error, not a file that failed */
    ck_assert_int_eq(lesson_load_text("2", &text, &len, path, sizeof path, err, sizeof err),
                     LESSON_NO_SUCH);
    ck_assert_msg(strstr(err, "2: no such lesson, the lessons are 1 to 1") != NULL, "%s", err);
    ck_assert_int_eq(lesson_load_text("02-heads", &text, &len, path, sizeof path, err, sizeof err),
                     LESSON_NO_SUCH);
    ck_assert_msg(strstr(err, "no such lesson in MHAVIZ_LESSONS=") != NULL, "%s", err);
    static char out[4096];
    char cmd[700];
    snprintf(cmd, sizeof cmd, "lesson --frames 1 --page 1");
    ck_assert_int_eq(tu_run(cmd, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "--- 01-mine page 1/1") != NULL, "%s", out);
    unsetenv("MHAVIZ_LESSONS");
    unlink(file);
    rmdir(dir);
}
END_TEST

/* The bad corpus through the binary: exit 2 and the expected file:line. */
START_TEST(check_command_on_bad_corpus)
{
    static const struct {
        const char *file, *want;
    } bad[] = {
        {"unknown-directive", ":4: unknown directive '@stpe' (did you mean '@step'?)"},
        {"bad-config-key", ":2: @config: unknown key 'heds' (did you mean 'heads'?)"},
        {"bad-config-value", ":3: @config: --heads 3: d_model 8 is not divisible by 3"},
        {"unterminated", ":4: @code block is not closed"},
        {"empty", ":1: empty lesson"},
        {"binary", ":3: binary data"},
        {"bad-utf8", ":3: invalid UTF-8"},
        {"bad-expression", ":3: unknown tensor 'Q_hedas'"},
        {"bad-inspect", ":4: @inspect 0,9,0,0 is outside"},
        {"too-long", ":2: page 'Too much' does not fit at 80x24"},
        {"text-before-page", ":1: text before the first @page"},
        {"expect-without-question", ":4: @expect without a @question before it"},
        {"expect-bad-kind", ":5: @expect: expected 'shape|strides|number|index VALUE'"},
        {"expect-not-a-number", ":5: @expect number: '(1, 4, 8)' does not read as a whole"},
        {"do-unreachable", ":5: @do heads 3: pressing the key never gets there"},
        {"do-inspect-outside", ":5: @do inspect 0,9,0,0 is outside Q_heads (1, 2, 4, 4)"},
        {"two-exercises", ":6: a page has one exercise (@expect on line 5)"},
        {"moves-two-cells", ":4: @predict index: K_heads[0,1,2,3] is in 2 cells"},
        {"moves-outside", ":4: @predict index: 'Q_split[0,9,1,3]' is not an element of Q_split"},
        {"code-run-raises", ":5: AttributeError: 'Tensor' object has no attribute 'tranpose'"},
    };
    static char out[8192];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char args[300], want[300];
        snprintf(args, sizeof args, "lesson --check tests/lessons-bad/%s.lesson", bad[i].file);
        ck_assert_msg(tu_run(args, out, sizeof out) == 2, "%s: %s", bad[i].file, out);
        snprintf(want, sizeof want, "tests/lessons-bad/%s.lesson%s", bad[i].file, bad[i].want);
        ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s:\n got  %s\n want %s", bad[i].file,
                      out, want);
    }
    /* A 1 MB line, generated here rather than committed. */
    char file[] = "/tmp/mhaviz-big-XXXXXX";
    int fd = mkstemp(file);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("@title Big\n@page P\n", f);
    for (int i = 0; i < (1 << 20); i++)
        fputc('x', f);
    fputs("\n", f);
    fclose(f);
    char args[300], want[300];
    snprintf(args, sizeof args, "lesson --check %s", file);
    ck_assert_int_eq(tu_run(args, out, sizeof out), 2);
    snprintf(want, sizeof want, "%s:3: line is 1048576 bytes long", file);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "got %s", out);
    unlink(file);
    /* Every file is checked, the bad ones after the good ones too (as quiz
     * --check does): the exit code is the first bad file's. */
    ck_assert_int_eq(
        tu_run("lesson --check lessons/01-pipeline.lesson tests/lessons-bad/empty.lesson "
               "tests/lessons-bad/binary.lesson",
               out, sizeof out),
        2);
    ck_assert_msg(strstr(out, "01-pipeline.lesson: ok") && strstr(out, "empty.lesson:1:") &&
                      strstr(out, "binary.lesson:"),
                  "%s", out);
    ck_assert_int_eq(tu_run("lesson --check /nonexistent.lesson", out, sizeof out), 1);
}
END_TEST

/* Control characters that drive a terminal are refused where they are, as
 * the quiz bank checker refuses them; a tab is text. */
START_TEST(control_characters_are_refused)
{
    static const struct {
        const char *line, *want;
    } bad[] = {
        {"hi \033]2;PWNED\007 there", "t.lesson:3: control character \\x1b at column 4"},
        {"\033[2J", "t.lesson:3: control character \\x1b at column 1"},
        {"a\x7f", "t.lesson:3: control character \\x7f at column 2"},
        {"8-bit CSI \xc2\x9b"
         "31m",
         "t.lesson:3: control character \\u009b at column 11"},
        {"bidi \xe2\x80\xae"
         "evil",
         "t.lesson:3: control character \\u202e at column 6"},
        {"over\rwritten", "t.lesson:3: control character \\x0d at column 5"},
        {"bell\007", "t.lesson:3: control character \\x07 at column 5"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[200];
        snprintf(text, sizeof text, "@title T\n@page P\n%s\n", bad[i].line);
        LessonErrors e;
        ck_assert_ptr_null(parse(text, &e));
        ck_assert_msg(strncmp(e.msg[0], bad[i].want, strlen(bad[i].want)) == 0, "got %s", e.msg[0]);
    }
    LessonErrors e;
    fails_with("@title T\x1b]0;x\x07\n@page P\ntext\n",
               "t.lesson:1: control character \\x1b at column 9: a lesson is plain text (use "
               "spaces)");
    Lesson *l = parse("@title T\n@page P\ntab\there, CRLF ends\r\n", &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    lesson_free(l);
}
END_TEST

/* A UTF-8 byte order mark at the very start is what some editors write:
 * not "text before the first @page". */
START_TEST(byte_order_mark_is_accepted)
{
    LessonErrors e;
    Lesson *l = parse("\xEF\xBB\xBF@title T\n@page P\ntext\n", &e);
    ck_assert_msg(l != NULL, "%s", e.n ? e.msg[0] : "");
    ck_assert_str_eq(l->title, "T");
    lesson_free(l);
    /* only at the start: anywhere else it is text before the first @page */
    fails_with("\n\xEF\xBB\xBF@title T\n@page P\ntext\n",
               "t.lesson:2: text before the first @page: '\xEF\xBB\xBF@title T'");
}
END_TEST

/* `lesson --check` lists every error of a file in one run: the parser's,
 * then what the engine finds in what did parse (two bad expressions in one
 * paragraph, an @inspect outside its tensor, a page's own bad config). */
START_TEST(check_lists_every_error_at_once)
{
    char file[] = "/tmp/mhaviz-five-XXXXXX";
    int fd = mkstemp(file);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("@title Five\n@summary s\n@page One\n@stpe split\n"
          "Text {strides nosuch} and {shape nothere}.\n"
          "@page Two\n@inspect 9,9,9,9\nmore {bogus}\n"
          "@page Three\n@config heads=3\nok \033]2;x\007\nfine\n",
          f);
    fclose(f);
    static char out[8192];
    char args[300];
    snprintf(args, sizeof args, "lesson --check %s", file);
    ck_assert_int_eq(tu_run(args, out, sizeof out), 2);
    static const char *const want[] = {
        ":4: unknown directive '@stpe'",
        ":5: unknown tensor 'nosuch'",
        ":5: unknown tensor 'nothere'",
        ":7: @inspect 9,9,9,9 is outside",
        ":8: unknown expression '{bogus}'",
        ":10: @config: --heads 3",
        ":11: control character \\x1b at column 4",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char w[200];
        snprintf(w, sizeof w, "%s%s", file, want[i]);
        ck_assert_msg(strstr(out, w), "missing %s in:\n%s", w, out);
    }
    ck_assert_msg(!strchr(out, 0x1b) && !strchr(out, 0x07), "raw control in %s", out);
    unlink(file);
}
END_TEST

START_TEST(check_command_on_every_lesson)
{
    static char out[8192];
    ck_assert_int_eq(tu_run("lesson --check", out, sizeof out), 0);
    ck_assert(strstr(out, "07-failures.lesson: ok") != NULL);
    ck_assert_int_eq(tu_run("lesson --check lessons/*.lesson", out, sizeof out), 0);
    ck_assert_int_eq(tu_run("lesson --list", out, sizeof out), 0);
    ck_assert(strstr(out, "02-heads") != NULL);
    ck_assert_int_eq(tu_run("lesson --frames 2 --page 2 --cols 80 --rows 24", out, sizeof out), 0);
    ck_assert(strstr(out, "d_model = heads x d_head") != NULL);
    ck_assert(strstr(out, "4096 = 32 heads x 128") != NULL);
    ck_assert_int_eq(tu_run("lesson --frames 2 --page 99", out, sizeof out), 2);
    ck_assert_int_eq(tu_run("lesson --frames nope", out, sizeof out), 2);
    ck_assert_int_eq(tu_run("lesson --frames /nonexistent/nope.lesson", out, sizeof out), 1);
    ck_assert_int_eq(tu_run("lesson --check --bogus", out, sizeof out), 2);
}
END_TEST

/* `lesson --check` on the quiz banks beside the lessons checks them as quiz
 * banks, not as lessons with 100 unknown directives. */
START_TEST(check_command_on_quiz_banks)
{
    static char out[8192];
    ck_assert_int_eq(tu_run("lesson --check lessons/*.quiz", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "lessons/code.quiz: ok, a quiz bank of") != NULL, "%s", out);
    ck_assert(strstr(out, "lessons/concepts.quiz: ok") != NULL);
    ck_assert(strstr(out, "unknown directive") == NULL);
    ck_assert_int_eq(tu_run("lesson --check tests/quiz-bad/missing-answer.quiz", out, sizeof out),
                     2);
    ck_assert_msg(strncmp(out, "tests/quiz-bad/missing-answer.quiz:3: ", 38) == 0, "%s", out);
    ck_assert_int_eq(tu_run("lesson --check /nonexistent.quiz", out, sizeof out), 1);
}
END_TEST

/* Lesson 1's last answer reads as a sentence: no ": 128" left over. */
START_TEST(pipeline_answer_reads_as_a_sentence)
{
    const ContentFile *f = content_files;
    while (f->path && strcmp(f->path, "lessons/01-pipeline.lesson"))
        f++;
    ck_assert_ptr_nonnull(f->path);
    LessonErrors e = {0};
    Lesson *l = lesson_parse(f->path, f->text, f->len, &e);
    ck_assert_ptr_nonnull(l);
    int p = l->npages - 1;
    char err[300], total[64], want[300];
    Mha *m = mha_run(&l->pages[p].cfg, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    LessonPageText t;
    ck_assert_int_eq(lesson_page_text(l, p, m, &P, &t, err, sizeof err), 0);
    ck_assert_ptr_nonnull(t.answer);
    ck_assert_int_eq(lesson_expand("{copied total}", m, &P, total, sizeof total, err, sizeof err),
                     0);
    snprintf(want, sizeof want, "All %s of them in `contiguous()`, the one copy", total);
    ck_assert_msg(strstr(t.answer, want) != NULL, "%s", t.answer);
    ck_assert_msg(strstr(t.answer, "`: ") == NULL, "%s", t.answer);
    lesson_text_free(&t);
    mha_free(m);
    lesson_free(l);
}
END_TEST

/* At 80x24 the picture is behind Tab, yet page 1 says "The picture shows x":
 * the rows under the text hold x's memory strip with its values. */
START_TEST(narrow_text_pane_shows_the_memory_strip)
{
    static char out[16384];
    ck_assert_int_eq(tu_run("lesson --frames 1 --page 1 --cols 80 --rows 24", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "The picture shows x") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "memory of x (Tab: the whole picture)") != NULL, "%s", out);
    ck_assert(strstr(out, "storage S1: 32 floats, 128 bytes") != NULL);
    ck_assert(strstr(out, "31 -0.70") != NULL); /* the last float of the strip, with its value */
    /* The inspect page lights its float; a variants page only points at Tab. */
    ck_assert_int_eq(tu_run("lesson --frames 2 --page 3", out, sizeof out), 0);
    ck_assert(strstr(out, "memory of Q_split, [0,1,1,2] lit: offset 14") != NULL);
    ck_assert_int_eq(tu_run("lesson --frames 6", out, sizeof out), 0);
    ck_assert(strstr(out, "Tab: the picture (MHA | GQA | MQA side by side)") != NULL);
    /* Wide: the whole picture is beside the text, no strip. */
    ck_assert_int_eq(tu_run("lesson --frames 1 --page 1 --cols 120 --rows 40", out, sizeof out), 0);
    ck_assert(strstr(out, "Tab: the") == NULL);
}
END_TEST

/* Issue 17: the predict kind.  The learner says what a line does; the
 * engine runs it on the page's tensors, and --check refuses an outcome the
 * run contradicts. */
START_TEST(predict_exercises_are_run_by_the_engine)
{
    const char *src = "@title P\n"
                      "@page a\n@step split\n@question What does it do?\n"
                      "@predict wrong Q.view({batch}, {heads}, {seq}, {d_head}) == Q_heads\n"
                      "@hint Look at the strides of Q_heads.\n@answer The tokens mix.\n"
                      "@page b\n@question And this?\n"
                      "@predict raises head_out.transpose(1, 2).view({batch}, {seq}, {d_model})\n"
                      "@page c\n@question And this?\n"
                      "@predict view Q.view(1, 4, 2, 4).transpose(1, 2) == Q_heads\n"
                      "@page d\n@question And this?\n"
                      "@predict copy Q_heads.contiguous() == Q_heads\n";
    LessonErrors e = {0};
    Lesson *l = lesson_parse("p.lesson", src, strlen(src), &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    ck_assert_int_eq(l->pages[0].predict, LP_WRONG);
    ck_assert_str_eq(l->pages[0].predict_ref, "Q_heads");
    ck_assert_int_eq(l->pages[1].predict, LP_RAISES);
    ck_assert_ptr_null(l->pages[1].predict_ref);
    char err[400];
    Mha *m = mha_run(&l->pages[0].cfg, err, sizeof err);
    LessonPageText t;
    static const LessonPredict want[] = {LP_WRONG, LP_RAISES, LP_VIEW, LP_COPY};
    static const char *const said[] = {"where Q_heads has", "raises: view size is not compatible",
                                       "a view, 0 bytes copied; the same values as Q_heads",
                                       "a copy, 128 bytes copied; the same values"};
    for (int p = 0; p < 4; p++) {
        ck_assert_int_eq(lesson_page_text(l, p, m, &P, &t, err, sizeof err), 0);
        ck_assert_int_eq(t.outcome, want[p]);
        ck_assert_msg(strstr(t.result, said[p]) != NULL, "%s", t.result);
        if (p == 0) ck_assert_str_eq(t.stmt, "Q.view(1, 2, 4, 4)");
        if (p == 0) ck_assert_str_eq(t.hint, "Look at the strides of Q_heads.");
        lesson_text_free(&t);
    }
    ck_assert_int_eq(lesson_check(l, &P, &e), 0);
    lesson_free(l);
    /* An outcome the engine contradicts, a missing reference, a bad word. */
    const char *bad = "@title P\n@page a\n@question Q?\n@predict raises Q.view(1, 4, 8)\n"
                      "@page b\n@question Q?\n@predict view Q.view(1, 4, 8)\n"
                      "@page c\n@question Q?\n@predict broken Q\n"
                      "@page d\nText.\n@predict raises Q.view(2)\n"
                      "@page e\n@question Q?\n@expect number 1\n@predict raises Q.view(2)\n";
    LessonErrors e2 = {0};
    l = lesson_parse_partial("bad.lesson", bad, strlen(bad), &e2);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(e2.n, 4);
    ck_assert_msg(strstr(e2.msg[0], "bad.lesson:7: @predict view: give what it should equal") ==
                      e2.msg[0],
                  "%s", e2.msg[0]);
    ck_assert_msg(strstr(e2.msg[1], "bad.lesson:10: @predict: expected 'wrong|raises") == e2.msg[1],
                  "%s", e2.msg[1]);
    ck_assert_msg(strstr(e2.msg[2], "bad.lesson:13: @predict without a @question") == e2.msg[2],
                  "%s", e2.msg[2]);
    ck_assert_msg(
        strstr(e2.msg[3], "bad.lesson:17: a page has one exercise (@expect on line 16)") ==
            e2.msg[3],
        "%s", e2.msg[3]);
    LessonErrors e3 = {0};
    lesson_check(l, &P, &e3);
    ck_assert_msg(strstr(e3.msg[0], "bad.lesson:4: @predict raises: the engine says it right, a "
                                    "view (0 bytes)") == e3.msg[0],
                  "%s", e3.msg[0]);
    lesson_free(l);
    mha_free(m);
}
END_TEST

/* Issue 17: "which cell moves".  The learner types where a statement puts
 * one element (its index in the result, or its offset in the result's
 * storage); the engine follows the element, and --check refuses a page
 * whose answer is not one cell / one offset, or whose line does not run. */
START_TEST(which_cell_moves_is_followed_by_the_engine)
{
    const char *src =
        "@title P\n"
        "@page a\n@step heads\n@question Where is it?\n"
        "@predict index Q_split.transpose(1, 2) <- Q_split[0,2,1,3]\n"
        "@page b\n@question At which offset?\n"
        "@predict offset head_out.transpose(1, 2).contiguous() <- head_out[0,1,2,3]\n"
        "@page c\n@question Where after the view?\n"
        "@predict index merged.contiguous().view(1, 4, 8) <- merged[0,2,1,3]\n"
        "@page d\n@question Which offset do the heads read?\n"
        "@predict offset K_heads[:, :, None].expand(1, 2, 2, 4, 4) <- K_heads[0,1,2,3]\n";
    LessonErrors e = {0};
    Lesson *l = lesson_parse("m.lesson", src, strlen(src), &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    ck_assert_int_eq(l->pages[0].moves, 1);
    ck_assert_int_eq(l->pages[0].expect, LE_INDEX);
    ck_assert_int_eq(l->pages[1].expect, LE_NUMBER);
    ck_assert_int_eq(l->pages[0].predict, LP_NONE); /* typed, not the 1-4 keys */
    LessonCount n = lesson_count(l);
    ck_assert_int_eq(n.predict, 4); /* counted as predictions, not as typed */
    ck_assert_int_eq(n.typed, 0);
    char err[400];
    Mha *m = mha_run(&l->pages[0].cfg, err, sizeof err);
    /* Q_split (1, 4, 2, 4) rows of Q: [0,2,1,3] is offset 2*8 + 1*4 + 3 = 23;
     * head_out (1, 2, 4, 4) contiguous: [0,1,2,3] is 27, and the copy of the
     * transpose (1, 4, 2, 4) puts it at [0,2,1,3]: 2*8 + 1*4 + 3 = 23. */
    static const char *const want[] = {"(0, 1, 2, 3)", "23", "(0, 2, 7)", "23"};
    static const char *const said[] = {"(offset 23) is at (0, 1, 2, 3)", "a copy, at offset 23",
                                       "is at (0, 2, 7)", "and 1 more cell of"};
    for (int p = 0; p < 4; p++) {
        LessonPageText t;
        ck_assert_msg(lesson_page_text(l, p, m, &P, &t, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(t.expect, want[p]);
        ck_assert_msg(strstr(t.result, said[p]) != NULL, "%s", t.result);
        char why[200];
        ck_assert_int_eq(
            lesson_expect_check(l->pages[p].expect, t.expect, want[p], why, sizeof why), 1);
        if (p == 0) { /* a wrong index is not told which coordinates are off */
            ck_assert_int_eq(
                lesson_expect_check(LE_INDEX, t.expect, "(0, 2, 1, 3)", why, sizeof why), 0);
            ck_assert_str_eq(why, "not where it is");
        }
        lesson_text_free(&t);
    }
    ck_assert_int_eq(lesson_check(l, &P, &e), 0);
    /* the run on the page's tensors did not touch them */
    int idx[4] = {0, 2, 1, 3};
    Mha *fresh = mha_run(&l->pages[0].cfg, err, sizeof err);
    ck_assert(tensor_get(m->t[MT_Q_SPLIT], idx) == tensor_get(fresh->t[MT_Q_SPLIT], idx));
    mha_free(fresh);
    lesson_free(l);

    /* Refused by the parser: no "<-", no element. */
    const char *bad = "@title P\n@page a\n@question Q?\n@predict index Q.t()\n"
                      "@page b\n@question Q?\n@predict offset Q.t() <- Q\n";
    LessonErrors e2 = {0};
    l = lesson_parse_partial("bad.lesson", bad, strlen(bad), &e2);
    ck_assert_int_eq(e2.n, 2);
    ck_assert_msg(strstr(e2.msg[0], "bad.lesson:4: @predict index: expected 'index STATEMENT <- "
                                    "TENSOR[i,j,...]'") == e2.msg[0],
                  "%s", e2.msg[0]);
    lesson_free(l);
    /* Refused by --check: two cells for an index, a line that raises, an
     * element outside the tensor, a statement the element does not reach. */
    const char *runs =
        "@title P\n@page a\n@question Q?\n"
        "@predict index K_heads[:, :, None].expand(1, 2, 2, 4, 4) <- K_heads[0,1,2,3]\n"
        "@page b\n@question Q?\n@predict index Q_heads.view(1, 4, 8) <- Q_heads[0,0,0,0]\n"
        "@page c\n@question Q?\n@predict index Q_heads.transpose(1, 2) <- Q_heads[0,9,0,0]\n"
        "@page d\n@question Q?\n@predict offset K.transpose(1, 2) <- Q[0,0,0]\n";
    LessonErrors e3 = {0};
    l = lesson_parse("runs.lesson", runs, strlen(runs), &e3);
    ck_assert_msg(l != NULL, "%s", e3.msg[0]);
    lesson_check(l, &P, &e3);
    static const char *const why[] = {
        "runs.lesson:4: @predict index: K_heads[0,1,2,3] is in 2 cells",
        "runs.lesson:7: @predict index: 'Q_heads.view(1, 4, 8)' does not run: view size is not",
        "runs.lesson:10: @predict index: 'Q_heads[0,9,0,0]' is not an element of Q_heads (1, 2, 4, "
        "4)",
        "runs.lesson:13: @predict offset: no element of 'K.transpose(1, 2)'"};
    for (int i = 0; i < 4; i++) {
        int found = 0;
        for (int k = 0; k < e3.n; k++)
            found |= strstr(e3.msg[k], why[i]) == e3.msg[k];
        ck_assert_msg(found, "no '%s' in %d errors (first: %s)", why[i], e3.n, e3.msg[0]);
    }
    lesson_free(l);
    mha_free(m);
}
END_TEST

/* Lesson 9's machinery: @config rope=... rope_theta=... (strict, file:line:),
 * @step rope only on a page that makes it, the notice naming the layout,
 * and the {rope ...} and {flash ...} expressions read off the engine. */
/* Lesson 10's expressions: {paged} against the formulas of issue #19 written
 * out here, {window} against t mod W, {mla} and the preset fields against the
 * cited config.json values (DeepSeek-V3: 61 layers, kv_lora_rank 512,
 * qk_rope_head_dim 64, num_key_value_heads 128, head 128; Mistral Small 3:
 * hidden_size 5120, 32 heads, 8 kv heads, head_dim 128, 40 layers). */
static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

START_TEST(cache_expressions_in_lessons)
{
    MhaConfig c = mha_config_default();
    char out[512], err[300], w[300];
    /* blocks, last block, pool with and without a shared prefix, waste */
    const long L[3] = {100, 700, 2000}, N = 16, ctx = 4096, PFX = 40;
    long blocks = 0, own = 0, used = 0;
    for (int i = 0; i < 3; i++) {
        blocks += ceil_div(L[i], N);
        own += ceil_div(L[i], N) - PFX / N;
        used += L[i];
    }
    ck_assert_int_eq(
        expand(&c,
               "{paged blocks 16 4096 100}|{paged last 16 4096 100}|"
               "{paged pool 16 4096 100,700,2000}|{paged pool 16 4096 100,700,2000 40}|"
               "{paged shared 16 4096 100,700,2000 40}|"
               "{paged waste 16 4096 100,700,2000}|"
               "{paged contigwaste 16 4096 100,700,2000}",
               out, sizeof out, err),
        0);
    snprintf(w, sizeof w, "%ld|%ld|%ld|%ld|%ld|%ld|%ld", ceil_div(100, N), 100 - 6 * N, blocks,
             PFX / N + own, PFX / N, blocks * N - used, 3 * ctx - used);
    for (char *q = out; *q; q++) /* the engine writes 9,488: drop the commas */
        if (*q == ',') memmove(q, q + 1, strlen(q)), q--;
    ck_assert_str_eq(out, w);
    /* in bytes of a preset: Llama 3 8B in bf16 is 2 x 32 x 8 x 128 x 2 a token */
    ck_assert_int_eq(
        expand(&c, "{paged waste 16 4096 100,700,2000 llama-3-8b bf16}", out, sizeof out, err), 0);
    ck_assert_str_eq(out, "2,097,152"); /* 16 empty slots x 131,072 B */
    /* the rolling buffer: slot t mod W, over token t - W, from a real decode */
    for (int t = 0; t < 14; t++)
        for (int W = 1; W <= 5; W++) {
            char text[80];
            snprintf(text, sizeof text, "{window slot %d %d}|{window evicted %d %d}", t, W, t, W);
            ck_assert_int_eq(expand(&c, text, out, sizeof out, err), 0);
            snprintf(w, sizeof w, "%d|%d", t % W, t >= W ? t - W : -1);
            ck_assert_msg(!strcmp(out, w), "%s: %s, want %s", text, out, w);
        }
    ck_assert_int_eq(expand(&c, "{window check 9 4}", out, sizeof out, err), 0);
    ck_assert_msg(atof(out) < 1e-5, "%s", out);
    /* MLA from the config, and the config field that lies */
    ck_assert_int_eq(expand(&c,
                            "{mla deepseek-v3 bf16 bytes}|{mla deepseek-v3 bf16 elems}|"
                            "{mla deepseek-v3 bf16 norope}|{mla deepseek-v3 bf16 configkv}|"
                            "{mla deepseek-v3 bf16 layer}|{preset deepseek-v3 kv_lora_rank}|"
                            "{preset deepseek-v3 qk_rope_head_dim}",
                            out, sizeof out, err),
                     0);
    snprintf(w, sizeof w, "70,272|576|62,464|3,997,696|1,152|512|64");
    ck_assert_str_eq(out, w); /* 61 x 576 x 2; 61 x 512 x 2; 2 x 61 x 128 x 128 x 2 */
    ck_assert_int_eq(expand(&c, "{mla deepseek-v3 bf16 ratio}", out, sizeof out, err), 0);
    snprintf(w, sizeof w, "%ld", (3997696L + 70272 / 2) / 70272);
    ck_assert_str_eq(out, w);
    ck_assert_int_eq(expand(&c,
                            "{kv mistral-small-3 bf16}|{kv mistral-small-3 bf16 hidden}|"
                            "{preset mistral-small-3 hidden_per_head}|"
                            "{preset gemma-3-27b global_layers}|{preset gemma-3-27b local_layers}",
                            out, sizeof out, err),
                     0);
    ck_assert_str_eq(out, "163,840|204,800|160|10|52"); /* 2 x 40 x 8 x {128, 160} x 2 */
    ck_assert_int_eq(expand(&c, "{mla llama-3-8b bf16 bytes}", out, sizeof out, err), -1);
    ck_assert_msg(strstr(err, "no MLA latent") != NULL, "%s", err);
    ck_assert_int_eq(expand(&c, "{paged blocks 0 4096 100}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{paged pool 16 4096 100,30 40}", out, sizeof out, err), -1);
    ck_assert_msg(strstr(err, "--shared-prefix 40") != NULL, "%s", err);
    ck_assert_int_eq(expand(&c, "{paged nope 16 4096 100}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{window slot 9 0}", out, sizeof out, err), -1);
}
END_TEST

/* issue 16: a block opened `@code run` is run line by line by the
 * interpreter on the page's run; the page shows each line's shape from that
 * run; a line that raises (or uses what the interpreter lacks) fails
 * --check at its own line of the file. */
START_TEST(runnable_code_is_run_by_the_interpreter)
{
    const char *src = "@title R\n"
                      "@page a\n"
                      "@code run\n"
                      "q = Q.view(B, S, H, dh)\n"
                      "# heads first\n"
                      "q = q.transpose(1, 2)\n"
                      "@end\n"
                      "@code\n"
                      "scores (B, H, S, S)\n"
                      "@end\n";
    LessonErrors e = {0};
    Lesson *l = lesson_parse("r.lesson", src, strlen(src), &e);
    ck_assert_msg(l != NULL, "%s", e.msg[0]);
    ck_assert_int_eq(l->pages[0].blocks[0].run, 1);
    ck_assert_int_eq(l->pages[0].blocks[1].run, 0);
    char err[400];
    Mha *m = mha_run(&l->pages[0].cfg, err, sizeof err);
    LessonPageText t;
    ck_assert_int_eq(lesson_page_text(l, 0, m, &P, &t, err, sizeof err), 0);
    ck_assert_str_eq(t.shapes[0], "(1, 4, 2, 4)\n\n(1, 2, 4, 4)\n");
    ck_assert_ptr_null(t.shapes[1]);
    Canvas *c = canvas_new(80, 24); /* the text pane: the shapes beside their lines */
    LessonView v = {0};
    lesson_draw(c, l, 0, &t, m, &v);
    ck_assert(canvas_contains(c, "q = Q.view(B, S, H, dh)   (1, 4, 2, 4)"));
    ck_assert(canvas_contains(c, "q = q.transpose(1, 2)     (1, 2, 4, 4)")); /* one column */
    canvas_free(c);
    lesson_text_free(&t);
    ck_assert_int_eq(lesson_check(l, &P, &e), 0);
    lesson_free(l);
    const char *bad = "@title R\n@page a\n@code run\nq = Q.view(B, S, H, dh)\n"
                      "k = nothing.t()\n@end\n"
                      "@page b\n@code run\n\nr = Q.roll(1)\n@end\n";
    LessonErrors e2 = {0};
    l = lesson_parse("bad.lesson", bad, strlen(bad), &e2);
    ck_assert_msg(l != NULL, "%s", e2.msg[0]);
    ck_assert_int_eq(lesson_check(l, &P, &e2), 2);
    ck_assert_str_eq(e2.msg[0], "bad.lesson:5: NameError: name 'nothing' is not defined");
    ck_assert_msg(
        !strncmp(e2.msg[1],
                 "bad.lesson:10: NotImplementedError: `roll` is not in the playground yet", 70),
        "%s", e2.msg[1]);
    lesson_free(l);
    /* a shape the page asks for is not given away before it is answered */
    const char *ask = "@title R\n@page a\n@code run\nq = Q_heads.contiguous()\n@end\n"
                      "@question Its shape?\n@expect shape {shape Q_heads}\n@answer It is.\n";
    l = lesson_parse("ask.lesson", ask, strlen(ask), &e2);
    ck_assert_msg(l != NULL, "%s", e2.msg[0]);
    ck_assert_int_eq(lesson_page_text(l, 0, m, &P, &t, err, sizeof err), 0);
    c = canvas_new(80, 24);
    lesson_draw(c, l, 0, &t, m, &v);
    ck_assert(canvas_contains(c, "q = Q_heads.contiguous()   (?)"));
    ck_assert(!canvas_contains(c, "(1, 2, 4, 4)"));
    v.revealed = 1;
    lesson_draw(c, l, 0, &t, m, &v);
    ck_assert(canvas_contains(c, "q = Q_heads.contiguous()   (1, 2, 4, 4)"));
    canvas_free(c);
    lesson_text_free(&t);
    lesson_free(l);
    fails_with("@title R\n@page a\n@code runs\nx\n@end\n",
               "t.lesson:3: @code: expected nothing or 'run', got 'runs'");
    mha_free(m);
}
END_TEST

/* @config's keys are its table's (content/config_kv.c), window among
 * them: a causal page's band, checked as --window is; a size keeps the
 * value the author wrote, so its error names that value. */
START_TEST(config_window_and_sizes_as_written)
{
    LessonErrors e;
    Lesson *l = parse("@title W\n@page A\nText.\n@page B\n@config causal=1 window=2\nText.\n", &e);
    ck_assert_msg(l != NULL, "%s", e.n ? e.msg[0] : "");
    ck_assert_int_eq(l->pages[0].cfg.window, 0);
    ck_assert_int_eq(l->pages[1].cfg.causal, 1);
    ck_assert_int_eq(l->pages[1].cfg.window, 2);
    char buf[300];
    ck_assert_str_eq(lesson_config_diff(&l->pages[0].cfg, &l->pages[1].cfg, buf, sizeof buf),
                     "causal 0 -> 1, window 0 -> 2");
    lesson_free(l);
    fails_with("@title T\n@page P\n@config window=2\ntext\n",
               "t.lesson:3: @config: --window 2: needs --causal (the window is a band of the "
               "causal mask)");
    fails_with("@title T\n@page P\n@config causal=1 window=2000\ntext\n",
               "t.lesson:3: @config: --window 2000: must be between 1 and 1024");
    fails_with("@title T\n@page P\n@config wndow=2\ntext\n",
               "t.lesson:3: @config: unknown key 'wndow' (did you mean 'window'?)");
    fails_with("@title T\n@page P\n@config seq=999999\ntext\n",
               "t.lesson:3: @config: --seq 999999: must be between 1 and 1024");
    fails_with("@title T\n@page P\n@config d_model=100001\ntext\n",
               "t.lesson:3: @config: --d-model 100001: must be between 1 and 1024");
    fails_with("@title T\n@page P\n@config heads=3000000000\ntext\n",
               "t.lesson:3: @config: heads '3000000000' is too large (at most 2147483647)");
    /* the keys a bare @config lists come from the same table */
    char keys[200];
    ck_assert_str_eq(config_kv_keys(keys, sizeof keys),
                     "batch seq d_model heads kv_heads seed causal window rope rope_theta");
    ck_assert_str_eq(config_kv_keys(keys, 10), "batch seq"); /* cut at a whole key */
}
END_TEST

START_TEST(rope_and_flash_in_lessons)
{
    LessonErrors e;
    Lesson *l = parse("@title R\n@config rope=half rope_theta=500000\n@page A\n@step rope\nText.\n"
                      "@page B\n@config rope=interleaved\nText.\n@page C\n@config rope=off\nT.\n",
                      &e);
    ck_assert_msg(l != NULL, "%s", e.n ? e.msg[0] : "");
    ck_assert_int_eq(l->pages[0].cfg.rope, ROPE_HALF);
    ck_assert(l->pages[0].cfg.rope_theta == 500000.0);
    ck_assert_int_eq(l->pages[0].step, MS_ROPE);
    ck_assert_int_eq(l->pages[1].cfg.rope, ROPE_INTERLEAVED);
    ck_assert_int_eq(l->pages[2].cfg.rope, ROPE_OFF);
    char err[300];
    const char *want[] = {
        "This page's configuration: rope off -> half, rope_theta 10000 -> 500000.",
        "This page's configuration: rope half -> interleaved.",
        "This page's configuration: rope interleaved -> off."};
    for (int p = 0; p < 3; p++) {
        Mha *m = mha_run(&l->pages[p].cfg, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        LessonPageText t;
        ck_assert_int_eq(lesson_page_text(l, p, m, &P, &t, err, sizeof err), 0);
        ck_assert_str_eq(t.notice, want[p]);
        lesson_text_free(&t);
        mha_free(m);
    }
    lesson_free(l);

    fails_with("@title T\n@config rope=halve\n@page P\ntext\n",
               "t.lesson:2: @config: rope 'halve' is not a layout (did you mean 'half'?)");
    fails_with("@title T\n@page P\n@config rope=half rope_theta=0\ntext\n",
               "t.lesson:3: @config: rope_theta '0' is not a positive number");
    fails_with("@title T\n@page P\n@config rope=half rope_theta=1e4\ntext\n",
               "t.lesson:3: @config: rope_theta '1e4' is not a positive number");
    fails_with("@title T\n@page P\n@config rope=half rope_theta=2000000000000\ntext\n",
               "t.lesson:3: @config: rope_theta '2000000000000' must be at most 1e+12");
    fails_with("@title T\n@page P\n@config rope=half d_model=6 heads=2\ntext\n",
               "t.lesson:3: @config: --rope half: d_head 3 (--d-model 6 / --heads 2) is odd; "
               "RoPE turns pairs of floats, it needs an even d_head");

    /* @step rope on a page whose run makes no rope step: refused where it is */
    fails_with("@title T\n@page P\n@step rope\ntext\n",
               "t.lesson:3: @step rope: this page's configuration has RoPE off "
               "(add @config rope=half or rope=interleaved)");

    /* {rope ...}: the partner, its offset, the angle, the HF permutation check */
    MhaConfig c = mha_config_default();
    c.rope = ROPE_HALF;
    char out[512], w[300];
    ck_assert_int_eq(expand(&c,
                            "{rope partner half 1}|{rope partner interleaved 2}|"
                            "{rope offset half}|{rope offset interleaved}|{rope layout}|"
                            "{rope theta}|{rope pair half 3}",
                            out, sizeof out, err),
                     0);
    ck_assert_str_eq(out, "3|3|2|1|half|10000|1");
    ck_assert_int_eq(expand(&c, "{rope angle 3 1}|{rope invfreq 1}", out, sizeof out, err), 0);
    snprintf(w, sizeof w, "%.4g|%.4g", (double)(3 * rope_inv_freq(1, 4, 10000)),
             (double)rope_inv_freq(1, 4, 10000));
    ck_assert_str_eq(out, w);
    ck_assert_int_eq(expand(&c, "{rope hfcheck}", out, sizeof out, err), 0);
    ck_assert_msg(strstr(out, "0 over") == out || strstr(out, "e-0") != NULL, "%s", out);
    ck_assert_int_eq(expand(&c, "{copied rope}", out, sizeof out, err), 0);
    snprintf(w, sizeof w, "%d", (2 * 4 * 4 + 2 * 4 * 4) * 4); /* Q_rope + K_rope, float32 */
    ck_assert_str_eq(out, w);
    ck_assert_int_eq(expand(&c, "{rope partner half 4}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "{rope partner half 4}: floats of a head are 0..3");
    ck_assert_int_eq(expand(&c, "{rope partner side 1}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{rope angle 4 0}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{rope angle 0 2}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{rope bogus}", out, sizeof out, err), -1);
    c.rope = ROPE_OFF;
    ck_assert_int_eq(expand(&c, "{copied rope}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "step 'rope' is not in this run (RoPE is off: @config rope=half)");
    ck_assert_int_eq(expand(&c, "{rope theta}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{rope partner half 1}", out, sizeof out, err), 0); /* pure */

    /* {flash ...}: the tile loop of `mhaviz flash` (blocks 2 and 2) */
    c = mha_config_default();
    c.seq = 6;
    c.causal = 1;
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    Flash *f = flash_new(m, FLASH_BLOCK_DEFAULT, FLASH_BLOCK_DEFAULT, err, sizeof err);
    ck_assert_ptr_nonnull(f);
    float m3 = 0, l3 = 0;
    while (flash_step(f)) /* batch 0, head 1, row 3 (q tile 1) after K/V tile 0 */
        if (f->b == 0 && f->h == 1 && f->qtile == 1 && f->ktile == 0)
            m3 = f->tm[3 - f->r0], l3 = f->tl[3 - f->r0];
    FlashBytes fb = f->bytes;
    long skipped = f->skipped, visited = f->visited;
    flash_free(f);
    ck_assert_int_eq(expand(&c, "{flash m 0,1,3 0}|{flash l 0,1,3 0}", out, sizeof out, err), 0);
    snprintf(w, sizeof w, "%.4g|%.4g", (double)m3, (double)l3);
    ck_assert_str_eq(out, w);
    ck_assert_int_eq(expand(&c,
                            "{flash naive}|{flash flash}|{flash naivewrite}|{flash skipped}|"
                            "{flash visited}|{flash block_q}|{flash qtiles}|{flash keys 0,0,2 1}|"
                            "{flash argmax 0,0,1 0}",
                            out, sizeof out, err),
                     0);
    /* row 2 after K/V tile 1: keys 0, 1, 2 (3 is masked); row 1's max over keys 0, 1 */
    const Tensor *sc = m->t[MT_SCORES];
    int amax = tensor_get(sc, (int[]){0, 0, 1, 1}) > tensor_get(sc, (int[]){0, 0, 1, 0});
    char b1[32], b2[32], b3[32];
    snprintf(w, sizeof w, "%s|%s|%s|%ld|%ld|2|3|3|%d", text_fmt_int(b1, sizeof b1, fb.naive),
             text_fmt_int(b2, sizeof b2, fb.flash),
             text_fmt_int(b3, sizeof b3, 4 * (2 * 6 * 6 + 6 * 4) * 2), skipped, visited, amax);
    ck_assert_str_eq(out, w);
    mha_free(m);
    ck_assert_int_eq(skipped, 6); /* per head: q tile 0 skips 2, q tile 1 skips 1 */
    ck_assert_int_eq(expand(&c, "{flash m 0,0,1 1}", out, sizeof out, err), -1);
    ck_assert_str_eq(err, "{flash m 0,0,1 1}: K/V tile 1 is skipped for q tile 0 (causal)");
    ck_assert_int_eq(expand(&c, "{flash m 0,2,1 0}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{flash m 0,0,1 3}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{flash m 0,0,1}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{flash naive 1}", out, sizeof out, err), -1);
    ck_assert_int_eq(expand(&c, "{flash real naive}", out, sizeof out, err), 0);
    fb = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 0);
    char big[64];
    text_fmt_int(big, sizeof big, fb.naive);
    ck_assert_str_eq(out, big);
}
END_TEST

static Suite *lesson_suite(void)
{
    Suite *s = suite_create("lesson");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, parses_structure);
    tcase_add_test(tc, directive_table_rules);
    tcase_add_test(tc, variants_picture);
    tcase_add_test(tc, errors_name_file_and_line);
    tcase_add_test(tc, every_error_is_listed);
    tcase_add_test(tc, binary_utf8_and_long_lines);
    tcase_add_test(tc, suggestions);
    tcase_add_test(tc, expressions_come_from_the_engine);
    tcase_add_test(tc, noscalerow_reads_the_unscaled_softmax);
    tcase_add_test(tc, bad_expressions_are_errors);
    tcase_add_test(tc, every_builtin_lesson_checks_and_fits);
    tcase_add_test(tc, runnable_code_is_run_by_the_interpreter);
    tcase_add_test(tc, lessons_have_no_typed_engine_numbers);
    tcase_add_test(tc, load_by_name_number_and_env);
    tcase_add_test(tc, check_command_on_bad_corpus);
    tcase_add_test(tc, check_command_on_every_lesson);
    tcase_add_test(tc, control_characters_are_refused);
    tcase_add_test(tc, byte_order_mark_is_accepted);
    tcase_add_test(tc, check_lists_every_error_at_once);
    tcase_add_test(tc, check_command_on_quiz_banks);
    tcase_add_test(tc, narrow_text_pane_shows_the_memory_strip);
    tcase_add_test(tc, pipeline_answer_reads_as_a_sentence);
    tcase_add_test(tc, exercises_parse_and_check);
    tcase_add_test(tc, predict_exercises_are_run_by_the_engine);
    tcase_add_test(tc, which_cell_moves_is_followed_by_the_engine);
    tcase_add_test(tc, config_change_notice_is_generated);
    tcase_add_test(tc, numbers_resolve_against_the_menus_list);
    tcase_add_test(tc, rope_and_flash_in_lessons);
    tcase_add_test(tc, config_window_and_sizes_as_written);
    tcase_add_test(tc, cache_expressions_in_lessons);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(lesson_suite)
