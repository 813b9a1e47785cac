/* errbuf.c - see errbuf.h. */
#include "base/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

void err_set(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

void err_at(char *err, size_t n, const char *file, int line, const char *fmt, ...)
{
    if (!err || !n) return;
    int k = snprintf(err, n, "%s:%d: ", file, line);
    if (k < 0 || (size_t)k >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + k, n - (size_t)k, fmt, ap);
    va_end(ap);
}
