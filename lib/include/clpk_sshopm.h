/* clpk sshopm family: real eigenpairs (lambda, x), A x^(m-1) = lambda x, ||x|| = 1, of many small symmetric tensors
 * of order m and dimension n (2 <= m, n <= 8) by the shifted symmetric higher-order power method (SS-HOPM) from
 * many starts per tensor, then de-duplication and classification of what the starts reached.
 *
 * Storage: a tensor is its U = C(m+n-1, m) unique entries in lexicographic order of the nondecreasing index
 * (0-based: (0,0,0,0), (0,0,0,1), ..., (n-1,...,n-1)); a batch is T x U values, tensor after tensor.
 *
 * Typical use:
 *   clpk_sshopm_options o; clpk_sshopm_options_default(&o);
 *   clpk_sshopm_plan *plan; clpk_sshopm_plan_create(ctx, 4, 3, CLPK_PRECISION_F32, T, &o, &plan);
 *   clpk_sshopm_result r; clpk_sshopm_solve_host(plan, tensors, T, NULL, &r);   // eigenpairs per tensor
 *   ... r.tensors[t].pairs[i].lambda ...; clpk_sshopm_result_free(&r); clpk_sshopm_plan_destroy(plan);
 * or clpk_sshopm_solve_device(...) to de-duplicate on the device (large batches), or, on device buffers,
 * clpk_sshopm_execute(...) then clpk_sshopm_reduce(...) (device) or clpk_sshopm_postprocess (host copies). */
#ifndef CLPK_SSHOPM_H
#define CLPK_SSHOPM_H

#include "clpk_export.h"
#include "clpk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLPK_SSHOPM_MAX_DIM 8

/* Number of unique entries C(m+n-1, m) for 2 <= m, n <= 8, else 0. */
CLPK_API int clpk_sshopm_unique_count(int order, int dim);

typedef enum clpk_sshopm_find {
    CLPK_SSHOPM_FIND_MAX = 1, /* convex shift: local maxima of A x^m on the sphere */
    CLPK_SSHOPM_FIND_MIN = 2, /* concave shift: local minima */
    CLPK_SSHOPM_FIND_BOTH = 3 /* both runs, results merged */
} clpk_sshopm_find;

typedef enum clpk_sshopm_shift {
    CLPK_SSHOPM_SHIFT_BOUND = 0, /* per tensor alpha = +-(m-1)||A||_F >= beta(A): convergence guaranteed, but often
                                 * so large that it is slow (starts end capped) */
    CLPK_SSHOPM_SHIFT_FIXED = 1, /* alpha as given: >= 0 finds maxima, < 0 minima (alpha = 0 may not converge) */
    CLPK_SSHOPM_SHIFT_ADAPTIVE = 2 /* default: per iteration, from the Gershgorin bound of A x^(m-2)'s extreme
                                    * eigenvalue (Kolda-Mayo 2014, GEAP), lambda monotone; a start whose lambda drops
                                    * anyway continues with the bound shift */
} clpk_sshopm_shift;

typedef enum clpk_sshopm_starts {
    CLPK_SSHOPM_STARTS_SHARED = 0,     /* uniform on [-1,1]^n normalised, seeded, the same V starts for every tensor */
    CLPK_SSHOPM_STARTS_PER_TENSOR = 1, /* the same generator, different starts per tensor (made in the kernel) */
    CLPK_SSHOPM_STARTS_SPHERE = 2      /* evenly spread on the sphere (lattice for n <= 3, repelled points above) */
} clpk_sshopm_starts;

/* Outcome of one start; the device writes info = status | iterations << 2 per start. */
typedef enum clpk_sshopm_start_status {
    CLPK_SSHOPM_CONVERGED = 0, /* |dlambda| <= tol (and max |dx| <= xtol when set) at a check */
    CLPK_SSHOPM_CAPPED = 1,    /* max_iter reached first */
    CLPK_SSHOPM_FAILED = 2     /* the iterate vanished or became NaN/Inf */
} clpk_sshopm_start_status;
#define CLPK_SSHOPM_INFO_STATUS(info) ((info) & 3)
#define CLPK_SSHOPM_INFO_ITERATIONS(info) ((info) >> 2)

