/* The life family's parameters, described once (see param_table.h). Defaults finer than a device kind (GPU f64
 * unrolls by 8 and walks voxels in Morton order; theta_parts from the dictionary's size) are life_default_params's and
 * life_default_theta_parts's (life_plan.c). Which parameters a strategy reads is not a one-clause condition (unroll:
 * dsc=voxel or wc=fiber), so every row applies always and the tuner's `valid` prunes points that only repeat another.
 */
#include "life_internal.h"

#include <stddef.h>

#define FIELD(name) ((int)offsetof(life_config, name))

static const core_param_def life_param_defs[] = {
    /* the NAME rows list their names in the order of life_dsc_kind, life_wc_kind, life_voxel_order,
     * life_fiber_order and life_dict_storage (the configuration holds the index) */
    {"dsc", CORE_PARAM_NAME, "atomics|voxel|pairs|staged|voxel4", 0, 0, "voxel", NULL, NULL, FIELD(dsc),
     "voxel|atomics|pairs|staged|voxel4", NULL,
     "DSC kernel (y = M w): a team per voxel run without atomics, a work-item per coefficient with atomics, "
     "each (voxel, atom) pair's weight summed first then voxel's teams with one D row per pair, voxel's teams "
     "with each chunk of team "
     "coefficients' offsets and phi*w loaded once into local memory, or voxel's teams with 4 directions a lane "
     "(one vector load)"},
    {"wc", CORE_PARAM_NAME, "atomics|atom|fiber|voxel|pairs|staged|fiber4", 0, 0, "fiber", NULL, NULL, FIELD(wc),
     "fiber|voxel|atom|atomics|pairs|staged|fiber4", NULL,
     "WC kernel (w = M^T y): a team per fibre (no atomics), per voxel run, per atom run, per coefficient, one "
     "dot product per (voxel, atom) pair (a team each, vector loads) then a team's sum per fibre, or fiber's teams "
     "with each chunk of wc_team "
     "coefficients' offsets and phi loaded once into local memory, or fiber's teams with 4 directions a lane (one "
     "vector load of D and of y)"},
    {"team", CORE_PARAM_INT, "pow2", 1, 256, "32", "16", "TEAM", FIELD(team), "8|16|32|64", NULL,
     "lanes per voxel run of dsc=voxel(4), dsc=pairs and dsc=staged (a warp on GPUs, SIMD slots of one core on CPUs)"},
    {"runs", CORE_PARAM_INT, NULL, 1, 1024, "4", NULL, NULL, FIELD(runs), "1|2|4|8", NULL,
     "voxel runs per work-group of dsc=voxel(4), dsc=pairs and dsc=staged (team*runs work-items)"},
    /* H100, DS1: f32 is fastest without unrolling (fibre WC 2.72 ms against 3.14 at 4); f64 takes 8 (D and y exceed
     * the L2, more row loads in flight pay: docs/perf-life.md, section 5) */
    {"unroll", CORE_PARAM_INT, NULL, 1, 16, "1", "4", "UNROLL", FIELD(unroll), "1|2|4|8", NULL,
     "coefficients (pairs) in flight per lane (dsc=voxel(4), wc=fiber(4); pairs; staged); GPU f64 default 8"},
    /* -DDSC_UNROLL only under dsc=pairs (its loop's pairs in flight) so that wc=pairs's rounds keep their unroll:
     * H200, DS1 f32, the loop 0.86 ms at 8 and 0.80 at 4 where the WC's dot wants 8 (docs/perf-life.md) */
    {"dsc_unroll", CORE_PARAM_INT, "0|1|2|4|8|16", 0, 16, "0", NULL, "DSC_UNROLL", FIELD(dsc_unroll), "0|4",
     "dsc=pairs",
     "pairs in flight per lane of dsc=pairs's loop; 0: unroll's value"},
    {"wc_team", CORE_PARAM_INT, "pow2", 1, 256, "32", "16", "WC_TEAM", FIELD(wc_team), "8|16|32|64", NULL,
     "lanes per fibre or atom run of wc=fiber(4), wc=staged and wc=atom, per pair and per fibre of wc=pairs"},
    {"wc_runs", CORE_PARAM_INT, NULL, 1, 1024, "8", "4", NULL, FIELD(wc_runs), "1|2|4|8", NULL,
     "fibre, atom or pair teams per work-group of wc=fiber(4), wc=staged, wc=atom and wc=pairs (wc_team*wc_runs "
     "work-items)"},
    /* -DWC_BLOCK only when > 0 (life_build_kernels): wc_block 0 shares the other kernels' program */
    {"wc_block", CORE_PARAM_INT, "0|8|16|32|64|128", 0, 128, "0", NULL, NULL, FIELD(wc_block), "0|32|64",
     "wc=pairs",
     "voxels a block of wc=pairs's dot products: 0 takes the pairs in voxel order; B stages B voxels' y rows in local "
     "memory and takes the block's pairs by atom (a D row read once for its block)"},
    /* the first value of the search: the tuner prunes unused wg to it */
    {"wg", CORE_PARAM_INT, NULL, 1, 1024, "64", NULL, NULL, FIELD(wg), "64|128|256", NULL,
     "work-group size of the atomics kernels and of wc=voxel"},
    /* Not searched: measured slower at every split on the H100 (life_default_theta_parts). */
    {"theta_parts", CORE_PARAM_INT, NULL, 1, LIFE_MAX_THETA_PARTS, "1", NULL, NULL, FIELD(theta_parts), NULL, NULL,
     "passes over parts of the directions (dsc=voxel(4), dsc=pairs, dsc=staged, wc=fiber, wc=staged), clamped to "
     "n_theta"},
    /* Processing orders (docs/perf-life.md, section 4): whether they pay shows only where the working sets exceed the
     * L2, which is why the tuner trains at 1/8 of DS1. */
    {"voxel_order", CORE_PARAM_NAME, "index|morton", 0, 0, "index", NULL, NULL, FIELD(voxel_order), "index|morton",
     NULL,
     "order of the voxel runs (dsc=voxel, wc=voxel, pairs): index, or along the Z-order curve; GPU f64 default morton"},
    {"fiber_order", CORE_PARAM_NAME, "index|voxel", 0, 0, "index", NULL, NULL, FIELD(fiber_order), "index|voxel", NULL,
     "order of the fibre runs (wc=fiber, wc=staged; wc=pairs's fibre sums): index, or by the position of each "
     "fibre's middle voxel"},
    /* Half the bytes of every D row the products read (docs/perf-life.md, "Half-precision dictionary"); the tuner keeps
     * a half point only if a fit's objective stays within 1e-5 of full storage's (tuner/tune_life.c). */
    {"dict", CORE_PARAM_NAME, "full|half", 0, 0, "full", NULL, NULL, FIELD(dict), "full|half", NULL,
     "storage of the dictionary D: the plan's precision, or half (2 bytes a value, read with vload_half, sums in "
     "float; f32 plans only)"},
};

const core_param_table life_param_table = {"life", life_param_defs, CORE_PARAM_COUNT(life_param_defs), 0, 4};
