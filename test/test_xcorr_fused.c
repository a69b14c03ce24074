/* The fused FFT path ("fused-fft", lib/xcorr/xcorr_fused.c, cl/xcorr_fused.cl) against the double CPU reference: sizes
 * 1x1 .. 96x96 (odd, rectangular, a single row or column, 2^i 3^j padded sizes), full outputs and search windows,
 * batches of several pairs with distinct data, buffer offsets, NaN-poisoned outputs and guards (test/support
 * xcorr_run), every value of every tuner parameter (fft_pad x rows (FFT lines per work-group) x wg: runtime arguments,
 * one program per precision), chunking (fused_batch), f64, bit-identical reruns, clean refusals; the built-in choice
 * for the other patterns (their fused path: test_xcorr_fused_many). Error bounds: those of
 * the plan-level checks (1e-5 f32, 1e-12 f64, max-norm relative). */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "param_table.h"
#include "xcorr_fused.h"
#include "xcorr_params.h"
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
    static const int dims[][2] = {{1, 1},   {1, 7},   {7, 1},   {2, 2},   {3, 5},  {8, 8},
                                  {16, 16}, {24, 24}, {31, 17}, {64, 64}, {96, 96}};
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
}

/* The values the table (lib/xcorr/xcorr_params.c) searches for parameter `name`. */
static int searched(const char *name, const char **out, char *storage, size_t size) {
    return core_param_search_values(core_param_find(&xcorr_param_table, name), out, storage, size, 16);
}

/* Every point of the tuner's space for fused-fft: the table's fft_pad {pow2, smooth} x rows {1,2,4,8} x wg from 64
 * ({64,128,256}: the tuner's `valid` leaves out 32), on shapes whose line counts leave partial work-groups (5 pairs,
 * odd rows, a window). */
static void sweep(clpk_context *ctx, uint64_t *rng) {
    const char *pads[16], *line_values[16], *wg_values[16];
    char pad_s[128], line_s[128], wg_s[128];
    const int n_pads = searched("fft_pad", pads, pad_s, sizeof pad_s);
    const int n_lines = searched("rows", line_values, line_s, sizeof line_s);
    const int n_wg_values = searched("wg", wg_values, wg_s, sizeof wg_s);
    int lines[16], wgs[16], n_wgs = 0;
    for (int i = 0; i < n_lines; ++i)
        lines[i] = atoi(line_values[i]);
    for (int i = 0; i < n_wg_values; ++i)
        if (atoi(wg_values[i]) >= 64) wgs[n_wgs++] = atoi(wg_values[i]);
    CHECK(n_pads == 2 && n_lines >= 4 && n_wgs >= 3, "the table's fused-fft values changed: extend the sweep");
    if (n_pads < 2 || n_lines < 4 || n_wgs < 3) return;
    const clpk_xcorr_shape a = one_to_one(17, 13, 5, 0, 0, CLPK_PRECISION_F32);
    const clpk_xcorr_shape b = one_to_one(12, 20, 3, 7, 9, CLPK_PRECISION_F32);
    char params[128];
    for (int p = 0; p < n_pads; ++p)
        for (int l = 0; l < n_lines; ++l)
            for (int w = 0; w < n_wgs; ++w) {
                snprintf(params, sizeof params, "fft_pad=%s,rows=%d,wg=%d", pads[p], lines[l], wgs[w]);
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
        snprintf(params, sizeof params, "fused_gaps=0,rows=%d,wg=%d,fft_pad=%s", lines[l], wgs[l % 3], pads[l % 2]);
        run_case(ctx, rng, &a, params, 1);
        run_case(ctx, rng, &b, params, 0);
    }
}

/* Two runs of one plan on the same data give the same bits. */
static void determinism(clpk_context *ctx, uint64_t *rng) {
    const clpk_xcorr_shape s = one_to_one(24, 19, 4, 0, 0, CLPK_PRECISION_F32);
    const size_t mat = (size_t)s.rows * s.cols, no = (size_t)4 * (2 * s.rows - 1) * (2 * s.cols - 1);
    double *l = malloc(mat * 4 * sizeof *l), *r = malloc(mat * 4 * sizeof *r);
    double *o1 = malloc(no * sizeof *o1), *o2 = malloc(no * sizeof *o2);
    clpk_xcorr_plan *plan = NULL;
    if (CHECK(l && r && o1 && o2, "determinism: out of memory") &&
        CHECK(clpk_xcorr_plan_create(ctx, &s, "fused-fft", NULL, &plan) == CLPK_SUCCESS, "determinism plan: %s",
              clpk_last_error(ctx))) {
        xcorr_fill_random(rng, l, mat * 4);
        xcorr_fill_random(rng, r, mat * 4);
        int g1 = 0, g2 = 0;
        const clpk_status s1 = xcorr_run(ctx, plan, &s, l, r, 0, o1, &g1);
        const clpk_status s2 = xcorr_run(ctx, plan, &s, l, r, 3, o2, &g2);
        CHECK(s1 == CLPK_SUCCESS && s2 == CLPK_SUCCESS && g1 && g2, "determinism runs");
        CHECK(memcmp(o1, o2, no * sizeof *o1) == 0, "fused-fft: two runs differ");
    }
    clpk_xcorr_plan_destroy(plan);
    free(l);
    free(r);
    free(o1);
    free(o2);
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
    expect_refusal(ctx, &s, "fft_batch=4", CLPK_ERROR_INVALID_ARGUMENT, "fft_batch", "key of another algorithm");
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

int main(void) {
    uint64_t rng = check_seed();
    check_tmp_dir no_profiles;
    if (check_tmp_dir_create(&no_profiles, "xcorr-fused")) setenv("CLPK_PROFILE_DIR", no_profiles.path, 1);
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s, local memory %llu bytes\n", dev->name, (unsigned long long)dev->local_mem_bytes);
    const double t0 = core_wall_seconds();
    sizes(ctx, &rng, CLPK_PRECISION_F32);
    printf("f32 sizes: %.1f s\n", core_wall_seconds() - t0);
    sweep(ctx, &rng);
    printf("sweep: %.1f s\n", core_wall_seconds() - t0);
    if (dev->has_fp64) {
        sizes(ctx, &rng, CLPK_PRECISION_F64);
        const clpk_xcorr_shape s = one_to_one(17, 13, 5, 0, 0, CLPK_PRECISION_F64);
        run_case(ctx, &rng, &s, "fft_pad=pow2,rows=8,wg=64", 1);
        run_case(ctx, &rng, &s, "rows=2,wg=256,fused_batch=2", 0);
    } else {
        printf("skip f64: %s has no double precision\n", dev->name);
    }
    printf("f64: %.1f s\n", core_wall_seconds() - t0);
    determinism(ctx, &rng);
    refusals(ctx);
    auto_choice(ctx);
    printf("total: %.1f s\n", core_wall_seconds() - t0);
    clpk_context_destroy(ctx);
    check_tmp_dir_remove(&no_profiles);
    return check_summary();
}
