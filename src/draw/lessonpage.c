/* lessonpage.c - a lesson page on a canvas, and the checks that need the
 * engine and the drawing (lesson_check).  No terminal: the lesson screens
 * (ui/page_screen.c) and `mhaviz lesson --frames` both draw through lesson_draw().
 *
 *   wide (>= LESSON_WIDE_W x LESSON_WIDE_H):  header / text | picture / hint
 *   narrow:  header / text / the step's memory strip in the rows left / hint,
 *            or the picture alone (Tab switches)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/linebreak.h"
#include "base/textutil.h"
#include "base/utf8.h"
#include "draw/lessonpage.h"
#include "draw/variants.h"

SceneState lesson_scene_state(const LessonPage *pg, const LessonView *v)
{
    SceneState s = scene_state_default();
    s.step = pg->step;
    s.view = pg->view;
    s.inspect = pg->inspect;
    memcpy(s.cur, pg->cur, sizeof s.cur);
    if (v && v->inspecting) {
        s.inspect = 1;
        memcpy(s.cur, v->cur, sizeof s.cur);
    } else if (v && v->revealed && pg->todo == LD_INSPECT) { /* the answer: the cell found */
        s.inspect = 1;
        memcpy(s.cur, pg->do_arg, sizeof s.cur);
    }
    /* A prediction not yet made: the picture shows the step as it runs
     * right, not the failure's picture, whose labels ("# the bug", Q_wrong)
     * would answer it. */
    if (pg->predict && s.view != MV_STEP && v && v->verdict != 1 && !v->revealed) s.view = MV_STEP;
    s.show_single = pg->single;
    s.large = v ? v->large : 0;
    if (v) {
        s.scroll = v->scroll, s.values = v->values;
        s.scroll_key = v->scroll_key, s.values_key = v->values_key;
        s.scroll_limit = v->scroll_limit;
    }
    s.narrative = 0;
    s.anim = -1;
    return s;
}

/* --- rich text: `code` and **emphasis**, word-wrapped ------------------------- */

/* The code point at s into *cp ('?' for an invalid byte); returns what follows it. */
/* "." to end a sentence with s in it, or "" when s already ends in . ? or !
 * (a lesson's @hint does: "Not yet: 65 is not it. <hint>." doubled it). */
static const char *full_stop(const char *s)
{
    size_t n = strlen(s);
    return n && strchr(".?!", s[n - 1]) ? "" : ".";
}

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

/* The text a page shows: markup removed, UTF-8, and the style of each of
 * its bytes. */
typedef struct Rich {
    char *s;
    Style *st;
    size_t n;
} Rich;

static void rich_add(Rich *r, const char *bytes, size_t len, Style st)
{
    memcpy(r->s + r->n, bytes, len);
    for (size_t i = 0; i < len; i++)
        r->st[r->n + i] = st;
    r->n += len;
}

/* Text with markup -> r (free r->s and r->st).  A run of spaces reads as
 * one, none at either end (as in Markdown); a space inside a short group is
 * U+00A0, so the line-break finder never breaks it.  -1 when out of memory. */
static int to_rich(const char *text, Style base, Rich *r)
{
    size_t cap = 2 * strlen(text) + 1; /* a space may become U+00A0's 2 bytes */
    r->s = malloc(cap);
    r->st = malloc(cap * sizeof *r->st);
    r->n = 0;
    if (!r->s || !r->st) {
        free(r->s);
        free(r->st);
        return -1;
    }
    int code = 0, bold = 0;
    const char *keep_until = NULL; /* spaces before this do not break a line */
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
        Style st = code ? ST_CODE : bold ? ST_BOLD : base;
        if (*s == ' ' && keep_until && s < keep_until) {
            rich_add(r, "\xc2\xa0", 2, st); /* "(1, 2, 4, 4)" and `a @ b` are not broken */
            s++;
        } else if (*s == ' ') {
            if (r->n && r->s[r->n - 1] != ' ') rich_add(r, " ", 1, st);
            s++;
        } else {
            uint32_t cp;
            const char *at = s;
            s = next_cp(s, &cp);
            if (cp == '?' && *at != '?')
                rich_add(r, "?", 1, st); /* an invalid byte */
            else
                rich_add(r, at, (size_t)(s - at), st);
        }
    }
    while (r->n && r->s[r->n - 1] == ' ')
        r->n--;
    return 0;
}

