/* LiFE DSC (y = M w) and WC (w = M^T y) on the device against the double-precision serial reference, on fresh random
 * streamline-like datasets, outputs poisoned with NaN: every strategy and every value of every tuning parameter the
 * tuner may pick (the values life_param_table searches; dict=half against the references with D rounded to half and,
 * within the rounding's bound, the full ones), f32 and f64; determinism of the sorted kernels; bad inputs refused. */
#include "check.h"
#include "life_half_refs.h"
#include "life_internal.h"
#include "life_synth_check.h"
#include "tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs one product on device buffers whose output is poisoned with NaN first; returns the status. */
static clpk_status run_product(clpk_context *ctx, clpk_life_plan *plan, int dsc, const double *in, double *out) {
    const size_t ny = (size_t)plan->n_voxels * plan->n_theta, nw = (size_t)plan->n_fibers;
    const size_t n_in = dsc ? nw : ny, n_out = dsc ? ny : nw, vs = plan->value_size;
    char *hin = malloc(n_in * vs), *hout = malloc(n_out * vs);
    for (size_t i = 0; i < n_in; ++i) {
        if (vs == 4)
            ((float *)hin)[i] = (float)in[i];
        else
            ((double *)hin)[i] = in[i];
    }
    for (size_t i = 0; i < n_out; ++i) {
        if (vs == 4)
            ((float *)hout)[i] = NAN;
        else
            ((double *)hout)[i] = NAN;
    }
    cl_int rc;
    cl_context c = clpk_context_cl_context(ctx);
    cl_mem bin = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n_in * vs, hin, &rc);
    cl_mem bout = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n_out * vs, hout, &rc);
    clpk_status st = dsc ? clpk_life_dsc(plan, bin, bout, 0, NULL, NULL) : clpk_life_wc(plan, bin, bout, 0, NULL, NULL);
    if (st == CLPK_SUCCESS)
        clEnqueueReadBuffer(clpk_context_queue(ctx), bout, CL_TRUE, 0, n_out * vs, hout, 0, NULL, NULL);
    for (size_t i = 0; i < n_out; ++i)
        out[i] = vs == 4 ? ((float *)hout)[i] : ((double *)hout)[i];
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    free(hin);
    free(hout);
    return st;
}

typedef struct problem {
    clpk_life_dataset data;
    double *w, *y, *y_ref, *w_ref, *y_got, *w_got;
    life_half_refs half; /* for dict=half plans */
} problem;

/* The references of the products of w and y: full storage, and D rounded to half. */
static void problem_refs(problem *p) {
    life_ref_dsc(&p->data, p->w, p->y_ref);
    life_ref_wc(&p->data, p->y, p->w_ref);
    CHECK(life_half_refs_make(&p->data, p->w, p->y, p->y_ref, p->w_ref, &p->half), "half references");
}

static void problem_make(problem *p, const life_random_options *o, uint64_t *rng) {
    clpk_error err;
    memset(p, 0, sizeof *p);
    CHECK(life_random_dataset(o, check_rand(rng), &p->data, NULL, &err) == CLPK_SUCCESS, "%s", err.message);
    const size_t ny = (size_t)o->n_voxels * o->n_theta, nw = (size_t)o->n_fibers;
    p->w = malloc(nw * sizeof(double));
    p->y = malloc(ny * sizeof(double));
    p->y_ref = malloc(ny * sizeof(double));
    p->y_got = malloc(ny * sizeof(double));
    p->w_ref = malloc(nw * sizeof(double));
    p->w_got = malloc(nw * sizeof(double));
    /* a third of the weights are zero: exercises the zero-weight skip */
    for (size_t i = 0; i < nw; ++i)
        p->w[i] = check_rand_double(rng) < 0.33 ? 0 : check_rand_double(rng) + 0.1;
    for (size_t i = 0; i < ny; ++i)
        p->y[i] = 2 * check_rand_double(rng) - 1;
    problem_refs(p);
}

static void problem_free(problem *p) {
    clpk_life_dataset_free(&p->data);
    free(p->w), free(p->y), free(p->y_ref), free(p->y_got), free(p->w_ref), free(p->w_got);
    life_half_refs_free(&p->half);
}

/* A product against its reference: within `tol` of the reference of the plan's storage; with dict=half also within
 * the rounding's bound (plus tol) of the full-storage reference. */
/* Both products of a plan made with `params`: y = M w (p->w) and w = M^T y (p->y), as the baseline of a bitwise
 * comparison. Returns 0 when the plan cannot be made. */
static int baseline_products(clpk_context *ctx, const problem *p, clpk_precision pr, const char *params, double *y,
                             double *w) {
    clpk_life_plan *plan = NULL;
    if (!CHECK(clpk_life_plan_create(ctx, &p->data, pr, "auto", params, &plan) == CLPK_SUCCESS, "%s: %s", params,
               clpk_last_error(ctx)))
        return 0;
    CHECK(run_product(ctx, plan, 1, p->w, y) == CLPK_SUCCESS && run_product(ctx, plan, 0, p->y, w) == CLPK_SUCCESS,
          "baseline products [%s]", params);
    clpk_life_plan_destroy(plan);
    return 1;
}

static void check_product(const problem *p, const clpk_life_plan *plan, int dsc, const double *got, clpk_status st,
                          double tol, const char *label) {
    const size_t n = dsc ? (size_t)p->data.n_voxels * p->data.n_theta : (size_t)p->data.n_fibers;
    const double *full = dsc ? p->y_ref : p->w_ref;
    const char *what = dsc ? "DSC" : "WC";
    if (plan->config.dict != LIFE_DICT_HALF) {
        const double e = check_rel_error(full, got, n);
        CHECK(st == CLPK_SUCCESS && e <= tol, "%s %s: error %.3g (status %d %s)", what, label, e, (int)st,
              clpk_last_error(plan->ctx));
        return;
    }
    const double e = check_rel_error(dsc ? p->half.y : p->half.w, got, n);
    CHECK(st == CLPK_SUCCESS && e <= tol, "%s %s: error %.3g against D rounded to half (status %d %s)", what, label, e,
          (int)st, clpk_last_error(plan->ctx));
    const double bound = (dsc ? p->half.y_bound : p->half.w_bound) + tol, e_full = check_rel_error(full, got, n);
    CHECK(e_full <= bound, "%s %s: error %.3g against full D, over the half rounding's bound %.3g", what, label, e_full,
          bound);
}

