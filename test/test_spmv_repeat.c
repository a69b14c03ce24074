/* Repeated launches of one plan reuse the synchronization buffers (ticket counter, ready flags with epochs, carries):
 * 100 launches on device buffers with offsets give the same answer every time, for adjacent synchronization and the
 * fallback, on a matrix whose long rows chain hundreds of work-groups and on one with short rows (and CSR adaptive,
 * whose split rows go through a partial-sum buffer). */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run(clpk_context *ctx, const clpk_csr *A, const char *format, const char *params, clpk_precision p,
                uint64_t *rng) {
    clpk_spmv_plan *plan = NULL;
    if (!CHECK(clpk_spmv_plan_create(ctx, A, p, format, params, &plan) == CLPK_SUCCESS, "plan %s: %s", params,
               clpk_last_error(ctx)))
        return;
    const size_t vs = clpk_precision_size(p), xo = 3, yo = 5;
    size_t nx = (size_t)A->cols + xo, ny = (size_t)A->rows + yo;
    double *x = calloc(nx, sizeof *x), *ref = calloc(ny, sizeof *ref), *got = calloc(ny, sizeof *got);
    void *hx = calloc(nx, vs), *hy = calloc(ny, vs), *first = calloc(ny, vs);
    for (size_t i = 0; i < nx; ++i) {
        x[i] = 2 * check_rand_double(rng) - 1;
        if (vs == 8) ((double *)hx)[i] = x[i];
        else ((float *)hx)[i] = (float)x[i];
    }
    spmv_util_reference(A, 1.0, x + xo, 0.0, NULL, ref);
    cl_int rc = 0;
    cl_context c = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_mem bx = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nx * vs, hx, &rc);
    cl_mem by = clCreateBuffer(c, CL_MEM_READ_WRITE, ny * vs, NULL, &rc);
    int mismatches = 0, failures = 0;
    double worst = 0;
    for (int it = 0; it < 100; ++it) {
        memset(hy, 0xff, ny * vs); /* NaN poison */
        clEnqueueWriteBuffer(q, by, CL_TRUE, 0, ny * vs, hy, 0, NULL, NULL);
        cl_event done = NULL;
        clpk_status st = clpk_spmv(plan, 1.0, bx, xo, 0.0, by, yo, 0, NULL, &done);
        if (st != CLPK_SUCCESS) {
            ++failures;
            continue;
        }
        clWaitForEvents(1, &done);
        clReleaseEvent(done);
        clEnqueueReadBuffer(q, by, CL_TRUE, 0, ny * vs, hy, 0, NULL, NULL);
        if (it == 0) memcpy(first, hy, ny * vs);
        else if (memcmp(first, (char *)hy + 0, ny * vs) != 0) ++mismatches;
        for (size_t i = 0; i < (size_t)A->rows; ++i)
            got[i] = vs == 8 ? ((double *)hy)[i + yo] : ((float *)hy)[i + yo];
        double e = spmv_util_error(A, 1.0, x + xo, 0.0, NULL, ref, got);
        if (e > worst) worst = e;
    }
    CHECK(failures == 0, "%s: %d launches failed: %s", params, failures, clpk_last_error(ctx));
    if (plan->cfg.vload && plan->cfg.block_w > 1) /* x + 3 is not aligned to the typed x loads */
        CHECK(plan->main_kernel_xu != NULL, "%s: the unaligned-x program was not used", params);
    CHECK(clpk_spmv_plan_check(plan) == CLPK_SUCCESS, "%s: watchdog fired: %s", params, clpk_last_error(ctx));
    CHECK(mismatches == 0, "%s %s: %d of 99 repeated launches differ from the first", clpk_precision_name(p), params,
          mismatches);
    CHECK(worst <= spmv_util_tolerance(p), "%s %s: worst relative error %.3g", clpk_precision_name(p), params, worst);
    printf("%s %-60s 100 launches, %d differ, worst error %.3g\n", clpk_precision_name(p), params, mismatches, worst);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    free(x);
    free(ref);
    free(got);
    free(hx);
    free(hy);
    free(first);
    clpk_spmv_plan_destroy(plan);
}

/* The watchdog's reporting path: with a window of one spin, waits on a live predecessor "time out" at once; the
 * launch must still finish (no hang), clpk_spmv_plan_check must report CLPK_ERROR_TIMEOUT once and clear it, and
 * with the normal window the plan must compute correctly again (ticket and flags recovered). */
