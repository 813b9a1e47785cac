/* fileio.c - whole-file reads that never block (contract: fileio.h). */
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/errbuf.h"

/* What a non-regular file is, for the error line. */
static const char *kind(mode_t m)
{
    if (S_ISDIR(m)) return "is a directory";
    if (S_ISFIFO(m)) return "is not a regular file (a FIFO)";
    if (S_ISCHR(m)) return "is not a regular file (a character device)";
    if (S_ISBLK(m)) return "is not a regular file (a block device)";
    if (S_ISSOCK(m)) return "is not a regular file (a socket)";
    return "is not a regular file";
}

/* Reads fd to the end into a new buffer; 0, or -1 with errno (EFBIG: over max). */
static int read_fd(int fd, size_t max, size_t hint, char **out, size_t *len)
{
    size_t cap = hint + 1 < 4096 ? 4096 : hint + 1, n = 0;
    char *buf = malloc(cap);
    if (!buf) return -1;
    for (;;) {
        if (n + 1 == cap) { /* full: the file grew since fstat, or hint was 0 */
            if (n > max) break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return -1;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    if (n > max) {
        free(buf);
        errno = EFBIG;
        return -1;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

int file_read(const char *path, size_t max, char **out, size_t *len, char *err, size_t errlen)
{
    *out = NULL;
    if (len) *len = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        err_set(err, errlen, "%s: %s", path, strerror(e));
        return e == ENOENT ? 1 : -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        err_set(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(sb.st_mode)) {
        err_set(err, errlen, "%s: %s", path, kind(sb.st_mode));
        close(fd);
        return -1;
    }
    if (sb.st_size > 0 && (unsigned long long)sb.st_size > max) {
        err_set(err, errlen, "%s: is larger than %zu bytes", path, max);
        close(fd);
        return -1;
    }
    size_t n = 0;
    int rc = read_fd(fd, max, (size_t)sb.st_size, out, &n);
    int e = errno;
    close(fd);
    if (rc != 0) {
        if (e == EFBIG)
            err_set(err, errlen, "%s: is larger than %zu bytes", path, max);
        else
            err_set(err, errlen, "%s: %s", path, e == ENOMEM ? "out of memory" : strerror(e));
        return -1;
    }
    if (len) *len = n;
    return 0;
}
