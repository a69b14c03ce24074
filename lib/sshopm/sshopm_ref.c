/* Double-precision CPU reference of SS-HOPM: the compressed products A x^(m-1), A x^(m-2), the shift bound, the
 * adaptive shift, a small symmetric eigensolver for classification, and the starts generator shared with the
 * kernels. Used by the tests, the tuner's verification and the host post-processing. */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"

#include <math.h>
#include <string.h>

/* x^k for the monomial counts k (exponents <= 8). */
static double monomial(int n, const int *k, const double *x) {
    double p = 1;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < k[i]; ++c) p *= x[i];
    return p;
}

double sshopm_ref_gradient(const sshopm_index *idx, const double *a, const double *x, double *y) {
    const int m = idx->m, n = idx->n;
    for (int j = 0; j < n; ++j) y[j] = 0;
    int k[SSHOPM_MAX_DIM];
    for (int u = 0; u < idx->U; ++u) {
        for (int i = 0; i < n; ++i) k[i] = idx->mono[u * n + i];
        for (int j = 0; j < n; ++j) {
            if (!k[j]) continue;
            /* (m-1)! / (k - e_j)! = mult * k_j / m, an integer. */
            double coeff = idx->mult[u] * k[j] / m;
            k[j]--;
            y[j] += a[u] * coeff * monomial(n, k, x);
            k[j]++;
        }
    }
    double lambda = 0;
    for (int j = 0; j < n; ++j) lambda += x[j] * y[j];
    return lambda;
}

