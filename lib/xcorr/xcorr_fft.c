/* FFT path of the cross-correlation family: zero-pad to an FFT-friendly size, batched 2D R2C (VkFFT, OpenCL backend),
 * conj(L)*R, C2R, crop. Every matrix is transformed once per execution: lefts first (kept), for n-to-m all rights too
 * (kept); then output chunks of at most `fft_batch` matrices go through product, inverse transform and crop.
 *
 * VkFFT generates and compiles its kernels when an application is initialised (about 1-2 s per application on
 * PoCL, ~0.6 s on the H100 the first time, 0.01 s once NVIDIA's driver cache has them); a plan creates every
 * application it needs once, keyed by batch size, so executions only enqueue kernels. This is the one translation unit
 * that includes vkFFT.h. */
#include "xcorr_fft.h"
#include "xcorr_launch.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifndef CLPK_HAVE_VKFFT

clpk_status xcorr_fft_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                             xcorr_fft **out) {
    (void)shape;
    (void)config;
    if (out) *out = NULL;
    return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fft: clpk was built without VkFFT (install libvkfft-dev)");
}

clpk_status xcorr_fft_execute(xcorr_fft *fft, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                              cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *done) {
    return CLPK_ERROR_UNSUPPORTED;
}

void xcorr_fft_destroy(xcorr_fft *fft) { (void)fft; }

#else

#define VKFFT_BACKEND 3
#include <vkFFT.h>

/* One application per distinct batch size: fft_batch and the remainders of the streams (lefts, rights, outputs). */
#define FFT_MAX_APPS 40
#define FFT_WORK_GROUP 64

typedef struct fft_app {
    size_t batch;   /* matrices per transform */
    uint64_t bytes; /* size of the buffer VkFFT is told about */
    cl_mem slot;    /* VkFFT keeps a pointer to this handle: it must not move while the app lives */
    VkFFTApplication app;
} fft_app;

struct xcorr_fft {
    clpk_context *ctx;
    clpk_xcorr_shape shape;
    int out_rows, out_cols;
    size_t n_out;
    cl_uint prows, pcols, pstride; /* padded transform size; row stride in reals (2 * (pcols / 2 + 1)) */
    size_t spec_len;               /* complex values per spectrum: prows * (pcols / 2 + 1) */
    size_t matrix_bytes;           /* bytes per matrix in the transform layout */
    size_t batch;                  /* max matrices per transform */
    size_t n_lspec, n_rspec;       /* spectra kept between phases */
    cl_mem work, lspec, rspec;
    cl_kernel pack, product, crop;
    size_t wg;
    fft_app *apps[FFT_MAX_APPS];
    int n_apps;
    double setup_seconds;
};

static size_t round_pow2(size_t n) {
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static int is_smooth(size_t n) {
    static const size_t primes[] = {2, 3, 5, 7};
    for (int i = 0; i < 4; ++i)
        while (n % primes[i] == 0)
            n /= primes[i];
    return n == 1;
}

/* Smallest size >= n (even when `even`) of the requested kind. */
static size_t padded_size(size_t n, int pow2, int even) {
    if (n < 2) n = 2;
    if (pow2) return round_pow2(n);
    for (size_t m = n;; ++m)
        if ((!even || m % 2 == 0) && is_smooth(m)) return m;
}

static size_t shape_output_count(const clpk_xcorr_shape *s) {
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_ONE: return (size_t)s->n_left;
    case CLPK_XCORR_ONE_TO_MANY:
    case CLPK_XCORR_N_TO_MN: return (size_t)s->n_right;
    case CLPK_XCORR_N_TO_M: return (size_t)s->n_left * (size_t)s->n_right;
    }
    return 0;
}

