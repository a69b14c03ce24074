/* Fused FFT path of the cross-correlation family for the patterns with shared matrices (one-to-many, n-to-m, n-to-mn).
 * Each left is transformed once per execution into a stored spectrum; the rights are transformed two at a time
 * (z = b1 + i b2, both paired with the same left) and each pair of outputs comes out of one complex inverse:
 *   S1 clpk_xcorr_many_rows (pack 1):  per left row, forward FFT of length PC (T1: R x PC complex per left).
 *   S2 clpk_xcorr_many_spectrum:       per column of T1, forward FFT of length PR, stores conj(A) (PR x PC complex
 *                                      per left, row-major) in `spec`.
 *   K1 clpk_xcorr_many_rows (pack 2):  per row of a right pair, z = b1 + i b2, forward FFT of length PC (T1).
 *   K2 clpk_xcorr_many_columns:        per column of T1 of a right pair, forward FFT of length PR, then for each of
 *                                      the pair's lefts: V = conj(A) Z, inverse FFT, the needed output rows (T2:
 *                                      out_rows x PC complex per (pair, left)).
 *   K3 clpk_xcorr_many_out:            per row of T2, inverse FFT of length PC, scale 1/(PR*PC): the real part is the
 *                                      output of (left, b1), the imaginary part that of (left, b2); only the needed
 *                                      columns are written.
 * Why no separation of the two rights' spectra is needed: v = IFFT2(conj(A) Z) is the circular correlation
 * v(t) = sum_x a[x] z[x + t] = y1(-t) + i y2(-t), where y(s) = sum_x a[x + s] b[x] is the library's output at shift
 * s; a, b1, b2 are real, so the real and imaginary parts hold the two outputs exactly, read at t = -s.
 *
 * A right pair p (items of the pattern, in order) is u = p / inter, i = p mod inter: b1 = pack*u*inter + i and, when
 * pack = 2 and 2u + 1 < m_count, b2 = b1 + inter. one-to-many and n-to-m: inter = 1 (rights 2u, 2u + 1); n-to-mn:
 * inter = n_left, m_count = n_right / n_left (rights (2u) n + i and (2u + 1) n + i share left i). The left of pair p
 * and loop index j is i + l0 + j (n-to-m: inter = 1 and j runs over the lefts; otherwise l0 = j = 0); its outputs
 * are o1 = (l0 + j) * out_stride + b1 (out_stride: n_right for n-to-m, else 0) and o2 = o1 + inter.
 * T1, T2 and the spectra are stored in tiles of tw columns: tile b of a matrix of `rows` rows holds its columns
 * b tw .. b tw + tw - 1 as rows x tw values row-major, a matrix takes rows * pcl values (pcl = ceil(pc / lines) lines,
 * a multiple of tw). tw = pcl is the row-major layout; tw = lines (fused_tiles=1) makes a column kernel's block one
 * contiguous run and a row kernel's `lines` rows of a tile lines x lines consecutive values.
 * The FFTs come from cl/xcorr_fused_fft.cl (built ahead of this file). */

/* Per line of a work-group (at most 16, the plan's limit). */
#define MAX_LINES 16

/* Row kernels: the group's `lines` rows of pc values (pcl with the padding) between local (row l at LX(l * pc)) and
 * global memory in tiles of tw columns. line_at[l]: where column 0 of row l lives (matrix * rows_of_matrix * pcl +
 * r * tw), or ~0 for no row; stride: rows_of_matrix * tw (one tile). Consecutive items take consecutive values of a
 * tile: (tile, line, column within the tile). store: local -> global; else global -> local (zeros for no row). */
