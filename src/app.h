/* app.h - the interactive program around the screens: its options, the one
 * key table (the `?` help is generated from it), the home menu, the help
 * screen and the configuration form.  No terminal here: tui.c runs the loop,
 * these only build Screens (ui.h) that draw on a Canvas and map keys to flags.
 */
#ifndef MHAVIZ_APP_H
#define MHAVIZ_APP_H

#include <stddef.h>

#include "tui.h"
#include "ui.h"

/* Where a binding applies (a bit set: one line may serve several screens).
 * The `?` help has one section per bit, in this order. */
enum {
    KC_WALK = 1 << 0,           /* the walkthrough */
    KC_INSPECT = 1 << 1,        /* walkthrough in inspect mode: looked up before KC_WALK */
    KC_HOME = 1 << 2,           /* the home menu */
    KC_FORM = 1 << 3,           /* the configuration form */
    KC_LESSONS = 1 << 4,        /* the lesson menu (lessonui.c) */
    KC_PAGE = 1 << 5,           /* a lesson page */
    KC_VARIANTS = 1 << 6,       /* MHA | GQA | MQA */
    KC_KV = 1 << 7,             /* the KV-cache calculator */
    KC_QUIZ_PICK = 1 << 8,      /* the quiz's topic and length picker (quiz_screen.c) */
    KC_QUIZ_ASK = 1 << 9,       /* a quiz question: other printable keys type the answer */
    KC_QUIZ_FEEDBACK = 1 << 10, /* the feedback after an answer */
    KC_QUIZ_SUMMARY = 1 << 11,  /* the quiz's summary */
    KC_HELP = 1 << 12,          /* the help screen */
    KC_COUNT = 13,              /* bits in use */
    KC_ALL = (1 << 13) - 1      /* every screen: one "Everywhere" section */
};

/* What a key does; screens switch on these, never on raw keys. */
typedef enum {
    ACT_NONE,
    ACT_NEXT,
    ACT_PREV,
    ACT_FIRST,
    ACT_LAST,
    ACT_DIGIT,
    ACT_AUTOPLAY,
    ACT_FASTER,
    ACT_SLOWER,
    ACT_ANIM,
    ACT_INSPECT,
    ACT_SINGLE,
    ACT_CONFIG,
    ACT_HEADS,
    ACT_KV_HEADS,
    ACT_SEQ,
    ACT_CAUSAL,
    ACT_SEED,
    ACT_UP,
    ACT_DOWN,
    ACT_LEFT,
    ACT_RIGHT, /* cursor, menu, form field */
    ACT_OPEN,
    ACT_APPLY,
    ACT_INC,
    ACT_DEC,
    ACT_ERASE,
    ACT_TOGGLE,
    ACT_HELP,
    ACT_BACK,
    ACT_REDRAW,
    ACT_PANE,        /* lesson page: text or picture */
    ACT_RELOAD,      /* lesson page: reread the file */
    ACT_GQA_NEXT,    /* variants: the GQA column's next kv_heads */
    ACT_GQA_PREV,
    ACT_DTYPE,       /* KV calculator */
    ACT_CONTEXT_UP,
    ACT_CONTEXT_DOWN,
    ACT_BATCH_UP,
    ACT_BATCH_DOWN,
    ACT_PAGE_UP,     /* quiz: scroll a page */
    ACT_PAGE_DOWN,
    ACT_TIMED,       /* quiz picker: timed on/off */
    ACT_COUNT
} Action;

typedef struct KeyBinding {
    unsigned ctx;  /* KC_* bits */
    int key, last; /* a code point or UI_K_*; last != 0: the range key..last */
    Action action;
    const char *name; /* as the help shows it: "Space", "PgDn", "0-9" */
    const char *help; /* starts a line of the ? screen; NULL: adds this key to the line above */
} KeyBinding;

/* The key table, ended by an entry with key 0. */
extern const KeyBinding app_keys[];

/* The action of key in a context (the first binding whose ctx has a bit of
 * ctx and whose key or range holds key), or ACT_NONE. */
Action app_action(unsigned ctx, int key);

