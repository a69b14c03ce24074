/* LiFE sparse-Tucker products on the device.
 *   DSC  y[v,:] = sum_{k: v_k = v} phi_k w[f_k] D[a_k,:]
 *   WC   w[f]   = sum_{k: f_k = f} phi_k <D[a_k,:], y[v_k,:]>
 * Build options: VALUE_T (float|double), VALUE_IS_DOUBLE, HAVE_ATOM64 (64-bit global cmpxchg), NTHETA (directions),
 * TEAM / UNROLL (DSC voxel teams, dsc=voxel4's of 4 directions a lane; UNROLL also WC fibre runs, pairs and the
 * staged kernels' chunks), DSC_UNROLL (dsc=pairs's loop, when not UNROLL), WC_TEAM (WC teams, a power of two), LDD
 * (dictionary row stride, a multiple of 4), DICT_HALF (D stored as half values).
 * Offsets arrive premultiplied:
 * atom_off = a * LDD (dictionary rows are zero-padded to LDD), voxel_off = v * NTHETA. Work-group sizes are runtime
 * values (a multiple of the team width), so one program serves every "runs per work-group" choice. */
#ifdef VALUE_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#ifdef HAVE_ATOM64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#endif

typedef VALUE_T real;
#define LIFE_PASTE(a, b) a##b
#define LIFE_XPASTE(a, b) LIFE_PASTE(a, b)
typedef LIFE_XPASTE(VALUE_T, 4) real4;

/* The dictionary's storage (plan parameter dict): values of the plan's precision, or with DICT_HALF IEEE half values
 * read through vload_half / vload_half4, which OpenCL C 1.2 has without cl_khr_fp16 (half as storage only): every
 * product and sum stays in `real`, float. DICT_AT(d, i) is D's value at offset i, DICT_AT4(d, i) the 4 values at
 * offset 4 i. */
#ifdef DICT_HALF
#ifdef VALUE_IS_DOUBLE
#error "DICT_HALF is for float plans"
#endif
#define DICT_T half
#define DICT_AT(d, i) vload_half((i), (d))
#define DICT_AT4(d, i) vload_half4((i), (d))
#else
#define DICT_T real
#define DICT_AT(d, i) ((d)[i])
#define DICT_AT4(d, i) vload4((i), (d))
#endif

#define DSC_NPL ((NTHETA + TEAM - 1) / TEAM)
#define WC_NPL ((NTHETA + WC_TEAM - 1) / WC_TEAM)

/* theta-split (dsc=voxel, dsc=pairs, dsc=staged, wc=fiber and wc=staged): with THETA_PARTS > 1 the host launches the
 * kernel once per part, `pass` = 0..THETA_PARTS-1, and the pass covers the directions [pass * PART_LEN, min((pass +
 * 1) * PART_LEN, NTHETA)), so the D and y rows a pass touches are 1/THETA_PARTS of the whole and fit the L2 where the
 * whole does not. With THETA_PARTS 1 the range is the compile-time [0, NTHETA): the same code and bits as without the
 * split. */
#ifndef THETA_PARTS
#define THETA_PARTS 1
#endif
#if THETA_PARTS > 1
#define PASS_T0 (pass * PART_LEN)
#define PASS_T1 min(PASS_T0 + PART_LEN, NTHETA)
#define DSC_PNPL ((PART_LEN + TEAM - 1) / TEAM)
#define WC_PNPL ((PART_LEN + WC_TEAM - 1) / WC_TEAM)
#else
#define PASS_T0 0
#define PASS_T1 NTHETA
#define DSC_PNPL DSC_NPL
#define WC_PNPL WC_NPL
#endif

/* Processing orders: with VOXEL_KEYED (FIBER_KEYED) the voxel (fibre) runs come in a locality order and run r
 * belongs to voxel run_voxel[r] (fibre run_fiber[r]); without, run r is voxel (fibre) r and the key array is unused
 * (NULL). Each run's own coefficients and their summation order are the same either way. */
#ifdef VOXEL_KEYED
#define VOXEL_OF(r) ((long)run_voxel[r])
#else
#define VOXEL_OF(r) (r)
#endif
#ifdef FIBER_KEYED
#define FIBER_OF(r) ((long)run_fiber[r])
#else
#define FIBER_OF(r) (r)
#endif

/* Float atomic add through compare-and-swap on the bit pattern (OpenCL 1.2 has no float atomics). The plain load of
 * *p is only the first guess of the old value: the exchange checks it, and a stale or torn guess costs one retry, so
 * its race with other work-items' exchanges (oclgrind reports it; scripts/oclgrind-check.sh skips exactly that
 * report) cannot change the result. Guessing 0 instead, with every access atomic, is much slower (docs/life.md). */
#if defined(VALUE_IS_DOUBLE)
#if defined(HAVE_ATOM64)
#define LIFE_HAVE_ATOMIC_ADD 1
inline void life_atomic_add(volatile __global real *p, real v) {
    ulong seen = as_ulong(*p);
    for (;;) {
        ulong want = as_ulong(as_double(seen) + v);
        ulong prev = atom_cmpxchg((volatile __global ulong *)p, seen, want);
        if (prev == seen) break;
        seen = prev;
    }
}
#endif
#else
#define LIFE_HAVE_ATOMIC_ADD 1
inline void life_atomic_add(volatile __global real *p, real v) {
    uint seen = as_uint(*p);
    for (;;) {
        uint want = as_uint(as_float(seen) + v);
        uint prev = atomic_cmpxchg((volatile __global uint *)p, seen, want);
        if (prev == seen) break;
        seen = prev;
    }
}
#endif

