/* SBB-NNLS on the device: min 0.5 ||M w - y||^2 subject to w >= 0, by projected Barzilai-Borwein steps as in
 * ENCODE's bbnnls (Kim, Sra, Dhillon). Iterations are numbered from 1; with the subspace gradient
 * gt = g zeroed where w == 0 and g > 0:
 *   even i: alpha = <gt, gt> / <M gt, M gt>                       (the seed's Eq. 7)
 *   odd i:  alpha = <M gt, M gt> / <mask(M^T M gt), mask(M^T M gt)> (Eq. 8; the seed's Algorithm 1 swaps the two)
 *   w <- [w - alpha g]_+,  r = M w - y,  g = M^T r.
 * The residual needs no product of M w in most iterations: the step is w_new - w = -alpha gt + clip, where clip is
 * zero but for the weights the projection cut off (life_bb_step_clip), so r_new = r - alpha (M gt) + M clip, and
 * M gt is the step length's own product. M clip is a DSC of a mostly zero vector: on the clipped fibres' voxels only
 * where the plan allows (life_dsc_stamped), else a full pass that skips zero weights' dictionary rows. Rounding
 * drifts r from M w - y, so r is recomputed from M w every `residual_every` iterations and at the end (the returned
 * objective is that of M w - y). On odd iterations, where M^T M gt is known too, the gradient follows the same way
 * (g - alpha M^T M gt + M^T M clip) when the plan stamps. So a full DSC of gt, the clipped part's DSC, and a full WC
 * (of r on even iterations, of M gt on odd ones) plus, on odd ones, a stamped WC.
 * Vector work (dot, nrm2, axpy, iamax) is CLBlast's; the mask, the step and the residual update are element-wise
 * kernels; the step length stays on the device. The host reads back only every `objective_every` iterations
 * (objective and projected-gradient norm, for the stopping test). */
#include "life_internal.h"

#include <clblast_c.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct life_fit_buffers {
    cl_mem w, g, r, gt, ag, atag, scal, imax, clip, m_clip;
    cl_mem stamp;   /* n_voxels: the iteration whose clipped fibres last touched each voxel (dsc=pairs with wc=pairs) */
    cl_mem wc_clip; /* n_fibers: M^T M clip (with stamp) */
} life_fit_buffers;

static clpk_status blast(clpk_context *ctx, CLBlastStatusCode code, const char *what) {
    if (code == CLBlastSuccess) return CLPK_SUCCESS;
    return core_fail(ctx, code == CLBlastOpenCLOutOfResources ? CLPK_ERROR_OUT_OF_MEMORY : CLPK_ERROR_OPENCL,
                     "LiFE fit: CLBlast %s failed with status %d", what, (int)code);
}

/* out[offset] = <x, y> */
static clpk_status fit_dot_into(clpk_life_plan *p, cl_mem out, cl_mem x, cl_mem y, size_t n, size_t offset) {
    cl_command_queue q = clpk_context_queue(p->ctx);
    CLBlastStatusCode c = p->precision == CLPK_PRECISION_F32 ? CLBlastSdot(n, out, offset, x, 0, 1, y, 0, 1, &q, NULL)
                                                             : CLBlastDdot(n, out, offset, x, 0, 1, y, 0, 1, &q, NULL);
    return blast(p->ctx, c, "dot");
}

static clpk_status fit_build(clpk_life_plan *p) {
    if (p->k_mask) return CLPK_SUCCESS;
    const int f64 = p->precision == CLPK_PRECISION_F64;
    const char *sources[] = {"life_fit"};
    CLPK_TRY(core_program_get(p->ctx, sources, 1, f64 ? "-DVALUE_T=double -DVALUE_IS_DOUBLE" : "-DVALUE_T=float",
                              &p->fit_program));
    CLPK_TRY(core_kernel_create(p->ctx, p->fit_program, "life_mask", &p->k_mask));
    CLPK_TRY(core_kernel_create(p->ctx, p->fit_program, "life_bb_step", &p->k_step));
    CLPK_TRY(core_kernel_create(p->ctx, p->fit_program, "life_bb_step_clip", &p->k_step_clip));
    CLPK_TRY(core_kernel_create(p->ctx, p->fit_program, "life_residual_update", &p->k_residual));
    CLPK_TRY(core_kernel_create(p->ctx, p->fit_program, "life_gradient_update", &p->k_gradient));
    if (life_dsc_can_stamp(p)) CLPK_TRY(core_kernel_create(p->ctx, p->program, "life_mark_clipped", &p->k_mark));
    return CLPK_SUCCESS;
}

