/* BCCOO / BCCOO+ SpMV (yaSpMV design, seed 001), OpenCL C 1.2.
 *
 * Each work-item ("thread") owns TILE consecutive blocks of the block list and runs a sequential segmented sum
 * over them (bit flag 0 = row stop). Rows completed inside a tile are written at once (strategy 1) or into a
 * local result cache flushed coalesced at the end (strategy 2). The sum before a thread's first stop ("head")
 * needs the partial sums of the threads before it: a work-group segmented scan of the threads' trailing sums
 * ("tails") gives the part from inside the group, and the part from earlier groups comes either from adjacent
 * synchronization (SYNC_ADJ=1, group g waits for g-1's published carry) or, with SYNC_ADJ=0, from a second small
 * kernel (spmv_bccoo_carry) that adds it afterwards. docs/spmv.md argues why neither can deadlock.
 *
 * Options (all required, set by lib/spmv_plan.c):
 *   IS_DOUBLE 0|1, BH 1..4, BW 1|2|4, FLAG_BITS 8|16|32, COL_BITS 16|32, TILE blocks per thread, WG work-group
 *   size, STRATEGY 1|2, SYNC_ADJ 0|1, SLICED 0|1 (BCCOO+: write raw partial rows to a temporary, combined by
 *   spmv_bccoo_combine), COL_DELTA 0|1 (16-bit column deltas per thread segment from col_base[t], 0x8000 escapes
 *   to esc[esc_start[t] + k]), STAGE 0|1 (the online-transpose staging, compiled only into plans whose online mode is 2,
 *   where it is the only path: a barrier under a runtime branch makes PoCL replicate all the code after it, and
 *   with PREFETCH 4-8 that took minutes to compile), PREFETCH (blocks of a thread whose columns and x vectors are loaded ahead of
 *   their products, 1 = none), VLOAD 0|1 and VW (elements per value vector, lib/spmv_config.c: block_w when
 *   VLOAD=0; with VLOAD=1 up to 16 bytes, e.g. a 4x2 f32 block is two float4): value element e = i*BW + k of the
 *   block at pos lies in vector plane e / VW (planes of nt*TILE vectors), so consecutive work-items still read
 *   consecutive vectors. VLOAD=1 reads values through pointers to the vector type: vloadn
 *   only promises element alignment, and a compiler that cannot prove more may split it into scalar loads (LLVM's
 *   NVPTX backend does). X_ALIGNED 0|1: x read the same way (the plan builds an X_ALIGNED=0 program for launches
 *   whose x offset is not a multiple of BW).
 * Runtime switches (uniform, cheap, so one program serves them all): online (0: offline-transposed layout, block j
 * of thread t at j*nt+t; 1: natural order; 2: natural order with the online transpose: the group multiplies its
 * WG*TILE blocks cooperatively with coalesced loads into the local buffer `stage`, then each work-item reads its
 * tile's products from there), skip_scan, and the strategy-2 result cache (cache_rows block rows in
 * the local buffer `cache`).
 */
#if IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double VT;
typedef double2 VT2;
typedef double4 VT4;
#define VT_WORDS 2
#else
typedef float VT;
typedef float2 VT2;
typedef float4 VT4;
#define VT_WORDS 1
#endif

#if FLAG_BITS == 8
typedef uchar FLAG_T;
#elif FLAG_BITS == 16
typedef ushort FLAG_T;
#else
typedef uint FLAG_T;
#endif

#if COL_BITS == 16
typedef ushort COL_T;
#else
typedef uint COL_T;
#endif

#define FLAG_WORDS ((TILE + FLAG_BITS - 1) / FLAG_BITS)
#if PREFETCH < 1
#error "PREFETCH must be at least 1"
#endif

#if BW == 1
typedef VT VTW;
#define LOADW(i, p) ((p)[i])
#define HSUM(v) (v)
#elif BW == 2
typedef VT2 VTW;
#define LOADW(i, p) vload2((i), (p))
#define HSUM(v) ((v).s0 + (v).s1)
#else
typedef VT4 VTW;
#define LOADW(i, p) vload4((i), (p))
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#endif

#if VLOAD
#if VW == 1
typedef VT VTV;
#elif VW == 2
typedef VT2 VTV;
#else
typedef VT4 VTV;
#endif
#define LOADV(i, p) (((const global VTV *)(p))[i])
#endif

#define BLOCK_INDEX(j, t, nt) (online ? (t) * TILE + (j) : (j) * (nt) + (t))
#define FLAG_INDEX(w, t, nt) (online ? (t) * FLAG_WORDS + (w) : (w) * (nt) + (t))

