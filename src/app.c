/* app.c - the interactive program around the screens: options, the key
 * table of every screen, the generated help and hints, the home menu and
 * the configuration form.
 *
 * Every screen here follows ui.h: draw() paints the whole frame from the
 * screen's state, key() maps a key to an Action through app_keys and returns
 * UI_* flags; neither touches the terminal (tui.c does).
 */
#include "app.h"
#include "lessonui.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "quiz_screen.h"
#include "scene.h"
#include "tui.h"

/* ---- the key table ------------------------------------------------------- */

/* One line per key, for every screen of the program (walk.c, app.c,
 * lessonui.c, quiz_screen.c look keys up here; no other key table exists).
 * A line with help starts a group; the lines after it with help NULL add
 * their key names to that group.  The `?` screen lists each context's groups
 * under its title, and a screen's hint line (app_hint) joins them.  No key is
 * bound twice in one context (tests/check_app.c); the walkthrough looks
 * KC_INSPECT up before KC_WALK, so inspect mode's h j k l win there. */
const KeyBinding app_keys[] = {
    /* everywhere */
    {KC_ALL, UI_K_CTRL_L, 0, ACT_REDRAW, "Ctrl-L", "redraw the whole screen"},

    /* the walkthrough */
    {KC_WALK, ' ', 0, ACT_NEXT, "Space", "next step"},
    {KC_WALK, UI_K_RIGHT, 0, ACT_NEXT, "Right", NULL},
    {KC_WALK, 'l', 0, ACT_NEXT, "l", NULL},
    {KC_WALK, 'j', 0, ACT_NEXT, "j", NULL},
    {KC_WALK, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_WALK, UI_K_ENTER, 0, ACT_NEXT, "Enter", NULL},
    {KC_WALK, UI_K_LEFT, 0, ACT_PREV, "Left", "previous step"},
    {KC_WALK, 'h', 0, ACT_PREV, "h", NULL},
    {KC_WALK, 'k', 0, ACT_PREV, "k", NULL},
    {KC_WALK, UI_K_PGUP, 0, ACT_PREV, "PgUp", NULL},
    {KC_WALK, UI_K_BACKSPACE, 0, ACT_PREV, "Backspace", NULL},
    {KC_WALK, 'g', 0, ACT_FIRST, "g", "first step"},
    {KC_WALK, UI_K_HOME, 0, ACT_FIRST, "Home", NULL},
    {KC_WALK, 'G', 0, ACT_LAST, "G", "last step"},
    {KC_WALK, UI_K_END, 0, ACT_LAST, "End", NULL},
    {KC_WALK, '0', '9', ACT_DIGIT, "0-9 Enter", "jump to step N"},
    {KC_WALK, 'p', 0, ACT_AUTOPLAY, "p", "autoplay on/off (presenter mode)"},
    {KC_WALK, '+', 0, ACT_FASTER, "+", "faster autoplay and animations"},
    {KC_WALK, '=', 0, ACT_FASTER, "=", NULL},
    {KC_WALK, '-', 0, ACT_SLOWER, "-", "slower autoplay and animations"},
    {KC_WALK, 'a', 0, ACT_ANIM, "a", "animations on/off"},
    {KC_WALK, 'i', 0, ACT_INSPECT, "i", "inspect: a cursor on the logical view"},
    {KC_WALK, UI_K_MOUSE, 0, ACT_OPEN, "click", "inspect the element clicked"},
    {KC_WALK, 'm', 0, ACT_SINGLE, "m", "softmax: one big head beside the heads"},

    /* inspect mode: the arrows move the cursor instead of the step */
    {KC_INSPECT, UI_K_LEFT, 0, ACT_LEFT, "Left", "move the cursor"},
    {KC_INSPECT, UI_K_RIGHT, 0, ACT_RIGHT, "Right", NULL},
    {KC_INSPECT, UI_K_UP, 0, ACT_UP, "Up", NULL},
    {KC_INSPECT, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_INSPECT, 'h', 0, ACT_LEFT, "h", NULL},
    {KC_INSPECT, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_INSPECT, 'k', 0, ACT_UP, "k", NULL},
    {KC_INSPECT, 'l', 0, ACT_RIGHT, "l", NULL},
    {KC_INSPECT, 'i', 0, ACT_INSPECT, "i", "leave inspect mode"},
    {KC_INSPECT, UI_K_ESC, 0, ACT_INSPECT, "Esc", NULL},

    /* the home menu */
    {KC_HOME, UI_K_UP, 0, ACT_UP, "Up", "previous entry"},
    {KC_HOME, 'k', 0, ACT_UP, "k", NULL},
    {KC_HOME, UI_K_BTAB, 0, ACT_UP, "Shift-Tab", NULL},
    {KC_HOME, UI_K_DOWN, 0, ACT_DOWN, "Down", "next entry"},
    {KC_HOME, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_HOME, UI_K_TAB, 0, ACT_DOWN, "Tab", NULL},
    {KC_HOME, UI_K_ENTER, 0, ACT_OPEN, "Enter", "open the entry"},
    {KC_HOME, ' ', 0, ACT_OPEN, "Space", NULL},
    {KC_HOME, UI_K_RIGHT, 0, ACT_OPEN, "Right", NULL},
    {KC_HOME, 'l', 0, ACT_OPEN, "l", NULL},
    {KC_HOME, '1', '9', ACT_DIGIT, "1-9", "open entry N"},

    /* the walkthrough and the home menu */
    {KC_WALK | KC_HOME, 'c', 0, ACT_CONFIG, "c", "configuration form"},
    {KC_WALK | KC_HOME, 'H', 0, ACT_HEADS, "H", "next number of heads (divides d_model)"},
    {KC_WALK | KC_HOME, 'K', 0, ACT_KV_HEADS, "K", "next number of kv heads: MHA, GQA, MQA"},
    {KC_WALK | KC_HOME, 'S', 0, ACT_SEQ, "S", "one more token (2 to 8, then 2)"},
    {KC_WALK | KC_HOME, 'C', 0, ACT_CAUSAL, "C", "causal mask on/off"},
    {KC_WALK | KC_HOME, 'R', 0, ACT_SEED, "R", "next seed (new numbers)"},
    {KC_WALK | KC_HOME, '?', 0, ACT_HELP, "?", "this help"},
    {KC_WALK | KC_HOME, 'q', 0, ACT_BACK, "q", "back; quit from the first screen"},
    {KC_WALK | KC_HOME, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},

    /* the configuration form */
    {KC_FORM, UI_K_UP, 0, ACT_UP, "Up", "previous field"},
    {KC_FORM, 'k', 0, ACT_UP, "k", NULL},
    {KC_FORM, UI_K_BTAB, 0, ACT_UP, "Shift-Tab", NULL},
    {KC_FORM, UI_K_DOWN, 0, ACT_DOWN, "Down", "next field"},
    {KC_FORM, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_FORM, UI_K_TAB, 0, ACT_DOWN, "Tab", NULL},
    {KC_FORM, UI_K_RIGHT, 0, ACT_INC, "Right", "increase the value"},
    {KC_FORM, 'l', 0, ACT_INC, "l", NULL},
    {KC_FORM, '+', 0, ACT_INC, "+", NULL},
    {KC_FORM, UI_K_LEFT, 0, ACT_DEC, "Left", "decrease the value"},
    {KC_FORM, 'h', 0, ACT_DEC, "h", NULL},
    {KC_FORM, '-', 0, ACT_DEC, "-", NULL},
    {KC_FORM, '0', '9', ACT_DIGIT, "0-9", "type the value"},
    {KC_FORM, UI_K_BACKSPACE, 0, ACT_ERASE, "Backspace", "erase a digit"},
    {KC_FORM, ' ', 0, ACT_TOGGLE, "Space", "causal mask on/off"},
    {KC_FORM, UI_K_ENTER, 0, ACT_APPLY, "Enter", "apply (refused with the reason if invalid)"},
    {KC_FORM, '?', 0, ACT_HELP, "?", "this help"},
    {KC_FORM, UI_K_ESC, 0, ACT_BACK, "Esc", "cancel"},
    {KC_FORM, 'q', 0, ACT_BACK, "q", NULL},

    /* the lesson menu (lessonui.c) */
    {KC_LESSONS, UI_K_UP, 0, ACT_UP, "Up", "previous lesson"},
    {KC_LESSONS, 'k', 0, ACT_UP, "k", NULL},
    {KC_LESSONS, UI_K_DOWN, 0, ACT_DOWN, "Down", "next lesson"},
    {KC_LESSONS, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_LESSONS, UI_K_ENTER, 0, ACT_OPEN, "Enter", "open the lesson (at its first unfinished page)"},
    {KC_LESSONS, ' ', 0, ACT_OPEN, "Space", NULL},
    {KC_LESSONS, UI_K_RIGHT, 0, ACT_OPEN, "Right", NULL},
    {KC_LESSONS, '1', '9', ACT_DIGIT, "1-9", "open lesson N"},

    /* a lesson page */
    {KC_PAGE, ' ', 0, ACT_NEXT, "Space", "next page (answer first); last page: next lesson"},
    {KC_PAGE, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_PAGE, UI_K_RIGHT, 0, ACT_NEXT, "Right", NULL},
    {KC_PAGE, UI_K_ENTER, 0, ACT_NEXT, "Enter", NULL},
    {KC_PAGE, 'l', 0, ACT_NEXT, "l", NULL},
    {KC_PAGE, UI_K_PGUP, 0, ACT_PREV, "PgUp", "previous page"},
    {KC_PAGE, UI_K_LEFT, 0, ACT_PREV, "Left", NULL},
    {KC_PAGE, UI_K_BACKSPACE, 0, ACT_PREV, "Backspace", NULL},
    {KC_PAGE, 'h', 0, ACT_PREV, "h", NULL},
    {KC_PAGE, UI_K_HOME, 0, ACT_FIRST, "Home", "first page"},
    {KC_PAGE, 'g', 0, ACT_FIRST, "g", NULL},
    {KC_PAGE, UI_K_END, 0, ACT_LAST, "End", "last page"},
    {KC_PAGE, 'G', 0, ACT_LAST, "G", NULL},
    {KC_PAGE, UI_K_TAB, 0, ACT_PANE, "Tab", "text or picture (below 115 columns)"},
    {KC_PAGE, 'r', 0, ACT_RELOAD, "r", "reload the lesson file from disk"},

    /* MHA | GQA | MQA */
    {KC_VARIANTS, 'K', 0, ACT_GQA_NEXT, "K", "GQA column: next kv_heads"},
    {KC_VARIANTS, UI_K_RIGHT, 0, ACT_GQA_NEXT, "Right", NULL},
    {KC_VARIANTS, UI_K_LEFT, 0, ACT_GQA_PREV, "Left", "GQA column: previous kv_heads"},
    {KC_VARIANTS, 'H', 0, ACT_HEADS, "H", "next number of query heads"},

    /* the KV calculator */
    {KC_KV, UI_K_UP, 0, ACT_UP, "Up", "previous model"},
    {KC_KV, 'k', 0, ACT_UP, "k", NULL},
    {KC_KV, UI_K_DOWN, 0, ACT_DOWN, "Down", "next model"},
    {KC_KV, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_KV, 'd', 0, ACT_DTYPE, "d", "next dtype: fp32 fp16 bf16 fp8 int4"},
    {KC_KV, UI_K_RIGHT, 0, ACT_DTYPE, "Right", NULL},
    {KC_KV, '+', 0, ACT_CONTEXT_UP, "+", "double the context"},
    {KC_KV, '=', 0, ACT_CONTEXT_UP, "=", NULL},
    {KC_KV, '-', 0, ACT_CONTEXT_DOWN, "-", "halve the context"},
    {KC_KV, 'B', 0, ACT_BATCH_UP, "B", "double the batch"},
    {KC_KV, 'b', 0, ACT_BATCH_DOWN, "b", "halve the batch"},

    /* the four lesson screens */
    {KC_LESSONS | KC_PAGE | KC_VARIANTS | KC_KV, '?', 0, ACT_HELP, "?", "this help"},
    {KC_LESSONS | KC_PAGE | KC_VARIANTS | KC_KV, 'q', 0, ACT_BACK, "q",
     "back (quit from the first screen)"},
    {KC_LESSONS | KC_PAGE | KC_VARIANTS | KC_KV, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},

    /* the quiz (quiz_screen.c), whose hint line is made of these groups in
     * this order: while a question is asked, every printable key not bound
     * here is typed into the answer, so q and Space are not bound there */
    {KC_QUIZ_PICK, UI_K_ENTER, 0, ACT_APPLY, "Enter", "start"},
    {KC_QUIZ_PICK, UI_K_UP, 0, ACT_UP, "Up", "topic"},
    {KC_QUIZ_PICK, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_QUIZ_PICK, 'k', 0, ACT_UP, "k", NULL},
    {KC_QUIZ_PICK, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_QUIZ_PICK, UI_K_LEFT, 0, ACT_LEFT, "Left", "length"},
    {KC_QUIZ_PICK, UI_K_RIGHT, 0, ACT_RIGHT, "Right", NULL},
    {KC_QUIZ_PICK, 'h', 0, ACT_LEFT, "h", NULL},
    {KC_QUIZ_PICK, 'l', 0, ACT_RIGHT, "l", NULL},
    {KC_QUIZ_PICK, 't', 0, ACT_TIMED, "t", "timed"},
    {KC_QUIZ_ASK, UI_K_ENTER, 0, ACT_APPLY, "Enter", "answer (empty: skip)"},
    {KC_QUIZ_ASK, UI_K_BACKSPACE, 0, ACT_ERASE, "Bksp", "erase"},
    {KC_QUIZ_FEEDBACK, UI_K_ENTER, 0, ACT_NEXT, "Enter", "next"},
    {KC_QUIZ_FEEDBACK, ' ', 0, ACT_NEXT, "Space", NULL},
    {KC_QUIZ_ASK | KC_QUIZ_FEEDBACK, UI_K_UP, 0, ACT_UP, "Up", "scroll"},
    {KC_QUIZ_ASK | KC_QUIZ_FEEDBACK, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_QUIZ_ASK | KC_QUIZ_FEEDBACK, UI_K_PGUP, 0, ACT_PAGE_UP, "PgUp", NULL},
    {KC_QUIZ_ASK | KC_QUIZ_FEEDBACK, UI_K_PGDN, 0, ACT_PAGE_DOWN, "PgDn", NULL},
    {KC_QUIZ_FEEDBACK, 'q', 0, ACT_BACK, "q", "end quiz"},
    {KC_QUIZ_ASK | KC_QUIZ_FEEDBACK, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},
    {KC_QUIZ_PICK | KC_QUIZ_SUMMARY, 'q', 0, ACT_BACK, "q", "back"},
    {KC_QUIZ_PICK | KC_QUIZ_SUMMARY, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},
    {KC_QUIZ_SUMMARY, UI_K_ENTER, 0, ACT_BACK, "Enter", NULL},

    /* the help screen */
    {KC_HELP, UI_K_DOWN, 0, ACT_DOWN, "Down", "scroll"},
    {KC_HELP, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_HELP, UI_K_UP, 0, ACT_UP, "Up", NULL},
    {KC_HELP, 'k', 0, ACT_UP, "k", NULL},
    {KC_HELP, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_HELP, ' ', 0, ACT_NEXT, "Space", NULL},
    {KC_HELP, UI_K_PGUP, 0, ACT_PREV, "PgUp", NULL},
    {KC_HELP, 'q', 0, ACT_BACK, "q", "close the help"},
    {KC_HELP, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},
    {KC_HELP, '?', 0, ACT_BACK, "?", NULL},
    {KC_HELP, UI_K_ENTER, 0, ACT_BACK, "Enter", NULL},
    {0, 0, 0, ACT_NONE, NULL, NULL},
};

