/* walk_place.c - the walkthrough's place in the state dir (format: walk_place.h). */
#include "store/walk_place.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rope.h"
#include "store/state.h"

static const char header[] = "# mhaviz walkthrough v1";

/* The keys, in the order they are written; each must be there once. */
static const char *const keys[] = {"step",   "batch", "seq",  "d_model",    "heads", "kv_heads",
                                   "causal", "seed",  "rope", "rope_theta", "window"};
#define NKEYS ((int)(sizeof keys / sizeof *keys))

/* A plain decimal (no sign, no spaces, like the command line's) at most max. */
static int read_long(const char *s, long max, long *out)
{
    if (!isdigit((unsigned char)s[0])) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v > max) return -1;
    *out = v;
    return 0;
}

/* Stores value s of key k into w; -1 when it is not a value of that key. */
static int set_key(WalkPlace *w, int k, const char *s)
{
    long v = 0;
    if (k == 8) { /* rope */
        for (int l = ROPE_OFF; l < ROPE_LAYOUTS; l++)
            if (!strcmp(s, rope_layout_name((RopeLayout)l))) {
                w->cfg.rope = (RopeLayout)l;
                return 0;
            }
        return -1;
    }
    if (k == 9) { /* rope_theta */
        char *end;
        double d = strtod(s, &end);
        if (!isdigit((unsigned char)s[0]) || *end || !(d > 0) || d > ROPE_THETA_MAX) return -1;
        w->cfg.rope_theta = d;
        return 0;
    }
    if (read_long(s, k == 7 ? 4294967295L : 1L << 30, &v) < 0) return -1;
    if (k == 7) {
        w->cfg.seed = (uint32_t)v;
        return 0;
    }
    int *const field[] = {&w->step,      &w->cfg.batch,    &w->cfg.seq,    &w->cfg.d_model,
                          &w->cfg.heads, &w->cfg.kv_heads, &w->cfg.causal, [10] = &w->cfg.window};
    *field[k] = (int)v;
    if (k == 6 && v > 1) return -1; /* causal is 0 or 1 */
    return 0;
}

int walk_place_parse(WalkPlace *w, const char *text, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->cfg = mha_config_default();
    int line = 0, seen[NKEYS] = {0};
    const char *rest = text;
    char buf[128];
    int r;
    while ((r = state_next_line(&rest, header, &line, buf, sizeof buf, err, errlen)) > 0) {
        char *sp = strchr(buf, ' ');
        int k = -1;
        if (sp) {
            *sp = 0;
            for (int i = 0; i < NKEYS && k < 0; i++)
                if (!strcmp(buf, keys[i])) k = i;
        }
        if (k < 0) {
            snprintf(err, errlen, "line %d: expected 'KEY VALUE' with KEY one of step, batch, ...",
                     line);
            return -1;
        }
        if (seen[k]++) {
            snprintf(err, errlen, "line %d: '%s' repeated", line, keys[k]);
            return -1;
        }
        if (set_key(w, k, sp + 1) < 0) {
            snprintf(err, errlen, "line %d: '%.40s' is not a value of %s", line, sp + 1, keys[k]);
            return -1;
        }
    }
    if (r < 0) return -1;
    if (line == 0) {
        snprintf(err, errlen, "the file is empty");
        return -1;
    }
    for (int i = 0; i < NKEYS; i++)
        if (!seen[i]) {
            snprintf(err, errlen, "'%s' is missing", keys[i]);
            return -1;
        }
    char why[200];
    if (mha_config_check(&w->cfg, why, sizeof why) < 0) {
        snprintf(err, errlen, "not a valid configuration (%.150s)", why);
        return -1;
    }
    if (w->step >= mha_step_total(&w->cfg)) {
        snprintf(err, errlen, "step %d: the steps of this run are 0 to %d", w->step,
                 mha_step_total(&w->cfg) - 1);
        return -1;
    }
    return 0;
}

char *walk_place_format(const WalkPlace *w)
{
    const MhaConfig *c = &w->cfg;
    size_t cap = 512;
    char *out = malloc(cap);
    if (!out) return NULL;
    snprintf(out, cap,
             "%s\nstep %d\nbatch %d\nseq %d\nd_model %d\nheads %d\nkv_heads %d\ncausal %d\n"
             "seed %lu\nrope %s\nrope_theta %.17g\nwindow %d\n",
             header, w->step, c->batch, c->seq, c->d_model, c->heads, c->kv_heads, c->causal,
             (unsigned long)c->seed, rope_layout_name(c->rope), c->rope_theta, c->window);
    return out;
}

int walk_place_load(WalkPlace *w, int no_save, int *no_write, char *warning, size_t warnlen)
{
    warning[0] = 0;
    char *text = NULL, err[256], why[200], kept[160] = WALK_PLACE_FILE ".bad";
    size_t len = 0;
    int r = state_read(WALK_PLACE_FILE, &text, &len, err, sizeof err);
    if (r == 1) return 0;
    if (r < 0) {
        snprintf(warning, warnlen, "walkthrough place not saved this run: %.250s", err);
        *no_write = 1;
        return 0;
    }
    int found = 1;
    if (strlen(text) != len || walk_place_parse(w, text, why, sizeof why) != 0) {
        if (strlen(text) != len) snprintf(why, sizeof why, "binary data");
        found = 0;
        if (no_save)
            snprintf(warning, warnlen, "walkthrough place file is corrupt (%.100s): ignored", why);
        else if (state_keep_bad(WALK_PLACE_FILE, text, len, kept, sizeof kept, err, sizeof err) ==
                 0)
            snprintf(warning, warnlen, "walkthrough place was corrupt: kept as %.60s (%.100s)",
                     kept, why);
        else {
            snprintf(warning, warnlen,
                     "walkthrough place file is corrupt (%.100s) and could not be kept: not saving",
                     why);
            *no_write = 1;
        }
    }
    free(text);
    if (!found) memset(w, 0, sizeof *w), w->cfg = mha_config_default();
    return found;
}

int walk_place_save(const WalkPlace *w, char *err, size_t errlen)
{
    char *out = walk_place_format(w);
    if (!out) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int lock = state_lock(err, errlen);
    int rc = lock < 0 ? -1 : state_write(WALK_PLACE_FILE, out, strlen(out), err, errlen);
    if (lock >= 0) state_unlock(lock);
    free(out);
    return rc;
}
