/* SS-HOPM family internals shared by lib/sshopm_*.c, the tuner space and the tests (not installed). */
#ifndef CLPK_SSHOPM_INTERNAL_H
#define CLPK_SSHOPM_INTERNAL_H

#include "clpk_internal.h"
#include "param_table.h"

#define SSHOPM_MIN_ORDER 2
#define SSHOPM_MAX_ORDER 8
#define SSHOPM_MIN_DIM 2
#define SSHOPM_MAX_DIM 8

/* Index tables of the compressed symmetric storage of one (m, n): class u has the nondecreasing index
 * representation rep[u*m .. u*m+m-1] (0-based), the monomial representation mono[u*n .. u*n+n-1] (counts of each
 * index) and the multinomial mult[u] = m! / prod k_i! (how many dense entries share the value). */
typedef struct sshopm_index {
    int m, n, U;
    uint8_t *rep;
    uint8_t *mono;
    double *mult;
} sshopm_index;

/* C(m+n-1, m) for valid (m, n), else 0. */
int sshopm_unique_count(int m, int n);
/* Number of nondecreasing tuples of length `len` over `values` symbols: C(values+len-1, len). */
int64_t sshopm_multiset_count(int values, int len);
/* Rank of a nondecreasing 0-based index tuple of length m over n symbols in lexicographic order. */
int sshopm_rank(int m, int n, const int *rep);
/* Rank of the class with monomial counts k[0..n-1] (sum m). */
int sshopm_rank_mono(int m, int n, const int *k);
clpk_status sshopm_index_build(int m, int n, sshopm_index *out, clpk_error *err);
void sshopm_index_free(sshopm_index *idx);

/* ---- Double-precision CPU reference --------------------------------------------------------------------------- */

/* y = A x^(m-1) (n values); returns A x^m = x . y. */
double sshopm_ref_gradient(const sshopm_index *idx, const double *a, const double *x, double *y);
/* H = A x^(m-2) (n x n, row-major, symmetric). */
void sshopm_ref_hessian(const sshopm_index *idx, const double *a, const double *x, double *h);
/* Frobenius norm of the dense tensor: sqrt(sum_u mult_u a_u^2). */
double sshopm_ref_frobenius(const sshopm_index *idx, const double *a);
/* The convergence-guaranteeing shift bound (m-1) ||A||_F >= beta(A) (docs/sshopm.md). */
double sshopm_shift_bound(const sshopm_index *idx, const double *a);
/* Symmetric eigenvalues of an n x n row-major matrix (Jacobi; n <= 8), ascending; `h` is destroyed. If `vectors` is
 * not NULL it receives the eigenvectors as columns (row-major n x n). */
void sshopm_sym_eig(int n, double *h, double *values, double *vectors);

/* One SS-HOPM run of the reference from unit x (overwritten with the result). direction +1 (convex) / -1 (concave);
 * shift_mode as the public enum; returns the status code; *lambda and *iterations are filled. The adaptive shift
 * falls back to the bound shift for the rest of the run once lambda drops by more than drop_eps ||A||_F in one step
 * (sshopm_ref_run: the f64 kernels' threshold; pass SSHOPM_DROP_EPS_F32 to follow an f32 kernel). */
int sshopm_ref_run(const sshopm_index *idx, const double *a, double *x, int direction, int shift_mode, double alpha,
                   double tol, double xtol, int max_iter, int check_every, double *lambda, int *iterations);
int sshopm_ref_run_drop(const sshopm_index *idx, const double *a, double *x, int direction, int shift_mode,
                        double alpha, double tol, double xtol, int max_iter, int check_every, double drop_eps,
                        double *lambda, int *iterations);
/* SSHOPM_DROP_EPS of cl/sshopm_common.cl: 1024 ulps of the kernel's value type. */
#define SSHOPM_DROP_EPS_F32 1.220703125e-4         /* 2^-13 */
#define SSHOPM_DROP_EPS_F64 2.2737367544323206e-13 /* 2^-42 */
/* SSHOPM_LAST_SLACK of cl/sshopm_common.cl: the block test's last iteration may step up to this times tol. */
#define SSHOPM_LAST_SLACK 8

/* The starts generator shared by host and kernel: component i of start s of tensor t (t = 0 for shared starts),
 * uniform on [-1, 1) with 24 random bits (exact in float). Normalised by the caller. */
double sshopm_start_component(uint64_t seed, int64_t t, int s, int i, int n);
/* Fills V x n unit starts: shared random (t = 0 of the generator) or evenly spread on the sphere. */
clpk_status sshopm_make_starts(int n, int V, int kind, uint64_t seed, double *starts, clpk_error *err);

/* ---- Plans (lib/sshopm/sshopm_plan.c; the device post-processing in lib/sshopm/sshopm_reduce.c uses the same object)
 * ------- */

#include "clpk_sshopm.h"

/* The parameters of a plan as sshopm_param_table (sshopm_params.c) reads them: kernel and entries hold the index of
 * their name in the table (the entries' index is the kernels' SSHOPM_ENTRIES). */
enum { KERNEL_GENERATED = 0, KERNEL_GENERAL = 1, KERNEL_AUTO = 2 };
enum { ENTRIES_LOCAL = 0, ENTRIES_GLOBAL = 1, ENTRIES_PRIVATE = 2, ENTRIES_AUTO = 3 };

typedef struct sshopm_config {
    int kernel, entries, wg, check_every, unroll_max, private_max;
} sshopm_config;

