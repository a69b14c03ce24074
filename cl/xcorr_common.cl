/* Shared part of the direct cross-correlation kernels (prepended to each variant's source).
 * out[o][k][l] = sum_ij left[pl(o)][i + dk][j + dl] * right[pr(o)][i][j], dk = k - (srows-1)/2, dl = l - (scols-1)/2
 * (the full output is the window srows = 2*rows-1). Defines: VALUE_T float|double, VALUE_IS_DOUBLE 0|1. */
#ifndef VALUE_T
#define VALUE_T float
#endif
#ifndef VALUE_IS_DOUBLE
#define VALUE_IS_DOUBLE 0
#endif
#if VALUE_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef VALUE_T value_t;

#define XCORR_ONE_TO_ONE 1
#define XCORR_ONE_TO_MANY 2
#define XCORR_N_TO_MN 3
#define XCORR_N_TO_M 4

/* Every direct kernel starts with these arguments, in this order (the host sets them once per plan). */
#define XCORR_ARGS                                                                                                     \
    global const value_t *left, ulong left_off, global const value_t *right, ulong right_off, global value_t *out,    \
        ulong out_off, int rows, int cols, int srows, int scols, int n_left, int n_right, int pattern, int n_out

/* This work-group's and work-item's index over the whole launch, in 64 bits. The host adds a second dimension where
 * one would pass 2^31 items (lib/xcorr/xcorr_launch.h: NVIDIA's get_global_id wraps there); the groups past the last
 * of that form exit at once. */
inline ulong xcorr_group(void) { return (ulong)get_group_id(1) * (ulong)get_num_groups(0) + (ulong)get_group_id(0); }
inline ulong xcorr_item(void) { return xcorr_group() * (ulong)get_local_size(0) + (ulong)get_local_id(0); }

/* The left and right matrix of output matrix o. */
inline int xcorr_left_of(int pattern, int o, int n_left, int n_right) {
    return pattern == XCORR_ONE_TO_MANY ? 0
         : pattern == XCORR_N_TO_MN     ? o % n_left
         : pattern == XCORR_N_TO_M      ? o / n_right
                                        : o;
}
inline int xcorr_right_of(int pattern, int o, int n_right) { return pattern == XCORR_N_TO_M ? o % n_right : o; }
