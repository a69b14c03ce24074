/* clpk LiFE family: the sparse-Tucker-decomposition products of the Linear Fascicle Evaluation model and the
 * SBB-NNLS fit they live in.
 *   DSC:  y[v,:] = sum_{k: v_k = v} phi_k * w[f_k] * D[a_k,:]          (y = M w)
 *   WC:   w[f]   = sum_{k: f_k = f} phi_k * <D[a_k,:], y[v_k,:]>         (w = M^T y)
 * A dataset on disk is a directory of .npy files (see README): phi_atoms, phi_voxels, phi_fibers (int32/int64, Nc),
 * phi_values (float, Nc), dictionary (Na x Ntheta), signal (Nv x Ntheta), optional meta.json {"n_fibers": N}. */
#ifndef CLPK_LIFE_H
#define CLPK_LIFE_H

#include "clpk_export.h"
#ifdef __cplusplus
extern "C" {
#endif

/* A dataset in host memory, 0-based indices, values in double. Owned by the caller: clpk_life_dataset_free. */
typedef struct clpk_life_dataset {
    int64_t n_coeffs;
    int32_t n_atoms, n_voxels, n_fibers, n_theta;
    int32_t *atoms, *voxels, *fibers; /* n_coeffs each */
    double *phi;                      /* n_coeffs */
    double *dictionary;               /* n_atoms x n_theta, row a = atom a's signal over the directions */
    double *signal;                   /* n_voxels x n_theta (demeaned diffusion signal to fit); may be NULL */
    int32_t *voxel_ijk;               /* n_voxels x 3 grid coordinates (>= 0) of each voxel; may be NULL (unknown):
                                       * only the plan's spatial processing orders read it (voxel_order=morton) */
} clpk_life_dataset;

/* Loads and validates a dataset directory; bad files (length mismatch, index out of range, NaN, wrong dtype or shape)
 * are refused with a message naming the file. */
CLPK_API clpk_status clpk_life_dataset_load(const char *dir, clpk_life_dataset *out, clpk_error *err);
/* Writes the dataset as .npy files (int32 indices, float64 values) plus meta.json; creates the directory. */
CLPK_API clpk_status clpk_life_dataset_save(const char *dir, const clpk_life_dataset *data, clpk_error *err);
CLPK_API clpk_status clpk_life_dataset_validate(const clpk_life_dataset *data, clpk_error *err);
CLPK_API void clpk_life_dataset_free(clpk_life_dataset *data);

/* ENCODE-style synthetic data: smooth streamline bundles (crossing, kissing, fanning) through a voxel grid, an
 * orientation dictionary of n_atoms unit vectors, stick responses exp(-b (g.u)^2) with the mean removed for n_theta
 * gradient directions, phi from node counts per (voxel, fibre, atom), signal = M w_true + noise. */
typedef struct clpk_life_synth_options {
    int grid[3];          /* voxels per axis */
    int n_fibers;
    int nodes_per_fiber;
    int n_theta;          /* gradient directions (ignored when bvec_path is given) */
    int n_atoms;          /* dictionary orientations */
    double b_value;       /* s/mm^2 scaled as in ENCODE (b * 1e-3) */
    double snr;           /* 0: no noise */
    double zero_weight_fraction; /* fraction of w_true set to 0 (for NNLS realism) */
    uint64_t seed;
    const char *bvec_path, *bval_path; /* optional: directions from FSL-style files */
} clpk_life_synth_options;

/* Fills defaults for a size class: "tiny" (tests), "small", "medium", "ds1" (seed's DS1 scale). */
CLPK_API clpk_status clpk_life_synth_defaults(const char *size_class, clpk_life_synth_options *opts);
/* Generates a dataset; *w_true (may be NULL) receives the n_fibers true weights (caller frees). */
CLPK_API clpk_status clpk_life_synth(const clpk_life_synth_options *opts, clpk_life_dataset *out, double **w_true,
                            clpk_error *err);

/* Encodes real inputs to a dataset: a NIfTI diffusion volume, FSL bval/bvec files and a TrackVis .trk tractogram.
 * The options may be NULL for defaults. The mapping follows dipy's FiberModel (docs/life.md, "Data"): phi = node
 * counts per (voxel, fibre, orientation), signal = S/S0 demeaned per voxel over the diffusion-weighted directions. */
typedef struct clpk_life_encode_options {
    int n_atoms;        /* dictionary orientations (default 360, as ENCODE) */
    double b0_threshold; /* volumes with b <= this are b0 (default 50) */
    int use_mask;        /* 1: only voxels crossed by a streamline (default 1) */
} clpk_life_encode_options;
CLPK_API clpk_status clpk_life_encode(const char *nifti_path, const char *bval_path, const char *bvec_path,
                             const char *trk_path, const clpk_life_encode_options *opts, clpk_life_dataset *out,
                             clpk_error *err);

/* ---- Device plans ----------------------------------------------------------------------------------------- */

typedef struct clpk_life_plan clpk_life_plan;

/* Uploads the dataset, builds the restructured copies (voxel- and atom-sorted runs) and kernels. `strategy`: NULL or
 * "auto", or "atomics" (the coefficient-parallel baseline) / "sorted" / "timed" (times every kernel on this dataset
 * and keeps the fastest); `params`: NULL or "k=v,..." overrides (clpk_family_parameters("life", ...) lists
 * them). */
CLPK_API clpk_status clpk_life_plan_create(clpk_context *ctx, const clpk_life_dataset *data, clpk_precision precision,
                                  const char *strategy, const char *params, clpk_life_plan **plan);
CLPK_API void clpk_life_plan_destroy(clpk_life_plan *plan);
CLPK_API void clpk_life_plan_describe(const clpk_life_plan *plan, char *buf, size_t size);

/* y (n_voxels x n_theta) = M w (n_fibers); device buffers of the plan's precision. */
CLPK_API clpk_status clpk_life_dsc(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_uint n_wait, const cl_event *wait,
                          cl_event *done);
/* w (n_fibers) = M^T y (n_voxels x n_theta). */
CLPK_API clpk_status clpk_life_wc(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_uint n_wait, const cl_event *wait,
                         cl_event *done);
/* The same products for timing: *first gets the first launch's event and *done the last's (several launches with
 * theta_parts > 1). When the product is one launch, *first == *done and the caller holds one reference; else two
 * (release each). Both pointers are required. */
CLPK_API clpk_status clpk_life_dsc_events(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_uint n_wait, const cl_event *wait,
                                 cl_event *first, cl_event *done);
CLPK_API clpk_status clpk_life_wc_events(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_uint n_wait, const cl_event *wait,
                                cl_event *first, cl_event *done);
/* Host-array conveniences (double in and out, converted to the plan's precision). */
CLPK_API clpk_status clpk_life_dsc_host(clpk_life_plan *plan, const double *w, double *y);
CLPK_API clpk_status clpk_life_wc_host(clpk_life_plan *plan, const double *y, double *w);

typedef struct clpk_life_fit_options {
    int max_iterations;   /* default 500 */
    double tolerance;     /* relative objective change / projected-gradient tolerance; default 1e-6 */
    int objective_every;  /* evaluate 0.5||Mw - y||^2 every k iterations (default 10) */
    const double *w_start; /* warm start (n_fibers) or NULL for zeros... see README */
    int progress;         /* 1: progress bar on stderr when it is a terminal */
    int residual_every;   /* r = M w - y from M w every k iterations and at the end; between, r is updated from the
                             step's own product (no product of M w). 1 = every iteration (the textbook step);
                             0 = default: 50 on GPUs where it pays, else 1 (docs/life.md, "SBB-NNLS") */
} clpk_life_fit_options;

typedef struct clpk_life_fit_result {
    int iterations;
    double objective;     /* 0.5 ||M w - y||^2 at the end */
    double seconds;
    int converged;
} clpk_life_fit_result;

/* SBB-NNLS (projected Barzilai-Borwein) fully on the device; w (n_fibers, host) receives the weights. */
CLPK_API clpk_status clpk_life_fit(clpk_life_plan *plan, const clpk_life_fit_options *opts, double *w,
                          clpk_life_fit_result *result);


/* ---- Checking and benchmarking -------------------------------------------------------------------------------- */

/* The double-precision host reference of the products (plain loops over the coefficients), to check a plan's
 * results against: y (n_voxels x n_theta) = M w, and w (n_fibers) = M^T y. */
CLPK_API clpk_status clpk_life_dsc_reference(const clpk_life_dataset *data, const double *w, double *y);
CLPK_API clpk_status clpk_life_wc_reference(const clpk_life_dataset *data, const double *y, double *w);

/* What a plan runs after its choices and fallbacks; the names are static strings. */
typedef struct clpk_life_plan_info {
    clpk_precision precision;
    const char *dsc_kernel;  /* "atomics" or "voxel" */
    const char *wc_kernel;   /* "atomics", "atom", "fiber" or "voxel" */
    const char *voxel_order; /* "index" or "morton" (processing order of dsc=voxel and wc=voxel) */
    const char *fiber_order; /* "index" or "voxel" (processing order of wc=fiber) */
    const char *dictionary;  /* "full" (D in the plan's precision) or "half" (dict=half) */
} clpk_life_plan_info;
CLPK_API clpk_status clpk_life_plan_get_info(const clpk_life_plan *plan, clpk_life_plan_info *info);

/* Host cost of a plan's processing order, for benchmarks: *rank_ms, the milliseconds to build the voxel and fibre
 * ranks of its order from `data` (the dataset the plan was made from) as the plan does, and *sort_ms, one plain
 * counting sort of the coefficients by voxel (what every dsc=voxel plan pays anyway). Rebuilds both; the plan is
 * unchanged. */
CLPK_API clpk_status clpk_life_plan_order_cost(const clpk_life_plan *plan, const clpk_life_dataset *data,
                                               double *rank_ms, double *sort_ms);

#ifdef __cplusplus
}
#endif

#endif
