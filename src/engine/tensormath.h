/* tensormath.h - the interpreter's arithmetic on the strided engine, with
 * PyTorch 1.13's geometry and error words: elementwise + - * / ** and the
 * comparisons with broadcasting, cos sin exp sqrt rsqrt, masked_fill, softmax, matmul and the dtype
 * conversions.
 *
 * Every function returns a new tensor (freed with tensor_free) in a new
 * storage of ctx->eng, made within its budget (geo_new_storage), or NULL
 * with a one-line reason in ctx->err.  These are computed results, not
 * copies: nothing is counted as copied (a copy is the same values moved to
 * a new layout; engine/tensorops.h's copies count themselves).  The values
 * live in the engine's floats whatever the dtype: an int64 value is a whole
 * float, a bool 0 or 1; the caller (engine/play_eval.c) keeps the dtype.
 */
#ifndef MHAVIZ_TENSORMATH_H
#define MHAVIZ_TENSORMATH_H

#include "engine/geo.h"
#include "engine/tensor.h"

/* The type an elementwise op computes in (PyTorch's common dtype). */
typedef enum { TM_FLOAT, TM_INT, TM_BOOL } TmType;

/* An operand: a tensor, or (t NULL) a Python number, a 0-dim CPU scalar to
 * PyTorch (it broadcasts and never decides the layout).  cast: the tensor's
 * dtype is not the common one, so PyTorch converts it first (.to(), clone's
 * layout) and the result's layout follows that. */
typedef struct TmArg {
    const Tensor *t;
    double s;
    int cast;
} TmArg;

/* a OP b, op one of '+' '-' '*' '/', 'P' (a ** b: ATen's special cases of
 * the exponent, int64 powers by squaring) and the comparisons 'E' (==), 'N'
 * (!=), '<', 'L' (<=), '>', 'G' (>=) (their results 0 or 1), computed in
 * type (float32 arithmetic for TM_FLOAT; int64 for TM_INT; + is or and * is
 * and for TM_BOOL; a number divided by a tensor is PyTorch's
 * t.reciprocal() * s, layout and bits).  The shape is the broadcast of the two ("The size of
 * tensor a (3) must match the size of tensor b (4) at non-singleton
 * dimension 1"), the strides TensorIterator's: the inputs' order of dims in
 * memory (a contiguous input gives a contiguous result). */
Tensor *tensormath_binary(int op, TmArg a, TmArg b, TmType type, OpCtx *ctx);

/* op of every element of t, in float32: 'c' cos, 's' sin, 'e' exp, 'q'
 * sqrt, 'r' rsqrt (1 / sqrt).  cast: t is int64 or bool, converted first
 * (PyTorch's integer inputs promoted to float: .to()'s layout).  The
 * layout TensorIterator gives one input: its own when dense, else in its
 * order of dims in memory. */
Tensor *tensormath_unary(int op, const Tensor *t, int cast, OpCtx *ctx);

/* self with value wherever mask is nonzero: self and mask broadcast
 * together, the result contiguous (ATen: expand_outplace, then
 * clone(contiguous) and masked_fill_).  A mask that is not bool (is_bool 0)
 * may only hold 0 and 1. */
Tensor *tensormath_masked_fill(const Tensor *self, const Tensor *mask, int is_bool, double value,
                               OpCtx *ctx);

/* softmax over dim (wrapped as PyTorch wraps it), max-subtracted as
 * engine/tensor.c's tensor_softmax_lastdim_ (the same bits as the
 * pipeline's); contiguous. */
Tensor *tensormath_softmax(const Tensor *t, long dim, OpCtx *ctx);

/* torch.matmul: 1-D operands are a vector (dot, mv, the row of a
 * vector-matrix product), the dims before the last two broadcast; the
 * result is contiguous, each element engine/tensor_matmul.c's tensor_matmul sum
 * (the pipeline's bits).  PyTorch's words on a mismatch ("mat1 and mat2
 * shapes cannot be multiplied (2x3 and 2x3)"). */
Tensor *tensormath_matmul(const Tensor *a, const Tensor *b, OpCtx *ctx);
/* Only the shapes' checks of tensormath_matmul: 0, or -1 with the reason. */
int tensormath_matmul_check(const Tensor *a, const Tensor *b, OpCtx *ctx);

/* t's values as type: TM_BOOL gives 1 for nonzero, TM_INT truncates toward
 * zero; the layout as clone's (preserve_format). */
Tensor *tensormath_convert(const Tensor *t, TmType type, OpCtx *ctx);

#endif
