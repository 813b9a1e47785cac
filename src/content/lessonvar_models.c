/* lessonvar_models.c - the {expressions} of real models and of the decode
 * step: presets, KV-cache bytes, decode costs at real sizes and on the toy run
 * (lessonvar.c holds the table that names them). */
#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
#include "content/gpus.h"
#include "content/kv.h"
#include "content/lessonvar.h"
#include "engine/decode.h"

static const Preset *preset_arg(const PresetList *p, const char *s, char *err, size_t errlen)
{
    const Preset *r = p ? presets_find(p, s) : NULL;
    if (!r) {
        const char *names[64];
        int n = 0;
        for (int i = 0; p && i < p->n && n < 64; i++)
            names[n++] = p->v[i].name;
        const char *sug = text_suggest(s, names, n);
        snprintf(err, errlen, "unknown preset '%.40s'%s%s%s", s,
                 sug ? " (did you mean '" : " (see mhaviz kv --list)", sug ? sug : "",
                 sug ? "'?)" : "");
    }
    return r;
}

/* {preset NAME FIELD} */
int lessonvar_preset(Eval *e, int argc, char **argv)
{
    if (argc != 3) return WRONG_ARGS;
    const Preset *p = preset_arg(e->presets, argv[1], e->err, e->errlen);
    if (!p) return -1;
    const char *k = argv[2];
    if (!strcmp(k, "title")) {
        put(e->o, "%s", p->title);
        return 0;
    }
    long v = !strcmp(k, "layers")             ? p->layers
             : !strcmp(k, "heads")            ? p->heads
             : !strcmp(k, "kv_heads")         ? p->kv_heads
             : !strcmp(k, "d_head")           ? p->d_head
             : !strcmp(k, "d_model")          ? p->d_model
             : !strcmp(k, "context")          ? p->context
             : !strcmp(k, "window")           ? p->window
             : !strcmp(k, "chunk")            ? p->chunk
             : !strcmp(k, "kv_lora_rank")     ? p->kv_lora_rank
             : !strcmp(k, "qk_rope_head_dim") ? p->qk_rope_head_dim
             : !strcmp(k, "global_every")     ? p->global_every
             : !strcmp(k, "local_layers")     ? kv_limit_of(p).local_layers
             : !strcmp(k, "global_layers")    ? p->layers - kv_limit_of(p).local_layers
             : !strcmp(k, "hidden_per_head")  ? p->d_model / p->heads /* not always d_head */
                                              : -1;
    if (v < 0) {
        snprintf(e->err, e->errlen,
                 "{preset %s %.20s}: fields are title layers heads kv_heads d_head d_model context "
                 "window chunk kv_lora_rank qk_rope_head_dim global_every local_layers "
                 "global_layers "
                 "hidden_per_head",
                 argv[1], k);
        return -1;
    }
    put(e->o, "%ld", v);
    return 0;
}

/* {ratio NAME}: query heads per kv head */
int lessonvar_ratio(Eval *e, int argc, char **argv)
{
    if (argc != 2) return WRONG_ARGS;
    const Preset *p = preset_arg(e->presets, argv[1], e->err, e->errlen);
    if (!p) return -1;
    put(e->o, "%ld", p->heads / p->kv_heads);
    return 0;
}

/* {kv NAME DTYPE [mha|mqa|hidden]}: bytes per token (hidden: d_head taken as
 * d_model / heads, the head_dim trap); {kvctx NAME DTYPE [CONTEXT]}: per sequence */
