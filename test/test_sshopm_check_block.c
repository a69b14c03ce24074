/* The convergence test of a block of check_every iterations holds when |dlambda| <= tol held at any iteration of the
 * block, not only at its last (cl/sshopm_driver.cl, sshopm_ref.c). In f32, lambda can settle into a cycle of period
 * 2 whose steps alternate between 0 and more than tol; a check that saw only every 16th step missed it, and 0.1 % of
 * (4,3) starts with the adaptive shift then ran to max_iter (each holding its warp for 1000 iterations).
 *  - reference, in double: for every start, check_every k stops at the end of the block in which check_every 1
 *    stops, with the same status: iterations_k = min(max_iter, k * ceil(iterations_1 / k));
 *  - device, f32, the default options (adaptive shift, tolerance, max_iter) on random (4,3) tensors, NaN-poisoned
 *    outputs: with check_every 16 no more starts reach max_iter than with check_every 1 (a few for rounding), and the
 *    mean iteration count grows by less than one block.
 * The seed is printed (CLPK_TEST_SEED repeats a run). */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

#define REF_TENSORS 40
#define REF_STARTS 12
#define DEV_TENSORS 512
#define DEV_STARTS 128

static void reference_blocks(uint64_t *rng) {
    const int m = 4, n = 3, max_iter = 200;
    const int blocks[] = {2, 4, 16};
    sshopm_index idx;
    sshopm_index_build(m, n, &idx, NULL);
    double a[64], starts[REF_STARTS * 3], x[8];
    clpk_error err = {0};
    CHECK(clpk_sshopm_starts_generate(n, REF_STARTS, CLPK_SSHOPM_STARTS_SHARED, check_rand(rng), starts, &err) ==
              CLPK_SUCCESS,
          "starts: %s", err.message);
    int compared = 0, converged = 0;
    for (int t = 0; t < REF_TENSORS; ++t) {
        sshopm_random_tensor(rng, idx.U, a);
        for (int s = 0; s < REF_STARTS; ++s) {
            const double *x0 = starts + s * n;
            memcpy(x, x0, (size_t)n * sizeof *x);
            double lam1;
            int its1;
            const int st1 =
                sshopm_ref_run(&idx, a, x, 1, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, 1e-10, 0, max_iter, 1, &lam1, &its1);
            converged += st1 == CLPK_SSHOPM_CONVERGED;
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b) {
                const int k = blocks[b];
                memcpy(x, x0, (size_t)n * sizeof *x);
                double lam;
                int its;
                const int st =
                    sshopm_ref_run(&idx, a, x, 1, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, 1e-10, 0, max_iter, k, &lam, &its);
                const int want = st1 == CLPK_SSHOPM_CONVERGED ? (its1 + k - 1) / k * k : its1;
                CHECK(st == st1 && its == (want < max_iter ? want : max_iter),
                      "tensor %d start %d check_every %d: status %d after %d iterations, check_every 1: %d after %d", t,
                      s, k, st, its, st1, its1);
                ++compared;
            }
        }
    }
    CHECK(converged > REF_TENSORS * REF_STARTS / 2, "most reference starts converge (%d)", converged);
    printf("reference: %d runs compared, %d of %d starts converged with check_every 1\n", compared, converged,
           REF_TENSORS * REF_STARTS);
    sshopm_index_free(&idx);
}

typedef struct run_counts {
    int written, capped;
    double mean_iterations;
} run_counts;

