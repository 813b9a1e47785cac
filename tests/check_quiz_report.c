/* check_quiz_report.c - the quiz's end report sends each weak topic to the
 * lesson that teaches it: the number and title read from the built-in
 * lesson files, so decode goes to "8: Decode and the KV cache" (the lesson
 * that has the decode step), not to the GQA lesson. */
#include <string.h>

#include "check_main.h"
#include "content/content.h"
#include "content/quiz.h"

/* The @title of built-in lesson n ("8. Decode and the KV cache"), or NULL. */
static const char *title_of(int n)
{
    char prefix[24];
    snprintf(prefix, sizeof prefix, "lessons/%02d-", n);
    for (const ContentFile *f = content_files; f->path; f++)
        if (!strncmp(f->path, prefix, strlen(prefix))) return strstr(f->text, "@title ");
    return NULL;
}

START_TEST(decode_is_lesson_8)
{
    ck_assert_int_eq(quiz_topic_lesson(QT_DECODE), 8);
    const char *t = title_of(8);
    ck_assert_ptr_nonnull(t);
    ck_assert(!strncmp(t, "@title 8. Decode", 16));
    QuizScore s;
    char sum[2000];
    memset(&s, 0, sizeof s);
    quiz_score_add(&s, QT_DECODE, 0);
    quiz_report(&s, NULL, sum, sizeof sum);
    ck_assert_msg(
        strstr(sum, "  decode      0%  reread mhaviz lesson 8: Decode and the KV cache\n"), "%s",
        sum);
}
END_TEST

/* Every topic points at a lesson that exists and whose title names what the
 * topic asks about. */
START_TEST(every_topic_has_its_lesson)
{
    static const struct {
        int topic;
        const char *word; /* in the lesson's @title */
    } want[] = {
        {QT_SHAPES, "pipeline"},   {QT_STRIDES, "Transpose"}, {QT_OFFSETS, "Heads"},
        {QT_VIEWS, "Transpose"},   {QT_GQA, "GQA"},           {QT_KVCACHE, "MQA"},
        {QT_BUGS, "Failure"},      {QT_DECODE, "Decode"},     {QT_MEMORY, "softmax"},
        {QT_CONCEPTS, "pipeline"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int n = quiz_topic_lesson(want[i].topic);
        const char *t = title_of(n);
        ck_assert_msg(t != NULL, "topic %d: no lesson %d", want[i].topic, n);
        const char *end = strchr(t, '\n');
        ck_assert_msg(strstr(t, want[i].word) && strstr(t, want[i].word) < end,
                      "topic %d -> lesson %d: %.*s", want[i].topic, n, (int)(end - t), t);
    }
    /* rope and flash: lesson 9, "RoPE and FlashAttention" */
    const char *nine = title_of(9);
    ck_assert_msg(nine && strstr(nine, "RoPE") && strstr(nine, "RoPE") < strchr(nine, '\n'),
                  "no lesson 9 on RoPE");
    ck_assert_int_eq(quiz_topic_lesson(QT_ROPE), 9);
    ck_assert_int_eq(quiz_topic_lesson(QT_FLASH), 9);
    ck_assert_int_eq(quiz_topic_lesson(QT_PAGED), 10); /* lessons/10-cache.lesson */
    ck_assert_int_eq(quiz_topic_lesson(QT_WINDOW), 10);
    ck_assert_int_eq(quiz_topic_lesson(QT_MLA), 10);
    for (int t = 0; t < QT_COUNT; t++)
        ck_assert_msg(quiz_topic_lesson(t) > 0, "topic %s has no lesson", quiz_topic_names[t]);
    ck_assert_int_eq(quiz_topic_lesson(-1), 0);
    ck_assert_int_eq(quiz_topic_lesson(QT_COUNT), 0);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("quiz_report");
    TCase *tc = tcase_create("lessons");
    tcase_add_test(tc, decode_is_lesson_8);
    tcase_add_test(tc, every_topic_has_its_lesson);
    suite_add_tcase(s, tc);
    return s;
}

CHECK_MAIN(report_suite)
