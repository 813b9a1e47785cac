/* check_play.c - the stride playground without a terminal: statements give
 * PyTorch's geometry (the expected strides below were printed by PyTorch,
 * e.g. torch.arange(24).view(2, 12).t().clone().stride() == (1, 12)), views
 * and copies are told apart with the bytes copied, every error the issue
 * lists carries PyTorch's words, syntax errors point at their column, and
 * results are drawn with the candy bar lit in reading order. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_main.h"
#include "content/content.h"
#include "draw/play_draw.h"
#include "engine/mha.h"
#include "engine/play.h"
#include "engine/tensorops.h"

static Play *P;
static PlayResult R;
static char J[4096];

static void setup(void)
{
    char err[200];
    MhaConfig c = mha_config_default();
    Mha *m = mha_run(&c, err, sizeof err);
    ck_assert_ptr_nonnull(m);
    P = mha_play_new(m);
    if (P) P->torch_names = content_pytorch_names();
    mha_free(m);
    ck_assert_ptr_nonnull(P);
    memset(&R, 0, sizeof R);
}

static void teardown(void)
{
    play_result_clear(&R);
    play_free(P);
}

/* Evaluates line; J holds its JSON answer. */
static PlayKind ev(const char *line)
{
    PlayKind k = play_eval(P, line, &R);
    play_result_json(&R, 1, J, sizeof J);
    return k;
}

#define HAS(s) ck_assert_msg(strstr(J, s) != NULL, "%s\n  wanted %s", J, s)

/* Evaluates line, expects a tensor with these strides (JSON text). */
static void strides_are(const char *line, const char *strides)
{
    ck_assert_int_eq(ev(line), PR_TENSOR);
    char want[200];
    snprintf(want, sizeof want, "\"strides\": %s", strides);
    ck_assert_msg(strstr(J, want) != NULL, "%s: %s, wanted %s", line, J, want);
}

static void error_is(const char *line, const char *msg)
{
    ck_assert_int_eq(ev(line), PR_ERROR);
    ck_assert_msg(!strcmp(R.error, msg), "%s:\n  got  %s\n  want %s", line, R.error, msg);
}

START_TEST(issue_example_line)
{
    ck_assert_int_eq(ev("a = torch.arange(24)"), PR_TENSOR);
    ck_assert_int_eq(ev("b = a.view(2, 12)"), PR_TENSOR);
    HAS("\"name\": \"b\", \"ok\": true, \"shape\": [2, 12], \"strides\": [12, 1], \"offset\": 0");
    HAS("\"contiguous\": true, \"copied_bytes\": 0, \"view\": true");
    ck_assert_str_eq(R.shares, "a");
    ck_assert_int_eq(ev("b.t()"), PR_TENSOR);
    HAS("\"name\": null");
    ck_assert_int_eq(R.memory, PM_VIEW);
}
END_TEST

START_TEST(strides_as_pytorch_prints_them)
{
    ev("a = torch.arange(24)");
    strides_are("a.view(2, 12).t()", "[1, 12]");
    strides_are("a.view(2, 12).t().clone()", "[1, 12]"); /* preserve_format keeps a dense layout */
    strides_are("a.view(2, 12).t().contiguous()", "[2, 1]");
    strides_are("a.view(2, 3, 4).permute(2, 0, 1).clone()", "[1, 12, 4]");
    strides_are("a.view(2, 3, 4)[:, ::2].clone()", "[8, 4, 1]");
    strides_are("a.view(3, 8)[:, 1::3].clone()", "[3, 1]");
    strides_are("a.view(2, 3, 4).permute(1, 2, 0)[:, ::2].clone()", "[2, 1, 6]");
    strides_are("a.view(2, 3, 4).transpose(0, 2).reshape(4, 6)", "[6, 1]");
    strides_are("a.view(4, 6)[1:3, None, ::2]", "[6, 6, 2]");
    HAS("\"offset\": 6");
    strides_are("a.view(4, 6)[..., 1]", "[6]");
    strides_are("a.view(4, 6)[-1]", "[1]");
    HAS("\"offset\": 18");
    strides_are("a.view(2, 1, 12).expand(2, 3, 12)", "[12, 0, 1]");
    strides_are("a.view(2, 12).unsqueeze(1)", "[12, 12, 1]");
    strides_are("a.view(2, 12).unsqueeze(2)", "[12, 1, 1]");
    strides_are("a.view(1, 24).squeeze()", "[1]");
    strides_are("a.view(4, 6).t().flatten()", "[1]");
    strides_are("a.view(2, 12).unflatten(1, (3, -1))", "[12, 4, 1]");
    strides_are("a.view(4, 6).narrow(1, 2, 3)", "[6, 1]");
    HAS("\"offset\": 2");
    strides_are("a.view(2, 12).repeat(2, 1, 1)", "[24, 12, 1]");
    strides_are("torch.zeros(2, 0, 3)", "[3, 3, 1]");
    strides_are("torch.zeros(3, 4)[:, 0:0].clone()", "[4, 1]");
    strides_are("a.view(2, 3, 4).mT", "[12, 1, 4]");
    strides_are("a.view(2, 3, 4).T", "[1, 4, 12]");
    ck_assert(strstr(R.warning, "x.T") != NULL); /* PyTorch's deprecation warning */
    strides_are("Q_heads", "[32, 4, 8, 1]");     /* the pipeline's step 3, default config */
    strides_are("torch.transpose(Q_split, 1, 2)", "[32, 4, 8, 1]");
}
END_TEST

