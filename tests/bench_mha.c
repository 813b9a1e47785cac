/* bench_mha.c - the time of one mha_run (the pipeline of src/README.md and
 * the tensors it keeps for teaching): the blocked kernel on one thread and
 * on every CPU, and the simple kernel it keeps as a reference.  Figures
 * only, no verdict: `make bench` prints them beside PyTorch's and an older
 * engine's (tests/bench.sh builds this file against that engine's sources
 * with -DBENCH_OLD_ENGINE: then it times the one way that engine has).
 *
 * usage: bench_mha [RUNS] SEQ:D_MODEL:HEADS ...
 * Prints per size: "SEQ D_MODEL HEADS THREADS" then wall and CPU ms
 * (median of RUNS) for blocked/1, blocked/THREADS, simple/1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/mha.h"
#include "engine/tensor.h"

#ifdef BENCH_OLD_ENGINE
#define MODES 1
static void set_mode(int k)
{
    (void)k;
}
#else
#define MODES 3
static void set_mode(int k)
{
    static const int modes[MODES][2] = {
        {1, TENSOR_MATMUL_WIDEST}, {0, TENSOR_MATMUL_WIDEST}, {1, TENSOR_MATMUL_SIMPLE}};
    tensor_matmul_mode(modes[k][0], modes[k][1]);
}
#endif

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall and CPU ms of runs mha_run(c). */
static int time_run(const MhaConfig *c, int runs, double *wall, double *cpu)
{
    double w[16], u[16];
    char err[200];
    for (int i = 0; i < runs; i++) {
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        Mha *m = mha_run(c, err, sizeof err);
        w[i] = (now(CLOCK_MONOTONIC) - t0) * 1e3;
        u[i] = (now(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3;
        if (!m) {
            fprintf(stderr, "bench_mha: %s\n", err);
            return -1;
        }
        mha_free(m);
    }
    qsort(w, (size_t)runs, sizeof *w, by_value);
    qsort(u, (size_t)runs, sizeof *u, by_value);
    *wall = w[runs / 2], *cpu = u[runs / 2];
    return 0;
}

int main(int argc, char **argv)
{
    int i = 1, runs = 3;
    if (i < argc && !strchr(argv[i], ':')) runs = atoi(argv[i++]);
    if (runs < 1 || runs > 16) runs = 3;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
    for (; i < argc; i++) {
        MhaConfig c = mha_config_default();
        if (sscanf(argv[i], "%d:%d:%d", &c.seq, &c.d_model, &c.heads) != 3) {
            fprintf(stderr, "bench_mha: '%s' is not SEQ:D_MODEL:HEADS\n", argv[i]);
            return 2;
        }
        c.kv_heads = c.heads;
        double wall[MODES], cpu[MODES];
        for (int k = 0; k < MODES; k++) {
            set_mode(k);
            if (time_run(&c, runs, &wall[k], &cpu[k])) return 1;
        }
        printf("%d %d %d %d", c.seq, c.d_model, c.heads, threads);
        for (int k = 0; k < MODES; k++)
            printf(" %.1f %.1f", wall[k], cpu[k]);
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
