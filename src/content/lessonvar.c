/* lessonvar.c - {expressions} in lesson text, filled in from the engine.
 *
 * Every number a lesson shows comes through here: from the run of the page's
 * configuration (shapes, strides, offsets, bytes copied, error texts the
 * engine gives) or from assets/models.presets (real model sizes).  The list of
 * expressions is in lessons/README.md; keep the two in step.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/kv.h"
#include "content/lesson.h"

typedef struct Out {
    char *buf;
    size_t n, len;
} Out;

static void put(Out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(Out *o, const char *fmt, ...)
{
    if (o->len + 1 >= o->n) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o->buf + o->len, o->n - o->len, fmt, ap);
    va_end(ap);
    if (k > 0) o->len += (size_t)k < o->n - o->len ? (size_t)k : o->n - o->len - 1;
}

static const char *const expr_names[] = {
    "batch",      "seq",        "d_model",     "heads",    "kv_heads", "d_head",  "groups",
    "seed",       "causal",     "sqrt_d_head", "scale",    "shape",    "strides", "offset",
    "offsetcalc", "contiguous", "storage",     "numel",    "bytes",    "value",   "ndim",
    "code",       "copied",     "kvhead",      "groupmap", "tilemap",  "error",   "preset",
    "kv",         "kvctx",      "ratio",       "kvtoy",    "word",     "words",   "cols",
    "row",        "noscalerow", "sliceproof",  "wrongrow",
};
#define N_EXPR ((int)(sizeof expr_names / sizeof *expr_names))

/* The tensor named a[1]; NULL with err set. */
static const Tensor *tensor_arg(const Mha *m, int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 2) {
        snprintf(err, errlen, "{%s} needs a tensor name, e.g. {%s Q_heads}", argv[0], argv[0]);
        return NULL;
    }
    int t = mha_tensor_index(argv[1]);
    if (t < 0) {
        const char *s = lesson_suggest(argv[1], mha_tensor_names, MT_COUNT);
        snprintf(err, errlen, "unknown tensor '%.40s' in {%s}%s%s%s", argv[1], argv[0],
                 s ? " (did you mean '" : " (names as in mhaviz export)", s ? s : "",
                 s ? "'?)" : "");
        return NULL;
    }
    return m->t[t];
}

/* "i,j,k" -> idx, checked against t's shape; -1 with err set. */
static int index_arg(const Tensor *t, const char *name, const char *s, int *idx, char *err,
                     size_t errlen)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || n == TENSOR_MAXDIM) {
            snprintf(err, errlen, "bad index '%.40s' (expected numbers like 0,1,2,3)", s);
            return -1;
        }
        idx[n++] = (int)v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p) {
            snprintf(err, errlen, "bad index '%.40s' (expected numbers like 0,1,2,3)", s);
            return -1;
        }
    }
    char dims[64];
    tensor_fmt_dims(dims, sizeof dims, t->ndim, t->shape);
    if (n != t->ndim) {
        snprintf(err, errlen, "index '%s' has %d numbers; %s has %d dimensions %s", s, n, name,
                 t->ndim, dims);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= t->shape[i]) {
            snprintf(err, errlen, "index '%s' is outside %s %s", s, name, dims);
            return -1;
        }
    return 0;
}

static int step_arg(const char *s, char *err, size_t errlen)
{
    int k = mha_step_index(s);
    if (k < 0) snprintf(err, errlen, "unknown step '%.40s'", s);
    return k;
}

static const Preset *preset_arg(const PresetList *p, const char *s, char *err, size_t errlen)
{
    const Preset *r = p ? presets_find(p, s) : NULL;
    if (!r) {
        const char *names[64];
        int n = 0;
        for (int i = 0; p && i < p->n && n < 64; i++)
            names[n++] = p->v[i].name;
        const char *sug = lesson_suggest(s, names, n);
        snprintf(err, errlen, "unknown preset '%.40s'%s%s%s", s,
                 sug ? " (did you mean '" : " (see mhaviz kv --list)", sug ? sug : "",
                 sug ? "'?)" : "");
    }
    return r;
}

