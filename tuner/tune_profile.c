/* What the tuner writes: profiles (docs/profiles.md; read back by lib/core/profile.c) and their merging. */
#include "tune_engine.h"
#include "param_table.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- Profiles -------------------------------------------------------------------------------------------------- */

/* A value as JSON: a number when the text is exactly how the reader prints that number back (so a round trip
 * keeps the string), a [lo, hi] pair for a class range "lo..hi", else a string. */
static int exact_number(const char *text, double *x) {
    char *end;
    *x = strtod(text, &end);
    if (end == text || *end || !isfinite(*x)) return 0;
    char back[64];
    snprintf(back, sizeof back, "%.17g", *x);
    return strcmp(back, text) == 0;
}

/* Class values (allow_range) are only ever compared as numbers, so any finite decimal is written as a number there
 * (a feature printed as "8.55378334" is not its %.17g text, and a string would read oddly in the profile). */
static cJSON *value_json(const char *text, int allow_range) {
    double x, lo, hi;
    if (exact_number(text, &x)) return cJSON_CreateNumber(x);
    if (allow_range) {
        char *end;
        x = strtod(text, &end);
        if (end != text && !*end && isfinite(x)) return cJSON_CreateNumber(x);
    }
    const char *dots = allow_range ? strstr(text, "..") : NULL;
    if (dots) {
        char a[64];
        snprintf(a, sizeof a, "%.*s", (int)(dots - text), text);
        char *e1, *e2;
        lo = strtod(a, &e1);
        hi = strtod(dots + 2, &e2);
        if (e1 != a && !*e1 && e2 != dots + 2 && !*e2) {
            cJSON *pair = cJSON_CreateArray();
            cJSON_AddItemToArray(pair, cJSON_CreateNumber(lo));
            cJSON_AddItemToArray(pair, cJSON_CreateNumber(hi));
            return pair;
        }
    }
    return cJSON_CreateString(text);
}

static cJSON *params_json(const core_params *p, int allow_range) {
    cJSON *obj = cJSON_CreateObject();
    for (int i = 0; obj && i < p->count; ++i)
        cJSON_AddItemToObject(obj, p->items[i].key, value_json(p->items[i].value, allow_range));
    return obj;
}

static double number_of(const cJSON *obj, const char *key, double fallback) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

/* Adds `entry` to the family array, or replaces an entry of the same class when it is faster; takes ownership. */
static void add_entry(cJSON *array, cJSON *entry) {
    const cJSON *klass = cJSON_GetObjectItemCaseSensitive(entry, "class");
    int i = 0;
    cJSON *old;
    cJSON_ArrayForEach(old, array) {
        if (cJSON_Compare(cJSON_GetObjectItemCaseSensitive(old, "class"), klass, 1)) {
            if (number_of(entry, "time_ms", INFINITY) < number_of(old, "time_ms", INFINITY))
                cJSON_ReplaceItemInArray(array, i, entry);
            else
                cJSON_Delete(entry);
            return;
        }
        ++i;
    }
    cJSON_AddItemToArray(array, entry);
}

static cJSON *result_entry(const tune_result *r) {
    cJSON *e = cJSON_CreateObject();
    if (!e) return NULL;
    cJSON_AddItemToObject(e, "class", params_json(&r->klass, 1));
    cJSON_AddItemToObject(e, "params", params_json(&r->best, 0));
    cJSON_AddNumberToObject(e, "time_ms", r->best_ms);
    if (r->default_ok) cJSON_AddNumberToObject(e, "default_time_ms", r->default_ms);
    const core_param_table *table = core_param_table_of(r->family);
    if (table) cJSON_AddNumberToObject(e, "defaults_revision", table->defaults_revision);
    cJSON_AddStringToObject(e, "strategy", tune_strategy_name(r->strategy));
    cJSON_AddNumberToObject(e, "evaluated", r->evaluated);
    cJSON_AddBoolToObject(e, "complete", r->complete);
    cJSON_AddStringToObject(e, "label", r->label);
    cJSON *rejected = cJSON_CreateObject();
    for (int o = 1; rejected && o < CLPK_TUNE_OUTCOMES; ++o)
        if (r->outcomes[o]) cJSON_AddNumberToObject(rejected, tune_outcome_name((tune_outcome)o), r->outcomes[o]);
    cJSON_AddItemToObject(e, "rejected", rejected);
    if (r->cross_checked) {
        cJSON *checked = cJSON_CreateObject();
        cJSON_AddNumberToObject(checked, "problems", r->cross_checked);
        cJSON_AddNumberToObject(checked, "passed", r->cross_passed);
        cJSON_AddItemToObject(e, "checked_on", checked);
    }
    /* where the parameters were measured no slower than the defaults: the library applies them only there */
    if (r->valid_set) cJSON_AddItemToObject(e, "valid", params_json(&r->valid, 1));
    return e;
}

