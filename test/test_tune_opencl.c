/* The tuner on a real OpenCL kernel through the real context (PoCL in CI): a fake family around saxpy whose space
 * is the work-group size (pruned by the device's limit) and a kernel variant: the embedded cl/util_copy.cl kernel, a
 * generated one that computes the wrong thing, and one that does not compile. Exercises build, run, check against a
 * double reference, event timing, failure recording and the profile written from it. */
#include "check.h"
#include "tune_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const wg_values[] = {"16", "64", "256", "1024", "8192", NULL};
static const char *const variant_values[] = {"embedded", "wrong", "broken", NULL};
static const size_t sizes[] = {65539, 1000};

typedef struct saxpy_state {
    cl_uint n;
    float a;
    float *x, *y0, *got;
    double *ref, *gotd;
    cl_mem bx, by;
} saxpy_state;

static int saxpy_count(const tune_options *opts) { return opts->quick ? 1 : 2; }

static void saxpy_destroy(tune_problem *problem) {
    saxpy_state *s = problem->state;
    if (!s) return;
    if (s->bx) clReleaseMemObject(s->bx);
    if (s->by) clReleaseMemObject(s->by);
    free(s->x);
    free(s->y0);
    free(s->got);
    free(s->ref);
    free(s->gotd);
    free(s);
    problem->state = NULL;
}

static clpk_status saxpy_create(clpk_context *ctx, const tune_options *opts, int index,
                                tune_problem *problem) {
    saxpy_state *s = calloc(1, sizeof *s);
    if (!s) return CLPK_ERROR_OUT_OF_MEMORY;
    problem->state = s;
    s->n = (cl_uint)sizes[index];
    uint64_t rng = opts->seed + (uint64_t)index;
    s->a = (float)(1.0 + check_rand_double(&rng));
    s->x = malloc(sizeof *s->x * s->n);
    s->y0 = malloc(sizeof *s->y0 * s->n);
    s->got = malloc(sizeof *s->got * s->n);
    s->ref = malloc(sizeof *s->ref * s->n);
    s->gotd = malloc(sizeof *s->gotd * s->n);
    if (!s->x || !s->y0 || !s->got || !s->ref || !s->gotd) {
        saxpy_destroy(problem);
        return CLPK_ERROR_OUT_OF_MEMORY;
    }
    for (cl_uint i = 0; i < s->n; ++i) {
        s->x[i] = (float)(2 * check_rand_double(&rng) - 1);
        s->y0[i] = (float)(2 * check_rand_double(&rng) - 1);
        s->ref[i] = (double)s->a * s->x[i] + s->y0[i];
    }
    cl_int rc;
    s->bx = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                           sizeof *s->x * s->n, s->x, &rc);
    if (rc == CL_SUCCESS)
        s->by = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, sizeof *s->y0 * s->n, NULL, &rc);
    if (rc != CL_SUCCESS) {
        saxpy_destroy(problem);
        return core_fail_cl(ctx, rc, "saxpy buffers");
    }
    snprintf(problem->label, sizeof problem->label, "saxpy n=%u", s->n);
    core_params_clear(&problem->klass);
    core_params_set(&problem->klass, "precision", "f32");
    core_params_set_int(&problem->klass, "n", s->n);
    return CLPK_SUCCESS;
}

static clpk_status saxpy_space(clpk_context *ctx, const tune_problem *problem, tune_space *space) {
    CLPK_TRY(tune_space_add(space, "wg", wg_values));
    return tune_space_add(space, "variant", variant_values);
}

static int saxpy_valid(clpk_context *ctx, const tune_problem *problem, const core_params *p) {
    return (size_t)core_params_get_int(p, "wg", 0) <= clpk_context_device_info(ctx)->max_work_group_size;
}

static void saxpy_defaults(clpk_context *ctx, const tune_problem *problem, core_params *out) {
    core_params_set(out, "wg", "64");
    core_params_set(out, "variant", "embedded");
}

static const char *generated_source =
    "__kernel void clpk_saxpy(uint n, float a, __global const float *restrict x, __global float *restrict y) {\n"
    "    uint i = get_global_id(0);\n"
    "    if (i < n) y[i] = a * x[i]; /* forgets + y: the check must catch it */\n"
    "    BROKEN\n"
    "}\n";

typedef struct launch_job {
    clpk_context *ctx;
    cl_kernel kernel;
    size_t global, local;
} launch_job;

