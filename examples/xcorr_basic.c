/* xcorr-basic: full 2D cross-correlations of a stack of small matrices pairs (the one-to-one pattern) with the xcorr
 * family, on host arrays, checked against the library's double-precision CPU reference. Optional argument: a device
 * selector as for clpk-info. */
#include <clpk.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    /* 256 pairs of 24 x 24 matrices; each output is (2*24-1) x (2*24-1): every relative shift */
    clpk_xcorr_shape shape = {.pattern = CLPK_XCORR_ONE_TO_ONE,
                              .rows = 24,
                              .cols = 24,
                              .n_left = 256,
                              .n_right = 256,
                              .precision = CLPK_PRECISION_F32};
    const size_t in = (size_t)shape.n_left * shape.rows * shape.cols;
    const size_t out =
        clpk_xcorr_output_count(&shape) * clpk_xcorr_output_rows(&shape) * clpk_xcorr_output_cols(&shape);
    float *left = malloc(in * sizeof *left), *right = malloc(in * sizeof *right), *got = malloc(out * sizeof *got);
    double *left64 = malloc(in * sizeof *left64), *right64 = malloc(in * sizeof *right64);
    double *ref = malloc(out * sizeof *ref);
    if (!left || !right || !got || !left64 || !right64 || !ref) return 1;
    for (size_t i = 0; i < in; ++i) {
        left64[i] = left[i] = (float)sin(0.37 * (double)i);
        right64[i] = right[i] = (float)cos(0.11 * (double)i * (double)(i % 13));
    }

    clpk_context *ctx = NULL;
    clpk_xcorr_plan *plan = NULL;
    clpk_status st = clpk_context_create(&ctx, argc > 1 ? argv[1] : NULL);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "xcorr-basic: no device: %s\n", clpk_status_string(st));
        return 1;
    }
    /* NULL algorithm and parameters: the device's tuning profile, else the built-in choice */
    st = clpk_xcorr_plan_create(ctx, &shape, NULL, NULL, &plan);
    if (st == CLPK_SUCCESS) st = clpk_xcorr_execute_host(plan, left, right, got);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "xcorr-basic: %s: %s\n", clpk_status_string(st), clpk_last_error(ctx));
        clpk_xcorr_plan_destroy(plan);
        clpk_context_destroy(ctx);
        return 1;
    }
    char params[256];
    clpk_xcorr_plan_params(plan, params, sizeof params);
    printf("device: %s\nalgorithm: %s {%s}\n", clpk_context_device_info(ctx)->name, clpk_xcorr_plan_algorithm(plan),
           params);

    clpk_error err = {0};
    if (clpk_xcorr_reference(&shape, left64, right64, ref, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "xcorr-basic: %s\n", err.message);
        return 1;
    }
    double max_diff = 0, max_ref = 0;
    for (size_t i = 0; i < out; ++i) {
        max_diff = fmax(max_diff, isnan(got[i]) ? INFINITY : fabs(got[i] - ref[i]));
        max_ref = fmax(max_ref, fabs(ref[i]));
    }
    const double rel = max_diff / max_ref;
    printf("%zu outputs of %dx%d: relative error %.2e vs the double CPU reference: %s\n",
           clpk_xcorr_output_count(&shape), clpk_xcorr_output_rows(&shape), clpk_xcorr_output_cols(&shape), rel,
           rel <= 1e-5 ? "OK" : "WRONG");
    clpk_xcorr_plan_destroy(plan);
    clpk_context_destroy(ctx);
    free(left), free(right), free(got), free(left64), free(right64), free(ref);
    return rel <= 1e-5 ? 0 : 1;
}
