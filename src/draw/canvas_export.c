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

/* A run of cells of one style in a row: its first column, its length, its
 * style and colours. */
typedef struct Run {
    int x, n;
    const CanvasStyleSpec *sp;
    const char *fg, *bg;
} Run;

/* The next run of row's first w cells from *x into r, *x moved past it; 0
 * at the end.  Every export (SVG's backgrounds and text, HTML) walks rows so. */
static int next_run(const Cell *row, int w, int *x, int mono, Run *r)
{
    if (*x >= w) return 0;
    int e = *x + 1;
    while (e < w && row[e].style == row[*x].style)
        e++;
    r->x = *x;
    r->n = e - *x;
    r->sp = spec_of(&row[*x], mono);
    colours(r->sp, &r->fg, &r->bg);
    *x = e;
    return 1;
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
        Run r;
        for (int x = 0; next_run(row, c->w, &x, mono, &r);)
            if (r.bg)
                fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                        r.x * SVG_CW, y * SVG_LH, r.n * SVG_CW, SVG_LH, r.bg);
    }
    for (int y = 0; y < c->h; y++) {
        const Cell *row = &c->cells[y * c->w];
        int last = c->w - 1;
        while (last >= 0 && row[last].ch == ' ')
            last--;
        fprintf(f, "<text y=\"%d\" xml:space=\"preserve\">", y * SVG_LH + SVG_FONT - 1);
        Run r;
        for (int x = 0; next_run(row, last + 1, &x, mono, &r);) {
            fprintf(f, "<tspan x=\"%.1f\" fill=\"%s\"%s%s%s>", r.x * SVG_CW, r.fg,
                    r.sp->bold ? " font-weight=\"bold\"" : "",
                    r.sp->underline ? " text-decoration=\"underline\"" : "",
                    r.sp->dim ? " fill-opacity=\"0.6\"" : "");
            put_glyphs(f, row + r.x, r.n, ascii);
            fputs("</tspan>", f);
        }
        fputs("</text>\n", f);
    }
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

/* Text from outside (a lesson's title, a caption) as HTML text, also safe
 * inside a quoted attribute: & < > " ' escaped, invalid UTF-8 and control
 * characters as U+FFFD, as the canvas shows them. */
static void put_text(FILE *f, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        int len;
        uint32_t ch = utf8_decode(s + i, n - i, &len);
        i += (size_t)len;
        if (ch == UTF8_INVALID || ch < 0x20 || ch == 0x7f || (ch >= 0x80 && ch < 0xa0)) ch = 0xfffd;
        if (ch == '"') {
            fputs("&quot;", f);
        } else if (ch == '\'') {
            fputs("&#39;", f);
        } else {
            Cell cell = {ch, ST_NORMAL};
            char buf[8];
            fputs(glyph_xml(&cell, 0, buf), f);
        }
    }
}

/* The deck's look: one slide on the screen, its frame as large as the window
 * allows (a monospace cell is about 0.6 em wide and the lines 1.2 em apart);
 * printed, every slide's final frame one after the other (a handout); without
 * the script, the same as printed. */
static const char deck_css[] =
    "html, body { margin: 0; background: " DEFAULT_BG "; color: " DEFAULT_FG "; }\n"
    "section.slide { padding: 0.5em 1em; }\n"
    "html.js section.slide { display: none; }\n"
    "html.js section.slide.on { display: flex; flex-direction: column; align-items: center;\n"
    "  justify-content: center; box-sizing: border-box; height: 100vh; }\n"
    "html.js body.blank section.slide.on, html.js body.blank #keys { display: none; }\n"
    "h2 { font: bold 14px sans-serif; margin: 0 0 0.5em 0; }\n"
    "pre { font-family: 'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace;\n"
    "  font-size: 14px; line-height: 1.2; margin: 0 0 2em 0; }\n"
    "html.js pre { margin: 0; font-size: min(calc(96vw / (var(--cols) * 0.61)),\n"
    "  calc((100vh - 4em) / (var(--rows) * 1.2))); }\n"
    "pre.anim, html.js .playing pre.frame { display: none; }\n"
    "html.js .playing pre.anim.on { display: block; }\n"
    "#keys { display: none; position: fixed; right: 1em; bottom: 0.3em; opacity: 0.5;\n"
    "  font: 12px sans-serif; }\n"
    "html.js #keys { display: block; }\n"
    "@media print {\n"
    "  html.js section.slide { display: block; height: auto; page-break-after: always; }\n"
    "  html.js pre { font-size: 10px; } html.js .playing pre.frame { display: block; }\n"
    "  pre.anim, html.js .playing pre.anim.on, html.js #keys { display: none; }\n"
    "}\n";

