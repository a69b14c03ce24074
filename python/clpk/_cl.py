"""The few OpenCL calls device-resident arrays need (buffers on a clpk context's cl_context and queue).

libclpk links the ICD loader, so libOpenCL is already in the process once libclpk is loaded."""
import ctypes as C
import ctypes.util

from ._errors import Error

_P, _SZ, _U, _I, _U64 = C.c_void_p, C.c_size_t, C.c_uint32, C.c_int32, C.c_uint64
CL_MEM_READ_WRITE = 1

_PROTOTYPES = {
    "clCreateBuffer": (_P, [_P, _U64, _SZ, _P, C.POINTER(_I)]),
    "clReleaseMemObject": (_I, [_P]),
    "clEnqueueWriteBuffer": (_I, [_P, _P, _U, _SZ, _SZ, _P, _U, _P, _P]),
    "clEnqueueReadBuffer": (_I, [_P, _P, _U, _SZ, _SZ, _P, _U, _P, _P]),
    "clEnqueueCopyBuffer": (_I, [_P, _P, _P, _SZ, _SZ, _SZ, _U, _P, _P]),
    "clEnqueueFillBuffer": (_I, [_P, _P, _P, _SZ, _SZ, _SZ, _U, _P, _P]),
    "clFinish": (_I, [_P]),
}

_cl = None


def cl():
    global _cl
    if _cl is None:
        from . import _lib
        _lib.load()
        lib = None
        for name in ("libOpenCL.so.1", ctypes.util.find_library("OpenCL")):
            if not name:
                continue
            try:
                lib = C.CDLL(name)
                break
            except OSError:
                continue
        if lib is None:
            raise Error(4, "libOpenCL (the ICD loader) could not be loaded")
        for fname, (res, args) in _PROTOTYPES.items():
            fn = getattr(lib, fname)
            fn.restype, fn.argtypes = res, args
        _cl = lib
    return _cl


def check(rc, call):
    if rc != 0:
        raise Error(4, "%s failed with OpenCL error %d" % (call, rc), "OpenCL error")


def create_buffer(cl_context, nbytes):
    rc = _I(0)
    mem = cl().clCreateBuffer(cl_context, CL_MEM_READ_WRITE, max(int(nbytes), 1), None, C.byref(rc))
    check(rc.value, "clCreateBuffer(%d bytes)" % nbytes)
    return mem


def release(mem):
    if mem:
        cl().clReleaseMemObject(mem)


def write(queue, mem, offset, array, blocking=True):
    if array.nbytes:
        check(cl().clEnqueueWriteBuffer(queue, mem, int(blocking), offset, array.nbytes, array.ctypes.data, 0, None,
                                        None), "clEnqueueWriteBuffer")


def read(queue, mem, offset, array):
    if array.nbytes:
        check(cl().clEnqueueReadBuffer(queue, mem, 1, offset, array.nbytes, array.ctypes.data, 0, None, None),
              "clEnqueueReadBuffer")


def copy(queue, src, dst, nbytes):
    if nbytes:
        check(cl().clEnqueueCopyBuffer(queue, src, dst, 0, 0, nbytes, 0, None, None), "clEnqueueCopyBuffer")


def fill(queue, mem, value_array, nbytes):
    if nbytes:
        check(cl().clEnqueueFillBuffer(queue, mem, value_array.ctypes.data, value_array.nbytes, 0, nbytes, 0, None,
                                       None), "clEnqueueFillBuffer")


def finish(queue):
    check(cl().clFinish(queue), "clFinish")
