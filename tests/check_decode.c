/* check_decode.c - the decode step (engine/decode.c): every generated row
 * equals the full causal pass, for MHA, GQA and MQA and both cache layouts;
 * the cache's bytes and strides; and the real-size arithmetic (content/kv.c)
 * checked by hand for Llama 3 8B at 8192, with Mistral's window and Llama 4
 * Maverick's chunks. */
#include "check_main.h"
#include <math.h>
#include <string.h>

#include "base/textutil.h"
#include "content/gpus.h"
#include "content/kv.h"
#include "content/presets.h"
#include "content/quiz.h"
#include "draw/decode.h"
#include "engine/decode.h"
#include "ui/decode.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"
#include "ui/screenstack.h"

/* Compares the step's head_out (B, H, n, dh) with rows start.. of the full
 * run's head_out (B, H, S, dh), element by element, independently of
 * decode_check. */
static void assert_rows_equal(const Mha *m, const Decode *d)
{
    const Tensor *full = m->t[MT_HEAD_OUT], *st = d->head_out;
    ck_assert_int_eq(st->shape[2], d->n);
    for (int b = 0; b < st->shape[0]; b++)
        for (int h = 0; h < st->shape[1]; h++)
            for (int s = 0; s < d->n; s++)
                for (int i = 0; i < st->shape[3]; i++) {
                    int fi[4] = {b, h, d->start + s, i}, si[4] = {b, h, s, i};
                    float a = tensor_get(full, fi), v = tensor_get(st, si);
                    ck_assert_msg(fabsf(a - v) < 1e-5f, "b%d h%d row %d i%d: %g vs %g", b, h,
                                  d->start + s, i, (double)a, (double)v);
                }
    for (int b = 0; b < d->out->shape[0]; b++)
        for (int s = 0; s < d->n; s++)
            for (int i = 0; i < d->out->shape[2]; i++) {
                int fi[3] = {b, d->start + s, i}, si[3] = {b, s, i};
                ck_assert(fabsf(tensor_get(m->t[MT_OUT], fi) - tensor_get(d->out, si)) < 1e-5f);
            }
}

/* Runs a whole decode of cfg (prefill of `prompt`, then one token at a time)
 * in layout l, checking every step. */
static void run_all(MhaConfig cfg, int prompt, DecodeLayout l)
{
    char err[200];
    cfg.causal = 1;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    Decode *d = decode_new(m, l, prompt, err, sizeof err);
    ck_assert_msg(d != NULL, "%s", err);
    ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
    int steps = 0;
    size_t per_tok = 2 * (size_t)cfg.batch * (size_t)cfg.kv_heads * (size_t)m->d_head * 4;
    size_t read = 0;
    for (;;) {
        assert_rows_equal(m, d);
        ck_assert_float_eq(decode_check(d), 0.0f);
        ck_assert_int_eq(d->len, d->start + d->n);
        ck_assert_uint_eq(d->written_step, per_tok * (size_t)d->n);
        ck_assert_uint_eq(d->read_step, per_tok * (size_t)d->len); /* the whole cache */
        read += d->read_step;
        ck_assert_uint_eq(d->read_total, read);
        /* the cache keeps kv_heads heads: the read view is (B, KV, T, dh) */
        ck_assert_int_eq(d->k_read->shape[1], cfg.kv_heads);
        if (m->groups > 1) ck_assert_int_eq(d->k_shared->strides[2], 0); /* a stride-0 group axis */
        ck_assert(tensor_same_storage(d->k_read, d->cache_k));
        int r = decode_step(d, err, sizeof err);
        ck_assert_msg(r >= 0, "%s", err);
        if (r == 1) break;
        steps++;
    }
    ck_assert_int_eq(steps, cfg.seq - prompt);
    ck_assert_uint_eq(d->written_total, per_tok * (size_t)cfg.seq);
    decode_free(d);
    mha_free(m);
}

static MhaConfig cfg_of(int batch, int seq, int d_model, int heads, int kv)
{
    MhaConfig c = mha_config_default();
    c.batch = batch, c.seq = seq, c.d_model = d_model, c.heads = heads, c.kv_heads = kv;
    return c;
}

START_TEST(every_row_equals_the_causal_pass)
{
    /* MHA, GQA, MQA; both layouts; batch 1 and 3; prompt 1 and longer */
    static const int kv[3] = {4, 2, 1};
    for (int l = 0; l < DECODE_LAYOUTS; l++)
        for (int k = 0; k < 3; k++) {
            run_all(cfg_of(1, 8, 8, 4, kv[k]), 3, (DecodeLayout)l);
            run_all(cfg_of(3, 6, 16, 4, kv[k]), 1, (DecodeLayout)l);
            run_all(cfg_of(2, 5, 12, 4, kv[k]), 5, (DecodeLayout)l); /* prefill only */
        }
}
END_TEST

/* A decode of cfg with a rolling window of W slots: token t lands in slot
 * t mod W over token t - W, a step reads min(len, W) slots, and every row
 * equals the full pass with the band mask (i - W < j <= i). */
static void run_window(MhaConfig cfg, int prompt, int W, DecodeLayout l)
{
    char err[200];
    cfg.causal = 1;
    cfg.window = W;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    Decode *d = decode_new(m, l, prompt, err, sizeof err);
    ck_assert_msg(d != NULL, "%s", err);
    int slots = W < cfg.seq ? W : cfg.seq;
    ck_assert_int_eq(d->slots, slots);
    ck_assert_int_eq(d->cache_k->shape[l == DECODE_HF ? 2 : 1], slots); /* W rows, not seq */
    size_t per_tok = 2 * (size_t)cfg.batch * (size_t)cfg.kv_heads * (size_t)m->d_head * 4;
    ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
    for (;;) {
        assert_rows_equal(m, d);
        ck_assert(decode_check(d) < 1e-5f);
        int last = d->start + d->n - 1;
        ck_assert_int_eq(d->slot, last % W);
        ck_assert_int_eq(d->evicted, last >= W ? last - W : -1);
        if (d->n == 1) {
            int held = d->len < W ? d->len : W;
            ck_assert_int_eq(d->k_read->shape[2], held);
            ck_assert_uint_eq(d->read_step, per_tok * (size_t)held);
            ck_assert(tensor_same_storage(d->k_read, d->cache_k));
        }
        /* the slots hold the last W positions */
        for (int p = 0; p <= last; p++)
            ck_assert_int_eq(d->slot_pos[p % slots] == p, p > last - W);
        ck_assert_uint_eq(decode_cache_offset(d, 0, 0, last, 0),
                          decode_cache_offset(d, 0, 0, last % W, 0));
        int r = decode_step(d, err, sizeof err);
        ck_assert_msg(r >= 0, "%s", err);
        if (r == 1) break;
    }
    ck_assert_uint_eq(d->written_total, per_tok * (size_t)cfg.seq);
    decode_free(d);
    mha_free(m);
}

