/* progress.h - which lesson pages a learner finished, kept between runs.
 *
 * File "progress" in the state directory (state.h), written atomically:
 *     # mhaviz lesson progress v1
 *     02-heads 1,2,3
 *     02-heads.solved 1,3
 * The first line of a lesson lists the pages finished; the ".solved" line
 * the ones of them the learner solved (answered right, or did) rather than
 * had revealed.  Both are lines of the v1 grammar, so a previous mhaviz reads
 * the file and keeps the ".solved" line as it saves; a file it wrote (no
 * ".solved" lines) reads as pages finished, none solved.
 * A file that cannot be parsed is reported once (Progress.warning), kept as
 * "progress.bad" (or .bad.2, ...: never over an earlier copy) so nothing is
 * lost silently, and replaced by an empty one.
 * A file that cannot be read at all turns saving off (it is never overwritten
 * unseen).  No function here crashes or exits on bad input.
 */
#ifndef MHAVIZ_PROGRESS_H
#define MHAVIZ_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define PROGRESS_FILE "progress"
#define PROGRESS_MAX_LESSONS 64

typedef struct Progress {
    struct {
        char name[64];   /* lesson name, "02-heads" */
        uint64_t done;   /* bit p: page p+1 finished */
        uint64_t solved; /* bit p: page p+1 solved (a subset of done) */
    } v[PROGRESS_MAX_LESSONS];
    int n;
    int no_save;       /* --no-save, or the file could not be read */
    int dirty;         /* marked since the last save */
    char warning[320]; /* "" or one line to show once */
} Progress;

/* Parses the file's text into p (p->warning untouched).  0, or -1 with the
 * reason (with its line number) in err. */
int progress_parse(Progress *p, const char *text, char *err, size_t errlen);
/* The text progress_parse reads back; returns a new string (caller frees) or NULL. */
char *progress_format(const Progress *p);

/* Loads the saved progress into p (empty when there is none).  Sets
 * p->warning when the file was corrupt or unreadable.  Never fails. */
void progress_load(Progress *p, int no_save);

/* Marks page (0-based) of lesson done in memory only; 1 if that is new (p is
 * then dirty until progress_save), 0 if it was done or cannot be recorded. */
int progress_set(Progress *p, const char *lesson, int page);

/* Saves when dirty (and saving is on), as a merge: under the state lock the
 * file is read again and the pages another mhaviz saved meanwhile are added
 * to p, so neither run loses the other's.  Returns 0, or -1 with p->warning
 * set (saving is then off: reported once; the marks stay in memory). */
int progress_save(Progress *p);

/* As progress_set, and the page counts as solved (its exercise answered or
 * done, not revealed).  1 if that is new, else 0.  A lesson name ending in
 * ".solved" is reserved by the format: 0. */
int progress_solve(Progress *p, const char *lesson, int page);

/* progress_set, then progress_save.  0 or -1 as progress_save. */
int progress_mark(Progress *p, const char *lesson, int page);

int progress_done(const Progress *p, const char *lesson, int page);
int progress_count(const Progress *p, const char *lesson); /* pages done */
int progress_solved(const Progress *p, const char *lesson, int page);
int progress_count_solved(const Progress *p, const char *lesson); /* pages solved */

#endif
