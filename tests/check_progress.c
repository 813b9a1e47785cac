/* check_progress.c - lesson progress (src/progress.c): format, corrupt and
 * unreadable files, --no-save. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "store/progress.h"
#include "store/state.h"
#include "ui/lessonui.h"
#include "ui/screen.h"
#include "ui/screenstack.h"
#include "ui/ui.h"

/* A fresh XDG_STATE_HOME for each test (tests/check_main.h). */

START_TEST(format_round_trips)
{
    Progress p, q;
    memset(&p, 0, sizeof p);
    p.no_save = 1;
    progress_mark(&p, "02-heads", 0);
    progress_mark(&p, "02-heads", 2);
    progress_mark(&p, "07-failures", 63);
    char *text = progress_format(&p);
    ck_assert_str_eq(text, "# mhaviz lesson progress v1\n02-heads 1,3\n07-failures 64\n");
    char err[200];
    memset(&q, 0, sizeof q);
    ck_assert_int_eq(progress_parse(&q, text, err, sizeof err), 0);
    ck_assert(progress_done(&q, "02-heads", 0) && !progress_done(&q, "02-heads", 1) &&
              progress_done(&q, "02-heads", 2));
    ck_assert_int_eq(progress_count(&q, "07-failures"), 1);
    ck_assert_int_eq(progress_count(&q, "01-pipeline"), 0);
    free(text);
    /* Out of range pages and odd names are ignored, never a crash. */
    ck_assert_int_eq(progress_mark(&p, "../x", 1), 0);
    ck_assert_int_eq(progress_mark(&p, "02-heads", 64), 0);
    ck_assert_int_eq(progress_mark(&p, "02-heads", -1), 0);
}
END_TEST

START_TEST(saves_and_loads)
{
    Progress p;
    progress_load(&p, 0);
    ck_assert_int_eq(p.n, 0);
    ck_assert_str_eq(p.warning, "");
    ck_assert_int_eq(progress_mark(&p, "02-heads", 1), 0);
    char *text = tu_state_slurp(PROGRESS_FILE, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, "# mhaviz lesson progress v1\n02-heads 2\n");
    free(text);
    Progress q;
    progress_load(&q, 0);
    ck_assert(progress_done(&q, "02-heads", 1));
}
END_TEST

START_TEST(no_save_writes_nothing)
{
    Progress p;
    progress_load(&p, 1);
    progress_mark(&p, "02-heads", 0);
    ck_assert(progress_done(&p, "02-heads", 0));
    ck_assert_ptr_null(tu_state_slurp(PROGRESS_FILE, NULL));
}
END_TEST

START_TEST(corrupt_file_is_reported_kept_and_replaced)
{
    static const char *bad[] = {"garbage\n", "# mhaviz lesson progress v1\n02-heads one,two\n",
                                "# mhaviz lesson progress v1\n02-heads 99\n", ""};
    char err[200];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_int_eq(state_write(PROGRESS_FILE, bad[i], strlen(bad[i]), err, sizeof err), 0);
        Progress p;
        progress_load(&p, 0);
        ck_assert_msg(strstr(p.warning, "corrupt") != NULL, "case %zu: '%s'", i, p.warning);
        /* numbered: an earlier copy is never overwritten */
        char name[32];
        if (i == 0)
            snprintf(name, sizeof name, PROGRESS_FILE ".bad");
        else
            snprintf(name, sizeof name, PROGRESS_FILE ".bad.%zu", i + 1);
        ck_assert_msg(strstr(p.warning, name) != NULL, "case %zu: '%s'", i, p.warning);
        ck_assert_int_eq(p.n, 0);
        for (size_t k = 0; k <= i; k++) {
            if (k == 0)
                snprintf(name, sizeof name, PROGRESS_FILE ".bad");
            else
                snprintf(name, sizeof name, PROGRESS_FILE ".bad.%zu", k + 1);
            char *kept = tu_state_slurp(name, NULL);
            ck_assert_ptr_nonnull(kept);
            ck_assert_str_eq(kept, bad[k]);
            free(kept);
        }
        /* The next save writes a good file. */
        ck_assert_int_eq(progress_mark(&p, "01-pipeline", 0), 0);
        Progress q;
        progress_load(&q, 0);
        ck_assert_str_eq(q.warning, "");
        ck_assert(progress_done(&q, "01-pipeline", 0));
    }
    /* Binary data. */
    static const char bin[] = "# mhaviz lesson progress v1\n\0\x01\x02";
    ck_assert_int_eq(state_write(PROGRESS_FILE, bin, sizeof bin - 1, err, sizeof err), 0);
    Progress p;
    progress_load(&p, 0);
    ck_assert(strstr(p.warning, "binary") != NULL);
}
END_TEST

