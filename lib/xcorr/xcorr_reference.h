/* Shape helpers and the double-precision CPU reference of the cross-correlation family (used by the plan, the
 * tests, the tuner and the CLI's --check). */
#ifndef CLPK_XCORR_REFERENCE_H
#define CLPK_XCORR_REFERENCE_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"

/* Checks a shape (counts match the pattern, odd search window within the full output, sizes that keep every index
 * of a matrix inside an int) and reports the first problem into `err`. */
clpk_status xcorr_shape_check(const clpk_xcorr_shape *shape, clpk_error *err);

/* The left and right matrices that output matrix `o` correlates. */
void xcorr_pair_of(const clpk_xcorr_shape *shape, size_t o, size_t *left, size_t *right);

/* out (output_count x out_rows x out_cols) from left and right stacks, all double, summed in double. */
void xcorr_reference(const clpk_xcorr_shape *shape, const double *left, const double *right, double *out);

#endif
