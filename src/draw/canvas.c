/* canvas.c - a grid of cells (glyph + style); text, boxes, fills, word wrap,
 * and the plain-text / ANSI writer used by `mhaviz frames`.
 *
 * One cell is one column: a code point and a Style.  Drawing clips silently,
 * so a scene can be laid out for any size without checking every write.
 */
#include "draw/canvas.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/linebreak.h"
#include "base/sanitize.h"
#include "base/utf8.h"

/* ---- styles ---------------------------------------------------------------
 * The one table of what each Style looks like; tui.c builds its ncurses
 * colour pairs from it, canvas_write its SGR sequences.
 *                      name         fg  bg  bold rev  und  dim */
const CanvasStyleSpec canvas_styles[ST_COUNT] = {
    [ST_NORMAL] = {"normal", -1, -1, 0, 0, 0, 0}, [ST_DIM] = {"dim", -1, -1, 0, 0, 0, 1},
    [ST_BOLD] = {"bold", -1, -1, 1, 0, 0, 0},     [ST_TITLE] = {"title", 6, -1, 1, 0, 0, 0},
    [ST_FRAME] = {"frame", 4, -1, 0, 0, 0, 0},    [ST_CODE] = {"code", -1, -1, 0, 0, 0, 0},
    [ST_CODE_HI] = {"code_hi", 0, 3, 1, 0, 0, 0}, [ST_HEAD0] = {"head0", 0, 6, 0, 0, 0, 0},
    [ST_HEAD1] = {"head1", 0, 5, 0, 0, 0, 0},     [ST_HEAD2] = {"head2", 0, 2, 0, 0, 0, 0},
    [ST_HEAD3] = {"head3", 7, 4, 0, 0, 0, 0},     [ST_HEAD4] = {"head4", 0, 3, 0, 0, 0, 0},
    [ST_HEAD5] = {"head5", 7, 1, 0, 0, 0, 0},     [ST_HEAD6] = {"head6", 0, 7, 0, 0, 0, 0},
    [ST_HEAD7] = {"head7", 6, 0, 1, 0, 1, 0},     [ST_HEAT0] = {"heat0", 4, -1, 0, 0, 0, 1},
    [ST_HEAT1] = {"heat1", 4, -1, 0, 0, 0, 0},    [ST_HEAT2] = {"heat2", 6, -1, 0, 0, 0, 0},
    [ST_HEAT3] = {"heat3", 3, -1, 1, 0, 0, 0},    [ST_HEAT4] = {"heat4", 1, -1, 1, 0, 0, 0},
    [ST_CURSOR] = {"cursor", 7, 1, 1, 0, 0, 0},   [ST_LIT] = {"lit", 0, 3, 1, 0, 1, 0},
    [ST_GOOD] = {"good", 2, -1, 1, 0, 0, 0},      [ST_WARN] = {"warn", 3, -1, 1, 0, 0, 0},
    [ST_BAD] = {"bad", 1, -1, 1, 0, 0, 0},        [ST_STATUS] = {"status", -1, -1, 0, 1, 0, 0},
    [ST_KEY] = {"key", 6, -1, 1, 0, 0, 0},
};

