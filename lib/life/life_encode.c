/* The LiFE encoder for real data: a NIfTI diffusion volume, FSL bval/bvec and a TrackVis tractogram become a
 * dataset (Phi, D, demeaned signal). The mapping follows dipy's FiberModel, which is what the reference weights of
 * the shared test data were compared against:
 *   - streamline points go voxmm -> RAS mm (trk header, nibabel's convention) -> voxel (inverse NIfTI affine); a node
 *     belongs to the voxel of its rounded coordinates (round half to even, as numpy);
 *   - a node's orientation is the gradient of the streamline there (central differences, one-sided at the ends) in
 *     voxel coordinates, quantised to the nearest dictionary orientation;
 *   - phi(v, f, a) = number of nodes of fibre f in voxel v with orientation a (dipy sums the nodes' signals);
 *   - D[a, :] = exp(-b 1e-3 (g.u_a)^2) minus its mean over the directions (a stick, evals (0.001, 0, 0));
 *   - signal[v, :] = S(v, :)/S0(v) minus its mean over the directions, S0 = mean of the b0 volumes. */
#include "io_nifti.h"
#include "io_trk.h"
#include "life_data_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void life_encode_extra_free(life_encode_extra *e) {
    if (!e) return;
    free(e->voxel_ijk);
    free(e->s0);
    free(e->mean);
    free(e->measured);
    free(e->is_b0);
    memset(e, 0, sizeof *e);
}

static int invert_affine(const double A[4][4], double inv[4][4]) {
    /* inverse of [R t; 0 1] = [R^-1, -R^-1 t; 0 1] */
    double det = A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
                 A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
    if (!(fabs(det) > 1e-300)) return 0;
    double r[3][3];
    r[0][0] = (A[1][1] * A[2][2] - A[1][2] * A[2][1]) / det;
    r[0][1] = (A[0][2] * A[2][1] - A[0][1] * A[2][2]) / det;
    r[0][2] = (A[0][1] * A[1][2] - A[0][2] * A[1][1]) / det;
    r[1][0] = (A[1][2] * A[2][0] - A[1][0] * A[2][2]) / det;
    r[1][1] = (A[0][0] * A[2][2] - A[0][2] * A[2][0]) / det;
    r[1][2] = (A[0][2] * A[1][0] - A[0][0] * A[1][2]) / det;
    r[2][0] = (A[1][0] * A[2][1] - A[1][1] * A[2][0]) / det;
    r[2][1] = (A[0][1] * A[2][0] - A[0][0] * A[2][1]) / det;
    r[2][2] = (A[0][0] * A[1][1] - A[0][1] * A[1][0]) / det;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) inv[i][j] = r[i][j];
        inv[i][3] = -(r[i][0] * A[0][3] + r[i][1] * A[1][3] + r[i][2] * A[2][3]);
    }
    inv[3][0] = inv[3][1] = inv[3][2] = 0.0;
    inv[3][3] = 1.0;
    return 1;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct encoder {
    nifti_file vol;
    life_gradients grad;
    trk_file trk;
    life_orientations orient;
    int32_t *voxel_id; /* nx*ny*nz, indexed (i*ny + j)*nz + k: compact voxel or -1 */
    uint64_t *keys;    /* per-fibre scratch: (voxel key << 32) | atom */
    int64_t *node_key; /* n_points: voxel key of every node */
    int32_t *node_atom;
} encoder;

static void encoder_free(encoder *E) {
    nifti_file_free(&E->vol);
    life_gradients_free(&E->grad);
    trk_file_free(&E->trk);
    life_orientations_free(&E->orient);
    free(E->voxel_id);
    free(E->keys);
    free(E->node_key);
    free(E->node_atom);
}

