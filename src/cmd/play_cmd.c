/* play_cmd.c - `mhaviz play`: the stride playground.  On a terminal, the play
 * screen (ui/play.c); with --plain, a read-eval-print loop on stdin/stdout
 * for people; with --json, one JSON object per statement for scripts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <editline/readline.h> /* libedit: line editing for --plain on a terminal */

#include "base/fileio.h"
#include "base/lineread.h"
#include "base/sanitize.h"
#include "base/textutil.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/interactive.h"
#include "content/content.h"
#include "content/puzzle.h"
#include "engine/play.h"
#include "engine/tensorops.h"
#include "store/play_history.h"
#include "store/puzzle_best.h"
#include "ui/play.h"
#include "ui/screen.h"

#define PLAY_STR_(x) #x
#define PLAY_STR(x) PLAY_STR_(x)

static const char play_usage[] =
    "usage: mhaviz play [--plain | --json] [OPTIONS]\n"
    "       mhaviz play --puzzles\n"
    "       mhaviz play --puzzle [NAME] [--plain | --json] [--no-save]\n\n"
    "The stride playground: type PyTorch tensor statements (b = torch.arange(24).view(2, 12),\n"
    "Q_heads.transpose(1, 2).contiguous(), x[:, 1:3].stride()) and see each result's shape,\n"
    "strides, storage offset, storage, contiguity, view or copy and bytes copied.  The\n"
    "pipeline's tensors of the configuration (x, Q, K, V, Q_split, Q_heads, scores, attn,\n"
    "head_out, concat, ...) are preloaded by name.  The tensors the names hold total\n"
    "at most " PLAY_STR(
        PLAY_BUDGET_MB) " MB (and one storage at most 1000000 elements): a statement\n"
                        "past that is refused and says so.  q, k, v = x.chunk(3, dim=-1)\n"
                        "unpacks a tuple into names.  torch.randn draws from mhaviz's own "
                        "generator\n"
                        "(seeded 0, and by torch.manual_seed(n)): the same numbers every run, "
                        "not\n"
                        "PyTorch's.  data_ptr() is a model address: one base per storage plus\n"
                        "offset x element size.  With --rope half|interleaved, cos and sin\n"
                        "(S, dh) are preloaded too, Hugging Face's tables from the run's\n"
                        "angles: x1, x2 = Q_heads.chunk(2, dim=-1), then\n"
                        "Q_heads * cos + torch.cat((-x2, x1), dim=-1) * sin is Q_rope.\n\n"
                        "  --plain              read statements from stdin, answer in text (no "
                        "screen)\n"
                        "  --json               read statements from stdin, one JSON object per "
                        "line\n"
                        "  --values             with --json: each tensor's values too (\"data\", "
                        "row-major)\n"
                        "  --no-save            do not write the history (play_history in the "
                        "state dir)\n"
                        "  --run FILE           run the program in FILE (a statement a line, # "
                        "comments),\n"
                        "                       answering each as --plain (or --json); stops at "
                        "the first\n"
                        "                       error with FILE:LINE: and exit 2\n"
                        "  --puzzles            list the puzzles and your best scores\n"
                        "  --puzzle [NAME]      a puzzle (the first unsolved without NAME): one "
                        "line from\n"
                        "                       the given tensors to the target, checked on "
                        "random sizes\n"
                        "                       too and scored on the bytes it copies; with "
                        "--json each\n"
                        "                       stdin line prints {\"ok\", \"bytes_copied\", "
                        "\"best_bytes\",\n"
                        "                       \"failed_on\"}\n\n"
                        "On a terminal --plain edits the line (libedit): Up/Down history, Tab "
                        "completes\n"
                        "names and methods.  The play screen's keys: press ? on an empty line.\n";

/* ---- --plain on a terminal: libedit's line editor ---------------------------------
 * History in the state dir's play_history (store/play_history.h, the file the
 * play screen keeps too), Tab completion from play_complete. */

static Play *edit_play; /* the playground the completion reads */
static char edit_cand[64][PLAY_NAME_MAX];
static int edit_ncand, edit_next;

