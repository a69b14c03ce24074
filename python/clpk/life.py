"""clpk.life: LiFE's products (y = M w, w = M^T y) over the sparse Tucker decomposition and the SBB-NNLS fit.

A dataset is a directory in the documented layout (README "LiFE datasets": phi_atoms.npy, phi_voxels.npy,
phi_fibers.npy, phi_values.npy, dictionary.npy, signal.npy, optional meta.json / voxel_ijk.npy) or a dict of the same
arrays under the file stems ("phi_atoms", ..., "signal"; optional "voxel_ijk", "n_fibers").
"""
import ctypes as C
import os

import numpy as np

from . import _lib, _structs as S
from ._handle import Owner
from ._convert import index_array, params_text, positive_int, precision as _precision, real_array, scalar

KEYS = ("phi_atoms", "phi_voxels", "phi_fibers", "phi_values", "dictionary", "signal")


class _Dataset:
    """A clpk_life_dataset: loaded by the library from a directory, or pointing into NumPy arrays from a dict."""

    def __init__(self, dataset):
        self.struct = S.new(S.clpk_life_dataset)
        self._owned = False
        self._keep = []
        if isinstance(dataset, (str, os.PathLike)):
            err = _lib.new_error()
            _lib.check(_lib.load().clpk_life_dataset_load(os.fsencode(dataset), C.byref(self.struct), C.byref(err)),
                       err=err)
            self._owned = True
        elif isinstance(dataset, dict):
            self._from_dict(dataset)
        else:
            raise TypeError("dataset must be a directory path or a dict of arrays, not %s" % type(dataset).__name__)

    def _from_dict(self, d):
        missing = [k for k in KEYS[:5] if k not in d]
        if missing:
            raise ValueError("dataset dict lacks %s (keys: %s; signal optional)" % (", ".join(missing),
                                                                                     ", ".join(KEYS)))
        phi = real_array(d["phi_values"], "phi_values", ndim=1)
        nc = phi.size
        atoms = index_array(d["phi_atoms"], "phi_atoms")
        voxels = index_array(d["phi_voxels"], "phi_voxels")
        fibers = index_array(d["phi_fibers"], "phi_fibers")
        for name, a in (("phi_atoms", atoms), ("phi_voxels", voxels), ("phi_fibers", fibers)):
            if a.shape != (nc,):
                raise ValueError("%s has shape %s; phi_values has %d coefficients" % (name, a.shape, nc))
        dic = real_array(d["dictionary"], "dictionary", ndim=2)
        n_atoms, n_theta = dic.shape
        signal = d.get("signal")
        n_voxels = int(voxels.max()) + 1 if nc else 0
        if signal is not None:
            signal = real_array(signal, "signal", ndim=2)
            if signal.shape[1] != n_theta:
                raise ValueError("signal has %d directions, the dictionary %d" % (signal.shape[1], n_theta))
            n_voxels = signal.shape[0]
        n_voxels = int(d.get("n_voxels", n_voxels))
        n_fibers = int(d.get("n_fibers", int(fibers.max()) + 1 if nc else 0))
        ijk = d.get("voxel_ijk")
        if ijk is not None:
            ijk = index_array(ijk, "voxel_ijk")
            if ijk.shape != (n_voxels, 3):
                raise ValueError("voxel_ijk has shape %s, expected (%d, 3)" % (ijk.shape, n_voxels))
        s = self.struct
        s.n_coeffs, s.n_atoms, s.n_voxels, s.n_fibers, s.n_theta = nc, n_atoms, n_voxels, n_fibers, n_theta
        s.atoms, s.voxels, s.fibers = (a.ctypes.data_as(S.P_int32) for a in (atoms, voxels, fibers))
        s.phi, s.dictionary = phi.ctypes.data_as(S.P_double), dic.ctypes.data_as(S.P_double)
        if signal is not None:
            s.signal = signal.ctypes.data_as(S.P_double)
        if ijk is not None:
            s.voxel_ijk = ijk.ctypes.data_as(S.P_int32)
        self._keep = [phi, atoms, voxels, fibers, dic, signal, ijk]
        err = _lib.new_error()
        _lib.check(_lib.load().clpk_life_dataset_validate(C.byref(s), C.byref(err)), err=err)

    @property
    def sizes(self):
        s = self.struct
        return {"n_coeffs": s.n_coeffs, "n_atoms": s.n_atoms, "n_voxels": s.n_voxels, "n_fibers": s.n_fibers,
                "n_theta": s.n_theta}

    def to_dict(self):
        s = self.struct
        nc, nv, nt = s.n_coeffs, s.n_voxels, s.n_theta

        def arr(p, n, shape=None):
            a = np.ctypeslib.as_array(p, (n,)).copy()
            return a.reshape(shape) if shape else a
        d = {"phi_atoms": arr(s.atoms, nc), "phi_voxels": arr(s.voxels, nc), "phi_fibers": arr(s.fibers, nc),
             "phi_values": arr(s.phi, nc), "dictionary": arr(s.dictionary, s.n_atoms * nt, (s.n_atoms, nt)),
             "n_fibers": s.n_fibers, "n_voxels": nv}
        if s.signal:
            d["signal"] = arr(s.signal, nv * nt, (nv, nt))
        if s.voxel_ijk:
            d["voxel_ijk"] = arr(s.voxel_ijk, nv * 3, (nv, 3))
        return d

    def free(self):
        if self._owned:
            _lib.load().clpk_life_dataset_free(C.byref(self.struct))
            self._owned = False
        self._keep = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()


