/* fuzz_cli.c - the command-line flags every command shares (cli.c): the
 * input is argv, one argument per line, parsed as `mhaviz export` does. */
#include "fuzz.h"

#include "cmd/cli.h"

#define CLI_MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstr(data, size);
    char *argv[CLI_MAX_ARGS + 1] = {"export"};
    int argc = 1;
    for (char *a = s; a && argc < CLI_MAX_ARGS; argc++) {
        argv[argc] = a;
        a = strchr(a, '\n');
        if (a) *a++ = 0;
    }
    argv[argc] = NULL;
    MhaConfig cfg = mha_config_default();
    int kv_set = 0;
    char err[256];
    for (int i = 1; i < argc; i++) {
        int before = i;
        int r = cli_config_flag(argc, argv, &i, &cfg, &kv_set, err, sizeof err);
        FUZZ_ASSERT(r >= -1 && r <= 1 && i >= before && i < argc);
        if (r < 0) {
            FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
            break;
        }
        if (r == 0) { /* not a shared flag: read it as a number, as commands do */
            long v;
            if (cli_long("--n", argv[i], -1000, 1000, &v, err, sizeof err) == 0)
                FUZZ_ASSERT(v >= -1000 && v <= 1000);
            else
                FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
        }
    }
    if (!kv_set) cfg.kv_heads = cfg.heads;
    if (mha_config_check(&cfg, err, sizeof err)) FUZZ_ASSERT(fuzz_one_line(err, sizeof err));
    free(s);
    return 0;
}
