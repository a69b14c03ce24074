/* The SpMV cost model (lib/spmv/spmv_model.c, spmv_select.c): the non-negative fit recovers known coefficients, the
 * profile's form is read and malformed ones refused with a reason, the ranking follows the coefficients and the
 * copy-rate floor, and an automatic plan with a model in the profile takes the model's best variant (and with verify
 * the fastest measured), with results checked against the double-precision reference on NaN-poisoned outputs; a
 * precision the model lacks falls back to the defaults. */
#include "check.h"
#include "param_check.h"
#include "spmv_model.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_fit(uint64_t *rng) {
    enum { N = 40 };
    double terms[N][SPMV_MODEL_TERMS], ms[N];
    const double truth[SPMV_MODEL_TERMS] = {0.01, 0.35, 0.05, 0.0, 0.002};
    for (int i = 0; i < N; ++i) {
        terms[i][0] = 1;
        for (int j = 1; j < SPMV_MODEL_TERMS; ++j)
            terms[i][j] = 10 * check_rand_double(rng);
        ms[i] = 0;
        for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
            ms[i] += truth[j] * terms[i][j];
    }
    double coef[SPMV_MODEL_TERMS], rms = 1;
    spmv_model_fit((const double(*)[SPMV_MODEL_TERMS])terms, ms, N, coef, &rms);
    for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
        CHECK(fabs(coef[j] - truth[j]) <= 1e-6 * (1 + truth[j]), "coefficient %d: %.9g, truth %.9g", j, coef[j],
              truth[j]);
    CHECK(rms < 1e-6, "exact data fits exactly (rel rms %.3g)", rms);
    /* a term whose best unconstrained coefficient is negative is clamped at 0 */
    for (int i = 0; i < N; ++i)
        ms[i] = 0.05 + 0.3 * terms[i][1] - 0.01 * terms[i][3] + 0.5;
    spmv_model_fit((const double(*)[SPMV_MODEL_TERMS])terms, ms, N, coef, &rms);
    int nonneg = 1;
    for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
        nonneg &= coef[j] >= 0;
    CHECK(nonneg && coef[3] == 0, "non-negative coefficients, the negative one at 0 (%.3g)", coef[3]);
}

/* A model JSON ("models"."spmv") in which `cheap` costs 0.1 ms per MB and every other variant 1 ms per MB. */
static char *model_json(const char *cheap, int with_f64) {
    cJSON *root = cJSON_CreateObject();
    cJSON *names = cJSON_AddArrayToObject(root, "terms");
    for (int j = 0; j < SPMV_MODEL_TERMS; ++j)
        cJSON_AddItemToArray(names, cJSON_CreateString(spmv_model_term_names[j]));
    for (int p = 0; p < 1 + with_f64; ++p) {
        cJSON *prec = cJSON_AddObjectToObject(root, p ? "f64" : "f32");
        cJSON *list = cJSON_AddArrayToObject(prec, "variants");
        for (int v = 0; v < spmv_model_variant_count(); ++v) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "params", spmv_model_variant(v));
            double coef[SPMV_MODEL_TERMS] = {0.001, strcmp(spmv_model_variant(v), cheap) ? 1.0 : 0.1, 0, 0, 0};
            cJSON_AddItemToObject(e, "coef", cJSON_CreateDoubleArray(coef, SPMV_MODEL_TERMS));
            cJSON_AddNumberToObject(e, "samples", 8);
            cJSON_AddItemToArray(list, e);
        }
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return text;
}

