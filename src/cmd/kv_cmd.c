/* kv_cmd.c - `mhaviz kv`: KV-cache bytes of a model, MHA vs its own layout
 * vs MQA, its layer kinds and (--paged) its blocks, printed as text or
 * (--json) one JSON object, from content/kv.c's arithmetic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/textutil.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "content/kv.h"
#include "content/presets.h"

static const char kv_help[] =
    "usage: mhaviz kv --preset NAME [--context N] [--batch N] [--dtype D] [--json]\n"
    "       mhaviz kv --layers N --heads N --kv-heads N --d-head N [--context N] [--batch N] "
    "[--dtype D] [--json]\n"
    "       mhaviz kv ... --paged [--block-size N] --lengths L1,L2,... [--shared-prefix P]\n"
    "       mhaviz kv --list\n"
    "KV-cache bytes for a model: MHA vs the model's own layout vs MQA.\n"
    "  --preset NAME   a model from --list; --layers/--heads/--kv-heads/--d-head override it\n"
    "  --context N     tokens cached per sequence (default: the model's context, else 4096)\n"
    "  --batch N       sequences (default 1)\n"
    "  --dtype D       fp32, fp16 (default), bf16, fp8 or int4\n"
    "  --json          every figure as one JSON object (keys: mhaviz(1), KV CACHE JSON)\n"
    "  --paged         the cache in blocks, against preallocating --context per sequence\n"
    "  --block-size N  tokens per block (default 16, as vLLM's)\n"
    "  --lengths L,... the tokens of each sequence (with --paged; at most --context each)\n"
    "  --shared-prefix P  the first P tokens of every sequence are one shared prefix\n";

/* One row per preset; the name and model columns are as wide as their
 * longest entry, so no title pushes its row out of line. */
static void print_list(const PresetList *p)
{
    int wn = (int)strlen("name"), wt = (int)strlen("model");
    for (int i = 0; i < p->n; i++) {
        int n = (int)strlen(p->v[i].name), t = (int)strlen(p->v[i].title);
        wn = n > wn ? n : wn;
        wt = t > wt ? t : wt;
    }
    printf("%-*s %-*s %6s %6s %8s %6s %7s\n", wn, "name", wt, "model", "layers", "heads",
           "kv_heads", "d_head", "kind");
    for (int i = 0; i < p->n; i++) {
        const Preset *m = &p->v[i];
        KvModel km = kv_model_of(m);
        printf("%-*s %-*s %6ld %6ld %8ld %6ld %7s\n", wn, m->name, wt, m->title, m->layers,
               m->heads, m->kv_heads, m->d_head, kv_kind(&km));
    }
}

/* Bytes per element as text: "2", "0.5". */
static const char *elem_bytes(int bits)
{
    static char buf[16];
    if (bits % 8 == 0)
        snprintf(buf, sizeof buf, "%d", bits / 8);
    else
        snprintf(buf, sizeof buf, "%g", bits / 8.0);
    return buf;
}

/* What the command line asked for; 0 in a number means "not given". */
typedef struct KvArgs {
    const char *preset, *dtype;
    long layers, heads, kv_heads, d_head, context, batch;
    int list, help, json;
    /* --paged: lengths[0..nlen) of the sequences, in blocks of block tokens */
    int paged, nlen;
    long block, prefix, lengths[KV_MAX_SEQS];
    const char *paged_flag; /* the first of --block-size/--lengths/--shared-prefix given */
    int batch_set;
} KvArgs;

/* "--lengths 100,37,5" into a->lengths; 0, or -1 with err set (usage). */
static int parse_lengths(const char *val, KvArgs *a, char *err, size_t errlen)
{
    char num[32];
    a->nlen = 0;
    for (const char *s = val;; s++) {
        size_t n = strcspn(s, ",");
        if (a->nlen == KV_MAX_SEQS) {
            snprintf(err, errlen, "--lengths: at most %d sequences", KV_MAX_SEQS);
            return -1;
        }
        if (n == 0 || n >= sizeof num) {
            snprintf(err, errlen, "--lengths '%.60s': expected numbers separated by commas", val);
            return -1;
        }
        memcpy(num, s, n);
        num[n] = 0;
        if (cli_long("--lengths", num, 1, KV_MAX_CONTEXT, &a->lengths[a->nlen], err, errlen) != 0)
            return -1;
        a->nlen++;
        s += n;
        if (!*s) return 0;
    }
}

