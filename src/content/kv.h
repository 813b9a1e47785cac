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

/* One model's attention shape, as far as the cache cares. */
typedef struct KvModel {
    long layers, heads, kv_heads, d_head;
} KvModel;

/* A row of the comparison: MHA, the model's own layout, MQA (duplicates
 * dropped, in that order). */
typedef struct KvRow {
    char label[32]; /* "MHA", "GQA (this model)", "MQA" */
    long kv_heads;
    uint64_t per_token, per_context, total;
    int is_model;
} KvRow;

/* Fills rows[0..*n) (at most 3).  0, or -1 with err set on overflow. */
int kv_table(const KvModel *m, int bits, long context, long batch, KvRow rows[3], int *n, char *err,
             size_t errlen);

#endif
