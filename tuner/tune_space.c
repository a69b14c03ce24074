/* Search-space building helpers shared by the family spaces. */
#include "tune.h"

#include <string.h>

clpk_status clpk_tune_space_add(clpk_tune_space *space, const char *name, const char *const *values) {
    if (space->count >= CLPK_TUNE_MAX_PARAMS || strlen(name) >= sizeof space->params[0].name)
        return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_tune_param *p = &space->params[space->count];
    memset(p, 0, sizeof *p);
    strcpy(p->name, name);
    for (const char *const *v = values; *v; ++v) {
        if (p->count >= CLPK_TUNE_MAX_VALUES || strlen(*v) >= sizeof p->values[0]) return CLPK_ERROR_INVALID_ARGUMENT;
        strcpy(p->values[p->count++], *v);
    }
    space->count++;
    return CLPK_SUCCESS;
}

/* One "key=v1|v2" item of a restriction: copies the key and the value list (without the '=') into the buffers. */
static clpk_status restrict_item(const char *item, size_t len, char *key, size_t key_size, char *values,
                                 size_t values_size, clpk_error *err) {
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : 0, vlen = eq ? len - klen - 1 : 0;
    if (!eq || klen == 0 || vlen == 0 || klen >= key_size || vlen >= values_size)
        return clpk_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
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

clpk_status clpk_tune_space_restrict(clpk_tune_space *space, const char *spec, clpk_error *err) {
    if (!spec) return CLPK_SUCCESS;
    for (const char *at = spec; *at;) {
        size_t len = strcspn(at, ",");
        char key[64], values[512];
        CLPK_TRY(restrict_item(at, len, key, sizeof key, values, sizeof values, err));
        for (int p = 0; space && p < space->count; ++p) {
            clpk_tune_param *param = &space->params[p];
            if (strcmp(param->name, key) != 0) continue;
            int kept = 0;
            for (int v = 0; v < param->count; ++v) {
                if (!listed(values, param->values[v])) continue;
                if (kept != v) memcpy(param->values[kept], param->values[v], sizeof param->values[v]);
                ++kept;
            }
            if (kept == 0)
                return clpk_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                      "space restriction %s=%s keeps no value of the space's '%s'", key, values, key);
            param->count = kept;
        }
        at += len + (at[len] == ',');
    }
    return CLPK_SUCCESS;
}