static void test_read_and_rank(void) {
    clpk_csr A;
    clpk_error err = {0};
    if (!CHECK(clpk_spmv_generate("fem:40", 5, &A, &err) == CLPK_SUCCESS, "matrix: %s", err.message)) return;
    spmv_matrix_features f;
    CHECK(spmv_matrix_features_compute(&A, 2, 0, &f, &err) == CLPK_SUCCESS, "features: %s", err.message);
    char *text = model_json("format=bccoo,block=2x2", 0);
    cJSON *json = cJSON_Parse(text);
    spmv_model m;
    char why[256] = "";
    CHECK(spmv_model_read(json, CLPK_PRECISION_F32, &m, why, sizeof why) && m.count == spmv_model_variant_count(),
          "model read: %s", why);
    CHECK(!spmv_model_read(json, CLPK_PRECISION_F64, &m, why, sizeof why) && strstr(why, "f64"), "no f64 part: %s",
          why);
    spmv_model_read(json, CLPK_PRECISION_F32, &m, why, sizeof why);
    spmv_ranked r[SPMV_MODEL_MAX_VARIANTS];
    int n = spmv_model_rank(&m, &A, &f, CLPK_PRECISION_F32, CLPK_DEVICE_GPU, r, SPMV_MODEL_MAX_VARIANTS);
    CHECK(n > 1 && !strcmp(m.variants[r[0].index].params, "format=bccoo,block=2x2"), "cheapest first: %s",
          n ? m.variants[r[0].index].params : "-");
    int sorted = 1, has_4x4 = 0;
    for (int i = 1; i < n; ++i)
        sorted &= r[i].ms >= r[i - 1].ms;
    CHECK(sorted, "ranked by predicted time");
    clpk_csr B;
    spmv_matrix_features fb;
    if (CHECK(clpk_spmv_generate("random:3000:3000:8", 5, &B, &err) == CLPK_SUCCESS, "matrix: %s", err.message)) {
        spmv_matrix_features_compute(&B, 2, 0, &fb, &err);
        int nb = spmv_model_rank(&m, &B, &fb, CLPK_PRECISION_F32, CLPK_DEVICE_GPU, r, SPMV_MODEL_MAX_VARIANTS);
        for (int i = 0; i < nb; ++i)
            has_4x4 |= strstr(m.variants[r[i].index].params, "block=4x4") != NULL;
        CHECK(nb > 0 && !has_4x4, "random columns: 4x4 blocks (fill ~1/16, over twice the least data) left out");
        clpk_csr_free(&B);
    }
    /* the copy-rate floor: no prediction faster than moving the data */
    m.copy_gbps = 1.0; /* 1 GB/s: every floor far above the coefficients' times */
    n = spmv_model_rank(&m, &A, &f, CLPK_PRECISION_F32, CLPK_DEVICE_GPU, r, SPMV_MODEL_MAX_VARIANTS);
    CHECK(n > 0 && r[0].ms >= (r[0].data_bytes + 4.0 * A.rows) / 1e6 - 1e-9, "floor %.4g ms applied (%.4g MB)",
          n ? r[0].ms : 0, n ? r[0].data_bytes / 1e6 : 0);
    /* malformed: a negative coefficient, wrong term names */
    cJSON *variants = cJSON_GetObjectItem(cJSON_GetObjectItem(json, "f32"), "variants");
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(cJSON_GetArrayItem(variants, 0), "coef"), 1, cJSON_CreateNumber(-1));
    CHECK(!spmv_model_read(json, CLPK_PRECISION_F32, &m, why, sizeof why) && strstr(why, ">= 0"),
          "negative coefficient refused: %s", why);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItem(json, "terms"), 2, cJSON_CreateString("x"));
    CHECK(!spmv_model_read(json, CLPK_PRECISION_F32, &m, why, sizeof why) && strstr(why, "term"),
          "other terms refused: %s", why);
    CHECK(!spmv_model_read(NULL, CLPK_PRECISION_F32, &m, why, sizeof why), "no model: %s", why);
    cJSON_Delete(json);
    free(text);
    clpk_csr_free(&A);
}

static int write_profile(const check_tmp_dir *dir, const clpk_device_info *dev, void *cheap_variant) {
    const char *cheap = cheap_variant;
    char path[1024];
    FILE *f = fopen(check_tmp_file(dir, "model.json", path, sizeof path), "w");
    if (!f) return 0;
    char *model = model_json(cheap, 0);
    fprintf(f,
            "{\"schema\": 1, \"device\": {\"name\": \"%s\", \"vendor\": \"%s\", \"driver\": \"%s\", \"type\": \"%s\"},"
            " \"families\": {}, \"models\": {\"spmv\": %s}}\n",
            dev->name, dev->vendor, dev->driver_version, core_device_kind_string(dev->kind), model);
    free(model);
    return fclose(f) == 0;
}

static void check_result(clpk_spmv_plan *plan, const clpk_csr *A, uint64_t *rng, const char *what) {
    double *x = malloc(sizeof *x * (size_t)A->cols), *y = malloc(sizeof *y * (size_t)A->rows);
    double *ref = malloc(sizeof *ref * (size_t)A->rows);
    for (int32_t i = 0; i < A->cols; ++i)
        x[i] = 2 * check_rand_double(rng) - 1;
    for (int32_t r = 0; r < A->rows; ++r) {
        ref[r] = 0;
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k)
            ref[r] += A->val[k] * x[A->col[k]];
        y[r] = NAN;
    }
    CHECK(clpk_spmv_host(plan, 1.0, x, 0.0, y) == CLPK_SUCCESS, "%s: multiply", what);
    double e = check_rel_error(ref, y, (size_t)A->rows);
    double tol = clpk_spmv_plan_precision(plan) == CLPK_PRECISION_F64 ? 1e-12 : 1e-5;
    CHECK(e <= tol, "%s: relative error %.3g <= %.0e", what, e, tol);
    free(x);
    free(y);
    free(ref);
}

