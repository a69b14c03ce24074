/* The xcorr family's parameters, described once (see param_table.h). */
#include "param_table.h"

static const core_param_def xcorr_param_defs[] = {
    {"placeholder", CORE_PARAM_INT, NULL, 0, 0, "0", NULL, NULL, CORE_PARAM_NO_FIELD, NULL, NULL, "to be filled"},
};

const core_param_table xcorr_param_table = {"xcorr", xcorr_param_defs, CORE_PARAM_COUNT(xcorr_param_defs), 0};
