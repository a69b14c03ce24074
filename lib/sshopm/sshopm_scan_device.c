/* The diffusion-MRI scan pipeline on the device (cl/sshopm_scan.cl): per chunk of voxels the signal goes up once,
 * the fit (folded with the harmonics -> tensor map and the normalisation) writes the tensors SS-HOPM reads,
 * clpk_sshopm_reduce de-duplicates and classifies, a selection kernel applies dipy's rules, and only the peaks and
 * five counters per voxel come back. Voxels with capped starts (rare) are finished on the host as the host path
 * does: their starts are polished in double and the selection redone there. The host path (clpk_sshopm_odf_fit +
 * clpk_sshopm_tensor_peaks) is the reference (test_sshopm_scan_device). */
#include "clpk_sshopm.h"
#include "sshopm_internal.h"
#include "sshopm_sh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_MAX_PAIRS 16             /* reduced pairs kept per voxel */
#define SCAN_CHUNK ((int64_t)1 << 20) /* voxels per pass: ~2.3 KB of device memory each at 64 starts */

enum {
    B_SIG,
    B_VOX,
    B_M,
    B_C,
    B_MULT,
    B_DWV,
    B_B0V,
    B_SAMPLES,
    B_T,
    B_NORM,
    B_L,
    B_X,
    B_I,
    B_RL,
    B_RX,
    B_RM,
    B_RC,
    B_DIRS,
    B_VALS,
    B_PEAKS,
    B_COUNT
};

static double now(void) { return core_wall_seconds(); }

static clpk_status finish(clpk_context *ctx, double *acc, double *tick) {
    CLPK_CL_TRY(ctx, clFinish(clpk_context_queue(ctx)));
    const double t = now();
    *acc += t - *tick;
    *tick = t;
    return CLPK_SUCCESS;
}

static void *to_float(const double *v, size_t n) {
    if (n > SIZE_MAX / sizeof(float)) return NULL;
    float *f = malloc((n ? n : 1) * sizeof *f);
    for (size_t i = 0; f && i < n; ++i)
        f[i] = (float)v[i];
    return f;
}

/* Reads one element range of a buffer (blocking). */
static clpk_status read_at(clpk_context *ctx, cl_mem b, size_t offset, size_t bytes, void *dst) {
    CLPK_CL_TRY(ctx, clEnqueueReadBuffer(clpk_context_queue(ctx), b, CL_TRUE, offset, bytes, dst, 0, NULL, NULL));
    return CLPK_SUCCESS;
}

/* A voxel t of the chunk with capped starts: its reduced pairs and capped starts to double, the capped ones polished
 * and merged (sshopm_add_capped, as clpk_sshopm_solve_device), then the host's selection. */
