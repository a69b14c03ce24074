/* clpk-xcorr: 2D cross-correlation of stacks of small matrices from .npy files, in the scipy correlate2d 'full'
 * convention, with a choice of pattern, algorithm and parameters, an optional check against the double-precision
 * CPU reference and a benchmark. */
#include "clpk_xcorr.h"
#include "clpk_internal.h"
#include "xcorr_plan.h"
#include "xcorr_reference.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(
        f, "usage: clpk-xcorr --pattern one-to-one|one-to-many|n-to-mn|n-to-m --left L.npy --right R.npy --out O.npy\n"
           "                  [--algorithm auto|naive|shift-buffer|split-row|grouped|multi-right|multi-both|\n"
           "                               warp-per-overlap|local|fft|fused-fft] [--params k=v,...] [--search-size "
           "S|SxS]\n"
           "                  [--precision f32|f64] [--device SELECTOR] [--check] [--bench N]\n"
           "L and R hold (N, R, C) stacks (or one (R, C) matrix) of any numeric dtype; O receives (N_out, 2R-1, 2C-1)\n"
           "(or the search window) in the plan's precision, which defaults to f64 for f64 inputs and f32 otherwise.\n"
           "one-to-one: N_L = N_R; one-to-many: N_L = 1; n-to-mn: N_R = m * N_L, output j pairs right j with left\n"
           "j mod N_L; n-to-m: every pair, output index left * N_R + right.\n"
           "--check compares with a double-precision CPU reference (relative error per output norm: 1e-5 in f32,\n"
           "1e-12 in f64) and fails above it; --bench N times N runs on the device (median of profiling events).\n"
           "--params keys by algorithm (unset keys take the built-in defaults):\n"
           "  naive, warp-per-overlap: wg\n"
           "  shift-buffer: team, shuffle=local|subgroup (subgroup: sub-group/warp shuffles, where the device has\n"
           "    cl_khr_subgroup_shuffle or cl_intel_subgroups, and NVIDIA GPUs; team = the sub-group width, 32 there)\n"
           "  split-row: rows_per_worker, combine=ordered|atomic, distribution=rectangle|triangle, wg\n"
           "  grouped, multi-right, multi-both: shifts, rows, lefts, rights, wg\n"
           "  local: rows, shifts, wg (both matrices in local memory: refused where they do not fit)\n"
           "  fft: fft_pad=smooth|pow2, fft_batch\n"
           "  fused-fft (one-to-one): fft_pad=smooth|pow2, rows (FFT lines per work-group), wg, fused_batch,\n"
           "    fused_gaps=1|0\n");
}

typedef struct options {
    const char *pattern, *left, *right, *out, *algorithm, *params, *search, *precision, *device;
    int check, bench;
} options;

static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--check") == 0) {
            o->check = 1;
            continue;
        } else if (strcmp(a, "--pattern") == 0)
            slot = &o->pattern;
        else if (strcmp(a, "--left") == 0)
            slot = &o->left;
        else if (strcmp(a, "--right") == 0)
            slot = &o->right;
        else if (strcmp(a, "--out") == 0)
            slot = &o->out;
        else if (strcmp(a, "--algorithm") == 0)
            slot = &o->algorithm;
        else if (strcmp(a, "--params") == 0)
            slot = &o->params;
        else if (strcmp(a, "--search-size") == 0)
            slot = &o->search;
        else if (strcmp(a, "--precision") == 0)
            slot = &o->precision;
        else if (strcmp(a, "--device") == 0)
            slot = &o->device;
        else if (strcmp(a, "--bench") == 0) {
            if (i + 1 >= argc) return fprintf(stderr, "clpk-xcorr: --bench needs a count\n"), 0;
            char *end = NULL;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 100000)
                return fprintf(stderr, "clpk-xcorr: --bench %s: give a count in 1..100000\n", argv[i]), 0;
            o->bench = (int)n;
            continue;
        } else {
            fprintf(stderr, "clpk-xcorr: unknown argument '%s'\n", a);
            return 0;
        }
        if (i + 1 >= argc) return fprintf(stderr, "clpk-xcorr: %s needs a value\n", a), 0;
        *slot = argv[++i];
    }
    if (!o->pattern || !o->left || !o->right || !o->out) {
        fprintf(stderr, "clpk-xcorr: --pattern, --left, --right and --out are required\n");
        return 0;
    }
    return 1;
}

