/* quiz_answer.c - reading what a learner typed, and checking it.
 *
 * Accepted spellings: a letter ("b", "B)", "b."); a whole number ("4096",
 * "1_048_576", and "1,048,576" where a number is expected); a shape or
 * strides ("(2, 8, 16, 64)", "2,8,16,64", "[2 8 16 64]", "(4,)"); words. */
#include "content/quiz.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define NUM_MAX 1000000000000000000LL /* 1e18: bigger is refused, never wrapped */

/* Lower case, runs of blanks to one space, trimmed. 0, or -1 if too long. */
static int normalize(const char *s, size_t len, char *out, size_t n)
{
    size_t k = 0;
    int space = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t') {
            space = k > 0;
            continue;
        }
        if (space) {
            if (k + 1 >= n) return -1;
            out[k++] = ' ';
            space = 0;
        }
        if (k + 1 >= n) return -1;
        out[k++] = (char)tolower(c);
    }
    out[k] = 0;
    return 0;
}

/* Reads a whole number at *p (digits, single '_' between digits, optional
 * leading '-'); advances *p.  0 or -1. */
static int read_num(const char **p, const char *end, long long *v, int *ndigits)
{
    const char *s = *p;
    int neg = 0, nd = 0;
    long long x = 0;
    if (s < end && *s == '-') neg = 1, s++;
    if (s >= end || !isdigit((unsigned char)*s)) return -1;
    while (s < end && (isdigit((unsigned char)*s) || *s == '_')) {
        if (*s == '_') {
            if (s + 1 >= end || !isdigit((unsigned char)s[1]) || !isdigit((unsigned char)s[-1]))
                return -1;
            s++;
            continue;
        }
        if (x > (NUM_MAX - 9) / 10) return -1;
        x = x * 10 + (*s - '0');
        nd++;
        s++;
    }
    *v = neg ? -x : x;
    *ndigits = nd;
    *p = s;
    return 0;
}

/* A number or a tuple: brackets optional; elements separated by commas
 * and/or blanks.  Returns 0 and fills a, or -1. */
static int parse_numeric(const char *s, const char *end, QuizAnswer *a)
{
    char open = 0;
    if (*s == '(' || *s == '[') {
        open = *s++;
        char close = open == '(' ? ')' : ']';
        if (end[-1] != close) return -1;
        end--;
    }
    int n = 0, commas = 0, groups_ok = 1, nd0 = 0;
    long long grouped = 0;
    for (;;) {
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s >= end) break;
        if (n == QUIZ_MAX_TUPLE) return -1;
        long long v;
        int nd;
        if (read_num(&s, end, &v, &nd)) return -1;
        if (n == 0)
            nd0 = nd, grouped = v;
        else if (nd != 3 || v < 0)
            groups_ok = 0;
        else if (grouped >= 0 && grouped <= (NUM_MAX - 999) / 1000) /* "1,024" groups */
            grouped = grouped * 1000 + v;
        else
            groups_ok = 0;
        a->v[n++] = v;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        if (s < end && *s == ',') {
            commas++;
            s++;
            while (s < end && (*s == ' ' || *s == '\t'))
                s++;
            if (s < end && *s == ',') return -1; /* ",," */
        } else if (s < end && !isdigit((unsigned char)*s) && *s != '-')
            return -1;
        else if (s < end && n > 0 && commas && commas < n) {
            /* mixing "2, 8 16" is fine: blanks separate too */
        }
    }
    if (n == 0) return -1;
    a->n = n;
    if (n == 1 && !open && !commas) {
        a->kind = QA_NUMBER;
        a->number = a->v[0];
    } else {
        a->kind = QA_TUPLE;
        /* "1,048,576" typed where a number is expected */
        if (!open && n > 1 && commas == n - 1 && groups_ok && nd0 <= 3 && a->v[0] >= 0)
            a->number = grouped;
        else
            a->number = -1;
    }
    return 0;
}

