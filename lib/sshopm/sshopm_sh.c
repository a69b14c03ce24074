/* Diffusion-MRI scans, first half: gradient tables, the real symmetric spherical-harmonic basis, the constant-solid-
 * angle Q-ball ODF fit (Aganj et al. 2010, as dipy's CsaOdfModel) and the map from harmonics to the symmetric tensor
 * whose maxima SS-HOPM finds (docs/sshopm.md, "Diffusion-MRI scans"). */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"
#include "sshopm_sh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double pi = 3.14159265358979323846;

/* ---- Basis ------------------------------------------------------------------------------------------------- */

int sshopm_sh_count(int L) { return (L < 0 || L > SSHOPM_SH_MAX_ORDER || L % 2) ? 0 : (L / 2 + 1) * (L + 1); }

void sshopm_sh_degrees(int L, int *l) {
    int r = 0;
    for (int d = 0; d <= L; d += 2)
        for (int m = -d; m <= d; ++m) l[r++] = d;
}

static double factorial(int n) {
    double f = 1;
    for (int i = 2; i <= n; ++i) f *= i;
    return f;
}

void sshopm_sh_eval(int L, const double *x, double *y) {
    /* Q[l][m] = P_l^m(z) / (1 - z^2)^(m/2) (no Condon-Shortley phase), and (x + i y)^m = (1 - z^2)^(m/2) e^(i m phi) */
    double Q[SSHOPM_SH_MAX_ORDER + 1][SSHOPM_SH_MAX_ORDER + 1];
    double re[SSHOPM_SH_MAX_ORDER + 1], im[SSHOPM_SH_MAX_ORDER + 1];
    const double z = x[2];
    re[0] = 1, im[0] = 0;
    for (int m = 1; m <= L; ++m) {
        re[m] = re[m - 1] * x[0] - im[m - 1] * x[1];
        im[m] = re[m - 1] * x[1] + im[m - 1] * x[0];
    }
    for (int m = 0; m <= L; ++m) {
        double dfact = 1; /* (2m - 1)!! */
        for (int k = 2 * m - 1; k > 1; k -= 2) dfact *= k;
        Q[m][m] = dfact;
        if (m + 1 <= L) Q[m + 1][m] = z * (2 * m + 1) * dfact;
        for (int l = m + 2; l <= L; ++l) Q[l][m] = ((2 * l - 1) * z * Q[l - 1][m] - (l + m - 1) * Q[l - 2][m]) / (l - m);
    }
    int r = 0;
    for (int l = 0; l <= L; l += 2)
        for (int m = -l; m <= l; ++m) {
            const int a = m < 0 ? -m : m;
            const double N = sqrt((2 * l + 1) / (4 * pi) * factorial(l - a) / factorial(l + a));
            y[r++] = m == 0 ? N * Q[l][0] : sqrt(2.0) * N * Q[l][a] * (m > 0 ? re[a] : im[a]);
        }
}

/* ---- Small dense solvers ------------------------------------------------------------------------------------ */

int sshopm_spd_solve(int n, double *A, int k, double *B) {
    for (int j = 0; j < n; ++j) {
        double d = A[j * n + j];
        for (int p = 0; p < j; ++p) d -= A[j * n + p] * A[j * n + p];
        if (!(d > 0)) return 0;
        d = sqrt(d);
        A[j * n + j] = d;
        for (int i = j + 1; i < n; ++i) {
            double s = A[i * n + j];
            for (int p = 0; p < j; ++p) s -= A[i * n + p] * A[j * n + p];
            A[i * n + j] = s / d;
        }
    }
    for (int c = 0; c < k; ++c) {
        for (int i = 0; i < n; ++i) { /* L y = b */
            double s = B[i * k + c];
            for (int p = 0; p < i; ++p) s -= A[i * n + p] * B[p * k + c];
            B[i * k + c] = s / A[i * n + i];
        }
        for (int i = n - 1; i >= 0; --i) { /* L^T x = y */
            double s = B[i * k + c];
            for (int p = i + 1; p < n; ++p) s -= A[p * n + i] * B[p * k + c];
            B[i * k + c] = s / A[i * n + i];
        }
    }
    return 1;
}

