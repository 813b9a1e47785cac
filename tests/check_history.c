/* check_history.c - the quiz history file (src/store/quiz_history.c): saves
 * that merge instead of overwrite, a bounded file, counts that never
 * overflow, and a damaged file kept instead of dropped. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "content/quiz.h"
#include "store/quiz_history.h"
#include "store/state.h"

/* A question as the history sees it: a topic and an id. */
static QuizQuestion *question(int topic, const char *id)
{
    static QuizQuestion q;
    memset(&q, 0, sizeof q);
    q.topic = topic;
    snprintf(q.id, sizeof q.id, "%s", id);
    return &q;
}

static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : "")
        n += !strncmp(s, prefix, strlen(prefix));
    return n;
}

/* Finding 1: two runs loaded the same file; the second save used to
 * overwrite the first one's answers. */
START_TEST(two_runs_both_counted)
{
    QuizHistory a, b;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&a, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_load(&b, err, sizeof err), 0);
    quiz_history_record(&a, question(QT_SHAPES, "g:shapes:1"), 0);
    quiz_history_record(&a, question(QT_SHAPES, "g:shapes:2"), 1);
    quiz_history_record(&b, question(QT_SHAPES, "g:shapes:1"), 0);
    quiz_history_record(&b, question(QT_VIEWS, "g:views:3"), 0);
    ck_assert_int_eq(quiz_history_save(&a, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_save(&b, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_save(&b, err, sizeof err), 0); /* again: adds nothing */
    quiz_history_free(&a);
    quiz_history_free(&b);
    ck_assert_int_eq(quiz_history_load(&a, err, sizeof err), 0);
    ck_assert_int_eq(a.total.asked[QT_SHAPES], 3);
    ck_assert_int_eq(a.total.right[QT_SHAPES], 1);
    ck_assert_int_eq(a.total.asked[QT_VIEWS], 1);
    char ids[4][64];
    ck_assert_int_eq(quiz_history_review(&a, ids, 4), 2);
    ck_assert_str_eq(ids[0], "g:shapes:1"); /* missed by both runs: 2 */
    ck_assert_str_eq(ids[1], "g:views:3");
    ck_assert_str_eq(a.warning, "");
    quiz_history_free(&a);
}
END_TEST

/* Process i of concurrent_processes_all_counted: one answer, saved. */
static int save_one_answer(int i)
{
    QuizHistory h;
    char err[300], id[32];
    if (quiz_history_load(&h, err, sizeof err) != 0) return 3;
    snprintf(id, sizeof id, "g:bugs:%d", i % 3);
    quiz_history_record(&h, question(QT_BUGS, id), i % 2);
    return quiz_history_save(&h, err, sizeof err) == 0 ? 0 : 4;
}

/* Finding 1, as it happened: many processes saving at once. */
START_TEST(concurrent_processes_all_counted)
{
    enum { N = 24 };
    tu_processes(N, save_one_answer);
    QuizHistory h;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.total.asked[QT_BUGS], N);
    ck_assert_int_eq(h.total.right[QT_BUGS], N / 2);
    quiz_history_free(&h);
}
END_TEST

/* Finding 2: the file is bounded; the misses first made longest ago go. */
START_TEST(misses_age_out)
{
    enum { N = QUIZ_HISTORY_MAX_MISSES + 500 };
    size_t cap = (size_t)N * 40 + 64, l = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    l += (size_t)snprintf(text + l, cap - l, "# mhaviz quiz history v1\n");
    for (int i = 0; i < N; i++)
        l += (size_t)snprintf(text + l, cap - l, "miss 1 g:shapes:%x\n", i);
    tu_state_put("quiz-history", text, l);
    free(text);
    QuizHistory h;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_int_eq(h.n, N); /* all read */
    quiz_history_record(&h, question(QT_SHAPES, "g:shapes:new"), 0);
    ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
    quiz_history_free(&h);
    text = tu_state_slurp("quiz-history", NULL);
    ck_assert_int_eq(count_lines(text, "miss "), QUIZ_HISTORY_MAX_MISSES);
    ck_assert_ptr_null(strstr(text, "g:shapes:0\n"));          /* the oldest went */
    ck_assert_ptr_null(strstr(text, "miss 1 g:shapes:1f4\n")); /* the 501st oldest too */
    ck_assert_ptr_nonnull(strstr(text, "miss 1 g:shapes:1f5\n"));
    ck_assert_ptr_nonnull(strstr(text, "miss 1 g:shapes:new\n")); /* the newest stays */
    free(text);
}
END_TEST

