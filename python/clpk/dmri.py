"""clpk.dmri_peaks / clpk.sshopm_peaks: fibre peaks of diffusion-MRI scans (CSA Q-ball ODF -> symmetric tensor ->
its maxima by SS-HOPM -> dipy's selection) and peaks of symmetric tensors, in dipy's array layout (docs/sshopm.md,
"Diffusion-MRI scans")."""
import ctypes as C
import gzip
import os
import struct

import numpy as np

from . import _lib, _structs as S
from ._convert import positive_int, precision as _precision, real_array, scalar
from .sshopm import to_unique, unique_count

_PATH = (str, bytes, os.PathLike)


def _options(o, values):
    """Sets each non-None (field, value, kind) on the struct o; kind: float, int or a dict of names."""
    for field, v, kind, name in values:
        if v is None:
            continue
        if kind is float:
            v = scalar(v, name)
        elif kind is int:
            v = positive_int(v, name)
        elif isinstance(kind, dict):
            if v not in kind:
                raise ValueError("%s must be one of %s, not %r" % (name, ", ".join(map(repr, kind)), v))
            v = kind[v]
        setattr(o, field, v)


def _peak_options(lib, max_peaks, relative_threshold, min_separation, starts, precision, post, fit=None,
                  refine=None, refine_residual=None):
    po = S.new(S.clpk_sshopm_peak_options)
    lib.clpk_sshopm_peak_options_default(C.byref(po))
    po.precision = _precision(precision)
    _options(po, [("max_peaks", max_peaks, int, "max_peaks"),
                  ("relative_threshold", relative_threshold, float, "relative_threshold"),
                  ("min_separation_deg", min_separation, float, "min_separation"),
                  ("starts", starts, int, "starts"),
                  ("device_post", post, {"device": 1, "host": 0}, "post"),
                  ("device_fit", fit, {"device": 1, "host": 0}, "fit"),
                  ("refine", None if refine is None else int(bool(refine)), None, "refine"),
                  ("refine_residual", refine_residual, float, "refine_residual")])
    return po


def _copy(address, ctype, n):
    """A NumPy copy of n ctype values at address (zeros when there are none)."""
    if n == 0 or not address:
        return np.zeros(n, dtype={C.c_float: np.float32, C.c_int32: np.int32}[ctype])
    return np.ctypeslib.as_array((ctype * n).from_address(address)).copy()


def _peaks_arrays(p, shape):
    """(dirs, values, count) of a clpk_sshopm_peaks as NumPy copies; shape (X, Y, Z) puts the voxels (x fastest in
    the library) on a grid, None keeps them as one axis."""
    n, K = int(p.voxels), int(p.max_peaks)
    dirs = _copy(p.dirs, C.c_float, n * K * 3).reshape(n, K, 3)
    values = _copy(p.values, C.c_float, n * K).reshape(n, K)
    count = _copy(p.count, C.c_int32, n)
    if shape is not None:
        X, Y, Z = shape
        dirs = np.ascontiguousarray(dirs.reshape(Z, Y, X, K, 3).transpose(2, 1, 0, 3, 4))
        values = np.ascontiguousarray(values.reshape(Z, Y, X, K).transpose(2, 1, 0, 3))
        count = np.ascontiguousarray(count.reshape(Z, Y, X).transpose(2, 1, 0))
    return dirs, values, count


class TensorPeaks:
    """Peaks of a batch of tensors: ``peak_dirs`` (T, K, 3) unit vectors, largest value first, zeros where there is
    no peak; ``peak_values`` (T, K) f at each peak (0: none); ``peak_counts`` (T,); ``starts_converged`` /
    ``starts_capped`` / ``starts_failed`` over all SS-HOPM starts."""

    def __init__(self, peaks, shape=None):
        self.peak_dirs, self.peak_values, self.peak_counts = _peaks_arrays(peaks, shape)
        self.starts_converged = int(peaks.starts_converged)
        self.starts_capped = int(peaks.starts_capped)
        self.starts_failed = int(peaks.starts_failed)

    def __iter__(self):  # dirs, values = clpk.sshopm_peaks(...)
        return iter((self.peak_dirs, self.peak_values))

    def __repr__(self):
        return "<%s %s, %d peaks>" % (type(self).__name__, "x".join(map(str, self.peak_values.shape)),
                                      int(self.peak_counts.sum()))


