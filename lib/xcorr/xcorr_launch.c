/* Launch geometry and chunked fills of the cross-correlation family (see xcorr_launch.h). */
#include "xcorr_launch.h"

#include <stdio.h>

int xcorr_range_of(size_t groups, size_t wg, size_t max_items, xcorr_range *out) {
    if (!groups || !wg || wg > max_items) return 0;
    const size_t max_groups = max_items / wg; /* per dimension 0 */
    out->local[0] = wg, out->local[1] = 1;
    if (groups <= max_groups) {
        out->dims = 1;
        out->global[0] = groups * wg, out->global[1] = 1;
        return 1;
    }
    const size_t rows = (groups - 1) / max_groups + 1;
    if (rows > XCORR_MAX_DIM1_GROUPS) return 0;
    /* as few padding groups as the row count allows: at most rows - 1 */
    const size_t cols = (groups - 1) / rows + 1;
    out->dims = 2;
    out->global[0] = cols * wg, out->global[1] = rows;
    return 1;
}

size_t xcorr_fill_chunk(size_t pattern_size, size_t max_chunk) {
    const size_t limit = max_chunk ? max_chunk : XCORR_FILL_CHUNK;
    const size_t chunk = limit / pattern_size * pattern_size;
    return chunk ? chunk : pattern_size;
}

clpk_status xcorr_fill(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size, size_t offset,
                       size_t bytes, size_t max_chunk, cl_uint n_wait, const cl_event *wait, cl_event *done,
                       const char *what) {
    if (done) *done = NULL;
    const size_t chunk = xcorr_fill_chunk(pattern_size, max_chunk);
    cl_command_queue q = clpk_context_queue(ctx);
    if (!bytes) { /* nothing to fill: the event still follows `wait` */
        if (done) CLPK_CL_TRY(ctx, clEnqueueMarkerWithWaitList(q, n_wait, n_wait ? wait : NULL, done));
        return CLPK_SUCCESS;
    }
    cl_event prev = NULL;
    size_t at = 0;
    do {
        const size_t n = bytes - at < chunk ? bytes - at : chunk;
        cl_event ev = NULL;
        const cl_int rc = clEnqueueFillBuffer(q, buf, pattern, pattern_size, offset + at, n, prev ? 1 : n_wait,
                                              prev ? &prev : (n_wait ? wait : NULL), &ev);
        if (prev) clReleaseEvent(prev);
        if (rc != CL_SUCCESS) {
            char call[160];
            snprintf(call, sizeof call, "clEnqueueFillBuffer(%s, bytes %zu..%zu)", what, offset + at, offset + at + n);
            return core_fail_cl(ctx, rc, call);
        }
        prev = ev;
        at += n;
    } while (at < bytes);
    if (done)
        *done = prev;
    else
        clReleaseEvent(prev);
    return CLPK_SUCCESS;
}