typedef struct clpk_sshopm_options {
    int starts;                     /* V starts per tensor and direction (default 128) */
    clpk_sshopm_starts starts_kind; /* default CLPK_SSHOPM_STARTS_SHARED */
    uint64_t seed;                  /* of the random starts (default 1) */
    clpk_sshopm_find find;          /* default CLPK_SSHOPM_FIND_MAX */
    clpk_sshopm_shift shift;        /* default CLPK_SSHOPM_SHIFT_ADAPTIVE */
    double alpha;                   /* CLPK_SSHOPM_SHIFT_FIXED: its sign must agree with `find` (|alpha| for BOTH) */
    double tol;                     /* |dlambda| tolerance; 0: 1e-6 (f32) or 1e-12 (f64), raised per tensor to 2 ulps
                                     * of ||A||_F (lambda's rounding level) */
    double xtol;                    /* also require max |dx| <= xtol (0: off, the default) */
    int max_iter;                   /* iteration cap (default 1000) */
    const char *kernel;             /* NULL/"auto", "general" (loop kernel) or "generated" (unrolled per (m, n)) */
    const char *params;             /* NULL or "k=v,..." overrides (clpk_family_parameters("sshopm")) */
} clpk_sshopm_options;

CLPK_API void clpk_sshopm_options_default(clpk_sshopm_options *opts);

/* ---- Plans -------------------------------------------------------------------------------------------------- */

typedef struct clpk_sshopm_plan clpk_sshopm_plan;

/* Chooses the kernel and mapping for (order, dim, precision) and batches of up to max_tensors tensors (profile, then
 * the caller's params), generates/builds the kernel, uploads index tables and shared starts. opts may be NULL. */
CLPK_API clpk_status clpk_sshopm_plan_create(clpk_context *ctx, int order, int dim, clpk_precision precision,
                                    int64_t max_tensors, const clpk_sshopm_options *opts, clpk_sshopm_plan **plan);
CLPK_API void clpk_sshopm_plan_destroy(clpk_sshopm_plan *plan);
/* "kernel=generated entries=private wg=128 ..." */
CLPK_API void clpk_sshopm_plan_describe(const clpk_sshopm_plan *plan, char *buf, size_t size);
/* The chosen parameters as "k=v,..." (what a profile or the tuner would set). */
CLPK_API void clpk_sshopm_plan_params(const clpk_sshopm_plan *plan, char *buf, size_t size);
/* 1 when the plan runs the generated (unrolled) kernel, 0 for the general loop kernel. */
CLPK_API int clpk_sshopm_plan_is_generated(const clpk_sshopm_plan *plan);
/* Arithmetic of one start-iteration of the plan's kernel (for GFLOP/s). */
CLPK_API double clpk_sshopm_plan_iteration_flops(const clpk_sshopm_plan *plan);

/* Runs SS-HOPM for n_tensors (<= max_tensors) tensors in `tensors` (n_tensors x U values of the plan's precision) in
 * one direction (+1: convex/maxima, -1: concave/minima). Writes, per (tensor, start) in that order, lambda
 * (n_tensors x V values), x (n_tensors x V x n values) and info (n_tensors x V int32). Each is written exactly once. */
CLPK_API clpk_status clpk_sshopm_execute(clpk_sshopm_plan *plan, int64_t n_tensors, cl_mem tensors, int direction, cl_mem lambda,
                                cl_mem x, cl_mem info, cl_uint n_wait, const cl_event *wait, cl_event *done);

/* Per-start results on the host, in double: index [t][d][s] with d over the plan's directions (max first). */
typedef struct clpk_sshopm_raw {
    int64_t n_tensors;
    int order, dim;
    int starts;     /* V */
    int directions; /* 1 or 2 */
    int direction[2];
    double *lambda; /* n_tensors x directions x V */
    double *x;      /* n_tensors x directions x V x dim */
    int32_t *info;  /* n_tensors x directions x V */
} clpk_sshopm_raw;
CLPK_API void clpk_sshopm_raw_free(clpk_sshopm_raw *raw);

