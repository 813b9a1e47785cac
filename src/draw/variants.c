/* variants.c - MHA | GQA | MQA side by side (see variants.h). */
#include "draw/variants.h"

#include <stdio.h>
#include <string.h>

#include "base/textutil.h"
#include "content/kv.h"
#include "draw/scene.h"
#include "engine/mla.h"

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

static void variant_column(Canvas *c, int x, int y0, int w, int h, int bar_w, const Mha *m,
                           const char *kind)
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
    char nb[32];
    canvas_printf(c, x + 1, y++, ST_GOOD, "S%d, %s bytes copied", Ke->st->id,
                  text_fmt_int(nb, sizeof nb, m->steps[MS_SCORES].bytes_copied)); /* expands K */
    if (m->groups == 1) {
        /* one query head per kv head: nothing to repeat (Llama's repeat_kv
         * returns K as it is when n_rep is 1) */
        canvas_text(c, x, y++, "repeat_interleave:", ST_DIM);
        canvas_text(c, x + 1, y++, "not needed (G = 1)", ST_GOOD);
    } else {
        canvas_text(c, x, y++, "repeat_interleave (copy):", ST_DIM);
        canvas_printf(c, x + 1, y++, Kr->st->bytes_copied ? ST_WARN : ST_GOOD,
                      "S%d, %s bytes copied", Kr->st->id,
                      text_fmt_int(nb, sizeof nb, Kr->st->bytes_copied));
    }
    /* KV cache of one toy layer, float32: K and V, last dim of K per token. */
    uint64_t per_tok = 0;
    kv_bytes_per_token(1, m->cfg.kv_heads, m->d_head, 32, &per_tok); /* toy sizes: no overflow */
    canvas_printf(c, x, y++, ST_BOLD, "cache/token/layer %s B", kv_fmt_int(b, sizeof b, per_tok));
    if (y + 2 < h) {
        canvas_text(c, x, y, "K buffer (V: same)", ST_DIM);
        int maxh = h - y - 1;
        int used = scene_candy_bar(c, x, y + 1, bar_w, maxh, K, K->shape[K->ndim - 1],
                                   m->cfg.kv_heads, m->d_head, -1);
        /* a title that fits the column: the bar's own, "storage S7: ...;
         * showing offsets ...", was cut to "storage S..." when rows hid */
        long n = (long)K->st->n;
        char t[112], nf[48], sb[32];
        text_fmt_count(nf, sizeof nf, (unsigned long long)n, "float");
        text_fmt_int(sb, sizeof sb, (unsigned long long)n * sizeof(float));
        snprintf(t, sizeof t, "S%d: %s, %s B", K->st->id, nf, sb);
        if ((int)strlen(t) > w) snprintf(t, sizeof t, "S%d: %s", K->st->id, nf);
        if (used >= maxh) /* rows hidden: the offsets drawn say which */
            snprintf(t, sizeof t, "S%d: %s, part", K->st->id, nf);
        canvas_fill(c, x, y + 1, w, 1, ' ', ST_NORMAL);
        canvas_text(c, x, y + 1, t, ST_BOLD);
    }
}

static int digits(long n)
{
    int d = 1;
    while (n >= 10)
        n /= 10, d++;
    return d;
}

/* Width of the candy bar of column i: the same cell width in every column
 * (MQA's bar is visibly narrower than MHA's: fewer floats per token), offsets
 * only (a cell of offw+5 columns or less has no room for a value), one row per
 * token when the column is wide enough. */
static int bar_width(const VariantRuns *v, int i, int w)
{
    const Tensor *K = v->run[i]->t[MT_K];
    long n = (long)K->st->n;
    int row = K->shape[K->ndim - 1], widest = 0, cw;
    long nmax = n;
    for (int j = 0; j < 3; j++)
        if (v->run[j]) {
            const Tensor *Kj = v->run[j]->t[MT_K];
            if (Kj->shape[Kj->ndim - 1] > widest) widest = Kj->shape[Kj->ndim - 1];
            if ((long)Kj->st->n > nmax) nmax = (long)Kj->st->n;
        }
    cw = w / (widest > 0 ? widest : 1);
    if (cw < digits(nmax - 1) + 1) cw = digits(nmax - 1) + 1;
    if (cw > digits(n - 1) + 5) cw = digits(n - 1) + 5;
    return (long)row * cw <= w ? row * cw : w;
}

/* The smallest heads count after heads that divides d_model and has a GQA
 * (a divisor strictly between 1 and itself); 0 when there is none. */
static int heads_with_gqa(int heads, int d_model)
{
    for (int h = heads + 1; h <= d_model; h++)
        if (d_model % h == 0 && variants_next_gqa(h, h, -1)) return h;
    return 0;
}

