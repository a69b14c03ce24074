"""clpk.Context and clpk.devices(): a device with its queue, program cache and tuning profile."""
import ctypes as C
import weakref

from . import _lib, _structs as S
from ._handle import Owner
from ._errors import Error

_KINDS = {1: "cpu", 2: "gpu", 3: "other"}


def _device_dict(info):
    d = {}
    for name, _ in S.clpk_device_info._fields_:
        v = getattr(info, name)
        if isinstance(v, bytes):
            v = _lib.text(v)
        d[name] = v
    d["kind"] = _KINDS.get(d["kind"], "other")
    for k in ("has_fp64", "has_int32_global_atomics", "has_int32_local_atomics", "has_int64_atomics",
              "has_subgroups", "has_subgroup_shuffle", "is_pocl"):
        d[k] = bool(d[k])
    return d


def devices():
    """Every OpenCL device of every platform, as dicts of the same facts as Context.device (clpk-info's list)."""
    lib = _lib.load()
    count = C.c_size_t(0)
    err = _lib.new_error()
    _lib.check(lib.clpk_list_devices(None, 0, C.byref(count), C.byref(err)), err=err)
    n = count.value
    if n == 0:
        return []
    buf = S.new_array(S.clpk_device_info, n)
    _lib.check(lib.clpk_list_devices(buf, n, C.byref(count), C.byref(err)), err=err)
    return [_device_dict(S.at(S.clpk_device_info, C.addressof(buf), i)) for i in range(min(n, count.value))]


def family_parameters(family):
    """The parameters a family's plans take ("spmv", "life", "sshopm", "xcorr"): one line each with the allowed values,
    the built-in defaults, the values the tuner searches and when it applies (clpk_family_parameters)."""
    lib = _lib.load()
    buf = C.create_string_buffer(16384)
    err = _lib.new_error()
    _lib.check(lib.clpk_family_parameters(family.encode(), buf, len(buf), C.byref(err)), err=err)
    return _lib.text(buf.value)


class Context(Owner):
    """One OpenCL device, its in-order queue, program cache and tuning profile.

    ``device``: the selector of clpk_context_create (None or "" uses $CLPK_DEVICE, else the first GPU, else the first
    CPU; "pocl", "intel,cpu", "0", "1:0", "h100", ...). ``ctx.device`` is a dict of the device's facts.
    Use as a context manager or call ``close()``; closing destroys the plans and device arrays made on it.
    A context is not thread-safe: use one per thread.
    """

    def __init__(self, device=None, *, _queue=None):
        lib = _lib.load()
        h = C.c_void_p()
        if _queue is not None:
            st = lib.clpk_context_create_from_queue(C.byref(h), _queue)
            sel = "an adopted queue"
        else:
            if device is not None and not isinstance(device, (str, int)):
                raise TypeError("device must be a selector string, an index or None, not %s" % type(device).__name__)
            sel = None if device is None else str(device)
            st = lib.clpk_context_create(C.byref(h), sel.encode() if sel is not None else None)
        if st != 0:
            raise Error(st, "no OpenCL device for selector %r (clpk-info lists the devices; the library logged why)"
                        % sel if sel else "no OpenCL device could be opened (the library logged why)",
                        _lib.status_text(st))
        self._h = h.value
        self._children = weakref.WeakSet()
        self.device = _device_dict(S.clpk_device_info.from_address(lib.clpk_context_device_info(self._h)))

    @classmethod
    def from_pyopencl(cls, queue):
        """A context on a pyopencl CommandQueue (clpk retains it): pyopencl arrays of its context can then be
        passed to SpMV plans directly."""
        return cls(_queue=C.c_void_p(queue.int_ptr))

    # ---- lifetime -------------------------------------------------------------------------------------------
    @property
    def handle(self):
        """The clpk_context* as an int (raises ValueError once closed)."""
        if not self._h:
            raise ValueError("this clpk.Context is closed")
        return self._h

    @property
    def closed(self):
        return not self._h

    def _adopt(self, child):
        self._children.add(child)

    def close(self):
        """Destroys the plans and device arrays made on this context, then the context. Idempotent."""
        if not self._h:
            return
        for child in list(self._children):
            child.close()
        _lib.load().clpk_context_destroy(self._h)
        self._h = None

    def __repr__(self):
        state = "closed" if self.closed else "%s / %s" % (self.device["platform_name"], self.device["name"])
        return "<clpk.Context %s>" % state

    # ---- facts ----------------------------------------------------------------------------------------------
    def last_error(self):
        return _lib.text(_lib.load().clpk_last_error(self.handle))

    @property
    def cl_context(self):
        """The cl_context handle (int)."""
        return _lib.load().clpk_context_cl_context(self.handle)

    @property
    def cl_queue(self):
        """The cl_command_queue handle (int): in order, profiling enabled."""
        return _lib.load().clpk_context_queue(self.handle)

    @property
    def cache_dir(self):
        return _lib.text(_lib.load().clpk_context_cache_dir(self.handle))

    def cache_stats(self):
        s = S.new(S.clpk_cache_stats)
        _lib.load().clpk_context_cache_stats(self.handle, C.byref(s))
        return {name: getattr(s, name) for name, _ in S.clpk_cache_stats._fields_}

    def profile(self):
        """(path, level) of the tuning profile in use; path "" with level "defaults" when none matched."""
        lib = _lib.load()
        p = C.c_char_p()
        level = lib.clpk_context_profile(self.handle, C.byref(p))
        return _lib.text(p.value), _lib.text(lib.clpk_profile_level_string(level))

    def finish(self):
        """Waits for everything enqueued on the context's queue."""
        from . import _cl
        _cl.finish(self.cl_queue)

    def pyopencl_queue(self):
        """The context's queue as a pyopencl CommandQueue (needs pyopencl), for making arrays SpMV plans accept."""
        import pyopencl as cl
        return cl.CommandQueue.from_int_ptr(self.cl_queue, retain=True)
