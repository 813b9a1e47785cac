/* lessonvar_cache.c - the {expressions} of lesson 10, the cache as serving
 * engines keep it: {paged ...} lays sequences out in blocks with
 * content/kv.c's kv_paged (what `mhaviz kv --paged` prints), {window ...}
 * runs engine/decode.c's rolling buffer over the page's configuration and
 * reads where a token was written, {mla ...} reads a preset's MLA fields
 * through kv_model_bytes.  The fields are listed in lessons/README.md; keep
 * the two in step.
 */
#include <string.h>

#include "content/kv.h"
#include "content/lessonvar.h"
#include "engine/decode.h"

/* "100,700,2000" into v[0..*n) (at most max); -1 with err set. */
static int lengths_arg(Eval *e, const char *s, long *v, int max, int *n)
{
    *n = 0;
    for (const char *p = s;;) {
        char one[24];
        size_t k = strcspn(p, ",");
        snprintf(one, sizeof one, "%.*s", (int)(k < 23 ? k : 23), p);
        if (*n == max || k == 0 || k > 12 || int_arg(e, "paged", one, 1, KV_MAX_CONTEXT, &v[*n])) {
            snprintf(e->err, e->errlen,
                     "{paged ... %.40s}: lengths are 1 to %d whole numbers separated by commas", s,
                     max);
            return -1;
        }
        (*n)++;
        p += k;
        if (!*p) return 0;
        p++;
    }
}

/* {paged FIELD N CONTEXT L1,L2,... [PREFIX] [NAME DTYPE]}: the sequences of
 * those lengths in blocks of N tokens (a shared prefix of PREFIX tokens),
 * against CONTEXT tokens preallocated per sequence.  Token counts, or with
 * a preset and a dtype its bytes (kv_model_bytes of the model's own layout):
 *   blocks    ceil(L1 / N), the first sequence's block table
 *   last      tokens in the first sequence's last block
 *   pool      blocks in the pool (the shared prefix blocks once)
 *   shared    floor(PREFIX / N): the prefix blocks every table references
 *   reserved used waste               the pool: blocks x N, tokens, the difference
 *   contig contigused contigwaste     the same for the preallocated cache */
int lessonvar_paged(Eval *e, int argc, char **argv)
{
    static const char fields[] =
        "blocks last pool shared reserved used waste contig contigused contigwaste";
    if (argc < 5 || argc > 8) return WRONG_ARGS;
    long block, ctx, prefix = 0, len[16];
    int n, a = 5;
    if (int_arg(e, "paged", argv[2], 1, 1L << 20, &block) ||
        int_arg(e, "paged", argv[3], 1, KV_MAX_CONTEXT, &ctx) ||
        lengths_arg(e, argv[4], len, 16, &n))
        return -1;
    if (a < argc && argv[a][0] >= '0' && argv[a][0] <= '9' &&
        int_arg(e, "paged", argv[a++], 0, KV_MAX_CONTEXT, &prefix))
        return -1;
    uint64_t per = 1, layer = 0;
    if (a < argc) {
        if (argc - a != 2) return WRONG_ARGS;
        const Preset *p = e->presets ? presets_find(e->presets, argv[a]) : NULL;
        const KvDtype *d = kv_dtype(argv[a + 1]);
        KvModel m = p ? kv_model_of(p) : (KvModel){0};
        if (!p || !d || kv_model_bytes(&m, d->bits, &per, &layer)) {
            snprintf(e->err, e->errlen, "{paged ... %.40s %.20s}: unknown preset or dtype", argv[a],
                     argv[a + 1]);
            return -1;
        }
    }
    KvPaged pg;
    KvPagedSeq seqs[16];
    char why[200], buf[40];
    if (kv_paged(len, n, block, prefix, ctx, per, &pg, seqs, why, sizeof why)) {
        snprintf(e->err, e->errlen, "{paged %.20s}: %s", argv[1], why);
        return -1;
    }
    const char *f = argv[1];
    uint64_t v = !strcmp(f, "blocks")        ? (uint64_t)seqs[0].blocks
                 : !strcmp(f, "last")        ? (uint64_t)seqs[0].last_tokens
                 : !strcmp(f, "pool")        ? pg.total_blocks
                 : !strcmp(f, "shared")      ? (uint64_t)pg.shared_blocks
                 : !strcmp(f, "reserved")    ? pg.reserved
                 : !strcmp(f, "used")        ? pg.used
                 : !strcmp(f, "waste")       ? pg.waste
                 : !strcmp(f, "contig")      ? pg.contig_reserved
                 : !strcmp(f, "contigused")  ? pg.contig_used
                 : !strcmp(f, "contigwaste") ? pg.contig_waste
                                             : UINT64_MAX;
    if (v == UINT64_MAX) {
        snprintf(e->err, e->errlen, "{paged %.20s ...}: fields are %s", f, fields);
        return -1;
    }
    put(e->o, "%s", kv_fmt_int(buf, sizeof buf, v));
    return 0;
}