/* x[c*BW .. c*BW+BW-1], zero beyond the last column (the last block column may stick out of the matrix). */
inline VTW load_x(const global VT *x, uint c, uint ncols) {
    uint base = c * BW;
#if X_ALIGNED
    if (base + BW <= ncols) return ((const global VTW *)x)[c];
#else
    if (base + BW <= ncols) return LOADW(c, x);
#endif
#if BW == 1
    return (VT)0;
#else
    VT e[BW];
    for (uint k = 0; k < BW; ++k) e[k] = base + k < ncols ? x[base + k] : (VT)0;
#if BW == 2
    return (VT2)(e[0], e[1]);
#else
    return (VT4)(e[0], e[1], e[2], e[3]);
#endif
#endif
}

/* The BH row products of the block at pos with x (nbp = nt*TILE: vectors per plane). */
inline void block_rows(const global VT *vals, uint pos, uint nbp, VTW xv, VT *p) {
#if !VLOAD
    for (uint i = 0; i < BH; ++i) p[i] = HSUM(LOADW(pos, vals + i * nbp * BW) * xv);
#elif VW == BW /* one vector per block row */
    for (uint i = 0; i < BH; ++i) p[i] = HSUM(LOADV(pos, vals + i * nbp * BW) * xv);
#elif BW == 1 /* VW rows per vector */
    for (uint q = 0; q < BH / VW; ++q) {
        const VTV m = LOADV(pos, vals + q * nbp * VW) * xv;
        p[q * VW] = m.s0;
        p[q * VW + 1] = m.s1;
#if VW == 4
        p[q * VW + 2] = m.s2;
        p[q * VW + 3] = m.s3;
#endif
    }
#else /* BW 2, VW 4: two rows per vector */
    /* x twice, element by element: (VT4)(xv, xv) is the same vector, but at -O0 it is a widening shuffle with undefined
     * lanes, which crashes oclgrind's uninitialized-value check (scripts/oclgrind-check.sh) */
    const VT4 xx = (VT4)(xv.s0, xv.s1, xv.s0, xv.s1);
    for (uint q = 0; q < BH / 2; ++q) {
        const VT4 m = LOADV(pos, vals + q * nbp * 4) * xx;
        p[2 * q] = m.s0 + m.s1;
        p[2 * q + 1] = m.s2 + m.s3;
    }
#endif
}

/* Final store of one matrix row's dot product. */
inline void store_out(global VT *y, uint r, VT v, uint out_rows, VT alpha, VT beta) {
#if SLICED
    y[r] = v; /* temporary sized slices * block rows * BH: every index is in range */
#else
    if (r < out_rows) {
        VT o = alpha * v;
        if (beta != (VT)0) o += beta * y[r]; /* beta == 0 ignores y, so NaN in y does not leak */
        y[r] = o;
    }
#endif
}

/* A row stop in a thread's tile: strategy 2 keeps the row in the group's local cache when it fits. */
#if STRATEGY == 2
#define EMIT(brow, vals)                                                                                               \
    do {                                                                                                               \
        uint lr_ = (brow) - grp_first;                                                                                 \
        if (lr_ < cache_rows) {                                                                                        \
            for (uint i_ = 0; i_ < BH; ++i_) cache[lr_ * BH + i_] = (vals)[i_];                                        \
        } else {                                                                                                       \
            for (uint i_ = 0; i_ < BH; ++i_) store_out(y, (brow) * BH + i_, (vals)[i_], out_rows, alpha, beta);        \
        }                                                                                                              \
    } while (0)
#else
#define EMIT(brow, vals)                                                                                               \
    do {                                                                                                               \
        for (uint i_ = 0; i_ < BH; ++i_) store_out(y, (brow) * BH + i_, (vals)[i_], out_rows, alpha, beta);            \
    } while (0)
#endif

#if SYNC_ADJ
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
/* Carries travel in 64-bit atomic words: the high half is the epoch of the launch that wrote it (the ready flag),
 * the low half 32 bits of the value (a double takes two words). Flag and value are written by ONE atomic, so a
 * reader that sees this launch's epoch sees the value written with it, whatever order the device's memory system
 * performs atomics to different addresses in: OpenCL 1.2 has no device-scope release/acquire, and NVIDIA's
 * mem_fence does not order a value word against a separate flag word for other work-groups (docs/perf-spmv.md). The
 * epoch is never a value sentinel: any bit pattern is a value. */
