/* The automatic SpMV plan from the profile's cost model (issue #22; spmv_model.h): the feature pass, a predicted time
 * for every variant the model knows, then the plan of the best prediction, or, with verify, the fastest of the few
 * best predictions measured on the matrix. The caller's parameters apply over the variant's. */
#include "spmv_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VERIFY_MAX = 3, VERIFY_WARMUP = 2, VERIFY_RUNS = 10 };
/* a candidate whose first timed multiply takes this many times the best so far is not timed further: it cannot win,
 * and a CSR kernel on rows of 10^5 entries would otherwise spend most of the plan's time on its multiplies */
static const double VERIFY_ABANDON = 1.5;
/* auto verifies the variants predicted within this factor of the best: the fits' relative errors on their training
 * matrices are 10-15 % (rel_rms), so closer predictions do not order the variants */
static const double VERIFY_CLOSE = 1.20;
/* a measured variant replaces the model's first choice only when faster beyond the timing noise */
static const double VERIFY_MARGIN = 0.95;

/* The variant's parameters with the caller's over them; `format` receives the variant's format. */
static clpk_status merge_params(clpk_context *ctx, const char *variant, const core_params *caller, char *format,
                                size_t format_size, char *out, size_t size) {
    core_params p;
    core_params_clear(&p);
    clpk_error err = {0};
    if (core_params_parse(&p, variant, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    for (int i = 0; i < caller->count; ++i)
        if (core_params_set(&p, caller->items[i].key, caller->items[i].value) != CLPK_SUCCESS)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "spmv: too many parameters");
    const char *f = core_params_get(&p, "format");
    snprintf(format, format_size, "%s", f ? f : "bccoo");
    core_params_format(&p, out, size);
    return CLPK_SUCCESS;
}

static int is_unsupported(clpk_status st) { return st == CLPK_ERROR_UNSUPPORTED || st == CLPK_ERROR_OUT_OF_MEMORY; }

/* The config of a variant with the caller's parameters over it; *possible = 0 (and CLPK_SUCCESS) where the device
 * cannot run it (work-group size, atomics). */
static clpk_status configure(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *variant,
                             const core_params *caller, spmv_config *cfg, int *possible) {
    char format[16], merged[1024];
    *possible = 0;
    CLPK_TRY(merge_params(ctx, variant, caller, format, sizeof format, merged, sizeof merged));
    clpk_status st = spmv_plan_config(ctx, A, precision, format, merged, cfg);
    if (is_unsupported(st)) {
        core_log(ctx, CLPK_LOG_DEBUG, "spmv model: %s not possible here; next", merged);
        return CLPK_SUCCESS;
    }
    *possible = st == CLPK_SUCCESS;
    return st;
}

/* The plan of a configured variant, its image from `images`; *plan stays NULL (and CLPK_SUCCESS) where the device
 * cannot run it (local memory, work-group size of the built kernel). */
static clpk_status create_variant(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *variant,
                                  const spmv_config *cfg, spmv_images *images, clpk_spmv_plan **plan) {
    clpk_status st = spmv_plan_create_config(ctx, A, precision, cfg, images, plan);
    if (is_unsupported(st)) {
        core_log(ctx, CLPK_LOG_DEBUG, "spmv model: %s not possible here; next", variant);
        return CLPK_SUCCESS;
    }
    return st;
}

typedef struct verify_state {
    clpk_spmv_plan *best;
    double best_ms, first_ms;
    spmv_select_report *report;
} verify_state;

/* Times a candidate; the first measured is the model's choice, another replaces the best only when faster beyond the
 * noise. Takes ownership of `plan`. */
static clpk_status consider(clpk_context *ctx, clpk_spmv_plan *plan, const char *variant, const char *why,
                            double predicted_ms, verify_state *v) {
    clpk_bench_stats stats;
    double t0 = core_wall_seconds();
    clpk_status st = CLPK_SUCCESS;
    if (v->best) st = clpk_spmv_plan_bench(plan, 1, 1, &stats);
    int abandoned = st == CLPK_SUCCESS && v->best && stats.median_ms > VERIFY_ABANDON * v->best_ms;
    if (st == CLPK_SUCCESS && !abandoned) st = clpk_spmv_plan_bench(plan, VERIFY_WARMUP, VERIFY_RUNS, &stats);
    double seconds = core_wall_seconds() - t0;
    if (st != CLPK_SUCCESS) {
        clpk_spmv_plan_destroy(plan);
        return st;
    }
    spmv_select_report *r = v->report;
    if (r->measured < SPMV_SELECT_MAX_TIMED) snprintf(r->timed[r->measured], sizeof r->timed[0], "%s", variant);
    ++r->measured;
    if (abandoned) {
        core_log(ctx, CLPK_LOG_DEBUG,
                 "spmv verify: %s%s first multiply %.4g ms, over %.1fx the best: not timed further", variant, why,
                 stats.median_ms, VERIFY_ABANDON);
        clpk_spmv_plan_destroy(plan);
        return CLPK_SUCCESS;
    }
    if (isnan(predicted_ms))
        core_log(ctx, CLPK_LOG_DEBUG, "spmv verify: %s%s measured %.4g ms (%.3f s)", variant, why, stats.median_ms,
                 seconds);
    else
        core_log(ctx, CLPK_LOG_DEBUG, "spmv verify: %s%s predicted %.4g ms, measured %.4g ms (%.3f s)", variant, why,
                 predicted_ms, stats.median_ms, seconds);
    if (!v->best) v->first_ms = stats.median_ms;
    if (!v->best || (stats.median_ms < v->best_ms && stats.median_ms < v->first_ms * VERIFY_MARGIN)) {
        clpk_spmv_plan_destroy(v->best);
        v->best = plan;
        v->best_ms = stats.median_ms;
    } else {
        clpk_spmv_plan_destroy(plan);
    }
    return CLPK_SUCCESS;
}

/* The verify parameter: off times nothing; close the variants predicted within VERIFY_CLOSE of the best (nothing
 * when one prediction is clear); auto those and the guard (below); on the best VERIFY_MAX and the guard. */
typedef enum { VERIFY_OFF, VERIFY_CLOSE_ONLY, VERIFY_AUTO, VERIFY_ON } verify_mode;

static clpk_status verify_mode_parse(clpk_context *ctx, const char *verify, verify_mode *mode) {
    if (!verify || strcmp(verify, "auto") == 0)
        *mode = VERIFY_AUTO;
    else if (strcmp(verify, "close") == 0)
        *mode = VERIFY_CLOSE_ONLY;
    else if (strcmp(verify, "on") == 0)
        *mode = VERIFY_ON;
    else if (strcmp(verify, "off") == 0)
        *mode = VERIFY_OFF;
    else
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "spmv: verify=%s (allowed: auto, close, off, on)", verify);
    return CLPK_SUCCESS;
}

