/* The BCCOO kernel's chunked loop (products of `chunk` blocks first, then their segmented sum), which chunk=auto uses
 * on GPUs, where the sweep runs it at every tuner point (the H100 runs this suite). CPU devices default to the
 * interleaved loop, so here the chunked one is forced: chunks that divide the tile and that do not, every block
 * height, both strategies and synchronisations, BCCOO+, column deltas, the online staging; f32 and f64 against the
 * double-precision reference with NaN-poisoned y. */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <stdio.h>
#include <string.h>

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const char *specs[] = {"fem:14", "powerlaw:900"};
    clpk_csr mats[2];
    for (int i = 0; i < 2; ++i) {
        clpk_error err = {0};
        if (!CHECK(clpk_spmv_generate(specs[i], check_rand(&rng), &mats[i], &err) == CLPK_SUCCESS, "generate: %s",
                   err.message))
            return check_summary();
    }
    static const struct {
        const char *format, *params;
    } points[] = {
        {"bccoo", "block_h=1,block_w=1,tile=16,chunk=16,strategy=1,sync=adjacent,col=short,flag_bits=8"},
        {"bccoo", "block_h=2,block_w=2,tile=24,chunk=8,strategy=2,cache=2,sync=fallback,col=delta,flag_bits=16"},
        {"bccoo", "block_h=3,block_w=1,tile=8,chunk=3,strategy=1,sync=fallback,col=int,flag_bits=32"},
        {"bccoo", "block_h=4,block_w=2,tile=16,chunk=8,strategy=2,cache=1,sync=adjacent,col=short,flag_bits=32,"
                  "skip_scan=0"},
        {"bccoo", "block_h=1,block_w=4,tile=8,chunk=1,strategy=2,sync=adjacent,transpose=online,flag_bits=8"},
        {"bccoo", "block_h=2,block_w=1,tile=16,chunk=5,strategy=1,sync=fallback,transpose=online,col=delta"},
        {"bccoo+", "block_h=1,block_w=2,tile=16,chunk=4,strategy=1,sync=adjacent,slices=4"},
    };
    for (int pi = 0; pi < 2; ++pi) {
        clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (p == CLPK_PRECISION_F64 && !dev->has_fp64) {
            printf("skip f64: the device has no fp64\n");
            continue;
        }
        for (int i = 0; i < (int)(sizeof points / sizeof points[0]); ++i) {
            int m = (i + pi) % 2;
            double e = spmv_util_check(ctx, &mats[m], p, points[i].format, points[i].params, specs[m], &rng);
            printf("%s %-6s %-110s %.3g\n", clpk_precision_name(p), points[i].format, points[i].params, e);
        }
    }
    /* chunk is checked like every parameter */
    clpk_spmv_plan *plan = NULL;
    CHECK(clpk_spmv_plan_create(ctx, &mats[0], CLPK_PRECISION_F32, "bccoo", "chunk=33", &plan) ==
                  CLPK_ERROR_INVALID_ARGUMENT &&
              strstr(clpk_last_error(ctx), "chunk"),
          "chunk=33 refused: %s", clpk_last_error(ctx));
    for (int i = 0; i < 2; ++i) spmv_util_free(&mats[i]);
    clpk_context_destroy(ctx);
    return check_summary();
}
