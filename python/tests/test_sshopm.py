"""clpk.sshopm on the tensors with known eigenpairs in ../shared/data/sshopm and on constructed tensors."""
import itertools
import json

import numpy as np
import pytest

import clpk
from conftest import need_data


def load(name):
    with open(need_data("sshopm", name)) as f:
        d = json.load(f)
    pairs = d.get("real_eigenpairs_up_to_sign") or d["real_eigenpairs"]
    return d, pairs


def same_x(a, b, even, tol):
    return np.linalg.norm(a - b) <= tol or (even and np.linalg.norm(a + b) <= tol)


def test_kofidis_regalia_maxima_and_minima(ctx):
    d, ref = load("kofidis_regalia_ex1.json")
    res = clpk.sshopm(ctx, d["unique_entries"], order=4, dim=3, starts=64, find="both", seed=7)
    assert len(res) == 1
    pairs = res[0]
    assert pairs.failed == 0 and pairs.converged > 0
    maxima = [p for p in ref if p["type"] == "local max"]
    minima = [p for p in ref if p["type"] == "local min"]
    assert len(maxima) == 3
    for want, kind in [(p, "max") for p in maxima] + [(p, "min") for p in minima]:
        hit = [q for q in pairs if abs(q["lambda"] - want["lambda"]) <= 1e-4 and
               same_x(q["x"], np.array(want["x"]), True, 5e-3)]
        assert hit and hit[0]["type"] == kind, "lambda %.6f (%s) not found" % (want["lambda"], kind)
        assert hit[0]["hits"] >= 1
    for q in pairs:
        assert q["type"] in ("max", "min") and np.isclose(np.linalg.norm(q["x"]), 1, atol=1e-5)
        assert q["residual"] < 1e-3
    lams = [q["lambda"] for q in pairs]
    assert lams == sorted(lams, reverse=True)


def test_kolda_mayo_odd_order_polished_f64_tolerance(ctx):
    d, ref = load("kolda_mayo_ex36.json")
    res = clpk.sshopm(ctx, np.array(d["unique_entries"]), order=3, dim=3, starts=64, find="max", seed=7,
                      tol=1e-7, xtol=2e-5, max_iter=5000, polish=3)
    found = 0
    for q in res[0]:
        assert q["type"] == "max"
        assert q["residual"] < 1e-8  # Newton-polished in double
        # odd order: (lambda, x) and (-lambda, -x) are one pair; the file lists lambda >= 0
        match = [p for p in ref if abs(abs(q["lambda"]) - p["lambda"]) <= 1e-5 and
                 same_x(np.sign(q["lambda"]) * q["x"], np.array(p["x"]), False, 2e-3)]
        found += bool(match)
    assert found == len(res[0]) and found >= 1


def rank_one_unique(u, order):
    """Unique entries (lexicographic nondecreasing indices) of u^(x)order."""
    dim = len(u)
    return np.array([np.prod([u[i] for i in idx])
                     for idx in itertools.combinations_with_replacement(range(dim), order)])


