/* compare.h - two runs at the same step, for a lecture: run A (the
 * configuration on screen) and run B (walk/frames/export --compare FLAGS,
 * or the walkthrough's compare key).  Side by side when the frame holds two
 * scenes (2 x SCENE_MIN_W columns), two whole scenes stacked when it is tall
 * enough, otherwise one compact block per run; differences marked (shape,
 * strides, storage bytes, bytes copied) in every layout.  Pure: no terminal.
 */
#ifndef MHAVIZ_COMPARE_H
#define MHAVIZ_COMPARE_H

#include <stddef.h>

#include "draw/canvas.h"
#include "draw/scenestate.h"
#include "engine/mha.h"

/* How compare_draw lays a frame of w x h out. */
typedef enum { CMP_SIDE, CMP_STACK, CMP_COMPACT } CompareLayout;
CompareLayout compare_layout(int w, int h);

/* "B1 S4 D8 H2 KV1 (MQA)": a configuration, short, into buf (n bytes). */
void compare_label(char *buf, size_t n, const MhaConfig *c);

/* Draws step s->step of runs a and b into (x, y, w, h) of c: each run's
 * picture (scene_draw, or the compact block), the tensors of the step
 * whose shape, strides or storage differ marked, and the bytes each copied.
 * s->status, when set, is the bottom line.  Below SCENE_MIN_W x SCENE_MIN_H,
 * scene_draw's "enlarge" screen.  Every number is read from a and b. */
void compare_draw(Canvas *c, int x, int y, int w, int h, const Mha *a, const Mha *b,
                  const SceneState *s);

/* What differs between the same tensor of two runs: CMP_D_* bits. */
enum { CMP_D_SHAPE = 1, CMP_D_STRIDES = 2, CMP_D_STORAGE = 4 };
int compare_tensor_diff(const Tensor *p, const Tensor *q);

/* How many of step's tensors (inputs and output) differ between a and b in
 * shape, strides or storage size, and whether its bytes copied differ
 * (*bytes, may be NULL). */
int compare_step_diffs(const Mha *a, const Mha *b, int step, int *bytes);

#endif
