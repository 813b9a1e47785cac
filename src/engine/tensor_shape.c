/* tensor_shape.c - the pipeline's int-shape entry points of tensor.h (view,
 * transpose, unsqueeze, narrow, expand, contiguous, repeat_interleave): thin
 * callers of engine/tensorops.h, so the pipeline and the playground share one
 * set of stride rules (PyTorch's computeStride is written once, in
 * tensorops.c).  A result is new storage only where tensorops copies; it is
 * made in the source's engine. */
#include "engine/tensor.h"
#include "engine/tensorops.h"

#include "base/errbuf.h"

#include <string.h>

/* The op context of an int-shape call: new storages (a copy) go to t's
 * engine. */
static OpCtx ctx_of(const Tensor *t)
{
    OpCtx c;
    memset(&c, 0, sizeof c);
    c.type_name = "torch.FloatTensor";
    c.eng = t->st->eng;
    return c;
}

/* r as the pipeline's engine takes it (1 to TENSOR_MAXDIM dims, each >= 1),
 * else NULL with why in err: ctx's reason, or that the result is empty. */
static Tensor *done(Tensor *r, const OpCtx *c, const char *op, char *err, size_t errlen)
{
    if (!r) {
        err_set(err, errlen, "%s", c->err);
        return NULL;
    }
    int empty = r->ndim == 0;
    for (int i = 0; i < r->ndim; i++)
        empty |= r->shape[i] < 1;
    if (!empty) return r;
    tensor_free(r);
    err_set(err, errlen, "%s: the result would be empty or 0-dim (the playground has those)", op);
    return NULL;
}

Tensor *tensor_view(const Tensor *t, int ndim, const int *shape, char *err, size_t errlen)
{
    long sizes[TENSOR_MAXDIM];
    if (ndim < 1 || ndim > TENSOR_MAXDIM) {
        err_set(err, errlen, "view: %d dimensions (at most %d)", ndim, TENSOR_MAXDIM);
        return NULL;
    }
    for (int i = 0; i < ndim; i++)
        sizes[i] = shape[i];
    OpCtx c = ctx_of(t);
    return done(tensorops_view(t, ndim, sizes, &c), &c, "view", err, errlen);
}

Tensor *tensor_transpose(const Tensor *t, int d0, int d1, char *err, size_t errlen)
{
    OpCtx c = ctx_of(t);
    return done(tensorops_transpose(t, d0, d1, &c), &c, "transpose", err, errlen);
}

Tensor *tensor_unsqueeze(const Tensor *t, int dim, char *err, size_t errlen)
{
    OpCtx c = ctx_of(t);
    return done(tensorops_unsqueeze(t, dim, &c), &c, "unsqueeze", err, errlen);
}

Tensor *tensor_narrow(const Tensor *t, int dim, int start, int len, char *err, size_t errlen)
{
    OpCtx c = ctx_of(t);
    return done(tensorops_narrow(t, dim, start, len, &c), &c, "narrow", err, errlen);
}

Tensor *tensor_expand(const Tensor *t, int ndim, const int *shape, char *err, size_t errlen)
{
    long sizes[TENSOR_MAXDIM];
    if (ndim < 1 || ndim > TENSOR_MAXDIM) {
        err_set(err, errlen, "expand: %d dimensions (at most %d)", ndim, TENSOR_MAXDIM);
        return NULL;
    }
    for (int i = 0; i < ndim; i++)
        sizes[i] = shape[i];
    OpCtx c = ctx_of(t);
    return done(tensorops_expand(t, ndim, sizes, &c), &c, "expand", err, errlen);
}

Tensor *tensor_contiguous(const Tensor *t)
{
    OpCtx c = ctx_of(t);
    return done(tensorops_contiguous(t, &c), &c, "contiguous", NULL, 0);
}

Tensor *tensor_repeat_interleave(const Tensor *t, int reps, int dim, char *err, size_t errlen)
{
    OpCtx c = ctx_of(t);
    return done(tensorops_repeat_interleave(t, reps, 1, dim, &c), &c, "repeat_interleave", err,
                errlen);
}
