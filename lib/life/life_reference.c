/* LiFE CPU reference: the seed's naive serial loops in double precision, and the dataset checks the device path
 * relies on (an out-of-range index must never reach a kernel). */
#include "life_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void life_ref_dsc(const clpk_life_dataset *data, const double *w, double *y) {
    const int nt = data->n_theta;
    memset(y, 0, (size_t)data->n_voxels * (size_t)nt * sizeof *y);
    for (int64_t k = 0; k < data->n_coeffs; ++k) {
        const double c = data->phi[k] * w[data->fibers[k]];
        const double *d = data->dictionary + (size_t)data->atoms[k] * (size_t)nt;
        double *yv = y + (size_t)data->voxels[k] * (size_t)nt;
        for (int t = 0; t < nt; ++t) yv[t] += c * d[t];
    }
}

void life_ref_wc(const clpk_life_dataset *data, const double *y, double *w) {
    const int nt = data->n_theta;
    memset(w, 0, (size_t)data->n_fibers * sizeof *w);
    for (int64_t k = 0; k < data->n_coeffs; ++k) {
        const double *d = data->dictionary + (size_t)data->atoms[k] * (size_t)nt;
        const double *yv = y + (size_t)data->voxels[k] * (size_t)nt;
        double s = 0;
        for (int t = 0; t < nt; ++t) s += d[t] * yv[t];
        w[data->fibers[k]] += data->phi[k] * s;
    }
}

clpk_status life_check_dataset(const clpk_life_dataset *data, clpk_error *err) {
    if (!data) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: no dataset");
    if (data->n_theta < 1 || data->n_atoms < 1 || data->n_voxels < 1 || data->n_fibers < 1 || data->n_coeffs < 0)
        return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                              "LiFE: empty dataset (n_theta %d, n_atoms %d, n_voxels %d, n_fibers %d, n_coeffs %lld)",
                              data->n_theta, data->n_atoms, data->n_voxels, data->n_fibers,
                              (long long)data->n_coeffs);
    if (!data->dictionary || (data->n_coeffs > 0 && (!data->atoms || !data->voxels || !data->fibers || !data->phi)))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: dataset arrays missing");
    /* Premultiplied int32 offsets on the device: atom * ld and voxel * n_theta must fit. */
    const int64_t ld = ((int64_t)data->n_theta + 31) / 32 * 32;
    if ((int64_t)data->n_atoms * ld > INT_MAX || (int64_t)data->n_voxels * data->n_theta > INT_MAX)
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED,
                              "LiFE: dictionary or signal over 2^31 elements (n_atoms %d, n_voxels %d, n_theta %d)",
                              data->n_atoms, data->n_voxels, data->n_theta);
    for (int64_t k = 0; k < data->n_coeffs; ++k) {
        if (data->atoms[k] < 0 || data->atoms[k] >= data->n_atoms || data->voxels[k] < 0 ||
            data->voxels[k] >= data->n_voxels || data->fibers[k] < 0 || data->fibers[k] >= data->n_fibers)
            return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                  "LiFE: coefficient %lld has index out of range "
                                  "(atom %d/%d, voxel %d/%d, fiber %d/%d)",
                                  (long long)k, data->atoms[k], data->n_atoms, data->voxels[k], data->n_voxels,
                                  data->fibers[k], data->n_fibers);
        if (!isfinite(data->phi[k]))
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "LiFE: phi[%lld] is not finite", (long long)k);
    }
    const size_t nd = (size_t)data->n_atoms * (size_t)data->n_theta;
    for (size_t i = 0; i < nd; ++i)
        if (!isfinite(data->dictionary[i]))
            return core_error_set(err, CLPK_ERROR_INVALID_DATA, "LiFE: dictionary[%zu] is not finite", i);
    if (data->signal) {
        const size_t ns = (size_t)data->n_voxels * (size_t)data->n_theta;
        for (size_t i = 0; i < ns; ++i)
            if (!isfinite(data->signal[i]))
                return core_error_set(err, CLPK_ERROR_INVALID_DATA, "LiFE: signal[%zu] is not finite", i);
    }
    return CLPK_SUCCESS;
}

