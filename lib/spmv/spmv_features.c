/* The SpMV feature pass (see spmv_features.h). Rows are read in windows of 96 (a multiple of every block height
 * 1..4, and of the 32-row groups the x locality is counted over), all of them or an evenly spaced sample, split
 * over threads; each thread keeps its own sums, added at the end. */
#include "spmv_features.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const int spmv_shapes[SPMV_SHAPE_COUNT][2] = {{1, 1}, {1, 2}, {1, 4}, {2, 1}, {2, 2}, {2, 4},
                                              {3, 1}, {3, 2}, {3, 4}, {4, 1}, {4, 2}, {4, 4}};

enum { WINDOW_ROWS = 96, LOCALITY_ROWS = 32, MAX_THREADS = CORE_MAX_PARTS };

typedef struct sums {
    double blocks[SPMV_SHAPE_COUNT]; /* indexed like spmv_shapes */
    double lines[2];
    double nnz, jump, jumps, span, spanned, rows;
    double far; /* nonzeros whose column lies >= 32768 from the previous one's in row-major order */
} sums;

typedef struct job {
    const clpk_csr *A;
    int64_t windows, picked; /* windows in the matrix, windows read */
    int thread, threads;
    int32_t *scratch;
    size_t scratch_size;
    sums s;
    int failed; /* out of memory */
} job;

/* Distinct block columns of width 1, 2 and 4 over rows [r0, r0 + h) (columns sorted within each row): a merge of
 * the h rows that keeps the last block column seen per width. */
