/* quiz_config.c - the configurations generated questions are asked on:
 * realistic sizes for shapes and strides, toy sizes where the candy bar is
 * drawn. */
#include "content/quiz_gen.h"

MhaConfig qcfg_real(QuizRng *r, int kv_mode, double work_cap)
{
    static const int Ds[] = {64, 128, 256, 384, 512, 768};
    static const int dhs[] = {16, 32, 64, 128};
    static const int Bs[] = {1, 2, 4};
    static const int Ss[] = {4, 8, 16, 32};
    MhaConfig c = mha_config_default();
    for (int tries = 0; tries < 200; tries++) {
        c.d_model = qc_pick(r, Ds, 6);
        int dh = qc_pick(r, dhs, 4);
        /* at least 2 heads: a stride on a size-1 axis is arbitrary, not a question */
        if (c.d_model % dh || c.d_model / dh > 64 || c.d_model / dh < 2) continue;
        c.heads = c.d_model / dh;
        c.batch = qc_pick(r, Bs, 3);
        c.seq = qc_pick(r, Ss, 4);
        if ((double)c.batch * c.seq * c.d_model * c.d_model > work_cap) continue;
        /* distinct sizes, so a swapped pair of dims is a visibly wrong answer */
        if (tries < 150 && (c.seq == dh || c.seq == c.heads || c.heads == dh || c.batch == c.seq ||
                            c.batch == c.heads))
            continue;
        break;
    }
    /* kv_mode: 0 any, 1 shared (GQA or MQA) */
    int mode = kv_mode ? 1 + quiz_rng_below(r, 2) : quiz_rng_below(r, 4); /* 0,3 MHA 1 GQA 2 MQA */
    c.kv_heads = c.heads;
    if (mode == 2 || (mode == 1 && c.heads < 4))
        c.kv_heads = 1;
    else if (mode == 1) {
        int divs[8], nd = 0;
        for (int k = 2; k < c.heads && nd < 8; k++)
            if (c.heads % k == 0) divs[nd++] = k;
        c.kv_heads = nd ? divs[quiz_rng_below(r, nd)] : 1;
    }
    c.seed = (uint32_t)(quiz_rng_next(r) % 1000) + 1;
    return c;
}

MhaConfig qcfg_toy(QuizRng *r, int need_heads2)
{
    static const int Ds[] = {8, 12, 16};
    MhaConfig c = mha_config_default();
    c.batch = 1 + quiz_rng_below(r, 2);
    c.seq = 2 + quiz_rng_below(r, 5);
    c.d_model = Ds[quiz_rng_below(r, 3)];
    int hs[4], nh = 0;
    for (int h = need_heads2 ? 2 : 1; h <= c.d_model / 2 && nh < 4; h++)
        if (c.d_model % h == 0 && c.d_model / h >= 2) hs[nh++] = h;
    c.heads = hs[quiz_rng_below(r, nh)];
    int kvs[8], nk = 0;
    for (int k = 1; k <= c.heads; k++)
        if (c.heads % k == 0) kvs[nk++] = k;
    c.kv_heads = quiz_rng_below(r, 2) ? c.heads : kvs[quiz_rng_below(r, nk)];
    c.seed = (uint32_t)(quiz_rng_next(r) % 1000) + 1;
    return c;
}
