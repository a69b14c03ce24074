/* The LiFE parameter table: its defaults parse (GPU, CPU, GPU f64's own), the NAME rows list their names in the order
 * of the plan's enums, the build options keep their order (program-cache keys), every value the tuner searches passes
 * its checks, the shipped profiles' life entries are all valid (so they keep applying), unknown keys and disallowed
 * values are refused naming them, and core_resolve reports each value's source; plans take defaults -> profile ->
 * strategy -> caller, and a stale profile entry is ignored whole. */
#include "check.h"
#include "life_internal.h"
#include "param_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const core_param_table *const T = &life_param_table;

static int read_config(const core_params *p, life_config *c) {
    clpk_error err = {0};
    memset(c, 0, sizeof *c);
    return CHECK(core_param_read(T, p, c, &err) == CLPK_SUCCESS, "defaults parse: %s", err.message);
}

static void check_defaults(void) {
    life_config c;
    core_params p;
    core_param_defaults(T, CLPK_DEVICE_GPU, &p);
    if (read_config(&p, &c))
        CHECK(c.dsc == LIFE_DSC_VOXEL && c.wc == LIFE_WC_FIBER && c.team == 32 && c.runs == 4 && c.unroll == 1 &&
                  c.wc_team == 32 && c.wc_runs == 8 && c.wg == 64 && c.theta_parts == 1 &&
                  c.voxel_order == LIFE_VOXEL_ORDER_INDEX && c.fiber_order == LIFE_FIBER_ORDER_INDEX &&
                  c.dict == LIFE_DICT_FULL,
              "GPU defaults");
    core_param_defaults(T, CLPK_DEVICE_CPU, &p);
    if (read_config(&p, &c))
        CHECK(c.dsc == LIFE_DSC_VOXEL && c.wc == LIFE_WC_FIBER && c.team == 16 && c.runs == 4 && c.unroll == 4 &&
                  c.wc_team == 16 && c.wc_runs == 4 && c.wg == 64 && c.theta_parts == 1 &&
                  c.voxel_order == LIFE_VOXEL_ORDER_INDEX && c.dict == LIFE_DICT_FULL,
              "CPU defaults");
    /* finer than a device kind: GPU f64, and devices that are neither GPU nor CPU take the CPU values */
    clpk_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.kind = CLPK_DEVICE_GPU;
    life_default_params(&dev, CLPK_PRECISION_F64, &p);
    if (read_config(&p, &c))
        CHECK(c.unroll == 8 && c.voxel_order == LIFE_VOXEL_ORDER_MORTON && c.team == 32 && c.dict == LIFE_DICT_FULL,
              "GPU f64 defaults");
    dev.kind = CLPK_DEVICE_OTHER;
    life_default_params(&dev, CLPK_PRECISION_F64, &p);
    if (read_config(&p, &c)) CHECK(c.team == 16 && c.unroll == 4 && c.wc_runs == 4, "other devices' defaults");
}

