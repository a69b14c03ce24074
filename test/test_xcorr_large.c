/* Outputs past 2^31 values (n-to-m 128x128 at 256^2: 4.28e9 values, 17.1 GB in f32) in bounded memory: the launch
 * ranges of such sizes (lib/xcorr/xcorr_launch.c: a second dimension past 2^31 work-items, every padding group
 * accounted for), every direct kernel run through the two-dimensional form (the limit lowered to 256 items per
 * dimension) against the reference, the refusals where even that cannot hold a launch, and plans and executions of
 * the 17.1 GB case that must refuse or check without allocating it. Fills of such outputs: test_core_fill. */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_launch.h"
#include "xcorr_run.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static clpk_xcorr_shape shape_of(clpk_xcorr_pattern p, int r, int c, int nl, int nr) {
    clpk_xcorr_shape s = {p, r, c, nl, nr, 0, 0, CLPK_PRECISION_F32};
    return s;
}

/* The range of `groups` groups of `wg` must number every group once: one dimension while it holds them, else a first
 * dimension within `max_items` items and fewer padding groups than rows. */
static void range_holds(size_t groups, size_t wg, size_t max_items, const char *label) {
    xcorr_range r;
    if (!CHECK(xcorr_range_of(groups, wg, max_items, &r), "%s: %zu groups of %zu refused", label, groups, wg)) return;
    const size_t cols = r.global[0] / wg, rows = r.global[1], launched = cols * rows;
    CHECK(r.local[0] == wg && r.local[1] == 1 && r.global[0] % wg == 0, "%s: local %zu x %zu, global %zu", label,
          r.local[0], r.local[1], r.global[0]);
    CHECK(r.global[0] <= max_items && rows <= XCORR_MAX_DIM1_GROUPS, "%s: %zu x %zu items", label, r.global[0], rows);
    CHECK(launched >= groups && launched - groups < rows, "%s: %zu groups launched for %zu", label, launched, groups);
    CHECK(r.dims == (groups * wg <= max_items ? 1u : 2u) && (r.dims == 2 || rows == 1), "%s: %u dimensions", label,
          r.dims);
}

static void ranges(void) {
    const size_t big = (size_t)INT_MAX;
    /* n-to-m 128x128 at 256^2, each direct kernel's work-groups at its default size */
    const size_t outputs = (size_t)128 * 128 * 511 * 511;
    CHECK(outputs == 4278206464u, "output values %zu", outputs);
    range_holds((outputs + 127) / 128, 128, big, "naive 4.28e9 items");
    range_holds(outputs, 32, big, "warp-per-overlap 4.28e9 groups");
    range_holds((size_t)16 * 511 * 128 * 128, 32, big, "shift-buffer team 32");
    range_holds((outputs * 16 + 127) / 128, 128, big, "split-row 16 workers");
    range_holds((size_t)128 * 128, 128, big, "local");
    /* boundaries */
    range_holds(big / 256, 256, big, "just one dimension");
    range_holds(big / 256 + 1, 256, big, "just two dimensions");
    range_holds(big / 64 * XCORR_MAX_DIM1_GROUPS, 64, big, "the most two dimensions hold");
    xcorr_range r;
    CHECK(!xcorr_range_of(big / 64 * XCORR_MAX_DIM1_GROUPS + 1, 64, big, &r), "past two dimensions accepted");
    CHECK(!xcorr_range_of(0, 64, big, &r) && !xcorr_range_of(5, 0, big, &r) && !xcorr_range_of(5, 512, 256, &r),
          "0 groups, wg 0 or wg past the limit accepted");
    /* every count of groups up to a few rows, small limits */
    for (size_t max_items = 64; max_items <= 320; max_items += 64)
        for (size_t wg = 1; wg <= 64; wg *= 4)
            for (size_t groups = 1; groups <= 3 * max_items / wg + 7; ++groups) {
                char label[64];
                snprintf(label, sizeof label, "%zu groups of %zu in %zu", groups, wg, max_items);
                range_holds(groups, wg, max_items, label);
            }
}

/* Every direct kernel with the launch limit at 256 items per dimension: the two-dimensional form and its padding
 * groups on small problems, against the reference. */