/* splitmix64: a small deterministic generator over a caller-held state. */
static uint64_t life_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double life_rand_unit(uint64_t *s) { return (double)(life_rand(s) >> 11) * 0x1.0p-53; }

clpk_status life_random_dataset(const life_random_options *o, uint64_t seed, clpk_life_dataset *out,
                                double **w_true, clpk_error *err) {
    memset(out, 0, sizeof *out);
    if (w_true) *w_true = NULL;
    if (o->n_theta < 1 || o->n_atoms < 1 || o->n_voxels < 1 || o->n_fibers < 1 || o->mean_run < 1)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "LiFE: bad random dataset sizes");
    uint64_t s = seed;
    int32_t *len = malloc((size_t)o->n_fibers * sizeof *len);
    if (!len) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory");
    int64_t nc = 0;
    for (int32_t f = 0; f < o->n_fibers; ++f) {
        /* Some fibres have no coefficient at all (weight unconstrained by data: WC must still write 0). */
        len[f] = o->empty_fraction > 0 && life_rand_unit(&s) < o->empty_fraction
                     ? 0
                     : 1 + (int32_t)(life_rand(&s) % (uint64_t)(2 * o->mean_run));
        nc += len[f];
    }
    size_t cells = nc > 0 ? (size_t)nc : 1;
    out->n_coeffs = nc;
    out->n_theta = o->n_theta;
    out->n_atoms = o->n_atoms;
    out->n_voxels = o->n_voxels;
    out->n_fibers = o->n_fibers;
    out->atoms = malloc(cells * sizeof(int32_t));
    out->voxels = malloc(cells * sizeof(int32_t));
    out->fibers = malloc(cells * sizeof(int32_t));
    out->phi = malloc(cells * sizeof(double));
    out->dictionary = malloc((size_t)o->n_atoms * o->n_theta * sizeof(double));
    out->signal = malloc((size_t)o->n_voxels * o->n_theta * sizeof(double));
    out->voxel_ijk = malloc((size_t)o->n_voxels * 3 * sizeof(int32_t));
    double *wt = malloc((size_t)o->n_fibers * sizeof *wt);
    if (!out->atoms || !out->voxels || !out->fibers || !out->phi || !out->dictionary || !out->signal || !wt ||
        !out->voxel_ijk) {
        free(len);
        free(wt);
        clpk_life_dataset_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "LiFE: no memory for a random dataset");
    }
    /* Voxels fill a grid of side ~cbrt(n_voxels), x fastest, as a scanner's mask would (spatial orders read it). */
    int32_t side = 1;
    while ((int64_t)side * side * side < o->n_voxels) ++side;
    for (int32_t v = 0; v < o->n_voxels; ++v) {
        out->voxel_ijk[3 * (size_t)v] = v % side;
        out->voxel_ijk[3 * (size_t)v + 1] = v / side % side;
        out->voxel_ijk[3 * (size_t)v + 2] = v / side / side;
    }
    /* Streamline-like: a fibre visits a run of voxels along a random stride, one atom per visited voxel. */
    int64_t k = 0;
    for (int32_t f = 0; f < o->n_fibers; ++f) {
        int32_t v = (int32_t)(life_rand(&s) % (uint64_t)o->n_voxels);
        int32_t stride = 1 + (int32_t)(life_rand(&s) % 7);
        int32_t a = (int32_t)(life_rand(&s) % (uint64_t)o->n_atoms);
        for (int32_t j = 0; j < len[f]; ++j, ++k) {
            if (life_rand(&s) % 3 == 0) a = (int32_t)(life_rand(&s) % (uint64_t)o->n_atoms);
            out->atoms[k] = a;
            out->voxels[k] = v;
            out->fibers[k] = f;
            out->phi[k] = 0.1 + 0.9 * life_rand_unit(&s);
            v = (v + stride) % o->n_voxels;
        }
    }
    free(len);
    /* Shuffle so the file order is neither voxel- nor fibre-sorted. */
    for (int64_t i = nc - 1; i > 0; --i) {
        int64_t j = (int64_t)(life_rand(&s) % (uint64_t)(i + 1));
        int32_t t;
        t = out->atoms[i], out->atoms[i] = out->atoms[j], out->atoms[j] = t;
        t = out->voxels[i], out->voxels[i] = out->voxels[j], out->voxels[j] = t;
        t = out->fibers[i], out->fibers[i] = out->fibers[j], out->fibers[j] = t;
        double p = out->phi[i];
        out->phi[i] = out->phi[j], out->phi[j] = p;
    }
    for (size_t i = 0; i < (size_t)o->n_atoms * o->n_theta; ++i) out->dictionary[i] = 2 * life_rand_unit(&s) - 1;
    for (int32_t f = 0; f < o->n_fibers; ++f)
        wt[f] = life_rand_unit(&s) < o->zero_fraction ? 0 : 0.2 + life_rand_unit(&s);
    life_ref_dsc(out, wt, out->signal);
    for (size_t i = 0; i < (size_t)o->n_voxels * o->n_theta; ++i)
        out->signal[i] += o->noise * (2 * life_rand_unit(&s) - 1);
    if (w_true)
        *w_true = wt;
    else
        free(wt);
    return CLPK_SUCCESS;
}

