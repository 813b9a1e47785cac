/* cli.c - flag parsing shared by every command. */
#include "cmd/cli.h"

#include "base/errbuf.h"
#include "base/fmtfloat.h"
#include "base/sanitize.h"
#include "engine/rope.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The formatted line through sanitize_text, then a newline, on f. */
static void put_line(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
    char raw[2048], shown[4 * sizeof raw];
    vsnprintf(raw, sizeof raw, fmt, ap);
    fprintf(f, "%s%s\n", prefix, sanitize_text(raw, shown, sizeof shown));
}

/* "mhaviz: " then the message, one line on stderr. */
static void say(const char *fmt, va_list ap)
{
    put_line(stderr, "mhaviz: ", fmt, ap);
}

void cli_line(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_line(f, "", fmt, ap);
    va_end(ap);
}

int cli_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_io_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say(fmt, ap);
    va_end(ap);
    return EXIT_IO;
}

/* errno of the first failed flush of stdout, 0 while none failed */
static int stdout_errno;

int cli_flush(void)
{
    if (fflush(stdout) == 0) return 0;
    if (!stdout_errno) stdout_errno = errno;
    return -1;
}

int cli_close_stdout(int rc)
{
    int failed = cli_flush() != 0 || ferror(stdout);
    if (fclose(stdout) != 0 && !failed) { /* close(2) can report a late write error */
        failed = 1;
        if (!stdout_errno) stdout_errno = errno;
    }
    if (!failed) return rc;
    /* stdio drops the reason of a write made while filling its buffer; such a
     * write is retried by the next one, so the reason is almost always known */
    if (stdout_errno)
        cli_io_error("write error: %s", strerror(stdout_errno));
    else
        cli_io_error("write error: some output to stdout was lost");
    return rc ? rc : EXIT_IO;
}

