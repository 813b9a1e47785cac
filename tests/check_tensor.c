/* check_tensor.c - the strided-tensor engine: views share storage and move no
 * byte, strides match PyTorch's for the same shapes, the two copies count
 * exactly what they copy, and the kernels (matmul, softmax, mask) agree with
 * naive references on strided inputs.
 *
 * Expected strides are written out by hand, as PyTorch prints them, e.g.
 *   torch.zeros(1, 4, 8).view(1, 4, 2, 4).stride()              == (32, 8, 4, 1)
 *   torch.zeros(1, 4, 8).view(1, 4, 2, 4).transpose(1, 2).stride() == (32, 4, 8, 1)
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "engine/tensor.h"
#include "engine_testutil.h"

static char err[256];
static Engine *E; /* the suite's engine (its storages, its copy count) */

/* A contiguous tensor holding 0, 1, 2, ... */
static Tensor *arange(int ndim, const int *shape)
{
    Tensor *t = tensor_zeros(E, ndim, shape);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < t->st->n; i++)
        t->st->data[i] = (float)i;
    return t;
}

/* A contiguous tensor with small varied values (multiples of 0.25 in [-2, 2]). */
static Tensor *varied(int ndim, const int *shape, unsigned salt)
{
    Tensor *t = tensor_zeros(E, ndim, shape);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < t->st->n; i++)
        t->st->data[i] = (float)((int)((i * 7 + salt * 13 + i * i * 3) % 17) - 8) / 4.0f;
    return t;
}

/* A narrow() view built by hand: elements [start, start+len) of axis d. */
static Tensor *narrow(const Tensor *t, int d, int start, int len)
{
    Tensor *v = tensor_view(t, t->ndim, t->shape, err, sizeof err); /* same storage */
    ck_assert_ptr_nonnull(v);
    v->offset += (size_t)((long)start * t->strides[d]);
    v->shape[d] = len;
    return v;
}

/* ---------------------------------------------------------------- views --- */

START_TEST(test_split_heads_strides_and_storage)
{
    Tensor *q = arange(DIMS(1, 4, 8)); /* (B,S,D) = (1,4,8): Q with 2 heads of 4 */
    size_t before = E->bytes_copied;
    STRIDES(q, 32, 8, 1);
    ck_assert(tensor_is_contiguous(q));

    Tensor *split = tensor_view(q, DIMS(1, 4, 2, 4), err, sizeof err); /* (B,S,H,dh) */
    ck_assert_msg(split != NULL, "%s", err);
    SHAPE(split, 1, 4, 2, 4);
    STRIDES(split, 32, 8, 4, 1);
    ck_assert(tensor_is_contiguous(split));

    Tensor *heads = tensor_transpose(split, 1, 2, err, sizeof err); /* (B,H,S,dh) */
    ck_assert_msg(heads != NULL, "%s", err);
    SHAPE(heads, 1, 2, 4, 4);
    STRIDES(heads, 32, 4, 8, 1);
    ck_assert(!tensor_is_contiguous(heads));

    /* one buffer, relabelled: same storage object, same id, nothing copied */
    ck_assert(tensor_same_storage(q, split) && tensor_same_storage(q, heads));
    ck_assert_int_eq(heads->st->id, q->st->id);
    ck_assert_uint_eq(E->bytes_copied - before, 0);
    ck_assert_uint_eq(q->st->bytes_copied, 0);

    /* heads[0][h][s][d] is Q[0][s][h*4 + d], at offset s*8 + h*4 + d */
    for (int h = 0; h < 2; h++)
        for (int s = 0; s < 4; s++)
            for (int d = 0; d < 4; d++) {
                ck_assert_uint_eq(tensor_offset_of(heads, IDX(0, h, s, d)),
                                  (size_t)(s * 8 + h * 4 + d));
                ck_assert_float_eq(tensor_get(heads, IDX(0, h, s, d)), (float)(s * 8 + h * 4 + d));
            }
    /* offset = b*32 + h*4 + s*8 + d*1: (0,1,2,3) -> 4 + 16 + 3 */
    ck_assert_uint_eq(tensor_offset_of(heads, IDX(0, 1, 2, 3)), 23);

    /* a write through a view is seen through the base: one buffer */
    tensor_set(heads, IDX(0, 1, 2, 3), -5.0f);
    ck_assert_float_eq(tensor_get(q, IDX(0, 2, 7)), -5.0f);

    /* transposing back gives the original layout, contiguous again */
    Tensor *back = tensor_transpose(heads, 1, 2, err, sizeof err);
    STRIDES(back, 32, 8, 4, 1);
    ck_assert(tensor_is_contiguous(back));
    ck_assert_uint_eq(E->bytes_copied - before, 0);

    tensor_free(back);
    tensor_free(heads);
    tensor_free(split);
    tensor_free(q);
}
END_TEST

START_TEST(test_batch2_strides)
{
    /* torch.zeros(2, 3, 6).view(2, 3, 3, 2): (18, 6, 2, 1); .transpose(1, 2): (18, 2, 6, 1) */
    Tensor *q = arange(DIMS(2, 3, 6));
    size_t before = E->bytes_copied;
    Tensor *split = tensor_view(q, DIMS(2, 3, 3, 2), err, sizeof err);
    ck_assert_msg(split != NULL, "%s", err);
    STRIDES(split, 18, 6, 2, 1);
    Tensor *heads = tensor_transpose(split, 1, 2, err, sizeof err);
    SHAPE(heads, 2, 3, 3, 2);
    STRIDES(heads, 18, 2, 6, 1);
    /* negative dims count from the end: transpose(-2, -1) of (2,3,3,2) */
    Tensor *kt = tensor_transpose(heads, -2, -1, err, sizeof err);
    SHAPE(kt, 2, 3, 2, 3);
    STRIDES(kt, 18, 2, 1, 6);
    ck_assert(tensor_same_storage(q, kt));
    ck_assert_uint_eq(E->bytes_copied - before, 0);
    /* batch 1, head 2, token 1, dim 0 -> 18 + 2*2 + 1*6 = 28 */
    ck_assert_uint_eq(tensor_offset_of(heads, IDX(1, 2, 1, 0)), 28);
    ck_assert_float_eq(tensor_get(heads, IDX(1, 2, 1, 0)), 28.0f);
    tensor_free(kt);
    tensor_free(heads);
    tensor_free(split);
    tensor_free(q);
}
END_TEST

/* An empty tensor (a 0 in its shape, expanded or viewed from a real one)
 * has no element: nothing is read, written or scaled (fuzz_lesson found
 * tensor_to_array writing 64 floats of x.expand(0, 2, 2, 4, 4)). */
START_TEST(test_empty_tensor_has_no_elements)
{
    Tensor *k = arange(4, (int[]){1, 2, 4, 4});
    /* k[:, :, None].expand(0, 2, 2, 4, 4), as the playground makes it */
    Tensor *e = tensor_restride(k, 0, 5, (int[]){0, 2, 2, 4, 4}, (long[]){32, 16, 0, 4, 1});
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(tensor_numel(e), 0);
    float out[2] = {42.0f, 42.0f};
    ck_assert_uint_eq(tensor_to_array(e, out), 0);
    ck_assert(out[0] == 42.0f && out[1] == 42.0f);
    tensor_scale_(e, 2.0f);
    for (size_t i = 0; i < k->st->n; i++)
        ck_assert(k->st->data[i] == (float)i); /* the storage untouched */
    tensor_free(e);
    tensor_free(k);
}
END_TEST

