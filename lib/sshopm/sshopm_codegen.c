/* Code generator: the SS-HOPM gradient A x^(m-1) of one (m, n) as straight-line OpenCL C with literal coefficients
 * and shared monomials. Every degree-(m-1) monomial mu of x is formed once (one multiply from its degree-(m-2)
 * prefix, itself shared), scaled by its literal multinomial (m-1)!/mu!, and feeds one fused multiply-add into each
 * output component: y_j += a[rank(mu + e_j)] * w_mu. The coefficient (m-1)!/(k - e_j)! of entry k in y_j depends only
 * on mu = k - e_j, which is why one scaled monomial serves all n components.
 *
 * Order 4 with private entries takes a cheaper form (emit_order4_private): f = A x^4 = q^T M q over the n(n+1)/2
 * quadratic monomials q, so y = A x^3 = grad f / 4 = sum_j x_j s_{kj} with s = S q, S = M with its cross rows halved:
 * (4,3) needs 6 + 24 + 9 operations against the scheme above's 6 + 10 + 30. */
#include "sshopm_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct text_buf {
    char *data;
    size_t len, cap;
    int failed;
} text_buf;

__attribute__((format(printf, 2, 3))) static void emit(text_buf *b, const char *fmt, ...) {
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->data ? b->data + b->len : NULL, b->data ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->failed = 1;
            return;
        }
        if (b->data && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->len + (size_t)k + 1) cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
}

int64_t sshopm_unrolled_terms(int m, int n) { return n * sshopm_multiset_count(n, m - 1); }

/* Operations of one start-iteration in cl/sshopm_driver.cl around the gradient (fixed or bound shift, xtol off):
 * y += shift x and ||y||^2 (2n FMAs), sign * rsqrt (1 multiply, 1 rsqrt), x = y * inv (n multiplies), the block's
 * smallest |lambda step| (1 subtraction, 1 fmin). Must follow the driver's loop body. */
static void add_driver_ops(int n, sshopm_op_counts *c) {
    c->fma += 2 * n;
    c->mul += n + 1;
    c->add += 1;
    c->special += 1;
    c->other += 1;
}

clpk_status sshopm_iteration_ops(int m, int n, int private_entries, sshopm_op_counts *ops) {
    sshopm_index idx;
    clpk_error err;
    CLPK_TRY(sshopm_index_build(m, n, &idx, &err));
    sshopm_op_counts counts[2];
    char *text = sshopm_generate_unrolled_counted(&idx, counts);
    sshopm_index_free(&idx);
    if (!text) return CLPK_ERROR_OUT_OF_MEMORY;
    free(text);
    *ops = counts[private_entries ? 0 : 1];
    add_driver_ops(n, ops);
    ops->flops = 2.0 * (double)ops->fma + (double)ops->mul + (double)ops->add;
    return CLPK_SUCCESS;
}

double sshopm_iteration_flops(int m, int n) {
    sshopm_op_counts ops;
    if (sshopm_iteration_ops(m, n, 1, &ops) != CLPK_SUCCESS) return 0;
    return ops.flops;
}

/* Variable name of the monomial with nondecreasing index tuple idx[0..d-1]: x3 for degree 1, p013 above. */
static void monomial_name(const int *idx, int d, char *out) {
    if (d == 1) {
        sprintf(out, "x%d", idx[0]);
        return;
    }
    out[0] = 'p';
    for (int i = 0; i < d; ++i) out[1 + i] = (char)('0' + idx[i]);
    out[1 + d] = '\0';
}

/* Advances a nondecreasing tuple over n symbols; returns 0 after the last one. */
static int next_tuple(int *idx, int d, int n) {
    int p = d - 1;
    while (p >= 0 && idx[p] == n - 1) --p;
    if (p < 0) return 0;
    int v = idx[p] + 1;
    for (int q = p; q < d; ++q) idx[q] = v;
    return 1;
}

static double factorial(int k) {
    double f = 1;
    for (int i = 2; i <= k; ++i) f *= i;
    return f;
}

/* One step of the adaptive shift, unrolled the same way: H = A x^(m-2) with H_ij = sum over degree-(m-2) monomials
 * nu of a[rank(nu + e_i + e_j)] ((m-2)!/nu!) x^nu (the coefficient of entry k in H_ij is (m-2)!/(k - e_i - e_j)!, a
 * function of nu alone), then the gradient y = H x (n^2 FMAs: no second expansion), lambda = x . y and H's Gershgorin
 * bounds lo <= lambda_min, hi >= lambda_max for the next shift. Takes the plain entries. */
