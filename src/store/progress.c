/* progress.c - lesson progress in the state directory (format: progress.h). */
#include "store/progress.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/state.h"

static const char header[] = "# mhaviz lesson progress v1";
static const char solved_sfx[] = ".solved"; /* "02-heads.solved 1,3" */
#define SFX_LEN (sizeof solved_sfx - 1)

/* Does the name (n bytes) end in ".solved"? */
static int is_solved_line(const char *s, size_t n)
{
    return n > SFX_LEN && !memcmp(s + n - SFX_LEN, solved_sfx, SFX_LEN);
}

static int find(const Progress *p, const char *lesson)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->v[i].name, lesson)) return i;
    return -1;
}

static int name_ok(const char *s, size_t n)
{
    return state_key_ok(s, n, sizeof((Progress *)0)->v[0].name, ".");
}

int progress_parse(Progress *p, const char *text, char *err, size_t errlen)
{
    p->n = 0;
    int line = 0;
    unsigned char seen[PROGRESS_MAX_LESSONS] = {0}; /* 1: its pages line, 2: its .solved line */
    const char *rest = text;
    char buf[512];
    int r;
    while ((r = state_next_line(&rest, header, &line, buf, sizeof buf, err, errlen)) > 0) {
        char *sp = strchr(buf, ' ');
        if (!sp || !name_ok(buf, (size_t)(sp - buf))) {
            snprintf(err, errlen, "line %d: expected 'lesson-name 1,2,3'", line);
            return -1;
        }
        *sp = 0;
        int solved = is_solved_line(buf, strlen(buf));
        if (solved) buf[strlen(buf) - SFX_LEN] = 0;
        if (is_solved_line(buf, strlen(buf))) { /* "x.solved.solved": the name is reserved */
            snprintf(err, errlen, "line %d: a lesson name may not end in '%s'", line, solved_sfx);
            return -1;
        }
        int at = find(p, buf);
        if ((at >= 0 && seen[at] & (solved ? 2 : 1)) || (at < 0 && p->n >= PROGRESS_MAX_LESSONS)) {
            snprintf(err, errlen, "line %d: lesson '%s' repeated or too many lessons", line, buf);
            return -1;
        }
        uint64_t done = 0;
        for (char *q = sp + 1; *q;) {
            char *end;
            long v = strtol(q, &end, 10);
            if (end == q || v < 1 || v > 64 || (*end && *end != ',')) {
                snprintf(err, errlen, "line %d: bad page list", line);
                return -1;
            }
            done |= (uint64_t)1 << (v - 1);
            q = *end ? end + 1 : end;
        }
        if (at < 0) {
            at = p->n++;
            memset(&p->v[at], 0, sizeof p->v[at]);
            memcpy(p->v[at].name, buf, strlen(buf) + 1); /* name_ok: shorter than the field */
        }
        seen[at] |= solved ? 2 : 1;
        if (solved)
            p->v[at].solved = done;
        else
            p->v[at].done = done;
    }
    if (r < 0) return -1;
    for (int i = 0; i < p->n; i++)
        p->v[i].done |= p->v[i].solved; /* a page solved is finished */
    if (line == 0) {
        snprintf(err, errlen, "the file is empty");
        return -1;
    }
    return 0;
}

char *progress_format(const Progress *p)
{
    size_t cap = sizeof header + 1 + (size_t)p->n * 2 * (64 + SFX_LEN + 64 * 3 + 2);
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t o = (size_t)snprintf(out, cap, "%s\n", header);
    for (int i = 0; i < p->n; i++) {
        for (int k = 0; k < 2; k++) {
            uint64_t bits = k ? p->v[i].solved : p->v[i].done;
            if (!bits) continue;
            o += (size_t)snprintf(out + o, cap - o, "%s%s ", p->v[i].name, k ? solved_sfx : "");
            int first = 1;
            for (int b = 0; b < 64; b++)
                if (bits >> b & 1) {
                    o += (size_t)snprintf(out + o, cap - o, "%s%d", first ? "" : ",", b + 1);
                    first = 0;
                }
            o += (size_t)snprintf(out + o, cap - o, "\n");
        }
    }
    return out;
}

/* Keeps the unparsable text (len bytes) and replaces the file with an empty
 * one, under the lock, unless another mhaviz replaced it meanwhile.  Sets
 * p->warning; turns saving off when the copy could not be made. */
static void keep_bad(Progress *p, const char *why)
{
    char err[256], kept[160] = PROGRESS_FILE ".bad", *text = NULL;
    size_t len = 0;
    Progress now;
    int lock = state_lock(err, sizeof err), rc = -1;
    if (lock >= 0 && state_read(PROGRESS_FILE, &text, &len, err, sizeof err) >= 0) {
        if (!text || (strlen(text) == len && progress_parse(&now, text, err, sizeof err) == 0))
            rc = 0; /* already replaced by another run */
        else if (state_keep_bad(PROGRESS_FILE, text, len, kept, sizeof kept, err, sizeof err) ==
                 0) {
            /* The copy is safe; should the reset fail, a save keeps one more. */
            static const char empty[] = "# mhaviz lesson progress v1\n";
            (void)state_write(PROGRESS_FILE, empty, sizeof empty - 1, err, sizeof err);
            rc = 0;
        }
    }
    state_unlock(lock);
    free(text);
    if (rc == 0)
        snprintf(p->warning, sizeof p->warning,
                 "progress file was corrupt (%.100s): kept as %.60s, starting afresh", why, kept);
    else {
        snprintf(p->warning, sizeof p->warning,
                 "progress file is corrupt (%.100s) and could not be kept: not saving", why);
        p->no_save = 1;
    }
}

