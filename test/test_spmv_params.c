/* The spmv parameter table (lib/spmv/spmv_params.c) and the resolve step of plan creation: the built-in defaults of
 * both device kinds read into a configuration, every value the tuner searches is allowed, unknown keys and disallowed
 * values are refused with messages naming them, each value keeps its source (default, profile, caller), a stale
 * profile entry is ignored whole, the joint `block` yields to a later source's block_h/block_w, the derived rules
 * (prefetch within the tile, vload of 1-wide odd blocks, col auto), and descriptions list only what a format reads. */
#include "check.h"
#include "param_check.h"
#include "spmv_internal.h"
#include "spmv_model.h"
#include "spmv_util.h"

#include <cjson/cJSON.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const core_param_table *table = &spmv_param_table;

/* Resolves `params` without a profile for a device kind and reads the configuration; the error text in err. */
static clpk_status explicit_config(clpk_device_kind kind, const char *format, const char *params, spmv_config *cfg,
                                   core_resolved *r, clpk_error *err) {
    core_params given;
    core_params_clear(&given);
    CLPK_TRY(core_params_parse(&given, params, err));
    CLPK_TRY(spmv_resolve_explicit(kind, format, &given, r, err));
    return spmv_config_read(r, NULL, cfg, err);
}

static void test_rows(void) {
    for (int i = 0; i < table->count; ++i) {
        const core_param_def *d = &table->defs[i];
        clpk_error err = {0};
        CHECK(core_param_check_value(table, d, d->default_gpu, &err) == CLPK_SUCCESS, "%s: GPU default: %s", d->name,
              err.message);
        CHECK(!d->default_cpu || core_param_check_value(table, d, d->default_cpu, &err) == CLPK_SUCCESS,
              "%s: CPU default: %s", d->name, err.message);
        CHECK(d->field == CORE_PARAM_NO_FIELD || (d->field >= 0 && (size_t)d->field < sizeof(spmv_config)),
              "%s: field inside spmv_config", d->name);
    }
    param_check_search_values(table);
    char listing[8192];
    clpk_error err = {0};
    CHECK(clpk_family_parameters("spmv", listing, sizeof listing, &err) == CLPK_SUCCESS && strstr(listing, "tile") &&
              strstr(listing, "8|12|16|24|32|40|64|96|128"),
          "clpk_family_parameters lists the table: %.200s", listing);
}

static void test_defaults(void) {
    spmv_config c = {0};
    core_resolved r;
    clpk_error err = {0};
    CHECK(explicit_config(CLPK_DEVICE_GPU, NULL, NULL, &c, &r, &err) == CLPK_SUCCESS, "GPU defaults: %s", err.message);
    CHECK(c.format == SPMV_BCCOO && c.block_h == 1 && c.block_w == 1 && c.flag_bits == 32 && c.tile == 16 &&
              c.wg == 256 && c.strategy == 2 && c.cache == 2 && c.sync_adjacent == -1 && c.skip_scan == 1 &&
              c.online == 0 && c.vload == 0 /* 1x1: scalar */ && c.interleave == 1 && c.prefetch == 1 &&
              c.col == SPMV_COL_SHORT && c.col_bits == 16 && !c.col_delta,
          "GPU defaults as documented");
    CHECK(!strcmp(core_params_get(&r.params, "vload"), "1"), "GPU default vload=1");
    CHECK(core_resolved_source(&r, "tile") == CORE_SOURCE_DEFAULT, "source of a default");
    CHECK(explicit_config(CLPK_DEVICE_CPU, NULL, NULL, &c, &r, &err) == CLPK_SUCCESS, "CPU defaults: %s", err.message);
    CHECK(c.format == SPMV_BCCOO && c.tile == 32 && c.wg == 64 && c.strategy == 1 && c.vload == 0 &&
              c.interleave == 0 && c.prefetch == 1,
          "CPU defaults as documented");
    CHECK(explicit_config(CLPK_DEVICE_CPU, "csr", NULL, &c, &r, &err) == CLPK_SUCCESS && c.format == SPMV_CSR &&
              c.csr_vec == 1 && c.wg == 64,
          "CPU CSR defaults: %s", err.message);
    CHECK(explicit_config(CLPK_DEVICE_GPU, "csr", NULL, &c, &r, &err) == CLPK_SUCCESS && c.csr_vec == 8,
          "GPU CSR defaults: %s", err.message);
    /* the names' indices are the enums' values */
    CHECK(explicit_config(CLPK_DEVICE_CPU, "bccoo+", "col=delta,sync=fallback,transpose=online", &c, &r, &err) ==
                  CLPK_SUCCESS &&
              c.format == SPMV_BCCOO_PLUS && c.col == SPMV_COL_DELTA && c.col_delta && c.col_bits == 16 &&
              c.sync == SPMV_SYNC_FALLBACK && c.sync_adjacent == 0 && c.online == 1,
          "names read as indices: %s", err.message);
    CHECK(explicit_config(CLPK_DEVICE_CPU, NULL, "col=int,sync=adjacent", &c, &r, &err) == CLPK_SUCCESS &&
              c.col_bits == 32 && c.sync_adjacent == 1,
          "col=int, sync=adjacent");
}

