#!/usr/bin/env python3
"""cuFFT peer for the cross-correlation benchmark: CuPy rfft2 with power-of-two padding, conj(L)*R, irfft2, crop to
the full (2R-1)x(2C-1) output in the xcorr2 convention, for the four patterns. Timed with CUDA events (median of
repeats after warm-up; cuFFT plans cached by CuPy), so the comparison with clpk is kernel time against kernel time.

Usage: cufft_xcorr.py --case PATTERN:R:NL:NR [--case ...] [--precision f32] [--json out.json] [--check]
PATTERN is one-to-one | one-to-many | n-to-mn | n-to-m.
--cases-file F reads cases as lines 'PATTERN:R:NL:NR LABEL' (clpk-bench-xcorr --cases-out); the label becomes the
record's "case". --recipe splitmix generates the inputs exactly as clpk-bench-xcorr does from the same --seed (see
splitmix_stack), so both correlate identical data; the default keeps numpy's generator. --check-sample checks only
the first and last output against the float64 reference (correlate_full, cheap at every size). A case that fails (e.g. out of GPU memory) gives a
record with "status": "error" and the run goes on.
"""
import argparse
import json
import sys

import numpy as np


def next_pow2(x):
    p = 1
    while p < x:
        p *= 2
    return p


def make_pipeline(cp, pattern, R, C, nl, nr):
    H, W = next_pow2(2 * R - 1), next_pow2(2 * C - 1)

    def run(L, Rt):
        FL = cp.fft.rfft2(L, s=(H, W))
        FR = cp.fft.rfft2(Rt, s=(H, W))
        if pattern == "one-to-one":
            P = cp.conj(FR) * FL
        elif pattern == "one-to-many":
            P = cp.conj(FR) * FL[0:1]
        elif pattern == "n-to-mn":
            P = cp.conj(FR) * cp.tile(FL, (nr // nl, 1, 1))
        elif pattern == "n-to-m":
            P = (cp.conj(FR)[None, :, :, :] * FL[:, None, :, :]).reshape(nl * nr, H, W // 2 + 1)
        else:
            raise ValueError(pattern)
        full = cp.fft.irfft2(P, s=(H, W))
        # out[k, l] = sum_ij left[i + k - (R-1), j + l - (C-1)] right[i, j]: shift k - (R-1) sits at index
        # (k - (R-1)) mod H of the circular correlation
        rows = (cp.arange(2 * R - 1) - (R - 1)) % H
        cols = (cp.arange(2 * C - 1) - (C - 1)) % W
        return full[:, rows[:, None], cols[None, :]]

    return run


def splitmix_stack(xp, seed, stream, shape, dtype):
    """The input recipe of clpk-bench-xcorr (tools/clpk_bench_xcorr.c): element i (flat C-order index in its
    stack) of stream s (0 left, 1 right) is z = splitmix64(seed * 2^41 + (s + 1) * 2^40 + i), value (z >> 40) / 2^23
    - 1, exact in f32. xp is numpy or cupy (uint64 arithmetic wraps modulo 2^64 in both)."""
    u = xp.uint64
    n = int(np.prod(shape))
    z = xp.arange(n, dtype=xp.uint64) + u((seed << 41) + ((stream + 1) << 40))
    z = z + u(0x9E3779B97F4A7C15)
    z = (z ^ (z >> u(30))) * u(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u(27))) * u(0x94D049BB133111EB)
    z = z ^ (z >> u(31))
    v = (z >> u(40)).astype(xp.float64) / 8388608.0 - 1.0
    return v.astype(dtype).reshape(shape)


def pairs_of(pattern, nl, nr):
    if pattern == "one-to-one":
        return lambda o: (o, o)
    if pattern == "one-to-many":
        return lambda o: (0, o)
    if pattern == "n-to-mn":
        return lambda o: (o % nl, o)
    return lambda o: (o // nr, o % nr)


def correlate_full(a, b):
    """The full (2R-1)x(2C-1) cross-correlation of two real matrices in float64 (scipy's correlate2d(a, b, "full"),
    MATLAB's xcorr2): out[k, l] = sum a[i, j] b[i - k + R - 1, j - l + C - 1], through numpy's FFT of the exact output
    size (rounding ~1e-15 relative: a reference for f32 and f64 alike; the direct sum takes seconds at 256^2)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    shape = (a.shape[0] + b.shape[0] - 1, a.shape[1] + b.shape[1] - 1)
    return np.fft.irfft2(np.fft.rfft2(a, shape) * np.fft.rfft2(b[::-1, ::-1], shape), shape)


def reference(pattern, L, Rt):
    outs = []
    nl, nr = L.shape[0], Rt.shape[0]
    pairs = {"one-to-one": [(i, i) for i in range(nr)], "one-to-many": [(0, j) for j in range(nr)],
             "n-to-mn": [(j % nl, j) for j in range(nr)],
             "n-to-m": [(i, j) for i in range(nl) for j in range(nr)]}[pattern]
    for i, j in pairs:
        outs.append(correlate_full(L[i], Rt[j]))
    return np.stack(outs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--cases-file", default=None)
    ap.add_argument("--recipe", choices=["numpy", "splitmix"], default="numpy")
    ap.add_argument("--check-sample", action="store_true")
    ap.add_argument("--precision", default="f32")
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import cupy as cp
    rng = np.random.default_rng(args.seed)
    dt = np.float32 if args.precision == "f32" else np.float64
    results = []
    cases = [(c, None) for c in args.case]
    if args.cases_file:
        with open(args.cases_file) as f:
            for line in f:
                if line.strip():
                    spec, _, label = line.strip().partition(" ")
                    cases.append((spec, label or None))
    if not cases:
        ap.error("give --case or --cases-file")
    for case, label in cases:
        pattern, size, nl, nr = case.split(":")
        R = C = int(size)
        nl, nr = int(nl), int(nr)
        if args.recipe == "splitmix":
            try:
                rec = run_splitmix_case(cp, args, pattern, R, C, nl, nr, dt)
            except Exception as exc:  # out of memory and the like: recorded, the run goes on
                rec = {"peer": "cufft", "pattern": pattern, "rows": R, "cols": C, "n_left": nl, "n_right": nr,
                       "precision": args.precision, "status": "error", "reason": repr(exc)[:300]}
            rec.update({"family": "xcorr", "impl": "cufft", "variant": "cufft", "counts": f"{nl}x{nr}",
                        "seed": args.seed})
            if label:
                rec["case"] = label
            rec.setdefault("status", "ok")
            print(json.dumps(rec))
            sys.stdout.flush()
            results.append(rec)
            cp.get_default_memory_pool().free_all_blocks()
            continue
        L = cp.asarray(rng.uniform(-1, 1, size=(nl, R, C)).astype(dt))
        Rt = cp.asarray(rng.uniform(-1, 1, size=(nr, R, C)).astype(dt))
        run = make_pipeline(cp, pattern, R, C, nl, nr)
        out = run(L, Rt)
        if args.check:
            ref = reference(pattern, cp.asnumpy(L), cp.asnumpy(Rt))
            err = float(np.max(np.abs(cp.asnumpy(out) - ref)) / np.max(np.abs(ref)))
        else:
            err = None
        cp.cuda.Device().synchronize()
        times = []
        for _ in range(args.repeats):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            run(L, Rt)
            e.record()
            e.synchronize()
            times.append(cp.cuda.get_elapsed_time(s, e))
        ms = float(np.median(times))
        n_out = out.shape[0]
        rec = {"peer": "cufft", "pattern": pattern, "rows": R, "cols": C, "n_left": nl, "n_right": nr,
               "precision": args.precision, "median_ms": ms, "outputs_per_s": n_out * (2 * R - 1) * (2 * C - 1) /
               (ms * 1e-3), "rel_error": err}
        print(json.dumps(rec))
        sys.stdout.flush()
        results.append(rec)
        del L, Rt, out
        cp.get_default_memory_pool().free_all_blocks()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def time_pipeline(cp, run, L, Rt, repeats, calls=1):
    """Median over `repeats` samples of the time per call of `calls` calls back to back between two events (as
    clpk-bench-xcorr --stream-ms times clpk)."""
    times = []
    for _ in range(repeats):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        for _ in range(calls):
            run(L, Rt)
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) / calls)
    return float(np.median(times))


def run_splitmix_case(cp, args, pattern, R, C, nl, nr, dt):
    """One case on the data of clpk-bench-xcorr's recipe: warm-up (plans cached), optional sampled check against
    the float64 reference, median of CUDA-event times (fewer repeats, at least 5, when a call is long)."""
    L = splitmix_stack(cp, args.seed, 0, (nl, R, C), dt)
    Rt = splitmix_stack(cp, args.seed, 1, (nr, R, C), dt)
    run = make_pipeline(cp, pattern, R, C, nl, nr)
    out = run(L, Rt)
    n_out = out.shape[0]
    err = None
    if args.check or args.check_sample:
        pair = pairs_of(pattern, nl, nr)
        hl, hr = cp.asnumpy(L).astype(np.float64), cp.asnumpy(Rt).astype(np.float64)
        errs = []
        for o in sorted({0, n_out - 1}) if args.check_sample else range(n_out):
            i, j = pair(o)
            ref = correlate_full(hl[i], hr[j])
            errs.append(float(np.max(np.abs(cp.asnumpy(out[o]) - ref)) / np.max(np.abs(ref))))
        err = max(errs)
    del out
    cp.cuda.Device().synchronize()
    once = time_pipeline(cp, run, L, Rt, 1)
    repeats = args.repeats if once < 20 else max(5, min(args.repeats, int(1000 / once)))
    calls = max(1, min(64, int(np.ceil(0.5 / max(once, 1e-3)))))  # about 0.5 ms a sample, as clpk's stream timing
    ms = time_pipeline(cp, run, L, Rt, repeats, calls)
    del L, Rt
    return {"peer": "cufft", "pattern": pattern, "rows": R, "cols": C, "n_left": nl, "n_right": nr,
            "precision": args.precision, "median_ms": ms, "runs": repeats, "calls_per_sample": calls,
            "outputs_per_s": n_out * (2 * R - 1) * (2 * C - 1) / (ms * 1e-3),
            "matrices_per_s": n_out / (ms * 1e-3), "rel_error": err}


if __name__ == "__main__":
    main()
