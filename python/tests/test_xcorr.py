"""clpk.xcorr against scipy.signal.correlate2d and the reference outputs in ../shared/data/xcorr."""
import numpy as np
import pytest
from scipy.signal import correlate2d

import clpk
from conftest import fp64, need_data, rel_error


def reference(L, R, pattern):
    nl, nr = len(L), len(R)
    if pattern == "one-to-one":
        pairs = [(i, i) for i in range(nl)]
    elif pattern == "one-to-many":
        pairs = [(0, j) for j in range(nr)]
    elif pattern == "n-to-mn":
        pairs = [(j % nl, j) for j in range(nr)]
    else:
        pairs = [(i, j) for i in range(nl) for j in range(nr)]
    return np.stack([correlate2d(L[i], R[j], "full") for i, j in pairs])


@pytest.mark.parametrize("pattern,nl,nr", [("one-to-one", 3, 3), ("one-to-many", 1, 4), ("n-to-mn", 2, 6),
                                           ("n-to-m", 2, 3)])
def test_patterns_against_scipy(ctx, rng, pattern, nl, nr):
    L = rng.uniform(-1, 1, (nl, 9, 7))
    R = rng.uniform(-1, 1, (nr, 9, 7))
    out = clpk.xcorr(ctx, L.astype(np.float32), R.astype(np.float32), pattern=pattern)
    assert out.dtype == np.float32 and out.shape == (nl * nr if pattern == "n-to-m" else nr, 17, 13)
    assert rel_error(reference(L, R, pattern), out) <= 1e-5


def test_f64_single_matrices_and_conversion(ctx, rng):
    fp64(ctx)
    L = rng.uniform(-1, 1, (12, 10))
    R = rng.uniform(-1, 1, (12, 10))
    out = clpk.xcorr(ctx, L, R, pattern="one-to-one")  # float64 in: f64
    assert out.dtype == np.float64 and out.shape == (1, 23, 19)
    assert rel_error(correlate2d(L, R, "full"), out[0]) <= 1e-12
    # uint8 images (DIC) are converted: precision None gives f32
    Li = rng.integers(0, 256, (2, 8, 8), dtype=np.uint8)
    Ri = rng.integers(0, 256, (2, 8, 8), dtype=np.uint8)
    out = clpk.xcorr(ctx, Li, Ri, pattern="one-to-one", precision=None)
    assert out.dtype == np.float32
    assert rel_error(reference(Li.astype(float), Ri.astype(float), "one-to-one"), out) <= 1e-6


def test_plan_reuse_fft_and_search_window(ctx, rng):
    plan = clpk.XcorrPlan(ctx, (16, 16), 1, 5, pattern="one-to-many", algorithm="fft")
    assert plan.algorithm == "fft" and plan.output_shape == (5, 31, 31)
    assert plan.describe()["pattern"] == "one-to-many"
    for _ in range(2):
        L = rng.uniform(-1, 1, (1, 16, 16))
        R = rng.uniform(-1, 1, (5, 16, 16))
        assert rel_error(reference(L, R, "one-to-many"), plan(L, R)) <= 1e-5
    win = clpk.XcorrPlan(ctx, (16, 16), 1, 5, pattern="one-to-many", search=(5, 3))
    out = win(L, R)
    assert out.shape == (5, 5, 3)
    full = reference(L, R, "one-to-many")
    assert rel_error(full[:, 15 - 2:15 + 3, 15 - 1:15 + 2], out) <= 1e-5


def test_shared_reference_outputs(ctx):
    def read(path):
        with open(path) as f:
            rows, cols, count = (int(v) for v in f.readline().lstrip("# ").split(","))
            return np.loadtxt(f, delimiter=",", ndmin=2).reshape(count, rows, cols)
    d = need_data("xcorr")
    for valid, pattern in (("valid_n_to_m_10_10_2_4_1_1.csv", "n-to-m"),
                           ("valid_one_to_many_10_10_1_4_1_1.csv", "one-to-many")):
        parts = valid[:-4].split("_")
        r, c, nl, nr, il, ir = parts[-6:]
        L = read(d / ("ina_%s_%s_%s_%s.csv" % (r, c, nl, il)))
        R = read(d / ("ina_%s_%s_%s_%s.csv" % (r, c, nr, ir)))
        want = read(d / valid)
        assert rel_error(want, clpk.xcorr(ctx, L, R, pattern=pattern, precision="f32")) <= 1e-5


def test_errors(ctx, rng):
    L = rng.uniform(-1, 1, (2, 6, 6))
    with pytest.raises(ValueError, match="pattern must be"):
        clpk.xcorr(ctx, L, L, pattern="two-to-three")
    with pytest.raises(TypeError, match="pattern"):
        clpk.xcorr(ctx, L, L, pattern=None)
    with pytest.raises(ValueError, match="same size"):
        clpk.xcorr(ctx, L, L[:, :5], pattern="one-to-one")
    with pytest.raises(ValueError, match="stack"):
        clpk.xcorr(ctx, L[0, 0], L[0, 0], pattern="one-to-one")
    bad = L.copy()
    bad[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        clpk.xcorr(ctx, bad, L, pattern="one-to-one")
    with pytest.raises(TypeError, match="complex"):
        clpk.xcorr(ctx, L.astype(complex), L, pattern="one-to-one")
    with pytest.raises(clpk.Error) as e:  # one-to-one needs as many left as right matrices: the library refuses
        clpk.xcorr(ctx, L, L[:1], pattern="one-to-one")
    assert e.value.status_name == "CLPK_ERROR_INVALID_ARGUMENT"
    with pytest.raises(clpk.Error) as e:
        clpk.xcorr(ctx, L, L, pattern="one-to-one", algorithm="no-such-algorithm")
    assert "no-such-algorithm" in e.value.message
    plan = clpk.XcorrPlan(ctx, (6, 6), 2, 2, pattern="one-to-one")
    with pytest.raises(ValueError, match="plan is for"):
        plan(L[:1], L[:1])
    with pytest.raises(ValueError, match="out must be"):
        plan(L, L, out=np.empty((2, 11, 11)))
    with pytest.raises(clpk.Error):
        clpk.XcorrPlan(ctx, (6, 6), 1, 1, pattern="one-to-one", search=(4, 4))  # even window