Action app_action(unsigned ctx, int key)
{
    for (const KeyBinding *b = app_keys; b->key; b++) {
        if (!(b->ctx & ctx)) continue;
        if (key == b->key || (b->last && key >= b->key && key <= b->last)) return b->action;
    }
    return ACT_NONE;
}

/* ---- the generated help and hints ------------------------------------------ */

/* Section titles, one per KC_* bit in bit order. */
static const char *const ctx_titles[KC_COUNT] = {
    "Walkthrough",
    "Inspect mode (after i in the walkthrough)",
    "Home menu",
    "Configuration form (c)",
    "Lesson menu",
    "Lesson page",
    "Variants: MHA | GQA | MQA",
    "KV-cache calculator",
    "Quiz: choosing topic and length",
    "Quiz: a question (other keys type the answer)",
    "Quiz: after an answer",
    "Quiz: the summary",
    "This help",
};

/* A group is a binding with help and the bindings right after it without
 * help.  The names of the group at g bound in ctx, joined by sep (terse:
 * one-character names after the first are left out), into buf; returns the
 * number of names. */
static int group_names(const KeyBinding *g, unsigned ctx, int exact, const char *sep, int terse,
                       char *buf, size_t n)
{
    int k = 0;
    size_t o = 0;
    buf[0] = 0;
    for (const KeyBinding *e = g; e->key && (e == g || !e->help); e++) {
        if (exact ? e->ctx != ctx : !(e->ctx & ctx) || e->ctx == KC_ALL) continue;
        if (terse && k && strlen(e->name) == 1) continue;
        if (o < n) o += (size_t)snprintf(buf + o, n - o, "%s%s", k ? sep : "", e->name);
        k++;
    }
    return k;
}