int sshopm_lsq_solve(int rows, int n, double *A, int k, double *B) {
    double rmax = 0;
    for (int j = 0; j < n; ++j) {
        double norm = 0;
        for (int i = j; i < rows; ++i) norm += A[i * n + j] * A[i * n + j];
        norm = sqrt(norm);
        if (norm == 0) return 0;
        const double alpha = A[j * n + j] > 0 ? -norm : norm;
        /* v = a_j - alpha e_j, stored in place; H = I - 2 v v^T / (v^T v) */
        A[j * n + j] -= alpha;
        double vv = 0;
        for (int i = j; i < rows; ++i) vv += A[i * n + j] * A[i * n + j];
        for (int c = j + 1; c < n; ++c) {
            double s = 0;
            for (int i = j; i < rows; ++i) s += A[i * n + j] * A[i * n + c];
            s = 2 * s / vv;
            for (int i = j; i < rows; ++i) A[i * n + c] -= s * A[i * n + j];
        }
        for (int c = 0; c < k; ++c) {
            double s = 0;
            for (int i = j; i < rows; ++i) s += A[i * n + j] * B[i * k + c];
            s = 2 * s / vv;
            for (int i = j; i < rows; ++i) B[i * k + c] -= s * A[i * n + j];
        }
        A[j * n + j] = alpha; /* R's diagonal (the rest of column j below is scratch) */
        rmax = fmax(rmax, fabs(alpha));
    }
    for (int j = 0; j < n; ++j)
        if (!(fabs(A[j * n + j]) > 1e-12 * rmax)) return 0;
    for (int c = 0; c < k; ++c)
        for (int i = n - 1; i >= 0; --i) {
            double s = B[i * k + c];
            for (int p = i + 1; p < n; ++p) s -= A[i * n + p] * B[p * k + c];
            B[i * k + c] = s / A[i * n + i];
        }
    return 1;
}

/* ---- Harmonics -> tensor ------------------------------------------------------------------------------------ */

static void fibonacci_sphere(int n, double *xyz) {
    const double golden = pi * (3 - sqrt(5.0));
    for (int s = 0; s < n; ++s) {
        double z = 1 - (2.0 * s + 1) / n, r = sqrt(fmax(0.0, 1 - z * z)), ph = golden * s;
        xyz[3 * s] = r * cos(ph), xyz[3 * s + 1] = r * sin(ph), xyz[3 * s + 2] = z;
    }
}

clpk_status sshopm_sh_to_tensor(int order, double *C, clpk_error *err) {
    const int R = sshopm_sh_count(order);
    if (!R || order < 2)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: order %d must be even, 2..8", order);
    sshopm_index idx;
    CLPK_TRY(sshopm_index_build(order, 3, &idx, err));
    const int U = idx.U, J = 8 * U;
    double *pts = malloc((size_t)J * 3 * sizeof *pts), *Phi = malloc((size_t)J * U * sizeof *Phi),
           *Y = malloc((size_t)J * R * sizeof *Y);
    clpk_status st = CLPK_SUCCESS;
    if (!pts || !Phi || !Y) st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of memory");
    if (st == CLPK_SUCCESS) {
        fibonacci_sphere(J, pts);
        for (int j = 0; j < J; ++j) {
            const double *x = pts + 3 * j;
            for (int u = 0; u < U; ++u) { /* x^k of class u; the multinomial is divided out below */
                double p = 1;
                for (int q = 0; q < order; ++q) p *= x[idx.rep[u * order + q]];
                Phi[j * U + u] = p;
            }
            sshopm_sh_eval(order, x, Y + (size_t)j * R);
        }
        if (U != R || !sshopm_lsq_solve(J, U, Phi, R, Y))
            st = core_error_set(err, CLPK_ERROR_INTERNAL, "dmri: harmonics-to-tensor map of order %d is singular",
                                order);
    }
    for (int u = 0; st == CLPK_SUCCESS && u < U; ++u)
        for (int r = 0; r < R; ++r) C[u * R + r] = Y[u * R + r] / idx.mult[u];
    free(pts);
    free(Phi);
    free(Y);
    sshopm_index_free(&idx);
    return st;
}