extern const core_param_table sshopm_param_table;
/* The table's built-in defaults for a device kind. */
void sshopm_config_defaults(clpk_device_kind kind, sshopm_config *c);

struct clpk_sshopm_plan {
    clpk_context *ctx;
    sshopm_index idx;
    clpk_precision precision;
    int64_t max_tensors;
    clpk_sshopm_options opts;
    int generated, entries, wg, check_every; /* the resolved parameters (entries: ENTRIES_*, never auto) */
    int directions, direction[2];
    cl_kernel kernel;
    cl_kernel reduce_kernel; /* built on first use of clpk_sshopm_reduce */
    cl_mem rep, gcoef, mult, starts;
    int fixed_iterations; /* benchmarks: 1 passes tol = -1, so every start runs max_iter iterations (checks kept) */
    double tol_floor;     /* default tol: raised per tensor to tol_floor ||A||_F (2 ulps; 0 when the caller set tol) */
};

/* ---- Code generation ------------------------------------------------------------------------------------------ */

/* Fused-multiply-add count of one unrolled gradient: n * C(m+n-2, m-1). */
int64_t sshopm_unrolled_terms(int m, int n);
/* Returns the malloc'ed OpenCL C text of the unrolled kernel `clpk_sshopm_unrolled` for (m, n), to be prefixed by
 * cl/sshopm_common.cl and built with the plan's -D options. NULL on allocation failure. */
char *sshopm_generate_unrolled(const sshopm_index *idx);

/* Operations counted by the generator as it emits them (per start-iteration). */
typedef struct sshopm_op_counts {
    int64_t fma, mul, add; /* fused multiply-adds, multiplies, adds/subtractions */
    int64_t special;       /* rsqrt */
    int64_t other;         /* fabs/fmax (not flops) */
    double flops;          /* 2 fma + mul + add (filled by sshopm_iteration_ops) */
} sshopm_op_counts;

/* The same text as sshopm_generate_unrolled; counts (may be NULL) receives the gradient's operations (plus the
 * lambda dot product) with private entries in counts[0] and with local/global entries in counts[1]. */
char *sshopm_generate_unrolled_counted(const sshopm_index *idx, sshopm_op_counts counts[2]);

/* Exact operations of one start-iteration of the generated kernel (gradient as emitted + lambda + the driver's
 * shift/normalise/update/step), fixed or bound shift, for GFLOP/s and % of FMA peak. */
clpk_status sshopm_iteration_ops(int m, int n, int private_entries, sshopm_op_counts *ops);

/* sshopm_iteration_ops(m, n, private)'s flops: the generated kernel's arithmetic per iteration, for GFLOP/s. */
double sshopm_iteration_flops(int m, int n);

/* A capped start (lambda, x from the device) in post-processing: up to o->capped_steps Newton steps in double; if
 * they reach an eigenpair (residual <= 1e-9 ||A||_F) it joins the matching pair among pairs[0 .. *count - 1] (hits)
 * or is appended, classified (room for one more is the caller's). Returns 1 if it reached an eigenpair. */
int sshopm_add_capped(const sshopm_index *idx, const double *a, const clpk_sshopm_post_options *o, double lambda,
                      const double *x, clpk_sshopm_eigenpair *pairs, int *count);

/* The pair among pairs[0 .. count - 1] that (lambda, x) belongs to under o's tolerances (x with canonical sign for
 * even m; x and -x match then), or -1: clpk_sshopm_postprocess's clustering rule. */
int sshopm_find_cluster(const clpk_sshopm_eigenpair *pairs, int count, int n, int even,
                        const clpk_sshopm_post_options *o, double lambda, const double *x);

/* The default tolerances (tol, lambda_tol, class_tol) are absolute below |lambda| = 1: a tensor far below unit norm
 * would stop at once and come back as many degenerate pairs; far above it, f32 squares overflow. The solve functions
 * take tensors of ||A||_F outside [SSHOPM_UNIT_NORM_BELOW, SSHOPM_UNIT_NORM_ABOVE] scaled to unit norm and scale
 * their results back. */
#define SSHOPM_UNIT_NORM_BELOW 0.5
#define SSHOPM_UNIT_NORM_ABOVE 0x1p50

/* ||A||_F of a tensor to be solved at unit norm (outside that range), else 1. */
double sshopm_unit_scale(const sshopm_index *idx, const double *a);

/* *scaled: a copy of the tensors with those outside that range at unit norm, and *scales their norms (1 for the
 * others); both NULL when no tensor needs it (free both). */
clpk_status sshopm_scale_to_unit(const sshopm_index *idx, const double *tensors, int64_t n_tensors, double **scaled,
                                 double **scales, clpk_error *err);

/* lambda and residual of every pair of tensor t times scales[t]. */
void sshopm_unscale_result(clpk_sshopm_result *r, const double *scales);

/* Solves the small dense system M x = b in place (b receives x; M is destroyed) by Gaussian elimination with
 * partial pivoting; 0 when (numerically) singular. Shared by the Newton polish and the dMRI fibre fit. */
int sshopm_solve_small(int p, double *M, double *b);

/* Begins kernel k's arguments with those the solve and the reduction share: the tensor count, starts per tensor, n,
 * m, U, the index tables and the tensors. */
void sshopm_args_begin(core_args *a, clpk_sshopm_plan *plan, cl_kernel k, int64_t n_tensors, cl_mem tensors);

#endif
