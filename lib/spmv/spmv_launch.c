/* spmv launches: argument setting and enqueue of the CSR or BCCOO kernels, the host convenience call, the
 * watchdog check and the benchmark helper. */
#include "spmv_internal.h"

#include <stdlib.h>
#include <string.h>

void spmv_arg_scalar(core_args *a, const clpk_spmv_plan *plan, double v) {
    const cl_double d = v;
    const cl_float f = (cl_float)v;
    if (plan->precision == CLPK_PRECISION_F64)
        CLPK_ARG(a, d);
    else
        CLPK_ARG(a, f);
}

void spmv_events_hand_over(clpk_status st, const cl_event *events, int n, cl_event *first, cl_event *last) {
    cl_event lastev = events[0];
    for (int i = 1; i < n; ++i)
        if (events[i]) lastev = events[i];
    if (st == CLPK_SUCCESS && first) {
        *first = events[0];
        clRetainEvent(events[0]);
    }
    if (st == CLPK_SUCCESS && last) {
        *last = lastev;
        clRetainEvent(lastev);
    }
    for (int i = 0; i < n; ++i)
        if (events[i]) clReleaseEvent(events[i]);
}

static size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

static clpk_status enqueue_csr(clpk_spmv_plan *p, double alpha, cl_mem x, cl_uint xo, double beta, cl_mem y, cl_uint yo,
                               cl_uint n_wait, const cl_event *wait, cl_event *ev) {
    clpk_context *ctx = p->ctx;
    cl_kernel k = p->csr_kernel;
    cl_uint rows = (cl_uint)p->rows;
    core_args a;
    spmv_csr_args_begin(&a, p, x, xo, y, yo);
    CLPK_ARG(&a, rows);
    spmv_arg_scalar(&a, p, alpha);
    spmv_arg_scalar(&a, p, beta);
    if (p->cfg.csr_vec > 1) {
        cl_uint vec = (cl_uint)p->cfg.csr_vec;
        CLPK_ARG(&a, vec);
        core_args_local(&a, (size_t)p->cfg.wg * clpk_precision_size(p->precision));
    }
    CLPK_TRY(core_args_end(&a));
    size_t wg = (size_t)p->cfg.wg;
    size_t rows_per_group = wg / (size_t)p->cfg.csr_vec;
    size_t global = round_up((size_t)p->rows, rows_per_group) / rows_per_group * wg;
    CLPK_CL_TRY(ctx, clEnqueueNDRangeKernel(clpk_context_queue(ctx), k, 1, NULL, &global, &wg, n_wait, wait, ev));
    return CLPK_SUCCESS;
}

