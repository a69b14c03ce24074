/* Profile lookup (lib/core/profile.c): file precedence in temporary profile directories (exact device and driver, same
 * device, same vendor and type, defaults), CLPK_PROFILE over the directories, malformed files reported and ignored,
 * and the nearest-class choice (numbers by log distance, "lo..hi" ranges, strings that must match). */
#include "check.h"
#include "clpk_internal.h"
#include "param_table.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];
static clpk_device_info dev; /* the real device's facts */

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* A profile for a device (NULL fields are left out) whose "fam" family holds `entries` (JSON array text). */
static void write_profile_of(const char *family, const char *name, const char *dev_name, const char *vendor,
                             const char *driver, const char *type, const char *entries) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "clpk_version", CLPK_VERSION_STRING);
    cJSON *d = cJSON_AddObjectToObject(root, "device");
    if (dev_name) cJSON_AddStringToObject(d, "name", dev_name);
    if (vendor) cJSON_AddStringToObject(d, "vendor", vendor);
    if (driver) cJSON_AddStringToObject(d, "driver", driver);
    if (type) cJSON_AddStringToObject(d, "type", type);
    cJSON *fams = cJSON_AddObjectToObject(root, "families");
    cJSON_AddItemToObject(fams, family, cJSON_Parse(entries));
    char *text = cJSON_Print(root);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    write_text(path, text);
    free(text);
    cJSON_Delete(root);
}

static void write_profile(const char *name, const char *dev_name, const char *vendor, const char *driver,
                          const char *type, const char *entries) {
    write_profile_of("fam", name, dev_name, vendor, driver, type, entries);
}

static void remove_file(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    remove(path);
}

/* Creates a context with stderr captured; returns the warnings printed. */
static clpk_context *open_capturing(char *warnings, size_t size) {
    char log_path[512];
    snprintf(log_path, sizeof log_path, "%s/stderr.log", tmpdir);
    fflush(stderr);
    int saved = dup(2);
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) dup2(fd, 2);
    clpk_context *ctx = NULL;
    clpk_context_create(&ctx, NULL);
    fflush(stderr);
    if (fd >= 0) close(fd);
    dup2(saved, 2);
    close(saved);
    char *text = NULL;
    warnings[0] = '\0';
    if (core_read_file(log_path, &text, NULL, NULL) == CLPK_SUCCESS) snprintf(warnings, size, "%s", text);
    free(text);
    remove(log_path);
    return ctx;
}

/* Which "which" parameter the family's (class-free) entry gives, or "defaults". */
static void chosen_tag(clpk_context *ctx, char *tag, size_t size) {
    core_params features, params;
    core_params_clear(&features);
    core_params_clear(&params);
    core_params_set(&params, "which", "defaults");
    core_profile_choose(ctx, "fam", &features, &params, NULL);
    snprintf(tag, size, "%s", core_params_get(&params, "which"));
}

static const char *entry(const char *which) {
    static char buf[128];
    snprintf(buf, sizeof buf, "[{\"class\": {}, \"params\": {\"which\": \"%s\"}}]", which);
    return buf;
}

