/* play_format.c - a playground result as one JSON line (--json) or as text
 * for people (--plain), and Tab completion of names and methods. */
#include "engine/play_val.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "base/textutil.h"
#include "base/utf8.h"

typedef struct Buf {
    char *s;
    size_t n, k;
} Buf;

static void put(Buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#include <stdarg.h>
static void put(Buf *b, const char *fmt, ...)
{
    if (b->k >= b->n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s + b->k, b->n - b->k, fmt, ap);
    va_end(ap);
    if (w > 0) b->k += (size_t)w;
    if (b->k >= b->n) b->k = b->n - 1;
}

/* A JSON string; control characters (base/sanitize.h: C1 and DEL too,
 * which JSON would let through raw) as \u escapes. */
static void put_json_str(Buf *b, const char *s)
{
    put(b, "\"");
    for (size_t len = strlen(s); *s;) {
        int k;
        uint32_t c = utf8_decode(s, len, &k);
        if (c == '"' || c == '\\')
            put(b, "\\%c", (int)c);
        else if (c != UTF8_INVALID && sanitize_is_control(c))
            put(b, "\\u%04x", (unsigned)c);
        else
            put(b, "%.*s", k, s);
        s += k;
        len -= (size_t)k;
    }
    put(b, "\"");
}

static void put_dims(Buf *b, const char *open, const char *close, int n, const int *v,
                     const long *lv)
{
    put(b, "%s", open);
    for (int i = 0; i < n; i++)
        put(b, "%s%ld", i ? ", " : "", v ? (long)v[i] : lv[i]);
    put(b, "%s", close);
}

/* "shape": [..], "strides": [..], "offset", "storage", "contiguous", "view", "dtype" */
static void put_tensor_json(Buf *b, const Tensor *t, PlayMemory memory, PlayDtype dtype,
                            const size_t *copied)
{
    put_dims(b, "\"shape\": [", "], ", t->ndim, t->shape, NULL);
    put_dims(b, "\"strides\": [", "], ", t->ndim, NULL, t->strides);
    put(b, "\"offset\": %zu, \"storage\": %d, \"contiguous\": %s, ", t->offset, t->st->id,
        tensorops_is_contiguous(t) ? "true" : "false");
    if (copied) put(b, "\"copied_bytes\": %zu, ", *copied);
    put(b, "\"view\": %s, \"dtype\": \"%s\"",
        memory == PM_VIEW || memory == PM_SAME || memory == PM_WRITE ? "true" : "false",
        play_dtype_name(dtype));
    if (memory == PM_WRITE) put(b, ", \"in_place\": true");
}

void play_result_json(const PlayResult *r, int line, char *buf, size_t n)
{
    Buf b = {buf, n, 0};
    buf[0] = 0;
    put(&b, "{\"line\": %d, ", line);
    if (r->kind == PR_ERROR) {
        put(&b, "\"ok\": false, \"error\": ");
        put_json_str(&b, r->error);
        if (r->error_col >= 0) put(&b, ", \"column\": %d", r->error_col + 1);
        put(&b, "}");
        return;
    }
    put(&b, "\"name\": ");
    if (r->name[0])
        put_json_str(&b, r->name);
    else
        put(&b, "null");
    put(&b, ", \"ok\": true, ");
    if (r->kind == PR_VALUE || r->kind == PR_EMPTY) {
        put(&b, "\"value\": %s}", r->kind == PR_EMPTY ? "null" : r->value_json);
        return;
    }
    if (r->kind == PR_TUPLE) { /* "tensors": [{"name", "shape", ...}, ...] */
        put(&b, "\"copied_bytes\": %zu, \"tensors\": [", r->copied_bytes);
        for (int i = 0; i < r->nparts; i++) {
            const PlayPart *pt = &r->parts[i];
            put(&b, "%s{\"name\": ", i ? ", " : "");
            if (pt->name[0])
                put_json_str(&b, pt->name);
            else
                put(&b, "null");
            put(&b, ", ");
            put_tensor_json(&b, pt->t, pt->memory, pt->dtype, NULL);
            put(&b, "}");
        }
        put(&b, "]");
    } else {
        put_tensor_json(&b, r->t, r->memory, r->dtype, &r->copied_bytes);
    }
    if (r->memory == PM_SAME && r->kind == PR_TENSOR) {
        put(&b, ", \"same_as\": ");
        put_json_str(&b, r->same_as);
    }
    if (r->warning[0]) {
        put(&b, ", \"warning\": ");
        put_json_str(&b, r->warning);
    }
    put(&b, "}");
}

void play_result_values_json(const PlayResult *r, char *buf, size_t n)
{
    Buf b = {buf, n, 0};
    buf[0] = 0;
    if (r->kind != PR_TENSOR) return;
    const Tensor *t = r->t;
    size_t numel = tensorops_numel(t);
    int idx[TENSOR_MAXDIM] = {0};
    put(&b, "[");
    for (size_t k = 0; k < numel; k++) {
        float v = t->st->data[tensor_offset_of(t, idx)];
        put(&b, "%s", k ? ", " : "");
        if (r->dtype == PD_BOOL)
            put(&b, "%s", v != 0 ? "true" : "false");
        else if (isnan(v) || isinf(v))
            put(&b, "%s", isnan(v) ? "NaN" : v < 0 ? "-Infinity" : "Infinity");
        else if (r->dtype == PD_INT64)
            put(&b, "%.0f", (double)v);
        else
            put(&b, "%.9g", (double)v);
        for (int i = t->ndim - 1; i >= 0; i--) {
            if (++idx[i] < t->shape[i]) break;
            idx[i] = 0;
        }
    }
    put(&b, "]");
}

const char *play_memory_text(const PlayResult *r, char *buf, size_t n)
{
    if (r->memory == PM_SAME)
        snprintf(buf, n, "the same tensor as %s (not a new one), 0 bytes copied", r->same_as);
    else if (r->memory == PM_WRITE) {
        char nb[32];
        snprintf(buf, n, "written in place: %s bytes copied into storage S%d",
                 text_fmt_int(nb, sizeof nb, r->copied_bytes), r->t ? r->t->st->id : 0);
    } else if (r->memory == PM_VIEW)
        snprintf(buf, n, "view: same storage, 0 bytes copied");
    else if (r->memory == PM_COPY) {
        char nb[32];
        snprintf(buf, n, "copy: %s bytes copied into a new storage",
                 text_fmt_int(nb, sizeof nb, r->copied_bytes));
    } else
        snprintf(buf, n, "new storage");
    return buf;
}

const char *play_memory_word(const PlayResult *r)
{
    return r->memory == PM_SAME    ? "same"
           : r->memory == PM_WRITE ? "write"
           : r->memory == PM_VIEW  ? "view"
           : r->memory == PM_COPY  ? "copy"
                                   : "new";
}

/* "reads offsets 0, 4, 8, 1, ... (24 elements)": the order the tensor walks
 * its storage in, row-major over its shape. */
static void put_reads(Buf *b, const Tensor *t)
{
    size_t numel = tensorops_numel(t), show = numel < 12 ? numel : 12;
    int idx[TENSOR_MAXDIM] = {0};
    put(b, "  reads storage offsets ");
    for (size_t k = 0; k < show; k++) {
        put(b, "%s%zu", k ? " " : "", tensor_offset_of(t, idx));
        for (int i = t->ndim - 1; i >= 0; i--) {
            if (++idx[i] < t->shape[i]) break;
            idx[i] = 0;
        }
    }
    put(b, "%s (%zu element%s of storage S%d's %zu)\n",
        numel > show ? " ..."
        : numel      ? ""
                     : "none",
        numel, text_s(numel), t->st->id, t->st->n);
}

/* a tensor's lines: shape, strides, offset, storage, memory, what it reads */
static void put_tensor_text(Buf *b, const char *label, const Tensor *t, const PlayResult *r)
{
    put(b, "  %s", label);
    put_dims(b, ": shape (", "", t->ndim, t->shape, NULL);
    put(b, "%s", t->ndim == 1 ? ",)" : ")");
    put_dims(b, "  strides (", "", t->ndim, NULL, t->strides);
    put(b, "%s", t->ndim == 1 ? ",)" : ")");
    put(b, "  offset %zu  storage S%d  %s\n", t->offset, t->st->id, play_dtype_name(r->dtype));
    put(b, "  %s  ", tensorops_is_contiguous(t) ? "contiguous" : "not contiguous");
    char mem[96];
    put(b, "%s", play_memory_text(r, mem, sizeof mem));
    if (r->shares[0]) put(b, "  shares storage with %s", r->shares);
    put(b, "\n");
    put_reads(b, t);
}

void play_result_text(const PlayResult *r, const char *line, char *buf, size_t n)
{
    Buf b = {buf, n, 0};
    buf[0] = 0;
    if (r->kind == PR_EMPTY) return;
    if (r->kind == PR_ERROR) {
        if (r->error_col >= 0) {
            (void)line;
            put(&b, "    %*s^\nSyntaxError: %s\n", r->error_col, "", r->error);
        } else
            put(&b, "error: %s\n", r->error);
        return;
    }
    if (r->warning[0]) put(&b, "%s\n", r->warning);
    if (r->kind == PR_VALUE) {
        put(&b, "%s\n", r->value_text);
        return;
    }
    if (r->kind == PR_TUPLE) {
        put(&b, "  a tuple of %d tensor%s\n", r->nparts, text_s(r->nparts));
        for (int i = 0; i < r->nparts; i++) {
            const PlayPart *pt = &r->parts[i];
            char label[PLAY_NAME_MAX + 8];
            snprintf(label, sizeof label, "%s", pt->name);
            if (!pt->name[0]) snprintf(label, sizeof label, "[%d]", i);
            PlayResult one = {.memory = pt->memory, .dtype = pt->dtype};
            put_tensor_text(&b, label, pt->t, &one);
        }
        return;
    }
    put_tensor_text(&b, r->name[0] ? r->name : "tensor", r->t, r);
}

void play_float_repr(double v, char *buf, size_t n)
{
    if (isnan(v) || isinf(v)) {
        snprintf(buf, n, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    char e[40], digits[24];
    for (int p = 1; p <= 17; p++) { /* the shortest that reads back */
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (strtod(e, NULL) == v) break;
    }
    const char *m = e + (e[0] == '-'), *x = strchr(e, 'e');
    int k = 0, exp = atoi(x + 1);
    for (const char *c = m; c < x; c++)
        if (*c != '.') digits[k++] = *c;
    digits[k] = 0;
    while (k > 1 && digits[k - 1] == '0')
        digits[--k] = 0;
    Buf b = {buf, n, 0};
    buf[0] = 0;
    if (e[0] == '-') put(&b, "-");
    if (exp < -4 || exp >= 16) { /* repr's scientific form: 1e-09, 1.5e+16 */
        put(&b, "%c%s%s", digits[0], k > 1 ? "." : "", digits + 1);
        put(&b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) { /* 0.0005 */
        put(&b, "0.");
        for (int i = 0; i < -exp - 1; i++)
            put(&b, "0");
        put(&b, "%s", digits);
    } else if (k <= exp + 1) { /* 2.0, 300.0 */
        put(&b, "%s", digits);
        for (int i = k; i < exp + 1; i++)
            put(&b, "0");
        put(&b, ".0");
    } else
        put(&b, "%.*s.%s", exp + 1, digits, digits + exp + 1);
}

/* ---- completion ------------------------------------------------------------------ */

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void offer(char (*out)[PLAY_NAME_MAX], int max, int *k, const char *name, const char *prefix,
                  size_t plen)
{
    if (strncmp(name, prefix, plen) || *k >= max) return;
    for (int i = 0; i < *k; i++)
        if (!strcmp(out[i], name)) return;
    snprintf(out[(*k)++], PLAY_NAME_MAX, "%s", name);
}

int play_complete(const Play *p, const char *line, int pos, char (*out)[PLAY_NAME_MAX], int max,
                  int *word_start)
{
    int s = pos, k = 0;
    while (s > 0 && (isalnum((unsigned char)line[s - 1]) || line[s - 1] == '_'))
        s--;
    *word_start = s;
    char prefix[PLAY_NAME_MAX];
    size_t plen = (size_t)(pos - s) < sizeof prefix - 1 ? (size_t)(pos - s) : sizeof prefix - 1;
    memcpy(prefix, line + s, plen);
    prefix[plen] = 0;
    if (s > 0 && line[s - 1] == '.') {
        int ws = s - 1;
        while (ws > 0 && (isalnum((unsigned char)line[ws - 1]) || line[ws - 1] == '_'))
            ws--;
        int is_torch =
            s - 1 - ws == 5 && !strncmp(line + ws, "torch", 5) && (ws == 0 || line[ws - 1] != '.');
        const char *(*names)(int) = is_torch ? play_torch_name : play_member_name;
        for (int i = 0; names(i); i++)
            offer(out, max, &k, names(i), prefix, plen);
    } else {
        for (int i = 0; i < p->n; i++)
            offer(out, max, &k, p->vars[i].name, prefix, plen);
        offer(out, max, &k, "torch", prefix, plen);
    }
    qsort(out, (size_t)k, sizeof *out, cmp_names);
    return k;
}

const char *play_error_kind(const PlayResult *r)
{
    static const struct {
        const char *words, *kind;
    } kinds[] = {
        {"is not in the playground yet", "NotImplementedError"},
        {"cannot unpack non-iterable", "TypeError"},
        {"values to unpack", "ValueError"},
        {"has no attribute", "AttributeError"},
        {"too many indices", "IndexError"},
        {"out of bounds", "IndexError"},
        {"index out of range", "IndexError"},
        {"Dimension out of range", "IndexError"},
        {"object is not", "TypeError"},
        {"does not support item assignment", "TypeError"},
        {"can't assign", "TypeError"},
        {"argument", "TypeError"},
        {"unsupported operand", "TypeError"},
        {"bad operand", "TypeError"},
        {"expected a tuple", "TypeError"},
        {"must be an integer", "TypeError"},
    };
    if (r->error_col >= 0) return "SyntaxError";
    if (!strncmp(r->error, "name '", 6) && strstr(r->error, "' is not defined")) return "NameError";
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strstr(r->error, kinds[i].words)) return kinds[i].kind;
    return "RuntimeError";
}