/* Maps every node to its voxel key and orientation atom; refuses nodes outside the volume. */
static clpk_status map_nodes(encoder *E, const char *trk_path, clpk_error *err) {
    double to_rasmm[4][4], to_vox[4][4], P[4][4];
    clpk_error inner = {0};
    if (trk_file_voxmm_to_rasmm(&E->trk, to_rasmm, &inner) != CLPK_SUCCESS)
        return core_error_set(err, inner.status, "%s: %s", trk_path, inner.message);
    if (!invert_affine(E->vol.affine, to_vox))
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "NIfTI affine is singular");
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += to_vox[r][k] * to_rasmm[k][c];
            P[r][c] = s;
        }
    const trk_file *t = &E->trk;
    E->node_key = malloc((size_t)(t->n_points > 0 ? t->n_points : 1) * sizeof *E->node_key);
    E->node_atom = malloc((size_t)(t->n_points > 0 ? t->n_points : 1) * sizeof *E->node_atom);
    int64_t max_nodes = 1; /* voxel coordinates of one streamline at a time */
    for (int64_t s = 0; s < t->n_streamlines; s++)
        if (t->offsets[s + 1] - t->offsets[s] > max_nodes) max_nodes = t->offsets[s + 1] - t->offsets[s];
    double *xyz = malloc((size_t)max_nodes * 3 * sizeof *xyz);
    if (!E->node_key || !E->node_atom || !xyz) {
        free(xyz);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", trk_path);
    }
    const int64_t dims[3] = {E->vol.nx, E->vol.ny, E->vol.nz};
    clpk_status st = CLPK_SUCCESS;
    for (int64_t s = 0; s < t->n_streamlines && st == CLPK_SUCCESS; s++) {
        int64_t first = t->offsets[s], m = t->offsets[s + 1] - first;
        if (m < 2) {
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                "%s: streamline %lld has %lld node(s); LiFE needs at least 2 to orient a fascicle",
                                trk_path, (long long)s, (long long)m);
            break;
        }
        for (int64_t n = first; n < first + m; n++) {
            const float *p = t->points + 3 * n;
            int64_t idx[3];
            for (int r = 0; r < 3; r++) {
                double x = P[r][0] * p[0] + P[r][1] * p[1] + P[r][2] * p[2] + P[r][3];
                xyz[3 * (n - first) + r] = x;
                double rounded = nearbyint(x); /* half to even under the default rounding mode, as numpy */
                idx[r] = (rounded >= 0 && rounded < (double)dims[r]) ? (int64_t)rounded : -1;
            }
            if (idx[0] < 0 || idx[1] < 0 || idx[2] < 0) {
                st = core_error_set(
                    err, CLPK_ERROR_INVALID_DATA,
                    "%s: streamline %lld node %lld at voxel (%.2f, %.2f, %.2f) lies outside the %lldx%lldx%lld "
                    "volume",
                    trk_path, (long long)s, (long long)(n - first), xyz[3 * (n - first)], xyz[3 * (n - first) + 1],
                    xyz[3 * (n - first) + 2], (long long)dims[0], (long long)dims[1], (long long)dims[2]);
                break;
            }
            E->node_key[n] = (idx[0] * dims[1] + idx[1]) * dims[2] + idx[2];
        }
        for (int64_t i = 0; i < m && st == CLPK_SUCCESS; i++) {
            const double *a = xyz + 3 * (i > 0 ? i - 1 : 0);
            const double *b = xyz + 3 * (i < m - 1 ? i + 1 : m - 1);
            double scale = (i > 0 && i < m - 1) ? 0.5 : 1.0;
            double d[3] = {(b[0] - a[0]) * scale, (b[1] - a[1]) * scale, (b[2] - a[2]) * scale};
            E->node_atom[first + i] = life_orientations_nearest(&E->orient, d);
        }
    }
    free(xyz);
    return st;
}

