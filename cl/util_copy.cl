/* Device bandwidth probe and the smallest end-to-end check: y = a*x + y and a float4 copy. */
__kernel void clpk_copy_float4(__global const float4 *restrict src, __global float4 *restrict dst, uint n) {
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) dst[i] = src[i];
}

__kernel void clpk_saxpy(uint n, float a, __global const float *restrict x, __global float *restrict y) {
    uint i = get_global_id(0);
    if (i < n) y[i] = fma(a, x[i], y[i]);
}
