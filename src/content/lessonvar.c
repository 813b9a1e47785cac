/* lessonvar.c - {expressions} in lesson text, filled in from the engine.
 *
 * Every number a lesson shows comes through here: from the run of the page's
 * configuration (shapes, strides, offsets, bytes copied, error texts the
 * engine gives) or from assets/models.presets (real model sizes, in
 * lessonvar_models.c).  The list of expressions is in lessons/README.md; keep
 * the two in step.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/textutil.h"
#include "content/config_kv.h"
#include "content/kv.h"
#include "content/lesson.h"
#include "content/lessonvar.h"

/* The tensor named a[1]; NULL with err set. */
static const Tensor *tensor_arg(const Mha *m, int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 2) {
        snprintf(err, errlen, "{%s} needs a tensor name, e.g. {%s Q_heads}", argv[0], argv[0]);
        return NULL;
    }
    int t = mha_tensor_index(argv[1]);
    if (t < 0) {
        const char *s = text_suggest(argv[1], mha_tensor_names, MT_COUNT);
        snprintf(err, errlen, "unknown tensor '%.40s' in {%s}%s%s%s", argv[1], argv[0],
                 s ? " (did you mean '" : " (names as in mhaviz export)", s ? s : "",
                 s ? "'?)" : "");
        return NULL;
    }
    if (!m->t[t]) /* Q_rope, K_rope: made only when the run rotates */
        snprintf(err, errlen,
                 "tensor '%s' in {%s} is not in this run (it needs @config rope=half "
                 "or rope=interleaved)",
                 mha_tensor_names[t], argv[0]);
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

/* A step of this run: "rope" only with RoPE on (its steps[] entry is empty
 * otherwise); -1 with err set. */
