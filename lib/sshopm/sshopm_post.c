/* SS-HOPM post-processing on the host, in double: de-duplication of the starts' limits per tensor, classification
 * by the projected Hessian, hit counts, sorting; JSON output; dense-input compression with a symmetry check. */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *clpk_sshopm_type_name(clpk_sshopm_type type) {
    switch (type) {
    case CLPK_SSHOPM_TYPE_MAX: return "max";
    case CLPK_SSHOPM_TYPE_MIN: return "min";
    case CLPK_SSHOPM_TYPE_SADDLE: return "saddle";
    case CLPK_SSHOPM_TYPE_DEGENERATE: return "degenerate";
    }
    return "unknown";
}

void clpk_sshopm_post_options_default(clpk_sshopm_post_options *o) {
    o->lambda_tol = 1e-4;
    o->x_tol = 5e-2;
    o->class_tol = 1e-6;
    o->capped_steps = 20;
}

/* Eigenvalues of U^T((m-1) A x^(m-2) - lambda I) U, U an orthonormal basis of x's complement (Householder). */
static clpk_sshopm_type classify_with(const sshopm_index *idx, const double *a, double lambda, const double *x,
                                      double class_tol, double *residual) {
    const int n = idx->n, m = idx->m;
    double h[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM], q[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM], t[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
    double y[SSHOPM_MAX_DIM], v[SSHOPM_MAX_DIM], e[SSHOPM_MAX_DIM];
    double xn = 0;
    for (int i = 0; i < n; ++i)
        xn += x[i] * x[i];
    xn = sqrt(xn);
    double xu[SSHOPM_MAX_DIM] = {0};
    for (int i = 0; i < n; ++i)
        xu[i] = x[i] / xn;
    if (residual) {
        sshopm_ref_gradient(idx, a, xu, y);
        double r = 0;
        for (int i = 0; i < n; ++i)
            r += (y[i] - lambda * xu[i]) * (y[i] - lambda * xu[i]);
        *residual = sqrt(r);
    }
    sshopm_ref_hessian(idx, a, xu, h);
    for (int i = 0; i < n * n; ++i)
        h[i] *= (m - 1);
    for (int i = 0; i < n; ++i)
        h[i * n + i] -= lambda;
    /* Q = I - 2 v v^T / v^T v with v = x + sign(x0) e0: Q's first column is -sign(x0) x, the others span x-perp. */
    double vv = 0;
    for (int i = 0; i < n; ++i)
        v[i] = xu[i];
    v[0] += xu[0] >= 0 ? 1 : -1;
    for (int i = 0; i < n; ++i)
        vv += v[i] * v[i];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            q[i * n + j] = (i == j) - 2 * v[i] * v[j] / vv;
    /* t = Q^T H Q, restricted to indices 1..n-1. */
    double hq[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k)
                s += h[i * n + k] * q[k * n + j];
            hq[i * n + j] = s;
        }
    const int r = n - 1;
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < r; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k)
                s += q[k * n + i + 1] * hq[k * n + j + 1];
            t[i * r + j] = s;
        }
    for (int i = 0; i < r; ++i)
        for (int j = 0; j < i; ++j)
            t[i * r + j] = t[j * r + i] = 0.5 * (t[i * r + j] + t[j * r + i]);
    sshopm_sym_eig(r, t, e, NULL);
    const double tol = class_tol * fmax(1.0, fabs(lambda));
    int neg = 0, pos = 0;
    for (int i = 0; i < r; ++i) {
        if (e[i] < -tol)
            neg++;
        else if (e[i] > tol)
            pos++;
    }
    if (neg == r) return CLPK_SSHOPM_TYPE_MAX;
    if (pos == r) return CLPK_SSHOPM_TYPE_MIN;
    if (neg && pos) return CLPK_SSHOPM_TYPE_SADDLE;
    return CLPK_SSHOPM_TYPE_DEGENERATE;
}

clpk_sshopm_type clpk_sshopm_classify(int order, int dim, const double *tensor, double lambda, const double *x,
                                      double class_tol, double *residual) {
    sshopm_index idx;
    if (!tensor || !x || sshopm_index_build(order, dim, &idx, NULL) != CLPK_SUCCESS) return CLPK_SSHOPM_TYPE_DEGENERATE;
    clpk_sshopm_type type = classify_with(&idx, tensor, lambda, x, class_tol, residual);
    sshopm_index_free(&idx);
    return type;
}