static clpk_status enqueue_bccoo(clpk_spmv_plan *p, double alpha, cl_mem x, cl_uint xo, double beta, cl_mem y,
                                 cl_uint yo, cl_uint n_wait, const cl_event *wait, cl_event *first, cl_event *last) {
    clpk_context *ctx = p->ctx;
    cl_command_queue q = clpk_context_queue(ctx);
    const spmv_config *c = &p->cfg;
    int sliced = c->format == SPMV_BCCOO_PLUS;
    cl_mem out = sliced ? p->tmp : y;
    cl_uint out_off = sliced ? 0 : yo;
    cl_uint rows = (cl_uint)p->rows, ncols = (cl_uint)p->cols, nt = (cl_uint)p->nt, groups = (cl_uint)p->groups;
    if (++p->epoch == 0) p->epoch = 1; /* ready flags from the previous launch hold another value */
    cl_kernel k = p->main_kernel;
    if (c->vload && c->block_w > 1 && xo % (cl_uint)c->block_w != 0) {
        /* x + xo is not aligned to the typed x loads of main_kernel: the vloadn program (built once, cached) */
        if (!p->main_kernel_xu) {
            char opts[512];
            spmv_bccoo_options(p, 0, opts, sizeof opts);
            const char *src[] = {"spmv_bccoo"};
            cl_program prog = NULL;
            CLPK_TRY(core_program_get(ctx, src, 1, opts, &prog));
            CLPK_TRY(core_kernel_create(ctx, prog, "spmv_bccoo", &p->main_kernel_xu));
        }
        k = p->main_kernel_xu;
    }
    cl_uint online = p->online_mode, skip = (cl_uint)c->skip_scan;
    cl_uint cache_rows = c->strategy == 2 ? (cl_uint)(c->cache * c->wg) : 1u;
    cl_mem base = c->col_delta ? p->col_base : p->entries, esc_start = c->col_delta ? p->esc_start : p->entries;
    cl_mem esc = c->col_delta ? p->esc : p->entries; /* unused without col=delta: any valid buffer */
    size_t stage = online == 2 ? spmv_bccoo_stage_bytes(c, p->precision) : clpk_precision_size(p->precision);
    core_args a;
    core_args_begin(&a, ctx, k, 0);
    CLPK_ARG(&a, p->values);
    CLPK_ARG(&a, p->flags);
    CLPK_ARG(&a, p->cols_idx);
    CLPK_ARG(&a, p->entries);
    CLPK_ARG(&a, x);
    CLPK_ARG(&a, xo);
    CLPK_ARG(&a, out);
    CLPK_ARG(&a, out_off);
    CLPK_ARG(&a, rows);
    CLPK_ARG(&a, ncols);
    spmv_arg_scalar(&a, p, alpha);
    spmv_arg_scalar(&a, p, beta);
    CLPK_ARG(&a, nt);
    CLPK_ARG(&a, p->sync);
    CLPK_ARG(&a, p->grp_sum);
    CLPK_ARG(&a, p->grp_stop);
    CLPK_ARG(&a, p->epoch);
    CLPK_ARG(&a, p->spin_limit);
    CLPK_ARG(&a, online);
    CLPK_ARG(&a, skip);
    CLPK_ARG(&a, cache_rows);
    core_args_local(&a, (size_t)cache_rows * c->block_h * clpk_precision_size(p->precision));
    CLPK_ARG(&a, base);
    CLPK_ARG(&a, esc_start);
    CLPK_ARG(&a, esc);
    core_args_local(&a, stage);
    CLPK_TRY(core_args_end(&a));
    size_t wg = (size_t)c->wg, global = (size_t)p->nt;
    cl_event e1 = NULL, e2 = NULL, e3 = NULL;
    cl_int rc = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &wg, n_wait, wait, &e1);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clEnqueueNDRangeKernel (spmv_bccoo)");
    clpk_status st = CLPK_SUCCESS;
    if (!c->sync_adjacent) {
        cl_kernel kc = p->carry_kernel;
        core_args_begin(&a, ctx, kc, 0);
        CLPK_ARG(&a, p->entries);
        CLPK_ARG(&a, p->grp_sum);
        CLPK_ARG(&a, p->grp_stop);
        CLPK_ARG(&a, out);
        CLPK_ARG(&a, out_off);
        CLPK_ARG(&a, rows);
        spmv_arg_scalar(&a, p, alpha);
        CLPK_ARG(&a, groups);
        st = core_args_end(&a);
        size_t gsize = round_up(p->groups, 64), lsize = 64;
        if (st == CLPK_SUCCESS) {
            rc = clEnqueueNDRangeKernel(q, kc, 1, NULL, &gsize, &lsize, 1, &e1, &e2); /* explicit: OOO queues */
            if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "enqueue spmv_bccoo_carry");
        }
    }
    if (st == CLPK_SUCCESS && sliced) {
        cl_kernel kb = p->combine_kernel;
        cl_uint rows_padded = (cl_uint)(p->block_rows * c->block_h), slices = (cl_uint)c->slices;
        core_args_begin(&a, ctx, kb, 0);
        CLPK_ARG(&a, p->tmp);
        CLPK_ARG(&a, y);
        CLPK_ARG(&a, yo);
        CLPK_ARG(&a, rows);
        CLPK_ARG(&a, rows_padded);
        CLPK_ARG(&a, slices);
        spmv_arg_scalar(&a, p, alpha);
        spmv_arg_scalar(&a, p, beta);
        st = core_args_end(&a);
        size_t gsize = round_up(p->rows ? (size_t)p->rows : 1, 64), lsize = 64;
        if (st == CLPK_SUCCESS) {
            rc = clEnqueueNDRangeKernel(q, kb, 1, NULL, &gsize, &lsize, 1, e2 ? &e2 : &e1, &e3);
            if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "enqueue spmv_bccoo_combine");
        }
    }
    const cl_event events[] = {e1, e2, e3};
    spmv_events_hand_over(st, events, 3, first, last);
    return st;
}

