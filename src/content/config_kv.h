/* config_kv.h - a run's configuration as key=value words: the one table of
 * keys that a lesson's @config, a quiz question's @config and a lesson's
 * {error config ...} read (batch seq d_model heads kv_heads seed causal
 * window rope rope_theta: config_kv_keys lists them from the table). */
#ifndef MHAVIZ_CONFIG_KV_H
#define MHAVIZ_CONFIG_KV_H

#include <stddef.h>

#include "engine/mha.h"

/* Writes the table's keys, space-separated, into buf (size n: as many
 * whole keys as fit), for messages.  Returns buf. */
char *config_kv_keys(char *buf, size_t n);

/* Sets one key of *c from the word "key=value" (word is not changed).
 * Sizes (window among them, 0 for none) are whole numbers kept as written
 * up to INT_MAX (larger is an error here), for mha_config_check to judge and
 * name; seed one of 0..2^32-1, causal 0 or 1, rope
 * off/half/interleaved, rope_theta a positive decimal up to ROPE_THETA_MAX.
 * Returns 0, or -1 with the reason in err, without "@config: ": "unknown key
 * 'heds' (did you mean 'heads'?)", "heads 'x' is not a whole number".
 * *kv_given becomes 1 when the word sets kv_heads. */
int config_kv_set(MhaConfig *c, const char *word, int *kv_given, char *err, size_t errlen);

/* After the words: as on the command line, kv_heads follows heads unless a
 * word gave it, when the configuration they started from (base) was MHA. */
void config_kv_finish(MhaConfig *c, const MhaConfig *base, int kv_given);

#endif
