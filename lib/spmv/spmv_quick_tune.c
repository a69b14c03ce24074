/* Online per-matrix quick tune (clpk_spmv_plan_tune): for a matrix multiplied many times, a yaSpMV-style search over
 * a small pruned candidate set, each candidate checked against a CSR baseline plan on a random x and timed with a
 * few multiplies. The multiplies of the whole search are bounded by the caller's budget. */
#include "spmv_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 3 timed multiplies: a median that one slow run cannot move (with 2 it was their mean, and the suite's picks moved
 * by 10 % between runs on the H100). The default budget leaves room for two rounds of refinement after the ~6
 * first candidates. */
enum { TUNE_TIMED = 3, TUNE_DEFAULT_BUDGET = 60, TUNE_MAX_TRIED = 64, TUNE_ROUNDS = 3 };

typedef struct tune_state {
    clpk_context *ctx;
    const clpk_csr *A;
    clpk_precision precision;
    int budget;
    double *x, *ref, *scale, *y;
    clpk_spmv_plan *best;
    double best_ms;
    char best_bccoo[512]; /* the fastest BCCOO / BCCOO+ candidate (the refinement starts from it) */
    double best_bccoo_ms;
    clpk_spmv_tune_report *rep;
    uint64_t tried[TUNE_MAX_TRIED]; /* hashes of the variants built so far: a later round does not repeat one */
    int ntried;
} tune_state;

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Agreement with the CSR result row by row, relative to sum_j |a_ij x_j| (the scale accumulation-order rounding grows
 * with); a NaN or an unwritten row fails. */
static int agrees(const tune_state *t, const double *y) {
    double tol = t->precision == CLPK_PRECISION_F64 ? 1e-11 : 2e-4;
    for (int32_t r = 0; r < t->A->rows; ++r)
        if (!(fabs(y[r] - t->ref[r]) <= tol * t->scale[r])) return 0;
    return 1;
}

/* Checks and times one plan (takes ownership); keeps it if it is the fastest so far. */
static void consider(tune_state *t, clpk_spmv_plan *p, int is_default) {
    clpk_spmv_tune_report *rep = t->rep;
    rep->candidates++;
    for (int32_t r = 0; r < t->A->rows; ++r) t->y[r] = NAN;
    t->budget -= 1 + TUNE_TIMED;
    rep->multiplies += 1;
    clpk_bench_stats s;
    if (clpk_spmv_host(p, 1.0, t->x, 0.0, t->y) != CLPK_SUCCESS || !agrees(t, t->y)) {
        core_log(t->ctx, CLPK_LOG_WARN, "spmv quick tune: candidate rejected (build or result)");
        rep->rejected++;
        clpk_spmv_plan_destroy(p);
        return;
    }
    rep->multiplies += TUNE_TIMED;
    if (clpk_spmv_plan_bench(p, 0, TUNE_TIMED, &s) != CLPK_SUCCESS) {
        rep->rejected++;
        clpk_spmv_plan_destroy(p);
        return;
    }
    if (is_default) rep->default_ms = s.median_ms;
    if (p->cfg.format != SPMV_CSR && s.median_ms < t->best_bccoo_ms) {
        t->best_bccoo_ms = s.median_ms;
        clpk_spmv_plan_describe(p, t->best_bccoo, sizeof t->best_bccoo);
    }
    if (!t->best || s.median_ms < t->best_ms) {
        clpk_spmv_plan_destroy(t->best);
        t->best = p;
        t->best_ms = s.median_ms;
        rep->chose_default = is_default;
    } else {
        clpk_spmv_plan_destroy(p);
    }
}

/* Builds and considers the plan `format` + `params` while the budget allows one more candidate. */
static void try_params(tune_state *t, const char *format, const char *params, int is_default) {
    if (t->budget < 1 + TUNE_TIMED) return;
    clpk_spmv_plan *p = NULL;
    if (clpk_spmv_plan_create(t->ctx, t->A, t->precision, format, params, &p) != CLPK_SUCCESS) {
        t->rep->candidates++;
        t->rep->rejected++;
        return;
    }
    consider(t, p, is_default);
}

/* Whether the parameter text was built before in this search (and remembers it). */
static int seen_before(tune_state *t, const char *text) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const char *c = text; *c; ++c) h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
    for (int i = 0; i < t->ntried; ++i)
        if (t->tried[i] == h) return 1;
    if (t->ntried < TUNE_MAX_TRIED) t->tried[t->ntried++] = h;
    return 0;
}

/* The best BCCOO plan's parameters with one key changed (skipped when the value is the current one). */
static void try_variant(tune_state *t, const char *base, const char *key, long long value) {
    core_params p;
    core_params_clear(&p);
    if (core_params_parse(&p, base, NULL) != CLPK_SUCCESS) return;
    if (core_params_get_int(&p, key, -1) == value) return;
    core_params_set_int(&p, key, value);
    if (!strcmp(key, "strategy")) core_params_set(&p, "cache", value == 1 ? "1" : "2");
    char text[600];
    core_params_format(&p, text, sizeof text);
    if (seen_before(t, text)) return;
    char format[16];
    snprintf(format, sizeof format, "%s", core_params_get(&p, "format"));
    try_params(t, format, text, 0);
}

