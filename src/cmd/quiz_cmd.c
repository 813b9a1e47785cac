/* quiz_cmd.c - `mhaviz quiz`: the TUI quiz, --plain for scripts and for
 * people who prefer a line at a time, --review, --check FILE... */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/linebreak.h"
#include "base/lineread.h"
#include "base/sanitize.h"
#include "base/textutil.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/interactive.h"
#include "content/content.h"
#include "content/quiz.h"
#include "store/quiz_history.h"
#include "ui/quiz_screen.h"
#include "ui/screen.h"

#define QUIZ_MAX_COUNT 1000

/* What the command line asked for. */
typedef struct QuizArgs {
    int plain, timed, limit, review, no_save, topic;
    int missed; /* --review: how many of the questions were missed ones */
    long count, seed;
    InteractiveOptions o;
} QuizArgs;

static const char quiz_help[] =
    "usage: mhaviz quiz [--plain] [--topic T] [--count N] [--seed N] [--timed [N]] [--review] "
    "[--no-save]\n"
    "       mhaviz quiz --check FILE...\n\n"
    "Interview-prep questions on multi-head attention in memory.  Generated questions\n"
    "(every answer computed by the engine) and a curated bank of concept questions.\n\n"
    "  --plain      one question at a time on stdout, one answer line from stdin\n"
    "               (a letter or a choice's text/number/shape, a number, or a shape:\n"
    "               (2, 8, 16, 64) / 2,8,16,64 / [2 8 16 64]);\n"
    "               an empty line skips; a line that is no answer counts as wrong;\n"
    "               end of input ends the quiz with the score so far\n"
    "  --topic T    %s (default: all)\n"
    "  --count N    questions in the quiz (default 10, at most 1000)\n"
    "  --seed N     the same seed asks the same questions (default: from the clock)\n"
    "  --timed [N]  show the seconds each answer took (TUI: a clock per question);\n"
    "               with N, N seconds a question: the TUI counts down, a late answer is wrong\n"
    "  --review     ask the questions you missed most\n"
    "  --no-save    do not record scores in the history\n"
    "  --color=WHEN auto (default), always or never; NO_COLOR=1 also means never\n"
    "  --ascii      ASCII glyphs (automatic when the locale is not UTF-8)\n"
    "  --check [FILE...]  validate quiz bank files, or the built-in ones (exit 2 on the\n"
    "               first bad line of a file)\n";

/* The topics, from the one table (quiz_topic_names), joined by ", ": the
 * help and the error name every topic there is.  wrap: break lines before
 * 64 columns, continued under the help's text.  A static buffer. */
static const char *topic_list(int wrap)
{
    static char buf[320];
    size_t l = 0, line = 0;
    for (int t = 0; t < QT_COUNT && l < sizeof buf; t++) {
        size_t w = strlen(quiz_topic_names[t]) + 2;
        const char *sep = !t ? "" : wrap && line + w > 64 ? ",\n               " : ", ";
        if (sep[1] == '\n') line = 0;
        line += w;
        l += (size_t)snprintf(buf + l, sizeof buf - l, "%s%s", sep, quiz_topic_names[t]);
    }
    return buf;
}

/* Prints s word-wrapped at width (base/linebreak.h), each line prefixed
 * with indent. */
static void print_wrapped(FILE *f, const char *s, int width, const char *indent)
{
    size_t n = strlen(s);
    LineBreak lb;
    while (n && *s == ' ')
        s++, n--;
    while (linebreak_next(s, n, width - (int)strlen(indent), &lb)) {
        fprintf(f, "%s%.*s\n", indent, (int)lb.len, s);
        s += lb.next, n -= lb.next;
    }
}

static void print_question(FILE *f, const QuizQuestion *q, int i, int n)
{
    fprintf(f, "[%d/%d] %s%s\n", i + 1, n, quiz_topic_names[q->topic], q->gen ? "" : " (curated)");
    fprintf(f, "%s\n", q->prompt);
    for (int c = 0; c < q->n_choices; c++)
        fprintf(f, "  %c) %s\n", 'a' + c, q->choices[c]);
}

/* The full stop after a sentence ending in s: none when s already ends one
 * ("... the cache)." must not become "... the cache).."). */
static const char *stop(const char *s)
{
    size_t l = strlen(s);
    return l && strchr(".?!", s[l - 1]) ? "" : ".";
}