static void count_block_row(const clpk_csr *A, int32_t r0, int h, double *out /* [3]: w = 1, 2, 4 */) {
    int64_t at[4], end[4];
    int n = 0;
    for (int i = 0; i < h && r0 + i < A->rows; ++i, ++n) {
        at[n] = A->row_ptr[r0 + i];
        end[n] = A->row_ptr[r0 + i + 1];
    }
    int64_t last[3] = {-1, -1, -1};
    for (;;) {
        int best = -1;
        for (int i = 0; i < n; ++i)
            if (at[i] < end[i] && (best < 0 || A->col[at[i]] < A->col[at[best]])) best = i;
        if (best < 0) break;
        int32_t c = A->col[at[best]++];
        for (int w = 0; w < 3; ++w) {
            int64_t b = c >> w; /* widths 1, 2, 4 */
            if (b != last[w]) {
                out[w] += 1;
                last[w] = b;
            }
        }
    }
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Distinct x lines of f32 (16 values) and f64 (8 values) touched by rows [r0, r0 + n). */
static int count_lines(job *j, int32_t r0, int32_t n) {
    const clpk_csr *A = j->A;
    int32_t r1 = r0 + n < A->rows ? r0 + n : A->rows;
    size_t count = (size_t)(A->row_ptr[r1] - A->row_ptr[r0]);
    if (count == 0) return 0;
    if (count > j->scratch_size) {
        int32_t *grown = realloc(j->scratch, count * sizeof *grown);
        if (!grown) return -1;
        j->scratch = grown;
        j->scratch_size = count;
    }
    memcpy(j->scratch, A->col + A->row_ptr[r0], count * sizeof *j->scratch);
    qsort(j->scratch, count, sizeof *j->scratch, cmp_i32);
    for (int p = 0; p < 2; ++p) {
        int shift = p == 0 ? 4 : 3;
        int32_t last = -1;
        for (size_t i = 0; i < count; ++i) {
            int32_t line = j->scratch[i] >> shift;
            if (line != last) {
                j->s.lines[p] += 1;
                last = line;
            }
        }
    }
    return 0;
}

static void read_window(job *j, int64_t window) {
    const clpk_csr *A = j->A;
    int32_t w0 = (int32_t)(window * WINDOW_ROWS);
    for (int hi = 0; hi < 4; ++hi) {
        int h = hi + 1;
        for (int32_t r = w0; r < w0 + WINDOW_ROWS && r < A->rows; r += h) {
            double distinct[3] = {0, 0, 0};
            count_block_row(A, r, h, distinct);
            for (int w = 0; w < 3; ++w)
                j->s.blocks[hi * 3 + w] += distinct[w];
        }
    }
    for (int32_t r = w0; r < w0 + WINDOW_ROWS && r < A->rows; r += LOCALITY_ROWS)
        if (count_lines(j, r, LOCALITY_ROWS) != 0) j->failed = 1;
    int32_t prev = 0;
    for (int32_t r = w0; r < w0 + WINDOW_ROWS && r < A->rows; ++r) {
        int64_t k0 = A->row_ptr[r], k1 = A->row_ptr[r + 1];
        for (int64_t k = k0; k < k1; ++k) {
            int64_t step = (int64_t)A->col[k] - prev;
            j->s.far += step >= 32768 || step <= -32768;
            prev = A->col[k];
        }
        j->s.rows += 1;
        j->s.nnz += (double)(k1 - k0);
        if (k1 == k0) continue;
        for (int64_t k = k0 + 1; k < k1; ++k)
            j->s.jump += (double)(A->col[k] - A->col[k - 1]);
        j->s.jumps += (double)(k1 - k0 - 1);
        j->s.span += (double)(A->col[k1 - 1] - A->col[k0] + 1) / (double)A->cols;
        j->s.spanned += 1;
    }
}

static void *run_job(void *arg) {
    job *j = arg;
    for (int64_t i = j->thread; i < j->picked && !j->failed; i += j->threads)
        read_window(j, j->picked == j->windows ? i : (int64_t)((double)i * (double)j->windows / (double)j->picked));
    return NULL;
}

/* Exact row-length statistics from row_ptr alone. */
static void row_statistics(const clpk_csr *A, spmv_matrix_features *f) {
    enum { BINS = 4096 };
    static const double quantile = 0.99;
    int64_t *hist = calloc(BINS + 1, sizeof *hist);
    double sum = 0, sum2 = 0;
    int64_t empty = 0, max = 0, in_long = 0;
    for (int32_t r = 0; r < A->rows; ++r) {
        int64_t n = A->row_ptr[r + 1] - A->row_ptr[r];
        if (n > SPMV_LONG_ROW) in_long += n;
        sum += (double)n;
        sum2 += (double)n * (double)n;
        empty += n == 0;
        if (n > max) max = n;
        if (hist) ++hist[n < BINS ? n : BINS];
    }
    double rows = A->rows > 0 ? (double)A->rows : 1;
    f->row_mean = sum / rows;
    double var = sum2 / rows - f->row_mean * f->row_mean;
    f->row_cv = f->row_mean > 0 ? sqrt(var > 0 ? var : 0) / f->row_mean : 0;
    f->row_max = max;
    f->empty_rows = (double)empty / rows;
    f->long_row_share = A->nnz > 0 ? (double)in_long / (double)A->nnz : 0;
    f->row_p99 = max;
    if (hist) {
        int64_t below = 0, target = (int64_t)ceil(quantile * (double)A->rows);
        for (int b = 0; b < BINS; ++b) {
            below += hist[b];
            if (below >= target) {
                f->row_p99 = b;
                break;
            }
        }
        free(hist);
    }
}

clpk_status spmv_matrix_features_compute(const clpk_csr *A, int threads, int64_t sample_rows, spmv_matrix_features *f,
                                         clpk_error *err) {
    double t0 = core_wall_seconds();
    memset(f, 0, sizeof *f);
    CLPK_TRY(spmv_csr_validate(A, err));
    f->rows = A->rows;
    f->cols = A->cols;
    f->nnz = A->nnz;
    row_statistics(A, f);
    /* About 4 M nonzeros read keeps the pass near 0.1 s on two cores; never fewer than 64 windows. */
    if (sample_rows <= 0) sample_rows = (int64_t)(4e6 / (f->row_mean > 1 ? f->row_mean : 1)) + 64 * WINDOW_ROWS;
    int64_t windows = ((int64_t)A->rows + WINDOW_ROWS - 1) / WINDOW_ROWS;
    int64_t picked = (sample_rows + WINDOW_ROWS - 1) / WINDOW_ROWS;
    if (picked > windows) picked = windows;
    if (threads <= 0) threads = core_parallel_parts(MAX_THREADS, 1);
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads > picked) threads = picked > 0 ? (int)picked : 1;
    job jobs[MAX_THREADS];
    for (int t = 0; t < threads; ++t)
        jobs[t] = (job){.A = A, .windows = windows, .picked = picked, .thread = t, .threads = threads};
    core_parallel_run(run_job, jobs, sizeof jobs[0], threads);
    sums s = {0};
    int failed = 0;
    for (int t = 0; t < threads; ++t) {
        for (int i = 0; i < SPMV_SHAPE_COUNT; ++i)
            s.blocks[i] += jobs[t].s.blocks[i];
        for (int p = 0; p < 2; ++p)
            s.lines[p] += jobs[t].s.lines[p];
        s.nnz += jobs[t].s.nnz;
        s.jump += jobs[t].s.jump;
        s.jumps += jobs[t].s.jumps;
        s.span += jobs[t].s.span;
        s.spanned += jobs[t].s.spanned;
        s.rows += jobs[t].s.rows;
        s.far += jobs[t].s.far;
        failed |= jobs[t].failed;
        free(jobs[t].scratch);
    }
    if (failed) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv features: out of memory");
    double scale = s.nnz > 0 ? (double)A->nnz / s.nnz : 0; /* sampled -> whole matrix, by nonzeros */
    for (int i = 0; i < SPMV_SHAPE_COUNT; ++i) {
        f->blocks[i] = s.blocks[i] * scale;
        double cells = f->blocks[i] * spmv_shapes[i][0] * spmv_shapes[i][1];
        f->fill[i] = cells > 0 ? (double)A->nnz / cells : 1.0;
    }
    for (int p = 0; p < 2; ++p)
        f->x_lines_per_nnz[p] = s.nnz > 0 ? s.lines[p] / s.nnz : 0;
    f->col_jump_mean = s.jumps > 0 ? s.jump / s.jumps : 0;
    f->far_steps = s.nnz > 0 ? s.far / s.nnz : 0;
    f->row_span = s.spanned > 0 ? s.span / s.spanned : 0;
    f->sampled_rows = A->rows > 0 ? s.rows / A->rows : 1;
    f->seconds = core_wall_seconds() - t0;
    return CLPK_SUCCESS;
}

double spmv_shape_bytes_per_nnz(const clpk_csr *A, const spmv_matrix_features *f, int shape, const spmv_config *cfg,
                                clpk_precision precision) {
    if (shape < 0 || shape >= SPMV_SHAPE_COUNT || A->nnz <= 0) return 0;
    spmv_config c = *cfg;
    c.block_h = spmv_shapes[shape][0];
    c.block_w = spmv_shapes[shape][1];
    return (double)spmv_bccoo_footprint(A, &c, precision, (int64_t)llround(f->blocks[shape]), 0) / (double)A->nnz;
}
