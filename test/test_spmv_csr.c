/* CSR (csr_kernel=adaptive, and the row kernels) against the double reference (y poisoned with NaN for beta = 0, then
 * alpha = 1.25, beta = -0.5): seeded random matrices with empty rows, one row of 200 000 entries among short ones,
 * rows of exactly a block's entries and one more, power-law rows, only short rows, only empty rows, no rows; f32 and
 * f64; several work-group sizes. The plan splits exactly the rows longer than a block into pieces. */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rows x cols: each row's length from len(r) (capped at cols), its columns spread at random over [0, cols). */
static int make_matrix(int32_t rows, int32_t cols, int64_t (*len)(int32_t r, uint64_t *rng), uint64_t *rng,
                       clpk_csr *A) {
    memset(A, 0, sizeof *A);
    A->rows = rows;
    A->cols = cols;
    A->row_ptr = calloc((size_t)rows + 1, sizeof *A->row_ptr);
    int64_t *lens = malloc(((size_t)rows + 1) * sizeof *lens), nnz = 0;
    for (int32_t r = 0; lens && r < rows; ++r) {
        lens[r] = len(r, rng);
        if (lens[r] > cols) lens[r] = cols;
        nnz += lens[r];
    }
    A->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *A->col);
    A->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *A->val);
    if (!A->row_ptr || !A->col || !A->val || !lens) {
        free(lens);
        return 0;
    }
    int64_t at = 0;
    for (int32_t r = 0; r < rows; ++r) {
        int64_t n = lens[r];
        /* n sorted distinct columns: gaps of random size that still fit the rest */
        int64_t c = 0;
        for (int64_t k = 0; k < n; ++k) {
            int64_t room = cols - c - (n - k); /* columns that may be skipped */
            int64_t gap = room > 0 ? (int64_t)(check_rand(rng) % (uint64_t)(2 * room / (n - k) + 1)) : 0;
            if (gap > room) gap = room;
            c += gap;
            A->col[at] = (int32_t)c++;
            A->val[at++] = 2.0 * check_rand_double(rng) - 1.0;
        }
        A->row_ptr[r + 1] = at;
    }
    A->nnz = at;
    free(lens);
    return 1;
}

static int64_t mixed(int32_t r, uint64_t *rng) { /* a third empty, the rest 1..40, every 97th 100..2000 */
    uint64_t u = check_rand(rng) % 3;
    if (r % 97 == 5) return 100 + (int64_t)(check_rand(rng) % 1900);
    return u == 0 ? 0 : 1 + (int64_t)(check_rand(rng) % 40);
}
static int64_t huge_row(int32_t r, uint64_t *rng) { return r == 333 ? 200000 : (int64_t)(check_rand(rng) % 6); }
static int64_t edges(int32_t r, uint64_t *rng) { /* wg=64: a block holds 256 entries */
    static const int64_t lens[] = {256, 257, 255, 0, 1, 512, 513, 0, 0, 3};
    (void)rng;
    return lens[r % 10];
}
static int64_t empty(int32_t r, uint64_t *rng) {
    (void)r;
    (void)rng;
    return 0;
}
static int64_t single(int32_t r, uint64_t *rng) { /* one entry a row: blocks of a work-group's rows */
    (void)r;
    return (int64_t)(check_rand(rng) % 4 != 0);
}

