/* walk_place.h - where the walkthrough was left: its step and configuration,
 * kept between runs so the home menu's Walkthrough continues there.
 *
 * File "walk" in the state directory (state.h), written atomically under the
 * state lock (the last walkthrough to close wins: it is one place, not a
 * merge):
 *     # mhaviz walkthrough v1
 *     step 7
 *     batch 1
 *     seq 4
 *     d_model 8
 *     heads 4
 *     kv_heads 4
 *     causal 0
 *     seed 1
 *     rope off
 *     rope_theta 10000
 *     window 0
 * step is the number the screens show (0 to 10, 11 with RoPE on).  Every key
 * is there once; the configuration must pass mha_config_check and the step
 * must be one of its run.  A file that does not is kept as "walk.bad" (or
 * .bad.2, ...: never over an earlier copy) with one warning, and reads as no
 * place; one that cannot be read turns saving off.
 */
#ifndef MHAVIZ_WALK_PLACE_H
#define MHAVIZ_WALK_PLACE_H

#include <stddef.h>

#include "engine/mha.h"

#define WALK_PLACE_FILE "walk"

typedef struct WalkPlace {
    int step;      /* the step's number in the run's order (mha_step_at) */
    MhaConfig cfg; /* valid (mha_config_check) */
} WalkPlace;

/* Parses text into w.  0, or -1 with the reason ("line 3: ...") in err. */
int walk_place_parse(WalkPlace *w, const char *text, char *err, size_t errlen);

/* The text walk_place_parse reads back; a new string (caller frees) or NULL. */
char *walk_place_format(const WalkPlace *w);

/* Loads the saved place into w.  1 when there is one, 0 when there is none
 * (never saved, or the file was corrupt: then kept aside unless no_save, and
 * warning says so).  warning is "" or one line to show once; *no_write is
 * set to 1 when the file could not be read (a save would overwrite it
 * unseen) or could not be kept aside.  Never fails otherwise. */
int walk_place_load(WalkPlace *w, int no_save, int *no_write, char *warning, size_t warnlen);

/* Writes w as the place, under the state lock.  0, or -1 with err set (the
 * file is then unchanged). */
int walk_place_save(const WalkPlace *w, char *err, size_t errlen);

#endif
