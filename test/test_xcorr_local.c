/* The "local" direct algorithm (cl/xcorr_local.cl): every value of every parameter of its tuner space (the values
 * the family's table searches, lib/xcorr/xcorr_params.c, within tuner/tune_xcorr.c's limits for local: rows {1,2,4}
 * x shifts {1,2,4,8}, all 12 pairs, wg {64,128,256} cycling along them)
 * on all four patterns, 1x1, odd, non-square, search windows, buffer offsets, NaN-poisoned outputs and guards,
 * against the double CPU reference; the H100's local-memory limit (48 KiB: f32 64x96 fills it exactly, 78x78), f64,
 * bit-identical reruns, and clean refusals (matrices past this device's local memory, bad parameters). */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "param_table.h"
#include "xcorr_direct.h"
#include "xcorr_params.h"
#include "xcorr_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void label_of(char *buf, size_t size, const clpk_xcorr_shape *s, const char *params) {
    snprintf(buf, size, "local %s %s %dx%d %d/%d win %dx%d {%s}", clpk_xcorr_pattern_name(s->pattern),
             clpk_precision_name(s->precision), s->rows, s->cols, s->n_left, s->n_right, s->search_rows, s->search_cols,
             params ? params : "defaults");
}

/* The values the table searches for parameter `name`, as integers within [lo, hi] (the tuner's limits for local). */
static int searched(const char *name, int lo, int hi, int *out, int capacity) {
    const char *values[24];
    char storage[256];
    const int n =
        core_param_search_values(core_param_find(&xcorr_param_table, name), values, storage, sizeof storage, 24);
    int kept = 0;
    for (int i = 0; i < n && kept < capacity; ++i)
        if (atoi(values[i]) >= lo && atoi(values[i]) <= hi) out[kept++] = atoi(values[i]);
    return kept;
}

static void sweep(clpk_context *ctx, uint64_t *rng) {
    int block_rows[24], block_cols[24], wgs[24];
    const int n_rows = searched("rows", 1, 4, block_rows, 24), n_cols = searched("shifts", 1, 16, block_cols, 24);
    const int n_wgs = searched("wg", 64, 1 << 16, wgs, 24);
    CHECK(n_rows > 0 && n_cols > 0 && n_wgs > 0, "the table searches no rows, shifts or wg");
    char params[96], label[256];
    int n = 0;
    for (int r = 0; r < n_rows; ++r)
        for (int c = 0; c < n_cols && n_wgs > 0; ++c, ++n) {
            snprintf(params, sizeof params, "rows=%d,shifts=%d,wg=%d", block_rows[r], block_cols[c], wgs[n % n_wgs]);
            for (size_t s = 0; s < XCORR_SWEEP_SHAPES; ++s) {
                label_of(label, sizeof label, &xcorr_sweep_shapes[s], params);
                xcorr_check_case(ctx, rng, &xcorr_sweep_shapes[s], "local", params, (size_t)(n + (int)s) % 3, label);
            }
        }
}

/* The plan counts the kernel's own local memory too (CL_KERNEL_LOCAL_MEM_SIZE): NVIDIA reports 1 byte for this
 * kernel, PoCL 0, so a shape whose matrices fill the local memory exactly fits on one and is refused on the other.
 * 1 when the last error is that refusal with a non-zero own share (the boundary then sits that many bytes lower). */
static int refused_for_own_local(const clpk_context *ctx) {
    const char *m = clpk_last_error(ctx);
    return strstr(m, "of the kernel's own") != NULL && strstr(m, "plus 0 of the kernel's own") == NULL;
}

/* A plan for a shape at the local-memory boundary: created, or refused only for the kernel's own share. */
static int boundary_plan(clpk_context *ctx, const clpk_xcorr_shape *s, const char *params, const char *label) {
    clpk_xcorr_plan *plan = NULL;
    const clpk_status st = clpk_xcorr_plan_create(ctx, s, "local", params, &plan);
    clpk_xcorr_plan_destroy(plan);
    if (st == CLPK_ERROR_UNSUPPORTED && refused_for_own_local(ctx)) {
        printf("skip %s: %s\n", label, clpk_last_error(ctx));
        return 0;
    }
    CHECK(st == CLPK_SUCCESS, "%s (fits the local memory) refused: %s", label, clpk_last_error(ctx));
    return st == CLPK_SUCCESS;
}

/* The sizes where the matrices fill the H100's 48 KiB (here only if this device has that much), in f32 and f64,
 * and f64 on several patterns. */
static void limits_and_f64(clpk_context *ctx, uint64_t *rng) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const clpk_xcorr_shape big[] = {
        {CLPK_XCORR_ONE_TO_ONE, 64, 96, 2, 2, 0, 0, CLPK_PRECISION_F32}, /* 2*64*96*4 = 48 KiB exactly */
        {CLPK_XCORR_ONE_TO_ONE, 78, 78, 2, 2, 0, 0, CLPK_PRECISION_F32},
        {CLPK_XCORR_ONE_TO_MANY, 48, 64, 1, 2, 11, 21, CLPK_PRECISION_F64}, /* 48 KiB in f64, with a window */
        {CLPK_XCORR_N_TO_MN, 11, 6, 2, 4, 0, 0, CLPK_PRECISION_F64},
        {CLPK_XCORR_N_TO_M, 9, 10, 2, 3, 5, 0, CLPK_PRECISION_F64},
    };
    static const char *const params[] = {"rows=4,shifts=8,wg=256", NULL, "rows=2,shifts=8,wg=64",
                                         "rows=1,shifts=2,wg=128", "rows=4,shifts=1,wg=256"};
    char label[256];
    for (size_t s = 0; s < sizeof big / sizeof big[0]; ++s) {
        label_of(label, sizeof label, &big[s], params[s]);
        if (big[s].precision == CLPK_PRECISION_F64 && !dev->has_fp64) {
            printf("skip %s: no f64 on %s\n", label, dev->name);
            continue;
        }
        if (xcorr_local_bytes(&big[s]) > dev->local_mem_bytes) {
            printf("skip %s: needs more than the %llu bytes of local memory here\n", label,
                   (unsigned long long)dev->local_mem_bytes);
            continue;
        }
        if (!boundary_plan(ctx, &big[s], params[s], label)) continue;
        xcorr_check_case(ctx, rng, &big[s], "local", params[s], s % 2, label);
    }
}

