/* Parameter lists: small ordered key=value maps used for tuning parameters, problem features and CLI options. */
#include "clpk_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void core_params_clear(core_params *p) { p->count = 0; }

static core_param *find(core_params *p, const char *key) {
    for (int i = 0; i < p->count; ++i)
        if (strcmp(p->items[i].key, key) == 0) return &p->items[i];
    return NULL;
}

clpk_status core_params_set(core_params *p, const char *key, const char *value) {
    if (strlen(key) >= sizeof p->items[0].key || strlen(value) >= sizeof p->items[0].value)
        return CLPK_ERROR_INVALID_ARGUMENT;
    core_param *item = find(p, key);
    if (!item) {
        if (p->count == CLPK_PARAMS_MAX) return CLPK_ERROR_INVALID_ARGUMENT;
        item = &p->items[p->count++];
        strcpy(item->key, key);
    }
    strcpy(item->value, value);
    return CLPK_SUCCESS;
}

clpk_status core_params_set_int(core_params *p, const char *key, long long value) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", value);
    return core_params_set(p, key, buf);
}

clpk_status core_params_set_num(core_params *p, const char *key, double value) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.9g", value);
    return core_params_set(p, key, buf);
}

const char *core_params_get(const core_params *p, const char *key) {
    for (int i = 0; i < p->count; ++i)
        if (strcmp(p->items[i].key, key) == 0) return p->items[i].value;
    return NULL;
}

long long core_params_get_int(const core_params *p, const char *key, long long fallback) {
    const char *v = core_params_get(p, key);
    if (!v) return fallback;
    char *end;
    long long x = strtoll(v, &end, 0);
    return (end == v || *end) ? fallback : x;
}

double core_params_get_num(const core_params *p, const char *key, double fallback) {
    const char *v = core_params_get(p, key);
    if (!v) return fallback;
    char *end;
    double x = strtod(v, &end);
    return (end == v || *end) ? fallback : x;
}

static void trim(char *s) {
    size_t n = strlen(s), i = 0;
    while (n > 0 && isspace((unsigned char)s[n - 1])) s[--n] = '\0';
    while (isspace((unsigned char)s[i])) ++i;
    memmove(s, s + i, n - i + 1);
}

clpk_status core_params_parse(core_params *p, const char *text, clpk_error *err) {
    if (!text) return CLPK_SUCCESS;
    const char *at = text;
    while (*at) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        char item[128];
        if (len >= sizeof item)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "parameter item too long in '%s'", text);
        memcpy(item, at, len);
        item[len] = '\0';
        trim(item);
        if (item[0]) {
            char *eq = strchr(item, '=');
            if (!eq)
                return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "parameter '%s' is not of the form key=value",
                                      item);
            *eq = '\0';
            char *key = item, *value = eq + 1;
            trim(key);
            trim(value);
            if (!key[0] || !value[0] || core_params_set(p, key, value) != CLPK_SUCCESS)
                return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "parameter '%s=%s' is empty or too long", key,
                                      value);
        }
        at += len + (comma ? 1 : 0);
    }
    return CLPK_SUCCESS;
}

clpk_status core_params_merge(core_params *dst, const core_params *src) {
    for (int i = 0; i < src->count; ++i) CLPK_TRY(core_params_set(dst, src->items[i].key, src->items[i].value));
    return CLPK_SUCCESS;
}

void core_params_format(const core_params *p, char *buf, size_t size) {
    size_t at = 0;
    if (size) buf[0] = '\0';
    for (int i = 0; i < p->count && at < size; ++i)
        at += (size_t)snprintf(buf + at, size - at, "%s%s=%s", i ? "," : "", p->items[i].key, p->items[i].value);
}

clpk_status core_params_check_keys(const core_params *p, const char *const *allowed, clpk_error *err) {
    for (int i = 0; i < p->count; ++i) {
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; ++a) ok = strcmp(*a, p->items[i].key) == 0;
        if (!ok) {
            char list[512] = "";
            size_t at = 0;
            for (const char *const *a = allowed; *a && at < sizeof list; ++a)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", a == allowed ? "" : ", ", *a);
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "unknown parameter '%s' (known: %s)",
                                  p->items[i].key, list);
        }
    }
    return CLPK_SUCCESS;
}
