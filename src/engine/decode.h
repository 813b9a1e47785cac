/* decode.h - generation with a KV cache, on the tensor engine: prefill the
 * prompt, then one token at a time.
 *
 * A Decode runs over the input and weights of a full Mha run (its x is the
 * whole sequence: the prompt, then the tokens "generated" one by one), so
 * every step can be compared with row t of the full causal pass.  Each step
 * computes q, k, v of its new tokens only, writes k and v into the cache at
 * their positions, reads the cache back as (B, KV, T, dh) views and attends:
 *
 *   q (B, H, n, dh)  over  K, V (B, KV, T, dh)        n = prompt, then 1
 *
 * The cache is one storage per K and V, preallocated to the run's length
 * (as Meta's llama and Hugging Face's StaticCache do) and filled position by
 * position, in one of two layouts:
 *
 *   DECODE_HF    (B, KV, Tmax, dh)  transformers' cache: a head's tokens adjacent
 *   DECODE_META  (B, Tmax, KV, dh)  Meta's llama: a token's heads adjacent
 *
 * GQA's sharing happens after reading, never in the cache: the read view gets
 * a group axis of stride 0 (unsqueeze + expand, no copy), so the cache keeps
 * kv_heads heads whatever the number of query heads.  With RoPE on (the
 * run's config), q and k are rotated by their absolute position right before
 * k is written, so the cache holds the rotated K, as Meta's llama model.py
 * and HF's LlamaAttention do (apply_rotary_emb, then cache_k / cache.update).
 *
 * With a window W (the run's cfg.window, Mistral's rolling buffer cache) the
 * cache has min(W, Tmax) slots on its T axis and token t is written to slot
 * t mod W, overwriting token t - W: a step reads the slots it has, the last
 * W tokens in slot order (the softmax does not care about order), so query i
 * sees key j iff i - W < j <= i, the full run's band mask.  A prefill longer
 * than the window attends over its own fresh k and v with the band mask, then
 * leaves its last W tokens in the cache.
 *
 * Paged (decode_set_paged, vLLM's PagedAttention): K and V each live in one
 * physical pool of blocks, N tokens a block, shared by the batch's
 * sequences, in one of vLLM's two block layouts (the layout picks which,
 * as it does for the contiguous cache):
 *
 *   DECODE_META  NHD (blocks, N, KV, dh)  a token's heads adjacent, as Meta's
 *   DECODE_HF    HND (blocks, KV, N, dh)  a head's tokens adjacent, as HF's
 *
 * (vllm/v1/attention/backends/flash_attn.py: get_kv_cache_shape is (2,
 * num_blocks, block_size, num_kv_heads, head_size) and get_kv_cache_stride_order
 * keeps it for "NHD", vLLM's default, and swaps block_size and num_kv_heads
 * in memory, (0, 1, 3, 2, 4), for "HND", which FlashInfer's kernels read;
 * the layout is chosen by VLLM_KV_CACHE_LAYOUT, get_kv_cache_layout in
 * vllm/v1/attention/backends/utils.py.)  A block is handed out when a sequence grows into
 * it, in batch order at each step, so the sequences' blocks interleave;
 * each sequence's block table maps its logical block t / N to a physical
 * one.  A step writes token t of sequence b at (table[b][t / N], t mod N) and
 * reads the cache back through the tables: the gather, a copy (B, KV, T, dh)
 * whose bytes are counted as read (no strided view can express it).
 *
 * A shared prefix (decode_share_prefix, vLLM's prefix caching): when every
 * sequence's first P tokens are the same (the run's cfg.shared_prefix), the
 * floor(P / N) full blocks of the prefix are written once, by sequence 0, and
 * every table points at them (refs[block] counts the tables).  The block
 * holding the prefix's last P mod N tokens is shared too until a sequence
 * writes its own token into it: then, while others still point at it, that
 * sequence gets a copy of it (copy-on-write: the P mod N tokens copied, their
 * bytes counted) and writes into the copy; the last one writes in place.
 */
#ifndef MHAVIZ_DECODE_H
#define MHAVIZ_DECODE_H

#include <stddef.h>

#include "engine/mha.h"

typedef enum { DECODE_HF, DECODE_META, DECODE_LAYOUTS } DecodeLayout;

