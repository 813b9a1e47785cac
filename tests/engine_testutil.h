/* engine_testutil.h - helpers shared by check_tensor.c and check_mha.c:
 * literal shapes and indices, and stride assertions that print the strides. */
#ifndef MHAVIZ_ENGINE_TESTUTIL_H
#define MHAVIZ_ENGINE_TESTUTIL_H

#include <check.h>

#include "engine/tensor.h"

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

#endif
