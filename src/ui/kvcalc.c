/* kvcalc.c - the KV-cache calculator: cached K and V bytes of real models
 * (content/presets.c, content/kv.c), per token and per sequence.  A ui.h
 * Screen: draws from state, keys return UI_* flags; its keys are KC_KV in
 * keys.c's one table. */
#include <stdint.h>
#include <stdio.h>

#include "base/textutil.h"
#include "content/kv.h"
#include "content/presets.h"
#include "ui/keys.h"
#include "ui/lessonui.h"
#include "ui/screen.h"

typedef struct KvCalc {
    PresetList presets;
    int sel, dtype;
    long context, batch; /* context 0: the preset's own */
    char err[200];
} KvCalc;

/* The bottom line, from the key table. */
static const char *kv_hint(char *buf, size_t n)
{
    static const Action keys[] = {ACT_UP,       ACT_DTYPE, ACT_CONTEXT_UP,
                                  ACT_BATCH_UP, ACT_HELP,  ACT_BACK};
    keys_hint_pick(KC_KV, keys, 6, 2, buf, n);
    return buf;
}

/* The model names across the top, in columns read downwards (Up/Down walk
 * them in order), so the detail below belongs to no row of the list but the
 * marked one.  Returns the first row below the list. */
static int draw_model_list(Canvas *c, const KvCalc *k, int y0)
{
    enum { CELL_W = 19 }; /* ">", a name cut at 16, a gap */
    int cols = (c->w - 2) / CELL_W > 0 ? (c->w - 2) / CELL_W : 1;
    int rows = (k->presets.n + cols - 1) / cols;
    for (int i = 0; i < k->presets.n; i++) {
        int sel = i == k->sel;
        canvas_printf(c, 1 + (i / rows) * CELL_W, y0 + i % rows, sel ? ST_CURSOR : ST_NORMAL,
                      "%s%-*.*s", sel ? ">" : " ", CELL_W - 3, CELL_W - 3, k->presets.v[i].name);
    }
    return y0 + rows;
}

/* The note (whole: it says what the numbers mean) and then the source, when
 * it fits whole in the rows left above the bottom line; a URL too wide for
 * the column breaks after a '/' only. */
static void draw_note(Canvas *c, const Preset *p, int x, int y, int w)
{
    int room = c->h - 1 - y;
    if (p->note[0]) {
        y += canvas_wrap(c, x, y, w, room, p->note, ST_WARN) + 1;
        room = c->h - 1 - y;
    }
    if (room > 0 && canvas_wrap_lines(p->source, w, room + 1) <= room) /* URLs break at '/' */
        canvas_wrap(c, x, y, w, room, p->source, ST_DIM);
}

static void kvcalc_draw(Screen *s, const Ui *ui, Canvas *c)
{
    KvCalc *k = s->st;
    char hint[160];
    canvas_clear(c);
    if (screen_draw_enlarge(c)) return;
    canvas_text(c, 1, 0, "KV-cache calculator", ST_TITLE);
    canvas_text(c, 22, 0, "cached K and V bytes, per token and per sequence", ST_DIM);
    if (k->presets.n == 0) {
        canvas_text(c, 1, 2, k->err, ST_BAD);
        static const Action back[] = {ACT_BACK};
        keys_hint_pick(KC_KV, back, 1, 2, hint, sizeof hint);
        screen_draw_status(c, ui, hint);
        return;
    }
    const Preset *p = &k->presets.v[k->sel];
    const KvDtype *dt = &kv_dtypes[k->dtype];
    long ctx = k->context ? k->context : p->context ? p->context : 4096;
    /* a short screen spends no row on the gaps: the note must fit whole */
    int gap = c->h >= 30, x = 1, y = draw_model_list(c, k, 2) + gap, w = c->w - x - 1;
    char a[40], b[40], d[40];
    canvas_text(c, x, y++, p->title, ST_BOLD);
    KvModel m = kv_model_of(p);
    if (m.kv_lora_rank) /* MLA: a latent per token, whatever num_key_value_heads says */
        canvas_printf(
            c, x, y++, ST_NORMAL,
            "%ld layer%s, %ld query head%s, MLA latent %ld + RoPE key %ld (not %ld kv head%s)",
            p->layers, text_s(p->layers), p->heads, text_s(p->heads), m.kv_lora_rank,
            m.qk_rope_head_dim, p->kv_heads, text_s(p->kv_heads));
    else
        canvas_printf(c, x, y++, ST_NORMAL,
                      "%ld layer%s, %ld query head%s, %ld kv head%s (%s), d_head %ld", p->layers,
                      text_s(p->layers), p->heads, text_s(p->heads), p->kv_heads,
                      text_s(p->kv_heads), kv_kind(&m), p->d_head);
    /* at most "dtype int4 (4 bits)   context 10^12   batch 10^9" with commas: 71 columns */
    canvas_printf(c, x, y++, ST_NORMAL, "dtype %s (%d bits)   context %s   batch %s", dt->name,
                  dt->bits, kv_fmt_int(a, sizeof a, (uint64_t)ctx),
                  kv_fmt_int(b, sizeof b, (uint64_t)k->batch));
    char note[120];
    if (kv_hypothetical(p, ctx, note, sizeof note)) canvas_text(c, x, y++, note, ST_WARN);
    KvRow rows[3];
    int n = 0;
    char err[200];
    KvLimit lim = kv_limit_of(p); /* sliding windows and chunks cap those layers */
    if (kv_table_limited(&m, &lim, dt->bits, ctx, k->batch, rows, &n, err, sizeof err) != 0) {
        canvas_wrap(c, x, y, w, 2, err, ST_BAD);
        screen_draw_status(c, ui, kv_hint(hint, sizeof hint));
        return;
    }
    const KvRow *own = &rows[0];
    for (int i = 0; i < n; i++)
        if (rows[i].is_model) own = &rows[i];
    if (m.kv_lora_rank) {
        canvas_text(c, x, y++, "layers x (kv_lora_rank + qk_rope_head_dim) x bits/8", ST_DIM);
        canvas_printf(c, x, y++, ST_CODE, "%ld x (%ld + %ld) x %d/8 = %s B/token", p->layers,
                      m.kv_lora_rank, m.qk_rope_head_dim, dt->bits,
                      kv_fmt_int(a, sizeof a, own->per_token));
    } else {
        canvas_text(c, x, y++, "2 (K,V) x layers x kv_heads x d_head x bits/8", ST_DIM);
        canvas_printf(c, x, y++, ST_CODE, "2 x %ld x %ld x %ld x %d/8 = %s B/token", p->layers,
                      p->kv_heads, p->d_head, dt->bits, kv_fmt_int(a, sizeof a, own->per_token));
    }
    if (lim.window && lim.window < ctx) /* capped layers: count layer-tokens */
        canvas_printf(c, x, y++, ST_CODE, "%ld of %ld layers keep %s token%s (%s): %s",
                      lim.local_layers, p->layers, kv_fmt_int(b, sizeof b, (uint64_t)lim.window),
                      text_s(lim.window), lim.chunked ? "chunk" : "window",
                      kv_fmt_size(d, sizeof d, own->total));
    else
        canvas_printf(c, x, y++, ST_CODE, "x %s token%s x %s = %s",
                      kv_fmt_int(b, sizeof b, (uint64_t)ctx), text_s(ctx),
                      kv_fmt_int(a, sizeof a, (uint64_t)k->batch),
                      kv_fmt_size(d, sizeof d, own->total));
    y++;
    canvas_printf(c, x, y++, ST_BOLD, "%-17s %4s %11s %10s %10s", "variant", "kv", "B/token",
                  "sequence", "total");
    for (int i = 0; i < n; i++) {
        char t1[40], t2[40], t3[40], kvh[16];
        if (rows[i].kv_heads)
            snprintf(kvh, sizeof kvh, "%ld", rows[i].kv_heads);
        else
            snprintf(kvh, sizeof kvh, "lat"); /* MLA: one latent for every head */
        canvas_printf(c, x, y++, rows[i].is_model ? ST_GOOD : ST_NORMAL, "%-17s %4s %11s %10s %10s",
                      rows[i].label, kvh, kv_fmt_int(t1, sizeof t1, rows[i].per_token),
                      kv_fmt_size(t2, sizeof t2, rows[i].per_context),
                      kv_fmt_size(t3, sizeof t3, rows[i].total));
    }
    draw_note(c, p, x, y + gap, w);
    screen_draw_status(c, ui, kv_hint(hint, sizeof hint));
}