size_t app_hint(unsigned ctx, int terse, char *buf, size_t n)
{
    size_t l = 0;
    if (n) buf[0] = 0;
    for (const KeyBinding *g = app_keys; g->key; g++) {
        char names[80];
        if (!g->help || !group_names(g, ctx, 0, "/", terse, names, sizeof names)) continue;
        size_t room = l < n ? n - l : 0;
        l += (size_t)snprintf(room ? buf + l : NULL, room, "%s%s %s", l ? "  " : "", names, g->help);
    }
    return l;
}

/* Help line i: a section title (kind 1, text in what), a blank line (kind 0)
 * or a group of keys (kind 2: names joined in keys, its help in what).
 * Section 0 is "Everywhere" (bindings of exactly KC_ALL), section 1 + b the
 * bindings with bit b.  sec, if not NULL, gets line i's section.  Returns -1
 * past the end. */
static int help_entry(int i, char *keys, size_t kn, const char **what, int *sec)
{
    int line = 0;
    for (int s = 0; s <= KC_COUNT; s++) {
        unsigned ctx = s ? 1u << (s - 1) : (unsigned)KC_ALL;
        int title = 0;
        if (sec) *sec = s;
        for (const KeyBinding *g = app_keys; g->key; g++) {
            if (!g->help || !group_names(g, ctx, s == 0, " ", 0, keys, kn)) continue;
            if (!title++ && line++ == i) {
                *what = s ? ctx_titles[s - 1] : "Everywhere";
                return 1;
            }
            if (line++ == i) {
                *what = g->help;
                return 2;
            }
        }
        if (title && line++ == i) return 0;
    }
    return -1;
}

