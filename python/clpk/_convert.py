"""Checking and converting NumPy input: clear ValueError/TypeError for what cannot be used, copies where needed."""
import numbers

import numpy as np

PRECISIONS = {"f32": 1, "float": 1, "single": 1, "float32": 1, "f64": 2, "double": 2, "float64": 2}
DTYPES = {1: np.dtype(np.float32), 2: np.dtype(np.float64)}


def precision(p, what="precision"):
    """'f32'/'f64' (and numpy float32/float64 dtypes) -> 1 or 2."""
    if isinstance(p, str) and p.lower() in PRECISIONS:
        return PRECISIONS[p.lower()]
    try:
        dt = np.dtype(p)
    except TypeError:
        dt = None
    if dt in (np.dtype(np.float32), np.dtype(np.float64)):
        return 1 if dt == np.float32 else 2
    raise ValueError("%s must be 'f32' or 'f64', not %r" % (what, p))


def real_array(a, name, dtype=np.float64, ndim=None, shape=None):
    """A C-contiguous array of `dtype` from anything array-like of real numbers (ints and bools converted; complex,
    object and string arrays refused). A copy only when the input is not already that."""
    if hasattr(a, "get") and type(a).__module__.startswith("pyopencl"):
        raise TypeError("%s: a pyopencl array is accepted only where noted (SpMV.matvec); use .get() first" % name)
    try:
        arr = np.asarray(a)
    except Exception as e:
        raise TypeError("%s: cannot be read as an array (%s)" % (name, e)) from None
    if arr.dtype.kind == "c":
        raise TypeError("%s: complex values are not supported (pass the real and imaginary parts separately)" % name)
    if arr.dtype.kind not in "biuf":
        raise TypeError("%s: expected real numbers, got dtype %s" % (name, arr.dtype))
    if ndim is not None and arr.ndim not in (ndim if isinstance(ndim, tuple) else (ndim,)):
        raise ValueError("%s: expected %s dimension(s), got shape %s" % (name, ndim, arr.shape))
    if shape is not None and arr.shape != tuple(shape):
        raise ValueError("%s: expected shape %s, got %s" % (name, tuple(shape), arr.shape))
    return np.ascontiguousarray(arr, dtype=dtype)


def index_array(a, name, limit=None):
    """A C-contiguous int32 array of indices in [0, limit) (limit None: [0, 2^31))."""
    arr = np.asarray(a)
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and arr.size and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            pass
        elif arr.size:
            raise TypeError("%s: expected integer indices, got dtype %s" % (name, arr.dtype))
    if arr.size:
        lo, hi = arr.min(), arr.max()
        top = (1 << 31) - 1 if limit is None else limit
        if lo < 0 or hi >= top:
            raise ValueError("%s: indices must lie in [0, %d), found %d..%d" % (name, top, lo, hi))
    return np.ascontiguousarray(arr, dtype=np.int32)


def scalar(v, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError("%s must be a real number, not %r" % (name, v))
    return float(v)


def positive_int(v, name, minimum=1):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError("%s must be an integer, not %r" % (name, v))
    if v < minimum:
        raise ValueError("%s must be >= %d, got %d" % (name, minimum, v))
    return int(v)


def params_text(params, name="params"):
    """None, a 'k=v,...' string or a dict -> bytes or None."""
    if params is None:
        return None
    if isinstance(params, dict):
        params = ",".join("%s=%s" % (k, v) for k, v in params.items())
    if not isinstance(params, str):
        raise TypeError("%s must be a 'k=v,...' string or a dict, not %r" % (name, type(params).__name__))
    return params.encode()


def parse_params(text):
    """'k=v,...' or 'k=v k=v' -> dict (numbers converted)."""
    out = {}
    for item in text.replace(",", " ").split():
        if "=" not in item:
            continue
        k, v = item.split("=", 1)
        out[k] = _number(v)
    return out


def _number(v):
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v
