/* The SS-HOPM parameter table: its defaults parse (as documented), every value the tuner searches passes its checks,
 * the shipped profiles' sshopm entries are all valid (so they keep applying), the entries' names are the kernels'
 * SSHOPM_ENTRIES, unknown keys and disallowed values are refused naming them, and core_resolve reports each value's
 * source (default, profile, caller); plans report the resolved tuned values. */
#include "clpk_sshopm.h"
#include "sshopm_util.h"
#include "tune.h"

#include <unistd.h>

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
    int searched = 0;
    for (int i = 0; i < T->count; ++i) {
        const core_param_def *d = &T->defs[i];
        const char *values[CLPK_TUNE_MAX_VALUES];
        char storage[256];
        int n = core_param_search_values(d, values, storage, sizeof storage, CLPK_TUNE_MAX_VALUES);
        searched += n > 0;
        for (int v = 0; v < n; ++v) {
            clpk_error err = {0};
            CHECK(core_param_check_value(T, d, values[v], &err) == CLPK_SUCCESS, "searched %s=%s: %s", d->name,
                  values[v], err.message);
        }
    }
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

/* Every sshopm entry of the shipped profiles has only keys and values the table accepts. */
static void check_shipped_profiles(void) {
    const char *files[] = {"nvidia-h100.json", "pocl-cpu-amd-epyc.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char path[1024];
        snprintf(path, sizeof path, "%s/../profiles/%s", CLPK_TEST_SOURCE_DIR, files[f]);
        FILE *in = fopen(path, "rb");
        if (!CHECK(in != NULL, "open %s", path)) continue;
        fseek(in, 0, SEEK_END);
        long size = ftell(in);
        fseek(in, 0, SEEK_SET);
        char *text = malloc((size_t)size + 1);
        size_t got = fread(text, 1, (size_t)size, in);
        text[got] = '\0';
        fclose(in);
        cJSON *root = cJSON_Parse(text);
        free(text);
        const cJSON *entries = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "sshopm");
        int count = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, entries) {
            const cJSON *item;
            cJSON_ArrayForEach(item, cJSON_GetObjectItem(e, "params")) {
                const core_param_def *d = core_param_find(T, item->string);
                char value[64];
                if (cJSON_IsNumber(item))
                    snprintf(value, sizeof value, "%d", item->valueint);
                else
                    snprintf(value, sizeof value, "%s", cJSON_IsString(item) ? item->valuestring : "");
                clpk_error err = {0};
                CHECK(d && core_param_check_value(T, d, value, &err) == CLPK_SUCCESS, "%s: %s=%s: %s", files[f],
                      item->string, value, d ? err.message : "unknown key");
            }
            ++count;
        }
        CHECK(count > 0, "%s has sshopm entries", files[f]);
        cJSON_Delete(root);
    }
}

static void expect_refused(clpk_context *ctx, const char *caller, const char *needle1, const char *needle2) {
    core_resolve_request req = {T, NULL, caller, NULL, NULL};
    core_resolved r;
    clpk_status st = core_resolve(ctx, &req, &r);
    const char *msg = clpk_last_error(ctx);
    CHECK(st == CLPK_ERROR_INVALID_ARGUMENT && strstr(msg, needle1) && strstr(msg, needle2),
          "'%s' refused naming '%s' and '%s': %s (%s)", caller, needle1, needle2, clpk_status_string(st), msg);
}

static void check_resolve(clpk_context *ctx) {
    expect_refused(ctx, "colour=blue", "colour", "unknown");
    expect_refused(ctx, "entries=shared", "entries", "shared");
    expect_refused(ctx, "kernel=fast", "kernel", "fast");
    expect_refused(ctx, "check_every=65", "check_every", "65");
    expect_refused(ctx, "wg=0", "wg", "0");
    expect_refused(ctx, "unroll_max=-1", "unroll_max", "-1");

    core_resolve_request req = {T, NULL, "wg=64,kernel=general", NULL, NULL};
    core_resolved r;
    if (CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve: %s", clpk_last_error(ctx))) {
        CHECK(core_resolved_source(&r, "wg") == CORE_SOURCE_CALLER &&
                  core_resolved_source(&r, "kernel") == CORE_SOURCE_CALLER,
              "caller's keys have the caller as source");
        CHECK(core_resolved_source(&r, "entries") == CORE_SOURCE_DEFAULT &&
                  core_resolved_source(&r, "check_every") == CORE_SOURCE_DEFAULT &&
                  core_resolved_source(&r, "unroll_max") == CORE_SOURCE_DEFAULT,
              "the others are defaults");
        CHECK(!strcmp(core_params_get(&r.params, "wg"), "64") && !strcmp(core_params_get(&r.params, "entries"), "auto"),
              "values: wg %s, entries %s", core_params_get(&r.params, "wg"), core_params_get(&r.params, "entries"));
    }
}

/* A profile entry (for (4,3) f32) under a caller's value: sources profile / caller / default. A stale entry (a key
 * the table does not know) is ignored whole. */
static void check_profile_sources(void) {
    char path[] = "/tmp/clpk_sshopm_params_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!CHECK(f != NULL, "temporary profile")) return;
    fprintf(f,
            "{\"schema\": 1, \"device\": {\"name\": \"any\", \"vendor\": \"any\"}, \"families\": {\"sshopm\": ["
            "{\"class\": {\"order\": 4, \"dim\": 3, \"precision\": \"f32\"}, \"params\": {\"kernel\": \"generated\", "
            "\"entries\": \"global\", \"wg\": 32, \"check_every\": 2}},"
            "{\"class\": {\"order\": 4, \"dim\": 3, \"precision\": \"f64\"}, \"params\": {\"kernel\": \"generated\", "
            "\"entries\": \"global\", \"wg\": 32, \"colour\": 2}}]}}\n");
    fclose(f);
    setenv("CLPK_PROFILE", path, 1);
    setenv("CLPK_LOG", "quiet", 1);
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
    unsetenv("CLPK_PROFILE");
    remove(path);
}

int main(void) {
    check_defaults();
    check_search_values();
    check_entries_and_defines();
    check_shipped_profiles();
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
