/* canvas_export.h - a canvas as a picture for slides and handouts: SVG (one
 * text run per span of same-styled cells, monospace), HTML (a deck of slides,
 * a <pre> per frame), and asciicast v2 events (the frame as ANSI output at a
 * time), for `mhaviz frames --format` and `mhaviz lesson --frames`.  Colours are canvas_styles (or
 * canvas_styles_mono with mono), painted with a fixed palette so a slide looks the same everywhere.
 * All writers return 0, or -1 on a write error.
 */
#ifndef MHAVIZ_CANVAS_EXPORT_H
#define MHAVIZ_CANVAS_EXPORT_H

#include <stdio.h>

#include "draw/canvas.h"

/* A whole SVG document of c: a background, one <text> per row. */
int canvas_write_svg(const Canvas *c, FILE *f, int ascii, int mono);

/* A deck: one self-contained HTML file a presenter steps through in a
 * browser (the style and the script inline, no network, the system's
 * monospace font; printed, it is a handout of every slide).  Written as
 *   canvas_html_head                     once: title, the frames' size in
 *                                        cells, the animations' frames/s
 *                                        (0 when no slide animates)
 *   canvas_html_slide                    per slide: its number (what digits
 *                                        then Enter go to) and caption
 *     canvas_write_html(c, f, 1, ...)    its animation frames, in order (none
 *                                        for a still slide)
 *     canvas_write_html(c, f, 0, ...)    its final frame, the one it shows
 *   canvas_html_slide_end
 *   canvas_html_tail                     once: the keys (arrows, PgUp/PgDn,
 *                                        Space, Home/End, b blank, f full
 *                                        screen) and the player
 * title and caption are any text (a lesson file's): they are escaped, and
 * invalid UTF-8 shows as U+FFFD.  Each returns 0, or -1 on a write error. */
int canvas_html_head(FILE *f, const char *title, int cols, int rows, int fps);
int canvas_html_slide(FILE *f, int number, const char *caption);
int canvas_write_html(const Canvas *c, FILE *f, int anim, int ascii, int mono);
int canvas_html_slide_end(FILE *f);
int canvas_html_tail(FILE *f);

/* asciicast v2: the header line (width, height, title), then one event per
 * frame: [seconds, "o", the frame drawn from the home position]. */
int canvas_cast_head(FILE *f, int w, int h, const char *title);
int canvas_cast_frame(const Canvas *c, FILE *f, double seconds, int ascii, int mono);
/* An empty event at seconds: the recording lasts until then. */
int canvas_cast_end(FILE *f, double seconds);

#endif
