/* FMA-peak probe for the "% of peak" columns of the benchmarks: cl/util_fma.cl timed through clpk_bench_run. */
#include "bench_peak.h"

#include <math.h>
#include <stdlib.h>

typedef struct fma_job {
    clpk_context *ctx;
    cl_kernel kernel;
    size_t global, local;
} fma_job;

static clpk_status launch_fma(void *user, cl_event *first, cl_event *last) {
    fma_job *job = user;
    CLPK_CL_TRY(job->ctx, clEnqueueNDRangeKernel(clpk_context_queue(job->ctx), job->kernel, 1, NULL, &job->global,
                                                 &job->local, 0, NULL, first));
    *last = *first; /* one event, one reference */
    return CLPK_SUCCESS;
}

clpk_status bench_fma_peak_run(clpk_context *ctx, clpk_precision p, const bench_fma_config *cfg,
                               clpk_bench_stats *stats, double *checksum) {
    if (!ctx || !cfg || !stats || cfg->groups < 1 || cfg->wg < 1 || cfg->trips < 1 || cfg->repeats < 1 ||
        cfg->warmup < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "fma peak: bad arguments");
    if (p != CLPK_PRECISION_F32 && p != CLPK_PRECISION_F64)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "fma peak: unknown precision %d", (int)p);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const int f64 = p == CLPK_PRECISION_F64;
    if (f64 && !dev->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "fma peak: the device %s has no fp64", dev->name);
    if (cfg->wg > dev->max_work_group_size)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "fma peak: work-group %zu beyond the device's %zu", cfg->wg,
                         dev->max_work_group_size);
    const char *src[] = {"util_fma"};
    cl_program program;
    CLPK_TRY(core_program_get(ctx, src, 1, f64 ? "-DVALUE_T=double -DFMA_FP64=1" : "-DVALUE_T=float -DFMA_FP64=0",
                              &program));
    fma_job job = {ctx, NULL, cfg->groups * cfg->wg, cfg->wg};
    CLPK_TRY(core_kernel_create(ctx, program, "clpk_fma_peak", &job.kernel));
    const size_t vs = clpk_precision_size(p);
    cl_int rc;
    cl_mem out = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, job.global * vs, NULL, &rc);
    clpk_status st = CLPK_SUCCESS;
    if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer for the FMA probe");
    if (st == CLPK_SUCCESS) {
        const cl_int trips = cfg->trips;
        const float bf = (float)BENCH_FMA_B, cf = (float)BENCH_FMA_C;
        const double bd = BENCH_FMA_B, cd = BENCH_FMA_C;
        core_args a;
        core_args_begin(&a, ctx, job.kernel, 0);
        CLPK_ARG(&a, trips);
        if (f64) {
            CLPK_ARG(&a, bd);
            CLPK_ARG(&a, cd);
        } else {
            CLPK_ARG(&a, bf);
            CLPK_ARG(&a, cf);
        }
        CLPK_ARG(&a, out);
        st = core_args_end(&a);
    }
    if (st == CLPK_SUCCESS) {
        const double flops = 2.0 * (double)job.global * BENCH_FMA_PER_TRIP * cfg->trips;
        st = clpk_bench_run(ctx, launch_fma, &job, cfg->warmup, cfg->repeats, (double)job.global * vs, flops, stats);
    }
    if (st == CLPK_SUCCESS && checksum) {
        void *host = malloc(job.global * vs);
        if (!host) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
        if (st == CLPK_SUCCESS) {
            rc = clEnqueueReadBuffer(clpk_context_queue(ctx), out, CL_TRUE, 0, job.global * vs, host, 0, NULL, NULL);
            if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "reading the FMA probe's output");
        }
        if (st == CLPK_SUCCESS) {
            double sum = 0;
            for (size_t i = 0; i < job.global; ++i)
                sum += f64 ? ((const double *)host)[i] : ((const float *)host)[i];
            *checksum = sum;
        }
        free(host);
    }
    if (out) clReleaseMemObject(out);
    clReleaseKernel(job.kernel);
    return st;
}

double bench_fma_peak_expected(clpk_precision p, const bench_fma_config *cfg) {
    const size_t total = cfg->groups * cfg->wg;
    const int steps = cfg->trips * (BENCH_FMA_PER_TRIP / BENCH_FMA_CHAINS);
    const double offsets[BENCH_FMA_CHAINS] = {0, 1, 2, 3, -1, -2, -3, -4};
    /* The result depends on g only through g & 1023: replay each residue once, weight by its count. */
    double sum = 0;
    for (size_t r = 0; r < 1024 && r < total; ++r) {
        const size_t count = (total - r + 1023) / 1024;
        double value;
        if (p == CLPK_PRECISION_F64) {
            double a[BENCH_FMA_CHAINS];
            const double base = (double)r * (1.0 / 1024.0);
            for (int i = 0; i < BENCH_FMA_CHAINS; ++i)
                a[i] = base + offsets[i];
            for (int s = 0; s < steps; ++s)
                for (int i = 0; i < BENCH_FMA_CHAINS; ++i)
                    a[i] = fma(a[i], BENCH_FMA_B, BENCH_FMA_C);
            value = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
        } else {
            float a[BENCH_FMA_CHAINS];
            const float base = (float)r * (1.0f / 1024.0f);
            for (int i = 0; i < BENCH_FMA_CHAINS; ++i)
                a[i] = base + (float)offsets[i];
            for (int s = 0; s < steps; ++s)
                for (int i = 0; i < BENCH_FMA_CHAINS; ++i)
                    a[i] = fmaf(a[i], (float)BENCH_FMA_B, (float)BENCH_FMA_C);
            value = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
        }
        sum += value * (double)count;
    }
    return sum;
}

clpk_status clpk_bench_fma_peak(clpk_context *ctx, clpk_precision p, clpk_bench_stats *stats) {
    if (!ctx || !stats) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "fma peak: NULL argument");
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    bench_fma_config cfg;
    cfg.wg = dev->max_work_group_size >= 256 ? 256 : dev->max_work_group_size;
    if (dev->kind == CLPK_DEVICE_GPU) {
        /* 8 groups of 256 per compute unit fill an SM's 2048 resident work-items; ~2 ms (f32) on an H100 */
        cfg.groups = (size_t)(dev->compute_units ? dev->compute_units : 1) * 8;
        cfg.trips = 2048;
        cfg.warmup = 3;
        cfg.repeats = 50;
    } else {
        cfg.groups = (size_t)(dev->compute_units ? dev->compute_units : 1) * 2;
        cfg.trips = 64;
        cfg.warmup = 1;
        cfg.repeats = 5;
    }
    return bench_fma_peak_run(ctx, p, &cfg, stats, NULL);
}