typedef struct Decode {
    const Mha *m; /* the full causal run: x, W_Q, W_K, W_V, W_O; not owned */
    DecodeLayout layout;
    int cap;                   /* tokens the run generates up to: m->cfg.seq */
    int window;                /* m->cfg.window: 0, or the rolling buffer's W */
    int slots;                 /* the cache's T axis: cap, or min(W, cap) with a window */
    int *slot_pos;             /* [slots]: the position each slot holds, -1 empty; owned */
    int prompt;                /* tokens of the prefill */
    int len;                   /* tokens cached so far */
    Tensor *cache_k, *cache_v; /* the whole buffers, in the layout's shape; owned */

    /* the last step (prefill or one token), kept for drawing; owned */
    int start, n;     /* it computed positions start .. start + n - 1 */
    Tensor *q;        /* (B, H, n, dh) view of this step's Q */
    Tensor *k_new;    /* (B, n, KV, dh) this step's k, as written (rotated with RoPE on) */
    int slot;         /* the slot its last token was written to (its position mod slots) */
    int evicted;      /* the position that write overwrote; -1: the slot was empty */
    Tensor *k_read;   /* (B, KV, T, dh) view of the cache: what this step read (T = len,
                         or the slots held with a window; a prefill longer than the
                         window reads its own k: T = n) */
    Tensor *v_read;   /* (B, KV, T, dh) */
    Tensor *k_shared; /* (B, KV, G, T, dh) stride-0 view of k_read: GQA after reading */
    Tensor *attn;     /* (B, KV, G, n, T) softmax weights */
    Tensor *head_out; /* (B, H, n, dh) */
    Tensor *out;      /* (B, n, D) after W_O */

    /* paged (block_size > 0): cache_k, cache_v are the pools, NHD (blocks, N, KV, dh)
       or HND (blocks, KV, N, dh) */
    int block_size;     /* N tokens a block; 0: not paged */
    int blocks;         /* the pool's blocks: shared + batch x (max_blocks - shared) */
    int max_blocks;     /* a table's length: ceil(cap / N) */
    int *table;         /* [batch][max_blocks]: physical block, -1 not yet; owned */
    int blocks_used;    /* handed out so far (the next free block) */
    int new_blocks[64]; /* the blocks this step handed out, in order (up to 64 shown) */
    int n_new_blocks;   /* how many it handed out (may exceed 64) */
    int *refs;          /* [blocks]: how many tables point at each block; owned */
    int prefix;         /* the shared prefix's tokens P; 0: none */
    int shared_blocks;  /* floor(P / N): the full prefix blocks, stored once */
    int cow_src[MHA_MAX_BATCH], cow_dst[MHA_MAX_BATCH]; /* this step's copy-on-writes */
    int n_cow;                                          /* how many (one a sequence at most) */
    size_t copied_step, copied_total;                   /* bytes of K and V those copies wrote */

    /* The cache write, run by the interpreter (engine/play.h) on cache_k and
     * cache_v themselves from its text: the last statement this step ran for
     * K ("cache_k[:, :, 4:5] = k.transpose(1, 2)", "cache_k[:, 4:5] = k",
     * a window's "cache_k[:, :, 1:2] = k.transpose(1, 2)", the pool's
     * "pool_k[5, 0] = k[1, 0]"); V's is the same on cache_v and v.  The
     * screen and decode --plain show it. */
    char write_code[96];
    struct Play *play; /* the interpreter the writes run in; owned */

    size_t written_step, read_step;   /* bytes of K and V written / read this step */
    size_t written_total, read_total; /* since the prefill */
} Decode;

/* A decode over m (m->cfg.causal need not be set: the cache makes every
 * step causal) with a prompt of `prompt` tokens (1 .. seq).  Nothing is
 * computed yet; call decode_prefill.  NULL with err set on a bad prompt or
 * out of memory.  m must outlive the Decode. */
Decode *decode_new(const Mha *m, DecodeLayout layout, int prompt, char *err, size_t errlen);
void decode_free(Decode *d);

/* Makes d paged, before decode_prefill: the cache becomes one pool of
 * blocks of block_size tokens (see above).  0, or -1 with a one-line reason
 * naming the flag: "--block-size 0: ...", "--paged: needs --batch 2 or more
 * ...", "--paged: not with --window ...", or out of memory. */
int decode_set_paged(Decode *d, int block_size, char *err, size_t errlen);

/* Makes d's batch share its first `prefix` tokens in the pool (see above),
 * after decode_set_paged and before decode_prefill; 0 leaves it unshared.
 * The run's x must hold the same first prefix tokens in every sequence
 * (cfg.shared_prefix >= prefix).  0, or -1 with a one-line reason naming
 * the flag: "--shared-prefix: needs --paged", "--shared-prefix 9: must be 0
 * to the prompt's 4 tokens ...", "--shared-prefix 3: sequence 1's token 0
 * differs ...", or out of memory (d unchanged then). */
int decode_share_prefix(Decode *d, int prefix, char *err, size_t errlen);

/* The copy-on-write copies not made yet: while n tables still point at the
 * partial prefix block, n - 1 (content/kv.c's kv_paged counts every
 * sequence's own copy of it, so its total is blocks_used + this); 0 when
 * there is no partial block or every sequence has its own. */
int decode_cow_pending(const Decode *d);

/* "NHD (blocks, N, KV, dh)" for DECODE_META / "HND (blocks, KV, N, dh)" for
 * DECODE_HF: the paged pool's layout. */
const char *decode_pool_layout_name(DecodeLayout l);

/* The prompt decode uses when none is given: half the sequence, at least 1
 * (the screen and `decode --plain` both take it from here). */
int decode_prompt_default(int seq);

/* Runs the prompt as one block (positions 0 .. prompt - 1, causal mask),
 * filling the cache from empty.  0, or -1 with err set. */
int decode_prefill(Decode *d, char *err, size_t errlen);

/* Generates the next position (len): one q row over the len + 1 cached
 * tokens.  0; 1 when the cache is already full (nothing done); -1 with err. */
int decode_step(Decode *d, char *err, size_t errlen);

/* The largest |difference| between the last step's head_out and out rows
 * and rows start .. start + n - 1 of the full run's head_out and out (m must
 * be a causal run for them to agree). */
float decode_check(const Decode *d);

/* "HF (B, KV, T, dh)" / "Meta (B, T, KV, dh)". */
const char *decode_layout_name(DecodeLayout l);

/* Storage offset of cache element (b, kv, t, i) in the layout of d, t a
 * position (with a window: where it is, or was until overwritten, slot
 * t mod W). */
size_t decode_cache_offset(const Decode *d, int b, int kv, int t, int i);

#endif