/* Parses argv into a.  0, or -1 with a one-line reason in err (usage). */
static int parse_args(int argc, char **argv, KvArgs *a, char *err, size_t errlen)
{
    static const struct {
        const char *flag;
        long max;
    } num[] = {
        {"--layers", 1000000}, {"--heads", 1000000},          {"--kv-heads", 1000000},
        {"--d-head", 1000000}, {"--context", KV_MAX_CONTEXT}, {"--batch", KV_MAX_BATCH},
    };
    long *dst[] = {&a->layers, &a->heads, &a->kv_heads, &a->d_head, &a->context, &a->batch};
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int r, k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            a->help = 1;
            return 0;
        }
        if (!strcmp(argv[i], "--list")) {
            a->list = 1;
            continue;
        }
        if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--paged")) {
            *(argv[i][2] == 'j' ? &a->json : &a->paged) = 1;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--lengths", &val, err, errlen)) != 0) {
            if (r < 0 || parse_lengths(val, a, err, errlen) != 0) return -1;
            a->paged_flag = a->paged_flag ? a->paged_flag : "--lengths";
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--block-size", &val, err, errlen)) != 0) {
            if (r < 0 || cli_long("--block-size", val, 1, KV_MAX_CONTEXT, &a->block, err, errlen))
                return -1;
            a->paged_flag = a->paged_flag ? a->paged_flag : "--block-size";
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--shared-prefix", &val, err, errlen)) != 0) {
            if (r < 0 ||
                cli_long("--shared-prefix", val, 0, KV_MAX_CONTEXT, &a->prefix, err, errlen))
                return -1;
            a->paged_flag = a->paged_flag ? a->paged_flag : "--shared-prefix";
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--preset", &val, err, errlen)) != 0) {
            if (r < 0) return -1;
            a->preset = val;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--dtype", &val, err, errlen)) != 0) {
            if (r < 0) return -1;
            a->dtype = val;
            continue;
        }
        for (k = 0; k < 6; k++) {
            r = cli_match(argc, argv, &i, num[k].flag, &val, err, errlen);
            if (r < 0) return -1;
            if (r > 0) {
                if (cli_long(num[k].flag, val, 1, num[k].max, dst[k], err, errlen) != 0) return -1;
                a->batch_set |= dst[k] == &a->batch;
                break;
            }
        }
        if (k == 6) {
            snprintf(err, errlen, "kv: unknown option '%s' (see mhaviz kv --help)", argv[i]);
            return -1;
        }
    }
    if (a->paged_flag && !a->paged) {
        snprintf(err, errlen, "%s needs --paged", a->paged_flag);
        return -1;
    }
    if (a->paged && !a->nlen) {
        snprintf(err, errlen, "--paged needs --lengths L1,L2,... (the tokens of each sequence)");
        return -1;
    }
    if (a->paged && a->batch_set) {
        snprintf(err, errlen, "--batch: with --paged the sequences are the --lengths given");
        return -1;
    }
    return 0;
}

/* The model the flags name: the preset's shape, each given number over it.
 * 0, or -1 with the reason in err (usage). */
