/* The driver of the fused FFT path's tests ("fused-fft"), shared by test_xcorr_fused (one-to-one) and
 * test_xcorr_fused_many (the other patterns): the device, the tuner's space, the order of the steps, bit-identical
 * reruns. */
#ifndef CLPK_XCORR_FUSED_CHECK_H
#define CLPK_XCORR_FUSED_CHECK_H

#include "clpk.h"
#include "clpk_xcorr.h"

/* The tuner's space for fused-fft (lib/xcorr/xcorr_params.c): fft_pad {pow2, smooth} x rows (FFT lines per
 * work-group) x wg from 64 (the tuner's `valid` leaves out 32). */
typedef struct xcorr_fused_space {
    const char *pads[16];
    char pad_storage[128];
    int n_pads, lines[16], n_lines, wgs[16], n_wgs;
    int n_points; /* n_pads x n_lines x n_wgs */
} xcorr_fused_space;

/* Point `i` < n_points of the space (fft_pad outermost, then rows, then wg): "fft_pad=..,rows=..,wg=.." into params,
 * its rows and wg indices into *l and *w. */
void xcorr_fused_space_point(const xcorr_fused_space *space, int i, char *params, size_t size, int *l, int *w);

/* A test's steps. xcorr_fused_suite_run runs them in this order on the default device, printing the time after each:
 * sizes in f32; sweep, when the space still has the 2 pads, 4 rows and 3 wgs the sweeps are written for (CHECKed);
 * where the device has doubles, sizes in f64 and f64_cases; two runs of one plan of `same_bits` on the same data
 * (they must give the same bits; `same_bits_label` names the plan in the failure); last `rest`. */
typedef struct xcorr_fused_suite {
    void (*sizes)(clpk_context *ctx, uint64_t *rng, clpk_precision precision);
    void (*sweep)(clpk_context *ctx, uint64_t *rng, const xcorr_fused_space *space);
    void (*f64_cases)(clpk_context *ctx, uint64_t *rng);
    clpk_xcorr_shape same_bits;
    const char *same_bits_label;
    void (*rest)(clpk_context *ctx);
} xcorr_fused_suite;

/* Runs `suite` (nothing runs when there is no device: CHECKed). */
void xcorr_fused_suite_run(const xcorr_fused_suite *suite, uint64_t *rng);

#endif