/* Launches k over n items in groups of `local`, at most max_groups of them (0: no cap; the kernel then strides). */
static clpk_status fit_launch(clpk_life_plan *p, cl_kernel k, size_t n, size_t local, size_t max_groups) {
    size_t groups = (n + local - 1) / local;
    if (max_groups && groups > max_groups) groups = max_groups;
    size_t global = (groups > 0 ? groups : 1) * local;
    CLPK_CL_TRY(p->ctx, clEnqueueNDRangeKernel(clpk_context_queue(p->ctx), k, 1, NULL, &global, &local, 0, NULL, NULL));
    return CLPK_SUCCESS;
}

static clpk_status fit_elementwise(clpk_life_plan *p, cl_kernel k, size_t n) {
    return fit_launch(p, k, n, 64, 0);
}

/* out = mask(w, g, in) */
static clpk_status fit_mask(clpk_life_plan *p, life_fit_buffers *b, cl_mem in, cl_mem out) {
    cl_int n = p->n_fibers;
    core_args a;
    core_args_begin(&a, p->ctx, p->k_mask, 0);
    CLPK_ARG(&a, n);
    CLPK_ARG(&a, b->w);
    CLPK_ARG(&a, b->g);
    CLPK_ARG(&a, in);
    CLPK_ARG(&a, out);
    CLPK_TRY(core_args_end(&a));
    return fit_elementwise(p, p->k_mask, (size_t)n);
}

/* r = M w - y; g = M^T r */
static clpk_status fit_gradient(clpk_life_plan *p, life_fit_buffers *b) {
    const size_t ny = (size_t)p->n_voxels * p->n_theta;
    cl_command_queue q = clpk_context_queue(p->ctx);
    CLPK_TRY(clpk_life_dsc(p, b->w, b->r, 0, NULL, NULL));
    CLBlastStatusCode c = p->precision == CLPK_PRECISION_F32
                              ? CLBlastSaxpy(ny, -1.0f, p->signal, 0, 1, b->r, 0, 1, &q, NULL)
                              : CLBlastDaxpy(ny, -1.0, p->signal, 0, 1, b->r, 0, 1, &q, NULL);
    CLPK_TRY(blast(p->ctx, c, "axpy"));
    return clpk_life_wc(p, b->r, b->g, 0, NULL, NULL);
}

static double read_scalar(const void *host, clpk_precision p, size_t i) {
    return p == CLPK_PRECISION_F32 ? (double)((const float *)host)[i] : ((const double *)host)[i];
}

