/* Tuner search space of the SS-HOPM family. Class: (order, dim, precision). Parameters: kernel (generated per (m, n)
 * or general), where the entries live (private registers, local memory, global memory), work-group size, and the
 * iterations between convergence checks. Each candidate is checked, then timed, through the public plan path on
 * NaN-poisoned outputs: the check runs a fixed number of bound-shift iterations and compares a sample of starts with
 * the double-precision reference start by start; the timing runs to convergence with the library's default options
 * (adaptive shift, tolerance, max_iter), as users run it, after a check that its sampled converged starts are
 * eigenpairs. A fixed number of iterations would hide what check_every costs: a start stops only at the end of its
 * block, and a work-group waits for its slowest start (docs/perf-sshopm.md, "Session 15"). */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TUNE_ITERATIONS 48 /* divisible by every check_every candidate */
#define TUNE_SAMPLE 192    /* (tensor, start) pairs checked against the reference */

typedef struct tune_state {
    int m, n, U, V;
    int64_t T;
    clpk_precision precision;
    double *tensors;             /* T x U */
    double *starts;              /* V x n, the plan's shared starts */
    int samples;                 /* pairs checked: fewer for large tensors, whose reference is slow */
    int64_t sample[TUNE_SAMPLE]; /* global (tensor, start) indices */
    double ref_lambda[TUNE_SAMPLE];
    double ref_x[TUNE_SAMPLE][SSHOPM_MAX_DIM];
    double frob[TUNE_SAMPLE]; /* ||A||_F of each sampled start's tensor */
    sshopm_index idx;
    cl_mem b_tensors, b_lambda, b_x, b_info;
} tune_state;

typedef struct shape {
    int m, n;
} shape;
static const shape shapes[] = {{4, 3}, {3, 3}, {6, 3}, {8, 3}, {4, 4}, {4, 6}, {6, 4}, {3, 6}, {8, 8}};
#define SHAPE_COUNT ((int)(sizeof shapes / sizeof shapes[0]))

static int precisions(const tune_options *o, clpk_precision *out) {
    if (o->precision && !strcmp(o->precision, "f64")) {
        out[0] = CLPK_PRECISION_F64;
        return 1;
    }
    out[0] = CLPK_PRECISION_F32;
    if (o->precision && !strcmp(o->precision, "f32")) return 1;
    out[1] = CLPK_PRECISION_F64;
    return 2;
}

static int problem_count(const tune_options *o) {
    clpk_precision p[2];
    int np = precisions(o, p);
    return o->quick ? np : SHAPE_COUNT * np;
}

static void problem_destroy(tune_problem *problem) {
    tune_state *s = problem->state;
    if (!s) return;
    cl_mem bufs[] = {s->b_tensors, s->b_lambda, s->b_x, s->b_info};
    for (int i = 0; i < 4; ++i)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    free(s->tensors);
    free(s->starts);
    sshopm_index_free(&s->idx);
    free(s);
    problem->state = NULL;
}