int lessonvar_kv(Eval *e, int argc, char **argv)
{
    const char *f = argv[0];
    char buf[160];
    if (argc != 3 && argc != 4) return WRONG_ARGS;
    const Preset *p = preset_arg(e->presets, argv[1], e->err, e->errlen);
    if (!p) return -1;
    const KvDtype *d = kv_dtype(argv[2]);
    if (!d) {
        snprintf(e->err, e->errlen, "{%s}: unknown dtype '%.20s' (fp32 fp16 bf16 fp8 int4)", f,
                 argv[2]);
        return -1;
    }
    KvModel m = kv_model_of(p); /* MLA: its latent, not num_key_value_heads */
    long ctx = p->context ? p->context : 4096;
    if (argc == 4) {
        char *end;
        long v = (argv[3][0] >= '0' && argv[3][0] <= '9') ? strtol(argv[3], &end, 10) : 0;
        if (!strcmp(f, "kv") && (!strcmp(argv[3], "mha") || !strcmp(argv[3], "mqa"))) {
            m.kv_heads = argv[3][1] == 'h' ? p->heads : 1; /* K and V per head */
            m.kv_lora_rank = m.qk_rope_head_dim = 0;
        } else if (!strcmp(f, "kv") && !strcmp(argv[3], "hidden")) {
            m.d_head = p->d_model / p->heads; /* the calculator that ignores head_dim */
            m.kv_lora_rank = m.qk_rope_head_dim = 0;
        } else if (!strcmp(f, "kvctx") && v > 0 && !*end)
            ctx = v;
        else {
            snprintf(e->err, e->errlen, "{%s}: last argument must be %s", f,
                     !strcmp(f, "kv") ? "mha, mqa or hidden" : "a context length");
            return -1;
        }
    }
    uint64_t per = 0, tot = 0, layer = 0;
    KvLimit lim = kv_limit_of(p); /* windowed / chunked layers keep fewer tokens */
    if (kv_model_bytes(&m, d->bits, &per, &layer) ||
        kv_layer_tokens(p->layers, &lim, ctx) > UINT64_MAX / layer ||
        (tot = layer * kv_layer_tokens(p->layers, &lim, ctx), 0)) {
        snprintf(e->err, e->errlen, "{%s}: overflow", f);
        return -1;
    }
    if (!strcmp(f, "kv"))
        put(e->o, "%s", kv_fmt_int(buf, sizeof buf, per));
    else
        put(e->o, "%s", kv_fmt_size(buf, sizeof buf, tot));
    return 0;
}

/* {decode NAME DTYPE CONTEXT FIELD [GPU]}: one generated token of a real
 * model at CONTEXT (content/kv.c's kv_decode_cost). */
int lessonvar_decode(Eval *e, int argc, char **argv)
{
    static const char fields[] = "write read weights outgrows scores intensity toks fit";
    if (argc != 5 && argc != 6) return WRONG_ARGS;
    const Preset *p = preset_arg(e->presets, argv[1], e->err, e->errlen);
    if (!p) return -1;
    const KvDtype *d = kv_dtype(argv[2]);
    long ctx;
    if (int_arg(e, "decode", argv[3], 1, 1000000000L, &ctx) != 0) return -1;
    const Gpu *g = argc == 6 ? gpus_find(argv[5]) : NULL;
    if (!d || (argc == 6 && !g)) {
        snprintf(e->err, e->errlen, "{decode %s %.20s ...}: unknown dtype or gpu", argv[1],
                 argv[2]);
        return -1;
    }
    KvDecodeCost k;
    if (kv_decode_cost(p, d->bits, ctx, &k, e->err, e->errlen) != 0) return -1;
    const KvRow *own = &k.rows[0];
    for (int i = 0; i < k.n; i++)
        if (k.rows[i].is_model) own = &k.rows[i];
    char buf[64];
    const char *f = argv[4];
    Out *o = e->o;
    if (!strcmp(f, "write")) return put(o, "%s", kv_fmt_int(buf, sizeof buf, own->per_token)), 0;
    if (!strcmp(f, "read")) return put(o, "%s", kv_fmt_size(buf, sizeof buf, own->per_context)), 0;
    if (!strcmp(f, "weights") && k.weights)
        return put(o, "%s", kv_fmt_size(buf, sizeof buf, k.weights)), 0;
    if (!strcmp(f, "outgrows") && k.weights)
        return put(o, "%s", kv_fmt_int(buf, sizeof buf, (uint64_t)k.outgrows[own - k.rows])), 0;
    if (!strcmp(f, "scores")) { /* (1, H, T, T) of one layer, at this dtype */
        uint64_t b = (uint64_t)p->heads * (uint64_t)ctx * (uint64_t)ctx * (uint64_t)d->bits / 8;
        return put(o, "%s", kv_fmt_size(buf, sizeof buf, b)), 0;
    }
    if (!strcmp(f, "intensity")) /* FLOPs per byte of cache read: 4 dh G / (2 dh bytes) */
        return put(o, "%g", 2.0 * (double)(p->heads / p->kv_heads) / (d->bits / 8.0)), 0;
    if (!strcmp(f, "toks") && g && k.weights)
        return put(o, "%.0f", kv_tokens_per_s(g->bw, k.weights_read, own->per_context, 1)), 0;
    if (!strcmp(f, "fit") && g && k.weights)
        return put(o, "%llu",
                   (unsigned long long)kv_sequences_fit(g->mem_bytes, k.weights, own->per_context)),
               0;
    snprintf(e->err, e->errlen, "{decode ... %.20s}: fields are %s (toks and fit need a GPU)", f,
             fields);
    return -1;
}

