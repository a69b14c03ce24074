/* The library's defaults find what is asked (issue #24): for (m, n) in {(3,3), (4,3), (6,3), (8,3), (4,4), (4,6)},
 * f32 and f64, random symmetric tensors (dense N(0,1) symmetrised, and N(0,1) unique entries) run with the default
 * options (shift, tolerance, max_iter, post-processing) and 256 starts, against an independent many-start search
 * in double written here:
 *  - the search knows the tensor only as the polynomial f(x) = A x^m = sum_u mult_u a_u x^k(u) (its own enumeration
 *    of the index classes, its own gradient, Hessian and Jacobi eigensolver; none of the library's code) and runs
 *    GEAP (Kolda & Mayo 2014) with the exact smallest Hessian eigenvalue from SEARCH_STARTS random starts; its limits
 *    are clustered into local maxima (negative definite projected Hessian) with basin fractions = hits / starts;
 *  - every local maximum whose basin holds >= 5% of the starts is among the library's pairs, with type max (lambda
 *    to a relative tolerance of the precision, x up to sign for even m, exactly for odd m: there (lambda, x) and
 *    (-lambda, -x) are the same pair and a maximum is reported as reached);
 *  - every reported pair is an eigenpair (residual of the precision), its type agrees with the search's own
 *    classification wherever that is clear, and the start counts add up (polished + unconverged = capped).
 * With 256 starts a basin of 5% is missed with probability 0.95^256 < 3e-6 (4%: 3e-5).
 * Outputs of the device run are NaN-poisoned; the seed is printed (CLPK_TEST_SEED repeats a run). */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

#define LIB_STARTS 256
#define SEARCH_STARTS 600
#define TENSORS 4
#define MAX_CLASSES 1716 /* C(8+8-1, 8); the shapes here need at most 210 */
#define MAX_FOUND 256

/* ---- The independent search: f(x) = sum_u c_u x^k(u), c_u = mult_u a_u ---------------------------------------- */

typedef struct poly {
    int m, n, U;
    int k[MAX_CLASSES][8]; /* exponents of class u */
    double c[MAX_CLASSES]; /* mult_u a_u */
    double fro;            /* ||A||_F = sqrt(sum_u mult_u a_u^2) */
} poly;

static double factorial(int k) {
    double f = 1;
    for (int i = 2; i <= k; ++i) f *= i;
    return f;
}

/* The classes in lexicographic order of their nondecreasing index tuples (the library's documented storage). */
static void poly_build(poly *p, int m, int n, const double *a) {
    int tup[8];
    for (int i = 0; i < m; ++i) tup[i] = 0;
    p->m = m;
    p->n = n;
    p->U = 0;
    double f2 = 0;
    for (;;) {
        int *k = p->k[p->U];
        for (int i = 0; i < n; ++i) k[i] = 0;
        for (int i = 0; i < m; ++i) k[tup[i]]++;
        double mult = factorial(m);
        for (int i = 0; i < n; ++i) mult /= factorial(k[i]);
        p->c[p->U] = mult * a[p->U];
        f2 += mult * a[p->U] * a[p->U];
        p->U++;
        int q = m - 1;
        while (q >= 0 && tup[q] == n - 1) --q;
        if (q < 0) break;
        const int v = tup[q] + 1;
        for (int r = q; r < m; ++r) tup[r] = v;
    }
    p->fro = sqrt(f2);
}

/* h = grad^2 f / (m (m-1)) (= A x^(m-2)), then by Euler's identity for homogeneous f: g = h x = grad f / m
 * (= A x^(m-1)) and f = x . g (= A x^m), which is returned. */