static void refuses(clpk_context *ctx, const clpk_xcorr_shape *s, const char *params, clpk_status want,
                    const char *text) {
    clpk_xcorr_plan *plan = NULL;
    const clpk_status st = clpk_xcorr_plan_create(ctx, s, "local", params, &plan);
    CHECK(st == want && !plan, "local {%s} %dx%d: status %s (want %s)", params ? params : "", s->rows, s->cols,
          clpk_status_string(st), clpk_status_string(want));
    CHECK(strstr(clpk_last_error(ctx), text) != NULL, "local {%s}: message '%s' lacks '%s'", params ? params : "",
          clpk_last_error(ctx), text);
    clpk_xcorr_plan_destroy(plan);
}

/* Matrices one element past this device's local memory are refused (no inputs are allocated for that), as are
 * parameters outside their ranges; "auto" never fails for that reason. */
static void refusals(clpk_context *ctx) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const int rows = 8, cols = (int)(dev->local_mem_bytes / (2 * sizeof(float) * rows)) + 1;
    const clpk_xcorr_shape too_big = {CLPK_XCORR_ONE_TO_ONE, rows, cols, 1, 1, 1, 1, CLPK_PRECISION_F32};
    refuses(ctx, &too_big, NULL, CLPK_ERROR_UNSUPPORTED, "local memory");
    const clpk_xcorr_shape fits = {CLPK_XCORR_ONE_TO_ONE, rows, cols - 1, 1, 1, 1, 1, CLPK_PRECISION_F32};
    char label[96];
    snprintf(label, sizeof label, "local %dx%d (the matrices fill the local memory)", rows, cols - 1);
    if (!boundary_plan(ctx, &fits, NULL, label)) { /* then one row less must fit */
        const clpk_xcorr_shape less = {CLPK_XCORR_ONE_TO_ONE, rows - 1, cols - 1, 1, 1, 1, 1, CLPK_PRECISION_F32};
        snprintf(label, sizeof label, "local %dx%d (one row under the local memory)", rows - 1, cols - 1);
        boundary_plan(ctx, &less, NULL, label);
    }
    const clpk_xcorr_shape small = {CLPK_XCORR_N_TO_M, 5, 4, 2, 2, 0, 0, CLPK_PRECISION_F32};
    refuses(ctx, &small, "rows=0", CLPK_ERROR_INVALID_ARGUMENT, "rows=0");
    refuses(ctx, &small, "shifts=17", CLPK_ERROR_INVALID_ARGUMENT, "shifts=17");
    refuses(ctx, &small, "wg=x", CLPK_ERROR_INVALID_ARGUMENT, "wg=x");
    refuses(ctx, &small, "rights=2", CLPK_ERROR_INVALID_ARGUMENT, "rights");
}

/* No atomics and one writer per element: two runs agree bit for bit (a moving result would be a race). */
static void determinism(clpk_context *ctx, uint64_t *rng) {
    const clpk_xcorr_shape shape = {CLPK_XCORR_N_TO_M, 23, 19, 2, 2, 0, 0, CLPK_PRECISION_F32};
    const size_t mat = (size_t)shape.rows * shape.cols;
    const size_t no = clpk_xcorr_output_count(&shape) * clpk_xcorr_output_rows(&shape) * clpk_xcorr_output_cols(&shape);
    double *l = malloc(2 * mat * sizeof *l), *r = malloc(2 * mat * sizeof *r);
    double *a = malloc(no * sizeof *a), *b = malloc(no * sizeof *b);
    if (!CHECK(l && r && a && b, "out of host memory")) goto done;
    xcorr_fill_random(rng, l, 2 * mat);
    xcorr_fill_random(rng, r, 2 * mat);
    clpk_xcorr_plan *plan = NULL;
    int g1 = 0, g2 = 0;
    clpk_status st = clpk_xcorr_plan_create(ctx, &shape, "local", "rows=2,shifts=4,wg=64", &plan);
    if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, &shape, l, r, 0, a, &g1);
    if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, &shape, l, r, 0, b, &g2);
    if (CHECK(st == CLPK_SUCCESS, "determinism: %s", clpk_last_error(ctx)))
        CHECK(memcmp(a, b, no * sizeof *a) == 0 && g1 && g2, "local: two runs differ");
    clpk_xcorr_plan_destroy(plan);
done:
    free(l);
    free(r);
    free(a);
    free(b);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    printf("device: %s, local memory %llu bytes\n", clpk_context_device_info(ctx)->name,
           (unsigned long long)clpk_context_device_info(ctx)->local_mem_bytes);
    const double t0 = core_wall_seconds();
    sweep(ctx, &rng);
    printf("sweep: %.1f s\n", core_wall_seconds() - t0);
    limits_and_f64(ctx, &rng);
    printf("limits and f64: %.1f s\n", core_wall_seconds() - t0);
    refusals(ctx);
    determinism(ctx, &rng);
    printf("total: %.1f s\n", core_wall_seconds() - t0);
    clpk_context_destroy(ctx);
    return check_summary();
}
