#!/usr/bin/env python3
"""dipy reference point for `clpk-sshopm dmri`: CSA ODF fit + peaks_from_model on the same scan, CPU.

Times dipy's CsaOdfModel (same order and smoothing as clpk's defaults) and peaks_from_model (repulsion724 sphere,
relative threshold 0.5, separation 25 degrees, 5 peaks) on a NIfTI scan, reading excluded.
Usage: dipy_peaks.py DWI.nii BVAL BVEC [--order 4] [--voxels N]   (N: the first N voxels of the scan, for a cut)
"""
import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dwi")
    ap.add_argument("bval")
    ap.add_argument("bvec")
    ap.add_argument("--order", type=int, default=4)
    ap.add_argument("--voxels", type=int, default=0)
    ap.add_argument("--parallel", action="store_true")
    args = ap.parse_args()
    import nibabel as nib
    from dipy.core.gradients import gradient_table
    from dipy.data import get_sphere
    from dipy.direction import peaks_from_model
    from dipy.io import read_bvals_bvecs
    from dipy.reconst.shm import CsaOdfModel
    data = np.asarray(nib.load(args.dwi).dataobj, dtype=np.float64)
    bvals, bvecs = read_bvals_bvecs(args.bval, args.bvec)
    bvecs = np.nan_to_num(bvecs)
    gtab = gradient_table(bvals, bvecs=bvecs, b0_threshold=50)
    vox = data.reshape(-1, data.shape[-1])
    if args.voxels:
        vox = vox[: args.voxels]
    vox = vox.reshape(len(vox), 1, 1, -1)
    t0 = time.perf_counter()
    model = CsaOdfModel(gtab, args.order, smooth=0.006)
    peaks = peaks_from_model(model, vox, get_sphere(name="repulsion724"), relative_peak_threshold=0.5,
                             min_separation_angle=25, npeaks=5, parallel=args.parallel)
    dt = time.perf_counter() - t0
    counts = (peaks.peak_values > 0).sum(axis=-1).ravel()
    print("dipy %s: order %d, %d voxels: %.2f s (%.1f us/voxel); peaks per voxel %s" % (
        __import__("dipy").__version__, args.order, len(vox), dt, 1e6 * dt / len(vox),
        np.bincount(counts, minlength=6)[:6].tolist()))


if __name__ == "__main__":
    main()
