/* Generated test matrices of the classes in seed 001's Table III (FEM with dense sub-blocks, 3D stencils, random,
 * power-law, long rows), for tests, the tuner's quick mode and the demo. */
#include "spmv_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rand_value(uint64_t *s) { return (double)(next_rand(s) >> 11) * 0x1.0p-52 - 1.0; }

typedef struct builder {
    clpk_csr *m;
    int64_t cap;
} builder;

static clpk_status builder_init(builder *b, clpk_csr *m, int64_t rows, int64_t cols, int64_t cap, clpk_error *err) {
    memset(m, 0, sizeof *m);
    if (rows < 0 || cols < 0 || rows > INT32_MAX || cols > INT32_MAX)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv generate: size out of range");
    m->rows = (int32_t)rows;
    m->cols = (int32_t)cols;
    m->row_ptr = calloc((size_t)rows + 1, sizeof *m->row_ptr);
    b->cap = cap > 16 ? cap : 16;
    m->col = malloc((size_t)b->cap * sizeof *m->col);
    m->val = malloc((size_t)b->cap * sizeof *m->val);
    b->m = m;
    if (!m->row_ptr || !m->col || !m->val)
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv generate: out of memory");
    return CLPK_SUCCESS;
}

static clpk_status builder_push(builder *b, int32_t c, double v, clpk_error *err) {
    if (b->m->nnz == b->cap) {
        int64_t cap = b->cap * 2;
        int32_t *col = realloc(b->m->col, (size_t)cap * sizeof *col);
        if (col) b->m->col = col;
        double *val = realloc(b->m->val, (size_t)cap * sizeof *val);
        if (val) b->m->val = val;
        if (!col || !val) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv generate: out of memory");
        b->cap = cap;
    }
    b->m->col[b->m->nnz] = c;
    b->m->val[b->m->nnz] = v;
    b->m->nnz++;
    return CLPK_SUCCESS;
}

static int cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Appends about k distinct random columns of [0, cols) to row r (sorted). */
static clpk_status random_row(builder *b, int64_t k, uint64_t *rng, int32_t *scratch, clpk_error *err) {
    int32_t cols = b->m->cols;
    if (cols == 0 || k <= 0) return CLPK_SUCCESS;
    if (k >= cols) {
        for (int32_t c = 0; c < cols; ++c) CLPK_TRY(builder_push(b, c, rand_value(rng), err));
        return CLPK_SUCCESS;
    }
    for (int64_t i = 0; i < k; ++i) scratch[i] = (int32_t)(next_rand(rng) % (uint64_t)cols);
    qsort(scratch, (size_t)k, sizeof *scratch, cmp_i32);
    for (int64_t i = 0; i < k; ++i)
        if (i == 0 || scratch[i] != scratch[i - 1]) CLPK_TRY(builder_push(b, scratch[i], rand_value(rng), err));
    return CLPK_SUCCESS;
}

