/* screen.c - the parts every screen is built from, and the configuration
 * the screens share (ui_set_config, the quick keys H K S C R). */
#include "ui/screen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"

#include "draw/scene.h"
#include "ui/runjob.h"

/* ---- shared drawing ------------------------------------------------------- */

int screen_draw_enlarge(Canvas *c)
{
    if (c->w >= SCENE_MIN_W && c->h >= SCENE_MIN_H) return 0;
    scene_draw_enlarge(c, 0, 0, c->w, c->h, "q quits");
    return 1;
}

void screen_draw_status(Canvas *c, const Ui *ui, const char *hint)
{
    canvas_status(c, ui->status[0] ? ui->status : hint, ST_STATUS);
}

void screen_draw_hint(Canvas *c, const Ui *ui, unsigned ctx, const Action *picks, int npicks,
                      int maxnames)
{
    char hint[300];
    keys_hint_pick(ctx, picks, npicks, maxnames, hint, sizeof hint);
    screen_draw_status(c, ui, hint);
}

/* ---- shared keys ------------------------------------------------------------ */

int screen_menu_move(int *sel, int n, Action a)
{
    int d = a == ACT_UP || a == ACT_LEFT ? -1 : a == ACT_DOWN || a == ACT_RIGHT ? 1 : 0;
    if (!d || n <= 0) return UI_NONE;
    *sel = (*sel + n + d) % n;
    return UI_REDRAW;
}

void screen_free(Screen *s)
{
    if (!s) return;
    free(s->st);
    free(s);
}

Screen *screen_new(const ScreenOps *ops, const char *title, size_t st_size)
{
    Screen *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->st = calloc(1, st_size);
    if (!s->st) {
        free(s);
        return NULL;
    }
    s->ops = ops;
    s->title = title;
    return s;
}

void screen_draw(Screen *s, const Ui *ui, Canvas *c)
{
    s->ops->draw(s, ui, c);
}

int screen_tick(Screen *s, Ui *ui, double now_sec)
{
    return s->ops->tick ? s->ops->tick(s, ui, now_sec) : 0;
}

void screen_close(Screen *s)
{
    if (!s) return;
    if (s->ops && s->ops->free)
        s->ops->free(s);
    else
        screen_free(s);
}

int screen_open(Screen **push, Screen *child, Ui *ui)
{
    *push = child;
    if (child) return UI_PUSH | UI_REDRAW;
    if (!ui->status[0]) ui_status(ui, "out of memory");
    return UI_REDRAW;
}

void ui_status(Ui *ui, const char *fmt, ...)
{
    char raw[sizeof ui->status];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    sanitize_text(raw, ui->status, sizeof ui->status);
}

/* ---- the configuration ----------------------------------------------------- */

/* The one place a new run replaces the shared one, inline or computed aside:
 * whatever follows ui->cfg follows it here. */
static void adopt_run(Ui *ui, Mha *m, const MhaConfig *cfg)
{
    mha_free(ui->mha);
    ui->mha = m;
    ui->cfg = *cfg;
    if (ui->cmp) ui_compare_set(ui, 1); /* B follows A: FLAGS applied to the new cfg */
}

int ui_set_config(Ui *ui, const MhaConfig *cfg)
{
    char err[160];
    Mha *m = NULL;
    int ok = mha_config_check(cfg, err, sizeof err) == 0;
    if (ok) {
        runjob_cancel(ui->job); /* the newest request wins */
        ui->job = NULL;
    }
    if (ok && ui->background && runjob_worth(cfg) && (ui->job = runjob_start(cfg)) != NULL)
        return 1;
    if (ok) m = mha_run(cfg, err, sizeof err);
    if (!m) {
        ui_status(ui, "refused: %s", err);
        return -1;
    }
    adopt_run(ui, m, cfg);
    return 0;
}

