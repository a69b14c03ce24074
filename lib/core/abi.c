/* The layout table behind clpk_abi.h: every public struct a binding passes to or reads from the library, with the
 * fields it may touch. A new field only needs a row here when a binding reads or writes it. */
#include "clpk.h"
#include "clpk_abi.h"

#include <string.h>

typedef struct abi_field {
    const char *type, *field;
    size_t offset;
} abi_field;

typedef struct abi_type {
    const char *type;
    size_t size;
} abi_type;

#define T(t) {#t, sizeof(t)}
#define F(t, f) {#t, #f, offsetof(t, f)}

static const abi_type types[] = {
    T(clpk_error), T(clpk_bench_stats), T(clpk_device_info), T(clpk_cache_stats), T(clpk_csr), T(clpk_spmv_tune_report),
    T(clpk_xcorr_shape), T(clpk_life_dataset), T(clpk_life_synth_options), T(clpk_life_encode_options),
    T(clpk_life_fit_options), T(clpk_life_fit_result), T(clpk_sshopm_options), T(clpk_sshopm_eigenpair),
    T(clpk_sshopm_tensor_result), T(clpk_sshopm_result), T(clpk_sshopm_post_options), T(clpk_sshopm_gradients),
    T(clpk_sshopm_odf_options), T(clpk_sshopm_peak_options), T(clpk_sshopm_peaks), T(clpk_sshopm_scan_times),
    T(clpk_sshopm_scan_peaks),
};

