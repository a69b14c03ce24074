/* SBB-NNLS on the device: the same iterates as the double-precision host solver for a few iterations (f32 and f64,
 * odd and even step rules, warm start), then to convergence on a small problem with the KKT conditions checked on the
 * result (w >= 0, gradient >= -eps where w = 0, |gradient| <= eps where w > 0), a decreasing objective, bad options
 * refused, and dict=half's objective contract. */
#include "check.h"
#include "life_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void compare_iterates_every(clpk_context *ctx, const clpk_life_dataset *d, clpk_precision prec,
                                   const char *strategy, const char *params, int iterations, const double *w_start,
                                   double tol, int objective_every, int residual_every) {
    const size_t nw = (size_t)d->n_fibers;
    double *w_ref = malloc(nw * sizeof *w_ref), *w_dev = malloc(nw * sizeof *w_dev);
    for (size_t i = 0; i < nw; ++i) w_ref[i] = w_start ? w_start[i] : 0;
    double obj_ref = 0;
    life_ref_fit(d, iterations, w_ref, &obj_ref);
    clpk_life_plan *plan = NULL;
    if (CHECK(clpk_life_plan_create(ctx, d, prec, strategy, params, &plan) == CLPK_SUCCESS, "plan: %s",
              clpk_last_error(ctx))) {
        for (size_t i = 0; i < nw; ++i) w_dev[i] = NAN;
        clpk_life_fit_options o = {.max_iterations = iterations, .tolerance = 0, .objective_every = objective_every,
                                   .w_start = w_start, .residual_every = residual_every};
        clpk_life_fit_result res;
        clpk_status st = clpk_life_fit(plan, &o, w_dev, &res);
        double e = check_rel_error(w_ref, w_dev, nw);
        CHECK(st == CLPK_SUCCESS && res.iterations == iterations, "fit %s: %s (%d iterations)",
              clpk_precision_name(prec), clpk_last_error(ctx), res.iterations);
        CHECK(e <= tol, "%s %s [%s], %d iterations%s, residual every %d: w differs from the host solver by %.3g",
              clpk_precision_name(prec), strategy, params ? params : "", iterations, w_start ? " (warm)" : "",
              residual_every, e);
        CHECK(fabs(res.objective - obj_ref) <= 10 * tol * obj_ref, "objective %.10g vs host %.10g", res.objective,
              obj_ref);
        clpk_life_plan_destroy(plan);
    }
    free(w_ref);
    free(w_dev);
}

static void compare_iterates_params(clpk_context *ctx, const clpk_life_dataset *d, clpk_precision prec,
                                    const char *strategy, const char *params, int iterations, const double *w_start,
                                    double tol) {
    compare_iterates_every(ctx, d, prec, strategy, params, iterations, w_start, tol, 3, 0);
}

/* Weights the host solver's steps drive from > 0 to the bound within `iterations` steps from w_start: the steps
 * whose residual the device updates with a non-zero clipped part. */
static int clipped_steps(const clpk_life_dataset *d, int iterations, const double *w_start) {
    const size_t nw = (size_t)d->n_fibers;
    double *before = malloc(nw * sizeof *before), *after = malloc(nw * sizeof *after), obj;
    int clipped = 0;
    for (int k = 0; k < iterations; ++k) {
        memcpy(before, w_start, nw * sizeof *before);
        memcpy(after, w_start, nw * sizeof *after);
        life_ref_fit(d, k, before, &obj);
        life_ref_fit(d, k + 1, after, &obj);
        for (size_t i = 0; i < nw; ++i) clipped += before[i] > 0 && after[i] == 0;
    }
    free(before), free(after);
    return clipped;
}

/* The residual between exact evaluations (r - alpha M gt + M clip): the host solver's iterates, which compute
 * r = M w - y every step, whether r is recomputed every step, every 10 or only at the end, with steps that clip
 * weights to the bound among them. */