const char *app_help_line(int i, char *buf, size_t n)
{
    char keys[80];
    const char *what = "";
    int kind = help_entry(i, keys, sizeof keys, &what, NULL);
    if (kind < 0) return NULL;
    if (kind == 0)
        snprintf(buf, n, "%s", "");
    else if (kind == 1)
        snprintf(buf, n, "%s", what);
    else
        snprintf(buf, n, "  %-27s %s", keys, what);
    return buf;
}

int app_help_section(unsigned ctx)
{
    int want = -1;
    if (ctx == KC_ALL) want = 0;
    for (int b = 0; b < KC_COUNT; b++)
        if (ctx == 1u << b) want = 1 + b;
    char keys[80];
    const char *what;
    int sec, kind;
    for (int i = 0; want >= 0 && (kind = help_entry(i, keys, sizeof keys, &what, &sec)) >= 0; i++)
        if (kind == 1 && sec == want) return i;
    return -1;
}

/* ---- shared drawing ------------------------------------------------------- */

int app_draw_enlarge(Canvas *c)
{
    if (c->w >= SCENE_MIN_W && c->h >= SCENE_MIN_H) return 0;
    char msg[64];
    snprintf(msg, sizeof msg, "enlarge to %dx%d (now %dx%d)", SCENE_MIN_W, SCENE_MIN_H, c->w, c->h);
    int len = (int)strlen(msg);
    int x = c->w > len ? (c->w - len) / 2 : 0;
    canvas_text(c, x, c->h / 2, msg, ST_WARN);
    if (c->h > 2) {
        const char *q = "q quits";
        int ql = (int)strlen(q);
        canvas_text(c, c->w > ql ? (c->w - ql) / 2 : 0, c->h / 2 + 1, q, ST_DIM);
    }
    return 1;
}