/* "q0 q1 -> kv0, q2 q3 -> kv1": which kv head each query head reads, grouped
 * (tile = 0, Llama's repeat_kv / repeat_interleave) or the wrong tiled order
 * (tile = 1, what .repeat() gives: head h reads kv h % kv_heads). */
static void group_map(Out *o, const Mha *m, int tile)
{
    const MhaConfig *c = &m->cfg;
    for (int kv = 0; kv < c->kv_heads; kv++) {
        if (kv) put(o, ", ");
        for (int h = 0; h < c->heads; h++) {
            int reads = tile ? h % c->kv_heads : mha_kv_head_of(c, h);
            if (reads == kv) put(o, "q%d ", h);
        }
        put(o, "-> kv%d", kv);
    }
}

/* The last-dim values of t at the leading index s ("0,1,2" for a 4-D t),
 * with their sum: "0.21 0.3 0.2 0.29 (sum 1)". */
static int row_of(Out *o, const Tensor *t, const char *name, const char *s, char *err,
                  size_t errlen)
{
    char full[80];
    snprintf(full, sizeof full, "%s,0", s);
    int idx[TENSOR_MAXDIM];
    if (index_arg(t, name, full, idx, err, errlen)) return -1;
    int n = t->shape[t->ndim - 1];
    double v[64], sum = 0;
    if (n > 64) {
        snprintf(err, errlen, "{row}: rows longer than 64 are not shown");
        return -1;
    }
    for (int k = 0; k < n; k++) {
        idx[t->ndim - 1] = k;
        v[k] = tensor_get(t, idx);
    }
    for (int k = 0; k < n; k++) {
        put(o, "%s%.2f", k ? " " : "", v[k]);
        sum += v[k];
    }
    put(o, " (sum %.3g)", sum);
    return 0;
}

