/* The fused FFT path for one-to-many, n-to-m and n-to-mn ("fused-fft", lib/xcorr/xcorr_fused_many.c,
 * cl/xcorr_fused_many.cl) against the double CPU reference (test/support xcorr_check_case: seeded uniform inputs,
 * NaN-poisoned outputs, guard elements, buffer offsets, max-norm relative error 1e-5 f32 / 1e-12 f64): sizes 1x1 ..
 * 64x64 (odd, rectangular, a single row or column, radix-3 padding), odd and even counts of rights (the last right
 * pair half empty), search windows, every value of every tuner parameter on each pattern, chunks of right pairs and
 * of lefts (fused_batch), both local layouts, tiled and row-major intermediates, f64, bit-identical reruns, the
 * local-memory limit. */
#include "check.h"
#include "clpk_xcorr.h"
#include "xcorr_fused.h"
#include "xcorr_fused_check.h"
#include "xcorr_run.h"

#include <string.h>

static clpk_xcorr_shape shape(clpk_xcorr_pattern pattern, int rows, int cols, int n_left, int n_right, int srows,
                              int scols, clpk_precision p) {
    clpk_xcorr_shape s = {pattern, rows, cols, n_left, n_right, srows, scols, p};
    return s;
}

static void run_case(clpk_context *ctx, uint64_t *rng, const clpk_xcorr_shape *s, const char *params, size_t offset) {
    char label[256];
    snprintf(label, sizeof label, "fused-fft %s %s %dx%d %d/%d win %dx%d {%s}", clpk_xcorr_pattern_name(s->pattern),
             clpk_precision_name(s->precision), s->rows, s->cols, s->n_left, s->n_right, s->search_rows, s->search_cols,
             params ? params : "defaults");
    xcorr_check_case(ctx, rng, s, "fused-fft", params, offset, label);
}

/* Each pattern at each size, with odd and even counts (n-to-mn: an odd and an even number of rights per left). */
static void sizes(clpk_context *ctx, uint64_t *rng, clpk_precision p) {
    static const int dims[][2] = {{1, 1}, {1, 7},   {7, 1},   {2, 2},   {3, 5},
                                  {8, 8}, {17, 13}, {24, 24}, {31, 17}, {64, 64}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; ++i) {
        const int r = dims[i][0], c = dims[i][1], big = r * c > 1024;
        if (p == CLPK_PRECISION_F64 && big) continue; /* f64: the small and mid sizes */
        const clpk_xcorr_shape a = shape(CLPK_XCORR_ONE_TO_MANY, r, c, 1, big ? 3 : (int)(4 + i % 2), 0, 0, p);
        const clpk_xcorr_shape b = shape(CLPK_XCORR_N_TO_M, r, c, big ? 2 : 3, big ? 3 : (int)(4 + i % 2), 0, 0, p);
        const clpk_xcorr_shape d = shape(CLPK_XCORR_N_TO_MN, r, c, 2, big ? 2 : (int)(6 + 2 * (i % 2)), 0, 0, p);
        run_case(ctx, rng, &a, NULL, i % 3);
        run_case(ctx, rng, &b, NULL, (i + 1) % 3);
        run_case(ctx, rng, &d, NULL, (i + 2) % 3);
    }
    /* one right; one left and one right of n-to-m; n-to-mn with one right per left */
    const clpk_xcorr_shape one = shape(CLPK_XCORR_ONE_TO_MANY, 9, 6, 1, 1, 0, 0, p);
    const clpk_xcorr_shape nm11 = shape(CLPK_XCORR_N_TO_M, 5, 8, 1, 1, 0, 0, p);
    const clpk_xcorr_shape nmn = shape(CLPK_XCORR_N_TO_MN, 6, 5, 3, 3, 0, 0, p);
    run_case(ctx, rng, &one, NULL, 1);
    run_case(ctx, rng, &nm11, NULL, 0);
    run_case(ctx, rng, &nmn, NULL, 2);
    /* search windows (centred, odd), smaller padding */
    const clpk_xcorr_shape w1 = shape(CLPK_XCORR_ONE_TO_MANY, 31, 17, 1, 5, 9, 15, p);
    const clpk_xcorr_shape w2 = shape(CLPK_XCORR_N_TO_M, 24, 24, 2, 3, 5, 47, p);
    const clpk_xcorr_shape w3 = shape(CLPK_XCORR_N_TO_MN, 9, 12, 3, 9, 17, 1, p);
    run_case(ctx, rng, &w1, NULL, 1);
    run_case(ctx, rng, &w2, NULL, 0);
    run_case(ctx, rng, &w3, NULL, 2);
}

/* Every point of the tuner's space for fused-fft (fft_pad x rows x wg from 64, as test_xcorr_fused) on each pattern,
 * with partial work-groups (odd rows, odd counts, a window); then chunks and the layout without gaps. */
