/* The cross-correlation family's parameter table (lib/xcorr/xcorr_params.c) and its resolve step: the defaults parse,
 * for the table alone and completed for every algorithm; every value the tuner searches passes the table's check; the
 * algorithm names agree with the table's row; unknown keys and disallowed values are refused naming them (through
 * core_resolve and plan creation); a caller's parameter of another algorithm is refused; sources are right (default,
 * caller, profile, model); the profile's reach (profile_reach) decides; every xcorr entry of the shipped profiles
 * passes the table and, written for this device, is chosen for its own class with the entry's algorithm. */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "param_check.h"
#include "param_table.h"
#include "xcorr_direct.h"
#include "xcorr_fused.h"
#include "xcorr_fused_common.h"
#include "xcorr_params.h"
#include "xcorr_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const core_param_table *const T = &xcorr_param_table;

static void table_defaults(void) {
    const clpk_device_kind kinds[] = {CLPK_DEVICE_GPU, CLPK_DEVICE_CPU};
    const clpk_xcorr_shape shapes[] = {{CLPK_XCORR_ONE_TO_ONE, 16, 16, 3, 3, 0, 0, CLPK_PRECISION_F32},
                                       {CLPK_XCORR_N_TO_M, 70, 9, 3, 2, 0, 0, CLPK_PRECISION_F64},
                                       {CLPK_XCORR_ONE_TO_MANY, 5, 100, 1, 4, 3, 21, CLPK_PRECISION_F32}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        core_params p;
        core_param_defaults(T, kinds[k], &p);
        xcorr_config c;
        memset(&c, 0xff, sizeof c);
        clpk_error err = {0};
        CHECK(core_param_read(T, &p, &c, &err) == CLPK_SUCCESS && c.algorithm == XCORR_AUTO, "defaults: %s",
              err.message);
        /* each algorithm with the defaults the family derives for it: every parameter it reads has a value */
        for (int a = XCORR_NAIVE; a < XCORR_ALGORITHM_COUNT; ++a)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
                core_param_defaults(T, kinds[k], &p);
                core_params_set(&p, "algorithm", xcorr_algorithm_name(a));
                if (a == XCORR_FUSED_FFT)
                    xcorr_fused_defaults(&shapes[s], 132, kinds[k] == CLPK_DEVICE_CPU ? 4 : 8, &p);
                else
                    xcorr_direct_defaults(&shapes[s], a, &p);
                err = (clpk_error){0};
                CHECK(core_param_read(T, &p, &c, &err) == CLPK_SUCCESS && c.algorithm == a, "%s defaults: %s",
                      xcorr_algorithm_name(a), err.message);
            }
    }
}

/* fused-fft's default lines: the most that fit local memory (1024 complex values a work-group; the other patterns
 * on GPUs count their own local memory, up to 16 lines, and take 2048 in f32), halved (down to 2) while the output pass
 * would give a device's compute units fewer than 8 work-groups each; a device of unknown size keeps the local-memory
 * choice; f32 one-to-many and n-to-mn with radix-16 lines (128, 256 points) take 1024 values, not 2048, f64 ones on
 * lines of 2^k points 512 unless that leaves one line (256^2: 2 lines of 512). */
