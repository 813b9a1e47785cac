/* play_val.h - the values a playground expression evaluates to (private to
 * the interpreter's files: play_eval.c, play_methods.c, play_math.c and
 * play_format.c). */
#ifndef MHAVIZ_PLAY_VAL_H
#define MHAVIZ_PLAY_VAL_H

#include "base/errbuf.h"
#include "engine/play.h"
#include "engine/tensorops.h"

typedef enum {
    V_NONE,
    V_INT,
    V_BOOL,
    V_TENSOR,
    V_SEQ,     /* tuple/list of ints; is_size: torch.Size */
    V_TENSORS, /* tuple/list of tensors: ts[0..n-1], dtypes tdt (torch.cat's argument) */
    V_STR,
    V_TORCH, /* a dtype name; the torch module */
    V_FLOAT, /* a Python float: f */
    V_TEXT,  /* a Python str (a literal): str, in the statement's AST */
    V_MODULE /* math, or F (torch.nn.functional): str is "math" or "F" */
} VKind;

typedef struct Val {
    VKind k;
    long i;          /* V_INT, V_BOOL */
    double f;        /* V_FLOAT */
    Tensor *t;       /* V_TENSOR: owned */
    PlayDtype dtype; /* V_TENSOR */
    long seq[PLAY_MAX_KIDS];
    int n;                     /* V_SEQ, V_TENSORS */
    Tensor *ts[PLAY_MAX_KIDS]; /* V_TENSORS: owned */
    PlayDtype tdt[PLAY_MAX_KIDS];
    int is_size;     /* V_SEQ: torch.Size */
    const char *str; /* V_STR: static */
    /* V_TENSOR: the name whose tensor this is itself (Python's `is`: a name,
     * or a.contiguous() of a contiguous a), else NULL */
    const char *name;
} Val;

/* An evaluation: the Play, the parsed statement, the op context (its
 * engine is the Play's: copies are counted in ops.eng->bytes_copied as
 * float32, and in bytes by dtype in copied_bytes). */
typedef struct Eval {
    const Play *p;
    const PlayAst *ast;
    OpCtx ops;
    uint64_t *rng; /* the Play's generator (torch.randn, torch.manual_seed) */
    size_t copied_bytes;
    int wrote; /* the statement wrote into memory that existed (t[i] = v, copy_) */
    char warning[400];
} Eval;

/* dst (a tensor of dtype dt) overwritten in place with v, as t[idx] = v
 * (setitem: 1) or dst.copy_(v) (0) does it: a tensor, or a number filled
 * in.  The bytes written are counted in e->copied_bytes and e->wrote set.
 * 0, or -1 with e->ops.err in PyTorch's words. */
int play_write(Eval *e, Tensor *dst, PlayDtype dt, const Val *v, int setitem);

void val_free(Val *v);
const char *val_type_name(const Val *v); /* Python's: "int", "Tensor", "tuple" */
/* A float as Python's repr writes it: 0.5, 2.0, 1e-09, -inf (play_format.c). */
void play_float_repr(double v, char *buf, size_t n);

/* A method or attribute of a tensor, or a torch.* function: args[0..n-1]
 * evaluated, kw[i] their keywords ("" for positional).  0 with *out set, or
 * -1 with e->ops.err set.  self is borrowed. */
int play_call_method(Eval *e, const Val *self, const char *name, Val *args,
                     char (*kw)[PLAY_NAME_MAX], int n, Val *out);
int play_get_attr(Eval *e, const Val *self, const char *name, Val *out);
int play_call_torch(Eval *e, const char *name, Val *args, char (*kw)[PLAY_NAME_MAX], int n,
                    Val *out);

/* The names the playground has, from its one table each (completion and
 * the "supported: ..." list): the i-th tensor member (method or attribute)
 * or torch function, NULL past the last.  play_torch_name_known: 1 if name
 * is one of the torch functions. */
const char *play_member_name(int i);
const char *play_torch_name(int i);
int play_torch_name_known(const char *name);

/* ---- play_math.c: numbers, arithmetic and the attention ops --------------- */

/* a OP b (op as PlayNode.name: "+", "/", "@", "==" ...) on numbers (Python's
 * int, float and bool) or tensors (engine/tensormath.h, with PyTorch's type
 * promotion: bool < int64 < float32, / gives float32, a comparison bool).
 * a and b are borrowed.  0 with *out set, or -1 with e->ops.err set. */
