/* interactive.c - the commands that open the TUI: their flags, and the one
 * entry point that runs a first screen (tui_run) and dies of the signal that
 * ended it, so the shell sees what happened. */
#include "cmd/interactive.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "content/lesson.h"
#include "ui/home.h"
#include "ui/lessonui.h"
#include "ui/runjob.h"
#include "ui/screen.h"
#include "ui/tui.h"
#include "ui/walk.h"

/* ---- options and the commands ----------------------------------------------- */

static const char app_step_help[] =
    "  --step NAME|N        start at this step (0-10, or input, project, split, ...)\n"
    "  --compare FLAGS      a second configuration beside the first, at every step:\n"
    "                       FLAGS as on the command line, e.g. \"--kv-heads 1\" (x toggles)\n";
static const char app_flags_help[] =
    "  --color=WHEN         auto (default), always or never; NO_COLOR=1 also means never\n"
    "  --ascii              ASCII glyphs (automatic when the locale is not UTF-8)\n"
    "  --no-animation       no animations (a toggles them)\n"
    "  --autoplay SECONDS   presenter mode: the next step every SECONDS (p toggles)\n"
    "  --large              large print for a projector: fewer, bigger cells (L toggles\n"
    "                       it in the walkthrough)\n"
    "  --no-save            do not write progress or scores\n";

int interactive_display_flag(int argc, char **argv, int *i, InteractiveOptions *o)
{
    char err[300];
    const char *val = NULL;
    int m = cli_match(argc, argv, i, "--color", &val, err, sizeof err);
    if (m) {
        if (m < 0) return cli_usage("%s", err), -1;
        if (!strcmp(val, "auto"))
            o->color = COLOR_AUTO;
        else if (!strcmp(val, "always"))
            o->color = COLOR_ALWAYS;
        else if (!strcmp(val, "never"))
            o->color = COLOR_NEVER;
        else
            return cli_usage("--color: '%.40s' is not auto, always or never", val), -1;
        return 1;
    }
    if ((m = cli_match(argc, argv, i, "--ascii", NULL, err, sizeof err)) != 0) {
        if (m < 0) return cli_usage("%s", err), -1;
        o->ascii = 1;
        return 1;
    }
    return 0;
}

/* interactive_setup; with aside, a big configuration (runjob_worth) is
 * computed beside the loop: the default runs now, so the first frame is out
 * at once, and the wanted one starts in a worker (Esc goes back to the
 * default).  Walk and home use it; the other screens copy ui->cfg when they
 * open, so they get it computed. */