static void free_partial(clpk_csr *m) {
    free(m->row_ptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* Sorts k candidate columns, drops duplicates and appends the row (values in [-1, 1), the diagonal made dominant). */
static clpk_status push_sorted_row(builder *b, int32_t *cols, int64_t k, int64_t row, uint64_t *rng, clpk_error *err) {
    qsort(cols, (size_t)k, sizeof *cols, cmp_i32);
    for (int64_t i = 0; i < k; ++i) {
        if (i > 0 && cols[i] == cols[i - 1]) continue;
        double v = rand_value(rng);
        CLPK_TRY(builder_push(b, cols[i], cols[i] == row ? 4.0 + v : v, err));
    }
    b->m->row_ptr[row + 1] = b->m->nnz;
    return CLPK_SUCCESS;
}

static int32_t clamp_col(int64_t c, int64_t cols) { return (int32_t)(c < 0 ? 0 : c >= cols ? cols - 1 : c); }

/* The larger classes of seed 001's Table III (sized by the benchmark with its --scale):
 *   fem3d:N     N^3 nodes, 3 unknowns each, 27-point stencil: dense 3x3 node blocks, 81 entries per row
 *   dense:N     N x N dense
 *   protein:N   N rows, ~120 per row in 4 clusters of ~30 consecutive columns near the diagonal
 *   circuit:N   N rows, diagonal + ~5 random columns (1..13), a few rows of a few hundred (irregular)
 *   epidem:N    N rows, 4 per row banded: r-1, r, r+1, r+sqrt(N) (2D grid Markov chain)
 *   webgraph:N  N x N, Zipf row lengths (mean ~7) and Zipf-popular columns (hubs scattered by a permutation)
 *   shortrow:N  N rows, 1..5 per row (~3) around the diagonal and at random
 *   qchem:N     N rows, ~70 per row in pairs spread over a band of +-N/4 (wide bandwidth) */
static clpk_status generate_table3(const char *kind, int64_t n, uint64_t *rng, clpk_csr *out, clpk_error *err) {
    builder b;
    int64_t rows = n, cols = n, per_row = 8, maxk = 512;
    if (!strcmp(kind, "fem3d")) {
        if (n < 1 || n > 400) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "fem3d:N needs 1 <= N <= 400");
        rows = cols = 3 * n * n * n;
        per_row = 81;
    } else if (!strcmp(kind, "dense")) {
        if (n < 1 || n > 30000)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dense:N needs 1 <= N <= 30000");
        per_row = maxk = n;
    } else {
        if (n < 1 || n > 50000000)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "%s:N needs 1 <= N <= 50000000", kind);
        per_row = !strcmp(kind, "protein") ? 120 : !strcmp(kind, "qchem") ? 70 : 8;
    }
    if (rows * per_row > (int64_t)2000000000)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv generate: %s:%lld has too many entries", kind,
                              (long long)n);
    int32_t *sc = malloc((size_t)maxk * sizeof *sc);
    if (!sc) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv generate: out of memory");
    clpk_status st = builder_init(&b, out, rows, cols, rows * per_row, err);
    int64_t side = (int64_t)sqrt((double)n);
    if (side < 1) side = 1;
    for (int64_t r = 0; r < rows && st == CLPK_SUCCESS; ++r) {
        int64_t k = 0;
        if (!strcmp(kind, "fem3d")) {
            int64_t node = r / 3, i = node / (n * n), j = (node / n) % n, l = node % n;
            for (int64_t di = -1; di <= 1; ++di)
                for (int64_t dj = -1; dj <= 1; ++dj)
                    for (int64_t dl = -1; dl <= 1; ++dl) {
                        int64_t ii = i + di, jj = j + dj, ll = l + dl;
                        if (ii < 0 || jj < 0 || ll < 0 || ii >= n || jj >= n || ll >= n) continue;
                        for (int e = 0; e < 3; ++e) sc[k++] = (int32_t)(3 * ((ii * n + jj) * n + ll) + e);
                    }
        } else if (!strcmp(kind, "dense")) {
            for (int64_t c = 0; c < cols; ++c) sc[k++] = (int32_t)c;
        } else if (!strcmp(kind, "protein")) {
            for (int cl = 0; cl < 4; ++cl) {
                int64_t len = 24 + (int64_t)(next_rand(rng) % 13), span = cl == 0 ? 0 : 2000;
                int64_t start = r - len / 2 + (span ? (int64_t)(next_rand(rng) % (uint64_t)(2 * span)) - span : 0);
                for (int64_t t = 0; t < len; ++t) sc[k++] = clamp_col(start + t, cols);
            }
        } else if (!strcmp(kind, "circuit")) {
            sc[k++] = (int32_t)r;
            int64_t extra = next_rand(rng) % 1000 == 0
                                ? 200 + (int64_t)(next_rand(rng) % 200)
                                : 1 + (int64_t)(next_rand(rng) % 4) + (int64_t)(next_rand(rng) % 5);
            for (int64_t t = 0; t < extra; ++t)
                sc[k++] = t % 2 ? (int32_t)(next_rand(rng) % (uint64_t)cols)
                                : clamp_col(r + (int64_t)(next_rand(rng) % 64) - 32, cols);
        } else if (!strcmp(kind, "epidem")) {
            if (r > 0) sc[k++] = (int32_t)(r - 1);
            sc[k++] = (int32_t)r;
            if (r + 1 < cols) sc[k++] = (int32_t)(r + 1);
            if (r + side < cols) sc[k++] = (int32_t)(r + side);
        } else if (!strcmp(kind, "webgraph")) {
            double u = ((double)(next_rand(rng) >> 11) + 1.0) * 0x1.0p-53;
            int64_t len = (int64_t)(1.0 / pow(u, 1.0 / 1.15));
            if (len > maxk) len = maxk;
            for (int64_t t = 0; t < len; ++t) { /* column rank ~ Zipf: popular columns are hubs */
                double v = ((double)(next_rand(rng) >> 11) + 1.0) * 0x1.0p-53;
                uint64_t rank = (uint64_t)((double)cols * pow(v, 3.0));
                sc[k++] = (int32_t)((rank * 2654435761ull) % (uint64_t)cols);
            }
        } else if (!strcmp(kind, "shortrow")) {
            int64_t len = 1 + (int64_t)(next_rand(rng) % 5);
            sc[k++] = (int32_t)r;
            for (int64_t t = 1; t < len; ++t)
                sc[k++] = t % 2 ? (int32_t)(next_rand(rng) % (uint64_t)cols) : clamp_col(r + t, cols);
        } else if (!strcmp(kind, "qchem")) {
            int64_t band = cols / 4 > 1 ? cols / 4 : 1;
            sc[k++] = (int32_t)r;
            for (int t = 0; t < 34; ++t) {
                int64_t off = (int64_t)(next_rand(rng) % (uint64_t)(2 * band)) - band;
                int64_t c = clamp_col(r + off, cols > 1 ? cols - 1 : 1);
                sc[k++] = (int32_t)c;
                sc[k++] = (int32_t)(c + (cols > 1));
            }
        }
        st = push_sorted_row(&b, sc, k, r, rng, err);
    }
    free(sc);
    return st;
}

