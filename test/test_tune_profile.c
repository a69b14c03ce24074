/* Profiles written by the tuner, read back by the library: round trip through core_profile_choose, the file's
 * values, lookup precedence of tuner-written files, an empty profile, merging, and resuming an interrupted run from
 * the cache without measuring a point twice. */
#include "check.h"
#include "param_table.h"
#include "tune_fakes.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

FAKE_FAMILY(plain, 0);
FAKE_FAMILY(sleepy, FAKE_SLEEP);

static char tmpdir[256];

static void path_in(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", tmpdir, name); }

static cJSON *read_json(const char *path) {
    char *text = NULL;
    if (core_read_file(path, &text, NULL, NULL) != CLPK_SUCCESS) return NULL;
    cJSON *root = cJSON_Parse(text);
    free(text);
    return root;
}

/* Opens a context with CLPK_PROFILE=path (or the directory search when path is NULL). */
static clpk_context *open_with_profile(const char *path) {
    if (path)
        setenv("CLPK_PROFILE", path, 1);
    else
        unsetenv("CLPK_PROFILE");
    clpk_context *ctx = NULL;
    clpk_context_create(&ctx, NULL);
    return ctx;
}

static void run_fake(clpk_context *ctx, const tune_family *fam, tune_report *r) {
    tune_config cfg;
    fake_config(&cfg, CLPK_TUNE_EXHAUSTIVE);
    const tune_family *fams[] = {fam, NULL};
    CHECK(tune_run(ctx, fams, &cfg, r) == CLPK_SUCCESS, "tune run: %s", clpk_last_error(ctx));
}

static void test_round_trip(clpk_context *ctx) {
    tune_report r;
    run_fake(ctx, &fake_family_plain, &r);
    char path[512];
    path_in(path, sizeof path, "round.json");
    clpk_error err = {0};
    CHECK(tune_profile_write(path, clpk_context_device_info(ctx), &r, &err) == CLPK_SUCCESS, "write: %s", err.message);

    /* The file as the schema says. */
    cJSON *root = read_json(path);
    const cJSON *fam = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "fake_plain");
    const cJSON *dev = cJSON_GetObjectItem(root, "device");
    CHECK(cJSON_GetObjectItem(root, "schema")->valuedouble == 1, "schema 1");
    CHECK(cJSON_IsString(cJSON_GetObjectItem(root, "clpk_version")), "clpk_version");
    CHECK(!strcmp(cJSON_GetObjectItem(dev, "name")->valuestring, clpk_context_device_info(ctx)->name) &&
              cJSON_IsString(cJSON_GetObjectItem(dev, "vendor")) &&
              cJSON_IsString(cJSON_GetObjectItem(dev, "driver")) && cJSON_IsString(cJSON_GetObjectItem(dev, "type")) &&
              cJSON_IsNumber(cJSON_GetObjectItem(dev, "compute_units")),
          "device block");
    CHECK(cJSON_GetArraySize(fam) == FAKE_PROBLEMS, "one entry per class: %d", cJSON_GetArraySize(fam));
    const cJSON *e0 = cJSON_GetArrayItem(fam, 0);
    const cJSON *params = cJSON_GetObjectItem(e0, "params"), *klass = cJSON_GetObjectItem(e0, "class");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(params, "a")) && cJSON_GetObjectItem(params, "a")->valuedouble == 8,
          "numeric parameter stored as a number");
    CHECK(cJSON_IsString(cJSON_GetObjectItem(params, "c")) &&
              !strcmp(cJSON_GetObjectItem(params, "c")->valuestring, "y"),
          "string parameter stored as a string");
    CHECK(cJSON_IsString(cJSON_GetObjectItem(klass, "precision")) &&
              cJSON_GetObjectItem(klass, "size")->valuedouble == 1000,
          "class kept");
    CHECK(fabs(cJSON_GetObjectItem(e0, "time_ms")->valuedouble - 1.0) < 1e-9 &&
              fabs(cJSON_GetObjectItem(e0, "default_time_ms")->valuedouble - fake_time_ms(0, 0, 0, 0)) < 1e-9,
          "best and default times");
    CHECK(!strcmp(cJSON_GetObjectItem(e0, "strategy")->valuestring, "exhaustive") &&
              cJSON_GetObjectItem(e0, "evaluated")->valueint == 126,
          "strategy and points evaluated");
    CHECK(!cJSON_GetObjectItem(e0, "defaults_revision"), "a family without a parameter table writes no revision");
    cJSON_Delete(root);

    /* An entry of a family with a table carries the revision of its built-in defaults (core_profile_choose applies
     * only entries of the library's revision). */
    char saved[32];
    snprintf(saved, sizeof saved, "%s", r.items[0].family);
    const int saved_count = r.family_count;
    char saved_first[32];
    snprintf(saved_first, sizeof saved_first, "%s", r.families[0]);
    snprintf(r.items[0].family, sizeof r.items[0].family, "xcorr");
    snprintf(r.families[0], sizeof r.families[0], "xcorr");
    r.family_count = 1;
    char *text = NULL;
    CHECK(tune_profile_text(clpk_context_device_info(ctx), &r, &text, &err) == CLPK_SUCCESS, "text: %s", err.message);
    snprintf(r.items[0].family, sizeof r.items[0].family, "%s", saved);
    snprintf(r.families[0], sizeof r.families[0], "%s", saved_first);
    r.family_count = saved_count;
    root = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *x0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "xcorr"), 0);
    const cJSON *rev = cJSON_GetObjectItem(x0, "defaults_revision");
    CHECK(cJSON_IsNumber(rev) && rev->valueint == core_param_table_of("xcorr")->defaults_revision,
          "the xcorr entry carries revision %d", core_param_table_of("xcorr")->defaults_revision);
    cJSON_Delete(root);

    /* The library reads it back and picks each class's parameters. */
    clpk_context *c2 = open_with_profile(path);
    if (!CHECK(c2 != NULL, "context with the profile")) return;
    const char *used;
    CHECK(clpk_context_profile(c2, &used) == CLPK_PROFILE_EXACT && !strcmp(used, path),
          "the tuner's file is accepted by the library's validator at the exact level: '%s'", used);
    for (int i = 0; i < r.count; ++i) {
        core_params chosen, features = r.items[i].klass;
        core_params_clear(&chosen);
        fake_defaults(c2, NULL, &chosen);
        core_profile_choice choice;
        CHECK(core_profile_choose(c2, "fake_plain", &features, &chosen, &choice) == CLPK_SUCCESS, "choose");
        char want[128], got[128];
        core_params_format(&r.items[i].best, want, sizeof want);
        core_params_format(&chosen, got, sizeof got);
        CHECK(choice.found && choice.distance == 0 && !strcmp(want, got), "class %d: tuned %s, chosen %s", i, want,
              got);
    }
    /* Nearest class: a size between the tuned ones picks the closer class; another precision matches none. */
    core_params features, chosen;
    core_params_clear(&features);
    core_params_set(&features, "precision", "f32");
    core_params_set(&features, "size", "2900");
    core_params_clear(&chosen);
    core_profile_choice choice;
    core_profile_choose(c2, "fake_plain", &features, &chosen, &choice);
    CHECK(choice.found && !strcmp(core_params_get(&choice.klass, "size"), "3000") &&
              !strcmp(core_params_get(&chosen, "b"), "5"),
          "size 2900 uses the class of 3000 (b=%s)", core_params_get(&chosen, "b"));
    core_params_set(&features, "precision", "f64");
    core_params_clear(&chosen);
    core_params_set(&chosen, "a", "1");
    core_profile_choose(c2, "fake_plain", &features, &chosen, &choice);
    CHECK(!choice.found && chosen.count == 1 && !strcmp(core_params_get(&chosen, "a"), "1"),
          "no class of another precision: the defaults stay");
    core_profile_choose(c2, "spmv", &features, &chosen, &choice);
    CHECK(!choice.found, "a family absent from the profile: defaults");
    clpk_context_destroy(c2);

    /* A run with no family (a branch with no tuned family yet) writes a valid empty profile. */
    tune_report empty;
    const tune_family *none[] = {NULL};
    tune_config cfg;
    fake_config(&cfg, CLPK_TUNE_HILL);
    CHECK(tune_run(ctx, none, &cfg, &empty) == CLPK_SUCCESS && empty.count == 0, "empty run");
    path_in(path, sizeof path, "empty.json");
    CHECK(tune_profile_write(path, clpk_context_device_info(ctx), &empty, &err) == CLPK_SUCCESS, "empty write");
    c2 = open_with_profile(path);
    CHECK(c2 && clpk_context_profile(c2, &used) == CLPK_PROFILE_EXACT, "the empty profile is valid");
    clpk_context_destroy(c2);
    tune_report_free(&r);
}

