/* Sub-group shuffle support of the shift-buffer kernel (cl/xcorr_shift.cl, shuffle=subgroup): which shuffle the
 * device offers (cl_khr_subgroup_shuffle, cl_intel_subgroups, or inline PTX on NVIDIA GPUs, whose OpenCL has no
 * sub-group extension), the build options that select it, and the check that a built kernel runs its TEAM-item
 * work-group as one TEAM-wide sub-group. */
#ifndef CLPK_XCORR_SHUFFLE_H
#define CLPK_XCORR_SHUFFLE_H

#include "clpk_internal.h"

/* Values of XCORR_SHUFFLE in cl/xcorr_shift.cl. */
typedef enum xcorr_shuffle_kind {
    CLPK_XCORR_SHUFFLE_NONE = 0, /* local memory only */
    CLPK_XCORR_SHUFFLE_KHR = 1,
    CLPK_XCORR_SHUFFLE_INTEL = 2,
    CLPK_XCORR_SHUFFLE_NV_PTX = 3
} xcorr_shuffle_kind;

/* The shuffle the context's device offers (its extensions first; NVIDIA GPUs without them use PTX). */
xcorr_shuffle_kind xcorr_shuffle_kind_of(clpk_context *ctx);
const char *xcorr_shuffle_kind_name(xcorr_shuffle_kind kind);

/* Whether a team of `team` items can be one sub-group here, from device facts alone (the tuner's cheap pruning):
 * NVIDIA 32 (a warp), Intel 8/16/32, other sub-group devices 16/32/64. Plan creation checks the built kernel. */
int xcorr_shuffle_team_possible(clpk_context *ctx, int team);

/* Build options selecting `kind` for a team of `team` items (XCORR_SHUFFLE, the Intel sub-group size attribute,
 * the OpenCL C standard the khr built-ins need). */
void xcorr_shuffle_options(clpk_context *ctx, xcorr_shuffle_kind kind, int team, char *buf, size_t size);

/* Fails with CLPK_ERROR_UNSUPPORTED unless `kernel` runs a work-group of `team` items as one sub-group of `team`
 * items (khr/Intel: asked from the runtime; NVIDIA PTX: team must be 32, one warp). */
clpk_status xcorr_shuffle_check_kernel(clpk_context *ctx, xcorr_shuffle_kind kind, cl_kernel kernel,
                                            int team);

#endif