void sshopm_ref_hessian(const sshopm_index *idx, const double *a, const double *x, double *h) {
    const int m = idx->m, n = idx->n;
    for (int i = 0; i < n * n; ++i) h[i] = 0;
    int k[SSHOPM_MAX_DIM];
    for (int u = 0; u < idx->U; ++u) {
        for (int i = 0; i < n; ++i) k[i] = idx->mono[u * n + i];
        for (int i = 0; i < n; ++i) {
            if (!k[i]) continue;
            double ci = idx->mult[u] * k[i] / m;
            k[i]--;
            for (int j = i; j < n; ++j) {
                if (!k[j]) continue;
                double c = ci * k[j] / (m - 1);
                k[j]--;
                h[i * n + j] += a[u] * c * monomial(n, k, x);
                k[j]++;
            }
            k[i]++;
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) h[i * n + j] = h[j * n + i];
}

double sshopm_ref_frobenius(const sshopm_index *idx, const double *a) {
    double s = 0;
    for (int u = 0; u < idx->U; ++u) s += idx->mult[u] * a[u] * a[u];
    return sqrt(s);
}

double sshopm_shift_bound(const sshopm_index *idx, const double *a) {
    return (idx->m - 1) * sshopm_ref_frobenius(idx, a);
}

void sshopm_sym_eig(int n, double *h, double *values, double *vectors) {
    double v[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
    for (int i = 0; i < n * n; ++i) v[i] = (i / n == i % n);
    for (int sweep = 0; sweep < 60; ++sweep) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; ++i) {
            diag += h[i * n + i] * h[i * n + i];
            for (int j = i + 1; j < n; ++j) off += h[i * n + j] * h[i * n + j];
        }
        if (off <= 1e-30 * (diag + 1e-300)) break;
        for (int p = 0; p < n; ++p) {
            for (int q = p + 1; q < n; ++q) {
                double apq = h[p * n + q];
                if (apq == 0) continue;
                double theta = (h[q * n + q] - h[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; ++k) {
                    double hkp = h[k * n + p], hkq = h[k * n + q];
                    h[k * n + p] = c * hkp - s * hkq;
                    h[k * n + q] = s * hkp + c * hkq;
                }
                for (int k = 0; k < n; ++k) {
                    double hpk = h[p * n + k], hqk = h[q * n + k];
                    h[p * n + k] = c * hpk - s * hqk;
                    h[q * n + k] = s * hpk + c * hqk;
                }
                for (int k = 0; k < n; ++k) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    int order[SSHOPM_MAX_DIM];
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && h[order[j] * n + order[j]] < h[order[j - 1] * n + order[j - 1]]; --j) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int i = 0; i < n; ++i) {
        values[i] = h[order[i] * n + order[i]];
        if (vectors)
            for (int k = 0; k < n; ++k) vectors[k * n + i] = v[k * n + order[i]];
    }
}

/* The adaptive shift of Kolda & Mayo (2014) with the extreme eigenvalue of A x^(m-2) replaced by its Gershgorin
 * bound, as the kernels do: never smaller in magnitude than the exact adaptive shift, so the shifted function is
 * locally convex (concave) at x. That does not make every step monotone (a long step can leave the convex region):
 * a start whose lambda drops falls back to the bound shift (sshopm_ref_run_drop). */
static double adaptive_shift(const sshopm_index *idx, const double *a, const double *x, int direction) {
    const int n = idx->n, m = idx->m;
    double h[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
    sshopm_ref_hessian(idx, a, x, h);
    const double tau = 1e-6;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; ++i) {
        double r = 0;
        for (int j = 0; j < n; ++j)
            if (j != i) r += fabs(h[i * n + j]);
        lo = fmin(lo, h[i * n + i] - r);
        hi = fmax(hi, h[i * n + i] + r);
    }
    if (direction > 0) return fmax(0.0, tau / m - (m - 1) * lo);
    return fmin(0.0, -(tau / m + (m - 1) * hi));
}

int sshopm_ref_run(const sshopm_index *idx, const double *a, double *x, int direction, int shift_mode, double alpha,
                   double tol, double xtol, int max_iter, int check_every, double *lambda, int *iterations) {
    return sshopm_ref_run_drop(idx, a, x, direction, shift_mode, alpha, tol, xtol, max_iter, check_every,
                               SSHOPM_DROP_EPS_F64, lambda, iterations);
}

int sshopm_ref_run_drop(const sshopm_index *idx, const double *a, double *x, int direction, int shift_mode,
                        double alpha, double tol, double xtol, int max_iter, int check_every, double drop_eps,
                        double *lambda, int *iterations) {
    const int n = idx->n;
    double y[SSHOPM_MAX_DIM], xn[SSHOPM_MAX_DIM];
    double shift = alpha;
    const double bound = direction * sshopm_shift_bound(idx, a);
    /* the adaptive shift's fallback, as in the kernels: a drop of lambda beyond drop_eps ||A||_F */
    const double drop = drop_eps * sshopm_ref_frobenius(idx, a);
    int fallback = 0;
    if (shift_mode == CLPK_SSHOPM_SHIFT_BOUND) shift = bound;
    if (check_every < 1) check_every = 1;
    double lam = sshopm_ref_gradient(idx, a, x, y);
    int status = CLPK_SSHOPM_CAPPED;
    int it = 0, held_before = 0;
    while (it < max_iter) {
        /* the kernels' block test (cl/sshopm_driver.cl): at one iteration of the block, and at its last (within
         * SSHOPM_LAST_SLACK) or in the block before */
        int met = 0, met_last = 0;
        for (int k = 0; k < check_every && it < max_iter; ++k, ++it) {
            if (shift_mode == CLPK_SSHOPM_SHIFT_ADAPTIVE)
                shift = fallback ? bound : adaptive_shift(idx, a, x, direction);
            double norm = 0;
            for (int i = 0; i < n; ++i) {
                xn[i] = direction * (y[i] + shift * x[i]);
                norm += xn[i] * xn[i];
            }
            norm = sqrt(norm);
            if (!(norm > 0) || !isfinite(norm)) {
                *lambda = NAN;
                *iterations = it + 1;
                return CLPK_SSHOPM_FAILED;
            }
            double dx = 0;
            for (int i = 0; i < n; ++i) {
                double v = xn[i] / norm;
                dx = fmax(dx, fabs(v - x[i]));
                x[i] = v;
            }
            double lam_new = sshopm_ref_gradient(idx, a, x, y);
            if (direction * (lam_new - lam) < -drop) fallback = 1;
            const double dl = fabs(lam_new - lam);
            lam = lam_new;
            met |= dl <= tol && (xtol <= 0 || dx <= xtol);
            met_last = dl <= SSHOPM_LAST_SLACK * tol && (xtol <= 0 || dx <= SSHOPM_LAST_SLACK * xtol);
        }
        if (!isfinite(lam)) {
            status = CLPK_SSHOPM_FAILED;
            break;
        }
        if (met && (met_last || held_before)) {
            status = CLPK_SSHOPM_CONVERGED;
            break;
        }
        held_before = met;
    }
    *lambda = lam;
    *iterations = it;
    return status;
}

/* splitmix64's finaliser: a bijective 64-bit mix (the kernels carry the same arithmetic on ulong). */
static uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double sshopm_start_component(uint64_t seed, int64_t t, int s, int i, int n) {
    (void)n;
    uint64_t counter = ((uint64_t)t << 24) ^ ((uint64_t)s << 4) ^ (uint64_t)i;
    uint64_t h = mix64(seed ^ mix64(counter + 0x9e3779b97f4a7c15ull));
    return (double)(h >> 40) * (1.0 / 8388608.0) - 1.0;
}

static void normalise_start(int n, int s, double *x) {
    double norm = 0;
    for (int i = 0; i < n; ++i) norm += x[i] * x[i];
    if (norm < 1e-6) {
        /* A start too near 0 has no direction: use a coordinate axis instead (same rule in the kernels). */
        for (int i = 0; i < n; ++i) x[i] = (i == s % n);
        return;
    }
    norm = sqrt(norm);
    for (int i = 0; i < n; ++i) x[i] /= norm;
}

clpk_status sshopm_make_starts(int n, int V, int kind, uint64_t seed, double *starts, clpk_error *err) {
    if (V <= 0 || n < 1 || n > SSHOPM_MAX_DIM)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: bad starts request (n %d, V %d)", n, V);
    if (kind != CLPK_SSHOPM_STARTS_SPHERE || n > 3) {
        for (int s = 0; s < V; ++s) {
            for (int i = 0; i < n; ++i) starts[s * n + i] = sshopm_start_component(seed, 0, s, i, n);
            normalise_start(n, s, starts + s * n);
        }
    }
    if (kind != CLPK_SSHOPM_STARTS_SPHERE) return CLPK_SUCCESS;
    const double pi = 3.14159265358979323846;
    if (n == 2) {
        for (int s = 0; s < V; ++s) {
            double th = 2 * pi * (s + 0.5) / V;
            starts[2 * s] = cos(th);
            starts[2 * s + 1] = sin(th);
        }
    } else if (n == 3) {
        /* Fibonacci lattice: equal-area bands, golden-angle longitude. */
        const double golden = pi * (3 - sqrt(5.0));
        for (int s = 0; s < V; ++s) {
            double z = 1 - (2.0 * s + 1) / V, r = sqrt(fmax(0.0, 1 - z * z)), ph = golden * s;
            starts[3 * s] = r * cos(ph);
            starts[3 * s + 1] = r * sin(ph);
            starts[3 * s + 2] = z;
        }
    } else {
        /* No lattice in higher dimensions: spread the random points by a few steps of Coulomb repulsion. */
        double step = 0.5 / V;
        double force[SSHOPM_MAX_DIM];
        for (int iter = 0; iter < 60; ++iter) {
            for (int s = 0; s < V; ++s) {
                for (int i = 0; i < n; ++i) force[i] = 0;
                for (int q = 0; q < V; ++q) {
                    if (q == s) continue;
                    double d2 = 0;
                    for (int i = 0; i < n; ++i)
                        d2 += (starts[s * n + i] - starts[q * n + i]) * (starts[s * n + i] - starts[q * n + i]);
                    double w = 1 / (d2 * sqrt(d2) + 1e-12);
                    for (int i = 0; i < n; ++i) force[i] += w * (starts[s * n + i] - starts[q * n + i]);
                }
                for (int i = 0; i < n; ++i) starts[s * n + i] += step * force[i] / V;
                normalise_start(n, s, starts + s * n);
            }
        }
    }
    return CLPK_SUCCESS;
}
