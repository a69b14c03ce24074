#!/usr/bin/env python3
"""cuSPARSE peer for LiFE's two products on a clpk-life dataset directory, timed fairly (issue #27 item 1).

    DSC  y[v, :] = sum_k phi_k * w[f_k] * D[a_k, :]        (y = M w; D is Na x Ntheta, row a = atom a)
    WC   w[f]    = sum_k phi_k * <D[a_k, :], y[v_k, :]>     (w = M^T y)

M itself (Nv*Ntheta x Nf, ~5.5 G non-zeros at DS1) fits no library format, so the peer factors it the way a cuSPARSE
user would. Coefficients sharing (voxel, atom) are merged into one sparse matrix S^T (Nv x Na, CSR: one row per voxel,
its atoms as columns) whose pattern is fixed for the dataset and built once (host-side setup, not timed):

  DSC per call: (1) one CUDA kernel recomputes S's values from w, a gather + segmented sum over the coefficients sorted
      by (voxel, atom): s[j] = sum phi_k * w[f_k]; (2) Y = S^T * D with cusparseSpMM (CSR x dense).
  WC per call:  (1) cusparseSDDMM: c[j] = <y[v_j, :], D[a_j, :]> for every non-zero j of S's pattern; (2) one CUDA
      kernel gathers and reduces per fibre over the coefficients sorted by fibre: w[f] = sum phi_k * c[j_k].

Both steps are timed together (their sum is the product's time) and apart. cuSPARSE descriptors, workspaces and the
scalars are made once; SpMM and SDDMM run their preprocess step once (CuPy has no SDDMM binding, and none for the
preprocess calls: those go through ctypes into the libcusparse CuPy loaded, on CuPy's handle and stream, as
cusparse_spmv.py does for bsrmv). Every applicable SpMM algorithm (DEFAULT, CSR_ALG1/2/3) with D and y in row- or
column-major layout, SDDMM with both layouts of each dense operand, and the segmented-sum kernel at 1-32 lanes per
segment are timed; the best of each step makes the record (all variants are listed in it). Timing as in
cusparse_spmv.py: warm-up, then `--calls` back-to-back calls between two CUDA events, median over `--batches`.

Every variant's result is checked against a straightforward CuPy computation of the same product in double precision
(per-coefficient gathers and scatter_add, in chunks): relative error max|out - ref| / max|ref| printed and asserted
(1e-4 f32, 1e-10 f64; exit status 1 otherwise). Inputs: DSC with w = w_true.npy of the dataset (else w = 0.5), as
clpk-bench-life's dsc-wtrue case; WC with y = signal.npy (else the DSC reference y).

Output: one JSON line per (product, precision) on stdout and in --json (median_ms, the parts, the chosen variants,
bytes each step must move and GB/s, nnz of the merged matrix), and a markdown table (stdout and --md).
--dry-run: NumPy/SciPy stand in for CuPy/cuSPARSE (same merging, index arrays and checks; host timings, no GPU):
for checking the script on a small dataset (`clpk-life synth --size tiny`) where there is no GPU.

Usage: cusparse_life.py DATA_DIR [--precision f32,f64] [--calls 20] [--batches 7] [--json out.jsonl] [--md out.md]
                        [--dry-run]
"""
import argparse
import ctypes
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# cuSPARSE enum values (CUDA 12 headers; CuPy's module predates the SpMM/SDDMM algorithm names)
OP_N = 0
INDEX_32I, INDEX_BASE_ZERO = 2, 0
ORDER_COL, ORDER_ROW = 1, 2
SPMM_ALGS = {"default": 0, "csr_alg1": 4, "csr_alg2": 6, "csr_alg3": 12}
SDDMM_ALG_DEFAULT = 0
LANES = (1, 2, 4, 8, 16, 32)
CHUNK = 1 << 20  # coefficients per chunk of the reference computation