static char *edit_candidate(const char *text, int state)
{
    (void)text;
    if (state == 0) {
        int start;
        edit_next = 0;
        edit_ncand = play_complete(edit_play, rl_line_buffer, (int)strlen(rl_line_buffer),
                                   edit_cand, 64, &start);
    }
    return edit_next < edit_ncand ? strdup(edit_cand[edit_next++]) : NULL;
}

static char **edit_complete(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1; /* no file names */
    return rl_completion_matches(text, edit_candidate);
}

/* ---- the loop ---------------------------------------------------------------------- */

/* Reads statements until end of input; prints one answer per statement.
 * edit: libedit reads the lines (a terminal), else getline. */
static int play_loop(Play *p, int json, int values, int edit, int save)
{
    int tty_in = isatty(STDIN_FILENO), lineno = 0;
    char *line = NULL;
    static char out[8192], piped[PLAY_LINE_MAX + 1]; /* a line from a pipe, bounded */
    char err[300];
    PlayHistory hist = {{0}, 0, 0};
    PlayResult r = {0};
    r.error_col = -1;
    if (edit) {
        edit_play = p;
        rl_readline_name = "mhaviz";
        rl_basic_word_break_characters = " \t\n()[],.=:-";
        rl_completion_append_character = '\0';
        rl_attempted_completion_function = edit_complete;
        play_history_load(&hist);
        for (int i = 0; i < hist.n; i++)
            add_history(hist.line[i]);
    }
    for (;;) {
        LineRead lr = {0};
        char why[120];
        int refused = 0;
        if (edit) {
            free(line);
            line = readline(">>> ");
            if (!line) break;
        } else {
            if (!json && tty_in) {
                fputs(">>> ", stdout);
                cli_flush();
            }
            if (line_read(stdin, piped, sizeof piped, &lr) < 0) break;
            refused = line_refused(&lr, "statement", PLAY_LINE_MAX, why, sizeof why);
            if (refused && !lr.nul_at) piped[0] = 0; /* echo nothing of a line too long */
            if (refused) play_refuse(&r, why, lr.nul_at ? (int)lr.nul_at - 1 : PLAY_LINE_MAX);
        }
        lineno++;
        const char *stmt = edit ? line : piped, *echo = stmt;
        char shown[4 * sizeof piped];
        if (refused) /* with its NUL bytes shown, not cut at the first */
            echo = sanitize_bytes(piped, lr.len, shown, sizeof shown);
        PlayKind k = refused ? PR_ERROR : play_eval(p, stmt, &r);
        if (edit && k != PR_EMPTY && play_history_add(&hist, stmt)) add_history(stmt);
        if (edit && save && play_history_save(&hist, err, sizeof err) != 0)
            cli_line(stderr, "mhaviz: play: history not saved: %s", err);
        if (json) {
            if (k == PR_EMPTY) continue;
            play_result_json(&r, lineno, out, sizeof out);
            size_t len = strlen(out), need = k == PR_TENSOR ? tensorops_numel(r.t) * 20 + 8 : 0;
            char *data = values && need ? malloc(need) : NULL;
            if (data && len > 0) { /* the object's last key: "data": [...] */
                play_result_values_json(&r, data, need);
                out[len - 1] = 0;
                printf("%s, \"data\": %s}\n", out, data);
            } else
                puts(out);
            free(data);
        } else {
            if (!tty_in && k != PR_EMPTY) cli_line(stdout, ">>> %s", echo);
            play_result_text(&r, stmt, out, sizeof out);
            fputs(out, stdout);
        }
        if (cli_flush() != 0) break; /* said at exit (cli_close_stdout) */
    }
    if (!json && tty_in) putchar('\n');
    play_history_free(&hist);
    play_result_clear(&r);
    free(line);
    return ferror(stdout) ? EXIT_IO : 0;
}

/* --run FILE: each statement's answer as --plain or --json prints it */
static int run_step(void *ctx, const PlayStep *s)
{
    static char out[8192];
    if (*(const int *)ctx) {
        play_result_json(s->r, s->line, out, sizeof out);
        puts(out);
    } else {
        cli_line(stdout, ">>> %s", s->stmt);
        play_result_text(s->r, s->stmt, out, sizeof out);
        fputs(out, stdout);
    }
    return cli_flush() != 0;
}

/* Runs the program in path (play_run): 0, 2 at its first error (said as
 * "path:line: words" on stderr), 1 when it cannot be read. */
