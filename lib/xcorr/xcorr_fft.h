/* lib/xcorr/xcorr_fft.h: the FFT path of the cross-correlation family (VkFFT OpenCL backend). */
#ifndef CLPK_XCORR_FFT_H
#define CLPK_XCORR_FFT_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_params.h"

typedef struct xcorr_fft xcorr_fft;

/* Reads fft_pad (smooth: 2,3,5,7-smooth sizes, or pow2) and fft_batch (max matrices per transform batch, 0 by
 * memory) of `config`; NULL: smooth, by memory. Returns CLPK_ERROR_UNSUPPORTED when built without VkFFT. */
clpk_status xcorr_fft_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                             xcorr_fft **out);
clpk_status xcorr_fft_execute(xcorr_fft *fft, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                              cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *done);
void xcorr_fft_destroy(xcorr_fft *fft);

#endif
