/* play.h - the stride playground: PyTorch tensor statements, evaluated.
 *
 * A Play holds named tensors (the pipeline's, preloaded, and the ones the
 * user names); play_eval() reads one statement, `NAME = EXPR` or `EXPR`,
 * and fills a PlayResult: the tensor (shape, strides, offset, storage),
 * whether it is a view of memory that existed before the statement or a
 * copy and how many bytes were copied, which names share its storage, or a
 * query's value, or an error in PyTorch's words (a syntax error also has
 * the column to put a caret under).  The semantics are PyTorch's; the ops
 * are engine/tensorops.h.  The grammar is in play_parse.c, the evaluator in play_eval.c.
 */
#ifndef MHAVIZ_PLAY_H
#define MHAVIZ_PLAY_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/tensor.h"

#define PLAY_MAX_VARS 4096
#define PLAY_NAME_MAX 32
#define PLAY_LINE_MAX 1024 /* longer statements are refused */
/* The memory budget of the playground, its engine's (engine/engine.h): the
 * storages the session made and still holds (its names' and a statement's
 * temporaries; not the preloaded run's) total at most this, and one storage
 * at most TENSOROPS_MAX_STORAGE elements.  A statement past it fails with a
 * "mhaviz play: over the budget of 256 MB ..." error and names nothing. */
#define PLAY_BUDGET_MB 256

/* The dtypes: each tensor's values are floats in the engine (an int64 a
 * whole float, a bool 0 or 1); the dtype says what PyTorch would hold, so
 * its element size (4, 8, 1) counts the bytes. */
typedef enum { PD_FLOAT32, PD_INT64, PD_BOOL } PlayDtype;

typedef struct PlayVar {
    char name[PLAY_NAME_MAX];
    Tensor *t; /* owned */
    PlayDtype dtype;
} PlayVar;

#define PLAY_MAX_INTS 16

typedef struct Play {
    /* The session's engine: the storages it makes are numbered after the
     * preloaded run's (no label shown twice), with its budget and copies. */
    Engine *eng;
    PlayVar vars[PLAY_MAX_VARS];
    int n;
    int preloaded; /* vars[0..preloaded-1] came from the pipeline */
    /* integer names: the configuration's sizes (B, S, D, H, KV, G, dh), so a
     * statement reads Q.view(B, S, H, dh); a tensor name of the same spelling
     * shadows one */
    struct {
        char name[PLAY_NAME_MAX];
        long v;
    } ints[PLAY_MAX_INTS];
    int nints;
    /* The names PyTorch 1.13 has, one "prefix.name" a line ("\nTensor.chunk\n"):
     * assets/pytorch-1.13.names, set by the caller (content_pytorch_names();
     * the engine reads no files).  It tells a method the playground lacks
     * ("`x` is not in the playground yet") from one PyTorch lacks too
     * (AttributeError).  NULL: every unknown name is an AttributeError. */
    const char *torch_names;
    /* torch.randn's generator: mhaviz's own (splitmix64, Box-Muller), seeded
     * 0 by play_new and n by torch.manual_seed(n): the same numbers every
     * run of mhaviz, not PyTorch's */
    uint64_t rng;
    /* rope(t)'s rotation (engine/rope.h), set for a run with RoPE on
     * (mha_play_new, the pipeline's own Play): layout 0 is off. */
    int rope_layout;
    double rope_theta;
} Play;

typedef enum {
    PR_EMPTY,  /* a blank line or a # comment: nothing to show */
    PR_TENSOR, /* t is the result */
    PR_VALUE,  /* a query: value_text / value_json */
    PR_TUPLE,  /* a tuple of tensors (x.chunk(3), q, k, v = ...): parts; value_text sums it up */
    PR_ERROR   /* error (error_col >= 0: a syntax error at that column) */
} PlayKind;

/* PM_SAME: the result is a named tensor itself (`a`, or a.contiguous() of a
 * contiguous a: PyTorch returns self); PM_VIEW: a new tensor on memory that
 * existed; PM_COPY: a new storage the statement copied into; PM_NEW: a new
 * storage (torch.zeros); PM_WRITE: memory that existed, written in place
 * (`t[0] = v`, t.copy_(v): the statement names no new tensor, its
 * copied_bytes are the bytes written). */
typedef enum { PM_VIEW, PM_COPY, PM_NEW, PM_SAME, PM_WRITE } PlayMemory;

