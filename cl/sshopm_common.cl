/* SS-HOPM shared helpers: value type, the counter-based start generator (same arithmetic as the host's
 * sshopm_start_component) and the parameters every gradient provider receives.
 *
 * Build options: -DVALUE_T=float|double, -DSSHOPM_ENTRIES=0 (local) | 1 (global) | 2 (private, generated only),
 * -DSSHOPM_CHECK_EVERY=k (iterations between convergence checks), -DSSHOPM_ADAPTIVE=0|1 (the adaptive shift),
 * -DSSHOPM_REDUCE=1 (the post-processing program: common, general, reduce).
 * Sources are concatenated: sshopm_common, a gradient provider (sshopm_general or generated text), sshopm_driver. */
#ifndef VALUE_T
#define VALUE_T float
#endif
#if defined(SSHOPM_FP64) && SSHOPM_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifndef SSHOPM_ENTRIES
#define SSHOPM_ENTRIES 0
#endif
#ifndef SSHOPM_CHECK_EVERY
#define SSHOPM_CHECK_EVERY 4
#endif
#ifndef SSHOPM_ADAPTIVE
#define SSHOPM_ADAPTIVE 0
#endif
#ifndef SSHOPM_REDUCE
#define SSHOPM_REDUCE 0
#endif

/* The adaptive shift's fallback: a start whose lambda drops by more than SSHOPM_DROP_EPS ||A||_F (1024 ulps of the
 * value type: above rounding, far below the drops seen when local convexity fails) switches to the bound shift. */
#if defined(SSHOPM_FP64) && SSHOPM_FP64
#define SSHOPM_DROP_EPS 2.2737367544323206e-13 /* 2^-42 */
#else
#define SSHOPM_DROP_EPS 1.220703125e-4f /* 2^-13 */
#endif

/* The block test's last iteration may step up to SSHOPM_LAST_SLACK times tol (cl/sshopm_driver.cl): f32 rounding
 * noise near convergence is a few ulps of lambda, a start speeding away from a minimum or saddle soon far more. */
#define SSHOPM_LAST_SLACK 8

#define SSHOPM_ENTRIES_LOCAL 0
#define SSHOPM_ENTRIES_GLOBAL 1
#define SSHOPM_ENTRIES_PRIVATE 2

#if SSHOPM_ENTRIES == SSHOPM_ENTRIES_LOCAL
#define ENTRY_SPACE __local
#elif SSHOPM_ENTRIES == SSHOPM_ENTRIES_GLOBAL
#define ENTRY_SPACE __global
#else
#define ENTRY_SPACE
#endif

#define SSHOPM_MAX_ORDER 8
#define SSHOPM_MAX_DIM 8

/* Runtime shape and index tables; the generated kernels have them as literals and ignore these. */
#define SSHOPM_TABLE_PARAMS                                                                                            \
    const int n_rt, const int m_rt, const int U_rt, __global const uchar *rep, __global const VALUE_T *gcoef,          \
        __global const VALUE_T *mult
#define SSHOPM_TABLE_ARGS n_rt, m_rt, U_rt, rep, gcoef, mult

ulong sshopm_mix64(ulong z);
ulong sshopm_mix64(ulong z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
    return z ^ (z >> 31);
}

/* Uniform on [-1, 1) with 24 random bits: exact in float, identical to the host generator. */
VALUE_T sshopm_start_component(ulong seed, long t, int s, int i);
VALUE_T sshopm_start_component(ulong seed, long t, int s, int i) {
    ulong counter = ((ulong)t << 24) ^ ((ulong)s << 4) ^ (ulong)i;
    ulong h = sshopm_mix64(seed ^ sshopm_mix64(counter + 0x9e3779b97f4a7c15UL));
    return (VALUE_T)(uint)(h >> 40) * (VALUE_T)(1.0f / 8388608.0f) - (VALUE_T)1;
}
