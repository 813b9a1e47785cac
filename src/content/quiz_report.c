/* quiz_report.c - the end of a quiz: the score by topic, and for every
 * topic below 100% what to do next, the lesson to reread first
 * ("mhaviz lesson 3"), then the topic's questions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/content.h"
#include "content/quiz.h"

/* The lesson that teaches each topic, by the name of its file
 * (lessons/NN-NAME.lesson): the number and the title are read off that file,
 * so a lesson renumbered or inserted cannot send a topic to the wrong one.
 * rope and flash are lesson 9's (lessons/09-rope-flash.lesson, issue #18);
 * paged, window and mla lesson 10's (lessons/10-cache.lesson, issue #19). */
static const char *const topic_lesson[QT_COUNT] = {
    [QT_SHAPES] = "pipeline", [QT_STRIDES] = "transpose", [QT_OFFSETS] = "heads",
    [QT_VIEWS] = "transpose", [QT_GQA] = "variants",      [QT_KVCACHE] = "variants",
    [QT_BUGS] = "failures",   [QT_DECODE] = "decode",     [QT_MEMORY] = "softmax",
    [QT_ROPE] = "rope-flash", [QT_FLASH] = "rope-flash",  [QT_PAGED] = "cache",
    [QT_WINDOW] = "cache",    [QT_MLA] = "cache",         [QT_CONCEPTS] = "pipeline",
};

/* The built-in lesson file lessons/NN-NAME.lesson, or NULL. */
static const ContentFile *lesson_named(const char *name)
{
    for (const ContentFile *f = content_files; name && f->path; f++) {
        const char *p = f->path;
        if (strncmp(p, "lessons/", 8)) continue;
        p += 8;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == f->path + 8 || *p != '-') continue;
        p++;
        if (!strncmp(p, name, strlen(name)) && !strcmp(p + strlen(name), ".lesson")) return f;
    }
    return NULL;
}

/* Topic t's lesson file, or NULL. */
static const ContentFile *topic_file(int t)
{
    return t >= 0 && t < QT_COUNT ? lesson_named(topic_lesson[t]) : NULL;
}

int quiz_topic_lesson(int topic)
{
    const ContentFile *f = topic_file(topic);
    return f ? atoi(f->path + 8) : 0;
}

/* Topic t's lesson @title without its number ("Transpose and contiguity"),
 * or "" when there is none. */
static void lesson_title(int t, char *buf, size_t len)
{
    const ContentFile *f = topic_file(t);
    buf[0] = 0;
    const char *s = f ? strstr(f->text, "\n@title ") : NULL;
    if (!s) return;
    s += 8;
    while (*s >= '0' && *s <= '9')
        s++;
    if (*s == '.') s++; /* "3. Transpose ..." -> "Transpose ..." */
    while (*s == ' ')
        s++;
    snprintf(buf, len, "%.*s", (int)strcspn(s, "\n"), s);
}

/* right / asked in whole percent, rounded; the product is taken in 64 bits
 * (100 * right overflows int from 21,474,837, a count the history accepts). */
static int pct(int right, int asked)
{
    return asked ? (int)((100 * (long long)right + asked / 2) / asked) : 0;
}

#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (l < n) l += (size_t)snprintf(buf + l, n - l, __VA_ARGS__);                             \
    } while (0)

/* The score lines: the total, then one per topic asked or skipped. */
static size_t score_lines(const QuizScore *s, const QuizScore *all, char *buf, size_t n)
{
    int asked = 0, right = 0, skipped = 0;
    size_t l = 0;
    for (int t = 0; t < QT_COUNT; t++)
        asked += s->asked[t], right += s->right[t], skipped += s->skipped[t];
    if (!asked && !skipped)
        PUT("No questions answered.\n");
    else if (!asked)
        PUT("No questions answered, %d skipped.\n", skipped);
    else if (skipped)
        PUT("Score: %d/%d (%d%%), %d skipped\n", right, asked, pct(right, asked), skipped);
    else
        PUT("Score: %d/%d (%d%%)\n", right, asked, pct(right, asked));
    for (int t = 0; t < QT_COUNT; t++) {
        if (!s->asked[t] && !s->skipped[t]) continue;
        PUT("  %-9s %d/%d", quiz_topic_names[t], s->right[t], s->asked[t]);
        if (s->skipped[t]) PUT(", %d skipped", s->skipped[t]);
        if (all && all->asked[t])
            PUT("   (all sessions: %d/%d, %d%%)", all->right[t], all->asked[t],
                pct(all->right[t], all->asked[t]));
        PUT("\n");
    }
    return l;
}

int quiz_topic_below_full(const QuizScore *s, const QuizScore *all, int t)
{
    return (s && s->right[t] < s->asked[t]) || (all && all->right[t] < all->asked[t]);
}

void quiz_report(const QuizScore *s, const QuizScore *all, char *buf, size_t n)
{
    if (!n) return;
    buf[0] = 0;
    size_t l = score_lines(s, all, buf, n);
    int any = 0, asked = 0;
    for (int t = 0; t < QT_COUNT; t++) {
        asked += s->asked[t];
        if (!quiz_topic_below_full(s, all, t)) continue;
        int lesson = quiz_topic_lesson(t);
        char title[80];
        lesson_title(t, title, sizeof title);
        if (!any) PUT("To revisit:\n");
        any = 1;
        int now = s->asked[t] ? pct(s->right[t], s->asked[t]) : pct(all->right[t], all->asked[t]);
        PUT("  %-9s %3d%%  reread mhaviz lesson %d%s%s\n", quiz_topic_names[t], now, lesson,
            title[0] ? ": " : "", title);
    }
    if (any)
        PUT("Then practise with mhaviz quiz --topic NAME; mhaviz quiz --review asks again\n"
            "the questions you missed.\n");
    else if (asked)
        PUT("Every answer right: nothing to revisit.\n");
    int skipped_only = 0;
    for (int t = 0; t < QT_COUNT; t++)
        if (s->skipped[t] && !quiz_topic_below_full(s, all, t)) {
            if (!skipped_only) PUT("Skipped, not scored:");
            PUT("%s %s", skipped_only ? "," : "", quiz_topic_names[t]);
            skipped_only = 1;
        }
    if (skipped_only) PUT("  (skips do not count as weak)\n");
}
