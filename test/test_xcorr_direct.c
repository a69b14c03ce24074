/* Every direct variant at every value of every parameter the tuner may choose (the values the family's table searches,
 * lib/xcorr/xcorr_params.c, within the limits of tuner/tune_xcorr.c's `valid`), on random
 * inputs against the double CPU reference, on all four patterns, odd and non-square sizes from 1x1 up, full outputs
 * and search windows, buffer offsets, poisoned outputs and guards. The sweep covers each parameter value with few
 * distinct programs (values paired along a diagonal: kernels are compiled per -D set). Also: f64, determinism. */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "param_table.h"
#include "xcorr_params.h"
#include "xcorr_reference.h"
#include "xcorr_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sweep_case {
    const char *algorithm;
    char params[96];
} sweep_case;

/* The values the table searches for parameter `name`, as integers, keeping those within [lo, hi] (the tuner's
 * `valid` narrows some per algorithm). */
static int searched(const char *name, int lo, int hi, int *out, int capacity) {
    const char *values[24];
    char storage[256];
    const int n =
        core_param_search_values(core_param_find(&xcorr_param_table, name), values, storage, sizeof storage, 24);
    int kept = 0;
    for (int i = 0; i < n && kept < capacity; ++i)
        if (atoi(values[i]) >= lo && atoi(values[i]) <= hi) out[kept++] = atoi(values[i]);
    return kept;
}

/* The same for a NAME row: its searched names. */
static int searched_names(const char *name, const char **out, char *storage, size_t size) {
    return core_param_search_values(core_param_find(&xcorr_param_table, name), out, storage, size, 8);
}

/* The register-blocked variants pair their values so that each program stays within the tuner's limits (grouped:
 * one pair per work-item; multi-right: rights > 1, shifts and rows <= 4; multi-both: lefts > 1, rights <= 4, rows
 * <= 2; at most 32 accumulators); tile_coverage() checks that together they cover the table's values. */
static const sweep_case tile_cases[] = {
    {"grouped", "shifts=1,rows=8,lefts=1,rights=1,wg=64"},
    {"grouped", "shifts=2,rows=4,wg=128"},
    {"grouped", "shifts=4,rows=2,wg=256"},
    {"grouped", "shifts=8,rows=1,wg=128"},
    {"multi-right", "rights=2,shifts=4,rows=2,wg=64"},
    {"multi-right", "rights=4,shifts=1,rows=4,wg=128"},
    {"multi-right", "rights=8,shifts=2,rows=1,wg=256"},
    {"multi-both", "lefts=2,rights=4,shifts=1,rows=2,wg=64"},
    {"multi-both", "lefts=4,rights=2,shifts=2,rows=1,wg=128"},
    {"multi-both", "lefts=2,rights=2,shifts=4,rows=1,wg=256"},
};
enum { TILE_CASES = sizeof tile_cases / sizeof tile_cases[0], MAX_CASES = 64 };

/* The sweep's cases: every searched value of each direct variant's parameters, few programs (kernels compile per
 * -D set). wg below 64 only where the tuner offers it (warp-per-overlap). */
