/* mha.h - multi-head attention on the tensor engine, with a trace.
 *
 * mha_run() runs the pipeline of src/README.md (steps 0..10, and the rope step
 * after "heads first" when the config turns RoPE on) on a seeded toy input
 * and keeps every intermediate tensor by name, plus one MhaStep per step with
 * its PyTorch-style code line and the bytes the engine counted as copied.
 * Convention: y = x @ W, W is (in, out), no bias, float32, row-major.
 */
#ifndef MHAVIZ_MHA_H
#define MHAVIZ_MHA_H

#include <stddef.h>
#include <stdint.h>

#include "engine/play.h"
#include "engine/rope.h"
#include "engine/tensor.h"

/* Limits that keep every command responsive; the error messages quote them. */
#define MHA_MAX_BATCH 64
#define MHA_MAX_SEQ 1024
#define MHA_MAX_DMODEL 1024
#define MHA_MAX_SEED 4294967295UL

typedef struct MhaConfig {
    int batch, seq, d_model, heads, kv_heads; /* kv_heads divides heads */
    int causal;                               /* 0/1 */
    uint32_t seed;
    RopeLayout rope;   /* ROPE_OFF (0): no rotation, the core pipeline */
    double rope_theta; /* the base of inv_freq, > 0; read only when rope is on */
    int window;        /* 0: off; W: a rolling window over the causal mask (needs causal):
                          query i sees key j iff i - W < j <= i (Mistral, Gemma's local layers) */
    int shared_prefix; /* 0: off; P: every sequence's first P tokens of x are sequence 0's
                          (a batch sharing a prompt prefix: decode --shared-prefix) */
} MhaConfig;

/* batch 1, seq 4, d_model 8, heads 2, kv_heads 2, seed 1, no mask, RoPE off
 * (theta 10000 for when it is turned on). */
MhaConfig mha_config_default(void);

/* 1 when a and b are the same configuration, field by field (never memcmp:
 * the struct has padding, which a copy need not keep). */
int mha_config_same(const MhaConfig *a, const MhaConfig *b);

/* The window's band over scores (..., n, T) whose row r is the query at
 * position q0 + r and column j the key at position j: -inf wherever
 * j <= q0 + r - window (the causal half is tensor_causal_mask_'s).  In
 * place; nothing when window is 0. */
void mha_band_mask_(Tensor *scores, int window, int q0);

/* 0 when valid.  Otherwise -1 and a one-line reason naming the flag and what
 * would be valid, e.g. "--heads 3: d_model 8 is not divisible by 3 (try 1, 2, 4 or 8)".
 * RoPE needs an even d_head and a positive theta; a window needs causal; a
 * shared prefix is 0 .. seq tokens. */
int mha_config_check(const MhaConfig *c, char *err, size_t errlen);

/* The toy values: x and the weights are multiples of 0.1 in [-1, 1] drawn
 * from the seed (with a shared prefix of P, x[b, :P] is then x[0, :P] for
 * every b: the same draws, the weights unchanged), so a dot product can be checked by hand.  Past
 * MHA_TENTHS_MAX_D (where hand-checking is out of reach) the four weights
 * are those tenths times 1/sqrt(d_model), as a real init scales them, so Q,
 * K and V stay about the size of x and a softmax row stays a distribution
 * instead of one-hot.  x is always tenths.  mha_weights_scaled says which is
 * in use: 1 for the scaled weights, 0 for plain tenths. */
#define MHA_TENTHS_MAX_D 16
int mha_weights_scaled(const MhaConfig *c);

/* The tensors a run keeps, in export order.  Names as in `mhaviz export`, plus the
 * GQA sharing tensors: K_expand/V_expand (B,KV,G,S,dh) stride-0 views and
 * K_repeat/V_repeat (B,H,S,dh) repeat_interleave copies.  Q_rope (B,H,S,dh) and
 * K_rope (B,KV,S,dh) exist only when RoPE is on (NULL otherwise); then the
 * scores, K_expand and K_repeat are made from them. */
/* clang-format off */
enum {
    MT_X, MT_W_Q, MT_W_K, MT_W_V, MT_W_O,
    MT_Q, MT_K, MT_V,
    MT_Q_SPLIT, MT_K_SPLIT, MT_V_SPLIT,
    MT_Q_HEADS, MT_K_HEADS, MT_V_HEADS,
    MT_Q_ROPE, MT_K_ROPE,
    MT_K_EXPAND, MT_V_EXPAND,
    MT_SCORES, MT_ATTN, MT_HEAD_OUT,
    MT_MERGED, MT_MERGED_CONTIG, MT_CONCAT, MT_OUT,
    MT_ATTN_SINGLE, MT_Q_WRONG,
    MT_K_REPEAT, MT_V_REPEAT,
    MT_ATTN_NOSCALE, /* the bug of forgetting 1/sqrt(dh): softmax of unscaled scores */
    MT_COUNT
};
/* clang-format on */
extern const char *const mha_tensor_names[MT_COUNT];

