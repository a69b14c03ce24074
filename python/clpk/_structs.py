"""ctypes mirrors of the public C structs the package passes to or reads from libclpk.

Each mirror is checked field by field against the library's own answer (clpk_abi_sizeof / clpk_abi_offsetof,
lib/include/clpk_abi.h) when the library is loaded, so a package and a library that disagree fail at load with a
message instead of corrupting memory. A struct the library has grown (new fields at the end) is still usable:
instances are allocated at the library's size (``new``) and arrays it returns are walked with its stride (``at``).
"""
import ctypes as C

from ._errors import Error

c_int, c_uint, c_int32, c_int64, c_uint64 = C.c_int, C.c_uint, C.c_int32, C.c_int64, C.c_uint64
c_double, c_size_t, c_char_p, c_void_p = C.c_double, C.c_size_t, C.c_char_p, C.c_void_p
P_int32, P_int64, P_double = C.POINTER(C.c_int32), C.POINTER(C.c_int64), C.POINTER(C.c_double)


class clpk_error(C.Structure):
    _fields_ = [("status", c_int), ("message", C.c_char * 1024)]


class clpk_bench_stats(C.Structure):
    _fields_ = [("runs", c_int), ("median_ms", c_double), ("min_ms", c_double), ("max_ms", c_double),
                ("mean_ms", c_double), ("p10_ms", c_double), ("p90_ms", c_double), ("bytes", c_double),
                ("flops", c_double), ("gbps", c_double), ("gflops", c_double)]


class clpk_device_info(C.Structure):
    _fields_ = [("platform_name", C.c_char * 128), ("name", C.c_char * 128), ("vendor", C.c_char * 128),
                ("driver_version", C.c_char * 128), ("device_version", C.c_char * 128),
                ("opencl_c_version", C.c_char * 128), ("kind", c_int), ("compute_units", c_uint),
                ("max_clock_mhz", c_uint), ("max_work_group_size", c_size_t), ("local_mem_bytes", c_uint64),
                ("global_mem_bytes", c_uint64), ("max_alloc_bytes", c_uint64), ("max_constant_bytes", c_uint64),
                ("has_fp64", c_int), ("has_int32_global_atomics", c_int), ("has_int32_local_atomics", c_int),
                ("has_int64_atomics", c_int), ("has_subgroups", c_int), ("has_subgroup_shuffle", c_int),
                ("simd_width_hint", c_uint), ("is_pocl", c_int), ("global_cache_bytes", c_uint64),
                ("platform_vendor", C.c_char * 128), ("implementation", C.c_char * 16)]


class clpk_cache_stats(C.Structure):
    _fields_ = [("memory_hits", c_uint), ("disk_hits", c_uint), ("builds", c_uint), ("disk_rejected", c_uint),
                ("build_seconds", c_double)]


class clpk_csr(C.Structure):
    _fields_ = [("rows", c_int32), ("cols", c_int32), ("nnz", c_int64), ("row_ptr", P_int64), ("col", P_int32),
                ("val", P_double)]


class clpk_spmv_tune_report(C.Structure):
    _fields_ = [("candidates", c_int), ("rejected", c_int), ("multiplies", c_int), ("default_ms", c_double),
                ("best_ms", c_double), ("chose_default", c_int), ("choice", C.c_char * 512)]


class clpk_xcorr_shape(C.Structure):
    _fields_ = [("pattern", c_int), ("rows", c_int), ("cols", c_int), ("n_left", c_int), ("n_right", c_int),
                ("search_rows", c_int), ("search_cols", c_int), ("precision", c_int)]


class clpk_life_dataset(C.Structure):
    _fields_ = [("n_coeffs", c_int64), ("n_atoms", c_int32), ("n_voxels", c_int32), ("n_fibers", c_int32),
                ("n_theta", c_int32), ("atoms", P_int32), ("voxels", P_int32), ("fibers", P_int32),
                ("phi", P_double), ("dictionary", P_double), ("signal", P_double), ("voxel_ijk", P_int32)]


class clpk_life_synth_options(C.Structure):
    _fields_ = [("grid", c_int * 3), ("n_fibers", c_int), ("nodes_per_fiber", c_int), ("n_theta", c_int),
                ("n_atoms", c_int), ("b_value", c_double), ("snr", c_double), ("zero_weight_fraction", c_double),
                ("seed", c_uint64), ("bvec_path", c_char_p), ("bval_path", c_char_p)]


class clpk_life_encode_options(C.Structure):
    _fields_ = [("n_atoms", c_int), ("b0_threshold", c_double), ("use_mask", c_int)]


class clpk_life_fit_options(C.Structure):
    _fields_ = [("max_iterations", c_int), ("tolerance", c_double), ("objective_every", c_int),
                ("w_start", P_double), ("progress", c_int), ("residual_every", c_int)]


class clpk_life_fit_result(C.Structure):
    _fields_ = [("iterations", c_int), ("objective", c_double), ("seconds", c_double), ("converged", c_int)]


class clpk_sshopm_options(C.Structure):
    _fields_ = [("starts", c_int), ("starts_kind", c_int), ("seed", c_uint64), ("find", c_int), ("shift", c_int),
                ("alpha", c_double), ("tol", c_double), ("xtol", c_double), ("max_iter", c_int),
                ("kernel", c_char_p), ("params", c_char_p)]


