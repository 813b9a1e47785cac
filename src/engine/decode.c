/* decode.c - prefill and one-token decode steps over a KV cache (see decode.h). */
#include "engine/decode.h"

#include "base/textutil.h"
#include "engine/play.h"
#include "engine/tensorops.h"
#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *decode_layout_name(DecodeLayout l)
{
    return l == DECODE_META ? "Meta (B, T, KV, dh)" : "HF (B, KV, T, dh)";
}

const char *decode_pool_layout_name(DecodeLayout l)
{
    return l == DECODE_META ? "NHD (blocks, N, KV, dh)" : "HND (blocks, KV, N, dh)";
}

/* The pool's index of token slot k of block blk, kv head kv, float i: NHD
 * (blk, k, kv, i) or HND (blk, kv, k, i) (decode.h). */
static void pool_at(const Decode *d, int blk, int k, int kv, int i, int at[4])
{
    at[0] = blk, at[1] = d->layout == DECODE_META ? k : kv;
    at[2] = d->layout == DECODE_META ? kv : k, at[3] = i;
}

/* The step's tensors: freed before the next step. */
static void clear_step(Decode *d)
{
    Tensor **t[] = {&d->q,        &d->k_new, &d->k_read,   &d->v_read,
                    &d->k_shared, &d->attn,  &d->head_out, &d->out};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        tensor_free(*t[i]);
        *t[i] = NULL;
    }
}

void decode_free(Decode *d)
{
    if (!d) return;
    clear_step(d);
    tensor_free(d->cache_k);
    tensor_free(d->cache_v);
    free(d->slot_pos);
    free(d->table);
    free(d->refs);
    play_free(d->play);
    free(d);
}

Decode *decode_new(const Mha *m, DecodeLayout layout, int prompt, char *err, size_t errlen)
{
    const MhaConfig *c = &m->cfg;
    if (prompt < 1 || prompt > c->seq) {
        snprintf(err, errlen, "prompt %d: must be 1 to seq %d", prompt, c->seq);
        return NULL;
    }
    Decode *d = calloc(1, sizeof *d);
    if (!d) goto oom;
    d->m = m;
    d->layout = layout;
    d->cap = c->seq;
    d->prompt = prompt;
    d->window = c->window;
    d->slots = c->window > 0 && c->window < c->seq ? c->window : c->seq;
    int hf[4] = {c->batch, c->kv_heads, d->slots, m->d_head};   /* (B, KV, slots, dh) */
    int meta[4] = {c->batch, d->slots, c->kv_heads, m->d_head}; /* (B, slots, KV, dh) */
    d->cache_k = tensor_zeros(m->eng, 4, layout == DECODE_META ? meta : hf);
    d->cache_v = tensor_zeros(m->eng, 4, layout == DECODE_META ? meta : hf);
    d->slot_pos = malloc((size_t)d->slots * sizeof *d->slot_pos);
    if (!d->cache_k || !d->cache_v || !d->slot_pos) goto oom;
    for (int s = 0; s < d->slots; s++)
        d->slot_pos[s] = -1;
    return d;
oom:
    decode_free(d);
    snprintf(err, errlen, "out of memory for the KV cache");
    return NULL;
}

/* The pools, K and V, of `blocks` blocks in d's layout, and their reference
 * counts, in place of the cache d has. */
static int alloc_pool(Decode *d, int blocks, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    int N = d->block_size, KV = c->kv_heads, dh = d->m->d_head;
    int nhd[4] = {blocks, N, KV, dh}, hnd[4] = {blocks, KV, N, dh};
    const int *shape = d->layout == DECODE_META ? nhd : hnd;
    Tensor *k = tensor_zeros(d->m->eng, 4, shape), *v = tensor_zeros(d->m->eng, 4, shape);
    int *refs = calloc((size_t)blocks, sizeof *refs);
    if (!k || !v || !refs) {
        tensor_free(k), tensor_free(v), free(refs);
        snprintf(err, errlen, "out of memory for the block pool");
        return -1;
    }
    tensor_free(d->cache_k), tensor_free(d->cache_v), free(d->refs);
    d->cache_k = k, d->cache_v = v, d->refs = refs, d->blocks = blocks;
    return 0;
}

