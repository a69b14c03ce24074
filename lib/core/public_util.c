/* Public views of the runtime's profile lookups, for programs (clpk-info among them) that report which tuning a device
 * or a problem would get. */
#include "clpk_internal.h"

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
    core_params wanted, params;
    core_params_clear(&wanted);
    core_params_clear(&params);
    clpk_error err = {0};
    if (core_params_parse(&wanted, features, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    core_profile_choice choice;
    clpk_status st = core_profile_choose(ctx, family, &wanted, &params, &choice);
    if (st != CLPK_SUCCESS) return st;
    entry->found = choice.found;
    entry->level = choice.level;
    entry->distance = choice.distance;
    snprintf(entry->path, sizeof entry->path, "%s", choice.path);
    if (choice.found) {
        core_params_format(&choice.klass, entry->klass, sizeof entry->klass);
        core_params_format(&params, entry->params, sizeof entry->params);
    }
    return CLPK_SUCCESS;
}