/* For even m, x and -x are one eigenvector: make the largest-magnitude component positive. */
static void canonical_sign(int n, double *x) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (fabs(x[i]) > fabs(x[best]) + 1e-12) best = i;
    if (x[best] < 0)
        for (int i = 0; i < n; ++i)
            x[i] = -x[i];
}

int sshopm_find_cluster(const clpk_sshopm_eigenpair *pairs, int k, int n, int even, const clpk_sshopm_post_options *o,
                        double lam, const double *x) {
    for (int c = 0; c < k; ++c) {
        if (fabs(pairs[c].lambda - lam) > o->lambda_tol * fmax(1.0, fabs(lam))) continue;
        double d = 0, d2 = 0;
        for (int i = 0; i < n; ++i) {
            d += (pairs[c].x[i] - x[i]) * (pairs[c].x[i] - x[i]);
            d2 += (pairs[c].x[i] + x[i]) * (pairs[c].x[i] + x[i]);
        }
        if (sqrt(d) <= o->x_tol || (even && sqrt(d2) <= o->x_tol)) return c;
    }
    return -1;
}

static void newton_polish(const sshopm_index *idx, const double *a, double *lambda, double *x, int steps);

int sshopm_add_capped(const sshopm_index *idx, const double *a, const clpk_sshopm_post_options *o, double lambda,
                      const double *x_in, clpk_sshopm_eigenpair *pairs, int *count) {
    const int n = idx->n, even = idx->m % 2 == 0;
    double x[SSHOPM_MAX_DIM], y[SSHOPM_MAX_DIM], lam = lambda, norm = 0;
    for (int i = 0; i < n; ++i) {
        x[i] = x_in[i];
        norm += x[i] * x[i];
    }
    if (o->capped_steps <= 0 || !isfinite(lambda) || !(norm > 0) || !isfinite(norm)) return 0;
    newton_polish(idx, a, &lam, x, o->capped_steps);
    /* an eigenpair to double accuracy, whatever kind: |A x^(m-1) - lambda x| <= 1e-9 ||A||_F */
    lam = sshopm_ref_gradient(idx, a, x, y);
    double r = 0;
    for (int i = 0; i < n; ++i)
        r += (y[i] - lam * x[i]) * (y[i] - lam * x[i]);
    if (!(sqrt(r) <= 1e-9 * sshopm_ref_frobenius(idx, a))) return 0;
    if (even) canonical_sign(n, x);
    const int c = sshopm_find_cluster(pairs, *count, n, even, o, lam, x);
    if (c >= 0) {
        pairs[c].hits++;
        return 1;
    }
    clpk_sshopm_eigenpair *p = &pairs[(*count)++];
    memset(p, 0, sizeof *p);
    p->lambda = lam;
    for (int i = 0; i < n; ++i)
        p->x[i] = x[i];
    p->hits = 1;
    p->type = classify_with(idx, a, lam, x, o->class_tol, &p->residual);
    return 1;
}

static int by_lambda_desc(const void *pa, const void *pb) {
    const clpk_sshopm_eigenpair *a = pa, *b = pb;
    return (a->lambda < b->lambda) - (a->lambda > b->lambda);
}