SSHOPM_MAX_DIM = 8


class clpk_sshopm_eigenpair(C.Structure):
    _fields_ = [("lambda_", c_double), ("x", c_double * SSHOPM_MAX_DIM), ("type", c_int), ("hits", c_int),
                ("residual", c_double)]


class clpk_sshopm_tensor_result(C.Structure):
    _fields_ = [("count", c_int), ("pairs", c_void_p), ("converged", c_int), ("capped", c_int), ("failed", c_int),
                ("dropped", c_int), ("polished", c_int), ("unconverged", c_int)]


class clpk_sshopm_result(C.Structure):
    _fields_ = [("n_tensors", c_int64), ("order", c_int), ("dim", c_int), ("tensors", c_void_p),
                ("storage", c_void_p)]


class clpk_sshopm_post_options(C.Structure):
    _fields_ = [("lambda_tol", c_double), ("x_tol", c_double), ("class_tol", c_double),
                ("capped_steps", c_int)]


class clpk_sshopm_gradients(C.Structure):
    _fields_ = [("volumes", c_int), ("bval", P_double), ("bvec", P_double), ("is_b0", P_int32)]


class clpk_sshopm_odf_options(C.Structure):
    _fields_ = [("order", c_int), ("smooth", c_double), ("b0_threshold", c_double), ("bmin", c_double),
                ("bmax", c_double)]


class clpk_sshopm_peak_options(C.Structure):
    _fields_ = [("max_peaks", c_int), ("relative_threshold", c_double), ("min_separation_deg", c_double),
                ("starts", c_int), ("precision", c_int), ("device_post", c_int), ("refine", c_int),
                ("refine_residual", c_double), ("device_fit", c_int)]


class clpk_sshopm_peaks(C.Structure):
    _fields_ = [("voxels", c_int64), ("max_peaks", c_int), ("dirs", c_void_p), ("values", c_void_p),
                ("count", c_void_p), ("starts_converged", c_int64), ("starts_capped", c_int64),
                ("starts_failed", c_int64)]


SCAN_STAGES = ("read", "setup", "prep", "upload", "fit", "solve", "reduce", "select", "download", "host", "compute")


class clpk_sshopm_scan_times(C.Structure):
    _fields_ = [(name, c_double) for name in SCAN_STAGES]


class clpk_sshopm_scan_peaks(C.Structure):
    _fields_ = [("nx", c_int32), ("ny", c_int32), ("nz", c_int32), ("peaks", clpk_sshopm_peaks),
                ("background", c_void_p), ("voxels_fitted", c_int64), ("model", C.c_char * 256),
                ("geometry", c_void_p), ("device_pipeline", c_int), ("times", clpk_sshopm_scan_times)]


MIRRORS = (clpk_error, clpk_bench_stats, clpk_device_info, clpk_cache_stats, clpk_csr, clpk_spmv_tune_report,
           clpk_xcorr_shape, clpk_life_dataset, clpk_life_synth_options, clpk_life_encode_options,
           clpk_life_fit_options, clpk_life_fit_result, clpk_sshopm_options, clpk_sshopm_eigenpair,
           clpk_sshopm_tensor_result, clpk_sshopm_result, clpk_sshopm_post_options, clpk_sshopm_gradients,
           clpk_sshopm_odf_options, clpk_sshopm_peak_options, clpk_sshopm_peaks, clpk_sshopm_scan_times,
           clpk_sshopm_scan_peaks)

_lib_size = {}


def verify(lib, path):
    """Compares every mirror with the library's layout table; raises clpk.Error on the first disagreement."""
    for cls in MIRRORS:
        name = cls.__name__.encode()
        size = lib.clpk_abi_sizeof(name)
        if size == 0:
            raise Error(13, "%s does not describe struct %s (library older than the Python package?)"
                        % (path, cls.__name__))
        if size < C.sizeof(cls):
            raise Error(13, "%s: struct %s is %d bytes in the library, %d in the Python package: rebuild one of them"
                        % (path, cls.__name__, size, C.sizeof(cls)))
        for fname, _ in cls._fields_:
            cname = fname.rstrip("_")  # 'lambda_' mirrors C's 'lambda'
            off = lib.clpk_abi_offsetof(name, cname.encode())
            if off != getattr(cls, fname).offset:
                raise Error(13, "%s: %s.%s is at offset %s in the library, %d in the Python package"
                            % (path, cls.__name__, cname, "unknown" if off == C.c_size_t(-1).value else off,
                               getattr(cls, fname).offset))
        _lib_size[cls] = size


def new(cls):
    """A zeroed instance backed by a buffer of the library's size (which may exceed the mirror's)."""
    size = max(_lib_size.get(cls, 0), C.sizeof(cls))
    return cls.from_buffer(bytearray(size))


def at(cls, address, index):
    """Element `index` of a C array of `cls` at `address`, with the library's stride."""
    stride = max(_lib_size.get(cls, 0), C.sizeof(cls))
    return cls.from_address(address + index * stride)


def new_array(cls, n):
    """A zeroed buffer for a C array of n `cls` at the library's stride (read its elements with ``at``)."""
    return C.create_string_buffer(max(n, 1) * max(_lib_size.get(cls, 0), C.sizeof(cls)))
