/* Spherical harmonics for the diffusion-MRI pipeline of the SS-HOPM family (lib/sshopm/sshopm_sh.c): the real symmetric
 * (even-degree) orthonormal basis, the map from its coefficients to the symmetric tensor of the same order, and
 * small dense solvers. Internal; the tests use it. */
#ifndef CLPK_SSHOPM_SH_H
#define CLPK_SSHOPM_SH_H

#include "clpk_internal.h"
#include "clpk_sshopm.h"
#include "sshopm_internal.h"

#define SSHOPM_SH_MAX_ORDER 8
#define SSHOPM_SH_MAX_COEFFS 45 /* (8/2 + 1)(8 + 1) */

/* Number of even-degree real harmonics up to order L (even, 0..8): (L/2 + 1)(L + 1); 0 when L is invalid. */
int sshopm_sh_count(int L);
/* Degree l of each coefficient, in the basis order: l = 0, 2, ..., L; within a degree m = -l .. l. */
void sshopm_sh_degrees(int L, int *l);
/* Values of the R basis functions at the unit vector x:
 * Y_l0 = N_l0 P_l(z), Y_lm = sqrt(2) N_lm P_l^m(z) cos(m phi) (m > 0), sin(|m| phi) (m < 0), N_lm^2 = (2l+1)/(4 pi)
 * (l-m)!/(l+m)!, evaluated as polynomials in x, y, z (no angles). Orthonormal on the sphere. */
void sshopm_sh_eval(int L, const double *x, double *y);

/* C (U x R, row-major) with a = C psi: the unique entries (dimension 3, order m = L, lexicographic) of the tensor
 * whose form a x^m equals sum_r psi_r Y_r(x) on the sphere. Exact (a degree-m form restricted to the sphere spans the
 * even harmonics up to m, and U = R): least squares on a sphere sampling, in double. */
clpk_status sshopm_sh_to_tensor(int order, double *C, clpk_error *err);

/* Spherical mean of a x^m (dimension 3, even m) and the unique entries of (x . x)^(m/2), which equals 1 on the
 * sphere. */
double sshopm_tensor_sphere_mean(int order, const double *a);
void sshopm_tensor_isotropic(int order, double *iso);

/* Solves the symmetric positive definite system A x = B (A n x n, B n x k, row-major; both overwritten, the
 * solution in B) by Cholesky. Returns 0 when A is not positive definite. */
int sshopm_spd_solve(int n, double *A, int k, double *B);
/* Least squares min ||A x - B|| (A rows x n, B rows x k, rows >= n, row-major; both overwritten, x in the first n
 * rows of B) by Householder QR. Returns 0 when A is rank deficient (a diagonal entry of R below 1e-12 max). */
int sshopm_lsq_solve(int rows, int n, double *A, int k, double *B);

/* The CSA fit folded with the peaks' normalisation, for the device pipeline (lib/sshopm/sshopm_scan_device.c): with y_k =
 * log(-log E_k) of the used diffusion-weighted volumes, rows 0..U-1 of M y + c are the ODF tensor minus its spherical
 * mean times the isotropic tensor, row U is that mean. Built once in double from the model's W and a0. */
typedef struct sshopm_odf_linear {
    int order, U, n_dw, n_b0, volumes;
    double *M; /* n_dw x (U + 1): column k of the map stored contiguously (a work-item streams over k) */
    double c[SSHOPM_SH_MAX_COEFFS + 1];
    int *dw_volume; /* n_dw: the scan volume of each column */
    int *b0_volume; /* n_b0 */
} sshopm_odf_linear;
clpk_status sshopm_odf_linear_build(const clpk_sshopm_odf_model *m, sshopm_odf_linear *out, clpk_error *err);
void sshopm_odf_linear_free(sshopm_odf_linear *l);

/* The sphere sampling of the peaks' ODF minimum (dipy: over its sphere's vertices): S points of
 * sshopm_make_starts(SPHERE), samples[s * U + u] = mult_u x_s^(class u), so f(x_s) = samples[s] . a. */
#define SSHOPM_PEAK_SAMPLES 200
void sshopm_peak_samples(const sshopm_index *idx, double *samples);

/* dipy's selection rules on one tensor's pairs (sorted by lambda, descending): `a` the normalised tensor (mean removed,
 * unit Frobenius norm), mean and scale undo that; writes up to o->max_peaks dirs (x3) and values, and *count. */
void sshopm_select_peaks(const clpk_sshopm_peak_options *o, const sshopm_index *idx, const double *samples,
                         const double *a, double mean, double scale, const clpk_sshopm_tensor_result *tr, float *dirs,
                         float *values, int32_t *count);

/* clpk_sshopm_tensor_peaks that also adds its preparation, SS-HOPM and selection times to `times` (may be NULL). */
clpk_status sshopm_tensor_peaks_timed(clpk_context *ctx, int order, const double *tensors, int64_t voxels,
                                      const uint8_t *active, const clpk_sshopm_peak_options *opts,
                                      clpk_sshopm_peaks *out, clpk_sshopm_scan_times *times);

/* The device pipeline of clpk_sshopm_dmri_scan for a read scan: `signal` volumes x voxels (x fastest within a volume,
 * as read), `active` NULL or per voxel. Fills out (allocated here) and adds its stage times. */
clpk_status sshopm_scan_device(clpk_context *ctx, const clpk_sshopm_odf_model *model, const double *signal,
                               int64_t voxels, const uint8_t *active, const clpk_sshopm_peak_options *opts,
                               clpk_sshopm_peaks *out, int64_t *voxels_fitted, clpk_sshopm_scan_times *times);

#endif
