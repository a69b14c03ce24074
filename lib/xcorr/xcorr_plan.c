/* Cross-correlation plans: shape checks, the choice of algorithm and parameters (core_resolve over the family's table,
 * lib/xcorr/xcorr_params.c: defaults, the profile's entry or the built-in rule, the caller), and dispatch to the
 * direct kernels (lib/xcorr/xcorr_direct.c), the FFT path (lib/xcorr/xcorr_fft.c) or the fused FFT path
 * (lib/xcorr/xcorr_fused.c). */
#include "xcorr_plan.h"
#include "xcorr_direct.h"
#include "xcorr_fft.h"
#include "xcorr_fused.h"
#include "xcorr_params.h"
#include "xcorr_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct clpk_xcorr_plan {
    clpk_context *ctx;
    clpk_xcorr_shape shape;
    char algorithm[32];
    xcorr_config config;
    core_params params; /* the parameters that apply, the algorithm aside: what clpk_xcorr_plan_params reports */
    xcorr_direct *direct;
    xcorr_fft *fft;
    xcorr_fused *fused;
};

/* The direct variant for a shape when FFT is not chosen or not available, from H100 measurements (docs/xcorr.md and
 * the held-out checks of sessions 10-14, docs/perf-xcorr.md "Few pairs"): a work-group per output while there are few
 * outputs (<= 16384 in f32: 16^2 x 8, 24^2 x 4, 48^2 x 1, 28^2 x 5; <= 20000 in f64, where it ran 1.5-2.2x faster than
 * split-row and shift-buffer at 48^2 x 1 and 40^2 x 2 and tied split-row at 48^2 x 4), then split-row for up to 64
 * pairs (1.3-1.8x faster than shift-buffer, multi-right and multi-both at 20^2-40^2 with 8-36 pairs), register blocking
 * once pairs fill the device. */
static const char *builtin_direct(const clpk_context *ctx, const clpk_xcorr_shape *s, size_t pairs) {
    const double outputs = (double)pairs * clpk_xcorr_output_rows(s) * clpk_xcorr_output_cols(s);
    /* CPUs (PoCL): work-groups cost a thread-level loop each and barriers split it, so the team variants lose there
     * (20x at 11^2 x 5), and small problems leave too few work-items for register blocking: the plain loop wins
     * those (2-4x over multi-right at 9^2..11^2), blocking the larger ones. */
    if (clpk_context_device_info(ctx)->kind == CLPK_DEVICE_CPU) {
        if (outputs <= 65536) return "naive";
        if (s->pattern == CLPK_XCORR_ONE_TO_ONE) return "grouped";
        return s->pattern == CLPK_XCORR_N_TO_M && s->n_left > 1 ? "multi-both" : "multi-right";
    }
    /* f32 up to 16384 outputs since session 14: warp-per-overlap against split-row at 28^2 x 5 (15125 outputs)
     * 0.016 against 0.023 ms (held-out s12), 36^2 x 3 and 52^2 x 1 (15123, 10609) 0.016-0.018 against 0.031-0.032
     * ms (s13, stream timing); split-row stayed ahead from 44^2 x 4 (30276: 0.030 against 0.033 ms) */
    if (outputs <= (s->precision == CLPK_PRECISION_F64 ? 20000 : 16384)) return "warp-per-overlap";
    if (pairs <= 64) return "split-row";
    if (s->pattern == CLPK_XCORR_ONE_TO_ONE) return "grouped";
    if (s->pattern == CLPK_XCORR_N_TO_M && s->n_left > 1) return "multi-both";
    return "multi-right";
}

/* Between the size thresholds below, a cost estimate from the same H100 measurements (docs/perf-xcorr.md): direct
 * time = multiply-adds / rate (1.5e12/s for the few-pairs variants split-row/shift-buffer up to 64 pairs, e.g. 0.039 ms
 * at 32^2 x 32 and 0.129 ms at 128^2 x 1; 4e12/s once register blocking fills the device), FFT time = max(0.09 ms,
 * 0.037 ns per padded point per pair). It moves mid sizes with few pairs to the FFT path, e.g. 96^2 x 8 (split-row
 * ~0.28 ms against ~0.09 ms) and 48^2 x 32 (~0.2 ms against ~0.09 ms), and leaves every measured point's choice as
 * it was. */
