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
