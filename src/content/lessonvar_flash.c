/* lessonvar_flash.c - the {rope ...} and {flash ...} expressions of lesson 9.
 *
 * {rope ...} reads engine/rope.c (the pair of a float, its partner, the
 * angle) and the page's run (its layout and theta, HF's permutation check);
 * {flash ...} runs engine/flash.c's tile loop over the page's run with the
 * blocks `mhaviz flash` uses by default, and its flash_bytes accounting.  The
 * fields are listed in lessons/README.md; keep the two in step.
 */
#include <math.h>
#include <string.h>

#include "base/textutil.h"
#include "content/lessonvar.h"
#include "engine/flash.h"

/* "half" or "interleaved" into *l; -1 with err naming the expression. */
static int layout_arg(Eval *e, const char *s, RopeLayout *l)
{
    int k = rope_layout_of(s);
    if (k < 0) {
        snprintf(e->err, e->errlen, "{rope ... %.40s}: the layouts are half and interleaved", s);
        return -1;
    }
    *l = (RopeLayout)k;
    return 0;
}

/* {rope partner L j} {rope pair L j} {rope offset L}: pure arithmetic over
 * the page's d_head; {rope layout} {rope theta} {rope invfreq i}
 * {rope angle p i} {rope hfcheck} {rope hfwrong}: the page's RoPE (on). */
int lessonvar_rope(Eval *e, int argc, char **argv)
{
    const int dh = e->m->d_head;
    const char *f = argc >= 2 ? argv[1] : "";
    RopeLayout l;
    long j, p, i;
    if (!strcmp(f, "partner") || !strcmp(f, "pair")) {
        if (argc != 4) return WRONG_ARGS;
        if (layout_arg(e, argv[2], &l)) return -1;
        if (dh % 2 || int_arg(e, "rope", argv[3], 0, dh - 1, &j)) {
            snprintf(e->err, e->errlen, "{rope %s %s %.20s}: floats of a head are 0..%d", f,
                     argv[2], argv[3], dh - 1);
            return -1;
        }
        put(e->o, "%d",
            !strcmp(f, "partner") ? rope_partner(l, (int)j, dh) : rope_pair_of(l, (int)j, dh));
        return 0;
    }
    if (!strcmp(f, "offset")) { /* how far a float's partner sits: dh/2 or 1 */
        if (argc != 3) return WRONG_ARGS;
        if (layout_arg(e, argv[2], &l)) return -1;
        put(e->o, "%d", rope_partner(l, 0, dh));
        return 0;
    }
    const MhaConfig *c = e->c;
    if (c->rope == ROPE_OFF) {
        snprintf(e->err, e->errlen, "{rope %.20s}: RoPE is off on this page (@config rope=half)",
                 f);
        return -1;
    }
    if (!strcmp(f, "layout") && argc == 2) {
        put(e->o, "%s", rope_layout_name(c->rope));
    } else if (!strcmp(f, "theta") && argc == 2) {
        put(e->o, "%g", c->rope_theta);
    } else if (!strcmp(f, "invfreq") && argc == 3) {
        if (int_arg(e, "rope invfreq", argv[2], 0, dh / 2 - 1, &i)) return -1;
        put(e->o, "%.4g", (double)rope_inv_freq((int)i, dh, c->rope_theta));
    } else if (!strcmp(f, "angle") && argc == 4) { /* position p, pair i: p x inv_freq[i] */
        if (int_arg(e, "rope angle", argv[2], 0, c->seq - 1, &p) ||
            int_arg(e, "rope angle", argv[3], 0, dh / 2 - 1, &i))
            return -1;
        put(e->o, "%.4g", (double)((float)p * rope_inv_freq((int)i, dh, c->rope_theta)));
    } else if ((!strcmp(f, "hfcheck") || !strcmp(f, "hfwrong")) && argc == 2) {
        /* the other layout on HF's permuted weights (hfcheck) or on the
         * originals (hfwrong), against the run's scores */
        float d = mha_rope_hf_diff(e->m, f[2] == 'w');
        put(e->o, "%.2g over %zu scores", d < 1e-6f ? 0.0 : (double)d,
            tensor_numel(e->m->t[MT_SCORES]));
    } else {
        snprintf(e->err, e->errlen,
                 "{rope %.20s}: fields are partner L j, pair L j, offset L, layout, theta, "
                 "invfreq i, angle p i, hfcheck, hfwrong",
                 f);
        return -1;
    }
    return 0;
}

/* What {flash m|l|keys|argmax|rescale b,h,r kt} reads off the loop. */
typedef struct RowState {
    float m, l, m_before; /* after tile kt; m_before: after tile kt - 1 */
    int keys, argmax;     /* unmasked keys summed into l; the key whose score is m */
} RowState;

/* Runs f to K/V tile kt of the q tile holding row r of (b, h); -1 with err
 * set when that tile is skipped or out of range. */
