/* LiFE device half: the plan's fields, the restructured (sorted) coefficient copies and the CPU reference. Shared by
 * lib/life/life_plan.c, lib/life/life_sort.c, lib/life/life_fit.c, lib/life/life_reference.c, the tuner and the tests. */
#ifndef CLPK_LIFE_INTERNAL_H
#define CLPK_LIFE_INTERNAL_H

#include "clpk_internal.h"
#include "param_table.h"

/* ---- Restructured coefficients (host side, built once per plan) ------------------------------------------- */

typedef enum life_order { LIFE_ORDER_VOXEL = 0, LIFE_ORDER_ATOM, LIFE_ORDER_FIBER } life_order;

/* The coefficients permuted so that the key (voxel, atom or fibre) is non-decreasing, with run pointers over the
 * key (n_keys + 1 entries) and offsets premultiplied: atom_off = atom * ld_dict, voxel_off = voxel * n_theta.
 * With a processing order (rank: key -> position, a permutation) the runs come in rank order instead, run r holds
 * the key run_key[r], and within a run the coefficients keep the dataset's order (the per-key sums are unchanged). */
typedef struct life_sorted {
    life_order order;
    int64_t n_coeffs;
    int32_t n_keys;
    int64_t *run_ptr; /* n_keys + 1 */
    int32_t *atom_off, *voxel_off, *fiber;
    double *phi;
    int32_t *run_key; /* n_keys, or NULL in key order (run r is key r) */
} life_sorted;

/* Stable counting sort by the key, or by rank[key] when rank is not NULL: O(Nc + n_keys). */
clpk_status life_sort_build(const clpk_life_dataset *data, life_order order, int32_t ld_dict, const int32_t *rank,
                            life_sorted *out, clpk_error *err);

/* Processing orders (plan parameters voxel_order and fiber_order; docs/perf-life.md section 4). */
typedef enum life_voxel_order { LIFE_VOXEL_ORDER_INDEX = 0, LIFE_VOXEL_ORDER_MORTON } life_voxel_order;
typedef enum life_fiber_order { LIFE_FIBER_ORDER_INDEX = 0, LIFE_FIBER_ORDER_VOXEL } life_fiber_order;
/* Voxel ranks along the Z-order (Morton) curve of the voxels' grid coordinates (data->voxel_ijk, relative to their
 * minimum; ties by index). *rank = NULL with the reason in why[] when the dataset holds no grid or a span exceeds
 * 2^21 (then index order is used). O(Nv log Nv). */
clpk_status life_voxel_rank_morton(const clpk_life_dataset *data, int32_t **rank, char *why, size_t why_size,
                                   clpk_error *err);
/* Fibre ranks by the processing position of each fibre's middle coefficient's voxel (voxel_rank, or the voxel index
 * when NULL); fibres without coefficients go last; ties by index. O(Nc + Nv + Nf). */
clpk_status life_fiber_rank_by_voxel(const clpk_life_dataset *data, const int32_t *voxel_rank, int32_t **rank,
                                     clpk_error *err);
void life_sorted_free(life_sorted *s);

/* The coefficients merged per (voxel, atom) pair (dsc=pairs, wc=pairs; docs/life.md). Voxel side: the voxel runs in
 * processing order (run_key as life_sorted's), each run's pairs by ascending atom, each pair's coefficients
 * contiguous (fiber, phi) in the dataset's order. Fibre side: the fibres in processing order (fiber_key), each
 * fibre's coefficients in the dataset's order as (pair index, phi). Offsets premultiplied as life_sorted's. */