int ui_compare_set(Ui *ui, int on)
{
    char err[160];
    MhaConfig b = ui->cfg;
    Mha *m = NULL;
    mha_free(ui->cmp);
    ui->cmp = NULL;
    if (!on) return 0;
    if (ui->compare[0] && ui->compare_parse) {
        if (ui->compare_parse(ui->compare, &ui->cfg, &b, err, sizeof err) < 0) {
            ui_status(ui, "compare off: %.160s", err);
            return -1;
        }
    } else {
        b.kv_heads = ui->cfg.kv_heads == 1 ? ui->cfg.heads : 1; /* MHA or GQA vs MQA */
    }
    if (mha_config_check(&b, err, sizeof err) == 0) m = mha_run(&b, err, sizeof err);
    if (!m) {
        ui_status(ui, "compare off: %.160s", err);
        return -1;
    }
    ui->cmp = m;
    ui->cmp_cfg = b;
    return 0;
}

int ui_poll_run(Ui *ui)
{
    if (!ui->job || !runjob_done(ui->job)) return 0;
    MhaConfig c = *runjob_config(ui->job);
    char err[160], line[150];
    Mha *m = runjob_take(ui->job, err, sizeof err);
    ui->job = NULL;
    if (!m) {
        ui_status(ui, "refused: %s", err);
        return 1;
    }
    adopt_run(ui, m, &c);
    screen_cfg_line(line, sizeof line, &ui->cfg);
    ui_status(ui, "now %s", line);
    return 1;
}

int ui_cancel_run(Ui *ui)
{
    if (!ui->job) return 0;
    runjob_cancel(ui->job);
    ui->job = NULL;
    char line[150];
    screen_cfg_line(line, sizeof line, &ui->cfg);
    ui_status(ui, "cancelled: still %s", line);
    return 1;
}

int ui_run_line(const Ui *ui, char *buf, size_t n)
{
    if (!ui->job) return 0;
    const MhaConfig *c = runjob_config(ui->job);
    snprintf(buf, n, "computing seq %d, d_model %d, heads %d, batch %d ... %.1f s  (Esc cancels)",
             c->seq, c->d_model, c->heads, c->batch, runjob_seconds(ui->job));
    return 1;
}

static const char *cfg_kind(const MhaConfig *c)
{
    return c->kv_heads == c->heads ? "MHA" : c->kv_heads == 1 ? "MQA" : "GQA";
}

void screen_cfg_line(char *buf, size_t n, const MhaConfig *c)
{
    snprintf(buf, n, "seq %d, d_model %d, heads %d (d_head %d), kv_heads %d (%s), seed %lu%s",
             c->seq, c->d_model, c->heads, c->heads ? c->d_model / c->heads : 0, c->kv_heads,
             cfg_kind(c), (unsigned long)c->seed, c->causal ? ", causal" : "");
}

int screen_quick_config(Ui *ui, Action a)
{
    MhaConfig c = ui->cfg;
    switch (a) {
    case ACT_HEADS:
        mha_config_next(&c, MHA_NEXT_HEADS);
        break;
    case ACT_KV_HEADS:
        mha_config_next(&c, MHA_NEXT_KV_HEADS);
        break;
    case ACT_SEQ:
        mha_config_next(&c, MHA_NEXT_SEQ);
        break;
    case ACT_CAUSAL:
        c.causal = !c.causal;
        break;
    case ACT_SEED:
        c.seed++;
        break;
    default:
        return UI_NONE;
    }
    if (ui_set_config(ui, &c) == 0) { /* 1: computing aside, ui_poll_run says "now" */
        char line[150];
        screen_cfg_line(line, sizeof line, &ui->cfg);
        ui_status(ui, "now %s", line);
    }
    return UI_REDRAW;
}

void ui_free(Ui *ui)
{
    runjob_cancel(ui->job);
    ui->job = NULL;
    mha_free(ui->mha);
    ui->mha = NULL;
    mha_free(ui->cmp);
    ui->cmp = NULL;
}
