/* flash_cmd.c - `mhaviz flash`: FlashAttention-2's loop over the toy run, tile by tile.
 *
 *   mhaviz flash [CONFIG] [--block-q N] [--block-k N] --plain   the trace as text
 *   mhaviz flash [CONFIG] [--block-q N] [--block-k N] --json    every tile's m, l, O
 *   mhaviz flash [CONFIG] [--block-q N] [--block-k N] [OPTIONS] the Tiles screen (a terminal)
 *
 * --json prints one object (a contract, issue 18):
 *   {"config": {"batch", "seq", "d_model", "heads", "kv_heads", "d_head", "causal",
 *               "seed", "rope", "rope_theta", "block_q", "block_k"},
 *    "tiles": [{"b", "h", "qtile", "ktile", "rows": [r0, r1], "cols": [c0, c1],
 *               "m": [...], "l": [...], "O": [[...], ...]}, ...],
 *    "bytes": {"naive", "flash"}}
 * spans half-open, tiles in loop order, a tile skipped by causal absent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fmtfloat.h"
#include "base/textutil.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/interactive.h"
#include "content/kv.h"
#include "content/presets.h"
#include "engine/flash.h"
#include "ui/flash_screen.h"
#include "ui/screen.h"

/* Blocks beyond S are one tile; this only keeps the number sane. */
#define FLASH_MAX_BLOCK 1048576L

static const char flash_help[] =
    "usage: mhaviz flash [CONFIG] [--block-q N] [--block-k N] [--plain|--json|OPTIONS]\n"
    "FlashAttention-2's loop over the toy run, for one (batch, head) at a time: a tile of\n"
    "query rows stays on chip, the K/V tiles stream past it, and after each one the running\n"
    "row max m, sum l and output O are updated; the S x S scores are never written.\n"
    "  --block-q N   query rows per tile (default 2)\n"
    "  --block-k N   keys per K/V tile (default 2); a block larger than --seq is one tile\n"
    "  --plain       the trace as text (the default off a terminal)\n"
    "  --json        one JSON object: config, every tile's m, l and O, the bytes\n"
    "With --causal, K/V tiles wholly above the diagonal are skipped.  On a terminal,\n"
    "without --plain or --json, it opens the Tiles screen (also on the home menu).\n"
    "  OPTIONS       the screen's: --color=WHEN, --ascii, --no-save, --large (as mhaviz walk "
    "--help)\n";

/* One float as export writes it: the shortest text that reads back to it. */
static void put_float(FILE *f, float v)
{
    char b[FMTFLOAT_SIZE];
    fmtfloat_write(b, v);
    fputs(b, f);
}

static void put_floats(FILE *f, int n, const float *v)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        if (i) fputc(',', f);
        put_float(f, v[i]);
    }
    fputc(']', f);
}

static void put_json(FILE *out, Flash *f, int block_q, int block_k)
{
    int dh = f->m->d_head;
    fputs("{\n  \"config\": {", out);
    cli_config_json(out, &f->m->cfg, dh);
    fprintf(out, ", \"block_q\": %d, \"block_k\": %d},\n  \"tiles\": [", block_q, block_k);
    for (long n = 0; flash_step(f); n++) {
        int nr = f->r1 - f->r0;
        fprintf(out,
                "%s\n    {\"b\": %d, \"h\": %d, \"qtile\": %d, \"ktile\": %d, \"rows\": [%d, %d], "
                "\"cols\": [%d, %d], \"m\": ",
                n ? "," : "", f->b, f->h, f->qtile, f->ktile, f->r0, f->r1, f->c0, f->c1);
        put_floats(out, nr, f->tm);
        fputs(", \"l\": ", out);
        put_floats(out, nr, f->tl);
        fputs(", \"O\": [", out);
        for (int r = 0; r < nr; r++) {
            if (r) fputc(',', out);
            put_floats(out, dh, f->tO + (size_t)r * dh);
        }
        fputs("]}", out);
    }
    fprintf(out, "\n  ],\n  \"bytes\": {\"naive\": %llu, \"flash\": %llu}\n}\n",
            (unsigned long long)f->bytes.naive, (unsigned long long)f->bytes.flash);
}

