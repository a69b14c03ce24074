/* Search-space building helpers shared by the family spaces. */
#include "tune.h"

#include "param_table.h"

#include <stdlib.h>
#include <string.h>

clpk_status tune_space_add(tune_space *space, const char *name, const char *const *values) {
    if (space->count >= CLPK_TUNE_MAX_PARAMS || strlen(name) >= sizeof space->params[0].name)
        return CLPK_ERROR_INVALID_ARGUMENT;
    tune_param *p = &space->params[space->count];
    memset(p, 0, sizeof *p);
    strcpy(p->name, name);
    for (const char *const *v = values; *v; ++v) {
        if (p->count >= CLPK_TUNE_MAX_VALUES || strlen(*v) >= sizeof p->values[0]) return CLPK_ERROR_INVALID_ARGUMENT;
        strcpy(p->values[p->count++], *v);
    }
    space->count++;
    return CLPK_SUCCESS;
}

clpk_status tune_space_when(tune_space *space, const char *name, const char *when_name,
                                 const char *when_values) {
    int at = -1, parent = -1;
    for (int i = 0; i < space->count; ++i) {
        if (strcmp(space->params[i].name, name) == 0) at = i;
        if (strcmp(space->params[i].name, when_name) == 0) parent = i;
    }
    /* the condition's parameter must come first: the listing fixes parameters in order */
    if (at < 0 || parent < 0 || parent >= at || strlen(when_name) >= sizeof space->params[at].when_name ||
        strlen(when_values) >= sizeof space->params[at].when_values)
        return CLPK_ERROR_INVALID_ARGUMENT;
    strcpy(space->params[at].when_name, when_name);
    strcpy(space->params[at].when_values, when_values);
    return CLPK_SUCCESS;
}

clpk_status tune_space_add_param(tune_space *space, const core_param_table *table, const char *name,
                                 const char *values) {
    const core_param_def *d = core_param_find(table, name);
    if (!d) return CLPK_ERROR_INVALID_ARGUMENT;
    const char *list[CLPK_TUNE_MAX_VALUES + 1];
    char storage[512];
    core_param_def searched = *d;
    if (values) searched.search = values;
    int n = core_param_search_values(&searched, list, storage, sizeof storage, CLPK_TUNE_MAX_VALUES);
    if (n == 0) return CLPK_ERROR_INVALID_ARGUMENT;
    list[n] = NULL;
    CLPK_TRY(tune_space_add(space, name, list));
    if (d->when) {
        /* the tuner's conditions have one clause: the table's first */
        char when[256];
        snprintf(when, sizeof when, "%s", d->when);
        when[strcspn(when, ";")] = '\0';
        char *eq = strchr(when, '=');
        if (eq) {
            *eq = '\0';
            CLPK_TRY(tune_space_when(space, name, when, eq + 1));
        }
    }
    return CLPK_SUCCESS;
}

/* One "key=v1|v2" item of a restriction: copies the key and the value list (without the '=') into the buffers. */
static clpk_status restrict_item(const char *item, size_t len, char *key, size_t key_size, char *values,
                                 size_t values_size, clpk_error *err) {
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : 0, vlen = eq ? len - klen - 1 : 0;
    if (!eq || klen == 0 || vlen == 0 || klen >= key_size || vlen >= values_size)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "bad space restriction '%.*s': expected key=value|value|... (e.g. wg=64|128)", (int)len,
                              item);
    memcpy(key, item, klen);
    key[klen] = '\0';
    memcpy(values, eq + 1, vlen);
    values[vlen] = '\0';
    return CLPK_SUCCESS;
}

/* Whether `value` is one of the '|'-separated values of `list`. */
static int listed(const char *list, const char *value) {
    size_t n = strlen(value);
    for (const char *at = list;; ++at) {
        size_t len = strcspn(at, "|");
        if (len == n && strncmp(at, value, n) == 0) return 1;
        at += len;
        if (!*at) return 0;
    }
}

void tune_space_conditions(const tune_space *space, int *cond, unsigned *applies) {
    for (int i = 0; i < space->count; ++i) {
        const tune_param *p = &space->params[i];
        cond[i] = -1;
        applies[i] = ~0u;
        for (int j = 0; p->when_name[0] && j < i; ++j) {
            if (strcmp(space->params[j].name, p->when_name) != 0) continue;
            cond[i] = j;
            applies[i] = 0;
            for (int v = 0; v < space->params[j].count; ++v)
                if (listed(p->when_values, space->params[j].values[v])) applies[i] |= 1u << v;
        }
    }
}

/* Whether each parameter matters at `digits`: its condition holds and its condition's parameter matters (conditions
 * name earlier parameters, so one pass in order). */