static void residual_update(clpk_context *ctx, const clpk_life_dataset *d, const double *w_start) {
    const int iterations = 30, clipped = clipped_steps(d, iterations, w_start);
    CHECK(clipped > 0, "no step clips a weight in %d iterations: the update's clipped part is not exercised",
          iterations);
    printf("residual update: %d weights clipped to the bound in %d host steps\n", clipped, iterations);
    const int every[] = {1, 0, 10, iterations}; /* 0: the default, 10 on large GPU problems, else 1 */
    /* wc_block: the dot products (and the fibre side the stamps go through) in block order, the fibre side in fibre
     * order */
    const char *params[] = {NULL, "dsc=pairs,wc=pairs",
                            "dsc=pairs,wc=pairs,wc_block=8,voxel_order=morton,fiber_order=voxel"};
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 3; ++k)
            compare_iterates_every(ctx, d, CLPK_PRECISION_F64, "sorted", params[k], iterations, w_start, 1e-8,
                                   iterations, every[i]);
}

static void compare_iterates(clpk_context *ctx, const clpk_life_dataset *d, clpk_precision prec, const char *strategy,
                             int iterations, const double *w_start, double tol) {
    compare_iterates_params(ctx, d, prec, strategy, NULL, iterations, w_start, tol);
}

static void convergence(clpk_context *ctx, const clpk_life_dataset *d, const double *w_true) {
    const size_t nw = (size_t)d->n_fibers, ny = (size_t)d->n_voxels * d->n_theta;
    clpk_life_plan *plan = NULL;
    if (!CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F64, "sorted", NULL, &plan) == CLPK_SUCCESS, "plan: %s",
               clpk_last_error(ctx)))
        return;
    double *w = malloc(nw * sizeof *w), *g = malloc(nw * sizeof *g), *r = malloc(ny * sizeof *r);
    double obj_prev = INFINITY;
    /* objective after 5, 20, 80 iterations from zero: decreasing */
    const int caps[] = {5, 20, 80};
    for (int c = 0; c < 3; ++c) {
        clpk_life_fit_options o = {.max_iterations = caps[c], .tolerance = 0, .objective_every = 5};
        clpk_life_fit_result res;
        CHECK(clpk_life_fit(plan, &o, w, &res) == CLPK_SUCCESS, "%s", clpk_last_error(ctx));
        CHECK(res.objective < obj_prev, "objective %.6g after %d iterations is not below %.6g", res.objective,
              caps[c], obj_prev);
        obj_prev = res.objective;
    }
    clpk_life_fit_options o = {.max_iterations = 5000, .tolerance = 1e-12, .objective_every = 10};
    clpk_life_fit_result res;
    CHECK(clpk_life_fit(plan, &o, w, &res) == CLPK_SUCCESS, "%s", clpk_last_error(ctx));
    CHECK(res.converged, "no convergence in %d iterations (objective %.6g)", res.iterations, res.objective);
    CHECK(res.objective <= obj_prev * (1 + 1e-6), "converged objective %.6g above %.6g", res.objective, obj_prev);
    printf("converged in %d iterations, objective %.6e, %.3f s\n", res.iterations, res.objective, res.seconds);
    {   /* r updated between refreshes every 7 steps, the stop tested on it every 10: the returned objective is still
         * that of the returned w */
        double *w7 = malloc(nw * sizeof *w7);
        clpk_life_fit_options o7 = o;
        o7.residual_every = 7;
        clpk_life_fit_result res7;
        CHECK(clpk_life_fit(plan, &o7, w7, &res7) == CLPK_SUCCESS && res7.converged, "residual every 7: %s, %s",
              clpk_last_error(ctx), res7.converged ? "converged" : "no convergence");
        const double exact = life_ref_objective(d, w7);
        CHECK(fabs(res7.objective - exact) <= 1e-10 * exact && fabs(res7.objective - res.objective) <= 1e-6 * exact,
              "residual every 7: objective %.12g, of its w %.12g, textbook fit %.12g", res7.objective, exact,
              res.objective);
        free(w7);
    }
    /* KKT on the host in double: g = M^T (M w - y) */
    life_ref_dsc(d, w, r);
    for (size_t i = 0; i < ny; ++i) r[i] -= d->signal[i];
    life_ref_wc(d, r, g);
    double *w0 = calloc(nw, sizeof *w0), *g0 = malloc(nw * sizeof *g0);
    for (size_t i = 0; i < ny; ++i) r[i] = -d->signal[i];
    life_ref_wc(d, r, g0);
    double scale = 0;
    for (size_t i = 0; i < nw; ++i) scale = fmax(scale, fabs(g0[i]));
    const double eps = 1e-6 * scale;
    int negative = 0, bad_free = 0, bad_bound = 0, zeros = 0;
    for (size_t i = 0; i < nw; ++i) {
        if (w[i] < 0) negative++;
        if (w[i] == 0) {
            zeros++;
            if (g[i] < -eps) bad_bound++;
        } else if (fabs(g[i]) > eps) {
            bad_free++;
            printf("KKT: w[%zu] = %.6g, gradient %.6g\n", i, w[i], g[i]);
        }
    }
    CHECK(negative == 0, "%d negative weights", negative);
    CHECK(bad_bound == 0, "%d weights at 0 with gradient < -%.3g", bad_bound, eps);
    CHECK(bad_free == 0, "%d positive weights with |gradient| > %.3g", bad_free, eps);
    CHECK(zeros > 0, "no active bound: the problem does not exercise the projection");
    /* The noise-free part of the signal is M w_true: the fit must explain the data at least as well. */
    double obj_true = 0;
    life_ref_dsc(d, w_true, r);
    for (size_t i = 0; i < ny; ++i) obj_true += 0.5 * (r[i] - d->signal[i]) * (r[i] - d->signal[i]);
    CHECK(res.objective <= obj_true * (1 + 1e-9), "fit objective %.6g above that of w_true %.6g", res.objective,
          obj_true);
    printf("zero weights %d of %zu; KKT eps %.3g\n", zeros, nw, eps);
    free(w0), free(g0);
    free(w), free(g), free(r);
    clpk_life_plan_destroy(plan);
}