START_TEST(views_and_copies_counted)
{
    ev("a = torch.arange(24)"); /* int64: 8 bytes an element */
    ck_assert_int_eq(R.memory, PM_NEW);
    ev("c = a.view(2, 12).t().reshape(24)");
    ck_assert_int_eq(R.memory, PM_COPY);
    ck_assert_uint_eq(R.copied_bytes, 24 * 8);
    ck_assert_int_eq(ev("a.view(2, 12).reshape(3, 8)"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_VIEW);
    ck_assert_uint_eq(R.copied_bytes, 0);
    ev("K.repeat_interleave(2, dim=1)"); /* float32: 4 bytes */
    ck_assert_uint_eq(R.copied_bytes, 2 * 32 * 4);
    ev("a.contiguous()"); /* already contiguous: itself (a.contiguous() is a) */
    ck_assert_int_eq(R.memory, PM_SAME);
    ev("z = torch.zeros(4, 3)");
    ck_assert_int_eq(R.memory, PM_NEW);
    ev("z.t().contiguous()");
    ck_assert_uint_eq(R.copied_bytes, 48);
    ev("w = Q.view(1, 4, 2, 4)");
    ck_assert(strstr(R.shares, "Q_split") && strstr(R.shares, "Q_heads") && strstr(R.shares, "Q"));
}
END_TEST

START_TEST(issue_errors_in_pytorch_words)
{
    ev("a = torch.arange(24)");
    error_is("a.view(2, 12).t().view(24)",
             "view size is not compatible with input tensor's size and stride (at least one "
             "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    error_is("a.view(3, 5)", "shape '[3, 5]' is invalid for input of size 24");
    error_is("a.view(2, 12).transpose(0, 2)",
             "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    error_is("a.view(2, 12).expand(3, 2, 5)",
             "The expanded size of the tensor (5) must match the existing size (12) at "
             "non-singleton dimension 2.  Target sizes: [3, 2, 5].  Tensor sizes: [2, 12]");
    error_is("a.view(2, 12)[2]", "index 2 is out of bounds for dimension 0 with size 2");
    error_is("a.view(2, 12)[0, -13]", "index -13 is out of bounds for dimension 1 with size 12");
    error_is("a.view(2, 12)[0, 0, 0]", "too many indices for tensor of dimension 2");
    error_is("a.view(-1, -1)", "only one dimension can be inferred");
    error_is("a.view(2, 12).t(0)", "t() takes no arguments (1 given)");
    error_is("a.view(2, 3, 4).t()", "t() expects a tensor with <= 2 dimensions, but self is 3D");
    error_is("a.mT", "tensor.mT is only supported on matrices or batches of matrices. Got 1-D "
                     "tensor.");
    error_is("a.view(2, 12).expand(12)",
             "expand(torch.LongTensor{[2, 12]}, size=[12]): the number of sizes provided (1) "
             "must be greater or equal to the number of dimensions in the tensor (2)");
    error_is("a.narrow(0, 20, 5)", "start (20) + length (5) exceeds dimension size (24).");
    error_is("a.view(4, 6).permute(0, 0)", "permute(): duplicate dims are not allowed.");
    error_is("a.view(4, 6).flatten(1, 0)",
             "flatten() has invalid args: start_dim cannot come after end_dim");
    error_is("a.unflatten(0, (5, -1))", "unflatten: Provided sizes [5, -1] don't multiply up to "
                                        "the size of dim 0 (24) in the input tensor");
    error_is("a[::0]", "slice step cannot be zero");
    error_is("a[::-1]", "step must be greater than zero");
    error_is("a[5][0]", "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                        "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
    error_is("nope.t()", "name 'nope' is not defined");
    error_is("a.nope()", "'Tensor' object has no attribute 'nope'");
    error_is("torch.arange(2000000)",
             "mhaviz play: a new storage of 2000000 elements is over the limit of 1000000");
    /* a failed statement names nothing */
    error_is("q = a.view(5, 5)", "shape '[5, 5]' is invalid for input of size 24");
    error_is("q", "name 'q' is not defined");
}
END_TEST

START_TEST(syntax_errors_have_a_column)
{
    ck_assert_int_eq(ev("b = x.view(2,,3)"), PR_ERROR);
    ck_assert_int_eq(R.error_col, 13); /* the second comma */
    HAS("\"column\": 14");
    ck_assert_int_eq(ev("x.view(2"), PR_ERROR);
    ck_assert_int_eq(R.error_col, 8);
    ck_assert_int_eq(ev("x.view(2) $"), PR_ERROR);
    ck_assert_int_eq(R.error_col, 10);
    ck_assert_int_eq(ev("x."), PR_ERROR);
    ck_assert_int_eq(ev("= x"), PR_ERROR);
    ck_assert_int_eq(R.error_col, 0);
    ck_assert_int_eq(ev("   # a comment"), PR_EMPTY);
    ck_assert_int_eq(ev(""), PR_EMPTY);
    char big[PLAY_LINE_MAX + 50];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    ck_assert_int_eq(ev(big), PR_ERROR);
}
END_TEST

START_TEST(queries_answer_values)
{
    ev("a = torch.arange(24).view(2, 3, 4)");
    ck_assert_int_eq(ev("a.shape"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "torch.Size([2, 3, 4])");
    HAS("\"value\": [2, 3, 4]");
    ev("a.transpose(0, 2).stride()");
    ck_assert_str_eq(R.value_text, "(1, 4, 12)");
    ev("a[1].storage_offset()");
    ck_assert_str_eq(R.value_text, "12");
    ev("a.transpose(0, 1).is_contiguous()");
    ck_assert_str_eq(R.value_text, "False");
    HAS("\"value\": false");
    ev("a.size(-1)");
    ck_assert_str_eq(R.value_text, "4");
    ev("a.view(a.shape[0], -1).shape");
    ck_assert_str_eq(R.value_text, "torch.Size([2, 12])");
    ev("a[0, 0].stride()");
    ck_assert_str_eq(R.value_text, "(1,)");
    ev("a.dtype");
    ck_assert_str_eq(R.value_text, "torch.int64");
    error_is("n = a.numel()", "mhaviz play names tensors only (this is an int)");
}
END_TEST

START_TEST(zero_dim_and_empty)
{
    ev("s = torch.arange(5)[2]");
    HAS("\"shape\": [], \"strides\": [], \"offset\": 2");
    strides_are("s[None]", "[1]");
    strides_are("s.expand(3, 2)", "[0, 0]");
    strides_are("s.flatten()", "[1]");
    strides_are("torch.zeros(())", "[]");
    error_is("torch.zeros(0, 4).view(0, -1)",
             "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified "
             "dimension size -1 can be any value and is ambiguous");
    strides_are("torch.zeros(0, 4).view(2, 0, 2)", "[2, 2, 1]");
}
END_TEST

START_TEST(completion_of_names_and_methods)
{
    char out[16][PLAY_NAME_MAX];
    int start, n = play_complete(P, "y = Q_h", 7, out, 16, &start);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0], "Q_heads");
    ck_assert_int_eq(start, 4);
    n = play_complete(P, "Q.tra", 5, out, 16, &start);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0], "transpose");
    n = play_complete(P, "torch.ar", 8, out, 16, &start);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0], "arange");
    n = play_complete(P, "x.view(2).s", 11, out, 16, &start);
    ck_assert_int_gt(n, 3); /* select shape size split squeeze storage_offset stride ... */
    ck_assert_str_eq(out[0], "select");
    ck_assert_str_eq(out[1], "shape");
    n = play_complete(P, "x.chu", 5, out, 16, &start); /* the new ops complete, from the table */
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0], "chunk");
    n = play_complete(P, "torch.man", 9, out, 16, &start);
    ck_assert_int_eq(n, 1);
    ck_assert_str_eq(out[0], "manual_seed");
}
END_TEST

START_TEST(result_drawn_with_reads_in_order)
{
    ev("b = torch.arange(6).view(2, 3).t()");
    Canvas *c = canvas_new(80, 16);
    ck_assert_int_gt(play_draw_result(c, 0, 0, 80, 16, &R, "b = torch.arange(6).view(2, 3).t()"),
                     4);
    ck_assert(canvas_contains(c, "shape (3, 2)   strides (1, 3)   offset 0"));
    ck_assert(canvas_contains(c, "not contiguous"));
    /* storage offsets 0..5 read in the order 0 3 1 4 2 5: cell k holds its order */
    ck_assert(canvas_contains(c, "offset    0   1   2   3   4   5"));
    ck_assert(canvas_contains(c, "reads     0   2   4   1   3   5"));
    canvas_free(c);
    ev("x.view(3, 5)");
    c = canvas_new(80, 10);
    play_draw_result(c, 0, 0, 80, 10, &R, "x.view(3, 5)");
    ck_assert(canvas_contains(c, "shape '[3, 5]' is invalid for input of size 32"));
    canvas_free(c);
}
END_TEST

START_TEST(million_element_storage)
{
    ck_assert_int_eq(ev("m = torch.arange(1000000)"), PR_TENSOR);
    ck_assert_int_eq(ev("m.view(1000, 1000).t().contiguous()"), PR_TENSOR);
    ck_assert_uint_eq(R.copied_bytes, 8000000);
    ck_assert_int_eq(ev("m.view(1000, 1000)[::7, 3::11].clone()"), PR_TENSOR);
    Canvas *c = canvas_new(120, 30);
    play_draw_result(c, 0, 0, 120, 30, &R, "m");
    ck_assert(canvas_contains(c, "more storage elements"));
    canvas_free(c);
}
END_TEST

/* issue 15, item 2: sizes, strides, slices, repeats and aranges at the int64
 * extremes (M = INT64_MAX, I = INT32_MAX).  Each answer is PyTorch 1.13's
 * (its own int64 arithmetic wraps there, and the answer it then gives is the
 * one expected), or a "mhaviz play:" error where PyTorch has no sensible
 * answer; none of them may overflow (the sanitizer build aborts if one does). */
