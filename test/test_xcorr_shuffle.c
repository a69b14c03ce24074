/* shift-buffer with sub-group (warp) shuffles (shuffle=subgroup, cl/xcorr_shift.cl XCORR_SHUFFLE 1-3).
 * On a device with a shuffle (cl_khr_subgroup_shuffle, cl_intel_subgroups, or an NVIDIA GPU through inline PTX):
 * every team value of the tuner space the device accepts, f32 and f64, on all four patterns, odd and non-square sizes
 * from 1x1 up to rows longer than the team (several column chunks and column tiles), search windows, offsets,
 * NaN-poisoned outputs and guards, against the double CPU reference; bit-identical reruns; the teams it refuses are
 * refused cleanly (UNSUPPORTED). On a device without (PoCL): the shuffle form is refused with UNSUPPORTED and a clear
 * message for every team and precision, and the local form still runs. On every device, the register form's data
 * flow (which lane holds which left value, the two halves, the broadcast right value) runs with the shuffle emulated
 * through local memory (XCORR_SHUFFLE=4, launched here directly: the plan never offers it), every team value. Where
 * the device has cl_intel_subgroups, the Intel form (XCORR_SHUFFLE=2) is launched directly too, every team the device
 * offers as a sub-group width: the plan takes cl_khr_subgroup_shuffle where both exist (Intel's CPU runtime).
 * The device comes from CLPK_DEVICE. */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_reference.h"
#include "xcorr_run.h"
#include "xcorr_params.h"
#include "xcorr_shuffle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The team values the family's table searches (lib/xcorr/xcorr_params.c), ascending; read in main. */
static int teams[16];
static size_t n_teams;

static void read_teams(void) {
    const char *values[16];
    char storage[128];
    n_teams = (size_t)core_param_search_values(core_param_find(&xcorr_param_table, "team"), values, storage,
                                               sizeof storage, 16);
    for (size_t i = 0; i < n_teams; ++i) {
        size_t at = i;
        for (const int v = atoi(values[i]); at > 0 && teams[at - 1] > v; --at)
            teams[at] = teams[at - 1];
        teams[at] = atoi(values[i]);
    }
}

/* The shared sweep shapes (test/support/xcorr_run.c) and three for the team's row and window logic; pattern, rows,
 * cols, n_left, n_right, search rows, search cols. */
static const clpk_xcorr_shape extra_shapes[] = {
    {CLPK_XCORR_ONE_TO_ONE, 4, 150, 2, 2, 0, 0, CLPK_PRECISION_F32},  /* rows longer than every team */
    {CLPK_XCORR_ONE_TO_MANY, 40, 70, 1, 2, 0, 0, CLPK_PRECISION_F32}, /* 139 shifts per output row */
    {CLPK_XCORR_N_TO_MN, 9, 67, 1, 2, 5, 101, CLPK_PRECISION_F32},    /* window wider than a team */
};
#define N_SHAPES (XCORR_SWEEP_SHAPES + sizeof extra_shapes / sizeof extra_shapes[0])

static clpk_xcorr_shape shape_at(size_t i) {
    return i < XCORR_SWEEP_SHAPES ? xcorr_sweep_shapes[i] : extra_shapes[i - XCORR_SWEEP_SHAPES];
}

static void label_of(char *buf, size_t size, const clpk_xcorr_shape *s, const char *params);

/* Runs a directly built shift kernel (`form` names it) on `shape` and checks it (NaN-poisoned output, double
 * reference). */