START_TEST(window_rolls_and_equals_the_band_pass)
{
    static const int kv[3] = {4, 2, 1};
    for (int l = 0; l < DECODE_LAYOUTS; l++)
        for (int k = 0; k < 3; k++) {
            run_window(cfg_of(1, 9, 8, 4, kv[k]), 2, 3, (DecodeLayout)l);  /* prefill < W */
            run_window(cfg_of(2, 8, 16, 4, kv[k]), 5, 3, (DecodeLayout)l); /* prefill > W */
            run_window(cfg_of(3, 6, 8, 4, kv[k]), 1, 1, (DecodeLayout)l);  /* W = 1 */
            run_window(cfg_of(1, 5, 8, 4, kv[k]), 2, 9, (DecodeLayout)l);  /* W > seq */
            MhaConfig c = cfg_of(2, 7, 16, 4, kv[k]);
            c.rope = ROPE_HALF;
            run_window(c, 4, 2, (DecodeLayout)l);
        }
    /* the overwritten slot: token 3 of a window of 3 lands on token 0 */
    char err[200];
    MhaConfig c = cfg_of(1, 6, 8, 4, 4);
    c.causal = 1, c.window = 3;
    Mha *m = mha_run(&c, err, sizeof err);
    Decode *d = decode_new(m, DECODE_HF, 3, err, sizeof err);
    ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
    ck_assert_int_eq(d->evicted, -1);
    ck_assert_int_eq(decode_step(d, err, sizeof err), 0);
    ck_assert_int_eq(d->slot, 0);
    ck_assert_int_eq(d->evicted, 0);
    decode_free(d);
    mha_free(m);
}
END_TEST

/* A paged decode of cfg in blocks of N: one pool, blocks handed out as the
 * sequences grow (interleaved: logical block j of sequence b is physical
 * block j * B + b), the gather's bytes, the pool's count as content/kv.c's
 * paged arithmetic gives it, and every row equal to the full causal pass. */
static void run_paged(MhaConfig cfg, int prompt, int N, DecodeLayout l)
{
    char err[200];
    cfg.causal = 1;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    Decode *d = decode_new(m, l, prompt, err, sizeof err);
    ck_assert_msg(d != NULL, "%s", err);
    ck_assert_msg(decode_set_paged(d, N, err, sizeof err) == 0, "%s", err);
    const int B = cfg.batch, mb = (cfg.seq + N - 1) / N;
    ck_assert_int_eq(d->cache_k->shape[0], B * mb);
    /* meta: NHD (blocks, N, KV, dh), vLLM's default; hf: HND (blocks, KV, N, dh) */
    ck_assert_int_eq(d->cache_k->shape[l == DECODE_META ? 1 : 2], N);
    ck_assert_int_eq(d->cache_k->shape[l == DECODE_META ? 2 : 1], cfg.kv_heads);
    size_t per_tok = 2 * (size_t)cfg.kv_heads * (size_t)m->d_head * 4; /* one sequence */
    ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
    for (;;) {
        assert_rows_equal(m, d);
        ck_assert(decode_check(d) < 1e-5f);
        int blocks = (d->len + N - 1) / N;
        ck_assert_int_eq(d->blocks_used, B * blocks);
        for (int b = 0; b < B; b++)
            for (int j = 0; j < mb; j++)
                ck_assert_int_eq(d->table[b * mb + j], j < blocks ? j * B + b : -1);
        /* the gather: a copy of every sequence's len tokens, counted as read */
        ck_assert(!tensor_same_storage(d->k_read, d->cache_k));
        ck_assert_int_eq(d->k_read->shape[2], d->len);
        ck_assert_uint_eq(d->read_step, per_tok * (size_t)B * (size_t)d->len);
        ck_assert_uint_eq(d->written_step, per_tok * (size_t)B * (size_t)d->n);
        int last = d->len - 1, blk = d->table[(B - 1) * mb + last / N];
        int at[4] = {blk, l == DECODE_META ? last % N : 0, l == DECODE_META ? 0 : last % N, 0};
        ck_assert_uint_eq(decode_cache_offset(d, B - 1, 0, last, 0),
                          tensor_offset_of(d->cache_k, at));
        /* content/kv.c's arithmetic for the same pool: B sequences of len */
        long lengths[64];
        for (int b = 0; b < B; b++)
            lengths[b] = d->len;
        KvPaged kp;
        KvPagedSeq seqs[64];
        ck_assert_int_eq(kv_paged(lengths, B, N, 0, cfg.seq, per_tok, &kp, seqs, err, sizeof err),
                         0);
        ck_assert_uint_eq(kp.total_blocks, (uint64_t)d->blocks_used);
        int r = decode_step(d, err, sizeof err);
        ck_assert_msg(r >= 0, "%s", err);
        if (r == 1) break;
    }
    decode_free(d);
    mha_free(m);
}

START_TEST(paged_equals_the_causal_pass_at_every_row)
{
    static const int kv[3] = {4, 2, 1};
    for (int l = 0; l < DECODE_LAYOUTS; l++)
        for (int k = 0; k < 3; k++) {
            run_paged(cfg_of(2, 8, 8, 4, kv[k]), 3, 2, l);  /* a prompt ending mid-block */
            run_paged(cfg_of(3, 9, 16, 4, kv[k]), 4, 4, l); /* a prompt filling its blocks */
            run_paged(cfg_of(2, 5, 8, 4, kv[k]), 1, 1, l);  /* a block a token */
            run_paged(cfg_of(4, 6, 8, 4, kv[k]), 2, 16, l); /* one block holds it all */
            MhaConfig c = cfg_of(2, 7, 16, 4, kv[k]);
            c.rope = ROPE_INTERLEAVED;
            run_paged(c, 3, 3, l);
        }
}
END_TEST

/* The layout decides where a token's floats sit in a block: NHD (meta) puts
 * a token's kv heads side by side (the next token dh * KV floats on), HND
 * (hf) a head's tokens (the next token dh floats on), as the contiguous
 * cache's two layouts do. */
