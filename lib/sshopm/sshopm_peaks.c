/* Diffusion-MRI scans, second half: the peaks of spherical functions given as symmetric tensors (dimension 3, even
 * order). Local maxima from SS-HOPM through the public plan API, then dipy's selection rules: relative threshold
 * above the function's minimum, minimum separation angle, at most K (docs/sshopm.md, "Diffusion-MRI scans"). */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"
#include "sshopm_sh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PEAKS_MAX_K 16
#define PEAKS_SAMPLES SSHOPM_PEAK_SAMPLES /* sphere points for the function's minimum (100 axes) */
#define PEAKS_CHUNK ((int64_t)1 << 16)
static const double deg = 57.29577951308232;

void clpk_sshopm_peak_options_default(clpk_sshopm_peak_options *o) {
    memset(o, 0, sizeof *o);
    o->max_peaks = 5;
    o->relative_threshold = 0.5;
    o->min_separation_deg = 25;
    o->starts = 64;
    o->precision = CLPK_PRECISION_F32;
    o->device_post = 1;
    o->refine = 0;
    o->refine_residual = 0.06;
    o->device_fit = 1;
}

void clpk_sshopm_peaks_free(clpk_sshopm_peaks *p) {
    if (!p) return;
    free(p->dirs);
    free(p->values);
    free(p->count);
    memset(p, 0, sizeof *p);
}

static double axis_angle_deg(const double *a, const double *b) {
    double c = fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
    return acos(fmin(1.0, c)) * deg;
}

/* Per-chunk state: the tensors handed to SS-HOPM (mean removed, unit Frobenius norm) and how to undo that. */
typedef struct chunk {
    int64_t n;
    int64_t *voxel; /* n: voxel index */
    double *work;   /* n x U */
    double *orig;   /* n x U (refine only) */
    double *mean, *scale;
} chunk;

void sshopm_select_peaks(const clpk_sshopm_peak_options *o, const sshopm_index *idx, const double *samples,
                         const double *a, double mean, double scale, const clpk_sshopm_tensor_result *tr, float *dirs,
                         float *values, int32_t *count) {
    const int U = idx->U;
    /* f0 = max(0, min f) over a sphere sampling (dipy: the minimum over its sphere's vertices) */
    double fmin = INFINITY;
    for (int s = 0; s < PEAKS_SAMPLES; ++s) {
        double f = 0;
        for (int u = 0; u < U; ++u) f += samples[s * U + u] * a[u];
        fmin = fmin < f ? fmin : f;
    }
    const double base = fmax(0.0, fmin * scale + mean);
    double top = NAN, kept[PEAKS_MAX_K][3];
    int k = 0;
    for (int i = 0; i < tr->count && k < o->max_peaks; ++i) { /* sorted by lambda, descending */
        const clpk_sshopm_eigenpair *p = &tr->pairs[i];
        if (p->type != CLPK_SSHOPM_TYPE_MAX || !isfinite(p->lambda)) continue;
        const double f = p->lambda * scale + mean;
        if (isnan(top)) {
            if (!(f - base > 0)) break; /* no positive lobe (dipy: a negative largest value gives no peaks) */
            top = f;
        }
        if (f - base < o->relative_threshold * (top - base)) break;
        int near = 0;
        for (int j = 0; j < k && !near; ++j) near = axis_angle_deg(p->x, kept[j]) < o->min_separation_deg;
        if (near) continue;
        double norm = sqrt(p->x[0] * p->x[0] + p->x[1] * p->x[1] + p->x[2] * p->x[2]);
        for (int c = 0; c < 3; ++c) kept[k][c] = p->x[c] / norm, dirs[3 * k + c] = (float)kept[k][c];
        values[k] = (float)f;
        k++;
    }
    *count = k;
}

clpk_status clpk_sshopm_tensor_peaks(clpk_context *ctx, int order, const double *tensors, int64_t voxels,
                                     const uint8_t *active, const clpk_sshopm_peak_options *opts,
                                     clpk_sshopm_peaks *out) {
    return sshopm_tensor_peaks_timed(ctx, order, tensors, voxels, active, opts, out, NULL);
}

