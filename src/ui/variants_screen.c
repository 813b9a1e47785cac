/* variants_screen.c - MHA | GQA | MQA side by side for the configuration
 * the program shares (draw/variants.c draws the panel).  A ui.h Screen:
 * draws from state, keys return UI_* flags; its keys are KC_VARIANTS in
 * keys.c's one table. */
#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
#include "draw/variants.h"
#include "engine/mla.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"

typedef struct Variants {
    MhaConfig base; /* ui->cfg the runs were made for */
    int valid;
    VariantRuns runs;
    int mla; /* M: MLA's latent strip under the columns */
} Variants;

/* The three runs are a cache of ui->cfg, redone here (never in draw) when
 * the configuration changed: by a key here, or on a screen above this one. */
static int variants_tick(Screen *s, Ui *ui, double now)
{
    (void)now;
    Variants *v = s->st;
    if (v->valid && mha_config_same(&v->base, &ui->cfg)) return 0;
    variants_run(&v->runs, &ui->cfg, v->runs.gqa_kv);
    v->base = ui->cfg;
    v->valid = 1;
    return UI_REDRAW;
}

static void variants_draw(Screen *s, const Ui *ui, Canvas *c)
{
    Variants *v = s->st;
    canvas_clear(c);
    if (screen_draw_enlarge(c)) return;
    canvas_printf(c, 1, 0, ST_TITLE, "MHA | GQA | MQA");
    canvas_printf(c, 18, 0, ST_DIM, "seq %d, d_model %d, %d query head%s of d_head %d", ui->cfg.seq,
                  ui->cfg.d_model, ui->cfg.heads, text_s(ui->cfg.heads),
                  ui->cfg.d_model / ui->cfg.heads);
    int strip = v->mla ? 6 : 0; /* MLA's strip at the bottom, the columns above it */
    variants_draw_panel(c, 0, 1, c->w, c->h - 2 - strip, &v->runs);
    if (strip) {
        canvas_fill(c, 0, c->h - 1 - strip, c->w, strip, ' ', ST_NORMAL);
        variants_draw_mla_strip(c, 1, c->h - 1 - strip, c->w - 2, &ui->cfg,
                                variants_mla_rank(&ui->cfg),
                                mla_rope_dim_default(ui->cfg.d_model / ui->cfg.heads), 0);
    }
    static const Action gqa[] = {ACT_GQA_NEXT, ACT_GQA_PREV, ACT_HEADS,
                                 ACT_MLA,      ACT_HELP,     ACT_BACK};
    char hint[160] = "no GQA column for these heads:  ";
    size_t k = strlen(hint);
    if (v->runs.run[1])
        keys_hint_pick(KC_VARIANTS, gqa, 6, 1, hint, sizeof hint);
    else
        keys_hint_pick(KC_VARIANTS, gqa + 2, 4, 1, hint + k, sizeof hint - k);
    screen_draw_status(c, ui, hint);
}

static int variants_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen itself (? is UI_HELP) */
    (void)key;
    Variants *v = s->st;
    switch (a) {
    case ACT_GQA_NEXT:
    case ACT_GQA_PREV: {
        int k = variants_next_gqa(ui->cfg.heads, v->runs.gqa_kv ? v->runs.gqa_kv : ui->cfg.heads,
                                  a == ACT_GQA_NEXT ? 1 : -1);
        if (!k) {
            ui_status(ui, "no GQA with %d query heads: press H for more",
                      ui->cfg.heads); /* the panel says why; this line fits 80 columns */
            return UI_REDRAW;
        }
        v->runs.gqa_kv = k;
        v->valid = 0;
        MhaConfig c = ui->cfg;
        c.kv_heads = k; /* the rest of the program follows: the walkthrough shows this GQA too */
        ui_set_config(ui, &c);
        return UI_REDRAW;
    }
    case ACT_HEADS:
        v->valid = 0;
        return screen_quick_config(ui, ACT_HEADS);
    case ACT_MLA:
        v->mla = !v->mla;
        return UI_REDRAW;
    default: /* ? and q / Esc: the stack's */
        return UI_NONE;
    }
}

static void variants_free(Screen *s)
{
    Variants *v = s->st;
    if (v) variants_free_runs(&v->runs);
    screen_free(s);
}

static const ScreenOps variants_ops = {
    .draw = variants_draw,
    .key = variants_key,
    .tick = variants_tick,
    .free = variants_free,
    .help = KC_VARIANTS,
    .keys = KC_VARIANTS,
};

Screen *variants_open(Ui *ui)
{
    (void)ui;
    Screen *s = screen_new(&variants_ops, "Variants", sizeof(Variants));
    if (!s) return NULL;
    return s;
}
