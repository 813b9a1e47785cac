/* linebreak.c - where a line of text ends (linebreak.h). */
#include "base/linebreak.h"

#include <string.h>

#include "base/utf8.h"

static int is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Bytes of the code point at s (1 for an invalid byte). */
static size_t cp_len(const char *s, size_t n)
{
    int k;
    (void)utf8_decode(s, n, &k);
    return (size_t)k;
}

int linebreak_cols(const char *s, size_t n)
{
    int cols = 0;
    for (size_t i = 0; i < n; i += cp_len(s + i, n - i))
        cols++;
    return cols;
}

/* The byte offset of column `cols` in s[0..n), or n when it ends first. */
static size_t byte_at(const char *s, size_t n, int cols)
{
    size_t i = 0;
    for (int c = 0; c < cols && i < n; c++)
        i += cp_len(s + i, n - i);
    return i;
}

/* The last break at or before byte k (k < para: the line does not fit):
 * after a space with a word before it, or after a '/' in a word wider than
 * width.  0 when there is none. */
static size_t last_break(const char *s, size_t para, size_t k, int width)
{
    size_t best = 0, i = 0;
    int content = 0;
    while (i < k) {
        if (is_space(s[i])) {
            if (content) best = i + 1;
            i++;
            continue;
        }
        size_t w_end = i; /* a word: [i, w_end) */
        while (w_end < para && !is_space(s[w_end]))
            w_end++;
        int wide = linebreak_cols(s + i, w_end - i) > width;
        for (; i < w_end && i < k; i++)
            if (wide && s[i] == '/' && i + 1 <= k) best = i + 1;
        content = 1;
    }
    return best;
}

int linebreak_next(const char *s, size_t n, int width, LineBreak *lb)
{
    if (n == 0) return 0;
    if (width < 1) width = 1;
    const char *nl = memchr(s, '\n', n);
    size_t para = nl ? (size_t)(nl - s) : n, end, next;
    size_t k = byte_at(s, para, width); /* the first byte that does not fit */
    if (k >= para)
        end = para;
    else if (is_space(s[k]))
        end = k;
    else {
        end = last_break(s, para, k, width);
        if (end == 0) end = k; /* one word wider than the column: cut it */
    }
    next = end;
    while (end > 0 && is_space(s[end - 1]))
        end--;
    while (next < n && is_space(s[next]))
        next++;
    if (next < n && s[next] == '\n') next++;
    lb->len = end;
    lb->next = next;
    lb->cols = linebreak_cols(s, end);
    return 1;
}
