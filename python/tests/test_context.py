"""Contexts, device facts, library loading and lifetime rules."""
import numpy as np
import pytest

import clpk


def test_devices_and_context_facts(ctx):
    devs = clpk.devices()
    assert devs, "clpk.devices() found nothing although a context opened"
    d = ctx.device
    for key in ("name", "platform_name", "vendor", "implementation", "kind", "compute_units", "has_fp64",
                "global_mem_bytes", "max_work_group_size"):
        assert key in d
    assert d["kind"] in ("cpu", "gpu", "other")
    assert isinstance(d["has_fp64"], bool)
    assert any(x["name"] == d["name"] for x in devs)
    path, level = ctx.profile()
    assert level
    assert isinstance(ctx.cache_stats()["builds"], int)
    assert ctx.cl_context and ctx.cl_queue


def test_family_parameters():
    text = clpk.family_parameters("spmv")
    for key in ("tile", "wg", "vload", "interleave", "prefetch"):
        assert any(line.split()[0] == key for line in text.splitlines() if line.strip()), key
    assert "tuned over" in text
    with pytest.raises(clpk.Error, match="unknown family"):
        clpk.family_parameters("nope")


def test_context_manager_and_close(ctx):
    sel = "%s,%s" % (ctx.device["implementation"], ctx.device["kind"])
    with clpk.Context(sel) as c:
        assert c.device["name"] == ctx.device["name"]
        plan = clpk.SpMV(c, np.eye(4))
        arr = clpk.DeviceArray(c, np.ones(4))
    assert c.closed
    c.close()  # idempotent
    with pytest.raises(ValueError, match="closed"):
        plan @ np.ones(4)
    with pytest.raises(ValueError, match="released"):
        arr.get()
    with pytest.raises(ValueError, match="closed"):
        clpk.SpMV(c, np.eye(3))
    assert "closed" in repr(c)


def test_bad_selectors():
    with pytest.raises(clpk.Error) as e:
        clpk.Context("no-such-device-anywhere")
    assert e.value.status_name == "CLPK_ERROR_DEVICE_NOT_FOUND"
    assert isinstance(e.value, RuntimeError)
    assert "no-such-device-anywhere" in str(e.value)
    with pytest.raises(TypeError):
        clpk.Context(3.5)


def test_error_carries_status_and_message(ctx):
    with pytest.raises(clpk.Error) as e:
        clpk.SpMV(ctx, np.eye(3), format="no-such-format")
    err = e.value
    assert err.status_name == "CLPK_ERROR_INVALID_ARGUMENT"
    assert err.status == 1 and err.status_text == "invalid argument"
    assert "no-such-format" in err.message
    assert err.status_name in str(err)


def test_library_path():
    assert "libclpk" in clpk.library_path()


def test_layout_check_refuses_a_library_out_of_step():
    """The ctypes mirrors are compared with the library's own layout; a disagreement is a clear clpk.Error."""
    from clpk import _lib, _structs as S
    real = _lib.load()

    class Shifted:  # the library, except that clpk_csr.val sits 8 bytes further on
        def clpk_abi_sizeof(self, name):
            return real.clpk_abi_sizeof(name) + (8 if name == b"clpk_csr" else 0)

        def clpk_abi_offsetof(self, name, field):
            return real.clpk_abi_offsetof(name, field) + (8 if (name, field) == (b"clpk_csr", b"val") else 0)

    try:
        with pytest.raises(clpk.Error, match="clpk_csr.val"):
            S.verify(Shifted(), "fake")
    finally:
        S.verify(real, clpk.library_path())
    # a library struct that grew at the end is accepted: allocations use the library's size
    assert real.clpk_abi_sizeof(b"clpk_csr") >= __import__("ctypes").sizeof(S.clpk_csr)
