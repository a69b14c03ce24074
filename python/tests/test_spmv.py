"""clpk.SpMV against scipy.sparse products (double-precision references, relative-error bounds)."""
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import clpk
from conftest import fp64, need_data, rel_error

TOL = {"f32": 2e-6, "f64": 1e-13}


def random_matrix(rng, rows, cols, density, fmt="csr"):
    A = sp.random(rows, cols, density=density, format=fmt, random_state=np.random.RandomState(rng.integers(2 ** 31)),
                  data_rvs=lambda n: rng.uniform(-1, 1, n))
    return A


@pytest.mark.parametrize("precision", ["f32", "f64"])
def test_random_against_scipy(ctx, rng, precision):
    if precision == "f64":
        fp64(ctx)
    A = random_matrix(rng, 700, 500, 0.02)
    x = rng.uniform(-1, 1, 500)
    plan = clpk.SpMV(ctx, A, precision=precision)
    y = plan @ x
    assert y.dtype == np.float64 and y.shape == (700,)
    assert rel_error(A @ x, y) <= TOL[precision]
    # alpha, beta and an accumulated y (written in place)
    y0 = rng.uniform(-1, 1, 700)
    yy = y0.copy()
    out = plan.matvec(x, alpha=-0.5, beta=2.0, y=yy)
    assert out is yy
    assert rel_error(-0.5 * (A @ x) + 2.0 * y0, yy) <= 4 * TOL[precision]
    d = plan.describe()
    assert d["format"] in ("bccoo", "bccoo+", "csr") and d["shape"] == (700, 500) and d["footprint_bytes"] > 0
    assert d["precision"] == precision and isinstance(d["params"], dict)


@pytest.mark.parametrize("fmt", ["csr", "bccoo+"])
def test_explicit_formats_and_params(ctx, rng, fmt):
    A = random_matrix(rng, 300, 900, 0.01)
    x = rng.uniform(-1, 1, 900)
    plan = clpk.SpMV(ctx, A, format=fmt)
    assert plan.describe()["format"] == fmt
    assert rel_error(A @ x, plan @ x) <= TOL["f32"]
    plan2 = clpk.SpMV(ctx, A, format="bccoo", params={"block_h": 2, "block_w": 2})
    d = plan2.describe()
    assert d["format"] == "bccoo" and d["params"]["block_h"] == 2 and d["params"]["block_w"] == 2
    assert rel_error(A @ x, plan2 @ x) <= TOL["f32"]


def test_input_forms(ctx, rng):
    A = random_matrix(rng, 60, 40, 0.1, fmt="coo")
    x = rng.uniform(-1, 1, 40)
    ref = A @ x
    # COO with duplicates and unsorted entries: summed like scipy
    dup = sp.coo_matrix((np.r_[A.data, A.data], (np.r_[A.row, A.row], np.r_[A.col, A.col])), shape=A.shape)
    for M, want in ((A, ref), (A.tocsc(), ref), (sp.csr_array(A), ref), (A.toarray(), ref), (dup, 2 * ref),
                    (A.astype(np.float32), A.astype(np.float32) @ x)):
        assert rel_error(want, clpk.SpMV(ctx, M, precision="f32") @ x) <= TOL["f32"]
    # raw CSR arrays (data, indices, indptr), reversed within rows; trailing empty columns need shape=
    C = A.tocsr()
    idx, dat = C.indices.copy(), C.data.copy()
    for r in range(C.shape[0]):
        s, e = C.indptr[r], C.indptr[r + 1]
        idx[s:e], dat[s:e] = idx[s:e][::-1].copy(), dat[s:e][::-1].copy()
    plan = clpk.SpMV(ctx, (dat, idx, C.indptr), shape=C.shape)
    assert plan.shape == C.shape
    assert rel_error(ref, plan @ x) <= TOL["f32"]
    # integer matrix and vectors are converted; non-contiguous x is copied; 2-D x gives one column per product
    I = sp.identity(40, dtype=np.int64, format="csr") * 3
    assert np.allclose(clpk.SpMV(ctx, I) @ np.arange(40), 3 * np.arange(40))
    X = rng.uniform(-1, 1, (40, 6))
    plan = clpk.SpMV(ctx, A)
    assert rel_error(A @ X[:, ::2], plan @ X[:, ::2]) <= TOL["f32"]
    assert rel_error(A @ X[::1, 3], plan @ np.asfortranarray(X)[:, 3]) <= TOL["f32"]
    # y of another dtype receives the result converted
    y32 = np.zeros(60, np.float32)
    plan.matvec(x, y=y32)
    assert rel_error(ref, y32) <= 1e-6
    # an empty matrix
    Z = sp.csr_matrix((5, 7))
    assert np.array_equal(clpk.SpMV(ctx, Z) @ np.ones(7), np.zeros(5))


