/* Fused FFT path of the cross-correlation family (one-to-one), three launches per chunk of pairs:
 *   K1 clpk_xcorr_fused_rows:    per input row r < R of a pair, z = left + i*right, forward FFT of length PC (zeros
 *                                past column C are never stored), writes R x PC complex per pair (T1).
 *   K2 clpk_xcorr_fused_columns: per column pair (c, PC - c), c <= PC/2: both columns of T1 (R values, zeros past),
 *                                forward FFT of length PR, separation of the two real spectra, X = A * conj(B),
 *                                inverse FFT of column c, writes only the needed output rows (T2: out_rows x
 *                                (PC/2 + 1) complex per pair).
 *   K3 clpk_xcorr_fused_out:     per two output rows (packed as one complex line), Hermitian expansion to PC values,
 *                                inverse FFT, scale 1/(PR*PC), writes only the needed columns to the user's output.
 * The FFTs (cl/xcorr_fused_fft.cl, built ahead of this file) run in local memory, all items of a work-group
 * cooperating on `lines` lines at once. */

/* K1. Rows g = group * lines + line (g < n_rows = pairs * R of this chunk; row g of the chunk is row g of the stacked
 * matrices from `first_row`). buf: 2 * lines * pc complex. */
__kernel void clpk_xcorr_fused_rows(__global const real_t *left, ulong left_offset, __global const real_t *right,
                                    ulong right_offset, ulong first_row, ulong n_rows, uint cols, uint pc, uint lines,
                                    __global const cpx_t *tw, __global cpx_t *t1, uint sh, __local cpx_t *buf) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong g0 = (ulong)get_group_id(0) * lines;
    const uint fill = fft_fill_len(pc, cols);
    qr_t it = qr_start(lid, wg, fill);
    const uint n = lines * fill;
    for (uint e0 = lid; e0 < n; e0 += LOAD_BATCH * wg) {
        cpx_t v[LOAD_BATCH];
        uint slot[LOAD_BATCH];
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k, qr_next(&it)) {
            const ulong g = g0 + it.q;
            slot[k] = e0 + k * wg < n ? LX(it.q * pc + it.r) : ~0u;
            const ulong at = (first_row + g) * cols + it.r;
            const int ok = slot[k] != ~0u && g < n_rows && it.r < cols;
            v[k] = ok ? (cpx_t)(left[left_offset + at], right[right_offset + at]) : (cpx_t)(0, 0);
        }
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k)
            if (slot[k] != ~0u) buf[slot[k]] = v[k];
    }
    fft_rows_to_t1(buf, lines, pc, fill, tw, sh, g0, n_rows, t1);
}

/* K2 reads one or a few columns and their mirrors: a warp's loads touch many rows in short pieces, where a full batch
 * of them in flight was slower in f64 (session 24, docs/perf-xcorr.md): a quarter of a batch. */
#define COLUMNS_BATCH (LOAD_BATCH / 4)

/* K2. Group = (pair p of the chunk, block of `lines` columns c0 .. c0 + lines - 1, c <= pc/2). Line 2l holds column
 * c = c0 + l, line 2l+1 column (pc - c) mod pc. buf: 4 * lines * pr complex. */