SEG_KERNEL = r"""
// out[s] = sum over k in [ptr[s], ptr[s+1]) of phi[k] * x[idx[k]]: LANES threads per segment (strided loop, then a
// shuffle reduction inside the LANES-wide group). Every thread of a warp reaches the shuffle (no early return).
template <typename T, int LANES>
__global__ void seg_gather_sum(const int *__restrict__ ptr, const T *__restrict__ phi, const int *__restrict__ idx,
                               const T *__restrict__ x, T *__restrict__ out, int n_seg) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long s = t / LANES;
    const int lane = (int)(t % LANES);
    T acc = 0;
    if (s < n_seg)
        for (int k = ptr[s] + lane; k < ptr[s + 1]; k += LANES) acc += phi[k] * x[idx[k]];
    for (int off = LANES / 2; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off, LANES);
    if (s < n_seg && lane == 0) out[s] = acc;
}
"""


# ---- dataset and merged structure (NumPy or CuPy: `xp`) ---------------------------------------------------------

def load_dataset(path):
    """The .npy directory format of docs/life.md (lib/life/life_dataset.c): indices int32/int64, values f32/f64."""
    def arr(name, required=True):
        p = os.path.join(path, name + ".npy")
        if not os.path.exists(p):
            if required:
                raise SystemExit("cusparse_life: %s missing" % p)
            return None
        return np.load(p)
    d = {k: arr("phi_" + k).astype(np.int32, copy=False) for k in ("atoms", "voxels", "fibers")}
    d["phi"] = arr("phi_values").astype(np.float64, copy=False)
    d["D"] = np.ascontiguousarray(arr("dictionary"), dtype=np.float64)
    d["signal"] = arr("signal", False)
    d["w_true"] = arr("w_true", False)
    meta = {}
    if os.path.exists(os.path.join(path, "meta.json")):
        with open(os.path.join(path, "meta.json")) as f:
            meta = json.load(f)
    nc = d["phi"].shape[0]
    if not all(d[k].shape == (nc,) for k in ("atoms", "voxels", "fibers")) or nc == 0:
        raise SystemExit("cusparse_life: phi_* lengths differ or are empty")
    if nc >= 2 ** 31:
        raise SystemExit("cusparse_life: int32 segment pointers need fewer than 2^31 coefficients")
    d["n_atoms"], d["n_theta"] = d["D"].shape
    if d["signal"] is not None:
        d["signal"] = np.ascontiguousarray(d["signal"], dtype=np.float64)
        d["n_voxels"] = d["signal"].shape[0]
    else:
        d["n_voxels"] = int(meta.get("n_voxels", int(d["voxels"].max()) + 1))
    d["n_fibers"] = max(int(meta.get("n_fibers", 0)), int(d["fibers"].max()) + 1)
    d["n_coeffs"] = nc
    if d["w_true"] is not None and d["w_true"].shape != (d["n_fibers"],):
        d["w_true"] = None
    return d


def build_structure(xp, atoms, voxels, fibers, n_atoms, n_voxels, n_fibers):
    """The fixed part of the peer (once per dataset): S^T's CSR pattern (rows voxels, columns atoms, sorted), the
    coefficients in (voxel, atom) order with their segment pointers, and in fibre order with their non-zero index."""
    nc = atoms.shape[0]
    key = voxels.astype(xp.int64) * n_atoms + atoms.astype(xp.int64)
    order = xp.argsort(key)
    ks = key[order]
    del key
    new = xp.empty(nc, dtype=bool)
    new[0] = True
    new[1:] = ks[1:] != ks[:-1]
    starts = xp.flatnonzero(new)
    nnz = int(starts.shape[0])
    ukeys = ks[starts]
    seg_sorted = (xp.cumsum(new) - 1).astype(xp.int32)
    del ks, new
    seg_ptr = xp.concatenate([starts, xp.array([nc], dtype=starts.dtype)]).astype(xp.int32)
    row_counts = xp.bincount((ukeys // n_atoms).astype(xp.int64), minlength=n_voxels)
    row_ptr = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(row_counts)]).astype(xp.int32)
    col = (ukeys % n_atoms).astype(xp.int32)
    seg_of = xp.empty(nc, dtype=xp.int32)
    seg_of[order] = seg_sorted
    forder = xp.argsort(fibers)
    fib_counts = xp.bincount(fibers.astype(xp.int64), minlength=n_fibers)
    fib_ptr = xp.concatenate([xp.zeros(1, dtype=xp.int64), xp.cumsum(fib_counts)]).astype(xp.int32)
    return {"nnz": nnz, "order": order, "forder": forder, "seg_ptr": seg_ptr, "row_ptr": row_ptr, "col": col,
            "dsc_fib": fibers[order].astype(xp.int32), "wc_seg": seg_of[forder], "fib_ptr": fib_ptr}


