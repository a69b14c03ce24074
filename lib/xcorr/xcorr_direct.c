/* Direct cross-correlation variants: parameter checks, kernel builds and launches (kernels in cl/xcorr_*.cl). */
#include "xcorr_direct.h"
#include "xcorr_launch.h"
#include "xcorr_shuffle.h"

#include <stdlib.h>

typedef enum direct_kind { NAIVE, SHIFT_BUFFER, SPLIT_ROW, TILE, WARP_PER_OVERLAP, LOCAL_TILES } direct_kind;

/* The kernel kind of each direct algorithm (xcorr_algorithm), -1 for the others. */
static int kind_of(int algorithm) {
    switch (algorithm) {
    case XCORR_NAIVE: return NAIVE;
    case XCORR_SHIFT_BUFFER: return SHIFT_BUFFER;
    case XCORR_SPLIT_ROW: return SPLIT_ROW;
    case XCORR_GROUPED:
    case XCORR_MULTI_RIGHT:
    case XCORR_MULTI_BOTH: return TILE;
    case XCORR_WARP_PER_OVERLAP: return WARP_PER_OVERLAP;
    case XCORR_LOCAL: return LOCAL_TILES;
    default: return -1;
    }
}

struct xcorr_direct {
    clpk_context *ctx;
    clpk_xcorr_shape shape;
    direct_kind kind;
    int out_rows, out_cols;
    size_t n_out;
    size_t elem;
    cl_kernel kernel, reduce; /* reduce: split-row's ordered combine */
    xcorr_range range, reduce_range;
    int extra[3];   /* kernel arguments after the common ones (see set_args) */
    int atomic;     /* split-row combining with atomics: the output is zeroed first */
    cl_mem scratch; /* split-row's partial sums (ordered combine) */
};

int xcorr_direct_known(int algorithm) { return kind_of(algorithm) >= 0; }

static int out_cols_of(const clpk_xcorr_shape *s) { return s->search_cols ? s->search_cols : 2 * s->cols - 1; }

/* Smallest power of two >= n, clamped to [lo, hi]. */
static int pow2_clamp(int n, int lo, int hi) {
    int p = lo;
    while (p < n && p < hi)
        p *= 2;
    return p;
}

void xcorr_direct_defaults(const clpk_xcorr_shape *shape, int algorithm, core_params *params) {
    const int many_rights = shape->pattern != CLPK_XCORR_ONE_TO_ONE;
    switch (kind_of(algorithm)) {
    case NAIVE: core_params_set_int(params, "wg", 128); break;
    case SHIFT_BUFFER: core_params_set_int(params, "team", pow2_clamp(out_cols_of(shape), 8, 64)); break;
    case SPLIT_ROW:
        /* At most 16 workers per output keeps the ordered combine's scratch buffer at 16 x the output. */
        core_params_set_int(params, "rows_per_worker", shape->rows > 64 ? (shape->rows + 15) / 16 : 4);
        core_params_set_int(params, "wg", 128);
        break;
    case WARP_PER_OVERLAP: core_params_set_int(params, "wg", 32); break; /* 32 < 64 < 128 on the H100 */
    case LOCAL_TILES:
        /* Not measured yet: the grouped kernel's best shape (8 column shifts) split over 2 rows, a full-ish group. */
        core_params_set_int(params, "rows", 2);
        core_params_set_int(params, "shifts", 4);
        core_params_set_int(params, "wg", 128);
        break;
    case TILE:
        /* Measured on the H100 (docs/xcorr.md): long runs of column shifts (8) beat taller blocks; 4 rights per left
         * and 64-item groups were best at 16^2 x 4000 one-to-many. */
        core_params_set_int(params, "wg", 64);
        core_params_set_int(params, "shifts", 8);
        core_params_set_int(params, "rows", 1);
        if (algorithm == XCORR_GROUPED) {
            core_params_set_int(params, "lefts", 1);
            core_params_set_int(params, "rights", 1);
        } else if (algorithm == XCORR_MULTI_RIGHT) {
            core_params_set_int(params, "lefts", 1);
            core_params_set_int(params, "rights", many_rights ? 4 : 1);
        } else {
            core_params_set_int(params, "lefts", shape->pattern == CLPK_XCORR_N_TO_M ? 2 : 1);
            core_params_set_int(params, "rights", many_rights ? 2 : 1);
        }
        break;
    default: break;
    }
}