def test_nan_in_x_propagates_not_refused(ctx):
    A = sp.diags([1.0, 2.0, 3.0]).tocsr()
    y = clpk.SpMV(ctx, A) @ np.array([1.0, np.nan, 3.0])
    assert y[0] == 1.0 and np.isnan(y[1]) and y[2] == 9.0


def test_real_matrix(ctx, rng):
    path = need_data("matrices", "west0479.mtx")
    A = scipy.io.mmread(str(path)).tocsr()
    x = rng.uniform(-1, 1, A.shape[1])
    assert rel_error(A @ x, clpk.SpMV(ctx, A) @ x) <= 1e-5  # entries span 1e-6..1e5: f32 sum error


def test_linear_operator_cg(ctx, rng):
    from scipy.sparse.linalg import cg
    A = clpk.generate_matrix("stencil3d:8", seed=int(rng.integers(2 ** 31)))
    A = (A + A.T) * 0.5 + sp.identity(A.shape[0]) * 10  # symmetric, diagonally dominant
    fp64(ctx)
    plan = clpk.SpMV(ctx, A, precision="f64")
    b = rng.uniform(-1, 1, A.shape[0])
    try:
        x, info = cg(plan.aslinearoperator(), b, rtol=1e-10, atol=0)
    except TypeError:  # scipy < 1.12 calls it tol
        x, info = cg(plan.aslinearoperator(), b, tol=1e-10, atol=0)
    assert info == 0 and rel_error(b, A @ x) <= 1e-9


def test_quick_tune(ctx, rng):
    A = random_matrix(rng, 400, 400, 0.02)
    plan = clpk.SpMV.tune(ctx, A, max_multiplies=13)
    rep = plan.tune_report
    assert rep["candidates"] >= 1 and rep["multiplies"] <= 13 and rep["choice"]
    assert plan.describe()["text"] == rep["choice"]
    x = rng.uniform(-1, 1, 400)
    assert rel_error(A @ x, plan @ x) <= TOL["f32"]


def test_errors(ctx, rng):
    A = random_matrix(rng, 20, 10, 0.3)
    plan = clpk.SpMV(ctx, A)
    with pytest.raises(ValueError, match="10 columns"):
        plan @ np.ones(11)
    with pytest.raises(ValueError, match="dimension"):
        plan @ np.ones((10, 2, 2))
    with pytest.raises(TypeError, match="complex"):
        plan @ np.ones(10, complex)
    with pytest.raises(TypeError, match="real numbers"):
        plan @ np.array(["a"] * 10)
    with pytest.raises(ValueError, match="needs y"):
        plan.matvec(np.ones(10), beta=1.0)
    with pytest.raises(ValueError, match="shape"):
        plan.matvec(np.ones(10), y=np.ones(19))
    with pytest.raises(ValueError, match="read-only"):
        ro = np.ones(20)
        ro.flags.writeable = False
        plan.matvec(np.ones(10), y=ro)
    with pytest.raises(TypeError, match="alpha"):
        plan.matvec(np.ones(10), alpha="2")
    with pytest.raises(TypeError, match="complex"):
        clpk.SpMV(ctx, A.astype(complex))
    with pytest.raises(TypeError, match="scipy.sparse"):
        clpk.SpMV(ctx, "matrix")
    with pytest.raises(ValueError, match="precision"):
        clpk.SpMV(ctx, A, precision="f16")
    bad = A.copy()
    bad.data[3] = np.nan
    with pytest.raises(clpk.Error) as e:
        clpk.SpMV(ctx, bad)
    assert e.value.status_name == "CLPK_ERROR_INVALID_DATA" and "non-finite" in e.value.message
    with pytest.raises(clpk.Error) as e:
        clpk.SpMV(ctx, A, params="no_such_key=3")
    assert e.value.status_name == "CLPK_ERROR_INVALID_ARGUMENT" and "no_such_key" in e.value.message
    with pytest.raises(ValueError, match="indptr"):
        clpk.SpMV(ctx, (np.ones(3), np.array([0, 1, 2]), np.array([0, 2, 1])))
    with pytest.raises(ValueError, match="column indices"):
        clpk.SpMV(ctx, (np.ones(2), np.array([0, 5]), np.array([0, 1, 2])), shape=(2, 3))
    plan.close()
    with pytest.raises(ValueError, match="closed"):
        plan @ np.ones(10)
