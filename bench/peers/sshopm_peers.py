#!/usr/bin/env python3
"""Peers for the SS-HOPM benchmark on an NVIDIA GPU (issue: >= 1.5x a CUDA port of the seed's design, >= 100x PyTorch).

1. seed-cuda: the design of Ballard, Kolda & Plantenga written plainly in CUDA and run through CuPy's RawKernel:
   one block per tensor, one thread per start, the tensor's unique entries in shared memory, A x^(m-1) and A x^m
   unrolled with literal coefficients, one term per unique entry (as the seed's Figure 6.1 does for (4,3)), fixed
   iteration count.
2. torch: batched PyTorch on dense tensors with einsum, the code a user would otherwise write.

Both run on the same tensors and starts, fixed iterations, and report start-iterations per second. By default the
tensors and starts are drawn here (numpy, --seed); with --data-dir DIR they are read from the files that
clpk-bench-sshopm writes there (DIR/sshopm_MxN_tensors.npy: (T, U) unique entries in float64, DIR/sshopm_MxN_starts.npy:
(V, n) unit starts), so clpk and the peers solve the very same problems; --tensors-npy/--starts-npy name the two files
of a single shape. A peer whose module (cupy, torch with CUDA) is missing is skipped with a message.
Usage: sshopm_peers.py [--tensors 65536] [--starts 128] [--iters 200] [--shapes 4x3,3x3,...] [--data-dir DIR]
                       [--json out.json]
"""
import argparse
import itertools
import json
import math
import sys
import time

import numpy as np


def unique_indices(m, n):
    """Nondecreasing index tuples of length m over range(n), lexicographic: the seed's index representation."""
    return list(itertools.combinations_with_replacement(range(n), m))


def multinomial(counts):
    total = sum(counts)
    r = math.factorial(total)
    for c in counts:
        r //= math.factorial(c)
    return r


def seed_kernel_source(m, n, precision):
    """CUDA source: literal coefficients, one term per unique entry for y = A x^(m-1) and lambda = A x^m."""
    t = "float" if precision == "f32" else "double"
    suffix = "f" if precision == "f32" else ""  # literals of the kernel's own precision, as the seed's are
    idx = unique_indices(m, n)
    U = len(idx)
    lines = []
    for j in range(n):
        terms = []
        for u, I in enumerate(idx):
            if j not in I:
                continue
            rest = list(I)
            rest.remove(j)
            counts = [rest.count(k) for k in range(n)]
            c = multinomial(counts)
            mono = "*".join(f"x{k}" for k in rest) if rest else "1"
            terms.append(f"{c}.0{suffix}*a[{u}]*{mono}")
        lines.append(f"        {t} y{j} = " + " + ".join(terms) + ";")
    lam_terms = []
    for u, I in enumerate(idx):
        c = multinomial([I.count(k) for k in range(n)])
        lam_terms.append(f"{c}.0{suffix}*a[{u}]*" + "*".join(f"x{k}" for k in I))
    xs = "".join(f"    {t} x{k} = starts[v*{n}+{k}];\n" for k in range(n))
    ys = "\n".join(lines)
    shift = "".join(f"        y{k} += alpha*x{k};\n" for k in range(n))
    norm = "+".join(f"y{k}*y{k}" for k in range(n))
    upd = "".join(f"        x{k} = y{k}*inv;\n" for k in range(n))
    outs = "".join(f"    x_out[((size_t)t*V+v)*{n}+{k}] = x{k};\n" for k in range(n))
    return f"""
extern "C" __global__ void sshopm_seed(const {t}* __restrict__ A, const {t}* __restrict__ starts,
                                       {t}* __restrict__ lambda_out, {t}* __restrict__ x_out,
                                       int V, int iters, {t} alpha) {{
    __shared__ {t} a[{U}];
    int t = blockIdx.x, v = threadIdx.x;
    for (int i = threadIdx.x; i < {U}; i += blockDim.x) a[i] = A[(size_t)t*{U}+i];
    __syncthreads();
{xs}    {t} lambda = 0;
    for (int it = 0; it < iters; ++it) {{
{ys}
{shift}        {t} inv = rsqrt({norm});
{upd}        lambda = {" + ".join(lam_terms)};
    }}
    lambda_out[(size_t)t*V+v] = lambda;
{outs}}}
"""


def dense_from_unique(Au, m, n):
    """(T, U) unique entries -> (T, n, ..., n) dense symmetric tensors."""
    T = Au.shape[0]
    idx = unique_indices(m, n)
    D = np.zeros((T,) + (n,) * m, dtype=Au.dtype)
    for u, I in enumerate(idx):
        for p in set(itertools.permutations(I)):
            D[(slice(None),) + p] = Au[:, u]
    return D


def bench_seed_cuda(cp, Au, X0, m, n, iters, alpha, precision, repeats):
    T, U = Au.shape
    V = X0.shape[0]
    mod = cp.RawModule(code=seed_kernel_source(m, n, precision), options=("-use_fast_math",) if precision == "f32" else ())
    k = mod.get_function("sshopm_seed")
    dt = cp.float32 if precision == "f32" else cp.float64
    A = cp.asarray(Au, dtype=dt)
    S = cp.asarray(X0, dtype=dt)
    lam = cp.empty((T, V), dtype=dt)
    xo = cp.empty((T, V, n), dtype=dt)
    args = (A, S, lam, xo, np.int32(V), np.int32(iters), dt(alpha))
    k((T,), (V,), args)
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeats):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        k((T,), (V,), args)
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(times)), cp.asnumpy(lam)


