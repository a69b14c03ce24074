/* References for dict=half plans (life_half_refs.h). */
#include "life_half_refs.h"

#include "life_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double max_abs(const double *v, size_t n) {
    double m = 0;
    for (size_t i = 0; i < n; ++i)
        m = fmax(m, fabs(v[i]));
    return m;
}

int life_half_refs_make(const clpk_life_dataset *d, const double *w, const double *y, const double *y_full,
                        const double *w_full, life_half_refs *out) {
    memset(out, 0, sizeof *out);
    const size_t ny = (size_t)d->n_voxels * d->n_theta, nw = (size_t)d->n_fibers, nc = (size_t)d->n_coeffs;
    const size_t nd = (size_t)d->n_atoms * d->n_theta;
    clpk_life_dataset view = *d;
    double *abs_phi = malloc((nc ? nc : 1) * sizeof *abs_phi), *abs_dict = malloc((nd ? nd : 1) * sizeof *abs_dict);
    double *abs_w = malloc((nw ? nw : 1) * sizeof *abs_w), *abs_y = malloc((ny ? ny : 1) * sizeof *abs_y);
    double *y_abs = malloc((ny ? ny : 1) * sizeof *y_abs), *w_abs = malloc((nw ? nw : 1) * sizeof *w_abs);
    double *rounded = life_half_dictionary(d);
    view.dictionary = rounded;
    out->y = malloc((ny ? ny : 1) * sizeof *out->y);
    out->w = malloc((nw ? nw : 1) * sizeof *out->w);
    int ok = abs_phi && abs_dict && abs_w && abs_y && y_abs && w_abs && rounded && out->y && out->w;
    if (ok) {
        life_ref_dsc(&view, w, out->y);
        life_ref_wc(&view, y, out->w);
        for (size_t i = 0; i < nc; ++i)
            abs_phi[i] = fabs(d->phi[i]);
        for (size_t i = 0; i < nd; ++i)
            abs_dict[i] = fabs(d->dictionary[i]) + 0x1p-14;
        for (size_t i = 0; i < nw; ++i)
            abs_w[i] = fabs(w[i]);
        for (size_t i = 0; i < ny; ++i)
            abs_y[i] = fabs(y[i]);
        view.phi = abs_phi;
        view.dictionary = abs_dict;
        life_ref_dsc(&view, abs_w, y_abs);
        life_ref_wc(&view, abs_y, w_abs);
        const double sy = max_abs(y_full, ny), sw = max_abs(w_full, nw);
        out->y_bound = 0x1p-11 * max_abs(y_abs, ny) / (sy > 0 ? sy : 1);
        out->w_bound = 0x1p-11 * max_abs(w_abs, nw) / (sw > 0 ? sw : 1);
    }
    free(rounded);
    free(abs_phi), free(abs_dict), free(abs_w), free(abs_y), free(y_abs), free(w_abs);
    if (!ok) life_half_refs_free(out);
    return ok;
}

void life_half_refs_free(life_half_refs *r) {
    free(r->y);
    free(r->w);
    memset(r, 0, sizeof *r);
}
