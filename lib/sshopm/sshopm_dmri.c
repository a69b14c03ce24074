/* Diffusion-MRI example of the SS-HOPM family: synthetic fields of crossing fibres, fibre estimates from the local
 * maxima (peaks) or from a low-rank fit started at them (refine), and the angular-error evaluation. */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DMRI_DIM 3
#define DMRI_MAX_FIBRES 3
static const double deg = 57.29577951308232;

void clpk_sshopm_dmri_options_default(clpk_sshopm_dmri_options *o) {
    memset(o, 0, sizeof *o);
    o->voxels = 1000;
    o->order = 4;
    o->max_fibres = 2;
    o->min_angle_deg = 45;
    o->snr = 50;
    o->seed = 1;
}

static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double uniform(uint64_t *s) { return (double)(next_u64(s) >> 11) * (1.0 / 9007199254740992.0); }
static double normal(uint64_t *s) {
    double u1 = uniform(s), u2 = uniform(s);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
}

static void random_direction(uint64_t *s, double *u) {
    double z = 2 * uniform(s) - 1, ph = 6.283185307179586 * uniform(s), r = sqrt(fmax(0.0, 1 - z * z));
    u[0] = r * cos(ph);
    u[1] = r * sin(ph);
    u[2] = z;
}

/* Acute angle between the lines of two unit vectors, in degrees. */
static double line_angle(const double *a, const double *b) {
    double c = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
    return acos(fmin(1.0, c)) * deg;
}

/* sum_f w_f u_f^(x)m in unique entries (added to `a`). */
static void add_rank_one(const sshopm_index *idx, double w, const double *u, double *a) {
    for (int c = 0; c < idx->U; ++c) {
        double p = w;
        for (int q = 0; q < idx->m; ++q) p *= u[idx->rep[c * idx->m + q]];
        a[c] += p;
    }
}

static double frobenius(const sshopm_index *idx, const double *a) { return sshopm_ref_frobenius(idx, a); }

void clpk_sshopm_dmri_field_free(clpk_sshopm_dmri_field *f) {
    if (!f) return;
    free(f->tensors);
    free(f->n_fibres);
    free(f->dirs);
    free(f->weights);
    memset(f, 0, sizeof *f);
}

void clpk_sshopm_dmri_fibres_free(clpk_sshopm_dmri_fibres *f) {
    if (!f) return;
    free(f->count);
    free(f->dirs);
    free(f->weights);
    memset(f, 0, sizeof *f);
}