START_TEST(test_expand_5d_stride0)
{
    /* K heads (B,KV,S,dh) = (1,2,4,4) from K (1,4,8), shared by G = 3 query heads:
     * k.unsqueeze(2) -> (1,2,1,4,4) strides (32, 4, 32, 8, 1)
     * .expand(1,2,3,4,4) -> strides (32, 4, 0, 8, 1) */
    Tensor *k = arange(DIMS(1, 4, 8));
    size_t before = E->bytes_copied;
    Tensor *split = tensor_view(k, DIMS(1, 4, 2, 4), err, sizeof err);
    Tensor *heads = tensor_transpose(split, 1, 2, err, sizeof err);
    Tensor *un = tensor_unsqueeze(heads, 2, err, sizeof err);
    ck_assert_msg(un != NULL, "%s", err);
    SHAPE(un, 1, 2, 1, 4, 4);
    STRIDES(un, 32, 4, 32, 8, 1);
    Tensor *ex = tensor_expand(un, DIMS(1, 2, 3, 4, 4), err, sizeof err);
    ck_assert_msg(ex != NULL, "%s", err);
    SHAPE(ex, 1, 2, 3, 4, 4);
    STRIDES(ex, 32, 4, 0, 8, 1);
    ck_assert(!tensor_is_contiguous(ex));
    ck_assert(tensor_same_storage(ex, k));
    ck_assert_int_eq(ex->st->id, k->st->id);
    ck_assert_uint_eq(E->bytes_copied - before, 0);
    /* every copy g reads the same cell */
    for (int g = 0; g < 3; g++)
        ck_assert_uint_eq(tensor_offset_of(ex, IDX(0, 1, g, 2, 3)), 4 + 16 + 3);

    /* -1 keeps a size; expanding a non-singleton axis is refused as in PyTorch */
    Tensor *same = tensor_expand(un, DIMS(-1, -1, 3, -1, -1), err, sizeof err);
    ck_assert_ptr_nonnull(same);
    STRIDES(same, 32, 4, 0, 8, 1);
    ck_assert_ptr_null(tensor_expand(un, DIMS(1, 3, 3, 4, 4), err, sizeof err));
    ck_assert_str_eq(err, "The expanded size of the tensor (3) must match the existing size (2) at "
                          "non-singleton dimension 1.  Target sizes: [1, 3, 3, 4, 4].  Tensor "
                          "sizes: [1, 2, 1, 4, 4]"); /* PyTorch 1.13's words */
    ck_assert_ptr_null(tensor_expand(un, DIMS(1, 2, 3, 4), err, sizeof err));
    ck_assert_ptr_null(tensor_expand(un, DIMS(1, 2, 0, 4, 4), err, sizeof err));

    /* unsqueeze at the end and from the back */
    Tensor *u_end = tensor_unsqueeze(heads, -1, err, sizeof err);
    SHAPE(u_end, 1, 2, 4, 4, 1);
    STRIDES(u_end, 32, 4, 8, 1, 1);
    ck_assert_ptr_null(tensor_unsqueeze(heads, 5, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "out of range"));

    tensor_free(u_end);
    tensor_free(same);
    tensor_free(ex);
    tensor_free(un);
    tensor_free(heads);
    tensor_free(split);
    tensor_free(k);
}
END_TEST

/* --------------------------------------------------------------- copies --- */

/* narrow(W, 1, h*dh, dh): the column slice of one head, a view at offset
 * h*dh with W's strides; out-of-range slices are refused. */
START_TEST(test_narrow_is_a_view)
{
    float w[8 * 8];
    for (int i = 0; i < 64; i++)
        w[i] = (float)i;
    Tensor *W = tensor_from_data(E, 2, (int[]){8, 8}, w); /* (D, D) */
    size_t before = E->bytes_copied;
    Tensor *cols = tensor_narrow(W, 1, 4, 4, err, sizeof err); /* W[:, 4:8] */
    ck_assert_ptr_nonnull(cols);
    ck_assert(tensor_same_storage(W, cols));
    ck_assert_uint_eq(E->bytes_copied, before);
    ck_assert_uint_eq(cols->offset, 4);
    ck_assert_int_eq(cols->shape[0], 8);
    ck_assert_int_eq(cols->shape[1], 4);
    ck_assert_int_eq(cols->strides[0], 8);
    ck_assert_int_eq(cols->strides[1], 1);
    ck_assert(!tensor_is_contiguous(cols));
    ck_assert(tensor_get(cols, (int[]){2, 1}) == 21.0f); /* W[2, 5] */
    ck_assert_ptr_null(tensor_narrow(W, 1, 6, 4, err, sizeof err));
    ck_assert_str_eq(err, "start (6) + length (4) exceeds dimension size (8)."); /* PyTorch's */
    ck_assert_ptr_null(tensor_narrow(W, 2, 0, 1, err, sizeof err));
    tensor_free(cols);
    tensor_free(W);
}
END_TEST

START_TEST(test_contiguous_copies_exactly_numel)
{
    Tensor *q = arange(DIMS(1, 4, 8));
    Tensor *split = tensor_view(q, DIMS(1, 4, 2, 4), err, sizeof err);
    Tensor *heads = tensor_transpose(split, 1, 2, err, sizeof err); /* (1,2,4,4), (32,4,8,1) */

    /* already contiguous: no copy, the same storage */
    size_t before = E->bytes_copied;
    Tensor *c0 = tensor_contiguous(split);
    ck_assert(tensor_same_storage(c0, q));
    ck_assert_uint_eq(E->bytes_copied - before, 0);

    /* the transposed heads: a new buffer, numel * 4 bytes counted */
    Tensor *c = tensor_contiguous(heads);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(E->bytes_copied - before, 32 * sizeof(float));
    ck_assert_uint_eq(E->bytes_copied - before, tensor_numel(heads) * 4);
    ck_assert_uint_eq(c->st->bytes_copied, 128);
    ck_assert_uint_eq(q->st->bytes_copied, 0);
    ck_assert(!tensor_same_storage(c, q));
    ck_assert_int_ne(c->st->id, q->st->id);
    SHAPE(c, 1, 2, 4, 4);
    STRIDES(c, 32, 16, 4, 1);
    ck_assert(tensor_is_contiguous(c));
    /* the new buffer holds head 0 (all tokens), then head 1 */
    static const float want[32] = {0, 1, 2, 3, 8,  9,  10, 11, 16, 17, 18, 19, 24, 25, 26, 27,
                                   4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31};
    for (int i = 0; i < 32; i++)
        ck_assert_float_eq(c->st->data[i], want[i]);

    /* now it can be viewed as (1, 8, 4), and values are the logical ones */
    Tensor *v = tensor_view(c, DIMS(1, 8, 4), err, sizeof err);
    ck_assert_msg(v != NULL, "%s", err);
    ck_assert_float_eq(tensor_get(v, IDX(0, 4, 0)), 4.0f);

    tensor_free(v);
    tensor_free(c);
    tensor_free(c0);
    tensor_free(heads);
    tensor_free(split);
    tensor_free(q);
}
END_TEST

