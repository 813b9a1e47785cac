/* runjob.c - mha_run in a worker thread, cancellable (see runjob.h). */
#include "ui/runjob.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "engine/tensor.h"

#define RUNJOB_WORTH 2e8 /* multiply-adds */

struct RunJob {
    pthread_t thread;
    MhaConfig cfg;
    double started;
    atomic_int cancel; /* set by runjob_cancel, polled by tensor_matmul */
    atomic_int done;   /* set by the worker once m and err are written */
    Mha *m;
    char err[160];
};

int runjob_worth(const MhaConfig *c)
{
    /* the projections (4 B S D D) and the three S x S products over D
     * (scores, weighted sum, the one big head) */
    double B = c->batch, S = c->seq, D = c->d_model;
    return B * S * D * (4 * D + 3 * S) >= RUNJOB_WORTH;
}

static void *runjob_main(void *arg)
{
    RunJob *j = arg;
    tensor_set_cancel(&j->cancel);
    j->m = mha_run(&j->cfg, j->err, sizeof j->err);
    tensor_set_cancel(NULL);
    atomic_store(&j->done, 1);
    return NULL;
}

RunJob *runjob_start(const MhaConfig *c)
{
    RunJob *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->cfg = *c;
    j->started = clock_now();
    atomic_init(&j->cancel, 0);
    atomic_init(&j->done, 0);
    /* the worker inherits a full mask: signals go to the loop's thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&j->thread, NULL, runjob_main, j);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        free(j);
        return NULL;
    }
    return j;
}

int runjob_done(RunJob *j)
{
    return atomic_load(&j->done) != 0;
}

double runjob_seconds(const RunJob *j)
{
    return clock_now() - j->started;
}

const MhaConfig *runjob_config(const RunJob *j)
{
    return &j->cfg;
}

Mha *runjob_take(RunJob *j, char *err, size_t errlen)
{
    pthread_join(j->thread, NULL);
    Mha *m = j->m;
    if (!m && err && errlen) snprintf(err, errlen, "%s", j->err[0] ? j->err : "out of memory");
    free(j);
    return m;
}

void runjob_cancel(RunJob *j)
{
    if (!j) return;
    atomic_store(&j->cancel, 1);
    mha_free(runjob_take(j, NULL, 0));
}