/* right: 1 right, 0 wrong; skipped: an empty line; typed: the line as
 * shown; unread: the same when it could not be read as an answer to q, or "". */
static void print_feedback(FILE *f, const QuizQuestion *q, int right, int skipped, int chosen,
                           const char *typed, const char *unread, const char *why, double secs,
                           int timed)
{
    char ans[QUIZ_CHOICE_MAX + 8], kind[40];
    quiz_answer_text(q, ans, sizeof ans);
    if (right)
        fprintf(f, "Right.");
    else if (skipped)
        fprintf(f, "Skipped: the answer is %s%s", ans, stop(ans));
    else if (unread[0] && why[0]) /* refused before it was read: a NUL byte, too long */
        fprintf(f, "Wrong: could not read '%s': %s; the answer is %s%s", unread, why, ans,
                stop(ans));
    else if (unread[0])
        fprintf(f, "Wrong: could not read '%s' as %s; the answer is %s%s", unread,
                quiz_answer_kind(q, kind, sizeof kind), ans, stop(ans));
    else if (why[0])
        fprintf(f, "Wrong: %s%s%s; the answer is %s%s", strncmp(why, "out of", 6) ? typed : "",
                strncmp(why, "out of", 6) ? " is " : "", why, ans, stop(ans));
    else if (chosen >= 0)
        fprintf(f, "Wrong: you chose %c); the answer is %s%s", 'a' + chosen, ans, stop(ans));
    else
        fprintf(f, "Wrong: you typed %s; the answer is %s%s", typed, ans, stop(ans));
    if (timed) fprintf(f, "  (%.1f s)", secs);
    fprintf(f, "\n");
    print_wrapped(f, q->explain, 78, "  ");
    if (q->working[0]) {
        fprintf(f, "Working:\n");
        const char *s = q->working;
        while (*s) {
            int len = (int)strcspn(s, "\n");
            fprintf(f, "  %.*s\n", len, s);
            s += len;
            if (*s) s++;
        }
    }
    if (!q->gen) fprintf(f, "(%s)\n", q->source);
    fprintf(f, "\n");
}

/* The typed line (len bytes, NUL bytes and all) as it can be shown: at most
 * 40 bytes of it (then "..."), control characters escaped (sanitize_bytes).
 * n >= 4. */
static void shown_line(const char *line, size_t len, char *out, size_t n)
{
    size_t k = len > 40 ? 40 : len;
    while (k < len && k > 0 && ((unsigned char)line[k] & 0xC0) == 0x80)
        k--; /* not half a character */
    sanitize_bytes(line, k, out, n - 3);
    if (k < len) strcat(out, "...");
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define QUIZ_LINE_MAX 1024 /* an answer line; longer ones are refused, read in pieces */

/* ---- signals: INT, TERM and HUP end the plain quiz as the end of input does
 * (the answers saved), then it dies of the signal, as the shell expects. ---- */

static const int plain_sigs[] = {SIGINT, SIGTERM, SIGHUP};
#define NSIGS (int)(sizeof plain_sigs / sizeof *plain_sigs)
static volatile sig_atomic_t plain_signal; /* the signal that asks us to stop, or 0 */

static void on_signal(int sig)
{
    plain_signal = sig;
}

/* Catches the signals still at SIG_DFL (one ignored, as INT in a script's
 * background job, stays ignored), without SA_RESTART so that the read
 * waiting for an answer returns. */
static void catch_signals(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < NSIGS; i++)
        if (sigaction(plain_sigs[i], NULL, &old[i]) == 0 && old[i].sa_handler == SIG_DFL)
            sigaction(plain_sigs[i], &sa, NULL);
}

/* Puts the handlers back; when a signal came, dies of it. */
static void end_signals(const struct sigaction *old)
{
    for (int i = 0; i < NSIGS; i++)
        sigaction(plain_sigs[i], &old[i], NULL);
    if (!plain_signal) return;
    cli_flush(); /* what was printed, before the signal ends us */
    signal(plain_signal, SIG_DFL);
    raise(plain_signal);
}

