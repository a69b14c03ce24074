/* Launch geometry and buffer fills of the cross-correlation family within the index ranges drivers handle: past 2^31
 * work-items in one dimension NVIDIA's get_global_id wraps, and one clEnqueueFillBuffer of 2^31 bytes or more fails
 * there and leaves the context unusable (pyopencl issue 395; the n-to-m 128x128 256^2 output is 17.1 GB). */
#ifndef CLPK_XCORR_LAUNCH_H
#define CLPK_XCORR_LAUNCH_H

#include "clpk_internal.h"

#include <limits.h>

/* Work-groups in the second dimension (CUDA's grid y limit, the smallest we know of). */
#define XCORR_MAX_DIM1_GROUPS ((size_t)65535)
/* Bytes per clEnqueueFillBuffer (below 2^31). */
#define XCORR_FILL_CHUNK ((size_t)1 << 30)

typedef struct xcorr_range {
    cl_uint dims;
    size_t global[2], local[2];
} xcorr_range;

/* The range of `groups` work-groups of `wg` items, which the kernels number xcorr_group() (cl/xcorr_common.cl): one
 * dimension while groups * wg <= max_items, else two whose first holds at most max_items items; the groups past
 * `groups` in the second form exit at once. Returns 0 when groups or wg is 0, wg > max_items, or two dimensions
 * cannot hold them. */
int xcorr_range_of(size_t groups, size_t wg, size_t max_items, xcorr_range *out);

/* Bytes per command xcorr_fill uses: max_chunk (0: XCORR_FILL_CHUNK) rounded down to a multiple of the pattern (at
 * least one pattern). */
size_t xcorr_fill_chunk(size_t pattern_size, size_t max_chunk);

/* clEnqueueFillBuffer of `pattern` over `bytes` bytes from byte `offset` of `buf` (both multiples of the pattern) in
 * commands of at most xcorr_fill_chunk(pattern_size, max_chunk) bytes. Each command waits for the one before (the
 * first for `wait`), so the last one's event, returned in `done` (may be NULL), marks the whole fill on any queue.
 * `what` names the buffer in the error message. */
clpk_status xcorr_fill(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size, size_t offset,
                       size_t bytes, size_t max_chunk, cl_uint n_wait, const cl_event *wait, cl_event *done,
                       const char *what);

#endif