/* Refuses a size past what the device allows (the table checks the value itself). */
static clpk_status at_most(clpk_context *ctx, const char *what, const char *key, int value, size_t limit) {
    if ((size_t)value <= limit) return CLPK_SUCCESS;
    return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr %s: %s=%d exceeds the device's limit %zu", what, key,
                     value, limit);
}

static int is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

static size_t div_up(size_t n, size_t m) { return (n + m - 1) / m; }

/* Builds `source` (after the common part) with the precision and `defines`, and creates kernel `name`. */
static clpk_status build_kernel(xcorr_direct *d, const char *source, const char *defines, const char *name,
                                cl_kernel *kernel) {
    const char *sources[] = {"xcorr_common", source};
    char options[256];
    snprintf(options, sizeof options, "-DVALUE_T=%s -DVALUE_IS_DOUBLE=%d %s",
             d->shape.precision == CLPK_PRECISION_F64 ? "double" : "float", d->shape.precision == CLPK_PRECISION_F64,
             defines);
    cl_program program = NULL;
    CLPK_TRY(core_program_get(d->ctx, sources, 2, options, &program));
    return core_kernel_create(d->ctx, program, name, kernel);
}

/* Refuses a local size the compiled kernel cannot run with (registers, local memory). */
static clpk_status check_kernel_wg(xcorr_direct *d, cl_kernel kernel, size_t local, const char *what) {
    size_t max_wg = 0;
    CLPK_CL_TRY(d->ctx, clGetKernelWorkGroupInfo(kernel, clpk_context_device(d->ctx), CL_KERNEL_WORK_GROUP_SIZE,
                                                 sizeof max_wg, &max_wg, NULL));
    if (local > max_wg)
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr %s: work-group size %zu exceeds this kernel's limit %zu on the device", what, local,
                         max_wg);
    return CLPK_SUCCESS;
}

/* The launch range of `groups` work-groups of `wg` items (two dimensions past 2^31 items, xcorr_launch.h), or
 * UNSUPPORTED when even two cannot hold them. */
static clpk_status set_range(xcorr_direct *d, size_t groups, size_t wg, xcorr_range *range, const char *what) {
    if (!xcorr_range_of(groups, wg, core_launch_dim_items(d->ctx), range))
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr %s: %zu work-groups of %zu items is more than one launch allows: use another algorithm",
                         what, groups, wg);
    return CLPK_SUCCESS;
}