static int step_arg(const MhaConfig *c, const char *s, char *err, size_t errlen)
{
    int k = mha_step_index(s);
    if (k < 0)
        snprintf(err, errlen, "unknown step '%.40s'", s);
    else if (!mha_step_on(c, k))
        snprintf(err, errlen, "step '%.40s' is not in this run (RoPE is off: @config rope=half)",
                 s);
    return mha_step_on(c, k) ? k : -1;
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

/* {batch} {seq} ... {scale}: the configuration and what the run derived from it. */
static int ex_config(Eval *e, int argc, char **argv)
{
    const char *f = argv[0];
    const MhaConfig *c = e->c;
    if (argc != 1) return WRONG_ARGS;
    if (!strcmp(f, "batch"))
        put(e->o, "%d", c->batch);
    else if (!strcmp(f, "seq"))
        put(e->o, "%d", c->seq);
    else if (!strcmp(f, "d_model"))
        put(e->o, "%d", c->d_model);
    else if (!strcmp(f, "heads"))
        put(e->o, "%d", c->heads);
    else if (!strcmp(f, "kv_heads"))
        put(e->o, "%d", c->kv_heads);
    else if (!strcmp(f, "d_head"))
        put(e->o, "%d", e->m->d_head);
    else if (!strcmp(f, "groups"))
        put(e->o, "%d", e->m->groups);
    else if (!strcmp(f, "batch_heads")) /* B*H: the batch of view(B*H, S, dh) */
        put(e->o, "%d", c->batch * c->heads);
    else if (!strcmp(f, "seed"))
        put(e->o, "%u", (unsigned)c->seed);
    else if (!strcmp(f, "causal"))
        put(e->o, "%s", c->causal ? "on" : "off");
    else if (!strcmp(f, "sqrt_d_head"))
        put(e->o, "%.4g", 1.0 / e->m->scale);
    else
        put(e->o, "%.4g", (double)e->m->scale); /* scale */
    return 0;
}

/* {groupmap} {tilemap} */
static int ex_groupmap(Eval *e, int argc, char **argv)
{
    if (argc != 1) return WRONG_ARGS;
    group_map(e->o, e->m, !strcmp(argv[0], "tilemap"));
    return 0;
}

/* {kvtoy [mha|mqa]}: one layer of the toy config, float32: 2 (K, V) x kv_heads x d_head x 4 bytes.
 */
static int ex_kvtoy(Eval *e, int argc, char **argv)
{
    if (argc > 2) return WRONG_ARGS;
    if (argc == 2 && strcmp(argv[1], "mha") && strcmp(argv[1], "mqa")) {
        snprintf(e->err, e->errlen, "{kvtoy} takes nothing, 'mha' or 'mqa'");
        return -1;
    }
    int kvh = argc == 1 ? e->c->kv_heads : !strcmp(argv[1], "mha") ? e->c->heads : 1;
    uint64_t bytes;
    if (kv_bytes_per_token(1, kvh, e->m->d_head, 32, &bytes)) {
        snprintf(e->err, e->errlen, "{kvtoy}: overflow");
        return -1;
    }
    put(e->o, "%llu", (unsigned long long)bytes);
    return 0;
}

/* {shape T} {strides T} {contiguous T} {storage T} {numel T} {bytes T} {ndim T} */
static int ex_tensor_fact(Eval *e, int argc, char **argv)
{
    const char *f = argv[0];
    char buf[160];
    const Tensor *t = tensor_arg(e->m, argc, argv, e->err, e->errlen);
    if (!t) return -1;
    if (argc != 2) {
        snprintf(e->err, e->errlen, "{%s} takes one tensor name", f);
        return -1;
    }
    if (!strcmp(f, "shape"))
        put(e->o, "%s", tensor_fmt_dims(buf, sizeof buf, t->ndim, t->shape));
    else if (!strcmp(f, "strides"))
        put(e->o, "%s", tensor_fmt_strides(buf, sizeof buf, t));
    else if (!strcmp(f, "contiguous"))
        put(e->o, "%s", tensor_is_contiguous(t) ? "contiguous" : "not contiguous");
    else if (!strcmp(f, "storage"))
        put(e->o, "S%d", t->st->id);
    else if (!strcmp(f, "numel"))
        put(e->o, "%zu", tensor_numel(t));
    else if (!strcmp(f, "bytes"))
        put(e->o, "%zu", tensor_numel(t) * sizeof(float));
    else
        put(e->o, "%d", t->ndim); /* ndim */
    return 0;
}

/* {offset T i,j,k} {offsetcalc T i,j,k} {value T i,j,k} */
static int ex_element(Eval *e, int argc, char **argv)
{
    const char *f = argv[0];
    const Tensor *t = tensor_arg(e->m, argc, argv, e->err, e->errlen);
    if (!t) return -1;
    int idx[TENSOR_MAXDIM];
    if (argc != 3) {
        snprintf(e->err, e->errlen, "{%s} takes a tensor and an index, e.g. {%s Q_heads 0,1,2,3}",
                 f, f);
        return -1;
    }
    if (index_arg(t, argv[1], argv[2], idx, e->err, e->errlen)) return -1;
    if (!strcmp(f, "offset")) {
        put(e->o, "%zu", tensor_offset_of(t, idx));
    } else if (!strcmp(f, "value")) {
        put(e->o, "%.4g", (double)tensor_get(t, idx));
    } else { /* "0 + 1*32 + 2*4 + 3*1 = 43": the stride arithmetic written out */
        put(e->o, "%zu", t->offset);
        for (int i = 0; i < t->ndim; i++)
            put(e->o, " + %d*%ld", idx[i], t->strides[i]);
        put(e->o, " = %zu", tensor_offset_of(t, idx));
    }
    return 0;
}

/* {code STEP} {copied STEP} {copied total} */
static int ex_step(Eval *e, int argc, char **argv)
{
    if (argc != 2) return WRONG_ARGS;
    if (!strcmp(argv[0], "copied") && !strcmp(argv[1], "total")) {
        put(e->o, "%zu", e->m->bytes_copied_total);
        return 0;
    }
    int s = step_arg(e->c, argv[1], e->err, e->errlen);
    if (s < 0) return -1;
    if (!strcmp(argv[0], "code"))
        put(e->o, "%s", e->m->steps[s].code);
    else
        put(e->o, "%zu", e->m->steps[s].bytes_copied);
    return 0;
}

/* {words}: the token words of the run, the first 16 */
static int ex_words(Eval *e, int argc, char **argv)
{
    (void)argv;
    if (argc != 1) return WRONG_ARGS;
    for (int i = 0; i < e->c->seq && i < 16; i++)
        put(e->o, "%s%s", i ? " " : "", mha_token_word(i));
    if (e->c->seq > 16) put(e->o, " ...");
    return 0;
}

/* A query head number: {cols h}, {sliceproof h}, {kvhead h}. */
static int head_arg(Eval *e, int argc, char **argv, long *h)
{
    if (argc != 2) return WRONG_ARGS;
    if (int_arg(e, argv[0], argv[1], 0, e->c->heads - 1, h)) {
        snprintf(e->err, e->errlen, "{%s %.40s}: query heads are 0..%d", argv[0], argv[1],
                 e->c->heads - 1);
        return -1;
    }
    return 0;
}

/* {cols h}: the columns of Q that are head h, "4:8" */
static int ex_cols(Eval *e, int argc, char **argv)
{
    long h;
    int r = head_arg(e, argc, argv, &h);
    if (r) return r;
    put(e->o, "%ld:%ld", h * e->m->d_head, (h + 1) * e->m->d_head);
    return 0;
}

/* {sliceproof h}: head h computed on its own by the engine, x @ W_Q[:, h*dh:(h+1)*dh]
 * (a narrowed view of W_Q), against the slice of the one big projection: the
 * largest difference. */
static int ex_sliceproof(Eval *e, int argc, char **argv)
{
    long h;
    int r = head_arg(e, argc, argv, &h);
    if (r) return r;
    const Mha *m = e->m;
    int dh = m->d_head;
    Tensor *w = tensor_narrow(m->t[MT_W_Q], 1, (int)h * dh, dh, e->err, e->errlen); /* (D, dh) */
    Tensor *alone = w ? tensor_matmul(m->t[MT_X], w, e->err, e->errlen) : NULL;     /* (B, S, dh) */
    tensor_free(w);
    if (!alone) return -1;
    const Tensor *q = m->t[MT_Q_SPLIT]; /* (B, S, H, dh) */
    double worst = 0;
    int count = 0;
    for (int b = 0; b < e->c->batch; b++)
        for (int si = 0; si < e->c->seq; si++)
            for (int d = 0; d < dh; d++) {
                int ia[3] = {b, si, d}, iq[4] = {b, si, (int)h, d};
                double diff = fabs((double)tensor_get(alone, ia) - tensor_get(q, iq));
                if (diff > worst) worst = diff;
                count++;
            }
    tensor_free(alone);
    put(e->o, "%.2g over %d numbers", worst < 1e-5 ? 0.0 : worst, count);
    return 0;
}

/* {kvhead h}: the kv head query head h reads */
static int ex_kvhead(Eval *e, int argc, char **argv)
{
    long h;
    int r = head_arg(e, argc, argv, &h);
    if (r) return r;
    put(e->o, "%d", mha_kv_head_of(e->c, (int)h));
    return 0;
}

/* {word s}: token s's word */
static int ex_word(Eval *e, int argc, char **argv)
{
    long s;
    if (argc != 2) return WRONG_ARGS;
    if (int_arg(e, argv[0], argv[1], 0, e->c->seq - 1, &s)) {
        snprintf(e->err, e->errlen, "{word %.40s}: tokens are 0..%d", argv[1], e->c->seq - 1);
        return -1;
    }
    put(e->o, "%s", mha_token_word((int)s));
    return 0;
}

/* {row T i,j,k}: a row of T with its sum; {noscalerow b,h,s}: a row of the
 * softmax of the unscaled scores (the missing-scale bug) */
static int ex_row(Eval *e, int argc, char **argv)
{
    if (!strcmp(argv[0], "noscalerow")) {
        if (argc != 2) {
            snprintf(e->err, e->errlen, "{noscalerow b,h,s}: one index");
            return -1;
        }
        return row_of(e->o, e->m->t[MT_ATTN_NOSCALE], "attn_noscale", argv[1], e->err, e->errlen);
    }
    if (argc < 2) return WRONG_ARGS;
    const Tensor *t = tensor_arg(e->m, argc, argv, e->err, e->errlen);
    if (!t) return -1;
    if (argc != 3) {
        snprintf(e->err, e->errlen, "{row T i,j,k}: a tensor and the index of the row");
        return -1;
    }
    return row_of(e->o, t, argv[1], argv[2], e->err, e->errlen);
}

/* {wrongrow h s}: Q.view(B, H, S, dh) without the transpose: which token's
 * features "head h, token s" really holds. */
static int ex_wrongrow(Eval *e, int argc, char **argv)
{
    const MhaConfig *c = e->c;
    long h, si;
    if (argc != 3) return WRONG_ARGS;
    if (int_arg(e, argv[0], argv[1], 0, c->heads - 1, &h) ||
        int_arg(e, argv[0], argv[2], 0, c->seq - 1, &si)) {
        snprintf(e->err, e->errlen, "{wrongrow h s}: h in 0..%d, s in 0..%d", c->heads - 1,
                 c->seq - 1);
        return -1;
    }
    int idx[4] = {0, (int)h, (int)si, 0};
    size_t off = tensor_offset_of(e->m->t[MT_Q_WRONG], idx) - e->m->t[MT_Q]->offset;
    int tok = (int)(off / (size_t)c->d_model), feat = (int)(off % (size_t)c->d_model);
    put(e->o, "features %d..%d of token %d '%s' (its head %d)", feat, feat + e->m->d_head - 1, tok,
        mha_token_word(tok), feat / e->m->d_head);
    return 0;
}

/* {error view T d0,d1,...}: the engine's own refusal to view T as that shape */
static int error_view(Eval *e, int argc, char **argv)
{
    const MhaConfig *c = e->c;
    const Tensor *t = tensor_arg(e->m, 3, argv + 1, e->err, e->errlen);
    if (!t) return -1;
    int shape[TENSOR_MAXDIM] = {c->batch, c->seq, c->d_model}, n = argc == 3 ? 3 : 0;
    for (char *p = argc == 4 ? argv[3] : ""; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 1 << 20 || n == TENSOR_MAXDIM || (*end && *end != ',')) {
            snprintf(e->err, e->errlen,
                     "{error view %.40s}: bad shape '%.40s' (numbers like 1,4,2,4)", argv[2],
                     argv[3]);
            return -1;
        }
        shape[n++] = (int)v;
        p = *end == ',' ? end + 1 : end;
    }
    char msg[300] = "";
    Tensor *v = tensor_view(t, n, shape, msg, sizeof msg);
    if (v) {
        tensor_free(v);
        snprintf(e->err, e->errlen,
                 "{error view %s}: the engine allows this view; no error to show", argv[2]);
        return -1;
    }
    put(e->o, "%s", msg);
    return 0;
}