def reference(xp, scatter_add, d, w, y):
    """Straightforward double computation, coefficient by coefficient (chunks bound the temporaries)."""
    yr = xp.zeros((d["n_voxels"], d["n_theta"]), dtype=xp.float64)
    wr = xp.zeros(d["n_fibers"], dtype=xp.float64)
    for s in range(0, d["n_coeffs"], CHUNK):
        a, v, f, p = (d[k][s:s + CHUNK] for k in ("atoms_x", "voxels_x", "fibers_x", "phi_x"))
        Da = d["D_x"][a]
        scatter_add(yr, v, (p * w[f])[:, None] * Da)
        scatter_add(wr, f, p * (Da * y[v]).sum(axis=1))
    return yr, wr


def rel_error(out, ref):
    out, ref = np.asarray(out, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    return float(np.max(np.abs(out - ref)) / max(float(np.max(np.abs(ref))), 1e-300))


def step_bytes(d, nnz, vb):
    """Bytes each step must move once per call (indices int32; gathered vectors counted once)."""
    nc, nv, nf, na, nt = d["n_coeffs"], d["n_voxels"], d["n_fibers"], d["n_atoms"], d["n_theta"]
    return {
        "dsc_segsum": nc * (4 + vb) + (nnz + 1) * 4 + nf * vb + nnz * vb,
        "dsc_spmm": (nv + 1) * 4 + nnz * (4 + vb) + na * nt * vb + nv * nt * vb,
        "wc_sddmm": (nv + 1) * 4 + nnz * (4 + vb) + nv * nt * vb + na * nt * vb,
        "wc_segsum": nc * (4 + vb) + (nf + 1) * 4 + nnz * vb + nf * vb,
    }


# ---- host stand-in (--dry-run): the same pipeline with NumPy/SciPy ----------------------------------------------

class HostBackend:
    name = "numpy/scipy (dry run)"

    def __init__(self, args):
        import scipy.sparse
        self.sp = scipy.sparse
        self.xp = np
        self.calls, self.batches = max(1, min(args.calls, 3)), max(1, min(args.batches, 3))

    def upload(self, a):
        return a

    def host(self, a):
        return a

    def scatter_add(self, a, idx, val):
        np.add.at(a, idx, val)

    def time(self, call):
        call()
        per = []
        for _ in range(self.batches):
            t = time.perf_counter()
            for _ in range(self.calls):
                call()
            per.append((time.perf_counter() - t) * 1e3 / self.calls)
        return float(np.median(per))

    def segsum(self, ptr, phi, idx, x, out, lanes):
        """What seg_gather_sum computes (lanes change only the summation order)."""
        n = out.shape[0]
        seg = np.repeat(np.arange(n), np.diff(ptr))
        out[:] = np.bincount(seg, weights=phi * x[idx], minlength=n)[:n]

    def setup_dsc(self, st, d, D, dt):
        svals = np.zeros(st["nnz"], dtype=dt)
        y = np.zeros((d["n_voxels"], d["n_theta"]), dtype=dt)

        def spmm():  # the matrix is made per call so that it sees the values segsum just wrote
            y[:] = self.sp.csr_matrix((svals, st["col"], st["row_ptr"]), shape=(d["n_voxels"], d["n_atoms"])) @ D
        return svals, {"scipy csr@dense": spmm}, {"scipy csr@dense": lambda: y}

    def setup_wc(self, st, d, D, y, dt):
        cvals = np.zeros(st["nnz"], dtype=dt)
        rows = np.repeat(np.arange(d["n_voxels"]), np.diff(st["row_ptr"]))

        def sddmm():
            cvals[:] = np.einsum("ij,ij->i", y[rows], D[st["col"]])
        return cvals, {"numpy sampled dots": sddmm}


# ---- CuPy + cuSPARSE ---------------------------------------------------------------------------------------------

class GpuBackend:
    name = "cupy/cusparse"

    def __init__(self, args):
        import cupy as cp
        import cupyx
        from cupy.cuda import device
        from cupy_backends.cuda.libs import cusparse as lib
        sys.path.insert(0, HERE)
        from cusparse_spmv import libcusparse, time_batches
        self.cp, self.xp, self.lib = cp, cp, lib
        self._scatter_add = cupyx.scatter_add
        self._time_batches = time_batches
        self.calls, self.batches = args.calls, args.batches
        self.handle = device.get_cusparse_handle()
        lib.setStream(self.handle, cp.cuda.get_current_stream().ptr)
        self.so = libcusparse()
        names = ["seg_gather_sum<%s,%d>" % (t, n) for t in ("float", "double") for n in LANES]
        self.module = cp.RawModule(code=SEG_KERNEL, options=("-std=c++14",), name_expressions=names)
        self.keep = []  # descriptors and workspaces live as long as the backend

    def upload(self, a):
        return self.cp.asarray(a)

    def host(self, a):
        return self.cp.asnumpy(a)

    def scatter_add(self, a, idx, val):
        self._scatter_add(a, idx, val)

    def time(self, call):
        """Median ms per call; a slow variant (one call > 10 ms) gets fewer calls a batch, so all fit the budget."""
        cp = self.cp
        call()  # the first call may include lazy set-up
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        call()
        e.record()
        e.synchronize()
        once = cp.cuda.get_elapsed_time(s, e)
        calls = self.calls if once < 10 else max(2, min(self.calls, int(200 / once)))
        return self._time_batches(cp, call, calls, self.batches)

    def segsum(self, ptr, phi, idx, x, out, lanes):
        n = out.shape[0]
        t = "float" if out.dtype == np.float32 else "double"
        fn = self.module.get_function("seg_gather_sum<%s,%d>" % (t, lanes))
        block = 256
        grid = (n * lanes + block - 1) // block
        fn((grid,), (block,), (ptr, phi, idx, x, out, np.int32(n)))

    def _fn(self, name):
        fn = getattr(self.so, name)
        fn.restype = ctypes.c_int
        return fn

    def _dtype(self, dt):
        from cupy._core import _dtype
        return _dtype.to_cuda_dtype(np.dtype(dt))

    def _csr(self, st, d, vals, dt):
        return self.lib.createCsr(d["n_voxels"], d["n_atoms"], st["nnz"], st["row_ptr"].data.ptr, st["col"].data.ptr,
                                  vals.data.ptr, INDEX_32I, INDEX_32I, INDEX_BASE_ZERO, self._dtype(dt))

    def _dn(self, rows, cols, a, order):
        """A rows x cols dense descriptor over `a`: row-major when `a` is rows x cols, column-major when cols x rows."""
        ld = a.shape[1]
        return self.lib.createDnMat(rows, cols, ld, a.data.ptr, self._dtype(a.dtype),
                                    ORDER_ROW if order == "row" else ORDER_COL)

    def setup_dsc(self, st, d, D, dt):
        """SpMM variants: {name: call}; y layouts: row (Nv x Ntheta) or col (stored Ntheta x Nv)."""
        cp, lib = self.cp, self.lib
        nv, na, nt = d["n_voxels"], d["n_atoms"], d["n_theta"]
        svals = cp.zeros(st["nnz"], dtype=dt)
        dense = {"row": D, "col": cp.ascontiguousarray(D.T)}
        outs = {"row": cp.zeros((nv, nt), dtype=dt), "col": cp.zeros((nt, nv), dtype=dt)}
        alpha, beta = np.array(1.0, dt), np.array(0.0, dt)
        self.keep += [alpha, beta, dense, outs]
        cdt = self._dtype(dt)
        preprocess = getattr(self.so, "cusparseSpMM_preprocess", None)
        variants, failed, result = {}, {}, {}
        vp = ctypes.c_void_p
        for border in ("row", "col"):
            for corder in ("row", "col"):
                for aname, alg in SPMM_ALGS.items():
                    name = "spmm %s D:%s y:%s" % (aname, border, corder)
                    try:
                        a = self._csr(st, d, svals, dt)
                        b = self._dn(na, nt, dense[border], border)
                        c = self._dn(nv, nt, outs[corder], corder)
                        self.keep.append((a, b, c))
                        size = lib.spMM_bufferSize(self.handle, OP_N, OP_N, alpha.ctypes.data, a, b,
                                                   beta.ctypes.data, c, cdt, alg)
                        buf = cp.empty(max(int(size), 1), cp.int8)
                        self.keep.append(buf)
                        if preprocess is not None:
                            preprocess.restype = ctypes.c_int
                            rc = preprocess(vp(self.handle), ctypes.c_int(OP_N), ctypes.c_int(OP_N),
                                            vp(alpha.ctypes.data), vp(a), vp(b), vp(beta.ctypes.data), vp(c),
                                            ctypes.c_int(cdt), ctypes.c_int(alg), vp(buf.data.ptr))
                            if rc != 0:  # optional step: the variant runs without it
                                failed[name + " preprocess"] = "status %d" % rc

                        def call(a=a, b=b, c=c, alg=alg, buf=buf):
                            lib.spMM(self.handle, OP_N, OP_N, alpha.ctypes.data, a, b, beta.ctypes.data, c, cdt,
                                     alg, buf.data.ptr)
                        call()
                        cp.cuda.Device().synchronize()
                        variants[name] = call
                        result[name] = (lambda o=outs[corder], co=corder: o if co == "row" else o.T)
                    except Exception as e:  # not supported for this layout / algorithm: recorded, not fatal
                        failed[name] = str(e)[:120]
        self.failed_dsc = failed
        return svals, variants, result

    def setup_wc(self, st, d, D, y, dt):
        """SDDMM variants: c = (Y * D^T) o spy(S^T), Y (Nv x Ntheta) and D^T (Ntheta x Na) in either layout."""
        cp = self.cp
        nv, na, nt = d["n_voxels"], d["n_atoms"], d["n_theta"]
        cvals = cp.zeros(st["nnz"], dtype=dt)
        ys = {"row": y, "col": cp.ascontiguousarray(y.T)}
        dts = {"col": D, "row": cp.ascontiguousarray(D.T)}  # D^T: column-major over D itself, row-major over a copy
        alpha, beta = np.array(1.0, dt), np.array(0.0, dt)
        self.keep += [alpha, beta, ys, dts, cvals]
        cdt = self._dtype(dt)
        vp, ci = ctypes.c_void_p, ctypes.c_int
        variants, failed = {}, {}
        try:
            f_size, f_pre, f_run = (self._fn(n) for n in ("cusparseSDDMM_bufferSize", "cusparseSDDMM_preprocess",
                                                          "cusparseSDDMM"))
        except AttributeError as e:
            self.failed_wc = {"sddmm": "libcusparse has no SDDMM: %s" % e}
            return cvals, {}
        for yorder in ("row", "col"):
            for dorder in ("row", "col"):
                name = "sddmm y:%s D^T:%s" % (yorder, dorder)
                try:
                    a = self._dn(nv, nt, ys[yorder], yorder)
                    b = self._dn(nt, na, dts[dorder], dorder)
                    c = self._csr(st, d, cvals, dt)
                    self.keep.append((a, b, c))
                    head = (vp(self.handle), ci(OP_N), ci(OP_N), vp(alpha.ctypes.data), vp(a), vp(b),
                            vp(beta.ctypes.data), vp(c), ci(cdt), ci(SDDMM_ALG_DEFAULT))
                    size = ctypes.c_size_t(0)
                    rc = f_size(*head, ctypes.byref(size))
                    if rc != 0:
                        raise RuntimeError("SDDMM_bufferSize status %d" % rc)
                    buf = cp.empty(max(int(size.value), 1), cp.int8)
                    self.keep.append(buf)
                    rc = f_pre(*head, vp(buf.data.ptr))
                    if rc != 0:  # optional step: the variant runs without it
                        failed[name + " preprocess"] = "status %d" % rc

                    def call(head=head, buf=buf):
                        st_ = f_run(*head, vp(buf.data.ptr))
                        if st_ != 0:
                            raise RuntimeError("SDDMM status %d" % st_)
                    call()
                    cp.cuda.Device().synchronize()
                    variants[name] = call
                except Exception as e:
                    failed[name] = str(e)[:120]
        self.failed_wc = failed
        return cvals, variants


# ---- the two products ----------------------------------------------------------------------------------------------

def best(timings):
    name = min(timings, key=timings.get)
    return name, timings[name]


def run_precision(be, d, st, prec, refs, tol):
    """Both products in one precision: [dsc record, wc record]; a variant with a wrong result is reported and excluded."""
    xp = be.xp
    dt = np.float32 if prec == "f32" else np.float64
    vb = np.dtype(dt).itemsize
    by = step_bytes(d, st["nnz"], vb)
    D = be.upload(d["D"].astype(dt))
    phi_d = d["phi_x"][st["order"]].astype(dt)
    phi_w = d["phi_x"][st["forder"]].astype(dt)
    w = d["w_in_x"].astype(dt)
    y = d["y_in_x"].astype(dt)
    y_ref, w_ref = refs
    common = {"peer": "cusparse", "family": "life", "precision": prec, "dataset": d["name"],
              "n_coeffs": d["n_coeffs"], "n_voxels": d["n_voxels"], "n_fibers": d["n_fibers"], "n_atoms": d["n_atoms"],
              "n_theta": d["n_theta"], "nnz_merged": st["nnz"], "calls_per_batch": be.calls, "batches": be.batches,
              "backend": be.name}
    records = []

    # DSC: segmented sum of phi * w over (voxel, atom), then SpMM
    svals, spmm_variants, spmm_out = be.setup_dsc(st, d, D, dt)
    seg_t = {}
    for lanes in LANES:
        def seg(lanes=lanes):
            be.segsum(st["seg_ptr"], phi_d, st["dsc_fib"], w, svals, lanes)
        seg_t["lanes=%d" % lanes] = be.time(seg)
    seg_name, seg_ms = best(seg_t)
    lanes = int(seg_name.split("=")[1])
    be.segsum(st["seg_ptr"], phi_d, st["dsc_fib"], w, svals, lanes)
    spmm_t, errors = {}, {}
    for name, call in spmm_variants.items():
        call()
        out = spmm_out[name]()
        errors[name] = rel_error(be.host(out), y_ref)
        if errors[name] <= tol:
            spmm_t[name] = be.time(call)
    rec = dict(common, product="dsc", input="w_true" if d["w_true"] is not None else "w=0.5",
               segsum_lanes=lanes, segsum_variants_ms=seg_t, segsum_ms=seg_ms,
               spmm_variants_ms=spmm_t, spmm_rel_errors=errors,
               spmm_unsupported=getattr(be, "failed_dsc", {}))
    if spmm_t:
        sp_name, sp_ms = best(spmm_t)
        sp_call = spmm_variants[sp_name]

        def dsc(lanes=lanes, sp_call=sp_call):
            be.segsum(st["seg_ptr"], phi_d, st["dsc_fib"], w, svals, lanes)
            sp_call()
        ms = be.time(dsc)
        dsc()
        out = spmm_out[sp_name]()
        err = rel_error(be.host(out), y_ref)
        total = by["dsc_segsum"] + by["dsc_spmm"]
        rec.update(spmm=sp_name, spmm_ms=sp_ms, median_ms=ms, rel_error=err, correct=err <= tol,
                   bytes=total, bytes_segsum=by["dsc_segsum"], bytes_spmm=by["dsc_spmm"], gbps=total / (ms * 1e6))
    else:
        rec.update(median_ms=None, correct=False, reason="no SpMM variant ran correctly")
    records.append(rec)

    # WC: SDDMM on S's pattern, then gather + segmented sum per fibre
    cvals, sddmm_variants = be.setup_wc(st, d, D, y, dt)
    sd_t, errors = {}, {}
    wout = xp.zeros(d["n_fibers"], dtype=dt)
    for name, call in sddmm_variants.items():
        call()
        be.segsum(st["fib_ptr"], phi_w, st["wc_seg"], cvals, wout, 32)
        errors[name] = rel_error(be.host(wout), w_ref)
        if errors[name] <= tol:
            sd_t[name] = be.time(call)
    seg_t = {}
    for lanes in LANES:
        def seg(lanes=lanes):
            be.segsum(st["fib_ptr"], phi_w, st["wc_seg"], cvals, wout, lanes)
        seg_t["lanes=%d" % lanes] = be.time(seg)
    seg_name, seg_ms = best(seg_t)
    lanes = int(seg_name.split("=")[1])
    rec = dict(common, product="wc", input="signal" if d["signal"] is not None else "y_ref",
               sddmm_variants_ms=sd_t, sddmm_rel_errors=errors, sddmm_unsupported=getattr(be, "failed_wc", {}),
               segsum_lanes=lanes, segsum_variants_ms=seg_t, segsum_ms=seg_ms)
    if sd_t:
        sd_name, sd_ms = best(sd_t)
        sd_call = sddmm_variants[sd_name]

        def wc(lanes=lanes, sd_call=sd_call):
            sd_call()
            be.segsum(st["fib_ptr"], phi_w, st["wc_seg"], cvals, wout, lanes)
        ms = be.time(wc)
        wout.fill(np.nan)
        wc()
        err = rel_error(be.host(wout), w_ref)
        total = by["wc_sddmm"] + by["wc_segsum"]
        rec.update(sddmm=sd_name, sddmm_ms=sd_ms, median_ms=ms, rel_error=err, correct=err <= tol,
                   bytes=total, bytes_sddmm=by["wc_sddmm"], bytes_segsum=by["wc_segsum"], gbps=total / (ms * 1e6))
    else:
        rec.update(median_ms=None, correct=False, reason="no SDDMM variant ran correctly")
    records.append(rec)
    return records


def table(records):
    lines = ["| product | precision | ms (median) | step 1 ms | step 2 ms | best variants | nnz merged / coeffs | "
             "GB moved | GB/s | rel. error | ok |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    f = lambda x, p=3: ("%.*f" % (p, x)) if isinstance(x, (int, float)) else "-"
    for r in records:
        if r["product"] == "dsc":
            s1, s2 = r.get("segsum_ms"), r.get("spmm_ms")
            v = "segsum lanes %s + %s" % (r.get("segsum_lanes"), r.get("spmm", "-"))
        else:
            s1, s2 = r.get("sddmm_ms"), r.get("segsum_ms")
            v = "%s + segsum lanes %s" % (r.get("sddmm", "-"), r.get("segsum_lanes"))
        lines.append("| %s | %s | %s | %s | %s | %s | %d / %d (%.1fx) | %s | %s | %s | %s |" % (
            r["product"].upper(), r["precision"], f(r.get("median_ms")), f(s1), f(s2), v, r["nnz_merged"],
            r["n_coeffs"], r["n_coeffs"] / max(r["nnz_merged"], 1), f(r.get("bytes", 0) / 1e9, 3) if r.get("bytes")
            else "-", f(r.get("gbps"), 0), ("%.2g" % r["rel_error"]) if "rel_error" in r else "-",
            "yes" if r.get("correct") else "NO"))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", help="dataset directory (clpk-life synth --out DIR)")
    ap.add_argument("--precision", default="f32,f64")
    ap.add_argument("--calls", type=int, default=20, help="back-to-back calls between two events")
    ap.add_argument("--batches", type=int, default=7, help="timed batches (median)")
    ap.add_argument("--json", default=None, help="JSON lines, one per (product, precision)")
    ap.add_argument("--md", default=None, help="markdown table")
    ap.add_argument("--dry-run", action="store_true", help="NumPy/SciPy in place of CuPy (no GPU; small datasets)")
    args = ap.parse_args()
    t0 = time.time()
    d = load_dataset(args.data)
    d["name"] = os.path.basename(os.path.abspath(args.data))
    be = HostBackend(args) if args.dry_run else GpuBackend(args)
    xp = be.xp
    for k in ("atoms", "voxels", "fibers", "phi", "D"):
        d[k + "_x"] = be.upload(d[k])
    w_in = d["w_true"] if d["w_true"] is not None else np.full(d["n_fibers"], 0.5)
    d["w_in_x"] = be.upload(np.ascontiguousarray(w_in, dtype=np.float64))
    print("cusparse_life: %s (%s): Nc %d, Nv %d, Nf %d, Na %d, Ntheta %d; loaded in %.1f s" % (
        args.data, be.name, d["n_coeffs"], d["n_voxels"], d["n_fibers"], d["n_atoms"], d["n_theta"], time.time() - t0),
        file=sys.stderr)
    st = build_structure(xp, d["atoms_x"], d["voxels_x"], d["fibers_x"], d["n_atoms"], d["n_voxels"], d["n_fibers"])
    print("cusparse_life: merged (voxel, atom) non-zeros %d (%.2f coefficients each); structure built at %.1f s" % (
        st["nnz"], d["n_coeffs"] / st["nnz"], time.time() - t0), file=sys.stderr)
    # the double reference: DSC with w_in; WC with the signal (else the reference y)
    y_probe = be.upload(d["signal"]) if d["signal"] is not None else xp.zeros((d["n_voxels"], d["n_theta"]))
    y_ref, w_ref = reference(xp, be.scatter_add, d, d["w_in_x"], y_probe)
    if d["signal"] is None:
        y_probe = y_ref
        _, w_ref = reference(xp, be.scatter_add, d, d["w_in_x"], y_probe)
    d["y_in_x"] = y_probe
    refs = (be.host(y_ref), be.host(w_ref))
    print("cusparse_life: references at %.1f s" % (time.time() - t0), file=sys.stderr)
    records = []
    for prec in args.precision.split(","):
        if prec not in ("f32", "f64"):
            raise SystemExit("cusparse_life: unknown precision %s" % prec)
        tol = 1e-4 if prec == "f32" else 1e-10
        for rec in run_precision(be, d, st, prec, refs, tol):
            print(json.dumps(rec))
            sys.stdout.flush()
            records.append(rec)
        print("cusparse_life: %s done at %.1f s" % (prec, time.time() - t0), file=sys.stderr)
    md = table(records)
    print(md)
    if args.json:
        with open(args.json, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
    if args.md:
        with open(args.md, "w") as f:
            f.write("# LiFE products through cuSPARSE (%s, %s)\n\n" % (d["name"], be.name))
            f.write("DSC = segmented sum of phi*w into the merged (voxel, atom) matrix + SpMM; WC = SDDMM on that "
                    "pattern + gather/segmented sum per fibre. Times: median of %d batches of %d calls.\n\n" % (
                        be.batches, be.calls))
            f.write(md)
    bad = [r for r in records if not r.get("correct")]
    for r in bad:
        print("cusparse_life: %s %s WRONG or not run (rel. error %s, tolerance %g)" % (
            r["product"], r["precision"], r.get("rel_error"), 1e-4 if r["precision"] == "f32" else 1e-10),
            file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
