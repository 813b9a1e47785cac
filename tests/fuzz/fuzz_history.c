/* fuzz_history.c - the quiz history file: the input is written as
 * quiz-history in a temporary state directory, loaded, summarised, saved
 * and loaded again (the totals must survive the round trip). */
#include "fuzz.h"

#include <dirent.h>
#include <unistd.h>

#include "content/quiz.h"
#include "store/quiz_history.h"
#include "store/state.h"

static char history_dir[4096]; /* XDG_STATE_HOME/mhaviz */

/* Empties the state dir, so files the loader keeps aside (.bad) never pile up. */
static void history_clean(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char path[sizeof history_dir + 260];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        remove(path);
    }
    closedir(d);
}

static void history_remove_dir(void)
{
    history_clean(history_dir);
    rmdir(history_dir);
    char *slash = strrchr(history_dir, '/');
    if (slash) *slash = 0, rmdir(history_dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *dir = history_dir;
    char err[320];
    if (!dir[0]) {
        char tmpl[] = "/tmp/mhaviz-fuzz-XXXXXX";
        if (!mkdtemp(tmpl)) abort();
        setenv("XDG_STATE_HOME", tmpl, 1);
        if (state_dir(dir, sizeof history_dir, 1, err, sizeof err)) abort();
        atexit(history_remove_dir);
    }
    history_clean(dir);
    char path[sizeof history_dir + 16];
    snprintf(path, sizeof path, "%s/quiz-history", dir);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size) fwrite(data, 1, size, f);
    fclose(f);
    QuizHistory h, h2;
    if (quiz_history_load(&h, err, sizeof err) == 0) {
        char ids[8][64], summary[4096];
        int n = quiz_history_review(&h, ids, 8);
        FUZZ_ASSERT(n >= 0 && n <= 8);
        quiz_report(&h.total, &h.total, summary, sizeof summary);
        for (const char *c = strchr(summary, '%'); c; c = strchr(c + 1, '%')) {
            const char *d = c; /* every percentage is 0..100 */
            while (d > summary && d[-1] >= '0' && d[-1] <= '9')
                d--;
            FUZZ_ASSERT(d == summary || d[-1] != '-');
            FUZZ_ASSERT(c - d <= 3 && (c - d < 3 || !strncmp(d, "100", 3)));
        }
        long long right, asked, pct; /* the score's percentage, rounded to nearest */
        if (sscanf(summary, "Score: %lld/%lld (%lld%%)", &right, &asked, &pct) == 3 && asked > 0)
            FUZZ_ASSERT(pct == (100 * right + asked / 2) / asked);
        if (quiz_history_save(&h, err, sizeof err) == 0 &&
            quiz_history_load(&h2, err, sizeof err) == 0) {
            for (int t = 0; t < QT_COUNT; t++) {
                FUZZ_ASSERT(h2.total.asked[t] == h.total.asked[t]);
                FUZZ_ASSERT(h2.total.right[t] == h.total.right[t]);
            }
            quiz_history_free(&h2);
        }
        quiz_history_free(&h);
    } else {
        FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
    }
    return 0;
}
