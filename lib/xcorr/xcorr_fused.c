/* Fused FFT path of the cross-correlation family (one-to-one): K1 row FFTs of z = left + i right, K2 column FFTs +
 * spectrum separation + product + inverse column FFTs of the needed output rows, K3 inverse row FFTs + scale + crop
 * straight into the user's output (cl/xcorr_fused.cl; design and correctness in docs/xcorr.md). Pairs are processed
 * in chunks of at most `batch` pairs (three launches per chunk) so the intermediates stay within the allocation
 * budget. The other patterns go to xcorr_fused_many.c behind the same interface. */
#include "xcorr_fused.h"
#include "xcorr_fused_common.h"
#include "xcorr_fused_many.h"
#include "xcorr_launch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct xcorr_fused {
    clpk_context *ctx;
    clpk_xcorr_shape shape;
    size_t elem, cpx;   /* bytes of a real and of a complex value */
    cl_uint pr, pc, hc; /* padded sizes, half-spectrum columns pc/2 + 1 */
    cl_uint out_rows, out_cols, half_r, half_c, half_rows;
    cl_uint lines, blocks;             /* lines per work-group; K2 column blocks per pair */
    size_t wg, row_wg, batch, n_pairs; /* row_wg: K1 and K3, wg: K2 */
    cl_mem tw_c, tw_r, t1, t2;
    cl_kernel rows, columns, out;
    xcorr_fused_many *many; /* the other patterns: everything above unused */
};

static size_t local_k2(size_t pr, int lines, size_t cpx, unsigned sh) {
    return 2 * xcorr_fused_padded_len(2 * (size_t)lines * pr, sh) * cpx;
}
static size_t local_k13(size_t pc, int lines, size_t cpx, unsigned sh) {
    return 2 * xcorr_fused_padded_len((size_t)lines * pc, sh) * cpx;
}

/* Local bytes of the largest kernel: K2 holds 2*lines columns and as much scratch, K1/K3 2*lines rows (gaps
 * included: the default layout). */
static size_t local_need(size_t pr, size_t pc, int lines, size_t cpx) {
    const size_t k2 = local_k2(pr, lines, cpx, XCORR_FUSED_GAPS_SHIFT),
                 k13 = local_k13(pc, lines, cpx, XCORR_FUSED_GAPS_SHIFT);
    return k2 > k13 ? k2 : k13;
}

int xcorr_fused_fits(const clpk_context *ctx, const clpk_xcorr_shape *s, int lines, int pow2) {
    if (lines < 1) return 0;
    if (s->pattern != CLPK_XCORR_ONE_TO_ONE) return xcorr_fused_many_fits(ctx, s, lines, pow2);
    size_t pr, pc;
    xcorr_fused_padded(s, pow2, &pr, &pc);
    return local_need(pr, pc, lines, 2 * clpk_precision_size(s->precision)) <=
           clpk_context_device_info(ctx)->local_mem_bytes;
}

/* Output-pass work-groups per compute unit below which the default trades lines for groups: with few pairs the
 * last kernel (and the row pass) leave most of a GPU idle. H100 held-out check (session 10), 48^2 f32: 64 pairs ran
 * 1.24-1.35x faster with 4 lines (6 groups per CU at 8 lines), 16 pairs 1.19-1.27x with 2 (1.4 at 8); from 256 pairs
 * (23 at 8) 8 lines stayed the fastest (docs/perf-xcorr.md). */
#define FUSED_MIN_GROUPS_PER_UNIT 8