#define CARRY_WORDS (BH * VT_WORDS) /* 64-bit words per group: word 2i+h holds half h of row i's double */
inline void publish_carry(volatile global ulong *gsum, volatile global uint *sync, uint g, const VT *v, uint epoch) {
    const ulong tag = (ulong)epoch << 32;
    volatile global ulong *dst = gsum + g * CARRY_WORDS;
    for (uint i = 0; i < BH; ++i) {
#if IS_DOUBLE
        const uint2 u = as_uint2(v[i]);
        atom_xchg(&dst[2 * i], tag | u.x);
        atom_xchg(&dst[2 * i + 1], tag | u.y);
#else
        atom_xchg(&dst[i], tag | as_uint(v[i]));
#endif
    }
    atomic_inc(&sync[1]); /* progress counter read by the watchdog of waiting groups */
}

/* Waits until group g has published its BH carries in this launch and returns them in v. All words are read in
 * one batch of independent atomics per round, so a carry that is already there costs one L2 round trip, not one per
 * word, while the rest of the group waits at the barrier (docs/perf-spmv.md row 8). The spin is bounded: if no group at all
 * publishes during a window of spin_limit rounds (a live device always has one that does: the predecessor chain ends
 * at a running group that only computes), the error word is set and the carry taken as 0: the result is wrong and
 * the host reports CLPK_ERROR_TIMEOUT instead of hanging. The progress counter is first read when a window expires,
 * which keeps it off the path of a wait that ends at once. */
inline void wait_carry(volatile global ulong *gsum, volatile global uint *sync, uint g, VT *v, uint epoch,
                       uint spin_limit) {
    volatile global ulong *src = gsum + g * CARRY_WORDS;
    uint budget = spin_limit, seen = 0, have_seen = 0;
    for (;;) {
        ulong w[CARRY_WORDS];
        for (uint k = 0; k < CARRY_WORDS; ++k) w[k] = atom_add(&src[k], (ulong)0);
        uint ready = 1;
        for (uint k = 0; k < CARRY_WORDS; ++k) ready &= (uint)(w[k] >> 32) == epoch;
        if (ready) {
            for (uint i = 0; i < BH; ++i) {
#if IS_DOUBLE
                v[i] = as_double((uint2)((uint)w[2 * i], (uint)w[2 * i + 1]));
#else
                v[i] = as_float((uint)w[i]);
#endif
            }
            return;
        }
        if (--budget == 0) {
            const uint now = atomic_or(&sync[1], 0u);
            if (have_seen && now == seen) {
                atomic_xchg(&sync[2], 1u);
                for (uint i = 0; i < BH; ++i) v[i] = (VT)0;
                return;
            }
            seen = now;
            have_seen = 1;
            budget = spin_limit;
        }
    }
}
#endif

