/* "auto" through a tuning profile: an entry's algorithm and parameters are used (and give correct results) even when
 * the entry holds a whole tuner candidate (keys of other algorithms), an entry this build cannot use (a key it does not
 * know, a bad value, an unknown algorithm: stale, ignored whole) falls back to the built-in choice instead of failing,
 * and explicit algorithms ignore the profile. The profile is written for the test's own device into a temporary
 * CLPK_PROFILE_DIR. */
#include "check.h"
#include "clpk_internal.h"
#include "clpk_xcorr.h"
#include "xcorr_plan.h"
#include "xcorr_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* JSON string escaping for device names (quotes and backslashes). */
static void json_escape(const char *in, char *out, size_t size) {
    size_t o = 0;
    for (; *in && o + 2 < size; ++in) {
        if (*in == '"' || *in == '\\') out[o++] = '\\';
        out[o++] = *in;
    }
    out[o] = 0;
}

static void expect_choice(clpk_context *ctx, const clpk_xcorr_shape *s, const char *algo, const char *want_algo,
                          const char *want_params, const char *label) {
    clpk_xcorr_plan *plan = NULL;
    clpk_status st = clpk_xcorr_plan_create(ctx, s, algo, NULL, &plan);
    if (CHECK(st == CLPK_SUCCESS, "%s: %s", label, clpk_last_error(ctx))) {
        char buf[256];
        clpk_xcorr_plan_params(plan, buf, sizeof buf);
        CHECK(strcmp(clpk_xcorr_plan_algorithm(plan), want_algo) == 0 && (!want_params || strstr(buf, want_params)),
              "%s: got %s {%s}, want %s {%s}", label, clpk_xcorr_plan_algorithm(plan), buf, want_algo,
              want_params ? want_params : "");
    }
    clpk_xcorr_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    /* Find the device first, to write a profile that matches it exactly. */
    clpk_context *probe = NULL;
    if (!CHECK(clpk_context_create(&probe, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(probe);
    char name[300], vendor[300], driver[300];
    json_escape(dev->name, name, sizeof name);
    json_escape(dev->vendor, vendor, sizeof vendor);
    json_escape(dev->driver_version, driver, sizeof driver);
    char dir[] = "/tmp/clpk-xcorr-profile-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL, "mkdtemp failed")) return check_summary();
    char path[512];
    snprintf(path, sizeof path, "%s/device.json", dir);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL, "cannot write %s", path)) return check_summary();
    fprintf(
        f,
        "{\"schema\": 1, \"clpk_version\": \"0.1\",\n"
        " \"device\": {\"name\": \"%s\", \"vendor\": \"%s\", \"driver\": \"%s\", \"type\": \"%s\"},\n"
        " \"families\": {\"xcorr\": [\n"
        "  {\"class\": {\"pattern\": \"one-to-many\", \"rows\": 12, \"cols\": 12, \"n_left\": 1, \"n_right\": 6,\n"
        "              \"precision\": \"f32\"},\n"
        "   \"params\": {\"algorithm\": \"split-row\", \"rows_per_worker\": 3, \"combine\": \"atomic\", \"wg\": 64,\n"
        "              \"team\": 16, \"shifts\": 4, \"lefts\": 2, \"fft_pad\": \"pow2\"}},\n"
        "  {\"class\": {\"pattern\": \"n-to-mn\", \"rows\": 12, \"cols\": 12, \"n_left\": 2, \"n_right\": 4,\n"
        "              \"precision\": \"f32\"},\n"
        "   \"params\": {\"algorithm\": \"split-row\", \"combine\": \"atomic\", \"from_the_future\": 1}},\n"
        "  {\"class\": {\"pattern\": \"n-to-m\", \"rows\": 10, \"cols\": 10, \"n_left\": 2, \"n_right\": 3,\n"
        "              \"precision\": \"f32\"},\n"
        "   \"params\": {\"algorithm\": \"grouped\", \"shifts\": \"zero\"}},\n"
        "  {\"class\": {\"pattern\": \"one-to-one\", \"rows\": 8, \"cols\": 8, \"n_left\": 2, \"n_right\": 2,\n"
        "              \"precision\": \"f32\"},\n"
        "   \"params\": {\"algorithm\": \"teleport\"}}]}}\n",
        name, vendor, driver, core_device_kind_string(dev->kind));
    fclose(f);
    clpk_context_destroy(probe);
    setenv("CLPK_PROFILE_DIR", dir, 1);
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const char *used = NULL;
    CHECK(clpk_context_profile(ctx, &used) == CLPK_PROFILE_EXACT, "profile %s not matched exactly", path);

    const clpk_xcorr_shape many = {CLPK_XCORR_ONE_TO_MANY, 13, 11, 1, 5, 0, 0, CLPK_PRECISION_F32};
    expect_choice(ctx, &many, NULL, "split-row", "rows_per_worker=3", "profile entry (nearest class)");
    expect_choice(ctx, &many, "auto", "split-row", "combine=atomic", "profile entry via \"auto\"");
    xcorr_check_case(ctx, &rng, &many, "auto", NULL, 1, "one-to-many 13x11 auto from the profile");
    expect_choice(ctx, &many, "naive", "naive", "wg=", "explicit algorithm ignores the profile");
    /* 40x the class's count: too far for the profile to decide (XCORR_PROFILE_REACH), the built-in rule does */
    const clpk_xcorr_shape far = {CLPK_XCORR_ONE_TO_MANY, 13, 11, 1, 200, 0, 0, CLPK_PRECISION_F32};
    expect_choice(ctx, &far, "auto", "multi-right", NULL, "far class: built-in rule");

    core_params builtin;
    const clpk_xcorr_shape nm = {CLPK_XCORR_N_TO_M, 10, 10, 2, 3, 0, 0, CLPK_PRECISION_F32};
    core_params_clear(&builtin);
    xcorr_builtin_params(ctx, &nm, &builtin);
    expect_choice(ctx, &nm, NULL, core_params_get(&builtin, "algorithm"), NULL, "unusable entry falls back");
    xcorr_check_case(ctx, &rng, &nm, NULL, NULL, 0, "n-to-m 10x10 after the fallback");

    const clpk_xcorr_shape mn = {CLPK_XCORR_N_TO_MN, 12, 12, 2, 4, 0, 0, CLPK_PRECISION_F32};
    core_params_clear(&builtin);
    xcorr_builtin_params(ctx, &mn, &builtin);
    expect_choice(ctx, &mn, NULL, core_params_get(&builtin, "algorithm"), NULL, "entry with an unknown key ignored");

    const clpk_xcorr_shape one = {CLPK_XCORR_ONE_TO_ONE, 8, 8, 2, 2, 0, 0, CLPK_PRECISION_F32};
    core_params_clear(&builtin);
    xcorr_builtin_params(ctx, &one, &builtin);
    expect_choice(ctx, &one, NULL, core_params_get(&builtin, "algorithm"), NULL, "unknown algorithm falls back");
    /* Explicit parameters with auto are the caller's: a profile choice they do not fit is an error, not a guess. */
    clpk_xcorr_plan *plan = NULL;
    CHECK(clpk_xcorr_plan_create(ctx, &many, "auto", "shifts=2", &plan) == CLPK_ERROR_INVALID_ARGUMENT && !plan,
          "auto + parameters of another algorithm accepted");
    clpk_xcorr_plan_destroy(plan);

    clpk_context_destroy(ctx);
    unlink(path);
    rmdir(dir);
    return check_summary();
}