static int fft_estimate_wins(const clpk_xcorr_shape *s, size_t pairs, int fused) {
    const double r = s->rows, c = s->cols, macs = r * r * c * c * (double)pairs;
    /* f64: split-row took 1.5x f32's time at 40^2 x 24 (0.080 against 0.054 ms; fused-fft 0.039 ms in f64) */
    const double f64_cost = s->precision == CLPK_PRECISION_F64 ? 1.5 : 1.0;
    const double direct_ms = f64_cost * macs / (pairs <= 64 ? 1.5e9 : 4e9);
    /* fused-fft (H100, session 10): a floor of ~0.05 ms (0.040-0.065 ms for 2-32 outputs at 32^2-128^2) and ~0.62x
     * the VkFFT path's time per point (1.52 against 2.41 ms at 64^2 x 4000); the held-out check's 48^2 cases with
     * 16-64 outputs ran 1.4-2.5x faster fused than on the direct kernels the VkFFT floor left them to */
    const double fft_ms =
        fused ? fmax(0.05, 2.3e-8 * (double)pairs * 4 * r * c) : fmax(0.09, 3.7e-8 * (double)pairs * 4 * r * c);
    return direct_ms > fft_ms;
}

/* Wherever the rule picks the FFT path, fused-fft replaces VkFFT on GPUs when its lines fit local memory. Cost model:
 * bytes moved. Per pair (P_r x P_c padded, f32) the VkFFT path packs both inputs (write 2 P_r P_c reals), transforms
 * them (each 2D R2C reads/writes ~2 x P_r P_c/2 complex per pass, two passes), multiplies (read 2, write 1 spectrum),
 * inverts (two passes) and crops: ~40 P_r P_c bytes at 64^2 (1.3 MB); fused-fft reads the inputs once, writes/reads R x
 * P_c complex (T1) and out_rows x (P_c/2+1) complex (T2) once each and writes the output: ~12 P_r P_c bytes (0.36 MB),
 * so at equal bandwidth it should take ~1/3 of the time (docs/perf-xcorr.md). Both are memory bound (an FFT of length P
 * costs ~5 P log2 P flops, ~0.1 flop per byte here). On CPUs (PoCL) the rule keeps VkFFT: not measured there. Profiles
 * may override either way. */
static int prefer_fused(const clpk_context *ctx, const clpk_xcorr_shape *s) {
    /* H100, every pattern where the rule takes the FFT path, fused against VkFFT: one-to-many 1.51 / 5.79 ms against
     * 2.41 / 9.36 ms at 64^2 / 128^2 x 4000, n-to-m 128x128 at 128^2 16.4 against 21.9 ms, n-to-mn 100x4000 at 128^2
     * 6.0 against 9.4 ms (docs/perf-xcorr.md) */
    if (clpk_context_device_info(ctx)->kind == CLPK_DEVICE_CPU) return 0;
    core_params d;
    core_params_clear(&d);
    xcorr_fused_defaults(s, clpk_context_device_info(ctx)->compute_units, 8, &d); /* rows do not depend on the radix */
    return xcorr_fused_fits(ctx, s, atoi(core_params_get(&d, "rows")), 0);
}

/* The built-in choice without a profile. FFT from 128^2, from 64^2 above 8 pairs and from 32^2 above 256 pairs: on
 * the H100 our FFT path costs about 0.09 ms at small sizes, which direct kernels beat below these sizes (e.g. split-row
 * 0.026 ms at 64^2 x 1, multi-right 0.089 ms at 16^2 x 4000) and lose to above them (0.086 vs 0.129 ms at 128^2 x 1,
 * 0.100 vs 0.226 ms at 64^2 x 32, 0.203 vs 0.244 ms at 32^2 x 1000). The seed's A100 crossovers were higher
 * (384^2 for one pair down to 64^2 for 32 x 32). */
static const char *builtin_choice(const clpk_context *ctx, const clpk_xcorr_shape *s, size_t pairs) {
    const double side = sqrt((double)s->rows * (double)s->cols);
    const int gpu = clpk_context_device_info(ctx)->kind != CLPK_DEVICE_CPU;
    const int fused = prefer_fused(ctx, s);
    if (side >= 128 || (side >= 64 && pairs > 8) || (side >= 32 && pairs > 256) ||
        (gpu && fft_estimate_wins(s, pairs, fused)))
        return fused ? "fused-fft" : "fft";
    return builtin_direct(ctx, s, pairs);
}

