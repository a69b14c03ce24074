/* spmv parameters: built-in defaults, parsing and checking of "k=v" lists into a resolved configuration. */
#include "spmv_internal.h"

#include <stdlib.h>
#include <string.h>

/* 12 sits between 8 and 16 because dense f64 3x4 blocks on the H100 run fastest at tiles 10-12 (docs/perf-spmv.md,
 * session 7): the work per work-item there balances the ~1 wave of groups against the per-group tail. */
const char *const spmv_tile_values[] = {"8", "12", "16", "24", "32", "40", "64", "96", "128", NULL};

const char *const spmv_param_keys[] = {"format", "block_h", "block_w", "flag_bits", "col",       "tile",
                                       "wg",     "strategy", "cache",  "sync",      "skip_scan", "transpose",
                                       "slices", "csr_vec",  "block", "vload", "interleave", "prefetch", NULL};

static int is_pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

int spmv_value_vec(const spmv_config *cfg, clpk_precision precision) {
    if (!cfg->vload) return cfg->block_w;
    int widest = 16 / (int)clpk_precision_size(precision), n = cfg->block_h * cfg->block_w;
    while (widest > cfg->block_w && n % widest != 0) widest /= 2;
    return widest > cfg->block_w ? widest : cfg->block_w;
}

static clpk_status get_int(const core_params *p, const char *key, long long lo, long long hi, int *out,
                           clpk_error *err) {
    const char *text = core_params_get(p, key);
    if (!text) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: parameter %s missing", key);
    char *end = NULL;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || v < lo || v > hi)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: %s=%s is not an integer in [%lld, %lld]", key,
                              text, lo, hi);
    *out = (int)v;
    return CLPK_SUCCESS;
}