void progress_load(Progress *p, int no_save)
{
    memset(p, 0, sizeof *p);
    p->no_save = no_save;
    char *text = NULL, err[256], why[160];
    size_t len = 0;
    int r = state_read(PROGRESS_FILE, &text, &len, err, sizeof err);
    if (r == 1) return; /* first run */
    if (r < 0) {
        snprintf(p->warning, sizeof p->warning, "progress not saved this run: %.250s", err);
        p->no_save = 1;
        return;
    }
    if (strlen(text) != len || progress_parse(p, text, why, sizeof why) != 0) {
        if (strlen(text) != len) snprintf(why, sizeof why, "binary data");
        p->n = 0;
        if (!no_save)
            keep_bad(p, why); /* before anything overwrites it */
        else
            snprintf(p->warning, sizeof p->warning, "progress file is corrupt (%.100s): ignored",
                     why);
    }
    free(text);
}

/* Sets the page's bit in done, and in solved when solve; 1 if new. */
static int mark(Progress *p, const char *lesson, int page, int solve)
{
    size_t n = strlen(lesson);
    if (page < 0 || page >= 64 || !name_ok(lesson, n) || is_solved_line(lesson, n))
        return 0; /* not something we can record */
    int i = find(p, lesson);
    if (i < 0) {
        if (p->n >= PROGRESS_MAX_LESSONS) return 0;
        i = p->n++;
        memset(&p->v[i], 0, sizeof p->v[i]);
        snprintf(p->v[i].name, sizeof p->v[i].name, "%s", lesson);
    }
    uint64_t bit = (uint64_t)1 << page;
    if ((solve ? p->v[i].solved : p->v[i].done) & bit) return 0;
    p->v[i].done |= bit;
    if (solve) p->v[i].solved |= bit;
    p->dirty = 1;
    return 1;
}

int progress_set(Progress *p, const char *lesson, int page)
{
    return mark(p, lesson, page, 0);
}

int progress_solve(Progress *p, const char *lesson, int page)
{
    return mark(p, lesson, page, 1);
}

/* Adds the file's pages (another run's) to p: the union of both.  A file
 * that does not parse adds nothing (it is kept aside by the caller). */
static void merge_file(Progress *p, const char *text, size_t len)
{
    Progress f;
    char why[160];
    if (strlen(text) != len || progress_parse(&f, text, why, sizeof why) != 0) return;
    for (int k = 0; k < f.n; k++) {
        int i = find(p, f.v[k].name);
        if (i < 0 && p->n < PROGRESS_MAX_LESSONS) {
            i = p->n++;
            memset(&p->v[i], 0, sizeof p->v[i]);
            memcpy(p->v[i].name, f.v[k].name, sizeof p->v[i].name);
        }
        if (i >= 0) p->v[i].done |= f.v[k].done, p->v[i].solved |= f.v[k].solved;
    }
}

/* The save itself: lock, re-read, union, write.  0 or -1 with err set. */
static int save_merged(Progress *p, char *err, size_t errlen)
{
    int lock = state_lock(err, errlen);
    if (lock < 0) return -1;
    char *text = NULL, kept[160], why[160];
    size_t len = 0;
    int rc = state_read(PROGRESS_FILE, &text, &len, err, errlen);
    if (rc == 0) {
        Progress f;
        if (strlen(text) != len || progress_parse(&f, text, why, sizeof why) != 0)
            rc = state_keep_bad(PROGRESS_FILE, text, len, kept, sizeof kept, err, errlen);
        else
            merge_file(p, text, len);
    }
    free(text);
    char *out = rc >= 0 ? progress_format(p) : NULL;
    if (rc >= 0 && !out) snprintf(err, errlen, "out of memory");
    rc = out ? state_write(PROGRESS_FILE, out, strlen(out), err, errlen) : -1;
    state_unlock(lock);
    free(out);
    return rc;
}

int progress_save(Progress *p)
{
    if (!p->dirty || p->no_save) return 0;
    char err[256];
    p->dirty = 0;
    if (save_merged(p, err, sizeof err) != 0) {
        snprintf(p->warning, sizeof p->warning, "progress not saved: %.250s", err);
        p->no_save = 1; /* report once, not on every page */
        return -1;
    }
    return 0;
}

int progress_mark(Progress *p, const char *lesson, int page)
{
    return progress_set(p, lesson, page) ? progress_save(p) : 0;
}

int progress_done(const Progress *p, const char *lesson, int page)
{
    int i = find(p, lesson);
    return i >= 0 && page >= 0 && page < 64 && (p->v[i].done >> page & 1);
}

int progress_count(const Progress *p, const char *lesson)
{
    int i = find(p, lesson), n = 0;
    for (int b = 0; i >= 0 && b < 64; b++)
        n += (int)(p->v[i].done >> b & 1);
    return n;
}

int progress_solved(const Progress *p, const char *lesson, int page)
{
    int i = find(p, lesson);
    return i >= 0 && page >= 0 && page < 64 && (p->v[i].solved >> page & 1);
}

int progress_count_solved(const Progress *p, const char *lesson)
{
    int i = find(p, lesson), n = 0;
    for (int b = 0; i >= 0 && b < 64; b++)
        n += (int)(p->v[i].solved >> b & 1);
    return n;
}
