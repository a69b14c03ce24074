/* clpk-bench-sshopm: SS-HOPM benchmark (docs/perf-sshopm.md).
 *
 * 1. Fixed-iteration throughput per (m, n) and precision: T random tensors x V shared starts x K iterations with the
 *    convergence test made unreachable (clpk_sshopm_plan_set_fixed_iterations: checks still run, never stop a start),
 * timed with profiling events; start-iterations/s, GFLOP/s from the generator's exact operation count, % of the FMA
 * peak measured in the same run (clpk_bench_fma_peak). The tensors and starts are written as .npy into the output
 *    folder so the peers (bench/peers/sshopm_peers.py --data-dir) run on the same data.
 *    With --converge the same cases run to convergence with the library's default options (adaptive shift,
 *    tolerance, max_iter): what a user's run costs, where a start stops at the end of its check_every block.
 * 2. dMRI time-to-solution: a synthetic (4,3) fibre field already on the device, solved to tolerance (maxima), then
 *    de-duplicated and classified on the device (clpk_sshopm_reduce); the time from the start of the solve to the end
 *    of the reduction (profiling events), and host wall time around the same launches.
 * Writes OUT/clpk.json (flat records), OUT/clpk.md (markdown table), OUT/sshopm_MxN_{tensors,starts}.npy. */
#include "clpk.h"
#include "cli_args.h"
#include "cli_clock.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const tool = "clpk-bench-sshopm";

#define MAX_SHAPES 16

typedef struct cli {
    int shapes[MAX_SHAPES][2], n_shapes;
    int f32, f64;
    int64_t tensors;
    int starts, iters, repeats;
    double alpha;
    uint64_t seed;
    const char *params, *device, *out;
    int no_peak, no_npy, converge;
    int64_t voxels; /* 0: no dMRI run */
    int dmri_starts, dmri_max_iter, dmri_repeats, dmri_max_pairs;
    const char *dmri_shift;
    double dmri_tol;
} cli;

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
        if (*p == ',')
            ++p;
        else if (*p)
            return 0;
    }
    return c->n_shapes > 0;
}

/* 1 when an integer option's value lies within [lo, hi], else a message and 0. */
static int in_range(const char *name, long long v, long long lo, long long hi) {
    if (v >= lo && v <= hi) return 1;
    cli_fail(tool, "%s wants an integer in %lld..%lld, got '%lld'", name, lo, hi, v);
    return 0;
}