/* .contiguous() of views at an offset, as PyTorch 1.13 does them, with x =
 * torch.arange(12.).view(4, 3):
 *   x[1:3]       offset 3, (3, 1), contiguous: itself, offset 3, no copy
 *   x[:, 1:]     offset 1, (3, 1): a copy at offset 0, strides (2, 1),
 *                [1, 2, 4, 5, 7, 8, 10, 11]
 *   x.t()[1:]    offset 1, (1, 3): a copy, strides (4, 1),
 *                [1, 4, 7, 10, 2, 5, 8, 11]
 * The copy reads from the view's offset and counts numel * 4 bytes. */
START_TEST(test_contiguous_of_offset_views)
{
    Tensor *x = arange(DIMS(4, 3));
    Tensor *xt = tensor_transpose(x, 0, 1, err, sizeof err);
    Tensor *rows = tensor_narrow(x, 0, 1, 2, err, sizeof err);
    Tensor *cols = tensor_narrow(x, 1, 1, 2, err, sizeof err);
    Tensor *tcols = tensor_narrow(xt, 0, 1, 2, err, sizeof err);
    static const float want_cols[8] = {1, 2, 4, 5, 7, 8, 10, 11};
    static const float want_tcols[8] = {1, 4, 7, 10, 2, 5, 8, 11};
    size_t before = E->bytes_copied;
    ck_assert_ptr_nonnull(rows);
    ck_assert_ptr_nonnull(cols);
    ck_assert_ptr_nonnull(tcols);

    Tensor *c = tensor_contiguous(rows); /* already contiguous: the same bytes */
    ck_assert(tensor_is_contiguous(rows));
    ck_assert(tensor_same_storage(c, x));
    ck_assert_uint_eq(c->offset, 3);
    SHAPE(c, 2, 3);
    STRIDES(c, 3, 1);
    ck_assert_float_eq(tensor_get(c, IDX(0, 0)), 3.0f);
    ck_assert_float_eq(tensor_get(c, IDX(1, 2)), 8.0f);
    ck_assert_uint_eq(E->bytes_copied - before, 0);
    tensor_free(c);

    ck_assert_uint_eq(cols->offset, 1);
    ck_assert(!tensor_is_contiguous(cols));
    c = tensor_contiguous(cols);
    ck_assert(!tensor_same_storage(c, x));
    ck_assert_uint_eq(c->offset, 0);
    SHAPE(c, 4, 2);
    STRIDES(c, 2, 1);
    ck_assert_uint_eq(c->st->n, 8);
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(c->st->data[i], want_cols[i]);
    ck_assert_uint_eq(E->bytes_copied - before, 8 * sizeof(float));
    tensor_free(c);

    ck_assert_uint_eq(tcols->offset, 1);
    STRIDES(tcols, 1, 3);
    c = tensor_contiguous(tcols);
    ck_assert_uint_eq(c->offset, 0);
    SHAPE(c, 2, 4);
    STRIDES(c, 4, 1);
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(c->st->data[i], want_tcols[i]);
    ck_assert_uint_eq(E->bytes_copied - before, 16 * sizeof(float));
    ck_assert_uint_eq(x->st->bytes_copied, 0);
    tensor_free(c);

    tensor_free(tcols);
    tensor_free(cols);
    tensor_free(rows);
    tensor_free(xt);
    tensor_free(x);
}
END_TEST

START_TEST(test_clone_compute_counts_nothing)
{
    Tensor *q = arange(DIMS(2, 3));
    Tensor *t = tensor_transpose(q, 0, 1, err, sizeof err);
    size_t before = E->bytes_copied;
    Tensor *c = tensor_clone_compute(t);
    ck_assert_uint_eq(E->bytes_copied - before, 0);
    ck_assert(!tensor_same_storage(c, q));
    static const float want[6] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(c->st->data[i], want[i]);
    tensor_free(c);
    tensor_free(t);
    tensor_free(q);
}
END_TEST

START_TEST(test_repeat_interleave)
{
    /* K heads (1,2,3,2) -> (1,6,3,2): head j of the result is head j / 3 */
    Tensor *k = arange(DIMS(1, 3, 4));
    Tensor *split = tensor_view(k, DIMS(1, 3, 2, 2), err, sizeof err);
    Tensor *heads = tensor_transpose(split, 1, 2, err, sizeof err); /* non-contiguous input */
    size_t before = E->bytes_copied;
    Tensor *r = tensor_repeat_interleave(heads, 3, 1, err, sizeof err);
    ck_assert_msg(r != NULL, "%s", err);
    SHAPE(r, 1, 6, 3, 2);
    STRIDES(r, 36, 6, 2, 1);
    ck_assert_uint_eq(E->bytes_copied - before, 36 * 4);
    ck_assert_uint_eq(r->st->bytes_copied, 144);
    ck_assert(!tensor_same_storage(r, k));
    for (int h = 0; h < 6; h++)
        for (int s = 0; s < 3; s++)
            for (int d = 0; d < 2; d++)
                ck_assert_float_eq(tensor_get(r, IDX(0, h, s, d)),
                                   tensor_get(heads, IDX(0, h / 3, s, d)));
    /* dim from the end; reps 1 still copies (a new buffer) */
    Tensor *r1 = tensor_repeat_interleave(heads, 1, -3, err, sizeof err);
    ck_assert_ptr_nonnull(r1);
    SHAPE(r1, 1, 2, 3, 2);
    ck_assert_uint_eq(E->bytes_copied - before, 36 * 4 + 12 * 4);
    ck_assert_ptr_null(tensor_repeat_interleave(heads, 0, 1, err, sizeof err));
    ck_assert_ptr_null(tensor_repeat_interleave(heads, 2, 4, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "out of range"));
    tensor_free(r1);
    tensor_free(r);
    tensor_free(heads);
    tensor_free(split);
    tensor_free(k);
}
END_TEST

/* ----------------------------------------------------- refused views --- */

