/* walk.c - the walkthrough screen: one step of the pipeline per frame, drawn
 * by scene_draw from the run in ui->mha.
 *
 * State only (ncdu's browse_draw / browse_key): the step, inspect mode and its
 * cursor, the big-head softmax toggle, a step number being typed, and the
 * clocks of the running animation and of autoplay.  key() changes the state
 * and returns UI_* flags; tick() advances the clocks; draw() paints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw/compare.h"
#include "draw/scene.h"
#include "store/walk_place.h"
#include "ui/form.h"
#include "ui/keys.h"
#include "ui/screen.h"
#include "ui/walk.h"

#define WALK_ANIM_SEC 0.9     /* an animation at speed 1 */
#define WALK_ANIM_MAX_SEC 1.2 /* never longer, whatever the speed */
#define WALK_AUTOPLAY_SEC 4.0 /* p with no --autoplay */
#define WALK_SPEED_MIN 0.25
#define WALK_SPEED_MAX 4.0

typedef struct Walk {
    SceneState ss;
    MhaConfig seen;        /* the config the cursor belongs to: reset when it changes */
    int jump;              /* step number typed so far, -1 none; 0 after a bare g */
    int jump_digits;       /* digits typed into jump (0: g opened it, none typed) */
    int animating;         /* ss.anim runs from 0 to 1 */
    double anim_start;     /* tick time the animation started; < 0: at the next tick */
    double autoplay_next;  /* tick time of the next autoplay step; < 0: set at the next tick */
    double autoplay_saved; /* seconds per step that p turns back on */
    int w, h;              /* size of the last frame (for mouse clicks) */
    int blank;             /* b: the screen is blank until the next key */
    int frozen;            /* the clocks are held for the blank (set by tick) */
    double autoplay_left;  /* seconds of autoplay left when the blank began, < 0 none */
    Ui *ui;                /* to save the place when the screen closes */
    int remember;          /* 1: the walkthrough (its place is saved on close), 0: Explore */
    int no_write;          /* the place file could not be read or kept aside: never written */
    char hint[160];
} Walk;

static double walk_anim_seconds(const Ui *ui)
{
    double d = WALK_ANIM_SEC / (ui->anim_speed > 0 ? ui->anim_speed : 1.0);
    return d < WALK_ANIM_MAX_SEC ? d : WALK_ANIM_MAX_SEC;
}

static double walk_autoplay_seconds(const Ui *ui)
{
    return ui->autoplay / (ui->anim_speed > 0 ? ui->anim_speed : 1.0);
}

static void walk_cursor_reset(Walk *w)
{
    memset(w->ss.cur, 0, sizeof w->ss.cur);
}

/* The step's number in the run's order, and the last number (10; 11 with
 * RoPE on, its step after heads first). */
static int walk_number(const Walk *w, const Ui *ui)
{
    int k = mha_step_number(&ui->mha->cfg, w->ss.step);
    return k < 0 ? 0 : k;
}

static int walk_last(const Ui *ui)
{
    return mha_step_total(&ui->mha->cfg) - 1;
}

/* Goes to step number k of the run; animates when asked, animations are on
 * and the step has one.  Manual steps restart the autoplay clock. */
static int walk_go(Walk *w, Ui *ui, int k, int animate)
{
    if (k < 0) k = 0;
    if (k > walk_last(ui)) k = walk_last(ui);
    int step = mha_step_at(&ui->mha->cfg, k);
    w->autoplay_next = -1;
    if (step == w->ss.step && w->ss.view == MV_STEP) return UI_REDRAW;
    w->ss.step = step;
    w->ss.view = MV_STEP; /* stepping leaves a failure picture */
    walk_cursor_reset(w);
    if (animate && ui->animation && scene_step_animates(step)) {
        w->animating = 1;
        w->anim_start = -1;
        w->ss.anim = 0;
        return UI_REDRAW | UI_ANIMATE;
    }
    w->animating = 0;
    w->ss.anim = -1;
    return UI_REDRAW;
}

