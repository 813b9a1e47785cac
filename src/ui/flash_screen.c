/* flash_screen.c - the Tiles screen (see ui/flash_screen.h).  Its state is a
 * run of its own configuration and a Flash over it at some tile; a key
 * changes the state and returns UI_* flags, the frame is drawn from the state
 * alone.  Going back replays the loop from the start (a toy run: microseconds). */
#include "ui/flash_screen.h"

#include <stdio.h>
#include <stdlib.h>

#include "draw/flash.h"
#include "engine/flash.h"
#include "ui/help.h"
#include "ui/keys.h"
#include "ui/screen.h"

typedef struct FlashScreen {
    MhaConfig cfg;
    int block_q, block_k; /* as asked: the Flash caps them at seq */
    Mha *m;               /* the run of cfg; owned */
    Flash *f;             /* owned */
    char err[200];        /* why the last rebuild failed; "" = none */
} FlashScreen;

/* Runs cfg again and replays the loop up to `upto` tiles run (-1: to the end). */
static void rebuild(FlashScreen *fs, long upto)
{
    flash_free(fs->f);
    mha_free(fs->m);
    fs->f = NULL;
    fs->err[0] = 0;
    fs->m = mha_run(&fs->cfg, fs->err, sizeof fs->err);
    if (fs->m) fs->f = flash_new(fs->m, fs->block_q, fs->block_k, fs->err, sizeof fs->err);
    while (fs->f && (upto < 0 || fs->f->visited < upto) && flash_step(fs->f)) {
    }
}

static void flash_screen_draw(Screen *s, const Ui *ui, Canvas *c)
{
    FlashScreen *fs = s->st;
    canvas_clear(c);
    if (screen_draw_enlarge(c)) return;
    if (!fs->f)
        canvas_text(c, 1, 1, fs->err[0] ? fs->err : "out of memory", ST_BAD);
    else
        flash_draw(c, fs->f, ui->large);
    static const Action picks[] = {ACT_NEXT, ACT_PREV, ACT_BLOCK_Q, ACT_CAUSAL, ACT_HELP, ACT_BACK};
    screen_draw_hint(c, ui, KC_FLASH, picks, 6, 1);
}

/* The next block size: 1, 2, ... up to seq, then 1 again. */
static int next_block(int block, int seq)
{
    return block >= seq ? 1 : block + 1;
}

static int flash_screen_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen itself (? is UI_HELP) */
    (void)key;
    FlashScreen *fs = s->st;
    long at = fs->f ? fs->f->visited : 0;
    ui->status[0] = 0;
    switch (a) {
    case ACT_NEXT:
        if (!fs->f || fs->f->done)
            rebuild(fs, 0); /* after the end: from the start again */
        else
            flash_step(fs->f); /* after the last tile: the end, said so */
        return UI_REDRAW;
    case ACT_PREV:
        rebuild(fs, at > 0 ? at - 1 : 0);
        return UI_REDRAW;
    case ACT_FIRST:
        rebuild(fs, 0);
        return UI_REDRAW;
    case ACT_LAST:
        rebuild(fs, -1);
        return UI_REDRAW;
    case ACT_BLOCK_Q:
        fs->block_q =
            next_block(fs->block_q < fs->cfg.seq ? fs->block_q : fs->cfg.seq, fs->cfg.seq);
        rebuild(fs, 0);
        return UI_REDRAW;
    case ACT_BLOCK_K:
        fs->block_k =
            next_block(fs->block_k < fs->cfg.seq ? fs->block_k : fs->cfg.seq, fs->cfg.seq);
        rebuild(fs, 0);
        return UI_REDRAW;
    case ACT_CAUSAL:
        fs->cfg.causal = !fs->cfg.causal;
        rebuild(fs, 0);
        return UI_REDRAW;
    case ACT_KV_HEADS:
        mha_config_next(&fs->cfg, MHA_NEXT_KV_HEADS);
        rebuild(fs, 0);
        return UI_REDRAW;
    case ACT_SEQ:
        mha_config_next(&fs->cfg, MHA_NEXT_SEQ);
        rebuild(fs, 0);
        return UI_REDRAW;
    default: /* ? and q / Esc: the stack's */
        return UI_NONE;
    }
}

static void flash_screen_free(Screen *s)
{
    FlashScreen *fs = s->st;
    flash_free(fs->f);
    mha_free(fs->m);
    screen_free(s);
}

static const ScreenOps flash_screen_ops = {
    .draw = flash_screen_draw,
    .key = flash_screen_key,
    .free = flash_screen_free,
    .help = KC_FLASH,
    .keys = KC_FLASH,
};

Screen *flash_open_with(Ui *ui, int block_q, int block_k)
{
    Screen *s = screen_new(&flash_screen_ops, "Tiles", sizeof(FlashScreen));
    if (!s) return NULL;
    FlashScreen *fs = s->st;
    fs->cfg = ui->cfg;
    fs->block_q = block_q;
    fs->block_k = block_k;
    rebuild(fs, 1); /* open on the first tile: something on chip at once */
    return s;
}

Screen *flash_open(Ui *ui)
{
    return flash_open_with(ui, FLASH_BLOCK_DEFAULT, FLASH_BLOCK_DEFAULT);
}
