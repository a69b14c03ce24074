/* Internals of the spmv family shared by its host files: parameters, the BCCOO host format, the plan. */
#ifndef CLPK_SPMV_INTERNAL_H
#define CLPK_SPMV_INTERNAL_H

#include "clpk_internal.h"
#include "param_table.h"

/* The parameters' table (spmv_params.c). */
extern const core_param_table spmv_param_table;

/* Indices of the names of the table's rows "format", "col" and "sync" (the order of their `values`). */
typedef enum spmv_format { SPMV_CSR = 0, SPMV_BCCOO = 1, SPMV_BCCOO_PLUS = 2 } spmv_format;
typedef enum spmv_col { SPMV_COL_AUTO = 0, SPMV_COL_SHORT, SPMV_COL_INT, SPMV_COL_DELTA } spmv_col;
typedef enum spmv_sync { SPMV_SYNC_AUTO = 0, SPMV_SYNC_ADJACENT, SPMV_SYNC_FALLBACK } spmv_sync;
typedef enum spmv_csr_kernel { SPMV_CSR_ROWS = 0, SPMV_CSR_ADAPTIVE } spmv_csr_kernel;

/* Every parameter of a plan, resolved (no "auto" left except sync, resolved at plan creation). The int fields of
 * the table's rows hold their values (names as indices); the rest follows from them (spmv_config_read). Fields of
 * parameters a format or strategy does not read (the table's conditions) keep a neutral value. */
typedef struct spmv_config {
    int format;           /* spmv_format */
    int block_h, block_w; /* 1..4, 1|2|4 */
    int flag_bits;        /* 8, 16, 32 */
    int col;              /* spmv_col; auto is replaced by the width it resolves to */
    int col_bits;         /* 16 or 32 (col=short|int|auto; auto = 16 when block columns < 65535) */
    int col_delta;        /* col=delta: 16-bit deltas per thread segment, escape 0x8000 to a full index */
    int tile;             /* blocks per thread */
    int wg;               /* work-group size */
    int strategy;         /* 1 or 2 */
    int cache;            /* strategy 2: result cache of cache*wg block rows */
    int sync;             /* spmv_sync; auto is replaced by the device's choice at plan creation */
    int sync_adjacent;    /* 1 adjacent synchronization, 0 fallback carry kernel; -1 auto */
    int skip_scan;        /* 0|1 */
    int online;           /* 0 offline transpose, 1 natural order */
    int slices;           /* BCCOO+ vertical slices (1 for BCCOO) */
    int csr_vec;          /* CSR: 1 scalar, 2..32 vector */
    int csr_kernel;       /* CSR: spmv_csr_kernel (rows: csr_vec work-items per row; adaptive: row blocks) */
    int csr_steps;        /* CSR adaptive: most products of its row a work-item sums (lib/spmv/spmv_csr.c) */
    int vload;            /* BCCOO values as aligned 16-byte vectors (spmv_value_vec), x through aligned loads */
    int interleave;       /* BCCOO: a row's blocks dealt across the threads its segment spans, step-major, so that
                           * the x loads of one step are consecutive across lanes (lib/spmv/spmv_format.c) */
    int prefetch;         /* BCCOO: blocks per thread whose columns and x vectors are loaded before their products
                           * (1, 2, 4, 8, 16; cl/spmv_bccoo.cl) */
} spmv_config;

/* Elements per value vector of the BCCOO layout: block_w (one vector per block row, vload=0), or with vload=1 the
 * widest power of two <= 16 bytes dividing block_h*block_w (at least block_w): a 4x2 f32 block is 2 float4. */
int spmv_value_vec(const spmv_config *cfg, clpk_precision precision);

/* Whether adjacent synchronization is known safe (forward progress of started work-groups) on this device. */
int spmv_device_has_forward_progress(const clpk_device_info *dev);
/* Local memory the BCCOO kernel needs, in bytes (without / with the online-transpose staging buffer). */
size_t spmv_bccoo_local_bytes(const spmv_config *cfg, clpk_precision precision);
/* The online transpose stages a group's products in local memory only up to this size (and what the device has). */
#define SPMV_STAGE_MAX_BYTES 65536u
size_t spmv_bccoo_stage_bytes(const spmv_config *cfg, clpk_precision precision);
/* Build options of the BCCOO program of a plan (its config and online mode); x_aligned: typed x loads. */
void spmv_bccoo_options(const clpk_spmv_plan *plan, int x_aligned, char *buf, size_t size);
/* Enqueues one multiply; *first / *last (may be NULL) receive the events of the first and last kernel. */
clpk_status spmv_enqueue(clpk_spmv_plan *plan, double alpha, cl_mem x, size_t x_off, double beta, cl_mem y,
                         size_t y_off, cl_uint n_wait, const cl_event *wait, cl_event *first, cl_event *last);

