/* textutil.c - trimming and edit distance (see textutil.h). */
#include "base/textutil.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int text_edit_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > TEXT_DIST_MAX_LEN || m > TEXT_DIST_MAX_LEN) return TEXT_DIST_FAR;
    int d[TEXT_DIST_MAX_LEN + 1][TEXT_DIST_MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            int v = d[i - 1][j] + 1;                      /* delete */
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1; /* insert */
            if (d[i - 1][j - 1] + (ai != bj) < v) v = d[i - 1][j - 1] + (ai != bj);
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1; /* swap of two neighbours */
            d[i][j] = v;
        }
    return d[n][m];
}

char *text_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    return s;
}

char *text_fmt_int(char *buf, size_t n, unsigned long long v)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", v);
    size_t o = 0;
    if (!n) return buf;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0) {
            if (o + 2 >= n) break;
            buf[o++] = ',';
        }
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    return buf;
}

const char *text_s(long long n)
{
    return n == 1 ? "" : "s";
}

char *text_fmt_count(char *buf, size_t n, unsigned long long v, const char *word)
{
    char digits[32];
    if (n == 0) return buf;
    snprintf(buf, n, "%s %s%s", text_fmt_int(digits, sizeof digits, v), word,
             text_s(v == 1 ? 1 : 0) /* v past LLONG_MAX is not 1 */);
    return buf;
}

const char *text_suggest(const char *word, const char *const *candidates, int nc)
{
    const char *best = NULL;
    int bestd = 99;
    int len = (int)strlen(word);
    /* A typo of one or two edits, never more than a third of the word. */
    int limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    for (int i = 0; i < nc; i++) {
        int d = text_edit_distance(word, candidates[i]);
        if (d < bestd) {
            bestd = d;
            best = candidates[i];
        }
    }
    return bestd <= limit && bestd < len ? best : NULL;
}

const char *text_hint(char *buf, size_t n, const char *prefix, const char *word,
                      const char *const *cands, int nc)
{
    const char *s = text_suggest(word, cands, nc);
    if (s) {
        snprintf(buf, n, " (did you mean '%s%s'?)", prefix, s);
        return buf;
    }
    size_t o = (size_t)snprintf(buf, n, " (one of:");
    for (int i = 0; i < nc && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, " %s%s", prefix, cands[i]);
    if (o < n) snprintf(buf + o, n - o, ")");
    return buf;
}
