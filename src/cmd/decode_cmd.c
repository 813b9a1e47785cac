/* decode_cmd.c - `mhaviz decode`: generation with a KV cache.
 *
 *   mhaviz decode [--prompt N] [--layout hf|meta] [config flags]
 *                                           the decode screen (TUI)
 *   mhaviz decode --plain [--prompt N] [--layout hf|meta] [config flags]
 *                                           the toy run as text, step by step
 *   mhaviz decode [--plain] --paged [--block-size N] [--shared-prefix P] ...
 *                                           one pool of blocks, a shared prefix
 *   mhaviz decode --plain --preset NAME [--context T] [--dtype D] [--gpu NAME]
 *                                           what one generated token costs at real sizes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/textutil.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/interactive.h"
#include "content/gpus.h"
#include "content/kv.h"
#include "content/presets.h"
#include "engine/decode.h"
#include "ui/decode.h"
#include "ui/screen.h"

static const char decode_help[] =
    "usage: mhaviz decode [--prompt N] [--layout hf|meta] [CONFIG] [OPTIONS]  the screen\n"
    "       mhaviz decode --plain [--prompt N] [--layout hf|meta] [CONFIG]\n"
    "       mhaviz decode [--plain] --paged [--block-size N] [--shared-prefix P] [CONFIG]\n"
    "       mhaviz decode --plain --preset NAME [--context T] [--dtype D] [--gpu NAME]\n"
    "Generation with a KV cache: the prompt in one block (prefill), then one token at a time.\n"
    "The screen and --plain run the same toy configuration: decode's defaults --seq 8\n"
    "--heads 4, then your CONFIG flags (from the home menu: the current configuration).\n"
    "  --plain         print instead of opening the screen\n"
    "  --prompt N      tokens of the prefill (default: half the sequence)\n"
    "  --layout L      cache layout: hf (B, KV, T, dh; default) or meta (B, T, KV, dh);\n"
    "                  with --paged, each block's: meta NHD (blocks, N, KV, dh), vLLM's\n"
    "                  default and --paged's, or hf HND (blocks, KV, N, dh)\n"
    "  --window W      a rolling buffer of W slots: token t goes to slot t mod W, attention\n"
    "                  over the last W tokens (i - W < j <= i)\n"
    "  --paged         vLLM's paged cache (needs --batch 2 or more): one pool of blocks,\n"
    "                  handed out as the sequences grow, read through each block table\n"
    "  --block-size N  tokens a block (default 16, as vLLM's)\n"
    "  --shared-prefix P  with --paged: the sequences share their first P prompt tokens;\n"
    "                  its floor(P/N) full blocks are stored once (reference counts shown),\n"
    "                  its partial block is copied on write by each sequence (P <= prompt)\n"
    "  --preset NAME   a real model (mhaviz kv --list): bytes per generated token (--plain)\n"
    "  --context T     tokens in the cache (default: the model's trained context)\n"
    "  --dtype D       fp32, fp16 (default), bf16, fp8 or int4\n"
    "  --gpu NAME      the memory-bandwidth bound on tokens/s and the sequences that fit\n"
    "  OPTIONS         the screen's: --color=WHEN, --ascii, --no-save, --large (as mhaviz walk "
    "--help)\n";

/* ---- real sizes --------------------------------------------------------------- */