clpk_status clpk_sshopm_postprocess(const double *tensors, const clpk_sshopm_raw *raw,
                                    const clpk_sshopm_post_options *opts, clpk_sshopm_result *out, clpk_error *err) {
    if (!tensors || !raw || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: NULL argument");
    memset(out, 0, sizeof *out);
    clpk_sshopm_post_options o;
    if (opts)
        o = *opts;
    else
        clpk_sshopm_post_options_default(&o);
    sshopm_index idx;
    CLPK_TRY(sshopm_index_build(raw->order, raw->dim, &idx, err));
    const int n = raw->dim, U = idx.U, per = raw->directions * raw->starts;
    const int even = raw->order % 2 == 0;
    out->n_tensors = raw->n_tensors;
    out->order = raw->order;
    out->dim = n;
    out->tensors = calloc((size_t)raw->n_tensors, sizeof *out->tensors);
    clpk_sshopm_eigenpair *clusters = malloc((size_t)per * sizeof *clusters);
    size_t cap = (size_t)raw->n_tensors * 4 + 16, used = 0;
    out->storage = malloc(cap * sizeof *out->storage);
    size_t *offsets = malloc((size_t)raw->n_tensors * sizeof *offsets);
    clpk_status st = CLPK_SUCCESS;
    if (!out->tensors || !clusters || !out->storage || !offsets)
        st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory post-processing");
    for (int64_t t = 0; st == CLPK_SUCCESS && t < raw->n_tensors; ++t) {
        clpk_sshopm_tensor_result *tr = &out->tensors[t];
        const double *a = tensors + (size_t)t * U;
        int k = 0;
        for (int s = 0; s < per; ++s) {
            const size_t g = (size_t)t * per + s;
            int status = CLPK_SSHOPM_INFO_STATUS(raw->info[g]);
            if (status == CLPK_SSHOPM_CAPPED)
                tr->capped++;
            else if (status != CLPK_SSHOPM_CONVERGED || !isfinite(raw->lambda[g]))
                tr->failed++;
            if (status != CLPK_SSHOPM_CONVERGED || !isfinite(raw->lambda[g])) continue;
            tr->converged++;
            double x[SSHOPM_MAX_DIM];
            for (int i = 0; i < n; ++i)
                x[i] = raw->x[g * n + i];
            if (even) canonical_sign(n, x);
            const double lam = raw->lambda[g];
            const int found = sshopm_find_cluster(clusters, k, n, even, &o, lam, x);
            if (found >= 0) {
                clusters[found].hits++;
                continue;
            }
            clpk_sshopm_eigenpair *p = &clusters[k++];
            memset(p, 0, sizeof *p);
            p->lambda = lam;
            for (int i = 0; i < n; ++i)
                p->x[i] = x[i];
            p->hits = 1;
        }
        for (int c = 0; c < k; ++c)
            clusters[c].type =
                classify_with(&idx, a, clusters[c].lambda, clusters[c].x, o.class_tol, &clusters[c].residual);
        /* capped starts are not dropped: Newton in double takes those it can to an eigenpair (after the converged
         * ones, so the pairs of converged starts are the same as without them) */
        for (int s = 0; s < per; ++s) {
            const size_t g = (size_t)t * per + s;
            if (CLPK_SSHOPM_INFO_STATUS(raw->info[g]) != CLPK_SSHOPM_CAPPED) continue;
            if (sshopm_add_capped(&idx, a, &o, raw->lambda[g], raw->x + g * n, clusters, &k))
                tr->polished++;
            else
                tr->unconverged++;
        }
        qsort(clusters, (size_t)k, sizeof *clusters, by_lambda_desc);
        if (used + (size_t)k > cap) {
            while (used + (size_t)k > cap)
                cap *= 2;
            clpk_sshopm_eigenpair *grown = realloc(out->storage, cap * sizeof *grown);
            if (!grown) {
                st = core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of memory post-processing");
                break;
            }
            out->storage = grown;
        }
        memcpy(out->storage + used, clusters, (size_t)k * sizeof *clusters);
        offsets[t] = used;
        tr->count = k;
        used += (size_t)k;
    }
    if (st == CLPK_SUCCESS)
        for (int64_t t = 0; t < raw->n_tensors; ++t)
            out->tensors[t].pairs = out->storage + offsets[t];
    free(clusters);
    free(offsets);
    sshopm_index_free(&idx);
    if (st != CLPK_SUCCESS) clpk_sshopm_result_free(out);
    return st;
}

void clpk_sshopm_result_free(clpk_sshopm_result *r) {
    if (!r) return;
    free(r->tensors);
    free(r->storage);
    memset(r, 0, sizeof *r);
}

double sshopm_unit_scale(const sshopm_index *idx, const double *a) {
    const double norm = sshopm_ref_frobenius(idx, a);
    const int in_range = norm >= SSHOPM_UNIT_NORM_BELOW && norm <= SSHOPM_UNIT_NORM_ABOVE;
    return norm > 0 && isfinite(norm) && !in_range ? norm : 1;
}

clpk_status sshopm_scale_to_unit(const sshopm_index *idx, const double *tensors, int64_t n_tensors, double **scaled,
                                 double **scales, clpk_error *err) {
    *scaled = NULL;
    *scales = NULL;
    if (!tensors || n_tensors < 1) return CLPK_SUCCESS;
    const int U = idx->U;
    for (int64_t t = 0; t < n_tensors; ++t) {
        const double norm = sshopm_unit_scale(idx, tensors + (size_t)t * U);
        if (norm == 1) continue;
        if (!*scaled) {
            *scaled = malloc((size_t)n_tensors * U * sizeof **scaled);
            *scales = malloc((size_t)n_tensors * sizeof **scales);
            if (!*scaled || !*scales) {
                free(*scaled), free(*scales);
                *scaled = *scales = NULL;
                return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "sshopm: out of host memory");
            }
            memcpy(*scaled, tensors, (size_t)n_tensors * U * sizeof **scaled);
            for (int64_t k = 0; k < n_tensors; ++k)
                (*scales)[k] = 1;
        }
        (*scales)[t] = norm;
        for (int u = 0; u < U; ++u)
            (*scaled)[(size_t)t * U + u] /= norm;
    }
    return CLPK_SUCCESS;
}