static int run_plain(QuizQuestion *qs, int n, const char *what, uint64_t seed, const QuizArgs *a)
{
    int review = a->review, timed = a->timed, save = !a->no_save;
    QuizHistory h;
    char err[300];
    int have_hist = 0;
    if (quiz_history_load(&h, err, sizeof err) == 0)
        have_hist = 1;
    else if (save)
        cli_line(stderr, "mhaviz: %s (scores will not be saved)", err);
    if (have_hist && h.warning[0]) cli_line(stderr, "mhaviz: %s", h.warning);
    /* every answer goes to the journal as it is given: a kill or a stalled
     * lock loses none (quiz.h).  Without one (a read-only state dir) they are
     * saved at the end and on a signal, and the save says what went wrong. */
    if (have_hist && save) (void)quiz_history_journal(&h, err, sizeof err);
    struct sigaction old[NSIGS];
    catch_signals(old);
    QuizSession ss = {0}; /* the answers, judged as the TUI judges them (quiz.h) */
    if (have_hist) quiz_history_follow(&h, &ss);
    quiz_session_begin(&ss, qs, n, a->limit, 0);
    if (review && a->missed == n)
        printf("mhaviz quiz: reviewing the %d question%s you missed most.\n", n, text_s(n));
    else if (review)
        printf("mhaviz quiz: reviewing the %d question%s you missed most, then %d new on the "
               "topics below 100%%.\n",
               a->missed, text_s(a->missed), n - a->missed);
    else
        printf("mhaviz quiz: %d question%s, %s, seed %llu.\n", n, text_s(n), what,
               (unsigned long long)seed);
    printf("One line per question: a letter (or a choice's text, number or shape), a number or a "
           "shape\n"
           "like (2, 8, 16, 64); an empty line skips; a line that cannot be read counts as "
           "wrong.\n\n");
    static char line[QUIZ_LINE_MAX + 1];
    int tty_in = isatty(STDIN_FILENO);
    /* one line answers one question: an empty line skips it, a line that
     * cannot be an answer to it is wrong (and says why) */
    for (int more = n > 0; more && !plain_signal; more = quiz_session_next(&ss)) {
        const QuizQuestion *q = &qs[ss.i];
        print_question(stdout, q, ss.i, n);
        double t0 = now_sec();
        if (a->limit)
            printf("answer within %d s> ", a->limit);
        else
            printf("answer> ");
        cli_flush();
        LineRead lr;
        if (plain_signal || line_read(stdin, line, sizeof line, &lr) < 0) {
            printf(plain_signal ? "\n(stopped by a signal)\n\n" : "\n(end of input)\n\n");
            break;
        }
        char shown[4 * 40 + 8];
        shown_line(line, lr.len, shown, sizeof shown);
        if (!tty_in)
            printf("%s\n", shown); /* echo piped answers, so the transcript reads like a session */
        char refused[120];
        int is_refused = line_refused(&lr, "answer", QUIZ_LINE_MAX, refused, sizeof refused);
        QuizVerdict v;
        quiz_session_answer(&ss, line, is_refused ? refused : NULL, now_sec() - t0, &v);
        /* what could not be read is named as what was expected, unless refused */
        print_feedback(stdout, q, v.result == QV_RIGHT, v.result == QV_SKIPPED, v.chosen, shown,
                       v.unread ? shown : "", v.unread && !is_refused ? "" : v.why, v.secs, timed);
    }
    char sum[2000];
    int done = ss.answered;
    quiz_report(&ss.score, have_hist && save ? &h.total : NULL, sum, sizeof sum);
    if (done < n)
        printf("%s after %d of %d questions.\n", plain_signal ? "Stopped" : "Input ended", done, n);
    printf("%s", sum);
    int rc = 0, saved = have_hist && save && done > 0 ? quiz_history_save(&h, err, sizeof err) : 0;
    if (saved != 0) /* 1: kept in the journal, the next save adds them; -1: lost */
        cli_line(stderr, "mhaviz: %s", err);
    if (saved < 0) rc = 1;
    if (have_hist && h.kept[0])
        cli_line(stderr, "mhaviz: quiz history: the unreadable file is kept as %s", h.kept);
    if (have_hist) quiz_history_free(&h);
    end_signals(old);
    return rc;
}

#define QUIZ_MAX_FILE ((size_t)4 << 20) /* a quiz bank file, as a lesson file */