/* One decode field of {decodetoy FIELD}, from the HF and Meta runs after
 * their last step; -1 for an unknown field. */
static int decodetoy_field(Out *o, const char *f, const Decode *hf, const Decode *meta)
{
    char buf[96];
    if (!strcmp(f, "q"))
        put(o, "%s", tensor_fmt_dims(buf, sizeof buf, hf->q->ndim, hf->q->shape));
    else if (!strcmp(f, "k"))
        put(o, "%s", tensor_fmt_dims(buf, sizeof buf, hf->k_read->ndim, hf->k_read->shape));
    else if (!strcmp(f, "hfstrides"))
        put(o, "%s", tensor_fmt_strides(buf, sizeof buf, hf->cache_k));
    else if (!strcmp(f, "metastrides"))
        put(o, "%s", tensor_fmt_strides(buf, sizeof buf, meta->cache_k));
    else if (!strcmp(f, "metaread"))
        put(o, "%s", tensor_fmt_strides(buf, sizeof buf, meta->k_read));
    else if (!strcmp(f, "shared"))
        put(o, "%s", tensor_fmt_strides(buf, sizeof buf, hf->k_shared));
    else if (!strcmp(f, "read"))
        put(o, "%zu", hf->read_step);
    else if (!strcmp(f, "written"))
        put(o, "%zu", hf->written_step);
    else if (!strcmp(f, "check")) {
        float a = decode_check(hf), b = decode_check(meta);
        put(o, "%g", (double)(a > b ? a : b));
    } else
        return -1;
    return 0;
}

/* {decodetoy FIELD}: a real decode over the page's configuration (a causal
 * run of it, a prompt of seq - 1 tokens, then the last token), in both cache
 * layouts; prefillq is the prefill's q. */
int lessonvar_decodetoy(Eval *e, int argc, char **argv)
{
    if (argc != 2) return WRONG_ARGS;
    MhaConfig c = e->m->cfg;
    c.causal = 1;
    Mha *run = mha_run(&c, e->err, e->errlen);
    int prompt = c.seq > 1 ? c.seq - 1 : 1, rc = -1;
    Decode *hf = run ? decode_new(run, DECODE_HF, prompt, e->err, e->errlen) : NULL;
    Decode *meta = hf ? decode_new(run, DECODE_META, prompt, e->err, e->errlen) : NULL;
    char buf[96];
    if (!meta || decode_prefill(hf, e->err, e->errlen) || decode_prefill(meta, e->err, e->errlen))
        goto done;
    if (!strcmp(argv[1], "prefillq")) {
        put(e->o, "%s", tensor_fmt_dims(buf, sizeof buf, hf->q->ndim, hf->q->shape));
        rc = 0;
        goto done;
    }
    if (c.seq > 1 &&
        (decode_step(hf, e->err, e->errlen) < 0 || decode_step(meta, e->err, e->errlen) < 0))
        goto done;
    rc = decodetoy_field(e->o, argv[1], hf, meta);
    if (rc < 0)
        snprintf(e->err, e->errlen,
                 "{decodetoy %.20s}: fields are prefillq q k hfstrides metastrides metaread "
                 "shared read written check",
                 argv[1]);
done:
    decode_free(hf);
    decode_free(meta);
    mha_free(run);
    return rc;
}
