/* The direct (non-FFT) kernels of the cross-correlation family: naive, shift-buffer, split-row, grouped,
 * multi-right, multi-both, warp-per-overlap, local. The plan (lib/xcorr/xcorr_plan.c) picks one and its parameters;
 * this part checks the parameters against the shape and the device, builds the kernel and launches it. */
#ifndef CLPK_XCORR_DIRECT_H
#define CLPK_XCORR_DIRECT_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_params.h"

typedef struct xcorr_direct xcorr_direct;

/* 1 if `algorithm` (xcorr_algorithm) is a direct variant. */
int xcorr_direct_known(int algorithm);
/* Sets the defaults of a direct variant that depend on the variant or the shape (wg, team, rows_per_worker,
 * shifts, rows, lefts, rights: those of the table without a default of their own) into `params`. */
void xcorr_direct_defaults(const clpk_xcorr_shape *shape, int algorithm, core_params *params);

/* Bytes of local memory the "local" algorithm needs for the shape's two matrices (0 when not representable). */
size_t xcorr_local_bytes(const clpk_xcorr_shape *shape);

/* Checks the configuration against the shape and the device (the table has checked each value), builds the kernels
 * and sizes the launch. The shape must have passed xcorr_shape_check. */
clpk_status xcorr_direct_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                                xcorr_direct **out);
/* `first` (may be NULL) receives the event of the first command when there are two (split-row), else the same
 * event as `done` (one reference: release it once); used for timing. */
clpk_status xcorr_direct_execute(xcorr_direct *direct, cl_mem left, size_t left_offset, cl_mem right,
                                 size_t right_offset, cl_mem out, size_t out_offset, cl_uint n_wait,
                                 const cl_event *wait, cl_event *first, cl_event *done);
void xcorr_direct_destroy(xcorr_direct *direct);

#endif