#ifdef LIFE_HAVE_ATOMIC_ADD
/* Baseline DSC: one work-item per (coefficient, direction), consecutive work-items over theta; y zeroed before. */
__kernel void life_dsc_atomics(long n_coeffs, __global const int *restrict atom_off,
                               __global const int *restrict voxel_off, __global const int *restrict fiber,
                               __global const real *restrict phi, __global const DICT_T *restrict dict,
                               __global const real *restrict w, __global real *y) {
    const long total = n_coeffs * NTHETA;
    for (long i = get_global_id(0); i < total; i += get_global_size(0)) {
        const long k = i / NTHETA;
        const int t = (int)(i - k * NTHETA);
        const real c = phi[k] * w[fiber[k]];
        if (c != (real)0) life_atomic_add(&y[voxel_off[k] + t], c * DICT_AT(dict, atom_off[k] + t));
    }
}

/* Baseline WC: one work-item per coefficient, its dot product over theta, one atomic add; w zeroed before. */
__kernel void life_wc_atomics(long n_coeffs, __global const int *restrict atom_off,
                              __global const int *restrict voxel_off, __global const int *restrict fiber,
                              __global const real *restrict phi, __global const DICT_T *restrict dict,
                              __global const real *restrict y, __global real *w) {
    for (long k = get_global_id(0); k < n_coeffs; k += get_global_size(0)) {
        const int ao = atom_off[k], vo = voxel_off[k];
        real s = 0;
        for (int t = 0; t < NTHETA; ++t) s += DICT_AT(dict, ao + t) * y[vo + t];
        life_atomic_add(&w[fiber[k]], phi[k] * s);
    }
}

/* WC on atom-sorted coefficients: a team of WC_TEAM lanes per coefficient (lanes over theta, so the loads of a D row
 * and a y row are coalesced and consecutive coefficients reuse the D row from cache), the team's partial sums reduced
 * in local memory with barriers (no sub-group shuffles), one atomic add per coefficient; w zeroed before. */