static cJSON *device_json(const clpk_device_info *dev) {
    cJSON *d = cJSON_CreateObject();
    if (!d) return NULL;
    cJSON_AddStringToObject(d, "name", dev->name);
    cJSON_AddStringToObject(d, "vendor", dev->vendor);
    cJSON_AddStringToObject(d, "driver", dev->driver_version);
    cJSON_AddStringToObject(d, "type", core_device_kind_string(dev->kind));
    cJSON_AddNumberToObject(d, "compute_units", dev->compute_units);
    cJSON_AddStringToObject(d, "platform", dev->platform_name);
    return d;
}

clpk_status tune_profile_text(const clpk_device_info *dev, const tune_report *report, char **text, clpk_error *err) {
    *text = NULL;
    cJSON *root = cJSON_CreateObject();
    cJSON *families = cJSON_CreateObject();
    if (!root || !families) {
        cJSON_Delete(root);
        cJSON_Delete(families);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "clpk_version", CLPK_VERSION_STRING);
    char stamp[32];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
    cJSON_AddStringToObject(root, "created", stamp);
    cJSON_AddItemToObject(root, "device", device_json(dev));
    cJSON_AddItemToObject(root, "families", families);
    for (int f = 0; f < report->family_count; ++f) {
        cJSON *array = cJSON_CreateArray();
        for (int i = 0; array && i < report->count; ++i) {
            const tune_result *r = &report->items[i];
            if (r->found && strcmp(r->family, report->families[f]) == 0) {
                cJSON *e = result_entry(r);
                if (e) add_entry(array, e);
            }
        }
        if (array) cJSON_AddItemToObject(families, report->families[f], array);
    }
    if (report->model_count) {
        cJSON *models = cJSON_AddObjectToObject(root, "models");
        for (int i = 0; models && i < report->model_count; ++i)
            cJSON_AddItemToObject(models, report->model_family[i], cJSON_Duplicate(report->models[i], 1));
    }
    *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!*text) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    return CLPK_SUCCESS;
}

/* Temporary file then rename, so a reader (or a crash) never sees half a profile. */
static clpk_status write_atomically(const char *path, const char *text, clpk_error *err) {
    size_t size = strlen(path) + 32;
    char *tmp = malloc(size);
    if (!tmp) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    snprintf(tmp, size, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f) ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0) ok = 0;
    if (!ok) remove(tmp);
    free(tmp);
    return ok ? CLPK_SUCCESS : core_error_set(err, CLPK_ERROR_IO, "cannot write profile %s", path);
}

clpk_status tune_profile_write(const char *path, const clpk_device_info *dev, const tune_report *report,
                               clpk_error *err) {
    char *text = NULL;
    CLPK_TRY(tune_profile_text(dev, report, &text, err));
    clpk_status st = write_atomically(path, text, err);
    free(text);
    return st;
}

static cJSON *load_json(const char *path, clpk_error *err) {
    char *text = NULL;
    if (core_read_file(path, &text, NULL, err) != CLPK_SUCCESS) return NULL;
    cJSON *root = cJSON_Parse(text);
    free(text);
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!root || !cJSON_IsNumber(schema) || schema->valuedouble != 1 || !tune_json_string(dev, "name") ||
        !tune_json_string(dev, "vendor") || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "families"))) {
        cJSON_Delete(root);
        core_error_set(err, CLPK_ERROR_PROFILE, "%s is not a clpk profile (schema 1 with device and families)", path);
        return NULL;
    }
    return root;
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