void sshopm_unscale_result(clpk_sshopm_result *r, const double *scales) {
    for (int64_t t = 0; scales && t < r->n_tensors; ++t)
        for (int i = 0; i < r->tensors[t].count; ++i) {
            r->tensors[t].pairs[i].lambda *= scales[t];
            r->tensors[t].pairs[i].residual *= scales[t];
        }
}

clpk_status clpk_sshopm_solve_host(clpk_sshopm_plan *plan, const double *tensors, int64_t n_tensors,
                                   const clpk_sshopm_post_options *post, clpk_sshopm_result *out) {
    if (!plan) return CLPK_ERROR_INVALID_ARGUMENT;
    double *scaled = NULL, *scales = NULL;
    clpk_error err = {0};
    if (sshopm_scale_to_unit(&plan->idx, tensors, n_tensors, &scaled, &scales, &err) != CLPK_SUCCESS)
        return core_fail_from(plan->ctx, &err);
    const double *a = scaled ? scaled : tensors;
    clpk_sshopm_raw raw;
    clpk_status st = clpk_sshopm_run_host(plan, a, n_tensors, &raw);
    if (st == CLPK_SUCCESS) {
        st = clpk_sshopm_postprocess(a, &raw, post, out, &err);
        clpk_sshopm_raw_free(&raw);
        if (st == CLPK_SUCCESS)
            sshopm_unscale_result(out, scales);
        else
            st = core_fail_from(plan->ctx, &err);
    }
    free(scaled);
    free(scales);
    return st;
}