static clpk_status create_tile(xcorr_direct *d, const xcorr_config *c) {
    const clpk_device_info *dev = clpk_context_device_info(d->ctx);
    const char *algorithm = xcorr_algorithm_name(c->algorithm);
    const int shifts = c->shifts, rows = c->rows, lefts = c->lefts, rights = c->rights, wg = c->wg;
    CLPK_TRY(at_most(d->ctx, algorithm, "wg", wg, dev->max_work_group_size));
    if (shifts * rows * lefts * rights > 128)
        return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr %s: shifts*rows*lefts*rights = %d accumulators per work-item (at most 128)", algorithm,
                         shifts * rows * lefts * rights);
    const clpk_xcorr_shape *s = &d->shape;
    if (lefts > 1 && s->pattern != CLPK_XCORR_N_TO_M)
        return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr %s: lefts=%d needs the n-to-m pattern (the only one where a right meets several lefts)",
                         algorithm, lefts);
    if (rights > 1 && s->pattern == CLPK_XCORR_ONE_TO_ONE)
        return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr %s: rights=%d needs a pattern where a left meets several rights (not one-to-one)",
                         algorithm, rights);
    long long groups;
    switch (s->pattern) {
    case CLPK_XCORR_ONE_TO_MANY: groups = (s->n_right + rights - 1) / rights; break;
    case CLPK_XCORR_N_TO_MN: groups = (long long)s->n_left * ((s->n_right / s->n_left + rights - 1) / rights); break;
    case CLPK_XCORR_N_TO_M:
        groups = (long long)((s->n_left + lefts - 1) / lefts) * ((s->n_right + rights - 1) / rights);
        break;
    default: groups = s->n_left; break;
    }
    d->extra[0] = (int)groups;
    char defines[128];
    snprintf(defines, sizeof defines, "-DSHIFTS=%d -DROWS=%d -DLEFTS=%d -DRIGHTS=%d", shifts, rows, lefts, rights);
    CLPK_TRY(build_kernel(d, "xcorr_tile", defines, "xcorr_tile", &d->kernel));
    const size_t tiles = (size_t)((d->out_cols + shifts - 1) / shifts) * (size_t)((d->out_rows + rows - 1) / rows);
    CLPK_TRY(check_kernel_wg(d, d->kernel, (size_t)wg, algorithm));
    return set_range(d, div_up(tiles * (size_t)groups, (size_t)wg), (size_t)wg, &d->range, algorithm);
}

/* Bytes of local memory the local algorithm needs for its two matrices (0 if that overflows size_t). */
size_t xcorr_local_bytes(const clpk_xcorr_shape *shape) {
    const size_t n = (size_t)shape->rows * (size_t)shape->cols, elem = clpk_precision_size(shape->precision);
    return n > SIZE_MAX / 2 / elem ? 0 : 2 * n * elem;
}

/* local: one work-group per output matrix, both matrices in local memory (cl/xcorr_local.cl). */
static clpk_status create_local(xcorr_direct *d, const xcorr_config *c) {
    const clpk_device_info *dev = clpk_context_device_info(d->ctx);
    const int block_rows = c->rows, block_cols = c->shifts, wg = c->wg;
    if (block_rows > 8)
        return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr local: rows=%d: at most 8 block rows", block_rows);
    CLPK_TRY(at_most(d->ctx, "local", "wg", wg, dev->max_work_group_size));
    const size_t need = xcorr_local_bytes(&d->shape);
    if (need == 0 || need > dev->local_mem_bytes)
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr local: the left and right %dx%d matrices need %zu bytes of local memory, %s has %llu: "
                         "use another algorithm",
                         d->shape.rows, d->shape.cols, need, dev->name, (unsigned long long)dev->local_mem_bytes);
    char defines[96];
    snprintf(defines, sizeof defines, "-DBLOCK_ROWS=%d -DBLOCK_COLS=%d -DLOCAL_WG=%d", block_rows, block_cols, wg);
    CLPK_TRY(build_kernel(d, "xcorr_local", defines, "xcorr_local", &d->kernel));
    cl_ulong own = 0;
    CLPK_CL_TRY(d->ctx, clGetKernelWorkGroupInfo(d->kernel, clpk_context_device(d->ctx), CL_KERNEL_LOCAL_MEM_SIZE,
                                                 sizeof own, &own, NULL));
    if (own + need > dev->local_mem_bytes)
        return core_fail(
            d->ctx, CLPK_ERROR_UNSUPPORTED,
            "xcorr local: %zu bytes for the matrices plus %llu of the kernel's own exceed the %llu bytes of "
            "local memory of %s",
            need, (unsigned long long)own, (unsigned long long)dev->local_mem_bytes, dev->name);
    d->extra[0] = (int)(need / 2 / d->elem); /* elements of each local buffer */
    CLPK_TRY(check_kernel_wg(d, d->kernel, (size_t)wg, "local"));
    return set_range(d, d->n_out, (size_t)wg, &d->range, "local");
}

