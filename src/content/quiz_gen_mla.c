/* quiz_gen_mla.c - MLA's latent cache (DeepSeek-V2/V3): the bytes one token
 * caches, over every layer or in one, for a preset with kv_lora_rank and
 * qk_rope_head_dim (assets/models.presets, their cited config.json).  The
 * key is content/kv.c's kv_model_bytes of the model as engines read it;
 * the distractors are the same arithmetic on the mistakes calculators make:
 * K and V per num_key_value_heads x qk_nope_head_dim (the config field that is not
 * what MLA caches), the RoPE key forgotten, the latent counted twice as if
 * it were K and V. */
#include <stdio.h>
#include <string.h>

#include "content/kv.h"
#include "content/presets.h"
#include "content/quiz_gen.h"

static void size_choice(char *buf, size_t n, uint64_t v)
{
    char a[40], b[40];
    snprintf(buf, n, "%s (%s bytes)", kv_fmt_size(a, sizeof a, v), kv_fmt_int(b, sizeof b, v));
}

int quiz_gen_mla(Gen *g)
{
    QuizQuestion *q = g->q;
    PresetList pl;
    char err[300];
    if (presets_builtin(&pl, err, sizeof err)) {
        snprintf(g->err, g->errlen, "%s", err);
        return -1;
    }
    int ok[64], nok = 0;
    for (int i = 0; i < pl.n && nok < 64; i++)
        if (pl.v[i].kv_lora_rank) ok[nok++] = i;
    if (nok == 0) {
        presets_free(&pl);
        snprintf(g->err, g->errlen, "no model preset has an MLA latent");
        return -1;
    }
    const Preset *p = &pl.v[ok[quiz_rng_below(&g->r, nok)]];
    static const int dts[] = {1, 2, 3}; /* fp16 bf16 fp8 (kv_dtypes), and fp32 */
    const KvDtype *dt =
        &kv_dtypes[quiz_rng_below(&g->r, 4) == 0 ? 0 : dts[quiz_rng_below(&g->r, 3)]];
    int one_layer = quiz_rng_below(&g->r, 3) == 0;
    KvModel m = kv_model_of(p), heads = m;
    heads.kv_lora_rank = heads.qk_rope_head_dim = 0; /* K and V per num_key_value_heads */
    uint64_t per = 0, layer = 0, kv = 0, kvl = 0;
    if (kv_model_bytes(&m, dt->bits, &per, &layer) || kv_model_bytes(&heads, dt->bits, &kv, &kvl)) {
        presets_free(&pl);
        snprintf(g->err, g->errlen, "mla bytes overflow for %s", p->name);
        return -1;
    }
    uint64_t key = one_layer ? layer : per, nl = one_layer ? 1 : (uint64_t)p->layers;
    uint64_t rank_b = (uint64_t)p->kv_lora_rank * (uint64_t)dt->bits / 8;
    uint64_t wrong[3] = {
        one_layer ? kvl : kv, /* num_key_value_heads x qk_nope_head_dim, K and V */
        nl * rank_b,          /* the RoPE key forgotten */
        2 * key,              /* the latent taken for K and V: counted twice */
    };
    q->topic = QT_MLA;
    q->cfg = mha_config_default();
    q->cfg.heads = (int)p->heads, q->cfg.kv_heads = (int)p->kv_heads;
    q->cfg.d_model = (int)(p->heads * p->d_head);
    q->aux = (int)p->layers;
    q->idx[0] = (int)p->kv_lora_rank, q->idx[1] = (int)p->qk_rope_head_dim;
    q->idx[2] = dt->bits, q->idx[3] = one_layer;
    qt_cat(q->prompt, sizeof q->prompt,
           "%s, from its config.json: num_hidden_layers %ld, num_attention_heads %ld, "
           "num_key_value_heads %ld, qk_nope_head_dim %ld, kv_lora_rank %ld, qk_rope_head_dim "
           "%ld.\n"
           "It uses MLA.  How many bytes does one token add to its KV cache %s, stored as %s "
           "(%d bits per number)?",
           p->title, p->layers, p->heads, p->kv_heads, p->d_head, p->kv_lora_rank,
           p->qk_rope_head_dim, one_layer ? "in one layer" : "over all layers", dt->name, dt->bits);
    char ans[QUIZ_CHOICE_MAX], cand[3][QUIZ_CHOICE_MAX];
    int nc = 0;
    size_choice(ans, sizeof ans, key);
    for (int i = 0; i < 3; i++) /* all three offered */
        if (wrong[i] > 0 && wrong[i] != key) size_choice(cand[nc++], QUIZ_CHOICE_MAX, wrong[i]);
    qc_make(q, &g->r, ans, cand, nc, 3);
    q->number = (long long)key;
    char a[40], b[40];
    qt_cat(q->working, sizeof q->working,
           "%ld layer%s x (kv_lora_rank %ld + qk_rope_head_dim %ld) x %d bits / 8 = %s bytes.\n"
           "Reading num_key_value_heads instead: 2 x %ld x %ld x %ld x %d / 8 = %s bytes, %llux "
           "more.\n(source: %s)\n",
           (long)nl, text_s(nl), p->kv_lora_rank, p->qk_rope_head_dim, dt->bits,
           kv_fmt_int(a, sizeof a, key), (long)nl, p->kv_heads, p->d_head, dt->bits,
           kv_fmt_int(b, sizeof b, wrong[0]), (unsigned long long)((wrong[0] + key / 2) / key),
           p->source);
    snprintf(q->explain, sizeof q->explain,
             "MLA caches, per token and layer, one latent c_kv (kv_lora_rank numbers) and one "
             "RoPE key k_pe (qk_rope_head_dim numbers), both shared by every head; K and V are "
             "expanded from c_kv (or absorbed into q) when attention runs.  num_key_value_heads "
             "is what the latent expands to, not what is kept, and the latent is one vector, not "
             "a K and a V.");
    presets_free(&pl);
    return 0;
}
