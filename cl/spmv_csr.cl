/* CSR SpMV: y = alpha*A*x + beta*y.
 * Option: IS_DOUBLE 0|1. The work-group size and the lanes per row of the vector kernel (vec, a power of two dividing
 * the work-group size; its lanes reduce through local memory `red` of one value per work-item, with barriers, no
 * lock-step assumption) are runtime arguments, so one program serves every CSR configuration.
 * csr_kernel=rows: spmv_csr_scalar (one row per work-item) or spmv_csr_vector (vec work-items per row).
 * csr_kernel=adaptive: spmv_csr_adaptive over row blocks made on the host (lib/spmv/spmv_csr.c), then, if some row
 * was split, spmv_csr_adaptive_long. */
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

/* s + the products of entries k, k + step, ... below end, CSR_UNROLL at a time: their column loads, then their x
 * gathers, are in flight together instead of one column -> x chain per entry (rows of a few entries are latency-
 * bound one entry at a time). Same order of additions as one at a time. */
#define CSR_UNROLL 4
inline VT csr_row_sum(const global uint *restrict col, const global VT *restrict val, const global VT *restrict x,
                      uint k, const uint end, const uint step, VT s) {
    for (; k + (CSR_UNROLL - 1) * step < end; k += CSR_UNROLL * step) {
        uint c[CSR_UNROLL];
        VT v[CSR_UNROLL], xv[CSR_UNROLL];
        for (uint u = 0; u < CSR_UNROLL; ++u) {
            c[u] = col[k + u * step];
            v[u] = val[k + u * step];
        }
        for (uint u = 0; u < CSR_UNROLL; ++u) xv[u] = x[c[u]];
        for (uint u = 0; u < CSR_UNROLL; ++u) s += v[u] * xv[u];
    }
    for (; k < end; k += step) s += val[k] * x[col[k]];
    return s;
}

kernel void spmv_csr_scalar(const global uint *restrict row_ptr, const global uint *restrict col,
                            const global VT *restrict val, const global VT *restrict x_base, const uint x_off,
                            global VT *y_base, const uint y_off, const uint rows, const VT alpha, const VT beta) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    const VT s = csr_row_sum(col, val, x_base + x_off, row_ptr[r], row_ptr[r + 1], 1, (VT)0);
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
    const VT s = r < rows ? csr_row_sum(col, val, x, row_ptr[r] + lane, row_ptr[r + 1], vec, (VT)0) : (VT)0;
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = vec / 2; h > 0; h >>= 1) {
        if (lane < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && r < rows) csr_store(y_base + y_off, r, red[lid], alpha, beta);
}

/* A row block's first row carries this bit when the block is one piece of a row split over several blocks. */
#define CSR_PIECE 0x80000000u

/* One work-group per row block. blocks[2b] = first row (| CSR_PIECE), blocks[2b+1] = first entry; the next pair
 * ends the block (the last pair is (rows, nnz)). A block holds at most `cap` entries and at most a work-group's rows.
 * Rows of a block: the entries' products are staged in local memory with coalesced loads, then each row is summed
 * by `lanes` work-items (the most that let every row have its own, a power of two) and a tree in local memory. A
 * piece of a long row: the whole work-group sums it straight from global memory and writes partial[b], which
 * spmv_csr_adaptive_long adds up (no floating-point atomics). */
kernel void spmv_csr_adaptive(const global uint *restrict row_ptr, const global uint *restrict col,
                              const global VT *restrict val, const global VT *restrict x_base, const uint x_off,
                              global VT *y_base, const uint y_off, const VT alpha, const VT beta,
                              const global uint *restrict blocks, global VT *restrict partial, local VT *stage,
                              local VT *red) {
    const uint b = get_group_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const uint head = blocks[2 * b], k0 = blocks[2 * b + 1], k1 = blocks[2 * b + 3];
    const uint r0 = head & ~CSR_PIECE, piece = (head & CSR_PIECE) != 0;
    const uint n = piece ? 1 : (blocks[2 * b + 2] & ~CSR_PIECE) - r0; /* rows, 1..wg */
    const global VT *x = x_base + x_off;
    /* barriers only outside branches: PoCL's CPU device crashed on this kernel with the staging barrier inside the
     * (uniform) branch of row blocks */
    if (!piece)
        for (uint k = k0 + lid; k < k1; k += wg) stage[k - k0] = val[k] * x[col[k]];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint lanes = wg;
    while (lanes > 1 && lanes * n > wg) lanes >>= 1;
    const uint i = lid / lanes, lane = lid & (lanes - 1);
    VT s = (VT)0;
    if (piece) {
        for (uint k = k0 + lid; k < k1; k += wg) s += val[k] * x[col[k]];
    } else if (i < n) {
        const uint end = row_ptr[r0 + i + 1] - k0;
        for (uint k = row_ptr[r0 + i] - k0 + lane; k < end; k += lanes) s += stage[k];
    }
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = lanes / 2; h > 0; h >>= 1) {
        if (lane < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane != 0) return;
    if (piece)
        partial[b] = red[0];
    else if (i < n)
        csr_store(y_base + y_off, r0 + i, red[lid], alpha, beta);
}

/* One work-group per split row: long_rows[3g] = row, [3g+1] = its first block, [3g+2] = its pieces. */
kernel void spmv_csr_adaptive_long(const global uint *restrict long_rows, const global VT *restrict partial,
                                   global VT *y_base, const uint y_off, const VT alpha, const VT beta, local VT *red) {
    const uint g = get_group_id(0), lid = get_local_id(0), wg = get_local_size(0);
    const uint first = long_rows[3 * g + 1], pieces = long_rows[3 * g + 2];
    VT s = (VT)0;
    for (uint j = lid; j < pieces; j += wg) s += partial[first + j];
    red[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = wg / 2; h > 0; h >>= 1) {
        if (lid < h) red[lid] += red[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) csr_store(y_base + y_off, long_rows[3 * g], red[0], alpha, beta);
}
