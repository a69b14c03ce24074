/* CSR SpMV, the in-house baseline: y = alpha*A*x + beta*y.
 * Option: IS_DOUBLE 0|1. The work-group size and the lanes per row of the vector kernel (vec, a power of two dividing
 * the work-group size; its lanes reduce through local memory `red` of one value per work-item, with barriers, no
 * lock-step assumption) are runtime arguments, so one program serves every CSR configuration. */
#if IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double VT;
#else
typedef float VT;
#endif

inline void csr_store(global VT *y, uint r, VT s, VT alpha, VT beta) {
    VT o = alpha * s;
    if (beta != (VT)0) o += beta * y[r]; /* beta == 0 ignores y (it may hold NaN) */
    y[r] = o;
}

kernel void spmv_csr_scalar(const global uint *restrict row_ptr, const global uint *restrict col,
                            const global VT *restrict val, const global VT *restrict x_base, const uint x_off,
                            global VT *y_base, const uint y_off, const uint rows, const VT alpha, const VT beta) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    const global VT *x = x_base + x_off;
    VT s = (VT)0;
    for (uint k = row_ptr[r]; k < row_ptr[r + 1]; ++k) s += val[k] * x[col[k]];
    csr_store(y_base + y_off, r, s, alpha, beta);
}

kernel void spmv_csr_vector(const global uint *restrict row_ptr, const global uint *restrict col,
                            const global VT *restrict val, const global VT *restrict x_base, const uint x_off,
                            global VT *y_base, const uint y_off, const uint rows, const VT alpha, const VT beta,
                            const uint vec, local VT *red) {
    const uint lid = get_local_id(0);
    const uint lane = lid % vec;
    const uint r = get_group_id(0) * (get_local_size(0) / vec) + lid / vec;
    const global VT *x = x_base + x_off;
    VT s = (VT)0;
    if (r < rows)
        for (uint k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += vec) s += val[k] * x[col[k]];
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = vec / 2; h > 0; h >>= 1) {
        if (lane < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && r < rows) csr_store(y_base + y_off, r, red[lid], alpha, beta);
}
