/* The fused FFT path ("fused-fft", lib/xcorr/xcorr_fused.c, cl/xcorr_fused.cl) against the double CPU reference: sizes
 * 1x1 .. 96x96 (odd, rectangular, a single row or column, 2^i 3^j padded sizes), full outputs and search windows,
 * batches of several pairs with distinct data, buffer offsets, NaN-poisoned outputs and guards (test/support
 * xcorr_run), every value of every tuner parameter (fft_pad x rows (FFT lines per work-group) x wg: runtime arguments,
 * one program per precision; fft_radix 8 and 16, a program each, with every rows value, both paddings and each wg),
 * chunking (fused_batch), f64, bit-identical reruns, clean refusals; the built-in choice for the other patterns (their
 * fused path: test_xcorr_fused_many). Error bounds: those of the plan-level checks (1e-5 f32, 1e-12 f64, max-norm
 * relative). */
#include "check.h"
#include "clpk_xcorr.h"
#include "xcorr_fused.h"
#include "xcorr_fused_check.h"
#include "xcorr_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static clpk_xcorr_shape one_to_one(int rows, int cols, int pairs, int srows, int scols, clpk_precision p) {
    clpk_xcorr_shape s = {CLPK_XCORR_ONE_TO_ONE, rows, cols, pairs, pairs, srows, scols, p};
    return s;
}

static void run_case(clpk_context *ctx, uint64_t *rng, const clpk_xcorr_shape *s, const char *params, size_t offset) {
    char label[256];
    snprintf(label, sizeof label, "fused-fft %s %dx%d x%d win %dx%d {%s}", clpk_precision_name(s->precision), s->rows,
             s->cols, s->n_left, s->search_rows, s->search_cols, params ? params : "defaults");
    xcorr_check_case(ctx, rng, s, "fused-fft", params, offset, label);
}

static void sizes(clpk_context *ctx, uint64_t *rng, clpk_precision p) {
    /* 6 x 9 pads to 12 x 18 (smooth): first stages of radix 4 and 2 whose upper halves are zero (fft_fill_len) */
    static const int dims[][2] = {{1, 1},   {1, 7},   {7, 1},   {2, 2},   {3, 5},   {8, 8},
                                  {16, 16}, {24, 24}, {31, 17}, {64, 64}, {96, 96}, {6, 9}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; ++i) {
        const int r = dims[i][0], c = dims[i][1];
        if (p == CLPK_PRECISION_F64 && r * c > 1024) continue; /* f64: the small and mid sizes */
        const clpk_xcorr_shape s = one_to_one(r, c, r * c > 1024 ? 2 : 5, 0, 0, p);
        run_case(ctx, rng, &s, NULL, i % 3);
    }
    /* search windows (centred, odd), smaller padding */
    const clpk_xcorr_shape w1 = one_to_one(31, 17, 3, 9, 15, p), w2 = one_to_one(24, 24, 4, 5, 47, p);
    const clpk_xcorr_shape w3 = one_to_one(9, 12, 3, 17, 1, p);
    run_case(ctx, rng, &w1, NULL, 1);
    run_case(ctx, rng, &w2, NULL, 0);
    run_case(ctx, rng, &w3, NULL, 2);
    /* radix-16 and -8 stages at the larger sizes: 64^2 pads to 128 = 16 x 8, 96^2 to 192 = 16 x 4 x 3 */
    if (p == CLPK_PRECISION_F32)
        for (int i = 9; i < 11; ++i) {
            const clpk_xcorr_shape s = one_to_one(dims[i][0], dims[i][1], 2, 0, 0, p);
            run_case(ctx, rng, &s, i == 9 ? "fft_radix=16" : "fft_radix=16,rows=2", 1);
            run_case(ctx, rng, &s, "fft_radix=8", 0);
        }
}

/* Every point of the tuner's space for fused-fft: the table's fft_pad {pow2, smooth} x rows {1,2,4,8,16} x wg from 64
 * ({64,128,256}: the tuner's `valid` leaves out 32), on shapes whose line counts leave partial work-groups (5 pairs,
 * odd rows, a window). */
