/* Tuning profiles: finding the file that fits a device, validating it, and picking the nearest problem class.
 * The schema is documented in docs/profiles.md. */
#include "context_impl.h"
#include "param_table.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *clpk_profile_level_string(clpk_profile_level level) {
    switch (level) {
    case CLPK_PROFILE_EXACT: return "exact device and driver";
    case CLPK_PROFILE_SAME_DEVICE: return "same device, other driver";
    case CLPK_PROFILE_SAME_VENDOR: return "same vendor and device type";
    case CLPK_PROFILE_DEFAULTS: return "built-in defaults";
    }
    return "unknown";
}

void core_profile_release_json(void *json) {
    if (json) cJSON_Delete((cJSON *)json);
}

clpk_profile_level core_profile_match_level(const clpk_device_info *dev, const char *name, const char *vendor,
                                            const char *driver, const char *type) {
    if (name && strcasecmp(name, dev->name) == 0) {
        if (driver && strcmp(driver, dev->driver_version) == 0) return CLPK_PROFILE_EXACT;
        return CLPK_PROFILE_SAME_DEVICE;
    }
    if (vendor && type && strcasecmp(vendor, dev->vendor) == 0 &&
        strcasecmp(type, core_device_kind_string(dev->kind)) == 0)
        return CLPK_PROFILE_SAME_VENDOR;
    return CLPK_PROFILE_DEFAULTS;
}

int core_profile_search_dirs(const char **dirs, int capacity) {
    int n = 0;
    const char *env = getenv("CLPK_PROFILE_DIR");
    if (env && *env) {
        if (n < capacity) dirs[n++] = env;
        return n; /* an explicit directory replaces the built-in ones */
    }
    if (n < capacity) dirs[n++] = CLPK_INSTALL_PROFILE_DIR;
    if (n < capacity) dirs[n++] = CLPK_SOURCE_PROFILE_DIR;
    return n;
}

static const char *string_item(const cJSON *obj, const char *key) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* A [lo, hi] pair of numbers. */
static int is_pair(const cJSON *v) {
    return cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
           cJSON_IsNumber(cJSON_GetArrayItem(v, 1));
}

/* Checks the schema; on failure writes the reason into `why`. */
static int validate(const cJSON *root, char *why, size_t size) {
    if (!cJSON_IsObject(root)) return snprintf(why, size, "top level is not an object"), 0;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsNumber(schema) || schema->valuedouble != 1) return snprintf(why, size, "\"schema\" must be 1"), 0;
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    if (!cJSON_IsObject(dev) || !string_item(dev, "name") || !string_item(dev, "vendor"))
        return snprintf(why, size, "\"device\" must be an object with string \"name\" and \"vendor\""), 0;
    const cJSON *families = cJSON_GetObjectItemCaseSensitive(root, "families");
    if (!cJSON_IsObject(families)) return snprintf(why, size, "\"families\" must be an object"), 0;
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(root, "models");
    if (models && !cJSON_IsObject(models)) return snprintf(why, size, "\"models\" must be an object"), 0;
    const cJSON *fam;
    cJSON_ArrayForEach(fam, families) {
        if (!cJSON_IsArray(fam)) return snprintf(why, size, "family \"%s\" is not an array", fam->string), 0;
        int i = 0;
        const cJSON *entry;
        cJSON_ArrayForEach(entry, fam) {
            const cJSON *klass = cJSON_GetObjectItemCaseSensitive(entry, "class");
            const cJSON *params = cJSON_GetObjectItemCaseSensitive(entry, "params");
            if (!cJSON_IsObject(entry) || !cJSON_IsObject(klass) || !cJSON_IsObject(params))
                return snprintf(why, size, "%s[%d] needs \"class\" and \"params\" objects", fam->string, i), 0;
            const cJSON *v;
            cJSON_ArrayForEach(v, params) {
                if (!cJSON_IsString(v) && !cJSON_IsNumber(v) && !cJSON_IsBool(v))
                    return snprintf(why, size, "%s[%d].params.%s must be a string or number", fam->string, i,
                                    v->string),
                           0;
            }
            cJSON_ArrayForEach(v, klass) {
                if (!cJSON_IsString(v) && !cJSON_IsNumber(v) && !is_pair(v))
                    return snprintf(why, size, "%s[%d].class.%s must be a string, number or [lo, hi]", fam->string, i,
                                    v->string),
                           0;
            }
            const cJSON *valid = cJSON_GetObjectItemCaseSensitive(entry, "valid");
            if (valid && !cJSON_IsObject(valid))
                return snprintf(why, size, "%s[%d].valid must be an object", fam->string, i), 0;
            cJSON_ArrayForEach(v, valid) {
                if (!is_pair(v) || cJSON_GetArrayItem(v, 0)->valuedouble > cJSON_GetArrayItem(v, 1)->valuedouble)
                    return snprintf(why, size, "%s[%d].valid.%s must be [lo, hi] with lo <= hi", fam->string, i,
                                    v->string),
                           0;
            }
            ++i;
        }
    }
    return 1;
}