/* Band rows of the triangle distribution's worker layers 0 .. w-1 (the same closed form as xcorr_layer_start in
 * cl/xcorr_split.cl): layers whose band fills the window of srows rows, then bands of 2*(rows-1-v*rpw)+1 rows. */
static long long layer_start(int w, int rows, int srows, int rpw) {
    const long long c = (srows - 1) / 2, full = (rows - 1 - c) / rpw + 1;
    if (w <= full) return (long long)w * srows;
    const long long m = w - full;
    return full * srows + m * (2LL * rows - 1) - (long long)rpw * m * (full + w - 1);
}

static clpk_status create_split(xcorr_direct *d, const xcorr_config *c) {
    const clpk_device_info *dev = clpk_context_device_info(d->ctx);
    const int rpw = c->rows_per_worker, wg = c->wg;
    CLPK_TRY(at_most(d->ctx, "split-row", "wg", wg, dev->max_work_group_size));
    d->atomic = c->combine == 1;
    const int triangle = c->distribution == 1;
    if (d->atomic && d->shape.precision == CLPK_PRECISION_F64 && !dev->has_int64_atomics)
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr split-row: combine=atomic in f64 needs 64-bit atomics, which %s lacks", dev->name);
    const int workers = d->shape.rows / rpw + (d->shape.rows % rpw != 0);
    d->extra[0] = rpw;
    d->extra[1] = workers;
    d->extra[2] = triangle;
    const size_t total = d->n_out * (size_t)d->out_rows * (size_t)d->out_cols;
    /* Work-items: rectangle `workers` per element; triangle only the needed ones (band rows x n_out x columns). */
    const size_t items =
        triangle ? (size_t)layer_start(workers, d->shape.rows, d->out_rows, rpw) * d->n_out * (size_t)d->out_cols
                 : total * (size_t)workers;
    if (d->atomic) {
        CLPK_TRY(build_kernel(d, "xcorr_split", "", "xcorr_split_atomic", &d->kernel));
    } else {
        const size_t bytes = items * d->elem;
        if (bytes > dev->max_alloc_bytes)
            return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                             "xcorr split-row: %d workers need %zu bytes of partial sums (device allows %llu per "
                             "buffer): raise rows_per_worker or use combine=atomic",
                             workers, bytes, (unsigned long long)dev->max_alloc_bytes);
        CLPK_TRY(build_kernel(d, "xcorr_split", "", "xcorr_split_partial", &d->kernel));
        CLPK_TRY(build_kernel(d, "xcorr_split", "", "xcorr_split_reduce", &d->reduce));
        cl_int rc = CL_SUCCESS;
        d->scratch = clCreateBuffer(clpk_context_cl_context(d->ctx), CL_MEM_READ_WRITE, bytes, NULL, &rc);
        if (rc != CL_SUCCESS) return core_fail_cl(d->ctx, rc, "clCreateBuffer(split-row partial sums)");
        CLPK_TRY(check_kernel_wg(d, d->reduce, (size_t)wg, "split-row"));
        CLPK_TRY(set_range(d, div_up(total, (size_t)wg), (size_t)wg, &d->reduce_range, "split-row"));
    }
    CLPK_TRY(check_kernel_wg(d, d->kernel, (size_t)wg, "split-row"));
    return set_range(d, div_up(items, (size_t)wg), (size_t)wg, &d->range, "split-row");
}

/* shift-buffer with shuffle=subgroup: the team's buffer in registers, exchanged by sub-group (warp) shuffles. Every
 * way this cannot work here is CLPK_ERROR_UNSUPPORTED with the reason: no shuffle on the device, a team that is not
 * one sub-group, or a kernel the device's compiler refuses (e.g. the inline PTX). */
