/* Shared helpers of the spmv tests: double-precision reference, random vectors, one checked multiply. */
#ifndef CLPK_SPMV_UTIL_H
#define CLPK_SPMV_UTIL_H

#include "clpk.h"

/* y_out = alpha*A*x + beta*y_in in double (beta == 0 ignores y_in). */
void spmv_util_reference(const clpk_csr *A, double alpha, const double *x, double beta, const double *y_in,
                         double *y_out);
/* Frees a CSR the tests built (generated or converted). */
void spmv_util_free(clpk_csr *A);
/* Tolerance of the max-norm relative error for a precision. */
double spmv_util_tolerance(clpk_precision p);
/* Error of `got` against `ref`: the max-norm relative error, or if smaller the max error relative to
 * max_i (|alpha| sum_j |a_ij x_j| + |beta y_i|) (the scale rounding errors of long sums grow with); INFINITY on NaN. */
double spmv_util_error(const clpk_csr *A, double alpha, const double *x, double beta, const double *y_in,
                       const double *ref, const double *got);
/* Creates a plan (format/params as for clpk_spmv_plan_create), runs it twice through clpk_spmv_host against the
 * reference: beta = 0 with y poisoned with NaN, then beta = -0.5 on random y; checks both. `label` names the case in
 * failures. Returns the worst relative error (INFINITY on failure to run). */
/* 1 when a plan was refused because the built kernel allows fewer work-items per group than asked (a device limit
 * found only after compiling; the tuner records and skips such points). */
int spmv_util_device_refuses(clpk_status st, const clpk_context *ctx);
double spmv_util_check(clpk_context *ctx, const clpk_csr *A, clpk_precision p, const char *format, const char *params,
                       const char *label, uint64_t *rng);

struct spmv_bccoo;
/* 1 when two BCCOO images are identical byte for byte (every array and count). */
int spmv_util_same_image(const struct spmv_bccoo *a, const struct spmv_bccoo *b);

#endif
