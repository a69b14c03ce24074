/* clpk_spmv_plan_tune (online per-matrix quick tune): the chosen plan is correct on a fresh random x (NaN-poisoned y),
 * the search stays within its multiply budget, the choice is reported (and is the plan returned), the chosen time is
 * the minimum of what was measured (the default included); bad arguments are refused with a message. Speed itself is
 * not asserted (that is the benchmark's job). */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* [A A ... A] (copies side by side): a matrix wider than tall with A's block structure, so the shape candidates reuse
 * the programs built for A and only BCCOO+ adds one. */
static int side_by_side(const clpk_csr *A, int copies, clpk_csr *W) {
    memset(W, 0, sizeof *W);
    W->rows = A->rows;
    W->cols = A->cols * copies;
    W->nnz = A->nnz * copies;
    W->row_ptr = malloc(((size_t)A->rows + 1) * sizeof *W->row_ptr);
    W->col = malloc((size_t)W->nnz * sizeof *W->col);
    W->val = malloc((size_t)W->nnz * sizeof *W->val);
    if (!W->row_ptr || !W->col || !W->val) return 0;
    int64_t k = 0;
    W->row_ptr[0] = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        for (int c = 0; c < copies; ++c)
            for (int64_t j = A->row_ptr[r]; j < A->row_ptr[r + 1]; ++j, ++k) {
                W->col[k] = A->col[j] + c * A->cols;
                W->val[k] = A->val[j] * (1.0 + 0.25 * c);
            }
        W->row_ptr[r + 1] = k;
    }
    return 1;
}

static void tune_and_check(clpk_context *ctx, const char *spec, clpk_precision p, int budget, uint64_t *rng) {
    clpk_csr A;
    clpk_error err = {0};
    int wide = strncmp(spec, "wide:", 5) == 0;
    if (!CHECK(clpk_spmv_generate(spec + (wide ? 5 : 0), check_rand(rng), &A, &err) == CLPK_SUCCESS, "%s: %s", spec,
               err.message))
        return;
    if (wide) {
        clpk_csr W;
        int made = side_by_side(&A, 4, &W);
        spmv_util_free(&A);
        A = W;
        if (!CHECK(made, "%s: out of memory", spec)) {
            spmv_util_free(&A);
            return;
        }
    }
    clpk_spmv_plan *plan = NULL;
    clpk_spmv_tune_report rep;
    memset(&rep, 0xff, sizeof rep); /* every field must be written */
    clpk_status st = clpk_spmv_plan_tune(ctx, &A, p, budget, &plan, &rep);
    const char *name = clpk_precision_name(p);
    if (CHECK(st == CLPK_SUCCESS && plan, "%s %s: tune failed: %s", spec, name, clpk_last_error(ctx))) {
        int limit = budget ? budget : 60;
        CHECK(rep.multiplies > 0 && rep.multiplies <= limit, "%s %s: %d multiplies, budget %d", spec, name,
              rep.multiplies, limit);
        CHECK(rep.candidates >= 2 && rep.rejected >= 0 && rep.rejected < rep.candidates,
              "%s %s: %d candidates, %d rejected", spec, name, rep.candidates, rep.rejected);
        char desc[512];
        clpk_spmv_plan_describe(plan, desc, sizeof desc);
        CHECK(rep.choice[0] && strcmp(rep.choice, desc) == 0, "%s %s: reported choice '%.80s' vs plan '%.80s'", spec,
              name, rep.choice, desc);
        CHECK(rep.best_ms > 0 && (rep.default_ms <= 0 || rep.best_ms <= rep.default_ms),
              "%s %s: chosen %.4f ms, default %.4f ms (the choice must be the minimum measured)", spec, name,
              rep.best_ms, rep.default_ms);
        CHECK(rep.chose_default == 0 || rep.chose_default == 1, "%s %s: chose_default %d", spec, name,
              rep.chose_default);
        /* correctness of the returned plan on fresh data, beta != 0 as well */
        double *x = malloc((size_t)A.cols * sizeof *x), *y0 = malloc((size_t)A.rows * sizeof *y0);
        double *ref = malloc((size_t)A.rows * sizeof *ref), *y = malloc((size_t)A.rows * sizeof *y);
        for (int32_t j = 0; j < A.cols; ++j) x[j] = 2 * check_rand_double(rng) - 1;
        for (int32_t r = 0; r < A.rows; ++r) y0[r] = 2 * check_rand_double(rng) - 1;
        for (int pass = 0; pass < 2; ++pass) {
            double beta = pass ? 0.5 : 0.0;
            for (int32_t r = 0; r < A.rows; ++r) y[r] = pass ? y0[r] : NAN;
            spmv_util_reference(&A, 1.25, x, beta, y0, ref);
            st = clpk_spmv_host(plan, 1.25, x, beta, y);
            double e = st == CLPK_SUCCESS ? spmv_util_error(&A, 1.25, x, beta, y0, ref, y) : INFINITY;
            CHECK(e <= spmv_util_tolerance(p), "%s %s beta %g: chosen plan error %.3g (%s)", spec, name, beta, e, desc);
        }
        printf("%s %s: %d candidates (%d rejected), %d multiplies, %.4f ms (default %.4f): %s\n", spec, name,
               rep.candidates, rep.rejected, rep.multiplies, rep.best_ms, rep.default_ms, rep.choice);
        free(x), free(y0), free(ref), free(y);
    }
    clpk_spmv_plan_destroy(plan);
    spmv_util_free(&A);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    int fp64 = clpk_context_device_info(ctx)->has_fp64;

    /* 4 x wider than tall, blocked: shapes, BCCOO+ and the refinement all run (one case: PoCL compiles ~1 s per
     * candidate program) */
    tune_and_check(ctx, "wide:fem:12", CLPK_PRECISION_F32, 0, &rng);
    /* tight budget: CSR + one candidate (f64 where the device has it: few programs to build) */
    tune_and_check(ctx, "powerlaw:1500", fp64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32, 9, &rng);

    /* refusals */
    clpk_csr A;
    clpk_error err = {0};
    clpk_spmv_plan *plan = (clpk_spmv_plan *)&rng;
    CHECK(clpk_spmv_generate("fem:3", 5, &A, &err) == CLPK_SUCCESS, "fem:3");
    CHECK(clpk_spmv_plan_tune(NULL, &A, CLPK_PRECISION_F32, 0, &plan, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL ctx");
    CHECK(clpk_spmv_plan_tune(ctx, NULL, CLPK_PRECISION_F32, 0, &plan, NULL) == CLPK_ERROR_INVALID_ARGUMENT &&
              plan == NULL,
          "NULL matrix: plan set to NULL");
    CHECK(clpk_spmv_plan_tune(ctx, &A, CLPK_PRECISION_F32, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL out");
    CHECK(clpk_spmv_plan_tune(ctx, &A, CLPK_PRECISION_F32, 4, &plan, NULL) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "max_multiplies"),
          "budget 4 refused: %s", clpk_last_error(ctx));
    CHECK(clpk_spmv_plan_tune(ctx, &A, CLPK_PRECISION_F32, -1, &plan, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
          "negative budget");
    A.val[3] = NAN;
    CHECK(clpk_spmv_plan_tune(ctx, &A, CLPK_PRECISION_F32, 0, &plan, NULL) != CLPK_SUCCESS && plan == NULL,
          "NaN matrix value refused");
    spmv_util_free(&A);
    clpk_context_destroy(ctx);
    return check_summary();
}
