/* lessonpage.c - a lesson page on a canvas, and the checks that need the
 * engine and the drawing (lesson_check).  No terminal: the lesson screens
 * (ui/lessonui.c) and `mhaviz lesson --frames` both draw through lesson_draw().
 *
 *   wide (>= LESSON_WIDE_W x LESSON_WIDE_H):  header / text | picture / hint
 *   narrow:  header / text / the step's memory strip in the rows left / hint,
 *            or the picture alone (Tab switches)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "draw/lessonpage.h"
#include "draw/variants.h"

SceneState lesson_scene_state(const LessonPage *pg)
{
    SceneState s = scene_state_default();
    s.step = pg->step;
    s.view = pg->view;
    s.inspect = pg->inspect;
    memcpy(s.cur, pg->cur, sizeof s.cur);
    s.show_single = pg->single;
    s.narrative = 0;
    s.anim = -1;
    return s;
}

/* --- rich text: `code` and **emphasis**, word-wrapped ------------------------- */

typedef struct Glyph {
    uint32_t ch;
    Style st;
} Glyph;

/* The code point at s into *cp ('?' for an invalid byte); returns what follows it. */
static const char *next_cp(const char *s, uint32_t *cp)
{
    int len;
    *cp = utf8_decode(s, 4, &len);
    if (*cp == UTF8_INVALID) *cp = '?';
    return s + len;
}

#define NBSP 0xA0

/* The closing character of a short group starting at s ("1, 2, 4, 4)"),
 * or NULL when it is far away: a long group may wrap like any text. */
static const char *short_group(const char *s, char close)
{
    for (int i = 0; i < 24 && s[i]; i++)
        if (s[i] == close) return s + i;
    return NULL;
}

/* Text with markup -> glyphs with styles (markup removed).  *n glyphs. */
static Glyph *to_glyphs(const char *text, Style base, size_t *n)
{
    size_t cap = strlen(text) + 1;
    Glyph *g = malloc(cap * sizeof *g);
    if (!g) {
        *n = 0;
        return NULL;
    }
    int code = 0, bold = 0;
    const char *keep_until = NULL; /* spaces before this do not break a line */
    size_t k = 0;
    for (const char *s = text; *s;) {
        if (*s == '`') {
            code = !code;
            s++;
            if (code) keep_until = short_group(s, '`');
            continue;
        }
        if (!code && s[0] == '*' && s[1] == '*') {
            bold = !bold;
            s += 2;
            continue;
        }
        if (*s == '(' && (!keep_until || s >= keep_until)) keep_until = short_group(s + 1, ')');
        uint32_t cp;
        const char *at = s;
        s = next_cp(s, &cp);
        if (cp == ' ' && keep_until && at < keep_until)
            cp = NBSP; /* "(1, 2, 4, 4)" and `a @ b` are not broken */
        g[k++] = (Glyph){cp, code ? ST_CODE : bold ? ST_BOLD : base};
    }
    *n = k;
    return g;
}

/* Draws wrapped text at (x, y) in a w-wide column, at most maxh rows; returns
 * the rows the whole text needs (which may be more than maxh). */
static int draw_rich(Canvas *c, int x, int y, int w, int maxh, const char *text, Style base,
                     int indent)
{
    size_t n;
    Glyph *g = to_glyphs(text, base, &n);
    if (!g || w <= indent) return free(g), 1;
    int row = 0, col = indent;
    size_t i = 0;
    while (i < n) {
        if (g[i].ch == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && g[j].ch != ' ')
            j++;
        int len = (int)(j - i);
        if (col > indent && col + 1 + len > w) {
            row++;
            col = indent;
        } else if (col > indent) {
            col++; /* the space between words */
        }
        for (size_t k = i; k < j; k++) {
            if (col >= w) { /* a word longer than the column: break it */
                row++;
                col = indent;
            }
            if (row < maxh)
                canvas_put(c, x + col, y + row, g[k].ch == NBSP ? ' ' : g[k].ch, g[k].st);
            col++;
        }
        i = j;
    }
    free(g);
    return row + 1;
}

/* Draws code lines verbatim; a line wider than w counts as overflow. */
static int draw_code(Canvas *c, int x, int y, int w, int maxh, const char *text, int *too_wide)
{
    int row = 0;
    for (const char *s = text; *s;) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        int col = 2;
        for (const char *p = s; p < s + n;) {
            uint32_t cp;
            p = next_cp(p, &cp);
            if (col >= w) {
                *too_wide = 1;
                break;
            }
            if (row < maxh) canvas_put(c, x + col, y + row, cp, ST_CODE);
            col++;
        }
        row++;
        s += n + (eol ? 1 : 0);
    }
    return row;
}