void xcorr_fused_defaults(const clpk_xcorr_shape *s, size_t compute_units, int radix, core_params *out) {
    size_t pr, pc;
    xcorr_fused_padded(s, 0, &pr, &pc);
    /* Up to 1024 complex values per work-group within ~41 KiB of local memory (every GPU of the project has 48 KiB;
     * 5 groups per SM on the H100): more lines make K2's column reads wider (lines consecutive complex values
     * per row; 4 f32 lines fill a 32-byte sector) and give the small FFTs enough butterflies per stage. The other
     * patterns on GPUs (radix >= 8) count their own local memory (K2 holds one column set, not two) and take up to
     * 2048 values in f32 (docs/perf-xcorr.md, H200 session 25: 1 x 4000 at 32^2-256^2 1.07-1.41x as fast as with
     * the one-to-one rule; tiles at 128^2 and 256^2) and 1024 in f64, at most 8 lines. */
    const size_t p = pr > pc ? pr : pc, cpx = 2 * clpk_precision_size(s->precision);
    const int f64 = s->precision == CLPK_PRECISION_F64;
    const int wide = radix >= 8 && s->pattern != CLPK_XCORR_ONE_TO_ONE, n_to_m = s->pattern == CLPK_XCORR_N_TO_M;
    const size_t max_values = wide && !f64 ? 2048 : 1024;
    int lines = wide && !f64 ? 16 : 8;
    while (lines > 1 && ((size_t)lines * p > max_values ||
                         (wide ? xcorr_fused_many_local_bytes(s, lines, 0) : local_need(pr, pc, lines, cpx)) > 42000))
        lines /= 2;
    /* f64 one-to-many and n-to-mn on lines of 2^k points: at most 512 values unless that leaves one line (H200,
     * session 26: 8 lines of 128 and 4 of 256 ran 1.04-1.16x slower than half as many on 64 items; 2 lines of 512
     * 1.11-1.28x faster than one; 768 values of 96 and 192 points as fast as 384 or faster) */
    if (wide && f64 && !n_to_m && (p & (p - 1)) == 0)
        while (lines > 2 && (size_t)lines * p > 512)
            lines /= 2;
    const double out_lines = (double)clpk_xcorr_output_count(s) * (double)clpk_xcorr_output_rows(s);
    while (lines > 2 && out_lines / lines < (double)FUSED_MIN_GROUPS_PER_UNIT * (double)compute_units)
        lines /= 2;
    size_t wg = 64;
    if (radix >= 8) {
        /* H100 grid of session 14 (28^2-256^2, every pattern, docs/perf-xcorr.md): from 512 values a work-group
         * 128 items were the fastest or within 10 % (256: up to 1.47x slower, 8 % faster only for n-to-m at
         * 256-point lines); radix 16 where it saves a stage (lines of 128 and 256: 2 stages against 3; 384: 3
         * against 4) ran 1.03-1.25x faster in f32 and lost where it does not (64, 96, 192, 512: 1.1-1.4x slower);
         * f64 lost with it everywhere (registers), but on the H200 (session 26) f64 one-to-many with radix 16 and
         * 64 items ran 1.12x / 1.06x / 1.16x faster than the radix-8 defaults at lines of 128 / 256 / 384 (64^2,
         * 128^2, 192^2; 128 items: 0.84-1.07x): the shared-matrix patterns take it in f64 too (one-to-one and n-to-m
         * were not measured). Lines shorter than 128 were not measured: they keep radix 8.
         * f64 keeps 64 items at 512 values (27^2-32^2, session 25: 1.02-1.07x over 128; 64^2 and 128^2, session
         * 26: 1.08-1.12x; n-to-m 1.10-1.16x at 128 x 128) but for n-to-m's single line of 512 points (256^2,
         * session 26: 128 items 1.09-1.33x faster). */
        size_t wg128_above = wide && f64 && !(n_to_m && lines == 1) ? 512 : 511;
        const int radix16 =
            (!f64 || (wide && !n_to_m)) && p >= 128 && xcorr_fused_stages(p, 16) < xcorr_fused_stages(p, 8);
        if (radix16) core_params_set_int(out, "fft_radix", 16);
        if (radix16 && f64) wg128_above = 1024;
        /* H200, session 23 (docs/perf-xcorr.md): tiles ran n-to-m 0.97-1.20x and f64 one-to-many 1.02-1.09x as
         * fast as row-major, f32 one-to-many and n-to-mn 0.97-0.99x at 1024 values a group; at 2048 (session 25)
         * 1.00x at 64^2, 1.03-1.12x at 128^2 and 256^2 */
        if (n_to_m || f64 || (wide && (size_t)lines * p >= 2048)) core_params_set_int(out, "fused_tiles", 1);
        /* f32 one-to-many and n-to-mn with radix-16 stages (lines of 128 and 256): half the 2048 values on 64
         * items, one 16-point butterfly a work-item a stage, tiles kept: 1.09-1.11x at 64^2 and 96^2-128^2 (H200,
         * session 26; 12-16 values a work-item were the fastest at every size, and at equal values a work-item the
         * fewer lines; n-to-m lost with it) */
        if (wide && radix16 && !n_to_m && (size_t)lines * p >= 2048 && lines > 1) {
            lines /= 2;
            wg128_above = 1024;
        }
        if ((size_t)lines * p > wg128_above) wg = 128;
    } else {
        /* radix-4 butterflies per stage of one line set, rounded down to a power of two: at 80^2 and 160^2
         * (162-point lines) 162 work-items ran 1.24-1.37x slower than 128 on the H100 (held-out check,
         * docs/perf-xcorr.md) */
        const size_t need = (size_t)lines * p / 4;
        while (wg * 2 <= need && wg < 256)
            wg *= 2;
    }
    core_params_set_int(out, "rows", lines);
    core_params_set_int(out, "wg", (long long)wg);
}