/* Objective 0.5 ||r||^2 and the infinity norm of the projected gradient (blocking read: the only host sync). */
static clpk_status fit_measure(clpk_life_plan *p, life_fit_buffers *b, double *objective, double *pg_inf) {
    const size_t ny = (size_t)p->n_voxels * p->n_theta, nw = (size_t)p->n_fibers;
    cl_command_queue q = clpk_context_queue(p->ctx);
    CLBlastStatusCode c = p->precision == CLPK_PRECISION_F32 ? CLBlastSnrm2(ny, b->scal, 2, b->r, 0, 1, &q, NULL)
                                                             : CLBlastDnrm2(ny, b->scal, 2, b->r, 0, 1, &q, NULL);
    CLPK_TRY(blast(p->ctx, c, "nrm2"));
    CLPK_TRY(fit_mask(p, b, b->g, b->gt));
    c = p->precision == CLPK_PRECISION_F32 ? CLBlastiSamax(nw, b->imax, 0, b->gt, 0, 1, &q, NULL)
                                           : CLBlastiDamax(nw, b->imax, 0, b->gt, 0, 1, &q, NULL);
    CLPK_TRY(blast(p->ctx, c, "iamax"));
    double host[4];
    cl_uint index = 0;
    CLPK_CL_TRY(p->ctx, clEnqueueReadBuffer(q, b->imax, CL_TRUE, 0, sizeof index, &index, 0, NULL, NULL));
    if (index >= nw) index = 0;
    CLPK_CL_TRY(p->ctx, clEnqueueReadBuffer(q, b->scal, CL_FALSE, 0, 4 * p->value_size, host, 0, NULL, NULL));
    double gmax[1];
    CLPK_CL_TRY(p->ctx,
                clEnqueueReadBuffer(q, b->gt, CL_TRUE, index * p->value_size, p->value_size, gmax, 0, NULL, NULL));
    double nrm = read_scalar(host, p->precision, 2);
    *objective = 0.5 * nrm * nrm;
    *pg_inf = fabs(read_scalar(gmax, p->precision, 0));
    if (!isfinite(*objective) || !isfinite(*pg_inf))
        return core_fail(p->ctx, CLPK_ERROR_WRONG_RESULT, "LiFE fit: objective or gradient is not finite");
    return CLPK_SUCCESS;
}

/* CLPK_LOG=debug: how many weights the step of iteration `iter` clipped and how many voxels they stamped (blocking
 * reads of clip and the stamps; debug only). */