typedef struct life_pairs {
    int64_t n_coeffs, n_pairs;
    int32_t n_voxels, n_fibers;
    int64_t *run_pair, *run_coeff;                      /* n_voxels + 1: run r's pairs and its coefficients */
    int32_t *run_key;                                   /* n_voxels, or NULL in index order */
    int32_t *pair_atom_off, *pair_voxel_off, *pair_len; /* n_pairs */
    int64_t *pair_coeff;                                /* n_pairs + 1: pair p's coefficients */
    int32_t *fiber;                                     /* n_coeffs, pair order */
    double *phi;                                        /* n_coeffs, pair order */
    int64_t *fiber_ptr;                                 /* n_fibers + 1: position r's (pair, phi) */
    int32_t *fiber_pair;                                /* n_coeffs, fibre order */
    double *fiber_phi;                                  /* n_coeffs, fibre order */
    int32_t *fiber_key;                                 /* n_fibers: the fibre at position r; NULL in index order */
    /* Block order (life_pairs_block_order; block 0: none): the pairs per block of `block` consecutive runs, by atom
     * within a block (ties in run order); fiber_pair then holds block-order indices. */
    int32_t block, n_chunks;
    int64_t *chunk_pair;                       /* n_chunks + 1: chunk c's pairs (at most chunk_len, one block's) */
    int32_t *chunk_block;                      /* n_chunks: the chunk's block */
    int32_t *block_atom_off, *block_voxel_off; /* n_pairs, block order */
    uint8_t *block_vloc;                       /* n_pairs, block order: the pair's run within its block */
} life_pairs;

/* Stable counting sorts (lib/life/life_counting_sort.c): out gets the indices in[0..n) (0..n-1 when in is NULL)
 * ordered by key[index] (by rank[key[index]] with a rank), each key's indices in input order; ptr gets the n_keys + 1
 * run starts. Multi-threaded; the same result on any number of threads. */
void life_counting_sort(const int64_t *in, int64_t n, const int32_t *key, const int32_t *rank, int32_t n_keys,
                        int64_t *ptr, int64_t *out);
void life_counting_sort32(const int32_t *in, int64_t n, const int32_t *key, const int32_t *rank, int32_t n_keys,
                          int64_t *ptr, int32_t *out);

/* Builds the pair-merged copy with the voxel runs in voxel_rank order and the fibre side in fiber_rank order (NULL:
 * index order). O(Nc + Na + Nv + Nf). */
clpk_status life_pairs_build(const clpk_life_dataset *data, int32_t ld_dict, const int32_t *voxel_rank,
                             const int32_t *fiber_rank, life_pairs *out, clpk_error *err);
void life_pairs_free(life_pairs *p);
/* Adds the block order of wc=pairs with wc_block = block (1..256) to a built copy, cut into chunks of at most
 * chunk_len pairs within a block, and renumbers its fibre side to it. O(Np + Na + Nv + Nc). */
clpk_status life_pairs_block_order(life_pairs *p, int32_t block, int32_t chunk_len, int32_t n_atoms, int32_t ld_dict,
                                   clpk_error *err);

/* Coefficients per (voxel, atom) pair, estimated from the voxels of a fixed hash sample (1 in n_voxels / 4096, at
 * most 1 in 32; every voxel below 8192: exact then): Nc / Np of the pair-merged copy, at the cost of one pass over
 * the voxel indices and a sort of the sample. 1 for an empty dataset; -1 when out of memory. */
#define LIFE_PAIR_SAMPLE_VOXELS 4096
double life_pair_ratio_estimate(const clpk_life_dataset *data);

/* Whether dsc=pairs (a weight pass, then dsc=voxel's loop with one D row per pair) is predicted to beat dsc=voxel on
 * a GPU for n_coeffs coefficients at `ratio` per pair (wc=pairs follows it: measured faster wherever dsc=pairs was).
 * The model, fitted on the H200 (docs/perf-life.md, "Two-launch pairs"): dsc=voxel 33 ps a coefficient; dsc=pairs
 * 5 ps a coefficient + 35 ps a pair + 16 us for its second launch.
 * It takes pairs when the predicted saving exceeds one more launch (16 us) and the ratio has a margin over the
 * model's break-even (1.25 at large sizes). */
#define LIFE_PAIRS_MIN_RATIO 1.4
int life_pairs_pay(int64_t n_coeffs, double ratio);

