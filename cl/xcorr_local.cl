/* local: one work-group per output matrix. The group first copies its left and right matrix into local memory
 * (consecutive items copy consecutive elements: coalesced), then each item computes blocks of BLOCK_ROWS x BLOCK_COLS
 * consecutive shifts, reading only local memory: per overlap element one right value and BLOCK_ROWS new left values
 * (a sliding window of BLOCK_COLS left values per block row in registers, as in xcorr_tile) for BLOCK_ROWS x
 * BLOCK_COLS multiply-adds. Each item takes two column blocks of one block row whose overlap widths add up to
 * about the matrix width (below); blocks are numbered column-block fastest, so neighbouring items take
 * neighbouring column shifts. The host sizes the two local buffers (rows x cols each) and refuses matrices that
 * do not fit. The only barrier follows the copy loops, which every item leaves (the one early return is a whole padding group's). */
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 1
#endif
#ifndef BLOCK_COLS
#define BLOCK_COLS 1
#endif
#ifndef LOCAL_WG
#define LOCAL_WG 64
#endif

kernel __attribute__((reqd_work_group_size(LOCAL_WG, 1, 1))) void xcorr_local(XCORR_ARGS, local value_t *lm,
                                                                               local value_t *rm) {
    const int lid = (int)get_local_id(0);
    const ulong grp = xcorr_group(); /* n_out groups, and padding groups of a two-dimensional launch */
    if (grp >= (ulong)n_out) return;  /* the whole group, before the barrier */
    const int o = (int)grp;
    const int n = rows * cols;
    global const value_t *a = left + left_off + (ulong)xcorr_left_of(pattern, o, n_left, n_right) * (ulong)n;
    global const value_t *b = right + right_off + (ulong)xcorr_right_of(pattern, o, n_right) * (ulong)n;
    for (int e = lid; e < n; e += LOCAL_WG) {
        lm[e] = a[e];
        rm[e] = b[e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Lane balancing: column shifts are split into region A = [0, mid) and B = [mid, scols), and an item takes
     * column block x of both. For the full output (scols = 2C-1, mid = C) shift l of A has overlap width l + 1 and
     * shift mid + l of B has C - 1 - l: each item's two blocks together span about C columns, so the lanes of a
     * warp run equal trip counts instead of all waiting for the widest overlap. */
    const int mid = (scols + 1) / 2, c0 = (scols - 1) / 2;
    const int tiles_x = (mid + BLOCK_COLS - 1) / BLOCK_COLS, tiles_y = (srows + BLOCK_ROWS - 1) / BLOCK_ROWS;
    global value_t *res = out + out_off + (ulong)o * (ulong)srows * (ulong)scols;
    for (int t = lid; t < tiles_x * tiles_y; t += LOCAL_WG) {
        const int ty = t / tiles_x, tx = t - (t / tiles_x) * tiles_x;
        const int dk0 = ty * BLOCK_ROWS - (srows - 1) / 2;
        const int la = tx * BLOCK_COLS, lb = mid + tx * BLOCK_COLS;
        const int dla = la - c0, dlb = lb - c0;
        /* Union of the overlap ranges of each block's shifts; terms outside one shift's overlap read zeros. */
        const int i_lo = max(0, -(dk0 + BLOCK_ROWS - 1)), i_hi = min(rows, rows - dk0);
        const int ja_lo = max(0, -(dla + BLOCK_COLS - 1)), ja_hi = min(cols, cols - dla);
        const int jb_lo = max(0, -(dlb + BLOCK_COLS - 1)), jb_hi = min(cols, cols - dlb);
        /* Runs of BLOCK_COLS columns of each block (B may lie past the output: none). */
        const int na = max(0, (ja_hi - ja_lo + BLOCK_COLS - 1) / BLOCK_COLS);
        const int nb = lb < scols ? max(0, (jb_hi - jb_lo + BLOCK_COLS - 1) / BLOCK_COLS) : 0;
        value_t acc_a[BLOCK_ROWS][BLOCK_COLS], acc_b[BLOCK_ROWS][BLOCK_COLS];
        for (int y = 0; y < BLOCK_ROWS; ++y)
            for (int s = 0; s < BLOCK_COLS; ++s) acc_a[y][s] = 0, acc_b[y][s] = 0;
        for (int i = i_lo; i < i_hi; ++i) {
            /* Each overlap row is summed on its own, then added (f32 error ~ eps*(sqrt(rows)+sqrt(cols))). */
            value_t part[BLOCK_ROWS][BLOCK_COLS], win[BLOCK_ROWS][BLOCK_COLS];
            int lrow[BLOCK_ROWS], rowok[BLOCK_ROWS];
            for (int y = 0; y < BLOCK_ROWS; ++y) {
                const int li = i + dk0 + y;
                rowok[y] = li >= 0 && li < rows;
                lrow[y] = (rowok[y] ? li : 0) * cols;
                for (int s = 0; s < BLOCK_COLS; ++s) part[y][s] = 0;
            }
            int dl = dla, jb = ja_lo, j_hi = ja_hi;
            for (int s = 0; s + 1 < BLOCK_COLS; ++s) {
                const int c = jb + dl + s;
                const int cok = c >= 0 && c < cols;
                for (int y = 0; y < BLOCK_ROWS; ++y) win[y][s] = rowok[y] && cok ? lm[lrow[y] + c] : (value_t)0;
            }
            const int rrow = i * cols;
            for (int q = 0; q < na + nb; ++q) {
                if (q == na) { /* block A done: keep its sums, start block B (once per row) */
                    for (int y = 0; y < BLOCK_ROWS; ++y)
                        for (int s = 0; s < BLOCK_COLS; ++s) acc_a[y][s] += part[y][s], part[y][s] = 0;
                    dl = dlb, jb = jb_lo, j_hi = jb_hi;
                    for (int s = 0; s + 1 < BLOCK_COLS; ++s) {
                        const int c = jb + dl + s;
                        const int cok = c >= 0 && c < cols;
                        for (int y = 0; y < BLOCK_ROWS; ++y)
                            win[y][s] = rowok[y] && cok ? lm[lrow[y] + c] : (value_t)0;
                    }
                }
                /* Circular window: at step u of a run shift s reads slot (u + s) % BLOCK_COLS and the new column
                 * goes to slot (u + BLOCK_COLS - 1) % BLOCK_COLS; with u and s unrolled the slots are constants
                 * (registers, no moves). The last run may pass j_hi: its right values read as zero. */
                for (int u = 0; u < BLOCK_COLS; ++u) {
                    const int j = jb + u;
                    const int c = j + dl + BLOCK_COLS - 1;
                    const int cok = c >= 0 && c < cols;
                    for (int y = 0; y < BLOCK_ROWS; ++y)
                        win[y][(u + BLOCK_COLS - 1) % BLOCK_COLS] = rowok[y] && cok ? lm[lrow[y] + c] : (value_t)0;
                    const value_t rv = j < j_hi ? rm[rrow + j] : (value_t)0;
                    for (int y = 0; y < BLOCK_ROWS; ++y)
                        for (int s = 0; s < BLOCK_COLS; ++s) part[y][s] += win[y][(u + s) % BLOCK_COLS] * rv;
                }
                jb += BLOCK_COLS;
            }
            for (int y = 0; y < BLOCK_ROWS; ++y)
                for (int s = 0; s < BLOCK_COLS; ++s) {
                    if (nb > 0)
                        acc_b[y][s] += part[y][s];
                    else
                        acc_a[y][s] += part[y][s];
                }
        }
        /* Block A stores only its region (its last shifts may reach into B's, which B writes). */
        for (int y = 0; y < BLOCK_ROWS; ++y) {
            const int k = ty * BLOCK_ROWS + y;
            for (int s = 0; s < BLOCK_COLS; ++s) {
                if (k < srows && la + s < mid) res[k * scols + la + s] = acc_a[y][s];
                if (k < srows && lb + s < scols) res[k * scols + lb + s] = acc_b[y][s];
            }
        }
    }
}