/* The page's text in the rectangle; 1 if it did not fit.  *used: rows drawn. */
static int draw_text(Canvas *c, int x, int y, int w, int h, const LessonPage *pg,
                     const LessonPageText *t, const LessonView *v, int *used)
{
    int row = 0, too_wide = 0;
    for (int i = 0; i < t->n; i++) {
        if (row > 0) row++; /* a blank line between blocks */
        int left = h - row > 0 ? h - row : 0;
        switch (pg->blocks[i].kind) {
        case LB_PARA:
            row += draw_rich(c, x, y + row, w, left, t->blocks[i], ST_NORMAL, 0);
            break;
        case LB_CODE:
            row += draw_code(c, x, y + row, w, left, t->blocks[i], &too_wide);
            break;
        case LB_HIGHLIGHT:
            if (left > 0) canvas_put(c, x, y + row, 0x25B6, ST_WARN); /* ▶ */
            row += draw_rich(c, x, y + row, w, left, t->blocks[i], ST_WARN, 2);
            break;
        }
    }
    if (t->question) {
        if (row > 0) row++;
        int left = h - row > 0 ? h - row : 0;
        if (left > 0) canvas_text(c, x, y + row, "?", ST_KEY);
        row += draw_rich(c, x, y + row, w, left, t->question, ST_BOLD, 2);
        left = h - row > 0 ? h - row : 0;
        if (v->revealed && t->answer)
            row += draw_rich(c, x, y + row, w, left, t->answer, ST_GOOD, 2);
        else if (t->answer)
            row += draw_rich(c, x, y + row, w, left, "(Space shows the answer)", ST_DIM, 2);
    }
    if (used) *used = row;
    return row > h || too_wide;
}

/* The variants panel for cfg (its kv_heads picks the GQA column). */
static void draw_variants(Canvas *c, int x, int y, int w, int h, const MhaConfig *cfg)
{
    VariantRuns v;
    memset(&v, 0, sizeof v);
    variants_run(&v, cfg, cfg->kv_heads);
    variants_draw_panel(c, x, y, w, h, &v);
    variants_free_runs(&v);
}

/* Floats per storage row of t's buffer: the last dim of the contiguous tensor
 * that owns it (x and Q: d_model), else t's own last dim. */
static int storage_row(const Mha *m, const Tensor *t)
{
    for (int i = 0; i < MT_COUNT; i++) {
        const Tensor *o = m->t[i];
        if (o && o->st == t->st && o->offset == 0 && tensor_numel(o) == o->st->n &&
            tensor_is_contiguous(o))
            return o->shape[o->ndim - 1];
    }
    return t->shape[t->ndim - 1];
}

/* Narrow text pane: the text leaves rows y .. y+h-1 free.  The page's picture
 * needs the whole screen (Tab), but its memory strip fits here, so "the
 * picture shows ..." and "the cell lit in the candy bar" are true on the text
 * pane too.  Too few rows (or a variants page): a line that says Tab. */
static void draw_strip(Canvas *c, int y, int h, const LessonPage *pg, const Mha *m,
                       const SceneState *ss)
{
    if (h < 1) return;
    if (pg->variants || h < 5) {
        canvas_text(c, 1, y + h - 1,
                    pg->variants ? "Tab: the picture (MHA | GQA | MQA side by side)"
                                 : "Tab: the picture for this page",
                    ST_DIM);
        return;
    }
    const Tensor *t = m->t[scene_inspect_tensor(ss)];
    long lit = pg->inspect ? (long)tensor_offset_of(t, pg->cur) : -1;
    int wrap = storage_row(m, t);
    int heads = wrap == m->cfg.d_model ? m->cfg.heads : 0;
    char what[120];
    snprintf(what, sizeof what, "memory of %s%s (Tab: the whole picture)",
             mha_tensor_names[scene_inspect_tensor(ss)],
             pg->inspect ? ", the inspected float lit" : "");
    canvas_text(c, 1, y + 1, what, ST_DIM);
    scene_candy_bar(c, 1, y + 2, c->w - 2, h - 2, t, wrap, heads, m->d_head, lit);
}

