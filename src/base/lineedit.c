/* lineedit.c - a UTF-8 line and a cursor (lineedit.h). */
#include "base/lineedit.h"

#include <string.h>

#include "base/linebreak.h"
#include "base/sanitize.h"
#include "base/utf8.h"

void lineedit_init(LineEdit *e, size_t max)
{
    e->buf[0] = 0;
    e->len = e->cur = 0;
    e->max = max == 0 || max > LINEEDIT_MAX ? LINEEDIT_MAX : max;
}

/* The start of the code point before byte i (the line is valid UTF-8). */
static size_t back(const LineEdit *e, size_t i)
{
    if (i > 0) i--;
    while (i > 0 && ((unsigned char)e->buf[i] & 0xC0) == 0x80)
        i--;
    return i;
}

/* The end of the code point at byte i. */
static size_t on(const LineEdit *e, size_t i)
{
    int k;
    if (i >= e->len) return e->len;
    (void)utf8_decode(e->buf + i, e->len - i, &k);
    return i + (size_t)k;
}

/* Erases [from, to) and puts the cursor at from; 1 when it erased any. */
static int erase(LineEdit *e, size_t from, size_t to)
{
    if (from >= to) return 0;
    memmove(e->buf + from, e->buf + to, e->len - to + 1);
    e->len -= to - from;
    e->cur = from;
    return 1;
}

/* The length of s's valid, control-free prefix, at most n bytes. */
static size_t clean_prefix(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int k;
        uint32_t c = utf8_decode(s + i, n - i, &k);
        if (c == UTF8_INVALID || c == 0 || sanitize_is_control(c)) break;
        i += (size_t)k;
    }
    return i;
}

int lineedit_insert_text(LineEdit *e, const char *s, size_t n)
{
    if (clean_prefix(s, n) != n || e->len + n > e->max) return -1;
    memmove(e->buf + e->cur + n, e->buf + e->cur, e->len - e->cur + 1);
    memcpy(e->buf + e->cur, s, n);
    e->len += n;
    e->cur += n;
    return 0;
}

int lineedit_insert(LineEdit *e, uint32_t cp)
{
    char b[4];
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    return lineedit_insert_text(e, b, (size_t)utf8_encode(cp, b));
}

int lineedit_do(LineEdit *e, LineEditOp op)
{
    size_t was = e->cur, k;
    switch (op) {
    case LE_LEFT:
        e->cur = back(e, e->cur);
        break;
    case LE_RIGHT:
        e->cur = on(e, e->cur);
        break;
    case LE_HOME:
        e->cur = 0;
        break;
    case LE_END:
        e->cur = e->len;
        break;
    case LE_BACKSPACE:
        return erase(e, back(e, e->cur), e->cur);
    case LE_DELETE:
        return erase(e, e->cur, on(e, e->cur));
    case LE_KILL_END:
        return erase(e, e->cur, e->len);
    case LE_KILL_START:
        return erase(e, 0, e->cur);
    case LE_KILL_WORD: /* readline's unix-word-rubout: back to the last space */
        k = e->cur;
        while (k > 0 && (e->buf[k - 1] == ' ' || e->buf[k - 1] == '\t'))
            k--;
        while (k > 0 && e->buf[k - 1] != ' ' && e->buf[k - 1] != '\t')
            k--;
        return erase(e, k, e->cur);
    }
    return e->cur != was;
}

void lineedit_set(LineEdit *e, const char *s)
{
    size_t n = strlen(s);
    n = clean_prefix(s, n > e->max ? e->max : n);
    /* a code point that the max cut in two is not valid: clean_prefix left it out */
    memcpy(e->buf, s, n);
    e->buf[n] = 0;
    e->len = e->cur = n;
}

int lineedit_cursor_col(const LineEdit *e)
{
    return linebreak_cols(e->buf, e->cur);
}

int lineedit_cols(const LineEdit *e)
{
    return linebreak_cols(e->buf, e->len);
}
