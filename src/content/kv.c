/* kv.c - KV-cache arithmetic (the `mhaviz kv` command is cmd/kv_cmd.c). */
#include "content/kv.h"

#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
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

/* Bytes of `elems` numbers per layer over `layers` layers at `bits` each,
 * rounded up to whole bytes; -1 on overflow or a non-positive factor. */
static int elems_bytes(long layers, uint64_t elems, int bits, uint64_t *out)
{
    if (layers < 1 || elems < 1 || bits < 1) return -1;
    if (mul_ok(&elems, (uint64_t)layers) || mul_ok(&elems, (uint64_t)bits)) return -1;
    *out = elems / 8 + (elems % 8 != 0); /* bits -> bytes, rounded up */
    return 0;
}

int kv_bytes_per_token(long layers, long kv_heads, long d_head, int bits, uint64_t *out)
{
    if (kv_heads < 1 || d_head < 1) return -1;
    uint64_t elems = 2; /* K and V */
    if (mul_ok(&elems, (uint64_t)kv_heads) || mul_ok(&elems, (uint64_t)d_head)) return -1;
    return elems_bytes(layers, elems, bits, out);
}

int kv_bytes_per_token_mla(long layers, long kv_lora_rank, long qk_rope_head_dim, int bits,
                           uint64_t *out)
{
    if (kv_lora_rank < 1 || qk_rope_head_dim < 1) return -1;
    /* one latent c_kv and one k_pe per token per layer, no factor 2 */
    return elems_bytes(layers, (uint64_t)kv_lora_rank + (uint64_t)qk_rope_head_dim, bits, out);
}

KvModel kv_model_of(const Preset *p)
{
    return (KvModel){p->layers, p->heads,        p->kv_heads,
                     p->d_head, p->kv_lora_rank, p->qk_rope_head_dim};
}

const char *kv_kind(const KvModel *m)
{
    return m->kv_lora_rank ? "MLA" : presets_kind(m->heads, m->kv_heads);
}