static int eval(Out *o, int argc, char **argv, const Mha *m, const PresetList *presets, char *err,
                size_t errlen)
{
    const MhaConfig *c = &m->cfg;
    const char *f = argv[0];
    char buf[160];
    if (argc == 1) {
        if (!strcmp(f, "batch")) return put(o, "%d", c->batch), 0;
        if (!strcmp(f, "seq")) return put(o, "%d", c->seq), 0;
        if (!strcmp(f, "d_model")) return put(o, "%d", c->d_model), 0;
        if (!strcmp(f, "heads")) return put(o, "%d", c->heads), 0;
        if (!strcmp(f, "kv_heads")) return put(o, "%d", c->kv_heads), 0;
        if (!strcmp(f, "d_head")) return put(o, "%d", m->d_head), 0;
        if (!strcmp(f, "groups")) return put(o, "%d", m->groups), 0;
        if (!strcmp(f, "seed")) return put(o, "%u", (unsigned)c->seed), 0;
        if (!strcmp(f, "causal")) return put(o, "%s", c->causal ? "on" : "off"), 0;
        if (!strcmp(f, "sqrt_d_head")) return put(o, "%.4g", 1.0 / m->scale), 0;
        if (!strcmp(f, "scale")) return put(o, "%.4g", (double)m->scale), 0;
        if (!strcmp(f, "groupmap")) return group_map(o, m, 0), 0;
        if (!strcmp(f, "tilemap")) return group_map(o, m, 1), 0;
    }
    if (!strcmp(f, "kvtoy") && argc <= 2) {
        /* One layer of the toy config, float32: 2 (K, V) x kv_heads x d_head x 4 bytes. */
        int kvh = argc == 2 && !strcmp(argv[1], "mha")   ? c->heads
                  : argc == 2 && !strcmp(argv[1], "mqa") ? 1
                                                         : c->kv_heads;
        if (argc == 2 && strcmp(argv[1], "mha") && strcmp(argv[1], "mqa")) {
            snprintf(err, errlen, "{kvtoy} takes nothing, 'mha' or 'mqa'");
            return -1;
        }
        uint64_t bytes;
        if (kv_bytes_per_token(1, kvh, m->d_head, 32, &bytes)) {
            snprintf(err, errlen, "{kvtoy}: overflow");
            return -1;
        }
        return put(o, "%llu", (unsigned long long)bytes), 0;
    }
    if (!strcmp(f, "shape") || !strcmp(f, "strides") || !strcmp(f, "contiguous") ||
        !strcmp(f, "storage") || !strcmp(f, "numel") || !strcmp(f, "bytes") || !strcmp(f, "ndim")) {
        const Tensor *t = tensor_arg(m, argc, argv, err, errlen);
        if (!t) return -1;
        if (argc != 2) {
            snprintf(err, errlen, "{%s} takes one tensor name", f);
            return -1;
        }
        if (!strcmp(f, "shape"))
            put(o, "%s", tensor_fmt_dims(buf, sizeof buf, t->ndim, t->shape));
        else if (!strcmp(f, "strides"))
            put(o, "%s", tensor_fmt_strides(buf, sizeof buf, t));
        else if (!strcmp(f, "contiguous"))
            put(o, "%s", tensor_is_contiguous(t) ? "contiguous" : "not contiguous");
        else if (!strcmp(f, "storage"))
            put(o, "S%d", t->st->id);
        else if (!strcmp(f, "numel"))
            put(o, "%zu", tensor_numel(t));
        else if (!strcmp(f, "bytes"))
            put(o, "%zu", tensor_numel(t) * sizeof(float));
        else
            put(o, "%d", t->ndim);
        return 0;
    }
    if (!strcmp(f, "offset") || !strcmp(f, "offsetcalc") || !strcmp(f, "value")) {
        const Tensor *t = tensor_arg(m, argc, argv, err, errlen);
        if (!t) return -1;
        int idx[TENSOR_MAXDIM];
        if (argc != 3) {
            snprintf(err, errlen, "{%s} takes a tensor and an index, e.g. {%s Q_heads 0,1,2,3}", f,
                     f);
            return -1;
        }
        if (index_arg(t, argv[1], argv[2], idx, err, errlen)) return -1;
        if (!strcmp(f, "offset"))
            put(o, "%zu", tensor_offset_of(t, idx));
        else if (!strcmp(f, "value"))
            put(o, "%.4g", (double)tensor_get(t, idx));
        else {
            /* "0 + 1*32 + 2*4 + 3*1 = 43": the stride arithmetic written out. */
            put(o, "%zu", t->offset);
            for (int i = 0; i < t->ndim; i++)
                put(o, " + %d*%ld", idx[i], t->strides[i]);
            put(o, " = %zu", tensor_offset_of(t, idx));
        }
        return 0;
    }
    if ((!strcmp(f, "code") || !strcmp(f, "copied")) && argc == 2) {
        if (!strcmp(f, "copied") && !strcmp(argv[1], "total"))
            return put(o, "%zu", m->bytes_copied_total), 0;
        int s = step_arg(argv[1], err, errlen);
        if (s < 0) return -1;
        if (!strcmp(f, "code"))
            put(o, "%s", m->steps[s].code);
        else
            put(o, "%zu", m->steps[s].bytes_copied);
        return 0;
    }
    if (!strcmp(f, "words") && argc == 1) {
        for (int i = 0; i < c->seq && i < 16; i++)
            put(o, "%s%s", i ? " " : "", mha_token_word(i));
        if (c->seq > 16) put(o, " ...");
        return 0;
    }
    if ((!strcmp(f, "cols") || !strcmp(f, "sliceproof")) && argc == 2) {
        int h = atoi(argv[1]);
        if (h < 0 || h >= c->heads) {
            snprintf(err, errlen, "{%s %s}: query heads are 0..%d", f, argv[1], c->heads - 1);
            return -1;
        }
        if (!strcmp(f, "cols")) return put(o, "%d:%d", h * m->d_head, (h + 1) * m->d_head), 0;
        /* Head h computed on its own by the engine, x @ W_Q[:, h*dh:(h+1)*dh]
         * (a narrowed view of W_Q), against the slice of the one big
         * projection: the largest difference. */
        int dh = m->d_head;
        Tensor *w = tensor_narrow(m->t[MT_W_Q], 1, h * dh, dh, err, errlen); /* (D, dh) view */
        Tensor *alone = w ? tensor_matmul(m->t[MT_X], w, err, errlen) : NULL; /* (B, S, dh) */
        tensor_free(w);
        if (!alone) return -1;
        const Tensor *q = m->t[MT_Q_SPLIT]; /* (B, S, H, dh) */
        double worst = 0;
        int count = 0;
        for (int b = 0; b < c->batch; b++)
            for (int si = 0; si < c->seq; si++)
                for (int d = 0; d < dh; d++) {
                    int ia[3] = {b, si, d}, iq[4] = {b, si, h, d};
                    double diff = fabs((double)tensor_get(alone, ia) - tensor_get(q, iq));
                    if (diff > worst) worst = diff;
                    count++;
                }
        tensor_free(alone);
        return put(o, "%.2g over %d numbers", worst < 1e-5 ? 0.0 : worst, count), 0;
    }
    if ((!strcmp(f, "row") || !strcmp(f, "noscalerow")) && argc >= 2) {
        int unscale = !strcmp(f, "noscalerow");
        if (unscale) {
            if (argc != 2) {
                snprintf(err, errlen, "{noscalerow b,h,s}: one index");
                return -1;
            }
            return row_of(o, m->t[MT_ATTN_NOSCALE], "attn_noscale", argv[1], err, errlen);
        }
        const Tensor *t = tensor_arg(m, argc, argv, err, errlen);
        if (!t) return -1;
        if (argc != 3) {
            snprintf(err, errlen, "{row T i,j,k}: a tensor and the index of the row");
            return -1;
        }
        return row_of(o, t, argv[1], argv[2], err, errlen);
    }
    if (!strcmp(f, "wrongrow") && argc == 3) {
        /* Q.view(B, H, S, dh) without the transpose: which token's features
         * "head h, token s" really holds. */
        int h = atoi(argv[1]), si = atoi(argv[2]);
        if (h < 0 || h >= c->heads || si < 0 || si >= c->seq) {
            snprintf(err, errlen, "{wrongrow h s}: h in 0..%d, s in 0..%d", c->heads - 1,
                     c->seq - 1);
            return -1;
        }
        int idx[4] = {0, h, si, 0};
        size_t off = tensor_offset_of(m->t[MT_Q_WRONG], idx) - m->t[MT_Q]->offset;
        int tok = (int)(off / (size_t)c->d_model), feat = (int)(off % (size_t)c->d_model);
        return put(o, "features %d..%d of token %d '%s' (its head %d)", feat, feat + m->d_head - 1,
                   tok, mha_token_word(tok), feat / m->d_head),
               0;
    }
    if (!strcmp(f, "kvhead") && argc == 2) {
        int h = atoi(argv[1]);
        if (h < 0 || h >= c->heads) {
            snprintf(err, errlen, "{kvhead %s}: query heads are 0..%d", argv[1], c->heads - 1);
            return -1;
        }
        return put(o, "%d", mha_kv_head_of(c, h)), 0;
    }
    if (!strcmp(f, "word") && argc == 2) {
        int s = atoi(argv[1]);
        if (s < 0 || s >= c->seq) {
            snprintf(err, errlen, "{word %s}: tokens are 0..%d", argv[1], c->seq - 1);
            return -1;
        }
        return put(o, "%s", mha_token_word(s)), 0;
    }
    if (!strcmp(f, "error") && argc >= 2) {
        if (!strcmp(argv[1], "view") && (argc == 3 || argc == 4)) {
            /* The engine's own refusal: view T as the given shape. */
            const Tensor *t = tensor_arg(m, 3, argv + 1, err, errlen);
            if (!t) return -1;
            int shape[TENSOR_MAXDIM] = {c->batch, c->seq, c->d_model}, n = argc == 3 ? 3 : 0;
            for (char *p = argc == 4 ? argv[3] : ""; *p && n < TENSOR_MAXDIM;) {
                char *end;
                shape[n++] = (int)strtol(p, &end, 10);
                if (end == p) break;
                p = *end == ',' ? end + 1 : end;
            }
            char e[300] = "";
            Tensor *v = tensor_view(t, n, shape, e, sizeof e);
            if (v) {
                tensor_free(v);
                snprintf(err, errlen,
                         "{error view %s}: the engine allows this view; no error to show", argv[2]);
                return -1;
            }
            return put(o, "%s", e), 0;
        }
        if (!strcmp(argv[1], "config") && argc >= 3) {
            MhaConfig k = *c;
            int kv_set = 0;
            for (int i = 2; i < argc; i++) {
                char *eq = strchr(argv[i], '=');
                if (!eq) {
                    snprintf(err, errlen, "{error config}: expected key=value, got '%.40s'",
                             argv[i]);
                    return -1;
                }
                *eq = 0;
                long v = atol(eq + 1);
                if (!strcmp(argv[i], "d_model"))
                    k.d_model = (int)v;
                else if (!strcmp(argv[i], "heads"))
                    k.heads = (int)v;
                else if (!strcmp(argv[i], "kv_heads"))
                    k.kv_heads = (int)v, kv_set = 1;
                else if (!strcmp(argv[i], "seq"))
                    k.seq = (int)v;
                else if (!strcmp(argv[i], "batch"))
                    k.batch = (int)v;
                else {
                    snprintf(err, errlen, "{error config}: unknown key '%.40s'", argv[i]);
                    return -1;
                }
            }
            if (!kv_set && c->kv_heads == c->heads) k.kv_heads = k.heads;
            char e[300];
            if (mha_config_check(&k, e, sizeof e) == 0) {
                snprintf(err, errlen,
                         "{error config ...}: that configuration is valid; no error to show");
                return -1;
            }
            return put(o, "%s", e), 0;
        }
        snprintf(err, errlen, "{error} takes 'view TENSOR d0,d1,...' or 'config key=value ...'");
        return -1;
    }
    if (!strcmp(f, "preset") && argc == 3) {
        const Preset *p = preset_arg(presets, argv[1], err, errlen);
        if (!p) return -1;
        const char *k = argv[2];
        if (!strcmp(k, "title")) return put(o, "%s", p->title), 0;
        long v = !strcmp(k, "layers")     ? p->layers
                 : !strcmp(k, "heads")    ? p->heads
                 : !strcmp(k, "kv_heads") ? p->kv_heads
                 : !strcmp(k, "d_head")   ? p->d_head
                 : !strcmp(k, "d_model")  ? p->d_model
                 : !strcmp(k, "context")  ? p->context
                                          : -1;
        if (v < 0) {
            snprintf(
                err, errlen,
                "{preset %s %.20s}: fields are title layers heads kv_heads d_head d_model context",
                argv[1], k);
            return -1;
        }
        return put(o, "%ld", v), 0;
    }
    if (!strcmp(f, "ratio") && argc == 2) {
        const Preset *p = preset_arg(presets, argv[1], err, errlen);
        if (!p) return -1;
        return put(o, "%ld", p->heads / p->kv_heads), 0;
    }
    if ((!strcmp(f, "kv") || !strcmp(f, "kvctx")) && (argc == 3 || argc == 4)) {
        const Preset *p = preset_arg(presets, argv[1], err, errlen);
        if (!p) return -1;
        const KvDtype *d = kv_dtype(argv[2]);
        if (!d) {
            snprintf(err, errlen, "{%s}: unknown dtype '%.20s' (fp32 fp16 bf16 fp8 int4)", f,
                     argv[2]);
            return -1;
        }
        long kvh = p->kv_heads, ctx = p->context ? p->context : 4096;
        if (argc == 4) {
            if (!strcmp(f, "kv") && !strcmp(argv[3], "mha"))
                kvh = p->heads;
            else if (!strcmp(f, "kv") && !strcmp(argv[3], "mqa"))
                kvh = 1;
            else if (!strcmp(f, "kvctx") && atol(argv[3]) > 0)
                ctx = atol(argv[3]);
            else {
                snprintf(err, errlen, "{%s}: last argument must be %s", f,
                         !strcmp(f, "kv") ? "mha or mqa" : "a context length");
                return -1;
            }
        }
        uint64_t per = 0, tot = 0;
        if (kv_bytes_per_token(p->layers, kvh, p->d_head, d->bits, &per) ||
            kv_bytes_total(per, ctx, 1, &tot)) {
            snprintf(err, errlen, "{%s}: overflow", f);
            return -1;
        }
        if (!strcmp(f, "kv"))
            put(o, "%s", kv_fmt_int(buf, sizeof buf, per));
        else
            put(o, "%s", kv_fmt_size(buf, sizeof buf, tot));
        return 0;
    }
    for (int i = 0; i < N_EXPR; i++)
        if (!strcmp(f, expr_names[i])) {
            snprintf(err, errlen, "{%s}: wrong arguments (see lessons/README.md)", f);
            return -1;
        }
    const char *s = lesson_suggest(f, expr_names, N_EXPR);
    snprintf(err, errlen, "unknown expression '{%.40s}'%s%s%s", f,
             s ? " (did you mean '{" : " (see lessons/README.md)", s ? s : "", s ? "}'?)" : "");
    return -1;
}

