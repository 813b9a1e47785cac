/* sanitize.h - the one rule for text from outside that reaches a terminal.
 *
 * A lesson's title, a file name, a typed statement echoed back, a line an
 * error quotes: any of them may hold bytes that drive the terminal (ESC ]2;
 * sets the window title, OSC 52 writes the clipboard, CSI moves the cursor).
 * Whatever prints such a string (cmd/) writes it through sanitize_text, the
 * canvas keeps sanitize_is_control characters out of its cells, and the
 * file checkers refuse them with sanitize_control_at.
 */
#ifndef MHAVIZ_SANITIZE_H
#define MHAVIZ_SANITIZE_H

#include <stddef.h>
#include <stdint.h>

/* Is code point c one that must not reach a terminal as it is?  C0 (U+0000
 * to U+001F, tab and newline too: a caller that keeps lines splits them
 * first), DEL, C1 (U+0080..U+009F, which some terminals read as ESC [ and
 * the like) and the bidi embeddings, overrides and isolates (U+202A..U+202E,
 * U+2066..U+2069, which reorder what is shown). */
int sanitize_is_control(uint32_t c);

/* Copies the NUL-terminated s into out (n bytes, always NUL-terminated when
 * n > 0, cut before a character that does not fit) with every control
 * character written as an escape anyone can read: \x1b for C0 and DEL,
 * \u009b for C1 and bidi controls, and \xff for a byte that is not UTF-8.
 * Everything else (UTF-8 text, backslashes) is copied as it is.  Returns
 * out. */
char *sanitize_text(const char *s, char *out, size_t n);

/* sanitize_text of s[0..len), which may hold NUL bytes (shown as \x00). */
char *sanitize_bytes(const char *s, size_t len, char *out, size_t n);

/* The 1-based byte column of the first character of s[0..len) that a text
 * file may not hold: a control character other than tab (a line's own CR,
 * at its end, is the caller's to strip).  0 when there is none.  *cp (may
 * be NULL) gets the character.  Bytes that are not UTF-8 are skipped: the
 * UTF-8 check (utf8_bad_at) names those. */
size_t sanitize_control_at(const char *s, size_t len, uint32_t *cp);

#endif