static void emit_hessian_step(text_buf *b, const sshopm_index *idx) {
    const int m = idx->m, n = idx->n, d = m - 2;
    int tup[SSHOPM_MAX_ORDER], counts[SSHOPM_MAX_DIM];
    char name[16], prefix[16];
    emit(b, "\n#if SSHOPM_ADAPTIVE\n");
    emit(b, "VALUE_T sshopm_hessian_step(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, VALUE_T *lo, "
            "VALUE_T *hi, SSHOPM_TABLE_PARAMS);\n");
    emit(b, "VALUE_T sshopm_hessian_step(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, VALUE_T *lo, "
            "VALUE_T *hi, SSHOPM_TABLE_PARAMS) {\n");
    for (int i = 0; i < n; ++i) emit(b, "    const VALUE_T x%d = x[%d];\n", i, i);
    for (int dd = 2; dd <= d - 1; ++dd) {
        for (int i = 0; i < dd; ++i) tup[i] = 0;
        do {
            monomial_name(tup, dd, name);
            monomial_name(tup, dd - 1, prefix);
            emit(b, "    const VALUE_T %s = %s * x%d;\n", name, prefix, tup[dd - 1]);
        } while (next_tuple(tup, dd, n));
    }
    for (int i = 0; i < n; ++i)
        for (int j = i; j < n; ++j) emit(b, "    VALUE_T h%d_%d;\n", i, j);
    for (int i = 0; i < d; ++i) tup[i] = 0;
    int first = 1;
    do {
        for (int i = 0; i < n; ++i) counts[i] = 0;
        for (int i = 0; i < d; ++i) counts[tup[i]]++;
        double den = 1;
        for (int i = 0; i < n; ++i) den *= factorial(counts[i]);
        const double c = factorial(d) / den;
        char product[48];
        if (d == 0)
            sprintf(product, "(VALUE_T)1");
        else if (d == 1)
            sprintf(product, "x%d", tup[0]);
        else {
            monomial_name(tup, d - 1, prefix);
            sprintf(product, "%s * x%d", prefix, tup[d - 1]);
        }
        if (c == 1)
            emit(b, "    {\n        const VALUE_T w = %s;\n", product);
        else
            emit(b, "    {\n        const VALUE_T w = (VALUE_T)%.0f * (%s);\n", c, product);
        for (int i = 0; i < n; ++i)
            for (int j = i; j < n; ++j) {
                counts[i]++;
                counts[j]++;
                const int u = sshopm_rank_mono(m, n, counts);
                counts[i]--;
                counts[j]--;
                if (first)
                    emit(b, "        h%d_%d = A[%d] * w;\n", i, j, u);
                else
                    emit(b, "        h%d_%d = fma(A[%d], w, h%d_%d);\n", i, j, u, i, j);
            }
        emit(b, "    }\n");
        first = 0;
    } while (d > 0 && next_tuple(tup, d, n));
#define H_NAME(i, j) ((i) < (j) ? (i) : (j)), ((i) < (j) ? (j) : (i))
    for (int i = 0; i < n; ++i) {
        emit(b, "    VALUE_T y%d_ = h%d_%d * x0", i, H_NAME(i, 0));
        for (int j = 1; j < n; ++j) emit(b, ";\n    y%d_ = fma(h%d_%d, x%d, y%d_)", i, H_NAME(i, j), j, i);
        emit(b, ";\n    y[%d] = y%d_;\n", i, i);
    }
    emit(b, "    VALUE_T lambda = x0 * y0_;\n");
    for (int i = 1; i < n; ++i) emit(b, "    lambda = fma(x%d, y%d_, lambda);\n", i, i);
    emit(b, "    VALUE_T l = (VALUE_T)INFINITY, g = -(VALUE_T)INFINITY, r;\n");
    for (int i = 0; i < n; ++i) {
        emit(b, "    r = (VALUE_T)0");
        for (int j = 0; j < n; ++j)
            if (j != i) emit(b, " + fabs(h%d_%d)", j < i ? j : i, j < i ? i : j);
        emit(b, ";\n    l = fmin(l, h%d_%d - r);\n    g = fmax(g, h%d_%d + r);\n", i, i, i, i);
    }
    emit(b, "    *lo = l;\n    *hi = g;\n    return lambda;\n}\n#endif\n");
#undef H_NAME
}

/* Order 4, private entries: the nonzeros of S, row by row (rows and columns are the quadratic monomials q_a = x_i x_j,
 * i <= j, in next_tuple order). Each quartic monomial k is one product q_a q_b: the square of a quadratic monomial
 * where k's exponents are all even (one nonzero: M_aa = mult a_k), else the first pair found (M_ab = M_ba =
 * mult a_k / 2); row a of S is halved for a cross monomial (grad of x_i x_j has one term per variable, of x_i^2 two).
 * Calls visit(ctx, row, col, entry rank, coefficient) in storage order and returns the count. */
