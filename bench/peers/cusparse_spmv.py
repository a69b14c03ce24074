#!/usr/bin/env python3
"""cuSPARSE peer for the SpMV benchmark, timed fairly: y = A x on the same matrices clpk runs.

What is timed is cuSPARSE's GPU time alone. Descriptors, the workspace and the scalars are made once (as CuPy's own
_make_fast_matvec does); then `--calls` back-to-back cusparseSpMV calls run between two CUDA events, and the time per
call is the median over `--batches` such batches, after a warm-up. cupyx.cusparse.spmv would instead create the
descriptors and query the workspace on every call, host work that lands inside an event pair timed around one call
(CuPy refuses to capture cuSPARSE calls into a CUDA graph, so graphs are no way around it).

Algorithms: CSR with CUSPARSE_SPMV_CSR_ALG1 and ALG2, the best reported (both are kept in the record). With
--bsr B (or a `bsr_block.npy` beside a matrix directory) also the legacy cusparse<t>bsrmv on B x B blocks, which
is cuSPARSE's block-structured path; the record's `best_ms` is the best of all.

Matrices: Matrix Market files, or directories holding csr_row_ptr.npy, csr_col.npy, csr_val.npy (+ shape.npy) as
written by clpk's benchmark generator. Every result is checked against scipy in double precision.
Usage: cusparse_spmv.py A.mtx DIR ... [--precision f32,f64] [--calls 200] [--batches 7] [--bsr 3] [--json out.json]
"""
import argparse
import ctypes
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
        shape = tuple(int(v) for v in np.load(os.path.join(path, "shape.npy")))
        return scipy.sparse.csr_matrix((val.astype(np.float64), col, rp), shape=shape)
    m = scipy.io.mmread(path)
    if np.iscomplexobj(m.data if hasattr(m, "data") else m):
        raise ValueError("complex matrix")
    return scipy.sparse.csr_matrix(m, dtype=np.float64)


def time_batches(cp, call, calls, batches):
    """Median milliseconds per call over `batches` batches of `calls` back-to-back calls between two events."""
    for _ in range(10):
        call()
    cp.cuda.Device().synchronize()
    per_call = []
    for _ in range(batches):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        for _ in range(calls):
            call()
        e.record()
        e.synchronize()
        per_call.append(cp.cuda.get_elapsed_time(s, e) / calls)
    return float(np.median(per_call))


def rel_error(cp, y, ref):
    return float(np.max(np.abs(cp.asnumpy(y).astype(np.float64) - ref)) / max(np.max(np.abs(ref)), 1e-300))


def csr_generic(cp, A, dt, x_host, ref, calls, batches):
    """cusparseSpMV on a CSR descriptor, every CSR algorithm: {alg name: (ms, rel_error)}."""
    import cupyx.cusparse as cusparse
    import cupyx.scipy.sparse as csp
    from cupy._core import _dtype
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cusparse as lib
    dA = csp.csr_matrix(A.astype(dt))
    x = cp.asarray(x_host.astype(dt))
    y = cp.full(A.shape[0], np.nan, dtype=dt)
    handle = device.get_cusparse_handle()
    op = lib.CUSPARSE_OPERATION_NON_TRANSPOSE
    alpha, beta = np.array(1.0, dt), np.array(0.0, dt)
    cuda_dtype = _dtype.to_cuda_dtype(np.dtype(dt))
    desc_a = cusparse.SpMatDescriptor.create(dA)
    desc_x, desc_y = cusparse.DnVecDescriptor.create(x), cusparse.DnVecDescriptor.create(y)
    algs = {"csr_alg1": getattr(lib, "CUSPARSE_SPMV_CSR_ALG1", 2), "csr_alg2": getattr(lib, "CUSPARSE_SPMV_CSR_ALG2", 3)}
    out = {}
    for name, alg in algs.items():
        size = lib.spMV_bufferSize(handle, op, alpha.ctypes.data, desc_a.desc, desc_x.desc, beta.ctypes.data,
                                   desc_y.desc, cuda_dtype, alg)
        buf = cp.empty(max(int(size), 1), cp.int8)

        def call():
            lib.spMV(handle, op, alpha.ctypes.data, desc_a.desc, desc_x.desc, beta.ctypes.data, desc_y.desc,
                     cuda_dtype, alg, buf.data.ptr)
        y.fill(np.nan)
        call()
        cp.cuda.Device().synchronize()
        err = rel_error(cp, y, ref)
        out[name] = (time_batches(cp, call, calls, batches), err)
    return out


def libcusparse():
    """The libcusparse CuPy loaded (for the legacy bsrmv, which CuPy does not wrap)."""
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()[-1]
            if "libcusparse.so" in p:
                return ctypes.CDLL(p)
    return ctypes.CDLL("libcusparse.so")


