"""clpk.SpMV: y = alpha A x + beta y with a plan per matrix (BCCOO / BCCOO+ / CSR chosen by the device's profile)."""
import ctypes as C

import numpy as np

from . import _cl, _lib, _structs as S
from ._handle import Owner
from ._convert import DTYPES, params_text, parse_params, positive_int, precision as _precision, real_array, scalar
from .device import DeviceArray, is_pyopencl_array


def _canonical_csr(A, shape):
    """(indptr int64, indices int32, data float64, (rows, cols)) with sorted, summed entries."""
    if hasattr(A, "tocsr") and hasattr(A, "nnz"):  # any scipy.sparse matrix or array
        import scipy.sparse as sp
        if A.dtype.kind == "c":
            raise TypeError("A: complex matrices are not supported")
        if A.dtype.kind not in "biuf":
            raise TypeError("A: expected real values, got dtype %s" % A.dtype)
        M = sp.csr_matrix(A, dtype=np.float64, copy=True)
        M.sum_duplicates()  # also sorts the column indices
        return M.indptr, M.indices, M.data, M.shape
    if isinstance(A, tuple) and len(A) == 3:  # (data, indices, indptr) as scipy's csr_matrix takes them
        data = real_array(A[0], "A data", ndim=1)
        indices = np.asarray(A[1])
        indptr = np.asarray(A[2])
        if indices.dtype.kind not in "iu" or indptr.dtype.kind not in "iu":
            raise TypeError("A: indices and indptr must be integer arrays")
        if indptr.ndim != 1 or indptr.size < 1 or indices.ndim != 1 or indices.size != data.size:
            raise ValueError("A: expected 1-D indptr (rows+1) and indices/data of equal length, got %s, %s, %s"
                             % (indptr.shape, indices.shape, data.shape))
        rows = indptr.size - 1
        if indptr[0] != 0 or indptr[-1] != data.size or np.any(np.diff(indptr) < 0):
            raise ValueError("A: indptr must rise from 0 to len(data) = %d" % data.size)
        if shape is None:
            shape = (rows, int(indices.max()) + 1 if indices.size else 0)
        if len(shape) != 2 or shape[0] != rows:
            raise ValueError("A: shape %s does not match %d rows of indptr" % (shape, rows))
        if indices.size and (indices.min() < 0 or indices.max() >= shape[1]):
            raise ValueError("A: column indices must lie in [0, %d)" % shape[1])
        r = np.repeat(np.arange(rows, dtype=np.int64), np.diff(indptr))
        key = r * max(int(shape[1]), 1) + indices.astype(np.int64)
        order = np.argsort(key, kind="stable")
        key, vals = key[order], data[order]
        uniq, start = np.unique(key, return_index=True)
        sums = np.add.reduceat(vals, start) if vals.size else vals
        urow = uniq // max(int(shape[1]), 1)
        ptr = np.zeros(rows + 1, np.int64)
        np.cumsum(np.bincount(urow, minlength=rows), out=ptr[1:])
        return ptr, (uniq % max(int(shape[1]), 1)), sums, tuple(int(s) for s in shape)
    if isinstance(A, np.ndarray) or isinstance(A, list):
        D = real_array(A, "A", ndim=2)
        r, c = np.nonzero(D)
        ptr = np.zeros(D.shape[0] + 1, np.int64)
        np.cumsum(np.bincount(r, minlength=D.shape[0]), out=ptr[1:])
        return ptr, c, D[r, c], D.shape
    raise TypeError("A must be a scipy.sparse matrix, a dense 2-D array or a (data, indices, indptr) tuple, not %s"
                    % type(A).__name__)


class _CSR:
    """A clpk_csr pointing into NumPy arrays kept alive with it."""

    def __init__(self, A, shape=None):
        ptr, idx, val, shp = _canonical_csr(A, shape)
        rows, cols = int(shp[0]), int(shp[1])
        if rows >= 2 ** 31 or cols >= 2 ** 31:
            raise ValueError("A: %d x %d exceeds the library's 32-bit row and column range" % (rows, cols))
        self.row_ptr = np.ascontiguousarray(ptr, dtype=np.int64)
        self.col = np.ascontiguousarray(idx, dtype=np.int32)
        self.val = np.ascontiguousarray(val, dtype=np.float64)
        self.shape = (rows, cols)
        s = S.new(S.clpk_csr)
        s.rows, s.cols, s.nnz = rows, cols, self.val.size
        s.row_ptr = self.row_ptr.ctypes.data_as(S.P_int64)
        s.col = self.col.ctypes.data_as(S.P_int32)
        s.val = self.val.ctypes.data_as(S.P_double)
        self.struct = s