clpk_status spmv_enqueue(clpk_spmv_plan *plan, double alpha, cl_mem x, size_t x_off, double beta, cl_mem y,
                         size_t y_off, cl_uint n_wait, const cl_event *wait, cl_event *first, cl_event *last) {
    clpk_context *ctx = plan->ctx;
    if (!x || !y) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv: NULL buffer");
    if (x_off > UINT32_MAX || y_off > UINT32_MAX)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv: offsets beyond 32-bit range");
    size_t vs = clpk_precision_size(plan->precision), xs = 0, ys = 0;
    CLPK_CL_TRY(ctx, clGetMemObjectInfo(x, CL_MEM_SIZE, sizeof xs, &xs, NULL));
    CLPK_CL_TRY(ctx, clGetMemObjectInfo(y, CL_MEM_SIZE, sizeof ys, &ys, NULL));
    if ((x_off + (size_t)plan->cols) * vs > xs || (y_off + (size_t)plan->rows) * vs > ys)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "clpk_spmv: x needs %zu and y %zu elements of %zu bytes from their offsets; buffers too small",
                         (size_t)plan->cols, (size_t)plan->rows, vs);
    if (plan->rows == 0) { /* nothing to compute: just order after the wait list */
        cl_event ev = NULL;
        CLPK_CL_TRY(ctx, clEnqueueMarkerWithWaitList(clpk_context_queue(ctx), n_wait, wait, &ev));
        spmv_events_hand_over(CLPK_SUCCESS, &ev, 1, first, last);
        return CLPK_SUCCESS;
    }
    if (plan->cfg.format == SPMV_CSR && plan->cfg.csr_kernel == SPMV_CSR_ADAPTIVE)
        return spmv_csr_adaptive_enqueue(plan, alpha, x, (cl_uint)x_off, beta, y, (cl_uint)y_off, n_wait, wait, first,
                                         last);
    if (plan->cfg.format == SPMV_CSR) {
        cl_event ev = NULL;
        CLPK_TRY(enqueue_csr(plan, alpha, x, (cl_uint)x_off, beta, y, (cl_uint)y_off, n_wait, wait, &ev));
        spmv_events_hand_over(CLPK_SUCCESS, &ev, 1, first, last);
        return CLPK_SUCCESS;
    }
    return enqueue_bccoo(plan, alpha, x, (cl_uint)x_off, beta, y, (cl_uint)y_off, n_wait, wait, first, last);
}

clpk_status clpk_spmv(clpk_spmv_plan *plan, double alpha, cl_mem x, size_t x_off, double beta, cl_mem y, size_t y_off,
                      cl_uint n_wait, const cl_event *wait, cl_event *done) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    return spmv_enqueue(plan, alpha, x, x_off, beta, y, y_off, n_wait, wait, NULL, done);
}

