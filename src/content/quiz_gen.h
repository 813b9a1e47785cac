/* quiz_gen.h - what the question generators share (inside content/ only).
 *
 * A generator gets a Gen (the question to fill, its own random stream) and
 * builds its tensors with the engine: qb_begin() runs mha_run() on the
 * question's configuration and qb_need() picks the tensors the question
 * shows as the statements of the run's own program that made them (and
 * what they read), in program order, with the sizes written in
 * (engine/mha.h, the program's dataflow), the bytes the engine counted and
 * the strides it produced.
 */
#ifndef MHAVIZ_QUIZ_GEN_H
#define MHAVIZ_QUIZ_GEN_H

#include <stddef.h>

#include "base/textutil.h"
#include "content/quiz.h"
#include "engine/play.h"

typedef struct Gen {
    QuizQuestion *q;
    QuizRng r;
    char *err;
    size_t errlen;
} Gen;

/* ---- text (quiz_text.c) --------------------------------------------------- */

/* Appends printf-style text to buf (NUL-terminated, size n); never overflows. */
void qt_cat(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* "(2, 8, 16, 64)", "(4,)": k values into buf.  Returns buf. */
char *qt_fmt_tuple(char *buf, size_t n, int k, const long long *v);
/* Row-major strides for t's shape, formatted: what "contiguous" means. */
char *qt_rowmajor(char *buf, size_t n, const Tensor *t);
/* "x is (B, S, D): batch B, S tokens, ...; H heads (d_head dh)[, KV kv heads (GQA)].\n" */
void qt_config_line(const MhaConfig *c, char *buf, size_t n);
/* One sentence on what the step that made tensor id does. */
const char *qt_step_note(int id);

/* ---- choices (quiz_choice.c) ---------------------------------------------- */

/* Adds choice s to q unless it repeats one.  1 added, 0 not. */
int qc_add(QuizQuestion *q, const char *s);
/* Turns q into multiple choice: `correct` and up to `want` distinct
 * distractors from cand (repeats of the answer dropped), the key placed at a
 * position drawn uniformly from r.  cand is shuffled in place. */
void qc_make(QuizQuestion *q, QuizRng *r, const char *correct, char (*cand)[QUIZ_CHOICE_MAX],
             int ncand, int want);
/* Fixed choices (as given) in an order drawn from r; correct indexes the
 * given order.  The key lands uniformly on every position. */
void qc_fixed(QuizQuestion *q, QuizRng *r, const char *const *texts, int n, int correct);
/* A uniform draw from v[0..n). */
int qc_pick(QuizRng *r, const int *v, int n);
/* Makes q the yes/no question of every topic: QK_CHOICE, the choices "yes"
 * and "no" in this order (fair because each generator draws yes as often as
 * no), correct 0 when yes. */
void qc_yes_no(QuizQuestion *q, int yes);

/* ---- building with the engine (quiz_build.c) ------------------------------ */

#define QB_LINES 32 /* a listing's lines, at most: the pipeline's program has fewer rows */
#define QB_LINE 128

typedef struct QBuild {
    Mha *m; /* the engine's run of c (owned): every tensor shown is one of its */
    MhaConfig c;
    int B, S, D, H, KV, dh, G;
    /* The listing: rows of the run's own program (mha_program_stmt), in
     * program order, that make the shown tensors and what they read. */
    int n;
    int row[QB_LINES];            /* the program's row */
    int made[QB_LINES];           /* the MT_* it assigns; -1: a temporary (Q_groups, mask) */
    char line[QB_LINES][QB_LINE]; /* the row with the sizes written in (mha_program_sized) */
    size_t copied[QB_LINES];      /* bytes the engine copied to make it */
    char err[240];
    /* qb_play: the listing run by the interpreter, from x and the weights
     * alone; ran[k] what line k gave */
    Play *play;
    Tensor *ran[QB_LINES];
} QBuild;

/* Runs the pipeline on c.  0, or -1 with b->err set (nothing to free). */
int qb_run(QBuild *b, const MhaConfig *c);
/* Adds to the listing the program's row that makes tensor id and every row
 * it transitively reads (none for x and the weights).  0, or -1 (err set). */
int qb_need(QBuild *b, int id);
/* The listing line that made tensor id, or -1 (an input, or not shown). */
int qb_line_of(const QBuild *b, int id);
const Tensor *qb_t(const QBuild *b, int id);
void qb_free(QBuild *b);
/* The shown code lines, one per line, indented by four spaces. */
void qb_code_lines(const QBuild *b, char *buf, size_t n);
/* Runs the listing's lines, in order, in a Play that holds only x and the
 * weights (b->play, freed by qb_free): each line that makes a run tensor
 * must give it (shape, strides, offset), and a line that moves numbers
 * must copy as many bytes as the run counted, else the listing is refused.
 * 0, or -1 with b->err naming the line.  A second call does nothing. */
int qb_play(QBuild *b);
/* "The engine ran:" and each shown line with its shape, strides, view/copy,
 * as the interpreter ran it (qb_play).  0, or -1 with b->err: the listing
 * does not run as shown, and the question must not be asked. */
int qb_working(QBuild *b, char *buf, size_t n);
/* g->err from b->err, b freed; returns -1 (a generator's refusal). */
int qb_refuse(Gen *g, QBuild *b);
/* Runs c, shows target, and records topic/cfg/tensor in g->q.  0 or -1. */
int qb_begin(Gen *g, QBuild *b, const MhaConfig *c, int target, int topic);
/* The tensor whose storage id's lives in (what the candy bar draws): the
 * first the program makes that shares it (Q for Q_heads). */
int qb_storage_owner(const QBuild *b, int id);

/* ---- a listing of its own (quiz_run.c) ----------------------------------- */

/* Runs lines[0..n) in p, in order, from their text (a listing that makes
 * what it reads: torch.zeros, torch.arange, or the run's x and weights that
 * p holds), and appends to working "The engine ran:" and each line with
 * the shape, strides and copy the interpreter gave, as qb_working does.
 * copied (may be NULL) gets each line's copied bytes.  The names stay in p.
 * 0, or -1 with err naming the line: the question must not be asked. */
int qr_listing(Play *p, char (*lines)[QB_LINE], int n, size_t *copied, char *working, size_t wn,
               char *err, size_t errlen);
/* The tensor p holds as name (the caller frees it), or NULL with err set. */
Tensor *qr_tensor(Play *p, const char *name, char *err, size_t errlen);

/* ---- configurations (quiz_config.c) --------------------------------------- */

/* A realistic config whose run stays small: B*S*D*D <= work_cap.
 * kv_mode 0: MHA, GQA or MQA; 1: shared kv heads only. */
MhaConfig qcfg_real(QuizRng *r, int kv_mode, double work_cap);
/* A toy config the candy bar can draw: B <= 2, S <= 6, D <= 16. */
MhaConfig qcfg_toy(QuizRng *r, int need_heads2);

/* ---- the generators (one file per topic) ---------------------------------- */

/* Half the shape questions become multiple choice: the answer among three
 * distractors (swapped dims, other tensors' shapes, the usual confusions). */
void quiz_shape_choices(QuizQuestion *q, QuizRng *r, const QBuild *b);
int quiz_gen_shape(Gen *g);         /* quiz_gen_layout.c */
int quiz_gen_strides(Gen *g);       /* quiz_gen_layout.c */
int quiz_gen_contig(Gen *g);        /* quiz_gen_layout.c */
int quiz_gen_offset(Gen *g);        /* quiz_gen_layout.c */
int quiz_gen_viewcopy(Gen *g);      /* quiz_gen_views.c */
int quiz_gen_kvshape(Gen *g);       /* quiz_gen_gqa.c */
int quiz_gen_kvhead(Gen *g);        /* quiz_gen_gqa.c */
int quiz_gen_repeat_bytes(Gen *g);  /* quiz_gen_gqa.c */
int quiz_gen_groups(Gen *g);        /* quiz_gen_gqa.c */
int quiz_gen_kvcache(Gen *g);       /* quiz_gen_kv.c */
int quiz_gen_decode(Gen *g);        /* quiz_gen_decode.c */
int quiz_gen_scores_mem(Gen *g);    /* quiz_gen_memory.c */
int quiz_gen_cache_weights(Gen *g); /* quiz_gen_memory.c */
int quiz_gen_bug(Gen *g);           /* quiz_bugs.c */
int quiz_gen_rope_partner(Gen *g);  /* quiz_gen_rope.c */
int quiz_gen_rope_which(Gen *g);    /* quiz_gen_rope.c */
int quiz_gen_rope_angle(Gen *g);    /* quiz_gen_rope.c */
int quiz_gen_rope_dot(Gen *g);      /* quiz_gen_rope.c */
int quiz_gen_flash_ml(Gen *g);      /* quiz_gen_flash.c */
int quiz_gen_flash_skip(Gen *g);    /* quiz_gen_flash.c */
int quiz_gen_flash_bytes(Gen *g);   /* quiz_gen_flash.c */
int quiz_gen_flash_rescale(Gen *g); /* quiz_gen_flash.c */
int quiz_gen_paged(Gen *g);         /* quiz_gen_paged.c */
int quiz_gen_window(Gen *g);        /* quiz_gen_window.c */
int quiz_gen_mla(Gen *g);           /* quiz_gen_mla.c */

#endif
