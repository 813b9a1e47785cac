/* runjob.h - a big configuration's run, computed beside the loop.
 *
 * runjob_start() calls mha_run() in a worker thread, so the loop keeps
 * reading keys and drawing the previous run while it works.  The run has its
 * own engine (engine/engine.h: its storage ids and copy count), which only the
 * worker touches until the loop takes the run; the worker takes no signal.  ui_set_config
 * (ui/screen.c) starts one when Ui.background is set and runjob_worth() says so; ui/screenstack.c
 * polls it.
 */
#ifndef MHAVIZ_RUNJOB_H
#define MHAVIZ_RUNJOB_H

#include <stddef.h>

#include "engine/mha.h"

typedef struct RunJob RunJob;

/* 1 when a run of c (valid) is long enough to compute aside: about 2e8
 * multiply-adds, a tenth of a second on one core (walk --seq 512 --d-model
 * 512 is; the default and everything the quick keys reach from it are not). */
int runjob_worth(const MhaConfig *c);

/* Starts mha_run(c) in a new thread; c is copied.  NULL when the thread
 * cannot start (the caller then runs it itself).  The job is the caller's:
 * end it with runjob_take or runjob_cancel. */
RunJob *runjob_start(const MhaConfig *c);

/* 1 once the run has finished (or failed); never blocks. */
int runjob_done(RunJob *j);

/* Seconds since runjob_start. */
double runjob_seconds(const RunJob *j);

/* The configuration being run. */
const MhaConfig *runjob_config(const RunJob *j);

/* Waits for the run and frees j.  Returns the run (the caller's, mha_free)
 * or NULL with mha_run's reason in err. */
Mha *runjob_take(RunJob *j, char *err, size_t errlen);

/* Stops the run at its next matmul work item (tensor_set_cancel), waits for
 * the thread, frees what it made and j.  NULL is a no-op. */
void runjob_cancel(RunJob *j);

#endif