static void sweep(clpk_context *ctx, uint64_t *rng, const xcorr_fused_space *space) {
    const clpk_xcorr_shape a = one_to_one(17, 13, 5, 0, 0, CLPK_PRECISION_F32);
    const clpk_xcorr_shape b = one_to_one(12, 20, 3, 7, 9, CLPK_PRECISION_F32);
    char params[128];
    for (int i = 0; i < space->n_points; ++i) {
        int l, w;
        xcorr_fused_space_point(space, i, params, sizeof params, &l, &w);
        run_case(ctx, rng, &a, params, (size_t)w);
        run_case(ctx, rng, &b, params, (size_t)l % 2);
    }
    /* chunks of pairs: 2+2+1 and 3+3+1 (the last chunk partial) */
    const clpk_xcorr_shape c = one_to_one(10, 6, 5, 0, 0, CLPK_PRECISION_F32);
    const clpk_xcorr_shape d = one_to_one(5, 9, 7, 3, 0, CLPK_PRECISION_F32);
    run_case(ctx, rng, &c, "fused_batch=2", 1);
    run_case(ctx, rng, &d, "fused_batch=3,rows=4", 0);
    run_case(ctx, rng, &c, "fused_batch=1,rows=8,wg=64", 2);
    /* local memory without gaps (fused_gaps=0), every rows value, smooth and pow2 */
    for (int l = 0; l < 4; ++l) {
        snprintf(params, sizeof params, "fused_gaps=0,rows=%d,wg=%d,fft_pad=%s", space->lines[l], space->wgs[l % 3],
                 space->pads[l % 2]);
        run_case(ctx, rng, &a, params, 1);
        run_case(ctx, rng, &b, params, 0);
    }
    /* the larger FFT radices with every rows value, both paddings and each wg: lengths whose stages mix radix 16 or 8
     * with 4, 2 and 3 (a: 36 or 64 rows, 32 columns; b: 16 rows, 24 columns) */
    static const char *const radices[] = {"8", "16"};
    for (int r = 0; r < 2; ++r)
        for (int l = 0; l < 4; ++l) {
            snprintf(params, sizeof params, "fft_radix=%s,rows=%d,wg=%d,fft_pad=%s", radices[r], space->lines[l],
                     space->wgs[(l + r) % 3], space->pads[(l + r) % 2]);
            run_case(ctx, rng, &a, params, 1);
            run_case(ctx, rng, &b, params, 0);
        }
    /* the row kernels (K1, K3) on their own work-group size, smaller and larger than the column kernel's, both
     * radices */
    static const int row_wgs[] = {32, 64, 128, 256};
    for (int w = 0; w < 4; ++w) {
        snprintf(params, sizeof params, "fused_row_wg=%d,rows=%d,wg=%d,fft_radix=%s", row_wgs[w], space->lines[w],
                 space->wgs[(w + 1) % 3], radices[w % 2]);
        run_case(ctx, rng, &a, params, 2);
        run_case(ctx, rng, &b, params, 1);
    }
}

/* f64 beyond the sizes: a few points of the space. */
static void f64_cases(clpk_context *ctx, uint64_t *rng) {
    const clpk_xcorr_shape s = one_to_one(17, 13, 5, 0, 0, CLPK_PRECISION_F64);
    run_case(ctx, rng, &s, "fft_pad=pow2,rows=8,wg=64", 1);
    run_case(ctx, rng, &s, "rows=2,wg=256,fused_batch=2", 0);
    run_case(ctx, rng, &s, "fft_radix=16,rows=4", 2);
    run_case(ctx, rng, &s, "fft_radix=8,fft_pad=pow2", 1);
    run_case(ctx, rng, &s, "fused_row_wg=64,rows=4,wg=128", 0);
}

static void expect_refusal(clpk_context *ctx, const clpk_xcorr_shape *s, const char *params, clpk_status want,
                           const char *text, const char *label) {
    clpk_xcorr_plan *plan = NULL;
    const clpk_status st = clpk_xcorr_plan_create(ctx, s, "fused-fft", params, &plan);
    clpk_xcorr_plan_destroy(plan);
    CHECK(st == want, "%s: status %s, expected %s (%s)", label, clpk_status_string(st), clpk_status_string(want),
          clpk_last_error(ctx));
    CHECK(strstr(clpk_last_error(ctx), text) != NULL, "%s: message '%s' lacks '%s'", label, clpk_last_error(ctx), text);
}

