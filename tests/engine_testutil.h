/* engine_testutil.h - helpers shared by the engine's tests: literal shapes
 * and indices, stride assertions that print the strides, a run from a line
 * of sizes, and bit-for-bit comparison with a run's tensor. */
#ifndef MHAVIZ_ENGINE_TESTUTIL_H
#define MHAVIZ_ENGINE_TESTUTIL_H

#include <check.h>

#include <stdio.h>
#include <string.h>

#include "engine/mha.h"
#include "engine/tensor.h"
#include "engine/tensorops.h"

/* DIMS(1, 4, 8) -> 3, (int[]){1, 4, 8}: the (ndim, shape) pair of the engine's API */
#define DIMS(...)                                                                                  \
    (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (int[])                                     \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }
#define IDX(...) ((int[]){__VA_ARGS__})

static inline void tu_assert_shape(const Tensor *t, int ndim, const int *shape)
{
    char got[96];
    ck_assert_msg(t->ndim == ndim, "ndim %d, expected %d", t->ndim, ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_msg(t->shape[i] == shape[i], "shape %s: dim %d expected %d",
                      tensor_fmt_dims(got, sizeof got, t->ndim, t->shape), i, shape[i]);
}

static inline void tu_assert_strides(const Tensor *t, int ndim, const long *strides)
{
    char got[96];
    ck_assert_msg(t->ndim == ndim, "ndim %d, expected %d", t->ndim, ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_msg(t->strides[i] == strides[i], "strides %s: dim %d expected %ld",
                      tensor_fmt_strides(got, sizeof got, t), i, strides[i]);
}

#define SHAPE(t, ...) tu_assert_shape(t, DIMS(__VA_ARGS__))
/* STRIDES(t, 32, 4, 8, 1): t's strides, in elements, as PyTorch's .stride() */
#define STRIDES(t, ...)                                                                            \
    tu_assert_strides(t, (int)(sizeof((long[]){__VA_ARGS__}) / sizeof(long)), (long[]){__VA_ARGS__})

/* A run of "batch seq d_model heads kv_heads causal window rope" (rope: 0
 * off, 1 half, 2 interleaved), as check_mha_prog and check_mha_panel list
 * their configurations. */
static inline Mha *tu_run_flags(const char *flags)
{
    MhaConfig c = mha_config_default();
    char err[256];
    int b, s, d, h, kv, causal, window, rope;
    ck_assert_int_eq(
        sscanf(flags, "%d %d %d %d %d %d %d %d", &b, &s, &d, &h, &kv, &causal, &window, &rope), 8);
    c.batch = b, c.seq = s, c.d_model = d, c.heads = h, c.kv_heads = kv, c.causal = causal;
    c.window = window, c.rope = (RopeLayout)rope;
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_msg(m != NULL, "%s: %s", flags, err);
    return m;
}

/* a and b hold the same floats, bit for bit, in the same shape. */
static inline void tu_same_bits(const Tensor *a, const Tensor *b, const char *what)
{
    ck_assert_int_eq(a->ndim, b->ndim);
    for (int k = 0; k < a->ndim; k++)
        ck_assert_msg(a->shape[k] == b->shape[k], "%s: dim %d is %d, the run's %d", what, k,
                      a->shape[k], b->shape[k]);
    size_t n = tensorops_numel(a);
    int idx[TENSOR_MAXDIM] = {0};
    for (size_t k = 0; k < n; k++) {
        float x = tensor_get(a, idx), y = tensor_get(b, idx);
        ck_assert_msg(!memcmp(&x, &y, sizeof x), "%s: element %zu %.9g vs the run's %.9g", what, k,
                      (double)x, (double)y);
        for (int i = a->ndim - 1; i >= 0 && ++idx[i] == a->shape[i]; i--)
            idx[i] = 0;
    }
}

#endif