clpk_status clpk_sshopm_result_write_json(const char *path, const clpk_sshopm_result *r, clpk_error *err) {
    if (!path || !r) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: NULL argument");
    FILE *f = fopen(path, "w");
    if (!f) return core_error_set(err, CLPK_ERROR_IO, "sshopm: cannot write %s", path);
    /* Streamed by hand: a million tensors would make a cJSON tree needlessly large. */
    int ok = fprintf(f, "{\"order\": %d, \"dim\": %d, \"tensors\": [", r->order, r->dim) > 0;
    for (int64_t t = 0; ok && t < r->n_tensors; ++t) {
        const clpk_sshopm_tensor_result *tr = &r->tensors[t];
        ok = fprintf(f,
                     "%s\n {\"converged\": %d, \"capped\": %d, \"failed\": %d, \"polished\": %d, \"unconverged\": %d, "
                     "\"eigenpairs\": [",
                     t ? "," : "", tr->converged, tr->capped, tr->failed, tr->polished, tr->unconverged) > 0;
        for (int i = 0; ok && i < tr->count; ++i) {
            const clpk_sshopm_eigenpair *p = &tr->pairs[i];
            ok = fprintf(f, "%s{\"lambda\": %.17g, \"x\": [", i ? ", " : "", p->lambda) > 0;
            for (int j = 0; ok && j < r->dim; ++j)
                ok = fprintf(f, "%s%.17g", j ? ", " : "", p->x[j]) > 0;
            ok = ok && fprintf(f, "], \"type\": \"%s\", \"hits\": %d, \"residual\": %.3g}",
                               clpk_sshopm_type_name(p->type), p->hits, p->residual) > 0;
        }
        ok = ok && fprintf(f, "]}") > 0;
    }
    ok = ok && fprintf(f, "\n]}\n") > 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok) return core_error_set(err, CLPK_ERROR_IO, "sshopm: writing %s failed", path);
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_compress_dense(int order, int dim, const double *dense, int64_t n_tensors, double tol,
                                       double *unique, clpk_error *err) {
    if (!dense || !unique || n_tensors < 1)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "sshopm: no dense tensors to compress");
    sshopm_index idx;
    CLPK_TRY(sshopm_index_build(order, dim, &idx, err));
    int64_t size = 1;
    for (int p = 0; p < order; ++p)
        size *= dim;
    const int U = idx.U;
    sshopm_index_free(&idx);
    int rep[SSHOPM_MAX_ORDER], k[SSHOPM_MAX_DIM];
    for (int64_t t = 0; t < n_tensors; ++t) {
        const double *d = dense + t * size;
        double *out = unique + t * U;
        double scale = 0;
        for (int64_t e = 0; e < size; ++e) {
            if (!isfinite(d[e]))
                return core_error_set(err, CLPK_ERROR_INVALID_DATA, "sshopm: tensor %lld has a non-finite entry",
                                      (long long)t);
            scale = fmax(scale, fabs(d[e]));
        }
        for (int u = 0; u < U; ++u)
            out[u] = NAN;
        for (int64_t e = 0; e < size; ++e) {
            int64_t r = e;
            for (int i = 0; i < dim; ++i)
                k[i] = 0;
            for (int p = order - 1; p >= 0; --p) {
                rep[p] = (int)(r % dim);
                r /= dim;
                k[rep[p]]++;
            }
            int u = sshopm_rank_mono(order, dim, k);
            if (isnan(out[u]))
                out[u] = d[e];
            else if (fabs(out[u] - d[e]) > tol * scale)
                return core_error_set(err, CLPK_ERROR_INVALID_DATA,
                                      "sshopm: tensor %lld is not symmetric: entries of one index class differ by "
                                      "%.3g (tolerance %.3g)",
                                      (long long)t, fabs(out[u] - d[e]), tol * scale);
        }
    }
    return CLPK_SUCCESS;
}

int sshopm_solve_small(int p, double *M, double *b) {
    for (int c = 0; c < p; ++c) {
        int piv = c;
        for (int r = c + 1; r < p; ++r)
            if (fabs(M[r * p + c]) > fabs(M[piv * p + c])) piv = r;
        if (!(fabs(M[piv * p + c]) > 1e-300)) return 0;
        if (piv != c) {
            for (int j = 0; j < p; ++j) {
                double t = M[c * p + j];
                M[c * p + j] = M[piv * p + j];
                M[piv * p + j] = t;
            }
            double t = b[c];
            b[c] = b[piv];
            b[piv] = t;
        }
        for (int r = c + 1; r < p; ++r) {
            double f = M[r * p + c] / M[c * p + c];
            for (int j = c; j < p; ++j)
                M[r * p + j] -= f * M[c * p + j];
            b[r] -= f * b[c];
        }
    }
    for (int r = p - 1; r >= 0; --r) {
        for (int j = r + 1; j < p; ++j)
            b[r] -= M[r * p + j] * b[j];
        b[r] /= M[r * p + r];
    }
    return 1;
}

/* ||A x^(m-1) - lambda x|| at unit x, with lambda = x^T A x^(m-1) returned in *lambda. */
static double eigen_residual(const sshopm_index *idx, const double *a, const double *x, double *lambda) {
    double y[SSHOPM_MAX_DIM];
    *lambda = sshopm_ref_gradient(idx, a, x, y);
    double r = 0;
    for (int i = 0; i < idx->n; ++i)
        r += (y[i] - *lambda * x[i]) * (y[i] - *lambda * x[i]);
    return sqrt(r);
}

