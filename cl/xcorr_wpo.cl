/* warp-per-overlap: one work-group of WPO_WG items per output element. The items stride over the flattened overlap
 * (item q takes elements q, q + WPO_WG, ...) and a local-memory tree with barriers reduces their sums (no reliance
 * on lock-step warps). Every item of a group follows the same loop count up to the reduction, whose barriers are
 * outside any divergent branch. Best for tiny pair counts where other variants leave the device idle. */
#ifndef WPO_WG
#define WPO_WG 64
#endif

kernel __attribute__((reqd_work_group_size(WPO_WG, 1, 1))) void xcorr_wpo(XCORR_ARGS) {
    local value_t red[WPO_WG];
    const int lane = (int)get_local_id(0);
    const ulong e = xcorr_group();
    const int per = srows * scols;
    if (e >= (ulong)per * (ulong)n_out) return; /* a padding group: all its items leave before the barriers */
    const int o = (int)(e / (ulong)per);
    const int r = (int)(e - (ulong)o * (ulong)per);
    const int k = r / scols, l = r - (r / scols) * scols;
    const int dk = k - (srows - 1) / 2, dl = l - (scols - 1) / 2;
    global const value_t *a =
        left + left_off + (ulong)xcorr_left_of(pattern, o, n_left, n_right) * (ulong)(rows * cols);
    global const value_t *b = right + right_off + (ulong)xcorr_right_of(pattern, o, n_right) * (ulong)(rows * cols);
    const int i0 = max(0, -dk), i1 = min(rows, rows - dk), j0 = max(0, -dl), j1 = min(cols, cols - dl);
    const int nj = j1 - j0, n = (i1 - i0) * nj;
    /* Walk q = lane, lane + WPO_WG, ... as (i, j) without a division per step. */
    const int step_i = WPO_WG / nj, step_j = WPO_WG - (WPO_WG / nj) * nj;
    int i = i0 + lane / nj, j = j0 + lane % nj;
    value_t sum = 0;
    for (int q = lane; q < n; q += WPO_WG) {
        sum += a[(i + dk) * cols + j + dl] * b[i * cols + j];
        i += step_i;
        j += step_j;
        if (j >= j1) j -= nj, ++i;
    }
    red[lane] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WPO_WG / 2; s > 0; s >>= 1) {
        if (lane < s) red[lane] += red[lane + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0) out[out_off + e] = red[0];
}
