#!/usr/bin/env python3
"""Host vectors vs device-resident vectors for repeated SpMV: time per product of
  - plan @ x with NumPy arrays (each call converts, copies x into the plan's device vector and y back, and waits),
  - the C library's clpk_spmv_host (the same, with device buffers created per call),
  - clpk.DeviceArray x and y (nothing crosses to the host; waited for after each product, and after a batch),
  - pyopencl arrays (when pyopencl is installed), and the kernel alone (profiling events, plan.bench()).

    python3 python/examples/device_vs_host.py [--spec fem:300] [--precision f32] [--repeats 50] [--device SEL]
"""
import argparse
import time

import numpy as np

import clpk


def per_call(fn, repeats):
    fn()  # warm: kernels built, buffers allocated
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default="fem:300", help="clpk.generate_matrix spec (fem:300: 180 000 rows)")
    ap.add_argument("--precision", default="f32")
    ap.add_argument("--repeats", type=int, default=50)
    ap.add_argument("--device", default=None)
    args = ap.parse_args()
    A = clpk.generate_matrix(args.spec, seed=1)
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, A.shape[1])
    with clpk.Context(args.device) as ctx:
        plan = clpk.SpMV(ctx, A, precision=args.precision)
        dt = plan.dtype
        print("%s: %d x %d, %d nonzeros, %s, device %s" % (args.spec, A.shape[0], A.shape[1], A.nnz, args.precision,
                                                          ctx.device["name"]))
        print("plan: %s" % plan.describe()["text"])
        y = np.empty(A.shape[0])
        rows = [("NumPy in/out (host copies)", per_call(lambda: plan.matvec(x, y=y), args.repeats))]
        lib = clpk._lib.load()
        rows.append(("clpk_spmv_host (C, per call)",
                     per_call(lambda: plan._host_one_library(lib, 1.0, x, 0.0, y), args.repeats)))
        xd, yd = clpk.DeviceArray(ctx, x, dt), clpk.DeviceArray.empty(ctx, A.shape[0], dt)

        def dev_one():
            plan.matvec(xd, y=yd)
            ctx.finish()
        rows.append(("DeviceArray, wait each", per_call(dev_one, args.repeats)))

        def dev_batch():
            for _ in range(10):
                plan.matvec(xd, y=yd)
            ctx.finish()
        rows.append(("DeviceArray, 10 then wait", per_call(dev_batch, max(args.repeats // 10, 3)) / 10))
        assert np.allclose(yd.get(), A @ x, rtol=1e-3, atol=1e-3 * np.abs(A @ x).max())
        try:
            import pyopencl.array as cla
            q = ctx.pyopencl_queue()
            xa, ya = cla.to_device(q, x.astype(dt)), cla.empty(q, A.shape[0], dt)

            def pcl_one():
                plan.matvec(xa, y=ya)
                q.finish()
            rows.append(("pyopencl arrays, wait each", per_call(pcl_one, args.repeats)))
        except ImportError:
            print("pyopencl not installed: its row is skipped")
        b = plan.bench(warmup=3, repeats=args.repeats)
        rows.append(("kernel alone (events)", b["median_ms"]))
        host = rows[0][1]
        for label, ms in rows:
            print("%-30s %9.3f ms per product  (%5.2fx the host-copy path's speed)" % (label, ms, host / ms))


if __name__ == "__main__":
    main()