static int resolve_model(const KvArgs *a, const Preset *p, KvModel *m, char *err, size_t errlen)
{
    *m = p ? kv_model_of(p) : (KvModel){0, 0, 0, 0, 0, 0};
    if (a->kv_heads && m->kv_lora_rank) {
        snprintf(err, errlen,
                 "--kv-heads: %s caches an MLA latent (kv_lora_rank %ld), not kv heads", p->name,
                 m->kv_lora_rank);
        return -1;
    }
    if (a->layers) m->layers = a->layers;
    if (a->heads) m->heads = a->heads;
    if (a->kv_heads)
        m->kv_heads = a->kv_heads;
    else if (!p)
        m->kv_heads = m->heads;
    if (a->d_head) m->d_head = a->d_head;
    const char *missing = !m->layers   ? "--layers"
                          : !m->heads  ? "--heads"
                          : !m->d_head ? "--d-head"
                                       : NULL;
    if (missing) {
        snprintf(err, errlen, "kv: give --preset NAME or %s (see mhaviz kv --help)", missing);
        return -1;
    }
    if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0) {
        snprintf(err, errlen, "--kv-heads %ld: must divide heads %ld", m->kv_heads, m->heads);
        return -1;
    }
    return 0;
}

/* The formula with the numbers, for the model's own layout. */
static void print_formula(const Preset *p, const KvModel *m, const KvDtype *dt, long context,
                          long batch, const KvLimit *lim, const KvRow *own)
{
    char a[40], b[40], c[40], d[40];
    if (m->kv_lora_rank)
        printf("%s: %ld layer%s, %ld query head%s, MLA: a latent of kv_lora_rank %ld + "
               "qk_rope_head_dim %ld per token (num_key_value_heads %ld is not cached)\n",
               p ? p->title : "custom model", m->layers, text_s(m->layers), m->heads,
               text_s(m->heads), m->kv_lora_rank, m->qk_rope_head_dim, m->kv_heads);
    else {
        printf("%s: %ld layer%s, %ld query head%s, %ld kv head%s (%s",
               p ? p->title : "custom model", m->layers, text_s(m->layers), m->heads,
               text_s(m->heads), m->kv_heads, text_s(m->kv_heads), kv_kind(m));
        if (m->kv_heads != m->heads && m->kv_heads != 1)
            printf(", %ld query heads per kv head", m->heads / m->kv_heads);
        printf("), d_head %ld\n", m->d_head);
    }
    printf("dtype %s (%s %s per element), context %s token%s, batch %ld\n\n", dt->name,
           elem_bytes(dt->bits), dt->bits == 8 ? "byte" : "bytes",
           kv_fmt_int(a, sizeof a, (uint64_t)context), text_s(context), batch);
    if (m->kv_lora_rank) {
        printf("KV cache = layers x (kv_lora_rank + qk_rope_head_dim) x bytes/element x context x "
               "batch\n");
        printf("per token  = %ld x (%ld + %ld) x %s = %s bytes\n", m->layers, m->kv_lora_rank,
               m->qk_rope_head_dim, elem_bytes(dt->bits), kv_fmt_int(a, sizeof a, own->per_token));
    } else {
        printf("KV cache = 2 (K and V) x layers x kv_heads x d_head x bytes/element x context x "
               "batch\n");
        printf("per token  = 2 x %ld x %ld x %ld x %s = %s bytes\n", m->layers, m->kv_heads,
               m->d_head, elem_bytes(dt->bits), kv_fmt_int(a, sizeof a, own->per_token));
    }
    if (lim->window && lim->window < context) {
        long global = m->layers - lim->local_layers;
        printf("%s %s: %ld of %ld layers keep at most %s tokens%s\n",
               lim->chunked ? "chunked attention" : "sliding window",
               kv_fmt_int(a, sizeof a, (uint64_t)lim->window), lim->local_layers, m->layers, a,
               global ? ", the others keep every token" : "");
        printf("this model = %s B per token per layer x (",
               kv_fmt_int(a, sizeof a, own->per_token_layer));
        if (global) printf("%ld x %s + ", global, kv_fmt_int(b, sizeof b, (uint64_t)context));
        printf("%ld x %s layer-tokens) x %ld = %s bytes (%s)\n", lim->local_layers,
               kv_fmt_int(b, sizeof b, (uint64_t)lim->window), batch,
               kv_fmt_int(c, sizeof c, own->total), kv_fmt_size(d, sizeof d, own->total));
    } else {
        printf("this model = %s x %s x %ld = %s bytes (%s)\n", a,
               kv_fmt_int(b, sizeof b, (uint64_t)context), batch,
               kv_fmt_int(c, sizeof c, own->total), kv_fmt_size(d, sizeof d, own->total));
    }
}