/* Whether `entry` was tuned against another revision of its family's built-in defaults: the library never applies
 * it (core_profile_choose), so a merge drops it rather than let it shadow nothing or outlive a re-tune. */
static int stale_entry(const char *family, const cJSON *entry) {
    const core_param_table *table = core_param_table_of(family);
    const cJSON *revision = cJSON_GetObjectItemCaseSensitive(entry, "defaults_revision");
    return table && cJSON_IsNumber(revision) && revision->valueint != table->defaults_revision;
}

static void drop_stale_entries(cJSON *family) {
    for (int i = cJSON_GetArraySize(family) - 1; i >= 0; --i)
        if (stale_entry(family->string, cJSON_GetArrayItem(family, i))) cJSON_DeleteItemFromArray(family, i);
}

clpk_status tune_profile_merge(const char *const *paths, int count, const char *out, int force, clpk_error *err) {
    if (count <= 0 || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "merge: no input or output");
    cJSON *merged = load_json(paths[0], err);
    if (!merged) return err ? err->status : CLPK_ERROR_PROFILE;
    const cJSON *dev0 = cJSON_GetObjectItemCaseSensitive(merged, "device");
    cJSON *fams0 = cJSON_GetObjectItemCaseSensitive(merged, "families");
    clpk_status st = CLPK_SUCCESS;
    cJSON *fam;
    cJSON_ArrayForEach(fam, fams0) {
        if (!cJSON_IsArray(fam)) {
            st = core_error_set(err, CLPK_ERROR_PROFILE, "%s: family \"%s\" is not an array", paths[0], fam->string);
            break;
        }
        drop_stale_entries(fam);
    }
    for (int i = 1; i < count && st == CLPK_SUCCESS; ++i) {
        cJSON *root = load_json(paths[i], err);
        if (!root) {
            st = err ? err->status : CLPK_ERROR_PROFILE;
            break;
        }
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
        if (!force && !(same_text(tune_json_string(dev, "name"), tune_json_string(dev0, "name")) &&
                        same_text(tune_json_string(dev, "vendor"), tune_json_string(dev0, "vendor")) &&
                        same_text(tune_json_string(dev, "driver"), tune_json_string(dev0, "driver")))) {
            st = core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                "%s is for device '%s' driver '%s', %s for '%s' driver '%s' (--force merges anyway)",
                                paths[i], tune_json_string(dev, "name"),
                                tune_json_string(dev, "driver") ? tune_json_string(dev, "driver") : "?", paths[0],
                                tune_json_string(dev0, "name"),
                                tune_json_string(dev0, "driver") ? tune_json_string(dev0, "driver") : "?");
        }
        const cJSON *m;
        cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(root, "models")) {
            cJSON *models = cJSON_GetObjectItemCaseSensitive(merged, "models");
            if (!models) models = cJSON_AddObjectToObject(merged, "models");
            cJSON_DeleteItemFromObjectCaseSensitive(models, m->string);
            cJSON_AddItemToObject(models, m->string, cJSON_Duplicate(m, 1));
        }
        cJSON *f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(root, "families")) {
            if (st != CLPK_SUCCESS) break;
            if (!cJSON_IsArray(f)) {
                st = core_error_set(err, CLPK_ERROR_PROFILE, "%s: family \"%s\" is not an array", paths[i], f->string);
                break;
            }
            cJSON *target = cJSON_GetObjectItemCaseSensitive(fams0, f->string);
            if (!target) target = cJSON_AddArrayToObject(fams0, f->string);
            const cJSON *e;
            cJSON_ArrayForEach(e, f) {
                if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(e, "class"))) {
                    st = core_error_set(err, CLPK_ERROR_PROFILE, "%s: an entry of \"%s\" has no class", paths[i],
                                        f->string);
                    break;
                }
                if (!stale_entry(f->string, e)) add_entry(target, cJSON_Duplicate(e, 1));
            }
        }
        cJSON_Delete(root);
    }
    if (st == CLPK_SUCCESS) {
        char *text = cJSON_Print(merged);
        st = text ? write_atomically(out, text, err) : core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
        free(text);
    }
    cJSON_Delete(merged);
    return st;
}