static void walk_stop_anim(Walk *w)
{
    w->animating = 0;
    w->ss.anim = -1;
}

/* The bottom line's keys, picked from the key table (keys.c) for what the
 * walkthrough is doing: inspecting, autoplaying, or stepping. */
static void walk_hint(Walk *w, const Ui *ui)
{
    static const Action inspect[] = {ACT_LEFT, ACT_INSPECT}, play[] = {ACT_AUTOPLAY, ACT_FASTER},
                        step[] = {ACT_NEXT, ACT_PREV, ACT_INSPECT, ACT_CONFIG},
                        last[] = {ACT_HELP, ACT_BACK};
    char *b = w->hint;
    size_t n = sizeof w->hint, k = 0;
    if (w->ss.inspect) {
        k = keys_hint_pick(KC_INSPECT, inspect, 2, 4, b, n);
    } else if (ui->autoplay > 0) {
        k = (size_t)snprintf(b, n, "autoplay every %.1f s  ", walk_autoplay_seconds(ui));
        k += keys_hint_pick(KC_WALK, play, 2, 2, b + k, n - k);
    } else {
        k = keys_hint_pick(KC_WALK, step, 4, 1, b, n);
    }
    if (k + 2 < n) {
        memcpy(b + k, "  ", 3);
        keys_hint_pick(KC_WALK, last, 2, 1, b + k + 2, n - k - 2);
    }
}

static void walk_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Walk *w = s->st;
    w->w = c->w; /* what was drawn, for scene_click */
    w->h = c->h;
    if (w->blank) { /* presenting: nothing on the screen, not even the status */
        canvas_fill(c, 0, 0, c->w, c->h, ' ', ST_NORMAL);
        return;
    }
    const char *status = ui->status;
    if (!status[0]) {
        if (w->jump >= 0 && w->jump_digits > 0)
            snprintf(w->hint, sizeof w->hint, "go to step %d_  (Enter jumps, Esc cancels)",
                     w->jump);
        else if (w->jump >= 0)
            snprintf(w->hint, sizeof w->hint,
                     "go to step _  (0 to %d, then Enter; Enter alone: the first step)",
                     walk_last(ui));
        else
            walk_hint(w, ui);
        status = w->hint;
    }
    w->ss.large = ui->large;
    w->ss.status = status; /* kept: scene_click must lay the frame out as it was drawn */
    if (ui->cmp)           /* the same state drives both runs */
        compare_draw(c, 0, 0, c->w, c->h, ui->mha, ui->cmp, &w->ss);
    else
        scene_draw(c, 0, 0, c->w, c->h, ui->mha, &w->ss);
}

/* + and -: animations and autoplay 1.5 times faster or slower, clamped. */
static int walk_speed(Ui *ui, int faster)
{
    ui->anim_speed *= faster ? 1.5 : 1 / 1.5;
    if (ui->anim_speed > WALK_SPEED_MAX) ui->anim_speed = WALK_SPEED_MAX;
    if (ui->anim_speed < WALK_SPEED_MIN) ui->anim_speed = WALK_SPEED_MIN;
    if (ui->autoplay > 0)
        ui_status(ui, "speed x%.2f: animations %.2f s, autoplay every %.1f s", ui->anim_speed,
                  walk_anim_seconds(ui), walk_autoplay_seconds(ui));
    else
        ui_status(ui, "speed x%.2f: animations %.2f s", ui->anim_speed, walk_anim_seconds(ui));
    return UI_REDRAW;
}

/* v: the step's picture, then each failure picture in turn (mha_views),
 * then the step's again.  The cursor starts over: each picture inspects
 * its own tensor. */
static int walk_failure(Walk *w, Ui *ui)
{
    w->ss.view = (MhaView)((w->ss.view + 1) % MV_COUNT);
    walk_cursor_reset(w);
    if (w->ss.view == MV_STEP)
        ui_status(ui, "back to step %d (v: the failure pictures)", walk_number(w, ui));
    else
        /* no "failure:" before it (the top line says "failure mode:"): the
         * longest title and its keys then fit an 80-column status line */
        ui_status(ui, "%s  (v: next, Space: back to step %d)", mha_views[w->ss.view].title,
                  walk_number(w, ui));
    return UI_REDRAW;
}