static double poly_eval(const poly *p, const double *x, double *g, double *h) {
    const int n = p->n, m = p->m;
    double pw[8][9];
    for (int i = 0; i < n; ++i) {
        pw[i][0] = 1;
        for (int e = 1; e <= m; ++e) pw[i][e] = pw[i][e - 1] * x[i];
    }
    for (int i = 0; i < n * n; ++i) h[i] = 0;
    for (int u = 0; u < p->U; ++u) {
        const int *k = p->k[u];
        for (int i = 0; i < n; ++i) {
            if (!k[i]) continue;
            for (int j = i; j < n; ++j) {
                const int kj = k[j] - (j == i);
                if (kj <= 0) continue;
                /* d^2 x^k / dx_i dx_j = k_i (k_j - delta_ij) x^(k - e_i - e_j) */
                double e2 = p->c[u] * k[i] * kj;
                for (int l = 0; l < n; ++l) e2 *= pw[l][k[l] - (l == i) - (l == j)];
                h[i * n + j] += e2 / (m * (m - 1));
            }
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j) h[i * n + j] = h[j * n + i];
    double f = 0;
    for (int i = 0; i < n; ++i) {
        g[i] = 0;
        for (int j = 0; j < n; ++j) g[i] += h[i * n + j] * x[j];
        f += x[i] * g[i];
    }
    return f;
}

/* Eigenvalues of a symmetric n x n matrix (cyclic Jacobi), ascending; `a` is destroyed. */
static void jacobi(int n, double *a, double *ev) {
    for (int sweep = 0; sweep < 100; ++sweep) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; ++i) {
            diag += a[i * n + i] * a[i * n + i];
            for (int j = i + 1; j < n; ++j) off += a[i * n + j] * a[i * n + j];
        }
        if (off <= 1e-24 * diag || off < 1e-300) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                if (a[p * n + q] == 0) continue;
                const double th = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
                const double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
                const double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; ++k) {
                    const double kp = a[k * n + p], kq = a[k * n + q];
                    a[k * n + p] = c * kp - s * kq;
                    a[k * n + q] = s * kp + c * kq;
                }
                for (int k = 0; k < n; ++k) {
                    const double pk = a[p * n + k], qk = a[q * n + k];
                    a[p * n + k] = c * pk - s * qk;
                    a[q * n + k] = s * pk + c * qk;
                }
            }
    }
    for (int i = 0; i < n; ++i) ev[i] = a[i * n + i];
    for (int i = 1; i < n; ++i)
        for (int j = i; j > 0 && ev[j] < ev[j - 1]; --j) {
            const double t = ev[j];
            ev[j] = ev[j - 1];
            ev[j - 1] = t;
        }
}

/* The n - 1 eigenvalues of the Hessian of the Lagrangian on the sphere at unit x, (m-1) A x^(m-2) - lambda I
 * restricted to x's orthogonal complement (ascending), and the residual |A x^(m-1) - lambda x|. */
static double tangent_spectrum(const poly *p, const double *x, double lambda, double *ev) {
    const int n = p->n;
    double g[8], h[64], l[64], big[8];
    poly_eval(p, x, g, h);
    double res = 0;
    for (int i = 0; i < n; ++i) res += (g[i] - lambda * x[i]) * (g[i] - lambda * x[i]);
    for (int i = 0; i < n * n; ++i) l[i] = (p->m - 1) * h[i] - (i / n == i % n ? lambda : 0);
    /* P L P + mu x x^T with P = I - x x^T: the tangent eigenvalues and mu (far above them) for x */
    double pl[64], plp[64];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += ((i == k) - x[i] * x[k]) * l[k * n + j];
            pl[i * n + j] = s;
        }
    double mu = 1;
    for (int i = 0; i < n * n; ++i) mu += fabs(l[i]);
    mu *= 10;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += pl[i * n + k] * ((k == j) - x[k] * x[j]);
            plp[i * n + j] = s + mu * x[i] * x[j];
        }
    jacobi(n, plp, big);
    for (int i = 0; i < n - 1; ++i) ev[i] = big[i];
    return sqrt(res);
}

typedef struct found {
    double lambda, x[8];
    double flat; /* smallest |eigenvalue| of the tangent Hessian (m (m-1) A x^(m-2) - m lambda I on x's complement) */
    int hits, is_max;
} found;