def test_batch_dense_and_device_post(ctx, rng):
    # A = sum of two rank-one terms at right angles: maxima at +-u1 (lambda w1) and +-u2 (w2)
    order, dim = 4, 3
    tensors, truth = [], []
    for _ in range(5):
        Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        w = rng.uniform(0.5, 1.0, 2)
        tensors.append(w[0] * rank_one_unique(Q[:, 0], order) + w[1] * rank_one_unique(Q[:, 1], order))
        truth.append((w, Q[:, :2]))
    T = np.array(tensors)
    assert T.shape == (5, clpk.unique_count(order, dim))
    for post in ("host", "device"):
        res = clpk.sshopm(ctx, T, order=order, dim=dim, starts=48, find="max", post=post)
        assert len(res) == 5
        for (w, U), pairs in zip(truth, res):
            for k in range(2):
                assert any(abs(p["lambda"] - w[k]) <= 1e-4 * max(1, w[k]) and same_x(p["x"], U[:, k], True, 5e-3)
                           for p in pairs if p["type"] == "max"), "fibre %d (w=%.4f) missed" % (k, w[k])
    # the same tensors as dense n^m arrays give the same pairs
    dense = np.zeros((5,) + (dim,) * order)
    for t, (w, U) in enumerate(truth):
        for k in range(2):
            dense[t] += w[k] * np.einsum("i,j,k,l->ijkl", *([U[:, k]] * 4))
    a = clpk.sshopm(ctx, T, order=order, dim=dim, starts=48)
    b = clpk.sshopm(ctx, dense, order=order, dim=dim, starts=48)
    for pa, pb in zip(a, b):
        assert [round(p["lambda"], 4) for p in pa] == [round(p["lambda"], 4) for p in pb]
    # a plan reused for smaller batches
    with clpk.SshopmPlan(ctx, order=order, dim=dim, max_tensors=5, starts=48) as plan:
        assert "kernel" in plan.describe()["text"]
        assert len(plan.solve(T[:2])) == 2
        with pytest.raises(ValueError, match="max_tensors"):
            plan.solve(np.vstack([T, T]))


def test_errors(ctx):
    U = clpk.unique_count(4, 3)
    with pytest.raises(ValueError, match="2..8"):
        clpk.sshopm(ctx, np.ones(10), order=9, dim=3)
    with pytest.raises(ValueError, match="expected"):
        clpk.sshopm(ctx, np.ones((2, U + 1)), order=4, dim=3)
    with pytest.raises(ValueError, match="find"):
        clpk.sshopm(ctx, np.ones(U), order=4, dim=3, find="largest")
    with pytest.raises(ValueError, match="starts"):
        clpk.sshopm(ctx, np.ones(U), order=4, dim=3, starts=0)
    with pytest.raises(TypeError, match="complex"):
        clpk.sshopm(ctx, np.ones(U, complex), order=4, dim=3)
    bad = np.ones(U)
    bad[4] = np.nan
    with pytest.raises(clpk.Error) as e:
        clpk.sshopm(ctx, bad, order=4, dim=3)
    assert e.value.status_name == "CLPK_ERROR_INVALID_DATA"
    asym = np.zeros((3, 3, 3, 3))
    asym[0, 1, 2, 2] = 1.0  # its permutations are 0: not symmetric
    with pytest.raises(clpk.Error) as e:
        clpk.sshopm(ctx, asym, order=4, dim=3)
    assert e.value.status_name == "CLPK_ERROR_INVALID_DATA"
    with pytest.raises(clpk.Error) as e:  # a convex shift cannot find minima
        clpk.sshopm(ctx, np.ones(U), order=4, dim=3, find="min", shift="fixed", alpha=1.0)
    assert "minima" in e.value.message


@pytest.mark.parametrize("scale", [1e-9, 1e25])
def test_known_maxima_at_any_scale(ctx, scale):
    """Kofidis-Regalia's tensor scaled far from unit norm: the same maxima, lambda scaled (the library solves such
    tensors at unit norm; the default tolerances are absolute below |lambda| = 1)."""
    d, ref = load("kofidis_regalia_ex1.json")
    a = np.array(d["unique_entries"], dtype=np.float64)
    res = clpk.sshopm(ctx, a * scale, order=4, dim=3, starts=64, find="max", seed=7)
    pairs = res[0]
    assert pairs.failed == 0 and pairs.converged > 0
    for want in [p for p in ref if p["type"] == "local max"]:
        hit = [q for q in pairs if abs(q["lambda"] / scale - want["lambda"]) <= 1e-4 and
               same_x(q["x"], np.array(want["x"]), True, 5e-3)]
        assert hit and hit[0]["type"] == "max", "lambda %.6f not found at scale %g" % (want["lambda"], scale)
    assert all(q["type"] == "max" for q in pairs)
