/* keys.h - the one key table of the interactive program, and what is
 * generated from it: the `?` help (help.c) and every screen's hint line.
 * The screen stack looks a key up in it where it routes the key
 * (screenstack_action, ui/screenstack.c) and hands the screen its Action:
 * screens switch on Actions, never on raw keys.
 */
#ifndef MHAVIZ_KEYS_H
#define MHAVIZ_KEYS_H
#include <stddef.h>

/* A key: a Unicode code point or one of these (ui/tui.c turns curses' into
 * them), so nothing past the backend needs <curses.h>. */
enum {
    UI_K_BASE = 0x110000, /* above every code point */
    UI_K_UP,
    UI_K_DOWN,
    UI_K_LEFT,
    UI_K_RIGHT,
    UI_K_PGUP,
    UI_K_PGDN,
    UI_K_HOME,
    UI_K_END,
    UI_K_ENTER,
    UI_K_BACKSPACE,
    UI_K_ESC,
    UI_K_TAB,
    UI_K_BTAB,
    UI_K_RESIZE,
    UI_K_MOUSE, /* mouse: position in Ui.mouse_x / mouse_y */
    UI_K_CTRL_L,
    UI_K_DELETE
};

/* Where a binding applies (a bit set: one line may serve several screens).
 * The `?` help has one section per bit, in this order. */
enum {
    KC_WALK = 1 << 0,           /* the walkthrough */
    KC_INSPECT = 1 << 1,        /* walkthrough in inspect mode: looked up before KC_WALK */
    KC_HOME = 1 << 2,           /* the home menu */
    KC_FORM = 1 << 3,           /* the configuration form */
    KC_LESSONS = 1 << 4,        /* the lesson menu (lessons.c) */
    KC_PAGE = 1 << 5,           /* a lesson page */
    KC_VARIANTS = 1 << 6,       /* MHA | GQA | MQA */
    KC_KV = 1 << 7,             /* the KV-cache calculator */
    KC_QUIZ_PICK = 1 << 8,      /* the quiz's topic and length picker (quiz_screen.c) */
    KC_QUIZ_ASK = 1 << 9,       /* a quiz question: other printable keys type the answer */
    KC_QUIZ_FEEDBACK = 1 << 10, /* the feedback after an answer */
    KC_QUIZ_SUMMARY = 1 << 11,  /* the quiz's summary */
    KC_HELP = 1 << 12,          /* the help screen */
    KC_PAGE_TYPE = 1 << 13,     /* a lesson page's @expect: other printable keys type */
    KC_DECODE = 1 << 14,        /* the decode screen (ui/decode.c) */
    KC_PLAY = 1 << 15,          /* the stride playground (ui/play.c): other keys type */
    KC_FLASH = 1 << 16,         /* the Tiles screen (ui/flash_screen.c) */
    KC_EDIT = 1 << 17,          /* a text field (ui/field.c): the playground, a typed answer */
    KC_COUNT = 18,              /* bits in use */
    KC_ALL = (1 << 18) - 1      /* every screen: one "Everywhere" section */
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
    ACT_PANE,     /* lesson page: text or picture */
    ACT_RELOAD,   /* lesson page: reread the file */
    ACT_GQA_NEXT, /* variants: the GQA column's next kv_heads */
    ACT_GQA_PREV,
    ACT_DTYPE, /* KV calculator */
    ACT_CONTEXT_UP,
    ACT_CONTEXT_DOWN,
    ACT_BATCH_UP,
    ACT_BATCH_DOWN,
    ACT_PAGE_UP, /* quiz: scroll a page */
    ACT_PAGE_DOWN,
    ACT_TIMED,     /* quiz picker: timed on/off */
    ACT_LAYOUT,    /* decode: the cache layout, HF or Meta */
    ACT_FAILURE,   /* walkthrough: the next failure picture */
    ACT_BLANK,     /* walkthrough: blank the screen while presenting */
    ACT_GOTO,      /* walkthrough: g, then a step number and Enter */
    ACT_COMPARE,   /* walkthrough: a second configuration beside the first */
    ACT_LARGE,     /* walkthrough: large print for a projector on/off */
    ACT_HOME_LINE, /* a text field: line editing (Home/End, Ctrl-A/E/K/U/W), completion */
    ACT_END_LINE,
    ACT_KILL_END,
    ACT_KILL_START,
    ACT_KILL_WORD,
    ACT_DELETE, /* a text field: the character under the cursor */
    ACT_COMPLETE,
    ACT_BLOCK_Q, /* tiles: the next block_q / block_k */
    ACT_BLOCK_K,
    ACT_MLA,    /* decode, variants: MLA's latent cache strip beside the K/V it replaces */
    ACT_SCROLL, /* lesson page: the rows a picture hides into view (and back) */
    ACT_SCROLL_BACK,
    ACT_VALUES, /* lesson page: the heatmaps' weights as numbers */
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
extern const KeyBinding keys_table[];

/* The name of the first key bound to action a in ctx ("Down"), for a
 * picture's note that names it; NULL when none is. */
const char *keys_name(unsigned ctx, Action a);

/* The one-line key hint of context ctx (one KC_* bit), from keys_table: each
 * group as "Up/Down scroll" (the names of its keys bound in ctx joined by
 * '/', then its help), groups apart by two spaces.  terse: a group's
 * one-character names after its first are left out.  Returns the length
 * the whole hint needs (snprintf-like; buf holds at most n - 1 of it). */
size_t keys_hint(unsigned ctx, int terse, char *buf, size_t n);

/* A short hint of context ctx made of the groups picked, in pick order: the
 * first group whose first binding has action picks[i] and whose keys are
 * bound in ctx, as "Space/PgDn next page": at most maxnames of its key
 * names, then its help up to the first " (" (the `?` screen shows the whole
 * help).  Groups apart by two spaces.  Returns the length the hint needs
 * (snprintf-like). */
size_t keys_hint_pick(unsigned ctx, const Action *picks, int npicks, int maxnames, char *buf,
                      size_t n);

/* Line i of the generated help as plain text (section titles, blank lines,
 * "  keys   what they do"), written into buf; NULL past the last line.
 * Sections: "Everywhere" (bindings of KC_ALL), then one per KC_* bit with
 * every binding of that bit, each ended by a blank line. */
const char *keys_help_line(int i, char *buf, size_t n);

/* The index of the help line that is the title of ctx's section (one KC_*
 * bit, or KC_ALL for "Everywhere"); -1 if ctx has no section. */
int keys_help_section(unsigned ctx);

/* Help line i: a section title (1, its text in *what), a blank line (0) or
 * a group of keys (2: names joined in keys, its help in *what).  Section 0
 * is "Everywhere" (bindings of exactly KC_ALL), section 1 + b the bindings
 * with bit b; sec, if not NULL, gets line i's section.  -1 past the end. */
int keys_help_entry(int i, char *keys, size_t kn, const char **what, int *sec);

#endif