static clpk_status finish_capped(clpk_context *ctx, const clpk_sshopm_plan *plan, cl_mem *b, int64_t t,
                                 const clpk_sshopm_peak_options *o, const double *samples, float *dirs, float *values,
                                 int32_t *count) {
    const int U = plan->idx.U, V = plan->opts.starts, KP = SCAN_MAX_PAIRS;
    const size_t vs = clpk_precision_size(plan->precision);
    char tb[SSHOPM_SH_MAX_COEFFS * 8], lb[SCAN_MAX_PAIRS * 8], xb[SCAN_MAX_PAIRS * 3 * 8];
    int32_t meta[SCAN_MAX_PAIRS], cnt[5];
    float norm[2];
    char *sl = malloc((size_t)V * vs), *sx = malloc((size_t)V * 3 * vs);
    int32_t *si = malloc((size_t)V * 4);
    clpk_sshopm_eigenpair *pairs = malloc((size_t)(KP + V) * sizeof *pairs);
    clpk_status st =
        sl && sx && si && pairs ? CLPK_SUCCESS : core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of host memory");
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_T], (size_t)t * U * vs, (size_t)U * vs, tb);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_NORM], (size_t)t * 8, 8, norm);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_RL], (size_t)t * KP * vs, (size_t)KP * vs, lb);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_RX], (size_t)t * KP * 3 * vs, (size_t)KP * 3 * vs, xb);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_RM], (size_t)t * KP * 4, (size_t)KP * 4, meta);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_RC], (size_t)t * 5 * 4, 5 * 4, cnt);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_L], (size_t)t * V * vs, (size_t)V * vs, sl);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_X], (size_t)t * V * 3 * vs, (size_t)V * 3 * vs, sx);
    if (st == CLPK_SUCCESS) st = read_at(ctx, b[B_I], (size_t)t * V * 4, (size_t)V * 4, si);
    if (st == CLPK_SUCCESS) {
#define VAL(buf, i) (vs == 8 ? ((const double *)(buf))[i] : (double)((const float *)(buf))[i])
        double a[SSHOPM_SH_MAX_COEFFS];
        for (int u = 0; u < U; ++u)
            a[u] = VAL(tb, u);
        int w = 0;
        for (int i = 0; i < cnt[0] && i < KP; ++i, ++w) {
            memset(&pairs[w], 0, sizeof pairs[w]);
            pairs[w].lambda = VAL(lb, i);
            for (int j = 0; j < 3; ++j)
                pairs[w].x[j] = VAL(xb, i * 3 + j);
            pairs[w].type = (clpk_sshopm_type)(meta[i] & 7);
            pairs[w].hits = meta[i] >> 3;
            pairs[w].residual = NAN;
        }
        clpk_sshopm_post_options po;
        clpk_sshopm_post_options_default(&po);
        for (int s = 0; s < V; ++s) {
            if (CLPK_SSHOPM_INFO_STATUS(si[s]) != CLPK_SSHOPM_CAPPED) continue;
            const double x[3] = {VAL(sx, s * 3), VAL(sx, s * 3 + 1), VAL(sx, s * 3 + 2)};
            sshopm_add_capped(&plan->idx, a, &po, VAL(sl, s), x, pairs, &w);
        }
#undef VAL
        for (int i = 1; i < w; ++i) /* by lambda, descending */
            for (int j = i; j > 0 && pairs[j].lambda > pairs[j - 1].lambda; --j) {
                const clpk_sshopm_eigenpair tmp = pairs[j];
                pairs[j] = pairs[j - 1], pairs[j - 1] = tmp;
            }
        clpk_sshopm_tensor_result tr = {0};
        tr.count = w;
        tr.pairs = pairs;
        memset(dirs, 0, (size_t)o->max_peaks * 3 * sizeof *dirs);
        memset(values, 0, (size_t)o->max_peaks * sizeof *values);
        sshopm_select_peaks(o, &plan->idx, samples, a, norm[0], norm[1], &tr, dirs, values, count);
    }
    free(sl);
    free(sx);
    free(si);
    free(pairs);
    return st;
}