clpk_status clpk_spmv_plan_check(clpk_spmv_plan *plan) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_context *ctx = plan->ctx;
    CLPK_CL_TRY(ctx, clFinish(clpk_context_queue(ctx)));
    if (!plan->sync) return CLPK_SUCCESS;
    cl_uint words[4] = {0};
    CLPK_CL_TRY(
        ctx, clEnqueueReadBuffer(clpk_context_queue(ctx), plan->sync, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL));
    if (words[2]) {
        cl_uint zero = 0;
        CLPK_CL_TRY(ctx, clEnqueueWriteBuffer(clpk_context_queue(ctx), plan->sync, CL_TRUE, 2 * sizeof zero,
                                              sizeof zero, &zero, 0, NULL, NULL));
        return core_fail(ctx, CLPK_ERROR_TIMEOUT,
                         "spmv: an adjacent-synchronization wait made no progress for %u spins: the device does not "
                         "run started work-groups concurrently; use sync=fallback",
                         plan->spin_limit);
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_spmv_host(clpk_spmv_plan *plan, double alpha, const double *x, double beta, double *y) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_context *ctx = plan->ctx;
    if ((!x && plan->cols) || (!y && plan->rows))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_host: NULL vector");
    size_t vs = clpk_precision_size(plan->precision);
    size_t nx = plan->cols ? (size_t)plan->cols : 1, ny = plan->rows ? (size_t)plan->rows : 1;
    void *hx = calloc(nx, vs), *hy = calloc(ny, vs);
    cl_mem bx = NULL, by = NULL;
    clpk_status st = CLPK_SUCCESS;
    if (!hx || !hy) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    int f64 = plan->precision == CLPK_PRECISION_F64;
    if (st == CLPK_SUCCESS) {
        for (int32_t i = 0; i < plan->cols; ++i) {
            if (f64)
                ((double *)hx)[i] = x[i];
            else
                ((float *)hx)[i] = (float)x[i];
        }
        for (int32_t i = 0; i < plan->rows; ++i) {
            if (f64)
                ((double *)hy)[i] = y[i];
            else
                ((float *)hy)[i] = (float)y[i];
        }
        cl_int rc = CL_SUCCESS;
        cl_context c = clpk_context_cl_context(ctx);
        bx = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nx * vs, hx, &rc);
        if (rc == CL_SUCCESS) by = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ny * vs, hy, &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer (clpk_spmv_host)");
    }
    if (st == CLPK_SUCCESS) st = clpk_spmv(plan, alpha, bx, 0, beta, by, 0, 0, NULL, NULL);
    if (st == CLPK_SUCCESS) {
        cl_int rc = clEnqueueReadBuffer(clpk_context_queue(ctx), by, CL_TRUE, 0, ny * vs, hy, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueReadBuffer (clpk_spmv_host)");
    }
    if (st == CLPK_SUCCESS) st = clpk_spmv_plan_check(plan);
    if (st == CLPK_SUCCESS)
        for (int32_t i = 0; i < plan->rows; ++i)
            y[i] = f64 ? ((double *)hy)[i] : ((float *)hy)[i];
    if (bx) clReleaseMemObject(bx);
    if (by) clReleaseMemObject(by);
    free(hx);
    free(hy);
    return st;
}

typedef struct bench_user {
    clpk_spmv_plan *plan;
} bench_user;

static clpk_status bench_launch(void *user, cl_event *first, cl_event *last) {
    clpk_spmv_plan *p = ((bench_user *)user)->plan;
    clpk_status st = spmv_enqueue(p, 1.0, p->bench_x, 0, 0.0, p->bench_y, 0, 0, NULL, first, last);
    /* spmv_enqueue gives a reference for each; clpk_bench releases one event given twice once */
    if (st == CLPK_SUCCESS && *first == *last) clReleaseEvent(*first);
    return st;
}

clpk_status clpk_spmv_plan_bench(clpk_spmv_plan *plan, int warmup, int repeats, clpk_bench_stats *stats) {
    if (!plan || !stats) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_context *ctx = plan->ctx;
    size_t vs = clpk_precision_size(plan->precision);
    if (!plan->bench_x) {
        size_t nx = plan->cols ? (size_t)plan->cols : 1, ny = plan->rows ? (size_t)plan->rows : 1;
        void *h = calloc(nx > ny ? nx : ny, vs);
        if (!h) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < nx; ++i) {
            double v = 1.0 + (double)(i % 7) * 0.125;
            if (vs == 8)
                ((double *)h)[i] = v;
            else
                ((float *)h)[i] = (float)v;
        }
        cl_int rc = CL_SUCCESS;
        plan->bench_x =
            clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nx * vs, h, &rc);
        if (rc == CL_SUCCESS)
            plan->bench_y = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, ny * vs, NULL, &rc);
        free(h);
        if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clCreateBuffer (spmv bench)");
    }
    bench_user u = {plan};
    double bytes = (double)plan->footprint + ((double)plan->cols + (double)plan->rows) * (double)vs;
    double flops = 2.0 * (double)plan->nnz;
    CLPK_TRY(clpk_bench_run(ctx, bench_launch, &u, warmup, repeats, bytes, flops, stats));
    return clpk_spmv_plan_check(plan);
}