static void print_gpu(const Gpu *g, const KvDecodeCost *k, const KvRow *own)
{
    char a[40], b[40], c[40], f[40];
    uint64_t step = k->weights_read + own->per_context;
    printf("\non %s (%s, %.3g TB/s):\n", g->title, kv_fmt_size(a, sizeof a, g->mem_bytes),
           (double)g->bw / 1e12);
    printf("  bandwidth bound, 1 sequence: %s B/s / %s B per step = %.1f tokens/s at most\n",
           kv_fmt_int(a, sizeof a, g->bw), kv_fmt_int(b, sizeof b, step),
           kv_tokens_per_s(g->bw, k->weights_read, own->per_context, 1));
    uint64_t fit = kv_sequences_fit(g->mem_bytes, k->weights, own->per_context);
    if (k->weights >= g->mem_bytes) {
        printf("  memory: the weights alone (%s) do not fit in %s\n",
               kv_fmt_size(a, sizeof a, k->weights), kv_fmt_size(b, sizeof b, g->mem_bytes));
    } else {
        printf("  memory: (%s - %s) B / %s B per sequence = %s sequence%s fit\n",
               kv_fmt_int(a, sizeof a, g->mem_bytes), kv_fmt_int(b, sizeof b, k->weights),
               kv_fmt_int(c, sizeof c, own->per_context), kv_fmt_int(f, sizeof f, fit),
               text_s(fit));
        if (fit > 1)
            printf("  with all %s: %.1f tokens/s in total, %.1f per sequence (the weights are read "
                   "once for the whole batch)\n",
                   f, kv_tokens_per_s(g->bw, k->weights_read, own->per_context, (long)fit),
                   kv_tokens_per_s(g->bw, k->weights_read, own->per_context, (long)fit) /
                       (double)fit);
    }
    printf("  source: %s\n", g->source);
}

static int print_real(const Preset *p, const KvDtype *dt, long context, const Gpu *g)
{
    KvDecodeCost k;
    char err[200], a[40], b[40], c[40], d[40];
    if (kv_decode_cost(p, dt->bits, context, &k, err, sizeof err) != 0) return cli_usage("%s", err);
    const KvRow *own = &k.rows[0];
    for (int i = 0; i < k.n; i++)
        if (k.rows[i].is_model) own = &k.rows[i];
    printf("%s: one generated token at context %s, %s (%g %s per element), one sequence\n",
           p->title, kv_fmt_int(a, sizeof a, (uint64_t)context), dt->name, dt->bits / 8.0,
           dt->bits == 8 ? "byte" : "bytes");
    if (p->kv_lora_rank) /* MLA: the cache is a latent, whatever num_key_value_heads says */
        printf("%ld layers, %ld query heads, MLA: a latent of %ld + %ld numbers per token and "
               "layer\n",
               p->layers, p->heads, p->kv_lora_rank, p->qk_rope_head_dim);
    else
        printf("%ld layers, %ld query heads, %ld kv head%s (%s), d_head %ld\n", p->layers, p->heads,
               p->kv_heads, text_s(p->kv_heads), presets_kind(p->heads, p->kv_heads), p->d_head);
    if (kv_hypothetical(p, context, err, sizeof err)) printf("%s\n", err);
    long global = p->layers - k.lim.local_layers;
    long capped = k.lim.window && k.lim.window < context ? k.lim.window : context;
    if (k.lim.window)
        printf("%s %s in %ld of %ld layers: they cache at most %s tokens\n",
               k.lim.chunked ? "chunked attention" : "sliding window",
               kv_fmt_int(a, sizeof a, (uint64_t)k.lim.window), k.lim.local_layers, p->layers, a);

    KvModel km = kv_model_of(p);
    printf("\nper generated token, the model's own layout (%s), bytes:\n", kv_kind(&km));
    printf("  %-28s %16s %16s\n", "", "one layer", "all layers");
    printf("  %-28s %16s %16s\n", km.kv_lora_rank ? "written: its latent" : "written: its K and V",
           kv_fmt_int(a, sizeof a, own->per_token_layer), kv_fmt_int(b, sizeof b, own->per_token));
    if (global)
        printf("  %-28s %16s\n", "read: a full layer's cache",
               kv_fmt_int(a, sizeof a, own->per_token_layer * (uint64_t)context));
    if (k.lim.window)
        printf("  %-28s %16s\n",
               k.lim.chunked ? "read: a chunked layer's cache" : "read: a windowed layer's cache",
               kv_fmt_int(a, sizeof a, own->per_token_layer * (uint64_t)capped));
    printf("  %-28s %16s %16s (%s)\n", "read: the whole cache", "",
           kv_fmt_int(a, sizeof a, own->per_context), kv_fmt_size(b, sizeof b, own->per_context));

    printf("\n%-18s %8s %14s %16s %22s\n", "variant", "kv heads", "write/token", "read/token",
           "cache > weights from");
    for (int i = 0; i < k.n; i++) {
        const KvRow *r = &k.rows[i];
        if (!k.weights)
            snprintf(d, sizeof d, "(no params in preset)");
        else if (!k.outgrows[i])
            snprintf(d, sizeof d, "never");
        else
            snprintf(d, sizeof d, "%s tokens%s", kv_fmt_int(c, sizeof c, (uint64_t)k.outgrows[i]),
                     p->context && k.outgrows[i] > p->context ? "*" : "");
        char kvh[24];
        if (r->kv_heads)
            snprintf(kvh, sizeof kvh, "%ld", r->kv_heads);
        else
            snprintf(kvh, sizeof kvh, "latent"); /* MLA */
        printf("%-18s %8s %14s %16s %22s\n", r->label, kvh, kv_fmt_size(a, sizeof a, r->per_token),
               kv_fmt_size(b, sizeof b, r->per_context), d);
    }
    for (int i = 0; i < k.n; i++)
        if (p->context && k.outgrows[i] > p->context) {
            printf("* hypothetical: beyond the %s tokens the model was trained for\n",
                   kv_fmt_int(a, sizeof a, (uint64_t)p->context));
            break;
        }
    if (k.weights) {
        printf("\nweights: %s params x %g B = %s B (%s)",
               kv_fmt_int(a, sizeof a, (uint64_t)p->params), dt->bits / 8.0,
               kv_fmt_int(b, sizeof b, k.weights), kv_fmt_size(c, sizeof c, k.weights));
        if (p->active_params)
            printf("; read per token: %s active params",
                   kv_fmt_int(a, sizeof a, (uint64_t)p->active_params));
        if (p->vocab && !p->tied)
            printf("\na step reads one of the input embedding's %s rows, not the table: %s B "
                   "of weights",
                   kv_fmt_int(a, sizeof a, (uint64_t)p->vocab),
                   kv_fmt_int(b, sizeof b, k.weights_read));
        printf("\none step reads %s B of weights + %s B of cache = %s B\n",
               kv_fmt_int(a, sizeof a, k.weights_read), kv_fmt_int(b, sizeof b, own->per_context),
               kv_fmt_int(c, sizeof c, k.weights_read + own->per_context));
        if (g) print_gpu(g, &k, own);
    } else if (g) {
        printf("\n--gpu: %s has no params in assets/models.presets; no bound to give\n", p->name);
    }
    printf("\nsource: %s\n", p->source);
    return 0; /* a write error is reported at exit (cli_close_stdout) */
}

