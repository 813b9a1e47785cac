/* lineedit.h - the one line editor: a UTF-8 line and a cursor, edited a
 * code point at a time, as readline edits (the playground's statement, the
 * quiz's typed answer, the lesson page's typed answer).  No keys and no
 * terminal: ui/field.c maps the key table's editing keys onto these calls.
 *
 * The line is always valid UTF-8 with no control character in it; the
 * cursor is a byte offset that is always at a code point's start. */
#ifndef MHAVIZ_LINEEDIT_H
#define MHAVIZ_LINEEDIT_H

#include <stddef.h>
#include <stdint.h>

#define LINEEDIT_MAX 1024 /* bytes a line may hold at most */

typedef struct LineEdit {
    char buf[LINEEDIT_MAX + 1]; /* NUL-terminated */
    size_t len, cur;            /* bytes; cur <= len */
    size_t max;                 /* bytes this line may hold (<= LINEEDIT_MAX) */
} LineEdit;

/* What a key can do to the line. */
typedef enum {
    LE_LEFT,       /* one code point back */
    LE_RIGHT,      /* one code point on */
    LE_HOME,       /* to the start (Home, Ctrl-A) */
    LE_END,        /* to the end (End, Ctrl-E) */
    LE_BACKSPACE,  /* erase the code point before the cursor */
    LE_DELETE,     /* erase the code point under the cursor */
    LE_KILL_END,   /* Ctrl-K: erase to the end */
    LE_KILL_START, /* Ctrl-U: erase to the start */
    LE_KILL_WORD   /* Ctrl-W: erase back over spaces, then to the space before the word */
} LineEditOp;

/* An empty line that holds at most max bytes (0 or more than LINEEDIT_MAX:
 * LINEEDIT_MAX). */
void lineedit_init(LineEdit *e, size_t max);

/* Types code point cp at the cursor.  0, or -1 (nothing changed) when cp is
 * no character (a control character, a surrogate, above U+10FFFF) or its
 * bytes do not all fit: a full line refuses, it never keeps half of one. */
int lineedit_insert(LineEdit *e, uint32_t cp);

/* Types the n bytes at s at the cursor (a completion).  0, or -1 (nothing
 * changed) when they are not valid UTF-8 free of control characters or do
 * not all fit. */
int lineedit_insert_text(LineEdit *e, const char *s, size_t n);

/* Does op; 1 when the line or the cursor changed, else 0. */
int lineedit_do(LineEdit *e, LineEditOp op);

/* Replaces the line with s (a history entry), the cursor at its end; s is
 * cut at the last whole code point that fits, and an invalid or control
 * byte ends it. */
void lineedit_set(LineEdit *e, const char *s);

/* The columns (code points) before the cursor, and in the whole line. */
int lineedit_cursor_col(const LineEdit *e);
int lineedit_cols(const LineEdit *e);

#endif
