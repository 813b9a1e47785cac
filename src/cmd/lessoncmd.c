/* lessoncmd.c - `mhaviz lesson`: check lesson files, list them, print their
 * pages as text, or open one in the TUI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/interactive.h"
#include "content/lesson.h"
#include "content/quiz.h"
#include "draw/canvas_export.h"
#include "draw/lessonpage.h"
#include "ui/lessonui.h"

static const char lesson_help[] =
    "usage: mhaviz lesson [NAME] [OPTIONS]        open the lessons (at NAME: 2, 02-heads, a file)\n"
    "       mhaviz lesson --check [FILE...]       validate lesson files (all lessons when none "
    "given;\n"
    "                                             a .quiz file is checked as a quiz bank)\n"
    "       mhaviz lesson --list                  list the lessons\n"
    "       mhaviz lesson --frames NAME [--page N] [--cols N] [--rows N] [--pane text|picture] "
    "[--ascii]\n"
    "                     [--format text|html] [--large]\n"
    "                                             print each page as the TUI draws it (html: "
    "a deck,\n"
    "                                             a slide per page, for a browser; --large: "
    "the\n"
    "                                             pictures in large print, for a projector)\n"
    "Lessons are built in; a file path, or NAME inside the directory $MHAVIZ_LESSONS, uses "
    "others.\n"
    "The format is in lessons/README.md.\n";

/* Loads, parses and (when check) checks one lesson.  Returns the lesson or
 * NULL with the errors in errs; *io_error set for a file that cannot be read.
 * A check goes on past the parser's errors (lesson_parse_partial), so one run
 * lists every error of the file. */
static Lesson *load(const char *name, const PresetList *presets, int check, LessonErrors *errs,
                    int *io_error)
{
    char *text = NULL, path[4096], err[400];
    size_t len = 0;
    *io_error = 0;
    int r = lesson_load_text(name, &text, &len, path, sizeof path, err, sizeof err);
    if (r == LESSON_NO_SUCH) { /* a usage error, said as every other one is */
        char line[420];
        snprintf(line, sizeof line, "mhaviz: %s", err);
        lesson_error_add(errs, line);
        return NULL;
    }
    if (r != 0) {
        lesson_error_add(errs, err);
        *io_error = 1;
        return NULL;
    }
    int before = errs->n + errs->dropped;
    Lesson *l =
        check ? lesson_parse_partial(path, text, len, errs) : lesson_parse(path, text, len, errs);
    free(text);
    if (l && check) lesson_check(l, presets, errs);
    if (l && errs->n + errs->dropped > before) {
        lesson_free(l);
        return NULL;
    }
    return l;
}