static const abi_field fields[] = {
    F(clpk_error, status), F(clpk_error, message),
    F(clpk_bench_stats, runs), F(clpk_bench_stats, median_ms), F(clpk_bench_stats, min_ms), F(clpk_bench_stats, max_ms),
    F(clpk_bench_stats, mean_ms), F(clpk_bench_stats, p10_ms), F(clpk_bench_stats, p90_ms), F(clpk_bench_stats, bytes),
    F(clpk_bench_stats, flops), F(clpk_bench_stats, gbps), F(clpk_bench_stats, gflops),
    F(clpk_device_info, platform_name), F(clpk_device_info, name), F(clpk_device_info, vendor),
    F(clpk_device_info, driver_version), F(clpk_device_info, device_version), F(clpk_device_info, opencl_c_version),
    F(clpk_device_info, kind), F(clpk_device_info, compute_units), F(clpk_device_info, max_clock_mhz),
    F(clpk_device_info, max_work_group_size), F(clpk_device_info, local_mem_bytes),
    F(clpk_device_info, global_mem_bytes), F(clpk_device_info, max_alloc_bytes),
    F(clpk_device_info, max_constant_bytes), F(clpk_device_info, has_fp64),
    F(clpk_device_info, has_int32_global_atomics), F(clpk_device_info, has_int32_local_atomics),
    F(clpk_device_info, has_int64_atomics), F(clpk_device_info, has_subgroups),
    F(clpk_device_info, has_subgroup_shuffle), F(clpk_device_info, simd_width_hint), F(clpk_device_info, is_pocl),
    F(clpk_device_info, global_cache_bytes), F(clpk_device_info, platform_vendor),
    F(clpk_device_info, implementation),
    F(clpk_cache_stats, memory_hits), F(clpk_cache_stats, disk_hits), F(clpk_cache_stats, builds),
    F(clpk_cache_stats, disk_rejected), F(clpk_cache_stats, build_seconds),
    F(clpk_csr, rows), F(clpk_csr, cols), F(clpk_csr, nnz), F(clpk_csr, row_ptr), F(clpk_csr, col), F(clpk_csr, val),
    F(clpk_spmv_tune_report, candidates), F(clpk_spmv_tune_report, rejected), F(clpk_spmv_tune_report, multiplies),
    F(clpk_spmv_tune_report, default_ms), F(clpk_spmv_tune_report, best_ms),
    F(clpk_spmv_tune_report, chose_default), F(clpk_spmv_tune_report, choice),
    F(clpk_xcorr_shape, pattern), F(clpk_xcorr_shape, rows), F(clpk_xcorr_shape, cols), F(clpk_xcorr_shape, n_left),
    F(clpk_xcorr_shape, n_right), F(clpk_xcorr_shape, search_rows), F(clpk_xcorr_shape, search_cols),
    F(clpk_xcorr_shape, precision),
    F(clpk_life_dataset, n_coeffs), F(clpk_life_dataset, n_atoms), F(clpk_life_dataset, n_voxels),
    F(clpk_life_dataset, n_fibers), F(clpk_life_dataset, n_theta), F(clpk_life_dataset, atoms),
    F(clpk_life_dataset, voxels), F(clpk_life_dataset, fibers), F(clpk_life_dataset, phi),
    F(clpk_life_dataset, dictionary), F(clpk_life_dataset, signal), F(clpk_life_dataset, voxel_ijk),
    F(clpk_life_synth_options, grid), F(clpk_life_synth_options, n_fibers),
    F(clpk_life_synth_options, nodes_per_fiber), F(clpk_life_synth_options, n_theta),
    F(clpk_life_synth_options, n_atoms), F(clpk_life_synth_options, b_value), F(clpk_life_synth_options, snr),
    F(clpk_life_synth_options, zero_weight_fraction), F(clpk_life_synth_options, seed),
    F(clpk_life_synth_options, bvec_path), F(clpk_life_synth_options, bval_path),
    F(clpk_life_encode_options, n_atoms), F(clpk_life_encode_options, b0_threshold),
    F(clpk_life_encode_options, use_mask),
    F(clpk_life_fit_options, max_iterations), F(clpk_life_fit_options, tolerance),
    F(clpk_life_fit_options, objective_every), F(clpk_life_fit_options, w_start), F(clpk_life_fit_options, progress),
    F(clpk_life_fit_options, residual_every),
    F(clpk_life_fit_result, iterations), F(clpk_life_fit_result, objective), F(clpk_life_fit_result, seconds),
    F(clpk_life_fit_result, converged),
    F(clpk_sshopm_options, starts), F(clpk_sshopm_options, starts_kind), F(clpk_sshopm_options, seed),
    F(clpk_sshopm_options, find), F(clpk_sshopm_options, shift), F(clpk_sshopm_options, alpha),
    F(clpk_sshopm_options, tol), F(clpk_sshopm_options, xtol), F(clpk_sshopm_options, max_iter),
    F(clpk_sshopm_options, kernel), F(clpk_sshopm_options, params),
    F(clpk_sshopm_eigenpair, lambda), F(clpk_sshopm_eigenpair, x), F(clpk_sshopm_eigenpair, type),
    F(clpk_sshopm_eigenpair, hits), F(clpk_sshopm_eigenpair, residual),
    F(clpk_sshopm_tensor_result, count), F(clpk_sshopm_tensor_result, pairs), F(clpk_sshopm_tensor_result, converged),
    F(clpk_sshopm_tensor_result, capped), F(clpk_sshopm_tensor_result, failed), F(clpk_sshopm_tensor_result, dropped),
    F(clpk_sshopm_tensor_result, polished), F(clpk_sshopm_tensor_result, unconverged),
    F(clpk_sshopm_result, n_tensors), F(clpk_sshopm_result, order), F(clpk_sshopm_result, dim),
    F(clpk_sshopm_result, tensors), F(clpk_sshopm_result, storage),
    F(clpk_sshopm_post_options, lambda_tol), F(clpk_sshopm_post_options, x_tol),
    F(clpk_sshopm_post_options, class_tol), F(clpk_sshopm_post_options, capped_steps),
    F(clpk_sshopm_gradients, volumes), F(clpk_sshopm_gradients, bval), F(clpk_sshopm_gradients, bvec),
    F(clpk_sshopm_gradients, is_b0),
    F(clpk_sshopm_odf_options, order), F(clpk_sshopm_odf_options, smooth), F(clpk_sshopm_odf_options, b0_threshold),
    F(clpk_sshopm_odf_options, bmin), F(clpk_sshopm_odf_options, bmax),
    F(clpk_sshopm_peak_options, max_peaks), F(clpk_sshopm_peak_options, relative_threshold),
    F(clpk_sshopm_peak_options, min_separation_deg), F(clpk_sshopm_peak_options, starts),
    F(clpk_sshopm_peak_options, precision), F(clpk_sshopm_peak_options, device_post),
    F(clpk_sshopm_peak_options, refine), F(clpk_sshopm_peak_options, refine_residual),
    F(clpk_sshopm_peak_options, device_fit),
    F(clpk_sshopm_peaks, voxels), F(clpk_sshopm_peaks, max_peaks), F(clpk_sshopm_peaks, dirs),
    F(clpk_sshopm_peaks, values), F(clpk_sshopm_peaks, count), F(clpk_sshopm_peaks, starts_converged),
    F(clpk_sshopm_peaks, starts_capped), F(clpk_sshopm_peaks, starts_failed),
    F(clpk_sshopm_scan_times, read), F(clpk_sshopm_scan_times, setup), F(clpk_sshopm_scan_times, prep),
    F(clpk_sshopm_scan_times, upload), F(clpk_sshopm_scan_times, fit), F(clpk_sshopm_scan_times, solve),
    F(clpk_sshopm_scan_times, reduce), F(clpk_sshopm_scan_times, select), F(clpk_sshopm_scan_times, download),
    F(clpk_sshopm_scan_times, host), F(clpk_sshopm_scan_times, compute),
    F(clpk_sshopm_scan_peaks, nx), F(clpk_sshopm_scan_peaks, ny), F(clpk_sshopm_scan_peaks, nz),
    F(clpk_sshopm_scan_peaks, peaks), F(clpk_sshopm_scan_peaks, background),
    F(clpk_sshopm_scan_peaks, voxels_fitted), F(clpk_sshopm_scan_peaks, model), F(clpk_sshopm_scan_peaks, geometry),
    F(clpk_sshopm_scan_peaks, device_pipeline), F(clpk_sshopm_scan_peaks, times),
};

#undef T
#undef F

size_t clpk_abi_sizeof(const char *type) {
    if (!type) return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(types[i].type, type) == 0) return types[i].size;
    return 0;
}

size_t clpk_abi_offsetof(const char *type, const char *field) {
    if (!type || !field) return (size_t)-1;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        if (strcmp(fields[i].type, type) == 0 && strcmp(fields[i].field, field) == 0) return fields[i].offset;
    return (size_t)-1;
}