/* The defaults the table leaves to the family: they depend on the algorithm and the shape (fused-fft's also on the
 * radix in `p`, the table's default or the caller's). */
static void algorithm_defaults(const clpk_context *ctx, const clpk_xcorr_shape *s, int algorithm, const core_params *p,
                               core_params *out) {
    if (algorithm == XCORR_FUSED_FFT) {
        const char *radix = core_params_get(p, "fft_radix");
        xcorr_fused_defaults(s, clpk_context_device_info(ctx)->compute_units, radix ? atoi(radix) : 4, out);
    } else if (xcorr_direct_known(algorithm))
        xcorr_direct_defaults(s, algorithm, out);
}

/* Completes resolved parameters `p` and reads them into `config`: "auto" (an entry may name it) becomes the built-in
 * choice, and the defaults that depend on the algorithm and the shape fill the parameters that kept their built-in
 * default in `r` (NULL: all of them). */
static clpk_status configure(clpk_context *ctx, const clpk_xcorr_shape *s, core_params *p, const core_resolved *r,
                             xcorr_config *config) {
    int algorithm = xcorr_algorithm_of(core_params_get(p, "algorithm"));
    if (algorithm <= XCORR_AUTO) {
        algorithm = xcorr_algorithm_of(builtin_choice(ctx, s, clpk_xcorr_output_count(s)));
        core_params_set(p, "algorithm", xcorr_algorithm_name(algorithm));
    }
    core_params derived;
    core_params_clear(&derived);
    algorithm_defaults(ctx, s, algorithm, p, &derived);
    for (int i = 0; i < derived.count; ++i)
        if (!r || core_resolved_source(r, derived.items[i].key) == CORE_SOURCE_DEFAULT)
            core_params_set(p, derived.items[i].key, derived.items[i].value);
    clpk_error err = {0};
    if (core_param_read(&xcorr_param_table, p, config, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    return CLPK_SUCCESS;
}

/* The configuration of `algorithm` at its defaults. */
static clpk_status configure_defaults(clpk_context *ctx, const clpk_xcorr_shape *s, const char *algorithm,
                                      xcorr_config *config) {
    core_params p;
    core_param_defaults(&xcorr_param_table, clpk_context_device_info(ctx)->kind, &p);
    core_params_set(&p, "algorithm", algorithm);
    return configure(ctx, s, &p, NULL, config);
}

void xcorr_builtin_params(clpk_context *ctx, const clpk_xcorr_shape *shape, core_params *out) {
    xcorr_config config;
    memset(&config, 0, sizeof config);
    if (configure_defaults(ctx, shape, builtin_choice(ctx, shape, clpk_xcorr_output_count(shape)), &config) ==
        CLPK_SUCCESS)
        core_param_to_params(&xcorr_param_table, &config, out);
}

void xcorr_features(const clpk_xcorr_shape *s, core_params *features) {
    core_params_clear(features);
    core_params_set(features, "pattern", clpk_xcorr_pattern_name(s->pattern));
    core_params_set_int(features, "rows", s->rows);
    core_params_set_int(features, "cols", s->cols);
    core_params_set_int(features, "n_left", s->n_left);
    core_params_set_int(features, "n_right", s->n_right);
    core_params_set(features, "precision", clpk_precision_name(s->precision));
}

/* core_resolve's model: where no profile entry applies, the built-in rule picks the algorithm (its parameters keep
 * their defaults). */
static int builtin_model(const clpk_context *ctx, const core_params *features, core_params *out, void *user) {
    (void)features;
    const clpk_xcorr_shape *s = user;
    core_params_set(out, "algorithm", builtin_choice(ctx, s, clpk_xcorr_output_count(s)));
    return 1;
}

static clpk_status build(clpk_xcorr_plan *plan) {
    if (plan->config.algorithm == XCORR_FFT)
        return xcorr_fft_create(plan->ctx, &plan->shape, &plan->config, &plan->fft);
    if (plan->config.algorithm == XCORR_FUSED_FFT)
        return xcorr_fused_create(plan->ctx, &plan->shape, &plan->config, &plan->fused);
    return xcorr_direct_create(plan->ctx, &plan->shape, &plan->config, &plan->direct);
}

/* Names the configured algorithm and keeps the parameters it uses for clpk_xcorr_plan_params. */
static void describe(clpk_xcorr_plan *plan) {
    snprintf(plan->algorithm, sizeof plan->algorithm, "%s", xcorr_algorithm_name(plan->config.algorithm));
    core_params all;
    core_param_to_params(&xcorr_param_table, &plan->config, &all);
    core_params_clear(&plan->params);
    for (int i = 0; i < all.count; ++i)
        if (strcmp(all.items[i].key, "algorithm") != 0)
            core_params_set(&plan->params, all.items[i].key, all.items[i].value);
}

/* The caller's parameters must apply to the algorithm the plan uses (the explicit one, or the one "auto" chose):
 * a parameter of another algorithm is an error, not something to drop silently. */
static clpk_status check_applies(clpk_context *ctx, const core_params *caller, const core_params *p) {
    for (int i = 0; i < caller->count; ++i) {
        const core_param_def *d = core_param_find(&xcorr_param_table, caller->items[i].key);
        if (!d || core_param_active(d, p)) continue;
        char names[256] = "";
        size_t at = 0;
        for (int k = 1; k < xcorr_param_table.count && at < sizeof names; ++k)
            if (core_param_active(&xcorr_param_table.defs[k], p))
                at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "",
                                       xcorr_param_table.defs[k].name);
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr %s: parameter '%s' does not apply (it takes: %s)",
                         core_params_get(p, "algorithm"), caller->items[i].key, at ? names : "none");
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_xcorr_plan_create(clpk_context *ctx, const clpk_xcorr_shape *shape, const char *algorithm,
                                   const char *params, clpk_xcorr_plan **out) {
    if (!ctx || !shape || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr plan: NULL argument");
    *out = NULL;
    clpk_error err = {0};
    if (xcorr_shape_check(shape, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    if (shape->precision == CLPK_PRECISION_F64 && !dev->has_fp64)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "xcorr: f64 requested but %s has no double precision", dev->name);
    const size_t elem = clpk_precision_size(shape->precision), mat = (size_t)shape->rows * (size_t)shape->cols;
    const size_t out_mat = (size_t)clpk_xcorr_output_rows(shape) * (size_t)clpk_xcorr_output_cols(shape);
    const size_t count = clpk_xcorr_output_count(shape);
    if ((size_t)shape->n_left * mat > dev->max_alloc_bytes / elem ||
        (size_t)shape->n_right * mat > dev->max_alloc_bytes / elem || count > dev->max_alloc_bytes / elem / out_mat)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr: %d+%d inputs of %dx%d (%zu outputs) exceed the device's %llu bytes per buffer",
                         shape->n_left, shape->n_right, shape->rows, shape->cols, count,
                         (unsigned long long)dev->max_alloc_bytes);
    /* The caller's parameters, with an explicit algorithm among them: core_resolve checks them against the table. */
    core_params user;
    core_params_clear(&user);
    if (params && core_params_parse(&user, params, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    if (core_params_get(&user, "algorithm"))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "xcorr: the algorithm is the plan's algorithm argument, not one of its parameters");
    const int is_auto = !algorithm || strcmp(algorithm, "auto") == 0;
    core_params caller = user;
    if (!is_auto) {
        /* checked here, before it joins a "k=v" list that a ',' in it would change */
        const core_param_def *row = core_param_find(&xcorr_param_table, "algorithm");
        if (core_param_check_value(&xcorr_param_table, row, algorithm, &err) != CLPK_SUCCESS)
            return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: unknown algorithm '%s' (%s)", algorithm,
                             row->values);
        core_params_set(&caller, "algorithm", algorithm);
    }
    char caller_text[CLPK_PARAMS_MAX * 100];
    core_params_format(&caller, caller_text, sizeof caller_text);
    core_params features;
    xcorr_features(shape, &features);
    /* "auto": the nearest profile entry within the table's reach, else the built-in rule; explicit: no profile */
    const core_resolve_request request = {.table = &xcorr_param_table,
                                          .features = is_auto ? &features : NULL,
                                          .caller = caller_text,
                                          .model = is_auto ? builtin_model : NULL,
                                          .model_user = (void *)shape};
    core_resolved resolved;
    CLPK_TRY(core_resolve(ctx, &request, &resolved));
    int from_profile = is_auto && resolved.choice.found;

    clpk_xcorr_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "xcorr plan: out of host memory");
    plan->ctx = ctx;
    plan->shape = *shape;
    core_params chosen = resolved.params;
    clpk_status st = configure(ctx, shape, &chosen, &resolved, &plan->config);
    if (st == CLPK_SUCCESS) st = check_applies(ctx, &user, &chosen);
    if (st == CLPK_SUCCESS) {
        describe(plan);
        st = build(plan);
    }
    /* An automatic choice that cannot be used here (fft on a build without VkFFT, a kernel past this device's
     * resources) falls back to the built-in direct variant, with a warning; the built-in fused-fft falls back to the
     * VkFFT path first (both are FFT paths: same size range). */
    const char *direct = builtin_direct(ctx, shape, clpk_xcorr_output_count(shape));
    for (int attempt = 0; attempt < 2 && plan->algorithm[0]; ++attempt) {
        const char *fallback =
            attempt == 0 && !from_profile && plan->config.algorithm == XCORR_FUSED_FFT ? "fft" : direct;
        if (!(st != CLPK_SUCCESS && st != CLPK_ERROR_OUT_OF_MEMORY && is_auto && user.count == 0 &&
              (from_profile || strcmp(plan->algorithm, fallback) != 0)))
            break;
        core_log(ctx, CLPK_LOG_WARN, "xcorr: %s '%s' unavailable (%s): using %s",
                 from_profile ? "profile choice" : "built-in choice", plan->algorithm, clpk_last_error(ctx), fallback);
        if (plan->fft) xcorr_fft_destroy(plan->fft);
        xcorr_fused_destroy(plan->fused);
        xcorr_direct_destroy(plan->direct);
        plan->fft = NULL;
        plan->fused = NULL;
        plan->direct = NULL;
        from_profile = 0;
        st = configure_defaults(ctx, shape, fallback, &plan->config);
        if (st != CLPK_SUCCESS) break;
        describe(plan);
        st = build(plan);
    }
    if (st != CLPK_SUCCESS) {
        clpk_xcorr_plan_destroy(plan);
        return st;
    }
    char text[256];
    core_params_format(&plan->params, text, sizeof text);
    core_log(ctx, CLPK_LOG_INFO, "xcorr %s %dx%d %d/%d %s: %s %s (%s)", clpk_xcorr_pattern_name(shape->pattern),
             shape->rows, shape->cols, shape->n_left, shape->n_right, clpk_precision_name(shape->precision),
             plan->algorithm, text, is_auto ? (from_profile ? "profile" : "built-in") : "explicit");
    *out = plan;
    return CLPK_SUCCESS;
}

void clpk_xcorr_plan_destroy(clpk_xcorr_plan *plan) {
    if (!plan) return;
    xcorr_direct_destroy(plan->direct);
    if (plan->fft) xcorr_fft_destroy(plan->fft);
    xcorr_fused_destroy(plan->fused);
    free(plan);
}

const char *clpk_xcorr_plan_algorithm(const clpk_xcorr_plan *plan) { return plan ? plan->algorithm : ""; }

void clpk_xcorr_plan_params(const clpk_xcorr_plan *plan, char *buf, size_t size) {
    if (!buf || !size) return;
    if (!plan) {
        buf[0] = 0;
        return;
    }
    core_params_format(&plan->params, buf, size);
}

clpk_status clpk_xcorr_execute(clpk_xcorr_plan *plan, cl_mem left, size_t left_offset, cl_mem right,
                               size_t right_offset, cl_mem out, size_t out_offset, cl_uint n_wait, const cl_event *wait,
                               cl_event *done) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    if (n_wait && !wait) return core_fail(plan->ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: n_wait > 0 but no events");
    if (plan->fused)
        return xcorr_fused_execute(plan->fused, left, left_offset, right, right_offset, out, out_offset, n_wait, wait,
                                   NULL, done);
    if (plan->fft)
        return xcorr_fft_execute(plan->fft, left, left_offset, right, right_offset, out, out_offset, n_wait, wait,
                                 done);
    return xcorr_direct_execute(plan->direct, left, left_offset, right, right_offset, out, out_offset, n_wait, wait,
                                NULL, done);
}

clpk_status xcorr_execute_timed(clpk_xcorr_plan *plan, cl_mem left, size_t left_offset, cl_mem right,
                                size_t right_offset, cl_mem out, size_t out_offset, cl_event *first, cl_event *last) {
    if (!plan || !first || !last) return CLPK_ERROR_INVALID_ARGUMENT;
    *first = *last = NULL;
    if (plan->direct)
        return xcorr_direct_execute(plan->direct, left, left_offset, right, right_offset, out, out_offset, 0, NULL,
                                    first, last);
    if (plan->fused)
        return xcorr_fused_execute(plan->fused, left, left_offset, right, right_offset, out, out_offset, 0, NULL, first,
                                   last);
    /* The FFT path reports only its last command: a marker ahead of it marks the start. */
    CLPK_CL_TRY(plan->ctx, clEnqueueMarkerWithWaitList(clpk_context_queue(plan->ctx), 0, NULL, first));
    clpk_status st =
        xcorr_fft_execute(plan->fft, left, left_offset, right, right_offset, out, out_offset, 0, NULL, last);
    if (st != CLPK_SUCCESS) {
        clReleaseEvent(*first);
        *first = NULL;
    }
    return st;
}

/* Refuses NaN and infinite inputs on the host path, where checking is cheap next to the copies. */
static clpk_status check_finite(clpk_context *ctx, const void *data, size_t n, int is_double, const char *what) {
    for (size_t i = 0; i < n; ++i) {
        const double v = is_double ? ((const double *)data)[i] : (double)((const float *)data)[i];
        if (!isfinite(v))
            return core_fail(ctx, CLPK_ERROR_INVALID_DATA, "xcorr: %s input element %zu is not finite (%g)", what, i,
                             v);
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_xcorr_execute_host(clpk_xcorr_plan *plan, const void *left, const void *right, void *out) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_context *ctx = plan->ctx;
    if (!left || !right || !out) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "xcorr: NULL host array");
    const clpk_xcorr_shape *s = &plan->shape;
    const size_t elem = clpk_precision_size(s->precision), mat = (size_t)s->rows * (size_t)s->cols;
    const size_t nl = (size_t)s->n_left * mat, nr = (size_t)s->n_right * mat;
    const size_t no = clpk_xcorr_output_count(s) * (size_t)clpk_xcorr_output_rows(s) * clpk_xcorr_output_cols(s);
    const int is_double = s->precision == CLPK_PRECISION_F64;
    /* each buffer fits one allocation (checked with the plan); the three together must fit the device */
    const uint64_t global_bytes = clpk_context_device_info(ctx)->global_mem_bytes;
    if ((double)(nl + nr + no) * (double)elem > 0.9 * (double)global_bytes)
        return core_fail(ctx, CLPK_ERROR_UNSUPPORTED,
                         "xcorr: %zu input and %zu output values of %zu bytes exceed the device's %llu bytes of memory",
                         nl + nr, no, elem, (unsigned long long)global_bytes);
    CLPK_TRY(check_finite(ctx, left, nl, is_double, "left"));
    CLPK_TRY(check_finite(ctx, right, nr, is_double, "right"));
    cl_context c = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc = CL_SUCCESS;
    cl_mem bl = NULL, br = NULL, bo = NULL;
    clpk_status st = CLPK_SUCCESS;
    bl = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nl * elem, (void *)left, &rc);
    if (rc == CL_SUCCESS)
        br = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nr * elem, (void *)right, &rc);
    if (rc == CL_SUCCESS) bo = clCreateBuffer(c, CL_MEM_READ_WRITE, no * elem, NULL, &rc);
    if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer(xcorr host arrays)");
    cl_event done = NULL;
    if (st == CLPK_SUCCESS) st = clpk_xcorr_execute(plan, bl, 0, br, 0, bo, 0, 0, NULL, &done);
    if (st == CLPK_SUCCESS) {
        /* Wait on the event, not on queue order: a user's queue may be out of order. */
        rc = clEnqueueReadBuffer(q, bo, CL_TRUE, 0, no * elem, out, done ? 1 : 0, done ? &done : NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueReadBuffer(xcorr output)");
    }
    if (done) clReleaseEvent(done);
    if (bl) clReleaseMemObject(bl);
    if (br) clReleaseMemObject(br);
    if (bo) clReleaseMemObject(bo);
    return st;
}