/* The one-line key hint of context ctx (one KC_* bit), from app_keys: each
 * group as "Up/Down scroll" (the names of its keys bound in ctx joined by
 * '/', then its help), groups apart by two spaces.  terse: a group's
 * one-character names after its first are left out.  Returns the length
 * the whole hint needs (snprintf-like; buf holds at most n - 1 of it). */
size_t app_hint(unsigned ctx, int terse, char *buf, size_t n);

/* Options of the interactive commands (`mhaviz`, `mhaviz walk`). */
typedef struct AppOptions {
    ColorMode color;
    int ascii; /* --ascii */
    int step;  /* --step NAME|N for walk; 0 by default */
} AppOptions;

/* Fills ui with defaults (config of mha_config_default, animation on, speed 1)
 * and parses argv[first..argc-1]: the shared configuration flags, --color=,
 * --ascii, --no-animation, --autoplay SECONDS, --no-save, and --step when
 * allow_step.  Runs the configuration (ui->mha, freed by app_ui_free).
 * Returns -1 to go on, or an exit code (0 after --help, 2 after printing a
 * one-line "mhaviz: --flag ..." error). */
int app_setup(Ui *ui, AppOptions *o, int argc, char **argv, int first, int allow_step,
              const char *usage);
void app_ui_free(Ui *ui);

/* "enlarge to 80x24 (now WxH)" on the whole canvas; returns 1 if it drew it
 * (the canvas is smaller than 80x24), 0 if the caller should draw normally. */
int app_draw_enlarge(Canvas *c);

/* The bottom status line: ui->status if set, else hint.  Row c->h - 1. */
void app_draw_status(Canvas *c, const Ui *ui, const char *hint);

/* A new Screen with a zeroed state of st_size bytes in s->st, and a free()
 * that frees both; the caller sets draw/key/tick (or replaces free() when the
 * state owns more).  NULL when out of memory.  app_screen_free is that
 * default free(), for screens that release their own parts first. */
Screen *app_screen_new(const char *title, size_t st_size);
void app_screen_free(Screen *s);

/* Screen constructors: a new Screen the caller owns (push it with UI_PUSH or
 * pass it to tui_run; its free() releases it), or NULL when out of memory.
 * The help screen is generated from app_keys: every context's keys, one
 * section each.  help_open shows it from the top, help_open_at from the
 * section of ctx (one KC_* bit: the screen it was opened from). */
Screen *help_open(Ui *ui);
Screen *help_open_at(Ui *ui, unsigned ctx);
/* The configuration form (seq, d_model, heads, kv_heads, seed, causal):
 * Enter applies through ui_set_config, an invalid draft is refused in the
 * status line and the form stays open. */
Screen *form_open(Ui *ui);
/* The home menu: one entry per screen that exists. */
Screen *home_open(Ui *ui);

/* The walkthrough at step (walk.c). */
Screen *walk_open_at(Ui *ui, int step);
Screen *walk_open(Ui *ui); /* at step 0: the home menu entry */
Screen *explore_open(Ui *ui); /* the walkthrough at step 3 with the inspect cursor on */

/* Quick configuration keys (H, K, S, C, R), shared by home and walk: change
 * one field of ui->cfg to its next sensible value through ui_set_config.
 * Returns UI_REDRAW (applied or refused: the status line says which). */
int app_quick_config(Ui *ui, Action a);

/* The actions the home menu and the walkthrough share: the configuration
 * form (c), the help (?), and the quick configuration keys.  UI_* flags (a
 * pushed screen in ui->push), or UI_NONE when a is not one of them. */
int app_shared_action(Ui *ui, Action a);

/* Line i of the generated help as plain text (section titles, blank lines,
 * "  keys   what they do"), written into buf; NULL past the last line.
 * Sections: "Everywhere" (bindings of KC_ALL), then one per KC_* bit with
 * every binding of that bit, each ended by a blank line. */
const char *app_help_line(int i, char *buf, size_t n);

/* The index of the help line that is the title of ctx's section (one KC_*
 * bit, or KC_ALL for "Everywhere"); -1 if ctx has no section. */
int app_help_section(unsigned ctx);

/* `mhaviz` (home) and `mhaviz walk`: the interactive commands. */
int app_run(int argc, char **argv, int walk);

#endif
