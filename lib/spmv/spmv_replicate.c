/* Large matrices with real structure for SpMV evaluation (issue #22): K copies of a real matrix along the diagonal,
 * each copy coupled to the next by a sparse random block (about 1 % of a copy's nonzeros, at random positions of
 * the copy's rows and the next copy's columns), so that the row and block structure is the real matrix's while the
 * size reaches what a GPU is used at, and the copies are not independent problems. */
#include "spmv_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_col(const void *a, const void *b) {
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static uint64_t next_random(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

clpk_status spmv_generate_replicated(long long copies, const char *path, uint64_t seed, clpk_csr *out,
                                     clpk_error *err) {
    if (copies < 1 || copies > 100000)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv generate: replicate:K:PATH needs 1 <= K <= 1e5");
    clpk_coo coo;
    clpk_csr one;
    CLPK_TRY(clpk_mtx_read(path, &coo, err));
    clpk_status st = clpk_coo_to_csr(&coo, &one, err);
    clpk_coo_free(&coo);
    CLPK_TRY(st);
    const int64_t rows = (int64_t)one.rows * copies, cols = (int64_t)one.cols * copies;
    const int64_t coupling = one.nnz / 100 > 0 ? one.nnz / 100 : 1;
    const int64_t nnz = one.nnz * copies + coupling * (copies - 1);
    if (rows > INT32_MAX || cols > INT32_MAX || nnz > ((int64_t)1 << 31)) {
        clpk_csr_free(&one);
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "spmv generate: replicate:%lld of %s is too large (%lld rows, %lld nonzeros)", copies,
                              path, (long long)rows, (long long)nnz);
    }
    /* Coupling entries per row of one copy: each copy k < K-1 adds `coupling` entries to its rows, in the columns of
     * copy k+1; drawn once and reused per copy (with the copy's offset), so the pattern is a block Toeplitz. */
    int64_t *extra_ptr = calloc((size_t)one.rows + 1, sizeof *extra_ptr);
    int32_t *extra_col = malloc(sizeof *extra_col * (size_t)coupling);
    int32_t *extra_row = malloc(sizeof *extra_row * (size_t)coupling);
    out->row_ptr = malloc(sizeof *out->row_ptr * (size_t)(rows + 1));
    out->col = malloc(sizeof *out->col * (size_t)nnz);
    out->val = malloc(sizeof *out->val * (size_t)nnz);
    if (!extra_ptr || !extra_col || !extra_row || !out->row_ptr || !out->col || !out->val) {
        free(extra_ptr), free(extra_col), free(extra_row);
        clpk_csr_free(&one);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv generate: out of memory");
    }
    uint64_t rng = seed ^ 0x7e91ull;
    for (int64_t i = 0; i < coupling; ++i) {
        extra_row[i] = (int32_t)(next_random(&rng) % (uint64_t)one.rows);
        extra_col[i] = (int32_t)(next_random(&rng) % (uint64_t)one.cols);
    }
    for (int64_t i = 0; i < coupling; ++i) ++extra_ptr[extra_row[i] + 1];
    for (int32_t r = 0; r < one.rows; ++r) extra_ptr[r + 1] += extra_ptr[r];
    int32_t *sorted = malloc(sizeof *sorted * (size_t)coupling);
    int64_t *fill = calloc((size_t)one.rows, sizeof *fill);
    if (!sorted || !fill) {
        free(extra_ptr), free(extra_col), free(extra_row), free(sorted), free(fill);
        clpk_csr_free(&one);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv generate: out of memory");
    }
    for (int64_t i = 0; i < coupling; ++i) sorted[extra_ptr[extra_row[i]] + fill[extra_row[i]]++] = extra_col[i];
    for (int32_t r = 0; r < one.rows; ++r)
        qsort(sorted + extra_ptr[r], (size_t)(extra_ptr[r + 1] - extra_ptr[r]), sizeof *sorted, cmp_col);
    int64_t at = 0;
    out->row_ptr[0] = 0;
    for (long long k = 0; k < copies; ++k) {
        const int32_t row0 = (int32_t)(k * one.rows), col0 = (int32_t)(k * one.cols);
        for (int32_t r = 0; r < one.rows; ++r) {
            for (int64_t j = one.row_ptr[r]; j < one.row_ptr[r + 1]; ++j) {
                out->col[at] = col0 + one.col[j];
                out->val[at++] = one.val[j];
            }
            if (k + 1 < copies) { /* columns of the next copy come after this copy's: the row stays sorted */
                int32_t last = -1;
                for (int64_t j = extra_ptr[r]; j < extra_ptr[r + 1]; ++j) {
                    if (sorted[j] == last) continue; /* a repeated draw: one entry */
                    last = sorted[j];
                    out->col[at] = col0 + one.cols + sorted[j];
                    out->val[at++] = (double)(next_random(&rng) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
                }
            }
            out->row_ptr[row0 + r + 1] = at;
        }
    }
    out->rows = (int32_t)rows;
    out->cols = (int32_t)cols;
    out->nnz = at;
    free(extra_ptr), free(extra_col), free(extra_row), free(sorted), free(fill);
    clpk_csr_free(&one);
    return CLPK_SUCCESS;
}
