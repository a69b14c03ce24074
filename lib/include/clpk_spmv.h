/* clpk spmv family: y = alpha*A*x + beta*y with the BCCOO / BCCOO+ formats of yaSpMV (seed 001) and a CSR
 * baseline, in f32 and f64. docs/spmv.md describes the formats, kernels, parameters and safety arguments.
 *
 * Use: create a plan once per matrix (the format and parameters come from the device's tuning profile, from
 * built-in defaults, or from the caller), then multiply as often as needed. A plan keeps its own copy of the matrix
 * on the device; the caller keeps ownership of everything it passes in. Launches of one plan must not overlap
 * (use one in-order queue, or chain them with events): they share the plan's synchronization buffers. */
#ifndef CLPK_SPMV_H
#define CLPK_SPMV_H

#include "clpk_export.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct clpk_spmv_plan clpk_spmv_plan;

/* Creates a plan for the CSR matrix A (values are converted to `precision`; A is not kept).
 * format: NULL or "auto" (profile, else defaults), "bccoo", "bccoo+" or "csr".
 * params: NULL or "k=v,..." overriding the chosen parameters; clpk_family_parameters("spmv", ...) lists every key
 *         with its values and defaults (unknown keys and disallowed values are refused).
 * f64 on a device without fp64 fails with CLPK_ERROR_UNSUPPORTED. *plan is owned by the caller
 * (clpk_spmv_plan_destroy). Creating a plan with explicit params is cheap to repeat: kernels come from the
 * context's program cache. */
CLPK_API clpk_status clpk_spmv_plan_create(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                                  const char *params, clpk_spmv_plan **plan);
/* The same from a coordinate matrix (sorted and duplicates summed first). */
CLPK_API clpk_status clpk_spmv_plan_create_coo(clpk_context *ctx, const clpk_coo *A, clpk_precision precision,
                                      const char *format, const char *params, clpk_spmv_plan **plan);
/* The same from a Matrix Market file (symmetric, skew-symmetric and pattern files expanded; complex refused). */
CLPK_API clpk_status clpk_spmv_plan_create_mtx(clpk_context *ctx, const char *path, clpk_precision precision,
                                      const char *format, const char *params, clpk_spmv_plan **plan);
CLPK_API void clpk_spmv_plan_destroy(clpk_spmv_plan *plan);

/* y[y_off .. y_off+rows) = alpha * A * x[x_off .. x_off+cols) + beta * y, enqueued on the context's queue after
 * the `n_wait` events; x and y are buffers of the plan's precision, offsets in elements. With beta == 0, y is not
 * read (it may hold NaN). If `done` is not NULL it receives an event the caller releases. x and y must not overlap. */
CLPK_API clpk_status clpk_spmv(clpk_spmv_plan *plan, double alpha, cl_mem x, size_t x_off, double beta, cl_mem y,
                      size_t y_off, cl_uint n_wait, const cl_event *wait, cl_event *done);

/* Host convenience: copies x (cols doubles) and y (rows doubles) to the device, multiplies, waits and copies y back
 * (converting to and from the plan's precision). Also reports a synchronization failure (see below). */
CLPK_API clpk_status clpk_spmv_host(clpk_spmv_plan *plan, double alpha, const double *x, double beta, double *y);

/* Waits for the plan's launches and reports CLPK_ERROR_TIMEOUT if an adjacent-synchronization wait ran past its
 * bound in any launch since the last call (the results of those launches are wrong); then clears the report. */
CLPK_API clpk_status clpk_spmv_plan_check(clpk_spmv_plan *plan);

/* Times `repeats` multiplies (after `warmup`) of the plan on internal vectors with profiling events. */
CLPK_API clpk_status clpk_spmv_plan_bench(clpk_spmv_plan *plan, int warmup, int repeats, clpk_bench_stats *stats);

