/* Tuner space of the LiFE family: the parameters its table searches (lib/life/life_params.c: the DSC and WC kernels,
 * their team widths, runs per work-group and unrolling, the atomics kernels' work-group size, the processing orders
 * of the voxel and fibre runs, the dictionary's storage). Problems are ENCODE-style synthetic tractograms
 * (clpk_life_synth: spatially coherent bundles) at >= 1/8 of the seed's DS1, classed by precision, n_theta and the
 * mean voxel and fibre run lengths (the features plan creation resolves its profile entry by); docs/tuning.md,
 * "Training sets", says why these. The time of a candidate is one DSC plus one WC (what an SBB-NNLS iteration spends,
 * up to the 2:1.5 ratio). */
#include "life_internal.h"
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct life_tune_state {
    clpk_life_dataset data;
    clpk_precision precision;
    double *w, *y, *y_ref, *w_ref;
    cl_mem bw, by, bout_y, bout_w;
    /* f32 only, for dict=half points: the references with D rounded to half, and a fit's iterate with full storage
     * and its objective in double (the accuracy contract, LIFE_HALF_OBJECTIVE_TOL) */
    double *y_ref_half, *w_ref_half, *w_fit, fit_objective;
} life_tune_state;

/* SBB-NNLS steps to the iterate at which dict=half's objective is compared: on the synthetic problems measured, the
 * change there is close to the change at convergence (docs/perf-life.md, "Half-precision dictionary"). */
#define LIFE_TUNE_FIT_ITERATIONS 100

typedef struct life_tune_shape {
    const char *label;
    int grid[3], n_fibers, nodes_per_fiber, n_theta, n_atoms;
} life_tune_shape;

/* DS1 (clpk_life_synth "ds1"): 57.2 M coefficients, 186.6 k voxels, 500 k fibres, 129,241 atoms, n_theta 96, mean
 * runs 306 per voxel and 114 per fibre. The problems keep what decides the kernels' speed there at an eighth of the
 * work: the run lengths (a DS1 grid and tract density scaled by 1/2 per axis), the dictionary larger than any L2 in
 * f64 (99 MB), coefficients and y streamed from DRAM; and a whole-brain shape as encoded from real data (dipy's
 * 360-atom dictionary, 64 directions, many voxels with short runs). */
static const life_tune_shape life_shapes[] = {
    {"nt96 DS1/8", {34, 34, 26}, 70000, 170, 96, 129241},     /* 7.46 M coeffs, runs 303 / 107 */
    {"nt64 whole-brain", {64, 64, 48}, 128000, 110, 64, 360}, /* 7.3 M coeffs, runs 45 / 58 */
};
static const life_tune_shape life_shapes_quick[] = {
    {"nt96 quick", {10, 8, 6}, 160, 40, 96, 360}, /* 2.5 k coeffs, runs 26 / 15 */
};

static clpk_status life_synth_shape(const life_tune_shape *shape, int n_theta, uint64_t seed, clpk_life_dataset *out,
                                    clpk_error *err) {
    clpk_life_synth_options o;
    CLPK_TRY(clpk_life_synth_defaults("tiny", &o)); /* b-value, SNR and zero weights as every synth class */
    memcpy(o.grid, shape->grid, sizeof o.grid);
    o.n_fibers = shape->n_fibers;
    o.nodes_per_fiber = shape->nodes_per_fiber;
    o.n_theta = n_theta;
    o.n_atoms = shape->n_atoms;
    o.seed = seed;
    return clpk_life_synth(&o, out, NULL, err);
}

static int life_problem_count(const tune_options *opts) {
    int shapes = opts->quick ? 1 : (int)(sizeof life_shapes / sizeof life_shapes[0]);
    int precisions = opts->precision ? 1 : 2;
    return shapes * precisions;
}

