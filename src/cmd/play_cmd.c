/* play_cmd.c - `mhaviz play`: the stride playground.  On a terminal, the play
 * screen (ui/play.c); with --plain, a read-eval-print loop on stdin/stdout
 * for people; with --json, one JSON object per statement for scripts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/interactive.h"
#include "content/play.h"
#include "ui/play.h"
#include "ui/screen.h"

static const char play_usage[] =
    "usage: mhaviz play [--plain | --json] [OPTIONS]\n\n"
    "The stride playground: type PyTorch tensor statements (b = torch.arange(24).view(2, 12),\n"
    "Q_heads.transpose(1, 2).contiguous(), x[:, 1:3].stride()) and see each result's shape,\n"
    "strides, storage offset, storage, contiguity, view or copy and bytes copied.  The\n"
    "pipeline's tensors of the configuration (x, Q, K, V, Q_split, Q_heads, scores, attn,\n"
    "head_out, concat, ...) are preloaded by name.\n\n"
    "  --plain              read statements from stdin, answer in text (no screen)\n"
    "  --json               read statements from stdin, one JSON object per line\n";

/* Reads statements until end of input; prints one answer per statement. */
static int play_loop(Play *p, int json)
{
    int tty_in = isatty(STDIN_FILENO), lineno = 0;
    char *line = NULL;
    size_t cap = 0;
    static char out[8192];
    PlayResult r = {0};
    r.error_col = -1;
    for (;;) {
        if (!json && tty_in) {
            fputs(">>> ", stdout);
            fflush(stdout);
        }
        ssize_t n = getline(&line, &cap, stdin);
        if (n < 0) break;
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = 0;
        PlayKind k = play_eval(p, line, &r);
        if (json) {
            if (k == PR_EMPTY) continue;
            play_result_json(&r, lineno, out, sizeof out);
            puts(out);
        } else {
            if (!tty_in && k != PR_EMPTY) printf(">>> %s\n", line);
            play_result_text(&r, line, out, sizeof out);
            fputs(out, stdout);
        }
        if (ferror(stdout)) break;
    }
    if (!json && tty_in) putchar('\n');
    play_result_clear(&r);
    free(line);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mhaviz: play: cannot write the output\n");
        return 1;
    }
    return 0;
}

static int play_text(int argc, char **argv, int json)
{
    MhaConfig cfg = mha_config_default();
    int kv_set = 0;
    char err[200];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--plain") || !strcmp(argv[i], "--json")) continue;
        int r = cli_config_flag(argc, argv, &i, &cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r == 0)
            return cli_usage("play: unknown option '%.60s' (try mhaviz play --help)", argv[i]);
    }
    if (!kv_set) cfg.kv_heads = cfg.heads;
    if (mha_config_check(&cfg, err, sizeof err) < 0) return cli_usage("%s", err);
    Mha *m = mha_run(&cfg, err, sizeof err);
    if (!m) {
        fprintf(stderr, "mhaviz: %s\n", err);
        return 1;
    }
    Play *p = play_new(m);
    mha_free(m);
    if (!p) {
        fprintf(stderr, "mhaviz: play: out of memory\n");
        return 1;
    }
    int rc = play_loop(p, json);
    play_free(p);
    return rc;
}

int cmd_play(int argc, char **argv)
{
    int plain = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\nConfiguration:\n%s", play_usage, cli_config_help);
            return 0;
        }
        if (!strcmp(argv[i], "--plain")) plain = 1;
        if (!strcmp(argv[i], "--json")) json = 1;
    }
    if (plain && json) return cli_usage("play: --plain and --json do not go together");
    if (plain || json) return play_text(argc, argv, json);
    Ui ui;
    AppOptions o;
    int rc = app_setup(&ui, &o, argc, argv, 1, 0, play_usage); /* flags first: a bad one exits 2 */
    if (rc < 0 && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
        rc = cli_usage("play: the play screen needs a terminal; use mhaviz play --plain or "
                       "--json for scripts");
    if (rc >= 0) {
        app_ui_free(&ui);
        return rc;
    }
    return interactive_run(&ui, play_open(&ui), &o);
}