static void refusals(clpk_context *ctx) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    clpk_xcorr_shape s = one_to_one(8, 8, 2, 0, 0, CLPK_PRECISION_F32);
    expect_refusal(ctx, &s, "rows=0", CLPK_ERROR_INVALID_ARGUMENT, "rows", "lines 0");
    expect_refusal(ctx, &s, "rows=17", CLPK_ERROR_INVALID_ARGUMENT, "rows", "lines 17");
    expect_refusal(ctx, &s, "fft_pad=prime", CLPK_ERROR_INVALID_ARGUMENT, "fft_pad", "pad");
    expect_refusal(ctx, &s, "wg=0", CLPK_ERROR_INVALID_ARGUMENT, "wg", "wg 0");
    expect_refusal(ctx, &s, "fft_radix=32", CLPK_ERROR_INVALID_ARGUMENT, "fft_radix", "radix 32");
    expect_refusal(ctx, &s, "fft_batch=4", CLPK_ERROR_INVALID_ARGUMENT, "fft_batch", "key of another algorithm");
    expect_refusal(ctx, &s, "fused_row_wg=-1", CLPK_ERROR_INVALID_ARGUMENT, "fused_row_wg", "row wg -1");
    char past[64];
    snprintf(past, sizeof past, "fused_row_wg=%zu", 2 * dev->max_work_group_size);
    expect_refusal(ctx, &s, past, CLPK_ERROR_INVALID_ARGUMENT, "fused_row_wg", "row wg past the device's limit");
    /* a column FFT past local memory: K2 needs 4 * pr complex values with one line */
    const int rows = (int)(dev->local_mem_bytes / 32 + 1);
    s = one_to_one(rows, 1, 1, 1, 1, CLPK_PRECISION_F32);
    expect_refusal(ctx, &s, "rows=1", CLPK_ERROR_UNSUPPORTED, "local memory", "rows past local memory");
    CHECK(!xcorr_fused_fits(ctx, &s, 1, 0), "fits() accepts %d rows", rows);
    s = one_to_one(8, 8, 2, 0, 0, CLPK_PRECISION_F32);
    CHECK(xcorr_fused_fits(ctx, &s, 8, 0), "fits() refuses 8x8");
    /* the H100's 48 KiB: 256^2 (pr = pc = 512 smooth) fits with one line in f32 and f64 */
    if (dev->local_mem_bytes >= 48 * 1024) {
        s = one_to_one(256, 256, 1, 0, 0, CLPK_PRECISION_F32);
        CHECK(xcorr_fused_fits(ctx, &s, 1, 0), "256^2 f32 does not fit 48 KiB with one line");
        s.precision = CLPK_PRECISION_F64;
        CHECK(xcorr_fused_fits(ctx, &s, 1, 0), "256^2 f64 does not fit 48 KiB with one line");
    }
}

/* The built-in choice (main points the profile search at an empty folder): on GPUs every pattern takes fused-fft where
 * the rule picks the FFT path (64^2 x 300 outputs); on CPUs (PoCL) they keep VkFFT or a direct variant. Plan creation
 * only. */
static void auto_choice(clpk_context *ctx) {
    const int gpu = clpk_context_device_info(ctx)->kind != CLPK_DEVICE_CPU;
    const clpk_xcorr_shape shapes[] = {one_to_one(64, 64, 300, 0, 0, CLPK_PRECISION_F32),
                                       {CLPK_XCORR_ONE_TO_MANY, 64, 64, 1, 300, 0, 0, CLPK_PRECISION_F32},
                                       {CLPK_XCORR_N_TO_M, 64, 64, 20, 15, 0, 0, CLPK_PRECISION_F32},
                                       {CLPK_XCORR_N_TO_MN, 64, 64, 3, 300, 0, 0, CLPK_PRECISION_F32}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        const char *name = clpk_xcorr_pattern_name(shapes[i].pattern);
        clpk_xcorr_plan *plan = NULL;
        clpk_status st = clpk_xcorr_plan_create(ctx, &shapes[i], "auto", NULL, &plan);
        if (CHECK(st == CLPK_SUCCESS, "auto %s 64^2: %s", name, clpk_last_error(ctx))) {
            const char *algo = clpk_xcorr_plan_algorithm(plan);
            printf("auto %s 64x64: %s\n", name, algo);
            CHECK(gpu ? strcmp(algo, "fused-fft") == 0 : strcmp(algo, "fused-fft") != 0, "auto chose %s for %s on a %s",
                  algo, name, gpu ? "GPU" : "CPU");
        }
        clpk_xcorr_plan_destroy(plan);
    }
}

/* The suite's last step. */
static void refusals_and_choice(clpk_context *ctx) {
    refusals(ctx);
    auto_choice(ctx);
}

int main(void) {
    uint64_t rng = check_seed();
    check_tmp_dir no_profiles;
    if (check_tmp_dir_create(&no_profiles, "xcorr-fused")) setenv("CLPK_PROFILE_DIR", no_profiles.path, 1);
    const xcorr_fused_suite suite = {
        sizes, sweep, f64_cases, one_to_one(24, 19, 4, 0, 0, CLPK_PRECISION_F32), "fused-fft", refusals_and_choice};
    xcorr_fused_suite_run(&suite, &rng);
    check_tmp_dir_remove(&no_profiles);
    return check_summary();
}
