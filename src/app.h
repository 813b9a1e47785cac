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

/* Where a binding applies (a bit set: one line may serve several screens). */
enum {
    KC_WALK = 1,    /* the walkthrough */
    KC_INSPECT = 2, /* walkthrough in inspect mode: looked up before KC_WALK */
    KC_HOME = 4,    /* the home menu */
    KC_FORM = 8,    /* the configuration form */
    KC_HELP = 16,   /* the help screen */
    KC_ALL = 31
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

/* Screen constructors: a new Screen the caller owns (push it with UI_PUSH or
 * pass it to tui_run; its free() releases it), or NULL when out of memory.
 * The help screen is generated from app_keys. */
Screen *help_open(Ui *ui);
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

/* Line i of the generated help as plain text (section titles, blank lines,
 * "  keys   what they do"), written into buf; NULL past the last line. */
const char *app_help_line(int i, char *buf, size_t n);

/* `mhaviz` (home) and `mhaviz walk`: the interactive commands. */
int app_run(int argc, char **argv, int walk);

#endif
