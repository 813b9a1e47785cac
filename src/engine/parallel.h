/* parallel.h - independent work items on every CPU, for the engine's kernels
 * (tensor_matmul, tensor_softmax_lastdim_).
 *
 * The thread count is process-wide (tensor_matmul_mode sets it); nothing else
 * is kept between calls.  The items of one call must write disjoint memory:
 * then the result is the same bits whatever the count.
 */
#ifndef MHAVIZ_PARALLEL_H
#define MHAVIZ_PARALLEL_H

/* Work (multiply-adds or alike) below this runs on the calling thread. */
#define PARALLEL_MIN_WORK (1L << 22)
#define PARALLEL_MAX_THREADS 8

typedef void ParallelFn(void *arg, long from, long to);

/* The number of threads parallel_run may use, for the whole process (set it
 * before any thread calls parallel_run): 0 = one per online CPU (the
 * default), n = at most n; never more than PARALLEL_MAX_THREADS.  A negative
 * n is taken as 0. */
void parallel_set_threads(int n);

/* fn(arg, from, to) over items [0, items), cut into one contiguous share per
 * thread, the caller's thread included; one thread when work is under
 * PARALLEL_MIN_WORK.  Returns when every share is done.  The helper threads
 * block every signal (the caller's keeps them); a share whose thread cannot
 * start is run by the caller, so it never fails. */
void parallel_run(ParallelFn *fn, void *arg, long items, double work);

#endif
