/* grouped-overlap, multi-matrix-right and multi-matrix-both in one register-blocked kernel. One work-item computes
 * ROWS x SHIFTS consecutive shifts (a block of the output) for LEFTS x RIGHTS pairs of matrices. For each overlap
 * element (i, j) it loads RIGHTS right values and LEFTS*ROWS new left values (a sliding window of SHIFTS left values
 * per left row stays in registers, as a circular buffer), then does LEFTS*RIGHTS*ROWS*SHIFTS multiply-adds.
 *   grouped:      SHIFTS x ROWS > 1, LEFTS = RIGHTS = 1
 *   multi-right:  RIGHTS > 1 (the rights sharing one left: one-to-many, n-to-mn, n-to-m)
 *   multi-both:   LEFTS x RIGHTS (n-to-m only)
 * Work-item index: x-tile fastest (neighbours read neighbouring left elements), then y-tile, then matrix group.
 * Groups (n_groups, from the host): one-to-one: one pair each; one-to-many: RIGHTS rights; n-to-mn: RIGHTS rights of
 * one left (rights left + q*n_left); n-to-m: LEFTS lefts x RIGHTS rights. Tails are clamped to a valid matrix for
 * loading and not stored. No barriers: early return is safe. */
#ifndef SHIFTS
#define SHIFTS 1
#endif
#ifndef ROWS
#define ROWS 1
#endif
#ifndef LEFTS
#define LEFTS 1
#endif
#ifndef RIGHTS
#define RIGHTS 1
#endif

