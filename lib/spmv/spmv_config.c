/* spmv configurations: resolved parameters (spmv_params.c) read into a spmv_config, with what follows from them. */
#include "spmv_internal.h"

#include <stdio.h>
#include <string.h>

int spmv_value_vec(const spmv_config *cfg, clpk_precision precision) {
    if (!cfg->vload) return cfg->block_w;
    int widest = 16 / (int)clpk_precision_size(precision), n = cfg->block_h * cfg->block_w;
    while (widest > cfg->block_w && n % widest != 0)
        widest /= 2;
    return widest > cfg->block_w ? widest : cfg->block_w;
}

int spmv_search_values(const char *name, const char **out, char *storage, size_t storage_size, int capacity) {
    const core_param_def *d = core_param_find(&spmv_param_table, name);
    return d ? core_param_search_values(d, out, storage, storage_size, capacity) : 0;
}

clpk_status spmv_resolve_explicit(clpk_device_kind kind, const char *format, const core_params *caller,
                                  core_resolved *out, clpk_error *err) {
    core_params given;
    core_params_clear(&given);
    if (caller) given = *caller;
    if (format && *format && strcmp(format, "auto") != 0) core_params_set(&given, "format", format);
    return core_resolve_explicit(&spmv_param_table, kind, &given, out, err);
}

/* block=HxW sets block_h and block_w, each unless a later source set it (the caller's block_h over a profile's
 * block; between the same source, block wins). */
static void apply_block(const core_resolved *r, spmv_config *cfg) {
    const char *block = core_params_get(&r->params, "block");
    int h = 0, w = 0;
    if (!block || sscanf(block, "%dx%d", &h, &w) != 2) return;
    core_param_source s = core_resolved_source(r, "block");
    if (s >= core_resolved_source(r, "block_h")) cfg->block_h = h;
    if (s >= core_resolved_source(r, "block_w")) cfg->block_w = w;
}

clpk_status spmv_config_read(const core_resolved *r, const clpk_csr *A, spmv_config *cfg, clpk_error *err) {
    memset(cfg, 0, sizeof *cfg);
    /* what a format does not read keeps a harmless value */
    cfg->block_h = cfg->block_w = cfg->tile = cfg->strategy = cfg->cache = cfg->slices = cfg->csr_vec = 1;
    cfg->prefetch = 1;
    CLPK_TRY(core_param_read(&spmv_param_table, &r->params, cfg, err));
    if (cfg->format == SPMV_CSR) {
        if (cfg->csr_vec > cfg->wg)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: csr_vec=%d exceeds wg=%d", cfg->csr_vec,
                                  cfg->wg);
        return CLPK_SUCCESS;
    }
    apply_block(r, cfg);
    /* a chunk longer than the tile is the whole tile: one program, not two */
    while (cfg->prefetch > 1 && cfg->prefetch / 2 >= cfg->tile)
        cfg->prefetch /= 2;
    /* one column and an odd number of rows: no vector divides the block, the plan is the scalar one (the GPU
     * default vload=1 then builds the very program vload=0 does) */
    if (cfg->vload && cfg->block_w == 1 && cfg->block_h % 2 == 1) cfg->vload = 0;
    cfg->sync_adjacent = cfg->sync == SPMV_SYNC_AUTO ? -1 : cfg->sync == SPMV_SYNC_ADJACENT;
    int64_t block_cols = A ? ((int64_t)A->cols + cfg->block_w - 1) / cfg->block_w : 0;
    if (cfg->col == SPMV_COL_AUTO) cfg->col = block_cols < 65535 ? SPMV_COL_SHORT : SPMV_COL_INT;
    cfg->col_delta = cfg->col == SPMV_COL_DELTA;
    cfg->col_bits = cfg->col == SPMV_COL_INT ? 32 : 16;
    if (cfg->col == SPMV_COL_SHORT && block_cols > 65535)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "spmv: col=short needs at most 65535 block columns (this matrix has %lld)",
                              (long long)block_cols);
    return CLPK_SUCCESS;
}
