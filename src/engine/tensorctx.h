/* tensorctx.h - what the files of the tensor module share (engine/tensor.c,
 * engine/tensor_matmul.c): the row-major walk over a shape.  Private to
 * them; everything outside goes through engine/tensor.h.
 */
#ifndef MHAVIZ_TENSORCTX_H
#define MHAVIZ_TENSORCTX_H

#include <stddef.h>

/* The number of elements of a shape: the product of its ndim sizes (1 for
 * ndim 0). */
static inline size_t shape_numel(int ndim, const int *shape)
{
    size_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= (size_t)shape[i];
    return n;
}

/* Advances idx (row-major over shape, last axis fastest); 0 when it wraps. */
static inline int next_index(int *idx, int ndim, const int *shape)
{
    for (int i = ndim - 1; i >= 0; i--) {
        if (++idx[i] < shape[i]) return 1;
        idx[i] = 0;
    }
    return 0;
}

#endif