/* "S" or "RxC", odd positive numbers (checked by the plan). */
static int parse_search(const char *text, int *rows, int *cols) {
    char *end = NULL;
    errno = 0;
    long r = strtol(text, &end, 10), c = r;
    if (end == text || errno) return 0;
    if (*end == 'x' || *end == 'X') {
        const char *rest = end + 1;
        c = strtol(rest, &end, 10);
        if (end == rest || errno) return 0;
    }
    if (*end || r < 1 || c < 1 || r > 1 << 20 || c > 1 << 20) return 0;
    *rows = (int)r, *cols = (int)c;
    return 1;
}

/* Reads a stack as doubles: (R, C) is one matrix, (N, R, C) a stack. */
static int read_stack(const char *path, clpk_npy *arr, int *count, int *rows, int *cols, int *was_f64) {
    clpk_error err = {0};
    if (clpk_npy_read(path, arr, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s\n", err.message);
        return 0;
    }
    if (arr->ndim != 2 && arr->ndim != 3) {
        fprintf(stderr, "clpk-xcorr: %s has %d dimensions; expected (N, R, C) or (R, C)\n", path, arr->ndim);
        return 0;
    }
    const int64_t n = arr->ndim == 3 ? arr->shape[0] : 1, r = arr->shape[arr->ndim - 2], c = arr->shape[arr->ndim - 1];
    if (n < 1 || r < 1 || c < 1 || n > 1 << 30 || r > 1 << 20 || c > 1 << 20) {
        fprintf(stderr, "clpk-xcorr: %s has an empty or oversized shape\n", path);
        return 0;
    }
    *was_f64 = arr->dtype == CLPK_DTYPE_F64;
    if (clpk_npy_convert(arr, CLPK_DTYPE_F64, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s: %s\n", path, err.message);
        return 0;
    }
    *count = (int)n, *rows = (int)r, *cols = (int)c;
    return 1;
}

typedef struct bench_job {
    clpk_xcorr_plan *plan;
    cl_mem left, right, out;
} bench_job;

static clpk_status bench_launch(void *user, cl_event *first, cl_event *last) {
    bench_job *j = user;
    return xcorr_execute_timed(j->plan, j->left, 0, j->right, 0, j->out, 0, first, last);
}

/* Multiply-adds: every shift's overlap area, summed over the window (R^2 C^2 per pair for the full output). */
static double count_macs(const clpk_xcorr_shape *s) {
    const int orows = clpk_xcorr_output_rows(s), ocols = clpk_xcorr_output_cols(s);
    double rsum = 0, csum = 0;
    for (int k = 0; k < orows; ++k)
        rsum += s->rows - abs(k - (orows - 1) / 2);
    for (int l = 0; l < ocols; ++l)
        csum += s->cols - abs(l - (ocols - 1) / 2);
    return rsum * csum * (double)clpk_xcorr_output_count(s);
}

static int run_bench(clpk_context *ctx, clpk_xcorr_plan *plan, const clpk_xcorr_shape *s, const void *left,
                     const void *right, size_t nl, size_t nr, size_t no, int repeats) {
    const size_t elem = clpk_precision_size(s->precision);
    cl_context c = clpk_context_cl_context(ctx);
    cl_int rc = CL_SUCCESS;
    bench_job job = {plan, NULL, NULL, NULL};
    job.left = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nl * elem, (void *)left, &rc);
    if (rc == CL_SUCCESS)
        job.right = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nr * elem, (void *)right, &rc);
    if (rc == CL_SUCCESS) job.out = clCreateBuffer(c, CL_MEM_READ_WRITE, no * elem, NULL, &rc);
    clpk_status st = rc == CL_SUCCESS ? CLPK_SUCCESS : core_fail_cl(ctx, rc, "clCreateBuffer(bench)");
    const double macs = count_macs(s);
    clpk_bench_stats stats;
    if (st == CLPK_SUCCESS)
        st = clpk_bench_run(ctx, bench_launch, &job, 3, repeats, (double)(nl + nr + no) * elem, 2 * macs, &stats);
    if (st == CLPK_SUCCESS) {
        printf("bench: %d runs, median %.4f ms (min %.4f, p90 %.4f), %.1f GFLOP/s, %.1f GB/s\n", stats.runs,
               stats.median_ms, stats.min_ms, stats.p90_ms, stats.gflops, stats.gbps);
        char extra[256];
        snprintf(extra, sizeof extra, "{\"pattern\":\"%s\",\"algorithm\":\"%s\",\"rows\":%d,\"cols\":%d,\"n_out\":%zu}",
                 clpk_xcorr_pattern_name(s->pattern), clpk_xcorr_plan_algorithm(plan), s->rows, s->cols,
                 clpk_xcorr_output_count(s));
        char *json = clpk_bench_stats_json("xcorr", &stats, extra);
        if (json) printf("bench-json: %s\n", json);
        free(json);
    } else {
        fprintf(stderr, "clpk-xcorr: bench: %s\n", clpk_last_error(ctx));
    }
    if (job.left) clReleaseMemObject(job.left);
    if (job.right) clReleaseMemObject(job.right);
    if (job.out) clReleaseMemObject(job.out);
    return st == CLPK_SUCCESS;
}

