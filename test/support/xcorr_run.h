/* Test helpers of the cross-correlation family: run a plan on double inputs and check it against the CPU
 * reference with poisoned outputs and guard elements. */
#ifndef CLPK_XCORR_RUN_H
#define CLPK_XCORR_RUN_H

#include "clpk.h"
#include "clpk_xcorr.h"

/* Runs `plan` on left/right (doubles, converted to the plan's precision) placed at element `offset` of their
 * buffers, into an output buffer poisoned with NaN, with `offset` guard elements before and 16 after; *out receives
 * the result as doubles and *guards_ok whether the guards stayed NaN. */
clpk_status xcorr_run(clpk_context *ctx, clpk_xcorr_plan *plan, const clpk_xcorr_shape *shape, const double *left,
                      const double *right, size_t offset, double *out, int *guards_ok);

/* Builds a plan for (shape, algorithm, params), runs it on fresh uniform [-1, 1) inputs from *rng and CHECKs the
 * max-norm relative error against the double reference (1e-5 in f32, 1e-12 in f64) and the guards. Returns the
 * error (INFINITY when the plan or run failed; the failure is CHECKed too, with `label`). */
double xcorr_check_case(clpk_context *ctx, uint64_t *rng, const clpk_xcorr_shape *shape, const char *algorithm,
                        const char *params, size_t offset, const char *label);

/* The shapes every direct-kernel sweep runs (1x1, odd, non-square, a single column, windows, all four patterns),
 * f32: XCORR_SWEEP_SHAPES entries. */
#define XCORR_SWEEP_SHAPES 7
extern const clpk_xcorr_shape xcorr_sweep_shapes[XCORR_SWEEP_SHAPES];

/* Fills n values uniform in [-1, 1). */
void xcorr_fill_random(uint64_t *rng, double *v, size_t n);

#endif