/* Parameters without a profile, for what has no context (the footprint, the tuner's validity check): the defaults
 * of a device kind, then the caller's, checked against the table as core_resolve checks them; `format` (NULL or
 * "auto": none) over the caller's format. */
clpk_status spmv_resolve_explicit(clpk_device_kind kind, const char *format, const core_params *caller,
                                  core_resolved *out, clpk_error *err);
/* Reads resolved parameters into a config and derives the rest; value checks only (no device limits). */
clpk_status spmv_config_read(const core_resolved *r, const clpk_csr *A, spmv_config *cfg, clpk_error *err);
/* The values the tuner searches for a parameter of the table (core_param_search_values), at most `capacity`. */
int spmv_search_values(const char *name, const char **out, char *storage, size_t storage_size, int capacity);

/* The BCCOO / BCCOO+ host image, exactly as uploaded. */
typedef struct spmv_bccoo {
    int64_t block_rows; /* per slice: ceil(rows / block_h) */
    int64_t blocks;     /* real + dummy blocks */
    int64_t nt;         /* threads, a multiple of wg; nt * tile >= blocks */
    int64_t groups;     /* nt / wg */
    size_t value_bytes; /* block_h*block_w/V planes of nt*tile vectors of V = spmv_value_vec values */
    size_t flag_bytes;  /* nt * flag words */
    size_t col_bytes;   /* nt * tile column indices */
    size_t entry_bytes; /* nt + 1 result entries */
    void *values, *flags, *cols;
    uint32_t *entries;
    /* col=delta: first column of each thread, escape start per thread (nt + 1), escaped full columns */
    int64_t n_esc;
    uint32_t *col_base, *esc_start, *esc;
} spmv_bccoo;

/* Counts blocks (real + dummy) of A with the config's shape and slices: O(nnz). */
clpk_status spmv_bccoo_count(const clpk_csr *A, const spmv_config *cfg, int64_t *blocks, clpk_error *err);
/* Converts A; values in the given precision. */
clpk_status spmv_bccoo_build(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, spmv_bccoo *out,
                             clpk_error *err);
/* The same on `parts` threads (0: one per online core, fewer for small matrices); the image does not depend on it. */
clpk_status spmv_bccoo_build_parts(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int parts,
                                   spmv_bccoo *out, clpk_error *err);
void spmv_bccoo_free(spmv_bccoo *b);
/* Parts of a conversion pass for `entries` entries: one per online core, none below 64 K entries. */
int spmv_bccoo_parts(int64_t entries);
/* Flag words per work-item. */
int spmv_bccoo_flag_words(const spmv_config *cfg);
/* Fails (INVALID_ARGUMENT) when 16-bit columns (col=short) cannot index A's block columns. */
clpk_status spmv_bccoo_check_short(const clpk_csr *A, const spmv_config *cfg, clpk_error *err);
/* col=delta: sets b's cols (16-bit deltas), col_base, esc_start, esc and n_esc from the full 32-bit columns of the
 * layout of b (nt) and cfg (tile, online); `full` stays the caller's. */
clpk_status spmv_bccoo_compress_columns(const spmv_config *cfg, int parts, const uint32_t *full, spmv_bccoo *b,
                                        clpk_error *err);

/* Variants of one block layout from one conversion (spmv_images.c). Images of two configs share every array but
 * the columns and the flags when they agree on format, block shape, slices, tile, wg, transpose, interleave and
 * value vectors (spmv_value_vec). */
int spmv_bccoo_same_layout(const spmv_config *a, const spmv_config *b, clpk_precision precision);
/* An image and the arrays it owns: `image` may point into another image's arrays; spmv_bccoo_free(&own) frees the
 * rest. */
typedef struct spmv_bccoo_view {
    spmv_bccoo image, own;
    int derived; /* 1: from a kept conversion, 0: converted */
} spmv_bccoo_view;
/* The image of cfg from `base`, a conversion of the same layout with 32-bit columns (col=int): values, entries and
 * (same flag width) flags are base's, columns narrowed to 16 bits or delta-coded, flag words repacked to cfg's
 * width; byte for byte what spmv_bccoo_build makes of cfg. */