static void newton_polish(const sshopm_index *idx, const double *a, double *lambda, double *x, int steps) {
    const int n = idx->n, m = idx->m, p = n + 1;
    double nx = 0;
    for (int i = 0; i < n; ++i)
        nx += x[i] * x[i];
    for (int i = 0; i < n; ++i)
        x[i] /= sqrt(nx);
    double lam, res = eigen_residual(idx, a, x, &lam);
    for (int it = 0; it < steps && res > 0; ++it) {
        double y[SSHOPM_MAX_DIM], h[SSHOPM_MAX_DIM * SSHOPM_MAX_DIM], J[(SSHOPM_MAX_DIM + 1) * (SSHOPM_MAX_DIM + 1)];
        double rhs[SSHOPM_MAX_DIM + 1], xn[SSHOPM_MAX_DIM];
        sshopm_ref_gradient(idx, a, x, y);
        sshopm_ref_hessian(idx, a, x, h);
        /* F = (A x^(m-1) - lambda x, (x^T x - 1) / 2); J = [(m-1) A x^(m-2) - lambda I, -x; x^T, 0] */
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j)
                J[i * p + j] = (m - 1) * h[i * n + j] - (i == j ? lam : 0);
            J[i * p + n] = -x[i];
            J[n * p + i] = x[i];
            rhs[i] = -(y[i] - lam * x[i]);
        }
        J[n * p + n] = 0;
        rhs[n] = 0;
        if (!sshopm_solve_small(p, J, rhs)) break;
        double nn = 0;
        for (int i = 0; i < n; ++i) {
            xn[i] = x[i] + rhs[i];
            nn += xn[i] * xn[i];
        }
        nn = sqrt(nn);
        if (!(nn > 0) || !isfinite(nn)) break;
        for (int i = 0; i < n; ++i)
            xn[i] /= nn;
        double lam_new, res_new = eigen_residual(idx, a, xn, &lam_new);
        if (!(res_new < res)) break;
        memcpy(x, xn, (size_t)n * sizeof *x);
        lam = lam_new;
        res = res_new;
    }
    *lambda = lam;
}

clpk_status clpk_sshopm_polish(const double *tensors, clpk_sshopm_result *r, int steps, double class_tol,
                               clpk_error *err) {
    if (!tensors || !r) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "sshopm polish: NULL argument");
    if (steps < 0 || steps > 100)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "sshopm polish: steps %d out of range 0..100", steps);
    if (class_tol <= 0) class_tol = 1e-6;
    sshopm_index idx;
    CLPK_TRY(sshopm_index_build(r->order, r->dim, &idx, err));
    const int n = r->dim, even = r->order % 2 == 0;
    double *unit = malloc((size_t)idx.U * sizeof *unit);
    if (!unit) {
        sshopm_index_free(&idx);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "sshopm polish: out of memory");
    }
    for (int64_t t = 0; t < r->n_tensors; ++t) {
        clpk_sshopm_tensor_result *tr = &r->tensors[t];
        const double *a = tensors + (size_t)t * idx.U;
        /* as the solve functions: a tensor far from unit norm is polished and classified at unit norm */
        const double s = sshopm_unit_scale(&idx, a);
        if (s != 1) {
            for (int u = 0; u < idx.U; ++u)
                unit[u] = a[u] / s;
            a = unit;
        }
        for (int i = 0; i < tr->count; ++i) {
            clpk_sshopm_eigenpair *p = &tr->pairs[i];
            p->lambda /= s;
            newton_polish(&idx, a, &p->lambda, p->x, steps);
            if (even) canonical_sign(n, p->x);
            p->type = classify_with(&idx, a, p->lambda, p->x, class_tol, &p->residual);
        }
        /* merge pairs that polished to the same point */
        int k = 0;
        for (int i = 0; i < tr->count; ++i) {
            int into = -1;
            for (int j = 0; j < k && into < 0; ++j) {
                const clpk_sshopm_eigenpair *q = &tr->pairs[j], *p = &tr->pairs[i];
                if (fabs(q->lambda - p->lambda) > 1e-9 * fmax(1.0, fabs(p->lambda))) continue;
                double d = 0, d2 = 0;
                for (int c = 0; c < n; ++c) {
                    d += (q->x[c] - p->x[c]) * (q->x[c] - p->x[c]);
                    d2 += (q->x[c] + p->x[c]) * (q->x[c] + p->x[c]);
                }
                if (sqrt(d) <= 1e-7 || (even && sqrt(d2) <= 1e-7)) into = j;
            }
            if (into >= 0)
                tr->pairs[into].hits += tr->pairs[i].hits;
            else
                tr->pairs[k++] = tr->pairs[i];
        }
        tr->count = k;
        for (int i = 0; i < k; ++i) {
            tr->pairs[i].lambda *= s;
            tr->pairs[i].residual *= s;
        }
        qsort(tr->pairs, (size_t)k, sizeof *tr->pairs, by_lambda_desc);
    }
    free(unit);
    sshopm_index_free(&idx);
    return CLPK_SUCCESS;
}
