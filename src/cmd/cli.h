/* cli.h - command-line parsing shared by every command.
 *
 * Flags are "--name value" or "--name=value".  Errors are one line naming the
 * flag ("--heads: 'x' is not a number"); commands print them as
 * "mhaviz: <msg>" and exit 2 (usage).
 */
#ifndef MHAVIZ_CLI_H
#define MHAVIZ_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "engine/mha.h"

/* The one rule for exit codes (README "Exit codes", mhaviz(1) EXIT STATUS):
 *   2 EXIT_USAGE  what the user wrote is wrong: a flag, a number, a
 *                 configuration, a lesson or quiz file's content (file:line:)
 *   1 EXIT_IO     a file cannot be read as a file (missing, a directory, a
 *                 FIFO or device, no permission, too big), a save failed, the
 *                 terminal went away
 * The message is one line, "mhaviz: FILE: is a directory" and the like, the
 * reason from file_read (base/fileio.h). */
#define EXIT_USAGE 2
#define EXIT_IO 1

/* Does argv[*i] name flag (exactly, or as "flag=...")?  If so, and the flag
 * takes a value, sets *val to it (advancing *i past a separate value) and
 * returns 1; returns -1 with err set when the value is missing; 0 if it is not
 * this flag. */
int cli_match(int argc, char **argv, int *i, const char *flag, const char **val, char *err,
              size_t errlen);

/* Parses a whole decimal number in [min, max] for flag: digits only (no
 * sign, no space, no 0x), as every number flag is read.  -1 with err set. */
int cli_long(const char *flag, const char *val, long min, long max, long *out, char *err,
             size_t errlen);

/* A positive decimal number up to max for flag: digits with at most one '.'
 * ("10000", "0.5"; no sign, exponent or space).  -1 with err set. */
int cli_positive(const char *flag, const char *val, double max, double *out, char *err,
                 size_t errlen);

/* The shared configuration flags: --batch --seq --d-model --heads --kv-heads
 * --seed --causal --rope half|interleaved --rope-theta N.  Returns 1 if argv[*i] was one (cfg
 * updated, *i advanced past its value), 0 if not, -1 with err set on a bad value.  *kv_set is set
 * to 1 when --kv-heads was given (otherwise kv_heads follows heads). */
int cli_config_flag(int argc, char **argv, int *i, MhaConfig *cfg, int *kv_set, char *err,
                    size_t errlen);

/* --compare FLAGS (walk, frames, export): the second configuration of a
 * comparison, FLAGS ("--kv-heads 1", "--batch 2 --causal") applied to a copy
 * of a by cli_config_flag, as on a command line; --heads without --kv-heads
 * makes it MHA, as everywhere.  0 with *b set, or -1 with err starting
 * "--compare: " (a bad flag or value, nothing given, an invalid config). */
int cli_compare(const char *flags, const MhaConfig *a, MhaConfig *b, char *err, size_t errlen);

/* Help text for the shared flags, one per line, indented two spaces. */
extern const char cli_config_help[];

/* Prints one line (fmt formatted, then a newline) on f with every control
 * character escaped by sanitize_text (base/sanitize.h): the way any text
 * from outside reaches stdout or stderr (a file name, a lesson's title, an
 * error quoting a line, a statement echoed).  The line is cut at 2047
 * bytes.  cli_usage and cli_io_error print through it too. */
void cli_line(FILE *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "mhaviz: msg" to stderr and returns EXIT_USAGE (for `return cli_usage(...)`). */
int cli_usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints "mhaviz: msg" to stderr and returns EXIT_IO (for `return cli_io_error(...)`). */
int cli_io_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Flushes stdout, as a command does before it waits for input (a prompt).
 * Remembers the reason of the first write that failed, which stdio forgets,
 * for cli_close_stdout.  0, or -1 (the output is lost; keep going: the exit
 * reports it). */
int cli_flush(void);

/* The end of every command (cmd/main.c): flushes and closes stdout and
 * returns rc, or, when any write to stdout failed, prints "mhaviz: write
 * error: REASON" and returns rc if it already says failure, else EXIT_IO.
 * A closed pipe never gets here: SIGPIPE ends the program first (141). */
int cli_close_stdout(int rc);

/* The fields of a run's "config" object, as export writes them and every
 * JSON output that names its run repeats them: "batch": 1, ..., "rope":
 * null, "rope_theta": null (d_head from the run), and "window": W only when
 * the run has one.  No braces: the caller adds
 * its own fields after them. */
void cli_config_json(FILE *f, const MhaConfig *c, int d_head);

#endif