#define M "9223372036854775807"
#define I "2147483647"
static void mhaviz_refuses(const char *line)
{
    ck_assert_int_eq(ev(line), PR_ERROR);
    ck_assert_msg(!strncmp(R.error, "mhaviz play: ", 13), "%s: %s", line, R.error);
}

START_TEST(int64_extremes_as_pytorch)
{
    ev("a = torch.arange(24)");
    ck_assert_int_eq(ev("a[::" M "]"), PR_TENSOR);
    HAS("\"shape\": [0], \"strides\": [" M "], \"offset\": 0");
    ck_assert_int_eq(ev("a.view(2,12)[:, ::" M "]"), PR_TENSOR);
    HAS("\"shape\": [2, 0], \"strides\": [12, " M "]");
    ck_assert_int_eq(ev("a[::4611686018427387904][1:]"), PR_TENSOR);
    HAS("\"shape\": [0], \"strides\": [4611686018427387904], \"offset\": 4611686018427387904");
    error_is("torch.arange(2)[::" M "]", "Storage size calculation overflowed with sizes=[-1] "
                                         "and strides=[" M "]");
    error_is("a.view(2,12)[::" M "]",
             "as_strided: Negative strides are not supported at the moment, got strides: [-12, 1]");
    error_is("a.repeat(" M ")", "Trying to create tensor with negative dimension -24: [-24]");
    error_is("a.view(2,12).repeat(1, " M ")",
             "Trying to create tensor with negative dimension -12: [2, -12]");
    mhaviz_refuses("a.repeat(4611686018427387904)");
    error_is("a.repeat_interleave(" M ")",
             "Trying to create tensor with negative dimension -24: [-24]");
    error_is("a.view(2,12).repeat_interleave(" M ", dim=1)",
             "Trying to create tensor with negative dimension -12: [-12]");
    mhaviz_refuses("a.repeat_interleave(4611686018427387904)");
    error_is("a.expand(" I "," I "," I ",24).contiguous()",
             "numel: integer multiplication overflow");
    error_is("a.expand(" I "," I "," I "," I ",24).nelement()",
             "numel: integer multiplication overflow");
    error_is("torch.zeros(1,1,1,1,1,1).expand(" I "," I "," I "," I "," I "," I ").view(-1)",
             "numel: integer multiplication overflow");
    mhaviz_refuses("torch.zeros(1,1).t().expand(" I "," I ").flatten()");
    mhaviz_refuses("torch.arange(" M ")");
    error_is("torch.arange(-" M "," M ")", "invalid size, possible overflow?");
    error_is("torch.arange(" M ", -" M ", -1)", "invalid size, possible overflow?");
    mhaviz_refuses("torch.arange(" M ", -1, -1)"); /* 2^63 elements: ATen divides INT64_MIN by -1 */
    ck_assert_int_eq(ev("torch.arange(0," M "," M ")"), PR_TENSOR);
    HAS("\"shape\": [0]");
    ck_assert_int_eq(ev("torch.arange(5, 0, -" M ")"), PR_TENSOR);
    HAS("\"shape\": [0]");
    mhaviz_refuses("torch.zeros(0, " I ", " I ", " I ")"); /* its strides overflow */
    mhaviz_refuses("torch.zeros(" I ", 0, " I ", " I ").unsqueeze(0)");
    mhaviz_refuses("torch.zeros(" I ", 0, " I ", " I ")[5]");
    error_is("a.view(" I ", " I ", " I ", -1)",
             "shape '[" I ", " I ", " I ", -1]' is invalid for input of size 24");
    error_is("a.narrow(0, 1, " M ")", "start (1) + length (" M ") exceeds dimension size (24).");
}
END_TEST
#undef M
#undef I

/* issue 15, item 4: the names' storages total at most PLAY_BUDGET_MB (256 MB),
 * a storage shared by names counted once; past it a statement fails, names
 * nothing, and says the budget; assigning a name again frees its storage. */
START_TEST(memory_budget_of_the_names)
{
    char line[64];
    size_t mb = 1u << 20, before = play_live_bytes(P);
    int n = 0;
    for (; n < 500; n++) {
        snprintf(line, sizeof line, "v%d = torch.arange(1000000)", n);
        if (ev(line) != PR_TENSOR) break;
    }
    ck_assert_int_eq(n, (int)(((size_t)PLAY_BUDGET_MB * mb - before) / 4000000));
    ck_assert_msg(strstr(R.error, "mhaviz play: over the budget of 256 MB for the playground's "
                                  "tensors") != NULL,
                  "%s", R.error);
    ck_assert_uint_le(play_live_bytes(P), (size_t)PLAY_BUDGET_MB * mb);
    snprintf(line, sizeof line, "v%d", n);
    ck_assert_int_eq(ev(line), PR_ERROR); /* the failed statement named nothing */
    ck_assert_int_eq(ev("s = v0.view(1000, 1000).t()"), PR_TENSOR); /* a view: no new bytes */
    ck_assert_int_eq(ev("v0.clone()"), PR_ERROR);                   /* a copy: over */
    ck_assert_int_eq(ev("v1 = torch.zeros(0)"), PR_TENSOR);         /* frees v1's 4 MB */
    ck_assert_int_eq(ev("v1 = torch.arange(1000000)"), PR_TENSOR);
    ck_assert_int_eq(ev("v0 = torch.zeros(0)"), PR_TENSOR); /* s still holds v0's storage */
    ck_assert_int_eq(ev("torch.arange(1000000)"), PR_ERROR);
    ck_assert_int_eq(ev("s = torch.zeros(0)"), PR_TENSOR); /* now it is free */
    ck_assert_int_eq(ev("torch.arange(1000000)"), PR_TENSOR);
}
END_TEST

/* issue 15, item 5: nothing false about PyTorch.  A name PyTorch 1.13 has
 * but the playground does not says so, with the playground's names from its
 * one table; a name PyTorch lacks keeps Python's AttributeError;
 * a.contiguous() of a contiguous a is a itself, as in PyTorch. */
static void not_yet(const char *line, const char *name, const char *one_supported)
{
    char want[80];
    ck_assert_int_eq(ev(line), PR_ERROR);
    snprintf(want, sizeof want, "`%s` is not in the playground yet (supported: ", name);
    ck_assert_msg(!strncmp(R.error, want, strlen(want)), "%s: %s", line, R.error);
    ck_assert_msg(strstr(R.error, one_supported) && R.error[strlen(R.error) - 1] == ')', "%s: %s",
                  line, R.error);
}

