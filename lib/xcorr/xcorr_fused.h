/* lib/xcorr/xcorr_fused.h: the fused FFT path of the cross-correlation family ("fused-fft": local-memory FFTs, zeros
 * never stored). One-to-one: three launches per chunk of pairs (cl/xcorr_fused.cl); the other patterns: spectra of
 * the lefts computed once, rights transformed two at a time (xcorr_fused_many.c, cl/xcorr_fused_many.cl). */
#ifndef CLPK_XCORR_FUSED_H
#define CLPK_XCORR_FUSED_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_params.h"

typedef struct xcorr_fused xcorr_fused;

/* Reads of `config` (keys shared with other algorithms keep the tuner space small): fft_pad (smooth: 2^i 3^j, or
 * pow2), rows (FFT lines per work-group), wg, fused_batch (max pairs, i.e. output matrices, per chunk of launches,
 * rounded up to even for the patterns other than one-to-one; 0: intermediates within min(max allocation / 4,
 * 512 MiB)), fused_gaps (1: a gap per 16 complex values in local memory against bank conflicts, or 0). UNSUPPORTED for lines past local memory. */
clpk_status xcorr_fused_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                               xcorr_fused **out);
/* `first` (may be NULL) receives the event of the first command, `done` (may be NULL) of the last. */
clpk_status xcorr_fused_execute(xcorr_fused *f, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                                cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *first,
                                cl_event *done);
void xcorr_fused_destroy(xcorr_fused *f);

/* The defaults that depend on the shape, the device's `compute_units` (0: not known) and the largest radix the plan
 * would use otherwise (`radix`, the table's default for the device or the caller's): rows, wg, and fft_radix where
 * radix 16 saves a stage (the table holds the others). */
void xcorr_fused_defaults(const clpk_xcorr_shape *shape, size_t compute_units, int radix, core_params *out);

/* Whether fused-fft can serve the shape with `lines` lines per work-group and the given padding on this device
 * (local memory of the pattern's kernels; the kernels' own local memory is checked at creation). */
int xcorr_fused_fits(const clpk_context *ctx, const clpk_xcorr_shape *shape, int lines, int pow2);

#endif