static void direct_case(clpk_context *ctx, uint64_t *rng, cl_kernel kernel, int team, const clpk_xcorr_shape *s,
                        const char *form) {
    const int dbl = s->precision == CLPK_PRECISION_F64;
    const size_t elem = dbl ? sizeof(double) : sizeof(float), mat = (size_t)s->rows * s->cols;
    const int srows = clpk_xcorr_output_rows(s), scols = clpk_xcorr_output_cols(s);
    const size_t n_out = clpk_xcorr_output_count(s), no = n_out * (size_t)srows * (size_t)scols;
    const size_t nl = mat * s->n_left, nr = mat * s->n_right;
    double *l = malloc(nl * sizeof *l), *r = malloc(nr * sizeof *r), *ref = malloc(no * sizeof *ref);
    double *got = malloc(no * sizeof *got);
    void *hl = malloc(nl * elem), *hr = malloc(nr * elem), *ho = malloc(no * elem);
    if (!CHECK(l && r && ref && got && hl && hr && ho, "out of host memory")) goto done;
    xcorr_fill_random(rng, l, nl);
    xcorr_fill_random(rng, r, nr);
    xcorr_reference(s, l, r, ref);
    for (size_t i = 0; i < nl + nr + no; ++i) {
        const double v = i < nl ? l[i] : i < nl + nr ? r[i - nl] : NAN;
        void *base = i < nl ? hl : i < nl + nr ? hr : ho;
        const size_t at = i < nl ? i : i < nl + nr ? i - nl : i - nl - nr;
        if (dbl)
            ((double *)base)[at] = v;
        else
            ((float *)base)[at] = (float)v;
    }
    cl_context c = clpk_context_cl_context(ctx);
    cl_int rc = CL_SUCCESS;
    cl_mem bl = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nl * elem, hl, &rc);
    cl_mem br =
        rc == CL_SUCCESS ? clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nr * elem, hr, &rc) : NULL;
    cl_mem bo =
        rc == CL_SUCCESS ? clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, no * elem, ho, &rc) : NULL;
    const cl_ulong zero = 0;
    const cl_int ints[] = {s->rows, s->cols, srows, scols, s->n_left, s->n_right, (cl_int)s->pattern, (cl_int)n_out};
    if (rc == CL_SUCCESS) {
        rc |= clSetKernelArg(kernel, 0, sizeof bl, &bl);
        rc |= clSetKernelArg(kernel, 1, sizeof zero, &zero);
        rc |= clSetKernelArg(kernel, 2, sizeof br, &br);
        rc |= clSetKernelArg(kernel, 3, sizeof zero, &zero);
        rc |= clSetKernelArg(kernel, 4, sizeof bo, &bo);
        rc |= clSetKernelArg(kernel, 5, sizeof zero, &zero);
        for (cl_uint i = 0; i < 8; ++i)
            rc |= clSetKernelArg(kernel, 6 + i, sizeof ints[i], &ints[i]);
    }
    const size_t local = (size_t)team;
    const size_t global = (size_t)((scols + team - 1) / team) * (size_t)srows * n_out * local;
    cl_command_queue q = clpk_context_queue(ctx);
    if (rc == CL_SUCCESS) rc = clEnqueueNDRangeKernel(q, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
    if (rc == CL_SUCCESS) rc = clEnqueueReadBuffer(q, bo, CL_TRUE, 0, no * elem, ho, 0, NULL, NULL);
    char label[256];
    label_of(label, sizeof label, s, form);
    if (CHECK(rc == CL_SUCCESS, "%s team=%d: OpenCL error %s", label, team, core_cl_error_name(rc))) {
        for (size_t i = 0; i < no; ++i)
            got[i] = dbl ? ((double *)ho)[i] : (double)((float *)ho)[i];
        const double e = check_rel_error(ref, got, no), tol = dbl ? 1e-12 : 1e-5;
        CHECK(e <= tol, "%s team=%d: relative error %.3g > %.1g", label, team, e, tol);
    }
    if (bl) clReleaseMemObject(bl);
    if (br) clReleaseMemObject(br);
    if (bo) clReleaseMemObject(bo);
done:
    free(l);
    free(r);
    free(ref);
    free(got);
    free(hl);
    free(hr);
    free(ho);
}

/* A register form launched directly, every team value in f32 on several shapes, one in f64:
 *   XCORR_SHUFFLE=4, the shuffle emulated through local memory (every device): the register form's data flow;
 *   XCORR_SHUFFLE=2, cl_intel_subgroups (where the device has it): the plan prefers cl_khr_subgroup_shuffle where
 *   both exist (Intel's CPU runtime), so this is where the Intel form runs; with cl_intel_required_subgroup_size each
 *   team is its own sub-group width, and the teams the device does not offer (the build or the width check says
 *   so) are skipped; at least one must run. */
