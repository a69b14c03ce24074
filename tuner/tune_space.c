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