START_TEST(test_view_noncontiguous_refused)
{
    Tensor *q = arange(DIMS(2, 4, 8));
    Tensor *split = tensor_view(q, DIMS(2, 4, 4, 2), err, sizeof err);
    Tensor *heads = tensor_transpose(split, 1, 2, err, sizeof err); /* (2,4,4,2), (32,2,8,1) */
    STRIDES(heads, 32, 2, 8, 1);
    Tensor *out = tensor_contiguous(heads);                      /* head_out, (2,4,4,2) */
    Tensor *back = tensor_transpose(out, 1, 2, err, sizeof err); /* merged (B,S,H,dh) */
    STRIDES(out, 32, 8, 2, 1);
    STRIDES(back, 32, 2, 8, 1);
    size_t before = E->bytes_copied;

    /* merged (B,S,H,dh) -> (B,S,D) without .contiguous(): PyTorch refuses */
    err[0] = 0;
    ck_assert_ptr_null(tensor_view(back, DIMS(2, 4, 8), err, sizeof err));
    ck_assert_str_eq(err,
                     "view size is not compatible with input tensor's size and stride (at least "
                     "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                     "instead.");
    ck_assert_ptr_null(tensor_view(heads, DIMS(2, 64), err, sizeof err));
    ck_assert_ptr_null(tensor_view(heads, DIMS(-1), err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "Use .reshape(...) instead."));
    /* (B,H,S*dh) merges S and dh, whose strides are 8 and 1: refused too */
    ck_assert_ptr_null(tensor_view(heads, DIMS(2, 4, 8), err, sizeof err));

    /* splitting the head axis is fine: (B,KV,G,S,dh) = (2,2,2,4,2),
     * PyTorch: torch.zeros(2,4,8).view(2,4,4,2).transpose(1,2).view(2,2,2,4,2).stride()
     * == (32, 4, 2, 8, 1) */
    Tensor *grouped = tensor_view(heads, DIMS(2, 2, 2, 4, 2), err, sizeof err);
    ck_assert_msg(grouped != NULL, "%s", err);
    STRIDES(grouped, 32, 4, 2, 8, 1);
    ck_assert(tensor_same_storage(grouped, q));
    ck_assert_float_eq(tensor_get(grouped, IDX(1, 1, 0, 3, 1)), tensor_get(heads, IDX(1, 2, 3, 1)));
    /* and merging it back into heads */
    Tensor *regroup = tensor_view(grouped, DIMS(2, 4, 4, 2), err, sizeof err);
    ck_assert_msg(regroup != NULL, "%s", err);
    STRIDES(regroup, 32, 2, 8, 1);
    /* merging B with H needs B's stride 32 == 4 * H's stride 2: refused */
    ck_assert_ptr_null(tensor_view(heads, DIMS(8, 4, 2), err, sizeof err));
    /* the usual way out: .contiguous() (the one copy), then the view works */
    Tensor *mc = tensor_contiguous(back);
    Tensor *concat = tensor_view(mc, DIMS(2, 4, 8), err, sizeof err);
    ck_assert_msg(concat != NULL, "%s", err);
    STRIDES(concat, 32, 8, 1);
    ck_assert(tensor_same_storage(concat, mc));
    ck_assert_uint_eq(E->bytes_copied - before, 64 * 4); /* only mc copied */

    tensor_free(concat);
    tensor_free(mc);
    tensor_free(regroup);
    tensor_free(grouped);
    tensor_free(back);
    tensor_free(out);
    tensor_free(heads);
    tensor_free(split);
    tensor_free(q);
}
END_TEST

START_TEST(test_view_infer_and_bad_shapes)
{
    Tensor *q = arange(DIMS(1, 4, 8));
    Tensor *v = tensor_view(q, DIMS(-1, 8), err, sizeof err);
    ck_assert_msg(v != NULL, "%s", err);
    SHAPE(v, 4, 8);
    STRIDES(v, 8, 1);
    Tensor *w = tensor_view(q, DIMS(2, -1, 4), err, sizeof err);
    SHAPE(w, 2, 4, 4);
    STRIDES(w, 16, 4, 1);
    Tensor *flat = tensor_view(q, DIMS(-1), err, sizeof err);
    SHAPE(flat, 32);
    STRIDES(flat, 1);

    ck_assert_ptr_null(tensor_view(q, DIMS(-1, 5), err, sizeof err));
    ck_assert_str_eq(err, "shape '[-1, 5]' is invalid for input of size 32");
    ck_assert_ptr_null(tensor_view(q, DIMS(3, 8), err, sizeof err));
    ck_assert_str_eq(err, "shape '[3, 8]' is invalid for input of size 32");
    ck_assert_ptr_null(tensor_view(q, DIMS(-1, -1), err, sizeof err)); /* one -1 at most */
    ck_assert_str_eq(err, "only one dimension can be inferred");
    ck_assert_ptr_null(tensor_view(q, DIMS(0, 32), err, sizeof err));
    ck_assert_ptr_null(tensor_view(q, DIMS(-2, -16), err, sizeof err));
    ck_assert_str_eq(err, "invalid shape dimension -2"); /* PyTorch's words */
    ck_assert_ptr_null(tensor_view(q, 0, IDX(1), err, sizeof err));
    ck_assert_ptr_null(
        tensor_view(q, TENSOR_MAXDIM + 1, IDX(1, 1, 1, 1, 1, 1, 32), err, sizeof err));
    ck_assert_ptr_null(tensor_transpose(q, 0, 3, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "got 3"));
    ck_assert_ptr_null(tensor_transpose(q, -4, 0, err, sizeof err));
    /* err may be NULL */
    ck_assert_ptr_null(tensor_view(q, DIMS(5, 5), NULL, 0));

    /* creation refuses empty or too many dims */
    ck_assert_ptr_null(tensor_zeros(E, DIMS(2, 0)));
    ck_assert_ptr_null(tensor_zeros(E, DIMS(-1, 3)));
    ck_assert_ptr_null(tensor_zeros(E, 0, IDX(1)));
    ck_assert_ptr_null(tensor_zeros(E, TENSOR_MAXDIM + 1, IDX(1, 1, 1, 1, 1, 1, 1)));

    tensor_free(flat);
    tensor_free(w);
    tensor_free(v);
    tensor_free(q);
}
END_TEST

START_TEST(test_view_outlives_base)
{
    Tensor *q = arange(DIMS(2, 6));
    Tensor *v = tensor_view(q, DIMS(3, 4), err, sizeof err);
    ck_assert_int_eq(q->st->refs, 2);
    tensor_free(q); /* the view keeps the storage alive */
    ck_assert_int_eq(v->st->refs, 1);
    ck_assert_float_eq(tensor_get(v, IDX(2, 3)), 11.0f);
    tensor_free(v);
}
END_TEST

/* Ids and the copy count belong to an engine: each numbers from S1 and
 * counts its own copies, whatever other engines do. */
START_TEST(test_engine_ids_and_copies)
{
    Engine *e = engine_new(NULL), *other = engine_new(NULL);
    Tensor *a = tensor_zeros(e, DIMS(2, 2));
    Tensor *b = tensor_from_data(e, DIMS(2, 2), (float[]){1, 2, 3, 4});
    Tensor *o = tensor_zeros(other, DIMS(2, 2));
    ck_assert_int_eq(a->st->id, 1);
    ck_assert_int_eq(b->st->id, 2);
    ck_assert_int_eq(o->st->id, 1);
    ck_assert_uint_eq(e->bytes_copied, 0);
    ck_assert_uint_eq(e->live, 8 * sizeof(float));
    ck_assert_float_eq(tensor_get(b, IDX(1, 0)), 3.0f);
    Tensor *t = tensor_transpose(b, 0, 1, err, sizeof err);
    Tensor *c = tensor_contiguous(t); /* a copy made from b: in b's engine */
    ck_assert_ptr_eq(c->st->eng, e);
    ck_assert_int_eq(c->st->id, 3);
    ck_assert_uint_eq(e->bytes_copied, 16);
    ck_assert_uint_eq(other->bytes_copied, 0);
    Engine *after = engine_new(e); /* numbers after e's */
    Tensor *n = tensor_zeros(after, DIMS(1));
    ck_assert_int_eq(n->st->id, 4);
    engine_release(after); /* n keeps it */
    engine_release(e);     /* a, b, c keep it */
    engine_release(other);
    tensor_free(n);
    tensor_free(o);
    tensor_free(c);
    tensor_free(t);
    ck_assert_uint_eq(b->st->eng->live, 8 * sizeof(float));
    tensor_free(b);
    tensor_free(a);
}
END_TEST

START_TEST(test_format)
{
    char buf[64];
    Tensor *q = arange(DIMS(1, 4, 8));
    Tensor *v = tensor_view(q, DIMS(1, 4, 2, 4), err, sizeof err);
    Tensor *t = tensor_transpose(v, 1, 2, err, sizeof err);
    ck_assert_str_eq(tensor_fmt_dims(buf, sizeof buf, t->ndim, t->shape), "(1, 2, 4, 4)");
    ck_assert_str_eq(tensor_fmt_strides(buf, sizeof buf, t), "(32, 4, 8, 1)");
    ck_assert_str_eq(tensor_fmt_dims(buf, sizeof buf, 1, IDX(5)), "(5,)");
    /* a short buffer truncates, never overflows */
    char tiny[6];
    tensor_fmt_strides(tiny, sizeof tiny, t);
    ck_assert_uint_lt(strlen(tiny), sizeof tiny);
    tensor_free(t);
    tensor_free(v);
    tensor_free(q);
}
END_TEST

/* --------------------------------------------------------------- matmul --- */

/* c (..., m, n) against the textbook triple loop over logical indices. */
static void assert_matmul_naive(const Tensor *a, const Tensor *b, const Tensor *c)
{
    int nd = a->ndim, m = a->shape[nd - 2], k = a->shape[nd - 1], n = b->shape[b->ndim - 1];
    int lead = 1;
    for (int i = 0; i < nd - 2; i++)
        lead *= a->shape[i];
    for (int L = 0; L < lead; L++) {
        int ia[TENSOR_MAXDIM], ib[TENSOR_MAXDIM];
        int rem = L;
        for (int i = nd - 3; i >= 0; i--) {
            ia[i] = rem % a->shape[i];
            rem /= a->shape[i];
        }
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    ia[nd - 2] = i, ia[nd - 1] = p;
                    if (b->ndim == 2)
                        ib[0] = p, ib[1] = j;
                    else {
                        for (int q = 0; q < nd - 2; q++)
                            ib[q] = ia[q];
                        ib[nd - 2] = p, ib[nd - 1] = j;
                    }
                    s += (double)tensor_get(a, ia) * tensor_get(b, ib);
                }
                ia[nd - 2] = i, ia[nd - 1] = j;
                ck_assert_msg(fabs(tensor_get(c, ia) - s) < 1e-4, "matmul mismatch: %g vs %g",
                              (double)tensor_get(c, ia), s);
            }
    }
}

