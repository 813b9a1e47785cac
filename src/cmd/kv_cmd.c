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

    /* local layers (sliding window, chunks) follow the preset's own layer count */
    KvLimit lim = {0, 0, 0};
    if (p && !layers) lim = kv_limit_of(p);
    KvRow rows[3];
    int n;
    if (kv_table_limited(&m, &lim, dt->bits, context, batch, rows, &n, err, sizeof err) != 0)
        goto usage;
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
    if (lim.window && lim.window < context) {
        long global = m.layers - lim.local_layers;
        printf("%s %s: %ld of %ld layers keep at most %s tokens%s\n",
               lim.chunked ? "chunked attention" : "sliding window",
               kv_fmt_int(a, sizeof a, (uint64_t)lim.window), lim.local_layers, m.layers, a,
               global ? ", the others keep every token" : "");
        printf("this model = %s B per token per layer x (",
               kv_fmt_int(a, sizeof a, own->per_token_layer));
        if (global) printf("%ld x %s + ", global, kv_fmt_int(b, sizeof b, (uint64_t)context));
        printf("%ld x %s layer-tokens) x %ld = %s bytes (%s)\n", lim.local_layers,
               kv_fmt_int(b, sizeof b, (uint64_t)lim.window), batch,
               kv_fmt_int(c, sizeof c, own->total), kv_fmt_size(d, sizeof d, own->total));
    } else {
        printf("this model = %s x %s x %ld = %s bytes (%s)\n", a,
               kv_fmt_int(b, sizeof b, (uint64_t)context), batch,
               kv_fmt_int(c, sizeof c, own->total), kv_fmt_size(d, sizeof d, own->total));
    }
    if (p && p->context && context > p->context)
        printf("hypothetical: %s tokens is beyond the %s the model was trained for\n",
               kv_fmt_int(a, sizeof a, (uint64_t)context),
               kv_fmt_int(b, sizeof b, (uint64_t)p->context));
    putchar('\n');

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