static void direct(clpk_context *ctx, uint64_t *rng, int form) {
    static const size_t picks[] = {0, 1, 3, 5, 7, 9};
    const int has_fp64 = clpk_context_device_info(ctx)->has_fp64;
    const int reqd =
        form == CLPK_XCORR_SHUFFLE_INTEL && core_device_has_extension(ctx, "cl_intel_required_subgroup_size");
    const char *name = form == CLPK_XCORR_SHUFFLE_INTEL ? "intel_sub_group_shuffle" : "emulated shuffle";
    int ran = 0;
    for (size_t t = 0; t <= n_teams; ++t) {
        const int dbl = t == n_teams;
        if (dbl && !has_fp64) break;
        const int team = dbl ? 16 : teams[t];
        char options[160];
        snprintf(options, sizeof options,
                 "-DVALUE_T=%s -DVALUE_IS_DOUBLE=%d -DTEAM=%d -DXCORR_SHUFFLE=%d -DXCORR_INTEL_REQD_SG=%d",
                 dbl ? "double" : "float", dbl, team, form, reqd);
        const char *sources[] = {"xcorr_common", "xcorr_shift"};
        cl_program program = NULL;
        cl_kernel kernel = NULL;
        clpk_status st = core_program_get(ctx, sources, 2, options, &program);
        if (st == CLPK_SUCCESS) st = core_kernel_create(ctx, program, "xcorr_shift", &kernel);
        if (st == CLPK_SUCCESS && form == CLPK_XCORR_SHUFFLE_INTEL)
            st = xcorr_shuffle_check_kernel(ctx, CLPK_XCORR_SHUFFLE_INTEL, kernel, team);
        if (form == CLPK_XCORR_SHUFFLE_INTEL && st != CLPK_SUCCESS) {
            printf("%s team=%d %s: not offered here: %.160s\n", name, team, dbl ? "f64" : "f32", clpk_last_error(ctx));
        } else if (CHECK(st == CLPK_SUCCESS, "%s team=%d: %s", name, team, clpk_last_error(ctx))) {
            if (form == CLPK_XCORR_SHUFFLE_INTEL) printf("%s team=%d %s: running\n", name, team, dbl ? "f64" : "f32");
            ++ran;
            for (size_t p = 0; p < sizeof picks / sizeof picks[0]; ++p) {
                clpk_xcorr_shape shape = shape_at((size_t)picks[p]);
                shape.precision = dbl ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
                direct_case(ctx, rng, kernel, team, &shape, name);
            }
        }
        if (kernel) clReleaseKernel(kernel);
    }
    CHECK(ran > 0, "%s: no team ran", name);
}

static void label_of(char *buf, size_t size, const clpk_xcorr_shape *s, const char *params) {
    snprintf(buf, size, "%s %s %dx%d %d/%d win %dx%d shift-buffer {%s}", clpk_xcorr_pattern_name(s->pattern),
             clpk_precision_name(s->precision), s->rows, s->cols, s->n_left, s->n_right, s->search_rows, s->search_cols,
             params);
}

/* No shuffle on this device: every team and precision is refused with UNSUPPORTED and a message naming the way out,
 * and no plan is returned. */
static void refusals(clpk_context *ctx) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    for (int p = 0; p < 2; ++p) {
        if (p == 1 && !dev->has_fp64) continue;
        for (size_t t = 0; t < n_teams; ++t) {
            clpk_xcorr_shape shape = shape_at(1);
            shape.precision = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            char params[64];
            snprintf(params, sizeof params, "team=%d,shuffle=subgroup", teams[t]);
            clpk_xcorr_plan *plan = NULL;
            const clpk_status st = clpk_xcorr_plan_create(ctx, &shape, "shift-buffer", params, &plan);
            const char *msg = clpk_last_error(ctx);
            CHECK(st == CLPK_ERROR_UNSUPPORTED && !plan && strstr(msg, "sub-group") && strstr(msg, "shuffle=local"),
                  "{%s} %s: expected a clean UNSUPPORTED, got %s: %s", params, clpk_precision_name(shape.precision),
                  clpk_status_string(st), msg);
            clpk_xcorr_plan_destroy(plan);
            CHECK(!xcorr_shuffle_team_possible(ctx, teams[t]), "team=%d offered to the tuner without a shuffle",
                  teams[t]);
        }
    }
    /* A bad value of the parameter is an invalid argument, not "unsupported". */
    clpk_xcorr_plan *plan = NULL;
    CHECK(clpk_xcorr_plan_create(ctx, &xcorr_sweep_shapes[1], "shift-buffer", "shuffle=warp", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              !plan && strstr(clpk_last_error(ctx), "shuffle=warp"),
          "shuffle=warp: %s", clpk_last_error(ctx));
    clpk_xcorr_plan_destroy(plan);
}