/* Whether `variant` is among the report's timed variants. */
static int was_timed(const spmv_select_report *r, const char *variant) {
    for (int i = 0; i < r->measured && i < SPMV_SELECT_MAX_TIMED; ++i)
        if (!strcmp(r->timed[i], variant)) return 1;
    return 0;
}

/* One clear prediction (the model's BCCOO 2x2 delta at a tenth of the others): close and off time nothing; auto times
 * it, every CSR variant and the defaults; on times the best three, then the CSR variants and the defaults not among
 * them. Each keeps a correct plan. */
static void check_guard(clpk_context *ctx, const clpk_csr *A, uint64_t *rng) {
    const char *chosen = "format=bccoo,block=2x2,col=delta";
    const char *modes[] = {"verify=close", "verify=off", NULL, "verify=auto", "verify=on"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m) {
        const char *label = modes[m] ? modes[m] : "default verify";
        int short_list = !modes[m] || !strcmp(modes[m], "verify=auto") ? 1 : !strcmp(modes[m], "verify=on") ? 3 : 0;
        spmv_select_report r;
        clpk_spmv_plan *plan = NULL;
        int chose = 0;
        if (!CHECK(spmv_select_plan(ctx, A, CLPK_PRECISION_F32, modes[m], &plan, &chose, &r) == CLPK_SUCCESS && chose &&
                       plan,
                   "%s: plan: %s", label, clpk_last_error(ctx)))
            continue;
        if (short_list == 0) {
            CHECK(r.measured == 0, "%s: nothing timed (%d)", label, r.measured);
        } else if (CHECK(r.measured >= short_list + 2 && r.measured <= SPMV_SELECT_MAX_TIMED, "%s: %d timed", label,
                         r.measured)) {
            int csr = 0, csr_listed = 0, default_listed = 0;
            for (int i = 0; i < r.measured; ++i) {
                csr += spmv_model_is_csr(r.timed[i]);
                if (i < short_list) {
                    csr_listed += spmv_model_is_csr(r.timed[i]);
                    default_listed |= !strcmp(r.timed[i], SPMV_DEFAULT_VARIANT);
                }
            }
            int expected = short_list + (csr - csr_listed) + !default_listed;
            CHECK(!strcmp(r.timed[0], chosen) && csr == 4 && was_timed(&r, SPMV_DEFAULT_VARIANT) &&
                      r.measured == expected,
                  "%s: the model's choice first (%s), the four CSR variants (%d) and the defaults timed, %d in all "
                  "(expected %d)",
                  label, r.timed[0], csr, r.measured, expected);
        }
        check_result(plan, A, rng, label);
        clpk_spmv_plan_destroy(plan);
    }
}

static void test_plans(uint64_t *rng) {
    check_tmp_dir dir;
    clpk_context *ctx =
        param_check_context_with_profile(&dir, "spmv-model", write_profile, (void *)"format=bccoo,block=2x2,col=delta");
    if (!ctx) return;
    int has_fp64 = clpk_context_device_info(ctx)->has_fp64;
    clpk_csr A;
    clpk_error err = {0};
    if (CHECK(clpk_spmv_generate("fem:30", 7, &A, &err) == CLPK_SUCCESS, "matrix: %s", err.message)) {
        clpk_spmv_plan *plan = NULL;
        char desc[512];
        if (CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, "verify=close", &plan) == CLPK_SUCCESS,
                  "automatic plan: %s", clpk_last_error(ctx))) {
            clpk_spmv_plan_describe(plan, desc, sizeof desc);
            CHECK(strstr(desc, "block_h=2,block_w=2,") && strstr(desc, "col=delta"), "the model's choice: %s", desc);
            check_result(plan, &A, rng, "model's plan");
            clpk_spmv_plan_destroy(plan);
        }
        check_guard(ctx, &A, rng);
        /* the caller's parameters apply over the model's variant */
        if (CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "auto", "tile=8,verify=off", &plan) ==
                      CLPK_SUCCESS,
                  "automatic plan with caller parameters: %s", clpk_last_error(ctx))) {
            clpk_spmv_plan_describe(plan, desc, sizeof desc);
            CHECK(strstr(desc, "block_h=2,block_w=2,") && strstr(desc, "tile=8,"), "caller over model: %s", desc);
            clpk_spmv_plan_destroy(plan);
        }
        /* verify=on measures the best three and keeps a correct plan among them */
        if (CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, "verify=on", &plan) == CLPK_SUCCESS,
                  "verified plan: %s", clpk_last_error(ctx))) {
            clpk_spmv_plan_describe(plan, desc, sizeof desc);
            CHECK(strstr(desc, "format="), "verified: %s", desc);
            check_result(plan, &A, rng, "verified plan");
            clpk_spmv_plan_destroy(plan);
        }
        CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, "verify=maybe", &plan) ==
                      CLPK_ERROR_INVALID_ARGUMENT &&
                  plan == NULL,
              "verify=maybe refused: %s", clpk_last_error(ctx));
        /* no f64 part: the built-in defaults (block 1x1) */
        if (has_fp64 && CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F64, NULL, NULL, &plan) == CLPK_SUCCESS,
                              "f64 plan: %s", clpk_last_error(ctx))) {
            clpk_spmv_plan_describe(plan, desc, sizeof desc);
            const clpk_device_info *dev = clpk_context_device_info(ctx);
            core_params defaults;
            core_param_defaults(&spmv_param_table, dev->kind, &defaults);
            CHECK(strstr(desc, core_params_get(&defaults, "format")) == desc + strlen("format="),
                  "f64 without a model part: the default format (%s)", desc);
            check_result(plan, &A, rng, "f64 default plan");
            clpk_spmv_plan_destroy(plan);
        }
        clpk_csr_free(&A);
    }
    clpk_context_destroy(ctx);
    unsetenv("CLPK_PROFILE_DIR");
    check_tmp_dir_remove(&dir);
}

