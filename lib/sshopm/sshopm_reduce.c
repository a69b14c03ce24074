/* SS-HOPM post-processing on the device (cl/sshopm_reduce.cl): launch, and the host path that downloads only the
 * distinct pairs of each tensor. */
#include "sshopm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_PAIRS 16

static clpk_status build_reduce(clpk_sshopm_plan *plan) {
    if (plan->reduce_kernel) return CLPK_SUCCESS;
    char options[160];
    const int f64 = plan->precision == CLPK_PRECISION_F64;
    snprintf(options, sizeof options, "-DVALUE_T=%s -DSSHOPM_FP64=%d -DSSHOPM_ENTRIES=1 -DSSHOPM_REDUCE=1",
             f64 ? "double" : "float", f64);
    const char *names[] = {"sshopm_common", "sshopm_general", "sshopm_reduce"};
    cl_program program = NULL;
    CLPK_TRY(core_program_get(plan->ctx, names, 3, options, &program));
    return core_kernel_create(plan->ctx, program, "clpk_sshopm_reduce", &plan->reduce_kernel);
}

static clpk_status check_size(clpk_context *ctx, cl_mem buf, size_t need, const char *name) {
    size_t have = 0;
    if (!buf) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm reduce: NULL buffer %s", name);
    CLPK_CL_TRY(ctx, clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof have, &have, NULL));
    if (have < need)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm reduce: buffer %s holds %zu bytes, needs %zu", name,
                         have, need);
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_reduce(clpk_sshopm_plan *plan, int64_t n_tensors, cl_mem tensors, cl_mem lambda, cl_mem x,
                               cl_mem info, const clpk_sshopm_post_options *opts, int max_pairs, int64_t out_base,
                               cl_mem out_lambda, cl_mem out_x, cl_mem out_meta, cl_mem out_counts, cl_uint n_wait,
                               const cl_event *wait, cl_event *done) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_context *ctx = plan->ctx;
    if (n_tensors < 1 || n_tensors > plan->max_tensors)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm reduce: %lld tensors; the plan takes 1..%lld",
                         (long long)n_tensors, (long long)plan->max_tensors);
    if (max_pairs < 1 || max_pairs > 4096 || out_base < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm reduce: max_pairs %d (1..4096) or base %lld",
                         max_pairs, (long long)out_base);
    clpk_sshopm_post_options o;
    if (opts)
        o = *opts;
    else
        clpk_sshopm_post_options_default(&o);
    if (!(o.lambda_tol >= 0) || !(o.x_tol >= 0) || !(o.class_tol >= 0))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm reduce: tolerances must be >= 0");
    const int V = plan->opts.starts, n = plan->idx.n, U = plan->idx.U;
    const size_t vs = clpk_precision_size(plan->precision), slots = (size_t)(out_base + n_tensors);
    CLPK_TRY(check_size(ctx, tensors, (size_t)n_tensors * U * vs, "tensors"));
    CLPK_TRY(check_size(ctx, lambda, (size_t)n_tensors * V * vs, "lambda"));
    CLPK_TRY(check_size(ctx, x, (size_t)n_tensors * V * n * vs, "x"));
    CLPK_TRY(check_size(ctx, info, (size_t)n_tensors * V * 4, "info"));
    CLPK_TRY(check_size(ctx, out_lambda, slots * max_pairs * vs, "out_lambda"));
    CLPK_TRY(check_size(ctx, out_x, slots * max_pairs * n * vs, "out_x"));
    CLPK_TRY(check_size(ctx, out_meta, slots * max_pairs * 4, "out_meta"));
    CLPK_TRY(check_size(ctx, out_counts, slots * 5 * 4, "out_counts"));
    CLPK_TRY(build_reduce(plan));
    cl_kernel k = plan->reduce_kernel;
    const cl_long base = out_base;
    const cl_int K = max_pairs;
    const int f64 = plan->precision == CLPK_PRECISION_F64;
    const double tol_d[3] = {o.lambda_tol, o.x_tol, o.class_tol};
    const float tol_f[3] = {(float)o.lambda_tol, (float)o.x_tol, (float)o.class_tol};
    core_args args;
    sshopm_args_begin(&args, plan, k, n_tensors, tensors);
    CLPK_ARG(&args, lambda);
    CLPK_ARG(&args, x);
    CLPK_ARG(&args, info);
    for (int i = 0; i < 3; ++i) {
        if (f64)
            CLPK_ARG(&args, tol_d[i]);
        else
            CLPK_ARG(&args, tol_f[i]);
    }
    CLPK_ARG(&args, K);
    CLPK_ARG(&args, base);
    CLPK_ARG(&args, out_lambda);
    CLPK_ARG(&args, out_x);
    CLPK_ARG(&args, out_meta);
    CLPK_ARG(&args, out_counts);
    CLPK_TRY(core_args_end(&args));
    size_t local = 64, global = (size_t)((n_tensors + 63) / 64) * 64;
    CLPK_CL_TRY(ctx, clEnqueueNDRangeKernel(clpk_context_queue(ctx), k, 1, NULL, &global, &local, n_wait, wait, done));
    return CLPK_SUCCESS;
}

