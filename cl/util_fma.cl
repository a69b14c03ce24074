/* FMA-peak probe: each work-item runs FMA_CHAINS independent dependent chains a = fma(a, b, c), FMA_UNROLL steps per
 * loop trip, so the loop overhead is ~3 instructions per FMA_CHAINS * FMA_UNROLL FMAs and several chains hide the FMA
 * latency. b and c are run-time arguments (nothing folds); with |b| < 1 the chains settle at c / (1 - b), so no
 * overflow. The chains' sum is written per work-item: the host replays it with fmaf/fma as a checksum.
 * Build options: -DVALUE_T=float|double, -DFMA_FP64=0|1. */
#ifndef VALUE_T
#define VALUE_T float
#endif
#if defined(FMA_FP64) && FMA_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define FMA_CHAINS 8
#define FMA_UNROLL 16

#define FMA_STEP                                                                                                       \
    a0 = fma(a0, b, c);                                                                                                \
    a1 = fma(a1, b, c);                                                                                                \
    a2 = fma(a2, b, c);                                                                                                \
    a3 = fma(a3, b, c);                                                                                                \
    a4 = fma(a4, b, c);                                                                                                \
    a5 = fma(a5, b, c);                                                                                                \
    a6 = fma(a6, b, c);                                                                                                \
    a7 = fma(a7, b, c);
#define FMA_STEP4 FMA_STEP FMA_STEP FMA_STEP FMA_STEP

__kernel void clpk_fma_peak(const int trips, const VALUE_T b, const VALUE_T c, __global VALUE_T *out) {
    const uint g = (uint)get_global_id(0);
    /* distinct, exactly representable starts per work-item and chain */
    const VALUE_T base = (VALUE_T)(g & 1023u) * (VALUE_T)(1.0 / 1024.0);
    VALUE_T a0 = base, a1 = base + (VALUE_T)1, a2 = base + (VALUE_T)2, a3 = base + (VALUE_T)3;
    VALUE_T a4 = base - (VALUE_T)1, a5 = base - (VALUE_T)2, a6 = base - (VALUE_T)3, a7 = base - (VALUE_T)4;
    for (int t = 0; t < trips; ++t) {
        FMA_STEP4 FMA_STEP4 FMA_STEP4 FMA_STEP4
    }
    out[g] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}
