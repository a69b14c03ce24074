/* shift-buffer: a team of TEAM work-items (one work-group) computes TEAM consecutive column shifts of one output row
 * of one pair. Per overlap row, the team walks the columns in chunks of TEAM: it holds TEAM right values and the
 * 2*TEAM left values the chunk's shifts touch (the seed's rotating warp buffer), then each item does TEAM
 * multiply-adds, item `lane` taking left value t + lane and right value t at step t.
 * Where the team's buffer lives, by XCORR_SHUFFLE (the host picks it from the device, lib/xcorr_shuffle.c):
 *   0  local memory with barriers (every device);
 *   1  registers + cl_khr_subgroup_shuffle (sub_group_shuffle), the team being one sub-group;
 *   2  registers + cl_intel_subgroups (intel_sub_group_shuffle), the team being one sub-group;
 *   3  registers + inline PTX shfl.sync.idx (NVIDIA's OpenCL, which has no sub-group extension), TEAM = 32 = one warp;
 *   4  registers + a shuffle emulated through local memory: never chosen by the plan; test_xcorr_shuffle runs it on
 *      devices without shuffles (PoCL in CI) to check the register form's data flow (lanes, halves, steps).
 * Loop bounds depend only on the group's (pair, row shift, column tile), so every item reaches every barrier and
 * every shuffle (the shuffle forms have no early exit either: only whole padding groups of a two-dimensional launch
 * leave, before any of them); only loads and the final store are guarded. */
#ifndef TEAM
#define TEAM 32
#endif
#ifndef XCORR_SHUFFLE
#define XCORR_SHUFFLE 0
#endif

/* ---- Portability layer: team_lane() and team_shuffle(v, src) = v of lane src, for value_t ------------------- */
#if XCORR_SHUFFLE == 1
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#define team_lane() ((int)get_sub_group_local_id())
#define team_shuffle(v, src) sub_group_shuffle((v), (uint)(src))
#elif XCORR_SHUFFLE == 2
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#define team_lane() ((int)get_sub_group_local_id())
#define team_shuffle(v, src) intel_sub_group_shuffle((v), (uint)(src))
#elif XCORR_SHUFFLE == 3
/* shfl.sync.idx with c = 0x1f (no segments: the whole warp) and member mask 0xffffffff: all 32 lanes of the warp
 * must execute it, which holds because a work-group is exactly one warp (TEAM = 32, checked by the host) and the
 * call sites are outside any lane-dependent branch. */
inline uint xcorr_shfl(uint v, int src) {
    uint r;
    asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(src));
    return r;
}
inline int xcorr_laneid(void) {
    uint id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return (int)id;
}
#if VALUE_IS_DOUBLE
inline double xcorr_team_shuffle(double v, int src) {
    const uint2 h = as_uint2(v);
    return as_double((uint2)(xcorr_shfl(h.x, src), xcorr_shfl(h.y, src)));
}
#else
inline float xcorr_team_shuffle(float v, int src) { return as_float(xcorr_shfl(as_uint(v), src)); }
#endif
#define team_lane() xcorr_laneid()
#define team_shuffle(v, src) xcorr_team_shuffle((v), (src))
#elif XCORR_SHUFFLE == 4
/* Called by every item of the group the same number of times (uniform loops), so the barriers are safe. */
inline value_t xcorr_emulated_shuffle(local value_t *xch, value_t v, int src) {
    barrier(CLK_LOCAL_MEM_FENCE);
    xch[get_local_id(0)] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return xch[src];
}
#define team_lane() ((int)get_local_id(0))
#define team_shuffle(v, src) xcorr_emulated_shuffle(xch, (v), (src))
#endif

/* The Intel compiler can be told the sub-group width (cl_intel_required_subgroup_size); elsewhere the host checks
 * the width the built kernel gets. */
#if XCORR_SHUFFLE == 2 && XCORR_INTEL_REQD_SG
#define XCORR_TEAM_ATTR __attribute__((reqd_work_group_size(TEAM, 1, 1), intel_reqd_sub_group_size(TEAM)))
#else
#define XCORR_TEAM_ATTR __attribute__((reqd_work_group_size(TEAM, 1, 1)))
#endif

kernel XCORR_TEAM_ATTR void xcorr_shift(XCORR_ARGS) {
#if XCORR_SHUFFLE
#if XCORR_SHUFFLE == 4
    local value_t xch[TEAM];
#endif
    const int lane = team_lane();
#else
    local value_t lbuf[2 * TEAM];
    local value_t rbuf[TEAM];
    const int lane = (int)get_local_id(0);
#endif
    const int tiles_x = (scols + TEAM - 1) / TEAM;
    const ulong grp = xcorr_group();
    if (grp >= (ulong)tiles_x * (ulong)srows * (ulong)n_out) return; /* a padding group: all its items leave */
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
            const int c = jc + lane, c1 = jc + dl0 + lane, c2 = c1 + TEAM;
            const value_t r = c < j_hi ? b[brow + c] : (value_t)0;
            const value_t l0 = c1 >= 0 && c1 < cols ? a[arow + c1] : (value_t)0;
            const value_t l1 = c2 >= 0 && c2 < cols ? a[arow + c2] : (value_t)0;
#if XCORR_SHUFFLE
            /* Left value t + lane of the 2*TEAM buffer sits in lane (t + lane) mod TEAM, first half (l0) or second
             * (l1): every lane fetches both halves from that lane and keeps the one it needs (3 shuffles per FMA, as
             * in the seed). All lanes execute all three shuffles. */
            for (int t = 0; t < TEAM; ++t) {
                const int src = lane + t < TEAM ? lane + t : lane + t - TEAM;
                const value_t x0 = team_shuffle(l0, src);
                const value_t x1 = team_shuffle(l1, src);
                const value_t y = team_shuffle(r, t);
                row += (lane + t < TEAM ? x0 : x1) * y;
            }
#else
            rbuf[lane] = r;
            lbuf[lane] = l0;
            lbuf[lane + TEAM] = l1;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int t = 0; t < TEAM; ++t) row += lbuf[t + lane] * rbuf[t];
            barrier(CLK_LOCAL_MEM_FENCE);
#endif
        }
        sum += row;
    }
    const int l = tx * TEAM + lane;
    if (l < scols) out[out_off + (ulong)o * (ulong)(srows * scols) + (ulong)(k * scols + l)] = sum;
}