/* ---- toy sizes, for real -------------------------------------------------------- */

static void print_step(const Decode *d)
{
    char s1[64], s2[64], s3[64], s4[64];
    printf("%s positions %d..%d: q %s over K %s strides %s (cache strides %s)\n",
           d->n > 1 ? "prefill" : "decode ", d->start, d->start + d->n - 1,
           tensor_fmt_dims(s1, sizeof s1, d->q->ndim, d->q->shape),
           tensor_fmt_dims(s2, sizeof s2, d->k_read->ndim, d->k_read->shape),
           tensor_fmt_strides(s3, sizeof s3, d->k_read),
           tensor_fmt_strides(s4, sizeof s4, d->cache_k));
    printf("  %s  (run by the interpreter, then the same on %s)\n", d->write_code,
           d->block_size ? "pool_v" : "cache_v");
    if (d->window) {
        char over[64] = "an empty slot";
        if (d->evicted >= 0)
            snprintf(over, sizeof over, "over token %d \"%s\"", d->evicted,
                     mha_token_word(d->evicted));
        printf("  token %d -> slot %d = %d mod %d, %s%s\n", d->start + d->n - 1, d->slot,
               d->start + d->n - 1, d->window, over,
               d->n > d->slots ? " (the prefill attended over its own k, v: longer than the window)"
                               : "");
    }
    if (d->block_size) {
        printf("  blocks handed out:");
        for (int i = 0; i < d->n_new_blocks && i < 64; i++)
            printf(" %d", d->new_blocks[i]);
        printf("%s (%d of %d in use); the gather read K, V through the tables\n",
               d->n_new_blocks ? "" : " none", d->blocks_used, d->blocks);
        for (int i = 0; i < d->n_cow; i++)
            printf("  copy-on-write: block %d -> %d (%d prefix token%s, %zu B)\n", d->cow_src[i],
                   d->cow_dst[i], d->prefix % d->block_size, text_s(d->prefix % d->block_size),
                   d->copied_step / (size_t)d->n_cow);
    }
    printf("  wrote %zu B, read %zu B (total written %zu, read %zu", d->written_step, d->read_step,
           d->written_total, d->read_total);
    if (d->prefix) printf(", copied on write %zu", d->copied_total);
    printf("); scores (B, KV, G, n, T) %s\n",
           tensor_fmt_dims(s1, sizeof s1, d->attn->ndim, d->attn->shape));
}