int decode_set_paged(Decode *d, int block_size, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    if (block_size < 1 || block_size > MHA_MAX_SEQ) {
        snprintf(err, errlen, "--block-size %d: must be between 1 and %d", block_size, MHA_MAX_SEQ);
        return -1;
    }
    if (c->batch < 2) {
        snprintf(err, errlen,
                 "--paged: needs --batch 2 or more (one pool of blocks shared by the sequences; "
                 "batch is %d)",
                 c->batch);
        return -1;
    }
    if (d->window) {
        snprintf(err, errlen, "--paged: not with --window (one cache layout at a time)");
        return -1;
    }
    int N = block_size, mb = (d->cap + N - 1) / N;
    int *table = malloc((size_t)c->batch * (size_t)mb * sizeof *table);
    if (!table) {
        snprintf(err, errlen, "out of memory for the block tables");
        return -1;
    }
    free(d->table);
    d->table = table;
    d->block_size = N, d->max_blocks = mb;
    for (int i = 0; i < c->batch * mb; i++)
        d->table[i] = -1;
    d->blocks_used = 0;
    return alloc_pool(d, c->batch * mb, err, errlen);
}

int decode_share_prefix(Decode *d, int prefix, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    const Tensor *x = d->m->t[MT_X]; /* (B, S, D) */
    if (!d->block_size) {
        snprintf(err, errlen, "--shared-prefix: needs --paged (the prefix is shared in the pool)");
        return -1;
    }
    if (prefix < 0 || prefix > d->prompt) {
        snprintf(err, errlen,
                 "--shared-prefix %d: must be 0 to the prompt's %d token%s (the shared prefix "
                 "is part of every prompt)",
                 prefix, d->prompt, text_s(d->prompt));
        return -1;
    }
    for (int b = 1; b < c->batch; b++)
        for (int s = 0; s < prefix; s++)
            for (int i = 0; i < c->d_model; i++)
                if (tensor_get(x, (int[]){b, s, i}) != tensor_get(x, (int[]){0, s, i})) {
                    snprintf(err, errlen,
                             "--shared-prefix %d: sequence %d's token %d differs from sequence "
                             "0's (the run must share them: cfg.shared_prefix)",
                             prefix, b, s);
                    return -1;
                }
    int shared = prefix / d->block_size;
    if (alloc_pool(d, shared + c->batch * (d->max_blocks - shared), err, errlen) != 0) return -1;
    d->prefix = prefix, d->shared_blocks = shared;
    return 0;
}

int decode_cow_pending(const Decode *d)
{
    if (!d->block_size || d->prefix % d->block_size == 0 || d->len <= 0) return 0;
    int j = d->prefix / d->block_size; /* the partial block's place in every table */
    if (d->table[j] < 0) return 0;     /* before the prefill */
    int most = 0; /* the most tables pointing at one block there: the shared one's count */
    for (int b = 0; b < d->m->cfg.batch; b++) {
        int r = d->refs[d->table[b * d->max_blocks + j]];
        if (r > most) most = r;
    }
    return most - 1;
}

int decode_prompt_default(int seq)
{
    return seq / 2 > 0 ? seq / 2 : 1;
}

size_t decode_cache_offset(const Decode *d, int b, int kv, int t, int i)
{
    if (d->block_size) { /* through the block table: (block, t mod N, kv, i) of the pool */
        int at[4], blk = d->table[b * d->max_blocks + t / d->block_size];
        pool_at(d, blk, t % d->block_size, kv, i, at);
        return blk < 0 ? 0 : tensor_offset_of(d->cache_k, at);
    }
    t %= d->slots; /* its slot: t itself without a window */
    int hf[4] = {b, kv, t, i}, meta[4] = {b, t, kv, i};
    return tensor_offset_of(d->cache_k, d->layout == DECODE_META ? meta : hf);
}

/* The cache's (B, KV, T, dh) view over slots start .. start + n - 1:
 * HF narrows the T axis in place; Meta narrows its T axis, then swaps T and
 * KV (a view: no byte moves). */
static Tensor *cache_window(const Decode *d, const Tensor *cache, int start, int n, char *err,
                            size_t errlen)
{
    if (d->layout == DECODE_HF) return tensor_narrow(cache, 2, start, n, err, errlen);
    Tensor *w = tensor_narrow(cache, 1, start, n, err, errlen); /* (B, n, KV, dh) */
    Tensor *r = w ? tensor_transpose(w, 1, 2, err, errlen) : NULL;
    tensor_free(w);
    return r;
}

