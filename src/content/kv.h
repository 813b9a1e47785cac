/* kv.h - KV-cache arithmetic: how many bytes the cached keys and values take.
 *
 *   bytes = 2 (K and V) * layers * kv_heads * d_head * bits/8 * context * batch
 *
 * All in unsigned 64-bit; a product that would overflow is refused (-1), never
 * wrapped.
 */
#ifndef MHAVIZ_KV_H
#define MHAVIZ_KV_H

#include <stddef.h>
#include <stdint.h>

/* The largest context and batch anyone may ask for: `mhaviz kv`'s flags and
 * the calculator screen's +/B keys stop here. */
#define KV_MAX_CONTEXT 1000000000000L /* 10^12 tokens */
#define KV_MAX_BATCH 1000000000L      /* 10^9 sequences */

typedef struct KvDtype {
    const char *name; /* "fp16" */
    int bits;         /* 16 */
} KvDtype;

extern const KvDtype kv_dtypes[]; /* fp32 fp16 bf16 fp8 int4, then {NULL, 0} */

/* The dtype called name, or NULL. */
const KvDtype *kv_dtype(const char *name);

/* Bytes of K and V cached per token (all layers).  0, or -1 on overflow or a
 * zero/negative input.  With 4-bit elements an odd element count rounds up
 * to whole bytes. */
int kv_bytes_per_token(long layers, long kv_heads, long d_head, int bits, uint64_t *out);

/* per_token * context * batch; -1 on overflow or a non-positive factor. */
int kv_bytes_total(uint64_t per_token, long context, long batch, uint64_t *out);

/* "327,680" into buf; returns buf. */
char *kv_fmt_int(char *buf, size_t n, uint64_t v);
/* "10.0 GiB" / "320.0 KiB" / "12 B" into buf; returns buf. */
char *kv_fmt_size(char *buf, size_t n, uint64_t v);

/* MLA's bytes per token: layers x (kv_lora_rank + qk_rope_head_dim) x
 * bits/8 (one latent and one RoPE key per layer, shared by every head).
 * 0, or -1 on overflow or a zero/negative input. */
int kv_bytes_per_token_mla(long layers, long kv_lora_rank, long qk_rope_head_dim, int bits,
                           uint64_t *out);

/* One model's attention shape, as far as the cache cares. */
typedef struct KvModel {
    long layers, heads, kv_heads, d_head;
    long kv_lora_rank, qk_rope_head_dim; /* MLA: the cached latent; 0 = K and V per kv head */
} KvModel;

struct Preset;
/* The shape of preset p as an engine reads its config: MLA's latent when
 * it has one (its num_key_value_heads is not what is cached). */
KvModel kv_model_of(const struct Preset *p);

/* "MLA", "GQA", "MQA" or "MHA": what the model caches per token. */
const char *kv_kind(const KvModel *m);

/* Bytes the model's own layout caches per token: over all layers
 * (*per_token) and in one layer (*per_layer).  0, or -1 on overflow. */
int kv_model_bytes(const KvModel *m, int bits, uint64_t *per_token, uint64_t *per_layer);

/* Which layers keep fewer tokens than the context (sliding window or chunked
 * attention).  All zero: every layer caches every token. */
typedef struct KvLimit {
    long window;       /* tokens a local layer keeps at most; 0 = no local layers */
    long local_layers; /* layers capped at window; the others keep every token */
    int chunked;       /* 1: chunked attention (Llama 4), 0: sliding window (Mistral) */
} KvLimit;

/* The limit of a preset's layers (window / chunk / global_every fields). */
KvLimit kv_limit_of(const struct Preset *p);

/* Layer-tokens a sequence of `context` tokens keeps: the sum over layers of
 * the tokens each layer's cache holds (min(context, window) for a local
 * layer, context for the others).  lim may be NULL (no local layers). */
uint64_t kv_layer_tokens(long layers, const KvLimit *lim, long context);

/* A row of the comparison: MHA, the model's own layout, MQA (duplicates
 * dropped, in that order). */
typedef struct KvRow {
    char label[32]; /* "MHA", "GQA (this model)", "MQA" */
    long kv_heads;
    uint64_t per_token, per_context, total; /* per_token: all layers, if none is capped */
    uint64_t per_token_layer;               /* K and V of one token in one layer */
    int is_model;
} KvRow;

/* Fills rows[0..*n) (at most 3).  0, or -1 with err set on overflow. */
int kv_table(const KvModel *m, int bits, long context, long batch, KvRow rows[3], int *n, char *err,
             size_t errlen);
/* The same with local layers capped at lim->window (lim may be NULL):
 * per_context and total count only the tokens each layer keeps. */
int kv_table_limited(const KvModel *m, const KvLimit *lim, int bits, long context, long batch,
                     KvRow rows[3], int *n, char *err, size_t errlen);

/* The smallest context whose cache (one sequence, layers capped by lim) is
 * larger than `bytes`; 0 if no context up to 2^40 tokens gets there (a
 * windowed cache stops growing). */
long kv_context_exceeding(uint64_t per_token_layer, long layers, const KvLimit *lim,
                          uint64_t bytes);