/* Steps, numbered as in src/README.md, The pipeline: MS_COUNT core steps,
 * which every run makes, then MS_ROPE, which only a run with RoPE on makes.
 * A run goes through them in its own order (mha_step_at): with RoPE on, the
 * rope step comes right after heads first, and the steps are numbered in
 * that order ("step 4/11 rope", "step 5/11 scores"); with RoPE off the
 * numbers are the MS_* values. */
/* clang-format off */
enum {
    MS_INPUT, MS_PROJECT, MS_SPLIT, MS_HEADS, MS_SCORES, MS_SOFTMAX,
    MS_WEIGHTED, MS_BACK, MS_CONTIG, MS_CONCAT, MS_OUT,
    MS_COUNT,
    MS_ROPE = MS_COUNT, /* Q, K = rope(Q, pos), rope(K, pos) */
    MS_ALL
};
/* clang-format on */

/* One row of the pipeline table (src/README.md, The pipeline): the one place that names a
 * step and says what shape it makes.  Its code is what the program ran
 * (engine/mha_prog.c, MhaStep.ran); the program panel says which of its
 * lines each step lights (mha_panel).  Shapes are in symbols: B batch, S seq, D
 * d_model, H heads, KV kv_heads, dh d_head; mha_shape_of() puts the numbers in. */
typedef struct MhaStepInfo {
    const char *name;  /* "split heads" */
    const char *key;   /* "split": for --step NAME */
    int reads_all;     /* its inputs: what all its statements read (project: x; rope:
                          Q_heads and K_heads), else what made its output read */
    const char *shape; /* the output's shape: "(B, S, H, dh)" */
    int output;        /* MT_*: the tensor the step makes (its logical tensor) */
    const char *var;   /* what the panel (mha_panel) calls that tensor: "Q", "attn", "y" */
} MhaStepInfo;
extern const MhaStepInfo mha_steps[MS_ALL];

/* statements one step runs, at most (mha_run fails past it); the run's
 * tensors one step reads, at most (project: x, W_Q, W_K, W_V) */
#define MHA_STEP_STMTS 6
#define MHA_STEP_INPUTS 4
#define MHA_STEP_CODE 512 /* MhaStep.code's bytes: MHA_STEP_STMTS statements and "; " */

typedef struct MhaStep {
    const char *name; /* "split heads": mha_steps[i].name */
    const char *key;  /* "split": mha_steps[i].key */
    /* What the step ran, as one line: its `ran` statements joined with
     * "; " ("Q_split = Q.view(B, S, H, dh); K_split = ..."), "x" for the
     * input.  Export's "code", the walkthrough's ▶ line, {code STEP}. */
    char code[MHA_STEP_CODE];
    int inputs[MHA_STEP_INPUTS], n_inputs; /* MT_* */
    int output;                            /* MT_* */
    int is_view;                           /* output shares its input's storage */
    size_t bytes_copied; /* what the run's engine counted as copied over this step */
    /* The statements of the pipeline's program (engine/mha_prog.c) the step
     * ran, in order: static strings ("Q = x @ W_Q", "K = x @ W_K", ...); none
     * for the input. */
    const char *ran[MHA_STEP_STMTS];
    int n_ran;
    int made[MHA_STEP_STMTS], n_made; /* MT_*: the run's tensors those statements assigned */
} MhaStep;

typedef struct Mha {
    MhaConfig cfg;
    Engine *eng;               /* the run's own: its storage ids (S1 ...) and copied bytes */
    int d_head, groups;        /* groups = heads / kv_heads: query heads per kv head */
    float scale;               /* what step 4 multiplied the scores by: 1 / sqrt(d_head) */
    Tensor *t[MT_COUNT];       /* owned; NULL: Q_rope, K_rope with RoPE off */
    MhaStep steps[MS_ALL];     /* steps[MS_ROPE] only with RoPE on */
    size_t bytes_copied_total; /* over the run's steps */
} Mha;

/* Runs the pipeline in a new engine of its own (m->eng: storages S1, S2 ...
 * whatever else is alive).  NULL with a reason in err if the config is
 * invalid or memory runs out.  Free with mha_free(); tensors taken from m
 * (tensorops_alias) keep its engine alive. */
Mha *mha_run(const MhaConfig *c, char *err, size_t errlen);
void mha_free(Mha *m);