__kernel void life_wc_atom(long n_coeffs, __global const int *restrict atom_off, __global const int *restrict voxel_off,
                           __global const int *restrict fiber, __global const real *restrict phi,
                           __global const DICT_T *restrict dict, __global const real *restrict y, __global real *w,
                           __local real *part) {
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int runs = get_local_size(0) / WC_TEAM;
    /* The loop bound depends on the group only, so every work-item reaches every barrier. */
    for (long base = (long)get_group_id(0) * runs; base < n_coeffs; base += (long)get_num_groups(0) * runs) {
        const long k = base + team;
        real s = 0;
        if (k < n_coeffs) {
            const int ao = atom_off[k], vo = voxel_off[k];
            for (int i = 0; i < WC_NPL; ++i) {
                const int t = lane + i * WC_TEAM;
                if (t < NTHETA) s += DICT_AT(dict, ao + t) * y[vo + t];
            }
        }
        part[lid] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = WC_TEAM / 2; off > 0; off >>= 1) {
            if (lane < off) part[lid] += part[lid + off];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0 && k < n_coeffs) life_atomic_add(&w[fiber[k]], phi[k] * part[lid]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
/* WC on voxel-sorted coefficients (the DSC copy): a work-group per voxel stages the voxel's y row in local memory
 * once (so y is read from DRAM once instead of once per coefficient), then each work-item takes one coefficient of
 * the run and forms its dot product with 4-wide loads (D rows are zero-padded to LDD, the local row to a multiple
 * of 4), one atomic add per coefficient; w zeroed before. The voxel loop bound depends on the group only, so every
 * work-item reaches both barriers. */
#define NT4 ((NTHETA + 3) / 4)
__kernel void life_wc_voxel(int n_voxels, __global const long *restrict run_ptr, __global const int *restrict atom_off,
                            __global const int *restrict fiber, __global const real *restrict phi,
                            __global const DICT_T *restrict dict, __global const real *restrict y, __global real *w,
                            __global const int *restrict run_voxel) {
    __local real yrow[NT4 * 4];
    const int lid = get_local_id(0), size = get_local_size(0);
    for (long r = get_group_id(0); r < n_voxels; r += get_num_groups(0)) {
        const long v = VOXEL_OF(r);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int t = lid; t < NT4 * 4; t += size) yrow[t] = t < NTHETA ? y[v * NTHETA + t] : (real)0;
        barrier(CLK_LOCAL_MEM_FENCE);
        const long end = run_ptr[r + 1];
        for (long j = run_ptr[r] + lid; j < end; j += size) {
            const int a4 = atom_off[j] / 4; /* the row in 4-value units (LDD is a multiple of 4) */
            real4 s4 = (real4)(0);
            for (int i = 0; i < NT4; ++i) s4 += DICT_AT4(dict, a4 + i) * vload4(i, yrow);
            life_atomic_add(&w[fiber[j]], phi[j] * (s4.x + s4.y + s4.z + s4.w));
        }
    }
}
#endif

/* dsc=pairs's own unroll (plan parameter dsc_unroll; 0 or absent: UNROLL) */
#if defined(DSC_UNROLL) && DSC_UNROLL > 0
#define DSC_RUN_UNROLL DSC_UNROLL
#else
#define DSC_RUN_UNROLL UNROLL
#endif

/* DSC on voxel-sorted coefficients: a team of TEAM lanes per voxel run, lanes over theta; each lane owns the theta
 * entries lane, lane + TEAM, ... of the voxel's y row and keeps them in registers (no other lane touches them, so
 * no local memory or atomics are needed), then writes the row once. Coefficients with phi * w == 0 skip the D row
 * (the branch is uniform over the team). summed (a constant at each call): the run's items are dsc=pairs's (voxel,
 * atom) pairs, phi holds their weights (life_pair_weights), fiber and w are not read. */
inline void life_dsc_run(int n_voxels, __global const long *restrict run_ptr, __global const int *restrict atom_off,
                         __global const int *restrict fiber, __global const real *restrict phi,
                         __global const DICT_T *restrict dict, __global const real *restrict w,
                         __global real *restrict y, int pass, __global const int *restrict run_voxel,
                         const int summed, __global const int *restrict stamp, int it) {
    const int t0 = PASS_T0, t1 = PASS_T1;
    const int lid = get_local_id(0), lane = lid % TEAM;
    const int runs = get_local_size(0) / TEAM;
    const long r = (long)get_group_id(0) * runs + lid / TEAM;
    if (r >= n_voxels) return; /* no barriers in this kernel */
    const long v = VOXEL_OF(r);
    if (stamp && stamp[v] != it) return; /* a stamped pass: only the voxels stamped `it`, the others keep y */
    real acc[DSC_PNPL];
    for (int i = 0; i < DSC_PNPL; ++i) acc[i] = 0;
    long j = run_ptr[r];
    const long end = run_ptr[r + 1];
    for (; j + DSC_RUN_UNROLL <= end; j += DSC_RUN_UNROLL) {
        int ao[DSC_RUN_UNROLL];
        real c[DSC_RUN_UNROLL];
        for (int u = 0; u < DSC_RUN_UNROLL; ++u) {
            ao[u] = atom_off[j + u];
            c[u] = summed ? phi[j + u] : phi[j + u] * w[fiber[j + u]];
        }
        for (int u = 0; u < DSC_RUN_UNROLL; ++u) {
            if (c[u] == (real)0) continue;
            for (int i = 0; i < DSC_PNPL; ++i) {
                const int t = t0 + lane + i * TEAM;
                if (t < t1) acc[i] += c[u] * DICT_AT(dict, ao[u] + t);
            }
        }
    }
    for (; j < end; ++j) {
        const real c = summed ? phi[j] : phi[j] * w[fiber[j]];
        if (c == (real)0) continue;
        const int ao = atom_off[j];
        for (int i = 0; i < DSC_PNPL; ++i) {
            const int t = t0 + lane + i * TEAM;
            if (t < t1) acc[i] += c * DICT_AT(dict, ao + t);
        }
    }
    for (int i = 0; i < DSC_PNPL; ++i) {
        const int t = t0 + lane + i * TEAM;
        if (t < t1) y[v * NTHETA + t] = acc[i];
    }
}

__kernel void life_dsc_voxel(int n_voxels, __global const long *restrict run_ptr, __global const int *restrict atom_off,
                             __global const int *restrict fiber, __global const real *restrict phi,
                             __global const DICT_T *restrict dict, __global const real *restrict w,
                             __global real *restrict y, int pass, __global const int *restrict run_voxel) {
    life_dsc_run(n_voxels, run_ptr, atom_off, fiber, phi, dict, w, y, pass, run_voxel, 0, 0, 0);
}

/* dsc=voxel4: dsc=voxel's teams and order, each lane reading 4 consecutive directions of a D row with one vector
 * load (rows are padded to LDD, a multiple of 4, with zeros), so a coefficient costs TEAM lanes a quarter of the
 * load instructions and loop steps of dsc=voxel at a quarter of the team. A pass of a theta split starts at its part
 * rounded down to 4: the lanes also sum the few directions next to the part, and write only the part's. Per output
 * value the same products in the same order as dsc=voxel. */
#define PASS_CHUNK0 (PASS_T0 / 4)
#if THETA_PARTS > 1
#define DSC_NPL4_OF(team) (((PART_LEN + 3) / 4 + 1 + (team)-1) / (team))
#else
#define DSC_NPL4_OF(team) (((NTHETA + 3) / 4 + (team)-1) / (team))
#endif
#define DSC_NPL4 DSC_NPL4_OF(TEAM)
#ifdef DICT_HALF
#define DICT_ROW4(d, i) vload_half4((i), (d))
#else
#define DICT_ROW4(d, i) (((__global const real4 *)(d))[i]) /* the buffer is aligned; LDD keeps rows at 16 bytes */
#endif
__kernel void life_dsc_voxel4(int n_voxels, __global const long *restrict run_ptr,
                              __global const int *restrict atom_off, __global const int *restrict fiber,
                              __global const real *restrict phi, __global const DICT_T *restrict dict,
                              __global const real *restrict w, __global real *restrict y, int pass,
                              __global const int *restrict run_voxel) {
    const int t0 = PASS_T0, t1 = PASS_T1;
    const int c1 = (t1 + 3) / 4; /* chunks [PASS_CHUNK0, c1) cover the pass's directions */
    const int lid = get_local_id(0), lane = lid % TEAM;
    const int runs = get_local_size(0) / TEAM;
    const long r = (long)get_group_id(0) * runs + lid / TEAM;
    if (r >= n_voxels) return; /* no barriers in this kernel */
    const long v = VOXEL_OF(r);
    real4 acc[DSC_NPL4];
    for (int i = 0; i < DSC_NPL4; ++i) acc[i] = (real4)(0);
    long j = run_ptr[r];
    const long end = run_ptr[r + 1];
    for (; j + UNROLL <= end; j += UNROLL) {
        int ao[UNROLL];
        real c[UNROLL];
        for (int u = 0; u < UNROLL; ++u) {
            ao[u] = atom_off[j + u] >> 2; /* a multiple of LDD, itself of 4 */
            c[u] = phi[j + u] * w[fiber[j + u]];
        }
        for (int u = 0; u < UNROLL; ++u) {
            if (c[u] == (real)0) continue;
            for (int i = 0; i < DSC_NPL4; ++i) {
                const int ch = PASS_CHUNK0 + lane + i * TEAM;
                if (ch < c1) acc[i] += c[u] * DICT_ROW4(dict, ao[u] + ch);
            }
        }
    }
    for (; j < end; ++j) {
        const real c = phi[j] * w[fiber[j]];
        if (c == (real)0) continue;
        const int ao = atom_off[j] >> 2;
        for (int i = 0; i < DSC_NPL4; ++i) {
            const int ch = PASS_CHUNK0 + lane + i * TEAM;
            if (ch < c1) acc[i] += c * DICT_ROW4(dict, ao + ch);
        }
    }
    __global real *yv = y + v * NTHETA;
    for (int i = 0; i < DSC_NPL4; ++i) {
        const int t = 4 * (PASS_CHUNK0 + lane + i * TEAM);
        if (t >= t0 && t < t1) yv[t] = acc[i].s0;
        if (t + 1 >= t0 && t + 1 < t1) yv[t + 1] = acc[i].s1;
        if (t + 2 >= t0 && t + 2 < t1) yv[t + 2] = acc[i].s2;
        if (t + 3 >= t0 && t + 3 < t1) yv[t + 3] = acc[i].s3;
    }
}

/* The end of a fibre run's team (wc=fiber, wc=fiber4, wc=staged): the lanes' sums reduced in local memory in a fixed
 * order, then one store of w[f] by lane 0 when the run is live; with a theta split pass 0 stores and later passes
 * add their partial dot products in pass order (deterministic, no atomics). Every work-item of the group calls it
 * (barriers). */
inline void life_fibre_team_store(__local real *part, int lid, int lane, real s, int live, long r,
                                  __global real *restrict w, int pass, __global const int *restrict run_fiber) {
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = WC_TEAM / 2; off > 0; off >>= 1) {
        if (lane < off) part[lid] += part[lid + off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && live) {
        const long f = FIBER_OF(r);
#if THETA_PARTS > 1
        w[f] = pass == 0 ? part[lid] : w[f] + part[lid];
#else
        w[f] = part[lid];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Deterministic WC on fibre-sorted coefficients: a team of WC_TEAM lanes per fibre run accumulates
 * sum_k phi_k D[a_k,t] y[v_k,t] per lane, then the team reduces in local memory in a fixed order and writes w[f]
 * once: no atomics, the same bits every run. */
__kernel void life_wc_fiber(int n_fibers, __global const long *restrict run_ptr, __global const int *restrict atom_off,
                            __global const int *restrict voxel_off, __global const real *restrict phi,
                            __global const DICT_T *restrict dict, __global const real *restrict y,
                            __global real *restrict w, __local real *part, int pass,
                            __global const int *restrict run_fiber) {
    const int t0 = PASS_T0, t1 = PASS_T1;
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int runs = get_local_size(0) / WC_TEAM;
    for (long base = (long)get_group_id(0) * runs; base < n_fibers; base += (long)get_num_groups(0) * runs) {
        const long r = base + team; /* the run; its fibre is FIBER_OF(r) */
        real s = 0;
        if (r < n_fibers) {
            const long end = run_ptr[r + 1];
            long j = run_ptr[r];
            /* UNROLL coefficients at a time: their indices first, then all their row loads in flight together. */
            for (; j + UNROLL <= end; j += UNROLL) {
                int ao[UNROLL], vo[UNROLL];
                real ph[UNROLL];
                for (int u = 0; u < UNROLL; ++u) {
                    ao[u] = atom_off[j + u];
                    vo[u] = voxel_off[j + u];
                    ph[u] = phi[j + u];
                }
                for (int u = 0; u < UNROLL; ++u) {
                    real d = 0;
                    for (int i = 0; i < WC_PNPL; ++i) {
                        const int t = t0 + lane + i * WC_TEAM;
                        if (t < t1) d += DICT_AT(dict, ao[u] + t) * y[vo[u] + t];
                    }
                    s += ph[u] * d;
                }
            }
            for (; j < end; ++j) {
                const int ao = atom_off[j], vo = voxel_off[j];
                real d = 0;
                for (int i = 0; i < WC_PNPL; ++i) {
                    const int t = t0 + lane + i * WC_TEAM;
                    if (t < t1) d += DICT_AT(dict, ao + t) * y[vo + t];
                }
                s += phi[j] * d;
            }
        }
        life_fibre_team_store(part, lid, lane, s, r < n_fibers, r, w, pass, run_fiber);
    }
}

/* wc=fiber4: wc=fiber's teams, order and reduction, each lane reading 4 consecutive directions of the D row and of
 * the y row with one vector load each (D rows are padded to LDD with zeros; y rows are read as vectors where n_theta
 * is a multiple of 4, else with vload4), 4 accumulators a lane summed before the team's reduction. A vector that
 * reaches outside the pass's directions (a theta split whose part does not start or end on 4, or y's row end) is
 * read and masked per direction. Deterministic (fixed orders), but not wc=fiber's bits: the per-lane sums group
 * the directions differently. */
#define WC_NPL4 DSC_NPL4_OF(WC_TEAM)
#if NTHETA % 4 == 0
#define Y_ROW4(y, vo, ch) (((__global const real4 *)(y))[((vo) >> 2) + (ch)]) /* vo: v NTHETA, a multiple of 4 */
#else
#define Y_ROW4(y, vo, ch) vload4(0, (y) + (vo) + 4 * (ch))
#endif
/* The directions of chunk ch inside [t0, t1): the product of the D and y vectors, the others 0 (y is then read per
 * direction, so nothing past its row or the buffer is touched). */
inline real4 life_chunk_product(__global const DICT_T *restrict dict, __global const real *restrict y, int a4, int vo,
                                int ch, int t0, int t1) {
    const int t = 4 * ch;
    const real4 d = DICT_ROW4(dict, a4 + ch);
    if (t >= t0 && t + 4 <= t1) return d * Y_ROW4(y, vo, ch);
    real4 yv = (real4)(0);
    if (t >= t0 && t < t1) yv.s0 = y[vo + t];
    if (t + 1 >= t0 && t + 1 < t1) yv.s1 = y[vo + t + 1];
    if (t + 2 >= t0 && t + 2 < t1) yv.s2 = y[vo + t + 2];
    if (t + 3 >= t0 && t + 3 < t1) yv.s3 = y[vo + t + 3];
    return d * yv;
}
__kernel void life_wc_fiber4(int n_fibers, __global const long *restrict run_ptr,
                             __global const int *restrict atom_off, __global const int *restrict voxel_off,
                             __global const real *restrict phi, __global const DICT_T *restrict dict,
                             __global const real *restrict y, __global real *restrict w, __local real *part, int pass,
                             __global const int *restrict run_fiber) {
    const int t0 = PASS_T0, t1 = PASS_T1;
    const int c1 = (t1 + 3) / 4;
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int runs = get_local_size(0) / WC_TEAM;
    for (long base = (long)get_group_id(0) * runs; base < n_fibers; base += (long)get_num_groups(0) * runs) {
        const long r = base + team; /* the run; its fibre is FIBER_OF(r) */
        real4 s4 = (real4)(0);
        if (r < n_fibers) {
            const long end = run_ptr[r + 1];
            long j = run_ptr[r];
            for (; j + UNROLL <= end; j += UNROLL) {
                int a4[UNROLL], vo[UNROLL];
                real ph[UNROLL];
                for (int u = 0; u < UNROLL; ++u) {
                    a4[u] = atom_off[j + u] >> 2;
                    vo[u] = voxel_off[j + u];
                    ph[u] = phi[j + u];
                }
                for (int u = 0; u < UNROLL; ++u) {
                    real4 d4 = (real4)(0);
                    for (int i = 0; i < WC_NPL4; ++i) {
                        const int ch = PASS_CHUNK0 + lane + i * WC_TEAM;
                        if (ch < c1) d4 += life_chunk_product(dict, y, a4[u], vo[u], ch, t0, t1);
                    }
                    s4 += ph[u] * d4;
                }
            }
            for (; j < end; ++j) {
                const int a4 = atom_off[j] >> 2, vo = voxel_off[j];
                real4 d4 = (real4)(0);
                for (int i = 0; i < WC_NPL4; ++i) {
                    const int ch = PASS_CHUNK0 + lane + i * WC_TEAM;
                    if (ch < c1) d4 += life_chunk_product(dict, y, a4, vo, ch, t0, t1);
                }
                s4 += phi[j] * d4;
            }
        }
        const real s = (s4.s0 + s4.s1) + (s4.s2 + s4.s3);
        life_fibre_team_store(part, lid, lane, s, r < n_fibers, r, w, pass, run_fiber);
    }
}

/* The largest chunk count of the group's runs (a team's run of `len` coefficients takes ceil(len / width) chunks), so
 * that the staged kernels' chunk loops have a group-uniform bound and every work-item reaches every barrier. `s`
 * holds at least get_local_size(0) / width ints; it is free again when this returns. */
inline int life_group_chunks(__local int *s, long len, int width) {
    const int lid = get_local_id(0), teams = get_local_size(0) / width;
    if (lid % width == 0) s[lid / width] = (int)((len + width - 1) / width);
    barrier(CLK_LOCAL_MEM_FENCE);
    int chunks = 0;
    for (int i = 0; i < teams; ++i) chunks = max(chunks, s[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return chunks;
}

/* Staged DSC (dsc=staged): dsc=voxel's teams and register accumulators, but a team walks its run in chunks of TEAM
 * coefficients: lane k gathers coefficient k of the chunk (atom offset, phi, fibre, then w[fibre]: TEAM dependent
 * chains in flight at once, coalesced) into local memory, and after a barrier every lane reads the chunk's (offset,
 * phi * w) back as broadcasts. A lane so issues two local loads per coefficient before its D loads instead of four
 * global ones. Summation order and zero skip are dsc=voxel's. s_ao and s_c hold get_local_size(0) values. */
__kernel void life_dsc_staged(int n_voxels, __global const long *restrict run_ptr, __global const int *restrict atom_off,
                              __global const int *restrict fiber, __global const real *restrict phi,
                              __global const DICT_T *restrict dict, __global const real *restrict w,
                              __global real *restrict y, int pass, __global const int *restrict run_voxel,
                              __local int *s_ao, __local real *s_c) {
    const int t0 = PASS_T0, t1 = PASS_T1;
    const int lid = get_local_id(0), lane = lid % TEAM, team = lid / TEAM;
    const long r = (long)get_group_id(0) * (get_local_size(0) / TEAM) + team;
    const int live = r < n_voxels; /* a team past the last run still takes part in the barriers */
    const long begin = live ? run_ptr[r] : 0, end = live ? run_ptr[r + 1] : 0;
    const int chunks = life_group_chunks(s_ao, end - begin, TEAM);
    __local const int *my_ao = s_ao + team * TEAM;
    __local const real *my_c = s_c + team * TEAM;
    real acc[DSC_PNPL];
    for (int i = 0; i < DSC_PNPL; ++i) acc[i] = 0;
    for (int ch = 0; ch < chunks; ++ch) {
        const long j0 = begin + (long)ch * TEAM, j = j0 + lane;
        if (j < end) {
            s_ao[lid] = atom_off[j];
            s_c[lid] = phi[j] * w[fiber[j]];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int n = (int)clamp(end - j0, 0L, (long)TEAM);
        int u = 0;
        for (; u + UNROLL <= n; u += UNROLL) {
            int ao[UNROLL];
            real c[UNROLL];
            for (int q = 0; q < UNROLL; ++q) {
                ao[q] = my_ao[u + q];
                c[q] = my_c[u + q];
            }
            for (int q = 0; q < UNROLL; ++q) {
                if (c[q] == (real)0) continue;
                for (int i = 0; i < DSC_PNPL; ++i) {
                    const int t = t0 + lane + i * TEAM;
                    if (t < t1) acc[i] += c[q] * DICT_AT(dict, ao[q] + t);
                }
            }
        }
        for (; u < n; ++u) {
            const real c = my_c[u];
            if (c == (real)0) continue;
            const int ao = my_ao[u];
            for (int i = 0; i < DSC_PNPL; ++i) {
                const int t = t0 + lane + i * TEAM;
                if (t < t1) acc[i] += c * DICT_AT(dict, ao + t);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* the next chunk overwrites this one */
    }
    if (!live) return;
    const long v = VOXEL_OF(r);
    for (int i = 0; i < DSC_PNPL; ++i) {
        const int t = t0 + lane + i * TEAM;
        if (t < t1) y[v * NTHETA + t] = acc[i];
    }
}

/* Staged WC (wc=staged): wc=fiber's teams, summation order and team reduction, but a team walks its fibre run in
 * chunks of WC_TEAM coefficients whose (atom offset, voxel offset, phi) lane k loads once into local memory; then
 * every lane reads them back as broadcasts and issues only its D and y loads per coefficient. part, s_ao, s_vo and
 * s_ph hold get_local_size(0) values each. */
__kernel void life_wc_staged(int n_fibers, __global const long *restrict run_ptr, __global const int *restrict atom_off,
                             __global const int *restrict voxel_off, __global const real *restrict phi,
                             __global const DICT_T *restrict dict, __global const real *restrict y,
                             __global real *restrict w, __local real *part, int pass,
                             __global const int *restrict run_fiber, __local int *s_ao, __local int *s_vo,
                             __local real *s_ph) {
    const int t0 = PASS_T0, t1 = PASS_T1;
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int runs = get_local_size(0) / WC_TEAM;
    __local const int *my_ao = s_ao + team * WC_TEAM, *my_vo = s_vo + team * WC_TEAM;
    __local const real *my_ph = s_ph + team * WC_TEAM;
    /* The loop bound depends on the group only, so every work-item reaches every barrier. */
    for (long base = (long)get_group_id(0) * runs; base < n_fibers; base += (long)get_num_groups(0) * runs) {
        const long r = base + team; /* the run; its fibre is FIBER_OF(r) */
        const int live = r < n_fibers;
        const long begin = live ? run_ptr[r] : 0, end = live ? run_ptr[r + 1] : 0;
        const int chunks = life_group_chunks(s_ao, end - begin, WC_TEAM);
        real s = 0;
        for (int ch = 0; ch < chunks; ++ch) {
            const long j0 = begin + (long)ch * WC_TEAM, j = j0 + lane;
            if (j < end) {
                s_ao[lid] = atom_off[j];
                s_vo[lid] = voxel_off[j];
                s_ph[lid] = phi[j];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            const int n = (int)clamp(end - j0, 0L, (long)WC_TEAM);
            int u = 0;
            /* UNROLL coefficients at a time: all their row loads in flight together. */
            for (; u + UNROLL <= n; u += UNROLL) {
                int ao[UNROLL], vo[UNROLL];
                real ph[UNROLL];
                for (int q = 0; q < UNROLL; ++q) {
                    ao[q] = my_ao[u + q];
                    vo[q] = my_vo[u + q];
                    ph[q] = my_ph[u + q];
                }
                for (int q = 0; q < UNROLL; ++q) {
                    real d = 0;
                    for (int i = 0; i < WC_PNPL; ++i) {
                        const int t = t0 + lane + i * WC_TEAM;
                        if (t < t1) d += DICT_AT(dict, ao[q] + t) * y[vo[q] + t];
                    }
                    s += ph[q] * d;
                }
            }
            for (; u < n; ++u) {
                const int ao = my_ao[u], vo = my_vo[u];
                real d = 0;
                for (int i = 0; i < WC_PNPL; ++i) {
                    const int t = t0 + lane + i * WC_TEAM;
                    if (t < t1) d += DICT_AT(dict, ao + t) * y[vo + t];
                }
                s += my_ph[u] * d;
            }
            barrier(CLK_LOCAL_MEM_FENCE); /* the next chunk overwrites this one */
        }
        life_fibre_team_store(part, lid, lane, s, live, r, w, pass, run_fiber);
    }
}

/* Pair-merged DSC (lib/life/life_pairs.c: each voxel run's coefficients grouped by (voxel, atom) pair), first launch:
 * weight[p] = sum of phi_k w[f_k] over pair p's coefficients, a work-item per pair, grid-stride (neighbouring pairs'
 * coefficients are neighbours: the loads coalesce). Second launch, life_dsc_pairs: dsc=voxel's teams over the pairs,
 * one D row per pair with a non-zero weight. No barriers, no atomics, the same bits every run. */
#define PAIR_WEIGHT_UNROLL 4
__kernel void life_pair_weights(long n_pairs, __global const long *restrict pair_coeff,
                                __global const int *restrict fiber, __global const real *restrict phi,
                                __global const real *restrict w, __global real *restrict weight,
                                __global const int *restrict pair_voxel_off, __global const int *restrict stamp,
                                int it) {
    for (long p = get_global_id(0); p < n_pairs; p += get_global_size(0)) {
        if (stamp && stamp[pair_voxel_off[p] / NTHETA] != it) continue; /* life_dsc_pairs skips its voxel too */
        const long j0 = pair_coeff[p], end = pair_coeff[p + 1];
        /* Most pairs have 1-4 coefficients (2.15 on average at DS1): their loads, and then their w gathers, are
         * issued together instead of one load -> gather chain per coefficient. Same order of additions. */
        int f[PAIR_WEIGHT_UNROLL];
        real ph[PAIR_WEIGHT_UNROLL];
        for (int u = 0; u < PAIR_WEIGHT_UNROLL; ++u) {
            const int live = j0 + u < end;
            f[u] = live ? fiber[j0 + u] : -1;
            ph[u] = live ? phi[j0 + u] : 0;
        }
        real s = 0;
        for (int u = 0; u < PAIR_WEIGHT_UNROLL; ++u)
            if (f[u] >= 0) s += ph[u] * w[f[u]];
        for (long j = j0 + PAIR_WEIGHT_UNROLL; j < end; ++j) s += phi[j] * w[fiber[j]];
        weight[p] = s;
    }
}

__kernel void life_dsc_pairs(int n_voxels, __global const long *restrict run_pair,
                             __global const int *restrict pair_atom_off, __global const real *restrict weight,
                             __global const DICT_T *restrict dict, __global real *restrict y, int pass,
                             __global const int *restrict run_voxel, __global const int *restrict stamp, int it) {
    life_dsc_run(n_voxels, run_pair, pair_atom_off, 0, weight, dict, 0, y, pass, run_voxel, 1, stamp, it);
}

/* The fit's clipped step (lib/life/life_fit.c): stamp[v] = it for every voxel of a fibre with a non-zero clip, through
 * wc=pairs's fibre side (fibre -> pair -> voxel; its runs in the fibre processing order), so that a stamped dsc=pairs
 * pass computes M clip on those voxels only. A team of 32 lanes per fibre, lanes over its pairs; few fibres clip, the
 * others cost one read. */
__kernel void life_mark_clipped(int n_fibers, __global const long *restrict fiber_ptr,
                                __global const int *restrict fiber_pair, __global const int *restrict pair_voxel_off,
                                __global const real *restrict clip, volatile __global int *stamp, int it,
                                __global const int *restrict run_fiber) {
    const int lane = get_local_id(0) % 32;
    for (long r = get_global_id(0) / 32; r < n_fibers; r += get_global_size(0) / 32) {
        if (clip[FIBER_OF(r)] == (real)0) continue;
        const long end = fiber_ptr[r + 1];
        for (long j = fiber_ptr[r] + lane; j < end; j += 32)
            atomic_max(&stamp[pair_voxel_off[fiber_pair[j]] / NTHETA], it);
    }
}

#define WC_YS4 ((NTHETA + 3) / 4)                       /* 16-byte pieces of a y row, zero past NTHETA */
#define WC_PAIR_NPL4 ((WC_YS4 + WC_TEAM - 1) / WC_TEAM) /* of them a lane holds (life_wc_pair_dot) */
/* y's 4 values at voxel offset vo (v NTHETA) + 4 ch, zero past the row's end */
inline real4 life_y_piece(__global const real *restrict y, int vo, int ch) {
#if NTHETA % 4 == 0
    return Y_ROW4(y, vo, ch);
#else
    real4 r = 0;
    const int t = 4 * ch;
    r.x = y[vo + t];
    if (t + 1 < NTHETA) r.y = y[vo + t + 1];
    if (t + 2 < NTHETA) r.z = y[vo + t + 2];
    if (t + 3 < NTHETA) r.w = y[vo + t + 3];
    return r;
#endif
}

/* The end of a round of the pair dot products: dot[base + i] = the sum of pair i's WC_TEAM partials in part (rows of
 * WC_TEAM + 1), one work-item a pair, for base + i < end. Called by every work-item of the group (two barriers). */
inline void life_round_sums(__local const real *part, int per_round, long base, long end, __global real *dot) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_local_id(0); i < per_round; i += get_local_size(0)) {
        real s = 0;
        for (int l = 0; l < WC_TEAM; ++l) s += part[i * (WC_TEAM + 1) + l];
        if (base + i < end) dot[base + i] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Pair-merged WC, first launch: dot[p] = <D[a_p,:], y[v_p,:]> once per pair. A team of WC_TEAM lanes takes UNROLL
 * consecutive pairs a round, which mostly share their voxel: the team holds that voxel's y row in registers (each
 * lane its 16-byte pieces) and reloads it only when the voxel changes, so a pair moves its D row through the memory
 * pipeline and nothing else (the L1 throughput, not L2, bounds this launch: docs/perf-life.md). The group's partial
 * sums of the round go through local memory, where one work-item sums each pair's WC_TEAM partials (a transposed
 * reduction: one barrier pair a round, rows padded by one against bank conflicts). D rows are zero-padded to LDD, so
 * the row's last piece needs no tail. part holds get_local_size(0) / WC_TEAM * UNROLL * (WC_TEAM + 1) values. */
__kernel void life_wc_pair_dot(long n_pairs, __global const int *restrict pair_atom_off,
                               __global const int *restrict pair_voxel_off, __global const DICT_T *restrict dict,
                               __global const real *restrict y, __global real *restrict dot, __local real *part,
                               __global const int *restrict stamp, int it) {
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int teams = get_local_size(0) / WC_TEAM, per_round = teams * UNROLL;
    real4 yr[WC_PAIR_NPL4];
    int held = -1, live = 0; /* the voxel offset whose y row yr holds; whether its pairs count (a stamped pass) */
    /* The loop bound depends on the group only, so every work-item reaches every barrier. */
    for (long base = (long)get_group_id(0) * per_round; base < n_pairs;
         base += (long)get_num_groups(0) * per_round) {
        for (int u = 0; u < UNROLL; ++u) {
            const int i = team * UNROLL + u;
            real4 s4 = 0;
            if (base + i < n_pairs) {
                const int vo = pair_voxel_off[base + i], a4 = pair_atom_off[base + i] >> 2;
                if (vo != held) {
                    held = vo;
                    /* a stamped pass (the fit's clipped step): y is zero but on the voxels stamped `it` */
                    live = !stamp || stamp[vo / NTHETA] == it;
                    for (int k = 0; k < WC_PAIR_NPL4; ++k) {
                        const int ch = lane + k * WC_TEAM;
                        yr[k] = live && ch < WC_YS4 ? life_y_piece(y, vo, ch) : 0;
                    }
                }
                if (live)
                    for (int k = 0; k < WC_PAIR_NPL4; ++k) {
                        const int ch = lane + k * WC_TEAM;
                        if (ch < WC_YS4) s4 += DICT_ROW4(dict, a4 + ch) * yr[k];
                    }
            }
            part[i * (WC_TEAM + 1) + lane] = (s4.x + s4.y) + (s4.z + s4.w);
        }
        life_round_sums(part, per_round, base, n_pairs, dot);
    }
}

#if defined(WC_BLOCK) && WC_BLOCK > 0
/* wc=pairs with wc_block = WC_BLOCK, first launch: the same dot products, but pairs come per block of WC_BLOCK voxels
 * (consecutive voxel runs in processing order) and, within a block, by atom (lib/life/life_pairs.c,
 * life_pairs_block_order), cut into chunks of a few rounds (a work-group each: the load spreads over the device
 * whatever the block count). A group stages its block's y rows in local memory, and pairs of one atom are
 * neighbours, so the teams of a round that share an atom read its D row together. dot is written in this block order
 * (the fibre side's pair indices follow it). vloc: a pair's voxel within its block. A stamped pass (the fit's
 * clipped step) skips the pairs of voxels not stamped `it` (their dot is 0). part as life_wc_pair_dot's. */
__kernel void life_wc_block_dot(int n_voxels, int n_chunks, __global const long *restrict chunk_pair,
                                __global const int *restrict chunk_block, __global const int *restrict atom_off,
                                __global const uchar *restrict vloc, __global const int *restrict run_voxel,
                                __global const DICT_T *restrict dict, __global const real *restrict y,
                                __global real *restrict dot, __local real *part, __global const int *restrict stamp,
                                int it) {
    __local real4 ys4[WC_BLOCK * WC_YS4];
    __local int vox[WC_BLOCK]; /* the block's voxels; -1 past the last voxel or, stamped, not stamped `it` */
    real4 dr[WC_PAIR_NPL4];    /* the D row of atom offset 4 held, a lane's pieces */
    int held = -1;
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int teams = get_local_size(0) / WC_TEAM, per_round = teams * UNROLL;
    /* The loop bounds depend on the group and chunk only, so every work-item reaches every barrier. */
    for (int c = get_group_id(0); c < n_chunks; c += get_num_groups(0)) {
        const int first = chunk_block[c] * WC_BLOCK, nvb = min(WC_BLOCK, n_voxels - first);
        for (int l = lid; l < WC_BLOCK; l += get_local_size(0)) {
            int v = -1;
            if (l < nvb) v = (int)VOXEL_OF(first + l);
            if (v >= 0 && stamp && stamp[v] != it) v = -1;
            vox[l] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int l = team; l < WC_BLOCK; l += teams) {
            const int v = vox[l];
            for (int ch = lane; ch < WC_YS4; ch += WC_TEAM)
                ys4[l * WC_YS4 + ch] = v >= 0 ? life_y_piece(y, v * NTHETA, ch) : 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const long begin = chunk_pair[c], end = chunk_pair[c + 1];
        for (long base = begin; base < end; base += per_round) {
            for (int u = 0; u < UNROLL; ++u) {
                const int i = team * UNROLL + u;
                real4 s4 = 0;
                if (base + i < end) {
                    const int a4 = atom_off[base + i] >> 2, vl = vloc[base + i];
                    if (!stamp || vox[vl] >= 0) {
                        if (a4 != held) { /* the team's consecutive pairs mostly share the atom: its D row stays */
                            held = a4;
                            for (int k = 0; k < WC_PAIR_NPL4; ++k) {
                                const int ch = lane + k * WC_TEAM;
                                dr[k] = ch < WC_YS4 ? DICT_ROW4(dict, a4 + ch) : 0;
                            }
                        }
                        for (int k = 0; k < WC_PAIR_NPL4; ++k) {
                            const int ch = lane + k * WC_TEAM;
                            if (ch < WC_YS4) s4 += dr[k] * ys4[vl * WC_YS4 + ch];
                        }
                    }
                }
                part[i * (WC_TEAM + 1) + lane] = (s4.x + s4.y) + (s4.z + s4.w);
            }
            life_round_sums(part, per_round, base, end, dot);
        }
    }
}
#endif

/* Pair-merged WC, second launch: w[f] = sum over f's coefficients of phi_k dot[pair_k], a team of WC_TEAM lanes per
 * fibre run (lanes over the fibre's coefficients), reduced in local memory in a fixed order: no atomics, the same bits
 * every run. With FIBER_KEYED the runs come in the order of the fibres' middle voxels, so that the teams in flight
 * gather dot products of neighbouring voxels, which lie near each other in dot (docs/perf-life.md). */
__kernel void life_wc_pair_sum(int n_fibers, __global const long *restrict fiber_ptr,
                               __global const int *restrict fiber_pair, __global const real *restrict phi,
                               __global const real *restrict dot, __global real *restrict w, __local real *part,
                               __global const int *restrict run_fiber) {
    const int lid = get_local_id(0), lane = lid % WC_TEAM, team = lid / WC_TEAM;
    const int runs = get_local_size(0) / WC_TEAM;
    for (long base = (long)get_group_id(0) * runs; base < n_fibers; base += (long)get_num_groups(0) * runs) {
        const long r = base + team;
        real s = 0;
        if (r < n_fibers) {
            const long end = fiber_ptr[r + 1];
            for (long j = fiber_ptr[r] + lane; j < end; j += WC_TEAM) s += phi[j] * dot[fiber_pair[j]];
        }
        part[lid] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = WC_TEAM / 2; off > 0; off >>= 1) {
            if (lane < off) part[lid] += part[lid + off];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0 && r < n_fibers) w[FIBER_OF(r)] = part[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Zero-fill before the atomics kernels (NVIDIA's clEnqueueFillBuffer measured ~1 GB/s here: 100 ms for a DS1 y). */
__kernel void life_zero(long n, __global real *restrict out) {
    for (long i = get_global_id(0); i < n; i += get_global_size(0)) out[i] = 0;
}