/* The objective after `iterations` SBB-NNLS steps from 0 with an f32 plan of `params`; *w (may be NULL, n_fibers) gets
 * the result. Returns NaN on failure. */
static double fit_objective(clpk_context *ctx, const clpk_life_dataset *d, const char *params, int iterations,
                            double *w) {
    clpk_life_plan *plan = NULL;
    double *mine = w ? w : malloc((size_t)d->n_fibers * sizeof *mine), objective = NAN;
    if (CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "auto", params, &plan) == CLPK_SUCCESS, "plan [%s]: %s",
              params, clpk_last_error(ctx))) {
        clpk_life_fit_options o = {.max_iterations = iterations, .tolerance = 0, .objective_every = iterations};
        clpk_life_fit_result res;
        if (CHECK(clpk_life_fit(plan, &o, mine, &res) == CLPK_SUCCESS, "fit [%s]: %s", params, clpk_last_error(ctx)))
            objective = res.objective;
        clpk_life_plan_destroy(plan);
    }
    if (!w) free(mine);
    return objective;
}

/* dict=half's criterion (the tuner's) at w: the objective its plan computes against full storage's in double. */
static double half_change_at(clpk_context *ctx, const clpk_life_dataset *d, const char *params, const double *w) {
    clpk_life_plan *plan = NULL;
    double change = NAN;
    if (CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "auto", params, &plan) == CLPK_SUCCESS, "plan [%s]: %s",
              params, clpk_last_error(ctx))) {
        CHECK(life_objective_change(plan, d, w, life_ref_objective(d, w), &change) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx));
        clpk_life_plan_destroy(plan);
    }
    return change;
}