clpk_status xcorr_fused_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                               xcorr_fused **out) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!shape || !config || !out)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: NULL shape, configuration or output");
    *out = NULL;
    const clpk_xcorr_shape *s = shape;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (s->precision == CLPK_PRECISION_F64 && !dev->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: f64 requested but %s has no double precision",
                         dev->name);
    CLPK_TRY(xcorr_fused_check_queue(ctx));
    if ((size_t)config->wg > dev->max_work_group_size)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: wg=%d exceeds the device's limit %zu",
                         config->wg, dev->max_work_group_size);
    if ((size_t)config->fused_row_wg > dev->max_work_group_size)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr fused-fft: fused_row_wg=%d exceeds the device's limit %zu", config->fused_row_wg,
                         dev->max_work_group_size);
    if (s->pattern != CLPK_XCORR_ONE_TO_ONE) {
        xcorr_fused *f = calloc(1, sizeof *f);
        if (!f) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fused-fft: out of host memory");
        f->ctx = ctx;
        const clpk_status st = xcorr_fused_many_create(ctx, s, config, &f->many);
        if (st != CLPK_SUCCESS) {
            free(f);
            return st;
        }
        *out = f;
        return CLPK_SUCCESS;
    }
    const int pow2 = config->fft_pad == 1;
    const long lines = config->rows, wg = config->wg, batch = config->fused_batch, gaps = config->fused_gaps;

    xcorr_fused *f = calloc(1, sizeof *f);
    if (!f) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fused-fft: out of host memory");
    f->ctx = ctx;
    f->shape = *s;
    f->elem = clpk_precision_size(s->precision);
    f->cpx = 2 * f->elem;
    size_t pr, pc;
    xcorr_fused_padded(s, pow2, &pr, &pc);
    clpk_status st = CLPK_SUCCESS;
    const cl_uint sh = gaps ? XCORR_FUSED_GAPS_SHIFT : XCORR_FUSED_NO_GAPS_SHIFT;
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
    f->row_wg = config->fused_row_wg > 0 ? (size_t)config->fused_row_wg : (size_t)wg;
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
    /* one dimension of fewer than 2^31 work-items per launch (xcorr_launch.h) */
    const size_t max_groups = core_launch_dim_items(ctx) / f->wg,
                 max_row_groups = core_launch_dim_items(ctx) / f->row_wg;
    if (groups1 > max_row_groups || groups2 > max_groups || groups3 > max_row_groups) {
        st = core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: too many work-groups: lower fused_batch");
        goto fail;
    }

    cl_program prog = NULL;
    if ((st = xcorr_fused_program(ctx, "xcorr_fused", s->precision, config->fft_radix, &prog)) != CLPK_SUCCESS)
        goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fused_rows", &f->rows)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fused_columns", &f->columns)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fused_out", &f->out)) != CLPK_SUCCESS) goto fail;
    if ((st = xcorr_fused_check_kernel(ctx, f->rows, f->row_wg, l13, "clpk_xcorr_fused_rows")) != CLPK_SUCCESS)
        goto fail;
    if ((st = xcorr_fused_check_kernel(ctx, f->columns, f->wg, l2, "clpk_xcorr_fused_columns")) != CLPK_SUCCESS)
        goto fail;
    if ((st = xcorr_fused_check_kernel(ctx, f->out, f->row_wg, l13, "clpk_xcorr_fused_out")) != CLPK_SUCCESS) goto fail;
    if ((st = xcorr_fused_twiddles(ctx, pc, f->elem, &f->tw_c)) != CLPK_SUCCESS) goto fail;
    if ((st = xcorr_fused_twiddles(ctx, pr, f->elem, &f->tw_r)) != CLPK_SUCCESS) goto fail;
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
    core_log(ctx, CLPK_LOG_INFO,
             "xcorr fused-fft: %dx%d padded to %ux%u, %u lines, wg %zu (row kernels %zu), %zu pairs per chunk", s->rows,
             s->cols, f->pr, f->pc, f->lines, f->wg, f->row_wg, f->batch);
    *out = f;
    return CLPK_SUCCESS;