static clpk_status build_phi(encoder *E, const clpk_life_encode_options *o, clpk_life_dataset *d,
                             life_encode_extra *extra, clpk_error *err) {
    const trk_file *t = &E->trk;
    const nifti_file *v = &E->vol;
    int64_t n_vox_all = (int64_t)v->nx * v->ny * v->nz;
    if (n_vox_all >= INT32_MAX)
        return core_error_set(err, CLPK_ERROR_UNSUPPORTED, "encoder: volume of %lld voxels is too large",
                              (long long)n_vox_all);
    E->voxel_id = malloc((size_t)n_vox_all * sizeof *E->voxel_id);
    if (!E->voxel_id) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "encoder: out of memory");
    for (int64_t k = 0; k < n_vox_all; k++) E->voxel_id[k] = o->use_mask ? -1 : 0;
    for (int64_t n = 0; n < t->n_points; n++) E->voxel_id[E->node_key[n]] = 0;
    int32_t nv = 0;
    for (int64_t k = 0; k < n_vox_all; k++)
        if (E->voxel_id[k] == 0) E->voxel_id[k] = nv++;
        else E->voxel_id[k] = -1;
    if (nv == 0) return core_error_set(err, CLPK_ERROR_INVALID_DATA, "encoder: the tractogram has no streamlines");

    /* coefficients: per fibre, sort its (voxel, atom) node keys and count runs */
    int64_t max_nodes = 0;
    for (int64_t s = 0; s < t->n_streamlines; s++)
        if (t->offsets[s + 1] - t->offsets[s] > max_nodes) max_nodes = t->offsets[s + 1] - t->offsets[s];
    E->keys = malloc((size_t)(max_nodes > 0 ? max_nodes : 1) * sizeof *E->keys);
    size_t cap = (size_t)(t->n_points > 0 ? t->n_points : 1); /* at most one coefficient per node */
    d->atoms = malloc(cap * sizeof *d->atoms);
    d->voxels = malloc(cap * sizeof *d->voxels);
    d->fibers = malloc(cap * sizeof *d->fibers);
    d->phi = malloc(cap * sizeof *d->phi);
    if (!E->keys || !d->atoms || !d->voxels || !d->fibers || !d->phi)
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "encoder: out of memory");
    int64_t nc = 0;
    for (int64_t s = 0; s < t->n_streamlines; s++) {
        int64_t first = t->offsets[s], m = t->offsets[s + 1] - first;
        for (int64_t i = 0; i < m; i++)
            E->keys[i] = (uint64_t)E->node_key[first + i] << 32 | (uint32_t)E->node_atom[first + i];
        qsort(E->keys, (size_t)m, sizeof *E->keys, compare_u64);
        for (int64_t i = 0; i < m;) {
            int64_t j = i;
            while (j < m && E->keys[j] == E->keys[i]) j++;
            d->voxels[nc] = E->voxel_id[E->keys[i] >> 32];
            d->atoms[nc] = (int32_t)(E->keys[i] & 0xffffffffu);
            d->fibers[nc] = (int32_t)s;
            d->phi[nc] = (double)(j - i);
            nc++;
            i = j;
        }
    }
    d->n_coeffs = nc;
    d->n_voxels = nv;
    d->n_fibers = (int32_t)t->n_streamlines;
    d->n_atoms = E->orient.n;
    d->n_theta = E->grad.n;

    /* signal: S0-normalised diffusion-weighted data, demeaned per voxel */
    const int nt = v->nt, ndw = E->grad.n;
    d->signal = malloc((size_t)nv * ndw * sizeof *d->signal);
    d->voxel_ijk = malloc((size_t)nv * 3 * sizeof *d->voxel_ijk);
    if (!d->signal || !d->voxel_ijk) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "encoder: out of memory");
    if (extra) {
        extra->n_volumes = nt;
        extra->voxel_ijk = malloc((size_t)nv * 3 * sizeof *extra->voxel_ijk);
        extra->s0 = malloc((size_t)nv * sizeof *extra->s0);
        extra->mean = malloc((size_t)nv * sizeof *extra->mean);
        extra->measured = malloc((size_t)nv * nt * sizeof *extra->measured);
        extra->is_b0 = malloc((size_t)nt * sizeof *extra->is_b0);
        if (!extra->voxel_ijk || !extra->s0 || !extra->mean || !extra->measured || !extra->is_b0)
            return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "encoder: out of memory");
        for (int q = 0; q < nt; q++) extra->is_b0[q] = E->grad.is_b0[q];
    }
    const int64_t vol_stride = n_vox_all;
    for (int64_t key = 0; key < n_vox_all; key++) {
        int32_t id = E->voxel_id[key];
        if (id < 0) continue;
        int64_t i = key / ((int64_t)v->ny * v->nz), j = (key / v->nz) % v->ny, k = key % v->nz;
        int64_t lin = i + (int64_t)v->nx * (j + (int64_t)v->ny * k); /* NIfTI order: x fastest */
        double s0 = 0;
        int n0 = 0, q_dw = 0;
        for (int q = 0; q < nt; q++)
            if (E->grad.is_b0[q]) s0 += v->data[lin + q * vol_stride], n0++;
        s0 /= n0;
        double *row = d->signal + (size_t)id * ndw, mean = 0;
        for (int q = 0; q < nt; q++) {
            if (E->grad.is_b0[q]) continue;
            row[q_dw] = v->data[lin + q * vol_stride] / s0;
            mean += row[q_dw++];
        }
        mean /= ndw;
        int ok = isfinite(mean) && s0 > 0;
        for (int q = 0; q < ndw; q++) row[q] = ok ? row[q] - mean : 0.0; /* no usable S0: the voxel cannot be fitted */
        d->voxel_ijk[3 * (size_t)id] = (int32_t)i; /* the grid position, for spatial processing orders */
        d->voxel_ijk[3 * (size_t)id + 1] = (int32_t)j;
        d->voxel_ijk[3 * (size_t)id + 2] = (int32_t)k;
        if (extra) {
            extra->voxel_ijk[3 * id] = (int32_t)i;
            extra->voxel_ijk[3 * id + 1] = (int32_t)j;
            extra->voxel_ijk[3 * id + 2] = (int32_t)k;
            extra->s0[id] = s0;
            extra->mean[id] = ok ? mean : 0.0;
            for (int q = 0; q < nt; q++) extra->measured[(size_t)id * nt + q] = v->data[lin + q * vol_stride];
        }
    }
    return life_dictionary_make(&E->orient, &E->grad, &d->dictionary, err);
}