/* Loads and validates one file; malformed files are reported (once per load) and skipped. */
static cJSON *load_profile(const clpk_context *ctx, const char *path) {
    char *text = NULL;
    clpk_error err;
    if (core_read_file(path, &text, NULL, &err) != CLPK_SUCCESS) {
        core_log(ctx, CLPK_LOG_WARN, "profile %s ignored: %s", path, err.message);
        return NULL;
    }
    cJSON *root = cJSON_Parse(text);
    char why[256];
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t offset = at && at >= text ? (size_t)(at - text) : 0;
        core_log(ctx, CLPK_LOG_WARN, "profile %s ignored: not valid JSON (near byte %zu)", path, offset);
    } else if (!validate(root, why, sizeof why)) {
        core_log(ctx, CLPK_LOG_WARN, "profile %s ignored: %s", path, why);
        cJSON_Delete(root);
        root = NULL;
    }
    free(text);
    return root;
}

static clpk_profile_level level_of(const clpk_device_info *dev, const cJSON *root) {
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "device");
    return core_profile_match_level(dev, string_item(d, "name"), string_item(d, "vendor"), string_item(d, "driver"),
                                    string_item(d, "type"));
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Best file over the search directories: lowest level wins, ties go to the earlier directory then file name. */
static void search_dirs(const clpk_context *ctx, const clpk_device_info *dev, cJSON **best, char *best_path,
                        size_t path_size, clpk_profile_level *best_level) {
    const char *dirs[4];
    int ndirs = core_profile_search_dirs(dirs, 4);
    for (int d = 0; d < ndirs; ++d) {
        DIR *dir = opendir(dirs[d]);
        if (!dir) continue;
        char *names[256];
        int n = 0;
        struct dirent *e;
        while ((e = readdir(dir)) && n < 256) {
            size_t len = strlen(e->d_name);
            if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) names[n++] = strdup(e->d_name);
        }
        closedir(dir);
        qsort(names, (size_t)n, sizeof names[0], compare_names);
        for (int i = 0; i < n; ++i) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dirs[d], names[i]);
            free(names[i]);
            if (*best_level == CLPK_PROFILE_EXACT) continue;
            cJSON *root = load_profile(ctx, path);
            if (!root) continue;
            clpk_profile_level level = level_of(dev, root);
            if (level < *best_level) {
                cJSON_Delete(*best);
                *best = root;
                *best_level = level;
                snprintf(best_path, path_size, "%s", path);
            } else {
                cJSON_Delete(root);
            }
        }
    }
}

/* Finds the profile for a device: $CLPK_PROFILE if set (used whatever device it names), else the best file of the
 * search directories. Returns the parsed document (caller deletes) or NULL for built-in defaults. */
static cJSON *find_profile(const clpk_context *ctx, const clpk_device_info *dev, char *path, size_t path_size,
                           clpk_profile_level *level) {
    *level = CLPK_PROFILE_DEFAULTS;
    path[0] = '\0';
    const char *explicit_file = getenv("CLPK_PROFILE");
    if (explicit_file && *explicit_file) {
        cJSON *root = load_profile(ctx, explicit_file);
        if (root) {
            clpk_profile_level l = level_of(dev, root);
            if (l == CLPK_PROFILE_DEFAULTS) {
                core_log(ctx, CLPK_LOG_WARN, "CLPK_PROFILE %s was tuned for another device; using it as asked",
                         explicit_file);
                l = CLPK_PROFILE_SAME_VENDOR;
            }
            *level = l;
            snprintf(path, path_size, "%s", explicit_file);
        }
        return root;
    }
    cJSON *best = NULL;
    search_dirs(ctx, dev, &best, path, path_size, level);
    return best;
}

clpk_status core_profile_load_for_context(clpk_context *ctx) {
    ctx->profile_json = find_profile(ctx, &ctx->info, ctx->profile_path, sizeof ctx->profile_path, &ctx->profile_level);
    return CLPK_SUCCESS;
}

const void *core_profile_model(const clpk_context *ctx, const char *family) {
    if (!ctx || !ctx->profile_json) return NULL;
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ctx->profile_json, "models"), family);
}

/* For clpk-info: which profile a device would use, without creating a context. */
clpk_profile_level core_profile_for_device(const clpk_device_info *dev, char *path, size_t path_size) {
    clpk_profile_level level;
    cJSON *root = find_profile(NULL, dev, path, path_size, &level);
    cJSON_Delete(root);
    return level;
}

