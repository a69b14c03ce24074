/* Tuner search space of the spmv family (seed 001, Table I): the parameters, the values searched and their
 * conditions are the table's (lib/spmv/spmv_params.c); here the seed's pruning narrows them per problem:
 *  - block shape: the 4 shapes of smallest exact device footprint (one joint parameter "block" = HxW);
 *  - BCCOO+ only when the matrix is wider than tall; transpose and skip_scan are not searched (offline, on);
 *    col = auto (short indices whenever they fit) or delta (16-bit deltas with escapes);
 *  - tile range from the matrix size (enough threads to fill the device);
 *  - adjacent synchronization only where the device is known to give started work-groups forward progress;
 *  - CSR (scalar / vector) as the in-house baseline candidate;
 *  - vload: BCCOO values in aligned vectors of up to 16 bytes (a no-op, so skipped, where they are scalars);
 *  - not interleave (the rows' blocks dealt step-major over threads): measured 0.99-1.03x on the H100
 *    (docs/perf-spmv.md row 5), not worth a dimension of a 10-minute search; the device default applies and the
 *    per-matrix quick tune still tries it;
 *  - prefetch: blocks of a tile whose columns and x vectors are loaded ahead of their products.
 * `valid` rejects points over the device's local memory or work-group limits and duplicates (parameters that the
 * point's format or strategy does not read, per the table's conditions, must sit at their first value). Problems:
 * small generated matrices of different classes in quick mode; otherwise the shared real matrices and the Table III
 * classes at training size. */
#include "spmv_internal.h"
#include "tune.h"
#include "tune_spmv_model.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct spmv_problem {
    clpk_csr A;
    clpk_precision precision;
    double *x, *ref;
    int have_space; /* the space, computed once (it costs 12 footprint counts over the matrix) */
    tune_space space;
    /* The plans of the last few candidates: the re-measure evaluates its top candidates and the defaults in
     * interleaved rounds, and a plan's creation (the host conversion) costs more than its timing. Enough entries
     * for the default top_k + 1 slots, so the rounds' round-robin does not evict what it needs next. */
    struct {
        char params[1024];
        clpk_spmv_plan *plan;
    } recent[6];
    int next_recent;
} spmv_problem;

static const char *const quick_specs[] = {"fem:40", "powerlaw:20000", "random:3000:40000:24", "longrow:2000:2000:1500"};
#define QUICK_COUNT ((int)(sizeof quick_specs / sizeof quick_specs[0]))

/* The classes of seed 001's Table III (the benchmark's cases, lib/spmv/spmv_generate.c) at training size, so that a
 * device's profile holds classes near the large matrices users multiply: the shared real matrices are all small
 * (< 0.5 M nonzeros), and on a GPU those measure launch overhead rather than each format's bandwidth. GPUs get
 * 1-4 M nonzeros per class, CPUs about an eighth. */
static const char *const large_specs[][2] = {
    {"fem3d:26", "fem3d:13"},
    {"dense:1400", "dense:500"},
    {"protein:20000", "protein:2500"},
    {"circuit:300000", "circuit:40000"},
    {"epidem:500000", "epidem:60000"},
    {"webgraph:300000", "webgraph:40000"},
    {"shortrow:600000", "shortrow:80000"},
    {"qchem:30000", "qchem:4000"},
    {"random:400:200000:2800", "random:100:50000:1400"},
    {"random:200000:200000:16", "random:25000:25000:16"},
};
#define LARGE_COUNT ((int)(sizeof large_specs / sizeof large_specs[0]))

static int precision_count(const tune_options *o) { return o->precision ? 1 : 2; }

/* Real matrices (sorted names, complex files left out by their header). */
static int list_matrices(const tune_options *o, char names[][256], int cap) {
    if (!o->data_dir) return 0;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/matrices", o->data_dir);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0) continue;
        char path[1400], header[256] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (!fgets(header, sizeof header, f)) header[0] = 0;
        fclose(f);
        if (strstr(header, "complex") || strstr(header, "hermitian")) continue;
        if (strlen(path) >= 256) continue;
        memcpy(names[n++], path, strlen(path) + 1);
    }
    closedir(d);
    for (int i = 1; i < n; ++i) /* insertion sort: few names */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; --j) {
            char t[256];
            memcpy(t, names[j], 256);
            memcpy(names[j], names[j - 1], 256);
            memcpy(names[j - 1], t, 256);
        }
    return n;
}