static void test_precedence(void) {
    const char *type = core_device_kind_string(dev.kind);
    write_profile("1-other.json", "Another Device", "Another Vendor", "1.0", type, entry("other"));
    write_profile("2-vendor.json", "A Sibling Device", dev.vendor, "1.0", type, entry("vendor"));
    write_profile("3-device.json", dev.name, dev.vendor, "some other driver", type, entry("device"));
    write_profile("4-exact.json", dev.name, dev.vendor, dev.driver_version, type, entry("exact"));
    write_profile("5-exact-later.json", dev.name, dev.vendor, dev.driver_version, type, entry("exact-later"));
    /* The same vendor but another device type does not match at the vendor level. */
    write_profile("0-vendor-other-type.json", "Yet Another", dev.vendor, "1.0",
                  dev.kind == CLPK_DEVICE_GPU ? "CPU" : "GPU", entry("wrong-type"));
    /* With 4 and 5 both exact, the earlier file name wins; then remove files one level at a time. */
    clpk_context *ctx = NULL;
    clpk_context_create(&ctx, NULL);
    char tag[64];
    chosen_tag(ctx, tag, sizeof tag);
    CHECK(!strcmp(tag, "exact") && clpk_context_profile(ctx, NULL) == CLPK_PROFILE_EXACT,
          "two exact files: the first by name wins (%s)", tag);
    char path[1024];
    CHECK(core_profile_for_device(&dev, path, sizeof path) == CLPK_PROFILE_EXACT && strstr(path, "4-exact.json"),
          "clpk-info's lookup agrees: %s", path);
    clpk_context_destroy(ctx);
    remove_file("4-exact.json");
    remove_file("5-exact-later.json");
    struct {
        const char *remove_after, *tag;
        clpk_profile_level level;
    } steps[] = {{"3-device.json", "device", CLPK_PROFILE_SAME_DEVICE},
                 {"2-vendor.json", "vendor", CLPK_PROFILE_SAME_VENDOR},
                 {NULL, "defaults", CLPK_PROFILE_DEFAULTS}};
    for (int k = 0; k < 3; ++k) {
        ctx = NULL;
        clpk_context_create(&ctx, NULL);
        chosen_tag(ctx, tag, sizeof tag);
        const char *used;
        clpk_profile_level level = clpk_context_profile(ctx, &used);
        CHECK(!strcmp(tag, steps[k].tag) && level == steps[k].level, "step %d: %s at level %s (want %s)", k, tag,
              clpk_profile_level_string(level), steps[k].tag);
        CHECK((level == CLPK_PROFILE_DEFAULTS) == (used[0] == '\0'), "the path is given with a profile: '%s'", used);
        clpk_context_destroy(ctx);
        if (steps[k].remove_after) remove_file(steps[k].remove_after);
    }
    /* CLPK_PROFILE names a file used whatever device it was tuned for. */
    char other[512];
    snprintf(other, sizeof other, "%s/1-other.json", tmpdir);
    setenv("CLPK_PROFILE", other, 1);
    ctx = NULL;
    clpk_context_create(&ctx, NULL);
    chosen_tag(ctx, tag, sizeof tag);
    const char *used;
    CHECK(!strcmp(tag, "other") && clpk_context_profile(ctx, &used) != CLPK_PROFILE_DEFAULTS && !strcmp(used, other),
          "CLPK_PROFILE is used as asked (%s)", tag);
    clpk_context_destroy(ctx);
    unsetenv("CLPK_PROFILE");
    remove_file("1-other.json");
    remove_file("0-vendor-other-type.json");

    const char *dirs[4];
    CHECK(core_profile_search_dirs(dirs, 4) == 1 && !strcmp(dirs[0], tmpdir),
          "CLPK_PROFILE_DIR replaces the built-in directories");
    unsetenv("CLPK_PROFILE_DIR");
    CHECK(core_profile_search_dirs(dirs, 4) == 2, "installed and source-tree profiles otherwise");
    setenv("CLPK_PROFILE_DIR", tmpdir, 1);
}

