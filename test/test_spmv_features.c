/* The SpMV feature pass (lib/spmv/spmv_features.c) against brute-force counts: every block shape's block count,
 * the x lines per 32-row group and the row statistics, exactly when every row is read and within a few percent when
 * sampled; known fills on structured matrices; bytes per nonzero from the footprint formula; threads agree. */
#include "check.h"
#include "spmv_features.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct (r / h, c / w) pairs over the whole matrix. */
static double brute_blocks(const clpk_csr *A, int h, int w) {
    int64_t *keys = malloc(sizeof *keys * (size_t)(A->nnz ? A->nnz : 1));
    for (int32_t r = 0; r < A->rows; ++r)
        for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; ++k)
            keys[k] = (int64_t)(r / h) * ((int64_t)A->cols + 4) + A->col[k] / w;
    qsort(keys, (size_t)A->nnz, sizeof *keys, cmp_i64);
    double distinct = 0;
    for (int64_t k = 0; k < A->nnz; ++k)
        distinct += k == 0 || keys[k] != keys[k - 1];
    free(keys);
    return distinct;
}

/* Distinct x lines (of `per_line` values) per group of 32 rows, summed, per nonzero. */
static double brute_lines(const clpk_csr *A, int per_line) {
    double lines = 0;
    for (int32_t r0 = 0; r0 < A->rows; r0 += 32) {
        int32_t r1 = r0 + 32 < A->rows ? r0 + 32 : A->rows;
        int64_t n = A->row_ptr[r1] - A->row_ptr[r0];
        int64_t *keys = malloc(sizeof *keys * (size_t)(n ? n : 1));
        for (int64_t k = 0; k < n; ++k)
            keys[k] = A->col[A->row_ptr[r0] + k] / per_line;
        qsort(keys, (size_t)n, sizeof *keys, cmp_i64);
        for (int64_t k = 0; k < n; ++k)
            lines += k == 0 || keys[k] != keys[k - 1];
        free(keys);
    }
    return A->nnz ? lines / (double)A->nnz : 0;
}

static void check_exact(const char *spec, uint64_t seed) {
    clpk_csr A;
    clpk_error err = {0};
    if (!CHECK(clpk_spmv_generate(spec, seed, &A, &err) == CLPK_SUCCESS, "%s: %s", spec, err.message)) return;
    spmv_matrix_features f, f1;
    CHECK(spmv_matrix_features_compute(&A, 2, A.rows, &f, &err) == CLPK_SUCCESS, "%s: %s", spec, err.message);
    CHECK(f.sampled_rows == 1.0, "%s: every row read (%.3f)", spec, f.sampled_rows);
    for (int s = 0; s < SPMV_SHAPE_COUNT; ++s) {
        double want = brute_blocks(&A, spmv_shapes[s][0], spmv_shapes[s][1]);
        CHECK(f.blocks[s] == want, "%s %dx%d: %.0f blocks, brute force %.0f", spec, spmv_shapes[s][0],
              spmv_shapes[s][1], f.blocks[s], want);
        CHECK(f.fill[s] > 0 && f.fill[s] <= 1.0 + 1e-12, "%s %dx%d: fill %.4f in (0, 1]", spec, spmv_shapes[s][0],
              spmv_shapes[s][1], f.fill[s]);
    }
    CHECK(f.fill[0] == 1.0, "%s: 1x1 fill is 1 (%.6f)", spec, f.fill[0]);
    for (int p = 0; p < 2; ++p) {
        double want = brute_lines(&A, p == 0 ? 16 : 8);
        CHECK(fabs(f.x_lines_per_nnz[p] - want) <= 1e-12 * (want + 1), "%s: x lines per nnz %s %.6f, brute %.6f", spec,
              p ? "f64" : "f32", f.x_lines_per_nnz[p], want);
    }
    double mean = (double)A.nnz / A.rows, var = 0;
    int64_t max = 0;
    for (int32_t r = 0; r < A.rows; ++r) {
        int64_t n = A.row_ptr[r + 1] - A.row_ptr[r];
        var += (n - mean) * (n - mean);
        if (n > max) max = n;
    }
    CHECK(fabs(f.row_mean - mean) <= 1e-9 * mean, "%s: row mean %.4f vs %.4f", spec, f.row_mean, mean);
    double cv = sqrt(var / A.rows) / mean;
    CHECK(fabs(f.row_cv - cv) <= 1e-6 * (cv + 1), "%s: row cv %.6f vs %.6f", spec, f.row_cv, cv);
    CHECK(f.row_max == max && f.row_p99 <= max, "%s: row max %lld (want %lld), p99 %lld", spec, (long long)f.row_max,
          (long long)max, (long long)f.row_p99);
    /* one thread gives the same counts */
    CHECK(spmv_matrix_features_compute(&A, 1, A.rows, &f1, &err) == CLPK_SUCCESS, "%s: %s", spec, err.message);
    CHECK(memcmp(f1.blocks, f.blocks, sizeof f.blocks) == 0 && f1.x_lines_per_nnz[0] == f.x_lines_per_nnz[0],
          "%s: one thread and two agree", spec);
    clpk_csr_free(&A);
}