static void check_plan(clpk_context *ctx, problem *p, clpk_precision prec, const char *strategy, const char *params,
                       int check_determinism) {
    clpk_life_plan *plan = NULL;
    double started = check_seconds();
    clpk_status st = clpk_life_plan_create(ctx, &p->data, prec, strategy, params, &plan);
    if (!CHECK(st == CLPK_SUCCESS, "plan %s %s [%s]: %s", clpk_precision_name(prec), strategy, params,
               clpk_last_error(ctx)))
        return;
    const double tol = prec == CLPK_PRECISION_F32 ? 2e-5 : 1e-12;
    const size_t ny = (size_t)p->data.n_voxels * p->data.n_theta, nw = (size_t)p->data.n_fibers;
    st = run_product(ctx, plan, 1, p->w, p->y_got);
    st = st == CLPK_SUCCESS ? run_product(ctx, plan, 0, p->y, p->w_got) : st;
    char point[320];
    snprintf(point, sizeof point, "%s %s [%s]", clpk_precision_name(prec), strategy, params ? params : "");
    check_build_time("life", point, check_seconds() - started);
    st = run_product(ctx, plan, 1, p->w, p->y_got);
    check_product(p, plan, 1, p->y_got, st, tol, point);
    st = run_product(ctx, plan, 0, p->y, p->w_got);
    check_product(p, plan, 0, p->w_got, st, tol, point);
    if (check_determinism) {
        /* The voxel-sorted, pair and staged DSC and the fibre-sorted, pair and staged WC have no atomics: the same bits
         * every run. */
        double *again = malloc((ny > nw ? ny : nw) * sizeof *again);
        if (plan->dsc_kind != LIFE_DSC_ATOMICS) {
            run_product(ctx, plan, 1, p->w, again);
            CHECK(memcmp(again, p->y_got, ny * sizeof *again) == 0, "DSC %s not bitwise repeatable [%s]",
                  life_dsc_name(plan->dsc_kind), params);
        }
        if (life_wc_fibre_sorted(plan->wc_kind) || plan->wc_kind == LIFE_WC_PAIRS) {
            run_product(ctx, plan, 0, p->y, again);
            CHECK(memcmp(again, p->w_got, nw * sizeof *again) == 0, "WC %s not bitwise repeatable [%s]",
                  life_wc_name(plan->wc_kind), params);
        }
        free(again);
    }
    clpk_life_plan_destroy(plan);
}

/* Every value of every tuning parameter at least once for every kernel, and every (dsc, wc) pair the table searches
 * (its dsc and wc rows): the -D parameters (team, unroll, wc_team) advance together so only a few programs are built;
 * runtime parameters rotate independently. */
static void sweep(clpk_context *ctx, problem *p, clpk_precision prec) {
    const core_param_table *t = &life_param_table;
    const char *values[32][16];
    char storage[32][256];
    int count[32], points = 0, dsc_row = -1, wc_row = -1;
    for (int i = 0; i < t->count && i < 32; ++i) {
        count[i] = core_param_search_values(&t->defs[i], values[i], storage[i], sizeof storage[i], 16);
        if (strcmp(t->defs[i].name, "dsc") == 0)
            dsc_row = i;
        else if (strcmp(t->defs[i].name, "wc") == 0)
            wc_row = i;
        else if (count[i] > points)
            points = count[i];
    }
    if (!CHECK(dsc_row >= 0 && wc_row >= 0 && count[dsc_row] >= 4 && count[wc_row] >= 6,
               "the table's dsc and wc rows search the kernels (pairs and staged included)"))
        return;
    for (int pt = 0; pt < points; ++pt) {
        core_params cand;
        core_params_clear(&cand);
        for (int i = 0; i < t->count && i < 32; ++i) {
            const char *name = t->defs[i].name;
            if (count[i] == 0 || strcmp(name, "dsc") == 0 || strcmp(name, "wc") == 0) continue;
            /* runs/wc_runs/wg rotate against the compiled parameters */
            int shift = strcmp(name, "wc_runs") == 0 ? 1 : strcmp(name, "runs") == 0 ? 2 : 0;
            /* dict=half is for f32 plans (the tuner's `valid` keeps it off f64 problems) */
            const int full_only = strcmp(name, "dict") == 0 && prec != CLPK_PRECISION_F32;
            core_params_set(&cand, name, full_only ? "full" : values[i][(pt + shift) % count[i]]);
        }
        char base[256];
        core_params_format(&cand, base, sizeof base);
        /* Every (dsc, wc) pair at the first point; afterwards one pair per WC kernel, the DSC kernels rotating, which
         * still runs every kernel once (the two products are independent kernels) and cuts the PoCL compiles (it
         * specialises per work-group size). */
        const int nd = count[dsc_row], nwc = count[wc_row];
        for (int d = 0; d < nd; ++d)
            for (int w = 0; w < nwc; ++w) {
                if (pt > 0 && d != (w + pt) % nd) continue;
                char params[320];
                snprintf(params, sizeof params, "%s,dsc=%s,wc=%s", base, values[dsc_row][d], values[wc_row][w]);
                /* the kernels without atomics are checked for repeatable bits */
                const char *wk = values[wc_row][w];
                const int atomics = strcmp(values[dsc_row][d], "atomics") == 0 && strcmp(wk, "fiber") != 0 &&
                                    strcmp(wk, "pairs") != 0 && strcmp(wk, "staged") != 0 && strcmp(wk, "fiber4") != 0;
                check_plan(ctx, p, prec, "auto", params, !atomics);
            }
    }
}

/* The tuner family's own path (quick problem, defaults and a baseline candidate) runs and checks. */
static void tuner_family(clpk_context *ctx, uint64_t *rng) {
    extern const tune_family tune_family_life;
    const tune_family *fam = &tune_family_life;
    tune_options o = {.precision = "f32", .quick = 1, .seed = check_rand(rng), .data_dir = NULL};
    CHECK(fam->problem_count(&o) == 1, "quick problem count %d", fam->problem_count(&o));
    tune_problem tp;
    memset(&tp, 0, sizeof tp);
    if (!CHECK(fam->problem_create(ctx, &o, 0, &tp) == CLPK_SUCCESS, "tune problem: %s", clpk_last_error(ctx))) return;
    tune_space space;
    CHECK(fam->space(ctx, &tp, &space) == CLPK_SUCCESS && space.count == 13, "space of %d parameters", space.count);
    core_params cand;
    core_params_clear(&cand);
    fam->defaults(ctx, &tp, &cand);
    CHECK(fam->valid(ctx, &tp, &cand) == 1, "defaults pruned");
    double ms = -1;
    CHECK(fam->evaluate(ctx, &tp, &cand, 2, &ms) == CLPK_SUCCESS && ms > 0, "evaluate defaults: %s (%.3g ms)",
          clpk_last_error(ctx), ms);
    core_params_parse(&cand, "dsc=atomics,wc=atomics,team=8,runs=1,unroll=1,wc_team=8,wc_runs=1,wg=128,theta_parts=1",
                      NULL);
    CHECK(fam->valid(ctx, &tp, &cand) == 1, "atomics baseline pruned");
    /* dsc_unroll repeating unroll is the same plan as dsc_unroll 0 */
    core_params pairs;
    core_params_clear(&pairs);
    core_params_parse(&pairs, "dsc=pairs,wc=pairs,team=8,runs=1,unroll=4,wc_team=8,wc_runs=1,dsc_unroll=4", NULL);
    CHECK(fam->valid(ctx, &tp, &pairs) == 0, "dsc_unroll=unroll not pruned");
    core_params_parse(&pairs, "dsc_unroll=0", NULL);
    CHECK(fam->valid(ctx, &tp, &pairs) == 1, "dsc=pairs with dsc_unroll 0 pruned");
    CHECK(fam->evaluate(ctx, &tp, &cand, 2, &ms) == CLPK_SUCCESS && ms > 0, "evaluate atomics: %s",
          clpk_last_error(ctx));
    core_params_set(&cand, "team", "32"); /* dsc=atomics ignores team: a duplicate point, pruned */
    CHECK(fam->valid(ctx, &tp, &cand) == 0, "duplicate atomics point kept");
    core_params_set(&cand, "team", "8");
    core_params_set(&cand, "theta_parts", "2"); /* the atomics kernels do not split theta: pruned */
    CHECK(fam->valid(ctx, &tp, &cand) == 0, "theta_parts on atomics kernels kept");
    core_params_parse(&cand, "dsc=voxel,wc=fiber,wg=64,theta_parts=3", NULL);
    CHECK(fam->valid(ctx, &tp, &cand) == 1, "theta_parts 3 at n_theta 96 pruned");
    CHECK(fam->evaluate(ctx, &tp, &cand, 2, &ms) == CLPK_SUCCESS && ms > 0, "evaluate theta_parts 3: %s",
          clpk_last_error(ctx));
    /* dict=half: products checked against D rounded to half, then kept only if the fit's objective moves by at most
     * LIFE_HALF_OBJECTIVE_TOL (test_life_half.c checks both outcomes); on this small problem either may come, and a
     * refusal names the objective */
    core_params_parse(&cand, "theta_parts=1,dict=half", NULL);
    CHECK(fam->valid(ctx, &tp, &cand) == 1, "dict=half pruned on an f32 problem");
    const clpk_status half = fam->evaluate(ctx, &tp, &cand, 2, &ms);
    CHECK(half == CLPK_SUCCESS || (half == CLPK_ERROR_WRONG_RESULT && strstr(clpk_last_error(ctx), "objective")),
          "evaluate dict=half: %d %s", (int)half, clpk_last_error(ctx));
    printf("tuner, quick problem, dict=half: %s\n", half == CLPK_SUCCESS ? "kept" : clpk_last_error(ctx));
    CHECK(strcmp(core_params_get(&tp.klass, "precision"), "f32") == 0 &&
              core_params_get_int(&tp.klass, "n_theta", 0) == 96,
          "problem class");
    fam->problem_destroy(&tp);
    if (clpk_context_device_info(ctx)->has_fp64) { /* dict=half is for f32 plans: pruned on f64 problems */
        o.precision = "f64";
        memset(&tp, 0, sizeof tp);
        if (CHECK(fam->problem_create(ctx, &o, 0, &tp) == CLPK_SUCCESS, "f64 tune problem: %s", clpk_last_error(ctx))) {
            CHECK(fam->valid(ctx, &tp, &cand) == 0, "dict=half kept on an f64 problem");
            core_params_set(&cand, "dict", "full");
            CHECK(fam->valid(ctx, &tp, &cand) == 1, "dict=full pruned on an f64 problem");
            fam->problem_destroy(&tp);
        }
    }
}

