/* flash.c - FlashAttention-2's forward loop, one tile per step (see flash.h). */
#include "engine/flash.h"

#include <math.h> /* INFINITY */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int flash_tiles_of(int n, int block)
{
    return (n + block - 1) / block;
}

/* The last row of q tile qtile (rows are cut off at S). */
static long last_row(long seq, long block_q, long qtile)
{
    long r1 = (qtile + 1) * block_q;
    return (r1 < seq ? r1 : seq) - 1;
}

int flash_skips(int seq, int block_q, int block_k, int causal, int qtile, int ktile)
{
    return causal && (long)ktile * block_k > last_row(seq, block_q, qtile);
}

FlashBytes flash_bytes(long batch, long heads, long seq, long d_head, long block_q, long block_k,
                       int causal)
{
    uint64_t S = (uint64_t)seq, dh = (uint64_t)d_head, kv_rows = 0; /* sum_i sum_j rows */
    long nq = (seq + block_q - 1) / block_q;
    for (long i = 0; i < nq; i++) {
        uint64_t keys = S; /* every K tile: their real rows add up to S */
        if (causal) {      /* the visited tiles end with the one holding the last row */
            uint64_t end = (uint64_t)(last_row(seq, block_q, i) / block_k + 1) * (uint64_t)block_k;
            keys = end < S ? end : S;
        }
        kv_rows += keys;
    }
    uint64_t per_naive = 4 * (4 * S * dh + 4 * S * S);
    uint64_t per_flash = 4 * (S * dh + 2 * kv_rows * dh + S * dh + S);
    uint64_t n = (uint64_t)batch * (uint64_t)heads;
    uint64_t per_write = 4 * (2 * S * S + S * dh);
    return (FlashBytes){per_naive * n, per_flash * n, per_write * n};
}

void flash_free(Flash *f)
{
    if (!f) return;
    free(f->s);
    free(f->tm);
    free(f->tl);
    free(f->tO);
    free(f->acc);
    free(f->rm);
    free(f->rl);
    tensor_free(f->out);
    tensor_free(f->lse);
    free(f);
}

Flash *flash_new(const Mha *m, int block_q, int block_k, char *err, size_t errlen)
{
    const MhaConfig *c = &m->cfg;
    if (block_q < 1 || block_k < 1) {
        snprintf(err, errlen, "%s %d: must be a positive number of rows",
                 block_q < 1 ? "--block-q" : "--block-k", block_q < 1 ? block_q : block_k);
        return NULL;
    }
    Flash *f = calloc(1, sizeof *f);
    if (!f) goto oom;
    f->m = m;
    /* a block larger than S is one tile of S rows: nothing on chip is bigger */
    f->block_q = block_q < c->seq ? block_q : c->seq;
    f->block_k = block_k < c->seq ? block_k : c->seq;
    f->n_qtiles = flash_tiles_of(c->seq, f->block_q);
    f->n_ktiles = flash_tiles_of(c->seq, f->block_k);
    size_t bq = (size_t)f->block_q, bk = (size_t)f->block_k, dh = (size_t)m->d_head;
    f->s = malloc(bq * bk * sizeof *f->s);
    f->tm = malloc(bq * sizeof *f->tm);
    f->tl = malloc(bq * sizeof *f->tl);
    f->tO = malloc(bq * dh * sizeof *f->tO);
    f->acc = malloc(bq * dh * sizeof *f->acc);
    f->rm = malloc(bq * sizeof *f->rm);
    f->rl = malloc(bq * sizeof *f->rl);
    int o4[4] = {c->batch, c->heads, c->seq, m->d_head}, l3[3] = {c->batch, c->heads, c->seq};
    f->out = tensor_zeros(m->eng, 4, o4);
    f->lse = tensor_zeros(m->eng, 3, l3);
    if (!f->s || !f->tm || !f->tl || !f->tO || !f->acc || !f->rm || !f->rl || !f->out || !f->lse)
        goto oom;
    f->bytes =
        flash_bytes(c->batch, c->heads, c->seq, m->d_head, f->block_q, f->block_k, c->causal);
    flash_restart(f);
    return f;
oom:
    flash_free(f);
    snprintf(err, errlen, "out of memory for the tiles");
    return NULL;
}

