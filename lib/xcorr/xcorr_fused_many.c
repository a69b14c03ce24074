/* Fused FFT path for one-to-many, n-to-m and n-to-mn (cl/xcorr_fused_many.cl; design and correctness in
 * docs/xcorr.md, "Fused FFT path, shared matrices"). Per execution: the lefts' spectra once (S1 row FFTs, S2 column
 * FFTs, stored conjugated: n_left x PR x PC complex), then per chunk of right pairs K1 (row FFTs of z = b1 + i b2),
 * and per chunk of lefts K2 (column FFTs, products with the stored spectra, inverse column FFTs of the needed rows)
 * and K3 (inverse row FFTs, two outputs per line, window only). */
#include "xcorr_fused_many.h"
#include "xcorr_fused_common.h"
#include "xcorr_launch.h"

#include <limits.h>
#include <stdlib.h>

/* Lines per work-group the kernels' per-line tables hold (cl/xcorr_fused_many.cl MAX_LINES; the table's rows limit). */
#define MAX_LINES 16

struct xcorr_fused_many {
    clpk_context *ctx;
    clpk_xcorr_shape shape;
    size_t elem, wg;
    int fft_radix; /* the largest radix of an FFT stage (a build option) */
    cl_uint rows, cols, pr, pc, out_rows, out_cols, half_r, half_c, lines, blocks, sh;
    size_t pcl;     /* columns of T1, T2 and the spectra (cl/xcorr_fused_many.cl): blocks * lines */
    cl_uint tile_w; /* their tiles' width: lines (fused_tiles=1) or pcl (row-major) */
    /* pairing of the rights and the outputs' layout (cl/xcorr_fused_many.cl header) */
    cl_uint inter, m_count;
    cl_ulong out_stride;
    size_t n_pairs, lefts_per_pair; /* right pairs; lefts each pair meets (n-to-m: all, else one) */
    size_t batch, left_batch;       /* right pairs (and lefts in S1/S2) per chunk; lefts per K2/K3 launch */
    size_t local_rows, local_spectrum, local_columns;
    cl_mem tw_c, tw_r, t1, t2, spec;
    cl_kernel k_rows, k_spectrum, k_columns, k_out;
};

static size_t local_rows(size_t pc, size_t lines, size_t cpx, unsigned sh) {
    return 2 * xcorr_fused_padded_len(lines * pc, sh) * cpx;
}
/* K2 keeps the forward result while two more regions serve each left (n-to-m); with one left a pair it multiplies in
 * place and needs two, as S2 does. Two regions against three: 1.03-1.08x on the H200 (docs/perf-xcorr.md), the
 * groups per compute unit then bounded by registers. */
static size_t local_columns(clpk_xcorr_pattern pattern, size_t pr, size_t lines, size_t cpx, unsigned sh) {
    return (pattern == CLPK_XCORR_N_TO_M ? 3 : 2) * xcorr_fused_padded_len(lines * pr, sh) * cpx;
}

size_t xcorr_fused_many_local_bytes(const clpk_xcorr_shape *s, int lines, int pow2) {
    size_t pr, pc;
    xcorr_fused_padded(s, pow2, &pr, &pc);
    const size_t cpx = 2 * clpk_precision_size(s->precision);
    const size_t a = local_rows(pc, (size_t)lines, cpx, XCORR_FUSED_GAPS_SHIFT);
    const size_t b = local_columns(s->pattern, pr, (size_t)lines, cpx, XCORR_FUSED_GAPS_SHIFT);
    return a > b ? a : b;
}

int xcorr_fused_many_fits(const clpk_context *ctx, const clpk_xcorr_shape *s, int lines, int pow2) {
    if (s->pattern == CLPK_XCORR_ONE_TO_ONE || lines < 1 || lines > MAX_LINES) return 0;
    return xcorr_fused_many_local_bytes(s, lines, pow2) <= clpk_context_device_info(ctx)->local_mem_bytes;
}