/* {error config key=value ...}: the engine's refusal of that configuration */
static int error_config(Eval *e, int argc, char **argv)
{
    const MhaConfig *c = e->c;
    MhaConfig k = *c;
    int kv_set = 0;
    char why[300];
    for (int i = 2; i < argc; i++)
        if (config_kv_set(&k, argv[i], &kv_set, why, sizeof why) != 0) {
            snprintf(e->err, e->errlen, "{error config}: %s", why);
            return -1;
        }
    config_kv_finish(&k, c, kv_set);
    char msg[300];
    if (mha_config_check(&k, msg, sizeof msg) == 0) {
        snprintf(e->err, e->errlen,
                 "{error config ...}: that configuration is valid; no error to show");
        return -1;
    }
    put(e->o, "%s", msg);
    return 0;
}

/* {error view ...} or {error config ...} */
static int ex_error(Eval *e, int argc, char **argv)
{
    if (argc < 2) return WRONG_ARGS;
    if (!strcmp(argv[1], "view") && (argc == 3 || argc == 4)) return error_view(e, argc, argv);
    if (!strcmp(argv[1], "config") && argc >= 3) return error_config(e, argc, argv);
    snprintf(e->err, e->errlen, "{error} takes 'view TENSOR d0,d1,...' or 'config key=value ...'");
    return -1;
}

