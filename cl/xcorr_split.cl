/* split-row: several workers per output element, worker w summing overlap rows [w*rpw, (w+1)*rpw) of it, combined
 * either in a fixed order through a scratch buffer (xcorr_split_partial + xcorr_split_reduce: deterministic), or with
 * atomic adds by compare-and-swap on the value's bits into a zeroed output (xcorr_split_atomic: the summation order,
 * and so the last bits, vary between runs).
 * Distribution of workers (the seed's rectangle | triangle, runtime argument `triangle`):
 * - rectangle: ceil(rows / rpw) workers for every output element, gid = w * total + element; elements near the top
 *   and bottom of the output (short overlaps) leave their last workers idle.
 * - triangle: only the workers an element needs, ceil((rows - |dk|) / rpw). Worker layer w serves the centred band of
 *   output rows with |dk| <= rows - 1 - w*rpw (clipped to the window), so the layers stacked from w = 0 form the
 *   seed's triangle (a rectangle part where bands fill the window, then bands shrinking by 2*rpw rows per layer).
 *   Layer w holds n_out x band x scols work-items after xcorr_layer_start(w) band rows of the layers before it. */

/* Number of band rows of layers 0 .. w-1 (closed form, so no table is needed): layers v with rows - 1 - v*rpw >= c
 * (c = (srows-1)/2, the window's half height) fill the window (srows rows), later ones have 2*(rows-1-v*rpw)+1. */
inline long xcorr_layer_start(int w, int rows, int srows, int rpw) {
    const int c = (srows - 1) / 2;
    const long full = (long)((rows - 1 - c) / rpw) + 1;
    if (w <= full) return (long)w * srows;
    const long m = w - full;
    return full * srows + m * (2L * rows - 1) - (long)rpw * m * (full + w - 1);
}

/* Half height of layer w's band. */
inline int xcorr_layer_half(int w, int rows, int srows, int rpw) { return min(rows - 1 - w * rpw, (srows - 1) / 2); }

/* Triangle: the (element, worker) of work-item gid, or 0 when gid is past the last layer. */
inline int xcorr_triangle_work(ulong gid, int rows, int srows, int scols, int n_out, int rpw, int workers, ulong *e,
                               int *w) {
    const ulong unit = (ulong)n_out * (ulong)scols;
    const long slot = (long)(gid / unit);
    if (slot >= xcorr_layer_start(workers, rows, srows, rpw)) return 0;
    int lo = 0, hi = workers - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (xcorr_layer_start(mid, rows, srows, rpw) <= slot)
            lo = mid;
        else
            hi = mid - 1;
    }
    const int h = xcorr_layer_half(lo, rows, srows, rpw), band = 2 * h + 1;
    const ulong in_layer = gid - (ulong)xcorr_layer_start(lo, rows, srows, rpw) * unit;
    const ulong per_o = (ulong)band * (ulong)scols;
    const int o = (int)(in_layer / per_o);
    const int rest = (int)(in_layer - (ulong)o * per_o);
    const int k = (srows - 1) / 2 - h + rest / scols, l = rest % scols;
    *e = ((ulong)o * (ulong)srows + (ulong)k) * (ulong)scols + (ulong)l;
    *w = lo;
    return 1;
}

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

/* The (element, worker) of work-item gid under either distribution, or 0 when gid has no work. */
inline int xcorr_split_work(ulong gid, int triangle, int rows, int srows, int scols, int n_out, int rpw, int workers,
                            ulong *e, int *w) {
    if (triangle) return xcorr_triangle_work(gid, rows, srows, scols, n_out, rpw, workers, e, w);
    const ulong total = (ulong)srows * (ulong)scols * (ulong)n_out;
    if (gid >= total * (ulong)workers) return 0;
    *w = (int)(gid / total);
    *e = gid - (ulong)*w * total;
    return 1;
}

kernel void xcorr_split_partial(XCORR_ARGS, int rpw, int workers, int triangle, global value_t *partial) {
    const ulong gid = xcorr_item();
    int w;
    ulong e;
    if (!xcorr_split_work(gid, triangle, rows, srows, scols, n_out, rpw, workers, &e, &w)) return;
    partial[gid] = xcorr_split_sum(left, left_off, right, right_off, out, out_off, rows, cols, srows, scols, n_left,
                                   n_right, pattern, n_out, e, w, rpw);
}

/* Sums the partial sums of each element in worker order (the same order for both distributions; the rectangle's
 * idle workers add exact zeros at the end). */
kernel void xcorr_split_reduce(XCORR_ARGS, int rpw, int workers, int triangle, global const value_t *partial) {
    const ulong total = (ulong)srows * (ulong)scols * (ulong)n_out;
    const ulong e = xcorr_item();
    if (e >= total) return;
    value_t sum = 0;
    if (triangle) {
        const int per = srows * scols;
        const int o = (int)(e / (ulong)per);
        const int r = (int)(e - (ulong)o * (ulong)per);
        const int k = r / scols, l = r - (r / scols) * scols;
        const int c = (srows - 1) / 2, dk = k - c;
        const int mine = (rows - max(dk, -dk) - 1) / rpw + 1; /* ceil((rows - |dk|) / rpw) without overflow */
        const ulong unit = (ulong)n_out * (ulong)scols;
        for (int w = 0; w < mine; ++w) {
            const int h = xcorr_layer_half(w, rows, srows, rpw);
            const ulong at = (ulong)xcorr_layer_start(w, rows, srows, rpw) * unit +
                             ((ulong)o * (ulong)(2 * h + 1) + (ulong)(k - (c - h))) * (ulong)scols + (ulong)l;
            sum += partial[at];
        }
    } else {
        for (int w = 0; w < workers; ++w) sum += partial[(ulong)w * total + e];
    }
    out[out_off + e] = sum;
}

/* Float atomic add by compare-and-swap; the plain load is only the first guess of the old value, checked by the
 * exchange (a benign race, as in cl/life_spmv.cl's life_atomic_add; scripts/oclgrind-check.sh skips that report). */
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

kernel void xcorr_split_atomic(XCORR_ARGS, int rpw, int workers, int triangle) {
    const ulong gid = xcorr_item();
    int w;
    ulong e;
    if (!xcorr_split_work(gid, triangle, rows, srows, scols, n_out, rpw, workers, &e, &w)) return;
    if (!triangle) { /* the triangle launches only workers that have rows */
        const int k = (int)(e % (ulong)(srows * scols)) / scols;
        const int dk = k - (srows - 1) / 2;
        /* Workers past this element's overlap add nothing: skip the atomic. */
        if (max(0, -dk) + w * rpw >= min(rows, rows - dk)) return;
    }
    xcorr_atomic_add(out + out_off + e, xcorr_split_sum(left, left_off, right, right_off, out, out_off, rows, cols,
                                                        srows, scols, n_left, n_right, pattern, n_out, e, w, rpw));
}
