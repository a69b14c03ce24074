/* CSR SpMV, the in-house baseline: y = alpha*A*x + beta*y.
 * Options: IS_DOUBLE 0|1, WG work-group size, VEC work-items per row (1 = scalar kernel; 2..32 = vector kernel whose
 * lanes reduce through local memory with barriers, no lock-step assumption). */
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

__attribute__((reqd_work_group_size(WG, 1, 1)))
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

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void spmv_csr_vector(const global uint *restrict row_ptr, const global uint *restrict col,
                            const global VT *restrict val, const global VT *restrict x_base, const uint x_off,
                            global VT *y_base, const uint y_off, const uint rows, const VT alpha, const VT beta) {
    local VT red[WG];
    const uint lid = get_local_id(0);
    const uint lane = lid % VEC;
    const uint r = get_group_id(0) * (WG / VEC) + lid / VEC;
    const global VT *x = x_base + x_off;
    VT s = (VT)0;
    if (r < rows)
        for (uint k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += VEC) s += val[k] * x[col[k]];
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = VEC / 2; h > 0; h >>= 1) {
        if (lane < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && r < rows) csr_store(y_base + y_off, r, red[lid], alpha, beta);
}
