/* The resume cache of measured points: one JSON object per line, appended and flushed as each point is measured, and
 * read back (for the same device, driver and clpk version) when a run resumes. */
#include "tune_engine.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    int earlier; /* items[0 .. earlier) were read from the file: measured by earlier runs */
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

const char *tune_json_string(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void cache_load_line(tune_cache *c, const char *line) {
    cJSON *obj = cJSON_Parse(line);
    const char *dev = tune_json_string(obj, "device"), *drv = tune_json_string(obj, "driver"),
               *fam = tune_json_string(obj, "family");
    const char *klass = tune_json_string(obj, "class"), *phase = tune_json_string(obj, "phase"),
               *params = tune_json_string(obj, "params");
    const char *outcome_name = tune_json_string(obj, "outcome"), *version = tune_json_string(obj, "clpk");
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
    c->earlier = c->count;
    *out = c;
    return CLPK_SUCCESS;
}

void tune_cache_close(tune_cache *c) {
    if (!c) return;
    if (c->file) fclose(c->file);
    for (int i = 0; i < c->count; ++i)
        free(c->items[i].key);
    free(c->items);
    free(c);
}

static const cache_entry *lookup(const tune_cache *c, const char *family, const core_params *klass, const char *phase,
                                 const core_params *params) {
    if (!c) return NULL;
    char k[2048], p[2048];
    canonical(klass, k, sizeof k);
    canonical(params, p, sizeof p);
    char *key = make_key(family, k, phase, p);
    if (!key) return NULL;
    const cache_entry *e = cache_find(c, key, core_hash64(key, strlen(key), 0));
    free(key);
    return e;
}

int tune_cache_earlier(const tune_cache *c, const char *family, const core_params *klass, const char *phase,
                       const core_params *params) {
    const cache_entry *e = lookup(c, family, klass, phase, params);
    return e && e - c->items < c->earlier && e->outcome != OUTCOME_PENDING;
}

int tune_cache_family_earlier(const tune_cache *c, const char *family) {
    const size_t n = strlen(family);
    for (int i = 0; c && i < c->earlier; ++i)
        if (strncmp(c->items[i].key, family, n) == 0 && c->items[i].key[n] == '\x1f') return 1;
    return 0;
}

int tune_cache_lookup(const tune_cache *c, const char *family, const core_params *klass, const char *phase,
                      const core_params *params, tune_outcome *outcome, double *ms) {
    const cache_entry *e = lookup(c, family, klass, phase, params);
    if (!e) return 0;
    *outcome = e->outcome == OUTCOME_PENDING ? CLPK_TUNE_TIMEOUT : e->outcome;
    *ms = e->outcome == CLPK_TUNE_OK ? e->ms : INFINITY;
    return 1;
}

static void cache_record(tune_cache *c, const char *family, const core_params *klass, const char *phase,
                         const core_params *params, tune_outcome outcome, double ms, double wall_s, double build_s) {
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
                            const core_params *params, tune_outcome outcome, double ms, double wall_s, double build_s) {
    cache_record(c, family, klass, phase, params, outcome, ms, wall_s, build_s);
}

void tune_cache_mark_pending(tune_cache *c, const char *family, const core_params *klass, const char *phase,
                             const core_params *params) {
    cache_record(c, family, klass, phase, params, OUTCOME_PENDING, INFINITY, -1, -1);
}

int tune_cache_size(const tune_cache *c) { return c ? c->count : 0; }
int tune_cache_skipped(const tune_cache *c) { return c ? c->skipped : 0; }
