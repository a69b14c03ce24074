/* FFT path of the cross-correlation family: the kernels around VkFFT's batched 2D R2C/C2R transforms.
 *
 * Layout of the transform buffer (VkFFT's in-place R2C layout): every matrix is P rows of `pstride` = 2*(Q/2+1)
 * reals; the real input uses the first Q of each row, the spectrum is P x (Q/2+1) complex values in the same bytes.
 * Build options: -DVALUE_T=float|double -DVALUE2_T=float2|double2 (and -DCLPK_FP64 for double). */
#ifdef CLPK_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef VALUE_T real_t;
typedef VALUE2_T real2_t;

/* Copies `n_valid` matrices (rows x cols, starting at matrix `first` of src) into the zero-padded transform layout of
 * `n_total` matrices; matrices n_valid..n_total-1 of the batch are zero so the whole batch stays finite. */
__kernel void clpk_xcorr_fft_pack(__global const real_t *src, ulong src_offset, ulong first, uint n_valid,
                                  uint n_total, uint rows, uint cols, uint prows, uint pstride,
                                  __global real_t *dst) {
    const ulong g = get_global_id(0);
    const ulong per_matrix = (ulong)prows * pstride;
    if (g >= per_matrix * n_total) return;
    const ulong b = g / per_matrix;
    const uint rem = (uint)(g - b * per_matrix);
    const uint i = rem / pstride;
    const uint j = rem - i * pstride;
    real_t v = (real_t)0;
    if (b < n_valid && i < rows && j < cols) v = src[src_offset + (first + b) * rows * cols + (ulong)i * cols + j];
    dst[g] = v;
}

/* work[k] = scale * conj(L) * R for the spectra of `n` output matrices o0..o0+n-1 (spec_len complex values each).
 * Left spectrum of output o: lspec matrix (o / ldiv) % lmod - lsub. Right spectrum: rspec matrix o % rmod when rmod
 * > 0 (n-to-m, all right spectra stored), else the spectrum already in work (transformed in place). */
__kernel void clpk_xcorr_fft_product(__global real2_t *work, __global const real2_t *lspec,
                                     __global const real2_t *rspec, ulong o0, ulong n_elems, ulong spec_len,
                                     ulong ldiv, ulong lmod, ulong lsub, ulong rmod, real_t scale) {
    const ulong g = get_global_id(0);
    if (g >= n_elems) return;
    const ulong b = g / spec_len;
    const ulong e = g - b * spec_len;
    const ulong o = o0 + b;
    const ulong l = (o / ldiv) % lmod - lsub;
    const real2_t lv = lspec[l * spec_len + e];
    const real2_t rv = rmod ? rspec[(o % rmod) * spec_len + e] : work[g];
    real2_t p;
    p.x = lv.x * rv.x + lv.y * rv.y;
    p.y = lv.x * rv.y - lv.y * rv.x;
    work[g] = p * scale;
}

/* The inverse of conj(L)*R is d(t) = sum_x L[x] R[x + t] (circular with period P, Q); the cross-correlation at shift s
 * (out = sum_x left[x + s] right[x]) is d(-s). Writes the out_rows x out_cols centred window of shifts of `n`
 * matrices (half_r = (out_rows - 1) / 2 is the shift of row 0, negated). */
__kernel void clpk_xcorr_fft_crop(__global const real_t *work, uint n, uint out_rows, uint out_cols, uint half_r,
                                  uint half_c, uint prows, uint pcols, uint pstride, __global real_t *out,
                                  ulong out_offset) {
    const ulong g = get_global_id(0);
    const ulong per_matrix = (ulong)out_rows * out_cols;
    if (g >= per_matrix * n) return;
    const ulong b = g / per_matrix;
    const uint rem = (uint)(g - b * per_matrix);
    const uint k = rem / out_cols;
    const uint l = rem - k * out_cols;
    /* shift s = k - half_r; circular index of -s */
    const uint tr = k <= half_r ? half_r - k : prows - (k - half_r);
    const uint tc = l <= half_c ? half_c - l : pcols - (l - half_c);
    out[out_offset + g] = work[b * prows * pstride + (ulong)tr * pstride + tc];
}