static clpk_status create_shuffle(xcorr_direct *d, int team) {
    const clpk_device_info *dev = clpk_context_device_info(d->ctx);
    const xcorr_shuffle_kind kind = xcorr_shuffle_kind_of(d->ctx);
    if (kind == CLPK_XCORR_SHUFFLE_NONE)
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr shift-buffer: shuffle=subgroup needs sub-group shuffles (cl_khr_subgroup_shuffle or "
                         "cl_intel_subgroups) or an NVIDIA GPU (warp shuffles); %s has none: use shuffle=local",
                         dev->name);
    if (kind == CLPK_XCORR_SHUFFLE_NV_PTX) CLPK_TRY(xcorr_shuffle_check_kernel(d->ctx, kind, NULL, team));
    char defines[128];
    xcorr_shuffle_options(d->ctx, kind, team, defines, sizeof defines);
    const clpk_status st = build_kernel(d, "xcorr_shift", defines, "xcorr_shift", &d->kernel);
    if (st == CLPK_ERROR_BUILD) {
        char log[1024];
        snprintf(log, sizeof log, "%s", clpk_last_error(d->ctx));
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr shift-buffer: the %s form (team=%d) does not build on %s, so it is unsupported "
                         "there: %s",
                         xcorr_shuffle_kind_name(kind), team, dev->name, log);
    }
    CLPK_TRY(st);
    return xcorr_shuffle_check_kernel(d->ctx, kind, d->kernel, team);
}

static clpk_status create_team(xcorr_direct *d, const xcorr_config *c) {
    const clpk_device_info *dev = clpk_context_device_info(d->ctx);
    const int shift = d->kind == SHIFT_BUFFER;
    const char *key = shift ? "team" : "wg", *what = shift ? "shift-buffer" : "warp-per-overlap";
    const int team = shift ? c->team : c->wg;
    CLPK_TRY(at_most(d->ctx, what, key, team, dev->max_work_group_size));
    const int shuffle = shift && c->shuffle == 1;
    const size_t local_bytes = shuffle ? 0 : (size_t)team * d->elem * (shift ? 3 : 1);
    if (local_bytes > dev->local_mem_bytes)
        return core_fail(d->ctx, CLPK_ERROR_UNSUPPORTED, "xcorr %s: %s=%d needs %zu bytes of local memory (%llu)", what,
                         key, team, local_bytes, (unsigned long long)dev->local_mem_bytes);
    if (!shift && !is_pow2(team))
        return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr warp-per-overlap: wg=%d must be a power of two",
                         team);
    if (shuffle) {
        CLPK_TRY(create_shuffle(d, team));
    } else {
        char defines[64];
        snprintf(defines, sizeof defines, shift ? "-DTEAM=%d" : "-DWPO_WG=%d", team);
        CLPK_TRY(build_kernel(d, shift ? "xcorr_shift" : "xcorr_wpo", defines, shift ? "xcorr_shift" : "xcorr_wpo",
                              &d->kernel));
    }
    const size_t groups = shift ? (size_t)((d->out_cols + team - 1) / team) * (size_t)d->out_rows * d->n_out
                                : (size_t)d->out_rows * (size_t)d->out_cols * d->n_out;
    CLPK_TRY(check_kernel_wg(d, d->kernel, (size_t)team, what));
    return set_range(d, groups, (size_t)team, &d->range, what);
}