static int make_cases(sweep_case *cases) {
    int n = 0, wg[24], team[24], rpw[24];
    const int n_wg = searched("wg", 64, 1 << 16, wg, 24), n_team = searched("team", 1, 1 << 16, team, 24);
    const int n_rpw = searched("rows_per_worker", 1, 1 << 16, rpw, 24);
    const char *combine[8], *distribution[8];
    char combine_s[64], distribution_s[64];
    const int n_combine = searched_names("combine", combine, combine_s, sizeof combine_s);
    const int n_distribution = searched_names("distribution", distribution, distribution_s, sizeof distribution_s);
    for (int i = 0; i < n_wg; ++i) {
        cases[n].algorithm = "naive";
        snprintf(cases[n++].params, sizeof cases[0].params, "wg=%d", wg[i]);
    }
    for (int i = 0; i < n_team; ++i) {
        cases[n].algorithm = "shift-buffer";
        snprintf(cases[n++].params, sizeof cases[0].params, "team=%d", team[i]);
    }
    /* split-row: a diagonal long enough for every value and every combine x distribution pair */
    int split = n_rpw > n_wg ? n_rpw : n_wg;
    if (split < n_combine * n_distribution) split = n_combine * n_distribution;
    for (int k = 0; k <= split; ++k) {
        cases[n].algorithm = "split-row";
        snprintf(cases[n++].params, sizeof cases[0].params, "rows_per_worker=%d,combine=%s,distribution=%s,wg=%d",
                 rpw[k % n_rpw], combine[k % n_combine], distribution[(k / n_combine) % n_distribution], wg[k % n_wg]);
    }
    for (int i = 0; i < TILE_CASES; ++i)
        cases[n++] = tile_cases[i];
    int wpo[24];
    const int n_wpo = searched("wg", 1, 1 << 16, wpo, 24);
    for (int i = 0; i < n_wpo; ++i) {
        cases[n].algorithm = "warp-per-overlap";
        snprintf(cases[n++].params, sizeof cases[0].params, "wg=%d", wpo[i]);
    }
    return n;
}

/* Whether the register-blocked cases use every value the tuner searches for their parameters (wg from 64). */
static void tile_coverage(void) {
    static const char *const keys[] = {"shifts", "rows", "lefts", "rights", "wg"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        int values[24];
        /* rows 16 is fused-fft's (the tuner's valid() keeps register blocks at most 8 rows) */
        const int n = searched(keys[k], strcmp(keys[k], "wg") == 0 ? 64 : 1, strcmp(keys[k], "rows") == 0 ? 8 : 1 << 16,
                               values, 24);
        for (int v = 0; v < n; ++v) {
            char item[32];
            snprintf(item, sizeof item, "%s=%d", keys[k], values[v]);
            int seen = 0;
            for (int c = 0; c < TILE_CASES && !seen; ++c) {
                core_params p;
                core_params_clear(&p);
                core_params_parse(&p, tile_cases[c].params, NULL);
                seen = core_params_get_int(&p, keys[k], -1) == values[v];
            }
            CHECK(seen, "the table searches %s but no register-blocked sweep case uses it", item);
        }
    }
}

/* Whether the plan is expected to refuse these parameters on this pattern. */
static int refused(const char *params, clpk_xcorr_pattern pattern) {
    const int rights = strstr(params, "rights=") ? atoi(strstr(params, "rights=") + 7) : 1;
    const int lefts = strstr(params, "lefts=") ? atoi(strstr(params, "lefts=") + 6) : 1;
    return (rights > 1 && pattern == CLPK_XCORR_ONE_TO_ONE) || (lefts > 1 && pattern != CLPK_XCORR_N_TO_M);
}

static void label_of(char *buf, size_t size, const clpk_xcorr_shape *s, const char *algo, const char *params) {
    snprintf(buf, size, "%s %s %dx%d %d/%d win %dx%d %s {%s}", clpk_xcorr_pattern_name(s->pattern),
             clpk_precision_name(s->precision), s->rows, s->cols, s->n_left, s->n_right, s->search_rows, s->search_cols,
             algo, params ? params : "");
}

static void sweep(clpk_context *ctx, uint64_t *rng) {
    char label[256];
    sweep_case cases[MAX_CASES];
    const size_t n_cases = (size_t)make_cases(cases);
    tile_coverage();
    for (size_t c = 0; c < n_cases; ++c)
        for (size_t s = 0; s < XCORR_SWEEP_SHAPES; ++s) {
            const clpk_xcorr_shape *shape = &xcorr_sweep_shapes[s];
            label_of(label, sizeof label, shape, cases[c].algorithm, cases[c].params);
            if (refused(cases[c].params, shape->pattern)) {
                clpk_xcorr_plan *plan = NULL;
                clpk_status st = clpk_xcorr_plan_create(ctx, shape, cases[c].algorithm, cases[c].params, &plan);
                CHECK(st == CLPK_ERROR_INVALID_ARGUMENT && !plan, "%s: accepted on a pattern it cannot serve", label);
                clpk_xcorr_plan_destroy(plan);
                continue;
            }
            xcorr_check_case(ctx, rng, shape, cases[c].algorithm, cases[c].params, (c + s) % 3, label);
        }
}

