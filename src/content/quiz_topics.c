/* quiz_topics.c - the topics, the quiz's random stream, and the one place
 * that turns (topic, seed) or an id into a question: a generator per kind
 * (quiz_gen_*.c, quiz_bugs.c), chosen here. */
#include <stdio.h>
#include <string.h>

#include "content/quiz_gen.h"

const char *const quiz_topic_names[QT_COUNT] = {
    "shapes", "strides", "offsets", "views", "gqa",    "kvcache", "bugs",     "decode",
    "memory", "rope",    "flash",   "paged", "window", "mla",     "concepts",
};

int quiz_topic_index(const char *name)
{
    for (int i = 0; name && i < QT_COUNT; i++)
        if (!strcmp(name, quiz_topic_names[i])) return i;
    return -1;
}

/* The generated kinds of each topic. */
static const int topic_kinds[QT_COUNT][5] = {
    [QT_SHAPES] = {QG_SHAPE, -1},
    [QT_STRIDES] = {QG_STRIDES, QG_CONTIG, -1},
    [QT_OFFSETS] = {QG_OFFSET, -1},
    [QT_VIEWS] = {QG_VIEWCOPY, -1},
    [QT_GQA] = {QG_KVSHAPE, QG_KVHEAD, QG_REPEAT_BYTES, QG_GROUPS, -1},
    [QT_KVCACHE] = {QG_KVCACHE, -1},
    [QT_BUGS] = {QG_BUG, -1},
    [QT_DECODE] = {QG_DECODE, -1},
    [QT_MEMORY] = {QG_SCORES_MEM, QG_CACHE_WEIGHTS, -1},
    [QT_ROPE] = {QG_ROPE_PARTNER, QG_ROPE_WHICH, QG_ROPE_ANGLE, QG_ROPE_DOT, -1},
    [QT_FLASH] = {QG_FLASH_ML, QG_FLASH_SKIP, QG_FLASH_BYTES, QG_FLASH_RESCALE, -1},
    [QT_PAGED] = {QG_PAGED, -1},
    [QT_WINDOW] = {QG_WINDOW, -1},
    [QT_MLA] = {QG_MLA, -1},
    [QT_CONCEPTS] = {-1},
};

int quiz_topic_generated(int topic)
{
    return topic >= 0 && topic < QT_COUNT && topic_kinds[topic][0] >= 0;
}

/* ---- the generator's own random stream --------------------------------- */

void quiz_rng_seed(QuizRng *r, uint64_t seed)
{
    r->s = seed ^ 0x6d68617669717a31ULL; /* "mhaviqz1": a stream apart from the weights */
}

uint64_t quiz_rng_next(QuizRng *r)
{
    return mha_rng_next(r);
}

int quiz_rng_below(QuizRng *r, int n)
{
    return n <= 1 ? 0 : (int)(quiz_rng_next(r) % (uint64_t)n);
}

/* ---- entry points ---------------------------------------------------------- */

static int (*const generators[QG_COUNT])(Gen *) = {
    quiz_gen_shape,         quiz_gen_strides,       quiz_gen_contig,       quiz_gen_offset,
    quiz_gen_viewcopy,      quiz_gen_kvshape,       quiz_gen_kvhead,       quiz_gen_repeat_bytes,
    quiz_gen_kvcache,       quiz_gen_bug,           quiz_gen_decode,       quiz_gen_scores_mem,
    quiz_gen_cache_weights, quiz_gen_groups,        quiz_gen_rope_partner, quiz_gen_rope_which,
    quiz_gen_rope_angle,    quiz_gen_rope_dot,      quiz_gen_flash_ml,     quiz_gen_flash_skip,
    quiz_gen_flash_bytes,   quiz_gen_flash_rescale, quiz_gen_paged,        quiz_gen_window,
    quiz_gen_mla,
};

int quiz_generate_kind(int gkind, uint64_t qseed, QuizQuestion *q, char *err, size_t errlen)
{
    memset(q, 0, sizeof *q);
    if (gkind < 0 || gkind >= QG_COUNT) {
        if (err) snprintf(err, errlen, "no generated question kind %d", gkind);
        return -1;
    }
    char e[300] = "";
    Gen g = {q, {0}, e, sizeof e};
    quiz_rng_seed(&g.r, qseed);
    q->gen = gkind + 1;
    q->pic.lit = -1;
    if (generators[gkind](&g)) {
        if (err) snprintf(err, errlen, "quiz: %s", e);
        return -1;
    }
    q->gen = gkind + 1;
    snprintf(q->id, sizeof q->id, "k:%d:%016llx", gkind, (unsigned long long)qseed);
    snprintf(q->source, sizeof q->source, "generated");
    return 0;
}

int quiz_generate(int topic, uint64_t qseed, QuizQuestion *q, char *err, size_t errlen)
{
    if (!quiz_topic_generated(topic)) {
        if (err)
            snprintf(err, errlen, "quiz: topic '%s' has no generator",
                     topic >= 0 && topic < QT_COUNT ? quiz_topic_names[topic] : "?");
        return -1;
    }
    QuizRng r;
    quiz_rng_seed(&r, qseed);
    int n = 0;
    while (topic_kinds[topic][n] >= 0)
        n++;
    int kind = topic_kinds[topic][quiz_rng_below(&r, n)];
    if (quiz_generate_kind(kind, quiz_rng_next(&r), q, err, errlen)) return -1;
    snprintf(q->id, sizeof q->id, "g:%s:%016llx", quiz_topic_names[topic],
             (unsigned long long)qseed);
    return 0;
}

int quiz_from_id(const QuizBank *bank, const char *id, QuizQuestion *q)
{
    char topic[32];
    unsigned long long s;
    int kind;
    if (sscanf(id, "g:%31[a-z]:%llx", topic, &s) == 2 && quiz_topic_index(topic) >= 0)
        return quiz_generate(quiz_topic_index(topic), s, q, NULL, 0);
    if (sscanf(id, "k:%d:%llx", &kind, &s) == 2) return quiz_generate_kind(kind, s, q, NULL, 0);
    if (sscanf(id, "b:%d:%llx", &kind, &s) == 2) return quiz_generate_bug(kind, s, q, NULL, 0);
    for (int i = 0; bank && i < bank->n; i++)
        if (!strcmp(bank->q[i].id, id)) {
            *q = bank->q[i];
            return 0;
        }
    return -1;
}