START_TEST(nothing_false_about_pytorch)
{
    char text[2048];
    ev("a = torch.arange(24)");
    ev("b = a.view(2, 3, 4)");
    not_yet("b.roll(1, dims=2)", "roll", "repeat_interleave, reshape");
    not_yet("torch.roll(b, 2)", "torch.roll", "arange, cat, chunk, clone");
    not_yet("torch.rand(2, 3)", "torch.rand", "randn");
    not_yet("b.tolist()", "tolist", "nelement, numel");
    not_yet("a.sum()", "sum", "view_as");
    not_yet("a.diagonal()", "diagonal", "T, bool, chunk, clone, contiguous, copy_, cos, data_ptr");
    not_yet("a.roll", "roll", "shape");
    /* the list is the table's: every supported name is in it, and is supported */
    ck_assert(strstr(R.error, ", ndimension, neg, nelement, numel, "));
    error_is("a.nope()", "'Tensor' object has no attribute 'nope'");
    error_is("torch.nope(a)", "module 'torch' has no attribute 'nope'");
    error_is("a.shape()", "'torch.Size' object is not callable");
    error_is("torch.float(3)", "'torch.dtype' object is not callable");
    ck_assert_int_eq(ev("a.nelement()"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "24");
    ck_assert_int_eq(ev("b.ndimension()"), PR_VALUE);
    error_is("x = 1", "mhaviz play names tensors only (this is an int)");
    error_is("x = b.shape", "mhaviz play names tensors only (this is a torch.Size)");
    /* a.contiguous() is a; a view of a is not a */
    ck_assert_int_eq(ev("c = a.contiguous()"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_SAME);
    HAS("\"view\": true, \"dtype\": \"torch.int64\", \"same_as\": \"a\"");
    play_result_text(&R, "c = a.contiguous()", text, sizeof text);
    ck_assert_msg(strstr(text, "the same tensor as a (not a new one), 0 bytes copied"), "%s", text);
    ck_assert_msg(!strstr(text, "view:"), "%s", text);
    ck_assert_int_eq(ev("a.flatten()"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_SAME);
    ck_assert_int_eq(ev("b"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_SAME);
    ck_assert_int_eq(ev("b.view(6, 4).contiguous()"), PR_TENSOR); /* contiguous of a new view */
    ck_assert_int_eq(R.memory, PM_VIEW);
    ck_assert_int_eq(ev("b.flatten(0, 1)"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_VIEW);
    ck_assert_int_eq(ev("b.transpose(0, 1).contiguous()"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_COPY);
    ck_assert_int_eq(ev("torch.zeros(0).flatten()"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_NEW);
    ev("s = torch.zeros(())");
    ck_assert_int_eq(ev("s.mT"), PR_TENSOR); /* 0-dim: the identity, self in PyTorch */
    ck_assert_int_eq(R.memory, PM_SAME);
    ck_assert_int_eq(ev("s.T"), PR_TENSOR); /* a new tensor (s.T is s is False) */
    ck_assert_int_eq(R.memory, PM_VIEW);
}
END_TEST

/* The logical values of the last tensor result, as "v0 v1 ...". */
static const char *values_of(void)
{
    static char buf[2048];
    size_t n = tensorops_numel(R.t), k = 0;
    float v[512];
    ck_assert_uint_le(n, 512);
    tensor_to_array(R.t, v);
    buf[0] = 0;
    for (size_t i = 0; i < n && k < sizeof buf; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%g", i ? " " : "", (double)v[i]);
    return buf;
}

static void values_are(const char *line, const char *want)
{
    ck_assert_msg(ev(line) == PR_TENSOR, "%s: %s", line, R.error);
    ck_assert_msg(!strcmp(values_of(), want), "%s:\n  got  %s\n  want %s", line, values_of(), want);
}

/* For the puzzles (issue 17): the sizes as integer names, Python's integer
 * arithmetic, -t, torch.cat, tril/triu: geometry, dtypes and errors as
 * PyTorch 1.13 printed them, values by hand. */
START_TEST(sizes_arithmetic_cat_neg_tril)
{
    ck_assert_int_eq(ev("Q.view(B, S, H, dh).transpose(1, 2).shape"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "torch.Size([1, 2, 4, 4])");
    ck_assert_int_eq(ev("torch.arange(B * S * D // H + 7 % 3 - 1).shape"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "torch.Size([16])");
    ck_assert_int_eq(ev("torch.zeros(-7 // 2 + 5, 7 % -3 + 3, -7 % 3).shape"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "torch.Size([1, 1, 2])"); /* floor, as Python */
    error_is("torch.arange(1 // 0)", "integer division or modulo by zero");
    error_is("torch.arange(9223372036854775807 + 1)",
             "mhaviz play: too large: 9223372036854775807 + 1 overflows int64");
    error_is("Q // Q", "`//` on tensors is not in the playground yet (+ - * / ** @ and the "
                       "comparisons are)");
    ck_assert_int_eq(ev("x = torch.arange(6).view(2, 3)"), PR_TENSOR);
    values_are("-x", "0 -1 -2 -3 -4 -5");
    strides_are("-x.t()", "[1, 3]"); /* empty_like keeps a dense layout */
    ck_assert_uint_eq(R.copied_bytes, 48);
    values_are("x.t().neg()", "0 -3 -1 -4 -2 -5");
    values_are("torch.cat((x, -x), dim=0)", "0 1 2 3 4 5 0 -1 -2 -3 -4 -5");
    values_are("torch.cat([x[:, 1:], x[:, :1]], -1)", "1 2 0 4 5 3");
    ck_assert_uint_eq(R.copied_bytes, 48);
    ck_assert_str_eq(play_dtype_name(R.dtype), "torch.int64");
    ev("torch.cat((x, torch.zeros(2, 1)), 1)");
    ck_assert_str_eq(play_dtype_name(R.dtype), "torch.float32"); /* promoted */
    ck_assert_uint_eq(R.copied_bytes, 32);
    values_are("torch.ones(3, 3).tril()", "1 0 0 1 1 0 1 1 1");
    values_are("torch.triu(torch.ones(3, 3), diagonal=1)", "0 1 1 0 0 1 0 0 0");
    values_are("x.tril(-1)", "0 0 0 3 0 0");
    error_is("torch.cat((x, x), 2)",
             "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    error_is("torch.cat((x, torch.zeros(2, 2)))",
             "Sizes of tensors must match except in dimension 0. Expected size 3 but got size "
             "2 for tensor number 1 in the list.");
}
END_TEST

/* Evaluates line, expects a tuple whose JSON has each of the texts. */
static void tuple_has(const char *line, int n, const char *a, const char *b)
{
    ck_assert_int_eq(ev(line), PR_TUPLE);
    ck_assert_int_eq(R.nparts, n);
    HAS(a);
    if (b) HAS(b);
}

/* chunk/split/unbind/select/movedim/flip against what PyTorch 1.13 printed
 * (x = torch.arange(24).view(2, 3, 4)). */
START_TEST(structural_ops_as_pytorch)
{
    ev("x = torch.arange(24).view(2, 3, 4)");
    tuple_has("x.chunk(5, 2)", 4, "\"shape\": [2, 3, 1], \"strides\": [12, 4, 1], \"offset\": 3",
              NULL);
    tuple_has("x.chunk(3, dim=2)", 2,
              "\"shape\": [2, 3, 2], \"strides\": [12, 4, 1], \"offset\": 2", NULL);
    tuple_has("torch.zeros(0, 3).chunk(3)", 3, "\"shape\": [0, 3]", NULL);
    tuple_has("x.split(3, 2)", 2, "\"shape\": [2, 3, 3]",
              "\"shape\": [2, 3, 1], \"strides\": [12, 4, 1], \"offset\": 3");
    tuple_has("x.split([1, 0, 2], 1)", 3, "\"shape\": [2, 0, 4]",
              "\"shape\": [2, 2, 4], \"strides\": [12, 4, 1], \"offset\": 4");
    tuple_has("torch.split(x, 1)", 2, "\"offset\": 12", NULL);
    tuple_has("x.unbind(1)", 3, "\"shape\": [2, 4], \"strides\": [12, 1], \"offset\": 8", NULL);
    HAS("\"view\": true");
    strides_are("x.chunk(2)[-1]", "[12, 4, 1]");
    strides_are("x.select(1, 1)", "[12, 1]");
    HAS("\"offset\": 4");
    strides_are("torch.select(x, 0, 1)", "[4, 1]");
    strides_are("x.movedim(0, 2)", "[4, 1, 12]");
    strides_are("x.movedim((0, 1), (2, 0))", "[4, 1, 12]");
    strides_are("torch.movedim(x, 0, -1)", "[4, 1, 12]");
    strides_are("x.transpose(0, 2).flip(0)", "[1, 4, 12]"); /* empty_like(preserve) */
    HAS("\"copied_bytes\": 192");
    strides_are("x[:, ::2].flip(1)", "[8, 4, 1]");
    strides_are("x.expand(2, 2, 3, 4).flip(0)", "[24, 12, 4, 1]");
    ck_assert_int_eq(ev("x.flip(0, 2)[0, 0, 0].storage_offset()"), PR_VALUE);
    ck_assert_int_eq(ev("y = x.flip(0, 2)"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_COPY);
    ck_assert_int_eq((int)R.t->st->data[0], 15); /* the values moved: 15 14 13 12 19 */
    ck_assert_int_eq((int)R.t->st->data[4], 19);
    error_is("x.chunk(0)", "chunk expects `chunks` to be greater than 0, got: 0");
    error_is("torch.zeros(()).chunk(2)", "chunk expects at least a 1-dimensional tensor");
    error_is("x.split(-1)", "split expects split_size be non-negative, but got split_size=-1");
    error_is("x.split(0)",
             "split_size can only be 0 if dimension size is 0, but got dimension size of 2");
    error_is("x.split([1, 1], 1)",
             "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
             "dimension 1), but got split_sizes=[1, 1]");
    error_is("x.split([1, -1, 3], 1)", "split_with_sizes expects split_sizes have only "
                                       "non-negative entries, but got split_sizes=[1, -1, 3]");
    error_is("x.unbind(3)",
             "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    error_is("torch.zeros(()).unbind()", "Dimension specified as 0 but tensor has no dimensions");
    error_is("torch.zeros(()).unbind(-1)", "Dimension specified as 0 but tensor has no dimensions");
    error_is("torch.zeros(()).unbind(-2)",
             "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    error_is("x.select(-1, -5)",
             "select(): index -5 out of range for tensor of size [2, 3, 4] at dimension 2");
    error_is("torch.zeros(()).select(0, 0)", "select() cannot be applied to a 0-dim tensor.");
    error_is("x.movedim((0, 1), (1, 1))", "movedim: repeated dim in `destination` ([1, 1])");
    error_is("x.movedim((0, 0), (1, 2))", "movedim: repeated dim in `source` ([0, 0])");
    error_is("x.movedim((0, 1), (1,))",
             "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain "
             "the same number of dims as destination ([1] dims)");
    error_is("x.flip()", "flip() missing 1 required positional arguments: \"dims\"");
    error_is("x.flip(0, 0)", "dim 0 appears multiple times in the list of dims");
    strides_are("torch.flip(x.transpose(0, 2), (0,))", "[1, 4, 12]");
    error_is("torch.flip(x, 0)",
             "flip(): argument 'dims' (position 2) must be tuple of ints, not int");
    error_is("torch.flip(x)", "flip() missing 1 required positional arguments: \"dims\"");
    /* index_select (a contiguous copy) and the bool masks the bugs programs build */
    strides_are("x.transpose(1, 2).index_select(1, torch.arange(2).repeat_interleave(2))",
                "[12, 3, 1]");    /* PyTorch 1.13: (2, 4, 3) contiguous */
    HAS("\"copied_bytes\": 224"); /* 24 int64 gathered + the 4 of repeat_interleave */
    error_is("x.index_select(1, torch.arange(5))",
             "INDICES element is out of DATA bounds, id=3 axis_dim=3");
    error_is("x.index_select(2, torch.arange(5))", "index out of range in self"); /* not dim 1 */
    error_is("x.index_select(1, torch.ones(2))",
             "index_select(): Expected dtype int32 or int64 for index");
    strides_are("torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)", "[3, 1]");
    HAS("\"dtype\": \"torch.bool\"");
    ck_assert_int_eq(ev("x[0], x[1]"), PR_TUPLE); /* a bare tuple */
    ck_assert_int_eq(R.nparts, 2);
    error_is("x.chunk(2)[2]", "tuple index out of range");
    error_is("x.chunk(2).shape", "'tuple' object has no attribute 'shape'");
    error_is("torch.arange(17).unbind()",
             "mhaviz play: a tuple holds at most 16 tensors (this one would be 17)");
}
END_TEST

START_TEST(tuple_unpacking_as_python)
{
    ev("x = torch.arange(24).view(2, 3, 4)");
    ck_assert_int_eq(ev("q, k, v = x.chunk(3, dim=1)"), PR_TUPLE);
    HAS("\"name\": \"v\", \"shape\": [2, 1, 4], \"strides\": [12, 4, 1], \"offset\": 8");
    ck_assert_str_eq(R.parts[2].name, "v");
    ck_assert_int_eq(ev("v.storage_offset()"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "8");
    ck_assert_int_eq(ev("a, b = x"), PR_TUPLE); /* a tensor unpacks its rows */
    strides_are("b", "[4, 1]");
    ck_assert_int_eq(ev("a, = x.chunk(1)"), PR_TUPLE);
    ck_assert_int_eq(ev("m0, m1 = x[0], x[1]"), PR_TUPLE); /* a bare tuple on the right */
    HAS("\"name\": \"m1\", \"shape\": [3, 4], \"strides\": [4, 1], \"offset\": 12");
    error_is("m0, m1 = x[0], x[1], x[0]", "too many values to unpack (expected 2)");
    error_is("q, k, v = x.chunk(2)", "not enough values to unpack (expected 3, got 2)");
    error_is("q, k = x.chunk(3, 1)", "too many values to unpack (expected 2)");
    error_is("a, b = torch.zeros(())", "iteration over a 0-d tensor");
    error_is("a, b = x.shape[0]", "cannot unpack non-iterable int object");
    error_is("t = x.chunk(2)", "mhaviz play names tensors only (this is a tuple)");
    ck_assert_int_eq(ev("q, k, v = x.chunk(3, dim=1)"), PR_TUPLE); /* drawn as its summary */
    Canvas *c = canvas_new(80, 6);
    ck_assert_int_gt(play_draw_result(c, 0, 0, 80, 6, &R, "q, k, v = x.chunk(3, dim=1)"), 1);
    ck_assert_msg(canvas_contains(c, "(q (2, 1, 4) +0 S"), "%s", R.value_text);
    ck_assert(canvas_contains(c, "v (2, 1, 4) +8 S"));
    canvas_free(c);
    ev("q, k, v = x.chunk(2)"); /* failed: q is still the first third */
    strides_are("q", "[12, 4, 1]");
    HAS("\"shape\": [2, 1, 4]");
}
END_TEST

/* data_ptr(): one base per storage, plus offset * element_size; randn:
 * seeded, the same numbers after the same manual_seed. */
START_TEST(data_ptr_and_seeded_randn)
{
    ev("x = torch.arange(24).view(2, 3, 4)");
    ck_assert_int_eq(ev("x.data_ptr() - x[1].data_ptr()"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "-96");
    ev("x[0, 1].data_ptr() - x.data_ptr()");
    ck_assert_str_eq(R.value_text, "32");
    ev("x.view(24).data_ptr() - x.data_ptr()");
    ck_assert_str_eq(R.value_text, "0");
    ev("x.clone().data_ptr() == x.data_ptr()"); /* no == yet: compare by difference */
    ev("x.clone().data_ptr() - x.data_ptr()");
    ck_assert_str_ne(R.value_text, "0");
    ev("torch.zeros(4)[1].data_ptr() - torch.zeros(4).data_ptr()");
    ck_assert_str_ne(R.value_text, "4");
    float a[6], b[6];
    ck_assert_int_eq(ev("torch.manual_seed(7)"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "<torch._C.Generator object>");
    ck_assert_int_eq(ev("r = torch.randn(2, 3)"), PR_TENSOR);
    HAS("\"dtype\": \"torch.float32\"");
    memcpy(a, R.t->st->data, sizeof a);
    ev("torch.randn(2, 3)");
    ck_assert(memcmp(a, R.t->st->data, sizeof a) != 0); /* the generator moved on */
    ev("torch.manual_seed(7)");
    ck_assert_int_eq(ev("torch.randn(6)"), PR_TENSOR);
    memcpy(b, R.t->st->data, sizeof b);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    double sum = 0;
    ev("torch.randn(1000)");
    for (int i = 0; i < 1000; i++)
        sum += R.t->st->data[i];
    ck_assert(sum > -150 && sum < 150); /* mean 0, sd sqrt(1000) */
    error_is("torch.randn(-1)", "Trying to create tensor with negative dimension -1: [-1]");
}
END_TEST

typedef struct Seen {
    int n, lines[8], kinds[8], stop_at;
} Seen;

static int seen_step(void *ctx, const PlayStep *st)
{
    Seen *s = ctx;
    if (s->n < 8) s->lines[s->n] = st->line, s->kinds[s->n] = st->r->kind;
    s->n++;
    return st->line == s->stop_at;
}

/* play_run: a statement a line, comments and blanks skipped, each reported
 * with its line; the first error stops it, as FILE:LINE: and PyTorch's words */
START_TEST(program_runs_to_its_first_error)
{
    char err[800];
    Seen s = {0};
    const char *prog = "# heads\n"
                       "x = torch.arange(24).view(2, 3, 4)\n"
                       "\n"
                       "q, k, v = x.chunk(3, dim=1)\r\n"
                       "k.view(8)\n"
                       "never = x\n";
    ck_assert_int_eq(play_run(P, prog, "attn.py", seen_step, &s, err, sizeof err), 5);
    ck_assert_int_eq(s.n, 3);
    ck_assert_int_eq(s.lines[0], 2);
    ck_assert_int_eq(s.lines[1], 4);
    ck_assert_int_eq(s.kinds[1], PR_TUPLE);
    ck_assert_int_eq(s.lines[2], 5);
    ck_assert_int_eq(s.kinds[2], PR_ERROR);
    ck_assert_msg(!strncmp(err, "attn.py:5: view size is not compatible", 38), "%s", err);
    ck_assert_int_eq(ev("never"), PR_ERROR);              /* line 6 did not run */
    ck_assert_int_eq(ev("v.storage_offset()"), PR_VALUE); /* line 4's names are bound */
    ck_assert_str_eq(R.value_text, "8");
    ck_assert_int_eq(
        play_run(P, "a = torch.zeros(2)\nb = a.t(\n", NULL, NULL, NULL, err, sizeof err), 2);
    ck_assert_str_eq(err, "line 2: an expression was expected");
    ck_assert_int_eq(play_run(P, "a = x\nb = x\n", NULL, NULL, NULL, err, sizeof err), 0);
    ck_assert_str_eq(err, "");
    Seen stop = {.stop_at = 1};
    ck_assert_int_eq(play_run(P, "a = x\nb = x\n", NULL, seen_step, &stop, err, sizeof err), 1);
    ck_assert_int_eq(stop.n, 1);
    ck_assert_int_eq(play_run(P, "", NULL, NULL, NULL, err, sizeof err), 0);
}
END_TEST

/* A callback that runs a program of its own (a listing's checker may) still
 * sees its own statement: play_run keeps no state between calls. */
static int nested_step(void *ctx, const PlayStep *st)
{
    char err[200], *seen = ctx;
    Play *q = play_new(NULL);
    play_run(q, "inner = torch.zeros(3)\n", NULL, NULL, NULL, err, sizeof err);
    play_free(q);
    snprintf(seen + strlen(seen), 64, "%s;", st->stmt);
    return 0;
}

START_TEST(program_runs_reentrant)
{
    char err[200], seen[256] = "";
    ck_assert_int_eq(
        play_run(P, "a = x\nb = a.view(-1)\n", NULL, nested_step, seen, err, sizeof err), 0);
    ck_assert_str_eq(seen, "a = x;b = a.view(-1);");
}
END_TEST

/* The values of R.t, row-major, as "0 1 2 ..." (at most 32). */
static const char *values(void)
{
    static char buf[400];
    float v[32];
    size_t n = tensor_numel(R.t), k = 0;
    ck_assert_uint_le(n, 32);
    tensor_to_array(R.t, v);
    buf[0] = 0;
    for (size_t i = 0; i < n && i < 32; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%g", i ? " " : "", (double)v[i]);
    return buf;
}

/* t[idx] = value and t.copy_(src): PyTorch's copy_ into the view, in place,
 * with its broadcasting and its words (each error below printed by torch
 * 1.13); the written bytes count as copied and no name is made. */
START_TEST(subscript_assignment_writes_in_place)
{
    ev("t = torch.zeros(2, 3)");
    ck_assert_int_eq(ev("t[0] = torch.arange(3)"), PR_TENSOR);
    HAS("\"name\": null");
    HAS("\"shape\": [3], \"strides\": [1], \"offset\": 0");
    HAS("\"copied_bytes\": 12");
    ck_assert_int_eq(R.memory, PM_WRITE);
    ck_assert_str_eq(play_memory_word(&R), "write");
    ck_assert_int_eq(ev("t"), PR_TENSOR);
    ck_assert_str_eq(values(), "0 1 2 0 0 0");
    ck_assert_int_eq(ev("t[:, 2:] = 7"), PR_TENSOR); /* a number fills */
    HAS("\"copied_bytes\": 8");
    ev("t[..., None, 0] = torch.ones(1, 2, 1)"); /* leading 1s dropped, then expanded */
    ev("t");
    ck_assert_str_eq(values(), "1 1 7 1 0 7");
    ev("t[1] = t[0]"); /* a view of the same storage, apart: allowed */
    ev("t");
    ck_assert_str_eq(values(), "1 1 7 1 1 7");
    ev("c = t.t()");
    ck_assert_int_eq(ev("c[1:] = torch.arange(6).view(2, 3)[:, 1:].t()"), PR_TENSOR);
    ev("t");
    ck_assert_str_eq(values(), "1 1 2 1 4 5");
    ck_assert_int_eq(ev("t.copy_(torch.arange(3))"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_WRITE);
    HAS("\"copied_bytes\": 24");
    ev("t");
    ck_assert_str_eq(values(), "0 1 2 0 1 2");
    ev("i = torch.arange(3)");
    ev("i[1:] = torch.arange(2)");
    HAS("\"copied_bytes\": 16"); /* int64: 8 bytes an element */
    ev("i");
    ck_assert_str_eq(values(), "0 0 1");
    ev("i[0] = 2.7"); /* a float into int64: truncated, as the cast */
    ev("i");
    ck_assert_str_eq(values(), "2 0 1");
    ev("m = torch.zeros(3) < 1");
    ev("m[0] = 0.0");
    ev("m[1] = 0.5");
    ev("m[2:] = torch.zeros(1)");
    ck_assert_int_eq(ev("m"), PR_TENSOR);
    ck_assert_str_eq(values(), "0 1 0"); /* into bool: nonzero is True */
    ev("u = torch.zeros(2)");
    ev("u[1] = 0.5");
    ev("u");
    ck_assert_str_eq(values(), "0 0.5");
    ev("t.copy_(src=t)"); /* itself: nothing to do, no error */
    error_is("t[:] = torch.ones(2)",
             "The expanded size of the tensor (3) must match the existing size (2) at "
             "non-singleton dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2]");
    error_is("t[0, 0] = torch.ones(2)",
             "expand(torch.FloatTensor{[2]}, size=[]): the number of sizes provided (0) must be "
             "greater or equal to the number of dimensions in the tensor (1)");
    error_is("t.copy_(torch.ones(2))",
             "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
             "dimension 1");
    error_is("t.copy_(torch.ones(4, 2, 3))",
             "output with shape [2, 3] doesn't match the broadcast shape [4, 2, 3]");
    error_is("t[0, 0].copy_(torch.ones(1, 1))",
             "output with shape [] doesn't match the broadcast shape [1, 1]");
    ev("e = torch.zeros(3).expand(2, 3)");
    error_is("e[...] = torch.ones(3)",
             "unsupported operation: more than one element of the written-to tensor refers to a "
             "single memory location. Please clone() the tensor before performing the operation.");
    ck_assert_int_eq(ev("e[0] = torch.ones(3)"), PR_TENSOR); /* one row: no overlap in it */
    ck_assert_int_eq(ev("e[:, 0] = 5"), PR_TENSOR);          /* fill_ checks nothing */
    ev("a = torch.arange(6)");
    error_is("a[1:] = a[:5]", "unsupported operation: some elements of the input tensor and the "
                              "written-to tensor refer to a single memory location. Please "
                              "clone() the tensor before performing the operation.");
    ck_assert_int_eq(ev("t.copy_(t.t().reshape(2, 3))"), PR_TENSOR); /* reshape copied */
    ck_assert_int_eq(ev("a[3:].copy_(a[:3])"), PR_TENSOR);
    ev("a");
    ck_assert_str_eq(values(), "0 1 2 0 1 2");
    error_is("t[5] = 1", "index 5 is out of bounds for dimension 0 with size 2");
    error_is("t[0] = None", "can't assign a NoneType to a torch.FloatTensor");
    error_is("a[0] = (1, 2)", "can't assign a tuple to a torch.LongTensor");
    error_is("t.shape[0] = 1", "'torch.Size' object does not support item assignment");
    error_is("nothing[0] = 1", "name 'nothing' is not defined");
    error_is("t.copy_()", "copy_() missing required argument 'src'");
    ck_assert_int_eq(ev("t.t() = 1"), PR_ERROR); /* only a subscript is written into */
    ck_assert_int_eq(R.error_col, 0);
}
END_TEST

static void value_is(const char *line, const char *want)
{
    ck_assert_int_eq(ev(line), PR_VALUE);
    ck_assert_msg(!strcmp(R.value_text, want), "%s: %s, want %s", line, R.value_text, want);
}

/* issue 16: the numbers attention is written in, with Python's and PyTorch
 * 1.13's answers (checked there; tests/ref_play_math.py checks thousands). */
START_TEST(numbers_and_attention_ops)
{
    value_is("0.5", "0.5");
    value_is("1e-9", "1e-09");
    value_is("1 / 4", "0.25");
    value_is("2.", "2.0");
    value_is("float('-inf')", "-inf");
    value_is("-math.inf", "-inf");
    value_is("sqrt(16)", "4.0");
    value_is("math.sqrt(2)", "1.4142135623730951");
    value_is("1 < 2", "True");
    error_is("math.sqrt(-1)", "math domain error");
    error_is("1 / 0", "division by zero");
    error_is("1 < 2 < 3", "chained comparisons are not in the playground yet");
    ck_assert_int_eq(ev("t = torch.arange(6).view(2, 3)"), PR_TENSOR);
    values_are("t / 2", "0 0.5 1 1.5 2 2.5");
    ck_assert_str_eq(play_dtype_name(R.dtype), "torch.float32");
    ck_assert_int_eq(R.memory, PM_NEW); /* computed: a new storage, nothing copied */
    ck_assert_uint_eq(R.copied_bytes, 0);
    values_are("t * 2 - 1", "-1 1 3 5 7 9");
    ck_assert_str_eq(play_dtype_name(R.dtype), "torch.int64");
    values_are("t < 3", "1 1 1 0 0 0");
    ck_assert_str_eq(play_dtype_name(R.dtype), "torch.bool");
    value_is("(t < 3).element_size()", "1");
    strides_are("t.t() * 2", "[1, 3]"); /* TensorIterator keeps the input's order in memory */
    values_are("t + torch.arange(3)", "0 2 4 3 5 7");
    values_are("t.float().masked_fill(t > 3, float('-inf'))", "0 1 2 3 -inf -inf");
    values_are("torch.softmax(torch.zeros(2, 2), dim=-1)", "0.5 0.5 0.5 0.5");
    values_are("t.float() @ t.t().float()", "5 14 14 50");
    values_are("torch.matmul(torch.ones(2, 1, 1, 3), torch.ones(4, 3, 1)).flatten()",
               "3 3 3 3 3 3 3 3");
    values_are("torch.tril(torch.ones(2, 2))", "1 0 1 1");
    ck_assert_int_eq(ev("t.float()"), PR_TENSOR);
    ck_assert_int_eq(R.memory, PM_NEW);
    ck_assert_int_eq(ev("f = t / 1"), PR_TENSOR);
    ck_assert_int_eq(ev("f.float()"), PR_TENSOR); /* PyTorch returns self */
    ck_assert_int_eq(R.memory, PM_SAME);
}
END_TEST

/* The errors in PyTorch 1.13's words, and the pipeline's own numbers: the
 * statements run on the preloaded run give its scores and attn, bit for bit. */
START_TEST(attention_errors_and_pipeline_bits)
{
    error_is("torch.ones(2, 3) @ torch.ones(2, 3)",
             "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
    error_is("torch.ones(2, 3, 4) @ torch.ones(3, 4, 5)",
             "The size of tensor a (2) must match the size of tensor b (3) at non-singleton "
             "dimension 0");
    error_is("torch.ones(3) + torch.ones(4)", "The size of tensor a (3) must match the size of "
                                              "tensor b (4) at non-singleton dimension 0");
    error_is("torch.arange(3) @ torch.ones(3)", "dot : expected both vectors to have same dtype, "
                                                "but found Long and Float");
    error_is("torch.arange(4).softmax(0)", "\"softmax_lastdim_kernel_impl\" not implemented for "
                                           "'Long'");
    error_is("(Q > 0) - (Q > 0)", "Subtraction, the `-` operator, with two bool tensors is not "
                                  "supported. Use the `^` or `logical_xor()` operator instead.");
    error_is("torch.arange(3).masked_fill(torch.arange(3) > 0, float('-inf'))",
             "value cannot be converted to type int64_t without overflow");
    error_is("torch.ones(1000, 1) @ torch.ones(1, 1001)",
             "mhaviz play: a new storage of 1001000 elements is over the limit of 1000000");
    /* dh 4: / sqrt(dh) is * 0.5 exactly, so the bits are the run's */
    ck_assert_int_eq(ev("s = Q_heads @ K_heads.transpose(-2, -1) / sqrt(dh)"), PR_TENSOR);
    values_are("(s == scores).long().flatten()", "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
                                                 "1 1 1 1 1 1 1 1");
    values_are("(softmax(s, dim=-1) == attn).long().flatten()",
               "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1");
    values_are("((attn @ V_heads).transpose(1, 2).contiguous().view(B, S, D) @ W_O == out)"
               ".long().flatten()",
               "1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1");
}
END_TEST

/* Issue 18: the elementwise math RoPE is written in and Python's `**`
 * (values as PyTorch 1.13 printed them; tests/ref_play_math.py compares the
 * rest with torch itself). */
START_TEST(unary_math_and_power)
{
    ck_assert_int_eq(ev("-2 ** 2"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "-4");
    ck_assert_int_eq(ev("2 ** 3 ** 2"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "512");
    ck_assert_int_eq(ev("2 ** -1"), PR_VALUE);
    ck_assert_str_eq(R.value_text, "0.5");
    error_is("2 ** 64", "mhaviz play: too large: 2 ** 64 overflows int64");
    error_is("0.0 ** -1", "0.0 cannot be raised to a negative power");
    values_are("torch.arange(4) ** 2", "0 1 4 9");
    HAS("\"dtype\": \"torch.int64\"");
    values_are("2 ** torch.arange(4)", "1 2 4 8");
    values_are("torch.arange(4).float() ** 0.5", "0 1 1.41421 1.73205");
    values_are("torch.arange(3).cos()", "1 0.540302 -0.416147");
    HAS("\"copied_bytes\": 0, \"view\": false, \"dtype\": \"torch.float32\"");
    values_are("torch.sqrt(torch.arange(5))", "0 1 1.41421 1.73205 2");
    values_are("torch.exp(torch.zeros(2))", "1 1");
    values_are("torch.rsqrt(torch.arange(1, 3).float() * 2)", "0.707107 0.5");
    strides_are("torch.arange(6).view(2, 3).t().sin()", "[1, 3]");
    error_is("torch.arange(3) ** -1", "Integers to negative integer powers are not allowed.");
    values_are("torch.arange(4, dtype=torch.float32)", "0 1 2 3");
    HAS("\"dtype\": \"torch.float32\"");
    values_are("torch.outer(torch.arange(1, 3), torch.arange(3))", "0 1 2 0 2 4");
    error_is("torch.outer(torch.ones(2, 2), torch.ones(2))",
             "outer: Expected 1-D argument self, but got 2-D");
    ck_assert_int_eq(ev("inv_freq = 1.0 / (10000 ** (torch.arange(0, dh, 2).float() / dh))"),
                     PR_TENSOR);
    values_are("inv_freq", "1 0.01");
}
END_TEST

/* The elements of a and b that differ (bit for bit), over a's shape. */
static long differ(Play *p, const char *a, const char *b)
{
    PlayResult ra = {0}, rb = {0};
    ck_assert_msg(play_eval(p, a, &ra) == PR_TENSOR, "%s: %s", a, ra.error);
    ck_assert_msg(play_eval(p, b, &rb) == PR_TENSOR, "%s: %s", b, rb.error);
    const Tensor *x = ra.t, *y = rb.t;
    ck_assert_int_eq(x->ndim, y->ndim);
    long n = (long)tensorops_numel(x), bad = 0;
    for (long k = 0; k < n; k++) {
        int idx[TENSOR_MAXDIM];
        long r = k;
        for (int d = x->ndim - 1; d >= 0; d--) {
            ck_assert_int_eq(x->shape[d], y->shape[d]);
            idx[d] = (int)(r % x->shape[d]);
            r /= x->shape[d];
        }
        float u = x->st->data[tensor_offset_of(x, idx)], v = y->st->data[tensor_offset_of(y, idx)];
        bad += memcmp(&u, &v, sizeof u) != 0;
    }
    play_result_clear(&ra);
    play_result_clear(&rb);
    return bad;
}

/* Issue 18: a run with RoPE on preloads HF's cos and sin (S, dh), so RoPE
 * in a line gives the run's Q_rope bit for bit, in both layouts. */
START_TEST(rope_in_a_line_is_the_runs)
{
    static const char *const half[] = {
        "x1, x2 = Q_heads.chunk(2, dim=-1)",
        "r = Q_heads * cos + torch.cat((-x2, x1), dim=-1) * sin",
    };
    static const char *const inter[] = {
        "p = Q_heads.view(B, H, S, dh // 2, 2).flip(-1) * (torch.arange(2) * 2 - 1)",
        "r = Q_heads * cos + p.flatten(-2) * sin",
    };
    for (int l = ROPE_HALF; l <= ROPE_INTERLEAVED; l++) {
        char err[200];
        MhaConfig c = mha_config_default();
        c.seq = 9, c.d_model = 32, c.heads = 2, c.kv_heads = 2, c.rope = (RopeLayout)l;
        Mha *m = mha_run(&c, err, sizeof err);
        ck_assert_msg(m != NULL, "%s", err);
        Play *p = mha_play_new(m);
        mha_free(m);
        ck_assert_ptr_nonnull(p);
        p->torch_names = content_pytorch_names();
        ck_assert_int_eq(play_eval(p, "cos", &R), PR_TENSOR);
        ck_assert_int_eq(R.t->ndim, 2);
        ck_assert_int_eq(R.t->shape[0], 9);
        ck_assert_int_eq(R.t->shape[1], 16);
        play_result_clear(&R);
        const char *const *prog = l == ROPE_HALF ? half : inter;
        for (int i = 0; i < 2; i++) {
            ck_assert_msg(play_eval(p, prog[i], &R) != PR_ERROR, "%s: %s", prog[i], R.error);
            play_result_clear(&R);
        }
        ck_assert_int_eq(differ(p, "r", "Q_rope"), 0);
        ck_assert_int_gt(differ(p, "r", "Q_heads"), 0); /* it did turn something */
        /* the tables are HF's: emb = cat(freqs, freqs), or each angle twice */
        const char *tab =
            l == ROPE_HALF ? "torch.cat((f, f), dim=-1)" : "f.repeat_interleave(2, dim=-1)";
        ck_assert_int_eq(
            play_eval(p, "inv_freq = 1.0 / (10000.0 ** (torch.arange(0, dh, 2).float() / dh))", &R),
            PR_TENSOR);
        play_result_clear(&R);
        ck_assert_int_eq(play_eval(p, "f = torch.outer(torch.arange(S).float(), inv_freq)", &R),
                         PR_TENSOR);
        play_result_clear(&R);
        char line[200];
        snprintf(line, sizeof line, "%s.cos()", tab);
        ck_assert_int_eq(differ(p, line, "cos"), 0);
        snprintf(line, sizeof line, "%s.sin()", tab);
        ck_assert_int_eq(differ(p, line, "sin"), 0);
        play_free(p);
    }
    /* RoPE off: no tables */
    error_is("cos", "name 'cos' is not defined");
}
END_TEST

static Suite *play_suite(void)
{
    Suite *s = suite_create("play");
    TCase *tc = tcase_create("play");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, issue_example_line);
    tcase_add_test(tc, strides_as_pytorch_prints_them);
    tcase_add_test(tc, views_and_copies_counted);
    tcase_add_test(tc, issue_errors_in_pytorch_words);
    tcase_add_test(tc, syntax_errors_have_a_column);
    tcase_add_test(tc, queries_answer_values);
    tcase_add_test(tc, zero_dim_and_empty);
    tcase_add_test(tc, completion_of_names_and_methods);
    tcase_add_test(tc, result_drawn_with_reads_in_order);
    tcase_add_test(tc, million_element_storage);
    tcase_add_test(tc, int64_extremes_as_pytorch);
    tcase_add_test(tc, memory_budget_of_the_names);
    tcase_add_test(tc, nothing_false_about_pytorch);
    tcase_add_test(tc, sizes_arithmetic_cat_neg_tril);
    tcase_add_test(tc, structural_ops_as_pytorch);
    tcase_add_test(tc, tuple_unpacking_as_python);
    tcase_add_test(tc, data_ptr_and_seeded_randn);
    tcase_add_test(tc, program_runs_to_its_first_error);
    tcase_add_test(tc, program_runs_reentrant);
    tcase_add_test(tc, subscript_assignment_writes_in_place);
    tcase_add_test(tc, numbers_and_attention_ops);
    tcase_add_test(tc, attention_errors_and_pipeline_bits);
    tcase_add_test(tc, unary_math_and_power);
    tcase_add_test(tc, rope_in_a_line_is_the_runs);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(play_suite)
