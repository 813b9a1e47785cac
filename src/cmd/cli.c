/* cli.c - flag parsing shared by every command. */
#include "cmd/cli.h"

#include "base/errbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "mhaviz: " then the message, one line on stderr. */
static void say(const char *fmt, va_list ap)
{
    fputs("mhaviz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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

const char cli_config_help[] =
    "  --batch N      batch size B (default 1, at most 64)\n"
    "  --seq N        tokens S (default 4, at most 1024)\n"
    "  --d-model N    model width D (default 8, at most 1024)\n"
    "  --heads N      query heads H, must divide D (default 2)\n"
    "  --kv-heads N   key/value heads, must divide H (default H: MHA; 1: MQA)\n"
    "  --seed N       seed of the toy input and weights (default 1)\n"
    "  --causal       mask future tokens before the softmax\n"
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