/* nodes:N:B:K  N nodes of B unknowns each, every node coupled to itself and K others drawn within +-N/64 nodes (an
 * unstructured mesh's graph after a bandwidth-reducing order): dense BxB blocks at irregular block columns. */
static clpk_status generate_nodes(int64_t n, int bs, int k, uint64_t *rng, clpk_csr *out, clpk_error *err) {
    builder b;
    int64_t band = n / 64 > 1 ? n / 64 : 1;
    CLPK_TRY(builder_init(&b, out, n * bs, n * bs, n * bs * (int64_t)(k + 1) * bs, err));
    int32_t nodes[65];
    for (int64_t i = 0; i < n; ++i) {
        nodes[0] = (int32_t)i;
        for (int t = 1; t <= k; ++t)
            nodes[t] = clamp_col(i + (int64_t)(next_rand(rng) % (uint64_t)(2 * band + 1)) - band, n);
        qsort(nodes, (size_t)k + 1, sizeof *nodes, cmp_i32);
        for (int d = 0; d < bs; ++d) {
            int64_t r = i * bs + d;
            for (int t = 0; t <= k; ++t) {
                if (t > 0 && nodes[t] == nodes[t - 1]) continue;
                for (int e = 0; e < bs; ++e) {
                    double v = rand_value(rng);
                    if (nodes[t] == i && e == d) v += 4.0 * (k + 1) * bs; /* diagonally dominant */
                    CLPK_TRY(builder_push(&b, (int32_t)(nodes[t] * bs + e), v, err));
                }
            }
            out->row_ptr[r + 1] = out->nnz;
        }
    }
    return CLPK_SUCCESS;
}