void app_draw_status(Canvas *c, const Ui *ui, const char *hint)
{
    int y = c->h - 1;
    canvas_fill(c, 0, y, c->w, 1, ' ', ST_STATUS);
    canvas_text(c, 1, y, ui->status[0] ? ui->status : hint, ST_STATUS);
}

void app_screen_free(Screen *s)
{
    if (!s) return;
    free(s->st);
    free(s);
}

Screen *app_screen_new(const char *title, size_t st_size)
{
    Screen *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->st = calloc(1, st_size);
    if (!s->st) {
        free(s);
        return NULL;
    }
    s->title = title;
    s->free = app_screen_free;
    return s;
}

/* ---- the configuration ----------------------------------------------------- */

int ui_set_config(Ui *ui, const MhaConfig *cfg)
{
    char err[160];
    Mha *m = NULL;
    if (mha_config_check(cfg, err, sizeof err) == 0) m = mha_run(cfg, err, sizeof err);
    if (!m) {
        snprintf(ui->status, sizeof ui->status, "refused: %s", err);
        return -1;
    }
    mha_free(ui->mha);
    ui->mha = m;
    ui->cfg = *cfg;
    return 0;
}

static const char *cfg_kind(const MhaConfig *c)
{
    return c->kv_heads == c->heads ? "MHA" : c->kv_heads == 1 ? "MQA" : "GQA";
}

/* "seq 4, d_model 8, heads 2 (d_head 4), kv_heads 2 (MHA), seed 1" */
static void cfg_line(char *buf, size_t n, const MhaConfig *c)
{
    snprintf(buf, n, "seq %d, d_model %d, heads %d (d_head %d), kv_heads %d (%s), seed %lu%s",
             c->seq, c->d_model, c->heads, c->heads ? c->d_model / c->heads : 0, c->kv_heads,
             cfg_kind(c), (unsigned long)c->seed, c->causal ? ", causal" : "");
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int app_quick_config(Ui *ui, Action a)
{
    MhaConfig c = ui->cfg;
    switch (a) {
    case ACT_HEADS: { /* the next divisor of d_model, wrapping to 1 */
        int h = c.heads + 1;
        while (h <= c.d_model && c.d_model % h)
            h++;
        if (h > c.d_model) h = 1;
        c.kv_heads = c.kv_heads == c.heads ? h : gcd(h, c.kv_heads); /* MHA stays MHA */
        c.heads = h;
        break;
    }
    case ACT_KV_HEADS: { /* the next smaller divisor of heads: MHA -> GQA -> MQA -> MHA */
        int k = c.kv_heads - 1;
        while (k >= 1 && c.heads % k)
            k--;
        c.kv_heads = k >= 1 ? k : c.heads;
        break;
    }
    case ACT_SEQ:
        c.seq = c.seq >= 8 ? 2 : c.seq + 1;
        break;
    case ACT_CAUSAL:
        c.causal = !c.causal;
        break;
    case ACT_SEED:
        c.seed++;
        break;
    default:
        return UI_NONE;
    }
    if (ui_set_config(ui, &c) == 0) {
        char line[150];
        cfg_line(line, sizeof line, &ui->cfg);
        snprintf(ui->status, sizeof ui->status, "now %s", line);
    }
    return UI_REDRAW;
}

/* ---- the help screen ------------------------------------------------------- */

typedef struct Help {
    int top;   /* first line shown */
    int shown; /* lines that fit, from the last draw */
} Help;

static int help_count(void)
{
    char buf[160];
    int n = 0;
    while (app_help_line(n, buf, sizeof buf))
        n++;
    return n;
}

static void help_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Help *h = s->st;
    if (app_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "mhaviz keys", ST_TITLE);
    canvas_text(c, 14, 0, "(from the key table; q closes)", ST_DIM);
    int total = help_count();
    int rows = c->h - 3; /* title, blank, ..., status */
    int cols = c->w >= 170 && total > rows ? 2 : 1;
    int colw = c->w / cols;
    h->shown = rows * cols;
    if (h->top > total - h->shown) h->top = total - h->shown;
    if (h->top < 0) h->top = 0;
    for (int i = 0; i < h->shown; i++) {
        int line = h->top + i;
        char keys[80];
        const char *what = "";
        int kind = help_entry(line, keys, sizeof keys, &what, NULL);
        if (kind < 0) break;
        int x = 1 + (i / rows) * colw, y = 2 + i % rows;
        if (kind == 1) {
            canvas_text(c, x, y, what, ST_BOLD);
        } else if (kind == 2) {
            canvas_text(c, x + 2, y, keys, ST_KEY);
            canvas_text(c, x + 30, y, what, ST_NORMAL);
        }
    }
    char hint[80];
    if (total > h->shown)
        snprintf(hint, sizeof hint, "lines %d-%d of %d: Down/Up/PgDn/PgUp scroll, q closes",
                 h->top + 1, h->top + h->shown < total ? h->top + h->shown : total, total);
    else
        snprintf(hint, sizeof hint, "q closes");
    app_draw_status(c, ui, hint);
}

