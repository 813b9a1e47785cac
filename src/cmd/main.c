/* main.c - mhaviz: dispatch on the command name. */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"

#define MHAVIZ_VERSION "0.1.0"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"export", cmd_export, "print every tensor of the pipeline as JSON"},
    {"frames", cmd_frames, "print walkthrough frames as text (the TUI's canvases)"},
    {"kv", cmd_kv, "KV-cache bytes for real models: MHA vs GQA vs MQA"},
    {"lesson", cmd_lesson, "check lesson files, print their pages, or open one"},
    {"play", cmd_play, "the stride playground: type PyTorch tensor statements, see the memory"},
    {"quiz", cmd_quiz, "interview-prep questions: shapes, strides, offsets, views, GQA, KV cache"},
    {"walk", cmd_walk, "the walkthrough, one step per screen (interactive)"},
    {"decode", cmd_decode, "prefill, then one token at a time: the KV cache, toy and real sizes"},
    {"flash", cmd_flash, "FlashAttention-2 tile by tile: m, l, O, and the bytes never written"},
};

static int usage(FILE *f)
{
    fprintf(f, "usage: mhaviz [COMMAND] [OPTIONS]\n\n"
               "Multi-head attention, the way it runs in memory.\n\n"
               "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\nOptions shared by every command:\n%s"
            "\n`mhaviz COMMAND --help` tells more.  mhaviz --version prints the version.\n",
            cli_config_help);
    return f == stdout ? 0 : EXIT_USAGE;
}

/* The command, then the check of everything it printed (cli_close_stdout). */
static int run(int argc, char **argv)
{
    if (argc < 2) return cmd_home(argc, argv); /* the interactive home menu */
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
        return usage(stdout);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("mhaviz %s\n", MHAVIZ_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    if (argv[1][0] == '-') return cmd_home(argc, argv); /* `mhaviz --heads 4` */
    return cli_usage("unknown command '%s' (try mhaviz --help)", argv[1]);
}

int main(int argc, char **argv)
{
    return cli_close_stdout(run(argc, argv));
}