static clpk_status check_shape(clpk_context *ctx, const clpk_xcorr_shape *s) {
    if (s->rows < 1 || s->cols < 1 || s->n_left < 1 || s->n_right < 1)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr fft: sizes and counts must be positive (%dx%d, %d, %d)", s->rows, s->cols, s->n_left,
                         s->n_right);
    if (s->rows > 65536 || s->cols > 65536)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fft: matrices of %dx%d exceed the supported 65536",
                         s->rows, s->cols);
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_ONE:
        if (s->n_left != s->n_right)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fft: one-to-one needs n_left == n_right (%d, %d)",
                             s->n_left, s->n_right);
        break;
    case CLPK_XCORR_ONE_TO_MANY:
        if (s->n_left != 1)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fft: one-to-many needs n_left == 1 (%d)",
                             s->n_left);
        break;
    case CLPK_XCORR_N_TO_MN:
        if (s->n_right % s->n_left != 0)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                             "xcorr fft: n-to-mn needs n_right a multiple of n_left (%d, %d)", s->n_right, s->n_left);
        break;
    case CLPK_XCORR_N_TO_M: break;
    default: return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fft: unknown pattern %d", (int)s->pattern);
    }
    if (s->search_rows < 0 || s->search_cols < 0 ||
        (s->search_rows && (s->search_rows % 2 == 0 || s->search_rows > 2 * s->rows - 1)) ||
        (s->search_cols && (s->search_cols % 2 == 0 || s->search_cols > 2 * s->cols - 1)))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr fft: a search window must be odd and at most 2R-1 x 2C-1 (%dx%d for %dx%d)",
                         s->search_rows, s->search_cols, s->rows, s->cols);
    if (s->precision != CLPK_PRECISION_F32 && s->precision != CLPK_PRECISION_F64)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fft: unknown precision %d", (int)s->precision);
    if (s->precision == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr fft: the device has no fp64 (cl_khr_fp64)");
    return CLPK_SUCCESS;
}

static clpk_status fail_vkfft(clpk_context *ctx, VkFFTResult r, const char *what) {
    clpk_status st = (r == VKFFT_ERROR_MALLOC_FAILED || r == VKFFT_ERROR_FAILED_TO_ALLOCATE) ? CLPK_ERROR_OUT_OF_MEMORY
                                                                                             : CLPK_ERROR_OPENCL;
    return core_fail(ctx, st, "xcorr fft: VkFFT %s failed with VkFFTResult %d", what, (int)r);
}

