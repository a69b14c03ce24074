/* Every (m, n) with 2 <= m, n <= 8: the generated kernel (where the plan would unroll) and the general kernel against
 * the double-precision CPU reference, start by start, on random symmetric tensors with NaN-poisoned outputs. The
 * mapping parameters rotate over the shapes so that every value of every tunable parameter (kernel, entries, wg,
 * check_every), both precisions, both directions, the fixed and bound shifts and all three kinds of starts are run:
 *  - one iteration with alpha = 0 exposes each gradient component directly (x1 = y0/|y0|);
 *  - the bound shift or the adaptive shift (the default; generated and general kernels, its cases rotating over every
 *    work-group size and check interval the tuner offers) over two blocks checks the shift computed in the kernel and
 *    the block/check logic. */
#include "clpk_sshopm.h"
#include "sshopm_util.h"
#include "tune.h"

static const int wgs[] = {8, 32, 64, 128, 256};
static const int checks[] = {1, 4, 8};
static const int starts_counts[] = {5, 8, 16};
/* the adaptive shift runs under whatever mapping a profile picked: the values the tuner searches (the table's) */
static int adaptive_wgs[CLPK_TUNE_MAX_VALUES], adaptive_checks[CLPK_TUNE_MAX_VALUES];
static int adaptive_wg_count, adaptive_check_count;

/* The integer values the tuner searches for the table's parameter `name`. */
static int search_ints(const char *name, int *out) {
    const char *values[CLPK_TUNE_MAX_VALUES];
    char storage[256];
    int n = core_param_search_values(core_param_find(&sshopm_param_table, name), values, storage, sizeof storage,
                                     CLPK_TUNE_MAX_VALUES);
    for (int i = 0; i < n; ++i)
        out[i] = atoi(values[i]);
    return n;
}
static const char *const entries_names[] = {"local", "global", "private"};

typedef struct sweep_case {
    int m, n;
    clpk_precision prec;
    int generated;
    const char *entries;
    int wg, check_every, V;
    int fixed_zero; /* 1: alpha = 0 for one block; 0: bound (or adaptive) shift for two blocks */
    int adaptive;   /* with fixed_zero 0: the adaptive shift instead of the bound */
    int direction;
    clpk_sshopm_starts starts_kind;
} sweep_case;

/* Reference starts exactly as the plan/kernel make them. */
static void ref_start(const sweep_case *c, uint64_t seed, const double *shared, int64_t t, int s, double *x) {
    const int n = c->n;
    double norm2 = 0;
    for (int i = 0; i < n; ++i) {
        x[i] = c->starts_kind == CLPK_SSHOPM_STARTS_PER_TENSOR ? sshopm_start_component(seed, t, s, i, n)
                                                               : shared[s * n + i];
        norm2 += x[i] * x[i];
    }
    if (norm2 < 1e-6)
        for (int i = 0; i < n; ++i) x[i] = (i == s % n);
    else
        for (int i = 0; i < n; ++i) x[i] /= sqrt(norm2);
}

static double sum_abs_terms(const sshopm_index *idx, const double *a) {
    double s = 0;
    for (int u = 0; u < idx->U; ++u) s += idx->mult[u] * fabs(a[u]);
    return s;
}

