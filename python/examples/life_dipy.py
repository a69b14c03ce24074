#!/usr/bin/env python3
"""LiFE on dipy's test data (../shared/data/life): clpk's encoder + SBB-NNLS fit on the device, next to dipy's own
FiberModel fit when dipy is installed (pip install dipy), both compared with MATLAB LiFE's weights.

    python3 python/examples/life_dipy.py [--data DIR] [--device SEL] [--precision f32|f64] [--iters N]
"""
import argparse
import time
from pathlib import Path

import numpy as np

import clpk

HERE = Path(__file__).resolve()


def dipy_fit(base):
    """dipy's tracking/tests/test_life.py::test_fit_data on the same files: (weights, seconds) or None."""
    try:
        import nibabel as nib
        from dipy.core import gradients as grad
        from dipy.io.stateful_tractogram import Space, StatefulTractogram
        from dipy.tracking import life
    except ImportError as e:
        print("dipy: not installed (%s); pip install dipy to compare" % e.name)
        return None
    t0 = time.perf_counter()
    gtab = grad.gradient_table(str(base / "small_25.bval"), bvecs=str(base / "small_25.bvec"))
    img = nib.load(str(base / "small_25.nii.gz"))
    data = np.asarray(img.dataobj)
    streamlines = nib.streamlines.load(str(base / "EuDX_small_25.trk")).streamlines
    sft = StatefulTractogram(streamlines, img, Space.RASMM)
    sft.to_vox()
    t1 = time.perf_counter()
    fit = life.FiberModel(gtab).fit(data, sft.streamlines, np.eye(4))
    t2 = time.perf_counter()
    return fit.beta, t2 - t1, t1 - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(HERE.parents[3] / "shared" / "data" / "life"))
    ap.add_argument("--device", default=None)
    ap.add_argument("--precision", default="f32")
    ap.add_argument("--iters", type=int, default=2000)
    args = ap.parse_args()
    base = Path(args.data)
    if not (base / "small_25.nii.gz").exists():
        raise SystemExit("dipy's test data not found in %s (--data DIR)" % base)
    matlab = np.load(base / "life_matlab_weights.npy")

    with clpk.Context(args.device) as ctx:
        t0 = time.perf_counter()
        d = clpk.life.encode(base / "small_25.nii.gz", base / "small_25.bval", base / "small_25.bvec",
                             base / "EuDX_small_25.trk")
        t1 = time.perf_counter()
        with clpk.life.Plan(ctx, d, precision=args.precision) as plan:
            plan.fit(iters=5)  # first use builds the kernels: keep that out of the fit time
            t2 = time.perf_counter()
            w = plan.fit(iters=args.iters, tolerance=1e-9)
            t3 = time.perf_counter()
            info = plan.last_fit
        print("device: %s (%s)" % (ctx.device["name"], ctx.device["implementation"]))
        print("clpk: %d voxels x %d directions, %d fibres, %d coefficients; encode %.3f s, fit %.3f s (%d iterations,"
              " %s, objective %.6f)" % (d["signal"].shape[0], d["signal"].shape[1], d["n_fibers"], d["phi_values"].size,
                                         t1 - t0, t3 - t2, info["iterations"], args.precision, info["objective"]))
        print("clpk: correlation with MATLAB LiFE's weights %.4f" % np.corrcoef(w, matlab)[0, 1])

    ref = dipy_fit(base)
    if ref is not None:
        beta, seconds, setup = ref
        print("dipy FiberModel: fit %.3f s (+ %.3f s reading), correlation with MATLAB %.4f"
              % (seconds, setup, np.corrcoef(beta, matlab)[0, 1]))
        print("clpk vs dipy weights: correlation %.4f" % np.corrcoef(w, beta)[0, 1])


if __name__ == "__main__":
    main()