START_TEST(paged_pool_follows_the_layout)
{
    char err[200];
    MhaConfig c = cfg_of(2, 6, 12, 4, 2); /* dh 3, KV 2 */
    c.causal = 1;
    Mha *m = mha_run(&c, err, sizeof err);
    for (int l = 0; l < DECODE_LAYOUTS; l++) {
        Decode *d = decode_new(m, l, 3, err, sizeof err);
        ck_assert_int_eq(decode_set_paged(d, 4, err, sizeof err), 0);
        ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
        size_t t0 = decode_cache_offset(d, 1, 0, 0, 0), t1 = decode_cache_offset(d, 1, 0, 1, 0);
        size_t h1 = decode_cache_offset(d, 1, 1, 0, 0);
        ck_assert_uint_eq(t1 - t0, l == DECODE_META ? 6 : 3);
        ck_assert_uint_eq(h1 - t0, l == DECODE_META ? 3 : 12);
        ck_assert_str_eq(decode_pool_layout_name(l),
                         l == DECODE_META ? "NHD (blocks, N, KV, dh)" : "HND (blocks, KV, N, dh)");
        decode_free(d);
    }
    mha_free(m);
}
END_TEST

/* A paged decode whose B sequences share their first P tokens (the run's x
 * shares them): the floor(P/N) full prefix blocks are in every table with a
 * reference count of B and written once; the partial one is copied on write
 * by every sequence but the last (each copy P mod N tokens, counted); the
 * pool's blocks as content/kv.c counts them for --shared-prefix P; every
 * row equal to the full causal pass. */
static void run_shared(MhaConfig cfg, int prompt, int N, int P, DecodeLayout l)
{
    char err[200];
    cfg.causal = 1, cfg.shared_prefix = P;
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_msg(m != NULL, "%s", err);
    Decode *d = decode_new(m, l, prompt, err, sizeof err);
    ck_assert_int_eq(decode_set_paged(d, N, err, sizeof err), 0);
    ck_assert_msg(decode_share_prefix(d, P, err, sizeof err) == 0, "%s", err);
    const int B = cfg.batch, mb = (cfg.seq + N - 1) / N, sh = P / N, tail = P % N;
    ck_assert_int_eq(d->blocks, sh + B * (mb - sh));
    ck_assert_int_eq(d->cache_k->shape[0], d->blocks);
    size_t tok = 2 * (size_t)cfg.kv_heads * (size_t)m->d_head * 4; /* K and V of a token */
    ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
    for (;;) {
        assert_rows_equal(m, d);
        ck_assert(decode_check(d) < 1e-5f);
        for (int b = 0; b < B; b++)
            for (int j = 0; j < sh; j++) { /* the full prefix blocks: one, in every table */
                ck_assert_int_eq(d->table[b * mb + j], d->table[j]);
                ck_assert_int_eq(d->refs[d->table[j]], B);
            }
        int past = d->len > P; /* every sequence has written its own token past the prefix */
        if (tail) {            /* the partial block: shared until then, then one each */
            int j = sh, first = d->table[j];
            for (int b = 1; b < B; b++)
                ck_assert(past ? d->table[b * mb + j] != first : d->table[b * mb + j] == first);
            ck_assert_int_eq(decode_cow_pending(d), past ? 0 : B - 1);
            ck_assert_uint_eq(d->copied_total, past ? (size_t)(B - 1) * (size_t)tail * tok : 0);
        } else {
            ck_assert_int_eq(decode_cow_pending(d), 0);
            ck_assert_uint_eq(d->copied_total, 0);
        }
        /* the prefix written once, every other token once a sequence */
        ck_assert_uint_eq(d->written_total, ((size_t)P + (size_t)B * (size_t)(d->len - P)) * tok);
        long lengths[64];
        for (int b = 0; b < B; b++)
            lengths[b] = d->len;
        KvPaged kp;
        KvPagedSeq seqs[64];
        ck_assert_int_eq(kv_paged(lengths, B, N, P, cfg.seq, tok, &kp, seqs, err, sizeof err), 0);
        ck_assert_uint_eq(kp.total_blocks, (uint64_t)(d->blocks_used + decode_cow_pending(d)));
        ck_assert_int_eq(kp.shared_blocks, sh);
        int r = decode_step(d, err, sizeof err);
        ck_assert_msg(r >= 0, "%s", err);
        if (r == 1) break;
    }
    decode_free(d);
    mha_free(m);
}

START_TEST(shared_prefix_is_stored_once_and_copied_on_write)
{
    static const int kv[3] = {4, 2, 1};
    for (int l = 0; l < DECODE_LAYOUTS; l++)
        for (int k = 0; k < 3; k++) {
            run_shared(cfg_of(2, 8, 8, 4, kv[k]), 4, 2, 3, l);  /* 1 full block and a tail */
            run_shared(cfg_of(3, 9, 16, 4, kv[k]), 4, 4, 4, l); /* a full block, no tail */
            run_shared(cfg_of(3, 9, 8, 4, kv[k]), 3, 4, 3, l);  /* only a tail, copied later */
            run_shared(cfg_of(2, 6, 8, 4, kv[k]), 5, 2, 5, l);  /* the whole prompt */
            run_shared(cfg_of(4, 7, 8, 4, kv[k]), 3, 3, 0, l);  /* none: as unshared */
            run_shared(cfg_of(2, 5, 8, 4, kv[k]), 5, 3, 5, l);  /* seq = P: never copied */
            MhaConfig c = cfg_of(2, 7, 16, 4, kv[k]);
            c.rope = ROPE_HALF;
            run_shared(c, 4, 3, 4, l);
        }
}
END_TEST

/* --shared-prefix needs --paged, at most the prompt, and a batch whose x
 * really shares those tokens (else storing them once would be a lie). */
