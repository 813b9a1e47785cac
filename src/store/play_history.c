/* play_history.c - the playground's statements in the state dir, merged under
 * the lock so that two sessions at once keep both (play_history.h). */
#include "store/play_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/play.h"
#include "store/state.h"

int play_history_add(PlayHistory *h, const char *stmt)
{
    size_t len = strlen(stmt);
    if (!len || len > PLAY_LINE_MAX || strpbrk(stmt, "\r\n")) return 0;
    if (h->n && !strcmp(h->line[h->n - 1], stmt)) return 0;
    char *copy = malloc(len + 1);
    if (!copy) return 0;
    memcpy(copy, stmt, len + 1);
    if (h->n == PLAY_HISTORY_MAX) { /* the oldest goes */
        free(h->line[0]);
        memmove(h->line, h->line + 1, sizeof *h->line * (PLAY_HISTORY_MAX - 1));
        h->n--;
    }
    h->line[h->n++] = copy;
    if (h->unsaved < h->n) h->unsaved++;
    return 1;
}

void play_history_free(PlayHistory *h)
{
    for (int i = 0; i < h->n; i++)
        free(h->line[i]);
    memset(h, 0, sizeof *h);
}

/* The file's text (len bytes, NUL-terminated) into the empty h, nothing of it
 * unsaved.  1 when it holds what this module never writes (a NUL byte, a line
 * too long or with a '\r'): those are skipped, the rest is in h. */
static int parse(PlayHistory *h, char *text, size_t len)
{
    int bad = strlen(text) != len;
    for (char *s = text, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (nl) *nl = 0;
        if (s[0] && !play_history_add(h, s) && (strlen(s) > PLAY_LINE_MAX || strchr(s, '\r')))
            bad = 1;
        if (!nl) break;
    }
    h->unsaved = 0;
    return bad;
}

void play_history_load(PlayHistory *h)
{
    char *text = NULL, err[300];
    size_t len = 0;
    memset(h, 0, sizeof *h);
    if (state_read(PLAY_HISTORY_FILE, &text, &len, err, sizeof err) == 0 && text)
        (void)parse(h, text, len);
    free(text);
}

/* h's lines, one a line; a new string (caller frees) or NULL. */
static char *format(const PlayHistory *h, size_t *len)
{
    size_t n = 1, k = 0;
    for (int i = 0; i < h->n; i++)
        n += strlen(h->line[i]) + 1;
    char *out = malloc(n);
    if (!out) return NULL;
    for (int i = 0; i < h->n; i++) {
        size_t l = strlen(h->line[i]);
        memcpy(out + k, h->line[i], l);
        k += l;
        out[k++] = '\n';
    }
    out[k] = 0;
    *len = k;
    return out;
}

int play_history_save(PlayHistory *h, char *err, size_t errlen)
{
    if (h->unsaved == 0) return 0;
    int lock = state_lock_within(PLAY_HISTORY_LOCK_MS, err, errlen);
    if (lock < 0) return -1;
    char *text = NULL, *out = NULL, kept[160];
    size_t len = 0;
    PlayHistory f = {{0}, 0, 0};
    int rc = state_read(PLAY_HISTORY_FILE, &text, &len, err, errlen);
    if (rc == 0 && parse(&f, text, len)) /* never replace a file we could not keep */
        rc = state_keep_bad(PLAY_HISTORY_FILE, text, len, kept, sizeof kept, err, errlen);
    if (rc >= 0) { /* the file as it is now, then this session's new lines */
        for (int i = h->n - h->unsaved; i < h->n; i++)
            play_history_add(&f, h->line[i]);
        out = format(&f, &len);
        if (!out) snprintf(err, errlen, "play history: out of memory");
        rc = out ? state_write(PLAY_HISTORY_FILE, out, len, err, errlen) : -1;
    }
    state_unlock(lock);
    free(text);
    free(out);
    play_history_free(&f);
    if (rc == 0) h->unsaved = 0;
    return rc < 0 ? -1 : 0;
}
