/* naive: one work-item per output element (the baseline). Each row of the overlap is summed on its own and then
 * added to the total, which keeps f32 rounding near eps*sqrt(rows)+eps*sqrt(cols) instead of eps*sqrt(rows*cols). */
kernel void xcorr_naive(XCORR_ARGS) {
    const int per = srows * scols;
    const ulong gid = xcorr_item();
    if (gid >= (ulong)per * (ulong)n_out) return;
    const int o = (int)(gid / (ulong)per);
    const int e = (int)(gid - (ulong)o * (ulong)per);
    const int k = e / scols, l = e - (e / scols) * scols;
    const int dk = k - (srows - 1) / 2, dl = l - (scols - 1) / 2;
    global const value_t *a =
        left + left_off + (ulong)xcorr_left_of(pattern, o, n_left, n_right) * (ulong)(rows * cols);
    global const value_t *b = right + right_off + (ulong)xcorr_right_of(pattern, o, n_right) * (ulong)(rows * cols);
    const int i0 = max(0, -dk), i1 = min(rows, rows - dk), j0 = max(0, -dl), j1 = min(cols, cols - dl);
    value_t sum = 0;
    for (int i = i0; i < i1; ++i) {
        const int arow = (i + dk) * cols + dl, brow = i * cols;
        value_t row = 0;
        for (int j = j0; j < j1; ++j) row += a[arow + j] * b[brow + j];
        sum += row;
    }
    out[out_off + gid] = sum;
}
