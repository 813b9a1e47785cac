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

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
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

int lesson_load_text(const char *name, char **text, size_t *len, char *path, size_t pathn,
                     char *err, size_t errlen)
{
    const char *dir = getenv("MHAVIZ_LESSONS");
    /* A path on disk wins, so `r` picks up a teacher's edits; whatever it
     * is (a directory, a FIFO), file_read says why it cannot be read. */
    if (exists(name)) {
        snprintf(path, pathn, "%s", name);
        return file_read(name, LESSON_MAX_FILE, text, len, err, errlen) == 0 ? 0 : -1;
    }
    if (dir && *dir && !strchr(name, '/')) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s%s", dir, name, ends_with(name, ".lesson") ? "" : ".lesson");
        if (exists(p)) {
            snprintf(path, pathn, "%s", p);
            return file_read(p, LESSON_MAX_FILE, text, len, err, errlen) == 0 ? 0 : -1;
        }
    }
    const ContentFile *f = builtin(name);
    if (!f && strchr(name, '/')) /* a path: say what the system says */
        return file_read(name, LESSON_MAX_FILE, text, len, err, errlen) == 0 ? 0 : -1;
    if (!f) {
        snprintf(err, errlen, "%s: no such lesson file or built-in lesson (mhaviz lesson --list)",
                 name);
        return -1;
    }
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
