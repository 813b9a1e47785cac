/* config_kv.c - key=value words into a MhaConfig: one row a key (its name,
 * what it holds, where it goes), for every @config the content files have. */
#include "content/config_kv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "engine/rope.h"

typedef enum { CK_SIZE, CK_SEED, CK_BOOL, CK_ROPE, CK_THETA } CkKind;

#define CK(name, kind, field)                                                                      \
    {                                                                                              \
        name, kind, offsetof(MhaConfig, field)                                                     \
    }
static const struct {
    const char *name;
    CkKind kind;
    size_t off;
} keys[] = {
    CK("batch", CK_SIZE, batch),
    CK("seq", CK_SIZE, seq),
    CK("d_model", CK_SIZE, d_model),
    CK("heads", CK_SIZE, heads),
    CK("kv_heads", CK_SIZE, kv_heads),
    CK("seed", CK_SEED, seed),
    CK("causal", CK_BOOL, causal),
    CK("window", CK_SIZE, window), /* the band of the causal mask; mha_config_check's rules */
    CK("rope", CK_ROPE, rope),
    CK("rope_theta", CK_THETA, rope_theta),
};
#undef CK
#define N_KEYS (int)(sizeof keys / sizeof *keys)

char *config_kv_keys(char *buf, size_t n)
{
    size_t o = 0;
    if (!n) return buf;
    buf[0] = 0;
    for (int k = 0; k < N_KEYS; k++) {
        size_t len = strlen(keys[k].name) + (k > 0);
        if (o + len >= n) break; /* whole keys only */
        o += (size_t)snprintf(buf + o, n - o, "%s%s", k ? " " : "", keys[k].name);
    }
    return buf;
}

/* The values of rope= (rope_layout_of reads them; "off" turns it off). */
static const char *const rope_values[] = {"off", "half", "interleaved"};

/* rope_theta=N: digits, then at most one '.' and digits ("10000", "0.5"), as
 * the command line's --rope-theta reads it; 0 with *out set, else -1. */
static int theta_of(const char *val, double *out)
{
    size_t n = strspn(val, "0123456789"), f = val[n] == '.' ? strspn(val + n + 1, "0123456789") : 0;
    int ok = n && n + f <= 40 && (!val[n] || (val[n] == '.' && f && !val[n + 1 + f]));
    *out = ok ? strtod(val, NULL) : 0;
    return ok && *out > 0 ? 0 : -1;
}

int config_kv_set(MhaConfig *c, const char *word, int *kv_given, char *err, size_t errlen)
{
    const char *eq = strchr(word, '=');
    if (!eq) {
        snprintf(err, errlen, "expected key=value, got '%.60s'", word);
        return -1;
    }
    char key[48], h[200];
    snprintf(key, sizeof key, "%.*s", (int)(eq - word < 47 ? eq - word : 47), word);
    const char *val = eq + 1;
    int k = 0;
    while (k < N_KEYS && strcmp(key, keys[k].name))
        k++;
    if (k == N_KEYS) {
        const char *names[N_KEYS];
        for (int i = 0; i < N_KEYS; i++)
            names[i] = keys[i].name;
        snprintf(err, errlen, "unknown key '%.40s'%s", key,
                 text_hint(h, sizeof h, "", key, names, N_KEYS));
        return -1;
    }
    char *at = (char *)c + keys[k].off;
    if (keys[k].kind == CK_ROPE) {
        int r = strcmp(val, "off") ? rope_layout_of(val) : ROPE_OFF;
        if (r < 0) {
            snprintf(err, errlen, "rope '%.40s' is not a layout%s", val,
                     text_hint(h, sizeof h, "", val, rope_values, 3));
            return -1;
        }
        *(RopeLayout *)(void *)at = (RopeLayout)r;
        return 0;
    }
    if (keys[k].kind == CK_THETA) {
        double t;
        if (theta_of(val, &t) != 0) {
            snprintf(err, errlen, "rope_theta '%.40s' is not a positive number", val);
            return -1;
        }
        if (t > ROPE_THETA_MAX) {
            snprintf(err, errlen, "rope_theta '%.40s' must be at most %g", val, ROPE_THETA_MAX);
            return -1;
        }
        *(double *)(void *)at = t;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (!*val || *end || errno || v < 0 || v > 4294967295L) {
        snprintf(err, errlen, "%s '%.40s' is not a whole number", key, val);
        return -1;
    }
    if (keys[k].kind == CK_SEED) {
        *(uint32_t *)(void *)at = (uint32_t)v;
        return 0;
    }
    if (keys[k].kind == CK_BOOL && v > 1) {
        snprintf(err, errlen, "%s must be 0 or 1, got %ld", key, v);
        return -1;
    }
    /* the value as written, for mha_config_check to judge and to name
     * ("--seq 999999: must be between 1 and 1024"); only what no int holds
     * is refused here */
    if (v > INT_MAX) {
        snprintf(err, errlen, "%s '%.40s' is too large (at most %d)", key, val, INT_MAX);
        return -1;
    }
    *(int *)(void *)at = (int)v;
    if (keys[k].off == offsetof(MhaConfig, kv_heads)) *kv_given = 1;
    return 0;
}

void config_kv_finish(MhaConfig *c, const MhaConfig *base, int kv_given)
{
    if (!kv_given && base->kv_heads == base->heads) c->kv_heads = c->heads;
}
