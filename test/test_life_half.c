/* dict=half, the dictionary stored as half values with float sums: the host conversion rounds to nearest, ties to even,
 * over the whole half range (subnormals and overflow included); a dict=half plan gives the products of a
 * full-storage plan whose D holds the same half values (the kernels' vload_half loads are exact and the sums
 * unchanged; within 1e-6, as a compiler may contract multiply-adds differently in the two programs), for the unrolled
 * kernels at the unroll values the sweep of test_life_kernels.c leaves to dict=full; its products lie within the f32
 * bound of the references with D rounded to half and within the rounding's bound of the full ones; a dictionary beyond
 * the half range is refused. */
#include "check.h"
#include "life_half_refs.h"
#include "life_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void conversion(uint64_t *rng) {
    const struct {
        double x;
        uint16_t bits;
    } cases[] = {{0.0, 0x0000},
                 {-0.0, 0x8000},
                 {1.0, 0x3c00},
                 {-2.0, 0xc000},
                 {65504.0, 0x7bff},                 /* the largest finite half */
                 {65519.99, 0x7bff},                /* below the midpoint to 2^16: stays finite */
                 {65520.0, 0x7c00},                 /* the midpoint: to even, which is infinity */
                 {1e9, 0x7c00},                     /* beyond: infinity */
                 {0x1p-14, 0x0400},                 /* the smallest normal */
                 {0x1p-24, 0x0001},                 /* the smallest subnormal */
                 {0x1p-25, 0x0000},                 /* half of it: to even, 0 */
                 {0x1.8p-24, 0x0002},               /* 1.5 subnormal steps: to even, 2 */
                 {0x1.ff8p-15, 0x03ff},             /* the largest subnormal */
                 {0x1.ffep-15, 0x0400},             /* its midpoint to the smallest normal: to even, the normal */
                 {1.0 + 0x1p-11, 0x3c00},           /* midpoint 1 .. 1 + 2^-10: to even, 1 */
                 {1.0 + 0x1.8p-10, 0x3c02},         /* midpoint 1 + 2^-10 .. 1 + 2^-9: to even, 1 + 2^-9 */
                 {1.0 + 0x1p-11 + 0x1p-40, 0x3c01}, /* just above the midpoint: up (a double, not rounded via float) */
                 {0.1, 0x2e66},
                 {-0.333333, 0xb555}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const uint16_t got = life_half_from_double(cases[i].x);
        CHECK(got == cases[i].bits, "half of %a: 0x%04x, want 0x%04x", cases[i].x, got, cases[i].bits);
    }
    CHECK((life_half_from_double(NAN) & 0x7c00) == 0x7c00 && (life_half_from_double(NAN) & 0x3ff) != 0, "NaN");
    CHECK(life_half_from_double(-INFINITY) == 0xfc00 && life_half_to_double(0x7c00) == INFINITY, "infinities");
    /* every half value converts back and forth unchanged */
    int exact = 1;
    for (uint32_t h = 0; h < 0x10000; ++h) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) continue; /* NaNs */
        exact &= life_half_from_double(life_half_to_double((uint16_t)h)) == h;
    }
    CHECK(exact, "half -> double -> half changes a value");
    /* random values: the result is the nearest half (within half a step of the exponent's spacing) */
    int nearest = 1;
    for (int i = 0; i < 100000; ++i) {
        const double x = (2 * check_rand_double(rng) - 1) * ldexp(1.0, (int)(check_rand_double(rng) * 44) - 28);
        const double r = life_half_round(x), a = fabs(x);
        const double step = a < 0x1p-14 ? 0x1p-24 : ldexp(1.0, ilogb(a) - 10);
        nearest &= fabs(r - x) <= step / 2 || (a >= 65520 && isinf(r));
    }
    CHECK(nearest, "a random value does not go to the nearest half");
}

/* D rounded to half (a copy), and the dataset pointing at it. */
static double *rounded_view(const clpk_life_dataset *d, clpk_life_dataset *view) {
    *view = *d;
    view->dictionary = life_half_dictionary(d);
    return view->dictionary;
}

static int products(clpk_context *ctx, const clpk_life_dataset *d, const char *params, const double *w, const double *y,
                    double *y_out, double *w_out) {
    clpk_life_plan *plan = NULL;
    if (!CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "auto", params, &plan) == CLPK_SUCCESS,
               "plan [%s]: %s", params, clpk_last_error(ctx)))
        return 0;
    const int ok =
        CHECK(clpk_life_dsc_host(plan, w, y_out) == CLPK_SUCCESS && clpk_life_wc_host(plan, y, w_out) == CLPK_SUCCESS,
              "products [%s]: %s", params, clpk_last_error(ctx));
    clpk_life_plan_destroy(plan);
    return ok;
}

