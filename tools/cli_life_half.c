/* Bounds for checking dict=half products (cli_life_half.h). */
#include "cli_life_half.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_life_dict_half(const clpk_life_plan *plan) {
    clpk_life_plan_info info;
    memset(&info, 0, sizeof info);
    return clpk_life_plan_get_info(plan, &info) == CLPK_SUCCESS && info.dictionary &&
           strcmp(info.dictionary, "half") == 0;
}

static double max_abs(const double *v, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; ++i)
        m = fmax(m, fabs(v[i]));
    return m;
}

double cli_life_half_bound(const clpk_life_dataset *d, int dsc, const double *x, double fill, const double *ref) {
    const size_t nc = (size_t)d->n_coeffs, nd = (size_t)d->n_atoms * d->n_theta;
    const size_t ny = (size_t)d->n_voxels * d->n_theta, nw = (size_t)d->n_fibers;
    const size_t n_in = dsc ? nw : ny, n_out = dsc ? ny : nw;
    clpk_life_dataset a = *d; /* |Phi| and |D| + 2^-14 */
    a.phi = malloc((nc ? nc : 1) * sizeof *a.phi);
    a.dictionary = malloc((nd ? nd : 1) * sizeof *a.dictionary);
    double *ax = malloc((n_in ? n_in : 1) * sizeof *ax), *out = malloc((n_out ? n_out : 1) * sizeof *out);
    double bound = INFINITY;
    if (a.phi && a.dictionary && ax && out) {
        for (size_t i = 0; i < nc; ++i)
            a.phi[i] = fabs(d->phi[i]);
        for (size_t i = 0; i < nd; ++i)
            a.dictionary[i] = fabs(d->dictionary[i]) + 0x1p-14;
        for (size_t i = 0; i < n_in; ++i)
            ax[i] = fabs(x ? x[i] : fill);
        if (dsc)
            clpk_life_dsc_reference(&a, ax, out);
        else
            clpk_life_wc_reference(&a, ax, out);
        const double scale = max_abs(ref, n_out);
        bound = 0x1p-11 * max_abs(out, n_out) / (scale > 0 ? scale : 1);
    }
    free(a.phi), free(a.dictionary), free(ax), free(out);
    return bound;
}
