/* The SS-HOPM parameter table: its defaults parse (as documented), every value the tuner searches passes its checks,
 * the shipped profiles' sshopm entries are all valid (so they keep applying), the entries' names are the kernels'
 * SSHOPM_ENTRIES, unknown keys and disallowed values are refused naming them, and core_resolve reports each value's
 * source (default, profile, caller); plans report the resolved tuned values. */
#include "clpk_sshopm.h"
#include "param_check.h"
#include "sshopm_util.h"

static const core_param_table *const T = &sshopm_param_table;

static void check_defaults(void) {
    const clpk_device_kind kinds[] = {CLPK_DEVICE_GPU, CLPK_DEVICE_CPU};
    for (int k = 0; k < 2; ++k) {
        core_params p;
        core_param_defaults(T, kinds[k], &p);
        sshopm_config c = {0};
        clpk_error err = {0};
        CHECK(core_param_read(T, &p, &c, &err) == CLPK_SUCCESS, "defaults parse: %s", err.message);
        CHECK(c.kernel == KERNEL_AUTO && c.entries == ENTRIES_AUTO && c.wg == 128 && c.check_every == 4 &&
                  c.unroll_max == 1536 && c.private_max == 128,
              "built-in defaults (kind %d)", (int)kinds[k]);
        sshopm_config d;
        sshopm_config_defaults(kinds[k], &d);
        CHECK(!memcmp(&c, &d, sizeof c), "sshopm_config_defaults reads the same");
    }
}

static void check_search_values(void) {
    const int searched = param_check_search_values(T);
    CHECK(searched == 4, "the tuner searches kernel, entries, wg and check_every (%d)", searched);
}

/* The entries' index is the -D value of the kernels (0 local, 1 global, 2 private); the build options keep their
 * order (program-cache keys). */
static void check_entries_and_defines(void) {
    const char *names[] = {"local", "global", "private"};
    for (int e = 0; e < 3; ++e) {
        core_params p;
        core_param_defaults(T, CLPK_DEVICE_GPU, &p);
        core_params_set(&p, "entries", names[e]);
        sshopm_config c = {0};
        CHECK(core_param_read(T, &p, &c, NULL) == CLPK_SUCCESS && c.entries == e, "entries=%s is %d", names[e], e);
        char options[128] = "-DX=1";
        core_param_defines(T, &c, options, sizeof options);
        char want[128];
        snprintf(want, sizeof want, "-DX=1 -DSSHOPM_ENTRIES=%d -DSSHOPM_CHECK_EVERY=4", e);
        CHECK(!strcmp(options, want), "defines '%s' (want '%s')", options, want);
    }
}

static void check_resolve(clpk_context *ctx) {
    static const param_check_refusal refused[] = {{"colour=blue", "colour", "unknown"},
                                                  {"entries=shared", "entries", "shared"},
                                                  {"kernel=fast", "kernel", "fast"},
                                                  {"check_every=65", "check_every", "65"},
                                                  {"wg=0", "wg", "0"},
                                                  {"unroll_max=-1", "unroll_max", "-1"}};
    param_check_refusals(ctx, T, refused, sizeof refused / sizeof refused[0]);

    core_resolved r;
    if (param_check_resolve(ctx, T, "wg=64,kernel=general", &r)) {
        param_check_sources(&r, CORE_SOURCE_CALLER, "wg,kernel");
        param_check_sources(&r, CORE_SOURCE_DEFAULT, "entries,check_every,unroll_max");
        CHECK(!strcmp(core_params_get(&r.params, "wg"), "64") && !strcmp(core_params_get(&r.params, "entries"), "auto"),
              "values: wg %s, entries %s", core_params_get(&r.params, "wg"), core_params_get(&r.params, "entries"));
    }
}

/* A profile entry (for (4,3) f32) under a caller's value: sources profile / caller / default. A stale entry (a key
 * the table does not know) is ignored whole. */
