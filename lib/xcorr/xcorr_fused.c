/* Fused FFT path of the cross-correlation family (one-to-one): K1 row FFTs of z = left + i right, K2 column FFTs +
 * spectrum separation + product + inverse column FFTs of the needed output rows, K3 inverse row FFTs + scale + crop
 * straight into the user's output (cl/xcorr_fused.cl; design and correctness in docs/xcorr.md). Pairs are processed
 * in chunks of at most `batch` pairs (three launches per chunk) so the intermediates stay within the allocation
 * budget. */
#include "xcorr_fused.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Local-memory gaps (cl/xcorr_fused.cl LX): shift 2 = one gap per 4 complex values (fused_gaps=1, default), 31 =
 * none. */
#define GAPS_SHIFT 2u
#define NO_GAPS_SHIFT 31u
static size_t padded_len(size_t t, unsigned sh) { return t + (t >> sh) + 1; }

struct xcorr_fused {
    clpk_context *ctx;
    clpk_xcorr_shape shape;
    size_t elem, cpx;   /* bytes of a real and of a complex value */
    cl_uint pr, pc, hc; /* padded sizes, half-spectrum columns pc/2 + 1 */
    cl_uint out_rows, out_cols, half_r, half_c, half_rows;
    cl_uint lines, blocks; /* lines per work-group; K2 column blocks per pair */
    size_t wg, batch, n_pairs;
    cl_mem tw_c, tw_r, t1, t2;
    cl_kernel rows, columns, out;
};

static int smooth23(size_t n) {
    while (n % 2 == 0)
        n /= 2;
    while (n % 3 == 0)
        n /= 3;
    return n == 1;
}

/* Smallest 2^i (pow2) or 2^i 3^j >= max(n, 2), even when `even`. */
static size_t pad_size(size_t n, int pow2, int even) {
    if (n < 2) n = 2;
    for (size_t m = n;; ++m)
        if ((!even || m % 2 == 0) && (pow2 ? (m & (m - 1)) == 0 : smooth23(m))) return m;
}

static void padded(const clpk_xcorr_shape *s, int pow2, size_t *pr, size_t *pc) {
    const size_t orows = s->search_rows ? (size_t)s->search_rows : 2 * (size_t)s->rows - 1;
    const size_t ocols = s->search_cols ? (size_t)s->search_cols : 2 * (size_t)s->cols - 1;
    /* circular correlation of period P equals the linear one at shifts |s| <= h when P >= R + h (lib/xcorr/xcorr_fft.c)
     */
    *pr = pad_size((size_t)s->rows + (orows - 1) / 2, pow2, 0);
    *pc = pad_size((size_t)s->cols + (ocols - 1) / 2, pow2, 1);
}

static size_t local_k2(size_t pr, int lines, size_t cpx, unsigned sh) {
    return 2 * padded_len(2 * (size_t)lines * pr, sh) * cpx;
}
static size_t local_k13(size_t pc, int lines, size_t cpx, unsigned sh) {
    return 2 * padded_len((size_t)lines * pc, sh) * cpx;
}

/* Local bytes of the largest kernel: K2 holds 2*lines columns and as much scratch, K1/K3 2*lines rows (gaps
 * included: the default layout). */
static size_t local_need(size_t pr, size_t pc, int lines, size_t cpx) {
    const size_t k2 = local_k2(pr, lines, cpx, GAPS_SHIFT), k13 = local_k13(pc, lines, cpx, GAPS_SHIFT);
    return k2 > k13 ? k2 : k13;
}

int xcorr_fused_fits(const clpk_context *ctx, const clpk_xcorr_shape *s, int lines, int pow2) {
    if (s->pattern != CLPK_XCORR_ONE_TO_ONE || lines < 1) return 0;
    size_t pr, pc;
    padded(s, pow2, &pr, &pc);
    return local_need(pr, pc, lines, 2 * clpk_precision_size(s->precision)) <=
           clpk_context_device_info(ctx)->local_mem_bytes;
}