/* No colour: every head and every heat level gets its own attribute mix. */
const CanvasStyleSpec canvas_styles_mono[ST_COUNT] = {
    [ST_NORMAL] = {"normal", -1, -1, 0, 0, 0, 0},   [ST_DIM] = {"dim", -1, -1, 0, 0, 0, 1},
    [ST_BOLD] = {"bold", -1, -1, 1, 0, 0, 0},       [ST_TITLE] = {"title", -1, -1, 1, 0, 1, 0},
    [ST_FRAME] = {"frame", -1, -1, 0, 0, 0, 1},     [ST_CODE] = {"code", -1, -1, 0, 0, 0, 0},
    [ST_CODE_HI] = {"code_hi", -1, -1, 1, 1, 0, 0}, [ST_HEAD0] = {"head0", -1, -1, 1, 0, 0, 0},
    [ST_HEAD1] = {"head1", -1, -1, 0, 0, 1, 0},     [ST_HEAD2] = {"head2", -1, -1, 0, 1, 0, 0},
    [ST_HEAD3] = {"head3", -1, -1, 1, 0, 1, 0},     [ST_HEAD4] = {"head4", -1, -1, 0, 0, 0, 1},
    [ST_HEAD5] = {"head5", -1, -1, 0, 0, 1, 1},     [ST_HEAD6] = {"head6", -1, -1, 0, 1, 1, 0},
    [ST_HEAD7] = {"head7", -1, -1, 0, 1, 0, 1},     [ST_HEAT0] = {"heat0", -1, -1, 0, 0, 0, 1},
    [ST_HEAT1] = {"heat1", -1, -1, 0, 0, 0, 0},     [ST_HEAT2] = {"heat2", -1, -1, 0, 0, 1, 0},
    [ST_HEAT3] = {"heat3", -1, -1, 1, 0, 0, 0},     [ST_HEAT4] = {"heat4", -1, -1, 1, 0, 1, 0},
    [ST_CURSOR] = {"cursor", -1, -1, 1, 1, 1, 0},   [ST_LIT] = {"lit", -1, -1, 1, 1, 1, 0},
    [ST_GOOD] = {"good", -1, -1, 1, 0, 0, 0},       [ST_WARN] = {"warn", -1, -1, 0, 0, 1, 0},
    [ST_BAD] = {"bad", -1, -1, 1, 1, 0, 0},         [ST_STATUS] = {"status", -1, -1, 0, 1, 0, 0},
    [ST_KEY] = {"key", -1, -1, 1, 0, 0, 0},
};

/* ---- UTF-8 ---------------------------------------------------------------- */

#define REPLACEMENT 0xFFFDu

/* Decodes one code point at *p (advancing it).  Invalid sequences give
 * U+FFFD and consume one byte; control characters (sanitize_is_control) give
 * U+FFFD too, so nothing written to a cell can drive a terminal. */
static uint32_t utf8_next(const unsigned char **pp)
{
    int len;
    uint32_t c = utf8_decode((const char *)*pp, 4, &len); /* stops at the NUL */
    *pp += len;
    if (c == UTF8_INVALID || sanitize_is_control(c)) return REPLACEMENT;
    return c;
}

/* ---- the grid ------------------------------------------------------------- */

Canvas *canvas_new(int w, int h)
{
    Canvas *c;
    if (w < 1 || h < 1 || w > 10000 || h > 10000) return NULL;
    c = malloc(sizeof *c);
    if (!c) return NULL;
    c->cells = malloc((size_t)w * (size_t)h * sizeof *c->cells);
    if (!c->cells) {
        free(c);
        return NULL;
    }
    c->w = w;
    c->h = h;
    canvas_clear(c);
    return c;
}

void canvas_free(Canvas *c)
{
    if (!c) return;
    free(c->cells);
    free(c);
}

void canvas_clear(Canvas *c)
{
    for (int i = 0; i < c->w * c->h; i++) {
        c->cells[i].ch = ' ';
        c->cells[i].style = ST_NORMAL;
    }
}

void canvas_put(Canvas *c, int x, int y, uint32_t ch, Style st)
{
    if (!c || x < 0 || y < 0 || x >= c->w || y >= c->h) return;
    if (sanitize_is_control(ch) || ch > 0x10FFFF) ch = REPLACEMENT; /* the one gate to a cell */
    c->cells[y * c->w + x].ch = ch;
    c->cells[y * c->w + x].style = (uint8_t)st;
}

int canvas_text_width(const char *utf8)
{
    const unsigned char *p = (const unsigned char *)utf8;
    int n = 0;
    while (*p) {
        utf8_next(&p);
        n++;
    }
    return n;
}

int canvas_text(Canvas *c, int x, int y, const char *utf8, Style st)
{
    const unsigned char *p = (const unsigned char *)utf8;
    int used = 0;
    if (!c || y < 0 || y >= c->h) return 0;
    for (; *p && x < c->w; x++) {
        uint32_t ch = utf8_next(&p);
        if (x >= 0) {
            canvas_put(c, x, y, ch, st);
            used++;
        }
    }
    return used;
}

