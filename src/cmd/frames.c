/* frames.c - `mhaviz frames`: the walkthrough's canvases as text, ANSI, SVG,
 * HTML or an asciicast recording.
 *
 * The same scene_draw the TUI blits, one frame per step (text: under a header
 * line), so scripts, tests, lesson authors and teachers' slides can show a
 * frame without a terminal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "draw/canvas.h"
#include "draw/canvas_export.h"
#include "draw/compare.h"
#include "draw/scene.h"
#include "engine/mha.h"

static const char frames_help[] =
    "usage: mhaviz frames [OPTIONS]\n"
    "\n"
    "Prints the walkthrough's frames as text, each under a header line\n"
    "(=== step 2/10: split heads (80x24) ===).\n"
    "\n"
    "  --step NAME|N|all   the step to draw: a number 0-10 (0-11 with --rope), a name\n"
    "                      (split, heads, softmax, rope, ...) or all (default)\n"
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
    "  --large             large print for a projector: fewer, bigger cells (the\n"
    "                      values in them), the narrative in short lines\n"
    "  --compare FLAGS     each frame with a second configuration beside (or\n"
    "                      under) the first, e.g. --compare \"--kv-heads 1\"\n"
    "  --format FMT        text (default: colour as --color says), ansi (colour\n"
    "                      always), svg (one frame: give --step N), html (a deck:\n"
    "                      one self-contained page, a slide per step, the\n"
    "                      animations played; keys Right/Left, PgDn/PgUp, Space,\n"
    "                      Home/End, N Enter, b blank, f full screen), cast (the\n"
    "                      walkthrough with its animations, an asciicast v2 file\n"
    "                      for asciinema play)\n"
    "\n"
    "Configuration:\n";

/* "0,2,1,3" into cur.  The count of indices, or -1 if malformed. */
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
    return n > 0 ? n : -1;
}

/* Does the inspect index fit step s's tensor (its dimensions, each index in
 * range)?  0, or -1 with "0,1,2,3: Q_split (1, 4, 2, 4): ..." in err. */
