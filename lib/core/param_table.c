/* Parameter tables (see param_table.h): checking, defaults, typed configurations, build options, descriptions. */
#include "param_table.h"

#include <stdlib.h>
#include <string.h>

const core_param_def *core_param_find(const core_param_table *t, const char *name) {
    for (int i = 0; i < t->count; ++i)
        if (strcmp(t->defs[i].name, name) == 0) return &t->defs[i];
    return NULL;
}

/* Index of `value` in the '|'-separated `list`, or -1. */
static int list_index(const char *list, const char *value) {
    size_t n = strlen(value);
    int index = 0;
    for (const char *at = list; at; ++index) {
        const char *bar = strchr(at, '|');
        size_t len = bar ? (size_t)(bar - at) : strlen(at);
        if (len == n && strncmp(at, value, n) == 0) return index;
        at = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* The name at `index` of a '|'-separated list, copied into buf ("" if out of range). */
static const char *list_item(const char *list, int index, char *buf, size_t size) {
    const char *at = list;
    for (int i = 0; at && i < index; ++i) {
        at = strchr(at, '|');
        if (at) ++at;
    }
    size_t len = at ? strcspn(at, "|") : 0;
    if (len >= size) len = size - 1;
    if (at) memcpy(buf, at, len);
    buf[len] = '\0';
    return buf;
}

int core_param_active(const core_param_def *d, const core_params *p) {
    if (!d->when) return 1;
    const char *at = d->when;
    while (*at) {
        size_t len = strcspn(at, ";");
        char clause[128];
        if (len >= sizeof clause) return 0;
        memcpy(clause, at, len);
        clause[len] = '\0';
        char *eq = strchr(clause, '=');
        if (eq) {
            *eq = '\0';
            const char *value = core_params_get(p, clause);
            if (!value || list_index(eq + 1, value) < 0) return 0;
        }
        at += len + (at[len] == ';');
    }
    return 1;
}

clpk_status core_param_check_keys(const core_param_table *t, const core_params *p, clpk_error *err) {
    for (int i = 0; i < p->count; ++i) {
        if (core_param_find(t, p->items[i].key)) continue;
        char list[512] = "";
        size_t at = 0;
        for (int k = 0; k < t->count && at < sizeof list; ++k)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "", t->defs[k].name);
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: unknown parameter '%s' (known: %s)", t->family,
                              p->items[i].key, list);
    }
    return CLPK_SUCCESS;
}

static int is_pow2_list(const char *values) { return values && strcmp(values, "pow2") == 0; }

clpk_status core_param_check_value(const core_param_table *t, const core_param_def *d, const char *value,
                                   clpk_error *err) {
    if (!value || !*value)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: parameter %s has no value", t->family, d->name);
    if (d->type == CORE_PARAM_NAME) {
        if (list_index(d->values, value) >= 0) return CLPK_SUCCESS;
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: %s=%s is not one of %s", t->family, d->name,
                              value, d->values);
    }
    char *end = NULL;
    long long v = strtoll(value, &end, 10);
    if (*end || v < d->lo || v > d->hi)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: %s=%s is not an integer in [%lld, %lld]",
                              t->family, d->name, value, d->lo, d->hi);
    if (is_pow2_list(d->values) && (v & (v - 1)) != 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: %s=%s is not a power of two", t->family, d->name,
                              value);
    if (d->values && !is_pow2_list(d->values) && list_index(d->values, value) < 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s: %s=%s is not one of %s", t->family, d->name,
                              value, d->values);
    return CLPK_SUCCESS;
}

void core_param_defaults(const core_param_table *t, clpk_device_kind kind, core_params *out) {
    core_params_clear(out);
    for (int i = 0; i < t->count; ++i) {
        const core_param_def *d = &t->defs[i];
        const char *v = kind != CLPK_DEVICE_GPU && d->default_cpu ? d->default_cpu : d->default_gpu;
        if (v) core_params_set(out, d->name, v);
    }
}