static void print_errors(const LessonErrors *e)
{
    for (int i = 0; i < e->n; i++)
        cli_line(stderr, "%s", e->msg[i]);
    if (e->dropped) fprintf(stderr, "... and %d more\n", e->dropped);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* A .quiz file given to `lesson --check` (lessons/ holds both kinds): checked
 * as the quiz bank it is, as `mhaviz quiz --check` does.  0 when valid, else
 * the exit code (1: unreadable, 2: invalid) with the message printed. */
static int check_quiz(const char *name)
{
    char *text = NULL, path[4096], err[400];
    size_t len = 0;
    int r = lesson_load_text(name, &text, &len, path, sizeof path, err, sizeof err);
    if (r != 0) return r == LESSON_NO_SUCH ? cli_usage("%s", err) : cli_io_error("%s", err);
    QuizBank bank = {0};
    int n = memchr(text, 0, len) ? -1 : quiz_bank_parse(&bank, path, text, err, sizeof err);
    if (n < 0 && memchr(text, 0, len)) snprintf(err, sizeof err, "%.300s: binary data", path);
    free(text);
    quiz_bank_free(&bank);
    if (n < 0) {
        cli_line(stderr, "%s", err);
        return EXIT_USAGE;
    }
    cli_line(stdout, "%s: ok, a quiz bank of %d question%s (mhaviz quiz --check checks these too)",
             path, n, text_s(n));
    return 0;
}

static int do_check(int nfiles, char **files, const PresetList *presets)
{
    char **all = NULL, err[300];
    int nall = 0;
    if (nfiles == 0) {
        nall = lesson_list(&all, err, sizeof err);
        if (nall < 0) return cli_io_error("%s", err);
        files = all;
        nfiles = nall;
    }
    int rc = 0; /* the exit code of the first bad file; every file is checked */
    int course = all && !getenv("MHAVIZ_LESSONS"); /* checking the built-in list */
    LessonCount sum = {0, 0, 0, 0};
    for (int i = 0; i < nfiles; i++) {
        if (ends_with(files[i], ".quiz")) {
            int q = check_quiz(files[i]);
            if (!rc) rc = q;
            continue;
        }
        LessonErrors errs = {0};
        int io = 0;
        Lesson *l = load(files[i], presets, 1, &errs, &io);
        if (!l) {
            if (io) fprintf(stderr, "mhaviz: ");
            print_errors(&errs);
            if (!rc) rc = io ? 1 : EXIT_USAGE;
            continue;
        }
        LessonCount n = lesson_count(l);
        cli_line(stdout, "%s: ok, %d page%s, %d exercise%s (%d typed, %d do, %d predict)%s",
                 l->path, l->npages, text_s(l->npages), lesson_checked(n),
                 text_s(lesson_checked(n)), n.typed, n.todo, n.predict,
                 n.reveal ? ", and reveal-only questions" : "");
        if (course && (lesson_checked(n) < LESSON_MIN_CHECKED || n.reveal)) {
            fprintf(stderr,
                    "%s:1: %d checked exercises and %d reveal-only question%s: a lesson "
                    "of the course needs at least %d checked ones and no reveal-only one\n",
                    l->path, lesson_checked(n), n.reveal, text_s(n.reveal), LESSON_MIN_CHECKED);
            if (!rc) rc = EXIT_USAGE;
        }
        sum.typed += n.typed, sum.todo += n.todo, sum.predict += n.predict, sum.reveal += n.reveal;
        lesson_free(l);
    }
    if (course) {
        cli_line(stdout, "the course: %d exercises (%d typed, %d do, %d predict), %d reveal-only",
                 lesson_checked(sum), sum.typed, sum.todo, sum.predict, sum.reveal);
        if (lesson_checked(sum) < LESSON_COURSE_CHECKED || sum.predict < LESSON_COURSE_PREDICT) {
            fprintf(stderr,
                    "mhaviz: the course has %d checked exercises, %d of them predict: it needs at "
                    "least %d and %d\n",
                    lesson_checked(sum), sum.predict, LESSON_COURSE_CHECKED, LESSON_COURSE_PREDICT);
            if (!rc) rc = EXIT_USAGE;
        }
    }
    lesson_list_free(all, nall);
    return rc;
}

static int do_list(void)
{
    char **all, err[300];
    int n = lesson_list(&all, err, sizeof err);
    if (n < 0) return cli_io_error("%s", err);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        LessonErrors errs = {0};
        int io;
        Lesson *l = load(all[i], NULL, 0, &errs, &io);
        if (!l) {
            print_errors(&errs);
            rc = EXIT_USAGE;
            continue;
        }
        cli_line(stdout, "%-12s %2d pages  %s", l->name, l->npages, l->title);
        lesson_free(l);
    }
    lesson_list_free(all, n);
    return rc;
}

/* What `lesson --frames` draws: which pages, how big, and as text or a deck. */
typedef struct FramesOpt {
    long page, cols, rows; /* page 0: every page */
    int pane, ascii, html, large;
} FramesOpt;

/* Each page as the TUI draws it (answers revealed): under a "--- NAME page
 * P/N (WxH)" line, or as a deck's slides (canvas_export.h) under the same
 * caption, in colour.  0, or the exit code with the message printed. */
