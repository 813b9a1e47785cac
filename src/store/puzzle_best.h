/* puzzle_best.h - each puzzle's best score (the fewest bytes a passing answer
 * copied), kept between runs.
 *
 * File "puzzles" in the state directory (state.h), written atomically under
 * the state lock as a merge (the smaller of this run's and the file's):
 *     # mhaviz puzzle bests v1
 *     split_heads 0
 *     merge_heads 192
 * A file that cannot be parsed is kept as "puzzles.bad" (or .bad.2, ...)
 * and replaced, with one warning; one that cannot be read turns saving off.
 */
#ifndef MHAVIZ_PUZZLE_BEST_H
#define MHAVIZ_PUZZLE_BEST_H

#include <stddef.h>

#define PUZZLE_BEST_FILE "puzzles"
#define PUZZLE_BEST_MAX 64

typedef struct PuzzleBests {
    struct {
        char name[32];
        long bytes; /* the best: fewest bytes copied by a passing answer */
    } v[PUZZLE_BEST_MAX];
    int n;
    int no_save;       /* --no-save, or the file could not be read */
    char warning[320]; /* "" or one line to show once */
} PuzzleBests;

/* Parses text into b.  0, or -1 with the reason ("line 3: ...") in err. */
int puzzle_best_parse(PuzzleBests *b, const char *text, char *err, size_t errlen);

/* Loads the saved bests into b (empty when there are none; no_save: never
 * written).  Sets b->warning when the file was corrupt or unreadable. */
void puzzle_best_load(PuzzleBests *b, int no_save);

/* The best of puzzle name, or -1 when it was never solved. */
long puzzle_best_get(const PuzzleBests *b, const char *name);

/* A passing answer of name copied bytes: kept when it beats the best (in b,
 * and saved unless saving is off).  Returns 1 when it is a new best, 0 when
 * not; a failed save sets b->warning and turns saving off. */
int puzzle_best_record(PuzzleBests *b, const char *name, long bytes);

#endif