START_TEST(test_matmul_transposed_inputs)
{
    /* scores = Q_heads @ K_heads^T: both operands non-contiguous views */
    Tensor *q = varied(DIMS(2, 3, 8), 1), *k = varied(DIMS(2, 3, 8), 2);
    Tensor *qs = tensor_view(q, DIMS(2, 3, 2, 4), err, sizeof err);
    Tensor *ks = tensor_view(k, DIMS(2, 3, 2, 4), err, sizeof err);
    Tensor *qh = tensor_transpose(qs, 1, 2, err, sizeof err); /* (2,2,3,4) */
    Tensor *kh = tensor_transpose(ks, 1, 2, err, sizeof err);
    Tensor *kt = tensor_transpose(kh, -2, -1, err, sizeof err); /* (2,2,4,3) */
    size_t before = E->bytes_copied;
    Tensor *s = tensor_matmul(qh, kt, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    ck_assert_uint_eq(E->bytes_copied - before, 0); /* compute, not a copy */
    SHAPE(s, 2, 2, 3, 3);
    STRIDES(s, 18, 9, 3, 1);
    assert_matmul_naive(qh, kt, s);
    tensor_free(s);
    tensor_free(kt);
    tensor_free(kh);
    tensor_free(qh);
    tensor_free(ks);
    tensor_free(qs);
    tensor_free(k);
    tensor_free(q);
}
END_TEST

START_TEST(test_matmul_expanded_and_offset)
{
    /* A (1,2,3,3,4) @ K expanded (1,2,3,4,5) with stride 0 on the group axis */
    Tensor *a = varied(DIMS(1, 2, 3, 3, 4), 3);
    Tensor *k = varied(DIMS(1, 2, 1, 4, 5), 4);
    Tensor *ke = tensor_expand(k, DIMS(1, 2, 3, 4, 5), err, sizeof err);
    ck_assert_int_eq(ke->strides[2], 0);
    Tensor *c = tensor_matmul(a, ke, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    SHAPE(c, 1, 2, 3, 3, 5);
    assert_matmul_naive(a, ke, c);
    /* every group g used the same K: rows of c for g = 0 and g = 2 agree when a's do */
    tensor_free(c);

    /* offset views: columns 2..4 of a (6, 7) matrix times rows 1..3 of a (5, 4) */
    Tensor *big = varied(DIMS(6, 7), 5), *w = varied(DIMS(5, 4), 6);
    Tensor *cols = narrow(big, 1, 2, 3); /* (6, 3), offset 2, strides (7, 1) */
    Tensor *rows = narrow(w, 0, 1, 3);   /* (3, 4), offset 4, strides (4, 1) */
    ck_assert_uint_eq(cols->offset, 2);
    ck_assert_uint_eq(rows->offset, 4);
    Tensor *d = tensor_matmul(cols, rows, err, sizeof err);
    ck_assert_msg(d != NULL, "%s", err);
    SHAPE(d, 6, 4);
    assert_matmul_naive(cols, rows, d);
    /* the offset view of a transposed matrix, to mix all three */
    Tensor *wt = tensor_transpose(w, 0, 1, err, sizeof err); /* (4, 5), strides (1, 4) */
    Tensor *wtn = narrow(wt, 1, 2, 3);                       /* (4, 3), offset 8 */
    Tensor *big4 = narrow(big, 1, 3, 4);                     /* (6, 4) */
    Tensor *e = tensor_matmul(big4, wtn, err, sizeof err);
    ck_assert_msg(e != NULL, "%s", err);
    assert_matmul_naive(big4, wtn, e);

    tensor_free(e);
    tensor_free(big4);
    tensor_free(wtn);
    tensor_free(wt);
    tensor_free(d);
    tensor_free(rows);
    tensor_free(cols);
    tensor_free(w);
    tensor_free(big);
    tensor_free(ke);
    tensor_free(k);
    tensor_free(a);
}
END_TEST

START_TEST(test_matmul_weight_broadcast_and_errors)
{
    /* x (2,3,4) @ W (4,5): W shared by every batch index, as x @ W_Q */
    Tensor *x = varied(DIMS(2, 3, 4), 7), *w = varied(DIMS(4, 5), 8);
    Tensor *y = tensor_matmul(x, w, err, sizeof err);
    ck_assert_msg(y != NULL, "%s", err);
    SHAPE(y, 2, 3, 5);
    STRIDES(y, 15, 5, 1);
    assert_matmul_naive(x, w, y);
    /* same numbers as doing each batch row by hand with a 2-D matmul */
    Tensor *x1 = tensor_view(x, DIMS(6, 4), err, sizeof err);
    Tensor *y1 = tensor_matmul(x1, w, err, sizeof err);
    float a[30], b[30];
    tensor_to_array(y, a);
    tensor_to_array(y1, b);
    for (int i = 0; i < 30; i++)
        ck_assert_float_eq_tol(a[i], b[i], 1e-6);

    /* a worked 2x2 case: [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]] */
    Tensor *p = tensor_from_data(E, DIMS(2, 2), (float[]){1, 2, 3, 4});
    Tensor *q = tensor_from_data(E, DIMS(2, 2), (float[]){5, 6, 7, 8});
    Tensor *r = tensor_matmul(p, q, err, sizeof err);
    ck_assert_float_eq(r->st->data[0], 19.0f);
    ck_assert_float_eq(r->st->data[1], 22.0f);
    ck_assert_float_eq(r->st->data[2], 43.0f);
    ck_assert_float_eq(r->st->data[3], 50.0f);

    /* inner sizes or batch sizes that differ are refused */
    Tensor *bad = varied(DIMS(5, 5), 9);
    ck_assert_ptr_null(tensor_matmul(x, bad, err, sizeof err));
    ck_assert_str_eq(err, "matmul: shapes (2, 3, 4) and (5, 5) cannot be multiplied");
    Tensor *z = varied(DIMS(3, 4, 2), 10);
    ck_assert_ptr_null(tensor_matmul(x, z, err, sizeof err));
    Tensor *v1 = varied(DIMS(4), 11);
    ck_assert_ptr_null(tensor_matmul(v1, w, err, sizeof err));

    tensor_free(v1);
    tensor_free(z);
    tensor_free(bad);
    tensor_free(r);
    tensor_free(q);
    tensor_free(p);
    tensor_free(y1);
    tensor_free(x1);
    tensor_free(y);
    tensor_free(w);
    tensor_free(x);
}
END_TEST

/* ------------------------------------ the blocked kernel, the same bits --- */

/* c's logical values with the simple kernel and with the blocked one on 1, 2
 * and 3 threads, widest and 4-float tiles: every bit the same (each output is
 * one sum over k in order). */
static void assert_kernels_agree(const Tensor *a, const Tensor *b)
{
    Tensor *c[5];
    static const int modes[5][2] = {{1, TENSOR_MATMUL_SIMPLE},
                                    {1, TENSOR_MATMUL_WIDEST},
                                    {2, TENSOR_MATMUL_WIDEST},
                                    {3, TENSOR_MATMUL_WIDEST},
                                    {2, TENSOR_MATMUL_NARROW}};
    for (int i = 0; i < 5; i++) {
        tensor_matmul_mode(modes[i][0], modes[i][1]);
        c[i] = tensor_matmul(a, b, err, sizeof err);
        ck_assert_msg(c[i] != NULL, "%s", err);
    }
    tensor_matmul_mode(0, 0);
    size_t n = tensor_numel(c[0]);
    for (int i = 1; i < 5; i++) {
        ck_assert_uint_eq(tensor_numel(c[i]), n);
        for (size_t j = 0; j < n; j++)
            ck_assert_msg(!memcmp(&c[0]->st->data[j], &c[i]->st->data[j], sizeof(float)),
                          "mode %d, element %zu: %a vs %a (simple)", i, j,
                          (double)c[i]->st->data[j], (double)c[0]->st->data[j]);
    }
    for (int i = 0; i < 5; i++)
        tensor_free(c[i]);
}

/* Values with every bit of rounding in play (not multiples of 1/4), some -0. */
static Tensor *rough(int ndim, const int *shape, unsigned salt)
{
    Tensor *t = tensor_zeros(E, ndim, shape);
    ck_assert_ptr_nonnull(t);
    uint32_t x = 2463534242u + salt;
    for (size_t i = 0; i < t->st->n; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift32 */
        t->st->data[i] = x % 97 == 0 ? -0.0f : ((float)(x % 20001) - 10000.0f) / 3331.0f;
    }
    return t;
}

START_TEST(test_matmul_blocked_same_bits)
{
    /* sizes around the tile (6 x 8) and work item (48 rows) edges, and past
     * the threading threshold (4M multiply-adds) */
    static const int sizes[][3] = {{1, 1, 1},  {5, 7, 9},    {6, 8, 3},     {7, 9, 17},
                                   {48, 8, 8}, {49, 33, 15}, {97, 100, 41}, {200, 150, 160}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int m = sizes[i][0], k = sizes[i][1], n = sizes[i][2];
        Tensor *a = rough(DIMS(m, k), (unsigned)i), *b = rough(DIMS(k, n), (unsigned)i + 50);
        assert_kernels_agree(a, b);
        /* B transposed (columns contiguous, as K^T), A transposed (strided rows) */
        Tensor *bt0 = rough(DIMS(n, k), (unsigned)i + 7), *at0 = rough(DIMS(k, m), (unsigned)i + 9);
        Tensor *bt = tensor_transpose(bt0, 0, 1, err, sizeof err);
        Tensor *at = tensor_transpose(at0, 0, 1, err, sizeof err);
        assert_kernels_agree(a, bt);
        assert_kernels_agree(at, bt);
        tensor_free(at), tensor_free(bt), tensor_free(at0), tensor_free(bt0);
        tensor_free(a), tensor_free(b);
    }
    /* batched, B expanded with stride 0 (GQA's K), and x @ W shared by the batch */
    Tensor *a5 = rough(DIMS(2, 2, 3, 50, 24), 1), *k5 = rough(DIMS(2, 2, 1, 24, 70), 2);
    Tensor *ke = tensor_expand(k5, DIMS(2, 2, 3, 24, 70), err, sizeof err);
    assert_kernels_agree(a5, ke);
    Tensor *x = rough(DIMS(3, 130, 256), 3), *w = rough(DIMS(256, 200), 4);
    assert_kernels_agree(x, w); /* 3 * 130 * 256 * 200: threaded */
    Tensor *cols = narrow(x, 2, 5, 200);
    Tensor *wt = tensor_transpose(w, 0, 1, err, sizeof err); /* (200, 256) */
    assert_kernels_agree(cols, wt);
    tensor_free(wt), tensor_free(cols), tensor_free(w), tensor_free(x);
    tensor_free(ke), tensor_free(k5), tensor_free(a5);
}
END_TEST

/* The softmax as the engine had it, one scalar tensor_exp at a time: the
 * paired exp and the threaded rows give its bits. */
static void softmax_reference(float *row, int n)
{
    float mx = -INFINITY;
    for (int j = 0; j < n; j++)
        if (row[j] > mx) mx = row[j];
    double sum = 0;
    for (int j = 0; j < n; j++) {
        float e = (float)tensor_exp(row[j] - mx);
        row[j] = e;
        sum += e;
    }
    for (int j = 0; j < n; j++)
        row[j] = (float)(row[j] / sum);
}

/* tensor_exp against libm's exp: within one rounding (2^-52 relative) from
 * -745 to 709, and exact at 0 and at the powers of two it scales by. */
START_TEST(test_exp_accurate)
{
    double worst = 0;
    for (double x = -745.0; x <= 709.0; x += 0.000731) {
        double want = exp(x);
        if (want < 1e-300) continue; /* subnormal: both round to few bits */
        double rel = fabs(tensor_exp(x) / want - 1.0);
        if (rel > worst) worst = rel;
    }
    for (double x = -30.0; x <= 0.0; x += 1e-5) { /* where a softmax lives */
        double rel = fabs(tensor_exp(x) / exp(x) - 1.0);
        if (rel > worst) worst = rel;
    }
    ck_assert_msg(worst <= 0x1p-52, "worst relative error %g", worst);
    ck_assert(tensor_exp(0.0) == 1.0);
    ck_assert(tensor_exp(-1000.0) == 0.0);
    ck_assert(tensor_exp(-M_LN2 * 10) == 0x1p-10);
}
END_TEST

START_TEST(test_softmax_same_bits)
{
    /* 301 rows of 999 (odd: the pair loop's tail), past the threading bar */
    int rows = 301, n = 999;
    Tensor *a = rough(DIMS(rows, n), 3);
    tensor_scale_(a, 9.0f); /* wide range: exp down to e^-50 and past */
    Tensor *b = tensor_clone_compute(a), *wide = rough(DIMS(rows, n + 2), 4);
    float *ref = malloc((size_t)rows * n * sizeof *ref);
    tensor_to_array(a, ref);
    for (int r = 0; r < rows; r++)
        softmax_reference(ref + (size_t)r * n, n);
    Tensor *v = narrow(wide, 1, 1, n); /* not contiguous: the row-by-row path */
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < n; j++)
            v->st->data[v->offset + (size_t)r * (n + 2) + j] = a->st->data[(size_t)r * n + j];
    tensor_matmul_mode(1, 0);
    tensor_softmax_lastdim_(a);
    tensor_matmul_mode(3, 0);
    tensor_softmax_lastdim_(b);
    tensor_matmul_mode(0, 0);
    tensor_softmax_lastdim_(v);
    float *got = malloc((size_t)rows * n * sizeof *got);
    const Tensor *outs[3] = {a, b, v};
    for (int k = 0; k < 3; k++) {
        tensor_to_array(outs[k], got);
        for (size_t i = 0; i < (size_t)rows * n; i++)
            ck_assert_msg(!memcmp(&got[i], &ref[i], sizeof *got),
                          "softmax %d, element %zu: %a vs %a", k, i, (double)got[i],
                          (double)ref[i]);
    }
    free(got);
    free(ref);
    tensor_free(v), tensor_free(wide), tensor_free(b), tensor_free(a);
}
END_TEST

/* An empty inner axis (the playground can make one): zeros, as in PyTorch. */
START_TEST(test_matmul_empty_k)
{
    Tensor *sa = tensor_new_storage(E, 0), *sb = tensor_new_storage(E, 0);
    Tensor *a = tensor_restride(sa, 0, 2, (int[]){3, 0}, (long[]){0, 1});
    Tensor *b = tensor_restride(sb, 0, 2, (int[]){0, 4}, (long[]){4, 1});
    for (int simple = 0; simple < 2; simple++) {
        tensor_matmul_mode(1, simple ? TENSOR_MATMUL_SIMPLE : TENSOR_MATMUL_WIDEST);
        Tensor *c = tensor_matmul(a, b, err, sizeof err);
        ck_assert_msg(c != NULL, "%s", err);
        SHAPE(c, 3, 4);
        for (int i = 0; i < 12; i++)
            ck_assert(c->st->data[i] == 0.0f && !signbit(c->st->data[i]));
        tensor_free(c);
    }
    tensor_matmul_mode(0, TENSOR_MATMUL_WIDEST);
    tensor_free(b), tensor_free(a), tensor_free(sb), tensor_free(sa);
}
END_TEST

START_TEST(test_matmul_cancel)
{
    atomic_int stop = 1;
    Tensor *a = rough(DIMS(300, 200), 1), *b = rough(DIMS(200, 100), 2);
    tensor_set_cancel(&stop);
    ck_assert_ptr_null(tensor_matmul(a, b, err, sizeof err));
    ck_assert_str_eq(err, "cancelled");
    atomic_store(&stop, 0);
    Tensor *c = tensor_matmul(a, b, err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    tensor_set_cancel(NULL);
    tensor_free(c), tensor_free(b), tensor_free(a);
}
END_TEST

/* A run computed in another thread (ui/runjob.c) has an engine of its own:
 * its own copy count and storage ids, whatever this thread's engine holds. */
static void *thread_counts(void *arg)
{
    int *out = arg;
    Engine *e = engine_new(NULL);
    Tensor *t = e ? tensor_zeros(e, DIMS(2, 3)) : NULL;
    out[0] = t ? t->st->id : -1;
    out[1] = e ? (int)e->bytes_copied : -1;
    tensor_free(t);
    engine_release(e);
    return NULL;
}

START_TEST(test_counters_per_thread)
{
    size_t before = E->bytes_copied;
    Tensor *a = rough(DIMS(4, 5), 1), *at = tensor_transpose(a, 0, 1, err, sizeof err);
    Tensor *c = tensor_contiguous(at); /* 80 bytes counted here */
    ck_assert_uint_eq(E->bytes_copied - before, 80);
    int got[2];
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, thread_counts, got), 0);
    pthread_join(th, NULL);
    ck_assert_int_eq(got[0], 1); /* its first storage, though this engine made several */
    ck_assert_int_eq(got[1], 0);
    ck_assert_uint_eq(E->bytes_copied - before, 80);
    tensor_free(c), tensor_free(at), tensor_free(a);
}
END_TEST

