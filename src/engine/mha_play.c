/* mha_play.c - a run as a playground: its tensors and sizes preloaded into
 * a Play (engine/play.h), so a statement reads Q.view(B, S, H, dh).  With
 * RoPE on, `cos` and `sin` (S, dh) too: engine/rope.h's rope_table.  With a
 * window, its size W as well. */
#include "engine/mha.h"

#include "engine/tensorops.h"

Play *mha_play_new(const Mha *m)
{
    Play *p = play_new(m ? m->eng : NULL);
    if (!p || !m) return p;
    for (int i = 0; i < MT_COUNT; i++) {
        if (!m->t[i]) continue;
        Tensor *t = tensorops_alias(m->t[i]);
        if (!t || play_set_tensor(p, mha_tensor_names[i], t, PD_FLOAT32) < 0) {
            play_free(p);
            return NULL;
        }
    }
    const MhaConfig *c = &m->cfg;
    for (int k = 0; c->rope && k < 2; k++) { /* HF's cos and sin tables, (S, dh) */
        Tensor *t = rope_table(p->eng, c->seq, m->d_head, c->rope, c->rope_theta, k);
        if (!t || play_set_tensor(p, k ? "sin" : "cos", t, PD_FLOAT32) < 0) {
            play_free(p);
            return NULL;
        }
    }
    p->preloaded = p->n;
    p->rope_layout = c->rope;
    p->rope_theta = c->rope_theta;
    mha_play_sizes(p, m); /* B S D H KV G dh, and W with a window (the panel's band) */
    return p;
}
