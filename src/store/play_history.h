/* play_history.h - the playground's statements, kept between runs.
 *
 * File "play_history" in the state directory (state.h), one statement a
 * line, oldest first, at most PLAY_HISTORY_MAX (the newest).  The play screen
 * (ui/play.c) and `play --plain` on a terminal (cmd/play_cmd.c) both keep it
 * through this module, so two sessions at once keep both their statements:
 * a save is a merge under the state lock, the file as it is at that moment
 * plus this session's statements not saved yet.
 * A file this module did not write (a NUL byte, a line too long) is kept as
 * "play_history.bad" (state_keep_bad) before it is replaced; one that cannot
 * be read is never replaced.
 */
#ifndef MHAVIZ_PLAY_HISTORY_H
#define MHAVIZ_PLAY_HISTORY_H

#include <stddef.h>

#define PLAY_HISTORY_FILE "play_history"
#define PLAY_HISTORY_MAX 500
#define PLAY_HISTORY_LOCK_MS 300 /* a save gives up on a busy lock after this (tries next time) */

typedef struct PlayHistory {
    char *line[PLAY_HISTORY_MAX]; /* owned; oldest first, no '\n' */
    int n;
    int unsaved; /* the last `unsaved` lines are not in the file yet */
} PlayHistory;

/* Fills the empty h with the saved statements (none when there is no file or
 * it cannot be read; lines the module would not write are skipped).  Never
 * fails; h is then play_history_free's. */
void play_history_load(PlayHistory *h);

/* Appends stmt to h in memory (an empty one, one repeating the last, one
 * longer than PLAY_LINE_MAX or holding a line end is not); the oldest goes
 * beyond PLAY_HISTORY_MAX.  1 if added (it is then unsaved), 0 if not. */
int play_history_add(PlayHistory *h, const char *stmt);

/* Adds h's unsaved statements to the file as it is now, under the state lock
 * (waiting at most PLAY_HISTORY_LOCK_MS), bounded to PLAY_HISTORY_MAX.  0 (none
 * unsaved after), or -1 with err set: they stay unsaved and go with the next
 * save. */
int play_history_save(PlayHistory *h, char *err, size_t errlen);

void play_history_free(PlayHistory *h);

#endif