static void life_problem_destroy(tune_problem *problem) {
    life_tune_state *s = problem->state;
    if (!s) return;
    cl_mem mems[] = {s->bw, s->by, s->bout_y, s->bout_w};
    for (int i = 0; i < 4; ++i)
        if (mems[i]) clReleaseMemObject(mems[i]);
    clpk_life_dataset_free(&s->data);
    free(s->w), free(s->y), free(s->y_ref), free(s->w_ref);
    free(s->y_ref_half), free(s->w_ref_half), free(s->w_fit);
    free(s);
    problem->state = NULL;
}

static clpk_status life_upload_host(clpk_context *ctx, const double *src, size_t n, clpk_precision p, cl_mem *out) {
    const size_t vs = clpk_precision_size(p);
    void *tmp = malloc(n * vs);
    if (!tmp) return CLPK_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; ++i) {
        if (vs == 4) ((float *)tmp)[i] = (float)src[i];
        else ((double *)tmp)[i] = src[i];
    }
    cl_int rc;
    *out = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * vs, tmp, &rc);
    free(tmp);
    return rc == CL_SUCCESS ? CLPK_SUCCESS : core_fail_cl(ctx, rc, "clCreateBuffer (tune)");
}

/* What dict=half points are checked against (f32 problems): the products with D rounded to half, and a fit's iterate
 * (full storage, LIFE_TUNE_FIT_ITERATIONS steps from 0) with its objective in double. */
static clpk_status life_prepare_half(clpk_context *ctx, life_tune_state *s) {
    const size_t ny = (size_t)s->data.n_voxels * s->data.n_theta, nw = (size_t)s->data.n_fibers;
    clpk_life_dataset rounded = s->data;
    rounded.dictionary = life_half_dictionary(&s->data);
    s->y_ref_half = malloc(ny * sizeof(double));
    s->w_ref_half = malloc(nw * sizeof(double));
    s->w_fit = calloc(nw > 0 ? nw : 1, sizeof(double));
    if (!rounded.dictionary || !s->y_ref_half || !s->w_ref_half || !s->w_fit) {
        free(rounded.dictionary);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE tune: no host memory for the half references");
    }
    life_ref_dsc(&rounded, s->w, s->y_ref_half);
    life_ref_wc(&rounded, s->y, s->w_ref_half);
    free(rounded.dictionary);
    clpk_life_plan *plan = NULL;
    CLPK_TRY(clpk_life_plan_create(ctx, &s->data, s->precision, "auto", "dict=full", &plan));
    clpk_life_fit_options o = {
        .max_iterations = LIFE_TUNE_FIT_ITERATIONS, .tolerance = 0, .objective_every = LIFE_TUNE_FIT_ITERATIONS};
    clpk_status st = clpk_life_fit(plan, &o, s->w_fit, NULL);
    clpk_life_plan_destroy(plan);
    if (st != CLPK_SUCCESS) return st;
    s->fit_objective = life_ref_objective(&s->data, s->w_fit);
    if (!(s->fit_objective > 0))
        return core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "LiFE tune: the fit's objective %.3g is not positive",
                         s->fit_objective);
    return CLPK_SUCCESS;
}

