/* Public views of the runtime's profile lookups, for programs (clpk-info among them) that report which tuning a device
 * or a problem would get. */
#include "clpk_internal.h"
#include "param_table.h"

#include <string.h>

clpk_profile_level clpk_profile_for_device(const clpk_device_info *dev, char *path, size_t path_size) {
    char local[1024];
    if (!dev) {
        if (path && path_size) path[0] = '\0';
        return CLPK_PROFILE_DEFAULTS;
    }
    clpk_profile_level level = core_profile_for_device(dev, local, sizeof local);
    if (path && path_size) snprintf(path, path_size, "%s", local);
    return level;
}

clpk_status clpk_profile_find(clpk_context *ctx, const char *family, const char *features, clpk_profile_entry *entry) {
    if (!ctx || !family || !entry)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_profile_find: NULL argument");
    memset(entry, 0, sizeof *entry);
    entry->level = CLPK_PROFILE_DEFAULTS;
    const core_param_table *table = core_param_table_of(family);
    if (!table)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "clpk_profile_find: unknown family '%s'", family);
    core_params wanted;
    core_params_clear(&wanted);
    clpk_error err = {0};
    if (core_params_parse(&wanted, features, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    /* the same resolve step plans take (reach, stale entries), without a family's model or finer defaults */
    const core_resolve_request request = {table, &wanted, NULL, NULL, NULL};
    core_resolved r;
    CLPK_TRY(core_resolve(ctx, &request, &r));
    entry->found = r.choice.found;
    entry->level = r.choice.level;
    entry->distance = r.choice.distance;
    core_resolved_describe(&r, entry->resolved, sizeof entry->resolved);
    snprintf(entry->reason, sizeof entry->reason, "%s", r.reason);
    if (r.choice.found) {
        snprintf(entry->path, sizeof entry->path, "%s", r.choice.path);
        core_params_format(&r.choice.klass, entry->klass, sizeof entry->klass);
        core_params from_profile;
        core_params_clear(&from_profile);
        for (int i = 0; i < r.params.count; ++i)
            if (r.source[i] == CORE_SOURCE_PROFILE)
                core_params_set(&from_profile, r.params.items[i].key, r.params.items[i].value);
        core_params_format(&from_profile, entry->params, sizeof entry->params);
    }
    return CLPK_SUCCESS;
}
