/* Test helpers of the cross-correlation family (see xcorr_run.h). */
#include "xcorr_run.h"

#include "check.h"
#include "clpk_internal.h"
#include "xcorr_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD_AFTER = 16 };

void xcorr_fill_random(uint64_t *rng, double *v, size_t n) {
    for (size_t i = 0; i < n; ++i)
        v[i] = 2.0 * check_rand_double(rng) - 1.0;
}

static void *to_precision(const double *v, size_t n, int is_double, size_t pad) {
    void *p = malloc((n + pad) * (is_double ? sizeof(double) : sizeof(float)) + 1);
    if (!p) return NULL;
    for (size_t i = 0; i < n + pad; ++i) {
        const double x = i < pad ? NAN : v[i - pad];
        if (is_double)
            ((double *)p)[i] = x;
        else
            ((float *)p)[i] = (float)x;
    }
    return p;
}

clpk_status xcorr_run(clpk_context *ctx, clpk_xcorr_plan *plan, const clpk_xcorr_shape *shape, const double *left,
                      const double *right, size_t offset, double *out, int *guards_ok) {
    const int is_double = shape->precision == CLPK_PRECISION_F64;
    const size_t elem = is_double ? sizeof(double) : sizeof(float), mat = (size_t)shape->rows * shape->cols;
    const size_t nl = mat * shape->n_left, nr = mat * shape->n_right;
    const size_t no = clpk_xcorr_output_count(shape) * clpk_xcorr_output_rows(shape) * clpk_xcorr_output_cols(shape);
    const size_t no_all = offset + no + GUARD_AFTER;
    void *hl = to_precision(left, nl, is_double, offset), *hr = to_precision(right, nr, is_double, offset);
    void *ho = malloc(no_all * elem);
    clpk_status st = hl && hr && ho ? CLPK_SUCCESS : CLPK_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; ho && i < no_all; ++i) {
        if (is_double)
            ((double *)ho)[i] = NAN;
        else
            ((float *)ho)[i] = NAN;
    }
    cl_context c = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc = CL_SUCCESS;
    cl_mem bl = NULL, br = NULL, bo = NULL;
    if (st == CLPK_SUCCESS) {
        bl = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (nl + offset) * elem, hl, &rc);
        if (rc == CL_SUCCESS)
            br = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (nr + offset) * elem, hr, &rc);
        if (rc == CL_SUCCESS) bo = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, no_all * elem, ho, &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer(test)");
    }
    if (st == CLPK_SUCCESS) st = clpk_xcorr_execute(plan, bl, offset, br, offset, bo, offset, 0, NULL, NULL);
    if (st == CLPK_SUCCESS) {
        rc = clEnqueueReadBuffer(q, bo, CL_TRUE, 0, no_all * elem, ho, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueReadBuffer(test)");
    }
    if (st == CLPK_SUCCESS) {
        int ok = 1;
        for (size_t i = 0; i < no_all; ++i) {
            const double v = is_double ? ((double *)ho)[i] : (double)((float *)ho)[i];
            if (i < offset || i >= offset + no)
                ok &= isnan(v) ? 1 : 0;
            else
                out[i - offset] = v;
        }
        *guards_ok = ok;
    }
    if (bl) clReleaseMemObject(bl);
    if (br) clReleaseMemObject(br);
    if (bo) clReleaseMemObject(bo);
    free(hl);
    free(hr);
    free(ho);
    return st;
}

double xcorr_check_case(clpk_context *ctx, uint64_t *rng, const clpk_xcorr_shape *shape, const char *algorithm,
                        const char *params, size_t offset, const char *label) {
    const size_t mat = (size_t)shape->rows * shape->cols;
    const size_t no = clpk_xcorr_output_count(shape) * clpk_xcorr_output_rows(shape) * clpk_xcorr_output_cols(shape);
    double *left = malloc(mat * shape->n_left * sizeof *left), *right = malloc(mat * shape->n_right * sizeof *right);
    double *ref = malloc(no * sizeof *ref), *got = malloc(no * sizeof *got);
    double e = INFINITY;
    clpk_xcorr_plan *plan = NULL;
    if (!CHECK(left && right && ref && got, "%s: out of host memory", label)) goto done;
    xcorr_fill_random(rng, left, mat * shape->n_left);
    xcorr_fill_random(rng, right, mat * shape->n_right);
    double started = check_seconds();
    clpk_status st = clpk_xcorr_plan_create(ctx, shape, algorithm, params, &plan);
    if (!CHECK(st == CLPK_SUCCESS, "%s: plan: %s: %s", label, clpk_status_string(st), clpk_last_error(ctx))) goto done;
    int guards = 0;
    st = xcorr_run(ctx, plan, shape, left, right, offset, got, &guards);
    char point[320];
    snprintf(point, sizeof point, "%s: %s", label, clpk_xcorr_plan_algorithm(plan));
    check_build_time("xcorr", point, check_seconds() - started);
    xcorr_reference(shape, left, right, ref);
    if (!CHECK(st == CLPK_SUCCESS, "%s: run: %s: %s", label, clpk_status_string(st), clpk_last_error(ctx))) goto done;
    e = check_rel_error(ref, got, no);
    const double tol = shape->precision == CLPK_PRECISION_F64 ? 1e-12 : 1e-5;
    char used[256];
    clpk_xcorr_plan_params(plan, used, sizeof used);
    CHECK(e <= tol, "%s [%s %s]: relative error %.3g > %.1g", label, clpk_xcorr_plan_algorithm(plan), used, e, tol);
    CHECK(guards, "%s [%s %s]: wrote outside its output", label, clpk_xcorr_plan_algorithm(plan), used);
done:
    clpk_xcorr_plan_destroy(plan);
    free(left);
    free(right);
    free(ref);
    free(got);
    return e;
}

/* pattern, rows, cols, n_left, n_right, search rows, search cols */
const clpk_xcorr_shape xcorr_sweep_shapes[XCORR_SWEEP_SHAPES] = {
    {CLPK_XCORR_ONE_TO_ONE, 1, 1, 3, 3, 0, 0, CLPK_PRECISION_F32},
    {CLPK_XCORR_ONE_TO_ONE, 17, 13, 2, 2, 0, 0, CLPK_PRECISION_F32},
    {CLPK_XCORR_ONE_TO_MANY, 7, 1, 1, 5, 0, 0, CLPK_PRECISION_F32},
    {CLPK_XCORR_ONE_TO_MANY, 33, 31, 1, 3, 9, 15, CLPK_PRECISION_F32},
    {CLPK_XCORR_N_TO_MN, 5, 9, 2, 6, 0, 0, CLPK_PRECISION_F32},
    {CLPK_XCORR_N_TO_M, 6, 6, 3, 5, 0, 0, CLPK_PRECISION_F32},
    {CLPK_XCORR_N_TO_M, 2, 3, 1, 2, 1, 5, CLPK_PRECISION_F32},
};
