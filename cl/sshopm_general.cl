/* SS-HOPM general gradient provider: loops over the U unique entries with the index tables (seed 002, Algorithms 2
 * and 3), any (m, n) up to (8, 8) at run time. The per-(m, n) generated kernels replace this for speed; this one
 * stays as the fallback for large U and as the reference the generated ones are tested against.
 *
 * gcoef[u*m + p] is (m-1)!/(k - e_j)! when position p is the first occurrence of index j = rep[u*m + p] in class u,
 * else 0: y_j gets a_u * gcoef * (product of x over the other positions). */
#define DIM n_rt
#define DIM_CAP SSHOPM_MAX_DIM

VALUE_T sshopm_gradient(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, SSHOPM_TABLE_PARAMS);
VALUE_T sshopm_gradient(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, SSHOPM_TABLE_PARAMS) {
    for (int j = 0; j < n_rt; ++j) y[j] = (VALUE_T)0;
    for (int u = 0; u < U_rt; ++u) {
        __global const uchar *r = rep + u * m_rt;
        __global const VALUE_T *c = gcoef + u * m_rt;
        VALUE_T prefix[SSHOPM_MAX_ORDER + 1];
        prefix[0] = (VALUE_T)1;
        for (int p = 0; p < m_rt; ++p) prefix[p + 1] = prefix[p] * x[r[p]];
        const VALUE_T au = A[u];
        VALUE_T suffix = (VALUE_T)1;
        for (int p = m_rt - 1; p >= 0; --p) {
            const VALUE_T cp = c[p];
            if (cp != (VALUE_T)0) y[r[p]] += au * cp * prefix[p] * suffix;
            suffix *= x[r[p]];
        }
    }
    VALUE_T lambda = (VALUE_T)0;
    for (int j = 0; j < n_rt; ++j) lambda += x[j] * y[j];
    return lambda;
}

/* sum_u mult_u a_u^2 = ||A||_F^2 (dense Frobenius norm), for the convergence-guaranteeing shift. */
VALUE_T sshopm_frob2(ENTRY_SPACE const VALUE_T *A, SSHOPM_TABLE_PARAMS);
VALUE_T sshopm_frob2(ENTRY_SPACE const VALUE_T *A, SSHOPM_TABLE_PARAMS) {
    VALUE_T s = (VALUE_T)0;
    for (int u = 0; u < U_rt; ++u) s += mult[u] * A[u] * A[u];
    return s;
}

#if SSHOPM_ADAPTIVE || SSHOPM_REDUCE
/* H = A x^(m-2) (n x n, full): H_ij = sum_u a_u mult_u k_i (k_j - delta_ij) / (m (m-1)) x^(k - e_i - e_j). */
void sshopm_hessian(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *h, SSHOPM_TABLE_PARAMS);
void sshopm_hessian(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *h, SSHOPM_TABLE_PARAMS) {
    for (int i = 0; i < n_rt * n_rt; ++i) h[i] = (VALUE_T)0;
    const VALUE_T scale = (VALUE_T)1 / (VALUE_T)(m_rt * (m_rt - 1));
    for (int u = 0; u < U_rt; ++u) {
        __global const uchar *r = rep + u * m_rt;
        const VALUE_T au = A[u] * mult[u] * scale;
        /* Runs of equal indices: (value, start, length). */
        for (int p1 = 0; p1 < m_rt; ++p1) {
            if (p1 > 0 && r[p1] == r[p1 - 1]) continue;
            int len1 = 1;
            while (p1 + len1 < m_rt && r[p1 + len1] == r[p1]) ++len1;
            for (int p2 = p1; p2 < m_rt; ++p2) {
                if (p2 > p1 && r[p2] == r[p2 - 1]) continue;
                int len2 = 1;
                while (p2 + len2 < m_rt && r[p2 + len2] == r[p2]) ++len2;
                int skip2 = p2;
                VALUE_T c;
                if (p2 == p1) {
                    if (len1 < 2) continue;
                    skip2 = p1 + 1;
                    c = (VALUE_T)(len1 * (len1 - 1));
                } else {
                    c = (VALUE_T)(len1 * len2);
                }
                VALUE_T prod = (VALUE_T)1;
                for (int p = 0; p < m_rt; ++p)
                    if (p != p1 && p != skip2) prod *= x[r[p]];
                h[r[p1] * n_rt + r[p2]] += au * c * prod;
            }
        }
    }
    for (int i = 0; i < n_rt; ++i)
        for (int j = 0; j < i; ++j) h[i * n_rt + j] = h[j * n_rt + i];
}
#endif

#if SSHOPM_ADAPTIVE
/* The adaptive shift's step: H = A x^(m-2), the gradient y = H x (= A x^(m-1)), Gershgorin bounds
 * lo <= lambda_min(H), hi >= lambda_max(H); returns lambda = x . y. */
VALUE_T sshopm_hessian_step(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, VALUE_T *lo, VALUE_T *hi,
                            SSHOPM_TABLE_PARAMS);
VALUE_T sshopm_hessian_step(ENTRY_SPACE const VALUE_T *A, const VALUE_T *x, VALUE_T *y, VALUE_T *lo, VALUE_T *hi,
                            SSHOPM_TABLE_PARAMS) {
    VALUE_T h[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
    sshopm_hessian(A, x, h, SSHOPM_TABLE_ARGS);
    VALUE_T l = (VALUE_T)INFINITY, g = -(VALUE_T)INFINITY, lambda = (VALUE_T)0;
    for (int i = 0; i < n_rt; ++i) {
        VALUE_T radius = (VALUE_T)0, yi = (VALUE_T)0;
        for (int j = 0; j < n_rt; ++j) {
            yi = fma(h[i * n_rt + j], x[j], yi);
            if (j != i) radius += fabs(h[i * n_rt + j]);
        }
        y[i] = yi;
        lambda = fma(x[i], yi, lambda);
        l = fmin(l, h[i * n_rt + i] - radius);
        g = fmax(g, h[i * n_rt + i] + radius);
    }
    *lo = l;
    *hi = g;
    return lambda;
}
#endif

#define SSHOPM_ORDER_EXPR m_rt
