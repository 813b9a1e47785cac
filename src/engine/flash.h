/* flash.h - FlashAttention-2's forward loop over one pipeline run, tile by tile.
 *
 * A Flash reads a finished Mha run (engine/mha.c): Q_heads (B, H, S, dh),
 * K_heads and V_heads (B, KV, S, dh; query head h reads kv head h / (H / KV)),
 * the scale 1 / sqrt(dh) and the causal flag, and recomputes head_out without
 * ever forming the (S, S) scores: for one (batch, head) at a time, a tile of
 * block_q query rows stays on chip while the K/V tiles of block_k keys stream
 * past it.  After each K/V tile j the running state of the q tile's rows r,
 * over the scaled, masked scores s of the keys seen so far (tiles 0..j), is
 *
 *   m[r] = max s,  l[r] = sum exp(s - m[r]),  O[r] = (sum exp(s - m[r]) v) / l[r]
 *
 * The loop order is FlashAttention-2's (Dao 2023, arXiv:2307.08691,
 * Algorithm 1): the q tiles are the outer loop, the K/V tiles the inner one,
 * batch and head outermost (flash-attn's kernel runs one thread block per
 * (m_block, batch, head): csrc/flash_attn/src/flash_fwd_kernel.h,
 * compute_attn_1rowblock).  Two differences from the real kernel, on purpose:
 *  - FA2 keeps O unnormalised and divides by l once after the last tile; we
 *    keep that accumulator too (acc) but also publish O = acc / l after every
 *    tile, the definition above, so each tile's state can be checked;
 *  - flash_fwd_kernel.h walks the K/V tiles of a row block from the last one
 *    down (`int n_block = n_block_max - 1; for (; n_block >= n_block_min;
 *    --n_block)`) so that the masked tiles come first; we walk them from 0 up,
 *    as Algorithm 1 writes it.  After the last tile both give the same O.
 * With causal, a K/V tile wholly above the diagonal (its first column greater
 * than the q tile's last row) is skipped, as the kernel's n_block_max does; a
 * partly masked tile is visited whole, its masked scores -inf.
 *
 * flash-attn itself takes q (B, S, H, dh) and k, v (B, S, KV, dh)
 * (flash_attn/flash_attn_interface.py, flash_attn_func): the layout of the
 * projection's output, so it needs no transpose at all; the engine's Q_heads
 * is the transposed view of the same bytes, and a tile reads the same floats.
 */
#ifndef MHAVIZ_FLASH_H
#define MHAVIZ_FLASH_H

#include <stddef.h>
#include <stdint.h>

#include "engine/mha.h"

/* The blocks `mhaviz flash` uses when none is given: a few tiles at the
 * default size (seq 4: 2 x 2 tiles a head). */
#define FLASH_BLOCK_DEFAULT 2

/* flash-attn's blocks for d_head 128 on A100 and H100 (kBlockM 128, kBlockN 64:
 * run_mha_fwd_hdim128 in csrc/flash_attn/src/flash_fwd_launch_template.h). */
#define FLASH_REAL_BLOCK_Q 128
#define FLASH_REAL_BLOCK_K 64

/* HBM bytes of one attention, float32, summed over the B x H heads: the
 * FlashAttention paper's accounting of the standard implementation against
 * FlashAttention's.  Per (batch, head):
 *   naive = 4 (4 S dh + 4 S^2)   read Q, K; write S; read S; write P; read P, V; write O
 *   flash = 4 (S dh + 2 sum_i sum_{j visited} rows(K tile j) dh + S dh + S)
 *           read Q once, each visited K and V tile once per q tile, write O and
 *           the row logsumexp once.  naive does not depend on causal. */
typedef struct FlashBytes {
    uint64_t naive, flash;
    uint64_t naive_write; /* of naive, the writes alone: 4 (2 S^2 + S dh), S, P and O */
} FlashBytes;

/* The formulas above for batch x heads heads of seq S and d_head dh with these
 * blocks (each >= 1; a block larger than S is one tile).  Pure arithmetic, for
 * the toy run and real sizes alike; 64-bit (real sizes fit with room). */
FlashBytes flash_bytes(long batch, long heads, long seq, long d_head, long block_q, long block_k,
                       int causal);

/* The number of tiles of n items in blocks of `block`: ceil(n / block). */
int flash_tiles_of(int n, int block);

/* Is K/V tile ktile skipped for q tile qtile?  Only under causal, exactly when
 * the tile's first column is greater than the q tile's last row. */
int flash_skips(int seq, int block_q, int block_k, int causal, int qtile, int ktile);

typedef struct Flash {
    const Mha *m; /* the run read; not owned, must outlive the Flash */
    int block_q, block_k;
    int n_qtiles, n_ktiles; /* per (batch, head) */

    /* The tile that exists now (after flash_step returned 1). */
    int b, h, kv;     /* batch, query head, the kv head it reads */
    int qtile, ktile; /* indices from 0 */
    int r0, r1;       /* its query rows, half-open */
    int c0, c1;       /* its keys, half-open */
    int last;         /* it was the q tile's last visited K/V tile: O is final, written */
    float *s;         /* (r1 - r0, c1 - c0) row-major: its scaled, masked scores (on chip) */
    float *tm, *tl;   /* (r1 - r0): m and l after this tile */
    float *tO;        /* (r1 - r0, dh) row-major: O = acc / l after this tile */
    double *acc;      /* (block_q, dh): FA2's unnormalised O */
    double *rm, *rl;  /* (block_q): the running m and l */

    Tensor *out;           /* (B, H, S, dh): O as written to HBM, a q tile at a time; owned */
    Tensor *lse;           /* (B, H, S): m + log l per row, written with it; owned */
    long visited, skipped; /* tiles so far (skipped: by causal) */
    long rows_done;        /* rows of out written, in (b, h, row) order */
    uint64_t bytes_read, bytes_written; /* HBM traffic counted as tiles load and store */
    FlashBytes bytes;                   /* flash_bytes() of this run's whole loop */
    int started, done;
} Flash;

/* A loop over m's tensors with these blocks (each >= 1).  Nothing runs yet:
 * call flash_step.  NULL with err set on a block < 1 or out of memory. */
Flash *flash_new(const Mha *m, int block_q, int block_k, char *err, size_t errlen);
void flash_free(Flash *f);

/* Runs the next visited tile in loop order (batch, head, q tile, K/V tile),
 * leaving its state in the Flash (b, h, ..., tm, tl, tO); a skipped tile is
 * counted in skipped, never run.  1 when a tile ran, 0 when the loop is done. */
int flash_step(Flash *f);

/* Back to before the first tile: out, lse and the counters cleared. */
void flash_restart(Flash *f);

/* The largest |out - head_out| over the rows written so far (all of them
 * once done: then it is the whole check of the loop against the pipeline). */
float flash_check(const Flash *f);

/* The (r1 - r0) x (c1 - c0) of the current tile's scores that are masked
 * (above the diagonal under causal); 0 when the tile is wholly visible. */
int flash_tile_masked(const Flash *f);

#endif