static void test_refusals(void) {
    static const struct {
        const char *params, *named;
    } bad[] = {{"foo=1", "foo"},
               {"tile=0", "tile=0"},
               {"block_w=3", "block_w=3"},
               {"block_h=5", "block_h=5"},
               {"sync=maybe", "sync=maybe"},
               {"wg=96", "wg=96"},
               {"flag_bits=12", "flag_bits=12"},
               {"csr_vec=3", "csr_vec=3"},
               {"tile=abc", "tile=abc"},
               {"transpose=sideways", "transpose=sideways"},
               {"slices=0", "slices=0"},
               {"block=5x1", "block=5x1"},
               {"prefetch=3", "prefetch=3"},
               {"col=long", "col=long"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        spmv_config c;
        core_resolved r;
        clpk_error err = {0};
        clpk_status st = explicit_config(CLPK_DEVICE_GPU, "bccoo", bad[i].params, &c, &r, &err);
        CHECK(st == CLPK_ERROR_INVALID_ARGUMENT && strstr(err.message, bad[i].named), "%s refused naming it: %s",
              bad[i].params, err.message);
    }
    spmv_config c;
    core_resolved r;
    clpk_error err = {0};
    CHECK(explicit_config(CLPK_DEVICE_GPU, "ell", NULL, &c, &r, &err) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "format=ell"),
          "unknown format: %s", err.message);
    CHECK(explicit_config(CLPK_DEVICE_GPU, "csr", "csr_vec=32,wg=16", &c, &r, &err) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(err.message, "csr_vec=32"),
          "CSR lanes beyond the work-group: %s", err.message);
    /* parameters a format does not read are still checked */
    CHECK(explicit_config(CLPK_DEVICE_GPU, "csr", "tile=0", &c, &r, &err) == CLPK_ERROR_INVALID_ARGUMENT,
          "tile=0 refused for CSR too");
}