static void kernels(clpk_context *ctx, uint64_t *rng) {
    clpk_life_synth_options so;
    clpk_error err;
    if (!CHECK(clpk_life_synth_defaults("tiny", &so) == CLPK_SUCCESS, "synth defaults")) return;
    so.seed = check_rand(rng);
    so.n_theta = 96; /* the seed's directions: 3 teams of 32, wc=voxel's 4-value loads over 24 */
    clpk_life_dataset d, r;
    if (!CHECK(clpk_life_synth(&so, &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) return;
    double *rounded = rounded_view(&d, &r);
    const size_t ny = (size_t)d.n_voxels * d.n_theta, nw = (size_t)d.n_fibers;
    double *w = malloc(nw * sizeof *w), *y_ref = malloc(ny * sizeof *y_ref), *w_ref = malloc(nw * sizeof *w_ref);
    double *y_half = malloc(ny * sizeof *y_half), *w_half = malloc(nw * sizeof *w_half);
    double *y_same = malloc(ny * sizeof *y_same), *w_same = malloc(nw * sizeof *w_same);
    for (size_t i = 0; i < nw; ++i)
        w[i] = check_rand_double(rng) < 0.2 ? 0 : check_rand_double(rng);
    life_ref_dsc(&d, w, y_ref);
    life_ref_wc(&d, d.signal, w_ref);
    life_half_refs refs;
    if (!CHECK(rounded && life_half_refs_make(&d, w, d.signal, y_ref, w_ref, &refs), "references")) return;
    printf("bounds of the half rounding (relative to the largest value): DSC %.3g, WC %.3g\n", refs.y_bound,
           refs.w_bound);
    const char *params[] = {"dsc=voxel,wc=fiber,unroll=1", "dsc=pairs,wc=pairs,unroll=4,voxel_order=morton",
                            "dsc=voxel,wc=fiber,unroll=4,theta_parts=2,fiber_order=voxel",
                            "dsc=pairs,wc=pairs,unroll=1,wc_team=8,wc_runs=2", "dsc=atomics,wc=voxel"};
    for (size_t i = 0; i < sizeof params / sizeof params[0]; ++i) {
        char half[128];
        snprintf(half, sizeof half, "%s,dict=half", params[i]);
        if (!products(ctx, &d, half, w, d.signal, y_half, w_half)) continue;
        const double ey = check_rel_error(refs.y, y_half, ny), ew = check_rel_error(refs.w, w_half, nw);
        CHECK(ey <= 2e-5 && ew <= 2e-5, "[%s] against D rounded to half: DSC %.3g, WC %.3g", half, ey, ew);
        const double fy = check_rel_error(y_ref, y_half, ny), fw = check_rel_error(w_ref, w_half, nw);
        CHECK(fy <= refs.y_bound + 2e-5 && fw <= refs.w_bound + 2e-5,
              "[%s] against full D: DSC %.3g (bound %.3g), WC %.3g (bound %.3g)", half, fy, refs.y_bound, fw,
              refs.w_bound);
        printf("[%s]: error against D rounded to half %.2g / %.2g, against full D %.2g / %.2g\n", half, ey, ew, fy, fw);
        if (strstr(params[i], "atomics")) continue; /* float atomics: no fixed order of the sums */
        if (!products(ctx, &r, params[i], w, d.signal, y_same, w_same)) continue;
        /* The same values in the same order: equal up to the compiler's freedom to contract a*b+c into an fma,
         * which may differ between the half- and float-loading programs (Intel's CPU compiler does; PoCL does not). */
        const double sy = check_rel_error(y_same, y_half, ny), sw = check_rel_error(w_same, w_half, nw);
        CHECK(sy <= 1e-6 && sw <= 1e-6,
              "[%s]: the products of full storage of the same half values differ: %.3g / %.3g", half, sy, sw);
    }
    /* a dictionary value beyond the half range is refused (it would be infinite); the largest half is taken */
    clpk_life_plan *plan = NULL;
    const double saved = d.dictionary[7];
    d.dictionary[7] = 7e4;
    const clpk_status st = clpk_life_plan_create(ctx, &d, CLPK_PRECISION_F32, "auto", "dict=half", &plan);
    CHECK(st == CLPK_ERROR_INVALID_DATA && !plan && strstr(clpk_last_error(ctx), "half range"),
          "a dictionary value of 7e4 with dict=half: %d %s", (int)st, clpk_last_error(ctx));
    d.dictionary[7] = -LIFE_HALF_MAX;
    CHECK(clpk_life_plan_create(ctx, &d, CLPK_PRECISION_F32, "auto", "dict=half", &plan) == CLPK_SUCCESS, "%s",
          clpk_last_error(ctx));
    clpk_life_plan_destroy(plan);
    d.dictionary[7] = saved;
    life_half_refs_free(&refs);
    free(w), free(y_ref), free(w_ref), free(y_half), free(w_half), free(y_same), free(w_same);
    free(rounded);
    clpk_life_dataset_free(&d);
}

int main(void) {
    uint64_t rng = check_seed();
    conversion(&rng);
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, NULL) != CLPK_SUCCESS) {
        printf("no OpenCL device: skipping the device checks\n");
        return check_summary();
    }
    printf("device: %s\n", clpk_context_device_info(ctx)->name);
    kernels(ctx, &rng);
    clpk_context_destroy(ctx);
    return check_summary();
}