/* NAME rows hold the index of the name: the plan casts it to its enums. */
static void check_names(void) {
    const struct {
        const char *key, *value;
        int want;
    } cases[] = {{"dsc", "atomics", LIFE_DSC_ATOMICS},
                 {"dsc", "voxel", LIFE_DSC_VOXEL},
                 {"dsc", "pairs", LIFE_DSC_PAIRS},
                 {"dsc", "staged", LIFE_DSC_STAGED},
                 {"dsc", "voxel4", LIFE_DSC_VOXEL4},
                 {"wc", "atomics", LIFE_WC_ATOMICS},
                 {"wc", "atom", LIFE_WC_ATOM},
                 {"wc", "fiber", LIFE_WC_FIBER},
                 {"wc", "voxel", LIFE_WC_VOXEL},
                 {"wc", "pairs", LIFE_WC_PAIRS},
                 {"wc", "staged", LIFE_WC_STAGED},
                 {"wc", "fiber4", LIFE_WC_FIBER4},
                 {"voxel_order", "index", LIFE_VOXEL_ORDER_INDEX},
                 {"voxel_order", "morton", LIFE_VOXEL_ORDER_MORTON},
                 {"fiber_order", "index", LIFE_FIBER_ORDER_INDEX},
                 {"fiber_order", "voxel", LIFE_FIBER_ORDER_VOXEL},
                 {"dict", "full", LIFE_DICT_FULL},
                 {"dict", "half", LIFE_DICT_HALF}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        core_params p;
        core_param_defaults(T, CLPK_DEVICE_GPU, &p);
        core_params_set(&p, cases[i].key, cases[i].value);
        life_config c;
        if (!read_config(&p, &c)) continue;
        const int got = !strcmp(cases[i].key, "dsc")           ? c.dsc
                        : !strcmp(cases[i].key, "wc")          ? c.wc
                        : !strcmp(cases[i].key, "voxel_order") ? c.voxel_order
                        : !strcmp(cases[i].key, "dict")        ? c.dict
                                                               : c.fiber_order;
        CHECK(got == cases[i].want, "%s=%s reads %d (want %d)", cases[i].key, cases[i].value, got, cases[i].want);
    }
    for (int k = 0; k <= LIFE_DSC_STAGED; ++k)
        CHECK(strstr(core_param_find(T, "dsc")->values, life_dsc_name((life_dsc_kind)k)) != NULL, "dsc name %d", k);
    for (int k = 0; k <= LIFE_WC_STAGED; ++k)
        CHECK(strstr(core_param_find(T, "wc")->values, life_wc_name((life_wc_kind)k)) != NULL, "wc name %d", k);
}

/* TEAM, UNROLL and WC_TEAM in this order, as the build options had them before the table. */
static void check_defines(void) {
    core_params p;
    core_param_defaults(T, CLPK_DEVICE_GPU, &p);
    core_params_set(&p, "team", "8");
    core_params_set(&p, "unroll", "2");
    life_config c;
    if (!read_config(&p, &c)) return;
    char options[128] = "-DNTHETA=96 -DLDD=96";
    core_param_defines(T, &c, options, sizeof options);
    CHECK(!strcmp(options, "-DNTHETA=96 -DLDD=96 -DTEAM=8 -DUNROLL=2 -DWC_TEAM=32"), "defines '%s'", options);
    /* wc_block is read under wc=pairs only (its -DWC_BLOCK, when > 0, is the plan's: wc_block 0 shares the other
     * kernels' program) */
    core_params_set(&p, "wc_block", "32");
    if (!read_config(&p, &c)) return;
    CHECK(c.wc_block == 0, "wc_block read under wc=fiber (%d)", c.wc_block);
    core_params_set(&p, "wc", "pairs");
    if (!read_config(&p, &c)) return;
    snprintf(options, sizeof options, "-DNTHETA=96");
    core_param_defines(T, &c, options, sizeof options);
    CHECK(c.wc_block == 32 && !strstr(options, "WC_BLOCK"), "wc=pairs,wc_block=32: %d, defines '%s'", c.wc_block,
          options);
    core_params_set(&p, "wc_block", "48");
    clpk_error err = {0};
    CHECK(core_param_read(T, &p, &c, &err) == CLPK_ERROR_INVALID_ARGUMENT && strstr(err.message, "wc_block"),
          "wc_block=48: %s", err.message);
}

static void check_search_values(void) {
    const int searched = param_check_search_values(T);
    CHECK(searched == 13 && core_param_find(T, "theta_parts")->search == NULL,
          "the tuner searches every parameter but theta_parts (%d)", searched);
    /* the tuner prunes a parameter a strategy does not read to its first value: the default where it can */
    const core_param_def *wg = core_param_find(T, "wg");
    const char *first[1];
    char storage[256];
    if (core_param_search_values(wg, first, storage, sizeof storage, 1) > 0)
        CHECK(!strcmp(first[0], wg->default_gpu), "wg searches its default first");
}