static int help_key(Screen *s, Ui *ui, int key)
{
    Help *h = s->st;
    (void)ui;
    int page = h->shown > 1 ? h->shown - 1 : 1;
    switch (app_action(KC_HELP, key)) {
    case ACT_DOWN:
        h->top++;
        return UI_REDRAW; /* clamped by draw */
    case ACT_UP:
        h->top = h->top > 0 ? h->top - 1 : 0;
        return UI_REDRAW;
    case ACT_NEXT:
        h->top += page;
        return UI_REDRAW;
    case ACT_PREV:
        h->top = h->top > page ? h->top - page : 0;
        return UI_REDRAW;
    case ACT_BACK:
        return UI_BACK | UI_REDRAW;
    default:
        return UI_NONE;
    }
}

Screen *help_open_at(Ui *ui, unsigned ctx)
{
    (void)ui;
    Screen *s = app_screen_new("Help", sizeof(Help));
    if (!s) return NULL;
    s->draw = help_draw;
    s->key = help_key;
    int top = ctx ? app_help_section(ctx) : 0;
    ((Help *)s->st)->top = top > 0 ? top : 0; /* clamped by draw */
    return s;
}

Screen *help_open(Ui *ui)
{
    return help_open_at(ui, 0);
}

/* ---- the configuration form ------------------------------------------------ */

enum { F_SEQ, F_DMODEL, F_HEADS, F_KV, F_SEED, F_CAUSAL, F_COUNT };

static const struct {
    const char *label, *about;
    long max;
} form_fields[F_COUNT] = {
    [F_SEQ] = {"seq", "tokens S", MHA_MAX_SEQ},
    [F_DMODEL] = {"d_model", "model width D", MHA_MAX_DMODEL},
    [F_HEADS] = {"heads", "query heads H: must divide d_model", MHA_MAX_DMODEL},
    [F_KV] = {"kv_heads", "key/value heads: divide heads (1 = MQA)", MHA_MAX_DMODEL},
    [F_SEED] = {"seed", "seed of the toy input and weights", (long)MHA_MAX_SEED},
    [F_CAUSAL] = {"causal", "mask future tokens before the softmax", 1},
};

typedef struct Form {
    MhaConfig draft;
    int sel;
    int typing; /* 1 after a digit: the next digit appends instead of replacing */
} Form;

static long form_get(const MhaConfig *c, int f)
{
    switch (f) {
    case F_SEQ:
        return c->seq;
    case F_DMODEL:
        return c->d_model;
    case F_HEADS:
        return c->heads;
    case F_KV:
        return c->kv_heads;
    case F_SEED:
        return (long)c->seed;
    default:
        return c->causal;
    }
}

/* Sets field f; kv_heads follows heads while they are equal (MHA stays MHA). */
static void form_set(MhaConfig *c, int f, long v)
{
    if (v < 0) v = 0;
    if (v > form_fields[f].max) v = form_fields[f].max;
    switch (f) {
    case F_SEQ:
        c->seq = (int)v;
        break;
    case F_DMODEL:
        c->d_model = (int)v;
        break;
    case F_HEADS:
        if (c->kv_heads == c->heads) c->kv_heads = (int)v;
        c->heads = (int)v;
        break;
    case F_KV:
        c->kv_heads = (int)v;
        break;
    case F_SEED:
        c->seed = (uint32_t)v;
        break;
    default:
        c->causal = v != 0;
        break;
    }
}

static void form_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Form *f = s->st;
    if (app_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "Configuration", ST_TITLE);
    char line[160];
    cfg_line(line, sizeof line, &ui->cfg);
    canvas_text(c, 1, 2, "now:", ST_DIM);
    canvas_text(c, 6, 2, line, ST_NORMAL);
    for (int i = 0; i < F_COUNT; i++) {
        int y = 4 + 2 * i;
        long v = form_get(&f->draft, i);
        char val[24];
        if (i == F_CAUSAL)
            snprintf(val, sizeof val, "%s", v ? "on" : "off");
        else
            snprintf(val, sizeof val, "%ld", v);
        canvas_text(c, 3, y, form_fields[i].label, i == f->sel ? ST_BOLD : ST_NORMAL);
        canvas_fill(c, 13, y, 12, 1, ' ', i == f->sel ? ST_CURSOR : ST_CODE);
        canvas_text(c, 14, y, val, i == f->sel ? ST_CURSOR : ST_CODE);
        canvas_text(c, 27, y, form_fields[i].about, ST_DIM);
    }
    char err[160];
    int y = 4 + 2 * F_COUNT;
    if (mha_config_check(&f->draft, err, sizeof err) == 0) {
        canvas_text(c, 3, y, "valid: Enter applies, Esc cancels", ST_GOOD);
    } else {
        canvas_text(c, 3, y, "invalid:", ST_BAD);
        canvas_wrap(c, 12, y, c->w - 13, 2, err, ST_BAD);
    }
    app_draw_status(
        c, ui, "Up/Down field, Left/Right or digits change it, Enter apply, Esc cancel, ? keys");
}