/* Run-length statistics of a key: mean and max coefficients per non-empty run (the tuner's problem class). */
void life_run_stats(const clpk_life_dataset *data, life_order order, double *mean_run, double *max_run);

/* Checks sizes, index ranges and finiteness of what the device kernels read (no crash on bad data). */
clpk_status life_check_dataset(const clpk_life_dataset *data, clpk_error *err);

/* ---- CPU reference (double precision, the seed's naive serial loops) -------------------------------------- */

void life_ref_dsc(const clpk_life_dataset *data, const double *w, double *y);
void life_ref_wc(const clpk_life_dataset *data, const double *y, double *w);
/* `iterations` SBB-NNLS steps from w (in/out) exactly as clpk_life_fit takes them; *objective = 0.5||Mw - y||^2. */
void life_ref_fit(const clpk_life_dataset *data, int iterations, double *w, double *objective);

/* Random streamline-like datasets for tests and the tuner (no files): fibres visit runs of voxels of mean length
 * mean_run, empty_fraction of the fibres have no coefficient, signal = M w_true + uniform noise of amplitude noise,
 * zero_fraction of w_true is 0. Free with clpk_life_dataset_free; *w_true (may be NULL) is malloc'ed. */
typedef struct life_random_options {
    int32_t n_theta, n_atoms, n_voxels, n_fibers, mean_run;
    double empty_fraction, zero_fraction, noise;
} life_random_options;
clpk_status life_random_dataset(const life_random_options *opts, uint64_t seed, clpk_life_dataset *out,
                                double **w_true, clpk_error *err);

/* ---- Half-precision dictionary (plan parameter dict=half) ------------------------------------------------- */

/* IEEE 754 binary16 bits of x, rounded to nearest (ties to even); beyond the largest finite half (65504, from 65520 on)
 * the result is infinite. */
uint16_t life_half_from_double(double x);
double life_half_to_double(uint16_t h);
/* x rounded to the nearest half value, as a dict=half plan stores it. */
double life_half_round(double x);
#define LIFE_HALF_MAX 65504.0
/* D rounded to half values (n_atoms x n_theta, malloc'ed; NULL without memory): the dictionary a dict=half plan
 * multiplies with, for references. */
double *life_half_dictionary(const clpk_life_dataset *data);

/* dict=half's accuracy contract (issue #27): storing D as half may change the fit's objective 0.5 ||M w - y||^2 by at
 * most this much, relatively. Measured at one w, both objectives from the same w: the change of the minimum follows it
 * (docs/perf-life.md, "Half-precision dictionary"), while comparing two fits after a fixed number of SBB-NNLS steps
 * mostly measures how far their trajectories drifted apart. The tuner keeps a dict=half point only where it holds. */
#define LIFE_HALF_OBJECTIVE_TOL 1e-5
/* 0.5 ||M w - signal||^2 in double on the host (data->signal required); NaN without memory. */
double life_ref_objective(const clpk_life_dataset *data, const double *w);
/* (f - reference) / reference, f = 0.5 ||M w - signal||^2 with `plan`'s DSC at w (the residual and its sum in double
 * on the host); reference = life_ref_objective(data, w). */
clpk_status life_objective_change(clpk_life_plan *plan, const clpk_life_dataset *data, const double *w,
                                  double reference, double *change);

/* ---- Plan ------------------------------------------------------------------------------------------------- */

typedef enum life_dsc_kind {
    LIFE_DSC_ATOMICS = 0,
    LIFE_DSC_VOXEL,
    LIFE_DSC_PAIRS,
    LIFE_DSC_STAGED,
    LIFE_DSC_VOXEL4
} life_dsc_kind;
/* How the plan stores D: in the plan's precision, or as half values summed in float (f32 plans only). */
typedef enum life_dict_storage { LIFE_DICT_FULL = 0, LIFE_DICT_HALF } life_dict_storage;
typedef enum life_wc_kind {
    LIFE_WC_ATOMICS = 0,
    LIFE_WC_ATOM,
    LIFE_WC_FIBER,
    LIFE_WC_VOXEL,
    LIFE_WC_PAIRS,
    LIFE_WC_STAGED,
    LIFE_WC_FIBER4
} life_wc_kind;

