"""Shared fixtures: one context for the session (CLPK_DEVICE selects it, as in the C tests), a seeded generator whose
seed is printed (CLPK_TEST_SEED repeats a run), and ../shared/data (tests that need it skip when it is absent)."""
import os
import time
from pathlib import Path

import numpy as np
import pytest

import clpk

SEED = int(os.environ.get("CLPK_TEST_SEED") or (int(time.time() * 1000) % 2 ** 31))
REPO = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("CLPK_SHARED_DATA_DIR") or REPO.parent / "shared" / "data")


def pytest_report_header(config):
    return ["clpk: seed %d (repeat with CLPK_TEST_SEED=%d)" % (SEED, SEED),
            "clpk: package %s, library %s, data %s" % (Path(clpk.__file__).parent, clpk.library_path(),
                                                     DATA if DATA.is_dir() else "absent (tests that need it skip)")]


@pytest.fixture(scope="session")
def ctx():
    try:
        c = clpk.Context(os.environ.get("CLPK_DEVICE") or None)
    except clpk.Error as e:
        pytest.fail("no OpenCL device: %s" % e)
    yield c
    c.close()


@pytest.fixture
def rng(request):
    # one stream per test, derived from the session seed and the test's name: reruns of one test reproduce
    return np.random.default_rng([SEED, sum(map(ord, request.node.name))])


@pytest.fixture(scope="session")
def data_dir():
    return DATA


def need_data(*parts):
    """Path under ../shared/data, or skip the test with a message when it is absent."""
    p = DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip("shared data not found: %s (CLPK_SHARED_DATA_DIR overrides)" % p)
    return p


def rel_error(ref, got):
    ref, got = np.asarray(ref, dtype=np.float64), np.asarray(got, dtype=np.float64)
    return np.linalg.norm((got - ref).ravel()) / max(np.linalg.norm(ref.ravel()), 1e-300)


def fp64(ctx):
    if not ctx.device["has_fp64"]:
        pytest.skip("device has no fp64")