/* HF's conversion of Meta's llama weights (huggingface/transformers
 * convert_llama_weights_to_hf.py, permute: w.view(H, dh/2, 2, D).transpose(1,
 * 2).reshape(H*dh, D) on the (out, in) W_Q and W_K) reorders each head's
 * outputs so that float 2i goes to i and 2i+1 to i + dh/2.  For a run with
 * RoPE on, this recomputes the scores with the other layout on the weights so
 * permuted (interleaved run: half on the permuted W_Q, W_K; half run:
 * interleaved on the inverse permutation) and returns the largest |difference|
 * from the run's scores: a rounding error, as both compute the same
 * rotation.  unpermuted: the same without the permutation (a real
 * difference).  -1 when RoPE is off. */
float mha_rope_hf_diff(const Mha *m, int unpermuted);

/* The pipeline's program (engine/mha_prog.c): the PyTorch statements the
 * run executes with the interpreter, in order, over the run's tensor names
 * and sizes (B S D H KV G dh, W the window).  mha_program_count() rows;
 * mha_program_stmt(c, i, &step) is row i's statement when config c runs it
 * (NULL when not: MHA or GQA, RoPE, the mask and the window choose), step its MS_* (-1:
 * a teaching tensor after the trace).  mha_program_run fills m->t after x
 * and the weights and records m->steps from what the statements did; 0, or
 * -1 with the reason (mha_run's errors). */
int mha_program_count(void);
const char *mha_program_stmt(const MhaConfig *c, int i, int *step);
int mha_program_run(Mha *m, char *err, size_t errlen);

/* The tensors step `step` names in run a, and then in run b (NULL: none),
 * each once: the step's inputs, then what its statements made (Q_split,
 * K_split, V_split; a GQA run's K_expand) that both runs hold, into
 * ts[0..max); returns how many.  What a compare (export --compare, the
 * compare view) diffs. */
int mha_step_tensors(const Mha *a, const Mha *b, int step, int *ts, int max);

/* A new playground (engine/play.h) with the tensors of run m preloaded by
 * their names (mha_tensor_names, float32) and its sizes as integer names
 * (B S D H KV G dh, and W with a window: the names of mha_panel's lines);
 * m may be NULL (an empty one).  The Play keeps its own references, so m
 * may be freed afterwards; its engine numbers its storages after m's.  The
 * caller sets Play.torch_names.  NULL when out of memory. */
Play *mha_play_new(const Mha *m);
/* Binds run m's sizes in p by the names its programs use: B S D H KV G dh,
 * and W with a window (engine/mha_prog.c's one table of them). */
void mha_play_sizes(Play *p, const Mha *m);

int mha_tensor_index(const char *name);        /* -1 if unknown */
int mha_step_index(const char *key_or_number); /* "split", "2" -> MS_SPLIT; -1 if unknown */

/* The steps of a run of config c, in its order: mha_step_total(c) of them
 * (11, or 12 with RoPE on), mha_step_at(c, k) the MS_* of the k-th (-1 out
 * of range), mha_step_number(c, s) the number the screens show for step s
 * (-1 when the run does not make it), mha_step_on(c, s) whether it does.
 * mha_step_find(c, s) reads a --step value against that numbering: a key,
 * a name or a number of this run; -1 if unknown or not in the run. */
int mha_step_total(const MhaConfig *c);
int mha_step_at(const MhaConfig *c, int k);
int mha_step_number(const MhaConfig *c, int step);
int mha_step_on(const MhaConfig *c, int step);
int mha_step_find(const MhaConfig *c, const char *key_or_number);
int mha_kv_head_of(const MhaConfig *c, int query_head); /* h / (heads / kv_heads) */

/* A word for token s, so a row reads as a token ("the", "cat", ...; "t16"
 * from the 17th on).  Static storage: valid for the life of the program. */
const char *mha_token_word(int s);

/* The seeded generator: splitmix64 over the seed, each draw an integer in
 * [-10, 10] divided by 10, so every value is a multiple of 0.1 in [-1, 1]. */
typedef struct MhaRng {
    uint64_t s;
} MhaRng;
void mha_rng_seed(MhaRng *r, uint32_t seed);
uint64_t mha_rng_next(MhaRng *r); /* the next 64 random bits */
float mha_rng_tenth(MhaRng *r);

/* Which picture of a run a screen shows: the step's own, or one of the two
 * failures the run also computes (lessons pick them with @view). */
typedef enum {
    MV_STEP,       /* the step's own screen */
    MV_WRONG_VIEW, /* Q.view(B, H, S, dh) without the transpose: tokens scrambled across heads */
    MV_NO_SCALE,   /* softmax without 1/sqrt(dh): saturation */
    MV_COUNT
} MhaView;

/* The failure pictures, as mha_steps gives the steps: the bug, a line
 * that replaces one of the panel's program (mha_panel) and that the run
 * executes as it is shown, and the name of the panel's program that then
 * holds the failure's tensor. */