clpk_status sshopm_tensor_peaks_timed(clpk_context *ctx, int order, const double *tensors, int64_t voxels,
                                      const uint8_t *active, const clpk_sshopm_peak_options *opts,
                                      clpk_sshopm_peaks *out, clpk_sshopm_scan_times *times) {
    if (!ctx || !tensors || !out) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    clpk_sshopm_peak_options o;
    clpk_sshopm_peak_options_default(&o);
    if (opts) o = *opts;
    if (order < 2 || order > 8 || order % 2)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "peaks: order %d must be even, 2..8", order);
    if (voxels < 0) return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "peaks: %lld voxels", (long long)voxels);
    if (o.max_peaks < 1 || o.max_peaks > PEAKS_MAX_K || !(o.relative_threshold >= 0 && o.relative_threshold <= 1) ||
        !(o.min_separation_deg >= 0 && o.min_separation_deg <= 90) || o.starts < 1 || o.starts > 4096)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "peaks: bad options (max_peaks %d in 1..%d, relative_threshold %g in 0..1, min_separation %g "
                         "in 0..90 degrees, starts %d in 1..4096)",
                         o.max_peaks, PEAKS_MAX_K, o.relative_threshold, o.min_separation_deg, o.starts);
    if (o.refine && (order != 4 && order != 6))
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "peaks: the low-rank refinement needs order 4 or 6 (got %d)",
                         order);
    clpk_error err = {0};
    sshopm_index idx;
    if (sshopm_index_build(order, 3, &idx, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    const int U = idx.U, K = o.max_peaks;
    out->voxels = voxels;
    out->max_peaks = K;
    out->dirs = calloc((size_t)(voxels ? voxels : 1) * K * 3, sizeof *out->dirs);
    out->values = calloc((size_t)(voxels ? voxels : 1) * K, sizeof *out->values);
    out->count = calloc((size_t)(voxels ? voxels : 1), sizeof *out->count);
    double iso[SSHOPM_SH_MAX_COEFFS], mean_w[SSHOPM_SH_MAX_COEFFS], unit[SSHOPM_SH_MAX_COEFFS] = {0};
    double samples[PEAKS_SAMPLES * SSHOPM_SH_MAX_COEFFS];
    sshopm_tensor_isotropic(order, iso);
    for (int u = 0; u < U; ++u) { /* the spherical mean is linear in the entries */
        unit[u] = 1;
        mean_w[u] = sshopm_tensor_sphere_mean(order, unit);
        unit[u] = 0;
    }
    sshopm_peak_samples(&idx, samples);
    /* the voxels that go to SS-HOPM: active, finite, not constant on the sphere */
    int64_t n_work = 0;
    for (int64_t v = 0; v < voxels; ++v) n_work += !active || active[v];
    const int64_t cap = n_work < PEAKS_CHUNK ? n_work : PEAKS_CHUNK;
    chunk c = {0};
    c.voxel = malloc((size_t)(cap ? cap : 1) * sizeof *c.voxel);
    c.work = malloc((size_t)(cap ? cap : 1) * U * sizeof *c.work);
    c.orig = o.refine ? malloc((size_t)(cap ? cap : 1) * U * sizeof *c.orig) : NULL;
    c.mean = malloc((size_t)(cap ? cap : 1) * sizeof *c.mean);
    c.scale = malloc((size_t)(cap ? cap : 1) * sizeof *c.scale);
    clpk_status st = CLPK_SUCCESS;
    if (!out->dirs || !out->values || !out->count || !c.voxel || !c.work || !c.mean || !c.scale ||
        (o.refine && !c.orig))
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "peaks: out of host memory for %lld voxels", (long long)voxels);
    clpk_sshopm_plan *plan = NULL;
    if (st == CLPK_SUCCESS && cap > 0) {
        clpk_sshopm_options so;
        clpk_sshopm_options_default(&so);
        so.starts = o.starts;
        so.starts_kind = CLPK_SSHOPM_STARTS_SPHERE;
        so.find = CLPK_SSHOPM_FIND_MAX;
        so.shift = CLPK_SSHOPM_SHIFT_ADAPTIVE;
        so.max_iter = 1000;
        st = clpk_sshopm_plan_create(ctx, order, 3, o.precision, cap, &so, &plan);
    }
    double t_prep = 0, t_solve = 0, t_select = 0, tick = core_wall_seconds();
    for (int64_t v0 = 0; st == CLPK_SUCCESS && v0 < voxels;) {
        /* gather the next chunk */
        c.n = 0;
        for (; v0 < voxels && c.n < cap; ++v0) {
            if (active && !active[v0]) continue;
            const double *a = tensors + v0 * U;
            int finite = 1;
            for (int u = 0; u < U; ++u) finite &= isfinite(a[u]) != 0;
            if (!finite) continue;
            double mean = 0;
            for (int u = 0; u < U; ++u) mean += mean_w[u] * a[u];
            double *w = c.work + c.n * U;
            for (int u = 0; u < U; ++u) w[u] = a[u] - mean * iso[u];
            const double scale = sshopm_ref_frobenius(&idx, w);
            if (!(scale > 1e-12 * fmax(fabs(mean), 1e-300))) continue; /* constant on the sphere: no maximum */
            for (int u = 0; u < U; ++u) w[u] /= scale;
            if (c.orig) memcpy(c.orig + c.n * U, a, (size_t)U * sizeof *a);
            c.voxel[c.n] = v0, c.mean[c.n] = mean, c.scale[c.n] = scale;
            c.n++;
        }
        if (c.n == 0) continue;
        clpk_sshopm_result r = {0};
        t_prep += core_wall_seconds() - tick, tick = core_wall_seconds();
        st = o.device_post ? clpk_sshopm_solve_device(plan, c.work, c.n, NULL, 0, &r)
                           : clpk_sshopm_solve_host(plan, c.work, c.n, NULL, &r);
        t_solve += core_wall_seconds() - tick, tick = core_wall_seconds();
        if (st != CLPK_SUCCESS) break;
        for (int64_t t = 0; t < c.n; ++t) {
            out->starts_converged += r.tensors[t].converged;
            out->starts_capped += r.tensors[t].capped;
            out->starts_failed += r.tensors[t].failed;
        }
        if (!o.refine) {
            for (int64_t t = 0; t < c.n; ++t) {
                const int64_t v = c.voxel[t];
                sshopm_select_peaks(&o, &idx, samples, c.work + t * U, c.mean[t], c.scale[t], &r.tensors[t],
                             out->dirs + v * K * 3, out->values + v * K, out->count + v);
            }
        } else {
            /* back to the tensors' own units (lambda = T x^m at the pair's unit x), then the low-rank fit */
            for (int64_t t = 0; t < c.n; ++t)
                for (int i = 0; i < r.tensors[t].count; ++i)
                    r.tensors[t].pairs[i].lambda = r.tensors[t].pairs[i].lambda * c.scale[t] + c.mean[t];
            clpk_sshopm_dmri_fibres fib = {0};
            if (clpk_sshopm_dmri_refine(c.orig, &r, o.refine_residual, &fib, &err) != CLPK_SUCCESS) {
                st = core_fail_from(ctx, &err);
            } else {
                for (int64_t t = 0; t < c.n; ++t) {
                    const int64_t v = c.voxel[t];
                    int order_f[3] = {0, 1, 2}, nf = fib.count[t];
                    for (int i = 1; i < nf; ++i) /* largest weight first */
                        for (int j = i; j > 0 && fib.weights[t * 3 + order_f[j]] > fib.weights[t * 3 + order_f[j - 1]];
                             --j) {
                            int s = order_f[j];
                            order_f[j] = order_f[j - 1], order_f[j - 1] = s;
                        }
                    int k = 0;
                    for (int i = 0; i < nf && k < K; ++i) {
                        const double *d = fib.dirs + t * 9 + 3 * order_f[i];
                        for (int q = 0; q < 3; ++q) out->dirs[(v * K + k) * 3 + q] = (float)d[q];
                        out->values[v * K + k] = (float)fib.weights[t * 3 + order_f[i]];
                        k++;
                    }
                    out->count[v] = k;
                }
            }
            clpk_sshopm_dmri_fibres_free(&fib);
        }
        clpk_sshopm_result_free(&r);
        t_select += core_wall_seconds() - tick, tick = core_wall_seconds();
    }
    core_log(ctx, CLPK_LOG_INFO,
             "sshopm peaks: %lld voxels, %lld to SS-HOPM: %.3f s preparing (mean, scale), %.3f s SS-HOPM with %s "
             "de-duplication, %.3f s selection%s",
             (long long)voxels, (long long)n_work, t_prep, t_solve, o.device_post ? "device" : "host", t_select,
             o.refine ? " and refinement" : "");
    if (times) times->prep += t_prep, times->solve += t_solve, times->select += t_select;
    clpk_sshopm_plan_destroy(plan);
    free(c.voxel);
    free(c.work);
    free(c.orig);
    free(c.mean);
    free(c.scale);
    sshopm_index_free(&idx);
    if (st != CLPK_SUCCESS) clpk_sshopm_peaks_free(out);
    return st;
}