static void test_derived(void) {
    spmv_config c = {0};
    core_resolved r;
    clpk_error err = {0};
    CHECK(explicit_config(CLPK_DEVICE_GPU, NULL, "prefetch=16,tile=3", &c, &r, &err) == CLPK_SUCCESS && c.prefetch == 4,
          "prefetch reduced to the tile: %d", c.prefetch);
    CHECK(explicit_config(CLPK_DEVICE_GPU, NULL, "block=3x1,vload=1", &c, &r, &err) == CLPK_SUCCESS && c.block_h == 3 &&
              c.block_w == 1 && c.vload == 0,
          "vload off for 3x1");
    CHECK(explicit_config(CLPK_DEVICE_GPU, NULL, "block=4x1,vload=1", &c, &r, &err) == CLPK_SUCCESS && c.vload == 1,
          "vload kept for 4x1");
    CHECK(explicit_config(CLPK_DEVICE_GPU, NULL, "block=2x4,block_h=3", &c, &r, &err) == CLPK_SUCCESS &&
              c.block_h == 2 && c.block_w == 4,
          "block and block_h from the same source: block wins (%dx%d)", c.block_h, c.block_w);
    CHECK(explicit_config(CLPK_DEVICE_GPU, NULL, "block_h=3,block_w=2", &c, &r, &err) == CLPK_SUCCESS &&
              c.block_h == 3 && c.block_w == 2 && core_resolved_source(&r, "block_h") == CORE_SOURCE_CALLER &&
              core_resolved_source(&r, "block") == CORE_SOURCE_DEFAULT,
          "the caller's block_h/block_w over the default block (%dx%d)", c.block_h, c.block_w);
    /* descriptions: only what the format and strategy read */
    char text[512];
    CHECK(explicit_config(CLPK_DEVICE_CPU, "bccoo", "strategy=1", &c, &r, &err) == CLPK_SUCCESS, "bccoo");
    core_param_format(table, &c, text, sizeof text);
    CHECK(!strcmp(text, "format=bccoo,block_h=1,block_w=1,flag_bits=32,col=short,tile=32,wg=64,strategy=1,sync=auto,"
                        "skip_scan=1,transpose=offline,vload=0,interleave=0,prefetch=1"),
          "BCCOO strategy 1: %s", text);
    CHECK(explicit_config(CLPK_DEVICE_CPU, "bccoo+", "strategy=2,cache=3,slices=8", &c, &r, &err) == CLPK_SUCCESS,
          "bccoo+");
    core_param_format(table, &c, text, sizeof text);
    CHECK(strstr(text, "strategy=2,cache=3,") && strstr(text, ",slices=8,") && !strstr(text, "csr_vec"),
          "BCCOO+ strategy 2: %s", text);
    CHECK(explicit_config(CLPK_DEVICE_CPU, "csr", "csr_vec=4,tile=8", &c, &r, &err) == CLPK_SUCCESS, "csr");
    core_param_format(table, &c, text, sizeof text);
    CHECK(!strcmp(text, "format=csr,wg=64,csr_kernel=rows,csr_vec=4"), "CSR: %s", text);
    /* csr_vec belongs to csr_kernel=rows only */
    CHECK(explicit_config(CLPK_DEVICE_CPU, "csr", "csr_kernel=adaptive,csr_vec=4", &c, &r, &err) == CLPK_SUCCESS,
          "csr adaptive");
    core_param_format(table, &c, text, sizeof text);
    CHECK(!strcmp(text, "format=csr,wg=64,csr_kernel=adaptive,csr_steps=32") && c.csr_kernel == SPMV_CSR_ADAPTIVE,
          "CSR adaptive: %s", text);
}

/* A profile for this device: f32 problems get a tuned entry, f64 problems a stale one (a key the table lacks). */
static int write_profile(const check_tmp_dir *dir, const clpk_device_info *dev, void *user) {
    char path[512];
    FILE *f = fopen(check_tmp_file(dir, "spmv.json", path, sizeof path), "w");
    if (!f) return 0;
    fprintf(
        f,
        "{\"schema\": 1, \"device\": {\"name\": \"%s\", \"vendor\": \"%s\", \"driver\": \"%s\", \"type\": \"%s\"},\n"
        " \"families\": {\"spmv\": [\n"
        "  {\"class\": {\"precision\": \"f32\"}, \"params\": {\"format\": \"bccoo\", \"block\": \"3x1\", \"tile\": 8,"
        " \"wg\": 64, \"sync\": \"fallback\"}, \"time_ms\": 1, \"default_time_ms\": 2},\n"
        "  {\"class\": {\"precision\": \"f64\"}, \"params\": {\"format\": \"bccoo\", \"tile\": 8, \"retired\": 1},"
        " \"time_ms\": 1, \"default_time_ms\": 2}]}}\n",
        dev->name, dev->vendor, dev->driver_version, core_device_kind_string(dev->kind));
    return fclose(f) == 0;
}