/* How many times the model's bytes per token a row's are: "8x", "1/8",
 * "56.9x" (MLA's latent is no whole fraction of a head's K and V). */
static void ratio_text(char *buf, size_t n, uint64_t row, uint64_t own)
{
    if (row >= own && row % own == 0)
        snprintf(buf, n, "%llux", (unsigned long long)(row / own));
    else if (row < own && own % row == 0)
        snprintf(buf, n, "1/%llu", (unsigned long long)(own / row));
    else
        snprintf(buf, n, "%.*fx", row >= own ? 1 : 2, (double)row / (double)own);
}

/* One row each for MHA, the model's own layout and MQA. */
static void print_rows(const KvRow *rows, int n, const KvRow *own)
{
    char a[40], b[40], c[40], kvh[24];
    printf("%-18s %8s %14s %14s %14s %9s\n", "variant", "kv heads", "bytes/token", "per context",
           "total", "vs model");
    for (int i = 0; i < n; i++) {
        const KvRow *r = &rows[i];
        char ratio[24];
        ratio_text(ratio, sizeof ratio, r->per_token, own->per_token);
        if (r->kv_heads)
            snprintf(kvh, sizeof kvh, "%ld", r->kv_heads);
        else
            snprintf(kvh, sizeof kvh, "latent"); /* MLA */
        printf("%-18s %8s %14s %14s %14s %9s\n", r->label, kvh,
               kv_fmt_int(a, sizeof a, r->per_token), kv_fmt_size(b, sizeof b, r->per_context),
               kv_fmt_size(c, sizeof c, r->total), ratio);
    }
}

/* The blocks of --paged, as text. */
static void print_paged(const KvPaged *pg, const KvPagedSeq *q, uint64_t per_token)
{
    char a[40], b[40], c[40];
    printf("\npaged: blocks of %ld token%s (%s B each: %ld x %s B per token, every layer)\n",
           pg->block, text_s(pg->block), kv_fmt_int(a, sizeof a, per_token * (uint64_t)pg->block),
           pg->block, kv_fmt_int(b, sizeof b, per_token));
    if (pg->prefix)
        printf(
            "shared prefix of %ld token%s: %ld full block%s stored once, ref count %d each%s\n",
            pg->prefix, text_s(pg->prefix), pg->shared_blocks, text_s(pg->shared_blocks), pg->nseq,
            pg->prefix_tail ? "; its last partial block is copied on write by each sequence" : "");
    printf("%-8s %12s %10s %10s %12s %s\n", "sequence", "tokens", "blocks", "own", "last block",
           pg->prefix_tail ? "copy-on-write" : "");
    for (int i = 0; i < pg->nseq; i++) {
        snprintf(c, sizeof c, "%ld/%ld", q[i].last_tokens, pg->block);
        printf("%-8d %12s %10ld %10ld %12s %s\n", i + 1,
               kv_fmt_int(a, sizeof a, (uint64_t)q[i].length), q[i].blocks, q[i].own_blocks, c,
               q[i].cow ? "yes" : "");
    }
    char d[40], e[40];
    printf("pool: %s block%s = %s bytes (%s) reserved, %s used, %s wasted\n",
           kv_fmt_int(a, sizeof a, pg->total_blocks), text_s((long long)pg->total_blocks),
           kv_fmt_int(b, sizeof b, pg->reserved), kv_fmt_size(c, sizeof c, pg->reserved),
           kv_fmt_int(d, sizeof d, pg->used), kv_fmt_int(e, sizeof e, pg->waste));
    printf("contiguous: %d x %s tokens = %s bytes (%s) reserved, %s used, %s wasted\n", pg->nseq,
           kv_fmt_int(a, sizeof a, (uint64_t)pg->context),
           kv_fmt_int(b, sizeof b, pg->contig_reserved),
           kv_fmt_size(c, sizeof c, pg->contig_reserved), kv_fmt_int(d, sizeof d, pg->contig_used),
           kv_fmt_int(e, sizeof e, pg->contig_waste));
}

