/* Spherical harmonics for the diffusion-MRI pipeline of the SS-HOPM family (lib/sshopm_sh.c): the real symmetric
 * (even-degree) orthonormal basis, the map from its coefficients to the symmetric tensor of the same order, and
 * small dense solvers. Internal; the tests use it. */
#ifndef CLPK_SSHOPM_SH_H
#define CLPK_SSHOPM_SH_H

#include "clpk_internal.h"

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

#endif
