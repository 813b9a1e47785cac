/* kv_cmd.c - `mhaviz kv`: KV-cache bytes of a model, MHA vs its own layout
 * vs MQA, printed from content/kv.c's arithmetic. */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/commands.h"
#include "content/kv.h"
#include "content/presets.h"

static const char kv_help[] =
    "usage: mhaviz kv --preset NAME [--context N] [--batch N] [--dtype D]\n"
    "       mhaviz kv --layers N --heads N --kv-heads N --d-head N [--context N] [--batch N] "
    "[--dtype D]\n"
    "       mhaviz kv --list\n"
    "KV-cache bytes for a model: MHA vs the model's own layout vs MQA.\n"
    "  --preset NAME   a model from --list; --layers/--heads/--kv-heads/--d-head override it\n"
    "  --context N     tokens cached per sequence (default: the model's context, else 4096)\n"
    "  --batch N       sequences (default 1)\n"
    "  --dtype D       fp32, fp16 (default), bf16, fp8 or int4\n";

/* One row per preset; the name and model columns are as wide as their
 * longest entry, so no title pushes its row out of line. */
static void print_list(const PresetList *p)
{
    int wn = (int)strlen("name"), wt = (int)strlen("model");
    for (int i = 0; i < p->n; i++) {
        int n = (int)strlen(p->v[i].name), t = (int)strlen(p->v[i].title);
        wn = n > wn ? n : wn;
        wt = t > wt ? t : wt;
    }
    printf("%-*s %-*s %6s %6s %8s %6s %7s\n", wn, "name", wt, "model", "layers", "heads",
           "kv_heads", "d_head", "kind");
    for (int i = 0; i < p->n; i++) {
        const Preset *m = &p->v[i];
        printf("%-*s %-*s %6ld %6ld %8ld %6ld %7s\n", wn, m->name, wt, m->title, m->layers,
               m->heads, m->kv_heads, m->d_head, presets_kind(m->heads, m->kv_heads));
    }
}

/* Bytes per element as text: "2", "0.5". */
static const char *elem_bytes(int bits)
{
    static char buf[16];
    if (bits % 8 == 0)
        snprintf(buf, sizeof buf, "%d", bits / 8);
    else
        snprintf(buf, sizeof buf, "%g", bits / 8.0);
    return buf;
}

/* What the command line asked for; 0 in a number means "not given". */
typedef struct KvArgs {
    const char *preset, *dtype;
    long layers, heads, kv_heads, d_head, context, batch;
    int list, help;
} KvArgs;

/* Parses argv into a.  0, or -1 with a one-line reason in err (usage). */
static int parse_args(int argc, char **argv, KvArgs *a, char *err, size_t errlen)
{
    static const struct {
        const char *flag;
        long max;
    } num[] = {
        {"--layers", 1000000}, {"--heads", 1000000},          {"--kv-heads", 1000000},
        {"--d-head", 1000000}, {"--context", KV_MAX_CONTEXT}, {"--batch", KV_MAX_BATCH},
    };
    long *dst[] = {&a->layers, &a->heads, &a->kv_heads, &a->d_head, &a->context, &a->batch};
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int r, k;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            a->help = 1;
            return 0;
        }
        if (!strcmp(argv[i], "--list")) {
            a->list = 1;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--preset", &val, err, errlen)) != 0) {
            if (r < 0) return -1;
            a->preset = val;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--dtype", &val, err, errlen)) != 0) {
            if (r < 0) return -1;
            a->dtype = val;
            continue;
        }
        for (k = 0; k < 6; k++) {
            r = cli_match(argc, argv, &i, num[k].flag, &val, err, errlen);
            if (r < 0) return -1;
            if (r > 0) {
                if (cli_long(num[k].flag, val, 1, num[k].max, dst[k], err, errlen) != 0) return -1;
                break;
            }
        }
        if (k == 6) {
            snprintf(err, errlen, "kv: unknown option '%s' (see mhaviz kv --help)", argv[i]);
            return -1;
        }
    }
    return 0;
}

/* The model the flags name: the preset's shape, each given number over it.
 * 0, or -1 with the reason in err (usage). */
static int resolve_model(const KvArgs *a, const Preset *p, KvModel *m, char *err, size_t errlen)
{
    *m = (KvModel){p ? p->layers : 0, p ? p->heads : 0, p ? p->kv_heads : 0, p ? p->d_head : 0};
    if (a->layers) m->layers = a->layers;
    if (a->heads) m->heads = a->heads;
    if (a->kv_heads)
        m->kv_heads = a->kv_heads;
    else if (!p)
        m->kv_heads = m->heads;
    if (a->d_head) m->d_head = a->d_head;
    const char *missing = !m->layers   ? "--layers"
                          : !m->heads  ? "--heads"
                          : !m->d_head ? "--d-head"
                                       : NULL;
    if (missing) {
        snprintf(err, errlen, "kv: give --preset NAME or %s (see mhaviz kv --help)", missing);
        return -1;
    }
    if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0) {
        snprintf(err, errlen, "--kv-heads %ld: must divide heads %ld", m->kv_heads, m->heads);
        return -1;
    }
    return 0;
}

