/* fuzz_expand.c - one {expression} text (lesson_expand) against a fixed run
 * of the default configuration and the built-in presets, into a roomy
 * buffer, a tight one, and without presets. */
#include "fuzz.h"

#include "content/lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Mha *m;
    static PresetList presets;
    char err[320], out[4096], tight[24];
    if (!m) {
        MhaConfig c = mha_config_default();
        c.causal = 1;
        m = mha_run(&c, err, sizeof err);
        if (!m || presets_builtin(&presets, err, sizeof err)) abort();
    }
    char *s = fuzz_cstr(data, size);
    if (lesson_expand(s, m, &presets, out, sizeof out, err, sizeof err) == 0)
        FUZZ_ASSERT(strlen(out) < sizeof out);
    else
        FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
    if (lesson_expand(s, m, &presets, tight, sizeof tight, err, sizeof err) == 0)
        FUZZ_ASSERT(strlen(tight) < sizeof tight);
    if (lesson_expand(s, m, NULL, out, sizeof out, err, sizeof err) == 0)
        FUZZ_ASSERT(strlen(out) < sizeof out);
    free(s);
    return 0;
}