def bench_torch(torch, Au, X0, m, n, iters, alpha, precision, repeats, max_tensors):
    T = min(Au.shape[0], max_tensors)
    dt = torch.float32 if precision == "f32" else torch.float64
    D = torch.tensor(dense_from_unique(Au[:T], m, n), dtype=dt, device="cuda")
    V = X0.shape[0]
    X = torch.tensor(X0, dtype=dt, device="cuda").unsqueeze(0).expand(T, V, n).contiguous()
    letters = "ijklmnop"[:m]
    # y_i = A_{i j k ...} x_j x_k ...: contract the last m-1 indices
    spec = "t" + letters + "," + ",".join("tv" + c for c in letters[1:]) + "->tv" + letters[0]
    spec_l = "t" + letters + "," + ",".join("tv" + c for c in letters) + "->tv"

    def run(X):
        lam = None
        for _ in range(iters):
            y = torch.einsum(spec, D, *([X] * (m - 1))) + alpha * X
            X = y / torch.linalg.vector_norm(y, dim=2, keepdim=True)
            lam = torch.einsum(spec_l, D, *([X] * m))
        return X, lam

    run(X)
    torch.cuda.synchronize()
    times = []
    for _ in range(max(1, repeats // 5)):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        run(X)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return float(np.median(times)), T


def load_inputs(args, m, n, rng):
    """(tensors (T, U) float64, starts (V, n) float64) for one shape: from files if given, else drawn here."""
    U = len(unique_indices(m, n))
    tpath = spath = None
    if args.tensors_npy:
        tpath, spath = args.tensors_npy, args.starts_npy
    elif args.data_dir:
        tpath = f"{args.data_dir}/sshopm_{m}x{n}_tensors.npy"
        spath = f"{args.data_dir}/sshopm_{m}x{n}_starts.npy"
    if tpath:
        Au = np.load(tpath).astype(np.float64)
        X0 = np.load(spath).astype(np.float64)
        if Au.ndim != 2 or Au.shape[1] != U or X0.ndim != 2 or X0.shape[1] != n:
            raise SystemExit(f"sshopm_peers.py: {tpath} / {spath} do not hold ({m},{n}) tensors (T, {U}) and "
                             f"starts (V, {n}): shapes {Au.shape}, {X0.shape}")
        return Au, X0
    Au = rng.uniform(-1, 1, size=(args.tensors, U))
    X0 = rng.uniform(-1, 1, size=(args.starts, n))
    X0 /= np.linalg.norm(X0, axis=1, keepdims=True)
    return Au, X0


def record(peer, m, n, prec, T, V, iters, ms):
    return {"family": "sshopm", "case": f"{m}x{n}", "impl": peer, "peer": peer, "precision": prec, "mode": "fixed",
            "m": m, "n": n, "tensors": T, "starts": V, "iters": iters, "median_ms": ms,
            "start_iters_per_s": T * V * iters / (ms * 1e-3)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tensors", type=int, default=65536)
    ap.add_argument("--starts", type=int, default=128)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--shapes", default="3x3,4x3,6x3,8x3,4x4,4x6")
    ap.add_argument("--precision", default="f32,f64")
    ap.add_argument("--alpha", type=float, default=2.0)
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--torch-tensors", type=int, default=4096, help="PyTorch runs on this many tensors (memory)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data-dir", default=None, help="read DIR/sshopm_MxN_{tensors,starts}.npy (clpk-bench-sshopm)")
    ap.add_argument("--tensors-npy", default=None, help="(T, U) unique entries of the single --shapes shape")
    ap.add_argument("--starts-npy", default=None, help="(V, n) starts of the single --shapes shape")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if bool(args.tensors_npy) != bool(args.starts_npy) or (args.tensors_npy and "," in args.shapes):
        ap.error("--tensors-npy and --starts-npy go together, with a single --shapes entry")
    try:
        import cupy as cp
    except ImportError:
        cp = None
        print("sshopm_peers.py: cupy not available: seed-cuda peer skipped")
    try:
        import torch
        if not torch.cuda.is_available():
            print("sshopm_peers.py: torch has no CUDA device: torch peer skipped")
            torch = None
    except ImportError:
        torch = None
        print("sshopm_peers.py: torch not available: torch peer skipped")
    rng = np.random.default_rng(args.seed)
    print(f"seed {args.seed}" + (f", inputs from {args.data_dir or args.tensors_npy}" if args.data_dir or
                                  args.tensors_npy else ""))
    results = []
    for shape in args.shapes.split(","):
        m, n = map(int, shape.split("x"))
        Au, X0 = load_inputs(args, m, n, rng)
        T, V = Au.shape[0], X0.shape[0]
        for prec in args.precision.split(","):
            if cp is not None:
                ms, _ = bench_seed_cuda(cp, Au, X0, m, n, args.iters, args.alpha, prec, args.repeats)
                rec = record("seed-cuda", m, n, prec, T, V, args.iters, ms)
                print(json.dumps(rec))
                results.append(rec)
            if torch is not None:
                tms, Tt = bench_torch(torch, Au, X0, m, n, args.iters, args.alpha, prec, args.repeats,
                                      args.torch_tensors)
                rec = record("torch-einsum", m, n, prec, Tt, V, args.iters, tms)
                print(json.dumps(rec))
                results.append(rec)
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
