/* quiz_history.c - quiz scores kept between runs, beside the lesson progress.
 *
 * File "quiz-history" in the state dir (state.h: atomic replace), text:
 *   # mhaviz quiz history v1
 *   topic shapes 17 12          asked, right over all sessions
 *   miss 3 g:bugs:0123456789abcdef   times missed (net of later right answers), id
 * Loading is linear (misses are found through a hash of their ids); a save
 * merges this run's pending answers into the file as it is at that moment.
 * One function applies an answer to a history (apply_answer): when it is
 * recorded, when a save adds the pending ones, when a journal is replayed.
 *
 * A run's journal, "quiz-history.journal.XXXXXX", holds its answers not
 * saved yet, one line each as they are given:
 *   answer shapes 1 g:shapes:0123456789abcdef   topic (or -), right (0 or 1), id
 *   skip g:bugs:0123456789abcdef
 * The run flocks it while it lives.  A journal whose flock can be taken is
 * a run that is gone (killed, or it could not get the state lock): the next
 * save adds its lines and removes it.
 *
 * A save and the journals it covers are one step, even under kill -9: the
 * file it writes says how much of each journal it holds,
 *   journal quiz-history.journal.AbC123 1234    its first 1234 bytes are in
 * so a kill after the file is replaced but before a journal is removed (or
 * before the run goes on) never counts an answer twice: the next save adds
 * only the bytes past the record.  Records of journals that are gone are
 * dropped by the next save (under the lock, so no run can be adding them).
 */
#include "store/quiz_history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/state.h"

#define HISTORY_FILE "quiz-history"
#define HISTORY_HEADER "# mhaviz quiz history v1"
#define JOURNAL_PREFIX HISTORY_FILE ".journal."
#define JOURNAL_MAX_ORPHANS 64 /* journals of gone runs one save adds (the rest: the next) */

/* a + b, stopping at the cap (both in [0, cap]: no overflow on the way) */
static int sat_add(int a, int b)
{
    return b > QUIZ_HISTORY_MAX_COUNT - a ? QUIZ_HISTORY_MAX_COUNT : a + b;
}

/* ---- the miss table: a list in first-missed order, hashed by id ---------- */

static unsigned hash_id(const char *id)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h;
}

/* The slot for id: holding it, or the empty one where it would go. */
static int *slot_of(const QuizHistory *h, const char *id)
{
    unsigned mask = (unsigned)h->nslot - 1;
    for (unsigned i = hash_id(id) & mask;; i = (i + 1) & mask)
        if (!h->slot[i] || !strcmp(h->miss[h->slot[i] - 1].id, id)) return &h->slot[i];
}

static QuizMiss *find_miss(const QuizHistory *h, const char *id)
{
    if (!h->nslot) return NULL;
    int *s = slot_of(h, id);
    return *s ? &h->miss[*s - 1] : NULL;
}

/* Doubles the hash table (at most half full after); 0 or -1. */
static int grow_slots(QuizHistory *h)
{
    int n = h->nslot ? 2 * h->nslot : 64;
    int *v = calloc((size_t)n, sizeof *v);
    if (!v) return -1;
    free(h->slot);
    h->slot = v;
    h->nslot = n;
    for (int i = 0; i < h->n; i++)
        *slot_of(h, h->miss[i].id) = i + 1;
    return 0;
}

/* A new entry for id (not in the table) with count 0, or NULL out of memory. */
static QuizMiss *add_miss(QuizHistory *h, const char *id)
{
    if (2 * (h->n + 1) > h->nslot && grow_slots(h) != 0) return NULL;
    if (h->n == h->cap) {
        int cap = h->cap ? 2 * h->cap : 32;
        QuizMiss *v = realloc(h->miss, sizeof *v * (size_t)cap);
        if (!v) return NULL;
        h->miss = v;
        h->cap = cap;
    }
    QuizMiss *m = &h->miss[h->n++];
    snprintf(m->id, sizeof m->id, "%s", id);
    m->count = 0;
    *slot_of(h, id) = h->n;
    return m;
}

/* One miss more (step 1) or less (step -1, never below 0; an entry at 0
 * stays in the table and is not saved). */
static void step_miss(QuizHistory *h, const char *id, int step)
{
    QuizMiss *m = find_miss(h, id);
    if (!m && step > 0) m = add_miss(h, id);
    if (m) m->count = step > 0 ? sat_add(m->count, 1) : m->count > 0 ? m->count - 1 : 0;
}