clpk_status spmv_bccoo_derive(const clpk_csr *A, const spmv_bccoo *base, const spmv_config *base_cfg,
                              const spmv_config *cfg, clpk_precision precision, spmv_bccoo_view *out, clpk_error *err);
/* Conversions kept across the plans of one verify: each layout's conversion (32-bit columns) is kept while plans of
 * that layout are still expected, and every plan of the layout derives its image from it. The CSR plans of one
 * verify share their device arrays (read-only): the first uploads them, `csr` holds a reference for the others. */
enum { SPMV_IMAGES_MAX = 8 };
typedef struct spmv_images {
    clpk_precision precision;
    int count;
    struct {
        spmv_config layout; /* the first expected config of the layout */
        int expected;       /* plans of the layout still to come */
        int built;
        spmv_bccoo base;
    } at[SPMV_IMAGES_MAX];
    cl_mem csr[3]; /* row_ptr, col, val */
} spmv_images;
void spmv_images_init(spmv_images *im, clpk_precision precision);
/* Announces a plan of cfg to come (beyond SPMV_IMAGES_MAX layouts, the layout is converted for each plan). */
void spmv_images_expect(spmv_images *im, const spmv_config *cfg);
/* The image of cfg: derived from the layout's kept conversion, converted and kept when another plan of its layout is
 * expected, else converted for this plan alone (also when im is NULL). Release it with spmv_images_done. */
clpk_status spmv_images_get(spmv_images *im, const clpk_csr *A, const spmv_config *cfg, clpk_precision precision,
                            spmv_bccoo_view *out, clpk_error *err);
/* After the upload: frees the view's own arrays, and the layout's conversion once no plan of it is expected. */
void spmv_images_done(spmv_images *im, const spmv_config *cfg, spmv_bccoo_view *view);
void spmv_images_free(spmv_images *im);
/* Exact device bytes of a BCCOO image of `blocks` blocks (matrix data + synchronization + temporaries). */
/* Bytes of the per-group carry buffer: adjacent sync stores each 32 bits of a carry in a 64-bit (epoch, half) word;
 * the fallback's VT values fit in the same space. Used by the plan's allocation and the footprint alike. */
uint64_t spmv_carry_bytes(int64_t groups, int block_h, clpk_precision precision);
uint64_t spmv_bccoo_footprint(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision, int64_t blocks,
                              int64_t n_esc);
uint64_t spmv_csr_footprint(const clpk_csr *A, clpk_precision precision);
/* The footprint of a CSR plan of this configuration (csr_kernel=adaptive adds its row blocks). */
uint64_t spmv_csr_config_footprint(const clpk_csr *A, const spmv_config *cfg, clpk_precision precision);

/* CSR plans (spmv_csr.c): entries of an adaptive row block, local memory of the kernel, program and upload, and the
 * launch of csr_kernel=adaptive (one or two kernels; *first / *last as for spmv_enqueue). */
int64_t spmv_csr_block_entries(const spmv_config *cfg);
size_t spmv_csr_local_bytes(const spmv_config *cfg, clpk_precision precision);
clpk_status spmv_csr_setup(clpk_spmv_plan *plan, const clpk_csr *A, spmv_images *images);
clpk_status spmv_csr_adaptive_enqueue(clpk_spmv_plan *plan, double alpha, cl_mem x, cl_uint x_off, double beta,
                                      cl_mem y, cl_uint y_off, cl_uint n_wait, const cl_event *wait, cl_event *first,
                                      cl_event *last);
/* The first arguments of either CSR kernel (rows or adaptive: p->csr_kernel): row_ptr, col, val, x, xo, y, yo. */
void spmv_csr_args_begin(core_args *a, clpk_spmv_plan *p, cl_mem x, cl_uint xo, cl_mem y, cl_uint yo);

/* Launch helpers of the CSR and BCCOO launches (spmv_launch.c): alpha or beta in the plan's precision; the events of
 * a launch of one or more kernels handed to the caller (on success, *first = events[0] and *last = the last non-NULL
 * one, each retained, either pointer may be NULL), then ours released. */
void spmv_arg_scalar(core_args *a, const clpk_spmv_plan *plan, double v);
void spmv_events_hand_over(clpk_status st, const cl_event *events, int n, cl_event *first, cl_event *last);