/* Tuner-written files for variants of this device, searched in a directory: the best level wins. */
static void test_precedence(clpk_context *ctx) {
    char dir[300];
    path_in(dir, sizeof dir, "profiles");
    mkdir(dir, 0755);
    setenv("CLPK_PROFILE_DIR", dir, 1);
    const clpk_device_info *real = clpk_context_device_info(ctx);
    struct {
        const char *file;
        clpk_device_info dev;
    } variants[4];
    for (int i = 0; i < 4; ++i)
        variants[i].dev = *real;
    variants[0].file = "a-other-vendor.json";
    snprintf(variants[0].dev.vendor, sizeof variants[0].dev.vendor, "Other Vendor");
    snprintf(variants[0].dev.name, sizeof variants[0].dev.name, "Other Device");
    variants[1].file = "b-same-vendor.json";
    snprintf(variants[1].dev.name, sizeof variants[1].dev.name, "Sibling Device");
    variants[2].file = "c-same-device.json";
    snprintf(variants[2].dev.driver_version, sizeof variants[2].dev.driver_version, "0.0-older");
    variants[3].file = "d-exact.json";
    const clpk_profile_level expect[] = {CLPK_PROFILE_DEFAULTS, CLPK_PROFILE_SAME_VENDOR, CLPK_PROFILE_SAME_DEVICE,
                                         CLPK_PROFILE_EXACT};
    tune_report r;
    run_fake(ctx, &fake_family_plain, &r);
    char paths[4][512];
    clpk_error err = {0};
    for (int i = 0; i < 4; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", dir, variants[i].file);
        tune_profile_write(paths[i], &variants[i].dev, &r, &err);
    }
    /* Remove the best file each time: exact -> same device -> same vendor -> defaults. */
    for (int k = 3; k >= 0; --k) {
        clpk_context *c = open_with_profile(NULL);
        const char *used = "";
        clpk_profile_level level = c ? clpk_context_profile(c, &used) : 0;
        CHECK(level == expect[k] && (k == 0 ? used[0] == '\0' : strstr(used, variants[k].file) != NULL),
              "with files up to %s: level %s, file '%s'", variants[k].file, clpk_profile_level_string(level), used);
        clpk_context_destroy(c);
        remove(paths[k]);
    }
    tune_report_free(&r);
    unsetenv("CLPK_PROFILE_DIR");
    rmdir(dir);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Replaces `path`'s families with n xcorr entries: one-to-many classes of side sizes[i], tuned against defaults
 * revision revisions[i]. */
static void write_xcorr_entries(const char *path, const int *sizes, const int *revisions, int n) {
    cJSON *root = read_json(path);
    if (!root) return;
    cJSON *fams = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(fams, "xcorr");
    for (int i = 0; i < n; ++i) {
        cJSON *e = cJSON_CreateObject(), *k = cJSON_AddObjectToObject(e, "class");
        cJSON_AddStringToObject(k, "pattern", "one-to-many");
        cJSON_AddNumberToObject(k, "rows", sizes[i]);
        cJSON_AddNumberToObject(k, "cols", sizes[i]);
        cJSON_AddNumberToObject(k, "n_left", 1);
        cJSON_AddNumberToObject(k, "n_right", 8);
        cJSON_AddStringToObject(k, "precision", "f32");
        cJSON_AddStringToObject(cJSON_AddObjectToObject(e, "params"), "algorithm", "naive");
        cJSON_AddNumberToObject(e, "time_ms", 1);
        cJSON_AddNumberToObject(e, "defaults_revision", revisions[i]);
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_ReplaceItemInObject(root, "families", fams);
    char *text = cJSON_Print(root);
    if (text) write_text(path, text);
    free(text);
    cJSON_Delete(root);
}

/* A merge drops the entries tuned against another revision of the family's built-in defaults (the library never
 * applies them), from the first file and from the others, and keeps those of the current revision. */
static void merge_drops_stale(const char *pa, const char *pb, const char *pc) {
    const int current = core_param_table_of("xcorr")->defaults_revision;
    const int sizes_a[] = {16, 32}, revisions_a[] = {current - 1, current};
    const int sizes_b[] = {48, 64}, revisions_b[] = {current + 1, current};
    write_xcorr_entries(pa, sizes_a, revisions_a, 2);
    write_xcorr_entries(pb, sizes_b, revisions_b, 2);
    const char *both[] = {pa, pb};
    clpk_error err = {0};
    if (!CHECK(tune_profile_merge(both, 2, pc, 0, &err) == CLPK_SUCCESS, "merge with stale entries: %s", err.message))
        return;
    cJSON *root = read_json(pc);
    const cJSON *fam = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "xcorr"), *e;
    int kept = 0, stale = 0;
    cJSON_ArrayForEach(e, fam) {
        const int rev = cJSON_GetObjectItem(e, "defaults_revision")->valueint;
        kept += rev == current;
        stale += rev != current;
    }
    CHECK(kept == 2 && stale == 0, "merge kept %d current and %d stale xcorr entries (want 2 and 0)", kept, stale);
    cJSON_Delete(root);
}

static void test_merge(clpk_context *ctx) {
    tune_report r;
    run_fake(ctx, &fake_family_plain, &r);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    /* Run A: classes 0 and 1, with class 1 slower than in run B; run B: classes 1 and 2. */
    tune_report a = r, b = r;
    a.items = malloc(sizeof *a.items * 2);
    b.items = malloc(sizeof *b.items * 2);
    a.items[0] = r.items[0];
    a.items[1] = r.items[1];
    a.items[1].best_ms = 9;
    core_params_set(&a.items[1].best, "b", "8");
    b.items[0] = r.items[1];
    b.items[1] = r.items[2];
    a.count = b.count = 2;
    char pa[512], pb[512], pc[512], bad[512], other[512];
    path_in(pa, sizeof pa, "a.json");
    path_in(pb, sizeof pb, "b.json");
    path_in(pc, sizeof pc, "merged.json");
    path_in(bad, sizeof bad, "bad.json");
    path_in(other, sizeof other, "other.json");
    clpk_error err = {0};
    tune_profile_write(pa, dev, &a, &err);
    tune_profile_write(pb, dev, &b, &err);
    const char *both[] = {pa, pb};
    CHECK(tune_profile_merge(both, 2, pc, 0, &err) == CLPK_SUCCESS, "merge: %s", err.message);
    cJSON *root = read_json(pc);
    const cJSON *fam = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "families"), "fake_plain");
    CHECK(cJSON_GetArraySize(fam) == 3, "the union of the classes: %d", cJSON_GetArraySize(fam));
    const cJSON *e;
    int checked = 0;
    cJSON_ArrayForEach(e, fam) {
        if (cJSON_GetObjectItem(cJSON_GetObjectItem(e, "class"), "size")->valuedouble != 2000) continue;
        checked = 1;
        CHECK(cJSON_GetObjectItem(e, "time_ms")->valuedouble < 9 &&
                  cJSON_GetObjectItem(cJSON_GetObjectItem(e, "params"), "b")->valuedouble == 4,
              "a class in both runs keeps the faster entry");
    }
    CHECK(checked, "class 2000 present");
    cJSON_Delete(root);
    clpk_context *c = open_with_profile(pc);
    const char *used = "";
    CHECK(c && clpk_context_profile(c, &used) != CLPK_PROFILE_DEFAULTS && !strcmp(used, pc), "merged file is valid");
    clpk_context_destroy(c);

    /* Another device is refused unless forced; a malformed input is refused with its name. */
    clpk_device_info dev2 = *dev;
    snprintf(dev2.name, sizeof dev2.name, "Another Device");
    tune_profile_write(other, &dev2, &b, &err);
    const char *mixed[] = {pa, other};
    CHECK(tune_profile_merge(mixed, 2, pc, 0, &err) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "Another Device"),
          "different devices refused: %s", err.message);
    CHECK(tune_profile_merge(mixed, 2, pc, 1, &err) == CLPK_SUCCESS, "--force merges anyway");
    write_text(bad, "{\"schema\": 1, \"device\": {\"name\": \"x\"}");
    const char *with_bad[] = {pa, bad};
    CHECK(tune_profile_merge(with_bad, 2, pc, 0, &err) == CLPK_ERROR_PROFILE && strstr(err.message, "bad.json"),
          "malformed input refused: %s", err.message);
    merge_drops_stale(pa, pb, pc);
    free(a.items);
    free(b.items);
    tune_report_free(&r);
    remove(pa);
    remove(pb);
    remove(pc);
    remove(bad);
    remove(other);
}