/* Runs the write `code` (its K form: cache_k / pool_k and k) in d's
 * interpreter on the cache itself, then its V form (cache_v / pool_v, v):
 * the names bound to aliases of the buffers and of this step's k4, v4, so
 * the bytes land in the cache's storage.  The text is kept in write_code
 * for the screen; its bytes are added to written_step.  0, or -1 with err. */
static int run_write(Decode *d, const char *code, const Tensor *k4, const Tensor *v4, char *err,
                     size_t errlen)
{
    const char *cache = d->block_size ? "pool_k" : "cache_k";
    const char *vcache = d->block_size ? "pool_v" : "cache_v";
    if (!d->play && !(d->play = play_new(d->m->eng))) {
        snprintf(err, errlen, "out of memory for the cache write's interpreter");
        return -1;
    }
    PlayResult r = {0};
    r.error_col = -1;
    for (int i = 0; i < 2; i++) {
        char stmt[sizeof d->write_code], *at;
        snprintf(stmt, sizeof stmt, "%s", code);
        if (i == 1) { /* cache_k -> cache_v, k -> v: the same statement on V */
            memcpy(stmt, vcache, strlen(vcache));
            for (at = stmt + strlen(vcache); (at = strstr(at, "= k")) != NULL; at++)
                at[2] = 'v';
        }
        if (play_set_tensor(d->play, i ? vcache : cache,
                            tensorops_alias(i ? d->cache_v : d->cache_k), PD_FLOAT32) < 0 ||
            play_set_tensor(d->play, i ? "v" : "k", tensorops_alias(i ? v4 : k4), PD_FLOAT32) < 0) {
            snprintf(err, errlen, "out of memory for the cache write");
            return -1;
        }
        if (play_eval(d->play, stmt, &r) != PR_TENSOR || r.memory != PM_WRITE) {
            snprintf(err, errlen, "the cache write `%s` failed: %s", stmt,
                     r.kind == PR_ERROR ? r.error : "it wrote nothing");
            play_result_clear(&r);
            return -1;
        }
        d->written_step += r.copied_bytes;
    }
    play_result_clear(&r);
    snprintf(d->write_code, sizeof d->write_code, "%s", code);
    return 0;
}

/* Projects positions start .. start+n-1 of x with W (D, out): (B, n, out). */
static Tensor *project(const Decode *d, int w, int start, int n, char *err, size_t errlen)
{
    Tensor *xs = tensor_narrow(d->m->t[MT_X], 1, start, n, err, errlen); /* (B, n, D) view */
    Tensor *r = xs ? tensor_matmul(xs, d->m->t[w], err, errlen) : NULL;
    tensor_free(xs);
    return r;
}

/* (B, n, heads * dh) -> (B, n, heads, dh) view. */
static Tensor *split(const Tensor *t, int heads, int dh, char *err, size_t errlen)
{
    int sh[4] = {t->shape[0], t->shape[1], heads, dh};
    return tensor_view(t, 4, sh, err, errlen);
}

/* With RoPE on, turns every head row of t (B, n, heads * dh), a contiguous
 * projection this step owns, by its absolute position start + s, in place:
 * the same rotation the full run applies to Q_heads and K_heads. */
static void rope_rows(Tensor *t, const MhaConfig *c, int heads, int dh, int start)
{
    int B = t->shape[0], n = t->shape[1];
    for (int b = 0; b < B; b++)
        for (int s = 0; s < n; s++)
            for (int h = 0; h < heads; h++)
                rope_rotate(t->st->data + (((size_t)b * n + s) * heads + h) * dh, dh, start + s,
                            c->rope, c->rope_theta);
}

/* Writes k and v of this step into the cache, token p of it at slot p mod
 * slots (p itself without a window; with one, over token p - W).  k_new is
 * kept: with RoPE on it is already rotated, so the cache holds the rotated K
 * (V never is). */
/* Paged: the first n token slots of block src copied into block dst, K and
 * V (the copy-on-write of a shared block). */
static void copy_block(Decode *d, int src, int dst, int n)
{
    for (int k = 0; k < n; k++)
        for (int kv = 0; kv < d->m->cfg.kv_heads; kv++)
            for (int i = 0; i < d->m->d_head; i++) {
                int from[4], to[4];
                pool_at(d, src, k, kv, i, from);
                pool_at(d, dst, k, kv, i, to);
                tensor_set(d->cache_k, to, tensor_get(d->cache_k, from));
                tensor_set(d->cache_v, to, tensor_get(d->cache_v, from));
            }
}