/* "1.28x": how many times fewer bytes flash moves. */
static double ratio(FlashBytes b)
{
    return b.flash ? (double)b.naive / (double)b.flash : 0;
}

static void put_plain(FILE *out, Flash *f)
{
    const MhaConfig *c = &f->m->cfg;
    int dh = f->m->d_head, S = c->seq;
    char a[40], b[40];
    fprintf(out,
            "flash: batch %d, seq %d, d_model %d, heads %d, kv_heads %d (%s), d_head %d%s; "
            "block_q %d, block_k %d\n",
            c->batch, S, c->d_model, c->heads, c->kv_heads, presets_kind(c->heads, c->kv_heads), dh,
            c->causal ? ", causal" : "", f->block_q, f->block_k);
    fprintf(out,
            "FlashAttention-2's loop: for each (batch, head), each q tile of %d row%s stays on "
            "chip\nwhile the K/V tiles of %d key%s stream past it.  A head's (%d, %d) scores are "
            "never\nwritten: only this tile's %d x %d exist, and only until the next one.\n",
            f->block_q, text_s(f->block_q), f->block_k, text_s(f->block_k), S, S, f->block_q,
            f->block_k);
    while (flash_step(f)) {
        int nr = f->r1 - f->r0;
        if (f->qtile == 0 && f->ktile == 0)
            fprintf(out, "\nbatch %d, head %d (reads kv head %d)\n", f->b, f->h, f->kv);
        if (f->ktile == 0)
            fprintf(out,
                    "  q tile %d: rows [%d, %d) on chip (Q %d x %d, and m, l, O of %d row%s)\n",
                    f->qtile, f->r0, f->r1, nr, dh, nr, text_s(nr));
        int masked = flash_tile_masked(f);
        fprintf(out, "    k tile %d: keys [%d, %d) stream past (K and V %d x %d)", f->ktile, f->c0,
                f->c1, f->c1 - f->c0, dh);
        if (masked)
            fprintf(out, ", partly masked: %d of its %d scores", masked, nr * (f->c1 - f->c0));
        fputc('\n', out);
        for (int r = 0; r < nr; r++) {
            fprintf(out, "      row %d: m ", f->r0 + r);
            put_float(out, f->tm[r]);
            fputs("  l ", out);
            put_float(out, f->tl[r]);
            fputs("  O ", out);
            put_floats(out, dh, f->tO + (size_t)r * dh);
            fputc('\n', out);
        }
        if (!f->last) continue;
        for (int k = f->ktile + 1; k < f->n_ktiles; k++)
            fprintf(out, "    k tile %d: keys [%d, %d) skipped: wholly above the diagonal\n", k,
                    k * f->block_k, (k + 1) * f->block_k < S ? (k + 1) * f->block_k : S);
        fprintf(out, "    O rows [%d, %d) written once, with their logsumexp m + log l\n", f->r0,
                f->r1);
    }
    FlashBytes y = f->bytes;
    fprintf(out, "\n%ld tile%s visited, %ld skipped\n", f->visited, text_s(f->visited), f->skipped);
    if (c->batch * c->heads == 1)
        fprintf(out, "bytes to and from HBM, float32, the one head:\n");
    else
        fprintf(out, "bytes to and from HBM, float32, all %d heads:\n", c->batch * c->heads);
    fprintf(out,
            "  naive %14s   4 (4 S dh + 4 S^2) a head: the scores written, read, P written, read\n",
            kv_fmt_int(a, sizeof a, y.naive));
    fprintf(out, "  flash %14s   4 (S dh + 2 (K/V rows visited) dh + S dh + S) a head\n",
            kv_fmt_int(a, sizeof a, y.flash));
    fprintf(out, "  ratio %13.2fx   the %s B of scores (S x S x 4 x B x H) are never written\n",
            ratio(y),
            kv_fmt_int(b, sizeof b,
                       4ULL * (uint64_t)S * (uint64_t)S * (uint64_t)c->batch * (uint64_t)c->heads));
    fprintf(out, "final O against the pipeline's head_out: largest difference %g\n",
            (double)flash_check(f));
    FlashBytes real = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 0);
    FlashBytes realc = flash_bytes(1, 64, 8192, 128, FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K, 1);
    fprintf(out,
            "\nreal sizes (S 8192, dh 128, 64 heads, one layer, flash-attn's %d x %d blocks):\n",
            FLASH_REAL_BLOCK_Q, FLASH_REAL_BLOCK_K);
    fprintf(out, "  naive %18s B (%s)\n", kv_fmt_int(a, sizeof a, real.naive),
            kv_fmt_size(b, sizeof b, real.naive));
    fprintf(out, "  flash %18s B (%s)  %.2fx fewer\n", kv_fmt_int(a, sizeof a, real.flash),
            kv_fmt_size(b, sizeof b, real.flash), ratio(real));
    fprintf(out, "  flash %18s B (%s)  %.2fx fewer, causal\n", kv_fmt_int(a, sizeof a, realc.flash),
            kv_fmt_size(b, sizeof b, realc.flash), ratio(realc));
    fprintf(out,
            "  the scores alone: %s at fp16 (64 x 8192 x 8192 x 2 B), never written by flash\n",
            kv_fmt_size(a, sizeof a, 64ULL * 8192 * 8192 * 2));
}