static void test_malformed(void) {
    char path[512];
    const char *type = core_device_kind_string(dev.kind);
    /* A valid file at a lower level, and broken ones that would otherwise match exactly. */
    write_profile("z-vendor.json", "A Sibling Device", dev.vendor, "1.0", type, entry("vendor"));
    const char *bad_entries[] = {
        "{\"class\": {}}",                                                 /* family not an array */
        "[{\"class\": {}}]",                                               /* entry without params */
        "[{\"class\": {\"n\": {\"x\": 1}}, \"params\": {}}]",              /* class value an object */
        "[{\"class\": {\"n\": [1, 2, 3]}, \"params\": {}}]",               /* a range of three */
        "[{\"class\": {}, \"params\": {\"wg\": [64]}}]",                   /* params value an array */
        "[7]",                                                             /* entry not an object */
        "[{\"class\": {}, \"params\": {}, \"valid\": [1, 2]}]",            /* valid not an object */
        "[{\"class\": {}, \"params\": {}, \"valid\": {\"n\": [5, 1]}}]",   /* valid range with lo > hi */
        "[{\"class\": {}, \"params\": {}, \"valid\": {\"n\": \"1..2\"}}]", /* valid range not a pair */
        "[{\"class\": {}, \"params\": {}, \"valid\": {\"n\": [1]}}]",      /* valid range of one */
    };
    int nbad = (int)(sizeof bad_entries / sizeof bad_entries[0]);
    for (int i = 0; i < nbad; ++i) {
        char name[64];
        snprintf(name, sizeof name, "bad-%d.json", i);
        write_profile(name, dev.name, dev.vendor, dev.driver_version, type, bad_entries[i]);
    }
    snprintf(path, sizeof path, "%s/bad-json.json", tmpdir);
    write_text(path, "{\"schema\": 1, \"device\": {\"name\": \"x\", ");
    snprintf(path, sizeof path, "%s/bad-schema.json", tmpdir);
    write_text(path, "{\"schema\": 2, \"device\": {\"name\": \"x\", \"vendor\": \"y\"}, \"families\": {}}");
    snprintf(path, sizeof path, "%s/bad-schema-frac.json", tmpdir);
    write_text(path, "{\"schema\": 1.5, \"device\": {\"name\": \"x\", \"vendor\": \"y\"}, \"families\": {}}");
    snprintf(path, sizeof path, "%s/bad-device.json", tmpdir);
    write_text(path, "{\"schema\": 1, \"device\": {\"vendor\": \"y\"}, \"families\": {}}");
    snprintf(path, sizeof path, "%s/bad-empty.json", tmpdir);
    write_text(path, "");
    char warnings[16384];
    clpk_context *ctx = open_capturing(warnings, sizeof warnings);
    if (!CHECK(ctx != NULL, "context despite malformed profiles")) return;
    char tag[64];
    chosen_tag(ctx, tag, sizeof tag);
    CHECK(!strcmp(tag, "vendor"), "malformed files ignored, the valid one used (%s)", tag);
    for (int i = 0; i < nbad; ++i) {
        char name[64];
        snprintf(name, sizeof name, "bad-%d.json ignored", i);
        CHECK(strstr(warnings, name) != NULL, "reported: %s", name);
    }
    CHECK(strstr(warnings, "bad-json.json ignored: not valid JSON"), "invalid JSON reported");
    CHECK(strstr(warnings, "bad-schema.json ignored: \"schema\" must be 1"), "schema 2 reported");
    CHECK(strstr(warnings, "bad-schema-frac.json ignored"), "schema 1.5 reported");
    CHECK(strstr(warnings, "bad-device.json ignored"), "device without a name reported");
    CHECK(strstr(warnings, "bad-empty.json ignored"), "empty file reported");
    clpk_context_destroy(ctx);

    /* A malformed CLPK_PROFILE falls back to the built-in defaults, with a warning. */
    snprintf(path, sizeof path, "%s/bad-json.json", tmpdir);
    setenv("CLPK_PROFILE", path, 1);
    ctx = open_capturing(warnings, sizeof warnings);
    chosen_tag(ctx, tag, sizeof tag);
    CHECK(!strcmp(tag, "defaults") && clpk_context_profile(ctx, NULL) == CLPK_PROFILE_DEFAULTS &&
              strstr(warnings, "bad-json.json"),
          "malformed CLPK_PROFILE: defaults (%s)", tag);
    clpk_context_destroy(ctx);
    setenv("CLPK_PROFILE", "/nonexistent/profile.json", 1);
    ctx = open_capturing(warnings, sizeof warnings);
    CHECK(ctx && clpk_context_profile(ctx, NULL) == CLPK_PROFILE_DEFAULTS && strstr(warnings, "cannot open"),
          "missing CLPK_PROFILE reported: %.200s", warnings);
    clpk_context_destroy(ctx);
    unsetenv("CLPK_PROFILE");
    for (int i = 0; i < nbad; ++i) {
        char name[64];
        snprintf(name, sizeof name, "bad-%d.json", i);
        remove_file(name);
    }
    remove_file("bad-json.json");
    remove_file("bad-schema.json");
    remove_file("bad-schema-frac.json");
    remove_file("bad-device.json");
    remove_file("bad-empty.json");
    remove_file("z-vendor.json");
}