def sshopm_peaks(ctx, tensors, *, order, dim=3, active=None, max_peaks=None, relative_threshold=None,
                 min_separation=None, starts=None, precision="f32", post=None, refine=False, refine_residual=None):
    """Local maxima of f(x) = T x^m on the unit sphere per tensor (even order 2..8, dim 3), selected by dipy's rules
    (f - f0 >= relative_threshold (f_max - f0), at least min_separation degrees apart as axes, at most max_peaks K;
    library defaults 0.5, 25, 5). ``tensors``: (T, U) unique entries or (T, 3, ..., 3) dense; ``active`` (T,) bools
    (None: all); ``starts`` SS-HOPM starts per tensor (64); ``post`` "device" (default) or "host" de-duplication;
    ``refine``: directions and weights of a low-rank fit (sums of rank-one fibre terms, orders 4 and 6).
    Returns a TensorPeaks: ``peak_dirs`` (T, K, 3), ``peak_values`` (T, K), ``peak_counts`` (T,) (unpacks as
    ``dirs, values``)."""
    lib = _lib.load()
    order, dim = positive_int(order, "order", 2), positive_int(dim, "dim", 2)
    if dim != 3 or order % 2 or order > 8:
        raise ValueError("sshopm_peaks: tensors of dimension 3 and even order 2..8 (got order %d, dim %d); "
                         "clpk.sshopm gives every eigenpair of other shapes" % (order, dim))
    A = to_unique(tensors, order, dim)
    T = A.shape[0]
    act = None
    if active is not None:
        act = np.ascontiguousarray(np.asarray(active) != 0, dtype=np.uint8)
        if act.shape != (T,):
            raise ValueError("active: expected shape (%d,), got %s" % (T, act.shape))
    po = _peak_options(lib, max_peaks, relative_threshold, min_separation, starts, precision, post, refine=refine,
                       refine_residual=refine_residual)
    p = S.new(S.clpk_sshopm_peaks)
    _lib.check(lib.clpk_sshopm_tensor_peaks(ctx.handle, order, A.ctypes.data, T,
                                            None if act is None else act.ctypes.data, C.byref(po), C.byref(p)),
               ctx.handle)
    try:
        return TensorPeaks(p)
    finally:
        lib.clpk_sshopm_peaks_free(C.byref(p))


