/* LiFE strategy "timed": choose the DSC and WC kernels at run time by timing them on the caller's dataset (the
 * seed's runtime choice between voxel and atom order by timing three runs), when no tuning profile is trusted. */
#include "life_internal.h"

#include <string.h>

/* Mean wall time in ms of `runs` calls of one product after one warm-up (clFinish around each batch). */
static clpk_status life_time_product(clpk_life_plan *plan, int dsc, cl_mem w, cl_mem y, int runs, double *ms) {
    cl_command_queue q = clpk_context_queue(plan->ctx);
    double t0 = 0;
    for (int i = 0; i <= runs; ++i) {
        if (i == 1) {
            CLPK_CL_TRY(plan->ctx, clFinish(q));
            t0 = core_wall_seconds();
        }
        CLPK_TRY(dsc ? clpk_life_dsc(plan, w, y, 0, NULL, NULL) : clpk_life_wc(plan, y, w, 0, NULL, NULL));
    }
    CLPK_CL_TRY(plan->ctx, clFinish(q));
    *ms = 1e3 * (core_wall_seconds() - t0) / runs;
    return CLPK_SUCCESS;
}

clpk_status life_plan_create_timed(clpk_context *ctx, const clpk_life_dataset *data, clpk_precision precision,
                                   const char *params, clpk_life_plan **plan_out) {
    /* Each pair measures its DSC and its WC; together they cover every kernel of both products. */
    static const char *const pairs[][2] = {
        {"voxel", "fiber"}, {"atomics", "voxel"}, {"voxel", "atom"}, {"atomics", "atomics"}};
    const size_t vs = clpk_precision_size(precision);
    const size_t ny = (size_t)data->n_voxels * data->n_theta, nw = (size_t)data->n_fibers;
    cl_int rc;
    cl_mem w = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, nw * vs, NULL, &rc);
    if (rc != CL_SUCCESS) return core_fail_cl(ctx, rc, "clCreateBuffer (LiFE timing)");
    cl_mem y = clCreateBuffer(clpk_context_cl_context(ctx), CL_MEM_READ_WRITE, ny * vs, NULL, &rc);
    if (rc != CL_SUCCESS) {
        clReleaseMemObject(w);
        return core_fail_cl(ctx, rc, "clCreateBuffer (LiFE timing)");
    }
    const double half = 0.5;
    const float half_f = 0.5f;
    const void *pattern = vs == 4 ? (const void *)&half_f : (const void *)&half;
    clpk_status st = core_fill(ctx, w, pattern, vs, 0, nw * vs, 0, 0, NULL, NULL, "LiFE timing weights");
    if (st == CLPK_SUCCESS) st = core_fill(ctx, y, pattern, vs, 0, ny * vs, 0, 0, NULL, NULL, "LiFE timing signal");
    const int filled = st == CLPK_SUCCESS;
    const char *best_dsc = NULL, *best_wc = NULL;
    double best_dsc_ms = 0, best_wc_ms = 0;
    for (size_t i = 0; filled && i < sizeof pairs / sizeof pairs[0]; ++i) {
        char text[640];
        snprintf(text, sizeof text, "%s%sdsc=%s,wc=%s", params ? params : "", params && *params ? "," : "", pairs[i][0],
                 pairs[i][1]);
        clpk_life_plan *p = NULL;
        st = clpk_life_plan_create(ctx, data, precision, "auto", text, &p);
        if (st == CLPK_ERROR_UNSUPPORTED) continue; /* e.g. f64 atomics without 64-bit atomics */
        if (st != CLPK_SUCCESS) break;
        double dsc_ms = 0, wc_ms = 0;
        st = life_time_product(p, 1, w, y, 3, &dsc_ms);
        if (st == CLPK_SUCCESS) st = life_time_product(p, 0, w, y, 3, &wc_ms);
        clpk_life_plan_destroy(p);
        if (st != CLPK_SUCCESS) break;
        core_log(ctx, CLPK_LOG_INFO, "LiFE timed: dsc=%s %.3f ms, wc=%s %.3f ms", pairs[i][0], dsc_ms, pairs[i][1],
                 wc_ms);
        if (!best_dsc || dsc_ms < best_dsc_ms) best_dsc = pairs[i][0], best_dsc_ms = dsc_ms;
        if (!best_wc || wc_ms < best_wc_ms) best_wc = pairs[i][1], best_wc_ms = wc_ms;
    }
    clReleaseMemObject(w);
    clReleaseMemObject(y);
    if (st != CLPK_SUCCESS && st != CLPK_ERROR_UNSUPPORTED) return st;
    if (!best_dsc) return core_fail(ctx, CLPK_ERROR_UNSUPPORTED, "LiFE timed: no strategy runs on this device");
    char text[640];
    snprintf(text, sizeof text, "%s%sdsc=%s,wc=%s", params ? params : "", params && *params ? "," : "", best_dsc,
             best_wc);
    CLPK_TRY(clpk_life_plan_create(ctx, data, precision, "auto", text, plan_out));
    snprintf((*plan_out)->origin, sizeof(*plan_out)->origin, "strategy timed: dsc %.3f ms, wc %.3f ms", best_dsc_ms,
             best_wc_ms);
    return CLPK_SUCCESS;
}