__attribute__((reqd_work_group_size(WG, 1, 1)))
kernel void spmv_bccoo(const global VT *restrict vals, const global FLAG_T *restrict flags,
                       const global COL_T *restrict cols, const global uint *restrict res_entry,
                       const global VT *restrict x_base, const uint x_off, global VT *y_base, const uint y_off,
                       const uint out_rows, const uint ncols, const VT alpha, const VT beta, const uint nt,
                       global uint *sync, global ulong *grp_sum, global uint *grp_stop,
                       const uint epoch, const uint spin_limit, const uint online, const uint skip_scan,
                       const uint cache_rows, local VT *cache, const global uint *restrict col_base,
                       const global uint *restrict esc_start, const global uint *restrict esc, local VT *stage) {
    const global VT *x = x_base + x_off;
    global VT *y = y_base + y_off;
    const uint lid = get_local_id(0);
    local VT lsum[WG * BH];
    local uint lflag[WG];
    local uint lshared[4];
    local VT lcarry[BH];

#if SYNC_ADJ
    /* Logical group ids in start order: a group only ever waits on one that has already started. The group that
     * draws the last ticket resets the counter for the next launch (every ticket has been drawn by then). */
    if (lid == 0) {
        uint ticket = atomic_inc(&sync[0]);
        if (ticket == get_num_groups(0) - 1) atomic_xchg(&sync[0], 0u);
        lshared[0] = ticket;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint g = lshared[0];
#else
    const uint g = get_group_id(0);
#endif
    const uint t = g * WG + lid;
    const uint first_row = res_entry[t];
    const uint grp_first = res_entry[g * WG];
    /* What the group's tail needs from global memory is loaded here, into local memory, so its latency hides under
     * the tile instead of adding round trips after the scan, when nothing else of this group is in flight. Local,
     * not registers: registers live through the tile loop cost occupancy (docs/perf-spmv.md row 8). lshared[2]: whether the previous
     * group's last block continues a row into this group (else its carry is 0: no wait); lshared[3]: the group's
     * end entry (strategy 2). Read after the scan's barriers. */
#if SYNC_ADJ /* only where it is read */
    if (lid == 0) {
        uint prev_open = 0;
        if (g > 0) {
            const uint tp = g * WG - 1, jl = TILE - 1;
            const uint pfw = (uint)flags[FLAG_INDEX(jl / FLAG_BITS, tp, nt)];
            prev_open = (pfw >> (FLAG_BITS - 1 - jl % FLAG_BITS)) & 1u;
        }
        lshared[2] = prev_open;
    }
#endif
#if STRATEGY == 2
    if (lid == WG - 1) lshared[3] = res_entry[(g + 1) * WG];
#endif

    /* ---- sequential segmented sum over the thread's tile ---- */
    const uint nbp = nt * TILE; /* vectors in one value plane */
    VT acc[BH], head[BH];
    for (uint i = 0; i < BH; ++i) acc[i] = head[i] = (VT)0;
    uint nstops = 0;
#if STAGE /* compiled only into plans whose online mode is 2, so no barrier sits under a runtime branch */
    {
        const uint base = g * WG * TILE;
        for (uint e = lid; e < WG * TILE; e += WG) {
            const uint pos = base + e;
            VT p[BH];
            block_rows(vals, pos, nbp, load_x(x, (uint)cols[pos], ncols), p);
            for (uint i = 0; i < BH; ++i) stage[e * BH + i] = p[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    uint fw = 0;
#if COL_DELTA
    uint cprev = col_base[t], ek = esc_start[t];
#endif
    /* The tile goes in chunks of PREFETCH blocks: first the chunk's column indices, then its x vectors, then the
     * products, so PREFETCH column loads and then PREFETCH x loads are in flight at once instead of a column -> x
     * chain per block. It pays where x gathers miss and costs occupancy near the roofline (docs/perf-spmv.md row 7),
     * hence a tuning parameter. */
    for (uint j0 = 0; j0 < TILE; j0 += PREFETCH) {
#if !STAGE
        VTW xpf[PREFETCH];
        {
            uint cpf[PREFETCH];
#pragma unroll
            for (uint k = 0; k < PREFETCH; ++k) {
                if (j0 + k >= TILE) break;
                const uint pos = BLOCK_INDEX(j0 + k, t, nt);
#if COL_DELTA
                const ushort d = cols[pos];
                cpf[k] = d == (ushort)0x8000 ? esc[ek++] : (uint)((int)cprev + (int)(short)d);
                cprev = cpf[k];
#else
                cpf[k] = (uint)cols[pos];
#endif
            }
#pragma unroll
            for (uint k = 0; k < PREFETCH; ++k) {
                if (j0 + k >= TILE) break;
                xpf[k] = load_x(x, cpf[k], ncols);
            }
        }
#endif
#pragma unroll
        for (uint k = 0; k < PREFETCH; ++k) {
            const uint j = j0 + k;
            if (j >= TILE) break;
            const uint b = j % FLAG_BITS;
            if (b == 0) fw = (uint)flags[FLAG_INDEX(j / FLAG_BITS, t, nt)];
#if STAGE
            for (uint i = 0; i < BH; ++i) acc[i] += stage[(lid * TILE + j) * BH + i];
#else
            const uint pos = BLOCK_INDEX(j, t, nt);
            VT p[BH];
            block_rows(vals, pos, nbp, xpf[k], p);
            for (uint i = 0; i < BH; ++i) acc[i] += p[i];
#endif
            if (((fw >> (FLAG_BITS - 1 - b)) & 1u) == 0u) {
                if (nstops == 0) {
                    for (uint i = 0; i < BH; ++i) head[i] = acc[i];
                } else {
                    EMIT(first_row + nstops, acc);
                }
                ++nstops;
                for (uint i = 0; i < BH; ++i) acc[i] = (VT)0;
            }
        }
    }

    /* ---- work-group segmented scan of the tails (inclusive; flag = a stop at or before this thread) ---- */
    for (uint i = 0; i < BH; ++i) lsum[lid * BH + i] = acc[i];
    uint myflag = nstops > 0;
    lflag[lid] = myflag;
    if (lid == 0) lshared[1] = 1u;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint all_stop = 0;
    if (skip_scan) { /* uniform: a kernel argument */
        if (!myflag) atomic_min(&lshared[1], 0u);
        barrier(CLK_LOCAL_MEM_FENCE);
        all_stop = lshared[1]; /* every thread has a stop: segments have length 1, no scan needed */
    }
    if (!all_stop) {
        for (uint d = 1; d < WG; d <<= 1) {
            VT pv[BH];
            uint pf = 1;
            if (lid >= d) {
                for (uint i = 0; i < BH; ++i) pv[i] = lsum[(lid - d) * BH + i];
                pf = lflag[lid - d];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid >= d) {
                if (!myflag)
                    for (uint i = 0; i < BH; ++i) acc[i] += pv[i];
                myflag |= pf;
                for (uint i = 0; i < BH; ++i) lsum[lid * BH + i] = acc[i];
                lflag[lid] = myflag;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    /* carry into this thread from earlier threads of the group, and whether it also needs the groups' carry */
    VT tc[BH];
    uint open = 1;
    for (uint i = 0; i < BH; ++i) tc[i] = (VT)0;
    if (lid > 0) {
        for (uint i = 0; i < BH; ++i) tc[i] = lsum[(lid - 1) * BH + i];
        open = all_stop ? 0u : !lflag[lid - 1];
    }

    /* ---- carry between groups ---- */
    if (lid == 0) {
        VT out[BH], carry[BH];
        const uint has_stop = all_stop ? 1u : lflag[WG - 1];
        for (uint i = 0; i < BH; ++i) {
            out[i] = lsum[(WG - 1) * BH + i];
            carry[i] = (VT)0;
        }
#if SYNC_ADJ
        if (has_stop) publish_carry(grp_sum, sync, g, out, epoch); /* breaks the chain at once */
        if (lshared[2]) wait_carry(grp_sum, sync, g - 1, carry, epoch, spin_limit);
        if (!has_stop) {
            for (uint i = 0; i < BH; ++i) out[i] += carry[i];
            publish_carry(grp_sum, sync, g, out, epoch);
        }
#else
        global VT *gs = (global VT *)grp_sum;
        for (uint i = 0; i < BH; ++i) gs[g * BH + i] = out[i];
        grp_stop[g] = has_stop;
#endif
        for (uint i = 0; i < BH; ++i) lcarry[i] = carry[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* ---- the head row of each thread that has a stop ---- */
    if (nstops > 0) {
        for (uint i = 0; i < BH; ++i) head[i] += tc[i] + (open ? lcarry[i] : (VT)0);
        EMIT(first_row, head);
    }
#if STRATEGY == 2
    barrier(CLK_LOCAL_MEM_FENCE);
    /* coalesced flush of the cached rows: block rows [grp_first, grp_end) all end inside this group */
    const uint grp_end = lshared[3];
    const uint ncached = min(grp_end - grp_first, cache_rows) * BH;
    for (uint e = lid; e < ncached; e += WG) store_out(y, grp_first * BH + e, cache[e], out_rows, alpha, beta);
#endif
}

/* Fallback carry propagation (SYNC_ADJ=0): for each group with a row stop, the sum of the tails of the groups
 * before it back to the last group with a stop goes into the group's first row. The walks of different groups
 * cover disjoint ranges, so the work is linear in the number of groups; nothing waits on anything. */
kernel void spmv_bccoo_carry(const global uint *restrict res_entry, const global VT *restrict grp_sum,
                             const global uint *restrict grp_stop, global VT *y_base, const uint y_off,
                             const uint out_rows, const VT alpha, const uint ngroups) {
    const uint g = get_global_id(0);
    if (g == 0 || g >= ngroups || !grp_stop[g]) return;
    VT c[BH];
    for (uint i = 0; i < BH; ++i) c[i] = (VT)0;
    uint k = g;
    do {
        --k;
        for (uint i = 0; i < BH; ++i) c[i] += grp_sum[k * BH + i];
    } while (k > 0 && !grp_stop[k]);
    global VT *y = y_base + y_off;
    const uint r = res_entry[g * WG] * BH;
    for (uint i = 0; i < BH; ++i) {
#if SLICED
        y[r + i] += c[i];
#else
        if (r + i < out_rows) y[r + i] += alpha * c[i];
#endif
    }
}

/* BCCOO+: y = alpha * (sum over slices of the partial rows) + beta * y. */
kernel void spmv_bccoo_combine(const global VT *restrict tmp, global VT *y_base, const uint y_off, const uint rows,
                               const uint rows_padded, const uint slices, const VT alpha, const VT beta) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    VT s = (VT)0;
    for (uint k = 0; k < slices; ++k) s += tmp[k * rows_padded + r];
    global VT *y = y_base + y_off;
    VT o = alpha * s;
    if (beta != (VT)0) o += beta * y[r];
    y[r] = o;
}