int lesson_draw(Canvas *c, const Lesson *l, int p, const LessonPageText *t, const Mha *m,
                const LessonView *v)
{
    const LessonPage *pg = &l->pages[p];
    canvas_clear(c);
    int wide = c->w >= LESSON_WIDE_W && c->h >= LESSON_WIDE_H;
    char head[300];
    const char *hint = v->hint ? v->hint
                       : wide  ? "Space/PgDn next  PgUp back  r reload  q lessons  ? keys"
                               : "Space/PgDn next  PgUp back  Tab picture  r reload  q lessons";
    SceneState ss = lesson_scene_state(pg);

    if (!wide && v->pane == 1) {
        /* The picture alone, with the key hint as its status line. */
        ss.status = v->hint ? v->hint : "Tab text  Space/PgDn next  PgUp back  q lessons";
        if (pg->variants) {
            draw_variants(c, 0, 0, c->w, c->h - 1, &pg->cfg);
            canvas_fill(c, 0, c->h - 1, c->w, 1, ' ', ST_STATUS);
            canvas_text(c, 1, c->h - 1, ss.status, ST_STATUS);
        } else {
            scene_draw(c, 0, 0, c->w, c->h, m, &ss);
        }
        return 0;
    }
    snprintf(head, sizeof head, " %s  %d/%d  %s %s", l->title, p + 1, l->npages, pg->title,
             !v->done   ? ""
             : v->ascii ? "(done)"
                        : "\xE2\x9C\x93"); /* ✓ */
    canvas_fill(c, 0, 0, c->w, 1, ' ', ST_TITLE);
    canvas_text(c, 0, 0, head, ST_TITLE);
    canvas_fill(c, 0, c->h - 1, c->w, 1, ' ', ST_STATUS);
    canvas_text(c, 1, c->h - 1, hint, ST_STATUS);

    int bottom = c->h - 2; /* rows 1 .. h-2 */
    if (!wide) {
        /* Text pane: one column of margin on each side, one blank row on top. */
        int used = 0;
        if (draw_text(c, 1, 2, c->w - 2, bottom - 1, pg, t, v, &used)) return 1;
        draw_strip(c, 2 + used, bottom + 1 - (2 + used), pg, m, &ss);
        return 0;
    }
    int tw = c->w / 3;
    if (tw > c->w - SCENE_MIN_W - 1) tw = c->w - SCENE_MIN_W - 1;
    int over = draw_text(c, 1, 2, tw - 2, bottom - 1, pg, t, v, NULL);
    for (int yy = 1; yy <= bottom; yy++)
        canvas_put(c, tw, yy, 0x2502, ST_FRAME); /* │ */
    if (pg->variants)
        draw_variants(c, tw + 1, 1, c->w - tw - 1, bottom, &pg->cfg);
    else
        scene_draw(c, tw + 1, 1, c->w - tw - 1, bottom, m, &ss);
    return over;
}

/* --- checks that need the engine -------------------------------------------------- */

int lesson_check(const Lesson *l, const PresetList *presets, LessonErrors *errs)
{
    int before = errs->n + errs->dropped;
    static const int sizes[][2] = {{80, 24}, {120, 40}};
    char err[400], msg[480];
    for (int p = 0; p < l->npages; p++) {
        const LessonPage *pg = &l->pages[p];
        Mha *m = mha_run(&pg->cfg, err, sizeof err);
        if (!m) {
            snprintf(msg, sizeof msg, "%s:%d: %s", l->path, pg->cfg_line ? pg->cfg_line : pg->line,
                     err);
            lesson_error_add(errs, msg);
            continue;
        }
        if (pg->inspect) {
            const Tensor *t = m->t[m->steps[pg->step].output];
            for (int i = 0; i < 4; i++)
                if ((i >= t->ndim && pg->cur[i] != 0) ||
                    (i < t->ndim && pg->cur[i] >= t->shape[i])) {
                    char dims[64];
                    tensor_fmt_dims(dims, sizeof dims, t->ndim, t->shape);
                    snprintf(msg, sizeof msg,
                             "%s:%d: @inspect %d,%d,%d,%d is outside %s %s of step '%s'", l->path,
                             pg->inspect_line, pg->cur[0], pg->cur[1], pg->cur[2], pg->cur[3],
                             mha_tensor_names[m->steps[pg->step].output], dims,
                             m->steps[pg->step].key);
                    lesson_error_add(errs, msg);
                    break;
                }
        }
        LessonPageText t;
        if (lesson_page_text(l, p, m, presets, &t, err, sizeof err) != 0) {
            lesson_error_add(errs, err);
            mha_free(m);
            continue;
        }
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            Canvas *c = canvas_new(sizes[k][0], sizes[k][1]);
            if (!c) break;
            LessonView v = {.revealed = 1};
            if (lesson_draw(c, l, p, &t, m, &v)) {
                snprintf(msg, sizeof msg,
                         "%s:%d: page '%.40s' does not fit at %dx%d: shorten it or split it in two",
                         l->path, pg->line, pg->title, sizes[k][0], sizes[k][1]);
                lesson_error_add(errs, msg);
            }
            canvas_free(c);
        }
        lesson_text_free(&t);
        mha_free(m);
    }
    return errs->n + errs->dropped - before;
}