/* verify measures SPMV_DEFAULT_VARIANT as "the defaults": it must be exactly the built-in defaults on both kinds. */
static void test_default_variant(void) {
    clpk_csr A;
    clpk_error err = {0};
    if (!CHECK(clpk_spmv_generate("random:500:700:6", 3, &A, &err) == CLPK_SUCCESS, "matrix: %s", err.message)) return;
    const clpk_device_kind kinds[] = {CLPK_DEVICE_GPU, CLPK_DEVICE_CPU};
    for (int k = 0; k < 2; ++k) {
        core_params none, variant;
        core_params_clear(&none);
        core_params_clear(&variant);
        core_params_parse(&variant, SPMV_DEFAULT_VARIANT, &err);
        core_resolved r0, r1;
        spmv_config c0, c1;
        char d0[512] = "", d1[512] = "";
        if (spmv_resolve_explicit(kinds[k], NULL, &none, &r0, &err) == CLPK_SUCCESS &&
            spmv_config_read(&r0, &A, &c0, &err) == CLPK_SUCCESS &&
            spmv_resolve_explicit(kinds[k], NULL, &variant, &r1, &err) == CLPK_SUCCESS &&
            spmv_config_read(&r1, &A, &c1, &err) == CLPK_SUCCESS) {
            core_param_format(&spmv_param_table, &c0, d0, sizeof d0);
            core_param_format(&spmv_param_table, &c1, d1, sizeof d1);
        }
        CHECK(d0[0] && strcmp(d0, d1) == 0, "%s: the default variant is the defaults (%s | %s)", k ? "CPU" : "GPU", d0,
              d1);
    }
    clpk_csr_free(&A);
}

/* A model that puts CSR first: verify times the four CSR kernels on one upload (spmv_csr.c) and keeps one of them or
 * the defaults; the kept plan still multiplies correctly after the others and the verify's references are gone. */
static void test_shared_csr(uint64_t *rng) {
    check_tmp_dir dir;
    clpk_context *ctx =
        param_check_context_with_profile(&dir, "spmv-model-csr", write_profile, (void *)"format=csr,csr_vec=8");
    if (!ctx) return;
    clpk_csr A;
    clpk_error err = {0};
    if (CHECK(clpk_spmv_generate("powerlaw:3000", 11, &A, &err) == CLPK_SUCCESS, "matrix: %s", err.message)) {
        spmv_select_report r;
        clpk_spmv_plan *plan = NULL;
        int chose = 0;
        if (CHECK(spmv_select_plan(ctx, &A, CLPK_PRECISION_F32, NULL, &plan, &chose, &r) == CLPK_SUCCESS && chose &&
                      plan,
                  "CSR first: %s", clpk_last_error(ctx))) {
            int csr = 0;
            for (int i = 0; i < r.measured && i < SPMV_SELECT_MAX_TIMED; ++i)
                csr += spmv_model_is_csr(r.timed[i]);
            CHECK(!strcmp(r.timed[0], "format=csr,csr_vec=8") && csr == 4 && r.measured == 5,
                  "CSR first: the four CSR kernels and the defaults timed (%d of %d)", csr, r.measured);
            check_result(plan, &A, rng, "kept plan of a CSR-first verify");
            check_result(plan, &A, rng, "kept plan of a CSR-first verify, again");
            clpk_spmv_plan_destroy(plan);
        }
        clpk_csr_free(&A);
    }
    clpk_context_destroy(ctx);
    unsetenv("CLPK_PROFILE_DIR");
    check_tmp_dir_remove(&dir);
}

int main(void) {
    uint64_t rng = check_seed();
    test_fit(&rng);
    test_default_variant();
    test_read_and_rank();
    test_plans(&rng);
    test_shared_csr(&rng);
    return check_summary();
}
