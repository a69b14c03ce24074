"""Device-resident vectors: clpk.DeviceArray (always) and pyopencl arrays (when pyopencl is installed)."""
import numpy as np
import pytest
import scipy.sparse as sp

import clpk
from conftest import rel_error


def matrix(rng, n=500):
    return sp.random(n, n, density=0.02, format="csr", random_state=np.random.RandomState(rng.integers(2 ** 31)),
                     data_rvs=lambda k: rng.uniform(-1, 1, k))


def test_device_array_roundtrip(ctx, rng):
    h = rng.uniform(-1, 1, (3, 5))
    d = clpk.DeviceArray(ctx, h)
    assert d.dtype == np.float64 and d.shape == (3, 5) and d.nbytes == 120
    assert np.array_equal(d.get(), h)
    d32 = clpk.DeviceArray(ctx, h[:, ::2], np.float32)  # non-contiguous input is copied
    assert np.array_equal(d32.get(), h[:, ::2].astype(np.float32))
    d.set(np.zeros((3, 5)))
    assert not d.get().any()
    e = clpk.DeviceArray.zeros(ctx, 7, np.float32)
    assert e.shape == (7,) and not e.get().any()
    f = e.copy().fill(2.5)
    assert np.all(f.get() == 2.5) and not e.get().any()
    d.release()
    with pytest.raises(ValueError, match="released"):
        d.get()
    with pytest.raises(TypeError, match="dtype"):
        clpk.DeviceArray(ctx, np.ones(3), np.int8)
    with pytest.raises(ValueError, match="shape"):
        f.set(np.ones(8))
    with pytest.raises(ValueError, match="out"):
        f.get(out=np.empty(7))


def test_spmv_on_device_arrays(ctx, rng):
    A = matrix(rng)
    plan = clpk.SpMV(ctx, A)
    x = rng.uniform(-1, 1, 500)
    xd = clpk.DeviceArray(ctx, x, np.float32)
    yd = plan @ xd
    assert isinstance(yd, clpk.DeviceArray) and yd.dtype == np.float32
    assert rel_error(A @ x, yd.get()) <= 2e-6
    # accumulate on the device: y = 2 A x - y, ten times, read once
    y0 = rng.uniform(-1, 1, 500)
    yd.set(y0)
    ref = y0.copy()
    for _ in range(10):
        plan.matvec(xd, alpha=2.0, beta=-1.0, y=yd)
        ref = 2 * (A @ x) - ref
    plan.check()
    assert rel_error(ref, yd.get()) <= 1e-5
    # errors: dtype, length, mixing host and device, aliasing, another context
    with pytest.raises(TypeError, match="float64 on the device"):
        plan @ clpk.DeviceArray(ctx, x)
    with pytest.raises(ValueError, match="shape"):
        plan @ clpk.DeviceArray(ctx, x[:-1], np.float32)
    with pytest.raises(TypeError, match="host array but y"):
        plan.matvec(x, y=yd)
    with pytest.raises(TypeError, match="DeviceArray"):
        plan.matvec(xd, y=np.zeros(500))
    with pytest.raises(ValueError, match="same buffer"):
        plan.matvec(xd, y=xd)
    sel = "%s,%s" % (ctx.device["implementation"], ctx.device["kind"])
    with clpk.Context(sel) as other:
        with pytest.raises(ValueError, match="another clpk.Context"):
            plan @ clpk.DeviceArray(other, x, np.float32)


def test_pyopencl_arrays(ctx, rng):
    cla = pytest.importorskip("pyopencl.array", reason="pyopencl not installed (apt-get install python3-pyopencl)")
    A = matrix(rng)
    plan = clpk.SpMV(ctx, A)
    q = ctx.pyopencl_queue()
    x = rng.uniform(-1, 1, 500)
    xa = cla.to_device(q, x.astype(np.float32))
    ya = plan @ xa
    assert isinstance(ya, cla.Array) and ya.dtype == np.float32
    assert rel_error(A @ x, ya.get()) <= 2e-6
    # a slice with an offset as y, beta accumulating, pyopencl arithmetic in between
    big = cla.to_device(q, np.ones(600, np.float32))
    view = big[50:550]
    plan.matvec(xa, alpha=1.0, beta=1.0, y=view)
    z = (view * 2).get()
    assert rel_error(2 * (A @ x + 1), z) <= 2e-6 and np.all(big.get()[:50] == 1)
    with pytest.raises(TypeError, match="float64 on the device"):
        plan @ cla.to_device(q, x)
    # an array of another OpenCL context is refused with a hint
    import pyopencl as cl
    other = cl.Context([q.device])
    q2 = cl.CommandQueue(other)
    with pytest.raises(ValueError, match="another OpenCL context"):
        plan @ cla.to_device(q2, x.astype(np.float32))
    # a clpk context adopting a pyopencl queue
    c2 = clpk.Context.from_pyopencl(q2)
    try:
        p2 = clpk.SpMV(c2, A)
        assert rel_error(A @ x, (p2 @ cla.to_device(q2, x.astype(np.float32))).get()) <= 2e-6
    finally:
        c2.close()