static void move_row_tiles(__local cpx_t *buf, __global cpx_t *g, __local const ulong *line_at, uint lines, uint pc,
                           uint pcl, uint tw, ulong stride, int store, uint sh) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    if (tw >= pc) { /* row-major: each row one run */
        const uint n = lines * pc;
        qr_t it = qr_start(lid, wg, pc);
        if (store) {
            for (uint e = lid; e < n; e += wg, qr_next(&it)) {
                const ulong at = line_at[it.q];
                if (at != ~(ulong)0) g[at + it.r] = buf[LX(e)];
            }
            return;
        }
        for (uint e0 = lid; e0 < n; e0 += LOAD_BATCH * wg) {
            cpx_t v[LOAD_BATCH];
#pragma unroll
            for (uint k = 0; k < LOAD_BATCH; ++k, qr_next(&it)) {
                ulong at = ~(ulong)0;
                if (e0 + k * wg < n) at = line_at[it.q];
                v[k] = load_or_zero(g, at, it.r);
            }
#pragma unroll
            for (uint k = 0; k < LOAD_BATCH; ++k)
                if (e0 + k * wg < n) buf[LX(e0 + k * wg)] = v[k];
        }
        return;
    }
    /* (tile, line, column) of e: shifts when tw = lines is a power of two (the tuner's values), else divisions */
    const uint pow2 = (tw & (tw - 1)) == 0, s = pow2 ? 31 - clz(tw) : 0;
    const float inv_tw = 1.0f / (float)tw, inv_lines = 1.0f / (float)lines;
    const uint n = lines * pcl;
    for (uint e0 = lid; e0 < n; e0 += LOAD_BATCH * wg) {
        cpx_t v[LOAD_BATCH];
        uint slot[LOAD_BATCH]; /* local index, ~0: none */
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k) {
            const uint e = e0 + k * wg;
            uint cl, l, b;
            if (pow2) {
                cl = e & (tw - 1);
                l = (e >> s) & (lines - 1);
                b = e >> (2 * s);
            } else {
                b = div_small(div_small(e, tw, inv_tw, &cl), lines, inv_lines, &l);
            }
            const uint c = b * tw + cl;
            const int in = e < n && c < pc;
            ulong at = ~(ulong)0;
            if (in) at = line_at[l];
            slot[k] = in ? LX(l * pc + c) : ~0u;
            if (store) {
                if (at != ~(ulong)0) g[at + b * stride + cl] = buf[slot[k]];
            } else {
                v[k] = load_or_zero(g, at, b * stride + cl);
            }
        }
        if (!store) {
#pragma unroll
            for (uint k = 0; k < LOAD_BATCH; ++k)
                if (slot[k] != ~0u) buf[slot[k]] = v[k];
        }
    }
}

/* S1/K1. Row g = group * lines + line of this chunk (g < n_rows = pairs * rows) is row g mod rows of pair
 * first_pair + g / rows. buf: 2 * lines * pc complex. */
