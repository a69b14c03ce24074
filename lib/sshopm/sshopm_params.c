/* The sshopm family's parameters, described once (see param_table.h). `kernel` and `entries` may be auto: the plan
 * then decides from (m, n), the device's local memory, unroll_max and private_max (sshopm_plan.c); a profile entry
 * holds the four tuned values. */
#include "sshopm_internal.h"

#include <stddef.h>

#define FIELD(name) ((int)offsetof(sshopm_config, name))

static const core_param_def sshopm_param_defs[] = {
    {"kernel", CORE_PARAM_NAME, "generated|general|auto", 0, 0, "auto", NULL, NULL, FIELD(kernel), "generated|general",
     NULL, "which gradient: straight-line code per (m, n), or the general loop over index tables"},
    /* the order of the names is the kernels' SSHOPM_ENTRIES (cl/sshopm_common.cl); auto is resolved before a build */
    {"entries", CORE_PARAM_NAME, "local|global|private|auto", 0, 0, "auto", NULL, "SSHOPM_ENTRIES", FIELD(entries),
     "private|local|global", NULL,
     "where the tensor entries live: local memory, global memory, or registers (generated kernel only)"},
    /* the device's limit is checked at plan creation (a profile's value beyond it falls back to the default) */
    {"wg", CORE_PARAM_INT, NULL, 1, 1 << 20, "128", NULL, NULL, FIELD(wg), "32|64|128|256|512", NULL,
     "work-group size"},
    {"check_every", CORE_PARAM_INT, NULL, 1, 64, "4", NULL, "SSHOPM_CHECK_EVERY", FIELD(check_every), "1|2|4|8|16",
     NULL, "iterations per convergence check (the inner loop is fixed-length)"},
    {"unroll_max", CORE_PARAM_INT, NULL, 0, 1 << 30, "1536", NULL, NULL, FIELD(unroll_max), NULL, NULL,
     "kernel=auto: largest gradient (FMAs, n*C(m+n-2, m-1)) generated rather than looped (never above 8192)"},
    {"private_max", CORE_PARAM_INT, NULL, 0, 1 << 30, "128", NULL, NULL, FIELD(private_max), NULL, NULL,
     "entries=auto: largest number of pre-multiplied entries kept in registers"},
};

/* revision 2: the block test holds at any iteration of the block and the tuner times runs to convergence (entries
 * of revision 1 were chosen on fixed iterations, where check_every 16 won and loses in real runs); revision 3: order 4
 * with private entries is a quadratic form, 1.1-1.2x faster than the kernel earlier entries were weighed against */
const core_param_table sshopm_param_table = {"sshopm", sshopm_param_defs, CORE_PARAM_COUNT(sshopm_param_defs), 0, 3};

void sshopm_config_defaults(clpk_device_kind kind, sshopm_config *c) {
    core_params p;
    core_param_defaults(&sshopm_param_table, kind, &p);
    *c = (sshopm_config){0};
    core_param_read(&sshopm_param_table, &p, c, NULL); /* the table's own defaults pass its checks */
}