/* ---- Nearest class -------------------------------------------------------------------------------------------- */

static int parse_number(const char *s, double *x) {
    char *end;
    *x = strtod(s, &end);
    return end != s && *end == '\0';
}

static double log_gap(double a, double b) {
    double d = fabs(log1p(fabs(a)) - log1p(fabs(b)));
    if ((a < 0) != (b < 0)) d += 1.0; /* on |d|, so the distance stays symmetric */
    return d * d;
}

double core_class_distance(const core_params *klass, const core_params *features) {
    double total = 0;
    for (int i = 0; i < klass->count; ++i) {
        const char *want = klass->items[i].value;
        const char *have = core_params_get(features, klass->items[i].key);
        if (!have) {
            total += 1.0; /* a class more specific than the question fits less well */
            continue;
        }
        double lo, hi, x;
        const char *dots = strstr(want, "..");
        if (dots && parse_number(have, &x)) {
            char a[64];
            snprintf(a, sizeof a, "%.*s", (int)(dots - want), want);
            if (parse_number(a, &lo) && parse_number(dots + 2, &hi)) {
                if (x < lo)
                    total += log_gap(x, lo);
                else if (x > hi)
                    total += log_gap(x, hi);
                continue;
            }
        }
        if (parse_number(want, &lo) && parse_number(have, &x))
            total += log_gap(lo, x);
        else if (strcmp(want, have) != 0)
            return INFINITY;
    }
    return total;
}

static void json_to_params(const cJSON *obj, core_params *out) {
    core_params_clear(out);
    const cJSON *v;
    cJSON_ArrayForEach(v, obj) {
        char buf[64];
        if (cJSON_IsString(v))
            snprintf(buf, sizeof buf, "%s", v->valuestring);
        else if (cJSON_IsBool(v))
            snprintf(buf, sizeof buf, "%d", cJSON_IsTrue(v) ? 1 : 0);
        else if (cJSON_IsNumber(v))
            snprintf(buf, sizeof buf, "%.17g", v->valuedouble);
        else if (cJSON_IsArray(v))
            snprintf(buf, sizeof buf, "%.17g..%.17g", cJSON_GetArrayItem(v, 0)->valuedouble,
                     cJSON_GetArrayItem(v, 1)->valuedouble);
        else
            continue;
        core_params_set(out, v->string, buf);
    }
}

/* Whether an entry's "valid" box holds the features: 1 inside, 0 outside (why says which feature), -1 the entry has
 * no box. A feature the problem lacks, or that is not a number, is outside. */
static int inside_valid(const cJSON *entry, const core_params *features, char *why, size_t size) {
    const cJSON *valid = cJSON_GetObjectItemCaseSensitive(entry, "valid");
    if (!valid) return -1;
    const cJSON *v;
    cJSON_ArrayForEach(v, valid) {
        double lo = cJSON_GetArrayItem(v, 0)->valuedouble, hi = cJSON_GetArrayItem(v, 1)->valuedouble, x;
        const char *have = core_params_get(features, v->string);
        if (!have || !parse_number(have, &x)) {
            snprintf(why, size, "not valid without a number for %s (valid %g..%g)", v->string, lo, hi);
            return 0;
        }
        if (x < lo || x > hi) {
            snprintf(why, size, "not valid for %s=%g (valid %g..%g)", v->string, x, lo, hi);
            return 0;
        }
    }
    return 1;
}

