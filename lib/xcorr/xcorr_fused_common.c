/* What the two fused FFT paths of the cross-correlation family share (see xcorr_fused_common.h). */
#include "xcorr_fused_common.h"
#include "xcorr_launch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

size_t xcorr_fused_padded_len(size_t t, unsigned sh) { return t + (t >> sh) + 1; }

static int smooth23(size_t n) {
    while (n % 2 == 0)
        n /= 2;
    while (n % 3 == 0)
        n /= 3;
    return n == 1;
}

int xcorr_fused_stages(size_t p, int radix) {
    if (p == 0) return 0;
    int threes = 0, twos = 0, bits = 0;
    for (; p % 3 == 0; p /= 3)
        ++threes;
    for (; p % 2 == 0; p /= 2)
        ++twos;
    for (int r = radix; r > 1; r /= 2)
        ++bits;
    return threes + (twos + bits - 1) / bits;
}

/* Smallest 2^i (pow2) or 2^i 3^j >= max(n, 2), even when `even`. A 2^i 3^j length pays only where it saves enough
 * points: each factor 3 is one more pass through local memory (radix-3 stages), while the power of two's factors go
 * 16 or 8 to a pass. Measured: 243 rows against 256 (112^2) ran 1.4x slower than the power of two on the H100
 * (session 11), 54 against 64 (26^2 x 1200) 1.35x and 216 against 256 (108^2 x 1200) 1.07x slower on the H200
 * (session 15); 162 against 256 (80^2) and 324 against 512 (160^2) ran 1.5-2x faster. So in f32 the power of two is
 * taken when it is within 20 %: of the 2^i 3^j lengths that moves only 27 * 2^i (0.84 of the power of two) over. In
 * f64, whose extra points cost twice the bytes, the power of two within 20 % must also save two radix-8 stages (64
 * against 54: 1.25-1.29x faster at 25^2-26^2 on every pattern, H200 session 26), else be within 10 % (128 against
 * 108 and 256 against 216, one stage fewer: 1.08-1.28x slower at 49^2-108^2; 64 against 48: 1.16x slower). */
static size_t pad_size(size_t n, int pow2, int even, int f64) {
    if (n < 2) n = 2;
    size_t p2 = 1;
    while (p2 < n)
        p2 *= 2;
    if (pow2) return p2;
    size_t m = n;
    while ((even && m % 2 != 0) || !smooth23(m))
        ++m;
    const int near = 5 * m >= 4 * p2;
    if (!f64) return near ? p2 : m;
    const int saves_two = xcorr_fused_stages(m, 8) >= xcorr_fused_stages(p2, 8) + 2;
    return 10 * m >= 9 * p2 || (near && saves_two) ? p2 : m;
}

void xcorr_fused_padded(const clpk_xcorr_shape *s, int pow2, size_t *pr, size_t *pc) {
    const size_t orows = s->search_rows ? (size_t)s->search_rows : 2 * (size_t)s->rows - 1;
    const size_t ocols = s->search_cols ? (size_t)s->search_cols : 2 * (size_t)s->cols - 1;
    /* circular correlation of period P equals the linear one at shifts |s| <= h when P >= R + h (lib/xcorr/xcorr_fft.c)
     */
    const int f64 = s->precision == CLPK_PRECISION_F64;
    *pr = pad_size((size_t)s->rows + (orows - 1) / 2, pow2, 0, f64);
    *pc = pad_size((size_t)s->cols + (ocols - 1) / 2, pow2, 1, f64);
}

clpk_status xcorr_fused_twiddles(clpk_context *ctx, size_t n, size_t elem, cl_mem *out) {
    void *host = malloc(n * 2 * elem);
    if (!host) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fused-fft: out of host memory");
    for (size_t t = 0; t < n; ++t) {
        const double a = 6.283185307179586476925286766559 * (double)t / (double)n;
        double c = cos(a), s = -sin(a);
        if (4 * t % n == 0) { /* quarter turns exactly */
            const size_t q = 4 * t / n;
            c = q == 0 ? 1.0 : (q == 2 ? -1.0 : 0.0);
            s = q == 1 ? -1.0 : (q == 3 ? 1.0 : 0.0);
        }
        if (elem == sizeof(double)) {
            ((double *)host)[2 * t] = c;
            ((double *)host)[2 * t + 1] = s;
        } else {
            ((float *)host)[2 * t] = (float)c;
            ((float *)host)[2 * t + 1] = (float)s;
        }
    }
    cl_int rc = CL_SUCCESS;
    *out =
        clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 2 * elem, host, &rc);
    free(host);
    if (rc != CL_SUCCESS) {
        *out = NULL;
        return core_fail_cl(ctx, rc, "clCreateBuffer(xcorr fused-fft twiddles)");
    }
    return CLPK_SUCCESS;
}

