/* The SpMV cost model (see spmv_model.h): terms, prediction, fit and the profile's form. */
#include "spmv_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const spmv_model_term_names[SPMV_MODEL_TERMS] = {"const",  "matrix_MB", "x_lines_MB",
                                                             "rows_M", "row_max_k", "long_rows_MB"};

/* CSR with a row per work-item, per 8 and per 32 work-items, and in row blocks (adaptive); BCCOO of every block shape
 * with the column coding that fits (16 or 32 bits) and with 16-bit deltas. */
static const char *const variants[] = {
    "format=csr,csr_vec=1",   "format=csr,csr_vec=8",
    "format=csr,csr_vec=32",  "format=csr,csr_kernel=adaptive",
    "format=bccoo,block=1x1", "format=bccoo,block=1x1,col=delta",
    "format=bccoo,block=1x2", "format=bccoo,block=1x2,col=delta",
    "format=bccoo,block=1x4", "format=bccoo,block=1x4,col=delta",
    "format=bccoo,block=2x1", "format=bccoo,block=2x1,col=delta",
    "format=bccoo,block=2x2", "format=bccoo,block=2x2,col=delta",
    "format=bccoo,block=2x4", "format=bccoo,block=2x4,col=delta",
    "format=bccoo,block=3x1", "format=bccoo,block=3x1,col=delta",
    "format=bccoo,block=3x2", "format=bccoo,block=3x2,col=delta",
    "format=bccoo,block=3x4", "format=bccoo,block=3x4,col=delta",
    "format=bccoo,block=4x1", "format=bccoo,block=4x1,col=delta",
    "format=bccoo,block=4x2", "format=bccoo,block=4x2,col=delta",
    "format=bccoo,block=4x4", "format=bccoo,block=4x4,col=delta",
};

int spmv_model_variant_count(void) { return (int)(sizeof variants / sizeof variants[0]); }

const char *spmv_model_variant(int index) {
    return index >= 0 && index < spmv_model_variant_count() ? variants[index] : NULL;
}

static int shape_index(int h, int w) {
    for (int i = 0; i < SPMV_SHAPE_COUNT; ++i)
        if (spmv_shapes[i][0] == h && spmv_shapes[i][1] == w) return i;
    return -1;
}

int spmv_model_terms(const clpk_csr *A, const spmv_matrix_features *f, clpk_precision precision, clpk_device_kind kind,
                     const char *params, double terms[SPMV_MODEL_TERMS], double *data_bytes) {
    core_params given;
    core_params_clear(&given);
    core_resolved r;
    spmv_config cfg;
    if (core_params_parse(&given, params, NULL) != CLPK_SUCCESS ||
        spmv_resolve_explicit(kind, NULL, &given, &r, NULL) != CLPK_SUCCESS ||
        spmv_config_read(&r, A, &cfg, NULL) != CLPK_SUCCESS)
        return 0;
    double nnz = (double)A->nnz, bytes;
    if (cfg.format == SPMV_CSR) {
        bytes = (double)spmv_csr_footprint(A, precision);
    } else {
        int shape = shape_index(cfg.block_h, cfg.block_w);
        if (shape < 0) return 0;
        bytes = spmv_shape_bytes_per_nnz(A, f, shape, &cfg, precision) * nnz;
        if (cfg.col_delta) bytes += f->far_steps * nnz * 4.0; /* escaped full columns */
    }
    int p = precision == CLPK_PRECISION_F64;
    terms[0] = 1.0;
    terms[1] = bytes / 1e6;
    terms[2] = f->x_lines_per_nnz[p] * nnz * 64.0 / 1e6;
    terms[3] = (double)A->rows / 1e6;
    terms[4] = (double)f->row_max / 1e3;
    terms[5] = bytes * f->long_row_share / 1e6;
    if (data_bytes) *data_bytes = bytes;
    return 1;
}

double spmv_model_predict(const spmv_variant_model *v, const double terms[SPMV_MODEL_TERMS]) {
    double t = 0;
    for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
        t += v->coef[j] * terms[j];
    return t;
}