def bsr_legacy(cp, A, dt, x_host, ref, b, calls, batches):
    """cusparse<t>bsrmv on b x b row-major blocks: (ms, rel_error, block fill)."""
    import scipy.sparse
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cusparse as lib
    rows, cols = A.shape
    pr, pc = -rows % b, -cols % b
    Ap = scipy.sparse.csr_matrix((A.data, A.indices, np.append(A.indptr, [A.indptr[-1]] * pr)),
                                 shape=(rows + pr, cols + pc))
    B = Ap.tobsr(blocksize=(b, b))
    fill = A.nnz / (B.data.shape[0] * b * b)
    val = cp.asarray(np.ascontiguousarray(B.data.astype(dt)))
    rp, ci = cp.asarray(B.indptr.astype(np.int32)), cp.asarray(B.indices.astype(np.int32))
    x = cp.zeros(cols + pc, dtype=dt)
    x[:cols] = cp.asarray(x_host.astype(dt))
    y = cp.full(rows + pr, np.nan, dtype=dt)
    so = libcusparse()
    fn = so.cusparseSbsrmv if dt == np.float32 else so.cusparseDbsrmv
    handle = device.get_cusparse_handle()
    descr = lib.createMatDescr()
    alpha, beta = np.array(1.0, dt), np.array(0.0, dt)
    mb, nb, nnzb = (rows + pr) // b, (cols + pc) // b, int(B.indices.shape[0])
    vp = ctypes.c_void_p

    def call():
        st = fn(vp(handle), ctypes.c_int(0), ctypes.c_int(lib.CUSPARSE_OPERATION_NON_TRANSPOSE), ctypes.c_int(mb),
                ctypes.c_int(nb), ctypes.c_int(nnzb), vp(alpha.ctypes.data), vp(descr), vp(val.data.ptr),
                vp(rp.data.ptr), vp(ci.data.ptr), ctypes.c_int(b), vp(x.data.ptr), vp(beta.ctypes.data),
                vp(y.data.ptr))
        if st != 0:
            raise RuntimeError("cusparse bsrmv status %d" % st)
    call()
    cp.cuda.Device().synchronize()
    err = rel_error(cp, y[:rows], ref)
    ms = time_batches(cp, call, calls, batches)
    lib.destroyMatDescr(descr)
    return ms, err, fill


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("matrices", nargs="+")
    ap.add_argument("--precision", default="f32,f64")
    ap.add_argument("--calls", type=int, default=200, help="back-to-back calls between two events")
    ap.add_argument("--batches", type=int, default=7, help="timed batches (median)")
    ap.add_argument("--repeats", type=int, default=None, help="ignored (older drivers passed it)")
    ap.add_argument("--bsr", type=int, default=0, help="also time BSR bsrmv with this block size")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import cupy as cp
    results = []
    for path in args.matrices:
        try:
            A = load_csr(path)
        except ValueError as e:
            print(json.dumps({"matrix": path, "skipped": str(e)}))
            continue
        A.sum_duplicates()
        A.sort_indices()
        rows, cols = A.shape
        x_host = np.cos(np.arange(cols) * 0.37)  # any deterministic non-trivial vector
        ref = A @ x_host
        b = args.bsr
        hint = os.path.join(path, "bsr_block.npy")
        if not b and os.path.isdir(path) and os.path.exists(hint):
            b = int(np.load(hint))
        for prec in args.precision.split(","):
            dt = np.float32 if prec == "f32" else np.float64
            tol = 1e-4 if prec == "f32" else 1e-11
            algs = csr_generic(cp, A, dt, x_host, ref, args.calls, args.batches)
            vb = np.dtype(dt).itemsize
            bytes_ = A.nnz * (vb + 4) + (rows + 1) * 4 + cols * vb + rows * vb
            rec = {"peer": "cusparse", "matrix": os.path.basename(path.rstrip("/")), "rows": rows, "cols": cols,
                   "nnz": int(A.nnz), "precision": prec, "calls_per_batch": args.calls, "batches": args.batches}
            for name, (ms, err) in algs.items():
                rec[name + "_ms"], rec[name + "_rel_error"] = ms, err
            if b > 1:
                try:
                    ms, err, fill = bsr_legacy(cp, A, dt, x_host, ref, b, args.calls, args.batches)
                    rec.update({"bsr_block": b, "bsr_ms": ms, "bsr_rel_error": err, "bsr_fill": fill})
                    algs["bsr"] = (ms, err)
                except (OSError, AttributeError, RuntimeError) as e:
                    rec["bsr_skipped"] = str(e)
            best_name = min(algs, key=lambda k: algs[k][0])
            ms, err = algs[best_name]
            rec.update({"best": best_name, "median_ms": ms, "gflops": 2 * A.nnz / (ms * 1e6),
                        "csr_gbps": bytes_ / (ms * 1e6), "rel_error": err,
                        "correct": all(e <= tol for _, e in algs.values())})
            print(json.dumps(rec))
            sys.stdout.flush()
            results.append(rec)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
