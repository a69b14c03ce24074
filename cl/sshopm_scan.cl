/* The diffusion-MRI scan pipeline on the device (lib/sshopm_scan_device.c): the CSA fit folded with the harmonics ->
 * tensor map and the peaks' normalisation (one matrix), then, after SS-HOPM and clpk_sshopm_reduce, dipy's selection
 * rules. One work-item per voxel; the matrix and sample tables are read by every work-item at the same address
 * (broadcast). Build options: -DVALUE_T=float|double (the SS-HOPM plan's), -DSSHOPM_FP64=0|1, -DSIGNAL_T=float|double,
 * -DSCAN_U=U (unique tensor entries: the accumulators stay in registers). Mirrors the host path (clpk_sshopm_odf_fit
 * and select_peaks in lib/sshopm_peaks.c) in float. */
#if (defined(SSHOPM_FP64) && SSHOPM_FP64) || defined(SIGNAL_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Per active voxel t (voxel[t] within the slab of `slab` voxels; signal is volumes x slab): s0 = mean of the b = 0
 * volumes, y_k = log(-log(clamp(E_k, 0.001, 0.999))) (dipy's CsaOdfModel), acc = M^T y + c (U centred tensor entries
 * and the spherical mean), then the centred tensor scaled to unit Frobenius norm goes to tensors[t] (what the SS-HOPM
 * plan reads) and norm[t] = (mean, scale): scale -1 = no usable signal, 0 = constant on the sphere (no maxima). */
__kernel void clpk_sshopm_scan_fit(const int count, const long slab, __global const int *voxel,
                                   __global const SIGNAL_T *signal, const int n_dw, const int n_b0,
                                   __global const int *dw_volume, __global const int *b0_volume,
                                   __global const float *M, __global const float *c, __global const float *mult,
                                   __global VALUE_T *tensors, __global float2 *norm) {
    const int t = get_global_id(0);
    if (t >= count) return;
    const long v = voxel[t];
    float s0 = 0.0f;
    for (int i = 0; i < n_b0; ++i)
        s0 += (float)signal[b0_volume[i] * slab + v];
    s0 /= (float)n_b0;
    int ok = isfinite(s0) && s0 > 0.0f;
    float acc[SCAN_U + 1];
    for (int u = 0; u <= SCAN_U; ++u)
        acc[u] = c[u];
    const float inv = 1.0f / s0;
    for (int k = 0; ok && k < n_dw; ++k) {
        const float e = (float)signal[dw_volume[k] * slab + v] * inv;
        ok = isfinite(e);
        const float y = log(-log(clamp(e, 0.001f, 0.999f)));
        __global const float *col = M + k * (SCAN_U + 1);
        for (int u = 0; u <= SCAN_U; ++u)
            acc[u] = fma(col[u], y, acc[u]);
    }
    float fro = 0.0f;
    for (int u = 0; u < SCAN_U; ++u)
        fro = fma(mult[u] * acc[u], acc[u], fro);
    fro = sqrt(fro);
    const float mean = acc[SCAN_U];
    /* as the host: a tensor within rounding of constant has no maximum; non-finite ones none either */
    const int flat = !(fro > 1e-12f * fmax(fabs(mean), 1e-30f)) || !isfinite(fro) || !isfinite(mean);
    const float scale = !ok ? -1.0f : flat ? 0.0f : fro;
    const float s = scale > 0.0f ? 1.0f / scale : 0.0f;
    __global VALUE_T *a = tensors + (long)t * SCAN_U;
    for (int u = 0; u < SCAN_U; ++u)
        a[u] = (VALUE_T)(acc[u] * s); /* 0 tensors: their starts fail at once */
    norm[t] = (float2)(mean, scale);
}

/* dipy's selection per active voxel from the reduced pairs (KP slots, sorted by lambda, descending; counts[t*5] in
 * use): f0 = max(0, min f over the S sphere samples); walking the maxima, the first must lie above f0, later ones
 * need f - f0 >= rel (top - f0) (else stop) and at least min_sep_deg to every kept one; at most K. Writes K
 * directions (unit, zeros past the count) and values in the tensor's units, and count (-1: no usable signal).
 * Voxels that SS-HOPM was not meant for get their start counters zeroed (the host path does not run them). */
__kernel void clpk_sshopm_scan_select(const int count, __global const VALUE_T *tensors, __global const float2 *norm,
                                      const int KP, __global const VALUE_T *red_lambda, __global const VALUE_T *red_x,
                                      __global const int *red_meta, __global int *red_counts, const int S,
                                      __global const float *samples, const int K, const float rel,
                                      const float min_sep_deg, __global float *dirs, __global float *values,
                                      __global int *peaks) {
    const int t = get_global_id(0);
    if (t >= count) return;
    const float mean = norm[t].x, scale = norm[t].y;
    __global float *D = dirs + (long)t * K * 3;
    __global float *F = values + (long)t * K;
    for (int i = 0; i < K; ++i) {
        F[i] = 0.0f;
        D[3 * i] = D[3 * i + 1] = D[3 * i + 2] = 0.0f;
    }
    __global int *C = red_counts + (long)t * 5;
    if (!(scale > 0.0f)) {
        peaks[t] = scale < 0.0f ? -1 : 0;
        for (int i = 0; i < 5; ++i)
            C[i] = 0;
        return;
    }
    float a[SCAN_U];
    for (int u = 0; u < SCAN_U; ++u)
        a[u] = (float)tensors[(long)t * SCAN_U + u];
    float fmn = INFINITY;
    for (int s = 0; s < S; ++s) {
        float f = 0.0f;
        for (int u = 0; u < SCAN_U; ++u)
            f = fma(samples[s * SCAN_U + u], a[u], f);
        fmn = fmin(fmn, f);
    }
    const float base = fmax(0.0f, fmn * scale + mean);
    const float rad = 0.017453292519943295f;
    float top = NAN;
    int k = 0;
    const int pairs = C[0];
    for (int i = 0; i < pairs && k < K; ++i) {
        const long e = (long)t * KP + i;
        const float lam = (float)red_lambda[e];
        if ((red_meta[e] & 7) != 1 || !isfinite(lam)) continue; /* type 1: a local maximum */
        const float f = lam * scale + mean;
        if (isnan(top)) {
            if (!(f - base > 0.0f)) break; /* no positive lobe */
            top = f;
        }
        if (f - base < rel * (top - base)) break;
        float x[3] = {(float)red_x[e * 3], (float)red_x[e * 3 + 1], (float)red_x[e * 3 + 2]};
        const float nx = rsqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        x[0] *= nx, x[1] *= nx, x[2] *= nx;
        int near = 0;
        for (int j = 0; j < k && !near; ++j) {
            const float cs = fabs(x[0] * D[3 * j] + x[1] * D[3 * j + 1] + x[2] * D[3 * j + 2]);
            near = acos(fmin(1.0f, cs)) < min_sep_deg * rad;
        }
        if (near) continue;
        D[3 * k] = x[0], D[3 * k + 1] = x[1], D[3 * k + 2] = x[2];
        F[k] = f;
        k++;
    }
    peaks[t] = k;
}