/* Cyclic coordinate descent on the normal equations with projection onto coef >= 0: converges for the positive
 * semi-definite Gram matrix, and with five unknowns a few thousand sweeps cost nothing. */
void spmv_model_fit(const double (*terms)[SPMV_MODEL_TERMS], const double *ms, int n, double coef[SPMV_MODEL_TERMS],
                    double *rel_rms) {
    enum { T = SPMV_MODEL_TERMS };
    double q[T][T] = {{0}}, g[T] = {0};
    for (int i = 0; i < n; ++i) {
        if (!(ms[i] > 0)) continue;
        double w = 1.0 / (ms[i] * ms[i]); /* relative errors */
        for (int a = 0; a < T; ++a) {
            g[a] += w * terms[i][a] * ms[i];
            for (int b = 0; b < T; ++b)
                q[a][b] += w * terms[i][a] * terms[i][b];
        }
    }
    for (int j = 0; j < T; ++j)
        coef[j] = 0;
    for (int sweep = 0; sweep < 5000; ++sweep) {
        double moved = 0;
        for (int j = 0; j < T; ++j) {
            if (!(q[j][j] > 0)) continue;
            double grad = -g[j];
            for (int k = 0; k < T; ++k)
                grad += q[j][k] * coef[k];
            double next = coef[j] - grad / q[j][j];
            if (next < 0) next = 0;
            moved += fabs(next - coef[j]) * sqrt(q[j][j]);
            coef[j] = next;
        }
        if (moved < 1e-12) break;
    }
    double sum = 0;
    int used = 0;
    for (int i = 0; i < n; ++i) {
        if (!(ms[i] > 0)) continue;
        double t = 0;
        for (int j = 0; j < T; ++j)
            t += coef[j] * terms[i][j];
        sum += (t - ms[i]) * (t - ms[i]) / (ms[i] * ms[i]);
        ++used;
    }
    if (rel_rms) *rel_rms = used ? sqrt(sum / used) : 0;
}

int spmv_model_read(const void *spmv_models_json, clpk_precision precision, spmv_model *out, char *why, size_t size) {
    memset(out, 0, sizeof *out);
    const cJSON *root = spmv_models_json;
    if (!cJSON_IsObject(root)) return snprintf(why, size, "the profile has no spmv model"), 0;
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(root, "terms");
    int n_names = cJSON_IsArray(names) ? cJSON_GetArraySize(names) : -1;
    if (n_names != SPMV_MODEL_TERMS) return snprintf(why, size, "the spmv model's \"terms\" are not this version's"), 0;
    for (int j = 0; j < SPMV_MODEL_TERMS; ++j) {
        const cJSON *name = cJSON_GetArrayItem(names, j);
        if (!cJSON_IsString(name) || strcmp(name->valuestring, spmv_model_term_names[j]) != 0)
            return snprintf(why, size, "the spmv model's term %d is not \"%s\"", j, spmv_model_term_names[j]), 0;
    }
    const cJSON *copy = cJSON_GetObjectItemCaseSensitive(root, "copy_GBps");
    out->copy_gbps = cJSON_IsNumber(copy) && copy->valuedouble > 0 ? copy->valuedouble : 0;
    const cJSON *prec = cJSON_GetObjectItemCaseSensitive(root, clpk_precision_name(precision));
    if (!cJSON_IsObject(prec))
        return snprintf(why, size, "the spmv model has no %s part", clpk_precision_name(precision)), 0;
    const cJSON *range = cJSON_GetObjectItemCaseSensitive(prec, "nnz");
    if (cJSON_IsArray(range) && cJSON_GetArraySize(range) == 2) {
        out->nnz_lo = cJSON_GetArrayItem(range, 0)->valuedouble;
        out->nnz_hi = cJSON_GetArrayItem(range, 1)->valuedouble;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(prec, "variants");
    if (!cJSON_IsArray(list))
        return snprintf(why, size, "the spmv model's %s part has no variants", clpk_precision_name(precision)), 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, list) {
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(v, "params");
        const cJSON *coef = cJSON_GetObjectItemCaseSensitive(v, "coef");
        const cJSON *samples = cJSON_GetObjectItemCaseSensitive(v, "samples");
        if (!cJSON_IsString(params) || strlen(params->valuestring) >= sizeof out->variants[0].params ||
            !cJSON_IsArray(coef) || cJSON_GetArraySize(coef) != SPMV_MODEL_TERMS)
            return snprintf(why, size, "a variant of the spmv model lacks params or %d coefficients", SPMV_MODEL_TERMS),
                   0;
        if (out->count == SPMV_MODEL_MAX_VARIANTS)
            return snprintf(why, size, "the spmv model has more than %d variants", SPMV_MODEL_MAX_VARIANTS), 0;
        spmv_variant_model *m = &out->variants[out->count];
        snprintf(m->params, sizeof m->params, "%s", params->valuestring);
        for (int j = 0; j < SPMV_MODEL_TERMS; ++j) {
            const cJSON *c = cJSON_GetArrayItem(coef, j);
            if (!cJSON_IsNumber(c) || !(c->valuedouble >= 0) || !isfinite(c->valuedouble))
                return snprintf(why, size, "variant %s: coefficients must be finite and >= 0", m->params), 0;
            m->coef[j] = c->valuedouble;
        }
        m->samples = cJSON_IsNumber(samples) ? samples->valueint : 0;
        const cJSON *rms = cJSON_GetObjectItemCaseSensitive(v, "rel_rms");
        m->rel_rms = cJSON_IsNumber(rms) ? rms->valuedouble : 0;
        ++out->count;
    }
    if (out->count == 0)
        return snprintf(why, size, "the spmv model's %s part is empty", clpk_precision_name(precision)), 0;
    return 1;
}