/* The block tables at the end, and the pool's figures as content/kv.c
 * computes them for the same lengths (kv --paged), checked against the
 * blocks the engine handed out. */
static int print_tables(const Decode *d)
{
    const MhaConfig *c = &d->m->cfg;
    char err[200], a[40], b[40], e[40];
    for (int s = 0; s < c->batch; s++) {
        printf("block table of sequence %d:", s);
        for (int j = 0; j < d->max_blocks && d->table[s * d->max_blocks + j] >= 0; j++)
            printf(" %d", d->table[s * d->max_blocks + j]);
        printf("\n");
    }
    if (d->prefix) {
        printf("reference counts:");
        for (int i = 0; i < d->blocks_used; i++)
            printf(" %d:%d", i, d->refs[i]);
        printf(" (block:tables; the %d shared prefix block%s in every table)\n", d->shared_blocks,
               text_s(d->shared_blocks));
    }
    long lengths[MHA_MAX_BATCH];
    KvPagedSeq seqs[MHA_MAX_BATCH];
    KvPaged kp;
    for (int s = 0; s < c->batch; s++)
        lengths[s] = d->len;
    uint64_t per_token = 2 * (uint64_t)c->kv_heads * (uint64_t)d->m->d_head * sizeof(float);
    if (kv_paged(lengths, c->batch, d->block_size, d->prefix, d->cap, per_token, &kp, seqs, err,
                 sizeof err) != 0) {
        cli_line(stderr, "mhaviz: %s", err);
        return -1;
    }
    int pending = decode_cow_pending(d);
    printf("pool: %d block%s handed out (kv --paged%s: %llu), %s B reserved, %s B used, %s B "
           "waste\n",
           d->blocks_used, text_s(d->blocks_used), d->prefix ? " --shared-prefix" : "",
           (unsigned long long)kp.total_blocks, kv_fmt_int(a, sizeof a, kp.reserved),
           kv_fmt_int(b, sizeof b, kp.used), kv_fmt_int(e, sizeof e, kp.waste));
    if (pending)
        printf("(kv --paged counts every sequence's copy of the partial prefix block: %d "
               "not made, no sequence wrote past the prefix)\n",
               pending);
    if (kp.total_blocks != (uint64_t)(d->blocks_used + pending)) {
        cli_line(stderr, "mhaviz: the pool handed out %d block%s, kv --paged says %llu",
                 d->blocks_used, text_s(d->blocks_used), (unsigned long long)kp.total_blocks);
        return -1;
    }
    return 0;
}