class DmriPeaks:
    """Fibre peaks of a scan in dipy's layout: ``peak_dirs`` (X, Y, Z, K, 3) unit vectors (largest value first,
    zeros where there is no peak), ``peak_values`` (X, Y, Z, K), ``peak_counts`` (X, Y, Z), ``background``
    (X, Y, Z) mean b = 0 signal; ``voxels_fitted`` (in the mask with a usable signal), ``starts_converged`` /
    ``starts_capped`` / ``starts_failed``, ``model`` (the ODF model's description), ``device_pipeline`` (fit and
    selection ran on the device), ``times`` (seconds per stage; file input only). ``write(prefix)`` writes
    PREFIX_peak_dirs.nii.gz and PREFIX_peak_values.nii.gz (and PREFIX_peaks.png for file input)."""

    def __init__(self):
        self._scan = None
        self.affine = None

    @classmethod
    def _from_scan(cls, scan):
        self = cls()
        self._scan = scan
        shape = (int(scan.nx), int(scan.ny), int(scan.nz))
        tp = TensorPeaks(scan.peaks, shape)
        self._set(tp, _copy(scan.background, C.c_float, int(np.prod(shape))).reshape(shape[::-1]).T.copy(),
                  int(scan.voxels_fitted), _lib.text(scan.model), bool(scan.device_pipeline))
        self.times = {name: float(getattr(scan.times, name)) for name in S.SCAN_STAGES}
        return self

    def _set(self, tp, background, fitted, model, device):
        self.peak_dirs, self.peak_values, self.peak_counts = tp.peak_dirs, tp.peak_values, tp.peak_counts
        self.starts_converged, self.starts_capped = tp.starts_converged, tp.starts_capped
        self.starts_failed = tp.starts_failed
        self.background, self.voxels_fitted, self.model, self.device_pipeline = background, fitted, model, device
        self.times = {}

    @property
    def shape(self):
        return self.peak_values.shape[:3]

    def write(self, prefix, *, slice=-1, png=True):
        """PREFIX_peak_dirs.nii.gz (X x Y x Z x K x 3) and PREFIX_peak_values.nii.gz (X x Y x Z x K), float32
        NIfTI-1. File input: through the library, with the scan's geometry, and PREFIX_peaks.png (axial ``slice``,
        -1: the middle one) unless ``png`` is False. Array input: the ``affine`` given to dmri_peaks (else 1 mm
        voxels) as the sform, no PNG."""
        prefix = os.fsdecode(prefix)
        if self._scan is not None:
            err = _lib.new_error()
            sl = int(slice) if png else -2
            _lib.check(_lib.load().clpk_sshopm_dmri_scan_write(prefix.encode(), C.byref(self._scan), sl,
                                                               C.byref(err)), err=err)
            return
        write_nifti(prefix + "_peak_dirs.nii.gz", self.peak_dirs, self.affine)
        write_nifti(prefix + "_peak_values.nii.gz", self.peak_values, self.affine)

    def asdict(self):
        keys = ("peak_dirs", "peak_values", "peak_counts", "background", "voxels_fitted", "starts_converged",
                "starts_capped", "starts_failed", "model", "device_pipeline", "times")
        return {k: getattr(self, k) for k in keys}

    def close(self):
        """Frees the library's copy (kept for write() of file input)."""
        if self._scan is not None:
            _lib.load().clpk_sshopm_scan_peaks_free(C.byref(self._scan))
            self._scan = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<DmriPeaks %s x K=%d, %d voxels fitted, %s>" % ("x".join(map(str, self.shape)),
                                                              self.peak_values.shape[3], self.voxels_fitted,
                                                              self.model)


def _gradients_from_arrays(bvals, bvecs, volumes, b0_threshold):
    """A clpk_sshopm_gradients over NumPy arrays, with clpk_sshopm_gradients_read's checks."""
    b = real_array(bvals, "bvals").ravel()
    if b.size != volumes:
        raise ValueError("bvals: %d b-values, but dwi has %d volumes" % (b.size, volumes))
    if not np.all(np.isfinite(b)) or np.any(b < 0):
        i = int(np.flatnonzero(~(np.isfinite(b) & (b >= 0)))[0])
        raise ValueError("bvals: b-value %d is %g (expected finite, >= 0)" % (i, b[i]))
    v = np.array(bvecs, dtype=np.float64)  # a copy: normalised below
    if v.shape == (3, volumes) and volumes != 3:
        v = v.T  # FSL's 3 x N
    if v.shape != (volumes, 3):
        raise ValueError("bvecs: expected (%d, 3) or (3, %d) for %d volumes, got shape %s"
                         % (volumes, volumes, volumes, v.shape))
    b0 = b <= b0_threshold
    if not b0.any():
        raise ValueError("bvals: no b = 0 volume (b <= %g) to normalise the signal with" % b0_threshold)
    if b0.all():
        raise ValueError("bvals: no diffusion-weighted volume (all b <= %g)" % b0_threshold)
    v[b0] = 0
    with np.errstate(invalid="ignore", over="ignore"):
        norm = np.sqrt((v ** 2).sum(axis=1))
    bad = ~b0 & ~(np.isfinite(norm) & (norm > 1e-6))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError("bvecs: vector %d (b = %g) is %s; diffusion-weighted volumes need finite non-zero vectors"
                         % (i, b[i], v[i]))
    v[~b0] /= norm[~b0, None]
    v = np.ascontiguousarray(v)
    is_b0 = np.ascontiguousarray(b0, dtype=np.int32)
    g = S.new(S.clpk_sshopm_gradients)
    g.volumes, g.bval = volumes, b.ctypes.data_as(S.P_double)
    g.bvec, g.is_b0 = v.ctypes.data_as(S.P_double), is_b0.ctypes.data_as(S.P_int32)
    return g, (b, v, is_b0)