static int form_key(Screen *s, Ui *ui, int key)
{
    Form *f = s->st;
    Action a = app_action(KC_FORM, key);
    if (a != ACT_DIGIT) f->typing = 0;
    long v = form_get(&f->draft, f->sel);
    switch (a) {
    case ACT_UP:
        f->sel = (f->sel + F_COUNT - 1) % F_COUNT;
        return UI_REDRAW;
    case ACT_DOWN:
        f->sel = (f->sel + 1) % F_COUNT;
        return UI_REDRAW;
    case ACT_INC:
        form_set(&f->draft, f->sel, f->sel == F_CAUSAL ? !v : v + 1);
        return UI_REDRAW;
    case ACT_DEC:
        form_set(&f->draft, f->sel, f->sel == F_CAUSAL ? !v : v - 1);
        return UI_REDRAW;
    case ACT_TOGGLE:
        form_set(&f->draft, F_CAUSAL, !f->draft.causal);
        return UI_REDRAW;
    case ACT_DIGIT: {
        long d = key - '0';
        if (f->sel == F_CAUSAL) {
            form_set(&f->draft, F_CAUSAL, d != 0);
        } else {
            long nv = f->typing && v <= (form_fields[f->sel].max - d) / 10 ? v * 10 + d : d;
            form_set(&f->draft, f->sel, nv);
            f->typing = 1;
        }
        return UI_REDRAW;
    }
    case ACT_ERASE:
        form_set(&f->draft, f->sel, v / 10);
        f->typing = 1;
        return UI_REDRAW;
    case ACT_APPLY:
        if (ui_set_config(ui, &f->draft) < 0) return UI_REDRAW; /* reason in the status line */
        {
            char line[150];
            cfg_line(line, sizeof line, &ui->cfg);
            snprintf(ui->status, sizeof ui->status, "now %s", line);
        }
        return UI_BACK | UI_REDRAW;
    case ACT_HELP:
        ui->push = help_open(ui);
        return ui->push ? UI_PUSH | UI_REDRAW : UI_REDRAW;
    case ACT_BACK:
        return UI_BACK | UI_REDRAW;
    default:
        return UI_NONE;
    }
}

Screen *form_open(Ui *ui)
{
    Screen *s = app_screen_new("Configuration", sizeof(Form));
    if (!s) return NULL;
    Form *f = s->st;
    f->draft = ui->cfg;
    s->draw = form_draw;
    s->key = form_key;
    return s;
}

/* ---- the home menu --------------------------------------------------------- */

/* One line per screen that exists, in DESIGN's order; new screens go above Help. */
static const struct {
    const char *label, *about;
    Screen *(*open)(Ui *ui);
} home_entries[] = {
    {"Walkthrough", "the pipeline, one step per screen, as it runs in memory", walk_open},
    {"Lessons", "a guided course in seven lessons, progress remembered", lessons_open},
    {"Quiz", "interview prep: shapes, strides, views, GQA, KV cache", quiz_open},
    {"Explore", "inspect any element: its offset and the stride arithmetic", explore_open},
    {"Variants", "MHA | GQA | MQA side by side: who shares which K/V head", variants_open},
    {"KV calculator", "KV-cache bytes of real models: MHA vs GQA vs MQA", kvcalc_open},
    {"Help", "every key, in one table", help_open}, /* stays last */
};
#define HOME_N ((int)(sizeof home_entries / sizeof *home_entries))

typedef struct Home {
    int sel;
} Home;

static void home_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Home *h = s->st;
    if (app_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "mhaviz", ST_TITLE);
    canvas_text(c, 8, 0, "multi-head attention, the way it runs in memory", ST_BOLD);
    char line[160];
    cfg_line(line, sizeof line, &ui->cfg);
    canvas_text(c, 1, 2, "config:", ST_DIM);
    canvas_text(c, 9, 2, line, ST_NORMAL);
    for (int i = 0; i < HOME_N; i++) {
        int y = 4 + 2 * i;
        Style st = i == h->sel ? ST_CURSOR : ST_NORMAL;
        canvas_fill(c, 2, y, 18, 1, ' ', st);
        canvas_printf(c, 3, y, st, "%d  %s", i + 1, home_entries[i].label);
        canvas_text(c, 22, y, home_entries[i].about, ST_DIM);
    }
    app_draw_status(c, ui, "Up/Down choose, Enter open, c config, ? keys, q quit");
}

static int home_key(Screen *s, Ui *ui, int key)
{
    Home *h = s->st;
    Action a = app_action(KC_HOME, key);
    switch (a) {
    case ACT_UP:
        h->sel = (h->sel + HOME_N - 1) % HOME_N;
        return UI_REDRAW;
    case ACT_DOWN:
        h->sel = (h->sel + 1) % HOME_N;
        return UI_REDRAW;
    case ACT_DIGIT:
        if (key - '1' >= HOME_N) return UI_NONE;
        h->sel = key - '1';
        /* fall through */
    case ACT_OPEN:
        ui->push = home_entries[h->sel].open(ui);
        break;
    case ACT_BACK:
        return UI_BACK;
    default:
        return app_shared_action(ui, a);
    }
    if (!ui->push) {
        snprintf(ui->status, sizeof ui->status, "out of memory");
        return UI_REDRAW;
    }
    return UI_PUSH | UI_REDRAW;
}