int lesson_expand(const char *text, const Mha *m, const PresetList *presets, char *out, size_t n,
                  char *err, size_t errlen)
{
    Out o = {out, n, 0};
    if (n) out[0] = 0;
    for (const char *s = text; *s;) {
        if (s[0] == '{' && s[1] == '{') {
            put(&o, "{");
            s += 2;
            continue;
        }
        if (s[0] == '}' && s[1] == '}') {
            put(&o, "}");
            s += 2;
            continue;
        }
        if (s[0] == '}') {
            snprintf(err, errlen, "a '}' with no '{' (write '}}' for a literal brace)");
            return -1;
        }
        if (s[0] != '{') {
            const char *e = strpbrk(s, "{}");
            size_t k = e ? (size_t)(e - s) : strlen(s);
            put(&o, "%.*s", (int)k, s);
            s += k;
            continue;
        }
        const char *close = strchr(s, '}');
        const char *open2 = strchr(s + 1, '{');
        if (!close || (open2 && open2 < close)) {
            snprintf(err, errlen, "'{' is not closed (write '{{' for a literal brace)");
            return -1;
        }
        char expr[200];
        size_t k = (size_t)(close - s - 1);
        if (k >= sizeof expr) {
            snprintf(err, errlen, "expression longer than %zu bytes", sizeof expr - 1);
            return -1;
        }
        memcpy(expr, s + 1, k);
        expr[k] = 0;
        char *argv[12], *save = NULL;
        int argc = 0;
        /* a line break inside the braces (a code block keeps them) is a space */
        for (char *t = strtok_r(expr, " \t\r\n", &save); t && argc < 12;
             t = strtok_r(NULL, " \t\r\n", &save))
            argv[argc++] = t;
        if (argc == 0) {
            snprintf(err, errlen, "empty expression '{}'");
            return -1;
        }
        if (eval(&o, argc, argv, m, presets, err, errlen) != 0) return -1;
        s = close + 1;
    }
    if (o.len + 1 >= n && n > 0) {
        snprintf(err, errlen, "expanded text is longer than %zu bytes", n - 1);
        return -1;
    }
    return 0;
}
