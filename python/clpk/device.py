"""Device-resident arrays: a cl_mem on a clpk context, so repeated products keep their vectors on the device.

``clpk.DeviceArray`` needs nothing beyond libclpk. When pyopencl is installed, its arrays work too (SpMV.matvec
accepts and returns ``pyopencl.array.Array`` of the context's cl_context, e.g. made on ``ctx.pyopencl_queue()``).
"""
import numpy as np

from . import _cl
from ._convert import real_array


class DeviceArray:
    """A C-ordered array of float32/float64 (or int32) held in a buffer on ``ctx``'s device.

    ``DeviceArray(ctx, host_array, dtype=None)`` uploads (converting to dtype); ``DeviceArray.empty(ctx, shape,
    dtype)`` / ``.zeros(...)`` allocate. ``get()`` downloads (blocking, after everything queued before it),
    ``set(a)`` uploads, ``copy()`` duplicates on the device, ``release()`` frees now (closing the context does too).
    All commands go to the context's in-order queue, so results of earlier launches are visible to later ones.
    """

    _DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32))

    def __init__(self, ctx, host=None, dtype=None, *, shape=None):
        if host is None and shape is None:
            raise ValueError("DeviceArray needs a host array or a shape")
        if host is not None:
            src = np.asarray(host)
            dt = np.dtype(dtype) if dtype is not None else (src.dtype if src.dtype in self._DTYPES else
                                                            np.dtype(np.float64))
        else:
            dt = np.dtype(dtype if dtype is not None else np.float64)
        if dt not in self._DTYPES:
            raise TypeError("DeviceArray dtype must be float32, float64 or int32, not %s" % dt)
        if host is not None:
            src = real_array(host, "DeviceArray host data", dtype=dt)
            shape = src.shape
        self.ctx = ctx
        self.dtype = dt
        self.shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if any(s < 0 for s in self.shape):
            raise ValueError("DeviceArray shape must be non-negative, got %s" % (self.shape,))
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * dt.itemsize
        self._mem = _cl.create_buffer(ctx.cl_context, self.nbytes)
        ctx._adopt(self)
        if host is not None:
            _cl.write(ctx.cl_queue, self._mem, 0, src)

    @classmethod
    def empty(cls, ctx, shape, dtype=np.float64):
        return cls(ctx, None, dtype, shape=shape)

    @classmethod
    def zeros(cls, ctx, shape, dtype=np.float64):
        a = cls(ctx, None, dtype, shape=shape)
        _cl.fill(ctx.cl_queue, a.mem, np.zeros(1, a.dtype), a.nbytes)
        return a

    @property
    def mem(self):
        """The cl_mem handle (int)."""
        if not self._mem:
            raise ValueError("this DeviceArray has been released (or its context closed)")
        return self._mem

    @property
    def ndim(self):
        return len(self.shape)

    def __len__(self):
        return self.shape[0] if self.shape else 1

    def get(self, out=None):
        """Downloads into a new NumPy array (or into `out`, a C-contiguous array of the same dtype and shape)."""
        mem = self.mem
        if out is None:
            out = np.empty(self.shape, self.dtype)
        elif not isinstance(out, np.ndarray) or out.dtype != self.dtype or out.shape != self.shape or \
                not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out must be a writable C-contiguous %s array of shape %s" % (self.dtype, self.shape))
        _cl.read(self.ctx.cl_queue, mem, 0, out)
        return out

    def set(self, host):
        """Uploads `host` (same shape; converted to the array's dtype)."""
        mem = self.mem
        src = real_array(host, "DeviceArray.set", dtype=self.dtype, shape=self.shape)
        _cl.write(self.ctx.cl_queue, mem, 0, src)
        return self

    def copy(self):
        mem = self.mem
        b = DeviceArray.empty(self.ctx, self.shape, self.dtype)
        _cl.copy(self.ctx.cl_queue, mem, b.mem, self.nbytes)
        return b

    def fill(self, value):
        mem = self.mem
        _cl.fill(self.ctx.cl_queue, mem, np.array([value], self.dtype), self.nbytes)
        return self

    def release(self):
        if self._mem:
            _cl.release(self._mem)
            self._mem = None

    close = release

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass

    def __repr__(self):
        return "<clpk.DeviceArray %s %s%s>" % (self.dtype, self.shape, "" if self._mem else " released")


def is_pyopencl_array(a):
    mod = type(a).__module__
    return mod.startswith("pyopencl") and hasattr(a, "base_data") and hasattr(a, "queue")
