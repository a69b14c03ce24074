/* What decides an SpMV plan's speed, measured on the matrix in one cheap pass (issue #22): row-length statistics,
 * the locality of the x gathers and the fill of every block shape, turned into bytes per nonzero with the BCCOO
 * footprint formula. Block fills and locality come from evenly spaced samples of rows when the matrix is large. */
#ifndef CLPK_SPMV_FEATURES_H
#define CLPK_SPMV_FEATURES_H

#include "spmv_internal.h"

#define SPMV_SHAPE_COUNT 12
#define SPMV_LONG_ROW 16

/* The block shapes a BCCOO plan can take: heights 1..4 times widths 1, 2, 4. */
extern const int spmv_shapes[SPMV_SHAPE_COUNT][2];

typedef struct spmv_matrix_features {
    int64_t rows, cols, nnz;
    double row_mean, row_cv; /* nonzeros per row: mean and coefficient of variation */
    int64_t row_p99, row_max;
    double empty_rows; /* fraction of rows without nonzeros */
    /* Fraction of the nonzeros in rows of more than SPMV_LONG_ROW nonzeros: where a row per work-item stops
     * coalescing (each lane streams its own row). */
    double long_row_share;
    /* Distinct 64-byte lines of x that a group of 32 consecutive rows touches, per nonzero: 1/16 (f32) for dense
     * rows, about 1 for scattered columns. Index 0: f32, 1: f64. */
    double x_lines_per_nnz[2];
    double col_jump_mean; /* mean |column step| between consecutive nonzeros of a row */
    /* Fraction of nonzeros whose column lies 32768 or more from the previous nonzero's in row-major order: an
     * estimate of the escapes of 16-bit delta-coded columns (col=delta). */
    double far_steps;
    double row_span;                 /* mean over non-empty rows of (last - first column + 1) / cols */
    double fill[SPMV_SHAPE_COUNT];   /* nonzeros / (blocks * h * w) */
    double blocks[SPMV_SHAPE_COUNT]; /* blocks of each shape (estimated when sampled) */
    double sampled_rows;             /* fraction of the rows the block and locality counts read */
    double seconds;                  /* wall time of the pass */
} spmv_matrix_features;

/* One pass over A with up to `threads` threads (0: one per core). Counts exactly up to `sample_rows` rows (0: a
 * built-in limit that keeps the pass near 0.1 s at 40 M nonzeros), beyond that from evenly spaced windows. */
clpk_status spmv_matrix_features_compute(const clpk_csr *A, int threads, int64_t sample_rows, spmv_matrix_features *f,
                                         clpk_error *err);

/* Bytes a BCCOO plan of shape `shape` (index into spmv_shapes) reads per nonzero: the footprint formula with the
 * estimated block count at the given configuration's flags, columns and tile (values, flags, columns, entries;
 * x and y not included). */
double spmv_shape_bytes_per_nnz(const clpk_csr *A, const spmv_matrix_features *f, int shape, const spmv_config *cfg,
                                clpk_precision precision);

#endif