/* A plan's parameters, one row each in life_param_table (lib/life/life_params.c); NAME rows hold the index of the
 * name: dsc a life_dsc_kind, wc a life_wc_kind, the orders a life_voxel_order / life_fiber_order, dict a
 * life_dict_storage. */
typedef struct life_config {
    int dsc, wc;
    int team, runs, unroll; /* dsc=voxel(4), dsc=pairs, dsc=staged (unroll also wc=fiber, wc=pairs, wc=staged) */
    int dsc_unroll;         /* dsc=pairs's loop (0: unroll) */
    int wc_team, wc_runs;   /* wc=fiber, wc=atom, wc=pairs, wc=staged */
    int wc_block;           /* wc=pairs: voxels a block (0: pairs in voxel order) */
    int wg;                 /* the atomics kernels, wc=voxel */
    int theta_parts;
    int voxel_order, fiber_order;
    int dict;
} life_config;
extern const core_param_table life_param_table;
/* Local memory of wc=pairs's dot launch: wc_runs teams' unroll pairs of wc_team + 1 values. */
uint64_t life_pair_dot_local_bytes(const life_config *c, size_t value_size);
/* Local memory of the whole dot launch: the partial sums, and with wc_block the block's y rows (n_theta rounded up to
 * 4) and a flag per voxel. */
uint64_t life_wc_dot_local_bytes(const life_config *c, int32_t n_theta, size_t value_size);

/* The built-in defaults for a device and precision: the table's (GPU ones on GPUs only, CPU ones elsewhere), with GPU
 * f64's own unroll and voxel order. */
void life_default_params(const clpk_device_info *dev, clpk_precision precision, core_params *params);
/* The data's part of the defaults: on GPUs, dsc=pairs and wc=pairs (their work shape, Morton voxel blocks for the WC's
 * dot products where local memory holds them) into *defaults where
 * life_pairs_pay says so for the sampled coefficients per pair. Returns that ratio (0 on other devices: not
 * estimated). Plans of the automatic strategy apply it where the caller and the profile left both kernels to the
 * defaults. */
double life_default_pairs(const clpk_device_info *dev, clpk_precision precision, const clpk_life_dataset *data,
                          core_params *defaults);
/* The pair rule's wc_block needs this many chunks of ~1024 pairs per compute unit (4 waves of 13 groups an SM on the
 * H200: between synth medium's 0.4 M pairs, where blocks lost, and DS1's 26.6 M, where they won). */
#define LIFE_WC_BLOCK_MIN_CHUNKS_PER_CU 52
/* theta_parts default for a dictionary of dict_bytes (1 unless GPU f64 with a known cache size; docs/perf-life.md). */
#define LIFE_MAX_THETA_PARTS 4
int life_default_theta_parts(const clpk_device_info *dev, clpk_precision precision, uint64_t dict_bytes);
/* Effective split of n_theta directions into `requested` parts (clamped to n_theta): part length aligned to 128 B
 * where that still gives `requested` parts; *parts may come out below `requested` (n_theta 5 in 4 -> 3 parts of 2). */
void life_theta_split(int32_t n_theta, int requested, size_t value_size, int *parts, int *part_len);