clpk_status core_profile_choose_within(clpk_context *ctx, const char *family, const core_params *features, double reach,
                                       core_params *params, core_profile_choice *choice, char *reason,
                                       size_t reason_size) {
    core_profile_choice local;
    char local_reason[8];
    if (!choice) choice = &local;
    if (!reason || !reason_size) reason = local_reason, reason_size = sizeof local_reason;
    memset(choice, 0, sizeof *choice);
    reason[0] = '\0';
    choice->level = CLPK_PROFILE_DEFAULTS;
    choice->distance = INFINITY;
    if (!ctx || !family || !features || !params)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "profile lookup: NULL argument");
    const cJSON *root = ctx->profile_json;
    if (!root) {
        snprintf(reason, reason_size, "no profile for this device");
        core_log(ctx, CLPK_LOG_DEBUG, "%s: %s: built-in defaults", family, reason);
        return CLPK_SUCCESS;
    }
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(root, "families"), family);
    /* One rule: an entry with a "valid" box is a candidate only inside it (the box is what it was measured on); an
     * entry without one only within the family's reach (0: any distance). The nearest candidate class wins. The
     * nearest refused entry says why none applied. */
    const cJSON *best = NULL, *entry;
    double refused_distance = INFINITY;
    char refused[320] = "";
    cJSON_ArrayForEach(entry, entries) {
        core_params klass;
        json_to_params(cJSON_GetObjectItemCaseSensitive(entry, "class"), &klass);
        double d = core_class_distance(&klass, features);
        if (!isfinite(d)) continue;
        char why[200] = "";
        int inside = inside_valid(entry, features, why, sizeof why);
        if (inside < 0 && reach > 0 && d > reach)
            snprintf(why, sizeof why, "at class distance %.3g > the family's reach %.3g", d, reach);
        if (inside == 0 || (inside < 0 && why[0])) {
            if (d < refused_distance) {
                char text[96];
                core_params_format(&klass, text, sizeof text);
                refused_distance = d;
                snprintf(refused, sizeof refused, "entry {%s} %s", text, why);
                core_log(ctx, CLPK_LOG_DEBUG, "%s: %s", family, refused);
            }
            continue;
        }
        if (d < choice->distance) {
            choice->distance = d;
            choice->klass = klass;
            best = entry;
        }
    }
    if (!best) {
        snprintf(reason, reason_size, "%s", refused[0] ? refused : "no profile entry of this family fits");
        core_log(ctx, CLPK_LOG_DEBUG, "%s: %s: built-in defaults", family, reason);
        return CLPK_SUCCESS;
    }
    char text[512];
    core_params_format(&choice->klass, text, sizeof text);
    /* An entry tuned against another revision of the family's built-in defaults beat defaults that are gone: the
     * current ones may be faster. Entries without the field (profiles older than it) cannot tell and apply. */
    const core_param_table *table = core_param_table_of(family);
    const cJSON *revision = cJSON_GetObjectItemCaseSensitive(best, "defaults_revision");
    if (table && cJSON_IsNumber(revision) && revision->valueint != table->defaults_revision) {
        snprintf(reason, reason_size,
                 "the nearest entry {%s} (distance %.3g) was tuned against revision %d of the built-in defaults, this "
                 "library has revision %d: re-tune",
                 text, choice->distance, revision->valueint, table->defaults_revision);
        core_log(ctx, core_profile_first_stale_report(ctx, family) ? CLPK_LOG_WARN : CLPK_LOG_DEBUG,
                 "%s: profile %s: %s: built-in defaults", family, ctx->profile_path, reason);
        return CLPK_SUCCESS;
    }
    /* An entry whose choice did not beat the defaults it was measured against (the tuner kept the defaults of its
     * time, often a search cut short by its budget) says nothing beyond them: the built-in defaults, which may have
     * improved since, stay. */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(best, "time_ms");
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(best, "default_time_ms");
    if (cJSON_IsNumber(t) && cJSON_IsNumber(td) && t->valuedouble >= td->valuedouble) {
        snprintf(reason, reason_size, "the nearest entry {%s} (distance %.3g) kept the defaults", text,
                 choice->distance);
        core_log(ctx, CLPK_LOG_DEBUG, "%s: profile %s: %s: built-in defaults", family, ctx->profile_path, reason);
        return CLPK_SUCCESS;
    }
    const char *why = cJSON_GetObjectItemCaseSensitive(best, "valid") ? ", inside its valid range"
                      : reach > 0                                     ? ", within the family's reach"
                                                                      : "";
    snprintf(reason, reason_size, "entry {%s} at class distance %.3g%s", text, choice->distance, why);
    core_params chosen;
    json_to_params(cJSON_GetObjectItemCaseSensitive(best, "params"), &chosen);
    core_params_merge(params, &chosen);
    choice->found = 1;
    choice->level = ctx->profile_level;
    snprintf(choice->path, sizeof choice->path, "%s", ctx->profile_path);
    core_params_format(&chosen, text, sizeof text);
    core_log(ctx, CLPK_LOG_DEBUG, "%s: profile %s (%s), %s: %s", family, ctx->profile_path,
             clpk_profile_level_string(ctx->profile_level), reason, text);
    return CLPK_SUCCESS;
}

clpk_status core_profile_choose(clpk_context *ctx, const char *family, const core_params *features, core_params *params,
                                core_profile_choice *choice) {
    return core_profile_choose_within(ctx, family, features, 0, params, choice, NULL, 0);
}

int core_profile_first_stale_report(clpk_context *ctx, const char *family) {
    char tag[24];
    snprintf(tag, sizeof tag, "%s,", family);
    if (strstr(ctx->profile_stale_reported, tag)) return 0;
    size_t used = strlen(ctx->profile_stale_reported);
    if (used + strlen(tag) < sizeof ctx->profile_stale_reported)
        memcpy(ctx->profile_stale_reported + used, tag, strlen(tag) + 1);
    return 1;
}