void variants_draw_panel(Canvas *c, int x, int y, int w, int h, const VariantRuns *v)
{
    static const char *const kind[3] = {"MHA", "GQA", "MQA"};
    int colw = w / 3;
    const MhaConfig *cfg = NULL;
    for (int i = 0; i < 3 && !cfg; i++)
        if (v->run[i]) cfg = &v->run[i]->cfg;
    for (int i = 0; i < 3; i++) {
        int cx = x + 1 + i * colw;
        if (i)
            for (int yy = y; yy < y + h; yy++)
                canvas_put(c, cx - 1, yy, 0x2502, ST_FRAME); /* │ */
        if (v->run[i]) {
            variant_column(c, cx, y, colw - 2, y + h, bar_width(v, i, colw - 2), v->run[i],
                           kind[i]);
            continue;
        }
        char why[240];
        if (i == 2 || !cfg) {
            snprintf(why, sizeof why, "one query head: MHA and MQA are the same");
        } else {
            int more = heads_with_gqa(cfg->heads, cfg->d_model);
            int o = snprintf(why, sizeof why,
                             "%d query heads: no GQA. It needs a kv_heads that divides %d, "
                             "strictly between 1 and %d.",
                             cfg->heads, cfg->heads, cfg->heads);
            if (more)
                snprintf(why + o, sizeof why - (size_t)o, " %d query heads allow one.",
                         more); /* more >= 4 */
        }
        canvas_text(c, cx, y, kind[i], ST_TITLE);
        canvas_wrap(c, cx, y + 2, colw - 2, h - 2, why, ST_DIM);
    }
}

int variants_mla_rank(const MhaConfig *cfg)
{
    return cfg->d_model / 2 > 0 ? cfg->d_model / 2 : 1;
}

/* One strip at (x, y): n[k] floats of part k, a cell every `per` floats in
 * the style st[k] and glyph ch[k] of the part its first float is in;
 * returns the columns used. */
static int strip(Canvas *c, int x, int y, int parts, const int *n, const Style *st,
                 const uint32_t *ch, int per)
{
    int col = 0, k = 0, start = 0, total = 0;
    for (int i = 0; i < parts; i++)
        total += n[i];
    for (int f = 0; f < total; f += per) {
        while (k < parts - 1 && f >= start + n[k])
            start += n[k++];
        canvas_put(c, x + col++, y, ch[k], st[k]);
    }
    return col;
}

int variants_draw_mla_strip(Canvas *c, int x, int y, int w, const MhaConfig *cfg, int rank,
                            int rope_dim, int tokens)
{
    const int H = cfg->heads, KV = cfg->kv_heads, dh = cfg->d_model / cfg->heads;
    const int R = rank, dr = rope_dim, label = 10, y0 = y;
    int widest = 2 * H * dh > R + dr ? 2 * H * dh : R + dr;
    int room = w - label - 26, per = 1;
    if (room < 8) room = 8;
    while ((widest + per - 1) / per > room)
        per++;
    /* K of head 0..H-1, then V of each: a part a head, the head's colour */
    int n[2 * 64 + 2];
    Style st[2 * 64 + 2];
    uint32_t ch[2 * 64 + 2];
    char a[32], b[32];
    canvas_printf(c, x, y++, ST_BOLD, "one token's cache, float32: MLA (--mla %d, rope_dim %d)", R,
                  dr);
    int heads[2] = {H, KV};
    for (int row = 0; row < 2; row++) {
        int h = heads[row], parts = 0;
        if (row == 1 && KV == H) continue; /* MHA: the line above is this config's */
        for (int kv = 0; kv < 2; kv++)
            for (int i = 0; i < h && parts < 2 * 64; i++) {
                int shown = h > 64 ? 64 : h; /* a part per head, up to 64 */
                if (i >= shown) break;
                n[parts] = dh * (h / shown), st[parts] = ST_HEAD(i);
                ch[parts++] = kv ? 'v' : 'k';
            }
        canvas_text(c, x, y, row ? (KV == 1 ? "MQA k|v" : "GQA k|v") : "MHA k|v", ST_NORMAL);
        int used = strip(c, x + label, y, parts, n, st, ch, per);
        canvas_printf(c, x + label + used + 1, y++, ST_NORMAL, "%s B = 2 x %d x %d x 4",
                      text_fmt_int(a, sizeof a, 2 * (uint64_t)h * (uint64_t)dh * 4), h, dh);
    }
    int ln[2] = {R, dr};
    Style ls[2] = {ST_GOOD, ST_WARN};
    uint32_t lc[2] = {'c', 'r'};
    canvas_text(c, x, y, "MLA c|kpe", ST_NORMAL);
    int used = strip(c, x + label, y, 2, ln, ls, lc, per);
    canvas_printf(c, x + label + used + 1, y++, ST_GOOD, "%s B = (%d + %d) x 4",
                  text_fmt_int(a, sizeof a, (uint64_t)mla_cache_bytes_per_token(R, dr)), R, dr);
    if (per > 1) canvas_printf(c, x, y++, ST_DIM, "(a cell: %d floats)", per);
    canvas_text(c, x, y++, "c_kv, k_pe are the cache; W_UK, W_UV make K, V back (absorbed: never)",
                ST_DIM);
    if (tokens > 0) {
        char own[48] = "";
        if (KV != H)
            snprintf(own, sizeof own, ", %s %s B", KV == 1 ? "MQA" : "GQA",
                     text_fmt_int(b, sizeof b, (uint64_t)tokens * 2 * (uint64_t)KV * dh * 4));
        canvas_printf(
            c, x, y++, ST_NORMAL, "at %d token%s: MHA %s B%s, MLA %s B", tokens, text_s(tokens),
            text_fmt_int(a, sizeof a, (uint64_t)tokens * mla_mha_bytes_per_token(cfg)), own,
            text_fmt_int(b, sizeof b,
                         (uint64_t)tokens * (uint64_t)mla_cache_bytes_per_token(R, dr)));
    }
    return y - y0;
}