/* s as a JSON string. */
static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

/* Every figure as one JSON object; keys in mhaviz(1), KV CACHE JSON. */
static void print_json(const Preset *p, const KvModel *m, const KvDtype *dt, long context,
                       long batch, const KvLayerKind *kinds, int nk, const KvRow *rows, int n,
                       const KvRow *own, const KvPaged *pg, const KvPagedSeq *q)
{
    printf("{\"model\": {\"preset\": ");
    if (p)
        json_str(p->name);
    else
        printf("null");
    printf(", \"title\": ");
    json_str(p ? p->title : "custom model");
    printf(", \"kind\": \"%s\", \"layers\": %ld, \"heads\": %ld, \"kv_heads\": %ld, "
           "\"d_head\": %ld, \"kv_lora_rank\": %ld, \"qk_rope_head_dim\": %ld, "
           "\"trained_context\": %ld,\n  \"source\": ",
           kv_kind(m), m->layers, m->heads, m->kv_heads, m->d_head, m->kv_lora_rank,
           m->qk_rope_head_dim, p ? p->context : 0);
    json_str(p ? p->source : "");
    printf(", \"note\": ");
    json_str(p ? p->note : "");
    printf("},\n");
    printf(" \"dtype\": \"%s\", \"bits\": %d, \"context\": %ld, \"batch\": %ld, "
           "\"hypothetical\": %s,\n",
           dt->name, dt->bits, context, batch,
           p && p->context && context > p->context ? "true" : "false");
    printf(" \"bytes_per_token\": %llu, \"bytes_per_sequence\": %llu, \"total_bytes\": %llu,\n",
           (unsigned long long)own->per_token, (unsigned long long)own->per_context,
           (unsigned long long)own->total);
    printf(" \"layer_kinds\": [");
    for (int i = 0; i < nk; i++)
        printf("%s\n  {\"kind\": \"%s\", \"layers\": %ld, \"window\": %ld, \"tokens_kept\": %ld, "
               "\"bytes_per_token_layer\": %llu, \"bytes_per_sequence\": %llu}",
               i ? "," : "", kinds[i].kind, kinds[i].layers, kinds[i].window, kinds[i].kept,
               (unsigned long long)kinds[i].bytes_per_token, (unsigned long long)kinds[i].bytes);
    printf("],\n \"variants\": [");
    for (int i = 0; i < n; i++)
        printf("%s\n  {\"variant\": \"%.3s\", \"this_model\": %s, \"kv_heads\": %ld, "
               "\"bytes_per_token\": %llu, \"bytes_per_sequence\": %llu, \"total_bytes\": %llu}",
               i ? "," : "", rows[i].label, rows[i].is_model ? "true" : "false", rows[i].kv_heads,
               (unsigned long long)rows[i].per_token, (unsigned long long)rows[i].per_context,
               (unsigned long long)rows[i].total);
    printf("],\n \"paged\": ");
    if (!pg) {
        printf("null}\n");
        return;
    }
    printf("{\"block_size\": %ld, \"shared_prefix\": %ld, \"shared_blocks\": %ld, "
           "\"shared_refcount\": %d, \"prefix_tail_tokens\": %ld,\n  \"sequences\": [",
           pg->block, pg->prefix, pg->shared_blocks, pg->prefix ? pg->nseq : 0, pg->prefix_tail);
    for (int i = 0; i < pg->nseq; i++)
        printf("%s\n   {\"length\": %ld, \"blocks\": %ld, \"own_blocks\": %ld, "
               "\"last_block_tokens\": %ld, \"copy_on_write\": %s}",
               i ? "," : "", q[i].length, q[i].blocks, q[i].own_blocks, q[i].last_tokens,
               q[i].cow ? "true" : "false");
    printf("],\n  \"total_blocks\": %llu, \"reserved_bytes\": %llu, \"used_bytes\": %llu, "
           "\"waste_bytes\": %llu,\n  \"contiguous\": {\"context\": %ld, \"reserved_bytes\": %llu, "
           "\"used_bytes\": %llu, \"waste_bytes\": %llu}}}\n",
           (unsigned long long)pg->total_blocks, (unsigned long long)pg->reserved,
           (unsigned long long)pg->used, (unsigned long long)pg->waste, pg->context,
           (unsigned long long)pg->contig_reserved, (unsigned long long)pg->contig_used,
           (unsigned long long)pg->contig_waste);
}