int cli_match(int argc, char **argv, int *i, const char *flag, const char **val, char *err,
              size_t errlen)
{
    const char *a = argv[*i];
    size_t n = strlen(flag);
    if (strncmp(a, flag, n) != 0) return 0;
    if (a[n] == '=') {
        if (!val) {
            err_set(err, errlen, "%s takes no value", flag);
            return -1;
        }
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0') return 0;
    if (!val) return 1;
    if (*i + 1 >= argc) {
        err_set(err, errlen, "%s needs a value", flag);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

int cli_long(const char *flag, const char *val, long min, long max, long *out, char *err,
             size_t errlen)
{
    /* strtol alone would take " 5" and "+5" but not "5 ": digits only */
    const char *digits = val + (val[0] == '-'); /* "-4": out of range, said so */
    if (!*digits || strspn(digits, "0123456789") != strlen(digits)) {
        err_set(err, errlen, "%s: '%.40s' is not a whole number", flag, val);
        return -1;
    }
    errno = 0;
    long v = strtol(val, NULL, 10);
    if (errno == ERANGE || v < min || v > max) {
        err_set(err, errlen, "%s %.40s: must be between %ld and %ld", flag, val, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_positive(const char *flag, const char *val, double max, double *out, char *err,
                 size_t errlen)
{
    /* digits, then at most one '.' and more digits: "10000", "500000", "0.5" */
    size_t n = strspn(val, "0123456789"), f = val[n] == '.' ? strspn(val + n + 1, "0123456789") : 0;
    int ok = n && n + f <= 40 && (!val[n] || (val[n] == '.' && f && !val[n + 1 + f]));
    double v = ok ? strtod(val, NULL) : 0;
    if (ok && v > max) {
        err_set(err, errlen, "%s %.40s: must be at most %g", flag, val, max);
        return -1;
    }
    if (!ok || !(v > 0)) {
        err_set(err, errlen, "%s: '%.40s' is not a positive number", flag, val);
        return -1;
    }
    *out = v;
    return 0;
}

const char cli_config_help[] =
    "  --batch N      batch size B (default 1, at most 64)\n"
    "  --seq N        tokens S (default 4, at most 1024)\n"
    "  --d-model N    model width D (default 8, at most 1024)\n"
    "  --heads N      query heads H, must divide D (default 2)\n"
    "  --kv-heads N   key/value heads, must divide H (default H: MHA; 1: MQA)\n"
    "  --seed N       seed of the toy input and weights (default 1)\n"
    "  --causal       mask future tokens before the softmax\n"
    "  --rope L       rotate Q and K after heads first: half (GPT-NeoX, HF) or interleaved\n"
    "                 (Meta's llama, GPT-J); needs an even d_head (default off)\n"
    "  --rope-theta N the base of RoPE's frequencies, a positive number (default 10000)\n"
    "  (all the tensors of one run together must fit in 128 MB: the error says when not)\n";

int cli_config_flag(int argc, char **argv, int *i, MhaConfig *cfg, int *kv_set, char *err,
                    size_t errlen)
{
    static const struct {
        const char *flag;
        long min, max;
        size_t off;
    } num[] = {
        {"--batch", 1, MHA_MAX_BATCH, offsetof(MhaConfig, batch)},
        {"--seq", 1, MHA_MAX_SEQ, offsetof(MhaConfig, seq)},
        {"--d-model", 1, MHA_MAX_DMODEL, offsetof(MhaConfig, d_model)},
        {"--heads", 1, MHA_MAX_DMODEL, offsetof(MhaConfig, heads)},
        {"--kv-heads", 1, MHA_MAX_DMODEL, offsetof(MhaConfig, kv_heads)},
    };
    const char *val;
    long v;
    for (size_t k = 0; k < sizeof num / sizeof *num; k++) {
        int r = cli_match(argc, argv, i, num[k].flag, &val, err, errlen);
        if (r <= 0) {
            if (r < 0) return -1;
            continue;
        }
        if (cli_long(num[k].flag, val, num[k].min, num[k].max, &v, err, errlen)) return -1;
        *(int *)((char *)cfg + num[k].off) = (int)v;
        if (!strcmp(num[k].flag, "--kv-heads") && kv_set) *kv_set = 1;
        return 1;
    }
    int r = cli_match(argc, argv, i, "--seed", &val, err, errlen);
    if (r) {
        if (r < 0 || cli_long("--seed", val, 0, (long)MHA_MAX_SEED, &v, err, errlen)) return -1;
        cfg->seed = (uint32_t)v;
        return 1;
    }
    r = cli_match(argc, argv, i, "--rope", &val, err, errlen);
    if (r) {
        int l = r < 0 ? -1 : rope_layout_of(val);
        if (r > 0 && l < 0)
            err_set(err, errlen, "--rope '%.40s': unknown layout (use half or interleaved)", val);
        if (l < 0) return -1;
        cfg->rope = (RopeLayout)l;
        return 1;
    }
    r = cli_match(argc, argv, i, "--rope-theta", &val, err, errlen);
    if (r) {
        if (r < 0 ||
            cli_positive("--rope-theta", val, ROPE_THETA_MAX, &cfg->rope_theta, err, errlen))
            return -1;
        return 1;
    }
    r = cli_match(argc, argv, i, "--causal", NULL, err, errlen);
    if (r) {
        if (r < 0) return -1;
        cfg->causal = 1;
        return 1;
    }
    return 0;
}

int cli_compare(const char *flags, const MhaConfig *a, MhaConfig *b, char *err, size_t errlen)
{
    char buf[256], e[200], *argv[34], *save = NULL;
    int argc = 1, kv_set = 0, heads_set = 0;
    if (strlen(flags) >= sizeof buf) {
        snprintf(err, errlen, "--compare: the flags are too long (at most %zu characters)",
                 sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", flags);
    argv[0] = "--compare";
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (argc == 33) {
            snprintf(err, errlen, "--compare: too many flags");
            return -1;
        }
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    if (argc == 1) {
        snprintf(err, errlen,
                 "--compare: give the second configuration's flags, e.g. "
                 "--compare \"--kv-heads 1\"");
        return -1;
    }
    *b = *a;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--heads") || !strncmp(argv[i], "--heads=", 8)) heads_set = 1;
        r = cli_config_flag(argc, argv, &i, b, &kv_set, e, sizeof e);
        if (r < 0) {
            snprintf(err, errlen, "--compare: %s", e);
            return -1;
        }
        if (r == 0) {
            snprintf(err, errlen,
                     "--compare: '%.40s' is not a configuration flag (--batch --seq --d-model "
                     "--heads --kv-heads --seed --causal)",
                     argv[i]);
            return -1;
        }
    }
    if (heads_set && !kv_set) b->kv_heads = b->heads;
    if (mha_config_check(b, e, sizeof e) < 0) {
        snprintf(err, errlen, "--compare: %s", e);
        return -1;
    }
    return 0;
}

void cli_config_json(FILE *f, const MhaConfig *c, int d_head)
{
    char rope[32] = "null", theta[FMTFLOAT_SIZE + 8] = "null";
    if (c->rope != ROPE_OFF) {
        snprintf(rope, sizeof rope, "\"%s\"", rope_layout_name(c->rope));
        snprintf(theta, sizeof theta, "%.17g", c->rope_theta);
    }
    fprintf(f,
            "\"batch\": %d, \"seq\": %d, \"d_model\": %d, \"heads\": %d, \"kv_heads\": %d, "
            "\"d_head\": %d, \"causal\": %s, \"seed\": %lu, \"rope\": %s, \"rope_theta\": %s",
            c->batch, c->seq, c->d_model, c->heads, c->kv_heads, d_head,
            c->causal ? "true" : "false", (unsigned long)c->seed, rope, theta);
    if (c->window) fprintf(f, ", \"window\": %d", c->window); /* only when on */
    if (c->shared_prefix) fprintf(f, ", \"shared_prefix\": %d", c->shared_prefix);
}