/* Sizes at the ends of the range (1x1 .. 300x300) at each algorithm's defaults. Full outputs where the
 * double reference stays cheap; 300x300 with a search window (a full 300x300 reference is 8e9 multiply-adds). */
static void sizes(clpk_context *ctx, uint64_t *rng) {
    static const clpk_xcorr_shape big[] = {
        {CLPK_XCORR_ONE_TO_ONE, 300, 300, 1, 1, 7, 11, CLPK_PRECISION_F32},
        {CLPK_XCORR_ONE_TO_MANY, 300, 7, 1, 2, 0, 0, CLPK_PRECISION_F32},
        {CLPK_XCORR_N_TO_MN, 1, 300, 1, 2, 0, 0, CLPK_PRECISION_F32},
        {CLPK_XCORR_N_TO_M, 64, 48, 2, 2, 0, 0, CLPK_PRECISION_F32},
    };
    static const char *const algos[] = {"naive",       "shift-buffer", "split-row",        "grouped",
                                        "multi-right", "multi-both",   "warp-per-overlap", "auto"};
    char label[256];
    for (size_t s = 0; s < sizeof big / sizeof big[0]; ++s)
        for (size_t a = 0; a < sizeof algos / sizeof algos[0]; ++a) {
            if (strcmp(algos[a], "multi-right") == 0 && big[s].pattern == CLPK_XCORR_ONE_TO_ONE) continue;
            if (strcmp(algos[a], "multi-both") == 0 && big[s].pattern != CLPK_XCORR_N_TO_M) continue;
            label_of(label, sizeof label, &big[s], algos[a], NULL);
            xcorr_check_case(ctx, rng, &big[s], algos[a], NULL, 1, label);
        }
}

/* f64: every algorithm at its defaults on two patterns, and the atomic combine. */
static void doubles(clpk_context *ctx, uint64_t *rng) {
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (!dev->has_fp64) {
        printf("skip f64: %s has no double precision\n", dev->name);
        return;
    }
    static const clpk_xcorr_shape f64_shapes[] = {
        {CLPK_XCORR_N_TO_MN, 11, 6, 2, 4, 0, 0, CLPK_PRECISION_F64},
        {CLPK_XCORR_N_TO_M, 9, 10, 2, 3, 5, 0, CLPK_PRECISION_F64},
    };
    static const char *const f64_algos[] = {"naive",       "shift-buffer", "split-row",       "grouped",
                                            "multi-right", "multi-both",   "warp-per-overlap"};
    char label[256];
    for (size_t s = 0; s < sizeof f64_shapes / sizeof f64_shapes[0]; ++s) {
        for (size_t c = 0; c < sizeof f64_algos / sizeof f64_algos[0]; ++c) {
            label_of(label, sizeof label, &f64_shapes[s], f64_algos[c], NULL);
            xcorr_check_case(ctx, rng, &f64_shapes[s], f64_algos[c], NULL, s, label);
        }
        label_of(label, sizeof label, &f64_shapes[s], "split-row", "combine=atomic");
        if (dev->has_int64_atomics)
            xcorr_check_case(ctx, rng, &f64_shapes[s], "split-row", "rows_per_worker=2,combine=atomic", 0, label);
        else
            printf("skip %s: no 64-bit atomics\n", label);
        static const char *const tri = "rows_per_worker=3,combine=ordered,distribution=triangle";
        label_of(label, sizeof label, &f64_shapes[s], "split-row", tri);
        xcorr_check_case(ctx, rng, &f64_shapes[s], "split-row", tri, 1, label);
        if (dev->has_int64_atomics) {
            static const char *const tri_atomic = "rows_per_worker=1,combine=atomic,distribution=triangle";
            label_of(label, sizeof label, &f64_shapes[s], "split-row", tri_atomic);
            xcorr_check_case(ctx, rng, &f64_shapes[s], "split-row", tri_atomic, 0, label);
        }
    }
}