/* One answer (result QV_*) to question id of topic t (-1: none) into h:
 * the topic's score unless skipped, one miss more, or one less when right. */
static void apply_answer(QuizHistory *h, int t, int result, const char *id)
{
    if (t >= 0 && t < QT_COUNT && result != QV_SKIPPED) {
        h->total.asked[t] = sat_add(h->total.asked[t], 1);
        if (result == QV_RIGHT && h->total.right[t] < h->total.asked[t]) h->total.right[t]++;
    }
    step_miss(h, id, result == QV_RIGHT ? -1 : 1);
}

/* Keeps an answer of this run for the save; out of memory, it is lost (the
 * journal still has it). */
static void pend(QuizHistory *h, int t, int result, const char *id)
{
    if (h->npending == h->cappending) {
        int cap = h->cappending ? 2 * h->cappending : 16;
        QuizPending *v = realloc(h->pending, sizeof *v * (size_t)cap);
        if (!v) return;
        h->pending = v;
        h->cappending = cap;
    }
    QuizPending *p = &h->pending[h->npending++];
    snprintf(p->id, sizeof p->id, "%s", id);
    p->topic = t;
    p->result = result;
}

/* ---- the journal records ------------------------------------------------- */

/* The record of journal name in h, or NULL. */
static struct QuizJournalRec *jrec_find(const QuizHistory *h, const char *name)
{
    for (int i = 0; i < h->njrec; i++)
        if (!strcmp(h->jrec[i].name, name)) return &h->jrec[i];
    return NULL;
}

/* Records that the first off bytes of journal name are in h's file; 0, or
 * -1 out of memory (then the record is lost and the bytes may count twice). */
static int jrec_set(QuizHistory *h, const char *name, long long off)
{
    struct QuizJournalRec *r = jrec_find(h, name);
    if (!r) {
        if (h->njrec == h->capjrec) {
            int cap = h->capjrec ? 2 * h->capjrec : 8;
            struct QuizJournalRec *v = realloc(h->jrec, sizeof *v * (size_t)cap);
            if (!v) return -1;
            h->jrec = v;
            h->capjrec = cap;
        }
        r = &h->jrec[h->njrec++];
        snprintf(r->name, sizeof r->name, "%s", name);
    }
    r->off = off;
    return 0;
}

/* ---- the file ------------------------------------------------------------ */

/* A whole decimal count in [0, QUIZ_HISTORY_MAX_COUNT] at *s, followed by a
 * space or the end; advances *s.  0 or -1. */
static int parse_count(const char **s, int *out)
{
    const char *p = *s;
    long v = 0;
    if (*p < '0' || *p > '9') return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > QUIZ_HISTORY_MAX_COUNT) return -1;
    }
    if (*p && *p != ' ') return -1;
    *out = (int)v;
    *s = *p ? p + 1 : p;
    return 0;
}

/* One line into h; 0, or -1 if it is not a line this version writes. */
static int parse_line(QuizHistory *h, const char *line)
{
    if (line[0] == '#' || line[0] == 0) return 0;
    int a, r;
    if (!strncmp(line, "topic ", 6)) {
        const char *sp = strchr(line + 6, ' ');
        char name[32];
        if (!sp || sp - (line + 6) >= (int)sizeof name) return -1;
        memcpy(name, line + 6, (size_t)(sp - (line + 6)));
        name[sp - (line + 6)] = 0;
        int t = quiz_topic_index(name);
        const char *p = sp + 1;
        if (t < 0 || parse_count(&p, &a) || parse_count(&p, &r) || *p || r > a || h->total.asked[t])
            return -1;
        h->total.asked[t] = a;
        h->total.right[t] = r;
        return 0;
    }
    if (!strncmp(line, "journal ", 8)) {
        char name[64];
        long long off;
        int used = 0;
        size_t pn = strlen(JOURNAL_PREFIX);
        if (sscanf(line + 8, "%63s %lld%n", name, &off, &used) != 2 || line[8 + used] ||
            strncmp(name, JOURNAL_PREFIX, pn) || strlen(name) != pn + 6 || off < 0)
            return -1;
        return jrec_set(h, name, off);
    }
    if (!strncmp(line, "miss ", 5)) {
        const char *p = line + 5;
        size_t n;
        if (parse_count(&p, &a) || a == 0 || (n = strlen(p)) == 0 || n >= 64 || strchr(p, ' '))
            return -1;
        QuizMiss *m = find_miss(h, p);
        if (!m && !(m = add_miss(h, p))) return 0; /* out of memory: the line is lost */
        m->count = sat_add(m->count, a);
        return 0;
    }
    return -1;
}

