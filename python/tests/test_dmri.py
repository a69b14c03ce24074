"""clpk.dmri_peaks on dipy's small_64D scan (../shared/data/dmri; skips when absent): dipy's layout, unit peaks,
sorted values, the files equal to the C CLI's, array input equal to the file path's host fit; refusals. And
clpk.sshopm_peaks on constructed fibre tensors."""
import itertools
import subprocess
from pathlib import Path

import numpy as np
import pytest

import clpk
from clpk.dmri import read_nifti, write_nifti
from conftest import need_data


def scan():
    d = need_data("dmri")
    for name in ("small_64D.nii", "small_64D.bval", "small_64D.bvec"):
        need_data("dmri", name)
    return d / "small_64D.nii", d / "small_64D.bval", d / "small_64D.bvec"


@pytest.fixture(scope="module")
def files():
    return scan()


@pytest.fixture(scope="module")
def result(ctx, files):
    return clpk.dmri_peaks(ctx, *files)


def check_peaks(dirs, values, counts):
    """Every peak unit-norm or zero, zero exactly beyond the count, values positive and non-increasing."""
    K = values.shape[-1]
    norms = np.linalg.norm(dirs, axis=-1)
    present = np.arange(K) < counts[..., None]
    assert np.all(np.abs(norms[present] - 1) < 1e-5)
    assert np.all(norms[~present] == 0) and np.all(values[~present] == 0)
    assert np.all(values[present] > 0)
    assert np.all(np.diff(values, axis=-1) <= 0)


def test_shapes_units_and_counts(result):
    r = result
    X, Y, Z = r.shape
    assert r.peak_dirs.shape == (X, Y, Z, 5, 3) and r.peak_values.shape == (X, Y, Z, 5)
    assert r.peak_dirs.dtype == np.float32 and r.peak_counts.shape == (X, Y, Z)
    check_peaks(r.peak_dirs, r.peak_values, r.peak_counts)
    assert r.voxels_fitted == X * Y * Z  # no mask, every voxel has signal
    assert r.peak_counts.min() >= 1
    assert r.starts_converged + r.starts_capped + r.starts_failed == 64 * r.voxels_fitted  # 64 starts per voxel
    assert r.starts_failed == 0
    assert r.model.startswith("CSA ODF order 4") and "64 of 65 volumes" in r.model
    assert r.background.shape == (X, Y, Z) and r.background.mean() > 0
    assert r.times["compute"] > 0
    assert set(r.asdict()) >= {"peak_dirs", "peak_values", "voxels_fitted", "model"}


