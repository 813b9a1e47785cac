/* presets.h - real model shapes (assets/models.presets), parsed.
 *
 * Pure: text in, table out.  The file format is documented at the top of
 * assets/models.presets.  Used by the KV-cache calculator (kv.c) and by lesson
 * text ({preset llama-2-7b d_model}).
 */
#ifndef MHAVIZ_PRESETS_H
#define MHAVIZ_PRESETS_H

#include <stddef.h>

#define PRESETS_FILE "assets/models.presets"

typedef struct Preset {
    char name[40];  /* "llama-2-70b" */
    char title[80]; /* "Llama 2 70B" */
    long layers, heads, kv_heads, d_head, d_model;
    long context; /* trained context length; 0 when the file gives none */
    /* Local attention (0 when every layer attends to every earlier token):
     * window: a sliding window of this many tokens (Mistral's rolling buffer);
     * chunk: attention within chunks of this many tokens (Llama 4);
     * global_every: every Nth layer (1-based: layers N, 2N, ...) is global,
     * the others local; 0 = all layers local. */
    long window, chunk, global_every;
    /* MLA (DeepSeek-V2/V3): each layer caches one latent of kv_lora_rank
     * numbers plus a shared RoPE key of qk_rope_head_dim numbers per token,
     * whatever heads and kv_heads say; both 0 for K and V per kv head. */
    long kv_lora_rank, qk_rope_head_dim;
    long long params;        /* weights, all of them; 0 when the file gives none */
    long long active_params; /* weights read per token (MoE: fewer); 0 = params */
    /* vocab: rows of the input embedding table (config.json vocab_size); 0
     * when the file gives none.  tied: 1 when the output layer reuses that
     * table (tie_word_embeddings), so every step reads all of it anyway. */
    long vocab, tied;
    char source[640];
    char note[640]; /* "" when none */
    int line;       /* line of its "[name]" in the file */
} Preset;

typedef struct PresetList {
    Preset *v;
    int n;
} PresetList;

/* Parses text (file is the name used in errors).  0 and *out filled (free with
 * presets_free), or -1 with "file:line: message" in err and *out empty. */
int presets_parse(const char *file, const char *text, PresetList *out, char *err, size_t errlen);
void presets_free(PresetList *p);

/* The preset called name, or NULL. */
const Preset *presets_find(const PresetList *p, const char *name);

/* The name of the preset closest to name (a typo of it: "llama3-8b" gives
 * "llama-3-8b"), or NULL.  The string is the preset's own. */
const char *presets_suggest(const PresetList *p, const char *name);

/* The compiled-in assets/models.presets; same return as presets_parse. */
int presets_builtin(PresetList *out, char *err, size_t errlen);

/* "GQA", "MQA" or "MHA" for a heads / kv_heads pair. */
const char *presets_kind(long heads, long kv_heads);

#endif