clpk_status sshopm_scan_device(clpk_context *ctx, const clpk_sshopm_odf_model *model, const double *signal,
                               int64_t nvox, const uint8_t *active, const clpk_sshopm_peak_options *opts,
                               clpk_sshopm_peaks *out, int64_t *voxels_fitted, clpk_sshopm_scan_times *times) {
    if (!ctx || !model || !signal || !opts || !out || !times) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    const clpk_sshopm_peak_options o = *opts;
    if (o.max_peaks < 1 || o.max_peaks > 16 || !(o.relative_threshold >= 0 && o.relative_threshold <= 1) ||
        !(o.min_separation_deg >= 0 && o.min_separation_deg <= 90) || o.starts < 1 || o.starts > 4096)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT,
                         "peaks: bad options (max_peaks %d in 1..16, relative_threshold %g in 0..1, min_separation %g "
                         "in 0..90 degrees, starts %d in 1..4096)",
                         o.max_peaks, o.relative_threshold, o.min_separation_deg, o.starts);
    double tick = now();
    clpk_error err = {0};
    sshopm_odf_linear lin;
    if (sshopm_odf_linear_build(model, &lin, &err) != CLPK_SUCCESS) return core_fail_from(ctx, &err);
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    const int U = lin.U, V = o.starts, K = o.max_peaks, KP = SCAN_MAX_PAIRS, S = SSHOPM_PEAK_SAMPLES;
    const size_t vs = clpk_precision_size(o.precision);
    /* the signal goes up as read (double) where the device has fp64: no host conversion pass over the scan */
    const int sig64 = dev->has_fp64 != 0;
    const size_t ss = sig64 ? 8 : 4;
    int64_t cap = nvox < SCAN_CHUNK ? nvox : SCAN_CHUNK;
    const size_t per_voxel = (size_t)lin.volumes * ss + 4 + (size_t)U * vs + 8 + (size_t)V * (4 * vs + 4) +
                             (size_t)KP * (4 * vs + 4) + 20 + (size_t)K * 16 + 4;
    while (cap > 4096 && ((uint64_t)cap * V * 3 * vs > dev->max_alloc_bytes ||
                          (uint64_t)cap * lin.volumes * ss > dev->max_alloc_bytes ||
                          (uint64_t)cap * per_voxel > dev->global_mem_bytes / 2))
        cap /= 2;
    if (cap < 1) cap = 1;
    sshopm_index idx;
    clpk_status st =
        sshopm_index_build(lin.order, 3, &idx, &err) == CLPK_SUCCESS ? CLPK_SUCCESS : core_fail_from(ctx, &err);
    const int idx_ok = st == CLPK_SUCCESS;
    double samples[SSHOPM_PEAK_SAMPLES * SSHOPM_SH_MAX_COEFFS];
    if (idx_ok) sshopm_peak_samples(&idx, samples);
    clpk_sshopm_plan *plan = NULL;
    if (st == CLPK_SUCCESS) {
        clpk_sshopm_options so; /* as clpk_sshopm_tensor_peaks */
        clpk_sshopm_options_default(&so);
        so.starts = V;
        so.starts_kind = CLPK_SSHOPM_STARTS_SPHERE;
        so.find = CLPK_SSHOPM_FIND_MAX;
        so.shift = CLPK_SSHOPM_SHIFT_ADAPTIVE;
        so.max_iter = 1000;
        st = clpk_sshopm_plan_create(ctx, lin.order, 3, o.precision, cap, &so, &plan);
    }
    cl_kernel kfit = NULL, ksel = NULL;
    if (st == CLPK_SUCCESS) {
        char options[192];
        snprintf(options, sizeof options, "-DVALUE_T=%s -DSSHOPM_FP64=%d -DSIGNAL_T=%s%s -DSCAN_U=%d",
                 vs == 8 ? "double" : "float", vs == 8, sig64 ? "double" : "float", sig64 ? " -DSIGNAL_FP64" : "", U);
        const char *names[] = {"sshopm_scan"};
        cl_program program = NULL;
        st = core_program_get(ctx, names, 1, options, &program);
        if (st == CLPK_SUCCESS) st = core_kernel_create(ctx, program, "clpk_sshopm_scan_fit", &kfit);
        if (st == CLPK_SUCCESS) st = core_kernel_create(ctx, program, "clpk_sshopm_scan_select", &ksel);
    }
    /* tables (float: the fit runs in float like the f32 SS-HOPM it feeds) */
    float *Mf = to_float(lin.M, (size_t)lin.n_dw * (U + 1)), *cf = to_float(lin.c, (size_t)U + 1),
          *multf = idx_ok ? to_float(idx.mult, (size_t)U) : NULL,
          *sampf = to_float(samples, idx_ok ? (size_t)S * U : 0);
    cl_mem b[B_COUNT] = {NULL};
    const size_t sizes[B_COUNT] = {(size_t)cap * lin.volumes * ss,
                                   (size_t)cap * 4,
                                   (size_t)lin.n_dw * (U + 1) * 4,
                                   (size_t)(U + 1) * 4,
                                   (size_t)U * 4,
                                   (size_t)lin.n_dw * 4,
                                   (size_t)lin.n_b0 * 4,
                                   (size_t)S * U * 4,
                                   (size_t)cap * U * vs,
                                   (size_t)cap * 8,
                                   (size_t)cap * V * vs,
                                   (size_t)cap * V * 3 * vs,
                                   (size_t)cap * V * 4,
                                   (size_t)cap * KP * vs,
                                   (size_t)cap * KP * 3 * vs,
                                   (size_t)cap * KP * 4,
                                   (size_t)cap * 5 * 4,
                                   (size_t)cap * K * 3 * 4,
                                   (size_t)cap * K * 4,
                                   (size_t)cap * 4};
    const void *init[B_COUNT] = {
        [B_M] = Mf,         [B_C] = cf, [B_MULT] = multf, [B_DWV] = lin.dw_volume, [B_B0V] = lin.b0_volume,
        [B_SAMPLES] = sampf};
    if (st == CLPK_SUCCESS && (!Mf || !cf || !multf || !sampf))
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of host memory");
    cl_context cc = clpk_context_cl_context(ctx);
    cl_command_queue q = clpk_context_queue(ctx);
    for (int i = 0; st == CLPK_SUCCESS && i < B_COUNT; ++i) {
        cl_int rc = CL_SUCCESS;
        b[i] = clCreateBuffer(cc, init[i] ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, sizes[i],
                              (void *)init[i], &rc);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clCreateBuffer (dmri device pipeline)");
    }
    int32_t *vox = malloc((size_t)(cap ? cap : 1) * sizeof *vox), *hc = malloc((size_t)(cap ? cap : 1) * 5 * 4);
    int32_t *hp = malloc((size_t)(cap ? cap : 1) * 4);
    float *hd = malloc((size_t)(cap ? cap : 1) * K * 3 * 4), *hv = malloc((size_t)(cap ? cap : 1) * K * 4);
    float *slab = sig64 ? NULL : malloc((size_t)(cap ? cap : 1) * lin.volumes * 4);
    out->voxels = nvox;
    out->max_peaks = K;
    out->dirs = calloc((size_t)(nvox ? nvox : 1) * K * 3, sizeof *out->dirs);
    out->values = calloc((size_t)(nvox ? nvox : 1) * K, sizeof *out->values);
    out->count = calloc((size_t)(nvox ? nvox : 1), sizeof *out->count);
    if (st == CLPK_SUCCESS &&
        (!vox || !hc || !hp || !hd || !hv || (!sig64 && !slab) || !out->dirs || !out->values || !out->count))
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of host memory for %lld voxels", (long long)nvox);
    times->setup += now() - tick;
    tick = now();
    int64_t fitted = 0, capped_voxels = 0;
    for (int64_t v0 = 0; st == CLPK_SUCCESS && v0 < nvox; v0 += cap) {
        const int64_t len = nvox - v0 < cap ? nvox - v0 : cap;
        cl_int n = 0;
        for (int64_t i = 0; i < len; ++i)
            if (!active || active[v0 + i]) vox[n++] = (int32_t)i;
        if (!sig64)
            for (int q0 = 0; q0 < lin.volumes; ++q0)
                for (int64_t i = 0; i < len; ++i)
                    slab[q0 * len + i] = (float)signal[q0 * nvox + v0 + i];
        times->prep += now() - tick, tick = now();
        if (n == 0) continue;
        /* signal slab [v0, v0 + len) of every volume in one rectangular copy */
        const size_t bo[3] = {0, 0, 0}, ho[3] = {sig64 ? (size_t)v0 * ss : 0, 0, 0},
                     region[3] = {(size_t)len * ss, (size_t)lin.volumes, 1};
        cl_int rc = clEnqueueWriteBuffer(q, b[B_VOX], CL_FALSE, 0, (size_t)n * 4, vox, 0, NULL, NULL);
        if (rc == CL_SUCCESS)
            rc = clEnqueueWriteBufferRect(q, b[B_SIG], CL_FALSE, bo, ho, region, (size_t)len * ss, 0,
                                          sig64 ? (size_t)nvox * ss : (size_t)len * ss, 0,
                                          sig64 ? (const void *)signal : (const void *)slab, 0, NULL, NULL);
        if (rc != CL_SUCCESS) st = core_fail_cl(ctx, rc, "clEnqueueWriteBuffer (dmri signal)");
        if (st == CLPK_SUCCESS) st = finish(ctx, &times->upload, &tick);
        const size_t local = 64, global = ((size_t)n + 63) / 64 * 64;
        if (st == CLPK_SUCCESS) {
            const cl_long slab_len = len;
            const cl_int n_dw = lin.n_dw, n_b0 = lin.n_b0;
            core_args fa;
            core_args_begin(&fa, ctx, kfit, 0);
            CLPK_ARG(&fa, n);
            CLPK_ARG(&fa, slab_len);
            CLPK_ARG(&fa, b[B_VOX]);
            CLPK_ARG(&fa, b[B_SIG]);
            CLPK_ARG(&fa, n_dw);
            CLPK_ARG(&fa, n_b0);
            CLPK_ARG(&fa, b[B_DWV]);
            CLPK_ARG(&fa, b[B_B0V]);
            CLPK_ARG(&fa, b[B_M]);
            CLPK_ARG(&fa, b[B_C]);
            CLPK_ARG(&fa, b[B_MULT]);
            CLPK_ARG(&fa, b[B_T]);
            CLPK_ARG(&fa, b[B_NORM]);
            st = core_args_end(&fa);
            if (st == CLPK_SUCCESS &&
                (rc = clEnqueueNDRangeKernel(q, kfit, 1, NULL, &global, &local, 0, NULL, NULL)) != CL_SUCCESS)
                st = core_fail_cl(ctx, rc, "clEnqueueNDRangeKernel (dmri fit)");
        }
        if (st == CLPK_SUCCESS) st = finish(ctx, &times->fit, &tick);
        if (st == CLPK_SUCCESS) st = clpk_sshopm_execute(plan, n, b[B_T], 1, b[B_L], b[B_X], b[B_I], 0, NULL, NULL);
        if (st == CLPK_SUCCESS) st = finish(ctx, &times->solve, &tick);
        if (st == CLPK_SUCCESS)
            st = clpk_sshopm_reduce(plan, n, b[B_T], b[B_L], b[B_X], b[B_I], NULL, KP, 0, b[B_RL], b[B_RX], b[B_RM],
                                    b[B_RC], 0, NULL, NULL);
        if (st == CLPK_SUCCESS) st = finish(ctx, &times->reduce, &tick);
        if (st == CLPK_SUCCESS) {
            const cl_int cK = K, cKP = KP, cS = S;
            const float rel = (float)o.relative_threshold, sep = (float)o.min_separation_deg;
            const cl_mem args[] = {b[B_T], b[B_NORM]};
            core_args sa;
            core_args_begin(&sa, ctx, ksel, 0);
            CLPK_ARG(&sa, n);
            for (int i = 0; i < 2; ++i)
                CLPK_ARG(&sa, args[i]);
            CLPK_ARG(&sa, cKP);
            CLPK_ARG(&sa, b[B_RL]);
            CLPK_ARG(&sa, b[B_RX]);
            CLPK_ARG(&sa, b[B_RM]);
            CLPK_ARG(&sa, b[B_RC]);
            CLPK_ARG(&sa, cS);
            CLPK_ARG(&sa, b[B_SAMPLES]);
            CLPK_ARG(&sa, cK);
            CLPK_ARG(&sa, rel);
            CLPK_ARG(&sa, sep);
            CLPK_ARG(&sa, b[B_DIRS]);
            CLPK_ARG(&sa, b[B_VALS]);
            CLPK_ARG(&sa, b[B_PEAKS]);
            st = core_args_end(&sa);
            if (st == CLPK_SUCCESS &&
                (rc = clEnqueueNDRangeKernel(q, ksel, 1, NULL, &global, &local, 0, NULL, NULL)) != CL_SUCCESS)
                st = core_fail_cl(ctx, rc, "clEnqueueNDRangeKernel (dmri select)");
        }
        if (st == CLPK_SUCCESS) st = finish(ctx, &times->select, &tick);
        /* every voxel of the slab active: straight into the volume's arrays */
        const int direct = n == len;
        float *dd = direct ? out->dirs + v0 * K * 3 : hd, *dv = direct ? out->values + v0 * K : hv;
        int32_t *dp = direct ? out->count + v0 : hp;
        if (st == CLPK_SUCCESS) {
            rc = clEnqueueReadBuffer(q, b[B_DIRS], CL_FALSE, 0, (size_t)n * K * 3 * 4, dd, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, b[B_VALS], CL_FALSE, 0, (size_t)n * K * 4, dv, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, b[B_PEAKS], CL_FALSE, 0, (size_t)n * 4, dp, 0, NULL, NULL);
            if (rc == CL_SUCCESS)
                rc = clEnqueueReadBuffer(q, b[B_RC], CL_FALSE, 0, (size_t)n * 5 * 4, hc, 0, NULL, NULL);
            if (rc != CL_SUCCESS) st = core_fail(ctx, CLPK_ERROR_OPENCL, "dmri: reading the peaks failed");
        }
        if (st == CLPK_SUCCESS) st = finish(ctx, &times->download, &tick);
        for (int64_t t = 0; st == CLPK_SUCCESS && t < n; ++t) {
            const int64_t v = v0 + vox[t];
            float *vd = out->dirs + v * K * 3, *vv = out->values + v * K;
            int32_t *vc = out->count + v;
            if (!direct) {
                memcpy(vd, hd + t * K * 3, (size_t)K * 3 * 4);
                memcpy(vv, hv + t * K, (size_t)K * 4);
                *vc = hp[t];
            }
            if (*vc < 0) {
                *vc = 0;
                continue;
            }
            fitted++;
            out->starts_converged += hc[t * 5 + 1];
            out->starts_capped += hc[t * 5 + 2];
            out->starts_failed += hc[t * 5 + 3];
            if (hc[t * 5 + 2] > 0) {
                capped_voxels++;
                st = finish_capped(ctx, plan, b, t, &o, samples, vd, vv, vc);
            }
        }
        times->host += now() - tick, tick = now();
    }
    core_log(ctx, CLPK_LOG_INFO,
             "dmri device pipeline: %lld voxels in chunks of %lld (signal as %s), %lld fitted, %lld with capped "
             "starts finished on the host",
             (long long)nvox, (long long)cap, sig64 ? "double" : "float", (long long)fitted, (long long)capped_voxels);
    if (voxels_fitted) *voxels_fitted = fitted;
    for (int i = 0; i < B_COUNT; ++i)
        if (b[i]) clReleaseMemObject(b[i]);
    if (kfit) clReleaseKernel(kfit);
    if (ksel) clReleaseKernel(ksel);
    clpk_sshopm_plan_destroy(plan);
    if (idx_ok) sshopm_index_free(&idx);
    sshopm_odf_linear_free(&lin);
    free(Mf);
    free(cf);
    free(multf);
    free(sampf);
    free(vox);
    free(hc);
    free(hp);
    free(hd);
    free(hv);
    free(slab);
    if (st != CLPK_SUCCESS) clpk_sshopm_peaks_free(out);
    return st;
}