def load(directory):
    """A dataset directory read (and validated) by the library, as a dict of NumPy arrays."""
    with _Dataset(directory) as d:
        return d.to_dict()


def synth(size="tiny", *, seed=1, **overrides):
    """A synthetic dataset from the library's generator (clpk_life_synth; size "tiny", "small", "medium", "ds1";
    overrides: any clpk_life_synth_options field, e.g. snr=0, n_fibers=100). Returns (dataset dict, w_true)."""
    lib = _lib.load()
    o = S.new(S.clpk_life_synth_options)
    if not isinstance(size, str) or lib.clpk_life_synth_defaults(size.encode(), C.byref(o)) != 0:
        raise ValueError("size must be 'tiny', 'small', 'medium' or 'ds1', not %r" % (size,))
    o.seed = positive_int(seed, "seed", 0)
    fields = dict(S.clpk_life_synth_options._fields_)
    for k, v in overrides.items():
        if k not in fields or k.endswith("_path"):
            raise ValueError("unknown synth option %r" % k)
        if k == "grid":
            o.grid[:] = [int(g) for g in v]
        else:
            setattr(o, k, v)
    ds = S.new(S.clpk_life_dataset)
    w = C.c_void_p()
    err = _lib.new_error()
    _lib.check(lib.clpk_life_synth(C.byref(o), C.byref(ds), C.byref(w), C.byref(err)), err=err)
    holder = _Dataset.__new__(_Dataset)
    holder.struct, holder._owned, holder._keep = ds, True, []
    try:
        d = holder.to_dict()
        w_true = np.ctypeslib.as_array(C.cast(w, S.P_double), (ds.n_fibers,)).copy() if w.value else None
    finally:
        holder.free()
        _free(w.value)
    return d, w_true


def encode(dwi, bval, bvec, trk, *, n_atoms=360, b0_threshold=50.0, use_mask=True):
    """A dataset dict from real data (clpk_life_encode, dipy's FiberModel mapping, docs/life.md "Encoder"): a NIfTI
    diffusion volume, FSL bval/bvec files and a TrackVis .trk tractogram."""
    lib = _lib.load()
    o = S.new(S.clpk_life_encode_options)
    o.n_atoms = positive_int(n_atoms, "n_atoms")
    o.b0_threshold = scalar(b0_threshold, "b0_threshold")
    o.use_mask = 1 if use_mask else 0
    ds = S.new(S.clpk_life_dataset)
    err = _lib.new_error()
    _lib.check(lib.clpk_life_encode(*(os.fsencode(p) for p in (dwi, bval, bvec, trk)), C.byref(o), C.byref(ds),
                                    C.byref(err)), err=err)
    holder = _Dataset.__new__(_Dataset)
    holder.struct, holder._owned, holder._keep = ds, True, []
    try:
        return holder.to_dict()
    finally:
        holder.free()


def _free(ptr):
    if ptr:
        libc = C.CDLL(None)
        libc.free.argtypes = [C.c_void_p]
        libc.free(ptr)