/* The deterministic variants give bit-identical results run after run (a moving result would be a race). */
static void determinism(clpk_context *ctx, uint64_t *rng) {
    const clpk_xcorr_shape shape = {CLPK_XCORR_ONE_TO_MANY, 23, 19, 1, 3, 0, 0, CLPK_PRECISION_F32};
    const char *const algos[][2] = {{"split-row", "rows_per_worker=2,combine=ordered"},
                                    {"split-row", "rows_per_worker=3,combine=ordered,distribution=triangle"},
                                    {"shift-buffer", "team=16"},
                                    {"multi-right", NULL},
                                    {"warp-per-overlap", NULL}};
    const size_t mat = (size_t)shape.rows * shape.cols;
    const size_t no = clpk_xcorr_output_count(&shape) * clpk_xcorr_output_rows(&shape) * clpk_xcorr_output_cols(&shape);
    double *l = malloc(mat * sizeof *l), *r = malloc(3 * mat * sizeof *r);
    double *a = malloc(no * sizeof *a), *b = malloc(no * sizeof *b);
    xcorr_fill_random(rng, l, mat);
    xcorr_fill_random(rng, r, 3 * mat);
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; ++i) {
        clpk_xcorr_plan *plan = NULL;
        int g1 = 0, g2 = 0;
        clpk_status st = clpk_xcorr_plan_create(ctx, &shape, algos[i][0], algos[i][1], &plan);
        if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, &shape, l, r, 0, a, &g1);
        if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, &shape, l, r, 0, b, &g2);
        if (CHECK(st == CLPK_SUCCESS, "%s: %s", algos[i][0], clpk_last_error(ctx)))
            CHECK(memcmp(a, b, no * sizeof *a) == 0 && g1 && g2, "%s: two runs differ", algos[i][0]);
        clpk_xcorr_plan_destroy(plan);
    }
    free(l);
    free(r);
    free(a);
    free(b);
}

/* split-row's distributions: the triangle launches only the workers each output row needs (layers of centred bands,
 * see cl/xcorr_split.cl); with the ordered combine it sums the same partial sums in the same order as the rectangle,
 * so the two agree bit for bit. Shapes where the bands fill a search window for several layers before shrinking,
 * single rows, rows_per_worker not dividing the rows, and f64 (ordered and atomic). */
static void distributions(clpk_context *ctx, uint64_t *rng) {
    static const clpk_xcorr_shape tri_shapes[] = {
        {CLPK_XCORR_ONE_TO_ONE, 13, 7, 2, 2, 0, 0, CLPK_PRECISION_F32},
        {CLPK_XCORR_ONE_TO_MANY, 20, 9, 1, 3, 7, 5, CLPK_PRECISION_F32}, /* window: full bands for 4 layers (rpw 3) */
        {CLPK_XCORR_N_TO_M, 1, 6, 2, 2, 0, 0, CLPK_PRECISION_F32},       /* one row: one layer */
        {CLPK_XCORR_N_TO_MN, 9, 4, 2, 4, 17, 1, CLPK_PRECISION_F32},
    };
    static const char *const rpws[] = {"1", "3", "16"};
    char label[256], params[128];
    for (size_t s = 0; s < sizeof tri_shapes / sizeof tri_shapes[0]; ++s)
        for (size_t r = 0; r < sizeof rpws / sizeof rpws[0]; ++r) {
            const clpk_xcorr_shape *shape = &tri_shapes[s];
            snprintf(params, sizeof params, "rows_per_worker=%s,combine=atomic,distribution=triangle", rpws[r]);
            label_of(label, sizeof label, shape, "split-row", params);
            xcorr_check_case(ctx, rng, shape, "split-row", params, s % 2, label);
            const size_t mat = (size_t)shape->rows * shape->cols;
            const size_t no =
                clpk_xcorr_output_count(shape) * clpk_xcorr_output_rows(shape) * clpk_xcorr_output_cols(shape);
            double *l = malloc(mat * shape->n_left * sizeof *l), *rt = malloc(mat * shape->n_right * sizeof *rt);
            double *ref = malloc(no * sizeof *ref), *a = malloc(no * sizeof *a), *b = malloc(no * sizeof *b);
            if (!CHECK(l && rt && ref && a && b, "out of host memory")) return;
            xcorr_fill_random(rng, l, mat * shape->n_left);
            xcorr_fill_random(rng, rt, mat * shape->n_right);
            xcorr_reference(shape, l, rt, ref);
            int guards[2] = {0, 0};
            clpk_status st = CLPK_SUCCESS;
            for (int d = 0; d < 2 && st == CLPK_SUCCESS; ++d) {
                snprintf(params, sizeof params, "rows_per_worker=%s,combine=ordered,distribution=%s", rpws[r],
                         d ? "triangle" : "rectangle");
                clpk_xcorr_plan *plan = NULL;
                st = clpk_xcorr_plan_create(ctx, shape, "split-row", params, &plan);
                if (st == CLPK_SUCCESS) st = xcorr_run(ctx, plan, shape, l, rt, 1, d ? b : a, &guards[d]);
                clpk_xcorr_plan_destroy(plan);
            }
            label_of(label, sizeof label, shape, "split-row", params);
            if (CHECK(st == CLPK_SUCCESS, "%s: %s", label, clpk_last_error(ctx))) {
                const double e = check_rel_error(ref, b, no);
                CHECK(e <= 1e-5 && guards[0] && guards[1], "%s: relative error %.3g, guards %d %d", label, e, guards[0],
                      guards[1]);
                size_t differ = 0;
                for (size_t i = 0; i < no; ++i)
                    differ += !(a[i] == b[i]);
                CHECK(differ == 0, "%s: %zu elements differ from the rectangle distribution", label, differ);
            }
            free(l);
            free(rt);
            free(ref);
            free(a);
            free(b);
        }
}