typedef void (*order4_visit)(void *ctx, int row, int col, int entry, double coeff);

static int order4_pairs(int n, int (*pairs)[2]) {
    int tup[2] = {0, 0}, count = 0;
    do {
        pairs[count][0] = tup[0];
        pairs[count][1] = tup[1];
        ++count;
    } while (next_tuple(tup, 2, n));
    return count;
}

/* The position of x_i x_j (i <= j) in order4_pairs' order. */
static int pair_index(int n, int i, int j) { return i * n - i * (i - 1) / 2 + (j - i); }

static int order4_nonzeros(const sshopm_index *idx, order4_visit visit, void *ctx) {
    const int n = idx->n;
    int pairs[SSHOPM_MAX_DIM * (SSHOPM_MAX_DIM + 1) / 2][2];
    const int Q = order4_pairs(n, pairs);
    int count = 0;
    for (int a = 0; a < Q; ++a)
        for (int b = 0; b < Q; ++b) {
            int k[SSHOPM_MAX_DIM] = {0};
            k[pairs[a][0]]++, k[pairs[a][1]]++, k[pairs[b][0]]++, k[pairs[b][1]]++;
            /* the pair that represents k (its indices sorted, s0 <= s1 <= s2 <= s3): (x_s0 x_s2)^2 when all
             * exponents are even, else (x_s0 x_s1)(x_s2 x_s3) */
            int sorted[4], at = 0, all_even = 1;
            for (int i = 0; i < n; ++i) {
                all_even &= k[i] % 2 == 0;
                for (int c = 0; c < k[i]; ++c) sorted[at++] = i;
            }
            const int ra = all_even ? pair_index(n, sorted[0], sorted[2]) : pair_index(n, sorted[0], sorted[1]);
            const int rb = all_even ? ra : pair_index(n, sorted[2], sorted[3]);
            if (!((ra == a && rb == b) || (ra == b && rb == a))) continue;
            const int u = sshopm_rank_mono(4, n, k);
            const double m_ab = a == b ? idx->mult[u] : idx->mult[u] / 2;
            const double row_scale = pairs[a][0] == pairs[a][1] ? 1.0 : 0.5;
            if (visit) visit(ctx, a, b, u, m_ab * row_scale);
            ++count;
        }
    return count;
}

typedef struct order4_emit {
    text_buf *b;
    int pairs[SSHOPM_MAX_DIM * (SSHOPM_MAX_DIM + 1) / 2][2];
    int next, row;
    sshopm_op_counts *ops;
} order4_emit;

static void order4_emit_load(void *ctx, int row, int col, int entry, double coeff) {
    order4_emit *e = ctx;
    (void)row;
    (void)col;
    if (coeff == 1)
        emit(e->b, " A[%d] = r%d_;", e->next++, entry);
    else
        emit(e->b, " A[%d] = (VALUE_T)%.17g * r%d_;", e->next++, coeff, entry);
}

static void order4_emit_row(void *ctx, int row, int col, int entry, double coeff) {
    order4_emit *e = ctx;
    (void)entry;
    (void)coeff;
    const int *r = e->pairs[row], *c = e->pairs[col];
    if (row != e->row) {
        emit(e->b, "    VALUE_T s%d%d = A[%d] * p%d%d;\n", r[0], r[1], e->next++, c[0], c[1]);
        e->ops->mul++;
        e->row = row;
    } else {
        emit(e->b, "    s%d%d = fma(A[%d], p%d%d, s%d%d);\n", r[0], r[1], e->next++, c[0], c[1], r[0], r[1]);
        e->ops->fma++;
    }
}

/* The gradient's body for order 4 with private entries (after x0.. and the quadratic monomials p00..): the rows
 * s = S q, then y_k = sum_j x_j s_{kj}. */
static void emit_order4_private(text_buf *b, const sshopm_index *idx, sshopm_op_counts *ops) {
    const int n = idx->n;
    order4_emit e = {b, {{0}}, 0, -1, ops};
    order4_pairs(n, e.pairs);
    order4_nonzeros(idx, order4_emit_row, &e);
    for (int k = 0; k < n; ++k) {
        emit(b, "    y%d = x0 * s0%d;\n", k, k);
        ops->mul++;
        for (int j = 1; j < n; ++j) {
            emit(b, "    y%d = fma(x%d, s%d%d, y%d);\n", k, j, j < k ? j : k, j < k ? k : j, k);
            ops->fma++;
        }
    }
}

