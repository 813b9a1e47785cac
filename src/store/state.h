/* state.h - what mhaviz remembers between runs: lesson progress, quiz scores.
 *
 * Files live in $XDG_STATE_HOME/mhaviz/ (default ~/.local/state/mhaviz/).
 * Writes are atomic: a temp file in the same directory, fsync, rename, so a
 * kill at any moment leaves the old file or the new one, never a torn one.
 *
 * Two mhaviz may run at once (two terminals, a class of students on one
 * account).  A save is a merge, never a blind overwrite:
 *     fd = state_lock(...);                  one writer at a time
 *     state_read(...);                       what the others saved meanwhile
 *     ... add this run's changes ...
 *     state_write(...);  state_unlock(fd);
 * A file that cannot be parsed is kept aside with state_keep_bad before it
 * is replaced, under names that never overwrite an earlier copy.
 */
#ifndef MHAVIZ_STATE_H
#define MHAVIZ_STATE_H

#include <stddef.h>

#define STATE_MAX_FILE ((size_t)64 << 20) /* a state file is refused above this */
#define STATE_LOCK_FILE "lock"            /* flock'd by every save */
#define STATE_LOCK_WAIT_MS 10000          /* a save gives up on the lock after this */
#define STATE_STALE_SEC 5                 /* a temp file this old is an orphan */
#define STATE_MAX_BAD 99                  /* name.bad, name.bad.2 ... name.bad.99 */

/* The state directory into buf (created with parents when create != 0).
 * -1 with err set when there is no HOME/XDG_STATE_HOME or mkdir fails. */
int state_dir(char *buf, size_t n, int create, char *err, size_t errlen);

/* Reads the whole file name (inside the state dir) into a new NUL-terminated
 * buffer (*out, caller frees) through file_read (fileio.h: never blocks, only
 * regular files).  Returns 0, 1 if the file does not exist (*out = NULL), -1
 * with err set on an I/O error. */
int state_read(const char *name, char **out, size_t *len, char *err, size_t errlen);

/* Replaces file name (inside the state dir) with data, atomically, after
 * removing the temp files of name that a killed writer left (older than
 * STATE_STALE_SEC).  Call it holding state_lock.  0, or -1 with err set (the
 * old file is then unchanged and no temp file is left). */
int state_write(const char *name, const char *data, size_t len, char *err, size_t errlen);

/* Keeps data as "name.bad" or, when that exists, the first free of
 * "name.bad.2" ... "name.bad.99" (an earlier copy is never replaced); the
 * name chosen into kept.  0, or -1 with err set. */
int state_keep_bad(const char *name, const char *data, size_t len, char *kept, size_t keptn,
                   char *err, size_t errlen);

/* 1 if s (n bytes) can be a key of a state file's line: 1 to cap - 1
 * letters, digits, '-', '_' or a character of also ("" for none), so it
 * never holds the line's space, a newline or a path separator. */
int state_key_ok(const char *s, size_t n, size_t cap, const char *also);

/* The lines of a state file's text, one at a time: the next line after *at
 * into buf (without its '\n'), *at moved past it, *line its number (start
 * both at the text and 0).  Line 1 must be header and is not returned, nor
 * is an empty line.  1 with a line, 0 at the end of the text, -1 with err
 * set: a line of n bytes or more ("line 3 is too long"), or line 1 not the
 * header. */
int state_next_line(const char **at, const char *header, int *line, char *buf, size_t n, char *err,
                    size_t errlen);

/* Takes the state dir's lock (flock on STATE_LOCK_FILE, created with the
 * dir), waiting at most STATE_LOCK_WAIT_MS for another mhaviz's save.
 * Returns the descriptor to give to state_unlock, or -1 with err set. */
int state_lock(char *err, size_t errlen);
/* state_lock, waiting at most wait_ms (0: one try) instead. */
int state_lock_within(int wait_ms, char *err, size_t errlen);
void state_unlock(int fd);

/* fsync(2) as state_write calls it, for the file and then the directory.
 * Tests point it at a recorder to see that both happen before the rename
 * counts; nothing else changes it. */
extern int (*state_fsync_hook)(int fd);

#endif