/* The layers of one kind: the model's own bytes at context, per sequence. */
typedef struct KvLayerKind {
    const char *kind;         /* "full", "sliding" or "chunked" */
    long layers;              /* layers of this kind */
    long window;              /* tokens one such layer keeps at most; 0 for "full" */
    long kept;                /* tokens one such layer keeps at this context */
    uint64_t bytes_per_token; /* one token in one such layer */
    uint64_t bytes;           /* layers x kept x bytes_per_token: one sequence */
} KvLayerKind;

/* The layer kinds of m under lim (lim may be NULL) at context: "full"
 * first, then the local kind; kinds with no layers left out.  Their bytes
 * sum to the model row's per_context.  0, or -1 with err set on overflow. */
int kv_layer_kinds(const KvModel *m, const KvLimit *lim, int bits, long context, KvLayerKind out[2],
                   int *n, char *err, size_t errlen);

/* Paged blocks (vLLM's PagedAttention): each sequence's tokens sit in
 * blocks of `block` tokens from one pool, found through its block table.
 * With a shared prefix of P tokens, the floor(P/block) full blocks of the
 * prefix are stored once and referenced by every sequence; a partial
 * prefix block (P mod block != 0) is copied on write by each sequence. */
#define KV_MAX_SEQS 4096 /* sequences `kv --paged --lengths` takes */

typedef struct KvPagedSeq {
    long length;      /* tokens */
    long blocks;      /* ceil(length / block): its block table's length */
    long own_blocks;  /* blocks - shared: the ones only it references */
    long last_tokens; /* tokens in its last block (1..block) */
    int cow;          /* its block at the prefix's end is a copy-on-write copy */
} KvPagedSeq;

typedef struct KvPaged {
    long block, prefix, context;
    int nseq;
    long shared_blocks;    /* floor(prefix / block), each referenced nseq times */
    long prefix_tail;      /* prefix mod block: prefix tokens in each copied block */
    uint64_t total_blocks; /* shared_blocks + sum(blocks - shared_blocks) */
    uint64_t used_tokens;  /* shared_blocks x block + sum(length - shared_blocks x block) */
    uint64_t reserved, used, waste;                      /* bytes in the pool */
    uint64_t contig_reserved, contig_used, contig_waste; /* nseq x context preallocated */
} KvPaged;

/* Lays out n sequences (lengths[i] tokens, n <= KV_MAX_SEQS) in blocks of
 * `block` tokens with a shared prefix of `prefix` tokens (0: none), against
 * contiguous preallocation of `context` tokens per sequence, at per_token
 * bytes a token (every layer).  Fills *out and seqs[0..n).  0, or -1 with
 * a one-line reason naming the flag in err: a block size or length below 1,
 * a prefix longer than a sequence, a sequence longer than the context, or
 * bytes beyond 64 bits. */
int kv_paged(const long *lengths, int n, long block, long prefix, long context, uint64_t per_token,
             KvPaged *out, KvPagedSeq *seqs, char *err, size_t errlen);

/* The smallest context at which `batch` sequences' caches (per_token_layer
 * bytes a token in one layer, layers capped by lim, which may be NULL) hold
 * more bytes than `weights` together; 0 when they never do (a window stops
 * every cache first) or batch < 1.  What `decode` prints as "cache > weights
 * from" (batch 1) and the memory quiz keys (any batch). */
long kv_outgrows(uint64_t per_token_layer, long layers, const KvLimit *lim, uint64_t weights,
                 long batch);

/* When context is beyond the context p was trained for, writes "hypothetical:
 * 16,384 tokens is beyond the 8,192 the model was trained for" into buf and
 * returns 1; otherwise buf = "" and 0.  `mhaviz kv`, `decode --plain
 * --preset` and the calculator screen all say it with these words. */
int kv_hypothetical(const struct Preset *p, long context, char *buf, size_t n);

/* What one generated token costs at context T (one sequence), for a preset:
 * MHA, the model's own layout and MQA (rows as kv_table), with the model's
 * local layers capped.  Each step appends one token's K and V to every layer
 * (write = per_token) and reads every cached token back (read = the cache's
 * size at T, per_context of the row). */
typedef struct KvDecodeCost {
    KvRow rows[3];
    int n;
    KvLimit lim;
    long context;
    uint64_t weights;      /* params x bytes/element; 0 when the preset has no params */
    uint64_t weights_read; /* read once per step: active_params x bytes/element, less
                              the untied input embedding's other vocab - 1 rows */
    long outgrows[3];      /* context at which rows[i]'s cache outgrows the weights; 0 never */
    int hypothetical;      /* context > the model's trained context */
} KvDecodeCost;

/* 0, or -1 with err set (overflow, bad context). */
int kv_decode_cost(const struct Preset *p, int bits, long context, KvDecodeCost *out, char *err,
                   size_t errlen);

/* Tokens per second a device of `bw` bytes/s can generate at most for
 * `batch` sequences when a step reads weights_read plus batch caches of
 * cache_bytes: batch x bw / (weights_read + batch x cache_bytes). */
double kv_tokens_per_s(uint64_t bw, uint64_t weights_read, uint64_t cache_bytes, long batch);

/* Sequences whose caches fit beside the weights: (mem - weights) / cache_bytes;
 * 0 when the weights alone do not fit. */
uint64_t kv_sequences_fit(uint64_t mem, uint64_t weights, uint64_t cache_bytes);

#endif