void xcorr_fused_defaults(const clpk_xcorr_shape *s, core_params *out) {
    size_t pr, pc;
    padded(s, 0, &pr, &pc);
    /* Up to 1024 complex values per work-group within ~41 KiB of local memory (every GPU of the project has 48 KiB;
     * 5 groups per SM on the H100): more lines make K2's column reads wider (lines consecutive complex values
     * per row; 4 f32 lines fill a 32-byte sector) and give the small FFTs enough butterflies per stage. */
    const size_t p = pr > pc ? pr : pc, cpx = 2 * clpk_precision_size(s->precision);
    int lines = 8;
    while (lines > 1 && ((size_t)lines * p > 1024 || local_need(pr, pc, lines, cpx) > 42000))
        lines /= 2;
    size_t wg = (size_t)lines * p / 4; /* radix-4 butterflies per stage of one line set */
    wg = wg < 64 ? 64 : (wg > 256 ? 256 : wg);
    core_params_set_int(out, "rows", lines);
    core_params_set_int(out, "wg", (long long)wg);
}

/* Twiddle table exp(-2 pi i t / n), t < n, computed in double (exact quadrant values by symmetry of the argument). */
static clpk_status twiddles(xcorr_fused *f, size_t n, cl_mem *out) {
    void *host = malloc(n * f->cpx);
    if (!host) return core_fail(f->ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fused-fft: out of host memory");
    for (size_t t = 0; t < n; ++t) {
        const double a = 6.283185307179586476925286766559 * (double)t / (double)n;
        double c = cos(a), s = -sin(a);
        if (4 * t % n == 0) { /* quarter turns exactly */
            const size_t q = 4 * t / n;
            c = q == 0 ? 1.0 : (q == 2 ? -1.0 : 0.0);
            s = q == 1 ? -1.0 : (q == 3 ? 1.0 : 0.0);
        }
        if (f->elem == sizeof(double)) {
            ((double *)host)[2 * t] = c;
            ((double *)host)[2 * t + 1] = s;
        } else {
            ((float *)host)[2 * t] = (float)c;
            ((float *)host)[2 * t + 1] = (float)s;
        }
    }
    cl_int rc = CL_SUCCESS;
    *out =
        clCreateBuffer(clpk_context_cl_context(f->ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * f->cpx, host, &rc);
    free(host);
    if (rc != CL_SUCCESS) return core_fail_cl(f->ctx, rc, "clCreateBuffer(xcorr fused-fft twiddles)");
    return CLPK_SUCCESS;
}

static clpk_status check_kernel(xcorr_fused *f, cl_kernel k, size_t local_bytes, const char *name) {
    const clpk_device_info *dev = clpk_context_device_info(f->ctx);
    size_t kwg = 0;
    cl_ulong own = 0;
    cl_device_id d = clpk_context_device(f->ctx);
    CLPK_CL_TRY(f->ctx, clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL));
    CLPK_CL_TRY(f->ctx, clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof own, &own, NULL));
    if (f->wg > kwg)
        return core_fail(f->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: wg=%zu exceeds %s's limit of %zu for %s on %s", f->wg, name, kwg, name,
                         dev->name);
    if (own + local_bytes > dev->local_mem_bytes)
        return core_fail(f->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: %s needs %zu + %llu bytes of local memory, %s has %llu: lower rows (FFT "
                         "lines per work-group) "
                         "or use another algorithm",
                         name, local_bytes, (unsigned long long)own, dev->name,
                         (unsigned long long)dev->local_mem_bytes);
    return CLPK_SUCCESS;
}

clpk_status xcorr_fused_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                               xcorr_fused **out) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!shape || !config || !out)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: NULL shape, configuration or output");
    *out = NULL;
    const clpk_xcorr_shape *s = shape;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (s->pattern != CLPK_XCORR_ONE_TO_ONE)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: only the one-to-one pattern is supported (not %s): use fft",
                         clpk_xcorr_pattern_name(s->pattern));
    if (s->precision == CLPK_PRECISION_F64 && !dev->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: f64 requested but %s has no double precision",
                         dev->name);
    cl_command_queue_properties qprops = 0;
    if (clGetCommandQueueInfo(clpk_context_queue(ctx), CL_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL) ==
            CL_SUCCESS &&
        (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: needs an in-order command queue (its three passes carry no events)");
    const int pow2 = config->fft_pad == 1;
    const long lines = config->rows, wg = config->wg, batch = config->fused_batch, gaps = config->fused_gaps;
    if ((size_t)wg > dev->max_work_group_size)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: wg=%ld exceeds the device's limit %zu", wg,
                         dev->max_work_group_size);

    xcorr_fused *f = calloc(1, sizeof *f);
    if (!f) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fused-fft: out of host memory");
    f->ctx = ctx;
    f->shape = *s;
    f->elem = clpk_precision_size(s->precision);
    f->cpx = 2 * f->elem;
    size_t pr, pc;
    padded(s, pow2, &pr, &pc);
    clpk_status st = CLPK_SUCCESS;
    const cl_uint sh = gaps ? GAPS_SHIFT : NO_GAPS_SHIFT;
    const size_t l13 = local_k13(pc, (int)lines, f->cpx, sh), l2 = local_k2(pr, (int)lines, f->cpx, sh);
    const size_t need = l13 > l2 ? l13 : l2;
    if (pr > 65536 || pc > 65536 || need > dev->local_mem_bytes) {
        st =
            core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                      "xcorr fused-fft: %dx%d padded to %zux%zu with %ld lines per work-group needs %zu bytes of local "
                      "memory, %s has %llu: lower rows (FFT lines per work-group) or use fft",
                      s->rows, s->cols, pr, pc, lines, need, dev->name, (unsigned long long)dev->local_mem_bytes);
        goto fail;
    }
    f->pr = (cl_uint)pr;
    f->pc = (cl_uint)pc;
    f->hc = (cl_uint)(pc / 2 + 1);
    f->out_rows = (cl_uint)clpk_xcorr_output_rows(s);
    f->out_cols = (cl_uint)clpk_xcorr_output_cols(s);
    f->half_r = (f->out_rows - 1) / 2;
    f->half_c = (f->out_cols - 1) / 2;
    f->half_rows = (f->out_rows + 1) / 2;
    f->lines = (cl_uint)lines;
    f->blocks = (f->hc + f->lines - 1) / f->lines;
    f->wg = (size_t)wg;
    f->n_pairs = (size_t)s->n_left;

    /* Intermediates per pair: T1 R x pc complex, T2 out_rows x hc complex. */
    const size_t t1_pair = (size_t)s->rows * pc * f->cpx, t2_pair = (size_t)f->out_rows * f->hc * f->cpx;
    const size_t per_pair = t1_pair > t2_pair ? t1_pair : t2_pair;
    uint64_t budget = dev->max_alloc_bytes / 4;
    if (budget > ((uint64_t)512 << 20)) budget = (uint64_t)512 << 20;
    size_t fit = (size_t)(budget / per_pair);
    if (fit < 1) fit = 1;
    f->batch = batch ? (size_t)batch : fit;
    if (f->batch > f->n_pairs) f->batch = f->n_pairs;
    if ((double)f->batch * (double)per_pair > (double)dev->max_alloc_bytes ||
        (double)f->batch * (t1_pair + t2_pair) > 0.8 * (double)dev->global_mem_bytes) {
        st = core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                       "xcorr fused-fft: %zu pairs per chunk need %zu bytes per pair of intermediates, past the "
                       "device's allocation limits: lower fused_batch",
                       f->batch, t1_pair + t2_pair);
        goto fail;
    }
    const size_t groups1 = ((size_t)s->rows * f->batch + f->lines - 1) / f->lines;
    const size_t groups2 = (size_t)f->blocks * f->batch;
    const size_t groups3 = ((size_t)f->half_rows * f->batch + f->lines - 1) / f->lines;
    if (groups1 > INT_MAX || groups2 > INT_MAX || groups3 > INT_MAX) {
        st = core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: too many work-groups: lower fused_batch");
        goto fail;
    }

    const char *names[] = {"xcorr_fused"};
    const char *options = s->precision == CLPK_PRECISION_F64 ? "-DVALUE_T=double -DVALUE2_T=double2 -DCLPK_FP64"
                                                             : "-DVALUE_T=float -DVALUE2_T=float2";
    cl_program prog = NULL;
    if ((st = core_program_get(ctx, names, 1, options, &prog)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fused_rows", &f->rows)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fused_columns", &f->columns)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fused_out", &f->out)) != CLPK_SUCCESS) goto fail;
    if ((st = check_kernel(f, f->rows, l13, "clpk_xcorr_fused_rows")) != CLPK_SUCCESS) goto fail;
    if ((st = check_kernel(f, f->columns, l2, "clpk_xcorr_fused_columns")) != CLPK_SUCCESS) goto fail;
    if ((st = check_kernel(f, f->out, l13, "clpk_xcorr_fused_out")) != CLPK_SUCCESS) goto fail;
    if ((st = twiddles(f, pc, &f->tw_c)) != CLPK_SUCCESS) goto fail;
    if ((st = twiddles(f, pr, &f->tw_r)) != CLPK_SUCCESS) goto fail;
    cl_int rc = CL_SUCCESS;
    cl_context c = clpk_context_cl_context(ctx);
    f->t1 = clCreateBuffer(c, CL_MEM_READ_WRITE, f->batch * t1_pair, NULL, &rc);
    if (rc == CL_SUCCESS) f->t2 = clCreateBuffer(c, CL_MEM_READ_WRITE, f->batch * t2_pair, NULL, &rc);
    if (rc != CL_SUCCESS) {
        st = core_fail_cl(ctx, rc, "clCreateBuffer(xcorr fused-fft intermediates)");
        goto fail;
    }
    /* arguments that do not change between executions */
    const cl_uint rows = (cl_uint)s->rows, cols = (cl_uint)s->cols;
    core_args a;
    core_args_begin(&a, ctx, f->rows, 6);
    CLPK_ARG(&a, cols);
    CLPK_ARG(&a, f->pc);
    CLPK_ARG(&a, f->lines);
    CLPK_ARG(&a, f->tw_c);
    CLPK_ARG(&a, f->t1);
    CLPK_ARG(&a, sh);
    core_args_local(&a, l13);
    core_args_jump(&a, f->columns, 0);
    CLPK_ARG(&a, f->t1);
    CLPK_ARG(&a, rows);
    CLPK_ARG(&a, f->pr);
    CLPK_ARG(&a, f->pc);
    CLPK_ARG(&a, f->lines);
    CLPK_ARG(&a, f->blocks);
    CLPK_ARG(&a, f->out_rows);
    CLPK_ARG(&a, f->half_r);
    CLPK_ARG(&a, f->tw_r);
    CLPK_ARG(&a, f->t2);
    CLPK_ARG(&a, sh);
    core_args_local(&a, l2);
    core_args_jump(&a, f->out, 0);
    CLPK_ARG(&a, f->t2);
    core_args_jump(&a, f->out, 2); /* 1: the chunk's line count, set per chunk */
    CLPK_ARG(&a, f->half_rows);
    CLPK_ARG(&a, f->out_rows);
    CLPK_ARG(&a, f->out_cols);
    CLPK_ARG(&a, f->half_c);
    CLPK_ARG(&a, f->pc);
    CLPK_ARG(&a, f->lines);
    const double scale = 1.0 / ((double)pr * (double)pc);
    const float scale_f = (float)scale;
    if (f->elem == sizeof(double))
        CLPK_ARG(&a, scale);
    else
        CLPK_ARG(&a, scale_f);
    CLPK_ARG(&a, f->tw_c);
    core_args_jump(&a, f->out, 12); /* 10, 11: the output buffer and offset, set per execution */
    CLPK_ARG(&a, sh);
    core_args_local(&a, l13);
    if ((st = core_args_end(&a)) != CLPK_SUCCESS) goto fail;
    core_log(ctx, CLPK_LOG_INFO, "xcorr fused-fft: %dx%d padded to %ux%u, %u lines, wg %zu, %zu pairs per chunk",
             s->rows, s->cols, f->pr, f->pc, f->lines, f->wg, f->batch);
    *out = f;
    return CLPK_SUCCESS;
fail:
    xcorr_fused_destroy(f);
    return st;
}

