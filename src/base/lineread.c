/* lineread.c - lines read in bounded pieces (contract: lineread.h). */
#include "base/lineread.h"

#include "base/errbuf.h"

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

int line_read(FILE *f, char *buf, size_t cap, LineRead *r)
{
    size_t k = 0, pos = 0; /* bytes kept; bytes of the line seen */
    int c, any = 0;
    r->too_long = 0;
    r->nul_at = 0;
    while ((c = getc_unlocked(f)) != EOF) { /* one thread reads f: no lock per byte */
        any = 1;
        if (c == '\n') break;
        pos++;
        if (c == 0 && !r->nul_at) r->nul_at = pos;
        if (k + 1 < cap)
            buf[k++] = (char)c;
        else if (!is_blank(c))
            r->too_long = 1; /* past the buffer and not trailing white space */
    }
    while (k > 0 && is_blank((unsigned char)buf[k - 1]))
        k--;
    buf[k] = 0;
    r->len = k;
    return any ? 0 : -1;
}

int line_refused(const LineRead *r, const char *what, size_t max, char *err, size_t errlen)
{
    if (r->nul_at)
        err_set(err, errlen, "%s holds a NUL byte (0x00) at column %zu", what, r->nul_at);
    else if (r->too_long)
        err_set(err, errlen, "%s too long (at most %zu characters)", what, max);
    else
        return 0;
    return 1;
}