static void canonical(int n, double *x) {
    int b = 0;
    for (int i = 1; i < n; ++i)
        if (fabs(x[i]) > fabs(x[b])) b = i;
    if (x[b] < 0)
        for (int i = 0; i < n; ++i) x[i] = -x[i];
}

static double gauss(uint64_t *rng) {
    const double u = check_rand_double(rng) + 1e-300, v = check_rand_double(rng);
    return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* Newton steps on (A x^(m-1) - lambda x, (x.x - 1) / 2) = 0 from unit x: 1 (x, *lambda updated) when they reach
 * |A x^(m-1) - lambda x| <= 1e-11 ||A||_F. */
static int newton_finish(const poly *p, double *x, double *lambda) {
    const int n = p->n, q = n + 1;
    for (int step = 0; step < 12; ++step) {
        double g[8], h[64], J[81], r[9];
        const double lam = poly_eval(p, x, g, h);
        double res = 0;
        for (int i = 0; i < n; ++i) res += (g[i] - lam * x[i]) * (g[i] - lam * x[i]);
        if (sqrt(res) <= 1e-11 * p->fro) {
            *lambda = lam;
            return 1;
        }
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) J[i * q + j] = (p->m - 1) * h[i * n + j] - (i == j) * lam;
            J[i * q + n] = -x[i];
            J[n * q + i] = x[i];
            r[i] = lam * x[i] - g[i];
        }
        J[n * q + n] = 0;
        r[n] = 0;
        /* Gaussian elimination with partial pivoting */
        for (int c = 0; c < q; ++c) {
            int piv = c;
            for (int i = c + 1; i < q; ++i)
                if (fabs(J[i * q + c]) > fabs(J[piv * q + c])) piv = i;
            if (!(fabs(J[piv * q + c]) > 1e-300)) return 0;
            for (int j = 0; j < q; ++j) {
                const double t = J[c * q + j];
                J[c * q + j] = J[piv * q + j];
                J[piv * q + j] = t;
            }
            const double t = r[c];
            r[c] = r[piv];
            r[piv] = t;
            for (int i = c + 1; i < q; ++i) {
                const double f = J[i * q + c] / J[c * q + c];
                for (int j = c; j < q; ++j) J[i * q + j] -= f * J[c * q + j];
                r[i] -= f * r[c];
            }
        }
        for (int i = q - 1; i >= 0; --i) {
            for (int j = i + 1; j < q; ++j) r[i] -= J[i * q + j] * r[j];
            r[i] /= J[i * q + i];
        }
        double nn = 0;
        for (int i = 0; i < n; ++i) {
            x[i] += r[i];
            nn += x[i] * x[i];
        }
        for (int i = 0; i < n; ++i) x[i] /= sqrt(nn);
    }
    return 0;
}

/* GEAP from `starts` random starts, finished by Newton once close (slow linear convergence at flat maxima); returns
 * the number of clusters in out (hits, type). */