static clpk_status launch(void *user, cl_event *first, cl_event *last) {
    launch_job *j = user;
    CLPK_CL_TRY(j->ctx, clEnqueueNDRangeKernel(clpk_context_queue(j->ctx), j->kernel, 1, NULL, &j->global, &j->local,
                                               0, NULL, first));
    *last = *first; /* one event, one reference: clpk_bench releases it once */
    return CLPK_SUCCESS;
}

static clpk_status saxpy_evaluate(clpk_context *ctx, tune_problem *problem, const core_params *p, int repeats,
                                  double *median_ms) {
    saxpy_state *s = problem->state;
    const char *variant = core_params_get(p, "variant");
    size_t wg = (size_t)core_params_get_int(p, "wg", 0);
    if (!variant || wg == 0) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "saxpy: bad candidate");
    cl_program program;
    if (!strcmp(variant, "embedded")) {
        const char *names[] = {"util_copy"};
        CLPK_TRY(core_program_get(ctx, names, 1, "", &program));
    } else {
        CLPK_TRY(core_program_get_text(ctx, generated_source,
                                       !strcmp(variant, "broken") ? "-DBROKEN=this_is_not_opencl" : "-DBROKEN=",
                                       &program));
    }
    launch_job job = {ctx, NULL, (s->n + wg - 1) / wg * wg, wg};
    CLPK_TRY(core_kernel_create(ctx, program, "clpk_saxpy", &job.kernel));
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc = clSetKernelArg(job.kernel, 0, sizeof s->n, &s->n);
    rc |= clSetKernelArg(job.kernel, 1, sizeof s->a, &s->a);
    rc |= clSetKernelArg(job.kernel, 2, sizeof s->bx, &s->bx);
    rc |= clSetKernelArg(job.kernel, 3, sizeof s->by, &s->by);
    clpk_status st = rc == CL_SUCCESS ? CLPK_SUCCESS : core_fail(ctx, CLPK_ERROR_OPENCL, "saxpy: kernel arguments");
    /* Checked run: y starts at y0 (never zero), so an element the kernel skips keeps a wrong value. */
    if (st == CLPK_SUCCESS)
        rc = clEnqueueWriteBuffer(q, s->by, CL_TRUE, 0, sizeof *s->y0 * s->n, s->y0, 0, NULL, NULL);
    if (st == CLPK_SUCCESS && rc == CL_SUCCESS)
        rc = clEnqueueNDRangeKernel(q, job.kernel, 1, NULL, &job.global, &job.local, 0, NULL, NULL);
    if (st == CLPK_SUCCESS && rc == CL_SUCCESS)
        rc = clEnqueueReadBuffer(q, s->by, CL_TRUE, 0, sizeof *s->got * s->n, s->got, 0, NULL, NULL);
    if (st == CLPK_SUCCESS && rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "saxpy: checked run");
    if (st == CLPK_SUCCESS) {
        for (cl_uint i = 0; i < s->n; ++i) s->gotd[i] = s->got[i];
        double err = check_rel_error(s->ref, s->gotd, s->n);
        if (!(err <= 1e-6)) st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "saxpy: relative error %.3g > 1e-6", err);
    }
    clpk_bench_stats stats;
    if (st == CLPK_SUCCESS) st = clpk_bench_run(ctx, launch, &job, 1, repeats, 12.0 * s->n, 2.0 * s->n, &stats);
    if (st == CLPK_SUCCESS) *median_ms = stats.median_ms;
    clReleaseKernel(job.kernel);
    return st;
}

static const tune_family saxpy_family = {
    .name = "saxpy_test",
    .problem_count = saxpy_count,
    .problem_create = saxpy_create,
    .problem_destroy = saxpy_destroy,
    .space = saxpy_space,
    .valid = saxpy_valid,
    .evaluate = saxpy_evaluate,
    .defaults = saxpy_defaults,
    .prebuild_safe = 1, /* its evaluate requests the program first */
};

typedef struct failures_seen {
    char build_message[4096];
} failures_seen;

static void record_failures(void *user, const tune_event *ev) {
    failures_seen *seen = user;
    if (ev->kind == CLPK_TUNE_EVENT_CANDIDATE && ev->outcome == CLPK_TUNE_BUILD && !seen->build_message[0])
        snprintf(seen->build_message, sizeof seen->build_message, "%s", ev->message ? ev->message : "");
}