clpk_status clpk_sshopm_dmri_synth(const clpk_sshopm_dmri_options *opts, clpk_sshopm_dmri_field *f, clpk_error *err) {
    if (!opts || !f) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: NULL argument");
    memset(f, 0, sizeof *f);
    const clpk_sshopm_dmri_options *o = opts;
    if (o->voxels < 1 || o->voxels > ((int64_t)1 << 32))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: voxels %lld out of range", (long long)o->voxels);
    if (o->order < 2 || o->order > 8 || o->order % 2)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: order %d must be even, 2..8", o->order);
    if (o->max_fibres < 1 || o->max_fibres > DMRI_MAX_FIBRES)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: max_fibres %d out of range 1..3", o->max_fibres);
    if (!(o->min_angle_deg >= 0 && o->min_angle_deg <= 80))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: min_angle_deg %g out of range 0..80",
                              o->min_angle_deg);
    if (!(o->snr >= 0) || !isfinite(o->snr))
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: snr %g must be >= 0 (0: no noise)", o->snr);
    sshopm_index idx;
    CLPK_TRY(sshopm_index_build(o->order, DMRI_DIM, &idx, err));
    const int U = idx.U;
    f->voxels = o->voxels;
    f->order = o->order;
    f->unique = U;
    f->tensors = calloc((size_t)o->voxels * U, sizeof *f->tensors);
    f->n_fibres = calloc((size_t)o->voxels, sizeof *f->n_fibres);
    f->dirs = calloc((size_t)o->voxels * 9, sizeof *f->dirs);
    f->weights = calloc((size_t)o->voxels * 3, sizeof *f->weights);
    double *noise = malloc((size_t)U * sizeof *noise);
    if (!f->tensors || !f->n_fibres || !f->dirs || !f->weights || !noise) {
        free(noise);
        sshopm_index_free(&idx);
        clpk_sshopm_dmri_field_free(f);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of memory for %lld voxels",
                              (long long)o->voxels);
    }
    uint64_t rng = o->seed ^ 0x5eed5eed5eedull;
    for (int64_t v = 0; v < o->voxels; ++v) {
        int nf = 1 + (int)(next_u64(&rng) % (uint64_t)o->max_fibres);
        double *dirs = f->dirs + v * 9;
        for (int k = 0; k < nf; ++k) {
            for (int tries = 0;; ++tries) {
                random_direction(&rng, dirs + 3 * k);
                int ok = 1;
                for (int j = 0; j < k; ++j) ok &= line_angle(dirs + 3 * k, dirs + 3 * j) >= o->min_angle_deg;
                if (ok || tries > 100000) break;
            }
            f->weights[v * 3 + k] = 0.5 + 0.5 * uniform(&rng);
            add_rank_one(&idx, f->weights[v * 3 + k], dirs + 3 * k, f->tensors + v * U);
        }
        f->n_fibres[v] = nf;
        if (o->snr > 0) {
            for (int c = 0; c < U; ++c) noise[c] = normal(&rng);
            double scale = frobenius(&idx, f->tensors + v * U) / (o->snr * frobenius(&idx, noise));
            for (int c = 0; c < U; ++c) f->tensors[v * U + c] += scale * noise[c];
        }
    }
    free(noise);
    sshopm_index_free(&idx);
    return CLPK_SUCCESS;
}

static clpk_status alloc_fibres(int64_t voxels, clpk_sshopm_dmri_fibres *out, clpk_error *err) {
    memset(out, 0, sizeof *out);
    out->voxels = voxels;
    out->count = calloc((size_t)voxels, sizeof *out->count);
    out->dirs = calloc((size_t)voxels * 9, sizeof *out->dirs);
    out->weights = calloc((size_t)voxels * 3, sizeof *out->weights);
    if (!out->count || !out->dirs || !out->weights) {
        clpk_sshopm_dmri_fibres_free(out);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of memory");
    }
    return CLPK_SUCCESS;
}