def test_write_equals_cli(result, files, tmp_path):
    cli = Path(clpk.library_path()).parent / "bin" / "clpk-sshopm"
    result.write(tmp_path / "py", png=False)
    dirs, aff = read_nifti(tmp_path / "py_peak_dirs.nii.gz")
    vals, aff2 = read_nifti(tmp_path / "py_peak_values.nii.gz")
    np.testing.assert_array_equal(dirs, result.peak_dirs)
    np.testing.assert_array_equal(vals, result.peak_values)
    _, scan_aff = read_nifti(files[0])
    np.testing.assert_allclose(aff, scan_aff, atol=1e-6)
    if not cli.is_file():
        pytest.skip("no %s to compare with" % cli)
    dwi, bval, bvec = files
    subprocess.run([str(cli), "dmri", "--dwi", str(dwi), "--bval", str(bval), "--bvec", str(bvec), "--no-png",
                    "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    cdirs, caff = read_nifti(tmp_path / "cli_peak_dirs.nii.gz")
    cvals, _ = read_nifti(tmp_path / "cli_peak_values.nii.gz")
    np.testing.assert_array_equal(cdirs, dirs)
    np.testing.assert_array_equal(cvals, vals)
    np.testing.assert_array_equal(caff, aff)


def test_arrays_equal_files_host_fit(ctx, files, tmp_path):
    dwi, bval, bvec = files
    data, affine = read_nifti(dwi)
    bvals, bvecs = np.loadtxt(bval), np.loadtxt(bvec)  # (N,) and (N, 3): this file's layout
    mask = np.zeros(data.shape[:3], dtype=bool)
    mask[2:8, 1:9, 3:7] = True
    write_nifti(tmp_path / "mask.nii.gz", mask.astype(np.float32), affine)
    ref = clpk.dmri_peaks(ctx, dwi, bval, bvec, mask=tmp_path / "mask.nii.gz", fit="host")
    assert not ref.device_pipeline and ref.voxels_fitted == mask.sum()
    assert np.all(ref.peak_counts[~mask] == 0) and np.all(ref.peak_counts[mask] >= 1)
    assert bvecs.shape == (65, 3)
    for bv, bvc in ((bvals, bvecs), (bvals, bvecs.T), (bval, bvec)):  # (N, 3), FSL's (3, N), file paths
        r = clpk.dmri_peaks(ctx, data.astype(np.float32), bv, bvc, mask=mask, affine=affine)
        np.testing.assert_array_equal(r.peak_dirs, ref.peak_dirs)
        np.testing.assert_array_equal(r.peak_values, ref.peak_values)
        assert r.voxels_fitted == ref.voxels_fitted and r.model == ref.model
        assert (r.starts_converged, r.starts_capped) == (ref.starts_converged, ref.starts_capped)
    np.testing.assert_allclose(r.background, ref.background, rtol=1e-6)
    r.write(tmp_path / "arr")
    back, aff = read_nifti(tmp_path / "arr_peak_values.nii.gz")
    np.testing.assert_array_equal(back, r.peak_values)
    np.testing.assert_allclose(aff, affine, atol=1e-5)
    # the device pipeline (the default for files) agrees with the host fit
    dev = clpk.dmri_peaks(ctx, dwi, bval, bvec, mask=tmp_path / "mask.nii.gz", max_peaks=3)
    assert dev.device_pipeline and dev.peak_values.shape[3] == 3
    assert np.mean(dev.peak_counts == np.minimum(ref.peak_counts, 3)) > 0.95


def test_refusals(ctx, files, tmp_path):
    dwi, bval, bvec = files
    with pytest.raises(clpk.Error, match="no_such.nii.*cannot open") as e:
        clpk.dmri_peaks(ctx, tmp_path / "no_such.nii", bval, bvec)
    assert e.value.status_name == "CLPK_ERROR_IO"
    short = tmp_path / "short.bval"
    short.write_text(" ".join(bval.read_text().split()[:-1]))
    with pytest.raises(clpk.Error, match="64 b-values") as e:
        clpk.dmri_peaks(ctx, dwi, short, bvec)
    assert e.value.status_name == "CLPK_ERROR_INVALID_DATA"
    data, _ = read_nifti(dwi)
    write_nifti(tmp_path / "vol3.nii.gz", data[..., 0])
    with pytest.raises(clpk.Error, match="4-D"):
        clpk.dmri_peaks(ctx, tmp_path / "vol3.nii.gz", bval, bvec)
    bvals, bvecs = np.loadtxt(bval), np.loadtxt(bvec)
    with pytest.raises(ValueError, match="4-D array"):
        clpk.dmri_peaks(ctx, data[..., 0], bvals, bvecs)
    with pytest.raises(ValueError, match="64 b-values, but dwi has 65 volumes"):
        clpk.dmri_peaks(ctx, data, bvals[:-1], bvecs)
    with pytest.raises(ValueError, match=r"bvecs: expected \(65, 3\)"):
        clpk.dmri_peaks(ctx, data, bvals, bvecs[:-1])
    with pytest.raises(ValueError, match="no b = 0 volume"):
        clpk.dmri_peaks(ctx, data, bvals + 100, bvecs)
    with pytest.raises(ValueError, match="mask: expected shape"):
        clpk.dmri_peaks(ctx, data, bvals, bvecs, mask=np.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="file path too"):
        clpk.dmri_peaks(ctx, dwi, bvals, bvecs)
    with pytest.raises(ValueError, match="fitted on the host"):
        clpk.dmri_peaks(ctx, data, bvals, bvecs, fit="device")
    with pytest.raises(clpk.Error, match="too small for order"):
        clpk.dmri_peaks(ctx, data[..., :12], bvals[:12], bvecs[:12], order=8)
    with pytest.raises(ValueError, match="post must be one of"):
        clpk.dmri_peaks(ctx, dwi, bval, bvec, post="gpu")


def fibres(order, dirs, weights):
    """Dense sum_f w_f u_f^(x)order."""
    out = 0
    for u, w in zip(dirs, weights):
        t = np.asarray(u, dtype=float)
        for _ in range(order - 1):
            t = np.multiply.outer(t, u)
        out = out + w * t
    return out


def test_sshopm_peaks_crossings(ctx, rng):
    R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    u1, u2 = R[:, 0], R[:, 1]  # orthogonal
    T = np.stack([fibres(4, [u1, u2], [1.0, 0.7]), fibres(4, [u1], [1.0]), fibres(4, [u2, u1], [0.3, 1.0])])
    res = clpk.sshopm_peaks(ctx, T, order=4, max_peaks=3)
    dirs, values = res
    assert dirs.shape == (3, 3, 3) and values.shape == (3, 3)
    check_peaks(dirs, values, res.peak_counts)
    assert list(res.peak_counts) == [2, 1, 1]  # 0.3 is below half the largest
    for t, want in ((0, [u1, u2]), (1, [u1]), (2, [u1])):
        for k, u in enumerate(want):
            assert abs(abs(dirs[t, k] @ u) - 1) < 1e-5
    refined = clpk.sshopm_peaks(ctx, T[:1], order=4, refine=True, relative_threshold=0.2)
    np.testing.assert_allclose(refined.peak_values[0, :2], [1.0, 0.7], atol=1e-3)
    off = clpk.sshopm_peaks(ctx, T, order=4, active=[1, 0, 1])
    assert off.peak_counts[1] == 0 and off.peak_counts[0] == 2
    with pytest.raises(ValueError, match="even order"):
        clpk.sshopm_peaks(ctx, np.zeros((1, 10)), order=3)
    with pytest.raises(ValueError, match="active"):
        clpk.sshopm_peaks(ctx, T, order=4, active=[1, 0])


def test_sshopm_peaks_unique_input_matches_dense(ctx):
    u = np.array([0.0, 0.6, 0.8])
    dense = fibres(6, [u], [2.0])
    idx = list(itertools.combinations_with_replacement(range(3), 6))
    unique = np.array([[dense[i] for i in idx]])
    a = clpk.sshopm_peaks(ctx, unique, order=6)
    b = clpk.sshopm_peaks(ctx, dense, order=6)
    np.testing.assert_array_equal(a.peak_dirs, b.peak_dirs)
    assert a.peak_counts[0] == 1 and abs(abs(a.peak_dirs[0, 0] @ u) - 1) < 1e-5
    assert abs(a.peak_values[0, 0] - 2.0) < 1e-3
