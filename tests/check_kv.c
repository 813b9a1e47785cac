/* check_kv.c - KV-cache arithmetic (src/kv.c), the presets file (src/presets.c)
 * and the `mhaviz kv` command run as a process. */
#include "check_main.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "content/kv.h"
#include "content/presets.h"
#include "lessons_testutil.h"

static PresetList P;

static void setup(void)
{
    char err[300];
    ck_assert_msg(presets_builtin(&P, err, sizeof err) == 0, "%s", err);
}
static void teardown(void)
{
    presets_free(&P);
}

static uint64_t per_token(const char *name, const char *dtype, long kv_override)
{
    const Preset *p = presets_find(&P, name);
    ck_assert_msg(p != NULL, "preset %s missing", name);
    uint64_t v = 0;
    ck_assert_int_eq(kv_bytes_per_token(p->layers, kv_override ? kv_override : p->kv_heads,
                                        p->d_head, kv_dtype(dtype)->bits, &v),
                     0);
    return v;
}

START_TEST(llama2_70b_fp16_is_327680)
{
    ck_assert_uint_eq(per_token("llama-2-70b", "fp16", 0), 327680); /* 2*80*8*128*2 */
    ck_assert_uint_eq(per_token("llama-2-70b", "bf16", 0), 327680);
    ck_assert_uint_eq(per_token("llama-2-70b", "fp32", 0), 655360);
    ck_assert_uint_eq(per_token("llama-2-70b", "fp8", 0), 163840);
    ck_assert_uint_eq(per_token("llama-2-70b", "int4", 0), 81920);
}
END_TEST

START_TEST(llama3_8b_fp16_is_131072)
{
    ck_assert_uint_eq(per_token("llama-3-8b", "fp16", 0), 131072);
}
END_TEST