int main(void) {
    uint64_t seed = check_seed();
    printf("seed %llu\n", (unsigned long long)seed);
    static const char *const specs[] = {"fem3d:9",       "random:3001:2500:7",   "powerlaw:4000",
                                        "shortrow:5000", "longrow:700:3000:900", "protein:3000",
                                        "dense:97"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i)
        check_exact(specs[i], seed + i);

    /* Known structure: fem3d couples 3x3 node blocks, so 3x1 blocks are full; a dense matrix fills every shape up to
     * its ragged edge. */
    clpk_csr A;
    clpk_error err = {0};
    spmv_matrix_features f;
    if (CHECK(clpk_spmv_generate("fem3d:8", seed, &A, &err) == CLPK_SUCCESS, "fem3d: %s", err.message)) {
        CHECK(spmv_matrix_features_compute(&A, 0, 0, &f, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(f.fill[6] == 1.0, "fem3d 3x1 fill %.4f is 1", f.fill[6]);
        CHECK(f.fill[3] < 1.0, "fem3d 2x1 fill %.4f below 1 (3-row node blocks)", f.fill[3]);
        spmv_config cfg = {
            .format = SPMV_BCCOO, .flag_bits = 16, .col_bits = 32, .tile = 16, .wg = 256, .strategy = 1, .slices = 1};
        double b11 = spmv_shape_bytes_per_nnz(&A, &f, 0, &cfg, CLPK_PRECISION_F32);
        double b31 = spmv_shape_bytes_per_nnz(&A, &f, 6, &cfg, CLPK_PRECISION_F32);
        CHECK(b11 > 8.0 && b31 < b11, "fem3d f32 bytes/nnz: 1x1 %.2f (> 8: value + column), 3x1 %.2f smaller", b11,
              b31);
        clpk_csr_free(&A);
    }

    /* Sampling: on a large homogeneous matrix a sample of a few percent of the rows estimates the counts closely. */
    if (CHECK(clpk_spmv_generate("random:400000:300000:9", seed, &A, &err) == CLPK_SUCCESS, "%s", err.message)) {
        spmv_matrix_features exact, sampled;
        CHECK(spmv_matrix_features_compute(&A, 0, A.rows, &exact, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(spmv_matrix_features_compute(&A, 0, 20000, &sampled, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(sampled.sampled_rows < 0.1, "sampled %.3f of the rows", sampled.sampled_rows);
        for (int s = 0; s < SPMV_SHAPE_COUNT; ++s)
            CHECK(fabs(sampled.blocks[s] / exact.blocks[s] - 1) < 0.03, "sampled %dx%d blocks %.0f vs exact %.0f",
                  spmv_shapes[s][0], spmv_shapes[s][1], sampled.blocks[s], exact.blocks[s]);
        CHECK(fabs(sampled.x_lines_per_nnz[0] / exact.x_lines_per_nnz[0] - 1) < 0.03, "sampled x lines %.4f vs %.4f",
              sampled.x_lines_per_nnz[0], exact.x_lines_per_nnz[0]);
        printf("400000 x 300000, %lld nnz: exact pass %.3f s, sampled pass %.3f s\n", (long long)A.nnz, exact.seconds,
               sampled.seconds);
        clpk_csr_free(&A);
    }

    /* The evaluation corpus's replicated real matrices: K copies of a Matrix Market file on the diagonal plus ~1 %
     * coupling per copy; the copies' block structure survives. The file: a 2D FEM of 2x2 node blocks (288 rows, a
     * multiple of every block height) written to a temporary folder, so the check runs where ../shared is absent. */
    char path[1024] = "";
    check_tmp_dir dir = {0};
    clpk_csr fem;
    if (CHECK(check_tmp_dir_create(&dir, "spmv-features") &&
                  clpk_spmv_generate("fem:12", seed, &fem, &err) == CLPK_SUCCESS,
              "temporary matrix: %s", err.message)) {
        clpk_coo coo = {.rows = fem.rows,
                        .cols = fem.cols,
                        .nnz = fem.nnz,
                        .col = fem.col,
                        .val = fem.val,
                        .symmetry = CLPK_MTX_GENERAL,
                        .field = CLPK_MTX_REAL};
        coo.row = malloc(sizeof *coo.row * (size_t)fem.nnz);
        for (int32_t r = 0; r < fem.rows; ++r)
            for (int64_t k = fem.row_ptr[r]; k < fem.row_ptr[r + 1]; ++k)
                coo.row[k] = r;
        CHECK(clpk_mtx_write(check_tmp_file(&dir, "fem.mtx", path, sizeof path), &coo, &err) == CLPK_SUCCESS,
              "write %s: %s", path, err.message);
        free(coo.row);
        clpk_csr_free(&fem);
    }
    char spec[1100], one_spec[1100];
    snprintf(spec, sizeof spec, "replicate:6:%s", path);
    snprintf(one_spec, sizeof one_spec, "replicate:1:%s", path);
    clpk_csr one;
    if (CHECK(clpk_spmv_generate(one_spec, seed, &one, &err) == CLPK_SUCCESS, "%s: %s", one_spec, err.message) &&
        CHECK(clpk_spmv_generate(spec, seed, &A, &err) == CLPK_SUCCESS, "%s: %s", spec, err.message)) {
        int64_t coupling = one.nnz / 100;
        CHECK(A.rows == 6 * one.rows && A.cols == 6 * one.cols, "6 copies: %d x %d", A.rows, A.cols);
        CHECK(A.nnz <= 6 * one.nnz + 5 * coupling && A.nnz > 6 * one.nnz + 4 * coupling,
              "nonzeros %lld: 6 x %lld plus up to 5 x %lld coupling", (long long)A.nnz, (long long)one.nnz,
              (long long)coupling);
        spmv_matrix_features fa, fo;
        CHECK(spmv_matrix_features_compute(&A, 0, A.rows, &fa, &err) == CLPK_SUCCESS, "%s", err.message);
        CHECK(spmv_matrix_features_compute(&one, 0, one.rows, &fo, &err) == CLPK_SUCCESS, "%s", err.message);
        /* every coupling entry adds at most one block of any shape (copies start at multiples of 12 rows) */
        for (int s = 0; s < SPMV_SHAPE_COUNT; ++s)
            CHECK(fa.blocks[s] >= 6 * fo.blocks[s] && fa.blocks[s] <= 6 * fo.blocks[s] + (double)(A.nnz - 6 * one.nnz),
                  "%dx%d blocks %.0f: 6 x %.0f plus at most one per coupling entry", spmv_shapes[s][0],
                  spmv_shapes[s][1], fa.blocks[s], fo.blocks[s]);
        CHECK(clpk_spmv_generate("replicate:0:x.mtx", seed, &one, &err) == CLPK_ERROR_INVALID_ARGUMENT &&
                  strstr(err.message, "K"),
              "K = 0 refused: %s", err.message);
        clpk_csr_free(&A);
    }
    clpk_csr_free(&one);
    check_tmp_dir_remove(&dir);

    /* Bad input: a matrix with unsorted columns is refused with a message. */
    clpk_csr bad = {0};
    int64_t rp[] = {0, 2};
    int32_t col[] = {1, 0};
    double val[] = {1, 2};
    bad.rows = 1;
    bad.cols = 2;
    bad.nnz = 2;
    bad.row_ptr = rp;
    bad.col = col;
    bad.val = val;
    err.message[0] = '\0';
    CHECK(spmv_matrix_features_compute(&bad, 1, 0, &f, &err) == CLPK_ERROR_INVALID_DATA && err.message[0],
          "unsorted columns refused: '%s'", err.message);
    return check_summary();
}