/* Inspect mode's keys first: its arrows and h j k l move the cursor. */
static const unsigned *walk_keys_now(const Screen *s)
{
    static const unsigned walking[] = {KC_WALK, 0}, inspecting[] = {KC_INSPECT, KC_WALK, 0};
    return ((const Walk *)s->st)->ss.inspect ? inspecting : walking;
}

static int walk_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    Walk *w = s->st;
    if (key == UI_K_RESIZE) return UI_REDRAW;
    if (w->blank) {   /* any key brings the picture back, and does nothing else */
        w->blank = 0; /* tick starts the held clocks again */
        return UI_REDRAW | (w->animating || ui->autoplay > 0 ? UI_ANIMATE : 0);
    }
    if (w->animating && a != ACT_BLANK) { /* any other key shows the final frame; */
        /* a clicker key or q / Esc then do more */
        walk_stop_anim(w);
        if (a != ACT_BACK && a != ACT_NEXT && a != ACT_PREV) return UI_REDRAW;
    }

    if (w->jump >= 0 && a != ACT_DIGIT) { /* a step number being typed */
        int n = w->jump;
        w->jump = -1;
        w->jump_digits = 0;
        if (key == UI_K_ENTER) {
            if (n > walk_last(ui)) {
                ui_status(ui, "no step %d: the steps are 0 to %d", n, walk_last(ui));
                return UI_REDRAW;
            }
            return walk_go(w, ui, n, 0);
        }
        if (key == UI_K_ESC || key == UI_K_BACKSPACE) return UI_REDRAW;
    }

    if (w->ss.view != MV_STEP && (a == ACT_NEXT || a == ACT_PREV)) {
        w->ss.view = MV_STEP; /* from a failure picture, back to the step it came from */
        walk_cursor_reset(w);
        return UI_REDRAW;
    }

    switch (a) {
    case ACT_NEXT:
        if (walk_number(w, ui) == walk_last(ui)) {
            ui_status(ui, "the last step (Home goes back to the first)");
            return UI_REDRAW;
        }
        return walk_go(w, ui, walk_number(w, ui) + 1, 1);
    case ACT_PREV:
        if (w->ss.step == 0) {
            ui_status(ui, "the first step (Space goes on)");
            return UI_REDRAW;
        }
        return walk_go(w, ui, walk_number(w, ui) - 1, 0);
    case ACT_FIRST:
        return walk_go(w, ui, 0, 0);
    case ACT_LAST:
        return walk_go(w, ui, walk_last(ui), 0);
    case ACT_GOTO: /* g: the prompt, then the digits and Enter */
        w->jump = 0;
        w->jump_digits = 0;
        return UI_REDRAW;
    case ACT_DIGIT:
        if (w->jump < 0) w->jump = 0;
        w->jump = w->jump * 10 + (key - '0');
        if (++w->jump_digits > 2) { /* a third digit starts a new number */
            w->jump = key - '0';
            w->jump_digits = 1;
        }
        return UI_REDRAW;
    case ACT_AUTOPLAY:
        if (ui->autoplay > 0) {
            w->autoplay_saved = ui->autoplay;
            ui->autoplay = 0;
            ui_status(ui, "autoplay off");
            return UI_REDRAW;
        }
        ui->autoplay = w->autoplay_saved > 0 ? w->autoplay_saved : WALK_AUTOPLAY_SEC;
        w->autoplay_next = -1;
        ui_status(ui, "autoplay: the next step every %.1f s", walk_autoplay_seconds(ui));
        if (walk_number(w, ui) == walk_last(ui)) return walk_go(w, ui, 0, 0) | UI_ANIMATE;
        return UI_REDRAW | UI_ANIMATE;
    case ACT_FASTER:
    case ACT_SLOWER:
        return walk_speed(ui, a == ACT_FASTER);
    case ACT_ANIM:
        ui->animation = !ui->animation;
        ui_status(ui, "animations %s", ui->animation ? "on" : "off");
        return UI_REDRAW;
    case ACT_INSPECT:
        w->ss.inspect = !w->ss.inspect;
        return UI_REDRAW;
    case ACT_LEFT:
        return scene_cursor_move(ui->mha, &w->ss, -1, 0) ? UI_REDRAW : UI_HANDLED;
    case ACT_RIGHT:
        return scene_cursor_move(ui->mha, &w->ss, 1, 0) ? UI_REDRAW : UI_HANDLED;
    case ACT_UP:
        return scene_cursor_move(ui->mha, &w->ss, 0, -1) ? UI_REDRAW : UI_HANDLED;
    case ACT_DOWN:
        return scene_cursor_move(ui->mha, &w->ss, 0, 1) ? UI_REDRAW : UI_HANDLED;
    case ACT_OPEN: /* a mouse click; in compare the frame is not one scene's */
        if (ui->cmp || !scene_click(ui->mha, &w->ss, w->w, w->h, ui->mouse_x, ui->mouse_y))
            return UI_NONE;
        w->ss.inspect = 1;
        return UI_REDRAW;
    case ACT_SINGLE:
        w->ss.show_single = !w->ss.show_single;
        if (w->ss.step != MS_SOFTMAX)
            ui_status(ui, "the big-head softmax is %s; it shows on step %d (softmax)",
                      w->ss.show_single ? "on" : "off", mha_step_number(&ui->mha->cfg, MS_SOFTMAX));
        return UI_REDRAW;
    case ACT_FAILURE:
        return walk_failure(w, ui);
    case ACT_COMPARE:
        if (ui_compare_set(ui, !ui->cmp) == 0) {
            char la[64], lb[64];
            if (ui->cmp) {
                compare_label(la, sizeof la, &ui->cfg);
                compare_label(lb, sizeof lb, &ui->cmp_cfg);
                ui_status(ui, "compare: A %s | B %s  (x: off)", la, lb);
            } else {
                ui_status(ui, "compare off (x: on)");
            }
        }
        return UI_REDRAW;
    case ACT_LARGE:
        ui->large = !ui->large;
        ui_status(ui, "large print %s (L: %s)", ui->large ? "on: fewer, bigger cells" : "off",
                  ui->large ? "off" : "on");
        return UI_REDRAW;
    case ACT_BLANK: /* tick holds the clocks until the next key */
        w->blank = 1;
        return UI_REDRAW;
    default: /* c and H K S C R; ? and q / Esc are the stack's */
        return form_shared_action(ui, a, push);
    }
}

