#!/usr/bin/env python3
"""Conjugate gradients with clpk.SpMV on a FEM stiffness matrix: host NumPy vectors (two copies per product) and,
when pyopencl is installed, every vector on the device (no copies inside the loop).

    python3 python/examples/cg_fem.py [--matrix ../shared/data/matrices/bcsstk16.mtx | --generate N] [--device SEL]

Without --matrix and without the shared data it generates an SPD 2-D FEM-like matrix (clpk's "fem:N" pattern).
The system is Jacobi-scaled (D^-1/2 A D^-1/2), b = A x_true with a seeded random x_true.
"""
import argparse
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import clpk

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "data" / "matrices" / "bcsstk16.mtx"


def spd_fem(n, seed):
    """The fem:N pattern with symmetric values made strictly diagonally dominant: SPD."""
    B = clpk.generate_matrix("fem:%d" % n, seed=seed)
    S = abs(B + B.T) * 0.5
    S.setdiag(0)
    S.eliminate_zeros()
    return (-S + sp.diags(np.asarray(S.sum(axis=1)).ravel() + 1.0)).tocsr()


def cg(matvec, dot, axpy, b, x, tol, maxiter):
    """Plain CG on abstract vectors (host or device): returns iterations and the final residual norm."""
    r = b - matvec(x)
    p = r.copy()
    rr = dot(r, r)
    stop = tol * tol * dot(b, b)
    for it in range(1, maxiter + 1):
        Ap = matvec(p)
        a = rr / dot(p, Ap)
        axpy(a, p, x)
        axpy(-a, Ap, r)
        rr_new = dot(r, r)
        if rr_new <= stop:
            return it, np.sqrt(rr_new)
        p *= rr_new / rr
        p += r
        rr = rr_new
    return maxiter, np.sqrt(rr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrix", default=str(DEFAULT))
    ap.add_argument("--generate", type=int, default=0, help="use an SPD fem:N matrix (2 N^2 unknowns)")
    ap.add_argument("--device", default=None)
    ap.add_argument("--precision", default="f64")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxiter", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.generate or not Path(args.matrix).exists():
        n = args.generate or 200
        A, name = spd_fem(n, args.seed), "SPD fem:%d" % n
    else:
        import scipy.io
        A, name = scipy.io.mmread(args.matrix).tocsr(), Path(args.matrix).name
    d = 1 / np.sqrt(A.diagonal())
    A = (sp.diags(d) @ A @ sp.diags(d)).tocsr()
    rng = np.random.default_rng(args.seed)
    x_true = rng.uniform(-1, 1, A.shape[0])
    b = A @ x_true
    print("%s: %d unknowns, %d nonzeros; seed %d" % (name, A.shape[0], A.nnz, args.seed))

    with clpk.Context(args.device) as ctx:
        plan = clpk.SpMV(ctx, A, precision=args.precision)
        print("device %s, plan %s" % (ctx.device["name"], plan.describe()["text"]))

        def axpy(a, v, out):
            out += a * v

        runs = [("scipy.sparse (host)", lambda v: A @ v), ("clpk, host vectors", lambda v: plan @ v)]
        for label, mv in runs:
            x = np.zeros_like(b)
            t = time.perf_counter()
            its, res = cg(mv, np.dot, axpy, b, x, args.tol, args.maxiter)
            t = time.perf_counter() - t
            print("%-28s %5d iterations, %.3f s (%.3f ms/iteration), |r|/|b| %.2e, error %.2e"
                  % (label, its, t, 1e3 * t / its, res / np.linalg.norm(b),
                     np.linalg.norm(x - x_true) / np.linalg.norm(x_true)))
        try:
            import pyopencl.array as cla
        except ImportError:
            print("pyopencl not installed: skipping the device-resident run (apt-get install python3-pyopencl)")
            return
        q = ctx.pyopencl_queue()
        bd = cla.to_device(q, b.astype(plan.dtype))
        xd = cla.zeros(q, b.shape, plan.dtype)

        def dev_axpy(a, v, out):
            out += a * v

        def dev_dot(u, v):
            return float(cla.dot(u, v).get())

        def dev_matvec(v):
            return plan.matvec(v)

        cg(dev_matvec, dev_dot, dev_axpy, bd, cla.zeros_like(xd), args.tol, 2)  # builds pyopencl's kernels
        t = time.perf_counter()
        its, res = cg(dev_matvec, dev_dot, dev_axpy, bd, xd, args.tol, args.maxiter)
        t = time.perf_counter() - t
        x = xd.get()
        print("%-28s %5d iterations, %.3f s (%.3f ms/iteration), |r|/|b| %.2e, error %.2e"
              % ("clpk + pyopencl (device)", its, t, 1e3 * t / its, res / np.linalg.norm(b),
                 np.linalg.norm(x - x_true) / np.linalg.norm(x_true)))


if __name__ == "__main__":
    main()