clpk_status xcorr_direct_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const xcorr_config *config,
                                xcorr_direct **out) {
    if (!ctx || !shape || !config || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: NULL argument");
    *out = NULL;
    const int kind = kind_of(config->algorithm);
    if (kind < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: '%s' is not a direct algorithm",
                         xcorr_algorithm_name(config->algorithm));
    xcorr_direct *d = calloc(1, sizeof *d);
    if (!d) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr: out of host memory");
    d->ctx = ctx;
    d->shape = *shape;
    d->kind = (direct_kind)kind;
    d->out_rows = clpk_xcorr_output_rows(shape);
    d->out_cols = clpk_xcorr_output_cols(shape);
    d->n_out = clpk_xcorr_output_count(shape);
    d->elem = clpk_precision_size(shape->precision);
    clpk_status st = CLPK_SUCCESS;
    switch (d->kind) {
    case NAIVE:
        st = at_most(ctx, "naive", "wg", config->wg, clpk_context_device_info(ctx)->max_work_group_size);
        if (st == CLPK_SUCCESS) st = build_kernel(d, "xcorr_naive", "", "xcorr_naive", &d->kernel);
        if (st == CLPK_SUCCESS) st = check_kernel_wg(d, d->kernel, (size_t)config->wg, "naive");
        if (st == CLPK_SUCCESS)
            st = set_range(d, div_up(d->n_out * (size_t)d->out_rows * (size_t)d->out_cols, (size_t)config->wg),
                           (size_t)config->wg, &d->range, "naive");
        break;
    case TILE: st = create_tile(d, config); break;
    case SPLIT_ROW: st = create_split(d, config); break;
    case SHIFT_BUFFER:
    case WARP_PER_OVERLAP: st = create_team(d, config); break;
    case LOCAL_TILES: st = create_local(d, config); break;
    }
    if (st != CLPK_SUCCESS) {
        xcorr_direct_destroy(d);
        return st;
    }
    *out = d;
    return CLPK_SUCCESS;
}

/* Sets the arguments every direct kernel starts with (see XCORR_ARGS in cl/xcorr_common.cl) and, after them, the
 * kernel's own (tile size, local matrices, or split-row's worker layout and scratch); `a` reports a failure. */
static void set_args(const xcorr_direct *d, core_args *a, cl_kernel k, cl_mem left, cl_ulong left_off, cl_mem right,
                     cl_ulong right_off, cl_mem out, cl_ulong out_off) {
    const clpk_xcorr_shape *s = &d->shape;
    const cl_int ints[] = {s->rows,   s->cols,    d->out_rows,        d->out_cols,
                           s->n_left, s->n_right, (cl_int)s->pattern, (cl_int)d->n_out};
    core_args_begin(a, d->ctx, k, 0);
    CLPK_ARG(a, left);
    CLPK_ARG(a, left_off);
    CLPK_ARG(a, right);
    CLPK_ARG(a, right_off);
    CLPK_ARG(a, out);
    CLPK_ARG(a, out_off);
    for (size_t n = 0; n < sizeof ints / sizeof ints[0]; ++n)
        CLPK_ARG(a, ints[n]);
    if (d->kind == TILE) {
        CLPK_ARG(a, d->extra[0]);
    } else if (d->kind == LOCAL_TILES) {
        core_args_local(a, (size_t)d->extra[0] * d->elem); /* left matrix */
        core_args_local(a, (size_t)d->extra[0] * d->elem);
    } else if (d->kind == SPLIT_ROW) {
        for (int i = 0; i < 3; ++i)
            CLPK_ARG(a, d->extra[i]); /* rpw, workers, triangle */
        if (!d->atomic || k == d->reduce) CLPK_ARG(a, d->scratch);
    }
}

/* Fails unless `buffer` holds at least offset + count elements. */
static clpk_status check_buffer(xcorr_direct *d, cl_mem buffer, size_t offset, size_t count, const char *what) {
    if (!buffer) return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: NULL %s buffer", what);
    size_t bytes = 0;
    CLPK_CL_TRY(d->ctx, clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof bytes, &bytes, NULL));
    if (offset > bytes / d->elem || count > bytes / d->elem - offset)
        return core_fail(d->ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr: %s buffer of %zu bytes is too small for offset %zu + %zu elements of %zu bytes", what,
                         bytes, offset, count, d->elem);
    return CLPK_SUCCESS;
}

