/* What the tuner writes: profiles (docs/profiles.md; read back by lib/core/profile.c), their merging, and the resume
 * cache of measured points (one JSON object per line, appended and flushed as each point is measured). */
#include "tune_run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- Canonical text of a parameter list (sorted keys), for keys and comparisons --------------------------------- */

static int compare_items(const void *a, const void *b) {
    return strcmp(((const core_param *)a)->key, ((const core_param *)b)->key);
}

static void canonical(const core_params *p, char *buf, size_t size) {
    core_params sorted = *p;
    qsort(sorted.items, (size_t)sorted.count, sizeof sorted.items[0], compare_items);
    core_params_format(&sorted, buf, size);
}

/* ---- Resume cache ---------------------------------------------------------------------------------------------- */

/* A point whose evaluation started but never reported: the run died in it (a hang the user killed, a driver
 * crash). On resume it counts as a timeout, so the point that took the run down is not tried again. */
#define OUTCOME_PENDING ((tune_outcome)CLPK_TUNE_OUTCOMES)

typedef struct cache_entry {
    uint64_t hash;
    char *key;
    tune_outcome outcome;
    double ms;
} cache_entry;

struct tune_cache {
    FILE *file;
    char device[128], driver[128];
    cache_entry *items;
    int count, capacity, skipped;
};

static char *make_key(const char *family, const char *klass, const char *phase, const char *params) {
    size_t size = strlen(family) + strlen(klass) + strlen(phase) + strlen(params) + 4;
    char *key = malloc(size);
    if (key) snprintf(key, size, "%s\x1f%s\x1f%s\x1f%s", family, klass, phase, params);
    return key;
}

static cache_entry *cache_find(const tune_cache *c, const char *key, uint64_t hash) {
    for (int i = 0; i < c->count; ++i)
        if (c->items[i].hash == hash && strcmp(c->items[i].key, key) == 0) return &c->items[i];
    return NULL;
}

/* Takes ownership of key. */
static void cache_put(tune_cache *c, char *key, tune_outcome outcome, double ms) {
    uint64_t hash = core_hash64(key, strlen(key), 0);
    cache_entry *e = cache_find(c, key, hash);
    if (e) {
        free(key);
        e->outcome = outcome;
        e->ms = ms;
        return;
    }
    if (c->count == c->capacity) {
        int cap = c->capacity ? 2 * c->capacity : 256;
        cache_entry *bigger = realloc(c->items, sizeof *bigger * (size_t)cap);
        if (!bigger) {
            free(key);
            return;
        }
        c->items = bigger;
        c->capacity = cap;
    }
    c->items[c->count++] = (cache_entry){hash, key, outcome, ms};
}

static int outcome_from_name(const char *name, tune_outcome *out) {
    if (strcmp(name, "pending") == 0) {
        *out = OUTCOME_PENDING;
        return 1;
    }
    for (int o = 0; o < CLPK_TUNE_OUTCOMES; ++o) {
        if (strcmp(name, tune_outcome_name((tune_outcome)o)) == 0) {
            *out = (tune_outcome)o;
            return 1;
        }
    }
    return 0;
}

static const char *str_of(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void cache_load_line(tune_cache *c, const char *line) {
    cJSON *obj = cJSON_Parse(line);
    const char *dev = str_of(obj, "device"), *drv = str_of(obj, "driver"), *fam = str_of(obj, "family");
    const char *klass = str_of(obj, "class"), *phase = str_of(obj, "phase"), *params = str_of(obj, "params");
    const char *outcome_name = str_of(obj, "outcome"), *version = str_of(obj, "clpk");
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(obj, "ms");
    tune_outcome outcome;
    if (!dev || !drv || !fam || !klass || !phase || !params || !outcome_name ||
        !outcome_from_name(outcome_name, &outcome) || (outcome == CLPK_TUNE_OK && !cJSON_IsNumber(ms))) {
        c->skipped++;
    } else if (strcmp(dev, c->device) == 0 && strcmp(drv, c->driver) == 0 && version &&
               strcmp(version, CLPK_VERSION_STRING) == 0) {
        /* Points of another device, driver or clpk version (other kernels) are not reused. */
        char *key = make_key(fam, klass, phase, params);
        if (key) cache_put(c, key, outcome, outcome == CLPK_TUNE_OK ? ms->valuedouble : INFINITY);
    }
    cJSON_Delete(obj);
}

clpk_status tune_cache_open(const char *path, const clpk_device_info *dev, int resume, tune_cache **out,
                                 clpk_error *err) {
    *out = NULL;
    tune_cache *c = calloc(1, sizeof *c);
    if (!c) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "out of memory");
    snprintf(c->device, sizeof c->device, "%s", dev->name);
    snprintf(c->driver, sizeof c->driver, "%s", dev->driver_version);
    int ends_in_newline = 1;
    if (resume) {
        FILE *in = fopen(path, "r");
        if (in) {
            char *line = NULL;
            size_t cap = 0;
            ssize_t len;
            while ((len = getline(&line, &cap, in)) > 0) {
                ends_in_newline = line[len - 1] == '\n';
                cache_load_line(c, line);
            }
            free(line);
            fclose(in);
        }
    }
    c->file = fopen(path, resume ? "a" : "w");
    if (!c->file) {
        tune_cache_close(c);
        return core_error_set(err, CLPK_ERROR_IO, "tune cache %s: cannot open for writing", path);
    }
    /* A run killed mid-line left a partial line: start ours on a fresh one. */
    if (!ends_in_newline) fputc('\n', c->file);
    *out = c;
    return CLPK_SUCCESS;
}

void tune_cache_close(tune_cache *c) {
    if (!c) return;
    if (c->file) fclose(c->file);
    for (int i = 0; i < c->count; ++i) free(c->items[i].key);
    free(c->items);
    free(c);
}

