"""Finding and loading libclpk, and the prototypes of the C functions the package calls.

Search order (the first that exists is loaded; CLPK_LIBRARY, when set, is the only candidate):
  1. $CLPK_LIBRARY: the library file, or a directory holding libclpk.so;
  2. clpk/_lib/libclpk.so* next to this package (a wheel built with the library copied in);
  3. in a source checkout (python/clpk inside the repository): $CLPK_BUILD/libclpk.so, then build/libclpk.so;
  4. the system: ctypes.util.find_library("clpk") (an installed libclpk, e.g. after `cmake --install`).
"""
import ctypes as C
import ctypes.util
import os
from pathlib import Path

from . import _structs as S
from ._errors import Error

_I, _U, _I64, _U64, _D, _SZ = C.c_int, C.c_uint32, C.c_int64, C.c_uint64, C.c_double, C.c_size_t
_P, _S = C.c_void_p, C.c_char_p
_PP = C.POINTER(C.c_void_p)

# name: (restype, argtypes). Opaque objects, struct pointers and cl_mem are void*.
PROTOTYPES = {
    "clpk_status_string": (_S, [_I]),
    "clpk_abi_sizeof": (_SZ, [_S]),
    "clpk_abi_offsetof": (_SZ, [_S, _S]),
    "clpk_context_create": (_I, [_PP, _S]),
    "clpk_context_create_from_queue": (_I, [_PP, _P]),
    "clpk_context_destroy": (None, [_P]),
    "clpk_context_device_info": (_P, [_P]),
    "clpk_context_cl_context": (_P, [_P]),
    "clpk_context_queue": (_P, [_P]),
    "clpk_context_device": (_P, [_P]),
    "clpk_last_error": (_S, [_P]),
    "clpk_list_devices": (_I, [_P, _SZ, C.POINTER(_SZ), _P]),
    "clpk_context_cache_dir": (_S, [_P]),
    "clpk_context_cache_stats": (None, [_P, _P]),
    "clpk_context_profile": (_I, [_P, C.POINTER(_S)]),
    "clpk_profile_level_string": (_S, [_I]),
    "clpk_family_parameters": (_I, [_S, _P, _SZ, _P]),
    # spmv
    "clpk_spmv_plan_create": (_I, [_P, _P, _I, _S, _S, _PP]),
    "clpk_spmv_plan_destroy": (None, [_P]),
    "clpk_spmv": (_I, [_P, _D, _P, _SZ, _D, _P, _SZ, _U, _P, _P]),
    "clpk_spmv_host": (_I, [_P, _D, _P, _D, _P]),
    "clpk_spmv_plan_check": (_I, [_P]),
    "clpk_spmv_plan_describe": (None, [_P, _P, _SZ]),
    "clpk_spmv_plan_footprint": (_U64, [_P]),
    "clpk_spmv_plan_rows": (C.c_int32, [_P]),
    "clpk_spmv_plan_cols": (C.c_int32, [_P]),
    "clpk_spmv_plan_precision": (_I, [_P]),
    "clpk_spmv_plan_bench": (_I, [_P, _I, _I, _P]),
    "clpk_spmv_plan_tune": (_I, [_P, _P, _I, _I, _PP, _P]),
    "clpk_spmv_generate": (_I, [_S, _U64, _P, _P]),
    "clpk_csr_free": (None, [_P]),
    # xcorr
    "clpk_xcorr_pattern_parse": (_I, [_S, C.POINTER(_I)]),
    "clpk_xcorr_pattern_name": (_S, [_I]),
    "clpk_xcorr_output_count": (_SZ, [_P]),
    "clpk_xcorr_output_rows": (_I, [_P]),
    "clpk_xcorr_output_cols": (_I, [_P]),
    "clpk_xcorr_plan_create": (_I, [_P, _P, _S, _S, _PP]),
    "clpk_xcorr_plan_destroy": (None, [_P]),
    "clpk_xcorr_plan_algorithm": (_S, [_P]),
    "clpk_xcorr_plan_params": (None, [_P, _P, _SZ]),
    "clpk_xcorr_execute": (_I, [_P, _P, _SZ, _P, _SZ, _P, _SZ, _U, _P, _P]),
    "clpk_xcorr_execute_host": (_I, [_P, _P, _P, _P]),
    # life
    "clpk_life_dataset_load": (_I, [_S, _P, _P]),
    "clpk_life_dataset_validate": (_I, [_P, _P]),
    "clpk_life_dataset_free": (None, [_P]),
    "clpk_life_synth_defaults": (_I, [_S, _P]),
    "clpk_life_synth": (_I, [_P, _P, _PP, _P]),
    "clpk_life_encode": (_I, [_S, _S, _S, _S, _P, _P, _P]),
    "clpk_life_plan_create": (_I, [_P, _P, _I, _S, _S, _PP]),
    "clpk_life_plan_destroy": (None, [_P]),
    "clpk_life_plan_describe": (None, [_P, _P, _SZ]),
    "clpk_life_dsc_host": (_I, [_P, _P, _P]),
    "clpk_life_wc_host": (_I, [_P, _P, _P]),
    "clpk_life_dsc": (_I, [_P, _P, _P, _U, _P, _P]),
    "clpk_life_wc": (_I, [_P, _P, _P, _U, _P, _P]),
    "clpk_life_fit": (_I, [_P, _P, _P, _P]),
    # sshopm
    "clpk_sshopm_unique_count": (_I, [_I, _I]),
    "clpk_sshopm_options_default": (None, [_P]),
    "clpk_sshopm_plan_create": (_I, [_P, _I, _I, _I, _I64, _P, _PP]),
    "clpk_sshopm_plan_destroy": (None, [_P]),
    "clpk_sshopm_plan_describe": (None, [_P, _P, _SZ]),
    "clpk_sshopm_plan_params": (None, [_P, _P, _SZ]),
    "clpk_sshopm_post_options_default": (None, [_P]),
    "clpk_sshopm_solve_host": (_I, [_P, _P, _I64, _P, _P]),
    "clpk_sshopm_solve_device": (_I, [_P, _P, _I64, _P, _I, _P]),
    "clpk_sshopm_polish": (_I, [_P, _P, _I, _D, _P]),
    "clpk_sshopm_result_free": (None, [_P]),
    "clpk_sshopm_type_name": (_S, [_I]),
    "clpk_sshopm_compress_dense": (_I, [_I, _I, _P, _I64, _D, _P, _P]),
    # sshopm: diffusion-MRI scans
    "clpk_sshopm_gradients_read": (_I, [_S, _S, _D, _P, _P]),
    "clpk_sshopm_gradients_free": (None, [_P]),
    "clpk_sshopm_odf_options_default": (None, [_P]),
    "clpk_sshopm_peak_options_default": (None, [_P]),
    "clpk_sshopm_odf_model_create": (_I, [_P, _P, _PP, _P]),
    "clpk_sshopm_odf_model_destroy": (None, [_P]),
    "clpk_sshopm_odf_model_describe": (None, [_P, _P, _SZ]),
    "clpk_sshopm_odf_fit": (_I, [_P, _P, _I64, _P, _P, _P, C.POINTER(_I64), _P]),
    "clpk_sshopm_tensor_peaks": (_I, [_P, _I, _P, _I64, _P, _P, _P]),
    "clpk_sshopm_peaks_free": (None, [_P]),
    "clpk_sshopm_dmri_scan": (_I, [_P, _S, _S, _S, _S, _P, _P, _P]),
    "clpk_sshopm_dmri_scan_write": (_I, [_S, _P, _I, _P]),
    "clpk_sshopm_scan_peaks_free": (None, [_P]),
}

