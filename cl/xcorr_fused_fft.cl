/* Local-memory FFTs shared by the fused FFT paths of the cross-correlation family (cl/xcorr_fused.cl: one-to-one,
 * cl/xcorr_fused_many.cl: the other patterns; this file comes first in both programs): complex helpers, the
 * division-free index stepping, the padded local layout, fft_lines, which transforms several lines of length
 * 2^i 3^j at once (Stockham autosort, radices 16, 8, 4, 2, 3, barriers between stages, all items of a work-group
 * cooperating), and one-to-one K1's FFT-and-store (fft_rows_to_t1). Twiddles come from a table exp(-2 pi i t / n)
 * computed in double on the host. Build options: -DVALUE_T=float|double -DVALUE2_T=float2|double2 (-DCLPK_FP64 for
 * double), -DFFT_MAX_RADIX=4|8|16 (the largest radix of a stage: a radix-8 or -16 butterfly does two radix-4/2
 * passes in registers, so a line takes fewer trips through local memory and fewer barriers, with fewer items busy
 * per stage). */
#ifdef CLPK_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef VALUE_T real_t;
typedef VALUE2_T cpx_t;

static inline cpx_t cmul(cpx_t a, cpx_t b) { return (cpx_t)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
static inline cpx_t conj_c(cpx_t a) { return (cpx_t)(a.x, -a.y); }
/* i * a */
static inline cpx_t mul_i(cpx_t a) { return (cpx_t)(-a.y, a.x); }

#ifndef FFT_MAX_RADIX
#define FFT_MAX_RADIX 4
#endif

/* In-place 4-point DFT of lvalues x0..x3 in direction sign (outputs in natural order). */
#define DFT4(x0, x1, x2, x3, sign)                                                                                     \
    do {                                                                                                               \
        const cpx_t s02_ = (x0) + (x2), d02_ = (x0) - (x2), s13_ = (x1) + (x3);                                        \
        const cpx_t d13_ = mul_i((x1) - (x3)) * (sign);                                                                \
        (x0) = s02_ + s13_;                                                                                            \
        (x1) = d02_ - d13_;                                                                                            \
        (x2) = s02_ - s13_;                                                                                            \
        (x3) = d02_ + d13_;                                                                                            \
    } while (0)

#if FFT_MAX_RADIX >= 8
/* cos and sin of 2 pi p / 16, p < 10: the twiddles inside the radix-8 and -16 butterflies */
__constant real_t fft_cos16[10] = {1.0,  0.92387953251128675613,  0.70710678118654752440,  0.38268343236508977173,
                                   0.0,  -0.38268343236508977173, -0.70710678118654752440, -0.92387953251128675613,
                                   -1.0, -0.92387953251128675613};
__constant real_t fft_sin16[10] = {0.0, 0.38268343236508977173, 0.70710678118654752440, 0.92387953251128675613,
                                   1.0, 0.92387953251128675613, 0.70710678118654752440, 0.38268343236508977173,
                                   0.0, -0.38268343236508977173};

/* v * exp(-2 pi i sign p / 16) */
static inline cpx_t rot16(cpx_t v, uint p, real_t sign) { return cmul(v, (cpx_t)(fft_cos16[p], -sign * fft_sin16[p])); }

/* 8-point DFT in registers, as 4 x 2 (element 2 n1 + n2): DFT4 over n1, twiddle, DFT2 over n2. X[k] ends in
 * v[2 (k mod 4) + k / 4]. */
static inline void dft8(cpx_t *v, real_t sign) {
    DFT4(v[0], v[2], v[4], v[6], sign);
    DFT4(v[1], v[3], v[5], v[7], sign);
#pragma unroll
    for (uint k1 = 1; k1 < 4; ++k1)
        v[2 * k1 + 1] = rot16(v[2 * k1 + 1], 2 * k1, sign);
#pragma unroll
    for (uint k1 = 0; k1 < 4; ++k1) {
        const cpx_t a = v[2 * k1], b = v[2 * k1 + 1];
        v[2 * k1] = a + b;
        v[2 * k1 + 1] = a - b;
    }
}
#endif

#if FFT_MAX_RADIX >= 16
/* 16-point DFT in registers, as 4 x 4 (element 4 n1 + n2): DFT4 over n1, twiddle, DFT4 over n2. X[k] ends in
 * v[4 (k mod 4) + k / 4]. */
static inline void dft16(cpx_t *v, real_t sign) {
#pragma unroll
    for (uint n2 = 0; n2 < 4; ++n2)
        DFT4(v[n2], v[4 + n2], v[8 + n2], v[12 + n2], sign);
#pragma unroll
    for (uint k1 = 1; k1 < 4; ++k1)
#pragma unroll
        for (uint n2 = 1; n2 < 4; ++n2)
            v[4 * k1 + n2] = rot16(v[4 * k1 + n2], n2 * k1, sign);
#pragma unroll
    for (uint k1 = 0; k1 < 4; ++k1)
        DFT4(v[4 * k1], v[4 * k1 + 1], v[4 * k1 + 2], v[4 * k1 + 3], sign);
}
#endif

/* (q, r) = (e / d, e mod d) for e = lid, lid + wg, ...: one division at the start, then an add with one carry per
 * step (no integer division by a run-time value inside the loops, ~20 instructions each on GPUs). */
typedef struct {
    uint q, r, dq, dr, d;
} qr_t;
static inline qr_t qr_start(uint lid, uint wg, uint d) {
    qr_t s;
    s.d = d;
    s.q = lid / d;
    s.r = lid - s.q * d;
    s.dq = wg / d;
    s.dr = wg - s.dq * d;
    return s;
}
static inline void qr_next(qr_t *s) {
    s->r += s->dr;
    s->q += s->dq;
    if (s->r >= s->d) {
        s->r -= s->d;
        ++s->q;
    }
}

/* Global loads a work-item issues before it stores any of them to local memory: a loop that loads and stores one
 * value a step (its loads conditional, so not hoisted by the compiler) keeps one load in flight per item. The batch
 * holds LOAD_BATCH complex values in registers: 8 in f32, 4 in f64, so that the load phase does not raise a kernel's
 * register count above its FFT stages' (fewer groups a compute unit). */
#ifndef LOAD_BATCH
#ifdef CLPK_FP64
#define LOAD_BATCH 4
#else
#define LOAD_BATCH 8
#endif
#endif

/* g[at + off], or zero for at = ~0 (no row, or the zero-padded part of a line). */
static inline cpx_t load_or_zero(__global const cpx_t *g, ulong at, ulong off) {
    return at != ~(ulong)0 ? g[at + off] : (cpx_t)(0, 0);
}

/* (t / d, t mod d) for t, d < 2^24: a float reciprocal (inv_d = 1 / d) corrected by one step; no integer division by
 * a run-time value inside a loop. */
static inline uint div_small(uint t, uint d, float inv_d, uint *rem) {
    uint q = (uint)((float)t * inv_d);
    if (q * d > t)
        --q;
    else if ((q + 1) * d <= t)
        ++q;
    *rem = t - q * d;
    return q;
}

/* Local-memory layout: element x of a buffer lives at LX(x) = x + (x >> sh) (sh = 4: one gap per 16 complex values, so
 * the stride-4, -8 and -16 stores of a line's first stage hit distinct banks; sh = 31: no gaps). A buffer of t
 * values takes padded_len(t) slots. */
#define LX(x) ((x) + ((x) >> sh))
static inline uint padded_len(uint t, uint sh) { return t + (t >> sh) + 1; }

#if FFT_MAX_RADIX >= 8
/* One radix-r butterfly (r = 8 or 16, a constant after inlining, so v stays in registers): the r values
 * a[in0 + k m] times the stage twiddles tw[k t] (t = jm * tstride; none in the first stage), the r-point DFT, X[k] to
 * b[o + k ns]. */
static inline void butterfly_in_registers(__local const cpx_t *a, __local cpx_t *b, uint sh, uint in0, uint m, uint o,
                                          uint ns, __global const cpx_t *tw, uint t, real_t sign, const uint r,
                                          const int first, const int upper_zero) {
    cpx_t v[16];
    v[0] = a[LX(in0)];
    if (first) { /* a line's first stage (ns = 1, uniform over the group): every twiddle is 1, no loads, no products;
                  * with `upper_zero`, the values from n / 2 on are zeros */
#pragma unroll
        for (uint k = 1; k < r; ++k)
            v[k] = upper_zero && k >= r / 2 ? (cpx_t)(0, 0) : a[LX(in0 + k * m)];
    } else {
#pragma unroll
        for (uint k = 1; k < r; ++k) {
            cpx_t w = tw[k * t];
            w.y *= sign;
            v[k] = cmul(a[LX(in0 + k * m)], w);
        }
    }
#if FFT_MAX_RADIX >= 16
    if (r == 16)
        dft16(v, sign);
    else
#endif
        dft8(v, sign);
        /* the DFTs leave X[k] in v[(r / 4) (k mod 4) + k / 4] */
#pragma unroll
    for (uint k = 0; k < r; ++k)
        b[LX(o + k * ns)] = v[(r / 4) * (k % 4) + k / 4];
}
#endif

/* The radix of a stage with `rest` values per butterfly chain left (n for a line's first stage): 16, 8, 4, 2, 3 as
 * the length and FFT_MAX_RADIX allow. */
static inline uint fft_stage_radix(uint rest) {
    if (FFT_MAX_RADIX >= 16 && rest % 16 == 0) return 16;
    if (FFT_MAX_RADIX >= 8 && rest % 8 == 0) return 8;
    return rest % 4 == 0 ? 4 : (rest % 2 == 0 ? 2 : 3);
}

/* How many leading values of each line the caller must store before fft_lines when only the first nz can be
 * nonzero: n / 2 where the first stage, of an even radix r, reads values k n / r apart and so never reads a value
 * past n / 2 that is not zero (it takes them as zeros without loading them); else n. */
static inline uint fft_fill_len(uint n, uint nz) { return 2 * nz <= n && fft_stage_radix(n) % 2 == 0 ? n / 2 : n; }

/* Transforms n_lines lines of n complex values (stored one after another in `a`, only the first `fill` of each line:
 * n, or fft_fill_len's n / 2 when the rest are zeros; `b` is scratch of the same size) in direction sign (+1:
 * exp(-2 pi i jk/n), -1: exp(+2 pi i jk/n), unnormalised). n = 2^i 3^j. Every item of the group must call it
 * (barriers inside; the caller puts a barrier after filling `a`). Returns the buffer holding the result (a or b),
 * whose contents are visible to the whole group. tw: n entries exp(-2 pi i t / n). */
static __local cpx_t *fft_lines(__local cpx_t *a, __local cpx_t *b, uint n_lines, uint n, uint fill, real_t sign,
                                __global const cpx_t *tw, uint sh) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    uint ns = 1; /* product of the radices done so far */
    while (ns < n) {
        const uint rest = n / ns, r = fft_stage_radix(rest);
        const int upper_zero = ns == 1 && fill < n; /* fill = n / 2 (fft_fill_len): the upper half is zeros */
        const uint m = n / r;          /* butterflies per line */
        const uint tstride = rest / r; /* n / (ns * r): twiddle index step */
        /* Butterfly index i = line * m + j stepped by wg (qr_t), and j / ns as div_small computes it, written out in
         * this hot loop as it was measured (through div_small it timed ~1 % slower once, not in a same-call A/B). */
        const float inv_ns = 1.0f / (float)ns;
        qr_t it = qr_start(lid, wg, m);
        for (uint i = lid; i < n_lines * m; i += wg, qr_next(&it)) {
            const uint line = it.q, j = it.r;
            const uint base = line * n;
            uint jq = (uint)((float)j * inv_ns);
            if (jq * ns > j)
                --jq;
            else if ((jq + 1) * ns <= j)
                ++jq;
            const uint jm = j - jq * ns;
            const uint o = base + jq * ns * r + jm;
#if FFT_MAX_RADIX >= 8
            if (r >= 8) {
#if FFT_MAX_RADIX >= 16
                if (r == 16)
                    butterfly_in_registers(a, b, sh, base + j, m, o, ns, tw, jm * tstride, sign, 16, ns == 1,
                                           upper_zero);
                else
#endif
                    butterfly_in_registers(a, b, sh, base + j, m, o, ns, tw, jm * tstride, sign, 8, ns == 1,
                                           upper_zero);
                continue;
            }
#endif
            cpx_t v0 = a[LX(base + j)], v1 = (cpx_t)(0, 0), v2 = (cpx_t)(0, 0), v3 = (cpx_t)(0, 0);
            cpx_t w = tw[jm * tstride];
            w.y *= sign;
            if (!(upper_zero && r == 2)) v1 = cmul(a[LX(base + j + m)], w);
            if (r >= 3 && !upper_zero) {
                cpx_t w2 = tw[2 * jm * tstride];
                w2.y *= sign;
                v2 = cmul(a[LX(base + j + 2 * m)], w2);
            }
            if (r == 4 && !upper_zero) {
                cpx_t w3 = tw[3 * jm * tstride];
                w3.y *= sign;
                v3 = cmul(a[LX(base + j + 3 * m)], w3);
            }
            if (r == 2) {
                b[LX(o)] = v0 + v1;
                b[LX(o + ns)] = v0 - v1;
            } else if (r == 4) {
                /* X1 = v0 - i s v1 - v2 + i s v3, X3 = v0 + i s v1 - v2 - i s v3 */
                const cpx_t s02 = v0 + v2, d02 = v0 - v2, s13 = v1 + v3, d13 = mul_i(v1 - v3) * sign;
                b[LX(o)] = s02 + s13;
                b[LX(o + ns)] = d02 - d13;
                b[LX(o + 2 * ns)] = s02 - s13;
                b[LX(o + 3 * ns)] = d02 + d13;
            } else {
                /* X1,2 = v0 - (v1 + v2)/2 -/+ i s (sqrt(3)/2) (v1 - v2) */
                const cpx_t s12 = v1 + v2;
                const cpx_t base = v0 - s12 * (real_t)0.5;
                const cpx_t rot = mul_i(v1 - v2) * (sign * (real_t)0.86602540378443864676);
                b[LX(o)] = v0 + s12;
                b[LX(o + ns)] = base - rot;
                b[LX(o + 2 * ns)] = base + rot;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        __local cpx_t *t = a;
        a = b;
        b = t;
        ns *= r;
    }
    return a;
}

/* One-to-one K1's second half: once every item has filled `buf` with
 * `lines` rows of pc values (the first `fill` of each), their forward FFTs; rows g0 + line < n_rows are stored to t1
 * (pc complex per row). */
static void fft_rows_to_t1(__local cpx_t *buf, uint lines, uint pc, uint fill, __global const cpx_t *tw, uint sh,
                           ulong g0, ulong n_rows, __global cpx_t *t1) {
    const uint lid = get_local_id(0), wg = get_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const cpx_t *res = fft_lines(buf, buf + padded_len(lines * pc, sh), lines, pc, fill, (real_t)1, tw, sh);
    qr_t it = qr_start(lid, wg, pc);
    for (uint e = lid; e < lines * pc; e += wg, qr_next(&it)) {
        const ulong g = g0 + it.q;
        if (g < n_rows) t1[g * pc + it.r] = res[LX(e)];
    }
}
