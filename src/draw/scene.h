/* scene.h - draws one step of the pipeline (from a finished Mha run) onto a
 * rectangle of a canvas.  Pure: no terminal, no timing; animation is a phase
 * given in the state, the caller (tui.c / walk screen) advances it.
 *
 * Owned by the scene module; additions are fine, changes to these signatures
 * need the lead (the TUI, lessons and quiz code call them).
 */
#ifndef MHAVIZ_SCENE_H
#define MHAVIZ_SCENE_H

#include "draw/canvas.h"
#include "draw/scenestate.h"
#include "engine/mha.h"

/* The state of step 0: no inspect, anim -1 (the final frame), narrative 1. */
SceneState scene_state_default(void); /* step 0, no inspect, anim -1, narrative 1 */

/* Draws the whole picture for s into the rectangle (x, y, w, h) of c.  Below
 * SCENE_MIN_W x SCENE_MIN_H it draws the "enlarge to 80x24 (now WxH)" screen. */
void scene_draw(Canvas *c, int x, int y, int w, int h, const Mha *m, const SceneState *s);

/* The one "enlarge to 80x24 (now WxH)" frame, in the rectangle (x, y, w, h)
 * of c: centred (wrapped when narrower than the line), below (may be NULL:
 * "q quits") centred under it. */
void scene_draw_enlarge(Canvas *c, int x, int y, int w, int h, const char *below);

/* The sentences the frame of s writes under its picture, as one paragraph
 * into buf (n bytes); on the softmax step with show_single, followed by the
 * line under the heatmaps saying why the big head differs (or does not).
 * Every fact in them (contiguous or not, bytes copied, view or copy, how
 * many heads) is read from m. */
void scene_narrative(const Mha *m, const SceneState *s, char *buf, size_t n);

/* The tensor (MT_*) the state's picture shows in its logical view and
 * inspects: step 2 Q_split, 3 Q_heads, 5 attn, 7 merged, 8 merged_contig ...;
 * MV_WRONG_VIEW Q_wrong, MV_NO_SCALE attn.  s->cur indexes it. */
int scene_inspect_tensor(const SceneState *s);

/* Does this step have an animation (split, heads, contiguous)? */
int scene_step_animates(int step);

/* Moves the inspect cursor by (dx, dy) over the step's logical view, clamped.
 * Returns 1 if it moved. */
int scene_cursor_move(const Mha *m, SceneState *s, int dx, int dy);

/* Mouse: sets s->cur from a click at (px, py) on a (w x h) frame drawn at
 * (0, 0).  Returns 1 if the click hit a cell of the logical view or candy bar. */
int scene_click(const Mha *m, SceneState *s, int w, int h, int px, int py);

/* The logical view of the tensor the step of s inspects (scene_inspect_tensor)
 * at (x, y), w wide, at most maxh rows: its title ("Q_heads (1, 2, 4, 4),
 * strides ..."), then tokens x features, heads stacked, the inspect cursor
 * (s->inspect) marked and kept in view.  For a lesson page whose exercise is
 * done on the logical view when the picture is behind Tab.  Returns the rows
 * used (0 when the step's view has no grid, or maxh < 3). */
int scene_logical_view(Canvas *c, int x, int y, int w, int maxh, const Mha *m, const SceneState *s);

/* The candy bar of tensor t's storage drawn at (x, y), w wide: one cell per
 * float with its offset, wrapped every `wrap` elements (a token's row), cells
 * coloured by head when heads > 0 (head of element = (offset % width) / d_head).
 * `lit` is a storage offset to highlight (-1 none).  Returns rows used. */
int scene_candy_bar(Canvas *c, int x, int y, int w, int maxh, const Tensor *t, int wrap, int heads,
                    int d_head, long lit);

#endif