/* One line: format and every parameter in use, e.g. "bccoo block_h=2 block_w=2 ... sync=adjacent". */
CLPK_API void clpk_spmv_plan_describe(const clpk_spmv_plan *plan, char *buf, size_t size);
/* Device memory the plan's matrix data occupies, in bytes (exact). */
CLPK_API uint64_t clpk_spmv_plan_footprint(const clpk_spmv_plan *plan);
CLPK_API int32_t clpk_spmv_plan_rows(const clpk_spmv_plan *plan);
CLPK_API int32_t clpk_spmv_plan_cols(const clpk_spmv_plan *plan);
CLPK_API clpk_precision clpk_spmv_plan_precision(const clpk_spmv_plan *plan);

/* Exact device footprint in bytes of A in a format with parameters (as for plan creation; "auto" is not allowed)
 * without building anything: the tuner prunes block shapes with it. */
CLPK_API clpk_status clpk_spmv_footprint(const clpk_csr *A, clpk_precision precision, const char *format, const char *params,
                                uint64_t *bytes, clpk_error *err);

/* Generates a test matrix (caller frees with clpk_csr_free). spec:
 *   "fem:N"        2D FEM-like: N x N grid, 2 unknowns per node, 9-point coupling (dense 2x2 sub-blocks)
 *   "stencil3d:N"  7-point Laplacian on an N^3 grid
 *   "random:R:C:K" R x C, about K entries per row at random columns
 *   "powerlaw:N"   N x N, row lengths from a power law (some very long rows)
 *   "longrow:R:C:L" R x C, every 5th row has L entries, the others 0..3 (rows spanning many work-groups)
 * and the larger classes of seed 001's Table III (the benchmark sizes them; lib/spmv/spmv_generate.c describes each):
 *   "fem3d:N" (3x3 node blocks, 27-point stencil on N^3 nodes), "dense:N", "protein:N" (~120/row clustered),
 *   "circuit:N" (~6/row irregular), "epidem:N" (4/row banded), "webgraph:N" (Zipf rows and columns),
 *   "shortrow:N" (~3/row), "qchem:N" (~70/row, wide bandwidth); N = rows (nodes per side for fem3d);
 *   "nodes:N:B:K" N nodes of B unknowns (B <= 4), each coupled to K random nodes within +-N/64: dense BxB blocks
 *   at irregular block columns;
 *   "replicate:K:PATH" K copies of the Matrix Market matrix PATH along the diagonal, each coupled to the next by
 *   a sparse random block (~1 % of a copy's nonzeros): real structure at GPU scale.
 * Values are drawn from `seed` in [-1, 1). */
CLPK_API clpk_status clpk_spmv_generate(const char *spec, uint64_t seed, clpk_csr *out, clpk_error *err);

/* Online per-matrix quick tune (yaSpMV-style) for a matrix multiplied many times: builds the plan's default choice
 * ("auto": profile or defaults) and a small pruned candidate set (the 4 block shapes of smallest footprint, BCCOO+
 * only when wider than tall, then up to 3 rounds of coordinate descent over tile / strategy / work-group size /
 * layout from the fastest so far), checks each against a CSR baseline plan's result on a random x, times each with
 * a few multiplies and returns the fastest correct plan in *plan.
 * max_multiplies bounds the multiplies of the whole search (0 = 60, at least 9): the CSR reference costs 1, each
 * candidate 4 (a check and 3 timed); candidates that do not fit the rest of the budget are dropped. Returns
 * CLPK_ERROR_INTERNAL if no candidate agrees with the reference. The report (may be NULL) says what was tried and
 * chosen; the caller owns *plan (clpk_spmv_plan_destroy). */
typedef struct clpk_spmv_tune_report {
    int candidates;      /* plans built and checked (including the default) */
    int rejected;        /* candidates that failed to build or disagreed with the CSR result */
    int multiplies;      /* multiplies run in total (checks and timing, the CSR baseline included) */
    double default_ms;   /* median time of the default choice */
    double best_ms;      /* median time of the chosen plan */
    int chose_default;   /* 1 when the default choice stayed the fastest */
    char choice[512];    /* clpk_spmv_plan_describe of the chosen plan */
} clpk_spmv_tune_report;

CLPK_API clpk_status clpk_spmv_plan_tune(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, int max_multiplies,
                                clpk_spmv_plan **plan, clpk_spmv_tune_report *report);

#ifdef __cplusplus
}
#endif

#endif