/* Parses the command line into *c; returns -1 to go on, else the exit status (0 after --help, 2 on a usage error). */
static int parse_args(int argc, char **argv, cli *c) {
    memset(c, 0, sizeof *c);
    const char *shapes = "3x3,4x3,6x3,8x3,4x4,4x6", *precision = "f32,f64";
    long long tensors = 65536, starts = 128, iters = 200, repeats = 50, seed = 1, voxels = 1000000;
    long long dmri_starts = 128, dmri_max_iter = 500, dmri_repeats = 5;
    c->alpha = 2;
    c->dmri_max_pairs = 16;
    c->dmri_shift = "adaptive";
    c->dmri_tol = 1e-6;
    const cli_option options[] = {
        {"--out", CLI_STRING, &c->out, "DIR", "output folder (required)"},
        {"--shapes", CLI_STRING, &shapes, "LIST", "m x n list (default 3x3,4x3,6x3,8x3,4x4,4x6; 2 <= m, n <= 8)"},
        {"--precision", CLI_STRING, &precision, "LIST", "f32,f64 (default both; f64 skipped on devices without it)"},
        {"--tensors", CLI_INT, &tensors, "T", "tensors per shape (default 65536)"},
        {"--starts", CLI_INT, &starts, "V", "shared starts per tensor (default 128)"},
        {"--iters", CLI_INT, &iters, "K", "fixed iterations per start (default 200)"},
        {"--alpha", CLI_DOUBLE, &c->alpha, "A", "fixed shift >= 0 (maxima; default 2, the peers' value)"},
        {"--repeats", CLI_INT, &repeats, "N", "timed launches (median; default 50, 2 warm-up)"},
        {"--seed", CLI_INT, &seed, "S", "tensors and starts (default 1)"},
        {"--params", CLI_STRING, &c->params, "k=v,...",
         "plan parameters for every throughput case (default: profile/built-in)"},
        {"--converge", CLI_FLAG, &c->converge, NULL,
         "throughput cases run to convergence with the default options (adaptive shift, tol, max_iter), not --iters "
         "fixed iterations at --alpha"},
        {"--no-peak", CLI_FLAG, &c->no_peak, NULL, "skip the FMA-peak probe (no % of peak columns)"},
        {"--no-npy", CLI_FLAG, &c->no_npy, NULL, "do not write the tensors/starts .npy files"},
        {"--voxels", CLI_INT, &voxels, "N", "dMRI time-to-solution on N voxels (default 1000000; 0 skips)"},
        {"--dmri-starts", CLI_INT, &dmri_starts, "V", "sphere starts per voxel (default 128)"},
        {"--dmri-shift", CLI_STRING, &c->dmri_shift, "S", "adaptive (default) | bound | VALUE"},
        {"--dmri-tol", CLI_DOUBLE, &c->dmri_tol, "X", "|dlambda| tolerance (default 1e-6)"},
        {"--dmri-max-iter", CLI_INT, &dmri_max_iter, "K", "iteration cap (default 500)"},
        {"--dmri-repeats", CLI_INT, &dmri_repeats, "N", "timed solves (default 5)"},
        {"--device", CLI_STRING, &c->device, "SEL", "device selector (default $CLPK_DEVICE or the first GPU)"},
        {NULL, CLI_FLAG, NULL, NULL, NULL}};
    const int parsed = cli_parse(tool, "--out DIR [options]", options, argc, argv, 1, NULL);
    if (parsed) return parsed == 1 ? 0 : 2;
    if (!parse_shapes(c, shapes))
        return cli_fail(tool, "bad --shapes '%s' (want e.g. 4x3,6x3; 2 <= m, n <= 8)", shapes);
    c->f32 = strstr(precision, "f32") != NULL;
    c->f64 = strstr(precision, "f64") != NULL;
    if (!c->f32 && !c->f64) return cli_fail(tool, "bad --precision '%s' (f32, f64 or f32,f64)", precision);
    /* the runs go in the convex direction (maxima), as the peers do: alpha >= 0 */
    if (!(c->alpha >= 0)) return cli_fail(tool, "bad value '%g' for --alpha", c->alpha);
    if (!(c->dmri_tol > 0)) return cli_fail(tool, "bad value '%g' for --dmri-tol", c->dmri_tol);
    if (!in_range("--tensors", tensors, 1, 1LL << 26) || !in_range("--starts", starts, 1, 1 << 20) ||
        !in_range("--iters", iters, 1, 1 << 20) || !in_range("--repeats", repeats, 1, 10000) ||
        !in_range("--seed", seed, 0, 1LL << 62) || !in_range("--voxels", voxels, 0, 1LL << 26) ||
        !in_range("--dmri-starts", dmri_starts, 1, 1 << 20) ||
        !in_range("--dmri-max-iter", dmri_max_iter, 1, 1 << 20) || !in_range("--dmri-repeats", dmri_repeats, 1, 1000))
        return 2;
    c->tensors = tensors, c->starts = (int)starts, c->iters = (int)iters, c->repeats = (int)repeats;
    c->seed = (uint64_t)seed, c->voxels = voxels, c->dmri_starts = (int)dmri_starts;
    c->dmri_max_iter = (int)dmri_max_iter, c->dmri_repeats = (int)dmri_repeats;
    if (!c->out) return cli_fail(tool, "--out DIR is required");
    return -1;
}

/* ---- Failures: the library's message (clpk_last_error) or the benchmark's own ------------------------------- */

static char failure[512];