/* One tensor of a PR_TUPLE result: its name when unpacked into names. */
typedef struct PlayPart {
    char name[PLAY_NAME_MAX]; /* "" for a bare expression */
    Tensor *t;                /* owned by the result */
    PlayDtype dtype;
    PlayMemory memory;
    char same_as[PLAY_NAME_MAX];
} PlayPart;

#define PLAY_MAX_PARTS 16

typedef struct PlayResult {
    PlayKind kind;
    char name[PLAY_NAME_MAX]; /* "" for a bare expression */
    Tensor *t; /* PR_TENSOR: owned by the result (a named one also lives in the Play) */
    PlayDtype dtype;
    PlayMemory memory;           /* the same tensor, a view of memory that existed, a copy, new */
    char same_as[PLAY_NAME_MAX]; /* PM_SAME: the name it is */
    size_t copied_bytes;         /* bytes this statement copied */
    char shares[256];            /* other names on the same storage: "Q, Q_split" */
    char value_text[256];        /* PR_VALUE, as Python prints it: torch.Size([2, 12]) */
    char value_json[256];        /* the same as JSON: [2, 12] */
    char warning[400];           /* PyTorch's UserWarning, if the statement raises one */
    char error[800];
    int error_col; /* 0-based column of a syntax error; -1 otherwise */
    int nparts;    /* PR_TUPLE: parts[0..nparts-1] */
    PlayPart parts[PLAY_MAX_PARTS];
} PlayResult;

/* A new, empty playground with an engine of its own (p->eng, the
 * PLAY_BUDGET_MB budget) whose storages are numbered after after's (may be
 * NULL).  A run's tensors and sizes are preloaded by mha_play_new
 * (engine/mha.h).  NULL when out of memory. */
Play *play_new(const Engine *after);
/* A playground computing in engine e itself (a run's: its storage ids, its
 * copy count, its budget, none for a run): it holds a reference on e.  For
 * the pipeline, which runs its program in its own engine (engine/mha.c).
 * NULL when out of memory. */
Play *play_new_in(Engine *e);
void play_free(Play *p);

/* Binds the integer name to v (replaces an earlier value).  0, or -1 when
 * PLAY_MAX_INTS names are bound already or the name does not fit. */
int play_set_int(Play *p, const char *name, long v);
/* Binds name to tensor t of dtype dt: p takes t (freed on failure).  0 or -1. */
int play_set_tensor(Play *p, const char *name, Tensor *t, PlayDtype dt);

/* Evaluates one statement (no newline).  Always fills r (cleared first with
 * play_result_clear, so r must be zeroed or a previous result); returns
 * r->kind.  A statement that fails changes no name. */
PlayKind play_eval(Play *p, const char *line, PlayResult *r);
void play_result_clear(PlayResult *r); /* frees r->t; r stays reusable */

/* Fills r as the error why for a line refused before it is parsed (a NUL
 * byte, a line too long: base/lineread.h); col >= 0 puts a caret under that
 * 0-based column.  Returns PR_ERROR. */
PlayKind play_refuse(PlayResult *r, const char *why, int col);

/* The bytes held by the storages of p's names, each storage counted once. */
size_t play_live_bytes(const Play *p);

/* The names on t's storage, other than skip (may be NULL): "Q, Q_split". */
void play_shares(const Play *p, const Tensor *t, const char *skip, char *buf, size_t n);

/* What r's memory is, for people: "view: same storage, 0 bytes copied",
 * "the same tensor as a (a.contiguous() returns a itself), 0 bytes copied",
 * "copy: 192 bytes copied into a new storage", "new storage".  Returns buf. */
const char *play_memory_text(const PlayResult *r, char *buf, size_t n);
/* The same in one word: "same", "view", "copy", "new". */
const char *play_memory_word(const PlayResult *r);

/* One JSON object on one line (no newline) for the result of input line
 * `line`: {"line": 1, "name": "b", "ok": true, "shape": [...], ...}. */
void play_result_json(const PlayResult *r, int line, char *buf, size_t n);
/* A PR_TENSOR result's values as a JSON array, row-major over its shape
 * (play --json --values): numbers (%.9g: a float32 reads back exactly;
 * Infinity and NaN as Python's json writes them), true/false for a bool.
 * Cut short when n is too small; "" for another kind. */
void play_result_values_json(const PlayResult *r, char *buf, size_t n);
/* The same for people (--plain): a few lines, each ending in '\n'. */
void play_result_text(const PlayResult *r, const char *line, char *buf, size_t n);