/* Host convenience: uploads `tensors` (n_tensors x U doubles, converted to the plan's precision), runs the plan's
 * directions and downloads the per-start results. */
CLPK_API clpk_status clpk_sshopm_run_host(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                 clpk_sshopm_raw *raw);

/* ---- Post-processing ---------------------------------------------------------------------------------------- */

typedef enum clpk_sshopm_type {
    CLPK_SSHOPM_TYPE_MAX = 1,       /* projected Hessian negative definite: local maximum of A x^m on the sphere */
    CLPK_SSHOPM_TYPE_MIN = 2,       /* positive definite: local minimum */
    CLPK_SSHOPM_TYPE_SADDLE = 3,    /* indefinite */
    CLPK_SSHOPM_TYPE_DEGENERATE = 4 /* semidefinite with an eigenvalue within the tolerance of 0 */
} clpk_sshopm_type;
CLPK_API const char *clpk_sshopm_type_name(clpk_sshopm_type type); /* "max", "min", "saddle", "degenerate" */

typedef struct clpk_sshopm_eigenpair {
    double lambda;
    double x[CLPK_SSHOPM_MAX_DIM];
    clpk_sshopm_type type;
    int hits;        /* converged starts that reached this pair */
    double residual; /* ||A x^(m-1) - lambda x|| in double */
} clpk_sshopm_eigenpair;

typedef struct clpk_sshopm_tensor_result {
    int count; /* distinct eigenpairs, sorted by lambda descending */
    clpk_sshopm_eigenpair *pairs;
    int converged, capped, failed; /* starts by status (converged + capped + failed = directions x starts) */
    int dropped;                   /* converged starts left out (device post-processing: max_pairs reached) */
    int polished;    /* capped starts that Newton steps in double took to an eigenpair: counted in its hits */
    int unconverged; /* capped starts that ended at no eigenpair (capped - polished): not in any pair */
} clpk_sshopm_tensor_result;

typedef struct clpk_sshopm_result {
    int64_t n_tensors;
    int order, dim;
    clpk_sshopm_tensor_result *tensors; /* n_tensors, input order */
    clpk_sshopm_eigenpair *storage;     /* all pairs (tensors[t].pairs point into it) */
} clpk_sshopm_result;

typedef struct clpk_sshopm_post_options {
    double lambda_tol; /* same pair: |dlambda| <= lambda_tol * max(1, |lambda|) (default 1e-4) */
    double x_tol;      /* ... and ||x - y|| <= x_tol (up to sign for even m) (default 5e-2: the stop is on lambda, so
                        * x at a flat extremum is only known to about sqrt(tol / curvature) in f32) */
    double class_tol;  /* projected-Hessian eigenvalues within class_tol * max(1, |lambda|) of 0: degenerate (1e-6) */
    int capped_steps;  /* Newton steps in double from each capped start (default 20; 0: none, all unconverged); one
                        * that ends with ||A x^(m-1) - lambda x|| <= 1e-9 ||A||_F joins (or makes) a pair, classified */
} clpk_sshopm_post_options;
CLPK_API void clpk_sshopm_post_options_default(clpk_sshopm_post_options *opts);

/* De-duplicates converged starts per tensor (for even m, x and -x are the same pair; for odd m, (lambda, x) and
 * (-lambda, -x) are, represented with x as reached), then takes each capped start by Newton steps in double
 * (opts->capped_steps) to an eigenpair if it can (`polished`; the others are `unconverged`), classifies each pair with
 * the projected Hessian U^T((m-1) A x^(m-2) - lambda I) U in double, counts hits and sorts by lambda descending.
 * `tensors` are the inputs (n_tensors x U doubles). opts may be NULL. Free with clpk_sshopm_result_free. */
CLPK_API clpk_status clpk_sshopm_postprocess(const double *tensors, const clpk_sshopm_raw *raw,
                                    const clpk_sshopm_post_options *opts, clpk_sshopm_result *out, clpk_error *err);
