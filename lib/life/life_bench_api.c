/* Public checking and benchmarking queries of LiFE plans: the double host reference of the products, what a plan
 * runs, and the host cost of its processing order. Thin wrappers over the plan and lib/life/life_sort.c. */
#include "clpk.h"
#include "life_internal.h"

#include <stdlib.h>
#include <string.h>

clpk_status clpk_life_dsc_reference(const clpk_life_dataset *data, const double *w, double *y) {
    if (!data || !w || !y) return CLPK_ERROR_INVALID_ARGUMENT;
    life_ref_dsc(data, w, y);
    return CLPK_SUCCESS;
}

clpk_status clpk_life_wc_reference(const clpk_life_dataset *data, const double *y, double *w) {
    if (!data || !y || !w) return CLPK_ERROR_INVALID_ARGUMENT;
    life_ref_wc(data, y, w);
    return CLPK_SUCCESS;
}

clpk_status clpk_life_plan_get_info(const clpk_life_plan *plan, clpk_life_plan_info *info) {
    if (!plan || !info) return CLPK_ERROR_INVALID_ARGUMENT;
    info->precision = plan->precision;
    info->dsc_kernel = life_dsc_name(plan->dsc_kind);
    info->wc_kernel = life_wc_name(plan->wc_kind);
    info->voxel_order = plan->voxel_order == LIFE_VOXEL_ORDER_MORTON ? "morton" : "index";
    info->fiber_order = plan->fiber_order == LIFE_FIBER_ORDER_VOXEL ? "voxel" : "index";
    info->dictionary = plan->config.dict == LIFE_DICT_HALF ? "half" : "full";
    return CLPK_SUCCESS;
}

clpk_status clpk_life_plan_order_cost(const clpk_life_plan *plan, const clpk_life_dataset *data, double *rank_ms,
                                      double *sort_ms) {
    if (!plan || !data || !rank_ms || !sort_ms) return CLPK_ERROR_INVALID_ARGUMENT;
    clpk_error err;
    char why[160];
    int32_t *voxel_rank = NULL, *fiber_rank = NULL;
    /* the fibre order places fibres by the voxel positions of the requested voxel order, as the plan does */
    const char *requested = core_params_get(&plan->params, "voxel_order");
    const int morton_positions =
        plan->voxel_order == LIFE_VOXEL_ORDER_MORTON ||
        (plan->fiber_order == LIFE_FIBER_ORDER_VOXEL && requested && strcmp(requested, "morton") == 0);
    double t0 = core_wall_seconds();
    if (morton_positions) life_voxel_rank_morton(data, &voxel_rank, why, sizeof why, &err);
    if (plan->fiber_order == LIFE_FIBER_ORDER_VOXEL) life_fiber_rank_by_voxel(data, voxel_rank, &fiber_rank, &err);
    *rank_ms = 1e3 * (core_wall_seconds() - t0);
    free(voxel_rank);
    free(fiber_rank);
    life_sorted sorted;
    t0 = core_wall_seconds();
    if (life_sort_build(data, LIFE_ORDER_VOXEL, (data->n_theta + 31) / 32 * 32, NULL, &sorted, &err) == CLPK_SUCCESS)
        life_sorted_free(&sorted);
    *sort_ms = 1e3 * (core_wall_seconds() - t0);
    return CLPK_SUCCESS;
}