static clpk_status check_size(xcorr_fused *f, cl_mem m, size_t offset, size_t count, const char *what) {
    size_t bytes = 0;
    CLPK_CL_TRY(f->ctx, clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    if (offset > bytes / f->elem || count > bytes / f->elem - offset)
        return core_fail(f->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr fused-fft: %s buffer of %zu bytes is too small for %zu elements at offset %zu", what,
                         bytes, count, offset);
    return CLPK_SUCCESS;
}

static clpk_status launch(xcorr_fused *f, cl_kernel k, size_t groups, cl_uint n_wait, const cl_event *wait,
                          cl_event *ev, const char *name) {
    const size_t global = groups * f->wg;
    cl_int rc = clEnqueueNDRangeKernel(clpk_context_queue(f->ctx), k, 1, NULL, &global, &f->wg, n_wait,
                                       n_wait ? wait : NULL, ev);
    if (rc != CL_SUCCESS) return core_fail_cl(f->ctx, rc, name);
    return CLPK_SUCCESS;
}

clpk_status xcorr_fused_execute(xcorr_fused *f, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                                cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *first,
                                cl_event *done) {
    if (!f) return CLPK_ERROR_INVALID_ARGUMENT;
    if (first) *first = NULL;
    if (done) *done = NULL;
    if (!left || !right || !out || (n_wait && !wait))
        return core_fail(f->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: NULL buffer or wait list");
    const clpk_xcorr_shape *s = &f->shape;
    const size_t mat = (size_t)s->rows * s->cols, omat = (size_t)f->out_rows * f->out_cols;
    CLPK_TRY(check_size(f, left, left_offset, f->n_pairs * mat, "left"));
    CLPK_TRY(check_size(f, right, right_offset, f->n_pairs * mat, "right"));
    CLPK_TRY(check_size(f, out, out_offset, f->n_pairs * omat, "output"));
    const cl_ulong lo = left_offset, ro = right_offset;
    core_args a;
    core_args_begin(&a, f->ctx, f->rows, 0);
    CLPK_ARG(&a, left);
    CLPK_ARG(&a, lo);
    CLPK_ARG(&a, right);
    CLPK_ARG(&a, ro);
    core_args_jump(&a, f->out, 10);
    CLPK_ARG(&a, out);
    CLPK_TRY(core_args_end(&a));
    /* Chunks run in queue order on the same intermediates: the plan needs an in-order queue, as the FFT path. */
    for (size_t p0 = 0; p0 < f->n_pairs; p0 += f->batch) {
        const size_t n = f->n_pairs - p0 < f->batch ? f->n_pairs - p0 : f->batch;
        const int is_first = p0 == 0, is_last = p0 + n >= f->n_pairs;
        const cl_ulong first_row = (cl_ulong)p0 * s->rows, n_rows = (cl_ulong)n * s->rows;
        const cl_ulong n_lines = (cl_ulong)n * f->half_rows, off = out_offset + p0 * omat;
        core_args_begin(&a, f->ctx, f->rows, 4);
        CLPK_ARG(&a, first_row);
        CLPK_ARG(&a, n_rows);
        core_args_jump(&a, f->out, 1);
        CLPK_ARG(&a, n_lines);
        core_args_jump(&a, f->out, 11);
        CLPK_ARG(&a, off);
        CLPK_TRY(core_args_end(&a));
        CLPK_TRY(launch(f, f->rows, (size_t)((n_rows + f->lines - 1) / f->lines), is_first ? n_wait : 0, wait,
                        is_first ? first : NULL, "enqueue clpk_xcorr_fused_rows"));
        CLPK_TRY(launch(f, f->columns, n * f->blocks, 0, NULL, NULL, "enqueue clpk_xcorr_fused_columns"));
        CLPK_TRY(launch(f, f->out, (size_t)((n_lines + f->lines - 1) / f->lines), 0, NULL, is_last ? done : NULL,
                        "enqueue clpk_xcorr_fused_out"));
    }
    return CLPK_SUCCESS;
}

void xcorr_fused_destroy(xcorr_fused *f) {
    if (!f) return;
    if (f->rows) clReleaseKernel(f->rows);
    if (f->columns) clReleaseKernel(f->columns);
    if (f->out) clReleaseKernel(f->out);
    if (f->tw_c) clReleaseMemObject(f->tw_c);
    if (f->tw_r) clReleaseMemObject(f->tw_r);
    if (f->t1) clReleaseMemObject(f->t1);
    if (f->t2) clReleaseMemObject(f->t2);
    free(f);
}