static clpk_status fail(clpk_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static clpk_status fail(clpk_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
    return status;
}

static clpk_status fail_cl(cl_int code, const char *what) {
    return fail(CLPK_ERROR_OPENCL, "%s failed: OpenCL error %d", what, (int)code);
}

/* The message of the last failure: the benchmark's own when it set one, else the library's; then forgotten. */
static const char *failure_message(const clpk_context *ctx) {
    static char text[sizeof failure];
    snprintf(text, sizeof text, "%s", failure[0] ? failure : clpk_last_error(ctx));
    failure[0] = 0;
    return text;
}

/* ---- JSON records: flat objects of strings and numbers, written as one array at the end ---------------------- */

typedef struct record {
    char text[2048];
    size_t len;
    struct record *next;
} record;

typedef struct records {
    record *first, *last;
} records;

static record *record_new(records *list) {
    record *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    if (list->last)
        list->last->next = r;
    else
        list->first = r;
    list->last = r;
    return r;
}

static void record_key(record *r, const char *key, const char *value_text, int quote) {
    if (!r || r->len >= sizeof r->text) return;
    const int n = snprintf(r->text + r->len, sizeof r->text - r->len, "%s\"%s\": %s%s%s", r->len ? ", " : "", key,
                           quote ? "\"" : "", value_text, quote ? "\"" : "");
    r->len = n < 0 ? sizeof r->text : r->len + (size_t)n;
}

static void record_string(record *r, const char *key, const char *value) {
    char esc[512];
    size_t k = 0;
    for (; *value && k + 7 < sizeof esc; ++value) {
        const unsigned char ch = (unsigned char)*value;
        if (ch == '"' || ch == '\\')
            esc[k++] = '\\', esc[k++] = (char)ch;
        else if (ch < 32)
            k += (size_t)snprintf(esc + k, sizeof esc - k, "\\u%04x", ch);
        else
            esc[k++] = (char)ch;
    }
    esc[k] = 0;
    record_key(r, key, esc, 1);
}

/* Shortest of 15 or 17 significant digits that reads back exactly; null for NaN and infinities. */
static void record_number(record *r, const char *key, double value) {
    char text[32];
    double back = 0;
    if (!isfinite(value))
        snprintf(text, sizeof text, "null");
    else if (snprintf(text, sizeof text, "%.15g", value), sscanf(text, "%lg", &back) != 1 || back != value)
        snprintf(text, sizeof text, "%.17g", value);
    record_key(r, key, text, 0);
}

/* Writes the records as a JSON array, each with "device" last; returns 0 when the file could not be written. */
static int records_write(const records *list, const char *device, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return 0;
    record dev = {{0}, 0, NULL};
    record_string(&dev, "device", device);
    fprintf(f, "[");
    for (const record *r = list->first; r; r = r->next)
        fprintf(f, "%s\n  {%s%s%s}", r == list->first ? "" : ",", r->text, r->len ? ", " : "", dev.text);
    fprintf(f, "\n]\n");
    const int ok = !ferror(f);
    return fclose(f) == 0 && ok;
}

static void records_free(records *list) {
    for (record *r = list->first, *next; r; r = next) {
        next = r->next;
        free(r);
    }
    list->first = list->last = NULL;
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
        if (f64)
            ((double *)out)[i] = v[i];
        else
            ((float *)out)[i] = (float)v[i];
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
    const clpk_status st = clpk_sshopm_execute(r->plan, r->T, r->tensors, 1, r->lambda, r->x, r->info, 0, NULL, first);
    if (st != CLPK_SUCCESS) return st;
    if (!r->reduce) {
        *last = *first;
        return CLPK_SUCCESS;
    }
    return clpk_sshopm_reduce(r->plan, r->T, r->tensors, r->lambda, r->x, r->info, NULL, r->max_pairs, 0, r->out_lambda,
                              r->out_x, r->out_meta, r->out_counts, 0, NULL, last);
}

static cl_mem make_buffer(clpk_context *ctx, size_t bytes, const void *host, clpk_status *st) {
    if (*st != CLPK_SUCCESS) return NULL;
    cl_int rc;
    cl_mem m =
        clCreateBuffer(clpk_context_cl_context(ctx),
                       host ? CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, bytes, (void *)host, &rc);
    if (rc != CL_SUCCESS) *st = fail_cl(rc, "clCreateBuffer for the benchmark");
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
    if (!h) return fail(CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    cl_int rc =
        clEnqueueReadBuffer(clpk_context_queue(ctx), info, CL_TRUE, 0, (size_t)starts * sizeof *h, h, 0, NULL, NULL);
    if (rc != CL_SUCCESS) {
        free(h);
        return fail_cl(rc, "reading info");
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

static void add_common(record *o, const char *case_label, const char *impl, const char *precision) {
    record_string(o, "family", "sshopm");
    record_string(o, "case", case_label);
    record_string(o, "impl", impl);
    record_string(o, "precision", precision);
}

/* One fixed-iteration throughput case; appends a record and a markdown row. */
static clpk_status throughput_case(clpk_context *ctx, const cli *c, int m, int n, int f64, const double *tensors,
                                   const peaks *pk, records *recs, FILE *md) {
    const char *prec = f64 ? "f64" : "f32";
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = c->starts;
    o.seed = c->seed;
    o.find = CLPK_SSHOPM_FIND_MAX;
    if (!c->converge) {
        o.shift = CLPK_SSHOPM_SHIFT_FIXED;
        o.alpha = c->alpha;
        o.max_iter = c->iters;
    }
    o.params = c->params;
    clpk_sshopm_plan *plan = NULL;
    clpk_status st =
        clpk_sshopm_plan_create(ctx, m, n, f64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32, c->tensors, &o, &plan);
    if (st == CLPK_SUCCESS && !c->converge) st = clpk_sshopm_plan_set_fixed_iterations(plan, 1);
    if (st != CLPK_SUCCESS) {
        clpk_sshopm_plan_destroy(plan);
        return st;
    }
    const int U = clpk_sshopm_unique_count(m, n), V = c->starts;
    const int64_t T = c->tensors;
    const size_t vs = f64 ? 8 : 4;
    void *host = to_precision(tensors, (size_t)T * U, f64);
    if (!host) st = fail(CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
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
    clpk_sshopm_op_counts ops = {0};
    if (st == CLPK_SUCCESS) st = clpk_sshopm_plan_iteration_ops(plan, &ops);
    clpk_bench_stats stats;
    if (st == CLPK_SUCCESS)
        st = clpk_bench_run(ctx, launch_run, &r, 2, c->repeats, (double)T * U * vs + (double)T * V * ((n + 1) * vs + 4),
                            iterations * ops.flops, &stats);
    if (st == CLPK_SUCCESS) {
        char params[256], case_label[16], impl[64];
        clpk_sshopm_plan_params(plan, params, sizeof params);
        snprintf(case_label, sizeof case_label, "%dx%d", m, n);
        snprintf(impl, sizeof impl, "clpk-%s", clpk_sshopm_plan_is_generated(plan) ? "generated" : "general");
        const double sits = iterations / (stats.median_ms * 1e-3);
        /* the adaptive shift's Hessian is not in the generator's count: no flop rate for converged runs */
        const double peak = c->converge ? 0 : f64 ? pk->f64 : pk->f32;
        record *rec = record_new(recs);
        add_common(rec, case_label, impl, prec);
        record_string(rec, "mode", c->converge ? "converged" : "fixed");
        record_number(rec, "m", m);
        record_number(rec, "n", n);
        record_number(rec, "tensors", (double)T);
        record_number(rec, "starts", V);
        record_number(rec, "iters", iterations / ((double)T * V));
        record_number(rec, "not_capped", (double)(status[0] + status[2]));
        record_number(rec, "capped", (double)status[1]);
        record_number(rec, "failed", (double)status[2]);
        record_number(rec, "median_ms", stats.median_ms);
        record_number(rec, "p10_ms", stats.p10_ms);
        record_number(rec, "p90_ms", stats.p90_ms);
        record_number(rec, "runs", stats.runs);
        record_number(rec, "start_iters_per_s", sits);
        if (!c->converge) record_number(rec, "gflops", stats.gflops);
        record_number(rec, "flops_per_iter", ops.flops);
        record_number(rec, "fma_per_iter", (double)ops.fma);
        record_number(rec, "mul_per_iter", (double)ops.mul);
        record_number(rec, "add_per_iter", (double)ops.add);
        record_number(rec, "rsqrt_per_iter", (double)ops.rsqrt);
        if (peak > 0) {
            record_number(rec, "peak_gflops", peak);
            record_number(rec, "pct_peak", 100.0 * stats.gflops / peak);
        }
        record_string(rec, "params", params);
        char pct[32] = "-", rate[32] = "-";
        if (peak > 0) snprintf(pct, sizeof pct, "%.1f%%", 100.0 * stats.gflops / peak);
        if (!c->converge) snprintf(rate, sizeof rate, "%.1f", stats.gflops);
        fprintf(md, "| %s | %s | %s | %.3f | %.2f | %s | %s | %.0f | %s |\n", case_label, prec, impl, stats.median_ms,
                sits * 1e-9, rate, pct, ops.flops, params);
        printf("%s %s %s: %.3f ms, %.2f G start-iterations/s, %s GFLOP/s (%s of FMA peak), %.0f flops/iteration "
               "(%lld FMA, %lld mul, %lld add, %lld rsqrt) [%s]\n",
               case_label, prec, impl, stats.median_ms, sits * 1e-9, rate, pct, ops.flops, (long long)ops.fma,
               (long long)ops.mul, (long long)ops.add, (long long)ops.rsqrt, params);
        if (c->converge)
            printf("  %.1f iterations a start on average; %lld capped at max_iter, %lld failed\n",
                   iterations / ((double)T * V), (long long)status[1], (long long)status[2]);
        else if (status[0] + status[2])
            printf("  warning: %lld starts stopped before the fixed count (NaN/Inf or converged)\n",
                   (long long)(status[0] + status[2]));
        fflush(stdout);
    }
    release_run(&r);
    clpk_sshopm_plan_destroy(plan);
    return st;
}

static double now_ms(void) { return 1e3 * cli_wall_seconds(); }

/* dMRI time-to-solution: (4,3) field on the device, solve to tolerance + de-duplicate + classify on the device. */
static clpk_status dmri_case(clpk_context *ctx, const cli *c, records *recs, FILE *md) {
    clpk_sshopm_dmri_options dopt;
    clpk_sshopm_dmri_options_default(&dopt);
    dopt.voxels = c->voxels;
    dopt.order = 4;
    dopt.seed = c->seed;
    clpk_sshopm_dmri_field field;
    clpk_error err = {0};
    const double t0 = now_ms();
    if (clpk_sshopm_dmri_synth(&dopt, &field, &err) != CLPK_SUCCESS) return fail(err.status, "%s", err.message);
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
            return fail(CLPK_ERROR_INVALID_ARGUMENT, "bad --dmri-shift '%s' (adaptive, bound or a value >= 0)",
                        c->dmri_shift);
        }
    }
    const int64_t T = c->voxels;
    const int U = field.unique, V = o.starts, P = c->dmri_max_pairs;
    clpk_sshopm_plan *plan = NULL;
    clpk_status st = clpk_sshopm_plan_create(ctx, 4, 3, CLPK_PRECISION_F32, T, &o, &plan);
    void *host = st == CLPK_SUCCESS ? to_precision(field.tensors, (size_t)T * U, 0) : NULL;
    if (st == CLPK_SUCCESS && !host) st = fail(CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
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
            if (rc != CL_SUCCESS) st = fail_cl(rc, "clFinish");
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
        if (!counts || !meta) st = fail(CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
        cl_int rc = CL_SUCCESS;
        if (st == CLPK_SUCCESS)
            rc = clEnqueueReadBuffer(clpk_context_queue(ctx), r.out_counts, CL_TRUE, 0, (size_t)T * 5 * 4, counts, 0,
                                     NULL, NULL);
        if (st == CLPK_SUCCESS && rc == CL_SUCCESS)
            rc = clEnqueueReadBuffer(clpk_context_queue(ctx), r.out_meta, CL_TRUE, 0, (size_t)T * P * 4, meta, 0, NULL,
                                     NULL);
        if (st == CLPK_SUCCESS && rc != CL_SUCCESS) st = fail_cl(rc, "reading the reduced pairs");
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
        record *rec = record_new(recs);
        add_common(rec, "dmri-4x3", "clpk-device", "f32");
        record_string(rec, "mode", "time-to-solution");
        record_number(rec, "voxels", (double)T);
        record_number(rec, "starts", V);
        record_string(rec, "shift", c->dmri_shift);
        record_number(rec, "tol", o.tol);
        record_number(rec, "max_iter", o.max_iter);
        record_number(rec, "median_ms", stats.median_ms);
        record_number(rec, "p10_ms", stats.p10_ms);
        record_number(rec, "p90_ms", stats.p90_ms);
        record_number(rec, "runs", stats.runs);
        record_number(rec, "wall_ms", wall);
        record_number(rec, "mean_iters", iterations / starts);
        record_number(rec, "start_iters_per_s", iterations / (stats.median_ms * 1e-3));
        record_number(rec, "converged_fraction", (double)status[0] / starts);
        record_number(rec, "capped_fraction", (double)status[1] / starts);
        record_number(rec, "failed_fraction", (double)status[2] / starts);
        record_number(rec, "pairs_per_voxel", (double)pairs / (double)T);
        record_number(rec, "maxima_per_voxel", (double)maxima / (double)T);
        record_number(rec, "voxels_with_max_fraction", (double)voxels_with_max / (double)T);
        record_number(rec, "dropped", (double)dropped);
        record_number(rec, "target_ms", 500);
        fprintf(
            md,
            "\n| dMRI (4,3) f32, device solve + de-dup + classify | voxels | starts | shift | median ms (events) "
            "| wall ms | mean iterations | converged | capped | maxima/voxel |\n|---|---|---|---|---|---|---|---|---|"
            "---|\n| clpk | %lld | %d | %s | %.1f | %.1f | %.1f | %.2f%% | %.2f%% | %.2f |\n",
            (long long)T, V, c->dmri_shift, stats.median_ms, wall, iterations / starts,
            100.0 * (double)status[0] / starts, 100.0 * (double)status[1] / starts, (double)maxima / (double)T);
        printf(
            "dmri: %lld voxels x %d starts (%s shift, tol %g, cap %d): %.1f ms on the device (events; wall %.1f ms), "
            "%.1f iterations per start, converged %.2f%%, capped %.2f%%, failed %.2f%%, %.2f pairs (%.2f maxima) "
            "per voxel, %lld dropped\n",
            (long long)T, V, c->dmri_shift, o.tol, o.max_iter, stats.median_ms, wall, iterations / starts,
            100.0 * (double)status[0] / starts, 100.0 * (double)status[1] / starts, 100.0 * (double)status[2] / starts,
            (double)pairs / (double)T, (double)maxima / (double)T, (long long)dropped);
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
    if (!starts ||
        clpk_sshopm_starts_generate(n, c->starts, CLPK_SSHOPM_STARTS_SHARED, c->seed, starts, &err) != CLPK_SUCCESS) {
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
    const int parsed = parse_args(argc, argv, &c);
    if (parsed >= 0) return parsed;
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
    records recs = {NULL, NULL};
    char md_path[1024];
    snprintf(md_path, sizeof md_path, "%s/clpk.md", c.out);
    FILE *md = fopen(md_path, "w");
    if (!md) {
        fprintf(stderr, "clpk-bench-sshopm: cannot write %s\n", md_path);
        clpk_context_destroy(ctx);
        return 1;
    }
    if (c.converge)
        fprintf(md,
                "# SS-HOPM benchmark (clpk)\n\nDevice: %s. %lld tensors x %d shared starts, run to convergence with "
                "the default options, seed %llu.\n\n",
                dev->name, (long long)c.tensors, c.starts, (unsigned long long)c.seed);
    else
        fprintf(md,
                "# SS-HOPM benchmark (clpk)\n\nDevice: %s. %lld tensors x %d shared starts x %d fixed iterations, "
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
            if (k)
                pk.f64 = s.gflops;
            else
                pk.f32 = s.gflops;
            record *rec = record_new(&recs);
            add_common(rec, "fma-peak", "clpk-fma-probe", k ? "f64" : "f32");
            record_number(rec, "median_ms", s.median_ms);
            record_number(rec, "gflops", s.gflops);
            printf("FMA peak %s: %.1f GFLOP/s\n", k ? "f64" : "f32", s.gflops);
            fprintf(md, "FMA peak %s (measured): %.1f GFLOP/s. ", k ? "f64" : "f32", s.gflops);
        }
        fprintf(md, "\n\n");
    }
    fprintf(md,
            "| case | precision | impl | median ms | G start-iterations/s | GFLOP/s | %% FMA peak | flops/iteration "
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
            if (throughput_case(ctx, &c, m, n, k, tensors, &pk, &recs, md) != CLPK_SUCCESS) {
                fprintf(stderr, "clpk-bench-sshopm: %dx%d %s: %s\n", m, n, k ? "f64" : "f32", failure_message(ctx));
                rc = 1;
            }
        }
        free(tensors);
    }
    if (c.voxels > 0 && dmri_case(ctx, &c, &recs, md) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-bench-sshopm: dmri: %s\n", failure_message(ctx));
        rc = 1;
    }
    fclose(md);
    char json_path[1024];
    snprintf(json_path, sizeof json_path, "%s/clpk.json", c.out);
    if (!records_write(&recs, dev->name, json_path)) {
        fprintf(stderr, "clpk-bench-sshopm: cannot write %s\n", json_path);
        rc = 1;
    }
    records_free(&recs);
    clpk_context_destroy(ctx);
    if (!rc) printf("wrote %s and %s\n", json_path, md_path);
    return rc;
}