static clpk_status get_choice(const core_params *p, const char *key, const char *const *names, int *out,
                              clpk_error *err) {
    const char *text = core_params_get(p, key);
    if (!text) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: parameter %s missing", key);
    for (int i = 0; names[i]; ++i)
        if (strcmp(text, names[i]) == 0) {
            *out = i;
            return CLPK_SUCCESS;
        }
    char list[256] = "";
    for (int i = 0; names[i]; ++i) {
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: %s=%s is not one of %s", key, text, list);
}

clpk_status spmv_config_parse(const char *format, const core_params *p, const clpk_csr *A, spmv_config *cfg,
                              clpk_error *err) {
    memset(cfg, 0, sizeof *cfg);
    static const char *const formats[] = {"csr", "bccoo", "bccoo+", NULL};
    int f = 0;
    if (format && *format && strcmp(format, "auto") != 0) {
        core_params tmp = *p;
        core_params_set(&tmp, "format", format);
        CLPK_TRY(get_choice(&tmp, "format", formats, &f, err));
    } else {
        CLPK_TRY(get_choice(p, "format", formats, &f, err));
    }
    cfg->format = (spmv_format)(f + 1);
    const char *block = core_params_get(p, "block"); /* "HxW", the tuner's joint shape parameter */
    if (block) {
        char extra = 0;
        if (sscanf(block, "%dx%d%c", &cfg->block_h, &cfg->block_w, &extra) != 2 || cfg->block_h < 1 ||
            cfg->block_h > 4 || cfg->block_w < 1 || cfg->block_w > 4)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: block=%s is not HxW with H in 1..4, W in 1|2|4",
                                  block);
    } else {
        CLPK_TRY(get_int(p, "block_h", 1, 4, &cfg->block_h, err));
        CLPK_TRY(get_int(p, "block_w", 1, 4, &cfg->block_w, err));
    }
    if (cfg->block_w == 3) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: block_w must be 1, 2 or 4");
    CLPK_TRY(get_int(p, "flag_bits", 8, 32, &cfg->flag_bits, err));
    if (cfg->flag_bits != 8 && cfg->flag_bits != 16 && cfg->flag_bits != 32)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: flag_bits must be 8, 16 or 32");
    static const char *const colnames[] = {"auto", "short", "int", "delta", NULL};
    int col = 0;
    CLPK_TRY(get_choice(p, "col", colnames, &col, err));
    CLPK_TRY(get_int(p, "tile", 1, 256, &cfg->tile, err));
    CLPK_TRY(get_int(p, "wg", 1, 1024, &cfg->wg, err));
    if (!is_pow2(cfg->wg)) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: wg must be a power of two");
    CLPK_TRY(get_int(p, "strategy", 1, 2, &cfg->strategy, err));
    CLPK_TRY(get_int(p, "cache", 1, 4, &cfg->cache, err));
    static const char *const syncnames[] = {"auto", "adjacent", "fallback", NULL};
    int sync = 0;
    CLPK_TRY(get_choice(p, "sync", syncnames, &sync, err));
    cfg->sync_adjacent = sync == 0 ? -1 : sync == 1;
    CLPK_TRY(get_int(p, "skip_scan", 0, 1, &cfg->skip_scan, err));
    static const char *const trnames[] = {"offline", "online", NULL};
    CLPK_TRY(get_choice(p, "transpose", trnames, &cfg->online, err));
    CLPK_TRY(get_int(p, "slices", 1, 64, &cfg->slices, err));
    CLPK_TRY(get_int(p, "csr_vec", 1, 32, &cfg->csr_vec, err));
    if (core_params_get(p, "vload")) /* optional: profiles written before it existed lack it */
        CLPK_TRY(get_int(p, "vload", 0, 1, &cfg->vload, err));
    if (core_params_get(p, "interleave")) /* optional, as vload */
        CLPK_TRY(get_int(p, "interleave", 0, 1, &cfg->interleave, err));
    cfg->prefetch = 1;
    if (core_params_get(p, "prefetch")) { /* optional, as vload */
        CLPK_TRY(get_int(p, "prefetch", 1, 16, &cfg->prefetch, err));
        if (!is_pow2(cfg->prefetch))
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: prefetch must be 1, 2, 4, 8 or 16");
    }
    /* a chunk longer than the tile is the whole tile: one program, not two */
    while (cfg->prefetch > 1 && cfg->prefetch / 2 >= cfg->tile) cfg->prefetch /= 2;
    /* one column and an odd number of rows: no vector divides the block, the plan is the scalar one (the GPU
     * default vload=1 then builds the very program vload=0 does) */
    if (cfg->vload && cfg->block_w == 1 && cfg->block_h % 2 == 1) cfg->vload = 0;
    if (!is_pow2(cfg->csr_vec))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: csr_vec must be 1, 2, 4, 8, 16 or 32");
    if (cfg->format == SPMV_CSR && cfg->csr_vec > cfg->wg)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv: csr_vec=%d exceeds wg=%d", cfg->csr_vec,
                              cfg->wg);
    if (cfg->format == SPMV_BCCOO) cfg->slices = 1;
    int64_t block_cols = A ? ((int64_t)A->cols + cfg->block_w - 1) / cfg->block_w : 0;
    cfg->col_delta = col == 3;
    cfg->col_bits = col == 1 || col == 3 ? 16 : col == 2 ? 32 : (block_cols < 65535 ? 16 : 32);
    if (cfg->col_bits == 16 && !cfg->col_delta && block_cols > 65535)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "spmv: col=short needs at most 65535 block columns (this matrix has %lld)",
                              (long long)block_cols);
    return CLPK_SUCCESS;
}

void spmv_config_format(const spmv_config *c, char *buf, size_t size) {
    if (c->format == SPMV_CSR) {
        snprintf(buf, size, "format=csr,wg=%d,csr_vec=%d", c->wg, c->csr_vec);
        return;
    }
    snprintf(buf, size,
             "format=%s,block_h=%d,block_w=%d,flag_bits=%d,col=%s,tile=%d,wg=%d,strategy=%d,cache=%d,sync=%s,"
             "skip_scan=%d,transpose=%s,slices=%d,vload=%d,interleave=%d,prefetch=%d",
             c->format == SPMV_BCCOO ? "bccoo" : "bccoo+", c->block_h, c->block_w, c->flag_bits,
             c->col_delta ? "delta" : c->col_bits == 16 ? "short" : "int", c->tile, c->wg, c->strategy, c->cache,
             c->sync_adjacent < 0 ? "auto" : c->sync_adjacent ? "adjacent" : "fallback", c->skip_scan,
             c->online ? "online" : "offline", c->slices, c->vload, c->interleave, c->prefetch);
}