/* The pattern's pairing of rights (two per complex transform, both with the same left) and its outputs. */
static void pairing(xcorr_fused_many *m, const clpk_xcorr_shape *s) {
    const size_t nr = (size_t)s->n_right;
    m->inter = 1;
    m->m_count = (cl_uint)nr;
    m->out_stride = 0;
    m->lefts_per_pair = 1;
    m->n_pairs = (nr + 1) / 2;
    if (s->pattern == CLPK_XCORR_N_TO_M) {
        m->out_stride = nr;
        m->lefts_per_pair = (size_t)s->n_left;
    } else if (s->pattern == CLPK_XCORR_N_TO_MN) {
        const size_t per_left = nr / (size_t)s->n_left;
        m->inter = (cl_uint)s->n_left;
        m->m_count = (cl_uint)per_left;
        m->n_pairs = (size_t)s->n_left * ((per_left + 1) / 2);
    }
}

/* Chunk sizes within the allocation budget, and the refusals past the device's limits. */
static clpk_status plan_chunks(xcorr_fused_many *m, long fused_batch) {
    const clpk_device_info *dev = clpk_context_device_info(m->ctx);
    const size_t cpx = 2 * m->elem;
    const size_t t1_pair = (size_t)m->rows * m->pcl * cpx, t2_unit = (size_t)m->out_rows * m->pcl * cpx;
    const double spec = (double)m->shape.n_left * m->pr * m->pcl * cpx;
    uint64_t budget = dev->max_alloc_bytes / 4;
    if (budget > ((uint64_t)512 << 20)) budget = (uint64_t)512 << 20;
    m->left_batch = m->lefts_per_pair;
    if (fused_batch) {
        /* outputs per chunk, two per right pair and left */
        const size_t outputs = ((size_t)fused_batch + 1) / 2 * 2, per_pair = 2 * m->lefts_per_pair;
        if (outputs < per_pair) m->left_batch = outputs / 2;
        m->batch = outputs < per_pair ? 1 : outputs / per_pair;
    } else {
        if ((uint64_t)t1_pair + (uint64_t)m->left_batch * t2_unit > budget) {
            const uint64_t room = budget > t1_pair ? budget - t1_pair : 0;
            m->left_batch = (size_t)(room / t2_unit);
            if (m->left_batch < 1) m->left_batch = 1;
        }
        m->batch = (size_t)(budget / (t1_pair + m->left_batch * t2_unit));
        if (m->batch < 1) m->batch = 1;
    }
    if (m->batch > m->n_pairs) m->batch = m->n_pairs;
    const double t1 = (double)m->batch * t1_pair, t2 = (double)m->batch * m->left_batch * t2_unit;
    if (spec > (double)dev->max_alloc_bytes)
        return core_fail(m->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: the spectra of %d lefts need %.0f bytes, past the device's largest "
                         "allocation of %llu: use fft",
                         m->shape.n_left, spec, (unsigned long long)dev->max_alloc_bytes);
    if (t1 > (double)dev->max_alloc_bytes || t2 > (double)dev->max_alloc_bytes ||
        t1 + t2 + spec > 0.8 * (double)dev->global_mem_bytes)
        return core_fail(m->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr fused-fft: %zu right pairs per chunk need %.0f + %.0f bytes of intermediates (and "
                         "%.0f of spectra), past the device's allocation limits: lower fused_batch",
                         m->batch, t1, t2, spec);
    const size_t groups_rows = (m->batch * m->rows + m->lines - 1) / m->lines;
    const size_t groups_columns = m->batch * m->blocks;
    const size_t groups_out = (m->batch * m->left_batch * m->out_rows + m->lines - 1) / m->lines;
    /* one dimension of fewer than 2^31 work-items per launch (xcorr_launch.h); K2's slices are checked per launch */
    const size_t max_groups = core_launch_dim_items(m->ctx) / m->wg;
    if (groups_rows > max_groups || groups_columns > max_groups || groups_out > max_groups)
        return core_fail(m->ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: too many work-groups: lower fused_batch");
    return CLPK_SUCCESS;
}

static clpk_status make_kernels(xcorr_fused_many *m) {
    cl_program prog = NULL;
    CLPK_TRY(xcorr_fused_program(m->ctx, "xcorr_fused_many", m->shape.precision, m->fft_radix, &prog));
    CLPK_TRY(core_kernel_create(m->ctx, prog, "clpk_xcorr_many_rows", &m->k_rows));
    CLPK_TRY(core_kernel_create(m->ctx, prog, "clpk_xcorr_many_spectrum", &m->k_spectrum));
    CLPK_TRY(core_kernel_create(m->ctx, prog, "clpk_xcorr_many_columns", &m->k_columns));
    CLPK_TRY(core_kernel_create(m->ctx, prog, "clpk_xcorr_many_out", &m->k_out));
    CLPK_TRY(xcorr_fused_check_kernel(m->ctx, m->k_rows, m->wg, m->local_rows, "clpk_xcorr_many_rows"));
    CLPK_TRY(xcorr_fused_check_kernel(m->ctx, m->k_spectrum, m->wg, m->local_spectrum, "clpk_xcorr_many_spectrum"));
    CLPK_TRY(xcorr_fused_check_kernel(m->ctx, m->k_columns, m->wg, m->local_columns, "clpk_xcorr_many_columns"));
    return xcorr_fused_check_kernel(m->ctx, m->k_out, m->wg, m->local_rows, "clpk_xcorr_many_out");
}

static clpk_status make_buffers(xcorr_fused_many *m) {
    const size_t cpx = 2 * m->elem;
    CLPK_TRY(xcorr_fused_twiddles(m->ctx, m->pc, m->elem, &m->tw_c));
    CLPK_TRY(xcorr_fused_twiddles(m->ctx, m->pr, m->elem, &m->tw_r));
    cl_context c = clpk_context_cl_context(m->ctx);
    cl_int rc = CL_SUCCESS;
    m->t1 = clCreateBuffer(c, CL_MEM_READ_WRITE, m->batch * m->rows * m->pcl * cpx, NULL, &rc);
    if (rc == CL_SUCCESS)
        m->t2 = clCreateBuffer(c, CL_MEM_READ_WRITE, m->batch * m->left_batch * m->out_rows * m->pcl * cpx, NULL, &rc);
    if (rc == CL_SUCCESS)
        m->spec = clCreateBuffer(c, CL_MEM_READ_WRITE, (size_t)m->shape.n_left * m->pr * m->pcl * cpx, NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(m->ctx, rc, "clCreateBuffer(xcorr fused-fft intermediates)");
    return CLPK_SUCCESS;
}

clpk_status xcorr_fused_many_create(clpk_context *ctx, const clpk_xcorr_shape *s, const xcorr_config *config,
                                    xcorr_fused_many **out) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!s || !config || !out)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: NULL shape, configuration or output");
    *out = NULL;
    if (s->pattern == CLPK_XCORR_ONE_TO_ONE)
        return core_fail(ctx, CLPK_ERROR_INTERNAL, "xcorr fused-fft: one-to-one belongs to xcorr_fused_create");
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const int lines = config->rows;
    if (lines < 1 || lines > MAX_LINES)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fused-fft: rows=%d outside 1..%d", lines, MAX_LINES);
    xcorr_fused_many *m = calloc(1, sizeof *m);
    if (!m) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fused-fft: out of host memory");
    m->ctx = ctx;
    m->shape = *s;
    m->elem = clpk_precision_size(s->precision);
    m->wg = (size_t)config->wg;
    m->sh = config->fused_gaps ? XCORR_FUSED_GAPS_SHIFT : XCORR_FUSED_NO_GAPS_SHIFT;
    m->fft_radix = config->fft_radix;
    size_t pr, pc;
    xcorr_fused_padded(s, config->fft_pad == 1, &pr, &pc);
    const size_t cpx = 2 * m->elem;
    m->local_rows = local_rows(pc, (size_t)lines, cpx, m->sh);
    m->local_spectrum = 2 * xcorr_fused_padded_len((size_t)lines * pr, m->sh) * cpx;
    m->local_columns = local_columns(s->pattern, pr, (size_t)lines, cpx, m->sh);
    const size_t need = m->local_rows > m->local_columns ? m->local_rows : m->local_columns;
    clpk_status st = CLPK_SUCCESS;
    if (pr > 65536 || pc > 65536 || need > dev->local_mem_bytes) {
        st = core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                       "xcorr fused-fft: %dx%d padded to %zux%zu with %d lines per work-group needs %zu bytes of local "
                       "memory, %s has %llu: lower rows (FFT lines per work-group) or use fft",
                       s->rows, s->cols, pr, pc, lines, need, dev->name, (unsigned long long)dev->local_mem_bytes);
        goto fail;
    }
    m->rows = (cl_uint)s->rows;
    m->cols = (cl_uint)s->cols;
    m->pr = (cl_uint)pr;
    m->pc = (cl_uint)pc;
    m->out_rows = (cl_uint)clpk_xcorr_output_rows(s);
    m->out_cols = (cl_uint)clpk_xcorr_output_cols(s);
    m->half_r = (m->out_rows - 1) / 2;
    m->half_c = (m->out_cols - 1) / 2;
    m->lines = (cl_uint)lines;
    m->blocks = (m->pc + m->lines - 1) / m->lines;
    m->pcl = (size_t)m->blocks * m->lines;
    m->tile_w = config->fused_tiles ? m->lines : (cl_uint)m->pcl;
    pairing(m, s);
    if ((st = plan_chunks(m, config->fused_batch)) != CLPK_SUCCESS) goto fail;
    if ((st = make_kernels(m)) != CLPK_SUCCESS) goto fail;
    if ((st = make_buffers(m)) != CLPK_SUCCESS) goto fail;
    core_log(ctx, CLPK_LOG_INFO,
             "xcorr fused-fft %s: %dx%d padded to %ux%u, %u lines, wg %zu, %zu right pairs per chunk, %zu lefts per "
             "launch",
             clpk_xcorr_pattern_name(s->pattern), s->rows, s->cols, m->pr, m->pc, m->lines, m->wg, m->batch,
             m->left_batch);
    *out = m;
    return CLPK_SUCCESS;
fail:
    xcorr_fused_many_destroy(m);
    return st;
}