static int search(const poly *p, uint64_t *rng, int starts, found *out, int *converged) {
    const int n = p->n, m = p->m, even = m % 2 == 0;
    int k = 0;
    *converged = 0;
    for (int s = 0; s < starts; ++s) {
        double x[8], g[8], h[64], ev[8], nn = 0;
        for (int i = 0; i < n; ++i) {
            x[i] = gauss(rng);
            nn += x[i] * x[i];
        }
        for (int i = 0; i < n; ++i) x[i] /= sqrt(nn);
        double lam = poly_eval(p, x, g, h);
        int conv = 0;
        double try_newton = 1e-4 * p->fro;
        for (int it = 0; it < 20000 && !conv; ++it) {
            jacobi(n, h, ev);
            /* the shifted function's Hessian m (m-1) H + alpha m I is positive definite (tau = 1e-6) */
            double alpha = fmax(0.0, 1e-6 / m - (m - 1) * ev[0]);
            double xn[8], gn[8], hn[64], ln = 0;
            for (int tries = 0; tries < 60; ++tries) {
                double nrm = 0;
                for (int i = 0; i < n; ++i) {
                    xn[i] = g[i] + alpha * x[i];
                    nrm += xn[i] * xn[i];
                }
                for (int i = 0; i < n; ++i) xn[i] /= sqrt(nrm);
                ln = poly_eval(p, xn, gn, hn);
                if (ln >= lam - 1e-15 * p->fro) break;
                alpha = 2 * alpha + p->fro; /* not monotone: a shorter step */
            }
            double res = 0;
            for (int i = 0; i < n; ++i) res += (gn[i] - ln * xn[i]) * (gn[i] - ln * xn[i]);
            memcpy(x, xn, sizeof x);
            memcpy(g, gn, sizeof g);
            memcpy(h, hn, sizeof h);
            lam = ln;
            conv = sqrt(res) <= 1e-10 * p->fro;
            if (!conv && sqrt(res) <= try_newton) {
                /* accepted where it stays near and above (the ascent only climbs to its limit) */
                double xt[8], lt = lam;
                memcpy(xt, x, sizeof xt);
                if (newton_finish(p, xt, &lt) && sshopm_xdist(n, xt, x, 0) <= 1e-2 && lt >= lam - 1e-12 * p->fro) {
                    memcpy(x, xt, sizeof x);
                    lam = lt;
                    conv = 1;
                }
                try_newton = sqrt(res) * 1e-2;
            }
        }
        if (!conv) continue;
        ++*converged;
        if (even) canonical(n, x);
        int c = -1;
        for (int j = 0; j < k && c < 0; ++j)
            if (fabs(out[j].lambda - lam) <= 1e-8 * p->fro && sshopm_xdist(n, out[j].x, x, 0) <= 1e-5) c = j;
        if (c < 0 && k < MAX_FOUND) {
            c = k++;
            out[c].lambda = lam;
            memcpy(out[c].x, x, sizeof x);
            out[c].hits = 0;
            double tv[8];
            tangent_spectrum(p, x, lam, tv);
            out[c].is_max = tv[n - 2] < -1e-8 * p->fro;
            out[c].flat = p->m * fabs(tv[n - 2]);
        }
        if (c >= 0) out[c].hits++;
    }
    return k;
}

/* ---- The library's default run, on poisoned device outputs --------------------------------------------------- */