void flash_restart(Flash *f)
{
    f->started = f->done = f->last = 0;
    f->visited = f->skipped = f->rows_done = 0;
    f->bytes_read = f->bytes_written = 0;
    memset(f->out->st->data, 0, f->out->st->n * sizeof(float));
    memset(f->lse->st->data, 0, f->lse->st->n * sizeof(float));
}

/* Moves to the next position of the loop; 0 past the end.  After a q tile's
 * last visited tile the rest of its row of tiles is skipped (causal). */
static int advance(Flash *f)
{
    const MhaConfig *c = &f->m->cfg;
    if (!f->started) {
        f->started = 1;
        f->b = f->h = f->qtile = f->ktile = 0;
        return 1;
    }
    if (!f->last) {
        f->ktile++;
        return 1;
    }
    f->ktile = 0;
    if (++f->qtile < f->n_qtiles) return 1;
    f->qtile = 0;
    if (++f->h < c->heads) return 1;
    f->h = 0;
    return ++f->b < c->batch;
}

/* Row r of a (B, n, S, dh) heads tensor: dh floats, d_head stride 1 (the
 * engine's Q_heads, K_heads, V_heads are views with strides (S D, dh, D, 1)). */
static const float *row_of(const Tensor *t, int b, int h, int r)
{
    int idx[4] = {b, h, r, 0};
    return t->st->data + tensor_offset_of(t, idx);
}

/* The current tile: scores on chip, then FA2's update of m, l and acc:
 *   m_new = max(m, rowmax s);  l = e^(m - m_new) l + rowsum e^(s - m_new)
 *   acc = e^(m - m_new) acc + e^(s - m_new) V_tile;  O = acc / l */
static void run_tile(Flash *f)
{
    const Mha *m = f->m;
    int dh = m->d_head, nr = f->r1 - f->r0, nc = f->c1 - f->c0;
    /* the scores' Q and K: rotated when the run has RoPE on (V never is) */
    const Tensor *Q = m->t[MT_Q_ROPE] ? m->t[MT_Q_ROPE] : m->t[MT_Q_HEADS];
    const Tensor *K = m->t[MT_K_ROPE] ? m->t[MT_K_ROPE] : m->t[MT_K_HEADS], *V = m->t[MT_V_HEADS];
    long kd = K->strides[3], vd = V->strides[3], qd = Q->strides[3];
    for (int r = 0; r < nr; r++) {
        const float *q = row_of(Q, f->b, f->h, f->r0 + r); /* (dh,) on chip */
        float *s = f->s + (size_t)r * nc;                  /* (nc,) */
        float mt = -INFINITY;
        for (int c = 0; c < nc; c++) {
            const float *k = row_of(K, f->b, f->kv, f->c0 + c);
            float dot = 0; /* in the pipeline's order (tensor_matmul): the same scores */
            for (int p = 0; p < dh; p++)
                dot += q[p * qd] * k[p * kd];
            s[c] = m->cfg.causal && f->c0 + c > f->r0 + r ? -INFINITY : dot * m->scale;
            if (s[c] > mt) mt = s[c];
        }
        double m_old = f->rm[r], m_new = mt > m_old ? mt : m_old;
        double *acc = f->acc + (size_t)r * dh;
        if (m_new != -INFINITY) { /* tile 0 always holds key 0, so every row has one */
            double alpha = tensor_exp(m_old - m_new); /* 0 on the first tile */
            double sum = 0;
            for (int i = 0; i < dh; i++)
                acc[i] *= alpha;
            for (int c = 0; c < nc; c++) {
                double p = tensor_exp(s[c] - m_new); /* 0 where masked */
                if (p == 0) continue;
                const float *v = row_of(V, f->b, f->kv, f->c0 + c);
                sum += p;
                for (int i = 0; i < dh; i++)
                    acc[i] += p * v[i * vd];
            }
            f->rl[r] = alpha * f->rl[r] + sum;
            f->rm[r] = m_new;
        }
        f->tm[r] = (float)f->rm[r];
        f->tl[r] = (float)f->rl[r];
        for (int i = 0; i < dh; i++)
            f->tO[(size_t)r * dh + i] = (float)(acc[i] / f->rl[r]);
    }
}