clpk_status core_param_read(const core_param_table *t, const core_params *p, void *config, clpk_error *err) {
    for (int i = 0; i < t->count; ++i) {
        const core_param_def *d = &t->defs[i];
        if (!core_param_active(d, p)) continue;
        const char *value = core_params_get(p, d->name);
        CLPK_TRY(core_param_check_value(t, d, value, err));
        if (d->field == CORE_PARAM_NO_FIELD) continue;
        int *field = (int *)((char *)config + d->field);
        *field = d->type == CORE_PARAM_NAME ? list_index(d->values, value) : (int)strtoll(value, NULL, 10);
    }
    return CLPK_SUCCESS;
}

/* The text of a row's value in a configuration. */
static const char *field_text(const core_param_def *d, const void *config, char *buf, size_t size) {
    int v = *(const int *)((const char *)config + d->field);
    if (d->type == CORE_PARAM_NAME) return list_item(d->values, v, buf, size);
    snprintf(buf, size, "%d", v);
    return buf;
}

void core_param_to_params(const core_param_table *t, const void *config, core_params *out) {
    core_params_clear(out);
    char text[64];
    /* two passes: conditions may name parameters that come later in the table */
    for (int i = 0; i < t->count; ++i)
        if (t->defs[i].field != CORE_PARAM_NO_FIELD)
            core_params_set(out, t->defs[i].name, field_text(&t->defs[i], config, text, sizeof text));
    core_params active;
    core_params_clear(&active);
    for (int i = 0; i < t->count; ++i) {
        const core_param_def *d = &t->defs[i];
        if (d->field != CORE_PARAM_NO_FIELD && core_param_active(d, out))
            core_params_set(&active, d->name, core_params_get(out, d->name));
    }
    *out = active;
}

void core_param_format(const core_param_table *t, const void *config, char *buf, size_t size) {
    core_params p;
    core_param_to_params(t, config, &p);
    core_params_format(&p, buf, size);
}

void core_param_defines(const core_param_table *t, const void *config, char *buf, size_t size) {
    core_params p;
    core_param_to_params(t, config, &p);
    size_t at = strlen(buf);
    for (int i = 0; i < t->count && at < size; ++i) {
        const core_param_def *d = &t->defs[i];
        if (!d->define || d->field == CORE_PARAM_NO_FIELD || !core_params_get(&p, d->name)) continue;
        int v = *(const int *)((const char *)config + d->field);
        at += (size_t)snprintf(buf + at, size - at, " -D%s=%d", d->define, v);
    }
}

int core_param_search_values(const core_param_def *d, const char **out, char *storage, size_t storage_size,
                             int capacity) {
    if (!d->search) return 0;
    size_t len = strlen(d->search);
    if (len >= storage_size) return 0;
    memcpy(storage, d->search, len + 1);
    int n = 0;
    for (char *at = storage; at && n < capacity;) {
        out[n++] = at;
        at = strchr(at, '|');
        if (at) *at++ = '\0';
    }
    return n;
}

void core_param_describe(const core_param_table *t, char *buf, size_t size) {
    size_t at = 0;
    if (size) buf[0] = '\0';
    for (int i = 0; i < t->count && at < size; ++i) {
        const core_param_def *d = &t->defs[i];
        char range[128];
        if (d->type == CORE_PARAM_NAME || (d->values && !is_pow2_list(d->values)))
            snprintf(range, sizeof range, "%s", d->values);
        else
            snprintf(range, sizeof range, "%lld..%lld%s", d->lo, d->hi, is_pow2_list(d->values) ? " (power of 2)" : "");
        char defaults[96];
        if (d->default_cpu && d->default_gpu && strcmp(d->default_cpu, d->default_gpu) != 0)
            snprintf(defaults, sizeof defaults, "GPU %s, CPU %s", d->default_gpu, d->default_cpu);
        else
            snprintf(defaults, sizeof defaults, "%s", d->default_gpu ? d->default_gpu : "none");
        at += (size_t)snprintf(buf + at, size - at, "  %-14s %s; default %s%s%s%s%s%s\n", d->name, range, defaults,
                               d->search ? "; tuned over " : "", d->search ? d->search : "", d->when ? "; when " : "",
                               d->when ? d->when : "", "");
        if (at < size && d->help) at += (size_t)snprintf(buf + at, size - at, "  %-14s   %s\n", "", d->help);
    }
}
