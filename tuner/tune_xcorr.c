/* Tuner search space of the cross-correlation family: the algorithm (every direct variant that applies to the
 * pattern, and "fft" when the FFT path is built in, so the direct/FFT crossover is measured, not assumed) and the
 * parameters of each, with the values and conditions of the family's table (lib/xcorr/xcorr_params.c). Parameters an
 * algorithm does not read are pinned to their first value by `valid`, so each distinct plan appears once. The sweep
 * tests (test/test_xcorr_direct.c, _local, _fused, _shuffle) cover the table's values. */
#include "tune.h"

#include "clpk_xcorr.h"
#include "xcorr_direct.h"
#include "xcorr_fft.h"
#include "xcorr_fused.h"
#include "xcorr_params.h"
#include "xcorr_plan.h"
#include "xcorr_reference.h"
#include "xcorr_shuffle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct xcorr_problem {
    clpk_xcorr_shape shape;
    cl_mem left, right, out;
    size_t out_count;
    double *ref;
    clpk_xcorr_plan *plan; /* the plan being timed (bench callback) */
} xcorr_problem;

typedef struct problem_spec {
    clpk_xcorr_pattern pattern;
    int size, n_left, n_right;
} problem_spec;

/* The seed's evaluation grid, trimmed: sizes 16..128, counts from one pair to the saturated 4000. */
static const problem_spec full_specs[] = {
    {CLPK_XCORR_ONE_TO_ONE, 16, 1, 1},       {CLPK_XCORR_ONE_TO_ONE, 64, 1, 1},
    {CLPK_XCORR_ONE_TO_ONE, 16, 4000, 4000}, {CLPK_XCORR_ONE_TO_MANY, 16, 1, 4000},
    {CLPK_XCORR_ONE_TO_MANY, 32, 1, 1000},   {CLPK_XCORR_ONE_TO_MANY, 64, 1, 32},
    {CLPK_XCORR_ONE_TO_MANY, 128, 1, 8},     {CLPK_XCORR_N_TO_MN, 32, 4, 64},
    {CLPK_XCORR_N_TO_MN, 96, 8, 32},         {CLPK_XCORR_N_TO_M, 16, 32, 32},
    {CLPK_XCORR_N_TO_M, 64, 8, 8},
};
static const problem_spec quick_specs[] = {
    {CLPK_XCORR_ONE_TO_ONE, 8, 2, 2},
    {CLPK_XCORR_ONE_TO_MANY, 11, 1, 5},
    {CLPK_XCORR_N_TO_M, 9, 2, 3},
};

static int spec_count(const tune_options *opts) {
    return opts->quick ? (int)(sizeof quick_specs / sizeof quick_specs[0])
                       : (int)(sizeof full_specs / sizeof full_specs[0]);
}

static int precision_count(const tune_options *opts) { return opts->precision ? 1 : 2; }

static int problem_count(const tune_options *opts) { return spec_count(opts) * precision_count(opts); }

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void problem_destroy(tune_problem *problem) {
    xcorr_problem *p = problem->state;
    if (!p) return;
    if (p->left) clReleaseMemObject(p->left);
    if (p->right) clReleaseMemObject(p->right);
    if (p->out) clReleaseMemObject(p->out);
    free(p->ref);
    free(p);
    problem->state = NULL;
}

/* Uploads `n` doubles as the problem's precision. */
static clpk_status upload(clpk_context *ctx, const double *v, size_t n, clpk_precision precision, cl_mem *out) {
    const size_t elem = clpk_precision_size(precision);
    void *host = malloc(n * elem);
    if (!host) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr tuner: out of host memory");
    for (size_t i = 0; i < n; ++i) {
        if (precision == CLPK_PRECISION_F64)
            ((double *)host)[i] = v[i];
        else
            ((float *)host)[i] = (float)v[i];
    }
    cl_int rc = CL_SUCCESS;
    *out = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * elem, host, &rc);
    free(host);
    return rc == CL_SUCCESS ? CLPK_SUCCESS : core_fail_cl(ctx, rc, "clCreateBuffer(xcorr tuner input)");
}