static int by_lambda_desc(const void *pa, const void *pb) {
    const clpk_sshopm_eigenpair *a = pa, *b = pb;
    return (a->lambda < b->lambda) - (a->lambda > b->lambda);
}

/* A capped start downloaded for polishing on the host (tensor index within the chunk). */
typedef struct capped_start {
    int64_t t;
    double lambda;
    double x[SSHOPM_MAX_DIM];
} capped_start;

typedef struct capped_list {
    capped_start *v;
    size_t count, cap;
} capped_list;

/* Downloads the starts of the tensors (of nt) whose counts say they have capped starts, after one direction's run
 * and reduction, and appends their capped starts (in tensor, start order) to `list`. */
static clpk_status collect_capped(clpk_sshopm_plan *plan, int64_t nt, cl_mem lambda, cl_mem x, cl_mem info,
                                  cl_mem counts, size_t slot0, capped_list *list) {
    clpk_context *ctx = plan->ctx;
    cl_command_queue q = clpk_context_queue(ctx);
    const int V = plan->opts.starts, n = plan->idx.n;
    const size_t vs = clpk_precision_size(plan->precision);
    int32_t *hc = malloc((size_t)nt * 5 * 4);
    if (!hc) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory");
    cl_int rc = clEnqueueReadBuffer(q, counts, CL_TRUE, slot0 * 5 * 4, (size_t)nt * 5 * 4, hc, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        free(hc);
        return core_fail_cl(ctx, rc, "clEnqueueReadBuffer (sshopm counts)");
    }
    int64_t with = 0;
    for (int64_t t = 0; t < nt; ++t)
        with += hc[t * 5 + 2] > 0;
    clpk_status st = CLPK_SUCCESS;
    if (with) {
        char *hl = malloc((size_t)with * V * vs), *hx = malloc((size_t)with * V * n * vs);
        int32_t *hi = malloc((size_t)with * V * 4);
        if (!hl || !hx || !hi) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory");
        rc = CL_SUCCESS;
        for (int64_t t = 0, k = 0; st == CLPK_SUCCESS && t < nt; ++t) {
            if (hc[t * 5 + 2] <= 0) continue;
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, lambda, CL_FALSE, (size_t)t * V * vs, (size_t)V * vs, hl + k * V * vs, 0,
                                         NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, x, CL_FALSE, (size_t)t * V * n * vs, (size_t)V * n * vs,
                                         hx + k * V * n * vs, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc =
                    clEnqueueReadBuffer(q, info, CL_FALSE, (size_t)t * V * 4, (size_t)V * 4, hi + k * V, 0, NULL, NULL);
            ++k;
        }
        if (st == CLPK_SUCCESS && (rc != CL_SUCCESS || clFinish(q) != CL_SUCCESS))
            st = core_fail(ctx, CLPK_ERROR_OPENCL, "sshopm: reading the capped starts failed");
        for (int64_t t = 0, k = 0; st == CLPK_SUCCESS && t < nt; ++t) {
            if (hc[t * 5 + 2] <= 0) continue;
            for (int s = 0; st == CLPK_SUCCESS && s < V; ++s) {
                const size_t e = (size_t)k * V + s;
                if (CLPK_SSHOPM_INFO_STATUS(hi[e]) != CLPK_SSHOPM_CAPPED) continue;
                if (list->count == list->cap) {
                    size_t cap = list->cap ? 2 * list->cap : 64;
                    capped_start *grown = realloc(list->v, cap * sizeof *grown);
                    if (!grown) {
                        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory");
                        break;
                    }
                    list->v = grown;
                    list->cap = cap;
                }
                capped_start *c = &list->v[list->count++];
                c->t = t;
                c->lambda = vs == 8 ? ((double *)hl)[e] : ((float *)hl)[e];
                for (int i = 0; i < n; ++i)
                    c->x[i] = vs == 8 ? ((double *)hx)[e * n + i] : ((float *)hx)[e * n + i];
            }
            ++k;
        }
        free(hl);
        free(hx);
        free(hi);
    }
    free(hc);
    return st;
}