CLPK_API void clpk_sshopm_result_free(clpk_sshopm_result *result);

/* Classifies one eigenpair of one tensor (double); also returns the residual if not NULL. */
CLPK_API clpk_sshopm_type clpk_sshopm_classify(int order, int dim, const double *tensor, double lambda, const double *x,
                                      double class_tol, double *residual);

/* Newton-polishes every pair of `result` in double on the eigen-equations A x^(m-1) = lambda x, x^T x = 1 (steps
 * steps at most, each kept only if it lowers the residual): an f32 run then gives pairs accurate to double. Residuals
 * and types are recomputed (class_tol as in the post options, <= 0 for the default), pairs that became the same
 * (|dlambda| <= 1e-9 max(1, |lambda|), ||dx|| <= 1e-7, up to sign for even m) are merged (hits added), and each tensor's
 * pairs re-sorted. `tensors`: n_tensors x U doubles; a tensor of norm below 1/2 or above 2^50 is polished and
 * classified at unit norm, as by the solve functions. */
CLPK_API clpk_status clpk_sshopm_polish(const double *tensors, clpk_sshopm_result *result, int steps, double class_tol,
                               clpk_error *err);

/* run_host + postprocess. post may be NULL. A tensor of Frobenius norm below 1/2 or above 2^50 is solved scaled to
 * unit norm and its lambdas and residuals scaled back (the default tolerances are absolute below |lambda| = 1; f32
 * squares overflow near 1e19); so is it by clpk_sshopm_solve_device. */
CLPK_API clpk_status clpk_sshopm_solve_host(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                   const clpk_sshopm_post_options *post, clpk_sshopm_result *out);

/* ---- Post-processing on the device ----------------------------------------------------------------------------
 * The same de-duplication, classification and sorting as clpk_sshopm_postprocess, one work-item per tensor, in the
 * plan's precision, without residuals, keeping at most max_pairs distinct pairs per tensor and run (converged starts
 * beyond are counted as dropped). Avoids downloading every start of large batches. */

/* Reduces one execute()'s outputs (lambda, x, info of n_tensors x V starts) into slots out_base .. out_base +
 * n_tensors - 1 of: out_lambda (slots x max_pairs values), out_x (slots x max_pairs x n), out_meta (slots x max_pairs
 * int32: type | hits << 3, 0 when unused; unused lambda and x are NaN) and out_counts (slots x 5 int32: pairs,
 * converged, capped, failed, dropped). Every slot element of those tensors is written. opts may be NULL. */
CLPK_API clpk_status clpk_sshopm_reduce(clpk_sshopm_plan *plan, int64_t n_tensors, cl_mem tensors, cl_mem lambda, cl_mem x,
                               cl_mem info, const clpk_sshopm_post_options *opts, int max_pairs, int64_t out_base,
                               cl_mem out_lambda, cl_mem out_x, cl_mem out_meta, cl_mem out_counts, cl_uint n_wait,
                               const cl_event *wait, cl_event *done);

/* Host convenience for the device path: upload, run each direction, reduce on the device, download only the distinct
 * pairs, and the starts of tensors with capped starts, which are polished on the host as by clpk_sshopm_postprocess.
 * Residuals are NaN (not computed on the device) except for pairs only polished capped starts reached. max_pairs <= 0:
 * 16. */
CLPK_API clpk_status clpk_sshopm_solve_device(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                     const clpk_sshopm_post_options *post, int max_pairs, clpk_sshopm_result *out);

/* Writes {"tensors": [{"eigenpairs": [{"lambda", "x", "type", "hits"}, ...]}, ...]} (plus per-tensor start counts). */
CLPK_API clpk_status clpk_sshopm_result_write_json(const char *path, const clpk_sshopm_result *result, clpk_error *err);

/* ---- Dense input -------------------------------------------------------------------------------------------- */

/* Compresses n_tensors dense n^m tensors (row-major) into unique entries, refusing (CLPK_ERROR_INVALID_DATA) a
 * tensor whose entries of one index class differ by more than tol * max|entry| (symmetry check) or are NaN. */