def dmri_peaks(ctx, dwi, bval, bvec, *, mask=None, order=4, precision="f32", smooth=None, b0_threshold=None,
               bmin=None, bmax=None, max_peaks=None, relative_threshold=None, min_separation=None, starts=None,
               post=None, fit=None, affine=None):
    """Fibre peaks of a diffusion-MRI scan: per voxel the CSA Q-ball ODF in even harmonics up to ``order``, as the
    symmetric tensor of that order, its maxima by SS-HOPM, dipy's selection. Returns a DmriPeaks (``peak_dirs``
    (X, Y, Z, K, 3), ``peak_values`` (X, Y, Z, K), counts, model; ``write(prefix)``).

    Files: ``dwi`` a 4-D NIfTI-1 path (.nii / .nii.gz), ``bval`` / ``bvec`` FSL files, ``mask`` None or a 3-D NIfTI
    path of the same grid (clpk_sshopm_dmri_scan; ``fit`` "device" (default) or "host"). Arrays: ``dwi`` (X, Y, Z, N)
    (e.g. nibabel's ``img.get_fdata()``), ``bval`` (N,) and ``bvec`` (N, 3) or (3, N) arrays (or FSL file paths),
    ``mask`` None or (X, Y, Z) (non-zero inside), ``affine`` (4, 4) for write(); the fit runs on the host
    (clpk_sshopm_odf_fit), the maxima on the device. Options (None: the library's defaults): ``smooth`` (0.006),
    ``b0_threshold`` (50), ``bmin`` / ``bmax`` (the shell window), ``max_peaks`` K (5), ``relative_threshold``
    (0.5), ``min_separation`` degrees (25), ``starts`` per voxel (64), ``precision`` of SS-HOPM, ``post`` "device" /
    "host" de-duplication."""
    lib = _lib.load()
    oo = S.new(S.clpk_sshopm_odf_options)
    lib.clpk_sshopm_odf_options_default(C.byref(oo))
    oo.order = positive_int(order, "order", 2)
    _options(oo, [("smooth", smooth, float, "smooth"), ("b0_threshold", b0_threshold, float, "b0_threshold"),
                  ("bmin", bmin, float, "bmin"), ("bmax", bmax, float, "bmax")])
    po = _peak_options(lib, max_peaks, relative_threshold, min_separation, starts, precision, post, fit)
    if isinstance(dwi, _PATH):
        for name, v in (("bval", bval), ("bvec", bvec), ("mask", mask)):
            if v is not None and not isinstance(v, _PATH):
                raise TypeError("dmri_peaks: with a dwi file, %s must be a file path too, not %s (pass dwi as an "
                                "array to give the gradient table or mask as arrays)" % (name, type(v).__name__))
        if affine is not None:
            raise ValueError("dmri_peaks: affine is for array input (a file's geometry comes from its header)")
        scan = S.new(S.clpk_sshopm_scan_peaks)
        enc = lambda p: None if p is None else os.fsencode(p)  # noqa: E731
        _lib.check(lib.clpk_sshopm_dmri_scan(ctx.handle, enc(dwi), enc(bval), enc(bvec), enc(mask), C.byref(oo),
                                             C.byref(po), C.byref(scan)), ctx.handle)
        return DmriPeaks._from_scan(scan)
    if fit not in (None, "host"):
        raise ValueError("dmri_peaks: array input is fitted on the host (fit=%r is for file input)" % (fit,))
    return _dmri_arrays(ctx, lib, dwi, bval, bvec, mask, oo, po, affine)