int canvas_printf(Canvas *c, int x, int y, Style st, const char *fmt, ...)
{
    char small[256], *buf = small;
    va_list ap;
    int n, used;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return 0;
    if ((size_t)n >= sizeof small) {
        buf = malloc((size_t)n + 1);
        if (!buf) return 0;
        va_start(ap, fmt);
        vsnprintf(buf, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    used = canvas_text(c, x, y, buf, st);
    if (buf != small) free(buf);
    return used;
}

void canvas_status(Canvas *c, const char *text, Style st)
{
    canvas_status_at(c, 0, c->h - 1, c->w, text, st);
}

void canvas_status_at(Canvas *c, int x, int y, int w, const char *text, Style st)
{
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    int room = w - 1, n = canvas_text_width((const char *)p); /* columns x+1 .. x+w-1 */
    canvas_fill(c, x, y, w, 1, ' ', st);
    if (room < 1) return;
    int keep = n <= room ? n : room > 3 ? room - 3 : 0; /* cut: room for "..." */
    for (int i = 0; i < keep; i++)                      /* a code point a cell */
        canvas_put(c, x + 1 + i, y, utf8_next(&p), st);
    for (int i = keep; n > room && i < room; i++)
        canvas_put(c, x + 1 + i, y, '.', st);
}

void canvas_fill(Canvas *c, int x, int y, int w, int h, uint32_t ch, Style st)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            canvas_put(c, i, j, ch, st);
}

void canvas_style(Canvas *c, int x, int y, int w, int h, Style st)
{
    for (int j = y; j < y + h; j++)
        for (int i = x; i < x + w; i++)
            if (i >= 0 && j >= 0 && i < c->w && j < c->h)
                c->cells[j * c->w + i].style = (uint8_t)st;
}

void canvas_box(Canvas *c, int x, int y, int w, int h, Style st)
{
    if (w < 2 || h < 2) return;
    for (int i = x + 1; i < x + w - 1; i++) {
        canvas_put(c, i, y, 0x2500, st); /* ─ */
        canvas_put(c, i, y + h - 1, 0x2500, st);
    }
    for (int j = y + 1; j < y + h - 1; j++) {
        canvas_put(c, x, j, 0x2502, st); /* │ */
        canvas_put(c, x + w - 1, j, 0x2502, st);
    }
    canvas_put(c, x, y, 0x250C, st);                 /* ┌ */
    canvas_put(c, x + w - 1, y, 0x2510, st);         /* ┐ */
    canvas_put(c, x, y + h - 1, 0x2514, st);         /* └ */
    canvas_put(c, x + w - 1, y + h - 1, 0x2518, st); /* ┘ */
}

/* ---- word wrap ------------------------------------------------------------ */

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Draws the n bytes at s from (x, y), a cell per code point; returns the
 * cells.  c may be NULL (nothing drawn: canvas_put clips it). */
static int draw_span(Canvas *c, int x, int y, const char *s, size_t n, Style st)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;
    int col = 0;
    while (p < e)
        canvas_put(c, x + col++, y, utf8_next(&p), st);
    return col;
}

/* 1 when the n bytes at s end in a digit. */
static int ends_in_digit(const char *s, size_t n)
{
    return n > 0 && s[n - 1] >= '0' && s[n - 1] <= '9';
}

/* canvas_wrap, with c NULL to count the lines only. */
static int wrap_text(Canvas *c, int x, int y, int w, int maxh, const char *s, Style st)
{
    size_t n = strlen(s);
    int lines = 0;
    LineBreak lb;
    while (lines < maxh && linebreak_next(s, n, w, &lb)) {
        int more = 0;
        for (size_t i = lb.next; i < n && !more; i++)
            if (!is_space(s[i]) && s[i] != '\n') more = 1;
        if (lines == maxh - 1 && more) {
            /* the last line we may use: end it with "..." after a whole
             * word; after a number, " ..." (so "0.1..." never reads as a
             * number that goes on) */
            size_t end = lb.len;
            while (end > 0 && linebreak_cols(s, end) + 3 + ends_in_digit(s, end) > w) {
                end--;
                while (end > 0 && !is_space(s[end - 1]))
                    end--;
                while (end > 0 && is_space(s[end - 1]))
                    end--;
            }
            int gap = ends_in_digit(s, end), col = draw_span(c, x, y + lines, s, end, st);
            for (int d = gap; d < 3 + gap && col + d < w; d++)
                canvas_put(c, x + col + d, y + lines, '.', st);
            return lines + 1;
        }
        draw_span(c, x, y + lines, s, lb.len, st);
        lines++;
        s += lb.next, n -= lb.next;
    }
    return lines;
}