static run_counts device_run(clpk_context *ctx, const float *tensors, int U, int check_every) {
    run_counts r = {0, 0, 0};
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = DEV_STARTS;
    o.seed = 7;
    char params[64];
    snprintf(params, sizeof params, "check_every=%d", check_every);
    o.params = params;
    clpk_sshopm_plan *plan = NULL;
    if (!CHECK(clpk_sshopm_plan_create(ctx, 4, 3, CLPK_PRECISION_F32, DEV_TENSORS, &o, &plan) == CLPK_SUCCESS,
               "plan check_every=%d: %s", check_every, clpk_last_error(ctx)))
        return r;
    const size_t nl = (size_t)DEV_TENSORS * DEV_STARTS, nx = nl * 3;
    cl_context cc = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc[4];
    cl_mem bt = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)DEV_TENSORS * U * sizeof(float),
                               (void *)tensors, &rc[0]);
    cl_mem bl = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * sizeof(float), NULL, &rc[1]);
    cl_mem bx = clCreateBuffer(cc, CL_MEM_READ_WRITE, nx * sizeof(float), NULL, &rc[2]);
    cl_mem bi = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * sizeof(cl_int), NULL, &rc[3]);
    int32_t *info = malloc(nl * sizeof *info);
    if (CHECK(rc[0] == CL_SUCCESS && rc[1] == CL_SUCCESS && rc[2] == CL_SUCCESS && rc[3] == CL_SUCCESS && info,
              "buffers")) {
        const float nan_f = NAN;
        const cl_int minus1 = -1;
        cl_int fr = clEnqueueFillBuffer(q, bl, &nan_f, sizeof nan_f, 0, nl * sizeof(float), 0, NULL, NULL);
        fr |= clEnqueueFillBuffer(q, bx, &nan_f, sizeof nan_f, 0, nx * sizeof(float), 0, NULL, NULL);
        fr |= clEnqueueFillBuffer(q, bi, &minus1, sizeof minus1, 0, nl * sizeof(cl_int), 0, NULL, NULL);
        CHECK(fr == CL_SUCCESS, "poison fills");
        CHECK(clpk_sshopm_execute(plan, DEV_TENSORS, bt, +1, bl, bx, bi, 0, NULL, NULL) == CLPK_SUCCESS,
              "execute check_every=%d: %s", check_every, clpk_last_error(ctx));
        CHECK(clEnqueueReadBuffer(q, bi, CL_TRUE, 0, nl * sizeof *info, info, 0, NULL, NULL) == CL_SUCCESS, "read");
        double total = 0;
        for (size_t i = 0; i < nl; ++i) {
            const int status = CLPK_SSHOPM_INFO_STATUS(info[i]), its = CLPK_SSHOPM_INFO_ITERATIONS(info[i]);
            if (info[i] < 0 || its > o.max_iter) continue;
            ++r.written;
            r.capped += status == CLPK_SSHOPM_CAPPED;
            total += its;
        }
        r.mean_iterations = r.written ? total / r.written : 0;
    }
    free(info);
    clReleaseMemObject(bt);
    clReleaseMemObject(bl);
    clReleaseMemObject(bx);
    clReleaseMemObject(bi);
    clpk_sshopm_plan_destroy(plan);
    return r;
}

static void device_blocks(clpk_context *ctx, uint64_t *rng) {
    const int U = clpk_sshopm_unique_count(4, 3);
    float *tensors = malloc((size_t)DEV_TENSORS * U * sizeof *tensors);
    if (!CHECK(tensors != NULL, "memory")) return;
    for (size_t i = 0; i < (size_t)DEV_TENSORS * U; ++i)
        tensors[i] = (float)(2 * check_rand_double(rng) - 1);
    const run_counts one = device_run(ctx, tensors, U, 1), block = device_run(ctx, tensors, U, 16);
    const int starts = DEV_TENSORS * DEV_STARTS;
    printf("device f32 (4,3), %d starts: check_every 1: %d capped, %.2f iterations on average; check_every 16: %d "
           "capped, %.2f\n",
           starts, one.capped, one.mean_iterations, block.capped, block.mean_iterations);
    CHECK(one.written == starts && block.written == starts, "every start's info written (%d, %d of %d)", one.written,
          block.written, starts);
    CHECK(block.capped <= one.capped + 4, "check_every 16 caps no more starts than check_every 1 (%d against %d)",
          block.capped, one.capped);
    CHECK(block.mean_iterations <= one.mean_iterations + 16,
          "check_every 16 adds less than a block of iterations on average (%.2f against %.2f)", block.mean_iterations,
          one.mean_iterations);
    free(tensors);
}

int main(void) {
    uint64_t rng = check_seed();
    reference_blocks(&rng);
    clpk_context *ctx = sshopm_test_context();
    if (ctx) {
        device_blocks(ctx, &rng);
        clpk_context_destroy(ctx);
    }
    return check_summary();
}