typedef struct MhaViewInfo {
    const char *key;   /* "wrong": for --view NAME */
    const char *title; /* "Q.view(B, H, S, dh) without the transpose" */
    const char *code;  /* the bug: "Q_wrong = Q.view(B, H, S, dh)" */
    const char *name;  /* what holds the tensor, the bug's line run: "Q_wrong", "attn" */
    int tensor;        /* MT_*: the tensor it shows */
} MhaViewInfo;
extern const MhaViewInfo mha_views[MV_COUNT]; /* [MV_STEP] is empty */

/* The wrong view's bug, one string for mha_views and the run's program
 * (engine/mha_prog.c runs it where Q is x @ W_Q, as on the panel's line). */
#define MHA_WRONG_VIEW_CODE "Q_wrong = Q.view(B, H, S, dh)"

/* The walkthrough's program panel (engine/mha_panel.c): the pipeline as a
 * learner writes it in PyTorch, lines of at most MHA_PANEL_W characters
 * over the run's names (x W_Q W_K W_V W_O) and sizes (B S D H KV G dh, W),
 * that computes out, as the run does.  Its lines are config c's: RoPE's line
 * with RoPE on, K and V shared by the G query heads of a group (Q viewed
 * in groups, K and V unsqueezed: stride 0) for GQA and MQA only, the
 * mask's lines with causal
 * (the window's band with a window).  For a failure picture v, the line its
 * bug is about is replaced by mha_views[v].code (p->bug; -1 for MV_STEP).
 * The lines are static strings. */
#define MHA_PANEL_MAX 20 /* lines, at most */
#define MHA_PANEL_W 45   /* characters of a line, at most: the panel's width */
typedef struct MhaPanel {
    int n;
    const char *line[MHA_PANEL_MAX];
    int bug;                /* the line the failure's bug replaced; -1: none */
    int row[MHA_PANEL_MAX]; /* private: the table's row of each line */
} MhaPanel;
void mha_panel(const MhaConfig *c, MhaView v, MhaPanel *p);
/* The part of line i that step runs (lights): a pointer into p->line[i]
 * and its length in *len; NULL (*len 0) when the step does not run line i.
 * In a failure's panel only the bug is lit, whole, whatever the step. */
const char *mha_panel_lit(const MhaPanel *p, int i, int step, int *len);
/* The first line step lights (-1: none) and in *last its last. */
int mha_panel_first_lit(const MhaPanel *p, int step, int *last);

/* The numbers of a symbolic shape for config c: "(B, S, H, dh)" with
 * batch 1, seq 4, heads 2, d_model 8 gives {1, 4, 2, 4}, 4.  Symbols: B, S,
 * D, H, KV, G, dh, and KV*dh.  Returns the rank, or -1 on an unknown
 * symbol or more than max dims. */
int mha_shape_of(const MhaConfig *c, const char *shape, int *dims, int max);

/* The next configuration along one knob, as the H, K and S keys and the
 * lessons' exercises step: heads to the next divisor of d_model (wrapping to
 * 1; MHA stays MHA, else kv_heads keeps dividing), kv_heads to the next
 * smaller divisor of heads (MHA -> GQA -> MQA -> MHA), seq 2..8 round. */
typedef enum { MHA_NEXT_HEADS, MHA_NEXT_KV_HEADS, MHA_NEXT_SEQ } MhaNext;
void mha_config_next(MhaConfig *c, MhaNext what);

/* ---- the program's dataflow (engine/mha_prog.c), for listings ------------
 * A listing of the pipeline (the quiz's) is rows of the program itself: the
 * row that makes a tensor and the rows it transitively reads, in program
 * order, so it shows the run's own statements and names. */

/* Row i's statement as config c runs it, with the sizes (B S D H KV G dh W,
 * not a method's or keyword's name) written as numbers: "Q_split =
 * Q.view(2, 32, 4, 16)".  buf (n bytes), or NULL when c does not run row i
 * or it does not fit. */
const char *mha_program_sized(const MhaConfig *c, int i, char *buf, size_t n);
/* The name row i assigns ("Q_split", or a temporary: "Q_groups", "mask")
 * into lhs (PLAY_NAME_MAX bytes), and the names it reads into rhs[0..max):
 * every identifier after the '=' but a method (after a '.'), a keyword
 * (dim=) or a string's text, once each, in order ("Q", "B", "S", "H", "dh"
 * for Q_split: sizes and bare functions among them).  Returns how many it
 * reads, or -1 when c does not run row i. */
int mha_program_names(const MhaConfig *c, int i, char *lhs, char (*rhs)[PLAY_NAME_MAX], int max);
/* Sets need[r] = 1 (need: mha_program_count() bytes, the caller's) for the
 * row r of c's program that last assigns name and for every row it
 * transitively reads, each name read made by the last row before it that
 * assigns it (back to x and the weights, which no row assigns).  Returns
 * the row that assigns name, or -1 when no row c runs does. */
int mha_program_need(const MhaConfig *c, const char *name, unsigned char *need);

#endif