int main(int argc, char **argv) {
    options o;
    if (!parse_args(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }
    clpk_xcorr_shape shape = {0};
    if (clpk_xcorr_pattern_parse(o.pattern, &shape.pattern) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: unknown pattern '%s' (one-to-one, one-to-many, n-to-mn, n-to-m)\n", o.pattern);
        return 2;
    }
    if (o.search && !parse_search(o.search, &shape.search_rows, &shape.search_cols)) {
        fprintf(stderr, "clpk-xcorr: --search-size '%s': give S or RxC with odd positive numbers\n", o.search);
        return 2;
    }
    clpk_npy left = {0}, right = {0};
    int rows_r = 0, cols_r = 0, left_f64 = 0, right_f64 = 0;
    int code = 1;
    clpk_context *ctx = NULL;
    clpk_xcorr_plan *plan = NULL;
    void *hl = NULL, *hr = NULL, *ho = NULL;
    double *ref = NULL, *got = NULL;
    if (!read_stack(o.left, &left, &shape.n_left, &shape.rows, &shape.cols, &left_f64) ||
        !read_stack(o.right, &right, &shape.n_right, &rows_r, &cols_r, &right_f64))
        goto done;
    if (rows_r != shape.rows || cols_r != shape.cols) {
        fprintf(stderr, "clpk-xcorr: left matrices are %dx%d but right ones %dx%d\n", shape.rows, shape.cols, rows_r,
                cols_r);
        goto done;
    }
    shape.precision = left_f64 && right_f64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
    if (o.precision && clpk_precision_parse(o.precision, &shape.precision) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: --precision '%s': f32 or f64\n", o.precision);
        code = 2;
        goto done;
    }
    clpk_error err = {0};
    if (xcorr_shape_check(&shape, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s\n", err.message);
        goto done;
    }
    clpk_status st = clpk_context_create(&ctx, o.device);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: no device%s%s: %s\n", o.device ? " matching " : "", o.device ? o.device : "",
                clpk_status_string(st));
        goto done;
    }
    st = clpk_xcorr_plan_create(ctx, &shape, o.algorithm, o.params, &plan);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s\n", clpk_last_error(ctx));
        goto done;
    }
    char used[256];
    clpk_xcorr_plan_params(plan, used, sizeof used);
    const int orows = clpk_xcorr_output_rows(&shape), ocols = clpk_xcorr_output_cols(&shape);
    const size_t count = clpk_xcorr_output_count(&shape);
    printf("device: %s\n", clpk_context_device_info(ctx)->name);
    printf("xcorr %s: %d left, %d right of %dx%d, %s -> %zu x %dx%d; algorithm %s {%s}\n",
           clpk_xcorr_pattern_name(shape.pattern), shape.n_left, shape.n_right, shape.rows, shape.cols,
           clpk_precision_name(shape.precision), count, orows, ocols, clpk_xcorr_plan_algorithm(plan), used);
    const int f64 = shape.precision == CLPK_PRECISION_F64;
    const size_t elem = clpk_precision_size(shape.precision);
    const size_t nl = (size_t)left.count, nr = (size_t)right.count, no = count * (size_t)orows * (size_t)ocols;
    hl = malloc(nl * elem), hr = malloc(nr * elem), ho = malloc(no * elem);
    if (!hl || !hr || !ho) {
        fprintf(stderr, "clpk-xcorr: out of host memory for %zu outputs\n", no);
        goto done;
    }
    for (size_t i = 0; i < nl; ++i) {
        if (f64)
            ((double *)hl)[i] = ((double *)left.data)[i];
        else
            ((float *)hl)[i] = (float)((double *)left.data)[i];
    }
    for (size_t i = 0; i < nr; ++i) {
        if (f64)
            ((double *)hr)[i] = ((double *)right.data)[i];
        else
            ((float *)hr)[i] = (float)((double *)right.data)[i];
    }
    double t0 = core_wall_seconds();
    st = clpk_xcorr_execute_host(plan, hl, hr, ho);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s\n", clpk_last_error(ctx));
        goto done;
    }
    printf("computed in %.3f s (host arrays, copies included)\n", core_wall_seconds() - t0);
    const int64_t oshape[3] = {(int64_t)count, orows, ocols};
    if (clpk_npy_write_raw(o.out, f64 ? CLPK_DTYPE_F64 : CLPK_DTYPE_F32, 3, oshape, ho, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s\n", err.message);
        goto done;
    }
    printf("wrote %s\n", o.out);
    code = 0;
    if (o.check) {
        ref = malloc(no * sizeof *ref), got = malloc(no * sizeof *got);
        if (!ref || !got) {
            fprintf(stderr, "clpk-xcorr: out of host memory for the check\n");
            code = 1;
            goto done;
        }
        /* The reference is a plain double loop: say so when it will take a while (~1e9 multiply-adds a second). */
        const double macs = count_macs(&shape);
        if (macs > 2e9) printf("check: the CPU reference needs about %.0e multiply-adds...\n", macs);
        xcorr_reference(&shape, left.data, right.data, ref);
        double max_err = 0, max_ref = 0;
        for (size_t i = 0; i < no; ++i) {
            got[i] = f64 ? ((double *)ho)[i] : (double)((float *)ho)[i];
            const double d = fabs(got[i] - ref[i]);
            max_err = isnan(d) ? INFINITY : fmax(max_err, d);
            max_ref = fmax(max_ref, fabs(ref[i]));
        }
        const double rel = max_ref > 0 ? max_err / max_ref : max_err, tol = f64 ? 1e-12 : 1e-5;
        const int ok = rel <= tol;
        printf("check: relative error %.3g against the double CPU reference (limit %.0e): %s\n", rel, tol,
               ok ? "OK" : "WRONG");
        if (!ok) code = 1;
    }
    if (o.bench && !run_bench(ctx, plan, &shape, hl, hr, nl, nr, no, o.bench)) code = 1;
done:
    free(ref);
    free(got);
    free(hl);
    free(hr);
    free(ho);
    clpk_xcorr_plan_destroy(plan);
    clpk_context_destroy(ctx);
    clpk_npy_free(&left);
    clpk_npy_free(&right);
    return code;
}
