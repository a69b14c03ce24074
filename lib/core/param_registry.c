/* The families' parameter tables by name, for clpk_family_parameters and the CLIs' --help. */
#include "param_table.h"

#include <string.h>

extern const core_param_table spmv_param_table, life_param_table, sshopm_param_table, xcorr_param_table;

const core_param_table *core_param_table_of(const char *family) {
    const core_param_table *const tables[] = {&spmv_param_table, &life_param_table, &sshopm_param_table,
                                              &xcorr_param_table};
    for (size_t i = 0; family && i < sizeof tables / sizeof tables[0]; ++i)
        if (strcmp(tables[i]->family, family) == 0) return tables[i];
    return NULL;
}

clpk_status clpk_family_parameters(const char *family, char *buf, size_t size, clpk_error *err) {
    const core_param_table *t = core_param_table_of(family);
    if (!t)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "clpk_family_parameters: unknown family '%s' (spmv, life, sshopm, xcorr)",
                              family ? family : "(null)");
    if (!buf || size == 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_family_parameters: no buffer");
    core_param_describe(t, buf, size);
    return CLPK_SUCCESS;
}