static int check_inspect(const Mha *m, SceneState *st, int s, int n, char *err, size_t errlen)
{
    char dims[64], idx[48];
    int k = 0;
    st->step = s;
    int ti = scene_inspect_tensor(st);
    const Tensor *t = m->t[ti];
    tensor_fmt_dims(dims, sizeof dims, t->ndim, t->shape);
    for (int i = 0; i < n; i++)
        k += snprintf(idx + k, sizeof idx - (size_t)k, "%s%d", i ? "," : "", st->cur[i]);
    if (n != t->ndim) {
        snprintf(err, errlen, "%s: step %d shows %s %s, %d dimensions (give %d indices)", idx, s,
                 mha_tensor_names[ti], dims, t->ndim, t->ndim);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (st->cur[i] >= t->shape[i]) {
            snprintf(err, errlen, "%s: index %d is outside dimension %d of %s %s (size %d)", idx,
                     st->cur[i], i, mha_tensor_names[ti], dims, t->shape[i]);
            return -1;
        }
    return 0;
}

static int parse_phase(const char *val, double *out)
{
    char *end;
    double v = strtod(val, &end);
    if (!*val || *end || !(v >= 0.0 && v < 1.0)) return -1;
    *out = v;
    return 0;
}

enum { F_TEXT, F_ANSI, F_SVG, F_HTML, F_CAST, F_COUNT };
static const char *const format_names[F_COUNT] = {"text", "ansi", "svg", "html", "cast"};

/* What every writer needs: the canvas, the run, the steps and how to draw them. */
typedef struct Frames {
    Canvas *c;
    const Mha *m;
    SceneState *st;
    int first, last, ascii, color; /* the run's step numbers (mha_step_at); color: 0 none,
                                      1 colour, 2 attributes only */
    const char *view_name;         /* --view other than step, for the header */
    const Mha *cmp;                /* --compare: the second run, or NULL */
} Frames;

/* Draws the state's step: one run, or the two of --compare. */
static void frame_draw(const Frames *fr)
{
    if (fr->cmp)
        compare_draw(fr->c, 0, 0, fr->c->w, fr->c->h, fr->m, fr->cmp, fr->st);
    else
        scene_draw(fr->c, 0, 0, fr->c->w, fr->c->h, fr->m, fr->st);
}

/* "step 2/10: split heads (80x24)" */
static void frame_title(const Frames *fr, int s, char *buf, size_t n)
{
    const MhaConfig *c = &fr->m->cfg;
    snprintf(buf, n, "step %d/%d: %s%s%s (%dx%d)", s, mha_step_total(c) - 1,
             fr->m->steps[mha_step_at(c, s)].name, fr->view_name ? ", view " : "",
             fr->view_name ? fr->view_name : "", fr->c->w, fr->c->h);
}

/* text, ansi, svg: one frame per step. */
static int write_frames(Frames *fr, int format)
{
    char title[160];
    int rc = 0;
    for (int s = fr->first; s <= fr->last && rc == 0; s++) {
        fr->st->step = mha_step_at(&fr->m->cfg, s);
        frame_draw(fr);
        if (format == F_SVG) {
            rc = canvas_write_svg(fr->c, stdout, fr->ascii, fr->color != 1);
        } else {
            frame_title(fr, s, title, sizeof title);
            printf("=== %s ===\n", title);
            rc = canvas_write(fr->c, stdout, fr->ascii, fr->color);
        }
    }
    return rc ? 1 : 0;
}

/* Animations as the TUI plays them (ui/walk.c, WALK_ANIM_SEC), in frames at
 * ANIM_FPS: the recording's and the deck's. */
#define ANIM_FPS 25
#define ANIM_SEC 0.9
#define ANIM_FRAMES ((int)(ANIM_SEC * ANIM_FPS))

/* html: a deck, a slide per step under its title; a step that animates in
 * the TUI (2, 3, 8) plays its animation frames when reached going forward,
 * unless --anim fixed one phase. */
static int write_deck(Frames *fr)
{
    char title[160];
    int mono = fr->color != 1, fixed = fr->st->anim >= 0;
    int rc = canvas_html_head(stdout, "mhaviz: the walkthrough", fr->c->w, fr->c->h, ANIM_FPS);
    for (int o = fr->first; o <= fr->last && rc == 0; o++) {
        int s = fr->st->step = mha_step_at(&fr->m->cfg, o); /* o: the run's order (rope) */
        frame_title(fr, o, title, sizeof title);
        rc = canvas_html_slide(stdout, o, title);
        for (int k = 0; !fixed && scene_step_animates(s) && k < ANIM_FRAMES && rc == 0; k++) {
            fr->st->anim = (double)k / ANIM_FRAMES;
            frame_draw(fr);
            rc = canvas_write_html(fr->c, stdout, 1, fr->ascii, mono);
        }
        if (!fixed) fr->st->anim = -1;
        frame_draw(fr);
        if (rc == 0) rc = canvas_write_html(fr->c, stdout, 0, fr->ascii, mono);
        if (rc == 0) rc = canvas_html_slide_end(stdout);
    }
    if (rc == 0) rc = canvas_html_tail(stdout);
    return rc ? 1 : 0;
}

/* The walkthrough as a recording: each step's animation at ANIM_FPS, then
 * the step held for CAST_HOLD_SEC. */
#define CAST_HOLD_SEC 2.5
static int write_cast(Frames *fr)
{
    double t = 0;
    int mono = fr->color != 1, fixed = fr->st->anim >= 0; /* --anim: that phase only */
    int rc = canvas_cast_head(stdout, fr->c->w, fr->c->h, "mhaviz walkthrough");
    for (int o = fr->first; o <= fr->last && rc == 0; o++) {
        int s = fr->st->step = mha_step_at(&fr->m->cfg, o);
        if (!fixed && scene_step_animates(s)) {
            for (int k = 0; k < ANIM_FRAMES && rc == 0; k++, t += 1.0 / ANIM_FPS) {
                fr->st->anim = (double)k / ANIM_FRAMES;
                frame_draw(fr);
                rc = canvas_cast_frame(fr->c, stdout, t, fr->ascii, mono);
            }
            fr->st->anim = -1;
        }
        frame_draw(fr);
        if (rc == 0) rc = canvas_cast_frame(fr->c, stdout, t, fr->ascii, mono);
        t += CAST_HOLD_SEC;
    }
    if (rc == 0) rc = canvas_cast_end(stdout, t); /* the last frame is held too */
    return rc ? 1 : 0;
}

/* What the command line asked for. */
typedef struct FramesArgs {
    MhaConfig cfg;
    SceneState st;
    int kv_set, first, last, color, ascii, format, step_given, inspect_n; /* first, last: -1 all */
    const char *step_val; /* --step N|NAME, read against the run's steps once the config is known */
    long cols, rows;
    const char *view_name; /* --view other than step */
    const char *compare;   /* --compare FLAGS */
} FramesArgs;

/* Parses argv into a.  -1 to go on, or the exit code (0 after --help, 2 after
 * a one-line usage error). */
static int parse_flags(int argc, char **argv, FramesArgs *a)
{
    char err[256];
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int r = cli_config_flag(argc, argv, &i, &a->cfg, &a->kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r > 0) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s%s", frames_help, cli_config_help);
            return 0;
        }
        if ((r = cli_match(argc, argv, &i, "--step", &val, err, sizeof err)) != 0) {
            int s;
            if (r < 0) return cli_usage("%s", err);
            a->step_given = 1;
            a->step_val = NULL;
            if (!strcmp(val, "all")) {
                a->first = 0, a->last = -1;
                continue;
            }
            /* a number is checked against the run's own steps below (a run with
             * RoPE has one more); a name must be one of the table's */
            char *end;
            long num = strtol(val, &end, 10);
            int is_num = *val && !*end && num >= 0 && num < MS_ALL;
            if (!is_num && (s = mha_step_index(val)) < 0)
                return cli_usage("--step '%.40s': not a step (0-%d, %d with --rope; a name such as "
                                 "split or softmax; or all)",
                                 val, MS_COUNT - 1, MS_ALL - 1);
            a->step_val = val;
        } else if ((r = cli_match(argc, argv, &i, "--cols", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--cols", val, 1, 1000, &a->cols, err, sizeof err))
                return cli_usage("%s", err);
        } else if ((r = cli_match(argc, argv, &i, "--rows", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--rows", val, 1, 1000, &a->rows, err, sizeof err))
                return cli_usage("%s", err);
        } else if ((r = cli_match(argc, argv, &i, "--color", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (!strcmp(val, "always"))
                a->color = 1;
            else if (!strcmp(val, "never"))
                a->color = 0;
            else if (!strcmp(val, "auto"))
                a->color = -1;
            else
                return cli_usage("--color '%.40s': use auto, always or never", val);
        } else if ((r = cli_match(argc, argv, &i, "--ascii", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            a->ascii = 1;
        } else if ((r = cli_match(argc, argv, &i, "--single", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            a->st.show_single = 1;
        } else if ((r = cli_match(argc, argv, &i, "--large", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            a->st.large = 1;
        } else if ((r = cli_match(argc, argv, &i, "--no-narrative", NULL, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            a->st.narrative = 0;
        } else if ((r = cli_match(argc, argv, &i, "--view", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (!strcmp(val, "step"))
                a->st.view = MV_STEP;
            else if (!strcmp(val, "wrong"))
                a->st.view = MV_WRONG_VIEW;
            else if (!strcmp(val, "noscale"))
                a->st.view = MV_NO_SCALE;
            else
                return cli_usage("--view '%.40s': use step, wrong or noscale", val);
            a->view_name = a->st.view == MV_STEP ? NULL : val;
        } else if ((r = cli_match(argc, argv, &i, "--inspect", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if ((a->inspect_n = parse_index(val, a->st.cur)) < 0)
                return cli_usage("--inspect '%.40s': give up to 4 indices, e.g. 0,2,1,3", val);
            a->st.inspect = 1;
        } else if ((r = cli_match(argc, argv, &i, "--format", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            for (a->format = 0; a->format < F_COUNT && strcmp(val, format_names[a->format]);
                 a->format++)
                ;
            if (a->format == F_COUNT)
                return cli_usage("--format '%.40s': use text, ansi, svg, html or cast", val);
        } else if ((r = cli_match(argc, argv, &i, "--compare", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            a->compare = val;
        } else if ((r = cli_match(argc, argv, &i, "--anim", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            if (parse_phase(val, &a->st.anim))
                return cli_usage("--anim '%.40s': give a phase from 0 up to (not including) 1",
                                 val);
        } else {
            return cli_usage("frames: unknown option '%.60s' (try mhaviz frames --help)", argv[i]);
        }
    }
    return -1;
}

int cmd_frames(int argc, char **argv)
{
    char err[256];
    Mha *m;
    Canvas *c;
    int rc = 0;
    FramesArgs a = {
        mha_config_default(), scene_state_default(), 0,    0,   -1, -1, 0, F_TEXT, 0, 0, NULL,
        SCENE_MIN_W,          SCENE_MIN_H,           NULL, NULL};
    MhaConfig cb;
    Mha *mb = NULL;
    int r = parse_flags(argc, argv, &a);
    if (r >= 0) return r;
    if (a.cols < SCENE_MIN_W || a.rows < SCENE_MIN_H)
        return cli_usage("--cols %ld --rows %ld: a frame needs at least %dx%d", a.cols, a.rows,
                         SCENE_MIN_W, SCENE_MIN_H);
    if (!a.kv_set) a.cfg.kv_heads = a.cfg.heads;
    int total = mha_step_total(&a.cfg);
    if (a.step_val) {
        int s = mha_step_find(&a.cfg, a.step_val);
        if (s < 0)
            return cli_usage("--step '%.40s': not a step of this run (0-%d%s)", a.step_val,
                             total - 1, a.cfg.rope ? "" : "; rope needs --rope half|interleaved");
        a.first = a.last = mha_step_number(&a.cfg, s);
    }
    if (a.last < 0) a.last = total - 1;
    if (a.format == F_SVG && a.first != a.last)
        return cli_usage("--format svg: an SVG holds one frame; give --step N (0-%d)", total - 1);
    if (a.format == F_ANSI) a.color = 1;
    if (a.color < 0 && a.format != F_TEXT) a.color = 1; /* pictures keep their colours */
    if (a.color < 0) {
        const char *nc = getenv("NO_COLOR");
        a.color = isatty(STDOUT_FILENO) && !(nc && *nc);
    }
    if (a.st.view != MV_STEP && !a.step_given) /* a failure picture is one picture */
        a.first = a.last =
            mha_step_number(&a.cfg, a.st.view == MV_WRONG_VIEW ? MS_HEADS : MS_SOFTMAX);
    if (a.compare && cli_compare(a.compare, &a.cfg, &cb, err, sizeof err) < 0)
        return cli_usage("%s", err);
    m = mha_run(&a.cfg, err, sizeof err);
    if (!m) return cli_usage("%s", err);
    if (a.compare && !(mb = mha_run(&cb, err, sizeof err))) {
        mha_free(m);
        return cli_usage("--compare: %s", err);
    }
    for (int s = a.first; a.st.inspect && s <= a.last; s++)
        if (check_inspect(m, &a.st, mha_step_at(&a.cfg, s), a.inspect_n, err, sizeof err) < 0) {
            mha_free(m);
            return cli_usage("--inspect %s", err);
        }
    c = canvas_new((int)a.cols, (int)a.rows);
    if (!c) {
        mha_free(m);
        mha_free(mb);
        fprintf(stderr, "mhaviz: frames: out of memory\n");
        return 1;
    }
    Frames fr = {c, m, &a.st, a.first, a.last, a.ascii, a.color, a.view_name, mb};
    rc = a.format == F_CAST   ? write_cast(&fr)
         : a.format == F_HTML ? write_deck(&fr)
                              : write_frames(&fr, a.format);
    /* rc 1: a write failed, said at exit (cli_close_stdout) */
    canvas_free(c);
    mha_free(m);
    mha_free(mb);
    return rc;
}
