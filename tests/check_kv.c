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
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(kv_suite)