/* "2 GiB", "2GiB", "1.5 mib", "512 KB": a byte size.  0 and a filled, or -1. */
static int parse_size(const char *s, const char *end, QuizAnswer *a)
{
    static const char *const units[] = {"b", "kib", "mib", "gib", "tib", "pib"};
    static const char *const loose[] = {"bytes", "kb", "mb", "gb", "tb", "pb"};
    double v = 0, frac = 0.1;
    int digits = 0, decimals = 0, dot = 0;
    const char *p = s;
    for (; p < end && (isdigit((unsigned char)*p) || (*p == '.' && !dot) || *p == ','); p++) {
        if (*p == ',') continue; /* "1,024 MiB" */
        if (*p == '.')
            dot = 1;
        else if (!dot)
            v = v * 10 + (*p - '0'), digits++;
        else
            v += (*p - '0') * frac, frac /= 10, decimals++;
    }
    if (!digits || digits > 15) return -1;
    while (p < end && *p == ' ')
        p++;
    char u[8];
    size_t ul = (size_t)(end - p);
    if (ul == 0 || ul >= sizeof u) return -1;
    for (size_t i = 0; i < ul; i++)
        u[i] = (char)tolower((unsigned char)p[i]);
    u[ul] = 0;
    for (int k = 0; k < 6; k++)
        if (!strcmp(u, units[k]) || !strcmp(u, loose[k])) {
            double bytes = v;
            for (int j = 0; j < k; j++)
                bytes *= 1024;
            a->kind = QA_SIZE;
            a->size = bytes;
            a->size_unit = k;
            a->size_decimals = decimals;
            /* the range first: casting a double past LLONG_MAX is undefined */
            a->number = bytes < 9e18 && bytes == (double)(long long)bytes ? (long long)bytes : -1;
            return 0;
        }
    return -1;
}

/* "torch.Size([2, 12, 4, 32])" or "Size([...])": the bracket inside, or NULL. */
static const char *torch_size(const char *s, const char **end)
{
    const char *p = s;
    if (!strncmp(p, "torch.", 6)) p += 6;
    if (strncmp(p, "Size(", 5) || (*end)[-1] != ')') return NULL;
    (*end)--;
    return p + 5;
}

int quiz_parse_answer(const char *line, QuizAnswer *a)
{
    memset(a, 0, sizeof *a);
    a->number = -1;
    if (!line) return -1;
    size_t len = strnlen(line, 4 * QUIZ_ANSWER_MAX);
    if (len >= 4 * QUIZ_ANSWER_MAX) return -1;
    const char *s = line, *end = line + len;
    while (s < end && isspace((unsigned char)*s))
        s++;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    for (const char *p = s; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c < 0x20 && c != '\t') || c == 0x7f) return -1;
    }
    if (normalize(s, (size_t)(end - s), a->text, sizeof a->text)) return -1;
    if (s == end) {
        a->kind = QA_EMPTY;
        return 0;
    }
    size_t n = (size_t)(end - s);
    const char *inner = torch_size(s, &end);
    if (inner) return parse_numeric(inner, end, a);
    if (isdigit((unsigned char)s[0]) && parse_size(s, end, a) == 0) return 0;
    if (isalpha((unsigned char)s[0]) && (n == 1 || (n == 2 && (s[1] == ')' || s[1] == '.')))) {
        a->kind = QA_LETTER;
        a->letter = tolower((unsigned char)s[0]) - 'a';
        return 0;
    }
    int numeric = 1, alnum = 0;
    for (const char *p = s; p < end; p++) {
        if (!strchr("0123456789_,-()[] \t", *p)) numeric = 0;
        if (isalnum((unsigned char)*p)) alnum = 1;
    }
    if (numeric) return alnum ? parse_numeric(s, end, a) : -1;
    if (!alnum) return -1;
    a->kind = QA_TEXT;
    return 0;
}

/* Does typed answer a name the same value as the text of choice c? */
static int matches_choice(const QuizAnswer *a, const char *c)
{
    QuizAnswer ca;
    if (quiz_parse_answer(c, &ca)) return 0;
    if (a->kind == QA_NUMBER && ca.kind == QA_NUMBER) return a->number == ca.number;
    if (a->kind == QA_TUPLE && ca.kind == QA_TUPLE) {
        if (a->n != ca.n) return 0;
        for (int i = 0; i < a->n; i++)
            if (a->v[i] != ca.v[i]) return 0;
        return 1;
    }
    return a->kind == QA_TEXT && !strcmp(a->text, ca.text);
}

/* Does a typed number or shape name a value written inside choice c: a
 * shape in brackets ("(2, 16, 8, 64): a view") or a whole number standing
 * alone, with or without thousands commas ("1.00 GiB (1,073,741,824
 * bytes)", "0 bytes copied")?  Digits that are part of a decimal, a word
 * or an expression ("1.00", "fp16", "dim=1", "1/sqrt") are not values. */
