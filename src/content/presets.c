/* presets.c - parser for assets/models.presets (format: see that file). */
#include "content/presets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/textutil.h"
#include "content/content.h"

void presets_free(PresetList *p)
{
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

const Preset *presets_find(const PresetList *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->v[i].name, name) == 0) return &p->v[i];
    return NULL;
}

const char *presets_suggest(const PresetList *p, const char *name)
{
    const char **names = malloc((size_t)(p->n ? p->n : 1) * sizeof *names);
    if (!names) return NULL;
    for (int i = 0; i < p->n; i++)
        names[i] = p->v[i].name;
    const char *s = text_suggest(name, names, p->n);
    free(names);
    return s;
}

const char *presets_kind(long heads, long kv_heads)
{
    return kv_heads == heads ? "MHA" : kv_heads == 1 ? "MQA" : "GQA";
}

static int copy_field(char *dst, size_t n, const char *val)
{
    if (strlen(val) >= n) return -1;
    memcpy(dst, val, strlen(val) + 1);
    return 0;
}

/* The keys of a preset block: one table parses them and lists them in the
 * error for an unknown key.  PK_INT is a whole number in 1..10^8, PK_BIG one
 * in 1..10^14 (parameter counts), PK_TEXT a string of at most size - 1 bytes. */
typedef enum { PK_INT, PK_BIG, PK_TEXT } PresetKeyKind;
#define PK(key, kind, field)                                                                       \
    {                                                                                              \
        key, kind, offsetof(Preset, field), sizeof(((Preset *)0)->field)                           \
    }
static const struct {
    const char *key;
    PresetKeyKind kind;
    size_t off, size;
} preset_keys[] = {
    PK("title", PK_TEXT, title),
    PK("layers", PK_INT, layers),
    PK("heads", PK_INT, heads),
    PK("kv_heads", PK_INT, kv_heads),
    PK("d_head", PK_INT, d_head),
    PK("d_model", PK_INT, d_model),
    PK("context", PK_INT, context),
    PK("window", PK_INT, window),
    PK("chunk", PK_INT, chunk),
    PK("global_every", PK_INT, global_every),
    PK("kv_lora_rank", PK_INT, kv_lora_rank),
    PK("qk_rope_head_dim", PK_INT, qk_rope_head_dim),
    PK("params", PK_BIG, params),
    PK("active_params", PK_BIG, active_params),
    PK("vocab", PK_INT, vocab),
    PK("tied", PK_INT, tied),
    PK("source", PK_TEXT, source),
    PK("note", PK_TEXT, note),
};
#undef PK
#define N_PRESET_KEYS (int)(sizeof preset_keys / sizeof *preset_keys)

/* Sets key of p from val; -1 with err set (at file:lineno) when the key is
 * unknown or the value does not fit it. */
static int set_key(Preset *p, const char *key, const char *val, const char *file, int lineno,
                   char *err, size_t errlen)
{
    for (int i = 0; i < N_PRESET_KEYS; i++) {
        if (strcmp(key, preset_keys[i].key)) continue;
        char *at = (char *)p + preset_keys[i].off, *end;
        if (preset_keys[i].kind == PK_TEXT) {
            if (copy_field(at, preset_keys[i].size, val) == 0) return 0;
            err_at(err, errlen, file, lineno, "%s is longer than %zu bytes", key,
                   preset_keys[i].size - 1);
            return -1;
        }
        int big = preset_keys[i].kind == PK_BIG;
        errno = 0;
        long long v = strtoll(val, &end, 10), max = big ? 100000000000000LL : 100000000;
        if (errno || end == val || *end || v < 1 || v > max) {
            err_at(err, errlen, file, lineno, "%s '%s' is not a whole number in 1..%s", key, val,
                   big ? "10^14" : "100000000");
            return -1;
        }
        if (big)
            *(long long *)(void *)at = v;
        else
            *(long *)(void *)at = (long)v;
        return 0;
    }
    const char *names[N_PRESET_KEYS], *best;
    char list[400] = "";
    size_t k = 0;
    for (int i = 0; i < N_PRESET_KEYS; i++) {
        names[i] = preset_keys[i].key;
        if (k < sizeof list)
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? " " : "", names[i]);
    }
    if ((best = text_suggest(key, names, N_PRESET_KEYS)) != NULL)
        err_at(err, errlen, file, lineno, "unknown key '%s' (did you mean '%s'?)", key, best);
    else
        err_at(err, errlen, file, lineno, "unknown key '%s' (keys: %s)", key, list);
    return -1;
}