int canvas_html_head(FILE *f, const char *title, int cols, int rows, int fps)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n<title>",
          f);
    put_text(f, title);
    fprintf(f,
            "</title>\n<style>\n:root { --cols: %d; --rows: %d; }\n%s</style>\n</head>\n"
            "<body data-fps=\"%d\">\n",
            cols, rows, deck_css, fps);
    return ferror(f) ? -1 : 0;
}

int canvas_html_slide(FILE *f, int number, const char *caption)
{
    fprintf(f, "<section class=\"slide\" data-n=\"%d\">\n<h2>", number);
    put_text(f, caption);
    fputs("</h2>\n", f);
    return ferror(f) ? -1 : 0;
}

int canvas_write_html(const Canvas *c, FILE *f, int anim, int ascii, int mono)
{
    fprintf(f, "<pre class=\"%s\">", anim ? "anim" : "frame");
    for (int y = 0; y < c->h; y++) {
        const Cell *row = &c->cells[y * c->w];
        Run r;
        for (int x = 0; next_run(row, c->w, &x, mono, &r);) {
            fprintf(f, "<span style=\"color:%s", r.fg);
            if (r.bg) fprintf(f, ";background:%s", r.bg);
            if (r.sp->bold) fputs(";font-weight:bold", f);
            if (r.sp->underline) fputs(";text-decoration:underline", f);
            if (r.sp->dim) fputs(";opacity:0.6", f);
            fputs("\">", f);
            put_glyphs(f, row + r.x, r.n, ascii);
            fputs("</span>", f);
        }
        fputc('\n', f);
    }
    fputs("</pre>\n", f);
    return ferror(f) ? -1 : 0;
}

int canvas_html_slide_end(FILE *f)
{
    fputs("</section>\n", f);
    return ferror(f) ? -1 : 0;
}

/* The presenter's keys, as the walkthrough has them (ui/keys.c, KC_WALK):
 * next, previous, first, last, digits then Enter to go to a slide's number,
 * b blank (the next key only brings the slide back), f full screen.  A slide
 * reached going forward plays its animation frames at fps; any key during it
 * shows the final frame, and a next or previous key moves on as well.  Blank
 * holds the animation where it is.  The state is on <body> for tests:
 * data-slide (the index shown), data-state (still, playing, blank).  The
 * CDATA marks keep the page well-formed XML too. */