/* The application transforming `batch` matrices of the work buffer, created on first request. */
static clpk_status get_app(xcorr_fft *fft, size_t batch, fft_app **out) {
    for (int i = 0; i < fft->n_apps; ++i)
        if (fft->apps[i]->batch == batch) {
            *out = fft->apps[i];
            return CLPK_SUCCESS;
        }
    if (fft->n_apps == FFT_MAX_APPS) return core_fail(fft->ctx, CLPK_ERROR_INTERNAL, "xcorr fft: too many batch sizes");
    fft_app *a = calloc(1, sizeof *a);
    if (!a) return core_fail(fft->ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fft: out of host memory");
    a->batch = batch;
    a->bytes = (uint64_t)batch * fft->matrix_bytes;
    a->slot = fft->work;
    cl_device_id device = clpk_context_device(fft->ctx);
    cl_context context = clpk_context_cl_context(fft->ctx);
    cl_command_queue queue = clpk_context_queue(fft->ctx);
    VkFFTConfiguration config;
    memset(&config, 0, sizeof config);
    config.FFTdim = 2;
    config.size[0] = fft->pcols;
    config.size[1] = fft->prows;
    config.numberBatches = batch;
    config.performR2C = 1;
    config.doublePrecision = fft->shape.precision == CLPK_PRECISION_F64;
    config.device = &device;
    config.context = &context;
    config.commandQueue = &queue;
    config.buffer = &a->slot;
    config.bufferSize = &a->bytes;
    double t0 = core_wall_seconds();
    VkFFTResult r = initializeVkFFT(&a->app, config);
    if (r != VKFFT_SUCCESS) {
        free(a);
        return fail_vkfft(fft->ctx, r, "initialisation");
    }
    double dt = core_wall_seconds() - t0;
    fft->setup_seconds += dt;
    core_log(fft->ctx, CLPK_LOG_INFO, "xcorr fft: VkFFT application %ux%u x %zu (%s) built in %.2f s", fft->prows,
             fft->pcols, batch, clpk_precision_name(fft->shape.precision), dt);
    fft->apps[fft->n_apps++] = a;
    *out = a;
    return CLPK_SUCCESS;
}

/* Batch size used for a chunk of n matrices: exactly n (chunks are fft_batch matrices plus one remainder per stream,
 * so a plan needs at most two applications per stream; rounding up would transform up to twice the matrices). */
static size_t chunk_batch(const xcorr_fft *fft, size_t n) { return n < fft->batch ? n : fft->batch; }

static clpk_status run_app(xcorr_fft *fft, size_t n, int inverse) {
    fft_app *a = NULL;
    CLPK_TRY(get_app(fft, chunk_batch(fft, n), &a));
    cl_command_queue queue = clpk_context_queue(fft->ctx);
    VkFFTLaunchParams launch;
    memset(&launch, 0, sizeof launch);
    launch.commandQueue = &queue;
    launch.buffer = &a->slot;
    VkFFTResult r = VkFFTAppend(&a->app, inverse ? 1 : -1, &launch);
    if (r != VKFFT_SUCCESS) return fail_vkfft(fft->ctx, r, inverse ? "inverse transform" : "forward transform");
    return CLPK_SUCCESS;
}

static size_t global_size(const xcorr_fft *fft, size_t n) { return (n + fft->wg - 1) / fft->wg * fft->wg; }

static clpk_status enqueue(xcorr_fft *fft, cl_kernel k, size_t n, cl_uint n_wait, const cl_event *wait, cl_event *done,
                           const char *what) {
    size_t global = global_size(fft, n), local = fft->wg;
    cl_int rc = clEnqueueNDRangeKernel(clpk_context_queue(fft->ctx), k, 1, NULL, &global, &local, n_wait,
                                       n_wait ? wait : NULL, done);
    if (rc != CL_SUCCESS) return core_fail_cl(fft->ctx, rc, what);
    return CLPK_SUCCESS;
}

/* Pads matrices first..first+n-1 of src into the work buffer and transforms them forward. */
static clpk_status forward(xcorr_fft *fft, cl_mem src, size_t src_offset, size_t first, size_t n, cl_uint n_wait,
                           const cl_event *wait) {
    const cl_uint nb = (cl_uint)chunk_batch(fft, n), nv = (cl_uint)n;
    const cl_ulong off = src_offset, fst = first;
    const cl_uint rows = (cl_uint)fft->shape.rows, cols = (cl_uint)fft->shape.cols;
    cl_kernel k = fft->pack;
    core_args a;
    core_args_begin(&a, fft->ctx, k, 0);
    CLPK_ARG(&a, src);
    CLPK_ARG(&a, off);
    CLPK_ARG(&a, fst);
    CLPK_ARG(&a, nv);
    CLPK_ARG(&a, nb);
    CLPK_ARG(&a, rows);
    CLPK_ARG(&a, cols);
    CLPK_ARG(&a, fft->prows);
    CLPK_ARG(&a, fft->pstride);
    CLPK_ARG(&a, fft->work);
    CLPK_TRY(core_args_end(&a));
    CLPK_TRY(
        enqueue(fft, k, (size_t)nb * fft->prows * fft->pstride, n_wait, wait, NULL, "enqueue clpk_xcorr_fft_pack"));
    return run_app(fft, n, 0);
}

/* Transforms all `count` matrices of src and keeps their spectra in dst. */
static clpk_status forward_all(xcorr_fft *fft, cl_mem src, size_t src_offset, size_t count, cl_mem dst, cl_uint *n_wait,
                               const cl_event *wait) {
    for (size_t c0 = 0; c0 < count; c0 += fft->batch) {
        size_t n = count - c0 < fft->batch ? count - c0 : fft->batch;
        CLPK_TRY(forward(fft, src, src_offset, c0, n, *n_wait, wait));
        *n_wait = 0;
        CLPK_CL_TRY(fft->ctx, clEnqueueCopyBuffer(clpk_context_queue(fft->ctx), fft->work, dst, 0,
                                                  c0 * fft->matrix_bytes, n * fft->matrix_bytes, 0, NULL, NULL));
    }
    return CLPK_SUCCESS;
}

static clpk_status product(xcorr_fft *fft, size_t o0, size_t n) {
    const clpk_xcorr_shape *s = &fft->shape;
    cl_ulong ldiv = 1, lmod = 1, lsub = 0, rmod = 0;
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_ONE: lmod = ULLONG_MAX, lsub = o0; break; /* this chunk's lefts, from matrix 0 */
    case CLPK_XCORR_ONE_TO_MANY: lmod = 1; break;
    case CLPK_XCORR_N_TO_MN: lmod = (cl_ulong)s->n_left; break;
    case CLPK_XCORR_N_TO_M: ldiv = (cl_ulong)s->n_right, lmod = (cl_ulong)s->n_left, rmod = (cl_ulong)s->n_right; break;
    }
    const cl_ulong first = o0, n_elems = (cl_ulong)n * fft->spec_len, spec_len = fft->spec_len;
    cl_mem rspec = rmod ? fft->rspec : fft->work;
    cl_kernel k = fft->product;
    core_args a;
    core_args_begin(&a, fft->ctx, k, 0);
    CLPK_ARG(&a, fft->work);
    CLPK_ARG(&a, fft->lspec);
    CLPK_ARG(&a, rspec);
    CLPK_ARG(&a, first);
    CLPK_ARG(&a, n_elems);
    CLPK_ARG(&a, spec_len);
    CLPK_ARG(&a, ldiv);
    CLPK_ARG(&a, lmod);
    CLPK_ARG(&a, lsub);
    CLPK_ARG(&a, rmod);
    /* VkFFT's inverse is unnormalised */
    const double scale = 1.0 / ((double)fft->prows * (double)fft->pcols);
    if (s->precision == CLPK_PRECISION_F64) {
        CLPK_ARG(&a, scale);
    } else {
        const float scale_f = (float)scale;
        CLPK_ARG(&a, scale_f);
    }
    CLPK_TRY(core_args_end(&a));
    return enqueue(fft, k, n_elems, 0, NULL, NULL, "enqueue clpk_xcorr_fft_product");
}

