"""clpk.life on the library's tiny/small synthetic sets (against a scipy.sparse M in double and scipy's NNLS) and on
dipy's test data (../shared/data/life, against MATLAB LiFE's weights)."""
import json

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import nnls

import clpk
from conftest import fp64, need_data, rel_error


def design_matrix(d):
    """M as a scipy.sparse matrix, rows (voxel, theta), columns fibres: M[(v, t), f] = sum phi_k D[a_k, t]."""
    nt = d["dictionary"].shape[1]
    nv = d["n_voxels"]
    rows = (d["phi_voxels"][:, None] * nt + np.arange(nt)[None, :]).ravel()
    cols = np.repeat(d["phi_fibers"], nt)
    vals = (d["phi_values"][:, None] * d["dictionary"][d["phi_atoms"]]).ravel()
    return sp.csr_matrix((vals, (rows, cols)), shape=(nv * nt, d["n_fibers"]))


@pytest.fixture(scope="module")
def tiny():
    d, w_true = clpk.life.synth("tiny", seed=11)
    return d, w_true


@pytest.mark.parametrize("precision,tol", [("f32", 1e-5), ("f64", 1e-12)])
def test_products_against_scipy(ctx, rng, tiny, precision, tol):
    if precision == "f64":
        fp64(ctx)
    d, _ = tiny
    M = design_matrix(d)
    nv, nt = d["signal"].shape
    with clpk.life.Plan(ctx, d, precision=precision) as plan:
        assert plan.sizes["n_fibers"] == d["n_fibers"] and plan.describe()
        for _ in range(2):
            w = rng.uniform(0, 1, d["n_fibers"])
            y = rng.uniform(-1, 1, (nv, nt))
            assert rel_error((M @ w).reshape(nv, nt), plan.dsc(w)) <= tol
            assert rel_error(M.T @ y.ravel(), plan.wc(y)) <= tol
    # one-shot helpers
    w = rng.uniform(0, 1, d["n_fibers"])
    assert rel_error((M @ w).reshape(nv, nt), clpk.life.dsc(ctx, d, w, precision=precision)) <= tol


def test_fit_matches_nnls(ctx, tiny):
    fp64(ctx)
    d, w_true = tiny
    M = design_matrix(d)
    w_ref, _ = nnls(M.toarray(), d["signal"].ravel(), maxiter=50 * M.shape[1])
    with clpk.life.Plan(ctx, d, precision="f64") as plan:
        w = plan.fit(iters=5000, tolerance=1e-12)
        info = plan.last_fit
    assert np.all(w >= 0)
    obj_ref = 0.5 * np.sum((M @ w_ref - d["signal"].ravel()) ** 2)
    assert info["objective"] <= obj_ref * (1 + 1e-6), (info, obj_ref)
    assert rel_error(w_ref, w) <= 1e-3
    assert np.corrcoef(w, w_true)[0, 1] > 0.9
    # the residual updated from the step's products between refreshes every 7 steps: the same minimum
    with clpk.life.Plan(ctx, d, precision="f64", params="dsc=pairs,wc=pairs") as plan:
        w7 = plan.fit(iters=5000, tolerance=1e-12, residual_every=7)
        assert plan.last_fit["converged"] and rel_error(w, w7) <= 1e-4, plan.last_fit
    with clpk.life.Plan(ctx, d, precision="f64") as plan, pytest.raises(ValueError):
        plan.fit(iters=5, residual_every=0)
    # f32 and a fixed iteration count through the one-call API
    w32 = clpk.life.fit(ctx, d, iters=300, precision="f32")
    assert w32.shape == w.shape and np.all(w32 >= 0) and rel_error(w_ref, w32) <= 0.05


def test_small_set_fit(ctx):
    d, w_true = clpk.life.synth("small", seed=5)
    with clpk.life.Plan(ctx, d) as plan:
        w = plan.fit(iters=150, tolerance=0)
        assert plan.last_fit["iterations"] == 150
        r = plan.dsc(w) - d["signal"]
        r_true = plan.dsc(w_true) - d["signal"]
    assert np.all(w >= 0)
    # the fit explains the data at least as well as the weights that made it (noise on top)
    assert 0.5 * np.sum(r * r) <= 0.5 * np.sum(r_true * r_true)
    assert np.corrcoef(w, w_true)[0, 1] > 0.9