static double distance(const char *klass_text, const char *features_text) {
    core_params k, f;
    core_params_clear(&k);
    core_params_clear(&f);
    core_params_parse(&k, klass_text, NULL);
    core_params_parse(&f, features_text, NULL);
    return core_class_distance(&k, &f);
}

/* A problem's features parsed from text, and the parameters a choice starts from: which=defaults. */
static void choice_inputs(const char *features, core_params *f, core_params *p) {
    core_params_clear(f);
    core_params_clear(p);
    core_params_parse(f, features, NULL);
    core_params_set(p, "which", "defaults");
}

static void test_distance(void) {
    CHECK(distance("n=100,p=f32", "n=100,p=f32") == 0, "same class: 0");
    CHECK(distance("", "n=100") == 0, "an empty class fits everything");
    CHECK(isinf(distance("p=f32", "p=f64")), "a different string never matches");
    CHECK(distance("n=10..20", "n=15") == 0 && distance("n=10..20", "n=10") == 0 && distance("n=10..20", "n=20") == 0,
          "inside a range: 0");
    CHECK(distance("n=10..20", "n=40") > 0 && fabs(distance("n=10..20", "n=40") - distance("n=20", "n=40")) < 1e-12,
          "above a range: distance to its top");
    CHECK(fabs(distance("n=10..20", "n=5") - distance("n=10", "n=5")) < 1e-12, "below: distance to its bottom");
    CHECK(distance("n=100", "n=200") < distance("n=100", "n=400"), "log distance grows");
    CHECK(fabs(distance("n=100", "n=200") - distance("n=200", "n=100")) < 1e-12, "symmetric");
    CHECK(fabs(distance("x=-10", "x=0.001") - distance("x=0.001", "x=-10")) < 1e-12, "symmetric across signs: %g vs %g",
          distance("x=-10", "x=0.001"), distance("x=0.001", "x=-10"));
    CHECK(distance("x=-1", "x=1") > distance("x=1", "x=1.5"), "a sign change is far");
    CHECK(distance("n=100,m=5", "n=100") == 1, "a class key the problem lacks costs 1");
    CHECK(distance("n=100", "n=100,m=5") == 0, "features the class ignores cost nothing");
    CHECK(isinf(distance("n=10..20", "n=abc")), "a non-number against a range never matches");
}

