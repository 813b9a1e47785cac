/* export.c - `mhaviz export`: the whole pipeline as one JSON object (schema in
 * src/README.md, The pipeline), for scripts, tests and anyone checking our numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmtfloat.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "draw/compare.h"
#include "engine/mha.h"
#include "engine/mla.h"

static const char export_help[] =
    "usage: mhaviz export [OPTIONS]\n\n"
    "Runs the multi-head attention pipeline on the toy input and prints one JSON\n"
    "object: config, every tensor (shape, strides, offset, storage, data) and the\n"
    "trace of steps (code, the statements it ran, inputs, output, is_view,\n"
    "bytes_copied), the walkthrough's program (\"program\": lines that compute\n"
    "out) and its failure pictures' bugs (\"program_bugs\").\n\n"
    "  --compare FLAGS  two runs: {\"a\": this run, \"b\": the run with FLAGS\n"
    "                   applied (e.g. \"--kv-heads 1\"), each the object above,\n"
    "                   \"differences\": [{\"step\", \"tensor\", \"fields\"}]}\n"
    "  --mla R          DeepSeek's latent attention beside the run: config gains \"mla\"\n"
    "                   and \"rope_dim\", and \"mla\" holds its tensors (c_kv, k_pe, ...,\n"
    "                   scores_absorbed) and the cache bytes per token against MHA's\n"
    "  --rope-dim N     MLA's rotated key width dr, even (default d_head / 2, even, >= 2)\n"
    "  --window W       with --causal: query i sees key j iff i - W < j <= i (a rolling\n"
    "                   window's band); config gains \"window\": W\n"
    "  --shared-prefix P every sequence's first P tokens of x are sequence 0's (a batch\n"
    "                   sharing a prompt prefix, as decode --paged --shared-prefix runs);\n"
    "                   config gains \"shared_prefix\": P\n\n"
    "Options:\n";

/* The shortest text that reads back to the same float (base/fmtfloat.h):
 * half the bytes of %.9g and a tenth of its time. */
static void put_floats(FILE *f, size_t n, const float *v)
{
    char line[64 * FMTFLOAT_SIZE];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (len > sizeof line - FMTFLOAT_SIZE - 1) fwrite(line, 1, len, f), len = 0;
        if (i) line[len++] = ',';
        if (isfinite(v[i]))
            len += (size_t)fmtfloat_write(line + len, v[i]);
        else /* JSON has no inf/nan; the engine never exports one */
            memcpy(line + len, "null", 4), len += 4;
    }
    fwrite(line, 1, len, f);
}

static void put_ints(FILE *f, int n, const int *v)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? "," : "", v[i]);
    fputc(']', f);
}

static void put_tensor(FILE *f, const char *name, const Tensor *t, float *buf)
{
    fprintf(f, "    \"%s\": {\"shape\": ", name);
    put_ints(f, t->ndim, t->shape);
    fputs(", \"strides\": [", f);
    for (int i = 0; i < t->ndim; i++)
        fprintf(f, "%s%ld", i ? "," : "", t->strides[i]);
    fprintf(f, "], \"offset\": %zu, \"storage\": \"S%d\", \"contiguous\": %s, \"data\": [",
            t->offset, t->st->id, tensor_is_contiguous(t) ? "true" : "false");
    put_floats(f, tensor_to_array(t, buf), buf);
    fputs("]}", f);
}

/* "mla": {"rank", "rope_dim", "rope", "rope_theta", "cache_bytes_per_token",
 * "mha_cache_bytes_per_token", "tensors": {NAME: as the run's}}: MLA beside run m. */
static void export_mla(FILE *f, const Mha *m, const Mla *a, float *buf)
{
    fprintf(f,
            "  \"mla\": {\"rank\": %d, \"rope_dim\": %d, \"rope\": \"%s\", \"rope_theta\": %.17g, "
            "\"cache_bytes_per_token\": %zu, \"mha_cache_bytes_per_token\": %zu,\n"
            "  \"tensors\": {\n",
            a->rank, a->rope_dim, rope_layout_name(a->rope), m->cfg.rope_theta,
            mla_cache_bytes_per_token(a->rank, a->rope_dim), mla_mha_bytes_per_token(&m->cfg));
    for (int i = 0; i < ML_COUNT; i++) {
        put_tensor(f, mla_tensor_names[i], a->t[i], buf);
        fputs(i + 1 < ML_COUNT ? ",\n" : "\n", f);
    }
    fputs("  }},\n", f);
}

