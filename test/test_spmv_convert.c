/* The BCCOO conversion on several threads builds exactly the image one thread builds: every array compared byte for
 * byte over block shapes, column kinds (int, short, delta), BCCOO+ slices, flag widths, both transposes, interleave,
 * and matrices with empty rows, empty stretches, long rows and power-law rows (seeded random). */
#include "check.h"
#include "spmv_internal.h"
#include "spmv_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rows x cols with row lengths drawn at random: a third empty, a stretch of empty rows in the middle, a few long rows
 * (one of `long_row` entries), the rest 1..24. */
static int make_irregular(int32_t rows, int32_t cols, int64_t long_row, uint64_t *rng, clpk_csr *A) {
    memset(A, 0, sizeof *A);
    A->rows = rows;
    A->cols = cols;
    A->row_ptr = calloc((size_t)rows + 1, sizeof *A->row_ptr);
    int64_t cap = (int64_t)rows * 25 + long_row + 1;
    A->col = malloc((size_t)cap * sizeof *A->col);
    A->val = malloc((size_t)cap * sizeof *A->val);
    if (!A->row_ptr || !A->col || !A->val) return 0;
    int64_t nnz = 0;
    for (int32_t r = 0; r < rows; ++r) {
        uint64_t u = check_rand(rng) % 100;
        int64_t n = u < 33 ? 0 : (int64_t)(1 + check_rand(rng) % 24);
        if (r > rows / 3 && r < rows / 3 + 300) n = 0;
        if (r == rows / 2 || u == 99) n = r == rows / 2 ? long_row : 200 + (int64_t)(check_rand(rng) % 800);
        if (n > cols) n = cols;
        if (nnz + n > cap) n = cap - nnz;
        /* n distinct columns in order: a random walk for short rows, a dense run for long ones */
        int32_t c = (int32_t)(check_rand(rng) % (uint64_t)cols);
        if (n > cols / 2) c = 0;
        for (int64_t k = 0; k < n && c < cols; ++k) {
            A->col[nnz] = c;
            A->val[nnz++] = check_rand_double(rng) - 0.5;
            c += n > cols / 2 ? 1 : 1 + (int32_t)(check_rand(rng) % 2000);
        }
        A->row_ptr[r + 1] = nnz;
    }
    A->nnz = nnz;
    return 1;
}

typedef struct shape {
    int format, h, w, slices, col, tile, flag_bits, online, interleave, vload;
} shape;

static spmv_config config_of(const shape *s, const clpk_csr *A) {
    spmv_config c = {.format = s->format,
                     .block_h = s->h,
                     .block_w = s->w,
                     .flag_bits = s->flag_bits,
                     .tile = s->tile,
                     .wg = 32,
                     .strategy = 1,
                     .cache = 1,
                     .sync_adjacent = 1,
                     .slices = s->format == SPMV_BCCOO_PLUS ? s->slices : 1,
                     .csr_vec = 1,
                     .online = s->online,
                     .interleave = s->interleave,
                     .vload = s->vload,
                     .prefetch = 1};
    int64_t block_cols = ((int64_t)A->cols + s->w - 1) / s->w;
    c.col = s->col == SPMV_COL_SHORT && block_cols > 65535 ? SPMV_COL_INT : s->col;
    c.col_delta = c.col == SPMV_COL_DELTA;
    c.col_bits = c.col == SPMV_COL_INT ? 32 : 16;
    return c;
}