static void test_nearest(void) {
    const char *type = core_device_kind_string(dev.kind);
    write_profile("exact.json", dev.name, dev.vendor, dev.driver_version, type,
                  "[{\"class\": {\"precision\": \"f32\", \"rows\": 1000}, \"params\": {\"which\": \"small\", "
                  "\"wg\": 64, \"fast\": true}},"
                  " {\"class\": {\"precision\": \"f32\", \"rows\": 1000000}, \"params\": {\"which\": \"large\"}},"
                  " {\"class\": {\"precision\": \"f32\", \"rows\": [2000, 50000]}, \"params\": {\"which\": \"mid\"}},"
                  " {\"class\": {\"precision\": \"f64\"}, \"params\": {\"which\": \"double\"}},"
                  " {\"class\": {\"precision\": \"f32\", \"rows\": \"50..100\"}, \"params\": {\"which\": \"tiny\"}},"
                  /* the tuner kept the defaults of its time (not faster than them): the built-in defaults stay */
                  " {\"class\": {\"precision\": \"f32\", \"rows\": 7}, \"params\": {\"which\": \"kept\"},"
                  " \"time_ms\": 1.0, \"default_time_ms\": 1.0},"
                  " {\"class\": {\"precision\": \"f32\", \"rows\": 9}, \"params\": {\"which\": \"faster\"},"
                  " \"time_ms\": 0.5, \"default_time_ms\": 1.0}]");
    clpk_context *ctx = NULL;
    clpk_context_create(&ctx, NULL);
    if (!CHECK(ctx != NULL, "context")) return;
    struct {
        const char *features, *which;
        double distance;
    } cases[] = {
        {"precision=f32,rows=1000", "small", 0},    {"precision=f32,rows=1100", "small", -1},
        {"precision=f32,rows=3000", "mid", 0},      {"precision=f32,rows=50000", "mid", 0},
        {"precision=f32,rows=900000", "large", -1}, {"precision=f64,rows=1000", "double", 0},
        {"precision=f32,rows=70", "tiny", 0},       {"precision=f16,rows=1000", "defaults", -2},
        {"precision=f32,rows=7", "defaults", -2},   {"precision=f32,rows=9", "faster", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        core_params f, p;
        choice_inputs(cases[i].features, &f, &p);
        core_params_set(&p, "keep", "yes");
        core_profile_choice choice;
        CHECK(core_profile_choose(ctx, "fam", &f, &p, &choice) == CLPK_SUCCESS, "choose");
        const char *which = core_params_get(&p, "which");
        CHECK(!strcmp(which, cases[i].which), "%s -> %s (want %s)", cases[i].features, which, cases[i].which);
        CHECK(!strcmp(core_params_get(&p, "keep"), "yes"), "defaults the entry does not set are kept");
        if (cases[i].distance == 0) CHECK(choice.distance == 0 && choice.found, "exact class: distance 0");
        if (cases[i].distance == -1) CHECK(choice.found && choice.distance > 0, "near class: distance > 0");
        if (cases[i].distance == -2) CHECK(!choice.found && choice.level == CLPK_PROFILE_DEFAULTS, "no class fits");
        if (choice.found)
            CHECK(choice.level == CLPK_PROFILE_EXACT && strstr(choice.path, "exact.json"), "choice names the file");
    }
    core_params f, p;
    core_params_clear(&f);
    core_params_clear(&p);
    core_params_parse(&f, "precision=f32,rows=1000", NULL);
    core_profile_choose(ctx, "fam", &f, &p, NULL);
    CHECK(!strcmp(core_params_get(&p, "wg"), "64") && !strcmp(core_params_get(&p, "fast"), "1"),
          "numbers and booleans become parameter strings: wg=%s fast=%s", core_params_get(&p, "wg"),
          core_params_get(&p, "fast"));
    CHECK(core_profile_choose(ctx, NULL, &f, &p, NULL) == CLPK_ERROR_INVALID_ARGUMENT &&
              core_profile_choose(ctx, "fam", NULL, &p, NULL) == CLPK_ERROR_INVALID_ARGUMENT &&
              core_profile_choose(NULL, "fam", &f, &p, NULL) == CLPK_ERROR_INVALID_ARGUMENT,
          "NULL arguments refused");
    clpk_context_destroy(ctx);
    remove_file("exact.json");
}

/* Entries with "valid" ranges apply only inside them; entries without keep the nearest-class rule. */
static void test_valid_ranges(void) {
    const char *type = core_device_kind_string(dev.kind);
    write_profile("exact.json", dev.name, dev.vendor, dev.driver_version, type,
                  "[{\"class\": {\"precision\": \"f32\", \"rows\": 1000}, \"params\": {\"which\": \"small\"},"
                  "  \"valid\": {\"rows\": [500, 4000]}, \"checked_on\": {\"problems\": 3, \"passed\": 1}},"
                  " {\"class\": {\"precision\": \"f32\", \"rows\": 1000000}, \"params\": {\"which\": \"large\"},"
                  "  \"valid\": {\"rows\": [200000, 2000000]}},"
                  " {\"class\": {\"precision\": \"f64\", \"rows\": 1000}, \"params\": {\"which\": \"double\"}},"
                  /* the nearer entry's box misses rows=1100; the farther one's holds it */
                  " {\"class\": {\"precision\": \"f16\", \"rows\": 1000}, \"params\": {\"which\": \"near\"},"
                  "  \"valid\": {\"rows\": [1000, 1000]}},"
                  " {\"class\": {\"precision\": \"f16\", \"rows\": 100000}, \"params\": {\"which\": \"far\"},"
                  "  \"valid\": {\"rows\": [10, 1000000]}}]");
    clpk_context *ctx = NULL;
    clpk_context_create(&ctx, NULL);
    if (!CHECK(ctx != NULL, "context")) return;
    struct {
        const char *features, *which, *reason;
    } cases[] = {
        {"precision=f32,rows=3000", "small", "inside its valid range"},
        {"precision=f32,rows=4000", "small", "inside"},
        {"precision=f32,rows=500", "small", "inside"},
        {"precision=f32,rows=100000", "defaults", "not valid for rows=100000 (valid 200000..2e+06)"},
        {"precision=f32,rows=1500000", "large", "inside"},
        {"precision=f32,rows=3e7", "defaults", "not valid for rows=3e+07"},
        {"precision=f32", "defaults", "not valid without a number for rows"},
        {"precision=f64,rows=10000000", "double", "class distance"},
        {"precision=f16,rows=1100", "far", "inside"},
        {"precision=f16,rows=1000", "near", "inside"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        core_params f, p;
        choice_inputs(cases[i].features, &f, &p);
        core_profile_choice choice;
        char reason[320];
        CHECK(core_profile_choose_within(ctx, "fam", &f, 0, &p, &choice, reason, sizeof reason) == CLPK_SUCCESS,
              "choose");
        const char *which = core_params_get(&p, "which");
        CHECK(!strcmp(which, cases[i].which) && choice.found == (strcmp(cases[i].which, "defaults") != 0),
              "%s -> %s (want %s)", cases[i].features, which, cases[i].which);
        CHECK(strstr(reason, cases[i].reason) != NULL, "%s: reason '%s' says '%s'", cases[i].features, reason,
              cases[i].reason);
    }

    /* Through core_resolve: the box decides for boxed entries, the table's reach for the others. */
    static const core_param_def defs[] = {{"which", CORE_PARAM_NAME, "defaults|small|large|double|near|far", 0, 0,
                                           "defaults", NULL, NULL, CORE_PARAM_NO_FIELD, NULL, NULL, "test"}};
    const core_param_table table = {"fam", defs, CORE_PARAM_COUNT(defs), 0.5, 1};
    struct {
        const char *features, *which, *reason;
        core_param_source source;
    } resolves[] = {
        {"precision=f32,rows=3900", "small", "inside its valid range", CORE_SOURCE_PROFILE},
        {"precision=f32,rows=100000", "defaults", "not valid for rows=100000", CORE_SOURCE_DEFAULT},
        {"precision=f64,rows=1100", "double", "within the family's reach", CORE_SOURCE_PROFILE},
        {"precision=f64,rows=100000", "defaults", "reach 0.5", CORE_SOURCE_DEFAULT},
    };
    for (size_t i = 0; i < sizeof resolves / sizeof resolves[0]; ++i) {
        core_params f;
        core_params_clear(&f);
        core_params_parse(&f, resolves[i].features, NULL);
        core_resolve_request req = {.table = &table, .features = &f};
        core_resolved r;
        CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS, "resolve: %s", clpk_last_error(ctx));
        const char *which = core_params_get(&r.params, "which");
        CHECK(which && !strcmp(which, resolves[i].which) && core_resolved_source(&r, "which") == resolves[i].source,
              "resolve %s -> %s (want %s)", resolves[i].features, which ? which : "(none)", resolves[i].which);
        CHECK(strstr(r.reason, resolves[i].reason) != NULL, "resolve %s: reason '%s'", resolves[i].features, r.reason);
    }
    clpk_context_destroy(ctx);
    remove_file("exact.json");

    /* clpk_profile_find (clpk-info) reports the reason. */
    char text[2048];
    snprintf(
        text, sizeof text,
        "{\"schema\": 1, \"device\": {\"name\": \"%s\", \"vendor\": \"%s\", \"driver\": \"%s\", \"type\": \"%s\"},"
        " \"families\": {\"spmv\": [{\"class\": {\"precision\": \"f32\", \"rows\": 1000}, \"params\": {\"wg\": 64},"
        " \"valid\": {\"rows\": [500, 2000]}}]}}",
        dev.name, dev.vendor, dev.driver_version, type);
    char path[512];
    snprintf(path, sizeof path, "%s/spmv.json", tmpdir);
    write_text(path, text);
    ctx = NULL;
    clpk_context_create(&ctx, NULL);
    if (!CHECK(ctx != NULL, "context")) return;
    clpk_profile_entry entry;
    CHECK(clpk_profile_find(ctx, "spmv", "precision=f32,rows=1500", &entry) == CLPK_SUCCESS && entry.found &&
              strstr(entry.reason, "inside its valid range") && strstr(entry.resolved, "wg=64 (profile)"),
          "profile_find inside: %s / %s", entry.reason, entry.resolved);
    CHECK(clpk_profile_find(ctx, "spmv", "precision=f32,rows=100000", &entry) == CLPK_SUCCESS && !entry.found &&
              strstr(entry.reason, "not valid for rows=100000 (valid 500..2000)"),
          "profile_find outside: %s", entry.reason);
    clpk_context_destroy(ctx);
    remove_file("spmv.json");
}

/* An entry tuned against another revision of its family's built-in defaults is not applied (it beat defaults that are
 * gone), with a reason naming both revisions; one of the current revision applies; one without the field (a profile
 * older than it) applies. */
static void test_defaults_revision(void) {
    const core_param_table *t = core_param_table_of("sshopm");
    if (!CHECK(t && t->defaults_revision >= 1, "sshopm's table has a defaults revision")) return;
    char entries[768];
    snprintf(entries, sizeof entries,
             "[{\"class\": {\"n\": 10}, \"params\": {\"which\": \"current\"}, \"defaults_revision\": %d},"
             " {\"class\": {\"n\": 1000}, \"params\": {\"which\": \"older\"}, \"defaults_revision\": %d},"
             " {\"class\": {\"n\": 100000}, \"params\": {\"which\": \"unknown\"}}]",
             t->defaults_revision, t->defaults_revision - 1);
    write_profile_of("sshopm", "exact.json", dev.name, dev.vendor, dev.driver_version,
                     core_device_kind_string(dev.kind), entries);
    clpk_context *ctx = NULL;
    clpk_context_create(&ctx, NULL);
    if (!CHECK(ctx != NULL, "context")) return;
    char older[96];
    snprintf(older, sizeof older, "revision %d of the built-in defaults, this library has revision %d: re-tune",
             t->defaults_revision - 1, t->defaults_revision);
    const struct {
        const char *features, *which, *reason;
    } cases[] = {{"n=10", "current", "entry {n=10}"}, {"n=1000", "defaults", older}, {"n=100000", "unknown", ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        core_params f, p;
        choice_inputs(cases[i].features, &f, &p);
        char reason[512] = "";
        CHECK(core_profile_choose_within(ctx, "sshopm", &f, 0, &p, NULL, reason, sizeof reason) == CLPK_SUCCESS,
              "choose");
        CHECK(!strcmp(core_params_get(&p, "which"), cases[i].which), "%s -> %s (want %s)", cases[i].features,
              core_params_get(&p, "which"), cases[i].which);
        CHECK(strstr(reason, cases[i].reason) != NULL, "%s: reason '%s' lacks '%s'", cases[i].features, reason,
              cases[i].reason);
    }
    clpk_context_destroy(ctx);
    remove_file("exact.json");
}

int main(void) {
    check_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clpk-test-profile-XXXXXX");
    if (!CHECK(mkdtemp(tmpdir) != NULL, "temporary directory")) return check_summary();
    unsetenv("CLPK_PROFILE");
    setenv("CLPK_PROFILE_DIR", tmpdir, 1);
    setenv("CLPK_LOG", "warn", 1);
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no OpenCL device")) return check_summary();
    dev = *clpk_context_device_info(ctx);
    CHECK(clpk_context_profile(ctx, NULL) == CLPK_PROFILE_DEFAULTS, "an empty directory: built-in defaults");
    clpk_context_destroy(ctx);
    test_distance();
    test_precedence();
    test_malformed();
    test_nearest();
    test_valid_ranges();
    test_defaults_revision();
    rmdir(tmpdir);
    return check_summary();
}
