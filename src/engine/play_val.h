/* play_val.h - the values a playground expression evaluates to (private to
 * play.c, play_methods.c and play_format.c). */
#ifndef MHAVIZ_PLAY_VAL_H
#define MHAVIZ_PLAY_VAL_H

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
    V_TORCH /* a dtype name; the torch module */
} VKind;

typedef struct Val {
    VKind k;
    long i;          /* V_INT, V_BOOL */
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

#endif