/* --check FILE...: 0 when every file is a valid bank; else 1 or 2 (cli.h). */
static int check_files(int argc, char **argv, int first)
{
    int bad = 0;
    if (first >= argc) { /* the banks built into the binary */
        int any = 0;
        for (const ContentFile *f = content_files; f->path; f++) {
            size_t l = strlen(f->path);
            if (l < 5 || strcmp(f->path + l - 5, ".quiz")) continue;
            char err[400];
            QuizBank bank = {0};
            int n = quiz_bank_parse(&bank, f->path, f->text, err, sizeof err);
            if (n < 0)
                cli_line(stderr, "%s", err), bad = 1;
            else
                printf("%s: %d question%s ok\n", f->path, n, text_s(n));
            quiz_bank_free(&bank);
            any = 1;
        }
        if (!any) return cli_usage("quiz --check: no quiz bank is built in; give FILE...");
        return bad ? EXIT_USAGE : 0;
    }
    int rc = 0; /* the exit code of the first file that fails (cli.h: 1 unreadable, 2 invalid) */
    for (int i = first; i < argc; i++) {
        char *text = NULL, err[400];
        size_t len = 0;
        if (file_read(argv[i], QUIZ_MAX_FILE, &text, &len, err, sizeof err) != 0) {
            int io = cli_io_error("%s", err);
            if (!rc) rc = io;
            continue;
        }
        QuizBank bank = {0};
        int n = memchr(text, 0, len) ? -1 : quiz_bank_parse(&bank, argv[i], text, err, sizeof err);
        if (n < 0 && memchr(text, 0, len))
            snprintf(err, sizeof err, "%s:1: a NUL byte: not a text file", argv[i]);
        if (n < 0) {
            cli_line(stderr, "%s", err);
            if (!rc) rc = EXIT_USAGE;
        } else
            cli_line(stdout, "%s: %d question%s ok", argv[i], n, text_s(n));
        quiz_bank_free(&bank);
        free(text);
    }
    return rc;
}

/* The quiz screen in the terminal, through the one interactive entry point. */
static int quiz_tui(const QuizQuestion *qs, int n, const QuizArgs *a, uint64_t seed)
{
    Ui ui;
    InteractiveOptions o = a->o;
    memset(&ui, 0, sizeof ui);
    ui.animation = 1;
    ui.anim_speed = 1.0;
    ui.no_save = a->no_save;
    MhaConfig cfg = mha_config_default();
    if (ui_set_config(&ui, &cfg) < 0) return 1;
    Screen *s = quiz_open_with(&ui, qs, n, a->topic, (int)a->count, seed, a->timed, a->no_save);
    quiz_set_limit(s, a->limit);
    return interactive_run(&ui, s, &o);
}

/* --timed, --timed N or --timed=N: the stopwatch, and N seconds a question. */
static int timed_flag(int argc, char **argv, int *i, QuizArgs *a)
{
    const char *arg = argv[*i], *val = NULL;
    if (!strncmp(arg, "--timed=", 8))
        val = arg + 8;
    else if (strcmp(arg, "--timed"))
        return 0;
    else if (*i + 1 < argc && argv[*i + 1][0] >= '0' && argv[*i + 1][0] <= '9')
        val = argv[++*i];
    a->timed = 1;
    long v;
    char err[200];
    if (val && cli_long("--timed", val, 1, 3600, &v, err, sizeof err))
        return cli_usage("%s", err), -1;
    if (val) a->limit = (int)v;
    return 1;
}

/* 0 parsed, or the exit code (--help: 0 through *done; a bad flag: 2). */
static int parse_args(int argc, char **argv, QuizArgs *a, int *done)
{
    char err[300];
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int m;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf(quiz_help, topic_list(1));
            return *done = 1, 0;
        }
        if (!strcmp(argv[i], "--check")) return *done = 1, check_files(argc, argv, i + 1);
        if ((m = interactive_display_flag(argc, argv, &i, &a->o)) ||
            (m = timed_flag(argc, argv, &i, a))) {
            if (m < 0) return EXIT_USAGE;
        } else if (!strcmp(argv[i], "--plain"))
            a->plain = 1;
        else if (!strcmp(argv[i], "--review"))
            a->review = 1;
        else if (!strcmp(argv[i], "--no-save"))
            a->no_save = 1;
        else if ((m = cli_match(argc, argv, &i, "--topic", &val, err, sizeof err)) != 0) {
            if (m < 0) return cli_usage("%s", err);
            a->topic = quiz_topic_index(val);
            if (a->topic < 0 && strcmp(val, "all"))
                return cli_usage("--topic: unknown topic '%s' (%s or all)", val, topic_list(0));
        } else if ((m = cli_match(argc, argv, &i, "--count", &val, err, sizeof err)) != 0) {
            if (m < 0 || cli_long("--count", val, 1, QUIZ_MAX_COUNT, &a->count, err, sizeof err))
                return cli_usage("%s", err);
        } else if ((m = cli_match(argc, argv, &i, "--seed", &val, err, sizeof err)) != 0) {
            if (m < 0 || cli_long("--seed", val, 0, (long)MHA_MAX_SEED, &a->seed, err, sizeof err))
                return cli_usage("%s", err);
        } else
            return cli_usage("quiz: unknown option '%s' (try mhaviz quiz --help)", argv[i]);
    }
    return 0;
}