/* Fails when the built kernel allows fewer work-items per group than the plan's wg (spmv_plan.c). */
clpk_status spmv_check_kernel_wg(clpk_spmv_plan *plan, cl_kernel k, const char *name);

/* Features for the profile class: rows, cols, nnz, nnz_row_mean, nnz_row_std, max_row, fill_2x2, fill_4x4 and
 * precision. */
clpk_status spmv_features(const clpk_csr *A, clpk_precision precision, core_params *features, clpk_error *err);

/* Checks A's structure (sizes, row pointers, column range, finite values). */
clpk_status spmv_csr_validate(const clpk_csr *A, clpk_error *err);
/* K copies of the Matrix Market matrix at `path` along the diagonal, each coupled to the next by a sparse random block
 * (spmv_replicate.c; the generator's "replicate:K:PATH"). */
clpk_status spmv_generate_replicated(long long copies, const char *path, uint64_t seed, clpk_csr *out, clpk_error *err);

/* Plan creation past the argument checks (A already validated): parameters resolved (defaults, profile entry, caller),
 * then conversion and upload. */
clpk_status spmv_plan_create_checked(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                                     const char *params, clpk_spmv_plan **out);
/* The two halves of it: the resolved config (logged at debug level), then the plan of a config, its BCCOO image
 * from `images` (NULL: converted for it alone). */
clpk_status spmv_plan_config(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *format,
                             const char *params, spmv_config *cfg);
clpk_status spmv_plan_create_config(clpk_context *ctx, const clpk_csr *A, clpk_precision precision,
                                    const spmv_config *cfg, spmv_images *images, clpk_spmv_plan **out);
/* What an automatic plan timed before choosing: the variants' parameters in the order timed (the first is the
 * model's choice). */
enum { SPMV_SELECT_MAX_TIMED = 8 };
typedef struct spmv_select_report {
    int measured;
    char timed[SPMV_SELECT_MAX_TIMED][128];
} spmv_select_report;
/* The automatic plan from the profile's cost model (spmv_select.c): *chose = 1 with *out set when the model chose,
 * 0 when the profile has no usable model (the caller then resolves as before). `report` may be NULL. */
clpk_status spmv_select_plan(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *params,
                             clpk_spmv_plan **out, int *chose, spmv_select_report *report);

/* Sum of the sizes of the plan's matrix buffers as the device reports them (tests compare it with the footprint). */
uint64_t spmv_plan_device_bytes(const clpk_spmv_plan *plan);

struct clpk_spmv_plan {
    clpk_context *ctx;
    clpk_precision precision;
    spmv_config cfg;
    int32_t rows, cols;
    int64_t nnz;
    uint64_t footprint;
    /* CSR */
    cl_mem row_ptr, col, val;
    cl_kernel csr_kernel;
    /* CSR csr_kernel=adaptive: row blocks (first row | piece bit, first entry), split rows (row, first block,
     * pieces), a piece's partial sum per block; the kernel adding the pieces of split rows */
    cl_mem csr_blocks, csr_long, csr_partial;
    cl_kernel csr_long_kernel;
    int64_t csr_blocks_n, csr_long_n;
    /* BCCOO */
    int64_t block_rows, nt, groups;
    cl_mem values, flags, cols_idx, entries;
    cl_mem col_base, esc_start, esc; /* col=delta only */
    cl_mem sync;                     /* [0] ticket, [1] progress counter, [2] watchdog error, [3] spare */
    cl_mem grp_sum;  /* per group: block_h carries (adjacent: 64-bit words epoch:32-bit half; fallback: VT) */
    cl_mem grp_stop; /* per group: 1 if it has a row stop (fallback) */
    cl_mem tmp;      /* BCCOO+: slices * block_rows * block_h partial rows */
    cl_kernel main_kernel, carry_kernel, combine_kernel;
    /* vload=1 with block_w > 1: main_kernel reads x through vector-typed pointers (x + x_off aligned to block_w
     * values); main_kernel_xu, built on the first launch with an unaligned x offset, reads it with vloadn */
    cl_kernel main_kernel_xu;
    cl_uint online_mode; /* kernel's `online`: 0 offline, 1 natural order, 2 natural order staged in local memory */
    cl_uint epoch;
    cl_uint spin_limit;
    /* bench vectors, created on first use */
    cl_mem bench_x, bench_y;
};

#endif
