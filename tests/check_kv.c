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
    KvModel m = {p->layers, p->heads, p->kv_heads, p->d_head};
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
    KvModel falcon = {32, 71, 1, 64}, gpt2 = {12, 12, 12, 64};
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
    ck_assert_ptr_nonnull(strstr(err, "x.presets:2: unknown key 'layres'"));
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
    KvModel m = {p->layers, p->heads, p->kv_heads, p->d_head};
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
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(kv_suite)
