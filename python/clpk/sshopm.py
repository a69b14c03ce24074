"""clpk.sshopm / clpk.SshopmPlan: real eigenpairs of many small symmetric tensors (SS-HOPM on the device)."""
import ctypes as C

import numpy as np

from . import _lib, _structs as S
from ._handle import Owner
from ._convert import params_text, positive_int, precision as _precision, real_array, scalar

FIND = {"max": 1, "min": 2, "both": 3}
SHIFT = {"bound": 0, "fixed": 1, "adaptive": 2}
STARTS = {"shared": 0, "per-tensor": 1, "sphere": 2}
TYPES = {1: "max", 2: "min", 3: "saddle", 4: "degenerate"}


def unique_count(order, dim):
    """C(order + dim - 1, order): unique entries of a symmetric tensor (0 outside 2..8)."""
    return int(_lib.load().clpk_sshopm_unique_count(int(order), int(dim)))


def _choice(v, table, name):
    if not isinstance(v, str) or v.lower() not in table:
        raise ValueError("%s must be one of %s, not %r" % (name, ", ".join(table), v))
    return table[v.lower()]


class Pairs(list):
    """One tensor's eigenpairs: a list of {"lambda", "x", "type", "hits", "residual"} sorted by lambda descending,
    with the tensor's start counts as attributes: converged, capped, failed, dropped (left out by the device
    post-processing), polished (capped starts Newton took to a pair, counted in its hits) and unconverged."""
    converged = capped = failed = dropped = polished = unconverged = 0


def to_unique(tensors, order, dim, tol=1e-10):
    """(T, U) float64 unique entries from (T, U) / (U,) unique entries or (T, n, ..., n) / (n, ..., n) dense tensors
    (dense ones are checked for symmetry by the library)."""
    U = unique_count(order, dim)
    if U == 0:
        raise ValueError("order and dim must both lie in 2..8, got order %r dim %r" % (order, dim))
    a = np.asarray(tensors)
    dense = (dim,) * order
    if a.shape[-1:] == (U,) and a.ndim in (1, 2):
        return real_array(a.reshape(-1, U), "tensors")
    if a.shape[-order:] == dense and a.ndim in (order, order + 1):
        d = real_array(a.reshape((-1,) + dense), "tensors")
        out = np.empty((d.shape[0], U))
        err = _lib.new_error()
        _lib.check(_lib.load().clpk_sshopm_compress_dense(order, dim, d.ctypes.data, d.shape[0], tol,
                                                          out.ctypes.data, C.byref(err)), err=err)
        return out
    raise ValueError("tensors: expected (T, %d) unique entries or (T,%s) dense tensors for order %d, dim %d; got "
                     "shape %s" % (U, " %d," % dim * order, order, dim, a.shape))


