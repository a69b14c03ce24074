/* Sweep over the spmv parameter space the tuner may choose (the values the table lib/spmv/spmv_params.c gives the
 * tuner, tuner/tune_spmv.c): every value of every parameter and
 * every combination of the switches that change code paths (strategy x sync x BCCOO+, each with skip_scan on and
 * off; transpose offline and online with and without staging; vload=1 on each distinct vector-load code;
 * interleave 0 and 1 on each; prefetch 1, 4 and 8 walked over the points, each with both transposes, syncs and
 * strategies), in
 * f32 and f64, against the double-precision reference with NaN-poisoned y. The points are arranged as a covering
 * array so few distinct programs are built. */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of a parameter (lib/spmv/spmv_params.c): those the tuner searches, or (all = 1) those allowed. */
typedef struct list {
    int n;
    const char *v[24];
    char storage[256];
} list;

static void table_values(list *l, const char *name, int all) {
    core_param_def d = *core_param_find(&spmv_param_table, name);
    if (all) d.search = d.values;
    l->n = core_param_search_values(&d, l->v, l->storage, sizeof l->storage, 24);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s\n", dev->name);
    /* the tuner's lists; columns: every explicit width (auto picks short or int) */
    list shapes, flags, colt, tiles, wgs, caches, slices, csr_vecs, prefetches;
    table_values(&shapes, "block", 0);
    table_values(&flags, "flag_bits", 0);
    table_values(&colt, "col", 1);
    if (colt.n > 0 && !strcmp(colt.v[0], "auto")) memmove(colt.v, colt.v + 1, sizeof colt.v[0] * (size_t)--colt.n);
    table_values(&tiles, "tile", 0);
    table_values(&wgs, "wg", 0);
    table_values(&caches, "cache", 0);
    table_values(&slices, "slices", 0);
    table_values(&csr_vecs, "csr_vec", 0);
    table_values(&prefetches, "prefetch", 0);
    const char *specs[] = {"fem:23", "powerlaw:1500", "longrow:400:3000:2500"};
    clpk_csr mats[3];
    for (int i = 0; i < 3; ++i) {
        clpk_error err = {0};
        if (!CHECK(clpk_spmv_generate(specs[i], check_rand(&rng), &mats[i], &err) == CLPK_SUCCESS, "generate: %s",
                   err.message))
            return check_summary();
    }
    /* Compile-time parameters (one program each): 12 points per precision, point i has shape i and the code-path
     * switches strategy x sync x BCCOO+ from its low bits (all 8 combinations within the first 8); the other lists
     * are walked with coprime strides. Runtime switches (skip_scan, cache) are varied on each point. */
    const int npoints = shapes.n;
    /* Tiles: the compile-time points walk the shared list with stride 2 (coprime with its length, so the f32
     * points alone cover it); the vload points with stride 5. The check at the end proves every value ran. */
    int n_tiles = tiles.n, ran[24] = {0};
    for (int pi = 0; pi < 2; ++pi) {
        clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (p == CLPK_PRECISION_F64 && !dev->has_fp64) {
            printf("skip f64: the device has no fp64\n");
            continue;
        }
        for (int i = 0; i < npoints; ++i) {
            int k = i + pi * 5, tile = (k * 2) % n_tiles;
            int strategy = 1 + (i & 1), adjacent = (i >> 1) & 1, plus = (i >> 2) & 1;
            int bh = shapes.v[i][0] - '0', bw = shapes.v[i][2] - '0';
            const char *wg = wgs.v[k % wgs.n];
            /* transpose is per point (the online staging is compiled only into plans that use it): points 8..11
             * are online, with and without col=delta (delta reads natural order without staging) */
            int online = i >= 8;
            for (int v = 0; v < 4; ++v) {
                int skip = v & 1, interleave = (v >> 1) & 1; /* interleave: host layout only, no program */
                int cache = atoi(caches.v[(k + v) % caches.n]);
                /* the tuner's `valid` drops strategy-2 caches that do not fit in local memory (48 KiB on NVIDIA):
                 * use the largest that fits, exactly as the plan computes it */
                spmv_config lc = {.block_h = bh, .wg = atoi(wg), .strategy = strategy, .cache = cache};
                while (cache > 1 && spmv_bccoo_local_bytes(&lc, p) > dev->local_mem_bytes)
                    lc.cache = --cache;
                char params[256];
                snprintf(params, sizeof params,
                         "block_h=%d,block_w=%d,flag_bits=%s,col=%s,tile=%s,wg=%s,strategy=%d,cache=%d,sync=%s,"
                         "skip_scan=%d,transpose=%s,slices=%s,interleave=%d,prefetch=%s",
                         bh, bw, flags.v[k % flags.n], colt.v[k % colt.n], tiles.v[tile], wg, strategy, cache,
                         adjacent ? "adjacent" : "fallback", skip, online ? "online" : "offline",
                         slices.v[k % slices.n], interleave, prefetches.v[(i + pi) % prefetches.n]);
                const clpk_csr *A = &mats[(i + v) % 3];
                double e = spmv_util_check(ctx, A, p, plus ? "bccoo+" : "bccoo", params, specs[(i + v) % 3], &rng);
                ran[tile] = 1;
                printf("%s %-6s %-140s %.3g\n", clpk_precision_name(p), plus ? "bccoo+" : "bccoo", params, e);
            }
        }
        /* vload=1 (values in aligned vectors of up to 16 bytes, lib/spmv/spmv_config.c spmv_value_vec): one program per
         * distinct load code of the kernel's block_rows: BW=1 with 2 or 4 rows per vector, BW=2 with 2 rows per
         * float4, one vector per block row (typed loads), each through the offline, staged online and unstaged
         * natural-order (col=delta) reads, both strategies, both syncs and BCCOO+. x + 0 is aligned here (typed x
         * loads); test_spmv_repeat runs vload=1 with an odd x offset (the vloadn fallback). */
        static const struct {
            const char *shape, *transpose, *col;
        } vpoints[2][4] = {
            {{"2x1", "offline", "int"},
             {"4x2", "offline", "short"},
             {"4x1", "online", "short"},
             {"3x2", "online", "delta"}},
            {{"4x1", "offline", "short"}, {"2x2", "online", "int"}, {NULL, NULL, NULL}, {NULL, NULL, NULL}}};
        for (int i = 0; i < 4 && vpoints[pi][i].shape; ++i) {
            int k = i + pi * 3, strategy = 1 + (k & 1), adjacent = (k >> 1) & 1, plus = k == 2 || k == 3;
            for (int v = 0; v < 2; ++v) {
                char params[256];
                snprintf(params, sizeof params,
                         "block=%s,vload=1,flag_bits=%s,col=%s,tile=%s,wg=%s,strategy=%d,cache=1,sync=%s,"
                         "skip_scan=%d,transpose=%s,slices=%s,interleave=%d,prefetch=%s",
                         vpoints[pi][i].shape, flags.v[k % flags.n], vpoints[pi][i].col, tiles.v[(k * 5) % n_tiles],
                         wgs.v[(k + 1) % wgs.n], strategy, adjacent ? "adjacent" : "fallback", v,
                         vpoints[pi][i].transpose, slices.v[k % slices.n], 1 - v, prefetches.v[(k + 1) % prefetches.n]);
                const clpk_csr *A = &mats[(i + v) % 3];
                double e = spmv_util_check(ctx, A, p, plus ? "bccoo+" : "bccoo", params, specs[(i + v) % 3], &rng);
                ran[(k * 5) % n_tiles] = 1;
                printf("%s %-6s %-140s %.3g\n", clpk_precision_name(p), plus ? "bccoo+" : "bccoo", params, e);
            }
        }
        for (int i = 0; i < csr_vecs.n; ++i) {
            char params[64];
            snprintf(params, sizeof params, "csr_vec=%s,wg=%s", csr_vecs.v[i], wgs.v[(i + pi) % wgs.n]);
            double e = spmv_util_check(ctx, &mats[i % 3], p, "csr", params, specs[i % 3], &rng);
            printf("%s csr    %-150s %.3g\n", clpk_precision_name(p), params, e);
        }
    }
    for (int i = 0; i < n_tiles; ++i)
        CHECK(ran[i], "tile=%s (a tuner value) never ran", tiles.v[i]);
    for (int i = 0; i < 3; ++i)
        spmv_util_free(&mats[i]);
    clpk_context_destroy(ctx);
    return check_summary();
}