static clpk_status crop(xcorr_fft *fft, cl_mem out, size_t out_offset, size_t o0, size_t n, cl_event *done) {
    const cl_uint nn = (cl_uint)n, orows = (cl_uint)fft->out_rows, ocols = (cl_uint)fft->out_cols;
    const cl_uint half_r = (orows - 1) / 2, half_c = (ocols - 1) / 2;
    const cl_ulong off = out_offset + o0 * (size_t)orows * ocols;
    cl_kernel k = fft->crop;
    core_args a;
    core_args_begin(&a, fft->ctx, k, 0);
    CLPK_ARG(&a, fft->work);
    CLPK_ARG(&a, nn);
    CLPK_ARG(&a, orows);
    CLPK_ARG(&a, ocols);
    CLPK_ARG(&a, half_r);
    CLPK_ARG(&a, half_c);
    CLPK_ARG(&a, fft->prows);
    CLPK_ARG(&a, fft->pcols);
    CLPK_ARG(&a, fft->pstride);
    CLPK_ARG(&a, out);
    CLPK_ARG(&a, off);
    CLPK_TRY(core_args_end(&a));
    return enqueue(fft, k, n * orows * ocols, 0, NULL, done, "enqueue clpk_xcorr_fft_crop");
}

static clpk_status create_buffer(xcorr_fft *fft, size_t matrices, cl_mem *out, const char *what) {
    cl_int rc = CL_SUCCESS;
    *out =
        clCreateBuffer(clpk_context_cl_context(fft->ctx), CL_MEM_READ_WRITE, matrices * fft->matrix_bytes, NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(fft->ctx, rc, what);
    return CLPK_SUCCESS;
}

/* Default batch: everything at once when it fits in a quarter of the largest allocation (and 256 MiB). */
static size_t default_batch(const xcorr_fft *fft, size_t max_count) {
    const clpk_device_info *dev = clpk_context_device_info(fft->ctx);
    uint64_t budget = dev->max_alloc_bytes / 4;
    if (budget > ((uint64_t)256 << 20)) budget = (uint64_t)256 << 20;
    size_t fit = (size_t)(budget / fft->matrix_bytes);
    if (fit < 1) fit = 1;
    return max_count < fit ? max_count : fit;
}

clpk_status xcorr_fft_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                             xcorr_fft **out) {
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!shape || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fft: NULL shape or output");
    *out = NULL;
    CLPK_TRY(check_shape(ctx, shape));
    /* VkFFT enqueues its passes without events, and so do the steps here: they rely on in-order execution */
    CLPK_TRY(core_require_in_order_queue(ctx, "xcorr fft: the FFT path (VkFFT)"));
    xcorr_fft *fft = calloc(1, sizeof *fft);
    if (!fft) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr fft: out of host memory");
    fft->ctx = ctx;
    fft->shape = *shape;
    clpk_status st = CLPK_SUCCESS;
    const int pow2 = config && config->fft_pad == 1;
    const long long batch = config ? config->fft_batch : 0;

    const clpk_xcorr_shape *s = shape;
    fft->out_rows = s->search_rows ? s->search_rows : 2 * s->rows - 1;
    fft->out_cols = s->search_cols ? s->search_cols : 2 * s->cols - 1;
    fft->n_out = shape_output_count(s);
    /* A circular correlation of period P equals the linear one at shifts |s| <= h when P >= R + h: the wrapped
     * terms start at shift P - (R - 1) > h. */
    fft->prows = (cl_uint)padded_size((size_t)s->rows + (size_t)(fft->out_rows - 1) / 2, pow2, 0);
    fft->pcols = (cl_uint)padded_size((size_t)s->cols + (size_t)(fft->out_cols - 1) / 2, pow2, 1);
    fft->pstride = 2 * (fft->pcols / 2 + 1);
    fft->spec_len = (size_t)fft->prows * (fft->pcols / 2 + 1);
    fft->matrix_bytes = (size_t)fft->prows * fft->pstride * clpk_precision_size(s->precision);

    size_t max_count = fft->n_out;
    if ((size_t)s->n_left > max_count) max_count = (size_t)s->n_left;
    fft->batch = batch ? (size_t)batch : default_batch(fft, max_count);
    fft->n_lspec = s->pattern == CLPK_XCORR_ONE_TO_ONE ? fft->batch : (size_t)s->n_left;
    fft->n_rspec = s->pattern == CLPK_XCORR_N_TO_M ? (size_t)s->n_right : 0;

    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const double total = ((double)fft->batch + (double)fft->n_lspec + (double)fft->n_rspec) * (double)fft->matrix_bytes;
    const size_t biggest = fft->batch > fft->n_lspec ? (fft->batch > fft->n_rspec ? fft->batch : fft->n_rspec)
                                                     : (fft->n_lspec > fft->n_rspec ? fft->n_lspec : fft->n_rspec);
    if (total > 0.8 * (double)dev->global_mem_bytes ||
        (double)biggest * fft->matrix_bytes > (double)dev->max_alloc_bytes) {
        st = core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                       "xcorr fft: %.0f MiB of spectra (%ux%u padded, batch %zu) exceed the device memory (%llu MiB, "
                       "max allocation %llu MiB); lower fft_batch or use a direct algorithm",
                       total / 1048576.0, fft->prows, fft->pcols, fft->batch,
                       (unsigned long long)(dev->global_mem_bytes >> 20),
                       (unsigned long long)(dev->max_alloc_bytes >> 20));
        goto fail;
    }

    /* the pack kernel's items, the most of the three launches: one dimension below 2^31 (xcorr_launch.h) */
    if ((double)fft->batch * fft->prows * fft->pstride > (double)(core_launch_dim_items(ctx) - FFT_WORK_GROUP)) {
        st = core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                       "xcorr fft: batch %zu of %ux%u padded matrices is more work-items than one launch allows; lower "
                       "fft_batch",
                       fft->batch, fft->prows, fft->pcols);
        goto fail;
    }

    const char *names[] = {"xcorr_fft"};
    const char *options = s->precision == CLPK_PRECISION_F64 ? "-DVALUE_T=double -DVALUE2_T=double2 -DCLPK_FP64"
                                                             : "-DVALUE_T=float -DVALUE2_T=float2";
    cl_program prog = NULL;
    if ((st = core_program_get(ctx, names, 1, options, &prog)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fft_pack", &fft->pack)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fft_product", &fft->product)) != CLPK_SUCCESS) goto fail;
    if ((st = core_kernel_create(ctx, prog, "clpk_xcorr_fft_crop", &fft->crop)) != CLPK_SUCCESS) goto fail;
    fft->wg = FFT_WORK_GROUP;
    cl_kernel kernels[3] = {fft->pack, fft->product, fft->crop};
    for (int i = 0; i < 3; ++i) {
        size_t kwg = 0;
        if (clGetKernelWorkGroupInfo(kernels[i], clpk_context_device(ctx), CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                     NULL) == CL_SUCCESS &&
            kwg > 0 && kwg < fft->wg) {
            size_t w = 1;
            while (w * 2 <= kwg)
                w *= 2;
            fft->wg = w;
        }
    }

    if ((st = create_buffer(fft, fft->batch, &fft->work, "clCreateBuffer(xcorr fft work)")) != CLPK_SUCCESS) goto fail;
    if ((st = create_buffer(fft, fft->n_lspec, &fft->lspec, "clCreateBuffer(xcorr fft left spectra)")) != CLPK_SUCCESS)
        goto fail;
    /* batches are zero-padded to a power of two: keep the unused tail finite from the start */
    const cl_uchar zero = 0;
    if ((st = core_fill(ctx, fft->work, &zero, 1, 0, fft->batch * fft->matrix_bytes, 0, 0, NULL, NULL,
                        "xcorr fft work")) != CLPK_SUCCESS)
        goto fail;
    if (fft->n_rspec &&
        (st = create_buffer(fft, fft->n_rspec, &fft->rspec, "clCreateBuffer(xcorr fft right spectra)")) != CLPK_SUCCESS)
        goto fail;

    /* Create every application an execution needs now, so executions only enqueue. */
    size_t counts[3] = {(size_t)s->n_left, fft->n_out, s->pattern == CLPK_XCORR_N_TO_M ? (size_t)s->n_right : 0};
    for (int i = 0; i < 3; ++i) {
        if (!counts[i]) continue;
        fft_app *a = NULL;
        if (counts[i] >= fft->batch && (st = get_app(fft, fft->batch, &a)) != CLPK_SUCCESS) goto fail;
        if (counts[i] % fft->batch && (st = get_app(fft, chunk_batch(fft, counts[i] % fft->batch), &a)) != CLPK_SUCCESS)
            goto fail;
    }
    core_log(ctx, CLPK_LOG_INFO, "xcorr fft: padded %dx%d to %ux%u, batch %zu, %d VkFFT applications, setup %.2f s",
             s->rows, s->cols, fft->prows, fft->pcols, fft->batch, fft->n_apps, fft->setup_seconds);
    *out = fft;
    return CLPK_SUCCESS;
