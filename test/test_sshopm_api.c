/* SS-HOPM API contract: bad arguments and inputs get a clear status and message (never a crash or a silent wrong
 * answer); plan description and parameters; execute refuses undersized buffers, too many tensors and bad
 * directions; the host run refuses NaN tensors; one good run writes every output (poisoned before). */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

#include <unistd.h>

static void expect_plan_fail(clpk_context *ctx, int m, int n, clpk_precision p, int64_t T, const clpk_sshopm_options *o,
                             clpk_status want, const char *needle, const char *what) {
    clpk_sshopm_plan *plan = (clpk_sshopm_plan *)0x1;
    clpk_status st = clpk_sshopm_plan_create(ctx, m, n, p, T, o, &plan);
    CHECK(st == want && plan == NULL && strstr(clpk_last_error(ctx), needle) != NULL,
          "%s: status %s (want %s), message '%s' (want '%s')", what, clpk_status_string(st), clpk_status_string(want),
          clpk_last_error(ctx), needle);
    if (st == CLPK_SUCCESS) clpk_sshopm_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    clpk_sshopm_options o;
    const clpk_precision f32 = CLPK_PRECISION_F32;

    clpk_sshopm_options_default(&o);
    expect_plan_fail(ctx, 9, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "out of range", "order 9");
    expect_plan_fail(ctx, 4, 1, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "out of range", "dim 1");
    expect_plan_fail(ctx, 4, 3, f32, 0, &o, CLPK_ERROR_INVALID_ARGUMENT, "max_tensors", "no tensors");
    expect_plan_fail(ctx, 4, 3, (clpk_precision)7, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "precision", "precision 7");
    o.starts = 0;
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "starts", "zero starts");
    clpk_sshopm_options_default(&o);
    o.tol = NAN;
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "finite", "NaN tol");
    clpk_sshopm_options_default(&o);
    o.max_iter = 0;
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "max_iter", "max_iter 0");
    clpk_sshopm_options_default(&o);
    o.shift = CLPK_SSHOPM_SHIFT_FIXED;
    o.alpha = -1;
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "minima", "concave shift for maxima");
    o.find = CLPK_SSHOPM_FIND_MIN;
    o.alpha = 1;
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "maxima", "convex shift for minima");
    clpk_sshopm_options_default(&o);
    o.params = "colour=blue";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "colour", "unknown parameter");
    o.params = "kernel=general,entries=private";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "private", "private entries, general");
    o.params = "entries=shared";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "entries", "unknown entries");
    o.params = "kernel=fast";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "kernel", "unknown kernel");
    o.params = "check_every=0";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "check_every", "check_every 0");
    o.params = "wg=100000";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_UNSUPPORTED, "work-group", "work-group too large");
    o.params = "kernel=generated";
    expect_plan_fail(ctx, 8, 8, f32, 1, &o, CLPK_ERROR_UNSUPPORTED, "too large to unroll", "(8,8) unrolled");
    o.params = NULL;
    o.kernel = "quick";
    expect_plan_fail(ctx, 4, 3, f32, 1, &o, CLPK_ERROR_INVALID_ARGUMENT, "kernel", "unknown kernel option");
    /* local memory beyond the device */
    clpk_sshopm_options_default(&o);
    o.starts = 1;
    o.params = "kernel=general,entries=local,wg=1024";
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if ((uint64_t)1025 * 6435 * 4 > dev->local_mem_bytes && dev->max_work_group_size >= 1024)
        expect_plan_fail(ctx, 8, 8, f32, 1, &o, CLPK_ERROR_UNSUPPORTED, "local memory", "local memory too small");
    CHECK(clpk_sshopm_plan_create(NULL, 4, 3, f32, 1, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT, "NULL context");

    /* a good plan: describe, params, execute checks, poisoned outputs all written */
    clpk_sshopm_options_default(&o);
    o.starts = 16;
    clpk_sshopm_plan *plan = NULL;
    if (CHECK(clpk_sshopm_plan_create(ctx, 4, 3, f32, 4, &o, &plan) == CLPK_SUCCESS, "plan: %s",
              clpk_last_error(ctx))) {
        char buf[512];
        clpk_sshopm_plan_describe(plan, buf, sizeof buf);
        CHECK(strstr(buf, "order 4 dim 3") && strstr(buf, "kernel=generated"), "describe: %s", buf);
        clpk_sshopm_plan_params(plan, buf, sizeof buf);
        /* the values depend on the profile in use (the CI tune writes one); the keys are always there */
        CHECK(strstr(buf, "entries=") && strstr(buf, "wg=") && strstr(buf, "check_every="), "params: %s", buf);
        CHECK(clpk_sshopm_plan_iteration_flops(plan) > 60, "flops per iteration");
        cl_context cc = clpk_context_cl_context(ctx);
        cl_int rc;
        float a[4 * 15];
        for (int i = 0; i < 60; ++i) a[i] = (float)(2 * check_rand_double(&rng) - 1);
        cl_mem bt = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &rc);
        cl_mem bl = clCreateBuffer(cc, CL_MEM_READ_WRITE, 4 * 16 * 4, NULL, &rc);
        cl_mem bx = clCreateBuffer(cc, CL_MEM_READ_WRITE, 4 * 16 * 3 * 4, NULL, &rc);
        cl_mem bi = clCreateBuffer(cc, CL_MEM_READ_WRITE, 4 * 16 * 4, NULL, &rc);
        cl_mem small = clCreateBuffer(cc, CL_MEM_READ_WRITE, 16, NULL, &rc);
        CHECK(clpk_sshopm_execute(plan, 5, bt, 1, bl, bx, bi, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
              "more tensors than planned");
        CHECK(clpk_sshopm_execute(plan, 4, bt, 0, bl, bx, bi, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
              "direction 0");
        CHECK(clpk_sshopm_execute(plan, 4, bt, 1, bl, small, bi, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT &&
                  strstr(clpk_last_error(ctx), "buffer x"),
              "undersized x: %s", clpk_last_error(ctx));
        CHECK(clpk_sshopm_execute(plan, 4, bt, 1, NULL, bx, bi, 0, NULL, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
              "NULL buffer");
        const float nan_f = NAN;
        const cl_int m1 = -1;
        cl_command_queue q = clpk_context_queue(ctx);
        clEnqueueFillBuffer(q, bl, &nan_f, 4, 0, 4 * 16 * 4, 0, NULL, NULL);
        clEnqueueFillBuffer(q, bx, &nan_f, 4, 0, 4 * 16 * 3 * 4, 0, NULL, NULL);
        clEnqueueFillBuffer(q, bi, &m1, 4, 0, 4 * 16 * 4, 0, NULL, NULL);
        /* 3 of 4 tensors: the fourth tensor's outputs stay poisoned (nothing written past n_tensors) */
        CHECK(clpk_sshopm_execute(plan, 3, bt, -1, bl, bx, bi, 0, NULL, NULL) == CLPK_SUCCESS, "execute: %s",
              clpk_last_error(ctx));
        float l[64], x[192];
        cl_int info[64];
        clEnqueueReadBuffer(q, bl, CL_TRUE, 0, sizeof l, l, 0, NULL, NULL);
        clEnqueueReadBuffer(q, bx, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL);
        clEnqueueReadBuffer(q, bi, CL_TRUE, 0, sizeof info, info, 0, NULL, NULL);
        int written = 1, untouched = 1;
        for (int g = 0; g < 64; ++g) {
            /* converged or (rarely, slow starts under the bound shift) capped, never failed or unwritten */
            const int st = CLPK_SSHOPM_INFO_STATUS(info[g]);
            int ok = isfinite(l[g]) && info[g] != -1 && (st == CLPK_SSHOPM_CONVERGED || st == CLPK_SSHOPM_CAPPED) &&
                     CLPK_SSHOPM_INFO_ITERATIONS(info[g]) > 0;
            for (int i = 0; i < 3; ++i) ok = ok && isfinite(x[g * 3 + i]);
            if (g < 48)
                written &= ok;
            else
                untouched &= isnan(l[g]) && info[g] == -1 && isnan(x[g * 3]);
        }
        CHECK(written, "every output of the 3 tensors written, none failed");
        CHECK(untouched, "nothing written past the tensors asked for");
        clReleaseMemObject(bt);
        clReleaseMemObject(bl);
        clReleaseMemObject(bx);
        clReleaseMemObject(bi);
        clReleaseMemObject(small);
        double bad[15];
        for (int i = 0; i < 15; ++i) bad[i] = 0.1 * i;
        bad[7] = NAN;
        clpk_sshopm_raw raw;
        CHECK(clpk_sshopm_run_host(plan, bad, 1, &raw) == CLPK_ERROR_INVALID_DATA &&
                  strstr(clpk_last_error(ctx), "not finite"),
              "NaN tensor refused: %s", clpk_last_error(ctx));
        CHECK(clpk_sshopm_run_host(plan, bad, 0, &raw) == CLPK_ERROR_INVALID_ARGUMENT, "zero tensors refused");
        clpk_sshopm_plan_destroy(plan);
    }
    clpk_sshopm_plan_destroy(NULL);
    clpk_context_destroy(ctx);

    /* A profile entry tuned for the generated kernel (entries=private, a huge work-group): a caller who overrides the
     * kernel gets the built-in choices for the values that no longer fit; the same values from the caller fail. */
    char path[] = "/tmp/clpk_sshopm_profile_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (CHECK(f != NULL, "temporary profile")) {
        fprintf(f, "{\"schema\": 1, \"device\": {\"name\": \"any\", \"vendor\": \"any\"}, \"families\": {\"sshopm\": "
                   "[{\"class\": {\"order\": 4, \"dim\": 3, \"precision\": \"f32\"}, \"params\": {\"kernel\": "
                   "\"generated\", \"entries\": \"private\", \"wg\": 1000000, \"check_every\": 8}}]}}\n");
        fclose(f);
        setenv("CLPK_PROFILE", path, 1);
        setenv("CLPK_LOG", "quiet", 1);
        clpk_context *pctx = NULL;
        if (CHECK(clpk_context_create(&pctx, NULL) == CLPK_SUCCESS, "context with the profile")) {
            clpk_sshopm_options_default(&o);
            o.starts = 8;
            o.kernel = "general";
            plan = NULL;
            CHECK(clpk_sshopm_plan_create(pctx, 4, 3, f32, 2, &o, &plan) == CLPK_SUCCESS,
                  "kernel=general over the "
                  "profile: %s",
                  clpk_last_error(pctx));
            if (plan) {
                char buf[256];
                clpk_sshopm_plan_params(plan, buf, sizeof buf);
                CHECK(strstr(buf, "kernel=general") && !strstr(buf, "entries=private") && strstr(buf, "wg=128") &&
                          strstr(buf, "check_every=8"),
                      "profile values that fit are kept, the others fall back: %s", buf);
                clpk_sshopm_plan_destroy(plan);
            }
            /* the nearest entry of a shape too large to unroll: its generated kernel gives way to the general one */
            clpk_sshopm_options_default(&o);
            o.starts = 8;
            o.max_iter = 4;
            plan = NULL;
            CHECK(clpk_sshopm_plan_create(pctx, 8, 8, f32, 1, &o, &plan) == CLPK_SUCCESS,
                  "(8,8) with a (4,3) generated-kernel profile entry: %s", clpk_last_error(pctx));
            if (plan) {
                char buf[256];
                clpk_sshopm_plan_params(plan, buf, sizeof buf);
                CHECK(strstr(buf, "kernel=general") != NULL, "(8,8) falls back to the general kernel: %s", buf);
                clpk_sshopm_plan_destroy(plan);
            }
            o.kernel = "generated";
            expect_plan_fail(pctx, 8, 8, f32, 1, &o, CLPK_ERROR_UNSUPPORTED, "too large to unroll",
                             "the caller's own generated kernel for (8,8) still fails");
            o.kernel = NULL;
            o.params = "kernel=general,entries=private";
            expect_plan_fail(pctx, 4, 3, f32, 2, &o, CLPK_ERROR_INVALID_ARGUMENT, "private",
                             "the caller's own conflict still fails");
            clpk_context_destroy(pctx);
        }
        unsetenv("CLPK_PROFILE");
        remove(path);
    }
    return check_summary();
}
