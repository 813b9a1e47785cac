/* fuzz_play.c - playground statements (play_eval), one per input line, in
 * one fresh playground with the default run's tensors preloaded: any
 * statement gives a tensor (or a tuple of them) that stays inside its storage, a value, or a
 * one-line error; the JSON and text answers fit their buffers.  play.dict
 * holds the int64 extremes and the method names. */
#include "fuzz.h"

#include "content/content.h"
#include "engine/mha.h"
#include "engine/play.h"
#include "engine/tensorops.h"

/* Every element t can reach lies inside its storage. */
static int inside_storage(const Tensor *t)
{
    if (t->ndim < 0 || t->ndim > TENSOR_MAXDIM) return 0;
    size_t last = t->offset, span;
    for (int i = 0; i < t->ndim; i++)
        if (t->shape[i] < 0 || t->strides[i] < 0)
            return 0;
        else if (t->shape[i] == 0)
            return 1; /* no element: any offset and strides */
    for (int i = 0; i < t->ndim; i++)
        if (__builtin_mul_overflow((size_t)t->shape[i] - 1, (size_t)t->strides[i], &span) ||
            __builtin_add_overflow(last, span, &last))
            return 0;
    return last < t->st->n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Mha *m;
    static char json[8192], text[8192];
    char err[320];
    if (!m) {
        MhaConfig c = mha_config_default();
        m = mha_run(&c, err, sizeof err);
        if (!m) abort();
    }
    Play *p = mha_play_new(m);
    if (!p) abort();
    p->torch_names = content_pytorch_names();
    char *s = fuzz_cstr(data, size);
    PlayResult r = {0};
    r.error_col = -1;
    int lineno = 0;
    for (char *line = s, *nl; line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        PlayKind k = play_eval(p, line, &r);
        FUZZ_ASSERT(k == r.kind);
        if (k == PR_ERROR) FUZZ_ASSERT(fuzz_one_line(r.error, sizeof r.error));
        if (k == PR_TENSOR) {
            FUZZ_ASSERT(r.t && inside_storage(r.t));
            FUZZ_ASSERT(r.t->st->n <= (size_t)TENSOROPS_MAX_STORAGE);
        }
        for (int i = 0; k == PR_TUPLE && i < r.nparts; i++)
            FUZZ_ASSERT(r.parts[i].t && inside_storage(r.parts[i].t));
        play_result_json(&r, ++lineno, json, sizeof json);
        FUZZ_ASSERT(strlen(json) < sizeof json - 1 && !strchr(json, '\n'));
        play_result_text(&r, line, text, sizeof text);
        FUZZ_ASSERT(strlen(text) < sizeof text - 1);
    }
    play_result_clear(&r);
    play_free(p);
    free(s);
    return 0;
}
