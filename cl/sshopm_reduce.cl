/* SS-HOPM post-processing on the device, one work-item per tensor (built after sshopm_common and sshopm_general,
 * with -DSSHOPM_ENTRIES=1 -DSSHOPM_REDUCE=1): the same rules as the host's clpk_sshopm_postprocess. The converged
 * starts of one run are clustered (|dlambda| <= lambda_tol max(1, |lambda|) and ||dx|| <= x_tol, up to sign for even
 * m, canonical sign: largest component positive), each cluster classified by the eigenvalues (Jacobi) of the
 * projected Hessian U^T((m-1) A x^(m-2) - lambda I) U, its residual ||A x^(m-1) - lambda x|| computed, and the
 * clusters sorted by lambda, descending. Clusters live in the work-item's own output slots (no sharing, no races);
 * every one of the K slots and the five counters are written: unused slots get lambda NaN and meta 0.
 *
 * out_meta[slot] = type | hits << 3 (type 1 max, 2 min, 3 saddle, 4 degenerate);
 * out_counts[t*5 ..] = pairs, converged, capped, failed, dropped (converged starts that found all K slots taken). */
#define SSHOPM_TYPE_MAX 1
#define SSHOPM_TYPE_MIN 2
#define SSHOPM_TYPE_SADDLE 3
#define SSHOPM_TYPE_DEGENERATE 4

/* Eigenvalues (unordered) of a symmetric r x r matrix, r <= 7, by cyclic Jacobi; `a` is destroyed. */
void sshopm_jacobi(int r, VALUE_T *a, VALUE_T *ev);
void sshopm_jacobi(int r, VALUE_T *a, VALUE_T *ev) {
    for (int sweep = 0; sweep < 30; ++sweep) {
        VALUE_T off = (VALUE_T)0, diag = (VALUE_T)0;
        for (int i = 0; i < r; ++i) {
            diag += a[i * r + i] * a[i * r + i];
            for (int j = i + 1; j < r; ++j) off += a[i * r + j] * a[i * r + j];
        }
        if (off <= (VALUE_T)1e-30 * (diag + (VALUE_T)1e-30)) break;
        for (int p = 0; p < r; ++p)
            for (int q = p + 1; q < r; ++q) {
                const VALUE_T apq = a[p * r + q];
                if (apq == (VALUE_T)0) continue;
                const VALUE_T theta = (a[q * r + q] - a[p * r + p]) / ((VALUE_T)2 * apq);
                const VALUE_T tt = (theta >= (VALUE_T)0 ? (VALUE_T)1 : (VALUE_T)-1) /
                                   (fabs(theta) + sqrt(theta * theta + (VALUE_T)1));
                const VALUE_T c = rsqrt(tt * tt + (VALUE_T)1), s = tt * c;
                for (int k = 0; k < r; ++k) {
                    const VALUE_T akp = a[k * r + p], akq = a[k * r + q];
                    a[k * r + p] = c * akp - s * akq;
                    a[k * r + q] = s * akp + c * akq;
                }
                for (int k = 0; k < r; ++k) {
                    const VALUE_T apk = a[p * r + k], aqk = a[q * r + k];
                    a[p * r + k] = c * apk - s * aqk;
                    a[q * r + k] = s * apk + c * aqk;
                }
            }
    }
    for (int i = 0; i < r; ++i) ev[i] = a[i * r + i];
}

