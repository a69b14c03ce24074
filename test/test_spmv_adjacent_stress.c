/* Adjacent synchronization under load: matrices of about a million nonzeros cut into thousands of small work-groups
 * (tile 4-8, wg 64-128), so many groups are resident at once and carries cross between them while they run. Each
 * case is checked on the FIRST launches of fresh plans (the carry words still hold zeros or another launch's
 * epoch there, so a carry read before it was published shows up) and over repeated launches. On the H100 the
 * first design (values + a separate ready flag + mem_fence) failed exactly these cases with errors of 1e-2..1;
 * in small tests it never did. */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const stress_params[] = {
    "block_h=2,block_w=1,flag_bits=16,col=delta,tile=8,wg=128,strategy=2,cache=4,sync=adjacent",
    "block_h=1,block_w=2,flag_bits=16,col=int,tile=8,wg=128,strategy=1,sync=adjacent",
    "block_h=1,block_w=1,flag_bits=8,tile=4,wg=64,strategy=2,cache=1,skip_scan=0,sync=adjacent",
};

/* Repeated launches of one plan on fresh random x: every result checked against the double reference. */
static void repeated(clpk_context *ctx, const clpk_csr *A, clpk_precision p, const char *params, int launches,
                     uint64_t *rng) {
    clpk_spmv_plan *plan = NULL;
    clpk_status st = clpk_spmv_plan_create(ctx, A, p, "bccoo", params, &plan);
    if (spmv_util_device_refuses(st, ctx)) {
        printf("skip on this device: %s\n", clpk_last_error(ctx));
        return;
    }
    if (!CHECK(st == CLPK_SUCCESS, "plan %s: %s", params, clpk_last_error(ctx))) return;
    size_t nx = (size_t)A->cols, ny = (size_t)A->rows;
    double *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y), *ref = malloc(ny * sizeof *ref);
    double worst = 0;
    int failed = 0;
    for (int it = 0; it < launches; ++it) {
        for (size_t i = 0; i < nx; ++i)
            x[i] = 2 * check_rand_double(rng) - 1;
        for (size_t i = 0; i < ny; ++i)
            y[i] = NAN;
        spmv_util_reference(A, 1.0, x, 0.0, NULL, ref);
        if (clpk_spmv_host(plan, 1.0, x, 0.0, y) != CLPK_SUCCESS) {
            ++failed;
            continue;
        }
        double e = spmv_util_error(A, 1.0, x, 0.0, NULL, ref, y);
        if (!(e <= worst)) worst = e;
    }
    CHECK(failed == 0, "%s: %d of %d launches failed: %s", params, failed, launches, clpk_last_error(ctx));
    CHECK(worst <= spmv_util_tolerance(p), "%s %s: worst error over %d launches %.3g", clpk_precision_name(p), params,
          launches, worst);
    printf("%s %d launches, %lld groups, worst error %.3g\n", clpk_precision_name(p), launches, (long long)plan->groups,
           worst);
    free(x);
    free(y);
    free(ref);
    clpk_spmv_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s\n", dev->name);
    const char *specs[] = {"powerlaw:150000", "fem:220"};
    for (size_t m = 0; m < sizeof specs / sizeof specs[0]; ++m) {
        clpk_csr A;
        clpk_error err = {0};
        if (!CHECK(clpk_spmv_generate(specs[m], check_rand(&rng), &A, &err) == CLPK_SUCCESS, "%s", err.message))
            continue;
        printf("%s: %d x %d, %lld nonzeros\n", specs[m], A.rows, A.cols, (long long)A.nnz);
        for (int pi = 0; pi < 2; ++pi) {
            clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            if (pi && !dev->has_fp64) continue;
            for (size_t k = 0; k < sizeof stress_params / sizeof stress_params[0]; ++k) {
                /* fresh plans: first launches (NaN-poisoned y, then beta != 0) */
                for (int fresh = 0; fresh < 2; ++fresh) {
                    double e = spmv_util_check(ctx, &A, p, "bccoo", stress_params[k], specs[m], &rng);
                    CHECK(e <= spmv_util_tolerance(p), "%s %s %s fresh plan %d: error %.3g", specs[m],
                          clpk_precision_name(p), stress_params[k], fresh, e);
                }
                repeated(ctx, &A, p, stress_params[k], 5, &rng);
            }
        }
        spmv_util_free(&A);
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
