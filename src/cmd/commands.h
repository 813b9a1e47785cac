/* commands.h - the subcommands of mhaviz; main.c dispatches on argv[1].
 * Each takes the arguments after the command name (argv[0] is the command)
 * and returns the process exit code: 0 ok, 1 runtime failure, 2 usage. */
#ifndef MHAVIZ_COMMANDS_H
#define MHAVIZ_COMMANDS_H

int cmd_export(int argc, char **argv); /* export.c */
int cmd_frames(int argc, char **argv); /* frames.c */
int cmd_kv(int argc, char **argv);     /* kv_cmd.c */
int cmd_lesson(int argc, char **argv); /* lessoncmd.c */
int cmd_quiz(int argc, char **argv);   /* quiz_cmd.c */
int cmd_play(int argc, char **argv);   /* play_cmd.c: the stride playground */
int cmd_walk(int argc, char **argv);   /* interactive.c: the walkthrough TUI */
int cmd_home(int argc, char **argv);   /* interactive.c: `mhaviz` alone, or with options */
int cmd_decode(int argc, char **argv); /* decode_cmd.c: prefill and decode, toy and real sizes */
int cmd_flash(int argc, char **argv);  /* flash_cmd.c: FlashAttention-2's tiles, m, l, O, bytes */

#endif
