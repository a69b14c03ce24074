/* spmv on generated edge cases (empty rows, empty matrix, one row, one column, rows longer than a work-group's
 * tile, chains of hundreds of work-groups without a row stop, odd sizes), for every format and both inter-group
 * carry paths, f32 and f64, against the double-precision reference with NaN-poisoned y. */
#include "check.h"
#include "spmv_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A rows x cols matrix whose row r has len(r) entries at evenly spread columns. */
static clpk_csr make(int32_t rows, int32_t cols, int64_t (*len)(int32_t r, int32_t cols), uint64_t *rng) {
    clpk_csr m = {0};
    m.rows = rows;
    m.cols = cols;
    m.row_ptr = calloc((size_t)rows + 1, sizeof *m.row_ptr);
    int64_t total = 0;
    for (int32_t r = 0; r < rows; ++r) total += len(r, cols);
    m.col = malloc((size_t)(total ? total : 1) * sizeof *m.col);
    m.val = malloc((size_t)(total ? total : 1) * sizeof *m.val);
    for (int32_t r = 0; r < rows; ++r) {
        int64_t n = len(r, cols);
        for (int64_t k = 0; k < n; ++k) {
            m.col[m.nnz] = (int32_t)((k * cols) / n + (r % 3 == 1 && n < cols ? ((cols / n) > 1 ? 1 : 0) : 0));
            if (m.nnz > m.row_ptr[r] && m.col[m.nnz] <= m.col[m.nnz - 1]) m.col[m.nnz] = m.col[m.nnz - 1] + 1;
            if (m.col[m.nnz] >= cols) break;
            m.val[m.nnz] = 2.0 * check_rand_double(rng) - 1.0;
            m.nnz++;
        }
        m.row_ptr[r + 1] = m.nnz;
    }
    return m;
}

static int64_t len_empty_rows(int32_t r, int32_t cols) { return r % 3 == 0 ? 0 : 1 + r % 7; }
static int64_t len_none(int32_t r, int32_t cols) { return 0; }
static int64_t len_full(int32_t r, int32_t cols) { return cols; }
static int64_t len_one(int32_t r, int32_t cols) { return 1; }
static int64_t len_short(int32_t r, int32_t cols) { return 1 + r % 2; }
static int64_t len_mixed(int32_t r, int32_t cols) { return r % 17 == 0 ? cols / 2 : r % 5; }

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s\n", dev->name);

    struct {
        const char *label;
        clpk_csr m;
    } cases[] = {
        {"empty rows 301x250", make(301, 250, len_empty_rows, &rng)},
        {"empty matrix 0x0", make(0, 0, len_none, &rng)},
        {"all-zero 5x7", make(5, 7, len_none, &rng)},
        {"no columns 4x0", make(4, 0, len_none, &rng)},
        {"no rows 0x9", make(0, 9, len_none, &rng)},
        {"one row 1x3001", make(1, 3001, len_full, &rng)},
        {"one column 1001x1", make(1001, 1, len_one, &rng)},
        {"short rows 997x1013", make(997, 1013, len_short, &rng)},
        {"mixed rows 1013x997", make(1013, 997, len_mixed, &rng)},
        {"chain 3x20011 (hundreds of groups without a stop)", make(3, 20011, len_full, &rng)},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    enum { NGEN = 4 };
    clpk_csr gen[NGEN];
    /* the last one has column jumps beyond 32767 inside thread segments: col=delta escapes */
    const char *gen_specs[NGEN] = {"fem:9", "longrow:203:4099:2999", "powerlaw:777", "random:60:200000:40"};
    for (int i = 0; i < NGEN; ++i) {
        clpk_error err = {0};
        CHECK(clpk_spmv_generate(gen_specs[i], check_rand(&rng), &gen[i], &err) == CLPK_SUCCESS, "generate %s: %s",
              gen_specs[i], err.message);
    }
    static const struct {
        const char *format, *params;
    } configs[] = {
        {"bccoo", "tile=4,wg=32,sync=adjacent,strategy=1"},
        {"bccoo", "tile=4,wg=32,sync=fallback,strategy=1"},
        {"bccoo", "block_h=2,block_w=2,tile=3,wg=16,strategy=2,cache=1,sync=adjacent"},
        {"bccoo", "block_h=1,block_w=2,tile=7,wg=16,strategy=1,sync=adjacent,col=delta"},
        {"bccoo+", "block_h=3,block_w=4,tile=5,wg=16,slices=3,strategy=2,cache=2,sync=fallback,flag_bits=8"},
        {"csr", "csr_vec=1,wg=64"},
        {"csr", "csr_vec=8,wg=64"},
        {"csr", "csr_kernel=adaptive,wg=16"},
        {NULL, NULL},
    };
    const int nconfigs = (int)(sizeof configs / sizeof configs[0]);
    for (int pi = 0; pi < 2; ++pi) {
        clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
        if (p == CLPK_PRECISION_F64 && !dev->has_fp64) {
            printf("skip f64: the device has no fp64\n");
            clpk_spmv_plan *plan = NULL;
            CHECK(clpk_spmv_plan_create(ctx, &cases[0].m, p, "bccoo", NULL, &plan) == CLPK_ERROR_UNSUPPORTED,
                  "f64 without fp64 must be refused");
            continue;
        }
        for (int c = 0; c < nconfigs; ++c) {
            double worst = 0;
            for (int i = 0; i < ncases + NGEN; ++i) {
                const clpk_csr *A = i < ncases ? &cases[i].m : &gen[i - ncases];
                const char *label = i < ncases ? cases[i].label : gen_specs[i - ncases];
                double e = spmv_util_check(ctx, A, p, configs[c].format, configs[c].params, label, &rng);
                if (e > worst) worst = e;
            }
            printf("%s %-6s %-90s worst relative error %.3g\n", clpk_precision_name(p),
                   configs[c].format ? configs[c].format : "auto", configs[c].params ? configs[c].params : "", worst);
        }
    }
    for (int i = 0; i < ncases; ++i) spmv_util_free(&cases[i].m);
    for (int i = 0; i < NGEN; ++i) spmv_util_free(&gen[i]);
    clpk_context_destroy(ctx);
    return check_summary();
}
