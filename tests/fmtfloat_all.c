/* fmtfloat_all.c - `make fmtfloat-all`: checks fmtfloat on float32 bit
 * patterns FIRST..LAST (hex, inclusive; all 2^32 by default) against strtof:
 * each reads back to the same bits and no shorter text does
 * (fmtfloat_oracle.h).  Prints the first few failures; exit 1 if any.
 *
 * usage: fmtfloat_all [FIRST LAST] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmtfloat_oracle.h"

int main(int argc, char **argv)
{
    uint32_t first = 0, last = 0xffffffffu;
    if (argc == 3) {
        first = (uint32_t)strtoul(argv[1], NULL, 16);
        last = (uint32_t)strtoul(argv[2], NULL, 16);
    } else if (argc != 1) {
        fprintf(stderr, "usage: fmtfloat_all [FIRST LAST]  (hex bit patterns)\n");
        return 2;
    }
    uint64_t bad = 0;
    char why[160];
    for (uint64_t b = first; b <= last; b++)
        if (oracle_check((uint32_t)b, why, sizeof why) && ++bad <= 10) printf("%s\n", why);
    printf("fmtfloat: %08x..%08x: %llu checked, %llu wrong\n", (unsigned)first, (unsigned)last,
           (unsigned long long)(last - first + 1), (unsigned long long)bad);
    return bad != 0;
}