def _dmri_arrays(ctx, lib, dwi, bval, bvec, mask, oo, po, affine):
    d = np.asarray(dwi)
    if d.ndim != 4 or d.shape[3] < 2:
        raise ValueError("dwi: expected a 4-D array (X, Y, Z, volumes) with at least 2 volumes, got shape %s"
                         % (d.shape,))
    X, Y, Z, N = d.shape
    nvox = X * Y * Z
    # the library's volume-major order, x fastest: signal[q * voxels + x + X (y + Y z)]
    signal = real_array(d.transpose(3, 2, 1, 0), "dwi")
    active = None
    if mask is not None:
        m = np.asarray(mask)
        if m.shape != (X, Y, Z):
            raise ValueError("mask: expected shape %s (the scan's grid), got %s" % ((X, Y, Z), m.shape))
        active = np.ascontiguousarray(((m != 0) & ~np.isnan(m.astype(np.float64))).transpose(2, 1, 0),
                                      dtype=np.uint8)
    if affine is not None:
        affine = real_array(affine, "affine", shape=(4, 4))
    if isinstance(bval, _PATH) != isinstance(bvec, _PATH):
        raise TypeError("dmri_peaks: bval and bvec must both be arrays or both file paths")
    keep = None
    if isinstance(bval, _PATH):
        g = S.new(S.clpk_sshopm_gradients)
        err = _lib.new_error()
        _lib.check(lib.clpk_sshopm_gradients_read(os.fsencode(bval), os.fsencode(bvec), oo.b0_threshold,
                                                  C.byref(g), C.byref(err)), err=err)
        owned = True
        if g.volumes != N:
            lib.clpk_sshopm_gradients_free(C.byref(g))
            raise ValueError("%s: %d b-values, but dwi has %d volumes" % (os.fsdecode(bval), g.volumes, N))
        is_b0 = _copy(C.cast(g.is_b0, C.c_void_p).value, C.c_int32, N).astype(bool)
    else:
        g, keep = _gradients_from_arrays(bval, bvec, N, oo.b0_threshold)
        owned = False
        is_b0 = keep[2].astype(bool)
    model = C.c_void_p()
    try:
        err = _lib.new_error()
        _lib.check(lib.clpk_sshopm_odf_model_create(C.byref(g), C.byref(oo), C.byref(model), C.byref(err)), err=err)
        desc = _lib.describe(lib.clpk_sshopm_odf_model_describe, model, 256)
        U = unique_count(oo.order, 3)
        tensors = np.empty((nvox, U))
        valid = np.empty(nvox, dtype=np.uint8)
        fitted = C.c_int64()
        _lib.check(lib.clpk_sshopm_odf_fit(model, signal.ctypes.data, nvox,
                                           None if active is None else active.ctypes.data, tensors.ctypes.data,
                                           valid.ctypes.data, C.byref(fitted), C.byref(err)), err=err)
    finally:
        if model.value:
            lib.clpk_sshopm_odf_model_destroy(model)
        if owned:
            lib.clpk_sshopm_gradients_free(C.byref(g))
    del signal, keep
    p = S.new(S.clpk_sshopm_peaks)
    _lib.check(lib.clpk_sshopm_tensor_peaks(ctx.handle, oo.order, tensors.ctypes.data, nvox, valid.ctypes.data,
                                            C.byref(po), C.byref(p)), ctx.handle)
    try:
        tp = TensorPeaks(p, (X, Y, Z))
    finally:
        lib.clpk_sshopm_peaks_free(C.byref(p))
    out = DmriPeaks()
    background = np.asarray(d[..., is_b0], dtype=np.float64).mean(axis=3).astype(np.float32)
    out._set(tp, background, int(fitted.value), desc, False)
    out.affine = affine
    return out