static int row_state(Eval *e, Flash *f, char **argv, RowState *st)
{
    const MhaConfig *c = e->c;
    const char *arg = argv[2], *ktarg = argv[3];
    long v[3], kt;
    char buf[64];
    snprintf(buf, sizeof buf, "%.60s", arg);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    long hi[3] = {c->batch - 1, c->heads - 1, c->seq - 1};
    for (int k = 0; k < 3; k++, tok = strtok_r(NULL, ",", &save))
        if (!tok || int_arg(e, "flash", tok, 0, hi[k], &v[k])) {
            snprintf(e->err, e->errlen, "{flash ... %.40s}: expected b,h,r in 0..%d,0..%d,0..%d",
                     arg, c->batch - 1, c->heads - 1, c->seq - 1);
            return -1;
        }
    if (tok || int_arg(e, "flash", ktarg, 0, f->n_ktiles - 1, &kt)) {
        snprintf(e->err, e->errlen, "{flash ... %.40s %.20s}: K/V tiles are 0..%d", arg, ktarg,
                 f->n_ktiles - 1);
        return -1;
    }
    int qt = (int)v[2] / f->block_q;
    if (flash_skips(c->seq, f->block_q, f->block_k, c->causal, qt, (int)kt)) {
        snprintf(e->err, e->errlen,
                 "{flash %s %s %s}: K/V tile %ld is skipped for q tile %d (causal)", argv[1], arg,
                 ktarg, kt, qt);
        return -1;
    }
    float best = -INFINITY;
    st->argmax = -1;
    st->m_before = -INFINITY;
    while (flash_step(f)) {
        if (f->b != v[0] || f->h != v[1] || f->qtile != qt) continue;
        int r = (int)v[2] - f->r0;
        for (int col = 0; col < f->c1 - f->c0; col++)
            if (f->s[(size_t)r * (size_t)(f->c1 - f->c0) + col] > best)
                best = f->s[(size_t)r * (size_t)(f->c1 - f->c0) + col], st->argmax = f->c0 + col;
        if (f->ktile < kt) {
            st->m_before = f->tm[r];
            continue;
        }
        st->m = f->tm[r];
        st->l = f->tl[r];
        st->keys = c->causal && f->c1 > v[2] + 1 ? (int)v[2] + 1 : f->c1;
        return 0;
    }
    snprintf(e->err, e->errlen, "{flash}: the loop never reached that tile");
    return -1;
}

/* {flash FIELD ...}: see lessons/README.md. */
int lessonvar_flash(Eval *e, int argc, char **argv)
{
    const char *f = argc >= 2 ? argv[1] : "";
    char buf[40];
    if (!strcmp(f, "real")) { /* S 8192, dh 128, 64 heads, flash-attn's blocks */
        if (argc != 3) return WRONG_ARGS;
        FlashBytes r = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 0);
        if (!strcmp(argv[2], "naive"))
            put(e->o, "%s", text_fmt_int(buf, sizeof buf, r.naive));
        else if (!strcmp(argv[2], "flash"))
            put(e->o, "%s", text_fmt_int(buf, sizeof buf, r.flash));
        else if (!strcmp(argv[2], "ratio"))
            put(e->o, "%.0f", (double)r.naive / (double)r.flash);
        else {
            snprintf(e->err, e->errlen, "{flash real %.20s}: naive, flash or ratio", argv[2]);
            return -1;
        }
        return 0;
    }
    Flash *fl = flash_new(e->m, FLASH_BLOCK_DEFAULT, FLASH_BLOCK_DEFAULT, e->err, e->errlen);
    if (!fl) return -1;
    int rc = 0;
    if (argc == 4 && (!strcmp(f, "m") || !strcmp(f, "l") || !strcmp(f, "keys") ||
                      !strcmp(f, "argmax") || !strcmp(f, "rescale"))) {
        RowState st;
        rc = row_state(e, fl, argv, &st);
        if (rc == 0 && (f[0] == 'm' || f[0] == 'l'))
            put(e->o, "%.4g", (double)(f[0] == 'm' ? st.m : st.l));
        else if (rc == 0 && f[0] == 'k')
            put(e->o, "%d", st.keys);
        else if (rc == 0 && f[0] == 'a')
            put(e->o, "%d", st.argmax);
        else if (rc == 0) /* the factor the old l and O are multiplied by: e^(m_before - m) */
            put(e->o, "%.4g", st.m_before == -INFINITY ? 0.0 : exp((double)st.m_before - st.m));
    } else if (argc == 2) {
        while (flash_step(fl)) {
        }
        const FlashBytes *b = &fl->bytes;
        if (!strcmp(f, "naive"))
            put(e->o, "%s", text_fmt_int(buf, sizeof buf, b->naive));
        else if (!strcmp(f, "flash"))
            put(e->o, "%s", text_fmt_int(buf, sizeof buf, b->flash));
        else if (!strcmp(f, "naivewrite"))
            put(e->o, "%s", text_fmt_int(buf, sizeof buf, b->naive_write));
        else if (!strcmp(f, "skipped") || !strcmp(f, "visited"))
            put(e->o, "%ld", f[0] == 's' ? fl->skipped : fl->visited);
        else if (!strcmp(f, "block_q") || !strcmp(f, "block_k"))
            put(e->o, "%d", f[6] == 'q' ? fl->block_q : fl->block_k);
        else if (!strcmp(f, "qtiles") || !strcmp(f, "ktiles"))
            put(e->o, "%d", f[0] == 'q' ? fl->n_qtiles : fl->n_ktiles);
        else if (!strcmp(f, "check"))
            put(e->o, "%.2g", (double)flash_check(fl));
        else
            rc = WRONG_ARGS;
    } else
        rc = WRONG_ARGS;
    if (rc == WRONG_ARGS)
        snprintf(e->err, e->errlen,
                 "{flash %.20s}: fields are m|l|keys|argmax|rescale b,h,r KT, naive, flash, "
                 "naivewrite, skipped, visited, block_q, block_k, qtiles, ktiles, check, "
                 "real naive|flash|ratio",
                 f);
    flash_free(fl);
    return rc == WRONG_ARGS ? -1 : rc;
}
