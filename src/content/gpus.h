/* gpus.h - a few accelerators for the decode arithmetic: memory size and peak
 * memory bandwidth, each with where the number comes from (gpus.c).
 *
 * Sizes are the vendor's decimal units (80 GB = 80 * 10^9 bytes, 3.35 TB/s =
 * 3.35 * 10^12 bytes per second), as their datasheets print them.
 */
#ifndef MHAVIZ_GPUS_H
#define MHAVIZ_GPUS_H

#include <stdint.h>

typedef struct Gpu {
    const char *name;   /* "h100-sxm": for --gpu */
    const char *title;  /* "NVIDIA H100 SXM5 80GB" */
    uint64_t mem_bytes; /* memory on the device */
    uint64_t bw;        /* peak memory bandwidth, bytes per second */
    const char *source; /* where both numbers come from */
} Gpu;

extern const Gpu gpus[]; /* ended by an entry with name NULL */

/* The GPU called name, or NULL. */
const Gpu *gpus_find(const char *name);

/* "h100-sxm, a100-80gb-sxm, ..." into buf (for error messages); returns buf. */
char *gpus_names(char *buf, unsigned long n);

#endif
