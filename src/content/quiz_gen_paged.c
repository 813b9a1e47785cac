/* quiz_gen_paged.c - paged blocks (vLLM's PagedAttention): how many blocks
 * a sequence's block table holds, and how many the pool holds when the
 * sequences share a prefix.  Every key and every distractor is a layout
 * by content/kv.c's kv_paged (what `mhaviz kv --paged` prints): the key
 * the right one, each distractor the same call on the inputs a real
 * mistake reads (floor for ceil, the prefix counted per sequence, the
 * partial prefix block taken as shared). */
#include <stdio.h>
#include <string.h>

#include "content/kv.h"
#include "content/quiz_gen.h"

/* Blocks in the pool for lengths[0..n) at block size N with prefix P, by
 * kv_paged (tokens as bytes: the pool's size does not matter here); -1 on
 * a refused layout. */
static long pool_blocks(const long *len, int n, long N, long P)
{
    KvPaged pg;
    KvPagedSeq seqs[4];
    char err[200];
    if (kv_paged(len, n, N, P, KV_MAX_CONTEXT, 1, &pg, seqs, err, sizeof err)) return -1;
    return (long)pg.total_blocks;
}

/* The mistakes, each as a layout kv_paged computes: floor(L/N) blocks a
 * sequence (the last partial block forgotten), no sharing (the prefix
 * stored once per sequence), and the partial prefix block shared too
 * (its copy-on-write forgotten: as if the prefix were ceil(P/N) blocks). */
static int pool_mistakes(const long *len, int n, long N, long P, long out[3])
{
    long floor_len[4];
    long down = P / N * N;      /* the prefix's full blocks */
    for (int i = 0; i < n; i++) /* floor(L/N) blocks: L rounded down to whole blocks */
        floor_len[i] = len[i] / N * N > down ? len[i] / N * N : down;
    out[0] = pool_blocks(floor_len, n, N, down);
    out[1] = pool_blocks(len, n, N, 0);
    long up = (P + N - 1) / N * N, shared_up[4];
    for (int i = 0; i < n; i++) /* a sequence shorter than the rounded prefix keeps its own */
        shared_up[i] = len[i] > up ? len[i] : up;
    out[2] = pool_blocks(shared_up, n, N, up);
    return 0;
}

int quiz_gen_paged(Gen *g)
{
    QuizQuestion *q = g->q;
    static const long sizes[] = {8, 16, 16, 32}; /* vLLM's default 16, and its others */
    long N = sizes[quiz_rng_below(&g->r, 4)];
    int ask_pool = quiz_rng_below(&g->r, 2), n = ask_pool ? 2 + quiz_rng_below(&g->r, 2) : 1;
    /* a prefix of at least one full block and a partial one, so each
     * mistake gives another count; lengths past it, the first not a whole
     * number of blocks */
    long P = ask_pool ? N + 1 + quiz_rng_below(&g->r, (int)(2 * N - 2)) : 0;
    if (ask_pool && P % N == 0) P++;
    long len[4];
    for (int i = 0; i < n; i++) {
        len[i] = P + 1 + quiz_rng_below(&g->r, 1500);
        if (i == 0 && len[i] % N == 0) len[i]++;
    }
    KvPaged pg;
    KvPagedSeq seqs[4];
    char why[200];
    if (kv_paged(len, n, N, P, KV_MAX_CONTEXT, 1, &pg, seqs, why, sizeof why)) {
        snprintf(g->err, g->errlen, "paged: %s", why);
        return -1;
    }
    q->topic = QT_PAGED;
    q->cfg = mha_config_default();
    q->cfg.batch = n, q->cfg.seq = (int)N;
    for (int i = 0; i < n; i++)
        q->idx[i] = (int)len[i];
    q->idx[3] = (int)P;
    q->aux = ask_pool;
    char lens[80] = "";
    for (int i = 0; i < n; i++)
        qt_cat(lens, sizeof lens, "%s%ld", i ? (i == n - 1 ? " and " : ", ") : "", len[i]);
    if (!ask_pool) {
        qt_cat(q->prompt, sizeof q->prompt,
               "A paged KV cache hands out blocks of %ld tokens from one pool (vLLM's "
               "PagedAttention); each sequence has a block table, one entry per block it uses.\n"
               "A sequence holds %ld tokens.  How many entries does its block table have?",
               N, len[0]);
        q->kind = QK_NUMBER;
        q->number = seqs[0].blocks;
        qt_cat(q->working, sizeof q->working,
               "ceil(%ld / %ld) = %ld block%s: %ld full, the last holding %ld of its %ld tokens.\n"
               "floor(%ld / %ld) = %ld would leave the last %ld token%s without a block.\n",
               len[0], N, seqs[0].blocks, text_s(seqs[0].blocks), seqs[0].blocks - 1,
               seqs[0].last_tokens, N, len[0], N, len[0] / N, len[0] % N, text_s(len[0] % N));
        snprintf(q->explain, sizeof q->explain,
                 "A block is handed out whole when the sequence grows into it, so a sequence of L "
                 "tokens uses ceil(L / N) blocks; only its last block can be partly empty, which "
                 "is all a paged cache wastes per sequence.");
        return 0;
    }
    qt_cat(q->prompt, sizeof q->prompt,
           "A paged KV cache, blocks of %ld tokens from one pool.  %d sequences of %s tokens "
           "start with the same %ld-token prompt: its full blocks are stored once and shared "
           "(reference counted), and the block the prefix ends in is copied on write by each "
           "sequence.\nHow many blocks does the pool hold?",
           N, n, lens, P);
    long key = (long)pg.total_blocks, wrong[3];
    pool_mistakes(len, n, N, P, wrong);
    char ans[QUIZ_CHOICE_MAX], cand[3][QUIZ_CHOICE_MAX];
    int nc = 0;
    snprintf(ans, sizeof ans, "%ld blocks", key);
    for (int i = 0; i < 3; i++)
        if (wrong[i] > 0 && wrong[i] != key)
            snprintf(cand[nc++], QUIZ_CHOICE_MAX, "%ld blocks", wrong[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    q->number = key;
    qt_cat(q->working, sizeof q->working,
           "The prefix: floor(%ld / %ld) = %ld full block%s, stored once; its last %ld token%s "
           "sit in a partial block each sequence copies.\n",
           P, N, pg.shared_blocks, text_s(pg.shared_blocks), pg.prefix_tail,
           text_s(pg.prefix_tail));
    for (int i = 0; i < n; i++)
        qt_cat(q->working, sizeof q->working,
               "Sequence %d: ceil(%ld / %ld) = %ld blocks, %ld of them its own.\n", i + 1, len[i],
               N, seqs[i].blocks, seqs[i].own_blocks);
    qt_cat(q->working, sizeof q->working, "Pool: %ld shared + %ld own = %ld blocks.\n",
           pg.shared_blocks, key - pg.shared_blocks, key);
    snprintf(q->explain, sizeof q->explain,
             "total = floor(P/N) + sum over sequences of (ceil(L/N) - floor(P/N)).  Counting the "
             "prefix in every sequence gives %ld, sharing its partial block too gives %ld (but "
             "each sequence writes its own tokens into it: copy-on-write), floor for ceil gives "
             "%ld.",
             wrong[1], wrong[2], wrong[0]);
    return 0;
}
