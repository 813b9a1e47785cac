/* puzzle.h - the puzzles: one line of PyTorch to reach a target from given
 * tensors, checked with the playground and scored on the bytes it copied.
 *
 * Each puzzle names its given tensors by shape over the sizes (B S D H KV G
 * dh T T_max, bound as integer names in the playground, so an answer reads
 * Q.view(B, S, H, dh)), a reference line, and whether the strides are part
 * of the target (a "no copy" puzzle) or only shape and values are.
 * puzzle_check runs the learner's line and the reference on the puzzle's own
 * sizes and on PUZZLE_RANDOM random configurations (the same ones every run)
 * and compares dtype, shape, strides where fixed, and every value: the given
 * tensors hold distinct values, so a line that reads the wrong element
 * fails.  An empty line, or one whose result is a given tensor itself (an
 * identity), never passes.  The score is the bytes the line copied on the
 * puzzle's own tensors (the engine's count): fewer is better, 0 best.
 */
#ifndef MHAVIZ_PUZZLE_H
#define MHAVIZ_PUZZLE_H

#include <stddef.h>

#include "engine/play.h"

#define PUZZLE_RANDOM 5 /* random configurations besides the puzzle's own */
#define PUZZLE_MAX_GIVEN 3

/* The sizes of one configuration. */
typedef struct PuzzleSizes {
    long B, S, H, KV, dh, T, T_max; /* G = H / KV, D = H * dh */
} PuzzleSizes;

typedef struct Puzzle {
    const char *name;  /* "split_heads": for --puzzle NAME and the progress file */
    const char *title; /* "Split Q into heads" */
    const char *goal;  /* what to make, for people */
    struct {
        const char *name;  /* "Q" */
        const char *shape; /* "B, S, D": playground integer expressions */
    } given[PUZZLE_MAX_GIVEN];
    int ngiven;
    const char *reference; /* a line that reaches the target */
    const char *wrong;     /* a classic wrong answer (it must fail: a test checks) */
    int strides;           /* 1: the target's strides are checked too */
    const char *hint;      /* what to look at, never the answer */
} Puzzle;

int puzzle_count(void);
const Puzzle *puzzle_at(int i);     /* NULL past the last */
int puzzle_index(const char *name); /* -1 if there is none */
/* The names, for "did you mean": a static array of puzzle_count() names. */
const char *const *puzzle_names(void);

/* Configuration k: 0 the puzzle's own sizes, 1..PUZZLE_RANDOM the random
 * ones (fixed: the same on every run and machine). */
PuzzleSizes puzzle_sizes(const Puzzle *pz, int k);
/* "B=1 S=3 H=4 KV=2 G=2 dh=2 D=8 T=3" (T_max when the puzzle uses it). */
void puzzle_sizes_text(const Puzzle *pz, const PuzzleSizes *z, char *buf, size_t n);

/* A new playground holding the given tensors of configuration z (float32,
 * distinct values 1, 2, 3, ... across all of them) and the sizes as
 * integer names.  The caller frees it (play_free); NULL with err set. */
Play *puzzle_play(const Puzzle *pz, const PuzzleSizes *z, char *err, size_t errlen);

typedef struct PuzzleCheck {
    int ok;
    long bytes;     /* bytes the line copied on the puzzle's own tensors; -1: it failed there */
    long ref_bytes; /* what the reference copies there */
    char failed_on[900]; /* "" when ok, else where and why, one line */
} PuzzleCheck;

/* Checks line as an answer to pz (see the top of this file); fills out.
 * Returns out->ok. */
int puzzle_check(const Puzzle *pz, const char *line, PuzzleCheck *out);

/* The one JSON object of --json for c, on one line (no newline), exactly
 * {"ok": BOOL, "bytes_copied": N|null, "best_bytes": N|null, "failed_on": STR|null}:
 * bytes_copied is c->bytes (null when the line failed on the puzzle's own
 * tensors), best_bytes the best score (best < 0: null), failed_on null when ok. */
void puzzle_check_json(const PuzzleCheck *c, long best, char *buf, size_t n);

/* The same for people, one or two lines each ending in '\n':
 * "solved: 0 bytes copied (the best possible) ..." or "not yet: ...". */
void puzzle_check_text(const PuzzleCheck *c, long best, char *buf, size_t n);

/* The puzzle for people: title, goal, the given tensors with their shapes
 * at the puzzle's own sizes, and the sizes; lines ending in '\n'. */
void puzzle_text(const Puzzle *pz, char *buf, size_t n);

#endif