CLPK_API clpk_status clpk_sshopm_compress_dense(int order, int dim, const double *dense, int64_t n_tensors, double tol,
                                       double *unique, clpk_error *err);

/* ---- Diffusion-MRI example --------------------------------------------------------------------------------- */

typedef struct clpk_sshopm_dmri_options {
    int64_t voxels;       /* default 1000 */
    int order;            /* even, 2..8; 4 or 6 in practice (default 4) */
    int max_fibres;       /* 1..3 fibres per voxel, drawn uniformly (default 2) */
    double min_angle_deg; /* smallest angle between the fibres of a voxel (default 45) */
    double snr;           /* ||signal||_F / ||noise||_F per voxel; 0: no noise (default 50) */
    uint64_t seed;        /* default 1 */
} clpk_sshopm_dmri_options;
CLPK_API void clpk_sshopm_dmri_options_default(clpk_sshopm_dmri_options *opts);

/* A synthetic field: voxel v holds A = sum_f w_f u_f^(x)m + E in unique entries (dimension 3), w_f in [0.5, 1],
 * fibres at least min_angle_deg apart, E Gaussian on the unique entries scaled to the SNR. */
typedef struct clpk_sshopm_dmri_field {
    int64_t voxels;
    int order, unique;
    double *tensors;   /* voxels x unique */
    int32_t *n_fibres; /* voxels */
    double *dirs;      /* voxels x 3 x 3 true unit directions (unused rows 0) */
    double *weights;   /* voxels x 3 */
} clpk_sshopm_dmri_field;

CLPK_API clpk_status clpk_sshopm_dmri_synth(const clpk_sshopm_dmri_options *opts, clpk_sshopm_dmri_field *field,
                                   clpk_error *err);
CLPK_API void clpk_sshopm_dmri_field_free(clpk_sshopm_dmri_field *field);

/* Estimated fibres per voxel (up to 3). */
typedef struct clpk_sshopm_dmri_fibres {
    int64_t voxels;
    int32_t *count;  /* voxels */
    double *dirs;    /* voxels x 3 x 3 */
    double *weights; /* voxels x 3 */
} clpk_sshopm_dmri_fibres;
CLPK_API void clpk_sshopm_dmri_fibres_free(clpk_sshopm_dmri_fibres *fibres);

/* Fibres as the local maxima themselves: each voxel's maxima with lambda >= min_rel * (largest lambda), up to 3,
 * largest first (the seed's reading). Peaks of crossing fibres closer than the lobes' width merge or bias towards
 * each other (docs/sshopm.md), which the refinement below removes. */
CLPK_API clpk_status clpk_sshopm_dmri_peaks(const clpk_sshopm_result *result, double min_rel, clpk_sshopm_dmri_fibres *out,
                                   clpk_error *err);

/* Fibres as a low-rank fit A ~ sum_f w_f u_f^(x)m started from the local maxima (largest first), completed by
 * deflation (the maximum of the residual tensor, found with SS-HOPM on the host) when there are fewer maxima than
 * fibres, refined by Levenberg-Marquardt; the smallest k in 1..3 whose relative residual ||A - fit||_F / ||A||_F is
 * <= residual_tol wins. tensors: voxels x unique (dimension 3, the result's order). */
CLPK_API clpk_status clpk_sshopm_dmri_refine(const double *tensors, const clpk_sshopm_result *result, double residual_tol,
                                    clpk_sshopm_dmri_fibres *out, clpk_error *err);

typedef struct clpk_sshopm_dmri_stats {
    int64_t fibres, found; /* true fibres, and those matched by an estimate within match_deg */
    double fraction_found;
    double mean_deg, median_deg, p90_deg, max_deg; /* angular errors of the found fibres */
    int64_t spurious;                              /* estimates matched to no fibre */
    int64_t voxels_exact;                          /* voxels with exactly their fibre count, all matched */
} clpk_sshopm_dmri_stats;

/* Matches each voxel's estimates to its true fibres (greedily by smallest angle, up to sign) and summarises the
 * angular errors. errors_deg (may be NULL) receives voxels x 3 errors (NAN for unmatched or absent fibres). */