static void test_watchdog(clpk_context *ctx, const clpk_csr *A, uint64_t *rng) {
    clpk_spmv_plan *plan = NULL;
    if (!CHECK(clpk_spmv_plan_create(ctx, A, CLPK_PRECISION_F32, "bccoo", "tile=4,wg=32,sync=adjacent", &plan) ==
                   CLPK_SUCCESS,
               "plan: %s", clpk_last_error(ctx)))
        return;
    size_t nx = (size_t)A->cols, ny = (size_t)A->rows;
    double *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y), *ref = malloc(ny * sizeof *ref);
    for (size_t i = 0; i < nx; ++i) x[i] = 2 * check_rand_double(rng) - 1;
    spmv_util_reference(A, 1.0, x, 0.0, NULL, ref);
    cl_uint normal = plan->spin_limit;
    plan->spin_limit = 1;
    int fired = 0, launches = 0;
    for (int it = 0; it < 200 && !fired; ++it, ++launches) {
        clpk_status st = clpk_spmv_host(plan, 1.0, x, 0.0, y); /* includes the check */
        if (st == CLPK_ERROR_TIMEOUT) {
            fired = 1;
            CHECK(strstr(clpk_last_error(ctx), "fallback") != NULL, "timeout message: %s", clpk_last_error(ctx));
        } else {
            CHECK(st == CLPK_SUCCESS, "run: %s", clpk_last_error(ctx));
        }
    }
    /* A group waits only when it reaches its predecessor before that one published; a device that happens to run the
     * groups in order (PoCL with its workers descheduled on a loaded host) never waits, and then the window has
     * nothing to time out. GPUs, which run groups concurrently, must fire. */
    if (clpk_context_device_info(ctx)->kind == CLPK_DEVICE_GPU)
        CHECK(fired, "a one-spin watchdog window never fired in %d launches over %lld groups", launches,
              (long long)plan->groups);
    else if (!fired)
        printf("watchdog: no group waited in %d launches over %lld groups (groups ran in order): the timeout path was "
               "not exercised on this run\n",
               launches, (long long)plan->groups);
    CHECK(clpk_spmv_plan_check(plan) == CLPK_SUCCESS, "the report is cleared after being read");
    plan->spin_limit = normal;
    for (size_t i = 0; i < ny; ++i) y[i] = NAN;
    CHECK(clpk_spmv_host(plan, 1.0, x, 0.0, y) == CLPK_SUCCESS, "run after the watchdog: %s", clpk_last_error(ctx));
    double e = spmv_util_error(A, 1.0, x, 0.0, NULL, ref, y);
    CHECK(e <= spmv_util_tolerance(CLPK_PRECISION_F32), "correct again after the watchdog fired: error %.3g", e);
    printf("watchdog: fired %s, then error %.3g with the normal window\n", fired ? "yes" : "no", e);
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
    clpk_csr chain, mixed;
    clpk_error err = {0};
    CHECK(clpk_spmv_generate("longrow:41:30011:30011", check_rand(&rng), &chain, &err) == CLPK_SUCCESS, "%s",
          err.message);
    CHECK(clpk_spmv_generate("powerlaw:3001", check_rand(&rng), &mixed, &err) == CLPK_SUCCESS, "%s", err.message);
    for (int pi = 0; pi < 2; ++pi) {
        clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (pi && !dev->has_fp64) continue;
        run(ctx, &chain, "bccoo", "tile=4,wg=32,sync=adjacent,strategy=1", p, &rng);
        run(ctx, &chain, "bccoo", "tile=4,wg=32,sync=fallback,strategy=1", p, &rng);
        run(ctx, &mixed, "bccoo", "block_h=2,block_w=2,tile=3,wg=16,strategy=2,cache=1,sync=adjacent", p, &rng);
        run(ctx, &mixed, "bccoo+", "block_h=3,block_w=4,tile=5,wg=16,slices=3,strategy=2,cache=2,sync=fallback,"
                                   "flag_bits=8", p, &rng);
        /* vload=1 with x at an odd offset: x is not aligned to its vectors, the kernel takes the vloadn path */
        run(ctx, &mixed, "bccoo", "block_h=4,block_w=2,tile=3,wg=16,strategy=2,cache=1,sync=adjacent,vload=1", p, &rng);
        /* CSR adaptive: split rows (their pieces' partial buffer is reused by every launch) and row blocks */
        run(ctx, &chain, "csr", "csr_kernel=adaptive,wg=64", p, &rng);
        run(ctx, &mixed, "csr", "csr_kernel=adaptive,wg=32", p, &rng);
    }
    test_watchdog(ctx, &chain, &rng);
    spmv_util_free(&chain);
    spmv_util_free(&mixed);
    clpk_context_destroy(ctx);
    return check_summary();
}
