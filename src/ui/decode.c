/* decode.c - the Decode screen (see ui/decode.h).  Its state is a full causal
 * run of its own configuration (the proof: every row is compared with it)
 * and a Decode over it at some position; a key changes the state and
 * returns UI_* flags, the frame is drawn from the state alone. */
#include "ui/decode.h"

#include <stdio.h>
#include <stdlib.h>

#include "draw/decode.h"
#include "draw/variants.h"
#include "engine/mla.h"
#include "ui/help.h"
#include "ui/keys.h"
#include "ui/screen.h"

typedef struct DecodeScreen {
    MhaConfig cfg; /* seq = the cache's capacity; causal */
    int prompt;    /* tokens of the prefill */
    DecodeLayout layout;
    int block_size; /* paged: tokens a block; 0: not paged */
    int mla;        /* M: MLA's latent strip in place of the scores */
    Mha *m;         /* the full causal run of cfg; owned */
    Decode *d;      /* owned */
    char err[200];  /* why the last rebuild failed; "" = none */
} DecodeScreen;

/* Runs cfg again and replays the decode up to `upto` tokens cached. */
static void rebuild(DecodeScreen *ds, int upto)
{
    decode_free(ds->d);
    mha_free(ds->m);
    ds->d = NULL;
    ds->err[0] = 0;
    ds->m = mha_run(&ds->cfg, ds->err, sizeof ds->err);
    if (!ds->m) return;
    ds->d = decode_new(ds->m, ds->layout, ds->prompt, ds->err, sizeof ds->err);
    if (ds->d && ds->block_size &&
        (decode_set_paged(ds->d, ds->block_size, ds->err, sizeof ds->err) != 0 ||
         decode_share_prefix(ds->d, ds->cfg.shared_prefix, ds->err, sizeof ds->err) != 0)) {
        decode_free(ds->d);
        ds->d = NULL;
        return;
    }
    if (!ds->d || decode_prefill(ds->d, ds->err, sizeof ds->err) != 0) {
        decode_free(ds->d);
        ds->d = NULL;
        return;
    }
    while (ds->d->len < upto && decode_step(ds->d, ds->err, sizeof ds->err) == 0) {
    }
}

static void decode_screen_draw(Screen *s, const Ui *ui, Canvas *c)
{
    DecodeScreen *ds = s->st;
    canvas_clear(c);
    if (screen_draw_enlarge(c)) return;
    if (!ds->d) {
        canvas_text(c, 1, 1, ds->err[0] ? ds->err : "out of memory", ST_BAD);
    } else {
        if (ds->mla)
            decode_draw_mla(c, ds->d, decode_check(ds->d), variants_mla_rank(&ds->cfg),
                            mla_rope_dim_default(ds->cfg.d_model / ds->cfg.heads), ui->large);
        else
            decode_draw(c, ds->d, decode_check(ds->d), ui->large);
        if (ds->d->len == ds->d->cap)
            canvas_text(c, c->w - 28, 1, "cache full: Space restarts", ST_WARN);
    }
    /* what fits 80 columns down to "q back"; g (prefill) and M are in the ? help */
    static const Action picks[] = {ACT_NEXT,   ACT_PREV, ACT_KV_HEADS,
                                   ACT_LAYOUT, ACT_HELP, ACT_BACK};
    screen_draw_hint(c, ui, KC_DECODE, picks, 6, 1);
}

static int decode_screen_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen itself (? is UI_HELP) */
    (void)key;
    DecodeScreen *ds = s->st;
    int len = ds->d ? ds->d->len : ds->prompt;
    ui->status[0] = 0;
    switch (a) {
    case ACT_NEXT:
        if (!ds->d || ds->d->len >= ds->d->cap)
            rebuild(ds, 0);
        else if (decode_step(ds->d, ds->err, sizeof ds->err) < 0)
            rebuild(ds, 0);
        return UI_REDRAW;
    case ACT_PREV: /* the same run replayed one token shorter; at the prefill, stay */
        if (ds->d && ds->d->len > ds->prompt) rebuild(ds, ds->d->len - 1);
        return UI_REDRAW;
    case ACT_FIRST:
        rebuild(ds, 0);
        return UI_REDRAW;
    case ACT_KV_HEADS: /* MHA -> GQA (half) -> ... -> MQA -> MHA */
        ds->cfg.kv_heads = ds->cfg.kv_heads == 1 ? ds->cfg.heads : ds->cfg.kv_heads / 2;
        while (ds->cfg.heads % ds->cfg.kv_heads)
            ds->cfg.kv_heads--;
        rebuild(ds, len);
        return UI_REDRAW;
    case ACT_LAYOUT:
        ds->layout = ds->layout == DECODE_HF ? DECODE_META : DECODE_HF;
        rebuild(ds, len);
        return UI_REDRAW;
    case ACT_MLA:
        ds->mla = !ds->mla;
        return UI_REDRAW;
    default: /* ? and q / Esc: the stack's */
        return UI_NONE;
    }
}

static void decode_screen_free(Screen *s)
{
    DecodeScreen *ds = s->st;
    decode_free(ds->d);
    mha_free(ds->m);
    screen_free(s);
}

Screen *decode_open_with(Ui *ui, int prompt, DecodeLayout layout)
{
    DecodeScreenOpts o = {prompt, layout, 0, 0, 0};
    return decode_open_opts(ui, &o);
}

static const ScreenOps decode_screen_ops = {
    .draw = decode_screen_draw,
    .key = decode_screen_key,
    .free = decode_screen_free,
    .help = KC_DECODE,
    .keys = KC_DECODE,
};

Screen *decode_open_opts(Ui *ui, const DecodeScreenOpts *o)
{
    Screen *s = screen_new(&decode_screen_ops, "Decode", sizeof(DecodeScreen));
    if (!s) return NULL;
    DecodeScreen *ds = s->st;
    ds->cfg = ui->cfg;
    ds->cfg.causal = 1;
    ds->cfg.window = o->window;
    ds->cfg.shared_prefix = o->prefix; /* the batch's x shares it: the pool can too */
    ds->prompt = o->prompt > 0 ? o->prompt : decode_prompt_default(ds->cfg.seq);
    ds->layout = o->layout;
    ds->block_size = o->block_size;
    rebuild(ds, 0);
    return s;
}

Screen *decode_open(Ui *ui)
{
    return decode_open_with(ui, 0, DECODE_HF);
}
