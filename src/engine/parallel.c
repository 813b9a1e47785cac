/* parallel.c - independent work items on every CPU (engine/parallel.h): one
 * share of the items per thread, the caller's thread included, joined before
 * it returns.  No pool: a product big enough to share costs far more than
 * starting its threads. */
#include "engine/parallel.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static int parallel_threads; /* 0: one per online CPU */

void parallel_set_threads(int n)
{
    parallel_threads = n < 0 ? 0 : n;
}

typedef struct Share {
    ParallelFn *fn;
    void *arg;
    long from, to;
} Share;

static void *share_thread(void *p)
{
    Share *s = p;
    s->fn(s->arg, s->from, s->to);
    return NULL;
}

void parallel_run(ParallelFn *fn, void *arg, long items, double work)
{
    long nt = work < PARALLEL_MIN_WORK ? 1
              : parallel_threads       ? parallel_threads
                                       : sysconf(_SC_NPROCESSORS_ONLN);
    if (nt > PARALLEL_MAX_THREADS) nt = PARALLEL_MAX_THREADS;
    if (nt > items) nt = items;
    if (nt <= 1) {
        fn(arg, 0, items);
        return;
    }
    Share part[PARALLEL_MAX_THREADS];
    pthread_t tid[PARALLEL_MAX_THREADS];
    int started[PARALLEL_MAX_THREADS] = {0};
    sigset_t full, old;
    sigfillset(&full);
    pthread_sigmask(SIG_SETMASK, &full, &old);
    for (long t = 0; t < nt; t++) {
        part[t] = (Share){fn, arg, items * t / nt, items * (t + 1) / nt};
        if (t > 0) started[t] = pthread_create(&tid[t], NULL, share_thread, &part[t]) == 0;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (long t = 0; t < nt; t++)
        if (!started[t]) fn(arg, part[t].from, part[t].to);
    for (long t = 1; t < nt; t++)
        if (started[t]) pthread_join(tid[t], NULL);
}