/* How many of the best predictions a mode measures (1: the first alone, untimed unless guarded). */
static int verify_count(verify_mode mode, const spmv_ranked *ranked, int n) {
    int measure = 1;
    if (mode == VERIFY_ON) return n < VERIFY_MAX ? n : VERIFY_MAX;
    if (mode == VERIFY_OFF) return 1;
    while (measure < n && measure < VERIFY_MAX && ranked[measure].ms <= ranked[0].ms * VERIFY_CLOSE)
        ++measure;
    return measure;
}

clpk_status spmv_select_plan(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *params,
                             clpk_spmv_plan **out, int *chose, spmv_select_report *report) {
    *chose = 0;
    *out = NULL;
    spmv_select_report own_report;
    if (!report) report = &own_report;
    memset(report, 0, sizeof *report);
    const void *json = core_profile_model(ctx, "spmv");
    if (!json) return CLPK_SUCCESS;
    spmv_model *model = malloc(sizeof *model);
    if (!model) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    char why[256];
    if (!spmv_model_read(json, precision, model, why, sizeof why)) {
        core_log(ctx, CLPK_LOG_DEBUG, "spmv: profile model not used (%s); defaults and profile entries decide", why);
        free(model);
        return CLPK_SUCCESS;
    }
    core_params caller;
    core_params_clear(&caller);
    clpk_error err = {0};
    clpk_status st = CLPK_SUCCESS;
    if (params && core_params_parse(&caller, params, &err) != CLPK_SUCCESS) st = core_fail_from(ctx, &err);
    verify_mode mode = VERIFY_AUTO;
    if (st == CLPK_SUCCESS) st = verify_mode_parse(ctx, core_params_get(&caller, "verify"), &mode);
    spmv_matrix_features f;
    if (st == CLPK_SUCCESS && spmv_matrix_features_compute(A, 0, 0, &f, &err) != CLPK_SUCCESS)
        st = core_fail_from(ctx, &err);
    spmv_ranked ranked[SPMV_MODEL_MAX_VARIANTS];
    int n = 0;
    if (st == CLPK_SUCCESS)
        n = spmv_model_rank(model, A, &f, precision, clpk_context_device_info(ctx)->kind, ranked,
                            SPMV_MODEL_MAX_VARIANTS);
    if (st != CLPK_SUCCESS || n == 0) {
        if (st == CLPK_SUCCESS)
            core_log(ctx, CLPK_LOG_DEBUG, "spmv: the profile model has no variant for this matrix; defaults decide");
        free(model);
        return st;
    }
    const int measure = verify_count(mode, ranked, n), guard = mode == VERIFY_AUTO || mode == VERIFY_ON;
    char text[1024];
    size_t at = 0;
    for (int i = 0; i < n && i < 4 && at < sizeof text; ++i)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%s %.4g ms", i ? "; " : "",
                               model->variants[ranked[i].index].params, ranked[i].ms);
    core_log(ctx, CLPK_LOG_DEBUG, "spmv model (features %.3f s): %s", f.seconds, text);

    /* The variants to measure are configured first, so that a block layout shared by several of them (3x2 with
     * int and delta columns) is converted once and the others derive their images from it (spmv_images.c). */
    spmv_config *cfgs = malloc((size_t)n * sizeof *cfgs);
    signed char *state = calloc((size_t)n, 1); /* 0 not configured, 1 configured, -1 not possible here */
    unsigned char *listed = calloc((size_t)n, 1), *guard_i = calloc((size_t)n, 1);
    if (!cfgs || !state || !listed || !guard_i) st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    spmv_images images;
    spmv_images_init(&images, precision);
    spmv_config default_cfg;
    int default_listed = 0, default_possible = 0, guards = 0;
    for (int i = 0, count = 0; i < n && st == CLPK_SUCCESS && count < measure; ++i) {
        const char *variant = model->variants[ranked[i].index].params;
        int possible = 0;
        st = configure(ctx, A, precision, variant, &caller, &cfgs[i], &possible);
        state[i] = possible ? 1 : -1;
        if (!possible) continue;
        ++count;
        listed[i] = 1;
        default_listed |= strcmp(variant, SPMV_DEFAULT_VARIANT) == 0;
    }
    /* The guard: a fit can be wrong by more than VERIFY_CLOSE on a matrix unlike its training set, so the defaults
     * and every CSR variant (an upload each, no conversion) are timed too; the automatic plan is then never slower
     * than the defaults beyond the timing noise (issue #23), nor than a CSR kernel the fit ranked wrongly. */
    for (int i = 0; guard && i < n && st == CLPK_SUCCESS; ++i) {
        const char *variant = model->variants[ranked[i].index].params;
        if (state[i] != 0 || !spmv_model_is_csr(variant)) continue;
        int possible = 0;
        st = configure(ctx, A, precision, variant, &caller, &cfgs[i], &possible);
        state[i] = possible ? 1 : -1;
        guard_i[i] = (unsigned char)possible;
        guards += possible;
    }
    if (st == CLPK_SUCCESS && (measure > 1 || guard) && !default_listed)
        st = configure(ctx, A, precision, SPMV_DEFAULT_VARIANT, &caller, &default_cfg, &default_possible);
    int timed = measure > 1 || guards > 0 || default_possible;
    for (int i = 0; timed && i < n; ++i)
        if (listed[i] || guard_i[i]) spmv_images_expect(&images, &cfgs[i]);
    if (timed && default_possible) spmv_images_expect(&images, &default_cfg);

    verify_state v = {.best_ms = INFINITY, .first_ms = INFINITY, .report = report};
    int tried = 0, default_measured = 0;
    for (int i = 0; i < n && st == CLPK_SUCCESS && tried < measure; ++i) {
        const char *variant = model->variants[ranked[i].index].params;
        clpk_spmv_plan *plan = NULL;
        if (guard_i[i]) continue; /* timed below, after the short list */
        if (state[i] == 0) {      /* past the short list (a listed variant was not possible): configured now */
            int possible = 0;
            st = configure(ctx, A, precision, variant, &caller, &cfgs[i], &possible);
            state[i] = possible ? 1 : -1;
        }
        if (st != CLPK_SUCCESS || state[i] < 0) continue;
        st = create_variant(ctx, A, precision, variant, &cfgs[i], timed ? &images : NULL, &plan);
        if (st != CLPK_SUCCESS || !plan) continue; /* !plan: not possible here, the next prediction */
        ++tried;
        default_measured |= strcmp(variant, SPMV_DEFAULT_VARIANT) == 0;
        if (!timed) {
            v.best = plan;
            break;
        }
        st = consider(ctx, plan, variant, "", ranked[i].ms, &v);
    }
    for (int i = 0; i < n && st == CLPK_SUCCESS && timed && v.best; ++i) {
        if (!guard_i[i]) continue;
        const char *variant = model->variants[ranked[i].index].params;
        clpk_spmv_plan *plan = NULL;
        st = create_variant(ctx, A, precision, variant, &cfgs[i], &images, &plan);
        if (st == CLPK_SUCCESS && plan) st = consider(ctx, plan, variant, " (guard)", ranked[i].ms, &v);
    }
    if (st == CLPK_SUCCESS && timed && v.best && default_possible && !default_measured) {
        clpk_spmv_plan *plan = NULL;
        st = create_variant(ctx, A, precision, SPMV_DEFAULT_VARIANT, &default_cfg, &images, &plan);
        if (st == CLPK_SUCCESS && plan) st = consider(ctx, plan, SPMV_DEFAULT_VARIANT, " (the defaults)", NAN, &v);
    }
    spmv_images_free(&images);
    free(cfgs);
    free(state);
    free(listed);
    free(guard_i);
    clpk_spmv_plan *best = v.best;
    free(model);
    if (st != CLPK_SUCCESS) {
        clpk_spmv_plan_destroy(best);
        return st;
    }
    if (!best) {
        core_log(ctx, CLPK_LOG_DEBUG, "spmv model: no predicted variant could be built; defaults decide");
        return CLPK_SUCCESS;
    }
    char desc[512];
    clpk_spmv_plan_describe(best, desc, sizeof desc);
    core_log(ctx, CLPK_LOG_DEBUG, "spmv model chose %s (%d measured)", desc, report->measured);
    *out = best;
    *chose = 1;
    return CLPK_SUCCESS;
}