int main(void) {
    uint64_t seed = check_seed();
    clpk_context *ctx = NULL;
    unsetenv("CLPK_PROFILE");
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no OpenCL device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    int valid_wg = 0;
    for (int i = 0; wg_values[i]; ++i) valid_wg += (size_t)atoi(wg_values[i]) <= dev->max_work_group_size;

    tune_config cfg;
    tune_config_defaults(&cfg);
    cfg.strategy = CLPK_TUNE_EXHAUSTIVE;
    cfg.repeats = 3;
    cfg.final_repeats = 5;
    cfg.top_k = 2;
    cfg.candidate_limit_s = 30;
    cfg.opts.seed = seed;
    failures_seen seen = {""};
    cfg.on_event = record_failures;
    cfg.event_user = &seen;
    const tune_family *fams[] = {&saxpy_family, NULL};
    tune_report r;
    CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS, "run: %s", clpk_last_error(ctx));
    for (int i = 0; i < r.count; ++i) {
        const tune_result *x = &r.items[i];
        const char *variant = core_params_get(&x->best, "variant");
        CHECK(x->found && variant && !strcmp(variant, "embedded"), "%s: only the correct kernel can win (%s)", x->label,
              variant ? variant : "none");
        CHECK(x->outcomes[CLPK_TUNE_BUILD] == valid_wg, "%s: build failures recorded: %d", x->label,
              x->outcomes[CLPK_TUNE_BUILD]);
        CHECK(x->outcomes[CLPK_TUNE_WRONG] == valid_wg, "%s: wrong results rejected: %d", x->label,
              x->outcomes[CLPK_TUNE_WRONG]);
        CHECK(x->pruned == 3 * (5 - valid_wg), "%s: work-groups over the device limit pruned: %d", x->label,
              x->pruned);
        CHECK(x->evaluated == 3 * valid_wg && x->complete, "%s: %d points", x->label, x->evaluated);
        CHECK(x->default_ok && x->default_ms > 0 && x->best_ms > 0 && x->best_ms <= x->default_ms * 1.0000001,
              "%s: timed with events: best %g ms, defaults %g ms", x->label, x->best_ms, x->default_ms);
    }
    CHECK(r.count == 2 && strstr(r.items[0].note, "relative error") != NULL, "first failure noted: %s",
          r.count ? r.items[0].note : "");
    CHECK(strstr(seen.build_message, "build log") && strstr(seen.build_message, "this_is_not_opencl"),
          "a build failure reaches the event sink with the compiler's log: %.300s", seen.build_message);

    /* The profile from a real run is read back and chosen. */
    char path[] = "/tmp/clpk-test-tune-opencl-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    clpk_error err = {0};
    CHECK(tune_profile_write(path, dev, &r, &err) == CLPK_SUCCESS, "write: %s", err.message);
    setenv("CLPK_PROFILE", path, 1);
    clpk_context *c2 = NULL;
    CHECK(clpk_context_create(&c2, NULL) == CLPK_SUCCESS, "context with the profile");
    if (c2 && r.count == 2) {
        core_params chosen;
        core_params_clear(&chosen);
        saxpy_defaults(c2, NULL, &chosen);
        core_profile_choice choice;
        core_profile_choose(c2, "saxpy_test", &r.items[1].klass, &chosen, &choice);
        /* Every work-group size takes about as long on 1000 elements: when the defaults measured fastest, the
         * entry records that it kept them and the library stays with its built-in defaults. */
        int kept_defaults = !(r.items[1].best_ms < r.items[1].default_ms);
        CHECK(choice.found == !kept_defaults &&
                  !strcmp(core_params_get(&chosen, "wg"), core_params_get(&r.items[1].best, "wg")),
              "the tuned work-group size is chosen: %s (entry %s the defaults)", core_params_get(&chosen, "wg"),
              kept_defaults ? "kept" : "beat");
        clpk_cache_stats cs;
        clpk_context_cache_stats(ctx, &cs);
        CHECK(cs.memory_hits >= (unsigned)(2 * valid_wg - 1), "one build serves every work-group size: %u hits",
              cs.memory_hits);
    }
    clpk_context_destroy(c2);
    unsetenv("CLPK_PROFILE");
    remove(path);
    tune_report_free(&r);

    /* The default strategy on the same family. */
    cfg.strategy = CLPK_TUNE_HILL;
    cfg.opts.quick = 1;
    CHECK(tune_run(ctx, fams, &cfg, &r) == CLPK_SUCCESS && r.count == 1 && r.items[0].found, "hill run");
    tune_report_free(&r);
    clpk_context_destroy(ctx);
    return check_summary();
}