/* ln x for x > 0 (l >= 1 here), without libm (tensor_exp's reason): x = 2^e f
 * with f in [sqrt(1/2), sqrt(2)), ln f = 2 atanh(t), t = (f - 1) / (f + 1),
 * |t| < 0.172, so 20 odd terms are below 1e-16. */
static double ln(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & ~(0x7ffULL << 52)) | (1023ULL << 52); /* f in [1, 2) */
    double f;
    memcpy(&f, &bits, sizeof f);
    if (f > 1.4142135623730951) f /= 2, e++;
    double t = (f - 1) / (f + 1), t2 = t * t, term = t, sum = 0;
    for (int k = 1; k < 40; k += 2, term *= t2)
        sum += term / k;
    return e * 0.6931471805599453 + 2 * sum;
}

/* After the q tile's last tile: O and the logsumexp m + log l to HBM, once. */
static void write_out(Flash *f)
{
    int dh = f->m->d_head, nr = f->r1 - f->r0;
    for (int r = 0; r < nr; r++) {
        int oi[4] = {f->b, f->h, f->r0 + r, 0}, li[3] = {f->b, f->h, f->r0 + r};
        float *o = f->out->st->data + tensor_offset_of(f->out, oi);
        memcpy(o, f->tO + (size_t)r * dh, (size_t)dh * sizeof *o);
        tensor_set(f->lse, li, (float)(f->rm[r] + ln(f->rl[r])));
    }
    f->bytes_written += (uint64_t)nr * ((uint64_t)dh + 1) * sizeof(float);
    f->rows_done += nr;
}

int flash_step(Flash *f)
{
    const MhaConfig *c = &f->m->cfg;
    if (f->done) return 0;
    if (!advance(f)) {
        f->done = 1;
        f->last = 0;
        return 0;
    }
    int S = c->seq, dh = f->m->d_head;
    f->kv = mha_kv_head_of(c, f->h);
    f->r0 = f->qtile * f->block_q;
    f->r1 = f->r0 + f->block_q < S ? f->r0 + f->block_q : S;
    f->c0 = f->ktile * f->block_k;
    f->c1 = f->c0 + f->block_k < S ? f->c0 + f->block_k : S;
    int nr = f->r1 - f->r0;
    if (f->ktile == 0) { /* a new q tile: Q read once, the running state reset */
        f->bytes_read += (uint64_t)nr * (uint64_t)dh * sizeof(float);
        for (int r = 0; r < nr; r++)
            f->rm[r] = -INFINITY, f->rl[r] = 0;
        memset(f->acc, 0, (size_t)nr * (size_t)dh * sizeof *f->acc);
    }
    f->bytes_read += 2 * (uint64_t)(f->c1 - f->c0) * (uint64_t)dh * sizeof(float); /* K and V */
    run_tile(f);
    f->visited++;
    int next = f->ktile + 1;
    f->last =
        next == f->n_ktiles || flash_skips(S, f->block_q, f->block_k, c->causal, f->qtile, next);
    if (f->last) {
        f->skipped += f->n_ktiles - next;
        write_out(f);
    }
    return 1;
}

int flash_tile_masked(const Flash *f)
{
    int n = 0;
    if (!f->m->cfg.causal) return 0;
    for (int r = f->r0; r < f->r1; r++)
        for (int c = f->c0; c < f->c1; c++)
            n += c > r;
    return n;
}

float flash_check(const Flash *f)
{
    const Tensor *ref = f->m->t[MT_HEAD_OUT]; /* (B, H, S, dh) */
    int S = f->m->cfg.seq, H = f->m->cfg.heads, dh = f->m->d_head;
    float worst = 0;
    for (long row = 0; row < f->rows_done; row++) {
        int b = (int)(row / ((long)H * S)), h = (int)(row / S % H), r = (int)(row % S);
        for (int i = 0; i < dh; i++) {
            int idx[4] = {b, h, r, i};
            float d = tensor_get(f->out, idx) - tensor_get(ref, idx);
            d = d < 0 ? -d : d;
            if (d > worst || d != d) worst = d != d ? 1e30f : d;
        }
    }
    return worst;
}