static int kvcalc_key(Screen *s, Ui *ui, Action a, int key, Screen **push)
{
    (void)push; /* opens no screen itself (? is UI_HELP) */
    (void)key;
    KvCalc *k = s->st;
    if (k->presets.n == 0) return UI_NONE; /* no model: ? and q / Esc only, the stack's */
    const Preset *p = &k->presets.v[k->sel];
    long ctx = k->context ? k->context : p->context ? p->context : 4096;
    switch (a) {
    case ACT_UP:
    case ACT_DOWN:
        k->context = 0; /* the new model's own */
        return screen_menu_move(&k->sel, k->presets.n, a);
    case ACT_DTYPE:
        k->dtype = kv_dtypes[k->dtype + 1].name ? k->dtype + 1 : 0;
        return UI_REDRAW;
    case ACT_CONTEXT_UP:
        if (ctx >= KV_MAX_CONTEXT) { /* mhaviz kv --context's limit */
            ui_status(ui, "context is at its largest here");
            return UI_REDRAW;
        }
        k->context = ctx > KV_MAX_CONTEXT / 2 ? KV_MAX_CONTEXT : ctx * 2;
        return UI_REDRAW;
    case ACT_CONTEXT_DOWN:
        k->context = ctx > 1 ? ctx / 2 : 1;
        return UI_REDRAW;
    case ACT_BATCH_UP:
        if (k->batch >= KV_MAX_BATCH) { /* mhaviz kv --batch's limit */
            ui_status(ui, "batch is at its largest here");
            return UI_REDRAW;
        }
        k->batch = k->batch > KV_MAX_BATCH / 2 ? KV_MAX_BATCH : k->batch * 2;
        return UI_REDRAW;
    case ACT_BATCH_DOWN:
        k->batch = k->batch > 1 ? k->batch / 2 : 1;
        return UI_REDRAW;
    default: /* ? and q / Esc: the stack's */
        return UI_NONE;
    }
}

static void kvcalc_free(Screen *s)
{
    KvCalc *k = s->st;
    if (k) presets_free(&k->presets);
    screen_free(s);
}

static const ScreenOps kvcalc_ops = {
    .draw = kvcalc_draw,
    .key = kvcalc_key,
    .free = kvcalc_free,
    .help = KC_KV,
    .keys = KC_KV,
};

Screen *kvcalc_open(Ui *ui)
{
    (void)ui;
    Screen *s = screen_new(&kvcalc_ops, "KV calculator", sizeof(KvCalc));
    if (!s) return NULL;
    KvCalc *k = s->st;
    k->batch = 1;
    k->dtype = 1; /* fp16 */
    if (presets_builtin(&k->presets, k->err, sizeof k->err) != 0) k->presets.n = 0;
    return s;
}