static clpk_status problem_create(clpk_context *ctx, const tune_options *opts, int index, tune_problem *problem) {
    memset(problem, 0, sizeof *problem);
    const int specs = spec_count(opts);
    if (index < 0 || index >= problem_count(opts))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr tuner: no problem %d", index);
    const problem_spec *spec = opts->quick ? &quick_specs[index % specs] : &full_specs[index % specs];
    clpk_precision precision = CLPK_PRECISION_F32;
    if (opts->precision)
        CLPK_TRY(clpk_precision_parse(opts->precision, &precision));
    else if (index >= specs)
        precision = CLPK_PRECISION_F64;
    if (precision == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr tuner: the device has no f64");
    xcorr_problem *p = calloc(1, sizeof *p);
    if (!p) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr tuner: out of host memory");
    problem->state = p;
    p->shape = (clpk_xcorr_shape){spec->pattern, spec->size, spec->size, spec->n_left, spec->n_right, 0, 0, precision};
    const size_t mat = (size_t)spec->size * spec->size;
    const size_t nl = mat * spec->n_left, nr = mat * spec->n_right;
    p->out_count = clpk_xcorr_output_count(&p->shape) * (size_t)clpk_xcorr_output_rows(&p->shape) *
                   (size_t)clpk_xcorr_output_cols(&p->shape);
    double *l = malloc(nl * sizeof *l), *r = malloc(nr * sizeof *r);
    p->ref = malloc(p->out_count * sizeof *p->ref);
    clpk_status st = l && r && p->ref ? CLPK_SUCCESS : core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr tuner: memory");
    if (st == CLPK_SUCCESS) {
        uint64_t rng = opts->seed ^ (0x5851f42d4c957f2dull * (uint64_t)(index + 1));
        for (size_t i = 0; i < nl; ++i)
            l[i] = (double)(splitmix(&rng) >> 11) * 0x1p-52 - 1.0;
        for (size_t i = 0; i < nr; ++i)
            r[i] = (double)(splitmix(&rng) >> 11) * 0x1p-52 - 1.0;
        xcorr_reference(&p->shape, l, r, p->ref);
        st = upload(ctx, l, nl, precision, &p->left);
    }
    if (st == CLPK_SUCCESS) st = upload(ctx, r, nr, precision, &p->right);
    if (st == CLPK_SUCCESS) {
        cl_int rc = CL_SUCCESS;
        p->out = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE,
                                p->out_count * clpk_precision_size(precision), NULL, &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer(xcorr tuner output)");
    }
    free(l);
    free(r);
    if (st != CLPK_SUCCESS) {
        problem_destroy(problem);
        return st;
    }
    snprintf(problem->label, sizeof problem->label, "%s %dx%d %d/%d %s", clpk_xcorr_pattern_name(spec->pattern),
             spec->size, spec->size, spec->n_left, spec->n_right, clpk_precision_name(precision));
    xcorr_features(&p->shape, &problem->klass);
    return CLPK_SUCCESS;
}

static int fft_available(clpk_context *ctx, const clpk_xcorr_shape *shape) {
    xcorr_fft *fft = NULL;
    if (xcorr_fft_create(ctx, shape, NULL, &fft) != CLPK_SUCCESS) return 0;
    xcorr_fft_destroy(fft);
    return 1;
}

/* Whether the table's parameter `key` applies to the candidate's algorithm (its condition holds). */
static int reads(const core_params *candidate, const char *key) {
    const core_param_def *d = core_param_find(&xcorr_param_table, key);
    return d && strcmp(key, "algorithm") != 0 && core_param_active(d, candidate);
}

/* The first value the table searches for `key` (where parameters an algorithm does not read sit), or NULL. */
static const char *first_value(const char *key, char *buf, size_t size) {
    const core_param_def *d = core_param_find(&xcorr_param_table, key);
    if (!d || !d->search) return NULL;
    snprintf(buf, size, "%.*s", (int)strcspn(d->search, "|"), d->search);
    return buf;
}

static clpk_status space(clpk_context *ctx, const tune_problem *problem, tune_space *sp) {
    const xcorr_problem *p = problem->state;
    /* the table's algorithms, less those that cannot serve this problem here */
    const core_param_def *algorithm = core_param_find(&xcorr_param_table, "algorithm");
    char algos[256] = "";
    size_t used = 0;
    for (const char *at = algorithm->search; at && *at;) {
        const size_t len = strcspn(at, "|");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)len, at);
        at = at[len] ? at + len + 1 : NULL;
        const int a = xcorr_algorithm_of(name);
        if (a == XCORR_MULTI_RIGHT && p->shape.pattern == CLPK_XCORR_ONE_TO_ONE) continue;
        if (a == XCORR_MULTI_BOTH && p->shape.pattern != CLPK_XCORR_N_TO_M) continue;
        if (a == XCORR_FFT && !fft_available(ctx, &p->shape)) continue;
        /* fused-fft: every pattern, where one FFT line per work-group fits local memory (valid() checks each
         * rows). */
        if (a == XCORR_FUSED_FFT && !xcorr_fused_fits(ctx, &p->shape, 1, 1)) continue;
        /* local: only where both matrices fit the device's local memory. */
        if (a == XCORR_LOCAL && xcorr_local_bytes(&p->shape) > clpk_context_device_info(ctx)->local_mem_bytes) continue;
        used += (size_t)snprintf(algos + used, sizeof algos - used, "%s%s", used ? "|" : "", name);
    }
    memset(sp, 0, sizeof *sp);
    CLPK_TRY(tune_space_add_param(sp, &xcorr_param_table, "algorithm", algos));
    /* The other searched rows in table order, each with its condition on the algorithm: the listing of valid points
     * then walks a few thousand combinations instead of the whole product (2.5 M on GPUs, where shuffle has two
     * values). shift-buffer's shuffle form is only offered where the device has a sub-group (warp) shuffle. */
    for (int i = 0; i < xcorr_param_table.count; ++i) {
        const core_param_def *d = &xcorr_param_table.defs[i];
        if (d == algorithm || !d->search) continue;
        const int no_shuffle = strcmp(d->name, "shuffle") == 0 && xcorr_shuffle_kind_of(ctx) == CLPK_XCORR_SHUFFLE_NONE;
        CLPK_TRY(tune_space_add_param(sp, &xcorr_param_table, d->name, no_shuffle ? "local" : NULL));
    }
    return CLPK_SUCCESS;
}