/* Every expression, by name (lessons/README.md lists them for authors). */
static const struct {
    const char *name;
    ExprFn fn;
} exprs[] = {
    {"batch", ex_config},
    {"seq", ex_config},
    {"d_model", ex_config},
    {"heads", ex_config},
    {"kv_heads", ex_config},
    {"d_head", ex_config},
    {"groups", ex_config},
    {"batch_heads", ex_config},
    {"seed", ex_config},
    {"causal", ex_config},
    {"sqrt_d_head", ex_config},
    {"scale", ex_config},
    {"shape", ex_tensor_fact},
    {"strides", ex_tensor_fact},
    {"contiguous", ex_tensor_fact},
    {"storage", ex_tensor_fact},
    {"numel", ex_tensor_fact},
    {"bytes", ex_tensor_fact},
    {"ndim", ex_tensor_fact},
    {"offset", ex_element},
    {"offsetcalc", ex_element},
    {"value", ex_element},
    {"code", ex_step},
    {"copied", ex_step},
    {"kvhead", ex_kvhead},
    {"groupmap", ex_groupmap},
    {"tilemap", ex_groupmap},
    {"error", ex_error},
    {"preset", lessonvar_preset},
    {"kv", lessonvar_kv},
    {"kvctx", lessonvar_kv},
    {"ratio", lessonvar_ratio},
    {"kvtoy", ex_kvtoy},
    {"word", ex_word},
    {"words", ex_words},
    {"cols", ex_cols},
    {"row", ex_row},
    {"noscalerow", ex_row},
    {"sliceproof", ex_sliceproof},
    {"wrongrow", ex_wrongrow},
    {"decode", lessonvar_decode},
    {"decodetoy", lessonvar_decodetoy},
    {"rope", lessonvar_rope},
    {"flash", lessonvar_flash},
    {"paged", lessonvar_paged},
    {"window", lessonvar_window},
    {"mla", lessonvar_mla},
};
#define N_EXPR ((int)(sizeof exprs / sizeof *exprs))

