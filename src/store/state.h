/* state.h - what mhaviz remembers between runs: lesson progress, quiz scores.
 *
 * Files live in $XDG_STATE_HOME/mhaviz/ (default ~/.local/state/mhaviz/).
 * Writes are atomic: a temp file in the same directory, fsync, rename, so a
 * kill at any moment leaves the old file or the new one, never a torn one.
 */
#ifndef MHAVIZ_STATE_H
#define MHAVIZ_STATE_H

#include <stddef.h>

/* The state directory into buf (created with parents when create != 0).
 * -1 with err set when there is no HOME/XDG_STATE_HOME or mkdir fails. */
int state_dir(char *buf, size_t n, int create, char *err, size_t errlen);

/* Reads the whole file name (inside the state dir) into a new NUL-terminated
 * buffer (*out, caller frees).  Returns 0, 1 if the file does not exist
 * (*out = NULL), -1 with err set on an I/O error. */
int state_read(const char *name, char **out, size_t *len, char *err, size_t errlen);

/* Replaces file name (inside the state dir) with data, atomically. 0 or -1. */
int state_write(const char *name, const char *data, size_t len, char *err, size_t errlen);

#endif