static int valid(clpk_context *ctx, const tune_problem *problem, const core_params *c) {
    const xcorr_problem *p = problem->state;
    const char *algo = core_params_get(c, "algorithm");
    if (!algo) return 0;
    /* One point per distinct plan: parameters the algorithm ignores sit at their first value. */
    for (int i = 0; i < c->count; ++i) {
        const char *key = c->items[i].key;
        char first[32];
        if (strcmp(key, "algorithm") == 0 || reads(c, key)) continue;
        const char *value = first_value(key, first, sizeof first);
        if (value && strcmp(c->items[i].value, value) != 0) return 0;
    }
    const int wg = (int)core_params_get_int(c, "wg", 64);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (reads(c, "wg") && (size_t)wg > dev->max_work_group_size) return 0;
    if (strcmp(algo, "naive") == 0 || strcmp(algo, "split-row") == 0) return wg >= 64;
    if (strcmp(algo, "fused-fft") == 0) {
        /* rows = FFT lines per work-group {1,2,4,8,16}, wg {64,128,256} (test_xcorr_fused runs every point), fft_pad
         * both; the lines must fit local memory (pow2 pads at least as much as smooth). */
        const char *pad = core_params_get(c, "fft_pad");
        const int lines = (int)core_params_get_int(c, "rows", 1);
        return wg >= 64 && xcorr_fused_fits(ctx, &p->shape, lines, pad && strcmp(pad, "pow2") == 0);
    }
    if (strcmp(algo, "shift-buffer") == 0) {
        /* Teams much wider than an output row only add idle lanes. */
        const int team = (int)core_params_get_int(c, "team", 32);
        /* The shuffle form only where the device offers a team-wide sub-group (warp) shuffle: never on PoCL. */
        const char *shuffle = core_params_get(c, "shuffle");
        if (shuffle && strcmp(shuffle, "subgroup") == 0 && !xcorr_shuffle_team_possible(ctx, team)) return 0;
        return (size_t)team <= dev->max_work_group_size && team <= 2 * clpk_xcorr_output_cols(&p->shape) + 8;
    }
    const int shifts = (int)core_params_get_int(c, "shifts", 1), rows = (int)core_params_get_int(c, "rows", 1);
    /* 16 row shifts a work-item is fused-fft's value (16 FFT lines, the f32 defaults' at 2048 values a group) */
    if (rows > 8) return 0;
    const int lefts = (int)core_params_get_int(c, "lefts", 1), rights = (int)core_params_get_int(c, "rights", 1);
    /* Register pressure: at most 32 accumulators (and as many partial sums) per work-item. */
    if (shifts * rows * lefts * rights > 32) return 0;
    if (strcmp(algo, "local") == 0) {
        /* Both matrices in local memory (space() already drops shapes that do not fit); blocks of rows {1,2,4} x
         * shifts {1,2,4,8}; 32-item groups leave too few warps per matrix copy. */
        const size_t need = xcorr_local_bytes(&p->shape);
        return wg >= 64 && rows <= 4 && lefts == 1 && rights == 1 && need > 0 && need <= dev->local_mem_bytes;
    }
    /* grouped: one pair per work-item; multi-right: several rights of one left (lefts = 1). */
    if (strcmp(algo, "grouped") == 0) return wg >= 64 && lefts == 1 && rights == 1;
    if (strcmp(algo, "multi-right") == 0)
        return wg >= 64 && lefts == 1 && rights > 1 && shifts <= 4 && rows <= 4 &&
               p->shape.pattern != CLPK_XCORR_ONE_TO_ONE;
    if (strcmp(algo, "multi-both") == 0)
        return wg >= 64 && lefts > 1 && rights > 1 && rights <= 4 && shifts <= 4 && rows <= 2 &&
               p->shape.pattern == CLPK_XCORR_N_TO_M;
    if (strcmp(algo, "warp-per-overlap") == 0) {
        /* One group per output element: only for small outputs. */
        return p->out_count <= (1u << 20);
    }
    return 1; /* fft */
}