/* The plain trace or the JSON of the configuration in rest (argv[0], then
 * the configuration flags). */
static int run_text(int argc, char **rest, int json, const long *block)
{
    MhaConfig cfg = mha_config_default();
    int kv_set = 0;
    char err[256];
    for (int i = 1; i < argc; i++) {
        int r = cli_config_flag(argc, rest, &i, &cfg, &kv_set, err, sizeof err);
        if (r < 0) return cli_usage("%s", err);
        if (r == 0)
            return cli_usage("flash: unknown option '%.60s' (see mhaviz flash --help)", rest[i]);
    }
    if (!kv_set) cfg.kv_heads = cfg.heads;
    Mha *m = mha_run(&cfg, err, sizeof err);
    if (!m) return cli_usage("%s", err);
    Flash *f = flash_new(m, (int)block[0], (int)block[1], err, sizeof err);
    if (!f) {
        mha_free(m);
        return cli_io_error("%s", err);
    }
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
    if (json)
        put_json(stdout, f, (int)block[0], (int)block[1]);
    else
        put_plain(stdout, f);
    flash_free(f);
    mha_free(m);
    return cli_flush() ? EXIT_IO : 0; /* the write error is said at exit (cli_close_stdout) */
}

int cmd_flash(int argc, char **argv)
{
    long block[2] = {FLASH_BLOCK_DEFAULT, FLASH_BLOCK_DEFAULT};
    static const char *const block_flag[2] = {"--block-q", "--block-k"};
    int text = 0, json = 0, n = 0;
    char err[256];
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\nConfiguration (the toy run):\n%s", flash_help, cli_config_help);
            return 0;
        }
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    if (!rest) return cli_io_error("out of memory");
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *val = NULL;
        if (!strcmp(argv[i], "--plain") || !strcmp(argv[i], "--json")) {
            text = 1;
            json = argv[i][2] == 'j';
            continue;
        }
        int r = 0, k;
        for (k = 0; k < 2 && !r; k++)
            r = cli_match(argc, argv, &i, block_flag[k], &val, err, sizeof err);
        if (r > 0 &&
            cli_long(block_flag[k - 1], val, 1, FLASH_MAX_BLOCK, &block[k - 1], err, sizeof err))
            r = -1;
        if (r < 0) {
            free(rest);
            return cli_usage("%s", err);
        }
        if (r == 0) rest[n++] = argv[i];
    }
    int rc;
    if (text || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        rc = run_text(n, rest, json, block); /* off a terminal: the trace */
    } else {
        Ui ui;
        InteractiveOptions o;
        rc = interactive_setup(&ui, &o, n, rest, 1, 0, flash_help);
        if (rc < 0)
            rc = interactive_run(&ui, flash_open_with(&ui, (int)block[0], (int)block[1]), &o);
    }
    free(rest);
    return rc;
}