kernel void xcorr_tile(XCORR_ARGS, int n_groups) {
    const int tiles_x = (scols + SHIFTS - 1) / SHIFTS, tiles_y = (srows + ROWS - 1) / ROWS;
    const ulong per = (ulong)tiles_x * (ulong)tiles_y;
    const ulong gid = xcorr_item();
    if (gid >= per * (ulong)n_groups) return;
    const int g = (int)(gid / per);
    const int rem = (int)(gid - (ulong)g * per);
    const int ty = rem / tiles_x, tx = rem - (rem / tiles_x) * tiles_x;

    /* Matrices of this group, and the output matrix of each pair. */
    int lidx[LEFTS], ridx[RIGHTS], lok[LEFTS], rok[RIGHTS];
    if (pattern == XCORR_N_TO_M) {
        const int rblocks = (n_right + RIGHTS - 1) / RIGHTS;
        const int lb = g / rblocks, rb = g - (g / rblocks) * rblocks;
        for (int a = 0; a < LEFTS; ++a) lidx[a] = lb * LEFTS + a, lok[a] = lidx[a] < n_left;
        for (int t = 0; t < RIGHTS; ++t) ridx[t] = rb * RIGHTS + t, rok[t] = ridx[t] < n_right;
    } else if (pattern == XCORR_N_TO_MN) {
        const int m = n_right / n_left;
        const int la = g % n_left, blk = g / n_left;
        for (int a = 0; a < LEFTS; ++a) lidx[a] = la, lok[a] = a == 0;
        for (int t = 0; t < RIGHTS; ++t) {
            const int q = blk * RIGHTS + t;
            rok[t] = q < m;
            ridx[t] = la + q * n_left;
        }
    } else if (pattern == XCORR_ONE_TO_MANY) {
        for (int a = 0; a < LEFTS; ++a) lidx[a] = 0, lok[a] = a == 0;
        for (int t = 0; t < RIGHTS; ++t) ridx[t] = g * RIGHTS + t, rok[t] = ridx[t] < n_right;
    } else {
        for (int a = 0; a < LEFTS; ++a) lidx[a] = g, lok[a] = a == 0;
        for (int t = 0; t < RIGHTS; ++t) ridx[t] = g, rok[t] = t == 0;
    }
    ulong lbase[LEFTS], rbase[RIGHTS];
    for (int a = 0; a < LEFTS; ++a) lbase[a] = left_off + (ulong)(lok[a] ? lidx[a] : 0) * (ulong)(rows * cols);
    for (int t = 0; t < RIGHTS; ++t) rbase[t] = right_off + (ulong)(rok[t] ? ridx[t] : ridx[0]) * (ulong)(rows * cols);

    const int dk0 = ty * ROWS - (srows - 1) / 2, dl0 = tx * SHIFTS - (scols - 1) / 2;
    /* Union of the overlap ranges of the block's shifts; terms outside one shift's overlap read zeros. */
    const int i_lo = max(0, -(dk0 + ROWS - 1)), i_hi = min(rows, rows - dk0);
    const int j_lo = max(0, -(dl0 + SHIFTS - 1)), j_hi = min(cols, cols - dl0);

    value_t acc[LEFTS][RIGHTS][ROWS][SHIFTS];
    for (int a = 0; a < LEFTS; ++a)
        for (int t = 0; t < RIGHTS; ++t)
            for (int y = 0; y < ROWS; ++y)
                for (int s = 0; s < SHIFTS; ++s) acc[a][t][y][s] = 0;

    for (int i = i_lo; i < i_hi; ++i) {
        value_t part[LEFTS][RIGHTS][ROWS][SHIFTS];
        value_t win[LEFTS][ROWS][SHIFTS];
        ulong lrow[LEFTS][ROWS];
        int rowok[ROWS];
        for (int y = 0; y < ROWS; ++y) {
            const int li = i + dk0 + y;
            rowok[y] = li >= 0 && li < rows;
            for (int a = 0; a < LEFTS; ++a) lrow[a][y] = lbase[a] + (ulong)(rowok[y] ? li : 0) * (ulong)cols;
        }
        for (int a = 0; a < LEFTS; ++a)
            for (int t = 0; t < RIGHTS; ++t)
                for (int y = 0; y < ROWS; ++y)
                    for (int s = 0; s < SHIFTS; ++s) part[a][t][y][s] = 0;
        for (int s = 0; s + 1 < SHIFTS; ++s) {
            const int c = j_lo + dl0 + s;
            const int cok = c >= 0 && c < cols;
            for (int a = 0; a < LEFTS; ++a)
                for (int y = 0; y < ROWS; ++y) win[a][y][s] = rowok[y] && cok ? left[lrow[a][y] + c] : (value_t)0;
        }
        /* The window is circular: at step u of a block of SHIFTS columns, shift s reads slot (u + s) % SHIFTS and
         * the new column goes to slot (u + SHIFTS - 1) % SHIFTS. With u and s unrolled every slot index is a
         * constant, so the window stays in registers without moves. The last block may run past j_hi: its right
         * values read as zero. */
        for (int jb = j_lo; jb < j_hi; jb += SHIFTS) {
            for (int u = 0; u < SHIFTS; ++u) {
                const int j = jb + u;
                const int c = j + dl0 + SHIFTS - 1;
                const int cok = c >= 0 && c < cols;
                for (int a = 0; a < LEFTS; ++a)
                    for (int y = 0; y < ROWS; ++y)
                        win[a][y][(u + SHIFTS - 1) % SHIFTS] = rowok[y] && cok ? left[lrow[a][y] + c] : (value_t)0;
                value_t rv[RIGHTS];
                for (int t = 0; t < RIGHTS; ++t)
                    rv[t] = j < j_hi ? right[rbase[t] + (ulong)(i * cols + j)] : (value_t)0;
                for (int a = 0; a < LEFTS; ++a)
                    for (int t = 0; t < RIGHTS; ++t)
                        for (int y = 0; y < ROWS; ++y)
                            for (int s = 0; s < SHIFTS; ++s) part[a][t][y][s] += win[a][y][(u + s) % SHIFTS] * rv[t];
            }
        }
        for (int a = 0; a < LEFTS; ++a)
            for (int t = 0; t < RIGHTS; ++t)
                for (int y = 0; y < ROWS; ++y)
                    for (int s = 0; s < SHIFTS; ++s) acc[a][t][y][s] += part[a][t][y][s];
    }

    const ulong out_size = (ulong)srows * (ulong)scols;
    for (int a = 0; a < LEFTS; ++a)
        for (int t = 0; t < RIGHTS; ++t) {
            if (!lok[a] || !rok[t]) continue;
            const ulong o = pattern == XCORR_N_TO_M ? (ulong)lidx[a] * (ulong)n_right + (ulong)ridx[t] : (ulong)ridx[t];
            for (int y = 0; y < ROWS; ++y) {
                const int k = ty * ROWS + y;
                if (k >= srows) continue;
                for (int s = 0; s < SHIFTS; ++s) {
                    const int l = tx * SHIFTS + s;
                    if (l < scols) out[out_off + o * out_size + (ulong)(k * scols + l)] = acc[a][t][y][s];
                }
            }
        }
}