static void check_profile_sources(void) {
    char path[] = "/tmp/clpk_sshopm_params_XXXXXX";
    if (!param_check_profile_install(
            path,
            "{\"schema\": 1, \"device\": {\"name\": \"any\", \"vendor\": \"any\"}, \"families\": {\"sshopm\": ["
            "{\"class\": {\"order\": 4, \"dim\": 3, \"precision\": \"f32\"}, \"params\": {\"kernel\": \"generated\", "
            "\"entries\": \"global\", \"wg\": 32, \"check_every\": 2}},"
            "{\"class\": {\"order\": 4, \"dim\": 3, \"precision\": \"f64\"}, \"params\": {\"kernel\": \"generated\", "
            "\"entries\": \"global\", \"wg\": 32, \"colour\": 2}}]}}\n"))
        return;
    clpk_context *ctx = NULL;
    if (CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "context with the profile")) {
        core_params features;
        core_params_clear(&features);
        core_params_set_int(&features, "order", 4);
        core_params_set_int(&features, "dim", 3);
        core_params_set(&features, "precision", "f32");
        core_resolve_request req = {T, &features, "check_every=8", NULL, NULL};
        core_resolved r;
        if (CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve: %s", clpk_last_error(ctx))) {
            CHECK(r.choice.found && core_resolved_source(&r, "wg") == CORE_SOURCE_PROFILE &&
                      core_resolved_source(&r, "entries") == CORE_SOURCE_PROFILE &&
                      core_resolved_source(&r, "check_every") == CORE_SOURCE_CALLER &&
                      core_resolved_source(&r, "private_max") == CORE_SOURCE_DEFAULT,
                  "sources profile, caller, default");
            CHECK(!strcmp(core_params_get(&r.params, "check_every"), "8") &&
                      !strcmp(core_params_get(&r.params, "wg"), "32"),
                  "caller over profile");
        }
        /* through a plan: the profile's values, the caller's over them */
        clpk_sshopm_options o;
        clpk_sshopm_options_default(&o);
        o.starts = 8;
        o.params = "check_every=8";
        clpk_sshopm_plan *plan = NULL;
        if (CHECK(clpk_sshopm_plan_create(ctx, 4, 3, CLPK_PRECISION_F32, 2, &o, &plan) == CLPK_SUCCESS, "plan: %s",
                  clpk_last_error(ctx))) {
            char buf[256];
            clpk_sshopm_plan_params(plan, buf, sizeof buf);
            CHECK(!strcmp(buf, "kernel=generated,entries=global,wg=32,check_every=8"), "plan params: %s", buf);
            clpk_sshopm_plan_destroy(plan);
        }
        core_params_set(&features, "precision", "f64");
        req.caller = NULL;
        if (CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve f64: %s", clpk_last_error(ctx))) {
            /* the f64 entry names a key the table does not know: ignored, the defaults stay */
            CHECK(!r.choice.found && core_resolved_source(&r, "wg") == CORE_SOURCE_DEFAULT &&
                      !strcmp(core_params_get(&r.params, "wg"), "128"),
                  "a stale entry is ignored whole");
        }
        clpk_context_destroy(ctx);
    }
    param_check_profile_remove(path);
}

int main(void) {
    check_defaults();
    check_search_values();
    check_entries_and_defines();
    /* defaults revision 3 (session 29) left the GPU profiles without sshopm entries until they are re-tuned */
    param_check_shipped_profiles(T, "sshopm", 1);
    char listing[4096];
    clpk_error err = {0};
    CHECK(clpk_family_parameters("sshopm", listing, sizeof listing, &err) == CLPK_SUCCESS &&
              strstr(listing, "private_max") && strstr(listing, "check_every"),
          "clpk_family_parameters lists the table");
    clpk_context *ctx = sshopm_test_context();
    if (ctx) {
        check_resolve(ctx);
        clpk_context_destroy(ctx);
        check_profile_sources();
    }
    return check_summary();
}
