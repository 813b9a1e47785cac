/* gpus.c - the accelerator table of gpus.h.  Each source names the document
 * the numbers were read in; a number only checked second-hand says so. */
#include "content/gpus.h"

#include <stdio.h>
#include <string.h>

/* clang-format off */
const Gpu gpus[] = {
    /* "80GB" is 80 GiB of HBM3 (5 stacks of 16 GiB); the driver reports
     * 81,559 MiB of it (nvidia-smi memory.total), what a program can use */
    {"h100-sxm", "NVIDIA H100 SXM5 80GB", 81559ULL << 20, 3350000000000ULL,
     "NVIDIA H100 Tensor Core GPU datasheet, H100 SXM column: GPU memory 80GB, memory bandwidth "
     "3.35TB/s (the PCIe card: 2TB/s); memory as nvidia-smi reports it: 81,559 MiB (Modal, \"Why "
     "does an NVIDIA H100 80GB card offer 85.52 GB?\", thundergolfer.com/blog/"
     "nvidia-gpu-memory-capacity, checked here second-hand)"},
    /* "80GB" is 80 GiB of HBM2e: nvidia-smi reports 81,920 MiB */
    {"a100-80gb-sxm", "NVIDIA A100 SXM4 80GB", 80ULL << 30, 2039000000000ULL,
     "NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf), "
     "A100 80GB SXM: 80GB HBM2e, 2,039GB/s; = 5120-bit bus x 3.186 Gb/s per pin / 8; memory as "
     "nvidia-smi reports it: 81,920 MiB = 80 GiB (the same Modal table)"},
    {"rtx-4090", "NVIDIA GeForce RTX 4090", 24000000000ULL, 1008000000000ULL,
     "24 GB GDDR6X on a 384-bit bus at 21 Gb/s per pin: 384 x 21 / 8 = 1,008 GB/s (NVIDIA Ada "
     "architecture whitepaper's RTX 4090 column; checked here second-hand)"},
    {"m2-ultra", "Apple M2 Ultra (192GB)", 192000000000ULL, 800000000000ULL,
     "Apple Newsroom, \"Apple introduces M2 Ultra\" (2023-06-05): up to 192GB of unified memory, "
     "800GB/s of memory bandwidth"},
    {NULL, NULL, 0, 0, NULL},
};
/* clang-format on */

const Gpu *gpus_find(const char *name)
{
    for (const Gpu *g = gpus; g->name; g++)
        if (strcmp(g->name, name) == 0) return g;
    return NULL;
}

char *gpus_names(char *buf, unsigned long n)
{
    size_t o = 0;
    if (n) buf[0] = 0;
    for (const Gpu *g = gpus; g->name && o < n; g++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", g->name);
    return buf;
}