static int print_toy(const MhaConfig *cfg, int prompt, DecodeLayout layout, int block_size,
                     int prefix)
{
    char err[200];
    MhaConfig full = *cfg;
    full.causal = 1;
    Mha *m = mha_run(&full, err, sizeof err);
    if (!m) return cli_usage("%s", err);
    if (prompt == 0) prompt = decode_prompt_default(cfg->seq);
    Decode *d = decode_new(m, layout, prompt, err, sizeof err);
    if (!d) {
        mha_free(m);
        return cli_usage("--prompt: %s", err);
    }
    if (block_size && (decode_set_paged(d, block_size, err, sizeof err) != 0 ||
                       decode_share_prefix(d, prefix, err, sizeof err) != 0)) {
        decode_free(d);
        mha_free(m);
        return cli_usage("%s", err);
    }
    char s1[64];
    printf(
        "decode: batch %d, seq %d, d_model %d, heads %d, kv_heads %d (%s), d_head %d; prompt %d\n",
        cfg->batch, cfg->seq, cfg->d_model, cfg->heads, cfg->kv_heads,
        presets_kind(cfg->heads, cfg->kv_heads), m->d_head, prompt);
    if (cfg->rope != ROPE_OFF)
        printf("RoPE %s, theta %g: q and k rotated by position before k is cached (V is not)\n",
               rope_layout_name(cfg->rope), cfg->rope_theta);
    if (cfg->window)
        printf("window %d: a rolling buffer of %d slot%s; query i sees key j iff i - %d < j <= i\n",
               cfg->window, d->slots, text_s(d->slots), cfg->window);
    if (block_size)
        printf("paged: blocks of %d token%s, one pool %s for the %d sequences\n", block_size,
               text_s(block_size), decode_pool_layout_name(layout), cfg->batch);
    if (prefix)
        printf("shared prefix: the %d sequences share their first %d token%s of x (\"%s\" .. "
               "\"%s\"); %d full block%s stored once, %s\n",
               cfg->batch, prefix, text_s(prefix), mha_token_word(0), mha_token_word(prefix - 1),
               d->shared_blocks, text_s(d->shared_blocks),
               prefix % block_size ? "the partial block copied on write"
                                   : "no partial block to copy");
    printf("cache %s: K and V each %s, %zu bytes\n",
           block_size ? "pool" : decode_layout_name(layout),
           tensor_fmt_dims(s1, sizeof s1, d->cache_k->ndim, d->cache_k->shape),
           tensor_numel(d->cache_k) * sizeof(float));
    int rc = decode_prefill(d, err, sizeof err);
    float worst = 0;
    while (rc == 0) {
        print_step(d);
        float e = decode_check(d);
        if (e > worst) worst = e;
        rc = decode_step(d, err, sizeof err);
    }
    if (rc < 0) {
        cli_line(stderr, "mhaviz: %s", err);
    } else {
        rc = d->block_size ? print_tables(d) : 0;
        printf("every row against the full causal pass%s: largest difference %g\n",
               cfg->window ? " with the window's band mask"
               : prefix    ? " (paged, the prefix shared)"
                           : "",
               (double)worst);
    }
    decode_free(d);
    mha_free(m);
    return rc < 0 ? 1 : rc;
}

/* ---- the command ----------------------------------------------------------------- */

/* decode's own defaults, put before the user's flags so that theirs win:
 * 8 tokens (a prefill and a few single steps) and 4 query heads (room for
 * GQA and MQA).  The screen and --plain both start from them. */
static const char *const decode_defaults[] = {"--seq", "8", "--heads", "4"};
enum { N_DEFAULTS = sizeof decode_defaults / sizeof *decode_defaults };

/* The flags of `mhaviz decode` that are not configuration or screen flags. */
typedef struct DecodeArgs {
    int plain;
    long prompt; /* 0: half the sequence (decode_prompt_default) */
    long window; /* 0: none */
    int paged;
    long block_size; /* 0: not given (16 with --paged) */
    long prefix;     /* --shared-prefix P; -1: not given */
    DecodeLayout layout;
    int layout_set; /* --layout given (else hf, or meta: vLLM's NHD pool with --paged) */
    const char *preset, *dtype, *gpu;
    long context;          /* 0: the preset's trained context */
    const char *real_flag; /* the first real-size flag given (they need --plain) */
} DecodeArgs;

/* Takes decode's own flags out of argv into a; rest gets argv[0], the
 * defaults, then every other argument in order (rest has room for argc +
 * N_DEFAULTS).  The count of rest, or -1 after printing a usage error. */