static int count_search_calls(int min_calls) {
    int n = 0;
    for (int i = 0; i < FAKE_PROBLEMS; ++i)
        for (int a = 0; a < FAKE_NA; ++a)
            for (int b = 0; b < FAKE_NB; ++b)
                for (int c = 0; c < FAKE_NC; ++c)
                    n += fake_search_calls[i][a][b][c] >= min_calls;
    return n;
}

/* An interrupted run (here: a budget that stops it midway) continues with --resume; no point is measured twice. */
static void test_resume(clpk_context *ctx) {
    char cache[512];
    path_in(cache, sizeof cache, "points.jsonl");
    const tune_family *fams[] = {&fake_family_sleepy, NULL};
    tune_config cfg;
    fake_config(&cfg, CLPK_TUNE_EXHAUSTIVE);
    cfg.cache_path = cache;
    cfg.budget_s = 0.2; /* 3 x 126 points x 3 ms need > 1.1 s */
    fake_reset_counts();
    tune_report r1, r2;
    CHECK(tune_run(ctx, fams, &cfg, &r1) == CLPK_SUCCESS && r1.budget_exhausted, "first run stops midway");
    int measured_first = count_search_calls(1);
    CHECK(measured_first > 10 && measured_first < 3 * 126, "first run measured %d points", measured_first);

    /* A resumed run whose budget is spent before it starts still takes every point the first run measured (no time:
     * the searches replay the same points) and measures none. */
    int first_found = 0;
    for (int i = 0; i < r1.count; ++i)
        first_found += r1.items[i].found;
    cfg.resume = 1;
    cfg.budget_s = 1e-9; /* a nanosecond: gone with the first candidate measured */
    tune_report r_spent;
    CHECK(tune_run(ctx, fams, &cfg, &r_spent) == CLPK_SUCCESS, "resumed run with its budget spent");
    int replayed = 0, found = 0;
    for (int i = 0; i < r_spent.count; ++i) {
        replayed += r_spent.items[i].from_cache;
        found += r_spent.items[i].found;
    }
    /* (the test's clock moves only when a candidate sleeps: a problem's share of the last nanosecond lets it measure
     * one new point) */
    CHECK(count_search_calls(1) <= measured_first + FAKE_PROBLEMS && count_search_calls(2) == 0,
          "at most a point a problem measured past the budget (%d points, the first run %d), none twice",
          count_search_calls(1), measured_first);
    CHECK(replayed == measured_first && found == first_found,
          "every measured point replayed (%d of %d), every problem the first run tuned has its result (%d of %d)",
          replayed, measured_first, found, first_found);
    tune_report_free(&r_spent);
    cfg.resume = 0;

    /* Simulate a kill in the middle of writing a line. */
    FILE *f = fopen(cache, "a");
    if (f) {
        fputs("{\"device\":\"cut", f);
        fclose(f);
    }
    cfg.budget_s = 0;
    cfg.resume = 1;
    CHECK(tune_run(ctx, fams, &cfg, &r2) == CLPK_SUCCESS, "resumed run");
    CHECK(count_search_calls(2) == 0, "no point measured twice (%d were)", count_search_calls(2));
    CHECK(count_search_calls(1) == 3 * 126, "every valid point measured once over both runs: %d",
          count_search_calls(1));
    int from_cache = 0;
    for (int i = 0; i < r2.count; ++i) {
        from_cache += r2.items[i].from_cache;
        CHECK(r2.items[i].complete && fake_is_optimum(&r2.items[i], i), "problem %d: finished at the optimum", i);
    }
    CHECK(from_cache >= measured_first, "the resumed run took %d points from the cache (first run: %d)", from_cache,
          measured_first);

    tune_cache *c = NULL;
    clpk_error err = {0};
    CHECK(tune_cache_open(cache, clpk_context_device_info(ctx), 1, &c, &err) == CLPK_SUCCESS, "reopen");
    CHECK(tune_cache_skipped(c) == 1, "the cut line is skipped: %d", tune_cache_skipped(c));
    CHECK(tune_cache_size(c) >= 3 * 126, "all points held: %d", tune_cache_size(c));
    tune_cache_close(c);
    /* Points of another driver are not reused. */
    clpk_device_info other = *clpk_context_device_info(ctx);
    snprintf(other.driver_version, sizeof other.driver_version, "another-driver");
    CHECK(tune_cache_open(cache, &other, 1, &c, &err) == CLPK_SUCCESS && tune_cache_size(c) == 0,
          "another driver's points are ignored");
    tune_cache_close(c);
    /* Without --resume the cache starts over. */
    CHECK(tune_cache_open(cache, clpk_context_device_info(ctx), 0, &c, &err) == CLPK_SUCCESS && tune_cache_size(c) == 0,
          "a fresh run starts an empty cache");
    tune_cache_close(c);
    /* A point whose evaluation never reported (the run died in it) is refused on resume, never tried again. */
    core_params klass, optimum, neighbour;
    core_params_clear(&klass);
    core_params_set(&klass, "precision", "f32");
    core_params_set(&klass, "size", "1000");
    core_params_clear(&optimum);
    core_params_parse(&optimum, "a=8,b=3,c=y", NULL);
    core_params_clear(&neighbour);
    core_params_parse(&neighbour, "a=4,b=3,c=y", NULL);
    CHECK(tune_cache_open(cache, clpk_context_device_info(ctx), 0, &c, &err) == CLPK_SUCCESS, "fresh cache");
    tune_cache_mark_pending(c, "fake_plain", &klass, "search", &optimum);
    tune_cache_mark_pending(c, "fake_plain", &klass, "search", &neighbour);
    tune_cache_store(c, "fake_plain", &klass, "search", &neighbour, CLPK_TUNE_OK, 2.5);
    tune_cache_close(c);
    tune_outcome outcome;
    double ms;
    tune_cache_open(cache, clpk_context_device_info(ctx), 1, &c, &err);
    CHECK(tune_cache_lookup(c, "fake_plain", &klass, "search", &optimum, &outcome, &ms) &&
              outcome == CLPK_TUNE_TIMEOUT && isinf(ms),
          "a point left pending reads as a timeout");
    CHECK(tune_cache_lookup(c, "fake_plain", &klass, "search", &neighbour, &outcome, &ms) && outcome == CLPK_TUNE_OK &&
              ms == 2.5,
          "a pending mark followed by a result reads as the result");
    tune_cache_close(c);
    fake_reset_counts();
    tune_config quick;
    fake_config(&quick, CLPK_TUNE_EXHAUSTIVE);
    quick.opts.quick = 1;
    quick.cache_path = cache;
    quick.resume = 1;
    const tune_family *plain[] = {&fake_family_plain, NULL};
    tune_report r3;
    CHECK(tune_run(ctx, plain, &quick, &r3) == CLPK_SUCCESS && r3.count == 1, "run over a pending point");
    CHECK(fake_search_calls[0][3][2][1] == 0 && fake_final_calls[0][3][2][1] == 0 &&
              !fake_is_optimum(&r3.items[0], 0) && r3.items[0].outcomes[CLPK_TUNE_TIMEOUT] == 1,
          "the point that took a run down is not tried again");
    CHECK(fake_search_calls[0][2][2][1] == 0, "the cached point is not measured again");
    tune_report_free(&r3);
    char bad_path[600];
    snprintf(bad_path, sizeof bad_path, "%s/no/such/dir/cache.jsonl", tmpdir);
    CHECK(tune_cache_open(bad_path, &other, 0, &c, &err) == CLPK_ERROR_IO && c == NULL, "unwritable cache: %s",
          err.message);
    tune_report_free(&r1);
    tune_report_free(&r2);
    remove(cache);
}

int main(void) {
    check_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clpk-test-tune-XXXXXX");
    if (!CHECK(mkdtemp(tmpdir) != NULL, "temporary directory")) return check_summary();
    unsetenv("CLPK_PROFILE_DIR");
    clpk_context *ctx = open_with_profile(NULL);
    if (!CHECK(ctx != NULL, "no OpenCL device")) return check_summary();
    test_round_trip(ctx);
    test_precedence(ctx);
    test_merge(ctx);
    test_resume(ctx);
    clpk_context_destroy(ctx);
    char path[512];
    path_in(path, sizeof path, "round.json");
    remove(path);
    path_in(path, sizeof path, "empty.json");
    remove(path);
    rmdir(tmpdir);
    return check_summary();
}