__kernel void clpk_sshopm_reduce(const long T, const int V, SSHOPM_TABLE_PARAMS, __global const VALUE_T *tensors,
                                 __global const VALUE_T *lambda, __global const VALUE_T *xs,
                                 __global const int *info, const VALUE_T lambda_tol, const VALUE_T x_tol,
                                 const VALUE_T class_tol, const int K, const long out_base,
                                 __global VALUE_T *out_lambda, __global VALUE_T *out_x, __global int *out_meta,
                                 __global int *out_counts) {
    const long t = get_global_id(0);
    if (t >= T) return;
    const int n = n_rt;
    const int even = (m_rt % 2) == 0;
    __global const VALUE_T *A = tensors + t * U_rt;
    __global VALUE_T *L = out_lambda + (out_base + t) * K;
    __global VALUE_T *X = out_x + (out_base + t) * K * n;
    __global int *M = out_meta + (out_base + t) * K;
    int count = 0, converged = 0, capped = 0, failed = 0, dropped = 0;
    for (int s = 0; s < V; ++s) {
        const long g = t * V + s;
        const int status = info[g] & 3;
        const VALUE_T lam = lambda[g];
        if (status == 1) ++capped;
        else if (status != 0 || !isfinite(lam)) ++failed;
        if (status != 0 || !isfinite(lam)) continue;
        ++converged;
        VALUE_T x[SSHOPM_MAX_DIM];
        int big = 0;
        for (int i = 0; i < n; ++i) {
            x[i] = xs[g * n + i];
            if (fabs(x[i]) > fabs(x[big]) + (VALUE_T)1e-12) big = i;
        }
        if (even && x[big] < (VALUE_T)0)
            for (int i = 0; i < n; ++i) x[i] = -x[i];
        int found = -1;
        for (int c = 0; c < count && found < 0; ++c) {
            if (fabs(L[c] - lam) > lambda_tol * fmax((VALUE_T)1, fabs(lam))) continue;
            VALUE_T d = (VALUE_T)0, d2 = (VALUE_T)0;
            for (int i = 0; i < n; ++i) {
                const VALUE_T xc = X[c * n + i];
                d += (xc - x[i]) * (xc - x[i]);
                d2 += (xc + x[i]) * (xc + x[i]);
            }
            if (sqrt(d) <= x_tol || (even && sqrt(d2) <= x_tol)) found = c;
        }
        if (found >= 0) {
            M[found] += 1 << 3;
        } else if (count < K) {
            L[count] = lam;
            for (int i = 0; i < n; ++i) X[count * n + i] = x[i];
            M[count] = 1 << 3;
            ++count;
        } else {
            ++dropped;
        }
    }
    /* classify and measure each cluster */
    for (int c = 0; c < count; ++c) {
        VALUE_T x[SSHOPM_MAX_DIM], y[SSHOPM_MAX_DIM], h[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
        VALUE_T q[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM], hq[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
        VALUE_T p[(SSHOPM_MAX_DIM - 1) * (SSHOPM_MAX_DIM - 1)], ev[SSHOPM_MAX_DIM];
        const VALUE_T lam = L[c];
        VALUE_T nx = (VALUE_T)0;
        for (int i = 0; i < n; ++i) {
            x[i] = X[c * n + i];
            nx += x[i] * x[i];
        }
        nx = rsqrt(nx);
        for (int i = 0; i < n; ++i) x[i] *= nx;
        sshopm_hessian(A, x, h, SSHOPM_TABLE_ARGS);
        for (int i = 0; i < n * n; ++i) h[i] *= (VALUE_T)(m_rt - 1);
        for (int i = 0; i < n; ++i) h[i * n + i] -= lam;
        /* Householder Q = I - 2 v v^T / v^T v, v = x + sign(x0) e0: columns 1..n-1 span the complement of x */
        VALUE_T v[SSHOPM_MAX_DIM], vv = (VALUE_T)0;
        for (int i = 0; i < n; ++i) v[i] = x[i];
        v[0] += x[0] >= (VALUE_T)0 ? (VALUE_T)1 : (VALUE_T)-1;
        for (int i = 0; i < n; ++i) vv += v[i] * v[i];
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) q[i * n + j] = (VALUE_T)(i == j) - (VALUE_T)2 * v[i] * v[j] / vv;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                VALUE_T sum = (VALUE_T)0;
                for (int k = 0; k < n; ++k) sum += h[i * n + k] * q[k * n + j];
                hq[i * n + j] = sum;
            }
        const int r = n - 1;
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < r; ++j) {
                VALUE_T sum = (VALUE_T)0;
                for (int k = 0; k < n; ++k) sum += q[k * n + i + 1] * hq[k * n + j + 1];
                p[i * r + j] = sum;
            }
        for (int i = 0; i < r; ++i)
            for (int j = 0; j < i; ++j) p[i * r + j] = p[j * r + i] = (VALUE_T)0.5 * (p[i * r + j] + p[j * r + i]);
        sshopm_jacobi(r, p, ev);
        const VALUE_T tol = class_tol * fmax((VALUE_T)1, fabs(lam));
        int neg = 0, pos = 0;
        for (int i = 0; i < r; ++i) {
            if (ev[i] < -tol) ++neg;
            else if (ev[i] > tol) ++pos;
        }
        const int type = neg == r ? SSHOPM_TYPE_MAX
                         : pos == r ? SSHOPM_TYPE_MIN
                         : (neg && pos) ? SSHOPM_TYPE_SADDLE
                                        : SSHOPM_TYPE_DEGENERATE;
        M[c] = (M[c] & ~7) | type;
    }
    /* sort by lambda, descending (insertion sort on the work-item's own slots) */
    for (int i = 1; i < count; ++i) {
        for (int j = i; j > 0 && L[j] > L[j - 1]; --j) {
            const VALUE_T tl = L[j];
            L[j] = L[j - 1];
            L[j - 1] = tl;
            const int tm = M[j];
            M[j] = M[j - 1];
            M[j - 1] = tm;
            for (int k = 0; k < n; ++k) {
                const VALUE_T tx = X[j * n + k];
                X[j * n + k] = X[(j - 1) * n + k];
                X[(j - 1) * n + k] = tx;
            }
        }
    }
    for (int c = count; c < K; ++c) {
        L[c] = (VALUE_T)NAN;
        M[c] = 0;
        for (int i = 0; i < n; ++i) X[c * n + i] = (VALUE_T)NAN;
    }
    __global int *C = out_counts + (out_base + t) * 5;
    C[0] = count;
    C[1] = converged;
    C[2] = capped;
    C[3] = failed;
    C[4] = dropped;
}