typedef struct shape_bytes {
    const char *shape;
    uint64_t bytes;
} shape_bytes;

static int by_bytes(const void *a, const void *b) {
    uint64_t x = ((const shape_bytes *)a)->bytes, y = ((const shape_bytes *)b)->bytes;
    return (x > y) - (x < y);
}

/* A parameter's searched values (the table's, lib/spmv/spmv_params.c), as numbers in their order. */
typedef struct value_list {
    int count;
    long long v[24];
} value_list;

static value_list searched(const char *name) {
    const char *text[24];
    char storage[256];
    value_list l = {0};
    l.count = spmv_search_values(name, text, storage, sizeof storage, 24);
    for (int i = 0; i < l.count; ++i)
        l.v[i] = atoll(text[i]);
    return l;
}

/* The values next to `tile` in the searched tiles (0 where there is none). */
static void tile_neighbours(const value_list *tiles, long long tile, long long *below, long long *above) {
    *below = *above = 0;
    for (int i = 0; i < tiles->count; ++i) {
        if (tiles->v[i] < tile) *below = tiles->v[i];
        if (tiles->v[i] > tile && !*above) *above = tiles->v[i];
    }
}

/* Whether a tile is searched: the quick tune picks only tiles test_spmv_sweep runs. */
static int listed(const value_list *l, long long value) {
    for (int i = 0; i < l->count; ++i)
        if (l->v[i] == value) return 1;
    return 0;
}

/* The other value of a two-valued parameter (strategy, interleave, vload) of the table. */
static long long other_value(const char *name, long long value) {
    const core_param_def *d = core_param_find(&spmv_param_table, name);
    return d->lo + d->hi - value;
}

/* Refines the best BCCOO plan by coordinate descent: each round tries its one-parameter variants (the neighbouring
 * tiles, tile halved / doubled, the other strategy, the other work-group size, the other interleave, the other vload,
 * prefetch 4 or none), and the next round starts from the round's winner, as long as a round finds a better plan and
 * the budget lasts: one round from one base misses points that need two steps (e.g. work-group and tile together,
 * docs/perf-spmv.md). */
static void refine(tune_state *t) {
    const value_list tiles = searched("tile"), prefetches = searched("prefetch"); /* prefetch: 1 (none), 4, ... */
    for (int round = 0; round < TUNE_ROUNDS && t->best_bccoo[0]; ++round) {
        char base[512];
        memcpy(base, t->best_bccoo, sizeof base);
        core_params p;
        core_params_clear(&p);
        if (core_params_parse(&p, base, NULL) != CLPK_SUCCESS) return;
        char text[600];
        core_params_format(&p, text, sizeof text);
        (void)seen_before(t, text); /* the base itself: no variant of a later round rebuilds it */
        long long tile = core_params_get_int(&p, "tile", 16), wg = core_params_get_int(&p, "wg", 256);
        long long strategy = core_params_get_int(&p, "strategy", 1), below = 0, above = 0;
        tile_neighbours(&tiles, tile, &below, &above);
        if (below) try_variant(t, base, "tile", below);
        if (above) try_variant(t, base, "tile", above);
        if (tile / 2 != below && listed(&tiles, tile / 2)) try_variant(t, base, "tile", tile / 2);
        if (tile * 2 != above && listed(&tiles, tile * 2)) try_variant(t, base, "tile", tile * 2);
        try_variant(t, base, "strategy", other_value("strategy", strategy));
        try_variant(t, base, "wg", wg >= 256 ? wg / 2 : wg * 2);
        try_variant(t, base, "interleave", other_value("interleave", core_params_get_int(&p, "interleave", 0)));
        /* last (dropped first when the budget runs out): the other value layout, where it changes the loads, and
         * prefetch, none or the smallest searched chunk (the smallest measured gains) */
        spmv_config vc = {.block_h = (int)core_params_get_int(&p, "block_h", 1),
                          .block_w = (int)core_params_get_int(&p, "block_w", 1), .vload = 1};
        if (spmv_value_vec(&vc, t->precision) > 1)
            try_variant(t, base, "vload", other_value("vload", core_params_get_int(&p, "vload", 0)));
        try_variant(t, base, "prefetch",
                    core_params_get_int(&p, "prefetch", 1) == prefetches.v[0] ? prefetches.v[1] : prefetches.v[0]);
        if (!strcmp(base, t->best_bccoo)) return; /* no variant beat the base: a local optimum */
    }
}