/* Checks a finished block; -1 with err set. */
static int check_preset(const char *file, const Preset *p, char *err, size_t errlen)
{
    const char *missing = !p->title[0]    ? "title"
                          : !p->layers    ? "layers"
                          : !p->heads     ? "heads"
                          : !p->kv_heads  ? "kv_heads"
                          : !p->d_head    ? "d_head"
                          : !p->d_model   ? "d_model"
                          : !p->source[0] ? "source"
                                          : NULL;
    if (missing) {
        err_at(err, errlen, file, p->line, "[%s] has no %s", p->name, missing);
        return -1;
    }
    if (p->heads % p->kv_heads != 0) {
        err_at(err, errlen, file, p->line, "[%s] kv_heads %ld does not divide heads %ld", p->name,
               p->kv_heads, p->heads);
        return -1;
    }
    if (p->window && p->chunk) {
        err_at(err, errlen, file, p->line,
               "[%s] has both window and chunk (one kind of local layer)", p->name);
        return -1;
    }
    if (p->global_every && !p->window && !p->chunk) {
        err_at(err, errlen, file, p->line, "[%s] global_every without window or chunk", p->name);
        return -1;
    }
    if (p->active_params > p->params) {
        err_at(err, errlen, file, p->line, "[%s] active_params is more than params", p->name);
        return -1;
    }
    if (p->tied > 1 || (p->tied && !p->vocab)) {
        err_at(err, errlen, file, p->line, "[%s] tied is 1 (with vocab) or left out", p->name);
        return -1;
    }
    if (p->vocab &&
        (long long)p->vocab * p->d_model > (p->active_params ? p->active_params : p->params)) {
        err_at(err, errlen, file, p->line,
               "[%s] vocab x d_model is more than the params read per token", p->name);
        return -1;
    }
    if (!p->kv_lora_rank != !p->qk_rope_head_dim) {
        err_at(err, errlen, file, p->line,
               "[%s] MLA needs both kv_lora_rank and qk_rope_head_dim (the cached latent and "
               "its RoPE key)",
               p->name);
        return -1;
    }
    return 0;
}

int presets_parse(const char *file, const char *text, PresetList *out, char *err, size_t errlen)
{
    out->v = NULL;
    out->n = 0;
    int cap = 0, lineno = 0;
    Preset *cur = NULL;
    const char *s = text;
    while (*s) {
        char line[1024];
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        lineno++;
        if (n >= sizeof line) {
            err_at(err, errlen, file, lineno, "line longer than %zu bytes", sizeof line - 1);
            goto fail;
        }
        memcpy(line, s, n);
        line[n] = 0;
        s = eol ? eol + 1 : s + n;
        char *l = text_trim(line);
        if (!*l || *l == '#') continue;
        if (*l == '[') {
            char *close = strchr(l, ']');
            if (!close || close[1] || close == l + 1) {
                err_at(err, errlen, file, lineno, "expected [name]");
                goto fail;
            }
            *close = 0;
            if (cur && check_preset(file, cur, err, errlen) != 0) goto fail;
            if (presets_find(out, l + 1)) {
                err_at(err, errlen, file, lineno, "preset '%s' is defined twice", l + 1);
                goto fail;
            }
            if (out->n == cap) {
                cap = cap ? cap * 2 : 16;
                Preset *nv = realloc(out->v, (size_t)cap * sizeof *nv);
                if (!nv) {
                    err_at(err, errlen, file, lineno, "out of memory");
                    goto fail;
                }
                out->v = nv;
            }
            cur = &out->v[out->n++];
            memset(cur, 0, sizeof *cur);
            cur->line = lineno;
            if (copy_field(cur->name, sizeof cur->name, l + 1) != 0) {
                err_at(err, errlen, file, lineno, "preset name is too long");
                goto fail;
            }
            continue;
        }
        char *eq = strchr(l, '=');
        if (!eq) {
            err_at(err, errlen, file, lineno, "expected 'key = value' or [name]");
            goto fail;
        }
        *eq = 0;
        char *key = text_trim(l), *val = text_trim(eq + 1);
        if (!cur) {
            err_at(err, errlen, file, lineno, "'%s' before the first [name]", key);
            goto fail;
        }
        if (set_key(cur, key, val, file, lineno, err, errlen) != 0) goto fail;
    }
    if (cur && check_preset(file, cur, err, errlen) != 0) goto fail;
    if (out->n == 0) {
        err_at(err, errlen, file, lineno ? lineno : 1, "no presets");
        goto fail;
    }
    return 0;
fail:
    presets_free(out);
    return -1;
}

int presets_builtin(PresetList *out, char *err, size_t errlen)
{
    const ContentFile *f = content_find(PRESETS_FILE);
    if (!f) {
        out->v = NULL;
        out->n = 0;
        snprintf(err, errlen, "%s is not compiled in", PRESETS_FILE);
        return -1;
    }
    return presets_parse(PRESETS_FILE, f->text, out, err, errlen);
}