clpk_status clpk_sshopm_dmri_peaks(const clpk_sshopm_result *r, double min_rel, clpk_sshopm_dmri_fibres *out,
                                   clpk_error *err) {
    if (!r || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: NULL argument");
    if (r->dim != DMRI_DIM) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: dimension must be 3");
    CLPK_TRY(alloc_fibres(r->n_tensors, out, err));
    for (int64_t v = 0; v < r->n_tensors; ++v) {
        const clpk_sshopm_tensor_result *tr = &r->tensors[v];
        double top = -INFINITY;
        for (int i = 0; i < tr->count; ++i)
            if (tr->pairs[i].type == CLPK_SSHOPM_TYPE_MAX) top = fmax(top, tr->pairs[i].lambda);
        int k = 0;
        for (int i = 0; i < tr->count && k < DMRI_MAX_FIBRES; ++i) { /* pairs are sorted by lambda, descending */
            const clpk_sshopm_eigenpair *p = &tr->pairs[i];
            if (p->type != CLPK_SSHOPM_TYPE_MAX || p->lambda < min_rel * top) continue;
            memcpy(out->dirs + v * 9 + 3 * k, p->x, 3 * sizeof(double));
            out->weights[v * 3 + k] = p->lambda;
            ++k;
        }
        out->count[v] = k;
    }
    return CLPK_SUCCESS;
}

/* ---- Low-rank refinement ------------------------------------------------------------------------------------ */

typedef struct fit {
    int k;
    double w[DMRI_MAX_FIBRES];
    double u[DMRI_MAX_FIBRES][3];
} fit;

/* Weighted residual r_c = sqrt(mult_c) (model_c - a_c); returns ||r||^2. */
static double residual(const sshopm_index *idx, const double *a, const fit *F, double *r) {
    double cost = 0;
    for (int c = 0; c < idx->U; ++c) {
        double model = 0;
        for (int f = 0; f < F->k; ++f) {
            double p = F->w[f];
            for (int q = 0; q < idx->m; ++q) p *= F->u[f][idx->rep[c * idx->m + q]];
            model += p;
        }
        r[c] = sqrt(idx->mult[c]) * (model - a[c]);
        cost += r[c] * r[c];
    }
    return cost;
}

static void tangent_basis(const double *u, double *e1, double *e2) {
    double a[3] = {1, 0, 0};
    if (fabs(u[0]) > 0.9) {
        a[0] = 0;
        a[1] = 1;
    }
    double d = a[0] * u[0] + a[1] * u[1] + a[2] * u[2], nn = 0;
    for (int i = 0; i < 3; ++i) {
        e1[i] = a[i] - d * u[i];
        nn += e1[i] * e1[i];
    }
    nn = sqrt(nn);
    for (int i = 0; i < 3; ++i) e1[i] /= nn;
    e2[0] = u[1] * e1[2] - u[2] * e1[1];
    e2[1] = u[2] * e1[0] - u[0] * e1[2];
    e2[2] = u[0] * e1[1] - u[1] * e1[0];
}

/* Levenberg-Marquardt on weights and directions (directions move in their tangent planes, then renormalise). */
static double refine_fit(const sshopm_index *idx, const double *a, fit *F) {
    const int U = idx->U, m = idx->m, P = 3 * F->k;
    double r[SSHOPM_MAX_DIM * 64], rn[SSHOPM_MAX_DIM * 64], J[64 * 9 * 2];
    double cost = residual(idx, a, F, r), mu = 1e-3;
    for (int iter = 0; iter < 60; ++iter) {
        double e1[DMRI_MAX_FIBRES][3], e2[DMRI_MAX_FIBRES][3];
        for (int f = 0; f < F->k; ++f) tangent_basis(F->u[f], e1[f], e2[f]);
        for (int c = 0; c < U; ++c) {
            const double sw = sqrt(idx->mult[c]);
            for (int f = 0; f < F->k; ++f) {
                const double *u = F->u[f];
                double mono = 1, d1 = 0, d2 = 0;
                for (int q = 0; q < m; ++q) mono *= u[idx->rep[c * m + q]];
                /* derivative of prod_q u[rep_q] along e: sum_q e[rep_q] prod_{q' != q} u[rep_q'] */
                for (int q = 0; q < m; ++q) {
                    double p = 1;
                    for (int q2 = 0; q2 < m; ++q2)
                        if (q2 != q) p *= u[idx->rep[c * m + q2]];
                    d1 += e1[f][idx->rep[c * m + q]] * p;
                    d2 += e2[f][idx->rep[c * m + q]] * p;
                }
                J[c * P + 3 * f] = sw * mono;
                J[c * P + 3 * f + 1] = sw * F->w[f] * d1;
                J[c * P + 3 * f + 2] = sw * F->w[f] * d2;
            }
        }
        double JtJ[81], g[9], d[9];
        for (int i = 0; i < P; ++i) {
            g[i] = 0;
            for (int c = 0; c < U; ++c) g[i] -= J[c * P + i] * r[c];
            for (int j = 0; j < P; ++j) {
                double s = 0;
                for (int c = 0; c < U; ++c) s += J[c * P + i] * J[c * P + j];
                JtJ[i * P + j] = s;
            }
        }
        int improved = 0;
        for (int attempt = 0; attempt < 8 && !improved; ++attempt) {
            double M[81], b[9];
            memcpy(M, JtJ, sizeof M);
            memcpy(b, g, sizeof b);
            for (int i = 0; i < P; ++i) M[i * P + i] += mu * (JtJ[i * P + i] + 1e-12);
            if (!sshopm_solve_small(P, M, b)) {
                mu *= 10;
                continue;
            }
            memcpy(d, b, sizeof(double) * (size_t)P);
            fit T = *F;
            for (int f = 0; f < F->k; ++f) {
                T.w[f] += d[3 * f];
                double nn = 0;
                for (int i = 0; i < 3; ++i) {
                    T.u[f][i] += d[3 * f + 1] * e1[f][i] + d[3 * f + 2] * e2[f][i];
                    nn += T.u[f][i] * T.u[f][i];
                }
                for (int i = 0; i < 3; ++i) T.u[f][i] /= sqrt(nn);
            }
            double c2 = residual(idx, a, &T, rn);
            if (c2 < cost) {
                improved = 1;
                double gain = cost - c2;
                *F = T;
                cost = c2;
                memcpy(r, rn, (size_t)U * sizeof *r);
                mu = fmax(mu / 3, 1e-12);
                if (gain <= 1e-14 * (cost + 1e-300)) iter = 1 << 20;
            } else {
                mu *= 4;
            }
        }
        if (!improved) break;
    }
    return cost;
}

/* The largest local maximum of the residual tensor a - fit (host SS-HOPM from spread starts). */
static void deflation_direction(const sshopm_index *idx, const double *a, const fit *F, double *u, double *lambda) {
    double res[SSHOPM_MAX_DIM * 64], r[64];
    residual(idx, a, F, r);
    for (int c = 0; c < idx->U; ++c) res[c] = -r[c] / sqrt(idx->mult[c]);
    double starts[16 * 3];
    sshopm_make_starts(3, 16, CLPK_SSHOPM_STARTS_SPHERE, 1, starts, NULL);
    *lambda = -INFINITY;
    for (int s = 0; s < 16; ++s) {
        double x[3] = {starts[3 * s], starts[3 * s + 1], starts[3 * s + 2]}, lam;
        int its;
        int st = sshopm_ref_run(idx, res, x, 1, CLPK_SSHOPM_SHIFT_ADAPTIVE, 0, 1e-10, 0, 300, 1, &lam, &its);
        if (st != CLPK_SSHOPM_FAILED && lam > *lambda) {
            *lambda = lam;
            memcpy(u, x, sizeof x);
        }
    }
}

clpk_status clpk_sshopm_dmri_refine(const double *tensors, const clpk_sshopm_result *r, double residual_tol,
                                    clpk_sshopm_dmri_fibres *out, clpk_error *err) {
    if (!tensors || !r || !out) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: NULL argument");
    if (r->dim != DMRI_DIM || r->order % 2 || r->order > 6)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT,
                              "dmri: refinement needs dimension 3 and an even order <= 6 (got %d, %d)", r->order,
                              r->dim);
    sshopm_index idx;
    CLPK_TRY(sshopm_index_build(r->order, DMRI_DIM, &idx, err));
    clpk_status st = alloc_fibres(r->n_tensors, out, err);
    for (int64_t v = 0; st == CLPK_SUCCESS && v < r->n_tensors; ++v) {
        const double *a = tensors + v * idx.U;
        const clpk_sshopm_tensor_result *tr = &r->tensors[v];
        const double norm = frobenius(&idx, a);
        fit best = {0}, cur = {0};
        int next_peak = 0;
        for (int k = 1; k <= DMRI_MAX_FIBRES; ++k) {
            fit trial = cur;
            double u[3], lam = 0;
            int have = 0;
            /* next distinct local max (largest lambda first) */
            while (next_peak < tr->count && !have) {
                const clpk_sshopm_eigenpair *p = &tr->pairs[next_peak++];
                if (p->type != CLPK_SSHOPM_TYPE_MAX || p->lambda <= 0) continue;
                int distinct = 1;
                for (int f = 0; f < trial.k; ++f) distinct &= line_angle(p->x, trial.u[f]) > 15;
                if (distinct) {
                    memcpy(u, p->x, sizeof u);
                    lam = p->lambda;
                    have = 1;
                }
            }
            if (!have) deflation_direction(&idx, a, &cur, u, &lam);
            trial.w[trial.k] = fmax(lam, 0.1 * norm);
            memcpy(trial.u[trial.k], u, sizeof u);
            trial.k++;
            double cost = refine_fit(&idx, a, &trial);
            int valid = 1;
            double wmax = 0;
            for (int f = 0; f < trial.k; ++f) wmax = fmax(wmax, trial.w[f]);
            for (int f = 0; f < trial.k; ++f) {
                valid &= trial.w[f] > 0.05 * wmax;
                for (int g = 0; g < f; ++g) valid &= line_angle(trial.u[f], trial.u[g]) > 5;
            }
            if (!valid) break;
            cur = trial;
            best = trial;
            if (sqrt(cost) <= residual_tol * norm) break;
        }
        if (best.k == 0) {
            /* no usable fit: report the largest local max, if any */
            for (int i = 0; i < tr->count && !best.k; ++i)
                if (tr->pairs[i].type == CLPK_SSHOPM_TYPE_MAX) {
                    best.k = 1;
                    best.w[0] = tr->pairs[i].lambda;
                    memcpy(best.u[0], tr->pairs[i].x, 3 * sizeof(double));
                }
        }
        out->count[v] = best.k;
        for (int f = 0; f < best.k; ++f) {
            out->weights[v * 3 + f] = best.w[f];
            memcpy(out->dirs + v * 9 + 3 * f, best.u[f], 3 * sizeof(double));
        }
    }
    sshopm_index_free(&idx);
    return st;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

clpk_status clpk_sshopm_dmri_evaluate(const clpk_sshopm_dmri_field *field, const clpk_sshopm_dmri_fibres *est,
                                      double match_deg, clpk_sshopm_dmri_stats *stats, double *errors_deg,
                                      clpk_error *err) {
    if (!field || !est || !stats) return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: NULL argument");
    if (est->voxels != field->voxels)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri: %lld estimates for %lld voxels",
                              (long long)est->voxels, (long long)field->voxels);
    memset(stats, 0, sizeof *stats);
    double *found = malloc((size_t)field->voxels * 3 * sizeof *found);
    if (!found) return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of memory");
    int64_t nfound = 0;
    double sum = 0;
    for (int64_t v = 0; v < field->voxels; ++v) {
        const int nt = field->n_fibres[v], ne = est->count[v];
        double e[3] = {NAN, NAN, NAN};
        int used_t[3] = {0}, used_e[3] = {0}, matched = 0;
        for (;;) {
            double best = match_deg;
            int bt = -1, be = -1;
            for (int t = 0; t < nt; ++t)
                for (int k = 0; k < ne; ++k) {
                    if (used_t[t] || used_e[k]) continue;
                    double ang = line_angle(field->dirs + v * 9 + 3 * t, est->dirs + v * 9 + 3 * k);
                    if (ang <= best) best = ang, bt = t, be = k;
                }
            if (bt < 0) break;
            used_t[bt] = used_e[be] = 1;
            e[bt] = best;
            found[nfound++] = best;
            sum += best;
            ++matched;
        }
        stats->fibres += nt;
        stats->spurious += ne - matched;
        stats->voxels_exact += matched == nt && ne == nt;
        if (errors_deg)
            for (int t = 0; t < 3; ++t) errors_deg[v * 3 + t] = e[t];
    }
    stats->found = nfound;
    stats->fraction_found = stats->fibres ? (double)nfound / (double)stats->fibres : 0;
    if (nfound) {
        qsort(found, (size_t)nfound, sizeof *found, cmp_double);
        stats->mean_deg = sum / (double)nfound;
        stats->median_deg = found[nfound / 2];
        stats->p90_deg = found[(int64_t)(0.9 * (double)(nfound - 1))];
        stats->max_deg = found[nfound - 1];
    }
    free(found);
    return CLPK_SUCCESS;
}