/* -------------------------------------------------- softmax, mask, scale --- */

static void assert_rows_sum_to_one(const Tensor *t)
{
    int nd = t->ndim, n = t->shape[nd - 1];
    size_t rows = tensor_numel(t) / (size_t)n;
    float *v = malloc(tensor_numel(t) * sizeof *v);
    tensor_to_array(t, v);
    for (size_t r = 0; r < rows; r++) {
        double s = 0;
        for (int j = 0; j < n; j++) {
            ck_assert_msg(isfinite(v[r * n + j]), "row %zu col %d not finite", r, j);
            ck_assert(v[r * n + j] >= 0.0f);
            s += v[r * n + j];
        }
        ck_assert_msg(fabs(s - 1.0) <= 1e-6, "row %zu sums to %.9g", r, s);
    }
    free(v);
}

START_TEST(test_softmax_rows)
{
    Tensor *t = varied(DIMS(2, 3, 5, 7), 12);
    tensor_scale_(t, 3.0f);
    float before[210];
    tensor_to_array(t, before);
    tensor_softmax_lastdim_(t);
    assert_rows_sum_to_one(t);
    /* against exp(x - max) / sum, row by row */
    for (int r = 0; r < 30; r++) {
        double mx = -INFINITY, s = 0;
        for (int j = 0; j < 7; j++)
            mx = fmax(mx, before[r * 7 + j]);
        for (int j = 0; j < 7; j++)
            s += exp(before[r * 7 + j] - mx);
        for (int j = 0; j < 7; j++)
            ck_assert_double_eq_tol(t->st->data[r * 7 + j], exp(before[r * 7 + j] - mx) / s, 1e-6);
    }
    /* a worked row: softmax([0, ln 3]) = [1/4, 3/4] */
    Tensor *w = tensor_from_data(E, DIMS(1, 2), (float[]){0.0f, logf(3.0f)});
    tensor_softmax_lastdim_(w);
    ck_assert_float_eq_tol(w->st->data[0], 0.25f, 1e-6);
    ck_assert_float_eq_tol(w->st->data[1], 0.75f, 1e-6);
    tensor_free(w);
    tensor_free(t);
}
END_TEST