/* The formula with the numbers, for the model's own layout. */
static void print_formula(const Preset *p, const KvModel *m, const KvDtype *dt, long context,
                          long batch, const KvLimit *lim, const KvRow *own)
{
    char a[40], b[40], c[40], d[40];
    printf("%s: %ld layers, %ld query heads, %ld kv head%s (%s", p ? p->title : "custom model",
           m->layers, m->heads, m->kv_heads, m->kv_heads == 1 ? "" : "s",
           presets_kind(m->heads, m->kv_heads));
    if (m->kv_heads != m->heads && m->kv_heads != 1)
        printf(", %ld query heads per kv head", m->heads / m->kv_heads);
    printf("), d_head %ld\n", m->d_head);
    printf("dtype %s (%s %s per element), context %s tokens, batch %ld\n\n", dt->name,
           elem_bytes(dt->bits), dt->bits == 8 ? "byte" : "bytes",
           kv_fmt_int(a, sizeof a, (uint64_t)context), batch);
    printf(
        "KV cache = 2 (K and V) x layers x kv_heads x d_head x bytes/element x context x batch\n");
    printf("per token  = 2 x %ld x %ld x %ld x %s = %s bytes\n", m->layers, m->kv_heads, m->d_head,
           elem_bytes(dt->bits), kv_fmt_int(a, sizeof a, own->per_token));
    if (lim->window && lim->window < context) {
        long global = m->layers - lim->local_layers;
        printf("%s %s: %ld of %ld layers keep at most %s tokens%s\n",
               lim->chunked ? "chunked attention" : "sliding window",
               kv_fmt_int(a, sizeof a, (uint64_t)lim->window), lim->local_layers, m->layers, a,
               global ? ", the others keep every token" : "");
        printf("this model = %s B per token per layer x (",
               kv_fmt_int(a, sizeof a, own->per_token_layer));
        if (global) printf("%ld x %s + ", global, kv_fmt_int(b, sizeof b, (uint64_t)context));
        printf("%ld x %s layer-tokens) x %ld = %s bytes (%s)\n", lim->local_layers,
               kv_fmt_int(b, sizeof b, (uint64_t)lim->window), batch,
               kv_fmt_int(c, sizeof c, own->total), kv_fmt_size(d, sizeof d, own->total));
    } else {
        printf("this model = %s x %s x %ld = %s bytes (%s)\n", a,
               kv_fmt_int(b, sizeof b, (uint64_t)context), batch,
               kv_fmt_int(c, sizeof c, own->total), kv_fmt_size(d, sizeof d, own->total));
    }
}

/* One row each for MHA, the model's own layout and MQA. */
static void print_rows(const KvModel *m, const KvRow *rows, int n)
{
    char a[40], b[40], c[40];
    printf("%-18s %8s %14s %14s %14s %9s\n", "variant", "kv heads", "bytes/token", "per context",
           "total", "vs model");
    for (int i = 0; i < n; i++) {
        const KvRow *r = &rows[i];
        char ratio[24];
        if (r->kv_heads >= m->kv_heads)
            snprintf(ratio, sizeof ratio, "%ldx", r->kv_heads / m->kv_heads);
        else
            snprintf(ratio, sizeof ratio, "1/%ld", m->kv_heads / r->kv_heads);
        printf("%-18s %8ld %14s %14s %14s %9s\n", r->label, r->kv_heads,
               kv_fmt_int(a, sizeof a, r->per_token), kv_fmt_size(b, sizeof b, r->per_context),
               kv_fmt_size(c, sizeof c, r->total), ratio);
    }
}

/* Everything after the flags: 0, 1 on a write error, or -1 with err set (usage). */
static int run(const KvArgs *a, const PresetList *presets, char *err, size_t errlen)
{
    const KvDtype *dt = kv_dtype(a->dtype);
    if (!dt) {
        snprintf(err, errlen, "--dtype '%s': expected fp32, fp16, bf16, fp8 or int4", a->dtype);
        return -1;
    }
    const Preset *p = a->preset ? presets_find(presets, a->preset) : NULL;
    if (a->preset && !p) {
        const char *near = presets_suggest(presets, a->preset);
        if (near)
            snprintf(err, errlen, "--preset '%.40s': unknown model (did you mean '%s'?)", a->preset,
                     near);
        else
            snprintf(err, errlen, "--preset '%.40s': unknown model (mhaviz kv --list shows them)",
                     a->preset);
        return -1;
    }
    KvModel m;
    if (resolve_model(a, p, &m, err, errlen) != 0) return -1;
    long context = a->context ? a->context : p && p->context ? p->context : 4096;
    /* local layers (sliding window, chunks) follow the preset's own layer count */
    KvLimit lim = {0, 0, 0};
    if (p && !a->layers) lim = kv_limit_of(p);
    KvRow rows[3];
    int n;
    if (kv_table_limited(&m, &lim, dt->bits, context, a->batch, rows, &n, err, errlen) != 0)
        return -1;
    const KvRow *own = &rows[0];
    for (int i = 0; i < n; i++)
        if (rows[i].is_model) own = &rows[i];
    print_formula(p, &m, dt, context, a->batch, &lim, own);
    if (p && kv_hypothetical(p, context, err, errlen)) printf("%s\n", err);
    putchar('\n');
    print_rows(&m, rows, n);
    if (p) {
        printf("\nsource: %s\n", p->source);
        if (p->note[0]) printf("note: %s\n", p->note);
    }
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

int cmd_kv(int argc, char **argv)
{
    char err[300];
    KvArgs a = {NULL, "fp16", 0, 0, 0, 0, 0, 1, 0, 0};
    PresetList presets;
    if (parse_args(argc, argv, &a, err, sizeof err) != 0) return cli_usage("%s", err);
    if (a.help) {
        fputs(kv_help, stdout);
        return 0;
    }
    if (presets_builtin(&presets, err, sizeof err) != 0) {
        cli_line(stderr, "mhaviz: %s", err);
        return 1;
    }
    int rc = 0;
    if (a.list)
        print_list(&presets);
    else if ((rc = run(&a, &presets, err, sizeof err)) < 0)
        rc = cli_usage("%s", err);
    presets_free(&presets);
    return rc;
}