static void sweep(clpk_context *ctx, uint64_t *rng, const xcorr_fused_space *space) {
    const clpk_xcorr_shape shapes[] = {
        shape(CLPK_XCORR_ONE_TO_MANY, 17, 13, 1, 5, 0, 0, CLPK_PRECISION_F32),
        shape(CLPK_XCORR_N_TO_M, 12, 20, 2, 3, 7, 9, CLPK_PRECISION_F32),
        shape(CLPK_XCORR_N_TO_MN, 11, 10, 2, 6, 0, 0, CLPK_PRECISION_F32),
    };
    char params[128];
    for (int i = 0; i < space->n_points; ++i) {
        int l, w;
        xcorr_fused_space_point(space, i, params, sizeof params, &l, &w);
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
            run_case(ctx, rng, &shapes[k], params, (size_t)(w + l + (int)k) % 3);
    }
    /* chunks: right pairs (one-to-many 7 rights: 4 pairs in 1+1+1+1 or 2+2, or 3+1), lefts within a chunk (n-to-m:
     * fused_batch below 2 x lefts splits the lefts), lefts' spectra in several chunks (n_left > pairs per chunk) */
    const clpk_xcorr_shape c1 = shape(CLPK_XCORR_ONE_TO_MANY, 10, 6, 1, 7, 0, 0, CLPK_PRECISION_F32);
    const clpk_xcorr_shape c2 = shape(CLPK_XCORR_N_TO_M, 5, 9, 3, 5, 3, 0, CLPK_PRECISION_F32);
    const clpk_xcorr_shape c3 = shape(CLPK_XCORR_N_TO_MN, 7, 7, 3, 9, 0, 0, CLPK_PRECISION_F32);
    static const char *const chunks[] = {"fused_batch=1", "fused_batch=2,rows=4", "fused_batch=3,rows=8,wg=64",
                                         "fused_batch=4", "fused_batch=6,rows=2", "fused_batch=13"};
    for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; ++i) {
        run_case(ctx, rng, &c1, chunks[i], i % 3);
        run_case(ctx, rng, &c2, chunks[i], (i + 1) % 3);
        run_case(ctx, rng, &c3, chunks[i], (i + 2) % 3);
    }
    /* local memory without gaps (fused_gaps=0), every rows value, smooth and pow2 */
    for (int l = 0; l < 4; ++l) {
        snprintf(params, sizeof params, "fused_gaps=0,rows=%d,wg=%d,fft_pad=%s", space->lines[l], space->wgs[l % 3],
                 space->pads[l % 2]);
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
            run_case(ctx, rng, &shapes[k], params, k);
    }
    /* intermediates in tiles (fused_tiles=1) and row-major (0) with every rows value and a non-power-of-two one
     * (rows 3: tiles whose width does not divide the padded row), both paddings, a radix-8 program, chunks */
    static const int tile_lines[] = {1, 2, 3, 4, 8};
    for (int t = 0; t < 2; ++t)
        for (size_t l = 0; l < sizeof tile_lines / sizeof tile_lines[0]; ++l) {
            snprintf(params, sizeof params, "fused_tiles=%d,rows=%d,wg=%d,fft_pad=%s%s", t, tile_lines[l],
                     space->wgs[(l + (size_t)t) % 3], space->pads[(l + (size_t)t) % 2],
                     l == 2 ? ",fft_radix=8" : (l == 4 ? ",fused_batch=2" : ""));
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
                run_case(ctx, rng, &shapes[k], params, (k + l) % 3);
        }
    /* the larger FFT radices (a program each) with every rows value, both paddings and each wg */
    static const char *const radices[] = {"8", "16"};
    for (int r = 0; r < 2; ++r)
        for (int l = 0; l < 4; ++l) {
            snprintf(params, sizeof params, "fft_radix=%s,rows=%d,wg=%d,fft_pad=%s", radices[r], space->lines[l],
                     space->wgs[(l + r) % 3], space->pads[(l + r) % 2]);
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
                run_case(ctx, rng, &shapes[k], params, (k + (size_t)l) % 3);
        }
    /* 16 lines (the defaults' choice on GPUs for f32 at 2048 complex values a work-group), both radices, tiles and
     * row-major */
    for (int r = 0; r < 2; ++r)
        for (int t = 0; t < 2; ++t) {
            snprintf(params, sizeof params, "fft_radix=%s,rows=16,wg=%d,fused_tiles=%d,fft_pad=%s", radices[r],
                     space->wgs[(r + t) % 3], t, space->pads[(r + t) % 2]);
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
                run_case(ctx, rng, &shapes[k], params, (k + (size_t)t) % 3);
        }
    /* the GPU defaults' plans at their sizes: lines of 128 and 256 points on radix-16 stages, one butterfly a
     * work-item a stage (8 lines of 128 and 4 of 256 on 64 items, tiles) */
    const clpk_xcorr_shape d64 = shape(CLPK_XCORR_ONE_TO_MANY, 64, 64, 1, 3, 0, 0, CLPK_PRECISION_F32);
    const clpk_xcorr_shape d128 = shape(CLPK_XCORR_N_TO_MN, 128, 128, 1, 2, 0, 0, CLPK_PRECISION_F32);
    run_case(ctx, rng, &d64, "fft_radix=16,rows=8,wg=64,fused_tiles=1", 1);
    run_case(ctx, rng, &d128, "fft_radix=16,rows=4,wg=64,fused_tiles=1", 2);
    /* one-to-one's row work-group size: read by the table, ignored here */
    run_case(ctx, rng, &shapes[1], "fused_row_wg=32,rows=4,wg=128", 0);
}