clpk_status life_encode_full(const char *nifti_path, const char *bval_path, const char *bvec_path,
                             const char *trk_path, const clpk_life_encode_options *opts, clpk_life_dataset *out,
                             life_encode_extra *extra, clpk_error *err) {
    if (!nifti_path || !bval_path || !bvec_path || !trk_path || !out)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_life_encode: NULL argument");
    memset(out, 0, sizeof *out);
    if (extra) memset(extra, 0, sizeof *extra);
    clpk_life_encode_options o = {.n_atoms = 360, .b0_threshold = 50.0, .use_mask = 1};
    if (opts) o = *opts;
    if (o.n_atoms < 1 || o.n_atoms > 1000000 || !(o.b0_threshold >= 0) || (o.use_mask != 0 && o.use_mask != 1))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "clpk_life_encode: bad options (n_atoms %d in 1..1e6, b0_threshold %g >= 0, use_mask %d "
                              "0 or 1)",
                              o.n_atoms, o.b0_threshold, o.use_mask);
    encoder E;
    memset(&E, 0, sizeof E);
    clpk_status st = nifti_file_read(nifti_path, &E.vol, err);
    if (st == CLPK_SUCCESS) st = life_gradients_read(bval_path, bvec_path, o.b0_threshold, &E.grad, err);
    if (st == CLPK_SUCCESS && E.grad.n_volumes != E.vol.nt)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: %d b-values, but %s has %d volumes", bval_path,
                            E.grad.n_volumes, nifti_path, (int)E.vol.nt);
    if (st == CLPK_SUCCESS && E.grad.n == E.grad.n_volumes)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: no b0 volume (b <= %g) to normalise the signal with",
                            bval_path, o.b0_threshold);
    if (st == CLPK_SUCCESS) st = trk_file_read(trk_path, &E.trk, err);
    if (st == CLPK_SUCCESS && E.trk.n_streamlines == 0)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: no streamlines", trk_path);
    if (st == CLPK_SUCCESS && E.trk.n_streamlines >= INT32_MAX)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: too many streamlines", trk_path);
    if (st == CLPK_SUCCESS) st = life_orientations_make(o.n_atoms, &E.orient, err);
    if (st == CLPK_SUCCESS) st = map_nodes(&E, trk_path, err);
    if (st == CLPK_SUCCESS) st = build_phi(&E, &o, out, extra, err);
    if (st == CLPK_SUCCESS) st = clpk_life_dataset_validate(out, err);
    encoder_free(&E);
    if (st != CLPK_SUCCESS) {
        clpk_life_dataset_free(out);
        if (extra) life_encode_extra_free(extra);
    }
    return st;
}

clpk_status clpk_life_encode(const char *nifti_path, const char *bval_path, const char *bvec_path,
                             const char *trk_path, const clpk_life_encode_options *opts, clpk_life_dataset *out,
                             clpk_error *err) {
    return life_encode_full(nifti_path, bval_path, bvec_path, trk_path, opts, out, NULL, err);
}