fail:
    xcorr_fused_destroy(f);
    return st;
}

static clpk_status launch(xcorr_fused *f, cl_kernel k, size_t groups, cl_uint n_wait, const cl_event *wait,
                          cl_event *ev, const char *name) {
    return xcorr_fused_launch(f->ctx, k, groups, k == f->columns ? f->wg : f->row_wg, n_wait, wait, ev, name);
}

clpk_status xcorr_fused_execute(xcorr_fused *f, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                                cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *first,
                                cl_event *done) {
    if (!f) return CLPK_ERROR_INVALID_ARGUMENT;
    if (first) *first = NULL;
    if (done) *done = NULL;
    if (!left || !right || !out || (n_wait && !wait))
        return core_fail(f->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: NULL buffer or wait list");
    if (f->many)
        return xcorr_fused_many_execute(f->many, left, left_offset, right, right_offset, out, out_offset, n_wait, wait,
                                        first, done);
    const clpk_xcorr_shape *s = &f->shape;
    const size_t mat = (size_t)s->rows * s->cols, omat = (size_t)f->out_rows * f->out_cols;
    CLPK_TRY(xcorr_fused_check_size(f->ctx, left, left_offset, f->n_pairs * mat, f->elem, "left"));
    CLPK_TRY(xcorr_fused_check_size(f->ctx, right, right_offset, f->n_pairs * mat, f->elem, "right"));
    CLPK_TRY(xcorr_fused_check_size(f->ctx, out, out_offset, f->n_pairs * omat, f->elem, "output"));
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
    xcorr_fused_many_destroy(f->many);
    if (f->rows) clReleaseKernel(f->rows);
    if (f->columns) clReleaseKernel(f->columns);
    if (f->out) clReleaseKernel(f->out);
    if (f->tw_c) clReleaseMemObject(f->tw_c);
    if (f->tw_r) clReleaseMemObject(f->tw_r);
    if (f->t1) clReleaseMemObject(f->t1);
    if (f->t2) clReleaseMemObject(f->t2);
    free(f);
}
