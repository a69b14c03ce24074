/* Element-wise steps of SBB-NNLS (projected Barzilai-Borwein) that CLBlast has no routine for: the subspace mask of
 * the gradient and the projected step whose length is read from device memory (so no host round trip per
 * iteration). Build options: VALUE_T, VALUE_IS_DOUBLE. */
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

/* w = max(w - (num / den) g, 0) with num = scal[0], den = scal[1]; a zero or non-finite ratio takes no step. */
__kernel void life_bb_step(int n, __global const real *restrict scal, __global const real *restrict g,
                           __global real *restrict w) {
    const int i = get_global_id(0);
    if (i >= n) return;
    const real num = scal[0], den = scal[1];
    real step = den > (real)0 ? num / den : (real)0;
    if (!isfinite(step)) step = 0;
    const real v = w[i] - step * g[i];
    w[i] = v > (real)0 ? v : (real)0;
}