/* Finding 2: a large file loads whole and right (the time is in make bench). */
START_TEST(large_file_loads)
{
    enum { N = 50000 };
    size_t cap = (size_t)N * 40 + 64, l = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    l += (size_t)snprintf(text + l, cap - l, "# mhaviz quiz history v1\ntopic gqa 9 4\n");
    for (int i = 0; i < N; i++) /* every id twice: the counts add */
        l += (size_t)snprintf(text + l, cap - l, "miss %d g:gqa:%x\n", 1 + i % 2, i % (N / 2));
    tu_state_put("quiz-history", text, l);
    free(text);
    QuizHistory h;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_str_eq(h.warning, "");
    ck_assert_int_eq(h.n, N / 2);
    ck_assert_int_eq(h.miss[7].count, 2 * (1 + 7 % 2));
    ck_assert_int_eq(h.total.asked[QT_GQA], 9);
    quiz_history_free(&h);
}
END_TEST

/* Finding 3: 100 * right overflowed int from 21,474,837 (UBSan stopped, a
 * plain build printed -99%). */
START_TEST(percent_right_at_every_count)
{
    static const int counts[] = {21474836, 21474837, 30000000, QUIZ_HISTORY_MAX_COUNT};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        char text[200], sum[2000], want[100], err[300];
        int n = snprintf(text, sizeof text, "# mhaviz quiz history v1\ntopic shapes %d %d\n",
                         counts[i], counts[i]);
        tu_state_put("quiz-history", text, (size_t)n);
        QuizHistory h;
        ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
        ck_assert_int_eq(h.total.asked[QT_SHAPES], counts[i]);
        QuizScore s;
        memset(&s, 0, sizeof s);
        quiz_score_add(&s, QT_SHAPES, 1);
        quiz_report(&s, &h.total, sum, sizeof sum);
        snprintf(want, sizeof want, "(all sessions: %d/%d, 100%%)", counts[i], counts[i]);
        ck_assert_msg(strstr(sum, want), "%s", sum);
        quiz_history_free(&h);
    }
}
END_TEST

/* Finding 4: a count at the cap went one over and was dropped on the next load. */
START_TEST(counts_saturate_at_the_cap)
{
    char text[200], err[300];
    int n =
        snprintf(text, sizeof text, "# mhaviz quiz history v1\ntopic views %d %d\nmiss %d c:x\n",
                 QUIZ_HISTORY_MAX_COUNT, QUIZ_HISTORY_MAX_COUNT - 1, QUIZ_HISTORY_MAX_COUNT);
    tu_state_put("quiz-history", text, (size_t)n);
    QuizHistory h;
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    quiz_history_record(&h, question(QT_VIEWS, "c:x"), 0);
    quiz_history_record(&h, question(QT_VIEWS, "c:y"), 1);
    ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
    quiz_history_free(&h);
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_str_eq(h.warning, "");
    ck_assert_int_eq(h.total.asked[QT_VIEWS], QUIZ_HISTORY_MAX_COUNT);
    ck_assert_int_eq(h.total.right[QT_VIEWS], QUIZ_HISTORY_MAX_COUNT);
    ck_assert_int_eq(h.n, 1);
    ck_assert_int_eq(h.miss[0].count, QUIZ_HISTORY_MAX_COUNT);
    quiz_history_free(&h);
}
END_TEST

/* Finding 4: lines that could not be read (and everything after a NUL)
 * were dropped by the next save without a word. */
START_TEST(damaged_file_is_kept_numbered)
{
    static const char bad1[] = "# mhaviz quiz history v1\ntopic shapes 5 2\ngarbage\nmiss 2 c:a\n";
    static const char bad2[] = "# mhaviz quiz history v1\nmiss 1 c:b\n\0topic views 1 1\n";
    const char *bad[] = {bad1, bad2};
    size_t len[] = {sizeof bad1 - 1, sizeof bad2 - 1};
    const char *kept[] = {"quiz-history.bad", "quiz-history.bad.2"};
    for (int i = 0; i < 2; i++) {
        tu_state_put("quiz-history", bad[i], len[i]);
        QuizHistory h;
        char err[300];
        ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
        ck_assert_msg(strstr(h.warning, "line 3 cannot be read"), "%s", h.warning);
        quiz_history_record(&h, question(QT_GQA, "c:z"), 1);
        ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
        quiz_history_free(&h);
        for (int k = 0; k <= i; k++) { /* this copy and every earlier one, unchanged */
            size_t n;
            char *text = tu_state_slurp(kept[k], &n);
            ck_assert_ptr_nonnull(text);
            ck_assert_uint_eq(n, len[k]);
            ck_assert_msg(!memcmp(text, bad[k], n), "round %d, %s", i, kept[k]);
            free(text);
        }
        /* the new file holds what could be read, and this run */
        ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
        ck_assert_str_eq(h.warning, "");
        ck_assert_int_eq(h.total.asked[QT_GQA], 1);
        ck_assert_int_eq(h.total.asked[QT_SHAPES], i == 0 ? 5 : 0);
        ck_assert_int_eq(h.n, 1);
        ck_assert_str_eq(h.miss[0].id, i == 0 ? "c:a" : "c:b");
        quiz_history_free(&h);
    }
}
END_TEST

