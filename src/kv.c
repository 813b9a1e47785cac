/* kv.c - KV-cache arithmetic and the `mhaviz kv` command. */
#include "kv.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "presets.h"

const KvDtype kv_dtypes[] = {
    {"fp32", 32}, {"fp16", 16}, {"bf16", 16}, {"fp8", 8}, {"int4", 4}, {NULL, 0},
};

const KvDtype *kv_dtype(const char *name)
{
    for (const KvDtype *d = kv_dtypes; d->name; d++)
        if (strcmp(d->name, name) == 0) return d;
    return NULL;
}

/* *acc *= f, refusing overflow. */
static int mul_ok(uint64_t *acc, uint64_t f)
{
    if (f != 0 && *acc > UINT64_MAX / f) return -1;
    *acc *= f;
    return 0;
}

int kv_bytes_per_token(long layers, long kv_heads, long d_head, int bits, uint64_t *out)
{
    if (layers < 1 || kv_heads < 1 || d_head < 1 || bits < 1) return -1;
    uint64_t elems = 2; /* K and V */
    if (mul_ok(&elems, (uint64_t)layers) || mul_ok(&elems, (uint64_t)kv_heads) ||
        mul_ok(&elems, (uint64_t)d_head) || mul_ok(&elems, (uint64_t)bits))
        return -1;
    *out = elems / 8 + (elems % 8 != 0); /* bits -> bytes, rounded up */
    return 0;
}

int kv_bytes_total(uint64_t per_token, long context, long batch, uint64_t *out)
{
    if (context < 1 || batch < 1) return -1;
    uint64_t v = per_token;
    if (mul_ok(&v, (uint64_t)context) || mul_ok(&v, (uint64_t)batch)) return -1;
    *out = v;
    return 0;
}

char *kv_fmt_int(char *buf, size_t n, uint64_t v)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < len && o + 1 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0 && o + 2 < n) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    if (n) buf[o < n ? o : n - 1] = 0;
    return buf;
}