static void run_case(clpk_context *ctx, const sweep_case *c, uint64_t *rng, int *programs) {
    const int m = c->m, n = c->n, V = c->V, T = 3;
    const int U = clpk_sshopm_unique_count(m, n);
    sshopm_index idx;
    sshopm_index_build(m, n, &idx, NULL);
    double *a = malloc((size_t)T * U * sizeof *a);
    for (int t = 0; t < T; ++t) sshopm_random_tensor(rng, U, a + (size_t)t * U);
    uint64_t seed = check_rand(rng);
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = V;
    o.starts_kind = c->starts_kind;
    o.seed = seed;
    o.find = c->direction > 0 ? CLPK_SSHOPM_FIND_MAX : CLPK_SSHOPM_FIND_MIN;
    o.shift = c->fixed_zero ? CLPK_SSHOPM_SHIFT_FIXED
              : c->adaptive ? CLPK_SSHOPM_SHIFT_ADAPTIVE
                            : CLPK_SSHOPM_SHIFT_BOUND;
    o.alpha = 0;
    o.tol = 1e-300; /* effectively never: a fixed number of iterations */
    if (c->prec == CLPK_PRECISION_F32) o.tol = 1e-30;
    /* a full block, then (check_every > 1) a partial one: max_iter is honoured exactly */
    o.max_iter = c->fixed_zero ? c->check_every : 2 * c->check_every - (c->check_every > 1);
    char params[128];
    snprintf(params, sizeof params, "kernel=%s,entries=%s,wg=%d,check_every=%d", c->generated ? "generated" : "general",
             c->entries, c->wg, c->check_every);
    o.params = params;
    char label[256];
    snprintf(label, sizeof label, "(%d,%d) %s %s %s %s V=%d dir=%+d starts=%d", m, n, clpk_precision_name(c->prec),
             params,
             c->fixed_zero ? "alpha=0"
             : c->adaptive ? "adaptive"
                           : "bound",
             c->generated ? "gen" : "general", V, c->direction, (int)c->starts_kind);
    clpk_sshopm_plan *plan = NULL;
    double t0 = core_wall_seconds();
    clpk_status st = clpk_sshopm_plan_create(ctx, m, n, c->prec, T, &o, &plan);
    double t_build = core_wall_seconds() - t0;
    if (st == CLPK_ERROR_UNSUPPORTED && !strcmp(c->entries, "local")) {
        /* Too much local memory for this device: the refusal must say so; run global instead. */
        CHECK(strstr(clpk_last_error(ctx), "local memory") != NULL, "%s: unclear refusal: %s", label,
              clpk_last_error(ctx));
        sweep_case g = *c;
        g.entries = "global";
        free(a);
        sshopm_index_free(&idx);
        run_case(ctx, &g, rng, programs);
        return;
    }
    if (!CHECK(st == CLPK_SUCCESS, "%s: plan: %s", label, clpk_last_error(ctx))) {
        free(a);
        sshopm_index_free(&idx);
        return;
    }
    ++*programs;
    CHECK(clpk_sshopm_plan_is_generated(plan) == c->generated, "%s: kernel choice", label);
    const size_t vs = clpk_precision_size(c->prec);
    const size_t nl = (size_t)T * V, nx = nl * n;
    cl_context cc = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc;
    void *ht = malloc((size_t)T * U * vs), *hl = malloc(nl * vs), *hx = malloc(nx * vs);
    int32_t *hi = malloc(nl * sizeof *hi);
    for (size_t i = 0; i < (size_t)T * U; ++i) {
        if (vs == 8)
            ((double *)ht)[i] = a[i];
        else
            ((float *)ht)[i] = (float)a[i];
    }
    cl_mem bt = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)T * U * vs, ht, &rc);
    cl_mem bl = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * vs, NULL, &rc);
    cl_mem bx = clCreateBuffer(cc, CL_MEM_READ_WRITE, nx * vs, NULL, &rc);
    cl_mem bi = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * sizeof(cl_int), NULL, &rc);
    /* Poison: NaN values, info -1 (an impossible status). */
    const double nan_d = NAN;
    const float nan_f = NAN;
    const cl_int minus1 = -1;
    clEnqueueFillBuffer(q, bl, vs == 8 ? (const void *)&nan_d : (const void *)&nan_f, vs, 0, nl * vs, 0, NULL, NULL);
    clEnqueueFillBuffer(q, bx, vs == 8 ? (const void *)&nan_d : (const void *)&nan_f, vs, 0, nx * vs, 0, NULL, NULL);
    clEnqueueFillBuffer(q, bi, &minus1, sizeof minus1, 0, nl * sizeof(cl_int), 0, NULL, NULL);
    t0 = core_wall_seconds();
    st = clpk_sshopm_execute(plan, T, bt, c->direction, bl, bx, bi, 0, NULL, NULL);
    CHECK(st == CLPK_SUCCESS, "%s: execute: %s", label, clpk_last_error(ctx));
    clEnqueueReadBuffer(q, bl, CL_TRUE, 0, nl * vs, hl, 0, NULL, NULL);
    clEnqueueReadBuffer(q, bx, CL_TRUE, 0, nx * vs, hx, 0, NULL, NULL);
    clEnqueueReadBuffer(q, bi, CL_TRUE, 0, nl * sizeof *hi, hi, 0, NULL, NULL);
    double t_run = core_wall_seconds() - t0;
    check_build_time("sshopm", label, t_build + t_run); /* one run per plan: PoCL compiles at its first launch */

    double *shared = malloc((size_t)V * n * sizeof *shared);
    sshopm_make_starts(n, V, c->starts_kind == CLPK_SSHOPM_STARTS_PER_TENSOR ? 0 : (int)c->starts_kind, seed, shared,
                       NULL);
    const double eps = c->prec == CLPK_PRECISION_F64 ? 2.2e-16 : 1.2e-7;
    double worst_l = 0, worst_x = 0;
    int bad = 0;
    for (int t = 0; t < T; ++t) {
        const double *at = a + (size_t)t * U;
        const double scale = sum_abs_terms(&idx, at);
        for (int s = 0; s < V; ++s) {
            const size_t g = (size_t)t * V + s;
            double x[SSHOPM_MAX_DIM], y0[SSHOPM_MAX_DIM], lam;
            int its;
            ref_start(c, seed, shared, t, s, x);
            sshopm_ref_gradient(&idx, at, x, y0);
            double ny = 0;
            for (int i = 0; i < n; ++i) ny += y0[i] * y0[i];
            ny = sqrt(ny);
            double x0[SSHOPM_MAX_DIM];
            memcpy(x0, x, sizeof x0);
            /* the adaptive shift's fallback threshold of the kernel's precision */
            const double drop = c->prec == CLPK_PRECISION_F64 ? SSHOPM_DROP_EPS_F64 : SSHOPM_DROP_EPS_F32;
            int rst = sshopm_ref_run_drop(&idx, at, x, c->direction, o.shift, 0, 0, 0, o.max_iter, c->check_every,
                                          drop, &lam, &its);
            /* lambda can stop changing exactly (a fixed point of the rounded map), which counts as converged even
             * at tol ~ 0, on one side and not the other, while x still creeps: then the reference is rerun for
             * exactly the kernel's iterations (tol -1 never converges) and only the values are compared. */
            const int ks = CLPK_SSHOPM_INFO_STATUS(hi[g]), kits = CLPK_SSHOPM_INFO_ITERATIONS(hi[g]);
            const int stall = hi[g] != -1 && ks != CLPK_SSHOPM_FAILED && rst != CLPK_SSHOPM_FAILED &&
                              (ks != rst || kits != its) && kits > 0 && kits <= o.max_iter;
            if (stall) {
                memcpy(x, x0, sizeof x0);
                sshopm_ref_run_drop(&idx, at, x, c->direction, o.shift, 0, -1, 0, kits, c->check_every, drop, &lam,
                                    &its);
            }
            double gl = vs == 8 ? ((double *)hl)[g] : ((float *)hl)[g];
            double gx[SSHOPM_MAX_DIM];
            for (int i = 0; i < n; ++i) gx[i] = vs == 8 ? ((double *)hx)[g * n + i] : ((float *)hx)[g * n + i];
            /* One block at alpha = 0 amplifies rounding by scale/|y0|; the bound shift damps it. */
            double amp = c->fixed_zero ? scale / fmax(ny, 1e-30 * scale) : 4.0;
            double tol_x = 64 * eps * sqrt((double)U) * amp * (1 + m);
            double tol_l = 64 * eps * sqrt((double)U) * scale * (1 + m) * (c->fixed_zero ? amp : 1.0);
            double el = fabs(gl - lam), ex = sshopm_xdist(n, gx, x, 0);
            worst_l = fmax(worst_l, el / scale);
            worst_x = fmax(worst_x, ex);
            const int same_status = ks == rst && kits == its;
            int ok = hi[g] != -1 && (same_status || stall) && el <= tol_l && ex <= tol_x;
            if (rst == CLPK_SSHOPM_FAILED) ok = hi[g] != -1 && CLPK_SSHOPM_INFO_STATUS(hi[g]) == rst;
            if (!ok && bad++ < 3)
                CHECK(0,
                      "%s: tensor %d start %d: info %d (ref status %d, %d its), lambda %.9g vs %.9g (tol %.2g), "
                      "|dx| %.3g (tol %.2g)",
                      label, t, s, hi[g], rst, its, gl, lam, tol_l, ex, tol_x);
        }
    }
    CHECK(bad == 0, "%s: %d of %d starts differ from the reference", label, bad, T * V);
    printf("%-90s build %.2fs run %.3fs max rel dlambda %.2e max |dx| %.2e\n", label, t_build, t_run, worst_l, worst_x);
    clReleaseMemObject(bt);
    clReleaseMemObject(bl);
    clReleaseMemObject(bx);
    clReleaseMemObject(bi);
    free(ht);
    free(hl);
    free(hx);
    free(hi);
    free(shared);
    free(a);
    clpk_sshopm_plan_destroy(plan);
    sshopm_index_free(&idx);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    const int fp64 = clpk_context_device_info(ctx)->has_fp64;
    const size_t max_wg = clpk_context_device_info(ctx)->max_work_group_size;
    int programs = 0, k = 0, adaptive_gen = 0, adaptive_general = 0;
    adaptive_wg_count = search_ints("wg", adaptive_wgs);
    adaptive_check_count = search_ints("check_every", adaptive_checks);
    if (!CHECK(adaptive_wg_count > 0 && adaptive_check_count > 0, "the table's searched wg and check_every")) {
        clpk_context_destroy(ctx);
        return check_summary();
    }
    sshopm_config defaults;
    sshopm_config_defaults(clpk_context_device_info(ctx)->kind, &defaults);
    double t0 = core_wall_seconds();
    for (int m = 2; m <= 8; ++m) {
        for (int n = 2; n <= 8; ++n, ++k) {
            /* Would the plan unroll this shape by default? Then test the generated kernel there. */
            /* (8,5), 1650 FMAs, stands for the shapes only a forced kernel=generated unrolls */
            int unrolled = sshopm_unrolled_terms(m, n) <= defaults.unroll_max || (m == 8 && n == 5);
            sweep_case c = {m, n, CLPK_PRECISION_F32, 0, "local", 0, 0, 0, 0, 0, 1, CLPK_SSHOPM_STARTS_SHARED};
            c.prec = (k % 2 && fp64) ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            c.wg = wgs[k % 5];
            c.check_every = checks[k % 3];
            c.V = starts_counts[(k / 3) % 3];
            c.starts_kind = (clpk_sshopm_starts)((k / 2) % 3);
            c.direction = (k / 4) % 2 ? -1 : 1;
            if (unrolled) {
                c.generated = 1;
                c.entries = entries_names[k % 3];
                /* private entries only where auto or the tuner can pick them (<= 256 pre-multiplied registers) */
                if (!strcmp(c.entries, "private") && sshopm_unrolled_terms(m, n) > 256) c.entries = "local";
                c.fixed_zero = (k / 5) % 2;
                /* alpha = 0 is checked over one iteration: over several, rounding differences (the kernels sum in
                 * another order than the reference) grow with the unshifted map's Lipschitz constant */
                if (c.fixed_zero) c.check_every = 1;
                /* some bound cases of the generated kernel run the (unrolled) adaptive shift instead (not the largest
                 * shapes: their compile time is the CI budget's) */
                c.adaptive = !c.fixed_zero && (k / 10) % 2 && sshopm_unrolled_terms(m, n) <= 600;
                if (c.adaptive) {
                    sweep_case ca = c;
                    ca.wg = adaptive_wgs[adaptive_gen % adaptive_wg_count];
                    if ((size_t)ca.wg > max_wg) ca.wg = 256;
                    ca.check_every = adaptive_checks[adaptive_gen++ % adaptive_check_count];
                    run_case(ctx, &ca, &rng, &programs);
                } else {
                    run_case(ctx, &c, &rng, &programs);
                }
            }
            /* The general kernel: all shapes (one program per mapping serves them all). */
            sweep_case g = c;
            g.generated = 0;
            g.entries = entries_names[(k + 1) % 2];
            g.prec = (!(k % 2) && fp64) ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            g.fixed_zero = !c.fixed_zero;
            g.adaptive = !g.fixed_zero && (k / 3) % 2;
            g.check_every = g.fixed_zero ? 1 : checks[(k + 1) % 3];
            if (g.adaptive) {
                g.wg = adaptive_wgs[adaptive_general % adaptive_wg_count];
                if ((size_t)g.wg > max_wg) g.wg = 256;
                g.check_every = adaptive_checks[adaptive_general++ % adaptive_check_count];
            }
            g.direction = -c.direction;
            run_case(ctx, &g, &rng, &programs);
        }
    }
    printf("%d plans over all shapes in %.1f s (%d generated and %d general with the adaptive shift)\n", programs,
           core_wall_seconds() - t0, adaptive_gen, adaptive_general);
    const int every = adaptive_wg_count > adaptive_check_count ? adaptive_wg_count : adaptive_check_count;
    CHECK(adaptive_gen >= every && adaptive_general >= every,
          "every tuner wg and check_every ran with the adaptive shift");
    clpk_context_destroy(ctx);
    return check_summary();
}
