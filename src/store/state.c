/* state.c - files that mhaviz keeps between runs, written atomically.
 *
 * Every write goes to "name.tmp.XXXXXX" in the state directory, is fsync'd, then
 * renamed over "name" and the directory fsync'd: rename(2) is atomic within a
 * directory, so a reader (or a run after a kill -9) sees the old file or the
 * new one, never a torn mix.
 */
#include "store/state.h"

#include "base/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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
    return file_read(path, STATE_MAX_FILE, out, len, err, errlen);
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

int (*state_fsync_hook)(int fd) = fsync;

/* Removes "name.tmp.XXXXXX" files older than STATE_STALE_SEC: copies a
 * writer killed between mkstemp and rename left behind.  The caller holds the
 * lock, so no cooperating writer is between those two steps now; the age
 * spares a writer that does not take the lock (an older mhaviz). */
static void remove_stale(const char *dir, const char *name)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char prefix[160];
    int pn = snprintf(prefix, sizeof prefix, "%s.tmp.", name);
    time_t now = time(NULL);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, (size_t)pn) || strlen(e->d_name) != (size_t)pn + 6) continue;
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (now - sb.st_mtime >= STATE_STALE_SEC) (void)unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* A new temp file "dir/name.tmp.XXXXXX" holding data, fsync'd and closed;
 * its path in tmp.  0, or -1 with err set (and nothing left behind). */
static int write_tmp(const char *dir, const char *name, const char *data, size_t len, char *tmp,
                     size_t tmpn, char *err, size_t errlen)
{
    /* mkstemp: a fresh name only we opened (O_EXCL), never a planted link */
    snprintf(tmp, tmpn, "%s/%s.tmp.XXXXXX", dir, name);
    int fd = mkstemp(tmp);
    if (fd < 0) { /* errors name the file being saved: the temp is gone */
        snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
        return -1;
    }
    if (write_all(fd, data, len) != 0 || state_fsync_hook(fd) != 0) {
        snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0) {
        snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Makes a rename or link in dir durable; failure here is not worth an error. */
static void sync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)state_fsync_hook(dfd);
        close(dfd);
    }
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
    remove_stale(dir, name);
    if (write_tmp(dir, name, data, len, tmp, sizeof tmp, err, errlen) != 0) return -1;
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    sync_dir(dir);
    return 0;
}

int state_keep_bad(const char *name, const char *data, size_t len, char *kept, size_t keptn,
                   char *err, size_t errlen)
{
    char dir[4096], path[4400], tmp[4400];
    if (!name_ok(name)) {
        snprintf(err, errlen, "bad state file name '%s'", name ? name : "(null)");
        return -1;
    }
    if (state_dir(dir, sizeof dir, 1, err, errlen) != 0) return -1;
    remove_stale(dir, name);
    if (write_tmp(dir, name, data, len, tmp, sizeof tmp, err, errlen) != 0) return -1;
    /* link(2) never replaces: the first free number wins, even against a
     * second mhaviz keeping its own copy at the same moment. */
    for (int k = 1; k <= STATE_MAX_BAD; k++) {
        char bad[160];
        if (k == 1)
            snprintf(bad, sizeof bad, "%s.bad", name);
        else
            snprintf(bad, sizeof bad, "%s.bad.%d", name, k);
        snprintf(path, sizeof path, "%s/%s", dir, bad);
        if (link(tmp, path) == 0) {
            unlink(tmp);
            sync_dir(dir);
            snprintf(kept, keptn, "%s", bad);
            return 0;
        }
        if (errno != EEXIST) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            unlink(tmp);
            return -1;
        }
    }
    snprintf(err, errlen, "%s/%s.bad.%d: too many kept copies (remove the old ones)", dir, name,
             STATE_MAX_BAD);
    unlink(tmp);
    return -1;
}

int state_lock(char *err, size_t errlen)
{
    return state_lock_within(STATE_LOCK_WAIT_MS, err, errlen);
}

int state_lock_within(int wait_ms, char *err, size_t errlen)
{
    char dir[4096], path[4352];
    if (state_dir(dir, sizeof dir, 1, err, errlen) != 0) return -1;
    snprintf(path, sizeof path, "%s/%s", dir, STATE_LOCK_FILE);
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0 && (errno == EROFS || errno == EACCES)) {
        int e = errno; /* flock works on a read-only descriptor too */
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) errno = e; /* the reason is the read-only dir, not the missing lock */
    }
    if (fd < 0) { /* the lock's own name: a symlink planted there is refused, said so */
        snprintf(err, errlen, "%s: %s", path,
                 errno == ELOOP ? "is a symbolic link (remove it)" : strerror(errno));
        return -1;
    }
    /* A holder keeps the lock for one read-merge-write (milliseconds); poll
     * rather than block so a stopped holder cannot hang us for good. */
    for (int waited_ms = 0;; waited_ms += 2) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
        if (errno != EWOULDBLOCK && errno != EINTR) break;
        if (waited_ms >= wait_ms) {
            errno = ETIMEDOUT;
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    snprintf(err, errlen, "%s: %s", path,
             errno == ETIMEDOUT ? "held by another mhaviz for too long" : strerror(errno));
    close(fd);
    return -1;
}

void state_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing the last descriptor releases the flock */
}

int state_key_ok(const char *s, size_t n, size_t cap, const char *also)
{
    if (n == 0 || n >= cap) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch) && ch != '-' && ch != '_' && (!ch || !strchr(also, ch))) return 0;
    }
    return 1;
}

int state_next_line(const char **at, const char *header, int *line, char *buf, size_t n, char *err,
                    size_t errlen)
{
    while (**at) {
        const char *s = *at, *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        ++*line;
        if (len >= n) {
            snprintf(err, errlen, "line %d is too long", *line);
            return -1;
        }
        memcpy(buf, s, len);
        buf[len] = 0;
        *at = s + len + (eol ? 1 : 0);
        if (*line == 1) {
            if (strcmp(buf, header)) {
                snprintf(err, errlen, "line 1 is not '%s'", header);
                return -1;
            }
            continue;
        }
        if (buf[0]) return 1;
    }
    return 0;
}