fail:
    xcorr_fft_destroy(fft);
    return st;
}

clpk_status xcorr_fft_execute(xcorr_fft *fft, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                              cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *done) {
    if (!fft) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!left || !right || !out || (n_wait && !wait))
        return core_fail(fft->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr fft: NULL buffer or wait list");
    const clpk_xcorr_shape *s = &fft->shape;
    if (done) *done = NULL;
    /* The lefts (and for n-to-m the rights) are transformed once and kept; one-to-one transforms them per chunk. */
    if (s->pattern != CLPK_XCORR_ONE_TO_ONE)
        CLPK_TRY(forward_all(fft, left, left_offset, (size_t)s->n_left, fft->lspec, &n_wait, wait));
    if (s->pattern == CLPK_XCORR_N_TO_M)
        CLPK_TRY(forward_all(fft, right, right_offset, (size_t)s->n_right, fft->rspec, &n_wait, wait));
    for (size_t o0 = 0; o0 < fft->n_out; o0 += fft->batch) {
        const size_t n = fft->n_out - o0 < fft->batch ? fft->n_out - o0 : fft->batch;
        if (s->pattern == CLPK_XCORR_ONE_TO_ONE) {
            CLPK_TRY(forward(fft, left, left_offset, o0, n, n_wait, wait));
            n_wait = 0;
            CLPK_CL_TRY(fft->ctx, clEnqueueCopyBuffer(clpk_context_queue(fft->ctx), fft->work, fft->lspec, 0, 0,
                                                      n * fft->matrix_bytes, 0, NULL, NULL));
        }
        if (s->pattern != CLPK_XCORR_N_TO_M) {
            CLPK_TRY(forward(fft, right, right_offset, o0, n, n_wait, wait));
            n_wait = 0;
        }
        CLPK_TRY(product(fft, o0, n));
        CLPK_TRY(run_app(fft, n, 1));
        const int last = o0 + n >= fft->n_out;
        CLPK_TRY(crop(fft, out, out_offset, o0, n, last ? done : NULL));
    }
    return CLPK_SUCCESS;
}

void xcorr_fft_destroy(xcorr_fft *fft) {
    if (!fft) return;
    /* VkFFT's kernels may still be queued on buffers we are about to release */
    clFinish(clpk_context_queue(fft->ctx));
    for (int i = 0; i < fft->n_apps; ++i) {
        deleteVkFFT(&fft->apps[i]->app);
        free(fft->apps[i]);
    }
    if (fft->pack) clReleaseKernel(fft->pack);
    if (fft->product) clReleaseKernel(fft->product);
    if (fft->crop) clReleaseKernel(fft->crop);
    if (fft->work) clReleaseMemObject(fft->work);
    if (fft->lspec) clReleaseMemObject(fft->lspec);
    if (fft->rspec) clReleaseMemObject(fft->rspec);
    free(fft);
}

#endif