class Plan(Owner):
    """The dataset on the device with its restructured copies and kernels (clpk_life_plan).

    ``strategy``: None/"auto", "atomics", "sorted", "timed"; ``params``: "k=v,..." or dict (docs/life.md).
    """

    def __init__(self, ctx, dataset, *, precision="f32", strategy=None, params=None):
        self.ctx = ctx
        self._h = None
        lib = _lib.load()
        prec = _precision(precision)
        if strategy is not None and not isinstance(strategy, str):
            raise TypeError("strategy must be a string")
        with _Dataset(dataset) as d:
            self.sizes = d.sizes
            self.has_signal = bool(d.struct.signal)
            h = C.c_void_p()
            _lib.check(lib.clpk_life_plan_create(ctx.handle, C.byref(d.struct), prec,
                                                 strategy.encode() if strategy else None, params_text(params),
                                                 C.byref(h)), ctx.handle)
        self._h = h.value
        ctx._adopt(self)
        self.precision = "f64" if prec == 2 else "f32"
        self.last_fit = None

    @property
    def handle(self):
        if not self._h:
            raise ValueError("this LiFE plan is closed (or its context was closed)")
        return self._h

    def describe(self):
        return _lib.describe(_lib.load().clpk_life_plan_describe, self.handle)

    def dsc(self, w):
        """y = M w: (n_voxels, n_theta) float64 from w (n_fibers)."""
        wv = real_array(w, "w", shape=(self.sizes["n_fibers"],))
        y = np.empty((self.sizes["n_voxels"], self.sizes["n_theta"]))
        _lib.check(_lib.load().clpk_life_dsc_host(self.handle, wv.ctypes.data, y.ctypes.data), self.ctx.handle)
        return y

    def wc(self, y):
        """w = M^T y: (n_fibers,) float64 from y (n_voxels, n_theta)."""
        yv = real_array(y, "y", shape=(self.sizes["n_voxels"], self.sizes["n_theta"]))
        w = np.empty(self.sizes["n_fibers"])
        _lib.check(_lib.load().clpk_life_wc_host(self.handle, yv.ctypes.data, w.ctypes.data), self.ctx.handle)
        return w

    def fit(self, *, iters=500, tolerance=None, objective_every=None, w_start=None, residual_every=None):
        """SBB-NNLS on the device: the weights (n_fibers,) float64; ``plan.last_fit`` holds iterations, objective
        (0.5 ||Mw - y||^2), seconds and converged. tolerance 0 runs exactly `iters` iterations (None: 1e-6).
        residual_every: r = Mw - y from Mw every k steps and at the end, updated from the step's own products
        between (1: every step; None: the library's default, docs/life.md "SBB-NNLS")."""
        lib = _lib.load()
        o = S.new(S.clpk_life_fit_options)
        o.max_iterations = positive_int(iters, "iters", 0)
        o.tolerance = 1e-6 if tolerance is None else scalar(tolerance, "tolerance")
        o.objective_every = 10 if objective_every is None else positive_int(objective_every, "objective_every")
        o.residual_every = 0 if residual_every is None else positive_int(residual_every, "residual_every")
        start = None
        if w_start is not None:
            start = real_array(w_start, "w_start", shape=(self.sizes["n_fibers"],))
            o.w_start = start.ctypes.data_as(S.P_double)
        w = np.empty(self.sizes["n_fibers"])
        r = S.new(S.clpk_life_fit_result)
        _lib.check(lib.clpk_life_fit(self.handle, C.byref(o), w.ctypes.data, C.byref(r)), self.ctx.handle)
        self.last_fit = {"iterations": r.iterations, "objective": r.objective, "seconds": r.seconds,
                         "converged": bool(r.converged)}
        return w

    def close(self):
        if self._h:
            _lib.load().clpk_life_plan_destroy(self._h)
            self._h = None



def fit(ctx, dataset, *, iters=500, precision="f32", tolerance=None, w_start=None, strategy=None, params=None):
    """SBB-NNLS weights (n_fibers,) float64 of a dataset (directory or dict) on ctx's device."""
    with Plan(ctx, dataset, precision=precision, strategy=strategy, params=params) as plan:
        return plan.fit(iters=iters, tolerance=tolerance, w_start=w_start)


def dsc(ctx, dataset, w, *, precision="f32"):
    """y = M w (n_voxels, n_theta) for a dataset (directory or dict). Build a Plan for repeated products."""
    with Plan(ctx, dataset, precision=precision) as plan:
        return plan.dsc(w)


def wc(ctx, dataset, y, *, precision="f32"):
    """w = M^T y (n_fibers,) for a dataset (directory or dict). Build a Plan for repeated products."""
    with Plan(ctx, dataset, precision=precision) as plan:
        return plan.wc(y)
