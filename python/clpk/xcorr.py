"""clpk.xcorr / clpk.XcorrPlan: full 2-D cross-correlation of stacks of small matrices (scipy correlate2d 'full')."""
import ctypes as C

import numpy as np

from . import _lib, _structs as S
from ._handle import Owner
from ._convert import DTYPES, params_text, parse_params, precision as _precision, real_array

PATTERNS = ("one-to-one", "one-to-many", "n-to-mn", "n-to-m")


def _pattern(p):
    if not isinstance(p, str):
        raise TypeError("pattern must be one of %s" % ", ".join(PATTERNS))
    v = C.c_int()
    if _lib.load().clpk_xcorr_pattern_parse(p.encode(), C.byref(v)) != 0:
        raise ValueError("pattern must be one of %s, not %r" % (", ".join(PATTERNS), p))
    return v.value


def _stack(a, name):
    arr = np.asarray(a)
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3:
        raise ValueError("%s: expected a matrix (R, C) or a stack (N, R, C), got shape %s" % (name, arr.shape))
    if 0 in arr.shape:
        raise ValueError("%s: empty shape %s" % (name, arr.shape))
    return arr


class XcorrPlan(Owner):
    """A plan for one shape of input: ``plan(left, right)`` -> (N_out, S_r, S_c) NumPy array of the plan's dtype.

    ``shape``: (R, C) of every matrix; ``n_left``, ``n_right``: matrices in each stack; ``pattern``: "one-to-one"
    (n_left == n_right pairs), "one-to-many" (n_left == 1), "n-to-mn" (n_right = m n_left, right j with left
    j % n_left) or "n-to-m" (all pairs, output i n_right + j); ``search``: None for the full (2R-1, 2C-1) output or
    an odd (S_r, S_c) window of shifts centred on zero shift; ``algorithm``: "auto" or one the C library names;
    ``precision``: "f32"/"f64"; ``params``: "k=v,..." or dict overrides.
    """

    def __init__(self, ctx, shape, n_left, n_right, *, pattern, algorithm="auto", precision="f32", params=None,
                 search=None):
        self.ctx = ctx
        self._h = None
        lib = _lib.load()
        if len(tuple(shape)) != 2:
            raise ValueError("shape must be (rows, cols), got %r" % (shape,))
        s = S.new(S.clpk_xcorr_shape)
        s.pattern = _pattern(pattern)
        s.rows, s.cols = (int(v) for v in shape)
        s.n_left, s.n_right = int(n_left), int(n_right)
        if search is not None:
            if len(tuple(search)) != 2:
                raise ValueError("search must be (rows, cols) of an odd window, got %r" % (search,))
            s.search_rows, s.search_cols = (int(v) for v in search)
        s.precision = _precision(precision)
        if not isinstance(algorithm, str):
            raise TypeError("algorithm must be a string")
        h = C.c_void_p()
        _lib.check(lib.clpk_xcorr_plan_create(ctx.handle, C.byref(s), algorithm.encode(), params_text(params),
                                              C.byref(h)), ctx.handle)
        self._h = h.value
        ctx._adopt(self)
        self._shape_struct = s
        self.pattern = _lib.text(lib.clpk_xcorr_pattern_name(s.pattern))
        self.input_shape = (s.rows, s.cols)
        self.n_left, self.n_right = s.n_left, s.n_right
        self.dtype = DTYPES[s.precision]
        self.precision = "f64" if s.precision == 2 else "f32"
        self.output_shape = (int(lib.clpk_xcorr_output_count(C.byref(s))), int(lib.clpk_xcorr_output_rows(C.byref(s))),
                             int(lib.clpk_xcorr_output_cols(C.byref(s))))

    @property
    def handle(self):
        if not self._h:
            raise ValueError("this XcorrPlan is closed (or its context was closed)")
        return self._h

    @property
    def algorithm(self):
        return _lib.text(_lib.load().clpk_xcorr_plan_algorithm(self.handle))

    @property
    def params(self):
        return parse_params(_lib.describe(_lib.load().clpk_xcorr_plan_params, self.handle))

    def describe(self):
        return {"algorithm": self.algorithm, "params": self.params, "pattern": self.pattern,
                "precision": self.precision, "input_shape": self.input_shape, "n_left": self.n_left,
                "n_right": self.n_right, "output_shape": self.output_shape}

    def __call__(self, left, right, out=None):
        L = real_array(_stack(left, "left"), "left", dtype=self.dtype)
        R = real_array(_stack(right, "right"), "right", dtype=self.dtype)
        want_l, want_r = (self.n_left,) + self.input_shape, (self.n_right,) + self.input_shape
        if L.shape != want_l or R.shape != want_r:
            raise ValueError("the plan is for left %s and right %s, got %s and %s" % (want_l, want_r, L.shape, R.shape))
        if not (np.all(np.isfinite(L)) and np.all(np.isfinite(R))):
            raise ValueError("left and right must be finite (NaN or Inf found)")
        if out is None:
            out = np.empty(self.output_shape, self.dtype)
        elif not (isinstance(out, np.ndarray) and out.dtype == self.dtype and out.shape == self.output_shape and
                  out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("out must be a writable C-contiguous %s array of shape %s" % (self.dtype,
                                                                                           self.output_shape))
        _lib.check(_lib.load().clpk_xcorr_execute_host(self.handle, L.ctypes.data, R.ctypes.data, out.ctypes.data),
                   self.ctx.handle)
        return out

    def close(self):
        if self._h:
            _lib.load().clpk_xcorr_plan_destroy(self._h)
            self._h = None

    def __repr__(self):
        return "<clpk.XcorrPlan %s %s x%d/%d %s>" % (self.pattern, self.input_shape, self.n_left, self.n_right,
                                                     self.precision)


def xcorr(ctx, left, right, *, pattern, algorithm="auto", precision=None, params=None, search=None):
    """Cross-correlations of `left` and `right` stacks ((N, R, C), or one (R, C) matrix) in the C library's
    convention (scipy.signal.correlate2d(left, right, 'full')): returns (N_out, 2R-1, 2C-1) (or the `search`
    window). precision None: "f64" when both inputs are float64, else "f32". For repeated calls on same-shaped
    input build an XcorrPlan once."""
    L, R = _stack(left, "left"), _stack(right, "right")
    if L.shape[1:] != R.shape[1:]:
        raise ValueError("left matrices are %s, right ones %s: they must be the same size" % (L.shape[1:],
                                                                                              R.shape[1:]))
    if precision is None:
        precision = "f64" if L.dtype == np.float64 and R.dtype == np.float64 else "f32"
    with XcorrPlan(ctx, L.shape[1:], L.shape[0], R.shape[0], pattern=pattern, algorithm=algorithm,
                   precision=precision, params=params, search=search) as plan:
        return plan(L, R)