__kernel void clpk_xcorr_many_rows(__global const real_t *src, ulong src_offset, ulong first_pair, ulong n_rows,
                                   uint rows, uint cols, uint pc, uint lines, uint inter, uint m_count, uint pack,
                                   __global const cpx_t *tw, __global cpx_t *t1, uint tile_w, uint sh,
                                   __local cpx_t *buf) {
    /* per line: element offsets of its real and imaginary source rows (imaginary: none when `im_ok` is 0), and of
     * its row in T1's tiles */
    __local ulong line_re[MAX_LINES], line_im[MAX_LINES], line_t1[MAX_LINES];
    __local uint line_ok[MAX_LINES];
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong g0 = (ulong)get_group_id(0) * lines;
    const ulong mat = (ulong)rows * cols;
    const uint pcl = (pc + lines - 1) / lines * lines;
    for (uint l = lid; l < lines; l += wg) {
        const ulong g = g0 + l, q = g / rows, p = first_pair + q, u = p / inter, i = p - u * inter;
        const ulong r = g - q * rows, b1 = (ulong)pack * u * inter + i;
        line_re[l] = src_offset + b1 * mat + r * cols;
        line_im[l] = line_re[l] + (ulong)inter * mat;
        line_ok[l] = (g < n_rows ? 1u : 0u) | (pack == 2 && 2 * u + 1 < m_count ? 2u : 0u);
        line_t1[l] = g < n_rows ? q * rows * pcl + r * tile_w : ~(ulong)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint fill = fft_fill_len(pc, cols);
    qr_t it = qr_start(lid, wg, fill);
    const uint n = lines * fill;
    for (uint e0 = lid; e0 < n; e0 += LOAD_BATCH * wg) {
        cpx_t v[LOAD_BATCH];
        uint slot[LOAD_BATCH];
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k, qr_next(&it)) {
            const uint line = it.q, j = it.r;
            uint ok = 0;
            ulong re = 0, im = 0;
            slot[k] = ~0u;
            if (e0 + k * wg < n) {
                slot[k] = LX(line * pc + j);
                ok = j < cols ? line_ok[line] : 0u;
                re = line_re[line] + j;
                im = line_im[line] + j;
            }
            v[k] = (cpx_t)(ok & 1u ? src[re] : 0, (ok & 3u) == 3u ? src[im] : 0);
        }
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k)
            if (slot[k] != ~0u) buf[slot[k]] = v[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local cpx_t *res = fft_lines(buf, buf + padded_len(lines * pc, sh), lines, pc, fill, (real_t)1, tw, sh);
    move_row_tiles(res, t1, line_t1, lines, pc, pcl, tile_w, (ulong)rows * tile_w, 1, sh);
}

/* Where column m0 of a matrix of `rows` rows in tiles of tile_w columns starts (row r of it: + r * tile_w). */
static inline ulong block_at(uint m0, uint rows, uint tile_w) {
    const uint b = m0 / tile_w;
    return (ulong)b * rows * tile_w + (m0 - b * tile_w);
}

/* COLUMN_WALK: in a column block, element e = r * lines + l (row r of line l) lives at local LX(l * pr + r) and at
 * blk[r * tile_w + l]; item lid takes e = lid, lid + wg, .. Where lines divides wg (the tuner's power-of-two lines),
 * that is one line l = lid mod lines and rows lid / lines + j wg / lines: the column kernels then walk rows with
 * adds, without a quotient and remainder carried per element. Other line counts take the general walk (qr_t). */

/* Loads columns m0 .. m0 + lines - 1 (those < pc) of one matrix's T1 (column m0 at `blk`, rows tile_w apart; zeros
 * from row `rows` to `fill`, none stored past it: fft_fill_len) as lines of length pr into `buf`; consecutive items
 * read consecutive columns of a row. Ends with a barrier. */
static void load_columns(__global const cpx_t *blk, uint tile_w, uint rows, uint pr, uint pc, uint m0, uint lines,
                         uint fill, __local cpx_t *buf, uint sh) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    if (wg % lines == 0) { /* see COLUMN_WALK */
        const uint l = lid % lines, rs = wg / lines, filled = m0 + l < pc ? rows : 0;
        for (uint r0 = lid / lines; r0 < fill; r0 += LOAD_BATCH * rs) {
            cpx_t v[LOAD_BATCH];
#pragma unroll
            for (uint k = 0; k < LOAD_BATCH; ++k) {
                const uint r = r0 + k * rs;
                v[k] = r < filled ? blk[r * tile_w + l] : (cpx_t)(0, 0);
            }
#pragma unroll
            for (uint k = 0; k < LOAD_BATCH; ++k)
                if (r0 + k * rs < fill) buf[LX(l * pr + r0 + k * rs)] = v[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        return;
    }
    qr_t it = qr_start(lid, wg, lines);
    const uint n = lines * fill;
    for (uint e0 = lid; e0 < n; e0 += LOAD_BATCH * wg) {
        cpx_t v[LOAD_BATCH];
        uint slot[LOAD_BATCH];
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k, qr_next(&it)) {
            const uint r = it.q, l = it.r, m = m0 + l;
            slot[k] = e0 + k * wg < n ? LX(l * pr + r) : ~0u;
            v[k] = load_or_zero(blk, r < rows && m < pc ? 0 : ~(ulong)0, r * tile_w + l);
        }
#pragma unroll
        for (uint k = 0; k < LOAD_BATCH; ++k)
            if (slot[k] != ~0u) buf[slot[k]] = v[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* S2. Group = (left first_left + group / blocks of this chunk, columns m0 = (group mod blocks) * lines ..): forward
 * column FFTs, conj(A) stored row-major (pr x pc per left). buf: 2 * lines * pr complex. */
__kernel void clpk_xcorr_many_spectrum(__global const cpx_t *t1, uint rows, uint pr, uint pc, uint lines, uint blocks,
                                       ulong first_left, __global const cpx_t *tw, __global cpx_t *spec,
                                       uint tile_w, uint sh, __local cpx_t *buf) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const uint grp = get_group_id(0), q = grp / blocks, b = grp - q * blocks, m0 = b * lines;
    const uint pcl = blocks * lines;
    const uint fill = fft_fill_len(pr, rows);
    load_columns(t1 + (ulong)q * rows * pcl + block_at(m0, rows, tile_w), tile_w, rows, pr, pc, m0, lines, fill, buf,
                 sh);
    __local const cpx_t *res = fft_lines(buf, buf + padded_len(lines * pr, sh), lines, pr, fill, (real_t)1, tw, sh);
    __global cpx_t *dst = spec + (first_left + q) * pr * pcl + block_at(m0, pr, tile_w);
    qr_t it = qr_start(lid, wg, lines);
    for (uint e = lid; e < pr * lines; e += wg, qr_next(&it)) {
        const uint ky = it.q, l = it.r, m = m0 + l;
        if (m < pc) dst[ky * tile_w + l] = conj_c(res[LX(l * pr + ky)]);
    }
}

/* K2. Group = ((q * blocks + b) * slices + slice): right pair first_pair + q, columns m0 = b * lines .., and the
 * slice'th run of lps = ceil(n_lefts / slices) of the pair's lefts (n-to-m: several groups share a pair's columns so
 * that few pairs still fill the device). Forward column FFTs of the pair's T1, then for each left j of the slice
 * (l0 + j, see the header): product with the stored conj(A), inverse FFT, output row k from circular row
 * (half_r - k) mod pr into T2 item q * n_lefts + j. buf: three regions of lines * pr complex (the forward result
 * stays in one while the other two serve each left), two where a group meets one left. */
__kernel void clpk_xcorr_many_columns(__global const cpx_t *t1, uint rows, uint pr, uint pc, uint lines, uint blocks,
                                      uint out_rows, uint half_r, ulong first_pair, uint inter, uint l0, uint n_lefts,
                                      uint slices, __global const cpx_t *spec, __global const cpx_t *tw,
                                      __global cpx_t *t2, uint tile_w, uint sh, __local cpx_t *buf) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const uint grp = get_group_id(0), cell = grp / slices, slice = grp - cell * slices;
    const uint q = cell / blocks, b = cell - q * blocks, m0 = b * lines, pcl = blocks * lines;
    const uint lps = (n_lefts + slices - 1) / slices, j0 = slice * lps;
    const uint j1 = j0 + lps < n_lefts ? j0 + lps : n_lefts;
    const ulong p = first_pair + q;
    const uint i = (uint)(p % inter);
    const uint len = padded_len(lines * pr, sh);
    const uint fill = fft_fill_len(pr, rows);
    load_columns(t1 + (ulong)q * rows * pcl + block_at(m0, rows, tile_w), tile_w, rows, pr, pc, m0, lines, fill, buf,
                 sh);
    __local const cpx_t *res = fft_lines(buf, buf + len, lines, pr, fill, (real_t)1, tw, sh);
    __local cpx_t *scratch = res == buf ? buf + len : buf;
    /* one left (one-to-many, n-to-mn; the host then gives two regions): the product in place, each item rewriting
     * the values it read */
    __local cpx_t *prod = j1 - j0 == 1 ? (__local cpx_t *)res : buf + 2 * len;
    for (uint j = j0; j < j1; ++j) {
        __global const cpx_t *a = spec + (ulong)(i + l0 + j) * pr * pcl + block_at(m0, pr, tile_w);
        __global cpx_t *dst = t2 + ((ulong)q * n_lefts + j) * out_rows * pcl + block_at(m0, out_rows, tile_w);
        const int walk = wg % lines == 0; /* COLUMN_WALK */
        const uint wl = lid % lines, rs = wg / lines, in_pc = m0 + wl < pc;
        if (walk) {
            for (uint r0 = lid / lines; r0 < pr; r0 += LOAD_BATCH * rs) {
                cpx_t v[LOAD_BATCH];
#pragma unroll
                for (uint k = 0; k < LOAD_BATCH; ++k) {
                    const uint r = r0 + k * rs;
                    v[k] = in_pc && r < pr ? a[r * tile_w + wl] : (cpx_t)(0, 0);
                }
#pragma unroll
                for (uint k = 0; k < LOAD_BATCH; ++k) {
                    const uint x = LX(wl * pr + r0 + k * rs);
                    if (r0 + k * rs < pr) prod[x] = cmul(v[k], res[x]);
                }
            }
        } else {
            qr_t it = qr_start(lid, wg, lines);
            const uint n = pr * lines;
            for (uint e0 = lid; e0 < n; e0 += LOAD_BATCH * wg) {
                cpx_t v[LOAD_BATCH];
                uint slot[LOAD_BATCH];
#pragma unroll
                for (uint k = 0; k < LOAD_BATCH; ++k, qr_next(&it)) {
                    const uint ky = it.q, l = it.r, m = m0 + l;
                    slot[k] = e0 + k * wg < n ? LX(l * pr + ky) : ~0u;
                    v[k] = load_or_zero(a, slot[k] != ~0u && m < pc ? 0 : ~(ulong)0, ky * tile_w + l);
                }
#pragma unroll
                for (uint k = 0; k < LOAD_BATCH; ++k)
                    if (slot[k] != ~0u) prod[slot[k]] = cmul(v[k], res[slot[k]]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        __local const cpx_t *fin = fft_lines(prod, scratch, lines, pr, pr, (real_t)-1, tw, sh);
        if (walk) {
            if (in_pc)
                for (uint r = lid / lines; r < out_rows; r += rs) {
                    const uint t = r <= half_r ? half_r - r : pr - (r - half_r);
                    dst[r * tile_w + wl] = fin[LX(wl * pr + t)];
                }
        } else {
            qr_t it = qr_start(lid, wg, lines);
            for (uint e = lid; e < out_rows * lines; e += wg, qr_next(&it)) {
                const uint k = it.q, l = it.r, m = m0 + l;
                const uint t = k <= half_r ? half_r - k : pr - (k - half_r);
                if (m < pc) dst[k * tile_w + l] = fin[LX(l * pr + t)];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the next left overwrites prod and scratch */
    }
}

/* K3. Line g = group * lines + line (g < n_lines) is row g of T2: output row k = g mod out_rows of item
 * q = g / out_rows = (pair first_pair + q / n_lefts, left index l0 + q mod n_lefts). buf: 2 * lines * pc complex. */
__kernel void clpk_xcorr_many_out(__global const cpx_t *t2, ulong n_lines, uint out_rows, uint out_cols, uint half_c,
                                  uint pc, uint lines, real_t scale, ulong first_pair, uint inter, uint m_count,
                                  uint l0, uint n_lefts, ulong out_stride, __global const cpx_t *tw,
                                  __global real_t *out, ulong out_offset, uint tile_w, uint sh,
                                  __local cpx_t *buf) {
    /* per line: the first element of its row in each of the two outputs; which of them exist (bit 0: the line,
     * bit 1: the second output) */
    __local ulong line_o1[MAX_LINES], line_o2[MAX_LINES], line_t2[MAX_LINES];
    __local uint line_ok[MAX_LINES];
    const uint lid = get_local_id(0), wg = get_local_size(0);
    const ulong g0 = (ulong)get_group_id(0) * lines;
    const uint pcl = (pc + lines - 1) / lines * lines;
    for (uint l = lid; l < lines; l += wg) {
        const ulong g = g0 + l, q = g / out_rows, k = g - q * out_rows;
        line_t2[l] = g < n_lines ? q * out_rows * pcl + k * tile_w : ~(ulong)0;
        const ulong pq = q / n_lefts, j = q - pq * n_lefts, p = first_pair + pq, u = p / inter, i = p - u * inter;
        const ulong o1 = (l0 + j) * out_stride + 2 * u * inter + i;
        line_o1[l] = out_offset + (o1 * out_rows + k) * out_cols;
        line_o2[l] = out_offset + ((o1 + inter) * out_rows + k) * out_cols;
        line_ok[l] = (g < n_lines ? 1u : 0u) | (2 * u + 1 < m_count ? 2u : 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    move_row_tiles(buf, (__global cpx_t *)t2, line_t2, lines, pc, pcl, tile_w, (ulong)out_rows * tile_w, 0, sh);
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const cpx_t *res = fft_lines(buf, buf + padded_len(lines * pc, sh), lines, pc, pc, (real_t)-1, tw, sh);
    qr_t it = qr_start(lid, wg, 2 * out_cols);
    for (uint e = lid; e < lines * 2 * out_cols; e += wg, qr_next(&it)) {
        const uint line = it.q, which = it.r >= out_cols, l = it.r - which * out_cols, ok = line_ok[line];
        if (!(ok & 1u) || (which && !(ok & 2u))) continue;
        const uint u = l <= half_c ? half_c - l : pc - (l - half_c);
        const cpx_t v = res[LX(line * pc + u)];
        out[(which ? line_o2[line] : line_o1[line]) + l] = (which ? v.y : v.x) * scale;
    }
}
