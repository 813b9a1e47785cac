/* check_quiz_bank.c - the quiz bank's two passes (src/content/quiz_bank.c):
 * quiz_bank_read checks a file without running the engine, quiz_bank_add
 * fills in the {expressions}, and together they are quiz_bank_parse. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "content/content.h"
#include "content/quiz.h"
#include "engine/tensor.h"

/* How many engines (one per mha_run) were made since the last call: every
 * engine_new is counted through the linker (-Wl,--wrap=engine_new, the
 * Makefile), since the engine itself keeps no process-wide count. */
Engine *__real_engine_new(const Engine *after);
Engine *__wrap_engine_new(const Engine *after);
static int engines;

Engine *__wrap_engine_new(const Engine *after)
{
    engines++;
    return __real_engine_new(after);
}

static int engines_made(void)
{
    int n = engines;
    engines = 0;
    return n;
}

static int is_quiz(const char *path)
{
    size_t l = strlen(path);
    return l > 5 && !strcmp(path + l - 5, ".quiz");
}

START_TEST(read_runs_no_engine_and_keeps_the_text)
{
    int files = 0, braces = 0;
    for (const ContentFile *f = content_files; f->path; f++) {
        if (!is_quiz(f->path)) continue;
        char err[320];
        QuizDraft *d;
        engines_made();
        int n = quiz_bank_read(f->path, f->text, &d, err, sizeof err);
        ck_assert_msg(n > 0, "%s", err);
        ck_assert_int_eq(engines_made(), 0);
        for (int i = 0; i < n; i++)
            braces += strchr(d[i].q.prompt, '{') != NULL; /* not filled in yet */
        free(d);
        files++;
    }
    ck_assert_int_ge(files, 2);
    ck_assert_int_gt(braces, 0);
}
END_TEST

START_TEST(engine_runs_only_for_questions_with_expressions)
{
    static const char plain[] =
        "@q Is a view a copy?\na) yes\nb) no\n@answer b\n@explain No.\n\n"
        "@q How many heads share one K in MQA?\n@answer all\n@explain All.\n";
    static const char expr[] = "@q How many floats are in Q?\n@answer {numel Q}\n@explain Count.\n";
    QuizBank bank = {0};
    char err[320];
    engines_made();
    ck_assert_int_eq(quiz_bank_parse(&bank, "plain.quiz", plain, err, sizeof err), 2);
    ck_assert_int_eq(engines_made(), 0);
    ck_assert_int_eq(quiz_bank_parse(&bank, "expr.quiz", expr, err, sizeof err), 1);
    ck_assert_int_gt(engines_made(), 0);
    ck_assert_int_eq(bank.q[2].kind, QK_NUMBER);
    ck_assert_int_gt(bank.q[2].number, 0);
    quiz_bank_free(&bank);
}
END_TEST

START_TEST(read_then_add_is_parse)
{
    for (const ContentFile *f = content_files; f->path; f++) {
        if (!is_quiz(f->path)) continue;
        QuizBank a = {0}, b = {0};
        char err[320];
        QuizDraft *d;
        int n = quiz_bank_parse(&a, f->path, f->text, err, sizeof err);
        ck_assert_msg(n > 0, "%s", err);
        ck_assert_int_eq(quiz_bank_read(f->path, f->text, &d, err, sizeof err), n);
        ck_assert_int_eq(quiz_bank_add(&b, f->path, d, n, err, sizeof err), n);
        for (int i = 0; i < n; i++)
            ck_assert_msg(!memcmp(&a.q[i], &b.q[i], sizeof a.q[i]), "%s: question %d", f->path, i);
        free(d);
        quiz_bank_free(&a);
        quiz_bank_free(&b);
    }
}
END_TEST