int tune_cache_lookup(const tune_cache *c, const char *family, const core_params *klass,
                           const char *phase, const core_params *params, tune_outcome *outcome, double *ms) {
    if (!c) return 0;
    char k[2048], p[2048];
    canonical(klass, k, sizeof k);
    canonical(params, p, sizeof p);
    char *key = make_key(family, k, phase, p);
    if (!key) return 0;
    const cache_entry *e = cache_find(c, key, core_hash64(key, strlen(key), 0));
    free(key);
    if (!e) return 0;
    *outcome = e->outcome == OUTCOME_PENDING ? CLPK_TUNE_TIMEOUT : e->outcome;
    *ms = e->outcome == CLPK_TUNE_OK ? e->ms : INFINITY;
    return 1;
}

static void cache_record(tune_cache *c, const char *family, const core_params *klass, const char *phase,
                         const core_params *params, tune_outcome outcome, double ms, double wall_s,
                         double build_s) {
    if (!c) return;
    char k[2048], p[2048];
    canonical(klass, k, sizeof k);
    canonical(params, p, sizeof p);
    char *key = make_key(family, k, phase, p);
    if (key) cache_put(c, key, outcome, ms);
    cJSON *obj = cJSON_CreateObject();
    if (!obj) return;
    cJSON_AddStringToObject(obj, "device", c->device);
    cJSON_AddStringToObject(obj, "driver", c->driver);
    cJSON_AddStringToObject(obj, "clpk", CLPK_VERSION_STRING);
    cJSON_AddStringToObject(obj, "family", family);
    cJSON_AddStringToObject(obj, "class", k);
    cJSON_AddStringToObject(obj, "phase", phase);
    cJSON_AddStringToObject(obj, "params", p);
    cJSON_AddStringToObject(obj, "outcome", outcome == OUTCOME_PENDING ? "pending" : tune_outcome_name(outcome));
    if (outcome == CLPK_TUNE_OK) cJSON_AddNumberToObject(obj, "ms", ms);
    if (wall_s >= 0) cJSON_AddNumberToObject(obj, "wall_s", wall_s);
    if (build_s >= 0) cJSON_AddNumberToObject(obj, "build_s", build_s);
    char *text = cJSON_PrintUnformatted(obj);
    if (text) {
        fprintf(c->file, "%s\n", text);
        fflush(c->file);
    }
    free(text);
    cJSON_Delete(obj);
}

void tune_cache_store(tune_cache *c, const char *family, const core_params *klass, const char *phase,
                           const core_params *params, tune_outcome outcome, double ms) {
    cache_record(c, family, klass, phase, params, outcome, ms, -1, -1);
}

void tune_cache_store_timed(tune_cache *c, const char *family, const core_params *klass, const char *phase,
                                 const core_params *params, tune_outcome outcome, double ms, double wall_s,
                                 double build_s) {
    cache_record(c, family, klass, phase, params, outcome, ms, wall_s, build_s);
}

void tune_cache_mark_pending(tune_cache *c, const char *family, const core_params *klass, const char *phase,
                                  const core_params *params) {
    cache_record(c, family, klass, phase, params, OUTCOME_PENDING, INFINITY, -1, -1);
}

int tune_cache_size(const tune_cache *c) { return c ? c->count : 0; }
int tune_cache_skipped(const tune_cache *c) { return c ? c->skipped : 0; }

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
    cJSON_AddStringToObject(e, "strategy", tune_strategy_name(r->strategy));
    cJSON_AddNumberToObject(e, "evaluated", r->evaluated);
    cJSON_AddBoolToObject(e, "complete", r->complete);
    cJSON_AddStringToObject(e, "label", r->label);
    cJSON *rejected = cJSON_CreateObject();
    for (int o = 1; rejected && o < CLPK_TUNE_OUTCOMES; ++o)
        if (r->outcomes[o])
            cJSON_AddNumberToObject(rejected, tune_outcome_name((tune_outcome)o), r->outcomes[o]);
    cJSON_AddItemToObject(e, "rejected", rejected);
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

clpk_status tune_profile_text(const clpk_device_info *dev, const tune_report *report, char **text,
                                   clpk_error *err) {
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
    if (!root || !cJSON_IsNumber(schema) || schema->valuedouble != 1 || !str_of(dev, "name") ||
        !str_of(dev, "vendor") || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "families"))) {
        cJSON_Delete(root);
        core_error_set(err, CLPK_ERROR_PROFILE, "%s is not a clpk profile (schema 1 with device and families)", path);
        return NULL;
    }
    return root;
}

static int same_text(const char *a, const char *b) { return (!a && !b) || (a && b && strcmp(a, b) == 0); }

clpk_status tune_profile_merge(const char *const *paths, int count, const char *out, int force,
                                    clpk_error *err) {
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
    }
    for (int i = 1; i < count && st == CLPK_SUCCESS; ++i) {
        cJSON *root = load_json(paths[i], err);
        if (!root) {
            st = err ? err->status : CLPK_ERROR_PROFILE;
            break;
        }
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
        if (!force && !(same_text(str_of(dev, "name"), str_of(dev0, "name")) &&
                        same_text(str_of(dev, "vendor"), str_of(dev0, "vendor")) &&
                        same_text(str_of(dev, "driver"), str_of(dev0, "driver")))) {
            st = core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                "%s is for device '%s' driver '%s', %s for '%s' driver '%s' (--force merges anyway)",
                                paths[i], str_of(dev, "name"), str_of(dev, "driver") ? str_of(dev, "driver") : "?",
                                paths[0], str_of(dev0, "name"), str_of(dev0, "driver") ? str_of(dev0, "driver") : "?");
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
                add_entry(target, cJSON_Duplicate(e, 1));
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
