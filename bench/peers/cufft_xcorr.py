#!/usr/bin/env python3
"""cuFFT peer for the cross-correlation benchmark: CuPy rfft2 with power-of-two padding, conj(L)*R, irfft2, crop to
the full (2R-1)x(2C-1) output in the xcorr2 convention, for the four patterns. Timed with CUDA events (median of
repeats after warm-up; cuFFT plans cached by CuPy), so the comparison with clpk is kernel time against kernel time.

Usage: cufft_xcorr.py --case PATTERN:R:NL:NR [--case ...] [--precision f32] [--json out.json] [--check]
PATTERN is one-to-one | one-to-many | n-to-mn | n-to-m.
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


def reference(pattern, L, Rt):
    from scipy.signal import correlate2d
    outs = []
    nl, nr = L.shape[0], Rt.shape[0]
    pairs = {"one-to-one": [(i, i) for i in range(nr)], "one-to-many": [(0, j) for j in range(nr)],
             "n-to-mn": [(j % nl, j) for j in range(nr)],
             "n-to-m": [(i, j) for i in range(nl) for j in range(nr)]}[pattern]
    for i, j in pairs:
        outs.append(correlate2d(L[i].astype(np.float64), Rt[j].astype(np.float64), mode="full"))
    return np.stack(outs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", action="append", required=True)
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
    for case in args.case:
        pattern, size, nl, nr = case.split(":")
        R = C = int(size)
        nl, nr = int(nl), int(nr)
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


if __name__ == "__main__":
    main()
