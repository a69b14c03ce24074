/* Index tables of the compressed symmetric storage: unique entries in lexicographic order of the nondecreasing
 * index, their monomial representation and multinomial coefficients (seed 002, section 3). */
#include "sshopm_internal.h"

#include <stdlib.h>
#include <string.h>

int64_t sshopm_multiset_count(int values, int len) {
    if (values <= 0) return len == 0 ? 1 : 0;
    /* C(values+len-1, len), exact in int64 for the small sizes used here. */
    int64_t r = 1;
    for (int i = 1; i <= len; ++i) r = r * (values + i - 1) / i;
    return r;
}

int sshopm_unique_count(int m, int n) {
    if (m < SSHOPM_MIN_ORDER || m > SSHOPM_MAX_ORDER || n < SSHOPM_MIN_DIM || n > SSHOPM_MAX_DIM) return 0;
    return (int)sshopm_multiset_count(n, m);
}

int sshopm_rank(int m, int n, const int *rep) {
    /* Tuples before `rep` are those that agree on a prefix and then take a smaller value v >= previous index. */
    int64_t rank = 0;
    int prev = 0;
    for (int p = 0; p < m; ++p) {
        for (int v = prev; v < rep[p]; ++v) rank += sshopm_multiset_count(n - v, m - p - 1);
        prev = rep[p];
    }
    return (int)rank;
}

int sshopm_rank_mono(int m, int n, const int *k) {
    int rep[SSHOPM_MAX_ORDER + 1];
    int p = 0;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < k[i] && p < SSHOPM_MAX_ORDER + 1; ++c) rep[p++] = i;
    return sshopm_rank(m, n, rep);
}

static double factorial(int k) {
    double f = 1;
    for (int i = 2; i <= k; ++i) f *= i;
    return f;
}

clpk_status sshopm_index_build(int m, int n, sshopm_index *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    int U = sshopm_unique_count(m, n);
    if (!U)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "sshopm: order %d and dimension %d out of range (order %d..%d, dimension %d..%d)", m, n,
                              SSHOPM_MIN_ORDER, SSHOPM_MAX_ORDER, SSHOPM_MIN_DIM, SSHOPM_MAX_DIM);
    out->m = m;
    out->n = n;
    out->U = U;
    out->rep = malloc((size_t)U * m);
    out->mono = calloc((size_t)U * n, 1);
    out->mult = malloc((size_t)U * sizeof *out->mult);
    if (!out->rep || !out->mono || !out->mult) {
        sshopm_index_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory for index tables");
    }
    int rep[SSHOPM_MAX_ORDER] = {0};
    for (int u = 0; u < U; ++u) {
        double denom = 1;
        for (int p = 0; p < m; ++p) {
            out->rep[u * m + p] = (uint8_t)rep[p];
            out->mono[u * n + rep[p]]++;
        }
        for (int i = 0; i < n; ++i) denom *= factorial(out->mono[u * n + i]);
        out->mult[u] = factorial(m) / denom;
        /* Next nondecreasing tuple: bump the last position that can grow, reset the tail to it. */
        int p = m - 1;
        while (p >= 0 && rep[p] == n - 1) --p;
        if (p < 0) break;
        int v = rep[p] + 1;
        for (int q = p; q < m; ++q) rep[q] = v;
    }
    return CLPK_SUCCESS;
}

void sshopm_index_free(sshopm_index *idx) {
    if (!idx) return;
    free(idx->rep);
    free(idx->mono);
    free(idx->mult);
    memset(idx, 0, sizeof *idx);
}
