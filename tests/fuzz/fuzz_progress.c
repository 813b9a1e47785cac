/* fuzz_progress.c - the lesson progress file (progress_parse): whatever it
 * accepts, progress_format writes back as text that reads the same (lessons
 * with no page done left out). */
#include "fuzz.h"

#include "store/progress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    char err[320];
    Progress *p = calloc(2, sizeof *p);
    if (!p) abort();
    if (progress_parse(&p[0], s, err, sizeof err) == 0) {
        FUZZ_ASSERT(p[0].n >= 0 && p[0].n <= PROGRESS_MAX_LESSONS);
        char *text = progress_format(&p[0]);
        FUZZ_ASSERT(text != NULL);
        FUZZ_ASSERT(progress_parse(&p[1], text, err, sizeof err) == 0);
        int k = 0; /* a lesson with no page done is not written */
        for (int i = 0; i < p[0].n; i++) {
            if (!p[0].v[i].done) continue;
            FUZZ_ASSERT(k < p[1].n && !strcmp(p[0].v[i].name, p[1].v[k].name));
            FUZZ_ASSERT(p[0].v[i].done == p[1].v[k].done);
            FUZZ_ASSERT(progress_count(&p[0], p[0].v[i].name) >= 1);
            k++;
        }
        FUZZ_ASSERT(k == p[1].n);
        free(text);
    } else {
        FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
    }
    free(p);
    free(s);
    return 0;
}
