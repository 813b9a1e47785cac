/* gpus.h - a few accelerators for the decode arithmetic: memory size and peak
 * memory bandwidth, each with where the number comes from (gpus.c).
 *
 * Memory is what the driver reports (nvidia-smi memory.total: an H100 "80GB"
 * has 81,559 MiB, an A100 80GB 81,920 MiB = 80 GiB), not the datasheet's
 * "80GB" read as 80 * 10^9; bandwidth is the datasheet's decimal units
 * (3.35 TB/s = 3.35 * 10^12 bytes per second).
 */
#ifndef MHAVIZ_GPUS_H
#define MHAVIZ_GPUS_H

#include <stdint.h>

typedef struct Gpu {
    const char *name;   /* "h100-sxm": for --gpu */
    const char *title;  /* "NVIDIA H100 SXM5 80GB" */
    uint64_t mem_bytes; /* memory on the device, in bytes, as the driver reports it */
    uint64_t bw;        /* peak memory bandwidth, bytes per second */
    const char *source; /* where both numbers come from */
} Gpu;

extern const Gpu gpus[]; /* ended by an entry with name NULL */

/* The GPU called name, or NULL. */
const Gpu *gpus_find(const char *name);

/* "h100-sxm, a100-80gb-sxm, ..." into buf (for error messages); returns buf. */
char *gpus_names(char *buf, unsigned long n);

#endif
