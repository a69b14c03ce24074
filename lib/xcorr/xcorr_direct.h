/* The direct (non-FFT) kernels of the cross-correlation family: naive, shift-buffer, split-row, grouped,
 * multi-right, multi-both, warp-per-overlap, local. The plan (lib/xcorr/xcorr_plan.c) picks one and its parameters; this part
 * checks the parameters against the shape and the device, builds the kernel and launches it. */
#ifndef CLPK_XCORR_DIRECT_H
#define CLPK_XCORR_DIRECT_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"

typedef struct xcorr_direct xcorr_direct;

/* 1 if `algorithm` names a direct variant. */
int xcorr_direct_known(const char *algorithm);
/* NULL-terminated list of the parameter names `algorithm` understands (NULL for an unknown algorithm). */
const char *const *xcorr_direct_param_names(const char *algorithm);
/* Sets the built-in parameters of `algorithm` for this shape and device into `params` (overriding those keys). */
void xcorr_direct_defaults(clpk_context *ctx, const clpk_xcorr_shape *shape, const char *algorithm,
                                core_params *params);

/* Bytes of local memory the "local" algorithm needs for the shape's two matrices (0 when not representable). */
size_t xcorr_local_bytes(const clpk_xcorr_shape *shape);

/* Checks `params` (all of the algorithm's keys present: start from the defaults), builds the kernels and sizes the
 * launch. The shape must have passed xcorr_shape_check. */
clpk_status xcorr_direct_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const char *algorithm,
                                     const core_params *params, xcorr_direct **out);
/* `first` (may be NULL) receives the event of the first command when there are two (split-row), else the same
 * event as `done` (one reference: release it once); used for timing. */
clpk_status xcorr_direct_execute(xcorr_direct *direct, cl_mem left, size_t left_offset, cl_mem right,
                                      size_t right_offset, cl_mem out, size_t out_offset, cl_uint n_wait,
                                      const cl_event *wait, cl_event *first, cl_event *done);
void xcorr_direct_destroy(xcorr_direct *direct);

#endif