static double double_factorial(int n) {
    double f = 1;
    for (int k = n; k > 1; k -= 2) f *= k;
    return f;
}

double sshopm_tensor_sphere_mean(int order, const double *a) {
    sshopm_index idx;
    if (sshopm_index_build(order, 3, &idx, NULL) != CLPK_SUCCESS) return NAN;
    double mean = 0;
    for (int u = 0; u < idx.U; ++u) {
        const uint8_t *k = idx.mono + u * 3;
        if (k[0] % 2 || k[1] % 2 || k[2] % 2) continue;
        /* E[x^k] over the sphere = prod (k_i - 1)!! / (m + 1)!! */
        double e = double_factorial(k[0] - 1) * double_factorial(k[1] - 1) * double_factorial(k[2] - 1) /
                   double_factorial(order + 1);
        mean += idx.mult[u] * a[u] * e;
    }
    sshopm_index_free(&idx);
    return mean;
}

void sshopm_tensor_isotropic(int order, double *iso) {
    sshopm_index idx;
    if (sshopm_index_build(order, 3, &idx, NULL) != CLPK_SUCCESS) return;
    for (int u = 0; u < idx.U; ++u) {
        const uint8_t *k = idx.mono + u * 3;
        iso[u] = 0;
        if (k[0] % 2 || k[1] % 2 || k[2] % 2) continue;
        /* coefficient of x^k in (x^2 + y^2 + z^2)^(m/2), shared by the mult_u dense entries of the class */
        iso[u] = factorial(order / 2) / (factorial(k[0] / 2) * factorial(k[1] / 2) * factorial(k[2] / 2)) / idx.mult[u];
    }
    sshopm_index_free(&idx);
}

/* ---- Gradient tables ---------------------------------------------------------------------------------------- */

void clpk_sshopm_gradients_free(clpk_sshopm_gradients *g) {
    if (!g) return;
    free(g->bval);
    free(g->bvec);
    free(g->is_b0);
    memset(g, 0, sizeof *g);
}

/* Whitespace-separated numbers (nan allowed: a b = 0 row of some bvec files); row_len[r] = numbers on the r-th line
 * that has any. */
