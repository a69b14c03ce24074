#!/usr/bin/env python3
"""Digital image correlation with clpk.xcorr: cut a reference and a deformed speckle image (../shared/data/dic) into
sub-regions, cross-correlate every pair in one batched call (pattern one-to-one), take each correlation peak (with a
parabolic sub-pixel fit) as the sub-region's displacement, and check against scipy.signal.correlate2d.

    python3 python/examples/dic_xcorr.py [--pair ref] [--subset 48] [--step 24] [--device SEL]

--pair ref: refSpeckled/defSpeckled (512 x 512); --pair oht: oht_cfrp_00/06 (DIC Challenge sample 12, 1040 x 400).
"""
import argparse
import time
from pathlib import Path

import numpy as np

import clpk

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "dic"
PAIRS = {"ref": ("refSpeckled.npy", "defSpeckled.npy"), "oht": ("oht_cfrp_00.npy", "oht_cfrp_06.npy")}


def subsets(img, size, step):
    """(N, size, size) zero-mean float32 sub-regions on a grid, and their top-left corners."""
    h, w = img.shape
    corners = [(r, c) for r in range(0, h - size + 1, step) for c in range(0, w - size + 1, step)]
    s = np.stack([img[r:r + size, c:c + size] for r, c in corners]).astype(np.float32)
    s -= s.mean(axis=(1, 2), keepdims=True)
    return s, np.array(corners)


def peaks(corr, size):
    """Displacement (rows, cols) of each correlation's maximum, with a 3-point parabolic sub-pixel refinement."""
    n, H, W = corr.shape
    flat = corr.reshape(n, -1).argmax(axis=1)
    k, l = np.unravel_index(flat, (H, W))
    out = np.zeros((n, 2))
    for i in range(n):
        for axis, (a, b) in enumerate(((k[i], l[i]), (l[i], k[i]))):
            if 0 < a < (H if axis == 0 else W) - 1:
                c = corr[i, a - 1:a + 2, b] if axis == 0 else corr[i, b, a - 1:a + 2]
                den = c[0] - 2 * c[1] + c[2]
                frac = 0.5 * (c[0] - c[2]) / den if den != 0 else 0.0
            else:
                frac = 0.0
            out[i, axis] = a + frac - (size - 1)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pair", choices=sorted(PAIRS), default="ref")
    ap.add_argument("--subset", type=int, default=48)
    ap.add_argument("--step", type=int, default=24)
    ap.add_argument("--device", default=None)
    ap.add_argument("--data", default=str(DATA))
    args = ap.parse_args()
    names = PAIRS[args.pair]
    paths = [Path(args.data) / n for n in names]
    if not all(p.exists() for p in paths):
        raise SystemExit("DIC images not found in %s (--data DIR)" % args.data)
    ref, dfm = (np.load(p) for p in paths)
    R, corners = subsets(ref, args.subset, args.step)
    D, _ = subsets(dfm, args.subset, args.step)
    print("%s vs %s: %s images, %d sub-regions of %d^2" % (names[0], names[1], ref.shape, len(R), args.subset))

    with clpk.Context(args.device) as ctx:
        # left = deformed, right = reference: the peak sits at the displacement of the deformed sub-region
        plan = clpk.XcorrPlan(ctx, R.shape[1:], len(D), len(R), pattern="one-to-one", precision="f32")
        plan(D, R)  # first call builds the kernels
        t = time.perf_counter()
        corr = plan(D, R)
        t_clpk = time.perf_counter() - t
        print("clpk: %s (%s) %.1f ms for %d correlations, device %s"
              % (plan.algorithm, ",".join("%s=%s" % kv for kv in plan.params.items()), 1e3 * t_clpk, len(R),
                 ctx.device["name"]))

    from scipy.signal import correlate2d
    check = np.linspace(0, len(R) - 1, min(len(R), 40)).astype(int)
    t = time.perf_counter()
    ref_corr = np.stack([correlate2d(D[i].astype(np.float64), R[i].astype(np.float64), "full") for i in check])
    t_scipy = (time.perf_counter() - t) * len(R) / len(check)
    err = np.linalg.norm(corr[check] - ref_corr) / np.linalg.norm(ref_corr)
    print("scipy correlate2d: %.1f ms for %d (extrapolated from %d); relative difference %.2e"
          % (1e3 * t_scipy, len(R), len(check), err))
    u = peaks(corr.astype(np.float64), args.subset)
    u_ref = peaks(ref_corr, args.subset)
    print("displacement (rows, cols) in px: mean %s, min %s, max %s; largest difference to scipy's peaks %.3g px"
          % (np.round(u.mean(axis=0), 3), np.round(u.min(axis=0), 3), np.round(u.max(axis=0), 3),
             np.abs(u[check] - u_ref).max()))
    centre = corners + args.subset / 2
    for i in np.linspace(0, len(R) - 1, 5).astype(int):
        print("  sub-region at (%5.1f, %5.1f): u = (%+.3f, %+.3f)" % (*centre[i], *u[i]))


if __name__ == "__main__":
    main()