int play_binop(Eval *e, const char *op, const Val *a, const Val *b, Val *out);
/* The names a statement may call or read bare (the program's imports:
 * from math import sqrt; from torch.nn.functional import softmax; import
 * math; import torch.nn.functional as F) and Python's float(): 1 if name is
 * one, and the call. */
int play_builtin_known(const char *name);
int play_call_builtin(Eval *e, const char *name, Val *args, char (*kw)[PLAY_NAME_MAX], int n,
                      Val *out);
/* math.NAME and F.NAME: attributes (math.inf, math.pi) and calls
 * (math.sqrt, F.softmax). */
int play_module_attr(Eval *e, const Val *mod, const char *name, Val *out);
int play_call_module(Eval *e, const Val *mod, const char *name, Val *args,
                     char (*kw)[PLAY_NAME_MAX], int n, Val *out);
/* The tensor methods of play_math.c, rows of play_methods.c's one table:
 * softmax(dim), masked_fill(mask, value), matmul(other), float() long()
 * bool(). */
int play_m_softmax(Eval *e, const Val *self, const char *fn, Val *args, char (*kw)[PLAY_NAME_MAX],
                   int n, Val *out);
int play_m_masked_fill(Eval *e, const Val *self, const char *fn, Val *args,
                       char (*kw)[PLAY_NAME_MAX], int n, Val *out);
int play_m_matmul(Eval *e, const Val *self, const char *fn, Val *args, char (*kw)[PLAY_NAME_MAX],
                  int n, Val *out);
int play_m_convert(Eval *e, const Val *self, const char *fn, Val *args, char (*kw)[PLAY_NAME_MAX],
                   int n, Val *out);
/* cos() sin() exp() sqrt() rsqrt(): float32, a new storage, 0 bytes copied. */
int play_m_unary(Eval *e, const Val *self, const char *fn, Val *args, char (*kw)[PLAY_NAME_MAX],
                 int n, Val *out);
/* torch.outer(input, vec2): two 1-D tensors, input.reshape(-1, 1) * vec2. */
int play_t_outer(Eval *e, const char *fn, Val *args, char (*kw)[PLAY_NAME_MAX], int n, Val *out);
/* play_session.c's lookups, for the evaluator: the tensor named name (NULL:
 * none), the integer size named name (NULL: none).  play_var_set names t:
 * 0 with t the session's from then on (an earlier tensor of that name
 * freed), or -1 with t still the caller's when the session holds
 * PLAY_MAX_VARS names already. */
PlayVar *play_var(const Play *p, const char *name);
const long *play_int(const Play *p, const char *name);
int play_var_set(Play *p, const char *name, Tensor *t, PlayDtype dt);

/* A call's keywords, as the evaluator hands them on ("" for positional). */
typedef char Kw[PLAY_NAME_MAX];

/* Sets e's error (printf-like) and is -1: `return EFAIL(e, "...", ...)`. */
#define EFAIL(e, ...) (err_set((e)->ops.err, sizeof(e)->ops.err, __VA_ARGS__), -1)

/* play_methods.c's argument helpers, for play_math.c and play_torch.c.
 * play_bind: args to params[0..np-1], the first nreq required; slot[i]
 * NULL when omitted.  play_arg_int: v as an int, or "fn(): argument 'param'
 * must be int".  play_arg_sizes: *sizes, several ints or one tuple/list/
 * torch.Size, into out[*count].  Each 0, or -1 with e's error set. */
int play_bind(Eval *e, const char *fn, const char *const *params, int np, int nreq, Val *args,
              Kw *kw, int n, Val **slot);
int play_arg_int(Eval *e, const char *fn, const char *param, const Val *v, long *out);
int play_arg_sizes(Eval *e, const char *fn, Val *args, Kw *kw, int n, long *out, int *count);
/* An op's result t (NULL: its error is already set, -1) into out as a
 * tensor of dtype dt; the copies it made since before (the session
 * engine's count, float32 bytes) are counted in e->copied_bytes in dt's. */
int play_ret(Eval *e, Tensor *t, PlayDtype dt, size_t before, Val *out);
/* name is not in the playground (torch: a torch.* function, else a tensor
 * member): PyTorch's AttributeError when PyTorch lacks it too (Play.torch_names),
 * else "`name` is not in the playground yet (supported: ...)" listing names(i). */
int play_not_here(Eval *e, int torch, const char *name, const char *(*names)(int));
/* x.flip(dims): a copy, counted; torch.flip(input, dims) calls it. */
int play_m_flip(Eval *e, const Val *self, const char *fn, Val *args, Kw *kw, int n, Val *out);

#endif
