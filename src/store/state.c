/* state.c - files that mhaviz keeps between runs, written atomically.
 *
 * Every write goes to "name.tmp.PID" in the state directory, is fsync'd, then
 * renamed over "name" and the directory fsync'd: rename(2) is atomic within a
 * directory, so a reader (or a run after a kill -9) sees the old file or the
 * new one, never a torn mix.
 */
#include "store/state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file name inside the state dir: no path separators, no leading dot. */
static int name_ok(const char *name)
{
    return name && name[0] && name[0] != '.' && !strchr(name, '/') && strlen(name) < 128;
}

/* mkdir -p for an absolute path; 0 or -1 with errno. */
static int mkdir_p(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
    struct stat sb;
    if (stat(buf, &sb) != 0) return -1;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int state_dir(char *buf, size_t n, int create, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    int len;
    /* The XDG spec says a relative XDG_STATE_HOME is invalid and is ignored. */
    if (xdg && xdg[0] == '/')
        len = snprintf(buf, n, "%s/mhaviz", xdg);
    else if (home && home[0] == '/')
        len = snprintf(buf, n, "%s/.local/state/mhaviz", home);
    else {
        snprintf(err, errlen,
                 "no state directory: neither XDG_STATE_HOME nor HOME is an absolute path");
        return -1;
    }
    if (len < 0 || (size_t)len >= n) {
        snprintf(err, errlen, "state directory path is too long");
        return -1;
    }
    if (create && mkdir_p(buf) != 0) {
        snprintf(err, errlen, "%s: %s", buf, strerror(errno));
        return -1;
    }
    return 0;
}

/* dir/name into path; -1 with err set. */
static int state_path(const char *name, char *path, size_t n, int create, char *err, size_t errlen)
{
    char dir[4096];
    if (!name_ok(name)) {
        snprintf(err, errlen, "bad state file name '%s'", name ? name : "(null)");
        return -1;
    }
    if (state_dir(dir, sizeof dir, create, err, errlen) != 0) return -1;
    int len = snprintf(path, n, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= n) {
        snprintf(err, errlen, "state file path is too long");
        return -1;
    }
    return 0;
}

int state_read(const char *name, char **out, size_t *len, char *err, size_t errlen)
{
    char path[4352];
    *out = NULL;
    if (len) *len = 0;
    if (state_path(name, path, sizeof path, 0, err, errlen) != 0) return -1;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) return 1;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    for (;;) {
        if (n + 1 >= cap) {
            /* State files are small; refuse anything absurd rather than eat memory. */
            if (cap >= (size_t)64 << 20) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: file is larger than 64 MiB", path);
                return -1;
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                snprintf(err, errlen, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(err, errlen, "%s: %s", path, strerror(saved));
        return -1;
    }
    buf[n] = 0;
    *out = buf;
    if (len) *len = n;
    return 0;
}

/* Writes all of data to fd, retrying short writes; 0 or -1 with errno. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int state_write(const char *name, const char *data, size_t len, char *err, size_t errlen)
{
    char dir[4096], path[4352], tmp[4400];
    if (!name_ok(name)) {
        snprintf(err, errlen, "bad state file name '%s'", name ? name : "(null)");
        return -1;
    }
    if (state_dir(dir, sizeof dir, 1, err, errlen) != 0) return -1;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* mkstemp: a fresh name only we opened (O_EXCL), never a planted link */
    snprintf(tmp, sizeof tmp, "%s/%s.tmp.XXXXXX", dir, name);

    int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    if (write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    /* Make the rename itself durable; failure here is not worth an error. */
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return 0;
}
