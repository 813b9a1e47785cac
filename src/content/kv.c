/* kv.c - KV-cache arithmetic (the `mhaviz kv` command is cmd/kv_cmd.c). */
#include "content/kv.h"

#include <stdio.h>
#include <string.h>

#include "content/presets.h"


const KvDtype kv_dtypes[] = {
    {"fp32", 32}, {"fp16", 16}, {"bf16", 16}, {"fp8", 8}, {"int4", 4}, {NULL, 0},
};

const KvDtype *kv_dtype(const char *name)
{
    for (const KvDtype *d = kv_dtypes; d->name; d++)
        if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

/* *acc *= f, refusing overflow. */
static int mul_ok(uint64_t *acc, uint64_t f)
{
    if (f != 0 && *acc > UINT64_MAX / f) return -1;
    *acc *= f;
    return 0;
}

int kv_bytes_per_token(long layers, long kv_heads, long d_head, int bits, uint64_t *out)
{
    if (layers < 1 || kv_heads < 1 || d_head < 1 || bits < 1) return -1;
    uint64_t elems = 2; /* K and V */
    if (mul_ok(&elems, (uint64_t)layers) || mul_ok(&elems, (uint64_t)kv_heads) ||
        mul_ok(&elems, (uint64_t)d_head) || mul_ok(&elems, (uint64_t)bits))
        return -1;
    *out = elems / 8 + (elems % 8 != 0); /* bits -> bytes, rounded up */
    return 0;
}

int kv_bytes_total(uint64_t per_token, long context, long batch, uint64_t *out)
{
    if (context < 1 || batch < 1) return -1;
    uint64_t v = per_token;
    if (mul_ok(&v, (uint64_t)context) || mul_ok(&v, (uint64_t)batch)) return -1;
    *out = v;
    return 0;
}

char *kv_fmt_int(char *buf, size_t n, uint64_t v)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 2 < n) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    if (n) buf[o < n ? o : n - 1] = 0;
    return buf;
}

char *kv_fmt_size(char *buf, size_t n, uint64_t v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 6) {
        d /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%llu B", (unsigned long long)v);
    else
        snprintf(buf, n, "%.*f %s", d < 10 ? 2 : 1, d, unit[u]);
    return buf;
}

/* Fills *r for kv_heads; -1 with err set on overflow. */
static int kv_row(const KvModel *m, long kv_heads, const char *label, int is_model, int bits,
                  long context, long batch, KvRow *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->label, sizeof r->label, "%s", label);
    r->kv_heads = kv_heads;
    r->is_model = is_model;
    if (kv_bytes_per_token(m->layers, kv_heads, m->d_head, bits, &r->per_token) != 0 ||
        kv_bytes_total(r->per_token, context, 1, &r->per_context) != 0 ||
        kv_bytes_total(r->per_token, context, batch, &r->total) != 0) {
        snprintf(err, errlen, "the %s cache size does not fit in 64 bits; use smaller values",
                 label);
        return -1;
    }
    return 0;
}

int kv_table(const KvModel *m, int bits, long context, long batch, KvRow rows[3], int *n, char *err,
             size_t errlen)
{
    char own[32];
    snprintf(own, sizeof own, "%s (this model)", presets_kind(m->heads, m->kv_heads));
    *n = 0;
    if (m->kv_heads != m->heads &&
        kv_row(m, m->heads, "MHA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (kv_row(m, m->kv_heads, own, 1, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (m->kv_heads != 1 &&
        kv_row(m, 1, "MQA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    return 0;
}

/* --- the command -------------------------------------------------------------- */