__kernel void clpk_xcorr_fused_columns(__global const cpx_t *t1, uint rows, uint pr, uint pc, uint lines, uint blocks,
                                       uint out_rows, uint half_r, __global const cpx_t *tw, __global cpx_t *t2,
                                       uint sh, __local cpx_t *buf) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const uint grp = get_group_id(0);
    const ulong p = grp / blocks;
    const uint c0 = (grp - (uint)p * blocks) * lines;
    const uint hc = pc / 2 + 1; /* columns of the half spectrum */
    __global const cpx_t *src = t1 + p * rows * pc;
    /* Consecutive items read consecutive columns of one row: c0.. ascending, then the mirrored block ascending. */
    const uint fill = fft_fill_len(pr, rows);
    qr_t it = qr_start(lid, wg, 2 * lines);
    const uint n = 2 * lines * fill;
    for (uint e0 = lid; e0 < n; e0 += COLUMNS_BATCH * wg) {
        cpx_t v[COLUMNS_BATCH];
        uint slot[COLUMNS_BATCH];
#pragma unroll
        for (uint k = 0; k < COLUMNS_BATCH; ++k, qr_next(&it)) {
            const uint r = it.q, w = it.r;
            const uint mirror = w >= lines;
            const uint l = mirror ? 2 * lines - 1 - w : w;
            const uint c = c0 + l;
            slot[k] = e0 + k * wg < n ? LX((2 * l + mirror) * pr + r) : ~0u;
            v[k] = load_or_zero(src, r < rows && c < hc ? 0 : ~(ulong)0, r * pc + (mirror ? (c == 0 ? 0 : pc - c) : c));
        }
#pragma unroll
        for (uint k = 0; k < COLUMNS_BATCH; ++k)
            if (slot[k] != ~0u) buf[slot[k]] = v[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint half_len = padded_len(2 * lines * pr, sh);
    __local cpx_t *res = fft_lines(buf, buf + half_len, 2 * lines, pr, fill, (real_t)1, tw, sh);
    __local cpx_t *oth = res == buf ? buf + half_len : buf;
    /* Z = FFT2(left + i right). With Zm = conj(Z(-ky, -kx)): A = (Z + Zm)/2 (left), B = (Z - Zm)/(2i) (right), and
     * X = A conj(B) = (Z + Zm) * i conj(Z - Zm) / 4; its inverse is sum_x left[x + t] right[x] (circular). */
    it = qr_start(lid, wg, pr);
    for (uint e = lid; e < lines * pr; e += wg, qr_next(&it)) {
        const uint l = it.q, ky = it.r;
        const cpx_t z = res[LX(2 * l * pr + ky)];
        const cpx_t zm = conj_c(res[LX((2 * l + 1) * pr + (ky == 0 ? 0 : pr - ky))]);
        oth[LX(e)] = cmul(z + zm, mul_i(conj_c(z - zm))) * (real_t)0.25;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const cpx_t *fin = fft_lines(oth, res, lines, pr, pr, (real_t)-1, tw, sh);
    /* Output row k is shift s = k - half_r, circular row (s mod pr). */
    __global cpx_t *dst = t2 + p * out_rows * hc;
    it = qr_start(lid, wg, lines);
    for (uint e = lid; e < out_rows * lines; e += wg, qr_next(&it)) {
        const uint k = it.q, l = it.r, c = c0 + l;
        const uint t = k >= half_r ? k - half_r : pr - (half_r - k);
        if (c < hc) dst[k * hc + c] = fin[LX(l * pr + t)];
    }
}

/* K3 loads two values an element: half a batch */
#define OUT_BATCH (LOAD_BATCH / 2)

/* K3. Line g = group * lines + line is the row pair (2h, 2h+1) of pair p = g / half_rows (h = g mod half_rows) of the
 * chunk; the two half-spectrum rows Y0, Y1 are expanded to pc values (Y(pc - kx) = conj(Y(kx))) and packed as
 * Y0 + i Y1, whose inverse is y0 + i y1 (both real). buf: 2 * lines * pc complex. */
__kernel void clpk_xcorr_fused_out(__global const cpx_t *t2, ulong n_lines, uint half_rows, uint out_rows,
                                   uint out_cols, uint half_c, uint pc, uint lines, real_t scale,
                                   __global const cpx_t *tw, __global real_t *out, ulong out_offset, uint sh,
                                   __local cpx_t *buf) {
    /* per line (at most 16, the plan's limit): first output row of the chunk's output rows, and its k0 (out_rows for
     * a line past the last) */
    __local ulong line_row[16];
    __local uint line_k0[16];
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong g0 = (ulong)get_group_id(0) * lines;
    const uint hc = pc / 2 + 1;
    for (uint l = lid; l < lines; l += wg) {
        const ulong g = g0 + l, p = g / half_rows;
        const uint k0 = 2 * (uint)(g - p * half_rows);
        line_k0[l] = g < n_lines ? k0 : out_rows;
        line_row[l] = p * out_rows + k0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    qr_t it = qr_start(lid, wg, pc);
    const uint n = lines * pc;
    for (uint e0 = lid; e0 < n; e0 += OUT_BATCH * wg) {
        cpx_t v[OUT_BATCH];
#pragma unroll
        for (uint k = 0; k < OUT_BATCH; ++k, qr_next(&it)) {
            const uint kx = it.r, mirror = kx >= hc, c = mirror ? pc - kx : kx;
            uint k0 = out_rows;
            ulong at = ~(ulong)0;
            if (e0 + k * wg < n) {
                k0 = line_k0[it.q];
                at = line_row[it.q] * hc + c;
            }
            cpx_t y0 = load_or_zero(t2, k0 < out_rows ? at : ~(ulong)0, 0);
            cpx_t y1 = load_or_zero(t2, k0 + 1 < out_rows ? at : ~(ulong)0, hc);
            /* columns 0 and pc/2 of a real row's spectrum are real (exactly, up to rounding) */
            if (c == 0 || c == pc / 2) y0.y = y1.y = 0;
            if (mirror) y0 = conj_c(y0), y1 = conj_c(y1);
            v[k] = y0 + mul_i(y1);
        }
#pragma unroll
        for (uint k = 0; k < OUT_BATCH; ++k)
            if (e0 + k * wg < n) buf[LX(e0 + k * wg)] = v[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const cpx_t *res = fft_lines(buf, buf + padded_len(lines * pc, sh), lines, pc, pc, (real_t)-1, tw, sh);
    it = qr_start(lid, wg, 2 * out_cols);
    for (uint e = lid; e < lines * 2 * out_cols; e += wg, qr_next(&it)) {
        const uint line = it.q, which = it.r >= out_cols, l = it.r - which * out_cols;
        const uint k = line_k0[line] + which;
        if (k >= out_rows) continue;
        const uint u = l >= half_c ? l - half_c : pc - (half_c - l);
        const cpx_t v = res[LX(line * pc + u)];
        out[out_offset + (line_row[line] + which) * out_cols + l] = (which ? v.y : v.x) * scale;
    }
}