static void bad_inputs(clpk_context *ctx, problem *p) {
    clpk_life_plan *plan = NULL;
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, "magic", NULL, &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              !plan,
          "unknown strategy accepted");
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, "sorted", "team=3", &plan) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "team=3 accepted");
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, "sorted", "bogus=1", &plan) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "unknown key accepted");
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, "sorted", "team=64,runs=1024", &plan) ==
              CLPK_ERROR_UNSUPPORTED,
          "over-large work-group accepted");
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, NULL, "wc=nope", &plan) ==
              CLPK_ERROR_INVALID_ARGUMENT,
          "wc=nope accepted");
    int32_t saved = p->data.atoms[3];
    p->data.atoms[3] = p->data.n_atoms;
    clpk_status st = clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, NULL, NULL, &plan);
    CHECK(st == CLPK_ERROR_INVALID_DATA && strstr(clpk_last_error(ctx), "out of range"),
          "atom index out of range: %d %s", (int)st, clpk_last_error(ctx));
    p->data.atoms[3] = saved;
    double phi = p->data.phi[5];
    p->data.phi[5] = NAN;
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_ERROR_INVALID_DATA,
          "NaN phi accepted");
    p->data.phi[5] = phi;
    int32_t nv = p->data.n_voxels;
    p->data.n_voxels = 0;
    CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_ERROR_INVALID_DATA,
          "no voxels accepted");
    p->data.n_voxels = nv;
    /* an undersized buffer is refused before any launch */
    if (CHECK(clpk_life_plan_create(ctx, &p->data, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        cl_int rc;
        cl_mem small = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, 16, NULL, &rc);
        cl_mem big = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE,
                                    (size_t)p->data.n_voxels * p->data.n_theta * 4, NULL, &rc);
        CHECK(clpk_life_dsc(plan, small, big, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "short w accepted");
        CHECK(clpk_life_wc(plan, small, big, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "short y accepted");
        clReleaseMemObject(small);
        clReleaseMemObject(big);
        clpk_life_plan_destroy(plan);
    }
}

/* Built-in defaults per device kind and precision (GPU f64 unrolls by 8 and walks voxels in Morton order, f32 not;
 * GPUs take 8 fibre runs per group; CPUs unroll by 4): host-only check of the table, since CI's device is a CPU.
 * Every value runs in the sweeps. */
static void defaults_per_precision(void) {
    clpk_device_info gpu, cpu;
    memset(&gpu, 0, sizeof gpu);
    memset(&cpu, 0, sizeof cpu);
    gpu.kind = CLPK_DEVICE_GPU;
    cpu.kind = CLPK_DEVICE_CPU;
    const struct {
        const clpk_device_info *dev;
        clpk_precision prec;
        long long unroll, team;
        const char *voxel_order;
        long long wc_runs;
    } want[] = {{&gpu, CLPK_PRECISION_F32, 1, 32, "index", 8},
                {&gpu, CLPK_PRECISION_F64, 8, 32, "morton", 8},
                {&cpu, CLPK_PRECISION_F32, 4, 16, "index", 4},
                {&cpu, CLPK_PRECISION_F64, 4, 16, "index", 4}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        core_params params;
        core_params_clear(&params);
        life_default_params(want[i].dev, want[i].prec, &params);
        CHECK(core_params_get_int(&params, "unroll", -1) == want[i].unroll, "default unroll (case %zu)", i);
        CHECK(core_params_get_int(&params, "team", -1) == want[i].team, "default team (case %zu)", i);
        CHECK(core_params_get_int(&params, "wc_runs", -1) == want[i].wc_runs, "default wc_runs (case %zu)", i);
        CHECK(!strcmp(core_params_get(&params, "voxel_order"), want[i].voxel_order) &&
                  !strcmp(core_params_get(&params, "fiber_order"), "index"),
              "default orders (case %zu)", i);
    }
}

/* theta_parts: the split arithmetic (host only), the L2 rule of the defaults, and every part count on the split
 * kernels (dsc=voxel and wc=fiber at 2 and 4 parts, dsc=staged and wc=staged at 3) in both precisions at n_theta
 * values that do not split evenly, with determinism. */
static void theta_split_host(void) {
    const struct {
        int n_theta, req, vs, parts, len;
    } cases[] = {{96, 1, 8, 1, 96}, {96, 2, 8, 2, 48}, {96, 3, 8, 3, 32}, {96, 4, 8, 4, 24}, {96, 2, 4, 2, 64},
                 {96, 3, 4, 3, 32}, {96, 4, 4, 4, 24}, {7, 2, 8, 2, 4},   {7, 3, 8, 3, 3},   {7, 4, 4, 4, 2},
                 {5, 4, 8, 3, 2},   {1, 4, 8, 1, 1},   {2, 4, 4, 2, 1},   {37, 3, 4, 3, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        int parts = -1, len = -1;
        life_theta_split(cases[i].n_theta, cases[i].req, (size_t)cases[i].vs, &parts, &len);
        CHECK(parts == cases[i].parts && len == cases[i].len, "split of %d into %d (%d B): %d parts of %d",
              cases[i].n_theta, cases[i].req, cases[i].vs, parts, len);
    }
    /* The default is no split (measured slower at every split on the H100, f64 DS1 included). */
    clpk_device_info gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.kind = CLPK_DEVICE_GPU;
    gpu.global_cache_bytes = 50u << 20; /* H100 */
    const uint64_t d64 = 129241ull * 96 * 8, d32 = d64 / 2;
    CHECK(life_default_theta_parts(&gpu, CLPK_PRECISION_F64, d64) == 1, "H100 f64 DS1: no split by default");
    CHECK(life_default_theta_parts(&gpu, CLPK_PRECISION_F32, d32) == 1, "f32 keeps 1");
    gpu.kind = CLPK_DEVICE_CPU;
    CHECK(life_default_theta_parts(&gpu, CLPK_PRECISION_F64, d64) == 1, "CPU keeps 1");
}

static void theta_split_device(clpk_context *ctx, uint64_t *rng) {
    const int has64 = clpk_context_device_info(ctx)->has_fp64;
    const int thetas[] = {7, 96, 1};
    for (int n = 0; n < 3; ++n) {
        life_random_options o = {.n_theta = thetas[n],
                                 .n_atoms = 19,
                                 .n_voxels = 53,
                                 .n_fibers = 41,
                                 .mean_run = 5,
                                 .empty_fraction = 0.1,
                                 .zero_fraction = 0.3,
                                 .noise = 0.01};
        problem p;
        problem_make(&p, &o, rng);
        for (int prec = 0; prec < 2; ++prec) {
            if (prec == 1 && !has64) continue;
            const clpk_precision pr = prec ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            for (int parts = 2; parts <= 4; ++parts) {
                /* 96 splits evenly at every count: one count a precision (f32 4, f64 3; f32 2 is in the o96
                 * strategies) covers it; 7 (partial last parts) takes them all */
                if (thetas[n] == 96 && parts != (pr == CLPK_PRECISION_F32 ? 4 : 3)) continue;
                char params[128];
                /* unroll 2 and wc_runs 2: the unrolled and remainder loops both run on runs of mean length 5; 3 parts
                 * on the staged kernels (the same passes and program), 4 on dsc=voxel4 (at n_theta 7 parts of 2: passes
                 * that start inside a vector of 4) */
                snprintf(params, sizeof params, "%s,team=8,wc_team=8,unroll=2,wc_runs=2,theta_parts=%d",
                         parts == 3   ? "dsc=staged,wc=staged"
                         : parts == 4 ? "dsc=voxel4,wc=fiber4"
                                      : "dsc=voxel,wc=fiber",
                         parts);
                check_plan(ctx, &p, pr, "auto", params, 1);
            }
        }
        /* n_theta 1: any theta_parts is clamped to 1 (documented), never refused */
        if (thetas[n] == 1) {
            clpk_life_plan *plan = NULL;
            if (CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, "sorted", "theta_parts=4", &plan) ==
                          CLPK_SUCCESS,
                      "%s", clpk_last_error(ctx))) {
                CHECK(plan->theta_parts == 1 && plan->part_len == 1, "n_theta 1: %d parts", plan->theta_parts);
                clpk_life_plan_destroy(plan);
            }
        }
        problem_free(&p);
    }
    /* out of 1..4: refused */
    life_random_options o = {.n_theta = 7, .n_atoms = 5, .n_voxels = 9, .n_fibers = 6, .mean_run = 3};
    problem p;
    problem_make(&p, &o, rng);
    clpk_life_plan *plan = NULL;
    CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, "sorted", "theta_parts=5", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              !plan,
          "theta_parts=5 accepted");
    CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, "sorted", "theta_parts=0", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              !plan,
          "theta_parts=0 accepted");
    problem_free(&p);
}

