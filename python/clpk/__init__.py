"""clpk: Python bindings of the clpk OpenCL kernel library (NumPy in, NumPy out; the C library does the work).

    import clpk, scipy.sparse as sp, numpy as np
    with clpk.Context("pocl") as ctx:                 # device selector as in the C API; None: $CLPK_DEVICE / default
        A = sp.random(1000, 1000, density=0.01, format="csr")
        plan = clpk.SpMV(ctx, A, precision="f64")     # format and parameters from the device's tuning profile
        y = plan @ np.ones(1000)

Families: clpk.SpMV (sparse matrix-vector products), clpk.xcorr / clpk.XcorrPlan (2-D cross-correlation),
clpk.sshopm / clpk.SshopmPlan (tensor eigenpairs), clpk.sshopm_peaks (maxima of tensors on the sphere, dipy's
selection), clpk.dmri_peaks (fibre peaks of diffusion-MRI scans, files or arrays), clpk.life (LiFE products and
SBB-NNLS fit).
clpk.DeviceArray keeps vectors on the device between products. Library failures raise clpk.Error.
The shared library is found through $CLPK_LIBRARY, then clpk/_lib/, then a source checkout's build/, then the
system (clpk._lib documents the order); clpk.library_path() says which was loaded.
"""
from . import life
from ._errors import Error
from ._lib import library_path
from .context import Context, devices, family_parameters
from .device import DeviceArray
from .dmri import DmriPeaks, TensorPeaks, dmri_peaks, sshopm_peaks
from .spmv import SpMV, generate as generate_matrix
from .sshopm import Pairs, SshopmPlan, sshopm, unique_count
from .xcorr import XcorrPlan, xcorr

__version__ = "0.1.0"

__all__ = ["Context", "DeviceArray", "DmriPeaks", "Error", "Pairs", "SpMV", "SshopmPlan", "TensorPeaks", "XcorrPlan",
           "devices", "dmri_peaks", "family_parameters", "generate_matrix", "library_path", "life", "sshopm",
           "sshopm_peaks", "unique_count", "xcorr"]