static int do_frames(const char *name, const FramesOpt *o, const PresetList *presets)
{
    LessonErrors errs = {0};
    int io;
    Lesson *l = load(name, presets, 0, &errs, &io);
    if (!l) {
        if (io) fprintf(stderr, "mhaviz: ");
        print_errors(&errs);
        return io ? 1 : EXIT_USAGE;
    }
    if (o->page > l->npages) {
        int np = l->npages;
        lesson_free(l);
        return cli_usage("--page %ld: the lesson has %d page%s", o->page, np, text_s(np));
    }
    Canvas *c = canvas_new((int)o->cols, (int)o->rows);
    int rc = c ? 0 : 1;
    char caption[400];
    if (c && o->html) {
        snprintf(caption, sizeof caption, "mhaviz: %s", l->title);
        rc = canvas_html_head(stdout, caption, c->w, c->h, 0) ? 1 : 0; /* no animation */
    }
    for (int p = 0; c && p < l->npages && rc == 0; p++) {
        if (o->page && p != o->page - 1) continue;
        char err[400];
        Mha *m = mha_run(&l->pages[p].cfg, err, sizeof err);
        LessonPageText t;
        if (!m || lesson_page_text(l, p, m, presets, &t, err, sizeof err) != 0) {
            cli_line(stderr, "%s", err);
            mha_free(m);
            rc = EXIT_USAGE;
            break;
        }
        char hint[200]; /* the TUI's, from the key table */
        lessonui_page_hint(o->cols >= LESSON_WIDE_W && o->rows >= LESSON_WIDE_H, hint, sizeof hint);
        LessonView v = {
            .pane = o->pane, .revealed = 1, .ascii = o->ascii, .large = o->large, .hint = hint};
        lesson_draw(c, l, p, &t, m, &v);
        snprintf(caption, sizeof caption, "%s page %d/%d (%ldx%ld)", l->name, p + 1, l->npages,
                 o->cols, o->rows);
        if (o->html) {
            if (canvas_html_slide(stdout, p + 1, caption) ||
                canvas_write_html(c, stdout, 0, o->ascii, 0) || canvas_html_slide_end(stdout))
                rc = 1;
        } else {
            cli_line(stdout, "--- %s", caption);
            if (canvas_write(c, stdout, o->ascii, 0) != 0) rc = 1;
        }
        lesson_text_free(&t);
        mha_free(m);
    }
    if (c && o->html && rc == 0 && canvas_html_tail(stdout)) rc = 1;
    if (rc == 1 && !c) /* a write error is said at exit (cli_close_stdout) */
        fprintf(stderr, "mhaviz: lesson --frames: out of memory\n");
    canvas_free(c);
    lesson_free(l);
    return rc;
}

int cmd_lesson(int argc, char **argv)
{
    char err[300];
    int check = 0, list = 0, frames = 0;
    FramesOpt fo = {0, SCENE_MIN_W, SCENE_MIN_H, 0, 0, 0, 0}; /* the smallest frame */
    int nfiles = 0;
    int tui = 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--check") || !strcmp(argv[i], "--list") ||
            !strcmp(argv[i], "--frames") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            tui = 0;
    if (tui) /* mhaviz lesson [NAME] [TUI options] */
        return interactive_lesson(argc, argv, argc > 1 && argv[1][0] != '-' ? argv[1] : NULL);
    char **files = calloc((size_t)argc + 1, sizeof *files);
    if (!files) return 1;
    for (int i = 1; i < argc; i++) {
        const char *val;
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(lesson_help, stdout);
            free(files);
            return 0;
        } else if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--list"))
            list = 1;
        else if (!strcmp(argv[i], "--frames"))
            frames = 1;
        else if (!strcmp(argv[i], "--ascii"))
            fo.ascii = 1;
        else if (!strcmp(argv[i], "--large"))
            fo.large = 1;
        else if ((r = cli_match(argc, argv, &i, "--page", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--page", val, 1, LESSON_MAX_PAGES, &fo.page, err, sizeof err))
                goto usage;
        } else if ((r = cli_match(argc, argv, &i, "--cols", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--cols", val, 20, 500, &fo.cols, err, sizeof err)) goto usage;
        } else if ((r = cli_match(argc, argv, &i, "--rows", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--rows", val, 5, 300, &fo.rows, err, sizeof err)) goto usage;
        } else if ((r = cli_match(argc, argv, &i, "--pane", &val, err, sizeof err)) != 0) {
            if (r < 0) goto usage;
            if (strcmp(val, "text") && strcmp(val, "picture")) {
                snprintf(err, sizeof err, "--pane '%.40s': expected text or picture", val);
                goto usage;
            }
            fo.pane = !strcmp(val, "picture");
        } else if ((r = cli_match(argc, argv, &i, "--format", &val, err, sizeof err)) != 0) {
            if (r < 0) goto usage;
            if (strcmp(val, "text") && strcmp(val, "html")) {
                snprintf(err, sizeof err, "--format '%.40s': expected text or html", val);
                goto usage;
            }
            fo.html = !strcmp(val, "html");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            snprintf(err, sizeof err, "lesson: unknown option '%.40s' (see mhaviz lesson --help)",
                     argv[i]);
            goto usage;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    PresetList presets;
    if (presets_builtin(&presets, err, sizeof err) != 0) {
        free(files);
        return cli_io_error("%s", err);
    }
    int rc;
    if (check)
        rc = do_check(nfiles, files, &presets);
    else if (list)
        rc = do_list();
    else if (frames) {
        if (nfiles != 1)
            rc = cli_usage("lesson --frames needs one lesson name (mhaviz lesson --list)");
        else
            rc = do_frames(files[0], &fo, &presets);
    } else
        rc = cli_usage("lesson: nothing to do (see mhaviz lesson --help)");
    presets_free(&presets);
    free(files);
    return rc;
usage:
    free(files);
    return cli_usage("%s", err);
}