static clpk_status search(tune_state *t) {
    clpk_context *ctx = t->ctx;
    const clpk_csr *A = t->A;
    /* the baseline: CSR with its defaults, its result is the reference every candidate is checked against */
    clpk_spmv_plan *csr = NULL;
    CLPK_TRY(clpk_spmv_plan_create(ctx, A, t->precision, "csr", NULL, &csr));
    t->rep->multiplies += 1;
    t->budget -= 1;
    clpk_status st = clpk_spmv_host(csr, 1.0, t->x, 0.0, t->ref);
    if (st != CLPK_SUCCESS) {
        clpk_spmv_plan_destroy(csr);
        return st;
    }
    /* CSR joins as a candidate (checked against itself: it must reproduce its own bits, i.e. be deterministic) */
    consider(t, csr, 0);
    try_params(t, NULL, NULL, 1);
    /* the 4 of the table's block shapes with the smallest exact footprint, at the device's default tile / wg /
     * strategy */
    const char *names[24];
    char storage[256];
    int count = spmv_search_values("block", names, storage, sizeof storage, 24), n = 0;
    shape_bytes shapes[24];
    for (int i = 0; i < count; ++i) {
        char params[64];
        snprintf(params, sizeof params, "block=%s", names[i]);
        uint64_t bytes = 0;
        if (clpk_spmv_footprint(A, t->precision, "bccoo", params, &bytes, NULL) == CLPK_SUCCESS)
            shapes[n++] = (shape_bytes){names[i], bytes};
    }
    qsort(shapes, (size_t)n, sizeof shapes[0], by_bytes);
    for (int i = 0; i < n && i < 4; ++i) {
        char params[64];
        snprintf(params, sizeof params, "block=%s", shapes[i].shape);
        try_params(t, "bccoo", params, 0);
    }
    /* BCCOO+ only for matrices wider than tall (the seed's pruning): the most searched slices up to cols / rows */
    const value_list slices = searched("slices");
    if (A->cols > A->rows && n > 0 && slices.count > 0) {
        long long chosen = slices.v[0];
        for (int i = 1; i < slices.count && slices.v[i] * A->rows <= A->cols; ++i)
            chosen = slices.v[i];
        char params[96];
        snprintf(params, sizeof params, "block=%s,slices=%lld", shapes[0].shape, chosen);
        try_params(t, "bccoo+", params, 0);
    }
    refine(t);
    return CLPK_SUCCESS;
}

clpk_status clpk_spmv_plan_tune(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, int max_multiplies,
                                clpk_spmv_plan **plan, clpk_spmv_tune_report *report) {
    if (plan) *plan = NULL;
    if (!ctx) return CLPK_ERROR_INVALID_ARGUMENT;
    if (!A || !plan) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_plan_tune: NULL argument");
    if (max_multiplies < 0)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_plan_tune: max_multiplies %d < 0",
                         max_multiplies);
    int budget = max_multiplies ? max_multiplies : TUNE_DEFAULT_BUDGET;
    if (budget < 1 + 2 * (1 + TUNE_TIMED))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "clpk_spmv_plan_tune: max_multiplies %d is below %d (the CSR baseline and one candidate)",
                         budget, 1 + 2 * (1 + TUNE_TIMED));
    clpk_error err = {0};
    if (spmv_csr_validate(A, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    clpk_spmv_tune_report local;
    tune_state t = {.ctx = ctx, .A = A, .precision = precision, .budget = budget, .best_ms = INFINITY,
                    .best_bccoo_ms = INFINITY, .rep = report ? report : &local};
    memset(t.rep, 0, sizeof *t.rep);
    size_t nr = A->rows ? (size_t)A->rows : 1, nc = A->cols ? (size_t)A->cols : 1;
    t.x = malloc(nc * sizeof *t.x);
    t.ref = malloc(nr * sizeof *t.ref);
    t.scale = calloc(nr, sizeof *t.scale);
    t.y = malloc(nr * sizeof *t.y);
    if (!t.x || !t.ref || !t.scale || !t.y) {
        free(t.x), free(t.ref), free(t.scale), free(t.y);
        return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    uint64_t rng = 0x7e57c0deull ^ (uint64_t)A->nnz;
    for (size_t j = 0; j < nc; ++j) t.x[j] = (double)(mix(&rng) >> 11) * 0x1.0p-52 - 1.0; /* [-1, 1) */
    for (int32_t r = 0; r < A->rows; ++r)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k) t.scale[r] += fabs(A->val[k] * t.x[A->col[k]]);
    clpk_status st = search(&t);
    free(t.x), free(t.ref), free(t.scale), free(t.y);
    if (st == CLPK_SUCCESS && !t.best)
        st = core_fail(ctx, CLPK_ERROR_INTERNAL, "clpk_spmv_plan_tune: no candidate passed the check");
    if (st != CLPK_SUCCESS) {
        clpk_spmv_plan_destroy(t.best);
        return st;
    }
    t.rep->best_ms = t.best_ms;
    clpk_spmv_plan_describe(t.best, t.rep->choice, sizeof t.rep->choice);
    core_log(ctx, CLPK_LOG_INFO,
             "spmv quick tune: %d candidates (%d rejected), %d multiplies, %.4f ms (default %.4f): %s",
             t.rep->candidates, t.rep->rejected, t.rep->multiplies, t.best_ms, t.rep->default_ms, t.rep->choice);
    *plan = t.best;
    return CLPK_SUCCESS;
}