static uint64_t mix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static clpk_status problem_create(clpk_context *ctx, const tune_options *o, int index, tune_problem *problem) {
    memset(problem, 0, sizeof *problem);
    clpk_precision p[2];
    int np = precisions(o, p);
    const shape sh = shapes[o->quick ? 0 : index / np];
    const clpk_precision prec = p[index % np];
    if (prec == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "sshopm tune: no fp64 on this device");
    tune_state *s = calloc(1, sizeof *s);
    if (!s) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    problem->state = s;
    s->m = sh.m;
    s->n = sh.n;
    s->U = sshopm_unique_count(sh.m, sh.n);
    s->V = 128;
    s->precision = prec;
    /* Enough work to fill the device: 2^15 (tensor, start) pairs per compute unit, at most 2^22 (an H100's 132 units
     * get the 2^22 a GPU needs; a 2-core CPU gets 2^16, where 2^22 took 6 s per run on PoCL and ran past the
     * candidate limit). A token size for quick runs. */
    int64_t pairs = (int64_t)clpk_context_device_info(ctx)->compute_units << 15;
    if (pairs <= 0 || pairs > (1 << 22)) pairs = 1 << 22;
    /* The general kernel's cost per pair and iteration grows as n^(m-1) (it walks the whole expansion): on the H100
     * (8,8) with 4096 tensors took 2.4 s per run, past the tuner's candidate limit once repeated. Keep a run near
     * (8,3)'s at 4 x 2^15 tensors (2 ms there): (8,8) gets 136 tensors. */
    double terms = pow((double)sh.n, (double)(sh.m - 1));
    int64_t cap = (int64_t)(4.0 * 32768.0 * 2187.0 / terms);
    s->T = o->quick ? 48 : pairs / s->V / (s->U > 100 ? 8 : 1);
    if (!o->quick && s->T > cap) s->T = cap > 16 ? cap : 16;
    s->tensors = malloc((size_t)s->T * s->U * sizeof *s->tensors);
    s->starts = malloc((size_t)s->V * s->n * sizeof *s->starts);
    if (!s->tensors || !s->starts) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    uint64_t rng = o->seed * 0x2545f4914f6cdd1dull + (uint64_t)index;
    for (int64_t i = 0; i < s->T * s->U; ++i)
        s->tensors[i] = (double)(mix(&rng) >> 11) * (2.0 / 9007199254740992.0) - 1;
    clpk_error err = {0};
    if (sshopm_make_starts(s->n, s->V, CLPK_SSHOPM_STARTS_SHARED, 1, s->starts, &err) != CLPK_SUCCESS)
        return core_fail_from(ctx, &err);
    if (sshopm_index_build(s->m, s->n, &s->idx, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    /* The host reference costs about U per iteration: (8,8)'s 6435 unique entries took 10 s for 192 pairs. Keep
     * the work of 192 pairs of 126 entries, at least 32 pairs (the first 16 and 16 spread over the batch). */
    s->samples = (int)(TUNE_SAMPLE * 126 / (s->U > 126 ? s->U : 126));
    if (s->samples < 32) s->samples = 32;
    for (int k = 0; k < s->samples; ++k) {
        int64_t g = k < 16 ? k : (int64_t)(mix(&rng) % (uint64_t)(s->T * s->V));
        s->sample[k] = g;
        double x[SSHOPM_MAX_DIM];
        memcpy(x, s->starts + (g % s->V) * s->n, (size_t)s->n * sizeof *x);
        int its;
        sshopm_ref_run(&s->idx, s->tensors + (g / s->V) * s->U, x, 1, CLPK_SSHOPM_SHIFT_BOUND, 0, 0, 0, TUNE_ITERATIONS,
                       1, &s->ref_lambda[k], &its);
        memcpy(s->ref_x[k], x, sizeof x);
        s->frob[k] = sshopm_ref_frobenius(&s->idx, s->tensors + (g / s->V) * s->U);
    }
    const size_t vs = clpk_precision_size(prec);
    void *host = malloc((size_t)s->T * s->U * vs);
    if (!host) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    for (int64_t i = 0; i < s->T * s->U; ++i) {
        if (vs == 8)
            ((double *)host)[i] = s->tensors[i];
        else
            ((float *)host)[i] = (float)s->tensors[i];
    }
    cl_context cc = clpk_context_cl_context(ctx);
    cl_int rc;
    s->b_tensors = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)s->T * s->U * vs, host, &rc);
    free(host);
    if (rc == CL_SUCCESS) s->b_lambda = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)s->T * s->V * vs, NULL, &rc);
    if (rc == CL_SUCCESS) s->b_x = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)s->T * s->V * s->n * vs, NULL, &rc);
    if (rc == CL_SUCCESS) s->b_info = clCreateBuffer(cc, CL_MEM_READ_WRITE, (size_t)s->T * s->V * 4, NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clCreateBuffer (sshopm tune)");
    snprintf(problem->label, sizeof problem->label, "(%d,%d) %s %lld tensors x %d starts", s->m, s->n,
             clpk_precision_name(prec), (long long)s->T, s->V);
    core_params_clear(&problem->klass);
    core_params_set_int(&problem->klass, "order", s->m);
    core_params_set_int(&problem->klass, "dim", s->n);
    core_params_set(&problem->klass, "precision", clpk_precision_name(prec));
    return CLPK_SUCCESS;
}

