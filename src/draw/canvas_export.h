/* canvas_export.h - a canvas as a picture for slides and handouts: SVG (one
 * text run per span of same-styled cells, monospace), HTML (a <pre> per
 * frame), and asciicast v2 events (the frame as ANSI output at a time), for
 * `mhaviz frames --format`.  Colours are canvas_styles (or canvas_styles_mono
 * with mono), painted with a fixed palette so a slide looks the same
 * everywhere.  All writers return 0, or -1 on a write error.
 */
#ifndef MHAVIZ_CANVAS_EXPORT_H
#define MHAVIZ_CANVAS_EXPORT_H

#include <stdio.h>

#include "draw/canvas.h"

/* A whole SVG document of c: a background, one <text> per row. */
int canvas_write_svg(const Canvas *c, FILE *f, int ascii, int mono);

/* An HTML document holding frames: head (with title) once, a <pre> per
 * canvas (after an optional caption), the tail once. */
int canvas_html_head(FILE *f, const char *title);
int canvas_write_html(const Canvas *c, FILE *f, const char *caption, int ascii, int mono);
int canvas_html_tail(FILE *f);

/* asciicast v2: the header line (width, height, title), then one event per
 * frame: [seconds, "o", the frame drawn from the home position]. */
int canvas_cast_head(FILE *f, int w, int h, const char *title);
int canvas_cast_frame(const Canvas *c, FILE *f, double seconds, int ascii, int mono);
/* An empty event at seconds: the recording lasts until then. */
int canvas_cast_end(FILE *f, double seconds);

#endif
