/* Element-wise steps of SBB-NNLS (projected Barzilai-Borwein) that CLBlast has no routine for: the subspace mask of
 * the gradient, the projected step whose length is read from device memory (so no host round trip per iteration) and
 * the residual's update between two exact evaluations. Build options: VALUE_T, VALUE_IS_DOUBLE. */
#ifdef VALUE_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef VALUE_T real;

/* out = in, zeroed where the bound is active (w == 0 and the gradient pushes below it). */
__kernel void life_mask(int n, __global const real *restrict w, __global const real *restrict g,
                        __global const real *in, __global real *out) {
    const int i = get_global_id(0);
    if (i < n) out[i] = (w[i] == (real)0 && g[i] > (real)0) ? (real)0 : in[i];
}

/* The step length num / den with num = scal[0], den = scal[1]; a zero or non-finite ratio takes no step. */
inline real life_step_length(__global const real *restrict scal) {
    const real num = scal[0], den = scal[1];
    const real step = den > (real)0 ? num / den : (real)0;
    return isfinite(step) ? step : (real)0;
}

/* w = max(w - step g, 0) */
__kernel void life_bb_step(int n, __global const real *restrict scal, __global const real *restrict g,
                           __global real *restrict w) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const real v = w[i] - life_step_length(scal) * g[i];
    w[i] = v > (real)0 ? v : (real)0;
}

/* life_bb_step, and the part of the step that the projection cut off where it was not masked: the step moves w by
 * -step * gt + clip, with clip = step * g - w where w - step * g < 0 and the gradient is not masked, else 0. So
 * M w_new = M w - step * (M gt) + M clip, and clip is zero but for the weights the step drove to the bound. */
__kernel void life_bb_step_clip(int n, __global const real *restrict scal, __global const real *restrict g,
                                __global real *restrict w, __global real *restrict clip) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const real step = life_step_length(scal), wi = w[i], gi = g[i];
    const real v = wi - step * gi;
    const int masked = wi == (real)0 && gi > (real)0;
    clip[i] = (v < (real)0 && !masked) ? step * gi - wi : (real)0;
    w[i] = v > (real)0 ? v : (real)0;
}

/* g = g - step * atag + wc_clip: the gradient M^T r after life_residual_update, from atag = M^T M gt (unmasked) and
 * wc_clip = M^T M clip. */
__kernel void life_gradient_update(int n, __global const real *restrict scal, __global const real *restrict atag,
                                   __global const real *restrict wc_clip, __global real *restrict g) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const real step = life_step_length(scal);
    g[i] = step == (real)0 ? g[i] + wc_clip[i] : (g[i] - step * atag[i]) + wc_clip[i];
}

/* r = r - step * ag + m_clip: the residual M w - y after life_bb_step_clip, from ag = M gt and m_clip = M clip. With
 * stamp (n_theta values a voxel), m_clip holds M clip on the voxels stamped `it` only, and is zero elsewhere. */
__kernel void life_residual_update(long n, __global const real *restrict scal, __global const real *restrict ag,
                                   __global const real *restrict m_clip, __global real *restrict r, int n_theta,
                                   __global const int *restrict stamp, int it) {
    const real step = life_step_length(scal);
    for (long i = get_global_id(0); i < n; i += get_global_size(0)) {
        const real m = (!stamp || stamp[i / n_theta] == it) ? m_clip[i] : (real)0;
        r[i] = step == (real)0 ? r[i] + m : (r[i] - step * ag[i]) + m;
    }
}