/* Every kernel's last arguments (the tiles' width, the gap shift, then its local buffer of `local_bytes`), then
 * `groups` work-groups of it. */
static clpk_status end_args_and_launch(xcorr_fused_many *m, core_args *a, cl_kernel k, size_t local_bytes,
                                       size_t groups, cl_uint n_wait, const cl_event *wait, cl_event *ev,
                                       const char *name) {
    CLPK_ARG(a, m->tile_w);
    CLPK_ARG(a, m->sh);
    core_args_local(a, local_bytes);
    CLPK_TRY(core_args_end(a));
    return xcorr_fused_launch(m->ctx, k, groups, m->wg, n_wait, wait, ev, name);
}

/* The column kernels' (S2, K2) first arguments: T1 and the column blocks' geometry. */
static void column_args_begin(xcorr_fused_many *m, core_args *a, cl_kernel k) {
    core_args_begin(a, m->ctx, k, 0);
    CLPK_ARG(a, m->t1);
    CLPK_ARG(a, m->rows);
    CLPK_ARG(a, m->pr);
    CLPK_ARG(a, m->pc);
    CLPK_ARG(a, m->lines);
    CLPK_ARG(a, m->blocks);
}

/* S1/K1: row FFTs of `n` matrices (pack 1: lefts first .. first + n - 1) or right pairs (pack 2) into T1. */
static clpk_status run_rows(xcorr_fused_many *m, cl_mem src, cl_ulong src_offset, cl_ulong first, size_t n,
                            cl_uint pack, cl_uint n_wait, const cl_event *wait, cl_event *ev) {
    const cl_ulong n_rows = (cl_ulong)n * m->rows;
    const cl_uint inter = pack == 2 ? m->inter : 1, m_count = m->m_count;
    core_args a;
    core_args_begin(&a, m->ctx, m->k_rows, 0);
    CLPK_ARG(&a, src);
    CLPK_ARG(&a, src_offset);
    CLPK_ARG(&a, first);
    CLPK_ARG(&a, n_rows);
    CLPK_ARG(&a, m->rows);
    CLPK_ARG(&a, m->cols);
    CLPK_ARG(&a, m->pc);
    CLPK_ARG(&a, m->lines);
    CLPK_ARG(&a, inter);
    CLPK_ARG(&a, m_count);
    CLPK_ARG(&a, pack);
    CLPK_ARG(&a, m->tw_c);
    CLPK_ARG(&a, m->t1);
    return end_args_and_launch(m, &a, m->k_rows, m->local_rows, (size_t)((n_rows + m->lines - 1) / m->lines), n_wait,
                               wait, ev, "enqueue clpk_xcorr_many_rows");
}