/* Paged: token start + s of every sequence into its block, a new block
 * handed out (in batch order) when the sequence grows into one.  With a
 * shared prefix, its tokens are written by sequence 0 alone and the other
 * tables point at its blocks; a sequence writing into the shared partial
 * block gets its own copy first while another still points at it. */
static int write_paged(Decode *d, const Tensor *k4, const Tensor *v4, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    const int N = d->block_size, dh = d->m->d_head;
    const size_t tok = 2 * (size_t)c->kv_heads * (size_t)dh * sizeof(float); /* K and V */
    d->written_step = d->copied_step = 0;
    d->n_new_blocks = d->n_cow = 0;
    for (int s = 0; s < d->n; s++) {
        int p = d->start + s;
        for (int b = 0; b < c->batch; b++) {
            int *slot = &d->table[b * d->max_blocks + p / N];
            if (p < d->prefix && b > 0) { /* the prefix: sequence 0's block, one more table */
                if (p % N == 0) *slot = d->table[p / N], d->refs[*slot]++;
                continue;
            }
            if (p % N == 0) { /* the next free block of the pool */
                if (d->n_new_blocks < 64) d->new_blocks[d->n_new_blocks] = d->blocks_used;
                d->n_new_blocks++;
                *slot = d->blocks_used++;
                d->refs[*slot] = 1;
            } else if (p >= d->prefix && d->refs[*slot] > 1) { /* copy-on-write: its own
                                                                   token, a block others read */
                int src = *slot, dst = d->blocks_used++;
                copy_block(d, src, dst, p % N);
                d->refs[src]--, d->refs[dst] = 1, *slot = dst;
                d->cow_src[d->n_cow] = src, d->cow_dst[d->n_cow++] = dst;
                d->copied_step += (size_t)(p % N) * tok;
            }
            char code[sizeof d->write_code]; /* token s of sequence b: (KV, dh) */
            snprintf(code, sizeof code, "pool_k[%d, %s%d] = k[%d, %d]", *slot,
                     d->layout == DECODE_META ? "" : ":, ", p % N, b, s);
            if (run_write(d, code, k4, v4, err, errlen) < 0) return -1;
        }
    }
    d->written_total += d->written_step;
    d->copied_total += d->copied_step;
    return 0;
}

/* Paged: the gather, K or V of the first T tokens of every sequence read
 * through its block table into a new (B, KV, T, dh). */
static Tensor *gather(const Decode *d, const Tensor *pool, int T)
{
    const MhaConfig *c = &d->m->cfg;
    const int N = d->block_size, dh = d->m->d_head;
    Tensor *r = tensor_zeros(d->m->eng, 4, (int[]){c->batch, c->kv_heads, T, dh});
    for (int b = 0; r && b < c->batch; b++)
        for (int kv = 0; kv < c->kv_heads; kv++)
            for (int t = 0; t < T; t++)
                for (int i = 0; i < dh; i++) {
                    int from[4];
                    pool_at(d, d->table[b * d->max_blocks + t / N], t % N, kv, i, from);
                    tensor_set(r, (int[]){b, kv, t, i}, tensor_get(pool, from));
                }
    return r;
}

static int write_cache(Decode *d, const Tensor *k4, const Tensor *v4, char *err, size_t errlen)
{
    if (d->block_size) return write_paged(d, k4, v4, err, errlen);
    d->written_step = 0;
    /* token p to slot p mod slots: one statement for the whole step without
     * a window; with one, a statement a token (the screen shows the last
     * token's slot; a prefill longer than the window overwrites in order) */
    for (int s = 0; s < d->n;) {
        int slot = (d->start + s) % d->slots, len = d->window ? 1 : d->n;
        char k[40] = "k", code[sizeof d->write_code];
        if (len < d->n) snprintf(k, sizeof k, "k[:, %d:%d]", s, s + len);
        if (d->layout == DECODE_HF)
            snprintf(code, sizeof code, "cache_k[:, :, %d:%d] = %s.transpose(1, 2)", slot,
                     slot + len, k);
        else
            snprintf(code, sizeof code, "cache_k[:, %d:%d] = %s", slot, slot + len, k);
        if (run_write(d, code, k4, v4, err, errlen) < 0) return -1;
        for (int j = 0; j < len; j++) {
            int p = d->start + s + j;
            d->slot = p % d->slots;
            d->evicted = d->slot_pos[d->slot];
            d->slot_pos[d->slot] = p;
        }
        s += len;
    }
    d->written_total += d->written_step;
    return 0;
}