/* Draws wrapped text at (x, y) in a w-wide column, indent columns in on
 * every row, at most maxh rows; the lines break where base/linebreak.h says.
 * Returns the rows the whole text needs (which may be more than maxh). */
static int draw_rich(Canvas *c, int x, int y, int w, int maxh, const char *text, Style base,
                     int indent)
{
    Rich r;
    if (w <= indent || to_rich(text, base, &r) < 0) return 1;
    int row = 0;
    LineBreak lb;
    for (size_t i = 0; linebreak_next(r.s + i, r.n - i, w - indent, &lb); i += lb.next, row++) {
        if (row >= maxh) continue;
        int col = indent;
        for (size_t k = i; k < i + lb.len; col++) {
            uint32_t cp;
            size_t at = k;
            k = (size_t)(next_cp(r.s + k, &cp) - r.s);
            if (cp != ' ') canvas_put(c, x + col, y + row, cp == NBSP ? ' ' : cp, r.st[at]);
        }
    }
    free(r.s);
    free(r.st);
    return row ? row : 1;
}

/* The code points of line s (n bytes). */
static int line_width(const char *s, size_t n)
{
    int w = 0;
    for (const char *p = s; p < s + n; w++) {
        uint32_t cp;
        p = next_cp(p, &cp);
    }
    return w;
}

/* Draws code lines verbatim; a line wider than w counts as overflow.
 * shapes (a runnable block's, NULL for others): one line per code line,
 * the shape the run gave, drawn dim beside its line (past the widest) or,
 * when that does not fit, under it; a shape that is hide (the page's
 * @expect answer, not given yet) is drawn "(?)" wherever it appears. */
static int draw_code(Canvas *c, int x, int y, int w, int maxh, const char *text, const char *shapes,
                     const char *hide, int *too_wide)
{
    int row = 0, widest = 0;
    for (const char *s = text; *s;) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        int lw = line_width(s, n);
        widest = lw > widest ? lw : widest;
        s += n + (eol ? 1 : 0);
    }
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
        if (!shapes || !*shapes) continue;
        const char *se = strchr(shapes, '\n');
        int sn = (int)(se ? se - shapes : (long)strlen(shapes));
        char shape[128];
        snprintf(shape, sizeof shape, "%.*s", sn, shapes);
        for (char *at; hide && (at = strstr(shape, hide)) != NULL;) /* hide: 3 bytes or more */
            memmove(at + 3, at + strlen(hide), strlen(at + strlen(hide)) + 1), memcpy(at, "(?)", 3);
        shapes += sn + (se ? 1 : 0);
        if (!sn) continue;
        if (2 + widest + 3 + sn <= w) { /* beside, the shapes in one column */
            if (row - 1 < maxh) canvas_text(c, x + 2 + widest + 3, y + row - 1, shape, ST_DIM);
        } else {
            if (4 + sn > w) *too_wide = 1;
            if (row < maxh) canvas_text(c, x + 4, y + row, shape, ST_DIM);
            row++;
        }
    }
    return row;
}

/* Draws text at row *row under the question, within left rows. */
static void put_rich(Canvas *c, int x, int y, int w, int left, int *row, const char *text, Style st,
                     int indent)
{
    *row += draw_rich(c, x, y + *row, w, left - *row > 0 ? left - *row : 0, text, st, indent);
}

/* A @predict page: the statement, then the four outcomes to pick from until
 * it is answered; then the engine's run of it.  Returns the rows it needs. */