/* Quick: the small generated set. Full: the real matrices (when a data directory is given), then the large
 * generated classes. */
static int matrix_count(const tune_options *o) {
    if (o->quick) return QUICK_COUNT;
    char names[64][256];
    return list_matrices(o, names, 64) + LARGE_COUNT;
}

static int spmv_problem_count(const tune_options *o) { return matrix_count(o) * precision_count(o); }

static void spmv_problem_destroy(tune_problem *problem) {
    spmv_problem *s = problem->state;
    if (!s) return;
    for (int i = 0; i < (int)(sizeof s->recent / sizeof s->recent[0]); ++i) clpk_spmv_plan_destroy(s->recent[i].plan);
    clpk_csr_free(&s->A);
    free(s->x);
    free(s->ref);
    free(s);
    problem->state = NULL;
}

static clpk_status spmv_problem_create(clpk_context *ctx, const tune_options *o, int index,
                                       tune_problem *problem) {
    memset(problem, 0, sizeof *problem);
    int nm = matrix_count(o);
    int mi = index % nm, pi = index / nm;
    spmv_problem *s = calloc(1, sizeof *s);
    if (!s) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    problem->state = s;
    if (o->precision) {
        if (clpk_precision_parse(o->precision, &s->precision) != CLPK_SUCCESS)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "spmv tune: unknown precision %s", o->precision);
    } else {
        s->precision = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
    }
    clpk_error err = {0};
    char names[64][256];
    int nreal = o->quick ? 0 : list_matrices(o, names, 64);
    if (mi < nreal) {
        clpk_coo coo;
        if (clpk_mtx_read(names[mi], &coo, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
        clpk_status st = clpk_coo_to_csr(&coo, &s->A, &err);
        clpk_coo_free(&coo);
        if (st != CLPK_SUCCESS) return core_fail_from(ctx, &err);
        const char *base = strrchr(names[mi], '/');
        /* %.60s: a label, not a path; a long file name is cut rather than overflowing */
        snprintf(problem->label, sizeof problem->label, "%.60s %s", base ? base + 1 : names[mi],
                 clpk_precision_name(s->precision));
    } else {
        const int gpu = clpk_context_device_info(ctx)->kind == CLPK_DEVICE_GPU;
        const char *spec = o->quick ? quick_specs[mi] : large_specs[mi - nreal][gpu ? 0 : 1];
        if (clpk_spmv_generate(spec, o->seed + (uint64_t)mi, &s->A, &err) != CLPK_SUCCESS)
            return core_fail_from(ctx, &err);
        snprintf(problem->label, sizeof problem->label, "%s %s", spec, clpk_precision_name(s->precision));
    }
    size_t nx = s->A.cols ? (size_t)s->A.cols : 1, ny = s->A.rows ? (size_t)s->A.rows : 1;
    s->x = malloc(nx * sizeof *s->x);
    s->ref = malloc(ny * sizeof *s->ref);
    if (!s->x || !s->ref) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    uint64_t state = o->seed ^ 0xabcdefull;
    for (size_t i = 0; i < nx; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        s->x[i] = (double)(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    }
    for (int32_t r = 0; r < s->A.rows; ++r) {
        double sum = 0;
        for (int64_t k = s->A.row_ptr[r]; k < s->A.row_ptr[r + 1]; ++k) sum += s->A.val[k] * s->x[s->A.col[k]];
        s->ref[r] = sum;
    }
    if (spmv_features(&s->A, s->precision, &problem->klass, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    return CLPK_SUCCESS;
}

typedef struct shape_cost {
    const char *shape;
    uint64_t bytes;
} shape_cost;

static int by_bytes(const void *a, const void *b) {
    uint64_t x = ((const shape_cost *)a)->bytes, y = ((const shape_cost *)b)->bytes;
    return (x > y) - (x < y);
}

/* Joins values with '|' (a tune_space_add_param narrowing). */
static void join(const char *const *values, int n, char *buf, size_t size) {
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && at < size; ++i)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? "|" : "", values[i]);
}

/* The parameters in the engine's order, with the table's values and conditions (lib/spmv/spmv_params.c), some
 * narrowed to the problem and the device. */
static clpk_status build_space(clpk_context *ctx, const tune_problem *problem, tune_space *space) {
    const spmv_problem *s = problem->state;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const core_param_table *t = &spmv_param_table;
    memset(space, 0, sizeof *space);
    CLPK_TRY(tune_space_add_param(space, t, "format", s->A.cols > s->A.rows ? NULL : "bccoo|csr"));
    /* the 4 block shapes of smallest footprint */
    const char *blocks[CLPK_TUNE_MAX_VALUES];
    char block_storage[256];
    int n = spmv_search_values("block", blocks, block_storage, sizeof block_storage, CLPK_TUNE_MAX_VALUES);
    shape_cost costs[CLPK_TUNE_MAX_VALUES];
    for (int i = 0; i < n; ++i) {
        char params[64];
        snprintf(params, sizeof params, "block=%s", blocks[i]);
        clpk_error err = {0};
        uint64_t bytes = 0;
        if (clpk_spmv_footprint(&s->A, s->precision, "bccoo", params, &bytes, &err) != CLPK_SUCCESS)
            return core_fail_from(ctx, &err);
        costs[i] = (shape_cost){blocks[i], bytes};
    }
    qsort(costs, (size_t)n, sizeof costs[0], by_bytes);
    const char *shapes[4];
    for (int i = 0; i < 4 && i < n; ++i)
        shapes[i] = costs[i].shape;
    char shape_list[64];
    join(shapes, n < 4 ? n : 4, shape_list, sizeof shape_list);
    CLPK_TRY(tune_space_add_param(space, t, "block", shape_list));
    CLPK_TRY(tune_space_add_param(space, t, "col", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "flag_bits", NULL));
    /* tiles: keep those leaving at least ~4 work-items per device lane-group (compute_units * 256); the three
     * smallest always stay */
    const char *all_tiles[CLPK_TUNE_MAX_VALUES], *tiles[CLPK_TUNE_MAX_VALUES];
    char tile_storage[256], tile_list[256];
    int nt = 0, ntiles = spmv_search_values("tile", all_tiles, tile_storage, sizeof tile_storage, CLPK_TUNE_MAX_VALUES);
    double min_threads = 4.0 * (dev->compute_units ? dev->compute_units : 1) * 256.0;
    for (int i = 0; i < ntiles; ++i)
        if (i < 3 || (double)s->A.nnz / atof(all_tiles[i]) >= min_threads) tiles[nt++] = all_tiles[i];
    join(tiles, nt, tile_list, sizeof tile_list);
    CLPK_TRY(tune_space_add_param(space, t, "tile", tile_list));
    CLPK_TRY(tune_space_add_param(space, t, "wg", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "strategy", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "cache", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "sync", spmv_device_has_forward_progress(dev) ? NULL : "fallback"));
    CLPK_TRY(tune_space_add_param(space, t, "slices", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "csr_vec", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "vload", NULL));
    CLPK_TRY(tune_space_add_param(space, t, "prefetch", NULL));
    return CLPK_SUCCESS;
}

static clpk_status spmv_space(clpk_context *ctx, const tune_problem *problem, tune_space *space) {
    spmv_problem *s = problem->state;
    if (!s->have_space) {
        CLPK_TRY(build_space(ctx, problem, &s->space));
        s->have_space = 1;
    }
    *space = s->space;
    return CLPK_SUCCESS;
}

/* Whether `key` sits at the first value of its list in the space (for parameters the format ignores). */
static int at_first(const tune_space *space, const core_params *c, const char *key) {
    const char *v = core_params_get(c, key);
    for (int i = 0; i < space->count; ++i)
        if (strcmp(space->params[i].name, key) == 0) return !v || strcmp(v, space->params[i].values[0]) == 0;
    return 1;
}

static int spmv_valid(clpk_context *ctx, const tune_problem *problem, const core_params *candidate) {
    const spmv_problem *s = problem->state;
    if (!s->have_space) {
        tune_space tmp;
        if (spmv_space(ctx, problem, &tmp) != CLPK_SUCCESS) return 0;
    }
    const tune_space *space = &s->space;
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    core_resolved r;
    spmv_config cfg;
    if (spmv_resolve_explicit(dev->kind, NULL, candidate, &r, NULL) != CLPK_SUCCESS ||
        spmv_config_read(&r, &s->A, &cfg, NULL) != CLPK_SUCCESS)
        return 0;
    if ((size_t)cfg.wg > dev->max_work_group_size) return 0;
    /* a parameter the point's format (or strategy) does not read sits at its first value: else a duplicate */
    for (int i = 0; i < space->count; ++i) {
        const core_param_def *d = core_param_find(&spmv_param_table, space->params[i].name);
        if (d && !core_param_active(d, &r.params) && !at_first(space, candidate, d->name)) return 0;
    }
    if (cfg.format == SPMV_CSR) return 1;
    if (cfg.vload && spmv_value_vec(&cfg, s->precision) == 1) return 0; /* scalar loads either way (1x1, 3x1) */
    if (cfg.tile < cfg.flag_bits / 2 && cfg.flag_bits > 8) return 0; /* a word mostly padding: a smaller word does it */
    cfg.sync_adjacent = cfg.sync == SPMV_SYNC_ADJACENT;
    return spmv_bccoo_local_bytes(&cfg, s->precision) <= dev->local_mem_bytes;
}

static clpk_status spmv_evaluate(clpk_context *ctx, tune_problem *problem, const core_params *candidate,
                                 int repeats, double *median_ms) {
    spmv_problem *s = problem->state;
    char params[1024];
    core_params_format(candidate, params, sizeof params);
    const int nrecent = (int)(sizeof s->recent / sizeof s->recent[0]);
    clpk_spmv_plan *plan = NULL;
    int cached = 0;
    for (int i = 0; i < nrecent && !plan; ++i)
        if (s->recent[i].plan && strcmp(s->recent[i].params, params) == 0) plan = s->recent[i].plan, cached = 1;
    if (!plan)
        CLPK_TRY(clpk_spmv_plan_create(ctx, &s->A, s->precision, core_params_get(candidate, "format"), params, &plan));
    size_t ny = s->A.rows ? (size_t)s->A.rows : 1;
    double *y = malloc(ny * sizeof *y);
    if (!y) {
        if (!cached) clpk_spmv_plan_destroy(plan);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < ny; ++i) y[i] = NAN; /* poison: beta = 0 must not read it, unwritten rows stay NaN */
    clpk_status st = clpk_spmv_host(plan, 1.0, s->x, 0.0, y);
    if (st == CLPK_SUCCESS) {
        double diff = 0, scale = 0;
        for (int32_t r = 0; r < s->A.rows; ++r) {
            double a = 0;
            for (int64_t k = s->A.row_ptr[r]; k < s->A.row_ptr[r + 1]; ++k) a += fabs(s->A.val[k] * s->x[s->A.col[k]]);
            if (a > scale) scale = a;
            double d = fabs(y[r] - s->ref[r]);
            if (!(d <= diff)) diff = d; /* NaN propagates */
        }
        double e = scale > 0 ? diff / scale : diff;
        double tol = s->precision == CLPK_PRECISION_F64 ? 1e-12 : 1e-5;
        if (!(e <= tol))
            st = core_fail(ctx, CLPK_ERROR_WRONG_RESULT, "spmv tune: %s %s: error %.3g over %.0e", problem->label,
                           params, e, tol);
    }
    free(y);
    if (st == CLPK_SUCCESS) {
        clpk_bench_stats stats;
        st = clpk_spmv_plan_bench(plan, 2, repeats > 0 ? repeats : 1, &stats);
        if (st == CLPK_SUCCESS) *median_ms = stats.median_ms;
    }
    if (cached) return st; /* a cached plan is checked again on every evaluation: a race shows as it does fresh */
    if (st != CLPK_SUCCESS || strlen(params) >= sizeof s->recent[0].params) {
        clpk_spmv_plan_destroy(plan);
        return st;
    }
    int at = s->next_recent;
    s->next_recent = (at + 1) % nrecent;
    clpk_spmv_plan_destroy(s->recent[at].plan);
    s->recent[at].plan = plan;
    memcpy(s->recent[at].params, params, strlen(params) + 1);
    return st;
}

static void spmv_defaults(clpk_context *ctx, const tune_problem *problem, core_params *out) {
    core_param_defaults(&spmv_param_table, clpk_context_device_info(ctx)->kind, out);
}

const tune_family tune_family_spmv = {
    .name = "spmv",
    .problem_count = spmv_problem_count,
    .problem_create = spmv_problem_create,
    .problem_destroy = spmv_problem_destroy,
    .space = spmv_space,
    .valid = spmv_valid,
    .evaluate = spmv_evaluate,
    .defaults = spmv_defaults,
    .prebuild_safe = 1, /* plan creation requests its program before it runs anything */
    /* A 540 s H100 run gave the model 22 s (220 measurements); it needs about 185 s (824) to rank well. */
    .budget_weight = 0.35,
    .train_model = tune_spmv_model_train,
};