static void test_resolve(void) {
    check_tmp_dir dir;
    clpk_context *ctx = param_check_context_with_profile(&dir, "spmv-params", write_profile, NULL);
    if (!ctx) return;
    clpk_csr A;
    clpk_error err = {0};
    if (!CHECK(clpk_spmv_generate("fem:12", 3, &A, &err) == CLPK_SUCCESS, "matrix: %s", err.message)) return;
    core_params features;
    spmv_features(&A, CLPK_PRECISION_F32, &features, &err);
    core_resolve_request req = {.table = table, .features = &features, .caller = "tile=12,block_w=2"};
    core_resolved r;
    CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS && r.choice.found, "resolve with the profile: %s",
          clpk_last_error(ctx));
    CHECK(core_resolved_source(&r, "wg") == CORE_SOURCE_PROFILE &&
              core_resolved_source(&r, "block") == CORE_SOURCE_PROFILE &&
              core_resolved_source(&r, "tile") == CORE_SOURCE_CALLER &&
              core_resolved_source(&r, "strategy") == CORE_SOURCE_DEFAULT,
          "sources: profile, caller over profile, default");
    spmv_config c;
    CHECK(spmv_config_read(&r, &A, &c, &err) == CLPK_SUCCESS && c.block_h == 3 && c.block_w == 2 && c.tile == 12 &&
              c.wg == 64,
          "profile block 3x1, caller block_w=2: %dx%d", c.block_h, c.block_w);
    /* the same through plan creation: automatic plans use the profile, explicit ones do not */
    clpk_spmv_plan *plan = NULL;
    char desc[512];
    if (CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, NULL, "block_w=2", &plan) == CLPK_SUCCESS, "plan: %s",
              clpk_last_error(ctx))) {
        clpk_spmv_plan_describe(plan, desc, sizeof desc);
        CHECK(strstr(desc, "block_h=3,block_w=2,") && strstr(desc, "tile=8,wg=64,") && strstr(desc, "sync=fallback"),
              "automatic plan: %s", desc);
        clpk_spmv_plan_destroy(plan);
    }
    if (CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "bccoo", NULL, &plan) == CLPK_SUCCESS, "plan: %s",
              clpk_last_error(ctx))) {
        clpk_spmv_plan_describe(plan, desc, sizeof desc);
        CHECK(strstr(desc, "block_h=1,block_w=1,"), "explicit plan without the profile: %s", desc);
        clpk_spmv_plan_destroy(plan);
    }
    /* the f64 entry names a parameter the table lacks: ignored whole */
    spmv_features(&A, CLPK_PRECISION_F64, &features, &err);
    req.caller = NULL;
    CHECK(core_resolve(ctx, &req, &r) == CLPK_SUCCESS && !r.choice.found &&
              core_resolved_source(&r, "tile") == CORE_SOURCE_DEFAULT,
          "stale entry ignored");
    /* the caller's keys are checked before anything else */
    req.caller = "tiles=8";
    CHECK(core_resolve(ctx, &req, &r) == CLPK_ERROR_INVALID_ARGUMENT && strstr(clpk_last_error(ctx), "tiles"),
          "unknown key refused: %s", clpk_last_error(ctx));
    CHECK(clpk_spmv_plan_create(ctx, &A, CLPK_PRECISION_F32, "bccoo", "wg=100", &plan) == CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "wg=100") && plan == NULL,
          "plan refuses a disallowed value: %s", clpk_last_error(ctx));
    spmv_util_free(&A);
    clpk_context_destroy(ctx);
    check_tmp_dir_remove(&dir);
}

/* A shipped profile holds a cost model (models.spmv: readable in both precisions, every variant's parameters allowed
 * by the table) or nearest-class entries (each allowed by the table). */
static void shipped_profiles(void) {
    for (int f = 0; f < PARAM_CHECK_PROFILE_COUNT; ++f) {
        const char *name = param_check_profiles[f];
        cJSON *root = param_check_profile_load(name);
        if (!root) continue;
        const cJSON *model = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "models"), "spmv");
        if (!model) {
            CHECK(param_check_profile_entries(&spmv_param_table, root, "spmv", name) > 0,
                  "%s has neither an spmv model nor spmv entries", name);
            cJSON_Delete(root);
            continue;
        }
        for (int p = 0; p < 2; ++p) {
            clpk_precision precision = p ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
            spmv_model m;
            char why[256] = "";
            if (!CHECK(spmv_model_read(model, precision, &m, why, sizeof why), "%s: model: %s", name, why)) continue;
            for (int v = 0; v < m.count; ++v) {
                core_params given;
                core_params_clear(&given);
                core_resolved r;
                clpk_error err = {0};
                CHECK(core_params_parse(&given, m.variants[v].params, &err) == CLPK_SUCCESS &&
                          spmv_resolve_explicit(CLPK_DEVICE_GPU, NULL, &given, &r, &err) == CLPK_SUCCESS,
                      "%s: model variant %s: %s", name, m.variants[v].params, err.message);
            }
        }
        cJSON_Delete(root);
    }
}

int main(void) {
    check_seed();
    test_rows();
    test_defaults();
    test_refusals();
    test_derived();
    shipped_profiles();
    test_resolve();
    return check_summary();
}