/* Enqueues the plan's commands; *first gets the first command's event when there are two (else stays NULL) and
 * *last the last one's. */
static clpk_status launch(xcorr_direct *d, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                          cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *first,
                          cl_event *last) {
    const clpk_xcorr_shape *s = &d->shape;
    const size_t mat = (size_t)s->rows * (size_t)s->cols;
    const size_t out_count = d->n_out * (size_t)d->out_rows * (size_t)d->out_cols;
    CLPK_TRY(check_buffer(d, left, left_offset, (size_t)s->n_left * mat, "left"));
    CLPK_TRY(check_buffer(d, right, right_offset, (size_t)s->n_right * mat, "right"));
    CLPK_TRY(check_buffer(d, out, out_offset, out_count, "output"));
    cl_command_queue q = clpk_context_queue(d->ctx);
    core_args a;
    set_args(d, &a, d->kernel, left, left_offset, right, right_offset, out, out_offset);
    CLPK_TRY(core_args_end(&a));
    if (d->kind != SPLIT_ROW) {
        CLPK_CL_TRY(d->ctx, clEnqueueNDRangeKernel(q, d->kernel, d->range.dims, NULL, d->range.global, d->range.local,
                                                   n_wait, wait, last));
        return CLPK_SUCCESS;
    }
    cl_event before = NULL;
    cl_int rc;
    if (d->atomic) {
        /* The atomic combine adds into the output: zero it first, then launch after. */
        const cl_float zero_f = 0;
        const cl_double zero_d = 0;
        const void *zero = d->elem == sizeof zero_d ? (const void *)&zero_d : (const void *)&zero_f;
        CLPK_TRY(core_fill(d->ctx, out, zero, d->elem, out_offset * d->elem, out_count * d->elem, 0, n_wait, wait,
                           &before, "xcorr split-row output"));
        rc = clEnqueueNDRangeKernel(q, d->kernel, d->range.dims, NULL, d->range.global, d->range.local, 1, &before,
                                    last);
    } else {
        /* Partial sums, then their sum in worker order (deterministic). */
        CLPK_CL_TRY(d->ctx, clEnqueueNDRangeKernel(q, d->kernel, d->range.dims, NULL, d->range.global, d->range.local,
                                                   n_wait, wait, &before));
        set_args(d, &a, d->reduce, left, left_offset, right, right_offset, out, out_offset);
        clpk_status st = core_args_end(&a);
        if (st != CLPK_SUCCESS) {
            clReleaseEvent(before);
            return st;
        }
        rc = clEnqueueNDRangeKernel(q, d->reduce, d->reduce_range.dims, NULL, d->reduce_range.global,
                                    d->reduce_range.local, 1, &before, last);
    }
    if (rc != CL_SUCCESS) {
        clReleaseEvent(before);
        return core_fail_cl(d->ctx, rc, "clEnqueueNDRangeKernel(xcorr split-row)");
    }
    if (first)
        *first = before;
    else
        clReleaseEvent(before);
    return CLPK_SUCCESS;
}

clpk_status xcorr_direct_execute(xcorr_direct *d, cl_mem left, size_t left_offset, cl_mem right, size_t right_offset,
                                 cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait, cl_event *first,
                                 cl_event *done) {
    cl_event last = NULL;
    if (first) *first = NULL;
    CLPK_TRY(launch(d, left, left_offset, right, right_offset, out, out_offset, n_wait, wait, first, &last));
    if (first && !*first) *first = last; /* one command: the same event, one reference */
    if (done)
        *done = last;
    else if (!first || *first != last)
        clReleaseEvent(last);
    return CLPK_SUCCESS;
}

void xcorr_direct_destroy(xcorr_direct *d) {
    if (!d) return;
    if (d->kernel) clReleaseKernel(d->kernel);
    if (d->reduce) clReleaseKernel(d->reduce);
    if (d->scratch) clReleaseMemObject(d->scratch);
    free(d);
}