/* Parses text (len bytes, left as it is) into the empty h.  Returns 0, or
 * the number of the first line it could not read (the others are in h all
 * the same; a NUL byte ends the text and counts as a bad line). */
static int parse_history(QuizHistory *h, const char *text, size_t len)
{
    int bad = 0, line = 0;
    for (const char *s = text; *s;) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        char buf[160]; /* the longest line written is under 100 bytes */
        line++;
        if (n < sizeof buf) {
            memcpy(buf, s, n);
            buf[n] = 0;
        }
        if ((n >= sizeof buf || parse_line(h, buf) != 0) && !bad) bad = line;
        s += n + (eol != NULL);
    }
    if (strlen(text) != len && !bad) bad = line + 1; /* the line holding the NUL */
    return bad;
}

static void history_clear(QuizHistory *h)
{
    free(h->miss);
    free(h->slot);
    free(h->pending);
    free(h->jrec);
    memset(h, 0, sizeof *h);
}

int quiz_history_load(QuizHistory *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    char *text = NULL, why[4500]; /* state_read names a missing file too: err only on failure */
    size_t len = 0;
    int rc = state_read(HISTORY_FILE, &text, &len, why, sizeof why);
    if (rc < 0) return snprintf(err, errlen, "%s", why), -1;
    if (rc == 1 || !text) return 0;
    int bad = parse_history(h, text, len);
    if (bad)
        snprintf(h->warning, sizeof h->warning,
                 "quiz history: line %d cannot be read; the rest is used, and the next save "
                 "keeps the file aside first",
                 bad);
    free(text);
    return 0;
}

/* ---- the journal -------------------------------------------------------- */

/* Appends one line to h's journal in one write(2); a failure leaves the
 * answers in memory only (the save still has them) and removes the journal. */
static void journal_put(QuizHistory *h, const char *line)
{
    if (!h->has_journal || h->jfailed) return;
    size_t len = strlen(line);
    ssize_t w;
    while ((w = write(h->jfd, line, len)) < 0 && errno == EINTR)
        ;
    if (w == (ssize_t)len) return;
    /* a full disk: from now on, memory only; the journal goes at once, so
     * that no save ever adds what it holds to what this run saves */
    h->jfailed = 1;
    unlink(h->jpath);
}

int quiz_history_journal(QuizHistory *h, char *err, size_t errlen)
{
    char dir[4096];
    if (h->has_journal) return 0;
    if (state_dir(dir, sizeof dir, 1, err, errlen) != 0) return -1;
    snprintf(h->jpath, sizeof h->jpath, "%s/" JOURNAL_PREFIX "XXXXXX", dir);
    int fd = mkstemp(h->jpath); /* a fresh name only we opened, never a planted link */
    if (fd < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fcntl(fd, F_SETFL, O_APPEND) != 0 ||
        flock(fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen, "%s: %s", h->jpath, strerror(errno));
        if (fd >= 0) close(fd), unlink(h->jpath);
        return -1;
    }
    h->jfd = fd;
    h->has_journal = 1;
    return 0;
}

/* Applies one journal line to f (a bad or unknown line is skipped). */
static void journal_apply(QuizHistory *f, const char *line)
{
    char topic[32], id[64];
    int right;
    if (sscanf(line, "answer %31s %d %63s", topic, &right, id) == 3 && (right == 0 || right == 1))
        apply_answer(f, quiz_topic_index(topic), right ? QV_RIGHT : QV_WRONG, id);
    else if (sscanf(line, "skip %63s", id) == 1)
        apply_answer(f, -1, QV_SKIPPED, id);
}

/* The complete lines (each ending in '\n') of the journal open at fd, from
 * byte `from` on, into f.  Returns the offset just past the last complete
 * line (from itself when there is none, or on an error). */