static int split_args(int argc, char **argv, DecodeArgs *a, char **rest)
{
    static const char *const real[] = {"--preset", "--dtype", "--gpu", "--context"};
    char err[200];
    int n = 0;
    *a = (DecodeArgs){.layout = DECODE_HF, .dtype = "fp16", .prefix = -1};
    rest[n++] = argv[0];
    for (int k = 0; k < N_DEFAULTS; k++)
        rest[n++] = (char *)decode_defaults[k];
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int r = 0, k;
        if (!strcmp(argv[i], "--plain")) {
            a->plain = 1;
            continue;
        }
        if (!strcmp(argv[i], "--paged")) {
            a->paged = 1;
            continue;
        }
        for (k = 0; k < 4 && !r; k++)
            r = cli_match(argc, argv, &i, real[k], &val, err, sizeof err);
        if (r < 0) return cli_usage("%s", err), -1;
        if (r > 0) {
            if (!a->real_flag) a->real_flag = real[k - 1];
            if (k == 1) a->preset = val;
            if (k == 2) a->dtype = val;
            if (k == 3) a->gpu = val;
            if (k == 4 && cli_long("--context", val, 1, 1000000000L, &a->context, err, sizeof err))
                return cli_usage("%s", err), -1;
        } else if ((r = cli_match(argc, argv, &i, "--layout", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err), -1;
            a->layout_set = 1;
            if (!strcmp(val, "hf"))
                a->layout = DECODE_HF;
            else if (!strcmp(val, "meta"))
                a->layout = DECODE_META;
            else
                return cli_usage("--layout: '%.40s' is not hf or meta", val), -1;
        } else if ((r = cli_match(argc, argv, &i, "--window", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--window", val, 1, MHA_MAX_SEQ, &a->window, err, sizeof err))
                return cli_usage("%s", err), -1;
        } else if ((r = cli_match(argc, argv, &i, "--block-size", &val, err, sizeof err)) != 0) {
            if (r < 0 ||
                cli_long("--block-size", val, 0, MHA_MAX_SEQ, &a->block_size, err, sizeof err))
                return cli_usage("%s", err), -1;
            if (a->block_size == 0)
                return cli_usage("--block-size 0: a block holds at least 1 token"), -1;
        } else if ((r = cli_match(argc, argv, &i, "--shared-prefix", &val, err, sizeof err)) != 0) {
            if (r < 0 ||
                cli_long("--shared-prefix", val, 0, MHA_MAX_SEQ, &a->prefix, err, sizeof err))
                return cli_usage("%s", err), -1;
        } else if ((r = cli_match(argc, argv, &i, "--prompt", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--prompt", val, 1, MHA_MAX_SEQ, &a->prompt, err, sizeof err))
                return cli_usage("%s", err), -1;
        } else {
            rest[n++] = argv[i];
        }
    }
    if (a->block_size && !a->paged) return cli_usage("--block-size: needs --paged"), -1;
    if (a->paged && !a->block_size) a->block_size = 16;
    if (a->paged && a->window) return cli_usage("--paged: not with --window (one at a time)"), -1;
    if (a->prefix >= 0 && !a->paged)
        return cli_usage("--shared-prefix: needs --paged (the prefix is shared in the pool)"), -1;
    if (a->prefix < 0) a->prefix = 0;
    if (a->paged && !a->layout_set) a->layout = DECODE_META; /* NHD, vLLM's default */
    return n;
}

/* --plain: rest holds the defaults and the configuration flags. */
static int run_plain(const DecodeArgs *a, int argc, char **rest)
{
    char err[300];
    MhaConfig cfg = mha_config_default();
    int kv_set = 0;
    for (int i = 1; i < argc; i++) {
        int r = cli_config_flag(argc, rest, &i, &cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r == 0)
            return cli_usage("decode: unknown option '%.60s' (see mhaviz decode --help)", rest[i]);
    }
    if (!a->preset) {
        if (a->gpu || a->context)
            return cli_usage("decode: --gpu and --context need --preset NAME");
        if (!kv_set) cfg.kv_heads = cfg.heads;
        cfg.window = (int)a->window;
        cfg.causal |= cfg.window > 0; /* decode is causal; the window is its band */
        if (mha_config_check(&cfg, err, sizeof err) != 0) return cli_usage("%s", err);
        if (a->prompt > cfg.seq)
            return cli_usage("--prompt %ld: more than --seq %d", a->prompt, cfg.seq);
        int prompt = a->prompt ? (int)a->prompt : decode_prompt_default(cfg.seq);
        if (a->prefix > prompt)
            return cli_usage("--shared-prefix %ld: more than the prompt's %d token%s (the shared "
                             "prefix is part of every prompt)",
                             a->prefix, prompt, text_s(prompt));
        cfg.shared_prefix = (int)a->prefix;
        if (a->paged && cfg.batch < 2)
            return cli_usage("--paged: needs --batch 2 or more (one pool of blocks shared by the "
                             "sequences; batch is %d)",
                             cfg.batch);
        return print_toy(&cfg, prompt, a->layout, a->paged ? (int)a->block_size : 0,
                         (int)a->prefix);
    }
    const KvDtype *dt = kv_dtype(a->dtype);
    if (!dt) return cli_usage("--dtype '%.20s': expected fp32, fp16, bf16, fp8 or int4", a->dtype);
    const Gpu *g = NULL;
    if (a->gpu && !(g = gpus_find(a->gpu)))
        return cli_usage("--gpu '%.40s': unknown (one of %s)", a->gpu, gpus_names(err, sizeof err));
    PresetList ps;
    if (presets_builtin(&ps, err, sizeof err) != 0) {
        cli_line(stderr, "mhaviz: %s", err);
        return 1;
    }
    const Preset *p = presets_find(&ps, a->preset);
    int rc;
    const char *near = p ? NULL : presets_suggest(&ps, a->preset);
    if (!p && near)
        rc = cli_usage("--preset '%.40s': unknown model (did you mean '%s'?)", a->preset, near);
    else if (!p)
        rc = cli_usage("--preset '%.40s': unknown model (mhaviz kv --list shows them)", a->preset);
    else
        rc = print_real(p, dt, a->context ? a->context : p->context ? p->context : 4096, g);
    presets_free(&ps);
    return rc;
}

/* The screen: rest goes to the interactive flags (configuration, --color ...). */
static int run_screen(const DecodeArgs *a, int argc, char **rest)
{
    if (a->real_flag)
        return cli_usage("%s needs --plain (real sizes are printed, not drawn)", a->real_flag);
    if (!isatty(STDOUT_FILENO))
        return cli_usage("stdout is not a terminal; for text use `mhaviz decode --plain` "
                         "(add --preset NAME for real sizes)");
    Ui ui;
    InteractiveOptions o;
    int rc = interactive_setup(&ui, &o, argc, rest, 1, 0, decode_help);
    if (rc < 0 && a->prompt > ui.cfg.seq)
        rc = cli_usage("--prompt %ld: more than --seq %d", a->prompt, ui.cfg.seq);
    if (rc >= 0) {
        ui_free(&ui);
        return rc;
    }
    int prompt = a->prompt ? (int)a->prompt : decode_prompt_default(ui.cfg.seq);
    if (rc < 0 && a->prefix > prompt)
        rc = cli_usage("--shared-prefix %ld: more than the prompt's %d token%s (the shared prefix "
                       "is part of every prompt)",
                       a->prefix, prompt, text_s(prompt));
    if (rc < 0 && a->paged && ui.cfg.batch < 2)
        rc = cli_usage("--paged: needs --batch 2 or more (one pool of blocks shared by the "
                       "sequences; batch is %d)",
                       ui.cfg.batch);
    if (rc >= 0) {
        ui_free(&ui);
        return rc;
    }
    DecodeScreenOpts so = {(int)a->prompt, a->layout, (int)a->window,
                           a->paged ? (int)a->block_size : 0, (int)a->prefix};
    return interactive_run(&ui, decode_open_opts(&ui, &so), &o);
}

int cmd_decode(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(decode_help, stdout);
            printf("\nConfiguration (the toy run; decode starts from --seq 8 --heads 4):\n%s",
                   cli_config_help);
            return 0;
        }
    char **rest = malloc(((size_t)argc + N_DEFAULTS) * sizeof *rest);
    if (!rest) return cli_io_error("out of memory");
    DecodeArgs a;
    int n = split_args(argc, argv, &a, rest);
    int rc = n < 0 ? EXIT_USAGE : a.plain ? run_plain(&a, n, rest) : run_screen(&a, n, rest);
    free(rest);
    return rc;
}
