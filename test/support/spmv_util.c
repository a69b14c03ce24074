/* Shared helpers of the spmv tests. */
#include "spmv_util.h"
#include "spmv_internal.h"

#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void spmv_util_reference(const clpk_csr *A, double alpha, const double *x, double beta, const double *y_in,
                         double *y_out) {
    for (int32_t r = 0; r < A->rows; ++r) {
        double s = 0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k)
            s += A->val[k] * x[A->col[k]];
        y_out[r] = alpha * s + (beta != 0 ? beta * y_in[r] : 0.0);
    }
}

void spmv_util_free(clpk_csr *A) {
    free(A->row_ptr);
    free(A->col);
    free(A->val);
    memset(A, 0, sizeof *A);
}

double spmv_util_tolerance(clpk_precision p) { return p == CLPK_PRECISION_F64 ? 1e-12 : 1e-5; }

double spmv_util_error(const clpk_csr *A, double alpha, const double *x, double beta, const double *y_in,
                       const double *ref, const double *got) {
    double rel = check_rel_error(ref, got, (size_t)A->rows);
    if (!isfinite(rel)) return rel;
    /* Rounding in a sum of n terms grows with the terms' magnitudes, not the result's: measure against
     * max_i |alpha| sum_j |a_ij x_j| + |beta y_i| as well, and keep the smaller (NaN was caught above). */
    double diff = 0, scale = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        double s = 0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k)
            s += fabs(A->val[k] * x[A->col[k]]);
        s = fabs(alpha) * s + (beta != 0 ? fabs(beta * y_in[r]) : 0.0);
        if (s > scale) scale = s;
        double d = fabs(got[r] - ref[r]);
        if (d > diff) diff = d;
    }
    double norm = scale > 0 ? diff / scale : diff;
    return norm < rel ? norm : rel;
}

int spmv_util_device_refuses(clpk_status st, const clpk_context *ctx) {
    return st == CLPK_ERROR_UNSUPPORTED && strstr(clpk_last_error(ctx), "allows work-groups of") != NULL;
}

double spmv_util_check(clpk_context *ctx, const clpk_csr *A, clpk_precision p, const char *format, const char *params,
                       const char *label, uint64_t *rng) {
    clpk_spmv_plan *plan = NULL;
    double started = check_seconds();
    clpk_status st = clpk_spmv_plan_create(ctx, A, p, format, params, &plan);
    if (spmv_util_device_refuses(st, ctx)) {
        /* The compiled kernel needs more registers than this work-group size allows here (NVIDIA: 256 for some
         * shapes). The plan refuses it clearly and the tuner skips it, so there is nothing to run on this device. */
        printf("skip on this device: %s [%s %s]: %s\n", label, format ? format : "auto", params ? params : "",
               clpk_last_error(ctx));
        return 0;
    }
    if (!CHECK(st == CLPK_SUCCESS, "%s [%s %s %s]: plan: %s", label, clpk_precision_name(p), format ? format : "auto",
               params ? params : "", clpk_last_error(ctx)))
        return INFINITY;
    size_t nx = A->cols ? (size_t)A->cols : 1, ny = A->rows ? (size_t)A->rows : 1;
    double *x = malloc(nx * sizeof *x), *y0 = malloc(ny * sizeof *y0), *y = malloc(ny * sizeof *y);
    double *ref = malloc(ny * sizeof *ref);
    double worst = 0;
    char desc[512];
    clpk_spmv_plan_describe(plan, desc, sizeof desc);
    for (size_t i = 0; i < nx; ++i)
        x[i] = 2.0 * check_rand_double(rng) - 1.0;
    for (int pass = 0; pass < 2; ++pass) {
        double alpha = pass ? 1.25 : 1.0, beta = pass ? -0.5 : 0.0;
        for (size_t i = 0; i < ny; ++i)
            y0[i] = pass ? 2.0 * check_rand_double(rng) - 1.0 : NAN;
        memcpy(y, y0, ny * sizeof *y);
        spmv_util_reference(A, alpha, x, beta, y0, ref);
        st = clpk_spmv_host(plan, alpha, x, beta, y);
        double e = st == CLPK_SUCCESS ? spmv_util_error(A, alpha, x, beta, y0, ref, y) : INFINITY;
        CHECK(st == CLPK_SUCCESS, "%s [%s]: run: %s", label, desc, clpk_last_error(ctx));
        if (pass == 0) {
            char point[320];
            snprintf(point, sizeof point, "%s %s", clpk_precision_name(p), desc);
            check_build_time("spmv", point, check_seconds() - started);
        }
        CHECK(e <= spmv_util_tolerance(p), "%s [%s %s] beta=%g: relative error %.3g", label, clpk_precision_name(p),
              desc, beta, e);
        if (e > worst) worst = e;
    }
    free(x);
    free(y0);
    free(y);
    free(ref);
    clpk_spmv_plan_destroy(plan);
    return worst;
}

static int same_bytes(const void *a, const void *b, size_t n) { return n == 0 || (a && b && memcmp(a, b, n) == 0); }

int spmv_util_same_image(const spmv_bccoo *a, const spmv_bccoo *b) {
    if (a->blocks != b->blocks || a->nt != b->nt || a->groups != b->groups || a->block_rows != b->block_rows ||
        a->value_bytes != b->value_bytes || a->flag_bytes != b->flag_bytes || a->col_bytes != b->col_bytes ||
        a->entry_bytes != b->entry_bytes || a->n_esc != b->n_esc)
        return 0;
    if (!same_bytes(a->values, b->values, a->value_bytes) || !same_bytes(a->flags, b->flags, a->flag_bytes) ||
        !same_bytes(a->cols, b->cols, a->col_bytes) || !same_bytes(a->entries, b->entries, a->entry_bytes))
        return 0;
    if (!a->col_base != !b->col_base) return 0;
    if (a->col_base)
        return same_bytes(a->col_base, b->col_base, (size_t)a->nt * 4) &&
               same_bytes(a->esc_start, b->esc_start, (size_t)(a->nt + 1) * 4) &&
               same_bytes(a->esc, b->esc, (size_t)a->n_esc * 4);
    return 1;
}
