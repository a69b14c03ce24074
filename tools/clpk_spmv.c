/* clpk-spmv: y = A*x with the spmv family on a Matrix Market file or a generated matrix; optional check against a
 * double-precision CPU reference and a benchmark. */
#include <clpk.h>

#include "cli_args.h"
#include "cli_clock.h"
#include "cli_params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const synopsis =
    "(A.mtx | --generate SPEC) [options]\n"
    "  Computes y = A*x. Symmetric, skew-symmetric and pattern files are expanded; complex files are refused.";

static double reference_error(const clpk_csr *A, const double *x, const double *y) {
    double max_diff = 0, max_ref = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        double s = 0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k)
            s += A->val[k] * x[A->col[k]];
        if (isnan(y[r])) return INFINITY;
        double d = fabs(y[r] - s);
        if (d > max_diff) max_diff = d;
        if (fabs(s) > max_ref) max_ref = fabs(s);
    }
    return max_ref > 0 ? max_diff / max_ref : max_diff;
}

int main(int argc, char **argv) {
    const char *gen = NULL, *xpath = NULL, *out = NULL, *format = "auto", *params = NULL, *dev = NULL;
    const char *precision_name = "f32";
    int check = 0;
    long long bench = CLI_INT_UNSET, seed = 1;
    cli_list paths = {0};
    const cli_option options[] = {
        {"--generate", CLI_STRING, &gen, "SPEC",
         "a generated matrix instead of a file: fem:N, stencil3d:N, random:R:C:K, powerlaw:N,\n"
         "longrow:R:C:L (values from --seed)"},
        {"--x", CLI_STRING, &xpath, "X.mtx",
         "read x from a Matrix Market array file (default x[j] = 1 + (j mod 7)/8, 0-based j)"},
        {"--out", CLI_STRING, &out, "Y.mtx", "write y as a Matrix Market array file"},
        {"--precision", CLI_STRING, &precision_name, "f32|f64", "precision of the plan (default f32)"},
        {"--format", CLI_STRING, &format, "auto|bccoo|bccoo+|csr", "storage format (default auto)"},
        {"--params", CLI_STRING, &params, "k=v,...", "override the plan's parameters (keys below, docs/spmv.md)"},
        {"--device", CLI_STRING, &dev, "SEL", "device selector, as for clpk-info (default $CLPK_DEVICE)"},
        {"--check", CLI_FLAG, &check, NULL,
         "compare with a double-precision CPU reference and print the max-norm relative error\n"
         "(exit status 1 above 1e-5 for f32, 1e-12 for f64)"},
        {"--bench", CLI_INT, &bench, "N",
         "print the median time of N runs, GFLOP/s (2*nnz flops) and GB/s (matrix data + x + y)"},
        {"--seed", CLI_INT, &seed, "S", "seed of --generate's values (default 1)"},
        {NULL, 0, NULL, NULL, NULL}};
    int parsed = cli_parse("clpk-spmv", synopsis, options, argc, argv, 1, &paths);
    if (parsed == 1) cli_print_family_parameters(stdout, "spmv");
    if (parsed) return parsed == 1 ? 0 : parsed;
    clpk_precision precision;
    if (clpk_precision_parse(precision_name, &precision) != CLPK_SUCCESS)
        return cli_fail("clpk-spmv", "unknown precision '%s' (f32 or f64)", precision_name);
    if (bench == CLI_INT_UNSET)
        bench = 0;
    else if (bench <= 0 || bench > 1000000000)
        return cli_fail("clpk-spmv", "--bench needs a positive count");
    if (paths.count > 1) {
        cli_fail("clpk-spmv", "unexpected argument '%s'", paths.items[1]);
        cli_usage(stderr, "clpk-spmv", synopsis, options);
        return 2;
    }
    const char *path = paths.count ? paths.items[0] : NULL;
    if (!path == !gen) {
        cli_fail("clpk-spmv", "give a matrix file or --generate SPEC (one of them)");
        cli_usage(stderr, "clpk-spmv", synopsis, options);
        return 2;
    }

    clpk_error err = {0};
    clpk_csr A = {0};
    double t0 = cli_wall_seconds();
    if (path) {
        clpk_coo coo = {0};
        if (clpk_mtx_read(path, &coo, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-spmv: %s: %s\n", clpk_status_string(err.status), err.message);
            return 2;
        }
        clpk_status st = clpk_coo_to_csr(&coo, &A, &err);
        clpk_coo_free(&coo);
        if (st != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-spmv: %s\n", err.message);
            return 2;
        }
    } else if (clpk_spmv_generate(gen, (unsigned long long)seed, &A, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-spmv: %s\n", err.message);
        return 2;
    }
    double t_read = cli_wall_seconds() - t0;
    printf("matrix: %s  %d x %d  nnz %lld  (read %.3f s)\n", path ? path : gen, (int)A.rows, (int)A.cols,
           (long long)A.nnz, t_read);

    double *x = malloc(sizeof *x * (size_t)(A.cols ? A.cols : 1));
    double *y = malloc(sizeof *y * (size_t)(A.rows ? A.rows : 1));
    int rc = 0;
    clpk_context *ctx = NULL;
    clpk_spmv_plan *plan = NULL;
    if (!x || !y) {
        fprintf(stderr, "clpk-spmv: out of memory\n");
        rc = 2;
        goto done;
    }
    if (xpath) {
        double *v = NULL;
        int64_t n = 0;
        if (clpk_mtx_read_vector(xpath, &v, &n, &err) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-spmv: %s\n", err.message);
            rc = 2;
            goto done;
        }
        if (n != A.cols) {
            fprintf(stderr, "clpk-spmv: %s has %lld entries, the matrix %d columns\n", xpath, (long long)n,
                    (int)A.cols);
            free(v);
            rc = 2;
            goto done;
        }
        memcpy(x, v, sizeof *x * (size_t)n);
        free(v);
    } else {
        for (int32_t j = 0; j < A.cols; ++j)
            x[j] = 1.0 + (double)(j % 7) / 8.0;
    }
    clpk_status st = clpk_context_create(&ctx, dev);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-spmv: no device: %s\n", clpk_status_string(st));
        rc = 2;
        goto done;
    }
    printf("device: %s\n", clpk_context_device_info(ctx)->name);
    t0 = cli_wall_seconds();
    st = clpk_spmv_plan_create(ctx, &A, precision, format, params, &plan);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-spmv: %s: %s\n", clpk_status_string(st), clpk_last_error(ctx));
        rc = 2;
        goto done;
    }
    char desc[512];
    clpk_spmv_plan_describe(plan, desc, sizeof desc);
    printf("plan: %s %s\n", clpk_precision_name(precision), desc);
    printf("plan created in %.3f s (conversion, upload, kernel build); device footprint %.3f MB\n",
           cli_wall_seconds() - t0, (double)clpk_spmv_plan_footprint(plan) / 1e6);
    st = clpk_spmv_host(plan, 1.0, x, 0.0, y);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-spmv: %s: %s\n", clpk_status_string(st), clpk_last_error(ctx));
        rc = 2;
        goto done;
    }
    if (check) {
        double e = reference_error(&A, x, y);
        double tol = precision == CLPK_PRECISION_F64 ? 1e-12 : 1e-5;
        printf("check: relative error %.3g (max-norm, vs double-precision CPU reference; tolerance %.0e) %s\n", e, tol,
               e <= tol ? "OK" : "FAIL");
        if (!(e <= tol)) rc = 1;
    }
    if (out && clpk_mtx_write_vector(out, y, A.rows, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-spmv: %s\n", err.message);
        rc = 2;
        goto done;
    }
    if (bench) {
        clpk_bench_stats s;
        st = clpk_spmv_plan_bench(plan, bench < 5 ? 1 : 5, (int)bench, &s);
        if (st != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-spmv: bench: %s: %s\n", clpk_status_string(st), clpk_last_error(ctx));
            rc = 2;
            goto done;
        }
        printf("bench: %d runs, median %.4f ms (min %.4f, p90 %.4f), %.2f GFLOP/s, %.2f GB/s\n", s.runs, s.median_ms,
               s.min_ms, s.p90_ms, s.gflops, s.gbps);
    }
done:
    clpk_spmv_plan_destroy(plan);
    clpk_context_destroy(ctx);
    clpk_csr_free(&A);
    free(x);
    free(y);
    return rc;
}
