/* FMA-peak probe internals (lib/core/bench_peak.c), exposed for the test that replays the kernel's checksum. */
#ifndef CLPK_BENCH_PEAK_H
#define CLPK_BENCH_PEAK_H

#include "clpk_internal.h"

/* Chains and steps per loop trip of cl/util_fma.cl: FMAs per work-item = BENCH_FMA_PER_TRIP * trips. */
#define BENCH_FMA_CHAINS 8
#define BENCH_FMA_PER_TRIP (BENCH_FMA_CHAINS * 16)

typedef struct bench_fma_config {
    size_t groups, wg; /* launch: groups x wg work-items */
    int trips;         /* loop trips per work-item */
    int warmup, repeats;
} bench_fma_config;

/* Runs the probe with an explicit configuration; *checksum receives the sum (in double) over all work-items of the
 * value each wrote, NULL to skip the download. */
clpk_status bench_fma_peak_run(clpk_context *ctx, clpk_precision p, const bench_fma_config *cfg,
                               clpk_bench_stats *stats, double *checksum);
/* The same sum computed on the host with correctly rounded fmaf/fma in the kernel's order. */
double bench_fma_peak_expected(clpk_precision p, const bench_fma_config *cfg);
/* The probe's b and c (|b| < 1). */
#define BENCH_FMA_B 0.9990234375
#define BENCH_FMA_C 0.0009765625

#endif