static clpk_status solve_device_as_given(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                         const clpk_sshopm_post_options *post, int max_pairs, clpk_sshopm_result *out) {
    memset(out, 0, sizeof *out);
    clpk_context *ctx = plan->ctx;
    if (n_tensors < 1) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: no tensors");
    if (max_pairs <= 0) max_pairs = DEFAULT_MAX_PAIRS;
    const int V = plan->opts.starts, n = plan->idx.n, U = plan->idx.U, D = plan->directions, K = max_pairs;
    for (int64_t i = 0; i < n_tensors * U; ++i)
        if (!isfinite(tensors[i]))
            return core_fail(ctx, CLPK_ERROR_INVALID_DATA, "sshopm: tensor %lld entry %lld is not finite",
                             (long long)(i / U), (long long)(i % U));
    const int64_t chunk = n_tensors < plan->max_tensors ? n_tensors : plan->max_tensors;
    const size_t vs = clpk_precision_size(plan->precision);
    clpk_sshopm_post_options po;
    if (post)
        po = *post;
    else
        clpk_sshopm_post_options_default(&po);
    capped_list capped[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    out->n_tensors = n_tensors;
    out->order = plan->idx.m;
    out->dim = n;
    out->tensors = calloc((size_t)n_tensors, sizeof *out->tensors);
    size_t cap = (size_t)n_tensors * 4 + 16, used = 0;
    out->storage = malloc(cap * sizeof *out->storage);
    size_t *offsets = malloc((size_t)n_tensors * sizeof *offsets);
    void *host_t = malloc((size_t)chunk * U * vs + 8);
    void *hl = malloc((size_t)D * chunk * K * vs + 8), *hx = malloc((size_t)D * chunk * K * n * vs + 8);
    int32_t *hm = malloc((size_t)D * chunk * K * 4 + 8), *hc = malloc((size_t)D * chunk * 5 * 4 + 8);
    clpk_status st = CLPK_SUCCESS;
    if (!out->tensors || !out->storage || !offsets || !host_t || !hl || !hx || !hm || !hc)
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory");
    cl_context c = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_mem b[8] = {NULL};
    cl_int rc = CL_SUCCESS;
    const size_t sizes[8] = {(size_t)chunk * U * vs,    (size_t)chunk * V * vs,     (size_t)chunk * V * n * vs,
                             (size_t)chunk * V * 4,     (size_t)D * chunk * K * vs, (size_t)D * chunk * K * n * vs,
                             (size_t)D * chunk * K * 4, (size_t)D * chunk * 5 * 4};
    for (int i = 0; st == CLPK_SUCCESS && i < 8; ++i) {
        b[i] = clCreateBuffer(c, CL_MEM_READ_WRITE, sizes[i], NULL, &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer (sshopm device post-processing)");
    }
    for (int64_t t0 = 0; st == CLPK_SUCCESS && t0 < n_tensors; t0 += chunk) {
        const int64_t nt = n_tensors - t0 < chunk ? n_tensors - t0 : chunk;
        for (int64_t i = 0; i < nt * U; ++i) {
            if (vs == 8)
                ((double *)host_t)[i] = tensors[t0 * U + i];
            else
                ((float *)host_t)[i] = (float)tensors[t0 * U + i];
        }
        rc = clEnqueueWriteBuffer(q, b[0], CL_FALSE, 0, (size_t)nt * U * vs, host_t, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueWriteBuffer (sshopm tensors)");
        for (int d = 0; st == CLPK_SUCCESS && d < D; ++d) {
            capped[d].count = 0;
            st = clpk_sshopm_execute(plan, nt, b[0], plan->direction[d], b[1], b[2], b[3], 0, NULL, NULL);
            if (st == CLPK_SUCCESS)
                st = clpk_sshopm_reduce(plan, nt, b[0], b[1], b[2], b[3], post, K, (int64_t)d * chunk, b[4], b[5], b[6],
                                        b[7], 0, NULL, NULL);
            /* capped starts are polished on the host: download those of the tensors that have some */
            if (st == CLPK_SUCCESS && po.capped_steps > 0)
                st = collect_capped(plan, nt, b[1], b[2], b[3], b[7], (size_t)d * chunk, &capped[d]);
        }
        for (int d = 0; st == CLPK_SUCCESS && d < D; ++d) {
            const size_t s0 = (size_t)d * chunk;
            rc = clEnqueueReadBuffer(q, b[4], CL_FALSE, s0 * K * vs, (size_t)nt * K * vs, (char *)hl + s0 * K * vs, 0,
                                     NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, b[5], CL_FALSE, s0 * K * n * vs, (size_t)nt * K * n * vs,
                                         (char *)hx + s0 * K * n * vs, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, b[6], CL_FALSE, s0 * K * 4, (size_t)nt * K * 4, hm + s0 * K, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, b[7], CL_FALSE, s0 * 5 * 4, (size_t)nt * 5 * 4, hc + s0 * 5, 0, NULL, NULL);
            if (rc != CL_SUCCESS) st = core_fail(ctx, CLPK_ERROR_OPENCL, "sshopm: reading reduced results failed");
        }
        if (st == CLPK_SUCCESS && (rc = clFinish(q)) != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clFinish");
        size_t next[2] = {0, 0}; /* each direction's capped starts, in tensor order */
        for (int64_t t = 0; st == CLPK_SUCCESS && t < nt; ++t) {
            clpk_sshopm_tensor_result *tr = &out->tensors[t0 + t];
            int k = 0;
            for (int d = 0; d < D; ++d)
                k += hc[((size_t)d * chunk + t) * 5] + hc[((size_t)d * chunk + t) * 5 + 2];
            if (used + (size_t)k > cap) {
                while (used + (size_t)k > cap)
                    cap *= 2;
                clpk_sshopm_eigenpair *grown = realloc(out->storage, cap * sizeof *grown);
                if (!grown) {
                    st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory");
                    break;
                }
                out->storage = grown;
            }
            clpk_sshopm_eigenpair *p = out->storage + used;
            int w = 0;
            for (int d = 0; d < D; ++d) {
                const size_t slot = (size_t)d * chunk + t;
                const int32_t *cnt = hc + slot * 5;
                tr->converged += cnt[1];
                tr->capped += cnt[2];
                tr->failed += cnt[3];
                tr->dropped += cnt[4];
                /* the kernel clusters one direction's starts; a pair that another direction found too joins it,
                 * as clpk_sshopm_postprocess clusters the starts of all directions together */
                const int first_of_direction = w;
                for (int i = 0; i < cnt[0]; ++i) {
                    const size_t e = slot * K + i;
                    clpk_sshopm_eigenpair pair;
                    memset(&pair, 0, sizeof pair);
                    pair.lambda = vs == 8 ? ((double *)hl)[e] : ((float *)hl)[e];
                    for (int j = 0; j < n; ++j)
                        pair.x[j] = vs == 8 ? ((double *)hx)[e * n + j] : ((float *)hx)[e * n + j];
                    pair.type = (clpk_sshopm_type)(hm[e] & 7);
                    pair.hits = hm[e] >> 3;
                    pair.residual = NAN;
                    const int same =
                        sshopm_find_cluster(p, first_of_direction, n, plan->idx.m % 2 == 0, &po, pair.lambda, pair.x);
                    if (same >= 0)
                        p[same].hits += pair.hits;
                    else
                        p[w++] = pair;
                }
            }
            /* as clpk_sshopm_postprocess: capped starts after the converged ones, first direction first */
            for (int d = 0; d < D; ++d)
                for (; next[d] < capped[d].count && capped[d].v[next[d]].t == t; ++next[d]) {
                    const capped_start *cs = &capped[d].v[next[d]];
                    if (sshopm_add_capped(&plan->idx, tensors + (size_t)(t0 + t) * U, &po, cs->lambda, cs->x, p, &w))
                        tr->polished++;
                    else
                        tr->unconverged++;
                }
            if (po.capped_steps <= 0) tr->unconverged = tr->capped;
            qsort(p, (size_t)w, sizeof *p, by_lambda_desc);
            offsets[t0 + t] = used;
            tr->count = w;
            used += (size_t)w;
        }
    }
    if (st == CLPK_SUCCESS)
        for (int64_t t = 0; t < n_tensors; ++t)
            out->tensors[t].pairs = out->storage + offsets[t];
    for (int i = 0; i < 8; ++i)
        if (b[i]) clReleaseMemObject(b[i]);
    free(capped[0].v);
    free(capped[1].v);
    free(offsets);
    free(host_t);
    free(hl);
    free(hx);
    free(hm);
    free(hc);
    if (st != CLPK_SUCCESS) clpk_sshopm_result_free(out);
    return st;
}

clpk_status clpk_sshopm_solve_device(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                     const clpk_sshopm_post_options *post, int max_pairs, clpk_sshopm_result *out) {
    if (!plan || !tensors || !out) return CLPK_ERROR_INVALID_ARGUMENT;
    double *scaled = NULL, *scales = NULL;
    clpk_error err = {0};
    if (sshopm_scale_to_unit(&plan->idx, tensors, n_tensors, &scaled, &scales, &err) != CLPK_SUCCESS) {
        memset(out, 0, sizeof *out);
        return core_fail_from(plan->ctx, &err);
    }
    const clpk_status st = solve_device_as_given(plan, scaled ? scaled : tensors, n_tensors, post, max_pairs, out);
    if (st == CLPK_SUCCESS) sshopm_unscale_result(out, scales);
    free(scaled);
    free(scales);
    return st;
}
