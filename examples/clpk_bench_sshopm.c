/* clpk-bench-sshopm: SS-HOPM benchmark (docs/perf-sshopm.md).
 *
 * 1. Fixed-iteration throughput per (m, n) and precision: T random tensors x V shared starts x K iterations with the
 *    convergence test made unreachable (plan->fixed_iterations: checks still run, never stop a start), timed with
 *    profiling events; start-iterations/s, GFLOP/s from the generator's exact operation count, % of the FMA peak
 *    measured in the same run (clpk_bench_fma_peak). The tensors and starts are written as .npy into the output
 *    folder so the peers (bench/peers/sshopm_peers.py --data-dir) run on the same data.
 * 2. dMRI time-to-solution: a synthetic (4,3) fibre field already on the device, solved to tolerance (maxima), then
 *    de-duplicated and classified on the device (clpk_sshopm_reduce); the time from the start of the solve to the end
 *    of the reduction (profiling events), and host wall time around the same launches.
 * Writes OUT/clpk.json (flat records), OUT/clpk.md (markdown table), OUT/sshopm_MxN_{tensors,starts}.npy. */
#include "clpk_internal.h"
#include "clpk_io.h"
#include "sshopm_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#define MAX_SHAPES 16

typedef struct cli {
    int shapes[MAX_SHAPES][2], n_shapes;
    int f32, f64;
    int64_t tensors;
    int starts, iters, repeats;
    double alpha;
    uint64_t seed;
    const char *params, *device, *out;
    int no_peak, no_npy;
    int64_t voxels; /* 0: no dMRI run */
    int dmri_starts, dmri_max_iter, dmri_repeats, dmri_max_pairs;
    const char *dmri_shift;
    double dmri_tol;
} cli;

static void usage(void) {
    printf("usage: clpk-bench-sshopm --out DIR [options]\n"
           "  --shapes LIST      m x n list (default 3x3,4x3,6x3,8x3,4x4,4x6)\n"
           "  --precision LIST   f32,f64 (default both; f64 skipped on devices without it)\n"
           "  --tensors T        tensors per shape (default 65536)\n"
           "  --starts V         shared starts per tensor (default 128)\n"
           "  --iters K          fixed iterations per start (default 200)\n"
           "  --alpha A          fixed shift >= 0 (maxima; default 2, the peers' value)\n"
           "  --repeats N        timed launches (median; default 50, 2 warm-up)\n"
           "  --seed S           tensors and starts (default 1)\n"
           "  --params k=v,...   plan parameters for every throughput case (default: profile/built-in)\n"
           "  --no-peak          skip the FMA-peak probe (no %% of peak columns)\n"
           "  --no-npy           do not write the tensors/starts .npy files\n"
           "  --voxels N         dMRI time-to-solution on N voxels (default 1000000; 0 skips)\n"
           "  --dmri-starts V    sphere starts per voxel (default 128)\n"
           "  --dmri-shift S     adaptive (default) | bound | VALUE\n"
           "  --dmri-tol X       |dlambda| tolerance (default 1e-6)\n"
           "  --dmri-max-iter K  iteration cap (default 500)\n"
           "  --dmri-repeats N   timed solves (default 5)\n"
           "  --device SEL       device selector (default $CLPK_DEVICE or the first GPU)\n");
}

static int parse_shapes(cli *c, const char *text) {
    c->n_shapes = 0;
    const char *p = text;
    while (*p) {
        int m, n, used = 0;
        if (sscanf(p, "%dx%d%n", &m, &n, &used) != 2 || m < 2 || m > 8 || n < 2 || n > 8 || c->n_shapes >= MAX_SHAPES)
            return 0;
        c->shapes[c->n_shapes][0] = m;
        c->shapes[c->n_shapes][1] = n;
        c->n_shapes++;
        p += used;
        if (*p == ',') ++p;
        else if (*p)
            return 0;
    }
    return c->n_shapes > 0;
}