/* Processing orders, host side: the Morton ranks of a known grid, the fallbacks (no grid, too wide a grid), the fibre
 * ranks (a permutation, non-decreasing middle-voxel positions, empty fibres last) and the ranked sort (run r holds
 * exactly key run_key[r]'s coefficients, in the same order as the unranked sort's run of that key). */
static void orders_host(uint64_t *rng) {
    life_random_options o = {.n_theta = 5,
                             .n_atoms = 7,
                             .n_voxels = 64,
                             .n_fibers = 30,
                             .mean_run = 4,
                             .empty_fraction = 0.2,
                             .zero_fraction = 0,
                             .noise = 0};
    clpk_life_dataset d;
    clpk_error err;
    if (!CHECK(life_random_dataset(&o, check_rand(rng), &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    char why[160] = "x";
    int32_t *vr = NULL, *fr = NULL;
    CHECK(life_voxel_rank_morton(&d, &vr, why, sizeof why, &err) == CLPK_SUCCESS && vr && !why[0], "morton ranks");
    if (vr) { /* 64 voxels on a 4^3 grid, x fastest: Z-order visits x, then y, then z at each bit level */
        int seen[64] = {0}, perm = 1;
        for (int v = 0; v < 64; ++v)
            perm &= vr[v] >= 0 && vr[v] < 64 && !seen[vr[v]]++;
        CHECK(perm, "morton ranks are a permutation");
        CHECK(vr[0] == 0 && vr[1] == 1 && vr[4] == 2 && vr[5] == 3 && vr[16] == 4 && vr[2] == 8 && vr[63] == 63,
              "morton ranks of (1,0,0) (0,1,0) (1,1,0) (0,0,1) (2,0,0): %d %d %d %d %d", vr[1], vr[4], vr[5], vr[16],
              vr[2]);
    }
    CHECK(life_fiber_rank_by_voxel(&d, vr, &fr, &err) == CLPK_SUCCESS && fr, "fibre ranks");
    if (fr) {
        int32_t *inv = malloc((size_t)d.n_fibers * sizeof *inv), *cnt = calloc((size_t)d.n_fibers, sizeof *cnt);
        int perm = 1;
        for (int32_t f = 0; f < d.n_fibers; ++f)
            inv[f] = -1;
        for (int32_t f = 0; f < d.n_fibers; ++f)
            if (fr[f] >= 0 && fr[f] < d.n_fibers && inv[fr[f]] < 0)
                inv[fr[f]] = f;
            else
                perm = 0;
        CHECK(perm, "fibre ranks are a permutation");
        for (int64_t k = 0; k < d.n_coeffs; ++k)
            cnt[d.fibers[k]]++;
        int empty_last = 1, seen_empty = 0;
        for (int32_t r = 0; perm && r < d.n_fibers; ++r) {
            if (cnt[inv[r]] == 0)
                seen_empty = 1;
            else if (seen_empty)
                empty_last = 0;
        }
        CHECK(empty_last, "fibres without coefficients rank last");
        free(inv);
        free(cnt);
    }
    for (int which = 0; which < 2; ++which) { /* the ranked sorts by voxel (morton) and by fibre */
        const int32_t *rank = which ? fr : vr;
        const life_order order = which ? LIFE_ORDER_FIBER : LIFE_ORDER_VOXEL;
        life_sorted plain, ranked;
        if (!rank) continue;
        CHECK(life_sort_build(&d, order, 8, NULL, &plain, &err) == CLPK_SUCCESS && !plain.run_key, "plain sort");
        CHECK(life_sort_build(&d, order, 8, rank, &ranked, &err) == CLPK_SUCCESS && ranked.run_key, "ranked sort");
        int same = 1;
        for (int32_t x = 0; same && x < plain.n_keys; ++x) {
            const int32_t r = rank[x];
            same &= ranked.run_key[r] == x;
            const int64_t n = plain.run_ptr[x + 1] - plain.run_ptr[x];
            same &= ranked.run_ptr[r + 1] - ranked.run_ptr[r] == n;
            for (int64_t j = 0; same && j < n; ++j) {
                const int64_t a = plain.run_ptr[x] + j, b = ranked.run_ptr[r] + j;
                same &= plain.atom_off[a] == ranked.atom_off[b] && plain.voxel_off[a] == ranked.voxel_off[b] &&
                        plain.fiber[a] == ranked.fiber[b] && plain.phi[a] == ranked.phi[b];
            }
        }
        CHECK(same, "ranked %s sort: runs differ from the plain sort's", which ? "fibre" : "voxel");
        life_sorted_free(&plain);
        life_sorted_free(&ranked);
    }
    free(vr);
    free(fr);
    /* no grid, and a grid too wide for the 63-bit code: index order with a reason */
    int32_t *ijk = d.voxel_ijk;
    d.voxel_ijk = NULL;
    CHECK(life_voxel_rank_morton(&d, &vr, why, sizeof why, &err) == CLPK_SUCCESS && !vr && strstr(why, "no voxel grid"),
          "no grid: %s", why);
    d.voxel_ijk = ijk;
    ijk[3 * 5] = 1 << 22;
    CHECK(life_voxel_rank_morton(&d, &vr, why, sizeof why, &err) == CLPK_SUCCESS && !vr && strstr(why, "2^21"),
          "wide grid: %s", why);
    clpk_life_dataset_free(&d);
}

/* Processing orders on the device: the ordered DSC voxel and WC fibre, and the pair kernels (wc=pairs's fibre sums in
 * fibre order, unblocked and blocked), give the same bits as index order (each run's sum is unchanged), both
 * precisions (wc=voxel in morton order runs in the sweep); a dataset without a grid falls back to index order with
 * the reason in the description; unknown order names are refused. */
static void orders_device(clpk_context *ctx, uint64_t *rng) {
    life_random_options o = {.n_theta = 37,
                             .n_atoms = 23,
                             .n_voxels = 70,
                             .n_fibers = 45,
                             .mean_run = 6,
                             .empty_fraction = 0.1,
                             .zero_fraction = 0.3,
                             .noise = 0.01};
    problem p;
    problem_make(&p, &o, rng);
    const size_t ny = (size_t)p.data.n_voxels * p.data.n_theta, nw = (size_t)p.data.n_fibers;
    double *y0 = malloc(ny * sizeof *y0), *w0 = malloc(nw * sizeof *w0);
    /* the compiled parameters and work-group sizes of the sweep's second point, so that PoCL reuses its programs
     * (unroll 2 on runs of mean length 6: the unrolled and the remainder loops both run) */
    const char *bases[] = {"dsc=voxel,wc=fiber,team=16,wc_team=16,unroll=2,runs=8,wc_runs=4",
                           "dsc=pairs,wc=pairs,team=16,wc_team=16,unroll=2,runs=8,wc_runs=4",
                           "dsc=pairs,wc=pairs,team=16,wc_team=16,unroll=2,runs=8,wc_runs=4,wc_block=8"};
    const char *base = bases[0];
    char params[192];
    for (int prec = 0; prec < 2; ++prec)
        for (size_t b = 0; b < sizeof bases / sizeof bases[0]; ++b) {
            if (prec == 1 && !clpk_context_device_info(ctx)->has_fp64) continue;
            const clpk_precision pr = prec ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            base = bases[b];
            snprintf(params, sizeof params, "%s,voxel_order=index,fiber_order=index", base);
            if (!baseline_products(ctx, &p, pr, params, y0, w0)) continue;
            const char *orders[] = {"voxel_order=morton,fiber_order=index", "voxel_order=index,fiber_order=voxel",
                                    "voxel_order=morton,fiber_order=voxel"};
            for (int i = b == 0 ? 0 : 2; i < 3; ++i) { /* the pair kernels: both orders at once */
                snprintf(params, sizeof params, "%s,%s", base, orders[i]);
                check_plan(ctx, &p, pr, "auto", params, 1); /* reference error and repeatability */
                clpk_life_plan *plan = NULL;
                if (!CHECK(clpk_life_plan_create(ctx, &p.data, pr, "auto", params, &plan) == CLPK_SUCCESS, "%s",
                           clpk_last_error(ctx)))
                    continue;
                CHECK((plan->dsc_key != NULL) == (strstr(orders[i], "morton") != NULL) &&
                          (plan->wc_key != NULL) == (strstr(orders[i], "fiber_order=voxel") != NULL),
                      "keys of %s", orders[i]);
                CHECK(run_product(ctx, plan, 1, p.w, p.y_got) == CLPK_SUCCESS &&
                          memcmp(p.y_got, y0, ny * sizeof *y0) == 0,
                      "DSC %s [%s]: not bitwise equal to index order", clpk_precision_name(pr), orders[i]);
                CHECK(run_product(ctx, plan, 0, p.y, p.w_got) == CLPK_SUCCESS &&
                          memcmp(p.w_got, w0, nw * sizeof *w0) == 0,
                      "WC %s [%s]: not bitwise equal to index order", clpk_precision_name(pr), orders[i]);
                clpk_life_plan_destroy(plan);
            }
        }
    base = bases[0];
    /* no grid: index order, the reason in the description, results still right */
    int32_t *ijk = p.data.voxel_ijk;
    p.data.voxel_ijk = NULL;
    clpk_life_plan *plan = NULL;
    snprintf(params, sizeof params, "%s,voxel_order=morton,fiber_order=voxel", base);
    if (CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, "sorted", params, &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        char text[1024];
        clpk_life_plan_describe(plan, text, sizeof text);
        CHECK(plan->voxel_order == LIFE_VOXEL_ORDER_INDEX && !plan->dsc_key && plan->wc_key &&
                  strstr(text, "no voxel grid"),
              "no-grid fallback: %s", text);
        clpk_life_plan_destroy(plan);
    }
    check_plan(ctx, &p, CLPK_PRECISION_F32, "sorted", params, 1);
    p.data.voxel_ijk = ijk;
    plan = NULL;
    CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, "sorted", "voxel_order=hilbert", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              !plan,
          "voxel_order=hilbert accepted");
    CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, "sorted", "fiber_order=atom", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              !plan,
          "fiber_order=atom accepted");
    free(y0);
    free(w0);
    problem_free(&p);
}

/* w[f] = sum over fibre f's (pair, phi) of phi dot[pair]: the WC's second step on the host, the fibre side's runs in
 * its order (fiber_key). */
static void pair_sums(const life_pairs *pr, const double *dot, double *w) {
    for (int32_t r = 0; r < pr->n_fibers; ++r) {
        const int32_t f = pr->fiber_key ? pr->fiber_key[r] : r;
        w[f] = 0;
        for (int64_t j = pr->fiber_ptr[r]; j < pr->fiber_ptr[r + 1]; ++j)
            w[f] += pr->fiber_phi[j] * dot[pr->fiber_pair[j]];
    }
}

/* The pair-merged copy (life_pairs_build) on the host, index and Morton order: runs and pairs consistent, atoms
 * ascending and unique within a run, and the products formed through it (one dot product or one weight sum per pair)
 * equal to the reference. */
static void pairs_host(uint64_t *rng) {
    life_random_options o = {.n_theta = 9,
                             .n_atoms = 6,
                             .n_voxels = 64,
                             .n_fibers = 40,
                             .mean_run = 5,
                             .empty_fraction = 0.1,
                             .zero_fraction = 0.2,
                             .noise = 0};
    clpk_life_dataset d;
    clpk_error err;
    if (!CHECK(life_random_dataset(&o, check_rand(rng), &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    const int nt = d.n_theta, ld = 12;
    const size_t ny = (size_t)d.n_voxels * nt, nw = (size_t)d.n_fibers;
    double *w = malloc(nw * sizeof *w), *y = malloc(ny * sizeof *y), *y_ref = malloc(ny * sizeof *y_ref),
           *w_ref = malloc(nw * sizeof *w_ref), *y_got = calloc(ny, sizeof *y_got), *w_got = calloc(nw, sizeof *w_got);
    for (size_t i = 0; i < nw; ++i)
        w[i] = check_rand_double(rng);
    for (size_t i = 0; i < ny; ++i)
        y[i] = 2 * check_rand_double(rng) - 1;
    life_ref_dsc(&d, w, y_ref);
    life_ref_wc(&d, y, w_ref);
    int32_t *rank = NULL;
    char why[160];
    CHECK(life_voxel_rank_morton(&d, &rank, why, sizeof why, &err) == CLPK_SUCCESS && rank, "morton ranks: %s", why);
    int32_t *fiber_rank = NULL; /* the ranked build's fibre side: by the middle voxel's Morton position */
    CHECK(life_fiber_rank_by_voxel(&d, rank, &fiber_rank, &err) == CLPK_SUCCESS, "%s", err.message);
    for (int ranked = 0; ranked < 2; ++ranked) {
        life_pairs pr;
        if (!CHECK(life_pairs_build(&d, ld, ranked ? rank : NULL, ranked ? fiber_rank : NULL, &pr, &err) ==
                       CLPK_SUCCESS,
                   "%s", err.message))
            continue;
        CHECK((pr.run_key != NULL) == ranked && (pr.fiber_key != NULL) == ranked && pr.n_pairs > 0 &&
                  pr.n_pairs < d.n_coeffs && pr.run_pair[d.n_voxels] == pr.n_pairs &&
                  pr.run_coeff[d.n_voxels] == d.n_coeffs && pr.fiber_ptr[d.n_fibers] == d.n_coeffs,
              "pairs %lld of %lld coefficients", (long long)pr.n_pairs, (long long)d.n_coeffs);
        int ok = 1;
        for (int32_t r = 0; ranked && r < d.n_fibers; ++r)
            ok &= fiber_rank[pr.fiber_key[r]] == r;
        double *dot = malloc((size_t)pr.n_pairs * sizeof *dot);
        memset(y_got, 0, ny * sizeof *y_got);
        for (int32_t r = 0; ok && r < d.n_voxels; ++r) {
            const int32_t v = ranked ? pr.run_key[r] : r;
            ok &= !ranked || rank[v] == r;
            int64_t j = pr.run_coeff[r];
            for (int64_t p = pr.run_pair[r]; ok && p < pr.run_pair[r + 1]; ++p) {
                ok &= pr.pair_len[p] > 0 && pr.pair_voxel_off[p] == v * nt && pr.pair_atom_off[p] % ld == 0;
                ok &= p == pr.run_pair[r] || pr.pair_atom_off[p] > pr.pair_atom_off[p - 1];
                ok &= pr.pair_coeff[p] == j && pr.pair_coeff[p + 1] == j + pr.pair_len[p];
                double s = 0, c = 0;
                for (int64_t e = 0; e < pr.pair_len[p]; ++e, ++j)
                    s += pr.phi[j] * w[pr.fiber[j]];
                for (int t = 0; t < nt; ++t) {
                    y_got[(size_t)v * nt + t] += s * d.dictionary[(size_t)(pr.pair_atom_off[p] / ld) * nt + t];
                    c += d.dictionary[(size_t)(pr.pair_atom_off[p] / ld) * nt + t] * y[(size_t)v * nt + t];
                }
                dot[p] = c;
            }
            ok &= j == pr.run_coeff[r + 1];
        }
        CHECK(ok, "pair structure (%s order)", ranked ? "morton" : "index");
        const double exact = (double)d.n_coeffs / (double)pr.n_pairs, estimate = life_pair_ratio_estimate(&d);
        CHECK(fabs(estimate - exact) <= 1e-12 * exact, "pair ratio below 8192 voxels: %.6g, exact %.6g", estimate,
              exact);
        pair_sums(&pr, dot, w_got);
        CHECK(check_rel_error(y_ref, y_got, ny) <= 1e-13, "DSC through the pairs (%s): %.3g",
              ranked ? "morton" : "index", check_rel_error(y_ref, y_got, ny));
        CHECK(check_rel_error(w_ref, w_got, nw) <= 1e-13, "WC through the pairs (%s): %.3g",
              ranked ? "morton" : "index", check_rel_error(w_ref, w_got, nw));
        /* the block order (wc_block): chunks of at most 3 pairs inside one block of 8 runs, atoms ascending within a
         * block, each pair's voxel the run at its place in the block, and the renumbered fibre side giving the same
         * WC through the dot products in block order */
        const int64_t np = pr.n_pairs;
        if (CHECK(life_pairs_block_order(&pr, 8, 3, d.n_atoms, ld, &err) == CLPK_SUCCESS, "%s", err.message)) {
            int bok = pr.n_chunks > 0 && pr.chunk_pair[0] == 0 && pr.chunk_pair[pr.n_chunks] == np;
            int32_t prev_block = -1, prev_atom_off = -1;
            for (int32_t c = 0; bok && c < pr.n_chunks; ++c) {
                const int32_t b = pr.chunk_block[c];
                bok &= pr.chunk_pair[c + 1] > pr.chunk_pair[c] && pr.chunk_pair[c + 1] - pr.chunk_pair[c] <= 3;
                bok &= b >= prev_block;
                for (int64_t i = pr.chunk_pair[c]; bok && i < pr.chunk_pair[c + 1]; ++i) {
                    const int32_t r = b * 8 + pr.block_vloc[i];
                    bok &= pr.block_vloc[i] < 8 && r < d.n_voxels &&
                           pr.block_voxel_off[i] == (ranked ? pr.run_key[r] : r) * nt;
                    bok &= b != prev_block || pr.block_atom_off[i] >= prev_atom_off;
                    prev_block = b;
                    prev_atom_off = pr.block_atom_off[i];
                    dot[i] = 0;
                    for (int t = 0; t < nt; ++t)
                        dot[i] += d.dictionary[(size_t)(pr.block_atom_off[i] / ld) * nt + t] *
                                  y[(size_t)pr.block_voxel_off[i] + t];
                }
            }
            CHECK(bok, "block order structure (%s order)", ranked ? "morton" : "index");
            pair_sums(&pr, dot, w_got);
            CHECK(check_rel_error(w_ref, w_got, nw) <= 1e-13, "WC through the block order (%s): %.3g",
                  ranked ? "morton" : "index", check_rel_error(w_ref, w_got, nw));
        }
        free(dot);
        life_pairs_free(&pr);
    }
    free(rank);
    free(fiber_rank);
    free(w), free(y), free(y_ref), free(w_ref), free(y_got), free(w_got);
    clpk_life_dataset_free(&d);
}

/* The sampled pair ratio (life_pair_ratio_estimate) against the pair build's exact
 * Nc / Np on a synthetic tractogram ("medium": bundles, ~54 000 voxels: 1 in 13 sampled), and the GPU default it
 * drives: dsc=pairs exactly when the estimate reaches LIFE_PAIRS_MIN_RATIO, never on a CPU. */
static void pair_ratio_sampled(uint64_t *rng) {
    clpk_life_dataset d;
    clpk_error err;
    if (!life_check_synth("medium", rng, &d)) return;
    life_pairs pr;
    if (CHECK(d.n_voxels >= 2 * LIFE_PAIR_SAMPLE_VOXELS, "medium synth has %d voxels", d.n_voxels) &&
        CHECK(life_pairs_build(&d, 64, NULL, NULL, &pr, &err) == CLPK_SUCCESS, "%s", err.message)) {
        const double exact = (double)d.n_coeffs / (double)pr.n_pairs, estimate = life_pair_ratio_estimate(&d);
        CHECK(fabs(estimate - exact) <= 0.1 * exact, "sampled pair ratio %.4g, exact %.4g", estimate, exact);
        printf("pair ratio of medium synth: sampled %.4g, exact %.4g (%lld coefficients)\n", estimate, exact,
               (long long)d.n_coeffs);
        clpk_device_info gpu = {.kind = CLPK_DEVICE_GPU}, cpu = {.kind = CLPK_DEVICE_CPU};
        core_params p;
        core_params_clear(&p);
        CHECK(life_default_pairs(&gpu, CLPK_PRECISION_F32, &d, &p) == estimate, "the GPU rule reads the estimate");
        const char *dsc = core_params_get(&p, "dsc"), *wc = core_params_get(&p, "wc");
        CHECK(life_pairs_pay(d.n_coeffs, estimate) == (dsc && strcmp(dsc, "pairs") == 0) &&
                  (dsc != NULL) == (wc && strcmp(wc, "pairs") == 0),
              "GPU defaults dsc=%s wc=%s at %.4g", dsc ? dsc : "(none)", wc ? wc : "(none)", estimate);
        /* the model at the sizes measured on the H200: DS1 (pairs 1.52x faster), synth medium (2.2x), synth small
         * (the second launch costs more than the rows save: voxel 20 % faster over a fit), and DS1 without merging */
        CHECK(life_pairs_pay(57190140, 2.15) && life_pairs_pay(2146102, 5.4) && !life_pairs_pay(50464, 12.6) &&
                  !life_pairs_pay(57190140, 1.2),
              "the pair rule at the measured points");
        /* the WC's voxel blocks: 32 voxels in f32, 16 in f64 (n_theta 96), halved where local memory is short, none
         * where not even 8 voxels' rows fit; the pair rule's Morton order either way */
        const struct {
            clpk_precision prec;
            uint64_t local;
            long long block;
        } blocks[] = {{CLPK_PRECISION_F32, 48 * 1024, 32}, {CLPK_PRECISION_F64, 48 * 1024, 16},
                      {CLPK_PRECISION_F32, 16 * 1024, 16}, {CLPK_PRECISION_F32, 4 * 1024, 0}};
        const int pairs_chosen = dsc != NULL; /* p is reused below */
        /* medium synth is below the size rule on a device of 132 compute units; one unit counts it as large */
        gpu.compute_units = 132;
        core_params_clear(&p);
        gpu.local_mem_bytes = 48 * 1024;
        life_default_pairs(&gpu, CLPK_PRECISION_F32, &d, &p);
        const char *morton = core_params_get(&p, "voxel_order"), *fibres = core_params_get(&p, "fiber_order");
        CHECK(!pairs_chosen || (!core_params_get(&p, "wc_block") && !core_params_get(&p, "runs") &&
                                !core_params_get(&p, "dsc_unroll") && morton &&
                                strcmp(morton, "morton") == 0 && fibres && strcmp(fibres, "voxel") == 0),
              "medium synth, 132 compute units: wc_block %s, runs %s (expected none), voxel_order %s, fiber_order %s",
              core_params_get(&p, "wc_block") ? core_params_get(&p, "wc_block") : "(none)",
              core_params_get(&p, "runs") ? core_params_get(&p, "runs") : "(none)", morton ? morton : "(table)",
              fibres ? fibres : "(table)");
        gpu.compute_units = 1;
        for (int i = 0; i < 4 && pairs_chosen; ++i) {
            gpu.local_mem_bytes = blocks[i].local;
            core_params_clear(&p);
            life_default_pairs(&gpu, blocks[i].prec, &d, &p);
            const char *order = core_params_get(&p, "voxel_order");
            /* the large-problem branch: 16 voxel runs a DSC group, f32's DSC loop at unroll 4, and with the blocks
             * 32 teams a group */
            CHECK(core_params_get_int(&p, "wc_block", 0) == blocks[i].block &&
                      core_params_get_int(&p, "runs", 4) == 16 &&
                      core_params_get_int(&p, "dsc_unroll", 0) == (blocks[i].prec == CLPK_PRECISION_F32 ? 4 : 0) &&
                      core_params_get_int(&p, "wc_runs", 16) == (blocks[i].block ? 32 : 16) && order &&
                      strcmp(order, "morton") == 0,
                  "%s, %llu bytes of local memory: wc_block %lld (expected %lld), voxel_order %s",
                  clpk_precision_name(blocks[i].prec), (unsigned long long)blocks[i].local,
                  core_params_get_int(&p, "wc_block", 0), blocks[i].block, order ? order : "(table)");
        }
        core_params_clear(&p);
        CHECK(life_default_pairs(&cpu, CLPK_PRECISION_F32, &d, &p) == 0 && !core_params_get(&p, "dsc"),
              "no pair rule on CPUs");
        life_pairs_free(&pr);
    }
    clpk_life_dataset_free(&d);
}

/* The pair kernels on a synthetic tractogram (clpk_life_synth "tiny": bundles, so many coefficients share a (voxel,
 * atom) pair) against the reference, both voxel orders and precisions, with repeatable bits. */
static void pairs_synth(clpk_context *ctx, uint64_t *rng) {
    clpk_life_synth_options so;
    clpk_error err;
    if (!CHECK(clpk_life_synth_defaults("tiny", &so) == CLPK_SUCCESS, "synth defaults")) return;
    so.seed = check_rand(rng);
    problem p;
    memset(&p, 0, sizeof p);
    if (!CHECK(clpk_life_synth(&so, &p.data, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    const size_t ny = (size_t)p.data.n_voxels * p.data.n_theta, nw = (size_t)p.data.n_fibers;
    p.w = malloc(nw * sizeof(double));
    p.y = malloc(ny * sizeof(double));
    p.y_ref = malloc(ny * sizeof(double));
    p.y_got = malloc(ny * sizeof(double));
    p.w_ref = malloc(nw * sizeof(double));
    p.w_got = malloc(nw * sizeof(double));
    for (size_t i = 0; i < nw; ++i)
        p.w[i] = check_rand_double(rng) < 0.2 ? 0 : check_rand_double(rng);
    for (size_t i = 0; i < ny; ++i)
        p.y[i] = p.data.signal[i];
    problem_refs(&p);
    /* dsc_unroll: the DSC's loop unrolled apart from the WC's rounds, its remainder loop running */
    const char *params[] = {"dsc=pairs,wc=pairs,voxel_order=index",
                            "dsc=pairs,wc=pairs,voxel_order=morton,unroll=2,dsc_unroll=4",
                            "dsc=pairs,wc=pairs,theta_parts=2,team=8,wc_team=8,wc_runs=2,unroll=4,dsc_unroll=1"};
    for (int prec = 0; prec < 2; ++prec) {
        if (prec == 1 && !clpk_context_device_info(ctx)->has_fp64) continue;
        for (size_t i = 0; i < sizeof params / sizeof params[0]; ++i)
            check_plan(ctx, &p, prec ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32, "auto", params[i], 1);
    }
    problem_free(&p);
}

/* The staged kernels on runs of many chunks (voxel runs of ~37 coefficients, fibre runs up to 60, a fifth of the fibres
 * empty, so a group's teams take different chunk counts and some none; voxel and fibre counts not multiples of the
 * teams per group): against the reference, repeatable, and bit for bit dsc=voxel's and wc=fiber's results with the
 * same parameters (the same per-lane summation order), in both precisions, with both orders and dict=half
 * (theta_parts: theta_split_device); and the pair kernels on the same long runs, against the reference. n_theta and
 * the compiled parameters are the sweep's first three points', so PoCL reuses their programs. */
static void staged_device(clpk_context *ctx, uint64_t *rng) {
    life_random_options o = {.n_theta = 37,
                             .n_atoms = 23,
                             .n_voxels = 29,
                             .n_fibers = 45,
                             .mean_run = 30,
                             .empty_fraction = 0.2,
                             .zero_fraction = 0.3,
                             .noise = 0.01};
    problem p;
    problem_make(&p, &o, rng);
    const size_t ny = (size_t)p.data.n_voxels * p.data.n_theta, nw = (size_t)p.data.n_fibers;
    double *y0 = malloc(ny * sizeof *y0), *w0 = malloc(nw * sizeof *w0);
    /* unroll 2 and 4 over chunks of 16 and 32 with partial last chunks: the unrolled and the remainder loops run */
    const char *bases[] = {"team=8,runs=4,unroll=1,wc_team=8,wc_runs=2,voxel_order=index,fiber_order=index",
                           "team=16,runs=8,unroll=2,wc_team=16,wc_runs=4,voxel_order=morton,fiber_order=voxel",
                           "team=32,runs=1,unroll=4,wc_team=32,wc_runs=8,voxel_order=index,fiber_order=index"};
    for (int prec = 0; prec < 2; ++prec) {
        if (prec == 1 && !clpk_context_device_info(ctx)->has_fp64) continue;
        const clpk_precision pr = prec ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        for (size_t b = 0; b < sizeof bases / sizeof bases[0]; ++b) {
            /* the sweep's second point stores D as half in f32 (f32 plans only) */
            const char *dict = b == 1 && pr == CLPK_PRECISION_F32 ? ",dict=half" : "";
            char params[192];
            snprintf(params, sizeof params, "dsc=voxel,wc=fiber,%s%s", bases[b], dict);
            if (!baseline_products(ctx, &p, pr, params, y0, w0)) continue;
            snprintf(params, sizeof params, "dsc=staged,wc=staged,%s%s", bases[b], dict);
            check_plan(ctx, &p, pr, "auto", params, 1); /* leaves its products in y_got and w_got */
            CHECK(memcmp(p.y_got, y0, ny * sizeof *y0) == 0, "DSC staged %s [%s]: not bitwise dsc=voxel's",
                  clpk_precision_name(pr), params);
            CHECK(memcmp(p.w_got, w0, nw * sizeof *w0) == 0, "WC staged %s [%s]: not bitwise wc=fiber's",
                  clpk_precision_name(pr), params);
            /* the pair kernels on the same long runs (the sweep's are short): a team's lanes take several of a
             * fibre's coefficients each */
            snprintf(params, sizeof params, "dsc=pairs,wc=pairs,%s%s", bases[b], dict);
            check_plan(ctx, &p, pr, "auto", params, 1);
        }
    }
    free(y0);
    free(w0);
    problem_free(&p);
}

int main(void) {
    uint64_t rng = check_seed();
    defaults_per_precision();
    theta_split_host();
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, NULL) != CLPK_SUCCESS) {
        printf("no OpenCL device: skipping\n");
        CHECK(0, "no device");
        return check_summary();
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s\n", dev->name);
    /* n_theta 37: not a multiple of any team width; empty voxels and fibres; runs longer and shorter than unroll */
    life_random_options o = {.n_theta = 37,
                             .n_atoms = 23,
                             .n_voxels = 61,
                             .n_fibers = 47,
                             .mean_run = 6,
                             .empty_fraction = 0.1,
                             .zero_fraction = 0.3,
                             .noise = 0.01};
    problem p;
    problem_make(&p, &o, &rng);
    sweep(ctx, &p, CLPK_PRECISION_F32);
    if (dev->has_fp64)
        sweep(ctx, &p, CLPK_PRECISION_F64);
    else
        printf("no fp64 on this device: f64 sweep skipped\n");
    bad_inputs(ctx, &p);
    problem_free(&p);
    tuner_family(ctx, &rng);
    theta_split_device(ctx, &rng);
    orders_host(&rng);
    orders_device(ctx, &rng);
    pairs_host(&rng);
    pair_ratio_sampled(&rng);
    pairs_synth(ctx, &rng);
    staged_device(ctx, &rng);

    /* The seed's shape (n_theta 96) with the named strategies and the defaults. */
    life_random_options o96 = {.n_theta = 96,
                               .n_atoms = 50,
                               .n_voxels = 200,
                               .n_fibers = 120,
                               .mean_run = 10,
                               .empty_fraction = 0.05,
                               .zero_fraction = 0.2,
                               .noise = 0};
    problem_make(&p, &o96, &rng);
    const char *strategies[] = {"auto", "atomics", "sorted", "timed"};
    for (int s = 0; s < 4; ++s) {
        check_plan(ctx, &p, CLPK_PRECISION_F32, strategies[s], NULL, 0);
        if (dev->has_fp64) check_plan(ctx, &p, CLPK_PRECISION_F64, strategies[s], NULL, 0);
    }
    check_plan(ctx, &p, CLPK_PRECISION_F32, "sorted", "theta_parts=2", 1);
    /* Host conveniences agree with the reference too. */
    clpk_life_plan *plan = NULL;
    if (CHECK(clpk_life_plan_create(ctx, &p.data, CLPK_PRECISION_F32, NULL, NULL, &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        const size_t ny = (size_t)p.data.n_voxels * p.data.n_theta;
        CHECK(clpk_life_dsc_host(plan, p.w, p.y_got) == CLPK_SUCCESS, "%s", clpk_last_error(ctx));
        CHECK(check_rel_error(p.y_ref, p.y_got, ny) <= 2e-5, "dsc_host error");
        CHECK(clpk_life_wc_host(plan, p.y, p.w_got) == CLPK_SUCCESS, "%s", clpk_last_error(ctx));
        CHECK(check_rel_error(p.w_ref, p.w_got, (size_t)p.data.n_fibers) <= 2e-5, "wc_host error");
        char text[512];
        clpk_life_plan_describe(plan, text, sizeof text);
        printf("%s\n", text);
        clpk_life_plan_destroy(plan);
    }
    problem_free(&p);
    clpk_context_destroy(ctx);
    return check_summary();
}