static int play_program(Play *p, const char *path, int json)
{
    char *text, err[800];
    size_t len;
    if (file_read(path, (size_t)4 << 20, &text, &len, err, sizeof err) != 0)
        return cli_io_error("play: --run %s", err);
    if (strlen(text) != len) {
        free(text);
        return cli_usage("play: --run %.200s: holds a NUL byte", path);
    }
    int line = play_run(p, text, path, run_step, &json, err, sizeof err);
    free(text);
    if (ferror(stdout)) return EXIT_IO;
    if (line) cli_line(stderr, "%s", err);
    return line ? EXIT_USAGE : 0;
}

static int play_text(int argc, char **argv, int json)
{
    MhaConfig cfg = mha_config_default();
    int kv_set = 0, save = 1, values = 0;
    const char *run = NULL;
    char err[200];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--plain") || !strcmp(argv[i], "--json")) continue;
        if (!strcmp(argv[i], "--values")) {
            if (!json) return cli_usage("play: --values goes with --json");
            values = 1;
            continue;
        }
        if (!strcmp(argv[i], "--run")) {
            if (i + 1 >= argc) return cli_usage("play: --run needs a file (a program)");
            run = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--no-save")) {
            save = 0;
            continue;
        }
        int r = cli_config_flag(argc, argv, &i, &cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r == 0)
            return cli_usage("play: unknown option '%.60s' (try mhaviz play --help)", argv[i]);
    }
    if (!kv_set) cfg.kv_heads = cfg.heads;
    if (mha_config_check(&cfg, err, sizeof err) < 0) return cli_usage("%s", err);
    Mha *m = mha_run(&cfg, err, sizeof err);
    if (!m) {
        return cli_io_error("%s", err);
    }
    Play *p = mha_play_new(m);
    mha_free(m);
    if (!p) {
        fprintf(stderr, "mhaviz: play: out of memory\n");
        return 1;
    }
    p->torch_names = content_pytorch_names();
    int edit = !json && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
    int rc = run ? play_program(p, run, json) : play_loop(p, json, values, edit, save);
    play_free(p);
    return rc;
}

/* ---- the puzzles ----------------------------------------------------------------- */

static int puzzles_list(void)
{
    PuzzleBests b;
    puzzle_best_load(&b, 0);
    if (b.warning[0]) cli_line(stderr, "mhaviz: %s", b.warning);
    for (int i = 0; i < puzzle_count(); i++) {
        const Puzzle *pz = puzzle_at(i);
        long best = puzzle_best_get(&b, pz->name);
        char score[48] = "not solved";
        if (best >= 0) snprintf(score, sizeof score, "best: %ld bytes", best);
        printf("%2d. %-13s %-44s %s\n", i + 1, pz->name, pz->title, score);
    }
    printf("mhaviz play --puzzle NAME opens one (also in Explore: PgDn).\n");
    return cli_flush() != 0 ? EXIT_IO : 0;
}

/* --puzzle NAME with --plain or --json: every line of stdin is an answer. */
static int puzzle_text_loop(const Puzzle *pz, int json, int save)
{
    static char piped[PLAY_LINE_MAX + 1], out[4096];
    PuzzleBests b;
    puzzle_best_load(&b, !save);
    if (b.warning[0]) cli_line(stderr, "mhaviz: %s", b.warning);
    if (!json) {
        puzzle_text(pz, out, sizeof out);
        fputs(out, stdout);
    }
    for (;;) {
        LineRead lr = {0};
        char why[120];
        if (!json && isatty(STDIN_FILENO)) {
            fputs(">>> ", stdout);
            cli_flush();
        }
        if (line_read(stdin, piped, sizeof piped, &lr) < 0) break;
        PuzzleCheck c;
        if (line_refused(&lr, "answer", PLAY_LINE_MAX, why, sizeof why)) {
            memset(&c, 0, sizeof c);
            c.bytes = c.ref_bytes = -1;
            snprintf(c.failed_on, sizeof c.failed_on, "%s", why);
        } else
            puzzle_check(pz, piped, &c);
        if (c.ok) puzzle_best_record(&b, pz->name, c.bytes);
        if (b.warning[0]) {
            cli_line(stderr, "mhaviz: %s", b.warning);
            b.warning[0] = 0;
        }
        long best = puzzle_best_get(&b, pz->name);
        if (json)
            puzzle_check_json(&c, best, out, sizeof out), puts(out);
        else {
            if (!isatty(STDIN_FILENO)) cli_line(stdout, ">>> %s", piped);
            puzzle_check_text(&c, best, out, sizeof out);
            fputs(out, stdout);
            if (!c.ok) cli_line(stdout, "hint: %s", pz->hint);
        }
        if (cli_flush() != 0) break;
    }
    return ferror(stdout) ? EXIT_IO : 0;
}