struct clpk_life_plan {
    clpk_context *ctx;
    clpk_precision precision;
    size_t value_size;
    int32_t n_atoms, n_voxels, n_fibers, n_theta, ld_dict;
    int64_t n_coeffs;
    core_params params;
    char origin[640];   /* where the parameters came from: defaults, a profile entry, a strategy, timing */
    life_config config; /* `params` read through the table */
    life_dsc_kind dsc_kind;
    life_wc_kind wc_kind;
    int theta_parts, part_len; /* effective theta split of the run kernels (life_theta_split) */
    /* processing orders in effect (voxel_order applies to the voxel-sorted and pair kernels, fiber_order to the
     * fibre-sorted ones);
     * a requested order the dataset cannot give falls back to index order, the reason in order_note */
    life_voxel_order voxel_order;
    life_fiber_order fiber_order;
    char order_note[160];
    cl_program program;
    cl_kernel k_dsc, k_wc, k_zero;
    cl_kernel k_wc_sum;      /* wc=pairs: the per-fibre sum after k_wc's per-pair dot products */
    cl_kernel k_dsc_weights; /* dsc=pairs: the per-pair weights before k_dsc */
    /* device buffers: dictionary (n_atoms x ld_dict, zero-padded; dict_size bytes a value: the precision's, or 2 with
     * dict=half), the signal (may be NULL) */
    cl_mem dict, signal;
    size_t dict_size;
    /* coefficient copies used by the chosen kernels (unused ones are NULL) */
    cl_mem c_atom_off, c_voxel_off, c_fiber, c_phi;       /* original order (atomics kernels) */
    cl_mem dsc_ptr, dsc_atom_off, dsc_fiber, dsc_phi;     /* voxel-sorted (dsc=voxel(4), dsc=staged, wc=voxel) */
    cl_mem wc_ptr, wc_atom_off, wc_voxel_off, wc_fiber, wc_phi; /* atom- or fibre-sorted (wc=staged: fibre) */
    /* voxel / fibre of each run in a processing order other than index order, else NULL (wc=pairs: wc_key is the
     * pair fibre side's) */
    cl_mem dsc_key, wc_key;
    /* pair-merged copies (life_pairs): dsc=pairs reads the voxel side, wc=pairs the pairs and the fibre side; each
     * keeps one value per pair between its two launches (pr_weight, pr_dot) */
    int64_t n_pairs;
    cl_mem pr_run_pair, pr_coeff, pr_atom_off, pr_fiber, pr_phi, pr_weight;
    cl_mem pr_voxel_off, pr_fiber_ptr, pr_fiber_pair, pr_fiber_phi, pr_dot;
    /* wc=pairs with wc_block: the block order's chunks, atoms, voxels within the block and voxel offsets (the last
     * for life_mark_clipped, whose fibre side is in block order); pr_dot and pr_fiber_pair follow that order */
    int32_t n_chunks;
    cl_mem pr_chunk_pair, pr_chunk_block, pr_block_atom_off, pr_block_vloc, pr_block_voxel_off;
    /* solver kernels (built lazily by clpk_life_fit) */
    cl_program fit_program;
    cl_kernel k_mask, k_step, k_step_clip, k_residual, k_mark, k_gradient;
};

/* The fit's clipped step: y = M w on the voxels whose stamp is `it` only (the other y values are not written), for
 * plans where life_dsc_can_stamp (dsc=pairs with wc=pairs's fibre side: life_mark_clipped stamps through it). */
int life_dsc_can_stamp(const clpk_life_plan *plan);
clpk_status life_dsc_stamped(clpk_life_plan *plan, cl_mem w, cl_mem y, cl_mem stamp, cl_int it);
/* w = M^T y for a y that is zero but on the voxels stamped `it` (the others' values are not read); wc=pairs plans
 * where life_dsc_can_stamp. */
clpk_status life_wc_stamped(clpk_life_plan *plan, cl_mem y, cl_mem w, cl_mem stamp, cl_int it);

/* Strategy "timed": times every DSC and WC kernel on the dataset (caller's params kept, dsc/wc replaced) and
 * creates the plan with the fastest of each. */
clpk_status life_plan_create_timed(clpk_context *ctx, const clpk_life_dataset *data, clpk_precision precision,
                                   const char *params, clpk_life_plan **plan_out);

/* Names of the strategies for messages and the profile. */
const char *life_dsc_name(life_dsc_kind k);
/* 1 for the WC kernels over the fibre-sorted copy (wc=fiber, wc=staged, wc=fiber4). */
int life_wc_fibre_sorted(life_wc_kind k);
const char *life_wc_name(life_wc_kind k);

#endif