CLPK_API clpk_status clpk_sshopm_dmri_evaluate(const clpk_sshopm_dmri_field *field, const clpk_sshopm_dmri_fibres *est,
                                      double match_deg, clpk_sshopm_dmri_stats *stats, double *errors_deg,
                                      clpk_error *err);

/* ---- Diffusion-MRI scans: fibre peaks from the measured signal ------------------------------------------------
 * scan (4-D NIfTI + FSL bval/bvec) -> per voxel the constant-solid-angle Q-ball ODF (Aganj et al. 2010) in even
 * spherical harmonics up to the order, Laplace-Beltrami regularised, one least-squares operator for all voxels ->
 * the symmetric tensor T of the same order with T x^m = ODF(x) on the sphere -> its local maxima (SS-HOPM on the
 * device) -> the significant ones (relative threshold, separation angle, at most K) -> dipy's peaks layout.
 * docs/sshopm.md ("Diffusion-MRI scans") has the maths and the numbers measured on real scans. */

/* A gradient table: every volume of the scan, b = 0 ones included. */
typedef struct clpk_sshopm_gradients {
    int volumes;
    double *bval;  /* volumes */
    double *bvec;  /* volumes x 3: unit vectors; zeros for b = 0 volumes */
    int32_t *is_b0; /* volumes: b <= b0_threshold */
} clpk_sshopm_gradients;

/* Reads FSL bval (the b-values in any whitespace layout) and bvec files, the vectors as 3 rows of N (FSL) or N rows
 * of 3 (3 x 3 is read as FSL). Volumes with b <= b0_threshold (dipy: 50) are b = 0 volumes whose vectors are
 * ignored (they may be 0 or NaN); every other vector must be finite and non-zero and is normalised. Refuses
 * mismatched counts, negative or non-finite b-values, and a table without b = 0 volume. */
CLPK_API clpk_status clpk_sshopm_gradients_read(const char *bval_path, const char *bvec_path, double b0_threshold,
                                       clpk_sshopm_gradients *out, clpk_error *err);
CLPK_API void clpk_sshopm_gradients_free(clpk_sshopm_gradients *g);

typedef struct clpk_sshopm_odf_options {
    int order;           /* even spherical-harmonic order = tensor order, 2..8 (default 4) */
    double smooth;       /* Laplace-Beltrami regularisation lambda (default 0.006, dipy's CsaOdfModel default) */
    double b0_threshold; /* b <= this: b = 0 volume (default 50) */
    double bmin, bmax;   /* diffusion-weighted volumes used: bmin <= b <= bmax; both 0 (default): the shell window
                          * [median/2, 2 median] of the diffusion-weighted b-values (all of a single-shell scan) */
} clpk_sshopm_odf_options;
CLPK_API void clpk_sshopm_odf_options_default(clpk_sshopm_odf_options *opts);

/* The fit of one gradient table, computed once in double: tensors = W log(-log E) + a0 per voxel. Volumes of the
 * window with other b-values than the reference (the window's median b) are rescaled as E^(b_ref / b) (mono-
 * exponential along each direction), so a multi-shell scan gives one ODF. Refuses a table with fewer distinct
 * directions in the window than even harmonics up to the order, (order/2 + 1)(order + 1). */
typedef struct clpk_sshopm_odf_model clpk_sshopm_odf_model;
CLPK_API clpk_status clpk_sshopm_odf_model_create(const clpk_sshopm_gradients *g, const clpk_sshopm_odf_options *opts,
                                         clpk_sshopm_odf_model **model, clpk_error *err);
CLPK_API void clpk_sshopm_odf_model_destroy(clpk_sshopm_odf_model *model);
/* "CSA ODF order 4 (15 coefficients), lambda 0.006: 64 of 65 volumes, b 990..1010 (reference 1000), 1 b0 volume" */
CLPK_API void clpk_sshopm_odf_model_describe(const clpk_sshopm_odf_model *model, char *buf, size_t size);

