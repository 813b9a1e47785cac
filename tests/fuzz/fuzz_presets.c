/* fuzz_presets.c - a model presets file (presets_parse), and the KV-cache
 * arithmetic on every preset it accepts. */
#include "fuzz.h"

#include "content/kv.h"
#include "content/presets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    char err[320];
    PresetList pl;
    if (presets_parse("fuzz.presets", s, &pl, err, sizeof err) == 0) {
        for (int i = 0; i < pl.n; i++) {
            const Preset *p = &pl.v[i];
            FUZZ_ASSERT(presets_find(&pl, p->name) != NULL);
            FUZZ_ASSERT(presets_kind(p->heads, p->kv_heads) != NULL);
            KvModel km = kv_model_of(p);
            KvRow rows[3];
            int n = 0;
            if (kv_table(&km, 16, p->context ? p->context : 4096, 1, rows, &n, err, sizeof err) ==
                0)
                FUZZ_ASSERT(n >= 1 && n <= 3);
        }
        presets_free(&pl);
    } else {
        FUZZ_ASSERT(!strncmp(err, "fuzz.presets:", 13) && fuzz_one_line(err, sizeof err));
    }
    free(s);
    return 0;
}