char *kv_fmt_size(char *buf, size_t n, uint64_t v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double d = (double)v;
    int u = 0;
    while (d >= 1024.0 && u < 6) {
        d /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%llu B", (unsigned long long)v);
    else
        snprintf(buf, n, "%.*f %s", d < 10 ? 2 : 1, d, unit[u]);
    return buf;
}

/* Fills *r for kv_heads; -1 with err set on overflow. */
static int kv_row(const KvModel *m, long kv_heads, const char *label, int is_model, int bits,
                  long context, long batch, KvRow *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    snprintf(r->label, sizeof r->label, "%s", label);
    r->kv_heads = kv_heads;
    r->is_model = is_model;
    if (kv_bytes_per_token(m->layers, kv_heads, m->d_head, bits, &r->per_token) != 0 ||
        kv_bytes_total(r->per_token, context, 1, &r->per_context) != 0 ||
        kv_bytes_total(r->per_token, context, batch, &r->total) != 0) {
        snprintf(err, errlen, "the %s cache size does not fit in 64 bits; use smaller values",
                 label);
        return -1;
    }
    return 0;
}

int kv_table(const KvModel *m, int bits, long context, long batch, KvRow rows[3], int *n, char *err,
             size_t errlen)
{
    char own[32];
    snprintf(own, sizeof own, "%s (this model)", presets_kind(m->heads, m->kv_heads));
    *n = 0;
    if (m->kv_heads != m->heads &&
        kv_row(m, m->heads, "MHA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (kv_row(m, m->kv_heads, own, 1, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    if (m->kv_heads != 1 &&
        kv_row(m, 1, "MQA", 0, bits, context, batch, &rows[(*n)++], err, errlen) != 0)
        return -1;
    return 0;
}

/* --- the command -------------------------------------------------------------- */

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

static void print_list(const PresetList *p)
{
    printf("%-18s %-40s %6s %6s %8s %6s %7s\n", "name", "model", "layers", "heads", "kv_heads",
           "d_head", "kind");
    for (int i = 0; i < p->n; i++) {
        const Preset *m = &p->v[i];
        printf("%-18s %-40s %6ld %6ld %8ld %6ld %7s\n", m->name, m->title, m->layers, m->heads,
               m->kv_heads, m->d_head, presets_kind(m->heads, m->kv_heads));
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

int cmd_kv(int argc, char **argv)
{
    char err[300];
    const char *preset = NULL, *dtype = "fp16";
    long layers = 0, heads = 0, kv_heads = 0, d_head = 0, context = 0, batch = 1;
    int list = 0;
    PresetList presets;
    if (presets_builtin(&presets, err, sizeof err) != 0) {
        fprintf(stderr, "mhaviz: %s\n", err);
        return 1;
    }
    int rc = EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(kv_help, stdout);
            rc = 0;
            goto done;
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if ((r = cli_match(argc, argv, &i, "--preset", &val, err, sizeof err)) != 0) {
            if (r < 0) goto usage;
            preset = val;
        } else if ((r = cli_match(argc, argv, &i, "--dtype", &val, err, sizeof err)) != 0) {
            if (r < 0) goto usage;
            dtype = val;
        } else {
            static const struct {
                const char *flag;
                long max;
            } num[] = {
                {"--layers", 1000000}, {"--heads", 1000000},          {"--kv-heads", 1000000},
                {"--d-head", 1000000}, {"--context", 1000000000000L}, {"--batch", 1000000000L},
            };
            long *dst[] = {&layers, &heads, &kv_heads, &d_head, &context, &batch};
            int k;
            for (k = 0; k < 6; k++) {
                r = cli_match(argc, argv, &i, num[k].flag, &val, err, sizeof err);
                if (r < 0) goto usage;
                if (r > 0) {
                    if (cli_long(num[k].flag, val, 1, num[k].max, dst[k], err, sizeof err) != 0)
                        goto usage;
                    break;
                }
            }
            if (k == 6) {
                snprintf(err, sizeof err, "kv: unknown option '%s' (see mhaviz kv --help)",
                         argv[i]);
                goto usage;
            }
        }
    }
    if (list) {
        print_list(&presets);
        rc = 0;
        goto done;
    }
    const KvDtype *dt = kv_dtype(dtype);
    if (!dt) {
        snprintf(err, sizeof err, "--dtype '%s': expected fp32, fp16, bf16, fp8 or int4", dtype);
        goto usage;
    }
    const Preset *p = NULL;
    if (preset) {
        p = presets_find(&presets, preset);
        if (!p) {
            snprintf(err, sizeof err, "--preset '%s': unknown model (mhaviz kv --list shows them)",
                     preset);
            goto usage;
        }
    }
    KvModel m = {p ? p->layers : 0, p ? p->heads : 0, p ? p->kv_heads : 0, p ? p->d_head : 0};
    if (layers) m.layers = layers;
    if (heads) m.heads = heads;
    if (kv_heads)
        m.kv_heads = kv_heads;
    else if (!p)
        m.kv_heads = m.heads;
    if (d_head) m.d_head = d_head;
    const char *missing = !m.layers   ? "--layers"
                          : !m.heads  ? "--heads"
                          : !m.d_head ? "--d-head"
                                      : NULL;
    if (missing) {
        snprintf(err, sizeof err, "kv: give --preset NAME or %s (see mhaviz kv --help)", missing);
        goto usage;
    }
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
        snprintf(err, sizeof err, "--kv-heads %ld: must divide heads %ld", m.kv_heads, m.heads);
        goto usage;
    }
    if (!context) context = p && p->context ? p->context : 4096;

    KvRow rows[3];
    int n;
    if (kv_table(&m, dt->bits, context, batch, rows, &n, err, sizeof err) != 0) goto usage;
    const KvRow *own = NULL;
    for (int i = 0; i < n; i++)
        if (rows[i].is_model) own = &rows[i];

    char a[40], b[40], c[40], d[40];
    printf("%s: %ld layers, %ld query heads, %ld kv head%s (%s", p ? p->title : "custom model",
           m.layers, m.heads, m.kv_heads, m.kv_heads == 1 ? "" : "s",
           presets_kind(m.heads, m.kv_heads));
    if (m.kv_heads != m.heads && m.kv_heads != 1)
        printf(", %ld query heads per kv head", m.heads / m.kv_heads);
    printf("), d_head %ld\n", m.d_head);
    printf("dtype %s (%s bytes per element), context %s tokens, batch %ld\n\n", dt->name,
           elem_bytes(dt->bits), kv_fmt_int(a, sizeof a, (uint64_t)context), batch);
    printf(
        "KV cache = 2 (K and V) x layers x kv_heads x d_head x bytes/element x context x batch\n");
    printf("per token  = 2 x %ld x %ld x %ld x %s = %s bytes\n", m.layers, m.kv_heads, m.d_head,
           elem_bytes(dt->bits), kv_fmt_int(a, sizeof a, own->per_token));
    printf("this model = %s x %s x %ld = %s bytes (%s)\n\n", a,
           kv_fmt_int(b, sizeof b, (uint64_t)context), batch, kv_fmt_int(c, sizeof c, own->total),
           kv_fmt_size(d, sizeof d, own->total));

    printf("%-18s %8s %14s %14s %14s %9s\n", "variant", "kv heads", "bytes/token", "per context",
           "total", "vs model");
    for (int i = 0; i < n; i++) {
        const KvRow *r = &rows[i];
        char ratio[24];
        if (r->kv_heads >= m.kv_heads)
            snprintf(ratio, sizeof ratio, "%ldx", r->kv_heads / m.kv_heads);
        else
            snprintf(ratio, sizeof ratio, "1/%ld", m.kv_heads / r->kv_heads);
        printf("%-18s %8ld %14s %14s %14s %9s\n", r->label, r->kv_heads,
               kv_fmt_int(a, sizeof a, r->per_token), kv_fmt_size(b, sizeof b, r->per_context),
               kv_fmt_size(c, sizeof c, r->total), ratio);
    }
    if (p) {
        printf("\nsource: %s\n", p->source);
        if (p->note[0]) printf("note: %s\n", p->note);
    }
    rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
    goto done;
usage:
    fprintf(stderr, "mhaviz: %s\n", err);
    rc = EXIT_USAGE;
done:
    presets_free(&presets);
    return rc;
}
