/* IEEE 754 binary16 ("half") values on the host: the dictionary of a dict=half plan is converted once at upload, and
 * the tests build their reference from the same rounded values. Conversions go straight from double (rounding via
 * float first could round twice). */
#include "life_internal.h"

#include <math.h>
#include <stdlib.h>

uint16_t life_half_from_double(double x) {
    const uint16_t sign = signbit(x) ? 0x8000u : 0u;
    const double a = fabs(x);
    if (isnan(a)) return sign | 0x7e00u;
    if (a >= 65520.0) return sign | 0x7c00u; /* from the midpoint of 65504 and 2^16 on (ties to even): infinity */
    if (a < 0x1p-14) /* zero or subnormal: a multiple of 2^-24; 1024 * 2^-24 encodes the smallest normal */
        return sign | (uint16_t)nearbyint(a * 0x1p24);
    int e = 0;
    double q = nearbyint(frexp(a, &e) * 2048.0); /* 11 significant bits, ties to even; a = q 2^(e - 11) */
    if (q == 2048.0) q = 1024.0, ++e;            /* rounded up to the next power of two */
    return sign | (uint16_t)((e - 1 + 15) << 10) | (uint16_t)(q - 1024.0);
}

double life_half_to_double(uint16_t h) {
    const int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    const double a = e == 0 ? ldexp(f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp(1024 + f, e - 25);
    return h & 0x8000u ? -a : a;
}

double life_half_round(double x) { return life_half_to_double(life_half_from_double(x)); }

double *life_half_dictionary(const clpk_life_dataset *data) {
    const size_t n = (size_t)data->n_atoms * (size_t)data->n_theta;
    double *out = malloc((n > 0 ? n : 1) * sizeof *out);
    for (size_t i = 0; out && i < n; ++i)
        out[i] = life_half_round(data->dictionary[i]);
    return out;
}

double life_ref_objective(const clpk_life_dataset *data, const double *w) {
    const size_t ny = (size_t)data->n_voxels * (size_t)data->n_theta;
    double *y = malloc((ny > 0 ? ny : 1) * sizeof *y);
    if (!y) return NAN;
    life_ref_dsc(data, w, y);
    double sum = 0;
    for (size_t i = 0; i < ny; ++i)
        sum += (y[i] - data->signal[i]) * (y[i] - data->signal[i]);
    free(y);
    return 0.5 * sum;
}

clpk_status life_objective_change(clpk_life_plan *plan, const clpk_life_dataset *data, const double *w,
                                  double reference, double *change) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!data || !data->signal || !w || !change)
        return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: objective change: no dataset, signal or w");
    const size_t ny = (size_t)data->n_voxels * (size_t)data->n_theta;
    double *y = malloc((ny > 0 ? ny : 1) * sizeof *y);
    if (!y) return core_fail(plan->ctx, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no host memory for %zu values", ny);
    clpk_status st = clpk_life_dsc_host(plan, w, y);
    double sum = 0;
    for (size_t i = 0; st == CLPK_SUCCESS && i < ny; ++i)
        sum += (y[i] - data->signal[i]) * (y[i] - data->signal[i]);
    free(y);
    if (st == CLPK_SUCCESS) *change = reference != 0 ? (0.5 * sum - reference) / reference : 0.5 * sum;
    return st;
}