/* dict=half's accuracy contract (LIFE_HALF_OBJECTIVE_TOL, issue #27). On a problem with many more equations than
 * unknowns and noise, as LiFE's data: the fits with D stored as half and in full, run until they settle (200 steps
 * here), end within 1e-5 of each other (for either pair of kernels), and so does the objective a dict=half plan
 * computes at the full fit's w (the tuner's criterion). On a small problem with hardly any noise, D's rounding is
 * large against the residual: the criterion refuses half storage there, not full f32 storage. */
static void half_objective(clpk_context *ctx, uint64_t *rng) {
    life_random_options o = {.n_theta = 96, .n_atoms = 30, .n_voxels = 1600, .n_fibers = 800, .mean_run = 20,
                             .empty_fraction = 0, .zero_fraction = 0.4, .noise = 1.0};
    clpk_life_dataset d;
    clpk_error err;
    if (!CHECK(life_random_dataset(&o, check_rand(rng), &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    double *w = malloc((size_t)d.n_fibers * sizeof *w);
    const char *kernels[] = {"dsc=voxel,wc=fiber", "dsc=pairs,wc=pairs"};
    for (int k = 0; k < 2; ++k) {
        char full[64], half[64];
        snprintf(full, sizeof full, "%s,dict=full", kernels[k]);
        snprintf(half, sizeof half, "%s,dict=half", kernels[k]);
        const double of = fit_objective(ctx, &d, full, 200, w), oh = fit_objective(ctx, &d, half, 200, NULL);
        const double change = half_change_at(ctx, &d, half, w);
        CHECK(fabs(oh - of) <= LIFE_HALF_OBJECTIVE_TOL * of && fabs(change) <= LIFE_HALF_OBJECTIVE_TOL,
              "[%s] objective after 200 steps %.9e, with dict=half %.9e (relative %.3g), at the same w %.3g",
              kernels[k], of, oh, (oh - of) / of, change);
        printf("[%s] 200 steps: objective %.9e, dict=half %.9e (relative %.2g; at the same w %.2g)\n", kernels[k], of,
               oh, (oh - of) / of, change);
    }
    clpk_life_dataset_free(&d);
    life_random_options small = {.n_theta = 24, .n_atoms = 30, .n_voxels = 80, .n_fibers = 60, .mean_run = 6,
                                 .empty_fraction = 0, .zero_fraction = 0.4, .noise = 1e-3};
    if (CHECK(life_random_dataset(&small, check_rand(rng), &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) {
        fit_objective(ctx, &d, "dict=full", 100, w);
        const double full = half_change_at(ctx, &d, "dict=full", w), half = half_change_at(ctx, &d, "dict=half", w);
        CHECK(fabs(full) <= LIFE_HALF_OBJECTIVE_TOL && !(fabs(half) <= LIFE_HALF_OBJECTIVE_TOL),
              "small, almost noise-free problem: objective change %.3g with full f32 storage, %.3g with half", full,
              half);
        clpk_life_dataset_free(&d);
    }
    free(w);
}

static void bad_options(clpk_context *ctx, const clpk_life_dataset *d) {
    clpk_life_plan *plan = NULL;
    if (!CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_SUCCESS, "%s",
               clpk_last_error(ctx)))
        return;
    double *w = calloc((size_t)d->n_fibers, sizeof *w);
    clpk_life_fit_options o = {.max_iterations = -1, .tolerance = 1e-6, .objective_every = 10};
    CHECK(clpk_life_fit(plan, &o, w, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "negative iteration cap accepted");
    o.max_iterations = 10;
    o.tolerance = NAN;
    CHECK(clpk_life_fit(plan, &o, w, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NaN tolerance accepted");
    o.tolerance = 1e-6;
    o.residual_every = -1;
    CHECK(clpk_life_fit(plan, &o, w, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "negative residual interval accepted");
    o.residual_every = 0;
    double *start = calloc((size_t)d->n_fibers, sizeof *start);
    start[1] = NAN;
    o.w_start = start;
    CHECK(clpk_life_fit(plan, &o, w, NULL) == CLPK_ERROR_INVALID_DATA, "NaN warm start accepted");
    CHECK(clpk_life_fit(plan, NULL, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL w accepted");
    clpk_life_plan_destroy(plan);
    /* no signal: nothing to fit */
    clpk_life_dataset copy = *d;
    copy.signal = NULL;
    if (CHECK(clpk_life_plan_create(ctx, &copy, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        CHECK(clpk_life_fit(plan, NULL, w, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "fit without a signal accepted");
        clpk_life_plan_destroy(plan);
    }
    free(start);
    free(w);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, NULL) != CLPK_SUCCESS) {
        CHECK(0, "no OpenCL device");
        return check_summary();
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s\n", dev->name);
    /* More fibres than the data pin down would make the problem rank-deficient; keep it overdetermined with zeros
     * in w_true so some bounds are active. */
    life_random_options o = {.n_theta = 24, .n_atoms = 30, .n_voxels = 80, .n_fibers = 60, .mean_run = 6,
                             .empty_fraction = 0.0, .zero_fraction = 0.4, .noise = 0.05};
    clpk_life_dataset d;
    double *w_true = NULL;
    clpk_error err;
    if (!CHECK(life_random_dataset(&o, check_rand(&rng), &d, &w_true, &err) == CLPK_SUCCESS, "%s", err.message))
        return check_summary();
    double *w_start = malloc((size_t)d.n_fibers * sizeof *w_start);
    for (int i = 0; i < d.n_fibers; ++i) w_start[i] = check_rand_double(&rng) - 0.2; /* some negative: projected */

    if (dev->has_fp64) {
        compare_iterates(ctx, &d, CLPK_PRECISION_F64, "sorted", 1, NULL, 1e-10);
        compare_iterates(ctx, &d, CLPK_PRECISION_F64, "sorted", 6, NULL, 1e-9);
        compare_iterates(ctx, &d, CLPK_PRECISION_F64, "sorted", 6, w_start, 1e-9);
        /* the theta-split products inside the fit: the same iterates as the host solver (and so as theta_parts 1) */
        compare_iterates_params(ctx, &d, CLPK_PRECISION_F64, "sorted", "theta_parts=2", 6, w_start, 1e-9);
        /* the pair-merged products (another summation order): the same iterates within the same bounds */
        compare_iterates_params(ctx, &d, CLPK_PRECISION_F64, "sorted", "dsc=pairs,wc=pairs", 6, w_start, 1e-9);
        if (dev->has_int64_atomics) compare_iterates(ctx, &d, CLPK_PRECISION_F64, "atomics", 6, NULL, 1e-9);
        residual_update(ctx, &d, w_start);
        convergence(ctx, &d, w_true);
    } else {
        printf("no fp64: iterate comparison in f64 and the convergence test skipped\n");
    }
    compare_iterates(ctx, &d, CLPK_PRECISION_F32, "sorted", 4, NULL, 2e-3);
    compare_iterates_params(ctx, &d, CLPK_PRECISION_F32, "sorted", "theta_parts=3", 4, NULL, 2e-3);
    compare_iterates_params(ctx, &d, CLPK_PRECISION_F32, "sorted", "dsc=pairs,wc=pairs", 4, NULL, 2e-3);
    compare_iterates(ctx, &d, CLPK_PRECISION_F32, "atomics", 4, w_start, 2e-3);
    bad_options(ctx, &d);
    half_objective(ctx, &rng);
    free(w_start);
    free(w_true);
    clpk_life_dataset_free(&d);
    clpk_context_destroy(ctx);
    return check_summary();
}