/* Word wrap by the one line-break finder (base/linebreak.h: spaces, '\n',
 * a word wider than the column cut after a '/' or at the width).  When the
 * text needs more than maxh lines, the last one ends in "..." after a whole
 * word (" ..." after a number), so no word is ever cut silently. */
int canvas_wrap(Canvas *c, int x, int y, int w, int maxh, const char *utf8, Style st)
{
    if (!c || w < 1 || maxh < 1 || !utf8) return 0;
    return wrap_text(c, x, y, w, maxh, utf8, st);
}

int canvas_wrap_lines(const char *utf8, int w, int maxh)
{
    if (w < 1 || maxh < 1 || !utf8) return 0;
    return wrap_text(NULL, 0, 0, w, maxh, utf8, ST_NORMAL);
}

/* ---- a text field ------------------------------------------------------- */

void canvas_field(Canvas *c, int x, int y, int w, const char *utf8, size_t cur, Style st,
                  uint32_t end_glyph)
{
    if (w < 1) return;
    int col = linebreak_cols(utf8, cur), first = 0, at = x;
    if (col >= w) { /* scrolled: "..." then the text up to the cursor, the last cell */
        int room = w > 4 ? w - 4 : 0;
        for (int d = 0; d < 3 && d < w - 1; d++)
            canvas_put(c, x + d, y, '.', ST_DIM);
        at = x + (w > 4 ? 3 : w - 1);
        first = col - room;
    }
    const unsigned char *p = (const unsigned char *)utf8;
    for (int k = 0; *p; k++) {
        int here = (size_t)((const char *)p - utf8) == cur;
        uint32_t ch = utf8_next(&p);
        if (k < first) continue;
        if (at + (k - first) >= x + w) break;
        canvas_put(c, at + (k - first), y, ch, here ? ST_CURSOR : st);
    }
    if (utf8[cur] == 0) canvas_put(c, at + col - first, y, end_glyph, ST_CURSOR);
}

/* ---- reading the grid ----------------------------------------------------- */

const Cell *canvas_at(const Canvas *c, int x, int y)
{
    if (!c || x < 0 || y < 0 || x >= c->w || y >= c->h) return NULL;
    return &c->cells[y * c->w + x];
}

char *canvas_row(const Canvas *c, int y, int ascii, char *buf, size_t n)
{
    size_t k = 0;
    if (!buf || n == 0) return buf;
    buf[0] = '\0';
    if (!c || y < 0 || y >= c->h) return buf;
    for (int x = 0; x < c->w; x++) {
        char tmp[4];
        uint32_t ch = c->cells[y * c->w + x].ch;
        int len;
        if (ascii) {
            tmp[0] = canvas_ascii(ch);
            len = 1;
        } else {
            len = utf8_encode(ch, tmp);
        }
        if (k + (size_t)len > n - 1) break; /* never split a character */
        memcpy(buf + k, tmp, (size_t)len);
        k += (size_t)len;
    }
    buf[k] = '\0';
    return buf;
}

int canvas_contains(const Canvas *c, const char *s)
{
    size_t n;
    char *buf;
    int found = 0;
    if (!c || !s) return 0;
    n = (size_t)c->w * 4 + 1;
    buf = malloc(n);
    if (!buf) return 0;
    for (int y = 0; y < c->h && !found; y++)
        if (strstr(canvas_row(c, y, 0, buf, n), s)) found = 1;
    free(buf);
    return found;
}

/* ---- ASCII ---------------------------------------------------------------- */

/* Box drawing U+2500..U+257F by direction: '-' horizontal, '|' vertical,
 * anything joining both ways '+'. */
