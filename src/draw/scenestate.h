/* scenestate.h - what a scene frame shows: the step, the picture, the
 * inspect cursor and the animation phase.  Its own header so the scene's
 * private files (scenectx.h) and its users (scene.h) share it without
 * including each other.
 */
#ifndef MHAVIZ_SCENESTATE_H
#define MHAVIZ_SCENESTATE_H

#include "engine/mha.h"

/* The smallest frame the scene draws; below it, "enlarge to 80x24". */
#define SCENE_MIN_W 80
#define SCENE_MIN_H 24

typedef struct SceneState {
    int step; /* MS_* */
    MhaView view;
    int inspect;     /* 1: cursor on the logical view, matching cell lit in the candy bar */
    int cur[4];      /* cursor index into the step's logical tensor (up to 4-D) */
    int show_single; /* softmax step: the one big-head softmax beside the per-head ones */
    double anim;     /* animation phase in [0, 1); anything else: no animation, final frame */
    int still;       /* 1: the phase's frame without its moving cells (what they may cross) */
    int narrative;   /* 1: draw the step's narrative lines; 0: the caller draws its own text */
    /* A picture too big for its frame: scroll moves the logical view's and
     * the heatmaps' hidden rows (heads, when whole heads are hidden) into
     * view, that many from the first, clamped; values: the heatmaps show
     * each weight as a number, fewer heads at once (scroll shows the rest).
     * The keys that do it, named in the "hidden" notes (NULL: not named);
     * the caller takes them from its key table. */
    int scroll, values;
    const char *scroll_key, *values_key;
    /* Not NULL: drawing raises *scroll_limit to the largest scroll a part
     * of the picture can use (0: nothing hidden), so the key that scrolls
     * stops there; the caller zeroes it before the frame. */
    int *scroll_limit;
    int large;          /* 1: large print for a projector: cells twice as wide, short lines */
    const char *status; /* bottom line, may be NULL */
} SceneState;

#endif
