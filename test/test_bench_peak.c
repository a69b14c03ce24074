/* The FMA-peak probe (lib/core/bench_peak.c, cl/util_fma.cl): on a small launch the per-work-item chain sums add up to
 * the host's replay with correctly rounded fmaf/fma (so every work-item ran every FMA), the public entry point reports
 * a positive rate in both precisions, and bad arguments are refused. No speed assertion: speed lives in benchmarks. */
#include "bench_peak.h"
#include "check.h"

#include <math.h>

static void check_precision(clpk_context *ctx, clpk_precision p) {
    const char *name = p == CLPK_PRECISION_F64 ? "f64" : "f32";
    /* 3 groups of 64 with 5 trips: several residues of g, each work-item's 8 chains x 80 steps */
    bench_fma_config cfg = {3, 64, 5, 1, 2};
    clpk_bench_stats stats;
    double got = NAN;
    clpk_status st = bench_fma_peak_run(ctx, p, &cfg, &stats, &got);
    CHECK(st == CLPK_SUCCESS, "%s probe: %s", name, clpk_last_error(ctx));
    const double want = bench_fma_peak_expected(p, &cfg);
    /* the kernel's arithmetic is the host's (fma is correctly rounded); the only slack is the double sum's order */
    CHECK(fabs(got - want) <= 1e-12 * fabs(want) + 1e-12, "%s checksum %.17g, host replay %.17g", name, got, want);
    CHECK(fabs(want) > 1, "%s checksum not trivial (%g)", name, want);
    CHECK(stats.runs == 2 && stats.flops == 2.0 * 3 * 64 * BENCH_FMA_PER_TRIP * 5, "%s flops counted %g", name,
          stats.flops);

    st = clpk_bench_fma_peak(ctx, p, &stats);
    CHECK(st == CLPK_SUCCESS, "%s clpk_bench_fma_peak: %s", name, clpk_last_error(ctx));
    CHECK(st != CLPK_SUCCESS || (stats.gflops > 0 && isfinite(stats.gflops) && stats.median_ms > 0),
          "%s peak %g GFLOP/s in %g ms", name, stats.gflops, stats.median_ms);
    if (st == CLPK_SUCCESS) printf("%s FMA peak: %.1f GFLOP/s (median %.3f ms)\n", name, stats.gflops, stats.median_ms);
}

int main(void) {
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    CHECK(st == CLPK_SUCCESS, "context: %s", clpk_status_string(st));
    if (st != CLPK_SUCCESS) return check_summary();
    printf("device: %s\n", clpk_context_device_info(ctx)->name);
    check_precision(ctx, CLPK_PRECISION_F32);
    if (clpk_context_device_info(ctx)->has_fp64)
        check_precision(ctx, CLPK_PRECISION_F64);
    else
        printf("f64 skipped: the device has no fp64\n");

    bench_fma_config bad = {0, 64, 5, 1, 2};
    clpk_bench_stats stats;
    CHECK(bench_fma_peak_run(ctx, CLPK_PRECISION_F32, &bad, &stats, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
          "zero groups refused");
    CHECK(clpk_bench_fma_peak(ctx, (clpk_precision)7, &stats) == CLPK_ERROR_INVALID_ARGUMENT, "bad precision refused");
    CHECK(clpk_bench_fma_peak(ctx, CLPK_PRECISION_F32, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL stats refused");
    clpk_context_destroy(ctx);
    return check_summary();
}