START_TEST(unreadable_file_turns_saving_off)
{
    char dir[400], buf[300];
    ck_assert_int_eq(state_dir(buf, sizeof buf, 1, dir, sizeof dir), 0);
    snprintf(dir, sizeof dir, "%s/%s", buf, PROGRESS_FILE);
    ck_assert_int_eq(mkdir(dir, 0700), 0); /* a directory where the file should be */
    Progress p;
    progress_load(&p, 0);
    ck_assert(strstr(p.warning, "not saved") != NULL);
    ck_assert_int_eq(p.no_save, 1);
    ck_assert_int_eq(progress_mark(&p, "02-heads", 0), 0); /* kept in memory only */
    ck_assert(progress_done(&p, "02-heads", 0));
    struct stat sb;
    ck_assert_int_eq(stat(dir, &sb), 0);
    ck_assert(S_ISDIR(sb.st_mode)); /* untouched */
}
END_TEST

START_TEST(failed_save_is_reported_once)
{
    Progress p;
    progress_load(&p, 0);
    /* The state dir becomes unusable after loading. */
    char file[400];
    snprintf(file, sizeof file, "%s/notadir", test_state_dir);
    FILE *f = fopen(file, "w");
    fclose(f);
    setenv("XDG_STATE_HOME", file, 1);
    ck_assert_int_eq(progress_mark(&p, "02-heads", 0), -1);
    ck_assert(strstr(p.warning, "progress not saved") != NULL);
    p.warning[0] = 0;
    ck_assert_int_eq(progress_mark(&p, "02-heads", 1), 0); /* saving is off now: quiet */
    ck_assert_str_eq(p.warning, "");
    setenv("XDG_STATE_HOME", test_state_dir, 1);
}
END_TEST

/* Finding 1: two runs (two terminals) loaded the same file; the second
 * save used to overwrite the first one's pages. */
START_TEST(two_runs_keep_both_pages)
{
    Progress a, b;
    progress_load(&a, 0);
    progress_load(&b, 0);
    ck_assert_int_eq(progress_mark(&a, "02-heads", 0), 0);
    ck_assert_int_eq(progress_mark(&b, "02-heads", 1), 0);
    ck_assert_int_eq(progress_mark(&b, "03-kv", 4), 0);
    ck_assert(progress_done(&b, "02-heads", 0)); /* b now sees a's page too */
    Progress c;
    progress_load(&c, 0);
    ck_assert(progress_done(&c, "02-heads", 0));
    ck_assert(progress_done(&c, "02-heads", 1));
    ck_assert(progress_done(&c, "03-kv", 4));
}
END_TEST

/* Process i of concurrent_processes_keep_every_page: one page, marked. */
static int mark_one_page(int i)
{
    Progress p;
    progress_load(&p, 0);
    return progress_mark(&p, i % 2 ? "01-pipeline" : "05-gqa", i) == 0 ? 0 : 3;
}

START_TEST(concurrent_processes_keep_every_page)
{
    enum { N = 24 };
    tu_processes(N, mark_one_page);
    Progress p;
    progress_load(&p, 0);
    ck_assert_str_eq(p.warning, "");
    for (int i = 0; i < N; i++)
        ck_assert_msg(progress_done(&p, i % 2 ? "01-pipeline" : "05-gqa", i), "page %d lost", i);
}
END_TEST

/* Finding 12: the page-turn key handler never writes (the frame goes out
 * first); the screen's tick saves, once for several quick turns. */
static int file_exists(const char *name)
{
    char path[600];
    struct stat sb;
    snprintf(path, sizeof path, "%s/mhaviz/%s", test_state_dir, name);
    return stat(path, &sb) == 0;
}

START_TEST(page_turn_saves_after_the_frame)
{
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.cfg = mha_config_default();
    char err[200];
    ui.mha = mha_run(&ui.cfg, err, sizeof err);
    ck_assert_ptr_nonnull(ui.mha);
    Screen *s = lesson_open(&ui, "02-heads");
    ck_assert_ptr_nonnull(s);
    ck_assert(s->ops->tick != NULL);
    for (int i = 0; i < 4; i++) /* page 1; page 2: what it waits for, its answer, on */
        ck_assert_int_eq(screenstack_send(s, &ui, UI_K_PGDN, NULL), UI_REDRAW);
    ck_assert(!file_exists(PROGRESS_FILE));             /* nothing written in the key handler */
    ck_assert(screen_tick(s, &ui, 100.0) & UI_ANIMATE); /* before the frame: asks for later */
    ck_assert(!file_exists(PROGRESS_FILE));
    ck_assert(screen_tick(s, &ui, 100.1) & UI_ANIMATE);
    ck_assert_int_eq(screen_tick(s, &ui, 101.0) & UI_ANIMATE, 0); /* saved */
    Progress p;
    progress_load(&p, 0);
    ck_assert(progress_done(&p, "02-heads", 0));
    ck_assert(progress_done(&p, "02-heads", 1));
    ck_assert_int_eq(screenstack_send(s, &ui, UI_K_PGDN, NULL), UI_REDRAW);
    ck_assert_int_eq(screenstack_send(s, &ui, UI_K_PGDN, NULL),
                     UI_REDRAW); /* page 2 done, either way */
    screen_close(s);             /* the last turn is saved on the way out */
    progress_load(&p, 0);
    ck_assert(progress_done(&p, "02-heads", 2));
    mha_free(ui.mha);
}
END_TEST