/* Blank holds the animation at its phase and autoplay at the time it had
 * left, without waking; the first tick after it moves both clocks on by the
 * time the screen was blank, so the slide comes back exactly as it was. */
static int walk_hold(Walk *w, const Ui *ui, double now)
{
    if (w->blank) {
        if (!w->frozen) {
            w->frozen = 1;
            w->autoplay_left = w->autoplay_next >= 0 ? w->autoplay_next - now : -1;
        }
        return 1;
    }
    if (w->frozen) {
        w->frozen = 0;
        if (w->animating && w->anim_start >= 0)
            w->anim_start = now - w->ss.anim * walk_anim_seconds(ui);
        if (w->autoplay_left >= 0) w->autoplay_next = now + w->autoplay_left;
    }
    return 0;
}

static int walk_tick(Screen *s, Ui *ui, double now)
{
    Walk *w = s->st;
    int f = 0;
    if (walk_hold(w, ui, now)) return 0;        /* blank: nothing moves, nothing wakes */
    if (!mha_config_same(&w->seen, &ui->cfg)) { /* a new run: the old cursor may not fit */
        w->seen = ui->cfg;
        walk_cursor_reset(w);
        f |= UI_REDRAW;
    }
    if (w->animating) {
        if (w->anim_start < 0) w->anim_start = now;
        double phase = (now - w->anim_start) / walk_anim_seconds(ui);
        if (phase >= 1.0 || phase < 0) {
            walk_stop_anim(w);
            f |= UI_REDRAW;
        } else {
            if (phase != w->ss.anim) f |= UI_REDRAW;
            w->ss.anim = phase;
            f |= UI_ANIMATE;
        }
    }
    if (ui->autoplay > 0) {
        if (w->autoplay_next < 0 || w->animating) {
            w->autoplay_next = now + walk_autoplay_seconds(ui); /* after the animation */
        } else if (now >= w->autoplay_next) {
            if (walk_number(w, ui) < walk_last(ui)) {
                f |= walk_go(w, ui, walk_number(w, ui) + 1, 1);
                w->autoplay_next = now + walk_autoplay_seconds(ui);
            } else {
                w->autoplay_saved = ui->autoplay;
                ui->autoplay = 0;
                ui_status(ui, "autoplay: the end (p starts again)");
                return f | UI_REDRAW;
            }
        }
        f |= UI_ANIMATE; /* keep waking to watch the clock */
    }
    return f;
}