static void fit_log_clipped(clpk_life_plan *p, life_fit_buffers *b, int iter) {
    const size_t nw = (size_t)p->n_fibers, nv = (size_t)p->n_voxels, vs = p->value_size;
    void *host = malloc((nw > nv ? nw : nv) * (vs > sizeof(cl_int) ? vs : sizeof(cl_int)));
    cl_command_queue q = clpk_context_queue(p->ctx);
    if (!host) return;
    size_t clipped = 0, stamped = 0;
    if (clEnqueueReadBuffer(q, b->clip, CL_TRUE, 0, nw * vs, host, 0, NULL, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < nw; ++i) clipped += read_scalar(host, p->precision, i) != 0;
    if (b->stamp &&
        clEnqueueReadBuffer(q, b->stamp, CL_TRUE, 0, nv * sizeof(cl_int), host, 0, NULL, NULL) == CL_SUCCESS)
        for (size_t i = 0; i < nv; ++i) stamped += ((const cl_int *)host)[i] == iter;
    core_log(p->ctx, CLPK_LOG_DEBUG, "life fit: iteration %d clipped %zu of %zu weights; %zu of %zu voxels stamped",
             iter, clipped, nw, stamped, nv);
    free(host);
}

/* stamp[v] = iter for the voxels of the fibres that iteration `iter` clipped. */
static clpk_status fit_mark_clipped(clpk_life_plan *p, life_fit_buffers *b, cl_int iter) {
    const cl_int nf = p->n_fibers;
    core_args a;
    core_args_begin(&a, p->ctx, p->k_mark, 0);
    CLPK_ARG(&a, nf);
    CLPK_ARG(&a, p->pr_fiber_ptr);
    CLPK_ARG(&a, p->pr_fiber_pair);
    cl_mem voxel_off = p->pr_block_voxel_off ? p->pr_block_voxel_off : p->pr_voxel_off; /* the fibre side's order */
    CLPK_ARG(&a, voxel_off);
    CLPK_ARG(&a, b->clip);
    CLPK_ARG(&a, b->stamp);
    CLPK_ARG(&a, iter);
    CLPK_ARG(&a, p->wc_key); /* the fibre side's order */
    CLPK_TRY(core_args_end(&a));
    return fit_launch(p, p->k_mark, (size_t)nf * 32, 256, 8192); /* grid-stride over the fibres, a team of 32 each */
}

/* g = g - alpha atag + M^T M clip on odd iterations, where atag = M^T M gt is the step length's own product. */
static clpk_status fit_gradient_update(clpk_life_plan *p, life_fit_buffers *b, cl_int iter) {
    CLPK_TRY(life_wc_stamped(p, b->m_clip, b->wc_clip, b->stamp, iter));
    cl_int n = p->n_fibers;
    core_args a;
    core_args_begin(&a, p->ctx, p->k_gradient, 0);
    CLPK_ARG(&a, n);
    CLPK_ARG(&a, b->scal);
    CLPK_ARG(&a, b->atag);
    CLPK_ARG(&a, b->wc_clip);
    CLPK_ARG(&a, b->g);
    CLPK_TRY(core_args_end(&a));
    return fit_elementwise(p, p->k_gradient, (size_t)n);
}

/* r = r - alpha (M gt) + M clip after the clipping step: r stays M w - y up to rounding. With a stamp, M clip is
 * computed on the clipped fibres' voxels only (the others' part is zero), and on odd iterations the gradient is
 * updated the same way (fit_gradient_update) instead of a WC of r. */
static clpk_status fit_residual_update(clpk_life_plan *p, life_fit_buffers *b, cl_int iter) {
    const cl_long ny = (cl_long)p->n_voxels * p->n_theta;
    const cl_int n_theta = p->n_theta;
    if (b->stamp) CLPK_TRY(fit_mark_clipped(p, b, iter));
    if (core_log_enabled(p->ctx, CLPK_LOG_DEBUG)) fit_log_clipped(p, b, iter);
    if (b->stamp)
        CLPK_TRY(life_dsc_stamped(p, b->clip, b->m_clip, b->stamp, iter));
    else
        CLPK_TRY(clpk_life_dsc(p, b->clip, b->m_clip, 0, NULL, NULL));
    core_args a;
    core_args_begin(&a, p->ctx, p->k_residual, 0);
    CLPK_ARG(&a, ny);
    CLPK_ARG(&a, b->scal);
    CLPK_ARG(&a, b->ag);
    CLPK_ARG(&a, b->m_clip);
    CLPK_ARG(&a, b->r);
    CLPK_ARG(&a, n_theta);
    CLPK_ARG(&a, b->stamp);
    CLPK_ARG(&a, iter);
    CLPK_TRY(core_args_end(&a));
    CLPK_TRY(fit_launch(p, p->k_residual, (size_t)ny, 256, 4096)); /* grid-stride: a few waves, whatever the size */
    if (b->wc_clip && iter % 2 == 1) return fit_gradient_update(p, b, iter);
    return clpk_life_wc(p, b->r, b->g, 0, NULL, NULL);
}

/* One SBB-NNLS iteration (number `iter`, from 1); exact: r from M w (else from the step's update). */
static clpk_status fit_iteration(clpk_life_plan *p, life_fit_buffers *b, int iter, int exact) {
    const size_t ny = (size_t)p->n_voxels * p->n_theta, nw = (size_t)p->n_fibers;
    CLPK_TRY(fit_mask(p, b, b->g, b->gt));
    CLPK_TRY(clpk_life_dsc(p, b->gt, b->ag, 0, NULL, NULL));
    if (iter % 2 == 0) {
        CLPK_TRY(fit_dot_into(p, b->scal, b->gt, b->gt, nw, 0));
        CLPK_TRY(fit_dot_into(p, b->scal, b->ag, b->ag, ny, 1));
    } else {
        CLPK_TRY(fit_dot_into(p, b->scal, b->ag, b->ag, ny, 0));
        CLPK_TRY(clpk_life_wc(p, b->ag, b->atag, 0, NULL, NULL));
        CLPK_TRY(fit_mask(p, b, b->atag, b->gt)); /* gt is free after its DSC; atag stays whole for the gradient */
        CLPK_TRY(fit_dot_into(p, b->scal, b->gt, b->gt, nw, 1));
    }
    cl_int n = p->n_fibers;
    cl_kernel step = exact ? p->k_step : p->k_step_clip;
    core_args a;
    core_args_begin(&a, p->ctx, step, 0);
    CLPK_ARG(&a, n);
    CLPK_ARG(&a, b->scal);
    CLPK_ARG(&a, b->g);
    CLPK_ARG(&a, b->w);
    if (!exact) CLPK_ARG(&a, b->clip);
    CLPK_TRY(core_args_end(&a));
    CLPK_TRY(fit_elementwise(p, step, nw));
    return exact ? fit_gradient(p, b) : fit_residual_update(p, b, iter);
}

static void fit_progress(int iter, int max_iter, double objective) {
    const int width = 40;
    int filled = max_iter > 0 ? (int)((long long)iter * width / max_iter) : width;
    char bar[64];
    for (int i = 0; i < width; ++i)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\rSBB-NNLS [%s] %d/%d  objective %.6e", bar, iter, max_iter, objective);
    fflush(stderr);
}

static clpk_status fit_create_buffer(clpk_life_plan *p, size_t bytes, cl_mem *out) {
    cl_int rc;
    *out = clCreateBuffer(clpk_context_cl_context(p->ctx), CL_MEM_READ_WRITE, bytes > 0 ? bytes : 1, NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(p->ctx, rc, "clCreateBuffer (LiFE fit)");
    return CLPK_SUCCESS;
}

/* residual_every's default (docs/perf-life.md, "The residual from the step's own products"; H200). With the clipped
 * part on the clipped fibres' voxels (dsc=pairs with wc=pairs, the GPU default where pairs pay): DS1 fit 17 % faster
 * in f32, 21 % in f64 (r from M w every 10 steps), synth medium within 1 %. Otherwise the clipped DSC reads all of
 * the metadata and skips only the rows of zero weights (~20 ps a row): it paid at DS1 (26.6 M pairs, 8 / 14 %) and
 * cost 4-6 % on synth medium (0.4 M pairs), so GPUs take it when the rows skipped per step exceed twice the ~25 us
 * that medium's outcome puts on the extra pass. CPUs measured mixed (PoCL synth small f32 3 % slower, f64 25 %
 * faster; Intel's runtime within its noise): textbook there. The interval: a full DSC replaces a clipped one every
 * 50 steps; the drift it allows is rounding's (the fit test checks 30 steps without a refresh). */
static int fit_default_residual_every(const clpk_life_plan *p) {
    const clpk_device_info *dev = clpk_context_device_info(p->ctx);
    if (!dev || dev->kind != CLPK_DEVICE_GPU) return 1;
    if (life_dsc_can_stamp(p)) return 50;
    const double rows = p->dsc_kind == LIFE_DSC_PAIRS ? (double)p->n_pairs : (double)p->n_coeffs;
    return 0.9 * 20e-12 * rows >= 50e-6 ? 50 : 1;
}

static clpk_status fit_run(clpk_life_plan *p, const clpk_life_fit_options *o, life_fit_buffers *b, double *w,
                           clpk_life_fit_result *res) {
    const size_t ny = (size_t)p->n_voxels * p->n_theta, nw = (size_t)p->n_fibers, vs = p->value_size;
    CLPK_TRY(fit_build(p));
    const int every = o->objective_every > 0 ? o->objective_every : 10;
    const int refresh = o->residual_every > 0 ? o->residual_every : fit_default_residual_every(p);
    core_log(p->ctx, CLPK_LOG_DEBUG, "life fit: r from M w every %d iterations (%s)%s", refresh,
             o->residual_every > 0 ? "caller" : "default",
             refresh > 1 && life_dsc_can_stamp(p) ? "; M clip on the clipped fibres' voxels" : "");
    cl_mem *bufs[] = {&b->w, &b->g, &b->gt, &b->atag};
    for (int i = 0; i < 4; ++i)
        CLPK_TRY(fit_create_buffer(p, nw * vs, bufs[i]));
    CLPK_TRY(fit_create_buffer(p, ny * vs, &b->r));
    CLPK_TRY(fit_create_buffer(p, ny * vs, &b->ag));
    if (refresh > 1 && o->max_iterations > 1) {
        CLPK_TRY(fit_create_buffer(p, nw * vs, &b->clip));
        CLPK_TRY(fit_create_buffer(p, ny * vs, &b->m_clip));
        if (life_dsc_can_stamp(p)) {
            CLPK_TRY(fit_create_buffer(p, (size_t)p->n_voxels * sizeof(cl_int), &b->stamp));
            const cl_int never = 0; /* iterations count from 1 */
            CLPK_TRY(core_fill(p->ctx, b->stamp, &never, sizeof never, 0, (size_t)p->n_voxels * sizeof(cl_int), 0, 0,
                               NULL, NULL, "LiFE fit stamps"));
            CLPK_TRY(fit_create_buffer(p, nw * vs, &b->wc_clip)); /* a stamping plan has wc=pairs */
        }
    }
    CLPK_TRY(fit_create_buffer(p, 4 * vs, &b->scal));
    CLPK_TRY(fit_create_buffer(p, 4 * sizeof(cl_uint), &b->imax));
    /* warm start, projected onto w >= 0 */
    void *host = calloc(nw > 0 ? nw : 1, vs);
    if (!host) return core_fail(p->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE fit: no host memory");
    for (size_t i = 0; o->w_start && i < nw; ++i) {
        double v = o->w_start[i] > 0 ? o->w_start[i] : 0;
        if (vs == 4)
            ((float *)host)[i] = (float)v;
        else
            ((double *)host)[i] = v;
    }
    cl_command_queue q = clpk_context_queue(p->ctx);
    cl_int rc = clEnqueueWriteBuffer(q, b->w, CL_TRUE, 0, nw * vs, host, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        free(host);
        return core_fail_cl(p->ctx, rc, "clEnqueueWriteBuffer (LiFE fit w)");
    }
    /* CLBlast compiles its kernels on first use in a process: do that before the clock starts, so `seconds`
     * measures the solver (the warm-up results land in scratch slots and buffers that are overwritten). The axpy
     * reads r, which nothing has written yet: zero it first, so no kernel reads uninitialized memory (oclgrind's
     * check reports it; scripts/oclgrind-check.sh). */
    const double zero_d = 0;
    const float zero_f = 0;
    const clpk_status filled = core_fill(p->ctx, b->r, vs == 4 ? (const void *)&zero_f : (const void *)&zero_d, vs, 0,
                                         ny * vs, 0, 0, NULL, NULL, "LiFE fit r");
    if (filled != CLPK_SUCCESS) {
        free(host);
        return filled;
    }
    clpk_status warm = fit_dot_into(p, b->scal, b->w, b->w, nw, 3);
    if (warm == CLPK_SUCCESS) {
        CLBlastStatusCode c = p->precision == CLPK_PRECISION_F32 ? CLBlastSnrm2(nw, b->scal, 3, b->w, 0, 1, &q, NULL)
                                                                 : CLBlastDnrm2(nw, b->scal, 3, b->w, 0, 1, &q, NULL);
        if (c == CLBlastSuccess)
            c = p->precision == CLPK_PRECISION_F32 ? CLBlastiSamax(nw, b->imax, 0, b->w, 0, 1, &q, NULL)
                                                   : CLBlastiDamax(nw, b->imax, 0, b->w, 0, 1, &q, NULL);
        if (c == CLBlastSuccess)
            c = p->precision == CLPK_PRECISION_F32 ? CLBlastSaxpy(ny, -1.0f, p->signal, 0, 1, b->r, 0, 1, &q, NULL)
                                                   : CLBlastDaxpy(ny, -1.0, p->signal, 0, 1, b->r, 0, 1, &q, NULL);
        warm = blast(p->ctx, c, "warm-up");
    }
    cl_int finished = warm == CLPK_SUCCESS ? clFinish(q) : CL_SUCCESS;
    if (finished != CL_SUCCESS) warm = core_fail_cl(p->ctx, finished, "clFinish (LiFE fit warm-up)");
    if (warm != CLPK_SUCCESS) {
        free(host);
        return warm;
    }
    const double t0 = core_wall_seconds();
    const int show = o->progress && isatty(2);
    clpk_status st = fit_gradient(p, b);
    double objective = 0, pg0 = 0, pg = 0, last_objective = 0;
    if (st == CLPK_SUCCESS) st = fit_measure(p, b, &objective, &pg0);
    last_objective = objective;
    int iter = 0, converged = pg0 == 0;
    while (st == CLPK_SUCCESS && !converged && iter < o->max_iterations) {
        ++iter;
        const int measure = iter % every == 0 || iter == o->max_iterations;
        const int exact = iter % refresh == 0 || iter == o->max_iterations || !b->clip;
        st = fit_iteration(p, b, iter, exact);
        if (st != CLPK_SUCCESS) break;
        if (measure) {
            st = fit_measure(p, b, &objective, &pg);
            if (st != CLPK_SUCCESS) break;
            core_log(p->ctx, CLPK_LOG_DEBUG, "life fit: iteration %d, objective %.12e, projected gradient %.6e", iter,
                     objective, pg);
            if (show) fit_progress(iter, o->max_iterations, objective);
            /* Converged: projected gradient small relative to the start, or the objective stalls (a relative
             * decrease below tol over `every` iterations). */
            if (o->tolerance > 0 &&
                (pg <= o->tolerance * pg0 ||
                 (objective <= last_objective && last_objective - objective <= o->tolerance * last_objective)))
                converged = 1;
            last_objective = objective;
            if (converged && !exact) { /* the result's objective is that of M w - y itself */
                st = fit_gradient(p, b);
                if (st == CLPK_SUCCESS) st = fit_measure(p, b, &objective, &pg);
            }
        }
    }
    if (show) fputc('\n', stderr);
    if (st == CLPK_SUCCESS) {
        rc = clEnqueueReadBuffer(q, b->w, CL_TRUE, 0, nw * vs, host, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(p->ctx, rc, "clEnqueueReadBuffer (LiFE fit w)");
    }
    if (st == CLPK_SUCCESS) {
        for (size_t i = 0; i < nw; ++i)
            w[i] = vs == 4 ? (double)((float *)host)[i] : ((double *)host)[i];
        if (res) {
            res->iterations = iter;
            res->objective = objective;
            res->seconds = core_wall_seconds() - t0;
            res->converged = converged;
        }
    }
    free(host);
    return st;
}

clpk_status clpk_life_fit(clpk_life_plan *plan, const clpk_life_fit_options *opts, double *w,
                          clpk_life_fit_result *result) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!w) return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE fit: w is NULL");
    if (!plan->signal) return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE fit: the dataset has no signal");
    clpk_life_fit_options o = {.max_iterations = 500, .tolerance = 1e-6, .objective_every = 10};
    if (opts) o = *opts;
    if (o.max_iterations < 0 || !(o.tolerance >= 0) || o.objective_every < 0 || o.residual_every < 0)
        return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "LiFE fit: max_iterations %d, tolerance %g, objective_every %d or residual_every %d "
                         "out of range",
                         o.max_iterations, o.tolerance, o.objective_every, o.residual_every);
    for (int32_t i = 0; o.w_start && i < plan->n_fibers; ++i)
        if (!isfinite(o.w_start[i]))
            return core_fail(plan->ctx, CLPK_ERROR_INVALID_DATA, "LiFE fit: w_start[%d] is not finite", i);
    life_fit_buffers b;
    memset(&b, 0, sizeof b);
    clpk_status st = fit_run(plan, &o, &b, w, result);
    cl_mem all[] = {b.w, b.g, b.r, b.gt, b.ag, b.atag, b.scal, b.imax, b.clip, b.m_clip, b.stamp, b.wc_clip};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i]) clReleaseMemObject(all[i]);
    return st;
}