static clpk_status space(clpk_context *ctx, const tune_problem *problem, tune_space *sp) {
    const tune_state *s = problem->state;
    memset(sp, 0, sizeof *sp);
    sshopm_config defaults;
    sshopm_config_defaults(clpk_context_device_info(ctx)->kind, &defaults);
    /* Generated kernels are candidates where test_sshopm_sweep checks them (the default unroll limit, 1536 FMAs per
     * gradient); beyond that they are tested only for (8,5) and take long to compile. */
    const int unrolled = sshopm_unrolled_terms(s->m, s->n) <= defaults.unroll_max;
    CLPK_TRY(tune_space_add_param(sp, &sshopm_param_table, "kernel", unrolled ? NULL : "general"));
    CLPK_TRY(tune_space_add_param(sp, &sshopm_param_table, "entries", NULL));
    CLPK_TRY(tune_space_add_param(sp, &sshopm_param_table, "wg", NULL));
    CLPK_TRY(tune_space_add_param(sp, &sshopm_param_table, "check_every", NULL));
    return CLPK_SUCCESS;
}

static int valid(clpk_context *ctx, const tune_problem *problem, const core_params *c) {
    const tune_state *s = problem->state;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const char *kernel = core_params_get(c, "kernel"), *entries = core_params_get(c, "entries");
    long long wg = core_params_get_int(c, "wg", 128);
    if (!kernel || !entries || wg < 1 || (size_t)wg > dev->max_work_group_size) return 0;
    if (!strcmp(entries, "private") && (strcmp(kernel, "generated") || sshopm_unrolled_terms(s->m, s->n) > 256))
        return 0;
    if (!strcmp(entries, "local")) {
        uint64_t bytes = (uint64_t)((wg - 1) / s->V + 2) * s->U * clpk_precision_size(s->precision);
        if (bytes > dev->local_mem_bytes) return 0;
    }
    return 1;
}

typedef struct tune_launch {
    clpk_sshopm_plan *plan;
    tune_state *s;
} tune_launch;

static clpk_status tune_launch_once(void *user, cl_event *first, cl_event *last) {
    tune_launch *l = user;
    clpk_status st = clpk_sshopm_execute(l->plan, l->s->T, l->s->b_tensors, 1, l->s->b_lambda, l->s->b_x, l->s->b_info,
                                         0, NULL, first);
    *last = *first;
    return st;
}

