/* canvas_export.c - SVG, HTML and asciicast output of a canvas. */
#include "draw/canvas_export.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

/* Cell geometry of the SVG, in px: a 14 px monospace font is about 8.4 px wide. */
#define SVG_FONT 14
#define SVG_CW 8.4
#define SVG_LH 17

/* The palette behind colours 0-7 (black red green yellow blue magenta cyan
 * white), and the default foreground and background: a dark slide. */
static const char *const palette[8] = {"#1d1f21", "#cc6666", "#8cc152", "#f0c674",
                                       "#5f87d7", "#b294bb", "#62c4c4", "#e0e0e0"};
#define DEFAULT_FG "#d8d8d8"
#define DEFAULT_BG "#161819"

static const CanvasStyleSpec *spec_of(const Cell *cell, int mono)
{
    return &(mono ? canvas_styles_mono : canvas_styles)[cell->style % ST_COUNT];
}

/* The colours a style paints with, reverse applied. */
static void colours(const CanvasStyleSpec *sp, const char **fg, const char **bg)
{
    const char *f = sp->fg >= 0 ? palette[sp->fg] : DEFAULT_FG;
    const char *b = sp->bg >= 0 ? palette[sp->bg] : NULL;
    if (sp->reverse) {
        const char *t = f;
        f = b ? b : DEFAULT_BG;
        b = t;
    }
    *fg = f;
    *bg = b;
}

/* The glyph of a cell as UTF-8 text escaped for XML/HTML into out (>= 8 bytes). */
static const char *glyph_xml(const Cell *cell, int ascii, char *out)
{
    uint32_t ch = cell->ch;
    if (ascii && ch >= 0x80) ch = (unsigned char)canvas_ascii(ch);
    switch (ch) {
    case '&':
        return "&amp;";
    case '<':
        return "&lt;";
    case '>':
        return "&gt;";
    default:
        break;
    }
    out[utf8_encode(ch, out)] = 0;
    return out;
}

/* n cells' glyphs, escaped for XML/HTML. */
static void put_glyphs(FILE *f, const Cell *cells, int n, int ascii)
{
    for (int k = 0; k < n; k++) {
        char buf[8];
        fputs(glyph_xml(&cells[k], ascii, buf), f);
    }
}

/* The length of the run of cells from x with the same style. */
static int run_at(const Cell *row, int w, int x)
{
    int e = x + 1;
    while (e < w && row[e].style == row[x].style)
        e++;
    return e - x;
}

int canvas_write_svg(const Canvas *c, FILE *f, int ascii, int mono)
{
    double W = c->w * SVG_CW, H = c->h * SVG_LH;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\" "
            "viewBox=\"0 0 %.1f %d\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, "
            "monospace\" font-size=\"%d\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n",
            W + 0.5, (int)H, W, (int)H, SVG_FONT, DEFAULT_BG);
    for (int y = 0; y < c->h; y++) { /* backgrounds first, so text sits on top */
        const Cell *row = &c->cells[y * c->w];
        for (int x = 0; x < c->w;) {
            int n = run_at(row, c->w, x);
            const char *fg, *bg;
            colours(spec_of(&row[x], mono), &fg, &bg);
            if (bg)
                fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                        x * SVG_CW, y * SVG_LH, n * SVG_CW, SVG_LH, bg);
            x += n;
        }
    }
    for (int y = 0; y < c->h; y++) {
        const Cell *row = &c->cells[y * c->w];
        int last = c->w - 1;
        while (last >= 0 && row[last].ch == ' ')
            last--;
        fprintf(f, "<text y=\"%d\" xml:space=\"preserve\">", y * SVG_LH + SVG_FONT - 1);
        for (int x = 0; x <= last;) {
            int n = run_at(row, last + 1, x);
            const CanvasStyleSpec *sp = spec_of(&row[x], mono);
            const char *fg, *bg;
            colours(sp, &fg, &bg);
            fprintf(f, "<tspan x=\"%.1f\" fill=\"%s\"%s%s%s>", x * SVG_CW, fg,
                    sp->bold ? " font-weight=\"bold\"" : "",
                    sp->underline ? " text-decoration=\"underline\"" : "",
                    sp->dim ? " fill-opacity=\"0.6\"" : "");
            put_glyphs(f, row + x, n, ascii);
            fputs("</tspan>", f);
            x += n;
        }
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

int canvas_html_head(FILE *f, const char *title)
{
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>%s</title>\n<style>\n"
            "body { background: %s; color: %s; margin: 1em; }\n"
            "pre { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; "
            "font-size: 14px; line-height: 17px; margin: 0 0 2em 0; }\n"
            "h2 { font: bold 14px sans-serif; margin: 0 0 0.5em 0; }\n"
            "</style>\n</head>\n<body>\n",
            title, DEFAULT_BG, DEFAULT_FG);
    return ferror(f) ? -1 : 0;
}