static void fused_lines_for_occupancy(void) {
    const clpk_xcorr_shape few = {CLPK_XCORR_N_TO_M, 48, 48, 4, 4, 0, 0, CLPK_PRECISION_F32};    /* 16 pairs */
    const clpk_xcorr_shape some = {CLPK_XCORR_N_TO_MN, 48, 48, 4, 64, 0, 0, CLPK_PRECISION_F32}; /* 64 pairs */
    const clpk_xcorr_shape many = {CLPK_XCORR_N_TO_M, 48, 48, 16, 16, 0, 0, CLPK_PRECISION_F32}; /* 256 pairs */
    const clpk_xcorr_shape pairs = {CLPK_XCORR_ONE_TO_ONE, 48, 48, 256, 256, 0, 0, CLPK_PRECISION_F32};
    const clpk_xcorr_shape s64 = {CLPK_XCORR_ONE_TO_MANY, 64, 64, 1, 4000, 0, 0, CLPK_PRECISION_F32};
    const clpk_xcorr_shape s128 = {CLPK_XCORR_N_TO_MN, 128, 128, 100, 4000, 0, 0, CLPK_PRECISION_F32};
    const clpk_xcorr_shape s256 = {CLPK_XCORR_ONE_TO_MANY, 256, 256, 1, 4000, 0, 0, CLPK_PRECISION_F32};
    const clpk_xcorr_shape d64 = {CLPK_XCORR_ONE_TO_MANY, 64, 64, 1, 4000, 0, 0, CLPK_PRECISION_F64};
    const clpk_xcorr_shape d192 = {CLPK_XCORR_N_TO_MN, 192, 192, 100, 4000, 0, 0, CLPK_PRECISION_F64};
    const clpk_xcorr_shape d256 = {CLPK_XCORR_ONE_TO_MANY, 256, 256, 1, 4000, 0, 0, CLPK_PRECISION_F64};
    const clpk_xcorr_shape d1to1 = {CLPK_XCORR_ONE_TO_ONE, 192, 192, 4000, 4000, 0, 0, CLPK_PRECISION_F64};
    const struct {
        const clpk_xcorr_shape *shape;
        size_t units;
        int radix, lines;
    } cases[] = {{&few, 0, 8, 16},   {&few, 132, 8, 2},   {&few, 2, 8, 16},    {&some, 132, 8, 4}, {&many, 132, 8, 16},
                 {&many, 132, 4, 8}, {&pairs, 132, 8, 8}, {&s64, 132, 8, 8},   {&s128, 132, 8, 4}, {&s256, 132, 8, 4},
                 {&d64, 132, 8, 4},  {&d192, 132, 8, 2},  {&d1to1, 132, 8, 1}, {&d256, 132, 8, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        core_params p;
        core_params_clear(&p);
        xcorr_fused_defaults(cases[i].shape, cases[i].units, cases[i].radix, &p);
        const char *rows = core_params_get(&p, "rows");
        CHECK(rows && atoi(rows) == cases[i].lines,
              "fused defaults, %s %s %d^2, %zu outputs on %zu compute units, radix %d: rows=%s, not %d",
              clpk_xcorr_pattern_name(cases[i].shape->pattern), clpk_precision_name(cases[i].shape->precision),
              cases[i].shape->rows, clpk_xcorr_output_count(cases[i].shape), cases[i].units, cases[i].radix,
              rows ? rows : "(none)", cases[i].lines);
    }
}

/* fused-fft's work-group and radix: with radix-8 stages (GPUs) 128 items from 512 values per work-group (f64 on the
 * shared-matrix patterns: above 512; 32^2 and 64^2 f64 one-to-many: 8 lines of 64 and 4 of 128, 64 items; f32
 * one-to-many with radix 16 above 1024: 64^2, 8 lines of 128, 64 items), else 64, and radix 16 in f32 (and f64
 * one-to-many: 64^2) where it saves a stage (lines of 128 and 384, not 64, 96 or 512, nor those below 128); with radix
 * 4 (CPUs) the radix-4 butterflies of a stage, 64-256. */
static void fused_work_group_and_radix(void) {
    const struct {
        int side;
        clpk_precision precision;
        int radix, wg, radix_out; /* radix_out 0: the default stays */
    } cases[] = {{32, CLPK_PRECISION_F32, 8, 128, 0},   {48, CLPK_PRECISION_F32, 8, 128, 0},
                 {64, CLPK_PRECISION_F32, 8, 64, 16},   {64, CLPK_PRECISION_F64, 8, 64, 16},
                 {192, CLPK_PRECISION_F32, 8, 128, 16}, {256, CLPK_PRECISION_F32, 8, 128, 0},
                 {96, CLPK_PRECISION_F32, 8, 128, 0},   {64, CLPK_PRECISION_F32, 4, 256, 0},
                 {8, CLPK_PRECISION_F32, 8, 64, 0},     {32, CLPK_PRECISION_F64, 8, 64, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const clpk_xcorr_shape s = {CLPK_XCORR_ONE_TO_MANY, cases[i].side, cases[i].side, 1, 4000, 0, 0,
                                    cases[i].precision};
        core_params p;
        core_params_clear(&p);
        xcorr_fused_defaults(&s, 132, cases[i].radix, &p);
        const char *wg = core_params_get(&p, "wg"), *radix = core_params_get(&p, "fft_radix");
        CHECK(wg && atoi(wg) == cases[i].wg, "fused defaults of %d^2 %s, radix %d: wg=%s, not %d", cases[i].side,
              clpk_precision_name(cases[i].precision), cases[i].radix, wg ? wg : "(none)", cases[i].wg);
        CHECK(cases[i].radix_out ? radix && atoi(radix) == cases[i].radix_out : !radix,
              "fused defaults of %d^2 %s, radix %d: fft_radix=%s, not %d", cases[i].side,
              clpk_precision_name(cases[i].precision), cases[i].radix, radix ? radix : "(kept)", cases[i].radix_out);
    }
    /* f64 at 512 values keeps 64 items (one-to-many and n-to-m at 128^2: 2 lines of 256) but for n-to-m's single
     * line of 512 (256^2: 128 items); one-to-many on radix-16 stages keeps 64 up to 1024 (192^2: 2 lines of 384),
     * n-to-m stays on radix 8 */
    const clpk_xcorr_shape f64_shapes[] = {{CLPK_XCORR_N_TO_M, 256, 256, 38, 38, 0, 0, CLPK_PRECISION_F64},
                                           {CLPK_XCORR_ONE_TO_MANY, 128, 128, 1, 4000, 0, 0, CLPK_PRECISION_F64},
                                           {CLPK_XCORR_N_TO_M, 128, 128, 128, 128, 0, 0, CLPK_PRECISION_F64},
                                           {CLPK_XCORR_ONE_TO_MANY, 192, 192, 1, 4000, 0, 0, CLPK_PRECISION_F64}};
    const int f64_lines[] = {1, 2, 2, 2}, f64_wg[] = {128, 64, 64, 64}, f64_radix[] = {0, 16, 0, 16};
    for (size_t i = 0; i < sizeof f64_lines / sizeof f64_lines[0]; ++i) {
        core_params p;
        core_params_clear(&p);
        xcorr_fused_defaults(&f64_shapes[i], 132, 8, &p);
        const char *rows = core_params_get(&p, "rows"), *wg = core_params_get(&p, "wg");
        const char *radix = core_params_get(&p, "fft_radix");
        CHECK(rows && wg && atoi(rows) == f64_lines[i] && atoi(wg) == f64_wg[i] &&
                  (f64_radix[i] ? radix && atoi(radix) == f64_radix[i] : !radix),
              "fused defaults of %s %d^2 f64: rows=%s wg=%s fft_radix=%s, not %d, %d and %d",
              clpk_xcorr_pattern_name(f64_shapes[i].pattern), f64_shapes[i].rows, rows ? rows : "(none)",
              wg ? wg : "(none)", radix ? radix : "(kept)", f64_lines[i], f64_wg[i], f64_radix[i]);
    }
}

/* fused-fft's intermediates in tiles on GPUs (radix >= 8) for n-to-m, f64, and f32 one-to-many / n-to-mn at 2048
 * values a work-group (128^2: 8 lines of 256); row-major otherwise (32^2: 16 lines of 64) and on CPUs. */
static void fused_tiles(void) {
    const clpk_xcorr_pattern patterns[] = {CLPK_XCORR_ONE_TO_MANY, CLPK_XCORR_N_TO_M, CLPK_XCORR_N_TO_MN};
    for (size_t i = 0; i < 3; ++i)
        for (int f64 = 0; f64 <= 1; ++f64)
            for (int radix = 4; radix <= 8; radix += 4)
                for (int side = 32; side <= 128; side *= 4) {
                    const int n_left = patterns[i] == CLPK_XCORR_ONE_TO_MANY ? 1 : 100;
                    const clpk_xcorr_shape s = {patterns[i], side, side, n_left,
                                                4000,        0,    0,    f64 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32};
                    core_params p;
                    core_params_clear(&p);
                    xcorr_fused_defaults(&s, 132, radix, &p);
                    const char *tiles = core_params_get(&p, "fused_tiles");
                    const int want = radix >= 8 && (patterns[i] == CLPK_XCORR_N_TO_M || f64 || side == 128);
                    CHECK(want ? tiles && atoi(tiles) == 1 : !tiles,
                          "fused defaults of %s %s %d^2, radix %d: fused_tiles=%s",
                          clpk_xcorr_pattern_name(patterns[i]), f64 ? "f64" : "f32", side, radix,
                          tiles ? tiles : "(kept)");
                }
}

/* fused-fft's smooth padding (2^i 3^j) unless the power of two is within 20 % (f32) or 10 % (f64; 20 % where it saves
 * two radix-8 stages): 80^2 and 160^2 keep 162 and 324, 112^2 takes 256 instead of 243 rows, 26^2 and 50^2 (27 *
 * 2^i) take 64 and 128 in f32, in f64 64 (4 stages against 2) and 108 (4 against 3); 24^2 keeps 48 in f64; pow2
 * always takes the power of two. */
static void fused_padding(void) {
    const struct {
        int side, pow2;
        clpk_precision precision;
        size_t rows, cols;
    } cases[] = {{80, 0, CLPK_PRECISION_F32, 162, 162},  {160, 0, CLPK_PRECISION_F32, 324, 324},
                 {112, 0, CLPK_PRECISION_F32, 256, 256}, {48, 0, CLPK_PRECISION_F32, 96, 96},
                 {80, 1, CLPK_PRECISION_F32, 256, 256},  {26, 0, CLPK_PRECISION_F32, 64, 64},
                 {26, 0, CLPK_PRECISION_F64, 64, 64},    {50, 0, CLPK_PRECISION_F32, 128, 128},
                 {24, 0, CLPK_PRECISION_F64, 48, 48},    {108, 0, CLPK_PRECISION_F64, 216, 216},
                 {50, 0, CLPK_PRECISION_F64, 108, 108},  {112, 0, CLPK_PRECISION_F64, 256, 256},
                 {80, 0, CLPK_PRECISION_F64, 162, 162}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const clpk_xcorr_shape s = {CLPK_XCORR_ONE_TO_MANY, cases[i].side, cases[i].side, 1, 4, 0, 0,
                                    cases[i].precision};
        size_t pr = 0, pc = 0;
        xcorr_fused_padded(&s, cases[i].pow2, &pr, &pc);
        CHECK(pr == cases[i].rows && pc == cases[i].cols,
              "fused padding of %d^2 %s (pow2=%d): %zu x %zu, not %zu x %zu", cases[i].side,
              clpk_precision_name(cases[i].precision), cases[i].pow2, pr, pc, cases[i].rows, cases[i].cols);
    }
}

static void searched_values(void) {
    const int searched = param_check_search_values(T);
    CHECK(searched == 13, "the tuner searches %d parameters, not the 13 of its space", searched);
    /* the names the family uses for the algorithm row's indices are the row's values, in order */
    for (int a = 0; a < XCORR_ALGORITHM_COUNT; ++a)
        CHECK(xcorr_algorithm_of(xcorr_algorithm_name(a)) == a, "algorithm %d (%s) is not the table's", a,
              xcorr_algorithm_name(a));
    CHECK(xcorr_algorithm_of("teleport") < 0 && xcorr_algorithm_of(NULL) < 0 && !strcmp(xcorr_algorithm_name(99), ""),
          "unknown algorithms");
    char text[8192];
    clpk_error err = {0};
    CHECK(clpk_family_parameters("xcorr", text, sizeof text, &err) == CLPK_SUCCESS && strstr(text, "algorithm") &&
              strstr(text, "rows_per_worker") && strstr(text, "fused_gaps"),
          "clpk_family_parameters(xcorr): %s", err.message);
}

static void refusals_and_sources(clpk_context *ctx) {
    static const param_check_refusal refused[] = {{"colour=red", "colour", NULL},
                                                  {"algorithm=teleport", "algorithm=teleport", NULL},
                                                  {"algorithm=naive,wg=0", "wg=0", NULL},
                                                  {"algorithm=split-row,combine=sometimes", "combine=sometimes", NULL},
                                                  {"algorithm=fused-fft,fused_gaps=2", "fused_gaps=2", NULL}};
    param_check_refusals(ctx, T, refused, sizeof refused / sizeof refused[0]);

    core_resolved r;
    if (param_check_resolve(ctx, T, "algorithm=split-row,wg=64", &r)) {
        CHECK(core_resolved_source(&r, "algorithm") == CORE_SOURCE_CALLER &&
                  core_resolved_source(&r, "wg") == CORE_SOURCE_CALLER &&
                  core_resolved_source(&r, "combine") == CORE_SOURCE_DEFAULT &&
                  !strcmp(core_params_get(&r.params, "combine"), "ordered") &&
                  core_resolved_source(&r, "rows_per_worker") == CORE_SOURCE_DEFAULT,
              "sources of algorithm=split-row,wg=64");
    }
    /* plan creation: the same refusals, and a parameter of another algorithm */
    const clpk_xcorr_shape s = {CLPK_XCORR_ONE_TO_MANY, 6, 5, 1, 3, 0, 0, CLPK_PRECISION_F32};
    static const char *const bad[][3] = {{"naive", "colour=red", "colour"},
                                         {"split-row", "distribution=diagonal", "distribution=diagonal"},
                                         {"naive", "rows_per_worker=2", "rows_per_worker"},
                                         {"fft", "wg=64", "wg"},
                                         {"naive", "algorithm=naive", "algorithm"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        clpk_xcorr_plan *plan = NULL;
        CHECK(clpk_xcorr_plan_create(ctx, &s, bad[i][0], bad[i][1], &plan) == CLPK_ERROR_INVALID_ARGUMENT && !plan &&
                  strstr(clpk_last_error(ctx), bad[i][2]),
              "%s {%s}: not refused naming %s: %s", bad[i][0], bad[i][1], bad[i][2], clpk_last_error(ctx));
        clpk_xcorr_plan_destroy(plan);
    }
    /* an explicit plan reports the table's parameters that apply to it, the caller's value among them */
    clpk_xcorr_plan *plan = NULL;
    if (CHECK(clpk_xcorr_plan_create(ctx, &s, "split-row", "combine=atomic", &plan) == CLPK_SUCCESS, "split-row: %s",
              clpk_last_error(ctx))) {
        char buf[256];
        clpk_xcorr_plan_params(plan, buf, sizeof buf);
        CHECK(!strcmp(buf, "wg=128,rows_per_worker=4,combine=atomic,distribution=rectangle"), "split-row {%s}", buf);
    }
    clpk_xcorr_plan_destroy(plan);
}

/* An entry's class as a shape. */
static clpk_xcorr_shape class_shape(const cJSON *klass) {
    clpk_xcorr_shape s = {CLPK_XCORR_ONE_TO_ONE, 1, 1, 1, 1, 0, 0, CLPK_PRECISION_F32};
    clpk_xcorr_pattern_parse(cJSON_GetStringValue(cJSON_GetObjectItem(klass, "pattern")), &s.pattern);
    clpk_precision_parse(cJSON_GetStringValue(cJSON_GetObjectItem(klass, "precision")), &s.precision);
    s.rows = cJSON_GetObjectItem(klass, "rows")->valueint;
    s.cols = cJSON_GetObjectItem(klass, "cols")->valueint;
    s.n_left = cJSON_GetObjectItem(klass, "n_left")->valueint;
    s.n_right = cJSON_GetObjectItem(klass, "n_right")->valueint;
    return s;
}

/* Every xcorr entry of the shipped profiles passes the table (keys and values); written for this device, each is the
 * one core_resolve applies to its own class (with its algorithm, from the profile) unless the tuner kept the defaults
 * there (time_ms >= default_time_ms) or it was tuned against another revision of the defaults (core_profile_choose
 * leaves both to the built-in rule), and a class far from every entry is left to the built-in rule. */
static void shipped_profiles(void) {
    clpk_context *probe = NULL;
    if (!CHECK(clpk_context_create(&probe, NULL) == CLPK_SUCCESS, "no device")) return;
    const clpk_device_info *dev = clpk_context_device_info(probe);
    char dir[] = "/tmp/clpk-xcorr-params-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp failed")) {
        clpk_context_destroy(probe);
        return;
    }
    for (int f = 0; f < PARAM_CHECK_PROFILE_COUNT; ++f) {
        const char *name = param_check_profiles[f];
        cJSON *root = param_check_profile_load(name);
        if (!root) continue;
        CHECK(param_check_profile_entries(T, root, "xcorr", name) > 0, "%s has no xcorr entries", name);
        const cJSON *entries = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "xcorr");
        const cJSON *e;
        /* the same profile, renamed for this device */
        cJSON *device = cJSON_GetObjectItem(root, "device");
        cJSON_ReplaceItemInObject(device, "name", cJSON_CreateString(dev->name));
        cJSON_ReplaceItemInObject(device, "vendor", cJSON_CreateString(dev->vendor));
        cJSON_ReplaceItemInObject(device, "driver", cJSON_CreateString(dev->driver_version));
        cJSON_ReplaceItemInObject(device, "type", cJSON_CreateString(core_device_kind_string(dev->kind)));
        char profile[1100];
        snprintf(profile, sizeof profile, "%s/device.json", dir);
        char *json = cJSON_Print(root);
        FILE *out = fopen(profile, "w");
        if (out && json) fputs(json, out);
        if (out) fclose(out);
        free(json);
        setenv("CLPK_PROFILE_DIR", dir, 1);
        clpk_context *ctx = NULL;
        if (CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) {
            cJSON_ArrayForEach(e, entries) {
                const clpk_xcorr_shape s = class_shape(cJSON_GetObjectItem(e, "class"));
                const char *want =
                    cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "params"), "algorithm"));
                const cJSON *t = cJSON_GetObjectItem(e, "time_ms"), *td = cJSON_GetObjectItem(e, "default_time_ms");
                if (cJSON_IsNumber(t) && cJSON_IsNumber(td) && t->valuedouble >= td->valuedouble) want = "auto";
                /* tuned against another revision of the built-in defaults: never applied */
                const cJSON *rev = cJSON_GetObjectItem(e, "defaults_revision");
                if (cJSON_IsNumber(rev) && rev->valueint != T->defaults_revision) want = "auto";
                core_params features;
                xcorr_features(&s, &features);
                const core_resolve_request req = {.table = T, .features = &features};
                core_resolved r;
                if (!CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve: %s", clpk_last_error(ctx))) continue;
                const int kept_defaults = want && !strcmp(want, "auto");
                CHECK(r.choice.found == !kept_defaults &&
                          core_resolved_source(&r, "algorithm") ==
                              (kept_defaults ? CORE_SOURCE_DEFAULT : CORE_SOURCE_PROFILE) &&
                          want && !strcmp(core_params_get(&r.params, "algorithm"), want),
                      "%s: class %s %dx%d %d/%d %s: %s from %s, want %s", name, clpk_xcorr_pattern_name(s.pattern),
                      s.rows, s.cols, s.n_left, s.n_right, clpk_precision_name(s.precision),
                      core_params_get(&r.params, "algorithm"),
                      core_param_source_name(core_resolved_source(&r, "algorithm")), want ? want : "?");
            }
            /* past the reach: no entry of this profile has 1-to-1 pairs at 8 x 33000 */
            const clpk_xcorr_shape far = {CLPK_XCORR_ONE_TO_ONE, 8, 8, 33000, 33000, 0, 0, CLPK_PRECISION_F32};
            core_params features;
            xcorr_features(&far, &features);
            const core_resolve_request req = {.table = T, .features = &features};
            core_resolved r;
            CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS && !r.choice.found &&
                      !strcmp(core_params_get(&r.params, "algorithm"), "auto"),
                  "%s: a far class took a profile entry", name);
        }
        clpk_context_destroy(ctx);
        unsetenv("CLPK_PROFILE_DIR");
        unlink(profile);
        cJSON_Delete(root);
    }
    rmdir(dir);
    clpk_context_destroy(probe);
}

int main(void) {
    check_seed();
    table_defaults();
    fused_lines_for_occupancy();
    fused_padding();
    fused_work_group_and_radix();
    fused_tiles();
    searched_values();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    refusals_and_sources(ctx);
    clpk_context_destroy(ctx);
    shipped_profiles();
    return check_summary();
}
