/* clpk-xcorr: 2D cross-correlation of stacks of small matrices from .npy files, in the scipy correlate2d 'full'
 * convention, with a choice of pattern, algorithm and parameters, an optional check against the double-precision
 * CPU reference and a benchmark. */
#include <clpk.h>

#include "cli_args.h"
#include "cli_bench_launch.h"
#include "cli_clock.h"
#include "cli_params.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const synopsis =
    "--pattern P --left L.npy --right R.npy --out O.npy [options]\n"
    "  L and R hold (N, R, C) stacks (or one (R, C) matrix) of any numeric dtype; O receives (N_out, 2R-1, 2C-1)\n"
    "  (or the search window) in the plan's precision, which defaults to f64 for f64 inputs and f32 otherwise.";

typedef struct options {
    const char *pattern, *left, *right, *out, *algorithm, *params, *search, *precision, *device;
    int check;
    long long bench;
} options;

/* Returns 0 to go on, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->bench = CLI_INT_UNSET;
    const cli_option table[] = {
        {"--pattern", CLI_STRING, &o->pattern, "one-to-one|one-to-many|n-to-mn|n-to-m",
         "one-to-one: N_L = N_R; one-to-many: N_L = 1; n-to-mn: N_R = m * N_L, output j pairs\n"
         "right j with left j mod N_L; n-to-m: every pair, output index left * N_R + right (required)"},
        {"--left", CLI_STRING, &o->left, "L.npy", "the left stack (required)"},
        {"--right", CLI_STRING, &o->right, "R.npy", "the right stack (required)"},
        {"--out", CLI_STRING, &o->out, "O.npy", "the output stack (required)"},
        {"--algorithm", CLI_STRING, &o->algorithm, "A",
         "auto (default), naive, shift-buffer, split-row, grouped, multi-right, multi-both,\n"
         "warp-per-overlap, local, fft or fused-fft"},
        {"--params", CLI_STRING, &o->params, "k=v,...",
         "override the algorithm's parameters (keys below; unset keys take the built-in defaults)"},
        {"--search-size", CLI_STRING, &o->search, "S|RxC", "only an odd centred window of shifts (default: all)"},
        {"--precision", CLI_STRING, &o->precision, "f32|f64", "precision of the plan"},
        {"--device", CLI_STRING, &o->device, "SEL", "device selector, as for clpk-info (default $CLPK_DEVICE)"},
        {"--check", CLI_FLAG, &o->check, NULL,
         "compare with a double-precision CPU reference (relative error per output norm:\n"
         "1e-5 in f32, 1e-12 in f64) and fail above it"},
        {"--bench", CLI_INT, &o->bench, "N", "time N runs on the device (median of profiling events)"},
        {NULL, 0, NULL, NULL, NULL}};
    int rc = cli_parse("clpk-xcorr", synopsis, table, argc, argv, 1, NULL);
    if (rc == 1) {
        cli_print_family_parameters(stdout, "xcorr");
        return 0;
    }
    if (rc) return rc;
    if (o->bench == CLI_INT_UNSET)
        o->bench = 0;
    else if (o->bench < 1 || o->bench > 100000)
        return cli_fail("clpk-xcorr", "--bench %lld: give a count in 1..100000", o->bench);
    if (!o->pattern || !o->left || !o->right || !o->out) {
        cli_fail("clpk-xcorr", "--pattern, --left, --right and --out are required");
        cli_usage(stderr, "clpk-xcorr", synopsis, table);
        return 2;
    }
    return -1;
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
    cli_xcorr_launch job = {plan, NULL, NULL, NULL};
    job.left = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nl * elem, (void *)left, &rc);
    if (rc == CL_SUCCESS)
        job.right = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nr * elem, (void *)right, &rc);
    if (rc == CL_SUCCESS) job.out = clCreateBuffer(c, CL_MEM_READ_WRITE, no * elem, NULL, &rc);
    if (rc != CL_SUCCESS) fprintf(stderr, "clpk-xcorr: bench: clCreateBuffer failed (OpenCL error %d)\n", rc);
    clpk_status st = rc == CL_SUCCESS ? CLPK_SUCCESS : CLPK_ERROR_OPENCL;
    const double macs = count_macs(s);
    clpk_bench_stats stats;
    if (st == CLPK_SUCCESS)
        st = clpk_bench_run(ctx, cli_xcorr_launch_events, &job, 3, repeats, (double)(nl + nr + no) * elem, 2 * macs,
                            &stats);
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
    } else if (rc == CL_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: bench: %s\n", clpk_last_error(ctx));
    }
    if (job.left) clReleaseMemObject(job.left);
    if (job.right) clReleaseMemObject(job.right);
    if (job.out) clReleaseMemObject(job.out);
    return st == CLPK_SUCCESS;
}

int main(int argc, char **argv) {
    options o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed >= 0) return parsed;
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
    if (clpk_xcorr_shape_check(&shape, &err) != CLPK_SUCCESS) {
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
    double t0 = cli_wall_seconds();
    st = clpk_xcorr_execute_host(plan, hl, hr, ho);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-xcorr: %s\n", clpk_last_error(ctx));
        goto done;
    }
    printf("computed in %.3f s (host arrays, copies included)\n", cli_wall_seconds() - t0);
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
        if (clpk_xcorr_reference(&shape, left.data, right.data, ref, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-xcorr: %s\n", err.message);
            code = 1;
            goto done;
        }
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
    if (o.bench && !run_bench(ctx, plan, &shape, hl, hr, nl, nr, no, (int)o.bench)) code = 1;
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
