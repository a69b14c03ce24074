/* The cross-correlation family's parameters (lib/xcorr/xcorr_params.c): one table for every algorithm. The algorithm
 * is a parameter itself; each other parameter applies to the algorithms its condition names. Plan creation
 * (xcorr_plan.c) resolves them with core_resolve, completes the defaults that depend on the algorithm and the shape,
 * and reads them into an xcorr_config that the direct kernels, the FFT path and the fused FFT path take. */
#ifndef CLPK_XCORR_PARAMS_H
#define CLPK_XCORR_PARAMS_H

#include "param_table.h"

/* The values of the "algorithm" row, in the table's order (the configuration holds the index). */
typedef enum xcorr_algorithm {
    XCORR_AUTO,
    XCORR_NAIVE,
    XCORR_SHIFT_BUFFER,
    XCORR_SPLIT_ROW,
    XCORR_GROUPED,
    XCORR_MULTI_RIGHT,
    XCORR_MULTI_BOTH,
    XCORR_WARP_PER_OVERLAP,
    XCORR_LOCAL,
    XCORR_FFT,
    XCORR_FUSED_FFT,
    XCORR_ALGORITHM_COUNT
} xcorr_algorithm;

/* A plan's parameters, read from the table (NAME rows hold the index of their value). Only the fields of parameters
 * that apply to `algorithm` are meaningful. */
typedef struct xcorr_config {
    int algorithm;       /* xcorr_algorithm */
    int wg;              /* work-group size */
    int team;            /* shift-buffer: work-items per output row segment */
    int shuffle;         /* shift-buffer: 0 local memory, 1 sub-group shuffles */
    int rows_per_worker; /* split-row */
    int combine;         /* split-row: 0 ordered, 1 atomic */
    int distribution;    /* split-row: 0 rectangle, 1 triangle */
    int shifts;          /* register blocks (grouped, multi-*), block columns (local) */
    int rows;            /* register blocks, block rows (local), FFT lines per work-group (fused-fft) */
    int lefts, rights;   /* grouped, multi-*: matrices per work-item */
    int fft_pad;         /* fft, fused-fft: 0 smooth, 1 pow2 */
    int fft_batch;       /* fft: matrices per transform batch, 0 by memory */
    int fused_batch;     /* fused-fft: pairs (output matrices) per chunk of launches, 0 by memory */
    int fused_gaps;      /* fused-fft: a gap per 16 complex values in local memory (1) or none (0) */
    int fused_tiles;     /* fused-fft, shared-matrix patterns: intermediates in tiles of `rows` columns (1) */
    int fused_row_wg;    /* fused-fft, one-to-one: work-group size of the row kernels (K1, K3), 0: wg */
    int fft_radix;       /* fused-fft: the largest radix of an FFT stage (4, 8, 16) */
} xcorr_config;

extern const core_param_table xcorr_param_table;

/* The name of an algorithm ("" out of range). */
const char *xcorr_algorithm_name(int algorithm);
/* The algorithm of a name, or -1 if the table does not know it. */
int xcorr_algorithm_of(const char *name);

#endif
