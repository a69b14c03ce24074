/* clpk_bench_run launches shared by the tools that time a family's plan on device buffers. */
#ifndef CLPK_TOOLS_CLI_BENCH_LAUNCH_H
#define CLPK_TOOLS_CLI_BENCH_LAUNCH_H

#include <clpk.h>
#include <clpk_bench.h>

/* One LiFE product, DSC (w -> y) or WC (y -> w), of `plan` from `in` to `out`. */
typedef struct cli_life_launch {
    clpk_life_plan *plan;
    int dsc;
    cl_mem in, out;
    int first_only; /* time the product's first launch alone (the pair kernels' weight or dot pass) */
} cli_life_launch;

/* A clpk_bench_launch over a cli_life_launch: the first and last launch of the product (theta_parts > 1 runs several
 * passes; first_only: the first launch's events). */
clpk_status cli_life_launch_events(void *user, cl_event *first, cl_event *last);

/* One cross-correlation of `plan` over whole buffers. */
typedef struct cli_xcorr_launch {
    clpk_xcorr_plan *plan;
    cl_mem left, right, out;
} cli_xcorr_launch;

/* A clpk_bench_launch over a cli_xcorr_launch. */
clpk_status cli_xcorr_launch_events(void *user, cl_event *first, cl_event *last);

/* Calls `launch` (each call finished before the next, as clpk_bench_run does) until `ms` milliseconds of wall time
 * have passed, at most `max_calls` times. A GPU left idle while a program builds drops its clocks, and a fixed count
 * of warm-up calls of microseconds each ends before they are back: on the H100 the same fused-fft plan timed 0.13 ms
 * after 3 warm-up calls and 0.045 ms after 50 (docs/perf-xcorr.md). */
clpk_status cli_warm_up_for(clpk_context *ctx, clpk_bench_launch launch, void *user, double ms, int max_calls);

#endif
