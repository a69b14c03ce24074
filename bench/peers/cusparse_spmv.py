#!/usr/bin/env python3
"""cuSPARSE peer for the SpMV benchmark: y = A x with cupyx.cusparse.spmv and a preallocated output, timed with
CUDA events (median of >= 50 runs after warm-up), on the same matrices clpk runs.

Matrices: Matrix Market files, or directories holding csr_row_ptr.npy, csr_col.npy, csr_val.npy (+ shape.npy) as
written by clpk's benchmark generator. Usage: cusparse_spmv.py A.mtx DIR ... [--precision f32,f64] [--json out.json]
"""
import argparse
import json
import os
import sys

import numpy as np


def load_csr(path):
    import scipy.io
    import scipy.sparse
    if os.path.isdir(path):
        rp = np.load(os.path.join(path, "csr_row_ptr.npy"))
        col = np.load(os.path.join(path, "csr_col.npy"))
        val = np.load(os.path.join(path, "csr_val.npy"))
        shape = tuple(np.load(os.path.join(path, "shape.npy")))
        return scipy.sparse.csr_matrix((val.astype(np.float64), col, rp), shape=shape)
    m = scipy.io.mmread(path)
    if np.iscomplexobj(m.data if hasattr(m, "data") else m):
        raise ValueError("complex matrix")
    return scipy.sparse.csr_matrix(m, dtype=np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("matrices", nargs="+")
    ap.add_argument("--precision", default="f32,f64")
    ap.add_argument("--repeats", type=int, default=100)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import cupy as cp
    import cupyx.cusparse
    import cupyx.scipy.sparse as csp
    results = []
    for path in args.matrices:
        try:
            A = load_csr(path)
        except ValueError as e:
            print(json.dumps({"matrix": path, "skipped": str(e)}))
            continue
        A.sum_duplicates()
        rows, cols = A.shape
        x_host = np.cos(np.arange(cols) * 0.37)  # any deterministic non-trivial vector
        for prec in args.precision.split(","):
            dt = np.float32 if prec == "f32" else np.float64
            dA = csp.csr_matrix(A.astype(dt))
            x = cp.asarray(x_host.astype(dt))
            y = cp.zeros(rows, dtype=dt)
            for _ in range(5):
                cupyx.cusparse.spmv(dA, x, y=y, alpha=1.0, beta=0.0)
            cp.cuda.Device().synchronize()
            ref = A @ x_host
            err = float(np.max(np.abs(cp.asnumpy(y) - ref)) / max(np.max(np.abs(ref)), 1e-300))
            times = []
            for _ in range(args.repeats):
                s, e = cp.cuda.Event(), cp.cuda.Event()
                s.record()
                cupyx.cusparse.spmv(dA, x, y=y, alpha=1.0, beta=0.0)
                e.record()
                e.synchronize()
                times.append(cp.cuda.get_elapsed_time(s, e))
            ms = float(np.median(times))
            vb = np.dtype(dt).itemsize
            bytes_ = A.nnz * (vb + 4) + (rows + 1) * 4 + cols * vb + rows * vb
            rec = {"peer": "cusparse", "matrix": os.path.basename(path.rstrip("/")), "rows": rows, "cols": cols,
                   "nnz": int(A.nnz), "precision": prec, "median_ms": ms, "gflops": 2 * A.nnz / (ms * 1e6),
                   "csr_gbps": bytes_ / (ms * 1e6), "rel_error": err}
            print(json.dumps(rec))
            sys.stdout.flush()
            results.append(rec)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