int canvas_write_html(const Canvas *c, FILE *f, const char *caption, int ascii, int mono)
{
    if (caption) {
        fputs("<h2>", f);
        for (const char *p = caption; *p; p++) {
            if (*p == '<')
                fputs("&lt;", f);
            else if (*p == '>')
                fputs("&gt;", f);
            else if (*p == '&')
                fputs("&amp;", f);
            else
                fputc(*p, f);
        }
        fputs("</h2>\n", f);
    }
    fputs("<pre>", f);
    for (int y = 0; y < c->h; y++) {
        const Cell *row = &c->cells[y * c->w];
        for (int x = 0; x < c->w;) {
            int n = run_at(row, c->w, x);
            const CanvasStyleSpec *sp = spec_of(&row[x], mono);
            const char *fg, *bg;
            colours(sp, &fg, &bg);
            fprintf(f, "<span style=\"color:%s", fg);
            if (bg) fprintf(f, ";background:%s", bg);
            if (sp->bold) fputs(";font-weight:bold", f);
            if (sp->underline) fputs(";text-decoration:underline", f);
            if (sp->dim) fputs(";opacity:0.6", f);
            fputs("\">", f);
            put_glyphs(f, row + x, n, ascii);
            fputs("</span>", f);
            x += n;
        }
        fputc('\n', f);
    }
    fputs("</pre>\n", f);
    return ferror(f) ? -1 : 0;
}

int canvas_html_tail(FILE *f)
{
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? -1 : 0;
}

/* Writes s as the inside of a JSON string ("\r\n" for each line end, \u00XX
 * for other control bytes, UTF-8 passed through). */
static void json_chars(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\r\\n", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
}

int canvas_cast_head(FILE *f, int w, int h, const char *title)
{
    fprintf(f, "{\"version\": 2, \"width\": %d, \"height\": %d, \"title\": \"", w, h);
    json_chars(f, title, strlen(title));
    fputs("\", \"env\": {\"TERM\": \"xterm-256color\"}}\n", f);
    return ferror(f) ? -1 : 0;
}

int canvas_cast_frame(const Canvas *c, FILE *f, double seconds, int ascii, int mono)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return -1;
    fputs("\x1b[H\x1b[2J", m); /* home, clear: each event is a whole frame */
    int rc = canvas_write(c, m, ascii, mono ? 2 : 1);
    if (fclose(m) != 0) rc = -1;
    if (rc == 0) {
        while (len > 0 && buf[len - 1] == '\n') /* no scroll past the last row */
            len--;
        fprintf(f, "[%.6f, \"o\", \"", seconds);
        json_chars(f, buf, len);
        fputs("\"]\n", f);
    }
    free(buf);
    return rc || ferror(f) ? -1 : 0;
}

int canvas_cast_end(FILE *f, double seconds)
{
    fprintf(f, "[%.6f, \"o\", \"\"]\n", seconds);
    return ferror(f) ? -1 : 0;
}