static int value_in_choice(const QuizAnswer *a, const char *c)
{
    const char *end = c + strlen(c);
    for (const char *p = c; p < end; p++) {
        if ((*p == '(' || *p == '[') && a->kind == QA_TUPLE) {
            const char *close = strchr(p, *p == '(' ? ')' : ']');
            QuizAnswer ca;
            memset(&ca, 0, sizeof ca);
            if (close && parse_numeric(p, close + 1, &ca) == 0 && ca.kind == QA_TUPLE &&
                ca.n == a->n && !memcmp(ca.v, a->v, sizeof(long long) * (size_t)a->n))
                return 1;
            continue;
        }
        if (!isdigit((unsigned char)*p)) continue;
        if (p > c && (isalnum((unsigned char)p[-1]) || strchr("._=*/^-+", p[-1]))) {
            while (p + 1 < end && isdigit((unsigned char)p[1]))
                p++; /* the rest of that token */
            continue;
        }
        long long v = 0;
        const char *q = p;
        int ok = 1;
        while (q < end && isdigit((unsigned char)*q) && ok) {
            if (v > (NUM_MAX - 9) / 10)
                ok = 0;
            else
                v = v * 10 + (*q++ - '0');
        }
        /* thousands groups: ",ddd" not followed by another digit */
        while (ok && end - q > 3 && q[0] == ',' && isdigit((unsigned char)q[1]) &&
               isdigit((unsigned char)q[2]) && isdigit((unsigned char)q[3]) &&
               !(q + 4 < end && isdigit((unsigned char)q[4]))) {
            if (v > (NUM_MAX - 999) / 1000)
                ok = 0;
            else
                v = v * 1000 + (q[1] - '0') * 100 + (q[2] - '0') * 10 + (q[3] - '0'), q += 4;
        }
        int standalone = !(q < end && (isalnum((unsigned char)*q) || strchr("_=*/^", *q) ||
                                       (*q == '.' && q + 1 < end && isdigit((unsigned char)q[1]))));
        long long typed = a->kind == QA_NUMBER || a->kind == QA_SIZE ? a->number
                          : a->kind == QA_TUPLE                      ? a->number
                                                                     : -1;
        if (ok && standalone && typed >= 0 && v == typed) return 1;
        p = q - 1;
    }
    return 0;
}

/* Does a typed size name choice c's size?  Exactly its byte count, or its
 * shown size ("1.41 GiB") to the decimals typed, in the unit typed. */
static int size_in_choice(const QuizAnswer *a, const char *c)
{
    QuizAnswer ca;
    memset(&ca, 0, sizeof ca);
    const char *open = strchr(c, '(');
    const char *end = open ? open : c + strlen(c);
    while (end > c && end[-1] == ' ')
        end--;
    if (parse_size(c, end, &ca) || ca.kind != QA_SIZE) return 0;
    if (a->number >= 0 && value_in_choice(a, c)) return 1; /* the exact bytes */
    double unit = 1;
    for (int j = 0; j < a->size_unit; j++)
        unit *= 1024;
    double scale = 1;
    for (int j = 0; j < a->size_decimals; j++)
        scale *= 10;
    double typed = a->size / unit * scale, shown = ca.size / unit * scale;
    if (typed >= 9e18 || shown >= 9e18) return typed == shown; /* past LLONG_MAX: no cast */
    return (long long)(typed + 0.5) == (long long)(shown + 0.5);
}

/* Is the typed text a whole-word prefix of choice c ("view" of "a view: ...")? */
static int word_prefix(const char *typed, const char *c)
{
    char cn[QUIZ_ANSWER_MAX];
    if (normalize(c, strlen(c), cn, sizeof cn)) return 0;
    const char *p = cn;
    size_t n = strlen(typed);
    if (n < 2) return 0;
    for (;;) {
        if (!strncmp(p, typed, n) && !isalnum((unsigned char)p[n])) return 1;
        p = strchr(p, ' ');
        if (!p) return 0;
        p++;
        /* only the first two words count: "a view", "an error", "copy" */
        if (p - cn > 3) return 0;
    }
}

int quiz_check(const QuizQuestion *q, const char *line, int *chosen, char *why, size_t whylen)
{
    QuizAnswer a;
    return quiz_check_answer(q, quiz_parse_answer(line, &a) ? NULL : &a, chosen, why, whylen);
}