/* Everything after the flags: 0, 1 on a write error, or -1 with err set (usage). */
static int run(const KvArgs *a, const PresetList *presets, char *err, size_t errlen)
{
    const KvDtype *dt = kv_dtype(a->dtype);
    if (!dt) {
        snprintf(err, errlen, "--dtype '%s': expected fp32, fp16, bf16, fp8 or int4", a->dtype);
        return -1;
    }
    const Preset *p = a->preset ? presets_find(presets, a->preset) : NULL;
    if (a->preset && !p) {
        const char *near = presets_suggest(presets, a->preset);
        if (near)
            snprintf(err, errlen, "--preset '%.40s': unknown model (did you mean '%s'?)", a->preset,
                     near);
        else
            snprintf(err, errlen, "--preset '%.40s': unknown model (mhaviz kv --list shows them)",
                     a->preset);
        return -1;
    }
    KvModel m;
    if (resolve_model(a, p, &m, err, errlen) != 0) return -1;
    long context = a->context ? a->context : p && p->context ? p->context : 4096;
    long batch = a->paged ? a->nlen : a->batch;
    /* local layers (sliding window, chunks) follow the preset's own layer count */
    KvLimit lim = {0, 0, 0};
    if (p && !a->layers) lim = kv_limit_of(p);
    KvRow rows[3];
    KvLayerKind kinds[2];
    int n, nk;
    if (kv_table_limited(&m, &lim, dt->bits, context, batch, rows, &n, err, errlen) != 0 ||
        kv_layer_kinds(&m, &lim, dt->bits, context, kinds, &nk, err, errlen) != 0)
        return -1;
    const KvRow *own = &rows[0];
    for (int i = 0; i < n; i++)
        if (rows[i].is_model) own = &rows[i];
    static KvPagedSeq seqs[KV_MAX_SEQS];
    KvPaged pg;
    if (a->paged && kv_paged(a->lengths, a->nlen, a->block ? a->block : 16, a->prefix, context,
                             own->per_token, &pg, seqs, err, errlen) != 0)
        return -1;
    if (a->json) {
        print_json(p, &m, dt, context, batch, kinds, nk, rows, n, own, a->paged ? &pg : NULL, seqs);
        return cli_flush() ? 1 : 0; /* said at exit (cli_close_stdout) */
    }
    print_formula(p, &m, dt, context, batch, &lim, own);
    if (p && kv_hypothetical(p, context, err, errlen)) printf("%s\n", err);
    putchar('\n');
    print_rows(rows, n, own);
    if (a->paged) print_paged(&pg, seqs, own->per_token);
    if (p) {
        printf("\nsource: %s\n", p->source);
        if (p->note[0]) printf("note: %s\n", p->note);
    }
    return 0; /* a write error is reported at exit (cli_close_stdout) */
}

int cmd_kv(int argc, char **argv)
{
    char err[300];
    static KvArgs a; /* lengths[] is 32 KiB: not on the stack */
    a = (KvArgs){.dtype = "fp16", .batch = 1};
    PresetList presets;
    if (parse_args(argc, argv, &a, err, sizeof err) != 0) return cli_usage("%s", err);
    if (a.help) {
        fputs(kv_help, stdout);
        return 0;
    }
    if (presets_builtin(&presets, err, sizeof err) != 0) {
        cli_line(stderr, "mhaviz: %s", err);
        return 1;
    }
    int rc = 0;
    if (a.list)
        print_list(&presets);
    else if ((rc = run(&a, &presets, err, sizeof err)) < 0)
        rc = cli_usage("%s", err);
    presets_free(&presets);
    return rc;
}