/* The Python exception a PR_ERROR result is, for a program's report:
 * "SyntaxError", "NameError", "AttributeError", "IndexError", "TypeError",
 * "ValueError", "NotImplementedError" (what the playground lacks, PyTorch
 * has) or "RuntimeError" (PyTorch's own, and the playground's limits). */
const char *play_error_kind(const PlayResult *r);

/* "torch.float32" / "torch.int64" / "torch.bool"; element size 4 / 8 / 1. */
const char *play_dtype_name(PlayDtype d);
size_t play_dtype_size(PlayDtype d);

/* Tab completion of the word that ends at column pos of line: names after
 * a space or '(' etc, methods and attributes after "NAME." (any tensor
 * expression), torch functions after "torch.".  Writes up to max matches
 * (each at most PLAY_NAME_MAX bytes) into out, sorted; returns their count
 * and sets *word_start to the column where the completed word starts. */
int play_complete(const Play *p, const char *line, int pos, char (*out)[PLAY_NAME_MAX], int max,
                  int *word_start);

/* ---- play_session.c: a program, one statement a line --------------------------- */

/* One statement of a program as it ran: its 1-based line in the text, the
 * statement, its result (valid during the callback only). */
typedef struct PlayStep {
    int line;
    const char *stmt;
    const PlayResult *r;
} PlayStep;

/* Called for each statement that ran (blank lines and # comments are
 * skipped); nonzero stops the program there. */
typedef int PlayStepFn(void *ctx, const PlayStep *s);

/* Runs text (statements separated by '\n', a trailing '\r' dropped) in p
 * in order, calling each (may be NULL) after every statement, the failing
 * one included.  Stops at the first error: returns its 1-based line and
 * writes "FILE:LINE: words" (file given: base/errbuf.h err_at) or "line
 * LINE: words" into err, the words PyTorch's (PlayResult.error).  0 when
 * every statement ran; a stop asked by each returns its line too.  The
 * names it binds stay in p. */
int play_run(Play *p, const char *text, const char *file, PlayStepFn *each, void *ctx, char *err,
             size_t errlen);

/* ---- play_parse.c: the statement grammar ------------------------------------ */

typedef enum {
    PN_NAME,
    PN_INT,
    PN_FLOAT,
    PN_STR,
    PN_NONE,
    PN_TRUE,
    PN_FALSE,
    PN_TUPLE,
    PN_LIST,
    PN_ATTR,
    PN_CALL,
    PN_INDEX,
    PN_SLICE,
    PN_ELLIPSIS,
    PN_NEG,
    PN_BINOP
} PlayNodeKind;

#define PLAY_MAX_KIDS 16
#define PLAY_MAX_NODES 512

/* One node of a parsed statement.  ATTR: kid 0 the object, name the
 * attribute.  CALL: kid 0 the callee, then the arguments (kw: the keyword or
 * ""); INDEX: kid 0 the object, then the subscripts; SLICE: kids 0..2 start,
 * stop, step (-1 when omitted); TUPLE/LIST: the items; NEG: kid 0; BINOP:
 * kids 0 and 1, name the operator: "+", "-", "*", "/", "//", "%", "@" or a
 * comparison "==" "!=" "<" "<=" ">" ">="; FLOAT: fval; STR: name the text. */
typedef struct PlayNode {
    PlayNodeKind kind;
    int col;
    long ival;
    double fval;
    char name[PLAY_NAME_MAX];
    char kw[PLAY_NAME_MAX];
    int kids[PLAY_MAX_KIDS];
    int nkids;
} PlayNode;

typedef struct PlayAst {
    PlayNode nodes[PLAY_MAX_NODES];
    int n;
    int root;                   /* the expression */
    char target[PLAY_NAME_MAX]; /* NAME of `NAME = EXPR`, or "" */
    /* `a, b, c = EXPR` (or `a, = EXPR`): the names to unpack into, else 0 */
    char targets[PLAY_MAX_KIDS][PLAY_NAME_MAX];
    int ntargets;
    int store; /* `OBJ[subs] = EXPR`: the PN_INDEX node written into (root is EXPR), else -1 */
    int empty; /* blank or a comment */
} PlayAst;

/* Parses line into ast.  0, or -1 with a message and the column to put a
 * caret under. */
int play_parse(const char *line, PlayAst *ast, char *err, size_t errlen, int *col);

#endif
