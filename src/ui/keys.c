/* keys.c - the key table of every screen, and the help and hint lines
 * generated from it. */
#include "ui/keys.h"

#include <stdio.h>
#include <string.h>

/* ---- the key table ------------------------------------------------------- */

/* One line per key, for every screen of the program (the screen stack looks
 * every screen's keys up here, by its KC_* contexts, ScreenOps.keys; no
 * other key table exists).
 * A line with help starts a group; the lines after it with help NULL add
 * their key names to that group.  The `?` screen lists each context's groups
 * under its title, and a screen's hint line (keys_hint) joins them.  No key is
 * bound twice in one context (tests/check_app.c); the walkthrough in inspect
 * mode looks KC_INSPECT up before KC_WALK (walk_keys_now), so inspect
 * mode's h j k l win there. */
const KeyBinding keys_table[] = {
    /* everywhere */
    {KC_ALL, UI_K_CTRL_L, 0, ACT_REDRAW, "Ctrl-L", "redraw the whole screen"},

    /* the walkthrough */
    {KC_WALK, ' ', 0, ACT_NEXT, "Space", "next (step)"},
    {KC_WALK, UI_K_RIGHT, 0, ACT_NEXT, "Right", NULL},
    {KC_WALK, 'l', 0, ACT_NEXT, "l", NULL},
    {KC_WALK, 'j', 0, ACT_NEXT, "j", NULL},
    {KC_WALK, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_WALK, UI_K_ENTER, 0, ACT_NEXT, "Enter", NULL},
    {KC_WALK, UI_K_LEFT, 0, ACT_PREV, "Left", "back (the previous step)"},
    {KC_WALK, 'h', 0, ACT_PREV, "h", NULL},
    {KC_WALK, 'k', 0, ACT_PREV, "k", NULL},
    {KC_WALK, UI_K_PGUP, 0, ACT_PREV, "PgUp", NULL},
    {KC_WALK, UI_K_BACKSPACE, 0, ACT_PREV, "Backspace", NULL},
    {KC_WALK, UI_K_HOME, 0, ACT_FIRST, "Home", "first step"},
    {KC_WALK, 'g', 0, ACT_GOTO, "g", "go to step N: g, N, Enter (g Enter: the first)"},
    {KC_WALK, 'G', 0, ACT_LAST, "G", "last step"},
    {KC_WALK, UI_K_END, 0, ACT_LAST, "End", NULL},
    {KC_WALK, '0', '9', ACT_DIGIT, "0-9 Enter", "jump to step N"},
    {KC_WALK, 'p', 0, ACT_AUTOPLAY, "p", "stop (autoplay on/off: presenter mode)"},
    {KC_WALK, '+', 0, ACT_FASTER, "+", "speed (faster or slower autoplay and animations)"},
    {KC_WALK, '-', 0, ACT_SLOWER, "-", NULL},
    {KC_WALK, '=', 0, ACT_FASTER, "=", NULL},
    {KC_WALK, 'a', 0, ACT_ANIM, "a", "animations on/off"},
    {KC_WALK, 'i', 0, ACT_INSPECT, "i", "inspect (a cursor on the logical view)"},
    {KC_WALK, UI_K_MOUSE, 0, ACT_OPEN, "click", "inspect the element clicked"},
    {KC_WALK, 'm', 0, ACT_SINGLE, "m", "softmax: one big head beside the heads"},
    {KC_WALK, 'v', 0, ACT_FAILURE, "v", "failure pictures: no transpose, no scale"},
    {KC_WALK, 'b', 0, ACT_BLANK, "b", "blank the screen; any key brings it back"},
    {KC_WALK, 'x', 0, ACT_COMPARE, "x", "compare with a second configuration (--compare)"},
    {KC_WALK, 'L', 0, ACT_LARGE, "L", "large print for a projector on/off (--large)"},

    /* inspect mode: the arrows move the cursor instead of the step */
    {KC_INSPECT, UI_K_LEFT, 0, ACT_LEFT, "Left", "move (the cursor)"},
    {KC_INSPECT, UI_K_RIGHT, 0, ACT_RIGHT, "Right", NULL},
    {KC_INSPECT, UI_K_UP, 0, ACT_UP, "Up", NULL},
    {KC_INSPECT, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_INSPECT, 'h', 0, ACT_LEFT, "h", NULL},
    {KC_INSPECT, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_INSPECT, 'k', 0, ACT_UP, "k", NULL},
    {KC_INSPECT, 'l', 0, ACT_RIGHT, "l", NULL},
    {KC_INSPECT, 'i', 0, ACT_INSPECT, "i", "leave (inspect mode)"},
    {KC_INSPECT, UI_K_ESC, 0, ACT_INSPECT, "Esc", NULL},

    /* the home menu (home.c); a hint line shows each help up to " (" */
    {KC_HOME, UI_K_UP, 0, ACT_UP, "Up", "choose (the previous or next entry)"},
    {KC_HOME, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_HOME, 'k', 0, ACT_UP, "k", NULL},
    {KC_HOME, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_HOME, UI_K_BTAB, 0, ACT_UP, "Shift-Tab", NULL},
    {KC_HOME, UI_K_TAB, 0, ACT_DOWN, "Tab", NULL},
    {KC_HOME, UI_K_ENTER, 0, ACT_OPEN, "Enter", "open (the entry; 1-9: entry N, 0: entry 10)"},
    {KC_HOME, ' ', 0, ACT_OPEN, "Space", NULL},
    {KC_HOME, UI_K_RIGHT, 0, ACT_OPEN, "Right", NULL},
    {KC_HOME, 'l', 0, ACT_OPEN, "l", NULL},
    {KC_HOME, '1', '9', ACT_DIGIT, "1-9", NULL},
    {KC_HOME, '0', 0, ACT_DIGIT, "0", NULL},

    /* the walkthrough and the home menu */
    {KC_WALK | KC_HOME, 'c', 0, ACT_CONFIG, "c", "config (the configuration form)"},
    {KC_WALK | KC_HOME, 'H', 0, ACT_HEADS, "H", "next number of heads (divides d_model)"},
    {KC_WALK | KC_HOME, 'K', 0, ACT_KV_HEADS, "K", "next number of kv heads: MHA, GQA, MQA"},
    {KC_WALK | KC_HOME, 'S', 0, ACT_SEQ, "S", "one more token (2 to 8, then 2)"},
    {KC_WALK | KC_HOME, 'C', 0, ACT_CAUSAL, "C", "causal mask on/off"},
    {KC_WALK | KC_HOME, 'R', 0, ACT_SEED, "R", "next seed (new numbers)"},
    {KC_WALK | KC_HOME, '?', 0, ACT_HELP, "?", "keys (this help)"},
    {KC_HOME, 'q', 0, ACT_BACK, "q", "quit"},
    {KC_HOME, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},
    {KC_WALK, 'q', 0, ACT_BACK, "q", "back (quit from the first screen)"},
    {KC_WALK, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},

    /* the configuration form (form.c) */
    {KC_FORM, UI_K_UP, 0, ACT_UP, "Up", "field (the previous or next one)"},
    {KC_FORM, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_FORM, 'k', 0, ACT_UP, "k", NULL},
    {KC_FORM, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_FORM, UI_K_BTAB, 0, ACT_UP, "Shift-Tab", NULL},
    {KC_FORM, UI_K_TAB, 0, ACT_DOWN, "Tab", NULL},
    {KC_FORM, UI_K_RIGHT, 0, ACT_INC, "Right", "change (increase or decrease the value)"},
    {KC_FORM, UI_K_LEFT, 0, ACT_DEC, "Left", NULL},
    {KC_FORM, 'l', 0, ACT_INC, "l", NULL},
    {KC_FORM, 'h', 0, ACT_DEC, "h", NULL},
    {KC_FORM, '+', 0, ACT_INC, "+", NULL},
    {KC_FORM, '-', 0, ACT_DEC, "-", NULL},
    {KC_FORM, '0', '9', ACT_DIGIT, "0-9", "type (the value; Backspace erases)"},
    {KC_FORM, UI_K_BACKSPACE, 0, ACT_ERASE, "Backspace", NULL},
    {KC_FORM, ' ', 0, ACT_TOGGLE, "Space", "causal (the mask on/off)"},
    {KC_FORM, UI_K_ENTER, 0, ACT_APPLY, "Enter", "apply (refused with the reason if invalid)"},
    {KC_FORM, '?', 0, ACT_HELP, "?", "keys (this help)"},
    {KC_FORM, UI_K_ESC, 0, ACT_BACK, "Esc", "cancel"},
    {KC_FORM, 'q', 0, ACT_BACK, "q", NULL},

    /* the lesson menu (lessons.c); a hint line shows each help up to " (" */
    {KC_LESSONS, UI_K_UP, 0, ACT_UP, "Up", "choose (the previous or next lesson)"},
    {KC_LESSONS, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_LESSONS, 'k', 0, ACT_UP, "k", NULL},
    {KC_LESSONS, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_LESSONS, UI_K_ENTER, 0, ACT_OPEN, "Enter", "open (0: lesson 10; first unfinished page)"},
    {KC_LESSONS, ' ', 0, ACT_OPEN, "Space", NULL},
    {KC_LESSONS, UI_K_RIGHT, 0, ACT_OPEN, "Right", NULL},
    {KC_LESSONS, '1', '9', ACT_DIGIT, "1-9", NULL},
    {KC_LESSONS, '0', 0, ACT_DIGIT, "0", NULL},

    /* a lesson page (page_screen.c) */
    {KC_PAGE, ' ', 0, ACT_NEXT, "Space", "next (answer first; last page: next lesson)"},
    {KC_PAGE, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_PAGE, UI_K_RIGHT, 0, ACT_NEXT, "Right", NULL},
    {KC_PAGE, UI_K_ENTER, 0, ACT_NEXT, "Enter", NULL},
    {KC_PAGE, 'l', 0, ACT_NEXT, "l", NULL},
    {KC_PAGE, UI_K_PGUP, 0, ACT_PREV, "PgUp", "previous (page)"},
    {KC_PAGE, UI_K_LEFT, 0, ACT_PREV, "Left", NULL},
    {KC_PAGE, UI_K_BACKSPACE, 0, ACT_PREV, "Backspace", NULL},
    {KC_PAGE, 'h', 0, ACT_PREV, "h", NULL},
    {KC_PAGE, UI_K_HOME, 0, ACT_FIRST, "Home", "first or last page"},
    {KC_PAGE, UI_K_END, 0, ACT_LAST, "End", NULL},
    {KC_PAGE, 'g', 0, ACT_FIRST, "g", NULL},
    {KC_PAGE, 'G', 0, ACT_LAST, "G", NULL},
    {KC_PAGE, UI_K_TAB, 0, ACT_PANE, "Tab", "text/picture (below 115 columns)"},
    {KC_PAGE, 'r', 0, ACT_RELOAD, "r", "reload (the lesson file, from disk)"},
    {KC_PAGE, 'i', 0, ACT_INSPECT, "i", "inspect (a cursor; the arrows move it)"},
    {KC_PAGE, 'H', 0, ACT_HEADS, "H", "heads (next number, on an exercise page)"},
    {KC_PAGE, 'K', 0, ACT_KV_HEADS, "K", "kv heads (next number, on an exercise page)"},
    {KC_PAGE, 'S', 0, ACT_SEQ, "S", "seq (one more token, on an exercise page)"},
    {KC_PAGE, '1', '4', ACT_DIGIT, "1-4", "predict (what the line does, before it runs)"},
    {KC_PAGE, UI_K_DOWN, 0, ACT_SCROLL, "Down", "scroll (the rows a picture hides into view)"},
    {KC_PAGE, 'j', 0, ACT_SCROLL, "j", NULL},
    {KC_PAGE, UI_K_UP, 0, ACT_SCROLL_BACK, "Up", "scroll back (up)"},
    {KC_PAGE, 'k', 0, ACT_SCROLL_BACK, "k", NULL},
    {KC_PAGE, 'n', 0, ACT_VALUES, "n", "numbers (heatmap weights written, on/off)"},

    /* a lesson page's typed answer (@expect): other printable keys type it */
    {KC_PAGE_TYPE, UI_K_ENTER, 0, ACT_APPLY, "Enter", "check (the answer; empty: show it)"},
    {KC_PAGE_TYPE, UI_K_BACKSPACE, 0, ACT_ERASE, "Backspace", "erase"},
    {KC_PAGE_TYPE, UI_K_PGDN, 0, ACT_NEXT, "PgDn", "next (Space too, before typing)"},
    {KC_PAGE_TYPE, UI_K_ESC, 0, ACT_BACK, "Esc", "back (to the lessons)"},

    /* MHA | GQA | MQA */
    {KC_VARIANTS, 'K', 0, ACT_GQA_NEXT, "K", "next GQA kv_heads (the GQA column)"},
    {KC_VARIANTS, UI_K_RIGHT, 0, ACT_GQA_NEXT, "Right", NULL},
    {KC_VARIANTS, UI_K_LEFT, 0, ACT_GQA_PREV, "Left", "previous GQA kv_heads"},
    {KC_VARIANTS, 'H', 0, ACT_HEADS, "H", "heads (the next number of query heads)"},
    {KC_VARIANTS, 'M', 0, ACT_MLA, "M", "MLA cache beside K/V"},

    /* the KV calculator */
    {KC_KV, UI_K_UP, 0, ACT_UP, "Up", "model (the previous or next one)"},
    {KC_KV, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    {KC_KV, 'k', 0, ACT_UP, "k", NULL},
    {KC_KV, 'j', 0, ACT_DOWN, "j", NULL},
    {KC_KV, 'd', 0, ACT_DTYPE, "d", "dtype (next: fp32 fp16 bf16 fp8 int4)"},
    {KC_KV, UI_K_RIGHT, 0, ACT_DTYPE, "Right", NULL},
    {KC_KV, '+', 0, ACT_CONTEXT_UP, "+", "context (double or halve it)"},
    {KC_KV, '-', 0, ACT_CONTEXT_DOWN, "-", NULL},
    {KC_KV, '=', 0, ACT_CONTEXT_UP, "=", NULL},
    {KC_KV, 'B', 0, ACT_BATCH_UP, "B", "batch (double or halve it)"},
    {KC_KV, 'b', 0, ACT_BATCH_DOWN, "b", NULL},

    /* the four lesson screens */
    {KC_LESSONS | KC_PAGE | KC_VARIANTS | KC_KV, '?', 0, ACT_HELP, "?", "keys (this help)"},
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

    /* the decode screen */
    {KC_DECODE, ' ', 0, ACT_NEXT, "Space", "next token"},
    {KC_DECODE, UI_K_RIGHT, 0, ACT_NEXT, "Right", NULL},
    {KC_DECODE, UI_K_ENTER, 0, ACT_NEXT, "Enter", NULL},
    {KC_DECODE, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_DECODE, UI_K_LEFT, 0, ACT_PREV, "Left", "back (the previous token: the cache one shorter)"},
    {KC_DECODE, UI_K_PGUP, 0, ACT_PREV, "PgUp", NULL},
    {KC_DECODE, 'g', 0, ACT_FIRST, "g", "prefill"},
    {KC_DECODE, UI_K_HOME, 0, ACT_FIRST, "Home", NULL},
    {KC_DECODE, 'K', 0, ACT_KV_HEADS, "K", "MHA/GQA/MQA"},
    {KC_DECODE, 'L', 0, ACT_LAYOUT, "L", "layout HF/Meta"},
    {KC_DECODE, 'M', 0, ACT_MLA, "M", "MLA cache beside K/V"},
    {KC_DECODE, '?', 0, ACT_HELP, "?", "keys (this help)"},
    {KC_DECODE, 'q', 0, ACT_BACK, "q", "back"},
    {KC_DECODE, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},

    /* the Tiles screen (ui/flash_screen.c) */
    {KC_FLASH, ' ', 0, ACT_NEXT, "Space", "next tile"},
    {KC_FLASH, UI_K_RIGHT, 0, ACT_NEXT, "Right", NULL},
    {KC_FLASH, UI_K_ENTER, 0, ACT_NEXT, "Enter", NULL},
    {KC_FLASH, UI_K_PGDN, 0, ACT_NEXT, "PgDn", NULL},
    {KC_FLASH, UI_K_LEFT, 0, ACT_PREV, "Left", "previous tile"},
    {KC_FLASH, UI_K_PGUP, 0, ACT_PREV, "PgUp", NULL},
    {KC_FLASH, UI_K_BACKSPACE, 0, ACT_PREV, "Backspace", NULL},
    {KC_FLASH, 'g', 0, ACT_FIRST, "g", "first tile"},
    {KC_FLASH, UI_K_HOME, 0, ACT_FIRST, "Home", NULL},
    {KC_FLASH, 'G', 0, ACT_LAST, "G", "the end of the loop"},
    {KC_FLASH, UI_K_END, 0, ACT_LAST, "End", NULL},
    {KC_FLASH, 'b', 0, ACT_BLOCK_Q, "b", "block_q (rows of a q tile: 1 to seq)"},
    {KC_FLASH, 'B', 0, ACT_BLOCK_K, "B", "block_k (keys of a K/V tile: 1 to seq)"},
    {KC_FLASH, 'C', 0, ACT_CAUSAL, "C", "causal on/off"},
    {KC_FLASH, 'K', 0, ACT_KV_HEADS, "K", "MHA/GQA/MQA"},
    {KC_FLASH, 'S', 0, ACT_SEQ, "S", "seq (2 to 8)"},
    {KC_FLASH, '?', 0, ACT_HELP, "?", "keys (this help)"},
    {KC_FLASH, 'q', 0, ACT_BACK, "q", "back"},
    {KC_FLASH, UI_K_ESC, 0, ACT_BACK, "Esc", NULL},

    /* the stride playground (ui/play.c): every other printable key is typed
     * into the statement, so q and ? act only on an empty line */
    {KC_PLAY, UI_K_ENTER, 0, ACT_APPLY, "Enter", "run (the statement)"},
    {KC_PLAY, UI_K_UP, 0, ACT_UP, "Up", "history"},
    {KC_PLAY, UI_K_DOWN, 0, ACT_DOWN, "Down", NULL},
    /* every text field (ui/field.c: the playground's statement, the quiz's
     * and a lesson page's typed answer) edits with these, as readline */
    {KC_PLAY | KC_EDIT, UI_K_LEFT, 0, ACT_LEFT, "Left", "move (in the line)"},
    {KC_PLAY | KC_EDIT, UI_K_RIGHT, 0, ACT_RIGHT, "Right", NULL},
    {KC_PLAY | KC_EDIT, UI_K_HOME, 0, ACT_HOME_LINE, "Home", NULL},
    {KC_PLAY | KC_EDIT, UI_K_END, 0, ACT_END_LINE, "End", NULL},
    {KC_PLAY | KC_EDIT, 1, 0, ACT_HOME_LINE, "^A", NULL},
    {KC_PLAY | KC_EDIT, 5, 0, ACT_END_LINE, "^E", NULL},
    {KC_PLAY, UI_K_TAB, 0, ACT_COMPLETE, "Tab", "complete (a name or method)"},
    {KC_PLAY | KC_EDIT, UI_K_BACKSPACE, 0, ACT_ERASE, "Bksp",
     "erase (a char; ^K/^U end/start; ^W a word)"},
    {KC_PLAY | KC_EDIT, 11, 0, ACT_KILL_END, "^K", NULL},
    {KC_PLAY | KC_EDIT, 21, 0, ACT_KILL_START, "^U", NULL},
    {KC_PLAY | KC_EDIT, 23, 0, ACT_KILL_WORD, "^W", NULL},
    {KC_PLAY | KC_EDIT, UI_K_DELETE, 0, ACT_DELETE, "Del", "delete (the char under the cursor)"},
    {KC_PLAY, UI_K_PGDN, 0, ACT_NEXT, "PgDn", "puzzles (next; PgUp previous)"},
    {KC_PLAY, UI_K_PGUP, 0, ACT_PREV, "PgUp", NULL},
    {KC_PLAY, UI_K_ESC, 0, ACT_BACK, "Esc", "back (on an empty line q too; ? this help)"},
    {0, 0, 0, ACT_NONE, NULL, NULL},
};

const char *keys_name(unsigned ctx, Action a)
{
    for (const KeyBinding *b = keys_table; b->key; b++)
        if ((b->ctx & ctx) && b->action == a) return b->name;
    return NULL;
}

/* ---- the generated help and hints ------------------------------------------ */

/* Section titles, one per KC_* bit in bit order. */
static const char *const ctx_titles[KC_COUNT] = {
    "Walkthrough",
    "Inspect mode (after i in the walkthrough or on a lesson page)",
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
    "Lesson page: typing an answer (other keys type)",
    "Decode: prefill, then one token at a time",
    "Stride playground (other keys type the statement)",
    "Tiles: FlashAttention-2, one tile at a time",
    "Typing a line (the playground's statement, a quiz or lesson answer)",
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

size_t keys_hint(unsigned ctx, int terse, char *buf, size_t n)
{
    size_t l = 0;
    if (n) buf[0] = 0;
    for (const KeyBinding *g = keys_table; g->key; g++) {
        char names[80];
        if (!g->help || !group_names(g, ctx, 0, "/", terse, names, sizeof names)) continue;
        size_t room = l < n ? n - l : 0;
        l +=
            (size_t)snprintf(room ? buf + l : NULL, room, "%s%s %s", l ? "  " : "", names, g->help);
    }
    return l;
}

size_t keys_hint_pick(unsigned ctx, const Action *picks, int npicks, int maxnames, char *buf,
                      size_t n)
{
    size_t l = 0;
    if (n) buf[0] = 0;
    for (int i = 0; i < npicks; i++) {
        const KeyBinding *g = NULL, *head = NULL; /* the group holding picks[i] in ctx */
        char names[80];
        for (const KeyBinding *e = keys_table; e->key && !g; e++) {
            if (e->help) head = e;
            if (head && e->action == picks[i] && (e->ctx & ctx) && e->ctx != KC_ALL) g = head;
        }
        if (!g) continue;
        size_t o = 0;
        int k = 0, all = g->action == picks[i]; /* else only the keys of picks[i] */
        names[0] = 0;                           /* the first maxnames names bound in ctx */
        for (const KeyBinding *e = g; e->key && (e == g || !e->help) && k < maxnames; e++)
            if ((e->ctx & ctx) && e->ctx != KC_ALL && (all || e->action == picks[i]) &&
                o < sizeof names)
                o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", k++ ? "/" : "", e->name);
        const char *cut = strstr(g->help, " (");
        int hl = cut ? (int)(cut - g->help) : (int)strlen(g->help);
        size_t room = l < n ? n - l : 0;
        l += (size_t)snprintf(room ? buf + l : NULL, room, "%s%s %.*s", l ? "  " : "", names, hl,
                              g->help);
    }
    return l;
}

int keys_help_entry(int i, char *keys, size_t kn, const char **what, int *sec)
{
    int line = 0;
    for (int s = 0; s <= KC_COUNT; s++) {
        unsigned ctx = s ? 1u << (s - 1) : (unsigned)KC_ALL;
        int title = 0;
        if (sec) *sec = s;
        for (const KeyBinding *g = keys_table; g->key; g++) {
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

const char *keys_help_line(int i, char *buf, size_t n)
{
    char keys[80];
    const char *what = "";
    int kind = keys_help_entry(i, keys, sizeof keys, &what, NULL);
    if (kind < 0) return NULL;
    if (kind == 0)
        snprintf(buf, n, "%s", "");
    else if (kind == 1)
        snprintf(buf, n, "%s", what);
    else
        snprintf(buf, n, "  %-27s %s", keys, what);
    return buf;
}

int keys_help_section(unsigned ctx)
{
    int want = -1;
    if (ctx == KC_ALL) want = 0;
    for (int b = 0; b < KC_COUNT; b++)
        if (ctx == 1u << b) want = 1 + b;
    char keys[80];
    const char *what;
    int sec, kind;
    for (int i = 0; want >= 0 && (kind = keys_help_entry(i, keys, sizeof keys, &what, &sec)) >= 0;
         i++)
        if (kind == 1 && sec == want) return i;
    return -1;
}