int kv_model_bytes(const KvModel *m, int bits, uint64_t *per_token, uint64_t *per_layer)
{
    if (m->kv_lora_rank)
        return kv_bytes_per_token_mla(m->layers, m->kv_lora_rank, m->qk_rope_head_dim, bits,
                                      per_token) ||
                       kv_bytes_per_token_mla(1, m->kv_lora_rank, m->qk_rope_head_dim, bits,
                                              per_layer)
                   ? -1
                   : 0;
    return kv_bytes_per_token(m->layers, m->kv_heads, m->d_head, bits, per_token) ||
                   kv_bytes_per_token(1, m->kv_heads, m->d_head, bits, per_layer)
               ? -1
               : 0;
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
    return text_fmt_int(buf, n, (unsigned long long)v);
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

/* Fills *r for model v (the row's own layout); -1 with err set on overflow. */
static int kv_row(const KvModel *v, const KvLimit *lim, const char *label, int is_model, int bits,
                  long context, long batch, KvRow *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->label, sizeof r->label, "%s", label);
    r->kv_heads = v->kv_lora_rank ? 0 : v->kv_heads; /* MLA: one latent, no kv heads */
    r->is_model = is_model;
    uint64_t lt = kv_layer_tokens(v->layers, lim, context);
    if (kv_model_bytes(v, bits, &r->per_token, &r->per_token_layer) != 0 ||
        (uint64_t)context > UINT64_MAX / (uint64_t)v->layers ||
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
    snprintf(own, sizeof own, "%s (this model)", kv_kind(m));
    /* the counterfactuals cache K and V of d_head per head: all heads, one */
    KvModel mha = *m, mqa = *m;
    mha.kv_lora_rank = mha.qk_rope_head_dim = mqa.kv_lora_rank = mqa.qk_rope_head_dim = 0;
    mha.kv_heads = m->heads;
    mqa.kv_heads = 1;
    int mla = m->kv_lora_rank != 0;
    *n = 0;
    if ((mla || m->kv_heads != m->heads) &&
        kv_row(&mha, lim, "MHA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (kv_row(m, lim, own, 1, bits, context, batch, &rows[(*n)++], err, errlen) != 0) return -1;
    if ((mla || m->kv_heads != 1) &&
        kv_row(&mqa, lim, "MQA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    return 0;
}

int kv_layer_kinds(const KvModel *m, const KvLimit *lim, int bits, long context, KvLayerKind out[2],
                   int *n, char *err, size_t errlen)
{
    uint64_t per_token, per_layer;
    long local = lim && lim->window ? lim->local_layers : 0;
    *n = 0;
    if (context < 1 || kv_model_bytes(m, bits, &per_token, &per_layer) != 0) {
        snprintf(err, errlen, "the cache size does not fit in 64 bits; use smaller values");
        return -1;
    }
    for (int k = 0; k < 2; k++) {
        long layers = k == 0 ? m->layers - local : local;
        if (layers == 0) continue;
        KvLayerKind *o = &out[(*n)++];
        o->kind = k == 0 ? "full" : lim->chunked ? "chunked" : "sliding";
        o->layers = layers;
        o->window = k == 0 ? 0 : lim->window;
        o->kept = k == 0 || lim->window > context ? context : lim->window;
        o->bytes_per_token = per_layer;
        o->bytes = per_layer;
        if (mul_ok(&o->bytes, (uint64_t)layers) || mul_ok(&o->bytes, (uint64_t)o->kept)) {
            snprintf(err, errlen, "the cache size does not fit in 64 bits; use smaller values");
            return -1;
        }
    }
    return 0;
}

int kv_paged(const long *lengths, int n, long block, long prefix, long context, uint64_t per_token,
             KvPaged *out, KvPagedSeq *seqs, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (block < 1) {
        snprintf(err, errlen, "--block-size %ld: must be at least 1", block);
        return -1;
    }
    if (n < 1 || n > KV_MAX_SEQS) {
        snprintf(err, errlen, "--lengths: give 1 to %d sequence lengths", KV_MAX_SEQS);
        return -1;
    }
    if (prefix < 0) {
        snprintf(err, errlen, "--shared-prefix %ld: must be 0 or more", prefix);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (lengths[i] < 1) {
            snprintf(err, errlen, "--lengths: sequence %d has length %ld; a length is at least 1",
                     i + 1, lengths[i]);
            return -1;
        }
        if (prefix > lengths[i]) {
            snprintf(err, errlen,
                     "--shared-prefix %ld: longer than sequence %d (%ld tokens in --lengths)",
                     prefix, i + 1, lengths[i]);
            return -1;
        }
        if (lengths[i] > context) {
            snprintf(err, errlen,
                     "--lengths: sequence %d has %ld tokens, more than --context %ld (the "
                     "contiguous cache it is compared with holds %ld a sequence)",
                     i + 1, lengths[i], context, context);
            return -1;
        }
    }
    out->block = block, out->prefix = prefix, out->context = context, out->nseq = n;
    out->shared_blocks = prefix / block;
    out->prefix_tail = prefix % block;
    uint64_t shared_tokens = (uint64_t)out->shared_blocks * (uint64_t)block, sum_len = 0;
    out->total_blocks = (uint64_t)out->shared_blocks;
    out->used_tokens = shared_tokens;
    for (int i = 0; i < n; i++) { /* lengths <= 10^12, n <= 4096: no overflow here */
        KvPagedSeq *q = &seqs[i];
        q->length = lengths[i];
        q->blocks = (lengths[i] + block - 1) / block;
        q->own_blocks = q->blocks - out->shared_blocks;
        q->last_tokens = lengths[i] - (q->blocks - 1) * block;
        q->cow = out->prefix_tail != 0;
        out->total_blocks += (uint64_t)q->own_blocks;
        out->used_tokens += (uint64_t)lengths[i] - shared_tokens;
        sum_len += (uint64_t)lengths[i];
    }
    uint64_t rt = out->total_blocks, ct = (uint64_t)n;
    out->used = out->used_tokens, out->contig_used = sum_len;
    if (mul_ok(&rt, (uint64_t)block) || mul_ok(&ct, (uint64_t)context) || mul_ok(&rt, per_token) ||
        mul_ok(&ct, per_token) || mul_ok(&out->used, per_token) ||
        mul_ok(&out->contig_used, per_token)) {
        snprintf(err, errlen, "the paged cache size does not fit in 64 bits; use smaller values");
        return -1;
    }
    out->reserved = rt, out->waste = rt - out->used;
    out->contig_reserved = ct, out->contig_waste = ct - out->contig_used;
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
    KvModel m = kv_model_of(p);
    out->lim = kv_limit_of(p);
    out->context = context;
    out->hypothetical = p->context && context > p->context;
    if (kv_table_limited(&m, &out->lim, bits, context, 1, out->rows, &out->n, err, errlen) != 0)
        return -1;
    uint64_t params = (uint64_t)p->params;
    uint64_t active = p->active_params ? (uint64_t)p->active_params : params;
    out->weights = params * (uint64_t)bits / 8; /* params <= 10^14: no overflow */
    /* A step looks up one row of the input embedding, not the table: with an
     * untied table (Llama, Mistral) the other vocab - 1 rows are not read.
     * A tied one (GPT-2) is read whole by the output layer anyway. */
    if (p->vocab && !p->tied) active -= (uint64_t)(p->vocab - 1) * (uint64_t)p->d_model;
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
