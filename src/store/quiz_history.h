/* quiz_history.h - quiz scores kept between runs, beside the lesson progress.
 *
 * What is remembered (state file "quiz-history", state.h rules: atomic
 * replace, merged under the lock): lifetime scores per topic and how often
 * each question was missed (a right answer later takes one miss off).
 * Counts stop at QUIZ_HISTORY_MAX_COUNT; at most QUIZ_HISTORY_MAX_MISSES
 * questions are kept, the ones first missed longest ago age out.
 *
 * A run follows its QuizSession (content/quiz.h: the one score of the
 * session is there) and keeps the answers not saved yet: in memory and, once
 * quiz_history_journal has started it, in a journal file as each is given.
 *
 * Ownership: a QuizHistory owns its arrays and its journal; free it with
 * quiz_history_free.
 */
#ifndef MHAVIZ_QUIZ_HISTORY_H
#define MHAVIZ_QUIZ_HISTORY_H

#include <stddef.h>

#include "content/quiz.h"

#define QUIZ_HISTORY_MAX_COUNT 100000000
#define QUIZ_HISTORY_MAX_MISSES 2000

typedef struct QuizMiss {
    char id[64];
    int count;
} QuizMiss;

/* One answer of this run not saved yet. */
typedef struct QuizPending {
    char id[64];
    int topic;  /* QT_*, or -1 */
    int result; /* QV_RIGHT, QV_WRONG or QV_SKIPPED */
} QuizPending;

typedef struct QuizHistory {
    QuizScore total; /* as loaded, plus this run */
    QuizMiss *miss;  /* owned; in the order first missed */
    int n, cap;
    int *slot, nslot;     /* owned; hash of miss ids: index + 1, 0 = empty */
    QuizPending *pending; /* owned; this run's answers not saved yet, in order */
    int npending, cappending;
    char warning[320]; /* "" or one line to show once (the file was corrupt) */
    char kept[160];    /* "" or the name the last save kept a corrupt file as */
    int has_journal;   /* quiz_history_journal: jfd and jpath are set */
    int jfd;           /* this run's journal, flock'd while the run lives */
    int jfailed;       /* a write to it failed: it is gone, the answers in memory only */
    long long jsaved;  /* bytes of it the file holds (its record at the last save) */
    char jpath[4400];
    /* The file's "journal NAME OFFSET" records: the first OFFSET bytes of
     * journal NAME are in the file already (quiz_history.c). */
    struct QuizJournalRec {
        char name[40];
        long long off;
    } * jrec; /* owned */
    int njrec, capjrec;
} QuizHistory;

/* Loads the history (empty when there is none yet), in time linear in the
 * file.  A file with a line it cannot read (or a NUL byte) is still used for
 * the lines it can read, h->warning says so, and the save keeps the file as
 * quiz-history.bad or the next free number (state_keep_bad: h->kept says
 * which) before replacing it.  0 (err untouched), or -1 with err set on an
 * I/O error (then h is empty and should not be saved). */
int quiz_history_load(QuizHistory *h, char *err, size_t errlen);

/* Starts this run's journal, "quiz-history.journal.XXXXXX" in the state dir:
 * from now on every answer recorded is also appended to it at once, so that
 * a run killed (even by SIGKILL) or kept from the lock (a stalled holder)
 * loses none.  The run holds a flock on it while it lives; a save that finds
 * the journal of a run that is gone adds it to the file and removes it.
 * 0, or -1 with err set (then the answers live in memory only, as before). */
int quiz_history_journal(QuizHistory *h, char *err, size_t errlen);

/* Records every answer s records from now on in h (s->record): h must
 * outlive s's answers.  The one way the front ends record. */
void quiz_history_follow(QuizHistory *h, QuizSession *s);

/* One answer (right 1 or 0): in h's totals and misses, pending for the save,
 * in the journal. */
void quiz_history_record(QuizHistory *h, const QuizQuestion *q, int right);
/* A skipped question: no score, but one more miss, so --review asks it. */
void quiz_history_skip(QuizHistory *h, const QuizQuestion *q);

/* Adds this run's pending answers to the file as it is now (another mhaviz
 * may have saved meanwhile: its answers are kept), and the journals of runs
 * that are gone, under the state lock, then forgets them (a second save adds
 * only what came after).  0 saved (err ""); 1 not saved but kept in the journal (err
 * says why and where: the next save adds them); -1 with err set (not saved).
 * A kill between the file's rename and the journal's truncation counts those
 * answers twice at the next save: never none. */
int quiz_history_save(QuizHistory *h, char *err, size_t errlen);

/* Frees h; its journal is removed when everything in it was saved, else
 * left (unlocked) for the next save to add. */
void quiz_history_free(QuizHistory *h);

/* The ids missed most (ties: the order they were first missed), at most max.
 * Returns how many were written to ids. */
int quiz_history_review(const QuizHistory *h, char (*ids)[64], int max);

#endif