/* Attention of q (B, H, n, dh) over the cache's tokens (the first len, or
 * the slots held with a window; a prefill longer than the window over its
 * own k4, v4 (B, n, KV, dh)): GQA's groups as a stride-0 axis of the read
 * view, then scores, softmax, A @ V. */
static int attend(Decode *d, const Tensor *k4, const Tensor *v4, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    int B = c->batch, KV = c->kv_heads, G = d->m->groups, dh = d->m->d_head;
    int T = d->len < d->slots ? d->len : d->slots, rc = -1;
    Tensor *v5 = NULL, *kT = NULL, *q5 = NULL, *scores = NULL, *o5 = NULL, *tmp = NULL;
    if (d->n > d->slots) { /* the window's prefill: its own tokens, positions 0..n-1 */
        T = d->n;
        d->k_read = tensor_transpose(k4, 1, 2, err, errlen);
        d->v_read = tensor_transpose(v4, 1, 2, err, errlen);
    } else if (d->block_size) { /* through the block tables: a copy */
        d->k_read = gather(d, d->cache_k, T);
        d->v_read = gather(d, d->cache_v, T);
        if (!d->k_read || !d->v_read) snprintf(err, errlen, "out of memory for the gather");
    } else {
        d->k_read = cache_window(d, d->cache_k, 0, T, err, errlen);
        d->v_read = cache_window(d, d->cache_v, 0, T, err, errlen);
    }
    if (!d->k_read || !d->v_read) goto done;
    d->read_step = 2 * tensor_numel(d->k_read) * sizeof(float);
    d->read_total += d->read_step;

    int s5[5] = {B, KV, G, T, dh};
    tmp = tensor_unsqueeze(d->k_read, 2, err, errlen); /* (B, KV, 1, T, dh) */
    d->k_shared = tmp ? tensor_expand(tmp, 5, s5, err, errlen) : NULL;
    tensor_free(tmp);
    tmp = tensor_unsqueeze(d->v_read, 2, err, errlen);
    v5 = tmp ? tensor_expand(tmp, 5, s5, err, errlen) : NULL;
    if (!d->k_shared || !v5) goto done;

    int q5s[5] = {B, KV, G, d->n, dh}; /* query head h = kv * G + g, as repeat_kv orders them */
    q5 = tensor_view(d->q, 5, q5s, err, errlen);
    kT = q5 ? tensor_transpose(d->k_shared, -2, -1, err, errlen) : NULL; /* (B, KV, G, dh, T) */
    scores = kT ? tensor_matmul(q5, kT, err, errlen) : NULL;             /* (B, KV, G, n, T) */
    if (!scores) goto done;
    tensor_div_(scores, sqrtf((float)d->m->d_head)); /* / sqrt(dh), as the run's program */
    if (d->n > 1) { /* the prefill: n == T, square, positions 0..n-1 */
        tensor_causal_mask_(scores);
        mha_band_mask_(scores, d->window, 0);
    } /* one token: every slot held is a position i - W < j <= i */
    tensor_softmax_lastdim_(scores);
    d->attn = scores;
    scores = NULL;
    o5 = tensor_matmul(d->attn, v5, err, errlen); /* (B, KV, G, n, dh) */
    int h4[4] = {B, KV * G, d->n, dh};
    d->head_out = o5 ? tensor_view(o5, 4, h4, err, errlen) : NULL;
    if (!d->head_out) goto done;
    rc = 0;
done:
    tensor_free(tmp);
    tensor_free(v5);
    tensor_free(kT);
    tensor_free(q5);
    tensor_free(scores);
    tensor_free(o5);
    return rc;
}