START_TEST(test_softmax_extremes)
{
    /* +-1e4: a naive exp overflows to inf (and inf/inf = NaN); ours does not */
    Tensor *t = tensor_from_data(E, DIMS(3, 4),
                                 (float[]){1e4f, -1e4f, 0.0f, 1e4f,    /* two maxima */
                                           -1e4f, -1e4f, -1e4f, -1e4f, /* all equal */
                                           1e4f, 1e4f - 1.0f, -1e4f, 5.0f});
    tensor_softmax_lastdim_(t);
    assert_rows_sum_to_one(t);
    ck_assert_float_eq_tol(t->st->data[0], 0.5f, 1e-6);
    ck_assert_float_eq(t->st->data[1], 0.0f);
    ck_assert_float_eq_tol(t->st->data[3], 0.5f, 1e-6);
    for (int j = 4; j < 8; j++)
        ck_assert_float_eq_tol(t->st->data[j], 0.25f, 1e-6);
    /* e^0 / (e^0 + e^-1) */
    ck_assert_float_eq_tol(t->st->data[8], (float)(1.0 / (1.0 + exp(-1.0))), 1e-6);
    tensor_free(t);
}
END_TEST

START_TEST(test_softmax_on_strided_view)
{
    /* softmax over the last axis of a transposed view: the rows are columns in memory */
    Tensor *a = varied(DIMS(4, 3), 13);
    Tensor *t = tensor_transpose(a, 0, 1, err, sizeof err); /* (3, 4), strides (1, 3) */
    Tensor *c = tensor_clone_compute(t);
    tensor_softmax_lastdim_(t);
    tensor_softmax_lastdim_(c);
    assert_rows_sum_to_one(t);
    float x[12], y[12];
    tensor_to_array(t, x);
    tensor_to_array(c, y);
    for (int i = 0; i < 12; i++)
        ck_assert_float_eq_tol(x[i], y[i], 1e-7);
    tensor_free(c);
    tensor_free(t);
    tensor_free(a);
}
END_TEST

