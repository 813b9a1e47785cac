/* puzzle_best.c - the puzzles' best scores in the state dir (puzzle_best.h). */
#include "store/puzzle_best.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/state.h"

static const char header[] = "# mhaviz puzzle bests v1";

static int find(const PuzzleBests *b, const char *name)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->v[i].name, name)) return i;
    return -1;
}

static int name_ok(const char *s, size_t n)
{
    return state_key_ok(s, n, sizeof((PuzzleBests *)0)->v[0].name, "");
}

/* Keeps bytes for name when it beats what b has.  1 if b changed. */
static int keep_min(PuzzleBests *b, const char *name, long bytes)
{
    int i = find(b, name);
    if (i < 0) {
        if (b->n >= PUZZLE_BEST_MAX || !name_ok(name, strlen(name))) return 0;
        i = b->n++;
        snprintf(b->v[i].name, sizeof b->v[i].name, "%s", name);
        b->v[i].bytes = bytes;
        return 1;
    }
    if (bytes >= b->v[i].bytes) return 0;
    b->v[i].bytes = bytes;
    return 1;
}

int puzzle_best_parse(PuzzleBests *b, const char *text, char *err, size_t errlen)
{
    b->n = 0;
    int line = 0;
    const char *rest = text;
    char buf[128];
    int r;
    while ((r = state_next_line(&rest, header, &line, buf, sizeof buf, err, errlen)) > 0) {
        char *sp = strchr(buf, ' '), *end;
        long v = sp ? strtol(sp + 1, &end, 10) : -1;
        if (!sp || !name_ok(buf, (size_t)(sp - buf)) || !isdigit((unsigned char)sp[1]) || *end ||
            v < 0) {
            snprintf(err, errlen, "line %d: expected 'puzzle-name BYTES'", line);
            return -1;
        }
        *sp = 0;
        if (find(b, buf) >= 0 || b->n >= PUZZLE_BEST_MAX) {
            snprintf(err, errlen, "line %d: puzzle '%s' repeated or too many", line, buf);
            return -1;
        }
        keep_min(b, buf, v);
    }
    if (r < 0) return -1;
    if (line == 0) {
        snprintf(err, errlen, "the file is empty");
        return -1;
    }
    return 0;
}

static char *format(const PuzzleBests *b)
{
    size_t cap = sizeof header + 2 + (size_t)b->n * 64;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t k = (size_t)snprintf(out, cap, "%s\n", header);
    for (int i = 0; i < b->n; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s %ld\n", b->v[i].name, b->v[i].bytes);
    return out;
}

void puzzle_best_load(PuzzleBests *b, int no_save)
{
    memset(b, 0, sizeof *b);
    b->no_save = no_save;
    char *text = NULL, err[256], why[160], kept[160] = PUZZLE_BEST_FILE ".bad";
    size_t len = 0;
    int r = state_read(PUZZLE_BEST_FILE, &text, &len, err, sizeof err);
    if (r == 1) return;
    if (r < 0) {
        snprintf(b->warning, sizeof b->warning, "puzzle scores not saved this run: %.250s", err);
        b->no_save = 1;
        return;
    }
    if (strlen(text) != len || puzzle_best_parse(b, text, why, sizeof why) != 0) {
        if (strlen(text) != len) snprintf(why, sizeof why, "binary data");
        b->n = 0;
        if (no_save)
            snprintf(b->warning, sizeof b->warning,
                     "puzzle scores file is corrupt (%.100s): ignored", why);
        else if (state_keep_bad(PUZZLE_BEST_FILE, text, len, kept, sizeof kept, err, sizeof err) ==
                 0)
            snprintf(b->warning, sizeof b->warning,
                     "puzzle scores file was corrupt (%.100s): kept as %.60s, starting afresh", why,
                     kept);
        else {
            snprintf(b->warning, sizeof b->warning,
                     "puzzle scores file is corrupt (%.100s) and could not be kept: not saving",
                     why);
            b->no_save = 1;
        }
    }
    free(text);
}

long puzzle_best_get(const PuzzleBests *b, const char *name)
{
    int i = find(b, name);
    return i < 0 ? -1 : b->v[i].bytes;
}

/* Lock, re-read (another run's bests count too), keep the smaller, write. */
static int save_merged(PuzzleBests *b, char *err, size_t errlen)
{
    int lock = state_lock(err, errlen);
    if (lock < 0) return -1;
    char *text = NULL, why[160];
    size_t len = 0;
    int rc = state_read(PUZZLE_BEST_FILE, &text, &len, err, errlen);
    if (rc == 0) {
        PuzzleBests f;
        char kept[160];
        if (strlen(text) == len && puzzle_best_parse(&f, text, why, sizeof why) == 0)
            for (int i = 0; i < f.n; i++)
                keep_min(b, f.v[i].name, f.v[i].bytes);
        else /* corrupted since the load: kept aside before it is replaced */
            rc = state_keep_bad(PUZZLE_BEST_FILE, text, len, kept, sizeof kept, err, errlen);
    }
    free(text);
    char *out = rc >= 0 ? format(b) : NULL;
    if (rc >= 0 && !out) snprintf(err, errlen, "out of memory");
    rc = out ? state_write(PUZZLE_BEST_FILE, out, strlen(out), err, errlen) : -1;
    state_unlock(lock);
    free(out);
    return rc;
}

int puzzle_best_record(PuzzleBests *b, const char *name, long bytes)
{
    if (bytes < 0 || !keep_min(b, name, bytes)) return 0;
    char err[256];
    if (!b->no_save && save_merged(b, err, sizeof err) != 0) {
        snprintf(b->warning, sizeof b->warning, "puzzle scores not saved: %.250s", err);
        b->no_save = 1;
    }
    return 1;
}
