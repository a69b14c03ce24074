/* lib/xcorr/xcorr_fused_common.h: what the two fused FFT paths share (one-to-one: xcorr_fused.c; the other patterns:
 * xcorr_fused_many.c): padded sizes, local-memory sizes, twiddle tables, the program, checked launches. */
#ifndef CLPK_XCORR_FUSED_COMMON_H
#define CLPK_XCORR_FUSED_COMMON_H

#include "clpk_internal.h"
#include "clpk_xcorr.h"

/* Local-memory gaps (cl/xcorr_fused_fft.cl LX): shift 4 = one gap per 16 complex values (fused_gaps=1, default), 31 =
 * none. */
#define XCORR_FUSED_GAPS_SHIFT 4u
#define XCORR_FUSED_NO_GAPS_SHIFT 31u

/* Slots a local buffer of t complex values takes with gap shift `sh` (cl/xcorr_fused_fft.cl padded_len). */
size_t xcorr_fused_padded_len(size_t t, unsigned sh);

/* Padded transform sizes: pr >= R + h_r, pc >= C + h_c (even), both 2^i 3^j, or 2^i when `pow2`. */
void xcorr_fused_padded(const clpk_xcorr_shape *shape, int pow2, size_t *pr, size_t *pc);

/* Stages of a line of length p (2^a 3^b) whose largest power-of-two radix is `radix`: b radix-3 stages and
 * ceil(a / log2 radix) others. */
int xcorr_fused_stages(size_t p, int radix);

/* Twiddle table exp(-2 pi i t / n), t < n, in the precision of `elem` bytes per real, into a new buffer. */
clpk_status xcorr_fused_twiddles(clpk_context *ctx, size_t n, size_t elem, cl_mem *out);

/* Builds (or finds) the program of `source` (a cl/ name) behind the shared FFTs, for the shape's precision and the
 * largest radix of an FFT stage (4, 8 or 16). */
clpk_status xcorr_fused_program(clpk_context *ctx, const char *source, clpk_precision precision, int max_radix,
                                cl_program *out);

/* Refuses a kernel whose work-group size limit is below `wg` or whose own local memory plus `local_bytes` exceeds the
 * device's (UNSUPPORTED, with a message naming the kernel). */
clpk_status xcorr_fused_check_kernel(clpk_context *ctx, cl_kernel k, size_t wg, size_t local_bytes, const char *name);

/* Refuses (UNSUPPORTED) a command queue that runs out of order: the launches carry no events between them. */
clpk_status xcorr_fused_check_queue(clpk_context *ctx);

/* INVALID_ARGUMENT unless buffer `m` holds `count` values of `elem` bytes from element `offset`. */
clpk_status xcorr_fused_check_size(clpk_context *ctx, cl_mem m, size_t offset, size_t count, size_t elem,
                                   const char *what);

/* Enqueues `groups` work-groups of `wg` items of `k` on the context's queue. */
clpk_status xcorr_fused_launch(clpk_context *ctx, cl_kernel k, size_t groups, size_t wg, cl_uint n_wait,
                               const cl_event *wait, cl_event *ev, const char *name);

#endif