static clpk_status life_problem_create(clpk_context *ctx, const tune_options *opts, int index,
                                       tune_problem *problem) {
    const life_tune_shape *shapes = opts->quick ? life_shapes_quick : life_shapes;
    int n_shapes = opts->quick ? 1 : (int)(sizeof life_shapes / sizeof life_shapes[0]);
    const life_tune_shape *shape = &shapes[index % n_shapes];
    clpk_precision prec = CLPK_PRECISION_F32;
    if (opts->precision) CLPK_TRY(clpk_precision_parse(opts->precision, &prec));
    else if (index / n_shapes == 1) prec = CLPK_PRECISION_F64;
    if (prec == CLPK_PRECISION_F64 && !clpk_context_device_info(ctx)->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "LiFE tune: no fp64 on this device");
    life_tune_state *s = calloc(1, sizeof *s);
    if (!s) return CLPK_ERROR_OUT_OF_MEMORY;
    problem->state = s;
    s->precision = prec;
    clpk_error err;
    const uint64_t seed = opts->seed + (uint64_t)(index % n_shapes); /* the same data in both precisions */
    if (life_synth_shape(shape, shape->n_theta, seed, &s->data, &err) != CLPK_SUCCESS) {
        life_problem_destroy(problem);
        return core_fail_from(ctx, &err);
    }
    const size_t ny = (size_t)s->data.n_voxels * s->data.n_theta, nw = (size_t)s->data.n_fibers;
    s->w = malloc(nw * sizeof(double));
    s->y = malloc(ny * sizeof(double));
    s->y_ref = malloc(ny * sizeof(double));
    s->w_ref = malloc(nw * sizeof(double));
    if (!s->w || !s->y || !s->y_ref || !s->w_ref) {
        life_problem_destroy(problem);
        return CLPK_ERROR_OUT_OF_MEMORY;
    }
    uint64_t r = opts->seed ^ 0x5eedull;
    for (size_t i = 0; i < nw; ++i) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        s->w[i] = (double)(r >> 40) / 16777216.0;
    }
    for (size_t i = 0; i < nw; i += 3) s->w[i] = 0;
    for (size_t i = 0; i < ny; ++i) s->y[i] = s->data.signal[i];
    life_ref_dsc(&s->data, s->w, s->y_ref);
    life_ref_wc(&s->data, s->y, s->w_ref);
    clpk_status st = life_upload_host(ctx, s->w, nw, prec, &s->bw);
    if (st == CLPK_SUCCESS) st = life_upload_host(ctx, s->y, ny, prec, &s->by);
    if (st == CLPK_SUCCESS) st = life_upload_host(ctx, s->y_ref, ny, prec, &s->bout_y);
    if (st == CLPK_SUCCESS) st = life_upload_host(ctx, s->w_ref, nw, prec, &s->bout_w);
    if (st == CLPK_SUCCESS && prec == CLPK_PRECISION_F32) st = life_prepare_half(ctx, s);
    if (st != CLPK_SUCCESS) {
        life_problem_destroy(problem);
        return st;
    }
    double voxel_run, fiber_run, longest;
    life_run_stats(&s->data, LIFE_ORDER_VOXEL, &voxel_run, &longest);
    life_run_stats(&s->data, LIFE_ORDER_FIBER, &fiber_run, &longest);
    snprintf(problem->label, sizeof problem->label, "%s %s (%lld coeffs)", shape->label, clpk_precision_name(prec),
             (long long)s->data.n_coeffs);
    core_params_clear(&problem->klass);
    core_params_set(&problem->klass, "precision", clpk_precision_name(prec));
    core_params_set_int(&problem->klass, "n_theta", s->data.n_theta);
    core_params_set_num(&problem->klass, "voxel_run", voxel_run > 1 ? voxel_run : 1);
    core_params_set_num(&problem->klass, "fiber_run", fiber_run > 1 ? fiber_run : 1);
    core_params_set_int(&problem->klass, "n_coeffs", s->data.n_coeffs); /* the scale, for validity ranges */
    return CLPK_SUCCESS;
}

/* Every parameter the table searches, over its search values (lib/life/life_params.c). */
static clpk_status life_space(clpk_context *ctx, const tune_problem *problem, tune_space *space) {
    (void)ctx;
    (void)problem;
    memset(space, 0, sizeof *space);
    for (int i = 0; i < life_param_table.count; ++i)
        if (life_param_table.defs[i].search)
            CLPK_TRY(tune_space_add_param(space, &life_param_table, life_param_table.defs[i].name, NULL));
    return CLPK_SUCCESS;
}

