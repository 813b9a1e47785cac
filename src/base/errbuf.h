/* errbuf.h - the "char *err, size_t errlen" convention of every fallible call. */
#ifndef MHAVIZ_ERRBUF_H
#define MHAVIZ_ERRBUF_H

#include <stddef.h>

/* Formats a one-line reason into err (n bytes).  err may be NULL or n 0: then
 * nothing is written, so callers that don't want the reason can pass NULL. */
void err_set(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* err_set with the place first: "file:line: " then the reason, the one
 * format of every error found inside a file (lessons, quiz banks, presets). */
void err_at(char *err, size_t n, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#endif
