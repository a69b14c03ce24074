/* Plan internals shared with the tuner and the CLI: the built-in choice used when no profile entry applies. */
#ifndef CLPK_XCORR_PLAN_H
#define CLPK_XCORR_PLAN_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"

/* The algorithm ("algorithm" key) and parameters "auto" uses without a profile, for a checked shape. The rule may
 * name "fft"; the plan falls back to a direct variant when the FFT path is not built in. */
void xcorr_builtin_params(clpk_context *ctx, const clpk_xcorr_shape *shape, core_params *out);

/* The problem-class features the profile is searched with: pattern, rows, cols, n_left, n_right, precision. */
void xcorr_features(const clpk_xcorr_shape *shape, core_params *out);

/* Executes with the events of the first and last command, owned by the caller (the same handle, released once,
 * when there is one command: clpk_bench_run's convention), to time the whole launch sequence. */
clpk_status xcorr_execute_timed(clpk_xcorr_plan *plan, cl_mem left, size_t left_offset, cl_mem right,
                                     size_t right_offset, cl_mem out, size_t out_offset, cl_event *first,
                                     cl_event *last);

#endif
