/* local: one work-group per output matrix. The group first copies its left and right matrix into local memory
 * (consecutive items copy consecutive elements: coalesced), then each item computes blocks of BLOCK_ROWS x BLOCK_COLS
 * consecutive shifts, reading only local memory: per overlap element one right value and BLOCK_ROWS new left values
 * (a sliding window of BLOCK_COLS left values per block row in registers, as in xcorr_tile) for BLOCK_ROWS x
 * BLOCK_COLS multiply-adds. Blocks are numbered column-block fastest, so neighbouring items take neighbouring
 * column shifts of one block row. The host sizes the two local buffers (rows x cols each) and refuses matrices that
 * do not fit. The only barrier follows the copy loops, which every item leaves (no early return before it). */
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
    const int o = (int)get_group_id(0); /* the host launches exactly n_out groups */
    const int n = rows * cols;
    global const value_t *a = left + left_off + (ulong)xcorr_left_of(pattern, o, n_left, n_right) * (ulong)n;
    global const value_t *b = right + right_off + (ulong)xcorr_right_of(pattern, o, n_right) * (ulong)n;
    for (int e = lid; e < n; e += LOCAL_WG) {
        lm[e] = a[e];
        rm[e] = b[e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int tiles_x = (scols + BLOCK_COLS - 1) / BLOCK_COLS, tiles_y = (srows + BLOCK_ROWS - 1) / BLOCK_ROWS;
    global value_t *res = out + out_off + (ulong)o * (ulong)srows * (ulong)scols;
    for (int t = lid; t < tiles_x * tiles_y; t += LOCAL_WG) {
        const int ty = t / tiles_x, tx = t - (t / tiles_x) * tiles_x;
        const int dk0 = ty * BLOCK_ROWS - (srows - 1) / 2, dl0 = tx * BLOCK_COLS - (scols - 1) / 2;
        /* Union of the overlap ranges of the block's shifts; terms outside one shift's overlap read zeros. */
        const int i_lo = max(0, -(dk0 + BLOCK_ROWS - 1)), i_hi = min(rows, rows - dk0);
        const int j_lo = max(0, -(dl0 + BLOCK_COLS - 1)), j_hi = min(cols, cols - dl0);
        value_t acc[BLOCK_ROWS][BLOCK_COLS];
        for (int y = 0; y < BLOCK_ROWS; ++y)
            for (int s = 0; s < BLOCK_COLS; ++s) acc[y][s] = 0;
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
            for (int s = 0; s + 1 < BLOCK_COLS; ++s) {
                const int c = j_lo + dl0 + s;
                const int cok = c >= 0 && c < cols;
                for (int y = 0; y < BLOCK_ROWS; ++y) win[y][s] = rowok[y] && cok ? lm[lrow[y] + c] : (value_t)0;
            }
            const int rrow = i * cols;
            /* Circular window: at step u of a run of BLOCK_COLS columns shift s reads slot (u + s) % BLOCK_COLS and
             * the new column goes to slot (u + BLOCK_COLS - 1) % BLOCK_COLS; with u and s unrolled the slots are
             * constants (registers, no moves). The last run may pass j_hi: its right values read as zero. */
            for (int jb = j_lo; jb < j_hi; jb += BLOCK_COLS) {
                for (int u = 0; u < BLOCK_COLS; ++u) {
                    const int j = jb + u;
                    const int c = j + dl0 + BLOCK_COLS - 1;
                    const int cok = c >= 0 && c < cols;
                    for (int y = 0; y < BLOCK_ROWS; ++y)
                        win[y][(u + BLOCK_COLS - 1) % BLOCK_COLS] = rowok[y] && cok ? lm[lrow[y] + c] : (value_t)0;
                    const value_t rv = j < j_hi ? rm[rrow + j] : (value_t)0;
                    for (int y = 0; y < BLOCK_ROWS; ++y)
                        for (int s = 0; s < BLOCK_COLS; ++s) part[y][s] += win[y][(u + s) % BLOCK_COLS] * rv;
                }
            }
            for (int y = 0; y < BLOCK_ROWS; ++y)
                for (int s = 0; s < BLOCK_COLS; ++s) acc[y][s] += part[y][s];
        }
        for (int y = 0; y < BLOCK_ROWS; ++y) {
            const int k = ty * BLOCK_ROWS + y;
            for (int s = 0; s < BLOCK_COLS; ++s) {
                const int l = tx * BLOCK_COLS + s;
                if (k < srows && l < scols) res[k * scols + l] = acc[y][s];
            }
        }
    }
}