/* Writes the JSON of run m (and MLA beside it when a is not NULL) to f.
 * Returns 0, -1 on a write error, -2 when the conversion buffer cannot be
 * allocated. */
/* "program": the walkthrough's panel, lines that compute the run's out;
 * "program_bugs": each failure picture's line ("line", 1-based) replaced
 * by its "code", after which "name" holds the run's "tensor".  Their text
 * has no quote and no backslash (check_mha_panel.c). */
static void export_program(FILE *f, const MhaConfig *c)
{
    MhaPanel pn;
    mha_panel(c, MV_STEP, &pn);
    fputs("  \"program\": [", f);
    for (int i = 0; i < pn.n; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", pn.line[i]);
    fputs("],\n  \"program_bugs\": [", f);
    for (int v = MV_WRONG_VIEW; v < MV_COUNT; v++) {
        const MhaViewInfo *vi = &mha_views[v];
        mha_panel(c, (MhaView)v, &pn);
        fprintf(f,
                "%s\n    {\"view\": \"%s\", \"line\": %d, \"code\": \"%s\", \"name\": \"%s\", "
                "\"tensor\": \"%s\"}",
                v > MV_WRONG_VIEW ? "," : "", vi->key, pn.bug + 1, vi->code, vi->name,
                mha_tensor_names[vi->tensor]);
    }
    fputs("\n  ]\n", f);
}

static int export_json(FILE *f, const Mha *m, const Mla *a)
{
    const MhaConfig *c = &m->cfg;
    size_t maxn = 0;
    for (int i = 0; i < MT_COUNT; i++)
        if (m->t[i] && tensor_numel(m->t[i]) > maxn) maxn = tensor_numel(m->t[i]);
    for (int i = 0; a && i < ML_COUNT; i++)
        if (tensor_numel(a->t[i]) > maxn) maxn = tensor_numel(a->t[i]);
    float *buf = malloc(maxn * sizeof *buf);
    if (!buf) return -2;
    fputs("{\n  \"config\": {", f);
    cli_config_json(f, c, m->d_head);
    if (a) fprintf(f, ", \"mla\": %d, \"rope_dim\": %d", a->rank, a->rope_dim);
    fputs("},\n", f);
    if (a) export_mla(f, m, a, buf);
    fputs("  \"tensors\": {\n", f);
    int last = MT_COUNT - 1; /* the RoPE tensors are absent when it is off */
    for (int i = 0; i < MT_COUNT; i++) {
        if (!m->t[i]) continue;
        put_tensor(f, mha_tensor_names[i], m->t[i], buf);
        fputs(i < last ? ",\n" : "\n", f);
    }
    fputs("  },\n  \"steps\": [\n", f);
    int n_steps = mha_step_total(c);
    for (int i = 0; i < n_steps; i++) {
        const MhaStep *s = &m->steps[mha_step_at(c, i)];
        fprintf(f, "    {\"index\": %d, \"name\": \"%s\", \"code\": \"%s\", \"ran\": [", i, s->name,
                s->code);
        for (int k = 0; k < s->n_ran; k++) /* the program's statements: no quote, no backslash */
            fprintf(f, "%s\"%s\"", k ? ", " : "", s->ran[k]);
        fputs("], \"inputs\": [", f);
        for (int k = 0; k < s->n_inputs; k++)
            fprintf(f, "%s\"%s\"", k ? ", " : "", mha_tensor_names[s->inputs[k]]);
        fprintf(f, "], \"output\": \"%s\", \"is_view\": %s, \"bytes_copied\": %zu}%s\n",
                mha_tensor_names[s->output], s->is_view ? "true" : "false", s->bytes_copied,
                i + 1 < n_steps ? "," : "");
    }
    fputs("  ],\n", f);
    export_program(f, c);
    fputs("}\n", f);
    free(buf);
    return ferror(f) ? -1 : 0;
}

/* --compare: {"a": run A, "b": run B (each the single-run object),
 * "differences": [{"step", "tensor", "fields": ["shape", "strides",
 * "storage"]}, ...]}, the step's tensors that differ (mha_step_tensors). */
static int export_compare(FILE *f, const Mha *a, const Mha *b)
{
    static const char *const fields[] = {"shape", "strides", "storage"};
    int rc, first = 1;
    fputs("{\"a\": ", f);
    if ((rc = export_json(f, a, NULL)) != 0) return rc;
    fputs(", \"b\": ", f);
    if ((rc = export_json(f, b, NULL)) != 0) return rc;
    fputs(", \"differences\": [", f);
    for (int s = 0; s < MS_COUNT; s++) {
        int ts[10], n = mha_step_tensors(a, b, s, ts, 10);
        for (int k = 0; k < n; k++) {
            int d = compare_tensor_diff(a->t[ts[k]], b->t[ts[k]]), fi = 0;
            if (!d) continue;
            fprintf(f, "%s\n  {\"step\": %d, \"tensor\": \"%s\", \"fields\": [", first ? "" : ",",
                    s, mha_tensor_names[ts[k]]);
            for (int j = 0; j < 3; j++)
                if (d & (1 << j)) fprintf(f, "%s\"%s\"", fi++ ? ", " : "", fields[j]);
            fputs("]}", f);
            first = 0;
        }
    }
    fputs("\n]}\n", f);
    return ferror(f) ? -1 : 0;
}

int cmd_export(int argc, char **argv)
{
    MhaConfig cfg = mha_config_default(), cb;
    int kv_set = 0, rope_dim = -1;
    long rank = -1, v;
    char err[256];
    const char *compare = NULL, *val;
    Mha *mb = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s%s", export_help, cli_config_help);
            return 0;
        }
        int r = cli_config_flag(argc, argv, &i, &cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r > 0) continue;
        if ((r = cli_match(argc, argv, &i, "--compare", &val, err, sizeof err)) != 0) {
            if (r < 0) return cli_usage("%s", err);
            compare = val;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--window", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--window", val, 1, MHA_MAX_SEQ, &v, err, sizeof err))
                return cli_usage("%s", err);
            cfg.window = (int)v;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--shared-prefix", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--shared-prefix", val, 0, MHA_MAX_SEQ, &v, err, sizeof err))
                return cli_usage("%s", err);
            cfg.shared_prefix = (int)v;
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--mla", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--mla", val, 0, MLA_MAX_RANK, &rank, err, sizeof err))
                return cli_usage("%s", err);
            continue;
        }
        if ((r = cli_match(argc, argv, &i, "--rope-dim", &val, err, sizeof err)) != 0) {
            if (r < 0 || cli_long("--rope-dim", val, 0, MLA_MAX_RANK, &v, err, sizeof err))
                return cli_usage("%s", err);
            rope_dim = (int)v;
            continue;
        }
        return cli_usage("export: unknown option '%s' (try mhaviz export --help)", argv[i]);
    }
    if (!kv_set) cfg.kv_heads = cfg.heads;
    if (compare && cli_compare(compare, &cfg, &cb, err, sizeof err) < 0)
        return cli_usage("%s", err);
    if (rope_dim >= 0 && rank < 0) return cli_usage("--rope-dim %d: needs --mla R", rope_dim);
    if (rank >= 0 && compare) return cli_usage("--mla: not with --compare (one run at a time)");
    if (rank >= 0 && mha_config_check(&cfg, err, sizeof err) == 0) {
        if (rope_dim < 0) rope_dim = mla_rope_dim_default(cfg.d_model / cfg.heads);
        if (mla_check(&cfg, (int)rank, rope_dim, err, sizeof err)) return cli_usage("%s", err);
    }
    Mha *m = mha_run(&cfg, err, sizeof err);
    if (!m) return cli_usage("%s", err);
    if (compare && !(mb = mha_run(&cb, err, sizeof err))) {
        mha_free(m);
        return cli_usage("--compare: %s", err);
    }
    Mla *ma = rank >= 0 ? mla_run(m, (int)rank, rope_dim, err, sizeof err) : NULL;
    if (rank >= 0 && !ma) {
        mha_free(m);
        return cli_usage("%s", err);
    }
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    int rc = mb ? export_compare(stdout, m, mb) : export_json(stdout, m, ma);
    mha_free(m);
    mha_free(mb);
    mla_free(ma);
    if (rc == -2) {
        fprintf(stderr, "mhaviz: export: out of memory\n");
        return 1;
    }
    return rc ? EXIT_IO : 0; /* the write error is said at exit (cli_close_stdout) */
}
