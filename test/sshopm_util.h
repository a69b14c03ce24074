/* Helpers shared by the sshopm tests (header-only, static). */
#ifndef CLPK_TEST_SSHOPM_UTIL_H
#define CLPK_TEST_SSHOPM_UTIL_H

#include "check.h"
#include "clpk_internal.h"
#include "sshopm_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opens the default device (CLPK_DEVICE or first GPU, else CPU) and prints it; NULL (and a message) if none. */
static inline clpk_context *sshopm_test_context(void) {
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, NULL) != CLPK_SUCCESS) {
        printf("no OpenCL device\n");
        return NULL;
    }
    const clpk_device_info *d = clpk_context_device_info(ctx);
    printf("device: %s / %s (fp64 %s)\n", d->platform_name, d->name, d->has_fp64 ? "yes" : "no");
    return ctx;
}

/* Random symmetric tensor entries, uniform in [-1, 1] (never all zero). */
static inline void sshopm_random_tensor(uint64_t *rng, int U, double *a) {
    for (int u = 0; u < U; ++u) a[u] = 2 * check_rand_double(rng) - 1;
}

/* Distance between unit vectors, up to sign when `sign_free`. */
static inline double sshopm_xdist(int n, const double *a, const double *b, int sign_free) {
    double d = 0, d2 = 0;
    for (int i = 0; i < n; ++i) {
        d += (a[i] - b[i]) * (a[i] - b[i]);
        d2 += (a[i] + b[i]) * (a[i] + b[i]);
    }
    return sign_free ? sqrt(fmin(d, d2)) : sqrt(d);
}

/* Reads a whole JSON file (NULL when absent). */
static inline cJSON *sshopm_read_json(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    cJSON *json = NULL;
    if (text && fread(text, 1, (size_t)size, f) == (size_t)size) {
        text[size] = '\0';
        json = cJSON_Parse(text);
    }
    free(text);
    fclose(f);
    return json;
}

#endif