static int parse_args(int argc, char **argv, cli *c) {
    memset(c, 0, sizeof *c);
    parse_shapes(c, "3x3,4x3,6x3,8x3,4x4,4x6");
    c->f32 = c->f64 = 1;
    c->tensors = 65536;
    c->starts = 128;
    c->iters = 200;
    c->repeats = 50;
    c->alpha = 2;
    c->seed = 1;
    c->voxels = 1000000;
    c->dmri_starts = 128;
    c->dmri_max_iter = 500;
    c->dmri_repeats = 5;
    c->dmri_max_pairs = 16;
    c->dmri_shift = "adaptive";
    c->dmri_tol = 1e-6;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            exit(0);
        } else if (!strcmp(a, "--no-peak")) {
            c->no_peak = 1;
            continue;
        } else if (!strcmp(a, "--no-npy")) {
            c->no_npy = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "clpk-bench-sshopm: %s needs a value (or unknown option)\n", a);
            return 0;
        }
        ++i;
        errno = 0;
        if (!strcmp(a, "--shapes")) {
            if (!parse_shapes(c, v)) {
                fprintf(stderr, "clpk-bench-sshopm: bad --shapes '%s' (want e.g. 4x3,6x3; 2 <= m, n <= 8)\n", v);
                return 0;
            }
        } else if (!strcmp(a, "--precision")) {
            c->f32 = strstr(v, "f32") != NULL;
            c->f64 = strstr(v, "f64") != NULL;
            if (!c->f32 && !c->f64) {
                fprintf(stderr, "clpk-bench-sshopm: bad --precision '%s' (f32, f64 or f32,f64)\n", v);
                return 0;
            }
        } else if (!strcmp(a, "--params")) {
            c->params = v;
        } else if (!strcmp(a, "--device")) {
            c->device = v;
        } else if (!strcmp(a, "--out")) {
            c->out = v;
        } else if (!strcmp(a, "--dmri-shift")) {
            c->dmri_shift = v;
        } else if (!strcmp(a, "--alpha") || !strcmp(a, "--dmri-tol")) {
            double d = strtod(v, &end);
            /* the runs go in the convex direction (maxima), as the peers do: alpha >= 0 */
            if (*end || !isfinite(d) || d < 0 || (!strcmp(a, "--dmri-tol") && d == 0)) {
                fprintf(stderr, "clpk-bench-sshopm: bad value '%s' for %s\n", v, a);
                return 0;
            }
            if (!strcmp(a, "--alpha")) c->alpha = d;
            else c->dmri_tol = d;
        } else {
            long long iv = strtoll(v, &end, 10);
            struct {
                const char *name;
                long long lo, hi;
            } ints[] = {{"--tensors", 1, 1LL << 26},   {"--starts", 1, 1 << 20},       {"--iters", 1, 1 << 20},
                        {"--repeats", 1, 10000},       {"--seed", 0, 1LL << 62},       {"--voxels", 0, 1LL << 26},
                        {"--dmri-starts", 1, 1 << 20}, {"--dmri-max-iter", 1, 1 << 20}, {"--dmri-repeats", 1, 1000}};
            int k = 0, found = -1;
            for (; k < (int)(sizeof ints / sizeof ints[0]); ++k)
                if (!strcmp(a, ints[k].name)) found = k;
            if (found < 0) {
                fprintf(stderr, "clpk-bench-sshopm: unknown option %s\n", a);
                return 0;
            }
            if (*end || errno || iv < ints[found].lo || iv > ints[found].hi) {
                fprintf(stderr, "clpk-bench-sshopm: %s wants an integer in %lld..%lld, got '%s'\n", a,
                        ints[found].lo, ints[found].hi, v);
                return 0;
            }
            switch (found) {
            case 0: c->tensors = iv; break;
            case 1: c->starts = (int)iv; break;
            case 2: c->iters = (int)iv; break;
            case 3: c->repeats = (int)iv; break;
            case 4: c->seed = (uint64_t)iv; break;
            case 5: c->voxels = iv; break;
            case 6: c->dmri_starts = (int)iv; break;
            case 7: c->dmri_max_iter = (int)iv; break;
            default: c->dmri_repeats = (int)iv; break;
            }
        }
    }
    if (!c->out) {
        fprintf(stderr, "clpk-bench-sshopm: --out DIR is required\n");
        return 0;
    }
    return 1;
}