/* Rows longer than a block must be split, and only those. */
static void check_split(clpk_context *ctx, const clpk_csr *A, const char *params, const char *label) {
    clpk_spmv_plan *plan = NULL;
    if (!CHECK(clpk_spmv_plan_create(ctx, A, CLPK_PRECISION_F32, "csr", params, &plan) == CLPK_SUCCESS, "%s: %s", label,
               clpk_last_error(ctx)))
        return;
    int64_t cap = spmv_csr_block_entries(&plan->cfg), split = 0, pieces = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        int64_t n = A->row_ptr[r + 1] - A->row_ptr[r];
        if (n > cap) {
            ++split;
            pieces += (n + cap - 1) / cap;
        }
    }
    CHECK(plan->csr_long_n == split && plan->csr_blocks_n >= pieces + (A->rows > split ? 1 : 0),
          "%s [%s]: %lld split rows (expected %lld), %lld blocks for %lld pieces", label, params,
          (long long)plan->csr_long_n, (long long)split, (long long)plan->csr_blocks_n, (long long)pieces);
    clpk_spmv_plan_destroy(plan);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = NULL;
    if (!CHECK(clpk_context_create(&ctx, NULL) == CLPK_SUCCESS, "no device")) return check_summary();
    int fp64 = clpk_context_device_info(ctx)->has_fp64;
    enum { N = 9 };
    clpk_csr mats[N];
    const char *labels[N] = {"mixed",    "huge-row", "edges",    "empty-rows", "single",
                             "powerlaw", "shortrow", "webgraph", "no-rows"};
    clpk_error err = {0};
    int ok = make_matrix(5000, 7000, mixed, &rng, &mats[0]) && make_matrix(1000, 250000, huge_row, &rng, &mats[1]) &&
             make_matrix(400, 1000, edges, &rng, &mats[2]) && make_matrix(300, 50, empty, &rng, &mats[3]) &&
             make_matrix(3000, 3000, single, &rng, &mats[4]) &&
             clpk_spmv_generate("powerlaw:30000", check_rand(&rng), &mats[5], &err) == CLPK_SUCCESS &&
             clpk_spmv_generate("shortrow:20000", check_rand(&rng), &mats[6], &err) == CLPK_SUCCESS &&
             clpk_spmv_generate("webgraph:20000", check_rand(&rng), &mats[7], &err) == CLPK_SUCCESS;
    mats[8] = (clpk_csr){0, 5, 0, calloc(1, sizeof(int64_t)), NULL, NULL};
    if (!CHECK(ok && mats[8].row_ptr, "matrices: %s", err.message)) return check_summary();

    /* the row kernels too: their unrolled row sums meet every row length modulo the unroll here */
    static const char *params[] = {"csr_kernel=adaptive,wg=64", "csr_kernel=adaptive,wg=16,csr_steps=1",
                                   "csr_kernel=adaptive,wg=256,csr_steps=4096", "csr_kernel=adaptive,wg=1",
                                   "csr_kernel=rows,csr_vec=1,wg=64", "csr_kernel=rows,csr_vec=2,wg=64",
                                   "csr_kernel=rows,csr_vec=8,wg=32"};
    enum { N_PARAMS = sizeof params / sizeof params[0] };
    for (int m = 0; m < N; ++m)
        for (int i = 0; i < N_PARAMS; ++i)
            for (int pi = 0; pi < 2; ++pi) {
                if (pi && !fp64) continue;
                clpk_precision p = pi ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32;
                char label[96];
                snprintf(label, sizeof label, "%s %dx%d nnz %lld", labels[m], (int)mats[m].rows, (int)mats[m].cols,
                         (long long)mats[m].nnz);
                spmv_util_check(ctx, &mats[m], p, "csr", params[i], label, &rng);
            }
    check_split(ctx, &mats[1], "csr_kernel=adaptive,wg=64", "huge-row");
    check_split(ctx, &mats[2], "csr_kernel=adaptive,wg=64", "edges");
    check_split(ctx, &mats[5], "csr_kernel=adaptive,wg=16", "powerlaw");
    /* the default stays the row kernels */
    clpk_spmv_plan *plan = NULL;
    if (CHECK(clpk_spmv_plan_create(ctx, &mats[0], CLPK_PRECISION_F32, "csr", NULL, &plan) == CLPK_SUCCESS, "%s",
              clpk_last_error(ctx))) {
        CHECK(plan->cfg.csr_kernel == SPMV_CSR_ROWS && !plan->csr_blocks, "csr's default kernel is not rows");
        clpk_spmv_plan_destroy(plan);
    }
    for (int m = 0; m < N; ++m)
        spmv_util_free(&mats[m]);
    clpk_context_destroy(ctx);
    return check_summary();
}