static clpk_status generate(const char *spec, uint64_t seed, clpk_csr *out, clpk_error *err) {
    long long a = 0, b2 = 0, c = 0;
    uint64_t rng = seed ^ 0x5eed5eedull;
    builder b;
    static const char *const table3[] = {"fem3d",    "dense",    "protein", "circuit",
                                         "webgraph", "shortrow", "qchem",   "epidem"};
    for (size_t i = 0; i < sizeof table3 / sizeof table3[0]; ++i) {
        size_t len = strlen(table3[i]);
        if (!strncmp(spec, table3[i], len) && spec[len] == ':') {
            if (sscanf(spec + len + 1, "%lld", &a) != 1)
                return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv generate: %s needs a size N", spec);
            return generate_table3(table3[i], a, &rng, out, err);
        }
    }
    if (sscanf(spec, "fem:%lld", &a) == 1) {
        if (a < 1 || a > 20000) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "fem:N needs 1 <= N <= 20000");
        int64_t n = a, rows = 2 * n * n;
        CLPK_TRY(builder_init(&b, out, rows, rows, rows * 18, err));
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                for (int d = 0; d < 2; ++d) {
                    int64_t r = 2 * (i * n + j) + d;
                    for (int64_t di = -1; di <= 1; ++di)
                        for (int64_t dj = -1; dj <= 1; ++dj) {
                            int64_t ii = i + di, jj = j + dj;
                            if (ii < 0 || jj < 0 || ii >= n || jj >= n) continue;
                            for (int e = 0; e < 2; ++e) {
                                double v = rand_value(&rng);
                                if (di == 0 && dj == 0 && e == d) v = 8.0 + v; /* diagonally dominant */
                                CLPK_TRY(builder_push(&b, (int32_t)(2 * (ii * n + jj) + e), v, err));
                            }
                        }
                    out->row_ptr[r + 1] = out->nnz;
                }
        return CLPK_SUCCESS;
    }
    if (sscanf(spec, "stencil3d:%lld", &a) == 1) {
        if (a < 1 || a > 1000)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "stencil3d:N needs 1 <= N <= 1000");
        int64_t n = a, rows = n * n * n;
        CLPK_TRY(builder_init(&b, out, rows, rows, rows * 7, err));
        const int64_t off[7][3] = {{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}};
        for (int64_t r = 0; r < rows; ++r) {
            int64_t i = r / (n * n), j = (r / n) % n, k = r % n;
            for (int o = 0; o < 7; ++o) {
                int64_t ii = i + off[o][0], jj = j + off[o][1], kk = k + off[o][2];
                if (ii < 0 || jj < 0 || kk < 0 || ii >= n || jj >= n || kk >= n) continue;
                CLPK_TRY(builder_push(&b, (int32_t)((ii * n + jj) * n + kk), o == 3 ? 6.0 : -1.0 + 0.01 * rand_value(&rng),
                                      err));
            }
            out->row_ptr[r + 1] = out->nnz;
        }
        return CLPK_SUCCESS;
    }
    int random = sscanf(spec, "random:%lld:%lld:%lld", &a, &b2, &c) == 3;
    int longrow = !random && sscanf(spec, "longrow:%lld:%lld:%lld", &a, &b2, &c) == 3;
    int power = !random && !longrow && sscanf(spec, "powerlaw:%lld", &a) == 1;
    if (power) b2 = a;
    if (random || longrow || power) {
        if (a < 0 || b2 < 0 || a > 50000000 || b2 > 50000000 || c < 0 || c > 10000000)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv generate: %s: sizes out of range", spec);
        int64_t rows = a, cols = b2;
        int64_t maxk = random ? c : longrow ? (c > 3 ? c : 3) : cols;
        int32_t *scratch = malloc((size_t)(maxk > 0 ? maxk : 1) * sizeof *scratch);
        if (!scratch) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "spmv generate: out of memory");
        clpk_status st = builder_init(&b, out, rows, cols, rows * (random ? c : 8), err);
        for (int64_t r = 0; r < rows && st == CLPK_SUCCESS; ++r) {
            int64_t k;
            if (random) {
                k = c;
            } else if (longrow) {
                k = r % 5 == 0 ? c : r % 4;
            } else { /* power law: P(len >= L) ~ 1/L^1.2, capped */
                double u = ((double)(next_rand(&rng) >> 11) + 1.0) * 0x1.0p-53;
                double len = 1.0 / pow(u, 1.0 / 1.2);
                k = len > (double)cols ? cols : (int64_t)len;
            }
            st = random_row(&b, k, &rng, scratch, err);
            out->row_ptr[r + 1] = out->nnz;
        }
        free(scratch);
        return st;
    }
    if (sscanf(spec, "nodes:%lld:%lld:%lld", &a, &b2, &c) == 3) {
        if (a < 1 || a > 10000000 || b2 < 1 || b2 > 4 || c < 0 || c > 64 || a * b2 > INT32_MAX)
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                                  "nodes:N:B:K needs 1 <= N <= 10000000, 1 <= B <= 4, 0 <= K <= 64");
        return generate_nodes(a, (int)b2, (int)c, &rng, out, err);
    }
    if (!strncmp(spec, "replicate:", 10)) {
        const char *path = strchr(spec + 10, ':');
        if (sscanf(spec + 10, "%lld", &a) != 1 || !path || !path[1])
            return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "spmv generate: %s is not replicate:K:PATH",
                                  spec);
        return spmv_generate_replicated(a, path + 1, seed, out, err);
    }
    return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                          "spmv generate: unknown spec '%s' (fem:N, stencil3d:N, random:R:C:K, powerlaw:N, "
                          "longrow:R:C:L, fem3d:N, dense:N, protein:N, circuit:N, epidem:N, webgraph:N, shortrow:N, "
                          "qchem:N, nodes:N:B:K, replicate:K:PATH)",
                          spec);
}

clpk_status clpk_spmv_generate(const char *spec, uint64_t seed, clpk_csr *out, clpk_error *err) {
    if (!spec || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "clpk_spmv_generate: NULL argument");
    memset(out, 0, sizeof *out);
    clpk_status st = generate(spec, seed, out, err);
    if (st != CLPK_SUCCESS) free_partial(out);
    return st;
}