static long long journal_merge(QuizHistory *f, int fd, long long from)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size <= from ||
        (size_t)(sb.st_size - from) > STATE_MAX_FILE)
        return from;
    size_t n = (size_t)(sb.st_size - from), got = 0;
    char *text = malloc(n + 1);
    if (!text) return from;
    while (got < n) {
        ssize_t r = pread(fd, text + got, n - got, (off_t)(from + (long long)got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    text[got] = 0;
    char *s = text;
    for (char *nl; (nl = memchr(s, '\n', got - (size_t)(s - text))); s = nl + 1) {
        *nl = 0;
        if (nl - s < 160 && strlen(s) == (size_t)(nl - s)) journal_apply(f, s);
    }
    free(text);
    return from + (long long)(s - text);
}

_Static_assert(sizeof JOURNAL_PREFIX + 6 <= 64, "a journal's name fits Orphans.name");

typedef struct Orphans {
    int fd[JOURNAL_MAX_ORPHANS];
    char name[JOURNAL_MAX_ORPHANS][64];
    int n;
} Orphans;
_Static_assert(sizeof JOURNAL_PREFIX + 6 <= sizeof((struct QuizJournalRec *)0)->name,
               "a journal's name fits its record");

/* Adds to f the journals in dir of runs that are gone (their flock is free),
 * keeping each open and locked in o until orphans_done.  The caller holds
 * the state lock, so no other save is adding them at the same time. */
static void orphans_merge(QuizHistory *f, const char *dir, const QuizHistory *h, Orphans *o)
{
    DIR *d = opendir(dir);
    o->n = 0;
    if (!d) return;
    const char *own = h->has_journal ? strrchr(h->jpath, '/') + 1 : "";
    size_t pn = strlen(JOURNAL_PREFIX);
    for (struct dirent *e; o->n < JOURNAL_MAX_ORPHANS && (e = readdir(d));) {
        if (strncmp(e->d_name, JOURNAL_PREFIX, pn) || strlen(e->d_name) != pn + 6 ||
            !strcmp(e->d_name, own))
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) { /* its run is still answering */
            close(fd);
            continue;
        }
        const struct QuizJournalRec *r = jrec_find(f, e->d_name);
        long long end = journal_merge(f, fd, r ? r->off : 0); /* past what f holds */
        if (jrec_set(f, e->d_name, end) != 0) {               /* no record: leave it for later */
            close(fd);
            continue;
        }
        o->fd[o->n] = fd;
        memcpy(o->name[o->n++], e->d_name, pn + 7); /* checked above: pn + 6 bytes and the NUL */
    }
    closedir(d);
}

/* After the save: the merged journals are removed when it was written (saved
 * != 0), else only let go (the next save adds them). */
static void orphans_done(Orphans *o, const char *dir, int saved)
{
    char path[4400];
    for (int i = 0; i < o->n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, o->name[i]);
        if (saved) unlink(path);
        close(o->fd[i]);
    }
    o->n = 0;
}

void quiz_history_record(QuizHistory *h, const QuizQuestion *q, int right)
{
    int t = q->topic >= 0 && q->topic < QT_COUNT ? q->topic : -1;
    apply_answer(h, t, right ? QV_RIGHT : QV_WRONG, q->id);
    pend(h, t, right ? QV_RIGHT : QV_WRONG, q->id);
    char line[160];
    snprintf(line, sizeof line, "answer %s %d %s\n", t >= 0 ? quiz_topic_names[t] : "-", right != 0,
             q->id);
    journal_put(h, line);
}

void quiz_history_skip(QuizHistory *h, const QuizQuestion *q)
{
    apply_answer(h, -1, QV_SKIPPED, q->id);
    pend(h, -1, QV_SKIPPED, q->id);
    char line[160];
    snprintf(line, sizeof line, "skip %s\n", q->id);
    journal_put(h, line);
}

/* The file's text for h: at most QUIZ_HISTORY_MAX_MISSES misses, the newest,
 * and the records of the journals in dir that are still there.  A new string
 * (caller frees) or NULL. */
static char *format_history(const QuizHistory *h, const char *dir, size_t *len)
{
    size_t cap = 256 + (size_t)QT_COUNT * 64 + (size_t)h->n * 96 + (size_t)h->njrec * 80, l = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    l += (size_t)snprintf(buf + l, cap - l, HISTORY_HEADER "\n");
    for (int t = 0; t < QT_COUNT; t++)
        if (h->total.asked[t])
            l += (size_t)snprintf(buf + l, cap - l, "topic %s %d %d\n", quiz_topic_names[t],
                                  h->total.asked[t], h->total.right[t]);
    int live = 0;
    for (int i = 0; i < h->n; i++)
        live += h->miss[i].count > 0;
    int skip = live > QUIZ_HISTORY_MAX_MISSES ? live - QUIZ_HISTORY_MAX_MISSES : 0;
    for (int i = 0; i < h->n; i++) {
        if (h->miss[i].count <= 0 || skip-- > 0) continue;
        l += (size_t)snprintf(buf + l, cap - l, "miss %d %s\n", h->miss[i].count, h->miss[i].id);
    }
    /* the records of the journals there are (the others are gone for good) */
    for (int i = 0; i < h->njrec; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, h->jrec[i].name);
        if (access(path, F_OK) == 0)
            l += (size_t)snprintf(buf + l, cap - l, "journal %s %lld\n", h->jrec[i].name,
                                  h->jrec[i].off);
    }
    *len = l;
    return buf;
}