int quiz_check_answer(const QuizQuestion *q, const QuizAnswer *ap, int *chosen, char *why,
                      size_t whylen)
{
    int dummy;
    if (!chosen) chosen = &dummy;
    *chosen = -1;
    if (why && whylen) why[0] = 0;
    const char *expect = q->kind == QK_CHOICE   ? "a letter"
                         : q->kind == QK_NUMBER ? "a whole number"
                         : q->kind == QK_TUPLE  ? "a shape like (2, 8, 16, 64)"
                                                : "a word or two";
    if (!ap || ap->kind == QA_EMPTY) {
        if (why) {
            if (q->kind == QK_CHOICE)
                snprintf(why, whylen,
                         "type a letter a-%c, or the text, number or shape of one choice",
                         'a' + q->n_choices - 1);
            else
                snprintf(why, whylen, "type %s", expect);
        }
        return -1;
    }
    const QuizAnswer a = *ap;
    switch (q->kind) {
    case QK_CHOICE: {
        int pickd = -1;
        if (a.kind == QA_LETTER) {
            if (a.letter >= 0 && a.letter < q->n_choices) pickd = a.letter;
        } else {
            int hits = 0;
            for (int i = 0; i < q->n_choices; i++)
                if (matches_choice(&a, q->choices[i])) hits++, pickd = i;
            if (hits == 0 && (a.kind == QA_NUMBER || a.kind == QA_TUPLE)) {
                for (int i = 0; i < q->n_choices; i++)
                    if (value_in_choice(&a, q->choices[i])) hits++, pickd = i;
            }
            if (a.kind == QA_SIZE)
                for (int i = 0; i < q->n_choices; i++)
                    if (size_in_choice(&a, q->choices[i])) hits++, pickd = i;
            if (hits == 0 && a.kind != QA_TEXT) { /* a value, but none of these */
                if (why) snprintf(why, whylen, "not one of the choices");
                return 0;
            }
            if (hits != 1 && a.kind == QA_TEXT) {
                hits = 0;
                for (int i = 0; i < q->n_choices; i++)
                    if (word_prefix(a.text, q->choices[i])) hits++, pickd = i;
            }
            if (hits != 1) pickd = -1;
        }
        if (pickd < 0) {
            if (why)
                snprintf(why, whylen,
                         "type a letter a-%c, or the text, number or shape of one choice",
                         'a' + q->n_choices - 1);
            return -1;
        }
        *chosen = pickd;
        return pickd == q->correct;
    }
    case QK_NUMBER:
        if (a.kind == QA_NUMBER || (a.kind == QA_SIZE && a.number >= 0))
            return a.number == q->number;
        if (a.kind == QA_TUPLE && a.n == 1) return a.v[0] == q->number;
        if (a.kind == QA_TUPLE && a.number >= 0) return a.number == q->number;
        break;
    case QK_TUPLE:
        if (a.kind == QA_TUPLE || a.kind == QA_NUMBER) {
            if (a.n != q->n_tuple) return 0;
            for (int i = 0; i < a.n; i++)
                if (a.v[i] != q->tuple[i] && !(i < 32 && (q->tuple_free >> i) & 1u)) return 0;
            return 1;
        }
        break;
    default: {
        /* any of the '|'-separated spellings */
        const char *p = q->text;
        while (*p) {
            const char *bar = strchr(p, '|');
            size_t l = bar ? (size_t)(bar - p) : strlen(p);
            char alt[QUIZ_ANSWER_MAX];
            if (l < sizeof alt) {
                memcpy(alt, p, l);
                alt[l] = 0;
                char norm[QUIZ_ANSWER_MAX];
                const char *b = alt;
                while (*b == ' ')
                    b++;
                size_t bl = strlen(b);
                while (bl && b[bl - 1] == ' ')
                    bl--;
                if (!normalize(b, bl, norm, sizeof norm) && !strcmp(norm, a.text)) return 1;
            }
            if (!bar) break;
            p = bar + 1;
        }
        return 0;
    }
    }
    if (why) snprintf(why, whylen, "type %s", expect);
    return -1;
}

char *quiz_answer_text(const QuizQuestion *q, char *buf, size_t n)
{
    if (!n) return buf;
    buf[0] = 0;
    switch (q->kind) {
    case QK_CHOICE:
        snprintf(buf, n, "%c) %s", 'a' + q->correct, q->choices[q->correct]);
        break;
    case QK_NUMBER:
        snprintf(buf, n, "%lld", q->number);
        break;
    case QK_TUPLE: {
        size_t l = 0;
        l += (size_t)snprintf(buf, n, "(");
        for (int i = 0; i < q->n_tuple && l < n; i++)
            l += (size_t)snprintf(buf + l, n - l, "%s%lld", i ? ", " : "", q->tuple[i]);
        if (l < n) snprintf(buf + l, n - l, q->n_tuple == 1 ? ",)" : ")");
        break;
    }
    default: {
        const char *bar = strchr(q->text, '|');
        size_t l = bar ? (size_t)(bar - q->text) : strlen(q->text);
        while (l && q->text[l - 1] == ' ')
            l--;
        snprintf(buf, n, "%.*s", (int)l, q->text);
        break;
    }
    }
    return buf;
}

char *quiz_answer_kind(const QuizQuestion *q, char *buf, size_t n)
{
    if (!n) return buf;
    switch (q->kind) {
    case QK_CHOICE:
        snprintf(buf, n, "a letter a-%c", 'a' + (q->n_choices > 0 ? q->n_choices - 1 : 0));
        break;
    case QK_NUMBER:
        snprintf(buf, n, "a whole number");
        break;
    case QK_TUPLE:
        snprintf(buf, n, q->n_tuple == 1 ? "a shape like (4,)" : "a shape");
        break;
    default:
        snprintf(buf, n, "words");
        break;
    }
    return buf;
}
