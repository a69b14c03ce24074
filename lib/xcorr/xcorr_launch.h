/* Launch geometry of the cross-correlation family within the index ranges drivers handle: past 2^31 work-items in one
 * dimension NVIDIA's get_global_id wraps (the n-to-m 128x128 256^2 output has 4.28e9 values). Fills of outputs that
 * large go through core_fill (clpk_internal.h), which keeps the driver's fill below 2^31 bytes. */
#ifndef CLPK_XCORR_LAUNCH_H
#define CLPK_XCORR_LAUNCH_H

#include "clpk_internal.h"

#include <limits.h>

/* Work-groups in the second dimension (CUDA's grid y limit, the smallest we know of). */
#define XCORR_MAX_DIM1_GROUPS ((size_t)65535)

typedef struct xcorr_range {
    cl_uint dims;
    size_t global[2], local[2];
} xcorr_range;

/* The range of `groups` work-groups of `wg` items, which the kernels number xcorr_group() (cl/xcorr_common.cl): one
 * dimension while groups * wg <= max_items, else two whose first holds at most max_items items; the groups past
 * `groups` in the second form exit at once. Returns 0 when groups or wg is 0, wg > max_items, or two dimensions
 * cannot hold them. */
int xcorr_range_of(size_t groups, size_t wg, size_t max_items, xcorr_range *out);

#endif
