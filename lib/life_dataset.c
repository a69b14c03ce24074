/* LiFE datasets on disk: a directory of .npy files (phi_atoms, phi_voxels, phi_fibers, phi_values, dictionary,
 * signal) plus an optional meta.json. Loading checks every file against the others and names the file at fault. */
#include "clpk_internal.h"
#include "clpk_life.h"
#include "life_data_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

void clpk_life_dataset_free(clpk_life_dataset *data) {
    if (!data) return;
    free(data->atoms);
    free(data->voxels);
    free(data->fibers);
    free(data->phi);
    free(data->dictionary);
    free(data->signal);
    memset(data, 0, sizeof *data);
}

static clpk_status check_indices(const int32_t *idx, int64_t n, int32_t limit, const char *what, const char *limit_what,
                                 clpk_error *err) {
    for (int64_t k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= limit)
            return clpk_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: index %d at position %lld out of range [0, %d) (%s)",
                                  what, (int)idx[k], (long long)k, (int)limit, limit_what);
    }
    return CLPK_SUCCESS;
}

static clpk_status check_finite(const double *v, int64_t n, const char *what, clpk_error *err) {
    for (int64_t k = 0; k < n; k++) {
        if (!isfinite(v[k]))
            return clpk_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: value at position %lld is %s", what, (long long)k,
                                  isnan(v[k]) ? "NaN" : "infinite");
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_life_dataset_validate(const clpk_life_dataset *d, clpk_error *err) {
    if (!d) return clpk_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE dataset: NULL");
    if (d->n_coeffs <= 0)
        return clpk_error_set(err, CLPK_ERROR_INVALID_DATA, "LiFE dataset: no coefficients (n_coeffs = %lld)",
                              (long long)d->n_coeffs);
    if (d->n_atoms <= 0 || d->n_voxels <= 0 || d->n_fibers <= 0 || d->n_theta <= 0)
        return clpk_error_set(err, CLPK_ERROR_INVALID_DATA,
                              "LiFE dataset: sizes must be positive (atoms %d, voxels %d, fibers %d, theta %d)",
                              (int)d->n_atoms, (int)d->n_voxels, (int)d->n_fibers, (int)d->n_theta);
    if (!d->atoms || !d->voxels || !d->fibers || !d->phi || !d->dictionary)
        return clpk_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE dataset: missing arrays");
    CLPK_TRY(check_indices(d->atoms, d->n_coeffs, d->n_atoms, "phi_atoms", "dictionary rows", err));
    CLPK_TRY(check_indices(d->voxels, d->n_coeffs, d->n_voxels, "phi_voxels", "voxels", err));
    CLPK_TRY(check_indices(d->fibers, d->n_coeffs, d->n_fibers, "phi_fibers", "fibers", err));
    CLPK_TRY(check_finite(d->phi, d->n_coeffs, "phi_values", err));
    CLPK_TRY(check_finite(d->dictionary, (int64_t)d->n_atoms * d->n_theta, "dictionary", err));
    if (d->signal) CLPK_TRY(check_finite(d->signal, (int64_t)d->n_voxels * d->n_theta, "signal", err));
    return CLPK_SUCCESS;
}

