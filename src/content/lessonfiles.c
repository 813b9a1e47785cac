/* lessonfiles.c - where lesson text comes from: a file on disk, a directory
 * named by $MHAVIZ_LESSONS, or the copies compiled into the binary. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "content/content.h"
#include "content/lesson.h"

#define LESSON_MAX_FILE ((size_t)4 << 20)

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Is there something at path for file_read to read or to say why not?  Only
 * "no such file" is nothing: a symlink loop or a directory without search
 * permission is an error of that path, named by file_read. */
static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 || (errno != ENOENT && errno != ENOTDIR);
}

/* The compiled-in lesson for "02-heads", "lessons/02-heads.lesson", "02" or "2". */
static const ContentFile *builtin(const char *name)
{
    for (const ContentFile *f = content_files; f->path; f++) {
        if (strncmp(f->path, "lessons/", 8) || !ends_with(f->path, ".lesson")) continue;
        const char *base = f->path + 8;
        size_t bl = strlen(base) - 7;
        if (!strcmp(f->path, name) || (strlen(name) == bl && !strncmp(base, name, bl))) return f;
        /* A number: "2" or "02" picks "02-...". */
        char *end;
        long k = strtol(name, &end, 10);
        if (*name && !*end && k == strtol(base, &end, 10) && *end == '-') return f;
    }
    return NULL;
}

/* Does the file at path answer to name: its name ("01-mine", "01-mine.lesson")
 * or its number ("1", "01": the number it starts with)? */
static int names_lesson(const char *path, const char *name)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t bl = strlen(b) - (ends_with(b, ".lesson") ? 7 : 0);
    if (!strcmp(b, name) || (strlen(name) == bl && !strncmp(b, name, bl))) return 1;
    char *end, *bend;
    long k = strtol(name, &end, 10);
    return *name >= '0' && *name <= '9' && !*end && k == strtol(b, &bend, 10) && bend != b &&
           (*bend < '0' || *bend > '9');
}

/* A name without '/' resolved against the list the menu shows (lesson_list):
 * the lesson of that name or number, else for a number N the Nth of the list.
 * Into out; 0, or -1 when the list has no such lesson. */
static int resolve(const char *name, char *out, size_t n)
{
    char **paths, err[300];
    int np = lesson_list(&paths, err, sizeof err), found = -1;
    for (int i = 0; i < np && found < 0; i++)
        if (names_lesson(paths[i], name)) found = i;
    char *end;
    long k = strtol(name, &end, 10);
    if (found < 0 && *name >= '0' && *name <= '9' && !*end && k >= 1 && k <= np) found = (int)k - 1;
    if (found >= 0) snprintf(out, n, "%s", paths[found]);
    if (np >= 0) lesson_list_free(paths, np);
    return found >= 0 ? 0 : -1;
}

/* The error of a name that is neither a path nor a lesson: a number says
 * which numbers are lessons.  Returns LESSON_NO_SUCH. */
static int no_such(const char *name, const char *dir, char *err, size_t errlen)
{
    char **paths, e[300];
    int np = lesson_list(&paths, e, sizeof e);
    if (np >= 0) lesson_list_free(paths, np);
    size_t digits = strspn(name, "0123456789");
    if (digits && !name[digits] && np > 0)
        snprintf(err, errlen,
                 "%.40s: no such lesson, the lessons are 1 to %d (mhaviz lesson --list)", name, np);
    else if (dir && *dir)
        snprintf(err, errlen, "%s: no such lesson in MHAVIZ_LESSONS=%s (mhaviz lesson --list)",
                 name, dir);
    else
        snprintf(err, errlen, "%s: no such lesson file or built-in lesson (mhaviz lesson --list)",
                 name);
    return LESSON_NO_SUCH;
}

int lesson_load_text(const char *name, char **text, size_t *len, char *path, size_t pathn,
                     char *err, size_t errlen)
{
    const char *dir = getenv("MHAVIZ_LESSONS");
    char listed[4096];
    /* A path on disk wins, so `r` picks up a teacher's edits; whatever it
     * is (a directory, a FIFO), file_read says why it cannot be read. */
    if (exists(name)) {
        snprintf(path, pathn, "%s", name);
        return file_read(name, LESSON_MAX_FILE, text, len, err, errlen) == 0 ? 0 : -1;
    }
    if (!strchr(name, '/')) {
        if (resolve(name, listed, sizeof listed) == 0) {
            name = listed; /* a path of the list: on disk, or compiled in */
            if (exists(name)) {
                snprintf(path, pathn, "%s", name);
                return file_read(name, LESSON_MAX_FILE, text, len, err, errlen) == 0 ? 0 : -1;
            }
        } else if (dir && *dir) {
            return no_such(name, dir, err, errlen);
        }
    }
    const ContentFile *f = builtin(name);
    if (!f && strpbrk(name, "/.")) /* a path: say what the system says */
        return file_read(name, LESSON_MAX_FILE, text, len, err, errlen) == 0 ? 0 : -1;
    if (!f) return no_such(name, NULL, err, errlen);
    *text = malloc(f->len + 1);
    if (!*text) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(*text, f->text, f->len + 1);
    *len = f->len;
    snprintf(path, pathn, "%s", f->path);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void lesson_list_free(char **paths, int n)
{
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

int lesson_list(char ***paths, char *err, size_t errlen)
{
    const char *dir = getenv("MHAVIZ_LESSONS");
    int n = 0, cap = 16;
    char **v = malloc((size_t)cap * sizeof *v);
    if (!v) goto oom;
    if (dir && *dir) {
        DIR *d = opendir(dir);
        if (!d) {
            snprintf(err, errlen, "MHAVIZ_LESSONS=%s: %s", dir, strerror(errno));
            free(v);
            return -1;
        }
        for (struct dirent *e; (e = readdir(d));) {
            if (e->d_name[0] == '.' || !ends_with(e->d_name, ".lesson")) continue;
            if (n == cap) {
                char **nv = realloc(v, (size_t)(cap *= 2) * sizeof *nv);
                if (!nv) {
                    closedir(d);
                    goto oom;
                }
                v = nv;
            }
            size_t k = strlen(dir) + strlen(e->d_name) + 2;
            if (!(v[n] = malloc(k))) {
                closedir(d);
                goto oom;
            }
            snprintf(v[n++], k, "%s/%s", dir, e->d_name);
        }
        closedir(d);
        if (n == 0) {
            snprintf(err, errlen, "no .lesson files in %s (MHAVIZ_LESSONS)", dir);
            free(v);
            return -1;
        }
    } else {
        for (const ContentFile *f = content_files; f->path; f++) {
            if (strncmp(f->path, "lessons/", 8) || !ends_with(f->path, ".lesson")) continue;
            if (n == cap) {
                char **nv = realloc(v, (size_t)(cap *= 2) * sizeof *nv);
                if (!nv) goto oom;
                v = nv;
            }
            if (!(v[n] = malloc(strlen(f->path) + 1))) goto oom;
            strcpy(v[n++], f->path);
        }
    }
    qsort(v, (size_t)n, sizeof *v, cmp_str);
    *paths = v;
    return n;
oom:
    if (v) lesson_list_free(v, n);
    snprintf(err, errlen, "out of memory");
    return -1;
}