static int life_valid(clpk_context *ctx, const tune_problem *problem, const core_params *c) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const life_tune_state *s = problem->state;
    long long max_wg = dev->max_work_group_size < 1024 ? (long long)dev->max_work_group_size : 1024;
    const char *dsc = core_params_get(c, "dsc"), *wc = core_params_get(c, "wc");
    long long team = core_params_get_int(c, "team", 32), runs = core_params_get_int(c, "runs", 4);
    long long wc_team = core_params_get_int(c, "wc_team", 32), wc_runs = core_params_get_int(c, "wc_runs", 4);
    if (team * runs > max_wg || wc_team * wc_runs > max_wg) return 0;
    if (core_params_get_int(c, "wg", 256) > max_wg) return 0;
    if (s && (s->data.n_theta + team - 1) / team > 64) return 0;
    /* Parameters a strategy does not read would only repeat the same measurement: keep their first value. */
    const int dsc_atomics = dsc && strcmp(dsc, "atomics") == 0;
    const int wc_pairs = wc && strcmp(wc, "pairs") == 0;
    const int wc_fibre_runs =
        wc && (strcmp(wc, "fiber") == 0 || strcmp(wc, "staged") == 0 || strcmp(wc, "fiber4") == 0); /* fibre-sorted */
    const int wc_teams = wc_fibre_runs || (wc && strcmp(wc, "atom") == 0) || wc_pairs;
    const int uses_wg = dsc_atomics || (wc && (strcmp(wc, "atomics") == 0 || strcmp(wc, "voxel") == 0));
    const int uses_unroll = !dsc_atomics || wc_fibre_runs || wc_pairs;
    if (dsc_atomics && (team != 8 || runs != 1)) return 0;
    if (!uses_unroll && core_params_get_int(c, "unroll", 1) != 1) return 0;
    if (!wc_teams && (wc_team != 8 || wc_runs != 1)) return 0;
    if (!wc_pairs && core_params_get_int(c, "wc_block", 0) != 0) return 0;
    /* dsc_unroll equal to unroll repeats dsc_unroll 0 */
    const long long dsc_unroll = core_params_get_int(c, "dsc_unroll", 0);
    if (dsc_unroll > 0 && dsc_unroll == core_params_get_int(c, "unroll", 1)) return 0;
    if (!uses_wg && core_params_get_int(c, "wg", 64) != 64) return 0;
    if (wc_pairs && s) { /* the plan refuses it: the dot launch's partial sums exceed local memory */
        const life_config lc = {.wc_team = (int)wc_team, .wc_runs = (int)wc_runs,
                                .unroll = (int)core_params_get_int(c, "unroll", 1),
                                .wc_block = (int)core_params_get_int(c, "wc_block", 0)};
        if (life_wc_dot_local_bytes(&lc, s->data.n_theta, clpk_precision_size(s->precision)) > dev->local_mem_bytes)
            return 0;
    }
    /* voxel_order is read by the voxel-sorted and pair kernels, fiber_order by the fibre-sorted ones and wc=pairs */
    const char *vorder = core_params_get(c, "voxel_order"), *forder = core_params_get(c, "fiber_order");
    const int voxel_runs = !dsc_atomics || (wc && strcmp(wc, "voxel") == 0) || wc_pairs; /* pairs follow it */
    if (!voxel_runs && vorder && strcmp(vorder, "index") != 0) return 0;
    if (!wc_fibre_runs && !wc_pairs && forder && strcmp(forder, "index") != 0) return 0;
    /* theta_parts: read by the DSC run kernels and the fibre-sorted WC only; a count that does not split n_theta into
     * that many parts (life_theta_split) repeats a smaller count. */
    const long long parts = core_params_get_int(c, "theta_parts", 1);
    const int uses_parts = !dsc_atomics || wc_fibre_runs;
    if (parts < 1 || parts > LIFE_MAX_THETA_PARTS || (!uses_parts && parts != 1)) return 0;
    if (s && parts > 1) {
        int eff = 0, len = 0;
        life_theta_split(s->data.n_theta, (int)parts, clpk_precision_size(s->precision), &eff, &len);
        if (eff != parts) return 0;
    }
    const char *dict = core_params_get(c, "dict");
    if (s && s->precision != CLPK_PRECISION_F32 && dict && strcmp(dict, "half") == 0) return 0; /* f32 plans only */
    if (s && s->precision == CLPK_PRECISION_F64 && !dev->has_int64_atomics && dsc && wc &&
        (strcmp(dsc, "atomics") == 0 || (!wc_fibre_runs && !wc_pairs)))
        return 0;
    return 1;
}