/* The puzzle --puzzle names (argv[*i + 1] when it is not a flag), or the
 * first one not solved.  -1 after a usage error was printed. */
static int puzzle_pick(int argc, char **argv, int i)
{
    if (i + 1 < argc && argv[i + 1][0] != '-') {
        int k = puzzle_index(argv[i + 1]);
        if (k >= 0) return k;
        const char *near = text_suggest(argv[i + 1], puzzle_names(), puzzle_count());
        cli_usage("play: --puzzle %.40s: no such puzzle (%s%s%stry mhaviz play --puzzles)",
                  argv[i + 1], near ? "did you mean " : "", near ? near : "", near ? "? " : "");
        return -1;
    }
    PuzzleBests b;
    puzzle_best_load(&b, 1);
    for (int k = 0; k < puzzle_count(); k++)
        if (puzzle_best_get(&b, puzzle_at(k)->name) < 0) return k;
    return 0;
}

int cmd_play(int argc, char **argv)
{
    int plain = 0, json = 0, puzzle = -1, save = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\nConfiguration:\n%s", play_usage, cli_config_help);
            return 0;
        }
        if (!strcmp(argv[i], "--plain")) plain = 1;
        if (!strcmp(argv[i], "--json")) json = 1;
        if (!strcmp(argv[i], "--no-save")) save = 0;
        if (!strcmp(argv[i], "--puzzles")) {
            for (int j = 1; j < argc; j++) /* it only reads: --no-save goes with it */
                if (j != i && strcmp(argv[j], "--no-save"))
                    return cli_usage("play: --puzzles takes no other option (%s)", argv[j]);
            return puzzles_list();
        }
        if (!strcmp(argv[i], "--puzzle")) {
            if ((puzzle = puzzle_pick(argc, argv, i)) < 0) return EXIT_USAGE;
            if (i + 1 < argc && argv[i + 1][0] != '-') i++;
        }
    }
    if (plain && json) return cli_usage("play: --plain and --json do not go together");
    /* --puzzle [NAME] out of argv: the rest is the play screen's options */
    char *rest[64];
    if (argc > 64) return cli_usage("play: too many arguments");
    int nrest = 0;
    for (int i = 0; i < argc && nrest < 64; i++) {
        if (i > 0 && !strcmp(argv[i], "--puzzle")) {
            if (i + 1 < argc && argv[i + 1][0] != '-') i++;
            continue;
        }
        rest[nrest++] = argv[i];
    }
    if (puzzle >= 0 && (plain || json)) {
        for (int i = 1; i < nrest; i++) /* the puzzle brings its own sizes */
            if (strcmp(rest[i], "--plain") && strcmp(rest[i], "--json") &&
                strcmp(rest[i], "--no-save"))
                return cli_usage("play: --puzzle does not take '%.60s' (a puzzle has its own "
                                 "sizes)",
                                 rest[i]);
        return puzzle_text_loop(puzzle_at(puzzle), json, save);
    }
    for (int i = 1; i < argc && !plain && !json; i++)
        plain = !strcmp(argv[i], "--run"); /* a program is run as text */
    if (plain || json) return play_text(argc, argv, json);
    Ui ui;
    InteractiveOptions o;
    int rc = interactive_setup(&ui, &o, nrest, rest, 1, 0,
                               play_usage); /* flags first: a bad one exits 2 */
    if (rc < 0 && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
        rc = cli_usage("play: the play screen needs a terminal; use mhaviz play --plain or "
                       "--json for scripts");
    if (rc >= 0) {
        ui_free(&ui);
        return rc;
    }
    return interactive_run(&ui, puzzle >= 0 ? play_open_puzzle(&ui, puzzle) : play_open(&ui), &o);
}