/* A save that failed: 1 when the run's answers wait in its journal (err
 * says where), else -1. */
static int kept_in_journal(const QuizHistory *h, char *err, size_t errlen)
{
    if (!h->has_journal || h->jfailed) return -1;
    size_t l = strlen(err);
    snprintf(err + l, errlen - l, "; this run's answers are kept in %s for the next save",
             h->jpath);
    return 1;
}

int quiz_history_save(QuizHistory *h, char *err, size_t errlen)
{
    char dir[4096];
    h->kept[0] = 0;
    if (state_dir(dir, sizeof dir, 1, err, errlen) != 0) return kept_in_journal(h, err, errlen);
    int lock = state_lock(err, errlen);
    if (lock < 0) return kept_in_journal(h, err, errlen);
    char *text = NULL;
    size_t len = 0;
    int rc = state_read(HISTORY_FILE, &text, &len, err, errlen);
    if (rc < 0) {
        state_unlock(lock);
        return kept_in_journal(h, err, errlen);
    }
    QuizHistory f = {0};
    if (text && parse_history(&f, text, len) &&
        state_keep_bad(HISTORY_FILE, text, len, h->kept, sizeof h->kept, err, errlen) != 0) {
        free(text);
        history_clear(&f);
        state_unlock(lock);
        return kept_in_journal(h, err, errlen); /* never replace a file we could not keep */
    }
    free(text);
    Orphans o;
    orphans_merge(&f, dir, h, &o);
    /* this run's answers, on top of the file as it is now */
    for (int i = 0; i < h->npending; i++)
        apply_answer(&f, h->pending[i].topic, h->pending[i].result, h->pending[i].id);
    /* this run's journal: all of it is in the file now (its answers are the
     * pending ones just added), said by its record */
    struct stat jsb;
    long long jsize = -1;
    const char *own = h->has_journal ? strrchr(h->jpath, '/') + 1 : NULL;
    if (own && !h->jfailed && fstat(h->jfd, &jsb) == 0) jsize = (long long)jsb.st_size;
    if (jsize >= 0 && jrec_set(&f, own, jsize) != 0) jsize = -1;
    char *out = format_history(&f, dir, &len);
    rc = out ? state_write(HISTORY_FILE, out, len, err, errlen) : -1;
    if (!out) snprintf(err, errlen, "quiz history: out of memory");
    orphans_done(&o, dir, rc == 0);
    if (rc == 0 && jsize >= 0) h->jsaved = jsize;
    state_unlock(lock);
    free(out);
    history_clear(&f);
    if (rc != 0) return kept_in_journal(h, err, errlen);
    h->npending = 0;
    if (errlen) err[0] = 0; /* state_read named the missing file of a first save */
    return 0;
}

/* QuizRecordFn for quiz_history_follow. */
static void on_answer(void *ctx, const QuizQuestion *q, int result)
{
    if (result == QV_SKIPPED)
        quiz_history_skip(ctx, q);
    else
        quiz_history_record(ctx, q, result == QV_RIGHT);
}

void quiz_history_follow(QuizHistory *h, QuizSession *s)
{
    s->record = on_answer;
    s->record_ctx = h;
}

void quiz_history_free(QuizHistory *h)
{
    if (h->has_journal) {
        struct stat sb; /* everything in it was saved (or nothing was answered) */
        if (!h->jfailed && fstat(h->jfd, &sb) == 0 && sb.st_size == h->jsaved) unlink(h->jpath);
        close(h->jfd);
    }
    history_clear(h);
}

int quiz_history_review(const QuizHistory *h, char (*ids)[64], int max)
{
    int n = 0;
    char *taken = h->n ? calloc((size_t)h->n, 1) : NULL;
    if (h->n && !taken) return 0;
    while (n < max) {
        int best = -1;
        for (int i = 0; i < h->n; i++)
            if (!taken[i] && h->miss[i].count > 0 &&
                (best < 0 || h->miss[i].count > h->miss[best].count))
                best = i;
        if (best < 0) break;
        taken[best] = 1;
        snprintf(ids[n++], 64, "%s", h->miss[best].id);
    }
    free(taken);
    return n;
}