START_TEST(shared_prefix_refuses_bad_input)
{
    char err[200];
    MhaConfig c = cfg_of(2, 6, 8, 4, 2);
    c.causal = 1, c.shared_prefix = 3;
    Mha *m = mha_run(&c, err, sizeof err);
    Decode *d = decode_new(m, DECODE_META, 3, err, sizeof err);
    ck_assert_int_eq(decode_share_prefix(d, 2, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--shared-prefix: needs --paged") != NULL, "%s", err);
    ck_assert_int_eq(decode_set_paged(d, 2, err, sizeof err), 0);
    ck_assert_int_eq(decode_share_prefix(d, 4, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--shared-prefix 4: must be 0 to the prompt's 3") != NULL, "%s", err);
    ck_assert_int_eq(decode_share_prefix(d, -1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--shared-prefix -1") != NULL, "%s", err);
    decode_free(d);
    mha_free(m);
    c.shared_prefix = 1; /* x shares 1 token, the pool is asked for 3 */
    m = mha_run(&c, err, sizeof err);
    d = decode_new(m, DECODE_META, 3, err, sizeof err);
    ck_assert_int_eq(decode_set_paged(d, 2, err, sizeof err), 0);
    ck_assert_int_eq(decode_share_prefix(d, 3, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "sequence 1's token 1 differs") != NULL, "%s", err);
    decode_free(d);
    mha_free(m);
    c.shared_prefix = 7; /* the run's own check: at most seq */
    ck_assert_int_eq(mha_config_check(&c, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--shared-prefix 7: must be 0 to --seq 6") != NULL, "%s", err);
}
END_TEST

/* The run's x with a shared prefix: x[b, :P] is x[0, :P], the rest of x and
 * the weights the same draws as without it. */
START_TEST(shared_prefix_shares_x_only)
{
    char err[200];
    MhaConfig c = cfg_of(3, 5, 8, 2, 2);
    Mha *a = mha_run(&c, err, sizeof err);
    c.shared_prefix = 2;
    Mha *b = mha_run(&c, err, sizeof err);
    for (int bb = 0; bb < 3; bb++)
        for (int s = 0; s < 5; s++)
            for (int i = 0; i < 8; i++) {
                int at[3] = {bb, s, i}, zero[3] = {0, s, i};
                float want = tensor_get(a->t[MT_X], s < 2 ? zero : at);
                ck_assert(tensor_get(b->t[MT_X], at) == want);
            }
    ck_assert(tensor_get(a->t[MT_W_O], (int[]){7, 7}) == tensor_get(b->t[MT_W_O], (int[]){7, 7}));
    ck_assert(!mha_config_same(&a->cfg, &b->cfg));
    mha_free(a);
    mha_free(b);
}
END_TEST

START_TEST(paged_refuses_bad_input)
{
    char err[200];
    MhaConfig c = cfg_of(1, 6, 8, 4, 2);
    c.causal = 1;
    Mha *m = mha_run(&c, err, sizeof err);
    Decode *d = decode_new(m, DECODE_HF, 2, err, sizeof err);
    ck_assert_int_eq(decode_set_paged(d, 4, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--paged: needs --batch 2") != NULL, "%s", err);
    decode_free(d);
    mha_free(m);
    c.batch = 2;
    m = mha_run(&c, err, sizeof err);
    d = decode_new(m, DECODE_HF, 2, err, sizeof err);
    ck_assert_int_eq(decode_set_paged(d, 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--block-size 0") != NULL, "%s", err);
    decode_free(d);
    mha_free(m);
}
END_TEST

/* With RoPE the cache holds the rotated K: every step agrees with the full
 * pass (which rotates by absolute position), and the cache's K rows are the
 * full run's K_rope rows, V's its unrotated V_heads. */
START_TEST(rope_caches_the_rotated_k)
{
    static const int kv[3] = {4, 2, 1};
    for (int r = ROPE_HALF; r <= ROPE_INTERLEAVED; r++)
        for (int l = 0; l < DECODE_LAYOUTS; l++)
            for (int k = 0; k < 3; k++) {
                MhaConfig c = cfg_of(2, 6, 16, 4, kv[k]);
                c.rope = (RopeLayout)r;
                run_all(c, 2, (DecodeLayout)l);
                char err[200];
                c.causal = 1;
                Mha *m = mha_run(&c, err, sizeof err);
                Decode *d = decode_new(m, (DecodeLayout)l, 6, err, sizeof err);
                ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
                for (int b = 0; b < 2; b++)
                    for (int h = 0; h < kv[k]; h++)
                        for (int p = 0; p < 6; p++)
                            for (int i = 0; i < m->d_head; i++) {
                                int full[4] = {b, h, p, i};
                                int at[4] = {b, h, p, i}, meta[4] = {b, p, h, i};
                                const int *ci = l == DECODE_HF ? at : meta;
                                ck_assert_float_eq_tol(tensor_get(d->cache_k, ci),
                                                       tensor_get(m->t[MT_K_ROPE], full), 1e-6);
                                ck_assert(tensor_get(d->cache_v, ci) ==
                                          tensor_get(m->t[MT_V_HEADS], full));
                            }
                decode_free(d);
                mha_free(m);
            }
}
END_TEST

START_TEST(layouts_and_their_strides)
{
    char err[200];
    MhaConfig c = cfg_of(2, 8, 8, 4, 2);
    c.causal = 1;
    Mha *m = mha_run(&c, err, sizeof err);
    Decode *hf = decode_new(m, DECODE_HF, 3, err, sizeof err);
    Decode *meta = decode_new(m, DECODE_META, 3, err, sizeof err);
    ck_assert_int_eq(decode_prefill(hf, err, sizeof err), 0);
    ck_assert_int_eq(decode_prefill(meta, err, sizeof err), 0);
    /* HF (B, KV, T, dh) = (2, 2, 8, 2): strides (32, 16, 2, 1) */
    long want_hf[4] = {32, 16, 2, 1}, want_meta[4] = {32, 4, 2, 1};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(hf->cache_k->strides[i], want_hf[i]);
        ck_assert_int_eq(meta->cache_k->strides[i], want_meta[i]);
    }
    ck_assert_int_eq(meta->cache_k->shape[1], 8); /* (B, T, KV, dh) */
    /* the read views are both (B, KV, T, dh), with the layout's strides */
    ck_assert_int_eq(hf->k_read->strides[2], 2);
    ck_assert_int_eq(meta->k_read->strides[2], 4);
    ck_assert_int_eq(meta->k_read->strides[1], 2);
    /* element (b1, kv1, t2, i1) sits where each layout says */
    ck_assert_uint_eq(decode_cache_offset(hf, 1, 1, 2, 1), 32 + 16 + 4 + 1);
    ck_assert_uint_eq(decode_cache_offset(meta, 1, 1, 2, 1), 32 + 8 + 2 + 1);
    /* and holds the same k in both */
    int ih[4] = {1, 1, 2, 1}, im[4] = {1, 2, 1, 1};
    ck_assert_float_eq(tensor_get(hf->cache_k, ih), tensor_get(meta->cache_k, im));
    /* the cache is 2 x B x KV x T x dh floats for K and V */
    ck_assert_uint_eq(tensor_numel(hf->cache_k) * 4 * 2, 2u * 2 * 2 * 8 * 2 * 4);
    decode_free(hf);
    decode_free(meta);
    mha_free(m);
}
END_TEST

START_TEST(bad_prompt_is_refused)
{
    char err[200];
    MhaConfig c = cfg_of(1, 4, 8, 2, 2);
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_ptr_null(decode_new(m, DECODE_HF, 0, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "prompt 0"));
    ck_assert_ptr_null(decode_new(m, DECODE_HF, 5, err, sizeof err));
    mha_free(m);
}
END_TEST

/* ---- real sizes ------------------------------------------------------------- */

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

START_TEST(llama3_8b_at_8192_by_hand)
{
    const Preset *p = presets_find(&P, "llama-3-8b");
    ck_assert_ptr_nonnull(p);
    KvDecodeCost k;
    char err[200];
    ck_assert_int_eq(kv_decode_cost(p, 16, 8192, &k, err, sizeof err), 0);
    ck_assert_int_eq(k.n, 3);
    const KvRow *own = &k.rows[1];
    ck_assert(own->is_model);
    /* per token per layer: 2 (K, V) x 8 kv heads x 128 x 2 B = 4096 */
    ck_assert_uint_eq(own->per_token_layer, 4096);
    ck_assert_uint_eq(own->per_token, 4096u * 32);               /* 131,072 written per token */
    ck_assert_uint_eq(own->per_context, 131072ULL * 8192);       /* 1 GiB read per token */
    ck_assert_uint_eq(k.rows[0].per_context, 4ULL * 1073741824); /* MHA: 32 kv heads */
    ck_assert_uint_eq(k.rows[2].per_context, 1073741824ULL / 8); /* MQA */
    ck_assert_uint_eq(k.weights, 8030261248ULL * 2);
    /* 16,060,522,496 / 131,072 = 122,532.97...: the cache is larger from 122,533 */
    ck_assert_int_eq(k.outgrows[1], 122533);
    ck_assert_int_eq(k.outgrows[0], 30634); /* / 524,288 = 30,633.0... */
    ck_assert(!k.hypothetical);
    /* a step reads one row of the untied input embedding, not its table:
     * 8,030,261,248 - (128,256 - 1) x 4,096 = 7,504,928,768 params */
    ck_assert_uint_eq(k.weights_read, (8030261248ULL - 128255ULL * 4096) * 2);
    ck_assert_uint_eq(k.weights_read, 15009857536ULL);
    const Gpu *g = gpus_find("h100-sxm");
    ck_assert_ptr_nonnull(g);
    /* 3.35e12 / (15,009,857,536 + 1,073,741,824 = 16,083,599,360) = 208.29 tokens/s */
    double t = kv_tokens_per_s(g->bw, k.weights_read, own->per_context, 1);
    ck_assert_msg(fabs(t - 3.35e12 / 16083599360.0) < 1e-6, "%f", t);
    ck_assert_msg(t > 208.2 && t < 208.3, "%f", t);
    /* nvidia-smi's 81,559 MiB: (85,520,809,984 - 16,060,522,496) / 1 GiB = 64.69: 64 */
    ck_assert_uint_eq(g->mem_bytes, 81559ULL << 20);
    ck_assert_uint_eq(kv_sequences_fit(g->mem_bytes, k.weights, own->per_context), 64);
    /* the A100 80GB: 81,920 MiB = 80 GiB */
    ck_assert_uint_eq(gpus_find("a100-80gb-sxm")->mem_bytes, 80ULL << 30);
    ck_assert_int_eq(kv_decode_cost(p, 16, 8193, &k, err, sizeof err), 0);
    ck_assert(k.hypothetical);
}
END_TEST

START_TEST(mistral_window_caps_the_cache)
{
    const Preset *p = presets_find(&P, "mistral-7b");
    ck_assert_int_eq(p->window, 4096);
    KvLimit l = kv_limit_of(p);
    ck_assert_int_eq(l.local_layers, 32);
    KvRow rows[3];
    int n;
    char err[200];
    KvModel m = kv_model_of(p);
    ck_assert_int_eq(kv_table_limited(&m, &l, 16, 8192, 1, rows, &n, err, sizeof err), 0);
    ck_assert_uint_eq(rows[1].per_context, 512ULL << 20); /* 0.5 GiB, not 1 GiB */
    ck_assert_int_eq(kv_table_limited(&m, &l, 16, 2048, 1, rows, &n, err, sizeof err), 0);
    ck_assert_uint_eq(rows[1].per_context, 256ULL << 20); /* below the window: all of it */
    /* a windowed cache stops growing: it never outgrows 14.5 GB of weights */
    ck_assert_int_eq(kv_context_exceeding(4096, 32, &l, 7241732096ULL * 2), 0);
    /* nor do 8 sequences' caches (4 GiB at most); 32 of them pass at 3,454 tokens,
     * inside the window: 32 x 3,453 x 131,072 <= 14,483,464,192 < 32 x 3,454 x 131,072 */
    uint64_t ptl = rows[1].per_token_layer, w = 7241732096ULL * 2;
    ck_assert_uint_eq(ptl, 4096);
    ck_assert_int_eq(kv_outgrows(ptl, 32, &l, w, 1), 0);
    ck_assert_int_eq(kv_outgrows(ptl, 32, &l, w, 8), 0);
    ck_assert_int_eq(kv_outgrows(ptl, 32, &l, w, 32), 3454);
    ck_assert_int_eq(kv_outgrows(ptl, 32, NULL, w, 8), 13813); /* the window forgotten */
}
END_TEST

START_TEST(maverick_chunks_in_three_of_four_layers)
{
    const Preset *p = presets_find(&P, "llama-4-maverick");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->layers, 48);
    ck_assert_int_eq(p->heads, 40);
    ck_assert_int_eq(p->kv_heads, 8);
    ck_assert_int_eq(p->d_head, 128);
    ck_assert_int_eq(p->d_model, 5120);
    ck_assert_int_eq(p->chunk, 8192);
    ck_assert_int_eq(p->global_every, 4);
    KvLimit l = kv_limit_of(p);
    ck_assert_int_eq(l.local_layers, 36);
    ck_assert_int_eq(l.chunked, 1);
    /* 12 global layers x 1M tokens + 36 x 8192, at 4096 B per token per layer */
    ck_assert_uint_eq(kv_layer_tokens(48, &l, 1048576), 12ULL * 1048576 + 36ULL * 8192);
    ck_assert_uint_eq(kv_layer_tokens(48, &l, 4000), 48ULL * 4000);
}
END_TEST

START_TEST(presets_refuse_bad_local_fields)
{
    PresetList pl;
    char err[200];
    const char *both = "[m]\ntitle = M\nlayers = 2\nheads = 2\nkv_heads = 2\nd_head = 4\n"
                       "d_model = 8\nsource = x\nwindow = 4\nchunk = 4\n";
    ck_assert_int_eq(presets_parse("t.presets", both, &pl, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "both window and chunk"));
    const char *ge = "[m]\ntitle = M\nlayers = 2\nheads = 2\nkv_heads = 2\nd_head = 4\n"
                     "d_model = 8\nsource = x\nglobal_every = 4\n";
    ck_assert_int_eq(presets_parse("t.presets", ge, &pl, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "global_every without"));
}
END_TEST

START_TEST(gpus_have_sources)
{
    int n = 0;
    for (const Gpu *g = gpus; g->name; g++, n++) {
        ck_assert(g->mem_bytes > 0 && g->bw > 0);
        ck_assert(strlen(g->source) > 20);
    }
    ck_assert_int_ge(n, 3);
    ck_assert_ptr_null(gpus_find("nope"));
}
END_TEST

START_TEST(kvcache_questions_stay_within_context_and_window)
{
    char err[300];
    int seen_window = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        QuizQuestion q;
        ck_assert_int_eq(quiz_generate_kind(QG_KVCACHE, seed, &q, err, sizeof err), 0);
        const Preset *p = NULL;
        for (int i = 0; i < P.n; i++)
            if (!strncmp(q.prompt, P.v[i].title, strlen(P.v[i].title)) &&
                q.prompt[strlen(P.v[i].title)] == ':')
                p = &P.v[i];
        ck_assert_msg(p != NULL, "no preset for: %.60s", q.prompt);
        if (p->context) ck_assert_int_le(q.cfg.seq, p->context);
        long local = p->window ? p->window : p->chunk;
        if (local) {
            ck_assert_int_le(q.cfg.seq, local); /* the full-cache formula holds */
            seen_window = 1;
        }
    }
    ck_assert(seen_window);
}
END_TEST

/* The Decode screen opened with o, after `steps` Space presses, drawn at w x h
 * from a Ui whose configuration is cfg: does it show text? */
static int screen_opts_show(MhaConfig cfg, const DecodeScreenOpts *o, int steps, int w, int h,
                            const char *text)
{
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.cfg = cfg;
    Screen *s = decode_open_opts(&ui, o);
    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < steps; i++)
        screenstack_send(s, &ui, ' ', NULL);
    Canvas *c = canvas_new(w, h);
    ck_assert_ptr_nonnull(c);
    screen_draw(s, &ui, c);
    int found = canvas_contains(c, text);
    if (!found)
        for (int y = 0; y < c->h; y++) {
            char row[256];
            fprintf(stderr, "|%s\n", canvas_row(c, y, 1, row, sizeof row));
        }
    canvas_free(c);
    screen_close(s);
    return found;
}

/* The Decode screen drawn at 80x24 from a Ui whose configuration is cfg. */
static int screen_shows(MhaConfig cfg, int prompt, DecodeLayout l, const char *text)
{
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.cfg = cfg;
    Screen *s = prompt || l != DECODE_HF ? decode_open_with(&ui, prompt, l) : decode_open(&ui);
    ck_assert_ptr_nonnull(s);
    Canvas *c = canvas_new(80, 24);
    ck_assert_ptr_nonnull(c);
    screen_draw(s, &ui, c);
    int found = canvas_contains(c, text);
    if (!found)
        for (int y = 0; y < c->h; y++) {
            char row[256];
            fprintf(stderr, "|%s\n", canvas_row(c, y, 1, row, sizeof row));
        }
    canvas_free(c);
    screen_close(s);
    return found;
}

/* The screen runs ui->cfg (the flags of `mhaviz decode`, the home menu's
 * configuration), not sizes of its own: it always showed "GQA, 4 query
 * heads, 2 kv heads" and 8 tokens. */
START_TEST(screen_runs_the_configuration)
{
    MhaConfig c = mha_config_default();
    c.heads = 2, c.kv_heads = 1, c.seq = 6, c.seed = 7;
    ck_assert(screen_shows(c, 0, DECODE_HF, "MQA, 2 query heads, 1 kv head"));
    ck_assert(screen_shows(c, 0, DECODE_HF, "(1, 1, 6, 4) strides")); /* 6 tokens of cache */
    c = mha_config_default();
    c.seq = 64, c.d_model = 64, c.heads = 8, c.kv_heads = 2;
    ck_assert(screen_shows(c, 0, DECODE_HF, "GQA, 8 query heads, 2 kv heads"));
    ck_assert(screen_shows(c, 5, DECODE_META, "Meta (B,T,KV,dh) (1, 64, 2, 8)"));
}
END_TEST

/* The clicker keys step every screen with slides alike (walkthrough, lesson
 * page, Decode, Tiles): PgDn, Right and Space forward, PgUp and Left back; on
 * Decode, back is the same run one token shorter. */
START_TEST(clicker_keys_on_every_slide_screen)
{
    static const int ctx[] = {KC_WALK, KC_PAGE, KC_DECODE, KC_FLASH};
    static const int next[] = {UI_K_PGDN, UI_K_RIGHT, ' '}, prev[] = {UI_K_PGUP, UI_K_LEFT};
    for (size_t c = 0; c < sizeof ctx / sizeof *ctx; c++) {
        for (size_t i = 0; i < sizeof next / sizeof *next; i++)
            ck_assert_msg(screenstack_action(ctx[c], next[i]) == ACT_NEXT, "context %d key %d",
                          ctx[c], next[i]);
        for (size_t i = 0; i < sizeof prev / sizeof *prev; i++)
            ck_assert_msg(screenstack_action(ctx[c], prev[i]) == ACT_PREV, "context %d key %d",
                          ctx[c], prev[i]);
    }
    Ui ui;
    memset(&ui, 0, sizeof ui);
    ui.cfg = mha_config_default();
    ui.cfg.seq = 8;
    Screen *s = decode_open(&ui);
    ck_assert_ptr_nonnull(s);
    Canvas *c = canvas_new(80, 24);
    screenstack_send(s, &ui, UI_K_PGDN, NULL);
    screenstack_send(s, &ui, UI_K_PGDN, NULL);
    screen_draw(s, &ui, c);
    ck_assert(canvas_contains(c, "decode: token 5 ")); /* prompt 0..3, then tokens 4, 5 */
    ck_assert(canvas_contains(c, ": 6/8"));
    screenstack_send(s, &ui, UI_K_PGUP, NULL);
    screen_draw(s, &ui, c);
    ck_assert(canvas_contains(c, "decode: token 4 "));
    ck_assert(canvas_contains(c, ": 5/8"));
    screenstack_send(s, &ui, UI_K_LEFT, NULL);
    screenstack_send(s, &ui, UI_K_LEFT, NULL); /* at the prefill: stays */
    screen_draw(s, &ui, c);
    ck_assert(canvas_contains(c, "prefill: the 4 prompt tokens"));
    canvas_free(c);
    screen_close(s);
}
END_TEST

/* The window on the screen: the slot a token lands in and the token it
 * overwrote, the cache W slots long, the proof line, at 80x24 and 200x60. */
START_TEST(screen_shows_the_rolling_window)
{
    MhaConfig c = mha_config_default();
    c.seq = 8, c.heads = 4, c.kv_heads = 2;
    DecodeScreenOpts o = {5, DECODE_HF, 3, 0, 0};
    for (int big = 0; big < 2; big++) {
        int w = big ? 200 : 80, h = big ? 60 : 24;
        ck_assert(screen_opts_show(
            c, &o, 0, w, h, "cache_k[:, :, 1:2] = k[:, 4:5].transpose(1, 2)  # slot = 4 mod 3"));
        ck_assert(screen_opts_show(c, &o, 0, w, h, "overwrote token 1 \"cat\""));
        ck_assert(screen_opts_show(c, &o, 1, w, h, "(1, 2, 3, 2) strides")); /* 3 slots */
        ck_assert(screen_opts_show(c, &o, 1, w, h, "overwrote token 2 \"sat\""));
        ck_assert(screen_opts_show(c, &o, 2, w, h, "the full causal pass at those rows"));
    }
}
END_TEST

/* The paged screen at batch 2: the pool one row per block, the new blocks
 * interleaved between the sequences, the tables, the gather, the proof. */
START_TEST(screen_shows_the_paged_pool)
{
    MhaConfig c = mha_config_default();
    c.batch = 2, c.seq = 8, c.heads = 4, c.kv_heads = 2;
    DecodeScreenOpts o = {3, DECODE_HF, 0, 2, 0};
    for (int big = 0; big < 2; big++) {
        int w = big ? 200 : 80, h = big ? 60 : 24;
        ck_assert(screen_opts_show(c, &o, 0, w, h, "new blocks 0 1 2 3"));
        ck_assert(
            screen_opts_show(c, &o, 0, w, h, "(8, 2, 2, 2) strides (8, 4, 2, 1): 4/8 blocks"));
        ck_assert(screen_opts_show(c, &o, 0, w, h, "table s0 [0 2]  table s1 [1 3]"));
        ck_assert(screen_opts_show(c, &o, 1, w, h, "no new block"));
        ck_assert(screen_opts_show(c, &o, 2, w, h, "new blocks 4 5"));
        ck_assert(screen_opts_show(c, &o, 2, w, h, "gather K (2, 2, 5, 2) through the tables"));
        ck_assert(screen_opts_show(c, &o, 2, w, h, "rows 4..4 = the full causal pass"));
    }
    c.batch = 1; /* a pool needs two sequences: the screen says so */
    ck_assert(screen_opts_show(c, &o, 0, 80, 24, "--paged: needs --batch 2"));
}
END_TEST

/* The shared prefix on the screen at batch 2, 80x24 through 200x60: the
 * full prefix block and the partial one with their reference counts, the
 * tables pointing at them, the copy-on-write when the first token past the
 * prefix is written, its bytes, and every row still the full pass's; L
 * turns the pool's block layout (NHD, HND). */
START_TEST(screen_shows_the_shared_prefix)
{
    MhaConfig c = mha_config_default();
    c.batch = 2, c.seq = 8, c.heads = 4, c.kv_heads = 2;
    DecodeScreenOpts o = {3, DECODE_META, 0, 2, 3};
    static const int sizes[3][2] = {{80, 24}, {120, 40}, {200, 60}};
    for (int k = 0; k < 3; k++) {
        int w = sizes[k][0], h = sizes[k][1];
        ck_assert(screen_opts_show(c, &o, 0, w, h, "pool_k NHD (blocks,N,KV,dh) (7, 2, 2, 2)"));
        ck_assert(screen_opts_show(c, &o, 0, w, h, "blk 0 0  1  ref 2: prefix, stored once"));
        ck_assert(
            screen_opts_show(c, &o, 0, w, h, "blk 1 2  ·  ref 2: partial prefix, copied on write"));
        ck_assert(screen_opts_show(c, &o, 0, w, h, "table s0 [0 1]  table s1 [0 1]"));
        ck_assert(screen_opts_show(c, &o, 0, w, h, "x: the 2 sequences share tokens 0..2"));
        ck_assert(screen_opts_show(c, &o, 0, w, h, "copy-on-write: none this step"));
        ck_assert(screen_opts_show(c, &o, 1, w, h,
                                   "copy-on-write: blk 1 -> 2 (1 prefix token each, 32 B)"));
        ck_assert(screen_opts_show(c, &o, 1, w, h, "table s0 [0 2]  table s1 [0 1]"));
        ck_assert(screen_opts_show(c, &o, 1, w, h, "blk 1 2  3  ref 1"));
        ck_assert(screen_opts_show(c, &o, 1, w, h, "copied 32 B"));
        ck_assert(screen_opts_show(c, &o, 1, w, h,
                                   "rows 3..3 = the full causal pass at those rows (largest "
                                   "difference 0)"));
    }
    o.layout = DECODE_HF;
    ck_assert(screen_opts_show(c, &o, 0, 80, 24, "pool_k HND (blocks,KV,N,dh) (7, 2, 2, 2)"));
    o.prefix = 5; /* more than the prompt: the screen says so */
    ck_assert(screen_opts_show(c, &o, 0, 80, 24, "--shared-prefix 5: must be 0 to the prompt's 3"));
}
END_TEST

/* M on the Decode screen and on Variants: MLA's latent strip beside the
 * per-head K/V strips it replaces, with its bytes; M again takes it away. */
START_TEST(screens_show_the_mla_strip)
{
    MhaConfig c = mha_config_default();
    c.seq = 8, c.heads = 4, c.kv_heads = 2; /* d_model 8: dh 2, R 4, dr 2 */
    for (int v = 0; v < 2; v++)
        for (int big = 0; big < 2; big++) {
            Ui ui;
            memset(&ui, 0, sizeof ui);
            ui.cfg = c;
            Screen *s = v ? variants_open(&ui) : decode_open(&ui);
            ck_assert_ptr_nonnull(s);
            screen_tick(s, &ui, 0);
            Canvas *cv = canvas_new(big ? 200 : 80, big ? 60 : 24);
            screen_draw(s, &ui, cv);
            ck_assert(!canvas_contains(cv, "MLA c|kpe"));
            screenstack_send(s, &ui, 'M', NULL);
            canvas_clear(cv);
            screen_draw(s, &ui, cv);
            ck_assert(canvas_contains(cv, "MHA k|v   kkkkkkkkvvvvvvvv 64 B = 2 x 4 x 2 x 4"));
            ck_assert(canvas_contains(cv, "GQA k|v   kkkkvvvv 32 B = 2 x 2 x 2 x 4"));
            ck_assert(canvas_contains(cv, "MLA c|kpe ccccrr 24 B = (4 + 2) x 4"));
            if (!v) ck_assert(canvas_contains(cv, "at 4 tokens: MHA 256 B, GQA 128 B, MLA 96 B"));
            screenstack_send(s, &ui, 'M', NULL);
            canvas_clear(cv);
            screen_draw(s, &ui, cv);
            ck_assert(!canvas_contains(cv, "MLA c|kpe"));
            canvas_free(cv);
            screen_close(s);
        }
}
END_TEST

/* One default prompt for the screen and --plain: half the sequence (the
 * screen prefilled 3 of 8, --plain 4). */
START_TEST(screen_prompt_is_half_the_sequence)
{
    ck_assert_int_eq(decode_prompt_default(8), 4);
    ck_assert_int_eq(decode_prompt_default(1), 1);
    MhaConfig c = mha_config_default();
    c.seq = 8, c.heads = 4, c.kv_heads = 4;
    ck_assert(screen_shows(c, 0, DECODE_HF, "prefill: the 4 prompt tokens"));
    ck_assert(screen_shows(c, 2, DECODE_HF, "prefill: the 2 prompt tokens"));
}
END_TEST

/* A large configuration at 80x24 (reachable now that the flags reach the
 * screen): the bytes line is whole (on two rows: "read 832" was cut), and
 * the heads and tokens that do not fit are counted, not dropped silently. */
START_TEST(large_configuration_is_not_cut_silently)
{
    MhaConfig cfg = mha_config_default();
    cfg.seq = 64, cfg.d_model = 64, cfg.heads = 16, cfg.kv_heads = 2, cfg.causal = 1;
    char err[200], want[120];
    Mha *m = mha_run(&cfg, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    Decode *d = decode_new(m, DECODE_HF, 32, err, sizeof err);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(decode_prefill(d, err, sizeof err), 0);
    ck_assert_int_eq(decode_step(d, err, sizeof err), 0);
    Canvas *c = canvas_new(80, 24);
    decode_draw(c, d, decode_check(d), 0);
    char wb[32], rb[32];
    snprintf(want, sizeof want, "since prefill: wrote %s B, read %s B",
             text_fmt_int(wb, sizeof wb, d->written_total),
             text_fmt_int(rb, sizeof rb, d->read_total));
    ck_assert_msg(canvas_contains(c, want), "no \"%s\"", want);
    ck_assert(canvas_contains(c, "more query heads"));
    ck_assert(canvas_contains(c, "+21 more")); /* 33 tokens, 12 shown */
    canvas_free(c);
    decode_free(d);
    mha_free(m);
}
END_TEST

/* issue 16: the cache write the screen shows is the text the interpreter
 * ran on the decode's own cache (its bytes counted on the cache's storage,
 * which the C copy never did), for both layouts, the window's slot and the
 * paged pool; and every row still equals the full pass. */
static Decode *write_run(MhaConfig c, DecodeLayout l, int paged, Mha **m)
{
    char err[300];
    c.causal = 1;
    *m = mha_run(&c, err, sizeof err);
    ck_assert_msg(*m != NULL, "%s", err);
    Decode *d = decode_new(*m, l, 4, err, sizeof err);
    ck_assert_ptr_nonnull(d);
    if (paged) ck_assert_msg(decode_set_paged(d, paged, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(decode_prefill(d, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(decode_step(d, err, sizeof err) == 0, "%s", err);
    assert_rows_equal(*m, d);
    return d;
}

START_TEST(cache_write_runs_from_its_text)
{
    MhaConfig c = mha_config_default();
    c.batch = 2, c.seq = 8;
    Mha *m;
    Decode *d = write_run(c, DECODE_HF, 0, &m);
    ck_assert_str_eq(d->write_code, "cache_k[:, :, 4:5] = k.transpose(1, 2)");
    ck_assert_uint_eq(d->cache_k->st->bytes_copied, d->written_total / 2);
    ck_assert_uint_eq(d->cache_v->st->bytes_copied, d->written_total / 2);
    decode_free(d);
    mha_free(m);
    d = write_run(c, DECODE_META, 0, &m);
    ck_assert_str_eq(d->write_code, "cache_k[:, 4:5] = k");
    ck_assert_uint_eq(d->cache_k->st->bytes_copied, d->written_total / 2);
    decode_free(d);
    mha_free(m);
    c.window = 3;
    d = write_run(c, DECODE_HF, 0, &m); /* token 4 into slot 4 mod 3 */
    ck_assert_str_eq(d->write_code, "cache_k[:, :, 1:2] = k.transpose(1, 2)");
    ck_assert_uint_eq(d->cache_k->st->bytes_copied, d->written_total / 2);
    decode_free(d);
    mha_free(m);
    c.window = 0;
    d = write_run(c, DECODE_META, 2, &m); /* NHD (blocks, N, KV, dh) */
    ck_assert_msg(!strncmp(d->write_code, "pool_k[", 7) && strstr(d->write_code, "] = k[1, 0]"),
                  "%s", d->write_code);
    ck_assert_uint_eq(d->cache_k->st->bytes_copied, d->written_total / 2);
    decode_free(d);
    mha_free(m);
    d = write_run(c, DECODE_HF, 2, &m); /* HND (blocks, KV, N, dh) */
    ck_assert_msg(strstr(d->write_code, ", :, 0] = k[1, 0]"), "%s", d->write_code);
    decode_free(d);
    mha_free(m);
}
END_TEST

static Suite *decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *t = tcase_create("engine");
    tcase_add_test(t, every_row_equals_the_causal_pass);
    tcase_add_test(t, cache_write_runs_from_its_text);
    tcase_add_test(t, rope_caches_the_rotated_k);
    tcase_add_test(t, window_rolls_and_equals_the_band_pass);
    tcase_add_test(t, paged_equals_the_causal_pass_at_every_row);
    tcase_add_test(t, paged_refuses_bad_input);
    tcase_add_test(t, paged_pool_follows_the_layout);
    tcase_add_test(t, shared_prefix_is_stored_once_and_copied_on_write);
    tcase_add_test(t, shared_prefix_refuses_bad_input);
    tcase_add_test(t, shared_prefix_shares_x_only);
    tcase_add_test(t, layouts_and_their_strides);
    tcase_add_test(t, bad_prompt_is_refused);
    tcase_add_test(t, screen_runs_the_configuration);
    tcase_add_test(t, screen_shows_the_rolling_window);
    tcase_add_test(t, screen_shows_the_paged_pool);
    tcase_add_test(t, screen_shows_the_shared_prefix);
    tcase_add_test(t, screens_show_the_mla_strip);
    tcase_add_test(t, screen_prompt_is_half_the_sequence);
    tcase_add_test(t, large_configuration_is_not_cut_silently);
    tcase_add_test(t, clicker_keys_on_every_slide_screen);
    suite_add_tcase(s, t);
    TCase *r = tcase_create("real sizes");
    tcase_add_checked_fixture(r, setup, teardown);
    tcase_add_test(r, llama3_8b_at_8192_by_hand);
    tcase_add_test(r, mistral_window_caps_the_cache);
    tcase_add_test(r, maverick_chunks_in_three_of_four_layers);
    tcase_add_test(r, presets_refuse_bad_local_fields);
    tcase_add_test(r, gpus_have_sources);
    tcase_add_test(r, kvcache_questions_stay_within_context_and_window);
    suite_add_tcase(s, r);
    return s;
}

CHECK_MAIN(decode_suite)