static void compare(const char *label, const clpk_csr *A, const shape *s, clpk_precision p) {
    spmv_config cfg = config_of(s, A);
    spmv_bccoo one, many;
    clpk_error err = {0};
    if (!CHECK(spmv_bccoo_build_parts(A, &cfg, p, 1, &one, &err) == CLPK_SUCCESS, "%s: %s", label, err.message)) return;
    static const int parts[] = {3, 64};
    for (int i = 0; i < 2; ++i) {
        if (!CHECK(spmv_bccoo_build_parts(A, &cfg, p, parts[i], &many, &err) == CLPK_SUCCESS, "%s: %s", label,
                   err.message))
            continue;
        CHECK(spmv_util_same_image(&one, &many),
              "%s: %d parts differ from 1 (format %d block %dx%d slices %d col %d tile %d flags %d online %d "
              "interleave %d vload %d %s)",
              label, parts[i], s->format, s->h, s->w, cfg.slices, cfg.col, s->tile, s->flag_bits, s->online,
              s->interleave, s->vload, clpk_precision_name(p));
        spmv_bccoo_free(&many);
    }
    /* the default (one part per online core) as well */
    if (CHECK(spmv_bccoo_build(A, &cfg, p, &many, &err) == CLPK_SUCCESS, "%s: %s", label, err.message)) {
        CHECK(spmv_util_same_image(&one, &many), "%s: the default parts differ from 1", label);
        spmv_bccoo_free(&many);
    }
    spmv_bccoo_free(&one);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_csr mats[5];
    const char *labels[5] = {"irregular", "irregular-wide", "longrow", "powerlaw", "random"};
    int ok = make_irregular(20000, 3000, 3000, &rng, &mats[0]) && make_irregular(9000, 150000, 120000, &rng, &mats[1]);
    clpk_error err = {0};
    ok = ok && clpk_spmv_generate("longrow:6000:90000:5000", check_rand(&rng), &mats[2], &err) == CLPK_SUCCESS &&
         clpk_spmv_generate("powerlaw:20000", check_rand(&rng), &mats[3], &err) == CLPK_SUCCESS &&
         clpk_spmv_generate("random:7001:70001:9", check_rand(&rng), &mats[4], &err) == CLPK_SUCCESS;
    if (!CHECK(ok, "matrices: %s", err.message)) return check_summary();

    static const shape shapes[] = {
        {SPMV_BCCOO, 1, 1, 1, SPMV_COL_INT, 16, 32, 0, 0, 0},
        {SPMV_BCCOO, 1, 1, 1, SPMV_COL_SHORT, 7, 8, 0, 1, 0},
        {SPMV_BCCOO, 1, 1, 1, SPMV_COL_DELTA, 32, 16, 1, 0, 0},
        {SPMV_BCCOO, 1, 1, 1, SPMV_COL_DELTA, 12, 8, 0, 1, 1},
        {SPMV_BCCOO, 1, 2, 1, SPMV_COL_INT, 8, 8, 0, 1, 1},
        {SPMV_BCCOO, 2, 2, 1, SPMV_COL_SHORT, 16, 16, 1, 0, 1},
        {SPMV_BCCOO, 3, 4, 1, SPMV_COL_DELTA, 10, 32, 0, 1, 1},
        {SPMV_BCCOO, 4, 1, 1, SPMV_COL_INT, 24, 8, 1, 1, 0},
        {SPMV_BCCOO_PLUS, 1, 1, 3, SPMV_COL_INT, 16, 32, 0, 0, 0},
        {SPMV_BCCOO_PLUS, 2, 4, 4, SPMV_COL_SHORT, 9, 16, 0, 1, 1},
        {SPMV_BCCOO_PLUS, 1, 2, 8, SPMV_COL_DELTA, 16, 8, 1, 0, 0},
        {SPMV_BCCOO_PLUS, 4, 4, 2, SPMV_COL_INT, 8, 32, 0, 1, 1},
    };
    int n_shapes = (int)(sizeof shapes / sizeof shapes[0]);
    for (int m = 0; m < 5; ++m)
        for (int s = 0; s < n_shapes; ++s)
            compare(labels[m], &mats[m], &shapes[s], (m + s) % 2 ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32);

    /* an empty matrix and one of empty rows only */
    clpk_csr empty = {0, 10, 0, (int64_t[]){0}, NULL, NULL};
    int64_t zero_rp[41] = {0};
    clpk_csr hollow = {40, 10, 0, zero_rp, NULL, NULL};
    compare("empty", &empty, &shapes[0], CLPK_PRECISION_F32);
    compare("hollow", &hollow, &shapes[9], CLPK_PRECISION_F64);
    for (int m = 0; m < 5; ++m)
        spmv_util_free(&mats[m]);
    return check_summary();
}