int spmv_model_is_csr(const char *params) { return strstr(params, "format=csr") != NULL; }

int spmv_model_plausible(const char *params, double data_bytes, double least_bccoo) {
    return spmv_model_is_csr(params) || data_bytes <= 2.0 * least_bccoo;
}

clpk_status spmv_model_variant_plan(clpk_context *ctx, const clpk_csr *A, clpk_precision precision, const char *params,
                                    clpk_spmv_plan **plan) {
    char format[16] = "bccoo";
    const char *f = strstr(params, "format=");
    if (f) sscanf(f + 7, "%15[^,]", format);
    return clpk_spmv_plan_create(ctx, A, precision, format, params, plan);
}

static int by_ms(const void *a, const void *b) {
    double x = ((const spmv_ranked *)a)->ms, y = ((const spmv_ranked *)b)->ms;
    return (x > y) - (x < y);
}

int spmv_model_rank(const spmv_model *m, const clpk_csr *A, const spmv_matrix_features *f, clpk_precision precision,
                    clpk_device_kind kind, spmv_ranked *out, int capacity) {
    spmv_ranked all[SPMV_MODEL_MAX_VARIANTS];
    int n = 0;
    double least_bccoo = INFINITY;
    for (int i = 0; i < m->count; ++i) {
        double terms[SPMV_MODEL_TERMS], bytes = 0;
        if (m->variants[i].samples < 3) continue; /* fewer samples than a line and a slope: no trustworthy fit */
        if (!spmv_model_terms(A, f, precision, kind, m->variants[i].params, terms, &bytes)) continue;
        double ms = spmv_model_predict(&m->variants[i], terms);
        if (m->copy_gbps > 0) { /* MB / (GB/s) = ms */
            double floor = (bytes + (double)A->rows * clpk_precision_size(precision)) / 1e6 / m->copy_gbps;
            if (ms < floor) ms = floor;
        }
        all[n++] = (spmv_ranked){i, ms, bytes};
        if (!spmv_model_is_csr(m->variants[i].params) && bytes < least_bccoo) least_bccoo = bytes;
    }
    int kept = 0;
    for (int i = 0; i < n; ++i)
        if (spmv_model_plausible(m->variants[all[i].index].params, all[i].data_bytes, least_bccoo))
            all[kept++] = all[i];
    qsort(all, (size_t)kept, sizeof all[0], by_ms);
    if (kept > capacity) kept = capacity;
    memcpy(out, all, (size_t)kept * sizeof *out);
    return kept;
}