static clpk_status poison_outputs(clpk_context *ctx, const tune_state *s) {
    const size_t vs = clpk_precision_size(s->precision), nl = (size_t)s->T * s->V;
    cl_command_queue q = clpk_context_queue(ctx);
    const double nan_d = NAN;
    const float nan_f = NAN;
    const cl_int poison = -1;
    const void *nan_v = vs == 8 ? (const void *)&nan_d : (const void *)&nan_f;
    cl_int rc = clEnqueueFillBuffer(q, s->b_lambda, nan_v, vs, 0, nl * vs, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clEnqueueFillBuffer(q, s->b_x, nan_v, vs, 0, nl * s->n * vs, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clEnqueueFillBuffer(q, s->b_info, &poison, sizeof poison, 0, nl * 4, 0, NULL, NULL);
    return rc == CL_SUCCESS ? CLPK_SUCCESS : core_fail(ctx, CLPK_ERROR_OPENCL, "sshopm tune: poison failed");
}

/* lambda, x and info of start g, read back in double */
static clpk_status read_start(clpk_context *ctx, const tune_state *s, int64_t g, double *lambda, double *x,
                              cl_int *info) {
    cl_command_queue q = clpk_context_queue(ctx);
    const size_t vs = clpk_precision_size(s->precision);
    double ld, xd[SSHOPM_MAX_DIM];
    float lf, xf[SSHOPM_MAX_DIM];
    cl_int rc = clEnqueueReadBuffer(q, s->b_lambda, CL_FALSE, (size_t)g * vs, vs, vs == 8 ? (void *)&ld : (void *)&lf,
                                    0, NULL, NULL);
    if (rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(q, s->b_x, CL_FALSE, (size_t)g * s->n * vs, (size_t)s->n * vs,
                                 vs == 8 ? (void *)xd : (void *)xf, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clEnqueueReadBuffer(q, s->b_info, CL_TRUE, (size_t)g * 4, 4, info, 0, NULL, NULL);
    if (rc != CL_SUCCESS) return core_fail(ctx, CLPK_ERROR_OPENCL, "sshopm tune: read-back failed");
    *lambda = vs == 8 ? ld : lf;
    for (int i = 0; i < s->n; ++i)
        x[i] = vs == 8 ? xd[i] : xf[i];
    return CLPK_SUCCESS;
}

/* The candidate's time to convergence with the default options on the problem's tensors. Its sampled starts must
 * come back written, not failed, and, where converged, as eigenpairs of their tensors: lambda = A x^m and
 * |A x^(m-1) - lambda x| small, computed here in double (x at a flat extremum is only known to about sqrt(tol), so
 * the residual bound is loose in f32). */
static clpk_status time_to_convergence(clpk_context *ctx, tune_problem *problem, const char *params, int repeats,
                                       double *median_ms) {
    tune_state *s = problem->state;
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = s->V;
    o.seed = 1;
    o.params = params;
    clpk_sshopm_plan *plan = NULL;
    CLPK_TRY(clpk_sshopm_plan_create(ctx, s->m, s->n, s->precision, s->T, &o, &plan));
    clpk_status st = poison_outputs(ctx, s);
    if (st == CLPK_SUCCESS)
        st = clpk_sshopm_execute(plan, s->T, s->b_tensors, 1, s->b_lambda, s->b_x, s->b_info, 0, NULL, NULL);
    const int f64 = s->precision == CLPK_PRECISION_F64;
    for (int k = 0; st == CLPK_SUCCESS && k < s->samples; ++k) {
        const int64_t g = s->sample[k];
        double lam, x[SSHOPM_MAX_DIM], y[SSHOPM_MAX_DIM];
        cl_int info;
        st = read_start(ctx, s, g, &lam, x, &info);
        if (st != CLPK_SUCCESS) break;
        const int status = info < 0 ? -1 : CLPK_SSHOPM_INFO_STATUS(info);
        double lam_ref = NAN, residual = NAN;
        if (status == CLPK_SSHOPM_CONVERGED) {
            lam_ref = sshopm_ref_gradient(&s->idx, s->tensors + (g / s->V) * s->U, x, y);
            residual = 0;
            for (int i = 0; i < s->n; ++i)
                residual += (y[i] - lam_ref * x[i]) * (y[i] - lam_ref * x[i]);
            residual = sqrt(residual);
        }
        const double scale = fmax(1.0, s->frob[k]);
        const int ok = status == CLPK_SSHOPM_CAPPED ||
                       (status == CLPK_SSHOPM_CONVERGED && fabs(lam - lam_ref) <= (f64 ? 1e-9 : 1e-4) * scale &&
                        residual <= (f64 ? 1e-4 : 5e-2) * scale);
        if (!ok)
            st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT,
                           "sshopm tune %s [%s], to convergence: start %lld: info %d, lambda %.9g (A x^m %.9g), "
                           "residual %.3g",
                           problem->label, params, (long long)g, info, lam, lam_ref, residual);
    }
    if (st == CLPK_SUCCESS) {
        tune_launch ls = {plan, s};
        clpk_bench_stats stats;
        st = clpk_bench_run(ctx, tune_launch_once, &ls, 1, repeats < 1 ? 1 : repeats, 0, 0, &stats);
        if (st == CLPK_SUCCESS) *median_ms = stats.median_ms;
    }
    clpk_sshopm_plan_destroy(plan);
    return st;
}

static clpk_status evaluate(clpk_context *ctx, tune_problem *problem, const core_params *candidate, int repeats,
                            double *median_ms) {
    tune_state *s = problem->state;
    char params[256];
    core_params_format(candidate, params, sizeof params);
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = s->V;
    o.seed = 1;
    /* the check: a fixed number of bound-shift iterations, as the reference sample ran */
    o.max_iter = TUNE_ITERATIONS;
    o.tol = 1e-300;
    o.shift = CLPK_SSHOPM_SHIFT_BOUND;
    o.params = params;
    clpk_sshopm_plan *plan = NULL;
    CLPK_TRY(clpk_sshopm_plan_create(ctx, s->m, s->n, s->precision, s->T, &o, &plan));
    const int f64 = s->precision == CLPK_PRECISION_F64;
    clpk_status st = poison_outputs(ctx, s);
    if (st == CLPK_SUCCESS)
        st = clpk_sshopm_execute(plan, s->T, s->b_tensors, 1, s->b_lambda, s->b_x, s->b_info, 0, NULL, NULL);
    /* check the sample and that nothing was left unwritten at its positions */
    for (int k = 0; st == CLPK_SUCCESS && k < s->samples; ++k) {
        const int64_t g = s->sample[k];
        double lam, x[SSHOPM_MAX_DIM];
        cl_int info;
        st = read_start(ctx, s, g, &lam, x, &info);
        if (st != CLPK_SUCCESS) break;
        double dx = 0;
        for (int i = 0; i < s->n; ++i)
            dx = fmax(dx, fabs(x[i] - s->ref_x[k][i]));
        const double tol = f64 ? 1e-9 : 2e-3;
        const double scale = fmax(1.0, fabs(s->ref_lambda[k]));
        if (info == -1 || !(fabs(lam - s->ref_lambda[k]) <= tol * scale) || !(dx <= tol * 10))
            st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT,
                           "sshopm tune %s [%s]: start %lld: lambda %.9g vs reference %.9g, max |dx| %.3g, info %d",
                           problem->label, params, (long long)g, lam, s->ref_lambda[k], dx, info);
    }
    clpk_sshopm_plan_destroy(plan);
    if (st == CLPK_SUCCESS) st = time_to_convergence(ctx, problem, params, repeats, median_ms);
    return st;
}

/* What the plan picks without a profile (the table's defaults, auto decided as sshopm_plan.c does). */
static void defaults(clpk_context *ctx, const tune_problem *problem, core_params *out) {
    const tune_state *s = problem->state;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    sshopm_config d;
    sshopm_config_defaults(dev->kind, &d);
    const int64_t terms = sshopm_unrolled_terms(s->m, s->n);
    const int generated = terms <= d.unroll_max;
    const uint64_t local = (uint64_t)((d.wg - 1) / s->V + 2) * s->U * clpk_precision_size(s->precision);
    core_params_clear(out);
    core_params_set(out, "kernel", generated ? "generated" : "general");
    core_params_set(out, "entries",
                    generated && terms <= d.private_max ? "private"
                    : local <= dev->local_mem_bytes     ? "local"
                                                        : "global");
    core_params_set_int(out, "wg", d.wg);
    core_params_set_int(out, "check_every", d.check_every);
}

const tune_family tune_family_sshopm = {
    .name = "sshopm",
    .problem_count = problem_count,
    .problem_create = problem_create,
    .problem_destroy = problem_destroy,
    .space = space,
    .valid = valid,
    .evaluate = evaluate,
    .defaults = defaults,
    .prebuild_safe = 1, /* the plan builds before it runs */
    /* 18 problems, the (8,8) ones 0.3 s an evaluation: a share per problem gave it 250 s of a 540 s H100 run (613
     * points) and starved the other families. */
    .budget_weight = 0.2,
};
