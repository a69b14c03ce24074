/* References for LiFE plans that store D as half (dict=half): the products with D rounded to half, which such a plan
 * must match as closely as a full-storage f32 plan matches the full references, and the bound on what the rounding
 * itself may change against the full references. */
#ifndef CLPK_TEST_LIFE_HALF_REFS_H
#define CLPK_TEST_LIFE_HALF_REFS_H

#include "clpk.h"

typedef struct life_half_refs {
    double *y, *w; /* M_h w and M_h^T y, M_h = M with D rounded to half, in double */
    /* The largest change the rounding may make, relative to the full reference's largest value (check_rel_error's
     * measure): each D value moves by at most 2^-11 of itself (2^-25 below the smallest normal half, 2^-14), so
     * |M_h w - M w| <= 2^-11 (|Phi| (|D| + 2^-14)) |w| elementwise, and the same for the WC. */
    double y_bound, w_bound;
} life_half_refs;

/* For the DSC of w and the WC of y, whose full references are y_full and w_full. Returns 1, or 0 without memory. */
int life_half_refs_make(const clpk_life_dataset *d, const double *w, const double *y, const double *y_full,
                        const double *w_full, life_half_refs *out);
void life_half_refs_free(life_half_refs *r);

#endif