class SshopmPlan(Owner):
    """A plan for batches of up to ``max_tensors`` tensors of one (order, dim): kernel chosen and built once.

    Options as in clpk_sshopm_options: ``starts`` per tensor and direction, ``find`` ("max", "min", "both"),
    ``shift`` (None: the library's default, "bound", "fixed" with ``alpha``, "adaptive"), ``starts_kind``
    ("shared", "per-tensor", "sphere"), ``seed``, ``tol``, ``xtol``, ``max_iter``, ``kernel`` ("auto",
    "general", "generated"), ``params`` ("k=v,..." tuning overrides).
    """

    def __init__(self, ctx, *, order, dim, max_tensors=1, starts=128, find="max", precision="f32", shift=None,
                 alpha=None, starts_kind=None, seed=None, tol=None, xtol=None, max_iter=None, kernel=None,
                 params=None):
        self.ctx = ctx
        self._h = None
        lib = _lib.load()
        self.order, self.dim = positive_int(order, "order", 2), positive_int(dim, "dim", 2)
        self.unique = unique_count(self.order, self.dim)
        if self.unique == 0:
            raise ValueError("order and dim must both lie in 2..8, got order %d dim %d" % (self.order, self.dim))
        self.max_tensors = positive_int(max_tensors, "max_tensors")
        o = S.new(S.clpk_sshopm_options)
        lib.clpk_sshopm_options_default(C.byref(o))
        o.starts = positive_int(starts, "starts")
        o.find = _choice(find, FIND, "find")
        if shift is not None:
            o.shift = _choice(shift, SHIFT, "shift")
        if alpha is not None:
            o.alpha = scalar(alpha, "alpha")
        if starts_kind is not None:
            o.starts_kind = _choice(starts_kind, STARTS, "starts_kind")
        if seed is not None:
            o.seed = positive_int(seed, "seed", 0)
        if tol is not None:
            o.tol = scalar(tol, "tol")
        if xtol is not None:
            o.xtol = scalar(xtol, "xtol")
        if max_iter is not None:
            o.max_iter = positive_int(max_iter, "max_iter")
        if kernel is not None:
            if not isinstance(kernel, str):
                raise TypeError("kernel must be 'auto', 'general' or 'generated'")
            o.kernel = kernel.encode()
        o.params = params_text(params)
        self.precision = "f64" if _precision(precision) == 2 else "f32"
        h = C.c_void_p()
        _lib.check(lib.clpk_sshopm_plan_create(ctx.handle, self.order, self.dim, _precision(precision),
                                               self.max_tensors, C.byref(o), C.byref(h)), ctx.handle)
        self._h = h.value
        ctx._adopt(self)

    @property
    def handle(self):
        if not self._h:
            raise ValueError("this SshopmPlan is closed (or its context was closed)")
        return self._h

    def describe(self):
        lib = _lib.load()
        return {"text": _lib.describe(lib.clpk_sshopm_plan_describe, self.handle),
                "params": _lib.describe(lib.clpk_sshopm_plan_params, self.handle), "order": self.order,
                "dim": self.dim, "precision": self.precision}

    def solve(self, tensors, *, post="host", polish=0, lambda_tol=None, x_tol=None, class_tol=None, capped_steps=None,
              max_pairs=16):
        """Eigenpairs of each tensor: a list (one Pairs per tensor) of dicts {"lambda", "x", "type", "hits",
        "residual"}. ``post``: "host" (de-duplicate and classify in double) or "device" (on the device, residuals
        NaN); ``polish``: Newton steps in double on every pair (0: none); the tolerances as in
        clpk_sshopm_post_options (None: library defaults; capped_steps: Newton steps from each capped start)."""
        lib = _lib.load()
        A = to_unique(tensors, self.order, self.dim)
        T = A.shape[0]
        if T == 0:
            return []
        if T > self.max_tensors:
            raise ValueError("%d tensors exceed the plan's max_tensors = %d" % (T, self.max_tensors))
        if post not in ("host", "device"):
            raise ValueError("post must be 'host' or 'device', not %r" % (post,))
        po = S.new(S.clpk_sshopm_post_options)
        lib.clpk_sshopm_post_options_default(C.byref(po))
        for name, v in (("lambda_tol", lambda_tol), ("x_tol", x_tol), ("class_tol", class_tol)):
            if v is not None:
                setattr(po, name, scalar(v, name))
        if capped_steps is not None:
            po.capped_steps = positive_int(capped_steps, "capped_steps", 0)
        res = S.new(S.clpk_sshopm_result)
        if post == "host":
            st = lib.clpk_sshopm_solve_host(self.handle, A.ctypes.data, T, C.byref(po), C.byref(res))
        else:
            st = lib.clpk_sshopm_solve_device(self.handle, A.ctypes.data, T, C.byref(po),
                                              positive_int(max_pairs, "max_pairs"), C.byref(res))
        _lib.check(st, self.ctx.handle)
        try:
            if polish:
                err = _lib.new_error()
                _lib.check(lib.clpk_sshopm_polish(A.ctypes.data, C.byref(res), positive_int(polish, "polish"),
                                                  po.class_tol, C.byref(err)), err=err)
            return _read_result(res, self.dim)
        finally:
            lib.clpk_sshopm_result_free(C.byref(res))

    def close(self):
        if self._h:
            _lib.load().clpk_sshopm_plan_destroy(self._h)
            self._h = None



def _read_result(res, dim):
    out = []
    for t in range(res.n_tensors):
        tr = S.at(S.clpk_sshopm_tensor_result, res.tensors, t)
        pairs = Pairs()
        for k in range(tr.count):
            e = S.at(S.clpk_sshopm_eigenpair, tr.pairs, k)
            pairs.append({"lambda": e.lambda_, "x": np.array(e.x[:dim]), "type": TYPES.get(e.type, "degenerate"),
                          "hits": int(e.hits), "residual": e.residual})
        for name in ("converged", "capped", "failed", "dropped", "polished", "unconverged"):
            setattr(pairs, name, getattr(tr, name))
        out.append(pairs)
    return out


def sshopm(ctx, tensors, *, order, dim, starts=128, find="max", precision="f32", post="host", polish=0, **options):
    """Eigenpairs of each tensor in `tensors` ((T, U) unique entries in the library's lexicographic order, one (U,)
    tensor, or dense (T, n, ..., n)): a list with, per tensor, a list of dicts {"lambda": float, "x": ndarray,
    "type": "max"|"min"|"saddle"|"degenerate", "hits": int, "residual": float}. More options: see SshopmPlan."""
    A = to_unique(tensors, order, dim)
    with SshopmPlan(ctx, order=order, dim=dim, max_tensors=max(A.shape[0], 1), starts=starts, find=find,
                    precision=precision, **options) as plan:
        return plan.solve(A, post=post, polish=polish)