static int setup(Ui *ui, InteractiveOptions *o, int argc, char **argv, int first, int allow_step,
                 const char *usage, int aside)
{
    memset(ui, 0, sizeof *ui);
    memset(o, 0, sizeof *o);
    ui->cfg = mha_config_default();
    ui->animation = 1;
    ui->anim_speed = 1.0;
    o->color = COLOR_AUTO;
    int kv_set = 0;
    const char *step_val = NULL; /* read against the run's steps once the config is known */
    char err[200];
    for (int i = first; i < argc; i++) {
        const char *val = NULL;
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\nOptions:\n%s%s\nConfiguration:\n%s", usage, allow_step ? app_step_help : "",
                   app_flags_help, cli_config_help);
            return 0;
        }
        r = cli_config_flag(argc, argv, &i, &ui->cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r > 0) continue;
        if ((r = interactive_display_flag(argc, argv, &i, o)) != 0) {
            if (r < 0) return EXIT_USAGE;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--no-animation", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            ui->animation = 0;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--large", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            ui->large = 1;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--no-save", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            ui->no_save = 1;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--autoplay", &val, err, sizeof err)) != 0) {
            long v;
            if (r < 0 || cli_long("--autoplay", val, 1, 3600, &v, err, sizeof err) < 0)
                return cli_usage("%s", err);
            ui->autoplay = (double)v;
            continue;
        }
        if (allow_step &&
            (r = cli_match(argc, argv, &i, "--compare", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            snprintf(ui->compare, sizeof ui->compare, "%s", val);
            if (strlen(val) >= sizeof ui->compare)
                return cli_usage("--compare: the flags are too long (at most %zu characters)",
                                 sizeof ui->compare - 1);
            continue;
        }
        if (allow_step && (r = cli_match(argc, argv, &i, "--step", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            o->step = mha_step_index(val);
            step_val = val;
            if (o->step < 0)
                return cli_usage("--step: unknown step '%.40s' (0-%d or a name such as split)", val,
                                 MS_COUNT - 1);
            continue;
        }
        if (argv[i][0] && argv[i][strspn(argv[i], "abcdefghijklmnopqrstuvwxyz")] == 0) {
            /* `mhaviz --seq 5 frames`: a command's name after the flags */
            char flags[160] = "";
            for (int j = first; j < i; j++) {
                size_t l = strlen(flags);
                snprintf(flags + l, sizeof flags - l, " %.40s", argv[j]);
            }
            return cli_usage("'%.40s' is not an option: the command comes first (mhaviz %.40s%s)",
                             argv[i], argv[i], flags);
        }
        return cli_usage("unknown option '%.60s' (try --help)", argv[i]);
    }
    if (!kv_set) ui->cfg.kv_heads = ui->cfg.heads;
    if (mha_config_check(&ui->cfg, err, sizeof err) < 0) return cli_usage("%s", err);
    if (step_val && (o->step = mha_step_find(&ui->cfg, step_val)) < 0)
        return cli_usage("--step '%.40s': not a step of this run (0-%d%s)", step_val,
                         mha_step_total(&ui->cfg) - 1,
                         ui->cfg.rope ? "" : "; rope needs --rope half|interleaved");
    ui->compare_parse = cli_compare;
    if (ui->compare[0]) { /* --compare: its errors before the screen opens */
        MhaConfig b;
        if (cli_compare(ui->compare, &ui->cfg, &b, err, sizeof err) < 0)
            return cli_usage("%s", err);
    }
    MhaConfig want = ui->cfg;
    int later = aside && runjob_worth(&want);
    ui->background = aside;
    if (later) ui->cfg = mha_config_default();
    ui->mha = mha_run(&ui->cfg, err, sizeof err);
    if (!ui->mha) {
        cli_line(stderr, "mhaviz: %s", err);
        return 1;
    }
    if (ui->compare[0] && ui_compare_set(ui, 1) < 0) {
        cli_line(stderr, "mhaviz: %s", ui->status);
        return 1;
    }
    if (later) ui_set_config(ui, &want); /* 1: computing aside */
    return -1;
}

int interactive_setup(Ui *ui, InteractiveOptions *o, int argc, char **argv, int first,
                      int allow_step, const char *usage)
{
    return setup(ui, o, argc, argv, first, allow_step, usage, 0);
}

int interactive_run(Ui *ui, Screen *first, const InteractiveOptions *o)
{
    char err[200];
    int rc = first ? tui_run(ui, first, o->color, o->ascii, err, sizeof err) : 1;
    if (first && err[0]) cli_line(stderr, "mhaviz: %s", err); /* the terminal is restored */
    ui_free(ui);
    if (rc > 128) { /* ended by a signal, terminal restored: die of it, as the shell expects */
        /* Ctrl-\ is a request to quit, not a crash: no core file */
        if (rc - 128 == SIGQUIT) setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
        signal(rc - 128, SIG_DFL);
        raise(rc - 128);
    }
    return rc;
}

static int app_run(int argc, char **argv, int walk)
{
    Ui ui;
    InteractiveOptions o;
    const char *usage = walk ? "usage: mhaviz walk [OPTIONS]\n\nThe walkthrough: one step of "
                               "multi-head attention per screen, as it runs in memory.\n"
                             : "usage: mhaviz [OPTIONS]\n\nThe home menu of the interactive "
                               "program (mhaviz --help lists the commands).\n";
    int rc = setup(&ui, &o, argc, argv, 1, walk, usage, 1);
    if (rc >= 0) {
        ui_free(&ui);
        return rc;
    }
    return interactive_run(&ui, walk ? walk_open_at(&ui, o.step) : home_open(&ui), &o);
}

int cmd_walk(int argc, char **argv)
{
    return app_run(argc, argv, 1);
}

int cmd_home(int argc, char **argv)
{
    return app_run(argc, argv, 0);
}

int interactive_lesson(int argc, char **argv, const char *name)
{
    Ui ui;
    InteractiveOptions o;
    static const char usage[] =
        "usage: mhaviz lesson [NAME] [OPTIONS]\n\n"
        "The lessons, at the menu or at lesson NAME (2, 02-heads, or a file).\n"
        "mhaviz lesson --help also lists --check, --list and --frames.\n";
    int rc = interactive_setup(&ui, &o, argc, argv, name ? 2 : 1, 0, usage);
    if (rc >= 0) {
        ui_free(&ui);
        return rc;
    }
    if (name) { /* a file that cannot be read is EXIT_IO, as in lesson --check (cli.h) */
        char *text = NULL, path[4096], err[400];
        size_t len = 0;
        int r = lesson_load_text(name, &text, &len, path, sizeof path, err, sizeof err);
        if (r != 0) {
            ui_free(&ui);
            return r == LESSON_NO_SUCH ? cli_usage("%s", err) : cli_io_error("%s", err);
        }
        free(text);
    }
    Screen *s = name ? lesson_open(&ui, name) : lessons_open(&ui);
    if (!s && ui.status[0]) {
        cli_line(stderr, "mhaviz: %s", ui.status);
        ui_free(&ui);
        return EXIT_USAGE;
    }
    return interactive_run(&ui, s, &o);
}