static void check_resolve(clpk_context *ctx) {
    static const param_check_refusal refused[] = {{"bogus=1", "bogus", "unknown"},
                                                  {"team=3", "team", "3"},
                                                  {"team=abc", "team", "abc"},
                                                  {"wc=nope", "wc", "nope"},
                                                  {"voxel_order=hilbert", "voxel_order", "hilbert"},
                                                  {"unroll=17", "unroll", "17"},
                                                  {"theta_parts=0", "theta_parts", "0"},
                                                  {"runs=0", "runs", "0"},
                                                  {"dict=quarter", "dict", "quarter"}};
    param_check_refusals(ctx, T, refused, sizeof refused / sizeof refused[0]);

    core_resolved r;
    if (param_check_resolve(ctx, T, "team=8,voxel_order=morton", &r)) {
        param_check_sources(&r, CORE_SOURCE_CALLER, "team,voxel_order");
        param_check_sources(&r, CORE_SOURCE_DEFAULT, "runs,dsc");
        CHECK(!strcmp(core_params_get(&r.params, "team"), "8") && !strcmp(core_params_get(&r.params, "wc"), "fiber"),
              "values: team %s, wc %s", core_params_get(&r.params, "team"), core_params_get(&r.params, "wc"));
    }
}

/* Plans: refusals name the key; a strategy's kernels give way to the caller's; dict=half is for f32 plans (an f64
 * plan asked for it is refused, naming it) and stores D in 2 bytes a value. */
static void check_plans(clpk_context *ctx, const clpk_life_dataset *d) {
    clpk_life_plan *plan = NULL;
    if (clpk_context_device_info(ctx)->has_fp64)
        CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F64, "auto", "dict=half", &plan) ==
                      CLPK_ERROR_INVALID_ARGUMENT &&
                  strstr(clpk_last_error(ctx), "dict=half") && strstr(clpk_last_error(ctx), "f32") && !plan,
              "f64 with dict=half: %s", clpk_last_error(ctx));
    if (CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "sorted", "dict=half", &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        size_t bytes = 0;
        clGetMemObjectInfo(plan->dict, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
        CHECK(plan->config.dict == LIFE_DICT_HALF && plan->dict_size == 2 &&
                  bytes == (size_t)d->n_atoms * plan->ld_dict * 2,
              "dict=half: %zu bytes for %d x %d values", bytes, d->n_atoms, plan->ld_dict);
        clpk_life_plan_destroy(plan);
    }
    CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "sorted", "bogus=1", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "bogus") && !plan,
          "unknown key: %s", clpk_last_error(ctx));
    if (CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "atomics", "wc=fiber", &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        CHECK(plan->dsc_kind == LIFE_DSC_ATOMICS && plan->wc_kind == LIFE_WC_FIBER &&
                  strstr(plan->origin, "strategy atomics + caller's parameters"),
              "atomics with the caller's wc: dsc %d wc %d (%s)", plan->dsc_kind, plan->wc_kind, plan->origin);
        clpk_life_plan_destroy(plan);
    }
}

/* The features the plan passes for d in f32, with n_theta as given. */
static void features_of(const clpk_life_dataset *d, core_params *f) {
    double voxel_run = 0, fiber_run = 0, longest = 0;
    life_run_stats(d, LIFE_ORDER_VOXEL, &voxel_run, &longest);
    life_run_stats(d, LIFE_ORDER_FIBER, &fiber_run, &longest);
    core_params_clear(f);
    core_params_set(f, "precision", "f32");
    core_params_set_int(f, "n_theta", d->n_theta);
    core_params_set_num(f, "voxel_run", voxel_run > 1 ? voxel_run : 1);
    core_params_set_num(f, "fiber_run", fiber_run > 1 ? fiber_run : 1);
}

/* A profile entry under a caller's value: sources profile / caller / default, through core_resolve and a plan; the
 * strategies other than auto take no profile entry; a stale entry (a key the table does not know) is ignored whole
 * and the plan still builds on the defaults; an entry's dict=half leaves an f64 plan with full storage. */