START_TEST(test_causal_mask)
{
    Tensor *t = varied(DIMS(2, 3, 5, 5), 14);
    tensor_causal_mask_(t);
    for (int b = 0; b < 2; b++)
        for (int h = 0; h < 3; h++)
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) {
                    float v = tensor_get(t, IDX(b, h, i, j));
                    if (j > i)
                        ck_assert_msg(isinf(v) && v < 0, "(%d,%d) above the diagonal: %g", i, j, v);
                    else
                        ck_assert(isfinite(v));
                }
    tensor_softmax_lastdim_(t);
    assert_rows_sum_to_one(t);
    for (int b = 0; b < 2; b++)
        for (int h = 0; h < 3; h++)
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) {
                    float v = tensor_get(t, IDX(b, h, i, j));
                    if (j > i) ck_assert_msg(v == 0.0f, "weight %g above the diagonal", v);
                }
    /* the first token can only look at itself */
    ck_assert_float_eq(tensor_get(t, IDX(1, 2, 0, 0)), 1.0f);
    tensor_free(t);
}
END_TEST

START_TEST(test_scale_through_view)
{
    Tensor *a = arange(DIMS(2, 3));
    Tensor *t = tensor_transpose(a, 0, 1, err, sizeof err);
    tensor_scale_(t, 0.5f);
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(a->st->data[i], 0.5f * (float)i);
    /* an expanded view touches its one real cell once per logical element */
    Tensor *one = tensor_from_data(E, DIMS(1, 1), (float[]){1.0f});
    Tensor *ex = tensor_expand(one, DIMS(3, 1), err, sizeof err);
    tensor_scale_(ex, 2.0f);
    ck_assert_float_eq(one->st->data[0], 8.0f);
    tensor_free(ex);
    tensor_free(one);
    tensor_free(t);
    tensor_free(a);
}
END_TEST

static Suite *tensor_suite(void)
{
    E = engine_new(NULL);
    Suite *s = suite_create("tensor");
    TCase *v = tcase_create("views");
    tcase_add_test(v, test_split_heads_strides_and_storage);
    tcase_add_test(v, test_batch2_strides);
    tcase_add_test(v, test_empty_tensor_has_no_elements);
    tcase_add_test(v, test_expand_5d_stride0);
    tcase_add_test(v, test_narrow_is_a_view);
    tcase_add_test(v, test_contiguous_of_offset_views);
    tcase_add_test(v, test_view_noncontiguous_refused);
    tcase_add_test(v, test_view_infer_and_bad_shapes);
    tcase_add_test(v, test_view_outlives_base);
    tcase_add_test(v, test_engine_ids_and_copies);
    tcase_add_test(v, test_format);
    suite_add_tcase(s, v);
    TCase *c = tcase_create("copies");
    tcase_add_test(c, test_contiguous_copies_exactly_numel);
    tcase_add_test(c, test_clone_compute_counts_nothing);
    tcase_add_test(c, test_repeat_interleave);
    suite_add_tcase(s, c);
    TCase *k = tcase_create("kernels");
    tcase_add_test(k, test_matmul_transposed_inputs);
    tcase_add_test(k, test_matmul_expanded_and_offset);
    tcase_add_test(k, test_matmul_weight_broadcast_and_errors);
    tcase_add_test(k, test_matmul_blocked_same_bits);
    tcase_add_test(k, test_matmul_cancel);
    tcase_add_test(k, test_matmul_empty_k);
    tcase_add_test(k, test_exp_accurate);
    tcase_add_test(k, test_softmax_same_bits);
    tcase_add_test(k, test_counters_per_thread);
    tcase_add_test(k, test_softmax_rows);
    tcase_add_test(k, test_softmax_extremes);
    tcase_add_test(k, test_softmax_on_strided_view);
    tcase_add_test(k, test_causal_mask);
    tcase_add_test(k, test_scale_through_view);
    suite_add_tcase(s, k);
    return s;
}

CHECK_MAIN(tensor_suite)