/* f64 beyond the sizes: a few points of the space. */
static void f64_cases(clpk_context *ctx, uint64_t *rng) {
    const clpk_xcorr_shape a = shape(CLPK_XCORR_N_TO_M, 17, 13, 2, 5, 0, 0, CLPK_PRECISION_F64);
    const clpk_xcorr_shape b = shape(CLPK_XCORR_N_TO_MN, 13, 17, 3, 9, 5, 7, CLPK_PRECISION_F64);
    run_case(ctx, rng, &a, "fft_pad=pow2,rows=8,wg=64", 1);
    run_case(ctx, rng, &a, "rows=2,wg=256,fused_batch=2", 0);
    run_case(ctx, rng, &b, "rows=4,wg=128,fused_batch=3,fused_gaps=0", 2);
    run_case(ctx, rng, &a, "fft_radix=16,fft_pad=pow2", 2);
    run_case(ctx, rng, &b, "fft_radix=8,rows=2", 1);
    run_case(ctx, rng, &a, "fused_tiles=1,rows=4", 0);
    run_case(ctx, rng, &b, "fused_tiles=0,rows=4", 2);
    run_case(ctx, rng, &a, "fused_tiles=1,rows=16,wg=128", 1);
    /* the GPU defaults at 64^2 (lines of 128: 4 on 64 items, radix 16, tiles) */
    const clpk_xcorr_shape d64 = shape(CLPK_XCORR_ONE_TO_MANY, 64, 64, 1, 2, 0, 0, CLPK_PRECISION_F64);
    run_case(ctx, rng, &d64, "fft_radix=16,rows=4,wg=64,fused_tiles=1", 0);
}

/* Local memory: past the device's, refused with a message; fits() agrees; 256^2 fits 48 KiB with one line. */
static void limits(clpk_context *ctx) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    /* K2 holds 2 * pr complex values with one line and one left a pair (3 * pr for n-to-m) */
    const int rows = (int)(dev->local_mem_bytes / 16 + 1);
    clpk_xcorr_shape s = shape(CLPK_XCORR_ONE_TO_MANY, rows, 1, 1, 2, 1, 1, CLPK_PRECISION_F32);
    clpk_xcorr_plan *plan = NULL;
    const clpk_status st = clpk_xcorr_plan_create(ctx, &s, "fused-fft", "rows=1", &plan);
    clpk_xcorr_plan_destroy(plan);
    CHECK(st == CLPK_ERROR_UNSUPPORTED && strstr(clpk_last_error(ctx), "local memory"),
          "rows past local memory: %s (%s)", clpk_status_string(st), clpk_last_error(ctx));
    CHECK(!xcorr_fused_fits(ctx, &s, 1, 0), "fits() accepts %d rows", rows);
    s = shape(CLPK_XCORR_N_TO_MN, 8, 8, 2, 4, 0, 0, CLPK_PRECISION_F32);
    CHECK(xcorr_fused_fits(ctx, &s, 8, 0), "fits() refuses 8x8 n-to-mn");
    CHECK(!xcorr_fused_fits(ctx, &s, 17, 0), "fits() accepts 17 lines");
    if (dev->local_mem_bytes >= 48 * 1024) {
        s = shape(CLPK_XCORR_N_TO_M, 256, 256, 2, 2, 0, 0, CLPK_PRECISION_F32);
        CHECK(xcorr_fused_fits(ctx, &s, 1, 0), "256^2 f32 does not fit 48 KiB with one line");
        s.precision = CLPK_PRECISION_F64;
        CHECK(xcorr_fused_fits(ctx, &s, 1, 0), "256^2 f64 does not fit 48 KiB with one line");
    }
}

int main(void) {
    uint64_t rng = check_seed();
    const xcorr_fused_suite suite = {
        sizes, sweep, f64_cases, shape(CLPK_XCORR_N_TO_M, 14, 19, 2, 3, 0, 0, CLPK_PRECISION_F32), "fused-fft n-to-m",
        limits};
    xcorr_fused_suite_run(&suite, &rng);
    return check_summary();
}
