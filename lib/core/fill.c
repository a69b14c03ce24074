/* Buffer fills that never hand the driver a region reaching past 2^31 bytes (see core_fill in clpk_internal.h). */
#include "clpk_internal.h"

#include <string.h>

/* clEnqueueFillBuffer in commands of at most `chunk` bytes, each waiting for the one before. */
static clpk_status fill_by_driver(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size,
                                  size_t offset, size_t bytes, size_t chunk, cl_uint n_wait, const cl_event *wait,
                                  cl_event *done, const char *what) {
    cl_command_queue q = clpk_context_queue(ctx);
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

/* One launch of clpk_fill_pattern over the whole region. */
static clpk_status fill_by_kernel(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size,
                                  size_t offset, size_t bytes, size_t limit, cl_uint n_wait, const cl_event *wait,
                                  cl_event *done, const char *what) {
    if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "fill %s: a pattern of %zu bytes over bytes %zu..%zu (regions ending past byte %zu take only "
                         "patterns of 1, 2, 4 or 8 bytes)",
                         what, pattern_size, offset, offset + bytes, limit);
    /* Wider stores while the region's alignment allows (the zero bytes of the FFT work buffer): a byte store per unit
     * would take 8 times the store instructions of 8-byte units. */
    cl_uchar8 wide;
    memset(&wide, 0, sizeof wide);
    memcpy(&wide, pattern, pattern_size);
    size_t unit = pattern_size;
    while (unit < 8 && offset % (2 * unit) == 0 && bytes % (2 * unit) == 0) {
        memcpy((unsigned char *)&wide + unit, &wide, unit);
        unit *= 2;
    }
    const cl_ulong first_unit = offset / unit, n_units = bytes / unit;
    const cl_uint unit_bytes = (cl_uint)unit;

    const char *src[] = {"util_fill"};
    cl_program program;
    CLPK_TRY(core_program_get(ctx, src, 1, "", &program));
    cl_kernel kernel;
    CLPK_TRY(core_kernel_create(ctx, program, "clpk_fill_pattern", &kernel));
    core_args a;
    core_args_begin(&a, ctx, kernel, 0);
    CLPK_ARG(&a, buf);
    CLPK_ARG(&a, first_unit);
    CLPK_ARG(&a, n_units);
    CLPK_ARG(&a, wide);
    CLPK_ARG(&a, unit_bytes);
    clpk_status st = core_args_end(&a);
    if (st == CLPK_SUCCESS) {
        const size_t dev_wg = clpk_context_device_info(ctx)->max_work_group_size;
        const size_t wg = dev_wg && dev_wg < 256 ? dev_wg : 256;
        const size_t max_groups = CORE_FILL_MAX_ITEMS / wg;
        const size_t groups = n_units / wg < max_groups ? (size_t)((n_units + wg - 1) / wg) : max_groups;
        const size_t global = groups * wg;
        const cl_int rc = clEnqueueNDRangeKernel(clpk_context_queue(ctx), kernel, 1, NULL, &global, &wg, n_wait,
                                                 n_wait ? wait : NULL, done);
        if (rc != CL_SUCCESS) {
            char call[160];
            snprintf(call, sizeof call, "clEnqueueNDRangeKernel(clpk_fill_pattern, %s, bytes %zu..%zu)", what, offset,
                     offset + bytes);
            st = core_fail_cl(ctx, rc, call);
        }
    }
    clReleaseKernel(kernel);
    return st;
}

clpk_status core_fill(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size, size_t offset,
                      size_t bytes, size_t driver_limit, cl_uint n_wait, const cl_event *wait, cl_event *done,
                      const char *what) {
    if (done) *done = NULL;
    if (!what) what = "buffer";
    if (!ctx || !buf || !pattern || !pattern_size || (n_wait && !wait))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "fill %s: NULL argument or empty pattern", what);
    if (offset % pattern_size || bytes % pattern_size)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "fill %s: offset %zu and size %zu must be multiples of the pattern's %zu bytes", what, offset,
                         bytes, pattern_size);
    size_t size = 0;
    CLPK_CL_TRY(ctx, clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL));
    /* the kernel would write past a buffer silently: refuse such regions on both paths alike */
    if (offset > size || bytes > size - offset)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "fill %s: bytes %zu..+%zu past the buffer's %zu", what,
                         offset, bytes, size);
    if (!bytes) { /* nothing to fill: the event still follows `wait` */
        if (done)
            CLPK_CL_TRY(ctx, clEnqueueMarkerWithWaitList(clpk_context_queue(ctx), n_wait, n_wait ? wait : NULL, done));
        return CLPK_SUCCESS;
    }
    const size_t limit = driver_limit ? driver_limit : CORE_FILL_DRIVER_LIMIT;
    if (offset + bytes <= limit) {
        const size_t chunk = limit / 2 / pattern_size * pattern_size;
        return fill_by_driver(ctx, buf, pattern, pattern_size, offset, bytes, chunk ? chunk : pattern_size, n_wait,
                              wait, done, what);
    }
    return fill_by_kernel(ctx, buf, pattern, pattern_size, offset, bytes, limit, n_wait, wait, done, what);
}

clpk_status clpk_bench_fill(clpk_context *ctx, cl_mem buf, const void *pattern, size_t pattern_size, size_t offset,
                            size_t bytes) {
    return core_fill(ctx, buf, pattern, pattern_size, offset, bytes, 0, 0, NULL, NULL, "clpk_bench_fill");
}