def write_nifti(path, data, affine=None):
    """A float32 NIfTI-1 single file (gzip when the path ends in .gz), data indexed [x, y, z, ...]; ``affine``
    (4, 4) voxel -> mm stored as the sform (None: 1 mm voxels, identity)."""
    a = np.asarray(data, dtype=np.float32)
    if not 1 <= a.ndim <= 7:
        raise ValueError("write_nifti: 1 to 7 dimensions, got %d" % a.ndim)
    aff = np.eye(4) if affine is None else np.asarray(affine, dtype=np.float64)
    dims = [a.ndim] + list(a.shape) + [1] * (7 - a.ndim)
    pix = [1.0] + [float(np.linalg.norm(aff[:3, i])) for i in range(3)] + [1.0] * 4
    h = bytearray(352)
    struct.pack_into("<i", h, 0, 348)
    struct.pack_into("<8h", h, 40, *dims)
    struct.pack_into("<hh", h, 70, 16, 32)  # datatype float32, bitpix
    struct.pack_into("<8f", h, 76, *pix)
    struct.pack_into("<f", h, 108, 352.0)  # vox_offset
    struct.pack_into("<f", h, 112, 1.0)  # scl_slope
    struct.pack_into("<B", h, 123, 2 | 8)  # xyzt_units: mm, s
    struct.pack_into("<hh", h, 252, 0, 2)  # qform_code unknown, sform_code aligned
    struct.pack_into("<12f", h, 280, *aff[:3].ravel())
    h[344:348] = b"n+1\0"
    body = bytes(h) + np.asfortranarray(a).tobytes(order="F")
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(body)


def read_nifti(path):
    """(data indexed [x, y, z, ...] as float64 with scl_slope/inter applied, affine (4, 4) from the sform or the
    voxel sizes) of a single-file NIfTI-1 (.nii or .nii.gz) of a common real datatype."""
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 348:
        raise ValueError("%s: not a NIfTI-1 file (%d bytes)" % (os.fsdecode(path), len(raw)))
    e = "<" if struct.unpack_from("<i", raw, 0)[0] == 348 else ">"
    if struct.unpack_from(e + "i", raw, 0)[0] != 348 or raw[344:347] not in (b"n+1", b"ni1"):
        raise ValueError("%s: not a single-file NIfTI-1 file" % os.fsdecode(path))
    dims = struct.unpack_from(e + "8h", raw, 40)
    dtype = {2: "u1", 4: "i2", 8: "i4", 16: "f4", 64: "f8", 256: "i1", 512: "u2", 768: "u4"}.get(
        struct.unpack_from(e + "h", raw, 70)[0])
    if dtype is None:
        raise ValueError("%s: unsupported NIfTI datatype %d" % (os.fsdecode(path),
                                                              struct.unpack_from(e + "h", raw, 70)[0]))
    shape = dims[1:1 + dims[0]]
    offset = int(struct.unpack_from(e + "f", raw, 108)[0])
    slope, inter = struct.unpack_from(e + "2f", raw, 112)
    n = int(np.prod(shape))
    a = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder(e), count=n, offset=offset)
    a = a.reshape(shape, order="F").astype(np.float64)
    if slope not in (0.0, 1.0) or inter != 0:
        a = a * (slope or 1.0) + inter
    pix = struct.unpack_from(e + "8f", raw, 76)
    if struct.unpack_from(e + "h", raw, 254)[0] > 0:
        aff = np.vstack([np.array(struct.unpack_from(e + "12f", raw, 280)).reshape(3, 4), [0, 0, 0, 1]])
    else:
        aff = np.diag([pix[1], pix[2], pix[3], 1.0])
    return a, aff