typedef struct life_bench_user {
    clpk_life_plan *plan;
    life_tune_state *s;
} life_bench_user;

static clpk_status life_bench_launch(void *user, cl_event *first, cl_event *last) {
    life_bench_user *u = user;
    /* theta_parts > 1: several launches per product; time from the first DSC pass to the last WC pass */
    cl_event dsc_last = NULL, wc_first = NULL;
    CLPK_TRY(clpk_life_dsc_events(u->plan, u->s->bw, u->s->bout_y, 0, NULL, first, &dsc_last));
    if (dsc_last != *first) clReleaseEvent(dsc_last);
    clpk_status st = clpk_life_wc_events(u->plan, u->s->by, u->s->bout_w, 0, NULL, &wc_first, last);
    if (st == CLPK_SUCCESS && wc_first != *last) clReleaseEvent(wc_first);
    return st;
}

/* A product against its double reference: at most 1e-4 (f32) or 1e-11 (f64) of the reference's largest value. A
 * dict=half plan is held to the same bound against the reference formed with its half-rounded D: the bound checks the
 * kernels, and what half storage itself changes is judged by the fit's objective (life_check_half_objective). */
static clpk_status life_read_check(clpk_context *ctx, cl_mem buf, const double *ref, size_t n, clpk_precision p,
                                   const char *what) {
    const size_t vs = clpk_precision_size(p);
    void *tmp = malloc(n * vs);
    double *got = malloc(n * sizeof *got);
    clpk_status st = CLPK_SUCCESS;
    if (!tmp || !got) st = CLPK_ERROR_OUT_OF_MEMORY;
    if (st == CLPK_SUCCESS) {
        cl_int rc = clEnqueueReadBuffer(clpk_context_queue(ctx), buf, CL_TRUE, 0, n * vs, tmp, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueReadBuffer (tune)");
    }
    if (st == CLPK_SUCCESS) {
        double err = 0, scale = 0;
        for (size_t i = 0; i < n; ++i) {
            got[i] = vs == 4 ? ((float *)tmp)[i] : ((double *)tmp)[i];
            double e = fabs(got[i] - ref[i]);
            if (!(e <= err)) err = isnan(e) ? INFINITY : e;
            if (fabs(ref[i]) > scale) scale = fabs(ref[i]);
        }
        double rel = scale > 0 ? err / scale : err;
        if (!(rel <= (vs == 4 ? 1e-4 : 1e-11)))
            st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "LiFE tune: %s relative error %.3g", what, rel);
    }
    free(tmp);
    free(got);
    return st;
}

/* dict=half's accuracy contract: the objective the plan computes at the fit's iterate within LIFE_HALF_OBJECTIVE_TOL
 * of full storage's (in double). Small problems with little noise break it (their residual is small against D's
 * rounding), so there the half point is refused like a wrong result. */
static clpk_status life_check_half_objective(clpk_context *ctx, clpk_life_plan *plan, const life_tune_state *s) {
    double change = 0;
    CLPK_TRY(life_objective_change(plan, &s->data, s->w_fit, s->fit_objective, &change));
    if (!(fabs(change) <= LIFE_HALF_OBJECTIVE_TOL))
        return core_fail(ctx, CLPK_ERROR_WRONG_RESULT,
                         "LiFE tune: dict=half changes the fit's objective by %.3g (relative, at the iterate of %d "
                         "steps; at most %g)",
                         change, LIFE_TUNE_FIT_ITERATIONS, LIFE_HALF_OBJECTIVE_TOL);
    return CLPK_SUCCESS;
}