char *sshopm_generate_unrolled(const sshopm_index *idx) { return sshopm_generate_unrolled_counted(idx, NULL); }

char *sshopm_generate_unrolled_counted(const sshopm_index *idx, sshopm_op_counts out_counts[2]) {
    const int m = idx->m, n = idx->n, U = idx->U;
    text_buf b = {0};
    /* ops[0]: the gradient with private (pre-multiplied) entries, ops[1]: with local/global entries; counted as the
     * statements are emitted, so they are what the kernel executes (before any compiler rewriting). */
    sshopm_op_counts ops[3]; /* [2]: the scheme not taken with private entries (order 4), discarded */
    memset(ops, 0, sizeof ops);
    emit(&b,
         "/* Generated by clpk (lib/sshopm/sshopm_codegen.c): SS-HOPM gradient for order %d, dimension %d, %d unique "
         "entries. */\n",
         m, n, U);
    emit(&b, "#define SSHOPM_ORDER %d\n#define SSHOPM_DIM %d\n#define SSHOPM_U %d\n", m, n, U);
    emit(&b, "#define DIM %d\n#define DIM_CAP %d\n#define SSHOPM_ORDER_EXPR %d\n", n, n, m);
    const int M1 = (int)sshopm_multiset_count(n, m - 1);
    /* Private entries are stored pre-multiplied: A[j*M1 + i] = ((m-1)!/mu_i!) a[rank(mu_i + e_j)], so the gradient is
     * pure FMAs on unscaled monomials (order 4: the nonzeros of S, order4_nonzeros); ||A||_F^2 comes from the raw
     * entries while loading. */
    const int order4 = m == 4;
    emit(&b, "#define SSHOPM_PRIVATE_COUNT %d\n", order4 ? order4_nonzeros(idx, NULL, NULL) : n * M1);
    emit(&b, "#define SSHOPM_LOAD_PRIVATE(A, RAW, src, frob2) do { __global const VALUE_T *src_ = (src); VALUE_T s_ "
             "= (VALUE_T)0;");
    for (int u = 0; u < U; ++u)
        emit(&b, " const VALUE_T r%d_ = src_[%d]; RAW[%d] = r%d_; s_ = fma((VALUE_T)%.0f * r%d_, r%d_, s_);", u, u, u,
             u, idx->mult[u], u, u);
    if (order4) {
        order4_emit e = {&b, {{0}}, 0, -1, NULL};
        order4_nonzeros(idx, order4_emit_load, &e);
    } else {
        int tp[SSHOPM_MAX_ORDER], cnt[SSHOPM_MAX_DIM];
        for (int i = 0; i < m - 1; ++i) tp[i] = 0;
        int mi = 0;
        do {
            for (int i = 0; i < n; ++i) cnt[i] = 0;
            for (int i = 0; i < m - 1; ++i) cnt[tp[i]]++;
            double den = 1;
            for (int i = 0; i < n; ++i) den *= factorial(cnt[i]);
            double c = factorial(m - 1) / den;
            for (int j = 0; j < n; ++j) {
                cnt[j]++;
                int u = sshopm_rank_mono(m, n, cnt);
                cnt[j]--;
                if (c == 1)
                    emit(&b, " A[%d] = r%d_;", j * M1 + mi, u);
                else
                    emit(&b, " A[%d] = (VALUE_T)%.0f * r%d_;", j * M1 + mi, c, u);
            }
            ++mi;
        } while (next_tuple(tp, m - 1, n));
    }
    emit(&b, " (frob2) = s_; } while (0)\n\n");

    /* ||A||_F^2 with literal multiplicities (local/global entries; private ones get it while loading). */
    emit(&b, "#if SSHOPM_ENTRIES != SSHOPM_ENTRIES_PRIVATE\n");
    emit(&b, "VALUE_T sshopm_frob2(ENTRY_SPACE const VALUE_T *A, SSHOPM_TABLE_PARAMS);\n");
    emit(&b,
         "VALUE_T sshopm_frob2(ENTRY_SPACE const VALUE_T *A, SSHOPM_TABLE_PARAMS) {\n    VALUE_T s = (VALUE_T)0;\n");
    for (int u = 0; u < U; ++u) emit(&b, "    s = fma((VALUE_T)%.0f * A[%d], A[%d], s);\n", idx->mult[u], u, u);
    emit(&b, "    return s;\n}\n#endif\n\n");

    emit(&b, "VALUE_T sshopm_gradient(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, "
             "SSHOPM_TABLE_PARAMS);\n");
    emit(&b, "VALUE_T sshopm_gradient(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, "
             "SSHOPM_TABLE_PARAMS) {\n");
    for (int i = 0; i < n; ++i) emit(&b, "    const VALUE_T x%d = x[%d];\n", i, i);
    /* Shared prefixes: every monomial of degree 2 .. m-2, each one multiply from its own prefix. */
    int tup[SSHOPM_MAX_ORDER];
    char name[16], prefix[16];
    for (int d = 2; d <= m - 2; ++d) {
        for (int i = 0; i < d; ++i) tup[i] = 0;
        do {
            monomial_name(tup, d, name);
            monomial_name(tup, d - 1, prefix);
            emit(&b, "    const VALUE_T %s = %s * x%d;\n", name, prefix, tup[d - 1]);
            ops[0].mul++;
            ops[1].mul++;
        } while (next_tuple(tup, d, n));
    }
    for (int j = 0; j < n; ++j) emit(&b, "    VALUE_T y%d;\n", j);
    if (order4) {
        emit(&b, "#if SSHOPM_ENTRIES == SSHOPM_ENTRIES_PRIVATE\n");
        emit_order4_private(&b, idx, &ops[0]);
        emit(&b, "#else\n");
    }
    /* the private entries' count comes from emit_order4_private there */
    sshopm_op_counts *count_private = order4 ? &ops[2] : &ops[0];
    /* Degree m-1 monomials, scaled by (m-1)!/mu!, each feeding one FMA per output component. */
    const int d = m - 1;
    for (int i = 0; i < d; ++i) tup[i] = 0;
    int counts[SSHOPM_MAX_DIM];
    int mono_index = 0;
    do {
        for (int i = 0; i < n; ++i) counts[i] = 0;
        for (int i = 0; i < d; ++i) counts[tup[i]]++;
        double denom = 1;
        for (int i = 0; i < n; ++i) denom *= factorial(counts[i]);
        double coeff = factorial(d) / denom;
        char product[48];
        if (d == 1) {
            sprintf(product, "x%d", tup[0]);
        } else {
            monomial_name(tup, d - 1, prefix);
            sprintf(product, "%s * x%d", prefix, tup[d - 1]);
        }
        emit(&b, "    {\n#if SSHOPM_ENTRIES == SSHOPM_ENTRIES_PRIVATE\n        const VALUE_T w = %s;\n", product);
        if (d > 1) {
            count_private->mul++;
            ops[1].mul++;
        }
        if (coeff != 1) ops[1].mul++;
        /* the first monomial starts each sum with a multiply (fma(a, w, 0) is not folded without no-signed-zeros) */
        for (int j = 0; j < n; ++j) {
            if (mono_index == 0)
                emit(&b, "        y%d = A[%d] * w;\n", j, j * M1);
            else
                emit(&b, "        y%d = fma(A[%d], w, y%d);\n", j, j * M1 + mono_index, j);
            /* the same statement shape in both variants */
            if (mono_index == 0) {
                count_private->mul++;
                ops[1].mul++;
            } else {
                count_private->fma++;
                ops[1].fma++;
            }
        }
        if (coeff == 1)
            emit(&b, "#else\n        const VALUE_T w = %s;\n", product);
        else
            emit(&b, "#else\n        const VALUE_T w = (VALUE_T)%.0f * (%s);\n", coeff, product);
        for (int j = 0; j < n; ++j) {
            counts[j]++;
            int u = sshopm_rank_mono(m, n, counts);
            counts[j]--;
            if (mono_index == 0)
                emit(&b, "        y%d = A[%d] * w;\n", j, u);
            else
                emit(&b, "        y%d = fma(A[%d], w, y%d);\n", j, u, j);
        }
        emit(&b, "#endif\n    }\n");
        ++mono_index;
    } while (next_tuple(tup, d, n));
    if (order4) emit(&b, "#endif\n");
    for (int j = 0; j < n; ++j) emit(&b, "    y[%d] = y%d;\n", j, j);
    emit(&b, "    VALUE_T lambda = x0 * y0;\n");
    for (int j = 1; j < n; ++j) emit(&b, "    lambda = fma(x%d, y%d, lambda);\n", j, j);
    for (int v = 0; v < 2; ++v) {
        ops[v].mul++;
        ops[v].fma += n - 1;
    }
    emit(&b, "    return lambda;\n}\n");
    emit_hessian_step(&b, idx);
    if (out_counts) memcpy(out_counts, ops, 2 * sizeof ops[0]);
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    return b.data;
}
