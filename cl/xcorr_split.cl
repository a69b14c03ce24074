/* split-row: `workers` work-items per output element, worker w summing overlap rows [w*rpw, (w+1)*rpw) of it.
 * Worker index is the slowest (gid = w * total + element), so the workers of one element run far apart in time.
 * Combined either in a fixed order through a scratch buffer (xcorr_split_partial + xcorr_split_reduce:
 * deterministic), or with atomic adds by compare-and-swap on the value's bits into a zeroed output
 * (xcorr_split_atomic: the summation order, and so the last bits, vary between runs). */

inline value_t xcorr_split_sum(XCORR_ARGS, ulong e, int w, int rpw) {
    const int per = srows * scols;
    const int o = (int)(e / (ulong)per);
    const int r = (int)(e - (ulong)o * (ulong)per);
    const int k = r / scols, l = r - (r / scols) * scols;
    const int dk = k - (srows - 1) / 2, dl = l - (scols - 1) / 2;
    global const value_t *a =
        left + left_off + (ulong)xcorr_left_of(pattern, o, n_left, n_right) * (ulong)(rows * cols);
    global const value_t *b = right + right_off + (ulong)xcorr_right_of(pattern, o, n_right) * (ulong)(rows * cols);
    const int i_first = max(0, -dk), i_end = min(rows, rows - dk);
    const int i0 = i_first + w * rpw, i1 = min(i_end, i0 + rpw);
    const int j0 = max(0, -dl), j1 = min(cols, cols - dl);
    value_t sum = 0;
    for (int i = i0; i < i1; ++i) {
        const int arow = (i + dk) * cols + dl, brow = i * cols;
        value_t row = 0;
        for (int j = j0; j < j1; ++j) row += a[arow + j] * b[brow + j];
        sum += row;
    }
    return sum;
}

kernel void xcorr_split_partial(XCORR_ARGS, int rpw, int workers, global value_t *partial) {
    const ulong total = (ulong)srows * (ulong)scols * (ulong)n_out;
    const ulong gid = get_global_id(0);
    if (gid >= total * (ulong)workers) return;
    const int w = (int)(gid / total);
    const ulong e = gid - (ulong)w * total;
    partial[gid] = xcorr_split_sum(left, left_off, right, right_off, out, out_off, rows, cols, srows, scols, n_left,
                                   n_right, pattern, n_out, e, w, rpw);
}

kernel void xcorr_split_reduce(XCORR_ARGS, int rpw, int workers, global const value_t *partial) {
    const ulong total = (ulong)srows * (ulong)scols * (ulong)n_out;
    const ulong e = get_global_id(0);
    if (e >= total) return;
    value_t sum = 0;
    for (int w = 0; w < workers; ++w) sum += partial[(ulong)w * total + e];
    out[out_off + e] = sum;
}

#if VALUE_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
inline void xcorr_atomic_add(global value_t *p, value_t v) {
    volatile global ulong *bits = (volatile global ulong *)p;
    ulong seen = *bits, expected;
    do {
        expected = seen;
        seen = atom_cmpxchg(bits, expected, as_ulong(as_double(expected) + v));
    } while (seen != expected);
}
#else
inline void xcorr_atomic_add(global value_t *p, value_t v) {
    volatile global uint *bits = (volatile global uint *)p;
    uint seen = *bits, expected;
    do {
        expected = seen;
        seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + v));
    } while (seen != expected);
}
#endif

kernel void xcorr_split_atomic(XCORR_ARGS, int rpw, int workers) {
    const ulong total = (ulong)srows * (ulong)scols * (ulong)n_out;
    const ulong gid = get_global_id(0);
    if (gid >= total * (ulong)workers) return;
    const int w = (int)(gid / total);
    const ulong e = gid - (ulong)w * total;
    const int per = srows * scols;
    const int k = (int)(e % (ulong)per) / scols;
    const int dk = k - (srows - 1) / 2;
    /* Workers past this element's overlap add nothing: skip the atomic. */
    if (max(0, -dk) + w * rpw >= min(rows, rows - dk)) return;
    xcorr_atomic_add(out + out_off + e, xcorr_split_sum(left, left_off, right, right_off, out, out_off, rows, cols,
                                                        srows, scols, n_left, n_right, pattern, n_out, e, w, rpw));
}
