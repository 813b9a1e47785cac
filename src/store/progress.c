/* progress.c - lesson progress in the state directory (format: progress.h). */
#include "store/progress.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/state.h"

static const char header[] = "# mhaviz lesson progress v1";

static int find(const Progress *p, const char *lesson)
{
    for (int i = 0; i < p->n; i++)
        if (!strcmp(p->v[i].name, lesson)) return i;
    return -1;
}

static int name_ok(const char *s, size_t n)
{
    if (n == 0 || n >= sizeof((Progress *)0)->v[0].name) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.') return 0;
    return 1;
}

int progress_parse(Progress *p, const char *text, char *err, size_t errlen)
{
    p->n = 0;
    int line = 0;
    for (const char *s = text; *s;) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        line++;
        char buf[512];
        if (n >= sizeof buf) {
            snprintf(err, errlen, "line %d is too long", line);
            return -1;
        }
        memcpy(buf, s, n);
        buf[n] = 0;
        s += n + (eol ? 1 : 0);
        if (line == 1) {
            if (strcmp(buf, header) != 0) {
                snprintf(err, errlen, "line 1 is not '%s'", header);
                return -1;
            }
            continue;
        }
        if (!buf[0]) continue;
        char *sp = strchr(buf, ' ');
        if (!sp || !name_ok(buf, (size_t)(sp - buf))) {
            snprintf(err, errlen, "line %d: expected 'lesson-name 1,2,3'", line);
            return -1;
        }
        *sp = 0;
        if (find(p, buf) >= 0 || p->n >= PROGRESS_MAX_LESSONS) {
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
        memcpy(p->v[p->n].name, buf, strlen(buf) + 1); /* name_ok: shorter than the field */
        p->v[p->n++].done = done;
    }
    if (line == 0) {
        snprintf(err, errlen, "the file is empty");
        return -1;
    }
    return 0;
}

char *progress_format(const Progress *p)
{
    size_t cap = sizeof header + 1 + (size_t)p->n * (64 + 64 * 3 + 2);
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t o = (size_t)snprintf(out, cap, "%s\n", header);
    for (int i = 0; i < p->n; i++) {
        if (!p->v[i].done) continue;
        o += (size_t)snprintf(out + o, cap - o, "%s ", p->v[i].name);
        int first = 1;
        for (int b = 0; b < 64; b++)
            if (p->v[i].done >> b & 1) {
                o += (size_t)snprintf(out + o, cap - o, "%s%d", first ? "" : ",", b + 1);
                first = 0;
            }
        o += (size_t)snprintf(out + o, cap - o, "\n");
    }
    return out;
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
        /* Keep the bad file before anything overwrites it. */
        if (!no_save && state_write(PROGRESS_FILE ".bad", text, len, err, sizeof err) == 0)
            snprintf(p->warning, sizeof p->warning,
                     "progress file was corrupt (%.100s): kept as progress.bad, starting afresh",
                     why);
        else if (!no_save) {
            snprintf(p->warning, sizeof p->warning,
                     "progress file is corrupt (%.100s) and could not be backed up: not saving",
                     why);
            p->no_save = 1;
        } else
            snprintf(p->warning, sizeof p->warning, "progress file is corrupt (%.100s): ignored",
                     why);
    }
    free(text);
}

int progress_mark(Progress *p, const char *lesson, int page)
{
    if (page < 0 || page >= 64 || !name_ok(lesson, strlen(lesson)))
        return 0; /* not something we can record; nothing to report */
    int i = find(p, lesson);
    if (i < 0) {
        if (p->n >= PROGRESS_MAX_LESSONS) return 0;
        i = p->n++;
        snprintf(p->v[i].name, sizeof p->v[i].name, "%s", lesson);
        p->v[i].done = 0;
    }
    uint64_t bit = (uint64_t)1 << page;
    if (p->v[i].done & bit) return 0;
    p->v[i].done |= bit;
    if (p->no_save) return 0;
    char *text = progress_format(p), err[256];
    if (!text || state_write(PROGRESS_FILE, text, strlen(text), err, sizeof err) != 0) {
        snprintf(p->warning, sizeof p->warning, "progress not saved: %.250s",
                 text ? err : "out of memory");
        p->no_save = 1; /* report once, not on every page */
        free(text);
        return -1;
    }
    free(text);
    return 0;
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
