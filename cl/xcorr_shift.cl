/* shift-buffer: a team of TEAM work-items (one work-group) computes TEAM consecutive column shifts of one output row
 * of one pair. Per overlap row, the team walks the columns in chunks of TEAM: it stages TEAM right values and the
 * 2*TEAM left values the chunk's shifts touch in local memory (the seed's rotating warp buffer, with local memory
 * where sub-group shuffles are missing, e.g. NVIDIA OpenCL), then each item does TEAM multiply-adds.
 * Loop bounds depend only on the group's row shift, so every item reaches every barrier. */
#ifndef TEAM
#define TEAM 32
#endif

kernel __attribute__((reqd_work_group_size(TEAM, 1, 1))) void xcorr_shift(XCORR_ARGS) {
    local value_t lbuf[2 * TEAM];
    local value_t rbuf[TEAM];
    const int lane = (int)get_local_id(0);
    const int tiles_x = (scols + TEAM - 1) / TEAM;
    const ulong grp = get_group_id(0);
    const int tx = (int)(grp % (ulong)tiles_x);
    const ulong rest = grp / (ulong)tiles_x;
    const int k = (int)(rest % (ulong)srows);
    const int o = (int)(rest / (ulong)srows);
    global const value_t *a =
        left + left_off + (ulong)xcorr_left_of(pattern, o, n_left, n_right) * (ulong)(rows * cols);
    global const value_t *b = right + right_off + (ulong)xcorr_right_of(pattern, o, n_right) * (ulong)(rows * cols);
    const int dk = k - (srows - 1) / 2, dl0 = tx * TEAM - (scols - 1) / 2;
    const int i0 = max(0, -dk), i1 = min(rows, rows - dk);
    const int j_lo = max(0, -(dl0 + TEAM - 1)), j_hi = min(cols, cols - dl0);
    value_t sum = 0;
    for (int i = i0; i < i1; ++i) {
        const int arow = (i + dk) * cols, brow = i * cols;
        value_t row = 0;
        for (int jc = j_lo; jc < j_hi; jc += TEAM) {
            const int c = jc + lane;
            rbuf[lane] = c < j_hi ? b[brow + c] : (value_t)0;
            const int c1 = jc + dl0 + lane, c2 = c1 + TEAM;
            lbuf[lane] = c1 >= 0 && c1 < cols ? a[arow + c1] : (value_t)0;
            lbuf[lane + TEAM] = c2 >= 0 && c2 < cols ? a[arow + c2] : (value_t)0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int t = 0; t < TEAM; ++t) row += lbuf[t + lane] * rbuf[t];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        sum += row;
    }
    const int l = tx * TEAM + lane;
    if (l < scols) out[out_off + (ulong)o * (ulong)(srows * scols) + (ulong)(k * scols + l)] = sum;
}