/* Runs one accepted (team, precision) point on every shape, then twice more on one shape: bit-identical. */
static void run_point(clpk_context *ctx, uint64_t *rng, int team, clpk_precision precision) {
    char params[64], label[256];
    snprintf(params, sizeof params, "team=%d,shuffle=subgroup", team);
    for (size_t s = 0; s < N_SHAPES; ++s) {
        clpk_xcorr_shape shape = shape_at(s);
        shape.precision = precision;
        label_of(label, sizeof label, &shape, params);
        xcorr_check_case(ctx, rng, &shape, "shift-buffer", params, s % 3, label);
    }
    clpk_xcorr_shape shape = shape_at(8);
    shape.precision = precision;
    const size_t mat = (size_t)shape.rows * shape.cols;
    const size_t no = clpk_xcorr_output_count(&shape) * clpk_xcorr_output_rows(&shape) * clpk_xcorr_output_cols(&shape);
    double *l = malloc(mat * sizeof *l), *r = malloc(2 * mat * sizeof *r);
    double *a = malloc(no * sizeof *a), *b = malloc(no * sizeof *b);
    clpk_xcorr_plan *plan = NULL;
    if (CHECK(l && r && a && b, "out of host memory")) {
        xcorr_fill_random(rng, l, mat);
        xcorr_fill_random(rng, r, 2 * mat);
        int g1 = 0, g2 = 0;
        clpk_status st = clpk_xcorr_plan_create(ctx, &shape, "shift-buffer", params, &plan);
        if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, &shape, l, r, 0, a, &g1);
        if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, &shape, l, r, 0, b, &g2);
        if (CHECK(st == CLPK_SUCCESS, "rerun {%s}: %s", params, clpk_last_error(ctx)))
            CHECK(memcmp(a, b, no * sizeof *a) == 0 && g1 && g2, "{%s} %s: two runs differ", params,
                  clpk_precision_name(precision));
    }
    clpk_xcorr_plan_destroy(plan);
    free(l);
    free(r);
    free(a);
    free(b);
}

static void sweep(clpk_context *ctx, uint64_t *rng, xcorr_shuffle_kind kind) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    int accepted = 0;
    for (int p = 0; p < 2; ++p) {
        const clpk_precision precision = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (p == 1 && !dev->has_fp64) {
            printf("skip f64: %s has no double precision\n", dev->name);
            continue;
        }
        for (size_t t = 0; t < n_teams; ++t) {
            char params[64];
            snprintf(params, sizeof params, "team=%d,shuffle=subgroup", teams[t]);
            clpk_xcorr_shape probe = shape_at(1);
            probe.precision = precision;
            clpk_xcorr_plan *plan = NULL;
            const clpk_status st = clpk_xcorr_plan_create(ctx, &probe, "shift-buffer", params, &plan);
            clpk_xcorr_plan_destroy(plan);
            if (st != CLPK_SUCCESS) {
                /* Teams that are not one sub-group here are refused as unsupported, never half-built. */
                CHECK(st == CLPK_ERROR_UNSUPPORTED && !plan, "{%s} %s: %s: %s", params, clpk_precision_name(precision),
                      clpk_status_string(st), clpk_last_error(ctx));
                printf("team=%d %s refused: %.200s\n", teams[t], clpk_precision_name(precision), clpk_last_error(ctx));
                continue;
            }
            printf("team=%d %s: running\n", teams[t], clpk_precision_name(precision));
            ++accepted;
            run_point(ctx, rng, teams[t], precision);
        }
    }
    CHECK(accepted > 0, "%s offers %s but no team was accepted", dev->name, xcorr_shuffle_kind_name(kind));
    if (kind == CLPK_XCORR_SHUFFLE_NV_PTX) {
        /* The warp (32) must work on NVIDIA: it is the one team the tuner offers there. */
        clpk_xcorr_plan *plan = NULL;
        CHECK(clpk_xcorr_plan_create(ctx, &xcorr_sweep_shapes[1], "shift-buffer", "team=32,shuffle=subgroup", &plan) ==
                  CLPK_SUCCESS,
              "NVIDIA team=32: %s", clpk_last_error(ctx));
        clpk_xcorr_plan_destroy(plan);
    }
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const xcorr_shuffle_kind kind = xcorr_shuffle_kind_of(ctx);
    read_teams();
    CHECK(n_teams > 0, "the table searches no team values");
    printf("device: %s (%s), shuffle: %s\n", dev->name, dev->platform_name, xcorr_shuffle_kind_name(kind));
    double t0 = core_wall_seconds();
    if (kind == CLPK_XCORR_SHUFFLE_NONE) {
        printf("skip: device has no sub-group shuffle (%s); checking that shuffle=subgroup is refused cleanly\n",
               dev->name);
        refusals(ctx);
    } else {
        sweep(ctx, &rng, kind);
    }
    if (core_device_has_extension(ctx, "cl_intel_subgroups")) {
        direct(ctx, &rng, CLPK_XCORR_SHUFFLE_INTEL);
        printf("intel_sub_group_shuffle: %.1f s\n", core_wall_seconds() - t0);
    }
    direct(ctx, &rng, 4);
    printf("emulated: %.1f s\n", core_wall_seconds() - t0);
    /* The local form (the default, every device) with the parameter spelled out. */
    char label[256];
    label_of(label, sizeof label, &xcorr_sweep_shapes[3], "team=16,shuffle=local");
    xcorr_check_case(ctx, &rng, &xcorr_sweep_shapes[3], "shift-buffer", "team=16,shuffle=local", 1, label);
    printf("total: %.1f s\n", core_wall_seconds() - t0);
    clpk_context_destroy(ctx);
    return check_summary();
}
