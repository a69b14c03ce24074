/* lib/xcorr/xcorr_fused_many.h: the fused FFT path ("fused-fft") for one-to-many, n-to-m and n-to-mn
 * (cl/xcorr_fused_many.cl): each left transformed once per execution into a stored spectrum, the rights transformed
 * two at a time, products and inverses per pair of outputs. Reached through xcorr_fused.h, which takes the same
 * configuration keys. */
#ifndef CLPK_XCORR_FUSED_MANY_H
#define CLPK_XCORR_FUSED_MANY_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_params.h"

typedef struct xcorr_fused_many xcorr_fused_many;

/* Reads fft_pad, rows (FFT lines per work-group), wg, fused_batch (output matrices per chunk of launches, rounded up
 * to even: two share a transform; 0: intermediates within min(max allocation / 4, 512 MiB)) and fused_gaps. The caller
 * has checked the device's precision, queue and work-group limits. UNSUPPORTED for one-to-one, lines past local memory
 * or intermediates past the allocation limits. */
clpk_status xcorr_fused_many_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                                    xcorr_fused_many **out);
/* `first` (may be NULL) receives the event of the first command, `done` (may be NULL) of the last. */
clpk_status xcorr_fused_many_execute(xcorr_fused_many *m, cl_mem left, size_t left_offset, cl_mem right,
                                     size_t right_offset, cl_mem out, size_t out_offset, cl_uint n_wait,
                                     const cl_event *wait, cl_event *first, cl_event *done);
void xcorr_fused_many_destroy(xcorr_fused_many *m);

/* Local bytes of the largest kernel for `lines` lines per work-group (gaps included), shape padded by `pow2`. */
size_t xcorr_fused_many_local_bytes(const clpk_xcorr_shape *shape, int lines, int pow2);
/* Whether the kernels' local memory for `lines` lines per work-group fits the device (gaps included). */
int xcorr_fused_many_fits(const clpk_context *ctx, const clpk_xcorr_shape *shape, int lines, int pow2);

#endif