int app_shared_action(Ui *ui, Action a)
{
    switch (a) {
    case ACT_CONFIG:
        ui->push = form_open(ui);
        break;
    case ACT_HELP:
        ui->push = help_open(ui);
        break;
    case ACT_HEADS:
    case ACT_KV_HEADS:
    case ACT_SEQ:
    case ACT_CAUSAL:
    case ACT_SEED:
        return app_quick_config(ui, a);
    default:
        return UI_NONE;
    }
    if (!ui->push) {
        snprintf(ui->status, sizeof ui->status, "out of memory");
        return UI_REDRAW;
    }
    return UI_PUSH | UI_REDRAW;
}

Screen *home_open(Ui *ui)
{
    (void)ui;
    Screen *s = app_screen_new("Home", sizeof(Home));
    if (!s) return NULL;
    s->draw = home_draw;
    s->key = home_key;
    return s;
}

/* ---- options and the commands ----------------------------------------------- */

static const char app_step_help[] =
    "  --step NAME|N        start at this step (0-10, or input, project, split, ...)\n";
static const char app_flags_help[] =
    "  --color=WHEN         auto (default), always or never; NO_COLOR=1 also means never\n"
    "  --ascii              ASCII glyphs (automatic when the locale is not UTF-8)\n"
    "  --no-animation       no animations (a toggles them)\n"
    "  --autoplay SECONDS   presenter mode: the next step every SECONDS (p toggles)\n"
    "  --no-save            do not write progress or scores\n";

int app_setup(Ui *ui, AppOptions *o, int argc, char **argv, int first, int allow_step,
              const char *usage)
{
    memset(ui, 0, sizeof *ui);
    memset(o, 0, sizeof *o);
    ui->cfg = mha_config_default();
    ui->animation = 1;
    ui->anim_speed = 1.0;
    o->color = COLOR_AUTO;
    int kv_set = 0;
    char err[200];
    for (int i = first; i < argc; i++) {
        const char *val = NULL;
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\nOptions:\n%s%s\nConfiguration:\n%s", usage, allow_step ? app_step_help : "",
                   app_flags_help, cli_config_help);
            return 0;
        }
        r = cli_config_flag(argc, argv, &i, &ui->cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r > 0) continue;
        if ((r = cli_match(argc, argv, &i, "--color", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (!strcmp(val, "auto"))
                o->color = COLOR_AUTO;
            else if (!strcmp(val, "always"))
                o->color = COLOR_ALWAYS;
            else if (!strcmp(val, "never"))
                o->color = COLOR_NEVER;
            else
                return cli_usage("--color: '%.40s' is not auto, always or never", val);
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--ascii", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            o->ascii = 1;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--no-animation", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            ui->animation = 0;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--no-save", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            ui->no_save = 1;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--autoplay", &val, err, sizeof err)) != 0) {
            long v;
            if (r < 0 || cli_long("--autoplay", val, 1, 3600, &v, err, sizeof err) < 0)
                return cli_usage("%s", err);
            ui->autoplay = (double)v;
            continue;
        }
        if (allow_step && (r = cli_match(argc, argv, &i, "--step", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            o->step = mha_step_index(val);
            if (o->step < 0)
                return cli_usage("--step: unknown step '%.40s' (0-%d or a name such as split)", val,
                                 MS_COUNT - 1);
            continue;
        }
        return cli_usage("unknown option '%.60s' (try --help)", argv[i]);
    }
    if (!kv_set) ui->cfg.kv_heads = ui->cfg.heads;
    if (mha_config_check(&ui->cfg, err, sizeof err) < 0) return cli_usage("%s", err);
    ui->mha = mha_run(&ui->cfg, err, sizeof err);
    if (!ui->mha) {
        fprintf(stderr, "mhaviz: %s\n", err);
        return 1;
    }
    return -1;
}

void app_ui_free(Ui *ui)
{
    mha_free(ui->mha);
    ui->mha = NULL;
}

int app_run(int argc, char **argv, int walk)
{
    Ui ui;
    AppOptions o;
    const char *usage = walk ? "usage: mhaviz walk [OPTIONS]\n\nThe walkthrough: one step of "
                               "multi-head attention per screen, as it runs in memory.\n"
                             : "usage: mhaviz [OPTIONS]\n\nThe home menu of the interactive "
                               "program (mhaviz --help lists the commands).\n";
    int rc = app_setup(&ui, &o, argc, argv, 1, walk, usage);
    if (rc >= 0) {
        app_ui_free(&ui);
        return rc;
    }
    Screen *s = walk ? walk_open_at(&ui, o.step) : home_open(&ui);
    rc = s ? tui_run(&ui, s, o.color, o.ascii) : 1;
    app_ui_free(&ui);
    if (rc > 128) { /* ended by a signal, terminal restored: die of it, as the shell expects */
        signal(rc - 128, SIG_DFL);
        raise(rc - 128);
    }
    return rc;
}

int cmd_walk(int argc, char **argv)
{
    return app_run(argc, argv, 1);
}

int cmd_home(int argc, char **argv)
{
    return app_run(argc, argv, 0);
}