static void two_dimensional(clpk_context *ctx, uint64_t *rng) {
    static const struct {
        const char *algorithm, *params;
    } cases[] = {{"naive", "wg=64"},
                 {"grouped", "shifts=2,rows=2,wg=64"},
                 {"multi-right", "rights=2,wg=128"},
                 {"multi-both", "lefts=2,rights=2,wg=64"},
                 {"split-row", "rows_per_worker=2,wg=64"},
                 {"split-row", "rows_per_worker=2,wg=64,distribution=triangle"},
                 {"split-row", "rows_per_worker=3,wg=128,combine=atomic"},
                 {"shift-buffer", "team=8,shuffle=local"},
                 {"warp-per-overlap", "wg=32"},
                 {"local", "rows=2,shifts=2,wg=64"}};
    const clpk_xcorr_shape n_to_m = shape_of(CLPK_XCORR_N_TO_M, 5, 6, 3, 4);
    clpk_xcorr_shape window = shape_of(CLPK_XCORR_N_TO_MN, 7, 4, 2, 6);
    window.search_rows = 5, window.search_cols = 3;
    core_launch_dim_items_set(ctx, 256);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char label[160];
        snprintf(label, sizeof label, "2-D %s %s n-to-m 3x4 5x6", cases[i].algorithm, cases[i].params);
        xcorr_check_case(ctx, rng, &n_to_m, cases[i].algorithm, cases[i].params, 3, label);
        snprintf(label, sizeof label, "2-D %s %s n-to-mn 2x6 7x4 window 5x3", cases[i].algorithm, cases[i].params);
        if (strcmp(cases[i].algorithm, "multi-both") != 0)
            xcorr_check_case(ctx, rng, &window, cases[i].algorithm, cases[i].params, 0, label);
    }
    /* past what two dimensions hold (65535 rows of one group): a clear refusal, no launch */
    const clpk_xcorr_shape many = shape_of(CLPK_XCORR_N_TO_M, 5, 5, 30, 30); /* 72900 outputs */
    clpk_xcorr_plan *plan = NULL;
    clpk_status st = clpk_xcorr_plan_create(ctx, &many, "warp-per-overlap", "wg=256", &plan);
    CHECK(st == CLPK_ERROR_UNSUPPORTED && !plan && strstr(clpk_last_error(ctx), "more than one launch allows"),
          "72900 groups of 256 in 256-item dimensions: %s: %s", clpk_status_string(st), clpk_last_error(ctx));
    clpk_xcorr_plan_destroy(plan);
    /* the fused FFT path keeps one dimension: its chunks past the limit are refused */
    plan = NULL;
    st = clpk_xcorr_plan_create(ctx, &many, "fused-fft", NULL, &plan);
    CHECK(st == CLPK_ERROR_UNSUPPORTED && !plan && strstr(clpk_last_error(ctx), "work-groups"),
          "fused-fft past the limit: %s: %s", clpk_status_string(st), clpk_last_error(ctx));
    clpk_xcorr_plan_destroy(plan);
    core_launch_dim_items_set(ctx, 0);
    CHECK(core_launch_dim_items(ctx) == (size_t)INT_MAX, "limit not restored: %zu", core_launch_dim_items(ctx));
}

/* The 17.1 GB case of the H100 failure: refused where one buffer cannot hold its outputs, else planned (naive: no
 * intermediates) and its execution refused on buffers too small, before any launch. An output past the largest
 * allocation is refused on every device. */
static void impossible(clpk_context *ctx) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const clpk_xcorr_shape big = shape_of(CLPK_XCORR_N_TO_M, 256, 256, 128, 128);
    const uint64_t bytes = (uint64_t)clpk_xcorr_output_count(&big) * 511 * 511 * 4;
    clpk_xcorr_plan *plan = NULL;
    clpk_status st = clpk_xcorr_plan_create(ctx, &big, "naive", NULL, &plan);
    if (bytes > dev->max_alloc_bytes) {
        CHECK(st == CLPK_ERROR_UNSUPPORTED && !plan && strstr(clpk_last_error(ctx), "per buffer"),
              "17.1 GB of outputs past %llu bytes per buffer: %s: %s", (unsigned long long)dev->max_alloc_bytes,
              clpk_status_string(st), clpk_last_error(ctx));
    } else if (CHECK(st == CLPK_SUCCESS, "17.1 GB naive plan: %s", clpk_last_error(ctx))) {
        cl_int rc = CL_SUCCESS;
        cl_mem small = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, 64, NULL, &rc);
        if (CHECK(rc == CL_SUCCESS, "clCreateBuffer: %d", rc)) {
            st = clpk_xcorr_execute(plan, small, 0, small, 0, small, 0, 0, NULL, NULL);
            CHECK(st == CLPK_ERROR_INVALID_ARGUMENT && strstr(clpk_last_error(ctx), "too small"),
                  "execute on 64 bytes: %s: %s", clpk_status_string(st), clpk_last_error(ctx));
            clReleaseMemObject(small);
        }
    }
    clpk_xcorr_plan_destroy(plan);
    /* n x n pairs of 256^2 whose outputs pass the largest allocation, whatever the device */
    const double per_pair = 511.0 * 511.0 * 4.0;
    int n = (int)ceil(sqrt((double)dev->max_alloc_bytes / per_pair)) + 1;
    if (n < 2) n = 2;
    const clpk_xcorr_shape past = shape_of(CLPK_XCORR_N_TO_M, 256, 256, n, n);
    plan = NULL;
    st = clpk_xcorr_plan_create(ctx, &past, NULL, NULL, &plan);
    CHECK(st == CLPK_ERROR_UNSUPPORTED && !plan && strstr(clpk_last_error(ctx), "per buffer"),
          "%dx%d outputs of 511^2 past %llu bytes per buffer: %s: %s", n, n, (unsigned long long)dev->max_alloc_bytes,
          clpk_status_string(st), clpk_last_error(ctx));
    clpk_xcorr_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    ranges();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    two_dimensional(ctx, &rng);
    impossible(ctx);
    clpk_context_destroy(ctx);
    return check_summary();
}
