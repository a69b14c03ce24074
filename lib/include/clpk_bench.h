/* Benchmark helper shared by the family benchmarks and the tuner: OpenCL profiling events, warm-up, median and
 * spread of N runs, bytes and flops turned into GB/s and GFLOP/s, JSON output. Speed lives in benchmarks, never in
 * timed tests. */
#ifndef CLPK_BENCH_H
#define CLPK_BENCH_H

#include "clpk_export.h"
#ifdef __cplusplus
extern "C" {
#endif

/* One timed launch: enqueue the work on the context's queue and return, in *first and *last, the events of its first
 * and last command; clpk_bench releases each distinct event once. For a single command, put the same handle in both
 * with a single reference (do not retain it a second time: that leaks one event per launch). */
typedef clpk_status (*clpk_bench_launch)(void *user, cl_event *first, cl_event *last);

typedef struct clpk_bench_stats {
    int runs;
    double median_ms, min_ms, max_ms, mean_ms, p10_ms, p90_ms;
    double bytes, flops; /* per launch, as counted by the caller */
    double gbps, gflops; /* at the median */
} clpk_bench_stats;

/* Runs `warmup` untimed and `repeats` timed launches; time is from the start of `first` to the end of `last`. */
CLPK_API clpk_status clpk_bench_run(clpk_context *ctx, clpk_bench_launch launch, void *user, int warmup, int repeats,
                                    double bytes, double flops, clpk_bench_stats *stats);

/* Like clpk_bench_run, but each of the `repeats` samples enqueues `calls` launches back to back (no wait between
 * them) and counts the span from the first launch's start to the last one's end divided by `calls`: the time per
 * call of a stream of calls, without the host's gaps between calls that a single timed call of microseconds
 * includes (and the clock drops they cause). calls = 1 is clpk_bench_run. `warmup` counts single launches. */
CLPK_API clpk_status clpk_bench_run_stream(clpk_context *ctx, clpk_bench_launch launch, void *user, int warmup,
                                           int repeats, int calls, double bytes, double flops, clpk_bench_stats *stats);

/* Statistics of an array of times (sorted in place). */
CLPK_API void clpk_bench_summarise(double *times_ms, int n, double bytes, double flops, clpk_bench_stats *stats);

/* Elapsed milliseconds between the start of `first` and the end of `last` (profiling must be on). */
CLPK_API clpk_status clpk_event_span_ms(cl_event first, cl_event last, double *ms);

/* Device copy bandwidth in GB/s (read + write) measured with a float4 copy kernel over `bytes` bytes. */
CLPK_API clpk_status clpk_bench_copy_bandwidth(clpk_context *ctx, size_t bytes, clpk_bench_stats *stats);

/* Fills `bytes` bytes of `buf` from byte `offset` with copies of `pattern` (pattern_size bytes) like
 * clEnqueueFillBuffer, enqueued on the context's queue (in order; not blocking). Regions ending past 2^31 bytes are
 * filled by clpk's own kernel instead, which takes patterns of 1, 2, 4 or 8 bytes (others: CLPK_ERROR_UNSUPPORTED):
 * NVIDIA's fill faults there and leaves the context unusable. offset and bytes must be multiples of pattern_size and
 * the region must lie in the buffer (else CLPK_ERROR_INVALID_ARGUMENT). */
CLPK_API clpk_status clpk_bench_fill(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size,
                                     size_t offset, size_t bytes);

/* Appends one benchmark record {"name":..., "median_ms":..., ...} to a JSON array file-less string builder: the
 * returned string is malloc'ed and owned by the caller. `extra_json` may be NULL or a JSON object text merged in. */
/* Device FMA peak in GFLOP/s (an FMA counts 2 flops) for f32 or f64, measured with long dependent FMA chains, several
 * independent chains per work-item and enough work-groups to fill the device (lib/core/bench_peak.c, cl/util_fma.cl).
 * The "% of peak" columns of the benchmarks divide by stats->gflops. f64 needs has_fp64 (else UNSUPPORTED). */
CLPK_API clpk_status clpk_bench_fma_peak(clpk_context *ctx, clpk_precision p, clpk_bench_stats *stats);

CLPK_API char *clpk_bench_stats_json(const char *name, const clpk_bench_stats *stats, const char *extra_json);

#ifdef __cplusplus
}
#endif

#endif
