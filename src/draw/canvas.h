/* canvas.h - a grid of cells (glyph + style) that every screen draws on.
 *
 * Scenes draw here; backends (tui.c: ncurses, canvas_write: plain text / ANSI)
 * turn a canvas into output.  Nothing here knows about terminals, so any frame
 * can be built and compared in a unit test.  Glyphs are Unicode code points;
 * an ASCII backend maps them with canvas_ascii().
 */
#ifndef MHAVIZ_CANVAS_H
#define MHAVIZ_CANVAS_H

#include <stdint.h>
#include <stdio.h>

/* Semantic styles; each backend maps them to colour or to bold/reverse/underline.
 * The table in canvas.c (canvas_styles) is the one place they are described. */
typedef enum {
    ST_NORMAL,
    ST_DIM,
    ST_BOLD,
    ST_TITLE,
    ST_FRAME,
    ST_CODE,
    ST_CODE_HI, /* program text; the current statement */
    ST_HEAD0,
    ST_HEAD1,
    ST_HEAD2,
    ST_HEAD3,
    ST_HEAD4,
    ST_HEAD5,
    ST_HEAD6,
    ST_HEAD7,
    ST_HEAT0,
    ST_HEAT1,
    ST_HEAT2,
    ST_HEAT3,
    ST_HEAT4, /* softmax weight, low -> high */
    ST_CURSOR,
    ST_LIT, /* inspect cursor; the memory cell it maps to */
    ST_GOOD,
    ST_WARN,
    ST_BAD,
    ST_STATUS,
    ST_KEY, /* status line; a key name in help text */
    ST_COUNT
} Style;

/* How a style looks.  Colours are 0-7 in the ANSI / curses COLOR_* order
 * (black red green yellow blue magenta cyan white), -1 = terminal default.
 * canvas_styles is the colour theme; canvas_styles_mono the theme for NO_COLOR
 * and terminals without colour, where heads and heat levels are told apart by
 * attributes alone (the heatmap glyphs also carry the level as a shade). */
typedef struct CanvasStyleSpec {
    const char *name; /* "head0": for tests and debugging */
    signed char fg, bg;
    unsigned char bold, reverse, underline, dim;
} CanvasStyleSpec;

extern const CanvasStyleSpec canvas_styles[ST_COUNT];
extern const CanvasStyleSpec canvas_styles_mono[ST_COUNT];

#define ST_HEAD(h) ((Style)(ST_HEAD0 + ((h) % 8)))
#define ST_HEAT(l) ((Style)(ST_HEAT0 + ((l) < 0 ? 0 : (l) > 4 ? 4 : (l))))

typedef struct Cell {
    uint32_t ch;   /* code point; 0 means "continuation" is never used: 1 cell = 1 column */
    uint8_t style; /* Style */
} Cell;

typedef struct Canvas {
    int w, h;
    Cell *cells; /* w * h, row-major */
} Canvas;

/* A new blank canvas (spaces, ST_NORMAL); NULL if w or h < 1 or out of memory. */
Canvas *canvas_new(int w, int h);
void canvas_free(Canvas *c);
void canvas_clear(Canvas *c);

/* Drawing clips silently at the edges.  No cell holds a control character
 * (base/sanitize.h): canvas_put, which every writer goes through, stores
 * U+FFFD instead, so no text drawn can drive the terminal. */
void canvas_put(Canvas *c, int x, int y, uint32_t ch, Style st);
/* UTF-8 text, one cell per code point; returns the columns it used (clipped). */
int canvas_text(Canvas *c, int x, int y, const char *utf8, Style st);
/* Columns utf8 takes (one per code point, invalid bytes count one each). */
int canvas_text_width(const char *utf8);
int canvas_printf(Canvas *c, int x, int y, Style st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
void canvas_fill(Canvas *c, int x, int y, int w, int h, uint32_t ch, Style st);
void canvas_style(Canvas *c, int x, int y, int w, int h, Style st); /* restyle, keep glyphs */
void canvas_box(Canvas *c, int x, int y, int w, int h, Style st);   /* light box lines */
/* The one status line: the bottom row filled in st, text from column 1, a
 * text too long for the row cut to end in "..." in its last column.  Every
 * screen's status, hint and "computing" line is this. */
void canvas_status(Canvas *c, const char *text, Style st);
/* The same line as row y of a region w wide from column x (the walkthrough's
 * scene or the compare view drawn in part of the canvas); canvas_status is
 * this on the canvas's bottom row. */
void canvas_status_at(Canvas *c, int x, int y, int w, const char *text, Style st);
/* Word-wrapped paragraph in a w-wide column, broken where base/linebreak.h
 * says (a URL wider than the column after a '/'); at most maxh lines, the
 * last ending in "..." when more were needed.  Returns the lines drawn; 0
 * when c or utf8 is NULL or w or maxh is below 1. */
int canvas_wrap(Canvas *c, int x, int y, int w, int maxh, const char *utf8, Style st);
/* The lines canvas_wrap would draw for utf8 (nothing is drawn). */
int canvas_wrap_lines(const char *utf8, int w, int maxh);
/* A one-row text field at (x, y), w columns (a base/lineedit line, say):
 * utf8 scrolled so the cursor shows (cur: the bytes before it, at a code
 * point's start), "..." in ST_DIM first when the start is scrolled away,
 * the cell under the cursor in ST_CURSOR, end_glyph there at the end. */
void canvas_field(Canvas *c, int x, int y, int w, const char *utf8, size_t cur, Style st,
                  uint32_t end_glyph);

const Cell *canvas_at(const Canvas *c, int x, int y);
/* Row y as UTF-8 (or ASCII when ascii != 0), trailing spaces kept; buf gets at
 * most n-1 bytes.  Used by tests and by the text backend. */
char *canvas_row(const Canvas *c, int y, int ascii, char *buf, size_t n);
/* Does any row contain s?  (Tests: "the frame shows X".) */
int canvas_contains(const Canvas *c, const char *s);

/* ASCII stand-in for a glyph: box lines -> + - |, shades -> . : # @, arrows -> > <. */
char canvas_ascii(uint32_t ch);

/* Whole canvas as text: color 0 plain, 1 ANSI SGR per style (canvas_styles),
 * 2 ANSI attributes only (canvas_styles_mono: bold/underline/reverse/dim).  Trailing spaces
 * are trimmed from each line.  Returns 0, or -1 on a write error. */
int canvas_write(const Canvas *c, FILE *f, int ascii, int color);

#endif