static clpk_status read_numbers(const char *path, double **values, int *count, int **row_len, int *rows,
                                clpk_error *err) {
    char *text = NULL;
    size_t size = 0;
    *values = NULL, *row_len = NULL, *count = 0, *rows = 0;
    CLPK_TRY(core_read_file(path, &text, &size, err));
    int cap = 256, rcap = 16, n = 0, nr = 0, line = 1, in_row = 0;
    double *v = malloc((size_t)cap * sizeof *v);
    int *rl = malloc((size_t)rcap * sizeof *rl);
    clpk_status st = v && rl ? CLPK_SUCCESS : core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (char *p = text; st == CLPK_SUCCESS;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ',') {
            if (*p == '\n') line++, in_row = 0;
            p++;
        }
        if (!*p) break;
        char *end = NULL;
        double x = strtod(p, &end);
        if (end == p || (*end && !strchr(" \t\r\n,", *end))) {
            st = core_error_set(err, CLPK_ERROR_PARSE, "%s: line %d: '%.20s' is not a number", path, line, p);
            break;
        }
        if (n == cap || nr == rcap) {
            double *bv = n == cap ? realloc(v, (size_t)cap * 2 * sizeof *v) : v;
            if (bv) v = bv, cap = n == cap ? cap * 2 : cap;
            int *br = nr == rcap ? realloc(rl, (size_t)rcap * 2 * sizeof *rl) : rl;
            if (br) rl = br, rcap = nr == rcap ? rcap * 2 : rcap;
            if (!bv || !br) {
                st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
                break;
            }
        }
        if (!in_row) rl[nr++] = 0, in_row = 1;
        rl[nr - 1]++;
        v[n++] = x;
        p = end;
    }
    free(text);
    if (st != CLPK_SUCCESS) {
        free(v);
        free(rl);
        return st;
    }
    *values = v, *count = n, *row_len = rl, *rows = nr;
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_gradients_read(const char *bval_path, const char *bvec_path, double b0_threshold,
                                       clpk_sshopm_gradients *g, clpk_error *err) {
    if (!bval_path || !bvec_path || !g)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "gradients: NULL argument");
    memset(g, 0, sizeof *g);
    if (!(b0_threshold >= 0) || !isfinite(b0_threshold))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "gradients: b0 threshold %g must be >= 0",
                              b0_threshold);
    double *bval = NULL, *bvec = NULL;
    int *rl_b = NULL, *rl_v = NULL, nb = 0, nv = 0, rows_b = 0, rows_v = 0;
    clpk_status st = read_numbers(bval_path, &bval, &nb, &rl_b, &rows_b, err);
    if (st == CLPK_SUCCESS) st = read_numbers(bvec_path, &bvec, &nv, &rl_v, &rows_v, err);
    if (st == CLPK_SUCCESS && nb == 0) st = core_error_set(err, CLPK_ERROR_PARSE, "%s: no b-values", bval_path);
    if (st == CLPK_SUCCESS && nv != 3 * nb)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                            "%s: %d numbers, but %s has %d b-values: expected 3 x %d (3 rows of %d, or %d rows of 3)",
                            bvec_path, nv, bval_path, nb, nb, nb, nb);
    int fsl = rows_v == 3; /* 3 rows of nb values; 3 x 3 is read this way too */
    for (int r = 0; st == CLPK_SUCCESS && r < rows_v; ++r)
        if ((fsl && rl_v[r] != nb) || (!fsl && rl_v[r] != 3))
            st = core_error_set(err, CLPK_ERROR_PARSE,
                                "%s: line %d of the vectors has %d values; expected 3 rows of %d (FSL) or %d rows of 3",
                                bvec_path, r + 1, rl_v[r], nb, nb);
    if (st == CLPK_SUCCESS && !fsl && rows_v != nb)
        st = core_error_set(err, CLPK_ERROR_PARSE, "%s: %d rows; expected 3 rows of %d (FSL) or %d rows of 3",
                            bvec_path, rows_v, nb, nb);
    for (int i = 0; st == CLPK_SUCCESS && i < nb; ++i)
        if (!isfinite(bval[i]) || bval[i] < 0)
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: b-value %d is %g (expected finite, >= 0)",
                                bval_path, i, bval[i]);
    if (st == CLPK_SUCCESS) {
        g->volumes = nb;
        g->bval = malloc((size_t)nb * sizeof *g->bval);
        g->bvec = calloc((size_t)nb * 3, sizeof *g->bvec);
        g->is_b0 = calloc((size_t)nb, sizeof *g->is_b0);
        if (!g->bval || !g->bvec || !g->is_b0)
            st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "gradients: out of memory");
    }
    int n_b0 = 0;
    for (int i = 0; st == CLPK_SUCCESS && i < nb; ++i) {
        g->bval[i] = bval[i];
        if (bval[i] <= b0_threshold) {
            g->is_b0[i] = 1;
            n_b0++;
            continue;
        }
        double v[3], norm = 0;
        for (int c = 0; c < 3; ++c) v[c] = fsl ? bvec[c * nb + i] : bvec[3 * i + c], norm += v[c] * v[c];
        norm = sqrt(norm);
        if (!isfinite(norm) || !(norm > 1e-6)) {
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                "%s: volume %d has b = %g but gradient vector (%g, %g, %g): not a direction",
                                bvec_path, i, bval[i], v[0], v[1], v[2]);
            break;
        }
        for (int c = 0; c < 3; ++c) g->bvec[3 * i + c] = v[c] / norm;
    }
    if (st == CLPK_SUCCESS && n_b0 == 0)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                            "%s: no b = 0 volume (b <= %g) to normalise the signal with", bval_path, b0_threshold);
    if (st == CLPK_SUCCESS && n_b0 == nb)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "%s: no diffusion-weighted volume (all b <= %g)",
                            bval_path, b0_threshold);
    free(bval);
    free(bvec);
    free(rl_b);
    free(rl_v);
    if (st != CLPK_SUCCESS) clpk_sshopm_gradients_free(g);
    return st;
}