/* splitmix64: the benchmark's tensors, uniform on [-1, 1) with 53 bits, per (seed, shape, element). */
static uint64_t splitmix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void make_tensors(uint64_t seed, int m, int n, int64_t count, double *out) {
    const uint64_t base = splitmix(seed ^ ((uint64_t)m << 40) ^ ((uint64_t)n << 32));
    for (int64_t k = 0; k < count; ++k)
        out[k] = (double)(splitmix(base + (uint64_t)k) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void *to_precision(const double *v, size_t count, int f64) {
    void *out = malloc(count * (f64 ? 8 : 4));
    if (!out) return NULL;
    for (size_t i = 0; i < count; ++i) {
        if (f64) ((double *)out)[i] = v[i];
        else ((float *)out)[i] = (float)v[i];
    }
    return out;
}

typedef struct run_state {
    clpk_sshopm_plan *plan;
    int64_t T;
    cl_mem tensors, lambda, x, info;
    int reduce; /* dMRI: also reduce on the device */
    cl_mem out_lambda, out_x, out_meta, out_counts;
    int max_pairs;
} run_state;

static clpk_status launch_run(void *user, cl_event *first, cl_event *last) {
    run_state *r = user;
    CLPK_TRY(clpk_sshopm_execute(r->plan, r->T, r->tensors, 1, r->lambda, r->x, r->info, 0, NULL, first));
    if (!r->reduce) {
        *last = *first;
        return CLPK_SUCCESS;
    }
    return clpk_sshopm_reduce(r->plan, r->T, r->tensors, r->lambda, r->x, r->info, NULL, r->max_pairs, 0,
                              r->out_lambda, r->out_x, r->out_meta, r->out_counts, 0, NULL, last);
}

static cl_mem make_buffer(clpk_context *ctx, size_t bytes, const void *host, clpk_status *st) {
    if (*st != CLPK_SUCCESS) return NULL;
    cl_int rc;
    cl_mem m = clCreateBuffer(clpk_context_cl_context(ctx), host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR
                                                                 : CL_MEM_READ_WRITE,
                              bytes, (void *)host, &rc);
    if (rc != CL_SUCCESS) *st = core_fail_cl(ctx, rc, "clCreateBuffer for the benchmark");
    return m;
}

static void release_run(run_state *r) {
    cl_mem all[] = {r->tensors, r->lambda, r->x, r->info, r->out_lambda, r->out_x, r->out_meta, r->out_counts};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        if (all[i]) clReleaseMemObject(all[i]);
}

/* Sums the per-start iteration counts and statuses of the last run. */
static clpk_status read_info(clpk_context *ctx, cl_mem info, int64_t starts, double *iterations, int64_t status[3]) {
    int32_t *h = malloc((size_t)starts * sizeof *h);
    if (!h) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    cl_int rc = clEnqueueReadBuffer(clpk_context_queue(ctx), info, CL_TRUE, 0, (size_t)starts * sizeof *h, h, 0, NULL,
                                    NULL);
    if (rc != CL_SUCCESS) {
        free(h);
        return core_fail_cl(ctx, rc, "reading info");
    }
    *iterations = 0;
    status[0] = status[1] = status[2] = 0;
    for (int64_t k = 0; k < starts; ++k) {
        *iterations += CLPK_SSHOPM_INFO_ITERATIONS(h[k]);
        status[CLPK_SSHOPM_INFO_STATUS(h[k]) < 3 ? CLPK_SSHOPM_INFO_STATUS(h[k]) : 2]++;
    }
    free(h);
    return CLPK_SUCCESS;
}

typedef struct peaks {
    double f32, f64; /* GFLOP/s, 0 when not measured */
} peaks;

static void add_common(cJSON *o, const char *case_label, const char *impl, const char *precision) {
    cJSON_AddStringToObject(o, "family", "sshopm");
    cJSON_AddStringToObject(o, "case", case_label);
    cJSON_AddStringToObject(o, "impl", impl);
    cJSON_AddStringToObject(o, "precision", precision);
}

/* One fixed-iteration throughput case; appends a record and a markdown row. */
static clpk_status throughput_case(clpk_context *ctx, const cli *c, int m, int n, int f64, const double *tensors,
                                   const peaks *pk, cJSON *records, FILE *md) {
    const char *prec = f64 ? "f64" : "f32";
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = c->starts;
    o.seed = c->seed;
    o.shift = CLPK_SSHOPM_SHIFT_FIXED;
    o.alpha = c->alpha;
    o.find = CLPK_SSHOPM_FIND_MAX;
    o.max_iter = c->iters;
    o.params = c->params;
    clpk_sshopm_plan *plan = NULL;
    CLPK_TRY(clpk_sshopm_plan_create(ctx, m, n, f64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32, c->tensors, &o, &plan));
    plan->fixed_iterations = 1;
    const int U = clpk_sshopm_unique_count(m, n), V = c->starts;
    const int64_t T = c->tensors;
    const size_t vs = f64 ? 8 : 4;
    clpk_status st = CLPK_SUCCESS;
    void *host = to_precision(tensors, (size_t)T * U, f64);
    if (!host) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    run_state r = {plan, T, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, 0};
    r.tensors = make_buffer(ctx, (size_t)T * U * vs, host, &st);
    r.lambda = make_buffer(ctx, (size_t)T * V * vs, NULL, &st);
    r.x = make_buffer(ctx, (size_t)T * V * n * vs, NULL, &st);
    r.info = make_buffer(ctx, (size_t)T * V * 4, NULL, &st);
    free(host);
    double iterations = 0;
    int64_t status[3] = {0, 0, 0};
    if (st == CLPK_SUCCESS) st = clpk_sshopm_execute(plan, T, r.tensors, 1, r.lambda, r.x, r.info, 0, NULL, NULL);
    if (st == CLPK_SUCCESS) st = read_info(ctx, r.info, T * V, &iterations, status);
    sshopm_op_counts ops = {0};
    if (st == CLPK_SUCCESS)
        st = sshopm_iteration_ops(m, n, plan->generated && plan->entries == ENTRIES_PRIVATE, &ops);
    clpk_bench_stats stats;
    if (st == CLPK_SUCCESS)
        st = clpk_bench_run(ctx, launch_run, &r, 2, c->repeats, (double)T * U * vs + (double)T * V * ((n + 1) * vs + 4),
                            iterations * ops.flops, &stats);
    if (st == CLPK_SUCCESS) {
        char params[256], case_label[16], impl[64];
        clpk_sshopm_plan_params(plan, params, sizeof params);
        snprintf(case_label, sizeof case_label, "%dx%d", m, n);
        snprintf(impl, sizeof impl, "clpk-%s", plan->generated ? "generated" : "general");
        const double sits = iterations / (stats.median_ms * 1e-3);
        const double peak = f64 ? pk->f64 : pk->f32;
        cJSON *rec = cJSON_CreateObject();
        add_common(rec, case_label, impl, prec);
        cJSON_AddStringToObject(rec, "mode", "fixed");
        cJSON_AddNumberToObject(rec, "m", m);
        cJSON_AddNumberToObject(rec, "n", n);
        cJSON_AddNumberToObject(rec, "tensors", (double)T);
        cJSON_AddNumberToObject(rec, "starts", V);
        cJSON_AddNumberToObject(rec, "iters", iterations / ((double)T * V));
        cJSON_AddNumberToObject(rec, "not_capped", (double)(status[0] + status[2]));
        cJSON_AddNumberToObject(rec, "median_ms", stats.median_ms);
        cJSON_AddNumberToObject(rec, "p10_ms", stats.p10_ms);
        cJSON_AddNumberToObject(rec, "p90_ms", stats.p90_ms);
        cJSON_AddNumberToObject(rec, "runs", stats.runs);
        cJSON_AddNumberToObject(rec, "start_iters_per_s", sits);
        cJSON_AddNumberToObject(rec, "gflops", stats.gflops);
        cJSON_AddNumberToObject(rec, "flops_per_iter", ops.flops);
        cJSON_AddNumberToObject(rec, "fma_per_iter", (double)ops.fma);
        cJSON_AddNumberToObject(rec, "mul_per_iter", (double)ops.mul);
        cJSON_AddNumberToObject(rec, "add_per_iter", (double)ops.add);
        cJSON_AddNumberToObject(rec, "rsqrt_per_iter", (double)ops.special);
        if (peak > 0) {
            cJSON_AddNumberToObject(rec, "peak_gflops", peak);
            cJSON_AddNumberToObject(rec, "pct_peak", 100.0 * stats.gflops / peak);
        }
        cJSON_AddStringToObject(rec, "params", params);
        cJSON_AddItemToArray(records, rec);
        char pct[32] = "-";
        if (peak > 0) snprintf(pct, sizeof pct, "%.1f%%", 100.0 * stats.gflops / peak);
        fprintf(md, "| %s | %s | %s | %.3f | %.2f | %.1f | %s | %.0f | %s |\n", case_label, prec, impl, stats.median_ms,
                sits * 1e-9, stats.gflops, pct, ops.flops, params);
        printf("%s %s %s: %.3f ms, %.2f G start-iterations/s, %.1f GFLOP/s (%s of FMA peak), %.0f flops/iteration "
               "(%lld FMA, %lld mul, %lld add, %lld rsqrt) [%s]\n",
               case_label, prec, impl, stats.median_ms, sits * 1e-9, stats.gflops, pct, ops.flops,
               (long long)ops.fma, (long long)ops.mul, (long long)ops.add, (long long)ops.special, params);
        if (status[0] + status[2])
            printf("  warning: %lld starts stopped before the fixed count (NaN/Inf or converged)\n",
                   (long long)(status[0] + status[2]));
        fflush(stdout);
    }
    release_run(&r);
    clpk_sshopm_plan_destroy(plan);
    return st;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* dMRI time-to-solution: (4,3) field on the device, solve to tolerance + de-duplicate + classify on the device. */
static clpk_status dmri_case(clpk_context *ctx, const cli *c, cJSON *records, FILE *md) {
    clpk_sshopm_dmri_options dopt;
    clpk_sshopm_dmri_options_default(&dopt);
    dopt.voxels = c->voxels;
    dopt.order = 4;
    dopt.seed = c->seed;
    clpk_sshopm_dmri_field field;
    clpk_error err = {0};
    const double t0 = now_ms();
    if (clpk_sshopm_dmri_synth(&dopt, &field, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    printf("dmri: synthesised %lld voxels in %.1f s (host)\n", (long long)c->voxels, (now_ms() - t0) * 1e-3);
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = c->dmri_starts;
    o.starts_kind = CLPK_SSHOPM_STARTS_SPHERE;
    o.seed = c->seed;
    o.find = CLPK_SSHOPM_FIND_MAX;
    o.tol = c->dmri_tol;
    o.max_iter = c->dmri_max_iter;
    if (!strcmp(c->dmri_shift, "adaptive")) {
        o.shift = CLPK_SSHOPM_SHIFT_ADAPTIVE;
    } else if (!strcmp(c->dmri_shift, "bound") || !strcmp(c->dmri_shift, "auto")) {
        o.shift = CLPK_SSHOPM_SHIFT_BOUND;
    } else {
        char *end;
        o.shift = CLPK_SSHOPM_SHIFT_FIXED;
        o.alpha = strtod(c->dmri_shift, &end);
        if (*end || !(o.alpha >= 0)) {
            clpk_sshopm_dmri_field_free(&field);
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "bad --dmri-shift '%s' (adaptive, bound or a value >= 0)",
                             c->dmri_shift);
        }
    }
    const int64_t T = c->voxels;
    const int U = field.unique, V = o.starts, P = c->dmri_max_pairs;
    clpk_sshopm_plan *plan = NULL;
    clpk_status st = clpk_sshopm_plan_create(ctx, 4, 3, CLPK_PRECISION_F32, T, &o, &plan);
    void *host = st == CLPK_SUCCESS ? to_precision(field.tensors, (size_t)T * U, 0) : NULL;
    if (st == CLPK_SUCCESS && !host) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    run_state r = {plan, T, NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, P};
    r.tensors = make_buffer(ctx, (size_t)T * U * 4, host, &st);
    r.lambda = make_buffer(ctx, (size_t)T * V * 4, NULL, &st);
    r.x = make_buffer(ctx, (size_t)T * V * 3 * 4, NULL, &st);
    r.info = make_buffer(ctx, (size_t)T * V * 4, NULL, &st);
    r.out_lambda = make_buffer(ctx, (size_t)T * P * 4, NULL, &st);
    r.out_x = make_buffer(ctx, (size_t)T * P * 3 * 4, NULL, &st);
    r.out_meta = make_buffer(ctx, (size_t)T * P * 4, NULL, &st);
    r.out_counts = make_buffer(ctx, (size_t)T * 5 * 4, NULL, &st);
    free(host);
    clpk_sshopm_dmri_field_free(&field);
    clpk_bench_stats stats;
    double wall = 0;
    if (st == CLPK_SUCCESS) st = clpk_bench_run(ctx, launch_run, &r, 1, c->dmri_repeats, 0, 0, &stats);
    if (st == CLPK_SUCCESS) {
        /* host wall time of one more solve, launches to clFinish (no transfers: the data stay on the device) */
        cl_event first = NULL, last = NULL;
        const double w0 = now_ms();
        st = launch_run(&r, &first, &last);
        if (st == CLPK_SUCCESS) {
            cl_int rc = clFinish(clpk_context_queue(ctx));
            if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clFinish");
        }
        wall = now_ms() - w0;
        if (first) clReleaseEvent(first);
        if (last && last != first) clReleaseEvent(last);
    }
    double iterations = 0;
    int64_t status[3] = {0, 0, 0};
    if (st == CLPK_SUCCESS) st = read_info(ctx, r.info, T * V, &iterations, status);
    int64_t pairs = 0, maxima = 0, voxels_with_max = 0, dropped = 0;
    if (st == CLPK_SUCCESS) {
        int32_t *counts = malloc((size_t)T * 5 * sizeof *counts), *meta = malloc((size_t)T * P * sizeof *meta);
        if (!counts || !meta) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
        cl_int rc = CL_SUCCESS;
        if (st == CLPK_SUCCESS)
            rc = clEnqueueReadBuffer(clpk_context_queue(ctx), r.out_counts, CL_TRUE, 0, (size_t)T * 5 * 4, counts, 0,
                                     NULL, NULL);
        if (st == CLPK_SUCCESS && rc == CL_SUCCESS)
            rc = clEnqueueReadBuffer(clpk_context_queue(ctx), r.out_meta, CL_TRUE, 0, (size_t)T * P * 4, meta, 0, NULL,
                                     NULL);
        if (st == CLPK_SUCCESS && rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "reading the reduced pairs");
        for (int64_t t = 0; st == CLPK_SUCCESS && t < T; ++t) {
            pairs += counts[t * 5];
            dropped += counts[t * 5 + 4];
            int has = 0;
            for (int k = 0; k < P; ++k)
                if ((meta[t * P + k] & 7) == CLPK_SSHOPM_TYPE_MAX) {
                    ++maxima;
                    has = 1;
                }
            voxels_with_max += has;
        }
        free(counts);
        free(meta);
    }
    if (st == CLPK_SUCCESS) {
        const double starts = (double)T * V;
        cJSON *rec = cJSON_CreateObject();
        add_common(rec, "dmri-4x3", "clpk-device", "f32");
        cJSON_AddStringToObject(rec, "mode", "time-to-solution");
        cJSON_AddNumberToObject(rec, "voxels", (double)T);
        cJSON_AddNumberToObject(rec, "starts", V);
        cJSON_AddStringToObject(rec, "shift", c->dmri_shift);
        cJSON_AddNumberToObject(rec, "tol", o.tol);
        cJSON_AddNumberToObject(rec, "max_iter", o.max_iter);
        cJSON_AddNumberToObject(rec, "median_ms", stats.median_ms);
        cJSON_AddNumberToObject(rec, "p10_ms", stats.p10_ms);
        cJSON_AddNumberToObject(rec, "p90_ms", stats.p90_ms);
        cJSON_AddNumberToObject(rec, "runs", stats.runs);
        cJSON_AddNumberToObject(rec, "wall_ms", wall);
        cJSON_AddNumberToObject(rec, "mean_iters", iterations / starts);
        cJSON_AddNumberToObject(rec, "start_iters_per_s", iterations / (stats.median_ms * 1e-3));
        cJSON_AddNumberToObject(rec, "converged_fraction", (double)status[0] / starts);
        cJSON_AddNumberToObject(rec, "capped_fraction", (double)status[1] / starts);
        cJSON_AddNumberToObject(rec, "failed_fraction", (double)status[2] / starts);
        cJSON_AddNumberToObject(rec, "pairs_per_voxel", (double)pairs / (double)T);
        cJSON_AddNumberToObject(rec, "maxima_per_voxel", (double)maxima / (double)T);
        cJSON_AddNumberToObject(rec, "voxels_with_max_fraction", (double)voxels_with_max / (double)T);
        cJSON_AddNumberToObject(rec, "dropped", (double)dropped);
        cJSON_AddNumberToObject(rec, "target_ms", 500);
        cJSON_AddItemToArray(records, rec);
        fprintf(md,
                "\n| dMRI (4,3) f32, device solve + de-dup + classify | voxels | starts | shift | median ms (events) "
                "| wall ms | mean iterations | converged | capped | maxima/voxel |\n|---|---|---|---|---|---|---|---|---|"
                "---|\n| clpk | %lld | %d | %s | %.1f | %.1f | %.1f | %.2f%% | %.2f%% | %.2f |\n",
                (long long)T, V, c->dmri_shift, stats.median_ms, wall, iterations / starts,
                100.0 * (double)status[0] / starts, 100.0 * (double)status[1] / starts, (double)maxima / (double)T);
        printf("dmri: %lld voxels x %d starts (%s shift, tol %g, cap %d): %.1f ms on the device (events; wall %.1f ms), "
               "%.1f iterations per start, converged %.2f%%, capped %.2f%%, failed %.2f%%, %.2f pairs (%.2f maxima) "
               "per voxel, %lld dropped\n",
               (long long)T, V, c->dmri_shift, o.tol, o.max_iter, stats.median_ms, wall, iterations / starts,
               100.0 * (double)status[0] / starts, 100.0 * (double)status[1] / starts,
               100.0 * (double)status[2] / starts, (double)pairs / (double)T, (double)maxima / (double)T,
               (long long)dropped);
    }
    release_run(&r);
    clpk_sshopm_plan_destroy(plan);
    return st;
}

static int write_npy_inputs(const cli *c, int m, int n, const double *tensors) {
    char path[1024];
    clpk_error err = {0};
    const int U = clpk_sshopm_unique_count(m, n);
    int64_t shape[2] = {c->tensors, U};
    snprintf(path, sizeof path, "%s/sshopm_%dx%d_tensors.npy", c->out, m, n);
    if (clpk_npy_write_raw(path, CLPK_DTYPE_F64, 2, shape, tensors, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-sshopm: %s\n", err.message);
        return 0;
    }
    /* the plan's shared starts (same generator, same seed), normalised as the kernel does */
    double *starts = malloc(sizeof *starts * (size_t)c->starts * n);
    if (!starts || sshopm_make_starts(n, c->starts, CLPK_SSHOPM_STARTS_SHARED, c->seed, starts, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-sshopm: starts: %s\n", starts ? err.message : "out of memory");
        free(starts);
        return 0;
    }
    int64_t sshape[2] = {c->starts, n};
    snprintf(path, sizeof path, "%s/sshopm_%dx%d_starts.npy", c->out, m, n);
    clpk_status st = clpk_npy_write_raw(path, CLPK_DTYPE_F64, 2, sshape, starts, &err);
    free(starts);
    if (st != CLPK_SUCCESS) fprintf(stderr, "clpk-bench-sshopm: %s\n", err.message);
    return st == CLPK_SUCCESS;
}

int main(int argc, char **argv) {
    cli c;
    if (!parse_args(argc, argv, &c)) {
        usage();
        return 2;
    }
    if (mkdir(c.out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "clpk-bench-sshopm: cannot create %s: %s\n", c.out, strerror(errno));
        return 1;
    }
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, c.device);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-sshopm: no device: %s\n", clpk_status_string(st));
        return 1;
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s (%s), %u compute units\n", dev->name, dev->platform_name, dev->compute_units);
    int f64 = c.f64 && dev->has_fp64;
    if (c.f64 && !f64) printf("f64 skipped: the device has no fp64\n");
    cJSON *records = cJSON_CreateArray();
    char md_path[1024];
    snprintf(md_path, sizeof md_path, "%s/clpk.md", c.out);
    FILE *md = fopen(md_path, "w");
    if (!records || !md) {
        fprintf(stderr, "clpk-bench-sshopm: cannot write %s\n", md_path);
        clpk_context_destroy(ctx);
        return 1;
    }
    fprintf(md, "# SS-HOPM benchmark (clpk)\n\nDevice: %s. %lld tensors x %d shared starts x %d fixed iterations, "
                "alpha = %g, seed %llu.\n\n",
            dev->name, (long long)c.tensors, c.starts, c.iters, c.alpha, (unsigned long long)c.seed);
    peaks pk = {0, 0};
    int rc = 0;
    if (!c.no_peak) {
        for (int k = 0; k < 1 + f64; ++k) {
            clpk_bench_stats s;
            const clpk_precision p = k ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            if (clpk_bench_fma_peak(ctx, p, &s) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-bench-sshopm: FMA peak: %s\n", clpk_last_error(ctx));
                rc = 1;
                continue;
            }
            if (k) pk.f64 = s.gflops;
            else pk.f32 = s.gflops;
            cJSON *rec = cJSON_CreateObject();
            add_common(rec, "fma-peak", "clpk-fma-probe", k ? "f64" : "f32");
            cJSON_AddNumberToObject(rec, "median_ms", s.median_ms);
            cJSON_AddNumberToObject(rec, "gflops", s.gflops);
            cJSON_AddItemToArray(records, rec);
            printf("FMA peak %s: %.1f GFLOP/s\n", k ? "f64" : "f32", s.gflops);
            fprintf(md, "FMA peak %s (measured): %.1f GFLOP/s. ", k ? "f64" : "f32", s.gflops);
        }
        fprintf(md, "\n\n");
    }
    fprintf(md, "| case | precision | impl | median ms | G start-iterations/s | GFLOP/s | %% FMA peak | flops/iteration "
                "| params |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < c.n_shapes; ++s) {
        const int m = c.shapes[s][0], n = c.shapes[s][1];
        const int U = clpk_sshopm_unique_count(m, n);
        double *tensors = malloc(sizeof *tensors * (size_t)c.tensors * U);
        if (!tensors) {
            fprintf(stderr, "clpk-bench-sshopm: out of memory for %lld tensors\n", (long long)c.tensors);
            rc = 1;
            break;
        }
        make_tensors(c.seed, m, n, c.tensors * U, tensors);
        if (!c.no_npy && !write_npy_inputs(&c, m, n, tensors)) rc = 1;
        for (int k = 0; k < 2; ++k) {
            if ((k == 0 && !c.f32) || (k == 1 && !f64)) continue;
            if (throughput_case(ctx, &c, m, n, k, tensors, &pk, records, md) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-bench-sshopm: %dx%d %s: %s\n", m, n, k ? "f64" : "f32", clpk_last_error(ctx));
                rc = 1;
            }
        }
        free(tensors);
    }
    if (c.voxels > 0 && dmri_case(ctx, &c, records, md) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-sshopm: dmri: %s\n", clpk_last_error(ctx));
        rc = 1;
    }
    fclose(md);
    for (cJSON *r = records->child; r; r = r->next) cJSON_AddStringToObject(r, "device", dev->name);
    char json_path[1024];
    snprintf(json_path, sizeof json_path, "%s/clpk.json", c.out);
    char *text = cJSON_Print(records);
    FILE *f = text ? fopen(json_path, "w") : NULL;
    if (!f || fputs(text, f) < 0) {
        fprintf(stderr, "clpk-bench-sshopm: cannot write %s\n", json_path);
        rc = 1;
    }
    if (f) fclose(f);
    free(text);
    cJSON_Delete(records);
    clpk_context_destroy(ctx);
    if (!rc) printf("wrote %s and %s\n", json_path, md_path);
    return rc;
}
