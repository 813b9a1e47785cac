/* variants.c - MHA | GQA | MQA side by side (see variants.h). */
#include "variants.h"

#include <stdio.h>
#include <string.h>

#include "kv.h"
#include "scene.h"

/* The divisor of heads in (1, heads) after (dir > 0) or before (dir < 0) kv,
 * wrapping around; 0 when heads has none (1, 2, 3, 5, 7 ...). */
int variants_next_gqa(int heads, int kv, int dir)
{
    int d[64], n = 0;
    for (int k = 2; k < heads && n < 64; k++)
        if (heads % k == 0) d[n++] = k;
    if (n == 0) return 0;
    if (dir > 0) {
        for (int i = 0; i < n; i++)
            if (d[i] > kv) return d[i];
        return d[0];
    }
    for (int i = n - 1; i >= 0; i--)
        if (d[i] < kv) return d[i];
    return d[n - 1];
}

void variants_free_runs(VariantRuns *v)
{
    for (int i = 0; i < 3; i++) {
        mha_free(v->run[i]);
        v->run[i] = NULL;
    }
}

void variants_run(VariantRuns *v, const MhaConfig *cfg, int gqa_kv)
{
    variants_free_runs(v);
    int H = cfg->heads;
    if (gqa_kv > 1 && gqa_kv < H && H % gqa_kv == 0)
        v->gqa_kv = gqa_kv;
    else if (cfg->kv_heads > 1 && cfg->kv_heads < H)
        v->gqa_kv = cfg->kv_heads;
    else
        v->gqa_kv = variants_next_gqa(H, H, -1);
    int kvs[3] = {H, v->gqa_kv, 1};
    char err[200];
    for (int i = 0; i < 3; i++) {
        if (kvs[i] < 1 || (i == 2 && H == 1)) continue;
        MhaConfig c = *cfg;
        c.kv_heads = kvs[i];
        v->run[i] = mha_run(&c, err, sizeof err); /* NULL (column explains) on failure */
    }
}

static void variant_column(Canvas *c, int x, int y0, int w, int h, const Mha *m, const char *kind)
{
    char a[64], b[64];
    int y = y0;
    const Tensor *K = m->t[MT_K], *Kh = m->t[MT_K_HEADS], *Ke = m->t[MT_K_EXPAND],
                 *Kr = m->t[MT_K_REPEAT];
    canvas_printf(c, x, y++, ST_TITLE, "%s  kv_heads %d", kind, m->cfg.kv_heads);
    canvas_printf(c, x, y++, ST_NORMAL, "K %s", tensor_fmt_dims(a, sizeof a, K->ndim, K->shape));
    canvas_printf(c, x, y++, ST_NORMAL, "K heads %s",
                  tensor_fmt_dims(a, sizeof a, Kh->ndim, Kh->shape));
    canvas_text(c, x, y++, "query heads -> kv head", ST_DIM);
    int lines = 0;
    for (int kv = 0; kv < m->cfg.kv_heads; kv++) {
        if (lines == 4 && m->cfg.kv_heads > 5) {
            canvas_printf(c, x, y++, ST_DIM, "  ... %d more kv heads", m->cfg.kv_heads - kv);
            break;
        }
        char line[160];
        size_t o = 0;
        for (int q = 0; q < m->cfg.heads && o < sizeof line - 8; q++)
            if (mha_kv_head_of(&m->cfg, q) == kv)
                o += (size_t)snprintf(line + o, sizeof line - o, "q%d ", q);
        snprintf(line + o, sizeof line - o, "-> kv%d", kv);
        canvas_text(c, x + 1, y++, line, ST_HEAD(kv));
        lines++;
    }
    canvas_text(c, x, y++, "expand (view), strides:", ST_DIM);
    canvas_printf(c, x + 1, y++, ST_GOOD, "%s", tensor_fmt_strides(a, sizeof a, Ke));
    canvas_printf(c, x + 1, y++, ST_GOOD, "S%d, 0 bytes copied", Ke->st->id);
    canvas_text(c, x, y++, "repeat_interleave (copy):", ST_DIM);
    canvas_printf(c, x + 1, y++, Kr->st->bytes_copied ? ST_WARN : ST_GOOD, "S%d, %zu bytes copied",
                  Kr->st->id, Kr->st->bytes_copied);
    /* KV cache of one toy layer, float32: K and V, last dim of K per token. */
    size_t per_tok = 2 * (size_t)K->shape[K->ndim - 1] * sizeof(float);
    canvas_printf(c, x, y++, ST_BOLD, "cache/token/layer %s B", kv_fmt_int(b, sizeof b, per_tok));
    if (y + 2 < h) {
        canvas_text(c, x, y, "K buffer (V: same)", ST_DIM);
        scene_candy_bar(c, x, y + 1, w, h - y - 1, K, K->shape[K->ndim - 1], m->cfg.kv_heads,
                        m->d_head, -1);
    }
}

void variants_draw_panel(Canvas *c, int x, int y, int w, int h, const VariantRuns *v)
{
    static const char *const kind[3] = {"MHA", "GQA", "MQA"};
    int colw = w / 3;
    for (int i = 0; i < 3; i++) {
        int cx = x + 1 + i * colw;
        if (i)
            for (int yy = y; yy < y + h; yy++)
                canvas_put(c, cx - 1, yy, 0x2502, ST_FRAME); /* │ */
        if (v->run[i]) {
            variant_column(c, cx, y, colw - 2, y + h, v->run[i], kind[i]);
        } else {
            canvas_text(c, cx, y, kind[i], ST_TITLE);
            canvas_wrap(c, cx, y + 2, colw - 2, 6,
                        i == 1 ? "needs a kv_heads between 1 and heads that divides heads: more "
                                 "heads (H) give one"
                               : "one query head: MHA and MQA are the same",
                        ST_DIM);
        }
    }
}
