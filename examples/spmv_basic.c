/* spmv-basic: y = A*x with the spmv family. Builds a CSR matrix (the 2D Laplacian of an n x n grid), lets clpk pick
 * the format and parameters for the device ("auto": its tuning profile, else built-in defaults), multiplies on host
 * arrays and checks the result against a plain CSR loop. Optional argument: a device selector as for clpk-info. */
#include <clpk.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    enum { n = 300 }; /* grid side: n^2 rows, about 5 entries per row */
    const int32_t rows = n * n;
    clpk_csr A = {rows,
                  rows,
                  0,
                  malloc((rows + 1) * sizeof(int64_t)),
                  malloc(5 * rows * sizeof(int32_t)),
                  malloc(5 * rows * sizeof(double))};
    double *x = malloc(rows * sizeof *x), *y = malloc(rows * sizeof *y);
    if (!A.row_ptr || !A.col || !A.val || !x || !y) return 1;
    for (int32_t r = 0; r < rows; ++r) {
        const int i = r / n, j = r % n;
        A.row_ptr[r] = A.nnz;
        const int32_t neighbours[5] = {r - n, r - 1, r, r + 1, r + n}; /* ascending column order */
        const int inside[5] = {i > 0, j > 0, 1, j < n - 1, i < n - 1};
        for (int k = 0; k < 5; ++k) {
            if (!inside[k]) continue;
            A.col[A.nnz] = neighbours[k];
            A.val[A.nnz++] = k == 2 ? 4.0 : -1.0;
        }
        x[r] = 1.0 + (double)(r % 7) / 8.0;
    }
    A.row_ptr[rows] = A.nnz;

    clpk_context *ctx = NULL;
    clpk_spmv_plan *plan = NULL;
    clpk_status st = clpk_context_create(&ctx, argc > 1 ? argv[1] : NULL);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "spmv-basic: no device: %s\n", clpk_status_string(st));
        return 1;
    }
    st = clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "auto", NULL, &plan);
    if (st == CLPK_SUCCESS) st = clpk_spmv_host(plan, 1.0, x, 0.0, y); /* y = 1*A*x + 0*y */
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "spmv-basic: %s: %s\n", clpk_status_string(st), clpk_last_error(ctx));
        clpk_spmv_plan_destroy(plan);
        clpk_context_destroy(ctx);
        return 1;
    }
    char plan_text[512];
    clpk_spmv_plan_describe(plan, plan_text, sizeof plan_text);
    printf("device: %s\nplan: %s\n", clpk_context_device_info(ctx)->name, plan_text);

    double max_diff = 0, max_ref = 0;
    for (int32_t r = 0; r < rows; ++r) {
        double ref = 0;
        for (int64_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
            ref += A.val[k] * x[A.col[k]];
        max_diff = fmax(max_diff, isnan(y[r]) ? INFINITY : fabs(y[r] - ref));
        max_ref = fmax(max_ref, fabs(ref));
    }
    const double rel = max_diff / max_ref;
    printf("%d x %d, %lld entries: relative error %.2e vs a double CSR loop: %s\n", rows, rows, (long long)A.nnz, rel,
           rel <= 1e-5 ? "OK" : "WRONG");
    clpk_spmv_plan_destroy(plan);
    clpk_context_destroy(ctx);
    clpk_csr_free(&A);
    free(x);
    free(y);
    return rel <= 1e-5 ? 0 : 1;
}
