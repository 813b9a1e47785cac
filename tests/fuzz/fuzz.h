/* fuzz.h - what the libFuzzer targets in tests/fuzz/ share.
 *
 * Each fuzz_NAME.c defines LLVMFuzzerTestOneInput for one reader of outside
 * input.  `make fuzz` links each with libFuzzer (clang, ASan + UBSan); the
 * unit suite check_fuzz.c includes them all (renaming the entry point) and
 * replays the seeds and every past finding (tests/fuzz/regress/NAME/) through
 * a plain build, so the findings stay fixed without clang.
 *
 * A target returns 0 for any input.  It stops the process (abort) only when
 * an invariant of the reader fails: that is a finding, like a crash.
 */
#ifndef MHAVIZ_FUZZ_H
#define MHAVIZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(c)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c);              \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The input as a new NUL-terminated string (the readers take C strings; a
 * NUL inside the input ends it there).  Caller frees. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* A one-line error: not empty, no newline, NUL-terminated within n. */
static inline int fuzz_one_line(const char *err, size_t n)
{
    size_t l = strnlen(err, n);
    return l > 0 && l < n && !memchr(err, '\n', l);
}

#endif