class SpMV(Owner):
    """A plan for y = alpha A x + beta y on the device.

    ``A``: any scipy.sparse matrix, a dense 2-D array, or CSR arrays ``(data, indices, indptr)`` (with ``shape=``
    when columns beyond the last index exist). The matrix is converted to the device's format once; A is not kept.
    ``precision``: "f32" or "f64"; ``format``: "auto" (profile, else defaults), "bccoo", "bccoo+" or "csr";
    ``params``: "k=v,..." or a dict of overrides (keys in docs/spmv.md).

    ``plan @ x`` and ``plan.matvec(x, alpha, beta, y)`` take NumPy vectors (float64 results; x of shape (cols,) or
    (cols, k)), or device arrays (``clpk.DeviceArray`` / ``pyopencl.array.Array`` of the plan's dtype) which stay
    on the device: the result is a device array too.
    """

    def __init__(self, ctx, A, *, precision="f32", format="auto", params=None, shape=None, _handle=None):
        self.ctx = ctx
        self._h = None
        lib = _lib.load()
        if _handle is None:
            prec = _precision(precision)
            if not isinstance(format, str):
                raise TypeError("format must be a string ('auto', 'bccoo', 'bccoo+', 'csr')")
            csr = _CSR(A, shape)
            h = C.c_void_p()
            st = lib.clpk_spmv_plan_create(ctx.handle, C.byref(csr.struct), prec, format.encode(),
                                           params_text(params), C.byref(h))
            _lib.check(st, ctx.handle)
            _handle = h.value
        self._h = _handle
        ctx._adopt(self)
        self.shape = (int(lib.clpk_spmv_plan_rows(self._h)), int(lib.clpk_spmv_plan_cols(self._h)))
        self.precision = "f64" if lib.clpk_spmv_plan_precision(self._h) == 2 else "f32"
        self.dtype = DTYPES[2 if self.precision == "f64" else 1]
        self.tune_report = None
        self._bufs = None  # device vectors reused by the host path

    @classmethod
    def tune(cls, ctx, A, *, precision="f32", max_multiplies=0, shape=None):
        """The library's quick per-matrix tune (clpk_spmv_plan_tune): builds the default and a few pruned candidates,
        checks each against CSR, times them and returns the fastest as a plan; ``plan.tune_report`` says what was
        tried. max_multiplies bounds the search (0: the library's 60)."""
        lib = _lib.load()
        prec = _precision(precision)
        budget = positive_int(max_multiplies, "max_multiplies", minimum=0)
        csr = _CSR(A, shape)
        h = C.c_void_p()
        rep = S.new(S.clpk_spmv_tune_report)
        _lib.check(lib.clpk_spmv_plan_tune(ctx.handle, C.byref(csr.struct), prec, budget, C.byref(h), C.byref(rep)),
                   ctx.handle)
        plan = cls(ctx, None, _handle=h.value)
        plan.tune_report = {name: (_lib.text(getattr(rep, name)) if name == "choice" else getattr(rep, name))
                            for name, _ in S.clpk_spmv_tune_report._fields_}
        plan.tune_report["chose_default"] = bool(plan.tune_report["chose_default"])
        return plan

    @property
    def handle(self):
        if not self._h:
            raise ValueError("this SpMV plan is closed (or its context was closed)")
        return self._h

    def close(self):
        if self._bufs:
            for b in self._bufs:
                b.release()
            self._bufs = None
        if self._h:
            _lib.load().clpk_spmv_plan_destroy(self._h)
            self._h = None

    def describe(self):
        """{"format", "params" (dict), "text" (the library's line), "precision", "shape", "footprint_bytes"}."""
        lib = _lib.load()
        text = _lib.describe(lib.clpk_spmv_plan_describe, self.handle)
        params = parse_params(text)  # "format=bccoo,block_h=2,..."
        fmt = str(params.pop("format", ""))
        return {"format": fmt, "params": params, "text": text, "precision": self.precision,
                "shape": self.shape, "footprint_bytes": int(lib.clpk_spmv_plan_footprint(self.handle))}

    def __repr__(self):
        return "<clpk.SpMV %dx%d %s%s>" % (self.shape[0], self.shape[1], self.precision,
                                         "" if self._h else " closed")

    # ---- products ---------------------------------------------------------------------------------------------
    def __matmul__(self, x):
        return self.matvec(x)

    def matvec(self, x, alpha=1.0, beta=0.0, y=None):
        """alpha A x + beta y. NumPy in: returns float64 NumPy (written into `y` when given). Device arrays in:
        computed on the device, returns the device array `y` (allocated when None). With beta == 0, y is not read."""
        alpha, beta = scalar(alpha, "alpha"), scalar(beta, "beta")
        if isinstance(x, DeviceArray) or is_pyopencl_array(x):
            return self._matvec_device(x, alpha, beta, y)
        if isinstance(y, DeviceArray) or is_pyopencl_array(y):
            raise TypeError("x is a host array but y a device array: pass both on the host or both on the device")
        xs = real_array(x, "x", ndim=(1, 2))
        rows, cols = self.shape
        if xs.shape[0] != cols:
            raise ValueError("x has %d rows, the matrix %d columns (A is %dx%d)" % (xs.shape[0], cols, rows, cols))
        out_shape = (rows,) + xs.shape[1:]
        if y is None:
            if beta != 0:
                raise ValueError("beta = %g needs y" % beta)
            out = np.empty(out_shape)
            target = None
        else:
            if not isinstance(y, np.ndarray) or y.shape != out_shape:
                raise ValueError("y must be a NumPy array of shape %s, got %s" % (out_shape, getattr(y, "shape",
                                                                                                  type(y).__name__)))
            if not y.flags.writeable:
                raise ValueError("y is read-only")
            direct = y.dtype == np.float64 and y.flags.c_contiguous
            out = y if direct else real_array(y, "y")
            target = None if direct else y
        lib = _lib.load()
        if xs.ndim == 1:
            self._host_one(lib, alpha, xs, beta, out)
        else:
            for j in range(xs.shape[1]):
                xj = np.ascontiguousarray(xs[:, j])
                yj = np.ascontiguousarray(out[:, j])
                self._host_one(lib, alpha, xj, beta, yj)
                out[:, j] = yj
        if target is not None:
            target[...] = out
            return target
        return out

    def _host_one(self, lib, alpha, x, beta, y):
        """One product on host vectors through two device vectors kept by the plan (allocated once): x (and y when
        beta != 0) written in the plan's precision, multiplied, y read back, the plan's synchronization checked."""
        h = self.handle
        if self._bufs is None:
            self._bufs = (DeviceArray.empty(self.ctx, (self.shape[1],), self.dtype),
                          DeviceArray.empty(self.ctx, (self.shape[0],), self.dtype))
        xb, yb = self._bufs
        q = self.ctx.cl_queue
        xs = x.astype(self.dtype, copy=False)
        _cl.write(q, xb.mem, 0, xs, blocking=False)  # xs and ys outlive the blocking read below (in-order queue)
        ys = y.astype(self.dtype, copy=False) if beta != 0 else None
        if ys is not None:
            _cl.write(q, yb.mem, 0, ys, blocking=False)
        _lib.check(lib.clpk_spmv(h, alpha, xb.mem, 0, beta, yb.mem, 0, 0, None, None), self.ctx.handle)
        out = y if self.dtype == np.float64 else np.empty(y.shape, self.dtype)
        _cl.read(q, yb.mem, 0, out)
        _lib.check(lib.clpk_spmv_plan_check(h), self.ctx.handle)
        if out is not y:
            y[...] = out

    def _host_one_library(self, lib, alpha, x, beta, y):
        """The same through the C library's host convenience clpk_spmv_host (buffers made per call; for
        comparison in examples/device_vs_host.py)."""
        _lib.check(lib.clpk_spmv_host(self.handle, alpha, x.ctypes.data, beta, y.ctypes.data), self.ctx.handle)

    def _matvec_device(self, x, alpha, beta, y):
        rows, cols = self.shape
        lib = _lib.load()
        if isinstance(x, DeviceArray):
            if y is not None and not isinstance(y, DeviceArray):
                raise TypeError("x is a clpk.DeviceArray: y must be one too (or None)")
            self._check_device(x, "x", cols)
            if x.ctx is not self.ctx:
                raise ValueError("x lives on another clpk.Context than the plan")
            if y is None:
                if beta != 0:
                    raise ValueError("beta = %g needs y" % beta)
                y = DeviceArray.empty(self.ctx, (rows,), self.dtype)
            else:
                self._check_device(y, "y", rows)
                if y.ctx is not self.ctx:
                    raise ValueError("y lives on another clpk.Context than the plan")
            if y.mem == x.mem:
                raise ValueError("x and y must not be the same buffer")
            _lib.check(lib.clpk_spmv(self.handle, alpha, x.mem, 0, beta, y.mem, 0, 0, None, None), self.ctx.handle)
            return y
        return self._matvec_pyopencl(lib, x, alpha, beta, y)

    def _check_device(self, a, name, n):
        if a.dtype != self.dtype:
            raise TypeError("%s is %s on the device; this %s plan needs %s (convert on the host, or make the plan "
                            "with precision=%r)" % (name, a.dtype, self.precision, self.dtype,
                                                    "f64" if a.dtype == np.float64 else "f32"))
        if a.size != n or a.ndim != 1:
            raise ValueError("%s has shape %s, expected (%d,) (A is %dx%d)" % (name, a.shape, n, *self.shape))

    def _matvec_pyopencl(self, lib, x, alpha, beta, y):
        import pyopencl.array as cla
        rows, cols = self.shape
        ctx_ptr = self.ctx.cl_context
        for name, a, n in (("x", x, cols),) + ((("y", y, rows),) if y is not None else ()):
            if not is_pyopencl_array(a):
                raise TypeError("x is a pyopencl array: y must be one too (or None)")
            if a.context.int_ptr != ctx_ptr:
                raise ValueError("%s belongs to another OpenCL context: make arrays on ctx.pyopencl_queue() or create "
                                 "the clpk.Context with Context.from_pyopencl(queue)" % name)
            self._check_device(a, name, n)
            if not a.flags.c_contiguous:
                raise ValueError("%s must be contiguous" % name)
        if y is None:
            if beta != 0:
                raise ValueError("beta = %g needs y" % beta)
            y = cla.empty(x.queue, (rows,), self.dtype)
        own_queue = self.ctx.cl_queue
        for a in (x, y):
            if a.queue is not None and a.queue.int_ptr != own_queue:
                a.queue.finish()
        xo, yo = x.offset // x.dtype.itemsize, y.offset // y.dtype.itemsize
        if x.base_data.int_ptr == y.base_data.int_ptr:
            raise ValueError("x and y must not share a buffer")
        _lib.check(lib.clpk_spmv(self.handle, alpha, x.base_data.int_ptr, xo, beta, y.base_data.int_ptr, yo, 0, None,
                                 None), self.ctx.handle)
        if y.queue is not None and y.queue.int_ptr != own_queue:
            self.ctx.finish()
        return y

    def check(self):
        """Waits for this plan's launches; raises clpk.Error (CLPK_ERROR_TIMEOUT) if an adjacent-synchronization wait
        ran past its bound since the last check (those results are wrong). The host path checks every call."""
        _lib.check(_lib.load().clpk_spmv_plan_check(self.handle), self.ctx.handle)

    def bench(self, warmup=3, repeats=20):
        """Device time of one product measured with profiling events on the plan's own vectors (no host copies):
        a dict of clpk_bench_stats (median_ms, min_ms, ..., gbps, gflops)."""
        st = S.new(S.clpk_bench_stats)
        _lib.check(_lib.load().clpk_spmv_plan_bench(self.handle, positive_int(warmup, "warmup", 0),
                                                    positive_int(repeats, "repeats"), C.byref(st)), self.ctx.handle)
        return {name: getattr(st, name) for name, _ in S.clpk_bench_stats._fields_}

    def aslinearoperator(self):
        """A scipy.sparse.linalg.LinearOperator for scipy's iterative solvers (host vectors)."""
        from scipy.sparse.linalg import LinearOperator
        return LinearOperator(self.shape, matvec=lambda v: self.matvec(np.ravel(v)), dtype=np.float64)


def generate(spec, seed=1):
    """A test matrix from the library's generator (clpk_spmv_generate: "fem:N", "stencil3d:N", "random:R:C:K",
    "powerlaw:N", ...) as a scipy.sparse.csr_matrix."""
    import scipy.sparse as sp
    lib = _lib.load()
    m = S.new(S.clpk_csr)
    err = _lib.new_error()
    _lib.check(lib.clpk_spmv_generate(str(spec).encode(), int(seed), C.byref(m), C.byref(err)), err=err)
    try:
        rows, nnz = m.rows, m.nnz
        ptr = np.ctypeslib.as_array(m.row_ptr, (rows + 1,)).copy()
        col = np.ctypeslib.as_array(m.col, (nnz,)).copy() if nnz else np.zeros(0, np.int32)
        val = np.ctypeslib.as_array(m.val, (nnz,)).copy() if nnz else np.zeros(0)
        return sp.csr_matrix((val, col, ptr), shape=(rows, m.cols))
    finally:
        lib.clpk_csr_free(C.byref(m))