static char ascii_box(uint32_t ch)
{
    switch (ch) {
    case 0x2500:
    case 0x2501:
    case 0x2504:
    case 0x2505:
    case 0x2508:
    case 0x2509:
    case 0x254C:
    case 0x254D:
    case 0x2550:
    case 0x2574:
    case 0x2576:
    case 0x2578:
    case 0x257A:
    case 0x257C:
    case 0x257E:
        return '-';
    case 0x2502:
    case 0x2503:
    case 0x2506:
    case 0x2507:
    case 0x250A:
    case 0x250B:
    case 0x254E:
    case 0x254F:
    case 0x2551:
    case 0x2575:
    case 0x2577:
    case 0x2579:
    case 0x257B:
    case 0x257D:
    case 0x257F:
        return '|';
    case 0x2571:
        return '/';
    case 0x2572:
        return '\\';
    case 0x2573:
        return 'X';
    default:
        return '+';
    }
}

char canvas_ascii(uint32_t ch)
{
    if (ch >= 0x20 && ch < 0x7f) return (char)ch;
    if (ch >= 0x2500 && ch <= 0x257F) return ascii_box(ch);
    switch (ch) {
    case 0x2591:
        return '.'; /* ░ */
    case 0x2592:
        return ':'; /* ▒ */
    case 0x2593:
        return '#'; /* ▓ */
    case 0x2588:
        return '@'; /* █ */
    case 0x2192:
    case 0x21D2:
    case 0x25B6:
    case 0x25BA:
    case 0x27F6:
        return '>';
    case 0x2190:
    case 0x21D0:
    case 0x25C0:
    case 0x25C4:
    case 0x27F5:
        return '<';
    case 0x2191:
    case 0x25B2:
        return '^';
    case 0x2193:
    case 0x25BC:
        return 'v';
    case 0x2194:
        return '-';
    case 0x00B7:
    case 0x2022:
    case 0x22C5:
    case 0x2219:
        return '*'; /* · • ⋅ ∙ */
    case 0x00D7:
        return 'x'; /* × */
    case 0x2699:
        return '*'; /* ⚙ a page's own configuration: not '?', which marks a question */
    case 0x2013:
    case 0x2014:
    case 0x2212:
        return '-'; /* – — − */
    case 0x2018:
    case 0x2019:
        return '\'';
    case 0x201C:
    case 0x201D:
        return '"';
    case 0x2248:
        return '~'; /* ≈ */
    case 0x00A0:
        return ' ';
    default:
        return '?';
    }
}

/* ---- the text backend ----------------------------------------------------- */

/* Does a space in this style show anything (a background, a bar)? */
static int style_visible_blank(const CanvasStyleSpec *sp)
{
    return sp->bg >= 0 || sp->reverse || sp->underline;
}

static void sgr(FILE *f, const CanvasStyleSpec *sp)
{
    fputs("\x1b[0", f);
    if (sp->bold) fputs(";1", f);
    if (sp->dim) fputs(";2", f);
    if (sp->underline) fputs(";4", f);
    if (sp->reverse) fputs(";7", f);
    if (sp->fg >= 0) fprintf(f, ";%d", 30 + sp->fg);
    if (sp->bg >= 0) fprintf(f, ";%d", 40 + sp->bg);
    fputc('m', f);
}

int canvas_write(const Canvas *c, FILE *f, int ascii, int color)
{
    const CanvasStyleSpec *table = color == 2 ? canvas_styles_mono : canvas_styles;
    for (int y = 0; y < c->h; y++) {
        const Cell *row = &c->cells[y * c->w];
        int last = c->w - 1, cur = -1;
        while (last >= 0 && row[last].ch == ' ' &&
               (!color || !style_visible_blank(&table[row[last].style % ST_COUNT])))
            last--;
        for (int x = 0; x <= last; x++) {
            char tmp[4];
            int len;
            if (color && row[x].style != cur) {
                cur = row[x].style;
                sgr(f, &table[cur % ST_COUNT]);
            }
            if (ascii) {
                tmp[0] = canvas_ascii(row[x].ch);
                len = 1;
            } else {
                len = utf8_encode(row[x].ch, tmp);
            }
            fwrite(tmp, 1, (size_t)len, f);
        }
        if (color && cur >= 0) fputs("\x1b[0m", f);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}
