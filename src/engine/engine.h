/* engine.h - the engine context: it numbers the storages, counts the bytes
 * the copies write, and holds the memory budget.
 *
 * Every run (engine/mha.h), playground session (engine/play.h), lesson page
 * and quiz question computes in an Engine of its own (a page or a question
 * through its run), so the labels it shows (S1, S2 ... in creation order) and
 * its copied bytes are its own: two runs alive at once never hand one label
 * to two storages, and nothing in the engine is process-wide.  Only the root
 * constructors take an Engine (tensor_zeros, tensor_from_data,
 * tensor_new_storage; tensorops_zeros and tensorops_arange through their
 * OpCtx); a tensor made from another (a view, a copy, a matmul result) lives
 * in its source's engine.
 *
 * Ownership: engine_new returns an engine holding one reference, its
 * owner's, released with engine_release.  Every storage holds one more, so
 * the owner may release it before the engine's last storage is freed: the
 * engine goes with whichever reference is dropped last.
 */
#ifndef MHAVIZ_ENGINE_H
#define MHAVIZ_ENGINE_H

#include <stddef.h>

typedef struct Engine {
    int refs;            /* the owner's, plus one per live storage */
    int next_id;         /* the id of the next storage: 1, 2, 3 ... */
    size_t bytes_copied; /* bytes the copies wrote into its storages, in all */
    size_t live;         /* bytes its live storages hold */
    /* The budget (the playground's, engine/play.h), 0 for none: live may
     * not pass budget bytes, one storage may not pass max_storage elements. */
    size_t budget;
    long max_storage;
} Engine;

/* A new engine, no budget.  Its storages are numbered after the ones `after`
 * has numbered (after NULL: from S1), so a session that shows after's
 * storages beside its own (the playground's preloaded run) never repeats a
 * label.  NULL when out of memory. */
Engine *engine_new(const Engine *after);
/* Drops one reference (the owner's, or a freed storage's, engine/tensor.c);
 * e may be NULL.  The last one frees e. */
void engine_release(Engine *e);
void engine_retain(Engine *e);
/* 1 when a new storage of n floats fits e's budget, else 0. */
int engine_has_room(const Engine *e, size_t n);

#endif