static void check_profile_sources(const clpk_life_dataset *d) {
    char path[] = "/tmp/clpk_life_params_XXXXXX";
    if (!param_check_profile_install(
            path,
            "{\"schema\": 1, \"device\": {\"name\": \"any\", \"vendor\": \"any\"}, \"families\": {\"life\": ["
            "{\"class\": {\"precision\": \"f32\", \"n_theta\": %d}, \"params\": {\"dsc\": \"voxel\", \"wc\": "
            "\"fiber\", \"unroll\": 2, \"wc_runs\": 2, \"fiber_order\": \"voxel\"}},"
            "{\"class\": {\"precision\": \"f32\", \"n_theta\": %d}, \"params\": {\"unroll\": 2, \"colour\": 2}},"
            "{\"class\": {\"precision\": \"f64\", \"n_theta\": %d}, \"params\": {\"dict\": \"half\"}}]}}\n",
            d->n_theta, d->n_theta + 1000, d->n_theta))
        return;
    clpk_context *ctx = NULL;
    if (CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "context with the profile")) {
        core_params features;
        features_of(d, &features);
        core_resolve_request req = {T, &features, "wc_runs=1", NULL, NULL};
        core_resolved r;
        if (CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve: %s", clpk_last_error(ctx))) {
            CHECK(r.choice.found && core_resolved_source(&r, "unroll") == CORE_SOURCE_PROFILE &&
                      core_resolved_source(&r, "fiber_order") == CORE_SOURCE_PROFILE &&
                      core_resolved_source(&r, "wc_runs") == CORE_SOURCE_CALLER &&
                      core_resolved_source(&r, "team") == CORE_SOURCE_DEFAULT,
                  "sources profile, caller, default");
            CHECK(!strcmp(core_params_get(&r.params, "wc_runs"), "1") &&
                      !strcmp(core_params_get(&r.params, "unroll"), "2"),
                  "caller over profile");
        }
        clpk_life_plan *plan = NULL;
        if (CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "auto", "wc_runs=1", &plan) == CLPK_SUCCESS,
                  "plan: %s", clpk_last_error(ctx))) {
            CHECK(plan->config.unroll == 2 && plan->config.wc_runs == 1 &&
                      plan->fiber_order == LIFE_FIBER_ORDER_VOXEL && strstr(plan->origin, "profile ") &&
                      strstr(plan->origin, "+ caller's parameters"),
                  "auto plan: unroll %d, wc_runs %d (%s)", plan->config.unroll, plan->config.wc_runs, plan->origin);
            clpk_life_plan_destroy(plan);
        }
        if (CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F32, "sorted", NULL, &plan) == CLPK_SUCCESS, "plan: %s",
                  clpk_last_error(ctx))) {
            CHECK(plan->fiber_order == LIFE_FIBER_ORDER_INDEX && !strcmp(plan->origin, "strategy sorted"),
                  "sorted plan takes no profile entry (%s)", plan->origin);
            clpk_life_plan_destroy(plan);
        }
        /* an entry (hand-written: the tuner never keeps one) giving f64 plans dict=half: full storage instead */
        if (clpk_context_device_info(ctx)->has_fp64 &&
            CHECK(clpk_life_plan_create(ctx, d, CLPK_PRECISION_F64, "auto", NULL, &plan) == CLPK_SUCCESS,
                  "f64 plan under a dict=half entry: %s", clpk_last_error(ctx))) {
            CHECK(plan->config.dict == LIFE_DICT_FULL && strstr(plan->origin, "profile "), "f64 keeps dict=full (%s)",
                  plan->origin);
            clpk_life_plan_destroy(plan);
        }
        core_params_set_int(&features, "n_theta", d->n_theta + 1000);
        req.caller = NULL;
        if (CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve stale: %s", clpk_last_error(ctx))) {
            CHECK(!r.choice.found && core_resolved_source(&r, "unroll") == CORE_SOURCE_DEFAULT,
                  "a stale entry is ignored whole");
        }
        clpk_context_destroy(ctx);
    }
    param_check_profile_remove(path);
}

int main(void) {
    uint64_t rng = check_seed();
    check_defaults();
    check_names();
    check_defines();
    check_search_values();
    param_check_shipped_profiles(T, "life", 0);
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, NULL) != CLPK_SUCCESS) {
        printf("no OpenCL device: skipping the device checks\n");
        return check_summary();
    }
    life_random_options o = {.n_theta = 37, .n_atoms = 11, .n_voxels = 40, .n_fibers = 25, .mean_run = 4};
    clpk_life_dataset d;
    clpk_error err;
    if (CHECK(life_random_dataset(&o, check_rand(&rng), &d, NULL, &err) == CLPK_SUCCESS, "%s", err.message)) {
        check_resolve(ctx);
        check_plans(ctx, &d);
        clpk_context_destroy(ctx);
        ctx = NULL;
        check_profile_sources(&d);
        clpk_life_dataset_free(&d);
    }
    if (ctx) clpk_context_destroy(ctx);
    return check_summary();
}