/* ---- CSA ODF model ------------------------------------------------------------------------------------------ */

struct clpk_sshopm_odf_model {
    int order, U, R, volumes, n_dw, n_b0, distinct;
    int *column;   /* volumes: column of W for a used diffusion-weighted volume, -1 otherwise */
    int32_t *is_b0;
    double *W;     /* U x n_dw */
    double a0[SSHOPM_SH_MAX_COEFFS];
    double smooth, bref, bmin, bmax;
};

void clpk_sshopm_odf_options_default(clpk_sshopm_odf_options *o) {
    memset(o, 0, sizeof *o);
    o->order = 4;
    o->smooth = 0.006;
    o->b0_threshold = 50;
}

void clpk_sshopm_odf_model_destroy(clpk_sshopm_odf_model *m) {
    if (!m) return;
    free(m->column);
    free(m->is_b0);
    free(m->W);
    free(m);
}

void clpk_sshopm_odf_model_describe(const clpk_sshopm_odf_model *m, char *buf, size_t size) {
    if (!m || !buf || !size) return;
    snprintf(buf, size,
             "CSA ODF order %d (%d coefficients), lambda %g: %d of %d volumes, b %g..%g (reference %g, %d distinct "
             "directions), %d b0 volume%s",
             m->order, m->R, m->smooth, m->n_dw, m->volumes, m->bmin, m->bmax, m->bref, m->distinct, m->n_b0,
             m->n_b0 == 1 ? "" : "s");
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Legendre polynomial P_l(0) for even l: (-1)^(l/2) (l-1)!! / l!! */
static double legendre_at_zero(int l) {
    double p = 1;
    for (int k = 1; k <= l / 2; ++k) p *= -(2.0 * k - 1) / (2.0 * k);
    return p;
}

clpk_status clpk_sshopm_odf_model_create(const clpk_sshopm_gradients *g, const clpk_sshopm_odf_options *opts,
                                         clpk_sshopm_odf_model **out, clpk_error *err) {
    if (!g || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf: NULL argument");
    *out = NULL;
    clpk_sshopm_odf_options o;
    clpk_sshopm_odf_options_default(&o);
    if (opts) o = *opts;
    const int R = sshopm_sh_count(o.order);
    if (!R || o.order < 2)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf: order %d must be even, 2..8", o.order);
    if (!(o.smooth >= 0) || !isfinite(o.smooth))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf: smoothing %g must be >= 0", o.smooth);
    if (!(o.bmin >= 0) || !(o.bmax >= 0) || !isfinite(o.bmax) || (o.bmax > 0 && o.bmax < o.bmin))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf: b window [%g, %g] is not a range", o.bmin,
                              o.bmax);
    if (g->volumes < 2 || !g->bval || !g->bvec || !g->is_b0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf: empty gradient table");
    const int V = g->volumes;
    double *bs = malloc((size_t)V * sizeof *bs);
    if (!bs) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "odf: out of memory");
    int n_dw = 0, n_b0 = 0;
    for (int i = 0; i < V; ++i) {
        if (g->is_b0[i]) n_b0++;
        else bs[n_dw++] = g->bval[i];
    }
    if (n_b0 == 0 || n_dw == 0) {
        free(bs);
        return core_error_set(err, CLPK_ERROR_INVALID_DATA, "odf: the table needs b = 0 and diffusion-weighted volumes "
                                                            "(has %d and %d)", n_b0, n_dw);
    }
    qsort(bs, (size_t)n_dw, sizeof *bs, compare_double);
    double lo = o.bmin, hi = o.bmax;
    if (lo == 0 && hi == 0) {
        const double med = n_dw % 2 ? bs[n_dw / 2] : 0.5 * (bs[n_dw / 2 - 1] + bs[n_dw / 2]);
        lo = med / 2, hi = 2 * med;
    } else if (hi == 0) {
        hi = INFINITY;
    }
    clpk_sshopm_odf_model *m = calloc(1, sizeof *m);
    if (!m) {
        free(bs);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "odf: out of memory");
    }
    m->order = o.order, m->R = R, m->U = R, m->volumes = V, m->n_b0 = n_b0, m->smooth = o.smooth;
    m->column = malloc((size_t)V * sizeof *m->column);
    m->is_b0 = malloc((size_t)V * sizeof *m->is_b0);
    int used = 0;
    for (int i = 0; m->column && i < V; ++i) {
        m->column[i] = -1;
        if (!g->is_b0[i] && g->bval[i] >= lo && g->bval[i] <= hi) bs[used] = g->bval[i], m->column[i] = used++;
    }
    clpk_status st = m->column && m->is_b0 ? CLPK_SUCCESS
                                           : core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "odf: out of memory");
    if (st == CLPK_SUCCESS) memcpy(m->is_b0, g->is_b0, (size_t)V * sizeof *m->is_b0);
    if (st == CLPK_SUCCESS && used == 0)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA, "odf: no diffusion-weighted volume with %g <= b <= %g", lo, hi);
    m->n_dw = used;
    /* distinct directions (as axes, 1 degree apart) in the window */
    const double *dirs[4096];
    int distinct = 0;
    for (int i = 0; st == CLPK_SUCCESS && i < V && distinct < 4096; ++i) {
        if (m->column[i] < 0) continue;
        const double *d = g->bvec + 3 * i;
        int seen = 0;
        for (int j = 0; j < distinct && !seen; ++j)
            seen = fabs(d[0] * dirs[j][0] + d[1] * dirs[j][1] + d[2] * dirs[j][2]) > cos(pi / 180);
        if (!seen) dirs[distinct++] = d;
    }
    m->distinct = distinct;
    if (st == CLPK_SUCCESS) {
        double bmn = INFINITY, bmx = 0;
        for (int k = 0; k < used; ++k) bmn = fmin(bmn, bs[k]), bmx = fmax(bmx, bs[k]);
        qsort(bs, (size_t)used, sizeof *bs, compare_double);
        m->bref = used % 2 ? bs[used / 2] : 0.5 * (bs[used / 2 - 1] + bs[used / 2]);
        m->bmin = bmn, m->bmax = bmx;
    }
    if (st == CLPK_SUCCESS && distinct < R)
        st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                            "odf: the scheme is too small for order %d: %d distinct gradient directions with %g <= b <= "
                            "%g, but order %d has %d even spherical-harmonic coefficients (use a lower --order)",
                            o.order, distinct, m->bmin, m->bmax, o.order, R);
    /* P = (B^T B + lambda diag(l^2 (l+1)^2))^-1 B^T (R x n), psi = F P y with F_l = P_l(0) (-l(l+1)) / (8 pi),
     * psi_00 = 1 / (2 sqrt(pi)) (dipy's CsaOdfModel); W = C diag(F) P, a0 = C e_0 psi_00 + W log(b_ref / b). */
    double *B = NULL, *M = NULL, *P = NULL, *C = NULL;
    int l[SSHOPM_SH_MAX_COEFFS];
    if (st == CLPK_SUCCESS) {
        B = malloc((size_t)used * R * sizeof *B);
        M = malloc((size_t)R * R * sizeof *M);
        P = malloc((size_t)R * used * sizeof *P);
        C = malloc((size_t)R * R * sizeof *C);
        m->W = malloc((size_t)R * used * sizeof *m->W);
        if (!B || !M || !P || !C || !m->W) st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "odf: out of memory");
    }
    if (st == CLPK_SUCCESS) {
        sshopm_sh_degrees(o.order, l);
        for (int i = 0; i < V; ++i)
            if (m->column[i] >= 0) sshopm_sh_eval(o.order, g->bvec + 3 * i, B + (size_t)m->column[i] * R);
        for (int r = 0; r < R; ++r)
            for (int c = 0; c < R; ++c) {
                double s = 0;
                for (int k = 0; k < used; ++k) s += B[k * R + r] * B[k * R + c];
                M[r * R + c] = s + (r == c ? o.smooth * pow(l[r] * (l[r] + 1.0), 2) : 0);
            }
        for (int r = 0; r < R; ++r)
            for (int k = 0; k < used; ++k) P[r * used + k] = B[k * R + r];
        if (!sshopm_spd_solve(R, M, used, P))
            st = core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                "odf: the gradient directions do not determine order-%d harmonics (degenerate scheme)",
                                o.order);
    }
    if (st == CLPK_SUCCESS) st = sshopm_sh_to_tensor(o.order, C, err);
    if (st == CLPK_SUCCESS) {
        for (int u = 0; u < R; ++u) {
            for (int k = 0; k < used; ++k) {
                double s = 0;
                for (int r = 1; r < R; ++r) s += C[u * R + r] * legendre_at_zero(l[r]) * (-l[r] * (l[r] + 1.0)) /
                                                 (8 * pi) * P[r * used + k];
                m->W[u * used + k] = s;
            }
            m->a0[u] = C[u * R] * 0.5 / sqrt(pi);
        }
        for (int i = 0; i < V; ++i) {
            const int k = m->column[i];
            if (k < 0) continue;
            const double shift = log(m->bref / g->bval[i]); /* log(-log E^(b_ref/b)) = log(-log E) + log(b_ref/b) */
            for (int u = 0; u < R; ++u) m->a0[u] += m->W[u * used + k] * shift;
        }
    }
    free(bs);
    free(B);
    free(M);
    free(P);
    free(C);
    if (st != CLPK_SUCCESS) {
        clpk_sshopm_odf_model_destroy(m);
        return st;
    }
    *out = m;
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_odf_fit(const clpk_sshopm_odf_model *m, const double *signal, int64_t voxels,
                                const uint8_t *active, double *tensors, uint8_t *valid, int64_t *n_valid,
                                clpk_error *err) {
    if (!m || !signal || !tensors || voxels < 0)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf fit: NULL argument");
    const int U = m->U, n = m->n_dw;
    double *y = malloc((size_t)n * sizeof *y);
    if (!y) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "odf fit: out of memory");
    int64_t good = 0;
    for (int64_t v = 0; v < voxels; ++v) {
        double *a = tensors + v * U;
        int ok = !active || active[v];
        double s0 = 0;
        for (int q = 0; ok && q < m->volumes; ++q)
            if (m->is_b0[q]) s0 += signal[q * voxels + v];
        s0 /= m->n_b0;
        ok = ok && isfinite(s0) && s0 > 0;
        for (int q = 0; ok && q < m->volumes; ++q) {
            const int k = m->column[q];
            if (k < 0) continue;
            double e = signal[q * voxels + v] / s0;
            if (!isfinite(e)) ok = 0;
            e = fmin(fmax(e, 0.001), 0.999); /* dipy's CsaOdfModel clips the same way */
            y[k] = log(-log(e));
        }
        if (valid) valid[v] = (uint8_t)ok;
        if (!ok) {
            memset(a, 0, (size_t)U * sizeof *a);
            continue;
        }
        good++;
        for (int u = 0; u < U; ++u) {
            const double *w = m->W + (size_t)u * n;
            double s = m->a0[u];
            for (int k = 0; k < n; ++k) s += w[k] * y[k];
            a[u] = s;
        }
    }
    free(y);
    if (n_valid) *n_valid = good;
    return CLPK_SUCCESS;
}

