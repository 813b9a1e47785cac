/* quiz_gen_window.c - the rolling buffer of a sliding window (Mistral's
 * RotatingBufferCache): the slot token t is written to, the token that
 * write overwrites, how many keys query t attends to.  The engine decodes a
 * causal toy run with a window of W slots (engine/decode.c) up to token t,
 * and every key is read off that step: its slot, its evicted position, the
 * keys it read.  The distractors are the real mistakes: slot t instead of
 * t mod W, the slot counted from 1, the token's own position for the slot,
 * the window's edge off by one, no window at all. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"
#include "engine/decode.h"

/* Decodes c (causal, with its window) from a one-token prompt up to token t
 * and reads the step's slot, the position it overwrote and the keys it
 * read.  0, or -1 with err set. */
static int window_step(const MhaConfig *c, int t, int *slot, int *evicted, int *keys, char *err,
                       size_t errlen)
{
    Mha *m = mha_run(c, err, errlen);
    Decode *d = m ? decode_new(m, DECODE_HF, 1, err, errlen) : NULL;
    int rc = d ? decode_prefill(d, err, errlen) : -1;
    while (rc == 0 && d->len <= t)
        rc = decode_step(d, err, errlen) < 0 ? -1 : 0;
    if (rc == 0) {
        *slot = d->slot, *evicted = d->evicted;
        *keys = d->k_read->shape[2]; /* (B, KV, T, dh): the tokens this step read */
        if (decode_check(d) > 1e-4f) {
            snprintf(err, errlen, "window: the decode differs from the band-masked pass");
            rc = -1;
        }
    }
    decode_free(d);
    mha_free(m);
    return rc;
}

/* A choice: fmt with v ("slot 3", "token 7"), or with fmt NULL a count of
 * keys, "1 key" or "5 keys". */
static void choice_text(char *out, const char *fmt, int v)
{
    if (fmt)
        snprintf(out, QUIZ_CHOICE_MAX, fmt, v);
    else
        snprintf(out, QUIZ_CHOICE_MAX, "%d key%s", v, text_s(v));
}

int quiz_gen_window(Gen *g)
{
    QuizQuestion *q = g->q;
    MhaConfig c = mha_config_default();
    int W = 2 + quiz_rng_below(&g->r, 5);             /* 2..6 slots */
    int t = W + 1 + quiz_rng_below(&g->r, 2 * W + 2); /* past the first lap, t mod W != t */
    int ask = quiz_rng_below(&g->r, 3);
    c.causal = 1, c.seq = t + 1, c.window = W;
    int slot, evicted, keys;
    if (window_step(&c, t, &slot, &evicted, &keys, g->err, g->errlen)) return -1;
    q->topic = QT_WINDOW;
    q->cfg = c;
    q->aux = ask;
    q->idx[0] = t;
    qt_cat(q->prompt, sizeof q->prompt,
           "A sliding window of %d token%s (query i sees key j iff i - %d < j <= i), cached as a "
           "rolling buffer of %d slot%s, as Mistral's reference code does: token t's k and v are "
           "written to slot t mod %d, over what that slot held.\nTokens 0 to %d are decoded one "
           "at a time.  ",
           W, text_s(W), W, W, text_s(W), W, t);
    char ans[QUIZ_CHOICE_MAX], cand[3][QUIZ_CHOICE_MAX];
    int key, wrong[3];
    const char *fmt;
    if (ask == 0) {
        qt_cat(q->prompt, sizeof q->prompt, "Which slot is token %d written to?", t);
        fmt = "slot %d";
        key = slot;
        wrong[0] = t;        /* the position itself: no ring */
        wrong[1] = slot + 1; /* counted from 1 */
        wrong[2] = t - W;    /* the position it overwrites */
    } else if (ask == 1) {
        qt_cat(q->prompt, sizeof q->prompt, "Whose k and v does that write of token %d overwrite?",
               t);
        fmt = "token %d";
        key = evicted;
        wrong[0] = slot;      /* the slot number for a token */
        wrong[1] = t - W + 1; /* the window's edge off by one: still visible */
        wrong[2] = 0;         /* "the first token": the ring forgotten */
    } else {
        qt_cat(q->prompt, sizeof q->prompt, "How many keys does query %d attend to?", t);
        fmt = NULL; /* "%d keys", or "1 key": choice_text */
        key = keys;
        wrong[0] = t + 1; /* no window */
        wrong[1] = W + 1; /* i - W <= j: one too many */
        wrong[2] = W - 1; /* the query itself left out */
    }
    choice_text(ans, fmt, key);
    int nc = 0;
    for (int i = 0; i < 3; i++) /* each offered: the three mistakes, nothing drawn away */
        if (wrong[i] >= 0 && wrong[i] != key) choice_text(cand[nc++], fmt, wrong[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    q->number = key;
    qt_cat(q->working, sizeof q->working,
           "The engine decoded %d token%s through a %d-slot buffer (decode --window %d --seq %d).\n"
           "Token %d went to slot %d = %d mod %d, over token %d; query %d read %d key%s, tokens "
           "%d to %d.\n",
           t + 1, text_s(t + 1), W, W, t + 1, t, slot, t, W, evicted, t, keys, text_s(keys),
           t - keys + 1, t);
    snprintf(q->explain, sizeof q->explain,
             "The buffer has W slots and token t goes to slot t mod W, so the slot it overwrites "
             "held token t - W: exactly the key that just left the window (i - W < j).  The "
             "buffer never holds more than W tokens a layer, however long the sequence grows.");
    return 0;
}
