"""The DLPack v1.3 ABI (dlpack.h) declared with ctypes, for the tests that look inside
capsules (conftest.py) and the ones that build them by hand (_malformed.py).

Declared from the header, not from dlpack_abi.h: a mistake in our header must not be
repeated here. ``shape`` and ``strides`` are plain addresses (``c_void_p``), so a test
can set any value, a wild one included; read them with ``int64s``.
"""

from __future__ import annotations

import ctypes

# --------------------------------------------------------------------------------------

kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3
kDLROCMHost = 11
kDLCUDAManaged = 13
kDLOneAPI = 14

CODE_INT, CODE_UINT, CODE_FLOAT, CODE_OPAQUE, CODE_BFLOAT, CODE_COMPLEX, CODE_BOOL = range(7)
CODE_FLOAT6_E2M3FN = 15
CODE_FLOAT6_E3M2FN = 16
CODE_FLOAT4_E2M1FN = 17

FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
FLAG_IS_SUBBYTE_TYPE_PADDED = 1 << 2


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.c_void_p),  # int64_t *
        ("strides", ctypes.c_void_p),  # int64_t *
        ("byte_offset", ctypes.c_uint64),
    ]


#: ``void (*deleter)(DLManagedTensor[Versioned] *self)``. A CFUNCTYPE callback takes the
#: GIL itself, so it may be called from any thread; calling a CFUNCTYPE pointer from
#: Python releases the GIL for the duration of the call.
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


assert ctypes.sizeof(DLTensor) == 48
assert ctypes.sizeof(DLManagedTensor) == 64
assert ctypes.sizeof(DLManagedTensorVersioned) == 80
assert DLManagedTensorVersioned.dl_tensor.offset == 32


# The C exchange API (DLPackExchangeAPI): a header, then five function pointers.
class DLPackExchangeAPIHeader(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("prev_api", ctypes.c_void_p)]


class DLPackExchangeAPI(ctypes.Structure):
    _fields_ = [
        ("header", DLPackExchangeAPIHeader),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


def int64s(address: int | None, count: int) -> tuple[int, ...] | None:
    """The count int64_t at address (a shape or strides array); None for NULL."""
    if not address:
        return None
    return tuple((ctypes.c_int64 * count).from_address(address))