void sshopm_odf_linear_free(sshopm_odf_linear *l) {
    if (!l) return;
    free(l->M);
    free(l->dw_volume);
    free(l->b0_volume);
    memset(l, 0, sizeof *l);
}

clpk_status sshopm_odf_linear_build(const clpk_sshopm_odf_model *m, sshopm_odf_linear *out, clpk_error *err) {
    if (!m || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "odf linear map: NULL argument");
    memset(out, 0, sizeof *out);
    const int U = m->U, n = m->n_dw;
    out->order = m->order, out->U = U, out->n_dw = n, out->n_b0 = m->n_b0, out->volumes = m->volumes;
    out->M = malloc((size_t)n * (U + 1) * sizeof *out->M);
    out->dw_volume = malloc((size_t)n * sizeof *out->dw_volume);
    out->b0_volume = malloc((size_t)m->n_b0 * sizeof *out->b0_volume);
    if (!out->M || !out->dw_volume || !out->b0_volume) {
        sshopm_odf_linear_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "odf linear map: out of memory");
    }
    double iso[SSHOPM_SH_MAX_COEFFS], mean_w[SSHOPM_SH_MAX_COEFFS], unit[SSHOPM_SH_MAX_COEFFS] = {0};
    sshopm_tensor_isotropic(m->order, iso);
    for (int u = 0; u < U; ++u) { /* the spherical mean is linear in the entries */
        unit[u] = 1;
        mean_w[u] = sshopm_tensor_sphere_mean(m->order, unit);
        unit[u] = 0;
    }
    double mean0 = 0;
    for (int u = 0; u < U; ++u) mean0 += mean_w[u] * m->a0[u];
    for (int u = 0; u < U; ++u) out->c[u] = m->a0[u] - iso[u] * mean0;
    out->c[U] = mean0;
    for (int k = 0; k < n; ++k) {
        double mk = 0;
        for (int u = 0; u < U; ++u) mk += mean_w[u] * m->W[(size_t)u * n + k];
        double *col = out->M + (size_t)k * (U + 1);
        for (int u = 0; u < U; ++u) col[u] = m->W[(size_t)u * n + k] - iso[u] * mk;
        col[U] = mk;
    }
    for (int q = 0, b = 0; q < m->volumes; ++q) {
        if (m->column[q] >= 0) out->dw_volume[m->column[q]] = q;
        if (m->is_b0[q]) out->b0_volume[b++] = q;
    }
    return CLPK_SUCCESS;
}

void sshopm_peak_samples(const sshopm_index *idx, double *samples) {
    double pts[SSHOPM_PEAK_SAMPLES * 3];
    sshopm_make_starts(3, SSHOPM_PEAK_SAMPLES, CLPK_SSHOPM_STARTS_SPHERE, 1, pts, NULL);
    for (int s = 0; s < SSHOPM_PEAK_SAMPLES; ++s)
        for (int u = 0; u < idx->U; ++u) {
            double p = idx->mult[u];
            for (int q = 0; q < idx->m; ++q) p *= pts[3 * s + idx->rep[u * idx->m + q]];
            samples[s * idx->U + u] = p;
        }
}
