/* form.c - the configuration form, and the keys that lead to it. */
#include "ui/form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/help.h"
#include "ui/screen.h"

/* ---- the configuration form ------------------------------------------------ */

enum { F_BATCH, F_SEQ, F_DMODEL, F_HEADS, F_KV, F_SEED, F_CAUSAL, F_COUNT };

static const struct {
    const char *label, *about;
    long max;
} form_fields[F_COUNT] = {
    [F_BATCH] = {"batch", "sequences B, side by side in memory", MHA_MAX_BATCH},
    [F_SEQ] = {"seq", "tokens S", MHA_MAX_SEQ},
    [F_DMODEL] = {"d_model", "model width D", MHA_MAX_DMODEL},
    [F_HEADS] = {"heads", "query heads H: must divide d_model", MHA_MAX_DMODEL},
    [F_KV] = {"kv_heads", "key/value heads: divide heads (1 = MQA)", MHA_MAX_DMODEL},
    [F_SEED] = {"seed", "seed of the toy input and weights", (long)MHA_MAX_SEED},
    [F_CAUSAL] = {"causal", "mask future tokens before the softmax", 1},
};

typedef struct Form {
    MhaConfig draft;
    int sel;
    int typing; /* 1 after a digit: the next digit appends instead of replacing */
} Form;

static long form_get(const MhaConfig *c, int f)
{
    switch (f) {
    case F_BATCH:
        return c->batch;
    case F_SEQ:
        return c->seq;
    case F_DMODEL:
        return c->d_model;
    case F_HEADS:
        return c->heads;
    case F_KV:
        return c->kv_heads;
    case F_SEED:
        return (long)c->seed;
    default:
        return c->causal;
    }
}

/* Sets field f; kv_heads follows heads while they are equal (MHA stays MHA). */
static void form_set(MhaConfig *c, int f, long v)
{
    if (v < 0) v = 0;
    if (v > form_fields[f].max) v = form_fields[f].max;
    switch (f) {
    case F_BATCH:
        c->batch = (int)v;
        break;
    case F_SEQ:
        c->seq = (int)v;
        break;
    case F_DMODEL:
        c->d_model = (int)v;
        break;
    case F_HEADS:
        if (c->kv_heads == c->heads) c->kv_heads = (int)v;
        c->heads = (int)v;
        break;
    case F_KV:
        c->kv_heads = (int)v;
        break;
    case F_SEED:
        c->seed = (uint32_t)v;
        break;
    default:
        c->causal = v != 0;
        break;
    }
}

static void form_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Form *f = s->st;
    if (screen_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "Configuration", ST_TITLE);
    char line[160];
    screen_cfg_line(line, sizeof line, &ui->cfg);
    canvas_text(c, 1, 2, "now:", ST_DIM);
    canvas_text(c, 6, 2, line, ST_NORMAL);
    for (int i = 0; i < F_COUNT; i++) {
        int y = 4 + 2 * i;
        long v = form_get(&f->draft, i);
        char val[24];
        if (i == F_CAUSAL)
            snprintf(val, sizeof val, "%s", v ? "on" : "off");
        else
            snprintf(val, sizeof val, "%ld", v);
        canvas_text(c, 3, y, form_fields[i].label, i == f->sel ? ST_BOLD : ST_NORMAL);
        canvas_fill(c, 13, y, 12, 1, ' ', i == f->sel ? ST_CURSOR : ST_CODE);
        canvas_text(c, 14, y, val, i == f->sel ? ST_CURSOR : ST_CODE);
        canvas_text(c, 27, y, form_fields[i].about, ST_DIM);
    }
    char err[160];
    int y = 4 + 2 * F_COUNT;
    if (mha_config_check(&f->draft, err, sizeof err) == 0) {
        canvas_text(c, 3, y, "valid: Enter applies, Esc cancels", ST_GOOD);
    } else {
        canvas_text(c, 3, y, "invalid:", ST_BAD);
        canvas_wrap(c, 12, y, c->w - 13, 2, err, ST_BAD);
    }
    static const Action two[] = {ACT_UP, ACT_INC},
                        one[] = {ACT_DIGIT, ACT_APPLY, ACT_BACK, ACT_HELP};
    char hint[160];
    size_t k = keys_hint_pick(KC_FORM, two, 2, 2, hint, sizeof hint); /* Up/Down, Right/Left */
    if (k + 2 < sizeof hint) {
        memcpy(hint + k, "  ", 3);
        keys_hint_pick(KC_FORM, one, 4, 1, hint + k + 2, sizeof hint - k - 2);
    }
    screen_draw_status(c, ui, hint);
}

static int form_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen itself (? is UI_HELP) */
    Form *f = s->st;
    if (a != ACT_DIGIT) f->typing = 0;
    long v = form_get(&f->draft, f->sel);
    switch (a) {
    case ACT_UP:
    case ACT_DOWN:
        return screen_menu_move(&f->sel, F_COUNT, a);
    case ACT_INC:
        form_set(&f->draft, f->sel, f->sel == F_CAUSAL ? !v : v + 1);
        return UI_REDRAW;
    case ACT_DEC:
        form_set(&f->draft, f->sel, f->sel == F_CAUSAL ? !v : v - 1);
        return UI_REDRAW;
    case ACT_TOGGLE:
        form_set(&f->draft, F_CAUSAL, !f->draft.causal);
        return UI_REDRAW;
    case ACT_DIGIT: {
        long d = key - '0';
        if (f->sel == F_CAUSAL) {
            form_set(&f->draft, F_CAUSAL, d != 0);
        } else {
            long nv = f->typing && v <= (form_fields[f->sel].max - d) / 10 ? v * 10 + d : d;
            form_set(&f->draft, f->sel, nv);
            f->typing = 1;
        }
        return UI_REDRAW;
    }
    case ACT_ERASE:
        form_set(&f->draft, f->sel, v / 10);
        f->typing = 1;
        return UI_REDRAW;
    case ACT_APPLY: {
        int r = ui_set_config(ui, &f->draft);
        if (r < 0) return UI_REDRAW; /* reason in the status line */
        if (r == 0) {                /* 1: computing aside, ui_poll_run says "now" */
            char line[150];
            screen_cfg_line(line, sizeof line, &ui->cfg);
            ui_status(ui, "now %s", line);
        }
        return UI_BACK | UI_REDRAW;
    }
    default: /* ? and Esc / q: the stack's */
        return UI_NONE;
    }
}

static const ScreenOps form_ops = {
    .draw = form_draw,
    .key = form_key,
    .help = 0,
    .keys = KC_FORM,
};

Screen *form_open(Ui *ui)
{
    Screen *s = screen_new(&form_ops, "Configuration", sizeof(Form));
    if (!s) return NULL;
    Form *f = s->st;
    f->draft = ui->cfg;
    return s;
}

int form_shared_action(Ui *ui, Action a, Screen **push)
{
    switch (a) {
    case ACT_CONFIG:
        return screen_open(push, form_open(ui), ui);
    case ACT_HEADS:
    case ACT_KV_HEADS:
    case ACT_SEQ:
    case ACT_CAUSAL:
    case ACT_SEED:
        return screen_quick_config(ui, a);
    default:
        return UI_NONE;
    }
}