static int eval(Out *o, int argc, char **argv, const Mha *m, const PresetList *presets, char *err,
                size_t errlen)
{
    Eval e = {o, m, &m->cfg, presets, err, errlen};
    const char *names[N_EXPR];
    for (int i = 0; i < N_EXPR; i++) {
        names[i] = exprs[i].name;
        if (strcmp(argv[0], exprs[i].name)) continue;
        int r = exprs[i].fn(&e, argc, argv);
        if (r == WRONG_ARGS)
            snprintf(err, errlen, "{%s}: wrong arguments (see lessons/README.md)", argv[0]);
        return r ? -1 : 0;
    }
    const char *s = text_suggest(argv[0], names, N_EXPR);
    snprintf(err, errlen, "unknown expression '{%.40s}'%s%s%s", argv[0],
             s ? " (did you mean '{" : " (see lessons/README.md)", s ? s : "", s ? "}'?)" : "");
    return -1;
}

/* Adds "file:line: err" to errs. */
static void report(LessonErrors *errs, const char *file, int line, const char *err)
{
    char msg[sizeof errs->msg[0]];
    err_at(msg, sizeof msg, file, line, "%s", err);
    lesson_error_add(errs, msg);
}

/* lesson_expand; with errs, every expression that fails is reported there
 * (at file:line) and the others still expand: a brace out of place stops it. */
static int expand(const char *text, const Mha *m, const PresetList *presets, char *out, size_t n,
                  char *err, size_t errlen, const char *file, int line, LessonErrors *errs)
{
    Out o = {out, n, 0};
    int bad = 0;
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
            goto stop;
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
            goto stop;
        }
        char expr[200];
        size_t k = (size_t)(close - s - 1);
        s = close + 1;
        if (k >= sizeof expr)
            snprintf(err, errlen, "expression longer than %zu bytes", sizeof expr - 1);
        else {
            memcpy(expr, close - k, k);
            expr[k] = 0;
            char *argv[12], *save = NULL;
            int argc = 0;
            /* a line break inside the braces (a code block keeps them) is a space */
            for (char *t = strtok_r(expr, " \t\r\n", &save); t && argc < 12;
                 t = strtok_r(NULL, " \t\r\n", &save))
                argv[argc++] = t;
            if (argc == 0)
                snprintf(err, errlen, "empty expression '{}'");
            else if (eval(&o, argc, argv, m, presets, err, errlen) == 0)
                continue;
        }
        if (!errs) return -1;
        report(errs, file, line, err);
        bad++;
    }
    if (o.len + 1 >= n && n > 0) {
        snprintf(err, errlen, "expanded text is longer than %zu bytes", n - 1);
        goto stop;
    }
    return bad ? -1 : 0;
stop:
    if (errs) report(errs, file, line, err);
    return -1;
}

int lesson_expand(const char *text, const Mha *m, const PresetList *presets, char *out, size_t n,
                  char *err, size_t errlen)
{
    return expand(text, m, presets, out, n, err, errlen, NULL, 0, NULL);
}

int lesson_expand_errors(const char *text, const Mha *m, const PresetList *presets,
                         const char *file, int line, LessonErrors *errs)
{
    int before = errs->n + errs->dropped;
    char err[300], *out = malloc(LESSON_EXPANDED_MAX);
    if (!out) {
        report(errs, file, line, "out of memory");
        return 1;
    }
    expand(text, m, presets, out, LESSON_EXPANDED_MAX, err, sizeof err, file, line, errs);
    free(out);
    return errs->n + errs->dropped - before;
}