static void mattering(const tune_space *space, const int *cond, const unsigned *applies, const int *digits,
                      int *matters) {
    for (int i = 0; i < space->count; ++i)
        matters[i] = cond[i] < 0 || (matters[cond[i]] && (applies[i] >> digits[cond[i]] & 1u));
}

void tune_space_normalize(const tune_space *space, const int *cond, const unsigned *applies, int *digits) {
    int matters[CLPK_TUNE_MAX_PARAMS];
    mattering(space, cond, applies, digits, matters); /* a zeroed parameter did not matter: nor do its dependants */
    for (int i = 0; i < space->count; ++i)
        if (!matters[i]) digits[i] = 0;
}

void tune_space_digits_point(const tune_space *space, const int *digits, core_params *out) {
    core_params_clear(out);
    for (int i = 0; i < space->count; ++i)
        core_params_set(out, space->params[i].name, space->params[i].values[digits[i]]);
}

/* Mixed radix, the last parameter fastest (as tune_space_point reads an index). */
static unsigned long long index_of_digits(const tune_space *space, const int *digits) {
    unsigned long long index = 0;
    for (int i = 0; i < space->count; ++i) index = index * (unsigned long long)space->params[i].count + digits[i];
    return index;
}

/* Moves `digits` to the next combination: the last parameter that can still move moves, the later ones restart at
 * 0; a parameter that does not matter has the one value 0. Returns 0 after the last combination. */
static int next_combination(const tune_space *space, const int *cond, const unsigned *applies, int *digits) {
    int matters[CLPK_TUNE_MAX_PARAMS];
    mattering(space, cond, applies, digits, matters);
    for (int k = space->count - 1; k >= 0; --k) {
        if (matters[k] && digits[k] + 1 < space->params[k].count) {
            digits[k]++;
            return 1;
        }
        digits[k] = 0;
    }
    return 0;
}

unsigned long long tune_space_combinations(const tune_space *space, unsigned long long limit) {
    int cond[CLPK_TUNE_MAX_PARAMS], digits[CLPK_TUNE_MAX_PARAMS] = {0};
    unsigned applies[CLPK_TUNE_MAX_PARAMS];
    tune_space_conditions(space, cond, applies);
    unsigned long long n = 1;
    while (n <= limit && next_combination(space, cond, applies, digits)) ++n;
    return n;
}

int tune_space_list(const tune_space *space, unsigned long long limit,
                         int (*accept)(void *user, const core_params *point), void *user, unsigned long long **out,
                         size_t *count, unsigned long long *walked) {
    if (tune_space_combinations(space, limit) > limit) return 0;
    int cond[CLPK_TUNE_MAX_PARAMS], digits[CLPK_TUNE_MAX_PARAMS] = {0};
    unsigned applies[CLPK_TUNE_MAX_PARAMS];
    tune_space_conditions(space, cond, applies);
    size_t cap = 256, n = 0;
    unsigned long long *list = malloc(sizeof *list * cap), steps = 0;
    if (!list) return 0;
    do {
        ++steps;
        core_params point;
        tune_space_digits_point(space, digits, &point);
        int verdict = accept ? accept(user, &point) : 1;
        if (verdict < 0) {
            free(list);
            return 0;
        }
        if (verdict > 0) {
            if (n == cap) {
                unsigned long long *bigger = realloc(list, sizeof *list * cap * 2);
                if (!bigger) {
                    free(list);
                    return 0;
                }
                list = bigger;
                cap *= 2;
            }
            list[n++] = index_of_digits(space, digits);
        }
    } while (next_combination(space, cond, applies, digits));
    *out = list;
    *count = n;
    if (walked) *walked = steps;
    return 1;
}

clpk_status tune_space_restrict(tune_space *space, const char *spec, clpk_error *err) {
    if (!spec) return CLPK_SUCCESS;
    for (const char *at = spec; *at;) {
        size_t len = strcspn(at, ",");
        char key[64], values[512];
        CLPK_TRY(restrict_item(at, len, key, sizeof key, values, sizeof values, err));
        for (int p = 0; space && p < space->count; ++p) {
            tune_param *param = &space->params[p];
            if (strcmp(param->name, key) != 0) continue;
            int kept = 0;
            for (int v = 0; v < param->count; ++v) {
                if (!listed(values, param->values[v])) continue;
                if (kept != v) memcpy(param->values[kept], param->values[v], sizeof param->values[v]);
                ++kept;
            }
            if (kept == 0)
                return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                      "space restriction %s=%s keeps no value of the space's '%s'", key, values, key);
            param->count = kept;
        }
        at += len + (at[len] == ',');
    }
    return CLPK_SUCCESS;
}