/* "fft" and "auto" through the plan (the FFT path itself is tested in test_xcorr_fft). */
static void through_plan(clpk_context *ctx, uint64_t *rng) {
    const clpk_xcorr_shape shape = {CLPK_XCORR_N_TO_MN, 12, 10, 2, 4, 0, 0, CLPK_PRECISION_F32};
    clpk_xcorr_plan *plan = NULL;
    clpk_status st = clpk_xcorr_plan_create(ctx, &shape, "fft", NULL, &plan);
    clpk_xcorr_plan_destroy(plan);
    if (st == CLPK_ERROR_UNSUPPORTED) {
        printf("skip fft through the plan: %s\n", clpk_last_error(ctx));
    } else {
        xcorr_check_case(ctx, rng, &shape, "fft", NULL, 2, "n-to-mn 12x10 fft");
    }
    /* A large one-pair problem takes the FFT path by the built-in rule when it is built in, else a direct one. */
    const clpk_xcorr_shape large = {CLPK_XCORR_ONE_TO_ONE, 400, 400, 1, 1, 0, 0, CLPK_PRECISION_F32};
    st = clpk_xcorr_plan_create(ctx, &large, "auto", NULL, &plan);
    if (CHECK(st == CLPK_SUCCESS, "auto 400x400: %s", clpk_last_error(ctx)))
        printf("auto 400x400 one-to-one: %s\n", clpk_xcorr_plan_algorithm(plan));
    clpk_xcorr_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, NULL);
    if (!CHECK(st == CLPK_SUCCESS, "no device: %s", clpk_status_string(st))) return check_summary();
    printf("device: %s\n", clpk_context_device_info(ctx)->name);
    double t0 = core_wall_seconds();
    sweep(ctx, &rng);
    printf("sweep: %.1f s\n", core_wall_seconds() - t0);
    sizes(ctx, &rng);
    printf("sizes: %.1f s\n", core_wall_seconds() - t0);
    doubles(ctx, &rng);
    printf("f64: %.1f s\n", core_wall_seconds() - t0);
    determinism(ctx, &rng);
    distributions(ctx, &rng);
    printf("distributions: %.1f s\n", core_wall_seconds() - t0);
    through_plan(ctx, &rng);
    printf("total: %.1f s\n", core_wall_seconds() - t0);
    clpk_context_destroy(ctx);
    return check_summary();
}