/* back to tokens, concat, W_O: (B, H, n, dh) -> (B, n, D). */
static int output(Decode *d, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    Tensor *back = tensor_transpose(d->head_out, 1, 2, err, errlen);
    Tensor *cont = back ? tensor_contiguous(back) : NULL;
    int sh[3] = {c->batch, d->n, c->d_model};
    Tensor *cat = cont ? tensor_view(cont, 3, sh, err, errlen) : NULL;
    d->out = cat ? tensor_matmul(cat, d->m->t[MT_W_O], err, errlen) : NULL;
    if (back && !cont) snprintf(err, errlen, "out of memory");
    tensor_free(back);
    tensor_free(cont);
    tensor_free(cat);
    return d->out ? 0 : -1;
}

/* One step over positions start .. start + n - 1. */
static int run_step(Decode *d, int start, int n, char *err, size_t errlen)
{
    const MhaConfig *c = &d->m->cfg;
    int dh = d->m->d_head, rc = -1;
    clear_step(d);
    d->start = start;
    d->n = n;
    Tensor *Q = project(d, MT_W_Q, start, n, err, errlen); /* (B, n, D) */
    Tensor *K = Q ? project(d, MT_W_K, start, n, err, errlen) : NULL;
    Tensor *V = K ? project(d, MT_W_V, start, n, err, errlen) : NULL;
    if (V && c->rope != ROPE_OFF) { /* q, k = rope(q, pos), rope(k, pos): before caching */
        rope_rows(Q, c, c->heads, dh, start);
        rope_rows(K, c, c->kv_heads, dh, start);
    }
    Tensor *q4 = V ? split(Q, c->heads, dh, err, errlen) : NULL;      /* (B, n, H, dh) */
    Tensor *v4 = q4 ? split(V, c->kv_heads, dh, err, errlen) : NULL;  /* (B, n, KV, dh) */
    d->k_new = v4 ? split(K, c->kv_heads, dh, err, errlen) : NULL;    /* (B, n, KV, dh) */
    d->q = d->k_new ? tensor_transpose(q4, 1, 2, err, errlen) : NULL; /* (B, H, n, dh) */
    if (d->q && write_cache(d, d->k_new, v4, err, errlen) == 0) {
        d->len = start + n;
        if (attend(d, d->k_new, v4, err, errlen) == 0 && output(d, err, errlen) == 0) rc = 0;
    }
    tensor_free(Q);
    tensor_free(K);
    tensor_free(V);
    tensor_free(q4);
    tensor_free(v4);
    return rc;
}

int decode_prefill(Decode *d, char *err, size_t errlen)
{
    d->len = 0;
    d->written_total = d->read_total = d->copied_total = 0;
    for (int s = 0; s < d->slots; s++)
        d->slot_pos[s] = -1;
    for (int i = 0; d->table && i < d->m->cfg.batch * d->max_blocks; i++)
        d->table[i] = -1;
    for (int i = 0; d->refs && i < d->blocks; i++)
        d->refs[i] = 0;
    d->blocks_used = 0;
    return run_step(d, 0, d->prompt, err, errlen);
}

int decode_step(Decode *d, char *err, size_t errlen)
{
    if (d->len >= d->cap) return 1;
    return run_step(d, d->len, 1, err, errlen);
}

/* Largest |full[.., row + s, ..] - step[.., s, ..]| over the step's shape; the
 * row axis is the second to last (head_out) or the middle one (out). */
static float diff_rows(const Tensor *full, const Tensor *step, int row, int axis)
{
    int idx[TENSOR_MAXDIM] = {0}, fidx[TENSOR_MAXDIM];
    float worst = 0;
    for (size_t e = 0; e < tensor_numel(step); e++) {
        for (int a = 0; a < step->ndim; a++)
            fidx[a] = idx[a];
        fidx[axis] += row;
        float dlt = tensor_get(full, fidx) - tensor_get(step, idx);
        if (dlt < 0) dlt = -dlt;
        if (dlt > worst || dlt != dlt) worst = dlt != dlt ? 1e30f : dlt;
        for (int a = step->ndim - 1; a >= 0 && ++idx[a] == step->shape[a]; a--)
            idx[a] = 0;
    }
    return worst;
}

float decode_check(const Decode *d)
{
    if (!d->head_out || !d->out) return 1e30f;
    float a = diff_rows(d->m->t[MT_HEAD_OUT], d->head_out, d->start, 2); /* (B, H, S, dh) */
    float b = diff_rows(d->m->t[MT_OUT], d->out, d->start, 1);           /* (B, S, D) */
    return a > b ? a : b;
}
