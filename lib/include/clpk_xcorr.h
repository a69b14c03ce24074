/* clpk cross-correlation family: full 2D cross-correlation of stacks of small equally sized matrices, in the
 * scipy correlate2d(left, right, 'full') / MATLAB xcorr2 convention:
 *     out[k, l] = sum_ij left[i + k - (R-1), j + l - (C-1)] * right[i, j],   0 <= k < 2R-1, 0 <= l < 2C-1,
 * out-of-range terms zero. Matrices are row-major and stacked contiguously (matrix m starts at m*R*C). */
#ifndef CLPK_XCORR_H
#define CLPK_XCORR_H

#include "clpk_export.h"
#include "clpk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clpk_xcorr_pattern {
    CLPK_XCORR_ONE_TO_ONE = 1, /* n_left == n_right pairs: out[i] = xcorr(left[i], right[i]) */
    CLPK_XCORR_ONE_TO_MANY,    /* n_left == 1: out[j] = xcorr(left[0], right[j]) */
    CLPK_XCORR_N_TO_MN,        /* n_right = n_left * m: out[j] = xcorr(left[j % n_left], right[j]) */
    CLPK_XCORR_N_TO_M          /* all pairs: out[i * n_right + j] = xcorr(left[i], right[j]) */
} clpk_xcorr_pattern;

/* "one-to-one", "one-to-many", "n-to-mn", "n-to-m" (underscores accepted). */
CLPK_API clpk_status clpk_xcorr_pattern_parse(const char *text, clpk_xcorr_pattern *out);
CLPK_API const char *clpk_xcorr_pattern_name(clpk_xcorr_pattern pattern);

typedef struct clpk_xcorr_shape {
    clpk_xcorr_pattern pattern;
    int rows, cols;              /* R x C of every input matrix */
    int n_left, n_right;         /* matrices in each stack */
    int search_rows, search_cols; /* 0: full (2R-1) x (2C-1); else an odd centred window of shifts
                                     (shifts -(S-1)/2 .. (S-1)/2 around zero shift, i.e. around full index R-1) */
    clpk_precision precision;
} clpk_xcorr_shape;

/* Number of output matrices, and each one's size, for a shape (0 if the shape is invalid). */
CLPK_API size_t clpk_xcorr_output_count(const clpk_xcorr_shape *shape);
CLPK_API int clpk_xcorr_output_rows(const clpk_xcorr_shape *shape);
CLPK_API int clpk_xcorr_output_cols(const clpk_xcorr_shape *shape);

typedef struct clpk_xcorr_plan clpk_xcorr_plan;

/* Creates a plan. `algorithm`: NULL or "auto" (profile, else built-in choice), or one of "naive", "shift-buffer",
 * "split-row", "grouped", "multi-right", "multi-both", "warp-per-overlap", "local", "fft", "fused-fft". `params`:
 * NULL or "k=v,..." to override the chosen parameters (clpk_family_parameters("xcorr", ...) lists them and the
 * algorithms each applies to; unknown keys are refused). Checks the shape against the device's limits. */
CLPK_API clpk_status clpk_xcorr_plan_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const char *algorithm,
                                   const char *params, clpk_xcorr_plan **plan);
CLPK_API void clpk_xcorr_plan_destroy(clpk_xcorr_plan *plan);

/* The algorithm and parameters the plan uses, e.g. "grouped" and "shifts=4,rows=2,wg=128". */
CLPK_API const char *clpk_xcorr_plan_algorithm(const clpk_xcorr_plan *plan);
CLPK_API void clpk_xcorr_plan_params(const clpk_xcorr_plan *plan, char *buf, size_t size);

/* Runs on device buffers of the plan's precision; offsets in elements. One batched launch sequence, no per-matrix
 * launches. `done` (may be NULL) receives an event for the last command. */
CLPK_API clpk_status clpk_xcorr_execute(clpk_xcorr_plan *plan, cl_mem left, size_t left_offset, cl_mem right,
                               size_t right_offset, cl_mem out, size_t out_offset, cl_uint n_wait,
                               const cl_event *wait, cl_event *done);

/* Convenience on host arrays of the plan's precision (float or double); blocks until done. */
CLPK_API clpk_status clpk_xcorr_execute_host(clpk_xcorr_plan *plan, const void *left, const void *right, void *out);


/* clpk_xcorr_execute for timing the whole launch sequence (clpk_bench_run's convention): *first receives the event of
 * its first command and *last that of its last; for a single command both are the same handle holding one reference
 * (release it once), else release each. Both pointers are required. */
CLPK_API clpk_status clpk_xcorr_execute_events(clpk_xcorr_plan *plan, cl_mem left, size_t left_offset, cl_mem right,
                                               size_t right_offset, cl_mem out, size_t out_offset, cl_event *first,
                                               cl_event *last);

/* Checks a shape without a device: counts that match the pattern, an odd search window within the full output, sizes
 * that keep every index of a matrix inside an int. Reports the first problem into `err` (may be NULL). */
CLPK_API clpk_status clpk_xcorr_shape_check(const clpk_xcorr_shape *shape, clpk_error *err);

/* The double-precision CPU reference, for checking results: `out` (output_count x output_rows x output_cols) from the
 * left and right stacks, all double, summed in double. A plain loop: about a second per 1e9 multiply-adds. */
CLPK_API clpk_status clpk_xcorr_reference(const clpk_xcorr_shape *shape, const double *left, const double *right,
                                          double *out, clpk_error *err);

#ifdef __cplusplus
}
#endif

#endif