/* Fits voxels whose signal is stored volume-major as in a NIfTI file (signal[q * voxels + v] for volume q). Writes
 * tensors (voxels x unique entries, dimension 3, the model's order) and valid (voxels; may be NULL): 0 where the
 * voxel is inactive (active[v] == 0, active may be NULL), its mean b = 0 signal is not positive, or a value is not
 * finite; those tensors are zeros. Returns the number of valid voxels in *n_valid (may be NULL). */
CLPK_API clpk_status clpk_sshopm_odf_fit(const clpk_sshopm_odf_model *model, const double *signal, int64_t voxels,
                                const uint8_t *active, double *tensors, uint8_t *valid, int64_t *n_valid,
                                clpk_error *err);

typedef struct clpk_sshopm_peak_options {
    int max_peaks;             /* K, 1..16 (default 5, as dipy's peaks_from_model) */
    double relative_threshold; /* keep maxima with f - f0 >= t (f_max - f0), f0 = max(0, min f) (default 0.5) */
    double min_separation_deg; /* drop a maximum within this angle of a larger kept one (default 25) */
    int starts;                /* SS-HOPM starts per voxel, spread on the sphere (default 64) */
    clpk_precision precision;  /* of the SS-HOPM run (default f32) */
    int device_post;           /* 1 (default): de-duplicate on the device; 0: on the host in double */
    int refine;     /* 1: directions and weights from the low-rank fit (clpk_sshopm_dmri_refine) instead of the maxima:
                     * for tensors that are sums of rank-one fibre terms (the synthetic field); orders 4 and 6 */
    double refine_residual; /* its relative residual (default 0.06) */
    int device_fit; /* clpk_sshopm_dmri_scan only: 1 (default) runs the fit, tensor conversion, SS-HOPM, reduction and
                     * selection on the device, downloading only the peaks (not with refine or device_post 0, which
                     * take the host path); 0: fit and selection on the host (the reference) */
} clpk_sshopm_peak_options;
CLPK_API void clpk_sshopm_peak_options_default(clpk_sshopm_peak_options *opts);

/* Peaks per voxel in dipy's layout. */
typedef struct clpk_sshopm_peaks {
    int64_t voxels;
    int max_peaks;   /* K */
    float *dirs;     /* voxels x K x 3: unit vectors, largest value first; zeros where there is no peak */
    float *values;   /* voxels x K: f at the peak (the ODF value; refine: the fibre weight); 0 where none */
    int32_t *count;  /* voxels: peaks kept */
    int64_t starts_converged, starts_capped, starts_failed; /* over all SS-HOPM starts */
} clpk_sshopm_peaks;
CLPK_API void clpk_sshopm_peaks_free(clpk_sshopm_peaks *peaks);

/* Local maxima of f(x) = T x^m on the unit sphere of each tensor (dimension 3, even order; voxels x unique entries)
 * with active[v] != 0 (active may be NULL: all). Each tensor's spherical mean is removed (an isotropic term, which
 * moves no maximum) and it is scaled to unit Frobenius norm before SS-HOPM (adaptive shift, sphere starts), in
 * batches; values are reported in the tensor's own units. */
CLPK_API clpk_status clpk_sshopm_tensor_peaks(clpk_context *ctx, int order, const double *tensors, int64_t voxels,
                                     const uint8_t *active, const clpk_sshopm_peak_options *opts,
                                     clpk_sshopm_peaks *out);

/* Wall time of each stage of clpk_sshopm_dmri_scan in seconds (0: not a stage of the path taken). */
typedef struct clpk_sshopm_scan_times {
    double read;     /* the scan, gradient table and mask files */
    double setup;    /* model, SS-HOPM plan, kernel builds (from the disk cache after the first run) */
    double prep;     /* mask, background image, voxel lists (host path: mean and scale per voxel) */
    double upload;   /* signal (device path) */
    double fit;      /* CSA fit + harmonics -> tensor (+ normalisation on the device): one kernel, or per voxel on the
                      * host */
    double solve;    /* SS-HOPM; host path: with upload, reduction and download (clpk_sshopm_solve_device) */
    double reduce;   /* de-duplication and classification on the device (clpk_sshopm_reduce) */
    double select;   /* dipy's selection rules (device kernel, or host) */
    double download; /* peaks and per-voxel counts back (device path) */
    double host;     /* device path: scatter into the volume, counts, capped starts polished on the host */
    double compute;  /* everything but read */
} clpk_sshopm_scan_times;