static int run_library(clpk_context *ctx, int m, int n, clpk_precision prec, const double *a, uint64_t seed,
                       clpk_sshopm_result *res, const char *label) {
    const int U = clpk_sshopm_unique_count(m, n), V = LIB_STARTS, T = TENSORS;
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = V;
    o.seed = seed;
    clpk_sshopm_plan *plan = NULL;
    if (!CHECK(clpk_sshopm_plan_create(ctx, m, n, prec, T, &o, &plan) == CLPK_SUCCESS, "%s: plan: %s", label,
               clpk_last_error(ctx)))
        return 0;
    const size_t vs = clpk_precision_size(prec), nl = (size_t)T * V;
    void *ht = malloc((size_t)T * U * vs), *hl = malloc(nl * vs), *hx = malloc(nl * n * vs);
    clpk_sshopm_raw raw = {T, m, n, V, 1, {1, 0}, NULL, NULL, NULL};
    raw.lambda = malloc(nl * sizeof *raw.lambda);
    raw.x = malloc(nl * n * sizeof *raw.x);
    raw.info = malloc(nl * sizeof *raw.info);
    for (size_t i = 0; i < (size_t)T * U; ++i) {
        if (vs == 8)
            ((double *)ht)[i] = a[i];
        else
            ((float *)ht)[i] = (float)a[i];
    }
    cl_context cc = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    cl_int rc;
    cl_mem bt = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, (size_t)T * U * vs, ht, &rc);
    cl_mem bl = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * vs, NULL, &rc);
    cl_mem bx = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * n * vs, NULL, &rc);
    cl_mem bi = clCreateBuffer(cc, CL_MEM_READ_WRITE, nl * 4, NULL, &rc);
    const double nan_d = NAN;
    const float nan_f = NAN;
    const cl_int minus1 = -1;
    rc = clEnqueueFillBuffer(q, bl, vs == 8 ? (const void *)&nan_d : (const void *)&nan_f, vs, 0, nl * vs, 0, NULL,
                             NULL);
    rc |= clEnqueueFillBuffer(q, bx, vs == 8 ? (const void *)&nan_d : (const void *)&nan_f, vs, 0, nl * n * vs, 0,
                              NULL, NULL);
    rc |= clEnqueueFillBuffer(q, bi, &minus1, 4, 0, nl * 4, 0, NULL, NULL);
    int ok = CHECK(rc == CL_SUCCESS, "%s: poison", label);
    ok = ok && CHECK(clpk_sshopm_execute(plan, T, bt, 1, bl, bx, bi, 0, NULL, NULL) == CLPK_SUCCESS, "%s: execute: %s",
                     label, clpk_last_error(ctx));
    if (ok) {
        rc = clEnqueueReadBuffer(q, bl, CL_TRUE, 0, nl * vs, hl, 0, NULL, NULL);
        rc |= clEnqueueReadBuffer(q, bx, CL_TRUE, 0, nl * n * vs, hx, 0, NULL, NULL);
        rc |= clEnqueueReadBuffer(q, bi, CL_TRUE, 0, nl * 4, raw.info, 0, NULL, NULL);
        ok = CHECK(rc == CL_SUCCESS, "%s: read back", label);
    }
    int unwritten = 0;
    for (size_t g = 0; ok && g < nl; ++g) {
        raw.lambda[g] = vs == 8 ? ((double *)hl)[g] : ((float *)hl)[g];
        for (int i = 0; i < n; ++i) raw.x[g * n + i] = vs == 8 ? ((double *)hx)[g * n + i] : ((float *)hx)[g * n + i];
        unwritten += raw.info[g] == -1 || isnan(raw.lambda[g]);
    }
    ok = ok && CHECK(unwritten == 0, "%s: %d starts unwritten or NaN", label, unwritten);
    clpk_error err = {0};
    ok = ok && CHECK(clpk_sshopm_postprocess(a, &raw, NULL, res, &err) == CLPK_SUCCESS, "%s: postprocess: %s", label,
                     err.message);
    clReleaseMemObject(bt);
    clReleaseMemObject(bl);
    clReleaseMemObject(bx);
    clReleaseMemObject(bi);
    free(ht);
    free(hl);
    free(hx);
    clpk_sshopm_raw_free(&raw);
    clpk_sshopm_plan_destroy(plan);
    return ok;
}