/* asked over every topic in the saved file */
static int saved_asked(void)
{
    QuizHistory h;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    int n = 0;
    for (int t = 0; t < QT_COUNT; t++)
        n += h.total.asked[t];
    quiz_history_free(&h);
    return n;
}

/* journals left in the state dir */
static int journals(void)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "ls %s/mhaviz | grep -c '^quiz-history.journal.' >/dev/null",
             test_state_dir);
    return system(cmd) == 0;
}

/* Item 6: a run that ends without a save (killed) leaves its answers in its
 * journal; the next save adds them, once, and removes the journal. */
START_TEST(gone_run_journal_is_added_once)
{
    QuizHistory a, b;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&a, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_journal(&a, err, sizeof err), 0);
    quiz_history_record(&a, question(QT_SHAPES, "g:shapes:1"), 0);
    quiz_history_record(&a, question(QT_VIEWS, "g:views:2"), 1);
    quiz_history_skip(&a, question(QT_BUGS, "g:bugs:3"));
    quiz_history_free(&a); /* gone without a save, as a kill */
    ck_assert(journals());
    ck_assert_int_eq(saved_asked(), 0);
    ck_assert_int_eq(quiz_history_load(&b, err, sizeof err), 0);
    quiz_history_record(&b, question(QT_SHAPES, "g:shapes:4"), 1);
    ck_assert_int_eq(quiz_history_save(&b, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_save(&b, err, sizeof err), 0); /* again: nothing twice */
    quiz_history_free(&b);
    ck_assert(!journals());
    ck_assert_int_eq(saved_asked(), 3);
    char *text = tu_state_slurp("quiz-history", NULL);
    ck_assert_ptr_nonnull(strstr(text, "topic shapes 2 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "miss 1 g:shapes:1\n"));
    ck_assert_ptr_nonnull(strstr(text, "miss 1 g:bugs:3\n"));
    free(text);
}
END_TEST

/* A run killed right after its save (the file replaced, its journal still
 * there) and one killed after answering past its save: the next save adds
 * only what the file does not hold yet, by the file's journal records. */
START_TEST(killed_after_its_save_counts_once)
{
    char err[300];
    for (int extra = 0; extra < 2; extra++) {
        int before = saved_asked();
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) { /* the run: 2 answers, saved, `extra` more, then "killed" */
            QuizHistory a;
            if (quiz_history_load(&a, err, sizeof err) || quiz_history_journal(&a, err, sizeof err))
                _exit(2);
            quiz_history_record(&a, question(QT_SHAPES, "g:shapes:1"), 0);
            quiz_history_record(&a, question(QT_VIEWS, "g:views:2"), 1);
            if (quiz_history_save(&a, err, sizeof err)) _exit(3);
            for (int i = 0; i < extra; i++)
                quiz_history_record(&a, question(QT_BUGS, "g:bugs:3"), 1);
            _exit(0); /* no quiz_history_free: its journal stays, as after kill -9 */
        }
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert_int_eq(WEXITSTATUS(st), 0);
        ck_assert(journals());
        ck_assert_int_eq(saved_asked(), before + 2);
        QuizHistory b;
        ck_assert_int_eq(quiz_history_load(&b, err, sizeof err), 0);
        quiz_history_record(&b, question(QT_SHAPES, "g:shapes:4"), 1);
        ck_assert_int_eq(quiz_history_save(&b, err, sizeof err), 0);
        quiz_history_free(&b);
        ck_assert_msg(saved_asked() == before + 3 + extra, "extra %d: %d, not %d", extra,
                      saved_asked(), before + 3 + extra);
        ck_assert(!journals());
        char *text =
            tu_state_slurp("quiz-history", NULL); /* the record of the gone journal is dropped */
        ck_assert_ptr_nonnull(text);
        QuizHistory c;
        ck_assert_int_eq(quiz_history_load(&c, err, sizeof err), 0);
        ck_assert_int_eq(quiz_history_save(&c, err, sizeof err), 0);
        quiz_history_free(&c);
        free(text);
        text = tu_state_slurp("quiz-history", NULL);
        ck_assert_ptr_null(strstr(text, "\njournal "));
        free(text);
    }
}
END_TEST

/* The state a kill -9 leaves between a save's rename and its journal's
 * removal: the file holds the journal's first answers (its record says how
 * many bytes), the journal holds them and one more.  The next save adds only
 * the one past the record (the old code, which truncated the journal after
 * the save, counted all of them again). */
START_TEST(journal_record_says_what_the_file_holds)
{
    static const char journal[] = "answer shapes 0 g:shapes:1\nanswer views 1 g:views:2\n";
    static const char more[] = "answer bugs 1 g:bugs:3\n";
    char file[400], err[300], all[200];
    snprintf(file, sizeof file,
             "# mhaviz quiz history v1\ntopic shapes 1 0\ntopic views 1 1\nmiss 1 g:shapes:1\n"
             "journal quiz-history.journal.AbC123 %zu\n",
             sizeof journal - 1);
    tu_state_put("quiz-history", file, strlen(file));
    snprintf(all, sizeof all, "%s%s", journal, more);
    tu_state_put("quiz-history.journal.AbC123", all, strlen(all)); /* its run is gone: no flock */
    ck_assert_int_eq(saved_asked(), 2);
    QuizHistory h;
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_str_eq(h.warning, ""); /* a record is a line this version reads */
    ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
    quiz_history_free(&h);
    ck_assert_int_eq(saved_asked(), 3);
    ck_assert(!journals());
    char *text = tu_state_slurp("quiz-history", NULL);
    ck_assert_ptr_nonnull(strstr(text, "topic bugs 1 1\n"));
    ck_assert_ptr_nonnull(strstr(text, "topic shapes 1 0\n"));
    free(text);
}
END_TEST

/* The journal of a run still answering is its own: another run's save
 * leaves it, so its answers are counted once, by its own save. */
START_TEST(live_journal_is_left_to_its_run)
{
    QuizHistory a, b;
    char err[300];
    ck_assert_int_eq(quiz_history_load(&a, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_journal(&a, err, sizeof err), 0);
    quiz_history_record(&a, question(QT_SHAPES, "g:shapes:1"), 0);
    quiz_history_record(&a, question(QT_SHAPES, "g:shapes:2"), 0);
    ck_assert_int_eq(quiz_history_load(&b, err, sizeof err), 0);
    ck_assert_int_eq(quiz_history_journal(&b, err, sizeof err), 0);
    quiz_history_record(&b, question(QT_VIEWS, "g:views:3"), 1);
    ck_assert_int_eq(quiz_history_save(&b, err, sizeof err), 0);
    quiz_history_free(&b);
    ck_assert_int_eq(saved_asked(), 1);
    ck_assert(journals()); /* a's */
    quiz_history_record(&a, question(QT_SHAPES, "g:shapes:5"), 1);
    ck_assert_int_eq(quiz_history_save(&a, err, sizeof err), 0);
    quiz_history_free(&a);
    ck_assert(!journals());
    ck_assert_int_eq(saved_asked(), 4);
}
END_TEST

/* Item 12: the name the save kept the damaged file as is the one reported
 * (it was "kept as quiz-history.bad" when .bad was taken and .bad.2 used). */
START_TEST(kept_name_is_the_one_used)
{
    QuizHistory h;
    char err[300];
    tu_state_put("quiz-history", "garbage\n", 8);
    tu_state_put("quiz-history.bad", "older\n", 6);
    ck_assert_int_eq(quiz_history_load(&h, err, sizeof err), 0);
    ck_assert_ptr_null(strstr(h.warning, "quiz-history.bad"));
    quiz_history_record(&h, question(QT_SHAPES, "g:shapes:1"), 1);
    ck_assert_int_eq(quiz_history_save(&h, err, sizeof err), 0);
    ck_assert_str_eq(h.kept, "quiz-history.bad.2");
    quiz_history_free(&h);
    char *text = tu_state_slurp("quiz-history.bad.2", NULL);
    ck_assert_str_eq(text, "garbage\n");
    free(text);
}
END_TEST

static Suite *history_suite(void)
{
    Suite *s = suite_create("history");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, state_dir_setup, state_dir_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, two_runs_both_counted);
    tcase_add_test(tc, concurrent_processes_all_counted);
    tcase_add_test(tc, misses_age_out);
    tcase_add_test(tc, large_file_loads);
    tcase_add_test(tc, percent_right_at_every_count);
    tcase_add_test(tc, counts_saturate_at_the_cap);
    tcase_add_test(tc, damaged_file_is_kept_numbered);
    tcase_add_test(tc, gone_run_journal_is_added_once);
    tcase_add_test(tc, live_journal_is_left_to_its_run);
    tcase_add_test(tc, killed_after_its_save_counts_once);
    tcase_add_test(tc, journal_record_says_what_the_file_holds);
    tcase_add_test(tc, kept_name_is_the_one_used);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(history_suite)
