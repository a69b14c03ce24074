/* Public entry points to the cross-correlation family's shape check and CPU reference. */
#include "xcorr_reference.h"

clpk_status clpk_xcorr_shape_check(const clpk_xcorr_shape *shape, clpk_error *err) {
    return xcorr_shape_check(shape, err);
}

clpk_status clpk_xcorr_reference(const clpk_xcorr_shape *shape, const double *left, const double *right, double *out,
                                 clpk_error *err) {
    if (!left || !right || !out)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_xcorr_reference: NULL array");
    clpk_status st = xcorr_shape_check(shape, err);
    if (st != CLPK_SUCCESS) return st;
    xcorr_reference(shape, left, right, out);
    return CLPK_SUCCESS;
}