static clpk_status launch_plan(void *user, cl_event *first, cl_event *last) {
    xcorr_problem *p = user;
    return xcorr_execute_timed(p->plan, p->left, 0, p->right, 0, p->out, 0, first, last);
}

static clpk_status evaluate(clpk_context *ctx, tune_problem *problem, const core_params *candidate, int repeats,
                            double *median_ms) {
    xcorr_problem *p = problem->state;
    const char *algo = core_params_get(candidate, "algorithm");
    if (!algo) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr tuner: candidate without an algorithm");
    core_params own;
    core_params_clear(&own);
    for (int i = 0; i < candidate->count; ++i)
        if (reads(candidate, candidate->items[i].key))
            core_params_set(&own, candidate->items[i].key, candidate->items[i].value);
    char text[512];
    core_params_format(&own, text, sizeof text);
    CLPK_TRY(clpk_xcorr_plan_create(ctx, &p->shape, algo, text, &p->plan));
    const size_t elem = clpk_precision_size(p->shape.precision);
    cl_command_queue q = clpk_context_queue(ctx);
    const double nan_d = NAN;
    const float nan_f = NAN;
    clpk_status st = CLPK_SUCCESS;
    cl_int rc = clEnqueueFillBuffer(q, p->out, elem == 8 ? (const void *)&nan_d : (const void *)&nan_f, elem, 0,
                                    p->out_count * elem, 0, NULL, NULL);
    if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueFillBuffer(xcorr tuner poison)");
    if (st == CLPK_SUCCESS) st = clpk_xcorr_execute(p->plan, p->left, 0, p->right, 0, p->out, 0, 0, NULL, NULL);
    double *got = st == CLPK_SUCCESS ? malloc(p->out_count * sizeof *got) : NULL;
    void *raw = st == CLPK_SUCCESS ? malloc(p->out_count * elem) : NULL;
    if (st == CLPK_SUCCESS && (!got || !raw)) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr tuner: memory");
    if (st == CLPK_SUCCESS) {
        rc = clEnqueueReadBuffer(q, p->out, CL_TRUE, 0, p->out_count * elem, raw, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueReadBuffer(xcorr tuner)");
    }
    if (st == CLPK_SUCCESS) {
        double err = 0, scale = 0;
        for (size_t i = 0; i < p->out_count; ++i) {
            got[i] = elem == 8 ? ((double *)raw)[i] : (double)((float *)raw)[i];
            const double d = fabs(got[i] - p->ref[i]);
            err = isnan(d) || d > err ? (isnan(d) ? INFINITY : d) : err;
            scale = fmax(scale, fabs(p->ref[i]));
        }
        const double rel = scale > 0 ? err / scale : err, tol = elem == 8 ? 1e-12 : 1e-5;
        if (!(rel <= tol))
            st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "xcorr tuner: %s {%s} on %s: relative error %.3g > %.1g", algo,
                           text, problem->label, rel, tol);
    }
    free(got);
    free(raw);
    if (st == CLPK_SUCCESS) {
        clpk_bench_stats stats;
        st = clpk_bench_run(ctx, launch_plan, p, 2, repeats > 0 ? repeats : 1, 0, 0, &stats);
        if (st == CLPK_SUCCESS) *median_ms = stats.median_ms;
    }
    clpk_xcorr_plan_destroy(p->plan);
    p->plan = NULL;
    return st;
}

static void defaults(clpk_context *ctx, const tune_problem *problem, core_params *out) {
    const xcorr_problem *p = problem->state;
    core_params_clear(out);
    xcorr_builtin_params(ctx, &p->shape, out);
}

const tune_family tune_family_xcorr = {
    .name = "xcorr",
    .problem_count = problem_count,
    .problem_create = problem_create,
    .problem_destroy = problem_destroy,
    .space = space,
    .valid = valid,
    .evaluate = evaluate,
    .defaults = defaults,
    .prebuild_safe = 1, /* every algorithm's plan requests a program (fft: its pack kernels) before running */
    /* 22 cheap problems: 100 s of an H100 completed 20 of their 22 searches. */
    .budget_weight = 0.25,
};