/* The same SBB-NNLS iterations as clpk_life_fit (see lib/life/life_fit.c) in double precision on the host, for a fixed
 * number of iterations: the solver test compares iterates. w holds the start on entry (projected) and the result. */
void life_ref_fit(const clpk_life_dataset *data, int iterations, double *w, double *objective) {
    const size_t nw = (size_t)data->n_fibers, ny = (size_t)data->n_voxels * data->n_theta;
    double *g = malloc(nw * sizeof *g), *gt = malloc(nw * sizeof *gt), *atag = malloc(nw * sizeof *atag);
    double *r = malloc(ny * sizeof *r), *ag = malloc(ny * sizeof *ag);
    if (!g || !gt || !atag || !r || !ag) {
        *objective = NAN;
        goto done;
    }
    for (size_t i = 0; i < nw; ++i) w[i] = w[i] > 0 ? w[i] : 0;
    for (int iter = 0; iter <= iterations; ++iter) {
        if (iter > 0) {
            for (size_t i = 0; i < nw; ++i) gt[i] = (w[i] == 0 && g[i] > 0) ? 0 : g[i];
            life_ref_dsc(data, gt, ag);
            double num = 0, den = 0;
            if (iter % 2 == 0) {
                for (size_t i = 0; i < nw; ++i) num += gt[i] * gt[i];
                for (size_t i = 0; i < ny; ++i) den += ag[i] * ag[i];
            } else {
                for (size_t i = 0; i < ny; ++i) num += ag[i] * ag[i];
                life_ref_wc(data, ag, atag);
                for (size_t i = 0; i < nw; ++i) {
                    double v = (w[i] == 0 && g[i] > 0) ? 0 : atag[i];
                    den += v * v;
                }
            }
            double step = den > 0 ? num / den : 0;
            if (!isfinite(step)) step = 0;
            for (size_t i = 0; i < nw; ++i) {
                double v = w[i] - step * g[i];
                w[i] = v > 0 ? v : 0;
            }
        }
        life_ref_dsc(data, w, r);
        for (size_t i = 0; i < ny; ++i) r[i] -= data->signal[i];
        life_ref_wc(data, r, g);
    }
    double s = 0;
    for (size_t i = 0; i < ny; ++i) s += r[i] * r[i];
    *objective = 0.5 * s;
done:
    free(g), free(gt), free(atag), free(r), free(ag);
}
