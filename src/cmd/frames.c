/* frames.c - `mhaviz frames`: the walkthrough's canvases as plain text.
 *
 * The same scene_draw the TUI blits, written with canvas_write, one frame per
 * step under a header line, so scripts, tests and lesson authors can see a
 * frame without a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "draw/canvas.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "engine/mha.h"
#include "draw/scene.h"

static const char frames_help[] =
    "usage: mhaviz frames [OPTIONS]\n"
    "\n"
    "Prints the walkthrough's frames as text, each under a header line\n"
    "(=== step 2/10: split heads (80x24) ===).\n"
    "\n"
    "  --step NAME|N|all   the step to draw: a number 0-10, a name (split, heads,\n"
    "                      softmax, contiguous, ...) or all (default)\n"
    "  --cols N --rows N   frame size (default 80x24, the smallest a frame can be)\n"
    "  --color=WHEN        auto (colour on a terminal unless NO_COLOR is set),\n"
    "                      always, never (default auto)\n"
    "  --ascii             ASCII glyphs only (box lines + - |, shades . : # @)\n"
    "  --view VIEW         step (default), wrong (Q.view(B, H, S, dh) without the\n"
    "                      transpose) or noscale (softmax without / sqrt(dh))\n"
    "  --inspect b,s,h,d   put the inspect cursor on this index of the step's\n"
    "                      tensor and write out its offset arithmetic\n"
    "  --single            on the softmax step, the one big-head softmax beside\n"
    "  --anim PHASE        an animation frame, PHASE in [0, 1) (steps 2, 3, 8)\n"
    "  --no-narrative      leave out the narrative lines\n"
    "\n"
    "Configuration:\n";

/* "0,2,1,3" into cur (missing trailing entries are 0).  -1 if malformed. */
static int parse_index(const char *val, int *cur)
{
    const char *p = val;
    int n = 0;
    memset(cur, 0, 4 * sizeof *cur);
    while (*p) {
        char *end;
        long v;
        if (n == 4 || *p < '0' || *p > '9') return -1;
        v = strtol(p, &end, 10);
        if (v > 1000000) return -1;
        cur[n++] = (int)v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return n > 0 ? 0 : -1;
}

static int parse_phase(const char *val, double *out)
{
    char *end;
    double v = strtod(val, &end);
    if (!*val || *end || !(v >= 0.0 && v < 1.0)) return -1;
    *out = v;
    return 0;
}

int cmd_frames(int argc, char **argv)
{
    MhaConfig cfg = mha_config_default();
    SceneState st = scene_state_default();
    int kv_set = 0, first = 0, last = MS_COUNT - 1, color = -1, ascii = 0;
    long cols = 80, rows = 24;
    const char *view_name = NULL;
    char err[256];
    Mha *m;
    Canvas *c;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int r = cli_config_flag(argc, argv, &i, &cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r > 0) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s%s", frames_help, cli_config_help);
            return 0;
        }
        if ((r = cli_match(argc, argv, &i, "--step", &val, err, sizeof err)) != 0) {
            int s;
            if (r < 0) return cli_usage("%s", err);
            if (!strcmp(val, "all")) {
                first = 0, last = MS_COUNT - 1;
                continue;
            }
            if ((s = mha_step_index(val)) < 0)
                return cli_usage("--step '%.40s': not a step (0-%d, a name such as split or "
                                 "softmax, or all)",
                                 val, MS_COUNT - 1);
            first = last = s;
        } else if ((r = cli_match(argc, argv, &i, "--cols", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--cols", val, 1, 1000, &cols, err, sizeof err))
                return cli_usage("%s", err);
        } else if ((r = cli_match(argc, argv, &i, "--rows", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--rows", val, 1, 1000, &rows, err, sizeof err))
                return cli_usage("%s", err);
        } else if ((r = cli_match(argc, argv, &i, "--color", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (!strcmp(val, "always"))
                color = 1;
            else if (!strcmp(val, "never"))
                color = 0;
            else if (!strcmp(val, "auto"))
                color = -1;
            else
                return cli_usage("--color '%.40s': use auto, always or never", val);
        } else if ((r = cli_match(argc, argv, &i, "--ascii", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            ascii = 1;
        } else if ((r = cli_match(argc, argv, &i, "--single", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            st.show_single = 1;
        } else if ((r = cli_match(argc, argv, &i, "--no-narrative", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            st.narrative = 0;
        } else if ((r = cli_match(argc, argv, &i, "--view", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (!strcmp(val, "step"))
                st.view = MV_STEP;
            else if (!strcmp(val, "wrong"))
                st.view = MV_WRONG_VIEW;
            else if (!strcmp(val, "noscale"))
                st.view = MV_NO_SCALE;
            else
                return cli_usage("--view '%.40s': use step, wrong or noscale", val);
            view_name = st.view == MV_STEP ? NULL : val;
        } else if ((r = cli_match(argc, argv, &i, "--inspect", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (parse_index(val, st.cur))
                return cli_usage("--inspect '%.40s': give up to 4 indices, e.g. 0,2,1,3", val);
            st.inspect = 1;
        } else if ((r = cli_match(argc, argv, &i, "--anim", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (parse_phase(val, &st.anim))
                return cli_usage("--anim '%.40s': give a phase from 0 up to (not including) 1",
                                 val);
        } else {
            return cli_usage("frames: unknown option '%.60s' (try mhaviz frames --help)", argv[i]);
        }
    }
    if (cols < SCENE_MIN_W || rows < SCENE_MIN_H)
        return cli_usage("--cols %ld --rows %ld: a frame needs at least %dx%d", cols, rows,
                         SCENE_MIN_W, SCENE_MIN_H);
    if (!kv_set) cfg.kv_heads = cfg.heads;
    if (color < 0) {
        const char *nc = getenv("NO_COLOR");
        color = isatty(STDOUT_FILENO) && !(nc && *nc);
    }
    m = mha_run(&cfg, err, sizeof err);
    if (!m) return cli_usage("%s", err);
    c = canvas_new((int)cols, (int)rows);
    if (!c) {
        mha_free(m);
        fprintf(stderr, "mhaviz: frames: out of memory\n");
        return 1;
    }
    for (int s = first; s <= last && rc == 0; s++) {
        st.step = s;
        scene_draw(c, 0, 0, c->w, c->h, m, &st);
        printf("=== step %d/%d: %s%s%s (%ldx%ld) ===\n", s, MS_COUNT - 1, m->steps[s].name,
               view_name ? ", view " : "", view_name ? view_name : "", cols, rows);
        if (canvas_write(c, stdout, ascii, color) != 0) rc = 1;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) rc = 1;
    if (rc) fprintf(stderr, "mhaviz: frames: write error on stdout\n");
    canvas_free(c);
    mha_free(m);
    return rc;
}