def save(d, path):
    path.mkdir()
    for k in ("phi_atoms", "phi_voxels", "phi_fibers", "phi_values", "dictionary", "signal"):
        np.save(path / (k + ".npy"), d[k])
    (path / "meta.json").write_text(json.dumps({"n_fibers": int(d["n_fibers"])}))


def test_directory_dataset(ctx, tiny, tmp_path):
    d, _ = tiny
    save(d, tmp_path / "ds")
    back = clpk.life.load(tmp_path / "ds")
    for k in ("phi_atoms", "phi_fibers", "phi_values", "dictionary", "signal"):
        assert np.array_equal(back[k], d[k])
    w_dir = clpk.life.fit(ctx, str(tmp_path / "ds"), iters=40, tolerance=0)
    w_dict = clpk.life.fit(ctx, d, iters=40, tolerance=0)
    assert rel_error(w_dict, w_dir) <= 1e-12


def test_dipy_data_against_matlab(ctx):
    base = need_data("life")
    d = clpk.life.encode(base / "small_25.nii.gz", base / "small_25.bval", base / "small_25.bvec",
                         base / "EuDX_small_25.trk")
    assert d["signal"].shape == (111, 25) and d["n_fibers"] == 60
    w = clpk.life.fit(ctx, d, iters=2000, tolerance=1e-9)
    matlab = np.load(base / "life_matlab_weights.npy")
    assert np.corrcoef(w, matlab)[0, 1] > 0.6  # dipy's own test asks the same of its FiberModel


def test_errors(ctx, tiny, tmp_path):
    d, _ = tiny
    with pytest.raises(ValueError, match="lacks dictionary"):
        clpk.life.fit(ctx, {k: v for k, v in d.items() if k != "dictionary"})
    with pytest.raises(TypeError, match="directory path or a dict"):
        clpk.life.fit(ctx, 42)
    bad = dict(d, phi_atoms=d["phi_atoms"].copy())
    bad["phi_atoms"][3] = d["dictionary"].shape[0] + 5
    with pytest.raises(clpk.Error) as e:
        clpk.life.fit(ctx, bad)
    assert e.value.status_name == "CLPK_ERROR_INVALID_DATA" and "phi_atoms" in e.value.message
    bad = dict(d, phi_values=d["phi_values"].copy())
    bad["phi_values"][0] = np.nan
    with pytest.raises(clpk.Error) as e:
        clpk.life.fit(ctx, bad)
    assert "phi_values" in e.value.message
    with pytest.raises(ValueError, match="phi_voxels has shape"):
        clpk.life.fit(ctx, dict(d, phi_voxels=d["phi_voxels"][:-1]))
    with pytest.raises(TypeError, match="integer"):
        clpk.life.fit(ctx, dict(d, phi_fibers=d["phi_fibers"] + 0.5))
    with pytest.raises(clpk.Error) as e:
        clpk.life.fit(ctx, str(tmp_path / "missing"))
    assert e.value.status_name == "CLPK_ERROR_IO"
    save(d, tmp_path / "broken")
    np.save(tmp_path / "broken" / "phi_values.npy", d["phi_values"][:-2])
    with pytest.raises(clpk.Error) as e:
        clpk.life.fit(ctx, tmp_path / "broken")
    assert "phi_values" in e.value.message
    with clpk.life.Plan(ctx, d) as plan:
        with pytest.raises(ValueError, match="shape"):
            plan.dsc(np.ones(d["n_fibers"] + 1))
        with pytest.raises(ValueError, match="shape"):
            plan.wc(np.ones(3))
        with pytest.raises(ValueError, match="iters"):
            plan.fit(iters=-1)
        with pytest.raises(clpk.Error) as e:
            plan.fit(w_start=np.full(d["n_fibers"], np.nan))
        assert e.value.status_name == "CLPK_ERROR_INVALID_DATA"
    nosig = {k: v for k, v in d.items() if k != "signal"}
    with clpk.life.Plan(ctx, nosig) as plan:
        assert plan.dsc(np.ones(d["n_fibers"])).shape == d["signal"].shape
        with pytest.raises(clpk.Error) as e:
            plan.fit()
        assert e.value.status_name == "CLPK_ERROR_INVALID_ARGUMENT"
    with pytest.raises(ValueError, match="size"):
        clpk.life.synth("huge")