static clpk_status life_evaluate(clpk_context *ctx, tune_problem *problem, const core_params *candidate,
                                 int repeats, double *median_ms) {
    life_tune_state *s = problem->state;
    char params[512];
    core_params_format(candidate, params, sizeof params);
    clpk_life_plan *plan = NULL;
    /* The products need the operator only: without the signal (a fit's input) plan creation neither scans nor
     * uploads y. */
    clpk_life_dataset operator_only = s->data;
    operator_only.signal = NULL;
    CLPK_TRY(clpk_life_plan_create(ctx, &operator_only, s->precision, "auto", params, &plan));
    const size_t ny = (size_t)s->data.n_voxels * s->data.n_theta, nw = (size_t)s->data.n_fibers;
    /* poison the outputs, run once, compare */
    const double nan_pattern = NAN;
    const float nan_f = NAN;
    const void *pattern = s->precision == CLPK_PRECISION_F32 ? (const void *)&nan_f : (const void *)&nan_pattern;
    const size_t vs = clpk_precision_size(s->precision);
    cl_command_queue q = clpk_context_queue(ctx);
    clpk_status st = CLPK_SUCCESS;
    if (clEnqueueFillBuffer(q, s->bout_y, pattern, vs, 0, ny * vs, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueFillBuffer(q, s->bout_w, pattern, vs, 0, nw * vs, 0, NULL, NULL) != CL_SUCCESS)
        st = core_fail(ctx, CLPK_ERROR_OPENCL, "LiFE tune: poisoning failed");
    if (st == CLPK_SUCCESS) st = clpk_life_dsc(plan, s->bw, s->bout_y, 0, NULL, NULL);
    if (st == CLPK_SUCCESS) st = clpk_life_wc(plan, s->by, s->bout_w, 0, NULL, NULL);
    const int half = plan->config.dict == LIFE_DICT_HALF;
    if (half && !s->w_fit) st = core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE tune: dict=half on an f64 problem");
    if (st == CLPK_SUCCESS)
        st = life_read_check(ctx, s->bout_y, half ? s->y_ref_half : s->y_ref, ny, s->precision, "DSC");
    if (st == CLPK_SUCCESS)
        st = life_read_check(ctx, s->bout_w, half ? s->w_ref_half : s->w_ref, nw, s->precision, "WC");
    if (st == CLPK_SUCCESS && half) st = life_check_half_objective(ctx, plan, s);
    if (st == CLPK_SUCCESS) {
        life_bench_user u = {plan, s};
        clpk_bench_stats stats;
        st = clpk_bench_run(ctx, life_bench_launch, &u, 1, repeats > 0 ? repeats : 1, 0, 0, &stats);
        if (st == CLPK_SUCCESS) *median_ms = stats.median_ms;
    }
    clpk_life_plan_destroy(plan);
    return st;
}

static void life_defaults(clpk_context *ctx, const tune_problem *problem, core_params *out) {
    const life_tune_state *s = problem->state;
    core_params_clear(out);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    life_default_params(dev, s->precision, out);
    life_default_pairs(dev, s->precision, &s->data, out);
    /* the same L2 rule as plan creation (dictionary rows padded to a multiple of 32) */
    const uint64_t ld = ((uint64_t)s->data.n_theta + 31) / 32 * 32;
    core_params_set_int(out, "theta_parts",
                        life_default_theta_parts(dev, s->precision,
                                                 (uint64_t)s->data.n_atoms * ld * clpk_precision_size(s->precision)));
}

const tune_family tune_family_life = {
    .name = "life",
    .problem_count = life_problem_count,
    .problem_create = life_problem_create,
    .problem_destroy = life_problem_destroy,
    .space = life_space,
    .valid = life_valid,
    .evaluate = life_evaluate,
    .defaults = life_defaults,
    .prebuild_safe = 1, /* plan creation requests its program before sorting or uploading anything large */
    /* Its 4 problems take about 10 s each to create (H100): a share per problem of a 540 s run left 1-3 points. */
    .budget_weight = 0.2,
};