static int draw_predict(Canvas *c, int x, int y, int w, int left, const LessonPageText *t,
                        const LessonView *v, const LessonPage *pg)
{
    char line[900];
    int row = 0;
    snprintf(line, sizeof line, "`>>> %s`", t->stmt ? t->stmt : "");
    put_rich(c, x, y, w, left, &row, line, ST_CODE, 2);
    if (v->verdict == 1 || v->revealed) {
        snprintf(line, sizeof line, "%s \"%s\". The engine ran it: %s",
                 v->verdict == 1 ? "Right:" : "The answer:", lesson_predict_words[pg->predict],
                 t->result ? t->result : "");
        put_rich(c, x, y, w, left, &row, line, ST_GOOD, 2);
        return row;
    }
    size_t o = 0;
    for (int k = 1; k < LP_COUNT && o < sizeof line; k++)
        o += (size_t)snprintf(line + o, sizeof line - o, "%s%d\xc2\xa0%s",
                              k > 1 ? "\xc2\xa0\xc2\xa0 " : "", /* 3 columns, a break */
                              k, lesson_predict_words[k]);
    put_rich(c, x, y, w, left, &row, line, ST_NORMAL, 2);
    if (v->verdict == -1 && v->picked > 0 && v->picked < LP_COUNT)
        snprintf(line, sizeof line, "Not \"%s\". %s", lesson_predict_words[v->picked],
                 v->why && v->why[0] ? v->why : "Look again at what it starts from.");
    else
        snprintf(line, sizeof line, "What does it do? Press 1-%d before it runs.", LP_COUNT - 1);
    put_rich(c, x, y, w, left, &row, line, v->verdict == -1 ? ST_BAD : ST_DIM, 2);
    return row;
}

/* Under the question: the answer once revealed (a typed answer that was
 * right, a @do done, or Space), else what the exercise is waiting for.
 * Returns the rows it needs. */
static int draw_exercise(Canvas *c, int x, int y, int w, int left, const LessonPage *pg,
                         const LessonPageText *t, const LessonView *v)
{
    char line[900];
    int row = 0;
    if (pg->moves) { /* which cell moves: the line the answer is about, as it runs */
        snprintf(line, sizeof line, "`>>> %s`", t->stmt ? t->stmt : "");
        put_rich(c, x, y, w, left, &row, line, ST_CODE, 2);
    }
    int l1 = left - row > 0 ? left - row : 0;
    if (pg->predict) {
        row = draw_predict(c, x, y, w, left, t, v, pg);
    } else if (pg->expect && (v->verdict == 1 || v->revealed)) {
        snprintf(line, sizeof line, "%s %s.%s%s",
                 v->verdict == 1 ? "Right:" : "The answer:", t->expect,
                 pg->moves ? " The engine ran it: " : "", pg->moves && t->result ? t->result : "");
        row += draw_rich(c, x, y + row, w, l1, line, ST_GOOD, 2);
    } else if (pg->expect) {
        const char *typed = v->typed ? v->typed : "";
        size_t n = strlen(typed), after = v->typed_after < n ? v->typed_after : n;
        if (left > 0) { /* as typed, no markup: a text field, its cursor '_' at the end */
            canvas_text(c, x + 2, y, ">", ST_CODE);
            canvas_field(c, x + 4, y, w - 4, typed, n - after, ST_CODE, '_');
        }
        row++;
        if (v->verdict == -1) {
            const char *why = v->why && v->why[0] ? v->why : "wrong";
            snprintf(line, sizeof line, "Not yet: %s%s Try again; Enter on an empty line shows it.",
                     why, full_stop(why));
        } else {
            snprintf(line, sizeof line, "Type your answer, then Enter.");
        }
        row += draw_rich(c, x, y + row, w, left - row > 0 ? left - row : 0, line,
                         v->verdict == -1 ? ST_BAD : ST_DIM, 2);
    } else if (pg->todo && !v->done && !v->revealed) {
        const char *doing = v->doing ? v->doing : "do it";
        snprintf(line, sizeof line, "Waiting for you: %s%s", doing, full_stop(doing));
        return draw_rich(c, x, y, w, left, line, ST_DIM, 2);
    } else if (pg->todo && v->done && !v->revealed) {
        row += draw_rich(c, x, y, w, left, "Done.", ST_GOOD, 2);
    }
    int shown = v->revealed || v->verdict == 1 || (pg->todo && v->done);
    if (t->answer && shown) {
        int l2 = left - row > 0 ? left - row : 0;
        row += draw_rich(c, x, y + row, w, l2, t->answer, ST_GOOD, 2);
    } else if (t->answer && !pg->expect && !pg->todo && !pg->predict) {
        row += draw_rich(c, x, y + row, w, left, "(Space shows the answer)", ST_DIM, 2);
    }
    return row;
}