/* --review: the questions missed most; when none is left but a topic is
 * below 100%, fresh questions of those topics (weakest first).  Returns how
 * many were written to qs, or -1 (I/O error printed). */
static int review_questions(const QuizBank *bank, QuizArgs *a, uint64_t seed, QuizQuestion *qs,
                            int *answered)
{
    QuizHistory h;
    char err[300];
    if (quiz_history_load(&h, err, sizeof err)) {
        cli_line(stderr, "mhaviz: %s", err);
        return -1;
    }
    int n = 0, count = (int)a->count;
    char(*ids)[64] = calloc((size_t)count, sizeof *ids);
    int k = ids ? quiz_history_review(&h, ids, count) : 0;
    for (int i = 0; i < k; i++)
        if (quiz_from_id(bank, ids[i], &qs[n]) == 0 && (a->topic < 0 || qs[n].topic == a->topic))
            n++;
    free(ids);
    a->missed = n;
    *answered = 0;
    for (int t = 0; t < QT_COUNT; t++)
        *answered += h.total.asked[t];
    QuizRng r;
    quiz_rng_seed(&r, seed);
    for (int t = 0; n < count && t < QT_COUNT; t++) { /* the topics below 100% */
        if (!quiz_topic_below_full(NULL, &h.total, t) || (a->topic >= 0 && t != a->topic)) continue;
        int want = count - n < 3 ? count - n : 3,
            got = quiz_session(bank, t, want, quiz_rng_next(&r), qs + n, err, sizeof err);
        if (got > 0) n += got;
    }
    quiz_history_free(&h);
    return n;
}

int cmd_quiz(int argc, char **argv)
{
    QuizArgs a = {.topic = -1, .count = 10, .seed = -1, .o = {COLOR_AUTO, 0, 0}};
    int done = 0, rc = parse_args(argc, argv, &a, &done);
    if (rc || done) return rc;
    uint64_t seed = a.seed >= 0 ? (uint64_t)a.seed : (uint64_t)time(NULL) % 100000;
    if (!a.plain && (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)))
        return cli_usage(
            "quiz: the quiz screen needs a terminal; use mhaviz quiz --plain for scripts");
    if (!a.plain && !a.review) return quiz_tui(NULL, 0, &a, seed);
    char err[300];
    QuizBank bank = {0};
    QuizQuestion *qs = NULL;
    if (quiz_bank_load_builtin(&bank, err, sizeof err)) {
        cli_line(stderr, "mhaviz: %s", err);
        quiz_bank_free(&bank);
        return 1;
    }
    qs = calloc((size_t)a.count, sizeof *qs);
    int answered = 0;
    int n = !qs        ? -1
            : a.review ? review_questions(&bank, &a, seed, qs, &answered)
                       : quiz_session(&bank, a.topic, (int)a.count, seed, qs, err, sizeof err);
    if (n < 0 && !a.review) cli_line(stderr, "mhaviz: %s", qs ? err : "quiz: out of memory");
    if (n == 0 && a.review && !answered)
        printf("Nothing to review yet: no answer recorded.\n");
    else if (n == 0 && a.review)
        printf("Nothing to review: every answer so far was right%s%s.\n",
               a.topic >= 0 ? " on " : "", a.topic >= 0 ? quiz_topic_names[a.topic] : "");
    if (n > 0) {
        char what[64];
        snprintf(what, sizeof what, "%s%s", a.topic >= 0 ? "topic " : "all topics",
                 a.topic >= 0 ? quiz_topic_names[a.topic] : "");
        rc = a.plain ? run_plain(qs, n, what, seed, &a) : quiz_tui(qs, n, &a, seed);
    } else
        rc = n < 0 ? 1 : 0;
    free(qs);
    quiz_bank_free(&bank);
    return rc;
}