/* A scan's peaks with its geometry (for writing). */
typedef struct clpk_sshopm_scan_geometry clpk_sshopm_scan_geometry;
typedef struct clpk_sshopm_scan_peaks {
    int32_t nx, ny, nz;
    clpk_sshopm_peaks peaks;      /* voxels = nx ny nz, x fastest */
    float *background;            /* nx ny nz: mean b = 0 signal (for pictures) */
    int64_t voxels_fitted;        /* in the mask with a usable signal */
    char model[256];              /* clpk_sshopm_odf_model_describe */
    clpk_sshopm_scan_geometry *geometry; /* the input's header geometry, copied into the outputs */
    int device_pipeline;          /* 1 when fit and selection ran on the device */
    clpk_sshopm_scan_times times; /* per stage */
} clpk_sshopm_scan_peaks;
CLPK_API void clpk_sshopm_scan_peaks_free(clpk_sshopm_scan_peaks *scan);

/* The whole pipeline on a scan: reads dwi (4-D NIfTI-1, .nii or .nii.gz), the gradient table, and mask (NULL, or a
 * 3-D volume of the same grid; non-zero = inside), fits, finds and selects the peaks. odf and peaks may be NULL
 * (defaults). Refuses unreadable or non-4-D volumes, a table whose count differs from the volumes, a mask of
 * another grid and a scheme too small for the order, with a message (clpk_last_error). */
CLPK_API clpk_status clpk_sshopm_dmri_scan(clpk_context *ctx, const char *dwi_path, const char *bval_path,
                                  const char *bvec_path, const char *mask_path, const clpk_sshopm_odf_options *odf,
                                  const clpk_sshopm_peak_options *peaks, clpk_sshopm_scan_peaks *out);

/* Writes PREFIX_peak_dirs.nii.gz (X x Y x Z x K x 3, float32), PREFIX_peak_values.nii.gz (X x Y x Z x K) with the
 * input's geometry, and, unless slice is -2, PREFIX_peaks.png: axial slice `slice` (-1: the middle one) with each
 * peak drawn as a line segment through its voxel centre (in-plane projection, length by value, RGB = |x|, |y|, |z|)
 * over the b = 0 image. */
CLPK_API clpk_status clpk_sshopm_dmri_scan_write(const char *prefix, const clpk_sshopm_scan_peaks *scan, int slice,
                                        clpk_error *err);


/* ---- Benchmarking ----------------------------------------------------------------------------------------------- */

/* Operations of one start-iteration of a plan's kernel as the kernel generator counts them (the gradient and lambda,
 * then the shift, normalisation and update; fixed or bound shift): flops = 2 fma + mul + add, rsqrt not counted. */
typedef struct clpk_sshopm_op_counts {
    int64_t fma, mul, add, rsqrt;
    double flops;
} clpk_sshopm_op_counts;
CLPK_API clpk_status clpk_sshopm_plan_iteration_ops(const clpk_sshopm_plan *plan, clpk_sshopm_op_counts *ops);

/* For throughput measurements at a known iteration count: with on = 1 the convergence test can never pass (the
 * checks still run), so every start runs max_iter iterations; on = 0 restores the plan's tolerance. */
CLPK_API clpk_status clpk_sshopm_plan_set_fixed_iterations(clpk_sshopm_plan *plan, int on);

/* The `starts` x dim unit starts (row-major) that every tensor gets from a plan with this starts_kind (SHARED or
 * SPHERE) and seed, e.g. to hand another implementation the same starts. */
CLPK_API clpk_status clpk_sshopm_starts_generate(int dim, int starts, clpk_sshopm_starts kind, uint64_t seed,
                                                 double *out, clpk_error *err);

#ifdef __cplusplus
}
#endif

#endif