/* The page's text in the rectangle; 1 if it did not fit.  *used: rows drawn. */
static int draw_text(Canvas *c, int x, int y, int w, int h, const LessonPage *pg,
                     const LessonPageText *t, const LessonView *v, int *used)
{
    int row = 0, too_wide = 0;
    /* a typed answer not given yet: the run's shapes must not give it away */
    const char *hide = pg->expect == LE_SHAPE && t->expect && strlen(t->expect) >= 3 &&
                               !v->revealed && v->verdict != 1
                           ? t->expect
                           : NULL;
    if (t->notice && t->notice[0]) { /* the page changes the configuration: say so */
        if (h > 0) canvas_put(c, x, y, 0x2699, ST_WARN); /* ⚙ */
        row += draw_rich(c, x, y, w, h, t->notice, ST_WARN, 2);
    }
    for (int i = 0; i < t->n; i++) {
        if (row > 0) row++; /* a blank line between blocks */
        int left = h - row > 0 ? h - row : 0;
        switch (pg->blocks[i].kind) {
        case LB_PARA:
            row += draw_rich(c, x, y + row, w, left, t->blocks[i], ST_NORMAL, 0);
            break;
        case LB_CODE:
            row += draw_code(c, x, y + row, w, left, t->blocks[i], t->shapes ? t->shapes[i] : NULL,
                             hide, &too_wide);
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
        row += draw_exercise(c, x, y + row, w, h - row > 0 ? h - row : 0, pg, t, v);
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

/* A variants page at 80x24: the groups of the configuration on screen (the
 * @do's live one), one row per kv head with the query heads that read it,
 * in their head colours, so "watch the groups" holds without Tab. */
static void draw_groups(Canvas *c, int y, int h, const MhaConfig *cfg)
{
    int kv = cfg->kv_heads > 0 ? cfg->kv_heads : 1, g = cfg->heads / kv;
    const char *kind = kv == cfg->heads ? "MHA" : kv == 1 ? "MQA" : "GQA";
    if (h < 4) return;
    canvas_printf(c, 1, y + 1, ST_DIM, "the groups now: %d query head%s, %d kv head%s (%s)",
                  cfg->heads, text_s(cfg->heads), kv, text_s(kv), kind);
    int rows = h - 3, shown = kv < rows ? kv : rows;
    for (int k = 0; k < shown; k++) {
        int x = 3;
        canvas_printf(c, x, y + 2 + k, ST_BOLD, "kv%d <-", k);
        x += 7 + (k >= 10);
        for (int q = k * g; q < (k + 1) * g && x < c->w - 6; q++)
            x += canvas_printf(c, x, y + 2 + k, (Style)(ST_HEAD0 + q % 8), "q%d", q) + 1;
    }
    if (shown < kv) canvas_printf(c, 3, y + 2 + shown, ST_DIM, "... %d more kv heads", kv - shown);
}

/* Narrow text pane: the text leaves rows y .. y+h-1 free.  The page's picture
 * needs the whole screen (Tab), but its memory strip fits here, so "the
 * picture shows ..." and "the cell lit in the candy bar" are true on the text
 * pane too.  Too few rows (or a variants page): a line that says Tab. */
static void draw_strip(Canvas *c, int y, int h, const LessonPage *pg, const Mha *m,
                       const SceneState *ss)
{
    if (h < 1) return;
    if (pg->variants) draw_groups(c, y, h - 1, &m->cfg);
    if (pg->variants || h < 5) {
        canvas_text(c, 1, y + h - 1,
                    pg->variants ? "Tab: the picture (MHA | GQA | MQA side by side)"
                                 : "Tab: the picture for this page",
                    ST_DIM);
        return;
    }
    const Tensor *t = m->t[scene_inspect_tensor(ss)];
    long lit = ss->inspect ? (long)tensor_offset_of(t, ss->cur) : -1;
    if (pg->todo == LD_INSPECT) {
        /* The exercise moves a cursor over the logical view: that is what
         * the free rows show, and the lit cell's offset under it. */
        int used = scene_logical_view(c, 1, y + 1, c->w - 2, h - 2, m, ss);
        if (used > 0) {
            char note[160];
            if (ss->inspect)
                snprintf(note, sizeof note,
                         "the cursor's float: offset %ld of the storage (Tab: the memory strip)",
                         lit);
            else
                snprintf(note, sizeof note, "i: the cursor (Tab: the memory strip)");
            canvas_text(c, 1, y + 1 + used, note, ST_DIM);
            return;
        }
    }
    int wrap = storage_row(m, t);
    int heads = wrap == m->cfg.d_model ? m->cfg.heads : 0;
    int ti = scene_inspect_tensor(ss);
    const char *name = mha_tensor_names[ti];
    char what[160];
    if (ss->inspect) {
        char idx[48];
        size_t o = 0;
        for (int i = 0; i < t->ndim && o < sizeof idx; i++)
            o += (size_t)snprintf(idx + o, sizeof idx - o, "%s%d", i ? "," : "", ss->cur[i]);
        snprintf(what, sizeof what, "memory of %s, [%s] lit: offset %ld (Tab: the picture)", name,
                 idx, lit);
    } else
        snprintf(what, sizeof what, "memory of %s (Tab: the whole picture)", name);
    canvas_text(c, 1, y + 1, what, ST_DIM);
    scene_candy_bar(c, 1, y + 2, c->w - 2, h - 2, t, wrap, heads, m->d_head, lit);
}

static int draw_page(Canvas *c, const Lesson *l, int p, const LessonPageText *t, const Mha *m,
                     const LessonView *v);

/* Is this cell's glyph part of a word or number ("128" inside "1280")? */
static int wordy(uint32_t ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           ch == '.' || ch == '_';
}

/* Writes '?' over every whole-word occurrence of word in the rectangle. */
static void mask_word(Canvas *c, int x0, int y0, int w, int h, const char *word)
{
    int n = (int)strlen(word);
    for (int y = y0; y < y0 + h && y < c->h; y++)
        for (int x = x0; x + n <= x0 + w && x + n <= c->w; x++) {
            Cell *row = &c->cells[y * c->w];
            int k = 0;
            while (k < n && row[x + k].ch == (unsigned char)word[k])
                k++;
            if (k < n || (x > 0 && wordy(row[x - 1].ch)) || (x + n < c->w && wordy(row[x + n].ch)))
                continue;
            for (k = 0; k < n; k++)
                row[x + k].ch = '?';
        }
}

/* While a typed answer waits, the picture holds it back: the expected value
 * (also without thousands separators) is masked wherever the picture in the
 * rectangle shows it ("storage S12: 32 floats, 128 bytes" on the page that
 * asks how many bytes the copy moves).  A one-digit answer is masked only as
 * "N bytes": a lone digit is every index of the picture. */
static void hold_back(Canvas *c, int x, int y, int w, int h, const LessonPage *pg,
                      const LessonPageText *t, const LessonView *v)
{
    if (!pg->expect || !t->expect || v->revealed || v->verdict == 1) return;
    char plain[96], bytes[112];
    size_t k = 0;
    for (const char *s = t->expect; *s && k + 1 < sizeof plain; s++)
        if (*s != ',' || pg->expect != LE_NUMBER) plain[k++] = *s;
    plain[k] = 0;
    if (strlen(t->expect) > 1) mask_word(c, x, y, w, h, t->expect);
    if (strlen(plain) > 1) mask_word(c, x, y, w, h, plain);
    snprintf(bytes, sizeof bytes, "%s bytes", plain);
    if (pg->expect == LE_NUMBER) mask_word(c, x, y, w, h, bytes);
}

int lesson_draw(Canvas *c, const Lesson *l, int p, const LessonPageText *t, const Mha *m,
                const LessonView *v)
{
    /* A @do page's answer is shown: the picture is the configuration the
     * answer talks about (the screen passes that run; `--frames` does not). */
    MhaConfig target;
    Mha *own = NULL;
    char err[200];
    if (v->revealed && lesson_do_target(&l->pages[p], &target) == 0 &&
        !mha_config_same(&m->cfg, &target) && (own = mha_run(&target, err, sizeof err)))
        m = own;
    int r = draw_page(c, l, p, t, m, v);
    mha_free(own);
    return r;
}

static int draw_page(Canvas *c, const Lesson *l, int p, const LessonPageText *t, const Mha *m,
                     const LessonView *v)
{
    const LessonPage *pg = &l->pages[p];
    canvas_clear(c);
    int wide = c->w >= LESSON_WIDE_W && c->h >= LESSON_WIDE_H;
    char head[300];
    const char *hint = v->hint ? v->hint : "";
    SceneState ss = lesson_scene_state(pg, v);

    if (!wide && v->pane == 1) {
        /* The picture alone, with the key hint as its status line. */
        ss.status = hint;
        if (pg->variants) {
            draw_variants(c, 0, 0, c->w, c->h - 1, &m->cfg);
            canvas_status(c, ss.status, ST_STATUS);
        } else {
            scene_draw(c, 0, 0, c->w, c->h, m, &ss);
        }
        hold_back(c, 0, 0, c->w, c->h - 1, pg, t, v);
        return 0;
    }
    snprintf(head, sizeof head, " %s  %d/%d  %s %s", l->title, p + 1, l->npages, pg->title,
             !v->finished       ? ""
             : v->finished == 2 ? "(revealed)"
             : v->ascii         ? "(done)"
                                : "\xE2\x9C\x93"); /* ✓ */
    canvas_fill(c, 0, 0, c->w, 1, ' ', ST_TITLE);
    canvas_text(c, 0, 0, head, ST_TITLE);
    canvas_status(c, hint, ST_STATUS);

    int bottom = c->h - 2; /* rows 1 .. h-2 */
    if (!wide) {
        /* Text pane: one column of margin on each side, one blank row on top. */
        int used = 0;
        if (draw_text(c, 1, 2, c->w - 2, bottom - 1, pg, t, v, &used)) return 1;
        draw_strip(c, 2 + used, bottom + 1 - (2 + used), pg, m, &ss);
        hold_back(c, 0, 2 + used, c->w, bottom + 1 - (2 + used), pg, t, v);
        return 0;
    }
    int tw = c->w / 3;
    if (tw > c->w - SCENE_MIN_W - 1) tw = c->w - SCENE_MIN_W - 1;
    int over = draw_text(c, 1, 2, tw - 2, bottom - 1, pg, t, v, NULL);
    for (int yy = 1; yy <= bottom; yy++)
        canvas_put(c, tw, yy, 0x2502, ST_FRAME); /* │ */
    if (pg->variants)
        draw_variants(c, tw + 1, 1, c->w - tw - 1, bottom, &m->cfg);
    else
        scene_draw(c, tw + 1, 1, c->w - tw - 1, bottom, m, &ss);
    hold_back(c, tw + 1, 1, c->w - tw - 1, bottom, pg, t, v);
    return over;
}

/* --- checks that need the engine -------------------------------------------------- */

/* What only the engine can check of an exercise: a @do inspect index inside
 * the tensor the picture inspects, an @expect value that reads as its kind. */
static void check_exercise(const Lesson *l, int p, const Mha *m, const LessonPageText *t,
                           LessonErrors *errs)
{
    const LessonPage *pg = &l->pages[p];
    char msg[480], err[300];
    if (pg->expect && lesson_expect_valid(pg->expect, t->expect, err, sizeof err) != 0) {
        err_at(msg, sizeof msg, l->path, pg->expect_line, "%s", err);
        lesson_error_add(errs, msg);
    }
    if (pg->predict && t->outcome != pg->predict) {
        if (t->outcome == LP_NONE)
            err_at(msg, sizeof msg, l->path, pg->predict_line, "@predict: %.300s", t->result);
        else
            err_at(msg, sizeof msg, l->path, pg->predict_line,
                   "@predict %s: the engine says it %s (%.300s)", lesson_predict_names[pg->predict],
                   lesson_predict_words[t->outcome], t->result);
        lesson_error_add(errs, msg);
    }
    if (pg->todo != LD_INSPECT) return;
    if (pg->variants) {
        err_at(msg, sizeof msg, l->path, pg->do_line,
               "@do inspect on a @view variants page (no cursor there)");
        lesson_error_add(errs, msg);
        return;
    }
    SceneState ss = lesson_scene_state(pg, NULL);
    int ti = scene_inspect_tensor(&ss);
    const Tensor *tt = m->t[ti];
    for (int i = 0; i < 4; i++)
        if ((i >= tt->ndim && pg->do_arg[i] != 0) ||
            (i < tt->ndim && pg->do_arg[i] >= tt->shape[i])) {
            char dims[64];
            tensor_fmt_dims(dims, sizeof dims, tt->ndim, tt->shape);
            err_at(msg, sizeof msg, l->path, pg->do_line,
                   "@do inspect %d,%d,%d,%d is outside %s %s, the tensor "
                   "this page's picture inspects",
                   pg->do_arg[0], pg->do_arg[1], pg->do_arg[2], pg->do_arg[3], mha_tensor_names[ti],
                   dims);
            lesson_error_add(errs, msg);
            return;
        }
}

int lesson_check(const Lesson *l, const PresetList *presets, LessonErrors *errs)
{
    int before = errs->n + errs->dropped;
    static const int sizes[][2] = {{80, 24}, {120, 40}};
    char err[400], msg[480];
    for (int p = 0; p < l->npages; p++) {
        const LessonPage *pg = &l->pages[p];
        Mha *m = mha_run(&pg->cfg, err, sizeof err);
        if (!m) {
            err_at(msg, sizeof msg, l->path, pg->cfg_line ? pg->cfg_line : pg->line, "%s", err);
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
                    err_at(msg, sizeof msg, l->path, pg->inspect_line,
                           "@inspect %d,%d,%d,%d is outside %s %s of step '%s'", pg->cur[0],
                           pg->cur[1], pg->cur[2], pg->cur[3],
                           mha_tensor_names[m->steps[pg->step].output], dims,
                           m->steps[pg->step].key);
                    lesson_error_add(errs, msg);
                    break;
                }
        }
        LessonPageText t;
        if (lesson_page_text(l, p, m, presets, &t, err, sizeof err) != 0) {
            if (lesson_page_errors(l, p, m, presets, errs) == 0) /* all of them */
                lesson_error_add(errs, err);                     /* (or what else failed) */
            mha_free(m);
            continue;
        }
        check_exercise(l, p, m, &t, errs);
        /* Both ends of an exercise must fit: waiting (a wrong answer said
         * why) and answered. */
        LessonView waiting = {.typed = "(1, 2, 4, 4)",
                              .verdict = -1,
                              .picked = pg->predict == LP_WRONG ? LP_RAISES : LP_WRONG,
                              .why = t.hint ? t.hint : "you typed 3 numbers; the answer has 4",
                              .doing = "press H until heads is 4 (now 2)"};
        for (size_t k = 0; k < 2 * sizeof sizes / sizeof *sizes; k++) {
            Canvas *c = canvas_new(sizes[k / 2][0], sizes[k / 2][1]);
            if (!c) break;
            LessonView v = {.revealed = 1};
            if (k % 2 && !pg->expect && !pg->todo && !pg->predict) {
                canvas_free(c);
                continue;
            }
            if (lesson_draw(c, l, p, &t, m, k % 2 ? &waiting : &v)) {
                err_at(msg, sizeof msg, l->path, pg->line,
                       "page '%.40s' does not fit at %dx%d: shorten it or split it in two",
                       pg->title, sizes[k / 2][0], sizes[k / 2][1]);
                lesson_error_add(errs, msg);
            }
            canvas_free(c);
        }
        lesson_text_free(&t);
        mha_free(m);
    }
    return errs->n + errs->dropped - before;
}