/* S2: column FFTs of lefts first .. first + n - 1 (in T1) into their stored spectra. */
static clpk_status run_spectrum(xcorr_fused_many *m, cl_ulong first, size_t n) {
    core_args a;
    column_args_begin(m, &a, m->k_spectrum);
    CLPK_ARG(&a, first);
    CLPK_ARG(&a, m->tw_r);
    CLPK_ARG(&a, m->spec);
    return end_args_and_launch(m, &a, m->k_spectrum, m->local_spectrum, n * m->blocks, 0, NULL, NULL,
                               "enqueue clpk_xcorr_many_spectrum");
}

/* K2: right pairs first .. first + n - 1 (in T1) with lefts l0 .. l0 + n_lefts - 1 of each into T2. The lefts are
 * split over several work-groups per column block where the pairs alone would leave the device under-filled (fewer
 * than 4 groups per compute unit; each slice then repeats the forward column FFTs, compute only). */
static clpk_status run_columns(xcorr_fused_many *m, cl_ulong first, size_t n, cl_uint l0, cl_uint n_lefts) {
    const size_t cells = n * m->blocks, units = clpk_context_device_info(m->ctx)->compute_units;
    const size_t target = 4 * (units ? units : 1);
    size_t slices = cells < target ? (target + cells - 1) / cells : 1;
    if (slices > n_lefts) slices = n_lefts;
    const size_t per_slice = (n_lefts + slices - 1) / slices;
    const cl_uint n_slices = (cl_uint)((n_lefts + per_slice - 1) / per_slice);
    if (cells * n_slices > core_launch_dim_items(m->ctx) / m->wg)
        return core_fail(m->ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fused-fft: too many work-groups: lower fused_batch");
    core_args a;
    column_args_begin(m, &a, m->k_columns);
    CLPK_ARG(&a, m->out_rows);
    CLPK_ARG(&a, m->half_r);
    CLPK_ARG(&a, first);
    CLPK_ARG(&a, m->inter);
    CLPK_ARG(&a, l0);
    CLPK_ARG(&a, n_lefts);
    CLPK_ARG(&a, n_slices);
    CLPK_ARG(&a, m->spec);
    CLPK_ARG(&a, m->tw_r);
    CLPK_ARG(&a, m->t2);
    return end_args_and_launch(m, &a, m->k_columns, m->local_columns, cells * n_slices, 0, NULL, NULL,
                               "enqueue clpk_xcorr_many_columns");
}

/* K3: the T2 rows of run_columns' items into the user's output. */
static clpk_status run_out(xcorr_fused_many *m, cl_ulong first, size_t n, cl_uint l0, cl_uint n_lefts, cl_mem out,
                           cl_ulong out_offset, cl_event *ev) {
    const cl_ulong n_lines = (cl_ulong)n * n_lefts * m->out_rows;
    const double scale = 1.0 / ((double)m->pr * (double)m->pc);
    const float scale_f = (float)scale;
    core_args a;
    core_args_begin(&a, m->ctx, m->k_out, 0);
    CLPK_ARG(&a, m->t2);
    CLPK_ARG(&a, n_lines);
    CLPK_ARG(&a, m->out_rows);
    CLPK_ARG(&a, m->out_cols);
    CLPK_ARG(&a, m->half_c);
    CLPK_ARG(&a, m->pc);
    CLPK_ARG(&a, m->lines);
    if (m->elem == sizeof(double))
        CLPK_ARG(&a, scale);
    else
        CLPK_ARG(&a, scale_f);
    CLPK_ARG(&a, first);
    CLPK_ARG(&a, m->inter);
    CLPK_ARG(&a, m->m_count);
    CLPK_ARG(&a, l0);
    CLPK_ARG(&a, n_lefts);
    CLPK_ARG(&a, m->out_stride);
    CLPK_ARG(&a, m->tw_c);
    CLPK_ARG(&a, out);
    CLPK_ARG(&a, out_offset);
    return end_args_and_launch(m, &a, m->k_out, m->local_rows, (size_t)((n_lines + m->lines - 1) / m->lines), 0, NULL,
                               ev, "enqueue clpk_xcorr_many_out");
}

clpk_status xcorr_fused_many_execute(xcorr_fused_many *m, cl_mem left, size_t left_offset, cl_mem right,
                                     size_t right_offset, cl_mem out, size_t out_offset, cl_uint n_wait,
                                     const cl_event *wait, cl_event *first, cl_event *done) {
    if (!m) return CLPK_ERROR_INVALID_ARGUMENT;
    if (first) *first = NULL;
    if (done) *done = NULL;
    const clpk_xcorr_shape *s = &m->shape;
    const size_t mat = (size_t)s->rows * s->cols, omat = (size_t)m->out_rows * m->out_cols;
    CLPK_TRY(xcorr_fused_check_size(m->ctx, left, left_offset, (size_t)s->n_left * mat, m->elem, "left"));
    CLPK_TRY(xcorr_fused_check_size(m->ctx, right, right_offset, (size_t)s->n_right * mat, m->elem, "right"));
    CLPK_TRY(xcorr_fused_check_size(m->ctx, out, out_offset, clpk_xcorr_output_count(s) * omat, m->elem, "output"));
    /* In queue order on shared intermediates (the plan needs an in-order queue): spectra first, then the rights. */
    for (size_t l0 = 0; l0 < (size_t)s->n_left; l0 += m->batch) {
        const size_t n = (size_t)s->n_left - l0 < m->batch ? (size_t)s->n_left - l0 : m->batch;
        CLPK_TRY(run_rows(m, left, left_offset, l0, n, 1, l0 == 0 ? n_wait : 0, wait, l0 == 0 ? first : NULL));
        CLPK_TRY(run_spectrum(m, l0, n));
    }
    for (size_t p0 = 0; p0 < m->n_pairs; p0 += m->batch) {
        const size_t n = m->n_pairs - p0 < m->batch ? m->n_pairs - p0 : m->batch;
        CLPK_TRY(run_rows(m, right, right_offset, p0, n, 2, 0, NULL, NULL));
        for (size_t l0 = 0; l0 < m->lefts_per_pair; l0 += m->left_batch) {
            const size_t nl = m->lefts_per_pair - l0 < m->left_batch ? m->lefts_per_pair - l0 : m->left_batch;
            const int last = p0 + n >= m->n_pairs && l0 + nl >= m->lefts_per_pair;
            CLPK_TRY(run_columns(m, p0, n, (cl_uint)l0, (cl_uint)nl));
            CLPK_TRY(run_out(m, p0, n, (cl_uint)l0, (cl_uint)nl, out, out_offset, last ? done : NULL));
        }
    }
    return CLPK_SUCCESS;
}

void xcorr_fused_many_destroy(xcorr_fused_many *m) {
    if (!m) return;
    if (m->k_rows) clReleaseKernel(m->k_rows);
    if (m->k_spectrum) clReleaseKernel(m->k_spectrum);
    if (m->k_columns) clReleaseKernel(m->k_columns);
    if (m->k_out) clReleaseKernel(m->k_out);
    if (m->tw_c) clReleaseMemObject(m->tw_c);
    if (m->tw_r) clReleaseMemObject(m->tw_r);
    if (m->t1) clReleaseMemObject(m->t1);
    if (m->t2) clReleaseMemObject(m->t2);
    if (m->spec) clReleaseMemObject(m->spec);
    free(m);
}
