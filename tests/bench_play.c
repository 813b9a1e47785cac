/* bench_play.c - how fast the stride playground evaluates and draws a
 * statement: statements per second at toy sizes (evaluate + draw the result
 * on an 80x24 canvas, as the play screen does), and the time of each
 * statement on a 1,000,000-element storage.  Figures only, no verdict:
 * `make bench` prints them (tests/bench.sh). */
#include <stdio.h>
#include <time.h>

#include "content/content.h"
#include "draw/play_draw.h"
#include "engine/mha.h"
#include "engine/play.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *const toy[] = {
    "a = torch.arange(24)",
    "b = a.view(2, 12)",
    "b.t()",
    "b.t().view(24)",
    "b.t().reshape(24)",
    "c = b[:, 1:3]",
    "c.stride()",
    "Q_heads.transpose(1, 2).contiguous().view(1, 4, 8)",
    "K.view(1, 4, 2, 4).transpose(1, 2)[:, :, None].expand(1, 2, 2, 4, 4)",
    "x[..., ::2].clone()",
    "x.view(4, 8)",
    "x.view(2, 3, 4)",
    NULL};

static const char *const big[] = {"m = torch.arange(1000000)",
                                  "m.view(1000, 1000)",
                                  "m.view(1000, 1000).t()",
                                  "m.view(1000, 1000).t().contiguous()",
                                  "m.view(1000, 1000)[::3, 1::2].clone()",
                                  "m.view(100, 100, 100).permute(2, 0, 1).reshape(1000, 1000)",
                                  "m[None].expand(1000, 1000000)",
                                  NULL};

int main(void)
{
    char err[200];
    MhaConfig cfg = mha_config_default();
    Mha *m = mha_run(&cfg, err, sizeof err);
    Play *p = mha_play_new(m);
    Canvas *c = canvas_new(80, 24);
    PlayResult r = {0};
    if (!m || !p || !c) return 1;
    int n = 0, rounds = 2000;
    double t0 = now();
    for (int k = 0; k < rounds; k++)
        for (int i = 0; toy[i]; i++, n++) {
            play_eval(p, toy[i], &r);
            canvas_clear(c);
            play_draw_result(c, 0, 0, 80, 20, &r, toy[i]);
        }
    double dt = now() - t0;
    printf("play, toy sizes: %d statements evaluated and drawn (80x24) in %.3f s: %.0f "
           "statements/s, %.1f us each\n",
           n, dt, n / dt, dt / n * 1e6);
    printf("play, a 1,000,000-element storage (evaluate + draw, one run each):\n");
    for (int i = 0; big[i]; i++) {
        t0 = now();
        PlayKind k = play_eval(p, big[i], &r);
        double te = now() - t0;
        canvas_clear(c);
        play_draw_result(c, 0, 0, 80, 20, &r, big[i]);
        double td = now() - t0 - te;
        printf("  %-62s %8.2f ms eval %7.2f ms draw  %s\n", big[i], te * 1e3, td * 1e3,
               k == PR_ERROR ? r.error : "");
    }
    play_result_clear(&r);
    canvas_free(c);
    play_free(p);
    mha_free(m);
    return 0;
}