START_TEST(read_finds_every_error_the_engine_is_not_needed_for)
{
    DIR *dir = opendir("tests/quiz-bad");
    ck_assert_ptr_nonnull(dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (!is_quiz(e->d_name)) continue;
        char path[512], text[8192], perr[320], rerr[320];
        snprintf(path, sizeof path, "tests/quiz-bad/%s", e->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
        QuizBank bank = {0};
        QuizDraft *d;
        ck_assert_int_eq(quiz_bank_parse(&bank, path, text, perr, sizeof perr), -1);
        int n = quiz_bank_read(path, text, &d, rerr, sizeof rerr);
        if (strstr(perr, "expression")) { /* {nonsense}: only the engine pass knows */
            ck_assert_msg(n > 0, "%s: %s", path, rerr);
            ck_assert_int_eq(quiz_bank_add(&bank, path, d, n, rerr, sizeof rerr), -1);
            ck_assert_int_eq(bank.n, 0);
            free(d);
        } else {
            ck_assert_msg(n == -1 && d == NULL, "%s read", path);
        }
        ck_assert_str_eq(rerr, perr);
        quiz_bank_free(&bank);
        files++;
    }
    closedir(dir);
    ck_assert_int_ge(files, 10);
}
END_TEST

/* Every spelling of a short answer, typed as it is written, is judged right. */
static void each_spelling_is_right(const QuizQuestion *q, const char *where)
{
    char answer[QUIZ_ANSWER_MAX + 64], why[200];
    if (q->kind != QK_TEXT) {
        quiz_answer_text(q, answer, sizeof answer);
        if (q->kind == QK_CHOICE) answer[0] = (char)('a' + q->correct), answer[1] = 0;
        ck_assert_msg(quiz_check(q, answer, NULL, why, sizeof why) == 1, "%s: '%s'", where, answer);
        return;
    }
    for (const char *s = q->text, *bar; *s; s = bar + 1) {
        bar = strchr(s, '|');
        size_t l = bar ? (size_t)(bar - s) : strlen(s);
        snprintf(answer, sizeof answer, "%.*s", (int)l, s);
        ck_assert_msg(quiz_check(q, answer, NULL, why, sizeof why) == 1, "%s: '%s' of '%s'", where,
                      answer, q->text);
        if (!bar) break;
    }
}

START_TEST(every_accepted_answer_is_judged_right)
{
    /* fuzz_quiz_bank's findings: no typed answer was ever right */
    static const char *const unanswerable[] = {"(1|",   "(2, 8|", "1111111111111111111111|11",
                                               "12|(3", "words|", "a|[1 2"};
    for (size_t i = 0; i < sizeof unanswerable / sizeof *unanswerable; i++) {
        char text[256], err[320];
        snprintf(text, sizeof text, "@q e\n@answer %s\n@explain s\n", unanswerable[i]);
        QuizBank bank = {0};
        ck_assert_msg(quiz_bank_parse(&bank, "x.quiz", text, err, sizeof err) == -1,
                      "'%s' accepted", unanswerable[i]);
        ck_assert_msg(!strncmp(err, "x.quiz:2: @answer", 17), "%s", err);
        ck_assert_int_eq(bank.n, 0);
    }
    static const char good[] = "@q e\n@answer view|a view | (2, 8) words|12|b|2 GiB\n@explain s\n";
    QuizBank bank = {0};
    char err[320];
    ck_assert_msg(quiz_bank_parse(&bank, "g.quiz", good, err, sizeof err) == 1, "%s", err);
    each_spelling_is_right(&bank.q[0], "g.quiz");
    quiz_bank_free(&bank);
    ck_assert_int_eq(quiz_bank_load_builtin(&bank, err, sizeof err), 0);
    for (int i = 0; i < bank.n; i++)
        each_spelling_is_right(&bank.q[i], bank.q[i].source);
    quiz_bank_free(&bank);
}
END_TEST

/* The bank refuses every control character of the one rule
 * (base/sanitize.h), not only C0: DEL, 8-bit CSI, a bidi override; a tab and
 * a CRLF line end are text. */
START_TEST(control_characters_are_refused)
{
    static const char *const bad[] = {"ESC \033]2;x\007", "DEL \x7f",
                                      "CSI \xc2\x9b"
                                      "2J",
                                      "RLO \xe2\x80\xae"
                                      "x",
                                      "CR \r mid-line"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[300], err[320];
        snprintf(text, sizeof text, "@q What is %s?\na) x\nb) y\n@answer a\n@explain Why.\n",
                 bad[i]);
        QuizDraft *d;
        ck_assert_int_eq(quiz_bank_read("t.quiz", text, &d, err, sizeof err), -1);
        ck_assert_str_eq(err, "t.quiz:1: control character in the text");
    }
    QuizDraft *d;
    char err[320];
    ck_assert_int_eq(quiz_bank_read("t.quiz",
                                    "@q What\tis it?\r\na) x\r\nb) y\r\n@answer a\r\n"
                                    "@explain Why.\r\n",
                                    &d, err, sizeof err),
                     1);
    free(d);
}
END_TEST

/* A question's @config reads the lessons' keys (content/config_kv.c): rope
 * and rope_theta too, with the lessons' words for a bad one. */
START_TEST(config_reads_the_lessons_keys)
{
    QuizBank bank = {0};
    char err[400];
    static const char rope[] = "@q How many floats are in Q?\n"
                               "@config heads=2 d_model=8 rope=interleaved rope_theta=500000\n"
                               "@answer {numel Q}\n@explain C.\n";
    ck_assert_msg(quiz_bank_parse(&bank, "r.quiz", rope, err, sizeof err) == 1, "%s", err);
    quiz_bank_free(&bank);
    QuizDraft *d;
    ck_assert_int_eq(quiz_bank_read("r.quiz", rope, &d, err, sizeof err), 1);
    ck_assert_int_eq(d[0].cfg.rope, ROPE_INTERLEAVED);
    ck_assert(d[0].cfg.rope_theta == 500000.0);
    ck_assert_int_eq(d[0].cfg.kv_heads, 2); /* follows heads */
    free(d);
    static const char win[] = "@q How many keys does token 3 see?\n@config causal=1 window=2\n"
                              "@answer 2\n@explain The band.\n";
    ck_assert_int_eq(quiz_bank_read("w.quiz", win, &d, err, sizeof err), 1);
    ck_assert_int_eq(d[0].cfg.causal, 1);
    ck_assert_int_eq(d[0].cfg.window, 2);
    free(d);
    static const char *const bad[][2] = {
        {"@config heds=2\n", "b.quiz:2: @config: unknown key 'heds' (did you mean 'heads'?)"},
        {"@config causal=2\n", "b.quiz:2: @config: causal must be 0 or 1, got 2"},
        {"@config window=3\n",
         "b.quiz:2: @config: --window 3: needs --causal (the window is a band of the causal "
         "mask)"},
        {"@config seq=999999\n", "b.quiz:2: @config: --seq 999999: must be between 1 and 1024"},
        {"@config rope=halve\n",
         "b.quiz:2: @config: rope 'halve' is not a layout (did you mean 'half'?)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[300];
        snprintf(text, sizeof text, "@q Q?\n%sa) x\nb) y\n@answer a\n@explain W.\n", bad[i][0]);
        QuizBank b2 = {0};
        ck_assert_int_eq(quiz_bank_parse(&b2, "b.quiz", text, err, sizeof err), -1);
        ck_assert_str_eq(err, bad[i][1]);
        quiz_bank_free(&b2);
    }
}
END_TEST

static Suite *quiz_bank_suite(void)
{
    Suite *s = suite_create("quiz_bank");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, read_runs_no_engine_and_keeps_the_text);
    tcase_add_test(tc, engine_runs_only_for_questions_with_expressions);
    tcase_add_test(tc, read_then_add_is_parse);
    tcase_add_test(tc, read_finds_every_error_the_engine_is_not_needed_for);
    tcase_add_test(tc, every_accepted_answer_is_judged_right);
    tcase_add_test(tc, control_characters_are_refused);
    tcase_add_test(tc, config_reads_the_lessons_keys);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(quiz_bank_suite)
