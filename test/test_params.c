/* Parameter lists: parsing "k=v,..." from users, merging defaults with profile and explicit choices, key checks. */
#include "check.h"
#include "clpk_internal.h"

#include <string.h>

static void test_parse_and_get(void) {
    core_params p;
    core_params_clear(&p);
    clpk_error err = {0};
    CHECK(core_params_parse(&p, " block_h = 2, block_w=4 ,format=bccoo+,,", &err) == CLPK_SUCCESS, "%s",
          err.message);
    CHECK(p.count == 3, "count %d", p.count);
    CHECK(core_params_get_int(&p, "block_h", -1) == 2, "block_h");
    CHECK(core_params_get_int(&p, "block_w", -1) == 4, "block_w");
    CHECK(strcmp(core_params_get(&p, "format"), "bccoo+") == 0, "format '%s'", core_params_get(&p, "format"));
    CHECK(core_params_get(&p, "missing") == NULL, "missing key");
    CHECK(core_params_get_int(&p, "format", 7) == 7, "non-numeric falls back");
    CHECK(core_params_get_num(&p, "block_w", 0) == 4.0, "num");
    char text[256];
    core_params_format(&p, text, sizeof text);
    CHECK(strcmp(text, "block_h=2,block_w=4,format=bccoo+") == 0, "format gives '%s'", text);
}

static void test_parse_errors(void) {
    core_params p;
    core_params_clear(&p);
    clpk_error err = {0};
    CHECK(core_params_parse(&p, "novalue", &err) == CLPK_ERROR_INVALID_ARGUMENT, "missing '='");
    CHECK(strstr(err.message, "novalue") != NULL, "message names the item: %s", err.message);
    CHECK(core_params_parse(&p, "a=", &err) == CLPK_ERROR_INVALID_ARGUMENT, "empty value");
    CHECK(core_params_parse(&p, "=3", &err) == CLPK_ERROR_INVALID_ARGUMENT, "empty key");
    char longkey[200];
    memset(longkey, 'k', sizeof longkey - 3);
    strcpy(longkey + sizeof longkey - 3, "=1");
    CHECK(core_params_parse(&p, longkey, &err) == CLPK_ERROR_INVALID_ARGUMENT, "overlong item");
    CHECK(core_params_parse(&p, NULL, &err) == CLPK_SUCCESS, "NULL text is no parameters");
}

static void test_merge_and_overflow(void) {
    core_params defaults, profile;
    core_params_clear(&defaults);
    core_params_clear(&profile);
    core_params_set_int(&defaults, "wg", 128);
    core_params_set_int(&defaults, "tile", 8);
    core_params_set_int(&profile, "tile", 32);
    core_params_set(&profile, "strategy", "s2");
    CHECK(core_params_merge(&defaults, &profile) == CLPK_SUCCESS, "merge");
    CHECK(core_params_get_int(&defaults, "wg", 0) == 128, "kept default");
    CHECK(core_params_get_int(&defaults, "tile", 0) == 32, "profile overrides");
    CHECK(strcmp(core_params_get(&defaults, "strategy"), "s2") == 0, "added");
    core_params full;
    core_params_clear(&full);
    char key[16];
    int ok = 1;
    for (int i = 0; i < CLPK_PARAMS_MAX; ++i) {
        snprintf(key, sizeof key, "k%d", i);
        ok &= core_params_set_int(&full, key, i) == CLPK_SUCCESS;
    }
    CHECK(ok, "fills to capacity");
    CHECK(core_params_set_int(&full, "one_more", 1) == CLPK_ERROR_INVALID_ARGUMENT, "refuses past capacity");
    CHECK(core_params_set_int(&full, "k3", 33) == CLPK_SUCCESS && core_params_get_int(&full, "k3", 0) == 33,
          "updating an existing key still works when full");
}

static void test_check_keys(void) {
    core_params p;
    core_params_clear(&p);
    core_params_set(&p, "wg", "64");
    core_params_set(&p, "tyle", "8");
    static const char *const allowed[] = {"wg", "tile", NULL};
    clpk_error err = {0};
    CHECK(core_params_check_keys(&p, allowed, &err) == CLPK_ERROR_INVALID_ARGUMENT, "unknown key refused");
    CHECK(strstr(err.message, "tyle") && strstr(err.message, "tile"), "message names the key and the known ones: %s",
          err.message);
}

static void test_precision(void) {
    clpk_precision p;
    CHECK(clpk_precision_parse("f64", &p) == CLPK_SUCCESS && p == CLPK_PRECISION_F64, "f64");
    CHECK(clpk_precision_parse("float", &p) == CLPK_SUCCESS && p == CLPK_PRECISION_F32, "float");
    CHECK(clpk_precision_parse("f16", &p) == CLPK_ERROR_INVALID_ARGUMENT, "f16 refused");
    CHECK(clpk_precision_size(CLPK_PRECISION_F64) == 8 && clpk_precision_size(CLPK_PRECISION_F32) == 4, "sizes");
}

int main(void) {
    test_parse_and_get();
    test_parse_errors();
    test_merge_and_overflow();
    test_check_keys();
    test_precision();
    return check_summary();
}