_lib = None
_path = None


def _candidates():
    env = os.environ.get("CLPK_LIBRARY")
    if env:
        p = Path(env)
        return [p / "libclpk.so" if p.is_dir() else p], True
    here = Path(__file__).resolve().parent
    found = sorted((here / "_lib").glob("libclpk.so*"))
    root = here.parent.parent
    if (root / "lib" / "include" / "clpk.h").is_file():
        builds = [os.environ["CLPK_BUILD"]] if os.environ.get("CLPK_BUILD") else []
        found += [Path(b) / "libclpk.so" for b in builds + [str(root / "build")]]
    name = ctypes.util.find_library("clpk")
    if name:
        found.append(name)
    return found, False


def load():
    """The loaded library (loads and checks it on first use). Raises clpk.Error when none can be loaded."""
    global _lib, _path
    if _lib is not None:
        return _lib
    candidates, explicit = _candidates()
    tried = []
    for cand in candidates:
        if isinstance(cand, Path) and not cand.exists():
            tried.append("%s (absent)" % cand)
            continue
        try:
            lib = C.CDLL(str(cand))
        except OSError as e:
            tried.append("%s (%s)" % (cand, e))
            if explicit:
                break
            continue
        for fname, (res, args) in PROTOTYPES.items():
            try:
                fn = getattr(lib, fname)
            except AttributeError:
                raise Error(6, "%s lacks %s: the library is older than the Python package" % (cand, fname)) from None
            fn.restype, fn.argtypes = res, args
        S.verify(lib, str(cand))
        _lib, _path = lib, str(cand)
        return lib
    hint = ("set CLPK_LIBRARY to build/libclpk.so (cmake --build build), or install the library "
            "(cmake --install build && ldconfig)")
    raise Error(3, "libclpk not found; tried: %s. %s" % ("; ".join(map(str, tried)) or "nothing", hint))


def library_path():
    """Path of the loaded libclpk (loads it if needed)."""
    load()
    return _path


def text(b):
    return b.decode("utf-8", "replace") if b else ""


def status_text(status):
    return text(load().clpk_status_string(status))


def check(status, ctx_handle=None, err=None, what=""):
    """Raises clpk.Error for a non-zero status, with the context's last error or the clpk_error's message."""
    if status == 0:
        return
    lib = load()
    if err is not None and err.message:
        msg = text(err.message)
    elif ctx_handle:
        msg = text(lib.clpk_last_error(ctx_handle))
    else:
        msg = ""
    if what and not msg:
        msg = what
    raise Error(status, msg, status_text(status))


def new_error():
    return S.new(S.clpk_error)


def describe(fn, handle, size=1024):
    buf = C.create_string_buffer(size)
    fn(handle, buf, size)
    return text(buf.value)