/* {window FIELD T W}: a decode of the page's configuration with a rolling
 * buffer of W slots (causal, seq T + 1, a one-token prompt), run up to
 * position T:
 *   slot     the slot token T was written to
 *   evicted  the position that write overwrote (-1: the slot was empty)
 *   slots    the buffer's slots, min(W, T + 1)
 *   check    the largest difference of that step from the full band-masked pass */
int lessonvar_window(Eval *e, int argc, char **argv)
{
    if (argc != 4) return WRONG_ARGS;
    long t, w;
    if (int_arg(e, "window", argv[2], 0, MHA_MAX_SEQ - 1, &t) ||
        int_arg(e, "window", argv[3], 1, MHA_MAX_SEQ, &w))
        return -1;
    const char *f = argv[1];
    if (strcmp(f, "slot") && strcmp(f, "evicted") && strcmp(f, "slots") && strcmp(f, "check")) {
        snprintf(e->err, e->errlen, "{window %.20s ...}: fields are slot evicted slots check", f);
        return -1;
    }
    MhaConfig c = e->m->cfg;
    c.causal = 1, c.seq = (int)t + 1, c.window = (int)w;
    Mha *run = mha_run(&c, e->err, e->errlen);
    Decode *d = run ? decode_new(run, DECODE_HF, 1, e->err, e->errlen) : NULL;
    int rc = d ? decode_prefill(d, e->err, e->errlen) : -1;
    while (rc == 0 && d->len <= t)
        rc = decode_step(d, e->err, e->errlen) < 0 ? -1 : 0;
    if (rc == 0) {
        if (!strcmp(f, "slot"))
            put(e->o, "%d", d->slot);
        else if (!strcmp(f, "evicted"))
            put(e->o, "%d", d->evicted);
        else if (!strcmp(f, "slots"))
            put(e->o, "%d", d->slots);
        else
            put(e->o, "%g", (double)decode_check(d));
    }
    decode_free(d);
    mha_free(run);
    return rc;
}

/* {mla NAME DTYPE FIELD}: a preset's MLA cache per token (kv_model_bytes):
 *   bytes     all layers: layers x (kv_lora_rank + qk_rope_head_dim) x dtype
 *   layer     one layer's latent and RoPE key
 *   elems     kv_lora_rank + qk_rope_head_dim, the numbers one layer keeps
 *   norope    the latent alone, all layers (the RoPE key forgotten)
 *   configkv  what num_key_value_heads x head_dim would cache: 2 x layers x
 *             kv_heads x d_head x dtype (K and V per head, as the config reads)
 *   ratio     configkv / bytes, rounded to a whole number */
int lessonvar_mla(Eval *e, int argc, char **argv)
{
    if (argc != 4) return WRONG_ARGS;
    const Preset *p = e->presets ? presets_find(e->presets, argv[1]) : NULL;
    const KvDtype *d = kv_dtype(argv[2]);
    if (!p || !d || !p->kv_lora_rank) {
        snprintf(e->err, e->errlen, "{mla %.40s %.20s}: %s", argv[1], argv[2],
                 !p || !d ? "unknown preset or dtype" : "that preset has no MLA latent");
        return -1;
    }
    KvModel m = kv_model_of(p), heads = m;
    heads.kv_lora_rank = heads.qk_rope_head_dim = 0; /* the config's K and V per kv head */
    uint64_t per = 0, layer = 0, kv = 0, kvl = 0;
    if (kv_model_bytes(&m, d->bits, &per, &layer) || kv_model_bytes(&heads, d->bits, &kv, &kvl)) {
        snprintf(e->err, e->errlen, "{mla %.40s}: overflow", argv[1]);
        return -1;
    }
    /* preset fields are bounded (presets.c), so this product fits */
    uint64_t lat = (uint64_t)p->layers * (uint64_t)p->kv_lora_rank * (uint64_t)d->bits / 8;
    const char *f = argv[3];
    char buf[40];
    uint64_t v = !strcmp(f, "bytes")      ? per
                 : !strcmp(f, "layer")    ? layer
                 : !strcmp(f, "elems")    ? (uint64_t)(p->kv_lora_rank + p->qk_rope_head_dim)
                 : !strcmp(f, "norope")   ? lat
                 : !strcmp(f, "configkv") ? kv
                 : !strcmp(f, "ratio")    ? (kv + per / 2) / per
                                          : UINT64_MAX;
    if (v == UINT64_MAX) {
        snprintf(e->err, e->errlen,
                 "{mla ... %.20s}: fields are bytes layer elems norope configkv ratio", f);
        return -1;
    }
    put(e->o, "%s", kv_fmt_int(buf, sizeof buf, v));
    return 0;
}