clpk_status xcorr_fused_program(clpk_context *ctx, const char *source, clpk_precision precision, int max_radix,
                                cl_program *out) {
    if (max_radix != 4 && max_radix != 8 && max_radix != 16)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: fft_radix=%d (4, 8 or 16)", max_radix);
    const char *names[] = {"xcorr_fused_fft", source};
    char options[128];
    snprintf(options, sizeof options, "%s -DFFT_MAX_RADIX=%d",
             precision == CLPK_PRECISION_F64 ? "-DVALUE_T=double -DVALUE2_T=double2 -DCLPK_FP64"
                                             : "-DVALUE_T=float -DVALUE2_T=float2",
             max_radix);
    return core_program_get(ctx, names, 2, options, out);
}

clpk_status xcorr_fused_check_kernel(clpk_context *ctx, cl_kernel k, size_t wg, size_t local_bytes, const char *name) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    size_t kwg = 0;
    cl_ulong own = 0;
    cl_device_id d = clpk_context_device(ctx);
    CLPK_CL_TRY(ctx, clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL));
    CLPK_CL_TRY(ctx, clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof own, &own, NULL));
    if (wg > kwg)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: wg=%zu exceeds %s's limit of %zu on %s", wg,
                         name, kwg, dev->name);
    if (own + local_bytes > dev->local_mem_bytes)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: %s needs %zu + %llu bytes of local memory, %s has %llu: lower rows (FFT "
                         "lines per work-group) or use another algorithm",
                         name, local_bytes, (unsigned long long)own, dev->name,
                         (unsigned long long)dev->local_mem_bytes);
    return CLPK_SUCCESS;
}

clpk_status xcorr_fused_check_queue(clpk_context *ctx) { return core_require_in_order_queue(ctx, "xcorr fused-fft"); }

clpk_status xcorr_fused_check_size(clpk_context *ctx, cl_mem m, size_t offset, size_t count, size_t elem,
                                   const char *what) {
    size_t bytes = 0;
    CLPK_CL_TRY(ctx, clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    if (offset > bytes / elem || count > bytes / elem - offset)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr fused-fft: %s buffer of %zu bytes is too small for %zu elements at offset %zu", what,
                         bytes, count, offset);
    return CLPK_SUCCESS;
}

clpk_status xcorr_fused_launch(clpk_context *ctx, cl_kernel k, size_t groups, size_t wg, cl_uint n_wait,
                               const cl_event *wait, cl_event *ev, const char *name) {
    /* the plans size their chunks below this; a launch past it would wrap get_global_id on NVIDIA */
    if (groups > core_launch_dim_items(ctx) / wg)
        return core_fail(ctx, CLPK_ERROR_INTERNAL, "%s: %zu work-groups of %zu items pass 2^31 items", name, groups,
                         wg);
    const size_t global = groups * wg;
    const int timed = core_log_enabled(ctx, CLPK_LOG_TRACE);
    cl_event own = NULL;
    cl_event *done = ev ? ev : (timed ? &own : NULL);
    cl_int rc =
        clEnqueueNDRangeKernel(clpk_context_queue(ctx), k, 1, NULL, &global, &wg, n_wait, n_wait ? wait : NULL, done);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, name);
    if (!timed) return CLPK_SUCCESS;
    cl_ulong start = 0, end = 0;
    rc = clWaitForEvents(1, done);
    if (rc == CL_SUCCESS) rc = clGetEventProfilingInfo(*done, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
    if (rc == CL_SUCCESS) rc = clGetEventProfilingInfo(*done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
    if (own) clReleaseEvent(own);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clGetEventProfilingInfo (CLPK_LOG=trace)");
    core_log(ctx, CLPK_LOG_TRACE, "kernel %s: %zu groups of %zu: %.3f us", name, groups, wg,
             (double)(end - start) * 1e-3);
    return CLPK_SUCCESS;
}