START_TEST(mha_counterfactual_of_llama2_70b_is_8x)
{
    const Preset *p = presets_find(&P, "llama-2-70b");
    KvModel m = kv_model_of(p);
    KvRow rows[3];
    int n = 0;
    char err[200];
    ck_assert_int_eq(kv_table(&m, 16, 4096, 1, rows, &n, err, sizeof err), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(rows[0].label, "MHA");
    ck_assert_str_eq(rows[1].label, "GQA (this model)");
    ck_assert_str_eq(rows[2].label, "MQA");
    ck_assert_uint_eq(rows[0].per_token, 8 * rows[1].per_token);
    ck_assert_uint_eq(rows[1].per_token, 327680);
    ck_assert_uint_eq(rows[1].per_context, 327680ULL * 4096);
    ck_assert_uint_eq(rows[2].per_token * 8, rows[1].per_token);
}
END_TEST

START_TEST(mqa_and_mha_models_have_two_rows)
{
    KvModel falcon = {.layers = 32, .heads = 71, .kv_heads = 1, .d_head = 64},
            gpt2 = {.layers = 12, .heads = 12, .kv_heads = 12, .d_head = 64};
    KvRow rows[3];
    int n = 0;
    char err[200];
    ck_assert_int_eq(kv_table(&falcon, 16, 2048, 1, rows, &n, err, sizeof err), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(rows[1].label, "MQA (this model)");
    ck_assert_uint_eq(rows[0].per_token, 71 * rows[1].per_token);
    ck_assert_int_eq(kv_table(&gpt2, 16, 1024, 1, rows, &n, err, sizeof err), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(rows[0].label, "MHA (this model)");
}
END_TEST

START_TEST(overflow_is_refused)
{
    uint64_t v = 0;
    ck_assert_int_eq(kv_bytes_per_token(1000000, 1000000, 1000000, 32, &v), -1); /* 6.4e19 bits */
    ck_assert_int_eq(kv_bytes_per_token(1000000, 1000000, 1000, 32, &v), 0);
    ck_assert_int_eq(kv_bytes_total(v, 1000000000000L, 1000000000L, &v), -1);
    ck_assert_int_eq(kv_bytes_total(UINT64_MAX / 2, 3, 1, &v), -1);
    ck_assert_int_eq(kv_bytes_total(UINT64_MAX / 2, 2, 1, &v), 0);
    ck_assert_int_eq(kv_bytes_per_token(0, 1, 1, 16, &v), -1);
}
END_TEST

START_TEST(every_preset_is_consistent)
{
    ck_assert_int_ge(P.n, 8);
    const char *need[] = {"transformer-base", "gpt2-small",  "llama-2-7b", "llama-2-70b",
                          "llama-3-8b",       "llama-3-70b", "mistral-7b", "falcon-7b"};
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        ck_assert_msg(presets_find(&P, need[i]), "missing %s", need[i]);
    for (int i = 0; i < P.n; i++) {
        /* d_model = heads x d_head unless the config has a head_dim of its own */
        if (strstr(P.v[i].source, "head_dim=") == NULL && !P.v[i].kv_lora_rank)
            ck_assert_int_eq(P.v[i].heads * P.v[i].d_head, P.v[i].d_model);
        ck_assert_int_eq(P.v[i].heads % P.v[i].kv_heads, 0);
        ck_assert(strlen(P.v[i].source) > 10);
    }
    /* d_model = heads x d_head: 4096 = 32 x 128 for Llama 2 7B. */
    const Preset *l = presets_find(&P, "llama-2-7b");
    ck_assert_int_eq(l->d_model, 4096);
    ck_assert_int_eq(presets_find(&P, "falcon-7b")->kv_heads, 1);
}
END_TEST

#define TITLE_81 "123456789012345678901234567890123456789012345678901234567890123456789012345678901"
START_TEST(bad_preset_files_say_where)
{
    PresetList l;
    char err[300];
    ck_assert_int_eq(presets_parse("x.presets",
                                   "[a]\ntitle = A\nlayers = 2\nheads = 4\nkv_heads = 3\n"
                                   "d_head = 2\nd_model = 8\nsource = s\n",
                                   &l, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "x.presets:1: [a] kv_heads 3 does not divide heads 4");
    ck_assert_int_eq(presets_parse("x.presets", "[a]\nlayres = 2\n", &l, err, sizeof err), -1);
    ck_assert_ptr_nonnull(
        strstr(err, "x.presets:2: unknown key 'layres' (did you mean 'layers'?)"));
    ck_assert_int_eq(presets_parse("x.presets", "[a]\nwibble = 2\n", &l, err, sizeof err), -1);
    ck_assert_str_eq(err, "x.presets:2: unknown key 'wibble' (keys: title layers heads kv_heads "
                          "d_head d_model context window chunk global_every kv_lora_rank "
                          "qk_rope_head_dim params active_params vocab tied source note)");
    ck_assert_int_eq(
        presets_parse("x.presets", "[a]\nparams = 100000000000001\n", &l, err, sizeof err), -1);
    ck_assert_str_eq(err,
                     "x.presets:2: params '100000000000001' is not a whole number in 1..10^14");
    ck_assert_int_eq(presets_parse("x.presets", "[a]\ntitle = " TITLE_81 "\n", &l, err, sizeof err),
                     -1);
    ck_assert_str_eq(err, "x.presets:2: title is longer than 79 bytes");
    ck_assert_int_eq(presets_parse("x.presets", "[a]\nlayers = -2\n", &l, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "x.presets:2:"));
    ck_assert_int_eq(presets_parse("x.presets", "", &l, err, sizeof err), -1);
    ck_assert_int_eq(presets_parse("x.presets", "title = a\n", &l, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "before the first [name]"));
}
END_TEST

START_TEST(format_helpers)
{
    char b[40];
    ck_assert_str_eq(kv_fmt_int(b, sizeof b, 327680), "327,680");
    ck_assert_str_eq(kv_fmt_int(b, sizeof b, 999), "999");
    ck_assert_str_eq(kv_fmt_int(b, sizeof b, 1000), "1,000");
    ck_assert_str_eq(kv_fmt_size(b, sizeof b, 1342177280ULL), "1.25 GiB");
    ck_assert_str_eq(kv_fmt_size(b, sizeof b, 12), "12 B");
}
END_TEST

START_TEST(command_prints_formula_and_table)
{
    static char out[8192];
    ck_assert_int_eq(tu_run("kv --preset llama-2-70b --dtype fp16", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "per token  = 2 x 80 x 8 x 128 x 2 = 327,680 bytes"));
    ck_assert_ptr_nonnull(strstr(out, "2,621,440")); /* the MHA row */
    ck_assert_ptr_nonnull(strstr(out, "source: https://"));
    ck_assert_int_eq(tu_run("kv --preset llama-3-8b", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "131,072"));
    ck_assert_int_eq(tu_run("kv --list", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "falcon-7b"));
    ck_assert_int_eq(
        tu_run("kv --layers 2 --heads 4 --kv-heads 2 --d-head 8 --dtype fp32", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "2 x 2 x 2 x 8 x 4 = 256 bytes"));
}
END_TEST

START_TEST(command_refuses_bad_input)
{
    static char out[4096];
    ck_assert_int_eq(tu_run("kv --preset nope", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "mhaviz: --preset 'nope'"));
    ck_assert_int_eq(tu_run("kv --preset gpt2-small --dtype fp64", out, sizeof out), 2);
    ck_assert_ptr_nonnull(strstr(out, "--dtype 'fp64'"));
    ck_assert_int_eq(tu_run("kv --heads 4 --d-head 8", out, sizeof out), 2);
    ck_assert_int_eq(tu_run("kv --layers 2 --heads 4 --kv-heads 3 --d-head 8", out, sizeof out), 2);
    ck_assert_int_eq(tu_run("kv --preset gpt2-small --context 0", out, sizeof out), 2);
    ck_assert_int_eq(tu_run("kv --layers 1000000 --heads 1000000 --d-head 1000000 --context "
                            "1000000000000 --batch 1000000000",
                            out, sizeof out),
                     2);
    ck_assert_ptr_nonnull(strstr(out, "64 bits"));
    ck_assert_int_eq(tu_run("kv --bogus", out, sizeof out), 2);
    ck_assert_int_eq(strchr(out, '\n') - out + 1, (long)strlen(out)); /* one line */
}
END_TEST

/* One sentence for "beyond the trained context", from kv_hypothetical: the
 * command prints it, the calculator screen shows it (it had no mark). */
START_TEST(hypothetical_past_the_trained_context)
{
    char b[120];
    static char out[8192];
    const Preset *p = presets_find(&P, "llama-3-8b");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(kv_hypothetical(p, 8192, b, sizeof b), 0);
    ck_assert_str_eq(b, "");
    ck_assert_int_eq(kv_hypothetical(p, 16384, b, sizeof b), 1);
    ck_assert_str_eq(b,
                     "hypothetical: 16,384 tokens is beyond the 8,192 the model was trained for");
    ck_assert_int_eq(tu_run("kv --preset llama-3-8b --context 16384", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, b));
    ck_assert_int_eq(tu_run("decode --plain --preset llama-3-8b --context 16384", out, sizeof out),
                     0);
    ck_assert_ptr_nonnull(strstr(out, b));
}
END_TEST

/* kv --list lines its columns up whatever the longest title (Llama 4
 * Maverick's overflowed a fixed 40-wide column): every row as long as the
 * header. */
/* Four small models from a presets file: every layer windowed ([w]), every
 * third layer global ([g]), chunked with every second layer global ([c]),
 * no local layer ([n]).  6 layers, kv_heads 2, d_head 8: at fp16 a token
 * costs 2 * 2 * 8 * 2 = 64 B in one layer. */
static const char local_presets[] =
    "[w]\ntitle = W\nlayers = 6\nheads = 4\nkv_heads = 2\nd_head = 8\nd_model = 32\n"
    "source = x\nwindow = 4\n"
    "[g]\ntitle = G\nlayers = 6\nheads = 4\nkv_heads = 2\nd_head = 8\nd_model = 32\n"
    "source = x\nwindow = 4\nglobal_every = 3\n"
    "[c]\ntitle = C\nlayers = 6\nheads = 4\nkv_heads = 2\nd_head = 8\nd_model = 32\n"
    "source = x\nchunk = 4\nglobal_every = 2\n"
    "[n]\ntitle = N\nlayers = 6\nheads = 4\nkv_heads = 2\nd_head = 8\nd_model = 32\n"
    "source = x\n";

/* Which layers are local, and what each keeps: min(context, window) for a
 * local layer, the context for the others; the cache stops growing at the
 * window when every layer is local. */
START_TEST(sliding_window_caps_local_layers)
{
    PresetList pl;
    char err[200];
    ck_assert_msg(presets_parse("t.presets", local_presets, &pl, err, sizeof err) == 0, "%s", err);
    KvLimit w = kv_limit_of(presets_find(&pl, "w")), g = kv_limit_of(presets_find(&pl, "g"));
    KvLimit c = kv_limit_of(presets_find(&pl, "c")), n = kv_limit_of(presets_find(&pl, "n"));
    ck_assert(w.window == 4 && w.local_layers == 6 && w.chunked == 0);
    ck_assert(g.window == 4 && g.local_layers == 4 && g.chunked == 0); /* layers 3, 6 global */
    ck_assert(c.window == 4 && c.local_layers == 3 && c.chunked == 1); /* layers 2, 4, 6 */
    ck_assert(n.window == 0 && n.local_layers == 0);
    static const long ctx[] = {1, 3, 4, 5, 100};
    static const uint64_t want_w[] = {6, 18, 24, 24, 24};
    for (int i = 0; i < 5; i++) {
        ck_assert_uint_eq(kv_layer_tokens(6, &w, ctx[i]), want_w[i]);
        ck_assert_uint_eq(kv_layer_tokens(6, &n, ctx[i]), 6 * (uint64_t)ctx[i]);
        ck_assert_uint_eq(kv_layer_tokens(6, NULL, ctx[i]), 6 * (uint64_t)ctx[i]);
    }
    ck_assert_uint_eq(kv_layer_tokens(6, &g, 10), 2 * 10 + 4 * 4);
    ck_assert_uint_eq(kv_layer_tokens(6, &g, 2), 6 * 2); /* below the window: all of it */
    ck_assert_uint_eq(kv_layer_tokens(6, &c, 10), 3 * 10 + 3 * 4);
    presets_free(&pl);
}
END_TEST

/* The table counts the tokens each layer keeps: per_context and total shrink
 * to the window, per_token (one token in every layer) does not; below the
 * window the limited table is the plain one.  And the smallest context whose
 * cache passes a size, which a fully windowed cache may never reach. */
START_TEST(sliding_window_in_the_table_and_the_crossing)
{
    PresetList pl;
    char err[200];
    KvRow rows[3], plain[3];
    int nr = 0, np = 0;
    ck_assert_msg(presets_parse("t.presets", local_presets, &pl, err, sizeof err) == 0, "%s", err);
    const Preset *p = presets_find(&pl, "w");
    KvModel m = {p->layers, p->heads, p->kv_heads, p->d_head, 0, 0};
    KvLimit w = kv_limit_of(p), g = kv_limit_of(presets_find(&pl, "g"));
    ck_assert_int_eq(kv_table_limited(&m, &w, 16, 100, 3, rows, &nr, err, sizeof err), 0);
    ck_assert_int_eq(kv_table(&m, 16, 100, 3, plain, &np, err, sizeof err), 0);
    ck_assert_int_eq(nr, 3);
    ck_assert_int_eq(np, 3);
    ck_assert(rows[1].is_model && rows[1].kv_heads == 2);
    ck_assert_uint_eq(rows[1].per_token_layer, 64);
    ck_assert_uint_eq(rows[1].per_token, 6 * 64);      /* every layer, as without the window */
    ck_assert_uint_eq(rows[1].per_context, 64 * 24);   /* 6 layers x 4 tokens */
    ck_assert_uint_eq(plain[1].per_context, 64 * 600); /* 6 layers x 100 tokens */
    ck_assert_uint_eq(rows[1].total, 3 * 64 * 24);     /* batch 3 */
    ck_assert_uint_eq(rows[0].per_context, 128 * 24);  /* MHA: kv_heads 4 */
    ck_assert_uint_eq(rows[2].per_context, 32 * 24);   /* MQA */
    ck_assert_int_eq(kv_table_limited(&m, &w, 16, 3, 1, rows, &nr, err, sizeof err), 0);
    ck_assert_int_eq(kv_table(&m, 16, 3, 1, plain, &np, err, sizeof err), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(rows[i].per_context, plain[i].per_context);

    /* cache(T) = 64 * 6 * min(T, 4): 768 at 2, 1152 at 3, 1536 from 4 on */
    ck_assert_int_eq(kv_context_exceeding(64, 6, &w, 1000), 3);
    ck_assert_int_eq(kv_context_exceeding(64, 6, &w, 1535), 4);
    ck_assert_int_eq(kv_context_exceeding(64, 6, &w, 1536), 0); /* never: it stops growing */
    ck_assert_int_eq(kv_context_exceeding(64, 6, NULL, 1536), 5);
    /* two global layers keep growing: 64 * (2T + 16) > 6400 from T = 43 */
    ck_assert_int_eq(kv_context_exceeding(64, 6, &g, 6400), 43);
    ck_assert_int_eq(kv_context_exceeding(64, 6, NULL, 6400), 17);
    presets_free(&pl);
}
END_TEST

START_TEST(list_columns_line_up)
{
    static char out[8192];
    ck_assert_int_eq(tu_run("kv --list", out, sizeof out), 0);
    size_t first = strcspn(out, "\n");
    for (const char *l = out; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0))
        ck_assert_msg(strcspn(l, "\n") == first, "row out of line: %.60s", l);
}
END_TEST

/* --- presets read as engines read configs (issue 19) ------------------------- */

/* The model's own bytes per token and per layer, as kv_model_bytes gives them. */
static uint64_t own_per_token(const char *name, const char *dtype, uint64_t *per_layer)
{
    const Preset *p = presets_find(&P, name);
    ck_assert_msg(p != NULL, "preset %s missing", name);
    KvModel m = kv_model_of(p);
    uint64_t v = 0, l = 0;
    ck_assert_int_eq(kv_model_bytes(&m, kv_dtype(dtype)->bits, &v, &l), 0);
    if (per_layer) *per_layer = l;
    return v;
}

/* MLA caches layers x (kv_lora_rank + qk_rope_head_dim): 61 x 576 x 2 =
 * 70,272 B for DeepSeek-V3 at bf16, not the 3,997,696 B that its
 * num_key_value_heads = 128 would give as K and V per head. */
START_TEST(deepseek_v3_mla_is_70272)
{
    uint64_t layer = 0;
    ck_assert_uint_eq(own_per_token("deepseek-v3", "bf16", &layer), 70272);
    ck_assert_uint_eq(layer, 1152);
    ck_assert_uint_eq(own_per_token("deepseek-v3", "fp32", NULL), 140544);
    ck_assert_uint_eq(own_per_token("deepseek-v3", "fp8", NULL), 35136);
    ck_assert_uint_eq(own_per_token("deepseek-v2-lite", "bf16", NULL), 27 * 576 * 2);
    uint64_t v = 0;
    ck_assert_int_eq(kv_bytes_per_token_mla(61, 512, 64, 16, &v), 0);
    ck_assert_uint_eq(v, 70272);
    ck_assert_int_eq(kv_bytes_per_token_mla(61, 0, 64, 16, &v), -1);
    ck_assert_uint_eq(own_per_token("llama-3-70b", "bf16", NULL), 327680); /* the GQA it beats */

    const Preset *p = presets_find(&P, "deepseek-v3");
    KvModel m = kv_model_of(p);
    ck_assert_str_eq(kv_kind(&m), "MLA");
    KvRow rows[3];
    int n = 0;
    char err[200];
    ck_assert_int_eq(kv_table_limited(&m, NULL, 16, 4096, 1, rows, &n, err, sizeof err), 0);
    ck_assert_int_eq(n, 3);
    ck_assert_str_eq(rows[0].label, "MHA");
    ck_assert_str_eq(rows[1].label, "MLA (this model)");
    ck_assert_str_eq(rows[2].label, "MQA");
    ck_assert_uint_eq(rows[0].per_token, 2ULL * 61 * 128 * 128 * 2);
    ck_assert_uint_eq(rows[1].per_token, 70272);
    ck_assert_uint_eq(rows[1].per_context, 70272ULL * 4096);
    ck_assert_uint_eq(rows[2].per_token, 2ULL * 61 * 128 * 2);
}
END_TEST

/* Mistral Small 3's head_dim is 128, not hidden_size / heads = 160. */
START_TEST(head_dim_comes_from_the_config)
{
    ck_assert_uint_eq(own_per_token("mistral-small-3", "bf16", NULL), 2 * 40 * 8 * 128 * 2);
    const Preset *p = presets_find(&P, "mistral-small-3");
    ck_assert_int_eq(p->d_model / p->heads, 160);
    ck_assert_uint_eq(own_per_token("gemma-3-27b", "bf16", NULL), 2 * 62 * 16 * 128 * 2);
    ck_assert_int_eq(presets_find(&P, "llama-3.1-8b")->context, 131072);
}
END_TEST

/* The layer kinds at context T: each layer keeps min(T, its window). */
static void kinds_at(const char *name, long T, KvLayerKind k[2], int *n)
{
    const Preset *p = presets_find(&P, name);
    ck_assert_msg(p != NULL, "preset %s missing", name);
    KvModel m = kv_model_of(p);
    KvLimit lim = kv_limit_of(p);
    char err[200];
    ck_assert_int_eq(kv_layer_kinds(&m, &lim, 16, T, k, n, err, sizeof err), 0);
}

/* Gemma 3 27B: 10 global layers keep T, 52 keep min(T, 1024); the 1B's
 * window is 512.  gpt-oss alternates: 18 and 18 layers, window 128. */
START_TEST(windowed_sum_per_layer_kind)
{
    KvLayerKind k[2];
    int n = 0;
    kinds_at("gemma-3-27b", 131072, k, &n);
    ck_assert_int_eq(n, 2);
    ck_assert_str_eq(k[0].kind, "full");
    ck_assert_int_eq(k[0].layers, 10);
    ck_assert_int_eq(k[0].kept, 131072);
    ck_assert_str_eq(k[1].kind, "sliding");
    ck_assert_int_eq(k[1].layers, 52);
    ck_assert_int_eq(k[1].window, 1024);
    ck_assert_int_eq(k[1].kept, 1024);
    ck_assert_uint_eq(k[0].bytes + k[1].bytes, 8192ULL * (10 * 131072 + 52 * 1024));
    kinds_at("gemma-3-27b", 700, k, &n); /* below the window every layer keeps T */
    ck_assert_int_eq(k[1].kept, 700);
    kinds_at("gemma-3-1b", 32768, k, &n);
    ck_assert_int_eq(k[0].layers, 4);
    ck_assert_int_eq(k[1].layers, 22);
    ck_assert_int_eq(k[1].window, 512);
    kinds_at("gpt-oss-120b", 131072, k, &n);
    ck_assert_int_eq(k[0].layers, 18);
    ck_assert_int_eq(k[1].layers, 18);
    ck_assert_int_eq(k[1].kept, 128);
    ck_assert_uint_eq(k[0].bytes_per_token, 2 * 8 * 64 * 2);
    kinds_at("gpt-oss-20b", 4096, k, &n);
    ck_assert_int_eq(k[0].layers + k[1].layers, 24);
    kinds_at("llama-4-maverick", 1048576, k, &n);
    ck_assert_str_eq(k[1].kind, "chunked");
    ck_assert_int_eq(k[0].layers, 12);
    kinds_at("llama-2-7b", 4096, k, &n);
    ck_assert_int_eq(n, 1);
}
END_TEST

/* The formulas on a worked example: lengths 100, 37, 25 in blocks
 * of 16 with a 20-token shared prefix (1 shared block, 4 tokens copied on
 * write), 10 bytes a token, against 128 tokens preallocated each. */
START_TEST(paged_blocks_follow_the_formulas)
{
    static const long len[] = {100, 37, 25};
    KvPaged pg;
    KvPagedSeq q[3];
    char err[200];
    ck_assert_int_eq(kv_paged(len, 3, 16, 20, 128, 10, &pg, q, err, sizeof err), 0);
    ck_assert_int_eq(pg.shared_blocks, 1);
    ck_assert_int_eq(pg.prefix_tail, 4);
    ck_assert_uint_eq(pg.total_blocks, 1 + 6 + 2 + 1);
    ck_assert_uint_eq(pg.reserved, 10 * 16 * 10);
    ck_assert_uint_eq(pg.used, (16 + 84 + 21 + 9) * 10);
    ck_assert_uint_eq(pg.waste, pg.reserved - pg.used);
    ck_assert_int_eq(q[0].blocks, 7);
    ck_assert_int_eq(q[0].last_tokens, 4);
    ck_assert_int_eq(q[2].own_blocks, 1);
    ck_assert(q[1].cow);
    ck_assert_uint_eq(pg.contig_reserved, 3 * 128 * 10);
    ck_assert_uint_eq(pg.contig_waste, (3 * 128 - 162) * 10);
    /* no prefix: ceil(L/N) blocks each; a prefix of whole blocks: no copies */
    ck_assert_int_eq(kv_paged(len, 3, 16, 0, 128, 10, &pg, q, err, sizeof err), 0);
    ck_assert_uint_eq(pg.total_blocks, 7 + 3 + 2);
    ck_assert_uint_eq(pg.used, 162 * 10);
    ck_assert_int_eq(kv_paged(len, 3, 16, 16, 128, 10, &pg, q, err, sizeof err), 0);
    ck_assert_uint_eq(pg.total_blocks, 1 + 6 + 2 + 1);
    ck_assert(!q[0].cow);
    ck_assert_int_eq(kv_paged(len, 3, 1, 25, 128, 10, &pg, q, err, sizeof err), 0);
    ck_assert_uint_eq(pg.waste, 0); /* blocks of one token waste nothing */
}
END_TEST

START_TEST(paged_refuses_bad_input)
{
    static const long len[] = {10, 30}, zero[] = {10, 0};
    KvPaged pg;
    KvPagedSeq q[2];
    char err[200];
    ck_assert_int_eq(kv_paged(len, 2, 0, 0, 128, 10, &pg, q, err, sizeof err), -1);
    ck_assert_str_eq(err, "--block-size 0: must be at least 1");
    ck_assert_int_eq(kv_paged(zero, 2, 16, 0, 128, 10, &pg, q, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "--lengths: sequence 2 has length 0"));
    ck_assert_int_eq(kv_paged(len, 2, 16, 20, 128, 10, &pg, q, err, sizeof err), -1);
    ck_assert_str_eq(err, "--shared-prefix 20: longer than sequence 1 (10 tokens in --lengths)");
    ck_assert_int_eq(kv_paged(len, 2, 16, 0, 20, 10, &pg, q, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than --context 20"));
    ck_assert_int_eq(kv_paged(len, 2, 16, 0, 128, UINT64_MAX / 4, &pg, q, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "64 bits"));
}
END_TEST

/* kv --paged and --json as a process: usage errors are exit 2 naming the flag. */
START_TEST(command_paged_and_json)
{
    static char out[16384];
    ck_assert_int_eq(tu_run("kv --preset deepseek-v3 --dtype bf16 --json", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "\"bytes_per_token\": 70272,"));
    ck_assert_ptr_nonnull(strstr(out, "\"kind\": \"MLA\""));
    ck_assert_int_eq(tu_run("kv --preset deepseek-v3 --dtype bf16", out, sizeof out), 0);
    ck_assert_ptr_nonnull(strstr(out, "per token  = 61 x (512 + 64) x 2 = 70,272 bytes"));
    ck_assert_int_eq(
        tu_run("kv --preset llama-3-8b --paged --lengths 100,37,25 --shared-prefix 20 --json", out,
               sizeof out),
        0);
    ck_assert_ptr_nonnull(strstr(out, "\"total_blocks\": 10,"));
    ck_assert_int_eq(tu_run("kv --preset llama-3-8b --paged --lengths 100,37,25", out, sizeof out),
                     0);
    ck_assert_ptr_nonnull(strstr(out, "pool: 12 blocks"));
    static const struct {
        const char *args, *needle;
    } bad[] = {
        {"kv --preset llama-3-8b --paged --lengths 10 --block-size 0", "--block-size 0"},
        {"kv --preset llama-3-8b --paged --lengths 10,0", "--lengths"},
        {"kv --preset llama-3-8b --paged --lengths 10,,3", "--lengths"},
        {"kv --preset llama-3-8b --paged --lengths 10,30 --shared-prefix 20", "--shared-prefix 20"},
        {"kv --preset llama-3-8b --paged --lengths 9000", "--context 8192"},
        {"kv --preset llama-3-8b --lengths 10", "--lengths needs --paged"},
        {"kv --preset llama-3-8b --block-size 8", "--block-size needs --paged"},
        {"kv --preset llama-3-8b --paged", "--paged needs --lengths"},
        {"kv --preset llama-3-8b --paged --lengths 10 --batch 2", "--batch"},
        {"kv --preset deepseek-v3 --kv-heads 8", "--kv-heads"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_msg(tu_run(bad[i].args, out, sizeof out) == 2, "%s: not exit 2", bad[i].args);
        ck_assert_msg(strstr(out, bad[i].needle) != NULL, "%s: '%s' not in '%s'", bad[i].args,
                      bad[i].needle, out);
        ck_assert_msg(!strncmp(out, "mhaviz: ", 8) &&
                          strchr(out, '\n') - out + 1 == (long)strlen(out),
                      "%s: not one line: %s", bad[i].args, out);
    }
}
END_TEST

START_TEST(mla_needs_both_fields)
{
    PresetList l;
    char err[300];
    ck_assert_int_eq(presets_parse("x.presets",
                                   "[a]\ntitle = A\nlayers = 2\nheads = 4\nkv_heads = 4\n"
                                   "d_head = 2\nd_model = 8\nkv_lora_rank = 8\nsource = s\n",
                                   &l, err, sizeof err),
                     -1);
    ck_assert_ptr_nonnull(strstr(err, "x.presets:1: [a] MLA needs both kv_lora_rank"));
}
END_TEST

static Suite *kv_suite(void)
{
    Suite *s = suite_create("kv");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, llama2_70b_fp16_is_327680);
    tcase_add_test(tc, llama3_8b_fp16_is_131072);
    tcase_add_test(tc, mha_counterfactual_of_llama2_70b_is_8x);
    tcase_add_test(tc, mqa_and_mha_models_have_two_rows);
    tcase_add_test(tc, overflow_is_refused);
    tcase_add_test(tc, every_preset_is_consistent);
    tcase_add_test(tc, bad_preset_files_say_where);
    tcase_add_test(tc, format_helpers);
    tcase_add_test(tc, command_prints_formula_and_table);
    tcase_add_test(tc, command_refuses_bad_input);
    tcase_add_test(tc, hypothetical_past_the_trained_context);
    tcase_add_test(tc, list_columns_line_up);
    tcase_add_test(tc, sliding_window_caps_local_layers);
    tcase_add_test(tc, sliding_window_in_the_table_and_the_crossing);
    tcase_add_test(tc, deepseek_v3_mla_is_70272);
    tcase_add_test(tc, head_dim_comes_from_the_config);
    tcase_add_test(tc, windowed_sum_per_layer_kind);
    tcase_add_test(tc, paged_blocks_follow_the_formulas);
    tcase_add_test(tc, paged_refuses_bad_input);
    tcase_add_test(tc, command_paged_and_json);
    tcase_add_test(tc, mla_needs_both_fields);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(kv_suite)
