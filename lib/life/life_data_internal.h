/* Internals of the LiFE data half shared by the dataset I/O, the synthetic generator, the encoder and the tests:
 * the orientation dictionary, gradient tables and the extended encoder entry point. Not installed. */
#ifndef CLPK_LIFE_DATA_INTERNAL_H
#define CLPK_LIFE_DATA_INTERNAL_H

#include "clpk_internal.h"
#include "clpk_life.h"

/* Orientations of the dictionary: n unit vectors on the upper hemisphere (z >= 0; a stick is symmetric, so u and -u
 * are the same atom), one per cell of an equal-area grid of polar-angle bands. Lookup of the cell holding a direction
 * is O(log bands), so the generator can afford fine dictionaries (the seed's data go up to ~10^5 atoms). */
typedef struct life_orientations {
    int n;            /* atoms */
    int n_bands;      /* polar-angle bands over [0, pi/2] */
    double *xyz;      /* n x 3 */
    int *band_start;  /* n_bands + 1: first atom of each band */
    double *band_cos; /* n_bands + 1: cos of each band's upper polar-angle edge (decreasing, 1 ... 0) */
} life_orientations;

clpk_status life_orientations_make(int n, life_orientations *out, clpk_error *err);
void life_orientations_free(life_orientations *o);
/* The atom whose grid cell holds direction d (need not be normalised, must be non-zero). */
int life_orientations_cell(const life_orientations *o, const double d[3]);
/* The atom nearest to direction d as an axis (largest |d.u|, ties to the lower index): exact, scanning only the
 * bands that can hold it (about sqrt(n) atoms). */
int life_orientations_nearest(const life_orientations *o, const double d[3]);

/* Diffusion-weighted directions of a gradient table (b0 volumes removed). */
typedef struct life_gradients {
    int n;        /* directions with b > threshold */
    double *g;    /* n x 3 unit vectors */
    double *b;    /* n: b-values in s/mm^2 */
    int n_volumes; /* all volumes of the table, b0 included */
    int *is_b0;   /* n_volumes */
} life_gradients;

/* Reads FSL bval (one row) and bvec (3 rows, or one row of 3 values per line) files; normalises non-b0 vectors and
 * refuses zero vectors with b > threshold, mismatched counts, NaN and negative b-values. */
clpk_status life_gradients_read(const char *bval_path, const char *bvec_path, double b0_threshold, life_gradients *out,
                                clpk_error *err);
/* n directions spread over the hemisphere (spherical Fibonacci lattice), all with b-value `b`. */
clpk_status life_gradients_make(int n, double b, life_gradients *out, clpk_error *err);
void life_gradients_free(life_gradients *g);

/* dictionary[a, i] = exp(-b_i * 1e-3 * (g_i . u_a)^2) minus its mean over i: the demeaned signal of a stick with
 * axial diffusivity 1e-3 mm^2/s (dipy's evals (0.001, 0, 0)). Returns a malloc'ed n_atoms x n_theta array. */
clpk_status life_dictionary_make(const life_orientations *o, const life_gradients *g, double **dictionary,
                                 clpk_error *err);

/* What the encoder knows besides the dataset: per voxel (in dataset order) its (i, j, k) index in the volume, the
 * mean b0 signal S0 and the mean of the S0-normalised diffusion-weighted signal that was removed before fitting. With
 * these a fit predicts the measured signal: S(v, i) = (y[v, i] + mean[v]) * S0[v]. */
typedef struct life_encode_extra {
    int32_t *voxel_ijk; /* n_voxels x 3 */
    double *s0;         /* n_voxels */
    double *mean;       /* n_voxels */
    double *measured;   /* n_voxels x n_volumes: the raw data of those voxels (all volumes, b0 included) */
    int32_t n_volumes;
    int32_t *is_b0;     /* n_volumes */
} life_encode_extra;

clpk_status life_encode_full(const char *nifti_path, const char *bval_path, const char *bvec_path,
                             const char *trk_path, const clpk_life_encode_options *opts, clpk_life_dataset *out,
                             life_encode_extra *extra, clpk_error *err);
void life_encode_extra_free(life_encode_extra *extra);

#endif