/* Closing the walkthrough saves where it is: the step's number and the
 * configuration of the run on screen (not compare's B), unless --no-save.
 * A failed save is told on the status line of the screen below. */
static void walk_free(Screen *s)
{
    Walk *w = s->st;
    Ui *ui = w->ui;
    if (w->remember && !ui->no_save && !w->no_write && ui->mha) {
        WalkPlace p = {.step = walk_number(w, ui), .cfg = ui->mha->cfg};
        char err[200];
        if (walk_place_save(&p, err, sizeof err) < 0)
            ui_status(ui, "walkthrough place not saved: %.150s", err);
    }
    screen_free(s);
}

static const ScreenOps walk_ops = {
    .draw = walk_draw,
    .key = walk_key,
    .tick = walk_tick,
    .free = walk_free,
    .help = 0,
    .keys_now = walk_keys_now,
};

Screen *walk_open_at(Ui *ui, int step)
{
    Screen *s = screen_new(&walk_ops, "Walkthrough", sizeof(Walk));
    if (!s) return NULL;
    Walk *w = s->st;
    w->ui = ui;
    w->remember = 1;
    w->ss = scene_state_default();
    w->ss.step = step >= 0 && step < MS_ALL && mha_step_on(&ui->cfg, step) ? step : 0;
    w->seen = ui->cfg;
    w->jump = -1;
    w->anim_start = -1;
    w->autoplay_left = -1;
    w->autoplay_next = -1;
    return s;
}

Screen *walk_open(Ui *ui)
{
    return walk_open_at(ui, 0);
}

Screen *walk_continue(Ui *ui)
{
    WalkPlace p;
    int no_write = 0;
    char warning[320];
    int found = walk_place_load(&p, ui->no_save, &no_write, warning, sizeof warning);
    /* the saved configuration, as if its flags were given (a big one computes aside) */
    if (found && !mha_config_same(&p.cfg, &ui->cfg) && ui_set_config(ui, &p.cfg) < 0) found = 0;
    int step = found ? mha_step_at(&p.cfg, p.step) : 0;
    Screen *s = walk_open_at(ui, step);
    if (!s) return NULL;
    Walk *w = s->st;
    w->no_write = no_write;
    if (warning[0]) {
        ui_status(ui, "%.190s", warning);
    } else if (found) {
        static const Action first[] = {ACT_FIRST};
        char line[160], key[40];
        screen_cfg_line(line, sizeof line, &p.cfg);
        keys_hint_pick(KC_WALK, first, 1, 1, key, sizeof key);
        ui_status(ui, "continued at step %d: %.120s  (%s)", p.step, line, key);
    }
    return s;
}

Screen *walk_open_explore(Ui *ui)
{
    Screen *s = walk_open_at(ui, MS_HEADS);
    if (!s) return NULL;
    Walk *w = s->st;
    w->ss.inspect = 1;
    w->remember = 0; /* the walkthrough's place is the walkthrough's */
    s->title = "Explore";
    ui_status(ui, "explore: arrows move over the tensor, Space/PgUp change step, c config, i ends");
    return s;
}