/* Issue 17: a page whose answer was shown (Space) is not a page solved.
 * The solved pages are a second line, NAME.solved, in the v1 grammar, so
 * the previous mhaviz still reads the file (and keeps the line on save);
 * a v1 file without them loads as pages finished, none solved. */
static int v1_grammar(const char *text)
{
    if (strncmp(text, "# mhaviz lesson progress v1\n", 28) != 0) return 0;
    for (const char *s = text + 28; *s;) {
        const char *sp = strchr(s, ' '), *eol = strchr(s, '\n');
        if (!sp || !eol || sp > eol || sp == s) return 0;
        for (const char *q = s; q < sp; q++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.", *q))
                return 0;
        for (const char *q = sp + 1; q < eol; q++)
            if (!strchr("0123456789,", *q)) return 0;
        s = eol + 1;
    }
    return 1;
}

START_TEST(solved_and_revealed_are_told_apart)
{
    Progress p, q;
    memset(&p, 0, sizeof p);
    p.no_save = 1;
    ck_assert_int_eq(progress_set(&p, "02-heads", 0), 1);   /* revealed */
    ck_assert_int_eq(progress_solve(&p, "02-heads", 2), 1); /* solved */
    ck_assert(progress_done(&p, "02-heads", 2) && progress_solved(&p, "02-heads", 2));
    ck_assert(progress_done(&p, "02-heads", 0) && !progress_solved(&p, "02-heads", 0));
    ck_assert_int_eq(progress_count(&p, "02-heads"), 2);
    ck_assert_int_eq(progress_count_solved(&p, "02-heads"), 1);
    ck_assert_int_eq(progress_solve(&p, "02-heads", 2), 0); /* nothing new */
    char *text = progress_format(&p);
    ck_assert_str_eq(text, "# mhaviz lesson progress v1\n02-heads 1,3\n02-heads.solved 3\n");
    ck_assert(v1_grammar(text));
    char err[200];
    ck_assert_int_eq(progress_parse(&q, text, err, sizeof err), 0);
    ck_assert(progress_solved(&q, "02-heads", 2) && !progress_solved(&q, "02-heads", 0));
    ck_assert_int_eq(progress_count(&q, "02-heads"), 2);
    ck_assert_int_eq(progress_count(&q, "02-heads.solved"), 0); /* not a lesson */
    free(text);
    /* Solving a page shown before: solved from now on, and a save keeps it. */
    ck_assert_int_eq(progress_solve(&p, "02-heads", 0), 1);
    ck_assert_int_eq(progress_count_solved(&p, "02-heads"), 2);
    /* The solved line may come first; it cannot repeat. */
    ck_assert_int_eq(
        progress_parse(&q, "# mhaviz lesson progress v1\nx.solved 1\nx 1,2\n", err, sizeof err), 0);
    ck_assert(progress_solved(&q, "x", 0) && progress_done(&q, "x", 1));
    ck_assert_int_eq(progress_parse(&q, "# mhaviz lesson progress v1\nx.solved 1\nx.solved 2\n",
                                    err, sizeof err),
                     -1);
    /* A v1 file: finished pages, none solved (the old version could not tell). */
    ck_assert_int_eq(
        progress_parse(&q, "# mhaviz lesson progress v1\n04-softmax 1,2,3,4,5\n", err, sizeof err),
        0);
    ck_assert_int_eq(progress_count(&q, "04-softmax"), 5);
    ck_assert_int_eq(progress_count_solved(&q, "04-softmax"), 0);
    ck_assert_int_eq(progress_solve(&p, "y.solved", 0), 0); /* a name the format reserves */
}
END_TEST

START_TEST(solved_pages_survive_a_merge)
{
    Progress a, b, c;
    progress_load(&a, 0);
    progress_load(&b, 0);
    ck_assert_int_eq(progress_set(&a, "02-heads", 1), 1);
    ck_assert_int_eq(progress_save(&a), 0);
    ck_assert_int_eq(progress_solve(&b, "02-heads", 1), 1);
    ck_assert_int_eq(progress_save(&b), 0);
    progress_load(&c, 0);
    ck_assert(progress_solved(&c, "02-heads", 1));
    char *text = tu_state_slurp(PROGRESS_FILE, NULL);
    ck_assert(v1_grammar(text));
    free(text);
}
END_TEST

static Suite *progress_suite(void)
{
    Suite *s = suite_create("progress");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, state_dir_setup, state_dir_teardown);
    tcase_add_test(tc, format_round_trips);
    tcase_add_test(tc, saves_and_loads);
    tcase_add_test(tc, no_save_writes_nothing);
    tcase_add_test(tc, corrupt_file_is_reported_kept_and_replaced);
    tcase_add_test(tc, unreadable_file_turns_saving_off);
    tcase_add_test(tc, failed_save_is_reported_once);
    tcase_add_test(tc, two_runs_keep_both_pages);
    tcase_add_test(tc, concurrent_processes_keep_every_page);
    tcase_add_test(tc, page_turn_saves_after_the_frame);
    tcase_add_test(tc, solved_and_revealed_are_told_apart);
    tcase_add_test(tc, solved_pages_survive_a_merge);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(progress_suite)
