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

KvLimit kv_limit_of(const Preset *p)
{
    KvLimit l = {0, 0, 0};
    l.window = p->window ? p->window : p->chunk;
    l.chunked = p->chunk != 0;
    if (l.window)
        l.local_layers = p->global_every ? p->layers - p->layers / p->global_every : p->layers;
    return l;
}

uint64_t kv_layer_tokens(long layers, const KvLimit *lim, long context)
{
    long local = lim && lim->window ? lim->local_layers : 0;
    long capped = local && lim->window < context ? lim->window : context;
    return (uint64_t)(layers - local) * (uint64_t)context + (uint64_t)local * (uint64_t)capped;
}

long kv_context_exceeding(uint64_t per_token_layer, long layers, const KvLimit *lim, uint64_t bytes)
{
    const long top = 1L << 40;
    /* (layers * 2^40 * per_token_layer) overflows only for absurd inputs: refuse them */
    if (per_token_layer == 0 || per_token_layer > UINT64_MAX / ((uint64_t)top * (uint64_t)layers))
        return 0;
    if (kv_layer_tokens(layers, lim, top) * per_token_layer <= bytes) return 0;
    long lo = 0, hi = top; /* cache(lo) <= bytes < cache(hi) */
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (kv_layer_tokens(layers, lim, mid) * per_token_layer > bytes)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

long kv_outgrows(uint64_t per_token_layer, long layers, const KvLimit *lim, uint64_t weights,
                 long batch)
{
    if (batch < 1) return 0;
    /* batch x cache > weights exactly when cache > floor(weights / batch) */
    return kv_context_exceeding(per_token_layer, layers, lim, weights / (uint64_t)batch);
}

/* Fills *r for kv_heads; -1 with err set on overflow. */
static int kv_row(const KvModel *m, const KvLimit *lim, long kv_heads, const char *label,
                  int is_model, int bits, long context, long batch, KvRow *r, char *err,
                  size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->label, sizeof r->label, "%s", label);
    r->kv_heads = kv_heads;
    r->is_model = is_model;
    uint64_t lt = kv_layer_tokens(m->layers, lim, context);
    if (kv_bytes_per_token(m->layers, kv_heads, m->d_head, bits, &r->per_token) != 0 ||
        kv_bytes_per_token(1, kv_heads, m->d_head, bits, &r->per_token_layer) != 0 ||
        (uint64_t)context > UINT64_MAX / (uint64_t)m->layers ||
        kv_bytes_total(r->per_token_layer, 1, 1, &r->per_context) != 0 ||
        mul_ok(&r->per_context, lt) != 0 ||
        kv_bytes_total(r->per_context, 1, batch, &r->total) != 0) {
        snprintf(err, errlen, "the %s cache size does not fit in 64 bits; use smaller values",
                 label);
        return -1;
    }
    return 0;
}

int kv_table(const KvModel *m, int bits, long context, long batch, KvRow rows[3], int *n, char *err,
             size_t errlen)
{
    return kv_table_limited(m, NULL, bits, context, batch, rows, n, err, errlen);
}

int kv_table_limited(const KvModel *m, const KvLimit *lim, int bits, long context, long batch,
                     KvRow rows[3], int *n, char *err, size_t errlen)
{
    if (context < 1 || batch < 1) {
        snprintf(err, errlen, "context and batch must be at least 1");
        return -1;
    }
    char own[32];
    snprintf(own, sizeof own, "%s (this model)", presets_kind(m->heads, m->kv_heads));
    *n = 0;
    if (m->kv_heads != m->heads &&
        kv_row(m, lim, m->heads, "MHA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (kv_row(m, lim, m->kv_heads, own, 1, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (m->kv_heads != 1 &&
        kv_row(m, lim, 1, "MQA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    return 0;
}

/* --- the command -------------------------------------------------------------- */

int kv_hypothetical(const Preset *p, long context, char *buf, size_t n)
{
    char a[40], b[40];
    if (n) buf[0] = 0;
    if (!p->context || context <= p->context) return 0;
    snprintf(buf, n, "hypothetical: %s tokens is beyond the %s the model was trained for",
             kv_fmt_int(a, sizeof a, (uint64_t)context),
             kv_fmt_int(b, sizeof b, (uint64_t)p->context));
    return 1;
}

/* --- decoding at real sizes -------------------------------------------------- */

int kv_decode_cost(const Preset *p, int bits, long context, KvDecodeCost *out, char *err,
                   size_t errlen)
{
    memset(out, 0, sizeof *out);
    KvModel m = {p->layers, p->heads, p->kv_heads, p->d_head};
    out->lim = kv_limit_of(p);
    out->context = context;
    out->hypothetical = p->context && context > p->context;
    if (kv_table_limited(&m, &out->lim, bits, context, 1, out->rows, &out->n, err, errlen) != 0)
        return -1;
    uint64_t params = (uint64_t)p->params;
    uint64_t active = p->active_params ? (uint64_t)p->active_params : params;
    out->weights = params * (uint64_t)bits / 8; /* params <= 10^14: no overflow */
    out->weights_read = active * (uint64_t)bits / 8;
    for (int i = 0; i < out->n && out->weights; i++)
        out->outgrows[i] =
            kv_outgrows(out->rows[i].per_token_layer, p->layers, &out->lim, out->weights, 1);
    return 0;
}

double kv_tokens_per_s(uint64_t bw, uint64_t weights_read, uint64_t cache_bytes, long batch)
{
    double bytes = (double)weights_read + (double)batch * (double)cache_bytes;
    return bytes > 0 ? (double)batch * (double)bw / bytes : 0;
}

uint64_t kv_sequences_fit(uint64_t mem, uint64_t weights, uint64_t cache_bytes)
{
    if (weights >= mem || cache_bytes == 0) return 0;
    return (mem - weights) / cache_bytes;
}
