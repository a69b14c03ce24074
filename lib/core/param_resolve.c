/* The one resolve step of every family: defaults -> profile entry (or the family's model) -> caller. */
#include "param_table.h"

#include <string.h>

const char *core_param_source_name(core_param_source s) {
    switch (s) {
    case CORE_SOURCE_PROFILE: return "profile";
    case CORE_SOURCE_MODEL: return "model";
    case CORE_SOURCE_CALLER: return "caller";
    default: return "default";
    }
}

static void set_from(core_resolved *r, const core_params *src, core_param_source source) {
    for (int i = 0; i < src->count; ++i) {
        core_params_set(&r->params, src->items[i].key, src->items[i].value);
        for (int k = 0; k < r->params.count; ++k)
            if (strcmp(r->params.items[k].key, src->items[i].key) == 0) r->source[k] = (unsigned char)source;
    }
}

/* Every key of `p` is a parameter of the table and every value is allowed by its row. */
static clpk_status check_all(const core_param_table *t, const core_params *p, clpk_error *err) {
    CLPK_TRY(core_param_check_keys(t, p, err));
    for (int i = 0; i < p->count; ++i)
        CLPK_TRY(core_param_check_value(t, core_param_find(t, p->items[i].key), p->items[i].value, err));
    return CLPK_SUCCESS;
}

clpk_status core_resolve_explicit(const core_param_table *t, clpk_device_kind kind, const core_params *caller,
                                  core_resolved *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    if (caller) CLPK_TRY(check_all(t, caller, err));
    core_params defaults;
    core_param_defaults(t, kind, &defaults);
    set_from(out, &defaults, CORE_SOURCE_DEFAULT);
    if (caller) set_from(out, caller, CORE_SOURCE_CALLER);
    return CLPK_SUCCESS;
}

clpk_status core_resolve(clpk_context *ctx, const core_resolve_request *req, core_resolved *out) {
    const core_param_table *t = req->table;
    memset(out, 0, sizeof *out);
    clpk_error err = {0};
    core_params caller;
    core_params_clear(&caller);
    if (req->caller && core_params_parse(&caller, req->caller, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    if (check_all(t, &caller, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);

    core_params defaults;
    core_param_defaults(t, clpk_context_device_info(ctx)->kind, &defaults);
    set_from(out, &defaults, CORE_SOURCE_DEFAULT);

    if (req->features) {
        core_params entry;
        core_params_clear(&entry);
        CLPK_TRY(core_profile_choose_within(ctx, t->family, req->features, t->profile_reach, &entry, &out->choice,
                                            out->reason, sizeof out->reason));
        int applies = out->choice.found;
        if (applies && check_all(t, &entry, &err) != CLPK_SUCCESS) {
            core_log(ctx, core_profile_first_stale_report(ctx, t->family) ? CLPK_LOG_WARN : CLPK_LOG_DEBUG,
                     "%s: profile %s: entry ignored (%s)", t->family, out->choice.path, err.message);
            snprintf(out->reason, sizeof out->reason, "the applying entry is stale (%.200s)", err.message);
            applies = 0;
        }
        if (applies) {
            set_from(out, &entry, CORE_SOURCE_PROFILE);
        } else {
            out->choice.found = 0;
            core_params model = out->params;
            if (req->model && req->model(ctx, req->features, &model, req->model_user)) {
                core_params changed;
                core_params_clear(&changed);
                for (int i = 0; i < model.count; ++i) {
                    const char *before = core_params_get(&out->params, model.items[i].key);
                    if (!before || strcmp(before, model.items[i].value) != 0)
                        core_params_set(&changed, model.items[i].key, model.items[i].value);
                }
                set_from(out, &changed, CORE_SOURCE_MODEL);
            }
        }
    }
    set_from(out, &caller, CORE_SOURCE_CALLER);
    char text[1024];
    core_resolved_describe(out, text, sizeof text);
    core_log(ctx, CLPK_LOG_DEBUG, "%s parameters: %s%s%s", t->family, text, out->reason[0] ? "; profile: " : "",
             out->reason);
    return CLPK_SUCCESS;
}

core_param_source core_resolved_source(const core_resolved *r, const char *name) {
    for (int i = 0; i < r->params.count; ++i)
        if (strcmp(r->params.items[i].key, name) == 0) return (core_param_source)r->source[i];
    return CORE_SOURCE_DEFAULT;
}

void core_resolved_describe(const core_resolved *r, char *buf, size_t size) {
    size_t at = 0;
    if (size) buf[0] = '\0';
    for (int i = 0; i < r->params.count && at < size; ++i)
        at += (size_t)snprintf(buf + at, size - at, "%s%s=%s (%s)", i ? ", " : "", r->params.items[i].key,
                               r->params.items[i].value, core_param_source_name((core_param_source)r->source[i]));
}