static const char deck_js[] =
    "<script>//<![CDATA[\n"
    "(function () {\n"
    "  var slides = document.querySelectorAll('section.slide'), body = document.body;\n"
    "  var cur = 0, frame = -1, timer = null, blank = false, jump = null, said = '', keys = {};\n"
    "  var fps = +body.getAttribute('data-fps');\n"
    "  function bind(names, what) { names.split(' ').forEach(function (k) { keys[k] = what; }); }\n"
    "  bind('ArrowRight PageDown Space Enter l j', 'next');\n"
    "  bind('ArrowLeft PageUp Backspace h k', 'prev');\n"
    "  bind('Home', 'first'); bind('End G', 'last'); bind('g', 'goto');\n"
    "  bind('b B', 'blank'); bind('f F', 'full');\n"
    "  function frames() { return slides[cur].querySelectorAll('pre.anim'); }\n"
    "  function mark() {\n"
    "    body.setAttribute('data-slide', cur);\n"
    "    body.setAttribute('data-state', blank ? 'blank' : frame >= 0 ? 'playing' : 'still');\n"
    "    body.className = blank ? 'blank' : '';\n"
    "    var note = jump != null ? 'go to ' + jump + '_' : said;\n"
    "    document.getElementById('typed').textContent = note;\n"
    "  }\n"
    "  function stop() {\n"
    "    clearTimeout(timer); timer = null; frame = -1;\n"
    "    slides[cur].classList.remove('playing');\n"
    "    Array.prototype.forEach.call(frames(), function (p) { p.classList.remove('on'); });\n"
    "  }\n"
    "  function tick() {\n"
    "    var a = frames();\n"
    "    if (frame > 0) a[frame - 1].classList.remove('on');\n"
    "    if (frame >= a.length) { stop(); mark(); return; }\n"
    "    a[frame].classList.add('on'); frame++;\n"
    "    timer = setTimeout(tick, 1000 / fps); mark();\n"
    "  }\n"
    "  function show(i, animate) {\n"
    "    stop(); slides[cur].classList.remove('on');\n"
    "    cur = Math.max(0, Math.min(slides.length - 1, i));\n"
    "    slides[cur].classList.add('on');\n"
    "    try { history.replaceState(null, '', '#' + cur); } catch (e) {}\n"
    "    if (animate && frames().length) {\n"
    "      slides[cur].classList.add('playing'); frame = 0; tick();\n"
    "    }\n"
    "    mark();\n"
    "  }\n"
    "  function go(n) {\n"
    "    for (var i = 0; i != slides.length; i++)\n"
    "      if (slides[i].getAttribute('data-n') == n) { show(i, false); return; }\n"
    "    said = 'no slide ' + n; mark();\n"
    "  }\n"
    "  document.addEventListener('keydown', function (e) {\n"
    "    if (e.ctrlKey || e.altKey || e.metaKey) return;\n"
    "    var k = e.key == ' ' ? 'Space' : e.key, what = keys[k];\n"
    "    said = '';\n"
    "    if (blank) {\n"
    "      blank = false; if (frame >= 0) timer = setTimeout(tick, 1000 / fps);\n"
    "      mark(); e.preventDefault(); return;\n"
    "    }\n"
    "    if (/^[0-9]$/.test(k)) { jump = ((jump || '') + k).slice(-2); mark(); return; }\n"
    "    if (jump != null) {\n"
    "      var n = jump; jump = null; mark();\n"
    "      if (k == 'Enter') { n ? go(n) : show(0, false); e.preventDefault(); return; }\n"
    "      if (k == 'Escape' || k == 'Backspace') { e.preventDefault(); return; }\n"
    "    }\n"
    "    if (!what) return;\n"
    "    e.preventDefault();\n"
    "    if (what == 'goto') { jump = ''; mark(); return; }\n"
    "    var playing = frame >= 0;\n"
    "    if (what == 'blank') { clearTimeout(timer); blank = true; mark(); return; }\n"
    "    if (what == 'full') {\n"
    "      if (document.fullscreenElement) document.exitFullscreen();\n"
    "      else document.documentElement.requestFullscreen();\n"
    "      return;\n"
    "    }\n"
    "    if (playing) { stop(); mark(); }\n"
    "    if (what == 'next' && cur + 1 != slides.length) show(cur + 1, true);\n"
    "    if (what == 'prev' && cur != 0) show(cur - 1, false);\n"
    "    if (what == 'first' && !playing) show(0, false);\n"
    "    if (what == 'last' && !playing) show(slides.length - 1, false);\n"
    "  });\n"
    "  document.documentElement.className = 'js';\n"
    "  var m = /^#([0-9]+)$/.exec(location.hash);\n"
    "  show(m ? +m[1] : 0, false);\n"
    "})();\n"
    "//]]></script>\n";

int canvas_html_tail(FILE *f)
{
    fputs("<div id=\"keys\"><span id=\"typed\"></span> Right Left PgDn PgUp Space Home End, "
          "N Enter: go to N, b: blank, f: full screen</div>\n",
          f);
    fputs(deck_js, f);
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