static void run_case(clpk_context *ctx, int m, int n, clpk_precision prec, uint64_t *rng) {
    const int U = clpk_sshopm_unique_count(m, n), even = m % 2 == 0;
    const int f64 = prec == CLPK_PRECISION_F64;
    char label[64];
    snprintf(label, sizeof label, "(%d,%d) %s", m, n, clpk_precision_name(prec));
    double *a = malloc((size_t)TENSORS * U * sizeof *a);
    poly *p = malloc(sizeof *p);
    found *f = malloc(MAX_FOUND * sizeof *f);
    /* even t: a dense tensor of N(0,1) entries, symmetrised (class u: N(0, 1/mult_u)); odd t: N(0,1) per class */
    for (int t = 0; t < TENSORS; ++t)
        for (int u = 0; u < U; ++u) a[(size_t)t * U + u] = gauss(rng);
    for (int t = 0; t < TENSORS; t += 2) {
        double ones[MAX_CLASSES];
        for (int u = 0; u < U; ++u) ones[u] = 1;
        poly_build(p, m, n, ones); /* c[u] = mult_u */
        for (int u = 0; u < U; ++u) a[(size_t)t * U + u] /= sqrt(p->c[u]);
    }
    double t0 = core_wall_seconds();
    clpk_sshopm_result res;
    const int ran = run_library(ctx, m, n, prec, a, check_rand(rng), &res, label);
    const double t_lib = core_wall_seconds() - t0;
    t0 = core_wall_seconds();
    /* What the default stop |dlambda| <= tol promises (tol 1e-12 / 1e-6 for f64 / f32, raised to 2 ulps of ||A||_F).
     * Near a maximum whose flattest tangent-Hessian eigenvalue is -mu, lambda* - lambda(x) = mu d^2 / 2 at distance d,
     * and a step (shift alpha, lambda + alpha <= m ||A||_F) contracts d by rho = 1 - mu / (m (lambda + alpha)): the
     * stop comes at dlambda = mu d^2 (1 - rho^2) / 2 ~ mu^2 d^2 / (m (lambda + alpha)) <= tol, so
     * d <= m sqrt(tol ||A||_F) / mu and lambda* - lambda <= m^2 tol ||A||_F / (2 mu). Matches are taken within twice
     * that, plus rounding of the precision. */
    const double eps = f64 ? 0x1p-52 : 0x1p-23, rtol = f64 ? 1e-5 : 1e-2;
    double worst_ratio = 0;
    int required = 0, matched = 0, reported = 0, classified = 0;
    double worst_l = 0, worst_x = 0, worst_r = 0;
    for (int t = 0; ran && t < TENSORS; ++t) {
        poly_build(p, m, n, a + (size_t)t * U);
        int conv = 0;
        const int k = search(p, rng, SEARCH_STARTS, f, &conv);
        const clpk_sshopm_tensor_result *tr = &res.tensors[t];
        CHECK(tr->converged + tr->capped + tr->failed == LIB_STARTS && tr->polished + tr->unconverged == tr->capped,
              "%s t%d: start counts %d + %d + %d (polished %d, unconverged %d)", label, t, tr->converged, tr->capped,
              tr->failed, tr->polished, tr->unconverged);
        int hits = 0;
        for (int i = 0; i < tr->count; ++i) hits += tr->pairs[i].hits;
        CHECK(hits == tr->converged + tr->polished, "%s t%d: hits %d, converged %d + polished %d", label, t, hits,
              tr->converged, tr->polished);
        /* every local maximum with a basin of >= 5% is reported, as a max */
        const double tol = fmax(f64 ? 1e-12 : 1e-6, 2 * eps * p->fro);
        for (int j = 0; j < k; ++j) {
            if (!f[j].is_max || f[j].hits < 0.05 * SEARCH_STARTS) continue;
            ++required;
            const double d = m * sqrt(tol * p->fro) / f[j].flat;
            const double xtol = 2 * d + 1e4 * eps * p->fro / f[j].flat;
            const double ltol = (m * m * tol * p->fro / f[j].flat + 1e3 * eps * p->fro) / p->fro;
            int best = -1;
            double bl = INFINITY, bx = INFINITY, near_l = INFINITY, near_x = INFINITY;
            for (int i = 0; i < tr->count; ++i) {
                const double dl = fabs(tr->pairs[i].lambda - f[j].lambda) / p->fro;
                const double dx = sshopm_xdist(n, tr->pairs[i].x, f[j].x, even);
                if (dx < near_x) near_x = dx, near_l = dl;
                if (dl <= ltol && dx <= xtol && (best < 0 || dx < bx)) {
                    best = i;
                    bl = dl;
                    bx = dx;
                }
            }
            if (CHECK(best >= 0,
                      "%s t%d: local max lambda %.9f (basin %.1f%%) not reported (%d pairs; nearest in x: |dx| %.3g, "
                      "|dlambda| %.3g ||A||_F)",
                      label, t, f[j].lambda, 100.0 * f[j].hits / SEARCH_STARTS, tr->count, near_x, near_l) &&
                CHECK(tr->pairs[best].type == CLPK_SSHOPM_TYPE_MAX, "%s t%d: max lambda %.9f reported as %s", label, t,
                      f[j].lambda, clpk_sshopm_type_name(tr->pairs[best].type))) {
                ++matched;
                worst_l = fmax(worst_l, bl);
                worst_x = fmax(worst_x, bx);
                worst_ratio = fmax(worst_ratio, fmax(bl / ltol, bx / xtol));
            }
        }
        /* every reported pair is an eigenpair; its type is the search's own wherever that is clear */
        for (int i = 0; i < tr->count; ++i) {
            const clpk_sshopm_eigenpair *e = &tr->pairs[i];
            double x[8], ev[8], nn = 0;
            for (int c = 0; c < n; ++c) nn += e->x[c] * e->x[c];
            for (int c = 0; c < n; ++c) x[c] = e->x[c] / sqrt(nn);
            const double r = tangent_spectrum(p, x, e->lambda, ev) / p->fro;
            ++reported;
            worst_r = fmax(worst_r, r);
            CHECK(r <= rtol && fabs(nn - 1) <= (f64 ? 1e-12 : 1e-6), "%s t%d: pair lambda %.9f: residual %.3g ||A||_F, "
                  "|x|^2 - 1 = %.2g", label, t, e->lambda, r, nn - 1);
            /* the library classifies the same (lambda, x) in double, with eigenvalues within 1e-6 max(1, |lambda|)
             * of 0 called degenerate: the types must agree beyond that (and rounding) */
            const double margin = 2e-6 * fmax(1, fabs(e->lambda)) + 1e-9 * m * m * p->fro;
            int neg = 0, pos = 0, clear = 1;
            for (int c = 0; c < n - 1; ++c) {
                neg += ev[c] < 0;
                pos += ev[c] > 0;
                clear &= fabs(ev[c]) > margin;
            }
            if (!clear) continue;
            ++classified;
            const clpk_sshopm_type own = neg == n - 1   ? CLPK_SSHOPM_TYPE_MAX
                                         : pos == n - 1 ? CLPK_SSHOPM_TYPE_MIN
                                                        : CLPK_SSHOPM_TYPE_SADDLE;
            CHECK(e->type == own, "%s t%d: pair lambda %.9f reported %s, the search classifies it %s", label, t,
                  e->lambda, clpk_sshopm_type_name(e->type), clpk_sshopm_type_name(own));
        }
        printf("%s t%d: search %d/%d converged, %d clusters; library %d pairs, starts %d converged %d capped (%d "
               "polished, %d unconverged) %d failed\n",
               label, t, conv, SEARCH_STARTS, k, tr->count, tr->converged, tr->capped, tr->polished, tr->unconverged,
               tr->failed);
    }
    if (ran) {
        CHECK(required > 0, "%s: no local maximum with a 5%% basin: nothing was checked", label);
        printf("%s: %d of %d maxima with >= 5%% basins reported (worst |dlambda| %.2e ||A||_F, |dx| %.2e, %.2f of "
               "the tolerance); %d pairs (worst residual %.2e ||A||_F, %d clearly classified); library %.2f s, search "
               "%.2f s\n",
               label, matched, required, worst_l, worst_x, worst_ratio, reported, worst_r, classified, t_lib,
               core_wall_seconds() - t0);
        clpk_sshopm_result_free(&res);
    }
    free(a);
    free(p);
    free(f);
}

int main(void) {
    uint64_t rng = check_seed();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    const int fp64 = clpk_context_device_info(ctx)->has_fp64;
    static const int shapes[][2] = {{3, 3}, {4, 3}, {6, 3}, {8, 3}, {4, 4}, {4, 6}};
    for (int s = 0; s < 6; ++s)
        for (int pr = 0; pr < 2; ++pr) {
            if (pr && !fp64) {
                printf("SKIP (%d,%d) f64: the device has no fp64\n", shapes[s][0], shapes[s][1]);
                continue;
            }
            run_case(ctx, shapes[s][0], shapes[s][1], pr ? CLPK_PRECISION_F64 : CLPK_PRECISION_F32, &rng);
        }
    clpk_context_destroy(ctx);
    return check_summary();
}
